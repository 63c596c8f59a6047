//! The terminal side of a batch: flags become the library's
//! [`BatchSpec`], and the batch's events become lines on stdout under a
//! progress bar (on a terminal); then the recap, the summary and the
//! machine report. What runs and what it means is the library's
//! (`chessgrade::grading`); nothing here decides a verdict or an exit code
//! beyond "the output could not be written" (exit 2 naming the target; a
//! closed pipe under the human format only stops the output).

use super::args::{Format, OutputArgs, ScenarioArgs};
use super::emit::emit;
use chessgrade::grading::{BatchSpec, Discovered, Events, Prepared, StaffError};
use chessgrade::report::{HumanReporter, Palette};
use chessgrade::runner::{self, ScenarioResult, SnapshotMode};
use chessgrade::scenario::Diagnostic;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{ErrorKind, IsTerminal, Write};

/// The batch these flags ask for.
pub fn spec(args: &ScenarioArgs, mode: SnapshotMode) -> BatchSpec {
    BatchSpec {
        paths: args.paths.clone(),
        root: args.snapshot.root.clone(),
        snapshots: args.snapshot.snapshots.clone(),
        filters: args.filter.clone(),
        exact: args.exact,
        partition: args.partition,
        jobs: jobs(args),
        fail_fast: args.fail_fast,
        allow_empty: args.allow_empty,
        mode,
        caps: args.input.caps(),
        rules: args.snapshot.rules.clone(),
    }
}

/// `--list`: the selected scenario names, one a line; nothing runs.
pub fn list(args: &ScenarioArgs) -> Result<u8, StaffError> {
    let mut spec = spec(args, SnapshotMode::Check);
    spec.allow_empty = true;
    let d = spec.discover()?;
    let mut out = std::io::stdout().lock();
    for f in &d.found {
        if let Err(e) = writeln!(out, "{}", runner::name_of(f)) {
            if e.kind() == ErrorKind::BrokenPipe {
                break;
            }
            return Err(StaffError::Output {
                target: "stdout".into(),
                error: e,
            });
        }
    }
    for diag in &d.errors {
        eprintln!("error: {diag}");
    }
    Ok(if d.errors.is_empty() { 0 } else { 2 })
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

/// Where the human lines go: stdout until it fails. A closed pipe stops
/// them quietly; any other failure is remembered for exit 2.
struct Terminal<W: Write> {
    reporter: HumanReporter<W>,
    on: bool,
    error: Option<std::io::Error>,
    bar: ProgressBar,
    quiet: bool,
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

impl<W: Write> Events for Terminal<W> {
    fn note(&mut self, note: &str) {
        self.write(|r| r.note(note));
    }

    fn input_error(&mut self, diag: &Diagnostic) {
        self.write(|r| r.input_error(diag));
    }

    fn started(&mut self, count: usize) {
        if self.on {
            self.bar = progress(count, self.quiet);
        }
    }

    fn scenario(&mut self, result: &ScenarioResult) {
        let bar = self.bar.clone();
        bar.suspend(|| self.write(|t| t.scenario(result)));
        bar.inc(1);
    }
}

/// Runs the batch on `subject` and reports it: human lines as results
/// come (unless a machine format owns stdout), then the machine report.
/// The exit code is the outcome's, or 2 when an output could not be
/// written.
pub fn run_and_report(
    spec: &BatchSpec,
    discovered: Discovered,
    subject: &Prepared,
    notes: Vec<String>,
    quiet: bool,
    output: &OutputArgs,
    palette: Palette,
) -> Result<u8, StaffError> {
    // Human lines stream to stdout unless a machine format owns stdout.
    let human = output.format == Format::Human || output.output.is_some();
    let mut terminal = Terminal {
        reporter: HumanReporter::new(std::io::stdout().lock())
            .palette(palette)
            .timed(true)
            .quiet(quiet),
        on: human,
        error: None,
        bar: ProgressBar::hidden(),
        quiet,
    };
    let outcome = spec.run(discovered, subject, notes, &mut terminal);
    terminal.bar.finish_and_clear();
    terminal.write(|r| r.recap(&outcome.results));
    terminal.write(|r| r.not_run(outcome.not_run));
    terminal.write(|r| r.changes(&outcome.changes));
    terminal.write(|r| r.summary(&outcome.summary, outcome.elapsed));
    let mut terminal_error = terminal.error.take();
    let flush = terminal.on;
    drop(terminal);
    if flush
        && let Err(e) = std::io::stdout().flush()
        && e.kind() != ErrorKind::BrokenPipe
    {
        terminal_error.get_or_insert(e);
    }
    let mut code = outcome.exit_code();
    if outcome.summary.not_graded > 0 {
        eprintln!(
            "error: {} scenario(s) not graded: the grader itself ran short while they ran (the report says what); free it and grade again",
            outcome.summary.not_graded
        );
    }
    if let Some(e) = terminal_error {
        eprintln!("error: cannot write to stdout: {e}");
        code = 2;
    }
    if output.format != Format::Human || output.output.is_some() {
        let report = outcome.report();
        if let Err(error) = emit(
            &report,
            output.format,
            output.output.as_deref(),
            &outcome.results,
            &outcome.summary,
            palette,
        ) {
            let target = output
                .output
                .as_ref()
                .map_or("stdout".to_string(), |p| p.display().to_string());
            return Err(StaffError::Output { target, error });
        }
    }
    Ok(code)
}
