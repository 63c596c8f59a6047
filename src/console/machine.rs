//! CUHK's machine players (modes 2 and 3), judged by property.
//!
//! A machine player's moves come from the program's own `rand()`, seeded
//! by `srand(time(NULL))`: the preloaded shim fixes `time()`, so a rerun
//! prints the same game, but no reference can predict which moves a
//! student's piece list and generator draw. So the transcript is not
//! compared with a precomputed one: it is walked round by round on the
//! reference engine. Every board must be the reference's; every machine
//! move printed (`Black's turn: B8 C6`) must be one the reference accepts
//! in that position, and the reference then plays it; a forfeit (nothing
//! printed) is right only when the side has no valid move; a human input
//! is answered as the reference answers it in the game actually played
//! (`invalid input!` or the next round); and the game must end with the
//! winner line the reference reaches (a king's capture, or `Z0 Z0` on
//! points).
//!
//! A scenario selects the mode by its steps (docs/console.md): only
//! `machine` steps is mode 3 (machine against machine, no input after the
//! mode); `move`s with `machine` steps is mode 2 (the human plays White
//! with the scenario's moves, the machine Black). The scenario's seeds
//! only drive `chessgrade run`'s own machine; here the k-th machine turn
//! of the program is reported at the k-th `machine` step's line.

use super::cuhk::{BoardLayout, mode_place, round_lines, start_place, winner_line};
use super::run::{Outcome, RunEnd};
use super::texts::{CuhkTexts, fill};
use super::{
    BOARD_BEFORE_STEP, ConsoleMismatch, Dialect, Exchange, Judging, NotGradable, Place, Plan,
    capped, strip_ansi, what_differs,
};
use crate::domain::{Color, Square};
use crate::engine::{BoardText, Game, GameStatus, Position};
use crate::runner::{TranscriptMismatch, TranscriptProblem};
use crate::scenario::{Scenario, Step, StepKind};

/// Which CUHK game mode a scenario plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MachineMode {
    /// Mode 2: the human (the scenario's moves) is White, the machine Black.
    HumanVsMachine,
    /// Mode 3: both sides are machines; nothing is read after the mode.
    MachineVsMachine,
}

/// What a human input line asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HumanMove {
    Move {
        from: Option<Square>,
        to: Option<Square>,
    },
    /// `Z0 Z0`.
    Stop,
}

/// One line the human types.
#[derive(Clone, Debug)]
pub struct HumanInput {
    /// The scenario line (`None`: the `Z0 Z0` added at the end).
    pub line: Option<u32>,
    pub text: String,
    pub answer: HumanMove,
}

/// A game with machine players, to be judged by property.
#[derive(Clone, Debug)]
pub struct MachineGame {
    pub mode: MachineMode,
    pub texts: CuhkTexts,
    pub start: Position,
    /// The human's input lines, in order (mode 2), ending with `Z0 Z0`.
    pub human: Vec<HumanInput>,
    /// The scenario lines of the `machine` steps, in order.
    pub machine_lines: Vec<u32>,
    /// The scenario's last step line (for turns past its steps).
    pub last_line: Option<u32>,
}

/// The plan of a CUHK scenario with `machine` steps (from the start
/// position, already checked by the caller).
pub(super) fn plan(
    scenario: &Scenario,
    t: &CuhkTexts,
    start: Position,
) -> Result<Plan, NotGradable> {
    let has_human = scenario
        .steps
        .iter()
        .any(|s| matches!(s.kind, StepKind::Move { .. } | StepKind::Stop { .. }));
    let mode = if has_human {
        MachineMode::HumanVsMachine
    } else {
        MachineMode::MachineVsMachine
    };
    let mut replay = Replay {
        mode,
        game: Game::new(start.clone()),
        human: Vec::new(),
        machine_lines: Vec::new(),
        stopped: false,
    };
    for step in &scenario.steps {
        replay.step(step, t)?;
    }
    let Replay {
        mut human,
        machine_lines,
        stopped,
        ..
    } = replay;
    if mode == MachineMode::HumanVsMachine && !stopped {
        // The human stops the game at the end, as in mode 1.
        human.push(HumanInput {
            line: None,
            text: t.stop.clone(),
            answer: HumanMove::Stop,
        });
    }
    let (answer, prompts) = match mode {
        MachineMode::HumanVsMachine => (
            t.mode_human_vs_machine.clone(),
            vec![
                t.mode_prompt.clone(),
                fill(&t.turn_prompt, "side", &t.white),
            ],
        ),
        MachineMode::MachineVsMachine => (
            t.mode_machine_vs_machine.clone(),
            vec![t.mode_prompt.clone()],
        ),
    };
    Ok(Plan {
        dialect: Dialect::Cuhk,
        files: Vec::new(),
        args: Vec::new(),
        prompts,
        judging: Judging::Exact,
        ignore_trailing_space: t.ignore_trailing_space,
        exchanges: input_exchanges(t, &start, answer, &human),
        exit_status: t.exit_status,
        layout: Some(BoardLayout::of(t, &start)),
        build: None,
        machine: Some(MachineGame {
            mode,
            texts: t.clone(),
            start,
            human,
            machine_lines,
            last_line: scenario.steps.last().map(|s| s.line),
        }),
    })
}

/// The scenario as `chessgrade run` plays it (its seeded machine), to
/// check that each step comes on the side it stands for, and to gather
/// the human's lines and the `machine` steps' lines.
struct Replay {
    mode: MachineMode,
    game: Game,
    human: Vec<HumanInput>,
    machine_lines: Vec<u32>,
    /// The human typed `Z0 Z0`.
    stopped: bool,
}

impl Replay {
    /// Plays `step`, or says why the CUHK program cannot be given it.
    fn step(&mut self, step: &Step, t: &CuhkTexts) -> Result<(), NotGradable> {
        let not = |reason: String| NotGradable {
            line: Some(step.line),
            reason,
        };
        let game = &mut self.game;
        let turn = game.position().turn();
        let over = !matches!(game.status(), GameStatus::Ongoing | GameStatus::Check);
        match &step.kind {
            StepKind::Status | StepKind::Score => {}
            // After the end the machine forfeits: nothing happens.
            StepKind::Machine { .. } if over => {}
            StepKind::Machine { seed } => {
                if self.mode == MachineMode::HumanVsMachine && turn != Color::Black {
                    return Err(not(
                        "in mode 2 the CUHK program's machine plays Black, but this `machine` step comes on White's turn".into(),
                    ));
                }
                game.machine_move(*seed);
                self.machine_lines.push(step.line);
            }
            _ if self.stopped || over => {
                return Err(not(format!(
                    "`{}` after the game ended: the CUHK program has exited",
                    step.kind.text()
                )));
            }
            StepKind::Move { text, from, to, .. } => {
                if turn != Color::White {
                    return Err(not(
                        "in mode 2 the human plays White, but this `move` comes on Black's turn (the machine's)".into(),
                    ));
                }
                let _ = game.try_move(*from, *to, None);
                self.human.push(HumanInput {
                    line: Some(step.line),
                    text: text.clone(),
                    answer: HumanMove::Move {
                        from: *from,
                        to: *to,
                    },
                });
            }
            StepKind::Stop { .. } => {
                game.stop();
                self.stopped = true;
                self.human.push(HumanInput {
                    line: Some(step.line),
                    text: t.stop.clone(),
                    answer: HumanMove::Stop,
                });
            }
            other => {
                return Err(not(format!(
                    "the CUHK program (modes 2 and 3) has no input for `{}`",
                    other.text()
                )));
            }
        }
        Ok(())
    }
}

/// The input lines, for the run (the program's start, the mode `answer`,
/// the human's lines); the judging is by property, so nothing is expected.
fn input_exchanges(
    t: &CuhkTexts,
    start: &Position,
    answer: String,
    human: &[HumanInput],
) -> Vec<Exchange> {
    let board = start.board_text();
    let exchange = |line, place, input| Exchange {
        line,
        place,
        input,
        expected: Vec::new(),
        board_before: board.clone(),
        board_after: board.clone(),
        saves: Vec::new(),
    };
    let mut exchanges = vec![
        exchange(None, Some(start_place()), None),
        exchange(None, Some(mode_place(&answer, t)), Some(answer)),
    ];
    exchanges.extend(human.iter().map(|h| {
        let place = h.line.is_none().then(|| Place::end(&h.text));
        exchange(h.line, place, Some(h.text.clone()))
    }));
    exchanges
}

/// A cell as the CUHK program prints it (`B8`: column letter, row from 1).
fn cell(text: &str, pos: &Position) -> Option<Square> {
    let mut chars = text.chars();
    let col = chars.next().filter(char::is_ascii_uppercase)?;
    let row: u16 = chars.as_str().parse().ok()?;
    let dims = pos.dims();
    dims.square_at(i64::from(row) - 1, i64::from(col as u8 - b'A'))
}

/// The output, read front to back.
struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    fn eat(&mut self, literal: &str) -> bool {
        let ok = self.rest().starts_with(literal);
        if ok {
            self.at += literal.len();
        }
        ok
    }

    /// The next line without its newline; `None` at the end.
    fn line(&mut self) -> Option<&'a str> {
        let rest = self.rest();
        if rest.is_empty() {
            return None;
        }
        let (line, used) = match rest.find('\n') {
            Some(i) => (&rest[..i], i + 1),
            None => (rest, rest.len()),
        };
        self.at += used;
        Some(line)
    }

    /// The next line, for a report, without consuming it.
    fn peek_line(&self) -> Option<&'a str> {
        let rest = self.rest();
        (!rest.is_empty()).then(|| rest.split('\n').next().unwrap_or(rest))
    }
}

/// The judge's place in the game: what a mismatch reports.
struct At {
    line: Option<u32>,
    /// Where it is when it is no scenario step (`line` is `None`).
    place: Option<Place>,
    input: Option<String>,
    board_before: BoardText,
    /// Where this command's output starts.
    from: usize,
}

/// A property that does not hold: the mismatch to report (boxed: it is
/// large, and goes back up through every step of the walk).
type Walked<T> = Result<T, Box<ConsoleMismatch>>;

/// Where a turn leaves the game.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Turn {
    /// Played (or answered `invalid input!`): the next round comes.
    Played,
    /// Over, its winner line read: nothing more may come.
    Over,
}

/// A machine game's transcript, walked on the reference: what is read so
/// far, the reference's game and the judge's place in it.
struct Walk<'a> {
    g: &'a MachineGame,
    t: &'a CuhkTexts,
    outcome: &'a Outcome,
    layout: BoardLayout,
    r: Reader<'a>,
    game: Game,
    place: At,
    /// The human's lines not yet typed.
    human: std::slice::Iter<'a, HumanInput>,
    /// The machine turns played so far.
    machine_turns: usize,
}

/// Walks the transcript of a machine game on the reference; `None` when
/// every property holds.
pub(super) fn judge(
    g: &MachineGame,
    outcome: &Outcome,
    exit_status: i32,
) -> Option<ConsoleMismatch> {
    let text = strip_ansi(&String::from_utf8_lossy(&outcome.output));
    let game = Game::new(g.start.clone());
    let mut walk = Walk {
        g,
        t: &g.texts,
        outcome,
        layout: BoardLayout::of(&g.texts, &g.start),
        r: Reader { text: &text, at: 0 },
        place: At {
            line: None,
            place: Some(start_place()),
            input: None,
            board_before: game.position().board_text(),
            from: 0,
        },
        game,
        human: g.human.iter(),
        machine_turns: 0,
    };
    let walked = walk
        .mode()
        .and_then(|()| walk.rounds())
        .and_then(|()| walk.end(exit_status));
    walked.err().map(|m| *m)
}

impl Walk<'_> {
    /// The problem when the output stops before what is expected: how the
    /// run ended.
    fn ended_early(&self) -> TranscriptProblem {
        match &self.outcome.end {
            RunEnd::Signalled(sig) => TranscriptProblem::Crash(sig.clone()),
            RunEnd::TimedOut => TranscriptProblem::Timeout,
            RunEnd::ReadOnAfterInput => TranscriptProblem::DidNotExit,
            RunEnd::Exited(code) => TranscriptProblem::EndedEarly(Some(*code)),
        }
    }

    /// The mismatch at the judge's place, with what the command printed up
    /// to the fault (the next line when the fault is a line not yet read).
    fn fail(
        &self,
        problem: TranscriptProblem,
        expected: Vec<String>,
        actual: Vec<String>,
    ) -> Box<ConsoleMismatch> {
        let (r, place) = (&self.r, &self.place);
        let end = if r.at > place.from {
            r.at
        } else {
            r.at + r.rest().find('\n').map_or(r.rest().len(), |i| i + 1)
        };
        let (at, board_title) = match (place.line, &place.place) {
            (None, Some(p)) => (Some(p.what.clone()), p.board.clone()),
            _ => (None, BOARD_BEFORE_STEP.to_string()),
        };
        Box::new(ConsoleMismatch {
            line: place.line,
            exchange: None,
            board_before: place.board_before.clone(),
            mismatch: TranscriptMismatch {
                problem,
                input: place.input.clone(),
                expected,
                actual,
                raw_output: capped(&r.text[place.from.min(end)..end]),
                place: at,
                board_title,
                rules: Dialect::Cuhk.rules(),
                notes: Vec::new(),
                printed_board: None,
            },
        })
    }

    /// The mismatch when `expected` is not what comes next: the next line
    /// shown, or how the run ended if nothing comes.
    fn missing(&self, expected: Vec<String>) -> Box<ConsoleMismatch> {
        let actual = self.r.peek_line().map(str::to_string).into_iter().collect();
        let problem = if self.r.rest().is_empty() {
            self.ended_early()
        } else {
            TranscriptProblem::WrongOutput
        };
        self.fail(problem, expected, actual)
    }

    /// Reads `prompt` (no newline after it), or fails with what came.
    fn expect_prompt(&mut self, prompt: &str) -> Walked<()> {
        if self.r.eat(prompt) {
            Ok(())
        } else {
            Err(self.missing(vec![prompt.to_string()]))
        }
    }

    /// Reads `lines`, each ending with a newline; a wrong line is shown
    /// alone, with what differs in the whole block (a board's squares) as
    /// notes.
    fn expect_lines(&mut self, lines: Vec<String>) -> Walked<()> {
        let ignore_trailing_space = self.t.ignore_trailing_space;
        let same = |a: &str, e: &str| {
            if ignore_trailing_space {
                a.trim_end() == e.trim_end()
            } else {
                a == e
            }
        };
        let mut block = Reader {
            text: self.r.text,
            at: self.r.at,
        };
        for e in &lines {
            match self.r.line() {
                None => return Err(self.fail(self.ended_early(), vec![e.clone()], Vec::new())),
                Some(a) if !same(a, e) => {
                    let mut m = self.fail(
                        TranscriptProblem::WrongOutput,
                        vec![e.clone()],
                        vec![a.to_string()],
                    );
                    let printed: Vec<String> = (0..lines.len())
                        .map_while(|_| block.line().map(str::to_string))
                        .collect();
                    (m.mismatch.notes, m.mismatch.printed_board) =
                        what_differs(Some(&self.layout), Dialect::Cuhk.rules(), &lines, &printed);
                    return Err(m);
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Reads the winner line the reference's game ends with.
    fn winner(&mut self) -> Walked<Turn> {
        self.expect_lines(vec![winner_line(&self.game, self.t)])?;
        Ok(Turn::Over)
    }

    /// Reads the mode prompt, then answers it with the game's mode.
    fn mode(&mut self) -> Walked<()> {
        let t = self.t;
        self.expect_prompt(&t.mode_prompt)?;
        let mode = match self.g.mode {
            MachineMode::HumanVsMachine => t.mode_human_vs_machine.clone(),
            MachineMode::MachineVsMachine => t.mode_machine_vs_machine.clone(),
        };
        self.place.place = Some(mode_place(&mode, t));
        self.place.input = Some(mode);
        self.place.from = self.r.at;
        Ok(())
    }

    /// Round after round: the board and scores, then the side to move's
    /// turn, until the game is over.
    fn rounds(&mut self) -> Walked<()> {
        let t = self.t;
        let mut round = 1u32;
        loop {
            self.expect_lines(round_lines(round, self.game.position(), t))?;
            let side = self.game.position().turn();
            let name = if side == Color::White {
                &t.white
            } else {
                &t.black
            };
            let prompt = fill(&t.turn_prompt, "side", name);
            let machine = self.g.mode == MachineMode::MachineVsMachine || side == Color::Black;
            let turn = if machine {
                self.machine_turn(name, &prompt)?
            } else {
                self.human_turn(&prompt)?
            };
            if turn == Turn::Over {
                return Ok(());
            }
            round += 1;
            self.place.from = self.r.at;
        }
    }

    /// A machine's turn, reported at its `machine` step's line: a move the
    /// reference accepts, then plays; or nothing, right only when the side
    /// has no valid move.
    fn machine_turn(&mut self, name: &str, prompt: &str) -> Walked<Turn> {
        let g = self.g;
        self.place = At {
            place: None,
            line: g
                .machine_lines
                .get(self.machine_turns)
                .copied()
                .or(g.machine_lines.last().copied())
                .or(g.last_line),
            input: Some(format!("(nothing: {name}'s machine turn)")),
            board_before: self.game.position().board_text(),
            from: self.r.at,
        };
        self.machine_turns += 1;
        if self.r.eat(prompt) {
            return self.machine_move(name, prompt);
        }
        // A forfeit prints nothing: right only without a valid move.
        let valid = self.game.position().legal_moves().len();
        if valid > 0 {
            return Err(self.missing(vec![format!(
                "{prompt}<a valid move of {name}: it has {valid}, it may not forfeit>"
            )]));
        }
        self.game.machine_move(0);
        Ok(Turn::Played)
    }

    /// The move a machine printed after its prompt: cells the board has,
    /// a move the reference accepts (and plays); a king taken ends the game.
    fn machine_move(&mut self, name: &str, prompt: &str) -> Walked<Turn> {
        let printed = self.r.line().unwrap_or_default();
        let shown = format!("{prompt}{printed}");
        let pos = self.game.position();
        let parsed = printed
            .split_once(' ')
            .and_then(|(a, b)| Some((cell(a, pos)?, cell(b, pos)?)));
        let Some((from, to)) = parsed else {
            return Err(self.fail(
                TranscriptProblem::WrongOutput,
                vec![format!("{prompt}<a valid move of {name}, as `B8 C6`>")],
                vec![shown],
            ));
        };
        if let Err(e) = self.game.try_move(Some(from), Some(to), None) {
            return Err(self.fail(
                TranscriptProblem::WrongOutput,
                vec![format!(
                    "{prompt}<a valid move of {name}: the reference refuses {printed} ({})>",
                    e.message()
                )],
                vec![shown],
            ));
        }
        if matches!(self.game.status(), GameStatus::KingCaptured { .. }) {
            return self.winner();
        }
        Ok(Turn::Played)
    }

    /// The human's turn: its next lines typed at the prompt until one is
    /// a move the reference plays (`invalid input!` before each refused
    /// one), or the game ends (`Z0 Z0`, a king taken).
    fn human_turn(&mut self, prompt: &str) -> Walked<Turn> {
        let t = self.t;
        loop {
            let Some(h) = self.human.next() else {
                // Asked again after the input that ends the game.
                return Err(self.fail(
                    TranscriptProblem::WrongOutput,
                    vec!["(the program ends here)".to_string()],
                    vec![prompt.to_string()],
                ));
            };
            self.place = At {
                line: h.line,
                place: h.line.is_none().then(|| Place::end(&h.text)),
                input: Some(h.text.clone()),
                board_before: self.game.position().board_text(),
                from: self.r.at,
            };
            self.expect_prompt(prompt)?;
            match h.answer {
                HumanMove::Stop => {
                    self.game.stop();
                    return self.winner();
                }
                HumanMove::Move { from, to } => match self.game.try_move(from, to, None) {
                    Err(_) => self.expect_lines(vec![t.invalid.clone()])?,
                    Ok(_) if matches!(self.game.status(), GameStatus::KingCaptured { .. }) => {
                        return self.winner();
                    }
                    Ok(_) => return Ok(Turn::Played),
                },
            }
        }
    }

    /// After the game: nothing more printed, and the exit status the
    /// course's program ends with.
    fn end(&self, exit_status: i32) -> Walked<()> {
        if !self.r.rest().is_empty() {
            return Err(self.missing(vec!["(the program ends here)".to_string()]));
        }
        let problem = match &self.outcome.end {
            RunEnd::Exited(code) if *code == exit_status => return Ok(()),
            RunEnd::Exited(code) => TranscriptProblem::ExitStatus {
                expected: exit_status,
                actual: *code,
            },
            _ => self.ended_early(),
        };
        Err(self.fail(problem, Vec::new(), Vec::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::Texts;
    use crate::engine::{RuleSet, START_FEN};

    fn start() -> Position {
        Position::from_fen(RuleSet::cuhk(), START_FEN).unwrap()
    }

    fn mode3() -> MachineGame {
        MachineGame {
            mode: MachineMode::MachineVsMachine,
            texts: Texts::default().cuhk,
            start: start(),
            human: Vec::new(),
            machine_lines: vec![5],
            last_line: Some(5),
        }
    }

    /// A transcript as the course's program prints it for these machine
    /// moves (each `Some(text)` printed, `None` a forfeit), ending `end`.
    fn transcript(moves: &[&str], end: &str) -> Vec<u8> {
        let t = Texts::default().cuhk;
        let mut game = Game::new(start());
        let mut out = t.mode_prompt.clone();
        for (k, mv) in moves.iter().enumerate() {
            for l in round_lines(k as u32 + 1, game.position(), &t) {
                out.push_str(&l);
                out.push('\n');
            }
            let side = if game.position().turn() == Color::White {
                "White"
            } else {
                "Black"
            };
            out.push_str(&format!("{side}'s turn: {mv}\n"));
            let (a, b) = mv.split_once(' ').unwrap();
            let _ = game.try_move(cell(a, game.position()), cell(b, game.position()), None);
        }
        out.push_str(end);
        out.into_bytes()
    }

    fn outcome(output: Vec<u8>) -> Outcome {
        Outcome {
            output,
            end: RunEnd::Exited(0),
            files: Default::default(),
            memory: None,
            disk: None,
        }
    }

    #[test]
    fn machine_moves_are_played_on_the_reference_until_the_kings_capture() {
        // White's pawn E7 E5... a real game that ends by a king's capture:
        // White F7 F6 (pawn), Black E2 E3, White G7 G5, Black D1 H5 takes
        // nothing yet, White A7 A6, Black H5 E8 takes the White king.
        let moves = ["F7 F6", "E2 E3", "G7 G5", "D1 H5", "A7 A6", "H5 E8"];
        let ok = transcript(&moves, "Black wins!\n");
        assert!(judge(&mode3(), &outcome(ok), 0).is_none());
        // The wrong winner line.
        let wrong = transcript(&moves, "White wins!\n");
        let m = judge(&mode3(), &outcome(wrong), 0).unwrap();
        assert_eq!(m.mismatch.expected, vec!["Black wins!"]);
        assert_eq!(m.mismatch.actual, vec!["White wins!"]);
    }

    #[test]
    fn an_illegal_machine_move_is_named_with_the_references_reason() {
        let out = transcript(&["F7 F6", "E2 E5"], "");
        let m = judge(&mode3(), &outcome(out), 0).unwrap();
        assert_eq!(m.mismatch.problem, TranscriptProblem::WrongOutput);
        assert_eq!(m.mismatch.actual, vec!["Black's turn: E2 E5"]);
        assert!(
            m.mismatch.expected[0].contains("the reference refuses E2 E5"),
            "{:?}",
            m.mismatch.expected
        );
        assert_eq!(m.line, Some(5));
    }

    #[test]
    fn a_forfeit_with_valid_moves_and_an_early_end_are_failures() {
        // Round 2's board, then no move (a forfeit) and round 3.
        let mut out = transcript(&["F7 F6"], "");
        let t = Texts::default().cuhk;
        let mut after = Game::new(start());
        after
            .try_move(cell("F7", &start()), cell("F6", &start()), None)
            .unwrap();
        for l in round_lines(2, after.position(), &t) {
            out.extend_from_slice(format!("{l}\n").as_bytes());
        }
        out.extend_from_slice(b"Round 3:\n");
        let m = judge(&mode3(), &outcome(out), 0).unwrap();
        assert!(m.mismatch.expected[0].contains("it may not forfeit"));
        // Output that stops mid-game, then a crash.
        let out = transcript(&["F7 F6"], "");
        let mut o = outcome(out);
        o.end = RunEnd::Signalled("SIGSEGV".into());
        let m = judge(&mode3(), &o, 0).unwrap();
        assert_eq!(
            m.mismatch.problem,
            TranscriptProblem::Crash("SIGSEGV".into())
        );
    }

    #[test]
    fn printed_cells_map_to_the_references_squares() {
        let p = start();
        assert_eq!(cell("A1", &p), p.dims().square_at(0, 0));
        assert_eq!(cell("H8", &p), p.dims().square_at(7, 7));
        assert_eq!(cell("I1", &p), None);
        assert_eq!(cell("a1", &p), None);
        assert_eq!(cell("A9", &p), None);
        assert_eq!(cell("A0", &p), None);
    }
}
