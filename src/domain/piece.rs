//! Colours and piece kinds, with their one-letter spellings.

use std::fmt;

/// A side. Black starts at the low rows and its pawns move towards higher rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The row step of this colour's pawns: Black moves down (+1), White up (-1).
    pub fn forward(self) -> i32 {
        match self {
            Color::Black => 1,
            Color::White => -1,
        }
    }

    /// Scenario spelling: `b` or `w`.
    pub fn from_letter(c: char) -> Option<Color> {
        match c {
            'b' => Some(Color::Black),
            'w' => Some(Color::White),
            _ => None,
        }
    }

    pub fn letter(self) -> char {
        match self {
            Color::Black => 'b',
            Color::White => 'w',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "Black",
            Color::White => "White",
        }
    }
}

/// The kind of a piece, independent of its colour.
///
/// The first seven have fixed letters and, but for the Mystery piece, the
/// moves of chess (a rule set may give `N`, `B`, `R` and `Q` other moves).
/// The other nineteen are a course's own pieces, named by their letter
/// (`A` for an archbishop, `C` for a chancellor, ...): every upper-case
/// letter but `P N B R Q K M`. How such a piece moves, what it is called
/// and what it is worth are the rule set's (`engine::PieceTable`), so a
/// role is one byte that any board, move or FEN can carry, and whether a
/// rule set knows the piece is asked of the rule set, not of the role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    Pawn,
    Knight,
    Bishop,
    Rook,
    Queen,
    King,
    /// JHU's Mystery piece (`m` / `M`): its move shape is not fixed by the
    /// role but given by the scenario (see `engine::MysteryShape`), or by
    /// a rule file's `[pieces.M]`.
    Mystery,
    A,
    C,
    D,
    E,
    F,
    G,
    H,
    I,
    J,
    L,
    O,
    S,
    T,
    U,
    V,
    W,
    X,
    Y,
    Z,
}

/// The lower-case letter of each role, in [`Role::ALL`]'s order.
const LETTERS: [u8; 26] = *b"pnbrqkmacdefghijlostuvwxyz";

impl Role {
    /// Every role, the seven built-in ones first, then the course pieces
    /// by letter; `role as usize` is its index here.
    pub const ALL: [Role; 26] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
        Role::Mystery,
        Role::A,
        Role::C,
        Role::D,
        Role::E,
        Role::F,
        Role::G,
        Role::H,
        Role::I,
        Role::J,
        Role::L,
        Role::O,
        Role::S,
        Role::T,
        Role::U,
        Role::V,
        Role::W,
        Role::X,
        Role::Y,
        Role::Z,
    ];

    /// The seven roles with a fixed meaning: the six of chess and the
    /// Mystery piece ([`Role::ALL`]'s first seven).
    pub const BUILT_IN: [Role; 7] = Role::first(&Role::ALL);

    /// The six pieces of chess ([`Role::ALL`]'s first six).
    pub const CHESS: [Role; 6] = Role::first(&Role::ALL);

    /// The first `N` of `roles`.
    const fn first<const N: usize>(roles: &[Role]) -> [Role; N] {
        let mut out = [Role::Pawn; N];
        let mut i = 0;
        while i < N {
            out[i] = roles[i];
            i += 1;
        }
        out
    }

    /// Lower-case letter, as in scenarios and FEN.
    pub const fn letter(self) -> char {
        LETTERS[self as usize] as char
    }

    /// The role of an ASCII letter, either case (every letter names one);
    /// `None` for anything else.
    pub fn from_letter(c: char) -> Option<Role> {
        let c = c.to_ascii_lowercase();
        if !c.is_ascii_lowercase() {
            return None;
        }
        LETTERS
            .iter()
            .position(|&l| l as char == c)
            .map(|i| Role::ALL[i])
    }

    /// Is this one of a course's own pieces (not one of [`Role::BUILT_IN`])?
    pub const fn is_course_piece(self) -> bool {
        self as usize >= Role::BUILT_IN.len()
    }

    /// The built-in name (`knight`); a course piece's own name is its rule
    /// set's, so here it is its upper-case letter.
    pub fn name(self) -> &'static str {
        const COURSE: [&str; 19] = [
            "A", "C", "D", "E", "F", "G", "H", "I", "J", "L", "O", "S", "T", "U", "V", "W", "X",
            "Y", "Z",
        ];
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
            Role::Mystery => "mystery",
            _ => COURSE[self as usize - Role::BUILT_IN.len()],
        }
    }
}

/// A coloured piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub role: Role,
}

impl Piece {
    pub fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    /// Board-text character: upper case White, lower case Black.
    pub fn char(self) -> char {
        let c = self.role.letter();
        match self.color {
            Color::White => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }

    /// Inverse of [`Piece::char`].
    pub fn from_char(c: char) -> Option<Piece> {
        let role = Role::from_letter(c)?;
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece::new(color, role))
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.color.name(), self.role.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chars_round_trip_for_every_piece() {
        for color in [Color::Black, Color::White] {
            for role in Role::ALL {
                let p = Piece::new(color, role);
                assert_eq!(Piece::from_char(p.char()), Some(p));
            }
        }
        assert_eq!(Piece::new(Color::White, Role::King).char(), 'K');
        assert_eq!(Piece::new(Color::Black, Role::Pawn).char(), 'p');
        assert_eq!(
            Piece::from_char('A'),
            Some(Piece::new(Color::White, Role::A))
        );
        assert_eq!(Piece::from_char('z').map(|p| p.role.name()), Some("Z"));
        assert_eq!(Piece::from_char('*'), None);
        assert_eq!(Piece::from_char('é'), None);
        assert!(Role::ALL.iter().enumerate().all(|(i, &r)| r as usize == i));
        assert!(Role::BUILT_IN.iter().all(|r| !r.is_course_piece()) && Role::W.is_course_piece());
    }

    #[test]
    fn a_role_is_one_byte_and_a_square_s_content_two() {
        assert_eq!(std::mem::size_of::<Role>(), 1);
        assert_eq!(std::mem::size_of::<Option<Piece>>(), 2);
    }

    #[test]
    fn pawns_move_towards_the_opponent() {
        assert_eq!(Color::Black.forward(), 1);
        assert_eq!(Color::White.forward(), -1);
        assert_eq!(Color::White.opponent(), Color::Black);
    }
}
