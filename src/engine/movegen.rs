//! Move generation: the moves of one piece by shape (pseudo-legal), plus the
//! special moves a rule set enables, then the king-safety filter.
//!
//! Legality is judged once per side by looking outwards from each of its
//! kings ([`KingView`]): which enemy pieces give check, which own pieces are
//! pinned. A move of one piece is then judged without touching the board
//! (a king move asks "is the target attacked once the king has left?"); the
//! rare moves that change two lines at once (en passant, castling) are made
//! and unmade on the board and every king looked at. A side with several
//! kings (Lab 3 allows it) must keep each of them safe.

use super::attacks::{attacked_ignoring, attacking_pawns, is_attacked, rays, shape};
use super::bitmoves;
use super::board::Board;
use super::position::{CastleSide, CastlingRights, home_row};
use super::rules::{Castling, RuleSet};
use super::untouched::Untouched;
use crate::domain::{Color, Dims, Piece, Role, Square};

/// What a move does besides carrying one piece from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// Moves one piece, capturing whatever stands on the target.
    Normal,
    /// A pawn advances two squares (and may then be taken en passant).
    DoubleStep,
    /// A pawn takes the pawn on `captured` (beside it) that has just made a
    /// double step, landing on the square that pawn crossed.
    EnPassant { captured: Square },
    /// A pawn reaches the last row (capturing whatever stands there) and
    /// becomes a piece of this role.
    Promotion(Role),
    /// The king moves to `to` and the rook jumps from `rook_from` to `rook_to`.
    Castle { rook_from: Square, rook_to: Square },
}

/// A move of the position it was generated in: it also carries the piece
/// that moves ([`Move::piece`]), so that [`super::Position::play`] reads no
/// board cell to know what to lift (reading it from the mailbox cell that
/// the previous sibling's undo had just written was a tenth of an
/// every-leaf perft's samples), and, on boards of at most 64 squares, the
/// row-major indices of its squares, which the generator knows and play
/// would otherwise work out with two multiplications. Only the engine
/// builds moves. (Carrying the captured piece too was measured and
/// dropped: looking it up for every move generated cost more than play's
/// one read of the target cell.)
///
/// `repr(C)` puts `from` and `to` in the first eight bytes. A move is
/// passed to [`super::Position::play`] in memory, copied there by the
/// caller with a 16-byte and a narrower store; in the compiler's own
/// layout `from` and `to` came last, and play's one 8-byte load of them
/// straddled the two stores, which the CPU cannot forward: a stall on every
/// move played (a quarter of `play`'s samples under `perf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Move {
    pub from: Square,
    pub to: Square,
    pub kind: MoveKind,
    /// What stands on `from` (the pawn, for a promotion; the king, for
    /// castling).
    piece: Piece,
    /// The row-major indices of `from` (low byte) and `to` (high byte) on
    /// a board of at most 64 squares, so that play's short path (which
    /// only such boards take) does not work them out from the rows and
    /// columns (two multiplications and the board's width on every move
    /// played); 0 on larger boards, whose moves go the general way.
    indices: u32,
}

impl Move {
    /// The move of `piece` from `from` to `to` on a board of `dims`.
    pub(super) fn new(dims: Dims, piece: Piece, from: Square, to: Square, kind: MoveKind) -> Move {
        // Larger boards do not use the indices: no multiplications there.
        let (i, j) = match dims.len() <= 64 {
            true => (dims.index(from), dims.index(to)),
            false => (0, 0),
        };
        Move::at(piece, (from, i), (to, j), kind)
    }

    /// [`Move::new`] from squares whose row-major indices the caller knows
    /// (`i`, `j`: 0 on a board of over 64 squares).
    #[inline(always)]
    pub(super) fn at(
        piece: Piece,
        (from, i): (Square, usize),
        (to, j): (Square, usize),
        kind: MoveKind,
    ) -> Move {
        debug_assert!(i < 64 && j < 64);
        let indices = (i | j << 8) as u32;
        Move {
            from,
            to,
            kind,
            piece,
            indices,
        }
    }

    /// The row-major indices of from and to, on a board of at most 64
    /// squares (0 and 0 on larger ones).
    #[inline(always)]
    pub(super) fn indices(self) -> (usize, usize) {
        let i = self.indices as usize;
        (i & 0xff, i >> 8)
    }

    /// The piece that moves (the pawn, for a promotion; the king, for
    /// castling), as it stood on `from` when the move was generated.
    pub fn piece(self) -> Piece {
        self.piece
    }

    pub fn promotion(self) -> Option<Role> {
        match self.kind {
            MoveKind::Promotion(role) => Some(role),
            _ => None,
        }
    }

    /// UCI-style text: files `a`, `b`, ... from column 0, ranks counted from
    /// the bottom row (rank 1 = the last row), then the promotion letter:
    /// `e2e4`, `e7e8q`, `a10a11`. Castling is the king's move (`e1g1`) when
    /// the king moves two files, and king-takes-rook (`b1a1`) otherwise, so
    /// that it never reads like another king move. Files past `z` continue
    /// `aa`, `ab`, ...
    pub fn uci(self, dims: Dims) -> String {
        let to = match self.kind {
            MoveKind::Castle { rook_from, .. } if self.from.col().abs_diff(self.to.col()) != 2 => {
                rook_from
            }
            _ => self.to,
        };
        let mut s = square_name(dims, self.from);
        s.push_str(&square_name(dims, to));
        if let Some(role) = self.promotion() {
            s.push(role.letter());
        }
        s
    }
}

/// The name of a file: `a`..`z`, then `aa`, `ab`, ... (bijective base 26).
pub fn file_name(col: u16) -> String {
    let mut n = col as u32 + 1;
    let mut letters = Vec::new();
    while n > 0 {
        n -= 1;
        letters.push((b'a' + (n % 26) as u8) as char);
        n /= 26;
    }
    letters.iter().rev().collect()
}

/// A square as in FEN and UCI: file letters then the rank counted from the
/// bottom (`a1` is the bottom-left square, row `rows - 1`, column 0).
pub fn square_name(dims: Dims, sq: Square) -> String {
    format!("{}{}", file_name(sq.col()), dims.rows() - sq.row())
}

/// Inverse of [`square_name`]: `None` unless `text` is exactly a square of `dims`.
pub fn parse_square(dims: Dims, text: &str) -> Option<Square> {
    let split = text.find(|c: char| !c.is_ascii_lowercase())?;
    let (file, rank) = text.split_at(split);
    if file.is_empty() || file.len() > 3 || rank.starts_with('0') {
        return None;
    }
    let col = file
        .bytes()
        .fold(0i64, |n, b| n * 26 + (b - b'a') as i64 + 1)
        - 1;
    if rank.is_empty() || rank.len() > 4 || !rank.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rank: i64 = rank.parse().ok()?;
    dims.square_at(dims.rows() as i64 - rank, col)
}

/// Plays `mv` on `board` without any legality check; returns what it captured.
#[inline]
pub(super) fn make(board: &mut Board, mv: Move) -> Option<Piece> {
    let dims = board.dims();
    make_at(board, mv, dims.index(mv.from), dims.index(mv.to))
}

/// [`make`], given the indices of `mv.from` and `mv.to`.
#[inline(always)]
pub(super) fn make_at(board: &mut Board, mv: Move, from: usize, to: usize) -> Option<Piece> {
    board.make_at(mv, from, to)
}

/// Takes back `mv` played by [`make`], which captured `captured`.
#[inline]
pub(super) fn unmake(board: &mut Board, mv: Move, captured: Option<Piece>) {
    let dims = board.dims();
    unmake_at(board, mv, captured, dims.index(mv.from), dims.index(mv.to));
}

/// [`unmake`], given the indices of `mv.from` and `mv.to`.
#[inline(always)]
pub(super) fn unmake_at(
    board: &mut Board,
    mv: Move,
    captured: Option<Piece>,
    from: usize,
    to: usize,
) {
    board.unmake_at(mv, captured, from, to);
}

/// What move generation reads besides the board.
#[derive(Clone, Copy)]
pub(super) struct Context<'a> {
    pub rules: &'a RuleSet,
    pub en_passant: Option<Square>,
    pub castling: &'a CastlingRights,
    /// Lab 3's "has not moved since the setup", per square (row-major).
    pub untouched: Untouched<'a>,
}

/// Which moves [`legal_moves`] looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scope {
    /// Every piece, in board order.
    All,
    /// Every piece, sorted by (from, to) row-major (promotions in the
    /// rules' order of roles).
    AllSorted,
    /// The moves of the piece on the first square to the second.
    FromTo(Square, Square),
}

/// The legal moves of the pieces of `colors` within `scope`, appended to
/// `out`. `board` is used as a scratch pad and restored. Whole-board scopes
/// go to the set-based generator where it applies ([`fast_legal_moves`]).
pub(super) fn legal_moves(
    board: &mut Board,
    ctx: Context,
    colors: &[Color],
    scope: Scope,
    out: &mut Vec<Move>,
) {
    if !fast_legal_moves(board, ctx, colors, scope, out) {
        mailbox_legal_moves(board, ctx, colors, scope, out);
    }
}

/// [`legal_moves`] by the set-based generator ([`bitmoves`]), which needs
/// no scratch board; `false`, with nothing appended, where it declines
/// (boards over 512 squares, a side with several kings, moving Mystery
/// pieces, a single piece's moves). Sorting by (from, to) is stable, so
/// promotions stay in the rules' order and a castling after the king's
/// plain move to the same square, as the mailbox path lists them.
pub(super) fn fast_legal_moves(
    board: &Board,
    ctx: Context,
    colors: &[Color],
    scope: Scope,
    out: &mut Vec<Move>,
) -> bool {
    if matches!(scope, Scope::FromTo(..)) {
        return false;
    }
    let start = out.len();
    if !bitmoves::generate(board, &ctx, colors, &mut bitmoves::Collect(out)) {
        return false;
    }
    if scope == Scope::AllSorted {
        out[start..].sort_by_key(|mv| (mv.from, mv.to));
    }
    true
}

/// How many legal moves `color` has, counted without being listed, where
/// the set-based generator applies.
pub(super) fn count_legal_moves(board: &Board, ctx: Context, color: Color) -> Option<u64> {
    let mut count = bitmoves::Count::default();
    bitmoves::generate(board, &ctx, &[color], &mut count).then(|| count.total())
}

/// [`legal_moves`] by the mailbox: every piece's moves by shape, then the
/// king-safety filter. Serves every board and rule set.
pub(super) fn mailbox_legal_moves(
    board: &mut Board,
    ctx: Context,
    colors: &[Color],
    scope: Scope,
    out: &mut Vec<Move>,
) {
    // Each side's king safety is looked at once, when first needed.
    let mut safeties: [Option<Safety>; 2] = [None, None];
    let mut moves_of = |board: &mut Board, from: Square, piece: Piece, out: &mut Vec<Move>| {
        if !colors.contains(&piece.color) {
            return;
        }
        let start = out.len();
        pseudo_moves(board, ctx, from, piece, out);
        if let Scope::FromTo(_, to) = scope {
            retain_from(out, start, |mv| mv.to == to);
        }
        if out.len() == start {
            return;
        }
        let safety = safeties[piece.color as usize]
            .get_or_insert_with(|| Safety::of(board, piece.color, ctx.rules));
        if !matches!(safety, Safety::Unchecked) {
            retain_from(out, start, |mv| safety.allows(board, *mv, piece.color));
        }
        if scope == Scope::AllSorted {
            out[start..].sort_by_key(|mv| mv.to);
        }
    };
    match scope {
        Scope::FromTo(from, _) => {
            if let Some(piece) = board.get(from) {
                moves_of(board, from, piece, out);
            }
        }
        Scope::All | Scope::AllSorted => {
            let dims = board.dims();
            let mut index = 0;
            for row in 0..dims.rows() {
                for col in 0..dims.cols() {
                    if let Some(piece) = board.cells()[index] {
                        moves_of(board, dims.at(row, col), piece, out);
                    }
                    index += 1;
                }
            }
        }
    }
}

/// Keeps the moves of `out[start..]` that pass `keep`, in order.
fn retain_from(out: &mut Vec<Move>, start: usize, mut keep: impl FnMut(&Move) -> bool) {
    let mut kept = start;
    for i in start..out.len() {
        if keep(&out[i]) {
            out[kept] = out[i];
            kept += 1;
        }
    }
    out.truncate(kept);
}

/// Every pseudo-legal move of `piece` on `from`: right shape, on the board,
/// not onto an own piece, path clear, plus the special moves the rules allow.
fn pseudo_moves(board: &Board, ctx: Context, from: Square, piece: Piece, out: &mut Vec<Move>) {
    let dims = board.dims();
    let (vectors, slides) = match (shape(piece.role), piece.role, board.mystery()) {
        (Some(shape), _, _) => (shape.vectors, shape.slides),
        (None, Role::Pawn, _) => return pawn_moves(board, ctx, from, piece.color, out),
        (None, _, Some(mystery)) => (mystery.vectors(), mystery.slides),
        (None, _, None) => return,
    };
    let blocked_leap = |dr: i32, dc: i32| {
        let mystery = board.mystery().filter(|_| piece.role == Role::Mystery)?;
        let ((sr, sc), steps) = mystery.blocked_leap(dr, dc)?;
        Some((1..steps).any(|k| {
            dims.offset(from, sr * k, sc * k)
                .is_some_and(|sq| board.get(sq).is_some())
        }))
    };
    for &(dr, dc) in vectors {
        if blocked_leap(dr, dc) == Some(true) {
            continue;
        }
        let mut at = from;
        while let Some(to) = dims.offset(at, dr, dc) {
            let target = board.get(to);
            if target.is_none_or(|p| p.color != piece.color) {
                out.push(Move::new(dims, piece, from, to, MoveKind::Normal));
            }
            if !slides || target.is_some() {
                break;
            }
            at = to;
        }
    }
    if piece.role == Role::King {
        castling_moves(board, ctx, from, piece.color, out);
    }
}

fn pawn_moves(board: &Board, ctx: Context, from: Square, color: Color, out: &mut Vec<Move>) {
    let dims = board.dims();
    let rules = ctx.rules;
    let last_row = match color {
        Color::Black => dims.rows() - 1,
        Color::White => 0,
    };
    let pawn = Piece::new(color, Role::Pawn);
    let push = |out: &mut Vec<Move>, to: Square| {
        if to.row() == last_row && !rules.promotion.is_empty() {
            out.extend(
                rules
                    .promotion
                    .iter()
                    .map(|role| Move::new(dims, pawn, from, to, MoveKind::Promotion(role))),
            );
        } else {
            out.push(Move::new(dims, pawn, from, to, MoveKind::Normal));
        }
    };
    if let Some(one) = dims
        .offset(from, color.forward(), 0)
        .filter(|&s| board.get(s).is_none())
    {
        push(out, one);
        let two = dims
            .offset(one, color.forward(), 0)
            .filter(|&s| board.get(s).is_none())
            // With promotion on, a double step may not skip it.
            .filter(|s| s.row() != last_row || rules.promotion.is_empty());
        if let Some(two) = two.filter(|_| rules.pawn_double_step && on_start_row(dims, color, from))
        {
            out.push(Move::new(dims, pawn, from, two, MoveKind::DoubleStep));
        }
    }
    for dc in [-1, 1] {
        let Some(to) = dims.offset(from, color.forward(), dc) else {
            continue;
        };
        match board.get(to) {
            Some(p) if p.color != color => push(out, to),
            Some(_) => {}
            None if rules.en_passant && ctx.en_passant == Some(to) => {
                // The pawn that crossed `to` stands one row further on.
                let captured = board.dims().at(from.row(), to.col());
                if board.get(captured) == Some(Piece::new(color.opponent(), Role::Pawn)) {
                    out.push(Move::new(
                        dims,
                        pawn,
                        from,
                        to,
                        MoveKind::EnPassant { captured },
                    ));
                }
            }
            None => {}
        }
    }
}

/// Is `sq` the row a pawn of `color` may double-step from: row 1 for
/// Black, the second-to-last row for White?
pub(super) fn on_start_row(dims: Dims, color: Color, sq: Square) -> bool {
    match color {
        Color::Black => sq.row() == 1,
        Color::White => sq.row() as i64 == dims.rows() as i64 - 2,
    }
}

/// The column of the rook a king on its home row may castle with on
/// `side`, by the rule set's flavour (Lab 3: 8x8 home squares, both pieces
/// untouched since the setup; standard: the castling rights), on that
/// side of the king; `None` when it may not. Whether a rook stands there
/// and the path is clear is the caller's business. Shared by the mailbox
/// and the square-set generators, so both castle by one rule.
#[inline]
pub(super) fn castling_rook_col(
    ctx: Context,
    dims: Dims,
    king: Square,
    color: Color,
    side: CastleSide,
) -> Option<u16> {
    let untouched = |col: u16| ctx.untouched.get(dims.index(dims.at(king.row(), col)));
    let rook_col = match ctx.rules.castling {
        Castling::None => None,
        Castling::HomeSquares8x8 => {
            let home_squares = (dims.rows(), dims.cols()) == (8, 8) && king.col() == 4;
            let corner = match side {
                CastleSide::King => 7,
                CastleSide::Queen => 0,
            };
            (home_squares && untouched(king.col()) && untouched(corner)).then_some(corner)
        }
        Castling::Rights => ctx.castling.rook_col(color, side),
    }?;
    on_its_side(king, rook_col, side).then_some(rook_col)
}

/// Does the rook of column `rook_col` stand on `side` of `king` (towards
/// the last column for the king side)? Part of [`castling_rook_col`], which
/// the square-set generator's castling by rights takes apart.
#[inline(always)]
pub(super) fn on_its_side(king: Square, rook_col: u16, side: CastleSide) -> bool {
    match side {
        CastleSide::King => rook_col > king.col(),
        CastleSide::Queen => rook_col < king.col(),
    }
}

/// Castling by the rule set's flavour. The king's safety on its landing
/// square is left to the common legality filter, which sees the rook moved.
fn castling_moves(board: &Board, ctx: Context, king: Square, color: Color, out: &mut Vec<Move>) {
    let dims = board.dims();
    let home = home_row(color, dims);
    if king.row() != home {
        return;
    }
    let at = |col: u16| dims.at(home, col);
    for side in [CastleSide::King, CastleSide::Queen] {
        let Some(rook_col) = castling_rook_col(ctx, dims, king, color, side) else {
            continue;
        };
        let rook = at(rook_col);
        if board.get(rook) != Some(Piece::new(color, Role::Rook)) {
            continue;
        }
        let Some((king_to, rook_to)) = side.landing(dims.cols()) else {
            continue;
        };
        let span = |a: u16, b: u16| a.min(b)..=a.max(b);
        let path_clear = span(king.col(), king_to)
            .chain(span(rook_col, rook_to))
            .all(|c| c == king.col() || c == rook_col || board.get(at(c)).is_none());
        // Not out of check nor through an attacked square (the king gone
        // from its start, so that it does not shield the squares beyond it).
        // The start counts even when the king stays there (Chess960-like
        // setups): the rook landing beside it may not block a check.
        let safe_passage = span(king.col(), king_to)
            .filter(|&c| c != king_to || c == king.col())
            .all(|c| !attacked_ignoring(board, at(c), color.opponent(), Some(king)));
        if path_clear && safe_passage {
            let kind = MoveKind::Castle {
                rook_from: rook,
                rook_to: at(rook_to),
            };
            out.push(Move::new(
                dims,
                Piece::new(color, Role::King),
                king,
                at(king_to),
                kind,
            ));
        }
    }
}

/// How the moves of one side are judged for king safety.
enum Safety {
    /// No king safety in these rules, or no king to keep safe.
    Unchecked,
    /// One king: checks and pins seen from it.
    OneKing(KingView),
    /// Several kings (Lab 3 allows them): a move must suit every king's view.
    Kings(Vec<KingView>),
    /// The enemy has a Mystery piece, whose checks and pins the king views
    /// do not see: every move is made and the kings (these squares) looked at.
    ByPlaying(Vec<Square>),
}

/// A pinned piece and the step from the king towards it (and its pinner).
type Pin = (Square, (i32, i32));

/// What one king sees: the pieces giving it check, and the own pieces
/// pinned to it.
struct KingView {
    king: Square,
    checkers: usize,
    /// The (last found) checker, the step from the king towards it and how
    /// many steps away it stands: a move stops a single check by landing on
    /// the checker or strictly between it and the king.
    check: Option<(Square, (i32, i32), i32)>,
    pins: [Pin; 8],
    pin_count: usize,
}

impl Safety {
    fn of(board: &Board, color: Color, rules: &RuleSet) -> Safety {
        if !rules.king_safety {
            return Safety::Unchecked;
        }
        let enemy_mystery = Piece::new(color.opponent(), Role::Mystery);
        if board.mystery().is_some() && board.cells().contains(&Some(enemy_mystery)) {
            let king = Piece::new(color, Role::King);
            let kings: Vec<Square> = board
                .pieces()
                .filter(|&(_, p)| p == king)
                .map(|(sq, _)| sq)
                .collect();
            return match kings.is_empty() {
                true => Safety::Unchecked,
                false => Safety::ByPlaying(kings),
            };
        }
        let mut kings = board
            .pieces()
            .filter(|&(_, p)| p == Piece::new(color, Role::King))
            .map(|(king, _)| KingView::new(board, king, color));
        match (kings.next(), kings.next()) {
            (None, _) => Safety::Unchecked,
            (Some(view), None) => Safety::OneKing(view),
            (Some(a), Some(b)) => Safety::Kings([a, b].into_iter().chain(kings).collect()),
        }
    }

    /// Does `mv` (pseudo-legal, by `color`) leave `color`'s kings safe?
    fn allows(&self, board: &mut Board, mv: Move, color: Color) -> bool {
        let views = match self {
            Safety::Unchecked => return true,
            Safety::OneKing(view) => std::slice::from_ref(view),
            Safety::Kings(views) => views.as_slice(),
            Safety::ByPlaying(kings) => return kings_safe_after(board, mv, color, kings),
        };
        match mv.kind {
            // Moves that change two lines at once: see what happens.
            MoveKind::Castle { .. } | MoveKind::EnPassant { .. } => {
                let kings: Vec<Square> = views.iter().map(|v| v.king).collect();
                kings_safe_after(board, mv, color, &kings)
            }
            _ => views.iter().all(|view| view.allows(board, mv, color)),
        }
    }
}

/// Plays `mv`, looks whether every king of `color` (squares before the move)
/// is safe, and takes the move back.
fn kings_safe_after(board: &mut Board, mv: Move, color: Color, kings: &[Square]) -> bool {
    let captured = make(board, mv);
    let safe = kings
        .iter()
        .map(|&k| if k == mv.from { mv.to } else { k })
        .all(|k| !is_attacked(board, k, color.opponent()));
    unmake(board, mv, captured);
    safe
}

impl KingView {
    fn new(board: &Board, king: Square, color: Color) -> KingView {
        let dims = board.dims();
        let enemy = color.opponent();
        let mut view = KingView {
            king,
            checkers: 0,
            check: None,
            pins: [(king, (0, 0)); 8],
            pin_count: 0,
        };
        for from in attacking_pawns(board, king, enemy) {
            view.checkers += 1;
            view.check = Some((from, (0, 0), 1));
        }
        for ray in rays() {
            // Walk backwards along the vector: the way an attacker comes.
            let step = (-ray.vector.0, -ray.vector.1);
            let mut at = king;
            let mut steps = 0;
            let mut shield: Option<Square> = None;
            while let Some(next) = dims.offset(at, step.0, step.1) {
                steps += 1;
                at = next;
                let Some(p) = board.get(next) else {
                    if ray.slides() {
                        continue;
                    }
                    break;
                };
                match shield {
                    None if p.color == enemy => {
                        if ray.reaches(p.role, steps) {
                            view.checkers += 1;
                            view.check = Some((next, step, steps as i32));
                        }
                        break;
                    }
                    None if ray.slides() => shield = Some(next),
                    None => break,
                    Some(own) => {
                        if p.color == enemy && ray.reaches(p.role, 2) {
                            view.pins[view.pin_count] = (own, step);
                            view.pin_count += 1;
                        }
                        break;
                    }
                }
            }
        }
        view
    }

    /// Does `mv`, which moves one piece (no castling, no en passant),
    /// leave this king unattacked?
    fn allows(&self, board: &Board, mv: Move, color: Color) -> bool {
        if mv.from == self.king {
            return !attacked_ignoring(board, mv.to, color.opponent(), Some(self.king));
        }
        if self.checkers > 1 {
            return false;
        }
        let pins = &self.pins[..self.pin_count];
        if let Some(&(_, step)) = pins.iter().find(|(sq, _)| *sq == mv.from)
            && steps_to(self.king, step, mv.to).is_none()
        {
            return false;
        }
        match self.check {
            Some((checker, step, dist)) if self.checkers == 1 => {
                mv.to == checker || steps_to(self.king, step, mv.to).is_some_and(|t| t < dist)
            }
            _ => true,
        }
    }
}

/// How many `step`s lead from `from` to `to`, if `to` lies on that ray.
fn steps_to(from: Square, step: (i32, i32), to: Square) -> Option<i32> {
    let dr = to.row() as i32 - from.row() as i32;
    let dc = to.col() as i32 - from.col() as i32;
    let t = if step.0 != 0 {
        dr / step.0
    } else if step.1 != 0 {
        dc / step.1
    } else {
        return None;
    };
    (t >= 1 && dr == t * step.0 && dc == t * step.1).then_some(t)
}
