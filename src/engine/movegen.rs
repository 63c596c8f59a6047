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

/// [`MoveKind`] by the squares' indices, as the engine's general path
/// reads it ([`Move::kind_at`]: no division to find a square).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KindAt {
    /// A normal move or a double step: one piece carried.
    Carry,
    EnPassant {
        captured: usize,
    },
    Promotion(Role),
    Castle {
        rook_from: usize,
        rook_to: usize,
    },
}

/// A move of the position it was generated in, packed in one `u64` that
/// the generator builds in a register and writes with one store: a move of
/// separate fields was 24 bytes written with six stores, which made about
/// half of the memory accesses an every-leaf perft made beyond shakmaty's
/// (whose moves are five bytes); the word made that perft 8-13% faster
/// (`docs/perft.md`, "Seventh round"). Read it through [`Move::from`],
/// [`Move::to`], [`Move::kind`], [`Move::piece`] and [`Move::indices`].
/// Only the engine builds moves.
///
/// The word holds, from the low bits:
///
/// | bits | what |
/// |---|---|
/// | 0–15 | row-major index of `from` (boards are at most 256x256) |
/// | 16–31 | row-major index of `to` |
/// | 32–39 | the board's width less one (1 to 256 columns) |
/// | 40–47 | the piece that moves: colour (bit 0), role (bits 1–5) |
/// | 48–55 | the kind: normal, double step, en passant, promotion, castle |
/// | 56–63 | a promotion's role; an en-passant capture's column step; how far the castling rook stands from the king |
///
/// The squares are worked out from the indices and the width (a division:
/// only notation and the mailbox path ask), so play takes the indices as
/// they are. A kind's squares are the generators', kept as steps from the
/// move's indices (no division on the general path either): an
/// en-passant capture takes the pawn beside the taker (`from`'s row,
/// `to`'s column: one column step), and a castle's rook, which stands on
/// the king's row on the side it castles to, lands beside the king on the
/// side it came from ([`super::CastleSide::landing`]).
///
/// It also carries the piece that moves ([`Move::piece`]), so that
/// [`super::Position::play`] reads no board cell to know what to lift
/// (reading it from the mailbox cell that the previous sibling's undo had
/// just written was a tenth of an every-leaf perft's samples). (Carrying
/// the captured piece too was measured and dropped: looking it up for
/// every move generated cost more than play's one read of the target
/// cell.)
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(u64);

/// Bit offsets of [`Move`]'s fields.
const TO: u32 = 16;
const WIDTH: u32 = 32;
const PIECE: u32 = 40;
const KIND: u32 = 48;
const EXTRA: u32 = 56;

/// [`Move`]'s kind codes.
const NORMAL: u64 = 0;
const DOUBLE_STEP: u64 = 1;
const EN_PASSANT: u64 = 2;
const PROMOTION: u64 = 3;
/// A castle with the rook on the king's right (towards the last column: the
/// king side; the rook lands on the king's left), and on its left (the
/// queen side).
const CASTLE_KING: u64 = 4;
const CASTLE_QUEEN: u64 = 5;

/// A role from its discriminant (`role as u8`, masked to 5 bits; anything
/// past the last: the last).
#[inline(always)]
const fn role_of(code: u64) -> Role {
    let code = (code & 0x1f) as usize;
    if code < Role::ALL.len() {
        Role::ALL[code]
    } else {
        Role::ALL[Role::ALL.len() - 1]
    }
}

/// The pieces by their codes in a [`Move`] (colour in bit 0, role above;
/// the codes no piece has: the last role). A lookup rather than
/// arithmetic: the masks, compares and conditional moves of decoding the
/// code cost play 17 instructions a leaf more (start position, every leaf
/// played), and the role comes out in range for indexing the role sets.
const PIECES: [Piece; 64] = {
    let mut pieces = [Piece {
        color: Color::Black,
        role: Role::Mystery,
    }; 64];
    let mut code = 0;
    while code < 64 {
        let color = match code & 1 {
            0 => Color::Black,
            _ => Color::White,
        };
        pieces[code] = Piece {
            color,
            role: role_of(code as u64 >> 1),
        };
        code += 1;
    }
    pieces
};

impl Move {
    /// The move of `piece` from `from` to `to` on a board of `dims`.
    pub(super) fn new(dims: Dims, piece: Piece, from: Square, to: Square, kind: MoveKind) -> Move {
        Move::special(dims, piece, dims.index(from), dims.index(to), kind)
    }

    /// [`Move::new`] from the squares' indices, for any kind; checks (in
    /// debug builds) that the word gives back the kind's squares (see
    /// [`Move`]).
    #[inline(always)]
    pub(super) fn special(
        dims: Dims,
        piece: Piece,
        from: usize,
        to: usize,
        kind: MoveKind,
    ) -> Move {
        let (code, extra) = match kind {
            MoveKind::EnPassant { captured } => {
                let step = dims.index(captured) as i64 - from as i64;
                debug_assert!(i8::try_from(step).is_ok());
                (EN_PASSANT, step as i8 as u8 as u64)
            }
            MoveKind::Castle { rook_from, .. } => {
                let rook = dims.index(rook_from);
                match rook > from {
                    true => (CASTLE_KING, (rook - from) as u64),
                    false => (CASTLE_QUEEN, (from - rook) as u64),
                }
            }
            kind => return Move::template(dims, piece, kind).between(from, to),
        };
        debug_assert!(extra <= 0xff);
        let template = Move::template(dims, piece, MoveKind::Normal);
        let mv = Move(template.between(from, to).0 | code << KIND | extra << EXTRA);
        debug_assert_eq!(mv.kind(), kind, "{:?}", (mv.from(), mv.to()));
        mv
    }

    /// A move of `piece` of `kind` (not an en-passant capture nor a
    /// castle: [`Move::special`]) on a board of `dims`, from and to index
    /// 0: [`Move::between`] puts the squares in (the generator builds one
    /// template a piece and adds each target's index).
    #[inline(always)]
    pub(super) fn template(dims: Dims, piece: Piece, kind: MoveKind) -> Move {
        let (code, extra) = match kind {
            MoveKind::Normal => (NORMAL, 0),
            MoveKind::DoubleStep => (DOUBLE_STEP, 0),
            MoveKind::Promotion(role) => (PROMOTION, role as u64),
            MoveKind::EnPassant { .. } | MoveKind::Castle { .. } => {
                debug_assert!(false, "{kind:?} is built by Move::special");
                (NORMAL, 0)
            }
        };
        let piece = piece.color as u64 | (piece.role as u64) << 1;
        Move((dims.cols() as u64 - 1) << WIDTH | piece << PIECE | code << KIND | extra << EXTRA)
    }

    /// This template ([`Move::template`]) from index `from` to index `to`.
    #[inline(always)]
    pub(super) fn between(self, from: usize, to: usize) -> Move {
        self.with_from(from).with_to(to)
    }

    /// This template with `from` at index `from`.
    #[inline(always)]
    pub(super) fn with_from(self, from: usize) -> Move {
        debug_assert!(from <= 0xffff && self.0 & 0xffff == 0);
        Move(self.0 | from as u64)
    }

    /// This template with `to` at index `to`.
    #[inline(always)]
    pub(super) fn with_to(self, to: usize) -> Move {
        debug_assert!(to <= 0xffff && self.0 >> TO & 0xffff == 0);
        Move(self.0 | (to as u64) << TO)
    }

    /// The row-major indices of `from` and `to` (row times the board's
    /// width plus column), as the generator wrote them.
    #[inline(always)]
    pub fn indices(self) -> (usize, usize) {
        (self.0 as usize & 0xffff, (self.0 >> TO) as usize & 0xffff)
    }

    /// The width of the board the move was generated on.
    #[inline(always)]
    fn width(self) -> u32 {
        (self.0 >> WIDTH & 0xff) as u32 + 1
    }

    /// The square of row-major index `i` on this move's board.
    #[inline(always)]
    fn square(self, i: usize) -> Square {
        Square::of_index(i as u32, self.width())
    }

    /// The square the piece leaves.
    pub fn from(self) -> Square {
        self.square(self.indices().0)
    }

    /// The square the piece lands on (the king's, for castling).
    pub fn to(self) -> Square {
        self.square(self.indices().1)
    }

    /// The kind code (see [`Move`]).
    #[inline(always)]
    fn code(self) -> u64 {
        self.0 >> KIND & 0xff
    }

    /// A normal move or a double step: one piece carried, nothing else
    /// changed on the board (what play's short path takes).
    #[inline(always)]
    pub(super) fn is_carry(self) -> bool {
        self.code() <= DOUBLE_STEP
    }

    #[inline(always)]
    pub(super) fn is_double_step(self) -> bool {
        self.code() == DOUBLE_STEP
    }

    /// The index of the pawn an en-passant capture takes (of another
    /// move: nonsense).
    #[inline(always)]
    pub(super) fn captured_index(self) -> usize {
        let step = (self.0 >> EXTRA) as u8 as i8;
        self.indices().0.wrapping_add_signed(step as isize)
    }

    /// The indices a castle's rook leaves and lands on (of another move:
    /// nonsense).
    #[inline(always)]
    pub(super) fn rook_indices(self) -> (usize, usize) {
        let ((from, to), distance) = (self.indices(), (self.0 >> EXTRA) as usize);
        match self.code() {
            CASTLE_KING => (from + distance, to.wrapping_sub(1)),
            _ => (from.wrapping_sub(distance), to + 1),
        }
    }

    /// [`Move::kind`] by the squares' indices.
    #[inline(always)]
    pub(super) fn kind_at(self) -> KindAt {
        match self.code() {
            NORMAL | DOUBLE_STEP => KindAt::Carry,
            EN_PASSANT => KindAt::EnPassant {
                captured: self.captured_index(),
            },
            PROMOTION => KindAt::Promotion(role_of(self.0 >> EXTRA)),
            _ => {
                let (rook_from, rook_to) = self.rook_indices();
                KindAt::Castle { rook_from, rook_to }
            }
        }
    }

    /// What the move does besides carrying one piece from `from` to `to`.
    pub fn kind(self) -> MoveKind {
        match self.code() {
            NORMAL => MoveKind::Normal,
            DOUBLE_STEP => MoveKind::DoubleStep,
            EN_PASSANT => MoveKind::EnPassant {
                captured: self.square(self.captured_index()),
            },
            PROMOTION => MoveKind::Promotion(role_of(self.0 >> EXTRA)),
            _ => {
                let (rook_from, rook_to) = self.rook_indices();
                MoveKind::Castle {
                    rook_from: self.square(rook_from),
                    rook_to: self.square(rook_to),
                }
            }
        }
    }

    /// The piece that moves (the pawn, for a promotion; the king, for
    /// castling), as it stood on `from` when the move was generated.
    #[inline(always)]
    pub fn piece(self) -> Piece {
        PIECES[(self.0 >> PIECE) as usize & 0x3f]
    }

    pub fn promotion(self) -> Option<Role> {
        match self.code() {
            PROMOTION => Some(role_of(self.0 >> EXTRA)),
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
        let (from, to) = (self.from(), self.to());
        let to = match self.kind() {
            MoveKind::Castle { rook_from, .. } if from.col().abs_diff(to.col()) != 2 => rook_from,
            _ => to,
        };
        let mut s = square_name(dims, from);
        s.push_str(&square_name(dims, to));
        if let Some(role) = self.promotion() {
            s.push(role.letter());
        }
        s
    }
}

/// Readable fields, not the word.
impl std::fmt::Debug for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Move")
            .field("from", &self.from())
            .field("to", &self.to())
            .field("kind", &self.kind())
            .field("piece", &self.piece())
            .finish()
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
    let (from, to) = mv.indices();
    make_at(board, mv, from, to)
}

/// [`make`], given the indices of `mv.from()` and `mv.to()`.
#[inline(always)]
pub(super) fn make_at(board: &mut Board, mv: Move, from: usize, to: usize) -> Option<Piece> {
    board.make_at(mv, from, to)
}

/// Takes back `mv` played by [`make`], which captured `captured`.
#[inline]
pub(super) fn unmake(board: &mut Board, mv: Move, captured: Option<Piece>) {
    let (from, to) = mv.indices();
    unmake_at(board, mv, captured, from, to);
}

/// [`unmake`], given the indices of `mv.from()` and `mv.to()`.
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
        out[start..].sort_by_key(|mv| mv.indices());
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
            retain_from(out, start, |mv| mv.to() == to);
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
            out[start..].sort_by_key(|mv| mv.indices().1);
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
    if piece.role == Role::Pawn {
        return pawn_moves(board, ctx, from, piece.color, out);
    }
    let table = board.piece_table();
    if table.moves_by_table(piece.role) {
        table_moves(board, from, piece, out);
    } else if let Some(shape) = shape(piece.role) {
        for &(dr, dc) in shape.vectors {
            let mut at = from;
            while let Some(to) = dims.offset(at, dr, dc) {
                let target = board.get(to);
                if target.is_none_or(|p| p.color != piece.color) {
                    out.push(Move::new(dims, piece, from, to, MoveKind::Normal));
                }
                if !shape.slides || target.is_some() {
                    break;
                }
                at = to;
            }
        }
    }
    if piece.role == Role::King {
        castling_moves(board, ctx, from, piece.color, out);
    }
}

/// The moves of a piece that moves by the board's table: each leg walked
/// from `from` within its range, stopping at the first piece; an empty
/// square is a move where the leg moves, an enemy piece one where it
/// captures; a lame leap needs its path empty.
fn table_moves(board: &Board, from: Square, piece: Piece, out: &mut Vec<Move>) {
    let dims = board.dims();
    for leg in board.piece_table().legs(piece.role, piece.color) {
        let path_clear = || {
            leg.path().all(|(r, c)| {
                dims.offset(from, r, c)
                    .is_none_or(|sq| board.get(sq).is_none())
            })
        };
        if leg.lame && !path_clear() {
            continue;
        }
        let mut at = from;
        let mut steps = 0;
        while let Some(to) = dims.offset(at, leg.dr, leg.dc) {
            steps += 1;
            let target = board.get(to);
            let allowed = match target {
                None => leg.quiet,
                Some(p) => leg.capture && p.color != piece.color,
            };
            if allowed {
                out.push(Move::new(dims, piece, from, to, MoveKind::Normal));
            }
            if target.is_some() || steps == leg.range {
                break;
            }
            at = to;
        }
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
        let Some((king_to, rook_to)) = side.landing(dims.cols(), ctx.rules.castling_files) else {
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
    /// The enemy has a piece that moves by the table (a Mystery piece, a
    /// course's piece, a redefined chess piece), whose checks and pins the
    /// king views do not see: every move is made and the kings (these
    /// squares) looked at.
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
        let table = board.piece_table();
        let enemy = color.opponent();
        let by_table = |p: &Piece| p.color == enemy && table.moves_by_table(p.role);
        if table.any_by_table() && board.cells().iter().flatten().any(by_table) {
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
        match mv.kind() {
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
        .map(|&k| if k == mv.from() { mv.to() } else { k })
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
        let (from, to) = (mv.from(), mv.to());
        if from == self.king {
            return !attacked_ignoring(board, to, color.opponent(), Some(self.king));
        }
        if self.checkers > 1 {
            return false;
        }
        let pins = &self.pins[..self.pin_count];
        if let Some(&(_, step)) = pins.iter().find(|(sq, _)| *sq == from)
            && steps_to(self.king, step, to).is_none()
        {
            return false;
        }
        match self.check {
            Some((checker, step, dist)) if self.checkers == 1 => {
                to == checker || steps_to(self.king, step, to).is_some_and(|t| t < dist)
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

#[cfg(test)]
mod tests {
    use super::{Move, MoveKind};
    use crate::domain::{Color, Dims, Piece, Role, Square};

    /// The moves of every kind from `from` to near `to` on a board of
    /// `dims`, shaped as the generators shape them: an en-passant capture
    /// one column aside, taking the pawn beside the taker; a castle along
    /// `from`'s row, its rook in a corner on the side it castles to,
    /// landing beside the king on the other.
    fn every_kind(dims: Dims, from: Square, to: Square) -> Vec<(Square, Square, MoveKind)> {
        let (c, row) = (dims.cols() - 1, from.row());
        let mut moves = vec![
            (from, to, MoveKind::Normal),
            (from, to, MoveKind::DoubleStep),
        ];
        moves.extend(Role::ALL.map(|role| (from, to, MoveKind::Promotion(role))));
        let beside = [
            from.col().checked_sub(1),
            Some(from.col() + 1).filter(|&t| t <= c),
        ];
        for to_col in beside.into_iter().flatten() {
            let to = dims.at(to.row(), to_col);
            let captured = dims.at(row, to_col);
            moves.push((from, to, MoveKind::EnPassant { captured }));
        }
        let king_to = dims.at(row, to.col());
        if from.col() < c && to.col() >= 1 {
            let (rook_from, rook_to) = (dims.at(row, c), dims.at(row, to.col() - 1));
            moves.push((from, king_to, MoveKind::Castle { rook_from, rook_to }));
        }
        if from.col() > 0 && to.col() < c {
            let (rook_from, rook_to) = (dims.at(row, 0), dims.at(row, to.col() + 1));
            moves.push((from, king_to, MoveKind::Castle { rook_from, rook_to }));
        }
        moves
    }

    /// Every kind of move, on boards from 1x1 to 256x256 (square indices
    /// up to 65,535, widths 1 to 256), at the corners and the middle: the
    /// word gives back the squares, indices, kind and piece it was built
    /// from.
    #[test]
    fn a_move_word_gives_back_what_it_was_built_from() {
        let sides = [1, 2, 5, 7, 8, 12, 16, 31, 64, 100, 255, 256];
        for rows in sides {
            for cols in sides {
                let dims = Dims::new(rows, cols).unwrap();
                let (r, c) = (rows as u16 - 1, cols as u16 - 1);
                let corners = [(0, 0), (0, c), (r, 0), (r, c), (r / 2, c / 2)];
                for &(fr, fc) in &corners {
                    for &(tr, tc) in &corners {
                        let (from, to) = (dims.at(fr, fc), dims.at(tr, tc));
                        for (from, to, kind) in every_kind(dims, from, to) {
                            for color in [Color::Black, Color::White] {
                                for role in Role::ALL {
                                    let piece = Piece::new(color, role);
                                    let mv = Move::new(dims, piece, from, to, kind);
                                    let what = (dims, from, to, kind, piece);
                                    assert_eq!((mv.from(), mv.to()), (from, to), "{what:?}");
                                    let indices = (dims.index(from), dims.index(to));
                                    assert_eq!(mv.indices(), indices, "{what:?}");
                                    assert_eq!(mv.kind(), kind, "{what:?}");
                                    assert_eq!(mv.piece(), piece, "{what:?}");
                                    let carry =
                                        matches!(kind, MoveKind::Normal | MoveKind::DoubleStep);
                                    assert_eq!(mv.is_carry(), carry);
                                    assert_eq!(mv.is_double_step(), kind == MoveKind::DoubleStep);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
