//! The reference engine speaking the protocol: what `chessgrade serve`
//! runs. Every request is parsed and every answer formatted by this
//! module's parent, the same code the grader's process subject uses, and
//! every answer comes from the reference [`Game`], so grading `serve` on a
//! scenario must give exactly the reference trace.
//!
//! Answers are buffered and flushed only when no further request is
//! already waiting (the server would block on input), never per answer.

use super::{Capabilities, Hello, Request, ScanKind, V1, V2};
use crate::domain::Piece;
use crate::engine::{Game, Position, RuleSet, format_move};
use std::io::{self, BufRead, BufReader, Read, Write};

/// What the server holds: the rules, then the position being set up, then
/// the game once a step has been asked.
struct State {
    rules: RuleSet,
    setup: Option<Position>,
    game: Option<Game>,
    max_version: u32,
}

impl State {
    fn game(&mut self) -> Result<&mut Game, String> {
        if self.game.is_none() {
            let pos = self.setup.take().ok_or("no board: send NEW or FEN first")?;
            self.game = Some(Game::new(pos));
        }
        Ok(self.game.as_mut().expect("just made"))
    }

    fn setup_position(&mut self) -> Result<&mut Position, String> {
        self.setup
            .as_mut()
            .ok_or_else(|| "no board being set up: send NEW or FEN first".to_string())
    }
}

/// Serves requests from `input` until `QUIT` or end of input.
pub fn serve<R: Read>(input: R, output: impl Write) -> io::Result<()> {
    serve_version(input, output, V2)
}

/// Serves as an engine that speaks at most protocol `max_version` (a v1
/// engine answers `ERR` to `HELLO 2`, as a v1 engine must).
pub fn serve_version<R: Read>(
    input: R,
    mut output: impl Write,
    max_version: u32,
) -> io::Result<()> {
    let mut input = BufReader::with_capacity(64 << 10, input);
    let mut out = io::BufWriter::with_capacity(64 << 10, &mut output);
    let mut state = State {
        rules: RuleSet::lab3(),
        setup: None,
        game: None,
        max_version,
    };
    let mut line = String::new();
    loop {
        if input.buffer().is_empty() {
            out.flush()?; // about to block on input
        }
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        let text = line.trim_end_matches(['\n', '\r']);
        let request = match super::parse_request(text) {
            Ok(Request::Quit) => break,
            Ok(r) => r,
            Err(e) => {
                writeln!(out, "ERR {e}")?;
                continue;
            }
        };
        match answer(&mut state, request) {
            Ok(lines) => {
                for l in lines {
                    writeln!(out, "{l}")?;
                }
            }
            Err(e) => writeln!(out, "ERR {e}")?,
        }
    }
    out.flush()
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
fn answer(state: &mut State, request: Request) -> Result<Vec<String>, String> {
    let ok = || Ok(vec!["OK".to_string()]);
    match request {
        Request::Hello(v) if v == V2 && state.max_version >= V2 => Ok(vec![
            Hello {
                version: V2,
                caps: Capabilities {
                    scan: true,
                    fork: false,
                },
                name: Some("chessgrade-serve".into()),
            }
            .to_string(),
        ]),
        Request::Hello(v) if v == V1 => Ok(vec!["HELLO 1 chessgrade-serve".into()]),
        Request::Hello(_) => Err("unsupported protocol version".into()),
        _ if state.max_version < V2 && !is_v1(&request) => Err("unknown request".into()),
        Request::Rules(rules) => {
            state.rules = *rules;
            ok()
        }
        Request::New(dims) => {
            state.setup = Some(Position::new(state.rules, dims));
            state.game = None;
            ok()
        }
        Request::Fen(fen) => {
            state.setup = Some(Position::from_fen(state.rules, &fen).map_err(|e| e.to_string())?);
            state.game = None;
            ok()
        }
        Request::Place {
            color,
            role,
            square,
        } => {
            let pos = state.setup_position()?;
            if pos.dims().square(square.coord()).is_none() {
                return Err("square off the board".into());
            }
            pos.place(square, Piece::new(color, role));
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
            let moves = state.game()?.position().valid_moves();
            let mut lines = vec![format!("SCAN {}", moves.len())];
            lines.extend(moves.iter().map(|m| format!("{} {}", m.from, m.to)));
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
            let played = state.game()?.try_move(from, to, promotion).map(|_| ());
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
        Request::Begin | Request::End => {
            Err("sessions need the `fork` capability, which serve does not declare".into())
        }
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
            "HELLO 2 caps=scan name=chessgrade-serve\nOK\nOK\nOK\nOK\nBOARD ..../...p/..../K...\n1\nBOARD ..../...p/K.../....\n0\nSCAN 0\n"
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
}
