//! The grading layer: every decision about what is graded and how lives
//! here, once, so that `run`, `grade`, `grade --class`, `explain` and
//! `shrink` cannot disagree. The command line only turns flags into a
//! [`BatchSpec`] and a [`Plan`], and [`Events`] into output.
//!
//! - [`subject`]: the upload rule (the scenarios decide the kind), the
//!   [`Plan`] set up once per run and the [`Prepared`] subject per upload;
//! - [`single`]: one scenario on one prepared subject (`explain`,
//!   `shrink`), judged as `grade` judges it;
//! - [`batch`]: discover → run → [`Outcome`] (results, exit code, report);
//! - [`record`]: the reference `run` takes its answers from (the built-in
//!   engine, or the course's own program recording the snapshots);
//! - a class (the `class` module, above this layer) is a loop over its members, each upload
//!   built by the class's one [`Plan`];
//! - [`error`]: the staff-side errors, each one exit-2 message.

pub mod batch;
pub mod error;
pub mod record;
pub mod single;
pub mod subject;

pub use batch::{BatchSpec, Discovered, Events, Outcome, Silent};
pub use error::StaffError;
pub use record::prepare_reference;
pub use single::{Expected, One, Shrinking, Walked, explain_one, shrink_one};
pub use subject::{
    BuildRecord, Compiler, Plan, Prepared, SubjectSpec, UploadKind, UploadOptions, engine_command,
    resolve, upload_kind,
};

/// The isolation submissions get, as a report note (`isolation: landlock
/// abi 7, no network, a uid of its own, disk 64 MiB, 4096 files`, `disk`
/// being the folders' bound); with `require`, the staff error naming what
/// is missing when not all of it holds.
pub fn isolation_note(
    require: bool,
    disk: &crate::sandbox::DiskBound,
) -> Result<String, StaffError> {
    let iso = crate::sandbox::isolation();
    let line = iso.describe(disk);
    if require && !iso.complete() {
        return Err(StaffError::Isolation(format!(
            "--require-isolation: this machine cannot confine submissions fully ({line}); missing: {}",
            iso.missing().join("; ")
        )));
    }
    Ok(format!("isolation: {line}"))
}
