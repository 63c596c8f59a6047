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
use super::batch::{self, Discovered};
use super::emit::{emit, write_out};
use chessgrade::class::{self, ClassOptions, Graded, Uploads};
use chessgrade::console::{self as console_grading, ConsoleGrader};
use chessgrade::report::sanitize::terminal;
use chessgrade::report::{ClassReport, Report, html};
use chessgrade::runner::{SnapshotMode, Summary};
use chessgrade::snapshot::SnapshotStore;
use colored::Colorize;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub fn grade_class(
    dir: &Path,
    args: &ScenarioArgs,
    subject: &SubjectArgs,
    console: &ConsoleArgs,
    limit_args: &LimitArgs,
    output: &OutputArgs,
) -> u8 {
    if matches!(
        output.format,
        Format::Junit | Format::Gradescope | Format::Github
    ) && output.output.is_some()
    {
        eprintln!(
            "error: a class report is human, json or html; write {} reports per submission with --output-dir",
            match output.format {
                Format::Junit => "junit",
                Format::Gradescope => "gradescope",
                _ => "github",
            }
        );
        return 2;
    }
    let isolation = match limit_args.isolation() {
        Ok(line) => line,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let members = match class::members(dir) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let started = Instant::now();
    args.input.apply();
    let Discovered {
        found,
        errors,
        skipped,
        identity,
    } = batch::discover(args);
    for note in &skipped {
        eprintln!("note: {}", terminal(note));
    }
    for diag in &errors {
        eprintln!("error: {}", terminal(&diag.to_string()));
    }
    if found.is_empty() && errors.is_empty() && !args.allow_empty {
        eprintln!("error: no scenario selected for the class (pass --allow-empty to accept that)");
        return 2;
    }
    let store = SnapshotStore::new(&args.snapshot.snapshots);
    let uploads = if console.forces_console() || console_grading::wants_console(&found) {
        let mut options = match console.options(&subject.compiler, limit_args) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        };
        options.memcheck = subject.memcheck();
        match ConsoleGrader::new(&found, &store, options) {
            Ok(grader) => Uploads::Console(Arc::new(grader)),
            Err(e) => {
                for line in e.messages() {
                    eprintln!("error: {line}");
                }
                return 2;
            }
        }
    } else {
        Uploads::Lab3(subject.cpp_options(limit_args.compile_timeout()))
    };
    let kind = match &uploads {
        Uploads::Lab3(_) => "Lab 3".to_string(),
        Uploads::Console(g) => format!("{} console", g.dialect().name().to_uppercase()),
    };
    let opts = ClassOptions {
        uploads,
        limits: limit_args.limits(),
        jobs: batch::jobs(args),
        mode: SnapshotMode::Check,
        memcheck: subject.memcheck(),
    };
    println!(
        "grading {} {kind} submissions in {} on {} scenarios",
        members.len(),
        dir.display(),
        found.len()
    );
    println!("{isolation}");
    let memcheck_note = subject.memcheck_note();
    if let Some(note) = &memcheck_note {
        println!("{note}");
    }
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
            report.notes.extend(memcheck_note.clone());
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
        if let Err(e) = std::fs::create_dir_all(out_dir) {
            eprintln!("error: {}: {e}", out_dir.display());
            return 2;
        }
        for (g, r) in graded.iter().zip(&class_report.submissions) {
            let path = out_dir.join(format!("{}.{}", g.member.name, extension(output.format)));
            let summary = Summary::of(&g.results);
            if let Err(e) = emit(r, output.format, Some(&path), &g.results, &summary) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return 2;
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
        if let Err(e) = write_out(Some(path), bytes.as_bytes()) {
            eprintln!("error: cannot write the report: {e}");
            return 2;
        }
    }
    println!("graded in {:.1}s", started.elapsed().as_secs_f64());
    if !staff.is_empty() || !errors.is_empty() {
        2
    } else if class_report
        .submissions
        .iter()
        .any(|r| r.totals().failed + r.totals().errors > 0)
    {
        1
    } else {
        0
    }
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
