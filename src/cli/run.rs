//! `chessgrade run`: the bundled (or given) scenarios on the reference,
//! compared with their snapshots, optionally writing new ones. The
//! reference is the built-in engine, or the course's own program
//! (`--submission`, `--engine`: `grading::prepare_reference` builds it and
//! decides what it can record). It runs under `--timeout` per scenario; a
//! scenario it cannot finish or answer is an input error naming it (exit
//! 2), and the batch goes on.

use super::args::{ConsoleArgs, LimitArgs, OutputArgs, ScenarioArgs, SubjectArgs};
use super::{batch, grade};
use chessgrade::grading::{self, StaffError, SubjectSpec, prepare_reference};
use chessgrade::report::Palette;
use chessgrade::runner::SnapshotMode;

/// `run`'s flags.
pub struct RunArgs {
    pub scenarios: ScenarioArgs,
    pub update: bool,
    pub accept: bool,
    pub subject: SubjectArgs,
    pub console: ConsoleArgs,
    pub limits: LimitArgs,
    pub output: OutputArgs,
    pub palette: Palette,
}

pub fn run(a: &RunArgs) -> Result<u8, StaffError> {
    let mode = match (a.update, a.accept) {
        (_, true) => SnapshotMode::Accept,
        (true, _) => SnapshotMode::Propose,
        _ => SnapshotMode::Check,
    };
    let what = grade::subject_spec(&a.subject, &a.console)?.unwrap_or(SubjectSpec::Reference);
    // A course's program runs sandboxed, as a student's: the report says how.
    let notes = match what {
        SubjectSpec::Reference => Vec::new(),
        _ => vec![grading::isolation_note(
            a.limits.require_isolation,
            &a.limits.disk(),
        )?],
    };
    let spec = batch::spec(&a.scenarios, mode);
    let discovered = spec.discover()?;
    let options = grade::upload_options(&a.subject, &a.console, &a.limits)?;
    let reference = prepare_reference(&discovered.found, &what, &options)?;
    batch::run_and_report(
        &spec,
        discovered,
        &reference,
        notes,
        a.scenarios.quiet,
        &a.output,
        a.palette,
    )
}
