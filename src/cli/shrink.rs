//! `chessgrade shrink`: build (or take) the submission once, shrink the
//! scenario against it, print the minimal scenario and its first mismatch.

use super::args::{LimitArgs, SubjectArgs};
use chessgrade::report::HumanReporter;
use chessgrade::scenario;
use chessgrade::shrink::{ShrinkError, Shrinker};
use chessgrade::subject::{EngineCommand, Limits, ProcessSubject};
use chessgrade::submission::{self, BuildError};
use std::path::Path;

pub fn run(
    file: &Path,
    subject: SubjectArgs,
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
            let cmd = match super::grade::engine_command(engine, subject.command) {
                Ok(cmd) => cmd,
                Err(e) => {
                    eprintln!("error: {e}");
                    return 2;
                }
            };
            return shrink_with(&original, cmd, limits, max_runs, out, file);
        }
        (None, None) => unreachable!("clap requires --submission or --engine"),
    };
    shrink_with(&original, command, limits, max_runs, out, file)
}

fn shrink_with(
    original: &scenario::Scenario,
    command: EngineCommand,
    limits: Limits,
    max_runs: usize,
    out: Option<&Path>,
    file: &Path,
) -> u8 {
    let mut subject = ProcessSubject::new(command, limits);
    let shrunk = match Shrinker::new(&mut subject, max_runs).and_then(|mut s| s.shrink(original)) {
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
