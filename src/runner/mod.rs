//! The runner: discover scenario files, execute each against a subject,
//! judge the trace against its snapshot, and hand typed results to a
//! reporter. Nothing here formats output; reporters never compute results.

mod discover;
mod execute;
mod fault;
mod judge;
mod leak;
mod partition;
mod pool;
mod select;

pub use discover::{
    COVERAGE_FILE, Discovery, Found, SCENARIOS_DIR, SNAPSHOTS_DIR, discover, is_gen_summary, walk,
};
pub use execute::{Execution, StepFailure, execute};
pub use fault::guarded;
pub use judge::{as_reference_result, expected_boards};
pub use leak::{leak_item, leak_item_not_run};
pub use partition::Partition;
pub use pool::{run_all, run_all_until, run_pool};
pub use select::{Selection, name_of};

use crate::compare::{Mismatch, StepChange, Tally};
use crate::engine::{BoardText, RuleSetId};
use crate::memcheck::{Findings, MemoryError, Tool};
use crate::scenario::{Diagnostic, Visibility};
use crate::snapshot::SnapshotStore;
use crate::subject::{Subject, SubjectError};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What to do with snapshots that are missing or differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotMode {
    /// Compare only; a missing snapshot is a failure.
    Check,
    /// Write `.snap.new` files for review (`cargo insta review`).
    Propose,
    /// Write `.snap` files directly.
    Accept,
}

/// The result of one scenario.
#[derive(Clone, Debug)]
pub struct ScenarioResult {
    pub path: PathBuf,
    /// Path relative to the scenario root: the scenario's name.
    pub name: PathBuf,
    /// Points the scenario is worth (0 when it could not be parsed).
    pub points: u32,
    pub visibility: Visibility,
    pub verdict: Verdict,
    pub elapsed: Duration,
    /// What a memory check found (`--memcheck`), whatever the verdict:
    /// every report shows it (a failing error is also the verdict).
    pub memory: Option<Findings>,
    /// The name of the rule set the scenario ran under (a rule file's
    /// `name`), which reports show; `None` when it could not be read.
    pub rules: Option<&'static str>,
}

impl ScenarioResult {
    /// All or nothing, as the course grades.
    pub fn earned(&self) -> u32 {
        match self.verdict {
            Verdict::Pass | Verdict::Updated { .. } => self.points,
            _ => 0,
        }
    }

    /// What its snapshot's rewrite changed, when one was written over an
    /// old one.
    pub fn changes(&self) -> Option<&[StepChange]> {
        match &self.verdict {
            Verdict::Updated {
                written: Written::Changed(steps),
                ..
            } => Some(steps),
            _ => None,
        }
    }

    /// Whether this result counts against the run (a failure, a missing
    /// snapshot, unreadable input): what `--fail-fast` stops on.
    pub fn is_failure(&self) -> bool {
        matches!(
            self.verdict,
            Verdict::Fail(_) | Verdict::NoSnapshot | Verdict::InputError(_)
        )
    }
}

#[derive(Clone, Debug)]
pub enum Verdict {
    Pass,
    /// The subject went wrong at some step.
    Fail(Box<Failure>),
    /// No snapshot exists and none was written.
    NoSnapshot,
    /// A snapshot was written (new, or replacing a different one).
    Updated {
        path: PathBuf,
        written: Written,
    },
    /// The scenario (or its snapshot) could not be read.
    InputError(Diagnostic),
}

/// What a written snapshot is: the scenario's first, or a change of the
/// one it had (each step whose answer changed, in scenario order: never
/// empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Written {
    New,
    Changed(Vec<StepChange>),
}

/// The changes of a run's written snapshots, counted by kind (what `run
/// --update` prints after a rule change).
pub fn tally(results: &[ScenarioResult]) -> Tally {
    Tally::of(results.iter().filter_map(|r| match &r.verdict {
        Verdict::Updated { written, .. } => Some(match written {
            Written::New => None,
            Written::Changed(steps) => Some(steps.iter().map(|s| s.kind.group())),
        }),
        _ => None,
    }))
}

/// The first thing that went wrong in a scenario, with what a reader
/// needs to understand it.
#[derive(Clone, Debug)]
pub struct Failure {
    pub kind: FailureKind,
    /// The scenario line of the step; `None` for the setup.
    pub line: Option<u32>,
    /// That line's source text, trimmed.
    pub step_source: Option<String>,
    /// The subject's board before the step.
    pub board_before: BoardText,
    /// What the subject printed on stderr (capped), if anything.
    pub stderr: Option<String>,
}

#[derive(Clone, Debug)]
pub enum FailureKind {
    /// A call returned the wrong value (or the trace differs otherwise).
    WrongAnswer(Mismatch),
    /// Every value was right but the board differs from the expected one.
    BoardOutOfSync {
        expected: BoardText,
        actual: BoardText,
    },
    /// The subject timed out, crashed, answered garbage or exited early.
    Subject(SubjectError),
    /// The submission did not compile (its message).
    CompileError(String),
    /// The upload is not a submission of the kind graded (why): no
    /// `ChessBoard.hh` for Lab 3, no console program for JHU or CUHK
    /// scenarios, an empty folder. The student's result, not staff's.
    NotRecognised(String),
    /// Not graded: a staff-side problem stopped the grader before it could
    /// grade this submission (the grader's own disk ran out under its
    /// build, its compiler could not start): no score of the student's,
    /// the run exits 2. What stopped it.
    NotGraded(String),
    /// A console program's transcript went wrong (see [`TranscriptMismatch`]).
    Transcript(Box<TranscriptMismatch>),
    /// A memory checker found an error (`--memcheck`, when errors fail).
    MemoryError(Box<MemoryFailure>),
    /// The leak test item (`--leak-points`): scenarios whose processes leaked.
    MemoryLeaks(Box<LeakItem>),
}

/// What failed the leak test item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeakItem {
    pub tool: Tool,
    /// How many scenarios were checked.
    pub checked: usize,
    /// Each scenario that leaked (its name) and what it leaked.
    pub leaked: Vec<(String, crate::memcheck::Leaks)>,
}

impl std::fmt::Display for LeakItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bytes: u64 = self.leaked.iter().map(|(_, l)| l.bytes).sum();
        write!(
            f,
            "memory leaks ({}): {} of {} scenarios leaked, {bytes} bytes in all",
            self.tool,
            self.leaked.len(),
            self.checked
        )
    }
}

/// The memory error that failed a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryFailure {
    pub tool: Tool,
    pub error: MemoryError,
    /// It came after the scenario's last answer (the board's destructor,
    /// the program's end), not at a step.
    pub at_end: bool,
}

impl std::fmt::Display for MemoryFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "memory error ({}): {}", self.tool, self.error)?;
        if self.at_end {
            write!(f, " (after the last step)")?;
        }
        Ok(())
    }
}

/// The first place where a console program's output parts from the
/// course's: the input that caused it, only the lines that differ, and the
/// program's raw output for that command (capped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TranscriptMismatch {
    pub problem: TranscriptProblem,
    /// What was sent to the program for this command (`None`: its start).
    pub input: Option<String>,
    /// Expected lines the program did not print (in order).
    pub expected: Vec<String>,
    /// Lines the program printed instead.
    pub actual: Vec<String>,
    /// Everything the program printed for this command, ANSI codes stripped, capped.
    pub raw_output: String,
    /// Where it happened when that is no scenario step: a setup command
    /// (`setup: L chessgrade-setup.txt ...`) or the input that ends the
    /// game (`end of the game (`Z0 Z0` sent)`); `None` at a step.
    pub place: Option<String>,
    /// What the failure's board is (`board before the step`, `board loaded
    /// from chessgrade-setup.txt`, `board at the end of the game`).
    pub board_title: String,
    /// The course's rules: boards are drawn in its students' coordinates.
    pub rules: RuleSetId,
    /// What differs, in words, when the lines alone do not say it (the
    /// squares of a printed board, spacing only).
    pub notes: Vec<String>,
    /// A board the program printed, read back, against the expected one
    /// (expected, printed), when its pieces differ.
    pub printed_board: Option<(BoardText, BoardText)>,
}

/// What kind of transcript failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TranscriptProblem {
    /// Judged lines differ.
    WrongOutput,
    /// A saved file differs from the reference's save (its name).
    SaveFile(String),
    /// The output ended (the program exited with this status) before the command's answer.
    EndedEarly(Option<i32>),
    /// Killed by a signal (its name).
    Crash(String),
    /// Still running at the time limit before its input ended.
    Timeout,
    /// Still running (or reading on) after its input ended.
    DidNotExit,
    /// Exited with another status than the course's program.
    ExitStatus { expected: i32, actual: i32 },
    /// Its folder reached the disk bound (`--disk`) and the transcript then
    /// went wrong: what the folder held, and how it went wrong.
    DiskLimit(String),
}

impl std::fmt::Display for TranscriptProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TranscriptProblem::WrongOutput => write!(f, "the output differs"),
            TranscriptProblem::SaveFile(name) => {
                write!(f, "the saved file {name} differs from the expected save")
            }
            TranscriptProblem::EndedEarly(Some(code)) => {
                write!(f, "the program ended early (exit status {code})")
            }
            TranscriptProblem::EndedEarly(None) => write!(f, "the program ended early"),
            TranscriptProblem::Crash(signal) => write!(f, "crash ({signal})"),
            TranscriptProblem::Timeout => write!(f, "timeout"),
            TranscriptProblem::DidNotExit => write!(f, "did not exit after its input ended"),
            TranscriptProblem::ExitStatus { expected, actual } => {
                write!(f, "exit status {actual}, expected {expected}")
            }
            TranscriptProblem::DiskLimit(what) => write!(f, "disk limit: {what}"),
        }
    }
}

impl FailureKind {
    /// A stable one-word class, for machine-readable reports.
    pub fn class(&self) -> &'static str {
        match self {
            FailureKind::WrongAnswer(_) => "wrong_answer",
            FailureKind::BoardOutOfSync { .. } => "board_out_of_sync",
            FailureKind::Subject(SubjectError::Timeout) => "timeout",
            FailureKind::Subject(SubjectError::Crash(_)) => "crash",
            FailureKind::Subject(SubjectError::Malformed(_)) => "malformed_answer",
            FailureKind::Subject(SubjectError::ExitedEarly(_)) => "exited_early",
            FailureKind::Subject(SubjectError::ClosedOutput) => "closed_output",
            FailureKind::Subject(SubjectError::Io(_)) => "io_error",
            FailureKind::Subject(SubjectError::Unsupported(_)) => "unsupported",
            FailureKind::Subject(SubjectError::DiskLimit(_)) => "disk_limit",
            FailureKind::Subject(SubjectError::NotGradable(_)) => "not_gradable",
            FailureKind::CompileError(_) => "compile_error",
            FailureKind::NotRecognised(_) => "not_recognised",
            FailureKind::NotGraded(_) => "not_graded",
            FailureKind::MemoryError(_) => "memory_error",
            FailureKind::MemoryLeaks(_) => "memory_leak",
            FailureKind::Transcript(t) => match t.problem {
                TranscriptProblem::WrongOutput => "wrong_output",
                TranscriptProblem::SaveFile(_) => "wrong_save_file",
                TranscriptProblem::EndedEarly(_) => "exited_early",
                TranscriptProblem::Crash(_) => "crash",
                TranscriptProblem::Timeout => "timeout",
                TranscriptProblem::DidNotExit => "did_not_exit",
                TranscriptProblem::ExitStatus { .. } => "exit_status",
                TranscriptProblem::DiskLimit(_) => "disk_limit",
            },
        }
    }
}

/// Runs one discovered scenario file against `subject`.
pub fn run_one(
    found: &Found,
    subject: &mut dyn Subject,
    store: &SnapshotStore,
    mode: SnapshotMode,
) -> ScenarioResult {
    let started = Instant::now();
    let (points, visibility, rules, (verdict, memory)) = match found.load() {
        Ok(s) => (
            s.points,
            s.directives.visibility,
            Some(s.directives.rules.name),
            judge::judge(found, &s, subject, store, mode),
        ),
        Err(diag) => (
            0,
            Visibility::Visible,
            None,
            (Verdict::InputError(diag), None),
        ),
    };
    ScenarioResult {
        path: found.path.clone(),
        name: found.rel.clone(),
        points,
        visibility,
        verdict,
        elapsed: started.elapsed(),
        memory,
        rules,
    }
}

/// The result for a scenario that could not even start because the whole
/// submission failed (e.g. it did not compile).
pub fn not_run(found: &Found, kind: FailureKind) -> ScenarioResult {
    let (points, visibility, rules) = found
        .load()
        .map(|s| {
            (
                s.points,
                s.directives.visibility,
                Some(s.directives.rules.name),
            )
        })
        .unwrap_or((0, Visibility::Visible, None));
    ScenarioResult {
        path: found.path.clone(),
        name: found.rel.clone(),
        points,
        visibility,
        verdict: Verdict::Fail(Box::new(Failure {
            kind,
            line: None,
            step_source: None,
            board_before: BoardText(String::new()),
            stderr: None,
        })),
        elapsed: Duration::ZERO,
        memory: None,
        rules,
    }
}

/// Totals over a batch, for the summary line and the exit code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub updated: usize,
    /// Of `updated`, those written as `.snap.new` awaiting review.
    pub proposed: usize,
    pub errors: usize,
    /// Failed scenarios that are not graded: the grader itself ran short
    /// (its disk, its memory), a staff-side problem (exit 2).
    pub not_graded: usize,
    /// Sums of u32 points: u64 so they never wrap.
    pub points: u64,
    pub possible: u64,
}

impl Summary {
    pub fn of(results: &[ScenarioResult]) -> Summary {
        let mut s = Summary::default();
        for r in results {
            match r.verdict {
                Verdict::Pass => s.passed += 1,
                Verdict::Updated { ref path, .. } => {
                    s.updated += 1;
                    if path.extension().is_some_and(|x| x == "new") {
                        s.proposed += 1;
                    }
                }
                Verdict::InputError(_) => s.errors += 1,
                Verdict::Fail(ref f) if matches!(f.kind, FailureKind::NotGraded(_)) => {
                    s.not_graded += 1
                }
                Verdict::Fail(_) | Verdict::NoSnapshot => s.failed += 1,
            }
            s.points += u64::from(r.earned());
            s.possible += u64::from(r.points);
        }
        s
    }

    /// 0 all passed, 1 some failed, 2 some input could not be read or
    /// some scenario could not be graded (the grader ran short).
    pub fn exit_code(&self) -> i32 {
        if self.errors > 0 || self.not_graded > 0 {
            2
        } else if self.failed > 0 {
            1
        } else {
            0
        }
    }
}
