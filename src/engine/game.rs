//! A game: a position, its history, and how it ended. Moves can be undone
//! and redone (seed 004: undo restores the mover, a captured piece, both
//! pieces of a castle, an en-passant-captured pawn; redo replays the move
//! "as if somebody had just tried to make it"); a game ends by mate or
//! stalemate (standard, JHU), by a king's capture or a stop (CUHK), and
//! then refuses moves until an undo reopens it. CUHK's machine player and
//! JHU's save file live here too, since both read the whole game.

use super::movegen::Move;
use super::position::{GameStatus, Position, UndoRecord};
use super::refusal::MoveError;
use crate::domain::{Color, Coord, Role, Square};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Debug)]
pub struct Game {
    position: Position,
    /// Moves played, newest last, with what undoes each.
    done: Vec<UndoRecord>,
    /// Moves taken back, newest last; cleared by any new move.
    undone: Vec<Move>,
    /// How the game ended by a king's capture or a stop, and how many moves
    /// had been played then (an undo below that reopens it).
    ended: Option<(GameStatus, usize)>,
}

/// The points of each side's pieces still on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scores {
    pub white: u32,
    pub black: u32,
}

impl Scores {
    /// The side with more points; `None` on a tie.
    pub fn leader(self) -> Option<Color> {
        match self.white.cmp(&self.black) {
            std::cmp::Ordering::Greater => Some(Color::White),
            std::cmp::Ordering::Less => Some(Color::Black),
            std::cmp::Ordering::Equal => None,
        }
    }
}

/// CUHK's machine player: targets tried per picked piece.
pub const MACHINE_TRIALS: u32 = 4096;
/// CUHK's machine player: re-picks per piece of the side.
pub const MACHINE_PICKS_PER_PIECE: u32 = 10;

impl Game {
    pub fn new(position: Position) -> Game {
        Game {
            position,
            done: Vec::new(),
            undone: Vec::new(),
            ended: None,
        }
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    /// Lab 3 `movePiece`: plays the legal move from `from` to `to` if the
    /// piece there belongs to the side to move. A refused move changes
    /// nothing.
    pub fn move_piece(&mut self, from: Coord, to: Coord, promotion: Option<Role>) -> bool {
        let dims = self.position.dims();
        self.try_move(dims.square(from), dims.square(to), promotion)
            .is_ok()
    }

    /// A `move` step: plays the move, or says why not (see [`MoveError`]).
    pub fn try_move(
        &mut self,
        from: Option<Square>,
        to: Option<Square>,
        promotion: Option<Role>,
    ) -> Result<Move, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        let mv = self.position.check_move(from, to, promotion)?;
        self.play(mv);
        self.undone.clear();
        Ok(mv)
    }

    fn play(&mut self, mv: Move) {
        let record = self.position.play(mv);
        let captured_king = record.captured().is_some_and(|p| p.role == Role::King);
        self.done.push(record);
        if captured_king && self.position.rules().ends.king_captured {
            let winner = self.position.turn().opponent();
            self.ended = Some((GameStatus::KingCaptured { winner }, self.done.len()));
        }
    }

    /// Takes back the last move; false when there is none. A game that
    /// ended after it is open again.
    pub fn undo(&mut self) -> bool {
        let Some(record) = self.done.pop() else {
            return false;
        };
        let mv = record.mv();
        self.position.undo(record);
        self.undone.push(mv);
        if self.ended.is_some_and(|(_, at)| at > self.done.len()) {
            self.ended = None;
        }
        true
    }

    /// Replays the last move taken back, if it is still legal; false
    /// otherwise (nothing to redo).
    pub fn redo(&mut self) -> bool {
        let Some(mv) = self.undone.pop() else {
            return false;
        };
        let legal = !self.is_over()
            && self
                .position
                .check_move(Some(mv.from()), Some(mv.to()), mv.promotion())
                .is_ok();
        if legal {
            self.play(mv);
        } else {
            self.undone.push(mv);
        }
        legal
    }

    /// Has the game ended? Cheaper than [`Game::status`]: no check test
    /// and no move generation unless the rules end games by checkmate or
    /// stalemate (and then a check test only when just one of them does).
    fn is_over(&self) -> bool {
        let ends = self.position.rules().ends;
        if self.ended.is_some() {
            return true;
        }
        let mate_ends = match (ends.checkmate, ends.stalemate) {
            (false, false) => return false,
            (true, true) => true,
            (true, false) => self.position.in_check(),
            (false, true) => !self.position.in_check(),
        };
        mate_ends && self.position.legal_moves().is_empty()
    }

    /// How the game stands now.
    pub fn status(&self) -> GameStatus {
        match self.ended {
            Some((status, _)) => status,
            None => self.position.status(),
        }
    }

    /// Each side's points by the rules' table.
    pub fn scores(&self) -> Scores {
        let rules = self.position.rules();
        let mut scores = Scores { white: 0, black: 0 };
        for (_, piece) in self.position.board().pieces() {
            let side = match piece.color {
                Color::White => &mut scores.white,
                Color::Black => &mut scores.black,
            };
            *side = side.saturating_add(rules.value(piece.role));
        }
        scores
    }

    /// CUHK's "Z0 Z0": the game stops; the side with more points wins, equal
    /// points draw. A game already over stays as it ended.
    pub fn stop(&mut self) -> GameStatus {
        if !self.is_over() {
            let winner = self.scores().leader();
            self.ended = Some((GameStatus::Stopped { winner }, self.done.len()));
        }
        self.status()
    }

    /// CUHK's machine player, reproducible from `seed`: pick one of the
    /// side's pieces at random (board order, row by row), try up to
    /// [`MACHINE_TRIALS`] random target squares; after that many misses
    /// pick again, up to [`MACHINE_PICKS_PER_PIECE`] × the piece count
    /// picks. The first valid target is played; `None` is a forfeit (no
    /// move, the turn passes), as is a game already over.
    pub fn machine_move(&mut self, seed: u64) -> Option<Move> {
        let mover = self.position.turn();
        if self.is_over() {
            return None;
        }
        // One move per (from, to): a promotion takes the rules' first role.
        let mut targets: HashMap<(Square, Square), Move> = HashMap::new();
        for m in self.position.legal_moves() {
            targets.entry((m.from(), m.to())).or_insert(m);
        }
        let movable: HashSet<Square> = targets.keys().map(|&(from, _)| from).collect();
        let pieces: Vec<Square> = (self.position.board().pieces())
            .filter(|(_, p)| p.color == mover)
            .map(|(sq, _)| sq)
            .collect();
        let dims = self.position.dims();
        let mut rng = SplitMix64(seed);
        let picks = MACHINE_PICKS_PER_PIECE as usize * pieces.len();
        for _ in 0..picks {
            let from = pieces[rng.below(pieces.len() as u64) as usize];
            if !movable.contains(&from) {
                // Every trial of this pick misses: skip its draws in O(1),
                // so that a big board of stuck pieces cannot take minutes.
                rng.skip(2 * u64::from(MACHINE_TRIALS));
                continue;
            }
            for _ in 0..MACHINE_TRIALS {
                let row = rng.below(u64::from(dims.rows())) as u16;
                let col = rng.below(u64::from(dims.cols())) as u16;
                let to = dims.at(row, col);
                if let Some(&mv) = targets.get(&(from, to)) {
                    self.play(mv);
                    self.undone.clear();
                    return Some(mv);
                }
            }
        }
        self.position.pass_turn();
        None
    }

    /// JHU's save file: one line per row from the top (row 8 down to row 1
    /// on 8x8), `-` for an empty square, upper case White, lower case
    /// Black, then `w` or `b` for the side to move.
    pub fn save(&self) -> Vec<String> {
        let board = self.position.board();
        let dims = board.dims();
        let mut lines: Vec<String> = (0..dims.rows())
            .map(|row| {
                (0..dims.cols())
                    .map(|col| board.get(dims.at(row, col)).map_or('-', |p| p.char()))
                    .collect()
            })
            .collect();
        lines.push(match self.position.turn() {
            Color::White => "w".to_string(),
            Color::Black => "b".to_string(),
        });
        lines
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, well-known generator whose
/// output is fixed by its seed on every platform. `below(n)` is `next % n`.
struct SplitMix64(u64);

impl SplitMix64 {
    const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(Self::GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// The state after `n` more outputs (the state is a counter).
    fn skip(&mut self, n: u64) {
        self.0 = self.0.wrapping_add(Self::GAMMA.wrapping_mul(n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RuleSetId;
    use std::collections::HashSet;

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
    fn splitmix_matches_its_published_first_outputs() {
        // Seed 1234567: the reference implementation's first two outputs.
        let mut r = SplitMix64(1_234_567);
        assert_eq!(r.next(), 6_457_827_717_110_365_317);
        assert_eq!(r.next(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn skipping_draws_lands_where_drawing_them_does() {
        let (mut a, mut b) = (SplitMix64(99), SplitMix64(99));
        for _ in 0..8192 {
            a.next();
        }
        b.skip(8192);
        assert_eq!(a.next(), b.next());
    }

    #[test]
    fn a_huge_board_of_stuck_pieces_forfeits_quickly() {
        // 256x256, each White pawn blocked by a Black one: 10 x 128 picks
        // with no valid target, all skipped.
        let dims = crate::domain::Dims::new(256, 256).unwrap();
        let mut pos = Position::new(RuleSetId::Cuhk.rules(), dims);
        for col in 0..128 {
            let white = crate::domain::Piece::new(Color::White, Role::Pawn);
            let black = crate::domain::Piece::new(Color::Black, Role::Pawn);
            pos.place(dims.at(200, col * 2), white);
            pos.place(dims.at(199, col * 2), black);
        }
        let mut g = Game::new(pos);
        assert_eq!(g.machine_move(5), None);
        assert_eq!(g.position().turn(), Color::Black);
    }

    fn cuhk(fen: &str) -> Game {
        Game::new(Position::from_fen(RuleSetId::Cuhk.rules(), fen).unwrap())
    }

    #[test]
    fn capturing_a_king_ends_a_cuhk_game_until_undone() {
        let mut g = cuhk("4k3/8/8/8/8/8/4r3/4K3 b - - 0 1");
        assert_eq!(
            g.scores(),
            Scores {
                white: 1000,
                black: 1005
            }
        );
        assert!(mv(&mut g, 6, 4, 7, 4), "the rook takes the king");
        assert_eq!(
            g.status(),
            GameStatus::KingCaptured {
                winner: Color::Black
            }
        );
        assert_eq!(
            g.scores(),
            Scores {
                white: 0,
                black: 1005
            }
        );
        assert_eq!(
            g.try_move(
                g.position().dims().square_at(0, 4),
                g.position().dims().square_at(0, 3),
                None
            ),
            Err(MoveError::GameOver)
        );
        assert!(g.undo());
        assert_eq!(g.status(), GameStatus::Ongoing);
    }

    #[test]
    fn a_stop_is_won_on_points_or_drawn() {
        let mut g = cuhk("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1");
        assert_eq!(g.stop(), GameStatus::Stopped { winner: None });
        assert!(
            !g.redo() && g.machine_move(1).is_none(),
            "nothing moves after a stop"
        );
        let mut g = cuhk("4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
        assert_eq!(
            g.stop(),
            GameStatus::Stopped {
                winner: Some(Color::White)
            }
        );
    }

    #[test]
    fn the_machine_move_is_valid_reproducible_and_may_forfeit() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";
        let mut seen = HashSet::new();
        for seed in 0..40 {
            let (mut a, mut b) = (cuhk(start), cuhk(start));
            let ma = a.machine_move(seed).expect("the start position has moves");
            assert_eq!(Some(ma), b.machine_move(seed), "same seed, same move");
            assert!(cuhk(start).position().legal_moves().contains(&ma));
            assert_eq!(a.position().turn(), Color::Black);
            seen.insert(ma);
        }
        assert!(seen.len() > 5, "different seeds pick different moves");
        // No valid move at all (a lone pawn blocked): forfeit, the turn passes.
        let mut g = cuhk("4k3/8/8/8/8/4n3/4P3/8 w - - 0 1");
        let before = g.position().board_text();
        assert_eq!(g.machine_move(7), None);
        assert_eq!(g.position().board_text(), before);
        assert_eq!(g.position().turn(), Color::Black);
    }

    #[test]
    fn save_writes_the_jhu_picture() {
        let g = Game::new(
            Position::from_fen(RuleSetId::Jhu.rules(), "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1").unwrap(),
        );
        let lines = g.save();
        assert_eq!(lines.len(), 9);
        assert_eq!(lines[0], "----k---");
        assert_eq!(lines[6], "----P---");
        assert_eq!(lines[8], "b");
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
