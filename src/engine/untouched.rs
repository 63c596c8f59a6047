//! Lab 3's "has the piece on this square stood there since the setup"
//! flags (its castling needs an unmoved king and rook), kept by every
//! position and updated by every move played.
//!
//! Every [`super::Position::play`] clears the flags of the squares it
//! touches and every undo puts them back, so they sit on the play/undo hot
//! path whatever the rule set. Boards of at most 128 squares (8x8 among
//! them) keep them as the bits of two `u64` words ([`UntouchedBits`], not
//! one `u128`, whose shifts by a variable amount cost a dozen instructions
//! each) inside the position's `Copy` state, which play copies whole into
//! its undo record and undo copies back: a move clears one bit per square
//! and its undo costs nothing more (as a separate field with its own
//! record and restore, the flags took 8% of a perft that plays every
//! leaf). Larger boards (up to 256x256 = 65,536 squares) keep one `bool` a
//! square ([`UntouchedCells`]) and record the four touched flags.

/// How many squares [`UntouchedBits`] holds: boards up to this size keep
/// their flags as bits, larger ones as cells.
const BITS: usize = 128;

/// The flags of a board of at most 128 squares: bit `i % 64` of word
/// `i / 64` is square `i`'s flag. On larger boards, unused (all clear).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct UntouchedBits([u64; 2]);

/// The flags of a board of over 128 squares, one a square; empty on
/// smaller boards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct UntouchedCells(Vec<bool>);

/// What [`UntouchedCells::restore`] needs to undo one
/// [`UntouchedCells::clear`]: the flags it cleared, in the low bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(super) struct CellsUndo(u8);

/// A position's flags, bits or cells, for reading.
#[derive(Clone, Copy, Debug)]
pub(super) struct Untouched<'a> {
    pub bits: UntouchedBits,
    pub cells: &'a UntouchedCells,
}

impl Untouched<'_> {
    /// The flag of square `i`.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        match self.cells.0.is_empty() {
            true => self.bits.get(i),
            false => self.cells.0[i],
        }
    }
}

impl UntouchedBits {
    /// Every flag set, for a board of `len` squares (none past 128).
    pub fn new(len: usize) -> UntouchedBits {
        let len = if len <= BITS { len } else { 0 };
        let word = |first: usize| match len.saturating_sub(first) {
            0 => 0,
            n if n >= 64 => u64::MAX,
            n => u64::MAX >> (64 - n),
        };
        UntouchedBits([word(0), word(64)])
    }

    /// The flag of square `i` (below 128).
    #[inline]
    pub fn get(self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    /// Clears the flags of `squares` (below 128; repeats allowed). The
    /// masks are built in registers and stored once: a read-modify-write a
    /// square would chain through store forwarding.
    #[inline(always)]
    pub fn clear<const N: usize>(&mut self, squares: [usize; N]) {
        let (mut low, mut high) = (0u64, 0u64);
        for i in squares {
            let bit = 1u64 << (i % 64);
            match i < 64 {
                true => low |= bit,
                false => high |= bit,
            }
        }
        self.0 = [self.0[0] & !low, self.0[1] & !high];
    }

    /// Clears the flags of the squares whose bits `bits` sets, all below
    /// 64 (a board of at most 64 squares): play's fast path.
    #[inline(always)]
    pub fn clear_low(&mut self, bits: u64) {
        self.0[0] &= !bits;
    }
}

impl UntouchedCells {
    /// Every flag set, for a board of `len` squares; empty up to 128.
    pub fn new(len: usize) -> UntouchedCells {
        UntouchedCells(match len <= BITS {
            true => Vec::new(),
            false => vec![true; len],
        })
    }

    /// Does the board keep its flags here (over 128 squares)?
    #[inline(always)]
    pub fn in_use(&self) -> bool {
        !self.0.is_empty()
    }

    /// Clears the flags of `squares` (a move's from and to, and a castle's
    /// rook squares; at most 8, repeats allowed) and returns what undoes it.
    pub fn clear<const N: usize>(&mut self, squares: [usize; N]) -> CellsUndo {
        let mut was = 0;
        for (k, &i) in squares.iter().enumerate() {
            was |= (self.0[i] as u8) << k;
            self.0[i] = false;
        }
        CellsUndo(was)
    }

    /// Undoes the [`UntouchedCells::clear`] of the same `squares` that
    /// returned `undo`, the last one made. In reverse, so that where
    /// squares repeat (castling in Chess960-like setups) the flag read
    /// first, the one from before the move, is the one left.
    pub fn restore<const N: usize>(&mut self, squares: [usize; N], undo: CellsUndo) {
        for (k, &i) in squares.iter().enumerate().rev() {
            self.0[i] = undo.0 >> k & 1 == 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both forms answer the same on every square through a sequence of
    /// clears, and each restore puts back exactly the flags before its
    /// clear, repeated squares included (bits are put back by copying the
    /// words, as undo copies the position's state).
    #[test]
    fn bits_and_cells_clear_and_restore_alike() {
        let len = 100;
        let mut bits = UntouchedBits::new(len);
        let mut cells = UntouchedCells(vec![true; len]);
        let moves = [
            [3, 17, 3, 17],
            [17, 40, 17, 40],
            [0, 2, 3, 0],
            [99, 3, 98, 99],
        ];
        let mut history = Vec::new();
        for squares in moves {
            let before: Vec<bool> = cells.0.clone();
            history.push((squares, bits, cells.clear(squares), before));
            bits.clear(squares);
            for i in 0..len {
                assert_eq!(bits.get(i), cells.0[i], "square {i}");
            }
            for i in squares {
                assert!(!bits.get(i), "square {i} cleared");
            }
        }
        while let Some((squares, old_bits, undo, before)) = history.pop() {
            bits = old_bits;
            cells.restore(squares, undo);
            assert_eq!(cells.0, before);
            assert_eq!((0..len).map(|i| bits.get(i)).collect::<Vec<_>>(), before);
        }
        assert!((0..len).all(|i| bits.get(i)));
        let mut low = UntouchedBits::new(64);
        low.clear_low(1 << 5 | 1 << 63);
        let mut same = UntouchedBits::new(64);
        same.clear([5, 63]);
        assert_eq!(low, same);
    }

    #[test]
    fn the_form_follows_the_board_size() {
        assert_eq!(UntouchedBits::new(64), UntouchedBits([u64::MAX, 0]));
        assert_eq!(
            UntouchedBits::new(100),
            UntouchedBits([u64::MAX, (1 << 36) - 1])
        );
        assert_eq!(UntouchedBits::new(128), UntouchedBits([u64::MAX; 2]));
        assert_eq!(UntouchedBits::new(1), UntouchedBits([1, 0]));
        assert_eq!(UntouchedBits::new(129), UntouchedBits([0, 0]));
        assert!(!UntouchedCells::new(128).in_use());
        assert_eq!(UntouchedCells::new(129), UntouchedCells(vec![true; 129]));
    }
}
