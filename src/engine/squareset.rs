//! Sets of squares as machine words: bit `i` is the square of row-major
//! index `i` (`row * cols + col`), whatever the board's width.
//!
//! One trait, [`SquareSet`], implemented for `u64` (boards of at most 64
//! squares, 8x8 among them) and `u128` (at most 128: 12x10, 11x11, ...), so
//! that the set-based move generator ([`super::bitmoves`]) and its tables
//! ([`super::geometry`]) are written once and compiled for each width.
//! Larger boards (up to 256x256) keep the mailbox path, where a set of
//! 65,536 bits would cost more to sweep than the pieces it holds.

use super::geometry::Geometry;
use std::fmt::Debug;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of square indices in one machine word.
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
    /// The tables of the board `dims`, built once per size and kept.
    fn geometry(dims: crate::domain::Dims) -> &'static Geometry<Self>;

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
        (self & self.minus(Self::single(0))).any()
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
        if self.0.is_empty() {
            return None;
        }
        let i = self.0.first();
        self.0 = self.0 & self.0.minus(S::single(0));
        Some(i)
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

            fn geometry(dims: crate::domain::Dims) -> &'static Geometry<$t> {
                use std::collections::HashMap;
                use std::sync::{Mutex, OnceLock};
                static CACHE: OnceLock<Mutex<HashMap<crate::domain::Dims, &'static Geometry<$t>>>> =
                    OnceLock::new();
                let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
                let mut cache = cache
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
                // One table set per board size ever used, kept for the
                // process's life: at most a few KB each, and sizes are few.
                cache
                    .entry(dims)
                    .or_insert_with(|| Box::leak(Box::new(Geometry::new(dims))))
            }
        }
    };
}

square_set!(u64);
square_set!(u128);

#[cfg(test)]
mod tests {
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
}
