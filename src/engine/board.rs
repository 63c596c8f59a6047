//! The mailbox: which piece stands on which square.

use super::rules::MysteryShape;
use crate::domain::{Color, Dims, Piece, Role, Square};
use std::fmt;

/// A rectangular board of optional pieces, row-major. It also knows how a
/// Mystery piece moves, so that attack queries, which see only the board,
/// count Mystery attackers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    dims: Dims,
    squares: Vec<Option<Piece>>,
    mystery: Option<MysteryShape>,
}

impl Board {
    pub fn empty(dims: Dims) -> Board {
        Board {
            dims,
            squares: vec![None; dims.len()],
            mystery: None,
        }
    }

    /// An empty board whose Mystery pieces (if any) move as `mystery` says.
    pub fn with_mystery(dims: Dims, mystery: Option<MysteryShape>) -> Board {
        Board {
            mystery,
            ..Board::empty(dims)
        }
    }

    /// How this board's Mystery pieces move (`None`: they do not move).
    pub fn mystery(&self) -> Option<&MysteryShape> {
        self.mystery.as_ref()
    }

    pub fn dims(&self) -> Dims {
        self.dims
    }

    pub fn get(&self, sq: Square) -> Option<Piece> {
        self.squares[self.dims.index(sq)]
    }

    /// Every square's content, row-major.
    pub fn cells(&self) -> &[Option<Piece>] {
        &self.squares
    }

    /// Puts `piece` on `sq` (or clears it), returning what stood there.
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) -> Option<Piece> {
        let i = self.dims.index(sq);
        std::mem::replace(&mut self.squares[i], piece)
    }

    /// Every occupied square with its piece, row-major.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.squares
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.map(|p| (self.dims.square_of_index(i), p)))
    }

    /// Squares of `color`'s kings (a scenario may place none, or several).
    pub fn kings(&self, color: Color) -> Vec<Square> {
        self.pieces()
            .filter(|(_, p)| *p == Piece::new(color, Role::King))
            .map(|(sq, _)| sq)
            .collect()
    }

    /// The canonical one-line text of this board, as traces print it.
    pub fn text(&self) -> BoardText {
        let mut s = String::with_capacity(self.squares.len() + self.dims.rows() as usize);
        for (i, p) in self.squares.iter().enumerate() {
            if i > 0 && i % self.dims.cols() as usize == 0 {
                s.push('/');
            }
            s.push(p.map_or('.', Piece::char));
        }
        BoardText(s)
    }
}

/// A board as one line: rows `0..rows` joined by `/`, one character a
/// square, `.` empty, upper case White, lower case Black.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BoardText(pub String);

impl BoardText {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The rows of the board, top (row 0) first.
    pub fn rows(&self) -> impl Iterator<Item = &str> {
        self.0.split('/')
    }
}

impl fmt::Display for BoardText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_rows_joined_by_slash() {
        let dims = Dims::new(2, 3).unwrap();
        let mut b = Board::empty(dims);
        b.set(
            dims.square_at(0, 1).unwrap(),
            Some(Piece::new(Color::Black, Role::Rook)),
        );
        b.set(
            dims.square_at(1, 2).unwrap(),
            Some(Piece::new(Color::White, Role::King)),
        );
        assert_eq!(b.text().as_str(), ".r./..K");
        assert_eq!(b.kings(Color::White), vec![dims.square_at(1, 2).unwrap()]);
        assert!(b.kings(Color::Black).is_empty());
    }

    #[test]
    fn set_replaces_and_returns_the_old_piece() {
        let dims = Dims::new(1, 1).unwrap();
        let sq = dims.square_at(0, 0).unwrap();
        let mut b = Board::empty(dims);
        let rook = Piece::new(Color::White, Role::Rook);
        assert_eq!(b.set(sq, Some(rook)), None);
        assert_eq!(b.set(sq, None), Some(rook));
    }
}
