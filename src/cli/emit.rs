//! Writing a finished report in the chosen format, to a file (atomically)
//! or to stdout. Formatting itself lives in `chessgrade::report`.

use super::args::Format;
use chessgrade::report::{HumanReporter, Report, formats, html};
use chessgrade::runner::{ScenarioResult, Summary};
use chessgrade::snapshot::write_atomic;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// Writes `report` in `format` to `path` (atomically) or stdout.
pub fn emit(
    report: &Report,
    format: Format,
    path: Option<&Path>,
    results: &[ScenarioResult],
    summary: &Summary,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    match format {
        Format::Json => formats::json(report, &mut buf)?,
        Format::Junit => formats::junit(report, &mut buf)?,
        Format::Gradescope => formats::gradescope(report, &mut buf)?,
        Format::Github => formats::github(report, &mut buf)?,
        Format::Html => buf.extend_from_slice(
            html::page(
                &format!("chessgrade: {}", report.subject),
                std::slice::from_ref(report),
            )
            .as_bytes(),
        ),
        Format::Human => {
            let mut r = HumanReporter::new(&mut buf);
            for result in results {
                r.scenario(result)?;
            }
            r.summary(summary, Duration::from_secs_f64(report.elapsed_secs))?;
        }
    }
    write_out(path, &buf)
}

/// Writes finished bytes to `path` (atomically) or stdout.
pub fn write_out(path: Option<&Path>, bytes: &[u8]) -> std::io::Result<()> {
    match path {
        Some(p) => write_atomic(p, &String::from_utf8_lossy(bytes)),
        None => std::io::stdout().lock().write_all(bytes),
    }
}
