//! Whether a recorded session is well formed: every request line got its
//! answer in the shape docs/protocol.md gives it (read with the grader's
//! own answer parsers), or one `ERR <text>` line, in order, and nothing
//! else was written. This is the property the `serve` fuzz target
//! (`fuzz/fuzz_targets/serve.rs`) and `tests/it/serve.rs` hold `chessgrade
//! serve` to; any engine's session can be checked the same way.

use super::{Hello, Request, ScanKind, parse_request};
use crate::domain::{Dims, Square};
use crate::engine::{Position, RuleSet};
use std::fmt;

/// What is wrong with a session, and at which request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionError {
    /// The request (1-based, its text shortened) whose answer is wrong;
    /// `None` for the answers as a whole.
    pub request: Option<(usize, String)>,
    pub fault: Fault,
}

/// One way a session can be malformed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The answers are not UTF-8 text.
    NotUtf8(String),
    /// The last answer line has no newline.
    NoFinalNewline,
    /// A request got no answer.
    NoAnswer,
    /// A request that does not read got another answer than `ERR`.
    NotErr(String),
    /// An `ERR` line without printable text.
    BadErr(String),
    /// An answer not in the request's shape (`expected` says which).
    Malformed { answer: String, expected: String },
    /// Fewer lines than an answer's head announced.
    Short { announced: usize, written: usize },
    /// A scan line that is not a square (pair) of the board.
    OffBoard(String),
    /// Scan lines out of row-major order.
    NotRowMajor,
    /// A board or scan answered before any `NEW` or `FEN`.
    NoBoard(String),
    /// `OK` to a FEN the engine should refuse.
    AcceptedBadFen(String),
    /// An answer after every request was answered.
    Extra(String),
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::NotUtf8(e) => write!(f, "the answers are not UTF-8: {e}"),
            Fault::NoFinalNewline => f.write_str("the last answer line has no newline"),
            Fault::NoAnswer => f.write_str("no answer"),
            Fault::NotErr(a) => write!(f, "answered `{a}`, not ERR"),
            Fault::BadErr(a) => write!(f, "`{a}` is not `ERR <text>`"),
            Fault::Malformed { answer, expected } => write!(f, "`{answer}` is not {expected}"),
            Fault::Short { announced, written } => {
                write!(f, "{announced} lines announced, {written} written")
            }
            Fault::OffBoard(l) => write!(f, "`{l}` is not a square of the board"),
            Fault::NotRowMajor => f.write_str("scan lines not in row-major order"),
            Fault::NoBoard(what) => write!(f, "{what} before any NEW or FEN"),
            Fault::AcceptedBadFen(why) => write!(f, "OK to a FEN it should refuse: {why}"),
            Fault::Extra(a) => write!(f, "`{a}` answers no request"),
        }
    }
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((i, text)) = &self.request {
            write!(f, "request {i} `{text}`: ")?;
        }
        self.fault.fmt(f)
    }
}

impl std::error::Error for SessionError {}

impl From<Fault> for SessionError {
    fn from(fault: Fault) -> SessionError {
        SessionError {
            request: None,
            fault,
        }
    }
}

/// The request lines of `input` as an engine reads them: split at `\n`,
/// a last line without one included.
pub fn request_lines(input: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.into_iter()
}

/// Checks that `output` answers the requests of `input` line by line (up
/// to `QUIT`, after which nothing is answered). The error names the first
/// request whose answer is missing or malformed.
pub fn check_session(input: &[u8], output: &[u8]) -> Result<(), SessionError> {
    let output = std::str::from_utf8(output).map_err(|e| Fault::NotUtf8(e.to_string()))?;
    if !output.is_empty() && !output.ends_with('\n') {
        return Err(Fault::NoFinalNewline.into());
    }
    let mut answers = output.lines();
    // The board's size, once a NEW or FEN was answered OK.
    let mut dims: Option<Dims> = None;
    for (i, line) in request_lines(input).enumerate() {
        let shown = String::from_utf8_lossy(line);
        let at = |fault: Fault| SessionError {
            request: Some((i + 1, super::shorten(&shown))),
            fault,
        };
        let request = std::str::from_utf8(line)
            .ok()
            .map(|t| parse_request(t.trim_end_matches(['\n', '\r'])));
        if let Some(Ok(Request::Quit)) = request {
            break;
        }
        let first = answers.next().ok_or_else(|| at(Fault::NoAnswer))?;
        if first.starts_with("ERR") {
            check_err(first).map_err(at)?;
            continue;
        }
        let Some(Ok(request)) = request else {
            return Err(at(Fault::NotErr(first.into())));
        };
        check_answer(&request, first, &mut answers, &mut dims).map_err(at)?;
    }
    match answers.next() {
        None => Ok(()),
        Some(extra) => Err(Fault::Extra(extra.into()).into()),
    }
}

/// Checks the answer to `request` (not `ERR`) that starts with `first`,
/// reading the lines its head announces from `rest`; keeps `dims`, the
/// board's size, as a `NEW` or `FEN` sets it.
fn check_answer<'s>(
    request: &Request,
    first: &'s str,
    rest: &mut std::str::Lines<'s>,
    dims: &mut Option<Dims>,
) -> Result<(), Fault> {
    // The first line is in the shape `what` names when `ok`.
    let shape = |ok: bool, what: &str| {
        if ok {
            Ok(())
        } else {
            Err(malformed(first, what))
        }
    };
    match request {
        Request::Hello(_) => shape(Hello::parse(first).is_ok(), "a HELLO answer"),
        Request::Rules(_) | Request::Place { .. } | Request::Turn(_) => shape(first == "OK", "OK"),
        Request::New(d) => {
            shape(first == "OK", "OK")?;
            *dims = Some(*d);
            Ok(())
        }
        Request::Fen(fen) => {
            shape(first == "OK", "OK")?;
            let pos = Position::from_fen(RuleSet::lab3(), fen)
                .map_err(|e| Fault::AcceptedBadFen(e.to_string()))?;
            *dims = Some(pos.dims());
            Ok(())
        }
        Request::Valid(..)
        | Request::Move(..)
        | Request::Threat(_)
        | Request::Undo
        | Request::Redo => shape(super::parse_bool(first).is_some(), "1 or 0"),
        Request::Board => {
            let d = dims.ok_or_else(|| Fault::NoBoard("a board".into()))?;
            if super::parse_board(first, d).is_none() {
                return Err(malformed(
                    first,
                    &format!("a {}x{} BOARD", d.rows(), d.cols()),
                ));
            }
            Ok(())
        }
        Request::Scan(kind) => {
            let d = dims.ok_or_else(|| Fault::NoBoard("a scan".into()))?;
            let n =
                super::parse_count(first, "SCAN").ok_or_else(|| malformed(first, "SCAN <n>"))?;
            check_scan(*kind, &announced(rest, n)?, d)
        }
        Request::Play { .. } => shape(
            super::parse_played(first).is_some(),
            "OK or REFUSED <reason>",
        ),
        Request::Status | Request::Stop => shape(super::parse_status(first).is_some(), "a STATUS"),
        Request::Score => shape(super::parse_score(first).is_some(), "a SCORE"),
        Request::Machine(_) => shape(super::parse_machine(first).is_some(), "a MACHINE answer"),
        Request::Save => {
            let n =
                super::parse_count(first, "SAVE").ok_or_else(|| malformed(first, "SAVE <n>"))?;
            let line_ok = |l: &str| !l.is_empty() && !l.chars().any(char::is_control);
            every_line(&announced(rest, n)?, line_ok, "a save file line")
        }
        Request::Perft(_) => shape(super::parse_perft(first).is_some(), "PERFT <count>"),
        Request::Divide(_) => {
            let n = super::parse_count(first, "DIVIDE")
                .ok_or_else(|| malformed(first, "DIVIDE <n>"))?;
            let line_ok = |l: &str| super::parse_divide_line(l).is_some();
            every_line(&announced(rest, n)?, line_ok, "`<move> <count>`")
        }
        Request::Begin | Request::End | Request::Quit => Err(malformed(
            first,
            "an answer to this request (ERR, or nothing)",
        )),
    }
}

/// The fault of an answer line that is not `what` was expected.
fn malformed(line: &str, what: &str) -> Fault {
    Fault::Malformed {
        answer: line.into(),
        expected: what.into(),
    }
}

/// The `n` lines an answer's head announced, taken from `rest`.
fn announced<'s>(rest: &mut std::str::Lines<'s>, n: usize) -> Result<Vec<&'s str>, Fault> {
    let lines: Vec<&str> = rest.by_ref().take(n).collect();
    if lines.len() < n {
        return Err(Fault::Short {
            announced: n,
            written: lines.len(),
        });
    }
    Ok(lines)
}

/// Each of `lines` is `what` says (`ok` tells), else the first that is not.
fn every_line(lines: &[&str], ok: impl Fn(&str) -> bool, what: &str) -> Result<(), Fault> {
    match lines.iter().find(|l| !ok(l)) {
        Some(l) => Err(malformed(l, what)),
        None => Ok(()),
    }
}

/// A scan's lines: squares (pairs) of a `dims` board, in row-major order.
fn check_scan(kind: ScanKind, lines: &[&str], dims: Dims) -> Result<(), Fault> {
    let keys: Vec<(Square, Square)> = match kind {
        ScanKind::Valid => lines
            .iter()
            .map(|l| super::parse_valid_line(l, dims).ok_or(l))
            .collect::<Result<_, _>>(),
        ScanKind::Threat => lines
            .iter()
            .map(|l| super::parse_threat_line(l, dims).map(|s| (s, s)).ok_or(l))
            .collect::<Result<_, _>>(),
    }
    .map_err(|l| Fault::OffBoard(l.to_string()))?;
    if !keys.windows(2).all(|w| w[0] < w[1]) {
        return Err(Fault::NotRowMajor);
    }
    Ok(())
}

/// An `ERR` answer: `ERR `, then printable text.
fn check_err(line: &str) -> Result<(), Fault> {
    match line.strip_prefix("ERR ") {
        Some(text) if !text.trim().is_empty() && !text.chars().any(char::is_control) => Ok(()),
        _ => Err(Fault::BadErr(line.escape_default().to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_sessions_pass_and_each_kind_of_fault_is_named() {
        let input = b"HELLO 2\nNEW 2 2\nPLACE w k 0 0\nBOARD\nSCAN THREAT\nFROB\nQUIT\nBOARD\n";
        let good = "HELLO 2 caps=scan\nOK\nOK\nBOARD K./..\nSCAN 0\nERR unknown request `FROB`\n";
        assert_eq!(check_session(input, good.as_bytes()), Ok(()));
        for (output, why) in [
            (
                "HELLO 2\nOK\nOK\nBOARD K./..\nSCAN 0\n",
                "request 6 `FROB`: no answer",
            ),
            (
                "HELLO 2\nOK\nOK\nBOARD K../..\nSCAN 0\nERR x\n",
                "request 4 `BOARD`: `BOARD K../..` is not a 2x2 BOARD",
            ),
            (
                "HELLO 2\nOK\nOK\nBOARD K./..\nSCAN 1\nERR x\n",
                "request 5 `SCAN THREAT`: `ERR x` is not a square of the board",
            ),
            (
                "HELLO 2\nOK\nOK\nBOARD K./..\nSCAN 0\nOK\n",
                "request 6 `FROB`: answered `OK`, not ERR",
            ),
            (
                "HELLO 2\nOK\nOK\nBOARD K./..\nSCAN 0\nERR \n",
                "request 6 `FROB`: `ERR ` is not `ERR <text>`",
            ),
            (
                "HELLO 2\nOK\nOK\nBOARD K./..\nSCAN 0\nERR x\nBOARD K./..\n",
                "`BOARD K./..` answers no request",
            ),
            (
                "HELLO 2\nOK\nOK\nBOARD K./..\nSCAN 0\nERR x",
                "the last answer line has no newline",
            ),
        ] {
            assert_eq!(
                check_session(input, output.as_bytes()).map_err(|e| e.to_string()),
                Err(why.to_string()),
                "{output:?}"
            );
        }
        // Scan lines in row-major order only, and a last line without a newline is a request.
        let input = b"NEW 2 2\nPLACE b r 0 0\nPLACE w r 1 1\nSCAN THREAT";
        let output = "OK\nOK\nOK\nSCAN 2\n1 1\n0 0\n";
        let e = check_session(input, output.as_bytes()).unwrap_err();
        assert_eq!(e.request, Some((4, "SCAN THREAT".to_string())));
        assert_eq!(e.fault, Fault::NotRowMajor);
        let output = "OK\nOK\nOK\nSCAN 2\n0 0\n1 1\n";
        assert_eq!(check_session(input, output.as_bytes()), Ok(()));
    }
}
