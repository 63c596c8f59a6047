//! Snapshots: expected traces stored one file per scenario in insta's
//! `.snap` format, so `cargo insta review` and `cargo insta test` work on
//! the same files that `chessgrade run` reads and writes.
//!
//! ```text
//! ---
//! source: tests/scenarios.rs
//! expression: trace
//! input_file: scenarios/lab3/pawns/double_step.txt
//! ---
//! DIMS 8 8
//! ...
//! END
//! ```
//!
//! A scenario at `<root>/a/b.txt` has its snapshot at
//! `<snapshots>/scenario@a__b.txt.snap`: the name insta's `glob!` gives it in
//! `tests/scenarios.rs`. Every write goes to a temporary file in the same
//! folder that is then renamed over the target, so a crash never leaves a
//! half-written snapshot.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The test file whose insta `glob!` owns these snapshots.
pub const SOURCE: &str = "tests/scenarios.rs";
/// The snapshot name insta's `assert_snapshot!("scenario", trace)` uses.
const NAME: &str = "scenario";

/// A parsed `.snap` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// The `key: value` header lines, verbatim and in order.
    pub header: Vec<(String, String)>,
    /// The expected trace, ending in a newline.
    pub body: String,
}

impl Snapshot {
    /// A snapshot of `body` (a trace) for the scenario at `input_file`.
    pub fn new(input_file: &Path, body: &str) -> Snapshot {
        Snapshot {
            header: vec![
                ("source".into(), SOURCE.into()),
                ("expression".into(), "trace".into()),
                (
                    "input_file".into(),
                    input_file.display().to_string().replace('\\', "/"),
                ),
            ],
            body: normalize(body),
        }
    }

    /// Parses the text of a `.snap` file. A file without a header is taken
    /// as a bare body, so hand-written expectations work too.
    pub fn parse(text: &str) -> Snapshot {
        let text = text.replace("\r\n", "\n");
        let mut header = Vec::new();
        let body = match text.strip_prefix("---\n") {
            Some(rest) => match rest.split_once("\n---\n") {
                Some((head, body)) => {
                    header = head
                        .lines()
                        .filter_map(|l| l.split_once(": "))
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect();
                    body.to_string()
                }
                None => rest.to_string(),
            },
            None => text,
        };
        Snapshot {
            header,
            body: normalize(&body),
        }
    }

    pub fn render(&self) -> String {
        let mut out = String::from("---\n");
        for (k, v) in &self.header {
            out.push_str(&format!("{k}: {v}\n"));
        }
        out.push_str("---\n");
        out.push_str(&self.body);
        out
    }

    /// Does this snapshot expect exactly `trace`? (Trailing blank lines aside, as insta.)
    pub fn matches(&self, trace: &str) -> bool {
        self.body == normalize(trace)
    }
}

/// Trailing whitespace is not significant (insta trims it too); the body
/// always ends in exactly one newline.
fn normalize(body: &str) -> String {
    let mut s = body.trim_end().to_string();
    s.push('\n');
    s
}

/// Where the snapshots of a set of scenarios live.
#[derive(Clone, Debug)]
pub struct SnapshotStore {
    dir: PathBuf,
}

impl SnapshotStore {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        SnapshotStore { dir: dir.into() }
    }

    /// The `.snap` path for a scenario whose path relative to the scenario
    /// root is `rel` (insta's glob naming: `/` becomes `__`).
    pub fn path_for(&self, rel: &Path) -> PathBuf {
        let rel = rel.to_string_lossy().replace(['/', '\\'], "__");
        self.dir.join(format!("{NAME}@{rel}.snap"))
    }

    /// The pending-review path insta uses beside a `.snap`.
    pub fn pending_path_for(&self, rel: &Path) -> PathBuf {
        let mut p = self.path_for(rel).into_os_string();
        p.push(".new");
        PathBuf::from(p)
    }

    /// Reads the snapshot for `rel`; `Ok(None)` when there is none yet.
    /// Besides `.snap` files, a bare trace at `<rel minus extension>.expected`
    /// is accepted: the layout of the course corpus's answers.
    pub fn load(&self, rel: &Path) -> std::io::Result<Option<Snapshot>> {
        for path in [
            self.path_for(rel),
            self.dir.join(rel.with_extension("expected")),
        ] {
            match std::fs::read_to_string(path) {
                Ok(text) => return Ok(Some(Snapshot::parse(&text))),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }

    /// Writes `snap` as the accepted snapshot, dropping any pending one.
    pub fn accept(&self, rel: &Path, snap: &Snapshot) -> std::io::Result<PathBuf> {
        let path = self.path_for(rel);
        write_atomic(&path, &snap.render())?;
        self.discard_pending(rel)?;
        Ok(path)
    }

    /// Writes `snap` as a `.snap.new` awaiting review.
    pub fn propose(&self, rel: &Path, snap: &Snapshot) -> std::io::Result<PathBuf> {
        let path = self.pending_path_for(rel);
        write_atomic(&path, &snap.render())?;
        Ok(path)
    }

    /// Removes a stale `.snap.new` (e.g. once the result matches again).
    pub fn discard_pending(&self, rel: &Path) -> std::io::Result<()> {
        match std::fs::remove_file(self.pending_path_for(rel)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

/// Writes `contents` to `path` through a temporary file and a rename.
pub fn write_atomic(path: &Path, contents: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    // Temporary files are private (0600); a snapshot is an ordinary file.
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    tmp.write_all(contents.as_bytes())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_header_and_body() {
        let snap = Snapshot::new(Path::new("scenarios/a/b.txt"), "DIMS 1 1\nEND\n");
        let text = snap.render();
        assert_eq!(
            text,
            "---\nsource: tests/scenarios.rs\nexpression: trace\ninput_file: scenarios/a/b.txt\n---\nDIMS 1 1\nEND\n"
        );
        assert_eq!(Snapshot::parse(&text), snap);
        assert!(snap.matches("DIMS 1 1\nEND"));
        assert!(!snap.matches("DIMS 1 2\nEND\n"));
    }

    #[test]
    fn bare_bodies_and_crlf_are_accepted() {
        let snap = Snapshot::parse("DIMS 1 1\r\nEND\r\n");
        assert!(snap.header.is_empty());
        assert!(snap.matches("DIMS 1 1\nEND\n"));
    }

    #[test]
    fn names_follow_insta_glob() {
        let store = SnapshotStore::new("snapshots");
        assert_eq!(
            store.path_for(Path::new("pawns/x.txt")),
            PathBuf::from("snapshots/scenario@pawns__x.txt.snap")
        );
        assert_eq!(
            store.pending_path_for(Path::new("x.txt")),
            PathBuf::from("snapshots/scenario@x.txt.snap.new")
        );
    }

    #[test]
    fn bare_expected_files_are_found_by_stem() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("part1_4x4_1.expected"), "DIMS 4 4\nEND\n").unwrap();
        let store = SnapshotStore::new(dir.path());
        let snap = store.load(Path::new("part1_4x4_1.txt")).unwrap().unwrap();
        assert!(snap.matches("DIMS 4 4\nEND\n"));
    }

    #[test]
    fn atomic_writes_replace_whole_files() {
        let dir = tempfile::tempdir().unwrap();
        let store = SnapshotStore::new(dir.path());
        let rel = Path::new("a.txt");
        assert_eq!(store.load(rel).unwrap(), None);
        let snap = Snapshot::new(rel, "DIMS 2 2\nEND\n");
        store.propose(rel, &snap).unwrap();
        assert!(store.pending_path_for(rel).exists());
        store.accept(rel, &snap).unwrap();
        assert!(!store.pending_path_for(rel).exists());
        assert_eq!(store.load(rel).unwrap(), Some(snap));
        // no temporary files are left behind
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(store.path_for(rel))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o644);
    }
}
