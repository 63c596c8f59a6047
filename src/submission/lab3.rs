//! Lab 3 C++ uploads: the course's headers and `.cc` files, as students
//! upload them, compiled together with the protocol adapter shipped in
//! `adapters/lab3-cpp/` (embedded in the binary, so `chessgrade` works from
//! anywhere) in a temporary directory. A student file that defines its own
//! `main` (the course's custom-tests driver) is left out, with a note.
//!
//! The build follows the course's: `g++ -std=c++17 -g -Wall` by default
//! (no optimisation, so a submission that reads uninitialised memory gets
//! the course's verdicts). The adapter is split in two so that only a small
//! glue file is compiled per submission; its protocol side is compiled once
//! per compiler, flags and adapter version and cached. Translation units
//! compile in parallel; a compile error is one message that names the
//! student's file and line first.

use super::{Build, BuildError, cap_compiler_output, copy_tree, run_with_timeout};
use crate::sandbox::EngineCommand;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The adapter's protocol side (no student header): compiled once per
/// machine and cached.
pub const LAB3_ADAPTER: &str = include_str!("../../adapters/lab3-cpp/adapter_main.cc");
/// The adapter's bridge to the student's classes, compiled with each submission.
pub const LAB3_ADAPTER_GLUE: &str = include_str!("../../adapters/lab3-cpp/adapter_glue.cc");
const ADAPTER_FILE: &str = "chessgrade_adapter_main.cc";
const GLUE_FILE: &str = "chessgrade_adapter_glue.cc";

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

/// The course's build flags (`-g -Wall`, no optimisation): a submission that
/// reads uninitialised memory gets the same verdicts as in the course's build.
pub const DEFAULT_CFLAGS: &[&str] = &["-std=c++17", "-g", "-Wall"];

/// Bumped whenever the adapter's object must be rebuilt for another reason
/// than its source, the compiler or the flags changing.
const ADAPTER_VERSION: u32 = 2;

/// How to compile a Lab 3 submission.
#[derive(Clone, Debug)]
pub struct CppOptions {
    /// The C++ compiler (`g++`).
    pub compiler: String,
    /// Flags for every translation unit (default [`DEFAULT_CFLAGS`]).
    pub cflags: Vec<String>,
    /// For the whole build.
    pub timeout: Duration,
    /// Where the adapter's own object is cached (`None`: the user cache
    /// folder, see [`adapter_cache_dir`]).
    pub cache_dir: Option<PathBuf>,
    /// Build for this memory checker: its flags added after `cflags`, to
    /// every unit (the adapter's cached object included, under a key of its
    /// own) and to the link.
    pub memcheck: Option<crate::memcheck::Tool>,
}

impl CppOptions {
    pub fn new(compiler: &str, timeout: Duration) -> CppOptions {
        CppOptions {
            compiler: compiler.to_string(),
            cflags: DEFAULT_CFLAGS.iter().map(|s| s.to_string()).collect(),
            timeout,
            cache_dir: None,
            memcheck: None,
        }
    }

    /// Every unit's flags: `cflags`, then the memory checker's.
    pub fn all_flags(&self) -> Vec<String> {
        let mut flags = self.cflags.clone();
        if let Some(tool) = self.memcheck {
            for flag in tool.compile_flags() {
                if !flags.contains(&flag) {
                    flags.push(flag);
                }
            }
        }
        flags
    }
}

/// `$XDG_CACHE_HOME/chessgrade`, else `~/.cache/chessgrade`, else a folder in
/// the system's temporary directory.
pub fn adapter_cache_dir() -> PathBuf {
    let non_empty = |v: Option<std::ffi::OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(x) = non_empty(std::env::var_os("XDG_CACHE_HOME")) {
        return x.join("chessgrade");
    }
    if let Some(h) = non_empty(std::env::var_os("HOME")) {
        return h.join(".cache").join("chessgrade");
    }
    std::env::temp_dir().join("chessgrade-cache")
}

/// One translation unit to compile.
struct Unit {
    source: PathBuf,
    object: PathBuf,
    /// Include the student's folder (every unit but the adapter's main).
    student_includes: bool,
}

/// Compiles a Lab 3 C++ submission with the adapter: the student's files
/// and the adapter's glue in parallel (one compiler per core), the
/// adapter's main object from the cache (built once per compiler, flags and
/// adapter version), then one link.
pub fn build_cpp(dir: &Path, options: &CppOptions) -> Result<Build, BuildError> {
    // The compiler runs in a temporary directory: give it absolute paths.
    let dir = dir
        .canonicalize()
        .map_err(|e| BuildError::NotRecognised(format!("{}: {e}", dir.display())))?;
    let found = find_cpp(&dir)?;
    let tmp = tempfile::Builder::new()
        .prefix("chessgrade-build-")
        .tempdir()
        .map_err(|e| BuildError::Io(e.to_string()))?;
    let io = |e: std::io::Error| BuildError::Io(e.to_string());
    // The build reads a private copy of the upload (no link out of it, no
    // FIFO), owned by the sandbox's uid: never the class folder itself.
    let copy = tmp.path().join("upload");
    copy_tree(&found.include_dir, &copy)?;
    let found = CppSources {
        sources: found
            .sources
            .iter()
            .map(|s| copy.join(s.strip_prefix(&found.include_dir).unwrap_or(s)))
            .collect(),
        include_dir: copy.clone(),
        left_out: found.left_out,
    };
    let glue = tmp.path().join(GLUE_FILE);
    std::fs::write(&glue, LAB3_ADAPTER_GLUE).map_err(io)?;
    let deadline = std::time::Instant::now() + options.timeout;

    crate::sandbox::hand_over(tmp.path()).map_err(io)?;
    let cached = adapter_object(options, tmp.path(), deadline)?;
    let mut units = vec![Unit {
        source: glue,
        object: tmp.path().join("glue.o"),
        student_includes: true,
    }];
    for (i, src) in found.sources.iter().enumerate() {
        units.push(Unit {
            source: src.clone(),
            object: tmp.path().join(format!("student{i}.o")),
            student_includes: true,
        });
    }
    let outputs = compile_all(&units, options, &found.include_dir, tmp.path(), deadline)?;
    let failed: Vec<(&Unit, String)> = units
        .iter()
        .zip(outputs)
        .filter_map(|(u, (ok, out))| (!ok).then_some((u, out)))
        .collect();
    if !failed.is_empty() {
        let texts: Vec<String> = failed
            .into_iter()
            .map(|(_, out)| relative_paths(&out, &copy, tmp.path()))
            .collect();
        return Err(BuildError::Compile(compile_message(&texts)));
    }
    let engine = tmp.path().join("engine");
    let mut args: Vec<std::ffi::OsString> = match options.memcheck {
        Some(tool) => tool.compile_flags().into_iter().map(Into::into).collect(),
        None => Vec::new(),
    };
    args.extend(["-o".into(), engine.clone().into()]);
    args.push(cached.into());
    args.extend(units.iter().map(|u| u.object.clone().into_os_string()));
    let left = deadline.saturating_duration_since(std::time::Instant::now());
    let (ok, out) = run_with_timeout(&options.compiler, args, tmp.path(), left)
        .map_err(|e| BuildError::Io(format!("{}: {e}", options.compiler)))?;
    if !ok {
        let out = relative_paths(&out, &copy, tmp.path());
        return Err(BuildError::Compile(compile_message(&[out])));
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
        sources: crate::memcheck::Sources::at(&copy),
        _dir: tmp,
    })
}

/// Compiles `units` with up to one compiler per core; (succeeded, output)
/// per unit, in order. A compiler that cannot start is a staff-side error.
fn compile_all(
    units: &[Unit],
    options: &CppOptions,
    include_dir: &Path,
    workdir: &Path,
    deadline: std::time::Instant,
) -> Result<Vec<(bool, String)>, BuildError> {
    let jobs = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, units.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    type Slot = std::sync::Mutex<Option<std::io::Result<(bool, String)>>>;
    let results: Vec<Slot> = units.iter().map(|_| Slot::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(unit) = units.get(i) else { break };
                    let mut args: Vec<std::ffi::OsString> =
                        options.all_flags().iter().map(Into::into).collect();
                    args.extend(["-c".into(), unit.source.clone().into_os_string()]);
                    args.extend(["-o".into(), unit.object.clone().into_os_string()]);
                    if unit.student_includes {
                        args.push("-I".into());
                        args.push(include_dir.as_os_str().to_owned());
                    }
                    let left = deadline.saturating_duration_since(std::time::Instant::now());
                    let r = run_with_timeout(&options.compiler, args, workdir, left);
                    *results[i].lock().expect("compile result") = Some(r);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|m| {
            m.into_inner()
                .expect("compile result")
                .expect("every unit compiled")
                .map_err(|e| BuildError::Io(format!("{}: {e}", options.compiler)))
        })
        .collect()
}

/// The adapter's main object for this compiler and these flags, as a file
/// in the private build folder `workdir`: copied from the cache after its
/// content hash checks out, or compiled now and stored there.
///
/// The cache is the grader's: no submission can reach it (docs/grading.md,
/// "Guarantees"), and it is checked anyway. Each entry is the object and a
/// `.sha256` of its bytes, each written atomically (a temporary file
/// renamed into place, so concurrent graders never see half of one). The
/// object is copied into the build folder first and the copy is hashed and
/// linked, so nothing can change between the check and the link. A
/// missing, truncated or altered entry is compiled again and replaced.
/// Where the cache cannot be written the fresh object is used directly.
fn adapter_object(
    options: &CppOptions,
    workdir: &Path,
    deadline: std::time::Instant,
) -> Result<PathBuf, BuildError> {
    let version = run_with_timeout(
        &options.compiler,
        vec!["--version".into()],
        workdir,
        deadline.saturating_duration_since(std::time::Instant::now()),
    )
    .map_err(|e| BuildError::Io(format!("{}: {e}", options.compiler)))?;
    if !version.0 {
        return Err(BuildError::Io(format!(
            "{} --version failed: {}",
            options.compiler, version.1
        )));
    }
    let mut key = Fnv::default();
    key.add(options.compiler.as_bytes());
    key.add(version.1.as_bytes());
    for f in options.all_flags() {
        key.add(f.as_bytes());
    }
    key.add(LAB3_ADAPTER.as_bytes());
    key.add(&ADAPTER_VERSION.to_le_bytes());
    let cache_dir = options.cache_dir.clone().unwrap_or_else(adapter_cache_dir);
    let cached = cache_dir.join(format!("lab3-adapter-{:016x}.o", key.0));
    let object = workdir.join("adapter_main.o");
    if verified_copy(&cached, &object) {
        return Ok(object);
    }
    let source = workdir.join(ADAPTER_FILE);
    std::fs::write(&source, LAB3_ADAPTER).map_err(|e| BuildError::Io(e.to_string()))?;
    let unit = Unit {
        source,
        object: object.clone(),
        student_includes: false,
    };
    let (ok, out) = compile_all(
        std::slice::from_ref(&unit),
        options,
        workdir,
        workdir,
        deadline,
    )?
    .remove(0);
    if !ok {
        // Not the student's fault: a compiler or flags that cannot build the adapter.
        return Err(BuildError::Io(format!(
            "the adapter does not compile with {} {}:\n{out}",
            options.compiler,
            options.all_flags().join(" ")
        )));
    }
    // Best effort: a cache that cannot be written only costs a compile.
    let _ = store_in_cache(&object, &cached);
    Ok(object)
}

/// The SHA-256 of `bytes`, in hex.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Where a cache entry's content hash is kept.
fn hash_file(cached: &Path) -> PathBuf {
    let mut name = cached.as_os_str().to_owned();
    name.push(".sha256");
    PathBuf::from(name)
}

/// Copies the cached object to `to` and tells whether the copy's bytes
/// hash to what the cache recorded (the copy is removed when they do not).
fn verified_copy(cached: &Path, to: &Path) -> bool {
    let Ok(expected) = std::fs::read_to_string(hash_file(cached)) else {
        return false;
    };
    let Ok(bytes) = std::fs::read(cached) else {
        return false;
    };
    if sha256_hex(&bytes) != expected.trim() || std::fs::write(to, &bytes).is_err() {
        let _ = std::fs::remove_file(to);
        return false;
    }
    true
}

/// Stores a freshly compiled object and its hash in the cache, each
/// atomically; the cache folder is the grader's alone (mode 0700).
fn store_in_cache(object: &Path, cached: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let cache_dir = cached.parent().expect("a file in the cache folder");
    std::fs::create_dir_all(cache_dir)?;
    std::fs::set_permissions(cache_dir, std::fs::Permissions::from_mode(0o700))?;
    let bytes = std::fs::read(object)?;
    let write = |path: &Path, data: &[u8]| -> std::io::Result<()> {
        let mut tmp = tempfile::Builder::new()
            .prefix(".lab3-adapter-")
            .tempfile_in(cache_dir)?;
        std::io::Write::write_all(&mut tmp, data)?;
        tmp.as_file().sync_all()?;
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    };
    write(cached, &bytes)?;
    write(&hash_file(cached), sha256_hex(&bytes).as_bytes())
}

/// 64-bit FNV-1a: a stable cache key (unlike `DefaultHasher`).
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes.iter().chain([0xffu8].iter()) {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Compiler output with the submission's folder and the build folder cut
/// from paths, so messages name `RookPiece.cc:12:5`, not a temporary path.
fn relative_paths(output: &str, dir: &Path, tmp: &Path) -> String {
    output
        .replace(&format!("{}/", dir.display()), "")
        .replace(&format!("{}/", tmp.display()), "")
}

/// The compile error as shown once per submission: the first error in one
/// of the student's files first (not the adapter's file that included it),
/// then the compiler's whole output, capped.
pub fn compile_message(outputs: &[String]) -> String {
    let all = outputs.join("\n");
    let is_error = |l: &str| l.contains(": error:") || l.contains(": fatal error:");
    let adapter_file = |l: &str| l.starts_with(GLUE_FILE) || l.starts_with(ADAPTER_FILE);
    let first = all
        .lines()
        .find(|l| is_error(l) && !adapter_file(l))
        .or_else(|| all.lines().find(|l| is_error(l)))
        .or_else(|| all.lines().find(|l| l.contains("undefined reference")));
    let mut msg = match first {
        Some(line) => format!("{}\n\n{all}", line.trim()),
        None => all,
    };
    cap_compiler_output(&mut msg);
    msg
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
