//! The runner: discover scenario files, execute each against a subject,
//! compare with its snapshot, and hand typed results to a reporter.
//! Nothing here formats output; reporters never compute results.

mod discover;
mod execute;

pub use discover::{Found, discover};
pub use execute::{Execution, StepFailure, execute};

use crate::compare::{Mismatch, compare};
use crate::engine::BoardText;
use crate::scenario::{self, Diagnostic, Scenario};
use crate::snapshot::{Snapshot, SnapshotStore};
use crate::subject::Subject;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What to do with snapshots that are missing or differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotMode {
    /// Compare only; a missing snapshot is a failure.
    Check,
    /// Write `.snap.new` files for review (`cargo insta review`).
    Propose,
    /// Write `.snap` files directly.
    Accept,
}

/// The result of one scenario.
#[derive(Clone, Debug)]
pub struct ScenarioResult {
    pub path: PathBuf,
    /// Path relative to the scenario root: the scenario's name.
    pub name: PathBuf,
    /// Points the scenario is worth (0 when it could not be parsed).
    pub points: u32,
    pub verdict: Verdict,
    pub elapsed: Duration,
}

impl ScenarioResult {
    pub fn earned(&self) -> u32 {
        match self.verdict {
            Verdict::Pass | Verdict::Updated { .. } => self.points,
            _ => 0,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Verdict {
    Pass,
    /// The trace differs from the snapshot.
    Mismatch(Box<MismatchReport>),
    /// The subject failed part-way (issue of submissions, not the engine).
    SubjectFailed(Box<SubjectFailureReport>),
    /// No snapshot exists and none was written.
    NoSnapshot,
    /// A snapshot was written (new, or replacing a different one).
    Updated {
        path: PathBuf,
        was_new: bool,
    },
    /// The scenario (or its snapshot) could not be read.
    InputError(Diagnostic),
}

/// A mismatch with what a reader needs to understand it.
#[derive(Clone, Debug)]
pub struct MismatchReport {
    pub mismatch: Mismatch,
    /// The source text of the scenario line that differs, trimmed.
    pub step_source: Option<String>,
    /// The subject's board before that step.
    pub board_before: BoardText,
}

#[derive(Clone, Debug)]
pub struct SubjectFailureReport {
    pub failure: StepFailure,
    pub step_source: Option<String>,
    pub board_before: BoardText,
}

/// Runs one discovered scenario file against `subject`.
pub fn run_one(
    found: &Found,
    subject: &mut dyn Subject,
    store: &SnapshotStore,
    mode: SnapshotMode,
) -> ScenarioResult {
    let started = Instant::now();
    let (points, verdict) = match scenario::load(&found.path) {
        Ok(scenario) => (
            scenario.points,
            judge(found, &scenario, subject, store, mode),
        ),
        Err(diag) => (0, Verdict::InputError(diag)),
    };
    ScenarioResult {
        path: found.path.clone(),
        name: found.rel.clone(),
        points,
        verdict,
        elapsed: started.elapsed(),
    }
}

fn judge(
    found: &Found,
    scenario: &Scenario,
    subject: &mut dyn Subject,
    store: &SnapshotStore,
    mode: SnapshotMode,
) -> Verdict {
    let execution = execute(scenario, subject);
    let source = std::fs::read_to_string(&found.path).unwrap_or_default();
    let line_text = |line: u32| {
        source
            .lines()
            .nth(line as usize - 1)
            .map(|l| l.trim().to_string())
    };
    if let Some(failure) = execution.failure {
        let line = failure.line;
        return Verdict::SubjectFailed(Box::new(SubjectFailureReport {
            step_source: line.and_then(line_text),
            board_before: line.map_or(execution.trace.initial_board.clone(), |l| {
                execution.trace.board_before(l).clone()
            }),
            failure,
        }));
    }
    let actual = execution.trace.render();
    let expected = match store.load(&found.rel) {
        Ok(snap) => snap,
        Err(e) => {
            let path = store.path_for(&found.rel);
            return Verdict::InputError(Diagnostic::file(
                &path,
                format!("cannot read snapshot: {e}"),
            ));
        }
    };
    let matches = expected.as_ref().is_some_and(|s| s.matches(&actual));
    if matches {
        // A result that matches again makes any pending proposal stale.
        if mode != SnapshotMode::Check {
            let _ = store.discard_pending(&found.rel);
        }
        return Verdict::Pass;
    }
    if mode != SnapshotMode::Check {
        let snap = Snapshot::new(&found.path, &actual);
        let written = match mode {
            SnapshotMode::Accept => store.accept(&found.rel, &snap),
            _ => store.propose(&found.rel, &snap),
        };
        return match written {
            Ok(path) => Verdict::Updated {
                path,
                was_new: expected.is_none(),
            },
            Err(e) => Verdict::InputError(Diagnostic::file(
                &store.path_for(&found.rel),
                format!("cannot write snapshot: {e}"),
            )),
        };
    }
    let Some(expected) = expected else {
        return Verdict::NoSnapshot;
    };
    let mismatch = compare(&expected.body, &actual).expect("traces differ, so a mismatch exists");
    Verdict::Mismatch(Box::new(MismatchReport {
        step_source: mismatch.scenario_line.and_then(line_text),
        board_before: mismatch
            .scenario_line
            .map_or(execution.trace.initial_board.clone(), |l| {
                execution.trace.board_before(l).clone()
            }),
        mismatch,
    }))
}

/// Totals over a batch, for the summary line and the exit code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub updated: usize,
    pub errors: usize,
    pub points: u32,
    pub possible: u32,
}

impl Summary {
    pub fn of(results: &[ScenarioResult]) -> Summary {
        let mut s = Summary::default();
        for r in results {
            match r.verdict {
                Verdict::Pass => s.passed += 1,
                Verdict::Updated { .. } => s.updated += 1,
                Verdict::InputError(_) => s.errors += 1,
                _ => s.failed += 1,
            }
            s.points += r.earned();
            s.possible += r.points;
        }
        s
    }

    /// 0 all passed, 1 some failed, 2 some input could not be read.
    pub fn exit_code(&self) -> i32 {
        if self.errors > 0 {
            2
        } else if self.failed > 0 {
            1
        } else {
            0
        }
    }
}
