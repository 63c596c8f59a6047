//! Everything console grading sets up before a program runs, in one type
//! that `grade --submission`, `grade --program` and `grade --class` share.
//!
//! [`ConsoleGrader::new`] does the staff-side work once per run, in the
//! order a staff member would want to hear about it: every scenario is
//! planned (one its dialect cannot express, or whose reviewed snapshot the
//! reference no longer matches, is a [`SetupError`] before anything runs),
//! the scenarios pick the one dialect of the run, the overlay is checked to
//! be a folder, and the preloaded shim is compiled. After that, the grader
//! only builds uploads ([`ConsoleGrader::build_traced`], whose failures are the
//! student's: once as it is, and once per Mystery piece the scenarios
//! define, as JHU's graders build it) and grades scenarios on programs
//! ([`ConsoleGrader::grade`], which runs each scenario on its build);
//! it is `Sync`, so a class shares one grader, and so one shim, across its
//! parallel members.

use super::{
    BuildFiles, ConsoleProgram, Dialect, Texts, build_shim, check_gradable, grade_scenario,
};
use crate::memcheck::{Checker, Memcheck, Sources};
use crate::runner::{Found, ScenarioResult};
use crate::sandbox::{EngineCommand, Limits};
use crate::snapshot::SnapshotStore;
use crate::submission::{self, Build, BuildError, ConsoleBuild, Origin};
use crate::upload::{CaseRule, Upload, UploadKind};
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// How console programs are built and run (the command line's console flags).
#[derive(Clone, Debug)]
pub struct ConsoleOptions {
    /// The dialects' texts (`--console-texts`, else the embedded defaults).
    pub texts: Texts,
    /// Each scenario's run.
    pub limits: Limits,
    /// The C++ compiler for uploads without a Makefile or CMakeLists.txt.
    pub compiler: String,
    /// A shell command that replaces the build (`--build`).
    pub build_command: Option<String>,
    /// Staff files copied over each upload before building (`--overlay`).
    pub overlay: Option<PathBuf>,
    /// The program the build makes, relative to the upload's root
    /// (default: the dialect's `binary`, the course's `chess`).
    pub binary: Option<String>,
    /// How long one upload's build may take.
    pub build_timeout: Duration,
    /// The C compiler for the shim.
    pub shim_cc: String,
    /// Check memory (`--memcheck`): uploads built for the tool, every run
    /// checked.
    pub memcheck: Option<Memcheck>,
    /// Where uploads' builds are cached, and whether.
    pub cache: crate::submission::BuildCache,
    /// How an include that names a file in another case is taken.
    pub case: CaseRule,
}

impl ConsoleOptions {
    /// The course's build (its Makefile, CMake, or `g++`), no overlay.
    pub fn new(texts: Texts, limits: Limits) -> ConsoleOptions {
        ConsoleOptions {
            texts,
            limits,
            compiler: "g++".into(),
            build_command: None,
            overlay: None,
            binary: None,
            build_timeout: Duration::from_secs(120),
            shim_cc: "gcc".into(),
            memcheck: None,
            cache: Default::default(),
            case: CaseRule::default(),
        }
    }
}

/// A staff-side problem found before anything runs (exit 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// Scenarios that cannot be graded on a console program, one message each.
    NotGradable(Vec<super::Ungradable>),
    /// The scenarios belong to both courses.
    MixedDialects,
    /// The overlay is not a folder.
    Overlay(PathBuf),
    /// The shim (or its temporary folder) could not be made.
    Shim(String),
}

impl SetupError {
    /// One line per problem, the last saying what it means for the run.
    pub fn messages(&self) -> Vec<String> {
        match self {
            SetupError::NotGradable(problems) => {
                let mut lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
                lines.push(format!(
                    "{} scenario(s) cannot be graded on a console program; nothing was run",
                    problems.len()
                ));
                lines
            }
            SetupError::MixedDialects => vec![
                "the scenarios mix console dialects (jhu and cuhk): grade one course's program at a time"
                    .into(),
            ],
            SetupError::Overlay(dir) => vec![format!("--overlay {} is not a folder", dir.display())],
            SetupError::Shim(msg) => vec![msg.clone()],
        }
    }
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.messages().join("\n"))
    }
}

/// A console run, set up: the checked scenarios' dialect, the options and
/// the compiled shim (deleted with the grader).
#[derive(Debug)]
pub struct ConsoleGrader {
    options: ConsoleOptions,
    dialect: Dialect,
    /// The builds an upload needs, each with the number of scenarios that
    /// run on it: the upload as it is (`None`, first when any scenario
    /// wants it), then one per distinct [`BuildFiles`] (JHU: per Mystery
    /// piece), in the scenarios' order.
    builds: Vec<(Option<BuildFiles>, usize)>,
    /// The environment that preloads the shim.
    env: Vec<(String, OsString)>,
    _shim_dir: tempfile::TempDir,
}

/// An upload built by a [`ConsoleGrader`]: the program to grade (each of
/// its builds), what was built besides the upload as it is, and the
/// builds' temporary folders that hold them (deleted on drop).
pub struct BuiltUpload {
    pub program: ConsoleProgram,
    /// One line per extra build (a Mystery piece): what it was built
    /// with, for how many scenarios, and whether it compiled.
    pub notes: Vec<String>,
    _builds: Vec<Build>,
}

/// Whether any of `found` is written for a course with a console program
/// (`@rules jhu` or `cuhk`): then its grading needs a console program. A
/// scenario that does not load says nothing here (grading reports it).
pub fn wants_console(found: &[Found]) -> bool {
    console_flags(found).any(|console| console)
}

/// Whether every one of `found` that loads is written for a console course
/// (and one at least): nothing in the run could grade a Lab 3 upload.
pub fn only_console(found: &[Found]) -> bool {
    let mut flags = console_flags(found).peekable();
    flags.peek().is_some() && flags.all(|console| console)
}

/// Per scenario that loads: is it a console course's?
fn console_flags(found: &[Found]) -> impl Iterator<Item = bool> + '_ {
    found.iter().filter_map(|f| {
        f.load()
            .ok()
            .map(|s| Dialect::of(s.directives.rules.id).is_some())
    })
}

impl ConsoleGrader {
    /// Checks every scenario of the run and builds the shim; any problem is
    /// the staff's, reported whole before anything runs.
    pub fn new(
        found: &[Found],
        store: &SnapshotStore,
        options: ConsoleOptions,
    ) -> Result<ConsoleGrader, SetupError> {
        let mut problems = Vec::new();
        let mut dialects = Vec::new();
        let mut builds: Vec<(Option<BuildFiles>, usize)> = Vec::new();
        for f in found {
            match check_gradable(f, &options.texts, store) {
                Ok(plan) => {
                    if !dialects.contains(&plan.dialect) {
                        dialects.push(plan.dialect);
                    }
                    match builds.iter_mut().find(|(b, _)| *b == plan.build) {
                        Some((_, n)) => *n += 1,
                        None => builds.push((plan.build, 1)),
                    }
                }
                Err(e) => problems.push(e),
            }
        }
        // The upload as it is first: its compile error is the one reported.
        builds.sort_by_key(|(b, _)| b.is_some());
        if builds.is_empty() {
            builds.push((None, 0));
        }
        if !problems.is_empty() {
            return Err(SetupError::NotGradable(problems));
        }
        let dialect = match dialects.as_slice() {
            [d] => *d,
            // No scenario (`--allow-empty`): nothing will be judged.
            [] => Dialect::Jhu,
            _ => return Err(SetupError::MixedDialects),
        };
        if let Some(dir) = &options.overlay
            && !dir.is_dir()
        {
            return Err(SetupError::Overlay(dir.clone()));
        }
        let shim_dir = tempfile::Builder::new()
            .prefix("chessgrade-console-")
            .tempdir()
            .map_err(|e| SetupError::Shim(format!("cannot make a temporary folder: {e}")))?;
        let env = build_shim(shim_dir.path(), &options.shim_cc)
            .map_err(|e| SetupError::Shim(e.to_string()))?;
        Ok(ConsoleGrader {
            options,
            dialect,
            builds,
            env,
            _shim_dir: shim_dir,
        })
    }

    /// The course whose program this run grades.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    pub fn options(&self) -> &ConsoleOptions {
        &self.options
    }

    /// Builds an upload the way its course does, after the overlay, once
    /// for the scenarios that take it as it is and once per set of files
    /// others need (JHU: the graders' `Mystery.h` for each `@mystery`
    /// shape). An upload that compiles in none of them is the student's
    /// [`BuildError::Compile`] (the first build's message); one that fails
    /// only some fails those scenarios (each a compile error, graded by
    /// [`ConsoleGrader::grade`]); a tool that cannot start is the staff's
    /// ([`BuildError::Io`]).
    ///
    /// With the result, whether every one of its builds came from the
    /// build cache ([`Origin::Cache`]) or not.
    pub fn build_traced(&self, upload: &Upload) -> (Result<BuiltUpload, BuildError>, Origin) {
        let mut all_cached = true;
        let result = self.build_noting(upload, &mut all_cached);
        let origin = match all_cached {
            true => Origin::Cache,
            false => Origin::Built,
        };
        (result, origin)
    }

    fn build_noting(
        &self,
        upload: &Upload,
        all_cached: &mut bool,
    ) -> Result<BuiltUpload, BuildError> {
        *all_cached = false;
        // What the student uploaded, before any overlay: a Lab 3 upload or
        // no sources at all is not the course's program.
        let course = self.dialect.name().to_uppercase();
        match upload.kind() {
            Some(UploadKind::Console) => {}
            Some(UploadKind::Lab3) => {
                return Err(BuildError::NotRecognised(format!(
                    "a Lab 3 upload (ChessBoard.hh), but these scenarios grade the {course} console program"
                )));
            }
            None => {
                return Err(BuildError::NotRecognised(format!(
                    "nothing to build: no Makefile, CMakeLists.txt or C++ source file (.cpp, \
                     .cc) for the {course} console program ({})",
                    upload.contents()
                )));
            }
        }
        let texts = &self.options.texts;
        let (binary, cxx_flags) = match self.dialect {
            Dialect::Jhu => (&texts.jhu.binary, &texts.jhu.cxx_flags),
            Dialect::Cuhk => (&texts.cuhk.binary, &texts.cuhk.cxx_flags),
        };
        let mut builds = Vec::new();
        let mut results = Vec::new();
        let mut notes = Vec::new();
        let mut cached = Vec::new();
        for (files, scenarios) in &self.builds {
            let how = ConsoleBuild {
                binary: self.options.binary.as_deref().unwrap_or(binary),
                compiler: &self.options.compiler,
                cxx_flags,
                command: self.options.build_command.as_deref(),
                overlay: self.options.overlay.as_deref(),
                files: files.as_ref().map_or(&[], |f| f.files.as_slice()),
                timeout: self.options.build_timeout,
                memcheck: self.options.memcheck.map(|m| m.tool),
                cache: &self.options.cache,
                case: self.options.case,
                // The build's folder, bounded as every scenario's is.
                disk: self.options.limits.disk,
            };
            let (result, origin) = submission::build_console_traced(upload, &how);
            cached.push(origin == Origin::Cache);
            let result = match result {
                Ok(build) => {
                    let command = build.command.clone();
                    // What the build said (the overlay's replacements),
                    // once however many builds said it.
                    for note in &build.notes {
                        if !notes.contains(note) {
                            notes.push(note.clone());
                        }
                    }
                    builds.push(build);
                    Ok(command)
                }
                Err(BuildError::Compile(msg)) => Err(super::CompilerOutput(msg)),
                Err(e) => return Err(e),
            };
            if let Some(files) = files {
                let first = |msg: &str| msg.lines().next().unwrap_or("").to_string();
                notes.push(match &result {
                    Ok(_) => format!("built with {} for {scenarios} scenario(s)", files.what),
                    Err(output) => format!(
                        "did not compile with {} (its {scenarios} scenario(s) fail): {}",
                        files.what,
                        first(&output.0)
                    ),
                });
            }
            results.push((files.clone(), result));
        }
        *all_cached = !cached.is_empty() && cached.iter().all(|&c| c);
        let Some(command) = results.iter().find_map(|(_, r)| r.as_ref().ok()).cloned() else {
            // Nothing compiled: the upload's compile error, as it is built first.
            let msg = results
                .into_iter()
                .find_map(|(_, r)| r.err())
                .map(|output| output.0)
                .unwrap_or_default();
            return Err(BuildError::Compile(msg));
        };
        // Frames in any of the builds' copies of the upload are the student's.
        let sources = builds
            .iter()
            .fold(Sources::default(), |all, b| all.and(&b.sources));
        let mut program = self.program_of(command.program, sources);
        program.builds = results;
        Ok(BuiltUpload {
            program,
            notes,
            _builds: builds,
        })
    }

    /// A built program, graded as is (`--program`), under the run's
    /// limits and with the shim preloaded (and checked by `--memcheck`:
    /// valgrind runs it as it is; AddressSanitizer finds only what the
    /// program was built with it to find).
    pub fn program(&self, program: PathBuf) -> ConsoleProgram {
        self.program_of(program, Sources::default())
    }

    fn program_of(&self, program: PathBuf, sources: Sources) -> ConsoleProgram {
        ConsoleProgram {
            command: EngineCommand {
                program,
                args: Vec::new(),
            },
            limits: self.options.limits.clone(),
            env: self.env.clone(),
            builds: Vec::new(),
            memcheck: self.options.memcheck.map(|m| Checker::new(m, sources)),
        }
    }

    /// The memory check of every run (`--memcheck`), if any.
    pub fn memcheck(&self) -> Option<Memcheck> {
        self.options.memcheck
    }

    /// Grades one scenario on `program`: plan, run, judge.
    pub fn grade(&self, found: &Found, program: &ConsoleProgram) -> ScenarioResult {
        grade_scenario(found, program, &self.options.texts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn found(dir: &Path, name: &str, text: &str) -> Found {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        Found::new(path, PathBuf::from(name))
    }

    fn options() -> ConsoleOptions {
        ConsoleOptions::new(Texts::default(), Limits::default())
    }

    #[test]
    fn setup_problems_are_all_reported_before_anything_is_built() {
        let dir = tempfile::tempdir().unwrap();
        let store = SnapshotStore::new(dir.path().join("snapshots"));
        let lab3 = found(dir.path(), "lab3.txt", "@rules lab3\n1\n8 8\n~\n");
        let err = ConsoleGrader::new(&[lab3.clone(), lab3], &store, options()).unwrap_err();
        let lines = err.messages();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[0].contains("not gradable by console"), "{lines:?}");
        assert_eq!(
            lines[2],
            "2 scenario(s) cannot be graded on a console program; nothing was run"
        );
        let jhu = found(dir.path(), "jhu.txt", "@rules jhu\n1\n8 8\n~\n");
        // The CUHK program only starts from the start position: a bundled one.
        let cuhk = Found::new(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("scenarios/cuhk/console/invalid_inputs_then_a_pawn_capture_and_z0_z0.txt"),
            PathBuf::from("cuhk.txt"),
        );
        assert_eq!(
            ConsoleGrader::new(&[jhu.clone(), cuhk], &store, options()).unwrap_err(),
            SetupError::MixedDialects
        );
        let mut bad_overlay = options();
        bad_overlay.overlay = Some(dir.path().join("missing"));
        assert_eq!(
            ConsoleGrader::new(std::slice::from_ref(&jhu), &store, bad_overlay).unwrap_err(),
            SetupError::Overlay(dir.path().join("missing"))
        );
        let mut no_cc = options();
        no_cc.shim_cc = "/nonexistent/cc".into();
        let err = ConsoleGrader::new(&[jhu], &store, no_cc).unwrap_err();
        assert!(
            matches!(&err, SetupError::Shim(m) if m.contains("/nonexistent/cc")),
            "{err}"
        );
    }

    #[test]
    fn scenarios_with_the_same_mystery_piece_share_one_build() {
        let dir = tempfile::tempdir().unwrap();
        let store = SnapshotStore::new(dir.path().join("snapshots"));
        let jhu = |name: &str, mystery: &str| {
            // A Mystery piece on a1 when there is one, a rook without.
            let piece = if mystery.is_empty() { 'R' } else { 'M' };
            found(
                dir.path(),
                name,
                &format!(
                    "@rules jhu\n{mystery}1\nboard\n----k---\n{}{piece}---K---\nw\n~\n",
                    "--------\n".repeat(6)
                ),
            )
        };
        let scenarios = [
            jhu("camel.txt", "@mystery leaper 1,3 value 4\n"),
            jhu("plain.txt", ""),
            jhu("rider.txt", "@mystery slider 1,1 value 5\n"),
            // The camel again, its offset written the other way round.
            jhu("camel_again.txt", "@mystery leaper -3,1 value 4\n"),
            jhu("plain_again.txt", ""),
        ];
        let grader =
            ConsoleGrader::new(&scenarios, &store, options()).unwrap_or_else(|e| panic!("{e}"));
        let builds: Vec<(Option<&str>, usize)> = grader
            .builds
            .iter()
            .map(|(b, n)| (b.as_ref().map(|b| b.what.as_str()), *n))
            .collect();
        assert_eq!(
            builds,
            [
                (None, 2),
                (
                    Some("the graders' Mystery.h for `@mystery leaper 1,3 value 4`"),
                    2
                ),
                (
                    Some("the graders' Mystery.h for `@mystery slider 1,1 value 5`"),
                    1
                ),
            ]
        );
        // Mystery pieces only: no build of the upload as it is.
        let grader = ConsoleGrader::new(&scenarios[2..4], &store, options()).unwrap();
        assert_eq!(grader.builds.len(), 2);
        assert!(grader.builds.iter().all(|(b, n)| b.is_some() && *n == 1));
    }

    #[test]
    fn the_scenarios_say_whether_a_console_program_is_wanted() {
        let dir = tempfile::tempdir().unwrap();
        let lab3 = found(dir.path(), "lab3.txt", "@rules lab3\n1\n8 8\n~\n");
        let broken = found(dir.path(), "broken.txt", "not a scenario");
        let jhu = found(dir.path(), "jhu.txt", "@rules jhu\n1\n8 8\n~\n");
        assert!(!wants_console(&[lab3.clone(), broken.clone()]));
        assert!(wants_console(&[lab3, broken, jhu]));
        assert!(!wants_console(&[]));
    }
}
