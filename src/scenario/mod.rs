//! Scenario files: the Lab 3 config format, parsed into typed steps.
//!
//! ```text
//! <points>
//! <rows> <cols>
//! <b|w> <k|q|r|b|n|p> <row> <col>     (any number of placements)
//! ~
//! movePiece r1 c1 r2 c2 | isValidScan | underThreatScan   (any number of steps)
//! ```
//!
//! `//` comment lines and blank lines may appear anywhere; CRLF and trailing
//! blanks are tolerated. Extensions live in `@key value` directive lines
//! before the points line (an `@` line is an error in the plain Lab 3
//! format, so no Lab 3 file changes meaning). Every step keeps its 1-based
//! source line, which traces and reports refer to.
//!
//! The parser (`parse.rs`) is a nom grammar, one small parser per kind of
//! line, with `nom_locate` spans for positions. Errors are [`Diagnostic`]s
//! carrying line and column, rendered with the source line and a caret.
//!
//! Hostile input is bounded here: [`load`] reads only regular files (never
//! blocking on a FIFO, never reading a device) under a size cap, the
//! parser is linear in its input, and messages echo tokens cut short. A
//! leading UTF-8 BOM is accepted; CR-only line endings, a BOM elsewhere and
//! conflicting directives are errors that say so (docs/scenarios.md).

mod ast;
mod diagnostic;
mod parse;

pub use ast::{Directives, Placement, Scenario, Step, StepKind, Visibility};
pub use diagnostic::Diagnostic;
pub use parse::{parse, parse_bytes, shown};

use std::io::Read;
use std::path::Path;

/// The default cap on a scenario file's size: far above any real scenario
/// (the largest bundled one is a few KiB), far below what hurts.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 16 << 20;

/// The default cap on a trace's size (`--max-trace-mb`): here, beside the
/// other caps, so that the trace module reads it from below.
pub const DEFAULT_MAX_TRACE_BYTES: u64 = 64 << 20;

/// What a scenario may cost the grader itself: the largest scenario file
/// read and the largest trace it may produce (`--max-input-mb`,
/// `--max-trace-mb`). A value of the run, carried by each scenario it
/// finds (the runner's `Found`) and by its snapshot store, not a
/// process-wide setting: two runs in one process may differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    pub input_bytes: u64,
    pub trace_bytes: u64,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            input_bytes: DEFAULT_MAX_INPUT_BYTES,
            trace_bytes: DEFAULT_MAX_TRACE_BYTES,
        }
    }
}

/// Reads and parses a scenario file under the default size cap (see
/// [`load_capped`]).
pub fn load(path: &Path) -> Result<Scenario, Diagnostic> {
    load_capped(path, DEFAULT_MAX_INPUT_BYTES)
}

/// Reads and parses a scenario file of at most `max` bytes. Every
/// failure (missing file, not a regular file, too large, not UTF-8,
/// malformed content) is a [`Diagnostic`] naming the file.
pub fn load_capped(path: &Path, max: u64) -> Result<Scenario, Diagnostic> {
    let bytes = read_regular_file(path, max)
        .map_err(|why| Diagnostic::file(path, format!("cannot read scenario: {why}")))?;
    parse_bytes(&bytes).map_err(|d| d.with_path(path))
}

/// The bytes of `path` if it is a regular file of at most `max` bytes.
///
/// FIFOs, devices, sockets and folders are refused by their metadata before
/// any open, and the file is then opened non-blocking and checked again on
/// the open handle (so a file swapped for a FIFO in between cannot block),
/// and read through a `max + 1` byte window (so a file that grows, or lies
/// about its size, cannot exhaust memory).
pub fn read_regular_file(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::metadata(path)?;
    check_kind(&meta)?;
    check_size(meta.len(), max)?;
    let file = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
            .open(path)?
    };
    let meta = file.metadata()?;
    check_kind(&meta)?;
    let mut bytes = Vec::with_capacity(meta.len().min(max) as usize);
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    check_size(bytes.len() as u64, max)?;
    Ok(bytes)
}

/// Why [`read_regular_file`] read nothing.
#[derive(Debug)]
pub enum ReadError {
    /// The file cannot be opened or read.
    Io(std::io::Error),
    /// It is not a regular file: what it is ([`file_kind`]).
    NotRegular(&'static str),
    /// It is over the cap: its size (`None`: at least one byte over, found
    /// while reading) and the cap.
    TooLarge { len: Option<u64>, max: u64 },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::NotRegular(kind) => write!(f, "it is {kind}, not a regular file"),
            ReadError::TooLarge { len, max } => write!(
                f,
                "the file is larger than the {} limit ({}; raise it with --max-input-mb)",
                human_bytes(*max),
                len.map_or("or more".to_string(), human_bytes)
            ),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> Self {
        ReadError::Io(e)
    }
}

fn check_kind(meta: &std::fs::Metadata) -> Result<(), ReadError> {
    match file_kind(meta) {
        "a regular file" => Ok(()),
        kind => Err(ReadError::NotRegular(kind)),
    }
}

/// What kind of file this is, for messages: `a regular file`, `a FIFO
/// (named pipe)`, `a character device`, ...
pub fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_file() {
        "a regular file"
    } else if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

fn check_size(len: u64, max: u64) -> Result<(), ReadError> {
    if len > max {
        // Read through a `max + 1` window: one byte over is all we know.
        let len = (len != max + 1).then_some(len);
        return Err(ReadError::TooLarge { len, max });
    }
    Ok(())
}

/// `16 MiB`, `1.5 GiB`, `300 bytes`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if value.fract() == 0.0 {
        format!("{value} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_under_the_cap_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "1\n1 1\n~\n").unwrap();
        assert_eq!(read_regular_file(&file, 100).unwrap().len(), 8);
        let e = read_regular_file(&file, 4).unwrap_err();
        assert!(
            matches!(
                e,
                ReadError::TooLarge {
                    len: Some(8),
                    max: 4
                }
            ),
            "{e:?}"
        );
        assert!(
            e.to_string().contains("larger than the 4 bytes limit"),
            "{e}"
        );
        let e = read_regular_file(dir.path(), 100).unwrap_err();
        assert!(matches!(e, ReadError::NotRegular("a folder")), "{e:?}");
        assert!(
            e.to_string().contains("a folder, not a regular file"),
            "{e}"
        );
        let e = read_regular_file(Path::new("/dev/zero"), 100).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        let fifo = dir.path().join("p.txt");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let e = read_regular_file(&fifo, 100).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        assert_eq!(human_bytes(16 << 20), "16 MiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
    }
}
