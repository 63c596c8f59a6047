//! The memory check's leak test item (`--leak-points`): a result of the
//! runner's, made from what the memory checker found on each scenario
//! (`crate::memcheck::Findings`); memory checking itself knows nothing of
//! results, so the runner turns its findings into a failure here.

use super::{Failure, FailureKind, LeakItem, ScenarioResult, Verdict};
use crate::memcheck::{LEAK_ITEM, Leaks};
use std::path::PathBuf;

/// The leak test item of a run whose scenarios were checked
/// (`LeakPolicy::Item`): worth `points`, earned when no scenario's
/// processes leaked, else failed (`memory_leak`) naming the scenarios that
/// did and what they leaked. `None` when no result was checked (nothing
/// ran, or the build failed: then there is nothing to grade leaks on, and
/// the item is failed as not run by [`leak_item_not_run`]).
pub fn leak_item(results: &[ScenarioResult], points: u32) -> Option<ScenarioResult> {
    let checked: Vec<&ScenarioResult> = results.iter().filter(|r| r.memory.is_some()).collect();
    let tool = checked.first()?.memory.as_ref()?.tool;
    let leaked: Vec<(String, Leaks)> = checked
        .iter()
        .filter_map(|r| {
            let leaks = r.memory.as_ref()?.leaks.clone()?;
            Some((r.name.display().to_string(), leaks))
        })
        .collect();
    let verdict = if leaked.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Fail(Box::new(Failure {
            kind: FailureKind::MemoryLeaks(Box::new(LeakItem {
                tool,
                checked: checked.len(),
                leaked,
            })),
            line: None,
            step_source: None,
            board_before: crate::engine::BoardText(String::new()),
            stderr: None,
        }))
    };
    Some(ScenarioResult {
        path: PathBuf::from(LEAK_ITEM),
        name: PathBuf::from(LEAK_ITEM),
        points,
        visibility: crate::scenario::Visibility::Visible,
        verdict,
        elapsed: std::time::Duration::ZERO,
        memory: None,
        rules: None,
    })
}

/// The leak test item when nothing could be checked (the upload did not
/// build): failed with the same reason as every scenario.
pub fn leak_item_not_run(kind: FailureKind, points: u32) -> ScenarioResult {
    ScenarioResult {
        path: PathBuf::from(LEAK_ITEM),
        name: PathBuf::from(LEAK_ITEM),
        points,
        visibility: crate::scenario::Visibility::Visible,
        verdict: Verdict::Fail(Box::new(Failure {
            kind,
            line: None,
            step_source: None,
            board_before: crate::engine::BoardText(String::new()),
            stderr: None,
        })),
        elapsed: std::time::Duration::ZERO,
        memory: None,
        rules: None,
    }
}
