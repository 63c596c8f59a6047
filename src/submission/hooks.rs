//! The hooks between the adapter kit and a course's classes: Lab 3's,
//! built in, or a course's own hook file (`--adapter FILE`), the one small
//! C++ file a course writes against its own headers
//! (`adapters/kit/chessgrade_kit.hh`; docs/course-classes.md).
//!
//! A hook file is the staff's, so everything wrong with it is the staff's
//! problem, found once before any upload is built ([`CourseHooks::load`]):
//! it is compiled against the course's headers, which sit beside it (the
//! interface the students implement), and linked with the kit, so that a
//! hook file that does not compile, or lacks a required hook, is one
//! exit-2 message naming the file and the hook, never a compile error in a
//! student's report. Only then does an upload's build compile it again,
//! against that upload's headers: what fails there is the upload's
//! classes differing from the course's, the student's.
//!
//! A hook file and the course's headers are read once, and what was read
//! is what every build writes into its own folder: the hook file as
//! `chessgrade_hooks.cc` (an upload cannot replace it, whatever its files
//! are called), the headers in a folder of their own, last on the include
//! path, so that an upload that leaves out a course header (its classes'
//! `.cc` files only) compiles against the course's, while an upload's own
//! headers come first.

use super::BuildError;
use super::classes::{
    CppOptions, HOOKS_FILE, KIT_HEADER, KIT_HEADER_FILE, compiler_identity, kit_object,
};
use super::units::{Unit, UnitObjects, compile_all};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Lab 3's hook file (`adapters/lab3-cpp/hooks.cc`), built in.
pub const LAB3_HOOKS: &str = include_str!("../../adapters/lab3-cpp/hooks.cc");

/// The largest hook file read.
const MAX_HOOK_FILE_BYTES: u64 = 1 << 20;
/// Course headers read: at most this many, this deep, this many bytes.
const MAX_COURSE_HEADERS: usize = 1000;
const MAX_COURSE_DEPTH: usize = 4;
const MAX_COURSE_BYTES: u64 = 16 << 20;
/// The course's headers' folder in a build folder.
pub(super) const COURSE_DIR: &str = "course";

/// The hooks that put an upload's classes behind the kit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hooks {
    /// Lab 3's: the upload is `ChessBoard.hh` and the sources beside it.
    Lab3,
    /// A course's own hook file, checked: the upload is every C++ source
    /// but one that defines `main`.
    Course(CourseHooks),
}

impl Hooks {
    /// The hook file's text, as every build writes it.
    pub fn text(&self) -> &str {
        match self {
            Hooks::Lab3 => LAB3_HOOKS,
            Hooks::Course(c) => &c.text,
        }
    }

    /// The course's hook file, if it is not Lab 3's built-in one.
    pub fn course(&self) -> Option<&CourseHooks> {
        match self {
            Hooks::Lab3 => None,
            Hooks::Course(c) => Some(c),
        }
    }
}

/// A course's hook file, read and checked ([`CourseHooks::load`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CourseHooks {
    /// Where it was read from (for messages).
    pub path: PathBuf,
    /// What every build compiles.
    pub text: String,
    /// The course's headers beside it (paths relative to its folder, and
    /// their bytes), as read.
    pub headers: Vec<(PathBuf, Vec<u8>)>,
}

/// Why a hook file cannot be used: the staff's problem, said whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookFileError(pub String);

impl std::fmt::Display for HookFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HookFileError {}

/// The hooks a hook file must define (chessgrade_kit.hh's required ones).
pub const REQUIRED_HOOKS: &[&str] = &["rules", "new_board", "place", "try_move", "piece_at"];

impl CourseHooks {
    /// Reads the hook file at `path` and the course's headers beside it
    /// (every header of its folder, up to four folders down), and checks it
    /// with `options`' compiler and flags: compiled against those headers,
    /// then linked with the kit, every required hook defined. The
    /// compile of the hook file and the kit's object come from the build
    /// cache when it has them, so a second run checks with one link.
    pub fn load(path: &Path, options: &CppOptions) -> Result<CourseHooks, HookFileError> {
        let named = |what: String| HookFileError(format!("--adapter {}: {what}", path.display()));
        let bytes = crate::scenario::read_regular_file(path, MAX_HOOK_FILE_BYTES)
            .map_err(|e| named(e.at_fixed_cap()))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| named("the hook file is not UTF-8 text".to_string()))?;
        let dir = course_dir(path);
        let headers = read_headers(&dir).map_err(|e| {
            named(format!(
                "cannot read the course's headers in {}: {e}",
                dir.display()
            ))
        })?;
        let hooks = CourseHooks {
            path: path.to_path_buf(),
            text,
            headers,
        };
        hooks.check(options).map_err(|e| match e {
            Checked::Staff(m) => named(m),
            Checked::Build(
                BuildError::Io(m)
                | BuildError::Compile(m)
                | BuildError::NotRecognised(m)
                | BuildError::Grader(m),
            ) => named(format!("cannot check the hook file: {m}")),
        })?;
        Ok(hooks)
    }

    /// Writes the course's headers into `to` (created), keeping their
    /// places.
    pub(super) fn write_headers(&self, to: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(to)?;
        for (rel, bytes) in &self.headers {
            let target = to.join(rel);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(target, bytes)?;
        }
        Ok(())
    }

    fn check(&self, options: &CppOptions) -> Result<(), Checked> {
        let build = |e: std::io::Error| Checked::Build(BuildError::Io(e.to_string()));
        let headroom = crate::sandbox::Headroom::now();
        let tmp =
            crate::sandbox::Scratch::new("chessgrade-hooks-", &options.disk).map_err(build)?;
        let course = tmp.path().join(COURSE_DIR);
        self.write_headers(&course).map_err(build)?;
        let source = tmp.path().join(HOOKS_FILE);
        std::fs::write(&source, &self.text).map_err(build)?;
        std::fs::write(tmp.path().join(KIT_HEADER_FILE), KIT_HEADER).map_err(build)?;
        crate::sandbox::hand_over(tmp.path()).map_err(build)?;
        let deadline = std::time::Instant::now() + options.timeout;
        let compiler = compiler_identity(options, tmp.path()).map_err(Checked::Build)?;

        let mut command: Vec<OsString> = options.all_flags().iter().map(Into::into).collect();
        command.extend([
            "-c".into(),
            source.clone().into(),
            "-I".into(),
            course.into(),
        ]);
        let object = tmp.path().join("hooks.o");
        let unit = Unit {
            source,
            command,
            object: object.clone(),
        };
        let objects = UnitObjects::of(&options.cache, &compiler);
        let compiled = compile_all(
            &options.compiler,
            std::slice::from_ref(&unit),
            tmp.path(),
            deadline,
            objects.as_ref(),
            &[],
        )
        .map_err(Checked::Build)?
        .remove(0);
        let shown = |out: &str| self.shown(out, tmp.path());
        if !compiled.ok {
            // The grader running short is not the hook file's fault.
            if let Some(fault) = headroom.fault_since(&tmp, &compiled.output) {
                return Err(Checked::Build(BuildError::Grader(fault.to_string())));
            }
            let dir = course_dir(&self.path);
            let beside = match self.headers.len() {
                0 => format!(
                    "; {} holds no header: the course's headers go beside the hook file",
                    dir.display()
                ),
                n => format!(" ({n} in {})", dir.display()),
            };
            return Err(Checked::Staff(format!(
                "the hook file does not compile against the course's headers{beside}:\n{}",
                shown(&compiled.output)
            )));
        }

        let kit = tmp.path().join("kit_main.o");
        kit_object(options, &compiler, &kit, &tmp, deadline, &headroom).map_err(Checked::Build)?;
        let mut link: Vec<OsString> = match options.memcheck {
            Some(tool) => tool.compile_flags().into_iter().map(Into::into).collect(),
            None => Vec::new(),
        };
        // The students' classes are not there: only the hooks' own
        // references must resolve.
        link.extend([
            "-o".into(),
            tmp.path().join("probe").into(),
            kit.into(),
            object.into(),
            "-Wl,--warn-unresolved-symbols".into(),
        ]);
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let linked = super::run_step(&options.compiler, link, tmp.path(), left, &[])
            .map_err(|e| Checked::Build(BuildError::Io(format!("{}: {e}", options.compiler))))?;
        let missing = missing_hooks(&linked.output);
        if !missing.is_empty() {
            let list: Vec<String> = missing.iter().map(|h| format!("`{h}`")).collect();
            return Err(Checked::Staff(format!(
                "the hook file does not define the required hook{} {} (each with the signature chessgrade_kit.hh declares: adapters/kit/chessgrade_kit.hh)",
                if missing.len() == 1 { "" } else { "s" },
                list.join(", ")
            )));
        }
        if !linked.ok {
            return Err(Checked::Staff(format!(
                "the hook file does not link with the adapter kit:\n{}",
                shown(&linked.output)
            )));
        }
        Ok(())
    }

    /// Compiler output with the check's folder named as the staff know it.
    fn shown(&self, output: &str, tmp: &Path) -> String {
        let mut text = output
            .replace(
                &format!("{}/", tmp.join(COURSE_DIR).display()),
                &format!("{}/", course_dir(&self.path).display()),
            )
            .replace(
                &tmp.join(HOOKS_FILE).display().to_string(),
                &self.path.display().to_string(),
            )
            .replace(&format!("{}/", tmp.display()), "");
        super::cap_compiler_output(&mut text);
        text
    }
}

/// How a check went wrong: the hook file's fault, or the check could not
/// run at all.
enum Checked {
    Staff(String),
    Build(BuildError),
}

/// The folder whose headers are the course's: the hook file's.
fn course_dir(hook_file: &Path) -> PathBuf {
    match hook_file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Every header under `from` (not following links, not in a hidden
/// folder, at most [`MAX_COURSE_HEADERS`] of them and [`MAX_COURSE_BYTES`]
/// in all, [`MAX_COURSE_DEPTH`] folders down), sorted, with its path
/// relative to `from`.
fn read_headers(from: &Path) -> std::io::Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut headers = Vec::new();
    let mut bytes = 0;
    let walk = walkdir::WalkDir::new(from)
        .follow_links(false)
        .max_depth(MAX_COURSE_DEPTH)
        .sort_by_file_name();
    for entry in walk {
        let entry = entry.map_err(std::io::Error::other)?;
        let rel = entry.path().strip_prefix(from).expect("under the root");
        let hidden = rel
            .components()
            .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
        if !entry.file_type().is_file() || hidden || !crate::upload::is_header(entry.path()) {
            continue;
        }
        if headers.len() == MAX_COURSE_HEADERS {
            return Err(std::io::Error::other(format!(
                "more than {MAX_COURSE_HEADERS} headers"
            )));
        }
        let content =
            crate::scenario::read_regular_file(entry.path(), MAX_COURSE_BYTES).map_err(|e| {
                std::io::Error::other(format!("{}: {}", rel.display(), e.at_fixed_cap()))
            })?;
        bytes += content.len() as u64;
        if bytes > MAX_COURSE_BYTES {
            return Err(std::io::Error::other(format!(
                "more than {} MiB of headers",
                MAX_COURSE_BYTES >> 20
            )));
        }
        headers.push((rel.to_path_buf(), content));
    }
    Ok(headers)
}

/// The kit's hooks a link's output says are undefined (GNU ld's
/// ``undefined reference to `chessgrade::hooks::place(char, ...)'``, or the
/// mangled name when the linker does not demangle), in order, once each.
fn missing_hooks(output: &str) -> Vec<String> {
    let mut missing: Vec<String> = Vec::new();
    for line in output
        .lines()
        .filter(|l| l.contains("undefined reference to"))
    {
        let name = if let Some((_, rest)) = line.split_once("chessgrade::hooks::") {
            rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()
                .map(str::to_string)
        } else if let Some((_, rest)) = line.split_once("_ZN10chessgrade5hooks") {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits
                .parse::<usize>()
                .ok()
                .and_then(|n| rest.get(digits.len()..digits.len() + n))
                .map(str::to_string)
        } else {
            None
        };
        if let Some(name) = name.filter(|n| !n.is_empty())
            && !missing.contains(&name)
        {
            missing.push(name);
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_hooks_are_read_from_the_linkers_words_demangled_or_not() {
        let output = "/usr/bin/ld: kit_main.o: in function `chessgrade_kit::place(char, int, int)':\n\
            kit_main.cc:709: warning: undefined reference to `chessgrade::hooks::place(char, chessgrade::Square)'\n\
            kit_main.cc:710: warning: undefined reference to `chessgrade::hooks::place(char, chessgrade::Square)'\n\
            hooks.cc:6: warning: undefined reference to `Board::f(int)'\n\
            kit_main.cc:1020: undefined reference to `_ZN10chessgrade5hooks8try_moveENS_6SquareES1_'\n";
        assert_eq!(missing_hooks(output), ["place", "try_move"]);
        assert!(
            missing_hooks("hooks.cc:6: warning: undefined reference to `Board::f(int)'").is_empty()
        );
        assert!(missing_hooks("").is_empty());
    }

    #[test]
    fn every_required_hook_is_declared_without_weak_in_the_kits_header() {
        for hook in REQUIRED_HOOKS {
            let line = KIT_HEADER
                .lines()
                .find(|l| l.contains(&format!(" {hook}(")) && l.trim_end().ends_with(';'))
                .unwrap_or_else(|| panic!("{hook} is not declared"));
            assert!(!line.contains("weak"), "{line}");
        }
        let weak = KIT_HEADER
            .lines()
            .filter(|l| l.contains("__attribute__((weak))"));
        assert_eq!(weak.count(), 5, "valid, threatened, undo, redo, end_board");
    }
}
