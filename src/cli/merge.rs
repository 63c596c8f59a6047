//! `chessgrade merge`: the JSON reports of a split run (`--partition`)
//! combined into one result, or the class slices of a class graded in
//! shards (`grade --class --shard`) into one class report, in any report
//! format. Which kind each file is, its JSON says; the library refuses
//! slices that are not of one run (or class) or do not cover it exactly,
//! and a mix of kinds is refused here (exit 2 for all of them).

use super::args::Format;
use super::class::{check_format, class_bytes, write_class};
use super::emit::{emit, write_out};
use chessgrade::grading::StaffError;
use chessgrade::report::{ClassReport, Palette, Report};
use chessgrade::runner::Summary;
use std::path::{Path, PathBuf};

/// One file read: a run's report (or slice) or a class report (or slice).
enum Read {
    Run(Report),
    Class(ClassReport),
}

fn read(p: &Path) -> Result<Read, StaffError> {
    let bad = |e: String| {
        StaffError::Usage(format!(
            "{}: not a chessgrade JSON report: {e}",
            p.display()
        ))
    };
    let text = std::fs::read_to_string(p).map_err(|e| bad(e.to_string()))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if value.get("chessgrade_class_report").is_some() {
        serde_json::from_value(value)
            .map(Read::Class)
            .map_err(|e| bad(e.to_string()))
    } else {
        serde_json::from_value(value)
            .map(Read::Run)
            .map_err(|e| bad(e.to_string()))
    }
}

pub fn merge(
    paths: &[PathBuf],
    format: Format,
    output: Option<&Path>,
    output_dir: Option<&Path>,
) -> Result<u8, StaffError> {
    let mut runs = Vec::new();
    let mut classes = Vec::new();
    for p in paths {
        let name = p.display().to_string();
        match read(p)? {
            Read::Run(r) => runs.push((name, r)),
            Read::Class(c) => classes.push((name, c)),
        }
    }
    if let (Some((run, _)), Some((class, _))) = (runs.first(), classes.first()) {
        return Err(StaffError::Usage(format!(
            "cannot merge: {class} is a class report and {run} one subject's; merge one kind"
        )));
    }
    if !classes.is_empty() {
        return merge_class(classes, format, output, output_dir);
    }
    if output_dir.is_some() {
        return Err(StaffError::Usage(
            "--output-dir is for class slices (one report per submission); these are one subject's reports".into(),
        ));
    }
    let merged =
        Report::merge(runs).map_err(|e| StaffError::Usage(format!("cannot merge: {e}")))?;
    let t = merged.totals();
    let code = if t.errors > 0 {
        2
    } else if t.failed > 0 {
        1
    } else {
        0
    };
    let written = match format {
        Format::Human => write_out(output, human(&merged).as_bytes()),
        _ => emit(
            &merged,
            format,
            output,
            &[],
            &Summary::default(),
            Palette::PLAIN,
        ),
    };
    written.map_err(|error| StaffError::Output {
        target: output.map_or("stdout".into(), |p| p.display().to_string()),
        error,
    })?;
    Ok(code)
}

/// One report as text, from what it records: each failure's explanation,
/// a line per pass, the totals.
fn human(report: &Report) -> String {
    let t = report.totals();
    let mut buf = String::new();
    for s in &report.scenarios {
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
    buf
}

/// Class slices into one class report: `--output` (or stdout) in human
/// (the table), json or html; `--output-dir` each submission's report in
/// any format.
fn merge_class(
    slices: Vec<(String, ClassReport)>,
    format: Format,
    output: Option<&Path>,
    output_dir: Option<&Path>,
) -> Result<u8, StaffError> {
    check_format(format, output.is_some())?;
    let per_member_only = format.per_member_only();
    if per_member_only && output_dir.is_none() {
        return Err(StaffError::Usage(
            "a class report is human, json or html; write per-submission reports with --output-dir"
                .into(),
        ));
    }
    let merged =
        ClassReport::merge(slices).map_err(|e| StaffError::Usage(format!("cannot merge: {e}")))?;
    let title = "chessgrade: class";
    let wrote = write_class(&merged, title, format, output, output_dir, |i, f, path| {
        let r = &merged.submissions[i];
        match f {
            Format::Human => write_out(Some(path), human(r).as_bytes()),
            _ => emit(r, f, Some(path), &[], &Summary::default(), Palette::PLAIN),
        }
    })?;
    if let Some(dir) = wrote {
        eprintln!(
            "wrote {} reports to {}",
            merged.submissions.len(),
            dir.display()
        );
    }
    if output.is_none() && !per_member_only {
        write_out(None, class_bytes(&merged, title, format).as_bytes()).map_err(|error| {
            StaffError::Output {
                target: "stdout".into(),
                error,
            }
        })?;
    }
    Ok(merged.exit_code(false))
}
