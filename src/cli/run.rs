//! `chessgrade run`: the bundled (or given) scenarios on the reference
//! engine, compared with their snapshots, optionally writing new ones.
//! The engine runs under `--timeout` per scenario; a scenario over it is an
//! input error located at the step it stopped in (exit 2), and the batch
//! goes on.

use super::args::{OutputArgs, ReferenceArgs, ScenarioArgs};
use super::batch;
use chessgrade::grading::{Prepared, StaffError};
use chessgrade::report::Palette;
use chessgrade::runner::SnapshotMode;
use std::time::Duration;

pub fn run(
    scenarios: &ScenarioArgs,
    update: bool,
    accept: bool,
    reference: &ReferenceArgs,
    output: &OutputArgs,
    palette: Palette,
) -> Result<u8, StaffError> {
    let mode = match (update, accept) {
        (_, true) => SnapshotMode::Accept,
        (true, _) => SnapshotMode::Propose,
        _ => SnapshotMode::Check,
    };
    let spec = batch::spec(scenarios, mode);
    let discovered = spec.discover()?;
    let engine = Prepared::reference(Duration::from_secs_f64(reference.timeout));
    batch::run_and_report(
        &spec,
        discovered,
        &engine,
        Vec::new(),
        scenarios.quiet,
        output,
        palette,
    )
}
