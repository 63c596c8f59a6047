//! Which squares a piece attacks, and whether a square is attacked.
//!
//! Piece shapes live in one table ([`shape`]) used both forwards (move
//! generation) and backwards ([`is_attacked`]): every shape here is
//! symmetric, so a square is attacked by a leaper or slider of role R exactly
//! when an R stands where R's own vectors, walked from the square, first meet
//! a piece. Pawns are the one asymmetric piece and are handled apart.

use super::board::Board;
use crate::domain::{Color, Piece, Role, Square};

const ORTHOGONAL: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];
const DIAGONAL: [(i32, i32); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];
const ALL_DIRECTIONS: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];
const KNIGHT: [(i32, i32); 8] = [
    (-2, -1),
    (-2, 1),
    (-1, -2),
    (-1, 2),
    (1, -2),
    (1, 2),
    (2, -1),
    (2, 1),
];

/// How a non-pawn piece moves: a set of vectors, taken once (leaper) or
/// repeated until blocked (slider).
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub vectors: &'static [(i32, i32)],
    pub slides: bool,
}

/// The move shape of every role but the pawn (`None`).
pub fn shape(role: Role) -> Option<Shape> {
    let (vectors, slides): (&'static [(i32, i32)], bool) = match role {
        Role::Pawn => return None,
        Role::Knight => (&KNIGHT, false),
        Role::Bishop => (&DIAGONAL, true),
        Role::Rook => (&ORTHOGONAL, true),
        Role::Queen => (&ALL_DIRECTIONS, true),
        Role::King => (&ALL_DIRECTIONS, false),
    };
    Some(Shape { vectors, slides })
}

/// The squares a piece of `shape` standing on `from` reaches: along each
/// vector up to and including the first occupied square (of either colour).
pub fn shape_targets(board: &Board, from: Square, shape: Shape, out: &mut Vec<Square>) {
    let dims = board.dims();
    for &(dr, dc) in shape.vectors {
        let mut at = from;
        while let Some(next) = dims.offset(at, dr, dc) {
            out.push(next);
            if !shape.slides || board.get(next).is_some() {
                break;
            }
            at = next;
        }
    }
}

/// The squares a pawn of `color` on `from` captures on (whether occupied or not).
pub fn pawn_attack_squares(
    board: &Board,
    from: Square,
    color: Color,
) -> impl Iterator<Item = Square> {
    let dims = board.dims();
    let dr = color.forward();
    [-1, 1]
        .into_iter()
        .filter_map(move |dc| dims.offset(from, dr, dc))
}

/// Is `sq` attacked by some piece of colour `by`, by move shape alone
/// (pins of the attacker are ignored: a pinned piece still attacks)?
pub fn is_attacked(board: &Board, sq: Square, by: Color) -> bool {
    attacked_by_pawn(board, sq, by)
        || [
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ]
        .into_iter()
        .any(|role| attacked_by_shape(board, sq, Piece::new(by, role)))
}

fn attacked_by_pawn(board: &Board, sq: Square, by: Color) -> bool {
    // A pawn of `by` attacks sq from one row "behind" it, in `by`'s terms.
    let dims = board.dims();
    let pawn = Some(Piece::new(by, Role::Pawn));
    [-1, 1].into_iter().any(|dc| {
        dims.offset(sq, -by.forward(), dc)
            .is_some_and(|from| board.get(from) == pawn)
    })
}

fn attacked_by_shape(board: &Board, sq: Square, attacker: Piece) -> bool {
    let Some(shape) = shape(attacker.role) else {
        return false;
    };
    let dims = board.dims();
    shape.vectors.iter().any(|&(dr, dc)| {
        let mut at = sq;
        while let Some(next) = dims.offset(at, -dr, -dc) {
            match board.get(next) {
                Some(p) => return p == attacker,
                None if shape.slides => at = next,
                None => return false,
            }
        }
        false
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Dims;

    fn board(rows: &[&str]) -> Board {
        let dims = Dims::new(rows.len() as i64, rows[0].len() as i64).unwrap();
        let mut b = Board::empty(dims);
        for (r, line) in rows.iter().enumerate() {
            for (c, ch) in line.chars().enumerate() {
                if let Some(p) = Piece::from_char(ch) {
                    b.set(dims.square_at(r as i64, c as i64).unwrap(), Some(p));
                }
            }
        }
        b
    }

    fn sq(b: &Board, r: i64, c: i64) -> Square {
        b.dims().square_at(r, c).unwrap()
    }

    #[test]
    fn sliders_attack_up_to_the_first_blocker() {
        let b = board(&["r..P.", ".....", "....."]);
        assert!(is_attacked(&b, sq(&b, 0, 3), Color::Black));
        assert!(!is_attacked(&b, sq(&b, 0, 4), Color::Black));
        assert!(is_attacked(&b, sq(&b, 2, 0), Color::Black));
        assert!(!is_attacked(&b, sq(&b, 1, 1), Color::Black));
    }

    #[test]
    fn bishops_attack_diagonally_only() {
        let b = board(&["b...", "....", "....", "...."]);
        assert!(is_attacked(&b, sq(&b, 3, 3), Color::Black));
        assert!(!is_attacked(&b, sq(&b, 0, 3), Color::Black));
    }

    #[test]
    fn pawns_attack_diagonally_forward_only() {
        let b = board(&["...", ".p.", "...", ".P."]);
        // black pawn on (1,1) attacks row 2
        assert!(is_attacked(&b, sq(&b, 2, 0), Color::Black));
        assert!(is_attacked(&b, sq(&b, 2, 2), Color::Black));
        assert!(!is_attacked(&b, sq(&b, 0, 0), Color::Black));
        assert!(!is_attacked(&b, sq(&b, 2, 1), Color::Black));
        // white pawn on (3,1) attacks row 2
        assert!(is_attacked(&b, sq(&b, 2, 0), Color::White));
        assert!(!is_attacked(&b, sq(&b, 1, 0), Color::White));
    }

    #[test]
    fn kings_and_knights_leap_once() {
        let b = board(&["K....", ".....", "....n"]);
        assert!(is_attacked(&b, sq(&b, 1, 1), Color::White));
        assert!(!is_attacked(&b, sq(&b, 2, 2), Color::White));
        assert!(is_attacked(&b, sq(&b, 1, 2), Color::Black));
        assert!(is_attacked(&b, sq(&b, 0, 3), Color::Black));
        assert!(!is_attacked(&b, sq(&b, 1, 3), Color::Black));
    }

    #[test]
    fn own_pieces_do_not_count_as_attackers() {
        let b = board(&["R.", ".."]);
        assert!(!is_attacked(&b, sq(&b, 0, 1), Color::Black));
        assert!(is_attacked(&b, sq(&b, 0, 1), Color::White));
    }
}
