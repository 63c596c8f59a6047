//! Errors that point into a file: `path:line:col: message`, then the
//! offending source line with a caret under the column.

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
    /// The text of `line`, for the caret display.
    pub source_line: Option<String>,
}

impl Diagnostic {
    pub fn at(line: usize, col: usize, message: impl Into<String>, source_line: &str) -> Self {
        Diagnostic {
            path: None,
            line,
            col,
            message: message.into(),
            source_line: Some(source_line.to_string()),
        }
    }

    /// An error about the file as a whole.
    pub fn file(path: &Path, message: impl Into<String>) -> Self {
        Diagnostic {
            path: Some(path.to_path_buf()),
            line: 0,
            col: 0,
            message: message.into(),
            source_line: None,
        }
    }

    pub fn with_path(mut self, path: &Path) -> Self {
        self.path = Some(path.to_path_buf());
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
                pad = self.col.saturating_sub(1)
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
    fn whole_file_errors_have_no_line() {
        let d = Diagnostic::file(Path::new("gone.txt"), "cannot read scenario: not found");
        assert_eq!(d.to_string(), "gone.txt: cannot read scenario: not found");
    }
}
