//! `chessgrade grade --class DIR`: every sub-folder of DIR is one
//! submission named after its folder. The scenarios decide what kind:
//! `@rules jhu`/`cuhk` scenarios (or a console flag: `--overlay`, `--build`,
//! `--program`) make a class of console programs, set up once by the
//! library's `ConsoleGrader` (a staff-side problem there is exit 2 before
//! any upload is built); anything else a class of Lab 3 uploads. The
//! library builds and grades the members in parallel (one job budget);
//! here we show progress, print the class table, and write the
//! per-submission reports (`--output-dir`) and the class report
//! (`--output`, human / json / html).

use super::args::{ConsoleArgs, Format, LimitArgs, OutputArgs, ScenarioArgs, SubjectArgs};
use super::batch;
use super::emit::{emit, write_out};
use chessgrade::class::{self, ClassOptions, Graded};
use chessgrade::grading::{self, Discovered, Plan, StaffError};
use chessgrade::report::sanitize::terminal;
use chessgrade::report::{ClassReport, Report, html};
use chessgrade::runner::{SnapshotMode, Summary};
use colored::Colorize;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

pub fn grade_class(
    dir: &Path,
    args: &ScenarioArgs,
    subject: &SubjectArgs,
    console: &ConsoleArgs,
    limit_args: &LimitArgs,
    output: &OutputArgs,
) -> Result<u8, StaffError> {
    if matches!(
        output.format,
        Format::Junit | Format::Gradescope | Format::Github
    ) && output.output.is_some()
    {
        return Err(StaffError::Usage(format!(
            "a class report is human, json or html; write {} reports per submission with --output-dir",
            match output.format {
                Format::Junit => "junit",
                Format::Gradescope => "gradescope",
                _ => "github",
            }
        )));
    }
    let isolation = grading::isolation_note(limit_args.require_isolation)?;
    let members = class::members(dir)?;
    let started = Instant::now();
    let spec = batch::spec(args, SnapshotMode::Check);
    let Discovered {
        found,
        errors,
        notes: skipped,
        identity,
    } = spec.discover().map_err(|e| match e {
        StaffError::NoScenario { notes, .. } => StaffError::NoScenario {
            message: "no scenario selected for the class (pass --allow-empty to accept that)"
                .into(),
            notes,
        },
        e => e,
    })?;
    for note in &skipped {
        eprintln!("note: {}", terminal(note));
    }
    for diag in &errors {
        eprintln!("error: {}", terminal(&diag.to_string()));
    }
    let store = spec.store();
    let options = super::grade::upload_options(subject, console, limit_args)?;
    let plan = Plan::for_uploads(&found, &store, &options)?;
    if plan.judges_on_snapshots() {
        spec.check_snapshots(&found)?;
    }
    let kind = plan.kind_name();
    let opts = ClassOptions {
        plan,
        jobs: spec.jobs,
        mode: SnapshotMode::Check,
    };
    println!(
        "grading {} {kind} submissions in {} on {} scenarios",
        members.len(),
        dir.display(),
        found.len()
    );
    println!("{isolation}");
    let bar = batch::progress(members.len(), args.quiet);
    let lines = Mutex::new(());
    let quiet = args.quiet;
    let on_done = |g: &Graded| {
        let s = Summary::of(&g.results);
        if !quiet {
            let _guard = lines.lock();
            let status = if s.failed + s.errors == 0 {
                " done".green().bold()
            } else {
                " done".yellow().bold()
            };
            bar.suspend(|| {
                println!(
                    "{status} {}: {}/{} points, {} failed [{:.1}s]",
                    terminal(&g.member.name),
                    s.points,
                    s.possible,
                    s.failed + s.errors,
                    g.elapsed.as_secs_f64()
                )
            });
        }
        bar.inc(1);
    };
    let graded = class::grade_class(&members, &found, &store, &opts, &on_done);
    bar.finish_and_clear();
    let reports: Vec<Report> = graded
        .iter()
        .map(|g| {
            let mut report = g.report(&identity);
            report.notes.push(isolation.clone());
            report
        })
        .collect();
    let class_report = ClassReport::new(reports);
    println!("\n{}", terminal(&class_report.table()));
    let staff: Vec<String> = graded
        .iter()
        .filter_map(|g| {
            g.staff_error
                .as_ref()
                .map(|e| format!("{}: {e}", terminal(&g.member.name)))
        })
        .collect();
    for e in &staff {
        eprintln!("error: {e}");
    }
    if let Some(out_dir) = &output.output_dir {
        if let Err(error) = std::fs::create_dir_all(out_dir) {
            return Err(StaffError::Output {
                target: out_dir.display().to_string(),
                error,
            });
        }
        for (g, r) in graded.iter().zip(&class_report.submissions) {
            let path = out_dir.join(format!("{}.{}", g.member.name, extension(output.format)));
            let summary = Summary::of(&g.results);
            if let Err(error) = emit(r, output.format, Some(&path), &g.results, &summary) {
                return Err(StaffError::Output {
                    target: path.display().to_string(),
                    error,
                });
            }
        }
        println!("wrote {} reports to {}", graded.len(), out_dir.display());
    }
    if let Some(path) = &output.output {
        let bytes = match output.format {
            Format::Json => serde_json::to_string_pretty(&class_report)
                .map(|mut s| {
                    s.push('\n');
                    s
                })
                .unwrap_or_default(),
            Format::Html => html::page(
                &format!("chessgrade: class {}", dir.display()),
                &class_report.submissions,
            ),
            _ => class_report.table(),
        };
        if let Err(error) = write_out(Some(path), bytes.as_bytes()) {
            return Err(StaffError::Output {
                target: path.display().to_string(),
                error,
            });
        }
    }
    println!("graded in {:.1}s", started.elapsed().as_secs_f64());
    Ok(class_report.exit_code(!staff.is_empty() || !errors.is_empty()))
}

fn extension(format: Format) -> &'static str {
    match format {
        Format::Human => "txt",
        Format::Json | Format::Gradescope => "json",
        Format::Junit => "xml",
        Format::Github => "log",
        Format::Html => "html",
    }
}
