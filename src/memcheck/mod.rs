//! Memory checking (`--memcheck[=asan|valgrind]`): a submission's memory
//! errors and leaks, reported the way C++ courses grade them.
//!
//! Why: a use-after-free or a heap overflow gives answers that depend on
//! what the heap held, so without a tool a student sees a wrong answer or a
//! crash on one scenario and not the next, with no hint of the cause; and
//! courses (JHU's "all memory leaks eliminated", checked with valgrind)
//! deduct for errors and leaks. So, on request, every process a submission
//! runs is checked, and each scenario says what the tool found: the first
//! memory error (its kind, and the student's own file and line for the
//! access, the allocation and the free), and what was still allocated at the
//! end of its process (bytes, and where the largest blocks were allocated).
//!
//! Two tools ([`Tool`]):
//! - **AddressSanitizer** (default): the upload is compiled with
//!   `-fsanitize=address,undefined` (LeakSanitizer runs at the end of each
//!   process; UndefinedBehaviorSanitizer reports undefined behaviour), the
//!   course's other flags kept ([`Tool::compile_flags`]). Reports go to a log
//!   file in the process's scratch folder ([`asan`] parses them).
//! - **valgrind** memcheck: the program as the course builds it, run under
//!   `valgrind --leak-check=full --track-origins=yes` with an XML report in
//!   the scratch folder ([`valgrind`] parses it); it also finds reads of
//!   uninitialised memory, which AddressSanitizer does not.
//!
//! What this module decides: the flags and the environment of a checked
//! build and run ([`Checker`]), the limits a checked process needs (its own
//! `/proc/<pid>`; for AddressSanitizer resident memory watched instead of
//! an address-space limit, see `sandbox`), and the [`Findings`] read back
//! from the tools' reports, with every stack frame that is not in the
//! student's files (the grader's adapter, the console shim, the C++ runtime,
//! the tool itself) left out. The policy ([`Policy`]) says what a finding
//! costs: a memory error fails its scenario (default) or is a note; leaks
//! are a note (default) or a test item of their own with its points
//! (the runner's `leak_item`). The runner and the reports apply it;
//! this module only finds and reads, so that it imports nothing above it.

pub mod asan;
pub mod valgrind;

use crate::sandbox::{EngineCommand, Limits, MemoryAccounting};
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// The memory checker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    /// AddressSanitizer, with UndefinedBehaviorSanitizer and LeakSanitizer.
    Asan,
    /// valgrind's memcheck.
    Valgrind,
}

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::Asan => "asan",
            Tool::Valgrind => "valgrind",
        }
    }

    /// How much longer a checked program may run than `--timeout` and
    /// `--cpu` say: AddressSanitizer slows a program about twice,
    /// valgrind (with origin tracking) tens of times.
    pub fn time_factor(self) -> u32 {
        match self {
            Tool::Asan => 3,
            Tool::Valgrind => 10,
        }
    }

    /// The flags added to every compile and link of a checked build (the
    /// course's own flags are kept in front of them). `-g` for file and
    /// line; for AddressSanitizer the runtimes linked statically (so their
    /// reports, UndefinedBehaviorSanitizer's included, go to the log file),
    /// recoverable errors (so that "a note" lets the scenario go on) and
    /// the leak check exported for the console shim to call at exit.
    pub fn compile_flags(self) -> Vec<String> {
        let flags: &[&str] = match self {
            Tool::Asan => &[
                "-g",
                "-fsanitize=address,undefined",
                "-fsanitize-recover=address",
                "-fno-omit-frame-pointer",
                "-static-libasan",
                "-static-libubsan",
                "-Wl,--export-dynamic-symbol=__lsan_do_recoverable_leak_check",
                "-DCHESSGRADE_MEMCHECK=1",
            ],
            Tool::Valgrind => &["-g", "-DCHESSGRADE_MEMCHECK=1"],
        };
        flags.iter().map(|s| s.to_string()).collect()
    }
}

/// The folder a checked build's debug information names as the upload's
/// ([`source_root_flag`]): not a real folder, a name the frames of every
/// checked build share, whichever folder it was compiled in.
pub const UPLOAD_IN_DEBUG_INFO: &str = "/chessgrade-upload";

/// The flag that writes `root` (the upload's folder as a checked build
/// compiles it) as [`UPLOAD_IN_DEBUG_INFO`] in the program's debug
/// information. Its frames then name the student's files beneath that one
/// folder, which [`Sources::student_file`] takes as the student's whatever
/// folder the build ran in, and the program does not depend on where it
/// was built: the build cache may keep it (its key writes the build folder
/// `$BUILD`) and a regrade with `--memcheck` rebuilds nothing. (An absolute
/// name, not `.`: valgrind joins a relative one to the compiler's working
/// folder.) Only the debug information is rewritten (`-fdebug-prefix-map`),
/// not `__FILE__`: what the program prints stays as the course's build
/// prints it.
pub fn source_root_flag(root: &Path) -> OsString {
    let mut flag = OsString::from("-fdebug-prefix-map=");
    flag.push(root);
    flag.push("=");
    flag.push(UPLOAD_IN_DEBUG_INFO);
    flag
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tool::Asan => "AddressSanitizer",
            Tool::Valgrind => "valgrind",
        })
    }
}

/// A `--memcheck` value that names no memory checker (the text given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTool(pub String);

impl fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a memory checker (asan or valgrind)", self.0)
    }
}

impl std::error::Error for UnknownTool {}

impl std::str::FromStr for Tool {
    type Err = UnknownTool;
    fn from_str(s: &str) -> Result<Tool, UnknownTool> {
        match s {
            "asan" => Ok(Tool::Asan),
            "valgrind" => Ok(Tool::Valgrind),
            _ => Err(UnknownTool(s.to_string())),
        }
    }
}

/// What a memory error costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorPolicy {
    /// The scenario fails (`memory_error`) at the step where it happened.
    Fail,
    /// The scenario is judged on its answers; the error is a note.
    Note,
}

/// What leaks cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeakPolicy {
    /// A note on each scenario whose process leaked.
    Note,
    /// Also a test item of its own worth these points, earned when no
    /// scenario leaked (the JHU-style valgrind deduction).
    Item(u32),
}

/// How findings are graded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    pub errors: ErrorPolicy,
    pub leaks: LeakPolicy,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            errors: ErrorPolicy::Fail,
            leaks: LeakPolicy::Note,
        }
    }
}

/// A memory check as asked for: the tool and the policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memcheck {
    pub tool: Tool,
    pub policy: Policy,
}

/// One line saying what a memory check does and what its findings cost
/// (a run's note): `memcheck: AddressSanitizer; a memory error fails its
/// scenario; leaks are notes`.
pub fn describe(m: &Memcheck) -> String {
    let errors = match m.policy.errors {
        ErrorPolicy::Fail => "a memory error fails its scenario",
        ErrorPolicy::Note => "memory errors are notes",
    };
    let leaks = match m.policy.leaks {
        LeakPolicy::Note => "leaks are notes".to_string(),
        LeakPolicy::Item(points) => {
            format!("leaks are a test item of their own ({points} points, `{LEAK_ITEM}`)")
        }
    };
    format!("memcheck: {}; {errors}; {leaks}", m.tool)
}

/// One stack frame, in the student's files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    /// The function, without its parameter list (`Student::ChessBoard::movePiece`).
    pub function: String,
    /// The file, relative to the upload's folder.
    pub file: String,
    pub line: u32,
}

/// `Some(frame)` at `file:line` in `function`, as the parsers' tests expect it.
#[cfg(test)]
pub(crate) fn frame(file: &str, line: u32, function: &str) -> Option<Frame> {
    Some(Frame {
        function: function.into(),
        file: file.into(),
        line,
    })
}

impl fmt::Display for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if !self.function.is_empty() {
            write!(f, " ({})", self.function)?;
        }
        Ok(())
    }
}

/// The kinds of memory error, as a course names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    UseAfterFree,
    /// A read or write outside a block (heap, stack or global).
    OutOfBounds,
    DoubleFree,
    /// Freeing what was not allocated (or not at its start).
    InvalidFree,
    /// `new[]` freed with `delete`, `malloc` with `delete`, ...
    MismatchedFree,
    /// A decision or a system call made on uninitialised memory (valgrind).
    Uninitialised,
    UndefinedBehaviour,
    /// An access to memory that belongs to nothing (a null or wild pointer).
    InvalidAccess,
    /// A stack variable used after its scope ended.
    UseAfterScope,
    StackOverflow,
    Other,
}

impl ErrorKind {
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::UseAfterFree => "use after free",
            ErrorKind::OutOfBounds => "out-of-bounds access",
            ErrorKind::DoubleFree => "double free",
            ErrorKind::InvalidFree => "invalid free",
            ErrorKind::MismatchedFree => "mismatched free",
            ErrorKind::Uninitialised => "uninitialised value",
            ErrorKind::UndefinedBehaviour => "undefined behaviour",
            ErrorKind::InvalidAccess => "invalid memory access",
            ErrorKind::UseAfterScope => "use after scope",
            ErrorKind::StackOverflow => "stack overflow",
            ErrorKind::Other => "memory error",
        }
    }
}

/// A read or a write, and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    pub write: bool,
    /// Bytes (0 when the tool did not say).
    pub size: u64,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.write { "write" } else { "read" };
        match self.size {
            0 => f.write_str(what),
            n => write!(f, "{what} of {n} byte{}", if n == 1 { "" } else { "s" }),
        }
    }
}

/// One memory error, as the student needs to see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryError {
    pub kind: ErrorKind,
    pub access: Option<Access>,
    /// The tool's own words (`heap-use-after-free`, `Invalid read of size
    /// 4`, UBSan's message).
    pub detail: String,
    /// The student's code that made the access (the first frame of the
    /// stack in the student's files).
    pub at: Option<Frame>,
    /// Where the memory was allocated (or, for an uninitialised value,
    /// where it was created), in the student's files.
    pub allocated: Option<Frame>,
    /// Where it was freed, in the student's files.
    pub freed: Option<Frame>,
}

impl fmt::Display for MemoryError {
    /// `use after free (read of 4 bytes) at ChessBoard.cc:180 (isValidMove);
    /// freed at ...; allocated at ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.name())?;
        if let Some(access) = self.access {
            write!(f, " ({access})")?;
        }
        if self.kind == ErrorKind::UndefinedBehaviour && !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        match &self.at {
            Some(at) => write!(f, " at {at}")?,
            None => write!(f, " (no frame in the submission's files)")?,
        }
        if let Some(freed) = &self.freed {
            write!(f, "; freed at {freed}")?;
        }
        if let Some(allocated) = &self.allocated {
            let word = if self.kind == ErrorKind::Uninitialised {
                "created"
            } else {
                "allocated"
            };
            write!(f, "; {word} at {allocated}")?;
        }
        Ok(())
    }
}

/// One allocation site's leaked blocks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leak {
    pub bytes: u64,
    pub blocks: u64,
    /// Where they were allocated, in the student's files.
    pub allocated: Option<Frame>,
}

/// What was still allocated, and unreachable, when a process ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leaks {
    pub bytes: u64,
    pub blocks: u64,
    /// The largest few allocation sites, largest first.
    pub largest: Vec<Leak>,
}

/// How many allocation sites a leak report names.
pub const LEAK_SITES_SHOWN: usize = 3;

impl Leaks {
    /// Totals and the largest sites of `sites` (one per report record;
    /// records of one site are added up).
    pub fn of(sites: Vec<Leak>) -> Option<Leaks> {
        if sites.is_empty() {
            return None;
        }
        let mut merged: Vec<Leak> = Vec::new();
        for leak in sites {
            match merged.iter_mut().find(|m| m.allocated == leak.allocated) {
                Some(m) => {
                    m.bytes += leak.bytes;
                    m.blocks += leak.blocks;
                }
                None => merged.push(leak),
            }
        }
        let bytes = merged.iter().map(|l| l.bytes).sum();
        let blocks = merged.iter().map(|l| l.blocks).sum();
        // Largest first; equal sizes in file order, so reports are stable.
        merged.sort_by(|a, b| {
            b.bytes.cmp(&a.bytes).then_with(|| {
                let key = |l: &Leak| l.allocated.as_ref().map(|f| (f.file.clone(), f.line));
                key(a).cmp(&key(b))
            })
        });
        merged.truncate(LEAK_SITES_SHOWN);
        Some(Leaks {
            bytes,
            blocks,
            largest: merged,
        })
    }
}

impl fmt::Display for Leaks {
    /// `48 bytes leaked in 3 blocks: 32 bytes in 2 blocks allocated at ...; ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} leaked in {}",
            plural(self.bytes, "byte"),
            plural(self.blocks, "block")
        )?;
        for (i, leak) in self.largest.iter().enumerate() {
            f.write_str(if i == 0 { ": " } else { "; " })?;
            write!(
                f,
                "{} in {} allocated at ",
                plural(leak.bytes, "byte"),
                plural(leak.blocks, "block")
            )?;
            match &leak.allocated {
                Some(at) => write!(f, "{at}")?,
                None => f.write_str("(no frame in the submission's files)")?,
            }
        }
        Ok(())
    }
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// What a memory check found in one scenario's processes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Findings {
    pub tool: Tool,
    /// The first memory error.
    pub error: Option<MemoryError>,
    /// How many errors were reported in all (the first included).
    pub errors: usize,
    /// What the processes left allocated at their end.
    pub leaks: Option<Leaks>,
}

impl Findings {
    pub fn none(tool: Tool) -> Findings {
        Findings {
            tool,
            error: None,
            errors: 0,
            leaks: None,
        }
    }

    pub fn is_clean(&self) -> bool {
        self.error.is_none() && self.leaks.is_none()
    }

    /// The findings as note lines (`memory error: ...`, `memory leak: ...`).
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(e) = &self.error {
            let more = match self.errors.saturating_sub(1) {
                0 => String::new(),
                n => format!(" (and {n} more)"),
            };
            notes.push(format!("{}: memory error: {e}{more}", self.tool.name()));
        }
        if let Some(l) = &self.leaks {
            notes.push(format!("{}: memory leak: {l}", self.tool.name()));
        }
        notes
    }
}

/// A scenario's findings with the policy they are graded under (what a
/// subject hands the runner).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    pub findings: Findings,
    pub errors: ErrorPolicy,
}

/// One stack frame as a tool printed it: (function, file, line). The file
/// is AddressSanitizer's path (empty when the frame has only a module,
/// `(libc.so.6+0x2724a)`) or valgrind's dir/file; the line 0 when unknown.
pub(crate) type RawFrame = (String, String, u32);

/// The frames of `frames` that have a line, as [`Sources`] reads them.
fn with_lines(frames: &[RawFrame]) -> impl Iterator<Item = (&str, &str, u32)> + Clone {
    frames
        .iter()
        .filter(|(_, _, line)| *line > 0)
        .map(|(f, file, line)| (f.as_str(), file.as_str(), *line))
}

/// The first frame of `frames` in the student's files (both tools).
pub(crate) fn first_student(sources: &Sources, frames: &[RawFrame]) -> Option<Frame> {
    sources.first_student_frame(with_lines(frames))
}

/// Where the student freed the block (see [`Sources::freeing_frame`]).
pub(crate) fn freeing(sources: &Sources, frames: &[RawFrame]) -> Option<Frame> {
    sources.freeing_frame(with_lines(frames))
}

/// Which frames are the student's: the upload's folder as each build saw
/// it (its copy in the build folder; a console upload built once per
/// graders' Mystery.h has one copy per build), when known.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sources {
    pub roots: Vec<PathBuf>,
    /// Files beneath a root that are the staff's, not the student's (an
    /// overlay's starter files, the graders' Mystery.h), relative to it:
    /// left out like the grader's.
    pub staff: Vec<PathBuf>,
}

/// File names of the grader's own code compiled into a program.
const GRADER_FILES: &[&str] = &[
    "chessgrade_kit_main.cc",
    "chessgrade_kit.hh",
    "chessgrade_hooks.cc",
    "chessgrade_console_shim.c",
];

impl Sources {
    pub fn at(root: &Path) -> Sources {
        Sources {
            roots: vec![root.to_path_buf()],
            staff: Vec::new(),
        }
    }

    /// These sources and `other`'s (another build of the same upload).
    pub fn and(mut self, other: &Sources) -> Sources {
        self.roots.extend(other.roots.iter().cloned());
        for file in &other.staff {
            if !self.staff.contains(file) {
                self.staff.push(file.clone());
            }
        }
        self
    }

    /// These sources, with `files` (relative to the root) the staff's.
    pub fn with_staff(mut self, files: Vec<PathBuf>) -> Sources {
        self.staff = files;
        self
    }

    /// The frame's file as shown (relative to the upload), if the frame is
    /// the student's: beneath the upload's folder (a relative path is the
    /// build's own, so the student's too), never the grader's adapter or
    /// shim, the C++ runtime or the tool.
    pub fn student_file(&self, file: &str) -> Option<String> {
        if file.is_empty() {
            return None;
        }
        let name = Path::new(file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if GRADER_FILES.contains(&name.as_str()) {
            return None;
        }
        let path = Path::new(file);
        let staff = |rel: &Path| self.staff.iter().any(|s| s == rel);
        if path.is_relative() {
            let shown = file.trim_start_matches("./");
            // The runtime's own sources are named relative to its build.
            return (!shown.starts_with("../") && !staff(Path::new(shown)))
                .then(|| shown.to_string());
        }
        if let Ok(rel) = path.strip_prefix(UPLOAD_IN_DEBUG_INFO) {
            return (!staff(rel)).then(|| rel.display().to_string());
        }
        if self.roots.is_empty() {
            let system = ["/usr/", "/lib", "/build/", "/opt/"];
            return (!system.iter().any(|s| file.starts_with(s))).then(|| file.to_string());
        }
        self.roots
            .iter()
            .find_map(|root| path.strip_prefix(root).ok())
            .filter(|rel| !staff(rel))
            .map(|rel| rel.display().to_string())
    }

    /// The first of `frames` (function, file, line) in the student's files.
    pub fn first_student_frame<'a>(
        &self,
        frames: impl IntoIterator<Item = (&'a str, &'a str, u32)>,
    ) -> Option<Frame> {
        frames.into_iter().find_map(|(function, file, line)| {
            let file = self.student_file(file)?;
            Some(Frame {
                function: short_function(function),
                file,
                line,
            })
        })
    }
}

impl Sources {
    /// Where a block was freed, in the student's files: the first frame
    /// that is not a destructor (the `delete` the student wrote, not the
    /// class's destructor that `delete` ran), else the first at all.
    pub fn freeing_frame<'a>(
        &self,
        frames: impl IntoIterator<Item = (&'a str, &'a str, u32)> + Clone,
    ) -> Option<Frame> {
        let is_destructor = |f: &str| {
            short_function(f)
                .rsplit("::")
                .next()
                .is_some_and(|n| n.starts_with('~'))
        };
        self.first_student_frame(
            frames
                .clone()
                .into_iter()
                .filter(|(f, _, _)| !is_destructor(f)),
        )
        .or_else(|| self.first_student_frame(frames))
    }
}

/// A function's name without its parameter list and qualifiers:
/// `Student::ChessBoard::isValidMove(int, int, int, int) const` →
/// `Student::ChessBoard::isValidMove`.
pub fn short_function(name: &str) -> String {
    let trimmed = name.trim();
    let body = trimmed.strip_suffix(" const").unwrap_or(trimmed);
    if !body.ends_with(')') {
        return trimmed.to_string();
    }
    let mut depth = 0usize;
    for (i, c) in body.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    let head = &body[..i];
                    // `operator()(...)`: the name itself ends in `()`.
                    return if head.is_empty() {
                        trimmed.to_string()
                    } else {
                        head.to_string()
                    };
                }
            }
            _ => {}
        }
    }
    trimmed.to_string()
}

/// The name of the leak test item ([`LeakPolicy::Item`]) in every report.
pub const LEAK_ITEM: &str = "memcheck: memory leaks";

/// The base name of the report files in a process's scratch folder.
pub const LOG_NAME: &str = "chessgrade-memcheck";

/// A memory check set up for one upload: how its processes are started and
/// how their findings are read back.
#[derive(Clone, Debug)]
pub struct Checker {
    pub memcheck: Memcheck,
    pub sources: Sources,
}

impl Checker {
    pub fn new(memcheck: Memcheck, sources: Sources) -> Checker {
        Checker { memcheck, sources }
    }

    pub fn tool(&self) -> Tool {
        self.memcheck.tool
    }

    /// Whether a memory error ends the process at once (the policy fails
    /// the scenario), so the step it happened at is known.
    fn halts(&self) -> bool {
        self.memcheck.policy.errors == ErrorPolicy::Fail
    }

    /// The limits a checked process runs under: its own `/proc/<pid>`
    /// readable (the tools read their memory map and threads); for
    /// AddressSanitizer, whose shadow memory needs terabytes of address
    /// space, no address-space limit but the tree's resident memory
    /// watched, at twice `--memory-mb` (the shadow, the redzones and the
    /// quarantine of freed blocks count there); for valgrind, which keeps
    /// its own copy of the program's memory state, twice the address space
    /// and 512 MiB more. The time limits (wall clock and CPU) are
    /// multiplied by the tool's slowdown ([`Tool::time_factor`]). Every
    /// other limit is unchanged.
    pub fn limits(&self, base: &Limits) -> Limits {
        let mut limits = base.clone();
        limits.own_proc = true;
        let factor = self.tool().time_factor();
        limits.timeout = base.timeout.saturating_mul(factor);
        limits.cpu_seconds = base.cpu_seconds.saturating_mul(u64::from(factor));
        match self.tool() {
            Tool::Asan => {
                limits.memory_accounting = MemoryAccounting::Resident;
                limits.memory_bytes = base.memory_bytes.saturating_mul(2);
            }
            Tool::Valgrind => {
                limits.memory_bytes = base
                    .memory_bytes
                    .saturating_mul(2)
                    .saturating_add(512 << 20);
            }
        }
        limits
    }

    /// The command and the extra environment of one checked process whose
    /// scratch folder is `scratch` (the tools write their reports there).
    /// `memory_bytes` is the program's own memory limit (`--memory-mb`).
    pub fn command(
        &self,
        command: &EngineCommand,
        scratch: &Path,
        memory_bytes: u64,
    ) -> (EngineCommand, Vec<(String, OsString)>) {
        let log = scratch.join(LOG_NAME);
        let halt = u8::from(self.halts());
        match self.tool() {
            Tool::Asan => {
                let asan = format!(
                    "log_path={}:halt_on_error={halt}:detect_leaks=1:leak_check_at_exit=0:\
                     allocator_may_return_null=1:max_allocation_size_mb={}:\
                     quarantine_size_mb=64:max_malloc_fill_size=0:\
                     detect_stack_use_after_return=0:verify_asan_link_order=0:\
                     print_summary=1:symbolize=1",
                    log.display(),
                    (memory_bytes >> 20).max(1),
                );
                let ubsan = format!(
                    "log_path={}:halt_on_error={halt}:print_stacktrace=1",
                    log.display()
                );
                let env = vec![
                    ("ASAN_OPTIONS".to_string(), OsString::from(asan)),
                    ("UBSAN_OPTIONS".to_string(), OsString::from(ubsan)),
                    // The console shim runs the leak check at exit.
                    ("CHESSGRADE_LEAK_CHECK".to_string(), OsString::from("1")),
                ];
                (command.clone(), env)
            }
            Tool::Valgrind => {
                let mut args: Vec<OsString> = vec![
                    "--tool=memcheck".into(),
                    "-q".into(),
                    "--xml=yes".into(),
                    format!("--xml-file={}.%p.xml", log.display()).into(),
                    // The commentary goes to a file too, never into the
                    // program's stderr (a console transcript).
                    format!("--log-file={}.%p.log", log.display()).into(),
                    "--leak-check=full".into(),
                    "--show-leak-kinds=definite,indirect".into(),
                    // A leak is not an error that stops the program.
                    "--errors-for-leak-kinds=none".into(),
                    "--track-origins=yes".into(),
                    "--num-callers=40".into(),
                    "--vgdb=no".into(),
                    "--child-silent-after-fork=yes".into(),
                ];
                if self.halts() {
                    args.push("--exit-on-first-error=yes".into());
                    args.push(format!("--error-exitcode={VALGRIND_EXIT}").into());
                }
                args.push(command.program.clone().into_os_string());
                args.extend(command.args.iter().cloned());
                let wrapped = EngineCommand {
                    program: PathBuf::from("valgrind"),
                    args,
                };
                // The console shim keeps the program's own exit status
                // (see `exit_status`).
                let exit_file = scratch.join(EXIT_FILE).into_os_string();
                (
                    wrapped,
                    vec![("CHESSGRADE_EXIT_FILE".to_string(), exit_file)],
                )
            }
        }
    }

    /// The findings in the reports the checked processes left in `scratch`.
    pub fn collect(&self, scratch: &Path) -> Findings {
        let mut logs: Vec<PathBuf> = std::fs::read_dir(scratch)
            .map(|d| {
                d.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with(LOG_NAME))
                    })
                    .collect()
            })
            .unwrap_or_default();
        logs.sort();
        // valgrind's reports are its XML files (its text log is for people).
        let valgrind = self.tool() == Tool::Valgrind;
        let texts: Vec<String> = logs
            .iter()
            .filter(|p| !valgrind || p.extension().is_some_and(|x| x == "xml"))
            .filter_map(|p| read_capped(p))
            .collect();
        match self.tool() {
            Tool::Asan => asan::parse(&texts, &self.sources),
            Tool::Valgrind => valgrind::parse(&texts, &self.sources),
        }
    }
}

/// The exit status valgrind gives a process it stopped at its first error.
pub const VALGRIND_EXIT: i32 = 86;

/// Where the console shim writes a program's exit status under valgrind.
const EXIT_FILE: &str = "chessgrade-exit-status";

impl Checker {
    /// The exit status a checked program really ended with, given the one
    /// the grader saw and what was found: valgrind, stopping at its first
    /// error, also stops at the leak report that follows a program's normal
    /// end and exits [`VALGRIND_EXIT`] itself. Then (no memory error found)
    /// the status the console shim recorded is the program's.
    pub fn exit_status(&self, seen: i32, findings: &Findings, scratch: &Path) -> i32 {
        if self.tool() != Tool::Valgrind
            || !self.halts()
            || seen != VALGRIND_EXIT
            || findings.error.is_some()
        {
            return seen;
        }
        std::fs::read_to_string(scratch.join(EXIT_FILE))
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(seen)
    }
}

/// The most of one report file read (a flood of errors is cut here).
const MAX_LOG_BYTES: u64 = 4 << 20;

fn read_capped(path: &Path) -> Option<String> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_LOG_BYTES).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_names_lose_their_parameters() {
        assert_eq!(
            short_function("Student::ChessBoard::isValidMove(int, int, int, int)"),
            "Student::ChessBoard::isValidMove"
        );
        assert_eq!(short_function("Board::get() const"), "Board::get");
        assert_eq!(
            short_function("f(std::function<void (int)>)"),
            "f",
            "nested parentheses"
        );
        assert_eq!(short_function("main"), "main");
    }

    #[test]
    fn only_the_students_files_are_frames() {
        let s = Sources::at(Path::new("/tmp/b/upload"));
        assert_eq!(
            s.student_file("/tmp/b/upload/ChessBoard.cc").as_deref(),
            Some("ChessBoard.cc")
        );
        assert_eq!(s.student_file("/tmp/b/chessgrade_hooks.cc"), None);
        assert_eq!(
            s.student_file("/usr/include/c++/12/bits/stl_vector.h"),
            None
        );
        assert_eq!(
            s.student_file("../../../../src/libsanitizer/asan/asan_new_delete.cpp"),
            None
        );
        assert_eq!(s.student_file("Board.cpp").as_deref(), Some("Board.cpp"));
        assert_eq!(s.student_file("./Game.cpp").as_deref(), Some("Game.cpp"));
        let overlaid = Sources::at(Path::new("/tmp/b/upload"))
            .with_staff(vec![PathBuf::from("CreatePiece.cpp")]);
        assert_eq!(overlaid.student_file("/tmp/b/upload/CreatePiece.cpp"), None);
        assert_eq!(overlaid.student_file("CreatePiece.cpp"), None);
        // A checked build names the upload by one folder wherever it was
        // built (a copy from the build cache too), the staff's files left out.
        assert_eq!(
            overlaid
                .student_file("/chessgrade-upload/Board.cpp")
                .as_deref(),
            Some("Board.cpp")
        );
        assert_eq!(
            overlaid.student_file("/chessgrade-upload/CreatePiece.cpp"),
            None
        );
        assert_eq!(
            overlaid.student_file("Board.cpp").as_deref(),
            Some("Board.cpp")
        );
        // A console upload built once per graders' Mystery.h: a frame in
        // either copy is the student's, the graders' Mystery.h is not.
        let both = Sources::at(Path::new("/tmp/b/upload")).and(
            &Sources::at(Path::new("/tmp/c/upload")).with_staff(vec![PathBuf::from("Mystery.h")]),
        );
        assert_eq!(
            both.student_file("/tmp/c/upload/Board.cpp").as_deref(),
            Some("Board.cpp")
        );
        assert_eq!(
            both.student_file("/tmp/b/upload/Board.cpp").as_deref(),
            Some("Board.cpp")
        );
        assert_eq!(both.student_file("/tmp/c/upload/Mystery.h"), None);
        assert_eq!(both.student_file("/tmp/d/upload/Board.cpp"), None);
        let unknown = Sources::default();
        assert_eq!(unknown.student_file("/usr/include/c++/12/vector"), None);
        assert_eq!(
            unknown.student_file("/home/s/Board.cpp").as_deref(),
            Some("/home/s/Board.cpp")
        );
    }

    #[test]
    fn an_error_reads_as_one_line() {
        let e = MemoryError {
            kind: ErrorKind::UseAfterFree,
            access: Some(Access {
                write: false,
                size: 4,
            }),
            detail: "heap-use-after-free".into(),
            at: frame("ChessBoard.cc", 180, "Student::ChessBoard::isValidMove"),
            allocated: frame("ChessBoard.cc", 177, "Student::ChessBoard::isValidMove"),
            freed: frame("ChessBoard.cc", 238, "Student::ChessBoard::movePiece"),
        };
        assert_eq!(
            e.to_string(),
            "use after free (read of 4 bytes) at ChessBoard.cc:180 (Student::ChessBoard::isValidMove); \
             freed at ChessBoard.cc:238 (Student::ChessBoard::movePiece); \
             allocated at ChessBoard.cc:177 (Student::ChessBoard::isValidMove)"
        );
    }

    #[test]
    fn leaks_add_up_by_site_and_name_the_largest_first() {
        let site = |bytes, blocks, line| Leak {
            bytes,
            blocks,
            allocated: frame("Board.cc", line, "Board::add"),
        };
        let leaks = Leaks::of(vec![
            site(16, 1, 10),
            site(64, 2, 20),
            site(16, 1, 10),
            site(8, 1, 30),
            site(4, 1, 40),
        ])
        .unwrap();
        assert_eq!((leaks.bytes, leaks.blocks), (108, 6));
        let lines: Vec<u32> = leaks
            .largest
            .iter()
            .map(|l| l.allocated.as_ref().unwrap().line)
            .collect();
        assert_eq!(lines, [20, 10, 30]);
        assert_eq!(
            leaks.to_string(),
            "108 bytes leaked in 6 blocks: 64 bytes in 2 blocks allocated at Board.cc:20 (Board::add); \
             32 bytes in 2 blocks allocated at Board.cc:10 (Board::add); \
             8 bytes in 1 block allocated at Board.cc:30 (Board::add)"
        );
        assert_eq!(Leaks::of(Vec::new()), None);
    }
}
