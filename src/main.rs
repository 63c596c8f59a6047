//! The `chessgrade` command line: argument parsing and wiring only; all
//! logic lives in the library.

use chessgrade::report::HumanReporter;
use chessgrade::runner::{self, SnapshotMode, Summary};
use chessgrade::snapshot::SnapshotStore;
use chessgrade::subject::EngineSubject;
use clap::{Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

const EXIT_CODES: &str = "Exit codes: 0 all scenarios passed; 1 some scenario failed; \
2 usage error or unreadable input (malformed scenario, missing file).";

#[derive(Parser)]
#[command(name = "chessgrade", version, about = "Run chess-lab scenarios against an exact reference engine and check them against snapshots.", after_help = EXIT_CODES)]
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
    /// Run scenarios and compare their traces with the snapshots.
    #[command(after_help = EXIT_CODES)]
    Run {
        /// Scenario files or folders (folders are searched for *.txt).
        #[arg(default_value = "scenarios")]
        paths: Vec<PathBuf>,
        /// Folder holding the .snap files.
        #[arg(long, default_value = "snapshots")]
        snapshots: PathBuf,
        /// Scenario root: snapshot names are paths relative to it.
        #[arg(long, default_value = "scenarios")]
        root: PathBuf,
        /// Write .snap.new files for new or changed results (review with `cargo insta review`).
        #[arg(long, conflicts_with = "accept")]
        update: bool,
        /// Write .snap files directly for new or changed results.
        #[arg(long)]
        accept: bool,
    },
    /// Print the reference engine's trace of one scenario.
    #[command(after_help = EXIT_CODES)]
    Trace {
        /// The scenario file.
        file: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    setup_color(cli.color);
    let code = match cli.command {
        Command::Run {
            paths,
            snapshots,
            root,
            update,
            accept,
        } => {
            let mode = match (update, accept) {
                (_, true) => SnapshotMode::Accept,
                (true, _) => SnapshotMode::Propose,
                _ => SnapshotMode::Check,
            };
            run(&paths, &SnapshotStore::new(snapshots), &root, mode)
        }
        Command::Trace { file } => trace(&file),
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

fn run(paths: &[PathBuf], store: &SnapshotStore, root: &std::path::Path, mode: SnapshotMode) -> u8 {
    let started = Instant::now();
    let (found, errors) = runner::discover(paths, root);
    let stdout = std::io::stdout();
    let mut reporter = HumanReporter::new(stdout.lock());
    for diag in &errors {
        let _ = reporter.input_error(diag);
    }
    let mut results = Vec::with_capacity(found.len());
    for f in &found {
        let result = runner::run_one(f, &mut EngineSubject::new(), store, mode);
        let _ = reporter.scenario(&result);
        results.push(result);
    }
    let mut summary = Summary::of(&results);
    summary.errors += errors.len();
    let _ = reporter.summary(&summary, started.elapsed());
    summary.exit_code() as u8
}

fn trace(file: &std::path::Path) -> u8 {
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
