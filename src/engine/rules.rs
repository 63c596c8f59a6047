//! Rule sets as data: each flag is one rule that differs between the chess
//! programs chessgrade grades. The engine consults these flags; it never
//! branches on a rule set's name. The four built-in sets are constructors
//! here; a course's own set is read from a rule file (`super::rulefile`)
//! into the same struct, so both run the same code.

use super::pieces::PieceTable;
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

impl Castling {
    pub const ALL: [Castling; 3] = [Castling::None, Castling::HomeSquares8x8, Castling::Rights];

    /// Its name in rule files and protocol tokens.
    pub fn name(self) -> &'static str {
        match self {
            Castling::None => "none",
            Castling::HomeSquares8x8 => "home-squares",
            Castling::Rights => "rights",
        }
    }
}

/// The roles a pawn may become, in the rule set's order of preference
/// (the first is what a promotion without a letter picks, and the order
/// moves are listed in): Q R B N for chess, a rule file's `promotion`
/// letters in its order. A set: no role twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RoleSet {
    order: [Role; Role::ALL.len()],
    len: u8,
    bits: u32,
}

impl Default for RoleSet {
    fn default() -> Self {
        RoleSet::EMPTY
    }
}

impl RoleSet {
    pub const EMPTY: RoleSet = RoleSet {
        order: [Role::Pawn; Role::ALL.len()],
        len: 0,
        bits: 0,
    };
    /// Queen, rook, bishop and knight: standard chess's promotions.
    pub const QRBN: RoleSet = RoleSet::of(&[Role::Queen, Role::Rook, Role::Bishop, Role::Knight]);

    /// The roles in this order; a role listed twice counts once, where it
    /// first stands.
    pub const fn of(roles: &[Role]) -> RoleSet {
        let mut set = RoleSet::EMPTY;
        let mut i = 0;
        while i < roles.len() {
            set = set.with(roles[i]);
            i += 1;
        }
        set
    }

    /// This set with `role` added last (unchanged if it holds it).
    pub const fn with(mut self, role: Role) -> RoleSet {
        if !self.contains(role) {
            self.order[self.len as usize] = role;
            self.len += 1;
            self.bits |= 1 << role as u32;
        }
        self
    }

    /// Upper- or lower-case role letters in order, e.g. `QRBN`; `None` for
    /// anything but letters.
    pub fn from_letters(letters: &str) -> Option<RoleSet> {
        letters.chars().try_fold(RoleSet::EMPTY, |set, c| {
            Role::from_letter(c).map(|r| set.with(r))
        })
    }

    pub const fn contains(self, role: Role) -> bool {
        self.bits & (1 << role as u32) != 0
    }

    pub const fn is_empty(self) -> bool {
        self.len == 0
    }

    /// How many roles the set holds.
    pub const fn len(self) -> usize {
        self.len as usize
    }

    /// The first role (a promotion's default).
    pub fn first(self) -> Option<Role> {
        self.iter().next()
    }

    pub fn iter(self) -> impl Iterator<Item = Role> {
        self.order.into_iter().take(self.len as usize)
    }

    /// The upper-case letters in order (`QRBN`).
    pub fn letters(self) -> String {
        self.iter()
            .map(|r| r.letter().to_ascii_uppercase())
            .collect()
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

impl Notation {
    pub const ALL: [Notation; 3] = [Notation::Uci, Notation::Jhu, Notation::Cuhk];

    /// Its name in rule files and protocol tokens.
    pub fn name(self) -> &'static str {
        match self {
            Notation::Uci => "uci",
            Notation::Jhu => "jhu",
            Notation::Cuhk => "cuhk",
        }
    }
}

/// Points per role, indexed by [`Role`] (pawn, knight, bishop, rook, queen,
/// king, mystery, then a course's pieces by letter): what a `score` step
/// adds up for each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PieceValues(pub [u32; Role::ALL.len()]);

impl PieceValues {
    /// Shannon's 1949 values, as JHU (and chessgrade's other rule sets) use
    /// them: P 1, N 3, B 3, R 5, Q 9; the king and the Mystery piece 0.
    pub const SHANNON: PieceValues = PieceValues::built_in([1, 3, 3, 5, 9, 0, 0]);
    /// CUHK's table 1: P 1, N 10, B 20, R 5, Q 50, K 1000.
    pub const CUHK: PieceValues = PieceValues::built_in([1, 10, 20, 5, 50, 1000, 0]);

    /// The values of the seven built-in roles; a course's pieces 0.
    const fn built_in(values: [u32; 7]) -> PieceValues {
        let mut all = [0; Role::ALL.len()];
        let mut i = 0;
        while i < values.len() {
            all[i] = values[i];
            i += 1;
        }
        PieceValues(all)
    }

    pub fn of(&self, role: Role) -> u32 {
        self.0[role as usize]
    }
}

/// What ends a game (`ends` in a rule file): the game's status says so,
/// and no move is played afterwards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ends {
    /// The side to move is in check and has no legal move: the other side wins.
    pub checkmate: bool,
    /// The side to move is not in check and has no legal move: a draw.
    pub stalemate: bool,
    /// A king was captured (CUHK, where kings may be left attacked): its
    /// captor's side wins.
    pub king_captured: bool,
}

impl Ends {
    /// Each end's name in rule files and protocol tokens.
    pub const NAMES: [&'static str; 3] = ["checkmate", "stalemate", "king-captured"];

    /// The flag of the end named `name`.
    pub fn flag(&mut self, name: &str) -> Option<&mut bool> {
        match name {
            "checkmate" => Some(&mut self.checkmate),
            "stalemate" => Some(&mut self.stalemate),
            "king-captured" => Some(&mut self.king_captured),
            _ => None,
        }
    }

    /// The names of the ends that are on, in [`Ends::NAMES`]' order.
    pub fn names(self) -> Vec<&'static str> {
        let on = [self.checkmate, self.stalemate, self.king_captured];
        Ends::NAMES
            .into_iter()
            .zip(on)
            .filter_map(|(name, on)| on.then_some(name))
            .collect()
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    /// The family: the built-in set this one is (or, read from a rule
    /// file, extends). It decides what is the course's, not the engine's:
    /// which console dialect judges a program, how gen mixes steps, how
    /// diagrams label squares, which submissions can run the scenario.
    pub id: RuleSetId,
    /// Shown in reports: the built-in set's name, or the rule file's `name`.
    pub name: &'static str,
    /// `isValidMove` checks whose turn it is (Lab 3: it does not; `movePiece` always does).
    pub validity_checks_turn: bool,
    /// A move may not leave the mover's own king attacked (when it has one).
    pub king_safety: bool,
    /// Pawns on their start row (row 1 Black, rows-2 White) may advance two squares.
    pub pawn_double_step: bool,
    pub castling: Castling,
    /// The files the king lands on when castling, queen side then king
    /// side; `None`: file c and the second-to-last file (g on 8x8). The
    /// rook lands beside the king, on the side it came from.
    pub castling_files: Option<[u16; 2]>,
    /// A pawn may take a pawn that has just advanced two squares past it, as
    /// if it had advanced one (needs `pawn_double_step` to ever happen).
    pub en_passant: bool,
    /// What a pawn reaching the last row (row 0 White, rows-1 Black) turns
    /// into, in order of preference; it must pick one. Empty: no
    /// promotion, the pawn stays a pawn (and a double step may then land
    /// on the last row).
    pub promotion: RoleSet,
    /// What ends the game ([`super::Position::status`] and
    /// [`super::Game`]); Lab 3 has no such notion: the status stays ongoing.
    pub ends: Ends,
    /// What each piece is worth to a `score` step (and to `stop`).
    pub values: PieceValues,
    /// How a `move` step's argument is written.
    pub notation: Notation,
    /// How the Mystery piece moves, when a scenario uses one.
    pub mystery: Option<MysteryShape>,
    /// How every piece but the pawn moves: chess's pieces, and a rule
    /// file's own.
    pub pieces: &'static PieceTable,
    /// The start position of a rule file's `start` (a FEN), if it has one.
    pub start: Option<&'static str>,
}

impl RuleSet {
    pub fn lab3() -> RuleSet {
        RuleSet {
            id: RuleSetId::Lab3,
            name: "lab3",
            validity_checks_turn: false,
            king_safety: true,
            pawn_double_step: true,
            castling: Castling::HomeSquares8x8,
            castling_files: None,
            en_passant: false,
            promotion: RoleSet::EMPTY,
            ends: Ends::default(),
            values: PieceValues::SHANNON,
            notation: Notation::Uci,
            mystery: None,
            pieces: PieceTable::chess(),
            start: None,
        }
    }

    pub fn standard() -> RuleSet {
        RuleSet {
            id: RuleSetId::Standard,
            name: "standard",
            validity_checks_turn: true,
            castling: Castling::Rights,
            en_passant: true,
            promotion: RoleSet::QRBN,
            ends: Ends {
                checkmate: true,
                stalemate: true,
                king_captured: false,
            },
            ..RuleSet::lab3()
        }
    }

    /// Seed 000: kings may walk into attack and are captured like any
    /// piece, which ends the game; a pawn on the last row stays a pawn.
    pub fn cuhk() -> RuleSet {
        RuleSet {
            id: RuleSetId::Cuhk,
            name: "cuhk",
            validity_checks_turn: true,
            king_safety: false,
            castling: Castling::None,
            ends: Ends {
                checkmate: false,
                stalemate: false,
                king_captured: true,
            },
            values: PieceValues::CUHK,
            notation: Notation::Cuhk,
            ..RuleSet::lab3()
        }
    }

    /// Seed 002: standard check, checkmate and stalemate, a pawn on the
    /// last row becomes a queen, no castling and no en passant.
    pub fn jhu() -> RuleSet {
        RuleSet {
            id: RuleSetId::Jhu,
            name: "jhu",
            castling: Castling::None,
            en_passant: false,
            promotion: RoleSet::of(&[Role::Queen]),
            notation: Notation::Jhu,
            ..RuleSet::standard()
        }
    }

    /// The start position: the rule file's `start`, or chess's.
    pub fn start_fen(&self) -> &'static str {
        self.start.unwrap_or(super::START_FEN)
    }

    /// What `piece` is worth here.
    pub fn value(&self, role: Role) -> u32 {
        match (role, self.mystery) {
            (Role::Mystery, Some(shape)) => shape.value,
            _ => self.values.of(role),
        }
    }

    /// May a board of these rules hold `role`? The six of chess and the
    /// Mystery piece always (without a shape, `@mystery`, or a rule file's
    /// `[pieces.M]`, a Mystery piece never moves: scenarios ask for its
    /// shape, the engine does not); a course's piece when the rule file
    /// defines it.
    pub fn knows(&self, role: Role) -> bool {
        role == Role::Mystery || self.pieces.knows(role)
    }

    /// Does the Mystery piece move here (a shape, or a rule file's `[pieces.M]`)?
    pub fn mystery_moves(&self) -> bool {
        self.mystery.is_some() || self.pieces.knows(Role::Mystery)
    }

    /// What `role` is called here (`archbishop`; `knight`).
    pub fn piece_name(&self, role: Role) -> &str {
        self.pieces.name(role)
    }

    /// The table a board of these rules reads: the rule set's pieces, with
    /// the Mystery piece's shape when the scenario gives one.
    pub fn board_pieces(&self) -> &'static PieceTable {
        self.pieces.with_mystery(self.mystery.as_ref())
    }

    /// Do `self` and `other` decide every step alike (everything but the
    /// name and the family they are shown under)?
    pub fn same_rules(&self, other: &RuleSet) -> bool {
        self.pieces.same_moves(other.pieces)
            && RuleSet {
                id: other.id,
                name: other.name,
                pieces: other.pieces,
                ..*self
            } == *other
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
        // A rule file's order is kept: it is the order of preference.
        let nrq = RoleSet::from_letters("nrq").unwrap();
        assert_eq!(
            nrq.iter().collect::<Vec<_>>(),
            [Role::Knight, Role::Rook, Role::Queen]
        );
        assert_ne!(Some(nrq), RoleSet::from_letters("QRN"));
        assert_eq!(nrq.letters(), "NRQ");
        assert_eq!(RoleSet::from_letters("QRQ").unwrap().len(), 2);
        assert!(!RoleSet::from_letters("QRN").unwrap().contains(Role::Bishop));
        assert!(RoleSet::from_letters("QA").unwrap().contains(Role::A));
        assert_eq!(RoleSet::from_letters("Q1"), None);
        assert!(RoleSet::EMPTY.is_empty() && RoleSet::EMPTY.iter().next().is_none());
    }

    #[test]
    fn lab3_keeps_its_rules() {
        let r = RuleSet::lab3();
        assert!(!r.validity_checks_turn && r.king_safety && r.pawn_double_step);
        assert_eq!(r.castling, Castling::HomeSquares8x8);
        assert!(!r.en_passant && r.promotion.is_empty() && r.ends == Ends::default());
        assert!(r.mystery.is_none() && r.pieces.classic_movers() && !r.pieces.any_by_table());
    }

    #[test]
    fn cuhk_and_jhu_follow_their_seeds() {
        let c = RuleSet::cuhk();
        assert!(!c.king_safety && c.ends.king_captured && !c.ends.checkmate && !c.ends.stalemate);
        assert!(c.promotion.is_empty() && !c.en_passant && c.castling == Castling::None);
        let cuhk_points: Vec<u32> = [Role::King, Role::Queen, Role::Bishop, Role::Knight]
            .into_iter()
            .chain([Role::Rook, Role::Pawn])
            .map(|r| c.value(r))
            .collect();
        assert_eq!(cuhk_points, [1000, 50, 20, 10, 5, 1]);
        let j = RuleSet::jhu();
        assert!(j.king_safety && j.ends.checkmate && j.ends.stalemate && !j.ends.king_captured);
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
