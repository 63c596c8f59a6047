//! FEN (Forsyth–Edwards Notation), generalised to other board sizes.
//!
//! `pieces side castling en-passant [halfmove [fullmove]]`:
//!
//! - `pieces`: the rows from row 0 (Black's home row, at the top) down,
//!   separated by `/`; in a row, a piece letter (`PNBRQK` White, `pnbrqk`
//!   Black, and the letters of the pieces the rule set adds: `M` the
//!   Mystery piece, a rule file's own) or a count of empty squares, which may have several digits
//!   (`10`, `12`). The number of rows is the board's height, the width of a
//!   row its width; every row must have the same width (1 to 256).
//! - `side`: `w` or `b`.
//! - `castling`: `-`, or `K`/`Q`/`k`/`q` (the outermost rook on that side of
//!   the king, on the home row) and/or Shredder/X-FEN file letters (`A`..
//!   for White, `a`.. for Black: the rook on that file). A right whose king
//!   or rook is not on its home row is dropped, as chess tools do.
//! - `en-passant`: `-` or the square a pawn just crossed (`e3`, `a10`),
//!   which must lie on the row that pawn crossed.
//! - the clocks default to `0 1`.

use super::movegen::{file_name, parse_square, square_name};
use super::position::{CastleSide, CastlingRights, Position, home_row};
use super::rules::RuleSet;
use crate::domain::{Color, Coord, Dims, MAX_SIDE, Piece, Role, Square};
use std::fmt;

/// Why a FEN was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// Not 4 to 6 space-separated fields.
    FieldCount(usize),
    /// The piece placement field is malformed.
    Pieces(String),
    /// A piece letter the rule set has no piece for (row counted from 1).
    UnknownPiece {
        row: usize,
        letter: char,
    },
    /// The side to move is not `w` or `b`.
    Side(String),
    Castling(String),
    EnPassant(String),
    /// The halfmove clock or fullmove number is not a number.
    Clock(String),
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::FieldCount(n) => write!(
                f,
                "a FEN has 4 to 6 fields (pieces side castling en-passant [halfmove fullmove]), found {n}"
            ),
            FenError::Pieces(why) => write!(f, "bad FEN piece placement: {why}"),
            FenError::UnknownPiece { row, letter } => write!(
                f,
                "bad FEN piece placement: row {row}: `{letter}` is not a piece of these rules"
            ),
            FenError::Side(s) => write!(f, "bad FEN side to move `{s}`: expected `w` or `b`"),
            FenError::Castling(why) => write!(f, "bad FEN castling field: {why}"),
            FenError::EnPassant(why) => write!(f, "bad FEN en-passant field: {why}"),
            FenError::Clock(s) => {
                write!(f, "bad FEN clock `{s}`: expected a non-negative number")
            }
        }
    }
}

impl std::error::Error for FenError {}

/// The standard start position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

impl Position {
    /// The position a FEN describes, played by `rules`.
    pub fn from_fen(rules: RuleSet, fen: &str) -> Result<Position, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount(fields.len()));
        }
        let rows = parse_pieces(fields[0], &rules)?;
        let dims = Dims::new(rows.len() as i64, rows[0].len() as i64)
            .map_err(|e| FenError::Pieces(e.to_string()))?;
        let mut pos = Position::new(rules, dims);
        // Every row is as wide as the first: the cells are the board's
        // squares in row-major order, one for one.
        for (sq, piece) in dims.squares().zip(rows.iter().flatten()) {
            if let Some(piece) = piece {
                pos.place(sq, *piece);
            }
        }
        let turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::Side(other.to_string())),
        };
        pos.set_turn(turn);
        pos.set_castling_rights(parse_castling(&pos, fields[2])?);
        pos.set_en_passant_square(parse_en_passant(dims, turn, fields[3])?);
        let clock = |i: usize, default: u32| {
            fields.get(i).map_or(Ok(default), |s| {
                s.parse::<u32>().map_err(|_| FenError::Clock(s.to_string()))
            })
        };
        pos.set_clocks(clock(4, 0)?, clock(5, 1)?);
        Ok(pos)
    }

    /// The FEN of this position. Castling rights are written `KQkq` where
    /// the rook is the outermost one on its side, else by file letter.
    pub fn to_fen(&self) -> String {
        let dims = self.dims();
        let mut s = String::new();
        for row in 0..dims.rows() {
            if row > 0 {
                s.push('/');
            }
            let mut empty = 0;
            for col in 0..dims.cols() {
                match self.board().get(dims.at(row, col)) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        s.push(p.char());
                    }
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
        }
        s.push(' ');
        s.push(self.turn().letter());
        s.push(' ');
        let rights = self.castling_rights();
        if rights.is_empty() {
            s.push('-');
        }
        for (color, side, col) in rights.iter() {
            let letter = if Some(col) == outermost_rook(self, color, side) {
                match side {
                    CastleSide::King => 'k',
                    CastleSide::Queen => 'q',
                }
                .to_string()
            } else {
                file_name(col)
            };
            match color {
                Color::White => s.push_str(&letter.to_ascii_uppercase()),
                Color::Black => s.push_str(&letter),
            }
        }
        s.push(' ');
        match self.en_passant_square() {
            Some(sq) => s.push_str(&square_name(dims, sq)),
            None => s.push('-'),
        }
        s.push_str(&format!(
            " {} {}",
            self.halfmove_clock(),
            self.fullmove_number()
        ));
        s
    }
}

/// The rows of the placement field, top first, one entry a square.
fn parse_pieces(field: &str, rules: &RuleSet) -> Result<Vec<Vec<Option<Piece>>>, FenError> {
    let err = |why: String| Err(FenError::Pieces(why));
    let mut rows = Vec::new();
    for (i, text) in field.split('/').enumerate() {
        if rows.len() == MAX_SIDE as usize {
            return err(format!("more than {MAX_SIDE} rows"));
        }
        let mut row: Vec<Option<Piece>> = Vec::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_ascii_digit() {
                if c == '0' {
                    return err(format!(
                        "row {}: an empty count may not start with 0",
                        i + 1
                    ));
                }
                let mut n = c.to_digit(10).unwrap_or(0) as usize;
                while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                    chars.next();
                    n = n * 10 + d as usize;
                    if n > MAX_SIDE as usize {
                        break;
                    }
                }
                row.extend(std::iter::repeat_n(None, n.min(MAX_SIDE as usize + 1)));
            } else if let Some(p) = Piece::from_char(c) {
                if !rules.knows(p.role) {
                    return Err(FenError::UnknownPiece {
                        row: i + 1,
                        letter: c,
                    });
                }
                row.push(Some(p));
            } else {
                return err(format!("row {}: unexpected `{c}`", i + 1));
            }
            if row.len() > MAX_SIDE as usize {
                return err(format!("row {}: wider than {MAX_SIDE} squares", i + 1));
            }
        }
        if row.is_empty() {
            return err(format!("row {} is empty", i + 1));
        }
        if let Some(first) = rows.first().map(Vec::len)
            && row.len() != first
        {
            return err(format!(
                "row {} is {} squares wide, row 1 is {first}",
                i + 1,
                row.len()
            ));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// The one king of `color` on its home row, if exactly one stands there.
fn home_king(pos: &Position, color: Color) -> Option<u16> {
    let (dims, home) = (pos.dims(), home_row(color, pos.dims()));
    let mut kings = (0..dims.cols())
        .filter(|&c| pos.board().get(dims.at(home, c)) == Some(Piece::new(color, Role::King)));
    match (kings.next(), kings.next()) {
        (Some(col), None) => Some(col),
        _ => None,
    }
}

/// The column of the outermost rook of `color` on `side` of its home king.
fn outermost_rook(pos: &Position, color: Color, side: CastleSide) -> Option<u16> {
    let king = home_king(pos, color)?;
    let (dims, home) = (pos.dims(), home_row(color, pos.dims()));
    let is_rook =
        |c: &u16| pos.board().get(dims.at(home, *c)) == Some(Piece::new(color, Role::Rook));
    match side {
        CastleSide::King => (king + 1..pos.dims().cols()).rev().find(is_rook),
        CastleSide::Queen => (0..king).find(is_rook),
    }
}

fn parse_castling(pos: &Position, field: &str) -> Result<CastlingRights, FenError> {
    let mut rights = CastlingRights::NONE;
    if field == "-" {
        return Ok(rights);
    }
    for c in field.chars() {
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let (side, col) = match c.to_ascii_lowercase() {
            'k' => (
                CastleSide::King,
                outermost_rook(pos, color, CastleSide::King),
            ),
            'q' => (
                CastleSide::Queen,
                outermost_rook(pos, color, CastleSide::Queen),
            ),
            f @ 'a'..='z' => {
                let home = home_row(color, pos.dims());
                let file = Coord::new(i64::from(home), i64::from(f as u8 - b'a'));
                let Ok(sq) = pos.dims().check(file) else {
                    return Err(FenError::Castling(format!("file `{c}` is off the board")));
                };
                let col = sq.col();
                let rook = pos.board().get(sq) == Some(Piece::new(color, Role::Rook));
                match home_king(pos, color) {
                    Some(king) if rook && col > king => (CastleSide::King, Some(col)),
                    Some(king) if rook && col < king => (CastleSide::Queen, Some(col)),
                    _ => (CastleSide::King, None),
                }
            }
            _ => {
                return Err(FenError::Castling(format!(
                    "unexpected `{c}` in `{field}` (expected `-` or letters like `KQkq`)"
                )));
            }
        };
        if col.is_some() {
            rights.set(color, side, col);
        }
    }
    Ok(rights)
}

fn parse_en_passant(dims: Dims, turn: Color, field: &str) -> Result<Option<Square>, FenError> {
    if field == "-" {
        return Ok(None);
    }
    let sq = parse_square(dims, field)
        .ok_or_else(|| FenError::EnPassant(format!("`{field}` is not a square of this board")))?;
    // The pawn that just moved belongs to the side not to move; it crossed
    // the row after its start row.
    let moved = turn.opponent();
    let crossed = home_row(moved, dims) as i64 + 2 * moved.forward() as i64;
    if sq.row() as i64 != crossed {
        return Err(FenError::EnPassant(format!(
            "`{field}` is not on the row a {} pawn crosses with a double step",
            moved.name()
        )));
    }
    Ok(Some(sq))
}
