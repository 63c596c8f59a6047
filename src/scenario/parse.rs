//! The scenario parser: a line-oriented state machine over whitespace
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Square;

    const BASIC: &str =
        "0\n4 4\nb k 0 0\nw k 2 0\n~\nisValidScan\nunderThreatScan\nmovePiece 2 0 3 1\n";

    #[test]
    fn parses_the_seed_example_shape() {
        let s = parse(BASIC).unwrap();
        assert_eq!(s.points, 0);
        assert_eq!((s.dims.rows(), s.dims.cols()), (4, 4));
        assert_eq!(s.placements.len(), 2);
        assert_eq!(s.placements[1].color, Color::White);
        assert_eq!(s.placements[1].role, Role::King);
        assert_eq!(s.placements[1].square, Square { row: 2, col: 0 });
        let lines: Vec<u32> = s.steps.iter().map(|st| st.line).collect();
        assert_eq!(lines, vec![6, 7, 8]);
        assert_eq!(
            s.steps[2].kind,
            StepKind::MovePiece {
                from: Coord::new(2, 0),
                to: Coord::new(3, 1)
            }
        );
        assert_eq!(s.directives, Directives::default());
    }

    #[test]
    fn comments_blanks_crlf_and_trailing_blanks_are_tolerated() {
        let text = "// header comment\r\n\r\n  // indented\r\n3  \r\n4 4\t\r\n// between\r\nw p 2 1 \r\n~\r\n\r\n   // step comment\r\nisValidScan   \r\nmovePiece 2 1 1 1 // trailing\r\n";
        let s = parse(text).unwrap();
        assert_eq!(s.points, 3);
        assert_eq!(s.placements.len(), 1);
        let lines: Vec<u32> = s.steps.iter().map(|st| st.line).collect();
        assert_eq!(lines, vec![11, 12], "steps keep their 1-based source lines");
    }

    #[test]
    fn same_meaning_with_and_without_crlf() {
        assert_eq!(
            parse(BASIC).unwrap(),
            parse(&BASIC.replace('\n', "\r\n")).unwrap()
        );
    }

    #[test]
    fn queens_and_knights_are_accepted_and_coordinates_may_be_off_board() {
        let s = parse("1\n3 3\nw q 0 0\nb n 2 2\n~\nmovePiece -1 0 7 9\n").unwrap();
        assert_eq!(s.placements[0].role, Role::Queen);
        assert_eq!(s.placements[1].role, Role::Knight);
        assert_eq!(
            s.steps[0].kind,
            StepKind::MovePiece {
                from: Coord::new(-1, 0),
                to: Coord::new(7, 9)
            }
        );
    }

    #[test]
    fn course_files_with_trailing_marks_on_steps_parse() {
        let s = parse("0\n4 4\nw r 2 3\n~\nmovePiece 2 3 2 0 *\n").unwrap();
        assert_eq!(s.steps.len(), 1);
    }

    #[test]
    fn directives_set_visibility_and_rules() {
        let s = parse("@visibility hidden\n@rules lab3\n1\n1 1\n~\n").unwrap();
        assert_eq!(s.directives.visibility, Visibility::Hidden);
        assert_eq!(s.directives.rules, RuleSetId::Lab3);
        let e = parse("@colour red\n1\n1 1\n~\n").unwrap_err();
        assert_eq!((e.line, e.col), (1, 1));
        assert!(e.message.contains("unknown directive"));
        let e = parse("@rules chess960\n1\n1 1\n~\n").unwrap_err();
        assert_eq!((e.line, e.col), (1, 8));
    }

    fn err(text: &str) -> (usize, usize, String) {
        let e = parse(text).unwrap_err();
        (e.line, e.col, e.message)
    }

    #[test]
    fn errors_name_line_and_column() {
        let (l, c, m) = err("1\n4 x\n~\n");
        assert_eq!((l, c), (2, 3));
        assert!(
            m.contains("expected a whole number for the columns, found `x`"),
            "{m}"
        );

        let (l, c, m) = err("1\n4 4\nw z 1 1\n~\n");
        assert_eq!((l, c), (3, 3));
        assert!(m.contains("unknown piece `z`"), "{m}");

        let (l, c, m) = err("1\n4 4\ng k 1 1\n~\n");
        assert_eq!((l, c), (3, 1));
        assert!(m.contains("unknown colour `g`"), "{m}");

        let (l, c, m) = err("1\n4 4\n~\njump 1 1 1 1\n");
        assert_eq!((l, c), (4, 1));
        assert!(m.contains("unknown step `jump`"), "{m}");

        let (l, c, m) = err("1\n4 4\nw k 1 1\n");
        assert_eq!((l, c), (3, 8));
        assert!(m.contains("missing `~`"), "{m}");

        let (l, c, m) = err("1\n4 4\nw k 4 1\n~\n");
        assert_eq!((l, c), (3, 5));
        assert!(m.contains("square 4 1 is off the 4x4 board"), "{m}");

        let (l, c, m) = err("1\n100000 100000\n~\n");
        assert_eq!((l, c), (2, 1));
        assert!(m.contains("out of range"), "{m}");

        let (l, c, m) = err("1\n99999999999999999999 1\n~\n");
        assert_eq!((l, c), (2, 1));
        assert!(m.contains("too large"), "{m}");

        let (l, c, m) = err("");
        assert_eq!((l, c), (1, 1));
        assert!(m.contains("empty"), "{m}");

        let (l, c, m) = err("1\n4 4\n~\nmovePiece 1 1 1\n");
        assert_eq!((l, c), (4, 16));
        assert!(m.contains("missing value"), "{m}");

        let (l, _, m) = err("1\n4 4\nisValidScan\n");
        assert_eq!(l, 3);
        assert!(m.contains("before the steps"), "{m}");

        let (l, c, m) = err("-1\n4 4\n~\n");
        assert_eq!((l, c), (1, 1));
        assert!(m.contains("points must be between"), "{m}");
    }

    #[test]
    fn binary_garbage_is_an_error_at_the_first_bad_byte() {
        let e = parse_bytes(b"1\n4 4\nw k \xff\xfe 1\n").unwrap_err();
        assert_eq!((e.line, e.col), (3, 5));
        assert!(e.message.contains("not a text file"));
    }

    #[test]
    fn richer_steps_parse_in_each_notation() {
        let s = parse("@rules standard\n1\nfen 8/8/8/8/8/8/4P3/4K2k w - - 0 1\n~\nmove e2e4\nmove i2i4\nmove a7a8q\nperft 2\ndivide 1\nundo\nredo\nstatus\nscore\nstop\nmachine 42\nsave\n").unwrap();
        let kinds: Vec<String> = s.steps.iter().map(|st| st.kind.text()).collect();
        assert_eq!(
            kinds,
            [
                "move e2e4",
                "move i2i4",
                "move a7a8q",
                "perft 2",
                "divide 1",
                "undo",
                "redo",
                "status",
                "score",
                "stop",
                "machine 42",
                "save"
            ]
        );
        let sq = |row, col| Some(Square { row, col });
        assert_eq!(
            s.steps[0].kind,
            StepKind::Move {
                text: "e2e4".into(),
                from: sq(6, 4),
                to: sq(4, 4),
                promotion: None
            }
        );
        assert!(matches!(s.steps[1].kind, StepKind::Move { from: None, .. }));

        let s = parse("@rules cuhk\n1\n8 8\n~\nmove a7 A5\nmove Z0 Z0\n").unwrap();
        assert!(matches!(
            s.steps[0].kind,
            StepKind::Move {
                from: Some(Square { row: 6, col: 0 }),
                to: Some(Square { row: 4, col: 0 }),
                ..
            }
        ));
        assert_eq!(s.steps[1].kind, StepKind::Stop { sentinel: true });
        assert_eq!(s.steps[1].kind.text(), "move Z0 Z0");

        let s = parse("@rules jhu\n1\n8 8\n~\nmove E2E4\nmove e2e4\n").unwrap();
        assert!(matches!(
            s.steps[0].kind,
            StepKind::Move { from: Some(_), .. }
        ));
        assert!(matches!(s.steps[1].kind, StepKind::Move { from: None, .. }));

        let (l, c, m) = err("@rules cuhk\n1\n8 8\n~\nmove A7\n");
        assert_eq!((l, c), (5, 8));
        assert!(m.contains("CUHK style"), "{m}");
        let (l, c, m) = err("@rules standard\n1\n8 8\n~\nmove e2-e4\n");
        assert_eq!((l, c), (5, 6));
        assert!(m.contains("is not a move"), "{m}");
        let (l, c, m) = err("1\n8 8\n~\nmachine -3\n");
        assert_eq!((l, c), (4, 9));
        assert!(m.contains("seed"), "{m}");
        let (l, c, m) = err("1\n8 8\n~\nperft 99\n");
        assert_eq!((l, c), (4, 7));
        assert!(m.contains("depth"), "{m}");
    }

    #[test]
    fn jhu_board_pictures_set_up_pieces_and_the_side_to_move() {
        let text = "@rules jhu\n1\nboard\n--k\n---\nK-P\nb\nw q 1 1\n~\nstatus\n";
        let s = parse(text).unwrap();
        assert_eq!((s.dims.rows(), s.dims.cols()), (3, 3));
        assert_eq!(s.turn, Some(Color::Black));
        let pieces: Vec<(char, u16, u16)> = s
            .placements
            .iter()
            .map(|p| {
                (
                    Piece::new(p.color, p.role).char(),
                    p.square.row,
                    p.square.col,
                )
            })
            .collect();
        assert_eq!(pieces, [('k', 0, 2), ('K', 2, 0), ('P', 2, 2), ('Q', 1, 1)]);

        let (l, c, m) = err("1\nboard\n--k\n----\nw\n~\n");
        assert_eq!((l, c), (4, 1));
        assert!(m.contains("width"), "{m}");
        let (l, c, m) = err("1\nboard\n--k\n-x-\nw\n~\n");
        assert_eq!((l, c), (4, 2));
        // Columns count from the source line, indentation included.
        let (l, c, _) = err("1\nboard\n  --k\n  -x-\nw\n~\n");
        assert_eq!((l, c), (4, 4));
        assert!(m.contains("not a piece"), "{m}");
        let (l, _, m) = err("1\nboard\n--k\n");
        assert_eq!(l, 3);
        assert!(m.contains("`w` or `b`"), "{m}");
        let (l, _, m) = err("1\nboard\nw\n~\n");
        assert_eq!(l, 3);
        assert!(m.contains("no rows"), "{m}");
    }

    #[test]
    fn a_leading_bom_is_accepted_and_other_boms_and_lone_crs_are_named() {
        let with_bom = format!("\u{feff}{BASIC}");
        assert_eq!(parse(&with_bom).unwrap(), parse(BASIC).unwrap());
        assert_eq!(
            parse_bytes(with_bom.as_bytes()).unwrap(),
            parse(BASIC).unwrap()
        );
        let (l, c, m) = err("1\n4 4\n\u{feff}~\n");
        assert_eq!((l, c), (3, 1));
        assert!(m.contains("byte-order mark"), "{m}");
        let e = parse_bytes(b"\xff\xfe1\x00\n").unwrap_err();
        assert!(e.message.contains("UTF-16"), "{}", e.message);

        let (l, c, m) = err("1\r4 4\r~\risValidScan\r");
        assert_eq!((l, c), (1, 2));
        assert!(m.contains("CR-only line endings"), "{m}");
        let (l, c, m) = err("1\n4 4\r~\n");
        assert_eq!((l, c), (2, 4));
        assert!(m.contains("carriage return"), "{m}");
    }

    #[test]
    fn a_directive_said_twice_must_agree_and_the_error_names_both_lines() {
        let s = parse("@rules standard\n@rules standard\n1\n8 8\n~\n").unwrap();
        assert_eq!(s.directives.rules, RuleSetId::Standard);
        let (l, c, m) = err("@rules lab3\n// x\n@rules standard\n1\n8 8\n~\n");
        assert_eq!((l, c), (3, 8));
        assert!(
            m.contains("line 1 says `lab3`, line 3 says `standard`"),
            "{m}"
        );
        let (l, _, m) = err("@visibility hidden\n@visibility visible\n1\n1 1\n~\n");
        assert_eq!(l, 2);
        assert!(m.contains("conflicting `@visibility`"), "{m}");
    }

    #[test]
    fn fen_errors_point_at_the_bad_field_and_slashes_are_not_comments() {
        let fen = |f: &str| err(&format!("@rules standard\n1\nfen {f}\n~\n"));
        // `fen ` is 4 columns: the FEN starts at column 5.
        let (l, c, m) = fen("8//8/8/8/8/8/8/8 w - - 0 1");
        assert_eq!((l, c), (3, 7), "{m}");
        assert!(m.contains("row 2 is empty"), "{m}");
        let (_, c, m) = fen("8/8/8/8/8/8/8/7x w - - 0 1");
        assert_eq!(c, 5 + 14 + 1, "{m}");
        let (_, c, m) = fen("8/8/8/8/8/8/8/8 x - - 0 1");
        assert_eq!(c, 21, "{m}");
        let (_, c, m) = fen("8/8/8/8/8/8/8/8 w - - 0 z");
        assert_eq!(c, 29, "{m}");
        let (_, c, m) = fen("8/8/8/8/8/8/8/8 w - - 0 1 extra");
        assert_eq!(c, 31, "{m}");
        // A `//` comment still starts a token.
        let s =
            parse("@rules standard\n1\nfen 8/8/8/8/8/8/8/K6k w - - 0 1 // a comment\n~\n").unwrap();
        assert_eq!(s.fen.as_deref(), Some("8/8/8/8/8/8/8/K6k w - - 0 1"));
    }

    #[test]
    fn columns_are_counted_in_one_pass_over_many_tokens() {
        // 200,000 tokens on one line: linear, and the error names the
        // first extra token's column.
        let line = "1 ".repeat(200_000);
        let (l, c, m) = err(&format!("{line}\n"));
        assert_eq!((l, c), (1, 3));
        assert!(m.contains("extra text"), "{m}");
        let toks = tokenize("a  é\tbb //c");
        assert_eq!(toks, vec![(1, "a"), (4, "é"), (6, "bb")]);
    }

    #[test]
    fn long_bad_tokens_are_shown_short() {
        let huge = "z".repeat(1 << 20);
        let e = parse(&format!("1\n4 4\n~\n{huge}\n")).unwrap_err();
        let text = e.to_string();
        assert!(text.len() < 1000, "{} bytes", text.len());
        assert!(text.contains("(1048576 characters)"), "{text}");
        assert_eq!(shown("a\u{1b}[2J"), "a\\u{1b}[2J");
    }

    #[test]
    fn a_mystery_piece_needs_its_directive() {
        let s = parse("@rules jhu\n@mystery slider 1,0 1,1 value 7\n1\n4 4\nw m 0 0\n~\n").unwrap();
        let shape = s.directives.mystery.unwrap();
        assert!(shape.slides && shape.value == 7 && shape.vectors().len() == 8);
        assert_eq!(s.directives.rule_set().mystery, Some(shape));

        let (l, c, m) = err("1\n4 4\nw m 0 0\n~\n");
        assert_eq!((l, c), (3, 3));
        assert!(m.contains("@mystery"), "{m}");
        let (l, c, _) = err("1\nboard\nM-\nw\n~\n");
        assert_eq!((l, c), (3, 1));
        let (l, c, _) = err("@rules standard\n1\nfen 7k/8/8/8/8/8/8/M6K w - - 0 1\n~\n");
        assert_eq!((l, c), (3, 5));
        let (l, c, m) = err("@mystery hopper 1,2\n1\n1 1\n~\n");
        assert_eq!((l, c), (1, 10));
        assert!(m.contains("leaper"), "{m}");
        let (l, c, m) = err("@mystery slider 1,2\n1\n1 1\n~\n");
        assert_eq!((l, c), (1, 17));
        assert!(m.contains("straight"), "{m}");
        let (l, c, m) = err("@mystery leaper 1;2\n1\n1 1\n~\n");
        assert_eq!((l, c), (1, 17));
        assert!(m.contains("dr,dc"), "{m}");
    }
}
