//! Whether a recorded session is well formed: every request line got its
//! answer in the shape docs/protocol.md gives it (read with the grader's
//! own answer parsers), or one `ERR <text>` line, in order, and nothing
//! else was written. This is the property the `serve` fuzz target
//! (`fuzz/fuzz_targets/serve.rs`) and `tests/serve.rs` hold `chessgrade
//! serve` to; any engine's session can be checked the same way.

use super::{Hello, Request, ScanKind, parse_request};
use crate::domain::{Dims, Square};
use crate::engine::{Position, RuleSet};

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
pub fn check_session(input: &[u8], output: &[u8]) -> Result<(), String> {
    let output =
        std::str::from_utf8(output).map_err(|e| format!("the answers are not UTF-8: {e}"))?;
    if !output.is_empty() && !output.ends_with('\n') {
        return Err("the last answer line has no newline".into());
    }
    let mut answers = output.lines();
    // The board's size, once a NEW or FEN was answered OK.
    let mut dims: Option<Dims> = None;
    for (i, line) in request_lines(input).enumerate() {
        let shown = String::from_utf8_lossy(line);
        let at = |why: String| format!("request {} `{}`: {why}", i + 1, super::shorten(&shown));
        let request = std::str::from_utf8(line)
            .ok()
            .map(|t| parse_request(t.trim_end_matches(['\n', '\r'])));
        if let Some(Ok(Request::Quit)) = request {
            break;
        }
        let first = answers.next().ok_or_else(|| at("no answer".into()))?;
        if first.starts_with("ERR") {
            check_err(first).map_err(at)?;
            continue;
        }
        let Some(Ok(request)) = request else {
            return Err(at(format!("answered `{first}`, not ERR")));
        };
        let mut more = |n: usize| -> Result<Vec<&str>, String> {
            let lines: Vec<&str> = answers.by_ref().take(n).collect();
            if lines.len() < n {
                return Err(at(format!("{n} lines announced, {} written", lines.len())));
            }
            Ok(lines)
        };
        let bad = |what: &str| at(format!("`{first}` is not {what}"));
        match &request {
            Request::Hello(_) => {
                if Hello::parse(first).is_err() {
                    return Err(bad("a HELLO answer"));
                }
            }
            Request::Rules(_) | Request::Place { .. } | Request::Turn(_) => {
                if first != "OK" {
                    return Err(bad("OK"));
                }
            }
            Request::New(d) => {
                if first != "OK" {
                    return Err(bad("OK"));
                }
                dims = Some(*d);
            }
            Request::Fen(fen) => {
                if first != "OK" {
                    return Err(bad("OK"));
                }
                let pos = Position::from_fen(RuleSet::lab3(), fen)
                    .map_err(|e| at(format!("OK to a FEN it should refuse: {e}")))?;
                dims = Some(pos.dims());
            }
            Request::Valid(..)
            | Request::Move(..)
            | Request::Threat(_)
            | Request::Undo
            | Request::Redo => {
                if super::parse_bool(first).is_none() {
                    return Err(bad("1 or 0"));
                }
            }
            Request::Board => {
                let d = dims.ok_or_else(|| at("a board before any NEW or FEN".into()))?;
                if super::parse_board(first, d).is_none() {
                    return Err(bad(&format!("a {}x{} BOARD", d.rows(), d.cols())));
                }
            }
            Request::Scan(kind) => {
                let d = dims.ok_or_else(|| at("a scan before any NEW or FEN".into()))?;
                let n = super::parse_count(first, "SCAN").ok_or_else(|| bad("SCAN <n>"))?;
                let lines = more(n)?;
                let keys: Vec<(Square, Square)> = match kind {
                    ScanKind::Valid => lines
                        .iter()
                        .map(|l| super::parse_valid_line(l, d).ok_or(l))
                        .collect::<Result<_, _>>(),
                    ScanKind::Threat => lines
                        .iter()
                        .map(|l| super::parse_threat_line(l, d).map(|s| (s, s)).ok_or(l))
                        .collect::<Result<_, _>>(),
                }
                .map_err(|l| at(format!("`{l}` is not a square of the board")))?;
                if !keys.windows(2).all(|w| w[0] < w[1]) {
                    return Err(at("scan lines not in row-major order".into()));
                }
            }
            Request::Play { .. } => {
                if super::parse_played(first).is_none() {
                    return Err(bad("OK or REFUSED <reason>"));
                }
            }
            Request::Status | Request::Stop => {
                if super::parse_status(first).is_none() {
                    return Err(bad("a STATUS"));
                }
            }
            Request::Score => {
                if super::parse_score(first).is_none() {
                    return Err(bad("a SCORE"));
                }
            }
            Request::Machine(_) => {
                if super::parse_machine(first).is_none() {
                    return Err(bad("a MACHINE answer"));
                }
            }
            Request::Save => {
                let n = super::parse_count(first, "SAVE").ok_or_else(|| bad("SAVE <n>"))?;
                for l in more(n)? {
                    if l.is_empty() || l.chars().any(char::is_control) {
                        return Err(at(format!("`{l}` is not a save file line")));
                    }
                }
            }
            Request::Perft(_) => {
                if super::parse_perft(first).is_none() {
                    return Err(bad("PERFT <count>"));
                }
            }
            Request::Divide(_) => {
                let n = super::parse_count(first, "DIVIDE").ok_or_else(|| bad("DIVIDE <n>"))?;
                for l in more(n)? {
                    if super::parse_divide_line(l).is_none() {
                        return Err(at(format!("`{l}` is not `<move> <count>`")));
                    }
                }
            }
            Request::Begin | Request::End | Request::Quit => {
                return Err(bad("an answer to this request (ERR, or nothing)"));
            }
        }
    }
    match answers.next() {
        None => Ok(()),
        Some(extra) => Err(format!("`{extra}` answers no request")),
    }
}

/// An `ERR` answer: `ERR `, then printable text.
fn check_err(line: &str) -> Result<(), String> {
    match line.strip_prefix("ERR ") {
        Some(text) if !text.trim().is_empty() && !text.chars().any(char::is_control) => Ok(()),
        _ => Err(format!("`{}` is not `ERR <text>`", line.escape_default())),
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
                check_session(input, output.as_bytes()),
                Err(why.to_string()),
                "{output:?}"
            );
        }
        // Scan lines in row-major order only, and a last line without a newline is a request.
        let input = b"NEW 2 2\nPLACE b r 0 0\nPLACE w r 1 1\nSCAN THREAT";
        let output = "OK\nOK\nOK\nSCAN 2\n1 1\n0 0\n";
        assert!(
            check_session(input, output.as_bytes())
                .unwrap_err()
                .contains("row-major")
        );
        let output = "OK\nOK\nOK\nSCAN 2\n0 0\n1 1\n";
        assert_eq!(check_session(input, output.as_bytes()), Ok(()));
    }
}
