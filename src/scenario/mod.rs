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
//! The parser (`parse.rs`) is a nom grammar, one small parser per kind of
//! line, with `nom_locate` spans for positions. Errors are [`Diagnostic`]s
//! carrying line and column, rendered with the source line and a caret.
//!
//! Hostile input is bounded here: [`load`] reads only regular files (never
//! blocking on a FIFO, never reading a device) under a size cap, the
//! parser is linear in its input, and messages echo tokens cut short. A
//! leading UTF-8 BOM is accepted; CR-only line endings, a BOM elsewhere and
//! conflicting directives are errors that say so (docs/scenarios.md).

mod ast;
mod parse;

pub use crate::input::{Diagnostic, ReadError, file_kind, human_bytes, read_regular_file, shown};
pub use ast::{Directives, Placement, Scenario, Step, StepKind, Visibility};
pub use parse::{parse, parse_bytes, parse_bytes_with, parse_with};

use crate::rulefile::RuleBook;
use std::path::Path;

/// The default cap on a scenario file's size: far above any real scenario
/// (the largest bundled one is a few KiB), far below what hurts.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 16 << 20;

/// The default cap on a trace's size (`--max-trace-mb`): here, beside the
/// other caps, so that the trace module reads it from below.
pub const DEFAULT_MAX_TRACE_BYTES: u64 = 64 << 20;

/// What a scenario may cost the grader itself: the largest scenario file
/// read and the largest trace it may produce (`--max-input-mb`,
/// `--max-trace-mb`). A value of the run, carried by each scenario it
/// finds (the runner's `Found`) and by its snapshot store, not a
/// process-wide setting: two runs in one process may differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    pub input_bytes: u64,
    pub trace_bytes: u64,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            input_bytes: DEFAULT_MAX_INPUT_BYTES,
            trace_bytes: DEFAULT_MAX_TRACE_BYTES,
        }
    }
}

/// Reads and parses a scenario file under the default size cap, its rules
/// found as [`RuleBook::default`] finds them (a built-in set, a rule file
/// its `@rules` names, or a `rules.toml` in its own folder): see
/// [`load_with`].
pub fn load(path: &Path) -> Result<Scenario, Diagnostic> {
    load_with(path, DEFAULT_MAX_INPUT_BYTES, &RuleBook::default())
}

/// Reads and parses a scenario file of at most `max` bytes, its rules
/// resolved by `book` (`@rules` files relative to the scenario, the
/// folders' `rules.toml`, `--rules`). Every failure (missing file, not a
/// regular file, too large, not UTF-8, malformed content, a bad rule file)
/// is a [`Diagnostic`] naming the file at fault.
pub fn load_with(path: &Path, max: u64, book: &RuleBook) -> Result<Scenario, Diagnostic> {
    let bytes = read_regular_file(path, max)
        .map_err(|why| Diagnostic::file(path, format!("cannot read scenario: {why}")))?;
    parse_bytes_with(&bytes, &book.for_scenario(path)).map_err(|d| d.with_path(path))
}
