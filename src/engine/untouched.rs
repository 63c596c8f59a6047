//! Lab 3's "has the piece on this square stood there since the setup"
//! flags (its castling needs an unmoved king and rook), kept by every
//! position and updated by every move played.
//!
//! Every [`super::Position::play`] clears the flags of the squares it
//! touches and every undo puts them back, so they sit on the play/undo hot
//! path whatever the rule set. Boards of at most 128 squares (8x8 among
//! them) keep them as the bits of two `u64` words (not one `u128`, whose
//! shifts by a variable amount cost a dozen instructions each): a move
//! clears one bit per square and its undo record holds both words, so undo
//! is one copy instead of four indexed writes into a vector. Larger boards (up to
//! 256x256 = 65,536 squares) keep one `bool` a square and record the four
//! touched flags.

/// The flags, one per square (row-major index), all true on a new board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Untouched {
    /// At most 128 squares: bit `i % 64` of word `i / 64` is square `i`'s
    /// flag.
    Bits([u64; 2]),
    /// More squares: one flag a square.
    Cells(Vec<bool>),
}

/// What [`Untouched::restore`] needs to undo one [`Untouched::clear`]: the
/// words before it (bits), or the four flags it cleared in the low bits of
/// the first word (cells).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(super) struct UntouchedUndo([u64; 2]);

impl Untouched {
    /// Every flag set, for a board of `len` squares.
    pub fn new(len: usize) -> Untouched {
        if len <= 128 {
            let word = |first: usize| match len.saturating_sub(first) {
                0 => 0,
                n if n >= 64 => u64::MAX,
                n => u64::MAX >> (64 - n),
            };
            Untouched::Bits([word(0), word(64)])
        } else {
            Untouched::Cells(vec![true; len])
        }
    }

    /// The flag of square `i`.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        match self {
            Untouched::Bits(words) => words[i / 64] >> (i % 64) & 1 == 1,
            Untouched::Cells(cells) => cells[i],
        }
    }

    /// Clears the flags of `squares` (a move's from and to, and a castle's
    /// rook squares; at most 64, repeats allowed) and returns what undoes
    /// it.
    #[inline(always)]
    pub fn clear<const N: usize>(&mut self, squares: [usize; N]) -> UntouchedUndo {
        match self {
            Untouched::Bits(words) => {
                // The masks are built in registers and stored once: four
                // read-modify-writes of one word would chain through
                // store forwarding.
                let old = *words;
                let (mut low, mut high) = (0u64, 0u64);
                for i in squares {
                    let bit = 1u64 << (i % 64);
                    match i < 64 {
                        true => low |= bit,
                        false => high |= bit,
                    }
                }
                *words = [old[0] & !low, old[1] & !high];
                UntouchedUndo(old)
            }
            Untouched::Cells(cells) => {
                let mut was = 0;
                for (k, &i) in squares.iter().enumerate() {
                    was |= (cells[i] as u64) << k;
                    cells[i] = false;
                }
                UntouchedUndo([was, 0])
            }
        }
    }

    /// [`Untouched::clear`]`([from, to])` on a board of at most 64 squares
    /// (whose flags are bits: both squares are below 64), given `bits`, the
    /// two squares' bits: play's fast path, one mask on the first word.
    #[inline(always)]
    pub fn clear_low(&mut self, from: usize, to: usize, bits: u64) -> UntouchedUndo {
        match self {
            Untouched::Bits(words) => {
                let old = *words;
                words[0] &= !bits;
                UntouchedUndo(old)
            }
            Untouched::Cells(_) => self.clear([from, to]),
        }
    }

    /// Undoes the [`Untouched::clear_low`]`(from, to, _)` that returned
    /// `undo`, the last one made. Only the first word is written back: the
    /// record's words were stored one at a time, and one 16-byte load of
    /// both would wait for the stores to retire (no store forwarding
    /// across two stores; 14% of the leaf perft's samples under `perf`).
    #[inline(always)]
    pub fn restore_low(&mut self, from: usize, to: usize, undo: UntouchedUndo) {
        match self {
            Untouched::Bits(words) => words[0] = undo.0[0],
            Untouched::Cells(_) => self.restore([from, to], undo),
        }
    }

    /// Undoes the [`Untouched::clear`] of the same `squares` that returned
    /// `undo`, the last one made.
    #[inline(always)]
    pub fn restore<const N: usize>(&mut self, squares: [usize; N], undo: UntouchedUndo) {
        match self {
            Untouched::Bits(words) => *words = undo.0,
            // In reverse, so that where squares repeat (castling in
            // Chess960-like setups) the flag read first, the one from
            // before the move, is the one left.
            Untouched::Cells(cells) => {
                for (k, &i) in squares.iter().enumerate().rev() {
                    cells[i] = undo.0[0] >> k & 1 == 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both forms answer the same on every square through a sequence of
    /// clears, and each restore puts back exactly the flags before its
    /// clear, repeated squares included.
    #[test]
    fn bits_and_cells_clear_and_restore_alike() {
        let len = 100;
        let mut bits = Untouched::new(len);
        let mut cells = Untouched::Cells(vec![true; len]);
        let moves = [
            [3, 17, 3, 17],
            [17, 40, 17, 40],
            [0, 2, 3, 0],
            [99, 3, 98, 99],
        ];
        let mut history = Vec::new();
        for squares in moves {
            let before: Vec<bool> = (0..len).map(|i| cells.get(i)).collect();
            history.push((squares, bits.clear(squares), cells.clear(squares), before));
            for i in 0..len {
                assert_eq!(bits.get(i), cells.get(i), "square {i}");
            }
            for i in squares {
                assert!(!bits.get(i), "square {i} cleared");
            }
        }
        while let Some((squares, b, c, before)) = history.pop() {
            bits.restore(squares, b);
            cells.restore(squares, c);
            let after: Vec<bool> = (0..len).map(|i| cells.get(i)).collect();
            assert_eq!(after, before);
            assert_eq!((0..len).map(|i| bits.get(i)).collect::<Vec<_>>(), before);
        }
        assert!((0..len).all(|i| bits.get(i)));
    }

    #[test]
    fn the_form_follows_the_board_size() {
        assert_eq!(Untouched::new(64), Untouched::Bits([u64::MAX, 0]));
        assert_eq!(
            Untouched::new(100),
            Untouched::Bits([u64::MAX, (1 << 36) - 1])
        );
        assert_eq!(Untouched::new(128), Untouched::Bits([u64::MAX; 2]));
        assert_eq!(Untouched::new(1), Untouched::Bits([1, 0]));
        assert_eq!(Untouched::new(129), Untouched::Cells(vec![true; 129]));
    }
}
