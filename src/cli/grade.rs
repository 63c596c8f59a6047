//! `chessgrade grade`: build (or take) a submission, then run the batch
//! against it. A build the grader cannot even start, an engine that does
//! not exist, or a scenario the chosen subject cannot run is a staff-side
//! error (exit 2, before any scenario runs); a compile error is the
//! student's result, reported once.
//!
//! Three kinds of subject: a Lab 3 upload (built with the adapter), an
//! engine speaking the protocol (`--engine`), and a console program (an
//! upload with a Makefile, CMakeLists.txt or `.cpp` files, or `--program`),
//! graded on its transcript by the course's dialect (`chessgrade::console`).

use super::args::{LimitArgs, OutputArgs, ScenarioArgs};
use super::batch::{Executor, discover, run_batch};
use chessgrade::console::{self, ConsoleProgram, Dialect, Texts};
use chessgrade::runner::{FailureKind, SnapshotMode};
use chessgrade::snapshot::SnapshotStore;
use chessgrade::subject::{EngineCommand, Limits, ProcessSubject, Subject};
use chessgrade::submission::{self, BuildError, ConsoleBuild, UploadKind};
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// What to grade, as given on the command line.
pub struct Target {
    pub submission: Option<PathBuf>,
    /// `--engine`'s one argument (empty when the command follows `--`).
    pub engine: Option<String>,
    /// The command after `--`.
    pub command: Vec<OsString>,
    pub program: Option<PathBuf>,
    pub build: Option<String>,
    pub overlay: Option<PathBuf>,
    pub console_texts: Option<PathBuf>,
}

pub fn grade(
    args: &ScenarioArgs,
    target: Target,
    (compiler, cflags): (&str, Option<&str>),
    limit_args: &LimitArgs,
    output: &OutputArgs,
) -> u8 {
    let limits = limit_args.limits();
    let console_upload = target.program.is_some()
        || target.build.is_some()
        || target.overlay.is_some()
        || target
            .submission
            .as_deref()
            .is_some_and(|d| submission::recognise(d) == Some(UploadKind::Console));
    if target.engine.is_none() && console_upload {
        let build_timeout = limit_args.compile_timeout();
        return grade_console(args, &target, compiler, limits, build_timeout, output);
    }
    // Keep the build (and its temporary folder) alive for the whole run.
    let (command, name, notes, failed, _build) = match (target.submission, target.engine) {
        (Some(dir), _) => {
            let name = format!("submission {}", dir.display());
            let mut options = submission::CppOptions::new(compiler, limit_args.compile_timeout());
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
        (None, Some(engine)) => {
            let cmd = match engine_command(&engine, target.command) {
                Ok(cmd) => cmd,
                Err(e) => {
                    eprintln!("error: {e}");
                    return 2;
                }
            };
            let name = format!("engine {}", cmd.program.display());
            (Some(cmd), name, Vec::new(), None, None)
        }
        (None, None) => {
            eprintln!("error: give --submission DIR, --engine CMD or --program PATH");
            return 2;
        }
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
        Executor::Subjects(&make_subject),
        failed,
    )
}

/// The engine's argv: `--engine "prog a b"` (split at whitespace, no
/// shell) or `--engine -- prog a b`. The program must exist: a missing
/// engine is a staff-side error, not every scenario failing.
pub(super) fn engine_command(one: &str, after: Vec<OsString>) -> Result<EngineCommand, String> {
    let mut argv: Vec<OsString> = one.split_whitespace().map(OsString::from).collect();
    argv.extend(after);
    if argv.is_empty() {
        return Err("--engine needs a command: --engine CMD or --engine -- CMD ARGS...".into());
    }
    let named = PathBuf::from(argv.remove(0));
    let Some(found) = resolve(&named) else {
        return Err(format!(
            "the engine `{}` does not exist or is not executable",
            named.display()
        ));
    };
    // A bare name stays as named (found on PATH again, and shown so).
    let program = match named.components().count() {
        1 => named,
        _ => found,
    };
    // The engine runs in an empty temporary folder: a relative program, or
    // an argument naming an existing file here (`python3 engine.py`), is
    // made absolute so that it means what it meant on the command line.
    let args = argv
        .into_iter()
        .map(|arg| {
            let path = std::path::Path::new(&arg);
            match path.is_relative() && path.exists() {
                true => std::path::absolute(path).map_or(arg, PathBuf::into_os_string),
                false => arg,
            }
        })
        .collect();
    Ok(EngineCommand { program, args })
}

/// The executable a program name runs: a path as is, a bare name on PATH.
fn resolve(program: &std::path::Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &std::path::Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.components().count() > 1 {
        return runnable(program).then(|| std::path::absolute(program).ok())?;
    }
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(program))
        .find(|p| runnable(p))
}

/// Grades a console program: every scenario is checked gradable first
/// (exit 2 with the reasons otherwise), then the upload is built (or
/// `--program` taken), the shim compiled, and each scenario run on it.
fn grade_console(
    args: &ScenarioArgs,
    target: &Target,
    compiler: &str,
    limits: Limits,
    build_timeout: Duration,
    output: &OutputArgs,
) -> u8 {
    let texts = match &target.console_texts {
        Some(path) => match Texts::load(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: --console-texts {e}");
                return 2;
            }
        },
        None => Texts::default(),
    };
    // Everything a staff member can get wrong, before anything runs.
    let found = discover(args).found;
    let store = SnapshotStore::new(&args.snapshots);
    let mut problems = Vec::new();
    let mut dialects = Vec::new();
    for f in &found {
        match console::check_gradable(f, &texts, &store) {
            Ok(plan) => {
                if !dialects.contains(&plan.dialect) {
                    dialects.push(plan.dialect);
                }
            }
            Err(e) => problems.push(e),
        }
    }
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("error: {p}");
        }
        eprintln!(
            "error: {} scenario(s) cannot be graded on a console program; nothing was run",
            problems.len()
        );
        return 2;
    }
    let dialect = match dialects.as_slice() {
        [d] => *d,
        [] => Dialect::Jhu,
        _ => {
            eprintln!(
                "error: the scenarios mix console dialects (jhu and cuhk): grade one course's program at a time"
            );
            return 2;
        }
    };
    let (binary, cxx_flags) = match dialect {
        Dialect::Jhu => (&texts.jhu.binary, &texts.jhu.cxx_flags),
        Dialect::Cuhk => (&texts.cuhk.binary, &texts.cuhk.cxx_flags),
    };
    let work = match tempfile::Builder::new()
        .prefix("chessgrade-console-")
        .tempdir()
    {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: cannot make a temporary folder: {e}");
            return 2;
        }
    };
    let env = match console::build_shim(work.path(), "gcc") {
        Ok(env) => env,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let mut notes = Vec::new();
    let mut failed = None;
    let mut _build = None;
    let (name, program) = match &target.submission {
        Some(dir) => {
            let name = format!("submission {}", dir.display());
            let binary = target
                .program
                .as_deref()
                .map_or(binary.clone(), |p| p.display().to_string());
            let how = ConsoleBuild {
                binary: &binary,
                compiler,
                cxx_flags,
                command: target.build.as_deref(),
                overlay: target.overlay.as_deref(),
                timeout: build_timeout,
            };
            match submission::build_console(dir, &how) {
                Ok(build) => {
                    let program = build.command.program.clone();
                    _build = Some(build);
                    (name, program)
                }
                Err(BuildError::Compile(msg)) => {
                    // Reported once, here; each scenario only says it did not run.
                    notes.push(format!("the submission did not compile:\n{msg}"));
                    failed = Some(FailureKind::CompileError(
                        "(the compiler's message is reported once, above)".into(),
                    ));
                    (name, PathBuf::from("/bin/false"))
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return 2;
                }
            }
        }
        None => {
            let path = target
                .program
                .clone()
                .expect("console grading has a program");
            let Some(program) = resolve(&path).and_then(|p| p.canonicalize().ok()) else {
                eprintln!(
                    "error: the program `{}` does not exist or is not executable",
                    path.display()
                );
                return 2;
            };
            (format!("program {}", path.display()), program)
        }
    };
    let program = ConsoleProgram {
        command: EngineCommand {
            program,
            args: Vec::new(),
        },
        limits,
        env,
    };
    let run = |f: &chessgrade::runner::Found| console::grade_scenario(f, &program, &texts);
    run_batch(
        args,
        SnapshotMode::Check,
        output,
        &name,
        notes,
        Executor::Each(&run),
        failed,
    )
}
