//! `chessgrade explain SCENARIO`: one scenario, step by step, with the
//! boards before and after each step and the squares that matter marked.
//! The subject is the reference engine (a student re-checks a snapshot),
//! a Lab 3 submission folder, or any protocol engine; the expected answers
//! are the scenario's snapshot, or the reference engine's trace when it has
//! none.

use super::args::{SnapshotArgs, SubjectArgs};
use chessgrade::explain::{RenderOptions, explain, render};
use chessgrade::report::Style;
use chessgrade::report::diagram::locale_is_utf8;
use chessgrade::runner;
use chessgrade::snapshot::SnapshotStore;
use chessgrade::subject::{EngineSubject, Limits, ProcessSubject, Subject};
use chessgrade::submission::{self, BuildError};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

pub struct ExplainArgs {
    pub scenario: PathBuf,
    pub subject: SubjectArgs,
    pub snapshot: SnapshotArgs,
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
    let limits = Limits::default();
    let (mut subject, name, _build): (Box<dyn Subject>, String, _) =
        match (&a.subject.submission, &a.subject.engine) {
            (Some(dir), _) => {
                let options = a.subject.cpp_options(Duration::from_secs(300));
                match submission::build_cpp(dir, &options) {
                    Ok(build) => (
                        Box::new(
                            ProcessSubject::new(build.command.clone(), limits)
                                .with_memcheck(build.checker(a.subject.memcheck())),
                        ),
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
                let cmd = match super::grade::engine_command(engine, a.subject.command.clone()) {
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
    let opts = RenderOptions {
        style: Style {
            unicode: !a.ascii && locale_is_utf8(),
            width: terminal_width(),
            ..Style::default()
        },
        line: a.line,
        all: a.all,
    };
    match render(&e, opts) {
        Ok(text) => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            u8::from(e.fails())
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
