//! Picking scenarios by name, like nextest's filters: each `--filter` is a
//! substring of the scenario name, or a glob when it holds `*`, `?` or `[`
//! (`*` and `?` never cross a `/`; `**` does); `--exact` asks for the whole
//! name. A scenario is kept when any filter matches; no filter keeps all.
//! Selection happens before partitioning, so slices split what was chosen.

use super::Found;

/// The scenario names a run is restricted to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    patterns: Vec<Pattern>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Pattern {
    Substring(String),
    Exact(String),
    Glob(String),
}

impl Selection {
    /// Everything.
    pub fn all() -> Selection {
        Selection::default()
    }

    /// The filters as typed; `exact` makes every non-glob filter match the
    /// whole name only.
    pub fn new<S: AsRef<str>>(filters: &[S], exact: bool) -> Selection {
        let patterns = filters
            .iter()
            .map(|f| {
                let f = f.as_ref().to_string();
                if f.contains(['*', '?', '[']) {
                    Pattern::Glob(f)
                } else if exact {
                    Pattern::Exact(f)
                } else {
                    Pattern::Substring(f)
                }
            })
            .collect();
        Selection { patterns }
    }

    pub fn is_all(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether the scenario called `name` (its path relative to the root,
    /// `/`-separated) is selected.
    pub fn matches(&self, name: &str) -> bool {
        self.patterns.is_empty()
            || self.patterns.iter().any(|p| match p {
                Pattern::Substring(s) => name.contains(s.as_str()),
                Pattern::Exact(s) => name == s,
                Pattern::Glob(g) => glob_match(g.as_bytes(), name.as_bytes()),
            })
    }

    /// The discovered scenarios this selection keeps, in order.
    pub fn apply(&self, found: Vec<Found>) -> Vec<Found> {
        found
            .into_iter()
            .filter(|f| self.matches(&name_of(f)))
            .collect()
    }
}

/// A scenario's name with `/` separators on every platform.
pub fn name_of(found: &Found) -> String {
    found
        .rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Glob matching over bytes: `*` (within one path segment), `**` (across
/// segments), `?` (one byte but `/`), `[abc]` / `[a-z]` / `[!a]` classes.
fn glob_match(pat: &[u8], text: &[u8]) -> bool {
    match pat.first() {
        None => text.is_empty(),
        Some(b'*') if pat.get(1) == Some(&b'*') => {
            let rest = pat[2..].strip_prefix(b"/").unwrap_or(&pat[2..]);
            (0..=text.len()).any(|i| glob_match(rest, &text[i..]))
                || (0..=text.len()).any(|i| glob_match(&pat[2..], &text[i..]))
        }
        Some(b'*') => {
            let rest = &pat[1..];
            for i in 0..=text.len() {
                if glob_match(rest, &text[i..]) {
                    return true;
                }
                if text.get(i) == Some(&b'/') {
                    break;
                }
            }
            false
        }
        Some(b'?') => text.first().is_some_and(|&c| c != b'/') && glob_match(&pat[1..], &text[1..]),
        Some(b'[') => match (class_end(pat), text.first()) {
            (Some(end), Some(&c)) => {
                class_matches(&pat[1..end], c) && glob_match(&pat[end + 1..], &text[1..])
            }
            // An unclosed `[` is a literal.
            (None, Some(&c)) => c == b'[' && glob_match(&pat[1..], &text[1..]),
            (_, None) => false,
        },
        Some(&p) => text.first() == Some(&p) && glob_match(&pat[1..], &text[1..]),
    }
}

/// The index of the `]` closing the class that opens at `pat[0]`.
fn class_end(pat: &[u8]) -> Option<usize> {
    let start = if pat.get(1) == Some(&b'!') { 2 } else { 1 };
    // A `]` right after the opening is a member, not the end.
    pat.iter()
        .skip(start + 1)
        .position(|&b| b == b']')
        .map(|i| i + start + 1)
}

fn class_matches(class: &[u8], c: u8) -> bool {
    let (negate, class) = match class.split_first() {
        Some((b'!', rest)) => (true, rest),
        _ => (false, class),
    };
    let mut hit = false;
    let mut i = 0;
    while i < class.len() {
        if i + 2 < class.len() && class[i + 1] == b'-' {
            hit |= (class[i]..=class[i + 2]).contains(&c);
            i += 3;
        } else {
            hit |= class[i] == c;
            i += 1;
        }
    }
    hit != negate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substring_exact_and_glob() {
        let s = Selection::new(&["pawns"], false);
        assert!(s.matches("lab3/pawns/double_step.txt"));
        assert!(!s.matches("lab3/kings/x.txt"));
        let e = Selection::new(&["lab3/pawns"], true);
        assert!(!e.matches("lab3/pawns/double_step.txt"));
        assert!(Selection::new(&["a/b.txt"], true).matches("a/b.txt"));
        let g = Selection::new(&["lab3/*/d*.txt"], false);
        assert!(g.matches("lab3/pawns/double_step.txt"));
        assert!(
            !g.matches("lab3/pawns/x/double_step.txt"),
            "* stays in one segment"
        );
        assert!(Selection::new(&["lab3/**/d*.txt"], false).matches("lab3/pawns/x/double.txt"));
        assert!(Selection::new(&["**/x.txt"], false).matches("x.txt"));
        assert!(Selection::new(&["[ab]?.txt"], false).matches("b1.txt"));
        assert!(!Selection::new(&["[!ab]?.txt"], false).matches("b1.txt"));
        assert!(Selection::new(&["[a-c]1.txt"], false).matches("c1.txt"));
        assert!(Selection::new(&["[x"], false).matches("[x"));
    }

    #[test]
    fn any_filter_keeps_and_none_keeps_all() {
        let s = Selection::new(&["kings", "castle"], false);
        assert!(s.matches("a/kings.txt") && s.matches("castle/b.txt"));
        assert!(!s.matches("pawns.txt"));
        assert!(Selection::all().matches("anything"));
        assert!(Selection::all().is_all());
    }
}
