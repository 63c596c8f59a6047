//! What the reader needs to know of C++ text without compiling it:
//! whether a file defines `main` (a Lab 3 upload's driver is left out; a
//! folder with one is a program of its own) and which files it names in
//! `#include "..."` (so that a name written in another case can be
//! resolved as the student's machine did).

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

/// The `#include "..."` lines of a C++ text: (1-based line, the name as
/// written). Angle-bracket includes name the system's headers, not the
/// upload's.
pub(super) fn quoted_includes(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("include") else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix('"') else {
            continue;
        };
        if let Some(end) = rest.find('"') {
            out.push((i + 1, rest[..end].to_string()));
        }
    }
    out
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
    fn quoted_includes_are_read_with_their_lines() {
        let text = "#include <iostream>\n#include \"Knight.h\"\n  #  include \"..\\Header\\Board.h\" // x\nint x; // #include \"no.h\"\n#include \"cut";
        assert_eq!(
            quoted_includes(text),
            vec![
                (2, "Knight.h".to_string()),
                (3, "..\\Header\\Board.h".to_string())
            ]
        );
    }
}
