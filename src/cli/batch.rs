//! The shape every batch command shares: discover and select the
//! scenarios, run them against a subject (streaming each result to the
//! terminal as it completes, under a progress bar on a terminal), then
//! recap the failures and write the machine report. `run` and `grade`
//! differ only in the subject they hand in.

use super::args::{Format, OutputArgs, ScenarioArgs};
use super::emit::emit;
use chessgrade::report::{HumanReporter, Report, RunIdentity};
use chessgrade::runner::{
    self, FailureKind, Found, ScenarioResult, Selection, SnapshotMode, Summary,
};
use chessgrade::scenario::Diagnostic;
use chessgrade::snapshot::SnapshotStore;
use chessgrade::subject::Subject;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::time::Instant;

/// The scenarios a run covers, and which run that is.
pub struct Discovered {
    /// The selected scenarios of this slice, in discovery order.
    pub found: Vec<Found>,
    pub errors: Vec<Diagnostic>,
    /// The identity of the whole selected run (before partitioning).
    pub identity: RunIdentity,
}

/// Discovers the scenarios of a run: the filters' selection, then the
/// partition's slice of it.
pub fn discover(args: &ScenarioArgs) -> Discovered {
    let (found, errors) = runner::discover(&args.paths, &args.root);
    let found = Selection::new(&args.filter, args.exact).apply(found);
    let names: Vec<String> = found.iter().map(runner::name_of).collect();
    let identity = RunIdentity::of(&names);
    let found = match args.partition {
        Some(p) => found
            .into_iter()
            .enumerate()
            .filter(|(i, _)| p.contains(*i))
            .map(|(_, f)| f)
            .collect(),
        None => found,
    };
    Discovered {
        found,
        errors,
        identity,
    }
}

/// `--list`: the selected scenario names, one a line; nothing runs.
pub fn list(args: &ScenarioArgs) -> u8 {
    let d = discover(args);
    let mut out = std::io::stdout().lock();
    for f in &d.found {
        let _ = writeln!(out, "{}", runner::name_of(f));
    }
    for diag in &d.errors {
        eprintln!("error: {diag}");
    }
    if d.errors.is_empty() { 0 } else { 2 }
}

/// The worker count: `--jobs`, or every core.
pub fn jobs(args: &ScenarioArgs) -> usize {
    args.jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// A progress bar on stderr when stdout is a terminal and not `--quiet`;
/// hidden otherwise (so pipes and CI logs stay clean).
pub fn progress(len: usize, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stdout().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    pb.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}

/// Runs a batch and reports it; `failed_build` marks every scenario failed
/// without running it (a submission that did not compile).
pub fn run_batch(
    args: &ScenarioArgs,
    mode: SnapshotMode,
    output: &OutputArgs,
    subject_name: &str,
    notes: Vec<String>,
    make_subject: &(dyn Fn() -> Box<dyn Subject> + Sync),
    failed_build: Option<FailureKind>,
) -> u8 {
    let started = Instant::now();
    let Discovered {
        found,
        errors,
        identity,
    } = discover(args);
    let store = SnapshotStore::new(&args.snapshots);
    // Human lines stream to stdout unless a machine format owns stdout.
    let human = output.format == Format::Human || output.output.is_some();
    let stdout = std::io::stdout();
    let mut reporter = HumanReporter::new(stdout.lock())
        .timed(true)
        .quiet(args.quiet);
    if human {
        for note in &notes {
            let _ = reporter.note(note);
        }
        for diag in &errors {
            let _ = reporter.input_error(diag);
        }
    }
    let bar = if human {
        progress(found.len(), args.quiet)
    } else {
        ProgressBar::hidden()
    };
    // Results stream to the terminal in discovery order as they complete.
    let mut show = |r: &ScenarioResult| {
        if human {
            bar.suspend(|| {
                let _ = reporter.scenario(r);
            });
        }
        bar.inc(1);
    };
    let results: Vec<ScenarioResult> = match &failed_build {
        Some(kind) => {
            let mut results = Vec::new();
            for f in &found {
                let r = runner::not_run(f, kind.clone());
                show(&r);
                let stop = args.fail_fast && r.is_failure();
                results.push(r);
                if stop {
                    break;
                }
            }
            results
        }
        None => runner::run_all_until(
            &found,
            jobs(args),
            make_subject,
            &store,
            mode,
            args.fail_fast,
            show,
        ),
    };
    bar.finish_and_clear();
    let mut summary = Summary::of(&results);
    summary.errors += errors.len();
    if human {
        let _ = reporter.recap(&results);
        let _ = reporter.not_run(found.len() - results.len());
        let _ = reporter.summary(&summary, started.elapsed());
    }
    drop(reporter);
    if output.format != Format::Human || output.output.is_some() {
        let partition = args.partition.map(|p| p.to_string());
        let mut notes = notes;
        notes.extend(errors.iter().map(|d| d.to_string()));
        if results.len() < found.len() {
            notes.push(format!(
                "{} scenarios not run (--fail-fast)",
                found.len() - results.len()
            ));
        }
        let report = Report::new(
            subject_name,
            partition,
            started.elapsed().as_secs_f64(),
            notes,
            &results,
        )
        .with_run(identity);
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
