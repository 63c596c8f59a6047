//! Why a protocol line was refused, as types. Each error's `Display` is the
//! text of the engine's `ERR <text>` answer (or of the grader's "malformed
//! answer" report), exactly as docs/protocol.md and the engines show it.

use super::shorten;
use crate::domain::{BoardSizeError, OffBoard};
use crate::engine::FenError;
use std::fmt;

/// Why a request line does not read as a [`super::Request`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestError {
    /// `empty request`
    Empty,
    /// `request is not UTF-8 text`
    NotUtf8,
    /// ``unknown request `FROB` ``
    Unknown(String),
    /// `missing argument`: a number is missing.
    MissingArgument,
    /// `` `x` is not a number `` (or not one of the argument's type, as
    /// `-1` for a depth or `99999999999999999999` for a coordinate).
    NotANumber(String),
    /// `bad colour`
    BadColour,
    /// `missing piece`
    MissingPiece,
    /// `bad piece`
    BadPiece,
    /// `PLACE` at `- -`: `square off the board`.
    PlaceOffBoard,
    /// `NEW` with a size out of range.
    BoardSize(BoardSizeError),
    /// `` expected `SCAN VALID` or `SCAN THREAT` ``
    ScanKind,
    /// `missing rule set`
    MissingRuleSet,
    /// A rule set this build does not know (the rule set parser's message).
    RuleSet(String),
    /// `` expected `mystery leaper|slider <value> <dr,dc>...` ``
    MysteryKind,
    /// `` offsets are `dr,dc` ``
    Offset,
    /// A Mystery shape the engine refuses.
    Mystery(crate::engine::BadShape),
    /// A `RULES` `key=value` token that does not read (its message).
    RuleToken(String),
    /// ``unexpected `extra` ``: a token after the request's last argument.
    Unexpected(String),
}

impl RequestError {
    /// `text` shortened for a message (see [`shorten`]).
    pub(super) fn not_a_number(text: &str) -> RequestError {
        RequestError::NotANumber(shorten(text))
    }

    pub(super) fn unexpected(text: &str) -> RequestError {
        RequestError::Unexpected(shorten(text))
    }

    pub(super) fn unknown(text: &str) -> RequestError {
        RequestError::Unknown(shorten(text))
    }
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestError::Empty => f.write_str("empty request"),
            RequestError::NotUtf8 => f.write_str("request is not UTF-8 text"),
            RequestError::Unknown(cmd) => write!(f, "unknown request `{cmd}`"),
            RequestError::MissingArgument => f.write_str("missing argument"),
            RequestError::NotANumber(tok) => write!(f, "`{tok}` is not a number"),
            RequestError::BadColour => f.write_str("bad colour"),
            RequestError::MissingPiece => f.write_str("missing piece"),
            RequestError::BadPiece => f.write_str("bad piece"),
            RequestError::PlaceOffBoard => f.write_str("square off the board"),
            RequestError::BoardSize(e) => e.fmt(f),
            RequestError::ScanKind => f.write_str("expected `SCAN VALID` or `SCAN THREAT`"),
            RequestError::MissingRuleSet => f.write_str("missing rule set"),
            RequestError::RuleSet(why) => f.write_str(why),
            RequestError::Mystery(why) => write!(f, "{why}"),
            RequestError::MysteryKind => {
                f.write_str("expected `mystery leaper|slider <value> <dr,dc>...`")
            }
            RequestError::Offset => f.write_str("offsets are `dr,dc`"),
            RequestError::RuleToken(why) => f.write_str(why),
            RequestError::Unexpected(tok) => write!(f, "unexpected `{tok}`"),
        }
    }
}

impl std::error::Error for RequestError {}

/// A handshake answer that is not `HELLO <version> ...`: the answer,
/// shortened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelloError {
    pub answer: String,
}

impl fmt::Display for HelloError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected `HELLO <version>`, got `{}`", self.answer)
    }
}

impl std::error::Error for HelloError {}

/// Why `chessgrade serve` answers a request `ERR`: the request does not
/// read, or it cannot be served in the server's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServeError {
    Request(RequestError),
    /// `HELLO` with a version the server does not speak.
    UnsupportedVersion,
    /// A v2 request to a server that speaks only v1: `unknown request`.
    NotInV1,
    /// A game request before any `NEW` or `FEN`.
    NoBoard,
    /// `PLACE` / `TURN` with no board being set up (none yet, or the
    /// game has begun).
    NoSetup,
    /// `PLACE` on a square off the board.
    OffBoard(OffBoard),
    /// A `FEN` the engine refuses.
    Fen(FenError),
    /// `BEGIN` / `END` without the `fork` capability.
    NoFork,
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Request(e) => e.fmt(f),
            ServeError::UnsupportedVersion => f.write_str("unsupported protocol version"),
            ServeError::NotInV1 => f.write_str("unknown request"),
            ServeError::NoBoard => f.write_str("no board: send NEW or FEN first"),
            ServeError::NoSetup => f.write_str("no board being set up: send NEW or FEN first"),
            ServeError::OffBoard(e) => e.fmt(f),
            ServeError::Fen(e) => e.fmt(f),
            ServeError::NoFork => {
                f.write_str("sessions need the `fork` capability, which serve does not declare")
            }
        }
    }
}

impl std::error::Error for ServeError {}

impl From<RequestError> for ServeError {
    fn from(e: RequestError) -> ServeError {
        ServeError::Request(e)
    }
}

impl From<OffBoard> for ServeError {
    fn from(e: OffBoard) -> ServeError {
        ServeError::OffBoard(e)
    }
}

impl From<FenError> for ServeError {
    fn from(e: FenError) -> ServeError {
        ServeError::Fen(e)
    }
}
