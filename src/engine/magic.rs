//! Slider attacks by magic multiplication on 8x8 boards: the fast path of
//! [`super::geometry::Geometry::rook`] and `bishop` there.
//!
//! Obstruction difference (the geometry's own way, for any size) costs
//! about ten instructions a line, two lines a rook or a bishop; a magic
//! lookup is one per piece: the occupancy of the relevant squares (the
//! piece's lines less their last squares, which never block anything
//! beyond them) times a number chosen so that each subset of them lands on
//! a slot of its own (or one holding the same attacks) of a table, the
//! product's top bits being the slot.
//!
//! The numbers depend on the board's shape and on the squares' order
//! (row-major from the top row here, not the a1-first order of published
//! tables), and searching for them takes about 0.3 s, too long to do at
//! first use of every size: the 8x8 ones are data ([`ROOK_8X8`],
//! [`BISHOP_8X8`]), found by the seeded search that a test runs again
//! (`geometry`'s `magic_tables_are_what_the_search_finds`). Each table is filled from the
//! obstruction-difference attacks, and a number that sent two subsets
//! with different attacks to one slot would be refused (the board then
//! keeps obstruction difference): a magic table answers what the lines
//! answer by construction. Other sizes keep obstruction difference (a
//! table has `2^bits` slots for `bits` relevant squares, and long thin
//! boards have long lines: a 4x16 rook sees 16).
//!
//! 8x8 takes 800 KB of rook tables (12 relevant squares in a corner) and
//! 41 KB of bishop ones, built once per process.

/// One square's lookup for one kind of slider.
#[derive(Clone, Copy, Debug, Default)]
struct Magic {
    /// The squares whose occupancy matters.
    mask: u64,
    magic: u64,
    /// Where this square's slots start in [`Magics::attacks`].
    offset: u32,
    /// `64 - bits`: the product's top `bits` bits are the slot.
    shift: u32,
}

/// The magic tables of rooks and bishops on one board size.
pub(super) struct Magics {
    rook: [Magic; 64],
    bishop: [Magic; 64],
    /// Every square's slots, rooks then bishops (107,648 on 8x8), in an
    /// array of a power of two, so that a lookup masks its index instead
    /// of loading the length for a bounds check.
    attacks: Box<[u64; SLOTS]>,
}

/// The length of [`Magics::attacks`]: 8x8 fills 107,648 of them.
const SLOTS: usize = 1 << 17;

/// What one slider kind needs of the board to have its tables built: per
/// square, the relevant squares, and the attacks for an occupancy.
pub(super) struct Slider<'a> {
    pub masks: &'a [u64],
    pub attacks: &'a dyn Fn(usize, u64) -> u64,
}

/// Every subset of `mask` (the carry-rippler) with its attacks from
/// square `i`.
fn subsets(i: usize, slider: &Slider) -> Vec<(u64, u64)> {
    let mask = slider.masks[i];
    let mut out = Vec::with_capacity(1 << mask.count_ones());
    let mut sub = 0u64;
    loop {
        out.push((sub, (slider.attacks)(i, sub)));
        sub = sub.wrapping_sub(mask) & mask;
        if sub == 0 {
            return out;
        }
    }
}

/// The number of slots of a table for `mask`: at least one bit, so that
/// the shift stays below 64 (a square with no relevant squares has one
/// slot, which every occupancy reaches).
fn bits(mask: u64) -> u32 {
    mask.count_ones().max(1)
}

/// The table of `magic` for `subsets` (from [`subsets`]) of a mask of
/// `bits` squares, or `None` if two subsets with different attacks meet
/// on one slot. `written` and `attempt` spare a search the clearing of the
/// table between attempts: a slot counts as filled when `written` holds
/// the attempt's number.
fn fill(
    subsets: &[(u64, u64)],
    bits: u32,
    magic: u64,
    slots: &mut [u64],
    written: &mut [u32],
    attempt: u32,
) -> bool {
    let shift = 64 - bits;
    subsets.iter().all(|&(sub, attacks)| {
        let slot = (sub.wrapping_mul(magic) >> shift) as usize;
        if written[slot] != attempt {
            written[slot] = attempt;
            slots[slot] = attacks;
            true
        } else {
            slots[slot] == attacks
        }
    })
}

impl Magics {
    /// The 8x8 tables, from the board's masks and line attacks; `None` if
    /// a number of [`ROOK_8X8`] or [`BISHOP_8X8`] does not fit them.
    pub(super) fn eight_by_eight(rook: Slider, bishop: Slider) -> Option<Magics> {
        assert!(rook.masks.len() == 64 && bishop.masks.len() == 64);
        let mut attacks = Vec::with_capacity(SLOTS);
        let mut rooks = [Magic::default(); 64];
        let mut bishops = [Magic::default(); 64];
        for (slider, numbers, out) in [
            (&rook, &ROOK_8X8, &mut rooks),
            (&bishop, &BISHOP_8X8, &mut bishops),
        ] {
            for (i, out) in out.iter_mut().enumerate() {
                let mask = slider.masks[i];
                let bits = bits(mask);
                let mut slots = vec![0; 1 << bits];
                let mut written = vec![0; 1 << bits];
                if !fill(
                    &subsets(i, slider),
                    bits,
                    numbers[i],
                    &mut slots,
                    &mut written,
                    1,
                ) {
                    return None;
                }
                *out = Magic {
                    mask,
                    magic: numbers[i],
                    offset: u32::try_from(attacks.len()).ok()?,
                    shift: 64 - bits,
                };
                attacks.extend_from_slice(&slots);
            }
        }
        attacks.resize(SLOTS, 0);
        Some(Magics {
            rook: rooks,
            bishop: bishops,
            attacks: attacks.into_boxed_slice().try_into().ok()?,
        })
    }

    #[inline(always)]
    fn lookup(&self, m: &Magic, occupied: u64) -> u64 {
        let slot = (occupied & m.mask).wrapping_mul(m.magic) >> m.shift;
        // Below `SLOTS` for every occupancy: the mask only spares the
        // bounds check.
        self.attacks[(m.offset as usize + slot as usize) % SLOTS]
    }

    /// A rook's squares from `i`, up to and including the first occupied
    /// square each way.
    #[inline(always)]
    pub(super) fn rook(&self, i: usize, occupied: u64) -> u64 {
        self.lookup(&self.rook[i % 64], occupied)
    }

    /// A bishop's squares from `i`, as [`Magics::rook`].
    #[inline(always)]
    pub(super) fn bishop(&self, i: usize, occupied: u64) -> u64 {
        self.lookup(&self.bishop[i % 64], occupied)
    }
}

/// The rooks' magic numbers of an 8x8 board, by row-major square (a8
/// first); see the module doc.
#[rustfmt::skip]
const ROOK_8X8: [u64; 64] = [
    0x0a00_1042_0100_8020, 0x0040_0020_0010_0040, 0x1080_1000_8020_0008, 0x2080_0800_8004_1000,
    0x0480_0400_0280_0800, 0x0300_0400_0802_0100, 0x4580_0200_1480_0d00, 0x0100_0080_5100_0022,
    0x8010_8000_2080_4006, 0x1410_8040_0820_0084, 0x0000_8020_0080_1005, 0x0070_8010_0008_0480,
    0x8c81_0008_0300_0410, 0x0b04_8002_0004_0080, 0x0049_000c_2600_0500, 0x0001_0000_7082_0100,
    0x0100_2080_0080_4010, 0x0090_0240_0020_01ca, 0x00e0_0080_1000_2084, 0x0880_8080_1000_0800,
    0x4065_0100_0800_1004, 0x1244_0040_4002_0100, 0x0482_0040_4001_0080, 0x0001_a200_0081_0054,
    0x0100_4000_8020_8000, 0x0840_0022_2010_0801, 0x5004_8042_0012_0020, 0x0101_0209_0010_0020,
    0x0208_0080_8008_0400, 0x6002_0200_8080_0400, 0x0010_a204_0008_0170, 0x9000_0082_0001_0044,
    0x0000_8040_0080_0020, 0x0800_2000_4840_1000, 0x0001_0214_4100_2001, 0x400c_c012_0200_2108,
    0x0100_0800_0500_1100, 0x0004_d040_0801_0460, 0x0001_0024_1100_0200, 0x3008_0040_a200_0114,
    0x0000_8000_4008_8020, 0x4000_4000_8101_0025, 0x0c10_4100_2001_0013, 0x0000_1000_0800_8080,
    0x0022_0020_046a_0010, 0x1082_0008_0401_0100, 0x2908_1910_0804_00ca, 0x0a41_0080_4402_0001,
    0x1000_4100_8022_0200, 0x0004_2000_4002_8480, 0x8420_0021_0010_4100, 0x0031_0108_2210_0100,
    0x1000_808c_0008_0180, 0x8000_8002_0004_0080, 0x8080_0201_c810_0400, 0x4000_0100_5084_0200,
    0x0200_2104_1048_8001, 0x0002_0012_2041_8902, 0x0002_0221_0810_4082, 0xa044_7850_0100_6005,
    0x0401_0008_0004_0211, 0x0041_0018_0400_0203, 0x2910_0822_0110_0084, 0x8020_0820_4494_0102,
];

/// The bishops' magic numbers of an 8x8 board, by row-major square.
#[rustfmt::skip]
const BISHOP_8X8: [u64; 64] = [
    0x0020_2481_0808_2080, 0x8408_0141_0202_0010, 0x2408_0840_4481_2801, 0x0009_0411_0205_0204,
    0x8042_0211_2840_0001, 0x1452_0210_0400_0810, 0x1002_8218_2104_5002, 0x0002_202a_0220_2011,
    0x0204_1024_0124_4400, 0x00c0_1042_0809_0020, 0x2948_223a_0042_0160, 0x1c42_1806_0045_8032,
    0x0400_0212_1001_0000, 0x3802_0082_2020_0000, 0x1008_0206_0212_4202, 0x2102_3084_0948_1200,
    0x0908_3041_4208_0200, 0x0008_0110_3080_8080, 0x6190_2082_0400_1220, 0x0002_0024_2206_0000,
    0x0002_2004_02a0_0415, 0x0022_0001_0811_0400, 0x0702_0084_4a10_0400, 0x0483_2808_c202_1000,
    0x2020_8800_1022_4800, 0x1482_0829_3021_0840, 0x1908_0102_8810_4104, 0x0984_0400_a041_0200,
    0x8001_0100_0010_4000, 0x0000_8a00_0088_0c03, 0x1008_8200_0118_0a00, 0x2011_0209_8032_0100,
    0x8404_2020_0204_0541, 0x1008_5802_004c_0440, 0x0209_1848_0010_0881, 0x00a0_1108_0014_0040,
    0x0000_4100_400c_0040, 0x0020_0041_0100_8090, 0x8742_0800_4002_0250, 0x0048_c482_8482_0200,
    0x8008_0410_4821_3600, 0x5102_0130_1828_922a, 0x0028_0c20_8800_1000, 0x400c_6042_0804_4080,
    0x0008_4021_0100_2212, 0x3001_4a08_1600_0040, 0x1004_8112_0402_0204, 0x0802_8800_4301_0082,
    0x4002_0084_2008_8a42, 0x0000_8245_18a0_0000, 0x0201_0421_0808_0204, 0x400c_2402_1044_0400,
    0x9003_2008_2088_4010, 0x8201_0410_8202_0800, 0x8c10_a102_0420_4003, 0x0670_0424_a401_4000,
    0x3884_4424_1108_4001, 0x0000_0901_0101_2008, 0x1101_2801_0088_04a0, 0x0000_0000_0084_0404,
    0x0000_0082_4008_2200, 0x0400_0004_0448_0200, 0x0c46_4204_0800_8900, 0x1120_c802_1040_4a00,
];

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    use super::super::squareset::tests::Rng;

    /// A number with few bits set, which makes a good magic likelier.
    fn sparse(rng: &mut Rng) -> u64 {
        rng.next() & rng.next() & rng.next()
    }

    /// The first number of `rng` that fits square `i` of `slider`.
    fn search(rng: &mut Rng, i: usize, slider: &Slider) -> u64 {
        let mask = slider.masks[i];
        let bits = bits(mask);
        let subsets = subsets(i, slider);
        let mut slots = vec![0; 1 << bits];
        let mut written = vec![0; 1 << bits];
        for attempt in 1.. {
            let magic = sparse(rng);
            // Numbers that spread the mask's bits thinly into the top
            // byte rarely fit: skipped without filling a table.
            if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
                continue;
            }
            if fill(&subsets, bits, magic, &mut slots, &mut written, attempt) {
                return magic;
            }
        }
        unreachable!("the attempts never run out")
    }

    /// The seeded search (rooks then bishops, square by square, one
    /// generator) that found [`ROOK_8X8`] and [`BISHOP_8X8`].
    pub(in super::super) fn search_8x8(rook: Slider, bishop: Slider) -> [[u64; 64]; 2] {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ 64);
        let mut search_all =
            |slider: &Slider| -> [u64; 64] { std::array::from_fn(|i| search(&mut rng, i, slider)) };
        let rooks = search_all(&rook);
        [rooks, search_all(&bishop)]
    }

    /// The tables as they are written.
    pub(in super::super) fn tables() -> [[u64; 64]; 2] {
        [ROOK_8X8, BISHOP_8X8]
    }
}
