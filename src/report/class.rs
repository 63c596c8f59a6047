//! The class report: every submission's [`Report`] side by side. As text,
//! one table (submission × points, passed, failed, failures by class) and
//! the failure classes over the whole class; as JSON, the reports
//! themselves under one header; as HTML, `html::page` over them.
//!
//! A class graded in shards (`grade --class --shard K/N`) writes one
//! slice per machine; [`ClassReport::merge`] joins them into the report
//! one machine would have written. So that slices can be told apart, every
//! class report names its class ([`ClassIdentity`]: a fingerprint of the
//! whole member list, all shards together), its run ([`RunIdentity`]: the
//! scenarios) and, for a slice, its shard ([`SliceInfo`]); `merge` refuses
//! missing, duplicate and foreign slices with the reason. The fields are
//! optional in the JSON, so older class reports still read.

use super::model::{MergeError, MergeProblem, Merging, Report, RunIdentity, Status, fingerprint};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Bumped when the class JSON's shape changes incompatibly.
pub const CLASS_REPORT_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ClassReport {
    pub chessgrade_class_report: u32,
    /// The whole class this report (or slice) is of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<ClassIdentity>,
    /// The scenarios every member was graded on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunIdentity>,
    /// Which shard of the class this slice holds (none: the whole class).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<SliceInfo>,
    pub submissions: Vec<Report>,
}

/// What makes slices "of one class": the full member list.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ClassIdentity {
    /// FNV-1a (64 bit, hex) of the sorted member names, one per line.
    pub fingerprint: String,
    /// How many members the whole class has (all shards together).
    pub members: usize,
}

impl ClassIdentity {
    /// The identity of a class of these members (any order).
    pub fn of<S: AsRef<str>>(names: &[S]) -> ClassIdentity {
        let (fingerprint, members) = fingerprint(names);
        ClassIdentity {
            fingerprint,
            members,
        }
    }
}

/// A slice's shard: `index` (1-based) of `count`, and where the numbers
/// came from (`--shard`, or the engine and its variables).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct SliceInfo {
    pub index: usize,
    pub count: usize,
    pub from: String,
}

impl ClassReport {
    /// The class run's exit code, the same rule as one batch's: 2 when
    /// the staff's side went wrong (`staff_errors`: a build that could not
    /// start, an unreadable scenario), else 1 when any submission failed a
    /// scenario, else 0.
    pub fn exit_code(&self, staff_errors: bool) -> u8 {
        if staff_errors {
            2
        } else if self
            .submissions
            .iter()
            .any(|r| r.totals().failed + r.totals().errors > 0)
        {
            1
        } else {
            0
        }
    }

    pub fn new(submissions: Vec<Report>) -> ClassReport {
        ClassReport {
            chessgrade_class_report: CLASS_REPORT_VERSION,
            class: None,
            run: None,
            shard: None,
            submissions,
        }
    }

    /// The report, marked as of `class` graded on `run`.
    pub fn with_identity(mut self, class: ClassIdentity, run: RunIdentity) -> ClassReport {
        self.class = Some(class);
        self.run = Some(run);
        self
    }

    /// The report, marked as the slice `shard` of its class.
    pub fn with_shard(mut self, shard: SliceInfo) -> ClassReport {
        self.shard = Some(shard);
        self
    }

    /// Joins the slices of a class graded in shards, each named (its
    /// file) for the errors, into the report of the whole class: they must
    /// be of one class (same member list) and one run (same scenarios),
    /// split the same way, each shard once and every shard present, and
    /// together hold every member exactly once. A whole class report counts
    /// as shard 1/1. Submissions come out by name, as one machine lists
    /// them.
    pub fn merge(slices: Vec<(String, ClassReport)>) -> Result<ClassReport, MergeError> {
        use MergeProblem as P;
        let fail = |problem| Merging::Class.error(problem);
        let Some((first_name, first)) = slices.first() else {
            return Err(fail(P::Nothing));
        };
        let mut shards: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        let mut count = None;
        for (name, r) in &slices {
            if r.chessgrade_class_report != CLASS_REPORT_VERSION {
                return Err(fail(P::Version {
                    file: name.clone(),
                    version: r.chessgrade_class_report,
                }));
            }
            if r.class.is_none() || r.run.is_none() {
                return Err(fail(P::NoIdentity { file: name.clone() }));
            }
            if r.class != first.class {
                return Err(fail(P::OtherClass {
                    first: first_name.clone(),
                    other: name.clone(),
                }));
            }
            if r.run != first.run {
                return Err(fail(P::OtherRun {
                    first: first_name.clone(),
                    other: name.clone(),
                }));
            }
            let (k, n) = r.shard.as_ref().map_or((1, 1), |s| (s.index, s.count));
            if k == 0 || k > n {
                return Err(fail(P::BadSlice {
                    file: name.clone(),
                    slice: format!("{k}/{n}"),
                }));
            }
            if *count.get_or_insert(n) != n {
                return Err(fail(P::DifferentSplits {
                    first: first_name.clone(),
                    other: name.clone(),
                }));
            }
            shards.entry(k).or_default().push(name.clone());
        }
        Merging::Class.check_slices(&shards, count.unwrap_or(1))?;
        let class = first.class.clone().expect("checked above");
        let run = first.run.clone();
        let mut by_name: BTreeMap<String, (String, Report)> = BTreeMap::new();
        for (file, r) in slices {
            for sub in r.submissions {
                if let Some((other, _)) = by_name.get(&sub.subject) {
                    return Err(fail(P::Duplicate {
                        name: sub.subject,
                        files: [other.clone(), file],
                    }));
                }
                by_name.insert(sub.subject.clone(), (file.clone(), sub));
            }
        }
        let names: Vec<&String> = by_name.keys().collect();
        if ClassIdentity::of(&names) != class {
            return Err(fail(P::Coverage {
                expected: class.members,
                found: names.len(),
            }));
        }
        Ok(ClassReport {
            chessgrade_class_report: CLASS_REPORT_VERSION,
            class: Some(class),
            run,
            shard: None,
            submissions: by_name.into_values().map(|(_, r)| r).collect(),
        })
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
            compile_error: None,
            scenarios: classes
                .iter()
                .enumerate()
                .map(|(i, c)| ScenarioRecord {
                    name: format!("s{i}.txt"),
                    path: String::new(),
                    rules: None,
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
                    changes: Vec::new(),
                })
                .collect(),
            run: None,
            changes: Default::default(),
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
    /// Shard `k` of `n` of the class amy, bo, cy graded on s0..s2.
    fn slice(k: usize, n: usize, members: &[&str]) -> (String, ClassReport) {
        let r = ClassReport::new(members.iter().map(|m| report(m, &[None; 3])).collect())
            .with_identity(
                ClassIdentity::of(&["cy", "amy", "bo"]),
                RunIdentity::of(&["s0.txt", "s1.txt", "s2.txt"]),
            )
            .with_shard(SliceInfo {
                index: k,
                count: n,
                from: "--shard".into(),
            });
        (format!("slice-{k}.json"), r)
    }

    fn two() -> Vec<(String, ClassReport)> {
        vec![slice(2, 2, &["bo"]), slice(1, 2, &["amy", "cy"])]
    }

    #[test]
    fn slices_merge_into_the_whole_class_by_name() {
        let m = ClassReport::merge(two()).unwrap();
        let names: Vec<&str> = m.submissions.iter().map(|r| r.subject.as_str()).collect();
        assert_eq!(names, ["amy", "bo", "cy"]);
        assert_eq!(m.shard, None);
        assert_eq!(m.class, Some(ClassIdentity::of(&["amy", "bo", "cy"])));
        // A whole class report is its own one shard.
        let mut whole = m.clone();
        whole.shard = None;
        assert_eq!(ClassReport::merge(vec![("all.json".into(), whole)]), Ok(m));
        // An empty shard (more shards than members) is a slice like any other.
        let three = vec![
            slice(1, 3, &["amy"]),
            slice(2, 3, &["bo", "cy"]),
            slice(3, 3, &[]),
        ];
        assert_eq!(ClassReport::merge(three).unwrap().submissions.len(), 3);
    }

    #[test]
    fn missing_duplicate_and_foreign_slices_are_refused_by_name() {
        let mut one = two();
        one.pop();
        assert_eq!(
            ClassReport::merge(one).unwrap_err().to_string(),
            "missing shards: shard 1/2"
        );
        let mut again = two();
        let mut copy = again[0].clone();
        copy.0 = "copy.json".into();
        again.push(copy);
        assert_eq!(
            ClassReport::merge(again).unwrap_err().to_string(),
            "duplicate shards: shard 2/2 in slice-2.json and copy.json"
        );
        let mut other_class = two();
        other_class[1].1.class = Some(ClassIdentity::of(&["amy", "bo", "cy", "dee"]));
        assert!(
            ClassReport::merge(other_class)
                .unwrap_err()
                .to_string()
                .starts_with("slice-2.json and slice-1.json are slices of different classes")
        );
        let mut other_run = two();
        other_run[1].1.run = Some(RunIdentity::of(&["s0.txt"]));
        assert_eq!(
            ClassReport::merge(other_run).unwrap_err().to_string(),
            "slice-2.json and slice-1.json graded the class on different scenarios"
        );
        let mut old = two();
        old[0].1.class = None;
        assert_eq!(
            ClassReport::merge(old).unwrap_err(),
            Merging::Class.error(MergeProblem::NoIdentity {
                file: "slice-2.json".into()
            })
        );
        let split = vec![slice(1, 2, &["amy", "cy"]), slice(2, 3, &["bo"])];
        assert!(matches!(
            ClassReport::merge(split),
            Err(MergeError {
                of: Merging::Class,
                problem: MergeProblem::DifferentSplits { .. }
            })
        ));
    }

    #[test]
    fn slices_must_hold_every_member_once() {
        let twice = vec![slice(1, 2, &["amy", "bo"]), slice(2, 2, &["bo", "cy"])];
        assert_eq!(
            ClassReport::merge(twice).unwrap_err().to_string(),
            "submission bo is in both slice-1.json and slice-2.json"
        );
        let short = vec![slice(1, 2, &["amy"]), slice(2, 2, &["cy"])];
        assert_eq!(
            ClassReport::merge(short).unwrap_err().to_string(),
            "the slices hold 2 of the class's 3 submissions"
        );
        // The right count of the wrong names is caught too.
        let wrong = vec![slice(1, 2, &["amy", "bo"]), slice(2, 2, &["dee"])];
        assert_eq!(
            ClassReport::merge(wrong).unwrap_err().to_string(),
            "the slices' 3 submissions are not the class's 3 (other names: was the class folder the same on every machine?)"
        );
    }

    #[test]
    fn older_class_reports_still_read() {
        let text = r#"{"chessgrade_class_report": 1, "submissions": []}"#;
        let r: ClassReport = serde_json::from_str(text).unwrap();
        assert_eq!((r.class, r.run, r.shard), (None, None, None));
    }
}
