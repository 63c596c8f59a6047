//! Setups for generated scenarios: the start position, random legal
//! placements, and placements built around a motif that catches bugs (a
//! pin, a check, a pawn about to promote, castling, en passant, a mate or a
//! stalemate in one). Each rule set gets only the setups its grading
//! subjects can run: Lab 3 a size and placements (boards of many sizes),
//! standard a FEN, JHU a board picture, CUHK always the start position
//! (its console program cannot start anywhere else).
//!
//! Every position is built under the real rule set, a rule file's
//! included: legality, the side in check, a `start` position of any size,
//! and the pieces a random setup draws from (the course's own pieces as
//! well as chess's). The motifs built from chess's pieces (a pin by a rook,
//! a back-row mate by a queen...) are offered only where those pieces move
//! as in chess ([`motifs`]); the family of the rules (`RuleSet::id`)
//! decides the form of the setup, as it decides what its programs run.

use super::rng::Rng;
use crate::domain::{Color, Coord, Dims, Piece, Role, Square};
use crate::engine::{
    CastleSide, Castling, CastlingRights, Game, Move, MoveKind, Position, RuleSet, RuleSetId,
    START_FEN, square_name,
};
use crate::scenario::{Directives, Placement, Scenario};

/// What a scenario's setup is built around.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Focus {
    /// The rule set's start position (Lab 3: both armies by placements).
    Start,
    /// A random legal placement.
    Random,
    /// A placement built around a motif.
    Motif(Motif),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Motif {
    Pin,
    Check,
    Promotion,
    Castling,
    EnPassant,
    Mate,
    Stalemate,
}

impl Focus {
    pub fn name(self) -> &'static str {
        match self {
            Focus::Start => "start",
            Focus::Random => "random",
            Focus::Motif(Motif::Pin) => "pin",
            Focus::Motif(Motif::Check) => "check",
            Focus::Motif(Motif::Promotion) => "promotion",
            Focus::Motif(Motif::Castling) => "castling",
            Focus::Motif(Motif::EnPassant) => "en-passant",
            Focus::Motif(Motif::Mate) => "mate",
            Focus::Motif(Motif::Stalemate) => "stalemate",
        }
    }
}

/// The motifs a rule set's scenarios can be built around: its family's
/// (CUHK: none, it starts from the start position), less those its rules
/// make moot. A pin, a check, a back-row mate and a stalemate are built
/// from chess's knights, rooks, bishops and queens, so they need those
/// pieces to move as in chess; castling needs castling (by rights only
/// where the setup is a FEN that can carry them), en passant the double
/// step it takes, a mate or a stalemate the game to end by it.
pub fn motifs(rules: &RuleSet) -> Vec<Motif> {
    use Motif::*;
    let family: &[Motif] = match rules.id {
        RuleSetId::Lab3 => &[Pin, Check, Promotion, Castling, EnPassant],
        RuleSetId::Standard => &[Pin, Check, Promotion, Castling, EnPassant, Mate, Stalemate],
        RuleSetId::Jhu => &[Pin, Check, Promotion, Mate, Stalemate, Castling, EnPassant],
        RuleSetId::Cuhk => &[],
    };
    let chess_pieces = rules.pieces.classic_movers();
    let castles = match rules.castling {
        self::Castling::None => false,
        self::Castling::HomeSquares8x8 => true,
        self::Castling::Rights => rules.id == RuleSetId::Standard,
    };
    family
        .iter()
        .copied()
        .filter(|m| match m {
            Pin | Check => chess_pieces,
            Mate => chess_pieces && rules.ends.checkmate,
            Stalemate => chess_pieces && rules.ends.stalemate,
            Promotion => true,
            Castling => castles,
            EnPassant => rules.en_passant && rules.pawn_double_step,
        })
        .collect()
}

/// A built setup: the scenario without steps, a line saying what it is,
/// and the moves its steps open with (none but for a motif the setup
/// cannot hold by itself).
pub struct Built {
    pub focus: Focus,
    pub what: String,
    pub scenario: Scenario,
    pub opening: Vec<Move>,
}

/// Pieces on a board, with the side to move.
#[derive(Clone)]
struct Layout {
    dims: Dims,
    pieces: Vec<(Square, Piece)>,
    turn: Color,
}

impl Layout {
    fn new(dims: Dims, turn: Color) -> Layout {
        Layout {
            dims,
            pieces: Vec::new(),
            turn,
        }
    }

    fn free(&self, sq: Square) -> bool {
        self.pieces.iter().all(|(s, _)| *s != sq)
    }

    /// Puts `piece` on `sq` if it is on the board and free.
    fn put(&mut self, row: i64, col: i64, piece: Piece) -> Option<Square> {
        let sq = self.dims.square_at(row, col)?;
        self.free(sq).then(|| {
            self.pieces.push((sq, piece));
            sq
        })
    }

    fn position(&self, rules: &RuleSet) -> Position {
        let mut p = Position::new(*rules, self.dims);
        for &(sq, piece) in &self.pieces {
            p.place(sq, piece);
        }
        p.set_turn(self.turn);
        p
    }

    /// A position the rule set's programs accept: one king a side (where
    /// kings matter), the side not to move not in check, no pawn on a
    /// first or last row (where pawns promote or the program refuses it).
    fn legal(&self, rules: &RuleSet) -> bool {
        if rules.id == RuleSetId::Lab3 {
            return true;
        }
        let kings = |c: Color| {
            self.pieces
                .iter()
                .filter(|(_, p)| p.role == Role::King && p.color == c)
                .count()
        };
        let last = self.dims.rows() - 1;
        let pawns_ok = self
            .pieces
            .iter()
            .all(|(s, p)| p.role != Role::Pawn || (s.row() != 0 && s.row() != last));
        let mut other = self.position(rules);
        other.set_turn(self.turn.opponent());
        kings(Color::White) == 1 && kings(Color::Black) == 1 && pawns_ok && !other.in_check()
    }

    /// A random free square.
    fn random_free(&self, rng: &mut Rng) -> Option<Square> {
        for _ in 0..64 {
            let sq = self
                .dims
                .square_of_index(rng.below(self.dims.len() as u64) as usize);
            if self.free(sq) {
                return Some(sq);
            }
        }
        None
    }

    /// Adds up to `n` random pieces that keep the layout legal.
    fn extras(&mut self, rng: &mut Rng, rules: &RuleSet, n: usize, kings: bool) {
        for _ in 0..n {
            let Some(sq) = self.random_free(rng) else {
                return;
            };
            let role = random_role(rng, rules, kings);
            let color = random_color(rng);
            self.pieces.push((sq, Piece::new(color, role)));
            if !self.legal(rules) {
                self.pieces.pop();
            }
        }
    }
}

/// A random piece of the rules: chess's (a king only if `kings`), and the
/// course's own as often as a knight. A Mystery piece whose moves only a
/// scenario's `@mystery` gives is never placed.
fn random_role(rng: &mut Rng, rules: &RuleSet, kings: bool) -> Role {
    // Weights in `Role::ALL`'s order.
    let weights = Role::ALL.map(|role| match role {
        Role::Pawn => 4,
        Role::Knight | Role::Bishop | Role::Rook => 2,
        Role::Queen => 1,
        Role::King => u32::from(kings),
        _ => 2 * u32::from(rules.pieces.knows(role)),
    });
    Role::ALL[rng.weighted(&weights)]
}

/// The rules' own pieces beyond chess's six (and a Mystery piece a rule
/// file gives moves), in [`Role::ALL`]'s order.
fn course_roles(rules: &RuleSet) -> impl Iterator<Item = Role> + '_ {
    Role::ALL[Role::King as usize + 1..]
        .iter()
        .copied()
        .filter(|&role| rules.pieces.knows(role))
}

fn random_color(rng: &mut Rng) -> Color {
    if rng.chance(1, 2) {
        Color::White
    } else {
        Color::Black
    }
}

/// The board size of a scenario: `size` if given, else that of the rules'
/// `start` if they have one; Lab 3 varies it (8x8 most often, then
/// anything from 1x1 to 12x12); the others play 8x8.
pub fn pick_dims(rng: &mut Rng, rules: &RuleSet, size: Option<Dims>) -> Dims {
    if let Some(d) = size.or_else(|| start_dims(rules)) {
        return d;
    }
    let eight = Dims::new(8, 8).expect("8x8");
    if rules.id != RuleSetId::Lab3 || rng.chance(2, 5) {
        return eight;
    }
    let side = |rng: &mut Rng| {
        if rng.chance(1, 8) {
            rng.range(1, 3)
        } else {
            rng.range(3, 12)
        }
    };
    Dims::new(side(rng), side(rng)).expect("1..=12")
}

/// The board of the rules' `start` position, if they have one (a rule
/// file's `start` reads under its rules, or the file would not have).
pub fn start_dims(rules: &RuleSet) -> Option<Dims> {
    let fen = rules.start?;
    Position::from_fen(*rules, fen).ok().map(|p| p.dims())
}

/// Builds the setup for `focus` (falling back to a random placement, then
/// the start position, where the motif does not fit the board).
pub fn build(rng: &mut Rng, rules: &RuleSet, dims: Dims, focus: Focus) -> Built {
    let made = match focus {
        Focus::Start => None,
        Focus::Random => random_layout(rng, rules, dims).map(|m| (Focus::Random, m)),
        Focus::Motif(m) => motif(rng, rules, dims, m)
            .map(|made| (focus, made))
            .or_else(|| {
                random_layout(rng, rules, dims).map(|(l, what, carry)| {
                    let what = format!("{what} (a {} motif does not fit the board)", focus.name());
                    (Focus::Random, (l, what, carry))
                })
            }),
    };
    match made {
        Some((focus, (layout, what, carry))) => finish(rules, focus, layout, what, carry),
        None => start(rng, rules, dims),
    }
}

/// What a motif's layout carries beyond its pieces.
enum Carry {
    Nothing,
    /// A FEN with castling rights or an en-passant square (the FEN setups).
    Fen(String),
    /// The moves that open the scenario and reach the motif (en passant
    /// where the setup cannot say it: Lab 3's placements, JHU's picture).
    Opening(Vec<Move>),
}

/// A layout, a line saying what it is, and what it carries.
type Made = (Layout, String, Carry);

fn finish(rules: &RuleSet, focus: Focus, layout: Layout, what: String, carry: Carry) -> Built {
    let placements = |layout: &Layout| -> Vec<Placement> {
        let mut pieces = layout.pieces.clone();
        pieces.sort_by_key(|(sq, _)| *sq);
        pieces
            .into_iter()
            .map(|(square, p)| Placement {
                line: 0,
                color: p.color,
                role: p.role,
                square,
            })
            .collect()
    };
    let mut scenario = empty(rules, layout.dims);
    let (fen, opening) = match carry {
        Carry::Nothing => (None, Vec::new()),
        Carry::Fen(fen) => (Some(fen), Vec::new()),
        Carry::Opening(moves) => (None, moves),
    };
    match rules.id {
        RuleSetId::Lab3 => scenario.placements = placements(&layout),
        RuleSetId::Jhu => {
            scenario.placements = placements(&layout);
            scenario.turn = Some(layout.turn);
        }
        _ => scenario.fen = Some(fen.unwrap_or_else(|| layout.position(rules).to_fen())),
    }
    Built {
        focus,
        what,
        scenario,
        opening,
    }
}

fn empty(rules: &RuleSet, dims: Dims) -> Scenario {
    Scenario {
        directives: Directives {
            rules: *rules,
            ..Directives::default()
        },
        points: 1,
        dims,
        fen: None,
        turn: None,
        placements: Vec::new(),
        steps: Vec::new(),
    }
}

/// CUHK's start: chess's, without castling rights (it has no castling).
const CUHK_START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";

/// The start position: the rules' `start` (a rule file's, on its own
/// board), or the standard armies on 8x8; on another Lab 3 size, pawns on
/// the second rows and random back rows with a king in the middle.
fn start(rng: &mut Rng, rules: &RuleSet, dims: Dims) -> Built {
    let eight = dims.rows() == 8 && dims.cols() == 8;
    let fen = match rules.start {
        // The board is the start's (`GenOptions::check`, `pick_dims`).
        Some(fen) => Some(fen),
        None if rules.id == RuleSetId::Lab3 || !eight => None,
        None if rules.id == RuleSetId::Cuhk => Some(CUHK_START_FEN),
        None => Some(START_FEN),
    };
    if let Some(fen) = fen
        && let Ok(pos) = Position::from_fen(*rules, fen)
        && pos.dims() == dims
    {
        let mut s = empty(rules, dims);
        match rules.id {
            // Placements (Lab 3 always starts with White to move; JHU's
            // picture says who moves).
            RuleSetId::Lab3 | RuleSetId::Jhu => {
                s.placements = pos
                    .board()
                    .pieces()
                    .map(|(square, p)| Placement {
                        line: 0,
                        color: p.color,
                        role: p.role,
                        square,
                    })
                    .collect();
                if rules.id == RuleSetId::Jhu {
                    s.turn = Some(pos.turn());
                }
            }
            RuleSetId::Standard | RuleSetId::Cuhk => s.fen = Some(fen.to_string()),
        }
        return Built {
            focus: Focus::Start,
            what: "the start position".into(),
            scenario: s,
            opening: Vec::new(),
        };
    }
    let (rows, cols) = (dims.rows() as i64, dims.cols() as i64);
    let mut layout = Layout::new(dims, Color::White);
    if rows >= 4 && cols >= 2 {
        // The back rows' pieces: chess's, then the course's own.
        let pieces: Vec<Role> = [Role::Rook, Role::Knight, Role::Bishop, Role::Queen]
            .into_iter()
            .chain(course_roles(rules))
            .collect();
        const BACK: [Role; 8] = [
            Role::Rook,
            Role::Knight,
            Role::Bishop,
            Role::Queen,
            Role::King,
            Role::Bishop,
            Role::Knight,
            Role::Rook,
        ];
        let back: Vec<Role> = (0..cols)
            .map(|c| match () {
                _ if cols == 8 => BACK[c as usize],
                _ if c == cols / 2 => Role::King,
                _ => *rng.pick(&pieces),
            })
            .collect();
        for (c, &role) in back.iter().enumerate() {
            let c = c as i64;
            layout.put(0, c, Piece::new(Color::Black, role));
            layout.put(1, c, Piece::new(Color::Black, Role::Pawn));
            layout.put(rows - 2, c, Piece::new(Color::White, Role::Pawn));
            layout.put(rows - 1, c, Piece::new(Color::White, role));
        }
        let what = if eight {
            "both armies on their start squares".to_string()
        } else {
            format!("both armies on a {rows}x{cols} board (random back rows)")
        };
        return finish(rules, Focus::Start, layout, what, Carry::Nothing);
    }
    // Too small for armies: random pieces.
    let (layout, what, _) =
        random_layout(rng, rules, dims).unwrap_or((layout, String::new(), Carry::Nothing));
    finish(rules, Focus::Random, layout, what, Carry::Nothing)
}

/// Random pieces (Lab 3: anything, kings optional, several allowed; the
/// others: one king a side and a legal position).
fn random_layout(rng: &mut Rng, rules: &RuleSet, dims: Dims) -> Option<Made> {
    let squares = dims.len() as i64;
    if rules.id == RuleSetId::Lab3 {
        let mut l = Layout::new(dims, Color::White);
        let n = rng.range(1, squares.min(10)) as usize;
        for _ in 0..n {
            if let Some(sq) = l.random_free(rng) {
                let color = random_color(rng);
                let kings = rng.chance(1, 3);
                let piece = Piece::new(color, random_role(rng, rules, kings));
                l.pieces.push((sq, piece));
            }
        }
        // Kings make king safety matter: usually one a side.
        for color in [Color::White, Color::Black] {
            if rng.chance(2, 3)
                && let Some(sq) = l.random_free(rng)
            {
                l.pieces.push((sq, Piece::new(color, Role::King)));
            }
        }
        let what = format!("{} random pieces", l.pieces.len());
        return Some((l, what, Carry::Nothing));
    }
    if squares < 9 {
        return None;
    }
    for _ in 0..20 {
        let mut l = Layout::new(dims, random_color(rng));
        for color in [Color::White, Color::Black] {
            let sq = l.random_free(rng)?;
            l.pieces.push((sq, Piece::new(color, Role::King)));
        }
        if !l.legal(rules) {
            continue;
        }
        let n = rng.range(2, 10) as usize;
        l.extras(rng, rules, n, false);
        let what = format!(
            "{} random pieces, {} to move",
            l.pieces.len(),
            l.turn.name()
        );
        return Some((l, what, Carry::Nothing));
    }
    None
}

/// Kings of `missing` colours on free squares, not touching another king,
/// so that the layout is legal; false if no such squares were found.
fn add_kings(rng: &mut Rng, rules: &RuleSet, l: &mut Layout, missing: &[Color]) -> bool {
    let before = l.pieces.len();
    for _ in 0..20 {
        l.pieces.truncate(before);
        for &color in missing {
            for _ in 0..20 {
                let Some(sq) = l.random_free(rng) else {
                    return false;
                };
                let near_king = l.pieces.iter().any(|(s, p)| {
                    p.role == Role::King
                        && s.row().abs_diff(sq.row()) <= 1
                        && s.col().abs_diff(sq.col()) <= 1
                });
                if !near_king {
                    l.pieces.push((sq, Piece::new(color, Role::King)));
                    break;
                }
            }
        }
        if l.pieces.len() == before + missing.len() && l.legal(rules) {
            return true;
        }
    }
    l.pieces.truncate(before);
    false
}

/// A placement built around `m` on `dims` (`None` where it does not fit
/// the board): picks the side to move, then leaves the pieces to the
/// motif's own builder.
fn motif(rng: &mut Rng, rules: &RuleSet, dims: Dims, m: Motif) -> Option<Made> {
    let (rows, cols) = (dims.rows() as i64, dims.cols() as i64);
    if rows < 4 || cols < 3 {
        return None;
    }
    // Lab 3 always starts with White to move.
    let side = if rules.id == RuleSetId::Lab3 {
        Color::White
    } else {
        random_color(rng)
    };
    let l = Layout::new(dims, side);
    match m {
        Motif::Pin | Motif::Check => pin_or_check(rng, rules, l, m),
        Motif::Promotion => promotion(rng, rules, l),
        Motif::Castling => castling(rng, rules, l),
        Motif::EnPassant => en_passant(rng, rules, l),
        Motif::Mate => back_row_mate(rng, rules, l),
        Motif::Stalemate => stalemate(rng, rules, l),
    }
}

/// The eight directions a queen slides in (rook's first, then bishop's).
const DIRECTIONS: [(i64, i64); 8] = [
    (0, 1),
    (1, 0),
    (0, -1),
    (-1, 0),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

/// The eight jumps of a knight.
const KNIGHT_JUMPS: [(i64, i64); 8] = [
    (1, 2),
    (2, 1),
    (-1, 2),
    (-2, 1),
    (1, -2),
    (2, -1),
    (-1, -2),
    (-2, -1),
];

/// The side to move's king in check (`m` is `Check`: from a knight or a
/// slider) or with one of its pieces pinned to it (`Pin`), then the enemy
/// king and a few extra pieces.
fn pin_or_check(rng: &mut Rng, rules: &RuleSet, mut l: Layout, m: Motif) -> Option<Made> {
    let side = l.turn;
    let enemy = side.opponent();
    let k = l.random_free(rng)?;
    l.put(k.row() as i64, k.col() as i64, Piece::new(side, Role::King))?;
    let knight = m == Motif::Check && rng.chance(1, 4);
    if knight {
        let (dr, dc) = *rng.pick(&KNIGHT_JUMPS);
        l.put(
            k.row() as i64 + dr,
            k.col() as i64 + dc,
            Piece::new(enemy, Role::Knight),
        )?;
    } else {
        on_a_line_from(rng, &mut l, k, m == Motif::Pin)?;
    }
    if !add_kings(rng, rules, &mut l, &[enemy]) {
        return None;
    }
    let n = rng.range(1, 5) as usize;
    l.extras(rng, rules, n, false);
    let what = if m == Motif::Pin {
        format!(
            "a {} piece pinned to its king, {} to move",
            side.name(),
            side.name()
        )
    } else {
        format!("the {} king in check, {} to move", side.name(), side.name())
    };
    (l.legal(rules)).then_some((l, what, Carry::Nothing))
}

/// An enemy rook, bishop or queen on a random line from the king on `k`
/// that bears on it, with (`pin`) one of the king's own pieces between
/// them; `None` where the line is too short or a square is taken.
fn on_a_line_from(rng: &mut Rng, l: &mut Layout, k: Square, pin: bool) -> Option<()> {
    let side = l.turn;
    let (dr, dc) = *rng.pick(&DIRECTIONS);
    let len = (1..)
        .take_while(|&i| {
            l.dims
                .square_at(k.row() as i64 + dr * i, k.col() as i64 + dc * i)
                .is_some()
        })
        .count() as i64;
    let need = if pin { 2 } else { 1 };
    if len < need {
        return None;
    }
    let b = rng.range(need, len);
    let slider = if dr == 0 || dc == 0 {
        Role::Rook
    } else {
        Role::Bishop
    };
    let role = if rng.chance(1, 3) {
        Role::Queen
    } else {
        slider
    };
    if pin {
        let a = rng.range(1, b - 1);
        let pinned = *rng.pick(&[
            Role::Queen,
            Role::Rook,
            Role::Bishop,
            Role::Knight,
            Role::Pawn,
        ]);
        l.put(
            k.row() as i64 + dr * a,
            k.col() as i64 + dc * a,
            Piece::new(side, pinned),
        )?;
    }
    l.put(
        k.row() as i64 + dr * b,
        k.col() as i64 + dc * b,
        Piece::new(side.opponent(), role),
    )?;
    Some(())
}

/// A pawn of the side to move one step from its last row, sometimes with
/// enemy pieces to take or blocking, then both kings and a few extras.
fn promotion(rng: &mut Rng, rules: &RuleSet, mut l: Layout) -> Option<Made> {
    let side = l.turn;
    let enemy = side.opponent();
    let (rows, cols) = (l.dims.rows() as i64, l.dims.cols() as i64);
    let row = if side == Color::White { 1 } else { rows - 2 };
    let last = if side == Color::White { 0 } else { rows - 1 };
    let col = rng.range(0, cols - 1);
    l.put(row, col, Piece::new(side, Role::Pawn))?;
    if rng.chance(2, 3) {
        let dc = if rng.chance(1, 2) { 1 } else { -1 };
        l.put(
            last,
            col + dc,
            Piece::new(enemy, *rng.pick(&[Role::Rook, Role::Knight, Role::Queen])),
        );
    }
    if rng.chance(1, 4) {
        l.put(last, col, Piece::new(enemy, Role::Bishop));
    }
    if !add_kings(rng, rules, &mut l, &[side, enemy]) {
        return None;
    }
    let n = rng.range(0, 3) as usize;
    l.extras(rng, rules, n, false);
    let what = format!("a {} pawn one step from the last row", side.name());
    l.legal(rules).then_some((l, what, Carry::Nothing))
}

/// Kings and rooks on their home squares (the king in the middle column,
/// the rooks in the corners), with castling rights (in the FEN, where
/// castling is by rights: on any board of five columns or more; Lab 3's
/// castling is on 8x8 only), sometimes a piece in the way or an enemy rook
/// eyeing a square the king crosses.
fn castling(rng: &mut Rng, rules: &RuleSet, mut l: Layout) -> Option<Made> {
    let side = l.turn;
    let enemy = side.opponent();
    let (rows, cols) = (l.dims.rows() as i64, l.dims.cols() as i64);
    let by_rights = rules.castling == Castling::Rights;
    if (rows, cols) != (8, 8) && !(by_rights && cols >= 5) {
        return None;
    }
    // On 8x8: the king on column 4; between it and the rooks 1, 2, 3, 5,
    // 6; the squares the king crosses or lands on 2, 3, 5, 6.
    let king = cols / 2;
    let between: Vec<i64> = (1..cols - 1).filter(|&c| c != king).collect();
    let crossed: Vec<i64> = (2..cols - 1).filter(|&c| c != king).collect();
    let mut rights = CastlingRights::NONE;
    for color in [Color::White, Color::Black] {
        let home = if color == Color::White { rows - 1 } else { 0 };
        l.put(home, king, Piece::new(color, Role::King))?;
        for (col, cs) in [(0, CastleSide::Queen), (cols - 1, CastleSide::King)] {
            if rng.chance(4, 5) {
                l.put(home, col, Piece::new(color, Role::Rook))?;
                if rng.chance(4, 5) {
                    rights.set(color, cs, Some(col as u16));
                }
            }
        }
    }
    // Sometimes a piece in the way, or an enemy eyeing a square the king crosses.
    if rng.chance(1, 3) {
        let home = if side == Color::White { rows - 1 } else { 0 };
        let col = *rng.pick(&between);
        l.put(home, col, Piece::new(side, Role::Knight));
    }
    if rng.chance(1, 2) {
        let col = *rng.pick(&crossed);
        let row = if side == Color::White {
            rng.range(1, rows - 3)
        } else {
            rng.range(2, rows - 2)
        };
        l.put(row, col, Piece::new(enemy, Role::Rook));
    }
    let n = rng.range(0, 3) as usize;
    l.extras(rng, rules, n, false);
    if !l.legal(rules) {
        return None;
    }
    let what = format!(
        "kings and rooks on their home squares, {} to move",
        side.name()
    );
    let carry = if by_rights {
        let mut pos = l.position(rules);
        pos.set_castling_rights(rights);
        Carry::Fen(pos.to_fen())
    } else {
        Carry::Nothing
    };
    Some((l, what, carry))
}

/// An enemy pawn that has just made its double step beside one of the
/// side to move's: with the en-passant square in the FEN, or, where the
/// setup has no FEN (Lab 3, JHU), played as the scenario's first two
/// moves (a move of the side to move, then the double step).
fn en_passant(rng: &mut Rng, rules: &RuleSet, mut l: Layout) -> Option<Made> {
    let side = l.turn;
    let enemy = side.opponent();
    let dims = l.dims;
    let (rows, cols) = (dims.rows() as i64, dims.cols() as i64);
    let (row, crossed) = if side == Color::White {
        (3, 2)
    } else {
        (rows - 4, rows - 3)
    };
    let col = rng.range(0, cols - 1);
    let dc = if rng.chance(1, 2) { 1 } else { -1 };
    let pawn = l.put(row, col, Piece::new(side, Role::Pawn))?;
    if matches!(rules.id, RuleSetId::Lab3 | RuleSetId::Jhu) {
        return en_passant_by_moves(rng, rules, l, pawn, col + dc);
    }
    let ep = l.put(row, col + dc, Piece::new(enemy, Role::Pawn))?;
    if !add_kings(rng, rules, &mut l, &[side, enemy]) {
        return None;
    }
    let n = rng.range(0, 3) as usize;
    l.extras(rng, rules, n, false);
    let crossed = dims.square_at(crossed, ep.col() as i64)?;
    if !l.legal(rules) || !l.free(crossed) {
        return None;
    }
    let mut pos = l.position(rules);
    pos.set_en_passant_square(Some(crossed));
    let what = format!(
        "{} may take en passant on {}",
        side.name(),
        square_name(dims, crossed)
    );
    Some((l, what, Carry::Fen(pos.to_fen())))
}

/// En passant as the first two moves: an enemy pawn on its start row in
/// column `col`, beside the side to move's `pawn` once it has made its
/// double step; the opening is a move of the side to move (not that
/// pawn's) and then the double step, checked on the engine to leave the
/// capture en passant legal.
fn en_passant_by_moves(
    rng: &mut Rng,
    rules: &RuleSet,
    mut l: Layout,
    pawn: Square,
    col: i64,
) -> Option<Made> {
    let side = l.turn;
    let enemy = side.opponent();
    let rows = l.dims.rows() as i64;
    let home = if enemy == Color::Black { 1 } else { rows - 2 };
    let from = l.put(home, col, Piece::new(enemy, Role::Pawn))?;
    if !add_kings(rng, rules, &mut l, &[side, enemy]) {
        return None;
    }
    let n = rng.range(0, 3) as usize;
    l.extras(rng, rules, n, false);
    let game = Game::new(l.position(rules));
    let waits: Vec<Move> = game
        .position()
        .legal_moves()
        .into_iter()
        .filter(|m| m.from() != pawn && m.promotion().is_none())
        .collect();
    for _ in 0..8.min(waits.len()) {
        let wait = *rng.pick(&waits);
        let mut g = game.clone();
        let Some(double) = g
            .try_move(Some(wait.from()), Some(wait.to()), None)
            .ok()
            .and_then(|_| {
                g.position()
                    .find_move(from.coord(), pawn_landing(from, enemy), None)
            })
            .and_then(|double| {
                g.try_move(Some(double.from()), Some(double.to()), None)
                    .ok()
            })
        else {
            continue;
        };
        let takes = g
            .position()
            .legal_moves()
            .into_iter()
            .any(|m| matches!(m.kind(), MoveKind::EnPassant { .. }));
        if takes {
            let what = format!(
                "{} may take en passant after {}'s double step (the first two moves)",
                side.name(),
                enemy.name()
            );
            return Some((l, what, Carry::Opening(vec![wait, double])));
        }
    }
    None
}

/// Where a pawn of `color` on `from` lands with its double step.
fn pawn_landing(from: Square, color: Color) -> Coord {
    let ahead = if color == Color::White { -2 } else { 2 };
    Coord::new(from.row() as i64 + ahead, from.col() as i64)
}

/// A back-row mate in one: the enemy king behind its own pawns, a rook or
/// queen of the side to move on a far file ready to reach its row.
fn back_row_mate(rng: &mut Rng, rules: &RuleSet, mut l: Layout) -> Option<Made> {
    let side = l.turn;
    let enemy = side.opponent();
    let (rows, cols) = (l.dims.rows() as i64, l.dims.cols() as i64);
    // The mater needs a column two away from the king's, which a board of
    // fewer than four columns does not have (the search below would never end).
    if cols < 4 {
        return None;
    }
    let (home, front, mirror) = if enemy == Color::Black {
        (0, 1, 1)
    } else {
        (rows - 1, rows - 2, -1)
    };
    let c = rng.range(1, cols - 2);
    l.put(home, c, Piece::new(enemy, Role::King))?;
    for dc in -1..=1 {
        l.put(front, c + dc, Piece::new(enemy, Role::Pawn))?;
    }
    let x = loop {
        let x = rng.range(0, cols - 1);
        if (x - c).abs() > 1 {
            break x;
        }
    };
    let far = if mirror == 1 { rows - 1 } else { 0 };
    let from_row = if rng.chance(1, 2) {
        far
    } else {
        far - mirror * rng.range(0, (rows - 4).max(0))
    };
    let mater = if rng.chance(1, 3) {
        Role::Queen
    } else {
        Role::Rook
    };
    l.put(from_row, x, Piece::new(side, mater))?;
    let own_king_col = if x < c { cols - 1 } else { 0 };
    let own_king_row = if from_row == far { far - mirror } else { far };
    l.put(own_king_row, own_king_col, Piece::new(side, Role::King))?;
    let what = format!("{} mates in one along the back row", side.name());
    l.legal(rules).then_some((l, what, Carry::Nothing))
}

/// A stalemate in one: the enemy king in a corner, the side to move's
/// queen one move from taking its last squares.
fn stalemate(rng: &mut Rng, rules: &RuleSet, mut l: Layout) -> Option<Made> {
    let side = l.turn;
    let enemy = side.opponent();
    let (rows, cols) = (l.dims.rows() as i64, l.dims.cols() as i64);
    let flip_r = |r: i64| {
        if enemy == Color::Black {
            r
        } else {
            rows - 1 - r
        }
    };
    let left = rng.chance(1, 2);
    let flip_c = |c: i64| if left { c } else { cols - 1 - c };
    l.put(flip_r(0), flip_c(0), Piece::new(enemy, Role::King))?;
    l.put(flip_r(1), flip_c(2), Piece::new(side, Role::King))?;
    l.put(flip_r(rows - 1), flip_c(1), Piece::new(side, Role::Queen))?;
    let what = format!("{} can stalemate in one", side.name());
    l.legal(rules).then_some((l, what, Carry::Nothing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_back_row_mate_on_too_few_columns_is_no_setup_not_a_hang() {
        for cols in 1..=3 {
            for rows in 1..=8 {
                let dims = Dims::new(rows, cols).unwrap();
                for seed in 0..20 {
                    let l = Layout::new(dims, Color::White);
                    assert!(
                        back_row_mate(&mut Rng::new(seed), &RuleSet::lab3(), l).is_none(),
                        "{rows}x{cols}"
                    );
                }
            }
        }
        // Four columns are enough for one (some seed makes it).
        let dims = Dims::new(6, 4).unwrap();
        assert!((0..200).any(|seed| {
            back_row_mate(
                &mut Rng::new(seed),
                &RuleSet::lab3(),
                Layout::new(dims, Color::White),
            )
            .is_some()
        }));
    }

    /// Standard chess with an archbishop (`A`, bishop and knight).
    fn with_archbishop(base: RuleSet) -> RuleSet {
        let a = crate::engine::Kind::from_betza("archbishop", "BN").unwrap();
        RuleSet {
            name: "archbishop",
            pieces: crate::engine::PieceTable::build(vec![(Role::A, a)]),
            ..base
        }
    }

    #[test]
    fn the_built_in_sets_keep_their_motifs_and_a_rule_file_loses_the_moot_ones() {
        use Motif::*;
        let of = |rules: RuleSet| motifs(&rules);
        assert_eq!(of(RuleSet::lab3()), [Pin, Check, Promotion, Castling]);
        assert_eq!(
            of(RuleSet::standard()),
            [Pin, Check, Promotion, Castling, EnPassant, Mate, Stalemate]
        );
        assert_eq!(of(RuleSet::jhu()), [Pin, Check, Promotion, Mate, Stalemate]);
        assert_eq!(of(RuleSet::cuhk()), []);
        // A knight that moves otherwise: no motif built from chess's pieces.
        let knight = crate::engine::Kind::from_betza("knight", "mNcB").unwrap();
        let odd = RuleSet {
            pieces: crate::engine::PieceTable::build(vec![(Role::Knight, knight)]),
            ..RuleSet::standard()
        };
        assert_eq!(of(odd), [Promotion, Castling, EnPassant]);
        // A course's own piece beside chess's changes nothing.
        assert_eq!(of(with_archbishop(RuleSet::standard())).len(), 7);
        // Lab 3 with en passant gets its motif; no castling, no castling motif;
        // castling by rights only where a FEN carries the rights.
        let lab3_ep = RuleSet {
            en_passant: true,
            ..RuleSet::lab3()
        };
        assert_eq!(of(lab3_ep), [Pin, Check, Promotion, Castling, EnPassant]);
        let no_castling = RuleSet {
            castling: crate::engine::Castling::None,
            ends: Default::default(),
            ..RuleSet::standard()
        };
        assert_eq!(of(no_castling), [Pin, Check, Promotion, EnPassant]);
        let lab3_rights = RuleSet {
            castling: crate::engine::Castling::Rights,
            ..RuleSet::lab3()
        };
        assert_eq!(of(lab3_rights), [Pin, Check, Promotion]);
    }

    #[test]
    fn random_pieces_are_the_rules_own_and_only_theirs() {
        let mut rng = Rng::new(3);
        let draws = |rules: &RuleSet, rng: &mut Rng| -> Vec<Role> {
            (0..2000).map(|_| random_role(rng, rules, true)).collect()
        };
        let chess = draws(&RuleSet::standard(), &mut rng);
        assert!(chess.iter().all(|r| (*r as usize) <= Role::King as usize));
        let own = with_archbishop(RuleSet::standard());
        let drawn = draws(&own, &mut rng);
        assert!(drawn.iter().all(|&r| own.pieces.knows(r)), "{drawn:?}");
        // As often as a knight, roughly (2 of 15 weights each).
        let count = |r: Role| drawn.iter().filter(|&&d| d == r).count();
        assert!(
            count(Role::A) > 150 && count(Role::Knight) > 150,
            "{drawn:?}"
        );
        // Lab 3's random back rows draw it too.
        let dims = Dims::new(6, 7).unwrap();
        let rules = with_archbishop(RuleSet::lab3());
        let backs: Vec<Role> = (0..30)
            .flat_map(|seed| start(&mut Rng::new(seed), &rules, dims).scenario.placements)
            .map(|p| p.role)
            .collect();
        assert!(backs.contains(&Role::A), "{backs:?}");
    }

    #[test]
    fn castling_by_rights_fits_a_wider_board_with_the_king_in_the_middle() {
        let rules = with_archbishop(RuleSet::standard());
        let dims = Dims::new(8, 10).unwrap();
        let made: Vec<Made> = (0..40)
            .filter_map(|seed| {
                let l = Layout::new(dims, Color::White);
                castling(&mut Rng::new(seed), &rules, l)
            })
            .collect();
        assert!(made.len() > 10, "{}", made.len());
        for (l, _, carry) in &made {
            let king = dims.square_at(7, 5).unwrap();
            assert!(
                l.pieces
                    .contains(&(king, Piece::new(Color::White, Role::King)))
            );
            let Carry::Fen(fen) = carry else {
                panic!("castling by rights is in the FEN")
            };
            let pos = Position::from_fen(rules, fen).unwrap();
            assert_eq!(pos.dims(), dims, "{fen}");
        }
        // Some of them can castle at once.
        let castles = made.iter().any(|(_, _, carry)| {
            let Carry::Fen(fen) = carry else { return false };
            let pos = Position::from_fen(rules, fen).unwrap();
            pos.legal_moves()
                .iter()
                .any(|m| matches!(m.kind(), MoveKind::Castle { .. }))
        });
        assert!(castles);
        // Lab 3's castling is on 8x8 only.
        let l = Layout::new(dims, Color::White);
        assert!(castling(&mut Rng::new(1), &RuleSet::lab3(), l).is_none());
    }

    #[test]
    fn en_passant_without_a_fen_is_played_as_the_first_two_moves() {
        let rules = RuleSet {
            en_passant: true,
            ..RuleSet::lab3()
        };
        let dims = Dims::new(8, 8).unwrap();
        let mut made = 0;
        for seed in 0..40 {
            let l = Layout::new(dims, Color::White);
            let Some((l, what, carry)) = en_passant(&mut Rng::new(seed), &rules, l) else {
                continue;
            };
            let Carry::Opening(opening) = carry else {
                panic!("Lab 3 has no FEN: {what}")
            };
            assert_eq!(opening.len(), 2, "{what}");
            let mut game = Game::new(l.position(&rules));
            for mv in &opening {
                assert!(game.try_move(Some(mv.from()), Some(mv.to()), None).is_ok());
            }
            assert_eq!(opening[1].kind(), MoveKind::DoubleStep, "{what}");
            let ep = game
                .position()
                .legal_moves()
                .into_iter()
                .filter(|m| matches!(m.kind(), MoveKind::EnPassant { .. }))
                .count();
            assert!(ep > 0, "{what}");
            made += 1;
        }
        assert!(made > 10, "{made}");
    }
}
