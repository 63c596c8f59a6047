//! Comparing an actual trace with the expected one: find the first line
//! that differs, then describe the difference at the level of the step that
//! contains it — for a scan the items missing and extra (not two dumps), for
//! a move the expected and actual result and board.
//!
//! Works on trace text alone, so it serves every rule set and step kind: a
//! step is a header line (`L<n> ...`) followed by indented item lines.
//! [`changes`] reads two traces the same way to say, step by step, what a
//! rewritten snapshot changes (`run --update` after a rule change).

mod change;

pub use change::{ChangeGroup, ChangeKind, GroupCount, StepChange, Tally, changes};

use std::collections::BTreeSet;

/// The first difference between an expected and an actual trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// 1-based line of the trace where the texts first differ.
    pub trace_line: usize,
    /// The scenario line of the step that differs (`None` for the
    /// `DIMS`/`END` lines).
    pub scenario_line: Option<u32>,
    /// The step's header as expected (e.g. `L12 isValidScan`), or the
    /// differing line itself outside any step.
    pub expected_header: Option<String>,
    pub actual_header: Option<String>,
    pub detail: Detail,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Same scan, different answers: the item lines only one side has.
    Scan {
        missing: Vec<String>,
        extra: Vec<String>,
    },
    /// A move whose result or board differs.
    Move {
        expected_result: Option<String>,
        actual_result: Option<String>,
        expected_board: Option<String>,
        actual_board: Option<String>,
    },
    /// Anything else (different steps, truncated trace): the two blocks.
    Lines {
        expected: Vec<String>,
        actual: Vec<String>,
    },
}

/// Compares traces line by line; `None` when they are equal.
pub fn compare(expected: &str, actual: &str) -> Option<Mismatch> {
    let exp: Vec<&str> = expected.trim_end().lines().collect();
    let act: Vec<&str> = actual.trim_end().lines().collect();
    let first = (0..exp.len().max(act.len())).find(|&i| exp.get(i) != act.get(i))?;

    // The step containing the first difference starts at the last header
    // before it (lines before `first` are equal on both sides), unless
    // neither side has an item line there, i.e. two different steps meet.
    let is_item = |l: Option<&&str>| l.is_some_and(|l| l.starts_with(' '));
    let start = if is_item(exp.get(first)) || is_item(act.get(first)) {
        (0..first)
            .rev()
            .find(|&i| !is_item(exp.get(i)))
            .unwrap_or(first)
    } else {
        first
    };
    let exp_block = block(&exp, start);
    let act_block = block(&act, start);
    let exp_header = exp_block.first().map(|s| s.to_string());
    let act_header = act_block.first().map(|s| s.to_string());

    Some(Mismatch {
        trace_line: first + 1,
        scenario_line: exp_header
            .as_deref()
            .or(act_header.as_deref())
            .and_then(scenario_line),
        detail: detail(&exp_block, &act_block),
        expected_header: exp_header,
        actual_header: act_header,
    })
}

/// The header at `start` and its indented item lines.
fn block<'a>(lines: &[&'a str], start: usize) -> Vec<&'a str> {
    let Some(&header) = lines.get(start) else {
        return Vec::new();
    };
    let items = lines[start + 1..].iter().take_while(|l| l.starts_with(' '));
    std::iter::once(header).chain(items.copied()).collect()
}

/// `L12 movePiece ...` → 12.
fn scenario_line(header: &str) -> Option<u32> {
    header.strip_prefix('L')?.split(' ').next()?.parse().ok()
}

/// The step part of a header: `L12 movePiece 1 2 3 4 = 1` → `movePiece 1 2 3 4`.
fn step_of(header: &str) -> &str {
    let step = header.split_once(' ').map_or(header, |(_, s)| s);
    step.split(" = ").next().unwrap_or(step)
}

fn result_of(header: &str) -> Option<String> {
    header.split_once(" = ").map(|(_, r)| r.to_string())
}

fn detail(exp: &[&str], act: &[&str]) -> Detail {
    let same_step = match (exp.first(), act.first()) {
        (Some(e), Some(a)) => e.starts_with('L') && step_of(e) == step_of(a),
        _ => false,
    };
    // A step with a result (` = ...`) whose items are a board, or that has
    // no items at all (`perft`, `status`), differs in its result and board;
    // one with a list of items (`divide`, scans) differs item by item.
    let has_result = exp.first().is_some_and(|h| h.contains(" = "));
    let board_or_bare =
        |b: &[&str]| b.len() == 1 || b.get(1).is_some_and(|l| l.trim_start().starts_with("B "));
    if same_step && has_result && board_or_bare(exp) && board_or_bare(act) {
        let board = |b: &[&str]| {
            b.get(1)
                .map(|l| l.trim_start().trim_start_matches("B ").to_string())
        };
        return Detail::Move {
            expected_result: result_of(exp[0]),
            actual_result: result_of(act[0]),
            expected_board: board(exp),
            actual_board: board(act),
        };
    }
    // A save file is a picture, not a set: show both in full.
    let picture = |b: &[&str]| b.get(1).is_some_and(|l| l.trim_start().starts_with("S "));
    if same_step && !picture(exp) && !picture(act) {
        let e: BTreeSet<&str> = exp[1..].iter().map(|l| l.trim()).collect();
        let a: BTreeSet<&str> = act[1..].iter().map(|l| l.trim()).collect();
        return Detail::Scan {
            missing: e.difference(&a).map(|s| s.to_string()).collect(),
            extra: a.difference(&e).map(|s| s.to_string()).collect(),
        };
    }
    Detail::Lines {
        expected: exp.iter().map(|s| s.to_string()).collect(),
        actual: act.iter().map(|s| s.to_string()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_files_are_shown_whole() {
        let exp = "DIMS 1 2\nL5 save\n  S --\n  S --\n  S w\nEND\n";
        let act = "DIMS 1 2\nL5 save\n  S --\n  S -K\n  S w\nEND\n";
        let m = compare(exp, act).unwrap();
        assert_eq!(m.trace_line, 4);
        assert_eq!(
            m.detail,
            Detail::Lines {
                expected: vec![
                    "L5 save".into(),
                    "  S --".into(),
                    "  S --".into(),
                    "  S w".into()
                ],
                actual: vec![
                    "L5 save".into(),
                    "  S --".into(),
                    "  S -K".into(),
                    "  S w".into()
                ],
            }
        );
    }

    #[test]
    fn equal_traces_have_no_mismatch() {
        assert_eq!(compare("DIMS 1 1\nEND\n", "DIMS 1 1\nEND"), None);
    }

    #[test]
    fn scans_report_missing_and_extra_items_only() {
        let exp = "DIMS 4 4\nL7 isValidScan\n  V 0 0 0 1\n  V 0 0 1 0\n  V 1 1 2 2\nEND\n";
        let act = "DIMS 4 4\nL7 isValidScan\n  V 0 0 0 1\n  V 0 0 1 1\n  V 1 1 2 2\nEND\n";
        let m = compare(exp, act).unwrap();
        assert_eq!(m.trace_line, 4);
        assert_eq!(m.scenario_line, Some(7));
        assert_eq!(
            m.detail,
            Detail::Scan {
                missing: vec!["V 0 0 1 0".into()],
                extra: vec!["V 0 0 1 1".into()],
            }
        );
    }

    #[test]
    fn moves_report_result_and_board() {
        let exp = "DIMS 1 2\nL5 movePiece 0 0 0 1 = 1\n  B .K\nEND\n";
        let act = "DIMS 1 2\nL5 movePiece 0 0 0 1 = 0\n  B K.\nEND\n";
        let m = compare(exp, act).unwrap();
        assert_eq!(m.trace_line, 2);
        assert_eq!(m.scenario_line, Some(5));
        assert_eq!(
            m.detail,
            Detail::Move {
                expected_result: Some("1".into()),
                actual_result: Some("0".into()),
                expected_board: Some(".K".into()),
                actual_board: Some("K.".into()),
            }
        );
    }

    #[test]
    fn a_board_only_difference_points_at_the_board_line() {
        let exp = "DIMS 1 2\nL5 movePiece 0 0 0 1 = 1\n  B .K\nEND\n";
        let act = "DIMS 1 2\nL5 movePiece 0 0 0 1 = 1\n  B K.\nEND\n";
        let m = compare(exp, act).unwrap();
        assert_eq!(m.trace_line, 3);
        assert_eq!(m.scenario_line, Some(5));
    }

    #[test]
    fn a_missing_item_at_the_end_of_a_scan_is_found() {
        let exp = "DIMS 2 2\nL3 underThreatScan\n  T 0 0\n  T 1 1\nEND\n";
        let act = "DIMS 2 2\nL3 underThreatScan\n  T 0 0\nEND\n";
        let m = compare(exp, act).unwrap();
        assert_eq!(m.trace_line, 4);
        assert_eq!(m.scenario_line, Some(3));
        assert_eq!(
            m.detail,
            Detail::Scan {
                missing: vec!["T 1 1".into()],
                extra: vec![],
            }
        );
    }

    #[test]
    fn results_without_a_board_and_divide_items() {
        let m = compare(
            "DIMS 8 8\nL3 perft 2 = 400\nEND\n",
            "DIMS 8 8\nL3 perft 2 = 401\nEND\n",
        )
        .unwrap();
        assert_eq!(
            m.detail,
            Detail::Move {
                expected_result: Some("400".into()),
                actual_result: Some("401".into()),
                expected_board: None,
                actual_board: None,
            }
        );
        let exp = "DIMS 8 8\nL3 divide 1 = 2\n  D a2a3 1\n  D a2a4 1\nEND\n";
        let act = "DIMS 8 8\nL3 divide 1 = 2\n  D a2a3 1\n  D b2b3 1\nEND\n";
        assert_eq!(
            compare(exp, act).unwrap().detail,
            Detail::Scan {
                missing: vec!["D a2a4 1".into()],
                extra: vec!["D b2b3 1".into()],
            }
        );
    }

    #[test]
    fn different_steps_or_truncation_show_both_blocks() {
        let exp = "DIMS 2 2\nL3 isValidScan\nEND\n";
        let act = "DIMS 2 2\n";
        let m = compare(exp, act).unwrap();
        assert_eq!(m.trace_line, 2);
        assert_eq!(
            m.detail,
            Detail::Lines {
                expected: vec!["L3 isValidScan".into()],
                actual: vec![],
            }
        );
        let m = compare("DIMS 2 2\nEND\n", "DIMS 3 3\nEND\n").unwrap();
        assert_eq!((m.trace_line, m.scenario_line), (1, None));
    }
}
