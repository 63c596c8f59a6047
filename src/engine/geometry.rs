//! The attack tables of one board size, as square sets.
//!
//! Boards come in any size from 1x1 to 256x256, so the tables cannot be
//! constants (as 8x8-only engines make them): they are built from the
//! shapes' vectors on first use of a size and kept (see
//! [`SquareSet::geometry`]). Leapers (knight, king, pawn captures) get one
//! set per square. Sliders use "obstruction difference" on the four lines
//! through a square: along any line of a row-major board the indices grow
//! in one direction, so the nearest blocker above is the lowest member of
//! `occupied ∩ upper` and the one below the highest of `occupied ∩ lower`,
//! found by one subtraction; this needs three sets per line and square
//! instead of magic tables that would have to be searched for every size.
//! 8x8, the size that matters most, has magic tables too (numbers fixed as
//! data, tables filled from the lines: [`super::magic`]), which its rooks
//! and bishops use instead of the lines.

use super::attacks::{ALL_DIRECTIONS, KNIGHT};
use super::magic::{Magics, Slider};
use super::squareset::SquareSet;
use crate::domain::{Color, Dims, Square};
use std::fmt;

/// The four lines through a square, each walked towards growing indices:
/// along the row, down the column, and the two diagonals.
const LINE_STEPS: [(i32, i32); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];

/// One line through a square: its squares with lower and higher indices.
#[derive(Clone, Copy)]
struct Line<S> {
    lower: S,
    upper: S,
    both: S,
}

/// The tables of one square, side by side: a lookup checks the square's
/// index against the board once for all of them (one vector a table cost
/// one bounds check a table, a tenth of move generation's time).
#[derive(Clone, Copy)]
struct SquareTables<S> {
    knight: S,
    king: S,
    /// By colour: the squares a pawn of that colour here attacks.
    pawn_attacks: [S; 2],
    /// By colour: the square one step forward (empty past the last row).
    pawn_push: [S; 2],
    /// A rook's and a bishop's squares from here on an empty board, to
    /// skip line scans that no enemy slider stands on.
    rook_rays: S,
    bishop_rays: S,
    lines: [Line<S>; 4],
}

/// Every table the set-based generator reads for one board size.
pub(super) struct Geometry<S> {
    dims: Dims,
    squares: Vec<Square>,
    /// The first [`NEAR`] of `squares` in an array, which an index taken
    /// from a one- or two-word set reads without a bounds check: move
    /// generation looked up the squares of every move it wrote out (their
    /// two bounds checks were 4 of the listing loop's 19 instructions a
    /// move) until moves kept indices; en passant and castling still do.
    near: [Square; NEAR],
    at: Vec<SquareTables<S>>,
    /// Every square of the board.
    pub all: S,
    /// Every square but those of the first / the last column.
    pub not_first_col: S,
    pub not_last_col: S,
    /// By colour: the row its pawns may double-step from.
    pub start_row: [S; 2],
    /// By colour: the row its pawns promote on.
    pub last_row: [S; 2],
    /// Rook and bishop attacks by magic multiplication on 8x8 (see
    /// [`super::magic`]): one lookup a piece instead of two lines.
    magics: Option<Box<Magics>>,
}

/// How many squares [`Geometry::square`] reads from its array: the
/// capacity of the two-word set.
const NEAR: usize = 128;

impl<S: SquareSet> Geometry<S> {
    pub(super) fn new(dims: Dims) -> Geometry<S> {
        assert!(dims.len() <= S::CAPACITY, "{dims:?} does not fit the set");
        let squares: Vec<Square> = dims.squares().collect();
        let set_of = |sq: Square, vectors: &[(i32, i32)]| {
            vectors
                .iter()
                .filter_map(|&(dr, dc)| dims.offset(sq, dr, dc))
                .fold(S::EMPTY, |set, to| set | S::single(dims.index(to)))
        };
        let by_color = |f: &dyn Fn(Color) -> Vec<S>| [f(Color::Black), f(Color::White)];
        let pawn_attacks: [Vec<S>; 2] = by_color(&|c| {
            let vectors = [(c.forward(), -1), (c.forward(), 1)];
            squares.iter().map(|&sq| set_of(sq, &vectors)).collect()
        });
        let pawn_push: [Vec<S>; 2] = by_color(&|c| {
            let vectors = [(c.forward(), 0)];
            squares.iter().map(|&sq| set_of(sq, &vectors)).collect()
        });
        let row_set = |row: i64| {
            squares
                .iter()
                .filter(|sq| sq.row() as i64 == row)
                .fold(S::EMPTY, |set, &sq| set | S::single(dims.index(sq)))
        };
        let rows = dims.rows() as i64;
        let walk = |sq: Square, (dr, dc): (i32, i32)| {
            let mut set = S::EMPTY;
            let mut at = sq;
            while let Some(next) = dims.offset(at, dr, dc) {
                set |= S::single(dims.index(next));
                at = next;
            }
            set
        };
        let lines: Vec<[Line<S>; 4]> = squares
            .iter()
            .map(|&sq| {
                LINE_STEPS.map(|(dr, dc)| {
                    let upper = walk(sq, (dr, dc));
                    let lower = walk(sq, (-dr, -dc));
                    Line {
                        lower,
                        upper,
                        both: lower | upper,
                    }
                })
            })
            .collect();
        let col_set = |col: u16| {
            squares
                .iter()
                .filter(|sq| sq.col() == col)
                .fold(S::EMPTY, |set, &sq| set | S::single(dims.index(sq)))
        };
        let all = squares
            .iter()
            .fold(S::EMPTY, |set, &sq| set | S::single(dims.index(sq)));
        let at = squares
            .iter()
            .enumerate()
            .map(|(i, &sq)| SquareTables {
                knight: set_of(sq, &KNIGHT),
                king: set_of(sq, &ALL_DIRECTIONS),
                pawn_attacks: [pawn_attacks[0][i], pawn_attacks[1][i]],
                pawn_push: [pawn_push[0][i], pawn_push[1][i]],
                rook_rays: lines[i][0].both | lines[i][1].both,
                bishop_rays: lines[i][2].both | lines[i][3].both,
                lines: lines[i],
            })
            .collect();
        let mut geometry = Geometry {
            dims,
            all,
            not_first_col: all & !col_set(0),
            not_last_col: all & !col_set(dims.cols() - 1),
            start_row: [row_set(1), row_set(rows - 2)],
            last_row: [row_set(rows - 1), row_set(0)],
            at,
            near: std::array::from_fn(|i| squares.get(i).copied().unwrap_or(squares[0])),
            squares,
            magics: None,
        };
        let eight_by_eight = (dims.rows(), dims.cols()) == (8, 8);
        if eight_by_eight && S::EMPTY.as_u64().is_some() {
            geometry.magics = geometry.with_sliders(Magics::eight_by_eight).map(Box::new);
        }
        geometry
    }

    /// `f` of the rooks' and the bishops' relevant squares and line
    /// attacks on a one-word board (see [`super::magic`]).
    fn with_sliders<T>(&self, f: impl FnOnce(Slider, Slider) -> T) -> T {
        let word = |s: S| s.as_u64().expect("a one-word board");
        // A line's squares less the last one each way: whatever stands
        // there, the attacks are the same.
        let relevant = |i: usize, lines: [usize; 2]| {
            lines.iter().fold(0, |mask, &l| {
                let Line { lower, upper, .. } = self.at[i].lines[l];
                let (lower, upper) = (word(lower), word(upper));
                let top = (1u64 << 63).checked_shr(upper.leading_zeros()).unwrap_or(0);
                mask | (upper & !top) | (lower & lower.wrapping_sub(1))
            })
        };
        let n = self.dims.len();
        let rook_masks: Vec<u64> = (0..n).map(|i| relevant(i, [0, 1])).collect();
        let bishop_masks: Vec<u64> = (0..n).map(|i| relevant(i, [2, 3])).collect();
        let attacks = |[a, b]: [usize; 2]| {
            move |i: usize, occupied: u64| {
                let occupied = S::from_u64(occupied);
                word(self.line_attacks(i, a, occupied) | self.line_attacks(i, b, occupied))
            }
        };
        let (rook, bishop) = (attacks([0, 1]), attacks([2, 3]));
        f(
            Slider {
                masks: &rook_masks,
                attacks: &rook,
            },
            Slider {
                masks: &bishop_masks,
                attacks: &bishop,
            },
        )
    }

    /// What the tables of `dims` take on the heap: per square, its
    /// coordinates, eight sets (knight, king, two pawn attacks, two pawn
    /// pushes, rook and bishop rays) and the four lines. What the budget of
    /// multi-word sizes counts (see [`SquareSet::geometry`]).
    pub(super) fn bytes(dims: Dims) -> usize {
        use std::mem::size_of;
        let per_square = size_of::<Square>() + size_of::<SquareTables<S>>();
        dims.len() * per_square
    }

    pub(super) fn dims(&self) -> Dims {
        self.dims
    }

    #[inline(always)]
    pub(super) fn square(&self, i: usize) -> Square {
        // A member of a set of at most `NEAR` squares is below `NEAR`.
        match S::CAPACITY <= NEAR {
            true => self.near[i % NEAR],
            false => self.squares[i],
        }
    }

    #[inline(always)]
    pub(super) fn index(&self, sq: Square) -> usize {
        self.dims.index(sq)
    }

    #[inline(always)]
    pub(super) fn knight(&self, i: usize) -> S {
        self.at[i].knight
    }

    #[inline(always)]
    pub(super) fn king(&self, i: usize) -> S {
        self.at[i].king
    }

    /// The squares a pawn of `color` on square `i` attacks.
    #[inline(always)]
    pub(super) fn pawn_attacks(&self, color: Color, i: usize) -> S {
        self.at[i].pawn_attacks[color as usize]
    }

    /// The squares one row forward of `set`'s, for `color`'s pawns,
    /// shifted by `cols + dc` (`dc`: -1, 0 or 1 column; the caller keeps
    /// the squares that would leave the board sideways out of `set`).
    #[inline(always)]
    pub(super) fn forward(&self, color: Color, set: S, dc: i32) -> S {
        let cols = self.dims.cols() as i32;
        match color {
            Color::Black => set.up((cols + dc) as u32) & self.all,
            Color::White => set.down((cols - dc) as u32),
        }
    }

    /// How far (in index) one row forward and `dc` columns is for `color`.
    #[inline(always)]
    pub(super) fn forward_delta(&self, color: Color, dc: i32) -> isize {
        let cols = self.dims.cols() as isize;
        match color {
            Color::Black => cols + dc as isize,
            Color::White => -cols + dc as isize,
        }
    }

    /// The square one step forward for a pawn of `color` on `i` (or none).
    #[inline(always)]
    pub(super) fn pawn_push(&self, color: Color, i: usize) -> S {
        self.at[i].pawn_push[color as usize]
    }

    /// The squares a slider on `i` reaches along line `line`, up to and
    /// including the first member of `occupied` each way.
    #[inline(always)]
    pub(super) fn line_attacks(&self, i: usize, line: usize, occupied: S) -> S {
        let Line { lower, upper, both } = self.at[i].lines[line];
        let below = (lower & occupied).highest_or_zero();
        let above = upper & occupied;
        both & (above ^ above.minus(below))
    }

    /// A rook's squares from `i` on an empty board.
    #[inline(always)]
    pub(super) fn rook_rays(&self, i: usize) -> S {
        self.at[i].rook_rays
    }

    /// A bishop's squares from `i` on an empty board.
    #[inline(always)]
    pub(super) fn bishop_rays(&self, i: usize) -> S {
        self.at[i].bishop_rays
    }

    #[inline(always)]
    pub(super) fn rook(&self, i: usize, occupied: S) -> S {
        if let (Some(occupied), Some(magics)) = (occupied.as_u64(), &self.magics) {
            return S::from_u64(magics.rook(i, occupied));
        }
        self.line_attacks(i, 0, occupied) | self.line_attacks(i, 1, occupied)
    }

    #[inline(always)]
    pub(super) fn bishop(&self, i: usize, occupied: S) -> S {
        if let (Some(occupied), Some(magics)) = (occupied.as_u64(), &self.magics) {
            return S::from_u64(magics.bishop(i, occupied));
        }
        self.line_attacks(i, 2, occupied) | self.line_attacks(i, 3, occupied)
    }

    /// The line (of the four) through `a` that holds `b`, if any.
    fn line_of(&self, a: usize, b: usize) -> Option<usize> {
        (0..4).find(|&l| self.at[a].lines[l].both.has(b))
    }

    /// Every square of the line through `a` and `b` but `a` itself (empty
    /// when they are not aligned): where a piece pinned on it may go.
    pub(super) fn through(&self, a: usize, b: usize) -> S {
        self.line_of(a, b)
            .map_or(S::EMPTY, |l| self.at[a].lines[l].both)
    }

    /// The squares strictly between `a` and `b` on their line (empty when
    /// they are not aligned or are neighbours).
    pub(super) fn between(&self, a: usize, b: usize) -> S {
        self.line_of(a, b).map_or(S::EMPTY, |l| {
            self.line_attacks(a, l, S::single(b)) & self.line_attacks(b, l, S::single(a))
        })
    }
}

/// Tables are fixed by the size: two are equal when their sizes are.
impl<S> PartialEq for Geometry<S> {
    fn eq(&self, other: &Self) -> bool {
        self.dims == other.dims
    }
}

impl<S> Eq for Geometry<S> {}

impl<S> fmt::Debug for Geometry<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Geometry({}x{})", self.dims.rows(), self.dims.cols())
    }
}

#[cfg(test)]
mod tests {
    use super::super::squareset::{Set256, Set512, Words};
    use super::*;

    fn set(dims: Dims, squares: &[(i64, i64)]) -> u64 {
        squares.iter().fold(0, |s, &(r, c)| {
            s | 1 << dims.index(dims.square_at(r, c).unwrap())
        })
    }

    #[test]
    fn sliders_stop_at_the_first_blocker_on_any_width() {
        // 5 rows x 7 columns: a rook on (2,3), blockers on (2,5) and (0,3).
        let dims = Dims::new(5, 7).unwrap();
        let g = Geometry::<u64>::new(dims);
        let at = |r, c| dims.index(dims.square_at(r, c).unwrap());
        let occ = set(dims, &[(2, 5), (0, 3), (2, 3)]);
        let expected = set(
            dims,
            &[
                (2, 0),
                (2, 1),
                (2, 2),
                (2, 4),
                (2, 5),
                (1, 3),
                (0, 3),
                (3, 3),
                (4, 3),
            ],
        );
        assert_eq!(g.rook(at(2, 3), occ), expected);
        // A bishop in the corner of the same board, blocked on (2,2).
        let occ = set(dims, &[(2, 2)]);
        assert_eq!(g.bishop(at(0, 0), occ), set(dims, &[(1, 1), (2, 2)]));
        assert_eq!(g.between(at(0, 0), at(3, 3)), set(dims, &[(1, 1), (2, 2)]));
        assert_eq!(g.between(at(0, 0), at(1, 2)), 0);
        assert_eq!(g.through(at(4, 0), at(3, 1)), g.bishop(at(4, 0), 0));
    }

    /// A four-word set of a board that also fits a `u128`, as a `u128`.
    fn narrow(s: Set256) -> u128 {
        assert_eq!(s.0[2..], [0, 0], "no square past 128");
        s.0[0] as u128 | (s.0[1] as u128) << 64
    }

    /// The multi-word tables hold what the `u128` ones hold, on boards that
    /// fit both (the one-word tables are held to the move rules by the
    /// generator tests), and the line attacks and pawn shifts computed on
    /// them agree on random occupancies.
    #[test]
    fn four_word_tables_match_the_u128_ones() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for (rows, cols) in [(11, 11), (12, 10), (1, 128), (128, 1), (9, 14), (3, 5)] {
            let dims = Dims::new(rows, cols).unwrap();
            let (w, n) = (Geometry::<Set256>::new(dims), Geometry::<u128>::new(dims));
            assert_eq!(narrow(w.all), n.all);
            assert_eq!(narrow(w.not_first_col), n.not_first_col);
            assert_eq!(narrow(w.not_last_col), n.not_last_col);
            for c in [Color::Black, Color::White] {
                assert_eq!(narrow(w.start_row[c as usize]), n.start_row[c as usize]);
                assert_eq!(narrow(w.last_row[c as usize]), n.last_row[c as usize]);
            }
            for _ in 0..50 {
                let bits = (random() as u128) << 64 | random() as u128;
                let occ_n = bits & (random() as u128 | (random() as u128) << 64) & n.all;
                let occ_w = Words([occ_n as u64, (occ_n >> 64) as u64, 0, 0]);
                for i in 0..dims.len() {
                    assert_eq!(narrow(w.knight(i)), n.knight(i));
                    assert_eq!(narrow(w.king(i)), n.king(i));
                    assert_eq!(narrow(w.rook_rays(i)), n.rook_rays(i));
                    assert_eq!(narrow(w.bishop_rays(i)), n.bishop_rays(i));
                    assert_eq!(narrow(w.rook(i, occ_w)), n.rook(i, occ_n), "{dims:?} {i}");
                    assert_eq!(
                        narrow(w.bishop(i, occ_w)),
                        n.bishop(i, occ_n),
                        "{dims:?} {i}"
                    );
                    for c in [Color::Black, Color::White] {
                        assert_eq!(narrow(w.pawn_attacks(c, i)), n.pawn_attacks(c, i));
                        assert_eq!(narrow(w.pawn_push(c, i)), n.pawn_push(c, i));
                    }
                }
                for c in [Color::Black, Color::White] {
                    for dc in [-1, 0, 1] {
                        assert_eq!(narrow(w.forward(c, occ_w, dc)), n.forward(c, occ_n, dc));
                    }
                }
            }
        }
    }

    /// [`Geometry::bytes`] (what the budget counts) is what the tables hold.
    #[test]
    fn bytes_counts_every_table() {
        fn held<S>(g: &Geometry<S>) -> usize {
            use std::mem::size_of_val;
            size_of_val(&g.squares[..]) + size_of_val(&g.at[..])
        }
        let dims = |rows, cols| Dims::new(rows, cols).unwrap();
        let eight = dims(8, 8);
        assert_eq!(
            held(&Geometry::<u64>::new(eight)),
            Geometry::<u64>::bytes(eight)
        );
        let sixteen = dims(16, 16);
        let tables = Geometry::<Set256>::new(sixteen);
        assert_eq!(held(&tables), Geometry::<Set256>::bytes(sixteen));
        // The figure the budget's doc quotes for 16x16.
        assert_eq!(Geometry::<Set256>::bytes(sixteen), 164_864);
        for d in [dims(22, 23), dims(1, 1)] {
            assert_eq!(
                held(&Geometry::<Set512>::new(d)),
                Geometry::<Set512>::bytes(d)
            );
        }
    }

    /// The 8x8 magic numbers are what their seeded search finds, fit
    /// every square (the board has them), and give the lines' attacks on
    /// random occupancies, with and without the relevant squares' edges.
    #[test]
    fn magic_tables_are_what_the_search_finds() {
        use super::super::magic::tests::{search_8x8, tables};
        let dims = Dims::new(8, 8).unwrap();
        let g = Geometry::<u64>::new(dims);
        assert!(g.magics.is_some(), "every number fits");
        assert_eq!(g.with_sliders(search_8x8), tables());
        let lines = |i: usize, a: usize, b: usize, occ: u64| {
            g.line_attacks(i, a, occ) | g.line_attacks(i, b, occ)
        };
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let occ = seed & seed.rotate_left(17);
            for i in 0..64 {
                for occ in [occ, occ | 1 << i, seed] {
                    assert_eq!(g.rook(i, occ), lines(i, 0, 1, occ), "rook {i} {occ:x}");
                    assert_eq!(g.bishop(i, occ), lines(i, 2, 3, occ), "bishop {i} {occ:x}");
                }
            }
        }
        // Other sizes keep obstruction difference.
        for (rows, cols) in [(7, 8), (8, 7), (4, 16)] {
            assert!(
                Geometry::<u64>::new(Dims::new(rows, cols).unwrap())
                    .magics
                    .is_none()
            );
        }
        assert!(Geometry::<u128>::new(dims).magics.is_none());
    }

    #[test]
    fn leapers_do_not_wrap_around_rows() {
        let dims = Dims::new(3, 3).unwrap();
        let g = Geometry::<u64>::new(dims);
        let corner = dims.index(dims.square_at(0, 2).unwrap());
        assert_eq!(g.king(corner), set(dims, &[(0, 1), (1, 1), (1, 2)]));
        assert_eq!(g.knight(corner), set(dims, &[(1, 0), (2, 1)]));
        assert_eq!(g.pawn_attacks(Color::Black, corner), set(dims, &[(1, 1)]));
        assert_eq!(g.pawn_push(Color::White, corner), 0);
    }
}
