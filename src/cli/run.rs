//! `chessgrade run`: the bundled (or given) scenarios on the reference
//! engine, compared with their snapshots, optionally writing new ones.

use super::args::{OutputArgs, ScenarioArgs};
use super::batch::{Executor, run_batch};
use chessgrade::runner::SnapshotMode;
use chessgrade::subject::{EngineSubject, Subject};

pub fn run(scenarios: &ScenarioArgs, update: bool, accept: bool, output: &OutputArgs) -> u8 {
    let mode = match (update, accept) {
        (_, true) => SnapshotMode::Accept,
        (true, _) => SnapshotMode::Propose,
        _ => SnapshotMode::Check,
    };
    let engine = || Box::new(EngineSubject::new()) as Box<dyn Subject>;
    run_batch(
        scenarios,
        mode,
        output,
        "reference engine",
        Vec::new(),
        Executor::Subjects(&engine),
        None,
    )
}
