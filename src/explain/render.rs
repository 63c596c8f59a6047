//! Drawing an [`Explanation`] for a terminal: per step, the source line
//! with a caret under the step, the verdict, and board diagrams (before
//! and after; one board when the step leaves it unchanged) with the
//! squares that matter marked, in the scenario's own coordinates.

use super::{Explanation, StepVerdict, StepView};
use crate::report::{Coords, Diagram, Ink, Style};
use std::fmt::Write;

/// What to show and how.
#[derive(Clone, Copy, Debug)]
pub struct RenderOptions {
    /// How boards are drawn, and the colours of everything (`style.palette`).
    pub style: Style,
    /// Only the step on this scenario line.
    pub line: Option<u32>,
    /// Every step, not only those up to the first mismatch.
    pub all: bool,
}

const IND: &str = "    ";

/// A `--line` that holds no step (or, for a console program, sends no
/// command): the line asked for and the lines that do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoSuchLine {
    pub line: u32,
    pub lines: Vec<u32>,
    /// Whether the lines are a scenario's steps or a console session's
    /// commands.
    pub console: bool,
}

impl std::fmt::Display for NoSuchLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lines: Vec<String> = self.lines.iter().map(u32::to_string).collect();
        match self.console {
            true => write!(
                f,
                "line {} sends no command (commands come from lines {})",
                self.line,
                lines.join(", ")
            ),
            false => write!(
                f,
                "line {} holds no step (steps are on lines {})",
                self.line,
                lines.join(", ")
            ),
        }
    }
}

impl std::error::Error for NoSuchLine {}

/// The explanation as text. `Err` names a `--line` that holds no step.
pub fn render(e: &Explanation, opts: RenderOptions) -> Result<String, NoSuchLine> {
    let coords = Coords::of(e.rules);
    let p = opts.style.palette;
    let mut out = String::new();
    let steps = shown_steps(e, opts)?;
    match opts.line {
        Some(_) => {}
        None => {
            let _ = writeln!(out, "{}", p.paint("board after the setup:", Ink::BOLD));
            if e.initial.as_str().is_empty() {
                let _ = writeln!(out, "{IND}(none: the subject failed during the setup)");
            } else {
                out.push_str(&Diagram::new("setup", &e.initial, coords).render(IND, opts.style));
            }
            if let Some(f) = e.failure.as_ref().filter(|f| f.line.is_none()) {
                let _ = writeln!(out, "{IND}{}", p.paint(&f.error, Ink::RED));
            }
        }
    }
    for s in &steps {
        step(&mut out, s, coords, opts.style);
    }
    if opts.line.is_none() && !opts.all {
        let later = e
            .steps
            .iter()
            .filter(|s| e.first_mismatch().is_some_and(|m| s.line > m.line))
            .count();
        if later > 0 {
            let _ = writeln!(
                out,
                "\n({later} later steps not shown; --all shows every step, --line N one step)"
            );
        }
    }
    if let Some(m) = &e.memory {
        let tool = m.findings.tool.name();
        let heading = p.paint(format!("memcheck ({tool}):"), Ink::NOTE);
        for note in m.findings.notes() {
            // `asan: memory error: ...` under the heading that names the tool.
            let note = note.strip_prefix(&format!("{tool}: ")).unwrap_or(&note);
            let _ = writeln!(out, "\n{heading} {note}");
        }
        if m.findings.is_clean() {
            let _ = writeln!(out, "\n{heading} no memory error, no leak");
        }
    }
    let _ = writeln!(
        out,
        "\n{}",
        match (e.first_mismatch(), e.failing_memory_error()) {
            (Some(m), _) => p.paint(format!("first mismatch at line {}", m.line), Ink::BAD),
            (None, Some(_)) => p.paint(
                "every step matches, but a memory error fails the scenario",
                Ink::BAD
            ),
            (None, None) => p.paint("every step matches", Ink::GOOD),
        }
    );
    Ok(out)
}

/// The steps shown: the one of `--line`, else every step up to the first
/// mismatch (`--all`: every step). `Err` names a `--line` without a step.
pub(crate) fn shown_steps(
    e: &Explanation,
    opts: RenderOptions,
) -> Result<Vec<&StepView>, NoSuchLine> {
    match opts.line {
        Some(n) => {
            let step = e
                .steps
                .iter()
                .find(|s| s.line == n)
                .ok_or_else(|| NoSuchLine {
                    line: n,
                    lines: e.steps.iter().map(|s| s.line).collect(),
                    console: false,
                })?;
            Ok(vec![step])
        }
        None => {
            let upto = match (opts.all, e.first_mismatch()) {
                (false, Some(m)) => m.line,
                _ => u32::MAX,
            };
            Ok(e.steps.iter().filter(|s| s.line <= upto).collect())
        }
    }
}

fn step(out: &mut String, s: &StepView, coords: Coords, style: Style) {
    let p = style.palette;
    let text = s.source.trim();
    let verdict = match &s.verdict {
        StepVerdict::Match => p.paint("ok", Ink::GOOD),
        StepVerdict::Scan { missing, extra } => format!(
            "{}: {} missing, {} extra",
            p.paint("MISMATCH", Ink::BAD),
            missing.len(),
            extra.len()
        ),
        StepVerdict::Differs { .. } => p.paint("MISMATCH", Ink::BAD),
        StepVerdict::Failed(why) => format!("{}: {why}", p.paint("FAILED", Ink::BAD)),
    };
    let heading = p.paint(format!("line {}:", s.line), Ink::BOLD);
    let _ = writeln!(out, "\n{heading} {verdict}");
    // The source line with a caret under the step.
    let num = s.line.to_string();
    let start = s.source.len() - s.source.trim_start().len();
    let _ = writeln!(out, "{IND}{num} | {}", s.source.trim_end());
    let _ = writeln!(
        out,
        "{IND}{} | {}{}",
        " ".repeat(num.len()),
        " ".repeat(s.source[..start].chars().count()),
        p.paint("^".repeat(text.chars().count().max(1)), Ink::YELLOW)
    );
    let rows = s.before.rows().count();
    let name = |item: &str| translate(item, coords, rows);
    match &s.verdict {
        StepVerdict::Match => {
            if let Some(h) = &s.actual_header {
                let _ = writeln!(out, "{IND}answered: {}", result_of(h));
            }
        }
        StepVerdict::Scan { missing, extra } => {
            for (title, items) in [
                ("missing (expected, not answered)", missing),
                ("extra (answered, not expected)", extra),
            ] {
                if !items.is_empty() {
                    let list: Vec<String> = items.iter().map(|i| name(i)).collect();
                    let _ = writeln!(out, "{IND}{title}: {}", list.join(", "));
                }
            }
        }
        StepVerdict::Differs { expected, actual } => {
            let _ = writeln!(out, "{IND}expected:");
            for l in expected {
                let _ = writeln!(out, "{IND}  {}", p.paint(l.trim(), Ink::GREEN));
            }
            let _ = writeln!(out, "{IND}answered:");
            for l in actual {
                let _ = writeln!(out, "{IND}  {}", p.paint(l.trim(), Ink::RED));
            }
        }
        StepVerdict::Failed(_) => {}
    }
    for (label, d) in step_boards(s, coords) {
        let _ = writeln!(out, "{IND}{label}:");
        out.push_str(&d.render(IND, style));
    }
}

/// A step's boards, each under its label: before (a scan's missing and
/// extra squares marked; one board when the step leaves it unchanged),
/// after, and the expected board after with the answered one's
/// differences marked when the two differ. A move's from and to are on
/// each (the pictures' arrow). The terminal and the HTML page draw these.
pub(crate) fn step_boards(s: &StepView, coords: Coords) -> Vec<(&'static str, Diagram)> {
    let before = Diagram::new("board before", &s.before, coords);
    let before = match &s.verdict {
        StepVerdict::Scan { missing, extra } => before.with_scan_items(missing, extra),
        _ => before,
    };
    let mut boards = Vec::new();
    match &s.after {
        Some(after) if *after == s.before => {
            boards.push(("board (unchanged by the step)", before));
        }
        Some(after) => {
            boards.push(("board before", before));
            let d = Diagram::new("board after", after, coords);
            match s.expected_after.as_ref().filter(|e| *e != after) {
                Some(exp) => {
                    boards.push((
                        "expected board after",
                        Diagram::new("expected", exp, coords),
                    ));
                    boards.push(("board after (answered)", d.with_differences(exp)));
                }
                None => boards.push(("board after", d)),
            }
        }
        None => boards.push(("board before", before)),
    }
    boards
        .into_iter()
        .map(|(label, d)| (label, d.with_move(&s.source)))
        .collect()
}

/// The result part of a header: `L13 movePiece 4 4 2 4 = 1` → `= 1`.
pub(crate) fn result_of(header: &str) -> String {
    match header.split_once(" = ") {
        Some((_, r)) => format!("= {r}"),
        None => "(listed items as expected)".to_string(),
    }
}

/// A scan item with its squares named in the scenario's notation:
/// `V 6 4 4 4` → `V 6 4 4 4 (e2-e4)` for standard rules.
pub(crate) fn translate(item: &str, coords: Coords, rows: usize) -> String {
    if coords == Coords::Numbers {
        return item.to_string();
    }
    let nums: Vec<usize> = item
        .split_whitespace()
        .skip(1)
        .filter_map(|n| n.parse().ok())
        .collect();
    let sq = |r: usize, c: usize| coords.square(r, c, rows);
    match nums.as_slice() {
        [r1, c1, r2, c2] => format!("{item} ({}-{})", sq(*r1, *c1), sq(*r2, *c2)),
        [r, c] => format!("{item} ({})", sq(*r, *c)),
        _ => item.to_string(),
    }
}
