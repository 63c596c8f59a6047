//! Turning a submission folder into something the grader can run.
//!
//! Each kind of upload has its own file: `lab3` (the course's C++ classes,
//! compiled with the protocol adapter). What they share lives here: the
//! finished [`Build`], the [`BuildError`] classes (a compile error is the
//! student's result; anything else is a staff-side problem), and running a
//! build step inside the sandbox.

mod lab3;

pub use lab3::{
    CppOptions, CppSources, DEFAULT_CFLAGS, LAB3_ADAPTER, LAB3_ADAPTER_GLUE, adapter_cache_dir,
    build_cpp, compile_message, defines_main, find_cpp,
};

use crate::sandbox::{self, EngineCommand, Limits};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Compiler output kept for the report.
const MAX_COMPILER_OUTPUT: usize = 16 << 10;

/// A compiled submission: the engine command, and the temporary directory
/// that holds it (deleted on drop).
pub struct Build {
    pub command: EngineCommand,
    /// Things worth telling the user (e.g. files left out).
    pub notes: Vec<String>,
    pub(crate) _dir: tempfile::TempDir,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    /// The folder is not something chessgrade knows how to build.
    NotRecognised(String),
    /// The compiler rejected it: its (capped) message.
    Compile(String),
    /// The build could not run at all.
    Io(String),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::NotRecognised(m) => write!(f, "not a recognised submission: {m}"),
            BuildError::Compile(m) => write!(f, "compile error:\n{m}"),
            BuildError::Io(m) => write!(f, "cannot build the submission: {m}"),
        }
    }
}

/// Runs a build command to completion within `timeout`, confined like a
/// submission (its own process group, ended whole at the timeout; generous
/// memory and file-size limits, since compilers need them):
/// (succeeded, stdout+stderr).
pub(crate) fn run_with_timeout(
    program: &str,
    args: Vec<std::ffi::OsString>,
    workdir: &Path,
    timeout: Duration,
) -> std::io::Result<(bool, String)> {
    let limits = Limits {
        timeout,
        cpu_seconds: timeout.as_secs().max(1),
        memory_bytes: 4 << 30,
        max_output_bytes: MAX_COMPILER_OUTPUT * 4,
        max_file_bytes: 1 << 30,
        ..Limits::default()
    };
    let cmd = EngineCommand {
        program: PathBuf::from(program),
        args,
    };
    let done = sandbox::run_to_completion(&cmd, &limits, workdir)?;
    match done.status {
        Some(_) => Ok((done.success(), done.output)),
        None => Ok((
            false,
            format!("{}\ncompilation timed out after {timeout:?}", done.output),
        )),
    }
}
