//! The console subject: grading a course's interactive program (JHU CS220's
//! `./chess`, CUHK CSCI1120's console game) on its transcript, the way the
//! course judges it.
//!
//! A scenario is first turned into a [`Plan`] by its course's dialect
//! (`jhu`, `cuhk`), on the reference engine: the line of input each step
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
//! (`machine`).
//!
//! A run's setup (checking every scenario first, the one dialect, the
//! shim, building uploads) is [`ConsoleGrader`], shared by every way of
//! grading console programs (one upload, a built program, a class).

mod cuhk;
mod grader;
mod jhu;
mod machine;
mod mystery;
mod run;
mod shim;
mod texts;

pub use cuhk::BoardLayout;
pub use grader::{
    BuiltUpload, ConsoleGrader, ConsoleOptions, SetupError, only_console, wants_console,
};
pub use machine::{MachineGame, MachineMode};
pub use mystery::{MYSTERY_HEADER, describe as describe_mystery, mystery_header};
pub use run::{Outcome, RunEnd, run};
pub use shim::{SHIM_SOURCE, build_shim};
pub use texts::{CuhkTexts, JhuTexts, Texts, TextsError, TextsProblem};

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

    /// The course's rule set (its students' coordinates in reports).
    pub fn rules(self) -> RuleSetId {
        match self {
            Dialect::Jhu => RuleSetId::Jhu,
            Dialect::Cuhk => RuleSetId::Cuhk,
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
    /// reference (`machine`), not against `exchanges`' expected lines
    /// (which then only carry the input).
    pub machine: Option<MachineGame>,
    /// How the program prints its board when the board is judged (CUHK):
    /// a wrong board is read back to name the squares that differ.
    pub layout: Option<BoardLayout>,
    /// Files the upload is built with, over its own and the overlay's
    /// (JHU: the graders' `Mystery.h` for the scenario's `@mystery`
    /// shape); `None`: the upload as it is. Scenarios with the same files
    /// share one build.
    pub build: Option<BuildFiles>,
}

/// Files written over an upload (after the overlay) before it is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildFiles {
    /// What they are, for reports: `the graders' Mystery.h for `@mystery ...``.
    pub what: String,
    /// (file name in the upload's root, its text).
    pub files: Vec<(String, String)>,
}

/// Where a console program's run first parts from the course's.
#[derive(Clone, Debug)]
pub struct ConsoleMismatch {
    /// The scenario line (`None`: the setup or the end, named by the
    /// mismatch's `place`).
    pub line: Option<u32>,
    /// The reference's board shown with it (titled by the mismatch's `board_title`).
    pub board_before: BoardText,
    pub mismatch: TranscriptMismatch,
    /// The plan's exchange it is found at (`None`: a machine game, judged
    /// by property as a whole).
    pub exchange: Option<usize>,
}

/// One command and what the course's program prints for it.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// The scenario line it comes from (`None`: the setup or the end).
    pub line: Option<u32>,
    /// Where it is when it is no scenario step (`line` is `None`).
    pub place: Option<Place>,
    /// The line of input that precedes this output (`None` for the first).
    pub input: Option<String>,
    /// The judged lines the program must print.
    pub expected: Vec<String>,
    /// The reference's board shown with a failure here: before the
    /// command at a step, the board a setup command loads or starts with.
    pub board_before: BoardText,
    /// The reference's board once the command is done (what `explain`
    /// shows after it).
    pub board_after: BoardText,
    /// Files the program must have written, checked after this exchange.
    pub saves: Vec<SaveCheck>,
}

/// Where an exchange that is no scenario step stands, for a report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// `setup: L chessgrade-setup.txt (...)`, `end of the game (`Z0 Z0` sent)`.
    pub what: String,
    /// What its board is: `board loaded from chessgrade-setup.txt`.
    pub board: String,
}

impl Place {
    pub fn new(what: impl Into<String>, board: impl Into<String>) -> Place {
        Place {
            what: what.into(),
            board: board.into(),
        }
    }

    /// The input that ends the game at the scenario's end.
    pub fn end(input: &str) -> Place {
        Place::new(
            format!("end of the game (`{input}` sent)"),
            "board at the end of the game",
        )
    }
}

/// The title of the board shown with a failure at a scenario step.
pub const BOARD_BEFORE_STEP: &str = "board before the step";

/// A file the program must write, byte for byte.
#[derive(Clone, Debug)]
pub struct SaveCheck {
    pub line: u32,
    pub file: String,
    pub expected: Vec<u8>,
    /// The reference's board that the file saves.
    pub board: BoardText,
}

impl Plan {
    /// The input lines, in order.
    pub fn inputs(&self) -> impl Iterator<Item = &str> {
        self.exchanges.iter().filter_map(|e| e.input.as_deref())
    }
}

/// Turns a scenario into its course's console session.
pub fn plan(scenario: &Scenario, texts: &Texts) -> Result<Plan, NotGradable> {
    match Dialect::of(scenario.directives.rules.id) {
        Some(Dialect::Jhu) => jhu::plan(scenario, &texts.jhu),
        Some(Dialect::Cuhk) => cuhk::plan(scenario, &texts.cuhk),
        None => Err(NotGradable {
            line: None,
            reason: format!(
                "`@rules {}` has no console program (console grading knows jhu and cuhk)",
                scenario.directives.rules.name
            ),
        }),
    }
}

/// Checks, before anything runs, that a scenario can be graded on a
/// console program: it parses, its dialect can express it, and the
/// reference still agrees with its reviewed snapshot (when there is one),
/// so that the expected text follows reviewed expectations.
pub fn check_gradable(
    found: &Found,
    texts: &Texts,
    store: &SnapshotStore,
) -> Result<Plan, Ungradable> {
    let scenario = found.load().map_err(Ungradable::Malformed)?;
    let plan = plan(&scenario, texts).map_err(|why| Ungradable::Inexpressible {
        path: found.path.clone(),
        why,
    })?;
    if let Ok(Some(snap)) = store.load(&found.rel) {
        let trace = crate::runner::execute(&scenario, &mut EngineSubject::new())
            .trace
            .render();
        if !snap.matches(&trace) {
            return Err(Ungradable::SnapshotDisagrees {
                path: found.path.clone(),
                snapshot: store.path_for(&found.rel),
            });
        }
    }
    Ok(plan)
}

/// Why a scenario cannot be graded on a console program (the staff's
/// problem, found before anything runs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ungradable {
    /// It does not load (located).
    Malformed(crate::scenario::Diagnostic),
    /// The course's program cannot play it.
    Inexpressible {
        path: std::path::PathBuf,
        why: NotGradable,
    },
    /// Its reviewed snapshot says otherwise than the reference engine now.
    SnapshotDisagrees {
        path: std::path::PathBuf,
        snapshot: std::path::PathBuf,
    },
}

impl std::fmt::Display for Ungradable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ungradable::Malformed(d) => write!(f, "{d}"),
            Ungradable::Inexpressible { path, why } => {
                write!(f, "{}: not gradable by console: {why}", path.display())
            }
            Ungradable::SnapshotDisagrees { path, snapshot } => write!(
                f,
                "{}: the reference engine no longer agrees with the reviewed snapshot {} (run `chessgrade run` and review it first)",
                path.display(),
                snapshot.display()
            ),
        }
    }
}

impl std::error::Error for Ungradable {}

/// A console program to grade: its command and its limits, and the
/// preloaded shim that keeps its output order and its clock repeatable.
#[derive(Clone, Debug)]
pub struct ConsoleProgram {
    /// What a scenario runs when `builds` has no build for it (every
    /// scenario, for a program graded as is with `--program`).
    pub command: EngineCommand,
    pub limits: Limits,
    /// Extra environment (`LD_PRELOAD` of the shim, its settings).
    pub env: Vec<(String, OsString)>,
    /// The memory check of each run (`--memcheck`).
    pub memcheck: Option<Checker>,
    /// An upload's builds, one per set of [`BuildFiles`] the scenarios ask
    /// for (`None`: the upload as it is): its program, or the compiler's
    /// message when that build failed.
    pub builds: Vec<(Option<BuildFiles>, Result<EngineCommand, CompilerOutput>)>,
}

/// What the compiler said when one of an upload's builds failed (the
/// student's result).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompilerOutput(pub String);

/// The build a scenario needed failed: what it was built with besides the
/// upload (the graders' Mystery.h), if anything, and the compiler's output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildFailed {
    pub with: Option<String>,
    pub output: CompilerOutput,
}

impl std::fmt::Display for BuildFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.with {
            Some(what) => write!(f, "built with {what}:\n{}", self.output.0),
            None => f.write_str(&self.output.0),
        }
    }
}

impl std::error::Error for BuildFailed {}

impl ConsoleProgram {
    /// The program `plan` runs: the build made with its files, else
    /// `command`; `Err` (what was built, and the compiler's message) when
    /// that build failed.
    pub fn command_for(&self, plan: &Plan) -> Result<&EngineCommand, BuildFailed> {
        match self.builds.iter().find(|(files, _)| *files == plan.build) {
            None => Ok(&self.command),
            Some((_, Ok(command))) => Ok(command),
            Some((files, Err(output))) => Err(BuildFailed {
                with: files.as_ref().map(|f| f.what.clone()),
                output: output.clone(),
            }),
        }
    }
}

/// Grades one scenario file on a console program: plan, run, judge.
pub fn grade_scenario(found: &Found, program: &ConsoleProgram, texts: &Texts) -> ScenarioResult {
    let started = Instant::now();
    // Set once the scenario is read (the closure is made before).
    let rules = std::cell::Cell::new(None);
    let result = |points, visibility, verdict, memory| ScenarioResult {
        path: found.path.clone(),
        name: found.rel.clone(),
        points,
        visibility,
        verdict,
        elapsed: started.elapsed(),
        memory,
        rules: rules.get(),
    };
    let scenario = match found.load() {
        Ok(s) => s,
        Err(d) => return result(0, Visibility::Visible, Verdict::InputError(d), None),
    };
    rules.set(Some(scenario.directives.rules.name));
    let (points, visibility) = (scenario.points, scenario.directives.visibility);
    let plan = match plan(&scenario, texts) {
        Ok(p) => p,
        Err(e) => {
            let d =
                scenario::Diagnostic::file(&found.path, format!("not gradable by console: {e}"));
            return result(points, visibility, Verdict::InputError(d), None);
        }
    };
    let command = match program.command_for(&plan) {
        Ok(command) => command,
        // This scenario's own build (its Mystery piece) failed: the student's.
        Err(failed) => {
            let failure = Failure {
                kind: FailureKind::CompileError(failed.to_string()),
                line: None,
                step_source: None,
                board_before: BoardText(String::new()),
                stderr: None,
            };
            return result(points, visibility, Verdict::Fail(Box::new(failure)), None);
        }
    };
    let outcome = match run(&plan, command, program) {
        Ok(o) => o,
        Err(e) => {
            let d = scenario::Diagnostic::file(
                &found.path,
                format!("cannot start {}: {e}", command.program.display()),
            );
            return result(points, visibility, Verdict::InputError(d), None);
        }
    };
    let source = || std::fs::read_to_string(&found.path).unwrap_or_default();
    // A failing memory error wins unless the transcript went wrong at an
    // earlier command.
    let failure = match (
        judge_run(&plan, &outcome),
        memory_failure(&plan, &outcome, program),
    ) {
        (Some(m), Some(e)) if e.at_end || m.before(&e) => Some(m.into_failure(&source())),
        (_, Some(e)) => Some(e.into_failure(&source())),
        (m, None) => m.map(|m| m.into_failure(&source())),
    };
    let failure = failure.map(|f| on_disk_limit(f, outcome.disk.as_ref()));
    let memory = outcome.memory.clone();
    let verdict = match failure {
        None => Verdict::Pass,
        Some(failure) => Verdict::Fail(Box::new(failure)),
    };
    result(points, visibility, verdict, memory)
}

/// A transcript that went wrong in a folder at its disk bound went wrong
/// for that (as far as the grader can tell): its class is the disk limit's,
/// and it says how it went wrong too.
fn on_disk_limit(mut failure: Failure, disk: Option<&crate::sandbox::DiskReached>) -> Failure {
    if let (Some(reached), FailureKind::Transcript(t)) = (disk, &mut failure.kind) {
        t.problem = TranscriptProblem::DiskLimit(format!("{reached}; then {}", t.problem));
    }
    failure
}

/// Where a checked run's memory error stopped it, in the plan's terms.
struct MemoryStop {
    /// The exchange whose answer the program was printing then.
    exchange: usize,
    /// The scenario line (`None`: the setup, or the end).
    line: Option<u32>,
    board_before: BoardText,
    kind: FailureKind,
    /// Every answer was printed: it came at the end (a destructor, exit).
    at_end: bool,
}

impl MemoryStop {
    fn into_failure(self, source: &str) -> Failure {
        Failure {
            kind: self.kind,
            line: self.line,
            step_source: step_source(source, self.line),
            board_before: self.board_before,
            stderr: None,
        }
    }
}

impl ConsoleMismatch {
    /// Whether this mismatch comes at an earlier command than the memory
    /// error (a machine game, judged as a whole, by its line).
    fn before(&self, stop: &MemoryStop) -> bool {
        match self.exchange {
            Some(k) => k < stop.exchange,
            None => self.line.map_or(0, |l| l + 1) < stop.line.map_or(0, |l| l + 1),
        }
    }
}

/// The memory error that fails the scenario (`--memcheck`, errors fail).
/// The checker stops the program at its first error, so the error belongs
/// to the command whose answer the program was printing then; when every
/// answer was printed, to the program's end.
fn memory_failure(plan: &Plan, outcome: &Outcome, program: &ConsoleProgram) -> Option<MemoryStop> {
    let checker = program.memcheck.as_ref()?;
    if checker.memcheck.policy.errors != crate::memcheck::ErrorPolicy::Fail {
        return None;
    }
    let findings = outcome.memory.as_ref()?;
    let error = findings.error.clone()?;
    let text = strip_ansi(&String::from_utf8_lossy(&outcome.output));
    let answered = split_at_prompts(&text, &plan.prompts).len();
    let last = plan.exchanges.len().checked_sub(1)?;
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
    let kind = FailureKind::MemoryError(Box::new(crate::runner::MemoryFailure {
        tool: findings.tool,
        error,
        at_end,
    }));
    Some(MemoryStop {
        exchange: k,
        line,
        board_before: exchange.board_before.clone(),
        kind,
        at_end,
    })
}

/// The scenario file's line `line`, trimmed (a failure's step).
fn step_source(source: &str, line: Option<u32>) -> Option<String> {
    line.and_then(|l| {
        source
            .lines()
            .nth(l as usize - 1)
            .map(|s| s.trim().to_string())
    })
}

/// The first place a run parts from the plan, judged as the plan says:
/// line by line, or by property for a machine game; `None` when it passes.
pub fn judge_run(plan: &Plan, outcome: &Outcome) -> Option<ConsoleMismatch> {
    match &plan.machine {
        Some(game) => machine::judge(game, outcome, plan.exit_status),
        None => judge(plan, outcome),
    }
}

impl ConsoleMismatch {
    /// The failure a report shows (`source`: the scenario file's text,
    /// for the step's line).
    pub fn into_failure(self, source: &str) -> Failure {
        Failure {
            kind: FailureKind::Transcript(Box::new(self.mismatch)),
            line: self.line,
            step_source: step_source(source, self.line),
            board_before: self.board_before,
            stderr: None,
        }
    }
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
pub(crate) fn tidy_expected(expected: &[String], ignore_trailing_space: bool) -> Vec<String> {
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
pub(crate) fn differing(expected: &[String], actual: &[String]) -> (Vec<String>, Vec<String>) {
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

pub(crate) fn capped(text: &str) -> String {
    if text.len() <= MAX_RAW_OUTPUT {
        return text.to_string();
    }
    let mut cut = MAX_RAW_OUTPUT;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}\n… ({} more bytes)", &text[..cut], text.len() - cut)
}

/// The first place the program's run parts from the plan; `None` when it passes.
pub fn judge(plan: &Plan, outcome: &Outcome) -> Option<ConsoleMismatch> {
    let text = strip_ansi(&String::from_utf8_lossy(&outcome.output));
    let chunks = split_at_prompts(&text, &plan.prompts);
    let abnormal = match &outcome.end {
        RunEnd::Signalled(sig) => Some(TranscriptProblem::Crash(sig.clone())),
        RunEnd::TimedOut => Some(TranscriptProblem::Timeout),
        RunEnd::ReadOnAfterInput => Some(TranscriptProblem::DidNotExit),
        RunEnd::Exited(_) => None,
    };
    let mismatch = |k: usize, problem, expected, actual, raw: &str| {
        let ex = &plan.exchanges[k];
        let (place, board_title) = match (ex.line, &ex.place) {
            (None, Some(p)) => (Some(p.what.clone()), p.board.clone()),
            _ => (None, BOARD_BEFORE_STEP.to_string()),
        };
        Some(ConsoleMismatch {
            line: ex.line,
            exchange: Some(k),
            board_before: ex.board_before.clone(),
            mismatch: TranscriptMismatch {
                problem,
                input: ex.input.clone(),
                expected,
                actual,
                raw_output: capped(raw),
                place,
                board_title,
                rules: plan.dialect.rules(),
                notes: Vec::new(),
                printed_board: None,
            },
        })
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
            let mut m = mismatch(k, problem, e, a, chunk)?;
            (m.mismatch.notes, m.mismatch.printed_board) = what_differs(
                plan.layout.as_ref(),
                plan.dialect.rules(),
                &expected,
                &actual,
            );
            return Some(m);
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
                // Reported at the `save` step, with the board it saves.
                m.line = Some(save.line);
                m.board_before = save.board.clone();
                m.mismatch.place = None;
                m.mismatch.board_title = BOARD_BEFORE_STEP.to_string();
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
    None
}

/// A square's content in words (board text: White upper case).
fn piece_name(c: char) -> String {
    if c == '.' {
        return "empty".to_string();
    }
    let side = if c.is_ascii_uppercase() {
        "White"
    } else {
        "Black"
    };
    let kind = match c.to_ascii_uppercase() {
        'K' => "king",
        'Q' => "queen",
        'R' => "rook",
        'B' => "bishop",
        'N' => "knight",
        'P' => "pawn",
        'M' => "Mystery piece",
        _ => return format!("`{c}`"),
    };
    format!("{side} {kind}")
}

/// What differs between a command's expected and printed lines, in words,
/// when the lines alone do not say it: a printed board (read back with the
/// plan's layout) whose pieces differ names the squares (and is returned,
/// expected then printed, to be drawn); lines that differ only in
/// trailing spaces say so.
pub fn what_differs(
    layout: Option<&BoardLayout>,
    rules: RuleSetId,
    expected: &[String],
    actual: &[String],
) -> (Vec<String>, Option<(BoardText, BoardText)>) {
    let mut notes = Vec::new();
    let mut boards = None;
    if let Some(layout) = layout
        && let (Some(e), Some(a)) = (layout.read(expected), layout.read(actual))
    {
        if e == a {
            notes.push("the board printed has the expected pieces on every square".to_string());
        } else {
            let coords = crate::report::Coords::of(rules);
            let rows: Vec<Vec<char>> = e.rows().map(|r| r.chars().collect()).collect();
            let printed: Vec<Vec<char>> = a.rows().map(|r| r.chars().collect()).collect();
            let mut squares = Vec::new();
            for (r, row) in rows.iter().enumerate() {
                for (c, want) in row.iter().enumerate() {
                    let got = printed[r][c];
                    if got != *want {
                        squares.push(format!(
                            "{} (expected {}, printed {})",
                            coords.square(r, c, rows.len()),
                            piece_name(*want),
                            piece_name(got)
                        ));
                    }
                }
            }
            notes.push(format!(
                "the board printed differs from the expected one on {} square(s): {}",
                squares.len(),
                squares.join("; ")
            ));
            boards = Some((e, a));
        }
    }
    let trimmed = |v: &[String]| {
        v.iter()
            .map(|l| l.trim_end().to_string())
            .collect::<Vec<_>>()
    };
    if expected.len() == actual.len() && trimmed(expected) == trimmed(actual) {
        let pairs = || expected.iter().zip(actual).filter(|(e, a)| e != a);
        let lacking = pairs().filter(|(e, a)| a.len() < e.len()).count();
        let adding = pairs().filter(|(e, a)| a.len() > e.len()).count();
        let mut parts = Vec::new();
        if lacking > 0 {
            parts.push(format!(
                "{lacking} printed line(s) lack the trailing space(s) the course prints"
            ));
        }
        if adding > 0 {
            parts.push(format!(
                "{adding} printed line(s) end with space(s) the course does not print"
            ));
        }
        notes.push(format!("only trailing spaces differ: {}", parts.join("; ")));
    }
    (notes, boards)
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
