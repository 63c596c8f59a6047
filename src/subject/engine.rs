//! The built-in reference engine as a [`Subject`].

use super::{Setup, Subject, SubjectError};
use crate::domain::{Coord, Role, Square};
use crate::engine::{
    BoardText, Game, GameStatus, MoveError, Position, Scores, divide_until, format_move,
    perft_until,
};
use std::time::{Duration, Instant};

#[derive(Default)]
pub struct EngineSubject {
    game: Option<Game>,
    /// Wall-clock limit per scenario (from `setup`), if any.
    timeout: Option<Duration>,
    deadline: Option<Instant>,
}

impl EngineSubject {
    pub fn new() -> Self {
        Self::default()
    }

    /// An engine that answers [`SubjectError::Timeout`] once a scenario has
    /// run for `timeout`: perft and divide stop mid-count, and any step
    /// after the deadline fails (its board is not read).
    pub fn with_timeout(timeout: Duration) -> Self {
        EngineSubject {
            timeout: Some(timeout),
            ..Self::default()
        }
    }

    fn game(&mut self) -> &mut Game {
        // The runner always calls `setup` first.
        self.game.as_mut().expect("setup before any call")
    }

    fn position(&mut self) -> &Position {
        self.game().position()
    }
}

impl Subject for EngineSubject {
    fn setup(&mut self, setup: &Setup) -> Result<(), SubjectError> {
        let pos = setup
            .initial_position()
            .map_err(|e| SubjectError::Io(e.to_string()))?;
        self.game = Some(Game::new(pos));
        self.deadline = self.timeout.and_then(|t| Instant::now().checked_add(t));
        Ok(())
    }

    /// One pair per (from, to), as isValidMove answers and as an engine
    /// sends them (`SCAN VALID`, or one `VALID` per pair): a promotion is
    /// one move per role it may promote to, but one pair.
    fn valid_scan(&mut self) -> Result<Vec<(Square, Square)>, SubjectError> {
        let mut pairs: Vec<_> = (self.position().valid_moves().into_iter())
            .map(|m| (m.from(), m.to()))
            .collect();
        pairs.dedup();
        Ok(pairs)
    }

    fn threat_scan(&mut self) -> Result<Vec<Square>, SubjectError> {
        Ok(self.position().threatened_pieces())
    }

    fn move_piece(&mut self, from: Coord, to: Coord) -> Result<bool, SubjectError> {
        Ok(self.game().move_piece(from, to, None))
    }

    fn board(&mut self) -> Result<BoardText, SubjectError> {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(SubjectError::Timeout);
        }
        Ok(self.position().board_text())
    }

    fn play(
        &mut self,
        from: Option<Square>,
        to: Option<Square>,
        promotion: Option<Role>,
    ) -> Result<Result<(), MoveError>, SubjectError> {
        Ok(self.game().try_move(from, to, promotion).map(|_| ()))
    }

    fn perft(&mut self, depth: u32) -> Result<u64, SubjectError> {
        match self.deadline {
            None => Ok(self.position().perft(depth)),
            Some(d) => perft_until(self.position(), depth, d).map_err(|_| SubjectError::Timeout),
        }
    }

    fn divide(&mut self, depth: u32) -> Result<Vec<(String, u64)>, SubjectError> {
        match self.deadline {
            None => Ok(self.position().divide(depth)),
            Some(d) => divide_until(self.position(), depth, d).map_err(|_| SubjectError::Timeout),
        }
    }

    fn undo(&mut self) -> Result<bool, SubjectError> {
        Ok(self.game().undo())
    }

    fn redo(&mut self) -> Result<bool, SubjectError> {
        Ok(self.game().redo())
    }

    fn status(&mut self) -> Result<GameStatus, SubjectError> {
        Ok(self.game().status())
    }

    fn score(&mut self) -> Result<Scores, SubjectError> {
        Ok(self.game().scores())
    }

    fn stop(&mut self) -> Result<GameStatus, SubjectError> {
        Ok(self.game().stop())
    }

    fn machine(&mut self, seed: u64) -> Result<Option<String>, SubjectError> {
        let game = self.game();
        let (notation, dims) = (game.position().rules().notation, game.position().dims());
        Ok(game
            .machine_move(seed)
            .map(|mv| format_move(notation, dims, mv)))
    }

    fn save(&mut self) -> Result<Vec<String>, SubjectError> {
        Ok(self.game().save())
    }
}
