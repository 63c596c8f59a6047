//! The machine-readable report: a plain, serialisable record of a run that
//! every file format (JSON, JUnit, Gradescope, GitHub) is rendered from, and
//! that `chessgrade merge` reads back to join the slices of a split run.
//! Building it is the one place results are turned into text; renderers
//! only lay that text out.

use super::HumanReporter;
use crate::runner::{FailureKind, ScenarioResult, Verdict};
use serde::{Deserialize, Serialize};

/// Bumped when the JSON shape changes incompatibly.
pub const REPORT_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Report {
    pub chessgrade_report: u32,
    /// What was graded: "reference engine", a submission folder, a command.
    pub subject: String,
    /// The partition this report covers (`slice:K/N`), if any.
    pub partition: Option<String>,
    pub elapsed_secs: f64,
    /// Remarks about the whole run (files left out of a build, ...).
    pub notes: Vec<String>,
    pub scenarios: Vec<ScenarioRecord>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ScenarioRecord {
    /// The scenario's name (path relative to the scenario root).
    pub name: String,
    /// The scenario file, as given to the run.
    pub path: String,
    pub points: u32,
    pub earned: u32,
    /// Gradescope visibility: visible, hidden, after_due_date, after_published.
    pub visibility: String,
    pub status: Status,
    /// For failures: wrong_answer, board_out_of_sync, timeout, crash,
    /// malformed_answer, exited_early, compile_error, no_snapshot, input_error.
    pub class: Option<String>,
    /// The scenario line of the first mismatch, when there is one.
    pub line: Option<u32>,
    /// The scenario text of that line.
    pub step: Option<String>,
    /// One line saying what went wrong (empty on a pass).
    pub message: String,
    /// The full human-readable explanation (empty on a pass).
    pub details: String,
    pub elapsed_secs: f64,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    Fail,
    Error,
    Updated,
}

/// Totals of a report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    /// Sums of u32 points: u64 so they never wrap.
    pub points: u64,
    pub possible: u64,
}

impl Report {
    pub fn new(
        subject: impl Into<String>,
        partition: Option<String>,
        elapsed_secs: f64,
        notes: Vec<String>,
        results: &[ScenarioResult],
    ) -> Report {
        Report {
            chessgrade_report: REPORT_VERSION,
            subject: subject.into(),
            partition,
            elapsed_secs,
            notes,
            scenarios: results.iter().map(ScenarioRecord::from_result).collect(),
        }
    }

    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for s in &self.scenarios {
            match s.status {
                Status::Pass | Status::Updated => t.passed += 1,
                Status::Fail => t.failed += 1,
                Status::Error => t.errors += 1,
            }
            t.points += u64::from(s.earned);
            t.possible += u64::from(s.points);
        }
        t
    }

    /// Joins the reports of a split run: scenarios by name (a later report
    /// wins for a name seen twice), notes without repeats, times added up.
    pub fn merge(reports: Vec<Report>) -> Result<Report, String> {
        let mut merged = Report {
            chessgrade_report: REPORT_VERSION,
            subject: String::new(),
            partition: None,
            elapsed_secs: 0.0,
            notes: Vec::new(),
            scenarios: Vec::new(),
        };
        let mut by_name = std::collections::BTreeMap::new();
        for r in reports {
            if r.chessgrade_report != REPORT_VERSION {
                return Err(format!(
                    "unsupported report version {}",
                    r.chessgrade_report
                ));
            }
            if merged.subject.is_empty() {
                merged.subject = r.subject.clone();
            } else if merged.subject != r.subject {
                return Err(format!(
                    "reports grade different subjects: `{}` and `{}`",
                    merged.subject, r.subject
                ));
            }
            merged.elapsed_secs += r.elapsed_secs;
            for n in r.notes {
                if !merged.notes.contains(&n) {
                    merged.notes.push(n);
                }
            }
            for s in r.scenarios {
                by_name.insert(s.name.clone(), s);
            }
        }
        merged.scenarios = by_name.into_values().collect();
        Ok(merged)
    }
}

impl ScenarioRecord {
    fn from_result(r: &ScenarioResult) -> ScenarioRecord {
        let (status, class, line, step, message) = match &r.verdict {
            Verdict::Pass => (Status::Pass, None, None, None, String::new()),
            Verdict::Updated { path, .. } => (
                Status::Updated,
                None,
                None,
                None,
                format!("wrote {}", path.display()),
            ),
            Verdict::NoSnapshot => (
                Status::Fail,
                Some("no_snapshot".to_string()),
                None,
                None,
                "no snapshot to compare with".to_string(),
            ),
            Verdict::InputError(d) => (
                Status::Error,
                Some("input_error".to_string()),
                (d.line > 0).then_some(d.line as u32),
                None,
                d.to_string().lines().next().unwrap_or_default().to_string(),
            ),
            Verdict::Fail(f) => {
                let what = match &f.kind {
                    FailureKind::WrongAnswer(_) => {
                        "a call did not match the expected answer".to_string()
                    }
                    FailureKind::BoardOutOfSync { .. } => "the board is out of sync".to_string(),
                    FailureKind::Subject(e) => e.to_string(),
                    FailureKind::CompileError(_) => "compile error".to_string(),
                    FailureKind::Transcript(t) => t.problem.to_string(),
                };
                let at = f.line.map_or(String::new(), |l| format!(" at line {l}"));
                let step = f
                    .step_source
                    .as_deref()
                    .map_or(String::new(), |s| format!(": {s}"));
                (
                    Status::Fail,
                    Some(f.kind.class().to_string()),
                    f.line,
                    f.step_source.clone(),
                    format!("{what}{at}{step}"),
                )
            }
        };
        let details = if status == Status::Pass {
            String::new()
        } else {
            plain_details(r)
        };
        ScenarioRecord {
            name: r.name.display().to_string(),
            path: r.path.display().to_string(),
            points: r.points,
            earned: r.earned(),
            visibility: r.visibility.name().to_string(),
            status,
            class,
            line,
            step,
            message,
            details,
            elapsed_secs: r.elapsed.as_secs_f64(),
        }
    }
}

/// The human report of one scenario, without colour.
fn plain_details(r: &ScenarioResult) -> String {
    let mut buf = Vec::new();
    let _ = HumanReporter::new(&mut buf).scenario(r);
    let text = String::from_utf8_lossy(&buf).into_owned();
    strip_ansi(&text)
}

/// Removes ANSI colour sequences (a human report may be coloured).
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str, status: Status, points: u32) -> ScenarioRecord {
        ScenarioRecord {
            name: name.into(),
            path: format!("scenarios/{name}"),
            points,
            earned: if status == Status::Pass { points } else { 0 },
            visibility: "visible".into(),
            status,
            class: None,
            line: None,
            step: None,
            message: String::new(),
            details: String::new(),
            elapsed_secs: 0.5,
        }
    }

    fn report(scenarios: Vec<ScenarioRecord>) -> Report {
        Report {
            chessgrade_report: REPORT_VERSION,
            subject: "engine".into(),
            partition: None,
            elapsed_secs: 1.0,
            notes: vec!["n".into()],
            scenarios,
        }
    }

    #[test]
    fn merging_slices_sorts_dedupes_and_totals() {
        let a = report(vec![
            record("b.txt", Status::Pass, 2),
            record("d.txt", Status::Fail, 1),
        ]);
        let b = report(vec![record("a.txt", Status::Pass, 3)]);
        let m = Report::merge(vec![a, b]).unwrap();
        let names: Vec<_> = m.scenarios.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, vec!["a.txt", "b.txt", "d.txt"]);
        assert_eq!(m.notes, vec!["n".to_string()]);
        assert_eq!(m.elapsed_secs, 2.0);
        let t = m.totals();
        assert_eq!((t.passed, t.failed, t.points, t.possible), (2, 1, 5, 6));
    }

    #[test]
    fn reports_of_different_subjects_do_not_merge() {
        let a = report(vec![]);
        let mut b = report(vec![]);
        b.subject = "other".into();
        assert!(Report::merge(vec![a, b]).is_err());
    }

    #[test]
    fn json_round_trips() {
        let r = report(vec![record("a.txt", Status::Fail, 1)]);
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains("\"status\":\"fail\""));
        assert_eq!(serde_json::from_str::<Report>(&text).unwrap(), r);
    }

    #[test]
    fn ansi_sequences_are_stripped() {
        assert_eq!(strip_ansi("\u{1b}[1;31mFAIL\u{1b}[0m x"), "FAIL x");
    }
}
