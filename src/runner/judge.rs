//! Judging one scenario: execute it, then find the first thing that went
//! wrong, in scenario order, as the course grader would see it — a call
//! that returned the wrong value, a board out of sync after a step, or the
//! subject failing outright. At the same line a wrong value wins over a
//! board difference.

use super::{
    Failure, FailureKind, Found, MemoryFailure, ScenarioResult, SnapshotMode, StepFailure, Verdict,
    Written, execute,
};
use crate::compare::{Detail, changes, compare};
use crate::engine::{Board, BoardText};
use crate::memcheck::{Checked, ErrorPolicy, Findings};
use crate::scenario::{Diagnostic, Scenario};
use crate::snapshot::{Snapshot, SnapshotStore};
use crate::subject::{Setup, Subject, SubjectError};
use crate::trace::{TooLarge, Trace};
use std::collections::HashMap;

/// The scenario's verdict, and what a memory check found in it.
pub(super) fn judge(
    found: &Found,
    scenario: &Scenario,
    subject: &mut dyn Subject,
    store: &SnapshotStore,
    mode: SnapshotMode,
) -> (Verdict, Option<Findings>) {
    let mut memory = None;
    let verdict = judge_trace(found, scenario, subject, store, mode, &mut memory);
    (verdict, memory.map(|m| m.findings))
}

/// The memory error that fails the scenario, if the policy says errors
/// fail: at the step where the subject stopped (`stopped`: the checker
/// stops a process at its first error), or after the last step.
fn failing_memory_error(memory: &Option<Checked>, stopped: bool) -> Option<FailureKind> {
    let m = memory.as_ref().filter(|m| m.errors == ErrorPolicy::Fail)?;
    let error = m.findings.error.clone()?;
    Some(FailureKind::MemoryError(Box::new(MemoryFailure {
        tool: m.findings.tool,
        error,
        at_end: !stopped,
    })))
}

fn judge_trace(
    found: &Found,
    scenario: &Scenario,
    subject: &mut dyn Subject,
    store: &SnapshotStore,
    mode: SnapshotMode,
    memory: &mut Option<Checked>,
) -> Verdict {
    // The file's text, for quoting a step in a report: read again only
    // when something is reported (the parsed scenario does not keep it).
    let source = || {
        crate::scenario::read_regular_file(&found.path, found.caps.input_bytes)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    };
    if let Err(too_large) = crate::trace::check_size(scenario, found.caps.trace_bytes) {
        return too_large_input(found, &too_large, &source());
    }
    let execution = execute(scenario, subject);
    subject.finish();
    *memory = subject.memory();
    let trace = &execution.trace;

    let expected = match load_snapshot(found, store) {
        Ok(snap) => snap,
        Err(verdict) => return verdict,
    };
    if let Some(StepFailure {
        line,
        error: SubjectError::NotGradable(why),
    }) = &execution.failure
    {
        return not_gradable(found, *line, why, &source());
    }
    let actual = trace.render();
    let subject_failure = execution.failure.clone();
    // A memory error that fails the scenario: the subject's own failure
    // where it stopped there (the checker ended it), else after the end.
    let memory_error = failing_memory_error(memory, subject_failure.is_some());

    if subject_failure.is_none()
        && memory_error.is_none()
        && expected.as_ref().is_some_and(|s| s.matches(&actual))
    {
        if mode != SnapshotMode::Check {
            // A result that matches again makes any pending proposal stale.
            let _ = store.discard_pending(&found.rel);
        }
        return Verdict::Pass;
    }
    if subject_failure.is_none() && memory_error.is_none() && mode != SnapshotMode::Check {
        let written = match &expected {
            None => Written::New,
            Some(old) => Written::Changed(changes(&old.body, &actual)),
        };
        return write_snapshot(found, store, mode, &actual, written);
    }
    // Asked only now: a failure's report shows it, and a fork server's
    // child need not be waited for when the scenario passed.
    let stderr = subject.stderr_excerpt();
    let source = source();
    let wrong = FoundWrong::new(subject_failure, memory_error);
    let (line, kind) = match &expected {
        None => match wrong.without_snapshot() {
            Some(first) => first,
            None => return Verdict::NoSnapshot,
        },
        Some(expected) => match wrong.first(scenario, expected, &actual, trace) {
            Some(first) => first,
            // Only trailing whitespace differed; `matches` normalises it.
            None => return Verdict::Pass,
        },
    };
    // Whatever went wrong in a folder at its disk bound is the disk
    // limit's: a wrong answer too (the program went on after its write
    // failed). The subject's own failure says so already.
    let kind = match (subject.disk_reached(), kind) {
        (
            Some(reached),
            kind @ (FailureKind::WrongAnswer(_) | FailureKind::BoardOutOfSync { .. }),
        ) => FailureKind::Subject(SubjectError::DiskLimit(format!(
            "{reached}; then {}",
            failure_words(&kind)
        ))),
        (_, kind) => kind,
    };
    Verdict::Fail(Box::new(Failure {
        kind,
        step_source: line.and_then(|l| step_text(&source, l).map(|s| s.trim().to_string())),
        board_before: line.map_or(trace.initial_board.clone(), |l| {
            trace.board_before(l).clone()
        }),
        line,
        stderr,
    }))
}

/// A wrong answer or a board out of sync in a few words (after a disk
/// limit's `then`).
fn failure_words(kind: &FailureKind) -> &'static str {
    match kind {
        FailureKind::BoardOutOfSync { .. } => "the board is out of sync",
        _ => "a call did not match the expected answer",
    }
}

/// Line `line` (1-based) of the scenario's text.
fn step_text(source: &str, line: u32) -> Option<&str> {
    source.lines().nth(line as usize - 1)
}

/// The input error of a scenario whose trace would pass the size bound,
/// at the step that passes it.
fn too_large_input(found: &Found, too_large: &TooLarge, source: &str) -> Verdict {
    let text = step_text(source, too_large.line).unwrap_or("");
    Verdict::InputError(
        Diagnostic::at(too_large.line as usize, 1, too_large.to_string(), text)
            .with_path(&found.path),
    )
}

/// The input error of a scenario the subject's adapter cannot serve (the
/// staff's problem: [`SubjectError::NotGradable`]), at its step.
fn not_gradable(found: &Found, line: Option<u32>, why: &str, source: &str) -> Verdict {
    let message = format!("not gradable through the course's hook file: {why}");
    Verdict::InputError(match line {
        Some(line) => {
            let text = step_text(source, line).unwrap_or("");
            Diagnostic::at(line as usize, 1, message, text).with_path(&found.path)
        }
        None => Diagnostic::file(&found.path, message),
    })
}

/// The scenario's snapshot (`None`: it has none yet), or the input error
/// of one that cannot be read.
fn load_snapshot(found: &Found, store: &SnapshotStore) -> Result<Option<Snapshot>, Verdict> {
    store.load(&found.rel).map_err(|e| {
        let path = store.path_for(&found.rel);
        Verdict::InputError(Diagnostic::file(
            &path,
            format!("cannot read snapshot: {e}"),
        ))
    })
}

/// What went wrong apart from the trace: the subject's failure (at its
/// step line, as reported) and a memory error that fails the scenario.
struct FoundWrong {
    subject_failure: Option<(Option<u32>, FailureKind)>,
    memory_error: Option<FailureKind>,
}

impl FoundWrong {
    /// The subject's failure as reported (the memory error that caused
    /// it, if any), and the memory error.
    fn new(subject_failure: Option<StepFailure>, memory_error: Option<FailureKind>) -> FoundWrong {
        let subject_failure = subject_failure.map(|f| {
            let kind = match (&memory_error, f.error) {
                (Some(m), _) => m.clone(),
                (None, error) => FailureKind::Subject(error),
            };
            (f.line, kind)
        });
        FoundWrong {
            subject_failure,
            memory_error,
        }
    }

    /// Without a snapshot to compare with: the subject's failure, else
    /// the memory error.
    fn without_snapshot(self) -> Option<(Option<u32>, FailureKind)> {
        match (self.subject_failure, self.memory_error) {
            (Some(first), _) => Some(first),
            (None, memory_error) => memory_error.map(|kind| (None, kind)),
        }
    }

    /// The first thing wrong, in scenario order, with its line (`None`:
    /// the setup or after the end); `None` when nothing is.
    fn first(
        self,
        scenario: &Scenario,
        expected: &Snapshot,
        actual: &str,
        trace: &Trace,
    ) -> Option<(Option<u32>, FailureKind)> {
        // Candidates for "first thing wrong", each with its scenario line
        // (setup = 0) and a rank that orders kinds at the same line.
        let mut candidates: Vec<(u32, u8, Option<u32>, FailureKind)> = Vec::new();
        if let Some(c) = self.wrong_answer(expected, actual) {
            candidates.push(c);
        }
        if let Some((line, exp, act)) = first_board_drift(scenario, expected, trace) {
            candidates.push((
                line.unwrap_or(0),
                1,
                line,
                FailureKind::BoardOutOfSync {
                    expected: exp,
                    actual: act,
                },
            ));
        }
        match self.subject_failure {
            Some((line, kind)) => candidates.push((line.unwrap_or(0), 2, line, kind)),
            // After every step: the last thing that can go wrong.
            None => {
                if let Some(kind) = self.memory_error {
                    candidates.push((u32::MAX, 3, None, kind));
                }
            }
        }
        candidates.sort_by_key(|c| (c.0, c.1));
        candidates
            .into_iter()
            .next()
            .map(|(_, _, line, kind)| (line, kind))
    }

    /// The first difference between the snapshot and the trace as a
    /// candidate (a wrong value ranks before a board out of sync), unless
    /// it is where the subject stopped: a trace cut short "differs" there,
    /// and that is the subject's failure, not a wrong answer.
    fn wrong_answer(
        &self,
        expected: &Snapshot,
        actual: &str,
    ) -> Option<(u32, u8, Option<u32>, FailureKind)> {
        let m = compare(&expected.body, actual)?;
        let line = m.scenario_line;
        let before_failure = match (&self.subject_failure, line) {
            (None, _) => true,
            (Some((fl, _)), Some(l)) => fl.is_some_and(|fl| l < fl),
            (Some(_), None) => false,
        };
        if !before_failure {
            return None;
        }
        let kind = match &m.detail {
            Detail::Move {
                expected_result,
                actual_result,
                expected_board: Some(e),
                actual_board: Some(a),
            } if expected_result == actual_result => FailureKind::BoardOutOfSync {
                expected: BoardText(e.clone()),
                actual: BoardText(a.clone()),
            },
            _ => FailureKind::WrongAnswer(m.clone()),
        };
        let rank = if matches!(kind, FailureKind::WrongAnswer(_)) {
            0
        } else {
            1
        };
        Some((line.unwrap_or(u32::MAX), rank, line, kind))
    }
}

/// A result of a reference (the built-in engine, or the course's own
/// program recording snapshots) as staff should read it: a step the
/// reference could not finish (over `--timeout`: a deep perft) or answer
/// (a crash, a malformed answer) is the staff's problem, not a wrong
/// answer, so the result becomes an input error located at that step and
/// naming the reference as `who` (exit 2; nothing is written for it), and
/// the batch goes on.
pub fn as_reference_result(
    mut result: ScenarioResult,
    who: &str,
    timeout_secs: f64,
) -> ScenarioResult {
    let Verdict::Fail(failure) = &result.verdict else {
        return result;
    };
    let FailureKind::Subject(error) = &failure.kind else {
        return result;
    };
    let message = match error {
        SubjectError::Timeout => format!(
            "{who} did not finish this scenario within --timeout {timeout_secs}s (stopped at this step)"
        ),
        other => format!("{who} could not run this step: {other}"),
    };
    let diag = match failure.line {
        Some(line) => Diagnostic::at(
            line as usize,
            1,
            message,
            failure.step_source.as_deref().unwrap_or(""),
        )
        .with_path(&result.path),
        None => Diagnostic::file(&result.path, message),
    };
    result.verdict = Verdict::InputError(diag);
    result
}

fn write_snapshot(
    found: &Found,
    store: &SnapshotStore,
    mode: SnapshotMode,
    actual: &str,
    written: Written,
) -> Verdict {
    let input = found.path.strip_prefix(".").unwrap_or(&found.path);
    let snap = Snapshot::new(input, actual).recorded_by(store.recorder());
    let saved = match mode {
        SnapshotMode::Accept => store.accept(&found.rel, &snap),
        _ => store.propose(&found.rel, &snap),
    };
    match saved {
        Ok(path) => Verdict::Updated { path, written },
        Err(e) => Verdict::InputError(Diagnostic::file(
            &store.path_for(&found.rel),
            format!("cannot write snapshot: {e}"),
        )),
    }
}

/// The board the snapshot expects after the setup (key `None`) and after
/// each step (by scenario line): the placements' board, then the `B` line
/// of every move, unchanged across scans.
pub fn expected_boards(
    scenario: &Scenario,
    expected: &Snapshot,
) -> (BoardText, HashMap<u32, BoardText>) {
    // The scenario parsed, so its setup is valid; an empty board is a safe fallback.
    let initial = Setup::of(scenario)
        .initial_position()
        .map_or_else(|_| Board::empty(scenario.dims).text(), |p| p.board_text());
    let mut after_move: HashMap<u32, BoardText> = HashMap::new();
    let mut lines = expected.body.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(n) = line
            .strip_prefix('L')
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
        else {
            continue;
        };
        if let Some(b) = lines.peek().and_then(|l| l.strip_prefix("  B ")) {
            after_move.insert(n, BoardText(b.to_string()));
        }
    }
    let mut current = initial.clone();
    let mut per_step = HashMap::new();
    for step in &scenario.steps {
        if let Some(b) = after_move.get(&step.line) {
            current = b.clone();
        }
        per_step.insert(step.line, current.clone());
    }
    (initial, per_step)
}

/// The first point (setup = `None`, else a step line) where the subject's
/// board differs from the expected board, with both boards.
fn first_board_drift(
    scenario: &Scenario,
    expected: &Snapshot,
    trace: &Trace,
) -> Option<(Option<u32>, BoardText, BoardText)> {
    let (initial, per_step) = expected_boards(scenario, expected);
    if !trace.initial_board.as_str().is_empty() && trace.initial_board != initial {
        return Some((None, initial, trace.initial_board.clone()));
    }
    trace.entries.iter().find_map(|e| {
        let exp = per_step.get(&e.line)?;
        (exp != &e.board_after).then(|| (Some(e.line), exp.clone(), e.board_after.clone()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Coord, Square};
    use crate::memcheck::{Access, Checked, ErrorKind, Findings, MemoryError, Tool};
    use crate::subject::EngineSubject;
    use std::path::PathBuf;

    /// The reference engine as a checked subject: its answers are right,
    /// its memory check reports `findings`, and it crashes at the
    /// `crash_at`-th `movePiece` (1-based) when asked to.
    struct CheckedEngine {
        engine: EngineSubject,
        memory: Checked,
        crash_at: Option<usize>,
        moves: usize,
    }

    impl Subject for CheckedEngine {
        fn setup(&mut self, setup: &Setup) -> Result<(), SubjectError> {
            self.engine.setup(setup)
        }
        fn valid_scan(&mut self) -> Result<Vec<(Square, Square)>, SubjectError> {
            self.engine.valid_scan()
        }
        fn threat_scan(&mut self) -> Result<Vec<Square>, SubjectError> {
            self.engine.threat_scan()
        }
        fn move_piece(&mut self, from: Coord, to: Coord) -> Result<bool, SubjectError> {
            self.moves += 1;
            if self.crash_at == Some(self.moves) {
                return Err(SubjectError::ExitedEarly(Some(1)));
            }
            self.engine.move_piece(from, to)
        }
        fn board(&mut self) -> Result<BoardText, SubjectError> {
            self.engine.board()
        }
        fn memory(&mut self) -> Option<Checked> {
            Some(self.memory.clone())
        }
    }

    const SCENARIO: &str =
        "1\n8 8\nw k 7 4\nb k 0 4\n~\nmovePiece 7 4 6 4\nmovePiece 0 4 1 4\nisValidScan\n";

    /// Judges `SCENARIO` (lines 6, 7, 8 are its steps) against the
    /// reference's own trace, with a memory error found and graded by `errors`.
    fn judged(errors: ErrorPolicy, crash_at: Option<usize>) -> (Verdict, Option<Findings>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.txt");
        std::fs::write(&path, SCENARIO).unwrap();
        let scenario = crate::scenario::parse(SCENARIO).unwrap();
        let store = SnapshotStore::new(dir.path().join("snapshots"));
        let found = Found::new(path, PathBuf::from("s.txt"));
        // The reference's answers are the expected ones.
        let mut reference = EngineSubject::new();
        assert!(matches!(
            judge(
                &found,
                &scenario,
                &mut reference,
                &store,
                SnapshotMode::Accept
            )
            .0,
            Verdict::Updated { .. }
        ));
        let error = MemoryError {
            kind: ErrorKind::UseAfterFree,
            access: Some(Access {
                write: false,
                size: 8,
            }),
            detail: "heap-use-after-free".into(),
            at: None,
            allocated: None,
            freed: None,
        };
        let mut subject = CheckedEngine {
            engine: EngineSubject::new(),
            memory: Checked {
                findings: Findings {
                    tool: Tool::Asan,
                    error: Some(error),
                    errors: 1,
                    leaks: None,
                },
                errors,
            },
            crash_at,
            moves: 0,
        };
        judge(&found, &scenario, &mut subject, &store, SnapshotMode::Check)
    }

    fn failure(v: &Verdict) -> (Option<u32>, &MemoryFailure) {
        let Verdict::Fail(f) = v else { panic!("{v:?}") };
        let FailureKind::MemoryError(m) = &f.kind else {
            panic!("{:?}", f.kind)
        };
        (f.line, m)
    }

    #[test]
    fn a_memory_error_that_stopped_the_subject_is_its_failure_at_that_step() {
        let (verdict, memory) = judged(ErrorPolicy::Fail, Some(2));
        let (line, m) = failure(&verdict);
        assert_eq!(line, Some(7), "the second movePiece");
        assert!(!m.at_end);
        assert_eq!(m.error.kind, ErrorKind::UseAfterFree);
        assert_eq!(memory.unwrap().errors, 1, "the findings stay on the result");
    }

    #[test]
    fn a_memory_error_after_right_answers_fails_the_scenario_at_its_end() {
        let (verdict, _) = judged(ErrorPolicy::Fail, None);
        let (line, m) = failure(&verdict);
        assert_eq!(line, None);
        assert!(m.at_end, "after the last step");
    }

    #[test]
    fn a_memory_error_as_a_note_leaves_the_verdict_to_the_answers() {
        let (verdict, memory) = judged(ErrorPolicy::Note, None);
        assert!(matches!(verdict, Verdict::Pass), "{verdict:?}");
        assert_eq!(memory.unwrap().error.unwrap().kind, ErrorKind::UseAfterFree);
        // A crash stays a crash: the error is only a note.
        let (verdict, _) = judged(ErrorPolicy::Note, Some(1));
        let Verdict::Fail(f) = verdict else { panic!() };
        assert!(matches!(f.kind, FailureKind::Subject(_)), "{:?}", f.kind);
    }
}
