//! TEMPORARY, test-only: the hand-written parser the nom grammar in
//! `parse.rs` replaced, kept as the oracle `equivalence.rs` compares it
//! with. Removed once the comparison has run.
//!
//! The old scenario parser: a line-oriented state machine over whitespace
//! separated tokens, each carrying its 1-based character column so that
//! every error can put its caret on the token at fault.
//!
//! Everything here is linear in the size of the input: tokens are found in
//! one pass that counts columns as it goes (a column is never recomputed
//! from the start of the line), and any token echoed in a message is
//! shortened (see [`shown`]), so a hostile file of megabytes of tokens is
//! parsed in time proportional to its size and its errors stay short.

use super::ast::{Directives, Placement, Scenario, Step, StepKind, Visibility};
use super::diagnostic::Diagnostic;
use crate::domain::{Color, Coord, Dims, Piece, Role, Square};
use crate::engine::{
    FenError, MoveInput, MysteryShape, Position, RuleSetId, arity, parse_move, syntax,
};
use nom::combinator::all_consuming;
use nom::{IResult, Parser};

/// The UTF-8 byte-order mark some Windows editors put at the start of a file.
const BOM: char = '\u{feff}';

/// Parses raw file bytes; bytes that are not UTF-8 are an error at the
/// line and column of the first bad byte (a UTF-16 file is named as such).
pub fn parse_bytes(bytes: &[u8]) -> Result<Scenario, Diagnostic> {
    if bytes.starts_with(&[0xff, 0xfe]) || bytes.starts_with(&[0xfe, 0xff]) {
        return Err(Diagnostic::at(
            1,
            1,
            "not a UTF-8 text file: it starts with a UTF-16 byte-order mark; save it as UTF-8",
            "",
        ));
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(e) => {
            let good = std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default();
            let line = good.matches('\n').count() + 1;
            let line_start = good.rfind('\n').map_or(0, |i| i + 1);
            let col = good[line_start..].chars().count() + 1;
            Err(Diagnostic::at(
                line,
                col,
                "not a text file: invalid UTF-8 byte",
                &good[line_start..],
            ))
        }
    }
}

/// Parses scenario text. A leading UTF-8 byte-order mark is accepted (and
/// not counted as a column); line endings are LF or CRLF, and a carriage
/// return anywhere else (CR-only "classic Mac" endings) is an error that
/// says so.
pub fn parse(text: &str) -> Result<Scenario, Diagnostic> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let mut parser = LineParser::default();
    // The last line with content: where "the file ends too early" points.
    let mut last = Line::new(1, "");
    for (i, raw) in text.split('\n').enumerate() {
        let line = Line::new(i + 1, raw);
        line.check_characters(text)?;
        if line.is_blank_or_comment() {
            continue;
        }
        parser.feed(&line)?;
        last = line;
    }
    parser.finish(&last)
}

/// A token as it may be echoed in a message: at most [`SHOWN_CHARS`]
/// characters, control characters escaped, and the length of anything cut.
pub fn shown(tok: &str) -> String {
    const SHOWN_CHARS: usize = 32;
    let mut out = String::new();
    for c in tok.chars().take(SHOWN_CHARS) {
        if c.is_control() || c == BOM {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    let total = tok.chars().count();
    if total > SHOWN_CHARS {
        out.push_str(&format!("… ({total} characters)"));
    }
    out
}

/// One source line, with its tokens and their 1-based columns.
struct Line<'a> {
    number: usize,
    text: &'a str,
    tokens: Vec<(usize, &'a str)>,
}

impl<'a> Line<'a> {
    fn new(number: usize, raw: &'a str) -> Line<'a> {
        // CRLF and trailing blanks are tolerated; a `//` comment is dropped.
        let text = raw.trim_end_matches(['\r', ' ', '\t']);
        Line {
            number,
            text,
            tokens: tokenize(text),
        }
    }

    /// Characters that make a line mean something other than it looks:
    /// a carriage return left inside the line (CR-only line endings), or a
    /// byte-order mark that is not at the start of the file.
    fn check_characters(&self, whole: &str) -> Result<(), Diagnostic> {
        for (col, c) in self.text.chars().enumerate() {
            let message = match c {
                '\r' if !whole.contains('\n') => {
                    "the file has CR-only line endings (classic Mac): save it with LF or CRLF line endings"
                }
                '\r' => {
                    "a carriage return (CR) inside a line: the file mixes CR-only line endings with LF; save it with LF or CRLF line endings"
                }
                BOM => {
                    "a byte-order mark (U+FEFF) inside the file (only the very start may have one)"
                }
                _ => continue,
            };
            return Err(self.error_at(col + 1, message));
        }
        Ok(())
    }

    fn is_blank_or_comment(&self) -> bool {
        self.tokens.is_empty()
    }

    fn error_at(&self, col: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.number, col, message, self.text)
    }

    /// Error at token `i`, or just past the end of the line if it is missing.
    fn error_at_token(&self, i: usize, message: impl Into<String>) -> Diagnostic {
        let col = self.tokens.get(i).map_or_else(|| self.end_col(), |t| t.0);
        self.error_at(col, message)
    }

    /// The column just past the last character of the line.
    fn end_col(&self) -> usize {
        self.text.chars().count() + 1
    }

    /// Checks the line has exactly `n` tokens, naming the expected shape.
    fn expect_tokens(&self, n: usize, shape: &str) -> Result<(), Diagnostic> {
        self.expect_at_least(n, shape)?;
        match self.tokens.len() {
            len if len > n => {
                Err(self.error_at_token(n, format!("expected `{shape}`: unexpected extra text")))
            }
            _ => Ok(()),
        }
    }

    /// Checks the line has at least `n` tokens. Step lines use this: the
    /// course grader reads a step's arguments and ignores the rest of the
    /// line, and real course files carry trailing marks (`movePiece 2 3 2 0 *`).
    fn expect_at_least(&self, n: usize, shape: &str) -> Result<(), Diagnostic> {
        match self.tokens.len() {
            len if len < n => {
                Err(self.error_at_token(len, format!("expected `{shape}`: missing value")))
            }
            _ => Ok(()),
        }
    }

    fn int(&self, i: usize, what: &str) -> Result<i64, Diagnostic> {
        let (col, tok) = self.tokens[i];
        let parsed: IResult<&str, i64> = all_consuming(nom::character::complete::i64).parse(tok);
        parsed.map(|(_, n)| n).map_err(|_| {
            let message = if tok
                .trim_start_matches(['-', '+'])
                .chars()
                .all(|c| c.is_ascii_digit())
            {
                format!("{what} `{}` is too large", shown(tok))
            } else {
                format!("expected a whole number for {what}, found `{}`", shown(tok))
            };
            self.error_at(col, message)
        })
    }
}

/// Splits a line into blank-separated tokens with their 1-based character
/// columns, in one pass. A token that starts with `//` starts a comment
/// running to the end of the line; `//` inside a token (a FEN's `8//8`) is
/// part of the token.
fn tokenize(text: &str) -> Vec<(usize, &str)> {
    let mut tokens = Vec::new();
    // (column, byte offset) of the token being read.
    let mut start: Option<(usize, usize)> = None;
    for (col, (byte, c)) in text.char_indices().enumerate() {
        let blank = c == ' ' || c == '\t';
        match start {
            None if blank => {}
            None if text[byte..].starts_with("//") => return tokens,
            None => start = Some((col + 1, byte)),
            Some((tcol, tbyte)) if blank => {
                tokens.push((tcol, &text[tbyte..byte]));
                start = None;
            }
            Some(_) => {}
        }
    }
    if let Some((tcol, tbyte)) = start {
        tokens.push((tcol, &text[tbyte..]));
    }
    tokens
}

#[derive(Default)]
enum Stage {
    #[default]
    Points,
    Size,
    /// Inside a `board` picture: the rows so far (line, squares).
    Picture(Vec<(usize, Vec<Option<Piece>>)>),
    Placements,
    Steps,
}

#[derive(Default)]
struct LineParser {
    stage: Stage,
    directives: Directives,
    points: u32,
    dims: Option<Dims>,
    fen: Option<String>,
    turn: Option<Color>,
    placements: Vec<Placement>,
    steps: Vec<Step>,
    /// Directives seen so far: (key, line, value as written), to refuse a
    /// second line that says something else.
    seen: Vec<(String, usize, String)>,
}

impl LineParser {
    fn feed(&mut self, line: &Line) -> Result<(), Diagnostic> {
        match self.stage {
            Stage::Points if line.tokens[0].1.starts_with('@') => self.directive(line),
            Stage::Points => {
                line.expect_tokens(1, "<points>")?;
                let n = line.int(0, "the points")?;
                self.points = u32::try_from(n).map_err(|_| {
                    line.error_at_token(
                        0,
                        format!("points must be between 0 and {}, found {n}", u32::MAX),
                    )
                })?;
                self.stage = Stage::Size;
                Ok(())
            }
            Stage::Size if line.tokens[0].1 == "fen" => self.fen(line),
            Stage::Size if line.tokens[0].1 == "board" => {
                line.expect_tokens(1, "board")?;
                self.stage = Stage::Picture(Vec::new());
                Ok(())
            }
            Stage::Picture(_) => self.picture_line(line),
            Stage::Size => {
                line.expect_tokens(2, "<rows> <cols>")?;
                let (rows, cols) = (line.int(0, "the rows")?, line.int(1, "the columns")?);
                let dims =
                    Dims::new(rows, cols).map_err(|e| line.error_at_token(0, e.to_string()))?;
                self.dims = Some(dims);
                self.stage = Stage::Placements;
                Ok(())
            }
            Stage::Placements if line.tokens[0].1 == "~" => {
                line.expect_tokens(1, "~")?;
                self.stage = Stage::Steps;
                Ok(())
            }
            Stage::Placements => self.placement(line),
            Stage::Steps => self.step(line),
        }
    }

    /// A directive line; the same directive twice is fine when both say the
    /// same thing, an error naming both lines when they differ.
    fn directive(&mut self, line: &Line) -> Result<(), Diagnostic> {
        let key = line.tokens[0].1;
        let value: Vec<&str> = line.tokens[1..].iter().map(|t| t.1).collect();
        let value = value.join(" ");
        if let Some((_, first, before)) = self.seen.iter().find(|(k, _, _)| k == key)
            && *before != value
        {
            return Err(line.error_at_token(
                1,
                format!(
                    "conflicting `{}` directives: line {first} says `{}`, line {} says `{}`",
                    shown(key),
                    shown(before),
                    line.number,
                    shown(&value)
                ),
            ));
        }
        self.seen.push((key.to_string(), line.number, value));
        if line.tokens[0].1 == "@mystery" {
            return self.mystery(line);
        }
        line.expect_tokens(2, "@<key> <value>")?;
        let value = line.tokens[1].1;
        match line.tokens[0].1 {
            "@rules" => {
                self.directives.rules = value.parse::<RuleSetId>().map_err(|_| {
                    let known: Vec<_> = RuleSetId::ALL.iter().map(|id| id.name()).collect();
                    line.error_at_token(
                        1,
                        format!(
                            "unknown rule set `{}` (known: {})",
                            shown(value),
                            known.join(", ")
                        ),
                    )
                })?;
            }
            "@visibility" => {
                self.directives.visibility = Visibility::ALL
                    .into_iter()
                    .find(|v| v.name() == value)
                    .ok_or_else(|| {
                        line.error_at_token(
                            1,
                            format!("unknown visibility `{}` (known: visible, hidden, after_due_date, after_published)", shown(value)),
                        )
                    })?;
            }
            other => {
                return Err(line.error_at_token(
                    0,
                    format!(
                        "unknown directive `{}` (known: @rules, @visibility, @mystery)",
                        shown(other)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `@mystery leaper|slider <dr,dc>... [value <n>]`: the Mystery piece's
    /// shape (each offset with its symmetric variants) and point value.
    fn mystery(&mut self, line: &Line) -> Result<(), Diagnostic> {
        const SHAPE: &str = "@mystery leaper|slider <dr,dc>... [value <n>]";
        line.expect_at_least(3, SHAPE)?;
        let slides = match line.tokens[1].1 {
            "leaper" => false,
            "slider" => true,
            other => {
                return Err(line.error_at_token(
                    1,
                    format!("expected `leaper` or `slider`, found `{}`", shown(other)),
                ));
            }
        };
        let mut offsets = Vec::new();
        let mut value = 0;
        let mut i = 2;
        while i < line.tokens.len() {
            let tok = line.tokens[i].1;
            if tok == "value" {
                line.expect_tokens(i + 2, SHAPE)?;
                let n = line.int(i + 1, "the value")?;
                value = u32::try_from(n).map_err(|_| {
                    line.error_at_token(i + 1, format!("a value is 0 or more, found {n}"))
                })?;
                break;
            }
            let offset = tok
                .split_once(',')
                .and_then(|(r, c)| Some((r.parse().ok()?, c.parse().ok()?)))
                .ok_or_else(|| {
                    line.error_at_token(
                        i,
                        format!("expected an offset `dr,dc`, found `{}`", shown(tok)),
                    )
                })?;
            offsets.push(offset);
            i += 1;
        }
        let shape =
            MysteryShape::new(slides, &offsets, value).map_err(|e| line.error_at_token(2, e))?;
        self.directives.mystery = Some(shape);
        Ok(())
    }

    /// A Mystery piece needs a `@mystery` directive saying how it moves.
    fn check_mystery(&self, line: &Line, col: usize, piece: Piece) -> Result<(), Diagnostic> {
        if piece.role == Role::Mystery && self.directives.mystery.is_none() {
            return Err(line.error_at(
                col,
                "a Mystery piece (m) needs a `@mystery leaper|slider <dr,dc>...` directive before the points line",
            ));
        }
        Ok(())
    }

    /// One line of a JHU board picture: a row (`-` empty, upper case White,
    /// lower case Black), or `w` / `b` (who moves), which ends the picture.
    fn picture_line(&mut self, line: &Line) -> Result<(), Diagnostic> {
        line.expect_tokens(1, "a board row like rnbqkbnr or --P-----, or w / b")?;
        let (col, text) = line.tokens[0];
        let side = match text {
            "w" => Some(Color::White),
            "b" => Some(Color::Black),
            _ => None,
        };
        let Some(side) = side else {
            let cells = self.picture_row(line, col, text)?;
            let Stage::Picture(rows) = &mut self.stage else {
                unreachable!("picture lines are parsed in the picture stage")
            };
            if let Some((first_line, first)) = rows.first()
                && first.len() != cells.len()
            {
                return Err(line.error_at(
                    col,
                    format!(
                        "every row of the board has the width of the first (line {first_line}: {}), this one has {}",
                        first.len(),
                        cells.len()
                    ),
                ));
            }
            rows.push((line.number, cells));
            return Ok(());
        };
        let Stage::Picture(rows) = std::mem::replace(&mut self.stage, Stage::Placements) else {
            unreachable!("picture lines are parsed in the picture stage")
        };
        let Some((_, first)) = rows.first() else {
            return Err(line.error_at(col, "the board picture has no rows before the side to move"));
        };
        let dims = Dims::new(rows.len() as i64, first.len() as i64)
            .map_err(|e| line.error_at(col, e.to_string()))?;
        for (row, (number, cells)) in rows.iter().enumerate() {
            for (c, piece) in cells.iter().enumerate() {
                let Some(piece) = piece else { continue };
                self.placements.push(Placement {
                    line: *number as u32,
                    color: piece.color,
                    role: piece.role,
                    square: Square {
                        row: row as u16,
                        col: c as u16,
                    },
                });
            }
        }
        self.dims = Some(dims);
        self.turn = Some(side);
        Ok(())
    }

    /// The squares of one picture row (the token `text` at column `col`).
    fn picture_row(
        &self,
        line: &Line,
        col: usize,
        text: &str,
    ) -> Result<Vec<Option<Piece>>, Diagnostic> {
        text.chars()
            .enumerate()
            .map(|(i, c)| {
                if c == '-' {
                    return Ok(None);
                }
                let piece = Piece::from_char(c).ok_or_else(|| {
                    line.error_at(
                        col + i,
                        format!(
                            "`{c}` is not a piece (expected - or one of kqrbnpm, upper case White)"
                        ),
                    )
                })?;
                self.check_mystery(line, col + i, piece)?;
                Ok(Some(piece))
            })
            .collect()
    }

    /// `fen <FEN>`: the setup as a FEN (any board size the engine takes).
    fn fen(&mut self, line: &Line) -> Result<(), Diagnostic> {
        line.expect_at_least(
            2,
            "fen <pieces> <side> <castling> <en-passant> [<halfmove> <fullmove>]",
        )?;
        let fen = line.tokens[1..]
            .iter()
            .map(|t| t.1)
            .collect::<Vec<_>>()
            .join(" ");
        let position = Position::from_fen(self.directives.rule_set(), &fen)
            .map_err(|e| line.error_at(fen_error_col(line, &e), e.to_string()))?;
        if let Some((_, piece)) = position
            .board()
            .pieces()
            .find(|(_, p)| p.role == Role::Mystery)
        {
            self.check_mystery(line, line.tokens[1].0, piece)?;
        }
        self.dims = Some(position.dims());
        self.fen = Some(fen);
        self.stage = Stage::Placements;
        Ok(())
    }

    fn placement(&mut self, line: &Line) -> Result<(), Diagnostic> {
        const SHAPE: &str = "<b|w> <piece> <row> <col>";
        if line.tokens.len() == 1 || is_step_keyword(line.tokens[0].1) {
            return Err(line.error_at_token(
                0,
                format!("expected a placement `{SHAPE}` or `~` before the steps"),
            ));
        }
        line.expect_tokens(4, SHAPE)?;
        let color = single_char(line.tokens[0].1)
            .and_then(Color::from_letter)
            .ok_or_else(|| {
                line.error_at_token(
                    0,
                    format!(
                        "unknown colour `{}` (expected b or w)",
                        shown(line.tokens[0].1)
                    ),
                )
            })?;
        let role = single_char(line.tokens[1].1)
            .filter(char::is_ascii_lowercase)
            .and_then(Role::from_letter)
            .ok_or_else(|| {
                line.error_at_token(
                    1,
                    format!(
                        "unknown piece `{}` (expected k, q, r, b, n or p)",
                        shown(line.tokens[1].1)
                    ),
                )
            })?;
        self.check_mystery(line, line.tokens[1].0, Piece::new(color, role))?;
        let (row, col) = (line.int(2, "the row")?, line.int(3, "the column")?);
        let dims = self.dims.expect("size is parsed before placements");
        let square = dims.square_at(row, col).ok_or_else(|| {
            line.error_at_token(
                2,
                format!(
                    "square {row} {col} is off the {}x{} board",
                    dims.rows(),
                    dims.cols()
                ),
            )
        })?;
        self.placements.push(Placement {
            line: line.number as u32,
            color,
            role,
            square,
        });
        Ok(())
    }

    fn step(&mut self, line: &Line) -> Result<(), Diagnostic> {
        let kind = match line.tokens[0].1 {
            "movePiece" => {
                line.expect_at_least(5, "movePiece <row> <col> <row> <col>")?;
                let n = |i| line.int(i, "a coordinate");
                StepKind::MovePiece {
                    from: Coord::new(n(1)?, n(2)?),
                    to: Coord::new(n(3)?, n(4)?),
                }
            }
            "isValidScan" => StepKind::IsValidScan,
            "underThreatScan" => StepKind::UnderThreatScan,
            "move" => self.move_step(line)?,
            "stop" => StepKind::Stop { sentinel: false },
            "score" => StepKind::Score,
            "save" => StepKind::Save,
            "machine" => {
                line.expect_at_least(2, "machine <seed>")?;
                let (col, tok) = line.tokens[1];
                let seed = tok.parse::<u64>().map_err(|_| {
                    line.error_at(
                        col,
                        format!(
                            "expected a seed from 0 to {}, found `{}`",
                            u64::MAX,
                            shown(tok)
                        ),
                    )
                })?;
                StepKind::Machine { seed }
            }
            "perft" | "divide" => {
                line.expect_at_least(2, "perft|divide <depth>")?;
                let depth = line.int(1, "the depth")?;
                let depth = u32::try_from(depth)
                    .ok()
                    .filter(|d| *d <= MAX_DEPTH)
                    .ok_or_else(|| {
                        line.error_at_token(
                            1,
                            format!("depth must be between 0 and {MAX_DEPTH}, found {depth}"),
                        )
                    })?;
                if line.tokens[0].1 == "perft" {
                    StepKind::Perft { depth }
                } else {
                    StepKind::Divide { depth }
                }
            }
            "undo" => StepKind::Undo,
            "redo" => StepKind::Redo,
            "status" => StepKind::Status,
            other => {
                return Err(line.error_at_token(
                    0,
                    format!(
                        "unknown step `{}` (expected movePiece, isValidScan, underThreatScan, move, perft, divide, undo, redo, status, score, stop, machine or save)",
                        shown(other)
                    ),
                ));
            }
        };
        self.steps.push(Step {
            line: line.number as u32,
            kind,
        });
        Ok(())
    }

    /// `move <text>`, the text in the rule set's notation.
    fn move_step(&self, line: &Line) -> Result<StepKind, Diagnostic> {
        let notation = self.directives.rules.rules().notation;
        let n = arity(notation);
        line.expect_at_least(1 + n, syntax(notation))?;
        let args: Vec<&str> = line.tokens[1..=n].iter().map(|t| t.1).collect();
        let dims = self.dims.expect("size is parsed before steps");
        match parse_move(notation, dims, &args) {
            Ok(MoveInput::Stop) => Ok(StepKind::Stop { sentinel: true }),
            Ok(MoveInput::Move {
                from,
                to,
                promotion,
            }) => Ok(StepKind::Move {
                text: args.join(" "),
                from,
                to,
                promotion,
            }),
            Err(i) => Err(line.error_at_token(
                1 + i,
                format!(
                    "`{}` is not a move: expected `{}`",
                    shown(args[i]),
                    syntax(notation)
                ),
            )),
        }
    }

    fn finish(self, last: &Line) -> Result<Scenario, Diagnostic> {
        let missing = match self.stage {
            Stage::Points => "the scenario is empty: expected the points line",
            Stage::Size => "the scenario ends before the `<rows> <cols>` line",
            Stage::Picture(_) => {
                "the board picture ends before its last line, `w` or `b` (who moves)"
            }
            Stage::Placements => "missing `~` between the placements and the steps",
            Stage::Steps => {
                return Ok(Scenario {
                    directives: self.directives,
                    points: self.points,
                    dims: self.dims.expect("size is parsed before steps"),
                    fen: self.fen,
                    turn: self.turn,
                    placements: self.placements,
                    steps: self.steps,
                });
            }
        };
        Err(last.error_at(last.text.chars().count() + 1, missing))
    }
}

/// The column of the FEN field (or piece-placement row, or character) a
/// FEN error is about, on a `fen <FEN>` line.
fn fen_error_col(line: &Line, error: &FenError) -> usize {
    let field = |i: usize| {
        line.tokens
            .get(1 + i)
            .map_or_else(|| line.end_col(), |t| t.0)
    };
    match error {
        FenError::FieldCount(n) if *n > 6 => field(6),
        FenError::FieldCount(_) => line.end_col(),
        FenError::Side(_) => field(1),
        FenError::Castling(_) => field(2),
        FenError::EnPassant(_) => field(3),
        FenError::Clock(s) => (4..6)
            .find(|&i| line.tokens.get(1 + i).is_some_and(|t| t.1 == s))
            .map_or_else(|| field(4), field),
        FenError::Pieces(why) => pieces_error_col(line.tokens[1], why),
    }
}

/// Within the piece-placement field `(col, text)`: the start of the row the
/// message names (`row N ...`), or the unexpected character in it.
fn pieces_error_col((col, text): (usize, &str), why: &str) -> usize {
    let Some(row) = why
        .strip_prefix("row ")
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|&n| n >= 1)
    else {
        return col;
    };
    // Character offset of each row's start within the field.
    let mut offset = 0;
    for (i, part) in text.split('/').enumerate() {
        if i + 1 == row {
            let unexpected = why
                .split_once("unexpected `")
                .and_then(|(_, rest)| rest.chars().next());
            let within = unexpected
                .and_then(|u| part.chars().position(|c| c == u))
                .unwrap_or(0);
            return col + offset + within;
        }
        offset += part.chars().count() + 1;
    }
    col
}

/// The deepest perft a scenario may ask for: deeper runs take minutes.
const MAX_DEPTH: u32 = 8;

fn single_char(tok: &str) -> Option<char> {
    let mut chars = tok.chars();
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

fn is_step_keyword(tok: &str) -> bool {
    matches!(
        tok,
        "movePiece"
            | "isValidScan"
            | "underThreatScan"
            | "move"
            | "perft"
            | "divide"
            | "undo"
            | "redo"
            | "status"
            | "stop"
            | "score"
            | "machine"
            | "save"
    )
}
