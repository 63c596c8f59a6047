//! A game position and the calls a Lab 3 `ChessBoard` answers.

use super::board::{Board, BoardText};
use super::movegen::{self, Move, MoveKind};
use super::rules::RuleSet;
use crate::domain::{Color, Coord, Dims, Piece, Square};

/// Board, side to move, and which squares still hold their setup piece
/// (castling needs "has not moved since the setup").
#[derive(Clone, Debug)]
pub struct Position {
    rules: RuleSet,
    board: Board,
    turn: Color,
    untouched: Vec<bool>,
}

impl Position {
    /// An empty board; White moves first.
    pub fn new(rules: RuleSet, dims: Dims) -> Position {
        Position {
            rules,
            board: Board::empty(dims),
            turn: Color::White,
            untouched: vec![true; dims.len()],
        }
    }

    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn dims(&self) -> Dims {
        self.board.dims()
    }

    pub fn turn(&self) -> Color {
        self.turn
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
        self.untouched[self.dims().index(sq)]
    }

    /// The legal moves of the piece on `from` (none for an empty square).
    /// Turn is not considered here; see [`Position::valid_moves`].
    fn legal_moves_from(&self, scratch: &mut Board, from: Square, out: &mut Vec<Move>) {
        let Some(piece) = self.board.get(from) else {
            return;
        };
        let mut pseudo = Vec::new();
        movegen::pseudo_moves(self, from, &mut pseudo);
        if !self.rules.king_safety {
            out.extend(pseudo);
            return;
        }
        let kings = self.board.kings(piece.color);
        out.extend(
            pseudo
                .into_iter()
                .filter(|&mv| movegen::keeps_king_safe(scratch, mv, piece.color, &kings)),
        );
    }

    fn may_move_now(&self, color: Color) -> bool {
        !self.rules.validity_checks_turn || color == self.turn
    }

    /// Every valid move on the board, sorted by (from, to) row-major: what an
    /// `isValidScan` answers true for. Computed once, not per square pair.
    pub fn valid_moves(&self) -> Vec<Move> {
        let mut scratch = self.board.clone();
        let mut out = Vec::new();
        for (from, piece) in self.board.pieces() {
            if self.may_move_now(piece.color) {
                self.legal_moves_from(&mut scratch, from, &mut out);
            }
        }
        out.sort_by_key(|mv| (mv.from, mv.to));
        out
    }

    /// The legal move from `from` to `to`, if there is one.
    fn find_move(&self, from: Coord, to: Coord) -> Option<Move> {
        let dims = self.dims();
        let (from, to) = (dims.square(from)?, dims.square(to)?);
        let piece = self.board.get(from)?;
        if !self.may_move_now(piece.color) {
            return None;
        }
        let mut scratch = self.board.clone();
        let mut moves = Vec::new();
        self.legal_moves_from(&mut scratch, from, &mut moves);
        moves.into_iter().find(|mv| mv.to == to)
    }

    /// Lab 3 `isValidMove`: false for anything off the board.
    pub fn is_valid_move(&self, from: Coord, to: Coord) -> bool {
        self.find_move(from, to).is_some()
    }

    /// Lab 3 `movePiece`: a valid move by the side to move is played and
    /// passes the turn; anything else changes nothing and returns false.
    pub fn move_piece(&mut self, from: Coord, to: Coord) -> bool {
        let Some(mv) = self.find_move(from, to) else {
            return false;
        };
        if self.board.get(mv.from).map(|p| p.color) != Some(self.turn) {
            return false;
        }
        self.play(mv);
        true
    }

    fn play(&mut self, mv: Move) {
        movegen::make(&mut self.board, mv);
        let mut touch = |sq: Square| {
            let i = self.board.dims().index(sq);
            self.untouched[i] = false;
        };
        touch(mv.from);
        touch(mv.to);
        if let MoveKind::Castle { rook_from, rook_to } = mv.kind {
            touch(rook_from);
            touch(rook_to);
        }
        self.turn = self.turn.opponent();
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
}
