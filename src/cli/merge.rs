//! `chessgrade merge`: the JSON reports of a split run (`--partition`)
//! combined into one result, in any report format. The library refuses
//! slices that are not of one run or do not cover it exactly (exit 2).

use super::args::Format;
use super::emit::{emit, write_out};
use chessgrade::report::Report;
use chessgrade::runner::Summary;
use std::path::{Path, PathBuf};

pub fn merge(paths: &[PathBuf], format: Format, output: Option<&Path>) -> u8 {
    let mut reports = Vec::new();
    for p in paths {
        let parsed = std::fs::read_to_string(p)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<Report>(&t).map_err(|e| e.to_string()));
        match parsed {
            Ok(r) => reports.push((p.display().to_string(), r)),
            Err(e) => {
                eprintln!("error: {}: not a chessgrade JSON report: {e}", p.display());
                return 2;
            }
        }
    }
    let merged = match Report::merge(reports) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: cannot merge: {e}");
            return 2;
        }
    };
    let t = merged.totals();
    let code = if t.errors > 0 {
        2
    } else if t.failed > 0 {
        1
    } else {
        0
    };
    let written = match format {
        Format::Human => {
            let mut buf = String::new();
            for s in &merged.scenarios {
                if s.details.is_empty() {
                    buf.push_str(&format!(
                        "PASS {:>3}/{:<3} {}\n",
                        s.earned, s.points, s.name
                    ));
                } else {
                    buf.push_str(&s.details);
                }
            }
            buf.push_str(&format!(
                "\n{} passed, {} failed, {} errors; points {}/{}\n",
                t.passed, t.failed, t.errors, t.points, t.possible
            ));
            write_out(output, buf.as_bytes())
        }
        _ => emit(&merged, format, output, &[], &Summary::default()),
    };
    if let Err(e) = written {
        eprintln!("error: cannot write the report: {e}");
        return 2;
    }
    code
}
