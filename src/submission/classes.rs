//! C++ classes uploads: a course's headers and `.cc` files, as students
//! upload them, compiled together with the adapter kit (`adapters/kit/`:
//! the protocol, the fork server, the scans) and the course's hook file,
//! the one small file that calls the course's classes (`super::hooks`:
//! Lab 3's, `adapters/lab3-cpp/hooks.cc`, is built in; another course's
//! comes with `--adapter`). Everything is embedded in the binary, so
//! `chessgrade` works from anywhere, and built in a temporary directory.
//! Which files are compiled is the upload reader's decision
//! (`crate::upload`): for Lab 3 the sources beside `ChessBoard.hh` (or in
//! the upload's other folders when it has an `include/`), for another
//! course every source; every folder with headers on the include path; a
//! student file that defines its own `main` (the course's custom-tests
//! driver) is left out, with a note.
//!
//! The build follows the course's: `g++ -std=c++17 -g -Wall` by default
//! (no optimisation, so a submission that reads uninitialised memory gets
//! the course's verdicts). Only the hook file is compiled with each
//! submission; the kit's protocol side includes no course header and is
//! compiled once per compiler, flags and kit version and cached.
//! Translation units compile in parallel; a compile error is one message
//! that names the student's file and line first. The whole build's result
//! (the program, or the compile error) goes into the build cache
//! (`super::cache`), so an upload is compiled once per compiler and flags,
//! not once per grading; and each unit's object too, keyed by what that
//! unit reads (`super::units`), so a build that misses compiles only the
//! units no earlier build had (one changed `.cc`, the mutants of one
//! solution).

use super::cache::{self, BuildCache, Hit, KeyBuilder, Kind};
use super::hooks::{COURSE_DIR, Hooks};
use super::units::{Unit, UnitObjects, compile_all};
use super::{Build, BuildError, Origin, cap_compiler_output, run_step};
use crate::sandbox::EngineCommand;
use crate::upload::{CaseRule, Upload};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The adapter kit's protocol side (no course or student header):
/// compiled once per machine and cached.
pub const KIT_MAIN: &str = include_str!("../../adapters/kit/kit_main.cc");
/// The hooks a course's hook file defines (`adapters/kit/chessgrade_kit.hh`),
/// written beside the kit and the hook file in every build.
pub const KIT_HEADER: &str = include_str!("../../adapters/kit/chessgrade_kit.hh");
pub(super) const KIT_MAIN_FILE: &str = "chessgrade_kit_main.cc";
pub(super) const KIT_HEADER_FILE: &str = "chessgrade_kit.hh";
/// The hook file's name in a build folder (whatever the course named it).
pub(super) const HOOKS_FILE: &str = "chessgrade_hooks.cc";

/// The course's build flags (`-g -Wall`, no optimisation): a submission that
/// reads uninitialised memory gets the same verdicts as in the course's build.
pub const DEFAULT_CFLAGS: &[&str] = &["-std=c++17", "-g", "-Wall"];

/// The compiler `grade` builds with unless told (`--compiler`).
pub const DEFAULT_COMPILER: &str = "g++";

/// Seconds a build may take unless told (`--compile-timeout`).
pub const DEFAULT_COMPILE_SECONDS: f64 = 120.0;

/// Bumped whenever the kit's object must be rebuilt for another reason
/// than its source, the compiler or the flags changing.
const KIT_VERSION: u32 = 4;

/// How to compile a C++ classes submission.
#[derive(Clone, Debug)]
pub struct CppOptions {
    /// The hooks between the kit and the course's classes: Lab 3's, or a
    /// course's checked hook file (`--adapter`).
    pub hooks: Hooks,
    /// The C++ compiler (`g++`).
    pub compiler: String,
    /// Flags for every translation unit (default [`DEFAULT_CFLAGS`]).
    pub cflags: Vec<String>,
    /// For the whole build.
    pub timeout: Duration,
    /// The build cache: where (the adapter's own object is kept there
    /// too) and whether uploads' builds are reused.
    pub cache: BuildCache,
    /// Build for this memory checker: its flags added after `cflags`, to
    /// every unit (the adapter's cached object included, under a key of its
    /// own) and to the link.
    pub memcheck: Option<crate::memcheck::Tool>,
    /// How an include that names a file in another case is taken.
    pub case: CaseRule,
    /// The most the build's folder may hold (`--disk`).
    pub disk: crate::sandbox::DiskBound,
}

impl CppOptions {
    pub fn new(compiler: &str, timeout: Duration) -> CppOptions {
        CppOptions {
            hooks: Hooks::Lab3,
            compiler: compiler.to_string(),
            cflags: DEFAULT_CFLAGS.iter().map(|s| s.to_string()).collect(),
            timeout,
            cache: BuildCache::default(),
            memcheck: None,
            case: CaseRule::default(),
            disk: crate::sandbox::DiskBound::default(),
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

/// The student's folders a unit includes from: the upload's copy first,
/// then each other folder of it that holds headers.
struct Includes<'a> {
    root: &'a Path,
    others: Vec<PathBuf>,
}

/// A unit of the build: its source, object and whether it includes the
/// student's folders (every unit but the kit's main).
fn unit(
    options: &CppOptions,
    source: PathBuf,
    object: PathBuf,
    includes: Option<&Includes>,
) -> Unit {
    let mut command: Vec<OsString> = options.all_flags().iter().map(Into::into).collect();
    command.extend(["-c".into(), source.clone().into_os_string()]);
    if let Some(includes) = includes {
        for dir in
            std::iter::once(includes.root).chain(includes.others.iter().map(PathBuf::as_path))
        {
            command.push("-I".into());
            command.push(dir.as_os_str().to_owned());
        }
        // A checked build's debug information names the upload by one
        // folder wherever it was built, so its program may be cached
        // (`memcheck::source_root_flag`).
        if options.memcheck.is_some() {
            command.push(crate::memcheck::source_root_flag(includes.root));
        }
    }
    Unit {
        source,
        command,
        object,
    }
}

/// Compiles a C++ classes submission with the adapter kit: the student's
/// files and the hook file in parallel (one compiler per core), the kit's
/// main object from the cache (built once per compiler, flags and kit
/// version), then one link. With the build cache on, a build with
/// the same key as an earlier one (the build cache, `submission::cache`) is copied
/// from it instead (the program, or the same compile error); the
/// [`Origin`] says which (reports say it).
pub fn build_cpp_traced(
    upload: &Upload,
    options: &CppOptions,
) -> (Result<Build, BuildError>, Origin) {
    let mut origin = Origin::Built;
    let result = super::with_retry(|attempt| build(upload, options, &mut origin, attempt));
    (result, origin)
}

fn build(
    upload: &Upload,
    options: &CppOptions,
    origin: &mut Origin,
    attempt: super::Attempt,
) -> Result<Build, BuildError> {
    let found = match options.hooks {
        Hooks::Lab3 => upload.lab3(),
        Hooks::Course(_) => upload.classes(),
    }
    .map_err(BuildError::NotRecognised)?;
    if let Some(msg) = upload.case_error(options.case) {
        return Err(BuildError::Compile(msg));
    }
    let headroom = crate::sandbox::Headroom::now();
    let tmp = crate::sandbox::Scratch::new("chessgrade-build-", &options.disk)
        .map_err(|e| super::folder_failed(&e))?;
    // A write into the build's folder that fails for space is the
    // upload's at its bound, else the grader's disk (`copy_failed`).
    let io = |e: std::io::Error| super::copy_failed(&e, &tmp);
    // The build reads a private copy of the upload as the reader decided
    // it (no link out of it, no FIFO, no debris or stale object), owned by
    // the sandbox's uid: never the class folder itself. The compiler runs
    // in the build folder: it is given absolute paths.
    let copy = tmp.path().join("upload");
    upload
        .copy_into(&copy, options.case)
        .map_err(|e| super::copy_failed(&e, &tmp))?;
    super::upload_fits(&tmp)?;
    let sources: Vec<PathBuf> = found.sources.iter().map(|s| copy.join(s)).collect();
    let mut includes = Includes {
        root: &copy,
        others: upload
            .header_dirs()
            .into_iter()
            .filter(|d| !d.as_os_str().is_empty())
            .map(|d| copy.join(d))
            .collect(),
    };
    // A course's own headers, last: what the upload does not have.
    if let Some(course) = options.hooks.course() {
        let dir = tmp.path().join(COURSE_DIR);
        course.write_headers(&dir).map_err(io)?;
        includes.others.push(dir);
    }
    let hooks = tmp.path().join(HOOKS_FILE);
    std::fs::write(&hooks, options.hooks.text()).map_err(io)?;
    std::fs::write(tmp.path().join(KIT_HEADER_FILE), KIT_HEADER).map_err(io)?;
    let deadline = std::time::Instant::now() + options.timeout;
    let notes: Vec<String> = found
        .left_out
        .iter()
        .map(|p| format!("left out {}: it defines its own main()", p.display()))
        .collect();

    crate::sandbox::hand_over(tmp.path()).map_err(io)?;
    let compiler = compiler_identity(options, tmp.path())?;
    let kit = tmp.path().join("kit_main.o");
    let include = Some(&includes);
    let mut units = vec![unit(options, hooks, tmp.path().join("hooks.o"), include)];
    for (i, src) in sources.iter().enumerate() {
        let object = tmp.path().join(format!("student{i}.o"));
        units.push(unit(options, src.clone(), object, include));
    }
    let engine = tmp.path().join("engine");
    // A checked build links with the checker's flags too (its runtime).
    let mut link: Vec<OsString> = match options.memcheck {
        Some(tool) => tool.compile_flags().into_iter().map(Into::into).collect(),
        None => Vec::new(),
    };
    link.extend(["-o".into(), engine.clone().into()]);
    link.push(kit.clone().into());
    link.extend(units.iter().map(|u| u.object.clone().into_os_string()));
    let program = |tmp: crate::sandbox::Scratch, notes: Vec<String>| Build {
        command: EngineCommand {
            program: engine.clone(),
            args: Vec::new(),
        },
        notes,
        sources: crate::memcheck::Sources::at(&copy),
        _dir: tmp,
    };

    // The key: the build folder as the compiler will read it (the
    // upload's copy, the hook file, the kit's header), the kit it links,
    // every command.
    let cached = match options.cache.builds_folder() {
        Some(folder) => {
            let mut key = KeyBuilder::new("classes", tmp.path());
            key.tool(&compiler);
            key.tree(tmp.path())?;
            key.field("kit", KIT_MAIN.as_bytes());
            key.field("kit-version", &KIT_VERSION.to_le_bytes());
            for unit in &units {
                key.command(&options.compiler, &unit.args());
            }
            key.command(&options.compiler, &link);
            Some((folder, key.finish()))
        }
        None => None,
    };
    if let Some((folder, key)) = &cached {
        match cache::fetch(folder, key, &engine) {
            Some(Hit::Program) => {
                *origin = Origin::Cache;
                crate::sandbox::hand_over(&engine).map_err(io)?;
                return Ok(program(tmp, notes));
            }
            Some(Hit::CompileError(msg)) => {
                *origin = Origin::Cache;
                return Err(BuildError::Compile(msg));
            }
            None => {}
        }
    }

    kit_object(options, &compiler, &kit, &tmp, deadline, &headroom)?;
    let objects = UnitObjects::of(&options.cache, &compiler);
    let outputs = compile_all(
        &options.compiler,
        &units,
        tmp.path(),
        deadline,
        objects.as_ref(),
        &[],
    )?;
    let failed: Vec<&super::Step> = outputs.iter().filter(|s| !s.ok).collect();
    if !failed.is_empty() {
        let texts: Vec<String> = failed
            .iter()
            .map(|s| relative_paths(&s.output, &copy, tmp.path()))
            .collect();
        let timed_out = failed.iter().any(|s| s.timed_out);
        return Err(compile_failed(
            &tmp, &headroom, attempt, &cached, texts, timed_out,
        )?);
    }
    let left = deadline.saturating_duration_since(std::time::Instant::now());
    let linked = run_step(&options.compiler, link, tmp.path(), left, &[])
        .map_err(|e| BuildError::Io(format!("{}: {e}", options.compiler)))?;
    if !linked.ok {
        let out = relative_paths(&linked.output, &copy, tmp.path());
        let timed_out = linked.timed_out;
        return Err(compile_failed(
            &tmp,
            &headroom,
            attempt,
            &cached,
            vec![out],
            timed_out,
        )?);
    }
    if let Some((folder, key)) = &cached {
        cache::store_program(folder, key, &engine);
    }
    Ok(program(tmp, notes))
}

/// The compile error of a build whose compiler printed `texts` (in the
/// build folder `tmp`), stored in the cache when it is the upload's own
/// and finished on its own terms (not stopped at its timeout); `Err`: the
/// grader ran short under it ([`super::failed_build`]).
fn compile_failed(
    tmp: &crate::sandbox::Scratch,
    headroom: &crate::sandbox::Headroom,
    attempt: super::Attempt,
    cached: &Option<(PathBuf, cache::Key)>,
    texts: Vec<String>,
    timed_out: bool,
) -> Result<BuildError, BuildError> {
    let failed = super::failed_build(tmp, headroom, attempt, compile_message(&texts))?;
    if let Some((folder, key)) = cached
        && failed.cacheable
        && !timed_out
    {
        cache::store_compile_error(folder, key, &failed.message);
    }
    Ok(BuildError::Compile(failed.message))
}

/// The compiler's identity ([`cache::tool_identity`]); a compiler that
/// cannot start or whose `--version` fails is the staff's error.
pub(super) fn compiler_identity(
    options: &CppOptions,
    workdir: &Path,
) -> Result<String, BuildError> {
    cache::tool_identity(&options.compiler, workdir).map_err(|e| BuildError::Io(e.to_string()))
}

/// The kit's main object for this compiler and these flags, written
/// to `object` in the private build folder `workdir`: copied from the
/// cache folder after its content hash checks out, or compiled now and
/// stored there. It is the grader's code, cached whether or not uploads'
/// builds are.
///
/// The cache is the grader's: no submission can reach it (docs/grading.md,
/// "Guarantees"), and it is checked anyway: an entry is one file (its
/// SHA-256 in its header, written atomically; see [`cache`]), read whole
/// and hashed, and the bytes that were checked are what is written into
/// the build folder and linked, so nothing can change between the check
/// and the link. A missing, truncated or altered entry is compiled again
/// and replaced. Where the cache cannot be written the fresh object is used
/// directly. A compile that fails while the grader runs short of
/// something (`headroom`) is the grader's ([`BuildError::Grader`]).
pub(super) fn kit_object(
    options: &CppOptions,
    compiler: &str,
    object: &Path,
    tmp: &crate::sandbox::Scratch,
    deadline: std::time::Instant,
    headroom: &crate::sandbox::Headroom,
) -> Result<(), BuildError> {
    let workdir = tmp.path();
    let io = |e: std::io::Error| super::copy_failed(&e, tmp);
    let source = workdir.join(KIT_MAIN_FILE);
    let unit = unit(options, source.clone(), object.to_path_buf(), None);
    let mut key = KeyBuilder::new("adapter-kit", workdir);
    key.tool(compiler);
    key.field("kit", KIT_MAIN.as_bytes());
    key.field("kit-header", KIT_HEADER.as_bytes());
    key.field("kit-version", &KIT_VERSION.to_le_bytes());
    key.command(&options.compiler, &unit.args());
    let cached = options
        .cache
        .folder()
        .join(format!("adapter-kit-{}.entry", key.finish().short()));
    if let Some((Kind::Object, bytes)) = cache::read_entry(&cached) {
        std::fs::write(object, bytes).map_err(io)?;
        return Ok(());
    }
    std::fs::write(&source, KIT_MAIN).map_err(io)?;
    std::fs::write(workdir.join(KIT_HEADER_FILE), KIT_HEADER).map_err(io)?;
    let step = compile_all(
        &options.compiler,
        std::slice::from_ref(&unit),
        workdir,
        deadline,
        None,
        &[],
    )?
    .remove(0);
    if !step.ok {
        if let Some(fault) = headroom.fault_since(tmp, &step.output) {
            return Err(BuildError::Grader(fault.to_string()));
        }
        // Not the student's fault: a compiler or flags that cannot build the kit.
        return Err(BuildError::Io(format!(
            "the adapter kit does not compile with {} {}:\n{}",
            options.compiler,
            options.all_flags().join(" "),
            step.output
        )));
    }
    // Best effort: a cache that cannot be written only costs a compile.
    let _ = cache::store_file(&cached, Kind::Object, object);
    Ok(())
}

/// Compiler output with the submission's folder and the build folder cut
/// from paths, so messages name `RookPiece.cc:12:5`, not a temporary path.
fn relative_paths(output: &str, dir: &Path, tmp: &Path) -> String {
    output
        .replace(&format!("{}/", dir.display()), "")
        .replace(&format!("{}/", tmp.display()), "")
}

/// The compile error as shown once per submission: the first error in one
/// of the student's files first (not the hook file that included it),
/// then the compiler's whole output, capped.
pub fn compile_message(outputs: &[String]) -> String {
    let all = outputs.join("\n");
    let is_error = |l: &str| l.contains(": error:") || l.contains(": fatal error:");
    let adapter_file = |l: &str| l.starts_with(HOOKS_FILE) || l.starts_with(KIT_MAIN_FILE);
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
