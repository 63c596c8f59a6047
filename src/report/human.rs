//! The terminal report: one line per scenario (with its time when asked),
//! details for failures with board diagrams (the squares that matter
//! marked), a recap of every failure with its one-line cause, and a
//! summary line. Everything that came from a submission (or a file) is
//! passed through [`sanitize::terminal`] before it reaches the terminal.

use super::diagram::{Diagram, Style, failure_diagrams};
use super::model::cause;
use super::paint::{Ink, Palette};
use super::sanitize::terminal;
use crate::compare::{Detail, Mismatch, Tally};
use crate::runner::{
    Failure, FailureKind, ScenarioResult, Summary, TranscriptMismatch, Verdict, Written,
};
use std::io::{self, Write};
use std::time::Duration;

pub struct HumanReporter<W: Write> {
    out: W,
    timed: bool,
    quiet: bool,
    style: Style,
    /// Board diagrams under a failure (off where pictures show them).
    diagrams: bool,
}

const INDENT: &str = "          ";

impl<W: Write> HumanReporter<W> {
    pub fn new(out: W) -> Self {
        HumanReporter {
            out,
            timed: false,
            quiet: false,
            style: Style::default(),
            diagrams: true,
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

    /// Whether a failure's board diagrams are drawn (on unless a page
    /// shows them as pictures beside the text).
    pub fn diagrams(mut self, on: bool) -> Self {
        self.diagrams = on;
        self
    }

    /// How board diagrams are drawn (colour, symbols, width).
    pub fn style(mut self, style: Style) -> Self {
        self.style = style;
        self
    }

    /// Colour or none (plain unless said), for the lines and the diagrams.
    pub fn palette(mut self, palette: Palette) -> Self {
        self.style.palette = palette;
        self
    }

    fn paint(&self, text: impl std::fmt::Display, ink: Ink) -> String {
        self.style.palette.paint(text, ink)
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
            let heading = self.paint(format!("memcheck ({tool}):"), Ink::YELLOW);
            writeln!(
                self.out,
                "      {heading} memory error{more}: {}",
                terminal(&e.to_string())
            )?;
        }
        if let Some(l) = &m.leaks {
            let heading = self.paint(format!("memcheck ({tool}):"), Ink::YELLOW);
            writeln!(
                self.out,
                "      {heading} memory leak: {}",
                terminal(&l.to_string())
            )?;
        }
        Ok(())
    }

    fn scenario_verdict(&mut self, r: &ScenarioResult) -> io::Result<()> {
        let label = match &r.verdict {
            Verdict::Pass => self.paint("PASS", Ink::GOOD),
            Verdict::Updated {
                written: Written::New,
                ..
            } => self.paint(" NEW", Ink::NEWS),
            Verdict::Updated { .. } => self.paint("UPDT", Ink::NEWS),
            Verdict::InputError(_) => self.paint(" ERR", Ink::BAD),
            Verdict::Fail(_) | Verdict::NoSnapshot => self.paint("FAIL", Ink::BAD),
        };
        let points = format!("{:>3}/{:<3}", r.earned(), r.points);
        let name = r.name.display().to_string();
        let name = terminal(&name);
        if self.timed {
            let time = format!("[{:.3}s]", r.elapsed.as_secs_f64());
            let time = self.paint(time, Ink::DIMMED);
            writeln!(self.out, "{label} {points} {name} {time}")?;
        } else {
            writeln!(self.out, "{label} {points} {name}")?;
        }
        // A failure under a course's own rules says which: the answers
        // it is judged by are those rules'.
        let own_rules = r
            .rules
            .filter(|n| n.parse::<crate::engine::RuleSetId>().is_err());
        if let (Some(rules), Verdict::Fail(_) | Verdict::NoSnapshot) = (own_rules, &r.verdict) {
            writeln!(self.out, "      under the rules `{}`", terminal(rules))?;
        }
        match &r.verdict {
            Verdict::Pass => Ok(()),
            Verdict::Fail(f) => self.failure(f),
            Verdict::NoSnapshot => writeln!(
                self.out,
                "      no snapshot yet: run with --update (then `cargo insta review`) or --accept"
            ),
            Verdict::Updated { path, written } => {
                let path = path.display().to_string();
                writeln!(self.out, "      wrote {}", terminal(&path))?;
                if let Written::Changed(steps) = written {
                    const SHOWN: usize = 6;
                    for step in steps.iter().take(SHOWN) {
                        writeln!(self.out, "      {}", terminal(&step.to_string()))?;
                    }
                    if steps.len() > SHOWN {
                        writeln!(
                            self.out,
                            "      … and {} more changed steps",
                            steps.len() - SHOWN
                        )?;
                    }
                }
                Ok(())
            }
            Verdict::InputError(diag) => self.indented(&diag.to_string(), "      "),
        }
    }

    /// A diagnostic that belongs to no scenario (e.g. a missing path argument).
    pub fn input_error(&mut self, diag: &crate::scenario::Diagnostic) -> io::Result<()> {
        let diag = diag.to_string();
        let label = self.paint(" ERR", Ink::BAD);
        writeln!(self.out, "{label} {}", terminal(&diag))
    }

    /// A note about the run as a whole (e.g. a file left out of a build).
    pub fn note(&mut self, note: &str) -> io::Result<()> {
        let label = self.paint("note:", Ink::NOTE);
        writeln!(self.out, "{label} {}", terminal(note))
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
            FailureKind::NotGraded(_) => "not graded (a staff-side problem)".to_string(),
            FailureKind::Transcript(t) => t.problem.to_string(),
            FailureKind::MemoryError(m) => {
                format!("memory error ({}): {}", m.tool, m.error.kind.name())
            }
            FailureKind::MemoryLeaks(l) => l.to_string(),
        };
        if let Some(heading) = match f.kind {
            FailureKind::CompileError(_) => Some("the submission did not compile:"),
            FailureKind::NotRecognised(_) => Some("the upload is not a submission of this kind:"),
            FailureKind::NotGraded(_) => {
                Some("not graded: a staff-side problem stopped the grader:")
            }
            FailureKind::MemoryLeaks(_) => Some("memory was leaked:"),
            _ => None,
        } {
            let heading = self.paint(heading, Ink::RED);
            writeln!(self.out, "      {heading}")?;
        } else {
            let at = self.paint(terminal(&at), Ink::BOLD);
            if step.is_empty() {
                writeln!(self.out, "      first mismatch at {at}")?;
            } else {
                let step = self.paint(&step, Ink::BOLD);
                writeln!(self.out, "      first mismatch at {at}: {step}")?;
            }
            let what = self.paint(terminal(&what), Ink::RED);
            writeln!(self.out, "        {what}")?;
        }
        match &f.kind {
            FailureKind::WrongAnswer(m) => self.mismatch(m)?,
            FailureKind::CompileError(msg)
            | FailureKind::NotRecognised(msg)
            | FailureKind::NotGraded(msg) => self.indented(msg, "        ")?,
            FailureKind::BoardOutOfSync { .. } | FailureKind::Subject(_) => {}
            FailureKind::Transcript(t) => self.transcript(t)?,
            FailureKind::MemoryError(m) => self.memory_error(&m.error)?,
            FailureKind::MemoryLeaks(l) => {
                let what = self.paint(terminal(&what), Ink::RED);
                writeln!(self.out, "        {what}")?;
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
        if self.diagrams {
            for diagram in failure_diagrams(f) {
                self.diagram(&diagram)?;
            }
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
        let at = self.paint(terminal(&at), Ink::BOLD);
        writeln!(self.out, "{INDENT}at {at}")?;
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
        let sent = self.paint(sent, Ink::BOLD);
        writeln!(self.out, "        input sent: {sent}")?;
        self.items("expected", &t.expected, Ink::GREEN)?;
        self.items("actual", &t.actual, Ink::RED)?;
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
                self.items("missing (expected, not answered)", missing, Ink::GREEN)?;
                self.items("extra (answered, not expected)", extra, Ink::RED)
            }
            Detail::Move {
                expected_result,
                actual_result,
                expected_board,
                actual_board,
            } => {
                let show = |r: &Option<String>| r.clone().unwrap_or_else(|| "(none)".into());
                let expected = self.paint(terminal(&show(expected_result)), Ink::GREEN);
                let actual = self.paint(terminal(&show(actual_result)), Ink::RED);
                writeln!(
                    self.out,
                    "        result: expected {expected}, actual {actual}"
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
                self.items("expected", expected, Ink::GREEN)?;
                self.items("actual", actual, Ink::RED)
            }
        }
    }

    fn items(&mut self, title: &str, items: &[String], ink: Ink) -> io::Result<()> {
        if items.is_empty() {
            return Ok(());
        }
        writeln!(self.out, "        {title}:")?;
        for item in items {
            let item = self.paint(terminal(item), ink);
            writeln!(self.out, "{INDENT}{item}")?;
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
        let title = self.paint("failures", Ink::BAD);
        writeln!(self.out, "\n{title} ({}):", failed.len())?;
        for r in failed {
            let label = match r.verdict {
                Verdict::InputError(_) => " ERR",
                _ => "FAIL",
            };
            let name = r.name.display().to_string();
            let label = self.paint(label, Ink::BAD);
            writeln!(
                self.out,
                "  {label} {}: {}",
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
        let heading = self.paint(format!("memcheck ({}):", first.tool.name()), Ink::NOTE);
        writeln!(
            self.out,
            "\n{heading} {n} scenario{} checked: {with_errors} with memory errors, {leaks}",
            if n == 1 { "" } else { "s" }
        )
    }

    /// A note that `--fail-fast` left scenarios out.
    pub fn not_run(&mut self, count: usize) -> io::Result<()> {
        if count > 0 {
            let label = self.paint("note:", Ink::NOTE);
            writeln!(
                self.out,
                "{label} {count} scenarios not run (--fail-fast stopped at the first failure)"
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

    /// How many written snapshots changed, by what changed (a move now
    /// valid, a scan's squares, ...), so staff know what a rule change
    /// touched before reviewing; nothing when none was written over an
    /// old one.
    pub fn changes(&mut self, t: &Tally) -> io::Result<()> {
        if t.changed == 0 {
            return Ok(());
        }
        let count = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        let new = match t.new {
            0 => String::new(),
            n => format!(" (and {n} new)"),
        };
        let title = self.paint("changed snapshots", Ink::NEWS);
        writeln!(self.out, "\n{title}: {}{new}, by what changed:", t.changed)?;
        for g in &t.groups {
            writeln!(
                self.out,
                "  {:<28} {:<14} {}",
                g.group.words(),
                count(g.scenarios, "scenario"),
                count(g.steps, "step")
            )?;
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
        if s.not_graded > 0 {
            parts.push(format!(
                "{} not graded (the grader ran short)",
                s.not_graded
            ));
        }
        let status = if s.exit_code() == 0 {
            self.paint("ok", Ink::GOOD)
        } else {
            self.paint("FAILED", Ink::BAD)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::BoardText;
    use crate::scenario::Visibility;

    #[test]
    fn one_result_reported_in_colour_and_plain_in_one_process() {
        let r = ScenarioResult {
            path: "s/a.txt".into(),
            name: "a.txt".into(),
            points: 2,
            visibility: Visibility::Visible,
            verdict: Verdict::Fail(Box::new(Failure {
                kind: FailureKind::BoardOutOfSync {
                    expected: BoardText("K.".into()),
                    actual: BoardText(".K".into()),
                },
                line: Some(7),
                step_source: Some("m 0 0 0 1".into()),
                board_before: BoardText("K.".into()),
                stderr: None,
            })),
            elapsed: Duration::ZERO,
            memory: None,
            rules: None,
        };
        let report = |palette| {
            let mut buf = Vec::new();
            HumanReporter::new(&mut buf)
                .palette(palette)
                .scenario(&r)
                .unwrap();
            String::from_utf8(buf).unwrap()
        };
        // Colour first, then plain: nothing of the first stays behind.
        let colour = report(Palette::COLOUR);
        let plain = report(Palette::PLAIN);
        assert_eq!(
            plain,
            "FAIL   0/2   a.txt\n\
             \x20     first mismatch at line 7: m 0 0 0 1\n\
             \x20       the board is out of sync\n\
             \x20       expected board:\n\
             \x20             0  1\n\
             \x20         0   K  .\n\
             \x20       actual board:\n\
             \x20             0  1\n\
             \x20         0  !. !K\n\
             \x20         ! differs from the expected board\n"
        );
        // The same lines with SGR codes: red bold (1;31) for FAIL, bold (1)
        // for where, red (31) for what, black on magenta (45;30) for the
        // squares that differ.
        assert_eq!(
            colour,
            "\x1b[1;31mFAIL\x1b[0m   0/2   a.txt\n\
             \x20     first mismatch at \x1b[1mline 7\x1b[0m: \x1b[1mm 0 0 0 1\x1b[0m\n\
             \x20       \x1b[31mthe board is out of sync\x1b[0m\n\
             \x20       expected board:\n\
             \x20             0  1\n\
             \x20         0   K  .\n\
             \x20       actual board:\n\
             \x20             0  1\n\
             \x20         0  \x1b[45;30m!.\x1b[0m \x1b[45;30m!K\x1b[0m\n\
             \x20         ! differs from the expected board\n"
        );
        assert_eq!(report(Palette::PLAIN), plain);
    }
}
