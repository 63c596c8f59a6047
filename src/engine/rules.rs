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
}

impl RuleSetId {
    pub const ALL: [RuleSetId; 2] = [RuleSetId::Lab3, RuleSetId::Standard];

    pub fn name(self) -> &'static str {
        match self {
            RuleSetId::Lab3 => "lab3",
            RuleSetId::Standard => "standard",
        }
    }

    pub fn rules(self) -> RuleSet {
        match self {
            RuleSetId::Lab3 => RuleSet::lab3(),
            RuleSetId::Standard => RuleSet::standard(),
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

    pub fn iter(self) -> impl Iterator<Item = Role> {
        RoleSet::PREFERENCE
            .into_iter()
            .filter(move |&r| self.contains(r))
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
    }
}
