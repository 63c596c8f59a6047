//! The engine line protocol (docs/protocol.md), versions 1 and 2, as types:
//! every request the grader sends and every answer an engine gives, with
//! one formatter and one parser each. The grader's process subject and
//! `chessgrade serve` (the reference engine speaking the protocol) both use
//! this module, so the two ends agree by construction and a change of
//! syntax is a change in one place.
//!
//! v1 mirrors the Lab 3 C++ interface call for call. v2 adds every rule set
//! and every scenario step, and optional capabilities an engine declares in
//! its handshake: `scan` (the engine expands a whole scan itself and answers
//! only the true results) and `fork` (a fork server: `BEGIN`/`END` bracket
//! one scenario in a fresh child of a ready parent).

mod error;
mod rules;
mod serve;
mod session;

pub use error::{HelloError, RequestError, ServeError};
use rules::{rule_tokens, rules_of_tokens};
pub use serve::{serve, serve_version, serve_with};
pub use session::{Fault, SessionError, check_session, request_lines};

use crate::domain::{Color, Coord, Dims, Role, Square};
use crate::engine::{GameStatus, MoveError, MysteryShape, RuleSet, RuleSetId, Scores};
use std::fmt;

/// The versions this build speaks; the grader asks for the newest first.
pub const V1: u32 = 1;
pub const V2: u32 = 2;

/// What an engine may declare it can do beyond the v2 core.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// `SCAN VALID` / `SCAN THREAT`.
    pub scan: bool,
    /// `BEGIN` / `END` sessions in forked children.
    pub fork: bool,
    /// `RULES` with a rule file's differences as `key=value` tokens: the
    /// engine plays a course's own rules (and pieces), not only the four
    /// built-in sets.
    pub rules: bool,
}

/// A handshake answer: `HELLO <version> [caps=a,b] [name=<free text>]`
/// (v1: `HELLO 1 [free text]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    pub version: u32,
    pub caps: Capabilities,
    pub name: Option<String>,
}

impl Hello {
    pub fn parse(line: &str) -> Result<Hello, HelloError> {
        let refused = || HelloError {
            answer: shorten(line),
        };
        let mut parts = line.splitn(3, ' ');
        if parts.next() != Some("HELLO") {
            return Err(refused());
        }
        let version: u32 = parts
            .next()
            .and_then(|v| v.parse().ok())
            .ok_or_else(refused)?;
        let rest = parts.next().unwrap_or("");
        let mut hello = Hello {
            version,
            caps: Capabilities::default(),
            name: None,
        };
        if version == V1 {
            hello.name = Some(rest.to_string()).filter(|s| !s.is_empty());
            return Ok(hello);
        }
        let mut rest = rest;
        while !rest.is_empty() {
            if let Some(name) = rest.strip_prefix("name=") {
                hello.name = Some(name.to_string());
                break;
            }
            let (token, tail) = rest.split_once(' ').unwrap_or((rest, ""));
            rest = tail;
            if let Some(caps) = token.strip_prefix("caps=") {
                for cap in caps.split(',').filter(|c| !c.is_empty()) {
                    match cap {
                        "scan" => hello.caps.scan = true,
                        "fork" => hello.caps.fork = true,
                        "rules" => hello.caps.rules = true,
                        _ => {} // a capability of a later version: not used
                    }
                }
            }
            // Unknown keys are ignored, for engines newer than this grader.
        }
        Ok(hello)
    }
}

impl fmt::Display for Hello {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HELLO {}", self.version)?;
        if self.version >= V2 {
            let caps: Vec<&str> = [
                (self.caps.scan, "scan"),
                (self.caps.fork, "fork"),
                (self.caps.rules, "rules"),
            ]
            .into_iter()
            .filter_map(|(on, n)| on.then_some(n))
            .collect();
            if !caps.is_empty() {
                write!(f, " caps={}", caps.join(","))?;
            }
            if let Some(name) = &self.name {
                write!(f, " name={name}")?;
            }
        } else if let Some(name) = &self.name {
            write!(f, " {name}")?;
        }
        Ok(())
    }
}

/// Which scan a `SCAN` request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanKind {
    Valid,
    Threat,
}

/// One request, grader → engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    Hello(u32),
    /// v2: the rule set (default `lab3`), with the Mystery piece's shape.
    Rules(Box<RuleSet>),
    New(Dims),
    /// v2: the board, side to move, castling and en passant of a FEN.
    Fen(String),
    /// The square as written: the parser does not know the board, so the
    /// engine checks it against its own ([`Dims::check`]).
    Place {
        color: Color,
        role: Role,
        square: Coord,
    },
    /// v2: who moves first.
    Turn(Color),
    Valid(Coord, Coord),
    Move(Coord, Coord),
    Threat(Coord),
    Board,
    /// v2 capability `scan`.
    Scan(ScanKind),
    /// v2: a `move` step; `None` is a square off the board (`- -`). The
    /// grader writes every square off the board as `- -`; a coordinate off
    /// the engine's board is refused the same way.
    Play {
        from: Option<Coord>,
        to: Option<Coord>,
        promotion: Option<Role>,
    },
    Undo,
    Redo,
    Status,
    Score,
    Stop,
    Machine(u64),
    Save,
    Perft(u32),
    Divide(u32),
    /// v2 capability `fork`: one scenario in a fresh child.
    Begin,
    End,
    Quit,
}

fn opt_square(f: &mut fmt::Formatter<'_>, sq: Option<Coord>) -> fmt::Result {
    match sq {
        Some(sq) => write!(f, "{sq}"),
        None => write!(f, "- -"),
    }
}

/// The `RULES` arguments: `lab3`, or `jhu mystery slider 5 1,1 ...`, with
/// (capability `rules`) what a rule file changes in its family as
/// `key=value` tokens before the Mystery clause: `standard en_passant=0
/// piece=A:BN value=A:7`.
fn write_rules(f: &mut fmt::Formatter<'_>, rules: &RuleSet) -> fmt::Result {
    write!(f, "{}", rules.id)?;
    for token in rule_tokens(rules) {
        write!(f, " {token}")?;
    }
    if let Some(shape) = &rules.mystery {
        let kind = if shape.slides { "slider" } else { "leaper" };
        write!(f, " mystery {kind} {}", shape.value)?;
        for (dr, dc) in canonical_offsets(shape) {
            write!(f, " {dr},{dc}")?;
        }
    }
    Ok(())
}

/// One offset per symmetry class of a shape's vectors (`(a, b)` with
/// `0 <= a <= b`): the shape rebuilt from them is the same shape.
pub fn canonical_offsets(shape: &MysteryShape) -> Vec<(i32, i32)> {
    let mut out: Vec<(i32, i32)> = Vec::new();
    for &(dr, dc) in shape.vectors() {
        let (a, b) = (dr.abs().min(dc.abs()), dr.abs().max(dc.abs()));
        if !out.contains(&(a, b)) {
            out.push((a, b));
        }
    }
    out
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Request::Hello(v) => write!(f, "HELLO {v}"),
            Request::Rules(rules) => {
                write!(f, "RULES ")?;
                write_rules(f, rules)
            }
            Request::New(dims) => write!(f, "NEW {} {}", dims.rows(), dims.cols()),
            Request::Fen(fen) => write!(f, "FEN {fen}"),
            Request::Place {
                color,
                role,
                square,
            } => write!(f, "PLACE {} {} {square}", color.letter(), role.letter()),
            Request::Turn(c) => write!(f, "TURN {}", c.letter()),
            Request::Valid(a, b) => write!(f, "VALID {a} {b}"),
            Request::Move(a, b) => write!(f, "MOVE {a} {b}"),
            Request::Threat(a) => write!(f, "THREAT {a}"),
            Request::Board => write!(f, "BOARD"),
            Request::Scan(ScanKind::Valid) => write!(f, "SCAN VALID"),
            Request::Scan(ScanKind::Threat) => write!(f, "SCAN THREAT"),
            Request::Play {
                from,
                to,
                promotion,
            } => {
                write!(f, "PLAY ")?;
                opt_square(f, *from)?;
                write!(f, " ")?;
                opt_square(f, *to)?;
                if let Some(p) = promotion {
                    write!(f, " {}", p.letter())?;
                }
                Ok(())
            }
            Request::Undo => write!(f, "UNDO"),
            Request::Redo => write!(f, "REDO"),
            Request::Status => write!(f, "STATUS"),
            Request::Score => write!(f, "SCORE"),
            Request::Stop => write!(f, "STOP"),
            Request::Machine(seed) => write!(f, "MACHINE {seed}"),
            Request::Save => write!(f, "SAVE"),
            Request::Perft(d) => write!(f, "PERFT {d}"),
            Request::Divide(d) => write!(f, "DIVIDE {d}"),
            Request::Begin => write!(f, "BEGIN"),
            Request::End => write!(f, "END"),
            Request::Quit => write!(f, "QUIT"),
        }
    }
}

fn int<T: std::str::FromStr>(tok: Option<&str>) -> Result<T, RequestError> {
    let tok = tok.ok_or(RequestError::MissingArgument)?;
    tok.parse().map_err(|_| RequestError::not_a_number(tok))
}

fn color(tok: Option<&str>) -> Result<Color, RequestError> {
    let mut chars = tok.unwrap_or_default().chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Color::from_letter(c).ok_or(RequestError::BadColour),
        _ => Err(RequestError::BadColour),
    }
}

fn role(tok: &str) -> Result<Role, RequestError> {
    let mut c = tok.chars();
    match (c.next(), c.next()) {
        (Some(ch), None) if ch.is_ascii_lowercase() => {
            Role::from_letter(ch).ok_or(RequestError::BadPiece)
        }
        _ => Err(RequestError::BadPiece),
    }
}

fn coord<'a>(toks: &mut impl Iterator<Item = &'a str>) -> Result<Coord, RequestError> {
    Ok(Coord::new(int(toks.next())?, int(toks.next())?))
}

/// A square of `PLACE` / `PLAY` as written: `None` for `- -`.
fn square<'a>(toks: &mut impl Iterator<Item = &'a str>) -> Result<Option<Coord>, RequestError> {
    let (r, c) = (toks.next(), toks.next());
    if r == Some("-") && c == Some("-") {
        return Ok(None);
    }
    Ok(Some(Coord::new(int(r)?, int(c)?)))
}

fn parse_rules<'a>(toks: impl Iterator<Item = &'a str>) -> Result<RuleSet, RequestError> {
    let mut toks = toks.peekable();
    let id: RuleSetId = toks
        .next()
        .ok_or(RequestError::MissingRuleSet)?
        .parse()
        .map_err(RequestError::RuleSet)?;
    let mut tokens = Vec::new();
    while let Some(token) = toks.next_if(|t| t.contains('=')) {
        tokens.push(token);
    }
    let mut rules = rules_of_tokens(id, &tokens)?;
    match toks.next() {
        None => {}
        Some("mystery") => {
            let slides = match toks.next() {
                Some("slider") => true,
                Some("leaper") => false,
                _ => return Err(RequestError::MysteryKind),
            };
            let value: u32 = int(toks.next())?;
            let mut offsets = Vec::new();
            for t in toks {
                let (a, b) = t.split_once(',').ok_or(RequestError::Offset)?;
                offsets.push((int(Some(a))?, int(Some(b))?));
            }
            rules.mystery =
                Some(MysteryShape::new(slides, &offsets, value).map_err(RequestError::Mystery)?);
        }
        Some(other) => return Err(RequestError::unexpected(other)),
    }
    Ok(rules)
}

/// Reads one request line (a trailing `\r` tolerated). The error says what
/// is wrong, for an `ERR` answer. Squares are read as written: whether they
/// lie on the board is the engine's to check, against its board.
pub fn parse_request(line: &str) -> Result<Request, RequestError> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if let Some(fen) = line.strip_prefix("FEN ") {
        return Ok(Request::Fen(fen.trim().to_string()));
    }
    let mut toks = line.split_ascii_whitespace();
    let cmd = toks.next().ok_or(RequestError::Empty)?;
    let req = match cmd {
        "HELLO" => Request::Hello(int(toks.next())?),
        "RULES" => return parse_rules(toks).map(|r| Request::Rules(Box::new(r))),
        "NEW" => {
            let (r, c): (i64, i64) = (int(toks.next())?, int(toks.next())?);
            Request::New(Dims::new(r, c).map_err(RequestError::BoardSize)?)
        }
        "PLACE" => {
            let color = color(toks.next())?;
            let role = role(toks.next().ok_or(RequestError::MissingPiece)?)?;
            let square = square(&mut toks)?.ok_or(RequestError::PlaceOffBoard)?;
            Request::Place {
                color,
                role,
                square,
            }
        }
        "TURN" => Request::Turn(color(toks.next())?),
        "VALID" => Request::Valid(coord(&mut toks)?, coord(&mut toks)?),
        "MOVE" => Request::Move(coord(&mut toks)?, coord(&mut toks)?),
        "THREAT" => Request::Threat(coord(&mut toks)?),
        "BOARD" => Request::Board,
        "SCAN" => match toks.next() {
            Some("VALID") => Request::Scan(ScanKind::Valid),
            Some("THREAT") => Request::Scan(ScanKind::Threat),
            _ => return Err(RequestError::ScanKind),
        },
        "PLAY" => Request::Play {
            from: square(&mut toks)?,
            to: square(&mut toks)?,
            promotion: toks.next().map(role).transpose()?,
        },
        "UNDO" => Request::Undo,
        "REDO" => Request::Redo,
        "STATUS" => Request::Status,
        "SCORE" => Request::Score,
        "STOP" => Request::Stop,
        "MACHINE" => Request::Machine(int(toks.next())?),
        "SAVE" => Request::Save,
        "PERFT" => Request::Perft(int(toks.next())?),
        "DIVIDE" => Request::Divide(int(toks.next())?),
        "BEGIN" => Request::Begin,
        "END" => Request::End,
        "QUIT" => Request::Quit,
        other => return Err(RequestError::unknown(other)),
    };
    match toks.next() {
        None => Ok(req),
        Some(extra) => Err(RequestError::unexpected(extra)),
    }
}

// ---------------------------------------------------------------------------
// answers

/// `1` / `0`.
pub fn parse_bool(answer: &str) -> Option<bool> {
    match answer {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

pub fn format_bool(b: bool) -> &'static str {
    if b { "1" } else { "0" }
}

/// `BOARD <rows joined by '/'>`, of exactly the board's shape and alphabet.
pub fn parse_board(answer: &str, dims: Dims) -> Option<crate::engine::BoardText> {
    let text = answer.strip_prefix("BOARD ")?;
    let mut rows = 0usize;
    for r in text.split('/') {
        rows += 1;
        let ok = r.len() == dims.cols() as usize
            && r.chars().all(|c| c == '.' || c.is_ascii_alphabetic());
        if !ok {
            return None;
        }
    }
    (rows == dims.rows() as usize).then(|| crate::engine::BoardText(text.to_string()))
}

/// Every refusal, in the order of [`MoveError`]'s checks.
pub const REFUSALS: [MoveError; 11] = MoveError::ALL;

/// `PLAY`'s answer: `OK` or `REFUSED <reason>` (the reason's message).
pub fn format_played(r: Result<(), MoveError>) -> String {
    match r {
        Ok(()) => "OK".into(),
        Err(e) => format!("REFUSED {}", e.message()),
    }
}

pub fn parse_played(answer: &str) -> Option<Result<(), MoveError>> {
    if answer == "OK" {
        return Some(Ok(()));
    }
    let reason = answer.strip_prefix("REFUSED ")?;
    REFUSALS
        .into_iter()
        .find(|e| e.message() == reason)
        .map(Err)
}

/// `STATUS <status>` (as traces write it: `checkmate white`, `stopped draw`).
pub fn format_status(s: GameStatus) -> String {
    format!("STATUS {s}")
}

pub fn parse_status(answer: &str) -> Option<GameStatus> {
    let text = answer.strip_prefix("STATUS ")?;
    let (word, side) = text.split_once(' ').unwrap_or((text, ""));
    let winner = match side {
        "white" => Some(Color::White),
        "black" => Some(Color::Black),
        _ => None,
    };
    Some(match (word, side) {
        ("ongoing", "") => GameStatus::Ongoing,
        ("check", "") => GameStatus::Check,
        ("stalemate", "") => GameStatus::Stalemate,
        ("checkmate", _) => GameStatus::Checkmate { winner: winner? },
        ("king-captured", _) => GameStatus::KingCaptured { winner: winner? },
        ("stopped", "draw") => GameStatus::Stopped { winner: None },
        ("stopped", _) => GameStatus::Stopped {
            winner: Some(winner?),
        },
        _ => return None,
    })
}

/// `SCORE <white> <black>`.
pub fn format_score(s: Scores) -> String {
    format!("SCORE {} {}", s.white, s.black)
}

pub fn parse_score(answer: &str) -> Option<Scores> {
    let mut t = answer.strip_prefix("SCORE ")?.split(' ');
    let white = t.next()?.parse().ok()?;
    let black = t.next()?.parse().ok()?;
    t.next().is_none().then_some(Scores { white, black })
}

/// `MACHINE <move in the rule set's notation>` or `MACHINE none` (a forfeit).
pub fn format_machine(m: Option<&str>) -> String {
    format!("MACHINE {}", m.unwrap_or("none"))
}

pub fn parse_machine(answer: &str) -> Option<Option<String>> {
    match answer.strip_prefix("MACHINE ")? {
        "none" => Some(None),
        "" => None,
        m => Some(Some(m.to_string())),
    }
}

/// `PERFT <count>`.
pub fn parse_perft(answer: &str) -> Option<u64> {
    answer.strip_prefix("PERFT ")?.parse().ok()
}

/// The head of a multi-line answer: `<word> <n>`, then `n` lines follow
/// (`SCAN`, `SAVE`, `DIVIDE`).
pub fn parse_count(answer: &str, word: &str) -> Option<usize> {
    answer.strip_prefix(word)?.strip_prefix(' ')?.parse().ok()
}

/// A `SCAN VALID` result line: `r1 c1 r2 c2`, on the board.
pub fn parse_valid_line(line: &str, dims: Dims) -> Option<(Square, Square)> {
    let mut t = line.split(' ');
    let mut sq = || -> Option<Square> {
        let r: i64 = t.next()?.parse().ok()?;
        let c: i64 = t.next()?.parse().ok()?;
        dims.square_at(r, c)
    };
    let (a, b) = (sq()?, sq()?);
    t.next().is_none().then_some((a, b))
}

/// A `SCAN THREAT` result line: `r c`, on the board.
pub fn parse_threat_line(line: &str, dims: Dims) -> Option<Square> {
    let mut t = line.split(' ');
    let r: i64 = t.next()?.parse().ok()?;
    let c: i64 = t.next()?.parse().ok()?;
    t.next().is_none().then(|| dims.square_at(r, c)).flatten()
}

/// A `DIVIDE` line: `<move> <count>`.
pub fn parse_divide_line(line: &str) -> Option<(String, u64)> {
    let (mv, n) = line.split_once(' ')?;
    (!mv.is_empty() && !mv.contains(' ')).then_some(())?;
    Some((mv.to_string(), n.parse().ok()?))
}

/// How a fork server's child ended: `ENDED exit <code>` / `ENDED signal <NAME>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    Exit(i32),
    Signal(String),
}

pub fn parse_ended(answer: &str) -> Option<Ended> {
    let rest = answer.strip_prefix("ENDED ")?;
    if let Some(code) = rest.strip_prefix("exit ") {
        return code.parse().ok().map(Ended::Exit);
    }
    rest.strip_prefix("signal ")
        .filter(|s| !s.is_empty())
        .map(|s| Ended::Signal(s.to_string()))
}

/// At most 80 characters of `s`, for messages.
pub fn shorten(s: &str) -> String {
    const MAX: usize = 80;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_reads_back_as_itself() {
        let dims = Dims::new(8, 8).unwrap();
        let sq = Coord::new;
        let mystery = RuleSet {
            mystery: Some(MysteryShape::new(false, &[(1, 3)], 4).unwrap()),
            ..RuleSet::jhu()
        };
        for req in [
            Request::Hello(2),
            Request::Rules(Box::new(RuleSet::cuhk())),
            Request::Rules(Box::new(mystery)),
            Request::New(dims),
            Request::Fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1".into()),
            Request::Place {
                color: Color::White,
                role: Role::Mystery,
                square: sq(7, 0),
            },
            Request::Place {
                color: Color::Black,
                role: Role::King,
                square: sq(-1, 300),
            },
            Request::Turn(Color::Black),
            Request::Valid(Coord::new(-1, 0), Coord::new(3, 300)),
            Request::Move(Coord::new(6, 4), Coord::new(4, 4)),
            Request::Threat(Coord::new(0, 0)),
            Request::Board,
            Request::Scan(ScanKind::Valid),
            Request::Scan(ScanKind::Threat),
            Request::Play {
                from: Some(sq(1, 0)),
                to: Some(sq(0, 0)),
                promotion: Some(Role::Knight),
            },
            Request::Play {
                from: None,
                to: Some(sq(0, 0)),
                promotion: None,
            },
            Request::Play {
                from: Some(sq(300, 300)),
                to: Some(sq(i64::MIN, i64::MAX)),
                promotion: None,
            },
            Request::Undo,
            Request::Redo,
            Request::Status,
            Request::Score,
            Request::Stop,
            Request::Machine(u64::MAX),
            Request::Save,
            Request::Perft(3),
            Request::Divide(2),
            Request::Begin,
            Request::End,
            Request::Quit,
        ] {
            let text = req.to_string();
            assert_eq!(parse_request(&text), Ok(req.clone()), "{text}");
        }
        assert_eq!(
            Request::Rules(Box::new(mystery)).to_string(),
            "RULES jhu mystery leaper 4 1,3"
        );
    }

    #[test]
    fn bad_requests_say_why() {
        let err = |line: &str| parse_request(line).unwrap_err();
        assert!(matches!(err("NEW 0 8"), RequestError::BoardSize(_)));
        assert!(err("NEW 0 8").to_string().contains("out of range"));
        assert_eq!(err("PLACE x k 0 0"), RequestError::BadColour);
        assert_eq!(err("BOARD extra").to_string(), "unexpected `extra`");
        assert_eq!(err("FROB").to_string(), "unknown request `FROB`");
        assert!(matches!(err("RULES chess960"), RequestError::RuleSet(_)));
        // The messages on the wire, one per error.
        for (line, message) in [
            ("", "empty request"),
            ("   ", "empty request"),
            ("NEW 8", "missing argument"),
            ("NEW 8 x", "`x` is not a number"),
            ("PERFT -1", "`-1` is not a number"),
            (
                "PLAY 99999999999999999999 0 1 1",
                "`99999999999999999999` is not a number",
            ),
            ("PLACE w", "missing piece"),
            ("PLACE w kk 0 0", "bad piece"),
            ("PLACE w K 0 0", "bad piece"),
            ("TURN", "bad colour"),
            ("PLACE w k - -", "square off the board"),
            ("SCAN", "expected `SCAN VALID` or `SCAN THREAT`"),
            ("RULES", "missing rule set"),
            (
                "RULES jhu mystery hopper",
                "expected `mystery leaper|slider <value> <dr,dc>...`",
            ),
            ("RULES jhu mystery leaper 3 1;2", "offsets are `dr,dc`"),
            ("RULES lab3 extra", "unexpected `extra`"),
            ("PLAY 1 1 2 2 q q", "unexpected `q`"),
        ] {
            assert_eq!(err(line).to_string(), message, "{line:?}");
        }
        assert!(matches!(
            err("RULES jhu mystery leaper 3 0,0"),
            RequestError::Mystery(_)
        ));
        // A long token is quoted shortened.
        let long = "Z".repeat(500);
        assert!(err(&long).to_string().len() < 120);
        // Squares are the engine's to check: any i64 reads.
        assert_eq!(
            parse_request("PLACE w q 3 8"),
            Ok(Request::Place {
                color: Color::White,
                role: Role::Queen,
                square: Coord::new(3, 8)
            })
        );
    }

    #[test]
    fn handshakes_of_both_versions() {
        let v2 = Hello::parse("HELLO 2 caps=scan,fork name=my engine 1.0").unwrap();
        assert_eq!(v2.version, 2);
        assert_eq!(
            v2.caps,
            Capabilities {
                scan: true,
                fork: true,
                rules: false,
            }
        );
        let rules = Hello::parse("HELLO 2 caps=rules,scan").unwrap();
        assert!(rules.caps.rules && rules.caps.scan && !rules.caps.fork);
        assert_eq!(rules.to_string(), "HELLO 2 caps=scan,rules");
        assert_eq!(v2.name.as_deref(), Some("my engine 1.0"));
        assert_eq!(Hello::parse(&v2.to_string()), Ok(v2));
        let v1 = Hello::parse("HELLO 1 lab3-cpp-adapter").unwrap();
        assert_eq!((v1.version, v1.caps), (1, Capabilities::default()));
        assert_eq!(
            Hello::parse("HELO 2").unwrap_err().to_string(),
            "expected `HELLO <version>`, got `HELO 2`"
        );
        assert!(Hello::parse("HELLO two").is_err());
        let plain = Hello::parse("HELLO 2").unwrap();
        assert_eq!(plain.caps, Capabilities::default());
    }

    #[test]
    fn answers_read_back() {
        for s in [
            GameStatus::Ongoing,
            GameStatus::Check,
            GameStatus::Checkmate {
                winner: Color::Black,
            },
            GameStatus::Stalemate,
            GameStatus::KingCaptured {
                winner: Color::White,
            },
            GameStatus::Stopped { winner: None },
            GameStatus::Stopped {
                winner: Some(Color::White),
            },
        ] {
            assert_eq!(parse_status(&format_status(s)), Some(s));
        }
        assert_eq!(parse_status("STATUS checkmate"), None);
        for e in REFUSALS {
            assert_eq!(parse_played(&format_played(Err(e))), Some(Err(e)));
        }
        assert_eq!(parse_played("OK"), Some(Ok(())));
        assert_eq!(parse_played("REFUSED nope"), None);
        let sc = Scores { white: 3, black: 9 };
        assert_eq!(parse_score(&format_score(sc)), Some(sc));
        assert_eq!(parse_machine("MACHINE none"), Some(None));
        assert_eq!(parse_machine("MACHINE A2 A3"), Some(Some("A2 A3".into())));
        assert_eq!(
            parse_ended("ENDED signal SIGSEGV"),
            Some(Ended::Signal("SIGSEGV".into()))
        );
        assert_eq!(parse_ended("ENDED exit 3"), Some(Ended::Exit(3)));
        let dims = Dims::new(4, 4).unwrap();
        assert_eq!(parse_valid_line("0 0 4 0", dims), None, "off the board");
        assert!(parse_board("BOARD M.../..../..../...k", dims).is_some());
        assert!(parse_board("BOARD M.../..../..../...", dims).is_none());
        assert_eq!(parse_bool("true"), None);
    }
}
