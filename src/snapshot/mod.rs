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
//!
//! A temporary file is named `.<target>.chessgrade-tmp-<pid>-<random>`: a
//! run killed mid-write (kill -9, Ctrl-C) leaves one behind, and the next
//! run removes it ([`SnapshotStore::remove_stale_temp_files`]) once no
//! process with that id is alive — never a file another live run is still
//! writing.
//!
//! A snapshot recorded from the course's own reference program (`run
//! --update --submission REF`, `--engine CMD`) says which one wrote it in
//! insta's free-form `info` field ([`RecordedBy`]), so `cargo insta
//! review` shows a reviewer who wrote what they accept:
//!
//! ```text
//! info:
//!   reference: Lab 3 upload
//!   path: ref/lab3-solution
//!   sha256: 3b7e…
//! ```
//!
//! The header is YAML, as insta reads and writes it: every value is
//! written as insta's emitter writes it (double-quoted, JSON escapes, when
//! YAML would misread it plain), so a file insta accepts comes out as this
//! module wrote it. The header is kept line by line, verbatim.
//!
//! A name that is not UTF-8 (a Latin-1 file name) keeps every byte: each
//! byte that is not part of valid UTF-8 is written `%XX`, so two such names
//! never share a snapshot (insta's lossy naming would map both to `�`).
//! Names that still clash (`a/b.txt` and `a__b.txt` both give `a__b.txt`)
//! are found before a run by [`SnapshotStore::clashes`].

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What marks a temporary file written by [`write_atomic`].
pub const TEMP_MARK: &str = ".chessgrade-tmp-";

/// The test file whose insta `glob!` owns these snapshots.
pub const SOURCE: &str = "tests/scenarios.rs";
/// The snapshot name insta's `assert_snapshot!("scenario", trace)` uses.
const NAME: &str = "scenario";

/// A parsed `.snap` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// The YAML header's lines (between the `---` lines), verbatim and in
    /// order.
    pub header: Vec<String>,
    /// The expected trace, ending in a newline.
    pub body: String,
}

/// Who wrote a snapshot when it was not the built-in engine: the course's
/// reference program, by kind, name and content hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedBy {
    pub kind: ReferenceKind,
    /// The upload's folder (or archive) or the engine's command, as given.
    pub name: String,
    /// The SHA-256 (hex) of its files: `sha256sum`'s listing of them,
    /// hashed again (an upload's files by their paths in it, sorted; an
    /// engine's executable and every argument that names a file, in order).
    pub sha256: String,
}

/// The kinds of reference a snapshot can be recorded from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReferenceKind {
    /// A Lab 3 upload, driven through the adapter.
    Lab3Upload,
    /// A program speaking the protocol (`--engine`).
    Engine,
}

impl ReferenceKind {
    /// Its words in the header (`reference: Lab 3 upload`).
    pub fn name(self) -> &'static str {
        match self {
            ReferenceKind::Lab3Upload => "Lab 3 upload",
            ReferenceKind::Engine => "engine",
        }
    }

    /// The header key its name is under: an upload's `path`, an engine's `command`.
    fn name_key(self) -> &'static str {
        match self {
            ReferenceKind::Lab3Upload => "path",
            ReferenceKind::Engine => "command",
        }
    }

    fn from_name(text: &str) -> Option<ReferenceKind> {
        [ReferenceKind::Lab3Upload, ReferenceKind::Engine]
            .into_iter()
            .find(|k| k.name() == text)
    }
}

impl RecordedBy {
    /// The SHA-256 of `files` as `sha256sum` lists them, hashed again:
    /// each file's hash, two spaces and its name (`shown`), one line each,
    /// in the order given; `sha256sum FILES | sha256sum` prints the same
    /// hex, so a reviewer can check who wrote a snapshot with the
    /// system's tools. `files` are (name shown, path read) pairs.
    pub fn hash_files<'a>(
        files: impl IntoIterator<Item = (String, &'a Path)>,
    ) -> std::io::Result<String> {
        use sha2::{Digest, Sha256};
        let hex = |bytes: &[u8]| -> String { bytes.iter().map(|b| format!("{b:02x}")).collect() };
        let mut listing = String::new();
        for (shown, path) in files {
            let bytes = std::fs::read(path)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            listing.push_str(&format!("{}  {shown}\n", hex(&Sha256::digest(&bytes))));
        }
        Ok(hex(&Sha256::digest(listing.as_bytes())))
    }
}

impl std::fmt::Display for RecordedBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} (sha256 {})",
            self.kind.name(),
            self.name,
            self.sha256
        )
    }
}

impl Snapshot {
    /// A snapshot of `body` (a trace) for the scenario at `input_file`.
    pub fn new(input_file: &Path, body: &str) -> Snapshot {
        let input_file = input_file.display().to_string().replace('\\', "/");
        Snapshot {
            header: vec![
                format!("source: {}", yaml_scalar(SOURCE)),
                "expression: trace".into(),
                format!("input_file: {}", yaml_scalar(&input_file)),
            ],
            body: normalize(body),
        }
    }

    /// The same snapshot, saying that `by` recorded it (insta's `info`,
    /// where insta puts it: before `input_file`). `None`: the built-in
    /// engine, which says nothing.
    pub fn recorded_by(mut self, by: Option<&RecordedBy>) -> Snapshot {
        let Some(by) = by else {
            return self;
        };
        let at = self
            .header
            .iter()
            .position(|l| l.starts_with("input_file:"))
            .unwrap_or(self.header.len());
        let info = [
            "info:".to_string(),
            format!("  reference: {}", yaml_scalar(by.kind.name())),
            format!("  {}: {}", by.kind.name_key(), yaml_scalar(&by.name)),
            format!("  sha256: {}", yaml_scalar(&by.sha256)),
        ];
        self.header.splice(at..at, info);
        self
    }

    /// Who recorded it, when its header says (`info`, as
    /// [`Snapshot::recorded_by`] writes it and insta writes it back).
    pub fn recorder(&self) -> Option<RecordedBy> {
        let start = self.header.iter().position(|l| l.trim_end() == "info:")?;
        let fields: HashMap<&str, String> = self.header[start + 1..]
            .iter()
            .take_while(|l| l.starts_with(' '))
            .filter_map(|l| l.trim_start().split_once(':'))
            .map(|(k, v)| (k, yaml_unscalar(v.trim())))
            .collect();
        let kind = ReferenceKind::from_name(fields.get("reference")?)?;
        Some(RecordedBy {
            kind,
            name: fields.get(kind.name_key())?.clone(),
            sha256: fields.get("sha256")?.clone(),
        })
    }

    /// Parses the text of a `.snap` file. A file without a header is taken
    /// as a bare body, so hand-written expectations work too.
    pub fn parse(text: &str) -> Snapshot {
        let text = text.replace("\r\n", "\n");
        let mut header = Vec::new();
        let body = match text.strip_prefix("---\n") {
            Some(rest) => match rest.split_once("\n---\n") {
                Some((head, body)) => {
                    header = head.lines().map(str::to_string).collect();
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
        for line in &self.header {
            out.push_str(line);
            out.push('\n');
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

/// `text` as a YAML scalar, as insta's emitter writes a string: plain
/// unless YAML would read it otherwise, else double-quoted with JSON's
/// escapes.
fn yaml_scalar(text: &str) -> String {
    const WORDS: &[&str] = &[
        "yes", "Yes", "YES", "no", "No", "NO", "True", "TRUE", "true", "False", "FALSE", "false",
        "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~",
    ];
    let quoted = text.is_empty()
        || text.starts_with(' ')
        || text.ends_with(' ')
        || text.starts_with(['&', '*', '?', '|', '-', '<', '>', '=', '!', '%', '@', '.'])
        || text.starts_with("0x")
        || text.contains(|c: char| {
            matches!(c, ':' | '{' | '}' | '[' | ']' | ',' | '#' | '`' | '"' | '\'' | '\\'
                | '\0'..='\x06' | '\t' | '\n' | '\r' | '\x0e'..='\x1a' | '\x1c'..='\x1f')
        })
        || WORDS.contains(&text)
        || text.parse::<i64>().is_ok()
        || text.parse::<f64>().is_ok();
    if !quoted {
        return text.to_string();
    }
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x08' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\x0c' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if c.is_ascii_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A YAML scalar's text: a double-quoted one unescaped (JSON's escapes,
/// as insta writes them), a single-quoted one unquoted, a plain one as it is.
fn yaml_unscalar(text: &str) -> String {
    if text.starts_with('"') {
        return serde_json::from_str(text).unwrap_or_else(|_| text.to_string());
    }
    match text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        Some(inner) => inner.replace("''", "'"),
        None => text.to_string(),
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
    /// The run's trace cap: no snapshot larger than it (and its header)
    /// is read.
    max_trace_bytes: u64,
    /// Who the run's snapshots are recorded from (`None`: the built-in engine).
    recorder: Option<RecordedBy>,
}

impl SnapshotStore {
    /// The store in `dir`, reading snapshots up to the default trace cap.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        SnapshotStore {
            dir: dir.into(),
            max_trace_bytes: crate::trace::DEFAULT_MAX_TRACE_BYTES,
            recorder: None,
        }
    }

    /// The same store, its snapshots written as recorded by `by` (the
    /// course's reference; `None`: the built-in engine).
    pub fn recorded_by(mut self, by: Option<RecordedBy>) -> Self {
        self.recorder = by;
        self
    }

    /// Who this run's snapshots are recorded from (`None`: the built-in engine).
    pub fn recorder(&self) -> Option<&RecordedBy> {
        self.recorder.as_ref()
    }

    /// The same store under the run's trace cap (`--max-trace-mb`).
    pub fn with_max_trace_bytes(mut self, bytes: u64) -> Self {
        self.max_trace_bytes = bytes;
        self
    }

    /// The `.snap` path for a scenario whose path relative to the scenario
    /// root is `rel` (insta's glob naming: `/` becomes `__`).
    pub fn path_for(&self, rel: &Path) -> PathBuf {
        let rel = escape_non_utf8(rel.as_os_str()).replace(['/', '\\'], "__");
        self.dir.join(format!("{NAME}@{rel}.snap"))
    }

    /// The files that may hold `rel`'s snapshot, in the order they are
    /// read: its `.snap` file, then a bare trace at `<rel minus
    /// extension>.expected` (the layout of the course corpus's answers).
    pub fn files_for(&self, rel: &Path) -> [PathBuf; 2] {
        [
            self.path_for(rel),
            self.dir.join(rel.with_extension("expected")),
        ]
    }

    /// Pairs of scenarios (indices into `rels`) whose snapshots would be
    /// the same file: each later one with the first that took the name.
    pub fn clashes<'a>(&self, rels: impl IntoIterator<Item = &'a Path>) -> Vec<(usize, usize)> {
        let mut first: HashMap<PathBuf, usize> = HashMap::new();
        let mut out = Vec::new();
        for (i, rel) in rels.into_iter().enumerate() {
            match first.entry(self.path_for(rel)) {
                std::collections::hash_map::Entry::Occupied(e) => out.push((*e.get(), i)),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(i);
                }
            }
        }
        out
    }

    /// Removes temporary files that a run killed mid-write left in the
    /// snapshot folder (those whose writing process is gone), returning
    /// their paths. A missing folder has none.
    pub fn remove_stale_temp_files(&self) -> Vec<PathBuf> {
        remove_stale_temp_files(&self.dir)
    }

    /// The pending-review path insta uses beside a `.snap`.
    pub fn pending_path_for(&self, rel: &Path) -> PathBuf {
        let mut p = self.path_for(rel).into_os_string();
        p.push(".new");
        PathBuf::from(p)
    }

    /// Whether a snapshot for `rel` exists (either layout), without reading it.
    pub fn has(&self, rel: &Path) -> bool {
        self.files_for(rel).iter().any(|p| p.exists())
    }

    /// The folder the snapshots are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Reads the snapshot for `rel` (the first of [`Self::files_for`]
    /// that exists); `Ok(None)` when there is none yet.
    /// Only regular files are read, and only up to the trace size cap
    /// (plus room for the header).
    pub fn load(&self, rel: &Path) -> std::io::Result<Option<Snapshot>> {
        for path in self.files_for(rel) {
            match std::fs::metadata(&path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
                Ok(_) => {}
            }
            let max = self.max_trace_bytes.saturating_add(64 << 10);
            let bytes =
                crate::scenario::read_regular_file(&path, max).map_err(std::io::Error::other)?;
            let text = String::from_utf8(bytes)
                .map_err(|_| std::io::Error::other("the snapshot is not UTF-8 text"))?;
            return Ok(Some(Snapshot::parse(&text)));
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

/// `name` as text, each byte outside valid UTF-8 written `%XX`.
fn escape_non_utf8(name: &OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for chunk in name.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Removes `dir`'s temporary files (see [`TEMP_MARK`]) whose writing
/// process no longer exists; returns the paths removed.
pub fn remove_stale_temp_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = temp_file_pid(&name.to_string_lossy()) else {
            continue;
        };
        let alive = pid == std::process::id() || process_exists(pid);
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if !alive && is_file && std::fs::remove_file(entry.path()).is_ok() {
            removed.push(entry.path());
        }
    }
    removed.sort();
    removed
}

/// The writer's pid in a temporary file's name `.<x>.chessgrade-tmp-<pid>-<random>`.
fn temp_file_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (_, tail) = rest.rsplit_once(TEMP_MARK)?;
    let (pid, _) = tail.split_once('-')?;
    pid.parse().ok().filter(|&p| p > 0)
}

/// Does a process with this id exist (as far as we may know)?
fn process_exists(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else {
        return false;
    };
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
        Ok(()) => true,
        // It exists but belongs to someone else.
        Err(nix::errno::Errno::EPERM) => true,
        Err(_) => false,
    }
}

/// Writes `contents` to `path` through a temporary file and a rename.
pub fn write_atomic(path: &Path, contents: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let target = path.file_name().unwrap_or(OsStr::new("out"));
    let prefix = format!(
        ".{}{TEMP_MARK}{}-",
        target.to_string_lossy(),
        std::process::id()
    );
    let mut tmp = tempfile::Builder::new().prefix(&prefix).tempfile_in(dir)?;
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
    fn who_recorded_a_snapshot_is_insta_info_and_reads_back() {
        let by = RecordedBy {
            kind: ReferenceKind::Lab3Upload,
            name: "ref/lab3 solution".into(),
            sha256: "0123abcd".into(),
        };
        let snap =
            Snapshot::new(Path::new("scenarios/a.txt"), "DIMS 1 1\nEND\n").recorded_by(Some(&by));
        let text = snap.render();
        assert_eq!(
            text,
            "---\nsource: tests/scenarios.rs\nexpression: trace\ninfo:\n  reference: Lab 3 upload\n  path: ref/lab3 solution\n  sha256: 0123abcd\ninput_file: scenarios/a.txt\n---\nDIMS 1 1\nEND\n"
        );
        let back = Snapshot::parse(&text);
        assert_eq!(back, snap);
        assert_eq!(back.recorder(), Some(by));
        // The built-in engine says nothing.
        let plain = Snapshot::new(Path::new("a.txt"), "END\n").recorded_by(None);
        assert_eq!(plain.recorder(), None);
        assert!(!plain.render().contains("info"));
    }

    #[test]
    fn a_references_hash_is_sha256sums_listing_hashed_again() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.cc"), dir.path().join("b.hh"));
        std::fs::write(&a, "int a;\n").unwrap();
        std::fs::write(&b, "").unwrap();
        // `printf 'int a;\n' > a.cc; : > b.hh; sha256sum a.cc b.hh | sha256sum`
        let hash = RecordedBy::hash_files([("a.cc".to_string(), a.as_path()), ("b.hh".into(), &b)])
            .unwrap();
        assert_eq!(
            hash,
            "454ae2c691331d017d29b3a5baa5b4b5f1fd54e3cc31b6e1d016e721c0a6e2dd"
        );
        let missing = RecordedBy::hash_files([("x".to_string(), dir.path().join("x").as_path())]);
        assert!(missing.unwrap_err().to_string().contains("/x: "));
    }

    #[test]
    fn header_values_are_quoted_where_yaml_would_misread_them() {
        for (text, written) in [
            ("scenarios/a.txt", "scenarios/a.txt"),
            ("python3 /x/e.py --fast", "python3 /x/e.py --fast"),
            ("a: b", "\"a: b\""),
            ("-x", "\"-x\""),
            ("12", "\"12\""),
            ("1e5", "\"1e5\""),
            ("true", "\"true\""),
            ("", "\"\""),
            ("say \"hi\"\\", "\"say \\\"hi\\\"\\\\\""),
            ("tab\there", "\"tab\\there\""),
        ] {
            assert_eq!(yaml_scalar(text), written, "{text:?}");
            assert_eq!(yaml_unscalar(written), text, "{written:?}");
        }
        assert_eq!(yaml_unscalar("'it''s'"), "it's");
        let engine = RecordedBy {
            kind: ReferenceKind::Engine,
            name: "./eng: v2".into(),
            sha256: "ff".into(),
        };
        let snap = Snapshot::new(Path::new("a.txt"), "END\n").recorded_by(Some(&engine));
        assert!(snap.render().contains("\n  command: \"./eng: v2\"\n"));
        assert_eq!(Snapshot::parse(&snap.render()).recorder(), Some(engine));
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
    fn non_utf8_names_keep_their_bytes_and_clashes_are_found() {
        use std::os::unix::ffi::OsStrExt;
        let store = SnapshotStore::new("s");
        // Latin-1 `é` and `è`: lossy naming gave both `�`.
        let e_acute = Path::new(OsStr::from_bytes(b"caf\xe9.txt"));
        let e_grave = Path::new(OsStr::from_bytes(b"caf\xe8.txt"));
        assert_eq!(
            store.path_for(e_acute),
            PathBuf::from("s/scenario@caf%E9.txt.snap")
        );
        assert_ne!(store.path_for(e_acute), store.path_for(e_grave));
        assert_eq!(
            store.path_for(Path::new("café.txt")),
            PathBuf::from("s/scenario@café.txt.snap")
        );
        let rels = [
            Path::new("a/b.txt"),
            e_acute,
            Path::new("a__b.txt"),
            e_grave,
        ];
        assert_eq!(store.clashes(rels), vec![(0, 2)]);
    }

    #[test]
    fn stale_temp_files_of_dead_processes_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        // A pid that is not running: a child that has been waited for.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let stale = dir
            .path()
            .join(format!(".scenario@x.txt.snap{TEMP_MARK}{dead}-Ab12"));
        let live = dir.path().join(format!(
            ".scenario@y.txt.snap{TEMP_MARK}{}-Cd34",
            std::process::id()
        ));
        let other = dir.path().join(".tmpQwErTy");
        for p in [&stale, &live, &other] {
            std::fs::write(p, "x").unwrap();
        }
        assert_eq!(remove_stale_temp_files(dir.path()), vec![stale.clone()]);
        assert!(!stale.exists() && live.exists() && other.exists());
        assert_eq!(temp_file_pid(".a.snap.chessgrade-tmp-42-xyz"), Some(42));
        assert_eq!(temp_file_pid("a.snap"), None);
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
