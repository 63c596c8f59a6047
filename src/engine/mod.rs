//! The reference engine: pure rule logic, no I/O.
//!
//! One engine serves every rule set; a [`RuleSet`] is data (which checks
//! apply, which special moves exist), not a separate implementation. The
//! layers are:
//!
//! - [`Board`]: the mailbox of squares, plus (boards of at most 512
//!   squares) the same pieces as square sets by colour and role, and the
//!   rule set's [`PieceTable`] (how every piece but the pawn moves);
//! - `betza`: a course's pieces written in Betza notation, read into legs;
//! - `squareset` / `geometry`: square sets as bits (`u64`, `u128` past 64
//!   squares, four or eight `u64` words past 128 and 256) and the attack
//!   tables of each board size, built on first use of the size;
//! - `attacks`: "is this square attacked by that colour" by reverse ray scans,
//!   so one query costs a few rays, not a sweep over every enemy piece;
//! - `movegen`: legal moves. Whole-board generation goes to `bitmoves`, the
//!   set-based generator (checkers and pins by set operations, targets by
//!   table lookups, a counting sink for perft's last ply); the mailbox
//!   generator (the moves of one piece, then the king-safety filter judged
//!   from the king's checks and pins, make/unmake on a scratch board for the
//!   tangled cases) serves larger boards, several kings, pieces that move
//!   by the table (Mystery and course pieces, redefined chess pieces) and
//!   single-piece questions. A test holds the two to the same
//!   answers on random positions of every rule set;
//! - [`MoveList`]: a reusable list for [`Position::legal_moves_into`], so a
//!   tree walk allocates once per ply, not per node;
//! - [`Position`]: board + turn + castling rights / memory + en passant,
//!   answering the Lab 3 calls, playing and undoing moves, and perft;
//! - `fen`: FEN in and out, for any board size.
//!
//! Scans ask the position for *all* legal moves / threats once, instead of
//! testing every (from, to) pair, which would be quartic in the board side.

mod attacks;
pub mod betza;
mod bitmoves;
mod board;
mod fen;
mod game;
mod geometry;
mod magic;
mod movegen;
mod movelist;
mod notation;
mod perft;
mod pieces;
mod position;
mod refusal;
mod rules;
mod squareset;
mod untouched;

pub use board::{Board, BoardText};
pub use fen::{FenError, START_FEN};
pub use game::{Game, MACHINE_PICKS_PER_PIECE, MACHINE_TRIALS, Scores};
pub use movegen::{Move, MoveKind, file_name, parse_square, square_name};
pub use movelist::MoveList;
pub use notation::{MoveInput, arity, format_move, parse_move, syntax};
pub use perft::{Interrupted, divide_until, perft_report, perft_report_with, perft_until};
pub use pieces::{Kind, PieceTable};
pub use position::{CastleSide, CastlingRights, GameStatus, Position, UndoRecord, home_row};
pub use refusal::MoveError;
pub use rules::{
    BadShape, Castling, Ends, MYSTERY_MAX_OFFSETS, MysteryShape, Notation, PieceValues, RoleSet,
    RuleSet, RuleSetId,
};

#[cfg(test)]
mod standard_tests;
#[cfg(test)]
mod tests;
