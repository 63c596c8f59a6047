//! Lab 3 C++ uploads: the course's headers and `.cc` files, as students
//! upload them, compiled together with the protocol adapter shipped in
//! `adapters/lab3-cpp/` (embedded in the binary, so `chessgrade` works from
//! anywhere) in a temporary directory. A student file that defines its own
//! `main` (the course's custom-tests driver) is left out, with a note.

use super::{Build, BuildError, MAX_COMPILER_OUTPUT, run_with_timeout};
use crate::sandbox::EngineCommand;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The adapter's source, compiled with every C++ submission.
pub const LAB3_ADAPTER: &str = include_str!("../../adapters/lab3-cpp/adapter_main.cc");
const ADAPTER_FILE: &str = "chessgrade_adapter_main.cc";

/// The sources of a Lab 3 C++ submission.
#[derive(Debug, PartialEq, Eq)]
pub struct CppSources {
    /// The folder holding `ChessBoard.hh` (the include directory).
    pub include_dir: PathBuf,
    /// `.cc`/`.cpp` files to compile, sorted.
    pub sources: Vec<PathBuf>,
    /// Files left out because they define `main`.
    pub left_out: Vec<PathBuf>,
}

/// Finds a Lab 3 C++ submission in `dir` (directly or one folder down, as
/// archives often unpack).
pub fn find_cpp(dir: &Path) -> Result<CppSources, BuildError> {
    let header = walkdir::WalkDir::new(dir)
        .max_depth(2)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_name() == "ChessBoard.hh")
        .ok_or_else(|| {
            BuildError::NotRecognised(format!("no ChessBoard.hh in {}", dir.display()))
        })?;
    let include_dir = header.path().parent().unwrap_or(dir).to_path_buf();
    let mut sources = Vec::new();
    let mut left_out = Vec::new();
    let entries = std::fs::read_dir(&include_dir).map_err(|e| BuildError::Io(e.to_string()))?;
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let is_source = path.extension().is_some_and(|x| x == "cc" || x == "cpp");
        if !is_source {
            continue;
        }
        let text =
            std::fs::read(&path).map_err(|e| BuildError::Io(format!("{}: {e}", path.display())))?;
        if defines_main(&String::from_utf8_lossy(&text)) {
            left_out.push(path);
        } else {
            sources.push(path);
        }
    }
    sources.sort();
    left_out.sort();
    if sources.is_empty() {
        return Err(BuildError::NotRecognised(format!(
            "no .cc files beside {}",
            header.path().display()
        )));
    }
    Ok(CppSources {
        include_dir,
        sources,
        left_out,
    })
}

/// Does this C++ source define a `main` function? Comments and string
/// literals are skipped so a mention of "main(" there does not count.
pub fn defines_main(source: &str) -> bool {
    let code = strip_comments_and_strings(source);
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(i) = code[from..].find("main") {
        let at = from + i;
        from = at + 4;
        let before_ok = at == 0 || !is_ident(bytes[at - 1]);
        let rest = code[at + 4..].trim_start();
        let after_ok = rest.starts_with('(');
        // `int main(` / `auto main(`: a type word right before the name.
        let prev_word = code[..at]
            .trim_end()
            .rsplit(|c: char| !c.is_alphanumeric() && c != '_')
            .next()
            .unwrap_or("");
        if before_ok && after_ok && matches!(prev_word, "int" | "auto" | "void") {
            // A definition has a body: `{` after the parameter list.
            let has_body = rest
                .find(')')
                .is_some_and(|close| rest[close + 1..].trim_start().starts_with('{'));
            if has_body {
                return true;
            }
        }
    }
    false
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn strip_comments_and_strings(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
                out.push(' ');
            }
            '"' | '\'' => {
                let quote = c;
                while let Some(c) = chars.next() {
                    if c == '\\' {
                        chars.next();
                    } else if c == quote {
                        break;
                    }
                }
                out.push(' ');
            }
            c => out.push(c),
        }
    }
    out
}

/// Compiles a Lab 3 C++ submission with the adapter (`g++ -std=c++17`).
pub fn build_cpp(dir: &Path, compiler: &str, timeout: Duration) -> Result<Build, BuildError> {
    // The compiler runs in a temporary directory: give it absolute paths.
    let dir = dir
        .canonicalize()
        .map_err(|e| BuildError::NotRecognised(format!("{}: {e}", dir.display())))?;
    let found = find_cpp(&dir)?;
    let tmp = tempfile::Builder::new()
        .prefix("chessgrade-build-")
        .tempdir()
        .map_err(|e| BuildError::Io(e.to_string()))?;
    let adapter = tmp.path().join(ADAPTER_FILE);
    std::fs::write(&adapter, LAB3_ADAPTER).map_err(|e| BuildError::Io(e.to_string()))?;
    let engine = tmp.path().join("engine");
    let mut args: Vec<std::ffi::OsString> = vec![
        "-std=c++17".into(),
        "-O2".into(),
        "-o".into(),
        engine.clone().into(),
        adapter.clone().into(),
    ];
    args.extend(found.sources.iter().map(|p| p.clone().into_os_string()));
    args.push("-I".into());
    args.push(found.include_dir.clone().into_os_string());
    let output = run_with_timeout(compiler, args, tmp.path(), timeout)
        .map_err(|e| BuildError::Io(format!("{compiler}: {e}")))?;
    if !output.0 {
        let mut msg = output.1;
        if msg.len() > MAX_COMPILER_OUTPUT {
            let cut = (0..=MAX_COMPILER_OUTPUT)
                .rev()
                .find(|&i| msg.is_char_boundary(i))
                .unwrap_or(0);
            msg.truncate(cut);
            msg.push_str("\n… (compiler output cut)");
        }
        let shown = msg.replace(&format!("{}/", tmp.path().display()), "");
        return Err(BuildError::Compile(shown));
    }
    let notes = found
        .left_out
        .iter()
        .map(|p| format!("left out {}: it defines its own main()", p.display()))
        .collect();
    Ok(Build {
        command: EngineCommand {
            program: engine,
            args: Vec::new(),
        },
        notes,
        _dir: tmp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_definitions_are_found_and_mentions_are_not() {
        assert!(defines_main("int main() { return 0; }"));
        assert!(defines_main("int main(int argc, char** argv)\n{\n}"));
        assert!(!defines_main("// int main() {}\nvoid f();"));
        assert!(!defines_main("/* int main() { } */"));
        assert!(!defines_main("const char* s = \"int main() {}\";"));
        assert!(!defines_main("int domain(int x) { return x; }"));
        assert!(
            !defines_main("int main();"),
            "a declaration is not a definition"
        );
    }

    #[test]
    fn folders_without_the_lab3_header_are_not_recognised() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.cc"), "int f() { return 1; }").unwrap();
        assert!(matches!(
            find_cpp(dir.path()),
            Err(BuildError::NotRecognised(_))
        ));
    }

    #[test]
    fn stray_mains_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ChessBoard.hh"), "").unwrap();
        std::fs::write(dir.path().join("ChessBoard.cc"), "int f() { return 1; }").unwrap();
        std::fs::write(dir.path().join("main.cc"), "int main() { return 0; }").unwrap();
        let found = find_cpp(dir.path()).unwrap();
        assert_eq!(found.sources, vec![dir.path().join("ChessBoard.cc")]);
        assert_eq!(found.left_out, vec![dir.path().join("main.cc")]);
    }
}
