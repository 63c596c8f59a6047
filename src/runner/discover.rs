//! Finding scenario files: explicit files as given, folders walked
//! recursively for `*.txt` in sorted order.

use crate::scenario::Diagnostic;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

/// A scenario file to run, or a path that could not be walked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    /// The scenario's name: its path relative to the scenario root when it
    /// lies under it, else relative to the folder argument it was found in
    /// (or its file name). Snapshots are keyed by this.
    pub rel: PathBuf,
}

/// Expands `paths` into scenario files. Paths that do not exist, or
/// folders that cannot be read, come back as diagnostics; the rest go on.
pub fn discover(paths: &[PathBuf], root: &Path) -> (Vec<Found>, Vec<Diagnostic>) {
    let mut found = Vec::new();
    let mut errors = Vec::new();
    for arg in paths {
        if arg.is_file() {
            let fallback = arg.file_name().map_or(arg.clone(), PathBuf::from);
            found.push(Found {
                rel: relative(arg, root).unwrap_or(fallback),
                path: arg.clone(),
            });
        } else if arg.is_dir() {
            for entry in WalkDir::new(arg).sort_by_file_name() {
                match entry {
                    Ok(e)
                        if e.file_type().is_file()
                            && e.path().extension().is_some_and(|x| x == "txt") =>
                    {
                        let path = e.path().to_path_buf();
                        let fallback = relative(&path, arg).unwrap_or_else(|| path.clone());
                        found.push(Found {
                            rel: relative(&path, root).unwrap_or(fallback),
                            path,
                        });
                    }
                    Ok(_) => {}
                    Err(e) => {
                        let at = e.path().unwrap_or(arg);
                        errors.push(Diagnostic::file(at, format!("cannot read folder: {e}")));
                    }
                }
            }
        } else {
            errors.push(Diagnostic::file(arg, "no such file or folder"));
        }
    }
    (found, errors)
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
