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
use chessgrade::class::{self, ClassOptions, Graded, shard};
use chessgrade::grading::{self, Discovered, Plan, StaffError};
use chessgrade::report::sanitize::terminal;
use chessgrade::report::{ClassIdentity, ClassReport, Ink, Palette, Report, SliceInfo, html};
use chessgrade::runner::{SnapshotMode, Summary};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

/// Refuses a class report in a per-submission format (`--output` with
/// junit, gradescope or github).
pub fn check_format(format: Format, output: bool) -> Result<(), StaffError> {
    if matches!(format, Format::Junit | Format::Gradescope | Format::Github) && output {
        return Err(StaffError::Usage(format!(
            "a class report is human, json or html; write {} reports per submission with --output-dir",
            match format {
                Format::Junit => "junit",
                Format::Gradescope => "gradescope",
                _ => "github",
            }
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
    let isolation = grading::isolation_note(limit_args.require_isolation, &limit_args.disk())?;
    let all = class::members(dir)?;
    let shard = shard::detect(shards.shard, shards.shard_count, |name| {
        std::env::var(name).ok()
    })
    .map_err(|e| StaffError::Usage(format!("cannot tell which shard to grade: {e}")))?;
    if shard.is_some() && args.partition.is_some() {
        return Err(StaffError::Usage(
            "a class in shards splits its members, --partition a run's scenarios: give only one"
                .into(),
        ));
    }
    let members = match &shard {
        Some(s) => shard::select(&all, s),
        None => all.clone(),
    };
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
    let memcheck_note = plan.memcheck_note();
    let opts = ClassOptions {
        plan,
        jobs: spec.jobs,
        mode: SnapshotMode::Check,
    };
    match &shard {
        None => outln!(
            "grading {} {kind} submissions in {} on {} scenarios",
            members.len(),
            dir.display(),
            found.len()
        ),
        Some(s) => outln!(
            "grading shard {}/{}: {} of {} {kind} submissions in {} on {} scenarios\nshard from {}",
            s.index,
            s.count,
            members.len(),
            all.len(),
            dir.display(),
            found.len(),
            terminal(&s.origin()),
        ),
    }
    outln!("{isolation}");
    if let Some(note) = &memcheck_note {
        outln!("{note}");
    }
    let bar = batch::progress(members.len(), args.quiet);
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
    let names: Vec<&str> = all.iter().map(|m| m.name.as_str()).collect();
    let mut class_report =
        ClassReport::new(reports).with_identity(ClassIdentity::of(&names), identity);
    if let Some(s) = &shard {
        class_report = class_report.with_shard(SliceInfo {
            index: s.index,
            count: s.count,
            from: s.origin(),
        });
    }
    outln!("\n{}", terminal(&class_report.table()));
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
    let wrote = write_class(
        &class_report,
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
    let cached = graded.iter().filter(|g| g.from_cache).count();
    let elapsed = started.elapsed().as_secs_f64();
    match cached {
        0 => outln!("graded in {elapsed:.1}s"),
        n => outln!(
            "graded in {elapsed:.1}s ({n} of {} builds from the build cache)",
            graded.len()
        ),
    }
    Ok(class_report.exit_code(!staff.is_empty() || !errors.is_empty()))
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
            let path = out_dir.join(format!("{}.{}", r.subject, extension(format)));
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

pub fn extension(format: Format) -> &'static str {
    match format {
        Format::Human => "txt",
        Format::Json | Format::Gradescope => "json",
        Format::Junit => "xml",
        Format::Github => "log",
        Format::Html => "html",
    }
}
