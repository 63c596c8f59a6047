//! The reference engine: pure rule logic, no I/O.
//!
//! One engine serves every rule set; a [`RuleSet`] is data (which checks
//! apply, which special moves exist), not a separate implementation. The
//! layers are:
//!
//! - [`Board`]: the mailbox of squares, nothing else;
//! - `attacks`: "is this square attacked by that colour" by reverse ray scans,
//!   so one query costs a few rays, not a sweep over every enemy piece;
//! - `movegen`: the moves of one piece (pseudo-legal), then the legality
//!   filter (own king not left attacked), judged from the king's checks and
//!   pins, with make/unmake on a scratch board for the rare tangled cases;
//! - [`Position`]: board + turn + castling rights / memory + en passant,
//!   answering the Lab 3 calls, playing and undoing moves, and perft;
//! - `fen`: FEN in and out, for any board size.
//!
//! Scans ask the position for *all* legal moves / threats once, instead of
//! testing every (from, to) pair, which would be quartic in the board side.

mod attacks;
mod bitmoves;
mod board;
mod fen;
mod game;
mod geometry;
mod movegen;
mod movelist;
mod notation;
mod perft;
mod position;
mod refusal;
mod rules;
mod squareset;

pub use board::{Board, BoardText};
pub use fen::{FenError, START_FEN};
pub use game::{Game, MACHINE_PICKS_PER_PIECE, MACHINE_TRIALS, Scores};
pub use movegen::{Move, MoveKind, file_name, parse_square, square_name};
pub use movelist::MoveList;
pub use notation::{MoveInput, arity, format_move, parse_move, syntax};
pub use perft::{perft_report, perft_report_with};
pub use position::{CastleSide, CastlingRights, GameStatus, Position, UndoRecord, home_row};
pub use refusal::MoveError;
pub use rules::{
    Castling, MYSTERY_MAX_OFFSETS, MysteryShape, Notation, PieceValues, RoleSet, RuleSet, RuleSetId,
};

#[cfg(test)]
mod standard_tests;
#[cfg(test)]
mod tests;
