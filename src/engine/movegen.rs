//! Move generation: the moves of one piece by shape (pseudo-legal), plus the
//! special moves a rule set enables, then the king-safety filter.
//!
//! Legality is decided by make/unmake on a scratch copy of the board, so a
//! whole scan clones the board once, not once per candidate move.

use super::attacks::{is_attacked, pawn_attack_squares, shape, shape_targets};
use super::board::Board;
use super::position::Position;
use super::rules::Castling;
use crate::domain::{Color, Piece, Role, Square};

/// What a move does besides carrying one piece from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveKind {
    /// Moves one piece, capturing whatever stands on the target.
    Normal,
    /// The king moves two squares and the rook jumps to the square it crossed.
    Castle { rook_from: Square, rook_to: Square },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub from: Square,
    pub to: Square,
    pub kind: MoveKind,
}

/// What [`make`] removed, so [`unmake`] can put it back.
pub(super) struct Undo {
    captured: Option<Piece>,
}

/// Plays `mv` on `board` without any legality check.
pub(super) fn make(board: &mut Board, mv: Move) -> Undo {
    let piece = board.set(mv.from, None);
    let captured = board.set(mv.to, piece);
    if let MoveKind::Castle { rook_from, rook_to } = mv.kind {
        let rook = board.set(rook_from, None);
        board.set(rook_to, rook);
    }
    Undo { captured }
}

pub(super) fn unmake(board: &mut Board, mv: Move, undo: Undo) {
    if let MoveKind::Castle { rook_from, rook_to } = mv.kind {
        let rook = board.set(rook_to, None);
        board.set(rook_from, rook);
    }
    let piece = board.set(mv.to, undo.captured);
    board.set(mv.from, piece);
}

/// Every pseudo-legal move of the piece on `from` (none if the square is
/// empty): right shape, on the board, not onto an own piece, path clear.
pub(super) fn pseudo_moves(pos: &Position, from: Square, out: &mut Vec<Move>) {
    let board = pos.board();
    let Some(piece) = board.get(from) else {
        return;
    };
    let normal = |to| Move {
        from,
        to,
        kind: MoveKind::Normal,
    };
    match shape(piece.role) {
        Some(shape) => {
            let mut targets = Vec::new();
            shape_targets(board, from, shape, &mut targets);
            out.extend(
                targets
                    .into_iter()
                    .filter(|&to| board.get(to).is_none_or(|p| p.color != piece.color))
                    .map(normal),
            );
        }
        None => pawn_moves(pos, from, piece.color, out),
    }
    if piece.role == Role::King {
        castling_moves(pos, from, piece.color, out);
    }
}

fn pawn_moves(pos: &Position, from: Square, color: Color, out: &mut Vec<Move>) {
    let board = pos.board();
    let dims = board.dims();
    let normal = |to| Move {
        from,
        to,
        kind: MoveKind::Normal,
    };
    if let Some(one) = dims
        .offset(from, color.forward(), 0)
        .filter(|&s| board.get(s).is_none())
    {
        out.push(normal(one));
        let on_start_row = match color {
            Color::Black => from.row == 1,
            Color::White => from.row as i64 == dims.rows() as i64 - 2,
        };
        let two = dims
            .offset(one, color.forward(), 0)
            .filter(|&s| board.get(s).is_none());
        if let Some(two) = two.filter(|_| pos.rules().pawn_double_step && on_start_row) {
            out.push(normal(two));
        }
    }
    out.extend(
        pawn_attack_squares(board, from, color)
            .filter(|&to| board.get(to).is_some_and(|p| p.color != color))
            .map(normal),
    );
}

/// Castling by the rule set's flavour. The king's own safety on the landing
/// square is left to the common legality filter.
fn castling_moves(pos: &Position, from: Square, color: Color, out: &mut Vec<Move>) {
    match pos.rules().castling {
        Castling::None => {}
        Castling::HomeSquares8x8 => home_castling(pos, from, color, out),
    }
}

fn home_castling(pos: &Position, king_sq: Square, color: Color, out: &mut Vec<Move>) {
    let board = pos.board();
    let dims = board.dims();
    if (dims.rows(), dims.cols()) != (8, 8) {
        return;
    }
    let home = match color {
        Color::Black => 0,
        Color::White => 7,
    };
    if (king_sq.row, king_sq.col) != (home, 4) || !pos.untouched(king_sq) {
        return;
    }
    let at = |col: u16| Square { row: home, col };
    let rook = Some(Piece::new(color, Role::Rook));
    // (rook column, king's landing column, the column the king crosses)
    for (rook_col, king_to, crossed) in [(0u16, 2u16, 3u16), (7, 6, 5)] {
        let rook_sq = at(rook_col);
        let (lo, hi) = (rook_col.min(4) + 1, rook_col.max(4));
        let path_clear = (lo..hi).all(|c| board.get(at(c)).is_none());
        if board.get(rook_sq) != rook || !pos.untouched(rook_sq) || !path_clear {
            continue;
        }
        if is_attacked(board, king_sq, color.opponent())
            || king_would_be_attacked(board, king_sq, at(crossed), color)
        {
            continue;
        }
        out.push(Move {
            from: king_sq,
            to: at(king_to),
            kind: MoveKind::Castle {
                rook_from: rook_sq,
                rook_to: at(crossed),
            },
        });
    }
}

/// Would the king on `from` be attacked standing on the empty square `to`?
fn king_would_be_attacked(board: &Board, from: Square, to: Square, color: Color) -> bool {
    let mut scratch = board.clone();
    let king = scratch.set(from, None);
    scratch.set(to, king);
    is_attacked(&scratch, to, color.opponent())
}

/// Does `mv` (already pseudo-legal) leave the mover's kings safe? `kings`
/// are the mover's king squares before the move; `scratch` equals the
/// position's board and is restored before returning.
pub(super) fn keeps_king_safe(
    scratch: &mut Board,
    mv: Move,
    color: Color,
    kings: &[Square],
) -> bool {
    if kings.is_empty() {
        return true; // a side with no king has nothing to keep safe
    }
    let undo = make(scratch, mv);
    let safe = kings
        .iter()
        .map(|&k| if k == mv.from { mv.to } else { k })
        .all(|k| !is_attacked(scratch, k, color.opponent()));
    unmake(scratch, mv, undo);
    safe
}
