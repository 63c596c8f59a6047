//! What changed between a scenario's snapshot and its new trace, step by
//! step, in the terms staff review a rule change in: a move now valid or
//! now refused, a refusal for another reason, a scan's squares added or
//! removed, a game's end, a board, a score, a perft count, the steps
//! themselves (the scenario was edited), or something else.
//!
//! `run --update` computes it for every snapshot it rewrites
//! ([`changes`]), so a TA who changed one rule reads how many scenarios
//! each kind of change touched ([`Tally`]) before reviewing the `.snap.new`
//! files one by one. Both sides are trace texts (the snapshot is one), read
//! into steps by their scenario line; each step that differs is classified
//! once, by the first thing that differs in the order above (a move that
//! became valid also moves a piece: that is the move, not "a board").

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// One step whose answer changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepChange {
    /// The step's scenario line (`None`: the trace's `DIMS` or `END`).
    pub line: Option<u32>,
    /// The step as the trace writes it (`movePiece 6 4 4 4`, `isValidScan`).
    pub step: String,
    pub kind: ChangeKind,
}

/// How a step's answer changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// A move (`movePiece`, `move`, `undo`, `redo`) refused before is made
    /// now; `was`: the refusal's reason, when the trace gives one.
    NowValid { was: Option<String> },
    /// A move made before is refused now (and why, when the trace says).
    NowRefused { reason: Option<String> },
    /// Refused before and now, for another reason.
    RefusalReason { was: String, now: String },
    /// A scan answers other items (`V r1 c1 r2 c2`, `T r c`): those only
    /// the new trace has, and those only the old one had.
    ScanSquares {
        added: Vec<String>,
        removed: Vec<String>,
    },
    /// A `status` or `stop` (a game's end): before, now.
    GameEnd { was: String, now: String },
    /// The same answer with another board after it.
    Board,
    /// A `score`: before, now.
    Score { was: String, now: String },
    /// A `perft` or `divide` count: before, now, and a divide's root
    /// moves (`D e2e4 20`) only the new or the old trace has.
    Count {
        was: String,
        now: String,
        added: Vec<String>,
        removed: Vec<String>,
    },
    /// A step only the new trace has (the scenario was edited).
    StepAdded,
    /// A step only the old trace had.
    StepRemoved,
    /// Another step on the same line (the old step's text).
    StepEdited { was: String },
    /// Anything else (a machine move, a save file, the board size).
    Other,
}

/// The kinds of change a run's summary counts scenarios by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeGroup {
    MoveNowValid,
    MoveNowRefused,
    RefusalReason,
    ScanSquares,
    GameEnd,
    Board,
    Score,
    Count,
    Steps,
    Other,
}

impl ChangeGroup {
    /// What it is, in a summary's words.
    pub fn words(self) -> &'static str {
        match self {
            ChangeGroup::MoveNowValid => "a move now valid",
            ChangeGroup::MoveNowRefused => "a move now refused",
            ChangeGroup::RefusalReason => "a refusal's reason",
            ChangeGroup::ScanSquares => "a scan's squares",
            ChangeGroup::GameEnd => "a game's end",
            ChangeGroup::Board => "a board after a move",
            ChangeGroup::Score => "a score",
            ChangeGroup::Count => "a perft count",
            ChangeGroup::Steps => "the steps (scenario edited)",
            ChangeGroup::Other => "another answer",
        }
    }
}

impl ChangeKind {
    /// The summary group it counts in.
    pub fn group(&self) -> ChangeGroup {
        match self {
            ChangeKind::NowValid { .. } => ChangeGroup::MoveNowValid,
            ChangeKind::NowRefused { .. } => ChangeGroup::MoveNowRefused,
            ChangeKind::RefusalReason { .. } => ChangeGroup::RefusalReason,
            ChangeKind::ScanSquares { .. } => ChangeGroup::ScanSquares,
            ChangeKind::GameEnd { .. } => ChangeGroup::GameEnd,
            ChangeKind::Board => ChangeGroup::Board,
            ChangeKind::Score { .. } => ChangeGroup::Score,
            ChangeKind::Count { .. } => ChangeGroup::Count,
            ChangeKind::StepAdded | ChangeKind::StepRemoved | ChangeKind::StepEdited { .. } => {
                ChangeGroup::Steps
            }
            ChangeKind::Other => ChangeGroup::Other,
        }
    }
}

impl fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChangeKind::NowValid { was: None } => write!(f, "now valid (was refused)"),
            ChangeKind::NowValid { was: Some(r) } => write!(f, "now valid (was refused: {r})"),
            ChangeKind::NowRefused { reason: None } => write!(f, "now refused (was valid)"),
            ChangeKind::NowRefused { reason: Some(r) } => {
                write!(f, "now refused: {r} (was valid)")
            }
            ChangeKind::RefusalReason { was, now } => {
                write!(f, "refused for another reason: {now} (was {was})")
            }
            ChangeKind::ScanSquares { added, removed } => write!(
                f,
                "{} added, {} removed: {}",
                added.len(),
                removed.len(),
                listed(added, removed)
            ),
            ChangeKind::GameEnd { was, now } | ChangeKind::Score { was, now } => {
                write!(f, "now {now} (was {was})")
            }
            ChangeKind::Count {
                was,
                now,
                added,
                removed,
            } => {
                write!(f, "now {now} (was {was})")?;
                if !added.is_empty() || !removed.is_empty() {
                    write!(f, "; {}", listed(added, removed))?;
                }
                Ok(())
            }
            ChangeKind::Board => write!(f, "another board after it"),
            ChangeKind::StepAdded => write!(f, "a step the old trace did not have"),
            ChangeKind::StepRemoved => write!(f, "a step the new trace does not have"),
            ChangeKind::StepEdited { was } => write!(f, "another step (was `{was}`)"),
            ChangeKind::Other => write!(f, "another answer"),
        }
    }
}

/// Items only one side has, a few of each: `+V 6 4 4 4, +V ...; -T 3 3`.
fn listed(added: &[String], removed: &[String]) -> String {
    const SHOWN: usize = 4;
    let mut parts = Vec::new();
    for (sign, items) in [('+', added), ('-', removed)] {
        if items.is_empty() {
            continue;
        }
        let mut shown: Vec<String> = items
            .iter()
            .take(SHOWN)
            .map(|i| format!("{sign}{i}"))
            .collect();
        if items.len() > SHOWN {
            shown.push(format!("… {} more", items.len() - SHOWN));
        }
        parts.push(shown.join(", "));
    }
    parts.join("; ")
}

/// The items only `new` has, and those only `old` had, each sorted.
fn item_diff(old: &Block, new: &Block) -> (Vec<String>, Vec<String>) {
    let o: BTreeSet<&str> = old.items.iter().copied().collect();
    let n: BTreeSet<&str> = new.items.iter().copied().collect();
    (
        n.difference(&o).map(|s| s.to_string()).collect(),
        o.difference(&n).map(|s| s.to_string()).collect(),
    )
}

impl fmt::Display for StepChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "L{line} {}: {}", self.step, self.kind),
            None => write!(f, "{}: {}", self.step, self.kind),
        }
    }
}

/// One step of a trace text: its header's step and result, and its items.
#[derive(Debug, PartialEq, Eq)]
struct Block<'a> {
    step: &'a str,
    result: Option<&'a str>,
    items: Vec<&'a str>,
}

/// A trace text's steps by scenario line, and its other lines (`DIMS`,
/// `END`) in order.
fn blocks(trace: &str) -> (BTreeMap<u32, Block<'_>>, Vec<&str>) {
    let mut steps = BTreeMap::new();
    let mut others = Vec::new();
    let mut current: Option<u32> = None;
    for line in trace.lines() {
        if let Some(item) = line.strip_prefix(' ') {
            if let Some(block) = current.and_then(|l| steps.get_mut(&l)) {
                let block: &mut Block = block;
                block.items.push(item.trim());
            }
            continue;
        }
        let header = line
            .strip_prefix('L')
            .and_then(|rest| rest.split_once(' '))
            .and_then(|(n, step)| Some((n.parse::<u32>().ok()?, step)));
        match header {
            Some((n, text)) => {
                let (step, result) = match text.split_once(" = ") {
                    Some((step, result)) => (step, Some(result)),
                    None => (text, None),
                };
                steps.insert(
                    n,
                    Block {
                        step,
                        result,
                        items: Vec::new(),
                    },
                );
                current = Some(n);
            }
            None => {
                if !line.trim().is_empty() {
                    others.push(line.trim_end());
                }
                current = None;
            }
        }
    }
    (steps, others)
}

/// The words a game status starts with (`= checkmate white`).
const STATUSES: &[&str] = &[
    "ongoing",
    "check",
    "checkmate",
    "stalemate",
    "king-captured",
    "stopped",
];

/// A move's verdict in a trace (`1`, `0`, `0 (reason)`): made, or refused
/// with the reason when given.
fn verdict(result: Option<&str>) -> Option<Result<(), Option<&str>>> {
    match result? {
        "1" => Some(Ok(())),
        "0" => Some(Err(None)),
        other => {
            let reason = other.strip_prefix("0 (")?.strip_suffix(')')?;
            Some(Err(Some(reason)))
        }
    }
}

/// How one step on the same line, the same step on both sides, changed.
fn classify(old: &Block, new: &Block) -> ChangeKind {
    let word = new.step.split(' ').next().unwrap_or("");
    let results = || {
        (
            old.result.unwrap_or_default().to_string(),
            new.result.unwrap_or_default().to_string(),
        )
    };
    let is_status = |b: &Block| {
        b.result
            .and_then(|r| r.split(' ').next())
            .is_some_and(|w| STATUSES.contains(&w))
    };
    match word {
        "perft" | "divide" => {
            let (was, now) = results();
            let (added, removed) = item_diff(old, new);
            return ChangeKind::Count {
                was,
                now,
                added,
                removed,
            };
        }
        "isValidScan" | "underThreatScan" => {
            let (added, removed) = item_diff(old, new);
            return ChangeKind::ScanSquares { added, removed };
        }
        "score" => {
            let (was, now) = results();
            return ChangeKind::Score { was, now };
        }
        "machine" | "save" => return ChangeKind::Other,
        _ => {}
    }
    if word == "status" || word == "stop" || (is_status(old) && is_status(new)) {
        let (was, now) = results();
        return ChangeKind::GameEnd { was, now };
    }
    let own = |r: Option<&str>| r.map(str::to_string);
    match (verdict(old.result), verdict(new.result)) {
        (Some(Err(was)), Some(Ok(()))) => ChangeKind::NowValid { was: own(was) },
        (Some(Ok(())), Some(Err(reason))) => ChangeKind::NowRefused {
            reason: own(reason),
        },
        (Some(Err(was)), Some(Err(now))) if was != now => ChangeKind::RefusalReason {
            was: own(was).unwrap_or_else(|| "no reason given".into()),
            now: own(now).unwrap_or_else(|| "no reason given".into()),
        },
        (Some(_), Some(_)) if old.items != new.items => ChangeKind::Board,
        _ => ChangeKind::Other,
    }
}

/// Every step whose answer differs between the `old` trace (a snapshot's
/// body) and the `new` one, in scenario order; empty when the two are the
/// same (trailing whitespace aside). Two traces that differ always give
/// at least one change.
pub fn changes(old: &str, new: &str) -> Vec<StepChange> {
    let (old_steps, old_other) = blocks(old);
    let (new_steps, new_other) = blocks(new);
    let mut out = Vec::new();
    if old_other != new_other {
        let dims = |o: &[&str]| {
            o.iter()
                .find(|l| l.starts_with("DIMS"))
                .map(|l| l.to_string())
        };
        out.push(StepChange {
            line: None,
            step: dims(&new_other)
                .or_else(|| dims(&old_other))
                .unwrap_or_else(|| "the trace".into()),
            kind: ChangeKind::Other,
        });
    }
    let lines: BTreeSet<u32> = old_steps.keys().chain(new_steps.keys()).copied().collect();
    for line in lines {
        let (old, new) = (old_steps.get(&line), new_steps.get(&line));
        let (step, kind) = match (old, new) {
            (Some(o), Some(n)) if o == n => continue,
            (Some(o), Some(n)) if o.step != n.step => (
                n.step,
                ChangeKind::StepEdited {
                    was: o.step.to_string(),
                },
            ),
            (Some(o), Some(n)) => (n.step, classify(o, n)),
            (Some(o), None) => (o.step, ChangeKind::StepRemoved),
            (None, Some(n)) => (n.step, ChangeKind::StepAdded),
            (None, None) => continue,
        };
        out.push(StepChange {
            line: Some(line),
            step: step.to_string(),
            kind,
        });
    }
    if out.is_empty() && old.trim_end() != new.trim_end() {
        out.push(StepChange {
            line: None,
            step: "the trace".into(),
            kind: ChangeKind::Other,
        });
    }
    out
}

/// How many scenarios each kind of change touched over a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Scenarios whose snapshot was written for the first time.
    pub new: usize,
    /// Scenarios whose snapshot changed.
    pub changed: usize,
    /// Each kind of change that happened, in [`ChangeGroup`] order.
    pub groups: Vec<GroupCount>,
}

/// One kind of change over a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupCount {
    pub group: ChangeGroup,
    /// Scenarios with at least one step of this kind.
    pub scenarios: usize,
    /// Steps of this kind, in all.
    pub steps: usize,
}

impl Tally {
    /// The tally of a run's written snapshots, each given as `None` (a new
    /// one) or the groups of its changed steps.
    pub fn of<I, G>(written: I) -> Tally
    where
        I: IntoIterator<Item = Option<G>>,
        G: IntoIterator<Item = ChangeGroup>,
    {
        let mut tally = Tally::default();
        let mut counts: BTreeMap<ChangeGroup, (usize, usize)> = BTreeMap::new();
        for scenario in written {
            let Some(groups) = scenario else {
                tally.new += 1;
                continue;
            };
            tally.changed += 1;
            let mut seen = BTreeSet::new();
            for group in groups {
                let count = counts.entry(group).or_default();
                count.1 += 1;
                if seen.insert(group) {
                    count.0 += 1;
                }
            }
        }
        tally.groups = counts
            .into_iter()
            .map(|(group, (scenarios, steps))| GroupCount {
                group,
                scenarios,
                steps,
            })
            .collect();
        tally
    }

    /// Whether no snapshot was written.
    pub fn is_empty(&self) -> bool {
        self.new == 0 && self.changed == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "DIMS 8 8\n\
        L5 movePiece 6 4 4 4 = 0\n  B k......./......../......../......../......../......../....P.../....K...\n\
        L6 isValidScan\n  V 6 4 5 4\n  V 7 4 7 3\n\
        L7 move e5d6 = 0 (illegal capture shape)\n  B x\n\
        L8 move a1a2 = 1\n  B y\n\
        L9 move a1a3 = 0 (path is not clear)\n  B z\n\
        L10 status = ongoing\n\
        L11 score = white 1 black 0\n\
        L12 perft 2 = 400\n\
        L13 underThreatScan\n  T 0 0\n\
        END\n";

    #[test]
    fn each_changed_step_is_classified_by_what_changed_first() {
        let new = "DIMS 8 8\n\
            L5 movePiece 6 4 4 4 = 1\n  B k......./......../......../......../....P.../......../......../....K...\n\
            L6 isValidScan\n  V 6 4 4 4\n  V 6 4 5 4\n\
            L7 move e5d6 = 1\n  B x2\n\
            L8 move a1a2 = 0 (move exposes check)\n  B y\n\
            L9 move a1a3 = 0 (illegal move shape)\n  B z\n\
            L10 status = checkmate white\n\
            L11 score = white 2 black 0\n\
            L12 perft 2 = 420\n\
            L13 underThreatScan\n  T 0 0\n\
            END\n";
        let found = changes(OLD, new);
        let kinds: Vec<(Option<u32>, ChangeKind)> =
            found.iter().map(|c| (c.line, c.kind.clone())).collect();
        assert_eq!(
            kinds,
            vec![
                (Some(5), ChangeKind::NowValid { was: None }),
                (
                    Some(6),
                    ChangeKind::ScanSquares {
                        added: vec!["V 6 4 4 4".into()],
                        removed: vec!["V 7 4 7 3".into()],
                    }
                ),
                (
                    Some(7),
                    ChangeKind::NowValid {
                        was: Some("illegal capture shape".into())
                    }
                ),
                (
                    Some(8),
                    ChangeKind::NowRefused {
                        reason: Some("move exposes check".into())
                    }
                ),
                (
                    Some(9),
                    ChangeKind::RefusalReason {
                        was: "path is not clear".into(),
                        now: "illegal move shape".into()
                    }
                ),
                (
                    Some(10),
                    ChangeKind::GameEnd {
                        was: "ongoing".into(),
                        now: "checkmate white".into()
                    }
                ),
                (
                    Some(11),
                    ChangeKind::Score {
                        was: "white 1 black 0".into(),
                        now: "white 2 black 0".into()
                    }
                ),
                (
                    Some(12),
                    ChangeKind::Count {
                        was: "400".into(),
                        now: "420".into(),
                        added: Vec::new(),
                        removed: Vec::new(),
                    }
                ),
            ]
        );
        assert_eq!(
            found[1].to_string(),
            "L6 isValidScan: 1 added, 1 removed: +V 6 4 4 4; -V 7 4 7 3"
        );
        assert_eq!(
            found[3].to_string(),
            "L8 move a1a2: now refused: move exposes check (was valid)"
        );
        let divided = changes(
            "DIMS 2 2\nL3 divide 1 = 2\n  D a1a2 1\n  D b1b2 1\nEND\n",
            "DIMS 2 2\nL3 divide 1 = 2\n  D a1a2 1\n  D b1a1 1\nEND\n",
        );
        assert_eq!(
            divided[0].to_string(),
            "L3 divide 1: now 2 (was 2); +D b1a1 1; -D b1b2 1"
        );
        assert_eq!(changes(OLD, OLD), Vec::new());
        assert_eq!(changes(OLD, &format!("{OLD}\n\n")), Vec::new());
    }

    #[test]
    fn a_board_alone_a_stop_and_edited_steps_have_their_own_kinds() {
        let old = "DIMS 2 2\nL3 movePiece 0 0 0 1 = 1\n  B .K/..\nL4 move Z0 Z0 = stopped draw\nL5 isValidScan\nEND\n";
        let new = "DIMS 2 2\nL3 movePiece 0 0 0 1 = 1\n  B ../.K\nL4 move Z0 Z0 = stopped white\nL5 underThreatScan\nL6 isValidScan\nEND\n";
        let kinds: Vec<ChangeKind> = changes(old, new).into_iter().map(|c| c.kind).collect();
        assert_eq!(
            kinds,
            vec![
                ChangeKind::Board,
                ChangeKind::GameEnd {
                    was: "stopped draw".into(),
                    now: "stopped white".into()
                },
                ChangeKind::StepEdited {
                    was: "isValidScan".into()
                },
                ChangeKind::StepAdded,
            ]
        );
        // Another board size, or a trace that lost its end, is still a change.
        let resized = changes("DIMS 2 2\nEND\n", "DIMS 3 3\nEND\n");
        assert_eq!(resized.len(), 1);
        assert_eq!(resized[0].to_string(), "DIMS 3 3: another answer");
        assert_eq!(changes("DIMS 2 2\nEND\n", "DIMS 2 2\n").len(), 1);
    }

    #[test]
    fn a_tally_counts_scenarios_once_per_kind_and_steps_each() {
        use ChangeGroup::*;
        let tally = Tally::of([
            Some(vec![MoveNowValid, Board, Board]),
            None,
            Some(vec![Board]),
        ]);
        assert_eq!((tally.new, tally.changed), (1, 2));
        let counts: Vec<(ChangeGroup, usize, usize)> = tally
            .groups
            .iter()
            .map(|g| (g.group, g.scenarios, g.steps))
            .collect();
        assert_eq!(counts, vec![(MoveNowValid, 1, 1), (Board, 2, 3)]);
        assert!(!tally.is_empty());
        assert!(Tally::of(Vec::<Option<Vec<ChangeGroup>>>::new()).is_empty());
    }
}
