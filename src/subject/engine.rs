//! The built-in reference engine as a [`Subject`].

use super::{Subject, SubjectError};
use crate::domain::{Coord, Dims, Piece, Square};
use crate::engine::{BoardText, Position, RuleSet};
use crate::scenario::Placement;

#[derive(Default)]
pub struct EngineSubject {
    position: Option<Position>,
}

impl EngineSubject {
    pub fn new() -> Self {
        Self::default()
    }

    fn position(&mut self) -> &mut Position {
        // The runner always calls `setup` first.
        self.position.as_mut().expect("setup before any call")
    }
}

impl Subject for EngineSubject {
    fn setup(
        &mut self,
        rules: RuleSet,
        dims: Dims,
        placements: &[Placement],
    ) -> Result<(), SubjectError> {
        let mut pos = Position::new(rules, dims);
        for p in placements {
            pos.place(p.square, Piece::new(p.color, p.role));
        }
        self.position = Some(pos);
        Ok(())
    }

    fn valid_scan(&mut self) -> Result<Vec<(Square, Square)>, SubjectError> {
        Ok(self
            .position()
            .valid_moves()
            .into_iter()
            .map(|m| (m.from, m.to))
            .collect())
    }

    fn threat_scan(&mut self) -> Result<Vec<Square>, SubjectError> {
        Ok(self.position().threatened_pieces())
    }

    fn move_piece(&mut self, from: Coord, to: Coord) -> Result<bool, SubjectError> {
        Ok(self.position().move_piece(from, to))
    }

    fn board(&mut self) -> Result<BoardText, SubjectError> {
        Ok(self.position().board_text())
    }
}
