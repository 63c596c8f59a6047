//! Finding scenario files: explicit files as given, folders walked
//! recursively for `*.txt` in sorted order, but for the coverage summary
//! of a `chessgrade gen` suite (see [`is_gen_summary`]).

use crate::rulefile::RuleBook;
use crate::scenario::{Caps, Diagnostic};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use walkdir::WalkDir;

/// A scenario file to run, or a path that could not be walked.
#[derive(Clone, Debug)]
pub struct Found {
    pub path: PathBuf,
    /// The scenario's name: its path relative to the scenario root when it
    /// lies under it, else relative to the folder argument it was found in
    /// (or its file name). Snapshots are keyed by this.
    pub rel: PathBuf,
    /// The run's caps on what reading and running it may cost.
    pub caps: Caps,
    /// The run's rule book: which rules the scenario runs under (its
    /// `@rules`, a folder's `rules.toml`, `--rules`).
    pub rules: Arc<RuleBook>,
}

/// Two finds are the same scenario of the same run: same file, name,
/// caps and rule book.
impl PartialEq for Found {
    fn eq(&self, other: &Found) -> bool {
        (&self.path, &self.rel, self.caps) == (&other.path, &other.rel, other.caps)
            && Arc::ptr_eq(&self.rules, &other.rules)
    }
}

impl Eq for Found {}

impl Found {
    /// A scenario file named `rel`, under the default caps and rule book.
    pub fn new(path: PathBuf, rel: PathBuf) -> Found {
        static DEFAULT_BOOK: OnceLock<Arc<RuleBook>> = OnceLock::new();
        Found {
            path,
            rel,
            caps: Caps::default(),
            rules: DEFAULT_BOOK.get_or_init(Arc::default).clone(),
        }
    }

    /// Reads and parses the file under the run's input cap and rules.
    pub fn load(&self) -> Result<crate::scenario::Scenario, Diagnostic> {
        crate::scenario::load_with(&self.path, self.caps.input_bytes, &self.rules)
    }
}

/// What a walk found: the scenario files, the paths that could not be
/// walked (errors), and what it passed over on purpose, each with the
/// reason (notes: a walk never skips in silence).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Discovery {
    pub found: Vec<Found>,
    pub errors: Vec<Diagnostic>,
    pub skipped: Vec<String>,
}

/// Expands `paths` into scenario files. Paths that do not exist, or
/// folders that cannot be read, come back as diagnostics; the rest go on.
/// (What [`walk`] finds, without its notes on skipped entries.)
pub fn discover(paths: &[PathBuf], root: &Path) -> (Vec<Found>, Vec<Diagnostic>) {
    let d = walk(paths, root);
    (d.found, d.errors)
}

/// Expands `paths` into scenario files: a file argument is taken as given
/// (if it is a regular file, through a link or not), a folder is walked
/// for `*.txt` regular files in sorted order. A walk does not follow
/// symbolic links (a scenario's name must be its place in the tree, and a
/// link may loop or lead anywhere); every link, dangling link and special
/// file (FIFO, device, socket) it meets is noted.
pub fn walk(paths: &[PathBuf], root: &Path) -> Discovery {
    let mut d = Discovery::default();
    for arg in paths {
        let Ok(meta) = std::fs::symlink_metadata(arg) else {
            d.errors
                .push(Diagnostic::file(arg, "no such file or folder"));
            continue;
        };
        let target = std::fs::metadata(arg);
        match target {
            Ok(t) if t.is_file() => {
                let fallback = arg.file_name().map_or(arg.clone(), PathBuf::from);
                d.found.push(Found::new(
                    arg.clone(),
                    relative(arg, root).unwrap_or(fallback),
                ));
            }
            Ok(t) if t.is_dir() => walk_folder(arg, root, &mut d),
            Ok(t) => d.errors.push(Diagnostic::file(
                arg,
                format!(
                    "cannot read scenario: it is {}, not a regular file",
                    crate::scenario::file_kind(&t)
                ),
            )),
            Err(_) if meta.file_type().is_symlink() => d.errors.push(Diagnostic::file(
                arg,
                "cannot read scenario: a dangling symbolic link (its target does not exist)",
            )),
            Err(e) => d
                .errors
                .push(Diagnostic::file(arg, format!("cannot read scenario: {e}"))),
        }
    }
    d
}

fn walk_folder(arg: &Path, root: &Path, d: &mut Discovery) {
    for entry in WalkDir::new(arg).sort_by_file_name() {
        let e = match entry {
            Ok(e) => e,
            Err(e) => {
                let at = e.path().unwrap_or(arg);
                let why = if e.loop_ancestor().is_some() {
                    "a folder loop".to_string()
                } else {
                    e.to_string()
                };
                d.errors
                    .push(Diagnostic::file(at, format!("cannot read folder: {why}")));
                continue;
            }
        };
        let path = e.path();
        let t = e.file_type();
        if t.is_dir() {
            continue;
        }
        if t.is_file() {
            if is_gen_summary(path) {
                d.skipped.push(format!(
                    "skipped {}: the coverage summary of a `chessgrade gen` suite, not a scenario",
                    path.display()
                ));
                continue;
            }
            if path.extension().is_some_and(|x| x == "txt") {
                let path = path.to_path_buf();
                let fallback = relative(&path, arg).unwrap_or_else(|| path.clone());
                let rel = relative(&path, root).unwrap_or(fallback);
                d.found.push(Found::new(path, rel));
            }
            continue;
        }
        let why = if t.is_symlink() {
            match std::fs::metadata(path) {
                Ok(m) if m.is_dir() => {
                    "a symbolic link to a folder (links are not followed)".to_string()
                }
                Ok(m) if m.is_file() => {
                    "a symbolic link to a file (links are not followed; name it to run it)"
                        .to_string()
                }
                Ok(m) => format!("a symbolic link to {}", crate::scenario::file_kind(&m)),
                Err(e) if e.raw_os_error() == Some(nix::errno::Errno::ELOOP as i32) => {
                    "a symbolic link that loops".to_string()
                }
                Err(_) => "a dangling symbolic link (its target does not exist)".to_string(),
            }
        } else {
            match e.metadata() {
                Ok(m) => format!("{}, not a regular file", crate::scenario::file_kind(&m)),
                Err(_) => "not a regular file".to_string(),
            }
        };
        d.skipped.push(format!("skipped {}: {why}", path.display()));
    }
}

/// Folder of the scenarios inside a suite folder `OUT/`.
pub const SCENARIOS_DIR: &str = "scenarios";
/// Folder of the snapshots inside `OUT/`.
pub const SNAPSHOTS_DIR: &str = "snapshots";
/// The coverage summary inside `OUT/`.
pub const COVERAGE_FILE: &str = "coverage.txt";

/// Whether `path` is the coverage summary `chessgrade gen` writes at the
/// top of a suite: `OUT/coverage.txt` beside `OUT/scenarios/` and
/// `OUT/snapshots/` (the layout `gen` writes: [`SCENARIOS_DIR`],
/// [`SNAPSHOTS_DIR`], [`COVERAGE_FILE`]). A walk passes over it
/// (with a note), so `run OUT/` runs the suite's scenarios only; named
/// as a file, it is read like any other.
pub fn is_gen_summary(path: &Path) -> bool {
    let Some(folder) = path.parent() else {
        return false;
    };
    path.file_name().is_some_and(|n| n == COVERAGE_FILE)
        && folder.join(SCENARIOS_DIR).is_dir()
        && folder.join(SNAPSHOTS_DIR).is_dir()
}

/// `path` relative to `base`, comparing canonical forms so `./x` and `x` agree.
fn relative(path: &Path, base: &Path) -> Option<PathBuf> {
    let path = path.canonicalize().ok()?;
    let base = base.canonicalize().ok()?;
    path.strip_prefix(&base).ok().map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_sorted_txt_files_and_reports_missing_paths() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("b")).unwrap();
        std::fs::write(root.join("b/z.txt"), "").unwrap();
        std::fs::write(root.join("a.txt"), "").unwrap();
        std::fs::write(root.join("notes.md"), "").unwrap();
        let (found, errors) = discover(&[root.to_path_buf(), root.join("missing.txt")], root);
        let names: Vec<_> = found.iter().map(|f| f.rel.clone()).collect();
        assert_eq!(
            names,
            vec![PathBuf::from("a.txt"), PathBuf::from("b/z.txt")]
        );
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0]
                .to_string()
                .contains("missing.txt: no such file or folder")
        );
    }

    #[test]
    fn links_and_special_files_are_noted_not_followed() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/real.txt"), "").unwrap();
        symlink(root.join("sub/real.txt"), root.join("link.txt")).unwrap();
        symlink(root.join("gone.txt"), root.join("dangling.txt")).unwrap();
        symlink(root.join("loop.txt"), root.join("loop.txt")).unwrap();
        symlink(root, root.join("sub/up")).unwrap();
        symlink("/dev/zero", root.join("zero.txt")).unwrap();
        nix::unistd::mkfifo(
            &root.join("fifo.txt"),
            nix::sys::stat::Mode::from_bits_truncate(0o600),
        )
        .unwrap();
        let d = walk(&[root.to_path_buf()], root);
        assert_eq!(d.found.len(), 1, "{d:?}");
        assert!(d.errors.is_empty(), "{:?}", d.errors);
        let notes = d.skipped.join("\n");
        for (name, why) in [
            ("link.txt", "a symbolic link to a file"),
            ("dangling.txt", "a dangling symbolic link"),
            ("loop.txt", "a symbolic link that loops"),
            ("sub/up", "a symbolic link to a folder"),
            ("zero.txt", "a symbolic link to a character device"),
            ("fifo.txt", "a FIFO (named pipe), not a regular file"),
        ] {
            let line = format!("{}: {why}", root.join(name).display());
            assert!(notes.contains(&line), "{line} not in\n{notes}");
        }
        // Named directly: a link to a file is read, special files refused.
        let d = walk(
            &[
                root.join("link.txt"),
                root.join("zero.txt"),
                root.join("fifo.txt"),
                root.join("dangling.txt"),
            ],
            root,
        );
        assert_eq!(d.found.len(), 1);
        let errors: Vec<String> = d.errors.iter().map(|e| e.to_string()).collect();
        assert!(
            errors[0].contains("character device, not a regular file"),
            "{errors:?}"
        );
        assert!(errors[1].contains("FIFO"), "{errors:?}");
        assert!(errors[2].contains("dangling"), "{errors:?}");
    }

    #[test]
    fn a_gen_suites_summary_is_passed_over_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        std::fs::create_dir_all(out.join("scenarios/lab3")).unwrap();
        std::fs::create_dir_all(out.join("snapshots")).unwrap();
        std::fs::write(out.join("scenarios/lab3/001_start.txt"), "").unwrap();
        std::fs::write(out.join("coverage.txt"), "coverage: 1 lab3 scenarios\n").unwrap();
        // Not a suite's top: a scenario that happens to be named so.
        std::fs::write(out.join("scenarios/coverage.txt"), "").unwrap();
        let d = walk(&[out.to_path_buf()], &out.join("scenarios"));
        let names: Vec<_> = d.found.iter().map(|f| f.rel.clone()).collect();
        assert_eq!(
            names,
            [
                PathBuf::from("coverage.txt"),
                PathBuf::from("lab3/001_start.txt")
            ]
        );
        assert_eq!(
            d.skipped,
            [format!(
                "skipped {}: the coverage summary of a `chessgrade gen` suite, not a scenario",
                out.join("coverage.txt").display()
            )]
        );
        // Without the suite's folders it is a scenario file like any other.
        std::fs::remove_dir(out.join("snapshots")).unwrap();
        assert!(!is_gen_summary(&out.join("coverage.txt")));
        assert_eq!(walk(&[out.to_path_buf()], out).found.len(), 3);
    }

    #[test]
    fn files_outside_the_root_are_named_relative_to_their_argument() {
        let root = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(other.path().join("sub")).unwrap();
        std::fs::write(other.path().join("sub/x.txt"), "").unwrap();
        let (found, _) = discover(&[other.path().to_path_buf()], root.path());
        assert_eq!(found[0].rel, PathBuf::from("sub/x.txt"));
        let (found, _) = discover(&[other.path().join("sub/x.txt")], root.path());
        assert_eq!(found[0].rel, PathBuf::from("x.txt"));
    }
}
