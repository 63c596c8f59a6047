//! The `chessgrade` command line: argument parsing and wiring only; all
//! logic lives in the library.

use chessgrade::report::{HumanReporter, Report, formats};
use chessgrade::runner::{
    self, FailureKind, Found, Partition, ScenarioResult, SnapshotMode, Summary,
};
use chessgrade::snapshot::{SnapshotStore, write_atomic};
use chessgrade::subject::{EngineCommand, EngineSubject, Limits, ProcessSubject, Subject};
use chessgrade::submission::{self, BuildError};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

const EXIT_CODES: &str = "Exit codes: 0 all scenarios passed; 1 some scenario failed; \
2 usage error or unreadable input (malformed scenario, missing file).";

#[derive(Parser)]
#[command(
    name = "chessgrade",
    version,
    about = "Run chess-lab scenarios against an exact reference engine or a student submission, and check them against snapshots.",
    after_help = EXIT_CODES
)]
struct Cli {
    /// When to colour the output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    color: ColorChoice,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorChoice {
    /// Colour when stdout is a terminal and NO_COLOR is not set.
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Run scenarios on the reference engine and compare with the snapshots.
    #[command(after_help = EXIT_CODES)]
    Run {
        #[command(flatten)]
        scenarios: ScenarioArgs,
        /// Write .snap.new files for new or changed results (review with `cargo insta review`).
        #[arg(long, conflicts_with = "accept")]
        update: bool,
        /// Write .snap files directly for new or changed results.
        #[arg(long)]
        accept: bool,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Print the reference engine's trace of one scenario.
    #[command(after_help = EXIT_CODES)]
    Trace {
        /// The scenario file.
        file: PathBuf,
    },
    /// Grade a submission: drive it call by call through every scenario and
    /// compare its traces with the snapshots.
    #[command(after_help = EXIT_CODES)]
    Grade {
        #[command(flatten)]
        scenarios: ScenarioArgs,
        /// A Lab 3 C++ submission folder (headers and .cc files), compiled with the adapter.
        #[arg(long, conflicts_with = "engine", required_unless_present = "engine")]
        submission: Option<PathBuf>,
        /// Any engine speaking docs/protocol.md: the program and its arguments
        /// (put it last, or end its arguments with `;`).
        #[arg(long, num_args = 1.., allow_hyphen_values = true, value_terminator = ";")]
        engine: Option<Vec<OsString>>,
        /// The C++ compiler for --submission.
        #[arg(long, default_value = "g++")]
        compiler: String,
        #[command(flatten)]
        limits: LimitArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Count leaf positions of the legal-move tree (standard rules), like other perft tools.
    Perft {
        /// The position (standard FEN, or the same shape for other board sizes).
        #[arg(long, default_value = chessgrade::engine::START_FEN)]
        fen: String,
        /// Plies to search.
        #[arg(long)]
        depth: u32,
        /// Print the count below each legal root move.
        #[arg(long)]
        divide: bool,
        /// The rule set: standard, lab3, cuhk or jhu.
        #[arg(long, default_value = "standard")]
        rules: chessgrade::engine::RuleSetId,
    },
    /// Merge JSON reports of a split run (`--partition`) into one result.
    #[command(after_help = EXIT_CODES)]
    Merge {
        /// JSON reports written with `--format json`.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// Report format.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Write the report here instead of stdout.
        #[arg(long)]
        output: Option<PathBuf>,
    },
}

#[derive(Args)]
struct ScenarioArgs {
    /// Scenario files or folders (folders are searched for *.txt).
    #[arg(default_value = "scenarios")]
    paths: Vec<PathBuf>,
    /// Folder holding the expected answers: `scenario@<name>.snap` files, or
    /// `<stem>.expected` traces (the course corpus layout).
    #[arg(long, default_value = "snapshots")]
    snapshots: PathBuf,
    /// Scenario root: snapshot names are paths relative to it.
    #[arg(long, default_value = "scenarios")]
    root: PathBuf,
    /// Run only this slice of the scenarios (`slice:K/N`), to split a run across machines.
    #[arg(long)]
    partition: Option<Partition>,
    /// Scenarios run in parallel (default: the number of cores).
    #[arg(long, short)]
    jobs: Option<usize>,
}

#[derive(Args)]
struct OutputArgs {
    /// Report format: human (terminal), json, junit, gradescope, github.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Write the report to this file (the human summary still goes to stdout).
    #[arg(long)]
    output: Option<PathBuf>,
}

#[derive(Args)]
struct LimitArgs {
    /// Wall-clock seconds per scenario; the submission's whole process group is killed after it.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// CPU seconds per scenario.
    #[arg(long, default_value_t = 10)]
    cpu: u64,
    /// Memory (address space) per scenario, in MiB.
    #[arg(long, default_value_t = 1024)]
    memory_mb: u64,
    /// Answers read per scenario, in MiB.
    #[arg(long, default_value_t = 64)]
    max_output_mb: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
    Junit,
    Gradescope,
    Github,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    setup_color(cli.color);
    let code = match cli.command {
        Command::Run {
            scenarios,
            update,
            accept,
            output,
        } => {
            let mode = match (update, accept) {
                (_, true) => SnapshotMode::Accept,
                (true, _) => SnapshotMode::Propose,
                _ => SnapshotMode::Check,
            };
            let engine = || Box::new(EngineSubject::new()) as Box<dyn Subject>;
            run_batch(
                &scenarios,
                mode,
                &output,
                "reference engine",
                Vec::new(),
                &engine,
                None,
            )
        }
        Command::Trace { file } => trace(&file),
        Command::Grade {
            scenarios,
            submission,
            engine,
            compiler,
            limits,
            output,
        } => grade(&scenarios, submission, engine, &compiler, &limits, &output),
        Command::Merge {
            reports,
            format,
            output,
        } => merge(&reports, format, output.as_deref()),
        Command::Perft {
            fen,
            depth,
            divide,
            rules,
        } => perft(rules, &fen, depth, divide),
    };
    ExitCode::from(code)
}

fn setup_color(choice: ColorChoice) {
    let on = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    };
    colored::control::set_override(on);
}

/// Discovers the scenarios of a run, keeping the partition's slice.
fn discover(args: &ScenarioArgs) -> (Vec<Found>, Vec<chessgrade::scenario::Diagnostic>) {
    let (found, errors) = runner::discover(&args.paths, &args.root);
    let found = match args.partition {
        Some(p) => found
            .into_iter()
            .enumerate()
            .filter(|(i, _)| p.contains(*i))
            .map(|(_, f)| f)
            .collect(),
        None => found,
    };
    (found, errors)
}

/// Runs a batch and reports it; `failed_build` marks every scenario failed
/// without running it (a submission that did not compile).
fn run_batch(
    args: &ScenarioArgs,
    mode: SnapshotMode,
    output: &OutputArgs,
    subject_name: &str,
    notes: Vec<String>,
    make_subject: &(dyn Fn() -> Box<dyn Subject> + Sync),
    failed_build: Option<FailureKind>,
) -> u8 {
    let started = Instant::now();
    let (found, errors) = discover(args);
    let store = SnapshotStore::new(&args.snapshots);
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // Human lines stream to stdout unless a machine format owns stdout.
    let human = output.format == Format::Human || output.output.is_some();
    let stdout = std::io::stdout();
    let mut reporter = HumanReporter::new(stdout.lock());
    if human {
        for note in &notes {
            let _ = reporter.note(note);
        }
        for diag in &errors {
            let _ = reporter.input_error(diag);
        }
    }
    // Results stream to the terminal in discovery order as they complete.
    let mut show = |r: &ScenarioResult| {
        if human {
            let _ = reporter.scenario(r);
        }
    };
    let results: Vec<ScenarioResult> = match &failed_build {
        Some(kind) => found
            .iter()
            .map(|f| runner::not_run(f, kind.clone()))
            .inspect(&mut show)
            .collect(),
        None => runner::run_all(&found, jobs, make_subject, &store, mode, show),
    };
    let mut summary = Summary::of(&results);
    summary.errors += errors.len();
    if human {
        let _ = reporter.summary(&summary, started.elapsed());
    }
    drop(reporter);
    if output.format != Format::Human || output.output.is_some() {
        let partition = args.partition.map(|p| p.to_string());
        let mut notes = notes;
        notes.extend(errors.iter().map(|d| d.to_string()));
        let report = Report::new(
            subject_name,
            partition,
            started.elapsed().as_secs_f64(),
            notes,
            &results,
        );
        if let Err(e) = emit(
            &report,
            output.format,
            output.output.as_deref(),
            &results,
            &summary,
        ) {
            eprintln!("error: cannot write the report: {e}");
            return 2;
        }
    }
    summary.exit_code() as u8
}

/// Writes `report` in `format` to `path` (atomically) or stdout.
fn emit(
    report: &Report,
    format: Format,
    path: Option<&Path>,
    results: &[ScenarioResult],
    summary: &Summary,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    match format {
        Format::Json => formats::json(report, &mut buf)?,
        Format::Junit => formats::junit(report, &mut buf)?,
        Format::Gradescope => formats::gradescope(report, &mut buf)?,
        Format::Github => formats::github(report, &mut buf)?,
        Format::Human => {
            let mut r = HumanReporter::new(&mut buf);
            for result in results {
                r.scenario(result)?;
            }
            r.summary(summary, Duration::from_secs_f64(report.elapsed_secs))?;
        }
    }
    match path {
        Some(p) => write_atomic(p, &String::from_utf8_lossy(&buf)),
        None => std::io::stdout().lock().write_all(&buf),
    }
}

fn grade(
    args: &ScenarioArgs,
    submission: Option<PathBuf>,
    engine: Option<Vec<OsString>>,
    compiler: &str,
    limit_args: &LimitArgs,
    output: &OutputArgs,
) -> u8 {
    if !(limit_args.timeout.is_finite() && limit_args.timeout > 0.0) {
        eprintln!("error: --timeout must be a positive number of seconds");
        return 2;
    }
    let limits = Limits {
        timeout: Duration::from_secs_f64(limit_args.timeout),
        cpu_seconds: limit_args.cpu.max(1),
        memory_bytes: limit_args.memory_mb.saturating_mul(1 << 20),
        max_output_bytes: limit_args.max_output_mb.saturating_mul(1 << 20),
        ..Limits::default()
    };
    // Keep the build (and its temporary folder) alive for the whole run.
    let (command, name, notes, failed, _build) = match (submission, engine) {
        (Some(dir), _) => {
            let name = format!("submission {}", dir.display());
            match submission::build_cpp(&dir, compiler, Duration::from_secs(300)) {
                Ok(build) => (
                    Some(build.command.clone()),
                    name,
                    build.notes.clone(),
                    None,
                    Some(build),
                ),
                Err(BuildError::Compile(msg)) => (
                    None,
                    name,
                    Vec::new(),
                    Some(FailureKind::CompileError(msg)),
                    None,
                ),
                Err(e) => {
                    eprintln!("error: {e}");
                    return 2;
                }
            }
        }
        (None, Some(argv)) => {
            let mut argv = argv.into_iter();
            let program = PathBuf::from(argv.next().expect("clap requires one value"));
            let name = format!("engine {}", program.display());
            let cmd = EngineCommand {
                program,
                args: argv.collect(),
            };
            (Some(cmd), name, Vec::new(), None, None)
        }
        (None, None) => unreachable!("clap requires --submission or --engine"),
    };
    let make_subject = move || -> Box<dyn Subject> {
        let cmd = command.clone().unwrap_or(EngineCommand {
            program: PathBuf::from("/bin/false"),
            args: Vec::new(),
        });
        Box::new(ProcessSubject::new(cmd, limits.clone()))
    };
    run_batch(
        args,
        SnapshotMode::Check,
        output,
        &name,
        notes,
        &make_subject,
        failed,
    )
}

fn merge(paths: &[PathBuf], format: Format, output: Option<&Path>) -> u8 {
    let mut reports = Vec::new();
    for p in paths {
        let parsed = std::fs::read_to_string(p)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<Report>(&t).map_err(|e| e.to_string()));
        match parsed {
            Ok(r) => reports.push(r),
            Err(e) => {
                eprintln!("error: {}: not a chessgrade JSON report: {e}", p.display());
                return 2;
            }
        }
    }
    let merged = match Report::merge(reports) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let t = merged.totals();
    let code = if t.errors > 0 {
        2
    } else if t.failed > 0 {
        1
    } else {
        0
    };
    let written = match format {
        Format::Human => {
            let mut buf = String::new();
            for s in &merged.scenarios {
                if s.details.is_empty() {
                    buf.push_str(&format!(
                        "PASS {:>3}/{:<3} {}\n",
                        s.earned, s.points, s.name
                    ));
                } else {
                    buf.push_str(&s.details);
                }
            }
            buf.push_str(&format!(
                "\n{} passed, {} failed, {} errors; points {}/{}\n",
                t.passed, t.failed, t.errors, t.points, t.possible
            ));
            match output {
                Some(p) => write_atomic(p, &buf),
                None => std::io::stdout().lock().write_all(buf.as_bytes()),
            }
        }
        _ => emit(&merged, format, output, &[], &Summary::default()),
    };
    if let Err(e) = written {
        eprintln!("error: cannot write the report: {e}");
        return 2;
    }
    code
}

fn perft(rules: chessgrade::engine::RuleSetId, fen: &str, depth: u32, divide: bool) -> u8 {
    match chessgrade::engine::perft_report_with(rules.rules(), fen, depth, divide) {
        Ok(text) => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

fn trace(file: &Path) -> u8 {
    match chessgrade::trace_file(file) {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (e.g. `| head`) is not an error worth reporting.
            let _ = out.write_all(text.as_bytes());
            0
        }
        Err(diag) => {
            eprintln!("error: {diag}");
            2
        }
    }
}
