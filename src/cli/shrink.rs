//! `chessgrade shrink`: build (or take) the submission once, shrink the
//! scenario against it, print the minimal scenario and its first mismatch.
//! The scenario is judged as `grade` and `explain` judge it: against its
//! snapshot (`--snapshots`, `--root`), else the reference engine.

use super::args::{LimitArgs, SnapshotArgs, SubjectArgs};
use chessgrade::compare::compare;
use chessgrade::report::HumanReporter;
use chessgrade::runner::{self, Found};
use chessgrade::scenario;
use chessgrade::shrink::{ShrinkError, Shrinker};
use chessgrade::snapshot::SnapshotStore;
use chessgrade::subject::{EngineCommand, EngineSubject, Limits, ProcessSubject};
use chessgrade::submission::{self, BuildError};
use std::path::Path;

/// What the scenario itself is judged against.
enum Expected {
    /// The reference engine's answers: no snapshot, or one that holds
    /// exactly the engine's answers (the same judgement).
    Engine,
    /// A snapshot the reference engine does not reproduce (a course's
    /// `.expected` trace, an older engine's snapshot).
    Snapshot(Found, SnapshotStore),
}

/// Finds the scenario's snapshot as `explain` does (its name relative to
/// `--root`, in `--snapshots`).
fn expected_answers(
    file: &Path,
    original: &scenario::Scenario,
    a: &SnapshotArgs,
) -> Result<Expected, String> {
    let (found, _) = runner::discover(std::slice::from_ref(&file.to_path_buf()), &a.root);
    let Some(found) = found.into_iter().next() else {
        return Err(format!("{}: not a scenario file", file.display()));
    };
    let store = SnapshotStore::new(&a.snapshots);
    let snap = store.load(&found.rel).map_err(|e| {
        format!(
            "{}: cannot read snapshot: {e}",
            store.path_for(&found.rel).display()
        )
    })?;
    let Some(snap) = snap else {
        return Ok(Expected::Engine);
    };
    let engine = runner::execute(original, &mut EngineSubject::new())
        .trace
        .render();
    if compare(&snap.body, &engine).is_none() {
        return Ok(Expected::Engine);
    }
    Ok(Expected::Snapshot(found, store))
}

pub fn run(
    file: &Path,
    subject: SubjectArgs,
    snapshot: &SnapshotArgs,
    limit_args: &LimitArgs,
    max_runs: usize,
    out: Option<&Path>,
) -> u8 {
    let original = match scenario::load(file) {
        Ok(s) => s,
        Err(d) => {
            eprintln!("{d}");
            return 2;
        }
    };
    let expected = match expected_answers(file, &original, snapshot) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let limits = limit_args.limits();
    // Built once; the build's folder lives until the end of the shrink.
    let (command, checker, _build) = match (&subject.submission, &subject.engine) {
        (Some(dir), _) => {
            match submission::build_cpp(dir, &subject.cpp_options(limit_args.compile_timeout())) {
                Ok(build) => (
                    build.command.clone(),
                    build.checker(subject.memcheck()),
                    build,
                ),
                Err(BuildError::Compile(msg)) => {
                    println!("the submission does not compile, so every scenario fails:\n{msg}");
                    return 1;
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return 2;
                }
            }
        }
        (None, Some(engine)) => {
            let cmd = match super::grade::engine_command(engine, subject.command) {
                Ok(cmd) => cmd,
                Err(e) => {
                    eprintln!("error: {e}");
                    return 2;
                }
            };
            return shrink_with(&original, &expected, cmd, limits, None, max_runs, out, file);
        }
        (None, None) => unreachable!("clap requires --submission or --engine"),
    };
    shrink_with(
        &original, &expected, command, limits, checker, max_runs, out, file,
    )
}

#[allow(clippy::too_many_arguments)]
fn shrink_with(
    original: &scenario::Scenario,
    expected: &Expected,
    command: EngineCommand,
    limits: Limits,
    checker: Option<chessgrade::memcheck::Checker>,
    max_runs: usize,
    out: Option<&Path>,
    file: &Path,
) -> u8 {
    let mut subject = ProcessSubject::new(command, limits).with_memcheck(checker);
    if let Expected::Snapshot(found, store) = expected {
        println!(
            "expected: {} (the reference engine answers otherwise; smaller scenarios are judged against it)",
            store.path_for(&found.rel).display()
        );
    }
    let shrunk = Shrinker::new(&mut subject, max_runs).and_then(|mut s| match expected {
        Expected::Engine => s.shrink(original),
        Expected::Snapshot(found, store) => s.shrink_found(original, found, store),
    });
    let shrunk = match shrunk {
        Ok(s) => s,
        Err(ShrinkError::Passes) => {
            println!("{}: {}", file.display(), ShrinkError::Passes);
            return 0;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let m = &shrunk.minimal;
    println!(
        "shrunk {} ({}): {} -> {} steps, {} -> {} placements, {}x{} -> {}x{} board, {} runs",
        file.display(),
        shrunk.signature,
        original.steps.len(),
        m.steps.len(),
        original.placements.len(),
        m.placements.len(),
        original.dims.rows(),
        original.dims.cols(),
        m.dims.rows(),
        m.dims.cols(),
        shrunk.runs
    );
    println!();
    print!("{}", shrunk.text);
    println!();
    let stdout = std::io::stdout();
    let _ = HumanReporter::new(stdout.lock()).scenario(&shrunk.result);
    if let Some(out) = out {
        if let Err(e) = std::fs::write(out, &shrunk.text) {
            eprintln!("error: cannot write {}: {e}", out.display());
            return 2;
        }
        println!("wrote {}", out.display());
    }
    1
}
