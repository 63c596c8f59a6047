//! Class mode: grade every submission of a class folder (one sub-folder
//! per student, named after it) against one set of scenarios. Submissions
//! are graded in parallel within one job budget; each one's build and run
//! is isolated, so a submission that does not compile, crashes or lacks its
//! files scores 0 with its reason and never stops the class. Only a problem
//! on the staff side (the compiler cannot start) is reported as such.
//!
//! A class is of one kind of upload: the class's one [`Plan`] (the
//! grading layer's upload rule: the scenarios pick the kind, never an
//! upload), so that one student's odd upload cannot change how the others
//! are graded: an upload of the other kind is that student's "not a
//! recognised submission".
//!
//! A class can also be graded in shards, one share of its members per
//! machine ([`shard`]), and the slices merged into one class report
//! (`report::ClassReport::merge`).
//!
//! This module computes; the per-submission [`Report`]s and the class
//! table are rendered by `report`.

pub mod roster;
mod run;
pub mod shard;
mod stage;

pub use roster::{Naming, Roster, Student};
pub use run::{ClassOutcome, ClassRun, ClassSpec};

use crate::grading::Plan;
use crate::report::{Report, RunIdentity};
use crate::runner::{self, FailureKind, Found, ScenarioResult, SnapshotMode};
use crate::snapshot::SnapshotStore;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// One submission of a class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The submission's name in every report: its folder's (or zip's)
    /// name, or its students' where the class export says them
    /// ([`roster`]).
    pub name: String,
    /// Its upload: a folder, or a zip file.
    pub dir: PathBuf,
    /// Who submitted it, where the export says (a group lists each).
    pub students: Vec<Student>,
}

/// The members of a class folder, sorted by name (hidden folders and
/// packaging debris skipped), and the rule that named them ([`roster`]).
pub fn members(class_dir: &Path) -> Result<Roster, crate::grading::StaffError> {
    roster::read(class_dir)
}

/// A member's name as a file name of its own report (`--output-dir`): a
/// name from a class export may hold `/` or start with `.`.
pub fn file_stem(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | '\0') || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    match safe.strip_prefix('.') {
        Some(rest) => format!("_{rest}"),
        None => safe,
    }
}

/// Whether `dir` looks like a class (a folder of submission folders)
/// rather than one submission: the upload reader finds several programs
/// in it, each in a folder of its own (`crate::upload`).
pub fn looks_like_class(dir: &Path) -> bool {
    matches!(
        crate::upload::Upload::read(dir),
        Err(crate::upload::ReadError::SeveralPrograms(_))
    )
}

/// How to grade each member.
#[derive(Clone, Debug)]
pub struct ClassOptions {
    /// The class's one plan: which kind of upload, how it is built and run
    /// (chosen by the scenarios, never by one member's upload).
    pub plan: Plan,
    /// The whole class's job budget (builds and scenario runs).
    pub jobs: usize,
    pub mode: SnapshotMode,
}

/// One member, graded.
#[derive(Debug)]
pub struct Graded {
    pub member: Member,
    /// Notes from the build (files left out, ...).
    pub notes: Vec<String>,
    /// The compiler's message, when the upload did not compile.
    pub compile_error: Option<String>,
    pub results: Vec<ScenarioResult>,
    /// A staff-side problem (the build could not even start).
    pub staff_error: Option<String>,
    /// Its build came from the build cache (nothing compiled).
    pub from_cache: bool,
    pub elapsed: Duration,
}

impl Graded {
    /// The member's report, part of the run `identity`.
    pub fn report(&self, identity: &RunIdentity) -> Report {
        let mut notes = self.notes.clone();
        notes.extend(self.staff_error.iter().cloned());
        Report::new(
            self.member.name.clone(),
            None,
            self.elapsed.as_secs_f64(),
            notes,
            &self.results,
        )
        .with_compile_error(self.compile_error.clone())
        .with_run(identity.clone())
    }
}

/// Grades every member against `found`, `opts.jobs` at a time in all:
/// up to that many members at once, each with its share of the budget.
/// `on_done` sees each member as it finishes (any order); the result is in
/// member order.
pub fn grade_class(
    members: &[Member],
    found: &[Found],
    store: &SnapshotStore,
    opts: &ClassOptions,
    on_done: &(dyn Fn(&Graded) + Sync),
) -> Vec<Graded> {
    let jobs = opts.jobs.max(1);
    let workers = jobs.min(members.len()).max(1);
    let per_member = (jobs / workers).max(1);
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Graded>>> = Mutex::new((0..members.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(m) = members.get(i) else { break };
                    let g = grade_one(m, found, store, opts, per_member);
                    on_done(&g);
                    done.lock().expect("no worker panics holding it")[i] = Some(g);
                }
            });
        }
    });
    done.into_inner()
        .expect("no worker panics holding it")
        .into_iter()
        .flatten()
        .collect()
}

/// Builds and grades one member; whatever goes wrong is its result,
/// except a build that could not even start (the staff's, kept apart).
pub fn grade_one(
    m: &Member,
    found: &[Found],
    store: &SnapshotStore,
    opts: &ClassOptions,
    jobs: usize,
) -> Graded {
    let started = Instant::now();
    let mut from_cache = false;
    let mut compile_error = None;
    let (mut notes, results, staff_error) = match opts.plan.build(&m.dir) {
        Ok(prepared) => {
            from_cache = prepared.from_cache();
            compile_error = prepared.compile_error().map(str::to_string);
            let mut results = prepared.run(found, jobs, store, opts.mode, false, |_| {});
            results.extend(prepared.leak_item(&results));
            // A scenario the grader could not grade (it ran short) is the
            // staff's to fix, as a build that could not start is.
            let staff_error = results.iter().find_map(|r| match &r.verdict {
                runner::Verdict::Fail(f) => match &f.kind {
                    FailureKind::NotGraded(why) => Some(format!("{}: {why}", r.name.display())),
                    _ => None,
                },
                _ => None,
            });
            (prepared.report_notes(), results, staff_error)
        }
        Err(e) => {
            // The staff's problem, not the student's result: no scenario is
            // a compile error or any other score of theirs.
            let kind = FailureKind::NotGraded(e.to_string());
            let mut results: Vec<ScenarioResult> = found
                .iter()
                .map(|f| runner::not_run(f, kind.clone()))
                .collect();
            // The leak item too, so that every member is graded out of the
            // same points.
            if let Some(crate::memcheck::LeakPolicy::Item(points)) =
                opts.plan.memcheck().map(|m| m.policy.leaks)
            {
                results.push(crate::runner::leak_item_not_run(kind, points));
            }
            (Vec::new(), results, Some(e.to_string()))
        }
    };
    if !m.students.is_empty() {
        let who: Vec<String> = m.students.iter().map(Student::describe).collect();
        let upload = m.dir.file_name().unwrap_or_default().to_string_lossy();
        notes.insert(0, format!("submitted by {} ({upload})", who.join("; ")));
    }
    Graded {
        member: m.clone(),
        notes,
        compile_error,
        results,
        staff_error,
        from_cache,
        elapsed: started.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_the_sorted_visible_subfolders() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["bob", "alice", ".git"] {
            std::fs::create_dir(dir.path().join(name)).unwrap();
        }
        std::fs::write(dir.path().join("grades.csv"), "").unwrap();
        let names: Vec<String> = members(dir.path())
            .unwrap()
            .members
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(names, ["alice", "bob"]);
        let empty = tempfile::tempdir().unwrap();
        assert!(
            members(empty.path())
                .unwrap_err()
                .to_string()
                .contains("no submission folders")
        );
    }

    #[test]
    fn a_folder_of_submissions_looks_like_a_class_and_one_submission_does_not() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a", "b"] {
            std::fs::create_dir_all(dir.path().join(name)).unwrap();
            std::fs::write(dir.path().join(name).join("ChessBoard.hh"), "").unwrap();
            std::fs::write(dir.path().join(name).join("ChessBoard.cc"), "").unwrap();
        }
        // A zip of the class made on a Mac: its debris is no member.
        std::fs::create_dir_all(dir.path().join("__MACOSX/a")).unwrap();
        std::fs::write(dir.path().join("__MACOSX/a/._ChessBoard.cc"), "").unwrap();
        assert!(looks_like_class(dir.path()));
        let names: Vec<String> = members(dir.path())
            .unwrap()
            .members
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(names, ["a", "b"]);
        assert!(!looks_like_class(&dir.path().join("a")));
        // One unpacked archive folder is one submission.
        let one = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(one.path().join("upload")).unwrap();
        std::fs::write(one.path().join("upload/ChessBoard.hh"), "").unwrap();
        std::fs::write(one.path().join("upload/ChessBoard.cc"), "").unwrap();
        assert!(!looks_like_class(one.path()));
    }
}
