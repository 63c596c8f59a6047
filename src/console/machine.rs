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
use crate::scenario::{Scenario, StepKind};

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
    let not = |line: u32, reason: String| NotGradable {
        line: Some(line),
        reason,
    };
    let has_human = scenario
        .steps
        .iter()
        .any(|s| matches!(s.kind, StepKind::Move { .. } | StepKind::Stop { .. }));
    let mode = if has_human {
        MachineMode::HumanVsMachine
    } else {
        MachineMode::MachineVsMachine
    };
    // The scenario as `chessgrade run` plays it (its seeded machine), to
    // check that each step comes on the side it stands for.
    let mut game = Game::new(start.clone());
    let mut human = Vec::new();
    let mut machine_lines = Vec::new();
    let mut stopped = false;
    for step in &scenario.steps {
        let turn = game.position().turn();
        let over = !matches!(game.status(), GameStatus::Ongoing | GameStatus::Check);
        match &step.kind {
            StepKind::Status | StepKind::Score => {}
            // After the end the machine forfeits: nothing happens.
            StepKind::Machine { .. } if over => {}
            StepKind::Machine { seed } => {
                if mode == MachineMode::HumanVsMachine && turn != Color::Black {
                    return Err(not(
                        step.line,
                        "in mode 2 the CUHK program's machine plays Black, but this `machine` step comes on White's turn".into(),
                    ));
                }
                game.machine_move(*seed);
                machine_lines.push(step.line);
            }
            _ if stopped || over => {
                return Err(not(
                    step.line,
                    format!(
                        "`{}` after the game ended: the CUHK program has exited",
                        step.kind.text()
                    ),
                ));
            }
            StepKind::Move { text, from, to, .. } => {
                if turn != Color::White {
                    return Err(not(
                        step.line,
                        "in mode 2 the human plays White, but this `move` comes on Black's turn (the machine's)".into(),
                    ));
                }
                let _ = game.try_move(*from, *to, None);
                human.push(HumanInput {
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
                stopped = true;
                human.push(HumanInput {
                    line: Some(step.line),
                    text: t.stop.clone(),
                    answer: HumanMove::Stop,
                });
            }
            other => {
                return Err(not(
                    step.line,
                    format!(
                        "the CUHK program (modes 2 and 3) has no input for `{}`",
                        other.text()
                    ),
                ));
            }
        }
    }
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
    // The input lines, for the run; the judging is by property below.
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
    let layout = BoardLayout::of(t, &start);
    Ok(Plan {
        dialect: Dialect::Cuhk,
        files: Vec::new(),
        args: Vec::new(),
        prompts,
        judging: Judging::Exact,
        ignore_trailing_space: t.ignore_trailing_space,
        exchanges,
        exit_status: t.exit_status,
        layout: Some(layout),
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

/// Walks the transcript of a machine game on the reference; `None` when
/// every property holds.
pub(super) fn judge(
    g: &MachineGame,
    outcome: &Outcome,
    exit_status: i32,
) -> Option<ConsoleMismatch> {
    let text = strip_ansi(&String::from_utf8_lossy(&outcome.output));
    let t = &g.texts;
    let layout = BoardLayout::of(t, &g.start);
    let mut r = Reader { text: &text, at: 0 };
    let mut game = Game::new(g.start.clone());
    let mut place = At {
        line: None,
        place: Some(start_place()),
        input: None,
        board_before: game.position().board_text(),
        from: 0,
    };
    let ended_early = || match &outcome.end {
        RunEnd::Signalled(sig) => TranscriptProblem::Crash(sig.clone()),
        RunEnd::TimedOut => TranscriptProblem::Timeout,
        RunEnd::ReadOnAfterInput => TranscriptProblem::DidNotExit,
        RunEnd::Exited(code) => TranscriptProblem::EndedEarly(Some(*code)),
    };
    let fail = |place: &At, r: &Reader, problem, expected: Vec<String>, actual: Vec<String>| {
        // What the command printed up to the fault (the next line when
        // the fault is a line not yet read).
        let end = if r.at > place.from {
            r.at
        } else {
            r.at + r.rest().find('\n').map_or(r.rest().len(), |i| i + 1)
        };
        let (at, board_title) = match (place.line, &place.place) {
            (None, Some(p)) => (Some(p.what.clone()), p.board.clone()),
            _ => (None, BOARD_BEFORE_STEP.to_string()),
        };
        Some(ConsoleMismatch {
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
    };
    let same = |a: &str, e: &str| {
        if t.ignore_trailing_space {
            a.trim_end() == e.trim_end()
        } else {
            a == e
        }
    };
    // Expects `lines`, each ending with a newline; a wrong line is
    // shown alone, with what differs in the whole block (a board's
    // squares) as notes.
    macro_rules! expect_lines {
        ($lines:expr) => {{
            let lines: Vec<String> = $lines;
            let block = Reader {
                text: r.text,
                at: r.at,
            };
            for e in &lines {
                match r.line() {
                    None => return fail(&place, &r, ended_early(), vec![e.clone()], Vec::new()),
                    Some(a) if !same(a, e) => {
                        let mut m = fail(
                            &place,
                            &r,
                            TranscriptProblem::WrongOutput,
                            vec![e.clone()],
                            vec![a.to_string()],
                        )?;
                        let mut block = block;
                        let printed: Vec<String> = (0..lines.len())
                            .map_while(|_| block.line().map(str::to_string))
                            .collect();
                        (m.mismatch.notes, m.mismatch.printed_board) =
                            what_differs(Some(&layout), Dialect::Cuhk.rules(), &lines, &printed);
                        return Some(m);
                    }
                    Some(_) => {}
                }
            }
        }};
    }
    if !r.eat(&t.mode_prompt) {
        let actual = r.peek_line().map(str::to_string).into_iter().collect();
        let problem = if r.rest().is_empty() {
            ended_early()
        } else {
            TranscriptProblem::WrongOutput
        };
        return fail(&place, &r, problem, vec![t.mode_prompt.clone()], actual);
    }
    let mode = match g.mode {
        MachineMode::HumanVsMachine => t.mode_human_vs_machine.clone(),
        MachineMode::MachineVsMachine => t.mode_machine_vs_machine.clone(),
    };
    place.place = Some(mode_place(&mode, t));
    place.input = Some(mode);
    place.from = r.at;
    let is_machine = |side: Color| g.mode == MachineMode::MachineVsMachine || side == Color::Black;
    let mut human = g.human.iter();
    let mut machine_turns = 0usize;
    let mut round = 1u32;
    'game: loop {
        expect_lines!(round_lines(round, game.position(), t));
        let side = game.position().turn();
        let name = if side == Color::White {
            &t.white
        } else {
            &t.black
        };
        let prompt = fill(&t.turn_prompt, "side", name);
        if is_machine(side) {
            place = At {
                place: None,
                line: g
                    .machine_lines
                    .get(machine_turns)
                    .copied()
                    .or(g.machine_lines.last().copied())
                    .or(g.last_line),
                input: Some(format!("(nothing: {name}'s machine turn)")),
                board_before: game.position().board_text(),
                from: r.at,
            };
            machine_turns += 1;
            if r.eat(&prompt) {
                let printed = r.line().unwrap_or_default();
                let shown = format!("{prompt}{printed}");
                let parsed = printed.split_once(' ').and_then(|(a, b)| {
                    Some((cell(a, game.position())?, cell(b, game.position())?))
                });
                let Some((from, to)) = parsed else {
                    return fail(
                        &place,
                        &r,
                        TranscriptProblem::WrongOutput,
                        vec![format!("{prompt}<a valid move of {name}, as `B8 C6`>")],
                        vec![shown],
                    );
                };
                if let Err(e) = game.try_move(Some(from), Some(to), None) {
                    return fail(
                        &place,
                        &r,
                        TranscriptProblem::WrongOutput,
                        vec![format!(
                            "{prompt}<a valid move of {name}: the reference refuses {printed} ({})>",
                            e.message()
                        )],
                        vec![shown],
                    );
                }
                if matches!(game.status(), GameStatus::KingCaptured { .. }) {
                    expect_lines!(vec![winner_line(&game, t)]);
                    break 'game;
                }
            } else {
                // A forfeit prints nothing: right only without a valid move.
                let valid = game.position().legal_moves().len();
                if valid > 0 {
                    let actual = r.peek_line().map(str::to_string).into_iter().collect();
                    return fail(
                        &place,
                        &r,
                        if r.rest().is_empty() {
                            ended_early()
                        } else {
                            TranscriptProblem::WrongOutput
                        },
                        vec![format!(
                            "{prompt}<a valid move of {name}: it has {valid}, it may not forfeit>"
                        )],
                        actual,
                    );
                }
                game.machine_move(0);
            }
        } else {
            loop {
                let Some(h) = human.next() else {
                    // Asked again after the input that ends the game.
                    return fail(
                        &place,
                        &r,
                        TranscriptProblem::WrongOutput,
                        vec!["(the program ends here)".to_string()],
                        vec![prompt],
                    );
                };
                place = At {
                    line: h.line,
                    place: h.line.is_none().then(|| Place::end(&h.text)),
                    input: Some(h.text.clone()),
                    board_before: game.position().board_text(),
                    from: r.at,
                };
                if !r.eat(&prompt) {
                    let actual = r.peek_line().map(str::to_string).into_iter().collect();
                    let problem = if r.rest().is_empty() {
                        ended_early()
                    } else {
                        TranscriptProblem::WrongOutput
                    };
                    return fail(&place, &r, problem, vec![prompt], actual);
                }
                match h.answer {
                    HumanMove::Stop => {
                        game.stop();
                        expect_lines!(vec![winner_line(&game, t)]);
                        break 'game;
                    }
                    HumanMove::Move { from, to } => match game.try_move(from, to, None) {
                        Err(_) => expect_lines!(vec![t.invalid.clone()]),
                        Ok(_) if matches!(game.status(), GameStatus::KingCaptured { .. }) => {
                            expect_lines!(vec![winner_line(&game, t)]);
                            break 'game;
                        }
                        Ok(_) => break,
                    },
                }
            }
        }
        round += 1;
        place.from = r.at;
    }
    if !r.rest().is_empty() {
        let actual = r.peek_line().map(str::to_string).into_iter().collect();
        return fail(
            &place,
            &r,
            TranscriptProblem::WrongOutput,
            vec!["(the program ends here)".to_string()],
            actual,
        );
    }
    let problem = match &outcome.end {
        RunEnd::Exited(code) if *code == exit_status => return None,
        RunEnd::Exited(code) => TranscriptProblem::ExitStatus {
            expected: exit_status,
            actual: *code,
        },
        _ => ended_early(),
    };
    fail(&place, &r, problem, Vec::new(), Vec::new())
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
