//! Subjects: whatever answers a scenario's calls. The built-in engine and an
//! external submission are two implementations of one trait, so the runner,
//! the traces and the comparisons never know which one they are driving.

mod engine;
mod pipes;
mod process;

pub use engine::EngineSubject;
pub use process::{EngineCommand, Limits, PROTOCOL_VERSION, ProcessSubject, WINDOW};

use crate::domain::{Color, Coord, Dims, Piece, Role, Square};
use crate::engine::{BoardText, FenError, GameStatus, MoveError, Position, RuleSet, Scores};
use crate::scenario::{Placement, Scenario, Step, StepKind};
use crate::trace::Outcome;
use std::fmt;

/// How a scenario sets up its board.
#[derive(Clone, Copy, Debug)]
pub struct Setup<'a> {
    pub rules: RuleSet,
    pub dims: Dims,
    /// A FEN to start from (then `placements` on top), or an empty board.
    pub fen: Option<&'a str>,
    /// Who moves first, if the setup says (a JHU board picture).
    pub turn: Option<Color>,
    pub placements: &'a [Placement],
}

impl<'a> Setup<'a> {
    /// The setup a scenario describes.
    pub fn of(scenario: &'a Scenario) -> Setup<'a> {
        Setup {
            rules: scenario.directives.rule_set(),
            dims: scenario.dims,
            fen: scenario.fen.as_deref(),
            turn: scenario.turn,
            placements: &scenario.placements,
        }
    }

    /// The starting position: the FEN (or an empty board), then the
    /// placements in order, a later one replacing an earlier.
    pub fn initial_position(&self) -> Result<Position, FenError> {
        let mut pos = match self.fen {
            Some(fen) => Position::from_fen(self.rules, fen)?,
            None => Position::new(self.rules, self.dims),
        };
        for p in self.placements {
            pos.place(p.square, Piece::new(p.color, p.role));
        }
        if let Some(turn) = self.turn {
            pos.set_turn(turn);
        }
        Ok(pos)
    }
}

/// The Lab 3 calls, at the granularity of scenario steps: a subject that
/// talks to a process expands scans into single calls itself (and can
/// pipeline them); the engine answers a scan from one move generation.
/// The steps of the richer rule sets default to "unsupported", so a
/// subject only implements what its protocol can express.
pub trait Subject {
    /// A new board set up as `setup` says.
    fn setup(&mut self, setup: &Setup) -> Result<(), SubjectError>;
    /// Every (from, to) for which isValidMove is true, sorted row-major.
    fn valid_scan(&mut self) -> Result<Vec<(Square, Square)>, SubjectError>;
    /// Every square for which isPieceUnderThreat is true, row-major.
    fn threat_scan(&mut self) -> Result<Vec<Square>, SubjectError>;
    fn move_piece(&mut self, from: Coord, to: Coord) -> Result<bool, SubjectError>;
    /// The whole board, as the subject sees it now.
    fn board(&mut self) -> Result<BoardText, SubjectError>;
    /// A `move` step: played, or refused with the reason.
    fn play(
        &mut self,
        _from: Option<Square>,
        _to: Option<Square>,
        _promotion: Option<Role>,
    ) -> Result<Result<(), MoveError>, SubjectError> {
        Err(SubjectError::Unsupported("move".into()))
    }
    fn perft(&mut self, _depth: u32) -> Result<u64, SubjectError> {
        Err(SubjectError::Unsupported("perft".into()))
    }
    fn divide(&mut self, _depth: u32) -> Result<Vec<(String, u64)>, SubjectError> {
        Err(SubjectError::Unsupported("divide".into()))
    }
    fn undo(&mut self) -> Result<bool, SubjectError> {
        Err(SubjectError::Unsupported("undo".into()))
    }
    fn redo(&mut self) -> Result<bool, SubjectError> {
        Err(SubjectError::Unsupported("redo".into()))
    }
    fn status(&mut self) -> Result<GameStatus, SubjectError> {
        Err(SubjectError::Unsupported("status".into()))
    }
    fn score(&mut self) -> Result<Scores, SubjectError> {
        Err(SubjectError::Unsupported("score".into()))
    }
    /// Stops the game ("Z0 Z0"); the status it ends in.
    fn stop(&mut self) -> Result<GameStatus, SubjectError> {
        Err(SubjectError::Unsupported("stop".into()))
    }
    /// The machine player's move (in the rule set's notation), `None` for a
    /// forfeit.
    fn machine(&mut self, _seed: u64) -> Result<Option<String>, SubjectError> {
        Err(SubjectError::Unsupported("machine".into()))
    }
    /// The save file's lines.
    fn save(&mut self) -> Result<Vec<String>, SubjectError> {
        Err(SubjectError::Unsupported("save".into()))
    }
    /// Plays `steps` in order, each followed by the board, until one fails.
    /// The default asks one call at a time; a subject behind a pipe sends
    /// the whole list at once (one round trip per scenario instead of two
    /// per step). Either way the calls reach the subject in the same order
    /// and number, and every step runs whatever earlier steps answered.
    /// The scenario's calls end here: the subject may close the scenario
    /// with the last step, so only [`Subject::finish`] follows.
    fn run_steps(&mut self, steps: &[Step]) -> StepsRun {
        run_steps_one_by_one(self, steps)
    }
    /// The whole scenario: set the board up, read it back, play `steps`
    /// ([`Subject::run_steps`]). A subject behind a pipe sends it all at
    /// once; the calls reach the subject in the same order and number
    /// either way. `Err`: the setup or the initial board failed.
    fn run_scenario(
        &mut self,
        setup: &Setup,
        steps: &[Step],
    ) -> Result<(BoardText, StepsRun), SubjectError> {
        self.setup(setup)?;
        let board = self.board()?;
        Ok((board, self.run_steps(steps)))
    }
    /// The scenario is over: release what the subject holds (a process).
    fn finish(&mut self) {}
    /// Debug output the subject produced (a submission's stderr), for
    /// reports; complete once the scenario is finished.
    fn stderr_excerpt(&mut self) -> Option<String> {
        None
    }
    /// What a memory check found in the scenario's processes, once it is
    /// finished; `None` when memory is not checked.
    fn memory(&mut self) -> Option<crate::memcheck::Checked> {
        None
    }
    /// The folder the scenario's processes wrote in reached its disk bound
    /// (`--disk`), once the scenario is finished: a write of the program's
    /// failed there, so whatever went wrong after is the disk limit's.
    /// `None`: not at its bound, or no folder.
    fn disk_reached(&self) -> Option<crate::sandbox::DiskReached> {
        None
    }
}

/// What [`Subject::run_steps`] gives back: the outcome of each step that
/// finished, with the board after it, in step order; and, if a step failed,
/// its index in the list and why (no step after it ran).
#[derive(Clone, Debug, Default)]
pub struct StepsRun {
    pub done: Vec<(Outcome, BoardText)>,
    pub failure: Option<(usize, SubjectError)>,
}

/// [`Subject::run_steps`] one call at a time.
pub fn run_steps_one_by_one<S: Subject + ?Sized>(subject: &mut S, steps: &[Step]) -> StepsRun {
    let mut run = StepsRun::default();
    for (i, step) in steps.iter().enumerate() {
        match run_step(subject, &step.kind).and_then(|o| Ok((o, subject.board()?))) {
            Ok(done) => run.done.push(done),
            Err(error) => {
                run.failure = Some((i, error));
                break;
            }
        }
    }
    run
}

/// One step's call (or scan), without the board after it.
pub fn run_step<S: Subject + ?Sized>(
    subject: &mut S,
    step: &StepKind,
) -> Result<Outcome, SubjectError> {
    Ok(match step {
        StepKind::MovePiece { from, to } => Outcome::Moved(subject.move_piece(*from, *to)?),
        StepKind::IsValidScan => Outcome::ValidMoves(subject.valid_scan()?),
        StepKind::UnderThreatScan => Outcome::Threatened(subject.threat_scan()?),
        StepKind::Move {
            from,
            to,
            promotion,
            ..
        } => Outcome::Played(subject.play(*from, *to, *promotion)?),
        StepKind::Perft { depth } => Outcome::Count(subject.perft(*depth)?),
        StepKind::Divide { depth } => Outcome::Divide(subject.divide(*depth)?),
        StepKind::Undo => Outcome::Moved(subject.undo()?),
        StepKind::Redo => Outcome::Moved(subject.redo()?),
        StepKind::Status => Outcome::Status(subject.status()?),
        StepKind::Stop { .. } => Outcome::Status(subject.stop()?),
        StepKind::Score => Outcome::Score(subject.score()?),
        StepKind::Machine { seed } => Outcome::Machine(subject.machine(*seed)?),
        StepKind::Save => Outcome::Saved(subject.save()?),
    })
}

/// Why a subject could not answer. The engine never fails; submissions do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubjectError {
    /// Did not answer within the time limit.
    Timeout,
    /// Killed by a signal (its name, e.g. `SIGSEGV`).
    Crash(String),
    /// Answered something that is not a valid answer to the call.
    Malformed(String),
    /// Exited (with this status) before answering every call.
    ExitedEarly(Option<i32>),
    /// Closed its output but kept running (ended by the grader; not a crash).
    ClosedOutput,
    /// The grader could not talk to it at all.
    Io(String),
    /// The subject cannot express this step (e.g. `perft` over protocol v1).
    Unsupported(String),
    /// Its folder reached the disk bound (`--disk`), and the scenario then
    /// failed: what the folder held, and how it failed (a write past the
    /// bound fails in the program with `ENOSPC`).
    DiskLimit(String),
    /// The grader's own adapter kit says the scenario cannot be put to the
    /// course's classes (a step no hook serves, a hook refusing, a hook
    /// answering outside its contract): the staff's problem, reported as
    /// the scenario's input error, never as the student's failure.
    NotGradable(String),
}

impl fmt::Display for SubjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SubjectError::Timeout => write!(f, "timeout"),
            SubjectError::Crash(signal) => write!(f, "crash ({signal})"),
            SubjectError::Malformed(what) => write!(f, "malformed answer: {what}"),
            SubjectError::ExitedEarly(Some(code)) => write!(f, "exited early (status {code})"),
            SubjectError::ExitedEarly(None) => write!(f, "exited early"),
            SubjectError::ClosedOutput => write!(f, "closed its output but kept running"),
            SubjectError::Io(e) => write!(f, "i/o error: {e}"),
            SubjectError::Unsupported(step) => {
                write!(f, "`{step}` is not supported by this subject")
            }
            SubjectError::DiskLimit(what) => write!(f, "disk limit: {what}"),
            SubjectError::NotGradable(why) => write!(f, "not gradable: {why}"),
        }
    }
}

impl std::error::Error for SubjectError {}
