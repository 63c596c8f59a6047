//! Picking scenarios by name, like nextest's filters: each `--filter` is a
//! substring of the scenario name, or a glob when it holds `*`, `?` or `[`
//! (`globset` with literal separators: `*` and `?` never cross a `/`; `**`
//! as a whole path component does); `--exact` asks for the whole name. A
//! glob that does not compile (an unclosed `[`) is taken as a substring.
//! A scenario is kept when any filter matches; no filter keeps all.
//! Selection happens before partitioning, so slices split what was chosen.

use super::Found;

/// The scenario names a run is restricted to.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    patterns: Vec<Pattern>,
}

#[derive(Clone, Debug)]
enum Pattern {
    Substring(String),
    Exact(String),
    Glob(globset::GlobMatcher),
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
                let glob = || {
                    globset::GlobBuilder::new(&f)
                        .literal_separator(true)
                        .build()
                        .ok()
                };
                if let Some(glob) = f.contains(['*', '?', '[']).then(glob).flatten() {
                    Pattern::Glob(glob.compile_matcher())
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
                Pattern::Glob(g) => g.is_match(name),
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
