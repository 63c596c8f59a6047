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
use chessgrade::class::{self, ClassSpec, Graded};
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

pub fn grade_class(a: &ClassArgs) -> Result<u8, StaffError> {
    let ClassArgs {
        dir,
        scenarios: args,
        shards,
        subject,
        console,
        limits: limit_args,
        output,
        palette,
    } = a;
    let palette = *palette;
    check_format(output.format, output.output.is_some())?;
    let started = Instant::now();
    let run = ClassSpec {
        dir: dir.clone(),
        batch: batch::spec(args, SnapshotMode::Check),
        options: super::grade::upload_options(subject, console, limit_args)?,
        shard: shards.shard,
        shard_count: shards.shard_count,
        require_isolation: limit_args.require_isolation,
    }
    .prepare(|name| std::env::var(name).ok())?;
    for note in &run.skipped {
        eprintln!("note: {}", terminal(note));
    }
    for diag in &run.errors {
        eprintln!("error: {}", terminal(&diag.to_string()));
    }
    let kind = &run.kind;
    match &run.shard {
        None => outln!(
            "grading {} {kind} submissions in {} on {} scenarios",
            run.members.len(),
            dir.display(),
            run.found.len()
        ),
        Some(s) => outln!(
            "grading shard {}/{}: {} of {} {kind} submissions in {} on {} scenarios\nshard from {}",
            s.index,
            s.count,
            run.members.len(),
            run.all.len(),
            dir.display(),
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
    let bar = batch::progress(run.members.len(), args.quiet);
    let lines = Mutex::new(());
    let quiet = args.quiet;
    let on_done = |g: &Graded| {
        let s = Summary::of(&g.results);
        if !quiet {
            let _guard = lines.lock();
            let status = if s.failed + s.errors == 0 {
                palette.paint(" done", Ink::GOOD)
            } else {
                palette.paint(" done", Ink::NOTE)
            };
            bar.suspend(|| {
                outln!(
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
    let outcome = run.grade(&on_done);
    bar.finish_and_clear();
    let class_report = &outcome.report;
    outln!("\n{}", terminal(&class_report.table()));
    for e in &outcome.staff_errors {
        eprintln!("error: {}", terminal(e));
    }
    let graded = &outcome.graded;
    let wrote = write_class(
        class_report,
        &format!("chessgrade: class {}", dir.display()),
        output.format,
        output.output.as_deref(),
        output.output_dir.as_deref(),
        |i, format, path| {
            let g = &graded[i];
            let summary = Summary::of(&g.results);
            emit(
                &class_report.submissions[i],
                format,
                Some(path),
                &g.results,
                &summary,
                palette,
            )
        },
    )?;
    if let Some(out_dir) = wrote {
        outln!("wrote {} reports to {}", graded.len(), out_dir.display());
    }
    // A regrade says how much it took from the build cache, on the
    // line a reader already discounts as the run's own (its time).
    let elapsed = started.elapsed().as_secs_f64();
    match outcome.from_cache {
        0 => outln!("graded in {elapsed:.1}s"),
        n => outln!(
            "graded in {elapsed:.1}s ({n} of {} builds from the build cache)",
            graded.len()
        ),
    }
    Ok(outcome.exit_code(!run.errors.is_empty()))
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
