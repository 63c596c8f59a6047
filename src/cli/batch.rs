//! The shape every batch command shares: discover and select the
//! scenarios, run them against a subject (streaming each result to the
//! terminal as it completes, under a progress bar on a terminal), then
//! recap the failures and write the machine report. `run` and `grade`
//! differ only in the subject they hand in (and `run` in how it reads a
//! subject failure: see `run_batch_with`).
//!
//! Before a run: stale temporary snapshot files of killed runs are removed
//! (noted), everything the folder walk skipped is noted, scenarios whose
//! snapshot names would clash are errors, and an empty selection is an
//! error unless `--allow-empty`. After it: an output that could not be
//! written is exit 2 naming the target (a closed pipe under the human
//! format only stops the output).

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
use std::io::{ErrorKind, IsTerminal, Write};
use std::time::Instant;

/// The scenarios a run covers, and which run that is.
pub struct Discovered {
    /// The selected scenarios of this slice, in discovery order.
    pub found: Vec<Found>,
    pub errors: Vec<Diagnostic>,
    /// Notes on what the folder walk skipped.
    pub skipped: Vec<String>,
    /// The identity of the whole selected run (before partitioning).
    pub identity: RunIdentity,
}

/// Discovers the scenarios of a run: the filters' selection, then the
/// partition's slice of it.
pub fn discover(args: &ScenarioArgs) -> Discovered {
    let walked = runner::walk(&args.paths, &args.snapshot.root);
    let found = Selection::new(&args.filter, args.exact).apply(walked.found);
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
        errors: walked.errors,
        skipped: walked.skipped,
        identity,
    }
}

/// `--list`: the selected scenario names, one a line; nothing runs.
pub fn list(args: &ScenarioArgs) -> u8 {
    let d = discover(args);
    let mut out = std::io::stdout().lock();
    for f in &d.found {
        if let Err(e) = writeln!(out, "{}", runner::name_of(f)) {
            if e.kind() == ErrorKind::BrokenPipe {
                break;
            }
            eprintln!("error: cannot write to stdout: {e}");
            return 2;
        }
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

/// What runs each scenario: a subject judged on its trace (one per worker),
/// or a function that grades a whole scenario itself (a console program).
pub enum Executor<'a> {
    Subjects(&'a (dyn Fn() -> Box<dyn Subject> + Sync)),
    Each(&'a (dyn Fn(&Found) -> ScenarioResult + Sync)),
}

/// Runs a batch and reports it; `failed_build` marks every scenario failed
/// without running it (a submission that did not compile); `leak_points`
/// adds the memory check's leak item (`--leak-points`).
#[allow(clippy::too_many_arguments)]
pub fn run_batch(
    args: &ScenarioArgs,
    mode: SnapshotMode,
    output: &OutputArgs,
    subject_name: &str,
    notes: Vec<String>,
    executor: Executor<'_>,
    failed_build: Option<FailureKind>,
    leak_points: Option<u32>,
) -> u8 {
    run_batch_with(
        args,
        mode,
        output,
        subject_name,
        notes,
        executor,
        failed_build,
        &|r| r,
        leak_points,
    )
}

/// Where the human lines go: stdout until it fails. A closed pipe stops
/// them quietly; any other failure is remembered for exit 2.
struct Terminal<W: Write> {
    reporter: HumanReporter<W>,
    on: bool,
    error: Option<std::io::Error>,
}

impl<W: Write> Terminal<W> {
    fn write(&mut self, f: impl FnOnce(&mut HumanReporter<W>) -> std::io::Result<()>) {
        if !self.on {
            return;
        }
        if let Err(e) = f(&mut self.reporter) {
            self.on = false;
            if e.kind() != ErrorKind::BrokenPipe {
                self.error = Some(e);
            }
        }
    }
}

/// [`run_batch`], with `adjust` applied to every result before it is shown
/// or counted (`run` turns a reference-engine timeout into an input error).
#[allow(clippy::too_many_arguments)]
pub fn run_batch_with(
    args: &ScenarioArgs,
    mode: SnapshotMode,
    output: &OutputArgs,
    subject_name: &str,
    mut notes: Vec<String>,
    executor: Executor<'_>,
    failed_build: Option<FailureKind>,
    adjust: &(dyn Fn(ScenarioResult) -> ScenarioResult + Sync),
    leak_points: Option<u32>,
) -> u8 {
    let started = Instant::now();
    args.input.apply();
    let store = SnapshotStore::new(&args.snapshot.snapshots);
    for removed in store.remove_stale_temp_files() {
        notes.push(format!(
            "removed {}: a temporary snapshot file left by an interrupted run",
            removed.display()
        ));
    }
    let Discovered {
        mut found,
        mut errors,
        skipped,
        identity,
    } = discover(args);
    notes.extend(skipped);
    // Two scenarios writing one snapshot would overwrite each other: run
    // neither's second.
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
    if found.is_empty() && errors.is_empty() && !args.allow_empty {
        let paths: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
        let (what, fix) = match args.partition {
            Some(p) => (
                format!("the slice {p} of "),
                "fewer slices, or --allow-empty",
            ),
            None => (String::new(), "--allow-empty to accept that"),
        };
        for note in &notes {
            eprintln!("note: {note}");
        }
        if args.filter.is_empty() {
            eprintln!(
                "error: no scenario selected: {what}{} has no *.txt scenario file (pass {fix})",
                paths.join(", ")
            );
        } else {
            eprintln!(
                "error: no scenario selected: {what}no scenario of {} matches --filter {} (pass {fix})",
                paths.join(", "),
                args.filter.join(", --filter ")
            );
        }
        return 2;
    }
    let jobs = jobs(args);
    // Human lines stream to stdout unless a machine format owns stdout.
    let human = output.format == Format::Human || output.output.is_some();
    let mut terminal = Terminal {
        reporter: HumanReporter::new(std::io::stdout().lock())
            .timed(true)
            .quiet(args.quiet),
        on: human,
        error: None,
    };
    for note in &notes {
        terminal.write(|r| r.note(note));
    }
    for diag in &errors {
        terminal.write(|r| r.input_error(diag));
    }
    let bar = if human {
        progress(found.len(), args.quiet)
    } else {
        ProgressBar::hidden()
    };
    // Results stream to the terminal in discovery order as they complete.
    let mut show = |r: &ScenarioResult| {
        let shown = adjust(r.clone());
        bar.suspend(|| terminal.write(|t| t.scenario(&shown)));
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
        None => match executor {
            Executor::Subjects(make_subject) => runner::run_all_until(
                &found,
                jobs,
                make_subject,
                &store,
                mode,
                args.fail_fast,
                show,
            ),
            Executor::Each(run) => {
                runner::run_pool(&found, jobs, &|| (), |_, f| run(f), args.fail_fast, show)
            }
        },
    };
    bar.finish_and_clear();
    let mut results: Vec<ScenarioResult> = results.into_iter().map(adjust).collect();
    let not_run = found.len().saturating_sub(results.len());
    // The memory check's leak item, after every scenario it grades.
    if let Some(points) = leak_points {
        let item = chessgrade::memcheck::leak_item(&results, points).or_else(|| {
            failed_build
                .clone()
                .map(|kind| chessgrade::memcheck::leak_item_not_run(kind, points))
        });
        if let Some(item) = item {
            terminal.write(|t| t.scenario(&item));
            results.push(item);
        }
    }
    let mut summary = Summary::of(&results);
    summary.errors += errors.len();
    terminal.write(|r| r.recap(&results));
    terminal.write(|r| r.not_run(not_run));
    terminal.write(|r| r.summary(&summary, started.elapsed()));
    let mut terminal_error = terminal.error.take();
    let flush = terminal.on;
    drop(terminal);
    if flush
        && let Err(e) = std::io::stdout().flush()
        && e.kind() != ErrorKind::BrokenPipe
    {
        terminal_error.get_or_insert(e);
    }
    let mut code = summary.exit_code() as u8;
    if let Some(e) = terminal_error {
        eprintln!("error: cannot write to stdout: {e}");
        code = 2;
    }
    if output.format != Format::Human || output.output.is_some() {
        let partition = args.partition.map(|p| p.to_string());
        notes.extend(errors.iter().map(|d| d.to_string()));
        if not_run > 0 {
            notes.push(format!("{not_run} scenarios not run (--fail-fast)"));
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
            let target = output
                .output
                .as_ref()
                .map_or("stdout".to_string(), |p| p.display().to_string());
            eprintln!("error: cannot write the report to {target}: {e}");
            return 2;
        }
    }
    code
}
