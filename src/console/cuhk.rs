//! CUHK CSCI1120's console game (seed 000 and the course's provided
//! `main.cpp`, `Game::run`, `Board::print`, `Human::makeMove`): the mode
//! prompt is answered (mode 1, human against human), each `move A7 A5` is
//! typed as is, `Z0 Z0` (or the scenario's end) stops the game. The output
//! is compared exactly: `Round N:` and the board before every move, the
//! `<Side>'s turn: ` prompt, `invalid input!` and a new prompt after a
//! refused move, and the winner line on points at the end. The program
//! always starts from the start position, so another setup is not
//! gradable; it has no undo, save or scores on screen (`score` steps are
//! judged by the winner line only). A scenario with `machine` steps is
//! played in mode 2 or 3 instead and judged by property ([`super::machine`]).

use super::texts::{CuhkTexts, fill};
use super::{Dialect, Exchange, Judging, NotGradable, Place, Plan};
use crate::domain::Color;
use crate::engine::{BoardText, Game, GameStatus, MoveError, Position, START_FEN};
use crate::report::diagram::course_case;
use crate::scenario::{Scenario, StepKind};
use crate::subject::Setup;

pub(super) fn plan(scenario: &Scenario, t: &CuhkTexts) -> Result<Plan, NotGradable> {
    let not = |line: Option<u32>, reason: String| NotGradable { line, reason };
    let rules = scenario.directives.rule_set();
    let start = Position::from_fen(rules, START_FEN).expect("the start position is valid");
    let setup = Setup::of(scenario)
        .initial_position()
        .map_err(|e| not(None, e.to_string()))?;
    if setup.board_text() != start.board_text() || setup.turn() != Color::White {
        return Err(not(
            None,
            "the CUHK program always starts from the start position with White to move; this setup is another position".into(),
        ));
    }
    if machine_plays(scenario, &setup) {
        return super::machine::plan(scenario, t, setup);
    }
    let mut game = Game::new(setup);
    let mut round = 1u32;
    let mut exchanges = vec![
        Exchange {
            line: None,
            place: Some(start_place()),
            input: None,
            expected: Vec::new(),
            board_before: game.position().board_text(),
            board_after: game.position().board_text(),
            saves: Vec::new(),
        },
        Exchange {
            line: None,
            place: Some(mode_place(&t.mode, t)),
            input: Some(t.mode.clone()),
            expected: round_lines(round, game.position(), t),
            board_before: game.position().board_text(),
            board_after: game.position().board_text(),
            saves: Vec::new(),
        },
    ];
    let mut ended = false;
    for step in &scenario.steps {
        let line = Some(step.line);
        let board_before = game.position().board_text();
        let (input, expected) = match &step.kind {
            StepKind::Move {
                text,
                from,
                to,
                promotion,
            } => {
                let answer = game.try_move(*from, *to, *promotion);
                if ended {
                    continue;
                }
                match answer {
                    Err(MoveError::GameOver) => {
                        return Err(not(line, "a move after the game ended".into()));
                    }
                    Err(_) => (text.clone(), vec![t.invalid.clone()]),
                    Ok(_) => {
                        round += 1;
                        match game.status() {
                            GameStatus::KingCaptured { .. } => {
                                ended = true;
                                (text.clone(), vec![winner_line(&game, t)])
                            }
                            _ => (text.clone(), round_lines(round, game.position(), t)),
                        }
                    }
                }
            }
            StepKind::Stop { .. } => {
                game.stop();
                if ended {
                    continue;
                }
                ended = true;
                (t.stop.clone(), vec![winner_line(&game, t)])
            }
            StepKind::Status | StepKind::Score => continue,
            // After the end the reference's machine player forfeits: nothing happens.
            StepKind::Machine { .. } if ended => continue,
            // An undo with nothing to take back changes nothing either.
            StepKind::Undo if ended && !game.undo() => continue,
            other => {
                return Err(not(
                    line,
                    format!(
                        "the CUHK program (mode 1) has no input for `{}`",
                        other.text()
                    ),
                ));
            }
        };
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
        // The program reads until the game ends: stop it, as the course does.
        let board_before = game.position().board_text();
        game.stop();
        exchanges.push(Exchange {
            line: None,
            place: Some(Place::end(&t.stop)),
            input: Some(t.stop.clone()),
            expected: vec![winner_line(&game, t)],
            board_after: board_before.clone(),
            board_before,
            saves: Vec::new(),
        });
    }
    Ok(Plan {
        dialect: Dialect::Cuhk,
        files: Vec::new(),
        args: Vec::new(),
        prompts: vec![
            t.mode_prompt.clone(),
            fill(&t.turn_prompt, "side", &t.white),
            fill(&t.turn_prompt, "side", &t.black),
        ],
        judging: Judging::Exact,
        ignore_trailing_space: t.ignore_trailing_space,
        exchanges,
        exit_status: t.exit_status,
        machine: None,
        layout: Some(BoardLayout::of(t, game.position())),
        build: None,
    })
}

/// The program's start, before the mode prompt is answered.
pub(super) fn start_place() -> Place {
    Place::new(
        "setup: the program's start (before the mode prompt is answered)",
        "board at the start",
    )
}

/// The mode sent: the game starts.
pub(super) fn mode_place(mode: &str, t: &CuhkTexts) -> Place {
    Place::new(
        format!(
            "setup: mode `{mode}` sent (the game starts: `{}` and the board)",
            fill(&t.round, "n", "1")
        ),
        "board at the start",
    )
}

/// Does a `machine` step come while the game runs (as `chessgrade run`
/// plays the scenario)? Then the scenario plays mode 2 or 3; a machine
/// step after the game's end changes nothing and mode 1 skips it.
fn machine_plays(scenario: &Scenario, setup: &Position) -> bool {
    let mut game = Game::new(setup.clone());
    for step in &scenario.steps {
        match &step.kind {
            StepKind::Move {
                from,
                to,
                promotion,
                ..
            } => {
                let _ = game.try_move(*from, *to, *promotion);
            }
            StepKind::Stop { .. } => {
                game.stop();
            }
            StepKind::Undo => {
                game.undo();
            }
            StepKind::Redo => {
                game.redo();
            }
            StepKind::Machine { seed } => {
                if matches!(game.status(), GameStatus::Ongoing | GameStatus::Check) {
                    return true;
                }
                game.machine_move(*seed);
            }
            _ => {}
        }
    }
    false
}

/// `Round N:` and the board, as printed before every move.
pub(super) fn round_lines(round: u32, pos: &Position, t: &CuhkTexts) -> Vec<String> {
    let mut lines = vec![fill(&t.round, "n", &round.to_string())];
    lines.extend(board_lines(pos, t));
    lines
}

/// `Board::print()`: the header, then row 1 (the top) to row 8, each
/// followed by the separator.
pub(super) fn board_lines(pos: &Position, t: &CuhkTexts) -> Vec<String> {
    let board = pos.board();
    let dims = board.dims();
    let mut lines = vec![t.board_header.clone(), t.board_separator.clone()];
    for row in 0..dims.rows() {
        let mut line = (row + 1).to_string();
        for col in 0..dims.cols() {
            line.push_str(&t.cell_separator);
            match board.get(dims.at(row, col)) {
                None => line.push_str(&t.empty_cell),
                Some(p) => line.push(course_case(p.char(), t.white_lower_case)),
            }
        }
        line.push_str(&t.row_end);
        lines.push(line);
        lines.push(t.board_separator.clone());
    }
    lines
}

/// How `Board::print` lays a board out (the texts' cell separator, empty
/// cell and case), to read a board the program printed back into the
/// reference's board text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardLayout {
    cell_separator: String,
    empty_cell: String,
    white_lower_case: bool,
    rows: usize,
    cols: usize,
}

impl BoardLayout {
    pub(super) fn of(t: &CuhkTexts, pos: &Position) -> BoardLayout {
        BoardLayout {
            cell_separator: t.cell_separator.trim().to_string(),
            empty_cell: t.empty_cell.trim().to_string(),
            white_lower_case: t.white_lower_case,
            rows: pos.dims().rows() as usize,
            cols: pos.dims().cols() as usize,
        }
    }

    /// The first whole board in `lines`: its row lines (`1 | R | N ...`
    /// to `8 | ...`, in order, spacing free) as board text (White upper
    /// case, as the reference's); `None` when they hold no whole board.
    pub fn read(&self, lines: &[String]) -> Option<BoardText> {
        if self.cell_separator.is_empty() {
            return None;
        }
        let mut rows: Vec<String> = Vec::new();
        for line in lines {
            if rows.len() == self.rows {
                break;
            }
            let number = (rows.len() + 1).to_string();
            let Some(rest) = line.trim_start().strip_prefix(&number) else {
                continue;
            };
            let mut parts = rest.split(self.cell_separator.as_str());
            if !parts.next().is_some_and(|lead| lead.trim().is_empty()) {
                continue;
            }
            let cells: Vec<&str> = parts.take(self.cols).collect();
            if cells.len() != self.cols {
                continue;
            }
            let mut row = String::new();
            for cell in cells {
                let cell = cell.trim();
                let mut chars = cell.chars();
                match (chars.next(), chars.next()) {
                    (None, _) => row.push('.'),
                    _ if cell == self.empty_cell => row.push('.'),
                    (Some(c), None) if c.is_ascii_alphabetic() => {
                        row.push(course_case(c, self.white_lower_case));
                    }
                    _ => return None,
                }
            }
            rows.push(row);
        }
        (rows.len() == self.rows).then(|| BoardText(rows.join("/")))
    }
}

/// The last line: the side with more points wins, else a draw.
pub(super) fn winner_line(game: &Game, t: &CuhkTexts) -> String {
    match game.scores().leader() {
        Some(Color::White) => t.white_wins.clone(),
        Some(Color::Black) => t.black_wins.clone(),
        None => t.draw.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RuleSet;

    #[test]
    fn the_start_board_prints_as_the_course_code_does() {
        let t = super::super::Texts::default().cuhk;
        let pos = Position::from_fen(RuleSet::cuhk(), START_FEN).unwrap();
        let lines = board_lines(&pos, &t);
        assert_eq!(lines.len(), 18);
        assert_eq!(lines[0], "    A   B   C   D   E   F   G   H  ");
        assert_eq!(lines[1], "  ---------------------------------");
        assert_eq!(lines[2], "1 | R | N | B | Q | K | B | N | R | ");
        assert_eq!(lines[4], "2 | P | P | P | P | P | P | P | P | ");
        assert_eq!(lines[6], "3 |   |   |   |   |   |   |   |   | ");
        assert_eq!(lines[16], "8 | r | n | b | q | k | b | n | r | ");
    }
}
