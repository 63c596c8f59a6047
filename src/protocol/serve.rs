//! The reference engine speaking the protocol: what `chessgrade serve`
//! runs. Every request is parsed and every answer formatted by this
//! module's parent, the same code the grader's process subject uses, and
//! every answer comes from the reference [`Game`], so grading `serve` on a
//! scenario must give exactly the reference trace.
//!
//! Answers are buffered and flushed only when no further request is
//! already waiting (the server would block on input), never per answer.

use super::{Capabilities, Hello, Request, ScanKind, ServeError, V1, V2};
use crate::domain::{Coord, Dims, Piece, Square};
use crate::engine::{Game, Position, RuleSet, format_move};
use std::io::{self, BufRead, BufReader, Read, Write};

/// What the server holds: the rules, then the position being set up, then
/// the game once a step has been asked.
struct State<'r> {
    rules: RuleSet,
    /// `serve --rules`: rule files that replace their family's built-in
    /// set when a `RULES` line names the family alone.
    replacing: &'r [RuleSet],
    setup: Option<Position>,
    game: Option<Game>,
    max_version: u32,
}

impl State<'_> {
    fn game(&mut self) -> Result<&mut Game, ServeError> {
        if self.game.is_none() {
            let pos = self.setup.take().ok_or(ServeError::NoBoard)?;
            self.game = Some(Game::new(pos));
        }
        Ok(self.game.as_mut().expect("just made"))
    }

    fn setup_position(&mut self) -> Result<&mut Position, ServeError> {
        self.setup.as_mut().ok_or(ServeError::NoSetup)
    }

    /// The size of the board being set up or played, if there is one.
    fn dims(&self) -> Option<Dims> {
        match (&self.setup, &self.game) {
            (Some(pos), _) => Some(pos.dims()),
            (None, Some(game)) => Some(game.position().dims()),
            (None, None) => None,
        }
    }
}

/// A `PLAY` square: on the game's board, or `None` (off it, like `- -`).
fn play_square(dims: Dims, coord: Option<Coord>) -> Option<Square> {
    coord.and_then(|c| dims.square(c))
}

/// Serves requests from `input` until `QUIT` or end of input.
pub fn serve<R: Read>(input: R, output: impl Write) -> io::Result<()> {
    serve_version(input, output, V2)
}

/// Serves as an engine that speaks at most protocol `max_version` (a v1
/// engine answers `ERR` to `HELLO 2`, as a v1 engine must).
pub fn serve_version<R: Read>(input: R, output: impl Write, max_version: u32) -> io::Result<()> {
    serve_with(input, output, max_version, &[])
}

/// [`serve_version`] with rule files (`serve --rules`): a `RULES` line
/// that names a family alone (`RULES lab3`) plays the file of that family
/// in `replacing`, as `run --rules` runs its scenarios.
pub fn serve_with<R: Read>(
    input: R,
    mut output: impl Write,
    max_version: u32,
    replacing: &[RuleSet],
) -> io::Result<()> {
    let mut input = BufReader::with_capacity(64 << 10, input);
    let mut out = io::BufWriter::with_capacity(64 << 10, &mut output);
    let mut state = State {
        rules: RuleSet::lab3(),
        replacing,
        setup: None,
        game: None,
        max_version,
    };
    let mut line = Vec::new();
    loop {
        if input.buffer().is_empty() {
            out.flush()?; // about to block on input
        }
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let request = match std::str::from_utf8(&line) {
            Ok(text) => super::parse_request(text.trim_end_matches(['\n', '\r'])),
            Err(_) => Err(super::RequestError::NotUtf8),
        };
        let request = match request {
            Ok(Request::Quit) => break,
            Ok(r) => r,
            Err(e) => {
                writeln!(out, "ERR {}", one_line(&e.to_string()))?;
                continue;
            }
        };
        match answer(&mut state, request) {
            Ok(lines) => {
                for l in lines {
                    writeln!(out, "{l}")?;
                }
            }
            Err(e) => writeln!(out, "ERR {}", one_line(&e.to_string()))?,
        }
    }
    out.flush()
}

/// An error's text as one printable line: a request's control characters
/// (a lone `\r`, an escape sequence) are quoted back escaped, so an `ERR`
/// answer is always one line of text.
fn one_line(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Requests protocol v1 has.
fn is_v1(request: &Request) -> bool {
    matches!(
        request,
        Request::New(_)
            | Request::Place { .. }
            | Request::Valid(..)
            | Request::Move(..)
            | Request::Threat(_)
            | Request::Board
            | Request::Quit
    )
}

fn bool_line(b: bool) -> Vec<String> {
    vec![super::format_bool(b).to_string()]
}

/// The answer lines to one request.
fn answer(state: &mut State, request: Request) -> Result<Vec<String>, ServeError> {
    let ok = || Ok(vec!["OK".to_string()]);
    match request {
        Request::Hello(v) if v == V2 && state.max_version >= V2 => Ok(vec![
            Hello {
                version: V2,
                caps: Capabilities {
                    scan: true,
                    fork: false,
                    rules: true,
                },
                name: Some("chessgrade-serve".into()),
            }
            .to_string(),
        ]),
        Request::Hello(v) if v == V1 => Ok(vec!["HELLO 1 chessgrade-serve".into()]),
        Request::Hello(_) => Err(ServeError::UnsupportedVersion),
        _ if state.max_version < V2 && !is_v1(&request) => Err(ServeError::NotInV1),
        Request::Rules(rules) => {
            let family = RuleSet {
                mystery: rules.mystery,
                ..rules.id.rules()
            };
            state.rules = match state.replacing.iter().find(|r| r.id == rules.id) {
                Some(file) if rules.same_rules(&family) => RuleSet {
                    mystery: rules.mystery,
                    ..*file
                },
                _ => *rules,
            };
            ok()
        }
        Request::New(dims) => {
            state.setup = Some(Position::new(state.rules, dims));
            state.game = None;
            ok()
        }
        Request::Fen(fen) => {
            state.setup = Some(Position::from_fen(state.rules, &fen)?);
            state.game = None;
            ok()
        }
        Request::Place {
            color,
            role,
            square,
        } => {
            // A course's piece the rules do not have is no piece (the
            // built-in letters are always placed, as before rule files).
            if role.is_course_piece() && !state.rules.knows(role) {
                return Err(ServeError::Request(super::RequestError::BadPiece));
            }
            // Off the board says so, whether the game has begun or not.
            let square = match state.dims() {
                Some(dims) => dims.check(square)?,
                None => return Err(ServeError::NoSetup),
            };
            state
                .setup_position()?
                .place(square, Piece::new(color, role));
            ok()
        }
        Request::Turn(color) => {
            state.setup_position()?.set_turn(color);
            ok()
        }
        Request::Valid(a, b) => Ok(bool_line(state.game()?.position().is_valid_move(a, b))),
        Request::Move(a, b) => Ok(bool_line(state.game()?.move_piece(a, b, None))),
        Request::Threat(a) => Ok(bool_line(state.game()?.position().is_piece_under_threat(a))),
        Request::Board => Ok(vec![format!(
            "BOARD {}",
            state.game()?.position().board_text()
        )]),
        Request::Scan(ScanKind::Valid) => {
            // One line per (from, to): a promotion is one move per role
            // it may promote to, but one square pair on the wire.
            let mut pairs: Vec<_> = (state.game()?.position().valid_moves().iter())
                .map(|m| (m.from(), m.to()))
                .collect();
            pairs.dedup();
            let mut lines = vec![format!("SCAN {}", pairs.len())];
            lines.extend(pairs.iter().map(|(from, to)| format!("{from} {to}")));
            Ok(lines)
        }
        Request::Scan(ScanKind::Threat) => {
            let squares = state.game()?.position().threatened_pieces();
            let mut lines = vec![format!("SCAN {}", squares.len())];
            lines.extend(squares.iter().map(|s| s.to_string()));
            Ok(lines)
        }
        Request::Play {
            from,
            to,
            promotion,
        } => {
            let game = state.game()?;
            let dims = game.position().dims();
            let (from, to) = (play_square(dims, from), play_square(dims, to));
            let played = game.try_move(from, to, promotion).map(|_| ());
            Ok(vec![super::format_played(played)])
        }
        Request::Undo => Ok(bool_line(state.game()?.undo())),
        Request::Redo => Ok(bool_line(state.game()?.redo())),
        Request::Status => Ok(vec![super::format_status(state.game()?.status())]),
        Request::Score => Ok(vec![super::format_score(state.game()?.scores())]),
        Request::Stop => Ok(vec![super::format_status(state.game()?.stop())]),
        Request::Machine(seed) => {
            let game = state.game()?;
            let (notation, dims) = (game.position().rules().notation, game.position().dims());
            let mv = game
                .machine_move(seed)
                .map(|mv| format_move(notation, dims, mv));
            Ok(vec![super::format_machine(mv.as_deref())])
        }
        Request::Save => {
            let lines = state.game()?.save();
            let mut out = vec![format!("SAVE {}", lines.len())];
            out.extend(lines);
            Ok(out)
        }
        Request::Perft(d) => Ok(vec![format!("PERFT {}", state.game()?.position().perft(d))]),
        Request::Divide(d) => {
            let lines = state.game()?.position().divide(d);
            let mut out = vec![format!("DIVIDE {}", lines.len())];
            out.extend(lines.into_iter().map(|(m, n)| format!("{m} {n}")));
            Ok(out)
        }
        Request::Begin | Request::End => Err(ServeError::NoFork),
        Request::Quit => Ok(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(input: &str) -> String {
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_lab3_session() {
        let out = session(
            "HELLO 2\nRULES lab3\nNEW 4 4\nPLACE w k 3 0\nPLACE b p 1 3\nBOARD\nMOVE 3 0 2 0\nBOARD\nTHREAT 1 3\nSCAN THREAT\nQUIT\nBOARD\n",
        );
        assert_eq!(
            out,
            "HELLO 2 caps=scan,rules name=chessgrade-serve\nOK\nOK\nOK\nOK\nBOARD ..../...p/..../K...\n1\nBOARD ..../...p/K.../....\n0\nSCAN 0\n"
        );
    }

    #[test]
    fn a_promotion_is_one_scan_line() {
        // Found by tests/it/serve.rs's proptest: four roles, one square pair.
        let out =
            session("RULES standard\nNEW 1 1\nFEN 4k3/P7/8/8/8/8/8/4K3 w - - 0 1\nSCAN VALID\n");
        assert_eq!(
            out,
            "OK\nOK\nOK\nSCAN 6\n1 0 0 0\n7 4 6 3\n7 4 6 4\n7 4 6 5\n7 4 7 3\n7 4 7 5\n"
        );
    }

    #[test]
    fn refusals_status_and_errors() {
        let out = session(
            "HELLO 2\nRULES jhu\nFEN 4k3/8/8/8/8/8/8/R3K3 w - - 0 1\nPLAY 7 0 7 5\nPLAY 7 4 - -\nSTATUS\nSCORE\nSAVE\nFROB\nHELLO 9\n",
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[3], "REFUSED path is not clear");
        assert_eq!(lines[4], "REFUSED end position is not on board");
        assert_eq!(lines[5], "STATUS ongoing");
        assert_eq!(lines[6], "SCORE 5 0");
        assert_eq!(lines[7], "SAVE 9");
        assert_eq!(lines[17], "ERR unknown request `FROB`");
        assert_eq!(lines[18], "ERR unsupported protocol version");
    }

    fn lines(input: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        serve(input, &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Squares off the board are checked against the board the request
    /// is about: `PLAY` refuses them as `- -` is refused, `PLACE` says
    /// where and how big, before and after the game begins.
    #[test]
    fn squares_off_the_board_are_answered_never_indexed() {
        let out = lines(
            b"RULES jhu\nNEW 8 8\nPLACE w q 3 8\nPLACE w q -1 0\nPLACE w q 300 300\n\
              PLACE w k 7 4\nPLACE b k 0 4\nPLAY 300 300 1 1\nPLAY 7 4 8 4\n\
              PLAY 7 4 -9223372036854775808 9223372036854775807\nPLACE w q 3 8\nPLACE w q 3 3\n\
              VALID 300 300 1 1\nMOVE 0 0 99999 2\nTHREAT -5 70000\nBOARD\n",
        );
        assert_eq!(
            out,
            [
                "OK",
                "OK",
                "ERR square 3 8 is off the 8x8 board",
                "ERR square -1 0 is off the 8x8 board",
                "ERR square 300 300 is off the 8x8 board",
                "OK",
                "OK",
                "REFUSED start position is not on board",
                "REFUSED end position is not on board",
                "REFUSED end position is not on board",
                // The game has begun: off the board still says so first.
                "ERR square 3 8 is off the 8x8 board",
                "ERR no board being set up: send NEW or FEN first",
                "0",
                "0",
                "0",
                "BOARD ....k.../......../......../......../......../......../......../....K...",
            ]
        );
        // A board of one row: (0, 1) is off it, (0, 0) is not.
        let out = lines(b"NEW 1 1\nPLACE w k 0 1\nPLACE w k 1 0\nPLACE w k 0 0\nBOARD\n");
        assert_eq!(
            out,
            [
                "OK",
                "ERR square 0 1 is off the 1x1 board",
                "ERR square 1 0 is off the 1x1 board",
                "OK",
                "BOARD K"
            ]
        );
        // No board at all.
        assert_eq!(
            lines(b"PLACE w q 3 8\nPLAY 0 0 1 1\nTURN w\n"),
            [
                "ERR no board being set up: send NEW or FEN first",
                "ERR no board: send NEW or FEN first",
                "ERR no board being set up: send NEW or FEN first",
            ]
        );
    }

    #[test]
    fn numbers_past_their_type_and_garbage_are_err_lines() {
        let out = lines(
            b"NEW 257 8\nNEW 99999999999999999999 1\nNEW 8 8\nPLACE w q 99999999999999999999 0\n\
              PERFT -1\nMACHINE 18446744073709551616\nHELLO 4294967296\n",
        );
        assert_eq!(
            out,
            [
                "ERR board size 257x8 is out of range: rows and columns must be between 1 and 256",
                "ERR `99999999999999999999` is not a number",
                "OK",
                "ERR `99999999999999999999` is not a number",
                "ERR `-1` is not a number",
                "ERR `18446744073709551616` is not a number",
                "ERR `4294967296` is not a number",
            ]
        );
    }

    /// Bytes that are not UTF-8, control characters and empty lines are
    /// answered with one `ERR` line each, and the server goes on.
    #[test]
    fn every_line_gets_one_printable_answer() {
        let out = lines(b"\xff\xfe\n\nFROB\x1b[2J\rX\nNEW 2 2\r\n\tBOARD\nBOARD\x00\n");
        assert_eq!(
            out,
            [
                "ERR request is not UTF-8 text",
                "ERR empty request",
                "ERR unknown request `FROB\\u{1b}[2J`",
                "OK",
                "BOARD ../..",
                "ERR unknown request `BOARD\\u{0}`",
            ]
        );
    }

    #[test]
    fn fen_errors_are_err_lines() {
        let out = lines(b"FEN 4k3/8/8/8/8/8/8/4K3 w Z - 0 1\nFEN 8/8 w\nFEN x\nFEN\n");
        assert_eq!(out.len(), 4, "{out:?}");
        assert_eq!(
            out[0],
            "ERR bad FEN castling field: file `Z` is off the board"
        );
        assert!(out.iter().all(|l| l.starts_with("ERR ")), "{out:?}");
    }
}
