//! Subjects: whatever answers a scenario's calls. The built-in engine and an
//! external submission are two implementations of one trait, so the runner,
//! the traces and the comparisons never know which one they are driving.

mod engine;
mod process;

pub use engine::EngineSubject;
pub use process::{EngineCommand, Limits, PROTOCOL_VERSION, ProcessSubject};

use crate::domain::{Coord, Dims, Square};
use crate::engine::{BoardText, RuleSet};
use crate::scenario::Placement;
use std::fmt;

/// The Lab 3 calls, at the granularity of scenario steps: a subject that
/// talks to a process expands scans into single calls itself (and can
/// pipeline them); the engine answers a scan from one move generation.
pub trait Subject {
    /// A new board of `dims` with `placements` applied in order.
    fn setup(
        &mut self,
        rules: RuleSet,
        dims: Dims,
        placements: &[Placement],
    ) -> Result<(), SubjectError>;
    /// Every (from, to) for which isValidMove is true, sorted row-major.
    fn valid_scan(&mut self) -> Result<Vec<(Square, Square)>, SubjectError>;
    /// Every square for which isPieceUnderThreat is true, row-major.
    fn threat_scan(&mut self) -> Result<Vec<Square>, SubjectError>;
    fn move_piece(&mut self, from: Coord, to: Coord) -> Result<bool, SubjectError>;
    /// The whole board, as the subject sees it now.
    fn board(&mut self) -> Result<BoardText, SubjectError>;
    /// The scenario is over: release what the subject holds (a process).
    fn finish(&mut self) {}
    /// Debug output the subject produced (a submission's stderr), for reports.
    fn stderr_excerpt(&self) -> Option<String> {
        None
    }
}

/// Why a subject could not answer. The engine never fails; submissions do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SubjectError {
    /// Did not answer within the time limit.
    Timeout,
    /// Killed by a signal (its name, e.g. `SIGSEGV`).
    Crash(String),
    /// Answered something that is not a valid answer to the call.
    Malformed(String),
    /// Exited (with this status) before answering every call.
    ExitedEarly(Option<i32>),
    /// The grader could not talk to it at all.
    Io(String),
}

impl fmt::Display for SubjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SubjectError::Timeout => write!(f, "timeout"),
            SubjectError::Crash(signal) => write!(f, "crash ({signal})"),
            SubjectError::Malformed(what) => write!(f, "malformed answer: {what}"),
            SubjectError::ExitedEarly(Some(code)) => write!(f, "exited early (status {code})"),
            SubjectError::ExitedEarly(None) => write!(f, "exited early"),
            SubjectError::Io(e) => write!(f, "i/o error: {e}"),
        }
    }
}

impl std::error::Error for SubjectError {}
