//! A game: a position and its history, so that moves can be undone and
//! redone (seed 004: undo restores the mover, a captured piece, both pieces
//! of a castle, an en-passant-captured pawn; redo replays the move "as if
//! somebody had just tried to make it").

use super::movegen::Move;
use super::position::{Position, UndoRecord};
use crate::domain::{Coord, Role};

#[derive(Clone, Debug)]
pub struct Game {
    position: Position,
    /// Moves played, newest last, with what undoes each.
    done: Vec<UndoRecord>,
    /// Moves taken back, newest last; cleared by any new move.
    undone: Vec<Move>,
}

impl Game {
    pub fn new(position: Position) -> Game {
        Game {
            position,
            done: Vec::new(),
            undone: Vec::new(),
        }
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    /// `movePiece`: plays the legal move from `from` to `to` (promoting to
    /// `promotion`, or the rules' first choice) if the piece there belongs
    /// to the side to move. A refused move changes nothing.
    pub fn move_piece(&mut self, from: Coord, to: Coord, promotion: Option<Role>) -> bool {
        if !self.try_play(from, to, promotion) {
            return false;
        }
        self.undone.clear();
        true
    }

    fn try_play(&mut self, from: Coord, to: Coord, promotion: Option<Role>) -> bool {
        let Some(mv) = self.position.find_move(from, to, promotion) else {
            return false;
        };
        let mover = self.position.board().get(mv.from).map(|p| p.color);
        if mover != Some(self.position.turn()) {
            return false;
        }
        let record = self.position.play(mv);
        self.done.push(record);
        true
    }

    /// Takes back the last move; false when there is none.
    pub fn undo(&mut self) -> bool {
        let Some(record) = self.done.pop() else {
            return false;
        };
        let mv = record.mv();
        self.position.undo(record);
        self.undone.push(mv);
        true
    }

    /// Replays the last move taken back, if it is still legal; false
    /// otherwise (nothing to redo).
    pub fn redo(&mut self) -> bool {
        let Some(mv) = self.undone.pop() else {
            return false;
        };
        if self.try_play(mv.from.coord(), mv.to.coord(), mv.promotion()) {
            true
        } else {
            self.undone.push(mv);
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RuleSetId;

    fn game(fen: &str) -> Game {
        Game::new(Position::from_fen(RuleSetId::Standard.rules(), fen).unwrap())
    }

    fn mv(g: &mut Game, a: i64, b: i64, c: i64, d: i64) -> bool {
        g.move_piece(Coord::new(a, b), Coord::new(c, d), None)
    }

    #[test]
    fn undo_restores_mover_and_captured_piece_and_redo_replays() {
        let mut g = game("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1");
        let before = g.position().to_fen();
        assert!(mv(&mut g, 4, 4, 3, 3), "exd5");
        let after = g.position().to_fen();
        assert!(g.undo());
        assert_eq!(g.position().to_fen(), before, "the pawn comes back");
        assert!(g.redo());
        assert_eq!(g.position().to_fen(), after);
        assert!(!g.redo(), "nothing left to redo");
    }

    #[test]
    fn undo_restores_both_pieces_of_a_castle_and_the_rights() {
        let mut g = game("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let before = g.position().to_fen();
        assert!(mv(&mut g, 7, 4, 7, 6), "O-O");
        assert!(
            g.position()
                .to_fen()
                .starts_with("r3k2r/8/8/8/8/8/8/R4RK1 b kq")
        );
        assert!(g.undo());
        assert_eq!(g.position().to_fen(), before);
    }

    #[test]
    fn undo_restores_an_en_passant_captured_pawn() {
        let mut g = game("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
        let before = g.position().to_fen();
        assert!(mv(&mut g, 3, 4, 2, 3), "exd6 e.p.");
        assert_eq!(g.position().board_text().as_str().matches('p').count(), 0);
        assert!(g.undo());
        assert_eq!(g.position().to_fen(), before);
    }

    #[test]
    fn a_new_move_clears_redo_and_empty_history_refuses_undo() {
        let mut g = game("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        assert!(!g.undo());
        assert!(mv(&mut g, 7, 4, 7, 3));
        assert!(g.undo());
        assert!(mv(&mut g, 7, 4, 7, 5));
        assert!(!g.redo(), "the undone move was superseded");
    }
}
