//! Errors that point into a file: `path:line:col: message`, then the
//! offending source line with a caret under the column.
//!
//! A diagnostic never carries more than a window of its source line (about
//! [`WINDOW`] characters around the column, `…` marking what is cut) nor a
//! message longer than [`MAX_MESSAGE`] characters: a hostile file with a
//! megabyte-long line gives a short error, not the line echoed back.

use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub path: Option<PathBuf>,
    /// 1-based; 0 when the error concerns the whole file (e.g. it is missing).
    pub line: usize,
    /// 1-based character column; 0 with `line` 0.
    pub col: usize,
    pub message: String,
    /// The text of `line` (a window of it around `col` when it is long),
    /// for the caret display.
    pub source_line: Option<String>,
    /// 1-based character column of the caret within `source_line`.
    caret: usize,
}

/// Characters of a long source line kept around the caret.
pub const WINDOW: usize = 100;
/// Characters of a message kept (the parser shortens tokens itself; this
/// is the backstop).
pub const MAX_MESSAGE: usize = 400;

/// At most `max` characters of `text`, with `…` when cut.
fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((byte, _)) => format!("{}…", &text[..byte]),
        None => text.to_string(),
    }
}

impl Diagnostic {
    pub fn at(line: usize, col: usize, message: impl Into<String>, source_line: &str) -> Self {
        // Keep a window of the line: from a little before the caret.
        let skip = col.saturating_sub(WINDOW / 3 + 1);
        let mut shown: String = source_line.chars().skip(skip).take(WINDOW).collect();
        let mut caret = col - skip;
        if skip > 0 {
            shown.insert(0, '…');
            caret += 1;
        }
        if source_line.chars().nth(skip + WINDOW).is_some() {
            shown.push('…');
        }
        Diagnostic {
            path: None,
            line,
            col,
            message: clip(&message.into(), MAX_MESSAGE),
            source_line: Some(shown),
            caret,
        }
    }

    /// An error about the file as a whole.
    pub fn file(path: &Path, message: impl Into<String>) -> Self {
        Diagnostic {
            path: Some(path.to_path_buf()),
            line: 0,
            col: 0,
            message: clip(&message.into(), MAX_MESSAGE),
            source_line: None,
            caret: 0,
        }
    }

    /// This diagnostic about the file `path`, unless it already names one
    /// (an error inside a rule file that a scenario names keeps the rule
    /// file's path).
    pub fn with_path(mut self, path: &Path) -> Self {
        if self.path.is_none() {
            self.path = Some(path.to_path_buf());
        }
        self
    }

    /// `path:line:col` (or just `path` for whole-file errors).
    pub fn location(&self) -> String {
        let path = self
            .path
            .as_deref()
            .map_or("<input>".to_string(), |p| p.display().to_string());
        if self.line == 0 {
            path
        } else {
            format!("{path}:{}:{}", self.line, self.col)
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location(), self.message)?;
        if let Some(src) = &self.source_line {
            let gutter = self.line.to_string().len();
            let shown: String = src
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            write!(f, "\n{:gutter$} |\n{} | {shown}", "", self.line)?;
            write!(
                f,
                "\n{:gutter$} | {:pad$}^",
                "",
                "",
                pad = self.caret.saturating_sub(1)
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_source_and_caret() {
        let d = Diagnostic::at(3, 3, "unknown piece `x`", "w x 1 2").with_path(Path::new("a.txt"));
        assert_eq!(
            d.to_string(),
            "a.txt:3:3: unknown piece `x`\n  |\n3 | w x 1 2\n  |   ^"
        );
    }

    #[test]
    fn long_lines_and_messages_are_cut_around_the_caret() {
        let line = format!("{}x{}", "a".repeat(5000), "b".repeat(5000));
        let d = Diagnostic::at(1, 5001, "m".repeat(10_000), &line);
        let text = d.to_string();
        assert!(text.len() < 1000, "{} bytes", text.len());
        let lines: Vec<&str> = text.lines().collect();
        let src = lines[2].strip_prefix("1 | ").unwrap();
        let caret = lines[3].strip_prefix("  | ").unwrap();
        // The caret sits under the `x`, whatever was cut before it.
        assert_eq!(src.chars().nth(caret.chars().count() - 1), Some('x'));
        assert!(src.starts_with('…') && src.ends_with('…'));
    }

    #[test]
    fn whole_file_errors_have_no_line() {
        let d = Diagnostic::file(Path::new("gone.txt"), "cannot read scenario: not found");
        assert_eq!(d.to_string(), "gone.txt: cannot read scenario: not found");
    }
}
