//! Option groups that several commands share (flattened into each), so a
//! flag means the same thing and is spelled the same way everywhere.
//!
//! Every number is checked when the command line is parsed (clap's
//! `value_parser`), with a message naming the flag and the accepted range:
//! a limit the grader cannot honour (`--timeout 1e300`, `--memory-mb 0`,
//! `--jobs 0`) is a usage error (exit 2), never a panic or a failure blamed
//! on a student.

use chessgrade::memcheck::{ErrorPolicy, LeakPolicy, Memcheck, Policy};
use chessgrade::runner::Partition;
use clap::{Args, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

/// Who is graded, explained or shrunk: a submission folder built here, or
/// any engine speaking the protocol. `grade`, `explain` and `shrink` each
/// flatten it; what differs between them (what `--submission` may hold,
/// which flag is required, what else conflicts) each command adds with
/// `mut_arg`, so the flags are declared once.
#[derive(Args)]
pub struct SubjectArgs {
    /// A submission folder: Lab 3 C++ classes (headers and .cc files, compiled with the
    /// adapter), or a console program (Makefile, CMakeLists.txt or .cpp files; JHU, CUHK).
    #[arg(long, conflicts_with = "engine")]
    pub submission: Option<PathBuf>,
    /// Any engine speaking docs/protocol.md: its command as one argument
    /// (`--engine "./eng --fast"`, split at spaces, no shell), or after `--`
    /// (`--engine -- ./eng --fast`).
    #[arg(long, num_args = 0..=1, default_missing_value = "")]
    pub engine: Option<String>,
    /// The engine's command after `--` (with --engine).
    #[arg(last = true, requires = "engine")]
    pub command: Vec<OsString>,
    /// A course's own C++ classes: the hook file that calls them (docs/course-classes.md),
    /// with the course's headers beside it. Every upload is compiled with it and the adapter
    /// kit, and graded on any scenario its hooks serve.
    #[arg(long, value_name = "FILE", conflicts_with = "engine")]
    pub adapter: Option<PathBuf>,
    /// The C++ compiler for --submission.
    #[arg(long, default_value = chessgrade::submission::DEFAULT_COMPILER)]
    pub compiler: String,
    /// Compiler flags for --submission, one string split at spaces
    /// (default: the course's `-std=c++17 -g -Wall`, no optimisation).
    #[arg(long, allow_hyphen_values = true)]
    pub cflags: Option<String>,
    /// The build cache's folder (default: ~/.cache/chessgrade, or $XDG_CACHE_HOME/chessgrade):
    /// an upload built once with the same compiler and flags is copied from there, not
    /// built again. Shards may share one folder (the graders' only).
    #[arg(long, value_name = "DIR", value_parser = build_cache_dir)]
    pub build_cache: Option<PathBuf>,
    /// Build every upload: nothing is taken from the build cache or stored in it.
    #[arg(long, conflicts_with = "build_cache")]
    pub no_build_cache: bool,
    /// Build by Linux's rules for file names: an `#include "Knight.h"` of a file named
    /// `knight.h` (or written with `\`) is a compile error that says so, instead of
    /// naming that file as the student's Windows or macOS machine did.
    #[arg(long)]
    pub strict_case: bool,
    /// Check memory: build the upload with AddressSanitizer (`--memcheck`, `=asan`) or run
    /// it under valgrind (`=valgrind`); each scenario reports its first memory error and
    /// what its process leaked, with the student's file and line.
    #[arg(
        long,
        value_name = "TOOL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "asan",
        value_parser = ["asan", "valgrind"],
        conflicts_with = "engine"
    )]
    pub memcheck: Option<String>,
    /// With --memcheck: a memory error fails its scenario (`fail`, the default) or is only
    /// a note.
    #[arg(long, value_enum, requires = "memcheck", value_name = "POLICY")]
    pub memory_errors: Option<MemoryErrors>,
    /// With --memcheck: leaks become a test item of their own worth N points, earned when
    /// no scenario leaked (a valgrind deduction); without it each leak is a note.
    #[arg(long, requires = "memcheck", value_name = "N")]
    pub leak_points: Option<u32>,
}

/// What a memory error costs (`--memory-errors`).
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MemoryErrors {
    /// The scenario fails (`memory_error`) where the error happened.
    Fail,
    /// The scenario is judged on its answers; the error is a note.
    Note,
}

impl SubjectArgs {
    /// How a Lab 3 upload is compiled: `--compiler`, `--cflags` (else the
    /// course's flags) and the build's time limit.
    pub fn cpp_options(
        &self,
        compile_timeout: std::time::Duration,
    ) -> chessgrade::submission::CppOptions {
        let mut options = chessgrade::submission::CppOptions::new(&self.compiler, compile_timeout);
        if let Some(flags) = &self.cflags {
            options.cflags = flags.split_whitespace().map(str::to_string).collect();
        }
        options.cache = self.build_cache();
        options
    }

    /// The memory check asked for (`--memcheck`, `--memory-errors`, `--leak-points`).
    pub fn memcheck(&self) -> Option<Memcheck> {
        let tool = self.memcheck.as_deref()?.parse().ok()?;
        Some(Memcheck {
            tool,
            policy: Policy {
                errors: match self.memory_errors {
                    Some(MemoryErrors::Note) => ErrorPolicy::Note,
                    _ => ErrorPolicy::Fail,
                },
                leaks: match self.leak_points {
                    Some(points) => LeakPolicy::Item(points),
                    None => LeakPolicy::Note,
                },
            },
        })
    }

    /// How an include that names a file in another case is taken (`--strict-case`).
    pub fn case_rule(&self) -> chessgrade::upload::CaseRule {
        match self.strict_case {
            true => chessgrade::upload::CaseRule::Strict,
            false => chessgrade::upload::CaseRule::AsUploaded,
        }
    }

    /// The build cache these flags ask for.
    pub fn build_cache(&self) -> chessgrade::submission::BuildCache {
        chessgrade::submission::BuildCache {
            dir: self.build_cache.clone(),
            builds: !self.no_build_cache,
        }
    }
}

/// A `--build-cache` folder: not beneath the system folders every
/// submission may read (the library's rule).
fn build_cache_dir(text: &str) -> Result<PathBuf, chessgrade::submission::BadCacheDir> {
    chessgrade::submission::check_cache_dir(std::path::Path::new(text))
}

/// How a console program is built and judged (`grade` with a console
/// upload, `--program`, or a class of console uploads).
#[derive(Args)]
pub struct ConsoleArgs {
    /// A console program to grade as is (no build); with --submission or --class, the
    /// program the build makes (instead of the course's `chess`).
    #[arg(long)]
    pub program: Option<PathBuf>,
    /// Console uploads: a shell command that builds the upload (run in its folder).
    #[arg(long)]
    pub build: Option<String>,
    /// Console uploads: staff files copied over the upload before building
    /// (the starter files a student must not change).
    #[arg(long)]
    pub overlay: Option<PathBuf>,
    /// Console grading: the dialects' texts, the keys of src/console/texts.json to change
    /// (merged over the built-in ones).
    #[arg(long)]
    pub console_texts: Option<PathBuf>,
}

impl ConsoleArgs {
    /// Whether a flag names a console program or its build: then what is
    /// graded is a console program, whatever the upload looks like.
    /// (`--console-texts` alone does not: it only matters if one is.)
    pub fn forces_console(&self) -> bool {
        self.program.is_some() || self.build.is_some() || self.overlay.is_some()
    }

    /// The console options these flags (and `--compiler`, the limits) ask
    /// for; a texts file that cannot be read is the staff's error.
    pub fn options(
        &self,
        compiler: &str,
        limits: &LimitArgs,
    ) -> Result<chessgrade::console::ConsoleOptions, String> {
        let texts = match &self.console_texts {
            Some(path) => chessgrade::console::Texts::load(path)
                .map_err(|e| format!("--console-texts {e}"))?,
            None => chessgrade::console::Texts::default(),
        };
        let mut options = chessgrade::console::ConsoleOptions::new(texts, limits.limits());
        options.compiler = compiler.to_string();
        options.build_command = self.build.clone();
        options.overlay = self.overlay.clone();
        options.binary = self.program.as_ref().map(|p| p.display().to_string());
        options.build_timeout = limits.compile_timeout();
        Ok(options)
    }
}

/// Where a scenario's expected answers are: `run`, `grade`, `explain` and
/// `shrink` each flatten it, so the two flags mean the same everywhere.
#[derive(Args)]
pub struct SnapshotArgs {
    /// Folder holding the expected answers: `scenario@<name>.snap` files, or
    /// `<stem>.expected` traces (the course corpus layout).
    #[arg(long, default_value = "snapshots")]
    pub snapshots: PathBuf,
    /// Scenario root: snapshot names are paths relative to it (and a folder's
    /// rules.toml applies to the scenarios below it, up to this folder).
    #[arg(long, default_value = "scenarios")]
    pub root: PathBuf,
    /// A rule file that every scenario of its family (the set it extends)
    /// runs under, in place of the built-in set; repeatable, one per family
    /// (docs/course-rules.md).
    #[arg(long = "rules", value_name = "FILE")]
    pub rules: Vec<PathBuf>,
}

#[derive(Args)]
pub struct ScenarioArgs {
    /// Scenario files or folders (folders are searched for *.txt).
    #[arg(default_value = "scenarios")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub snapshot: SnapshotArgs,
    /// Run only this slice of the scenarios (`slice:K/N`), to split a run across machines.
    #[arg(long)]
    pub partition: Option<Partition>,
    /// Scenarios run in parallel (default: the number of cores).
    #[arg(long, short, value_parser = jobs)]
    pub jobs: Option<usize>,
    /// Run only scenarios whose name contains this text, or matches this
    /// glob (`*`, `?`, `[..]`, `**`); repeatable: any match keeps a scenario.
    #[arg(long, value_name = "PATTERN")]
    pub filter: Vec<String>,
    /// --filter matches whole scenario names only.
    #[arg(long, requires = "filter")]
    pub exact: bool,
    /// Print the names of the selected scenarios and run nothing.
    #[arg(long)]
    pub list: bool,
    /// Stop starting scenarios after the first failure.
    #[arg(long)]
    pub fail_fast: bool,
    /// Print only failures and the summary (no progress bar, no passing lines).
    #[arg(long, short)]
    pub quiet: bool,
    /// Accept a selection with no scenario file (otherwise an error, exit 2).
    #[arg(long)]
    pub allow_empty: bool,
    #[command(flatten)]
    pub input: InputArgs,
}

/// Caps on what a scenario may cost the grader itself.
#[derive(Args)]
pub struct InputArgs {
    /// Largest scenario file read, in MiB.
    #[arg(long, default_value_t = 16, value_parser = mebibytes)]
    pub max_input_mb: u64,
    /// Largest trace a scenario may produce, in MiB (a scenario whose
    /// boards alone would exceed it is refused before it runs).
    #[arg(long, default_value_t = 64, value_parser = mebibytes)]
    pub max_trace_mb: u64,
}

impl InputArgs {
    /// The run's caps (a value of the batch, not a process-wide setting).
    pub fn caps(&self) -> chessgrade::scenario::Caps {
        chessgrade::scenario::Caps {
            input_bytes: self.max_input_mb << 20,
            trace_bytes: self.max_trace_mb << 20,
        }
    }
}

/// The reference engine's limit for `trace`. (`run`, whose reference may be
/// the course's own program, takes [`LimitArgs`].)
#[derive(Args)]
pub struct ReferenceArgs {
    /// Wall-clock seconds per scenario on the reference engine (perft and
    /// divide included); a scenario over it is reported and the batch goes on.
    #[arg(long, default_value_t = 10.0, value_parser = seconds)]
    pub timeout: f64,
}

#[derive(Args)]
pub struct OutputArgs {
    /// Report format: human (terminal), json, junit, gradescope, github, html,
    /// prairielearn, classroom.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Write the report to this file (the human summary still goes to stdout).
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// With --class: also write each submission's report (in --format) into
    /// this folder, as `<submission>.<ext>`.
    #[arg(long)]
    pub output_dir: Option<PathBuf>,
}

/// `grade --class` in shards, one per machine (merged with `merge`).
#[derive(Args)]
pub struct ShardArgs {
    /// With --class: grade only shard K of N of the class (a share balanced by upload size,
    /// the same on every machine) and write a class slice for `merge`. Without it, K/N come
    /// from a Slurm job array, a Kubernetes Indexed Job or GitLab `parallel:` when the run is
    /// one of their tasks; `--shard 1/1` grades the whole class wherever it runs.
    #[arg(long, value_name = "K/N", requires = "class")]
    pub shard: Option<chessgrade::class::shard::ShardSpec>,
    /// With --class in a Kubernetes Indexed Job: the number of shards (the Job's
    /// completions; default: the CHESSGRADE_SHARD_COUNT variable).
    #[arg(long, value_name = "N", requires = "class", conflicts_with = "shard", value_parser = shard_count)]
    pub shard_count: Option<usize>,
}

fn shard_count(text: &str) -> Result<usize, String> {
    bounded(text, 1, 1 << 20, "shards").map(|n| n as usize)
}

#[derive(Args)]
pub struct LimitArgs {
    /// Wall-clock seconds per scenario; the submission's whole process group is killed after it.
    #[arg(long, default_value_t = 10.0, value_parser = seconds)]
    pub timeout: f64,
    /// CPU seconds per scenario.
    #[arg(long, default_value_t = 10, value_parser = cpu_seconds)]
    pub cpu: u64,
    /// Memory (address space) per scenario, in MiB.
    #[arg(long, default_value_t = 1024, value_parser = memory_mb)]
    pub memory_mb: u64,
    /// Answers read per scenario, in MiB.
    #[arg(long, default_value_t = 64, value_parser = output_mb)]
    pub max_output_mb: usize,
    /// Wall-clock seconds for compiling a --submission; the whole build (compiler
    /// subprocesses included) is killed after it.
    #[arg(long, default_value_t = chessgrade::submission::DEFAULT_COMPILE_SECONDS, value_parser = compile_seconds)]
    pub compile_timeout: f64,
    /// The most each folder a submission writes in (a scenario's, a build's) may
    /// hold, in MiB; a write past it fails (ENOSPC).
    #[arg(long, value_name = "MIB", default_value_t = 64, value_parser = disk_mb)]
    pub disk: u64,
    /// The most files each such folder may hold.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = disk_files)]
    pub disk_files: u64,
    /// Refuse to grade (exit 2) unless every isolation mechanism is in force:
    /// Landlock with signal scoping, a network namespace, (as root) a uid of
    /// the submission's own, and a bounded disk. Without it, what holds is reported.
    #[arg(long)]
    pub require_isolation: bool,
}

impl LimitArgs {
    /// The sandbox limits these flags ask for (each already validated by
    /// its parser).
    pub fn limits(&self) -> chessgrade::subject::Limits {
        chessgrade::subject::Limits {
            timeout: std::time::Duration::from_secs_f64(self.timeout),
            cpu_seconds: self.cpu.max(1),
            memory_bytes: self.memory_mb.saturating_mul(1 << 20),
            max_output_bytes: self.max_output_mb.saturating_mul(1 << 20),
            disk: self.disk(),
            ..chessgrade::subject::Limits::default()
        }
    }

    /// The bound of every folder a submission writes in.
    pub fn disk(&self) -> chessgrade::sandbox::DiskBound {
        chessgrade::sandbox::DiskBound {
            bytes: self.disk.saturating_mul(1 << 20),
            files: self.disk_files,
        }
    }

    /// How long a build may take.
    pub fn compile_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(self.compile_timeout)
    }
}

/// A compile timeout: positive seconds, at most a day.
fn compile_seconds(text: &str) -> Result<f64, String> {
    let s = seconds(text)?;
    if s > 86_400.0 {
        return Err(format!(
            "a compile may take at most 86400 seconds, found `{text}`"
        ));
    }
    Ok(s)
}

/// The longest wall-clock limit accepted: a week.
pub const MAX_SECONDS: f64 = 7.0 * 24.0 * 3600.0;

/// A positive, finite number of seconds up to [`MAX_SECONDS`].
pub fn seconds(text: &str) -> Result<f64, String> {
    let s: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !s.is_finite() || s <= 0.0 {
        return Err(format!("seconds must be more than 0, found `{text}`"));
    }
    if s > MAX_SECONDS {
        return Err(format!(
            "seconds must be at most {MAX_SECONDS} (a week), found `{text}`"
        ));
    }
    // Below a millisecond no limit can be kept.
    Ok(s.max(0.001))
}

/// A whole number in `min..=max`, described as `what`.
fn bounded(text: &str, min: u64, max: u64, what: &str) -> Result<u64, String> {
    let n: u64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number of {what}"))?;
    if !(min..=max).contains(&n) {
        return Err(format!("{what} must be from {min} to {max}, found {n}"));
    }
    Ok(n)
}

fn jobs(text: &str) -> Result<usize, String> {
    bounded(text, 1, 1024, "jobs").map(|n| n as usize)
}

fn cpu_seconds(text: &str) -> Result<u64, String> {
    bounded(text, 1, 7 * 24 * 3600, "CPU seconds")
}

/// Below 16 MiB no C++ program starts, and the failure would look like the
/// student's.
fn memory_mb(text: &str) -> Result<u64, String> {
    bounded(text, 16, 1 << 20, "MiB of memory")
}

/// A build copies the upload into its folder first: below 1 MiB no
/// honest one fits.
fn disk_mb(text: &str) -> Result<u64, String> {
    bounded(text, 1, 1 << 20, "MiB of disk")
}

/// A build's folder holds the upload's files, objects and the program.
fn disk_files(text: &str) -> Result<u64, String> {
    bounded(text, 16, 1 << 24, "files")
}

fn output_mb(text: &str) -> Result<usize, String> {
    bounded(text, 1, 4096, "MiB of output").map(|n| n as usize)
}

fn mebibytes(text: &str) -> Result<u64, String> {
    bounded(text, 1, 1 << 16, "MiB")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_checked_with_messages_naming_the_range() {
        assert_eq!(seconds("2.5"), Ok(2.5));
        for bad in ["1e300", "inf", "NaN", "0", "-1", "x"] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert!(seconds("1e300").unwrap_err().contains("at most"));
        assert_eq!(
            memory_mb("0").unwrap_err(),
            "MiB of memory must be from 16 to 1048576, found 0"
        );
        assert!(jobs("0").is_err() && jobs("4") == Ok(4));
        assert!(cpu_seconds("0").is_err());
        assert_eq!(disk_mb("64"), Ok(64));
        assert_eq!(
            disk_mb("0").unwrap_err(),
            "MiB of disk must be from 1 to 1048576, found 0"
        );
        assert!(disk_files("15").is_err() && disk_files("4096") == Ok(4096));
        assert!(output_mb("0").is_err());
        assert!(mebibytes("99999999999999").is_err());
    }
}

/// A report's format (`--format`). Each names a renderer of
/// `chessgrade::report`; which of them can hold a whole class is
/// [`Format::per_member_only`].
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The terminal's lines (plain in a file).
    Human,
    /// The report as JSON (what `merge` reads).
    Json,
    /// JUnit XML (Jenkins, GitLab).
    Junit,
    /// Gradescope's autograder `results.json`.
    Gradescope,
    /// GitHub Actions annotations.
    Github,
    /// One self-contained HTML page (tables, board diagrams; no network).
    Html,
    /// PrairieLearn's external-grader `results.json` (at most 1 MB).
    Prairielearn,
    /// GitHub Classroom: the `result=<base64>` line its reporter reads from a
    /// step's output (append stdout to `$GITHUB_OUTPUT`).
    Classroom,
}

impl Format {
    /// The name `--format` takes (clap's, from the variant).
    pub fn name(self) -> String {
        self.to_possible_value()
            .map(|v| v.get_name().to_string())
            .unwrap_or_default()
    }

    /// One subject's report only: a class gets one file per member
    /// (`--output-dir`), never a class report in it.
    pub fn per_member_only(self) -> bool {
        matches!(
            self,
            Format::Junit
                | Format::Gradescope
                | Format::Github
                | Format::Prairielearn
                | Format::Classroom
        )
    }
}

/// `--rules NAME|FILE`: a built-in set's name or a rule file, read now (a
/// bad file is clap's usage error, exit 2, with the file's located message).
pub fn rule_set(text: &str) -> Result<chessgrade::engine::RuleSet, String> {
    chessgrade::rulefile::named(text).map_err(|d| d.to_string())
}
