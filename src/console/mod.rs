//! The console subject: grading a course's interactive program (JHU CS220's
//! `./chess`, CUHK CSCI1120's console game) on its transcript, the way the
//! course judges it.
//!
//! A scenario is first turned into a [`Plan`] by its course's dialect
//! ([`jhu`], [`cuhk`]), on the reference engine: the line of input each step
//! becomes, and the exact lines the course's program prints for it. The
//! dialects' texts are data ([`Texts`], `texts.json`, whose keys staff can
//! override with `--console-texts FILE`). A scenario that a dialect cannot
//! express (a setup the program cannot reach, a step it has no command for)
//! is [`NotGradable`] before anything runs: a staff-side problem, never a
//! student's 0.
//!
//! The program then runs once in the sandbox ([`run`]) with every input line
//! written up front and stdin closed after the last (exactly `cat cmds |
//! ./chess`, as the course suggests), stdout and stderr on one pipe so their
//! order is kept. Its output, ANSI codes stripped, is split at the course's
//! prompts: the text after the k-th prompt is the answer to the k-th input,
//! so a mismatch names the command that caused it ([`judge`]). CUHK's
//! machine players (modes 2 and 3) print moves no reference can predict:
//! those games are walked on the reference and judged by property
//! ([`machine`]).
//!
//! A run's setup (checking every scenario first, the one dialect, the
//! shim, building uploads) is [`ConsoleGrader`], shared by every way of
//! grading console programs (one upload, a built program, a class).

mod cuhk;
mod grader;
mod jhu;
mod machine;
mod run;
mod shim;
mod texts;

pub use grader::{
    BuiltUpload, ConsoleGrader, ConsoleOptions, SetupError, only_console, wants_console,
};
pub use machine::{MachineGame, MachineMode};
pub use run::{Outcome, RunEnd, run};
pub use shim::{SHIM_SOURCE, build_shim};
pub use texts::{CuhkTexts, JhuTexts, Texts};

use crate::engine::{BoardText, RuleSetId};
use crate::memcheck::Checker;
use crate::runner::{
    Failure, FailureKind, Found, ScenarioResult, TranscriptMismatch, TranscriptProblem, Verdict,
};
use crate::sandbox::{EngineCommand, Limits};
use crate::scenario::{self, Scenario, Visibility};
use crate::snapshot::SnapshotStore;
use crate::subject::EngineSubject;
use std::ffi::OsString;
use std::fmt;
use std::time::Instant;

/// The course whose program is being driven, chosen by the scenario's `@rules`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Jhu,
    Cuhk,
}

impl Dialect {
    /// The dialect for a rule set, if its course has a console program.
    pub fn of(rules: RuleSetId) -> Option<Dialect> {
        match rules {
            RuleSetId::Jhu => Some(Dialect::Jhu),
            RuleSetId::Cuhk => Some(Dialect::Cuhk),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Dialect::Jhu => "jhu",
            Dialect::Cuhk => "cuhk",
        }
    }
}

/// Why a scenario cannot be graded on a console program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotGradable {
    /// The scenario line at fault (`None`: the setup or the rules).
    pub line: Option<u32>,
    pub reason: String,
}

impl fmt::Display for NotGradable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

/// How a program's output is judged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judging {
    /// Only the lines that start with one of these texts (anywhere in a
    /// line: a board display may not end its last line) are compared; the
    /// rest (JHU's free-form board display) is ignored.
    Marked(Vec<String>),
    /// Every line is compared.
    Exact,
}

/// A scenario as a console session: files to write, the program's
/// arguments, one exchange per line of input, and how it must end.
#[derive(Clone, Debug)]
pub struct Plan {
    pub dialect: Dialect,
    /// Files written in the program's working directory before it starts.
    pub files: Vec<(String, Vec<u8>)>,
    /// The program's command-line arguments.
    pub args: Vec<String>,
    /// The prompts the output is split at (each one reads one input line).
    pub prompts: Vec<String>,
    pub judging: Judging,
    pub ignore_trailing_space: bool,
    /// `exchanges[0]` is the output before the first prompt (no input);
    /// `exchanges[k]` is the answer to the k-th input line.
    pub exchanges: Vec<Exchange>,
    /// The exit status the course's program ends with.
    pub exit_status: i32,
    /// CUHK modes 2 and 3: the transcript is judged by property on the
    /// reference ([`machine`]), not against `exchanges`' expected lines
    /// (which then only carry the input).
    pub machine: Option<MachineGame>,
}

/// One command and what the course's program prints for it.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// The scenario line it comes from (`None`: the setup).
    pub line: Option<u32>,
    /// The line of input that precedes this output (`None` for the first).
    pub input: Option<String>,
    /// The judged lines the program must print.
    pub expected: Vec<String>,
    /// The reference's board before the command.
    pub board_before: BoardText,
    /// Files the program must have written, checked after this exchange.
    pub saves: Vec<SaveCheck>,
}

/// A file the program must write, byte for byte.
#[derive(Clone, Debug)]
pub struct SaveCheck {
    pub line: u32,
    pub file: String,
    pub expected: Vec<u8>,
}

impl Plan {
    /// The input lines, in order.
    pub fn inputs(&self) -> impl Iterator<Item = &str> {
        self.exchanges.iter().filter_map(|e| e.input.as_deref())
    }
}

/// Turns a scenario into its course's console session.
pub fn plan(scenario: &Scenario, texts: &Texts) -> Result<Plan, NotGradable> {
    match Dialect::of(scenario.directives.rules) {
        Some(Dialect::Jhu) => jhu::plan(scenario, &texts.jhu),
        Some(Dialect::Cuhk) => cuhk::plan(scenario, &texts.cuhk),
        None => Err(NotGradable {
            line: None,
            reason: format!(
                "`@rules {}` has no console program (console grading knows jhu and cuhk)",
                scenario.directives.rules
            ),
        }),
    }
}

/// Checks, before anything runs, that a scenario can be graded on a
/// console program: it parses, its dialect can express it, and the
/// reference still agrees with its reviewed snapshot (when there is one),
/// so that the expected text follows reviewed expectations.
pub fn check_gradable(found: &Found, texts: &Texts, store: &SnapshotStore) -> Result<Plan, String> {
    let name = found.path.display();
    let scenario = scenario::load(&found.path).map_err(|d| d.to_string())?;
    let plan =
        plan(&scenario, texts).map_err(|e| format!("{name}: not gradable by console: {e}"))?;
    if let Ok(Some(snap)) = store.load(&found.rel) {
        let trace = crate::runner::execute(&scenario, &mut EngineSubject::new())
            .trace
            .render();
        if !snap.matches(&trace) {
            return Err(format!(
                "{name}: the reference engine no longer agrees with the reviewed snapshot {} (run `chessgrade run` and review it first)",
                store.path_for(&found.rel).display()
            ));
        }
    }
    Ok(plan)
}

/// A console program to grade: its command and its limits, and the
/// preloaded shim that keeps its output order and its clock repeatable.
#[derive(Clone, Debug)]
pub struct ConsoleProgram {
    pub command: EngineCommand,
    pub limits: Limits,
    /// Extra environment (`LD_PRELOAD` of the shim, its settings).
    pub env: Vec<(String, OsString)>,
    /// The memory check of each run (`--memcheck`).
    pub memcheck: Option<Checker>,
}

/// Grades one scenario file on a console program: plan, run, judge.
pub fn grade_scenario(found: &Found, program: &ConsoleProgram, texts: &Texts) -> ScenarioResult {
    let started = Instant::now();
    let result = |points, visibility, verdict, memory| ScenarioResult {
        path: found.path.clone(),
        name: found.rel.clone(),
        points,
        visibility,
        verdict,
        elapsed: started.elapsed(),
        memory,
    };
    let scenario = match scenario::load(&found.path) {
        Ok(s) => s,
        Err(d) => return result(0, Visibility::Visible, Verdict::InputError(d), None),
    };
    let (points, visibility) = (scenario.points, scenario.directives.visibility);
    let plan = match plan(&scenario, texts) {
        Ok(p) => p,
        Err(e) => {
            let d =
                scenario::Diagnostic::file(&found.path, format!("not gradable by console: {e}"));
            return result(points, visibility, Verdict::InputError(d), None);
        }
    };
    let outcome = match run(&plan, program) {
        Ok(o) => o,
        Err(e) => {
            let d = scenario::Diagnostic::file(
                &found.path,
                format!("cannot start {}: {e}", program.command.program.display()),
            );
            return result(points, visibility, Verdict::InputError(d), None);
        }
    };
    let first_mismatch = match &plan.machine {
        Some(game) => machine::judge(game, &outcome, plan.exit_status)
            .map(|m| (m.board_before, m.line, m.mismatch)),
        None => judge(&plan, &outcome)
            .map(|(k, line, m)| (plan.exchanges[k].board_before.clone(), line, m)),
    };
    let first_mismatch =
        first_mismatch.map(|(board, line, m)| (board, line, FailureKind::Transcript(Box::new(m))));
    // A failing memory error wins unless the transcript went wrong at an
    // earlier command.
    let first = match (first_mismatch, memory_failure(&plan, &outcome, program)) {
        (Some(m), Some(e)) if e.3 || m.1.map_or(0, |l| l + 1) < e.1.map_or(0, |l| l + 1) => Some(m),
        (_, Some((board, line, kind, _))) => Some((board, line, kind)),
        (m, None) => m,
    };
    let memory = outcome.memory.clone();
    let verdict = match first {
        None => Verdict::Pass,
        Some((board_before, line, kind)) => {
            let source = std::fs::read_to_string(&found.path).unwrap_or_default();
            let step_source = line.and_then(|l| {
                source
                    .lines()
                    .nth(l as usize - 1)
                    .map(|s| s.trim().to_string())
            });
            Verdict::Fail(Box::new(Failure {
                kind,
                line,
                step_source,
                board_before,
                stderr: None,
            }))
        }
    };
    result(points, visibility, verdict, memory)
}

/// The memory error that fails the scenario (`--memcheck`, errors fail):
/// (the board before, the scenario line, the failure, whether it came
/// after the last command). The checker stops the program at its first
/// error, so the error belongs to the command whose answer the program was
/// printing then; when every answer was printed, to the program's end.
fn memory_failure(
    plan: &Plan,
    outcome: &Outcome,
    program: &ConsoleProgram,
) -> Option<(BoardText, Option<u32>, FailureKind, bool)> {
    let checker = program.memcheck.as_ref()?;
    if checker.memcheck.policy.errors != crate::memcheck::ErrorPolicy::Fail {
        return None;
    }
    let findings = outcome.memory.as_ref()?;
    let error = findings.error.clone()?;
    let text = strip_ansi(&String::from_utf8_lossy(&outcome.output));
    let answered = split_at_prompts(&text, &plan.prompts).len();
    let last = plan.exchanges.len().checked_sub(1)?;
    // Every answer printed: the error came at the end (a destructor, exit).
    let at_end = answered > last;
    let k = answered.saturating_sub(1).min(last);
    let exchange = &plan.exchanges[k];
    let line = if at_end {
        None
    } else {
        exchange.line.or_else(|| {
            (k == last)
                .then(|| plan.exchanges.iter().rev().find_map(|e| e.line))
                .flatten()
        })
    };
    let failure = FailureKind::MemoryError(Box::new(crate::runner::MemoryFailure {
        tool: findings.tool,
        error,
        at_end,
    }));
    Some((exchange.board_before.clone(), line, failure, at_end))
}

/// Output kept per command in a report.
const MAX_RAW_OUTPUT: usize = 4 << 10;

/// Removes ANSI escape sequences (CSI `ESC [ ... letter`, and two-byte
/// escapes) and carriage returns.
pub fn strip_ansi(s: &str) -> String {
    console::strip_ansi_codes(s).replace('\r', "")
}

/// Splits output at every occurrence of any of `prompts`: the text before
/// the first prompt, then the text after each.
pub fn split_at_prompts<'a>(text: &'a str, prompts: &[String]) -> Vec<&'a str> {
    // Each prompt's next occurrence at or after the cursor, searched again
    // only once the cursor passes it (linear in the text, however many
    // prompts a looping program prints).
    let find = |p: &String, from: usize| {
        (!p.is_empty())
            .then(|| text[from..].find(p.as_str()).map(|i| from + i))
            .flatten()
    };
    let mut next: Vec<Option<usize>> = prompts.iter().map(|p| find(p, 0)).collect();
    let mut chunks = Vec::new();
    let mut cursor = 0;
    loop {
        let best = next
            .iter()
            .enumerate()
            .filter_map(|(k, at)| at.map(|at| (at, prompts[k].len())))
            .min();
        let Some((at, len)) = best else {
            chunks.push(&text[cursor..]);
            return chunks;
        };
        chunks.push(&text[cursor..at]);
        cursor = at + len;
        for (k, p) in prompts.iter().enumerate() {
            if next[k].is_some_and(|n| n < cursor) {
                next[k] = find(p, cursor);
            }
        }
    }
}

/// The judged lines of one command's output.
pub fn judged_lines(chunk: &str, judging: &Judging, ignore_trailing_space: bool) -> Vec<String> {
    let mut lines: Vec<&str> = chunk.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    let tidy = |l: &str| {
        if ignore_trailing_space {
            l.trim_end().to_string()
        } else {
            l.to_string()
        }
    };
    match judging {
        Judging::Exact => lines.into_iter().map(tidy).collect(),
        Judging::Marked(markers) => lines
            .into_iter()
            .filter_map(|l| {
                let at = markers.iter().filter_map(|m| l.find(m.as_str())).min()?;
                Some(tidy(&l[at..]))
            })
            .collect(),
    }
}

/// The expected lines as compared: trailing spaces dropped when the
/// dialect tolerates them (on both sides, so the course's own trailing
/// spaces and a program without them agree).
fn tidy_expected(expected: &[String], ignore_trailing_space: bool) -> Vec<String> {
    expected
        .iter()
        .map(|l| {
            if ignore_trailing_space {
                l.trim_end().to_string()
            } else {
                l.clone()
            }
        })
        .collect()
}

/// Only what differs: the expected and actual lines between their common
/// start and common end.
fn differing(expected: &[String], actual: &[String]) -> (Vec<String>, Vec<String>) {
    let start = expected
        .iter()
        .zip(actual)
        .take_while(|(e, a)| e == a)
        .count();
    let end = expected[start..]
        .iter()
        .rev()
        .zip(actual[start..].iter().rev())
        .take_while(|(e, a)| e == a)
        .count();
    (
        expected[start..expected.len() - end].to_vec(),
        actual[start..actual.len() - end].to_vec(),
    )
}

fn capped(text: &str) -> String {
    if text.len() <= MAX_RAW_OUTPUT {
        return text.to_string();
    }
    let mut cut = MAX_RAW_OUTPUT;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}\n… ({} more bytes)", &text[..cut], text.len() - cut)
}

/// The first place the program's run parts from the plan: (exchange index,
/// scenario line, what went wrong); `None` when it passes.
pub fn judge(plan: &Plan, outcome: &Outcome) -> Option<(usize, Option<u32>, TranscriptMismatch)> {
    let text = strip_ansi(&String::from_utf8_lossy(&outcome.output));
    let chunks = split_at_prompts(&text, &plan.prompts);
    let last_line = plan.exchanges.iter().rev().find_map(|e| e.line);
    let abnormal = match &outcome.end {
        RunEnd::Signalled(sig) => Some(TranscriptProblem::Crash(sig.clone())),
        RunEnd::TimedOut => Some(TranscriptProblem::Timeout),
        RunEnd::ReadOnAfterInput => Some(TranscriptProblem::DidNotExit),
        RunEnd::Exited(_) => None,
    };
    let mismatch = |k: usize, problem, expected, actual, raw: &str| {
        let ex = &plan.exchanges[k];
        Some((
            k,
            ex.line.or(if k + 1 == plan.exchanges.len() {
                last_line
            } else {
                None
            }),
            TranscriptMismatch {
                problem,
                input: ex.input.clone(),
                expected,
                actual,
                raw_output: capped(raw),
            },
        ))
    };
    for (k, ex) in plan.exchanges.iter().enumerate() {
        let Some(chunk) = chunks.get(k) else {
            // The output ended before this command's answer.
            let problem = abnormal.clone().unwrap_or(match outcome.end {
                RunEnd::Exited(code) => TranscriptProblem::EndedEarly(Some(code)),
                _ => TranscriptProblem::EndedEarly(None),
            });
            return mismatch(k, problem, ex.expected.clone(), Vec::new(), "");
        };
        let actual = judged_lines(chunk, &plan.judging, plan.ignore_trailing_space);
        let expected = tidy_expected(&ex.expected, plan.ignore_trailing_space);
        let is_last_chunk = k + 1 == chunks.len();
        if actual != expected {
            let (e, a) = differing(&expected, &actual);
            let is_end = k + 1 == plan.exchanges.len();
            let problem = match (&abnormal, is_last_chunk) {
                (Some(p), true) if *p != TranscriptProblem::DidNotExit => p.clone(),
                // Output after the command that ends it, then no exit.
                (Some(TranscriptProblem::DidNotExit), _) if is_end => TranscriptProblem::DidNotExit,
                _ => TranscriptProblem::WrongOutput,
            };
            return mismatch(k, problem, e, a, chunk);
        }
        for save in &ex.saves {
            let got = outcome.files.get(&save.file).cloned().flatten();
            if got.as_deref() != Some(save.expected.as_slice()) {
                let show = |b: &[u8]| {
                    String::from_utf8_lossy(b)
                        .split_inclusive('\n')
                        .map(|l| l.replace('\n', "⏎"))
                        .collect::<Vec<_>>()
                };
                let actual = match &got {
                    Some(b) => show(b),
                    None => vec!["(no file written)".to_string()],
                };
                let (e, a) = differing(&show(&save.expected), &actual);
                let mut m = mismatch(
                    k,
                    TranscriptProblem::SaveFile(save.file.clone()),
                    e,
                    a,
                    chunk,
                )?;
                m.1 = Some(save.line);
                return Some(m);
            }
        }
    }
    let k = plan.exchanges.len() - 1;
    let extra = chunks.get(plan.exchanges.len()..).unwrap_or_default();
    if let Some(p) = abnormal {
        return mismatch(k, p, Vec::new(), Vec::new(), extra.join("").as_str());
    }
    if !extra.is_empty() {
        // It asked for more input after its last command and then ended:
        // it ignored the command that should have ended it.
        let actual: Vec<String> = extra
            .iter()
            .flat_map(|c| judged_lines(c, &plan.judging, plan.ignore_trailing_space))
            .collect();
        let raw = extra.join(&plan.prompts[0]);
        return mismatch(
            k,
            TranscriptProblem::WrongOutput,
            vec!["(the program ends here)".to_string()],
            if actual.is_empty() {
                vec![format!("{}(another prompt)", plan.prompts[0])]
            } else {
                actual
            },
            &raw,
        );
    }
    if let RunEnd::Exited(code) = outcome.end
        && code != plan.exit_status
    {
        {
            return mismatch(
                k,
                TranscriptProblem::ExitStatus {
                    expected: plan.exit_status,
                    actual: code,
                },
                Vec::new(),
                Vec::new(),
                chunks.last().copied().unwrap_or_default(),
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_codes_and_carriage_returns_are_stripped() {
        assert_eq!(
            strip_ansi("\u{1b}[1;31mK\u{1b}[0m\r\n\u{1b}]0;title\u{7}x"),
            "K\nx"
        );
    }

    #[test]
    fn output_splits_at_every_prompt() {
        let p = vec!["Next command: ".to_string()];
        assert_eq!(
            split_at_prompts("a\nNext command: b\nNext command: ", &p),
            vec!["a\n", "b\n", ""]
        );
        let p = vec!["White's turn: ".to_string(), "Black's turn: ".to_string()];
        assert_eq!(
            split_at_prompts("R\nWhite's turn: x\nBlack's turn: Draw game!\n", &p),
            vec!["R\n", "x\n", "Draw game!\n"]
        );
    }

    #[test]
    fn marked_judging_keeps_only_course_lines() {
        let j = Judging::Marked(vec!["white move".into(), "Material point value: ".into()]);
        let chunk = "  A B\n8 r n |white move\nMaterial point value: 39\nstray\n";
        assert_eq!(
            judged_lines(chunk, &j, false),
            vec!["white move", "Material point value: 39"]
        );
        assert_eq!(
            judged_lines("x  \ny", &Judging::Exact, true),
            vec!["x".to_string(), "y".to_string()]
        );
        assert_eq!(
            judged_lines("x  \n", &Judging::Exact, false),
            vec!["x  ".to_string()]
        );
    }

    #[test]
    fn only_the_differing_middle_is_shown() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let (e, a) = differing(&s(&["a", "b", "c"]), &s(&["a", "x", "y", "c"]));
        assert_eq!((e, a), (s(&["b"]), s(&["x", "y"])));
    }
}
