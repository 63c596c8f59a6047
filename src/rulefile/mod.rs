//! A course's own rules, as a file: rule files read into
//! [`RuleSet`]s, the built-in sets written out as such files, and the
//! [`RuleBook`] that decides which rules each scenario runs under.
//!
//! A rule file is TOML (docs/course-rules.md). It names the set it
//! changes (`extends`: a built-in set or another rule file) and says what
//! differs: castling, en passant, promotion letters, what ends a game, a
//! start position of any size, and pieces of its own in Betza notation.
//! Read, it is the same [`RuleSet`] the built-in sets are, so the engine,
//! the graders and the reports serve it with the same code.
//!
//! # Which rules a scenario runs under
//!
//! A scenario's `@rules` line names a built-in set (`standard`; none means
//! `lab3`) or a rule file (`@rules ../capablanca.toml`, relative to the
//! scenario's folder, else to `--root`). A built-in name means that
//! *family* of rules: where a rule file extending it applies, the file
//! takes its place. Two things put a file in place, so that a course
//! switches a whole suite without touching its scenarios (whose line
//! numbers the traces carry):
//!
//! - `--rules FILE` on `run` and `grade` (one file per family), and
//! - a `rules.toml` in the scenario's folder or a folder above it, up to
//!   the scenario root (the nearest one of the scenario's family wins).
//!
//! Where both apply to one scenario and say different things, that is an
//! error for the scenario, never a silent choice. A file named by the
//! scenario itself is used as it is.
//!
//! Every rule file error is a [`Diagnostic`] at the key, value or very
//! character at fault, and the batch goes on.

mod read;
mod show;

pub use read::KEYS;
pub use show::show;

use crate::engine::{RuleSet, RuleSetId};
use crate::input::{Diagnostic, read_regular_file, shown};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// The name of a folder's rule file.
pub const FOLDER_FILE: &str = "rules.toml";

/// The largest rule file read (far above any real one).
pub const MAX_RULE_FILE_BYTES: u64 = 1 << 20;

/// How deep `extends` may chain files.
const MAX_EXTENDS: usize = 16;

/// What an `extends` names, loaded: `(value, the file that says it)`.
pub(crate) type Extends<'a> = dyn FnMut(&str, &Path) -> Result<RuleSet, ExtendsError> + 'a;

/// Why an `extends` value could not be loaded.
pub(crate) enum ExtendsError {
    /// A message at the `extends` value (an unknown name, a loop).
    Message(String),
    /// An error inside the file it names.
    File(Diagnostic),
}

/// Why a scenario's rules could not be found.
#[derive(Debug)]
pub enum RulesError {
    /// A message about the scenario's `@rules` line (or its rules as a
    /// whole: two files that disagree).
    Here(String),
    /// An error inside a rule file, at its own place.
    InFile(Diagnostic),
}

/// A `&'static` copy of `text`, kept once per distinct text (rule set
/// names and start positions; see `engine::PieceTable` on why rule sets
/// hold `'static` data).
pub(crate) fn intern(text: String) -> &'static str {
    static TEXTS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut texts = TEXTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(&known) = texts.get(text.as_str()) {
        return known;
    }
    let leaked: &'static str = Box::leak(text.into_boxed_str());
    texts.insert(leaked);
    leaked
}

/// Reads the rule file at `path`, following its `extends`.
pub fn load(path: &Path) -> Result<RuleSet, Diagnostic> {
    load_chain(path, &mut Vec::new())
}

fn load_chain(path: &Path, chain: &mut Vec<PathBuf>) -> Result<RuleSet, Diagnostic> {
    let bytes = read_regular_file(path, MAX_RULE_FILE_BYTES).map_err(|why| {
        Diagnostic::file(
            path,
            format!("cannot read rule file: {}", why.at_fixed_cap()),
        )
    })?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|_| Diagnostic::file(path, "a rule file is UTF-8 text: this one is not"))?;
    chain.push(path.canonicalize().unwrap_or_else(|_| path.to_path_buf()));
    let mut extends = |named: &str, from: &Path| -> Result<RuleSet, ExtendsError> {
        if let Some(rules) = read::built_in(named) {
            return Ok(rules);
        }
        if !looks_like_a_file(named) {
            let known: Vec<_> = RuleSetId::ALL.iter().map(|id| id.name()).collect();
            return Err(ExtendsError::Message(format!(
                "unknown rule set `{}` (known: {}, or a rule file's path ending in .toml)",
                shown(named),
                known.join(", ")
            )));
        }
        let target = from.parent().unwrap_or(Path::new(".")).join(named);
        let canonical = target.canonicalize().unwrap_or_else(|_| target.clone());
        if chain.contains(&canonical) {
            return Err(ExtendsError::Message(format!(
                "`{}` extends itself through a loop of rule files",
                shown(named)
            )));
        }
        if chain.len() >= MAX_EXTENDS {
            return Err(ExtendsError::Message(format!(
                "rule files extend each other more than {MAX_EXTENDS} deep"
            )));
        }
        load_chain(&target, chain).map_err(ExtendsError::File)
    };
    let rules = read::read(path, text, &mut extends);
    chain.pop();
    rules
}

/// Is `named` a rule file's path rather than a built-in set's name?
fn looks_like_a_file(named: &str) -> bool {
    named.ends_with(".toml") || named.contains('/')
}

/// A built-in set's name or a rule file's path, for the commands that
/// take one set (`perft`, `gen`, `serve`, `rules show`).
pub fn named(text: &str) -> Result<RuleSet, Diagnostic> {
    match text.parse::<RuleSetId>() {
        Ok(id) => Ok(id.rules()),
        Err(_) if looks_like_a_file(text) || Path::new(text).is_file() => load(Path::new(text)),
        Err(why) => Err(Diagnostic::file(
            Path::new(text),
            format!("{why}, or a rule file's path ending in .toml"),
        )),
    }
}

/// The rules a scenario runs under, and the rule file they come from
/// (`None`: a built-in set).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub rules: RuleSet,
    pub file: Option<PathBuf>,
}

impl Resolved {
    fn built_in(rules: RuleSet) -> Resolved {
        Resolved { rules, file: None }
    }
}

/// Which rules each scenario runs under (see the module doc): the
/// `--rules` files, the scenario root, and the rule files read so far.
#[derive(Debug, Default)]
pub struct RuleBook {
    /// Every scenario runs under these (a scenario rebuilt from another,
    /// as `shrink` does, runs under the rules of the one it came from).
    fixed: Option<Resolved>,
    /// Where folder files are looked for, upwards from a scenario: up to
    /// and including this folder (canonical); `None`: the scenario's own
    /// folder only.
    root: Option<PathBuf>,
    /// `--rules` files, one per family.
    replacing: Vec<(PathBuf, RuleSet)>,
    /// Rule files read, by canonical path (a bad one's error too).
    read: Mutex<HashMap<PathBuf, Result<RuleSet, Diagnostic>>>,
}

impl RuleBook {
    /// A book for a run: folder files looked for up to `root`, and the
    /// `--rules` files, read now (a bad one, or two for one family, is the
    /// staff's error, before anything runs).
    pub fn new(root: Option<&Path>, rules_files: &[PathBuf]) -> Result<RuleBook, Diagnostic> {
        let mut replacing: Vec<(PathBuf, RuleSet)> = Vec::new();
        for file in rules_files {
            let rules = load(file)?;
            if let Some((other, _)) = replacing.iter().find(|(_, r)| r.id == rules.id) {
                return Err(Diagnostic::file(
                    file,
                    format!(
                        "two --rules files for the {} scenarios: {} and {} (give one per family)",
                        rules.id,
                        other.display(),
                        file.display()
                    ),
                ));
            }
            replacing.push((file.clone(), rules));
        }
        Ok(RuleBook {
            fixed: None,
            root: root.and_then(|r| r.canonicalize().ok()),
            replacing,
            read: Mutex::default(),
        })
    }

    /// A book under which every scenario runs under `resolved`, whatever
    /// its `@rules` says.
    pub fn fixed(resolved: Resolved) -> RuleBook {
        RuleBook {
            fixed: Some(resolved),
            ..RuleBook::default()
        }
    }

    /// The rules of the scenario file `path`.
    pub fn for_scenario<'a>(&'a self, path: &'a Path) -> Resolver<'a> {
        Resolver {
            book: self,
            scenario: Some(path),
        }
    }

    /// The rules of scenario text read from no file (`@rules` paths
    /// relative to the working folder, no folder files).
    pub fn for_text(&self) -> Resolver<'_> {
        Resolver {
            book: self,
            scenario: None,
        }
    }

    /// The rule file at `path`, read once.
    fn file(&self, path: &Path) -> Result<Resolved, Diagnostic> {
        let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let mut read = self.read.lock().unwrap_or_else(|p| p.into_inner());
        let rules = read
            .entry(key.clone())
            .or_insert_with(|| load(path))
            .clone()?;
        Ok(Resolved {
            rules,
            file: Some(key),
        })
    }

    /// The nearest folder file of family `id` for a scenario in `dir`.
    fn folder_file(&self, dir: &Path, id: RuleSetId) -> Result<Option<Resolved>, Diagnostic> {
        // Folders as the scenario was named (so messages name them so),
        // compared with the root canonically.
        let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
        let under_root = self
            .root
            .as_ref()
            .filter(|root| canonical(dir).starts_with(root));
        for folder in dir.ancestors() {
            let folder = if folder.as_os_str().is_empty() {
                Path::new(".")
            } else {
                folder
            };
            let file = folder.join(FOLDER_FILE);
            if file.exists() {
                let resolved = self.file(&file)?;
                if resolved.rules.id == id {
                    return Ok(Some(resolved));
                }
            }
            match under_root {
                Some(root) if canonical(folder) != *root => continue,
                _ => break,
            }
        }
        Ok(None)
    }
}

/// The rules of one scenario (see [`RuleBook::for_scenario`]).
#[derive(Clone, Copy)]
pub struct Resolver<'a> {
    book: &'a RuleBook,
    scenario: Option<&'a Path>,
}

impl Resolver<'_> {
    /// The rules of a scenario whose `@rules` line says `named` (`None`:
    /// it has none).
    pub fn resolve(&self, named: Option<&str>) -> Result<Resolved, RulesError> {
        if let Some(fixed) = &self.book.fixed {
            return Ok(fixed.clone());
        }
        let named = named.unwrap_or("lab3");
        let id = match named.parse::<RuleSetId>() {
            Ok(id) => id,
            Err(_) if looks_like_a_file(named) => return self.named_file(named),
            Err(why) => {
                return Err(RulesError::Here(format!(
                    "{why}, or a rule file's path ending in .toml"
                )));
            }
        };
        let flag = self
            .book
            .replacing
            .iter()
            .find(|(_, r)| r.id == id)
            .map(|(file, rules)| Resolved {
                rules: *rules,
                file: Some(file.canonicalize().unwrap_or_else(|_| file.clone())),
            });
        let folder = match self.scenario.and_then(Path::parent) {
            Some(dir) => {
                let dir = if dir.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    dir
                };
                self.book.folder_file(dir, id).map_err(RulesError::InFile)?
            }
            None => None,
        };
        match (flag, folder) {
            (Some(a), Some(b)) if !a.rules.same_rules(&b.rules) => {
                let shown = |r: &Resolved| {
                    r.file
                        .as_deref()
                        .map_or(String::new(), |p| p.display().to_string())
                };
                Err(RulesError::Here(format!(
                    "two rule files for this {id} scenario disagree: --rules {} and {}; keep one",
                    shown(&a),
                    shown(&b)
                )))
            }
            (Some(resolved), _) | (None, Some(resolved)) => Ok(resolved),
            (None, None) => Ok(Resolved::built_in(id.rules())),
        }
    }

    /// A rule file a scenario names: relative to the scenario's folder,
    /// else to the root.
    fn named_file(&self, named: &str) -> Result<Resolved, RulesError> {
        let dir = self
            .scenario
            .and_then(Path::parent)
            .unwrap_or(Path::new(""));
        let mut path = dir.join(named);
        if !path.exists()
            && let Some(root) = &self.book.root
            && root.join(named).exists()
        {
            path = root.join(named);
        }
        if !path.exists() {
            return Err(RulesError::Here(format!(
                "no rule file `{}` (looked in the scenario's folder{})",
                shown(named),
                if self.book.root.is_some() {
                    " and the scenario root"
                } else {
                    ""
                }
            )));
        }
        self.book.file(&path).map_err(RulesError::InFile)
    }
}

#[cfg(test)]
mod tests;
