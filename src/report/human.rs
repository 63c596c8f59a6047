//! The terminal report: one line per scenario, details for failures, and a
//! summary line.

use super::board::draw_board;
use crate::compare::Detail;
use crate::runner::{MismatchReport, ScenarioResult, SubjectFailureReport, Summary, Verdict};
use colored::Colorize;
use std::io::{self, Write};
use std::time::Duration;

pub struct HumanReporter<W: Write> {
    out: W,
}

impl<W: Write> HumanReporter<W> {
    pub fn new(out: W) -> Self {
        HumanReporter { out }
    }

    pub fn scenario(&mut self, r: &ScenarioResult) -> io::Result<()> {
        let label = match &r.verdict {
            Verdict::Pass => "PASS".green().bold(),
            Verdict::Updated { was_new: true, .. } => " NEW".cyan().bold(),
            Verdict::Updated { was_new: false, .. } => "UPDT".cyan().bold(),
            Verdict::InputError(_) => " ERR".red().bold(),
            _ => "FAIL".red().bold(),
        };
        let points = format!("{:>3}/{:<3}", r.earned(), r.points);
        writeln!(self.out, "{label} {points} {}", r.name.display())?;
        match &r.verdict {
            Verdict::Pass => Ok(()),
            Verdict::Mismatch(m) => self.mismatch(m),
            Verdict::SubjectFailed(f) => self.subject_failure(f),
            Verdict::NoSnapshot => writeln!(
                self.out,
                "      no snapshot yet: run with --update (then `cargo insta review`) or --accept"
            ),
            Verdict::Updated { path, .. } => writeln!(self.out, "      wrote {}", path.display()),
            Verdict::InputError(diag) => {
                for line in diag.to_string().lines() {
                    writeln!(self.out, "      {line}")?;
                }
                Ok(())
            }
        }
    }

    /// A diagnostic that belongs to no scenario (e.g. a missing path argument).
    pub fn input_error(&mut self, diag: &crate::scenario::Diagnostic) -> io::Result<()> {
        writeln!(self.out, "{} {}", " ERR".red().bold(), diag)
    }

    fn step_heading(
        &mut self,
        line: Option<u32>,
        source: &Option<String>,
        trace_line: Option<usize>,
    ) -> io::Result<()> {
        let at = match (line, trace_line) {
            (Some(l), Some(t)) => format!("line {l} (trace line {t})"),
            (Some(l), None) => format!("line {l}"),
            (None, Some(t)) => format!("trace line {t}"),
            (None, None) => "setup".to_string(),
        };
        let step = source.as_deref().unwrap_or("");
        writeln!(
            self.out,
            "      first mismatch at {}: {}",
            at.bold(),
            step.bold()
        )
    }

    fn mismatch(&mut self, m: &MismatchReport) -> io::Result<()> {
        let mm = &m.mismatch;
        self.step_heading(mm.scenario_line, &m.step_source, Some(mm.trace_line))?;
        match &mm.detail {
            Detail::Scan { missing, extra } => {
                self.items("missing (expected, not answered)", missing, |s| {
                    s.green().to_string()
                })?;
                self.items("extra (answered, not expected)", extra, |s| {
                    s.red().to_string()
                })?;
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
                    show(expected_result).green(),
                    show(actual_result).red()
                )?;
                if expected_board != actual_board {
                    self.board("expected board after", expected_board)?;
                    self.board("actual board after", actual_board)?;
                }
            }
            Detail::Lines { expected, actual } => {
                self.items("expected", expected, |s| s.green().to_string())?;
                self.items("actual", actual, |s| s.red().to_string())?;
            }
        }
        writeln!(self.out, "        board before the step:")?;
        write!(self.out, "{}", draw_board(&m.board_before, "          "))
    }

    fn subject_failure(&mut self, f: &SubjectFailureReport) -> io::Result<()> {
        self.step_heading(f.failure.line, &f.step_source, None)?;
        writeln!(self.out, "        {}", f.failure.error.to_string().red())?;
        if !f.board_before.as_str().is_empty() {
            writeln!(self.out, "        board before the step:")?;
            write!(self.out, "{}", draw_board(&f.board_before, "          "))?;
        }
        Ok(())
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
            writeln!(self.out, "          {}", paint(item))?;
        }
        Ok(())
    }

    fn board(&mut self, title: &str, board: &Option<String>) -> io::Result<()> {
        writeln!(self.out, "        {title}:")?;
        match board {
            Some(b) => write!(
                self.out,
                "{}",
                draw_board(&crate::engine::BoardText(b.clone()), "          ")
            ),
            None => writeln!(self.out, "          (none)"),
        }
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
        if s.updated > 0 {
            writeln!(
                self.out,
                "review pending snapshots with `cargo insta review` (or rerun with --accept)"
            )?;
        }
        Ok(())
    }
}
