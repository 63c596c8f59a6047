//! Rule sets as data: each flag is one rule that differs between the chess
//! programs chessgrade grades. The engine consults these flags; it never
//! branches on a rule set's name.

use crate::domain::Role;
use std::fmt;
use std::str::FromStr;

/// The named rule sets a scenario can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleSetId {
    /// The course's Lab 3 (CS lab "Chess"): the default for scenario files.
    Lab3,
    /// Full chess: turns, en passant, promotion, castling by rights, mate.
    Standard,
    /// CUHK CSCI1120 (seed 000): no check rule, capturing a king ends the
    /// game, no castling / en passant / promotion, scores, "Z0 Z0" stops.
    Cuhk,
    /// JHU CS220 (seed 002): check, mate and stalemate, promotion to a queen
    /// only, no castling or en passant, Shannon's points, a Mystery piece.
    Jhu,
}

impl RuleSetId {
    pub const ALL: [RuleSetId; 4] = [
        RuleSetId::Lab3,
        RuleSetId::Standard,
        RuleSetId::Cuhk,
        RuleSetId::Jhu,
    ];

    pub fn name(self) -> &'static str {
        match self {
            RuleSetId::Lab3 => "lab3",
            RuleSetId::Standard => "standard",
            RuleSetId::Cuhk => "cuhk",
            RuleSetId::Jhu => "jhu",
        }
    }

    pub fn rules(self) -> RuleSet {
        match self {
            RuleSetId::Lab3 => RuleSet::lab3(),
            RuleSetId::Standard => RuleSet::standard(),
            RuleSetId::Cuhk => RuleSet::cuhk(),
            RuleSetId::Jhu => RuleSet::jhu(),
        }
    }
}

impl fmt::Display for RuleSetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RuleSetId {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RuleSetId::ALL
            .into_iter()
            .find(|id| id.name() == s)
            .ok_or_else(|| {
                let known: Vec<_> = RuleSetId::ALL.iter().map(|id| id.name()).collect();
                format!("unknown rule set `{s}` (known: {})", known.join(", "))
            })
    }
}

/// How castling works, if at all. Whatever the flavour, the king may not
/// castle out of, through or into an attack, and every square the king or
/// the rook crosses or lands on must be empty (but for those two pieces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Castling {
    None,
    /// Lab 3: only on 8x8; king on column 4 of its home row (row 7 White,
    /// row 0 Black) and rook on a corner, both untouched since the setup.
    HomeSquares8x8,
    /// By the position's castling rights (FEN `KQkq`, or Shredder/X-FEN
    /// file letters): the king and the named rook on the side's home row
    /// (the last row for White, row 0 for Black). The king lands on file c
    /// (queen side) or on the second-to-last file (king side: g on 8x8),
    /// the rook on the square next to it towards the centre (d / f on 8x8).
    /// A king move loses both rights of its side; a move from or onto a
    /// right's rook square loses that right.
    Rights,
}

/// A set of roles, listed in the order Queen, Rook, Bishop, Knight, King,
/// Pawn (the order a promotion prefers them in).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RoleSet(u8);

impl RoleSet {
    pub const EMPTY: RoleSet = RoleSet(0);
    /// Queen, rook, bishop and knight: standard chess's promotions.
    pub const QRBN: RoleSet = RoleSet::of(&[Role::Queen, Role::Rook, Role::Bishop, Role::Knight]);
    const PREFERENCE: [Role; 6] = [
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::King,
        Role::Pawn,
    ];

    pub const fn of(roles: &[Role]) -> RoleSet {
        let mut bits = 0;
        let mut i = 0;
        while i < roles.len() {
            bits |= 1 << roles[i] as u8;
            i += 1;
        }
        RoleSet(bits)
    }

    /// Upper- or lower-case role letters, e.g. `QRBN`; `None` for anything else.
    pub fn from_letters(letters: &str) -> Option<RoleSet> {
        letters.chars().try_fold(RoleSet::EMPTY, |set, c| {
            Role::from_letter(c).map(|r| RoleSet(set.0 | 1 << r as u8))
        })
    }

    pub const fn contains(self, role: Role) -> bool {
        self.0 & (1 << role as u8) != 0
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many roles the set holds.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn iter(self) -> impl Iterator<Item = Role> {
        RoleSet::PREFERENCE
            .into_iter()
            .filter(move |&r| self.contains(r))
    }
}

/// How the users of a rule set's program type a move; scenarios write a
/// `move` step's argument the same way (see `engine::notation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    /// UCI: `e2e4`, `e7e8q` (files from `a`, ranks from the bottom row).
    Uci,
    /// JHU's `M` command: `E2E4`; a lower-case file is not on the board.
    Jhu,
    /// CUHK's prompt: two cells `A7 A5`, any case, row 1 at the top
    /// (`A2` is `board[1][0]`); `Z0 Z0` (exactly so) stops the game.
    Cuhk,
}

/// Points per role, indexed by [`Role`] (pawn, knight, bishop, rook, queen,
/// king, mystery): what a `score` step adds up for each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceValues(pub [u32; 7]);

impl PieceValues {
    /// Shannon's 1949 values, as JHU (and chessgrade's other rule sets) use
    /// them: P 1, N 3, B 3, R 5, Q 9; the king and the Mystery piece 0.
    pub const SHANNON: PieceValues = PieceValues([1, 3, 3, 5, 9, 0, 0]);
    /// CUHK's table 1: P 1, N 10, B 20, R 5, Q 50, K 1000.
    pub const CUHK: PieceValues = PieceValues([1, 10, 20, 5, 50, 1000, 0]);

    pub fn of(&self, role: Role) -> u32 {
        self.0[role as usize]
    }
}

/// The largest number of offsets a Mystery piece may be given.
pub const MYSTERY_MAX_OFFSETS: usize = 8;

/// How the Mystery piece moves (JHU): a leaper jumps by its offsets over
/// anything — unless an offset lies along a straight line (a row, a column
/// or a diagonal), which the seed says may never pass through pieces, so
/// such a leap needs the squares between empty; a slider repeats a
/// straight-line offset until blocked. Each
/// offset `(dr, dc)` stands for its eight symmetric variants (signs and
/// swapped), so a shape is the same for both colours and attacks are found
/// by walking the offsets backwards, as for the other pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MysteryShape {
    pub slides: bool,
    /// The point value a `score` step counts for it.
    pub value: u32,
    vectors: [(i32, i32); 8 * MYSTERY_MAX_OFFSETS],
    len: usize,
}

/// Why [`MysteryShape::new`] refused a shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadShape {
    /// Not 1 to [`MYSTERY_MAX_OFFSETS`] offsets (how many were given).
    Count(usize),
    /// An offset that does not move, or moves over 16 squares a way.
    Offset(i32, i32),
    /// A slider's offset that is not a straight line.
    SliderOffset(i32, i32),
}

impl std::fmt::Display for BadShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadShape::Count(n) => write!(
                f,
                "a Mystery piece needs 1 to {MYSTERY_MAX_OFFSETS} offsets, found {n}"
            ),
            BadShape::Offset(dr, dc) => write!(
                f,
                "offset {dr},{dc}: each offset moves, by at most 16 each way"
            ),
            BadShape::SliderOffset(dr, dc) => write!(
                f,
                "offset {dr},{dc}: a slider moves along straight lines (offsets of -1, 0 or 1)"
            ),
        }
    }
}

impl std::error::Error for BadShape {}

impl MysteryShape {
    /// The shape of the given offsets: 1 to [`MYSTERY_MAX_OFFSETS`], none
    /// `(0, 0)`, each coordinate at most 16 away; a slider's offsets must
    /// be straight lines (each coordinate -1, 0 or 1).
    pub fn new(slides: bool, offsets: &[(i32, i32)], value: u32) -> Result<MysteryShape, BadShape> {
        if offsets.is_empty() || offsets.len() > MYSTERY_MAX_OFFSETS {
            return Err(BadShape::Count(offsets.len()));
        }
        let mut shape = MysteryShape {
            slides,
            value,
            vectors: [(0, 0); 8 * MYSTERY_MAX_OFFSETS],
            len: 0,
        };
        for &(dr, dc) in offsets {
            if (dr, dc) == (0, 0) || dr.abs() > 16 || dc.abs() > 16 {
                return Err(BadShape::Offset(dr, dc));
            }
            if slides && (dr.abs() > 1 || dc.abs() > 1) {
                return Err(BadShape::SliderOffset(dr, dc));
            }
            for (a, b) in [(dr, dc), (dc, dr)] {
                for v in [(a, b), (-a, b), (a, -b), (-a, -b)] {
                    if !shape.vectors().contains(&v) {
                        shape.vectors[shape.len] = v;
                        shape.len += 1;
                    }
                }
            }
        }
        Ok(shape)
    }

    /// Every direction it moves in (the offsets with their symmetric variants).
    pub fn vectors(&self) -> &[(i32, i32)] {
        &self.vectors[..self.len]
    }

    /// For a leaper's move `(dr, dc)` along a straight line over more than
    /// one square: the unit step and the number of steps, so the squares
    /// strictly between can be checked (the seed: a straight-line Mystery
    /// move may not pass through pieces). `None` for a slider (its walk
    /// stops at pieces anyway) and for moves that are not straight.
    pub fn blocked_leap(&self, dr: i32, dc: i32) -> Option<((i32, i32), i32)> {
        let steps = dr.abs().max(dc.abs());
        let straight = dr == 0 || dc == 0 || dr.abs() == dc.abs();
        (!self.slides && straight && steps > 1).then(|| ((dr / steps, dc / steps), steps))
    }

    /// Is `(dr, dc)` one of its moves, on an empty board?
    pub fn reaches(&self, dr: i32, dc: i32) -> bool {
        self.vectors().iter().any(|&(vr, vc)| {
            if !self.slides {
                return (vr, vc) == (dr, dc);
            }
            let k = if vr != 0 { dr / vr } else { dc / vc };
            k >= 1 && (vr * k, vc * k) == (dr, dc)
        })
    }
}

/// The rules one engine applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleSet {
    pub id: RuleSetId,
    /// `isValidMove` checks whose turn it is (Lab 3: it does not; `movePiece` always does).
    pub validity_checks_turn: bool,
    /// A move may not leave the mover's own king attacked (when it has one).
    pub king_safety: bool,
    /// Pawns on their start row (row 1 Black, rows-2 White) may advance two squares.
    pub pawn_double_step: bool,
    pub castling: Castling,
    /// A pawn may take a pawn that has just advanced two squares past it, as
    /// if it had advanced one (needs `pawn_double_step` to ever happen).
    pub en_passant: bool,
    /// What a pawn reaching the last row (row 0 White, rows-1 Black) turns
    /// into; it must pick one. Empty: no promotion, the pawn stays a pawn
    /// (and a double step may then land on the last row).
    pub promotion: RoleSet,
    /// Checkmate and stalemate end the game: [`super::Position::status`]
    /// reports them (Lab 3 has no such notion: the status stays ongoing).
    pub mate_ends_game: bool,
    /// Capturing a king ends the game, its captor's side winning (CUHK).
    pub king_capture_ends_game: bool,
    /// What each piece is worth to a `score` step (and to `stop`).
    pub values: PieceValues,
    /// How a `move` step's argument is written.
    pub notation: Notation,
    /// How the Mystery piece moves, when a scenario uses one.
    pub mystery: Option<MysteryShape>,
}

impl RuleSet {
    pub fn lab3() -> RuleSet {
        RuleSet {
            id: RuleSetId::Lab3,
            validity_checks_turn: false,
            king_safety: true,
            pawn_double_step: true,
            castling: Castling::HomeSquares8x8,
            en_passant: false,
            promotion: RoleSet::EMPTY,
            mate_ends_game: false,
            king_capture_ends_game: false,
            values: PieceValues::SHANNON,
            notation: Notation::Uci,
            mystery: None,
        }
    }

    pub fn standard() -> RuleSet {
        RuleSet {
            id: RuleSetId::Standard,
            validity_checks_turn: true,
            king_safety: true,
            pawn_double_step: true,
            castling: Castling::Rights,
            en_passant: true,
            promotion: RoleSet::QRBN,
            mate_ends_game: true,
            king_capture_ends_game: false,
            values: PieceValues::SHANNON,
            notation: Notation::Uci,
            mystery: None,
        }
    }

    /// Seed 000: kings may walk into attack and are captured like any
    /// piece, which ends the game; a pawn on the last row stays a pawn.
    pub fn cuhk() -> RuleSet {
        RuleSet {
            id: RuleSetId::Cuhk,
            validity_checks_turn: true,
            king_safety: false,
            pawn_double_step: true,
            castling: Castling::None,
            en_passant: false,
            promotion: RoleSet::EMPTY,
            mate_ends_game: false,
            king_capture_ends_game: true,
            values: PieceValues::CUHK,
            notation: Notation::Cuhk,
            mystery: None,
        }
    }

    /// Seed 002: standard check, checkmate and stalemate, a pawn on the
    /// last row becomes a queen, no castling and no en passant.
    pub fn jhu() -> RuleSet {
        RuleSet {
            id: RuleSetId::Jhu,
            validity_checks_turn: true,
            king_safety: true,
            pawn_double_step: true,
            castling: Castling::None,
            en_passant: false,
            promotion: RoleSet::of(&[Role::Queen]),
            mate_ends_game: true,
            king_capture_ends_game: false,
            values: PieceValues::SHANNON,
            notation: Notation::Jhu,
            mystery: None,
        }
    }

    /// What `piece` is worth here.
    pub fn value(&self, role: Role) -> u32 {
        match (role, self.mystery) {
            (Role::Mystery, Some(shape)) => shape.value,
            _ => self.values.of(role),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_set_names_round_trip() {
        for id in RuleSetId::ALL {
            assert_eq!(id.name().parse::<RuleSetId>(), Ok(id));
            assert_eq!(id.rules().id, id);
        }
        let err = "chess960".parse::<RuleSetId>().unwrap_err();
        assert!(err.contains("lab3") && err.contains("standard"), "{err}");
    }

    #[test]
    fn role_sets_list_promotions_queen_first() {
        let all: Vec<_> = RoleSet::QRBN.iter().collect();
        assert_eq!(all, [Role::Queen, Role::Rook, Role::Bishop, Role::Knight]);
        assert_eq!(RoleSet::from_letters("nrq"), RoleSet::from_letters("QRN"));
        assert!(!RoleSet::from_letters("QRN").unwrap().contains(Role::Bishop));
        assert_eq!(RoleSet::from_letters("QX"), None);
        assert!(RoleSet::EMPTY.is_empty() && RoleSet::EMPTY.iter().next().is_none());
    }

    #[test]
    fn lab3_keeps_its_rules() {
        let r = RuleSet::lab3();
        assert!(!r.validity_checks_turn && r.king_safety && r.pawn_double_step);
        assert_eq!(r.castling, Castling::HomeSquares8x8);
        assert!(!r.en_passant && r.promotion.is_empty() && !r.mate_ends_game);
        assert!(!r.king_capture_ends_game && r.mystery.is_none());
    }

    #[test]
    fn cuhk_and_jhu_follow_their_seeds() {
        let c = RuleSet::cuhk();
        assert!(!c.king_safety && c.king_capture_ends_game && !c.mate_ends_game);
        assert!(c.promotion.is_empty() && !c.en_passant && c.castling == Castling::None);
        let cuhk_points: Vec<u32> = [Role::King, Role::Queen, Role::Bishop, Role::Knight]
            .into_iter()
            .chain([Role::Rook, Role::Pawn])
            .map(|r| c.value(r))
            .collect();
        assert_eq!(cuhk_points, [1000, 50, 20, 10, 5, 1]);
        let j = RuleSet::jhu();
        assert!(j.king_safety && j.mate_ends_game && !j.king_capture_ends_game);
        assert_eq!(j.promotion.iter().collect::<Vec<_>>(), [Role::Queen]);
        assert!(!j.en_passant && j.castling == Castling::None);
        let jhu_points: Vec<u32> = [Role::Pawn, Role::Knight, Role::Bishop, Role::Rook]
            .into_iter()
            .chain([Role::Queen])
            .map(|r| j.value(r))
            .collect();
        assert_eq!(jhu_points, [1, 3, 3, 5, 9]);
    }

    #[test]
    fn mystery_offsets_stand_for_their_symmetric_variants() {
        let camel = MysteryShape::new(false, &[(1, 3)], 4).unwrap();
        assert_eq!(camel.vectors().len(), 8);
        assert!(camel.reaches(3, -1) && camel.reaches(-1, -3));
        assert!(!camel.reaches(2, 6) && !camel.reaches(1, 2));
        let wazir_rider = MysteryShape::new(true, &[(1, 0)], 0).unwrap();
        assert_eq!(wazir_rider.vectors().len(), 4);
        assert!(wazir_rider.reaches(0, -5) && !wazir_rider.reaches(1, 1));
        assert_eq!(
            MysteryShape::new(true, &[(1, 2)], 0).unwrap_err(),
            BadShape::SliderOffset(1, 2)
        );
        assert_eq!(
            MysteryShape::new(false, &[(0, 0)], 0).unwrap_err(),
            BadShape::Offset(0, 0)
        );
        assert_eq!(
            MysteryShape::new(false, &[], 0).unwrap_err(),
            BadShape::Count(0)
        );
        assert_eq!(
            MysteryShape::new(false, &[(17, 0)], 0)
                .unwrap_err()
                .to_string(),
            "offset 17,0: each offset moves, by at most 16 each way"
        );
    }
}
