//! `chessgrade shrink`: the flags become the same subject spec and plan as
//! `grade`'s; the library (`grading::shrink_one`) builds the subject once
//! and shrinks the scenario on it, each candidate judged as `grade` judges
//! it. This file prints the minimal scenario and its first mismatch.

use super::args::{ConsoleArgs, LimitArgs, SnapshotArgs, SubjectArgs};
use super::grade;
use chessgrade::grading::{self, One, Plan, Shrinking, StaffError, shrink_one};
use chessgrade::report::{HumanReporter, Palette};
use chessgrade::scenario;
use chessgrade::shrink::{ShrinkError, Shrunk};
use chessgrade::snapshot::SnapshotStore;
use std::path::{Path, PathBuf};

/// `shrink`'s flags, and the run's colours.
pub struct ShrinkArgs {
    pub file: PathBuf,
    pub subject: SubjectArgs,
    pub snapshot: SnapshotArgs,
    pub limits: LimitArgs,
    pub console: ConsoleArgs,
    pub max_runs: usize,
    pub output: Option<PathBuf>,
    pub palette: Palette,
}

pub fn run(a: &ShrinkArgs) -> Result<u8, StaffError> {
    let ShrinkArgs {
        file,
        subject,
        snapshot,
        limits: limit_args,
        console: console_args,
        max_runs,
        output: out,
        palette,
    } = a;
    let (max_runs, out, palette) = (*max_runs, out.as_deref(), *palette);
    let one = One::load(file, &snapshot.root, &snapshot.rules)?;
    if subject.engine.is_some() && console_args.forces_console() {
        return Err(StaffError::Usage(
            "a console program is shrunk with --submission DIR or --program PATH, not --engine"
                .into(),
        ));
    }
    grading::isolation_note(limit_args.require_isolation, &limit_args.disk())?;
    let what = grade::subject_spec(subject, console_args)?.ok_or(StaffError::NoSubject)?;
    let store = SnapshotStore::new(&snapshot.snapshots);
    let options = grade::upload_options(subject, console_args, limit_args)?;
    let plan = Plan::choose(std::slice::from_ref(&one.found), &store, &what, &options)?;
    // Built once; the build's folder lives until the end of the shrink.
    let prepared = plan.prepare(&what)?;
    match shrink_one(&one, &store, &prepared, max_runs)? {
        Shrinking::NotRun(message) => {
            outln!(
                "every scenario fails without running, so there is nothing to shrink:\n{message}"
            );
            Ok(1)
        }
        Shrinking::Done { against, shrunk } => {
            if let Some(path) = against {
                outln!(
                    "expected: {} (the reference engine answers otherwise; smaller scenarios are judged against it)",
                    path.display()
                );
            }
            Ok(report(*shrunk, &one.scenario, out, file, palette))
        }
    }
}

/// Prints the minimal scenario and its first mismatch (and writes it to
/// `out`): exit 1, or 0 when the scenario passes, 2 for a grader's error.
fn report(
    shrunk: Result<Shrunk, ShrinkError>,
    original: &scenario::Scenario,
    out: Option<&Path>,
    file: &Path,
    palette: Palette,
) -> u8 {
    let shrunk = match shrunk {
        Ok(s) => s,
        Err(ShrinkError::Passes) => {
            outln!("{}: {}", file.display(), ShrinkError::Passes);
            return 0;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let m = &shrunk.minimal;
    outln!(
        "shrunk {} ({}): {} -> {} steps, {} -> {} placements, {}x{} -> {}x{} board, {} runs",
        file.display(),
        shrunk.signature,
        original.steps.len(),
        m.steps.len(),
        original.placements.len(),
        m.placements.len(),
        original.dims.rows(),
        original.dims.cols(),
        m.dims.rows(),
        m.dims.cols(),
        shrunk.runs
    );
    outln!();
    out!("{}", shrunk.text);
    outln!();
    let stdout = std::io::stdout();
    let _ = HumanReporter::new(stdout.lock())
        .palette(palette)
        .scenario(&shrunk.result);
    if let Some(out) = out {
        if let Err(e) = std::fs::write(out, &shrunk.text) {
            eprintln!("error: cannot write {}: {e}", out.display());
            return 2;
        }
        outln!("wrote {}", out.display());
    }
    1
}
