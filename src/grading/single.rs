//! One scenario against one subject: what `explain` walks step by step and
//! what `shrink` makes smaller. The subject comes through the same
//! [`Plan`](super::Plan) as `grade`'s (the upload rule, the limits, the
//! build, the staff errors), so a scenario is explained or shrunk on the
//! program `grade` judged, judged the way `grade` judged it. Only what is
//! expected differs: a scenario without a snapshot is explained against the
//! reference engine's answers instead of being refused.

use super::error::StaffError;
use super::subject::Prepared;
use crate::compare::compare;
use crate::console;
use crate::explain::{
    ConsoleExplainError, ConsoleExplanation, Explanation, explain, explain_console,
};
use crate::rulefile::RuleBook;
use crate::runner::{self, Found};
use crate::scenario::Scenario;
use crate::shrink::{ShrinkError, Shrinker, Shrunk};
use crate::snapshot::SnapshotStore;
use crate::subject::EngineSubject;
use std::path::{Path, PathBuf};

/// The one scenario a command was given: where it was found (its name
/// relative to `--root`, which names its snapshot), what it says, and its
/// text (for the excerpts an explanation quotes).
#[derive(Clone, Debug)]
pub struct One {
    pub found: Found,
    pub scenario: Scenario,
    pub source: String,
}

impl One {
    /// Loads `file`, named relative to `root`, its rules found as `run`
    /// finds them (its `@rules`, the folders' `rules.toml` up to `root`,
    /// `rules`: the `--rules` files). A file that is not a scenario, or does
    /// not parse, or a bad rule file, is the staff's error (located).
    pub fn load(file: &Path, root: &Path, rules: &[PathBuf]) -> Result<One, StaffError> {
        let book =
            RuleBook::new(Some(root), rules).map_err(|d| StaffError::Rules(d.to_string()))?;
        let book = std::sync::Arc::new(book);
        let (found, _) = runner::discover(std::slice::from_ref(&file.to_path_buf()), root);
        let Some(mut found) = found.into_iter().next() else {
            // Why it is not one, located where the reader can say.
            let why =
                crate::scenario::load_with(file, crate::scenario::DEFAULT_MAX_INPUT_BYTES, &book);
            return Err(StaffError::Scenario(why.err().map_or_else(
                || format!("{}: not a scenario file", file.display()),
                |d| d.to_string(),
            )));
        };
        found.rules = book;
        let scenario = found
            .load()
            .map_err(|d| StaffError::Scenario(d.to_string()))?;
        let source = std::fs::read_to_string(file).unwrap_or_default();
        Ok(One {
            found,
            scenario,
            source,
        })
    }
}

/// What a protocol subject's answers are held against.
#[derive(Clone, Debug)]
pub enum Expected {
    /// The scenario's snapshot.
    Snapshot { path: PathBuf, body: String },
    /// No snapshot: the reference engine's answers.
    Reference { body: String },
}

impl Expected {
    /// The scenario's snapshot in `store`, else the reference engine's
    /// trace. A snapshot that cannot be read is the staff's error.
    pub fn of(one: &One, store: &SnapshotStore) -> Result<Expected, StaffError> {
        let path = store.path_for(&one.found.rel);
        match store.load(&one.found.rel) {
            Ok(Some(snap)) => Ok(Expected::Snapshot {
                path,
                body: snap.body,
            }),
            Ok(None) => Ok(Expected::Reference {
                body: reference_trace(one),
            }),
            Err(e) => Err(StaffError::Scenario(format!(
                "{}: cannot read snapshot: {e}",
                path.display()
            ))),
        }
    }

    fn body(&self) -> &str {
        match self {
            Expected::Snapshot { body, .. } | Expected::Reference { body } => body,
        }
    }

    /// Whether the reference engine gives exactly these answers, so that a
    /// smaller scenario may be judged against the engine (runs it only
    /// when there is a snapshot to hold it against).
    pub fn engine_agrees(&self, one: &One) -> bool {
        match self {
            Expected::Reference { .. } => true,
            Expected::Snapshot { body, .. } => compare(body, &reference_trace(one)).is_none(),
        }
    }
}

/// The reference engine's trace of `one`.
fn reference_trace(one: &One) -> String {
    runner::execute(&one.scenario, &mut EngineSubject::new())
        .trace
        .render()
}

/// A scenario walked step by step on a prepared subject.
#[derive(Debug)]
pub enum Walked {
    /// A protocol subject (reference engine, Lab 3 upload, engine),
    /// against `expected`.
    Protocol {
        expected: Expected,
        explanation: Box<Explanation>,
    },
    /// A console program, command by command, against what the course's
    /// program prints (worked out on the reference engine).
    Console(Box<ConsoleExplanation>),
    /// Nothing ran: the student's upload did not build, or is not of the
    /// kind graded (the whole message).
    NotRun(String),
}

impl Walked {
    /// 1 when the subject goes wrong (an answer, or a memory error that
    /// fails the scenario under `--memcheck`) or nothing ran, 0 when it
    /// passes.
    pub fn exit_code(&self) -> u8 {
        let failed = match self {
            Walked::Protocol { explanation, .. } => explanation.fails(),
            Walked::Console(e) => e.fails(),
            Walked::NotRun(_) => true,
        };
        u8::from(failed)
    }
}

/// Walks `one` on `prepared`, step by step (see [`Walked`]).
pub fn explain_one(
    one: &One,
    store: &SnapshotStore,
    prepared: &Prepared,
) -> Result<Walked, StaffError> {
    if let Some(message) = prepared.not_run_message() {
        return Ok(Walked::NotRun(message.to_string()));
    }
    if let Some((grader, program)) = prepared.console() {
        let texts = &grader.options().texts;
        return match explain_console(&one.scenario, &one.source, program, texts) {
            Ok(e) => Ok(Walked::Console(Box::new(e))),
            // What this scenario needs (its Mystery piece) did not compile.
            Err(e @ ConsoleExplainError::Compile(_)) => Ok(Walked::NotRun(e.to_string())),
            Err(e) => Err(StaffError::Scenario(format!(
                "{}: {e}",
                one.found.path.display()
            ))),
        };
    }
    let mut subject = prepared
        .subject()
        .expect("a prepared subject that is neither failed nor console runs scenarios");
    let expected = Expected::of(one, store)?;
    let explanation = explain(
        &one.scenario,
        &one.source,
        subject.as_mut(),
        expected.body(),
    );
    Ok(Walked::Protocol {
        expected,
        explanation: Box::new(explanation),
    })
}

/// What a shrink came to.
#[derive(Debug)]
pub enum Shrinking {
    /// Nothing ran: the upload did not build (the whole message).
    NotRun(String),
    /// The smallest scenario that still fails the same way, or why there
    /// is none; `against` is the snapshot the candidates were judged
    /// against when the reference engine disagrees with it.
    Done {
        against: Option<PathBuf>,
        shrunk: Box<Result<Shrunk, ShrinkError>>,
    },
}

/// Shrinks `one` on `prepared`, each candidate judged as `grade` judges
/// it: a protocol subject against the scenario's snapshot when the
/// reference engine disagrees with it, else against the engine; a console
/// program on its transcript (a candidate its course's program cannot play
/// is skipped). The subject runs every candidate (one build, one engine).
pub fn shrink_one(
    one: &One,
    store: &SnapshotStore,
    prepared: &Prepared,
    max_runs: usize,
) -> Result<Shrinking, StaffError> {
    if let Some(message) = prepared.not_run_message() {
        return Ok(Shrinking::NotRun(message.to_string()));
    }
    if let Some((grader, program)) = prepared.console() {
        let texts = grader.options().texts.clone();
        let judge = Box::new(
            move |candidate: &Scenario, found: &Found, _: &SnapshotStore| {
                console::plan(candidate, &texts).ok()?;
                Some(grader.grade(found, program))
            },
        );
        let shrunk =
            Shrinker::with_judge(judge, max_runs).and_then(|mut s| s.shrink(&one.scenario));
        return Ok(Shrinking::Done {
            against: None,
            shrunk: Box::new(shrunk),
        });
    }
    let mut subject = prepared
        .subject()
        .expect("a prepared subject that is neither failed nor console runs scenarios");
    let expected = Expected::of(one, store)?;
    let against = match expected {
        Expected::Snapshot { ref path, .. } if !expected.engine_agrees(one) => Some(path.clone()),
        _ => None,
    };
    let shrunk = Shrinker::new(subject.as_mut(), max_runs).and_then(|mut s| match against {
        Some(_) => s.shrink_found(&one.scenario, &one.found, store),
        None => s.shrink(&one.scenario),
    });
    // The subject's processes end before the shrink is reported.
    subject.finish();
    Ok(Shrinking::Done {
        against,
        shrunk: Box::new(shrunk),
    })
}
