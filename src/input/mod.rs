//! Reading the files staff write (scenarios, rule files) without letting a
//! hostile one hurt the grader, and pointing into them when they are wrong.
//!
//! - [`read_regular_file`]: only regular files, never blocking on a FIFO or
//!   reading a device, under a size cap;
//! - [`Diagnostic`]: `path:line:col: message` with the source line and a
//!   caret, bounded whatever the input;
//! - [`shown`]: a word as it may be echoed in a message, cut short.
//!
//! A folder of its own, below both readers: the scenario parser and the
//! rule-file reader report alike, and the scenario
//! parser reads rule files.

mod diagnostic;

pub use diagnostic::Diagnostic;

use std::io::Read;
use std::path::Path;

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

impl ReadError {
    /// As [`Display`](std::fmt::Display) says it, for a file whose cap no
    /// flag raises (a rule file, a hook file): without the `--max-input-mb`
    /// advice.
    pub fn at_fixed_cap(&self) -> String {
        match self {
            ReadError::TooLarge { len, max } => format!(
                "the file is larger than the {} such a file may be ({})",
                human_bytes(*max),
                len.map_or("or more".to_string(), human_bytes)
            ),
            other => other.to_string(),
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

/// A word as it may be echoed in a message: at most `SHOWN_CHARS`
/// characters, control characters escaped, and the length of anything cut.
pub fn shown(tok: &str) -> String {
    const SHOWN_CHARS: usize = 32;
    let mut out = String::new();
    for c in tok.chars().take(SHOWN_CHARS) {
        if c.is_control() || c == '\u{feff}' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    let total = tok.chars().count();
    if total > SHOWN_CHARS {
        out.push_str(&format!("… ({total} characters)"));
    }
    out
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
