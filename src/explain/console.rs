//! `explain` for a console program (JHU CS220's `./chess`, CUHK
//! CSCI1120's game): the scenario's session command by command, as the
//! course's program must answer it and as the student's program did.
//!
//! A console program is not asked one question per step as a Lab 3 upload
//! is: it runs once on all its input (`grade` does the same, see
//! [`crate::console`]), and its output is split at the course's prompts.
//! So the walk ([`explain_console`]) runs the program once and lines each
//! command up with its answer: the input sent, the lines the course judges
//! (expected and printed), the files the program had to save (JHU), and
//! the reference's board once the command is done, drawn in the course's
//! own coordinates. The first mismatch is the one `grade` reports, shown
//! as `grade` shows it ([`HumanReporter::failure`]), at the command where
//! it happens. A CUHK machine game (modes 2 and 3) has no expected
//! transcript (the machine's moves are the program's own draws, judged by
//! property): its inputs and the program's whole output are shown, then
//! the first mismatch.

use super::RenderOptions;
use crate::console::{self, ConsoleMismatch, ConsoleProgram, Dialect, RunEnd, Texts};
use crate::engine::{BoardText, RuleSetId};
use crate::report::sanitize::terminal;
use crate::report::{Coords, Diagram, HumanReporter, Ink, Palette, Style};
use crate::runner::TranscriptProblem;
use crate::scenario::Scenario;
use std::fmt::{self, Write};

/// One scenario's console session, run and lined up command by command.
#[derive(Clone, Debug)]
pub struct ConsoleExplanation {
    pub dialect: Dialect,
    pub rules: RuleSetId,
    /// Files written in the program's folder before it starts (JHU: the
    /// setup's board file, positions to load back for `undo`/`redo`).
    pub files: Vec<(String, String)>,
    /// The program's command-line arguments.
    pub args: Vec<String>,
    pub commands: Vec<CommandView>,
    /// How the program ended.
    pub end: RunEnd,
    /// The first mismatch, as `grade` reports it; `None` when it passes.
    pub mismatch: Option<ConsoleMismatch>,
    /// A machine game (CUHK modes 2, 3): judged by property; the commands
    /// carry their input only, and `output` is the whole transcript.
    pub machine: bool,
    /// The program's whole output, ANSI codes stripped, capped.
    pub output: String,
    /// The scenario file's text (for the failing step's line).
    pub source: String,
    /// What a memory check found in the run (`--memcheck`).
    pub memory: Option<crate::memcheck::Findings>,
    /// A memory error was found and the policy fails the scenario for it.
    pub memory_fails: bool,
}

impl ConsoleExplanation {
    /// Whether the scenario fails: an answer differs, or a memory error
    /// fails it.
    pub fn fails(&self) -> bool {
        self.mismatch.is_some() || self.memory_fails
    }
}

/// One command: where it comes from, what was sent, expected and printed.
#[derive(Clone, Debug)]
pub struct CommandView {
    /// The scenario line it comes from (`None`: the setup or the end).
    pub line: Option<u32>,
    /// Where it is: `line 12: move E2E4`, or the setup / end it is.
    pub place: String,
    /// The line sent (`None`: the program's first output, before any input).
    pub input: Option<String>,
    /// The lines the course's program prints for it, as judged.
    pub expected: Vec<String>,
    /// The judged lines the program printed for it (`None`: its output
    /// ended before this command).
    pub printed: Option<Vec<String>>,
    /// Everything the program printed for it (capped).
    pub output: Option<String>,
    pub saves: Vec<SaveView>,
    /// The reference's board once the command is done, and its title.
    pub board_after: BoardText,
    pub board_title: String,
    /// The judged lines and saved files are the expected ones.
    pub agrees: bool,
}

/// A file the program had to save at a command, byte for byte.
#[derive(Clone, Debug)]
pub struct SaveView {
    pub line: u32,
    pub file: String,
    pub expected: String,
    /// What it wrote (`None`: no file).
    pub written: Option<String>,
}

/// Why a console session cannot be explained.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConsoleExplainError {
    /// The scenario is not one the course's program can play (staff's).
    NotGradable(String),
    /// The upload did not compile with what this scenario needs (its
    /// Mystery piece): the student's.
    Compile(String),
    /// The program could not be started (staff's).
    Start(String),
}

impl fmt::Display for ConsoleExplainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConsoleExplainError::NotGradable(why) => write!(f, "not gradable by console: {why}"),
            ConsoleExplainError::Compile(msg) => {
                write!(f, "the submission did not compile:\n{msg}")
            }
            ConsoleExplainError::Start(why) => f.write_str(why),
        }
    }
}

/// Runs `program` through `scenario`'s session once and lines its output
/// up with the course's, command by command (`source`: the scenario
/// file's text).
pub fn explain_console(
    scenario: &Scenario,
    source: &str,
    program: &ConsoleProgram,
    texts: &Texts,
) -> Result<ConsoleExplanation, ConsoleExplainError> {
    let plan = console::plan(scenario, texts)
        .map_err(|e| ConsoleExplainError::NotGradable(e.to_string()))?;
    let command = program
        .command_for(&plan)
        .map_err(|failed| ConsoleExplainError::Compile(failed.to_string()))?;
    let outcome = console::run(&plan, command, program).map_err(|e| {
        ConsoleExplainError::Start(format!("cannot start {}: {e}", command.program.display()))
    })?;
    let text = console::strip_ansi(&String::from_utf8_lossy(&outcome.output));
    let chunks = console::split_at_prompts(&text, &plan.prompts);
    let machine = plan.machine.is_some();
    let lines: Vec<&str> = source.lines().collect();
    let commands = plan
        .exchanges
        .iter()
        .enumerate()
        .map(|(k, ex)| {
            let place = match (ex.line, &ex.place) {
                (Some(l), _) => format!(
                    "line {l}: {}",
                    lines.get(l as usize - 1).map_or("", |s| s.trim())
                ),
                (None, Some(p)) => p.what.clone(),
                (None, None) => "setup".to_string(),
            };
            let board_title = match &ex.place {
                Some(p) => p.board.clone(),
                None => "board after".to_string(),
            };
            // A machine game's prompts are the machine's too: its chunks
            // are no command's answer.
            let chunk = chunks.get(k).filter(|_| !machine);
            let printed =
                chunk.map(|c| console::judged_lines(c, &plan.judging, plan.ignore_trailing_space));
            let saves: Vec<SaveView> = ex
                .saves
                .iter()
                .map(|s| SaveView {
                    line: s.line,
                    file: s.file.clone(),
                    expected: String::from_utf8_lossy(&s.expected).into_owned(),
                    written: outcome
                        .files
                        .get(&s.file)
                        .cloned()
                        .flatten()
                        .map(|b| String::from_utf8_lossy(&b).into_owned()),
                })
                .collect();
            let expected = console::tidy_expected(&ex.expected, plan.ignore_trailing_space);
            let agrees = !machine
                && printed.as_ref() == Some(&expected)
                && saves
                    .iter()
                    .all(|s| s.written.as_ref() == Some(&s.expected));
            CommandView {
                line: ex.line,
                place,
                input: ex.input.clone(),
                expected,
                printed,
                output: chunk.map(|c| console::capped(c)),
                saves,
                board_after: ex.board_after.clone(),
                board_title,
                agrees,
            }
        })
        .collect();
    Ok(ConsoleExplanation {
        dialect: plan.dialect,
        rules: plan.dialect.rules(),
        files: plan
            .files
            .iter()
            .map(|(name, bytes)| (name.clone(), String::from_utf8_lossy(bytes).into_owned()))
            .collect(),
        args: plan.args.clone(),
        commands,
        end: outcome.end.clone(),
        mismatch: console::judge_run(&plan, &outcome),
        machine,
        output: console::capped(&text),
        source: source.to_string(),
        memory_fails: program.memcheck.as_ref().is_some_and(|c| {
            c.memcheck.policy.errors == crate::memcheck::ErrorPolicy::Fail
                && outcome.memory.as_ref().is_some_and(|m| m.error.is_some())
        }),
        memory: outcome.memory,
    })
}

const IND: &str = "    ";
/// A board's rows, under its title at [`IND`] (as in `grade`'s failure).
const BOARD_IND: &str = "      ";
/// Lines of a matching answer shown before the rest is counted.
const SHOWN_WHEN_AGREEING: usize = 4;

/// The explanation as text. `Err` names a `--line` that sends no command.
pub fn render_console(
    e: &ConsoleExplanation,
    opts: RenderOptions,
) -> Result<String, super::render::NoSuchLine> {
    let coords = Coords::of(e.rules);
    let p = opts.style.palette;
    let mut out = String::new();
    let first = e.mismatch.as_ref().and_then(|m| m.exchange);
    let shown = shown_commands(e, opts)?;
    if opts.line.is_none() {
        header(&mut out, e, p);
    }
    // The board last drawn: a command that leaves it as it was says so.
    let mut last_board: Option<&BoardText> = None;
    for k in &shown {
        let c = &e.commands[*k];
        if e.machine {
            machine_command(&mut out, c, p);
        } else if Some(*k) == first {
            mismatch_at(&mut out, e, Some(c), coords, opts.style);
        } else {
            command(&mut out, e, c, last_board, coords, opts.style);
            last_board = Some(&c.board_after);
        }
    }
    if opts.line.is_none() {
        if e.machine {
            let _ = writeln!(out, "\n{}", p.paint("the program's output:", Ink::BOLD));
            let _ = writeln!(out, "{}", indent(&terminal(&e.output), IND));
        }
        // A mismatch found at no command (a machine game's) comes last.
        if first.is_none() && e.mismatch.is_some() {
            mismatch_at(&mut out, e, None, coords, opts.style);
        }
        if let (false, Some(k)) = (opts.all, first) {
            let later = e.commands.len() - k - 1;
            if later > 0 {
                let _ = writeln!(
                    out,
                    "\n({later} later commands not shown; --all shows every command, --line N the command of line N)"
                );
            }
        }
    }
    if let Some(m) = &e.memory {
        let tool = m.tool.name();
        let heading = p.paint(format!("memcheck ({tool}):"), Ink::NOTE);
        for note in m.notes() {
            // `asan: memory error: ...` under the heading that names the tool.
            let note = note.strip_prefix(&format!("{tool}: ")).unwrap_or(&note);
            let _ = writeln!(out, "\n{heading} {}", terminal(note));
        }
        if m.is_clean() {
            let _ = writeln!(out, "\n{heading} no memory error, no leak");
        }
    }
    let _ = writeln!(out, "\n{}", verdict_line(e, p));
    // One step alone starts with its own heading, not a blank line.
    if out.starts_with('\n') {
        out.remove(0);
    }
    Ok(out)
}

/// The commands shown (their indices): those of `--line`, else every
/// command up to the first mismatch (`--all`: every one). `Err` names a
/// `--line` that sends no command.
pub(crate) fn shown_commands(
    e: &ConsoleExplanation,
    opts: RenderOptions,
) -> Result<Vec<usize>, super::render::NoSuchLine> {
    let first = e.mismatch.as_ref().and_then(|m| m.exchange);
    match opts.line {
        Some(n) => {
            let found: Vec<usize> = (0..e.commands.len())
                .filter(|&k| e.commands[k].line == Some(n))
                .collect();
            if found.is_empty() {
                return Err(super::render::NoSuchLine {
                    line: n,
                    lines: e.commands.iter().filter_map(|c| c.line).collect(),
                    console: true,
                });
            }
            Ok(found)
        }
        None => {
            let upto = match (opts.all, first) {
                (false, Some(k)) => k,
                _ => e.commands.len().saturating_sub(1),
            };
            Ok((0..=upto).filter(|&k| k < e.commands.len()).collect())
        }
    }
}

/// What the course judges of the session.
pub(crate) fn judged(e: &ConsoleExplanation) -> &'static str {
    match (e.machine, e.dialect) {
        (true, _) => {
            "a machine game: each move the program prints is checked on the reference, which then plays it; the end must be the reference's"
        }
        (false, Dialect::Jhu) => {
            "the lines the course judges (the board display is the program's own and is not compared)"
        }
        (false, Dialect::Cuhk) => "every line, exactly as the course's program prints it",
    }
}

/// What is sent and judged, and the files written before the start.
fn header(out: &mut String, e: &ConsoleExplanation, p: Palette) {
    let _ = writeln!(out, "judged: {}", judged(e));
    if !e.files.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            p.paint("files written before the start:", Ink::BOLD)
        );
        for (name, text) in &e.files {
            let _ = writeln!(out, "{IND}{name}:");
            let _ = writeln!(out, "{}", indent(text, &format!("{IND}  ")));
        }
    }
    if !e.args.is_empty() {
        let _ = writeln!(out, "the program's arguments: {}", e.args.join(" "));
    }
}

/// A command whose answer is not the first mismatch.
fn command(
    out: &mut String,
    e: &ConsoleExplanation,
    c: &CommandView,
    last_board: Option<&BoardText>,
    coords: Coords,
    style: Style,
) {
    let p = style.palette;
    let _ = writeln!(
        out,
        "\n{}: {}",
        p.paint(terminal(&c.place), Ink::BOLD),
        command_verdict(c, p)
    );
    command_body(out, c, e.dialect, p);
    match command_board(c, last_board, coords, &e.source) {
        Ok(d) => {
            let _ = writeln!(out, "{IND}{}:", c.board_title);
            out.push_str(&d.render(BOARD_IND, style));
        }
        Err(said) => {
            let _ = writeln!(out, "{IND}{said}");
        }
    }
}

/// A command's verdict: ok, differs, not reached.
pub(crate) fn command_verdict(c: &CommandView, p: Palette) -> String {
    match (&c.printed, c.agrees) {
        (None, _) => p.paint("not reached", Ink::BAD),
        (Some(_), true) => p.paint("ok", Ink::GOOD),
        (Some(_), false) => p.paint("differs", Ink::BAD),
    }
}

/// What a command sent, what was expected and printed, what it saved.
pub(crate) fn command_body(out: &mut String, c: &CommandView, dialect: Dialect, p: Palette) {
    let _ = writeln!(out, "{IND}input sent: {}", sent(c, p));
    match &c.printed {
        None => {
            let _ = writeln!(
                out,
                "{IND}(the program's output ended before this command's answer)"
            );
        }
        Some(printed) if *printed == c.expected => {
            let what = match dialect {
                Dialect::Jhu => "printed (the judged lines), as expected:",
                Dialect::Cuhk => "printed, as expected:",
            };
            if printed.is_empty() {
                let _ = writeln!(out, "{IND}printed nothing judged, as expected");
            } else {
                let _ = writeln!(out, "{IND}{what}");
                lines(out, printed, SHOWN_WHEN_AGREEING, p, Ink::PLAIN);
            }
        }
        Some(printed) => {
            let (e, a) = console::differing(&c.expected, printed);
            let _ = writeln!(out, "{IND}expected:");
            lines(out, &e, usize::MAX, p, Ink::GREEN);
            let _ = writeln!(out, "{IND}printed:");
            lines(out, &a, usize::MAX, p, Ink::RED);
        }
    }
    for s in &c.saves {
        save(out, s, p);
    }
}

/// A command's board once done (titled), or what is said instead when it
/// is the board last drawn (`last_board`).
/// A move's from and to are on it (the pictures' arrow; `source` is the
/// scenario file's text).
pub(crate) fn command_board(
    c: &CommandView,
    last_board: Option<&BoardText>,
    coords: Coords,
    source: &str,
) -> Result<Diagram, String> {
    if last_board == Some(&c.board_after) {
        return Err(match c.line {
            Some(_) => "board unchanged by the command".to_string(),
            None => format!("{}: the board above", c.board_title),
        });
    }
    let d = Diagram::new(&c.board_title, &c.board_after, coords);
    let step = c.line.and_then(|l| source.lines().nth(l as usize - 1));
    Ok(match step {
        Some(step) => d.with_move(step),
        None => d,
    })
}

/// A machine game's command: only what was sent.
fn machine_command(out: &mut String, c: &CommandView, p: Palette) {
    let _ = writeln!(out, "\n{}", p.paint(terminal(&c.place), Ink::BOLD));
    let _ = writeln!(out, "{IND}input sent: {}", sent(c, p));
}

/// The first mismatch, as `grade` shows it, under its command's heading.
fn mismatch_at(
    out: &mut String,
    e: &ConsoleExplanation,
    c: Option<&CommandView>,
    coords: Coords,
    style: Style,
) {
    let Some(m) = &e.mismatch else {
        return;
    };
    let p = style.palette;
    let _ = writeln!(
        out,
        "\n{}: {}",
        p.paint(terminal(&mismatch_place(m, c)), Ink::BOLD),
        p.paint("MISMATCH", Ink::BAD)
    );
    mismatch_body(out, e, m, c, style, true);
    if let Some(d) = c.and_then(|c| board_after_mismatch(e, m, c, coords)) {
        let _ = writeln!(out, "{IND}{}:", d.title);
        out.push_str(&d.render(BOARD_IND, style));
    }
}

/// Where the first mismatch is: its command's place, or its own.
pub(crate) fn mismatch_place(m: &ConsoleMismatch, c: Option<&CommandView>) -> String {
    match c {
        Some(c) => c.place.clone(),
        None => match (m.line, &m.mismatch.place) {
            (Some(l), _) => format!("line {l}"),
            (None, Some(p)) => p.clone(),
            (None, None) => "setup".to_string(),
        },
    }
}

/// The first mismatch's block as `grade` shows it (its boards drawn when
/// `diagrams`), then the files its command had to save (unless the
/// failure is one of them: the block shows it).
pub(crate) fn mismatch_body(
    out: &mut String,
    e: &ConsoleExplanation,
    m: &ConsoleMismatch,
    c: Option<&CommandView>,
    style: Style,
    diagrams: bool,
) {
    let mut block = Vec::new();
    let _ = HumanReporter::new(&mut block)
        .style(style)
        .diagrams(diagrams)
        .failure(&failure_of(e, m));
    // Under its heading the block's own first line ("first mismatch at
    // ...") says it again; its details move left to this layout's indent.
    let block = String::from_utf8_lossy(&block);
    for line in block.lines().skip(1) {
        let _ = writeln!(out, "{}", line.strip_prefix(IND).unwrap_or(line));
    }
    if let Some(c) = c
        && !matches!(m.mismatch.problem, TranscriptProblem::SaveFile(_))
    {
        for s in &c.saves {
            save(out, s, style.palette);
        }
    }
}

/// The first mismatch as `grade`'s failure.
pub(crate) fn failure_of(e: &ConsoleExplanation, m: &ConsoleMismatch) -> crate::runner::Failure {
    m.clone().into_failure(&e.source)
}

/// The reference's board once the mismatching command is done, when it
/// is another than the failure's own (the board before the step).
pub(crate) fn board_after_mismatch(
    e: &ConsoleExplanation,
    m: &ConsoleMismatch,
    c: &CommandView,
    coords: Coords,
) -> Option<Diagram> {
    if c.line.is_none() || c.board_after == m.board_before {
        return None;
    }
    command_board(c, None, coords, &e.source).ok()
}

/// A saved file: as expected, or both texts.
fn save(out: &mut String, s: &SaveView, p: Palette) {
    let show = |t: &str| -> Vec<String> {
        t.split_inclusive('\n')
            .map(|l| l.replace('\n', "⏎"))
            .collect()
    };
    match &s.written {
        Some(w) if *w == s.expected => {
            let _ = writeln!(out, "{IND}saved {} (line {}), as expected:", s.file, s.line);
            lines(out, &show(w), usize::MAX, p, Ink::PLAIN);
        }
        written => {
            let _ = writeln!(out, "{IND}saved {} (line {}): expected:", s.file, s.line);
            lines(out, &show(&s.expected), usize::MAX, p, Ink::GREEN);
            match written {
                Some(w) => {
                    let _ = writeln!(out, "{IND}written:");
                    lines(out, &show(w), usize::MAX, p, Ink::RED);
                }
                None => {
                    let _ = writeln!(out, "{IND}written: {}", p.paint("(no file)", Ink::RED));
                }
            }
        }
    }
}

/// Up to `max` lines (sanitised, in `ink` when `p` colours), the rest
/// counted.
fn lines(out: &mut String, items: &[String], max: usize, p: Palette, ink: Ink) {
    for l in items.iter().take(max) {
        let _ = writeln!(out, "{IND}  {}", p.paint(terminal(l), ink));
    }
    if items.len() > max {
        let _ = writeln!(
            out,
            "{IND}  … {} more lines, as expected",
            items.len() - max
        );
    }
}

pub(crate) fn sent(c: &CommandView, p: Palette) -> String {
    match &c.input {
        Some(i) => p.paint(terminal(i), Ink::BOLD),
        None => "(nothing: the program's first output)".to_string(),
    }
}

fn indent(text: &str, by: &str) -> String {
    text.lines()
        .map(|l| format!("{by}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn verdict_line(e: &ConsoleExplanation, p: Palette) -> String {
    match &e.mismatch {
        Some(m) => {
            let at = match (m.line, &m.mismatch.place) {
                (Some(l), _) => format!("line {l}"),
                (None, Some(p)) => p.clone(),
                (None, None) => "setup".to_string(),
            };
            p.paint(format!("first mismatch at {}", terminal(&at)), Ink::BAD)
        }
        None if e.memory_fails => p.paint(
            "every command's answer matches, but a memory error fails the scenario",
            Ink::BAD,
        ),
        None => p.paint("every command's answer matches", Ink::GOOD),
    }
}
