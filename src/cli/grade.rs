//! `chessgrade grade`: the flags become a batch and a plan
//! (`chessgrade::grading`), the plan builds the upload (or names the
//! engine or program), and the batch runs on it. Which kind of subject the
//! scenarios want, what is the student's result and what the staff's
//! error: all decided in the library (`grading::subject`), not here.

use super::args::{ConsoleArgs, LimitArgs, OutputArgs, ScenarioArgs, SubjectArgs};
use super::batch;
use chessgrade::grading::{self, Plan, StaffError, UploadOptions};
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
        cache: subject.build_cache(),
    })
}

pub fn grade(
    args: &ScenarioArgs,
    subject: &SubjectArgs,
    console: &ConsoleArgs,
    limit_args: &LimitArgs,
    output: &OutputArgs,
) -> Result<u8, StaffError> {
    let isolation = grading::isolation_note(limit_args.require_isolation)?;
    let spec = batch::spec(args, SnapshotMode::Check);
    // An engine is checked before the scenarios are walked.
    let engine = match &subject.engine {
        Some(engine) => Some(grading::engine_command(engine, subject.command.clone())?),
        None => None,
    };
    if let Some(dir) = subject.submission.as_ref().filter(|d| !d.is_dir()) {
        return Err(StaffError::MissingUpload(dir.clone()));
    }
    let discovered = spec.discover()?;
    let store = spec.store();
    let plan = match (engine, &subject.submission, &console.program) {
        (Some(command), _, _) => Plan::Engine {
            command,
            limits: limit_args.limits(),
        },
        (None, Some(_), _) => Plan::for_uploads(
            &discovered.found,
            &store,
            &upload_options(subject, console, limit_args)?,
        )?,
        (None, None, Some(_)) => Plan::for_program(
            &discovered.found,
            &store,
            &upload_options(subject, console, limit_args)?,
        )?,
        (None, None, None) => return Err(StaffError::NoSubject),
    };
    if plan.judges_on_snapshots() {
        spec.check_snapshots(&discovered.found)?;
    }
    let prepared = match (&subject.submission, &console.program, &plan) {
        (_, _, Plan::Engine { .. }) => plan.engine(),
        (Some(dir), _, _) => plan.build(dir)?,
        (None, Some(program), _) => plan.program(program)?,
        (None, None, _) => return Err(StaffError::NoSubject),
    };
    batch::run_and_report(
        &spec,
        discovered,
        &prepared,
        vec![isolation],
        args.quiet,
        output,
    )
}
