//! Scenario files: the Lab 3 config format, parsed into typed steps.
//!
//! ```text
//! <points>
//! <rows> <cols>
//! <b|w> <k|q|r|b|n|p> <row> <col>     (any number of placements)
//! ~
//! movePiece r1 c1 r2 c2 | isValidScan | underThreatScan   (any number of steps)
//! ```
//!
//! `//` comment lines and blank lines may appear anywhere; CRLF and trailing
//! blanks are tolerated. Extensions live in `@key value` directive lines
//! before the points line (an `@` line is an error in the plain Lab 3
//! format, so no Lab 3 file changes meaning). Every step keeps its 1-based
//! source line, which traces and reports refer to.
//!
//! Errors are [`Diagnostic`]s carrying line and column, rendered with the
//! source line and a caret.

mod ast;
mod diagnostic;
mod parse;

pub use ast::{Directives, Placement, Scenario, Step, StepKind, Visibility};
pub use diagnostic::Diagnostic;
pub use parse::{parse, parse_bytes};

use std::path::Path;

/// Reads and parses a scenario file. Every failure (missing file, not UTF-8,
/// malformed content) is a [`Diagnostic`] naming the file.
pub fn load(path: &Path) -> Result<Scenario, Diagnostic> {
    let bytes = std::fs::read(path)
        .map_err(|e| Diagnostic::file(path, format!("cannot read scenario: {e}")))?;
    parse_bytes(&bytes).map_err(|d| d.with_path(path))
}
