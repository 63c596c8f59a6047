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
use crate::domain::Color;
use crate::engine::{Game, GameStatus, MoveError};
use crate::scenario::{Scenario, StepKind};
use crate::subject::Setup;

/// The file the setup is written to.
const SETUP_FILE: &str = "chessgrade-setup.txt";
/// The program's argument: the game as it ended.
const FINAL_FILE: &str = "chessgrade-final.txt";

pub(super) fn plan(scenario: &Scenario, t: &JhuTexts) -> Result<Plan, NotGradable> {
    let not = |line: Option<u32>, reason: String| NotGradable { line, reason };
    if (scenario.dims.rows(), scenario.dims.cols()) != (8, 8) {
        return Err(not(None, "the JHU program plays on 8x8 boards only".into()));
    }
    let start = Setup::of(scenario)
        .initial_position()
        .map_err(|e| not(None, e.to_string()))?;
    let mut game = Game::new(start);
    let save_bytes = |game: &Game| {
        let mut text = game.save().join("\n");
        if t.save_ends_with_newline {
            text.push('\n');
        }
        text.into_bytes()
    };
    let mut files = vec![(SETUP_FILE.to_string(), board_file(&game))];
    let mut args = Vec::new();
    // Before any input: the default game (the standard start, White to move).
    let default = Game::new(
        crate::engine::Position::from_fen(scenario.directives.rule_set(), crate::engine::START_FEN)
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
    let (lines, mut ended) = after_command(&game, t);
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
    for step in &scenario.steps {
        let line = Some(step.line);
        let board_before = game.position().board_text();
        let mut expected = Vec::new();
        let input = match &step.kind {
            StepKind::Move {
                text,
                from,
                to,
                promotion,
            } => {
                let answer = game.try_move(*from, *to, *promotion);
                if ended {
                    if answer != Err(MoveError::GameOver) {
                        return Err(not(line, "a move after the game ended".into()));
                    }
                    continue;
                }
                match answer {
                    Ok(_) => {}
                    Err(MoveError::GameOver | MoveError::BadPromotion) => {
                        return Err(not(line, "the JHU program has no such refusal".into()));
                    }
                    Err(e) => expected.push(fill(&t.refusal, "reason", e.message())),
                }
                fill(&t.move_, "move", text)
            }
            StepKind::Status | StepKind::Score => continue,
            StepKind::Save => {
                let expected_bytes = save_bytes(&game);
                if ended {
                    if args.is_empty() {
                        args.push(FINAL_FILE.to_string());
                    }
                    let last = exchanges.last_mut().expect("the load exchange");
                    last.saves.push(SaveCheck {
                        line: step.line,
                        file: FINAL_FILE.to_string(),
                        expected: expected_bytes,
                        board: board_before,
                    });
                    continue;
                }
                let file = format!("chessgrade-save-{}.txt", step.line);
                let input = fill(&t.save, "file", &file);
                let (lines, _) = after_command(&game, t);
                exchanges.push(Exchange {
                    line,
                    place: None,
                    input: Some(input),
                    expected: lines,
                    board_before: board_before.clone(),
                    board_after: board_before.clone(),
                    saves: vec![SaveCheck {
                        line: step.line,
                        file,
                        expected: expected_bytes,
                        board: board_before,
                    }],
                });
                continue;
            }
            StepKind::Undo | StepKind::Redo => {
                if ended {
                    return Err(not(
                        line,
                        "the JHU program has ended (checkmate or stalemate): nothing to take back"
                            .into(),
                    ));
                }
                let done = match step.kind {
                    StepKind::Undo => game.undo(),
                    _ => game.redo(),
                };
                if !done {
                    return Err(not(line, "nothing to undo or redo".into()));
                }
                let file = format!("chessgrade-position-{}.txt", step.line);
                files.push((file.clone(), board_file(&game)));
                fill(&t.load, "file", &file)
            }
            other => {
                return Err(not(
                    line,
                    format!("the JHU program has no command for `{}`", other.text()),
                ));
            }
        };
        let (lines, now_ended) = after_command(&game, t);
        expected.extend(lines);
        ended = now_ended;
        exchanges.push(Exchange {
            line,
            place: None,
            input: Some(input),
            expected,
            board_before,
            board_after: game.position().board_text(),
            saves: Vec::new(),
        });
    }
    if !ended {
        exchanges.push(Exchange {
            line: None,
            place: Some(Place::end(&t.quit)),
            input: Some(t.quit.clone()),
            expected: Vec::new(),
            board_before: game.position().board_text(),
            board_after: game.position().board_text(),
            saves: Vec::new(),
        });
    }
    Ok(Plan {
        dialect: Dialect::Jhu,
        files,
        args,
        prompts: vec![t.prompt.clone()],
        judging: Judging::Marked(markers(t)),
        ignore_trailing_space: t.ignore_trailing_space,
        exchanges,
        exit_status: t.exit_status,
        machine: None,
        layout: None,
        // The graders' Mystery piece for the scenario's shape.
        build: scenario
            .directives
            .mystery
            .as_ref()
            .map(|shape| BuildFiles {
                what: format!("the graders' {MYSTERY_HEADER} for `{}`", describe(shape)),
                files: vec![(MYSTERY_HEADER.to_string(), mystery_header(shape))],
            }),
    })
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
    let mut text = game.save().join("\n");
    text.push('\n');
    text.into_bytes()
}
