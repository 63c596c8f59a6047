//! Shrinking a failure: from a scenario on which a submission fails, find
//! a small one on which it still fails the same way, so a student with a
//! 40-step scenario on a 12x12 board gets the three lines that matter.
//!
//! Each candidate is a smaller [`Scenario`] (steps dropped, pieces dropped,
//! the board cut by a row or a column, off-board coordinates brought
//! next to the board), rendered and parsed back like a generated file. A
//! candidate has no reviewed snapshot, so its expected answers come from
//! the reference engine (the scenario itself may be judged against its
//! snapshot, [`Shrinker::shrink_found`]); it is then judged by
//! [`runner::run_one`] exactly as `grade` judges, against the same subject (a submission built once,
//! run once per candidate within its limits); a console program is judged
//! as `grade` judges it too ([`Shrinker::with_judge`]), and a candidate its
//! course's program cannot play (a CUHK setup that is not the start) is
//! skipped. A candidate is kept when it
//! fails with the same [`Signature`]: the failure's class (wrong answer,
//! board out of sync, crash, ...) and the kind of step it fails at.
//! Passes repeat until none shrinks the scenario further (or the run
//! budget is spent), so the result is minimal for these operations.

use crate::domain::{Coord, Dims};
use crate::r#gen::render;
use crate::runner::{self, Found, ScenarioResult, SnapshotMode, Verdict};
use crate::scenario::{self, Scenario, StepKind};
use crate::snapshot::{Snapshot, SnapshotStore};
use crate::subject::{EngineSubject, Setup, Subject};
use std::fmt;
use std::path::PathBuf;

/// What "fails the same way" means: the failure's class and the step kind
/// (`isValidScan`, `movePiece`, ...; `None` for the setup) it fails at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub class: &'static str,
    pub step: Option<String>,
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.step {
            Some(step) => write!(f, "{} at a `{step}` step", self.class),
            None => write!(f, "{} at the setup", self.class),
        }
    }
}

/// The smallest failing scenario found.
#[derive(Debug)]
pub struct Shrunk {
    pub minimal: Scenario,
    /// Its text (as written to `-o`).
    pub text: String,
    /// Its result against the subject: the first mismatch.
    pub result: ScenarioResult,
    pub signature: Signature,
    /// Candidates run, the original included.
    pub runs: usize,
}

#[derive(Debug)]
pub enum ShrinkError {
    /// The scenario passes on the subject: nothing to shrink.
    Passes,
    /// The grader could not run a candidate (a staff-side problem).
    Io(String),
}

impl fmt::Display for ShrinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShrinkError::Passes => {
                f.write_str("the submission passes this scenario: nothing to shrink")
            }
            ShrinkError::Io(m) => f.write_str(m),
        }
    }
}

/// How a candidate is judged, as `grade` judges it: its scenario, its
/// file and the store holding its expected answers; `None` when the
/// subject cannot take that candidate at all (it is skipped).
pub type Judge<'a> = dyn FnMut(&Scenario, &Found, &SnapshotStore) -> Option<ScenarioResult> + 'a;

/// Runs candidates against one subject, in a private folder.
pub struct Shrinker<'a> {
    judge: Box<Judge<'a>>,
    dir: tempfile::TempDir,
    runs: usize,
    max_runs: usize,
}

impl<'a> Shrinker<'a> {
    /// `max_runs` bounds the candidates tried (each is one run of the subject).
    pub fn new(subject: &'a mut dyn Subject, max_runs: usize) -> Result<Shrinker<'a>, ShrinkError> {
        Shrinker::with_judge(
            Box::new(move |_, found, store| {
                Some(runner::run_one(found, subject, store, SnapshotMode::Check))
            }),
            max_runs,
        )
    }

    /// Candidates judged by `judge` (a console program's grading).
    pub fn with_judge(judge: Box<Judge<'a>>, max_runs: usize) -> Result<Shrinker<'a>, ShrinkError> {
        let dir = tempfile::Builder::new()
            .prefix("chessgrade-shrink-")
            .tempdir()
            .map_err(|e| ShrinkError::Io(format!("cannot create a working folder: {e}")))?;
        Ok(Shrinker {
            judge,
            dir,
            runs: 0,
            max_runs,
        })
    }

    /// Runs `candidate` on the subject against the engine's answers: its
    /// failure signature and result, or `None` if it passes (or does not
    /// even read back, which no candidate should).
    pub fn probe(
        &mut self,
        candidate: &Scenario,
    ) -> Result<Option<(Signature, ScenarioResult)>, ShrinkError> {
        self.runs += 1;
        let text = render(candidate, &[]);
        let Ok(parsed) = scenario::parse(&text) else {
            return Ok(None);
        };
        if Setup::of(&parsed).initial_position().is_err() {
            return Ok(None);
        }
        let rel = PathBuf::from("minimal.txt");
        let path = self.dir.path().join(&rel);
        let io = |e: std::io::Error| ShrinkError::Io(format!("cannot write a candidate: {e}"));
        std::fs::write(&path, &text).map_err(io)?;
        let expected = runner::execute(&parsed, &mut EngineSubject::new())
            .trace
            .render();
        let store = SnapshotStore::new(self.dir.path().join("snapshots"));
        store
            .accept(&rel, &Snapshot::new(&rel, &expected))
            .map_err(io)?;
        let found = Found { path, rel };
        match (self.judge)(&parsed, &found, &store) {
            Some(result) => signature(&parsed, result),
            None => Ok(None),
        }
    }

    /// Shrinks `original`, which must fail on the subject.
    pub fn shrink(&mut self, original: &Scenario) -> Result<Shrunk, ShrinkError> {
        let first = self.probe(original)?.ok_or(ShrinkError::Passes)?;
        self.shrink_from(original, first)
    }

    /// Shrinks the scenario `found` (read as `original`), judged first
    /// exactly as `grade` judges it: against its snapshot in `store`. Its
    /// smaller candidates have none and are judged against the reference
    /// engine, as in [`Shrinker::shrink`].
    pub fn shrink_found(
        &mut self,
        original: &Scenario,
        found: &Found,
        store: &SnapshotStore,
    ) -> Result<Shrunk, ShrinkError> {
        self.runs += 1;
        let result = (self.judge)(original, found, store).ok_or_else(|| {
            ShrinkError::Io(format!(
                "{}: the subject cannot take this scenario",
                found.path.display()
            ))
        })?;
        let first = signature(original, result)?.ok_or(ShrinkError::Passes)?;
        self.shrink_from(original, first)
    }

    /// Shrinks `original`, whose failure `first` is.
    fn shrink_from(
        &mut self,
        original: &Scenario,
        (signature, mut result): (Signature, ScenarioResult),
    ) -> Result<Shrunk, ShrinkError> {
        let mut best = original.clone();
        // The failing step's index: later steps cannot matter.
        let mut changed = true;
        while changed && self.runs < self.max_runs {
            changed = false;
            for candidate in candidates(&best, &result) {
                if self.runs >= self.max_runs {
                    break;
                }
                if let Some((sig, r)) = self.probe(&candidate)?
                    && sig == signature
                {
                    best = candidate;
                    result = r;
                    changed = true;
                    break;
                }
            }
        }
        let text = render(&best, &[]);
        // Line numbers as the minimal text has them.
        let minimal = scenario::parse(&text).unwrap_or(best);
        Ok(Shrunk {
            minimal,
            text,
            result,
            signature,
            runs: self.runs,
        })
    }
}

/// The failure signature of `result`, a run of `scenario`; `None` if it
/// passed.
fn signature(
    scenario: &Scenario,
    result: ScenarioResult,
) -> Result<Option<(Signature, ScenarioResult)>, ShrinkError> {
    let signature = match &result.verdict {
        Verdict::Fail(f) => Signature {
            class: f.kind.class(),
            step: f.line.and_then(|l| {
                scenario.steps.iter().find(|s| s.line == l).map(|s| {
                    let text = s.kind.text();
                    text.split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_string()
                })
            }),
        },
        Verdict::InputError(d) => return Err(ShrinkError::Io(d.to_string())),
        _ => return Ok(None),
    };
    Ok(Some((signature, result)))
}

/// Smaller variants of `s`, the biggest cuts first.
fn candidates(s: &Scenario, result: &ScenarioResult) -> Vec<Scenario> {
    let mut out = Vec::new();
    let n = s.steps.len();
    // Everything after the failing step.
    if let Verdict::Fail(f) = &result.verdict
        && let Some(i) = f
            .line
            .and_then(|l| s.steps.iter().position(|st| st.line == l))
        && i + 1 < n
    {
        let mut c = s.clone();
        c.steps.truncate(i + 1);
        out.push(c);
    }
    // Chunks of steps, halving.
    let mut size = n / 2;
    while size >= 1 {
        let mut start = 0;
        while start < n {
            let mut c = s.clone();
            c.steps.drain(start..(start + size).min(n));
            out.push(c);
            start += size;
        }
        size /= 2;
    }
    // Pieces, one at a time (placements, or a FEN's squares).
    for i in 0..s.placements.len() {
        let mut c = s.clone();
        c.placements.remove(i);
        out.push(c);
    }
    if let Some(fen) = &s.fen {
        for fen in fens_without_one_piece(fen) {
            let mut c = s.clone();
            c.fen = Some(fen);
            out.push(c);
        }
    }
    // The board, one row or column at a time (size setups with Lab 3 steps).
    let lab3_steps = s.steps.iter().all(|st| {
        matches!(
            st.kind,
            StepKind::MovePiece { .. } | StepKind::IsValidScan | StepKind::UnderThreatScan
        )
    });
    if s.fen.is_none() && s.turn.is_none() && lab3_steps {
        let (rows, cols) = (s.dims.rows() as i64, s.dims.cols() as i64);
        let lines = (0..rows).rev().map(|r| (true, r));
        for (axis_row, at) in lines.chain((0..cols).rev().map(|c| (false, c))) {
            if let Some(c) = cut(s, axis_row, at) {
                out.push(c);
            }
        }
        // Off-board coordinates brought next to the board.
        let near = |c: Coord| Coord::new(c.row.clamp(-1, rows), c.col.clamp(-1, cols));
        for (i, st) in s.steps.iter().enumerate() {
            if let StepKind::MovePiece { from, to } = st.kind
                && (near(from) != from || near(to) != to)
            {
                let mut c = s.clone();
                c.steps[i].kind = StepKind::MovePiece {
                    from: near(from),
                    to: near(to),
                };
                out.push(c);
            }
        }
    }
    out
}

/// `s` without row (or column) `at`: pieces on it go, those beyond move in,
/// and `movePiece` coordinates beyond it follow them.
fn cut(s: &Scenario, axis_row: bool, at: i64) -> Option<Scenario> {
    let (rows, cols) = (s.dims.rows() as i64, s.dims.cols() as i64);
    let dims = if axis_row {
        Dims::new(rows - 1, cols)
    } else {
        Dims::new(rows, cols - 1)
    }
    .ok()?;
    let shift = |c: Coord| {
        let (mut r, mut k) = (c.row, c.col);
        if axis_row && r > at {
            r -= 1;
        }
        if !axis_row && k > at {
            k -= 1;
        }
        Coord::new(r, k)
    };
    let mut c = s.clone();
    c.dims = dims;
    c.placements = s
        .placements
        .iter()
        .filter(|p| {
            let v = if axis_row {
                p.square.row()
            } else {
                p.square.col()
            } as i64;
            v != at
        })
        .filter_map(|p| {
            let sq = dims.square(shift(p.square.coord()))?;
            Some(crate::scenario::Placement { square: sq, ..*p })
        })
        .collect();
    for st in &mut c.steps {
        if let StepKind::MovePiece { from, to } = st.kind {
            st.kind = StepKind::MovePiece {
                from: shift(from),
                to: shift(to),
            };
        }
    }
    Some(c)
}

/// The FEN with each of its pieces removed in turn (kings last, since
/// the rule sets that need kings refuse positions without them).
fn fens_without_one_piece(fen: &str) -> Vec<String> {
    let Some((board, rest)) = fen.split_once(' ') else {
        return Vec::new();
    };
    let rows: Vec<Vec<char>> = board
        .split('/')
        .map(|row| {
            let mut cells = Vec::new();
            let mut digits = String::new();
            for ch in row.chars() {
                if ch.is_ascii_digit() {
                    digits.push(ch);
                } else {
                    let n: usize = digits.parse().unwrap_or(0);
                    cells.extend(std::iter::repeat_n('.', n));
                    digits.clear();
                    cells.push(ch);
                }
            }
            let n: usize = digits.parse().unwrap_or(0);
            cells.extend(std::iter::repeat_n('.', n));
            cells
        })
        .collect();
    let write = |rows: &[Vec<char>]| {
        let text: Vec<String> = rows
            .iter()
            .map(|row| {
                let mut s = String::new();
                let mut empty = 0;
                for &ch in row {
                    if ch == '.' {
                        empty += 1;
                    } else {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        s.push(ch);
                    }
                }
                if empty > 0 {
                    s.push_str(&empty.to_string());
                }
                s
            })
            .collect();
        format!("{} {rest}", text.join("/"))
    };
    let mut out = Vec::new();
    for kings in [false, true] {
        for r in 0..rows.len() {
            for c in 0..rows[r].len() {
                let ch = rows[r][c];
                if ch != '.' && ch.eq_ignore_ascii_case(&'k') == kings {
                    let mut smaller = rows.clone();
                    smaller[r][c] = '.';
                    out.push(write(&smaller));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_pieces_come_off_one_at_a_time_kings_last() {
        let fens = fens_without_one_piece("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
        assert_eq!(
            fens,
            [
                "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
                "8/8/8/8/8/8/4P3/4K3 w - - 0 1",
                "4k3/8/8/8/8/8/4P3/8 w - - 0 1",
            ]
        );
    }

    #[test]
    fn cutting_a_column_moves_pieces_and_coordinates_in() {
        let s =
            scenario::parse("1\n3 3\nw k 0 0\nb r 0 1\nw p 2 2\n~\nmovePiece 2 2 1 2\n").unwrap();
        let c = cut(&s, false, 1).unwrap();
        assert_eq!((c.dims.rows(), c.dims.cols()), (3, 2));
        let text = render(&c, &[]);
        assert_eq!(text, "1\n3 2\nw k 0 0\nw p 2 1\n~\nmovePiece 2 1 1 1\n");
    }
}
