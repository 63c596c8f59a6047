//! `chessgrade grade`: build (or take) a submission, then run the batch
//! against it. A build the grader cannot even start, an engine that does
//! not exist, or a scenario the chosen subject cannot run is a staff-side
//! error (exit 2, before any scenario runs); a compile error, or a folder
//! that holds no upload of the kind graded, is the student's result,
//! reported once.
//!
//! Three kinds of subject: a Lab 3 upload (built with the adapter), an
//! engine speaking the protocol (`--engine`), and a console program (an
//! upload with a Makefile, CMakeLists.txt or `.cpp` files, or `--program`),
//! graded on its transcript by the course's dialect (`chessgrade::console`).
//! An upload is graded as what it looks like (a console program, or Lab 3
//! with `ChessBoard.hh`) unless the scenarios could not grade that kind at
//! all: a console upload on scenarios of no console course, or a Lab 3 (or
//! unrecognisable) upload on console scenarios only, is then graded as the
//! kind the scenarios want, and so is that student's "not recognised", not
//! a staff error (as in class mode).

use super::args::{ConsoleArgs, LimitArgs, OutputArgs, ScenarioArgs, SubjectArgs};
use super::batch::{Executor, discover, run_batch};
use chessgrade::console::ConsoleGrader;
use chessgrade::runner::{FailureKind, Found, SnapshotMode};
use chessgrade::snapshot::SnapshotStore;
use chessgrade::subject::{EngineCommand, ProcessSubject, Subject};
use chessgrade::submission::{self, BuildError, UploadKind};
use std::ffi::OsString;
use std::path::PathBuf;

pub fn grade(
    args: &ScenarioArgs,
    subject: &SubjectArgs,
    console: &ConsoleArgs,
    limit_args: &LimitArgs,
    output: &OutputArgs,
) -> u8 {
    let isolation = match limit_args.isolation() {
        Ok(line) => line,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let limits = limit_args.limits();
    if subject.engine.is_none() && (console.forces_console() || subject.submission.is_some()) {
        // The scenarios, walked once here, decide how an upload is graded
        // (see the module doc); a console run is handed them.
        args.input.apply();
        let found = discover(args).found;
        let console_upload = console.forces_console()
            || subject
                .submission
                .as_deref()
                .is_some_and(|dir| match submission::recognise(dir) {
                    Some(UploadKind::Console) => chessgrade::console::wants_console(&found),
                    Some(UploadKind::Lab3) | None => chessgrade::console::only_console(&found),
                });
        if console_upload {
            return grade_console(
                &found, args, subject, console, limit_args, output, isolation,
            );
        }
    }
    // Keep the build (and its temporary folder) alive for the whole run.
    let mut checker = None;
    let (command, name, notes, failed, _build) = match (&subject.submission, &subject.engine) {
        (Some(dir), _) => {
            let name = format!("submission {}", dir.display());
            let options = subject.cpp_options(limit_args.compile_timeout());
            let started = std::time::Instant::now();
            let built = submission::build_cpp(dir, &options);
            let compiled = format!(
                "compile: {:.2}s ({} {})",
                started.elapsed().as_secs_f64(),
                options.compiler,
                options.all_flags().join(" ")
            );
            match built {
                Ok(build) => {
                    let mut notes = build.notes.clone();
                    notes.push(compiled);
                    checker = build.checker(subject.memcheck());
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
                // A folder that is there but holds no Lab 3 upload is the
                // student's result (e.g. on Gradescope); a folder that is
                // not there is a staff-side mistake (exit 2, below).
                Err(e @ BuildError::NotRecognised(_)) if dir.is_dir() => (
                    None,
                    name,
                    vec![e.to_string()],
                    Some(FailureKind::NotRecognised(e.to_string())),
                    None,
                ),
                Err(e) => {
                    eprintln!("error: {e}");
                    return 2;
                }
            }
        }
        (None, Some(engine)) => {
            let cmd = match engine_command(engine, subject.command.clone()) {
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
    let mut notes = notes;
    notes.push(isolation);
    notes.extend(subject.memcheck_note());
    let make_subject = move || -> Box<dyn Subject> {
        let cmd = command.clone().unwrap_or(EngineCommand {
            program: PathBuf::from("/bin/false"),
            args: Vec::new(),
        });
        Box::new(ProcessSubject::new(cmd, limits.clone()).with_memcheck(checker.clone()))
    };
    run_batch(
        args,
        SnapshotMode::Check,
        output,
        &name,
        notes,
        Executor::Subjects(&make_subject),
        failed,
        subject.leak_points,
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
    which::which(program).ok()
}

/// Grades a console program: the library's [`ConsoleGrader`] checks every
/// scenario first and builds the shim (exit 2 with the reasons otherwise),
/// then the upload is built (or `--program` taken) and each scenario run on it.
fn grade_console(
    found: &[Found],
    args: &ScenarioArgs,
    subject: &SubjectArgs,
    console: &ConsoleArgs,
    limit_args: &LimitArgs,
    output: &OutputArgs,
    isolation: String,
) -> u8 {
    let mut options = match console.options(&subject.compiler, limit_args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    options.memcheck = subject.memcheck();
    if subject.submission.is_none()
        && options
            .memcheck
            .is_some_and(|m| m.tool == chessgrade::memcheck::Tool::Asan)
    {
        eprintln!(
            "error: --memcheck=asan needs the program built by the grader (--submission); a --program built elsewhere can be checked with --memcheck=valgrind"
        );
        return 2;
    }
    let store = SnapshotStore::new(&args.snapshot.snapshots);
    let grader = match ConsoleGrader::new(found, &store, options) {
        Ok(g) => g,
        Err(e) => {
            for line in e.messages() {
                eprintln!("error: {line}");
            }
            return 2;
        }
    };
    let mut notes = Vec::new();
    let mut failed = None;
    // Keeps the build's folder (and so the program) for the whole run.
    let mut _build = None;
    let (name, program) = match &subject.submission {
        Some(dir) => {
            let name = format!("submission {}", dir.display());
            match grader.build(dir) {
                Ok(build) => {
                    let program = build.program.clone();
                    _build = Some(build);
                    (name, program)
                }
                Err(BuildError::Compile(msg)) => {
                    // Reported once, here; each scenario only says it did not run.
                    notes.push(format!("the submission did not compile:\n{msg}"));
                    failed = Some(FailureKind::CompileError(
                        "(the compiler's message is reported once, above)".into(),
                    ));
                    (name, grader.program(PathBuf::from("/bin/false")))
                }
                // As for Lab 3: an existing folder without a console
                // program is the student's result, a missing one staff's.
                Err(e @ BuildError::NotRecognised(_)) if dir.is_dir() => {
                    notes.push(e.to_string());
                    failed = Some(FailureKind::NotRecognised(e.to_string()));
                    (name, grader.program(PathBuf::from("/bin/false")))
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return 2;
                }
            }
        }
        None => {
            let Some(path) = console.program.clone() else {
                eprintln!("error: give --submission DIR, --engine CMD or --program PATH");
                return 2;
            };
            let Some(program) = resolve(&path).and_then(|p| p.canonicalize().ok()) else {
                eprintln!(
                    "error: the program `{}` does not exist or is not executable",
                    path.display()
                );
                return 2;
            };
            (
                format!("program {}", path.display()),
                grader.program(program),
            )
        }
    };
    notes.push(isolation);
    notes.extend(subject.memcheck_note());
    let run = |f: &Found| grader.grade(f, &program);
    run_batch(
        args,
        SnapshotMode::Check,
        output,
        &name,
        notes,
        Executor::Each(&run),
        failed,
        subject.leak_points,
    )
}
