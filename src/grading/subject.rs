//! What a run grades, decided once: the [`Plan`] (which kind of subject
//! the scenarios want, set up once per run) and the [`Prepared`] subject
//! (one upload built, one engine or program named) that runs each
//! scenario. `grade`, `grade --class`, `explain` and `shrink` all come
//! through here, so the rules below exist once:
//!
//! - **The scenarios decide the kind** ([`Plan::for_uploads`]): console
//!   programs when they are all a console course's (`@rules jhu`/`cuhk`)
//!   or a console flag (`--program`, `--build`, `--overlay`) says so; Lab 3
//!   uploads when none is. A selection of both is the staff's mistake
//!   (exit 2, before anything is built): pick one course's folder. What an
//!   upload looks like never changes how it is graded, so one student's odd
//!   upload cannot change anyone's grade; an upload of the other kind is
//!   that student's "not a recognised submission".
//! - **A student's problem is a result, a staff problem an error**: a
//!   compile error or an upload of the wrong kind marks every scenario
//!   failed without running it ([`Prepared`] holds no program then, not a
//!   stand-in); an upload folder that does not exist, a compiler that
//!   cannot start or an engine that is not there is a [`StaffError`].
//! - Every limit comes from the run's flags (no command keeps defaults of
//!   its own).
//! - **Where a build came from is a value** ([`Prepared::build`]), not a
//!   note: a report says it ([`Prepared::report_notes`]), a scenario's
//!   story (`explain`) leaves it out ([`Prepared::built_with`]).
//! - **A memory check (`--memcheck`) is part of the plan**: the upload is
//!   built for the tool here (AddressSanitizer's flags on every unit, or
//!   as it is for valgrind), every run is checked, and the leak item
//!   (`--leak-points`) is added after the scenarios
//!   ([`Prepared::leak_item`]); a program built elsewhere (`--program`)
//!   can only be checked by valgrind.

use super::error::StaffError;
use crate::console::{self, ConsoleGrader, ConsoleOptions, ConsoleProgram};
use crate::memcheck::{self, LeakPolicy, Memcheck, Tool};
use crate::runner::{self, FailureKind, Found, ScenarioResult, SnapshotMode};
use crate::scenario::StepKind;
use crate::snapshot::{RecordedBy, SnapshotStore};
use crate::subject::{EngineCommand, EngineSubject, Limits, ProcessSubject, Subject};
use crate::submission::{self, BuildCache, BuildError, CourseHooks, CppOptions, Hooks, Origin};
use crate::upload::{CaseRule, Upload};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How a run's uploads are built: both kinds' options, and whether a flag
/// already says they are console programs.
#[derive(Clone, Debug)]
pub struct UploadOptions {
    pub cpp: CppOptions,
    pub console: ConsoleOptions,
    /// A console flag was given: what is graded is a console program.
    pub force_console: bool,
    /// Each scenario's limits (Lab 3 uploads and engines; console
    /// programs take theirs from `console`).
    pub limits: Limits,
    /// Check memory (`--memcheck`): the tool and what its findings cost.
    pub memcheck: Option<Memcheck>,
    /// The build cache, for both kinds (it replaces theirs): where, and
    /// whether uploads' builds are reused.
    pub cache: BuildCache,
    /// How an include naming a file in another case is taken, for both
    /// kinds (`--strict-case`).
    pub case: CaseRule,
    /// A course's own hook file (`--adapter FILE`): uploads are that
    /// course's C++ classes, graded through it on any scenario it serves.
    pub adapter: Option<PathBuf>,
}

/// What the flags name as the thing graded, checked where it is named: an
/// upload folder that exists, an engine that runs. Which kind of upload it
/// is, is the scenarios' to say ([`Plan::choose`]).
#[derive(Clone, Debug)]
pub enum SubjectSpec {
    /// `--submission DIR`: one upload, built by the plan.
    Upload(PathBuf),
    /// `--program PATH`: a console program, run as it is.
    Program(PathBuf),
    /// `--engine CMD`: a program speaking the protocol.
    Engine(EngineCommand),
    /// The built-in reference engine (`explain` with no subject).
    Reference,
}

impl SubjectSpec {
    /// The subject the flags name (`None` when they name none): the
    /// engine resolved and the upload folder checked before anything is
    /// discovered or built. `engine` is `--engine`'s text and what follows
    /// `--`.
    pub fn from_flags(
        submission: Option<&Path>,
        engine: Option<(&str, Vec<std::ffi::OsString>)>,
        program: Option<&Path>,
    ) -> Result<Option<SubjectSpec>, StaffError> {
        if let Some((one, after)) = engine {
            return Ok(Some(SubjectSpec::Engine(engine_command(one, after)?)));
        }
        if let Some(dir) = submission {
            if !dir.is_dir() && !crate::upload::is_archive(dir) {
                return Err(StaffError::MissingUpload(dir.to_path_buf()));
            }
            return Ok(Some(SubjectSpec::Upload(dir.to_path_buf())));
        }
        Ok(program.map(|p| SubjectSpec::Program(p.to_path_buf())))
    }
}

/// What the whole run grades, set up once (for one upload or a class).
#[derive(Clone, Debug)]
pub enum Plan {
    /// C++ classes uploads, compiled with the adapter kit and the hooks
    /// `cpp.hooks` names (Lab 3's, or a course's checked hook file), for
    /// the memory checker when there is one (`cpp.memcheck` is its tool).
    Classes {
        cpp: CppOptions,
        limits: Limits,
        memcheck: Option<Memcheck>,
    },
    /// Console programs of one course, judged on their transcripts.
    Console(Arc<ConsoleGrader>),
    /// An engine speaking the protocol.
    Engine {
        command: EngineCommand,
        limits: Limits,
    },
    /// The built-in reference engine (`run`): a scenario over the timeout
    /// is an input error, not a failure.
    Reference { timeout: Duration },
}

/// The kind of upload a selection of scenarios wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UploadKind {
    Lab3,
    Console,
}

/// The one upload rule (see the module doc): the kind the scenarios want,
/// or the staff error of a selection that mixes console and other courses.
pub fn upload_kind(found: &[Found], force_console: bool) -> Result<UploadKind, StaffError> {
    if force_console || console::only_console(found) {
        return Ok(UploadKind::Console);
    }
    if !console::wants_console(found) {
        return Ok(UploadKind::Lab3);
    }
    let (console, others): (Vec<_>, Vec<_>) = found
        .iter()
        .filter_map(|f| f.load().ok().map(|s| (f, s)))
        .partition::<Vec<_>, _>(|(_, s)| console::Dialect::of(s.directives.rules.id).is_some());
    let (console, others): (Vec<&Found>, Vec<&Found>) = (
        console.into_iter().map(|(f, _)| f).collect(),
        others.into_iter().map(|(f, _)| f).collect(),
    );
    let example = |v: &[&Found]| {
        v.first()
            .map_or(String::new(), |f| f.path.display().to_string())
    };
    Err(StaffError::MixedCourses(format!(
        "the selected scenarios mix courses: {} are a console course's (e.g. {}), {} are not (e.g. {}: not gradable by console); grade one course's folder at a time (e.g. scenarios/lab3, scenarios/jhu or scenarios/cuhk)",
        console.len(),
        example(&console),
        others.len(),
        example(&others),
    )))
}

/// Checks, before anything is built, that every scenario can be put to a
/// Lab 3 upload through the course's interface: the `lab3` rules, and only
/// the pieces it has letters for (king, rook, bishop, pawn). A scenario
/// that does not load is left to the run (it is reported there, located).
pub(super) fn check_lab3(found: &[Found]) -> Result<(), StaffError> {
    const LETTERS: &str = "king, rook, bishop and pawn";
    let mut problems = Vec::new();
    for f in found {
        let Ok(s) = f.load() else {
            continue;
        };
        let name = f.path.display();
        let rules = s.directives.rules;
        if rules.id != crate::engine::RuleSetId::Lab3 {
            problems.push(format!(
                "{name}: not gradable on a Lab 3 upload: `@rules {}` is another course's (a Lab 3 upload plays lab3 only)",
                rules.name
            ));
            continue;
        }
        // A course's lab3 rules are the student's to implement; what the
        // interface cannot say is a promotion to a piece it has no type
        // for, or a choice between pieces (movePiece names none).
        let promotion = rules.promotion;
        let expressible = promotion.len() <= 1
            && promotion
                .iter()
                .all(|r| matches!(r, crate::domain::Role::Rook | crate::domain::Role::Bishop));
        if !expressible {
            problems.push(format!(
                "{name}: not gradable on a Lab 3 upload: the rules `{}` promote to {}, which Lab 3's movePiece cannot choose or its pieces cannot be (king, rook, bishop and pawn)",
                rules.name,
                promotion.letters()
            ));
            continue;
        }
        let beyond = s
            .placements
            .iter()
            .find(|p| {
                !matches!(
                    p.role,
                    crate::domain::Role::King
                        | crate::domain::Role::Rook
                        | crate::domain::Role::Bishop
                        | crate::domain::Role::Pawn
                )
            })
            .map(|p| format!("line {}: a {:?}", p.line, p.role).to_lowercase())
            .or_else(|| {
                let fen = s.fen.as_deref()?;
                let board = fen.split_whitespace().next().unwrap_or("");
                board
                    .chars()
                    .find(|c| "qnmQNM".contains(*c))
                    .map(|c| format!("its FEN places `{c}`"))
            });
        if let Some(what) = beyond {
            problems.push(format!(
                "{name}: not gradable on a Lab 3 upload: {what}, but the course's interface has letters for the {LETTERS} only"
            ));
        }
    }
    not_gradable(
        problems,
        "cannot be put to a Lab 3 upload; nothing was built (grade one course's folder, e.g. scenarios/lab3)",
    )
}

/// Checks, before the hook file is checked or anything built, that every
/// scenario asks only for what the adapter kit has hooks for: a board set
/// up with the six chess pieces, then `movePiece`, `isValidScan`,
/// `underThreatScan`, `undo` and `redo` (whether the course's hook file
/// serves each of them, its rule set and its board size, the kit says when
/// asked: a scenario it cannot serve is then that scenario's input error).
fn check_kit_steps(found: &[Found]) -> Result<(), StaffError> {
    let mut problems = Vec::new();
    for f in found {
        let Ok(s) = f.load() else {
            continue;
        };
        let name = f.path.display();
        let step = s.steps.iter().find(|step| {
            !matches!(
                step.kind,
                StepKind::MovePiece { .. }
                    | StepKind::IsValidScan
                    | StepKind::UnderThreatScan
                    | StepKind::Undo
                    | StepKind::Redo
            )
        });
        if let Some(step) = step {
            let what = match step.kind {
                StepKind::Move { .. } => {
                    "a `move` step (its refusal reason is no hook's answer: write it as movePiece)"
                        .to_string()
                }
                _ => format!(
                    "`{}`, which no hook of the adapter kit answers",
                    step.kind.text()
                ),
            };
            problems.push(format!(
                "{name}: not gradable through a course's hook file: line {}: {what}",
                step.line
            ));
        } else if s.directives.mystery.is_some() {
            problems.push(format!(
                "{name}: not gradable through a course's hook file: a Mystery piece (the adapter kit places the six chess pieces only)"
            ));
        } else if s.directives.rules != s.directives.rules.id.rules() {
            problems.push(format!(
                "{name}: not gradable through a course's hook file: a rule file's rules (`@rules {}`): the course's classes play their own",
                s.directives.rules_line.as_deref().unwrap_or(s.directives.rules.id.name())
            ));
        }
    }
    not_gradable(
        problems,
        "cannot be put to a course's classes through the adapter kit; nothing was built",
    )
}

/// The staff's error listing the scenarios a kind of upload cannot run
/// (the first few), and `what` that means; `Ok` when there are none.
fn not_gradable(mut problems: Vec<String>, what: &str) -> Result<(), StaffError> {
    if problems.is_empty() {
        return Ok(());
    }
    let n = problems.len();
    const SHOWN: usize = 8;
    if n > SHOWN {
        problems.truncate(SHOWN);
        problems.push(format!("… and {} more", n - SHOWN));
    }
    problems.push(format!("{n} scenario(s) {what}"));
    Err(StaffError::NotGradable(problems))
}

impl Plan {
    /// The plan for grading `found` on `what`: an engine as it is, an
    /// upload by the upload rule ([`Plan::for_uploads`]), a program as a
    /// console course's ([`Plan::for_program`]), the reference engine
    /// under the scenario time limit.
    pub fn choose(
        found: &[Found],
        store: &SnapshotStore,
        what: &SubjectSpec,
        options: &UploadOptions,
    ) -> Result<Plan, StaffError> {
        match what {
            SubjectSpec::Engine(command) => Ok(Plan::Engine {
                command: command.clone(),
                limits: options.limits.clone(),
            }),
            SubjectSpec::Upload(_) => Plan::for_uploads(found, store, options),
            SubjectSpec::Program(_) => Plan::for_program(found, store, options),
            SubjectSpec::Reference if options.force_console => Err(StaffError::Usage(
                "--build and --overlay build an upload: give --submission DIR (or --program PATH for a built program)".into(),
            )),
            SubjectSpec::Reference => Ok(Plan::Reference {
                timeout: options.limits.timeout,
            }),
        }
    }

    /// The subject `what` names, ready to run on this plan: the upload
    /// built, the program or engine checked.
    pub fn prepare(&self, what: &SubjectSpec) -> Result<Prepared, StaffError> {
        match what {
            SubjectSpec::Upload(dir) => self.build(dir),
            SubjectSpec::Program(path) => self.program(path),
            SubjectSpec::Engine(_) | SubjectSpec::Reference => Ok(self.engine()),
        }
    }

    /// The plan for uploads of the kind `found` wants (the upload rule):
    /// for console programs the course's grader is set up here, once, and
    /// every scenario checked (a scenario it cannot load is the staff's
    /// error, before any upload is built). With a course's hook file
    /// (`--adapter`) the uploads are that course's classes whatever the
    /// scenarios: the hook file is checked here, once, and every scenario
    /// asked for steps the adapter kit has a hook for.
    pub fn for_uploads(
        found: &[Found],
        store: &SnapshotStore,
        options: &UploadOptions,
    ) -> Result<Plan, StaffError> {
        if let Some(path) = &options.adapter {
            if options.force_console {
                return Err(StaffError::Usage(
                    "--adapter grades a course's C++ classes through its hook file; --program, --build and --overlay grade a console program: give one or the other".into(),
                ));
            }
            check_kit_steps(found)?;
            let mut plan = Plan::classes(options);
            if let Plan::Classes { cpp, .. } = &mut plan {
                let hooks =
                    CourseHooks::load(path, cpp).map_err(|e| StaffError::Hooks(e.to_string()))?;
                cpp.hooks = Hooks::Course(hooks);
            }
            return Ok(plan);
        }
        Ok(match upload_kind(found, options.force_console)? {
            UploadKind::Lab3 => {
                check_lab3(found)?;
                Plan::classes(options)
            }
            UploadKind::Console => Plan::for_console(found, store, options)?,
        })
    }

    /// The plan for C++ classes uploads as these options build them (for
    /// the memory checker, when there is one), the scenarios already
    /// checked: Lab 3's hooks unless the caller sets a course's.
    pub fn classes(options: &UploadOptions) -> Plan {
        Plan::Classes {
            cpp: CppOptions {
                memcheck: options.memcheck.map(|m| m.tool),
                cache: options.cache.clone(),
                case: options.case,
                // The build's folder is bounded as every scenario's is.
                disk: options.limits.disk,
                ..options.cpp.clone()
            },
            limits: options.limits.clone(),
            memcheck: options.memcheck,
        }
    }

    /// The plan for console uploads of the course `found` is (`explain`
    /// and `shrink` of one console upload): its grader set up once.
    pub fn for_console(
        found: &[Found],
        store: &SnapshotStore,
        options: &UploadOptions,
    ) -> Result<Plan, StaffError> {
        let console = ConsoleOptions {
            memcheck: options.memcheck,
            cache: options.cache.clone(),
            case: options.case,
            ..options.console.clone()
        };
        Ok(Plan::Console(Arc::new(ConsoleGrader::new(
            found, store, console,
        )?)))
    }

    /// The plan for a console program graded as is (`--program`): the
    /// scenarios must be a console course's.
    pub fn for_program(
        found: &[Found],
        store: &SnapshotStore,
        options: &UploadOptions,
    ) -> Result<Plan, StaffError> {
        if options.memcheck.is_some_and(|m| m.tool == Tool::Asan) {
            return Err(StaffError::Usage(
                "--memcheck=asan needs the program built by the grader (--submission); a --program built elsewhere can be checked with --memcheck=valgrind".into(),
            ));
        }
        Plan::for_console(found, store, options)
    }

    /// The memory check's note (`memcheck: AddressSanitizer; ...`), once
    /// per run (a class's header).
    pub fn memcheck_note(&self) -> Option<String> {
        self.memcheck().map(|m| memcheck::describe(&m))
    }

    /// The memory check of this plan's runs (`--memcheck`), if any.
    pub fn memcheck(&self) -> Option<Memcheck> {
        match self {
            Plan::Classes { memcheck, .. } => *memcheck,
            Plan::Console(grader) => grader.memcheck(),
            Plan::Engine { .. } | Plan::Reference { .. } => None,
        }
    }

    /// Whether this plan's verdicts are comparisons with the snapshots
    /// (Lab 3 uploads, engines), so that grading without them is the
    /// staff's error. A console program's expected transcript is the
    /// reference engine's, checked against a reviewed snapshot only where
    /// there is one.
    pub fn judges_on_snapshots(&self) -> bool {
        matches!(self, Plan::Classes { .. } | Plan::Engine { .. })
    }

    /// What the class table calls the uploads (`Lab 3`, `JHU console`).
    pub fn kind_name(&self) -> String {
        match self {
            Plan::Classes { cpp, .. } => match cpp.hooks.course() {
                None => "Lab 3".to_string(),
                Some(course) => format!(
                    "C++ classes ({})",
                    course
                        .path
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                ),
            },
            Plan::Console(g) => format!("{} console", g.dialect().name().to_uppercase()),
            Plan::Engine { .. } => "engine".to_string(),
            Plan::Reference { .. } => "reference engine".to_string(),
        }
    }

    /// One upload built for this plan. A compile error or an upload of the
    /// other kind is the student's (a [`Prepared`] that runs nothing); a
    /// missing folder or a build that cannot start is the staff's.
    pub fn build(&self, upload: &Path) -> Result<Prepared, StaffError> {
        if !upload.exists() {
            return Err(StaffError::MissingUpload(upload.to_path_buf()));
        }
        let name = format!("submission {}", upload.display());
        let case = match self {
            Plan::Classes { cpp, .. } => cpp.case,
            Plan::Console(grader) => grader.options().case,
            Plan::Engine { .. } | Plan::Reference { .. } => return Ok(self.engine()),
        };
        // What the upload is, decided once for every build of it; what
        // the reader left out or resolved is said whatever the build does.
        let read = Upload::read(upload);
        let upload_notes = read.as_ref().map_or(Vec::new(), |u| u.notes(case));
        let started = Instant::now();
        let mut origin = Origin::Built;
        let mut secs = 0.0;
        let built = match (self, read) {
            (_, Err(e)) => Err(BuildError::from(e)),
            (Plan::Engine { .. } | Plan::Reference { .. }, Ok(_)) => return Ok(self.engine()),
            (
                Plan::Classes {
                    cpp,
                    limits,
                    memcheck,
                },
                Ok(upload),
            ) => {
                let (built, from) = submission::build_cpp_traced(&upload, cpp);
                origin = from;
                secs = started.elapsed().as_secs_f64();
                built.map(|build| {
                    let command = build.command.clone();
                    let limits = limits.clone();
                    let checker = build.checker(*memcheck);
                    let notes = build.notes.clone();
                    (
                        Run::Subjects(Arc::new(move || {
                            Box::new(
                                ProcessSubject::new(command.clone(), limits.clone())
                                    .with_memcheck(checker.clone())
                                    .with_kit(),
                            ) as Box<dyn Subject>
                        })),
                        notes,
                        Keep::Lab3(build),
                    )
                })
            }
            (Plan::Console(grader), Ok(upload)) => {
                let (built, from) = grader.build_traced(&upload);
                origin = from;
                built.map(|built| {
                    // What it was built with besides (the graders' Mystery.h).
                    let notes = built.notes.clone();
                    (
                        Run::Console {
                            grader: grader.clone(),
                            program: built.program.clone(),
                        },
                        notes,
                        Keep::Console(built),
                    )
                })
            }
        };
        // What compiled it (a Lab 3 upload), when anything did.
        let compiler = match self {
            Plan::Classes { cpp, .. } => Some(Compiler {
                how: format!("{} {}", cpp.compiler, cpp.all_flags().join(" ")),
                secs,
            }),
            _ => None,
        };
        let mut build = Some(BuildRecord { origin, compiler });
        let mut notes = upload_notes;
        let (run, keep) = match built {
            Ok((run, build_notes, keep)) => {
                notes.extend(build_notes);
                (run, keep)
            }
            // Reported once, as the report's compile error (a typed
            // field, told with the notes); each scenario points there, not
            // 151 copies of the compiler's output.
            Err(BuildError::Compile(msg)) => {
                // Each scenario points to the message: a Lab 3 build (one
                // g++ per file) names the student's first error line there
                // too; a console build's output (make's commands, several
                // files) is shown once only.
                let pointer = "(the compiler's whole message is shown once, in the notes above the scenarios)";
                let detail = match self {
                    Plan::Classes { .. } => {
                        let first = msg
                            .lines()
                            .find(|l| l.contains("error"))
                            .or_else(|| msg.lines().next())
                            .unwrap_or("");
                        format!("{first}\n{pointer}")
                    }
                    _ => pointer.to_string(),
                };
                (
                    Run::Failed {
                        kind: FailureKind::CompileError(detail),
                        message: format!("the submission did not compile:\n{msg}"),
                        compiler: Some(msg),
                    },
                    Keep::Nothing,
                )
            }
            // Nothing was built.
            Err(e @ BuildError::NotRecognised(_)) => {
                build = None;
                notes.push(e.to_string());
                (
                    Run::Failed {
                        kind: FailureKind::NotRecognised(e.to_string()),
                        message: e.to_string(),
                        compiler: None,
                    },
                    Keep::Nothing,
                )
            }
            Err(BuildError::Io(m)) => return Err(StaffError::Build(m)),
            // Not the upload's result: no score at all, the staff's to fix.
            Err(e @ BuildError::Grader(_)) => return Err(StaffError::Build(e.to_string())),
        };
        Ok(Prepared {
            name,
            notes,
            build,
            run,
            memcheck: self.memcheck(),
            _keep: keep,
            reference: None,
        })
    }

    /// The plan's program when nothing is built: the engine, the reference
    /// engine, or (console plans) the program at `program`.
    pub fn engine(&self) -> Prepared {
        match self {
            Plan::Engine { command, limits } => {
                let (command, limits) = (command.clone(), limits.clone());
                Prepared {
                    name: format!("engine {}", command.program.display()),
                    notes: Vec::new(),
                    memcheck: None,
                    run: Run::Subjects(Arc::new(move || {
                        Box::new(ProcessSubject::new(command.clone(), limits.clone()))
                            as Box<dyn Subject>
                    })),
                    build: None,
                    _keep: Keep::Nothing,
                    reference: None,
                }
            }
            Plan::Reference { timeout } => Prepared::reference(*timeout),
            Plan::Classes { .. } | Plan::Console(_) => Prepared {
                name: "nothing".into(),
                notes: Vec::new(),
                memcheck: None,
                run: Run::Failed {
                    kind: FailureKind::NotRecognised("no upload was built".into()),
                    message: "no upload was built".into(),
                    compiler: None,
                },
                build: None,
                _keep: Keep::Nothing,
                reference: None,
            },
        }
    }

    /// A console program graded as is (`--program PATH`): it must exist
    /// and be executable.
    pub fn program(&self, path: &Path) -> Result<Prepared, StaffError> {
        let Plan::Console(grader) = self else {
            return Err(StaffError::Usage(
                "--program grades a console program: the scenarios must be a console course's (@rules jhu or cuhk)".into(),
            ));
        };
        let program = resolve(path)
            .and_then(|p| p.canonicalize().ok())
            .ok_or_else(|| StaffError::NotExecutable {
                what: "program",
                path: path.to_path_buf(),
            })?;
        Ok(Prepared {
            name: format!("program {}", path.display()),
            notes: Vec::new(),
            memcheck: self.memcheck(),
            run: Run::Console {
                grader: grader.clone(),
                program: grader.program(program),
            },
            build: None,
            _keep: Keep::Nothing,
            reference: None,
        })
    }
}

/// Where an upload's build came from, and (a Lab 3 upload) what compiled
/// it: a value, not a note, so that each report says it its own way
/// ([`BuildRecord::note`] for the notes of `grade`'s reports; a class's
/// count of builds from the cache) and a command that tells one
/// scenario's story (`explain`) leaves it out without reading any text.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildRecord {
    /// Built now, or copied from the build cache (a console upload: all of
    /// its builds were).
    pub origin: Origin,
    /// A Lab 3 upload's compiler.
    pub compiler: Option<Compiler>,
}

/// What compiled a Lab 3 upload, and how long its build took.
#[derive(Clone, Debug, PartialEq)]
pub struct Compiler {
    /// The compiler and every flag (`g++ -std=c++17 -g -Wall`).
    pub how: String,
    /// Seconds the build took (meaningful when it was built now).
    pub secs: f64,
}

impl BuildRecord {
    /// The note a report says it in: a Lab 3 build's `compile: 4.91s
    /// (g++ ...)` or `compile: from the build cache (g++ ...)`; a console
    /// upload's [`FROM_CACHE_NOTE`] when its builds came from the cache
    /// (nothing when built now).
    pub fn note(&self) -> Option<String> {
        match (&self.compiler, self.origin) {
            (Some(c), Origin::Built) => Some(format!("compile: {:.2}s ({})", c.secs, c.how)),
            (Some(c), Origin::Cache) => Some(format!("compile: {FROM_CACHE} ({})", c.how)),
            (None, Origin::Cache) => Some(FROM_CACHE_NOTE.to_string()),
            (None, Origin::Built) => None,
        }
    }
}

/// How a report says a build was copied from the build cache.
pub const FROM_CACHE: &str = "from the build cache";
/// The note of a console upload whose builds all came from the cache.
pub const FROM_CACHE_NOTE: &str = "build: from the build cache";

/// How each scenario of a prepared subject runs.
#[derive(Clone)]
enum Run {
    /// A subject per worker, each scenario judged on its trace.
    Subjects(Arc<dyn Fn() -> Box<dyn Subject> + Send + Sync>),
    /// The reference engine under a timeout.
    Reference(Duration),
    /// A console program, each scenario graded on its transcript.
    Console {
        grader: Arc<ConsoleGrader>,
        program: ConsoleProgram,
    },
    /// Nothing to run: every scenario fails with `kind` (a build that
    /// failed on the student's side); `message` says it whole (the
    /// compiler's full output), for a command that walks one scenario;
    /// `compiler` the compiler's message when it did not compile.
    Failed {
        kind: FailureKind,
        message: String,
        compiler: Option<String>,
    },
}

/// What keeps a build's folder (and so its program) alive for the run.
enum Keep {
    Nothing,
    Lab3(#[allow(dead_code)] submission::Build),
    Console(#[allow(dead_code)] console::BuiltUpload),
}

/// A subject ready to run scenarios: its name in reports, what its build
/// said, where the build came from, and how each scenario runs.
pub struct Prepared {
    pub name: String,
    /// What the build said of the upload (files left out, the graders'
    /// headers it was built with; a compile error is [`Prepared::compile_error`]); not where the build
    /// came from ([`Prepared::build`]) nor the memory check: see
    /// [`Prepared::report_notes`] and [`Prepared::built_with`].
    notes: Vec<String>,
    /// Where its build (the program, or the compile error) came from;
    /// `None` when nothing was built (an engine, a program, the reference).
    pub build: Option<BuildRecord>,
    run: Run,
    /// The memory check of its runs (`--memcheck`), for the leak item.
    memcheck: Option<Memcheck>,
    _keep: Keep,
    /// Set when its answers are the expected ones (`run`): see [`Prepared::as_reference`].
    reference: Option<Reference>,
}

/// A subject whose answers are the expected ones: who it is, in the words
/// of a staff error, and who its snapshots say wrote them.
#[derive(Clone, Debug)]
struct Reference {
    /// `the reference engine`, `the reference upload ref/`.
    who: String,
    recorder: Option<RecordedBy>,
    timeout: Duration,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("name", &self.name)
            .field("notes", &self.notes)
            .field("build", &self.build)
            .finish_non_exhaustive()
    }
}

impl Prepared {
    /// The notes a report of a run on it opens with: what the build said,
    /// where it came from ([`BuildRecord::note`]), the memory check, then
    /// the reference its answers come from (`run` with the course's program).
    pub fn report_notes(&self) -> Vec<String> {
        let mut notes = self.notes.clone();
        notes.extend(self.build.as_ref().and_then(BuildRecord::note));
        notes.extend(self.memcheck_note());
        notes.extend(
            self.recorder()
                .map(|by| format!("answers from the reference: {by}")),
        );
        notes
    }

    /// What it was built with and how it is checked (the build's notes and
    /// the memory check), without where the build came from: what belongs
    /// to a scenario's story (`explain`'s header).
    pub fn built_with(&self) -> Vec<String> {
        let mut notes = self.notes.clone();
        notes.extend(self.memcheck_note());
        notes
    }

    fn memcheck_note(&self) -> Option<String> {
        self.memcheck.map(|m| memcheck::describe(&m))
    }

    /// Whether its build was copied from the build cache (nothing was
    /// compiled).
    pub fn from_cache(&self) -> bool {
        self.build
            .as_ref()
            .is_some_and(|b| b.origin == Origin::Cache)
    }

    /// The built-in reference engine, `timeout` per scenario.
    pub fn reference(timeout: Duration) -> Prepared {
        Prepared {
            name: "reference engine".into(),
            notes: Vec::new(),
            memcheck: None,
            run: Run::Reference(timeout),
            build: None,
            _keep: Keep::Nothing,
            reference: None,
        }
        .as_reference("the reference engine".into(), None, timeout)
    }

    /// This subject as the reference of a run (`run`): its answers are the
    /// expected ones, so a step it cannot answer (a timeout after
    /// `timeout`, a crash, a malformed answer) is the staff's input error
    /// naming it as `who` (exit 2), never a failure, and nothing is
    /// written for that scenario; the snapshots it writes say `recorder`
    /// wrote them (`None`: the built-in engine, which says nothing).
    pub fn as_reference(
        mut self,
        who: String,
        recorder: Option<RecordedBy>,
        timeout: Duration,
    ) -> Prepared {
        self.reference = Some(Reference {
            who,
            recorder,
            timeout,
        });
        self
    }

    /// Who the snapshots it writes say wrote them, when it is a course's
    /// reference program (`None`: a student's, or the built-in engine).
    pub fn recorder(&self) -> Option<&RecordedBy> {
        self.reference.as_ref()?.recorder.as_ref()
    }

    /// A subject given directly (the library's callers and tests).
    pub fn subjects(
        name: impl Into<String>,
        make: impl Fn() -> Box<dyn Subject> + Send + Sync + 'static,
    ) -> Prepared {
        Prepared {
            name: name.into(),
            notes: Vec::new(),
            memcheck: None,
            run: Run::Subjects(Arc::new(make)),
            build: None,
            _keep: Keep::Nothing,
            reference: None,
        }
    }

    /// The memory check's leak item (`--leak-points`), graded on `results`
    /// (this subject's, as [`Prepared::run`] gave them): earned when no
    /// checked scenario leaked; failed with the build's reason when
    /// nothing could run. `None` without a leak item, or when no result
    /// was checked.
    pub fn leak_item(&self, results: &[ScenarioResult]) -> Option<ScenarioResult> {
        let LeakPolicy::Item(points) = self.memcheck?.policy.leaks else {
            return None;
        };
        match &self.run {
            Run::Failed { kind, .. } => Some(runner::leak_item_not_run(kind.clone(), points)),
            _ => runner::leak_item(results, points),
        }
    }

    /// Why nothing runs, when the build failed on the student's side.
    pub fn not_run(&self) -> Option<&FailureKind> {
        match &self.run {
            Run::Failed { kind, .. } => Some(kind),
            _ => None,
        }
    }

    /// The compiler's message, when the upload did not compile (a
    /// report's [`compile_error`](crate::report::Report::compile_error)).
    pub fn compile_error(&self) -> Option<&str> {
        match &self.run {
            Run::Failed { compiler, .. } => compiler.as_deref(),
            _ => None,
        }
    }

    /// The whole story of why nothing runs (`the submission did not
    /// compile:` and the compiler's output), when nothing does.
    pub fn not_run_message(&self) -> Option<&str> {
        match &self.run {
            Run::Failed { message, .. } => Some(message),
            _ => None,
        }
    }

    /// The course's grader and the program, when this is a console
    /// program (`explain` and `shrink` walk it command by command).
    pub fn console(&self) -> Option<(&ConsoleGrader, &ConsoleProgram)> {
        match &self.run {
            Run::Console { grader, program } => Some((grader, program)),
            _ => None,
        }
    }

    /// A subject for one scenario at a time (`explain`, `shrink`); `None`
    /// when the subject is a console program or nothing was built.
    pub fn subject(&self) -> Option<Box<dyn Subject>> {
        match &self.run {
            Run::Subjects(make) => Some(make()),
            Run::Reference(timeout) => Some(Box::new(EngineSubject::with_timeout(*timeout))),
            Run::Console { .. } | Run::Failed { .. } => None,
        }
    }

    /// Runs `found` in discovery order on `jobs` workers, judging against
    /// `store`; `on_result` sees each result as it completes, in order.
    /// With `fail_fast`, no scenario starts after the first failure.
    /// A reference's results are read as the staff's
    /// ([`Prepared::as_reference`]).
    pub fn run(
        &self,
        found: &[Found],
        jobs: usize,
        store: &SnapshotStore,
        mode: SnapshotMode,
        fail_fast: bool,
        mut on_result: impl FnMut(&ScenarioResult),
    ) -> Vec<ScenarioResult> {
        let Some(reference) = &self.reference else {
            return self.run_each(found, jobs, store, mode, fail_fast, on_result);
        };
        let secs = reference.timeout.as_secs_f64();
        let as_staff = |r: ScenarioResult| runner::as_reference_result(r, &reference.who, secs);
        self.run_each(found, jobs, store, mode, fail_fast, |r| {
            on_result(&as_staff(r.clone()))
        })
        .into_iter()
        .map(as_staff)
        .collect()
    }

    /// Runs `found` as [`Prepared::run`] does, each result as it came.
    fn run_each(
        &self,
        found: &[Found],
        jobs: usize,
        store: &SnapshotStore,
        mode: SnapshotMode,
        fail_fast: bool,
        mut on_result: impl FnMut(&ScenarioResult),
    ) -> Vec<ScenarioResult> {
        match &self.run {
            Run::Failed { kind, .. } => {
                let mut results = Vec::new();
                for f in found {
                    let r = runner::not_run(f, kind.clone());
                    on_result(&r);
                    let stop = fail_fast && r.is_failure();
                    results.push(r);
                    if stop {
                        break;
                    }
                }
                results
            }
            Run::Subjects(make) => {
                runner::run_all_until(found, jobs, &**make, store, mode, fail_fast, on_result)
            }
            Run::Reference(timeout) => {
                let timeout = *timeout;
                let make =
                    move || Box::new(EngineSubject::with_timeout(timeout)) as Box<dyn Subject>;
                runner::run_all_until(found, jobs, &make, store, mode, fail_fast, on_result)
            }
            Run::Console { grader, program } => runner::run_pool(
                found,
                jobs,
                &|| (),
                |_, f| runner::guarded(|| grader.grade(f, program)),
                fail_fast,
                on_result,
            ),
        }
    }
}

/// The executable a program name runs (the sandbox's rule).
pub use crate::sandbox::resolve;

/// The engine's argv: `--engine "prog a b"` (split at whitespace, no
/// shell) or `--engine -- prog a b`. The program must exist: a missing
/// engine is a staff-side error, not every scenario failing.
pub fn engine_command(
    one: &str,
    after: Vec<std::ffi::OsString>,
) -> Result<EngineCommand, StaffError> {
    let mut argv: Vec<std::ffi::OsString> = one
        .split_whitespace()
        .map(std::ffi::OsString::from)
        .collect();
    argv.extend(after);
    if argv.is_empty() {
        return Err(StaffError::Usage(
            "--engine needs a command: --engine CMD or --engine -- CMD ARGS...".into(),
        ));
    }
    let named = PathBuf::from(argv.remove(0));
    let Some(found) = resolve(&named) else {
        return Err(StaffError::NotExecutable {
            what: "engine",
            path: named,
        });
    };
    // A bare name stays as named (found on PATH again, and shown so).
    let program = match named.components().count() {
        1 => named,
        _ => found,
    };
    // The engine runs in an empty temporary folder: a relative program, or
    // an argument naming an existing file here (`python3 engine.py`), is
    // made absolute so that it means what it meant on the command line.
    let args = argv
        .into_iter()
        .map(|arg| {
            let path = Path::new(&arg);
            match path.is_relative() && path.exists() {
                true => std::path::absolute(path).map_or(arg, PathBuf::into_os_string),
                false => arg,
            }
        })
        .collect();
    Ok(EngineCommand { program, args })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(dir: &Path, name: &str, text: &str) -> Found {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        Found::new(path, PathBuf::from(name))
    }

    const LAB3: &str = "1\n3 3\nw k 1 1\n~\nisValidScan\n";

    #[test]
    fn where_a_build_came_from_is_a_value_each_report_says_its_own_way() {
        let gpp = || {
            Some(Compiler {
                how: "g++ -g".into(),
                secs: 1.234,
            })
        };
        let note = |origin, compiler| BuildRecord { origin, compiler }.note();
        assert_eq!(
            note(Origin::Built, gpp()).as_deref(),
            Some("compile: 1.23s (g++ -g)")
        );
        assert_eq!(
            note(Origin::Cache, gpp()).as_deref(),
            Some("compile: from the build cache (g++ -g)")
        );
        assert_eq!(
            note(Origin::Cache, None).as_deref(),
            Some("build: from the build cache")
        );
        assert_eq!(note(Origin::Built, None), None);
        // A console upload from the cache, checked by valgrind: a report
        // says where the build came from, between what the build said and
        // the memory check; `explain`'s header does not.
        let mut prepared = Prepared::reference(Duration::from_secs(1));
        prepared.notes = vec!["built with the graders' Mystery.h".into()];
        prepared.build = Some(BuildRecord {
            origin: Origin::Cache,
            compiler: None,
        });
        let valgrind = Memcheck {
            tool: Tool::Valgrind,
            policy: Default::default(),
        };
        prepared.memcheck = Some(valgrind);
        let checked = memcheck::describe(&valgrind);
        assert!(prepared.from_cache());
        assert_eq!(
            prepared.report_notes(),
            [
                "built with the graders' Mystery.h",
                "build: from the build cache",
                &checked
            ]
        );
        assert_eq!(
            prepared.built_with(),
            ["built with the graders' Mystery.h", &checked]
        );
    }

    #[test]
    fn the_scenarios_decide_the_kind_and_a_mix_of_courses_is_the_staffs_error() {
        let dir = tempfile::tempdir().unwrap();
        let lab3 = found(dir.path(), "a.txt", LAB3);
        let bundled = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scenarios/jhu/check/check_picture_and_its_three_answers.txt"
        );
        let jhu = found(
            dir.path(),
            "b.txt",
            &std::fs::read_to_string(bundled).unwrap(),
        );
        assert_eq!(
            upload_kind(std::slice::from_ref(&lab3), false).unwrap(),
            UploadKind::Lab3
        );
        assert_eq!(
            upload_kind(std::slice::from_ref(&jhu), false).unwrap(),
            UploadKind::Console
        );
        // A console flag makes a console run whatever the scenarios.
        assert_eq!(
            upload_kind(std::slice::from_ref(&lab3), true).unwrap(),
            UploadKind::Console
        );
        let mixed = upload_kind(&[lab3, jhu], false).unwrap_err();
        assert!(matches!(mixed, StaffError::MixedCourses(_)), "{mixed}");
        let text = mixed.to_string();
        let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
        assert_eq!(
            text,
            format!(
                "the selected scenarios mix courses: 1 are a console course's (e.g. {}), 1 are not (e.g. {}: not gradable by console); grade one course's folder at a time (e.g. scenarios/lab3, scenarios/jhu or scenarios/cuhk)",
                b.display(),
                a.display()
            )
        );
    }

    #[test]
    fn a_lab3_plan_refuses_other_rules_and_pieces_the_interface_has_no_letter_for() {
        let dir = tempfile::tempdir().unwrap();
        let store = SnapshotStore::new(dir.path().join("snapshots"));
        let options = UploadOptions {
            cpp: CppOptions::new("g++", Duration::from_secs(1)),
            console: ConsoleOptions::new(Default::default(), Limits::default()),
            force_console: false,
            limits: Limits::default(),
            memcheck: None,
            cache: BuildCache::off(),
            case: CaseRule::default(),
            adapter: None,
        };
        let fine = found(dir.path(), "fine.txt", LAB3);
        assert!(matches!(
            Plan::for_uploads(std::slice::from_ref(&fine), &store, &options),
            Ok(Plan::Classes { .. })
        ));
        let knight = found(
            dir.path(),
            "n.txt",
            "1\n3 3\nw k 0 0\nb n 2 2\n~\nisValidScan\n",
        );
        let standard = found(
            dir.path(),
            "s.txt",
            "@rules standard\n1\n3 3\nw k 0 0\n~\nisValidScan\n",
        );
        let err = Plan::for_uploads(&[fine, knight, standard], &store, &options).unwrap_err();
        let lines = err.messages();
        let n = dir.path().join("n.txt");
        let s = dir.path().join("s.txt");
        assert_eq!(
            lines,
            [
                format!("{}: not gradable on a Lab 3 upload: line 4: a knight, but the course's interface has letters for the king, rook, bishop and pawn only", n.display()),
                format!("{}: not gradable on a Lab 3 upload: `@rules standard` is another course's (a Lab 3 upload plays lab3 only)", s.display()),
                "2 scenario(s) cannot be put to a Lab 3 upload; nothing was built (grade one course's folder, e.g. scenarios/lab3)".to_string(),
            ]
        );
    }

    #[test]
    fn a_missing_upload_folder_is_the_staffs_error_before_any_build() {
        let plan = Plan::Classes {
            // A compiler that does not exist: never started.
            cpp: CppOptions::new("/nonexistent/g++", Duration::from_secs(1)),
            limits: Limits::default(),
            memcheck: None,
        };
        let err = plan.build(Path::new("/nonexistent/upload")).unwrap_err();
        assert!(matches!(err, StaffError::MissingUpload(_)), "{err}");
        assert!(
            err.to_string()
                .contains("/nonexistent/upload does not exist")
        );
    }

    #[test]
    fn an_upload_of_the_other_kind_fails_every_scenario_without_running_anything() {
        let dir = tempfile::tempdir().unwrap();
        let scenarios = tempfile::tempdir().unwrap();
        // A console upload (a .cpp with main, no ChessBoard.hh) on a Lab 3 plan.
        std::fs::write(dir.path().join("main.cpp"), "int main() {}\n").unwrap();
        let plan = Plan::Classes {
            cpp: CppOptions::new("/nonexistent/g++", Duration::from_secs(1)),
            limits: Limits::default(),
            memcheck: None,
        };
        let prepared = plan.build(dir.path()).unwrap();
        let kind = prepared.not_run().expect("nothing to run").clone();
        assert!(matches!(kind, FailureKind::NotRecognised(_)), "{kind:?}");
        assert!(prepared.subject().is_none());
        let f = found(scenarios.path(), "a.txt", LAB3);
        let store = SnapshotStore::new(scenarios.path());
        let mut seen = 0;
        let results = prepared.run(&[f], 1, &store, SnapshotMode::Check, false, |_| seen += 1);
        assert_eq!((results.len(), seen), (1, 1));
        assert!(results[0].is_failure());
        assert!(prepared.notes[0].starts_with("not a recognised submission: no ChessBoard.hh"));
    }

    #[test]
    fn a_memory_check_is_the_plans_own_build_and_leak_item() {
        use crate::memcheck::{ErrorPolicy, Policy};
        let check = |tool, leaks| Memcheck {
            tool,
            policy: Policy {
                errors: ErrorPolicy::Fail,
                leaks,
            },
        };
        let options = |memcheck| UploadOptions {
            cpp: CppOptions::new("/nonexistent/g++", Duration::from_secs(1)),
            console: ConsoleOptions::new(Default::default(), Limits::default()),
            force_console: false,
            limits: Limits::default(),
            memcheck,
            cache: BuildCache::off(),
            case: CaseRule::default(),
            adapter: None,
        };
        // The plan, not the command line, builds the upload for the tool.
        let asan = check(Tool::Asan, LeakPolicy::Item(5));
        let plan = Plan::classes(&options(Some(asan)));
        let Plan::Classes { cpp, .. } = &plan else {
            panic!("{plan:?}")
        };
        assert_eq!(cpp.memcheck, Some(Tool::Asan));
        assert_eq!(plan.memcheck(), Some(asan));
        let Plan::Classes { cpp, .. } = Plan::classes(&options(None)) else {
            unreachable!()
        };
        assert_eq!(cpp.memcheck, None);
        // An upload that is not recognised: its scenarios and the leak item
        // fail with the same reason, and the check is noted.
        let dir = tempfile::tempdir().unwrap();
        let prepared = plan.build(dir.path()).unwrap();
        assert_eq!(
            prepared.report_notes().last().map(String::as_str),
            Some(
                "memcheck: AddressSanitizer; a memory error fails its scenario; leaks are a test item of their own (5 points, `memcheck: memory leaks`)"
            )
        );
        let item = prepared.leak_item(&[]).expect("a leak item");
        assert_eq!((item.points, item.is_failure()), (5, true));
        assert_eq!(item.name, Path::new(memcheck::LEAK_ITEM));
        // Without --leak-points there is none.
        let notes = Plan::classes(&options(Some(check(Tool::Asan, LeakPolicy::Note))))
            .build(dir.path())
            .unwrap();
        assert!(notes.leak_item(&[]).is_none());
        // A program built elsewhere has no AddressSanitizer in it.
        let store = SnapshotStore::new(dir.path());
        let err = Plan::for_program(&[], &store, &options(Some(asan))).unwrap_err();
        assert!(matches!(err, StaffError::Usage(_)), "{err}");
        assert!(
            err.to_string()
                .starts_with("--memcheck=asan needs the program built by the grader")
        );
    }

    #[test]
    fn program_needs_a_console_plan_and_an_executable() {
        let plan = Plan::Classes {
            cpp: CppOptions::new("g++", Duration::from_secs(1)),
            limits: Limits::default(),
            memcheck: None,
        };
        assert!(matches!(
            plan.program(Path::new("/bin/true")),
            Err(StaffError::Usage(_))
        ));
        let missing = engine_command("/nonexistent/engine --fast", Vec::new()).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "the engine `/nonexistent/engine` does not exist or is not executable"
        );
        let empty = engine_command("", Vec::new()).unwrap_err();
        assert!(empty.to_string().starts_with("--engine needs a command"));
    }
}
