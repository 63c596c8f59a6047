//! The build cache: an upload built once is not built again. A class is
//! regraded often (a snapshot fixed after a rule question, a scenario
//! added, a late upload) and nearly all of a first run's time is
//! compiling, so every build's result is kept under a key of everything
//! that went into it, and a build whose key is already there copies the
//! result instead of running the compiler.
//!
//! Why it is shaped so:
//!
//! - **The key is the build's inputs, read where the build reads them.** A
//!   build runs confined (`sandbox::jail`): it reads the system and its own
//!   folder, nothing else. So the key is the SHA-256 of that folder as the
//!   grader filled it (every file's path and bytes: the upload's copy, the
//!   staff's overlay, the files the grader writes such as the adapter's
//!   glue or the graders' `Mystery.h`), the commands exactly as they will
//!   run (argv with the build folder written `$BUILD`, so two builds of the
//!   same upload agree), any environment the grader adds, the embedded
//!   texts the build links that are not in the folder (the Lab 3 adapter),
//!   and the identity of each tool ([`tool_identity`]: the resolved path,
//!   its bytes' hash, `--version`). Whatever changes a build's command line
//!   (other `--cflags`, a memory checker's flags or wrappers) changes its
//!   key by construction; nothing in the key is chosen by hand. The system
//!   headers and libraries are not in it: a system upgrade that keeps the
//!   compiler's bytes is the one case for `--no-build-cache` (or a fresh
//!   folder). Time limits are not in it either: a result is the same
//!   whatever limit it was built under, and a build that timed out is
//!   never stored.
//! - **SHA-256, not a fast hash**: the student chooses most of the key's
//!   bytes; a key they could collide would hand their build to a classmate.
//! - **One file per entry, written atomically**: a header line (format,
//!   kind, length, SHA-256 of the payload) and the payload, written to a
//!   temporary file in the cache folder and renamed into place. A reader
//!   sees a whole entry or none, even with several graders (shards on a
//!   shared folder) writing the same key at once; the last rename wins and
//!   both are valid. The hash sits inside the entry, not in a second file,
//!   because two files cannot be replaced together: two writers could
//!   leave one's artefact beside the other's hash.
//! - **Checked before use, used as checked**: an entry is read whole,
//!   its payload hashed and compared with its header, and the bytes that
//!   were checked are written into the build's private folder. A truncated,
//!   altered or unreadable entry is a miss: built again and replaced. (The
//!   hash finds damage, not forgery: whoever may write the cache folder
//!   chooses what runs as a student's build, so it must be the graders'
//!   alone; see docs/grading.md.)
//! - **Out of the submissions' reach**: builds and programs never see the
//!   cache (it is outside their Landlock grants; a folder under the system
//!   roots, which they may read, is refused by [`check_cache_dir`]), and
//!   nothing runs from it: a program is copied into the build's own folder
//!   first.
//! - **What is kept**: the built program, or the student's compile error
//!   (the same key gives the same message, so a regrade of a class with
//!   compile errors rebuilds nothing either): only builds that finished
//!   on their own terms. Builds that timed out or ran out of their
//!   folder's disk, builds under which the grader ran short of something
//!   (its disk, its memory: `sandbox::GraderFault`) or whose output says
//!   so, tools that could not start, programs larger than
//!   [`MAX_ENTRY_BYTES`] and links in place of a program are never stored.

use super::BuildError;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Where builds are cached and whether they are (`--build-cache DIR`,
/// `--no-build-cache`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildCache {
    /// The cache folder (`None`: the user cache folder, see
    /// [`adapter_cache_dir`](super::adapter_cache_dir)). The Lab 3
    /// adapter's own object is kept there too.
    pub dir: Option<PathBuf>,
    /// Whether uploads' builds are looked up and stored. (The adapter's
    /// object, which is the grader's code and not the student's, is
    /// cached either way.)
    pub builds: bool,
}

impl Default for BuildCache {
    fn default() -> Self {
        BuildCache {
            dir: None,
            builds: true,
        }
    }
}

impl BuildCache {
    /// No upload's build is looked up or stored.
    pub fn off() -> BuildCache {
        BuildCache {
            dir: None,
            builds: false,
        }
    }

    /// The cache folder.
    pub fn folder(&self) -> PathBuf {
        self.dir.clone().unwrap_or_else(super::adapter_cache_dir)
    }

    /// Where builds' entries live, when builds are cached.
    pub(crate) fn builds_folder(&self) -> Option<PathBuf> {
        self.builds.then(|| self.folder().join("builds"))
    }

    /// Where compiled translation units live, when builds are cached (a
    /// Lab 3 build that misses as a whole still reuses the units it shares
    /// with an earlier build: see `units::compile_unit`).
    pub(crate) fn objects_folder(&self) -> Option<PathBuf> {
        self.builds.then(|| self.folder().join("objects"))
    }
}

/// Checks a `--build-cache` folder: made absolute, and refused beneath the
/// folders every submission may read (the system roots of the sandbox),
/// where any student could read the class's builds.
pub fn check_cache_dir(dir: &Path) -> Result<PathBuf, BadCacheDir> {
    let abs = std::path::absolute(dir).map_err(|e| BadCacheDir::Unresolvable {
        dir: dir.to_path_buf(),
        error: e.to_string(),
    })?;
    // Lexically (`a/../b`), then through links where the folder exists.
    let mut normal = PathBuf::new();
    for c in abs.components() {
        match c {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            c => normal.push(c),
        }
    }
    let real = normal.canonicalize().unwrap_or_else(|_| normal.clone());
    for root in crate::sandbox::SYSTEM_ROOTS {
        if normal.starts_with(root) || real.starts_with(root) {
            return Err(BadCacheDir::SystemFolder {
                dir: dir.to_path_buf(),
                root,
            });
        }
    }
    if normal == Path::new("/") {
        return Err(BadCacheDir::Root);
    }
    Ok(normal)
}

/// A `--build-cache` folder refused by [`check_cache_dir`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadCacheDir {
    /// It cannot be made absolute.
    Unresolvable { dir: PathBuf, error: String },
    /// It lies beneath a folder every submission may read.
    SystemFolder { dir: PathBuf, root: &'static str },
    /// It is `/`.
    Root,
}

impl std::fmt::Display for BadCacheDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadCacheDir::Unresolvable { dir, error } => write!(f, "{}: {error}", dir.display()),
            BadCacheDir::SystemFolder { dir, root } => write!(
                f,
                "{} is beneath {root}, which every submission may read: keep the build cache in a folder of the graders' own",
                dir.display()
            ),
            BadCacheDir::Root => f.write_str("the build cache cannot be the root folder"),
        }
    }
}

impl std::error::Error for BadCacheDir {}

/// The largest entry kept (a program with its debug information is a few
/// MiB; a build that makes more is built again each time).
pub const MAX_ENTRY_BYTES: u64 = 128 << 20;

/// The first word of every entry (and its format's version).
const MAGIC: &str = "chessgrade-cache 1";

/// What an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A built program (made executable when copied out).
    Program,
    /// The student's compile error: the message, as reported.
    CompileError,
    /// A compiled object: the Lab 3 adapter's, or one translation unit
    /// of an upload.
    Object,
    /// The files one compile of a unit read, each with its SHA-256
    /// (`units::UnitObjects`).
    Manifest,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Program => "program",
            Kind::CompileError => "compile-error",
            Kind::Object => "object",
            Kind::Manifest => "manifest",
        }
    }

    fn from_word(w: &str) -> Option<Kind> {
        [
            Kind::Program,
            Kind::CompileError,
            Kind::Object,
            Kind::Manifest,
        ]
        .into_iter()
        .find(|k| k.word() == w)
    }
}

/// The SHA-256 of `bytes`, in hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads the entry at `path`: its kind and payload, when the payload
/// hashes to what its header records (else `None`: missing, truncated,
/// altered or not an entry at all).
pub(crate) fn read_entry(path: &Path) -> Option<(Kind, Vec<u8>)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_ENTRY_BYTES + 4096 {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    let end = bytes.iter().position(|&b| b == b'\n')?;
    let header = std::str::from_utf8(&bytes[..end]).ok()?;
    let rest = header.strip_prefix(MAGIC)?.strip_prefix(' ')?;
    let mut words = rest.split(' ');
    let kind = Kind::from_word(words.next()?)?;
    let len: usize = words.next()?.parse().ok()?;
    let hash = words.next()?;
    if words.next().is_some() {
        return None;
    }
    let payload = &bytes[end + 1..];
    (payload.len() == len && sha256_hex(payload) == hash).then(|| (kind, payload.to_vec()))
}

/// Writes an entry atomically (a temporary file in the same folder,
/// synced, renamed over `path`); the folder is made, readable by its
/// owner only, if it does not exist.
pub(crate) fn write_entry(path: &Path, kind: Kind, payload: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().expect("an entry is in a folder");
    make_private_dir(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".entry-")
        .tempfile_in(dir)?;
    let header = format!(
        "{MAGIC} {} {} {}\n",
        kind.word(),
        payload.len(),
        sha256_hex(payload)
    );
    tmp.write_all(header.as_bytes())?;
    tmp.write_all(payload)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Makes `dir` if missing, mode 0700, and its missing parents with the
/// ordinary mode (the umask's): a parent may be a folder that sandboxes
/// must pass through, such as the one holding the built programs, and a
/// 0700 there would lock them out. A folder that exists keeps its mode: a
/// shared cache is the staff's to set up.
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        r => r,
    }
}

/// A build's key, being made: each field is tagged and length-prefixed,
/// so no two different sets of inputs read the same.
pub(crate) struct KeyBuilder {
    hash: Sha256,
    /// The build's private folder, written `$BUILD` in commands.
    build_dir: PathBuf,
}

/// A finished key (64 hex digits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Key(String);

impl KeyBuilder {
    /// A key for a build of `kind` (`lab3`, `console`) in `build_dir`.
    pub(crate) fn new(kind: &str, build_dir: &Path) -> KeyBuilder {
        let mut k = KeyBuilder {
            hash: Sha256::new(),
            build_dir: build_dir.to_path_buf(),
        };
        k.field("format", MAGIC.as_bytes());
        k.field("kind", kind.as_bytes());
        k
    }

    pub(crate) fn field(&mut self, tag: &str, bytes: &[u8]) {
        self.hash.update((tag.len() as u64).to_le_bytes());
        self.hash.update(tag.as_bytes());
        self.hash.update((bytes.len() as u64).to_le_bytes());
        self.hash.update(bytes);
    }

    /// Every folder and regular file beneath `dir` (sorted, paths relative
    /// to the build folder), each file's bytes. Links and other files are
    /// named only (the grader's copies hold none).
    pub(crate) fn tree(&mut self, dir: &Path) -> Result<(), BuildError> {
        let walk = walkdir::WalkDir::new(dir)
            .follow_links(false)
            .sort_by_file_name();
        for entry in walk {
            let entry = entry.map_err(|e| BuildError::Io(e.to_string()))?;
            let rel = entry
                .path()
                .strip_prefix(&self.build_dir)
                .unwrap_or(entry.path());
            let rel = rel.as_os_str().as_bytes().to_vec();
            if entry.file_type().is_dir() {
                self.field("dir", &rel);
            } else if entry.file_type().is_file() {
                let bytes = std::fs::read(entry.path())
                    .map_err(|e| BuildError::Io(format!("{}: {e}", entry.path().display())))?;
                self.field("file", &rel);
                self.field("bytes", &bytes);
            } else {
                self.field("other", &rel);
            }
        }
        Ok(())
    }

    /// One command as it will run: the program and every argument, with
    /// the build folder written `$BUILD`.
    pub(crate) fn command(&mut self, program: &str, args: &[OsString]) {
        self.field("program", program.as_bytes());
        for a in args {
            let a = self.relative(a.as_bytes());
            self.field("arg", &a);
        }
        self.field("end", b"");
    }

    /// The identity of a tool the build runs ([`tool_identity`]).
    pub(crate) fn tool(&mut self, identity: &str) {
        self.field("tool", identity.as_bytes());
    }

    fn relative(&self, bytes: &[u8]) -> Vec<u8> {
        let dir = self.build_dir.as_os_str().as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            if !dir.is_empty() && bytes[i..].starts_with(dir) {
                out.extend_from_slice(b"$BUILD");
                i += dir.len();
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        out
    }

    pub(crate) fn finish(self) -> Key {
        Key(hex(&self.hash.finalize()))
    }
}

impl Key {
    /// All 64 hex digits.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The first 16 hex digits (for entries whose key the student does
    /// not choose, such as the adapter's object).
    pub(crate) fn short(&self) -> &str {
        &self.0[..16]
    }

    pub(crate) fn entry(&self, folder: &Path) -> PathBuf {
        folder.join(format!("{}.entry", self.0))
    }
}

/// What the cache had for a key.
pub(crate) enum Hit {
    /// The program, written to the path asked for (mode 0755).
    Program,
    /// The student's compile error, as reported the first time.
    CompileError(String),
}

/// Looks `key` up in `folder`: a program is written to `program` (the
/// bytes that were checked), a compile error returned. `None`: a miss (a
/// damaged entry included; it is replaced when the build is stored; and a
/// compile error that names a shortage of the grader's machine, which
/// only an older grader stored).
pub(crate) fn fetch(folder: &Path, key: &Key, program: &Path) -> Option<Hit> {
    let (kind, payload) = read_entry(&key.entry(folder))?;
    match kind {
        Kind::Program => {
            install(program, &payload).ok()?;
            Some(Hit::Program)
        }
        Kind::CompileError => {
            let message = String::from_utf8_lossy(&payload).into_owned();
            // Never stored now (`super::failed_build`); an older grader's
            // entry that names a shortage of the machine's is built again.
            match crate::sandbox::said(&message) {
                Some(_) => None,
                None => Some(Hit::CompileError(message)),
            }
        }
        Kind::Object | Kind::Manifest => None,
    }
}

/// Writes `bytes` as a fresh executable file at `path` (its folder made).
fn install(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let _ = std::fs::remove_file(path);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o755)
        .open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// Stores the program a build made at `program` under `key`: only a
/// regular file (not a link a build left in its place) of at most
/// [`MAX_ENTRY_BYTES`]. Best effort: a cache that cannot be written costs
/// the next run a build, nothing else.
pub(crate) fn store_program(folder: &Path, key: &Key, program: &Path) {
    let _ = store_file(&key.entry(folder), Kind::Program, program);
}

/// Writes the file a build made at `file` as the entry at `entry`: only a
/// regular file (not a link a build left in its place) of at most
/// [`MAX_ENTRY_BYTES`]; anything else is an error and nothing is written.
pub(crate) fn store_file(entry: &Path, kind: Kind, file: &Path) -> std::io::Result<()> {
    let too_large = || std::io::Error::other("larger than a cache entry may be");
    let meta = std::fs::symlink_metadata(file)?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    if meta.len() > MAX_ENTRY_BYTES {
        return Err(too_large());
    }
    let bytes = std::fs::read(file)?;
    if bytes.len() as u64 > MAX_ENTRY_BYTES {
        return Err(too_large());
    }
    write_entry(entry, kind, &bytes)
}

/// Stores the student's compile error under `key` (best effort).
pub(crate) fn store_compile_error(folder: &Path, key: &Key, message: &str) {
    let _ = write_entry(&key.entry(folder), Kind::CompileError, message.as_bytes());
}

/// A tool that cannot say who it is (see [`tool_identity`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ToolError {
    /// It could not be started (not found, not executable, the sandbox).
    Start { program: String, error: String },
    /// Its `--version` ran and failed: what it printed.
    Version { program: String, output: String },
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolError::Start { program, error } => write!(f, "{program}: {error}"),
            ToolError::Version { program, output } => {
                write!(f, "{program} --version failed: {output}")
            }
        }
    }
}

impl std::error::Error for ToolError {}

/// What identifies a tool a build runs, found once per grading run: the
/// name it was given, the file it resolves to (on the grader's `PATH`, the
/// one builds get), that file's SHA-256, and what `--version` prints. A
/// tool that cannot start, or whose `--version` fails, is a [`ToolError`]
/// here; callers for which that is not the staff's problem (a shell has no
/// `--version`) use its message as the identity.
///
/// `workdir` is a folder the sandbox may run in (the build's).
pub(crate) fn tool_identity(program: &str, workdir: &Path) -> Result<String, ToolError> {
    type Known = Mutex<HashMap<String, Result<String, ToolError>>>;
    static KNOWN: OnceLock<Known> = OnceLock::new();
    let known = KNOWN.get_or_init(Default::default);
    if let Some(id) = known.lock().unwrap_or_else(|e| e.into_inner()).get(program) {
        return id.clone();
    }
    let resolved = crate::sandbox::resolve(Path::new(program)).and_then(|p| p.canonicalize().ok());
    let content = resolved.as_ref().map_or_else(
        || "not found".to_string(),
        |p| std::fs::read(p).map_or_else(|e| e.to_string(), |b| sha256_hex(&b)),
    );
    let id = match super::run_step(
        program,
        vec!["--version".into()],
        workdir,
        std::time::Duration::from_secs(60),
        &[],
    ) {
        Err(e) => Err(ToolError::Start {
            program: program.to_string(),
            error: e.to_string(),
        }),
        Ok(s) if !s.ok => Err(ToolError::Version {
            program: program.to_string(),
            output: s.output,
        }),
        Ok(s) => Ok(format!(
            "{program} = {} sha256 {content}\n{}",
            resolved.as_deref().unwrap_or(Path::new("?")).display(),
            s.output
        )),
    };
    known
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(program.to_string(), id.clone());
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_cache_folder_itself_is_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("a/b/cache");
        make_private_dir(&cache).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&cache), 0o700);
        // The parents it made have the mode of any folder made with the
        // umask (0755 under the usual 0022), not 0700.
        let plain = dir.path().join("plain");
        std::fs::create_dir(&plain).unwrap();
        assert_eq!(mode(&dir.path().join("a")), mode(&plain));
        assert_eq!(mode(&dir.path().join("a/b")), mode(&plain));
    }

    #[test]
    fn an_entry_reads_back_and_any_damage_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/e.entry");
        write_entry(&path, Kind::Program, b"\x7fELF program").unwrap();
        let written = std::fs::read(&path).unwrap();
        // The header, by hand: `printf '\x7fELF program' | sha256sum`.
        let header = b"chessgrade-cache 1 program 12 \
            45097f6a663c462c74713f58fec5812b00cf94d8a89672da8ea431f006944066\n";
        assert_eq!(written, [&header[..], b"\x7fELF program"].concat());
        assert_eq!(
            read_entry(&path),
            Some((Kind::Program, b"\x7fELF program".to_vec()))
        );
        // Truncated, altered, a header that lies about the length, garbage.
        for bad in [
            &written[..written.len() - 1],
            &[&written[..written.len() - 1], b"X"].concat()[..],
            b"chessgrade-cache 1 program 3 x\nabc",
            b"garbage",
        ] {
            std::fs::write(&path, bad).unwrap();
            assert_eq!(
                read_entry(&path),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
