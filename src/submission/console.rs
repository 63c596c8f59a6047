//! Console program uploads (JHU CS220's `./chess`, CUHK CSCI1120's game):
//! the upload, as the reader decided it (`crate::upload`: debris and stale
//! build products left out, includes resolved as the student's machine
//! did), is copied into a temporary directory, the staff's overlay
//! (files a student must not change, e.g. JHU's `Piece.h`) is copied over
//! it, then the files the grader writes for the scenarios (the graders'
//! `Mystery.h` for a `@mystery` shape), and it is built the way the course
//! builds it: its `Makefile` (`make`), else `CMakeLists.txt` (`cmake`),
//! else every source with `g++` and the course's flags, in whatever folders
//! the upload keeps them (or the ones its Visual Studio project lists), with
//! every folder of headers on the include path, as the student's IDE built
//! them (one compile per file, each from the unit cache when it has it,
//! then one link); `--build CMD`
//! replaces all of that. The binary is the one the course names (`chess`).
//! A build that fails is the student's compile error, with the compiler's
//! message, and, when the overlay replaced files that differed from the
//! upload's, which ones: the overlay is one term's starter, and an upload
//! written against another term's fails on it for that reason alone. A tool
//! that cannot be started is a staff-side error. Its result (the program,
//! or the compile error) goes into the build cache (`super::cache`), keyed
//! by the whole folder as the build sees it (the overlay, the grader's
//! files and a checked build's compiler wrappers included), the commands
//! and the tools.

use super::cache::{self, BuildCache, Hit, KeyBuilder};
use super::units::{Unit, UnitObjects, compile_all};
use super::{Build, BuildError, Origin, cap_compiler_output, copy_tree, run_step};
use crate::sandbox::{self, EngineCommand};
use crate::upload::{self, CaseRule, Upload};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How a console upload is built.
#[derive(Clone, Debug)]
pub struct ConsoleBuild<'a> {
    /// The binary the build must make (relative to the upload's root).
    pub binary: &'a str,
    /// The C++ compiler, for uploads without a Makefile or CMakeLists.txt.
    pub compiler: &'a str,
    /// The course's compiler flags for that case.
    pub cxx_flags: &'a [String],
    /// A shell command that replaces the build (run in the upload's root).
    pub command: Option<&'a str>,
    /// Staff files copied over the upload before building.
    pub overlay: Option<&'a Path>,
    /// Files written over the upload after the overlay (name in the
    /// upload's root, text): the graders' `Mystery.h` for a scenario.
    pub files: &'a [(String, String)],
    pub timeout: Duration,
    /// Build for this memory checker: its flags are added to every
    /// compile and link, whatever runs the compiler (see [`build_console_traced`]).
    pub memcheck: Option<crate::memcheck::Tool>,
    /// Where builds are cached, and whether.
    pub cache: &'a BuildCache,
    /// How an include that names a file in another case is taken.
    pub case: CaseRule,
    /// The most the build's folder may hold (`--disk`).
    pub disk: sandbox::DiskBound,
}

/// Builds a console upload; the program is `<root>/<binary>` (or, for
/// CMake, `<root>/build/<binary>`). With the build cache on, a build with
/// the same key as an earlier one is copied from it instead: the program
/// is put where the build would have made it, in the same folder of
/// sources, or the same compile error is returned. The [`Origin`] says
/// which (reports say it).
pub fn build_console_traced(
    upload: &Upload,
    how: &ConsoleBuild,
) -> (Result<Build, BuildError>, Origin) {
    let mut origin = Origin::Built;
    let result = super::with_retry(|attempt| build(upload, how, &mut origin, attempt));
    (result, origin)
}

/// A tool's identity for the key; one that cannot say (`sh --version`) is
/// identified by what it says instead.
fn identity(tool: &str, workdir: &Path) -> String {
    cache::tool_identity(tool, workdir).unwrap_or_else(|e| e.to_string())
}

fn build(
    upload: &Upload,
    how: &ConsoleBuild,
    origin: &mut Origin,
    attempt: super::Attempt,
) -> Result<Build, BuildError> {
    if let Some(msg) = upload.case_error(how.case) {
        return Err(BuildError::Compile(msg));
    }
    let headroom = sandbox::Headroom::now();
    let tmp = sandbox::Scratch::new("chessgrade-console-build-", &how.disk)
        .map_err(|e| super::folder_failed(&e))?;
    let root = tmp.path().join("src");
    let replaced = lay_out(upload, how, &root, &tmp)?;
    let compile_error = |msg: String| match &replaced {
        Some(r) => BuildError::Compile(format!("{}\n\n{}", msg.trim_end(), r.failed_note())),
        None => BuildError::Compile(msg),
    };
    let env = checker_env(how, &root)?;
    let (steps, program, layout) = plan(upload, how, &root)?;
    sandbox::hand_over(tmp.path()).map_err(|e| BuildError::Io(e.to_string()))?;
    let built = |tmp: sandbox::Scratch| Build {
        command: EngineCommand {
            program: program.clone(),
            args: Vec::new(),
        },
        notes: layout
            .iter()
            .cloned()
            .chain(replaced.iter().map(Replaced::built_note))
            .collect(),
        sources: crate::memcheck::Sources::at(&root).with_staff(staff_files(how)),
        _dir: tmp,
    };
    let cached = match how.cache.builds_folder() {
        Some(folder) => Some((
            folder,
            cache_key(how, tmp.path(), &root, &steps, &program, &env)?,
        )),
        None => None,
    };
    if let Some((folder, key)) = &cached {
        match cache::fetch(folder, key, &program) {
            Some(Hit::Program) => {
                *origin = Origin::Cache;
                sandbox::hand_over(tmp.path()).map_err(|e| BuildError::Io(e.to_string()))?;
                return Ok(built(tmp));
            }
            Some(Hit::CompileError(msg)) => {
                *origin = Origin::Cache;
                return Err(compile_error(msg));
            }
            None => {}
        }
    }
    // The compiler's message is cached as it is; the overlay's note is
    // added each time (it names the overlay folder of this run).
    // Only a failure of the upload's own is cached ([`super::failed_build`]).
    let failed = |msg: String, timed_out: bool| {
        let failed = super::failed_build(&tmp, &headroom, attempt, msg)?;
        if failed.out_of_disk {
            return Err(compile_error(failed.message));
        }
        let msg = match main_hint(&failed.message, upload) {
            Some(hint) => format!("{hint}\n\n{}", failed.message),
            None => failed.message,
        };
        if let Some((folder, key)) = &cached
            && failed.cacheable
            && !timed_out
        {
            cache::store_compile_error(folder, key, &msg);
        }
        Err(compile_error(msg))
    };
    if let Err(Failed { output, timed_out }) = run(steps, how, &root, &env)? {
        return failed(tidy(&output, &root), timed_out);
    }
    if !program.is_file() {
        return failed(
            format!(
                "the build finished but made no `{}`",
                program.strip_prefix(&root).unwrap_or(&program).display()
            ),
            false,
        );
    }
    if let Some((folder, key)) = &cached {
        cache::store_program(folder, key, &program);
    }
    Ok(built(tmp))
}

/// Lays the build's folder out at `root`: the upload as the reader
/// decided it, the overlay over it, then the grader's files; a program
/// uploaded with the sources is removed. Returns what the overlay replaced
/// (files that differed from the upload's): said with a compile error (the
/// likely cause), and as a note of a build that succeeded (graded with the
/// staff's versions of them).
fn lay_out(
    upload: &Upload,
    how: &ConsoleBuild,
    root: &Path,
    tmp: &sandbox::Scratch,
) -> Result<Option<Replaced>, BuildError> {
    upload
        .copy_into(root, how.case)
        .map_err(|e| super::copy_failed(&e, tmp))?;
    super::upload_fits(tmp)?;
    let mut replaced = None;
    if let Some(overlay) = how.overlay {
        if !overlay.is_dir() {
            return Err(BuildError::Io(format!(
                "--overlay {} is not a folder",
                overlay.display()
            )));
        }
        let mut files = replaced_files(overlay, root);
        files.retain(|f| !how.files.iter().any(|(name, _)| name == f));
        replaced = Replaced::of(overlay, &files);
        copy_tree(overlay, root, tmp)?;
    }
    for (name, text) in how.files {
        let path = root.join(name);
        // An uploaded file of that name may be read-only, a link, or a folder.
        let _ = std::fs::remove_file(&path).or_else(|_| std::fs::remove_dir_all(&path));
        std::fs::write(&path, text)
            .map_err(|e| BuildError::Io(format!("{}: {e}", path.display())))?;
    }
    // A binary uploaded with the sources is not the student's build.
    let _ = std::fs::remove_file(root.join(how.binary));
    Ok(replaced)
}

/// A checked build's environment: the course's build as it is, with the
/// checker's flags added to every compiler call. A Makefile, CMake or
/// `--build` names its compiler itself (`g++`, `$(CXX)`, `c++`...), so
/// wrappers of those names that add the flags come first on its PATH (and,
/// being in the build's folder, in the cache key).
fn checker_env(
    how: &ConsoleBuild,
    root: &Path,
) -> Result<Vec<(&'static str, OsString)>, BuildError> {
    let mut env = Vec::new();
    if let Some(tool) = how.memcheck {
        let bin = root.join(WRAPPER_DIR);
        write_compiler_wrappers(&bin, &tool.compile_flags())
            .map_err(|e| BuildError::Io(format!("cannot write the compiler wrappers: {e}")))?;
        let mut path = bin.into_os_string();
        if let Some(rest) = std::env::var_os("PATH") {
            path.push(":");
            path.push(rest);
        }
        env.push(("PATH", path));
    }
    Ok(env)
}

/// What the build runs and the program it makes: `--build`, else the
/// build file (perhaps the overlay's: looked for after it), else the
/// sources; with how the sources were found, when that was a decision
/// (subfolders, a project file), for the notes.
fn plan(
    upload: &Upload,
    how: &ConsoleBuild,
    root: &Path,
) -> Result<(Steps, PathBuf, Option<String>), BuildError> {
    let binary = root.join(how.binary);
    if let Some(cmd) = how.command {
        let steps = Steps::Commands(vec![("sh".into(), vec!["-c".into(), cmd.into()])]);
        return Ok((steps, binary, None));
    }
    Ok(match build_file(root) {
        Some(upload::BuildFile::Make) => (
            Steps::Commands(vec![("make".into(), Vec::new())]),
            binary,
            None,
        ),
        Some(upload::BuildFile::CMake) => (
            Steps::Commands(vec![
                (
                    "cmake".into(),
                    vec!["-S".into(), ".".into(), "-B".into(), "build".into()],
                ),
                ("cmake".into(), vec!["--build".into(), "build".into()]),
            ]),
            root.join("build").join(how.binary),
            None,
        ),
        None => {
            let sources = Sources::of(upload, how.overlay);
            if sources.files.is_empty() {
                return Err(BuildError::NotRecognised(format!(
                    "nothing to build: the upload has no Makefile, CMakeLists.txt or C++ \
                     source file (.cpp, .cc); {}",
                    upload.contents()
                )));
            }
            let steps = sources_steps(how, root, &binary, &sources)?;
            (steps, binary, sources.note())
        }
    })
}

/// The build's key: the folder as the build will read it (upload,
/// overlay, the grader's files, compiler wrappers), every command and
/// every tool, the program's place, a checked build's environment.
fn cache_key(
    how: &ConsoleBuild,
    build: &Path,
    root: &Path,
    steps: &Steps,
    program: &Path,
    env: &[(&str, OsString)],
) -> Result<cache::Key, BuildError> {
    let mut key = KeyBuilder::new("console", build);
    key.tree(build)?;
    key.tool(&identity(how.compiler, root));
    match steps {
        Steps::Commands(commands) => {
            for (tool, args) in commands {
                key.tool(&identity(tool, root));
                key.command(tool, args);
            }
        }
        Steps::Units { units, link } => {
            for unit in units {
                key.command(how.compiler, &unit.args());
            }
            key.command(how.compiler, link);
        }
    }
    key.command("(the program)", &[program.as_os_str().to_owned()]);
    // PATH with its compiler wrappers first, the build folder written
    // `$BUILD` as in commands.
    for (name, value) in env {
        key.command(&format!("(env {name})"), std::slice::from_ref(value));
    }
    Ok(key.finish())
}

/// A build step that failed: its output, and whether it was stopped at
/// the timeout (then not the upload's result, never cached).
struct Failed {
    output: String,
    timed_out: bool,
}

/// Runs the steps in `root`: the commands one after the other, or each
/// unit (from the unit cache when it has it) then the link. A tool that
/// cannot start is the staff's error.
fn run(
    steps: Steps,
    how: &ConsoleBuild,
    root: &Path,
    env: &[(&str, OsString)],
) -> Result<Result<(), Failed>, BuildError> {
    let failed = |step: super::Step| Failed {
        output: step.output,
        timed_out: step.timed_out,
    };
    match steps {
        Steps::Commands(commands) => {
            for (tool, args) in commands {
                let step = run_step(&tool, args, root, how.timeout, env)
                    .map_err(|e| BuildError::Io(format!("cannot run `{tool}`: {e}")))?;
                if !step.ok {
                    return Ok(Err(failed(step)));
                }
            }
        }
        Steps::Units { units, link } => {
            let deadline = std::time::Instant::now() + how.timeout;
            // The compiler's identity keys the unit cache: asked for only
            // when the cache is on (`--version` is one more sandboxed run).
            let compiler = how.cache.builds.then(|| identity(how.compiler, root));
            let objects = compiler
                .as_deref()
                .and_then(|c| UnitObjects::of(how.cache, c));
            let outputs = compile_all(how.compiler, &units, root, deadline, objects.as_ref(), env)?;
            // In the sources' order, as one `g++ *.cpp` would print them.
            let failed_units: Vec<&super::Step> = outputs.iter().filter(|s| !s.ok).collect();
            if !failed_units.is_empty() {
                return Ok(Err(Failed {
                    output: failed_units.iter().map(|s| s.output.as_str()).collect(),
                    timed_out: failed_units.iter().any(|s| s.timed_out),
                }));
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let step = run_step(how.compiler, link, root, left, env)
                .map_err(|e| BuildError::Io(format!("cannot run `{}`: {e}", how.compiler)))?;
            if !step.ok {
                return Ok(Err(failed(step)));
            }
        }
    }
    Ok(Ok(()))
}

/// What a build runs.
enum Steps {
    /// Commands run one after the other in the upload's root: `make`,
    /// CMake's two, or `--build`'s shell.
    Commands(Vec<(String, Vec<OsString>)>),
    /// Every source compiled on its own (each from the unit cache when it
    /// has it), then one link: what `g++ FLAGS *.cpp -o chess` does, with
    /// its objects in a folder of the build instead of the system's
    /// temporary one.
    Units {
        units: Vec<Unit>,
        link: Vec<OsString>,
    },
}

/// Where a build of sources puts its objects (in the upload's copy, so
/// that the linker's messages name them `.chessgrade-objects/main.o`).
const OBJECT_DIR: &str = ".chessgrade-objects";

/// The sources of a build with no build file, relative to the upload's
/// root: the upload's ([`Upload::program_sources`]) and the overlay's.
struct Sources {
    files: Vec<PathBuf>,
    /// Folders on the include path (none when every source and header is
    /// at the root, where the compiler looks anyway).
    includes: Vec<PathBuf>,
    /// The project file that listed them.
    project: Option<PathBuf>,
}

impl Sources {
    fn of(upload: &Upload, overlay: Option<&Path>) -> Sources {
        let found = upload.program_sources();
        let mut files = found.files;
        if let Some(overlay) = overlay {
            for entry in std::fs::read_dir(overlay).into_iter().flatten().flatten() {
                let name = PathBuf::from(entry.file_name());
                if entry.path().is_file() && upload::is_source(&name) && !files.contains(&name) {
                    files.push(name);
                }
            }
            files.sort();
        }
        let at_root = |p: &Path| p.parent() == Some(Path::new(""));
        let flat = upload
            .files()
            .iter()
            .filter(|f| upload::is_source(f) || upload::is_header(f))
            .all(|f| at_root(f));
        Sources {
            files,
            includes: if flat {
                Vec::new()
            } else {
                upload.header_dirs()
            },
            project: found.project,
        }
    }

    /// What the notes say of them, when finding them was a decision.
    fn note(&self) -> Option<String> {
        let files: Vec<String> = self.files.iter().map(|p| p.display().to_string()).collect();
        let dirs: Vec<String> = self
            .includes
            .iter()
            .map(|d| {
                format!(
                    "{}/",
                    if d.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        d
                    }
                    .display()
                )
            })
            .collect();
        let include = match dirs.is_empty() {
            true => String::new(),
            false => format!("; include path: {}", dirs.join(", ")),
        };
        match &self.project {
            Some(project) => Some(format!(
                "sources: the {} files {} lists: {}{include}",
                files.len(),
                project.display(),
                upload::listing(&files)
            )),
            None if !dirs.is_empty() => Some(format!(
                "sources: {} files from the upload's folders, as the student's IDE built them \
                 (no Makefile or CMakeLists.txt): {}{include}",
                files.len(),
                upload::listing(&files)
            )),
            None => None,
        }
    }
}

/// Where the build file is after the overlay: `Makefile` first.
fn build_file(root: &Path) -> Option<upload::BuildFile> {
    if ["Makefile", "makefile", "GNUmakefile"]
        .iter()
        .any(|name| root.join(name).is_file())
    {
        Some(upload::BuildFile::Make)
    } else if root.join("CMakeLists.txt").is_file() {
        Some(upload::BuildFile::CMake)
    } else {
        None
    }
}

/// A link that failed for the upload's shape, in a student's words: two
/// files that each define `main`, or none.
fn main_hint(output: &str, upload: &Upload) -> Option<String> {
    let several = output.contains("multiple definition of `main'");
    let none = output.contains("undefined reference to `main'");
    if !several && !none {
        return None;
    }
    let mains: Vec<String> = upload
        .files()
        .iter()
        .filter(|f| upload::is_source(f))
        .filter(|f| {
            std::fs::read(upload.root().join(f))
                .is_ok_and(|b| upload::defines_main(&String::from_utf8_lossy(&b)))
        })
        .map(|f| f.display().to_string())
        .collect();
    Some(if several {
        format!(
            "The upload's shape, not its code: {} files define main() ({}), and a program has \
             one. Leave the extra one out of the upload, or add a Makefile that builds only the \
             program's files.",
            mains.len(),
            mains.join(", ")
        )
    } else {
        "The upload's shape, not its code: no file of the upload defines main(), so there is \
         no program to link. Is the file with main() missing from the upload?"
            .to_string()
    })
}

/// The steps of a build of `sources` with the course's flags (and a
/// checked build's), into `binary`.
fn sources_steps(
    how: &ConsoleBuild,
    root: &Path,
    binary: &Path,
    sources: &Sources,
) -> Result<Steps, BuildError> {
    let mut flags: Vec<OsString> = how.cxx_flags.iter().map(Into::into).collect();
    if let Some(tool) = how.memcheck {
        flags.extend(tool.compile_flags().into_iter().map(OsString::from));
    }
    for dir in &sources.includes {
        flags.push("-I".into());
        flags.push(root.join(dir).into_os_string());
    }
    let objects = root.join(OBJECT_DIR);
    // An uploaded file or folder of that name is not the build's.
    let _ = std::fs::remove_file(&objects).or_else(|_| std::fs::remove_dir_all(&objects));
    std::fs::create_dir(&objects)
        .map_err(|e| BuildError::Io(format!("{}: {e}", objects.display())))?;
    let mut link = flags.clone();
    link.extend(["-o".into(), binary.as_os_str().to_owned()]);
    let mut units = Vec::new();
    for (i, source) in sources.files.iter().map(|f| root.join(f)).enumerate() {
        let stem = source.file_stem().unwrap_or_default().to_string_lossy();
        let object = objects.join(format!("{i}-{stem}.o"));
        let mut command = flags.clone();
        if how.memcheck.is_some() {
            command.push(crate::memcheck::source_root_flag(root));
        }
        command.extend(["-c".into(), source.clone().into_os_string()]);
        link.push(object.clone().into_os_string());
        units.push(Unit {
            source,
            command,
            object,
        });
    }
    Ok(Steps::Units { units, link })
}

/// Where a checked build's compiler wrappers are (in the upload's copy).
const WRAPPER_DIR: &str = ".chessgrade-memcheck-bin";

/// The compiler names a build may call, each wrapped when found on PATH.
const WRAPPED_COMPILERS: &[&str] = &["g++", "gcc", "c++", "cc", "clang++", "clang"];

/// Writes, into `bin`, a script per compiler of [`WRAPPED_COMPILERS`] that
/// runs the real one (by its absolute path) with its arguments and `flags`.
fn write_compiler_wrappers(bin: &Path, flags: &[String]) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(bin)?;
    let quote = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
    let flags: Vec<String> = flags.iter().map(|f| quote(f)).collect();
    for name in WRAPPED_COMPILERS {
        let Ok(real) = which::which(name) else {
            continue;
        };
        // The upload's folder (this script's folder's parent, as the build
        // calls it through PATH), found by the shell at run time, is
        // written as the one folder of `memcheck::source_root_flag`: the
        // script's bytes, which are in the cache key, name no folder.
        let root = format!("${{0%/{WRAPPER_DIR}/*}}");
        let root_flag = crate::memcheck::source_root_flag(Path::new(&root));
        let script = format!(
            "#!/bin/sh\n# chessgrade --memcheck: the course's compiler with the checker's flags\nexec {} \"$@\" {} \"{}\"\n",
            quote(&real.to_string_lossy()),
            flags.join(" "),
            root_flag.to_string_lossy(),
        );
        let path = bin.join(name);
        std::fs::write(&path, script)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

/// The staff's files in the build, relative to its root: the overlay's
/// (copied over the upload) and the files the grader wrote (the graders'
/// Mystery.h). A memory checker leaves them out of the student's frames.
fn staff_files(how: &ConsoleBuild) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = how.files.iter().map(|(name, _)| name.into()).collect();
    if let Some(overlay) = how.overlay {
        files.extend(
            walkdir::WalkDir::new(overlay)
                .follow_links(false)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .filter_map(|e| e.path().strip_prefix(overlay).ok().map(Path::to_path_buf)),
        );
    }
    files
}

/// The files of `overlay` (paths relative to it, sorted) that the upload at
/// `root` holds with other bytes: what copying the overlay replaces. An
/// upload written against another term's starter differs there.
fn replaced_files(overlay: &Path, root: &Path) -> Vec<String> {
    let mut replaced: Vec<String> = walkdir::WalkDir::new(overlay)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let rel = e.path().strip_prefix(overlay).ok()?;
            let theirs = root.join(rel);
            let is_file = std::fs::symlink_metadata(&theirs).is_ok_and(|m| m.is_file());
            (is_file && std::fs::read(&theirs).ok()? != std::fs::read(e.path()).ok()?)
                .then(|| rel.display().to_string())
        })
        .collect();
    replaced.sort();
    replaced
}

/// The files an overlay replaced that differed from the upload's, as the
/// build's notes say them.
struct Replaced {
    /// `--overlay DIR`.
    overlay: String,
    /// `replaced 1 file that differs from the upload's: Piece.h`.
    what: String,
}

impl Replaced {
    /// `None` when the overlay replaced no file that differed.
    fn of(overlay: &Path, files: &[String]) -> Option<Replaced> {
        let (noun, differ) = match files.len() {
            0 => return None,
            1 => ("file", "differs"),
            _ => ("files", "differ"),
        };
        Some(Replaced {
            overlay: format!("--overlay {}", overlay.display()),
            what: format!(
                "replaced {} {noun} that {differ} from the upload's: {}",
                files.len(),
                files.join(", ")
            ),
        })
    }

    /// What a failed build's message adds: which files, and that the
    /// overlay is one term's starter.
    fn failed_note(&self) -> String {
        format!(
            "the overlay ({}, the course's term-specific starter) {}. If the upload was \
             written against another term's starter, grade it without --overlay or with \
             that term's starter.",
            self.overlay, self.what
        )
    }

    /// The note of a build that succeeded: the student's versions of those
    /// files were not the ones graded.
    fn built_note(&self) -> String {
        format!(
            "overlay: {} {}; the program was built and graded with the overlay's",
            self.overlay, self.what
        )
    }
}

/// The compiler's message, capped, with the temporary paths removed.
fn tidy(output: &str, root: &Path) -> String {
    let mut msg = output.replace(&format!("{}/", root.display()), "");
    cap_compiler_output(&mut msg);
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overlay_files_that_differ_from_the_uploads_are_named() {
        let overlay = tempfile::tempdir().unwrap();
        let upload = tempfile::tempdir().unwrap();
        for (name, ours, theirs) in [
            ("Piece.h", "this term", Some("another term")),
            ("Makefile", "same", Some("same")),
            ("Terminal.h", "only in the overlay", None),
            ("Bishop.h", "this term", Some("another term")),
        ] {
            std::fs::write(overlay.path().join(name), ours).unwrap();
            if let Some(text) = theirs {
                std::fs::write(upload.path().join(name), text).unwrap();
            }
        }
        let replaced = replaced_files(overlay.path(), upload.path());
        assert_eq!(replaced, ["Bishop.h", "Piece.h"]);
        let replaced = Replaced::of(Path::new("staff/jhu"), &replaced).unwrap();
        let note = replaced.failed_note();
        assert_eq!(
            note,
            "the overlay (--overlay staff/jhu, the course's term-specific starter) replaced 2 \
             files that differ from the upload's: Bishop.h, Piece.h. If the upload was written \
             against another term's starter, grade it without --overlay or with that term's \
             starter."
        );
        assert_eq!(
            replaced.built_note(),
            "overlay: --overlay staff/jhu replaced 2 files that differ from the upload's: \
             Bishop.h, Piece.h; the program was built and graded with the overlay's"
        );
        assert!(
            Replaced::of(Path::new("o"), &["Piece.h".to_string()])
                .unwrap()
                .failed_note()
                .contains("replaced 1 file that differs from the upload's: Piece.h.")
        );
        assert_eq!(
            Replaced::of(Path::new("o"), &[]).map(|r| r.failed_note()),
            None
        );
    }
}
