//! Writing a finished report in the chosen format, to a file or to stdout.
//! Formatting itself lives in `chessgrade::report`.
//!
//! `--output` is written atomically (a temporary file renamed over it) only
//! when it is a new path or a regular file. Anything else is never replaced:
//! a device, FIFO or a symbolic link (`/dev/stdout`, `/dev/null`) is written
//! in place, as a shell's `>` would; a dangling link or a folder is refused.
//! Every failure comes back as an error for the caller to report (exit 2).

use super::args::Format;
use chessgrade::report::{HumanReporter, Palette, Report, classroom, formats, html, prairielearn};
use chessgrade::runner::{ScenarioResult, Summary};
use chessgrade::snapshot::write_atomic;
use std::io::{Error, ErrorKind, Write};
use std::path::Path;
use std::time::Duration;

/// Writes `report` in `format` to `path` or stdout (the human format in
/// `palette`'s colours on stdout; a file is always plain, as `--color`
/// is about the terminal and a report file is read by editors and tools).
pub fn emit(
    report: &Report,
    format: Format,
    path: Option<&Path>,
    results: &[ScenarioResult],
    summary: &Summary,
    palette: Palette,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    match format {
        Format::Json => formats::json(report, &mut buf)?,
        Format::Junit => formats::junit(report, &mut buf)?,
        Format::Gradescope => formats::gradescope(report, &mut buf)?,
        Format::Github => formats::github(report, &mut buf)?,
        Format::Prairielearn => prairielearn::prairielearn(report, &mut buf)?,
        Format::Classroom => classroom::classroom(report, &mut buf)?,
        Format::Html => buf.extend_from_slice(html::student_page(report).as_bytes()),
        Format::Human => {
            let palette = if path.is_some() {
                Palette::PLAIN
            } else {
                palette
            };
            let mut r = HumanReporter::new(&mut buf).palette(palette);
            // As on the terminal: the notes (a compile error's whole
            // message last) above the scenarios that point to them.
            for note in &report.told_notes() {
                r.note(note)?;
            }
            for result in results {
                r.scenario(result)?;
            }
            r.summary(summary, Duration::from_secs_f64(report.elapsed_secs))?;
        }
    }
    write_out(path, &buf)
}

/// Writes finished bytes to `path` (see the module doc) or stdout.
pub fn write_out(path: Option<&Path>, bytes: &[u8]) -> std::io::Result<()> {
    let Some(p) = path else {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        return out.flush();
    };
    match std::fs::symlink_metadata(p) {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            write_atomic(p, &String::from_utf8_lossy(bytes))
        }
        Err(e) => Err(e),
        Ok(m) if m.is_file() => write_atomic(p, &String::from_utf8_lossy(bytes)),
        Ok(m) if m.is_dir() => Err(Error::other("it is a folder")),
        Ok(_) => match std::fs::metadata(p) {
            Err(_) => Err(Error::other(
                "it is a dangling symbolic link; refusing to create its target",
            )),
            Ok(t) if t.is_dir() => Err(Error::other("it is a link to a folder")),
            Ok(_) => write_in_place(p, bytes),
        },
    }
}

/// Writes into an existing non-regular file (a device, a FIFO, a link),
/// never replacing it. A FIFO is opened without blocking: one that nobody
/// reads is an error, not a hang.
fn write_in_place(p: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .custom_flags(OFlag::O_NONBLOCK.bits())
        .open(p)
        .map_err(|e| match e.raw_os_error() {
            Some(code) if code == nix::errno::Errno::ENXIO as i32 => {
                Error::other("it is a FIFO that no process is reading")
            }
            _ => e,
        })?;
    // Back to blocking writes, so a slow reader is waited for.
    fcntl(&file, FcntlArg::F_SETFL(OFlag::empty())).map_err(Error::from)?;
    file.write_all(bytes)?;
    file.flush()
}
