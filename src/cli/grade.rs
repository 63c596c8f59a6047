//! `chessgrade grade`: build (or take) a submission, then run the batch
//! against it. A build the grader cannot even start is a staff-side error
//! (exit 2); a compile error is the student's result.

use super::args::{LimitArgs, OutputArgs, ScenarioArgs};
use super::batch::run_batch;
use chessgrade::runner::{FailureKind, SnapshotMode};
use chessgrade::subject::{EngineCommand, Limits, ProcessSubject, Subject};
use chessgrade::submission::{self, BuildError};
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

pub fn grade(
    args: &ScenarioArgs,
    submission: Option<PathBuf>,
    engine: Option<Vec<OsString>>,
    compiler: &str,
    limit_args: &LimitArgs,
    output: &OutputArgs,
) -> u8 {
    if !(limit_args.timeout.is_finite() && limit_args.timeout > 0.0) {
        eprintln!("error: --timeout must be a positive number of seconds");
        return 2;
    }
    let compile_timeout = limit_args.compile_timeout;
    if !(compile_timeout.is_finite() && compile_timeout > 0.0 && compile_timeout <= 86_400.0) {
        eprintln!("error: --compile-timeout must be a number of seconds in (0, 86400]");
        return 2;
    }
    let limits = Limits {
        timeout: Duration::from_secs_f64(limit_args.timeout),
        cpu_seconds: limit_args.cpu.max(1),
        memory_bytes: limit_args.memory_mb.saturating_mul(1 << 20),
        max_output_bytes: limit_args.max_output_mb.saturating_mul(1 << 20),
        ..Limits::default()
    };
    // Keep the build (and its temporary folder) alive for the whole run.
    let (command, name, notes, failed, _build) = match (submission, engine) {
        (Some(dir), _) => {
            let name = format!("submission {}", dir.display());
            match submission::build_cpp(&dir, compiler, Duration::from_secs_f64(compile_timeout)) {
                Ok(build) => (
                    Some(build.command.clone()),
                    name,
                    build.notes.clone(),
                    None,
                    Some(build),
                ),
                Err(BuildError::Compile(msg)) => (
                    None,
                    name,
                    Vec::new(),
                    Some(FailureKind::CompileError(msg)),
                    None,
                ),
                Err(e) => {
                    eprintln!("error: {e}");
                    return 2;
                }
            }
        }
        (None, Some(argv)) => {
            let mut argv = argv.into_iter();
            let program = PathBuf::from(argv.next().expect("clap requires one value"));
            let name = format!("engine {}", program.display());
            let cmd = EngineCommand {
                program,
                args: argv.collect(),
            };
            (Some(cmd), name, Vec::new(), None, None)
        }
        (None, None) => unreachable!("clap requires --submission or --engine"),
    };
    let make_subject = move || -> Box<dyn Subject> {
        let cmd = command.clone().unwrap_or(EngineCommand {
            program: PathBuf::from("/bin/false"),
            args: Vec::new(),
        });
        Box::new(ProcessSubject::new(cmd, limits.clone()))
    };
    run_batch(
        args,
        SnapshotMode::Check,
        output,
        &name,
        notes,
        &make_subject,
        failed,
    )
}
