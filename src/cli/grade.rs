//! `chessgrade grade`: the flags become a batch and a plan
//! (`chessgrade::grading`), the plan builds the upload (or names the
//! engine or program), and the batch runs on it. Which kind of subject the
//! scenarios want, what is the student's result and what the staff's
//! error: all decided in the library (`grading::subject`), not here.

use super::args::{ConsoleArgs, LimitArgs, OutputArgs, ScenarioArgs, SubjectArgs};
use super::batch;
use chessgrade::grading::{self, Plan, StaffError, SubjectSpec, UploadOptions};
use chessgrade::report::Palette;
use chessgrade::runner::SnapshotMode;

/// The upload options these flags ask for (both kinds; the plan picks).
pub fn upload_options(
    subject: &SubjectArgs,
    console: &ConsoleArgs,
    limit_args: &LimitArgs,
) -> Result<UploadOptions, StaffError> {
    Ok(UploadOptions {
        cpp: subject.cpp_options(limit_args.compile_timeout()),
        console: console
            .options(&subject.compiler, limit_args)
            .map_err(StaffError::Usage)?,
        force_console: console.forces_console(),
        limits: limit_args.limits(),
        memcheck: subject.memcheck(),
        cache: subject.build_cache(),
        case: subject.case_rule(),
        adapter: subject.adapter.clone(),
    })
}

/// The subject these flags name (`None`: none), checked where named.
pub fn subject_spec(
    subject: &SubjectArgs,
    console: &ConsoleArgs,
) -> Result<Option<SubjectSpec>, StaffError> {
    SubjectSpec::from_flags(
        subject.submission.as_deref(),
        subject
            .engine
            .as_deref()
            .map(|one| (one, subject.command.clone())),
        console.program.as_deref(),
    )
}

pub fn grade(
    args: &ScenarioArgs,
    subject: &SubjectArgs,
    console: &ConsoleArgs,
    limit_args: &LimitArgs,
    output: &OutputArgs,
    palette: Palette,
) -> Result<u8, StaffError> {
    let isolation = grading::isolation_note(limit_args.require_isolation, &limit_args.disk())?;
    let spec = batch::spec(args, SnapshotMode::Check);
    // The engine and the upload folder are checked before the scenarios
    // are walked.
    let what = subject_spec(subject, console)?.ok_or(StaffError::NoSubject)?;
    let discovered = spec.discover()?;
    let store = spec.store();
    let options = upload_options(subject, console, limit_args)?;
    let plan = Plan::choose(&discovered.found, &store, &what, &options)?;
    if plan.judges_on_snapshots() {
        spec.check_snapshots(&discovered.found)?;
    }
    let prepared = plan.prepare(&what)?;
    batch::run_and_report(
        &spec,
        discovered,
        &prepared,
        vec![isolation],
        args.quiet,
        output,
        palette,
    )
}
