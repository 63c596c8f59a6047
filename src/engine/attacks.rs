//! Which squares a piece attacks, and whether a square is attacked.
//!
//! Piece shapes live in one table ([`shape`]) used both forwards (move
//! generation) and backwards ([`is_attacked`]): every shape here is
//! symmetric, so a square is attacked by a leaper or slider of role R exactly
//! when an R stands where R's own vectors, walked from the square, first meet
//! a piece. Pawns are the one asymmetric piece and are handled apart.
//!
//! The roles that move by the board's [`super::PieceTable`] instead (a
//! course's pieces, the Mystery piece, chess's pieces redefined by a rule
//! file) are found by the table's attack rays ([`table_attacks`]), walked
//! backwards from the square the same way; with chess's pieces alone that
//! list is empty and costs one test.

use super::board::Board;
use crate::domain::{Color, Piece, Role, Square};

const ORTHOGONAL: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];
const DIAGONAL: [(i32, i32); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];
pub(super) const ALL_DIRECTIONS: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];
pub(super) const KNIGHT: [(i32, i32); 8] = [
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

/// The fixed move shape of chess's pieces but the pawn (`None`: the pawn
/// is asymmetric; the Mystery piece's and a course's pieces' shapes are the
/// rule set's table).
pub const fn shape(role: Role) -> Option<Shape> {
    let (vectors, slides): (&'static [(i32, i32)], bool) = match role {
        Role::Knight => (&KNIGHT, false),
        Role::Bishop => (&DIAGONAL, true),
        Role::Rook => (&ORTHOGONAL, true),
        Role::Queen => (&ALL_DIRECTIONS, true),
        Role::King => (&ALL_DIRECTIONS, false),
        _ => return None,
    };
    Some(Shape { vectors, slides })
}

/// One vector of the shape table seen from the target's side: which roles
/// have it at all (so attack one step away) and which slide along it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ray {
    pub vector: (i32, i32),
    roles: u32,
    sliders: u32,
}

impl Ray {
    /// Does `role`, standing `steps` vectors away, reach the ray's origin
    /// (all squares between being empty)?
    pub fn reaches(self, role: Role, steps: u32) -> bool {
        let bit = 1 << role as u32;
        self.sliders & bit != 0 || (steps == 1 && self.roles & bit != 0)
    }

    /// Does any role slide along this vector (is a walk longer than one step useful)?
    pub fn slides(self) -> bool {
        self.sliders != 0
    }
}

const MAX_RAYS: usize = 32;

/// Every distinct vector of the shape table, with the roles using it.
const RAY_TABLE: ([Ray; MAX_RAYS], usize) = build_rays();

const fn build_rays() -> ([Ray; MAX_RAYS], usize) {
    let roles = [
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];
    let blank = Ray {
        vector: (0, 0),
        roles: 0,
        sliders: 0,
    };
    let mut rays = [blank; MAX_RAYS];
    let mut len = 0;
    let mut r = 0;
    while r < roles.len() {
        let Some(shape) = shape(roles[r]) else {
            panic!("pawns have no shape")
        };
        let bit = 1 << roles[r] as u32;
        let mut v = 0;
        while v < shape.vectors.len() {
            let vector = shape.vectors[v];
            let mut i = 0;
            while i < len && (rays[i].vector.0 != vector.0 || rays[i].vector.1 != vector.1) {
                i += 1;
            }
            if i == len {
                rays[len].vector = vector;
                len += 1;
            }
            rays[i].roles |= bit;
            if shape.slides {
                rays[i].sliders |= bit;
            }
            v += 1;
        }
        r += 1;
    }
    (rays, len)
}

/// The rays of the shape table (pawns excepted).
pub(super) fn rays() -> &'static [Ray] {
    &RAY_TABLE.0[..RAY_TABLE.1]
}

/// Is `sq` attacked by some piece of colour `by`, by move shape alone
/// (pins of the attacker are ignored: a pinned piece still attacks)?
pub fn is_attacked(board: &Board, sq: Square, by: Color) -> bool {
    attacked_ignoring(board, sq, by, None)
}

/// [`is_attacked`], with the square `ignore` (if any) seen as empty: "would
/// the king be attacked on `sq` once it has left `ignore`?"
pub fn attacked_ignoring(board: &Board, sq: Square, by: Color, ignore: Option<Square>) -> bool {
    if attacking_pawns(board, sq, by).next().is_some() || table_attacks(board, sq, by, ignore) {
        return true;
    }
    // An attacker of role R stands where R's own vectors, walked backwards
    // from `sq`, first meet a piece (the fixed shapes hold for chess's
    // pieces unless the table says otherwise, and then it said it above).
    board.piece_table().classic_movers()
        && rays().iter().any(|ray| {
            first_met(board, sq, ray.vector, ray.slides(), ignore)
                .is_some_and(|(p, steps)| p.color == by && ray.reaches(p.role, steps))
        })
}

/// The first piece met walking from `sq` against `vector` (one step only
/// unless `slides`), `ignore` seen as empty, and how many steps away it is.
/// Forced inline: this is perft's innermost loop, and as a call it cost
/// about a fifth of perft's speed (`cargo bench --bench perft`).
#[inline(always)]
fn first_met(
    board: &Board,
    sq: Square,
    (dr, dc): (i32, i32),
    slides: bool,
    ignore: Option<Square>,
) -> Option<(Piece, u32)> {
    let dims = board.dims();
    let mut at = sq;
    let mut steps = 0;
    while let Some(next) = dims.offset(at, -dr, -dc) {
        steps += 1;
        if Some(next) != ignore
            && let Some(p) = board.get(next)
        {
            return Some((p, steps));
        }
        if !slides {
            return None;
        }
        at = next;
    }
    None
}

/// Does a piece of colour `by` that moves by the board's table attack `sq`
/// (`ignore` seen as empty)? Each of the table's attack rays is walked
/// backwards from `sq`: a leap looks at one square (its path empty if it is
/// lame), a ride at the first piece met within its range.
fn table_attacks(board: &Board, sq: Square, by: Color, ignore: Option<Square>) -> bool {
    let table = board.piece_table();
    if !table.any_by_table() {
        return false;
    }
    let dims = board.dims();
    let empty = |at: Option<Square>| {
        at.is_none_or(|between| Some(between) == ignore || board.get(between).is_none())
    };
    table.rays(by).iter().any(|ray| {
        let leg = ray.leg;
        let is_attacker = |p: Piece| p.color == by && ray.roles & 1 << p.role as u32 != 0;
        if !leg.rides() {
            let Some(from) = dims.offset(sq, -leg.dr, -leg.dc) else {
                return false;
            };
            // The path runs from the attacker: offsets from `from`.
            return board.get(from).is_some_and(is_attacker)
                && Some(from) != ignore
                && (!leg.lame || leg.path().all(|(r, c)| empty(dims.offset(from, r, c))));
        }
        let mut at = sq;
        let mut steps = 0;
        while let Some(next) = dims.offset(at, -leg.dr, -leg.dc) {
            steps += 1;
            if Some(next) != ignore
                && let Some(p) = board.get(next)
            {
                return is_attacker(p) && (leg.range == 0 || steps <= leg.range);
            }
            if leg.range != 0 && steps >= leg.range {
                return false;
            }
            at = next;
        }
        false
    })
}

/// The squares of the pawns of colour `by` that attack `sq`.
pub(super) fn attacking_pawns(
    board: &Board,
    sq: Square,
    by: Color,
) -> impl Iterator<Item = Square> {
    // A pawn of `by` attacks sq from one row "behind" it, in `by`'s terms.
    let dims = board.dims();
    let pawn = Some(Piece::new(by, Role::Pawn));
    [-1, 1].into_iter().filter_map(move |dc| {
        dims.offset(sq, -by.forward(), dc)
            .filter(|&from| board.get(from) == pawn)
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
    fn mystery_pieces_attack_by_their_shape() {
        use crate::engine::MysteryShape;
        let dims = Dims::new(5, 5).unwrap();
        let camel = MysteryShape::new(false, &[(1, 3)], 0).unwrap();
        let chess = crate::engine::PieceTable::chess();
        let mut b = Board::with_pieces(dims, chess.with_mystery(Some(&camel)));
        b.set(sq(&b, 0, 0), Some(Piece::new(Color::White, Role::Mystery)));
        b.set(sq(&b, 0, 1), Some(Piece::new(Color::Black, Role::Pawn)));
        // A leaper jumps over the pawn.
        assert!(is_attacked(&b, sq(&b, 1, 3), Color::White));
        assert!(is_attacked(&b, sq(&b, 3, 1), Color::White));
        assert!(!is_attacked(&b, sq(&b, 1, 2), Color::White));
        assert!(!is_attacked(&b, sq(&b, 1, 3), Color::Black));
        let rider = MysteryShape::new(true, &[(1, 1)], 0).unwrap();
        let mut b = Board::with_pieces(dims, chess.with_mystery(Some(&rider)));
        b.set(sq(&b, 0, 0), Some(Piece::new(Color::Black, Role::Mystery)));
        b.set(sq(&b, 2, 2), Some(Piece::new(Color::White, Role::Pawn)));
        assert!(is_attacked(&b, sq(&b, 2, 2), Color::Black));
        // A slider stops at the first piece.
        assert!(!is_attacked(&b, sq(&b, 3, 3), Color::Black));
        // Without a shape a Mystery piece attacks nothing.
        let mut b = Board::empty(dims);
        b.set(sq(&b, 0, 0), Some(Piece::new(Color::Black, Role::Mystery)));
        assert!(!is_attacked(&b, sq(&b, 1, 1), Color::Black));
    }

    #[test]
    fn own_pieces_do_not_count_as_attackers() {
        let b = board(&["R.", ".."]);
        assert!(!is_attacked(&b, sq(&b, 0, 1), Color::Black));
        assert!(is_attacked(&b, sq(&b, 0, 1), Color::White));
    }
}
