//! The terminal report: one line per scenario (with its time when asked),
//! details for failures with board diagrams (the squares that matter
//! marked), a recap of every failure with its one-line cause, and a
//! summary line. Everything that came from a submission (or a file) is
//! passed through [`sanitize::terminal`] before it reaches the terminal.

use super::diagram::{Diagram, Style, failure_diagrams};
use super::model::cause;
use super::sanitize::terminal;
use crate::compare::{Detail, Mismatch};
use crate::runner::{Failure, FailureKind, ScenarioResult, Summary, TranscriptMismatch, Verdict};
use colored::Colorize;
use std::io::{self, Write};
use std::time::Duration;

pub struct HumanReporter<W: Write> {
    out: W,
    timed: bool,
    quiet: bool,
    style: Style,
}

const INDENT: &str = "          ";

impl<W: Write> HumanReporter<W> {
    pub fn new(out: W) -> Self {
        HumanReporter {
            out,
            timed: false,
            quiet: false,
            style: Style::default(),
        }
    }

    /// Shows each scenario's time on its line.
    pub fn timed(mut self, on: bool) -> Self {
        self.timed = on;
        self
    }

    /// Leaves out the lines of passing scenarios.
    pub fn quiet(mut self, on: bool) -> Self {
        self.quiet = on;
        self
    }

    /// How board diagrams are drawn (symbols, width).
    pub fn style(mut self, style: Style) -> Self {
        self.style = style;
        self
    }

    pub fn scenario(&mut self, r: &ScenarioResult) -> io::Result<()> {
        if self.quiet && !r.is_failure() {
            return Ok(());
        }
        self.scenario_verdict(r)?;
        self.memory_notes(r)
    }

    /// What a memory check found that the verdict does not already say: a
    /// leak, or an error graded as a note.
    fn memory_notes(&mut self, r: &ScenarioResult) -> io::Result<()> {
        let Some(m) = &r.memory else {
            return Ok(());
        };
        let failed_on_it =
            matches!(&r.verdict, Verdict::Fail(f) if matches!(f.kind, FailureKind::MemoryError(_)));
        let tool = m.tool.name();
        if let Some(e) = m.error.as_ref().filter(|_| !failed_on_it) {
            let more = match m.errors.saturating_sub(1) {
                0 => String::new(),
                n => format!(" (and {n} more)"),
            };
            writeln!(
                self.out,
                "      {} memory error{more}: {}",
                format!("memcheck ({tool}):").yellow(),
                terminal(&e.to_string())
            )?;
        }
        if let Some(l) = &m.leaks {
            writeln!(
                self.out,
                "      {} memory leak: {}",
                format!("memcheck ({tool}):").yellow(),
                terminal(&l.to_string())
            )?;
        }
        Ok(())
    }

    fn scenario_verdict(&mut self, r: &ScenarioResult) -> io::Result<()> {
        let label = match &r.verdict {
            Verdict::Pass => "PASS".green().bold(),
            Verdict::Updated { was_new: true, .. } => " NEW".cyan().bold(),
            Verdict::Updated { was_new: false, .. } => "UPDT".cyan().bold(),
            Verdict::InputError(_) => " ERR".red().bold(),
            Verdict::Fail(_) | Verdict::NoSnapshot => "FAIL".red().bold(),
        };
        let points = format!("{:>3}/{:<3}", r.earned(), r.points);
        let name = r.name.display().to_string();
        let name = terminal(&name);
        if self.timed {
            let time = format!("[{:.3}s]", r.elapsed.as_secs_f64());
            writeln!(self.out, "{label} {points} {name} {}", time.dimmed())?;
        } else {
            writeln!(self.out, "{label} {points} {name}")?;
        }
        match &r.verdict {
            Verdict::Pass => Ok(()),
            Verdict::Fail(f) => self.failure(f),
            Verdict::NoSnapshot => writeln!(
                self.out,
                "      no snapshot yet: run with --update (then `cargo insta review`) or --accept"
            ),
            Verdict::Updated { path, .. } => {
                let path = path.display().to_string();
                writeln!(self.out, "      wrote {}", terminal(&path))
            }
            Verdict::InputError(diag) => self.indented(&diag.to_string(), "      "),
        }
    }

    /// A diagnostic that belongs to no scenario (e.g. a missing path argument).
    pub fn input_error(&mut self, diag: &crate::scenario::Diagnostic) -> io::Result<()> {
        let diag = diag.to_string();
        writeln!(self.out, "{} {}", " ERR".red().bold(), terminal(&diag))
    }

    /// A note about the run as a whole (e.g. a file left out of a build).
    pub fn note(&mut self, note: &str) -> io::Result<()> {
        writeln!(self.out, "{} {}", "note:".yellow().bold(), terminal(note))
    }

    /// A failure's details, as under a failing scenario's line (what
    /// `explain` shows at a console program's first mismatch too).
    pub fn failure(&mut self, f: &Failure) -> io::Result<()> {
        let at = match (f.line, &f.kind) {
            (Some(l), FailureKind::WrongAnswer(m)) => {
                format!("line {l} (trace line {})", m.trace_line)
            }
            (Some(l), _) => format!("line {l}"),
            (None, FailureKind::MemoryError(m)) if m.at_end => {
                "the end (after the last step)".to_string()
            }
            (None, FailureKind::Transcript(t)) => {
                t.place.clone().unwrap_or_else(|| "setup".to_string())
            }
            (None, _) => "setup".to_string(),
        };
        let step = terminal(f.step_source.as_deref().unwrap_or("")).into_owned();
        let what = match &f.kind {
            FailureKind::WrongAnswer(_) => "a call did not match the expected answer".to_string(),
            FailureKind::BoardOutOfSync { .. } => "the board is out of sync".to_string(),
            FailureKind::Subject(e) => e.to_string(),
            FailureKind::CompileError(_) => "compile error".to_string(),
            FailureKind::NotRecognised(_) => "not a recognised submission".to_string(),
            FailureKind::Transcript(t) => t.problem.to_string(),
            FailureKind::MemoryError(m) => {
                format!("memory error ({}): {}", m.tool, m.error.kind.name())
            }
            FailureKind::MemoryLeaks(l) => l.to_string(),
        };
        if let Some(heading) = match f.kind {
            FailureKind::CompileError(_) => Some("the submission did not compile:"),
            FailureKind::NotRecognised(_) => Some("the upload is not a submission of this kind:"),
            FailureKind::MemoryLeaks(_) => Some("memory was leaked:"),
            _ => None,
        } {
            writeln!(self.out, "      {}", heading.red())?;
        } else {
            let at = terminal(&at).into_owned();
            if step.is_empty() {
                writeln!(self.out, "      first mismatch at {}", at.bold())?;
            } else {
                writeln!(
                    self.out,
                    "      first mismatch at {}: {}",
                    at.bold(),
                    step.bold()
                )?;
            }
            writeln!(self.out, "        {}", terminal(&what).red())?;
        }
        match &f.kind {
            FailureKind::WrongAnswer(m) => self.mismatch(m)?,
            FailureKind::CompileError(msg) | FailureKind::NotRecognised(msg) => {
                self.indented(msg, "        ")?
            }
            FailureKind::BoardOutOfSync { .. } | FailureKind::Subject(_) => {}
            FailureKind::Transcript(t) => self.transcript(t)?,
            FailureKind::MemoryError(m) => self.memory_error(&m.error)?,
            FailureKind::MemoryLeaks(l) => {
                writeln!(self.out, "        {}", terminal(&what).red())?;
                const SHOWN: usize = 10;
                for (name, leaks) in l.leaked.iter().take(SHOWN) {
                    writeln!(
                        self.out,
                        "{INDENT}{}: {}",
                        terminal(name),
                        terminal(&leaks.to_string())
                    )?;
                }
                if l.leaked.len() > SHOWN {
                    writeln!(
                        self.out,
                        "{INDENT}… ({} more scenarios)",
                        l.leaked.len() - SHOWN
                    )?;
                }
            }
        }
        for diagram in failure_diagrams(f) {
            self.diagram(&diagram)?;
        }
        if let Some(stderr) = &f.stderr {
            // The start of the debug output is enough to orient a student;
            // the JSON report's `details` has the same excerpt.
            const SHOWN: usize = 20;
            let lines: Vec<&str> = stderr.lines().collect();
            writeln!(self.out, "        the submission's stderr:")?;
            self.indented(&lines[..lines.len().min(SHOWN)].join("\n"), INDENT)?;
            if lines.len() > SHOWN {
                writeln!(self.out, "{INDENT}… ({} more lines)", lines.len() - SHOWN)?;
            }
        }
        Ok(())
    }

    /// Where a memory error was made, and where its memory was freed and
    /// allocated, each in the student's files.
    fn memory_error(&mut self, e: &crate::memcheck::MemoryError) -> io::Result<()> {
        let mut detail = e.detail.clone();
        if let Some(access) = e.access {
            detail = format!("{access}, {detail}");
        }
        if !detail.is_empty() {
            writeln!(self.out, "{INDENT}{}", terminal(&detail))?;
        }
        let none = "(no frame in the submission's files)".to_string();
        let at = e.at.as_ref().map_or(none.clone(), ToString::to_string);
        writeln!(self.out, "{INDENT}at {}", terminal(&at).bold())?;
        if let Some(freed) = &e.freed {
            writeln!(
                self.out,
                "{INDENT}freed at {}",
                terminal(&freed.to_string())
            )?;
        }
        if let Some(allocated) = &e.allocated {
            let word = if e.kind == crate::memcheck::ErrorKind::Uninitialised {
                "created"
            } else {
                "allocated"
            };
            writeln!(
                self.out,
                "{INDENT}{word} at {}",
                terminal(&allocated.to_string())
            )?;
        }
        Ok(())
    }

    fn transcript(&mut self, t: &TranscriptMismatch) -> io::Result<()> {
        let sent = t
            .input
            .as_deref()
            .map_or("(nothing: the program's start)".into(), |i| {
                i.lines().collect::<Vec<_>>().join(" ⏎ ")
            });
        writeln!(self.out, "        input sent: {}", sent.bold())?;
        self.items("expected", &t.expected, |s| s.green().to_string())?;
        self.items("actual", &t.actual, |s| s.red().to_string())?;
        for note in &t.notes {
            writeln!(self.out, "        what differs: {}", terminal(note))?;
        }
        const SHOWN: usize = 40;
        let lines: Vec<&str> = t.raw_output.lines().collect();
        writeln!(self.out, "        the program's output for this command:")?;
        if lines.is_empty() {
            writeln!(self.out, "{INDENT}(nothing)")?;
        }
        self.indented(&lines[..lines.len().min(SHOWN)].join("\n"), INDENT)?;
        if lines.len() > SHOWN {
            writeln!(self.out, "{INDENT}… ({} more lines)", lines.len() - SHOWN)?;
        }
        Ok(())
    }

    fn mismatch(&mut self, m: &Mismatch) -> io::Result<()> {
        match &m.detail {
            Detail::Scan { missing, extra } => {
                self.items("missing (expected, not answered)", missing, |s| {
                    s.green().to_string()
                })?;
                self.items("extra (answered, not expected)", extra, |s| {
                    s.red().to_string()
                })
            }
            Detail::Move {
                expected_result,
                actual_result,
                expected_board,
                actual_board,
            } => {
                let show = |r: &Option<String>| r.clone().unwrap_or_else(|| "(none)".into());
                writeln!(
                    self.out,
                    "        result: expected {}, actual {}",
                    terminal(&show(expected_result)).green(),
                    terminal(&show(actual_result)).red()
                )?;
                // The boards after (when both exist and differ) are diagrams.
                if expected_board != actual_board
                    && (expected_board.is_none() || actual_board.is_none())
                {
                    let show = |b: &Option<String>| b.clone().unwrap_or_else(|| "(none)".into());
                    writeln!(
                        self.out,
                        "        expected board after: {}",
                        terminal(&show(expected_board))
                    )?;
                    writeln!(
                        self.out,
                        "        actual board after: {}",
                        terminal(&show(actual_board))
                    )?;
                }
                Ok(())
            }
            Detail::Lines { expected, actual } => {
                self.items("expected", expected, |s| s.green().to_string())?;
                self.items("actual", actual, |s| s.red().to_string())
            }
        }
    }

    fn items(
        &mut self,
        title: &str,
        items: &[String],
        paint: impl Fn(&str) -> String,
    ) -> io::Result<()> {
        if items.is_empty() {
            return Ok(());
        }
        writeln!(self.out, "        {title}:")?;
        for item in items {
            writeln!(self.out, "{INDENT}{}", paint(&terminal(item)))?;
        }
        Ok(())
    }

    fn diagram(&mut self, d: &Diagram) -> io::Result<()> {
        writeln!(self.out, "        {}:", d.title)?;
        // The diagram escapes every square itself (its marks are colours).
        write!(self.out, "{}", d.render(INDENT, self.style))
    }

    /// Every failure again, one line each with its cause (as nextest ends
    /// a run), so a long batch's failures need no scrolling back.
    pub fn recap(&mut self, results: &[ScenarioResult]) -> io::Result<()> {
        self.memory_summary(results)?;
        let failed: Vec<&ScenarioResult> = results.iter().filter(|r| r.is_failure()).collect();
        if failed.is_empty() {
            return Ok(());
        }
        writeln!(
            self.out,
            "\n{} ({}):",
            "failures".red().bold(),
            failed.len()
        )?;
        for r in failed {
            let label = match r.verdict {
                Verdict::InputError(_) => " ERR",
                _ => "FAIL",
            };
            let name = r.name.display().to_string();
            writeln!(
                self.out,
                "  {} {}: {}",
                label.red().bold(),
                terminal(&name),
                terminal(&cause(r).unwrap_or_default())
            )?;
        }
        Ok(())
    }

    /// One line on what a memory check found over the run (nothing when
    /// memory was not checked).
    fn memory_summary(&mut self, results: &[ScenarioResult]) -> io::Result<()> {
        let checked: Vec<&crate::memcheck::Findings> =
            results.iter().filter_map(|r| r.memory.as_ref()).collect();
        let Some(first) = checked.first() else {
            return Ok(());
        };
        let with_errors = checked.iter().filter(|m| m.error.is_some()).count();
        let leaking: Vec<u64> = checked
            .iter()
            .filter_map(|m| m.leaks.as_ref().map(|l| l.bytes))
            .collect();
        let leaks = match leaking.len() {
            0 => "none leaked".to_string(),
            n => format!("{n} leaked ({} bytes in all)", leaking.iter().sum::<u64>()),
        };
        let n = checked.len();
        writeln!(
            self.out,
            "\n{} {n} scenario{} checked: {with_errors} with memory errors, {leaks}",
            format!("memcheck ({}):", first.tool.name()).yellow().bold(),
            if n == 1 { "" } else { "s" }
        )
    }

    /// A note that `--fail-fast` left scenarios out.
    pub fn not_run(&mut self, count: usize) -> io::Result<()> {
        if count > 0 {
            writeln!(
                self.out,
                "{} {count} scenarios not run (--fail-fast stopped at the first failure)",
                "note:".yellow().bold()
            )?;
        }
        Ok(())
    }

    fn indented(&mut self, text: &str, indent: &str) -> io::Result<()> {
        for line in text.lines() {
            writeln!(self.out, "{indent}{}", terminal(line))?;
        }
        Ok(())
    }

    pub fn summary(&mut self, s: &Summary, elapsed: Duration) -> io::Result<()> {
        let mut parts = vec![
            format!("{} passed", s.passed),
            format!("{} failed", s.failed),
        ];
        if s.updated > 0 {
            parts.push(format!("{} snapshots written", s.updated));
        }
        if s.errors > 0 {
            parts.push(format!("{} input errors", s.errors));
        }
        let status = if s.exit_code() == 0 {
            "ok".green().bold()
        } else {
            "FAILED".red().bold()
        };
        writeln!(
            self.out,
            "\n{status}: {}; points {}/{}; {:.2}s",
            parts.join(", "),
            s.points,
            s.possible,
            elapsed.as_secs_f64()
        )?;
        if s.proposed > 0 {
            writeln!(
                self.out,
                "review pending snapshots with `cargo insta review` (or rerun with --accept)"
            )?;
        }
        Ok(())
    }
}
