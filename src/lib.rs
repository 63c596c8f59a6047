//! chessgrade: run chess-lab scenarios against an exact reference engine or a
//! student submission, compare the traces with reviewed snapshots, and
//! report the first line where they part.
//!
//! Data flows one way: [`scenario`] parses a file → [`runner`] drives a
//! [`subject`] (the built-in [`engine`] or a submission) step by step →
//! [`trace`] records the answers → [`compare`] diffs them against the
//! [`snapshot`] → [`report`] prints. The binary is a thin CLI over this.

pub mod class;
pub mod compare;
pub mod console;
pub mod domain;
pub mod engine;
pub mod explain;
pub mod r#gen;
pub mod grading;
pub mod input;
pub mod memcheck;
pub mod package;
pub mod protocol;
pub mod report;
pub mod rulefile;
pub mod runner;
pub mod sandbox;
pub mod scenario;
pub mod shrink;
pub mod snapshot;
pub mod subject;
pub mod submission;
pub mod trace;
pub mod upload;

use std::path::Path;

/// The canonical trace of the scenario file at `path`, computed by the
/// built-in engine.
pub fn trace_file(path: &Path) -> Result<String, scenario::Diagnostic> {
    let scenario = scenario::load(path)?;
    let execution = runner::execute(&scenario, &mut subject::EngineSubject::new());
    Ok(execution.trace.render())
}
