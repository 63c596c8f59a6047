//! A reusable move list, so that a client walking the tree of moves (a
//! perft, a search, a scan per ply) allocates once per ply instead of once
//! per node: [`super::Position::legal_moves_into`] clears and refills it.
//!
//! It also keeps the scratch board the mailbox generator plays moves on
//! (boards over 512 squares, several kings, Mystery pieces), refilled in
//! place, so that path does not allocate per call either.

use super::board::Board;
use super::movegen::Move;
use std::ops::Deref;

/// Legal moves of one position, in generation order (not sorted: sort by
/// `(from, to)` for the order of [`super::Position::legal_moves`]).
#[derive(Clone, Debug, Default)]
pub struct MoveList {
    moves: Vec<Move>,
    scratch: Option<Board>,
}

impl MoveList {
    pub fn new() -> MoveList {
        MoveList::default()
    }

    pub fn as_slice(&self) -> &[Move] {
        &self.moves
    }

    /// The list emptied, for refilling.
    pub(super) fn cleared(&mut self) -> &mut Vec<Move> {
        self.moves.clear();
        &mut self.moves
    }

    /// The list emptied and a scratch copy of `board`, both reusing their
    /// allocations.
    pub(super) fn cleared_with_scratch(&mut self, board: &Board) -> (&mut Vec<Move>, &mut Board) {
        self.moves.clear();
        let scratch = match &mut self.scratch {
            Some(scratch) => {
                scratch.clone_from(board);
                scratch
            }
            none => none.insert(board.clone()),
        };
        (&mut self.moves, scratch)
    }
}

impl Deref for MoveList {
    type Target = [Move];

    fn deref(&self) -> &[Move] {
        &self.moves
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;

    fn into_iter(self) -> Self::IntoIter {
        self.moves.iter()
    }
}

/// Lists are equal when they hold the same moves in the same order.
impl PartialEq for MoveList {
    fn eq(&self, other: &Self) -> bool {
        self.moves == other.moves
    }
}

impl Eq for MoveList {}
