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
    (compiler, cflags): (&str, Option<&str>),
    limit_args: &LimitArgs,
    output: &OutputArgs,
) -> u8 {
    if !(limit_args.timeout.is_finite() && limit_args.timeout > 0.0) {
        eprintln!("error: --timeout must be a positive number of seconds");
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
            let mut options = submission::CppOptions::new(compiler, Duration::from_secs(300));
            if let Some(flags) = cflags {
                options.cflags = flags.split_whitespace().map(str::to_string).collect();
            }
            let started = std::time::Instant::now();
            let built = submission::build_cpp(&dir, &options);
            let compiled = format!(
                "compile: {:.2}s ({} {})",
                started.elapsed().as_secs_f64(),
                options.compiler,
                options.cflags.join(" ")
            );
            match built {
                Ok(build) => {
                    let mut notes = build.notes.clone();
                    notes.push(compiled);
                    (Some(build.command.clone()), name, notes, None, Some(build))
                }
                // Reported once, in the notes; each scenario names only the
                // first error, not 151 copies of the compiler's output.
                Err(BuildError::Compile(msg)) => {
                    let first = msg.lines().next().unwrap_or("").to_string();
                    (
                        None,
                        name,
                        vec![format!("compile error:\n{msg}"), compiled],
                        Some(FailureKind::CompileError(format!(
                            "{first}\n(the compiler's whole message is shown once, above the scenarios)"
                        ))),
                        None,
                    )
                }
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
