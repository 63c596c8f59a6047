//! `chessgrade explain SCENARIO`: one scenario, step by step, with the
//! boards before and after each step and the squares that matter marked.
//! The flags become the same subject spec and plan as `grade`'s; the
//! library (`grading::explain_one`) builds and walks it (the reference
//! engine when no subject is named; a console program command by
//! command). This file only prints the header lines and the rendering.

use super::args::{ConsoleArgs, LimitArgs, SnapshotArgs, SubjectArgs};
use super::emit::write_out;
use super::grade;
use chessgrade::explain::{
    Heading, RenderOptions, render, render_console, render_console_html, render_html,
};
use chessgrade::grading::{
    self, Expected, One, Plan, StaffError, SubjectSpec, Walked, explain_one,
};
use chessgrade::report::diagram::locale_is_utf8;
use chessgrade::report::{Palette, Style};
use chessgrade::snapshot::SnapshotStore;
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
    pub format: ExplainFormat,
    pub output: Option<PathBuf>,
    pub palette: Palette,
}

/// What `explain` writes (`--format`).
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExplainFormat {
    /// Text for the terminal, with board diagrams.
    Human,
    /// One self-contained HTML page, the boards as pictures.
    Html,
}

pub fn explain_cmd(a: &ExplainArgs) -> Result<u8, StaffError> {
    let one = One::load(&a.scenario, &a.snapshot.root, &a.snapshot.rules)?;
    if a.subject.engine.is_some() && a.console.forces_console() {
        return Err(StaffError::Usage(
            "a console program is explained with --submission DIR or --program PATH, not --engine"
                .into(),
        ));
    }
    grading::isolation_note(a.limits.require_isolation, &a.limits.disk())?;
    let what = grade::subject_spec(&a.subject, &a.console)?.unwrap_or(SubjectSpec::Reference);
    let store = SnapshotStore::new(&a.snapshot.snapshots);
    let options = grade::upload_options(&a.subject, &a.console, &a.limits)?;
    let plan = Plan::choose(std::slice::from_ref(&one.found), &store, &what, &options)?;
    let prepared = plan.prepare(&what)?;
    let walked = explain_one(&one, &store, &prepared)?;
    let rules = one.scenario.directives.rules.name;
    let mut out = String::new();
    match &walked {
        Walked::NotRun(message) => {
            outln!("{message}");
            return Ok(walked.exit_code());
        }
        Walked::Protocol { expected, .. } => {
            match expected {
                Expected::Snapshot { path, .. } => {
                    out += &format!("expected: {}\n", path.display());
                }
                Expected::Reference { .. } => {
                    out += &format!(
                        "expected: the reference engine (no snapshot for {})\n",
                        one.found.rel.display()
                    );
                }
            }
            out += &format!(
                "explaining {} ({rules} rules) with {}\n\n",
                a.scenario.display(),
                prepared.name
            );
        }
        Walked::Console(e) => {
            let course = e.dialect.name().to_uppercase();
            out += &format!(
                "expected: what the {course} program prints, worked out on the reference engine\n"
            );
            // What it was built with (the graders' Mystery.h, a memory
            // check); not where the build came from, which is no part of
            // the scenario's story.
            for note in prepared.built_with() {
                out += &format!("note: {note}\n");
            }
            out += &format!(
                "explaining {} ({rules} rules) with {}, the {course} console program\n\n",
                a.scenario.display(),
                prepared.name
            );
        }
    }
    let options = render_options(a);
    let rendered = match a.format {
        ExplainFormat::Human => match &walked {
            Walked::Protocol { explanation, .. } => render(explanation, options),
            Walked::Console(e) => render_console(e, options),
            Walked::NotRun(_) => Ok(String::new()),
        }
        .map(|walk| out + &walk),
        ExplainFormat::Html => {
            let intro: Vec<String> = out
                .lines()
                .filter(|l| !l.is_empty())
                .map(String::from)
                .collect();
            let title = format!("explain: {}", a.scenario.display());
            let heading = Heading {
                title: &title,
                intro: &intro,
            };
            match &walked {
                Walked::Protocol { explanation, .. } => render_html(explanation, &heading, options),
                Walked::Console(e) => render_console_html(e, &heading, options),
                Walked::NotRun(_) => Ok(String::new()),
            }
        }
    }
    .map_err(|msg| StaffError::Scenario(format!("{}: {msg}", a.scenario.display())))?;
    match &a.output {
        Some(path) => {
            write_out(Some(path), rendered.as_bytes()).map_err(|error| StaffError::Output {
                target: path.display().to_string(),
                error,
            })?
        }
        None => {
            let _ = std::io::stdout().lock().write_all(rendered.as_bytes());
        }
    }
    Ok(walked.exit_code())
}

fn render_options(a: &ExplainArgs) -> RenderOptions {
    RenderOptions {
        style: Style {
            // A file is plain, as every report file is.
            palette: if a.output.is_some() {
                Palette::PLAIN
            } else {
                a.palette
            },
            unicode: !a.ascii && locale_is_utf8(),
            width: terminal_width(),
            ..Style::default()
        },
        line: a.line,
        all: a.all,
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
