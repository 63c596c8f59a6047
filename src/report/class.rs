//! The class report: every submission's [`Report`] side by side. As text,
//! one table (submission × points, passed, failed, failures by class) and
//! the failure classes over the whole class; as JSON, the reports
//! themselves under one header; as HTML, `html::page` over them.

use super::model::{Report, Status};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Bumped when the class JSON's shape changes incompatibly.
pub const CLASS_REPORT_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ClassReport {
    pub chessgrade_class_report: u32,
    pub submissions: Vec<Report>,
}

impl ClassReport {
    pub fn new(submissions: Vec<Report>) -> ClassReport {
        ClassReport {
            chessgrade_class_report: CLASS_REPORT_VERSION,
            submissions,
        }
    }

    /// Failures by class over one report, most frequent first.
    pub fn classes(report: &Report) -> Vec<(String, usize)> {
        count(std::slice::from_ref(report))
    }

    /// The summary table as text.
    pub fn table(&self) -> String {
        let name_w = self
            .submissions
            .iter()
            .map(|r| r.subject.chars().count())
            .max()
            .unwrap_or(0)
            .max("submission".len());
        let mut out = format!(
            "{:<name_w$}  {:>9}  {:>6}  {:>6}  failures by class\n",
            "submission", "points", "passed", "failed"
        );
        for r in &self.submissions {
            let t = r.totals();
            let classes: Vec<String> = Self::classes(r)
                .iter()
                .map(|(c, n)| format!("{c} {n}"))
                .collect();
            let row = format!(
                "{:<name_w$}  {:>9}  {:>6}  {:>6}  {}",
                r.subject,
                format!("{}/{}", t.points, t.possible),
                t.passed,
                t.failed + t.errors,
                classes.join(", ")
            );
            let _ = writeln!(out, "{}", row.trim_end());
        }
        let all = count(&self.submissions);
        if !all.is_empty() {
            let list: Vec<String> = all.iter().map(|(c, n)| format!("{c} {n}")).collect();
            let _ = writeln!(out, "\nfailures in the class: {}", list.join(", "));
        }
        out
    }
}

fn count(reports: &[Report]) -> Vec<(String, usize)> {
    let mut by: BTreeMap<String, usize> = BTreeMap::new();
    for r in reports {
        for s in &r.scenarios {
            if matches!(s.status, Status::Fail | Status::Error) {
                *by.entry(s.class.clone().unwrap_or_else(|| "failure".into()))
                    .or_default() += 1;
            }
        }
    }
    let mut v: Vec<(String, usize)> = by.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::{REPORT_VERSION, ScenarioRecord};

    fn report(subject: &str, classes: &[Option<&str>]) -> Report {
        Report {
            chessgrade_report: REPORT_VERSION,
            subject: subject.into(),
            partition: None,
            elapsed_secs: 0.0,
            notes: vec![],
            scenarios: classes
                .iter()
                .enumerate()
                .map(|(i, c)| ScenarioRecord {
                    name: format!("s{i}.txt"),
                    path: String::new(),
                    points: 2,
                    earned: if c.is_none() { 2 } else { 0 },
                    visibility: "visible".into(),
                    status: if c.is_none() {
                        Status::Pass
                    } else {
                        Status::Fail
                    },
                    class: c.map(String::from),
                    line: None,
                    step: None,
                    message: String::new(),
                    details: String::new(),
                    elapsed_secs: 0.0,
                    boards: vec![],
                    memory: None,
                })
                .collect(),
            run: None,
        }
    }

    #[test]
    fn the_table_has_a_row_per_submission_and_counts_classes() {
        let class = ClassReport::new(vec![
            report("alice", &[None, None, None]),
            report("bob", &[None, Some("wrong_answer"), Some("timeout")]),
            report("carol-with-long-name", &[Some("compile_error"); 3]),
        ]);
        assert_eq!(
            class.table(),
            "submission               points  passed  failed  failures by class\n\
             alice                       6/6       3       0\n\
             bob                         2/6       1       2  timeout 1, wrong_answer 1\n\
             carol-with-long-name        0/6       0       3  compile_error 3\n\
             \nfailures in the class: compile_error 3, timeout 1, wrong_answer 1\n"
        );
    }
}
