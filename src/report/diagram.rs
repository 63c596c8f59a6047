//! Board diagrams for people: a board with some squares marked (the moves
//! a submission missed or invented, the squares it wrongly (not) called
//! threatened, the squares where two boards differ), labelled in the
//! scenario's own coordinates, cropped to a width around the squares that
//! matter. One [`Diagram`] value feeds both the terminal (Unicode or ASCII,
//! colour plus a symbol per mark so it reads without colour) and the HTML
//! report, so the two always show the same thing.

use super::paint::{Color, Ink, Palette};
use crate::engine::{BoardText, RuleSetId, file_name};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How squares are named along the edges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Coords {
    /// Lab 3: row and column numbers, row 0 on top (as the trace's items).
    Numbers,
    /// Standard chess (UCI): files `a`.., ranks counted from the bottom.
    Files,
    /// JHU: files `A`.., ranks counted from the bottom.
    UpperFiles,
    /// CUHK: files `A`.., row 1 on top; its letters are in the course's
    /// case (Black upper case, White lower case, as its program prints
    /// them).
    UpperFilesTopDown,
}

impl Coords {
    /// The coordinates a rule set's users read.
    pub fn of(rules: RuleSetId) -> Coords {
        match rules {
            RuleSetId::Lab3 => Coords::Numbers,
            RuleSetId::Standard => Coords::Files,
            RuleSetId::Jhu => Coords::UpperFiles,
            RuleSetId::Cuhk => Coords::UpperFilesTopDown,
        }
    }

    /// A board letter (White upper case) as these readers write it: CUHK
    /// swaps the case; the others keep it ([`course_case`]). Its own
    /// inverse: a letter as they write it back to the engine's.
    pub fn letter(self, ch: char) -> char {
        course_case(ch, self == Coords::UpperFilesTopDown)
    }

    /// A board in these readers' letters (rows joined by `/`).
    pub fn board(self, board: &BoardText) -> String {
        board.as_str().chars().map(|ch| self.letter(ch)).collect()
    }

    /// The chess symbol (♔ .. ♟, `·`) of a letter as these readers write it.
    pub fn symbol(self, ch: char) -> char {
        unicode(self.letter(ch))
    }

    /// A square's name in these coordinates (`e4`, `E4`, or `4 4` for numbers).
    pub fn square(self, row: usize, col: usize, rows: usize) -> String {
        match self {
            Coords::Numbers => format!("{row} {col}"),
            _ => format!("{}{}", self.col_label(col), self.row_label(row, rows)),
        }
    }

    fn col_label(self, col: usize) -> String {
        match self {
            Coords::Numbers => col.to_string(),
            Coords::Files => file_name(col as u16),
            Coords::UpperFiles | Coords::UpperFilesTopDown => {
                file_name(col as u16).to_ascii_uppercase()
            }
        }
    }

    fn row_label(self, row: usize, rows: usize) -> String {
        match self {
            Coords::Numbers => row.to_string(),
            Coords::Files | Coords::UpperFiles => (rows - row).to_string(),
            Coords::UpperFilesTopDown => (row + 1).to_string(),
        }
    }
}

/// A board letter as a course writes it: the engine's (White upper case,
/// Black lower case) with the case swapped when the course writes White in
/// lower case (CUHK's Table 1: Black `K`, White `k`), as it is otherwise.
/// Swapping twice is no change, so the same function reads a course's
/// letter back. Every place a course's letters are written or read goes
/// through it: the diagrams (terminal, HTML, `explain`, the JSON's
/// `boards`), the board a CUHK program must print, and the one it printed.
pub fn course_case(ch: char, white_lower_case: bool) -> char {
    match white_lower_case {
        true if ch.is_ascii_uppercase() => ch.to_ascii_lowercase(),
        true => ch.to_ascii_uppercase(),
        false => ch,
    }
}

/// Why a square is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    /// A piece whose answers differ (the origin of missing or extra moves).
    From,
    /// Expected but not answered: a move's target, or a threatened square.
    Missing,
    /// Answered but not expected.
    Extra,
    /// The square differs from the expected board.
    Differs,
}

impl Mark {
    /// The symbol drawn beside the piece, readable without colour.
    pub fn symbol(self) -> char {
        match self {
            Mark::From => '*',
            Mark::Missing => '+',
            Mark::Extra => 'x',
            Mark::Differs => '!',
        }
    }

    pub fn meaning(self) -> &'static str {
        match self {
            Mark::From => "piece whose answers differ",
            Mark::Missing => "expected, not answered",
            Mark::Extra => "answered, not expected",
            Mark::Differs => "differs from the expected board",
        }
    }

    /// The colours of a marked square on a terminal.
    fn ink(self) -> Ink {
        match self {
            Mark::Missing => Ink::fg(Color::Black).on(Color::Green),
            Mark::Extra => Ink::fg(Color::White).on(Color::Red),
            Mark::From => Ink::fg(Color::Black).on(Color::Yellow),
            Mark::Differs => Ink::fg(Color::Black).on(Color::Magenta),
        }
    }

    /// Short name used as a CSS class in the HTML report.
    pub fn class(self) -> &'static str {
        match self {
            Mark::From => "from",
            Mark::Missing => "missing",
            Mark::Extra => "extra",
            Mark::Differs => "differs",
        }
    }
}

/// A board with marked squares, ready to draw.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagram {
    pub title: String,
    /// The board, rows top first, joined by `/`, in its readers' letters
    /// ([`Coords::letter`]: CUHK's Black upper case; the others as in
    /// traces).
    pub board: String,
    pub coords: Coords,
    /// Marked squares as `[row, col]` (row 0 on top), each with its mark.
    /// A square both missing and extra (never happens in a scan) keeps
    /// the later mark.
    pub marks: Vec<([usize; 2], Mark)>,
    /// The step's move, when the step is one whose two squares are on the
    /// board: from and to as `[row, col]`. The pictures draw it as an
    /// arrow; the text diagram leaves it out (its marks say enough there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved: Option<[[usize; 2]; 2]>,
}

/// How to draw a diagram on a terminal.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Colour (marks on coloured squares) or none.
    pub palette: Palette,
    /// Chess symbols (♔ ♟ ·) instead of letters.
    pub unicode: bool,
    /// Columns available for the whole line, indent included.
    pub width: usize,
    /// Rows shown at most (taller boards are cropped around the marks).
    pub max_rows: usize,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            palette: Palette::PLAIN,
            unicode: false,
            width: 100,
            max_rows: 32,
        }
    }
}

impl Diagram {
    pub fn new(title: impl Into<String>, board: &BoardText, coords: Coords) -> Diagram {
        Diagram {
            title: title.into(),
            board: coords.board(board),
            coords,
            marks: Vec::new(),
            moved: None,
        }
    }

    /// Marks the move of `step` (a scenario line, as written), when it is
    /// one whose squares are both on this board: `movePiece r1 c1 r2 c2`,
    /// or `move` in any course's notation ([`move_squares`]).
    pub fn with_move(mut self, step: &str) -> Diagram {
        let rows = self.rows();
        let (nr, nc) = (rows.len(), rows.first().map_or(0, Vec::len));
        self.moved = move_squares(step, self.coords, nr, nc);
        self
    }

    /// Marks the origin (`*`) and target of scan items that are missing
    /// (`+`) or extra (`x`): `V r1 c1 r2 c2` marks its target and origin,
    /// `T r c` its square. Items of other shapes are ignored.
    pub fn with_scan_items(mut self, missing: &[String], extra: &[String]) -> Diagram {
        for (items, mark) in [(missing, Mark::Missing), (extra, Mark::Extra)] {
            for item in items {
                let nums: Vec<usize> = item
                    .split_whitespace()
                    .skip(1)
                    .filter_map(|n| n.parse().ok())
                    .collect();
                match (item.trim_start().chars().next(), nums.as_slice()) {
                    (Some('V'), [r1, c1, r2, c2]) => {
                        self.mark([*r1, *c1], Mark::From);
                        self.mark([*r2, *c2], mark);
                    }
                    (Some('T'), [r, c]) => self.mark([*r, *c], mark),
                    _ => {}
                }
            }
        }
        self
    }

    /// Marks (`!`) every square where this board differs from `expected`.
    pub fn with_differences(mut self, expected: &BoardText) -> Diagram {
        let mine: Vec<Vec<char>> = self.board.split('/').map(|r| r.chars().collect()).collect();
        for (r, row) in expected.rows().enumerate() {
            for (c, ch) in row.chars().enumerate() {
                if mine.get(r).and_then(|row| row.get(c)) != Some(&self.coords.letter(ch)) {
                    self.mark([r, c], Mark::Differs);
                }
            }
        }
        self
    }

    /// Sets a square's mark; a target mark wins over `From` on one square.
    pub fn mark(&mut self, at: [usize; 2], mark: Mark) {
        match self.marks.iter_mut().find(|(sq, _)| *sq == at) {
            Some((_, m)) if *m == Mark::From || mark != Mark::From => *m = mark,
            Some(_) => {}
            None => self.marks.push((at, mark)),
        }
    }

    pub fn rows(&self) -> Vec<Vec<char>> {
        self.board.split('/').map(|r| r.chars().collect()).collect()
    }

    fn marks_by_square(&self) -> BTreeMap<[usize; 2], Mark> {
        self.marks.iter().copied().collect()
    }

    /// The visible window (rows, cols) for at most `max_cols` and
    /// `max_rows`: the whole board when it fits, else a window centred on
    /// the marked squares (or the pieces, when nothing is marked).
    pub fn window(&self, max_rows: usize, max_cols: usize) -> (Range, Range) {
        self.window_around(max_rows, max_cols, &[])
    }

    /// [`Diagram::window`], centred on `squares` when nothing is marked
    /// (the pictures: the square a move went to), before the pieces.
    pub fn window_around(
        &self,
        max_rows: usize,
        max_cols: usize,
        squares: &[[usize; 2]],
    ) -> (Range, Range) {
        let rows = self.rows();
        let (nr, nc) = (rows.len(), rows.first().map_or(0, Vec::len));
        let mut interest: Vec<[usize; 2]> = self.marks.iter().map(|(sq, _)| *sq).collect();
        if interest.is_empty() {
            interest.extend_from_slice(squares);
        }
        if interest.is_empty() {
            for (r, row) in rows.iter().enumerate() {
                for (c, ch) in row.iter().enumerate() {
                    if *ch != '.' {
                        interest.push([r, c]);
                    }
                }
            }
        }
        let span = |n: usize, max: usize, pick: fn(&[usize; 2]) -> usize| {
            let max = max.max(1);
            if n <= max {
                return Range { start: 0, end: n };
            }
            let lo = interest.iter().map(pick).min().unwrap_or(0);
            let hi = interest.iter().map(pick).max().unwrap_or(0);
            let centre = (lo + hi) / 2;
            let start = centre.saturating_sub(max / 2).min(n - max);
            Range {
                start,
                end: start + max,
            }
        };
        (
            span(nr, max_rows, |sq| sq[0]),
            span(nc, max_cols, |sq| sq[1]),
        )
    }

    /// The diagram as text lines (without the title), each prefixed by
    /// `indent`, cropped to `style.width`; with a legend of the marks used.
    pub fn render(&self, indent: &str, style: Style) -> String {
        let rows = self.rows();
        let (nr, nc) = (rows.len(), rows.first().map_or(0, Vec::len));
        let row_w = (0..nr)
            .map(|r| self.coords.row_label(r, nr).len())
            .max()
            .unwrap_or(1);
        // A cell is a mark column and the piece, at least as wide as its label.
        let cell_w = (0..nc)
            .map(|c| self.coords.col_label(c).len())
            .max()
            .unwrap_or(1)
            .max(2);
        let fixed = indent.chars().count() + row_w + 3;
        let max_cols = style.width.saturating_sub(fixed) / (cell_w + 1);
        let (rw, cw) = self.window(style.max_rows, max_cols);
        let marks = self.marks_by_square();
        let mut out = String::new();
        if rw.len() < nr || cw.len() < nc {
            out.push_str(&format!(
                "{indent}(cropped: rows {}-{} and columns {}-{} of {}x{})\n",
                self.coords.row_label(rw.start, nr),
                self.coords.row_label(rw.end - 1, nr),
                self.coords.col_label(cw.start),
                self.coords.col_label(cw.end - 1),
                nr,
                nc
            ));
        }
        let header: Vec<String> = (cw.start..cw.end)
            .map(|c| format!("{:>cell_w$}", self.coords.col_label(c)))
            .collect();
        out.push_str(&format!("{indent}{:row_w$}  {}\n", "", header.join(" ")));
        for (r, cells) in rows.iter().enumerate().take(rw.end).skip(rw.start) {
            let mut line = format!("{indent}{:>row_w$} ", self.coords.row_label(r, nr));
            for c in cw.start..cw.end {
                let ch = cells.get(c).copied().unwrap_or(' ');
                let glyph = if style.unicode {
                    self.coords.symbol(ch)
                } else {
                    ch
                };
                // A square is a submission's character: never a control.
                let glyph = super::sanitize::terminal(glyph.encode_utf8(&mut [0; 4])).into_owned();
                let cell = match marks.get(&[r, c]) {
                    Some(m) => {
                        let text = format!("{:>w$}{glyph}", m.symbol(), w = cell_w - 1);
                        style.palette.paint(text, m.ink())
                    }
                    None => format!("{:>cell_w$}", glyph),
                };
                line.push(' ');
                line.push_str(&cell);
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        let mut used: Vec<Mark> = marks.values().copied().collect();
        used.sort();
        used.dedup();
        if !used.is_empty() {
            let legend: Vec<String> = used
                .iter()
                .map(|m| format!("{} {}", m.symbol(), m.meaning()))
                .collect();
            out.push_str(&format!("{indent}{}\n", legend.join("   ")));
        }
        out
    }

    /// The labels along the edges of the visible window, for renderers
    /// other than text: (row labels, column labels).
    pub fn labels(&self, rows: Range, cols: Range) -> (Vec<String>, Vec<String>) {
        let nr = self.rows().len();
        (
            (rows.start..rows.end)
                .map(|r| self.coords.row_label(r, nr))
                .collect(),
            (cols.start..cols.end)
                .map(|c| self.coords.col_label(c))
                .collect(),
        )
    }

    /// The mark of a square, if any.
    pub fn mark_at(&self, row: usize, col: usize) -> Option<Mark> {
        self.marks
            .iter()
            .find(|(sq, _)| *sq == [row, col])
            .map(|(_, m)| *m)
    }
}

/// The squares a step moves from and to, as `[row, col]` on a board of
/// `rows` x `cols`, when the step (a scenario line) is a move and both
/// squares are on the board: `movePiece r1 c1 r2 c2` (Lab 3's numbers), or
/// `move ARGS` in the notation of the readers of `coords` (UCI, JHU's
/// `E2E4`, CUHK's `A7 A5`; for row and column numbers, a protocol engine's
/// failure, the notation the argument is written in). The step is read as
/// the scenario parser reads it ([`crate::engine::parse_move`]); `None`
/// for any other step, or a square off the board.
pub fn move_squares(
    step: &str,
    coords: Coords,
    rows: usize,
    cols: usize,
) -> Option<[[usize; 2]; 2]> {
    use crate::engine::{MoveInput, Notation, parse_move};
    let words: Vec<&str> = step.split_whitespace().collect();
    let on = |r: usize, c: usize| (r < rows && c < cols).then_some([r, c]);
    match words.as_slice() {
        ["movePiece", nums @ ..] if nums.len() == 4 => {
            let n: Vec<usize> = nums.iter().map(|n| n.parse().ok()).collect::<Option<_>>()?;
            Some([on(n[0], n[1])?, on(n[2], n[3])?])
        }
        ["move", args @ ..] if !args.is_empty() => {
            let notation = match coords {
                Coords::Files => Notation::Uci,
                Coords::UpperFiles => Notation::Jhu,
                Coords::UpperFilesTopDown => Notation::Cuhk,
                // A protocol engine's step: its own notation, told by its shape.
                Coords::Numbers if args.len() == 2 => Notation::Cuhk,
                Coords::Numbers if args[0].starts_with(|c: char| c.is_ascii_uppercase()) => {
                    Notation::Jhu
                }
                Coords::Numbers => Notation::Uci,
            };
            if args.len() != crate::engine::arity(notation) {
                return None;
            }
            let dims = crate::domain::Dims::new(rows as i64, cols as i64).ok()?;
            match parse_move(notation, dims, args).ok()? {
                MoveInput::Move {
                    from: Some(from),
                    to: Some(to),
                    ..
                } => Some([
                    [usize::from(from.row()), usize::from(from.col())],
                    [usize::from(to.row()), usize::from(to.col())],
                ]),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A half-open range of rows or columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub start: usize,
    pub end: usize,
}

impl Range {
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// The chess symbol of a board letter (`K` white king ♔ ... `p` black pawn
/// ♟, `.` a middle dot); letters without a symbol (the Mystery piece) stay.
pub fn unicode(ch: char) -> char {
    match ch {
        'K' => '♔',
        'Q' => '♕',
        'R' => '♖',
        'B' => '♗',
        'N' => '♘',
        'P' => '♙',
        'k' => '♚',
        'q' => '♛',
        'r' => '♜',
        'b' => '♝',
        'n' => '♞',
        'p' => '♟',
        '.' => '·',
        other => other,
    }
}

/// Whether the terminal's locale can show Unicode (LC_ALL, LC_CTYPE, LANG
/// in that order, as the C library reads them).
pub fn locale_is_utf8() -> bool {
    for var in ["LC_ALL", "LC_CTYPE", "LANG"] {
        if let Ok(v) = std::env::var(var)
            && !v.is_empty()
        {
            let v = v.to_ascii_lowercase();
            return v.contains("utf-8") || v.contains("utf8");
        }
    }
    false
}

/// The diagrams that explain a failure, in the order a reader wants them:
/// for a move whose board differs, the expected and actual boards after it
/// (differences marked); for a board out of sync, the expected and actual
/// boards; for a console program's board printed wrong, the expected and
/// printed boards; then the board before the step, with a scan's missing
/// and extra items marked. Coordinates are row/column numbers, as the
/// trace's items, except for a console program's failure: its course's
/// files and ranks, as its students read them. A step that is a move has
/// its from and to on each ([`Diagram::moved`]).
pub fn failure_diagrams(f: &crate::runner::Failure) -> Vec<Diagram> {
    use crate::compare::Detail;
    use crate::runner::FailureKind;
    // A console program's board is drawn in its course's coordinates.
    let coords = match &f.kind {
        FailureKind::Transcript(t) => Coords::of(t.rules),
        _ => Coords::Numbers,
    };
    let mut out = Vec::new();
    let pair = |out: &mut Vec<Diagram>, names: [&str; 2], e: &BoardText, a: &BoardText| {
        out.push(Diagram::new(names[0], e, coords));
        out.push(Diagram::new(names[1], a, coords).with_differences(e));
    };
    let mut scan = None;
    match &f.kind {
        FailureKind::WrongAnswer(m) => match &m.detail {
            Detail::Scan { missing, extra } => scan = Some((missing, extra)),
            Detail::Move {
                expected_board: Some(e),
                actual_board: Some(a),
                ..
            } if e != a => pair(
                &mut out,
                ["expected board after", "actual board after"],
                &BoardText(e.clone()),
                &BoardText(a.clone()),
            ),
            _ => {}
        },
        FailureKind::BoardOutOfSync { expected, actual } => pair(
            &mut out,
            ["expected board", "actual board"],
            expected,
            actual,
        ),
        FailureKind::Transcript(t) => {
            if let Some((e, a)) = &t.printed_board {
                pair(
                    &mut out,
                    ["expected board", "board the program printed"],
                    e,
                    a,
                );
            }
        }
        FailureKind::Subject(_)
        | FailureKind::CompileError(_)
        | FailureKind::NotRecognised(_)
        | FailureKind::NotGraded(_)
        | FailureKind::MemoryError(_)
        | FailureKind::MemoryLeaks(_) => {}
    }
    let shown = |b: &BoardText| out.iter().any(|d: &Diagram| d.board == coords.board(b));
    if !f.board_before.as_str().is_empty() && !shown(&f.board_before) {
        let title = match &f.kind {
            FailureKind::Transcript(t) => t.board_title.as_str(),
            _ => "board before the step",
        };
        let d = Diagram::new(title, &f.board_before, coords);
        out.push(match scan {
            Some((missing, extra)) => d.with_scan_items(missing, extra),
            None => d,
        });
    }
    // A move's from and to, on every board of it (the pictures' arrow).
    match &f.step_source {
        Some(step) => out.into_iter().map(|d| d.with_move(step)).collect(),
        None => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(d: &Diagram, style: Style) -> String {
        d.render("", style)
    }

    #[test]
    fn marks_missing_and_extra_moves_with_symbols() {
        let d = Diagram::new("b", &BoardText("...../..P../.....".into()), Coords::Numbers)
            .with_scan_items(&["  V 1 2 0 2".into()], &["  V 1 2 0 3".into()]);
        assert_eq!(
            plain(&d, Style::default()),
            "    0  1  2  3  4\n\
             0   .  . +. x.  .\n\
             1   .  . *P  .  .\n\
             2   .  .  .  .  .\n\
             * piece whose answers differ   + expected, not answered   x answered, not expected\n"
        );
    }

    #[test]
    fn standard_boards_read_files_and_ranks_in_unicode() {
        let d = Diagram::new("b", &BoardText("k./.P".into()), Coords::Files)
            .with_scan_items(&["  T 0 0".into()], &[]);
        let text = plain(
            &d,
            Style {
                unicode: true,
                ..Style::default()
            },
        );
        assert_eq!(
            text,
            "    a  b\n2  +♚  ·\n1   ·  ♙\n+ expected, not answered\n"
        );
        // CUHK: row 1 on top, Black's king `K` and White's pawn `p` as
        // the course's Table 1 labels them.
        let cuhk = Diagram::new("b", &BoardText("k./.P".into()), Coords::UpperFilesTopDown);
        assert_eq!(
            plain(&cuhk, Style::default()),
            "    A  B\n1   K  .\n2   .  p\n"
        );
    }

    #[test]
    fn wide_boards_are_cropped_around_the_marks() {
        let mut row = ".".repeat(200);
        row.replace_range(150..151, "K");
        let d = Diagram::new("b", &BoardText(row), Coords::Numbers)
            .with_scan_items(&["  T 0 150".into()], &[]);
        let text = plain(
            &d,
            Style {
                width: 60,
                ..Style::default()
            },
        );
        let lines: Vec<&str> = text.lines().collect();
        // 14 columns of width 4 fit in 60 after the row label, centred on 150.
        assert_eq!(lines[0], "(cropped: rows 0-0 and columns 143-156 of 1x200)");
        assert!(
            lines[1].contains("150") && !lines[1].contains(" 0 "),
            "{text}"
        );
        assert!(lines[2].contains("+K"), "{text}");
        assert!(
            lines.iter().take(3).all(|l| l.chars().count() <= 60),
            "{text}"
        );
    }

    #[test]
    fn one_diagram_drawn_in_colour_and_plain_in_one_process() {
        let d = Diagram::new("b", &BoardText("K./..".into()), Coords::Numbers)
            .with_scan_items(&["  T 0 1".into()], &[]);
        let colour = Style {
            palette: Palette::COLOUR,
            ..Style::default()
        };
        // Black on green (42;30): expected, not answered.
        assert_eq!(
            d.render("", colour),
            "    0  1\n0   K \x1b[42;30m+.\x1b[0m\n1   .  .\n+ expected, not answered\n"
        );
        assert_eq!(
            d.render("", Style::default()),
            "    0  1\n0   K +.\n1   .  .\n+ expected, not answered\n"
        );
    }

    #[test]
    fn a_cuhk_board_is_in_the_courses_letters_in_json_and_drawn() {
        // The engine writes White upper case; CUHK's Table 1 (seed 000)
        // labels Black `R`, `K` and White `p`.
        let engine = BoardText("rk/.P".into());
        let d = Diagram::new("b", &engine, Coords::UpperFilesTopDown).with_differences(&engine);
        assert_eq!(d.board, "RK/.p");
        assert!(d.marks.is_empty(), "{:?}", d.marks);
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["board"], "RK/.p");
        assert_eq!(
            d.render("", Style::default()),
            "    A  B\n1   R  K\n2   .  p\n"
        );
        // Each side keeps its own symbols: Black's rook and king, White's pawn.
        let unicode = Style {
            unicode: true,
            ..Style::default()
        };
        assert_eq!(d.render("", unicode), "    A  B\n1   ♜  ♚\n2   ·  ♙\n");
        // Other readers read the engine's letters.
        assert_eq!(
            Diagram::new("b", &engine, Coords::UpperFiles).board,
            "rk/.P"
        );
    }

    #[test]
    fn differences_are_marked() {
        let d = Diagram::new("actual", &BoardText("K./..".into()), Coords::Numbers)
            .with_differences(&BoardText(".K/..".into()));
        assert_eq!(d.mark_at(0, 0), Some(Mark::Differs));
        assert_eq!(d.mark_at(0, 1), Some(Mark::Differs));
        assert_eq!(d.mark_at(1, 1), None);
    }
}
