//! Steps for a generated scenario: seeded random play of the reference
//! engine, biased toward what catches bugs. Each step is one of the rule
//! set's own forms (Lab 3: `movePiece` and the two scans; the others:
//! `move` in the program's notation, and the steps its programs have), and
//! is played on a [`Game`] as it is chosen, so the next choice sees the
//! real position and the coverage counts what really happened.
//!
//! A move is either a legal one, drawn with weights that favour captures,
//! checks, promotions, castling, en passant, double steps and moves that
//! end the game, or an attempt at one refusal reason of the rule set,
//! built for that reason (a square off the board, an empty square, an
//! enemy piece, an own piece as target, a shape, a blocked path, a pin).
//! A setup may ask for its first moves (an en-passant motif where the
//! setup cannot say that a pawn has just made its double step).
//!
//! The moves are the rule set's, a rule file's included (its pieces, its
//! promotion letters); its family decides which steps there are.

use super::coverage::{Feature, Hit, reachable_refusals};
use super::rng::Rng;
use crate::domain::{Color, Coord, Dims, Role, Square};
use crate::engine::{
    Game, GameStatus, Move, MoveError, MoveKind, Notation, RuleSet, RuleSetId, file_name,
};
use crate::scenario::StepKind;

/// The steps played and what each exercised.
pub struct Played {
    pub steps: Vec<StepKind>,
    pub hits: Vec<Hit>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    Legal,
    Refuse,
    ValidScan,
    ThreatScan,
    Undo,
    Redo,
    Status,
    Score,
    Stop,
    Save,
    Perft,
}

/// A square as a move names it: on the board, or a coordinate off it.
#[derive(Clone, Copy)]
enum Target {
    On(Square),
    Off(Coord),
}

impl Target {
    fn coord(self) -> Coord {
        match self {
            Target::On(s) => s.coord(),
            Target::Off(c) => c,
        }
    }

    fn square(self) -> Option<Square> {
        match self {
            Target::On(s) => Some(s),
            Target::Off(_) => None,
        }
    }
}

struct Player<'a> {
    rng: &'a mut Rng,
    rules: RuleSet,
    /// The rules' family: which steps its programs have, how squares are named.
    family: RuleSetId,
    notation: Notation,
    dims: Dims,
    game: Game,
    steps: Vec<StepKind>,
    hits: Vec<Hit>,
    undone: usize,
    /// A refusal reason the setup was built for (a pin: `move exposes check`).
    favour: Option<MoveError>,
}

/// Plays `count` steps from `game`'s position, the first ones the
/// `opening` moves (a setup's, see `setup::Built`); `favour` is a refusal
/// reason to try more often (the one the setup's motif is about).
pub fn play(
    rng: &mut Rng,
    rules: &RuleSet,
    game: Game,
    count: usize,
    favour: Option<MoveError>,
    opening: &[Move],
) -> Played {
    let dims = game.position().dims();
    let mut p = Player {
        rng,
        rules: *rules,
        family: rules.id,
        notation: rules.notation,
        dims,
        game,
        steps: Vec::with_capacity(count),
        hits: Vec::new(),
        undone: 0,
        favour,
    };
    for mv in opening.iter().take(count) {
        p.attempt(Target::On(mv.from()), Target::On(mv.to()), None);
    }
    for i in opening.len().min(count)..count {
        let late = i * 4 >= count * 3;
        let action = p.choose(late);
        p.act(action);
    }
    Played {
        steps: p.steps,
        hits: p.hits,
    }
}

impl Player<'_> {
    fn over(&self) -> bool {
        self.family != RuleSetId::Lab3 && self.game.status().is_over()
    }

    fn choose(&mut self, late: bool) -> Action {
        use Action::*;
        let over = self.over();
        let can_redo = u32::from(self.undone > 0);
        let legal = u32::from(!over);
        let table: Vec<(Action, u32)> = match self.family {
            RuleSetId::Lab3 => vec![(Legal, 4), (Refuse, 4), (ValidScan, 2), (ThreatScan, 2)],
            RuleSetId::Standard => vec![
                (Legal, 6 * legal),
                (Refuse, 4),
                (ValidScan, 1),
                (Undo, 1 + 2 * u32::from(over)),
                (Redo, 2 * can_redo),
                (Status, 1),
                (Score, 1),
                (Stop, u32::from(late)),
                (Perft, 1),
            ],
            RuleSetId::Cuhk => vec![
                (Legal, 7 * legal),
                (Refuse, 4),
                (Status, 1),
                (Score, 1),
                (Stop, u32::from(late)),
            ],
            RuleSetId::Jhu => vec![
                (Legal, 6 * legal),
                (Refuse, 4),
                (Status, 1),
                (Score, 1),
                (Save, 1),
            ],
        };
        let weights: Vec<u32> = table.iter().map(|&(_, w)| w).collect();
        table[self.rng.weighted(&weights)].0
    }

    fn act(&mut self, action: Action) {
        match action {
            Action::Legal => match self.pick_legal() {
                Some(mv) => {
                    // Only UCI writes the new piece; the others promote by themselves.
                    let promotion = mv.promotion().filter(|_| self.notation == Notation::Uci);
                    self.attempt(Target::On(mv.from()), Target::On(mv.to()), promotion)
                }
                None => self.refuse(),
            },
            Action::Refuse => self.refuse(),
            Action::ValidScan => {
                self.steps.push(StepKind::IsValidScan);
                self.hit(Feature::ValidScan);
            }
            Action::ThreatScan => {
                self.steps.push(StepKind::UnderThreatScan);
                self.hit(Feature::ThreatScan);
            }
            Action::Undo => {
                self.steps.push(StepKind::Undo);
                if self.game.undo() {
                    self.undone += 1;
                    self.hit(Feature::Undo);
                }
            }
            Action::Redo => {
                self.steps.push(StepKind::Redo);
                self.undone = self.undone.saturating_sub(1);
                if self.game.redo() {
                    self.hit(Feature::Redo);
                }
            }
            Action::Status => {
                self.steps.push(StepKind::Status);
                self.hit(Feature::Status);
            }
            Action::Score => {
                self.steps.push(StepKind::Score);
                self.hit(Feature::Score);
            }
            Action::Save => {
                self.steps.push(StepKind::Save);
                self.hit(Feature::Save);
            }
            Action::Perft => {
                let depth = 1 + self.rng.below(2) as u32;
                self.steps.push(StepKind::Perft { depth });
                self.hit(Feature::Perft);
            }
            Action::Stop => {
                let was_over = self.over();
                self.steps.push(StepKind::Stop {
                    sentinel: self.notation == Notation::Cuhk,
                });
                self.game.stop();
                self.undone = 0;
                if !was_over {
                    self.hit(Feature::Stopped);
                }
            }
        }
    }

    fn hit(&mut self, f: Feature) {
        self.hits.push(Hit::Feature(f));
    }

    /// A legal move, drawn with weights favouring the moves that test most.
    fn pick_legal(&mut self) -> Option<Move> {
        let moves = self.game.position().legal_moves();
        if moves.is_empty() {
            return None;
        }
        // Test for check / game end on all moves of small positions, else a sample.
        let probe_all = moves.len() <= 40;
        let weights: Vec<u32> = moves
            .iter()
            .map(|&mv| {
                let board = self.game.position().board();
                let mut w = 2;
                if let Some(target) = board.get(mv.to()) {
                    w += if target.role == Role::King { 60 } else { 6 };
                }
                w += match mv.kind() {
                    MoveKind::Normal => 0,
                    MoveKind::DoubleStep => 3,
                    MoveKind::EnPassant { .. } => 60,
                    MoveKind::Promotion(_) => 12,
                    MoveKind::Castle { .. } => 40,
                };
                if probe_all || self.rng.chance(1, 4) {
                    let mut after = self.game.clone();
                    let _ = after.try_move(Some(mv.from()), Some(mv.to()), mv.promotion());
                    if after.position().in_check() {
                        // Without a check rule (CUHK) a check is a king about to fall.
                        w += if self.rules.king_safety { 6 } else { 25 };
                    }
                    if self.family != RuleSetId::Lab3 && after.status().is_over() {
                        w += 80;
                    }
                }
                w
            })
            .collect();
        Some(moves[self.rng.weighted(&weights)])
    }

    /// An attempt at one of the rule set's refusal reasons.
    fn refuse(&mut self) {
        if self.over() {
            // Any move now is refused because the game is over.
            let from = self.random_square();
            let to = self.random_square();
            return self.attempt(Target::On(from), Target::On(to), None);
        }
        let reasons: Vec<MoveError> = reachable_refusals(&self.rules)
            .into_iter()
            .filter(|&e| e != MoveError::GameOver)
            .collect();
        let reason = match self.favour {
            Some(f) if self.rng.chance(1, 2) => f,
            _ => *self.rng.pick(&reasons),
        };
        let (from, to, promotion) = self
            .target_for(reason)
            .unwrap_or_else(|| (Target::On(self.random_square()), self.off_board(), None));
        self.attempt(from, to, promotion)
    }

    fn random_square(&mut self) -> Square {
        self.dims
            .square_of_index(self.rng.below(self.dims.len() as u64) as usize)
    }

    /// A square just off the board (or, for Lab 3, anywhere off it).
    fn off_board(&mut self) -> Target {
        let (rows, cols) = (self.dims.rows() as i64, self.dims.cols() as i64);
        let on_row = self.rng.range(0, rows - 1);
        let on_col = self.rng.range(0, cols - 1);
        let coord = match (self.family, self.rng.below(3)) {
            (RuleSetId::Lab3, 0) => Coord::new(*self.rng.pick(&[-1, rows, rows + 7, -100]), on_col),
            (RuleSetId::Lab3, 1) => Coord::new(on_row, *self.rng.pick(&[-1, cols, cols + 3])),
            (RuleSetId::Lab3, _) => Coord::new(-1, -1),
            // Named squares: one file past the last, or one rank past the top
            // (CUHK: row 0 or one past the bottom).
            (_, 0) => Coord::new(on_row, cols),
            (RuleSetId::Cuhk, 1) => Coord::new(rows, on_col),
            (_, _) => Coord::new(-1, on_col),
        };
        Target::Off(coord)
    }

    fn pieces(&self, color: Color) -> Vec<Square> {
        self.game
            .position()
            .board()
            .pieces()
            .filter(|(_, p)| p.color == color)
            .map(|(s, _)| s)
            .collect()
    }

    fn target_for(&mut self, reason: MoveError) -> Option<(Target, Target, Option<Role>)> {
        let turn = self.game.position().turn();
        let own = self.pieces(turn);
        let enemy = self.pieces(turn.opponent());
        let empty: Vec<Square> = self
            .dims
            .squares()
            .filter(|&s| self.game.position().board().get(s).is_none())
            .collect();
        let any = |p: &mut Self| Target::On(p.random_square());
        match reason {
            MoveError::StartOffBoard => {
                let from = self.off_board();
                let to = if self.rng.chance(1, 4) {
                    self.off_board()
                } else {
                    any(self)
                };
                Some((from, to, None))
            }
            MoveError::EndOffBoard => {
                let from = if own.is_empty() {
                    any(self)
                } else {
                    Target::On(*self.rng.pick(&own))
                };
                Some((from, self.off_board(), None))
            }
            MoveError::NoPiece if !empty.is_empty() => {
                Some((Target::On(*self.rng.pick(&empty)), any(self), None))
            }
            MoveError::WrongTurn if !enemy.is_empty() => {
                Some((Target::On(*self.rng.pick(&enemy)), any(self), None))
            }
            MoveError::CaptureOwnPiece if own.len() >= 2 => {
                let from = *self.rng.pick(&own);
                let to = loop {
                    let to = *self.rng.pick(&own);
                    if to != from {
                        break to;
                    }
                };
                Some((Target::On(from), Target::On(to), None))
            }
            MoveError::BadPromotion => {
                let moves = self.game.position().legal_moves();
                if moves.is_empty() {
                    return None;
                }
                let mv = *self.rng.pick(&moves);
                // A letter on a move that is no promotion, or a king as the new piece.
                let role = if mv.promotion().is_some() {
                    Role::King
                } else {
                    *self.rng.pick(&[Role::Queen, Role::Knight])
                };
                Some((Target::On(mv.from()), Target::On(mv.to()), Some(role)))
            }
            MoveError::IllegalMoveShape
            | MoveError::IllegalCaptureShape
            | MoveError::PathNotClear
            | MoveError::ExposesCheck
                if !own.is_empty() =>
            {
                let targets: &[Square] = match reason {
                    MoveError::IllegalCaptureShape => &enemy,
                    MoveError::IllegalMoveShape => &empty,
                    _ => &[],
                };
                self.search(reason, &own, targets)
                    .map(|(f, t)| (Target::On(f), Target::On(t), None))
            }
            _ => None,
        }
    }

    /// A (from, to) the engine refuses for `reason`: random tries, then a
    /// sweep over every own piece and square.
    fn search(
        &mut self,
        reason: MoveError,
        own: &[Square],
        targets: &[Square],
    ) -> Option<(Square, Square)> {
        let pos = self.game.position();
        let refused =
            |from: Square, to: Square| pos.check_move(Some(from), Some(to), None) == Err(reason);
        // Random tries favour pieces other than the king: a pinned piece
        // is a better test than a king stepping into an attack.
        let board = pos.board();
        let others: Vec<Square> = own
            .iter()
            .copied()
            .filter(|&s| board.get(s).is_some_and(|p| p.role != Role::King))
            .collect();
        for i in 0..24 {
            let from = if i % 3 != 0 && !others.is_empty() {
                *self.rng.pick(&others)
            } else {
                *self.rng.pick(own)
            };
            let to = if targets.is_empty() {
                self.dims
                    .square_of_index(self.rng.below(self.dims.len() as u64) as usize)
            } else {
                *self.rng.pick(targets)
            };
            if refused(from, to) {
                return Some((from, to));
            }
        }
        let mut found = Vec::new();
        'sweep: for &from in own {
            for to in self.dims.squares() {
                if refused(from, to) {
                    found.push((from, to));
                    if found.len() == 16 {
                        break 'sweep;
                    }
                }
            }
        }
        (!found.is_empty()).then(|| found[self.rng.below(found.len() as u64) as usize])
    }

    /// Writes the move step, plays it, and records what it exercised.
    fn attempt(&mut self, from: Target, to: Target, promotion: Option<Role>) {
        let step = self.step_for(from, to, promotion);
        self.steps.push(step);
        let position = self.game.position();
        let mover = from.square().and_then(|s| position.board().get(s));
        let target = to.square().and_then(|s| position.board().get(s));
        let was_in_check = position.in_check();
        match self.game.try_move(from.square(), to.square(), promotion) {
            Ok(mv) => {
                self.undone = 0;
                self.hit(Feature::Move);
                if target.is_some() || matches!(mv.kind(), MoveKind::EnPassant { .. }) {
                    self.hit(Feature::Capture);
                }
                if target.is_some_and(|t| t.role == Role::King) {
                    self.hit(Feature::KingCapture);
                }
                match mv.kind() {
                    MoveKind::DoubleStep => self.hit(Feature::DoubleStep),
                    MoveKind::EnPassant { .. } => self.hit(Feature::EnPassant),
                    MoveKind::Promotion(_) => self.hit(Feature::Promotion),
                    MoveKind::Castle { .. } => self.hit(Feature::Castling),
                    MoveKind::Normal => {}
                }
                if self.game.position().in_check() {
                    self.hit(Feature::Check);
                }
                if self.family != RuleSetId::Lab3 {
                    match self.game.status() {
                        GameStatus::Checkmate { .. } => self.hit(Feature::Checkmate),
                        GameStatus::Stalemate => self.hit(Feature::Stalemate),
                        GameStatus::KingCaptured { .. } => self.hit(Feature::KingCaptured),
                        _ => {}
                    }
                }
            }
            Err(e) => {
                self.hits.push(Hit::Refusal(e));
                match e {
                    MoveError::StartOffBoard | MoveError::EndOffBoard => {
                        self.hit(Feature::OffBoard)
                    }
                    MoveError::ExposesCheck if mover.is_some_and(|p| p.role == Role::King) => {
                        self.hit(Feature::KingIntoCheck)
                    }
                    MoveError::ExposesCheck if !was_in_check => self.hit(Feature::Pin),
                    _ => {}
                }
            }
        }
    }

    /// The step as the rule set writes it.
    fn step_for(&self, from: Target, to: Target, promotion: Option<Role>) -> StepKind {
        if self.family == RuleSetId::Lab3 {
            return StepKind::MovePiece {
                from: from.coord(),
                to: to.coord(),
            };
        }
        let name = |t: Target| {
            let c = t.coord();
            let file = file_name(c.col as u16);
            match self.notation {
                Notation::Uci => format!("{file}{}", self.dims.rows() as i64 - c.row),
                Notation::Jhu => format!(
                    "{}{}",
                    file.to_ascii_uppercase(),
                    self.dims.rows() as i64 - c.row
                ),
                Notation::Cuhk => format!("{}{}", file.to_ascii_uppercase(), c.row + 1),
            }
        };
        let mut text = match self.notation {
            Notation::Cuhk => format!("{} {}", name(from), name(to)),
            _ => format!("{}{}", name(from), name(to)),
        };
        if let Some(role) = promotion {
            text.push(role.letter());
        }
        StepKind::Move {
            text,
            from: from.square(),
            to: to.square(),
            promotion,
        }
    }
}
