//! Traces: the canonical, line-oriented record of what a subject answered
//! for each step of a scenario. A trace is what snapshots store and what
//! comparisons diff, so its text form is fixed by the course corpus:
//!
//! ```text
//! DIMS <rows> <cols>
//! L<n> isValidScan              then "  V r1 c1 r2 c2" per valid move, sorted
//! L<n> underThreatScan          then "  T r c" per threatened piece, sorted
//! L<n> movePiece a b c d = 0|1  then "  B <board after the call>"
//! END
//! ```
//!
//! Steps of the richer rule sets add:
//!
//! ```text
//! L<n> move e2e4 = 1            then "  B <board>"
//! L<n> move e2e5 = 0 (illegal move shape)   a refused move, with the reason
//! L<n> undo = 0|1               then "  B <board>" (likewise redo)
//! L<n> perft 3 = 8902
//! L<n> divide 2 = 400           then "  D <uci move> <count>" per root move, sorted
//! L<n> status = ongoing|check|checkmate <winner>|stalemate|king-captured <winner>
//!               |stopped <winner>|stopped draw      (winner: white or black)
//! L<n> stop = stopped white     (CUHK's `move Z0 Z0` likewise)
//! L<n> score = white 39 black 38
//! L<n> machine 7 = E7 E5        (or `= forfeit`), then "  B <board>"
//! L<n> save                     then "  S <line>" per line of the save file
//! ```

//!
//! A trace grows with its steps, and a board-printing step on a 256x256
//! board adds 64 KiB: a trace has a size cap (the run's
//! [`Caps`](crate::scenario::Caps), default 64 MiB), checked before a scenario runs from the size its
//! boards alone will take ([`check_size`]), so memory stays bounded and a
//! scenario over the cap is refused with the line where it crosses it.
//! Traces are written out entry by entry ([`Trace::write_to`]), never as
//! one string.

use crate::domain::{Dims, Square};
use crate::engine::{BoardText, GameStatus, MoveError, Scores};
use crate::scenario::{Scenario, StepKind};
use std::fmt::Write;

/// The default cap on a trace's size: the scenario's caps hold it
/// (`crate::scenario::Caps`), where both the parser's callers and this
/// module read it.
pub use crate::scenario::DEFAULT_MAX_TRACE_BYTES;

/// A scenario whose trace would be larger than the cap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// The step at which the boards printed so far pass the cap.
    pub line: u32,
    /// Board-printing steps up to and including it.
    pub boards: u64,
    /// Bytes of one printed board.
    pub board_bytes: u64,
    pub max: u64,
}

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the trace would pass the {} limit at this step ({} steps print a board of {} each); split the scenario or raise --max-trace-mb",
            crate::scenario::human_bytes(self.max),
            self.boards,
            crate::scenario::human_bytes(self.board_bytes),
        )
    }
}

/// Checks that the boards `scenario`'s trace prints (after every move,
/// undo, redo and machine step; a save file is about as large) fit in
/// `max` bytes. Scans and divides add more, bounded by the board's moves.
pub fn check_size(scenario: &Scenario, max: u64) -> Result<(), TooLarge> {
    let dims = scenario.dims;
    let (rows, cols) = (dims.rows() as u64, dims.cols() as u64);
    // "  B " + rows of cols squares with `/` between + newline.
    let board_bytes = 4 + rows * cols + rows;
    let mut total = 0u64;
    let mut boards = 0u64;
    for step in &scenario.steps {
        let prints_board = matches!(
            step.kind,
            StepKind::MovePiece { .. }
                | StepKind::Move { .. }
                | StepKind::Undo
                | StepKind::Redo
                | StepKind::Machine { .. }
                | StepKind::Save
        );
        // The step's own header line.
        total = total.saturating_add(32);
        if prints_board {
            boards += 1;
            total = total.saturating_add(board_bytes);
        }
        if total > max {
            return Err(TooLarge {
                line: step.line,
                boards,
                board_bytes,
                max,
            });
        }
    }
    Ok(())
}

/// Everything a subject answered for one scenario, in step order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    pub dims: Dims,
    /// The board after the setup, before the first step.
    pub initial_board: BoardText,
    pub entries: Vec<Entry>,
    /// False when the subject failed part-way: the entries are those it
    /// finished, and the text has no `END`.
    pub complete: bool,
}

/// One step's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The step's 1-based line in the scenario file.
    pub line: u32,
    pub step: StepKind,
    pub outcome: Outcome,
    /// The subject's whole board after the step.
    pub board_after: BoardText,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The (from, to) pairs for which isValidMove was true, sorted.
    ValidMoves(Vec<(Square, Square)>),
    /// The squares for which isPieceUnderThreat was true, sorted.
    Threatened(Vec<Square>),
    /// What movePiece (or undo, redo) returned; the board follows.
    Moved(bool),
    /// A `move` step: played, or refused and why; the board follows.
    Played(Result<(), MoveError>),
    /// A perft count.
    Count(u64),
    /// Perft per root move (UCI text, count), sorted by move text.
    Divide(Vec<(String, u64)>),
    /// A game status (a `status` or `stop` step).
    Status(GameStatus),
    /// Each side's points.
    Score(Scores),
    /// The machine player's move in the rule set's notation; `None`: forfeit.
    Machine(Option<String>),
    /// The lines of a save file.
    Saved(Vec<String>),
}

impl Trace {
    pub fn new(dims: Dims, initial_board: BoardText) -> Trace {
        Trace {
            dims,
            initial_board,
            entries: Vec::new(),
            complete: false,
        }
    }

    /// The subject's board just before the step on `line`.
    pub fn board_before(&self, line: u32) -> &BoardText {
        self.entries
            .iter()
            .take_while(|e| e.line < line)
            .last()
            .map_or(&self.initial_board, |e| &e.board_after)
    }

    /// Writes the canonical text to `out` entry by entry (what
    /// [`Trace::render`] returns, without building it whole).
    pub fn write_to(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        writeln!(out, "DIMS {} {}", self.dims.rows(), self.dims.cols())?;
        let mut buf = String::new();
        for entry in &self.entries {
            buf.clear();
            entry.render(&mut buf);
            out.write_all(buf.as_bytes())?;
        }
        if self.complete {
            out.write_all(b"END\n")?;
        }
        Ok(())
    }

    /// The canonical text, one item per line, ending in a newline.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "DIMS {} {}", self.dims.rows(), self.dims.cols());
        for entry in &self.entries {
            entry.render(&mut out);
        }
        if self.complete {
            out.push_str("END\n");
        }
        out
    }
}

impl Entry {
    fn render(&self, out: &mut String) {
        let _ = write!(out, "L{} {}", self.line, self.step.text());
        match &self.outcome {
            Outcome::ValidMoves(moves) => {
                out.push('\n');
                for (from, to) in moves {
                    let _ = writeln!(out, "  V {from} {to}");
                }
            }
            Outcome::Threatened(squares) => {
                out.push('\n');
                for sq in squares {
                    let _ = writeln!(out, "  T {sq}");
                }
            }
            Outcome::Moved(ok) => {
                let _ = write!(out, " = {}\n  B {}\n", u8::from(*ok), self.board_after);
            }
            Outcome::Count(n) => {
                let _ = writeln!(out, " = {n}");
            }
            Outcome::Divide(moves) => {
                let total: u64 = moves.iter().map(|(_, n)| n).sum();
                let _ = writeln!(out, " = {total}");
                for (mv, n) in moves {
                    let _ = writeln!(out, "  D {mv} {n}");
                }
            }
            Outcome::Played(result) => {
                let result = match result {
                    Ok(()) => "1".to_string(),
                    Err(e) => format!("0 ({e})"),
                };
                let _ = write!(out, " = {result}\n  B {}\n", self.board_after);
            }
            Outcome::Status(status) => {
                let _ = writeln!(out, " = {status}");
            }
            Outcome::Score(s) => {
                let _ = writeln!(out, " = white {} black {}", s.white, s.black);
            }
            Outcome::Machine(mv) => {
                let mv = mv.as_deref().unwrap_or("forfeit");
                let _ = write!(out, " = {mv}\n  B {}\n", self.board_after);
            }
            Outcome::Saved(lines) => {
                out.push('\n');
                for line in lines {
                    let _ = writeln!(out, "  S {line}");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Coord;

    #[test]
    fn renders_the_course_format() {
        let dims = Dims::new(2, 2).unwrap();
        let sq = |r, c| dims.square_at(r, c).unwrap();
        let mut t = Trace::new(dims, BoardText("K./..".into()));
        t.entries.push(Entry {
            line: 5,
            step: StepKind::IsValidScan,
            outcome: Outcome::ValidMoves(vec![(sq(0, 0), sq(0, 1))]),
            board_after: BoardText("K./..".into()),
        });
        t.entries.push(Entry {
            line: 6,
            step: StepKind::MovePiece {
                from: Coord::new(0, 0),
                to: Coord::new(1, 1),
            },
            outcome: Outcome::Moved(true),
            board_after: BoardText("../.K".into()),
        });
        t.entries.push(Entry {
            line: 7,
            step: StepKind::UnderThreatScan,
            outcome: Outcome::Threatened(vec![]),
            board_after: BoardText("../.K".into()),
        });
        t.complete = true;
        assert_eq!(
            t.render(),
            "DIMS 2 2\nL5 isValidScan\n  V 0 0 0 1\nL6 movePiece 0 0 1 1 = 1\n  B ../.K\nL7 underThreatScan\nEND\n"
        );
        let mut streamed = Vec::new();
        t.write_to(&mut streamed).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), t.render());
        assert_eq!(t.board_before(5).as_str(), "K./..");
        assert_eq!(t.board_before(7).as_str(), "../.K");
    }

    #[test]
    fn scenarios_whose_boards_pass_the_cap_are_refused_at_the_crossing_step() {
        let moves = "movePiece 0 0 0 1\n".repeat(20_000);
        let s = crate::scenario::parse(&format!("1\n256 256\n~\n{moves}")).unwrap();
        let e = check_size(&s, DEFAULT_MAX_TRACE_BYTES).unwrap_err();
        // 4 + 256*256 + 256 + 32 = 65,828 bytes a step, and
        // 64 MiB / 65,828 = 1019.5: the 1020th step (line 1023) passes it.
        assert_eq!((e.line, e.boards, e.board_bytes), (1023, 1020, 65796));
        assert!(e.to_string().contains("64 MiB limit"), "{e}");
        let small = crate::scenario::parse(&format!("1\n8 8\n~\n{moves}")).unwrap();
        assert_eq!(check_size(&small, DEFAULT_MAX_TRACE_BYTES), Ok(()));
    }

    #[test]
    fn renders_the_richer_steps() {
        use crate::domain::Color;
        let dims = Dims::new(1, 2).unwrap();
        let board = || BoardText("K.".into());
        let mut t = Trace::new(dims, board());
        let mut push = |line, step, outcome| {
            t.entries.push(Entry {
                line,
                step,
                outcome,
                board_after: board(),
            })
        };
        let mv = |text: &str| StepKind::Move {
            text: text.into(),
            from: None,
            to: None,
            promotion: None,
        };
        push(3, mv("a1b1"), Outcome::Played(Ok(())));
        push(
            4,
            mv("c1a1"),
            Outcome::Played(Err(MoveError::StartOffBoard)),
        );
        push(
            5,
            StepKind::Stop { sentinel: true },
            Outcome::Status(GameStatus::Stopped { winner: None }),
        );
        push(
            6,
            StepKind::Status,
            Outcome::Status(GameStatus::KingCaptured {
                winner: Color::Black,
            }),
        );
        push(
            7,
            StepKind::Score,
            Outcome::Score(Scores {
                white: 1000,
                black: 5,
            }),
        );
        push(8, StepKind::Machine { seed: 9 }, Outcome::Machine(None));
        push(
            9,
            StepKind::Save,
            Outcome::Saved(vec!["K-".into(), "w".into()]),
        );
        assert_eq!(
            t.render(),
            "DIMS 1 2\n\
             L3 move a1b1 = 1\n  B K.\n\
             L4 move c1a1 = 0 (start position is not on board)\n  B K.\n\
             L5 move Z0 Z0 = stopped draw\n\
             L6 status = king-captured black\n\
             L7 score = white 1000 black 5\n\
             L8 machine 9 = forfeit\n  B K.\n\
             L9 save\n  S K-\n  S w\n"
        );
    }
}
