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
//!   filter (own king not left attacked) by make/unmake on a scratch board;
//! - [`Position`]: board + turn + castling memory, answering the Lab 3 calls.
//!
//! Scans ask the position for *all* legal moves / threats once, instead of
//! testing every (from, to) pair, which would be quartic in the board side.

mod attacks;
mod board;
mod movegen;
mod position;
mod rules;

pub use board::{Board, BoardText};
pub use movegen::{Move, MoveKind};
pub use position::Position;
pub use rules::{Castling, RuleSet, RuleSetId};

#[cfg(test)]
mod tests;
