//! The preloaded shim (`adapters/console-shim/`): keeps a console
//! program's stdout/stderr order (stdout unbuffered) and makes its clock,
//! hence `srand(time(NULL))`, repeatable (`CHESSGRADE_TIME`). Compiled once
//! per grading run with the C compiler, inside the sandbox.

use crate::submission::BuildError;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The shim's source, embedded so `chessgrade` works from anywhere.
pub const SHIM_SOURCE: &str = include_str!("../../adapters/console-shim/chessgrade_console_shim.c");

/// The clock value the shim's `time()` returns while grading.
pub const FIXED_TIME: &str = "1000000000";

/// Compiles the shim into `dir` with `cc` (e.g. `gcc`); returns the
/// environment that preloads it. Failing to build it is a staff-side error.
pub fn build_shim(dir: &Path, cc: &str) -> Result<Vec<(String, OsString)>, BuildError> {
    let source = dir.join("chessgrade_console_shim.c");
    std::fs::write(&source, SHIM_SOURCE).map_err(|e| BuildError::Io(e.to_string()))?;
    let lib: PathBuf = dir.join("libchessgrade_console_shim.so");
    let args: Vec<OsString> = vec![
        "-shared".into(),
        "-fPIC".into(),
        "-O2".into(),
        "-o".into(),
        lib.clone().into(),
        source.into(),
    ];
    let (ok, output) = crate::submission::run_with_timeout(cc, args, dir, Duration::from_secs(60))
        .map_err(|e| BuildError::Io(format!("cannot run {cc} for the console shim: {e}")))?;
    if !ok {
        return Err(BuildError::Io(format!(
            "the console shim did not compile with {cc}:\n{output}"
        )));
    }
    Ok(vec![
        ("LD_PRELOAD".to_string(), lib.into()),
        ("CHESSGRADE_TIME".to_string(), FIXED_TIME.into()),
    ])
}
