//! Legal move generation on square sets: the fast path of `movegen` for
//! boards of at most 512 squares (one word, two, four or eight: see
//! [`super::squareset`]).
//!
//! It decides exactly what the mailbox generator decides (a move is legal
//! when, once made, no own king is attacked), the way bitboard engines do:
//! checkers and pinned pieces are found once from the king with set
//! operations; every other piece's targets are one table lookup or line
//! attack masked by "not own pieces", the check mask (capture the checker or
//! block) and its pin line; king steps are kept when the target is not
//! attacked with the king lifted; en passant and castling, which change two
//! lines at once, are judged on the occupancy after the move.
//!
//! Moves go to a [`Sink`]: a list (every move written out) or a counter
//! (perft's last ply adds `popcount`s instead of writing moves).
//!
//! It covers every rule set's flags. It declines (and `movegen`'s mailbox
//! path answers) the cases whose legality it does not model: a side with
//! several kings under king safety (Lab 3 setups may have them), and
//! pieces that move by the rule set's table rather than by chess's shapes
//! (a JHU Mystery piece, a course's own pieces, a rule file's redefined
//! knight, bishop, rook or queen).

use super::board::{Board, SetIndex, Sets, slot};
use super::geometry::Geometry;
use super::movegen::{Context, Move, MoveKind, castling_rook_col, on_its_side};
use super::position::{CastleSide, home_row};
use super::rules::{Castling, RoleSet};
use super::squareset::{Set256, Set512, SquareSet};
use crate::domain::{Color, Piece, Role};

/// Where generated moves go.
pub(super) trait Sink<S> {
    /// One move of `kind` of `piece` from `from` to each square of
    /// `targets`.
    fn moves(&mut self, g: &Geometry<S>, piece: Piece, from: usize, targets: S, kind: MoveKind);
    /// A promotion of `pawn` to each of `roles` from `from` to each square
    /// of `targets`.
    fn promotions(&mut self, g: &Geometry<S>, pawn: Piece, from: usize, targets: S, roles: RoleSet);
    fn one(&mut self, mv: Move);
    /// One move of `kind` of `piece` to each square of `targets`, from the
    /// square `delta` indices before it.
    fn shifted(&mut self, g: &Geometry<S>, piece: Piece, targets: S, delta: isize, kind: MoveKind);
    /// [`Sink::shifted`] for promotions of `pawn` to each of `roles`.
    fn shifted_promotions(
        &mut self,
        g: &Geometry<S>,
        pawn: Piece,
        targets: S,
        delta: isize,
        roles: RoleSet,
    );
}

/// Writes every move out.
pub(super) struct Collect<'a>(pub &'a mut Vec<Move>);

/// Only counts the moves.
///
/// The baseline x86-64 target has no popcount instruction, so a set's
/// count is a dozen dependent operations: one per piece was a fifth of the
/// time of perft's last ply (`perf`, start position). One-word target sets
/// are instead added to a bit-sliced counter (`ones`, `twos`, `fours`: at
/// each square, how many of the sets held it, in binary), a few
/// operations each, and counted three times at the end
/// ([`Count::total`]); the rare square held by eight sets is counted as it
/// overflows. Wider sets are counted at once.
#[derive(Default)]
pub(super) struct Count {
    counted: u64,
    ones: u64,
    twos: u64,
    fours: u64,
}

impl Count {
    /// Adds one move to each square of `targets`, `times` times over.
    #[inline(always)]
    fn add<S: SquareSet>(&mut self, targets: S, times: u64) {
        match targets.as_u64() {
            Some(set) if times == 1 => {
                let carry = self.ones & set;
                self.ones ^= set;
                let carry2 = self.twos & carry;
                self.twos ^= carry;
                let carry4 = self.fours & carry2;
                self.fours ^= carry2;
                if carry4 != 0 {
                    self.counted += 8 * carry4.count_ones() as u64;
                }
            }
            _ => self.counted += targets.count() as u64 * times,
        }
    }

    /// How many moves were added.
    pub(super) fn total(&self) -> u64 {
        let count = |set: u64| set.count_ones() as u64;
        self.counted + count(self.ones) + 2 * count(self.twos) + 4 * count(self.fours)
    }
}

/// One move for each member of `targets`, lowest first: `move_to(to)`
/// builds it. (Reserving `targets.count()` first measured slower: without
/// a popcount instruction in the baseline x86-64 target, a count costs
/// more than the capacity checks it saves.)
#[inline(always)]
fn extend_each<S: SquareSet>(out: &mut Vec<Move>, targets: S, move_to: impl Fn(usize) -> Move) {
    for to in targets.members() {
        out.push(move_to(to));
    }
}

impl<S: SquareSet> Sink<S> for Collect<'_> {
    #[inline]
    fn moves(&mut self, g: &Geometry<S>, piece: Piece, from: usize, targets: S, kind: MoveKind) {
        let template = Move::template(g.dims(), piece, kind).with_from(from);
        extend_each(self.0, targets, |to| template.with_to(to));
    }

    fn promotions(
        &mut self,
        g: &Geometry<S>,
        pawn: Piece,
        from: usize,
        targets: S,
        roles: RoleSet,
    ) {
        for to in targets.members() {
            self.0.extend(roles.iter().map(|role| {
                Move::template(g.dims(), pawn, MoveKind::Promotion(role)).between(from, to)
            }));
        }
    }

    fn one(&mut self, mv: Move) {
        self.0.push(mv);
    }

    fn shifted(&mut self, g: &Geometry<S>, piece: Piece, targets: S, delta: isize, kind: MoveKind) {
        let template = Move::template(g.dims(), piece, kind);
        extend_each(self.0, targets, |to| {
            template.between(to.wrapping_sub_signed(delta), to)
        });
    }

    fn shifted_promotions(
        &mut self,
        g: &Geometry<S>,
        pawn: Piece,
        targets: S,
        delta: isize,
        roles: RoleSet,
    ) {
        for to in targets.members() {
            let from = to.wrapping_sub_signed(delta);
            self.0.extend(roles.iter().map(|role| {
                Move::template(g.dims(), pawn, MoveKind::Promotion(role)).between(from, to)
            }));
        }
    }
}

impl<S: SquareSet> Sink<S> for Count {
    #[inline(always)]
    fn moves(&mut self, _: &Geometry<S>, _: Piece, _: usize, targets: S, _: MoveKind) {
        self.add(targets, 1);
    }

    fn promotions(&mut self, _: &Geometry<S>, _: Piece, _: usize, targets: S, roles: RoleSet) {
        self.add(targets, roles.len() as u64);
    }

    fn one(&mut self, _: Move) {
        self.counted += 1;
    }

    #[inline(always)]
    fn shifted(&mut self, _: &Geometry<S>, _: Piece, targets: S, _: isize, _: MoveKind) {
        self.add(targets, 1);
    }

    #[inline(always)]
    fn shifted_promotions(
        &mut self,
        _: &Geometry<S>,
        _: Piece,
        targets: S,
        _: isize,
        roles: RoleSet,
    ) {
        self.add(targets, roles.len() as u64);
    }
}

/// The legal moves of each of `colors` into `sink`; `false` (and nothing
/// generated) where the board has no set index or a colour falls outside
/// what this generator models (see the module doc).
pub(super) fn generate<K>(board: &Board, ctx: &Context, colors: &[Color], sink: &mut K) -> bool
where
    K: Sink<u64> + Sink<u128> + Sink<Set256> + Sink<Set512>,
{
    match board.sets() {
        SetIndex::Mailbox => false,
        SetIndex::U64(sets) => generate_on(board, sets, ctx, colors, sink),
        SetIndex::U128(sets) => generate_on(board, sets, ctx, colors, sink),
        SetIndex::Words256(sets) => generate_on(board, sets, ctx, colors, sink),
        SetIndex::Words512(sets) => generate_on(board, sets, ctx, colors, sink),
    }
}

fn generate_on<S: SquareSet, K: Sink<S>>(
    board: &Board,
    sets: &Sets<S>,
    ctx: &Context,
    colors: &[Color],
    sink: &mut K,
) -> bool {
    let table_movers = !board.chess_only() && {
        let table = board.piece_table();
        !table.classic_movers()
            || Role::ALL
                .iter()
                .any(|&r| table.moves_by_table(r) && sets.role[slot(r)].any())
    };
    let several_kings = |&c: &Color| ctx.rules.king_safety && sets.of(c, Role::King).several();
    if table_movers || colors.iter().any(several_kings) {
        return false;
    }
    for &color in colors {
        Side::new(sets, ctx, color).generate(sink);
    }
    true
}

/// One side's view of the sets, for one generation.
struct Side<'a, S: 'static> {
    g: &'static Geometry<S>,
    sets: &'a Sets<S>,
    /// By reference: copied into the side whole, its words were loaded
    /// across the narrower stores that had just built it (a store
    /// forwarding stall on every generation, 6% of perft's time).
    ctx: &'a Context<'a>,
    color: Color,
    us: S,
    them: S,
    occupied: S,
}

impl<'a, S: SquareSet> Side<'a, S> {
    fn new(sets: &'a Sets<S>, ctx: &'a Context<'a>, color: Color) -> Self {
        let us = sets.color[color as usize];
        let them = sets.color[color.opponent() as usize];
        Side {
            g: sets.geo,
            sets,
            ctx,
            color,
            us,
            them,
            occupied: us | them,
        }
    }

    /// Is square `i` attacked by a piece of `attackers` (a subset of the
    /// enemy), with `occupied` blocking the sliders? A slider's line is
    /// scanned only when one stands on it on an empty board.
    #[inline]
    fn attacked(&self, i: usize, occupied: S, attackers: S) -> bool {
        let (g, role) = (self.g, &self.sets.role);
        let leapers = (g.knight(i) & role[Role::Knight as usize])
            | (g.king(i) & role[Role::King as usize])
            | (g.pawn_attacks(self.color, i) & role[Role::Pawn as usize]);
        if (leapers & attackers).any() {
            return true;
        }
        let queens = role[Role::Queen as usize];
        let rooks = (role[Role::Rook as usize] | queens) & attackers & g.rook_rays(i);
        let bishops = (role[Role::Bishop as usize] | queens) & attackers & g.bishop_rays(i);
        (rooks.any() && (g.rook(i, occupied) & rooks).any())
            || (bishops.any() && (g.bishop(i, occupied) & bishops).any())
    }

    /// The enemy pieces attacking square `i`.
    #[inline(always)]
    fn attackers(&self, i: usize) -> S {
        let (g, role, occ, them) = (self.g, &self.sets.role, self.occupied, self.them);
        let queens = role[Role::Queen as usize];
        let mut found = ((g.knight(i) & role[Role::Knight as usize])
            | (g.king(i) & role[Role::King as usize])
            | (g.pawn_attacks(self.color, i) & role[Role::Pawn as usize]))
            & them;
        let rooks = (role[Role::Rook as usize] | queens) & them & g.rook_rays(i);
        if rooks.any() {
            found |= g.rook(i, occ) & rooks;
        }
        let bishops = (role[Role::Bishop as usize] | queens) & them & g.bishop_rays(i);
        if bishops.any() {
            found |= g.bishop(i, occ) & bishops;
        }
        found
    }

    fn generate<K: Sink<S>>(&self, sink: &mut K) {
        let (g, sets, color) = (self.g, self.sets, self.color);
        let piece = |role: Role| Piece::new(color, role);
        let kings = sets.of(color, Role::King);
        // With king safety there is at most one king here (see `generate_on`).
        let guarded = self.ctx.rules.king_safety && kings.any();
        let mut legal = !S::EMPTY;
        let mut pinned = S::EMPTY;
        let king = kings.members().next().unwrap_or(0);
        if guarded {
            let checkers = self.attackers(king);
            if checkers.several() {
                legal = S::EMPTY;
            } else if checkers.any() {
                legal = checkers | g.between(king, checkers.first());
            }
            pinned = self.pinned(king);
        }
        for k in kings.members() {
            let mut targets = g.king(k) & !self.us;
            if guarded {
                let lifted = self.occupied ^ S::single(k);
                for t in targets.members() {
                    if self.attacked(t, lifted, self.them) {
                        targets ^= S::single(t);
                    }
                }
            }
            sink.moves(g, piece(Role::King), k, targets, MoveKind::Normal);
            if self.ctx.rules.castling != Castling::None {
                self.castles(k, guarded, sink);
            }
        }
        if legal.is_empty() {
            return;
        }
        let mask = |from: usize| match pinned.has(from) {
            true => legal & g.through(king, from),
            false => legal,
        };
        let free = !self.us;
        let occ = self.occupied;
        for from in (sets.of(color, Role::Knight) & !pinned).members() {
            let targets = g.knight(from) & free & legal;
            sink.moves(g, piece(Role::Knight), from, targets, MoveKind::Normal);
        }
        for from in sets.of(color, Role::Bishop).members() {
            let targets = g.bishop(from, occ) & free & mask(from);
            sink.moves(g, piece(Role::Bishop), from, targets, MoveKind::Normal);
        }
        for from in sets.of(color, Role::Rook).members() {
            let targets = g.rook(from, occ) & free & mask(from);
            sink.moves(g, piece(Role::Rook), from, targets, MoveKind::Normal);
        }
        for from in sets.of(color, Role::Queen).members() {
            let targets = (g.rook(from, occ) | g.bishop(from, occ)) & free & mask(from);
            sink.moves(g, piece(Role::Queen), from, targets, MoveKind::Normal);
        }
        self.pawns(pinned, legal, mask, sink);
        // Most positions have no en-passant square: no call then.
        if self.ctx.en_passant.is_none() {
            return;
        }
        if guarded {
            self.en_passant(Some(king), sink);
        } else {
            self.en_passant(None, sink);
        }
    }

    /// Own pieces standing alone between the king on `king` and an enemy
    /// slider that would attack it without them.
    #[inline(always)]
    fn pinned(&self, king: usize) -> S {
        let (g, role) = (self.g, &self.sets.role);
        let queens = role[Role::Queen as usize];
        let rooks = (role[Role::Rook as usize] | queens) & self.them & g.rook_rays(king);
        let bishops = (role[Role::Bishop as usize] | queens) & self.them & g.bishop_rays(king);
        if (rooks | bishops).is_empty() {
            return S::EMPTY;
        }
        let snipers = (g.rook(king, self.them) & rooks) | (g.bishop(king, self.them) & bishops);
        let mut pinned = S::EMPTY;
        for sniper in snipers.members() {
            let between = g.between(king, sniper) & self.occupied;
            if between.any() && !between.several() && (between & self.us).any() {
                pinned |= between;
            }
        }
        pinned
    }

    /// Pawn pushes, double steps and captures (not en passant): pinned
    /// pawns one by one (`mask` gives their pin line), the others as one
    /// set shifted a row forward, so a position's pawns cost a few
    /// operations instead of a loop.
    fn pawns<K: Sink<S>>(&self, pinned: S, legal: S, mask: impl Fn(usize) -> S, sink: &mut K) {
        let (g, color, rules) = (self.g, self.color, self.ctx.rules);
        let empty = !self.occupied;
        let promoting = match rules.promotion.is_empty() {
            true => S::EMPTY,
            false => g.last_row[color as usize],
        };
        let start_row = match rules.pawn_double_step {
            true => g.start_row[color as usize],
            false => S::EMPTY,
        };
        let pawns = self.sets.of(color, Role::Pawn);
        let pawn = Piece::new(color, Role::Pawn);
        for from in (pawns & pinned).members() {
            let push = g.pawn_push(color, from) & empty;
            let targets = (push | (g.pawn_attacks(color, from) & self.them)) & mask(from);
            sink.moves(g, pawn, from, targets & !promoting, MoveKind::Normal);
            if (targets & promoting).any() {
                sink.promotions(g, pawn, from, targets & promoting, rules.promotion);
            }
            if push.any() && start_row.has(from) {
                // With promotion on, a double step may not skip it.
                let two = g.pawn_push(color, push.first()) & empty & !promoting;
                sink.moves(g, pawn, from, two & mask(from), MoveKind::DoubleStep);
            }
        }
        let free = pawns & !pinned;
        if free.is_empty() {
            return;
        }
        let push = g.forward(color, free, 0) & empty;
        let two = g.forward(color, g.forward(color, free & start_row, 0) & empty, 0) & empty;
        let left = g.forward(color, free & g.not_first_col, -1) & self.them;
        let right = g.forward(color, free & g.not_last_col, 1) & self.them;
        for (targets, dc) in [(push, 0), (left, -1), (right, 1)] {
            let targets = targets & legal;
            let delta = g.forward_delta(color, dc);
            sink.shifted(g, pawn, targets & !promoting, delta, MoveKind::Normal);
            if (targets & promoting).any() {
                sink.shifted_promotions(g, pawn, targets & promoting, delta, rules.promotion);
            }
        }
        let two = two & !promoting & legal;
        let delta = 2 * g.forward_delta(color, 0);
        sink.shifted(g, pawn, two, delta, MoveKind::DoubleStep);
    }

    /// En-passant captures, kept when the king on `king` (if guarded) is
    /// not attacked once both pawns have moved.
    fn en_passant<K: Sink<S>>(&self, king: Option<usize>, sink: &mut K) {
        let (g, color) = (self.g, self.color);
        let Some(ep) = self.ctx.en_passant.filter(|_| self.ctx.rules.en_passant) else {
            return;
        };
        let to = g.index(ep);
        if self.occupied.has(to) {
            return;
        }
        let enemy_pawns = self.sets.of(color.opponent(), Role::Pawn);
        let takers = g.pawn_attacks(color.opponent(), to) & self.sets.of(color, Role::Pawn);
        for from in takers.members() {
            // The pawn that crossed `to` stands beside the taker.
            let captured = g.dims().at(g.square(from).row(), ep.col());
            let c = g.index(captured);
            if !enemy_pawns.has(c) {
                continue;
            }
            if let Some(king) = king {
                let after = self.occupied ^ S::single(from) ^ S::single(c) ^ S::single(to);
                if self.attacked(king, after, self.them ^ S::single(c)) {
                    continue;
                }
            }
            let pawn = Piece::new(color, Role::Pawn);
            let kind = MoveKind::EnPassant { captured };
            sink.one(Move::special(g.dims(), pawn, from, to, kind));
        }
    }

    /// Castling by the king on `k`, by the rule set's flavour (the same
    /// conditions as the mailbox generator's `castling_moves`), and, when
    /// `guarded`, only where the king is not attacked on landing.
    fn castles<K: Sink<S>>(&self, k: usize, guarded: bool, sink: &mut K) {
        let (g, ctx, color) = (self.g, self.ctx, self.color);
        let rights = ctx.castling;
        let no_rights = rights.rook_col(color, CastleSide::King).is_none()
            && rights.rook_col(color, CastleSide::Queen).is_none();
        if ctx.rules.castling == Castling::Rights && no_rights {
            return;
        }
        let dims = g.dims();
        let king = g.square(k);
        let home = home_row(color, dims);
        if king.row() != home {
            return;
        }
        let at = |col: u16| dims.at(home, col);
        // The index of the home row's first square: a column's square is
        // that plus the column (no multiplication a square).
        let row_start = k - king.col() as usize;
        let index = |col: u16| row_start + col as usize;
        let bit = |col: u16| S::single(index(col));
        let span = |a: u16, b: u16| a.min(b)..=a.max(b);
        let lifted = self.occupied ^ S::single(k);
        for side in [CastleSide::King, CastleSide::Queen] {
            // By rights (standard chess), a piece between the king and
            // the right's rook is tested first: most positions with rights
            // are like the start position, both sides blocked, which the
            // full rule below took about 75 instructions a side to find.
            let rook_col = match ctx.rules.castling {
                Castling::Rights => {
                    let Some(rook_col) = rights.rook_col(color, side) else {
                        continue;
                    };
                    let (low, high) = (king.col().min(rook_col), king.col().max(rook_col));
                    let inner = bit(high).minus(bit(low)) & !bit(low);
                    if (inner & self.occupied).any() || !on_its_side(king, rook_col, side) {
                        continue;
                    }
                    rook_col
                }
                _ => match castling_rook_col(*ctx, dims, king, color, side) {
                    Some(rook_col) => rook_col,
                    None => continue,
                },
            };
            let rook = bit(rook_col);
            if (self.sets.of(color, Role::Rook) & rook).is_empty() {
                continue;
            }
            let Some((king_to, rook_to)) = side.landing(dims.cols(), ctx.rules.castling_files)
            else {
                continue;
            };
            // The king's span and the rook's touch (their landing squares
            // are neighbours), so together they are one run of the home
            // row, from its lowest column to its highest: the bits below
            // the highest one's, less those below the lowest one's.
            let low = king.col().min(king_to).min(rook_col).min(rook_to);
            let high = bit(king.col().max(king_to).max(rook_col).max(rook_to));
            let path = (high.minus(bit(low)) | high) & !S::single(k) & !rook;
            if (path & self.occupied).any() {
                continue;
            }
            // Not out of check nor through an attacked square, the king
            // lifted (its landing square is judged below, with the rook moved).
            let safe_passage = span(king.col(), king_to)
                .filter(|&c| c != king_to || c == king.col())
                .all(|c| !self.attacked(index(c), lifted, self.them));
            if !safe_passage {
                continue;
            }
            if guarded {
                let after = (lifted & !rook) | bit(king_to) | bit(rook_to);
                if self.attacked(index(king_to), after, self.them) {
                    continue;
                }
            }
            let kind = MoveKind::Castle {
                rook_from: at(rook_col),
                rook_to: at(rook_to),
            };
            let piece = Piece::new(color, Role::King);
            sink.one(Move::special(dims, piece, k, index(king_to), kind));
        }
    }
}

#[cfg(test)]
mod tests {
    //! The set path must list exactly the mailbox path's moves, in the same
    //! sorted order, on random positions of every rule set and many sizes:
    //! one-word and two-word boards up to 12x12, multi-word ones from 129
    //! to 512 squares (attack tests and perft too).

    use super::super::movegen::{Scope, count_legal_moves, fast_legal_moves, mailbox_legal_moves};
    use super::super::{CastleSide, CastlingRights, MoveKind, MysteryShape, Position, RuleSet};
    use super::{Move, SetIndex, Sets, Side, SquareSet};
    use crate::domain::{Color, Dims, Piece, Role, Square};

    use super::super::squareset::tests::Rng;

    fn random_position(rng: &mut Rng, rules: RuleSet) -> Position {
        let (rows, cols) = match rng.below(3) {
            0 => (8, 8),
            _ => (1 + rng.below(12) as i64, 1 + rng.below(12) as i64),
        };
        random_position_on(rng, rules, Dims::new(rows, cols).unwrap())
    }

    /// A random position of `dims`: pieces of every role at a random
    /// density, sometimes a castling setup, sometimes an en-passant square.
    fn random_position_on(rng: &mut Rng, rules: RuleSet, dims: Dims) -> Position {
        let (rows, cols) = (dims.rows() as i64, dims.cols() as i64);
        let mut pos = Position::new(rules, dims);
        let density = 1 + rng.below(5);
        for sq in dims.squares() {
            if rng.below(10) < density {
                let color = [Color::Black, Color::White][rng.below(2) as usize];
                // Kings are rarer than the rest, but a side may have several.
                let role = match rng.below(20) {
                    0..=6 => Role::Pawn,
                    7..=8 => Role::Knight,
                    9..=10 => Role::Bishop,
                    11..=12 => Role::Rook,
                    13..=14 => Role::Queen,
                    15..=16 => Role::King,
                    _ => Role::Mystery,
                };
                pos.place(sq, Piece::new(color, role));
            }
        }
        // Castling setups half the time: king on its home row (the centre
        // column, or anywhere), rooks in the corners, rights for them.
        let mut rights = CastlingRights::NONE;
        for color in [Color::Black, Color::White] {
            let home = super::super::home_row(color, dims);
            if rng.below(2) == 0 {
                let col = match rng.below(2) {
                    0 => cols as u16 / 2,
                    _ => rng.below(cols as u64) as u16,
                };
                pos.place(dims.at(home, col), Piece::new(color, Role::King));
                for corner in [0, cols as u16 - 1] {
                    pos.place(dims.at(home, corner), Piece::new(color, Role::Rook));
                }
            }
            for side in [CastleSide::King, CastleSide::Queen] {
                let rook = match (rng.below(3), side) {
                    (0, _) => Some(rng.below(cols as u64) as u16),
                    (1, CastleSide::King) => Some(cols as u16 - 1),
                    (1, CastleSide::Queen) => Some(0),
                    _ => None,
                };
                rights.set(color, side, rook);
            }
        }
        pos.set_castling_rights(rights);
        if rng.below(2) == 0 {
            pos.set_turn(Color::Black);
        }
        // En passant half the time: the square a double step crossed, the
        // pawn that made it beyond, and a pawn of the side to move beside it.
        let us = pos.turn();
        let ep_row = 2 * -us.forward() as i64 + if us == Color::White { 0 } else { rows - 1 };
        let col = rng.below(cols as u64) as i64;
        if rng.below(2) == 0
            && let (Some(ep), Some(pawn)) = (
                dims.square_at(ep_row, col),
                dims.square_at(ep_row - us.forward() as i64, col),
            )
        {
            pos.set_en_passant_square(Some(ep));
            pos.place(pawn, Piece::new(us.opponent(), Role::Pawn));
            if rng.below(2) == 0 {
                pos.board_mut_for_tests().set(ep, None);
            }
            let side = col + [-1, 1][rng.below(2) as usize];
            if let Some(taker) = dims.square_at(pawn.row() as i64, side) {
                pos.place(taker, Piece::new(us, Role::Pawn));
            }
        }
        pos
    }

    /// Both generators on every colour the rules list, and the counter.
    /// Lists `pos`'s moves by the set path, counting them by kind
    /// (castling, en passant, promotion, double step) in `kinds`; `false`
    /// where the set path declines.
    fn tally_fast_moves(pos: &Position, kinds: &mut [u32; 4]) -> bool {
        let mut moves = Vec::new();
        let fast = fast_legal_moves(
            pos.board(),
            pos.context(),
            &[pos.turn()],
            Scope::All,
            &mut moves,
        );
        for mv in moves {
            match mv.kind() {
                MoveKind::Castle { .. } => kinds[0] += 1,
                MoveKind::EnPassant { .. } => kinds[1] += 1,
                MoveKind::Promotion(_) => kinds[2] += 1,
                MoveKind::DoubleStep => kinds[3] += 1,
                MoveKind::Normal => {}
            }
        }
        fast
    }

    fn check(pos: &Position, what: &str) {
        let colors = [pos.turn(), pos.turn().opponent()];
        for colors in [&colors[..1], &colors[..]] {
            let mut fast = Vec::new();
            if !fast_legal_moves(
                pos.board(),
                pos.context(),
                colors,
                Scope::AllSorted,
                &mut fast,
            ) {
                continue;
            }
            let mut slow = Vec::new();
            let mut scratch = pos.board().clone();
            mailbox_legal_moves(
                &mut scratch,
                pos.context(),
                colors,
                Scope::AllSorted,
                &mut slow,
            );
            assert_eq!(fast, slow, "{what}: {colors:?}\n{}", pos.board_text());
        }
        let count = count_legal_moves(pos.board(), pos.context(), pos.turn());
        if let Some(n) = count {
            let mut slow = Vec::new();
            let mut scratch = pos.board().clone();
            mailbox_legal_moves(
                &mut scratch,
                pos.context(),
                &[pos.turn()],
                Scope::All,
                &mut slow,
            );
            assert_eq!(n, slow.len() as u64, "{what}: count\n{}", pos.board_text());
        }
    }

    #[test]
    fn set_path_lists_what_the_mailbox_path_lists() {
        let camel = MysteryShape::new(false, &[(1, 3)], 3).unwrap();
        let all_rules = [
            RuleSet::lab3(),
            RuleSet::standard(),
            RuleSet::cuhk(),
            RuleSet::jhu(),
            RuleSet {
                mystery: Some(camel),
                ..RuleSet::jhu()
            },
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut fast_positions = 0;
        // Moves seen by kind: castling, en passant, promotion, double step.
        let mut kinds = [0; 4];
        for game in 0..3000 {
            let rules = all_rules[game % all_rules.len()];
            let mut pos = random_position(&mut rng, rules);
            for ply in 0..12 {
                check(&pos, &format!("game {game} ({:?}) ply {ply}", rules.id));
                if tally_fast_moves(&pos, &mut kinds) {
                    fast_positions += 1;
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos.play(moves[rng.below(moves.len() as u64) as usize]);
            }
        }
        // Most positions must have gone through the set path at all.
        assert!(fast_positions > 10_000, "{fast_positions}");
        assert!(kinds.iter().all(|&n| n > 20), "{kinds:?}");
    }

    /// Every rule set, with Mystery pieces that do not move and (Lab 3 and
    /// JHU) with ones that do.
    fn every_rule_set() -> [RuleSet; 6] {
        let camel = MysteryShape::new(false, &[(1, 3)], 3).unwrap();
        let rider = MysteryShape::new(true, &[(1, 1), (0, 1)], 5).unwrap();
        [
            RuleSet::lab3(),
            RuleSet::standard(),
            RuleSet::cuhk(),
            RuleSet::jhu(),
            RuleSet {
                mystery: Some(camel),
                ..RuleSet::jhu()
            },
            RuleSet {
                mystery: Some(rider),
                ..RuleSet::lab3()
            },
        ]
    }

    /// The board's set index is what a fresh board with the same pieces
    /// would have: play and undo (which update the sets move by move, a
    /// carried piece's two squares at once) never let them drift from the
    /// mailbox.
    fn sets_follow_the_mailbox(pos: &Position, what: &str) {
        let board = pos.board();
        let mut fresh = super::Board::with_pieces(board.dims(), board.piece_table());
        for (sq, piece) in board.pieces() {
            fresh.set(sq, Some(piece));
        }
        assert_eq!(fresh.sets(), board.sets(), "{what}: set index");
    }

    /// Random play/undo sequences (up to four plies deep, each ply undone
    /// in turn) on random positions of every rule set (Lab 3 with its
    /// untouched flags and Mystery pieces, standard with castling rights
    /// and en passant, JHU, CUHK) and every kind of board (one-word and
    /// two-word sets up to 12x12, multi-word ones up to 512 squares, the
    /// mailbox past them) restore the exact position: board and sets,
    /// untouched flags, castling rights, en passant, turn and clocks, each
    /// compared with a clone taken before the move.
    #[test]
    fn random_play_undo_sequences_restore_the_position() {
        fn walk(rng: &mut Rng, pos: &mut Position, depth: u32, what: &str, kinds: &mut [u32; 5]) {
            sets_follow_the_mailbox(pos, what);
            if depth == 0 {
                return;
            }
            let moves = match pos.rules().validity_checks_turn {
                true => pos.legal_moves(),
                // Lab 3 plays either side's valid moves.
                false => pos.valid_moves(),
            };
            if moves.is_empty() {
                return;
            }
            // Each move carries what stands on its square of departure,
            // its squares' indices on this board, and gives back its squares
            // and kind (a move built again from them is the same word).
            let dims = pos.dims();
            for mv in &moves {
                assert_eq!(
                    pos.board().get(mv.from()),
                    Some(mv.piece()),
                    "{what}: {mv:?}"
                );
                let (from, to) = (mv.from(), mv.to());
                assert!(dims.contains(from) && dims.contains(to), "{what}: {mv:?}");
                assert_eq!(mv.indices(), (dims.index(from), dims.index(to)), "{what}");
                let again = Move::new(dims, mv.piece(), from, to, mv.kind());
                assert_eq!(again, *mv, "{what}: {mv:?}");
            }
            for _ in 0..2 {
                let mv = moves[rng.below(moves.len() as u64) as usize];
                kinds[match mv.kind() {
                    MoveKind::Castle { .. } => 0,
                    MoveKind::EnPassant { .. } => 1,
                    MoveKind::Promotion(_) => 2,
                    MoveKind::DoubleStep => 3,
                    MoveKind::Normal => 4,
                }] += 1;
                let before = pos.clone();
                let record = pos.play(mv);
                assert_ne!(*pos, before, "{what}: {mv:?} changed nothing");
                assert!(pos.rook_squares_follow_the_rights(), "{what}: {mv:?}");
                walk(rng, pos, depth - 1, what, kinds);
                pos.undo(record);
                assert_eq!(*pos, before, "{what}: undo {mv:?}");
            }
        }
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut kinds = [0u32; 5];
        for round in 0..3000 {
            for rules in every_rule_set() {
                let dims = match round % 5 {
                    0 | 1 => None,
                    2 | 3 if round % 15 < 5 => Some(wide_dims(&mut rng)),
                    2 | 3 => None,
                    _ if round % 25 == 4 => Some(Dims::new(24, 23).unwrap()),
                    _ => None,
                };
                let mut pos = match dims {
                    Some(dims) => random_wide_position(&mut rng, rules, dims),
                    None => random_position(&mut rng, rules),
                };
                let what = format!("round {round}, {:?} {:?}", rules.id, pos.dims());
                walk(&mut rng, &mut pos, 4, &what, &mut kinds);
            }
        }
        // Every kind of move was played and undone, many times.
        assert!(kinds.iter().all(|&n| n >= 50), "{kinds:?}");
    }

    /// A board of 129 to 512 squares: the multi-word sets. From a fixed
    /// menu, since the tables of these sizes are kept and their total is
    /// bounded (`WIDE_TABLE_BUDGET`): a test process must not run out.
    fn wide_dims(rng: &mut Rng) -> Dims {
        const SIZES: [(i64, i64); 14] = [
            (16, 16),
            (12, 11),
            (13, 15),
            (11, 23),
            // Long thin boards: lines across every word, or within one.
            (1, 256),
            (200, 1),
            (3, 60),
            (17, 17),
            (20, 20),
            (22, 23),
            (16, 32),
            (2, 256),
            (150, 3),
            (5, 100),
        ];
        let (rows, cols) = SIZES[rng.below(SIZES.len() as u64) as usize];
        Dims::new(rows, cols).unwrap()
    }

    /// A random position of `dims` where, three times in four, each side
    /// keeps one king at most (the others become rooks; the one kept is on
    /// the home row if one is, for castling): on big boards the random
    /// placement gives several, which the set path declines. Half the time
    /// the board is thinned out (but kings and corners), so that lines run
    /// long and castling paths are clear.
    fn random_wide_position(rng: &mut Rng, rules: RuleSet, dims: Dims) -> Position {
        let mut pos = random_position_on(rng, rules, dims);
        if rng.below(4) != 0 {
            for color in [Color::Black, Color::White] {
                let kings = pos.board().kings(color);
                let home = super::super::home_row(color, dims);
                let keep = kings
                    .iter()
                    .find(|k| k.row() == home)
                    .or(kings.first())
                    .copied();
                for &sq in kings.iter().filter(|&&k| Some(k) != keep) {
                    pos.place(sq, Piece::new(color, Role::Rook));
                }
            }
        }
        if rng.below(2) == 0 {
            let pieces: Vec<_> = pos.board().pieces().collect();
            let corner = |sq: Square| {
                [0, dims.rows() - 1].contains(&sq.row()) && [0, dims.cols() - 1].contains(&sq.col())
            };
            for (sq, piece) in pieces {
                let kept = piece.role == Role::King || corner(sq);
                if !kept && rng.below(4) != 0 {
                    pos.board_mut_for_tests().set(sq, None);
                }
            }
        }
        pos
    }

    /// Square by square, the set generator's attack test (which judges its
    /// king safety) against the mailbox's `is_attacked` (which answers
    /// Lab 3's isPieceUnderThreat), for both colours; `false` where the
    /// set path does not model the attackers (pieces that move by the table).
    fn attacks_agree(pos: &Position, what: &str) -> bool {
        fn on<S: SquareSet>(pos: &Position, sets: &Sets<S>, what: &str) {
            let dims = pos.dims();
            for color in [Color::Black, Color::White] {
                let ctx = pos.context();
                let side = Side::new(sets, &ctx, color);
                for i in 0..dims.len() {
                    let sq = dims.square_of_index(i);
                    let mailbox =
                        super::super::attacks::is_attacked(pos.board(), sq, color.opponent());
                    assert_eq!(
                        side.attackers(i).any(),
                        mailbox,
                        "{what}: attackers of {sq:?} by {:?}\n{}",
                        color.opponent(),
                        pos.board_text()
                    );
                    assert_eq!(
                        side.attacked(i, side.occupied, side.them),
                        mailbox,
                        "{what}: {sq:?}"
                    );
                }
            }
        }
        let board = pos.board();
        if board.has_table_movers() {
            return false;
        }
        match board.sets() {
            SetIndex::Words256(sets) => on(pos, sets, what),
            SetIndex::Words512(sets) => on(pos, sets, what),
            other => panic!("{what}: not a multi-word board: {other:?}"),
        }
        true
    }

    #[test]
    fn wide_boards_list_what_the_mailbox_lists() {
        let rules = every_rule_set();
        let mut rng = Rng(0x5851_f42d_4c95_7f2d);
        let (mut fast_positions, mut attack_checks, mut positions) = (0, 0, 0);
        let mut kinds = [0; 4];
        for game in 0..480 {
            // `standard` every other game: the only rules that castle on
            // any board and take en passant.
            let rules = match game % 2 {
                0 => RuleSet::standard(),
                _ => rules[game / 2 % rules.len()],
            };
            let dims = wide_dims(&mut rng);
            let mut pos = random_wide_position(&mut rng, rules, dims);
            for ply in 0..8 {
                let what = format!("game {game} ({:?}, {dims:?}) ply {ply}", rules.id);
                check(&pos, &what);
                attack_checks += attacks_agree(&pos, &what) as u32;
                positions += 1;
                if tally_fast_moves(&pos, &mut kinds) {
                    fast_positions += 1;
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos.play(moves[rng.below(moves.len() as u64) as usize]);
            }
        }
        // Most positions must have gone through the set path at all, with
        // every special move seen.
        assert!(
            fast_positions * 2 > positions,
            "{fast_positions} of {positions}"
        );
        assert!(
            attack_checks * 2 > positions,
            "{attack_checks} of {positions}"
        );
        assert!(kinds.iter().all(|&n| n > 10), "{kinds:?}");
    }

    /// Perft 2 (and 3 on sparser boards) by the set path, bulk counting
    /// included, against the same perft forced onto the mailbox.
    #[test]
    fn wide_boards_perft_as_the_mailbox_does() {
        let rules = every_rule_set();
        let mut rng = Rng(0x2f6b_7a3c_91d4_e805);
        let mut fast = 0;
        for game in 0..60 {
            let rules = rules[game % rules.len()];
            let dims = wide_dims(&mut rng);
            let pos = random_wide_position(&mut rng, rules, dims);
            let depth = if pos.board().pieces().count() < 40 {
                3
            } else {
                2
            };
            let mailbox = pos.mailbox_only();
            assert!(matches!(mailbox.board().sets(), SetIndex::Mailbox));
            let what = format!(
                "game {game} ({:?}, {dims:?})\n{}",
                rules.id,
                pos.board_text()
            );
            assert_eq!(
                pos.perft(depth),
                mailbox.perft(depth),
                "{what}: perft({depth})"
            );
            let mut out = Vec::new();
            fast += fast_legal_moves(
                pos.board(),
                pos.context(),
                &[pos.turn()],
                Scope::All,
                &mut out,
            ) as u32;
        }
        assert!(fast > 20, "{fast} of 60 positions on the set path");
    }

    #[test]
    fn boards_past_512_squares_keep_the_mailbox() {
        for (rows, cols) in [(23, 23), (3, 171), (256, 256)] {
            let pos = Position::new(RuleSet::standard(), Dims::new(rows, cols).unwrap());
            let mut out = Vec::new();
            assert!(!fast_legal_moves(
                pos.board(),
                pos.context(),
                &[Color::White],
                Scope::All,
                &mut out
            ));
        }
        let pos = Position::new(RuleSet::standard(), Dims::new(22, 23).unwrap());
        assert!(fast_legal_moves(
            pos.board(),
            pos.context(),
            &[Color::White],
            Scope::All,
            &mut Vec::new()
        ));
    }
}
