//! What a generated suite exercises: how often each refusal reason and each
//! rule or situation (a capture, a pin, a castling, a mate, a scan on a
//! board size...) was hit. Counted from the reference engine's answers while
//! the scenarios are built, so the numbers are facts about the files, not
//! about the generator's intentions.

use crate::domain::Dims;
use crate::engine::{MoveError, Notation, RuleSet, RuleSetId};
use std::collections::BTreeMap;
use std::fmt;

/// Every refusal reason, in the order `docs/rules.md` lists them.
pub const REFUSALS: [MoveError; 11] = MoveError::ALL;

/// The refusal reasons a rule set's scenarios can meet, in their forms:
/// no `move exposes check` without king safety, no `the game is over` where
/// nothing ends a game and no step stops it (Lab 3), no `illegal promotion`
/// where moves carry no promotion letter (only UCI `move` steps do, and
/// Lab 3 uses `movePiece`).
pub fn reachable_refusals(rules: &RuleSet) -> Vec<MoveError> {
    let family = rules.id;
    // Standard and CUHK scenarios have a `stop` step (see `play`).
    let stops = matches!(family, RuleSetId::Standard | RuleSetId::Cuhk);
    let ends = rules.ends.checkmate || rules.ends.stalemate || rules.ends.king_captured || stops;
    // A letter on a move that is no promotion is refused as such too.
    let letters = family != RuleSetId::Lab3 && rules.notation == Notation::Uci;
    REFUSALS
        .into_iter()
        .filter(|e| match e {
            MoveError::ExposesCheck => rules.king_safety,
            MoveError::GameOver => ends,
            MoveError::BadPromotion => letters,
            _ => true,
        })
        .collect()
}

/// A rule or situation a step exercised (besides refusals).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Feature {
    Move,
    Capture,
    KingCapture,
    DoubleStep,
    EnPassant,
    Promotion,
    Castling,
    Check,
    /// A refused move of a piece (not the king) pinned to its king.
    Pin,
    /// A king refused a step onto an attacked square.
    KingIntoCheck,
    Checkmate,
    Stalemate,
    KingCaptured,
    Stopped,
    OffBoard,
    ValidScan,
    ThreatScan,
    Undo,
    Redo,
    Status,
    Score,
    Save,
    Perft,
}

impl Feature {
    pub fn name(self) -> &'static str {
        match self {
            Feature::Move => "move played",
            Feature::Capture => "capture",
            Feature::KingCapture => "king taken",
            Feature::DoubleStep => "pawn double step",
            Feature::EnPassant => "en passant",
            Feature::Promotion => "promotion",
            Feature::Castling => "castling",
            Feature::Check => "check given",
            Feature::Pin => "pinned piece refused",
            Feature::KingIntoCheck => "king refused onto an attacked square",
            Feature::Checkmate => "checkmate",
            Feature::Stalemate => "stalemate",
            Feature::KingCaptured => "game ended by a king's capture",
            Feature::Stopped => "game stopped",
            Feature::OffBoard => "off-board square",
            Feature::ValidScan => "isValidScan",
            Feature::ThreatScan => "underThreatScan",
            Feature::Undo => "undo",
            Feature::Redo => "redo",
            Feature::Status => "status",
            Feature::Score => "score",
            Feature::Save => "save",
            Feature::Perft => "perft",
        }
    }
}

/// One thing a step exercised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Hit {
    Refusal(MoveError),
    Feature(Feature),
}

impl fmt::Display for Hit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hit::Refusal(e) => write!(f, "refused: {e}"),
            Hit::Feature(x) => f.write_str(x.name()),
        }
    }
}

/// Counts over a suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coverage {
    /// The rules the suite was generated under (shown by their name).
    pub rules: RuleSet,
    pub scenarios: usize,
    pub steps: usize,
    /// Steps refused for each reason, indexed like [`REFUSALS`].
    refusals: [usize; REFUSALS.len()],
    features: BTreeMap<Feature, usize>,
    /// Scenarios per board size (rows, cols).
    pub sizes: BTreeMap<(u16, u16), usize>,
    /// Scenarios per focus name.
    pub focuses: BTreeMap<&'static str, usize>,
}

impl Coverage {
    pub fn new(rules: RuleSet) -> Coverage {
        Coverage {
            rules,
            scenarios: 0,
            steps: 0,
            refusals: [0; REFUSALS.len()],
            features: BTreeMap::new(),
            sizes: BTreeMap::new(),
            focuses: BTreeMap::new(),
        }
    }

    pub fn add_scenario(&mut self, dims: Dims, focus: &'static str, steps: usize) {
        self.scenarios += 1;
        self.steps += steps;
        *self.sizes.entry((dims.rows(), dims.cols())).or_default() += 1;
        *self.focuses.entry(focus).or_default() += 1;
    }

    pub fn add(&mut self, hit: Hit) {
        match hit {
            Hit::Refusal(e) => {
                let i = REFUSALS.iter().position(|&r| r == e).expect("listed");
                self.refusals[i] += 1;
            }
            Hit::Feature(f) => *self.features.entry(f).or_default() += 1,
        }
    }

    /// How many steps were refused for `reason`.
    pub fn refusal(&self, reason: MoveError) -> usize {
        REFUSALS
            .iter()
            .position(|&r| r == reason)
            .map_or(0, |i| self.refusals[i])
    }

    /// How many steps exercised `feature`.
    pub fn feature(&self, feature: Feature) -> usize {
        self.features.get(&feature).copied().unwrap_or(0)
    }

    /// The rule set's reachable refusal reasons that no step hit.
    pub fn missing_refusals(&self) -> Vec<MoveError> {
        reachable_refusals(&self.rules)
            .into_iter()
            .filter(|&e| self.refusal(e) == 0)
            .collect()
    }
}

/// The summary `gen` prints and writes to `coverage.txt`.
impl fmt::Display for Coverage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reachable = reachable_refusals(&self.rules);
        let hit = reachable.iter().filter(|&&e| self.refusal(e) > 0).count();
        writeln!(
            f,
            "coverage: {} {} scenarios, {} steps",
            self.scenarios, self.rules.name, self.steps
        )?;
        writeln!(
            f,
            "refusal reasons ({hit} of the {} reachable hit):",
            reachable.len()
        )?;
        for e in &reachable {
            writeln!(f, "  {:<40} {:>6}", e.message(), self.refusal(*e))?;
        }
        writeln!(f, "rules and situations:")?;
        for (feature, n) in &self.features {
            writeln!(f, "  {:<40} {:>6}", feature.name(), n)?;
        }
        let join = |items: Vec<String>| items.join(", ");
        writeln!(
            f,
            "focuses: {}",
            join(
                self.focuses
                    .iter()
                    .map(|(k, n)| format!("{k} {n}"))
                    .collect()
            )
        )?;
        writeln!(
            f,
            "board sizes: {}",
            join(
                self.sizes
                    .iter()
                    .map(|((r, c), n)| format!("{r}x{c} {n}"))
                    .collect()
            )
        )?;
        let missing = self.missing_refusals();
        if !missing.is_empty() {
            let names: Vec<_> = missing.iter().map(|e| e.message()).collect();
            writeln!(f, "not hit: {}", names.join("; "))?;
        }
        Ok(())
    }
}
