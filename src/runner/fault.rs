//! A scenario that failed while the grader itself ran short is not the
//! student's result (issue 37, item 1).
//!
//! A sandbox bounds what a program may use; the machine under the grader
//! has limits of its own (its disk, where the sandboxes' folders are not
//! tmpfs of their own; its memory, guarded by the kernel's OOM killer). A
//! program whose write failed because the grader's disk was full, or that
//! the OOM killer ended, fails exactly as a wrong program does. So a failed
//! scenario is looked at once more (`sandbox::Headroom`): when the grader
//! measured a shortage while it ran, the scenario runs again; when the
//! second run fails with the grader short again, the scenario is
//! `not_graded` (a staff error: the run exits 2 naming the cause), never a
//! score. Only measured shortages count: a program can print "No space
//! left on device" itself.
//!
//! The look costs one small read of `/proc/vmstat` per scenario (and one
//! `statvfs` after a failure), and a retry only where the grader ran short.

use super::{FailureKind, ScenarioResult, Verdict};
use crate::sandbox::{GraderFault, Headroom};

/// Runs a scenario with `run`, once more when it failed while the grader
/// ran short, and `not_graded` when it did both times.
pub fn guarded(run: impl FnMut() -> ScenarioResult) -> ScenarioResult {
    guarded_by(Headroom::now, |h| h.measured_fault_since(), run)
}

/// [`guarded`] with the grader's look at itself given: `now` before a
/// run, `fault` after a failed one.
fn guarded_by<H>(
    now: impl Fn() -> H,
    fault: impl Fn(&H) -> Option<GraderFault>,
    mut run: impl FnMut() -> ScenarioResult,
) -> ScenarioResult {
    let mut attempt = || {
        let before = now();
        let result = run();
        let short = may_be_the_graders(&result)
            .then(|| fault(&before))
            .flatten();
        (result, short)
    };
    let (first, short) = attempt();
    if short.is_none() {
        return first;
    }
    match attempt() {
        (again, None) => again,
        (again, Some(fault)) => not_graded(again, &fault),
    }
}

/// Whether a shortage of the grader's could be why `result` failed: a
/// scenario that ran and went wrong. A pass, a build's or recognition's
/// failure (judged before any scenario ran), a scenario the staff's kit
/// cannot put to the classes, and the program's own folder at its bound
/// (its result, whatever the grader's disk) are not.
fn may_be_the_graders(result: &ScenarioResult) -> bool {
    let Verdict::Fail(failure) = &result.verdict else {
        return false;
    };
    !matches!(
        failure.kind,
        FailureKind::CompileError(_)
            | FailureKind::NotRecognised(_)
            | FailureKind::NotGraded(_)
            | FailureKind::Subject(crate::subject::SubjectError::NotGradable(_))
    ) && failure.kind.class() != "disk_limit"
}

/// `result` made `not_graded` for `fault`: no points, what ran short.
fn not_graded(mut result: ScenarioResult, fault: &GraderFault) -> ScenarioResult {
    if let Verdict::Fail(failure) = &mut result.verdict {
        failure.kind = FailureKind::NotGraded(format!(
            "the scenario failed twice while the grader ran short, not the program: {fault}; free what ran short and grade again"
        ));
        failure.line = None;
        failure.step_source = None;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::BoardText;
    use crate::runner::Failure;
    use crate::scenario::Visibility;
    use crate::subject::SubjectError;
    use std::cell::Cell;
    use std::path::PathBuf;
    use std::time::Duration;

    fn result(verdict: Verdict) -> ScenarioResult {
        ScenarioResult {
            path: PathBuf::from("s.txt"),
            name: PathBuf::from("s.txt"),
            points: 1,
            visibility: Visibility::Visible,
            verdict,
            elapsed: Duration::ZERO,
            memory: None,
            rules: None,
        }
    }

    fn failed(kind: FailureKind) -> ScenarioResult {
        result(Verdict::Fail(Box::new(Failure {
            kind,
            line: Some(3),
            step_source: Some("~ a2 a4".into()),
            board_before: BoardText(String::new()),
            stderr: None,
        })))
    }

    fn crash() -> ScenarioResult {
        failed(FailureKind::Subject(SubjectError::Crash("SIGKILL".into())))
    }

    /// The failure's class (`pass` for a pass).
    fn class(result: &ScenarioResult) -> &'static str {
        match &result.verdict {
            Verdict::Fail(f) => f.kind.class(),
            _ => "pass",
        }
    }

    const FULL: GraderFault = GraderFault::OutOfMemory { killed: 1 };

    /// Runs `guarded_by` with the grader short on the attempts `short`
    /// says, each attempt's result from `results`: (the result, attempts).
    fn run(short: &[bool], results: Vec<ScenarioResult>) -> (ScenarioResult, usize) {
        let attempt = Cell::new(0);
        let results = std::cell::RefCell::new(results.into_iter());
        let out = guarded_by(
            || attempt.get(),
            |&i| short[i].then_some(FULL),
            || {
                attempt.set(attempt.get() + 1);
                results.borrow_mut().next().expect("an attempt too many")
            },
        );
        (out, attempt.get())
    }

    #[test]
    fn a_failure_with_the_grader_short_twice_is_not_graded() {
        let (out, attempts) = run(&[true, true], vec![crash(), crash()]);
        assert_eq!(attempts, 2);
        let Verdict::Fail(f) = &out.verdict else {
            panic!("{out:?}")
        };
        assert_eq!(f.kind.class(), "not_graded");
        let FailureKind::NotGraded(why) = &f.kind else {
            unreachable!()
        };
        assert!(why.contains("OOM killer ended 1 process"), "{why}");
        assert_eq!((f.line, &f.step_source), (None, &None));
        assert_eq!(out.earned(), 0);
    }

    #[test]
    fn a_retry_that_runs_without_a_shortage_is_the_result() {
        // Passed the second time: the first failure was the grader's.
        let (out, attempts) = run(&[true, false], vec![crash(), result(Verdict::Pass)]);
        assert_eq!((attempts, out.earned()), (2, 1));
        // Failed the second time with room: the program's own failure.
        let (out, attempts) = run(&[true, false], vec![crash(), crash()]);
        assert_eq!(attempts, 2);
        assert_eq!(class(&out), "crash");
    }

    #[test]
    fn only_failures_with_the_grader_short_run_again() {
        let (out, attempts) = run(&[false], vec![crash()]);
        assert_eq!((attempts, class(&out)), (1, "crash"));
        let (_, attempts) = run(&[true], vec![result(Verdict::Pass)]);
        assert_eq!(attempts, 1, "a pass is a pass");
        // The program's own folder at its bound is its result.
        let disk = failed(FailureKind::Subject(SubjectError::DiskLimit("full".into())));
        let (out, attempts) = run(&[true], vec![disk]);
        assert_eq!((attempts, class(&out)), (1, "disk_limit"));
        let compile = failed(FailureKind::CompileError("error: ';'".into()));
        let (_, attempts) = run(&[true], vec![compile]);
        assert_eq!(attempts, 1);
    }
}
