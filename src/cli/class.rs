//! `chessgrade grade --class DIR`: the flags become the library's
//! `ClassSpec`; the library decides who the members are (and their names),
//! which shard, the scenarios and the class's one plan, and grades them
//! (`chessgrade::class`). Here we show progress, print the class table,
//! and write the per-submission reports (`--output-dir`) and the class
//! report (`--output`, human / json / html).
//!
//! With `--shard K/N` (or an engine's variables, which the library reads)
//! only the library's share of the members is graded, and the class
//! report is a slice that `merge` joins with the others ([`write_class`]
//! writes both).

use super::args::{
    ConsoleArgs, Format, LimitArgs, OutputArgs, ScenarioArgs, ShardArgs, SubjectArgs,
};
use super::batch;
use super::emit::{emit, write_out};
use chessgrade::class::{self, ClassOutcome, ClassRun, ClassSpec, Graded};
use chessgrade::grading::StaffError;
use chessgrade::report::sanitize::terminal;
use chessgrade::report::{ClassReport, Ink, Palette, html};
use chessgrade::runner::{SnapshotMode, Summary};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

/// Refuses a class report in a per-submission format (`--output` with
/// junit, gradescope, github, prairielearn or classroom).
pub fn check_format(format: Format, output: bool) -> Result<(), StaffError> {
    if format.per_member_only() && output {
        return Err(StaffError::Usage(format!(
            "a class report is human, json or html; write {} reports per submission with --output-dir",
            format.name()
        )));
    }
    Ok(())
}

/// `grade --class DIR`'s flags, and the run's colours.
pub struct ClassArgs {
    pub dir: std::path::PathBuf,
    pub scenarios: ScenarioArgs,
    pub shards: ShardArgs,
    pub subject: SubjectArgs,
    pub console: ConsoleArgs,
    pub limits: LimitArgs,
    pub output: OutputArgs,
    pub palette: Palette,
}

/// Grades the class the flags name: the library prepares and grades it;
/// here its header, each member as it finishes, the table, the files and
/// the time are shown.
pub fn grade_class(a: &ClassArgs) -> Result<u8, StaffError> {
    check_format(a.output.format, a.output.output.is_some())?;
    let started = Instant::now();
    let run = spec(a)?.prepare(|name| std::env::var(name).ok())?;
    announce(&run);
    let bar = batch::progress(run.members.len(), a.scenarios.quiet);
    let lines = Mutex::new(());
    let quiet = a.scenarios.quiet;
    let on_done = |g: &Graded| {
        if !quiet {
            let _guard = lines.lock();
            bar.suspend(|| outln!("{}", done_line(g, a.palette)));
        }
        bar.inc(1);
    };
    let outcome = run.grade(&on_done);
    bar.finish_and_clear();
    outln!("\n{}", terminal(&outcome.report.table()));
    for e in &outcome.staff_errors {
        eprintln!("error: {}", terminal(e));
    }
    write_reports(a, &outcome)?;
    // A regrade says how much it took from the build cache, on the
    // line a reader already discounts as the run's own (its time).
    let elapsed = started.elapsed().as_secs_f64();
    match outcome.from_cache {
        0 => outln!("graded in {elapsed:.1}s"),
        n => outln!(
            "graded in {elapsed:.1}s ({n} of {} builds from the build cache)",
            outcome.graded.len()
        ),
    }
    Ok(outcome.exit_code())
}

/// The library's class run these flags ask for.
fn spec(a: &ClassArgs) -> Result<ClassSpec, StaffError> {
    Ok(ClassSpec {
        dir: a.dir.clone(),
        batch: batch::spec(&a.scenarios, SnapshotMode::Check),
        options: super::grade::upload_options(&a.subject, &a.console, &a.limits)?,
        shard: a.shards.shard,
        shard_count: a.shards.shard_count,
        require_isolation: a.limits.require_isolation,
    })
}

/// What the run passed over and could not read (on stderr), then its
/// header: who is graded on what, how they are named, the isolation and
/// the memory check.
fn announce(run: &ClassRun) {
    for note in &run.skipped {
        eprintln!("note: {}", terminal(note));
    }
    for diag in &run.errors {
        eprintln!("error: {}", terminal(&diag.to_string()));
    }
    let kind = &run.kind;
    let dir = run.dir.display();
    match &run.shard {
        None => outln!(
            "grading {} {kind} submissions in {dir} on {} scenarios",
            run.members.len(),
            run.found.len()
        ),
        Some(s) => outln!(
            "grading shard {}/{}: {} of {} {kind} submissions in {dir} on {} scenarios\nshard from {}",
            s.index,
            s.count,
            run.members.len(),
            run.all.len(),
            run.found.len(),
            terminal(&s.origin()),
        ),
    }
    if let Some(naming) = run.naming.describe() {
        outln!("{naming}");
    }
    outln!("{}", run.isolation);
    if let Some(note) = &run.memcheck {
        outln!("{note}");
    }
}

/// The line for a member as it finishes: its points, what failed, its time.
fn done_line(g: &Graded, palette: Palette) -> String {
    let s = Summary::of(&g.results);
    let status = if s.failed + s.errors == 0 {
        palette.paint(" done", Ink::GOOD)
    } else {
        palette.paint(" done", Ink::NOTE)
    };
    format!(
        "{status} {}: {}/{} points, {} failed [{:.1}s]",
        terminal(&g.member.name),
        s.points,
        s.possible,
        s.failed + s.errors,
        g.elapsed.as_secs_f64()
    )
}

/// The per-submission reports (`--output-dir`) and the class report
/// (`--output`), and a line saying where the reports went.
fn write_reports(a: &ClassArgs, outcome: &ClassOutcome) -> Result<(), StaffError> {
    let graded = &outcome.graded;
    let wrote = write_class(
        &outcome.report,
        &format!("chessgrade: class {}", a.dir.display()),
        a.output.format,
        a.output.output.as_deref(),
        a.output.output_dir.as_deref(),
        |i, format, path| {
            let g = &graded[i];
            let summary = Summary::of(&g.results);
            emit(
                &outcome.report.submissions[i],
                format,
                Some(path),
                &g.results,
                &summary,
                a.palette,
            )
        },
    )?;
    if let Some(out_dir) = wrote {
        outln!("wrote {} reports to {}", graded.len(), out_dir.display());
    }
    Ok(())
}

/// Writes each submission's report into `output_dir` (when given) with
/// `member(i, format, path)`, then the class report in `format` (human:
/// the table; json; html titled `title`) to `output` (when given).
/// Returns the folder written to, if any.
pub fn write_class<'a>(
    class_report: &ClassReport,
    title: &str,
    format: Format,
    output: Option<&Path>,
    output_dir: Option<&'a Path>,
    member: impl Fn(usize, Format, &Path) -> std::io::Result<()>,
) -> Result<Option<&'a Path>, StaffError> {
    if let Some(out_dir) = output_dir {
        if let Err(error) = std::fs::create_dir_all(out_dir) {
            return Err(StaffError::Output {
                target: out_dir.display().to_string(),
                error,
            });
        }
        for (i, r) in class_report.submissions.iter().enumerate() {
            let path = out_dir.join(format!(
                "{}.{}",
                class::file_stem(&r.subject),
                extension(format)
            ));
            if let Err(error) = member(i, format, &path) {
                return Err(StaffError::Output {
                    target: path.display().to_string(),
                    error,
                });
            }
        }
    }
    if let Some(path) = output {
        write_out(
            Some(path),
            class_bytes(class_report, title, format).as_bytes(),
        )
        .map_err(|error| StaffError::Output {
            target: path.display().to_string(),
            error,
        })?;
    }
    Ok(output_dir)
}

/// The class report as text in `format` (json, html, else the table).
pub fn class_bytes(class_report: &ClassReport, title: &str, format: Format) -> String {
    match format {
        Format::Json => serde_json::to_string_pretty(class_report)
            .map(|mut s| {
                s.push('\n');
                s
            })
            .unwrap_or_default(),
        Format::Html => html::page(title, &class_report.submissions),
        _ => class_report.table(),
    }
}

/// The file extension of a member's report in `format` (`--output-dir`):
/// a classroom file holds the `result=` line a step appends to
/// `$GITHUB_OUTPUT`, hence `.out`.
pub fn extension(format: Format) -> &'static str {
    match format {
        Format::Human => "txt",
        Format::Json | Format::Gradescope | Format::Prairielearn => "json",
        Format::Junit => "xml",
        Format::Github => "log",
        Format::Html => "html",
        Format::Classroom => "out",
    }
}
