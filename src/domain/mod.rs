//! Domain types shared by every layer: colours, piece kinds, board geometry.
//!
//! These are deliberately small `Copy` types whose constructors validate their
//! input, so that the parser, the engine and the reporters never pass raw
//! integers or strings between each other. A [`Square`] only exists for a
//! board whose [`Dims`] it was checked against; scenario coordinates that may
//! lie off the board stay [`Coord`]s until [`Dims::check`] (or [`Dims::square`])
//! accepts them.

mod geometry;
mod piece;

pub use geometry::{BoardSizeError, Coord, Dims, MAX_SIDE, OffBoard, Square};
pub use piece::{Color, Piece, Role};
