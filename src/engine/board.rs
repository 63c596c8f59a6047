//! The board: which piece stands on which square.
//!
//! The mailbox (one cell per square) answers "what stands here" for every
//! size and is what the rules read. Boards of at most 512 squares also keep
//! an index of square sets (by colour, by role), updated by the same
//! [`Board::set`], so that the set-based move generator never has to sweep
//! the mailbox; the two can never disagree because nothing else writes.
//! The multi-word index is boxed so that every board (8x8 included) stays
//! as small to copy as with one-word sets. Playing a move matches the kind
//! of index once for the whole move, not once per square it changes.

use super::geometry::Geometry;
use super::movegen::{KindAt, Move};
use super::pieces::PieceTable;
use super::squareset::{Set256, Set512, SquareSet};
use crate::domain::{Color, Dims, Piece, Role, Square};
use std::fmt;

/// A rectangular board of optional pieces, row-major. It also knows how
/// every piece but the pawn moves (its rule set's [`PieceTable`]), so that
/// attack queries, which see only the board, count every attacker.
#[derive(Debug, PartialEq, Eq)]
pub struct Board {
    dims: Dims,
    squares: Mailbox,
    pieces: &'static PieceTable,
    /// Chess's pieces alone move here (`pieces` has classic movers and no
    /// role by its table): kept beside the sets, so that the set-based
    /// generator asks one byte of the board, not the table behind a
    /// pointer, at every node.
    chess_only: bool,
    sets: SetIndex,
}

impl Clone for Board {
    fn clone(&self) -> Board {
        Board {
            dims: self.dims,
            squares: self.squares.clone(),
            pieces: self.pieces,
            chess_only: self.chess_only,
            sets: self.sets.clone(),
        }
    }

    /// Reuses the square vector (a scratch board refilled per call).
    fn clone_from(&mut self, source: &Board) {
        self.dims = source.dims;
        self.squares.len = source.squares.len;
        self.squares.small = source.squares.small;
        self.squares.large.clone_from(&source.squares.large);
        self.pieces = source.pieces;
        self.chess_only = source.chess_only;
        self.sets = source.sets.clone();
    }
}

/// The mailbox's cells, row-major: inline for boards of at most 64
/// squares, on the heap past that. Every play and undo on 8x8 writes them;
/// inline, they sit beside the sets with no heap pointer to load first.
/// Boards of one-word sets (at most 64 squares) always keep theirs in
/// `small`, so their fast paths index it without asking which.
#[derive(Clone, PartialEq, Eq)]
struct Mailbox {
    len: usize,
    /// The cells of a board of at most 64 squares (`len` of them; the rest
    /// stay empty); all empty past that.
    small: [Option<Piece>; 64],
    /// The cells of a board of more than 64 squares; empty otherwise.
    large: Vec<Option<Piece>>,
}

impl Mailbox {
    fn new(len: usize) -> Mailbox {
        Mailbox {
            len,
            small: [None; 64],
            large: if len <= 64 {
                Vec::new()
            } else {
                vec![None; len]
            },
        }
    }
}

impl std::ops::Deref for Mailbox {
    type Target = [Option<Piece>];

    #[inline(always)]
    fn deref(&self) -> &[Option<Piece>] {
        if self.len <= 64 {
            &self.small[..self.len]
        } else {
            &self.large
        }
    }
}

impl std::ops::DerefMut for Mailbox {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [Option<Piece>] {
        if self.len <= 64 {
            &mut self.small[..self.len]
        } else {
            &mut self.large
        }
    }
}

impl fmt::Debug for Mailbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// The board's pieces as square sets, in the narrowest set type the board
/// fits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum SetIndex {
    /// More than 512 squares (or no tables left for the size, see
    /// [`SquareSet::geometry`]): the mailbox alone.
    Mailbox,
    /// At most 64 squares.
    U64(Sets<u64>),
    /// 65 to 128 squares.
    U128(Sets<u128>),
    /// 129 to 256 squares.
    Words256(Box<Sets<Set256>>),
    /// 257 to 512 squares.
    Words512(Box<Sets<Set512>>),
}

/// Where the pieces stand, by colour and by role, with the tables of the
/// board's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Sets<S: 'static> {
    pub geo: &'static Geometry<S>,
    /// Indexed by [`Color`].
    pub color: [S; 2],
    /// Indexed by [`slot`]: one set per built-in role, and one for all of
    /// a course's pieces (the set-based generator, which alone reads
    /// these, declines boards that have any).
    pub role: [S; SLOTS],
}

/// How many role sets a board keeps: the seven built-in roles, and a
/// course's pieces together.
pub(super) const SLOTS: usize = Role::BUILT_IN.len() + 1;

/// The role set of `role`: its own for a built-in role, the shared last
/// one for a course's piece.
#[inline(always)]
pub(super) const fn slot(role: Role) -> usize {
    let i = role as usize;
    if i < SLOTS - 1 { i } else { SLOTS - 1 }
}

impl<S: SquareSet> Sets<S> {
    /// Empty sets for a board of `dims`; `None` where the size gets no tables.
    fn new(dims: Dims) -> Option<Sets<S>> {
        Some(Sets {
            geo: S::geometry(dims)?,
            color: [S::EMPTY; 2],
            role: [S::EMPTY; SLOTS],
        })
    }

    /// Square `i` changes from `old` to `new`.
    #[inline(always)]
    fn replace(&mut self, i: usize, old: Option<Piece>, new: Option<Piece>) {
        if let Some(p) = old {
            self.toggle(i, p);
        }
        if let Some(p) = new {
            self.toggle(i, p);
        }
    }

    /// Adds `piece` on square `i` if absent, removes it if present.
    #[inline(always)]
    fn toggle(&mut self, i: usize, piece: Piece) {
        let bit = S::single(i);
        self.color[piece.color as usize] ^= bit;
        self.role[slot(piece.role)] ^= bit;
    }

    /// `piece` leaves square `from` for square `to`, which may be the
    /// same (then nothing changes).
    #[inline(always)]
    fn shift(&mut self, piece: Piece, from: usize, to: usize) {
        let bits = S::single(from) ^ S::single(to);
        self.color[piece.color as usize] ^= bits;
        self.role[slot(piece.role)] ^= bits;
    }

    /// The pieces of `color` and `role`.
    #[inline(always)]
    pub fn of(&self, color: Color, role: Role) -> S {
        self.color[color as usize] & self.role[slot(role)]
    }
}

impl Board {
    pub fn empty(dims: Dims) -> Board {
        let n = dims.len();
        let sets = if n <= u64::CAPACITY {
            Sets::new(dims).map(SetIndex::U64)
        } else if n <= u128::CAPACITY {
            Sets::new(dims).map(SetIndex::U128)
        } else if n <= Set256::CAPACITY {
            Sets::new(dims).map(|sets| SetIndex::Words256(Box::new(sets)))
        } else if n <= Set512::CAPACITY {
            Sets::new(dims).map(|sets| SetIndex::Words512(Box::new(sets)))
        } else {
            None
        };
        let sets = sets.unwrap_or(SetIndex::Mailbox);
        Board {
            dims,
            squares: Mailbox::new(dims.len()),
            pieces: PieceTable::chess(),
            chess_only: true,
            sets,
        }
    }

    /// The set index, for the set-based generator.
    pub(super) fn sets(&self) -> &SetIndex {
        &self.sets
    }

    /// Drops the set index: from now on every generation on this board
    /// (and its clones) takes the mailbox path. For measuring and checking
    /// one generator against the other.
    pub(super) fn drop_set_index(&mut self) {
        self.sets = SetIndex::Mailbox;
    }

    /// An empty board whose pieces move as `pieces` says (an empty board
    /// of [`Board::empty`] has chess's pieces).
    pub fn with_pieces(dims: Dims, pieces: &'static PieceTable) -> Board {
        Board {
            pieces,
            chess_only: pieces.classic_movers() && !pieces.any_by_table(),
            ..Board::empty(dims)
        }
    }

    /// Do chess's pieces alone move on this board (no role moves by the
    /// table)?
    #[inline(always)]
    pub(super) fn chess_only(&self) -> bool {
        self.chess_only
    }

    /// How this board's pieces (all but the pawns) move.
    #[inline(always)]
    pub fn piece_table(&self) -> &'static PieceTable {
        self.pieces
    }

    /// Does a piece that moves by the table (not by chess's fixed shapes)
    /// stand on the board?
    pub fn has_table_movers(&self) -> bool {
        let table = self.pieces;
        table.any_by_table()
            && self
                .cells()
                .iter()
                .flatten()
                .any(|p| table.moves_by_table(p.role))
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
    #[inline]
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) -> Option<Piece> {
        self.set_at(self.dims.index(sq), piece)
    }

    /// What stands on the square of row-major index `i`.
    #[inline(always)]
    pub(super) fn at(&self, i: usize) -> Option<Piece> {
        self.squares[i]
    }

    /// [`Board::set`] by row-major index: the one place squares change.
    #[inline(always)]
    pub(super) fn set_at(&mut self, i: usize, piece: Option<Piece>) -> Option<Piece> {
        let old = std::mem::replace(&mut self.squares[i], piece);
        match &mut self.sets {
            SetIndex::Mailbox => {}
            SetIndex::U64(sets) => sets.replace(i, old, piece),
            SetIndex::U128(sets) => sets.replace(i, old, piece),
            SetIndex::Words256(sets) => sets.replace(i, old, piece),
            SetIndex::Words512(sets) => sets.replace(i, old, piece),
        }
        old
    }

    /// Plays `mv` (its from and to at row-major indices `from` and `to`)
    /// without any legality check; returns what it captured. The set index
    /// is matched once for the whole move, not once per square changed
    /// (play/undo is perft's hot path when every leaf is played).
    #[inline]
    pub(super) fn make_at(&mut self, mv: Move, from: usize, to: usize) -> Option<Piece> {
        let squares = &mut self.squares[..];
        match &mut self.sets {
            SetIndex::U64(sets) => Cells::new(squares, sets).make(mv, from, to),
            SetIndex::U128(sets) => Cells::new(squares, sets).make(mv, from, to),
            _ => self.make_wide(mv, from, to),
        }
    }

    /// [`Board::make_at`] for the index kinds whose boards are slow anyway
    /// (multi-word sets, the mailbox alone), out of line so that the
    /// one-word paths stay small where they are inlined.
    #[inline(never)]
    fn make_wide(&mut self, mv: Move, from: usize, to: usize) -> Option<Piece> {
        let squares = &mut self.squares[..];
        match &mut self.sets {
            SetIndex::Mailbox => Cells::new(squares, NoSets).make(mv, from, to),
            SetIndex::U64(sets) => Cells::new(squares, sets).make(mv, from, to),
            SetIndex::U128(sets) => Cells::new(squares, sets).make(mv, from, to),
            SetIndex::Words256(sets) => Cells::new(squares, &mut **sets).make(mv, from, to),
            SetIndex::Words512(sets) => Cells::new(squares, &mut **sets).make(mv, from, to),
        }
    }

    /// Takes back `mv` played by [`Board::make_at`], which captured
    /// `captured`.
    #[inline]
    pub(super) fn unmake_at(&mut self, mv: Move, captured: Option<Piece>, from: usize, to: usize) {
        let squares = &mut self.squares[..];
        match &mut self.sets {
            SetIndex::U64(sets) => Cells::new(squares, sets).unmake(mv, captured, from, to),
            SetIndex::U128(sets) => Cells::new(squares, sets).unmake(mv, captured, from, to),
            _ => self.unmake_wide(mv, captured, from, to),
        }
    }

    /// [`Board::unmake_at`] for the other index kinds, out of line (see
    /// [`Board::make_wide`]).
    #[inline(never)]
    fn unmake_wide(&mut self, mv: Move, captured: Option<Piece>, from: usize, to: usize) {
        let squares = &mut self.squares[..];
        match &mut self.sets {
            SetIndex::Mailbox => Cells::new(squares, NoSets).unmake(mv, captured, from, to),
            SetIndex::U64(sets) => Cells::new(squares, sets).unmake(mv, captured, from, to),
            SetIndex::U128(sets) => Cells::new(squares, sets).unmake(mv, captured, from, to),
            SetIndex::Words256(sets) => {
                Cells::new(squares, &mut **sets).unmake(mv, captured, from, to)
            }
            SetIndex::Words512(sets) => {
                Cells::new(squares, &mut **sets).unmake(mv, captured, from, to)
            }
        }
    }

    /// The piece on `from` goes to `to` (a normal move or a double step:
    /// `from != to`), taking whatever stood there, which it returns.
    /// [`Board::make_at`] for the common moves, without its match on the
    /// move's kind.
    #[inline(always)]
    pub(super) fn carry_at(&mut self, from: usize, to: usize) -> Option<Piece> {
        let squares = &mut self.squares[..];
        match &mut self.sets {
            SetIndex::U64(sets) => Cells::new(squares, sets).carry(from, to),
            SetIndex::U128(sets) => Cells::new(squares, sets).carry(from, to),
            _ => self.carry_wide(from, to),
        }
    }

    /// [`Board::carry_at`] on a board of one-word sets (at most 64 squares,
    /// 8x8 among them), for play's fast path: `mover`, which stands on
    /// `from` (the caller knows it: the move carries it, so the cell is not
    /// read), goes to `to`, and `Some(captured)` says what it took; `None`,
    /// with nothing changed, on any other board or when `from` and `to` are
    /// the same square.
    #[inline(always)]
    pub(super) fn carry_small(
        &mut self,
        mover: Piece,
        from: usize,
        to: usize,
    ) -> Option<Option<Piece>> {
        let SetIndex::U64(sets) = &mut self.sets else {
            return None;
        };
        if from == to {
            return None;
        }
        // Below 64 on such a board: the masks only spare the bounds checks.
        let (from, to) = (from & 63, to & 63);
        let captured = self.squares.small[to].replace(mover);
        self.squares.small[from] = None;
        let bits = 1u64 << from | 1u64 << to;
        sets.color[mover.color as usize] ^= bits;
        sets.role[slot(mover.role)] ^= bits;
        if let Some(c) = captured {
            sets.color[c.color as usize] ^= 1 << to;
            sets.role[slot(c.role)] ^= 1 << to;
        }
        Some(captured)
    }

    /// Takes back [`Board::carry_small`]`(from, to)`, which carried `mover`
    /// and took `captured` (on any other board: [`Board::uncarry_at`]).
    #[inline(always)]
    pub(super) fn uncarry_small(
        &mut self,
        from: usize,
        to: usize,
        mover: Piece,
        captured: Option<Piece>,
    ) {
        let SetIndex::U64(sets) = &mut self.sets else {
            return self.uncarry_at(from, to, mover, captured);
        };
        // Below 64 on such a board: the masks only spare the bounds checks.
        let (from, to) = (from & 63, to & 63);
        self.squares.small[from] = Some(mover);
        self.squares.small[to] = captured;
        let bits = 1u64 << from | 1u64 << to;
        sets.color[mover.color as usize] ^= bits;
        sets.role[slot(mover.role)] ^= bits;
        if let Some(c) = captured {
            sets.color[c.color as usize] ^= 1 << to;
            sets.role[slot(c.role)] ^= 1 << to;
        }
    }

    /// Castling on a board of one-word sets: the king on `from` goes to
    /// `to` and the rook on `rook_from` to `rook_to` (the four squares may
    /// overlap in Chess960-like setups: both are lifted before either is
    /// put down). `Some(king)` as moved; `None`, with nothing changed, on
    /// any other board, when `from` is empty or when no rook of the king's
    /// colour stands on `rook_from`.
    #[inline]
    pub(super) fn castle_small(
        &mut self,
        [from, to, rook_from, rook_to]: [usize; 4],
    ) -> Option<Piece> {
        let SetIndex::U64(sets) = &mut self.sets else {
            return None;
        };
        let king = self.squares.small[from]?;
        let rook = Piece::new(king.color, Role::Rook);
        if self.squares.small[rook_from] != Some(rook) {
            return None;
        }
        self.squares.small[from] = None;
        self.squares.small[rook_from] = None;
        self.squares.small[to] = Some(king);
        self.squares.small[rook_to] = Some(rook);
        sets.shift(king, from, to);
        sets.shift(rook, rook_from, rook_to);
        Some(king)
    }

    /// Takes back [`Board::castle_small`]`(squares)`, which moved `king`
    /// and its rook.
    #[inline]
    pub(super) fn uncastle_small(
        &mut self,
        [from, to, rook_from, rook_to]: [usize; 4],
        king: Piece,
    ) {
        let SetIndex::U64(sets) = &mut self.sets else {
            return;
        };
        let rook = Piece::new(king.color, Role::Rook);
        self.squares.small[to] = None;
        self.squares.small[rook_to] = None;
        self.squares.small[from] = Some(king);
        self.squares.small[rook_from] = Some(rook);
        sets.shift(king, to, from);
        sets.shift(rook, rook_to, rook_from);
    }

    /// A promotion on a board of one-word sets: the pawn on `from` goes to
    /// `to`, taking whatever stood there, and becomes a `role`.
    /// `Some((pawn, captured))`; `None`, with nothing changed, on any other
    /// board or when `from` is empty or is `to`.
    #[inline]
    pub(super) fn promote_small(
        &mut self,
        from: usize,
        to: usize,
        role: Role,
    ) -> Option<(Piece, Option<Piece>)> {
        let SetIndex::U64(sets) = &mut self.sets else {
            return None;
        };
        let pawn = self.squares.small[from].filter(|_| from != to)?;
        let promoted = Piece::new(pawn.color, role);
        let captured = self.squares.small[to].replace(promoted);
        self.squares.small[from] = None;
        if let Some(c) = captured {
            sets.toggle(to, c);
        }
        sets.toggle(from, pawn);
        sets.toggle(to, promoted);
        Some((pawn, captured))
    }

    /// Takes back [`Board::promote_small`]`(from, to, role)`, which moved
    /// `pawn` and took `captured`.
    #[inline]
    pub(super) fn unpromote_small(
        &mut self,
        from: usize,
        to: usize,
        pawn: Piece,
        captured: Option<Piece>,
        role: Role,
    ) {
        let SetIndex::U64(sets) = &mut self.sets else {
            return;
        };
        self.squares.small[from] = Some(pawn);
        self.squares.small[to] = captured;
        sets.toggle(to, Piece::new(pawn.color, role));
        sets.toggle(from, pawn);
        if let Some(c) = captured {
            sets.toggle(to, c);
        }
    }

    /// An en-passant capture on a board of one-word sets: the pawn on
    /// `from` goes to `to` (empty) and takes the piece on `at`.
    /// `Some((pawn, taken))`; `None`, with nothing changed, on any other
    /// board, when `from` or `at` is empty or `to` is not, or when the
    /// three squares are not distinct.
    #[inline]
    pub(super) fn en_passant_small(
        &mut self,
        from: usize,
        to: usize,
        at: usize,
    ) -> Option<(Piece, Piece)> {
        let SetIndex::U64(sets) = &mut self.sets else {
            return None;
        };
        if from == to || from == at || to == at || self.squares.small[to].is_some() {
            return None;
        }
        let (pawn, taken) = (self.squares.small[from]?, self.squares.small[at]?);
        self.squares.small[from] = None;
        self.squares.small[at] = None;
        self.squares.small[to] = Some(pawn);
        sets.shift(pawn, from, to);
        sets.toggle(at, taken);
        Some((pawn, taken))
    }

    /// Takes back [`Board::en_passant_small`]`(from, to, at)`, which moved
    /// `pawn` and took `taken`.
    #[inline]
    pub(super) fn un_en_passant_small(
        &mut self,
        from: usize,
        to: usize,
        at: usize,
        pawn: Piece,
        taken: Piece,
    ) {
        let SetIndex::U64(sets) = &mut self.sets else {
            return;
        };
        self.squares.small[to] = None;
        self.squares.small[from] = Some(pawn);
        self.squares.small[at] = Some(taken);
        sets.shift(pawn, to, from);
        sets.toggle(at, taken);
    }

    /// [`Board::carry_at`] for the index kinds whose boards are slower
    /// anyway (multi-word sets, the mailbox alone), out of line so that
    /// the one-word paths stay small where they are inlined.
    #[inline(never)]
    fn carry_wide(&mut self, from: usize, to: usize) -> Option<Piece> {
        let squares = &mut self.squares[..];
        match &mut self.sets {
            SetIndex::U64(sets) => Cells::new(squares, sets).carry(from, to),
            SetIndex::U128(sets) => Cells::new(squares, sets).carry(from, to),
            SetIndex::Words256(sets) => Cells::new(squares, &mut **sets).carry(from, to),
            SetIndex::Words512(sets) => Cells::new(squares, &mut **sets).carry(from, to),
            SetIndex::Mailbox => Cells::new(squares, NoSets).carry(from, to),
        }
    }

    /// Takes back [`Board::carry_at`]`(from, to)`, which carried `mover`
    /// and took `captured`. Knowing the mover, it only writes: no load of
    /// the square just written waits on that store.
    #[inline(always)]
    pub(super) fn uncarry_at(
        &mut self,
        from: usize,
        to: usize,
        mover: Piece,
        captured: Option<Piece>,
    ) {
        let squares = &mut self.squares[..];
        match &mut self.sets {
            SetIndex::U64(sets) => Cells::new(squares, sets).uncarry(from, to, mover, captured),
            SetIndex::U128(sets) => Cells::new(squares, sets).uncarry(from, to, mover, captured),
            _ => self.uncarry_wide(from, to, mover, captured),
        }
    }

    /// [`Board::uncarry_at`] for the other index kinds, out of line (see
    /// [`Board::carry_wide`]).
    #[inline(never)]
    fn uncarry_wide(&mut self, from: usize, to: usize, mover: Piece, captured: Option<Piece>) {
        let squares = &mut self.squares[..];
        match &mut self.sets {
            SetIndex::U64(sets) => Cells::new(squares, sets).uncarry(from, to, mover, captured),
            SetIndex::U128(sets) => Cells::new(squares, sets).uncarry(from, to, mover, captured),
            SetIndex::Words256(sets) => {
                Cells::new(squares, &mut **sets).uncarry(from, to, mover, captured)
            }
            SetIndex::Words512(sets) => {
                Cells::new(squares, &mut **sets).uncarry(from, to, mover, captured)
            }
            SetIndex::Mailbox => Cells::new(squares, NoSets).uncarry(from, to, mover, captured),
        }
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

/// What a square change must also update besides the mailbox: one kind of
/// set index, or none.
trait PieceIndex {
    fn replace(&mut self, i: usize, old: Option<Piece>, new: Option<Piece>);

    /// `piece` leaves square `from` for square `to` (both toggled at once:
    /// one read-modify-write of its colour's and role's sets, not two
    /// chained ones).
    fn carry(&mut self, from: usize, to: usize, piece: Piece);
}

/// The mailbox alone (boards without square sets).
struct NoSets;

impl PieceIndex for NoSets {
    #[inline(always)]
    fn replace(&mut self, _: usize, _: Option<Piece>, _: Option<Piece>) {}

    #[inline(always)]
    fn carry(&mut self, _: usize, _: usize, _: Piece) {}
}

impl<S: SquareSet> PieceIndex for &mut Sets<S> {
    #[inline(always)]
    fn replace(&mut self, i: usize, old: Option<Piece>, new: Option<Piece>) {
        Sets::replace(self, i, old, new);
    }

    #[inline(always)]
    fn carry(&mut self, from: usize, to: usize, piece: Piece) {
        // Multi-word sets toggle square by square: building and merging
        // two four- or eight-word singletons measured about 10% slower on
        // 12x12 and 16x16 perft (`cargo bench --bench perft -- wide`).
        if S::CAPACITY > 128 {
            self.toggle(from, piece);
            self.toggle(to, piece);
            return;
        }
        let bits = S::single(from) | S::single(to);
        self.color[piece.color as usize] ^= bits;
        self.role[slot(piece.role)] ^= bits;
    }
}

/// A board's mailbox and its set index borrowed together, so that the
/// squares a move changes update one statically known kind of index.
struct Cells<'a, I> {
    squares: &'a mut [Option<Piece>],
    index: I,
}

impl<'a, I: PieceIndex> Cells<'a, I> {
    #[inline(always)]
    fn new(squares: &'a mut [Option<Piece>], index: I) -> Self {
        Cells { squares, index }
    }

    #[inline(always)]
    fn set(&mut self, i: usize, piece: Option<Piece>) -> Option<Piece> {
        let old = std::mem::replace(&mut self.squares[i], piece);
        self.index.replace(i, old, piece);
        old
    }

    /// The piece on `from` goes to `to`, taking whatever stood there,
    /// which it returns (`from` and `to` differ). The sets are toggled by
    /// XOR, so the order of the updates does not matter.
    #[inline(always)]
    fn carry(&mut self, from: usize, to: usize) -> Option<Piece> {
        let piece = std::mem::take(&mut self.squares[from]);
        let captured = std::mem::replace(&mut self.squares[to], piece);
        if let Some(p) = piece {
            self.index.carry(from, to, p);
        }
        if let Some(c) = captured {
            self.index.replace(to, Some(c), None);
        }
        captured
    }

    /// Takes back [`Cells::carry`]`(from, to)`, which carried `mover` and
    /// took `captured`: `mover` stands on `to`, `from` is empty.
    #[inline(always)]
    fn uncarry(&mut self, from: usize, to: usize, mover: Piece, captured: Option<Piece>) {
        self.squares[from] = Some(mover);
        self.squares[to] = captured;
        self.index.carry(to, from, mover);
        if let Some(c) = captured {
            self.index.replace(to, None, Some(c));
        }
    }

    #[inline(always)]
    fn make(&mut self, mv: Move, from: usize, to: usize) -> Option<Piece> {
        if mv.is_carry() && from != to {
            return self.carry(from, to);
        }
        let piece = self.set(from, None);
        match mv.kind_at() {
            KindAt::Carry => self.set(to, piece),
            KindAt::EnPassant { captured } => {
                self.set(to, piece);
                self.set(captured, None)
            }
            KindAt::Promotion(role) => self.set(to, piece.map(|p| Piece::new(p.color, role))),
            KindAt::Castle { rook_from, rook_to } => {
                // In Chess960-like setups the four squares may overlap: lift
                // both pieces before putting either down.
                let rook = self.set(rook_from, None);
                self.set(to, piece);
                self.set(rook_to, rook);
                None
            }
        }
    }

    #[inline(always)]
    fn unmake(&mut self, mv: Move, captured: Option<Piece>, from: usize, to: usize) {
        match mv.kind_at() {
            KindAt::Carry if from != to => {
                // The mover goes back (onto `from`, which the move left
                // empty); the captured piece, if any, returns.
                self.carry(to, from);
                if captured.is_some() {
                    self.set(to, captured);
                }
            }
            KindAt::Carry => {
                let piece = self.set(to, captured);
                self.set(from, piece);
            }
            KindAt::EnPassant { captured: at } => {
                let piece = self.set(to, None);
                self.set(from, piece);
                self.set(at, captured);
            }
            KindAt::Promotion(_) => {
                let piece = self.set(to, captured);
                self.set(from, piece.map(|p| Piece::new(p.color, Role::Pawn)));
            }
            KindAt::Castle { rook_from, rook_to } => {
                let rook = self.set(rook_to, None);
                let king = self.set(to, None);
                self.set(from, king);
                self.set(rook_from, rook);
            }
        }
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

    /// The narrowest set type the board fits; the mailbox past 512 squares.
    #[test]
    fn the_set_index_fits_the_board() {
        let index = |rows, cols| {
            let b = Board::empty(Dims::new(rows, cols).unwrap());
            match b.sets() {
                SetIndex::Mailbox => "mailbox",
                SetIndex::U64(_) => "u64",
                SetIndex::U128(_) => "u128",
                SetIndex::Words256(_) => "words256",
                SetIndex::Words512(_) => "words512",
            }
        };
        assert_eq!(index(8, 8), "u64");
        assert_eq!(index(1, 64), "u64");
        assert_eq!(index(13, 5), "u128");
        assert_eq!(index(12, 10), "u128");
        assert_eq!(index(12, 11), "words256");
        assert_eq!(index(16, 16), "words256");
        assert_eq!(index(256, 1), "words256");
        assert_eq!(index(1, 256), "words256");
        assert_eq!(index(17, 17), "words512");
        assert_eq!(index(16, 32), "words512");
        assert_eq!(index(2, 256), "words512");
        assert_eq!(index(3, 171), "mailbox");
        assert_eq!(index(23, 23), "mailbox");
        assert_eq!(index(256, 256), "mailbox");
    }

    /// After any sequence of [`Board::set`], each colour's and role's set
    /// holds exactly the squares the mailbox says, on multi-word boards.
    #[test]
    fn wide_sets_follow_the_mailbox() {
        fn check<S: SquareSet>(b: &Board, sets: &Sets<S>) {
            for (i, cell) in b.cells().iter().enumerate() {
                for color in [Color::Black, Color::White] {
                    let has = cell.is_some_and(|p| p.color == color);
                    assert_eq!(sets.color[color as usize].has(i), has, "square {i}");
                }
                for role in Role::ALL {
                    let has = cell.is_some_and(|p| slot(p.role) == slot(role));
                    assert_eq!(sets.role[slot(role)].has(i), has, "square {i}");
                }
            }
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for (rows, cols) in [(16, 16), (12, 11), (22, 23), (1, 256)] {
            let dims = Dims::new(rows, cols).unwrap();
            let mut b = Board::empty(dims);
            for _ in 0..3000 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let sq = dims.square_of_index((seed % dims.len() as u64) as usize);
                let piece = match (seed >> 20) % 3 {
                    0 => None,
                    _ => Some(Piece::new(
                        [Color::Black, Color::White][(seed >> 30) as usize % 2],
                        Role::ALL[(seed >> 40) as usize % Role::ALL.len()],
                    )),
                };
                b.set(sq, piece);
            }
            assert!(
                b.pieces().count() > dims.len() / 4,
                "{dims:?}: a busy board"
            );
            match b.sets() {
                SetIndex::Words256(sets) => check(&b, sets),
                SetIndex::Words512(sets) => check(&b, sets),
                other => panic!("{dims:?}: {other:?}"),
            }
        }
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
