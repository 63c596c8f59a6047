//! `explain`: walk one scenario step by step and say, for each step, what
//! the subject answered against what was expected, with the board before
//! and after it. Computing ([`explain`]) is separate from drawing
//! ([`render`]): the walk yields typed [`StepView`]s, the renderer turns
//! them into text with board diagrams, so a test can check either.
//!
//! Steps are compared block by block (a trace step is its `L<n>` header
//! and its indented items), so every step gets a verdict, not only the
//! first mismatch: a scan that differs names its missing and extra items.
//!
//! A console program (JHU, CUHK) answers no trace: its session is lined
//! up command by command instead ([`explain_console`], [`render_console`]).
//!
//! Both walks are also drawn as one HTML page with the boards as pictures
//! ([`render_html`], [`render_console_html`]: `explain --format html`).

mod console;
mod html;
mod render;

pub use console::{
    CommandView, ConsoleExplainError, ConsoleExplanation, SaveView, explain_console, render_console,
};
pub use html::{Heading, render_console_html, render_html};
pub use render::{NoSuchLine, RenderOptions, render};

use crate::engine::{BoardText, RuleSetId};
use crate::memcheck::{Checked, ErrorPolicy, MemoryError};
use crate::runner::{StepFailure, execute};
use crate::scenario::Scenario;
use crate::subject::Subject;
use std::collections::{BTreeSet, HashMap};

/// One scenario, walked.
#[derive(Clone, Debug)]
pub struct Explanation {
    pub rules: RuleSetId,
    /// The board after the setup (the subject's).
    pub initial: BoardText,
    pub steps: Vec<StepView>,
    /// Where the subject failed outright (timeout, crash, ...), if it did.
    pub failure: Option<StepFailure>,
    /// What a memory check found (`--memcheck`), and how it is graded.
    pub memory: Option<Checked>,
}

impl Explanation {
    /// The first step that does not match, if any.
    pub fn first_mismatch(&self) -> Option<&StepView> {
        self.steps.iter().find(|s| s.verdict != StepVerdict::Match)
    }

    /// The memory error that fails the scenario (errors fail, one was found).
    pub fn failing_memory_error(&self) -> Option<&MemoryError> {
        let m = self
            .memory
            .as_ref()
            .filter(|m| m.errors == ErrorPolicy::Fail)?;
        m.findings.error.as_ref()
    }

    /// Whether the scenario fails: a step does not match, or memory errors
    /// fail and one was found.
    pub fn fails(&self) -> bool {
        self.first_mismatch().is_some() || self.failing_memory_error().is_some()
    }
}

/// One step: where it is, the boards around it, and how it compares.
#[derive(Clone, Debug)]
pub struct StepView {
    pub line: u32,
    /// The scenario line as written (untrimmed).
    pub source: String,
    /// The subject's board before and after the step (`None` after a step
    /// the subject never finished).
    pub before: BoardText,
    pub after: Option<BoardText>,
    /// The expected board after the step, when the expected trace has one.
    pub expected_after: Option<BoardText>,
    /// The trace header lines (`L12 movePiece 4 4 2 4 = 1`).
    pub expected_header: Option<String>,
    pub actual_header: Option<String>,
    pub verdict: StepVerdict,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepVerdict {
    Match,
    /// A scan whose items differ: the item lines (`V r c r c`, `T r c`)
    /// expected but not answered, and answered but not expected.
    Scan {
        missing: Vec<String>,
        extra: Vec<String>,
    },
    /// Any other difference: both blocks as text.
    Differs {
        expected: Vec<String>,
        actual: Vec<String>,
    },
    /// The subject failed here (its error), or stopped before.
    Failed(String),
}

/// Walks `scenario` (its file text `source`) with `subject`, comparing
/// each step with the `expected` trace text.
pub fn explain(
    scenario: &Scenario,
    source: &str,
    subject: &mut dyn Subject,
    expected: &str,
) -> Explanation {
    let execution = execute(scenario, subject);
    subject.finish();
    let memory = subject.memory();
    // The checker stopped the subject at its first error: that is why.
    let stopped_by = memory
        .as_ref()
        .filter(|m| m.errors == ErrorPolicy::Fail)
        .and_then(|m| m.findings.error.as_ref())
        .map(|e| format!("memory error ({}): {e}", m_tool(&memory)));
    let trace = &execution.trace;
    let actual_text = trace.render();
    let exp_blocks = blocks(expected);
    let act_blocks = blocks(&actual_text);
    let lines: Vec<&str> = source.lines().collect();
    let mut steps = Vec::new();
    for step in &scenario.steps {
        let exp = exp_blocks.get(&step.line);
        let act = act_blocks.get(&step.line);
        let entry = trace.entries.iter().find(|e| e.line == step.line);
        let verdict = match (&execution.failure, exp, act) {
            (Some(f), _, None) if f.line == Some(step.line) || f.line.is_none() => {
                StepVerdict::Failed(stopped_by.clone().unwrap_or_else(|| f.error.to_string()))
            }
            (_, _, None) => StepVerdict::Failed("not reached".to_string()),
            (_, Some(e), Some(a)) if e == a => StepVerdict::Match,
            (_, e, Some(a)) => compare_blocks(e.map_or(&[][..], Vec::as_slice), a),
        };
        steps.push(StepView {
            line: step.line,
            source: lines.get(step.line as usize - 1).unwrap_or(&"").to_string(),
            before: trace.board_before(step.line).clone(),
            after: entry.map(|e| e.board_after.clone()),
            expected_after: exp.and_then(|b| board_of(b)),
            expected_header: exp.and_then(|b| b.first().cloned()),
            actual_header: act.and_then(|b| b.first().cloned()),
            verdict,
        });
    }
    Explanation {
        rules: scenario.directives.rules.id,
        initial: trace.initial_board.clone(),
        steps,
        failure: execution.failure,
        memory,
    }
}

fn m_tool(memory: &Option<Checked>) -> String {
    memory
        .as_ref()
        .map_or(String::new(), |m| m.findings.tool.to_string())
}

/// A trace's steps by scenario line: header then item lines.
fn blocks(trace: &str) -> HashMap<u32, Vec<String>> {
    let mut out: HashMap<u32, Vec<String>> = HashMap::new();
    let mut current = None;
    for line in trace.lines() {
        if let Some(n) = line
            .strip_prefix('L')
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse::<u32>().ok())
        {
            current = Some(n);
            out.insert(n, vec![line.to_string()]);
        } else if line.starts_with(' ') {
            if let Some(block) = current.and_then(|n| out.get_mut(&n)) {
                block.push(line.trim_end().to_string());
            }
        } else {
            current = None;
        }
    }
    out
}

/// The `B` board line of a block.
fn board_of(block: &[String]) -> Option<BoardText> {
    block
        .iter()
        .find_map(|l| l.trim_start().strip_prefix("B "))
        .map(|b| BoardText(b.to_string()))
}

fn compare_blocks(exp: &[String], act: &[String]) -> StepVerdict {
    let is_scan = |b: &[String]| {
        b.first()
            .is_some_and(|h| h.ends_with("isValidScan") || h.ends_with("underThreatScan"))
    };
    if is_scan(exp) && is_scan(act) && exp.first() == act.first() {
        let e: BTreeSet<&String> = exp[1..].iter().collect();
        let a: BTreeSet<&String> = act[1..].iter().collect();
        return StepVerdict::Scan {
            missing: e.difference(&a).map(|s| s.trim().to_string()).collect(),
            extra: a.difference(&e).map(|s| s.trim().to_string()).collect(),
        };
    }
    StepVerdict::Differs {
        expected: exp.to_vec(),
        actual: act.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_split_by_step_and_scans_diff_by_item() {
        let b = blocks(
            "DIMS 2 2\nL5 isValidScan\n  V 0 0 0 1\n  V 0 0 1 0\nL6 movePiece 0 0 1 1 = 1\n  B ../.K\nEND\n",
        );
        assert_eq!(b[&5].len(), 3);
        assert_eq!(board_of(&b[&6]), Some(BoardText("../.K".into())));
        let exp = b[&5].clone();
        let act = vec![
            "L5 isValidScan".to_string(),
            "  V 0 0 1 1".to_string(),
            "  V 0 0 1 0".to_string(),
        ];
        assert_eq!(
            compare_blocks(&exp, &act),
            StepVerdict::Scan {
                missing: vec!["V 0 0 0 1".into()],
                extra: vec!["V 0 0 1 1".into()]
            }
        );
        assert!(matches!(
            compare_blocks(&b[&6], &["L6 movePiece 0 0 1 1 = 0".to_string()]),
            StepVerdict::Differs { .. }
        ));
    }
}
