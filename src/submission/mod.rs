//! Turning a submission folder into something the grader can run.
//!
//! Each kind of upload has its own file: `classes` (a course's C++
//! classes, compiled with the adapter kit and the course's hooks, `hooks`:
//! Lab 3's built in, or a course's own hook file) and `console` (a course's
//! whole interactive program, built with its Makefile, CMake or g++). Both build
//! an upload as the reader decided it ([`crate::upload::Upload`]: what it
//! is, what is left out, which kind it is), copied into their private
//! build folder from that decision. What they share lives here: the
//! finished [`Build`], the [`BuildError`] classes (a compile error is the
//! student's result; anything else is a staff-side problem), and running a
//! build step inside the sandbox. Both kinds go through the build cache
//! (`cache`): an upload built once, with the same tools and flags, is not
//! built again.

mod cache;
mod classes;
mod console;
mod hooks;
mod units;

pub use cache::{BadCacheDir, BuildCache, MAX_ENTRY_BYTES, check_cache_dir};

pub use crate::upload::{UploadKind, defines_main};
pub use classes::{
    CppOptions, DEFAULT_CFLAGS, DEFAULT_COMPILE_SECONDS, DEFAULT_COMPILER, KIT_HEADER, KIT_MAIN,
    adapter_cache_dir, build_cpp_traced, compile_message,
};
pub use console::{ConsoleBuild, build_console_traced};
pub use hooks::{CourseHooks, HookFileError, Hooks, LAB3_HOOKS, REQUIRED_HOOKS};

/// Where a build's result came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Built now (and stored in the cache when it is on).
    Built,
    /// Copied from the build cache: nothing was compiled.
    Cache,
}

use crate::sandbox::{self, EngineCommand, Limits};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Compiler output kept for the report.
const MAX_COMPILER_OUTPUT: usize = 16 << 10;

/// Cuts a compiler message to [`MAX_COMPILER_OUTPUT`] bytes (at a character
/// boundary) and says so: every kind of build reports the same way.
fn cap_compiler_output(msg: &mut String) {
    if msg.len() > MAX_COMPILER_OUTPUT {
        let cut = (0..=MAX_COMPILER_OUTPUT)
            .rev()
            .find(|&i| msg.is_char_boundary(i))
            .unwrap_or(0);
        msg.truncate(cut);
        msg.push_str("\n… (compiler output cut)");
    }
}

/// A compiled submission: the engine command, and the temporary directory
/// that holds it (deleted on drop).
pub struct Build {
    pub command: EngineCommand,
    /// Things worth telling the user (e.g. files left out).
    pub notes: Vec<String>,
    /// The upload's folder as the compiler saw it (its copy in the build
    /// folder): the student's files, for a memory checker's stack frames.
    pub sources: crate::memcheck::Sources,
    pub(crate) _dir: sandbox::Scratch,
}

impl Build {
    /// The memory check of this build's runs, when one was asked for.
    pub fn checker(
        &self,
        memcheck: Option<crate::memcheck::Memcheck>,
    ) -> Option<crate::memcheck::Checker> {
        memcheck.map(|m| crate::memcheck::Checker::new(m, self.sources.clone()))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// The folder is not something chessgrade knows how to build.
    NotRecognised(String),
    /// The compiler rejected it: its (capped) message.
    Compile(String),
    /// The build could not run at all.
    Io(String),
    /// The grader ran short under the build (its own disk, memory or
    /// processes, not the build folder's bounds; see
    /// [`sandbox::GraderFault`]), in both attempts: not the upload's result,
    /// never cached, the staff's to fix. What ran short.
    Grader(String),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::NotRecognised(m) => write!(f, "not a recognised submission: {m}"),
            BuildError::Compile(m) => write!(f, "compile error:\n{m}"),
            BuildError::Io(m) => write!(f, "cannot build the submission: {m}"),
            BuildError::Grader(m) => write!(
                f,
                "the grader ran short, not the upload: {m}; nothing was cached: free what \
                 ran short and grade again"
            ),
        }
    }
}

/// Which attempt at a build this is: a build that fails in a way the
/// grader may be the cause of is built once more ([`with_retry`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Attempt {
    First,
    Again,
}

/// Runs `build` (an upload's whole build, in a fresh folder each time),
/// once more when the first attempt failed in a way the grader may be the
/// cause of ([`BuildError::Grader`]): another job's folder may have been
/// freed since, and a message the program printed itself is then told
/// from a real shortage ([`failed_build`]).
pub(crate) fn with_retry<T>(
    mut build: impl FnMut(Attempt) -> Result<T, BuildError>,
) -> Result<T, BuildError> {
    match build(Attempt::First) {
        Err(BuildError::Grader(_)) => build(Attempt::Again),
        done => done,
    }
}

/// A failed build that is the upload's own result.
pub(crate) struct Failed {
    /// The message reported.
    pub message: String,
    /// Whether the build cache may keep it: it finished on its own terms
    /// (not at its folder's bound, nothing of the grader's in question).
    pub cacheable: bool,
    /// Its folder was at its bound (the message says `disk limit: ...`).
    pub out_of_disk: bool,
}

/// Whose a build that failed with `msg` in its folder `dir` is, in this
/// order:
/// - its folder at its bound: the upload's (`disk limit: ...`), never
///   cached (it may build under a larger `--disk`);
/// - the grader short of something since `headroom` (measured: its disk,
///   the OOM killer), or only said so in the output on the first attempt:
///   `Err(BuildError::Grader)`, never cached (the caller builds again, then
///   reports it as the staff's);
/// - said in the output only, again on the second attempt while nothing
///   measured shows it: the upload's (it prints those words itself), not
///   cached;
/// - else the upload's compile error, which the cache may keep.
pub(crate) fn failed_build(
    dir: &sandbox::Scratch,
    headroom: &sandbox::Headroom,
    attempt: Attempt,
    msg: String,
) -> Result<Failed, BuildError> {
    if let Some(message) = out_of_disk(dir, &msg) {
        return Ok(Failed {
            message,
            cacheable: false,
            out_of_disk: true,
        });
    }
    let cacheable = match headroom.fault_since(dir, &msg) {
        None => true,
        Some(fault) if fault.measured() || attempt == Attempt::First => {
            return Err(BuildError::Grader(fault.to_string()));
        }
        Some(_) => false,
    };
    Ok(Failed {
        message: msg,
        cacheable,
        out_of_disk: false,
    })
}

impl From<crate::upload::ReadError> for BuildError {
    /// A folder that is no single upload, or too large, is the student's
    /// result; one that cannot be read is the staff's.
    fn from(e: crate::upload::ReadError) -> BuildError {
        use crate::upload::ReadError;
        match e {
            ReadError::NotAFolder(_) | ReadError::SeveralPrograms(_) | ReadError::Refused(_) => {
                BuildError::NotRecognised(e.to_string())
            }
            ReadError::TooLarge => BuildError::Compile(e.to_string()),
            ReadError::Io(m) => BuildError::Io(m),
        }
    }
}

/// A copy into the build's folder `dir` (the upload's, the overlay's)
/// that failed: the student's when the folder is at its bound (an upload
/// larger than `--disk`); out of space with the folder below its bound,
/// the grader's disk ran out ([`BuildError::Grader`], built again once);
/// anything else the staff's.
pub(crate) fn copy_failed(e: &std::io::Error, dir: &sandbox::Scratch) -> BuildError {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded if dir.reached().is_some() => {
            BuildError::Compile(format!(
                "disk limit: the upload does not fit its build's folder ({e}; --disk, --disk-files)"
            ))
        }
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => {
            BuildError::Grader(match sandbox::disk_full(dir.path()) {
                Some(full) => format!("{full} (copying into the build's folder: {e})"),
                None => format!("copying into the build's folder: {e}"),
            })
        }
        _ => BuildError::Io(e.to_string()),
    }
}

/// The upload as copied into its build's folder `dir`, checked against the
/// folder's bound: a folder the grader only watches (no tmpfs of its own)
/// took the copy whole, so an upload larger than `--disk` is found here,
/// as a tmpfs would have refused it (the student's).
pub(crate) fn upload_fits(dir: &sandbox::Scratch) -> Result<(), BuildError> {
    match (dir.bound(), dir.usage()) {
        (Some(bound), Some(used)) if used.bytes > bound.bytes || used.files > bound.files => {
            Err(BuildError::Compile(format!(
                "disk limit: the upload does not fit its build's folder ({}; --disk, --disk-files)",
                sandbox::DiskReached { bound, used }.describe("the build's")
            )))
        }
        _ => Ok(()),
    }
}

/// A build's folder that could not be made: out of space (or files), the
/// grader's disk ([`BuildError::Grader`], built again once); anything else
/// the staff's.
pub(crate) fn folder_failed(e: &std::io::Error) -> BuildError {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => {
            BuildError::Grader(format!("cannot make the build's folder: {e}"))
        }
        _ => BuildError::Io(e.to_string()),
    }
}

/// A failed build's message, said to have run out of disk first when its
/// folder `dir` is at its bound (`None`: it is not).
pub(crate) fn out_of_disk(dir: &sandbox::Scratch, msg: &str) -> Option<String> {
    dir.reached().map(|reached| {
        format!(
            "disk limit: {} (--disk, --disk-files); the build then said:\n{msg}",
            reached.describe("the build's")
        )
    })
}

use crate::upload::{MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES};

/// Copies every regular file and folder of `from` (the staff's overlay)
/// into `to` (replacing), recursively, in the build's folder `dir`; links,
/// FIFOs and devices are left out, so a build never reads through a link
/// or blocks on a FIFO. An
/// overlay is the staff's and taken as it is: uploads are copied from
/// the reader's decision instead ([`crate::upload::Upload::copy_into`]).
pub(crate) fn copy_tree(from: &Path, to: &Path, dir: &sandbox::Scratch) -> Result<(), BuildError> {
    let (mut bytes, mut files) = (0u64, 0usize);
    for entry in walkdir::WalkDir::new(from).follow_links(false) {
        let entry = entry.map_err(|e| BuildError::Io(e.to_string()))?;
        let rel = entry.path().strip_prefix(from).expect("under the root");
        let target = to.join(rel);
        let io = |e: std::io::Error| {
            copy_failed(
                &std::io::Error::new(e.kind(), format!("{}: {e}", entry.path().display())),
                dir,
            )
        };
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).map_err(io)?;
        } else if entry.file_type().is_file() {
            files += 1;
            bytes += entry.metadata().map_or(0, |m| m.len());
            if bytes > MAX_UPLOAD_BYTES || files > MAX_UPLOAD_FILES {
                return Err(BuildError::Compile(format!(
                    "the upload is too large to build: more than {} MiB or {MAX_UPLOAD_FILES} files",
                    MAX_UPLOAD_BYTES >> 20
                )));
            }
            std::fs::copy(entry.path(), &target).map_err(io)?;
        }
    }
    Ok(())
}

/// Memory (address space) of each build process: a compiler's own needs
/// with room to spare, well short of what would hurt the machine.
pub const COMPILER_MEMORY_BYTES: u64 = 4 << 30;
/// Processes a build may run at once (the driver, cc1plus, as, ld, ...).
pub const COMPILER_PROCESSES: u64 = 64;

/// Runs a build command to completion within `timeout`, confined like a
/// submission (its own process group, swept whole at the timeout — a
/// compiler blocked on a FIFO header included; memory, file-size and
/// process limits sized for compilers): (succeeded, stdout+stderr).
pub(crate) fn run_with_timeout(
    program: &str,
    args: Vec<std::ffi::OsString>,
    workdir: &Path,
    timeout: Duration,
) -> std::io::Result<(bool, String)> {
    run_step(program, args, workdir, timeout, &[]).map(|s| (s.ok, s.output))
}

/// How one build step ended.
pub(crate) struct Step {
    pub ok: bool,
    /// stdout and stderr (with a line saying so when it timed out).
    pub output: String,
    /// Stopped at the timeout: not the upload's result, never cached.
    pub timed_out: bool,
}

/// [`run_with_timeout`] with `env` added to the build's environment,
/// telling a timeout apart.
pub(crate) fn run_step(
    program: &str,
    args: Vec<std::ffi::OsString>,
    workdir: &Path,
    timeout: Duration,
    env: &[(&str, std::ffi::OsString)],
) -> std::io::Result<Step> {
    let limits = Limits {
        timeout,
        cpu_seconds: timeout.as_secs_f64().ceil().max(1.0) as u64,
        memory_bytes: COMPILER_MEMORY_BYTES,
        max_output_bytes: MAX_COMPILER_OUTPUT * 4,
        max_file_bytes: 1 << 30,
        max_processes: Some(COMPILER_PROCESSES),
        ..Limits::default()
    };
    let cmd = EngineCommand {
        program: PathBuf::from(program),
        args,
    };
    let done = sandbox::run_to_completion_with(&cmd, &limits, workdir, env)?;
    Ok(match done.status {
        Some(_) => Step {
            ok: done.success(),
            output: done.output,
            timed_out: false,
        },
        None => Step {
            ok: false,
            output: format!("{}\ncompilation timed out after {timeout:?}", done.output),
            timed_out: true,
        },
    })
}
