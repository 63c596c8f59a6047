//! The moves of every piece but the pawn, as data: the table a rule set
//! carries and every board reads.
//!
//! The knight, bishop, rook, queen and king move as in chess unless a rule
//! file says otherwise (`[pieces.N] betza = "mNcB"`); a course's own pieces
//! (`[pieces.A] betza = "BN"`) and the JHU Mystery piece move as their
//! table entry says. The engine keeps its fast paths for the pieces of
//! chess ([`PieceTable::classic_movers`]: the set-based generator, the
//! king's check and pin views, the fixed attack rays) and reads the table
//! only for the roles that move by it ([`PieceTable::moves_by_table`]).
//!
//! # Why tables are interned
//!
//! A [`super::RuleSet`] is a small `Copy` value passed by value through the
//! whole program, and a board asks its table on every attack query. A
//! table is built once per distinct rule file (or Mystery shape) and
//! leaked into a process-wide set, so both hold a `&'static PieceTable`:
//! copying a rule set stays free, equal tables are one table, and the
//! memory kept is bounded by the number of distinct tables a process
//! meets (a handful of small vectors each).

use super::betza::{self, Leg};
use super::rules::MysteryShape;
use crate::domain::{Color, Role};
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, OnceLock};

/// How one role moves under a rule set, and what it is called.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Kind {
    /// Shown in reports and rule files (`archbishop`).
    pub name: String,
    /// The Betza string its legs were read from (`BN`); for a Mystery
    /// shape, a description of it.
    pub betza: String,
    /// Its legs, by [`Color`] (`legs[color as usize]`): Black's are
    /// White's turned half a circle.
    legs: [Vec<Leg>; 2],
}

impl Kind {
    /// A piece of the given legs (for White).
    pub fn new(name: impl Into<String>, betza: impl Into<String>, white: Vec<Leg>) -> Kind {
        let black = white.iter().map(|l| l.flipped()).collect();
        Kind {
            name: name.into(),
            betza: betza.into(),
            legs: [black, white],
        }
    }

    /// A piece read from Betza notation.
    pub fn from_betza(name: impl Into<String>, text: &str) -> Result<Kind, betza::BetzaError> {
        Ok(Kind::new(name, text, betza::parse(text)?))
    }

    /// The JHU Mystery piece of `shape`: its vectors taken once (a leaper,
    /// which needs the squares between empty when its vector lies on a
    /// straight line) or repeated (a slider).
    fn mystery(shape: &MysteryShape) -> Kind {
        let legs = shape
            .vectors()
            .iter()
            .map(|&(dr, dc)| Leg {
                dr,
                dc,
                range: if shape.slides { 0 } else { 1 },
                quiet: true,
                capture: true,
                lame: shape.blocked_leap(dr, dc).is_some(),
            })
            .collect();
        let how = if shape.slides { "slider" } else { "leaper" };
        Kind::new("mystery", format!("mystery {how}"), legs)
    }

    pub fn legs(&self, color: Color) -> &[Leg] {
        &self.legs[color as usize]
    }
}

/// One attack line of the roles that move by the table, seen from the
/// square attacked: a piece of one of `roles` standing `leg`'s vector
/// away (or further, for a rider, with the squares between empty) attacks
/// it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ray {
    pub leg: Leg,
    /// A mask of roles (`1 << role as usize`).
    pub roles: u32,
}

/// The moves of every role but the pawn under one rule set (see the
/// module doc).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PieceTable {
    /// By `role as usize`; `None` for the pawn and for the roles the rule
    /// set does not have.
    kinds: Vec<Option<Kind>>,
    /// The knight, bishop, rook, queen and king move as in chess.
    classic_movers: bool,
    /// The roles whose moves come from this table (`1 << role`): every
    /// defined role but the pawn when the movers are not the classic ones;
    /// else the Mystery piece and the course's pieces.
    by_table: u32,
    /// The attack lines of the roles in `by_table`, by the attacker's
    /// colour.
    rays: [Vec<Ray>; 2],
}

/// The Betza strings of the five pieces of chess.
const CHESS: [(Role, &str); 5] = [
    (Role::Knight, "N"),
    (Role::Bishop, "B"),
    (Role::Rook, "R"),
    (Role::Queen, "Q"),
    (Role::King, "K"),
];

impl PieceTable {
    /// The pieces of chess, nothing else: the table of every built-in rule
    /// set.
    pub fn chess() -> &'static PieceTable {
        static CHESS_TABLE: OnceLock<&'static PieceTable> = OnceLock::new();
        CHESS_TABLE.get_or_init(|| PieceTable::build(Vec::new()))
    }

    /// The table of chess's pieces with `defs` added or put in their place
    /// (a later definition of a role replaces an earlier one). The pawn
    /// cannot be defined: its moves are the rule set's flags.
    pub fn build(defs: Vec<(Role, Kind)>) -> &'static PieceTable {
        let mut kinds: Vec<Option<Kind>> = vec![None; Role::ALL.len()];
        for (role, text) in CHESS {
            let kind = Kind::from_betza(role.name(), text);
            kinds[role as usize] = Some(kind.expect("the pieces of chess read as Betza"));
        }
        for (role, kind) in defs {
            debug_assert!(role != Role::Pawn, "the pawn moves by the rule set's flags");
            if role != Role::Pawn {
                kinds[role as usize] = Some(kind);
            }
        }
        intern(PieceTable::from_kinds(kinds))
    }

    fn from_kinds(kinds: Vec<Option<Kind>>) -> PieceTable {
        let classic_movers = CHESS.iter().all(|&(role, text)| {
            kinds[role as usize]
                .as_ref()
                .is_some_and(|k| betza::parse(text).is_ok_and(|legs| k.legs[1] == legs))
        });
        let mut by_table = 0u32;
        for role in Role::ALL {
            let custom = !matches!(
                role,
                Role::Knight | Role::Bishop | Role::Rook | Role::Queen | Role::King
            ) || !classic_movers;
            if role != Role::Pawn && custom && kinds[role as usize].is_some() {
                by_table |= 1 << role as u32;
            }
        }
        let rays = [Color::Black, Color::White].map(|color| {
            let mut rays: Vec<Ray> = Vec::new();
            for role in Role::ALL
                .into_iter()
                .filter(|&r| by_table & 1 << r as u32 != 0)
            {
                let Some(kind) = &kinds[role as usize] else {
                    continue;
                };
                for leg in kind.legs(color).iter().filter(|l| l.capture) {
                    let way = Leg {
                        quiet: false,
                        ..*leg
                    };
                    match rays.iter_mut().find(|r| r.leg == way) {
                        Some(ray) => ray.roles |= 1 << role as u32,
                        None => rays.push(Ray {
                            leg: way,
                            roles: 1 << role as u32,
                        }),
                    }
                }
            }
            rays
        });
        PieceTable {
            kinds,
            classic_movers,
            by_table,
            rays,
        }
    }

    /// This table with the Mystery piece moving as `shape` says (`None`:
    /// as the table says, if at all). Cached: a scenario's positions all
    /// ask for the same one.
    pub fn with_mystery(&'static self, shape: Option<&MysteryShape>) -> &'static PieceTable {
        let Some(shape) = shape else {
            return self;
        };
        type Key = (usize, MysteryShape);
        static CACHE: OnceLock<Mutex<HashMap<Key, &'static PieceTable>>> = OnceLock::new();
        let key = (self as *const PieceTable as usize, *shape);
        let cache = CACHE.get_or_init(Default::default);
        if let Some(&table) = lock(cache).get(&key) {
            return table;
        }
        let mut kinds = self.kinds.clone();
        kinds[Role::Mystery as usize] = Some(Kind::mystery(shape));
        let table = intern(PieceTable::from_kinds(kinds));
        lock(cache).insert(key, table);
        table
    }

    /// Does the rule set have this role? The pawn and the five pieces of
    /// chess always; the Mystery piece and a course's pieces when defined.
    pub fn knows(&self, role: Role) -> bool {
        role == Role::Pawn || self.kinds[role as usize].is_some()
    }

    /// How `role` moves and what it is called (`None` for the pawn and
    /// for the roles the rule set does not have).
    pub fn kind(&self, role: Role) -> Option<&Kind> {
        self.kinds[role as usize].as_ref()
    }

    /// The name of `role` here: its definition's, or the built-in one.
    pub fn name(&self, role: Role) -> &str {
        self.kind(role).map_or(role.name(), |k| &k.name)
    }

    /// Do the knight, bishop, rook, queen and king move as in chess (so
    /// the engine's fixed shapes and tables answer for them)?
    pub fn classic_movers(&self) -> bool {
        self.classic_movers
    }

    /// Do the two tables have the same roles moving the same way (their
    /// names and how their Betza was written aside)?
    pub fn same_moves(&self, other: &PieceTable) -> bool {
        self.kinds
            .iter()
            .zip(&other.kinds)
            .all(|(a, b)| match (a, b) {
                (Some(a), Some(b)) => a.legs == b.legs,
                (a, b) => a.is_none() && b.is_none(),
            })
    }

    /// Does `role` move by this table rather than by the fixed shapes of
    /// chess?
    #[inline(always)]
    pub fn moves_by_table(&self, role: Role) -> bool {
        self.by_table & 1 << role as u32 != 0
    }

    /// Does any role move by the table (is there anything beyond the
    /// fixed shapes to look at)?
    #[inline(always)]
    pub fn any_by_table(&self) -> bool {
        self.by_table != 0
    }

    /// The legs of `role` for `color` (empty for the pawn and unknown roles).
    pub fn legs(&self, role: Role, color: Color) -> &[Leg] {
        self.kind(role).map_or(&[], |k| k.legs(color))
    }

    /// The attack lines of the roles that move by the table, for attackers
    /// of `color`.
    #[inline(always)]
    pub fn rays(&self, color: Color) -> &[Ray] {
        &self.rays[color as usize]
    }

    /// The roles defined beyond the six of chess and the ones of chess
    /// whose moves differ from chess's, in [`Role::ALL`]'s order: what a
    /// rule file lists under `[pieces]`.
    pub fn own_pieces(&self) -> impl Iterator<Item = (Role, &Kind)> {
        Role::ALL.into_iter().filter_map(move |role| {
            let kind = self.kind(role)?;
            let chess = CHESS.iter().find(|(r, _)| *r == role);
            let same = chess.is_some_and(|(_, text)| {
                betza::parse(text).is_ok_and(|legs| kind.legs[1] == legs)
                    && kind.name == role.name()
            });
            (!same).then_some((role, kind))
        })
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The one `&'static` copy of `table` (see the module doc).
fn intern(table: PieceTable) -> &'static PieceTable {
    static TABLES: OnceLock<Mutex<HashMap<PieceTable, &'static PieceTable>>> = OnceLock::new();
    let tables = TABLES.get_or_init(Default::default);
    let mut tables = lock(tables);
    if let Some(&known) = tables.get(&table) {
        return known;
    }
    let leaked: &'static PieceTable = Box::leak(Box::new(table.clone()));
    tables.insert(table, leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chess_moves_by_its_fixed_shapes() {
        let t = PieceTable::chess();
        assert!(t.classic_movers() && !t.any_by_table());
        assert!(t.knows(Role::Pawn) && t.knows(Role::Queen) && !t.knows(Role::Mystery));
        assert!(!t.knows(Role::A));
        assert_eq!(t.own_pieces().count(), 0);
        assert!(std::ptr::eq(t, PieceTable::build(Vec::new())), "interned");
    }

    #[test]
    fn a_course_piece_moves_by_the_table() {
        let a = Kind::from_betza("archbishop", "BN").unwrap();
        let t = PieceTable::build(vec![(Role::A, a)]);
        assert!(t.classic_movers() && t.moves_by_table(Role::A) && !t.moves_by_table(Role::Rook));
        assert_eq!(t.name(Role::A), "archbishop");
        assert_eq!(t.legs(Role::A, Color::White).len(), 12);
        // Its attack lines: 4 bishop rays and 8 knight leaps, each colour.
        assert_eq!(t.rays(Color::Black).len(), 12);
        assert_eq!(
            t.own_pieces().map(|(r, _)| r).collect::<Vec<_>>(),
            [Role::A]
        );
    }

    #[test]
    fn a_redefined_chess_piece_puts_every_piece_on_the_table() {
        let knibis = Kind::from_betza("knight", "mNcB").unwrap();
        let t = PieceTable::build(vec![(Role::Knight, knibis)]);
        assert!(!t.classic_movers());
        for role in [
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::King,
        ] {
            assert!(t.moves_by_table(role), "{role:?}");
        }
        assert!(!t.moves_by_table(Role::Pawn));
        // The knight captures only as a bishop: no attack line of its leaps.
        let knight_rays: Vec<_> = t
            .rays(Color::White)
            .iter()
            .filter(|r| r.roles & 1 << Role::Knight as u32 != 0)
            .collect();
        assert_eq!(knight_rays.len(), 4);
        assert!(knight_rays.iter().all(|r| r.leg.range == 0));
    }

    #[test]
    fn a_mystery_shape_is_a_table_entry_of_its_own() {
        let camel = MysteryShape::new(false, &[(1, 3), (0, 2)], 0).unwrap();
        let chess = PieceTable::chess();
        let t = chess.with_mystery(Some(&camel));
        assert!(t.moves_by_table(Role::Mystery) && t.classic_movers());
        assert!(std::ptr::eq(t, chess.with_mystery(Some(&camel))));
        assert!(std::ptr::eq(chess, chess.with_mystery(None)));
        let legs = t.legs(Role::Mystery, Color::White);
        assert_eq!(legs.len(), 12);
        assert!(legs.iter().all(|l| l.lame == (l.dr == 0 || l.dc == 0)));
    }
}
