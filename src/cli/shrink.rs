//! `chessgrade shrink`: build (or take) the submission once, shrink the
//! scenario against it, print the minimal scenario and its first mismatch.
//! The scenario is judged as `grade` and `explain` judge it: against its
//! snapshot (`--snapshots`, `--root`), else the reference engine. A
//! console program (a JHU or CUHK upload, or `--program`) is built by the
//! library's `ConsoleGrader` and each candidate graded on it as `grade`
//! does; a candidate its course's program cannot play is skipped.

use super::args::{ConsoleArgs, LimitArgs, SnapshotArgs, SubjectArgs};
use chessgrade::compare::compare;
use chessgrade::console::{self, ConsoleGrader};
use chessgrade::report::HumanReporter;
use chessgrade::runner::{self, Found};
use chessgrade::scenario;
use chessgrade::shrink::{ShrinkError, Shrinker, Shrunk};
use chessgrade::snapshot::SnapshotStore;
use chessgrade::subject::{EngineCommand, EngineSubject, Limits, ProcessSubject};
use chessgrade::submission::{self, BuildError, UploadKind};
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
    console_args: &ConsoleArgs,
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
    let console_upload = subject
        .submission
        .as_deref()
        .is_some_and(|dir| submission::recognise(dir) == Some(UploadKind::Console));
    if console_args.forces_console() || console_upload {
        return shrink_console(
            file,
            &original,
            &subject,
            snapshot,
            limit_args,
            console_args,
            max_runs,
            out,
        );
    }
    let expected = match expected_answers(file, &original, snapshot) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let limits = limit_args.limits();
    // Built once; the build's folder lives until the end of the shrink.
    let (command, _build) = match (&subject.submission, &subject.engine) {
        (Some(dir), _) => {
            match submission::build_cpp(dir, &subject.cpp_options(limit_args.compile_timeout())) {
                Ok(build) => (build.command.clone(), build),
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
            let cmd = match chessgrade::grading::engine_command(engine, subject.command) {
                Ok(cmd) => cmd,
                Err(e) => {
                    eprintln!("error: {e}");
                    return 2;
                }
            };
            return shrink_with(&original, &expected, cmd, limits, max_runs, out, file);
        }
        (None, None) => unreachable!("clap requires --submission or --engine"),
    };
    shrink_with(&original, &expected, command, limits, max_runs, out, file)
}

fn shrink_with(
    original: &scenario::Scenario,
    expected: &Expected,
    command: EngineCommand,
    limits: Limits,
    max_runs: usize,
    out: Option<&Path>,
    file: &Path,
) -> u8 {
    let mut subject = ProcessSubject::new(command, limits);
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
    report(shrunk, original, out, file)
}

/// A console program, built once as `grade` builds it (or `--program`),
/// each candidate graded on it as `grade` grades it.
#[allow(clippy::too_many_arguments)]
fn shrink_console(
    file: &Path,
    original: &scenario::Scenario,
    subject: &SubjectArgs,
    snapshot: &SnapshotArgs,
    limit_args: &LimitArgs,
    console_args: &ConsoleArgs,
    max_runs: usize,
    out: Option<&Path>,
) -> u8 {
    if subject.engine.is_some() {
        eprintln!(
            "error: a console program is shrunk with --submission DIR or --program PATH, not --engine"
        );
        return 2;
    }
    let (found, _) = runner::discover(std::slice::from_ref(&file.to_path_buf()), &snapshot.root);
    let Some(found) = found.into_iter().next() else {
        eprintln!("error: {}: not a scenario file", file.display());
        return 2;
    };
    let options = match console_args.options(&subject.compiler, limit_args) {
        Ok(mut o) => {
            o.cache = subject.build_cache();
            o
        }
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let store = SnapshotStore::new(&snapshot.snapshots);
    let grader = match ConsoleGrader::new(std::slice::from_ref(&found), &store, options) {
        Ok(g) => g,
        Err(e) => {
            for line in e.messages() {
                eprintln!("error: {line}");
            }
            return 2;
        }
    };
    // Built once; the build's folders live until the end of the shrink.
    let (program, _build) = match (&subject.submission, &console_args.program) {
        (Some(dir), _) => match grader.build(dir) {
            Ok(build) => (build.program.clone(), Some(build)),
            Err(BuildError::Compile(msg)) => {
                println!("the submission does not compile, so every scenario fails:\n{msg}");
                return 1;
            }
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        },
        (None, Some(path)) => match path.canonicalize() {
            Ok(p) if p.is_file() => (grader.program(p), None),
            _ => {
                eprintln!(
                    "error: the program `{}` does not exist or is not executable",
                    path.display()
                );
                return 2;
            }
        },
        (None, None) => {
            eprintln!("error: --build and --overlay build an upload: give --submission DIR");
            return 2;
        }
    };
    let texts = grader.options().texts.clone();
    let judge = Box::new(
        |candidate: &scenario::Scenario, found: &Found, _: &SnapshotStore| {
            // The expected transcript is the reference's; a candidate the
            // course's program cannot play (another setup) is skipped.
            console::plan(candidate, &texts).ok()?;
            Some(grader.grade(found, &program))
        },
    );
    let shrunk = Shrinker::with_judge(judge, max_runs).and_then(|mut s| s.shrink(original));
    report(shrunk, original, out, file)
}

/// Prints the minimal scenario and its first mismatch (and writes it to
/// `out`): exit 1, or 0 when the scenario passes, 2 for a grader's error.
fn report(
    shrunk: Result<Shrunk, ShrinkError>,
    original: &scenario::Scenario,
    out: Option<&Path>,
    file: &Path,
) -> u8 {
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
