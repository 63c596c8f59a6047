//! Translation units compiled one by one, up to one compiler per core, each
//! from the unit cache when it has it: what a Lab 3 build (the student's
//! files and the adapter's glue) and a console build without a Makefile
//! (every `.cpp`, then one link: what `g++ FLAGS *.cpp` does itself) share.
//!
//! The unit cache is why it is a module of its own: a build that misses the
//! build cache as a whole (one file of the upload changed, the mutants of
//! one solution, a hostile upload that adds one file to a correct one)
//! compiles only the units whose inputs changed ([`UnitObjects`]). A build
//! run by the upload's own Makefile or CMake names its compiler calls
//! itself, so it is cached as a whole only.

use super::cache::{self, BuildCache, KeyBuilder, Kind};
use super::{BuildError, Step, run_step};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// One translation unit to compile.
pub(super) struct Unit {
    /// The source file (absolute, in the build folder).
    pub source: PathBuf,
    /// The compiler's arguments but the object's `-o`: flags, `-c`, the
    /// source, include folders. This is the unit's command in the cache's
    /// keys (the object's name is only its place in the build).
    pub command: Vec<OsString>,
    /// Where the object goes.
    pub object: PathBuf,
}

impl Unit {
    /// The whole compile: [`Unit::command`] and `-o OBJECT`.
    pub fn args(&self) -> Vec<OsString> {
        let mut args = self.command.clone();
        args.extend(["-o".into(), self.object.clone().into_os_string()]);
        args
    }
}

/// Compiles `units` with `compiler`, up to one compiler per core, each from
/// the unit cache `objects` when it has the unit; how each ended, in
/// order. `env` is added to each compile's environment. A compiler that
/// cannot start is a staff-side error.
pub(super) fn compile_all(
    compiler: &str,
    units: &[Unit],
    workdir: &Path,
    deadline: std::time::Instant,
    objects: Option<&UnitObjects>,
    env: &[(&str, OsString)],
) -> Result<Vec<Step>, BuildError> {
    let jobs = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, units.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    type Slot = std::sync::Mutex<Option<std::io::Result<Step>>>;
    let results: Vec<Slot> = units.iter().map(|_| Slot::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(unit) = units.get(i) else { break };
                    let r = compile_unit(compiler, unit, workdir, deadline, objects, env);
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
                .map_err(|e| BuildError::Io(format!("{compiler}: {e}")))
        })
        .collect()
}

/// The unit cache: compiled translation units kept in the build cache's
/// `objects/` folder, so that a build that misses as a whole compiles only
/// the units whose inputs changed.
///
/// What a unit's object depends on is what its compile read, and the
/// compiler says which files those were (`-MD`, the make dependencies it
/// writes beside the object at no cost), as in ccache's direct mode. Two
/// entries per unit:
///
/// - a **manifest**, keyed by the compiler's identity, the unit's command
///   (flags, include folder, the source's name; not the object's name,
///   which is the unit's place in the build, nor the build folder's path)
///   and the source's bytes: the files of the build folder the last such
///   compile read (the upload's headers, the source), each with its
///   SHA-256;
/// - the **object**, keyed by the manifest's key and its text.
///
/// A lookup reads the manifest and hashes those files as they are now: all
/// the same, the object is copied; any other, or no manifest, the unit is
/// compiled (with `-MD`) and both are stored. A file the upload holds but
/// the compile did not read (a README, another unit's source) plays no
/// part. As in the build's own key, the system's headers are not in it. A
/// unit whose compile fails is not kept (the build's compile error is), nor
/// one whose files name `__has_include` (what the compile did not read
/// would matter), `__DATE__`, `__TIME__` or `__TIMESTAMP__` (its object
/// differs from one compile to the next). Entries are the cache's: checked
/// against their hash, written atomically, out of the submissions' reach.
pub(super) struct UnitObjects<'a> {
    /// `<cache>/objects`.
    folder: PathBuf,
    /// The compiler's identity ([`cache::tool_identity`]).
    compiler: &'a str,
}

impl<'a> UnitObjects<'a> {
    /// The unit cache of `cache`, for a compiler of this identity; `None`
    /// when builds are not cached (`--no-build-cache`).
    pub fn of(cache: &BuildCache, compiler: &'a str) -> Option<UnitObjects<'a>> {
        Some(UnitObjects {
            folder: cache.objects_folder()?,
            compiler,
        })
    }

    /// The key of `unit`'s manifest (see [`UnitObjects`]); `None` when its
    /// source cannot be read (the compile will say why).
    fn manifest_key(&self, compiler: &str, unit: &Unit, workdir: &Path) -> Option<cache::Key> {
        let source = std::fs::read(&unit.source).ok()?;
        let mut key = KeyBuilder::new("unit", workdir);
        key.tool(self.compiler);
        key.command(compiler, &unit.command);
        key.field("source", &source);
        Some(key.finish())
    }

    /// The object's entry for a manifest's key and text.
    fn object_entry(&self, manifest: &cache::Key, text: &[u8], workdir: &Path) -> PathBuf {
        let mut key = KeyBuilder::new("unit-object", workdir);
        key.field("manifest", manifest.as_str().as_bytes());
        key.field("files", text);
        key.finish().entry(&self.folder)
    }

    /// The object the cache has for this unit when every file its manifest
    /// names still has the bytes it had.
    fn lookup(&self, manifest: &cache::Key, workdir: &Path) -> Option<Vec<u8>> {
        let (Kind::Manifest, text) = cache::read_entry(&manifest.entry(&self.folder))? else {
            return None;
        };
        let listed = std::str::from_utf8(&text).ok()?;
        for line in listed.lines() {
            let (hash, path) = line.split_once(' ')?;
            let path = path.strip_prefix("$BUILD/")?;
            let bytes = std::fs::read(workdir.join(path)).ok()?;
            if cache::sha256_hex(&bytes) != hash {
                return None;
            }
        }
        match cache::read_entry(&self.object_entry(manifest, &text, workdir))? {
            (Kind::Object, bytes) => Some(bytes),
            _ => None,
        }
    }

    /// Stores the object a compile made and its manifest, from the
    /// dependencies it wrote (`deps`, make syntax). Best effort: nothing
    /// is stored when the dependencies cannot be read or name a file
    /// outside the build folder that is not the system's.
    fn store(&self, manifest: &cache::Key, object: &Path, deps: &Path, workdir: &Path) {
        let Some(text) = manifest_text(deps, workdir) else {
            return;
        };
        let entry = self.object_entry(manifest, text.as_bytes(), workdir);
        // The object first: a manifest is only ever read beside its object.
        if cache::store_file(&entry, Kind::Object, object).is_ok() {
            let _ = cache::write_entry(
                &manifest.entry(&self.folder),
                Kind::Manifest,
                text.as_bytes(),
            );
        }
    }
}

/// The manifest's text for a compile's dependency file: one line per file
/// of the build folder it read, sorted, `SHA256 $BUILD/PATH`. `None` when
/// the file cannot be read or parsed, a file it names is missing or
/// outside both the build folder and the system, or one names
/// `__has_include`, `__DATE__`, `__TIME__` or `__TIMESTAMP__`.
fn manifest_text(deps: &Path, workdir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(deps).ok()?;
    let mut lines = Vec::new();
    for path in make_dependencies(&text)? {
        let path = PathBuf::from(path);
        let Ok(rel) = path.strip_prefix(workdir) else {
            let system = crate::sandbox::SYSTEM_ROOTS
                .iter()
                .any(|root| path.starts_with(root));
            if system {
                continue;
            }
            return None;
        };
        let bytes = std::fs::read(&path).ok()?;
        let volatile = ["__has_include", "__DATE__", "__TIME__", "__TIMESTAMP__"];
        if volatile.iter().any(|m| contains(&bytes, m.as_bytes())) {
            return None;
        }
        let rel = rel.to_str().filter(|r| !r.contains('\n'))?;
        lines.push(format!("{} $BUILD/{rel}\n", cache::sha256_hex(&bytes)));
    }
    lines.sort();
    lines.dedup();
    Some(lines.concat())
}

/// The prerequisites of a make rule as GCC's `-MD` writes it (`target:
/// dep dep \` continued over lines, spaces in names escaped `\ `, `$` as
/// `$$`); `None` for anything else.
fn make_dependencies(text: &str) -> Option<Vec<String>> {
    let joined = text.replace("\\\n", " ");
    let (_, rest) = joined.split_once(": ")?;
    let rule = rest.lines().next()?;
    let mut deps = Vec::new();
    let mut word = String::new();
    let mut chars = rule.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some(' ' | '#' | '\\')) => {
                word.push(chars.next()?);
            }
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                word.push('$');
            }
            ' ' | '\t' => {
                if !word.is_empty() {
                    deps.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        deps.push(word);
    }
    (!deps.is_empty()).then_some(deps)
}

/// Whether `needle` occurs in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Compiles `unit`: its object copied from the unit cache when `objects`
/// has it for the files as they are, else compiled (and, when it compiles,
/// kept there).
fn compile_unit(
    compiler: &str,
    unit: &Unit,
    workdir: &Path,
    deadline: std::time::Instant,
    objects: Option<&UnitObjects>,
    env: &[(&str, OsString)],
) -> std::io::Result<Step> {
    let manifest = objects.and_then(|o| Some((o, o.manifest_key(compiler, unit, workdir)?)));
    if let Some((objects, key)) = &manifest
        && let Some(bytes) = objects.lookup(key, workdir)
        && std::fs::write(&unit.object, bytes).is_ok()
    {
        return Ok(Step {
            ok: true,
            output: String::new(),
            timed_out: false,
        });
    }
    let deps = unit.object.with_extension("d");
    let mut args = unit.args();
    if manifest.is_some() {
        args.extend(["-MD".into(), "-MF".into(), deps.clone().into_os_string()]);
    }
    let left = deadline.saturating_duration_since(std::time::Instant::now());
    let step = run_step(compiler, args, workdir, left, env)?;
    if step.ok
        && let Some((objects, key)) = &manifest
    {
        objects.store(key, &unit.object, &deps, workdir);
    }
    Ok(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_dependencies_are_read_as_gcc_writes_them() {
        let text = "/b/student0.o: /b/upload/A\\ B.cc /b/upload/ChessBoard.hh \\\n /usr/include/c++/12/iostream /b/upload/x$$y.h\n";
        assert_eq!(
            make_dependencies(text).unwrap(),
            [
                "/b/upload/A B.cc",
                "/b/upload/ChessBoard.hh",
                "/usr/include/c++/12/iostream",
                "/b/upload/x$y.h"
            ]
        );
        assert_eq!(make_dependencies("not a rule"), None);
        assert_eq!(make_dependencies("/b/x.o: \n"), None);
    }

    #[test]
    fn a_manifest_lists_the_build_folders_files_and_refuses_volatile_ones() {
        let dir = tempfile::tempdir().unwrap();
        let b = dir.path();
        std::fs::create_dir(b.join("upload")).unwrap();
        std::fs::write(b.join("upload/A.cc"), "#include \"A.hh\"\n").unwrap();
        std::fs::write(b.join("upload/A.hh"), "int f();\n").unwrap();
        let deps = b.join("a.d");
        let rule = |files: &[&str]| format!("{}/a.o: {}\n", b.display(), files.join(" "));
        let a_cc = format!("{}/upload/A.cc", b.display());
        let a_hh = format!("{}/upload/A.hh", b.display());
        std::fs::write(&deps, rule(&[&a_cc, &a_hh, "/usr/include/stdio.h"])).unwrap();
        let text = manifest_text(&deps, b).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines.iter().any(|l| l.ends_with(" $BUILD/upload/A.hh")));
        assert!(
            lines.contains(
                &format!(
                    "{} $BUILD/upload/A.cc",
                    cache::sha256_hex(b"#include \"A.hh\"\n")
                )
                .as_str()
            )
        );
        // A file outside the build folder and the system: not kept.
        std::fs::write(&deps, rule(&[&a_cc, "/home/someone/x.h"])).unwrap();
        assert_eq!(manifest_text(&deps, b), None);
        // A unit whose object differs from one compile to the next.
        for volatile in ["__DATE__", "__TIME__", "__TIMESTAMP__", "__has_include"] {
            std::fs::write(b.join("upload/A.hh"), format!("auto s = {volatile};\n")).unwrap();
            std::fs::write(&deps, rule(&[&a_cc, &a_hh])).unwrap();
            assert_eq!(manifest_text(&deps, b), None, "{volatile}");
        }
    }
}
