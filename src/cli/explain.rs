//! `chessgrade explain SCENARIO`: one scenario, step by step, with the
//! boards before and after each step and the squares that matter marked.
//! The subject is the reference engine (a student re-checks a snapshot),
//! a Lab 3 submission folder, or any protocol engine; the expected answers
//! are the scenario's snapshot, or the reference engine's trace when it has
//! none. A console program (a JHU or CUHK upload, or `--program`) is built
//! as `grade` builds it (`--overlay`, `--build`, the graders' Mystery.h)
//! and walked command by command by the library's `explain_console`.

use super::args::{ConsoleArgs, LimitArgs, SnapshotArgs, SubjectArgs};
use chessgrade::console::ConsoleGrader;
use chessgrade::explain::{
    ConsoleExplainError, RenderOptions, explain, explain_console, render, render_console,
};
use chessgrade::report::Style;
use chessgrade::report::diagram::locale_is_utf8;
use chessgrade::runner::{self, Found};
use chessgrade::scenario::Scenario;
use chessgrade::snapshot::SnapshotStore;
use chessgrade::subject::{EngineSubject, ProcessSubject, Subject};
use chessgrade::submission::{self, BuildError, UploadKind};
use std::io::Write;
use std::path::PathBuf;

pub struct ExplainArgs {
    pub scenario: PathBuf,
    pub subject: SubjectArgs,
    pub snapshot: SnapshotArgs,
    pub console: ConsoleArgs,
    pub limits: LimitArgs,
    pub line: Option<u32>,
    pub all: bool,
    pub ascii: bool,
}

pub fn explain_cmd(a: &ExplainArgs) -> u8 {
    let scenario = match chessgrade::scenario::load(&a.scenario) {
        Ok(s) => s,
        Err(diag) => {
            eprintln!("error: {diag}");
            return 2;
        }
    };
    let source = std::fs::read_to_string(&a.scenario).unwrap_or_default();
    // Expected answers: the snapshot, else the reference engine's trace.
    let (found, _) = runner::discover(std::slice::from_ref(&a.scenario), &a.snapshot.root);
    let Some(found) = found.into_iter().next() else {
        eprintln!("error: {}: not a scenario file", a.scenario.display());
        return 2;
    };
    // A console upload (or a console flag) is walked as its course runs it.
    let console_upload = a
        .subject
        .submission
        .as_deref()
        .is_some_and(|dir| submission::recognise(dir) == Some(UploadKind::Console));
    if a.console.forces_console() || console_upload {
        return explain_console_cmd(a, &scenario, &source, &found);
    }
    let store = SnapshotStore::new(&a.snapshot.snapshots);
    let expected = match store.load(&found.rel) {
        Ok(Some(snap)) => {
            println!("expected: {}", store.path_for(&found.rel).display());
            snap.body
        }
        Ok(None) => {
            println!(
                "expected: the reference engine (no snapshot for {})",
                found.rel.display()
            );
            let exec = runner::execute(&scenario, &mut EngineSubject::new());
            exec.trace.render()
        }
        Err(e) => {
            eprintln!(
                "error: {}: cannot read snapshot: {e}",
                store.path_for(&found.rel).display()
            );
            return 2;
        }
    };
    let limits = a.limits.limits();
    let (mut subject, name, _build): (Box<dyn Subject>, String, _) =
        match (&a.subject.submission, &a.subject.engine) {
            (Some(dir), _) => {
                let options = a.subject.cpp_options(a.limits.compile_timeout());
                match submission::build_cpp(dir, &options) {
                    Ok(build) => (
                        Box::new(ProcessSubject::new(build.command.clone(), limits)),
                        format!("submission {}", dir.display()),
                        Some(build),
                    ),
                    Err(BuildError::Compile(msg)) => {
                        println!("the submission did not compile:\n{msg}");
                        return 1;
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        return 2;
                    }
                }
            }
            (None, Some(engine)) => {
                let cmd =
                    match chessgrade::grading::engine_command(engine, a.subject.command.clone()) {
                        Ok(cmd) => cmd,
                        Err(e) => {
                            eprintln!("error: {e}");
                            return 2;
                        }
                    };
                let name = format!("engine {}", cmd.program.display());
                (Box::new(ProcessSubject::new(cmd, limits)), name, None)
            }
            (None, None) => (
                Box::new(EngineSubject::new()),
                "the reference engine".to_string(),
                None,
            ),
        };
    println!(
        "explaining {} ({} rules) with {name}\n",
        a.scenario.display(),
        scenario.directives.rules.name()
    );
    let e = explain(&scenario, &source, subject.as_mut(), &expected);
    match render(&e, render_options(a)) {
        Ok(text) => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            u8::from(e.first_mismatch().is_some())
        }
        Err(msg) => {
            eprintln!("error: {}: {msg}", a.scenario.display());
            2
        }
    }
}

fn render_options(a: &ExplainArgs) -> RenderOptions {
    RenderOptions {
        style: Style {
            unicode: !a.ascii && locale_is_utf8(),
            width: terminal_width(),
            ..Style::default()
        },
        line: a.line,
        all: a.all,
    }
}

/// A console program, built (or taken with `--program`) as `grade` does,
/// walked command by command. Staff-side problems (a scenario the course's
/// program cannot play, a missing program) are exit 2; an upload that does
/// not compile is the student's (exit 1, its message shown).
fn explain_console_cmd(a: &ExplainArgs, scenario: &Scenario, source: &str, found: &Found) -> u8 {
    if a.subject.engine.is_some() {
        eprintln!(
            "error: a console program is explained with --submission DIR or --program PATH, not --engine"
        );
        return 2;
    }
    if let Err(e) = chessgrade::grading::isolation_note(a.limits.require_isolation) {
        eprintln!("error: {e}");
        return 2;
    }
    let options = match a.console.options(&a.subject.compiler, &a.limits) {
        Ok(mut o) => {
            o.cache = a.subject.build_cache();
            o
        }
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let store = SnapshotStore::new(&a.snapshot.snapshots);
    let grader = match ConsoleGrader::new(std::slice::from_ref(found), &store, options) {
        Ok(g) => g,
        Err(e) => {
            for line in e.messages() {
                eprintln!("error: {line}");
            }
            return 2;
        }
    };
    let course = grader.dialect().name().to_uppercase();
    let (program, name, _build) = match (&a.subject.submission, &a.console.program) {
        (Some(dir), _) => match grader.build(dir) {
            Ok(build) => (
                build.program.clone(),
                format!("submission {}", dir.display()),
                Some(build),
            ),
            Err(BuildError::Compile(msg)) => {
                println!("the submission did not compile:\n{msg}");
                return 1;
            }
            // An existing folder that holds no console program is the
            // student's result, as in `grade`; a missing one the staff's.
            Err(e @ BuildError::NotRecognised(_)) if dir.is_dir() => {
                println!("{e}");
                return 1;
            }
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        },
        (None, Some(path)) => {
            let runnable = path.canonicalize().ok().filter(|p| {
                use std::os::unix::fs::PermissionsExt;
                p.metadata()
                    .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            });
            let Some(program) = runnable else {
                eprintln!(
                    "error: the program `{}` does not exist or is not executable",
                    path.display()
                );
                return 2;
            };
            (
                grader.program(program),
                format!("program {}", path.display()),
                None,
            )
        }
        (None, None) => {
            eprintln!("error: --build and --overlay build an upload: give --submission DIR");
            return 2;
        }
    };
    println!("expected: what the {course} program prints, worked out on the reference engine");
    if let Some(build) = &_build {
        for note in &build.notes {
            println!("note: {note}");
        }
    }
    println!(
        "explaining {} ({} rules) with {name}, the {course} console program\n",
        a.scenario.display(),
        scenario.directives.rules.name()
    );
    let e = match explain_console(scenario, source, &program, &grader.options().texts) {
        Ok(e) => e,
        Err(e @ ConsoleExplainError::Compile(_)) => {
            println!("{e}");
            return 1;
        }
        Err(e) => {
            eprintln!("error: {}: {e}", a.scenario.display());
            return 2;
        }
    };
    match render_console(&e, render_options(a)) {
        Ok(text) => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            u8::from(e.mismatch.is_some())
        }
        Err(msg) => {
            eprintln!("error: {}: {msg}", a.scenario.display());
            2
        }
    }
}

/// The terminal's width (`COLUMNS` wins; 100 when stdout is not a terminal).
fn terminal_width() -> usize {
    if let Some(w) = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()) {
        return w;
    }
    console::Term::stdout()
        .size_checked()
        .map_or(100, |(_, cols)| cols as usize)
}
