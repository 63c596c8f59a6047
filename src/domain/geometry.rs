//! Board dimensions, on-board squares and raw (possibly off-board) coordinates.

use std::fmt;

/// The largest number of rows or columns a board may have. Scans are
/// quadratic in the number of squares, so this bounds memory and time while
/// leaving room for every board a course has used (up to 16x16) and more.
pub const MAX_SIDE: u32 = 256;

/// A board size that [`Dims::new`] refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardSizeError {
    pub rows: i64,
    pub cols: i64,
}

impl fmt::Display for BoardSizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "board size {}x{} is out of range: rows and columns must be between 1 and {MAX_SIDE}",
            self.rows, self.cols
        )
    }
}

impl std::error::Error for BoardSizeError {}

/// The size of a rectangular board, 1x1 up to [`MAX_SIDE`]x[`MAX_SIDE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dims {
    rows: u16,
    cols: u16,
}

impl Dims {
    pub fn new(rows: i64, cols: i64) -> Result<Dims, BoardSizeError> {
        let ok = |n: i64| (1..=MAX_SIDE as i64).contains(&n);
        if ok(rows) && ok(cols) {
            Ok(Dims {
                rows: rows as u16,
                cols: cols as u16,
            })
        } else {
            Err(BoardSizeError { rows, cols })
        }
    }

    pub fn rows(self) -> u16 {
        self.rows
    }

    pub fn cols(self) -> u16 {
        self.cols
    }

    pub fn len(self) -> usize {
        self.rows as usize * self.cols as usize
    }

    /// A board always has at least one square; provided for clippy's sake.
    pub fn is_empty(self) -> bool {
        false
    }

    /// The square at `coord`, if it lies on this board.
    pub fn square(self, coord: Coord) -> Option<Square> {
        self.square_at(coord.row, coord.col)
    }

    /// The square at `coord`, or why not: the checked way in for input
    /// (a protocol request, a FEN, a scenario line), whose error says
    /// where the square lies and how big the board is.
    pub fn check(self, coord: Coord) -> Result<Square, OffBoard> {
        self.square(coord).ok_or(OffBoard { coord, dims: self })
    }

    /// The square at `(row, col)`, which the caller knows lies on this
    /// board (it walks the board's rows and columns, or a home row):
    /// engine code past the input boundary, checked in debug builds only.
    #[inline(always)]
    pub(crate) fn at(self, row: u16, col: u16) -> Square {
        debug_assert!(
            row < self.rows && col < self.cols,
            "{row} {col} is off a {self:?} board"
        );
        Square { row, col }
    }

    /// Whether `sq` lies on this board (a square made for a smaller or
    /// equal board does; one made for a larger board may not).
    pub fn contains(self, sq: Square) -> bool {
        sq.row < self.rows && sq.col < self.cols
    }

    pub fn square_at(self, row: i64, col: i64) -> Option<Square> {
        if (0..self.rows as i64).contains(&row) && (0..self.cols as i64).contains(&col) {
            Some(Square {
                row: row as u16,
                col: col as u16,
            })
        } else {
            None
        }
    }

    /// The square `(dr, dc)` away from `sq`, if still on the board.
    pub fn offset(self, sq: Square, dr: i32, dc: i32) -> Option<Square> {
        self.square_at(sq.row as i64 + dr as i64, sq.col as i64 + dc as i64)
    }

    /// Every square in row-major order: the order scans and traces use.
    pub fn squares(self) -> impl Iterator<Item = Square> {
        let cols = self.cols;
        (0..self.rows).flat_map(move |row| (0..cols).map(move |col| Square { row, col }))
    }

    /// Row-major index of a square of this board.
    #[inline(always)]
    pub fn index(self, sq: Square) -> usize {
        debug_assert!(self.contains(sq), "{sq:?} is off a {self:?} board");
        sq.row as usize * self.cols as usize + sq.col as usize
    }

    pub fn square_of_index(self, i: usize) -> Square {
        debug_assert!(i < self.len(), "index {i} is off a {self:?} board");
        Square {
            row: (i / self.cols as usize) as u16,
            col: (i % self.cols as usize) as u16,
        }
    }
}

/// A square known to lie on a board (0-based row and column): only a
/// [`Dims`] makes one ([`Dims::check`], [`Dims::square`], [`Dims::squares`],
/// ...), so a square has been checked against the board it is used on, and
/// the engine indexes its boards with squares without checking again.
/// Input (protocol requests, FENs, scenario lines) arrives as [`Coord`]s
/// and becomes squares at that boundary.
/// Ordering is row-major, which is the order traces list squares in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    // Visible in the crate only for `scenario::parse`, which still builds
    // a board picture's squares as a literal (it is being rewritten); the
    // rest of the crate goes through `Dims` and the accessors, and once the
    // parser does too these become private.
    pub(crate) row: u16,
    pub(crate) col: u16,
}

impl Square {
    pub fn row(self) -> u16 {
        self.row
    }

    pub fn col(self) -> u16 {
        self.col
    }

    /// The square in one word (row high, column low), for compact
    /// storage; never `u32::MAX`, which a holder may use for "none".
    #[inline(always)]
    pub(crate) fn pack(self) -> u32 {
        (self.row as u32) << 16 | self.col as u32
    }

    /// The square [`Square::pack`] packed (of any other word: nonsense).
    #[inline(always)]
    pub(crate) fn unpack(word: u32) -> Square {
        Square {
            row: (word >> 16) as u16,
            col: word as u16,
        }
    }

    /// The square of row-major index `index` on a board `width` columns
    /// wide, which the caller knows it lies on (a move keeps its squares
    /// as indices and the width: see `engine::Move`).
    #[inline(always)]
    pub(crate) fn of_index(index: u32, width: u32) -> Square {
        Square {
            row: (index / width) as u16,
            col: (index % width) as u16,
        }
    }

    pub fn coord(self) -> Coord {
        Coord {
            row: self.row as i64,
            col: self.col as i64,
        }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.row, self.col)
    }
}

/// A coordinate that is not on a board of `dims`: what [`Dims::check`]
/// refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffBoard {
    pub coord: Coord,
    pub dims: Dims,
}

impl fmt::Display for OffBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "square {} is off the {}x{} board",
            self.coord, self.dims.rows, self.dims.cols
        )
    }
}

impl std::error::Error for OffBoard {}

/// A coordinate as written in a scenario: it may lie off the board
/// (a scenario may ask to move there, and the answer is then "invalid").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Coord {
    pub row: i64,
    pub col: i64,
}

impl Coord {
    pub fn new(row: i64, col: i64) -> Coord {
        Coord { row, col }
    }
}

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.row, self.col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_outside_one_to_max_are_refused() {
        assert!(Dims::new(1, 1).is_ok());
        assert!(Dims::new(256, 256).is_ok());
        assert_eq!(Dims::new(0, 4), Err(BoardSizeError { rows: 0, cols: 4 }));
        assert!(Dims::new(257, 1).is_err());
        assert!(Dims::new(4, -1).is_err());
        assert!(Dims::new(i64::MAX, i64::MAX).is_err());
    }

    #[test]
    fn squares_are_row_major_and_bounded() {
        let d = Dims::new(2, 3).unwrap();
        let all: Vec<_> = d.squares().map(|s| (s.row, s.col)).collect();
        assert_eq!(all, vec![(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]);
        assert!(d.square_at(2, 0).is_none());
        assert!(d.square_at(0, -1).is_none());
        assert_eq!(d.index(d.square_at(1, 2).unwrap()), 5);
        assert_eq!(d.square_of_index(4), d.square_at(1, 1).unwrap());
        assert_eq!(d.offset(d.square_at(0, 0).unwrap(), -1, 0), None);
    }

    #[test]
    fn check_accepts_only_the_boards_squares_and_says_why_not() {
        let d = Dims::new(8, 8).unwrap();
        let sq = d.check(Coord::new(7, 0)).unwrap();
        assert_eq!((sq.row(), sq.col(), sq.coord()), (7, 0, Coord::new(7, 0)));
        for (r, c) in [(3, 8), (8, 3), (-1, 0), (0, -1), (300, 300)] {
            let e = d.check(Coord::new(r, c)).unwrap_err();
            assert_eq!(e.coord, Coord::new(r, c));
            assert_eq!(
                e.to_string(),
                format!("square {r} {c} is off the 8x8 board")
            );
        }
        // Coordinates past every board's size, and past u16, are off.
        for (r, c) in [
            (i64::MIN, 0),
            (0, i64::MAX),
            (65_536, 0),
            (1 << 32, 1 << 32),
        ] {
            assert!(d.check(Coord::new(r, c)).is_err(), "{r} {c}");
        }
        let wide = Dims::new(1, 256).unwrap();
        assert!(wide.check(Coord::new(0, 255)).is_ok());
        assert!(wide.check(Coord::new(0, 256)).is_err());
        // A square of a larger board is not (always) one of a smaller.
        let big = Dims::new(16, 16).unwrap().square_at(9, 9).unwrap();
        assert!(!d.contains(big));
        assert!(d.contains(sq) && Dims::new(16, 16).unwrap().contains(sq));
    }

    #[test]
    fn packed_squares_unpack_to_themselves() {
        let d = Dims::new(MAX_SIDE as i64, MAX_SIDE as i64).unwrap();
        for sq in [d.at(0, 0), d.at(255, 255), d.at(3, 200)] {
            assert_ne!(sq.pack(), u32::MAX);
            assert_eq!(Square::unpack(sq.pack()), sq);
        }
    }
}
