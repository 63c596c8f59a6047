//! The parsed form of a scenario.

use crate::domain::{Color, Coord, Dims, Role, Square};
use crate::engine::RuleSetId;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    pub directives: Directives,
    /// Points awarded when every step answers right (all or nothing).
    pub points: u32,
    pub dims: Dims,
    pub placements: Vec<Placement>,
    pub steps: Vec<Step>,
}

/// Header settings that plain Lab 3 files leave at their defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Directives {
    /// `@rules NAME`: the rule set (default `lab3`).
    pub rules: RuleSetId,
    /// `@visibility visible|hidden|after_due_date|after_published`: shown to students when.
    pub visibility: Visibility,
}

impl Default for Directives {
    fn default() -> Self {
        Directives {
            rules: RuleSetId::Lab3,
            visibility: Visibility::Visible,
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// `movePiece r1 c1 r2 c2`; coordinates may lie off the board.
    MovePiece { from: Coord, to: Coord },
    /// `isValidScan`: isValidMove for every (from, to) pair.
    IsValidScan,
    /// `underThreatScan`: isPieceUnderThreat for every square.
    UnderThreatScan,
}

impl StepKind {
    /// The step as written canonically; traces print this after `L<n>`.
    pub fn text(&self) -> String {
        match self {
            StepKind::MovePiece { from, to } => format!("movePiece {from} {to}"),
            StepKind::IsValidScan => "isValidScan".to_string(),
            StepKind::UnderThreatScan => "underThreatScan".to_string(),
        }
    }
}
