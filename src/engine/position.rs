//! A game position and the calls a Lab 3 `ChessBoard` answers, plus the
//! state full chess needs (castling rights, en passant, clocks), reversible
//! play, and perft.
//!
//! [`Position::play`] / [`Position::undo`] are what a client walking the
//! tree pays at every node, so they are shaped for it: the common move (one
//! piece carried over two squares) takes a short path and the rest go out
//! of line; the state is kept in forms that are stored and loaded whole
//! (see `docs/perft.md`, "Lean play/undo", for what each choice measured).

use super::board::{Board, BoardText};
use super::movegen::{self, Context, KindAt, Move, Scope};
use super::movelist::MoveList;
use super::rules::RuleSet;
use super::untouched::{CellsUndo, Untouched, UntouchedBits, UntouchedCells};
use crate::domain::{Color, Coord, Dims, Piece, Role, Square};

/// The two castling directions: towards the last file (h on 8x8) or towards
/// file a.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastleSide {
    King,
    Queen,
}

impl CastleSide {
    /// Where king and rook land (columns): by default c/d on the queen
    /// side, the second-to-last / third-to-last file on the king side (g/f
    /// on 8x8), `None` on boards narrower than 5 files; with a rule set's
    /// `files` (the king's landing files, queen side then king side), the
    /// king there and the rook beside it towards the centre (`None` where
    /// that leaves the board).
    pub fn landing(self, cols: u16, files: Option<[u16; 2]>) -> Option<(u16, u16)> {
        match files {
            None if cols < 5 => None,
            None => Some(match self {
                CastleSide::King => (cols - 2, cols - 3),
                CastleSide::Queen => (2, 3),
            }),
            Some([queen, king]) => {
                let (king_to, rook_to) = match self {
                    CastleSide::King => (king, king.checked_sub(1)?),
                    CastleSide::Queen => (queen, queen + 1),
                };
                (king_to < cols && rook_to < cols).then_some((king_to, rook_to))
            }
        }
    }
}

/// The row a colour's king and rooks start on: row 0 for Black, the last
/// row for White.
pub fn home_row(color: Color, dims: Dims) -> u16 {
    match color {
        Color::Black => 0,
        Color::White => dims.rows() - 1,
    }
}

/// Which castlings are still allowed, by the column of the rook each one
/// uses on its side's home row (see [`super::Castling::Rights`]).
///
/// Each right is a column, or `CastlingRights::NO_ROOK` for none (not an
/// `Option<u16>`): every move played with rights held asks whether it
/// leaves or lands on a right's rook square, and a plain compare of `u16`s
/// is what that costs then.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CastlingRights {
    rooks: [[u16; 2]; 2],
}

impl Default for CastlingRights {
    fn default() -> CastlingRights {
        CastlingRights::NONE
    }
}

impl CastlingRights {
    /// No column: boards are at most 256 files wide.
    const NO_ROOK: u16 = u16::MAX;

    pub const NONE: CastlingRights = CastlingRights {
        rooks: [[Self::NO_ROOK; 2]; 2],
    };

    fn slot(color: Color, side: CastleSide) -> (usize, usize) {
        (color as usize, side as usize)
    }

    /// The rook column of `color`'s right on `side`, if it still has it.
    pub fn rook_col(&self, color: Color, side: CastleSide) -> Option<u16> {
        let (c, s) = Self::slot(color, side);
        Some(self.rooks[c][s]).filter(|&col| col != Self::NO_ROOK)
    }

    pub fn set(&mut self, color: Color, side: CastleSide, rook_col: Option<u16>) {
        let (c, s) = Self::slot(color, side);
        // A column past any board (only `NO_ROOK` itself) reads as none.
        self.rooks[c][s] = rook_col.unwrap_or(Self::NO_ROOK);
    }

    pub fn is_empty(&self) -> bool {
        *self == CastlingRights::NONE
    }

    /// Every right still held, White first, king side first.
    pub fn iter(&self) -> impl Iterator<Item = (Color, CastleSide, u16)> + '_ {
        [Color::White, Color::Black]
            .into_iter()
            .flat_map(move |color| {
                [CastleSide::King, CastleSide::Queen]
                    .into_iter()
                    .filter_map(move |side| {
                        self.rook_col(color, side).map(|col| (color, side, col))
                    })
            })
    }

    /// Drops the rights `mv` loses: both of the mover's if it is a king,
    /// and any whose rook square the move leaves or lands on (`squares`:
    /// from, to, and a castle's rook squares). Out of line: most moves of
    /// a position with rights touch no home row, and play stays small.
    #[inline(never)]
    fn after(&mut self, mv: Move, mover: Option<Piece>, dims: Dims) {
        if let Some(p) = mover.filter(|p| p.role == Role::King) {
            self.set(p.color, CastleSide::King, None);
            self.set(p.color, CastleSide::Queen, None);
        }
        // Rights name rooks on the home rows: only those squares matter.
        // Two of them but for castling (rare), not four.
        let last = dims.rows() - 1;
        let touched = Touched::of(mv);
        let indices = match mv.kind_at() {
            KindAt::Castle { .. } => &touched.indices[..],
            _ => &touched.indices[..2],
        };
        for sq in indices.iter().map(|&i| dims.square_of_index(i)) {
            if sq.row() == 0 || sq.row() == last {
                self.touch(sq, dims);
            }
        }
    }

    /// Drops the rights whose rook stands on `sq` (it moved or was taken).
    fn touch(&mut self, sq: Square, dims: Dims) {
        for color in [Color::Black, Color::White] {
            if sq.row() == home_row(color, dims) {
                for slot in &mut self.rooks[color as usize] {
                    if *slot == sq.col() {
                        *slot = Self::NO_ROOK;
                    }
                }
            }
        }
    }
}

/// The state of a game at one moment: board, side to move, castling
/// rights, en-passant square, clocks, and which squares still hold their
/// setup piece (Lab 3 castling needs "has not moved since the setup").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    rules: RuleSet,
    board: Board,
    /// The untouched flags of a board of over 128 squares (smaller boards
    /// keep theirs in `state`).
    untouched_cells: UntouchedCells,
    state: State,
}

/// What a move changes besides the board and the untouched flags, in one
/// `Copy` block: play copies it whole into the undo record and undo puts
/// it back whole (two vector stores, not a field at a time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
struct State {
    castling: CastlingRights,
    /// The squares of the rooks `castling` names (bit `i`: row-major
    /// square `i`), on boards of at most 64 squares; 0 on larger ones,
    /// which do not look at it. A move on the fast path that neither
    /// leaves nor lands on one of them, nor moves a king, keeps every
    /// right, which one test of the move's two bits tells.
    rook_squares: u64,
    en_passant: EnPassant,
    halfmove_clock: u32,
    /// The side to move and the fullmove number in one word: twice the
    /// number, plus one when Black is to move. A move adds one (which
    /// passes the turn and, after Black's move, counts the next full
    /// move): one addition where the turn and the clock took a load, a
    /// test and two stores each.
    ply: u64,
    /// The untouched flags of a board of at most 128 squares: a move
    /// clears its squares' bits, and undo's copy of the state puts them
    /// back.
    untouched: UntouchedBits,
}

/// The bit of the square of `color`'s rook of column `col` on its home
/// row, on a board of at most 64 squares; 0 for a column off the board
/// (a right no move can touch).
#[inline(always)]
fn rook_bit(color: Color, col: u16, dims: Dims) -> u64 {
    match col < dims.cols() {
        true => 1 << dims.index(dims.at(home_row(color, dims), col)),
        false => 0,
    }
}

impl State {
    #[inline(always)]
    fn turn(&self) -> Color {
        match self.ply & 1 {
            0 => Color::White,
            _ => Color::Black,
        }
    }

    #[inline(always)]
    fn set_turn(&mut self, color: Color) {
        self.ply = (self.ply & !1) | (color == Color::Black) as u64;
    }

    /// The fullmove number (past `u32::MAX`, which no game reaches, it
    /// stays there).
    fn fullmove_number(&self) -> u32 {
        u32::try_from(self.ply >> 1).unwrap_or(u32::MAX)
    }

    /// Sets the rights, and the rook squares that go with them.
    fn set_castling(&mut self, rights: CastlingRights, dims: Dims) {
        self.castling = rights;
        self.rook_squares = match dims.len() <= 64 {
            true => rights
                .iter()
                .fold(0, |bits, (color, _, col)| bits | rook_bit(color, col, dims)),
            false => 0,
        };
    }
}

/// An en-passant square or none, in one `u32` (row and column, or all ones
/// for none) rather than an `Option<Square>`: the compiler wrote the latter
/// as three 2-byte stores and read it back as one wider load, which the
/// CPU cannot forward from the stores (a stall on each move played after
/// another); one word is stored and loaded whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct EnPassant(u32);

impl EnPassant {
    const NONE: EnPassant = EnPassant(u32::MAX);

    #[inline(always)]
    fn new(sq: Option<Square>) -> EnPassant {
        sq.map_or(EnPassant::NONE, |sq| EnPassant(sq.pack()))
    }

    #[inline(always)]
    fn get(self) -> Option<Square> {
        (self != EnPassant::NONE).then(|| Square::unpack(self.0))
    }
}

/// What [`Position::play`] changed, so that [`Position::undo`] can put it
/// back: the move, what it captured, and the state before it.
///
/// `repr(C)`, the words first: play writes each field whole and undo reads
/// it whole, so that no load spans two stores (which the CPU cannot
/// forward: a stall on every undo).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct UndoRecord {
    state: State,
    /// What puts back the untouched flags of from, to, rook_from, rook_to
    /// on a board of over 128 squares (smaller ones: `state`).
    untouched_cells: CellsUndo,
    /// The move, which also names the piece that stood on its square of
    /// departure ([`Move::piece`]): undo puts it back without reading the
    /// board it has just written.
    mv: Move,
    captured: Option<Piece>,
    /// The row-major indices of from and to (`from | to << 8`) when play
    /// took the fast path (a piece carried on a board of at most 64
    /// squares), so that undo takes it too without recomputing them;
    /// `NOT_SMALL` otherwise. One word, computed in a register and stored
    /// whole: two byte stores read back as one wider load stalled every
    /// undo (a quarter of the leaf perft's samples under `perf`).
    small: u32,
}

/// [`UndoRecord::small`] of a move played the general way.
const NOT_SMALL: u32 = u32::MAX;

/// [`UndoRecord::small`] of a move played the general way from an empty
/// square (not a legal move: nothing was carried, and undo takes it back
/// the general way rather than put the move's piece there).
const EMPTY_FROM: u32 = u32::MAX - 1;

/// [`UndoRecord::small`] of a castling, a promotion or an en-passant
/// capture on a board of at most 64 squares ([`Board::castle_small`],
/// [`Board::promote_small`], [`Board::en_passant_small`]): above every
/// pair of indices, below [`NOT_SMALL`] and [`EMPTY_FROM`], so undo's one
/// test for the common move sends it to the out-of-line path, which tells
/// them apart by the move's kind.
const SPECIAL: u32 = u32::MAX - 2;

impl UndoRecord {
    /// The move this record takes back (play it again to redo).
    pub fn mv(&self) -> Move {
        self.mv
    }

    /// The piece the move captured, if any.
    pub fn captured(&self) -> Option<Piece> {
        self.captured
    }
}

/// The squares a move empties or fills (from, to, and the rook's from and
/// to for castling; from and to again otherwise), as indices.
struct Touched {
    indices: [usize; 4],
}

impl Touched {
    #[inline(always)]
    fn of(mv: Move) -> Touched {
        let (from, to) = mv.indices();
        match mv.kind_at() {
            KindAt::Castle { rook_from, rook_to } => Touched {
                indices: [from, to, rook_from, rook_to],
            },
            _ => Touched {
                indices: [from, to, from, to],
            },
        }
    }
}

/// How the game stands. A position knows the first four; a [`super::Game`]
/// also knows how it ended by a king's capture or by a stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStatus {
    Ongoing,
    /// Ongoing, with a king of the side to move attacked.
    Check,
    Checkmate {
        winner: Color,
    },
    Stalemate,
    /// A king was captured (CUHK): its captor's side won.
    KingCaptured {
        winner: Color,
    },
    /// Stopped by "Z0 Z0" (CUHK): the higher score won, equal scores draw.
    Stopped {
        winner: Option<Color>,
    },
}

impl GameStatus {
    pub fn is_over(self) -> bool {
        !matches!(self, GameStatus::Ongoing | GameStatus::Check)
    }
}

/// The trace text: `ongoing`, `check`, `checkmate white` (the winner),
/// `stalemate`, `king-captured black`, `stopped white`, `stopped draw`.
impl std::fmt::Display for GameStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let winner = |c: &Option<Color>| c.map_or("draw", |c| c.name()).to_lowercase();
        match self {
            GameStatus::Ongoing => write!(f, "ongoing"),
            GameStatus::Check => write!(f, "check"),
            GameStatus::Checkmate { winner: w } => write!(f, "checkmate {}", winner(&Some(*w))),
            GameStatus::Stalemate => write!(f, "stalemate"),
            GameStatus::KingCaptured { winner: w } => {
                write!(f, "king-captured {}", winner(&Some(*w)))
            }
            GameStatus::Stopped { winner: w } => write!(f, "stopped {}", winner(w)),
        }
    }
}

impl Position {
    /// An empty board; White moves first; no castling rights, no en-passant square.
    pub fn new(rules: RuleSet, dims: Dims) -> Position {
        Position {
            rules,
            board: Board::with_pieces(dims, rules.board_pieces()),
            untouched_cells: UntouchedCells::new(dims.len()),
            state: State {
                castling: CastlingRights::NONE,
                rook_squares: 0,
                en_passant: EnPassant::NONE,
                halfmove_clock: 0,
                ply: 2,
                untouched: UntouchedBits::new(dims.len()),
            },
        }
    }

    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    #[cfg(test)]
    pub(super) fn set_rules(&mut self, rules: RuleSet) {
        self.rules = rules;
    }

    /// Are the rook squares kept beside the castling rights those the
    /// rights name (what `set_castling` computes)?
    #[cfg(test)]
    pub(super) fn rook_squares_follow_the_rights(&self) -> bool {
        let mut fresh = self.state;
        fresh.set_castling(self.state.castling, self.dims());
        fresh.rook_squares == self.state.rook_squares
    }

    #[cfg(test)]
    pub(super) fn board_mut_for_tests(&mut self) -> &mut Board {
        &mut self.board
    }

    /// This position without its board's square sets, so that every move
    /// generation on it (and on its clones) takes the mailbox path: the peer
    /// the set-based generator is benched and tested against. Same answers,
    /// only slower; not meant for anything else.
    #[doc(hidden)]
    pub fn mailbox_only(&self) -> Position {
        let mut pos = self.clone();
        pos.board.drop_set_index();
        pos
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn dims(&self) -> Dims {
        self.board.dims()
    }

    pub fn turn(&self) -> Color {
        self.state.turn()
    }

    pub fn set_turn(&mut self, color: Color) {
        self.state.set_turn(color);
    }

    /// A forfeited turn (CUHK's machine player found no move): the other
    /// side moves next; no en passant survives a pass.
    pub fn pass_turn(&mut self) {
        self.state.ply ^= 1;
        self.state.en_passant = EnPassant::NONE;
    }

    pub fn castling_rights(&self) -> &CastlingRights {
        &self.state.castling
    }

    pub fn set_castling_rights(&mut self, rights: CastlingRights) {
        let dims = self.dims();
        self.state.set_castling(rights, dims);
    }

    /// The square a pawn crossed by the last move's double step (where an
    /// en-passant capture would land), if any.
    pub fn en_passant_square(&self) -> Option<Square> {
        self.state.en_passant.get()
    }

    pub fn set_en_passant_square(&mut self, sq: Option<Square>) {
        self.state.en_passant = EnPassant::new(sq);
    }

    /// Half-moves since the last capture or pawn move.
    pub fn halfmove_clock(&self) -> u32 {
        self.state.halfmove_clock
    }

    /// Starts at 1 and grows after each Black move.
    pub fn fullmove_number(&self) -> u32 {
        self.state.fullmove_number()
    }

    pub fn set_clocks(&mut self, halfmove_clock: u32, fullmove_number: u32) {
        self.state.halfmove_clock = halfmove_clock;
        self.state.ply = 2 * fullmove_number as u64 + (self.state.ply & 1);
    }

    pub fn board_text(&self) -> BoardText {
        self.board.text()
    }

    /// Setup: puts `piece` on `sq`, replacing whatever stood there.
    pub fn place(&mut self, sq: Square, piece: Piece) {
        self.board.set(sq, Some(piece));
    }

    /// Has the piece on `sq` stood there since the setup?
    pub fn untouched(&self, sq: Square) -> bool {
        self.untouched_view().get(self.dims().index(sq))
    }

    fn untouched_view(&self) -> Untouched<'_> {
        Untouched {
            bits: self.state.untouched,
            cells: &self.untouched_cells,
        }
    }

    pub(super) fn context(&self) -> Context<'_> {
        Context {
            rules: &self.rules,
            en_passant: self.state.en_passant.get(),
            castling: &self.state.castling,
            untouched: self.untouched_view(),
        }
    }

    /// The legal moves of the side to move, appended to `out` in board
    /// order, using the position's own board as scratch (perft's hot path).
    fn generate(&mut self, out: &mut Vec<Move>) {
        let Position {
            rules,
            board,
            untouched_cells,
            state,
        } = self;
        let ctx = Context {
            rules,
            en_passant: state.en_passant.get(),
            castling: &state.castling,
            untouched: Untouched {
                bits: state.untouched,
                cells: untouched_cells,
            },
        };
        movegen::legal_moves(board, ctx, &[state.turn()], Scope::All, out);
    }

    /// The legal moves of `colors` within `scope`: by the set-based
    /// generator where it applies, else on a copy of the board.
    fn generate_on_copy(&self, colors: &[Color], scope: Scope) -> Vec<Move> {
        let mut out = Vec::with_capacity(64);
        if !movegen::fast_legal_moves(&self.board, self.context(), colors, scope, &mut out) {
            let mut scratch = self.board.clone();
            movegen::legal_moves(&mut scratch, self.context(), colors, scope, &mut out);
        }
        out
    }

    fn may_move_now(&self, color: Color) -> bool {
        !self.rules.validity_checks_turn || color == self.state.turn()
    }

    /// Every valid move on the board, sorted by (from, to) row-major: what an
    /// `isValidScan` answers true for. Computed once, not per square pair.
    /// Where the rules ignore turns (Lab 3) both sides' moves are listed. A
    /// promotion is listed once per role it may promote to.
    pub fn valid_moves(&self) -> Vec<Move> {
        let colors = match self.rules.validity_checks_turn {
            true => &[self.state.turn()][..],
            false => &[Color::Black, Color::White][..],
        };
        self.generate_on_copy(colors, Scope::AllSorted)
    }

    /// The legal moves of the side to move, sorted by (from, to) row-major.
    pub fn legal_moves(&self) -> Vec<Move> {
        self.generate_on_copy(&[self.state.turn()], Scope::AllSorted)
    }

    /// The legal moves of the side to move into `out` (cleared first), in
    /// generation order: the moves of [`Position::legal_moves`] without its
    /// sort and, once `out` has grown, without an allocation.
    pub fn legal_moves_into(&self, out: &mut MoveList) {
        let colors = [self.state.turn()];
        if !movegen::fast_legal_moves(
            &self.board,
            self.context(),
            &colors,
            Scope::All,
            out.cleared(),
        ) {
            let (moves, scratch) = out.cleared_with_scratch(&self.board);
            movegen::legal_moves(scratch, self.context(), &colors, Scope::All, moves);
        }
    }

    /// How many legal moves the side to move has (what perft counts on its
    /// last ply), without listing them where the set-based generator applies.
    pub fn count_legal_moves(&self) -> u64 {
        movegen::count_legal_moves(&self.board, self.context(), self.state.turn())
            .unwrap_or_else(|| self.legal_moves().len() as u64)
    }

    /// The legal move from `from` to `to` for whoever stands on `from` (if
    /// the rules let it move now). A promotion picks `promotion`, or the
    /// first role the rules list (the queen in standard chess) if `None`.
    pub fn find_move(&self, from: Coord, to: Coord, promotion: Option<Role>) -> Option<Move> {
        let dims = self.dims();
        let (from, to) = (dims.square(from)?, dims.square(to)?);
        let piece = self.board.get(from)?;
        if !self.may_move_now(piece.color) {
            return None;
        }
        let moves = self.generate_on_copy(&[piece.color], Scope::FromTo(from, to));
        moves
            .into_iter()
            .find(|mv| promotion.is_none() || mv.promotion() == promotion)
    }

    /// The legal move of the side to move written `text` (see [`Move::uci`]).
    pub fn find_uci(&self, text: &str) -> Option<Move> {
        let dims = self.dims();
        self.legal_moves()
            .into_iter()
            .find(|mv| mv.uci(dims) == text)
    }

    /// Lab 3 `isValidMove`: false for anything off the board.
    pub fn is_valid_move(&self, from: Coord, to: Coord) -> bool {
        self.find_move(from, to, None).is_some()
    }

    /// Lab 3 `movePiece`: a valid move by the side to move is played and
    /// passes the turn; anything else changes nothing and returns false.
    pub fn move_piece(&mut self, from: Coord, to: Coord) -> bool {
        let Some(mv) = self.find_move(from, to, None) else {
            return false;
        };
        if self.board.get(mv.from()).map(|p| p.color) != Some(self.state.turn()) {
            return false;
        }
        self.play(mv);
        true
    }

    /// Plays `mv`, which must be legal here (one of [`Position::legal_moves`]
    /// or [`Position::valid_moves`] of this very position: the short path
    /// below, and undo on every path, take the piece that moves from the
    /// move, not from the board), and passes the turn. The record takes it back with
    /// [`Position::undo`].
    ///
    /// A piece carried from one square to another on a board of at most 64
    /// squares (nearly every move of a game of 8x8 chess) takes a short
    /// path, inlined into the caller; every other move, and every larger
    /// board, goes the general way, out of line.
    #[inline(always)]
    pub fn play(&mut self, mv: Move) -> UndoRecord {
        let (from, to) = mv.indices();
        if mv.is_carry()
            && let Some(captured) = self.board.carry_small(mv.piece(), from, to)
        {
            return self.after_small_carry(mv, from, to, mv.piece(), captured);
        }
        self.play_general(mv, from, to)
    }

    /// The rest of [`Position::play`] once [`Board::carry_small`] has
    /// carried `mover` from `from` to `to`, taking `captured`.
    #[inline(always)]
    fn after_small_carry(
        &mut self,
        mv: Move,
        from: usize,
        to: usize,
        mover: Piece,
        captured: Option<Piece>,
    ) -> UndoRecord {
        let bits = 1u64 << from | 1u64 << to;
        let record = UndoRecord {
            state: self.state,
            untouched_cells: CellsUndo::default(),
            mv,
            captured,
            small: (from | to << 8) as u32,
        };
        let state = &mut self.state;
        state.untouched.clear_low(bits);
        if state.rook_squares & bits != 0
            || (mover.role == Role::King && !state.castling.is_empty())
        {
            self.drop_rights_small(bits, mover);
        }
        let state = &mut self.state;
        state.en_passant = match mv.is_double_step() && self.rules.en_passant {
            // The square crossed: between the two, in the same column.
            true => EnPassant::new(Some(self.board.dims().square_of_index((from + to) / 2))),
            false => EnPassant::NONE,
        };
        state.halfmove_clock = match mover.role == Role::Pawn || captured.is_some() {
            true => 0,
            false => state.halfmove_clock.saturating_add(1),
        };
        state.ply += 1;
        record
    }

    /// The rest of [`Position::play`] once a castling, a promotion or an
    /// en-passant capture has been played on the board's short path:
    /// `mover` moved and took `captured`, and `bits` are the squares whose
    /// untouched flags the general path clears (from, to, and a castle's
    /// rook squares), which are also those whose rights it drops (with
    /// both of the mover's if it is a king), as [`CastlingRights::after`]
    /// does.
    fn after_small_special(
        &mut self,
        mv: Move,
        bits: u64,
        mover: Piece,
        captured: Option<Piece>,
    ) -> UndoRecord {
        let record = UndoRecord {
            state: self.state,
            untouched_cells: CellsUndo::default(),
            mv,
            captured,
            small: SPECIAL,
        };
        let state = &mut self.state;
        state.untouched.clear_low(bits);
        if state.rook_squares & bits != 0
            || (mover.role == Role::King && !state.castling.is_empty())
        {
            self.drop_rights_small(bits, mover);
        }
        let state = &mut self.state;
        state.en_passant = EnPassant::NONE;
        state.halfmove_clock = match mover.role == Role::Pawn || captured.is_some() {
            true => 0,
            false => state.halfmove_clock.saturating_add(1),
        };
        state.ply += 1;
        record
    }

    /// Clears the untouched flags of `squares`, the bits of the state's or
    /// (boards of over 128 squares) the cells, which the result restores.
    fn clear_untouched<const N: usize>(&mut self, squares: [usize; N]) -> CellsUndo {
        match self.untouched_cells.in_use() {
            true => self.untouched_cells.clear(squares),
            false => {
                self.state.untouched.clear(squares);
                CellsUndo::default()
            }
        }
    }

    /// [`Position::drop_rights`] on the fast path, from the bits of the
    /// move's two squares: a right is lost with its king's move or a move
    /// from or onto its rook's square (what [`CastlingRights::after`] does
    /// square by square).
    ///
    /// The rights' rook squares lie on their side's home row, Black's the
    /// first and White's the last: with two rows or more, a king's move
    /// clears its side's row of `rook_squares` and a rook square the move
    /// touches names its side by its row, so that only the rights whose
    /// rook squares were hit are looked at (checking every right cost
    /// about 55 instructions a call, 4% of a Kiwipete every-leaf perft).
    #[inline(never)]
    fn drop_rights_small(&mut self, bits: u64, mover: Piece) {
        let dims = self.dims();
        let cols = dims.cols();
        if dims.rows() < 2 {
            return self.drop_rights_one_row(bits, mover);
        }
        // At most 32 columns (two rows or more, at most 64 squares).
        let first_row = (1u64 << cols) - 1;
        let last_row_start = (dims.rows() - 1) as usize * cols as usize;
        let state = &mut self.state;
        if mover.role == Role::King {
            state.castling.rooks[mover.color as usize] = [CastlingRights::NO_ROOK; 2];
            state.rook_squares &= match mover.color {
                Color::Black => !first_row,
                Color::White => first_row,
            };
        }
        let mut hit = state.rook_squares & bits;
        while hit != 0 {
            let i = hit.trailing_zeros() as usize;
            hit &= hit - 1;
            let (color, col) = match i < cols as usize {
                true => (Color::Black, i),
                false => (Color::White, i - last_row_start),
            };
            for slot in &mut state.castling.rooks[color as usize] {
                if *slot as usize == col {
                    *slot = CastlingRights::NO_ROOK;
                }
            }
            state.rook_squares &= !(1 << i);
        }
    }

    /// [`Position::drop_rights_small`] on a board of one row, which is
    /// both sides' home row: every right looked at, and the rook squares
    /// computed again from those left, since one square may stand for a
    /// right of each side (clearing its bit for one of them lost it for
    /// the other).
    fn drop_rights_one_row(&mut self, bits: u64, mover: Piece) {
        let dims = self.dims();
        let mut rights = self.state.castling;
        for color in [Color::Black, Color::White] {
            let king_moved = mover.role == Role::King && mover.color == color;
            for slot in &mut rights.rooks[color as usize] {
                // `NO_ROOK` is past every board, like any column that
                // names no square: no bit, so only a king's move drops it.
                let rook = match *slot < dims.cols() {
                    true => 1 << *slot,
                    false => 0,
                };
                if king_moved || rook & bits != 0 {
                    *slot = CastlingRights::NO_ROOK;
                }
            }
        }
        self.state.set_castling(rights, dims);
    }

    /// Drops the castling rights `mv` loses (see [`CastlingRights::after`])
    /// and updates the rook squares that go with them.
    #[inline(never)]
    fn drop_rights(&mut self, mv: Move, mover: Option<Piece>) {
        let dims = self.dims();
        let mut rights = self.state.castling;
        rights.after(mv, mover, dims);
        self.state.set_castling(rights, dims);
    }

    /// [`Position::play`] the general way: every kind of move on every
    /// board.
    #[inline(never)]
    fn play_general(&mut self, mv: Move, from: usize, to: usize) -> UndoRecord {
        let dims = self.dims();
        // The other kinds on a board of at most 64 squares: square indices
        // below 64, and untouched flags as the state's bits.
        let bit = |i: usize| 1u64 << (i % 64);
        match mv.kind_at() {
            KindAt::Castle { rook_from, rook_to } => {
                let squares = [from, to, rook_from, rook_to];
                if let Some(king) = self.board.castle_small(squares) {
                    let bits = squares.iter().fold(0, |bits, &i| bits | bit(i));
                    return self.after_small_special(mv, bits, king, None);
                }
            }
            KindAt::Promotion(role) => {
                if let Some((pawn, captured)) = self.board.promote_small(from, to, role) {
                    return self.after_small_special(mv, bit(from) | bit(to), pawn, captured);
                }
            }
            KindAt::EnPassant { captured: at } => {
                if let Some((pawn, taken)) = self.board.en_passant_small(from, to, at) {
                    let bits = bit(from) | bit(to);
                    return self.after_small_special(mv, bits, pawn, Some(taken));
                }
            }
            KindAt::Carry => {}
        }
        let mover = self.board.at(from);
        let old_state = self.state;
        let (captured, untouched_cells) = match mv.is_carry() && from != to {
            true => (
                self.board.carry_at(from, to),
                self.clear_untouched([from, to]),
            ),
            false => {
                let touched = Touched::of(mv);
                let untouched = self.clear_untouched(touched.indices);
                (self.board.make_at(mv, from, to), untouched)
            }
        };
        let record = UndoRecord {
            untouched_cells,
            state: old_state,
            mv,
            captured,
            small: match mover {
                Some(_) => NOT_SMALL,
                None => EMPTY_FROM,
            },
        };
        // Only a king's move or one from or onto a home row (where the
        // rights' rooks stand) can drop a right.
        let last_row_start = dims.len() - dims.cols() as usize;
        let home = |i: usize| i < dims.cols() as usize || i >= last_row_start;
        if !self.state.castling.is_empty()
            && (home(from) || home(to) || mover.is_some_and(|p| p.role == Role::King))
        {
            self.drop_rights(mv, mover);
        }
        let state = &mut self.state;
        state.en_passant = match mv.is_double_step() && self.rules.en_passant {
            true => EnPassant::new(Some(dims.square_of_index((from + to) / 2))),
            false => EnPassant::NONE,
        };
        let pawn_move = mover.is_some_and(|p| p.role == Role::Pawn);
        state.halfmove_clock = if pawn_move || captured.is_some() {
            0
        } else {
            state.halfmove_clock.saturating_add(1)
        };
        state.ply += 1;
        record
    }

    /// Takes back the last move played, whose record this is: board, turn,
    /// castling rights, en-passant square, clocks and untouched squares are
    /// as before it.
    #[inline(always)]
    pub fn undo(&mut self, record: UndoRecord) {
        match record.small < SPECIAL {
            true => {
                let (from, to) = (record.small as usize & 0xff, record.small as usize >> 8);
                self.board
                    .uncarry_small(from, to, record.mv.piece(), record.captured);
            }
            false => self.undo_general(&record),
        }
        self.state = record.state;
    }

    /// The board and untouched-flag part of [`Position::undo`] the general
    /// way.
    #[inline(never)]
    fn undo_general(&mut self, record: &UndoRecord) {
        let mv = record.mv;
        let (from, to) = mv.indices();
        let mover = mv.piece();
        if record.small == SPECIAL {
            // Played by the board's short path for its kind (carries never
            // are: they have their own).
            return match (mv.kind_at(), record.captured) {
                (KindAt::Castle { rook_from, rook_to }, _) => {
                    let squares = [from, to, rook_from, rook_to];
                    self.board.uncastle_small(squares, mover)
                }
                (KindAt::Promotion(role), captured) => {
                    self.board.unpromote_small(from, to, mover, captured, role)
                }
                (KindAt::EnPassant { captured: at }, Some(taken)) => {
                    self.board.un_en_passant_small(from, to, at, mover, taken)
                }
                _ => {}
            };
        }
        match mv.is_carry() && from != to {
            true => {
                match record.small {
                    // Nothing was carried (not a legal move): the general way.
                    EMPTY_FROM => self.board.unmake_at(mv, record.captured, from, to),
                    _ => self.board.uncarry_at(from, to, mover, record.captured),
                }
                if self.untouched_cells.in_use() {
                    self.untouched_cells
                        .restore([from, to], record.untouched_cells);
                }
            }
            false => {
                let touched = Touched::of(mv);
                self.board.unmake_at(mv, record.captured, from, to);
                if self.untouched_cells.in_use() {
                    self.untouched_cells
                        .restore(touched.indices, record.untouched_cells);
                }
            }
        }
    }
    /// Is some king of the side to move attacked?
    pub fn in_check(&self) -> bool {
        let enemy = self.state.turn().opponent();
        self.board
            .pieces()
            .filter(|&(_, p)| p == Piece::new(self.state.turn(), Role::King))
            .any(|(sq, _)| super::attacks::is_attacked(&self.board, sq, enemy))
    }

    /// Checkmate or stalemate of the side to move, where the rules end
    /// the game by them ([`RuleSet::ends`]); otherwise check or ongoing.
    pub fn status(&self) -> GameStatus {
        let ends = self.rules.ends;
        let check = self.in_check();
        let mate_ends = match check {
            true => ends.checkmate,
            false => ends.stalemate,
        };
        match (check, mate_ends && self.legal_moves().is_empty()) {
            (true, true) => GameStatus::Checkmate {
                winner: self.state.turn().opponent(),
            },
            (false, true) => GameStatus::Stalemate,
            (true, false) => GameStatus::Check,
            (false, false) => GameStatus::Ongoing,
        }
    }

    /// Lab 3 `isPieceUnderThreat`: false on an empty square or off the
    /// board; otherwise, is some opposing piece attacking it by move shape?
    pub fn is_piece_under_threat(&self, at: Coord) -> bool {
        self.dims()
            .square(at)
            .is_some_and(|sq| self.square_threatened(sq))
    }

    fn square_threatened(&self, sq: Square) -> bool {
        self.board
            .get(sq)
            .is_some_and(|p| super::attacks::is_attacked(&self.board, sq, p.color.opponent()))
    }

    /// Every square for which `isPieceUnderThreat` is true, row-major.
    pub fn threatened_pieces(&self) -> Vec<Square> {
        self.board
            .pieces()
            .map(|(sq, _)| sq)
            .filter(|&sq| self.square_threatened(sq))
            .collect()
    }

    /// The number of leaf positions `depth` plies down the tree of legal
    /// moves of the side to move (1 at depth 0).
    pub fn perft(&self, depth: u32) -> u64 {
        let mut pos = self.clone();
        let mut buffers = vec![Vec::new(); depth as usize];
        pos.perft_inner(depth, &mut buffers)
    }

    /// Perft per root move: `(move text, leaves below it)`, sorted by the
    /// text (see [`Move::uci`]). Empty at depth 0.
    pub fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        if depth == 0 {
            return Vec::new();
        }
        let mut pos = self.clone();
        let mut buffers = vec![Vec::new(); depth as usize - 1];
        let dims = self.dims();
        let mut out: Vec<(String, u64)> = self
            .legal_moves()
            .into_iter()
            .map(|mv| {
                let record = pos.play(mv);
                let n = pos.perft_inner(depth - 1, &mut buffers);
                pos.undo(record);
                (mv.uci(dims), n)
            })
            .collect();
        out.sort();
        out
    }

    fn perft_inner(&mut self, depth: u32, buffers: &mut [Vec<Move>]) -> u64 {
        let Some((moves, deeper)) = buffers.split_first_mut() else {
            return 1;
        };
        if depth == 1
            && let Some(n) =
                movegen::count_legal_moves(&self.board, self.context(), self.state.turn())
        {
            return n;
        }
        moves.clear();
        self.generate(moves);
        if depth == 1 {
            return moves.len() as u64;
        }
        let mut nodes = 0;
        if depth == 2 {
            // The last ply's counts without a call a child: what perft
            // spends most of its time on.
            for &mv in moves.iter() {
                let record = self.play(mv);
                let count =
                    movegen::count_legal_moves(&self.board, self.context(), self.state.turn());
                nodes += match count {
                    Some(n) => n,
                    // Not on the set path: list them (as perft_inner(1)
                    // would, without asking for a count again).
                    None => match deeper.first_mut() {
                        Some(list) => {
                            list.clear();
                            self.generate(list);
                            list.len() as u64
                        }
                        None => 1,
                    },
                };
                self.undo(record);
            }
            return nodes;
        }
        for &mv in moves.iter() {
            let record = self.play(mv);
            nodes += self.perft_inner(depth - 1, deeper);
            self.undo(record);
        }
        nodes
    }
}
