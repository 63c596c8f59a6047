//! Moves as each program's users type them. A scenario's `move` step is
//! written in its rule set's [`Notation`], so a staff member can paste what
//! a student typed: `e2e4` (UCI), `E2E4` (JHU's `M` command), `A7 A5`
//! (CUHK's prompt, where row 1 is the top row and `Z0 Z0` stops the game).
//!
//! Parsing is by the text alone: a well-formed square that lies off the
//! board parses to `None`, so that the engine, not the parser, answers
//! "start position is not on board" as the JHU program does.

use super::movegen::{Move, file_name};
use super::rules::Notation;
use crate::domain::{Dims, Role, Square};

/// A parsed `move` argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveInput {
    /// From and to (`None`: that square is not on the board), and the
    /// promotion asked for, if any.
    Move {
        from: Option<Square>,
        to: Option<Square>,
        promotion: Option<Role>,
    },
    /// CUHK's `Z0 Z0`: stop the game.
    Stop,
}

/// What a `move` step's arguments look like in each notation, for messages.
pub fn syntax(notation: Notation) -> &'static str {
    match notation {
        Notation::Uci => "move <from><to>[promotion], UCI style, like e2e4 or e7e8q",
        Notation::Jhu => "move <FROM><TO>, JHU style, like E2E4",
        Notation::Cuhk => "move <from> <to>, CUHK style, like A7 A5 (or Z0 Z0 to stop)",
    }
}

/// How many whitespace-separated arguments a move takes.
pub fn arity(notation: Notation) -> usize {
    match notation {
        Notation::Uci | Notation::Jhu => 1,
        Notation::Cuhk => 2,
    }
}

/// Parses a move's arguments (exactly [`arity`] of them); `Err` names the
/// argument (index) that is malformed.
pub fn parse_move(notation: Notation, dims: Dims, args: &[&str]) -> Result<MoveInput, usize> {
    match notation {
        // JHU's program reads any four characters as two (column, row)
        // pairs; whatever is not `A`-`H` / `1`-`8` is off the board.
        Notation::Jhu if args[0].len() == 4 && args[0].bytes().all(|b| b.is_ascii_graphic()) => {
            let b = args[0].as_bytes();
            let square = |col: u8, row: u8| {
                let (col, row) = (col.checked_sub(b'A')?, row.checked_sub(b'1')?);
                dims.square_at(i64::from(dims.rows()) - 1 - i64::from(row), i64::from(col))
            };
            Ok(MoveInput::Move {
                from: square(b[0], b[1]),
                to: square(b[2], b[3]),
                promotion: None,
            })
        }
        Notation::Uci | Notation::Jhu => {
            let text = args[0];
            let (from, rest) = split_square(text).ok_or(0usize)?;
            let (to, rest) = split_square(rest).ok_or(0usize)?;
            let promotion = match (notation, rest.chars().collect::<Vec<_>>().as_slice()) {
                (_, []) => None,
                (Notation::Uci, [c]) => Some(Role::from_letter(*c).ok_or(0usize)?),
                _ => return Err(0),
            };
            let upper = notation == Notation::Jhu;
            Ok(MoveInput::Move {
                from: from.on(dims, upper),
                to: to.on(dims, upper),
                promotion,
            })
        }
        Notation::Cuhk => {
            if args == ["Z0", "Z0"] {
                return Ok(MoveInput::Stop);
            }
            let cell = |i: usize| match split_square(args[i]) {
                Some((sq, "")) if sq.letters.len() == 1 => Ok(sq.cuhk_cell(dims)),
                _ => Err(i),
            };
            Ok(MoveInput::Move {
                from: cell(0)?,
                to: cell(1)?,
                promotion: None,
            })
        }
    }
}

/// A move written in `notation` (as [`parse_move`] reads it).
pub fn format_move(notation: Notation, dims: Dims, mv: Move) -> String {
    match notation {
        Notation::Uci => mv.uci(dims),
        Notation::Jhu => {
            let name = |sq: Square| format!("{}{}", file_name(sq.col()), dims.rows() - sq.row());
            format!("{}{}", name(mv.from()), name(mv.to())).to_ascii_uppercase()
        }
        Notation::Cuhk => {
            let cell = |sq: Square| format!("{}{}", file_name(sq.col()), sq.row() + 1);
            format!("{} {}", cell(mv.from()), cell(mv.to())).to_ascii_uppercase()
        }
    }
}

/// A square as written: file letters and a row number, not yet placed.
struct Written<'a> {
    letters: &'a str,
    number: u64,
}

/// Splits `letters digits` off the front of `text`.
fn split_square(text: &str) -> Option<(Written<'_>, &str)> {
    let letters_end = text.find(|c: char| !c.is_ascii_alphabetic())?;
    let digits_end = text[letters_end..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(text.len(), |i| letters_end + i);
    let (letters, digits) = (&text[..letters_end], &text[letters_end..digits_end]);
    if letters.is_empty() || digits.is_empty() || digits.len() > 6 {
        return None;
    }
    let number = digits.parse().ok()?;
    Some((Written { letters, number }, &text[digits_end..]))
}

impl Written<'_> {
    /// The column the file letters name (`a` = 0, ..., `z`, `aa`, ...), if
    /// all are of the expected case.
    fn col(&self, upper: bool) -> Option<u64> {
        if self.letters.len() > 3 {
            return None;
        }
        self.letters.bytes().try_fold(0u64, |n, b| {
            let base = if upper { b'A' } else { b'a' };
            (base..base + 26)
                .contains(&b)
                .then(|| n * 26 + u64::from(b - base) + 1)
        })
    }

    /// FEN/UCI placement: ranks counted from the bottom row.
    fn on(&self, dims: Dims, upper: bool) -> Option<Square> {
        let col = self.col(upper)?.checked_sub(1)?;
        let row = (dims.rows() as u64).checked_sub(self.number)?;
        dims.square_at(row as i64, col as i64)
            .filter(|_| self.number >= 1)
    }

    /// CUHK: one letter of either case, row 1 at the top (`A2` = `board[1][0]`).
    fn cuhk_cell(&self, dims: Dims) -> Option<Square> {
        let lower = self.letters.to_ascii_lowercase();
        let col = Written {
            letters: &lower,
            number: self.number,
        }
        .col(false)?
        .checked_sub(1)?;
        let row = self.number.checked_sub(1)?;
        dims.square_at(row as i64, col as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Color, Piece};
    use crate::engine::MoveKind;

    fn dims() -> Dims {
        Dims::new(8, 8).unwrap()
    }

    fn sq(row: u16, col: u16) -> Option<Square> {
        Some(dims().at(row, col))
    }

    fn mv(from: Option<Square>, to: Option<Square>, promotion: Option<Role>) -> MoveInput {
        MoveInput::Move {
            from,
            to,
            promotion,
        }
    }

    #[test]
    fn uci_counts_ranks_from_the_bottom() {
        let p = |t| parse_move(Notation::Uci, dims(), &[t]);
        assert_eq!(p("e2e4"), Ok(mv(sq(6, 4), sq(4, 4), None)));
        assert_eq!(p("a7a8q"), Ok(mv(sq(1, 0), sq(0, 0), Some(Role::Queen))));
        // Well-formed but off the board: the engine says which end.
        assert_eq!(p("i2e4"), Ok(mv(None, sq(4, 4), None)));
        assert_eq!(p("e0e9"), Ok(mv(None, None, None)));
        assert_eq!(p("E2E4"), Ok(mv(None, None, None)));
        for bad in ["e2", "e2e4qq", "e2e4!", "22e4", "e2-e4", "ee"] {
            assert_eq!(p(bad), Err(0), "{bad}");
        }
        // Any letter names a role: whether the rules have it is theirs to say.
        assert_eq!(p("e7e8a"), Ok(mv(sq(1, 4), sq(0, 4), Some(Role::A))));
    }

    #[test]
    fn jhu_needs_upper_case_files() {
        let p = |t| parse_move(Notation::Jhu, dims(), &[t]);
        assert_eq!(p("E2E4"), Ok(mv(sq(6, 4), sq(4, 4), None)));
        assert_eq!(p("e2E4"), Ok(mv(None, sq(4, 4), None)));
        assert_eq!(p("E2I4"), Ok(mv(sq(6, 4), None, None)));
        assert_eq!(p("E7E8Q"), Err(0));
        // Any four characters: what the course's program reads as two squares.
        assert_eq!(p("@1A1"), Ok(mv(None, sq(7, 0), None)));
        assert_eq!(p("I9A1"), Ok(mv(None, sq(7, 0), None)));
        assert_eq!(p("A0H8"), Ok(mv(None, sq(0, 7), None)));
        assert_eq!(p("e2e4"), Ok(mv(None, None, None)));
        assert_eq!(p("H8A1"), Ok(mv(sq(0, 7), sq(7, 0), None)));
    }

    #[test]
    fn cuhk_rows_start_at_the_top_and_z0_z0_stops() {
        let p = |a, b| parse_move(Notation::Cuhk, dims(), &[a, b]);
        assert_eq!(p("A2", "a3"), Ok(mv(sq(1, 0), sq(2, 0), None)));
        assert_eq!(p("h8", "H9"), Ok(mv(sq(7, 7), None, None)));
        assert_eq!(p("Z0", "Z0"), Ok(MoveInput::Stop));
        // Case-sensitive sentinel: `z0 z0` is just two cells off the board.
        assert_eq!(p("z0", "z0"), Ok(mv(None, None, None)));
        assert_eq!(p("A2", "AB3"), Err(1));
        assert_eq!(p("2A", "A3"), Err(0));
    }

    #[test]
    fn formats_read_back() {
        let pawn = Piece::new(Color::White, Role::Pawn);
        let (from, to) = (dims().at(6, 4), dims().at(4, 4));
        let m = Move::new(dims(), pawn, from, to, MoveKind::DoubleStep);
        for notation in [Notation::Uci, Notation::Jhu, Notation::Cuhk] {
            let text = format_move(notation, dims(), m);
            let args: Vec<&str> = text.split(' ').collect();
            assert_eq!(
                parse_move(notation, dims(), &args),
                Ok(mv(Some(m.from()), Some(m.to()), None)),
                "{text}"
            );
        }
        assert_eq!(format_move(Notation::Cuhk, dims(), m), "E7 E5");
        assert_eq!(format_move(Notation::Jhu, dims(), m), "E2E4");
    }
}
