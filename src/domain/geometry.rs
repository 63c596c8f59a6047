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
    pub fn index(self, sq: Square) -> usize {
        sq.row as usize * self.cols as usize + sq.col as usize
    }

    pub fn square_of_index(self, i: usize) -> Square {
        Square {
            row: (i / self.cols as usize) as u16,
            col: (i % self.cols as usize) as u16,
        }
    }
}

/// A square known to lie on some board (0-based row and column).
/// Ordering is row-major, which is the order traces list squares in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    pub row: u16,
    pub col: u16,
}

impl Square {
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
}
