//! Sets of squares as bits: bit `i` is the square of row-major index `i`
//! (`row * cols + col`), whatever the board's width.
//!
//! One trait, [`SquareSet`], so that the set-based move generator
//! ([`super::bitmoves`]) and its tables ([`super::geometry`]) are written
//! once and compiled for each width:
//!
//! - `u64`: boards of at most 64 squares (8x8 among them);
//! - `u128`: at most 128 (12x10, 11x11, ...);
//! - [`Words`]`<W>`, `W` words of 64 bits with the borrow and the shifts
//!   carried across them: [`Set256`] (`W` = 4) for 129 to 256 squares
//!   (12x12 to 16x16), [`Set512`] (`W` = 8) for 257 to 512 (17x17 to 22x22,
//!   16x32).
//!
//! Larger boards (up to 256x256) keep the mailbox path. Each set operation
//! costs one instruction per word, where the mailbox's cost follows the
//! pieces and their rays, so the wider the set the less it gains: measured
//! by `cargo bench --bench perft -- wide` against the mailbox in the same
//! run, eight words still win (1.2-2.6x on full armies, 2.4-3.4x on sparse
//! ones), but a trial `Words<16>` for up to 1,024 squares lost on full
//! armies (0.64x on 20x20, 0.65x on 16x32, 0.87x on 32x32) and gained
//! little on sparse 32x32 ones (1.35x), for 2.6 MB of tables per size
//! (figures: docs/perft.md). The 256x256 boards of Lab 3 (65,536 squares)
//! would need 1,024 words a set.
//!
//! The tables of a size are built on first use and kept for the process's
//! life (sizes are few, and every position of a size shares them). Those
//! of the multi-word sizes are bounded: past [`WIDE_TABLE_BUDGET`] bytes in
//! all, a new size gets no tables and its boards take the mailbox path,
//! which answers the same (tests hold the two generators to it), slower.

use super::geometry::Geometry;
use crate::domain::Dims;
use std::any::Any;
use std::collections::HashMap;
use std::fmt::{self, Debug};
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};
use std::sync::{Mutex, OnceLock};

/// The set type of boards of 129 to 256 squares.
pub(super) type Set256 = Words<4>;

/// The set type of boards of 257 to 512 squares.
pub(super) type Set512 = Words<8>;

/// How many bytes the tables of multi-word sizes may take in all, for the
/// process's life: about 100 sizes of 16x16 (165 KB each) or 25 of 22x22
/// (620 KB), where every size between 129 and 512 squares at once would
/// take 750 MB: a run over scenarios of many sizes stays far below its
/// memory limits.
pub(super) const WIDE_TABLE_BUDGET: usize = 16 << 20;

/// A set of square indices, in one word or several.
pub(super) trait SquareSet:
    Copy
    + Eq
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
{
    const EMPTY: Self;
    /// How many squares a set of this width can hold.
    const CAPACITY: usize;

    /// The set of square `i` alone (`i < CAPACITY`).
    fn single(i: usize) -> Self;
    fn count(self) -> u32;
    /// The set as one `u64`, where its type is `u64` (`None` for every
    /// wider type): for code that has a faster way with one word.
    fn as_u64(self) -> Option<u64>;
    /// The set of the squares of `bits` (all below 64).
    fn from_u64(bits: u64) -> Self;
    /// The lowest square of a non-empty set.
    fn first(self) -> usize;
    /// `self - rhs`, wrapping (the borrow is what the line attacks use).
    fn minus(self, rhs: Self) -> Self;
    /// The highest member of `self ∪ {0}`, as a set.
    fn highest_or_zero(self) -> Self;
    /// `self << n`, empty when `n` is the width or more.
    fn up(self, n: u32) -> Self;
    /// `self >> n`, empty when `n` is the width or more.
    fn down(self, n: u32) -> Self;
    /// The tables of the board `dims`, built once per size and kept;
    /// `None` where the size may not have them (see [`WIDE_TABLE_BUDGET`]).
    fn geometry(dims: Dims) -> Option<&'static Geometry<Self>>;

    /// The set without its lowest member (empty stays empty).
    #[inline(always)]
    fn without_first(self) -> Self {
        self & self.minus(Self::single(0))
    }

    /// Takes the lowest member out of the set.
    #[inline(always)]
    fn pop_first(&mut self) -> Option<usize> {
        if self.is_empty() {
            return None;
        }
        let i = self.first();
        *self = self.without_first();
        Some(i)
    }

    fn is_empty(self) -> bool {
        self == Self::EMPTY
    }

    fn any(self) -> bool {
        self != Self::EMPTY
    }

    fn has(self, i: usize) -> bool {
        (self & Self::single(i)).any()
    }

    /// Does the set hold two squares or more?
    fn several(self) -> bool {
        self.without_first().any()
    }

    /// The members, lowest first.
    fn members(self) -> Members<Self> {
        Members(self)
    }
}

/// The members of a set, lowest index (row-major first) first.
pub(super) struct Members<S>(S);

impl<S: SquareSet> Iterator for Members<S> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        self.0.pop_first()
    }
}

macro_rules! square_set {
    ($t:ty) => {
        impl SquareSet for $t {
            const EMPTY: $t = 0;
            const CAPACITY: usize = <$t>::BITS as usize;

            #[inline(always)]
            fn single(i: usize) -> $t {
                1 << i
            }

            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }

            #[inline(always)]
            fn as_u64(self) -> Option<u64> {
                u64::try_from(self).ok().filter(|_| <$t>::BITS == 64)
            }

            #[inline(always)]
            fn from_u64(bits: u64) -> $t {
                bits.into()
            }

            #[inline(always)]
            fn first(self) -> usize {
                self.trailing_zeros() as usize
            }

            #[inline(always)]
            fn minus(self, rhs: $t) -> $t {
                self.wrapping_sub(rhs)
            }

            #[inline(always)]
            fn up(self, n: u32) -> $t {
                self.checked_shl(n).unwrap_or(0)
            }

            #[inline(always)]
            fn down(self, n: u32) -> $t {
                self.checked_shr(n).unwrap_or(0)
            }

            #[inline(always)]
            fn highest_or_zero(self) -> $t {
                1 << (<$t>::BITS - 1 - (self | 1).leading_zeros())
            }

            fn geometry(dims: Dims) -> Option<&'static Geometry<$t>> {
                static CACHE: OnceLock<Mutex<HashMap<Dims, &'static Geometry<$t>>>> =
                    OnceLock::new();
                let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
                let mut cache = cache
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                // One table set per board size ever used, kept for the
                // process's life: at most 41 KB each, and every size of at
                // most 128 squares at once would take 13 MB: no budget.
                Some(
                    cache
                        .entry(dims)
                        .or_insert_with(|| Box::leak(Box::new(Geometry::new(dims)))),
                )
            }
        }
    };
}

square_set!(u64);
square_set!(u128);

/// A set of `64 * W` squares in `W` words, lowest squares in word 0.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Words<const W: usize>(pub [u64; W]);

impl<const W: usize> Debug for Words<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Highest word first, so that it reads as one long binary number.
        write!(f, "Words(")?;
        for (k, w) in self.0.iter().enumerate().rev() {
            let sep = if k == 0 { "" } else { "_" };
            write!(f, "{w:016x}{sep}")?;
        }
        write!(f, ")")
    }
}

macro_rules! words_op {
    ($op:ident, $f:ident, $op_assign:ident, $f_assign:ident, $sym:tt) => {
        impl<const W: usize> $op for Words<W> {
            type Output = Self;

            #[inline(always)]
            fn $f(self, rhs: Self) -> Self {
                Words(std::array::from_fn(|k| self.0[k] $sym rhs.0[k]))
            }
        }

        impl<const W: usize> $op_assign for Words<W> {
            #[inline(always)]
            fn $f_assign(&mut self, rhs: Self) {
                *self = *self $sym rhs;
            }
        }
    };
}

words_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
words_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
words_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl<const W: usize> Not for Words<W> {
    type Output = Self;

    #[inline(always)]
    fn not(self) -> Self {
        Words(self.0.map(|w| !w))
    }
}

impl<const W: usize> SquareSet for Words<W> {
    const EMPTY: Self = Words([0; W]);
    const CAPACITY: usize = 64 * W;

    #[inline(always)]
    fn single(i: usize) -> Self {
        let mut words = [0; W];
        words[i / 64] = 1 << (i % 64);
        Words(words)
    }

    #[inline(always)]
    fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    #[inline(always)]
    fn as_u64(self) -> Option<u64> {
        None
    }

    #[inline(always)]
    fn from_u64(bits: u64) -> Self {
        let mut words = [0; W];
        words[0] = bits;
        Words(words)
    }

    /// `CAPACITY` for the empty set, as `u64::trailing_zeros` gives 64.
    #[inline(always)]
    fn first(self) -> usize {
        for (k, &w) in self.0.iter().enumerate() {
            if w != 0 {
                return 64 * k + w.trailing_zeros() as usize;
            }
        }
        Self::CAPACITY
    }

    /// Word by word from the lowest, the borrow carried up: the wrapping
    /// subtraction of two `64 * W`-bit numbers.
    #[inline(always)]
    fn minus(self, rhs: Self) -> Self {
        let mut out = [0; W];
        let mut borrow = false;
        for (k, out) in out.iter_mut().enumerate() {
            let (d, b1) = self.0[k].overflowing_sub(rhs.0[k]);
            let (d, b2) = d.overflowing_sub(borrow as u64);
            *out = d;
            borrow = b1 | b2;
        }
        Words(out)
    }

    #[inline(always)]
    fn highest_or_zero(self) -> Self {
        for k in (0..W).rev() {
            if self.0[k] != 0 {
                return Self::single(64 * k + 63 - self.0[k].leading_zeros() as usize);
            }
        }
        Self::single(0)
    }

    /// Bit `i` moves to `i + n`: whole words by `n / 64`, then the bits,
    /// each word taking the top bits of the one below.
    #[inline(always)]
    fn up(self, n: u32) -> Self {
        let (words, bits) = (n as usize / 64, n % 64);
        Words(std::array::from_fn(|k| {
            if k < words {
                return 0;
            }
            let mut w = self.0[k - words] << bits;
            if bits != 0 && k > words {
                w |= self.0[k - words - 1] >> (64 - bits);
            }
            w
        }))
    }

    /// Bit `i` moves to `i - n` (gone below 0), the mirror of [`Self::up`].
    #[inline(always)]
    fn down(self, n: u32) -> Self {
        let (words, bits) = (n as usize / 64, n % 64);
        Words(std::array::from_fn(|k| {
            if k + words >= W {
                return 0;
            }
            let mut w = self.0[k + words] >> bits;
            if bits != 0 && k + words + 1 < W {
                w |= self.0[k + words + 1] << (64 - bits);
            }
            w
        }))
    }

    fn geometry(dims: Dims) -> Option<&'static Geometry<Self>> {
        wide_geometry(dims)
    }

    /// Clears the lowest bit of the lowest non-empty word only, instead of
    /// a subtraction carried through every word.
    #[inline(always)]
    fn without_first(self) -> Self {
        let mut out = self;
        for w in &mut out.0 {
            if *w != 0 {
                *w &= *w - 1;
                break;
            }
        }
        out
    }

    /// One pass over the words, where `first` and `without_first` would
    /// make two.
    #[inline(always)]
    fn pop_first(&mut self) -> Option<usize> {
        for (k, w) in self.0.iter_mut().enumerate() {
            if *w != 0 {
                let i = 64 * k + w.trailing_zeros() as usize;
                *w &= *w - 1;
                return Some(i);
            }
        }
        None
    }

    #[inline(always)]
    fn has(self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }

    #[inline(always)]
    fn is_empty(self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    #[inline(always)]
    fn any(self) -> bool {
        !self.is_empty()
    }
}

/// The tables of the multi-word sizes: one cache for every width (a generic
/// function has no statics of its own), keyed by width and size, and what
/// they cost so far.
struct WideTables {
    by_size: HashMap<(usize, Dims), &'static (dyn Any + Send + Sync)>,
    bytes: usize,
}

impl WideTables {
    /// The tables of `dims` in `W` words: those built before, else new ones
    /// if they fit in what is left of `budget` bytes, else `None`.
    fn get<const W: usize>(
        &mut self,
        dims: Dims,
        budget: usize,
    ) -> Option<&'static Geometry<Words<W>>> {
        let tables = match self.by_size.get(&(W, dims)) {
            Some(&tables) => tables,
            None => {
                let cost = Geometry::<Words<W>>::bytes(dims);
                if self.bytes + cost > budget {
                    return None;
                }
                self.bytes += cost;
                let tables: &'static Geometry<Words<W>> = Box::leak(Box::new(Geometry::new(dims)));
                self.by_size.insert((W, dims), tables);
                tables
            }
        };
        tables.downcast_ref()
    }
}

fn wide_geometry<const W: usize>(dims: Dims) -> Option<&'static Geometry<Words<W>>> {
    static CACHE: OnceLock<Mutex<WideTables>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| {
        Mutex::new(WideTables {
            by_size: HashMap::new(),
            bytes: 0,
        })
    });
    cache
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .get(dims, WIDE_TABLE_BUDGET)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    #[test]
    fn members_come_lowest_first() {
        let s: u64 = 0b1010_0110 | 1 << 63;
        assert_eq!(s.members().collect::<Vec<_>>(), [1, 2, 5, 7, 63]);
        let w: u128 = 1 << 100 | 1 << 3;
        assert_eq!(w.members().collect::<Vec<_>>(), [3, 100]);
    }

    #[test]
    fn highest_or_zero_and_several() {
        assert_eq!(0u64.highest_or_zero(), 1);
        assert_eq!(0b1011u64.highest_or_zero(), 0b1000);
        assert_eq!((1u128 << 127).highest_or_zero(), 1 << 127);
        assert!(0b11u64.several() && !0b100u64.several() && !0u64.several());
    }

    /// xorshift64*: reproducible without a dependency (the engine's tests
    /// share it).
    pub(in crate::engine) struct Rng(pub(in crate::engine) u64);

    impl Rng {
        pub(in crate::engine) fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        pub(in crate::engine) fn below(&mut self, n: u64) -> u64 {
            (self.next() >> 11) % n
        }
    }

    /// The naive model of a set: one flag per square.
    fn model<const W: usize>(s: Words<W>) -> Vec<bool> {
        (0..64 * W)
            .map(|i| s.0[i / 64] >> (i % 64) & 1 == 1)
            .collect()
    }

    fn from_model<const W: usize>(m: &[bool]) -> Words<W> {
        let mut words = [0u64; W];
        for (i, _) in m.iter().enumerate().filter(|(_, b)| **b) {
            words[i / 64] |= 1 << (i % 64);
        }
        Words(words)
    }

    /// Squares where word-boundary mistakes show: each word's ends.
    fn edges(capacity: usize) -> Vec<usize> {
        (0..capacity)
            .filter(|i| matches!(i % 64, 0 | 1 | 62 | 63))
            .collect()
    }

    /// Random sets of many kinds: dense, sparse, one word only, a few
    /// squares at word edges, empty, full.
    fn random_set<const W: usize>(rng: &mut Rng) -> Words<W> {
        match rng.below(6) {
            0 => Words([0; W].map(|_| rng.next())),
            // Sparse: the AND of three random words per word.
            1 => Words([0; W].map(|_| rng.next() & rng.next() & rng.next())),
            2 => {
                let mut words = [0; W];
                words[rng.below(W as u64) as usize] = rng.next();
                Words(words)
            }
            3 => {
                let edges = edges(64 * W);
                (0..1 + rng.below(4)).fold(Words::EMPTY, |s, _| {
                    s | Words::single(edges[rng.below(edges.len() as u64) as usize])
                })
            }
            4 => Words::EMPTY,
            _ => !Words::EMPTY,
        }
    }

    /// Shift amounts across word boundaries, up to past the width.
    fn shifts(capacity: u32) -> Vec<u32> {
        let mut n: Vec<u32> = (0..=capacity / 64 + 1)
            .flat_map(|k| [64 * k, (64 * k).saturating_sub(1), 64 * k + 1, 64 * k + 17])
            .collect();
        n.extend([capacity - 1, capacity, capacity + 1, 1000, u32::MAX]);
        n
    }

    /// Every operation of `Words<W>` against the naive model.
    fn words_match_the_model<const W: usize>(seed: u64) {
        let cap = 64 * W;
        let mut rng = Rng(seed);
        for _ in 0..400 {
            let (a, b) = (random_set::<W>(&mut rng), random_set::<W>(&mut rng));
            let (ma, mb) = (model(a), model(b));
            let zip = |f: fn(bool, bool) -> bool| -> Vec<bool> {
                ma.iter().zip(&mb).map(|(&x, &y)| f(x, y)).collect()
            };
            assert_eq!(model(a & b), zip(|x, y| x & y));
            assert_eq!(model(a | b), zip(|x, y| x | y));
            assert_eq!(model(a ^ b), zip(|x, y| x ^ y));
            assert_eq!(model(!a), ma.iter().map(|x| !x).collect::<Vec<_>>());
            let (mut c, mut d, mut e) = (a, a, a);
            c &= b;
            d |= b;
            e ^= b;
            assert_eq!((c, d, e), (a & b, a | b, a ^ b));
            let members: Vec<usize> = (0..cap).filter(|&i| ma[i]).collect();
            assert_eq!(a.count() as usize, members.len(), "{a:?}");
            assert_eq!(a.members().collect::<Vec<_>>(), members, "{a:?}");
            assert_eq!(a.is_empty(), members.is_empty());
            assert_eq!(a.any(), !members.is_empty());
            assert_eq!(a.several(), members.len() > 1, "{a:?}");
            assert_eq!(a.first(), members.first().copied().unwrap_or(cap));
            let mut rest = ma.clone();
            if let Some(&i) = members.first() {
                rest[i] = false;
            }
            assert_eq!(model(a.without_first()), rest, "{a:?}");
            let mut popped = a;
            assert_eq!(popped.pop_first(), members.first().copied());
            assert_eq!(popped, a.without_first());
            let top = members.last().copied().unwrap_or(0);
            assert_eq!(
                a.highest_or_zero(),
                from_model(&(0..cap).map(|i| i == top).collect::<Vec<_>>())
            );
            for i in edges(cap)
                .into_iter()
                .chain([rng.below(cap as u64) as usize])
            {
                assert_eq!(a.has(i), ma[i], "{a:?} has {i}");
                assert_eq!(
                    model(Words::<W>::single(i)),
                    (0..cap).map(|j| j == i).collect::<Vec<_>>()
                );
            }
            // Subtraction: the schoolbook borrow, one bit at a time.
            let mut borrow = false;
            let diff: Vec<bool> = (0..cap)
                .map(|i| {
                    let d = ma[i] as i8 - mb[i] as i8 - borrow as i8;
                    borrow = d < 0;
                    d & 1 == 1
                })
                .collect();
            assert_eq!(model(a.minus(b)), diff, "{a:?} - {b:?}");
            for n in shifts(cap as u32) {
                let n64 = n as u64;
                let up: Vec<bool> = (0..cap as u64)
                    .map(|i| i >= n64 && ma[(i - n64) as usize])
                    .collect();
                let down: Vec<bool> = (0..cap as u64)
                    .map(|i| i + n64 < cap as u64 && ma[(i + n64) as usize])
                    .collect();
                assert_eq!(model(a.up(n)), up, "{a:?} << {n}");
                assert_eq!(model(a.down(n)), down, "{a:?} >> {n}");
            }
        }
    }

    #[test]
    fn words_of_every_width_match_a_naive_model() {
        words_match_the_model::<1>(1);
        words_match_the_model::<2>(2);
        words_match_the_model::<3>(3);
        words_match_the_model::<4>(4);
        words_match_the_model::<8>(8);
    }

    #[test]
    fn two_words_compute_what_a_u128_computes() {
        let wide = |x: u128| Words::<2>([x as u64, (x >> 64) as u64]);
        let mut rng = Rng(0x1234_5678);
        for _ in 0..2000 {
            let x = (rng.next() as u128) << 64 | rng.next() as u128 >> rng.below(64);
            let y = (rng.next() as u128) << rng.below(128) | rng.next() as u128;
            let n = rng.below(140) as u32;
            assert_eq!(wide(x).minus(wide(y)), wide(x.minus(y)));
            assert_eq!(wide(x).up(n), wide(x.up(n)));
            assert_eq!(wide(x).down(n), wide(x.down(n)));
            assert_eq!(wide(x).highest_or_zero(), wide(x.highest_or_zero()));
            assert_eq!(wide(x).without_first(), wide(x.without_first()));
            assert_eq!((wide(x).count(), wide(x).first()), (x.count(), x.first()));
        }
    }

    #[test]
    fn borrows_run_through_empty_words() {
        // The top square minus the bottom one: every square in between.
        let top = Set512::single(511);
        let below_top = top.minus(Set512::single(0));
        assert_eq!(below_top.count(), 511);
        assert!(!below_top.has(511) && below_top.has(0) && below_top.has(320));
        // Nothing minus one wraps to every square.
        assert_eq!(Set256::EMPTY.minus(Set256::single(0)), !Set256::EMPTY);
        // A line attack's shape: the blocker above minus the one below
        // fills the squares from the lower up to (not including) the upper.
        let span = Set256::single(200).minus(Set256::single(10));
        assert_eq!(
            span.members().collect::<Vec<_>>(),
            (10..200).collect::<Vec<_>>()
        );
    }

    #[test]
    fn first_and_count_see_the_high_words() {
        let s = Set512::single(449) | Set512::single(500);
        assert_eq!((s.first(), s.count()), (449, 2));
        assert_eq!(s.highest_or_zero(), Set512::single(500));
        assert_eq!(s.members().collect::<Vec<_>>(), [449, 500]);
        assert!(s.several() && !Set512::single(449).several());
    }

    #[test]
    fn wide_tables_stay_within_their_budget() {
        let mut tables = WideTables {
            by_size: HashMap::new(),
            bytes: 0,
        };
        let (a, b) = (Dims::new(12, 12).unwrap(), Dims::new(16, 16).unwrap());
        let cost_a = Geometry::<Set256>::bytes(a);
        let budget = cost_a + Geometry::<Set256>::bytes(b) - 1;
        let first = tables.get::<4>(a, budget).expect("the first size fits");
        assert_eq!(first.dims(), a);
        assert!(
            tables.get::<4>(b, budget).is_none(),
            "16x16 would pass the budget"
        );
        assert_eq!(tables.bytes, cost_a);
        // A size already built is shared, whatever is left of the budget.
        assert!(std::ptr::eq(tables.get::<4>(a, 0).unwrap(), first));
        // The same size in another width is another table set, counted too.
        let eight = tables.get::<8>(a, usize::MAX).expect("no budget");
        assert_eq!(eight.dims(), a);
        assert_eq!(tables.bytes, cost_a + Geometry::<Set512>::bytes(a));
    }
}
