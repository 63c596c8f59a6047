//! Writing a scenario back as text, in the form the parser reads: the
//! generator builds scenarios as the typed AST and renders them, and the
//! shrinker renders each smaller candidate the same way. Rendering then
//! parsing gives back the same setup and steps (only line numbers change),
//! which `tests/it/gen.rs` checks.

use crate::domain::{Color, Piece};
use crate::engine::RuleSetId;
use crate::scenario::{Scenario, Visibility};
use std::fmt::Write;

/// The scenario's text, with `comments` as `//` lines at the top. A JHU
/// board picture (no FEN, a side to move) is drawn from the setup; a FEN
/// and its placements, or a size and its placements, are written as such.
pub fn render(scenario: &Scenario, comments: &[String]) -> String {
    let mut out = String::new();
    for c in comments {
        if c.is_empty() {
            out.push_str("//\n");
        } else {
            let _ = writeln!(out, "// {c}");
        }
    }
    let d = &scenario.directives;
    // A rule file by its own path, so that the text runs under the same
    // rules wherever it is written; a built-in set by its name.
    match (&d.rules_file, &d.rules_line) {
        (Some(file), _) => {
            let _ = writeln!(out, "@rules {}", file.display());
        }
        (None, Some(line)) => {
            let _ = writeln!(out, "@rules {line}");
        }
        (None, None) if d.rules.id != RuleSetId::Lab3 => {
            let _ = writeln!(out, "@rules {}", d.rules.id);
        }
        (None, None) => {}
    }
    if d.visibility != Visibility::Visible {
        let _ = writeln!(out, "@visibility {}", d.visibility.name());
    }
    if let Some(m) = d.mystery {
        // Each offset stands for its eight symmetric variants: one per class.
        let mut canonical: Vec<(i32, i32)> = m
            .vectors()
            .iter()
            .map(|&(r, c)| (r.abs().max(c.abs()), r.abs().min(c.abs())))
            .collect();
        canonical.sort_unstable();
        canonical.dedup();
        let offsets: Vec<String> = canonical.iter().map(|(r, c)| format!("{r},{c}")).collect();
        let kind = if m.slides { "slider" } else { "leaper" };
        let _ = writeln!(
            out,
            "@mystery {kind} {} value {}",
            offsets.join(" "),
            m.value
        );
    }
    let _ = writeln!(out, "{}", scenario.points);
    match (&scenario.fen, scenario.turn) {
        (Some(fen), _) => {
            let _ = writeln!(out, "fen {fen}");
            placements(&mut out, scenario);
        }
        (None, Some(turn)) => picture(&mut out, scenario, turn),
        (None, None) => {
            let _ = writeln!(out, "{} {}", scenario.dims.rows(), scenario.dims.cols());
            placements(&mut out, scenario);
        }
    }
    out.push_str("~\n");
    for step in &scenario.steps {
        out.push_str(&step.kind.text());
        out.push('\n');
    }
    out
}

fn placements(out: &mut String, scenario: &Scenario) {
    for p in &scenario.placements {
        let _ = writeln!(
            out,
            "{} {} {} {}",
            p.color.letter(),
            p.role.letter(),
            p.square.row(),
            p.square.col()
        );
    }
}

/// JHU's picture: rows from the top, `-` empty, upper case White.
fn picture(out: &mut String, scenario: &Scenario, turn: Color) {
    out.push_str("board\n");
    let mut cells = vec![None::<Piece>; scenario.dims.len()];
    for p in &scenario.placements {
        cells[scenario.dims.index(p.square)] = Some(Piece::new(p.color, p.role));
    }
    for row in cells.chunks(scenario.dims.cols() as usize) {
        for cell in row {
            out.push(cell.map_or('-', |p| p.char()));
        }
        out.push('\n');
    }
    out.push(turn.letter());
    out.push('\n');
}
