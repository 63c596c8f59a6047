//! The scenario parser: a line-oriented state machine whose lines are split
//! into tokens by nom, so that every error can name the token's column.

use super::ast::{Directives, Placement, Scenario, Step, StepKind, Visibility};
use super::diagnostic::Diagnostic;
use crate::domain::{Color, Coord, Dims, Role};
use crate::engine::RuleSetId;
use nom::bytes::complete::take_till1;
use nom::character::complete::{space0, space1};
use nom::combinator::all_consuming;
use nom::multi::separated_list0;
use nom::sequence::delimited;
use nom::{IResult, Parser};

/// Parses raw file bytes; bytes that are not UTF-8 are an error at the
/// line and column of the first bad byte.
pub fn parse_bytes(bytes: &[u8]) -> Result<Scenario, Diagnostic> {
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

/// Parses scenario text.
pub fn parse(text: &str) -> Result<Scenario, Diagnostic> {
    let mut parser = LineParser::default();
    // The last line with content: where "the file ends too early" points.
    let mut last = Line::new(1, "");
    for (i, raw) in text.split('\n').enumerate() {
        let line = Line::new(i + 1, raw);
        if line.is_blank_or_comment() {
            continue;
        }
        parser.feed(&line)?;
        last = line;
    }
    parser.finish(&last)
}

/// One source line, with its tokens and their 1-based columns.
struct Line<'a> {
    number: usize,
    text: &'a str,
    tokens: Vec<(usize, &'a str)>,
}

impl<'a> Line<'a> {
    fn new(number: usize, raw: &'a str) -> Line<'a> {
        // CRLF and trailing blanks are tolerated; a trailing `//` comment is dropped.
        let text = raw.trim_end_matches(['\r', ' ', '\t']);
        let code = text.find("//").map_or(text, |i| &text[..i]);
        let tokens = tokenize(code)
            .into_iter()
            .map(|tok| (column_of(text, tok), tok))
            .collect();
        Line {
            number,
            text,
            tokens,
        }
    }

    fn is_blank_or_comment(&self) -> bool {
        self.tokens.is_empty()
    }

    fn error_at(&self, col: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.number, col, message, self.text)
    }

    /// Error at token `i`, or just past the end of the line if it is missing.
    fn error_at_token(&self, i: usize, message: impl Into<String>) -> Diagnostic {
        let col = self
            .tokens
            .get(i)
            .map_or(self.text.chars().count() + 1, |t| t.0);
        self.error_at(col, message)
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
                format!("{what} `{tok}` is too large")
            } else {
                format!("expected a whole number for {what}, found `{tok}`")
            };
            self.error_at(col, message)
        })
    }
}

/// Splits a line into whitespace-separated tokens.
fn tokenize(code: &str) -> Vec<&str> {
    let token = take_till1(|c: char| c == ' ' || c == '\t');
    let mut tokens = delimited(space0, separated_list0(space1, token), space0);
    let parsed: IResult<&str, Vec<&str>> = tokens.parse(code);
    // The grammar accepts any string, so the error arm is unreachable in practice.
    parsed.map(|(_, toks)| toks).unwrap_or_default()
}

/// 1-based character column of `tok`, a sub-slice of `line`.
fn column_of(line: &str, tok: &str) -> usize {
    let byte = tok.as_ptr() as usize - line.as_ptr() as usize;
    line[..byte].chars().count() + 1
}

#[derive(Default)]
enum Stage {
    #[default]
    Points,
    Size,
    Placements,
    Steps,
}

#[derive(Default)]
struct LineParser {
    stage: Stage,
    directives: Directives,
    points: u32,
    dims: Option<Dims>,
    placements: Vec<Placement>,
    steps: Vec<Step>,
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

    fn directive(&mut self, line: &Line) -> Result<(), Diagnostic> {
        line.expect_tokens(2, "@<key> <value>")?;
        let value = line.tokens[1].1;
        match line.tokens[0].1 {
            "@rules" => {
                self.directives.rules = value
                    .parse::<RuleSetId>()
                    .map_err(|e| line.error_at_token(1, e))?;
            }
            "@visibility" => {
                self.directives.visibility = Visibility::ALL
                    .into_iter()
                    .find(|v| v.name() == value)
                    .ok_or_else(|| {
                        line.error_at_token(
                            1,
                            format!("unknown visibility `{value}` (known: visible, hidden, after_due_date, after_published)"),
                        )
                    })?;
            }
            other => {
                return Err(line.error_at_token(
                    0,
                    format!("unknown directive `{other}` (known: @rules, @visibility)"),
                ));
            }
        }
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
                    format!("unknown colour `{}` (expected b or w)", line.tokens[0].1),
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
                        line.tokens[1].1
                    ),
                )
            })?;
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
            other => {
                return Err(line.error_at_token(
                    0,
                    format!("unknown step `{other}` (expected movePiece, isValidScan or underThreatScan)"),
                ));
            }
        };
        self.steps.push(Step {
            line: line.number as u32,
            kind,
        });
        Ok(())
    }

    fn finish(self, last: &Line) -> Result<Scenario, Diagnostic> {
        let missing = match self.stage {
            Stage::Points => "the scenario is empty: expected the points line",
            Stage::Size => "the scenario ends before the `<rows> <cols>` line",
            Stage::Placements => "missing `~` between the placements and the steps",
            Stage::Steps => {
                return Ok(Scenario {
                    directives: self.directives,
                    points: self.points,
                    dims: self.dims.expect("size is parsed before steps"),
                    placements: self.placements,
                    steps: self.steps,
                });
            }
        };
        Err(last.error_at(last.text.chars().count() + 1, missing))
    }
}

fn single_char(tok: &str) -> Option<char> {
    let mut chars = tok.chars();
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

fn is_step_keyword(tok: &str) -> bool {
    matches!(tok, "movePiece" | "isValidScan" | "underThreatScan")
}
