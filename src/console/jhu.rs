//! JHU CS220's `./chess` (seed 002, starter `main.cpp`): the setup becomes
//! a board file loaded with `L`, `move E2E4` is `M E2E4`, `save` is
//! `S <file>` (the file then compared byte for byte), `undo`/`redo` load
//! the reference's position before/after as a board file (the program has
//! no undo; loading a game is its own way back), the end is `q`. After
//! every command the program prints its board (free-form, ignored), the
//! turn line, `Material point value: N` (the side to move's) and a check /
//! checkmate / stalemate line; a refused move first prints `Could not make
//! move: <reason>` on stderr. At checkmate or stalemate the program ends
//! by itself: later moves are not sent (the reference refuses them as
//! "the game is over"), and a later `save` is the file named by the
//! program's argument, which it writes when the game ends.

use super::mystery::{MYSTERY_HEADER, describe, mystery_header};
use super::texts::{JhuTexts, fill};
use super::{BuildFiles, Dialect, Exchange, Judging, NotGradable, Place, Plan, SaveCheck};
use crate::domain::{Color, Role, Square};
use crate::engine::{BoardText, Game, GameStatus, MoveError};
use crate::scenario::{Scenario, Step, StepKind};
use crate::subject::Setup;

/// The file the setup is written to.
const SETUP_FILE: &str = "chessgrade-setup.txt";
/// The program's argument: the game as it ended.
const FINAL_FILE: &str = "chessgrade-final.txt";

/// The plan of a JHU scenario: the setup loaded from a board file, each
/// step as the program's command, then `q` unless the game has ended.
pub(super) fn plan(scenario: &Scenario, t: &JhuTexts) -> Result<Plan, NotGradable> {
    let not = |reason: String| NotGradable { line: None, reason };
    if (scenario.dims.rows(), scenario.dims.cols()) != (8, 8) {
        return Err(not("the JHU program plays on 8x8 boards only".into()));
    }
    let start = Setup::of(scenario)
        .initial_position()
        .map_err(|e| not(e.to_string()))?;
    let mut planned = Planned::setup(scenario, t, Game::new(start));
    for step in &scenario.steps {
        planned.step(step)?;
    }
    Ok(planned.finish(scenario))
}

/// A JHU plan as it is built: the reference's game played along, the
/// files and exchanges so far.
struct Planned<'a> {
    t: &'a JhuTexts,
    game: Game,
    /// The program has ended by itself (checkmate or stalemate).
    ended: bool,
    files: Vec<(String, Vec<u8>)>,
    args: Vec<String>,
    exchanges: Vec<Exchange>,
}

impl<'a> Planned<'a> {
    /// The setup: the program's default game before any input, then the
    /// scenario's position loaded from its board file.
    fn setup(scenario: &Scenario, t: &'a JhuTexts, game: Game) -> Planned<'a> {
        let files = vec![(SETUP_FILE.to_string(), board_file(&game))];
        // Before any input: the default game (the standard start, White to move).
        let default = Game::new(
            crate::engine::Position::from_fen(
                scenario.directives.rule_set(),
                crate::engine::START_FEN,
            )
            .expect("the start position is valid"),
        );
        let (lines, _) = after_command(&default, t);
        let mut exchanges = vec![Exchange {
            line: None,
            place: Some(Place::new(
                "setup: the program's start (nothing sent yet: its default game)",
                "board of the default game",
            )),
            input: None,
            expected: lines,
            board_before: default.position().board_text(),
            board_after: default.position().board_text(),
            saves: Vec::new(),
        }];
        let (lines, ended) = after_command(&game, t);
        let load = fill(&t.load, "file", SETUP_FILE);
        exchanges.push(Exchange {
            line: None,
            place: Some(Place::new(
                format!("setup: `{load}` sent (the scenario's position, loaded from a board file)"),
                format!("board loaded from {SETUP_FILE}"),
            )),
            input: Some(load),
            expected: lines,
            board_before: game.position().board_text(),
            board_after: game.position().board_text(),
            saves: Vec::new(),
        });
        Planned {
            t,
            game,
            ended,
            files,
            args: Vec::new(),
            exchanges,
        }
    }

    /// Plays `step` on the reference and adds what the program is sent
    /// for it (nothing for a move after the end, a status or a score).
    fn step(&mut self, step: &Step) -> Result<(), NotGradable> {
        let line = Some(step.line);
        let board_before = self.game.position().board_text();
        let (input, mut expected) = match &step.kind {
            StepKind::Move {
                text,
                from,
                to,
                promotion,
            } => {
                let Some(refusal) = self.play(step.line, *from, *to, *promotion)? else {
                    return Ok(());
                };
                (fill(&self.t.move_, "move", text), refusal)
            }
            StepKind::Status | StepKind::Score => return Ok(()),
            StepKind::Save => {
                self.save(step.line, board_before);
                return Ok(());
            }
            StepKind::Undo | StepKind::Redo => (self.take_back(step)?, Vec::new()),
            other => {
                return Err(NotGradable {
                    line,
                    reason: format!("the JHU program has no command for `{}`", other.text()),
                });
            }
        };
        let (lines, now_ended) = after_command(&self.game, self.t);
        expected.extend(lines);
        self.ended = now_ended;
        self.exchanges.push(Exchange {
            line,
            place: None,
            input: Some(input),
            expected,
            board_before,
            board_after: self.game.position().board_text(),
            saves: Vec::new(),
        });
        Ok(())
    }

    /// A move on the reference: what the program prints before its usual
    /// lines (a refusal), or `None` when the move is not sent (the program
    /// has ended).
    fn play(
        &mut self,
        line: u32,
        from: Option<Square>,
        to: Option<Square>,
        promotion: Option<Role>,
    ) -> Result<Option<Vec<String>>, NotGradable> {
        let not = |reason: &str| NotGradable {
            line: Some(line),
            reason: reason.into(),
        };
        let answer = self.game.try_move(from, to, promotion);
        if self.ended {
            if answer != Err(MoveError::GameOver) {
                return Err(not("a move after the game ended"));
            }
            return Ok(None);
        }
        match answer {
            Ok(_) => Ok(Some(Vec::new())),
            Err(MoveError::GameOver | MoveError::BadPromotion) => {
                Err(not("the JHU program has no such refusal"))
            }
            Err(e) => Ok(Some(vec![fill(&self.t.refusal, "reason", e.message())])),
        }
    }

    /// A `save`: the program's `S <file>` compared byte for byte; after the
    /// end, the file named by its argument, checked after the last exchange.
    fn save(&mut self, line: u32, board_before: BoardText) {
        let expected = save_text(&self.game, self.t.save_ends_with_newline);
        if self.ended {
            if self.args.is_empty() {
                self.args.push(FINAL_FILE.to_string());
            }
            let last = self.exchanges.last_mut().expect("the load exchange");
            last.saves.push(SaveCheck {
                line,
                file: FINAL_FILE.to_string(),
                expected,
                board: board_before,
            });
            return;
        }
        let file = format!("chessgrade-save-{line}.txt");
        let input = fill(&self.t.save, "file", &file);
        let (lines, _) = after_command(&self.game, self.t);
        self.exchanges.push(Exchange {
            line: Some(line),
            place: None,
            input: Some(input),
            expected: lines,
            board_before: board_before.clone(),
            board_after: board_before.clone(),
            saves: vec![SaveCheck {
                line,
                file,
                expected,
                board: board_before,
            }],
        });
    }

    /// An `undo` or `redo` on the reference, sent as loading the position
    /// it reaches from a board file of its own; the command to send.
    fn take_back(&mut self, step: &Step) -> Result<String, NotGradable> {
        let not = |reason: &str| NotGradable {
            line: Some(step.line),
            reason: reason.into(),
        };
        if self.ended {
            return Err(not(
                "the JHU program has ended (checkmate or stalemate): nothing to take back",
            ));
        }
        let done = match step.kind {
            StepKind::Undo => self.game.undo(),
            _ => self.game.redo(),
        };
        if !done {
            return Err(not("nothing to undo or redo"));
        }
        let file = format!("chessgrade-position-{}.txt", step.line);
        self.files.push((file.clone(), board_file(&self.game)));
        Ok(fill(&self.t.load, "file", &file))
    }

    /// The plan: `q` sent last unless the program has ended by itself,
    /// and the graders' Mystery piece for the scenario's shape.
    fn finish(mut self, scenario: &Scenario) -> Plan {
        let t = self.t;
        if !self.ended {
            self.exchanges.push(Exchange {
                line: None,
                place: Some(Place::end(&t.quit)),
                input: Some(t.quit.clone()),
                expected: Vec::new(),
                board_before: self.game.position().board_text(),
                board_after: self.game.position().board_text(),
                saves: Vec::new(),
            });
        }
        Plan {
            dialect: Dialect::Jhu,
            files: self.files,
            args: self.args,
            prompts: vec![t.prompt.clone()],
            judging: Judging::Marked(markers(t)),
            ignore_trailing_space: t.ignore_trailing_space,
            exchanges: self.exchanges,
            exit_status: t.exit_status,
            machine: None,
            layout: None,
            build: scenario
                .directives
                .mystery
                .as_ref()
                .map(|shape| BuildFiles {
                    what: format!("the graders' {MYSTERY_HEADER} for `{}`", describe(shape)),
                    files: vec![(MYSTERY_HEADER.to_string(), mystery_header(shape))],
                }),
        }
    }
}

/// What the program prints after any command (and at its start): the turn
/// line, the side to move's material, and the check / mate line; and
/// whether the game (so the program) has ended.
fn after_command(game: &Game, t: &JhuTexts) -> (Vec<String>, bool) {
    let turn = game.position().turn();
    let scores = game.scores();
    let (turn_line, points) = match turn {
        Color::White => (&t.white_turn, scores.white),
        Color::Black => (&t.black_turn, scores.black),
    };
    let mut lines = vec![
        turn_line.clone(),
        fill(&t.material, "points", &points.to_string()),
    ];
    let ended = match game.status() {
        GameStatus::Checkmate { .. } => {
            lines.push(t.checkmate.clone());
            true
        }
        GameStatus::Check => {
            lines.push(t.check.clone());
            false
        }
        GameStatus::Stalemate => {
            lines.push(t.stalemate.clone());
            true
        }
        _ => false,
    };
    (lines, ended)
}

/// The starts of the lines that are judged; everything else is the board.
fn markers(t: &JhuTexts) -> Vec<String> {
    let prefix = |s: &str, key: &str| {
        s.split(&format!("{{{key}}}"))
            .next()
            .unwrap_or(s)
            .to_string()
    };
    vec![
        prefix(&t.refusal, "reason"),
        t.white_turn.clone(),
        t.black_turn.clone(),
        prefix(&t.material, "points"),
        t.check.clone(),
        t.checkmate.clone(),
        t.stalemate.clone(),
    ]
}

/// A board file the program loads: the save format, with a final newline.
fn board_file(game: &Game) -> Vec<u8> {
    save_text(game, true)
}

/// The game in the save format, one line a row (and a final newline
/// when `newline`).
fn save_text(game: &Game, newline: bool) -> Vec<u8> {
    let mut text = game.save().join("\n");
    if newline {
        text.push('\n');
    }
    text.into_bytes()
}
