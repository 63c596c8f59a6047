//! A batch: discover and select the scenarios, run them on a prepared
//! subject, and come back with an [`Outcome`] that knows its exit code and
//! its report. `run`, `grade` and every member of a class go through it.
//! Progress goes out as [`Events`] (the command line turns them into lines
//! and a progress bar); nothing here prints.
//!
//! Before a run: stale temporary snapshot files of killed runs are removed
//! (noted), everything the folder walk skipped is noted, scenarios whose
//! snapshot names would clash are input errors (the second of each pair
//! does not run), and an empty selection is a staff error unless
//! `allow_empty`.

use super::error::StaffError;
use super::subject::Prepared;
use crate::compare::Tally;
use crate::report::{Report, RunIdentity};
use crate::rulefile::RuleBook;
use crate::runner::{self, Found, Partition, ScenarioResult, Selection, SnapshotMode, Summary};
use crate::scenario::{Caps, Diagnostic};
use crate::snapshot::SnapshotStore;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a batch covers and how it runs: the flags, once.
#[derive(Clone, Debug)]
pub struct BatchSpec {
    /// Scenario files or folders.
    pub paths: Vec<PathBuf>,
    /// The scenario root (snapshot names are relative to it).
    pub root: PathBuf,
    /// The snapshot folder.
    pub snapshots: PathBuf,
    pub filters: Vec<String>,
    pub exact: bool,
    pub partition: Option<Partition>,
    /// Workers (at least one).
    pub jobs: usize,
    pub fail_fast: bool,
    pub allow_empty: bool,
    pub mode: SnapshotMode,
    /// What each scenario may cost the grader (file and trace sizes).
    pub caps: Caps,
    /// `--rules` files: each replaces the built-in set it extends for the
    /// scenarios of that family (`crate::rulefile::RuleBook`).
    pub rules: Vec<PathBuf>,
}

impl BatchSpec {
    /// A suite folder that `gen` wrote (`OUT/` holding `scenarios/` and
    /// `snapshots/` side by side), named alone while `--root` and
    /// `--snapshots` keep their defaults: its own two folders, so that
    /// `run OUT/` runs it as it is.
    fn suite(&self) -> Option<&Path> {
        let [only] = self.paths.as_slice() else {
            return None;
        };
        let defaults =
            self.root == Path::new("scenarios") && self.snapshots == Path::new("snapshots");
        let (scenarios, snapshots) = (only.join("scenarios"), only.join("snapshots"));
        // `run .` in a project is the project's own folders, said by no note.
        let same = |a: &Path, b: &Path| {
            a.canonicalize()
                .ok()
                .zip(b.canonicalize().ok())
                .is_some_and(|(a, b)| a == b)
        };
        (defaults && scenarios.is_dir() && snapshots.is_dir() && !same(&scenarios, &self.root))
            .then_some(only.as_path())
    }

    /// The scenario root in force: `--root`, or a suite folder's.
    fn root(&self) -> PathBuf {
        self.suite()
            .map_or_else(|| self.root.clone(), |s| s.join("scenarios"))
    }

    /// The snapshot store this batch judges against (`--snapshots`, or a
    /// suite folder's).
    pub fn store(&self) -> SnapshotStore {
        let dir = self
            .suite()
            .map_or_else(|| self.snapshots.clone(), |s| s.join("snapshots"));
        SnapshotStore::new(dir).with_max_trace_bytes(self.caps.trace_bytes)
    }

    /// The scenarios of this batch: the filters' selection, then the
    /// partition's slice of it, with the walk's notes and errors. Snapshot
    /// name clashes become input errors here; an empty selection is the
    /// staff's error unless `allow_empty`.
    pub fn discover(&self) -> Result<Discovered, StaffError> {
        let root = self.root();
        let book = RuleBook::new(Some(&root), &self.rules)
            .map_err(|d| StaffError::Rules(d.to_string()))?;
        let book = std::sync::Arc::new(book);
        let walked = match self.suite() {
            Some(_) => runner::walk(std::slice::from_ref(&root), &root),
            None => runner::walk(&self.paths, &root),
        };
        let found = Selection::new(&self.filters, self.exact).apply(walked.found);
        let names: Vec<String> = found.iter().map(runner::name_of).collect();
        let identity = RunIdentity::of(&names);
        let mut found: Vec<Found> = match self.partition {
            Some(p) => found
                .into_iter()
                .enumerate()
                .filter(|(i, _)| p.contains(*i))
                .map(|(_, f)| f)
                .collect(),
            None => found,
        };
        let mut errors = walked.errors;
        // Two scenarios writing one snapshot would overwrite each other: run
        // neither's second.
        let store = self.store();
        let clashes = store.clashes(found.iter().map(|f| f.rel.as_path()));
        for &(first, second) in &clashes {
            errors.push(Diagnostic::file(
                &found[second].path,
                format!(
                    "its snapshot would be {}, the same as {}'s; rename one of them",
                    store.path_for(&found[second].rel).display(),
                    found[first].path.display()
                ),
            ));
        }
        let mut index = 0;
        found.retain(|_| {
            index += 1;
            !clashes.iter().any(|&(_, second)| second == index - 1)
        });
        for f in &mut found {
            f.caps = self.caps;
            f.rules = book.clone();
        }
        let mut notes = walked.skipped;
        if let Some(suite) = self.suite() {
            notes.insert(
                0,
                format!(
                    "{} is a suite folder: scenarios from {}, snapshots from {}",
                    suite.display(),
                    suite.join("scenarios").display(),
                    suite.join("snapshots").display()
                ),
            );
        }
        let discovered = Discovered {
            found,
            errors,
            notes,
            identity,
        };
        if discovered.found.is_empty() && discovered.errors.is_empty() && !self.allow_empty {
            return Err(self.nothing_selected(discovered.notes));
        }
        Ok(discovered)
    }

    /// For grading, where the expected answers are the staff's to give:
    /// every selected scenario must have its snapshot, or nothing is built
    /// or run (one exit-2 message naming the folder searched and the flags
    /// that point elsewhere). `run` does not ask: there a missing snapshot
    /// is a new scenario to review.
    pub fn check_snapshots(&self, found: &[Found]) -> Result<(), StaffError> {
        let store = self.store();
        let missing: Vec<&Found> = found.iter().filter(|f| !store.has(&f.rel)).collect();
        let Some(first) = missing.first() else {
            return Ok(());
        };
        let dir = store.dir().display();
        let folder = if store.dir().is_dir() {
            format!("in {dir}")
        } else {
            format!("in {dir} (there is no such folder here)")
        };
        Err(StaffError::NoSnapshots(format!(
            "no expected answers for {} of the {} selected scenarios {folder}: looked for {} (or {}) for {}; grading compares with them: name their folder with --snapshots DIR, and with --root DIR the folder their names are relative to (now {})",
            missing.len(),
            found.len(),
            store.path_for(&first.rel).display(),
            store
                .dir()
                .join(first.rel.with_extension("expected"))
                .display(),
            first.path.display(),
            self.root().display(),
        )))
    }

    fn nothing_selected(&self, notes: Vec<String>) -> StaffError {
        let paths: Vec<String> = self.paths.iter().map(|p| p.display().to_string()).collect();
        let (what, fix) = match self.partition {
            Some(p) => (
                format!("the slice {p} of "),
                "fewer slices, or --allow-empty",
            ),
            None => (String::new(), "--allow-empty to accept that"),
        };
        let message = if self.filters.is_empty() {
            format!(
                "no scenario selected: {what}{} has no *.txt scenario file (pass {fix})",
                paths.join(", ")
            )
        } else {
            format!(
                "no scenario selected: {what}no scenario of {} matches --filter {} (pass {fix})",
                paths.join(", "),
                self.filters.join(", --filter ")
            )
        };
        StaffError::NoScenario { message, notes }
    }

    /// Runs `discovered` on `subject`, telling `events` as it goes.
    /// `notes` are the caller's (isolation, ...), reported first.
    pub fn run(
        &self,
        discovered: Discovered,
        subject: &Prepared,
        notes: Vec<String>,
        events: &mut dyn Events,
    ) -> Outcome {
        let started = Instant::now();
        // A course's reference program says so in the snapshots it writes.
        let store = self.store().recorded_by(subject.recorder().cloned());
        // The subject's notes (its build), the caller's, then the run's own.
        let mut all_notes: Vec<String> = subject.report_notes();
        all_notes.extend(notes);
        all_notes.extend(store.remove_stale_temp_files().into_iter().map(|removed| {
            format!(
                "removed {}: a temporary snapshot file left by an interrupted run",
                removed.display()
            )
        }));
        all_notes.extend(discovered.notes);
        for note in &all_notes {
            events.note(note);
        }
        // The compiler's message last, right above the scenarios that
        // point to it.
        let compile_error = subject.compile_error().map(str::to_string);
        if let Some(message) = &compile_error {
            events.note(&crate::report::compile_error_note(message));
        }
        for diag in &discovered.errors {
            events.input_error(diag);
        }
        events.started(discovered.found.len());
        let results = subject.run(
            &discovered.found,
            self.jobs.max(1),
            &store,
            self.mode,
            self.fail_fast,
            |r| events.scenario(r),
        );
        let not_run = discovered.found.len() - results.len();
        // The memory check's leak item, after every scenario it grades.
        let mut results = results;
        if let Some(item) = subject.leak_item(&results) {
            events.scenario(&item);
            results.push(item);
        }
        let mut summary = Summary::of(&results);
        summary.errors += discovered.errors.len();
        Outcome {
            changes: runner::tally(&results),
            subject: subject.name.clone(),
            partition: self.partition,
            notes: all_notes,
            compile_error,
            errors: discovered.errors,
            not_run,
            results,
            summary,
            identity: discovered.identity,
            elapsed: started.elapsed(),
        }
    }
}

/// The scenarios a batch covers, and which run that is.
#[derive(Debug)]
pub struct Discovered {
    /// The selected scenarios of this slice, in discovery order.
    pub found: Vec<Found>,
    /// Files that could not be taken (unreadable, clashing snapshots).
    pub errors: Vec<Diagnostic>,
    /// What the folder walk skipped.
    pub notes: Vec<String>,
    /// The identity of the whole selected run (before partitioning).
    pub identity: RunIdentity,
}

/// What a batch tells its reporter as it goes. Every method has an empty
/// default, so a caller listens only to what it shows.
pub trait Events {
    fn note(&mut self, _note: &str) {}
    fn input_error(&mut self, _diag: &Diagnostic) {}
    /// The scenarios are about to run (how many).
    fn started(&mut self, _count: usize) {}
    /// One result, in discovery order.
    fn scenario(&mut self, _result: &ScenarioResult) {}
}

/// Listens to nothing.
pub struct Silent;
impl Events for Silent {}

/// A finished batch.
#[derive(Debug)]
pub struct Outcome {
    /// The subject's name in reports.
    pub subject: String,
    pub partition: Option<Partition>,
    /// Everything noted (walk, build, caller).
    pub notes: Vec<String>,
    /// The compiler's message, when the upload did not compile.
    pub compile_error: Option<String>,
    /// Input errors (each counted in the summary).
    pub errors: Vec<Diagnostic>,
    pub results: Vec<ScenarioResult>,
    /// Selected scenarios never started (`fail_fast`).
    pub not_run: usize,
    pub summary: Summary,
    /// The snapshots written, counted by what changed.
    pub changes: Tally,
    pub identity: RunIdentity,
    pub elapsed: Duration,
}

impl Outcome {
    /// 0 all passed, 1 some scenario failed, 2 an input error.
    pub fn exit_code(&self) -> u8 {
        self.summary.exit_code() as u8
    }

    /// The machine report: results, notes, input errors and what did not
    /// run, as one [`Report`].
    pub fn report(&self) -> Report {
        let mut notes = self.notes.clone();
        notes.extend(self.errors.iter().map(|d| d.to_string()));
        if self.not_run > 0 {
            notes.push(format!("{} scenarios not run (--fail-fast)", self.not_run));
        }
        Report::new(
            &self.subject,
            self.partition.map(|p| p.to_string()),
            self.elapsed.as_secs_f64(),
            notes,
            &self.results,
        )
        .with_compile_error(self.compile_error.clone())
        .with_run(self.identity.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(dir: &std::path::Path) -> BatchSpec {
        BatchSpec {
            paths: vec![dir.to_path_buf()],
            root: dir.to_path_buf(),
            snapshots: dir.join("snapshots"),
            filters: Vec::new(),
            exact: false,
            partition: None,
            jobs: 1,
            fail_fast: false,
            allow_empty: false,
            mode: SnapshotMode::Check,
            caps: Caps::default(),
            rules: Vec::new(),
        }
    }

    /// The caps are the batch's own values: one process runs a batch that
    /// refuses a scenario over its input cap and one that reads it, in
    /// either order (no process-wide setting carries over), and a trace cap
    /// refuses a scenario before it runs.
    #[test]
    fn each_batch_reads_and_runs_under_its_own_caps() {
        let dir = tempfile::tempdir().unwrap();
        let text = "1\n3 3\nw k 1 1\n~\nisValidScan\n";
        std::fs::write(dir.path().join("a.txt"), text).unwrap();
        let verdict = |caps: Caps| {
            let mut spec = spec(dir.path());
            spec.caps = caps;
            spec.mode = SnapshotMode::Accept;
            let d = spec.discover().unwrap();
            let out = spec.run(
                d,
                &Prepared::reference(Duration::from_secs(10)),
                Vec::new(),
                &mut Silent,
            );
            out.results[0].verdict.clone()
        };
        let small = Caps {
            input_bytes: 8,
            ..Caps::default()
        };
        let tiny_trace = Caps {
            trace_bytes: 4,
            ..Caps::default()
        };
        for _ in 0..2 {
            let refused = verdict(small);
            let runner::Verdict::InputError(d) = &refused else {
                panic!("{refused:?}")
            };
            assert!(
                d.to_string().contains("larger than the 8 bytes limit"),
                "{d}"
            );
            // Written on the first run, equal on the second.
            let read = verdict(Caps::default());
            assert!(
                matches!(
                    read,
                    runner::Verdict::Pass | runner::Verdict::Updated { .. }
                ),
                "{read:?}"
            );
        }
        let refused = verdict(tiny_trace);
        assert!(
            matches!(refused, runner::Verdict::InputError(_)),
            "{refused:?}"
        );
    }

    #[test]
    fn an_empty_selection_is_the_staffs_error_naming_what_was_searched() {
        let dir = tempfile::tempdir().unwrap();
        let err = spec(dir.path()).discover().unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("no scenario selected: "), "{text}");
        assert!(
            text.contains("has no *.txt scenario file (pass --allow-empty"),
            "{text}"
        );
        let mut filtered = spec(dir.path());
        filtered.filters = vec!["kings".into()];
        let text = filtered.discover().unwrap_err().to_string();
        assert!(text.contains("matches --filter kings"), "{text}");
        let mut allowed = spec(dir.path());
        allowed.allow_empty = true;
        assert!(allowed.discover().unwrap().found.is_empty());
    }

    #[test]
    fn grading_without_the_expected_answers_is_the_staffs_error_naming_where_it_looked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("king.txt"),
            "1\n3 3\nw k 1 1\n~\nisValidScan\n",
        )
        .unwrap();
        let spec = spec(dir.path());
        let d = spec.discover().unwrap();
        let text = spec.check_snapshots(&d.found).unwrap_err().to_string();
        let snaps = dir.path().join("snapshots");
        assert!(
            text.starts_with(&format!(
                "no expected answers for 1 of the 1 selected scenarios in {} (there is no such folder here): looked for {}",
                snaps.display(),
                snaps.join("scenario@king.txt.snap").display()
            )),
            "{text}"
        );
        assert!(text.contains("--snapshots DIR"), "{text}");
        // A corpus-style `.expected` trace counts as the expected answers.
        std::fs::create_dir(&snaps).unwrap();
        std::fs::write(snaps.join("king.expected"), "DIMS 3 3\n").unwrap();
        assert!(spec.check_snapshots(&d.found).is_ok());
    }

    /// Counts what a batch tells its reporter.
    #[derive(Default)]
    struct Count {
        notes: Vec<String>,
        results: usize,
        started: Option<usize>,
    }
    impl Events for Count {
        fn note(&mut self, note: &str) {
            self.notes.push(note.to_string());
        }
        fn started(&mut self, count: usize) {
            self.started = Some(count);
        }
        fn scenario(&mut self, _: &ScenarioResult) {
            self.results += 1;
        }
    }

    #[test]
    fn a_batch_runs_reports_events_and_knows_its_exit_code() {
        let dir = tempfile::tempdir().unwrap();
        // Passes on the reference engine once accepted; fails unchecked.
        std::fs::write(
            dir.path().join("king.txt"),
            "1\n3 3\nw k 1 1\n~\nisValidScan\n",
        )
        .unwrap();
        let engine = Prepared::reference(Duration::from_secs(10));
        let mut check = spec(dir.path());
        let mut events = Count::default();
        let outcome = check.run(
            check.discover().unwrap(),
            &engine,
            vec!["isolation: test".into()],
            &mut events,
        );
        // No snapshot yet: a failure (exit 1), reported as it ran.
        assert_eq!(outcome.exit_code(), 1);
        assert_eq!((events.started, events.results), (Some(1), 1));
        assert_eq!(events.notes, ["isolation: test"]);
        assert_eq!(outcome.report().notes, ["isolation: test"]);
        check.mode = SnapshotMode::Accept;
        let accepted = check.run(check.discover().unwrap(), &engine, Vec::new(), &mut Silent);
        assert_eq!(accepted.exit_code(), 0);
        check.mode = SnapshotMode::Check;
        let again = check.run(check.discover().unwrap(), &engine, Vec::new(), &mut Silent);
        assert_eq!((again.exit_code(), again.summary.passed), (0, 1));
    }
}
