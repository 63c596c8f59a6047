//! `chessgrade run`: the bundled (or given) scenarios on the reference
//! engine, compared with their snapshots, optionally writing new ones.
//! The engine runs under `--timeout` per scenario; a scenario over it is an
//! input error located at the step it stopped in (exit 2), and the batch
//! goes on.

use super::args::{OutputArgs, ReferenceArgs, ScenarioArgs};
use super::batch::{Executor, run_batch_with};
use chessgrade::runner::{SnapshotMode, as_reference_result};
use chessgrade::subject::{EngineSubject, Subject};
use std::time::Duration;

pub fn run(
    scenarios: &ScenarioArgs,
    update: bool,
    accept: bool,
    reference: &ReferenceArgs,
    output: &OutputArgs,
) -> u8 {
    let mode = match (update, accept) {
        (_, true) => SnapshotMode::Accept,
        (true, _) => SnapshotMode::Propose,
        _ => SnapshotMode::Check,
    };
    let timeout = Duration::from_secs_f64(reference.timeout);
    let engine = move || Box::new(EngineSubject::with_timeout(timeout)) as Box<dyn Subject>;
    let secs = reference.timeout;
    run_batch_with(
        scenarios,
        mode,
        output,
        "reference engine",
        Vec::new(),
        Executor::Subjects(&engine),
        None,
        &|r| as_reference_result(r, secs),
        None,
    )
}
