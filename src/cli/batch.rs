//! The shape every batch command shares: discover the scenarios, run them
//! against a subject (streaming each result to the terminal as it
//! completes), then write the machine report. `run` and `grade` differ only
//! in the subject they hand in.

use super::args::{Format, OutputArgs, ScenarioArgs};
use super::emit::emit;
use chessgrade::report::{HumanReporter, Report};
use chessgrade::runner::{self, FailureKind, Found, ScenarioResult, SnapshotMode, Summary};
use chessgrade::scenario::Diagnostic;
use chessgrade::snapshot::SnapshotStore;
use chessgrade::subject::Subject;
use std::time::Instant;

/// Discovers the scenarios of a run, keeping the partition's slice.
pub fn discover(args: &ScenarioArgs) -> (Vec<Found>, Vec<Diagnostic>) {
    let (found, errors) = runner::discover(&args.paths, &args.root);
    let found = match args.partition {
        Some(p) => found
            .into_iter()
            .enumerate()
            .filter(|(i, _)| p.contains(*i))
            .map(|(_, f)| f)
            .collect(),
        None => found,
    };
    (found, errors)
}

/// What runs each scenario: a subject judged on its trace (one per worker),
/// or a function that grades a whole scenario itself (a console program).
pub enum Executor<'a> {
    Subjects(&'a (dyn Fn() -> Box<dyn Subject> + Sync)),
    Each(&'a (dyn Fn(&Found) -> ScenarioResult + Sync)),
}

/// Runs a batch and reports it; `failed_build` marks every scenario failed
/// without running it (a submission that did not compile).
pub fn run_batch(
    args: &ScenarioArgs,
    mode: SnapshotMode,
    output: &OutputArgs,
    subject_name: &str,
    notes: Vec<String>,
    executor: Executor<'_>,
    failed_build: Option<FailureKind>,
) -> u8 {
    let started = Instant::now();
    let (found, errors) = discover(args);
    let store = SnapshotStore::new(&args.snapshots);
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // Human lines stream to stdout unless a machine format owns stdout.
    let human = output.format == Format::Human || output.output.is_some();
    let stdout = std::io::stdout();
    let mut reporter = HumanReporter::new(stdout.lock());
    if human {
        for note in &notes {
            let _ = reporter.note(note);
        }
        for diag in &errors {
            let _ = reporter.input_error(diag);
        }
    }
    // Results stream to the terminal in discovery order as they complete.
    let mut show = |r: &ScenarioResult| {
        if human {
            let _ = reporter.scenario(r);
        }
    };
    let results: Vec<ScenarioResult> = match &failed_build {
        Some(kind) => found
            .iter()
            .map(|f| runner::not_run(f, kind.clone()))
            .inspect(&mut show)
            .collect(),
        None => match executor {
            Executor::Subjects(make_subject) => {
                runner::run_all(&found, jobs, make_subject, &store, mode, show)
            }
            Executor::Each(run) => runner::run_pool(&found, jobs, &|| (), |_, f| run(f), show),
        },
    };
    let mut summary = Summary::of(&results);
    summary.errors += errors.len();
    if human {
        let _ = reporter.summary(&summary, started.elapsed());
    }
    drop(reporter);
    if output.format != Format::Human || output.output.is_some() {
        let partition = args.partition.map(|p| p.to_string());
        let mut notes = notes;
        notes.extend(errors.iter().map(|d| d.to_string()));
        let report = Report::new(
            subject_name,
            partition,
            started.elapsed().as_secs_f64(),
            notes,
            &results,
        );
        if let Err(e) = emit(
            &report,
            output.format,
            output.output.as_deref(),
            &results,
            &summary,
        ) {
            eprintln!("error: cannot write the report: {e}");
            return 2;
        }
    }
    summary.exit_code() as u8
}
