//! The parsed form of a scenario.

use crate::domain::{Color, Coord, Dims, Role, Square};
use crate::engine::{MysteryShape, RuleSet};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    pub directives: Directives,
    /// Points awarded when every step answers right (all or nothing).
    pub points: u32,
    pub dims: Dims,
    /// `fen <FEN>` setup (instead of `<rows> <cols>`): the starting position,
    /// side to move, castling rights and en-passant square. Placements, if
    /// any, are applied on top.
    pub fen: Option<String>,
    /// Who moves first when the setup says so (a JHU board picture's last
    /// line); otherwise the FEN's side, or White.
    pub turn: Option<Color>,
    pub placements: Vec<Placement>,
    pub steps: Vec<Step>,
}

/// Header settings that plain Lab 3 files leave at their defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directives {
    /// The rule set the scenario runs under: what its `@rules` line names
    /// (a built-in set, or a rule file), `lab3` without one, or the set
    /// that a folder's `rules.toml` or `--rules` puts in place of either
    /// (`crate::rulefile::RuleBook`). Without the `@mystery` shape: see
    /// [`Directives::rule_set`].
    pub rules: RuleSet,
    /// The `@rules` line's value as written (`standard`,
    /// `../capablanca.toml`), if the file has one.
    pub rules_line: Option<String>,
    /// The rule file `rules` come from (canonical), whichever way it was
    /// chosen; `None` for a built-in set: what a scenario written back out
    /// elsewhere names, so it runs under the same rules.
    pub rules_file: Option<std::path::PathBuf>,
    /// `@visibility visible|hidden|after_due_date|after_published`: shown to students when.
    pub visibility: Visibility,
    /// `@mystery leaper|slider <dr,dc>... [value <n>]`: how `m` / `M` moves.
    pub mystery: Option<MysteryShape>,
}

impl Default for Directives {
    fn default() -> Self {
        Directives {
            rules: RuleSet::lab3(),
            rules_line: None,
            rules_file: None,
            visibility: Visibility::Visible,
            mystery: None,
        }
    }
}

impl Directives {
    /// The rules the scenario runs under: the named set, with the Mystery
    /// piece's shape if it declares one.
    pub fn rule_set(&self) -> RuleSet {
        RuleSet {
            mystery: self.mystery,
            ..self.rules
        }
    }
}

/// Gradescope's test visibility settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    Visible,
    Hidden,
    AfterDueDate,
    AfterPublished,
}

impl Visibility {
    pub const ALL: [Visibility; 4] = [
        Visibility::Visible,
        Visibility::Hidden,
        Visibility::AfterDueDate,
        Visibility::AfterPublished,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::Hidden => "hidden",
            Visibility::AfterDueDate => "after_due_date",
            Visibility::AfterPublished => "after_published",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub line: u32,
    pub color: Color,
    pub role: Role,
    pub square: Square,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// 1-based line of the step in the scenario file.
    pub line: u32,
    pub kind: StepKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// `movePiece r1 c1 r2 c2`; coordinates may lie off the board.
    MovePiece { from: Coord, to: Coord },
    /// `isValidScan`: isValidMove for every (from, to) pair.
    IsValidScan,
    /// `underThreatScan`: isPieceUnderThreat for every square.
    UnderThreatScan,
    /// `move e2e4` / `move E2E4` / `move A7 A5`: a move written in the rule
    /// set's notation (see `engine::Notation`). A square that is well
    /// formed but off the board is `None`: the engine says which end.
    Move {
        text: String,
        from: Option<Square>,
        to: Option<Square>,
        promotion: Option<Role>,
    },
    /// `stop` (or CUHK's `move Z0 Z0`, `sentinel`): the game stops, won on
    /// points or drawn.
    Stop { sentinel: bool },
    /// `score`: each side's points by the rule set's table.
    Score,
    /// `machine <seed>`: CUHK's random machine player moves for the side to move.
    Machine { seed: u64 },
    /// `save`: the game in JHU's save-file format.
    Save,
    /// `perft N`: the number of leaf positions N plies deep.
    Perft { depth: u32 },
    /// `divide N`: perft N per legal root move.
    Divide { depth: u32 },
    /// `undo`: take back the last move.
    Undo,
    /// `redo`: replay the last move taken back.
    Redo,
    /// `status`: ongoing, check, checkmate (and the winner) or stalemate.
    Status,
}

impl StepKind {
    /// The step as written canonically; traces print this after `L<n>`.
    pub fn text(&self) -> String {
        match self {
            StepKind::MovePiece { from, to } => format!("movePiece {from} {to}"),
            StepKind::IsValidScan => "isValidScan".to_string(),
            StepKind::UnderThreatScan => "underThreatScan".to_string(),
            StepKind::Move { text, .. } => format!("move {text}"),
            StepKind::Stop { sentinel: true } => "move Z0 Z0".to_string(),
            StepKind::Stop { sentinel: false } => "stop".to_string(),
            StepKind::Score => "score".to_string(),
            StepKind::Machine { seed } => format!("machine {seed}"),
            StepKind::Save => "save".to_string(),
            StepKind::Perft { depth } => format!("perft {depth}"),
            StepKind::Divide { depth } => format!("divide {depth}"),
            StepKind::Undo => "undo".to_string(),
            StepKind::Redo => "redo".to_string(),
            StepKind::Status => "status".to_string(),
        }
    }
}
