//! The `chessgrade` command line: the clap definitions and one file per
//! command, each of which only wires the library together. Nothing here
//! decides a verdict or formats a result; that is the library's job, so
//! every command can be tested through the library as well as end to end.
//!
//! Shared pieces live beside the commands: `args` (option groups several
//! commands flatten), `batch` (discover → run → report, used by `run` and
//! `grade`) and `emit` (writing a report in a machine format).

mod args;
mod batch;
mod class;
mod completions;
mod emit;
mod explain;
mod grade;
mod merge;
mod perft;
mod run;
mod trace;

use args::{LimitArgs, OutputArgs, ScenarioArgs};
use clap::{Parser, Subcommand, ValueEnum};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;

pub use args::Format;

const EXIT_CODES: &str = "Exit codes: 0 all scenarios passed; 1 some scenario failed; \
2 usage error or unreadable input (malformed scenario, missing file).";

#[derive(Parser)]
#[command(
    name = "chessgrade",
    version,
    about = "Run chess-lab scenarios against an exact reference engine or a student submission, and check them against snapshots.",
    after_help = EXIT_CODES
)]
pub struct Cli {
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
        #[arg(long, conflicts_with_all = ["engine", "class"], required_unless_present_any = ["engine", "class"])]
        submission: Option<PathBuf>,
        /// A class: one sub-folder per Lab 3 submission (named after it), graded in parallel.
        #[arg(long, conflicts_with = "engine", value_name = "DIR")]
        class: Option<PathBuf>,
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
    /// Walk one scenario step by step: the source line, what was answered
    /// against what was expected, and the boards before and after each
    /// step with the missing (+) and extra (x) squares marked.
    #[command(
        after_help = "Exit codes: 0 every step matches; 1 a step does not match; 2 usage error or unreadable input."
    )]
    Explain {
        /// The scenario file.
        scenario: PathBuf,
        /// A Lab 3 C++ submission folder to explain (default: the reference engine).
        #[arg(long, conflicts_with = "engine")]
        submission: Option<PathBuf>,
        /// Any engine speaking docs/protocol.md (put it last, or end its arguments with `;`).
        #[arg(long, num_args = 1.., allow_hyphen_values = true, value_terminator = ";")]
        engine: Option<Vec<OsString>>,
        /// The C++ compiler for --submission.
        #[arg(long, default_value = "g++")]
        compiler: String,
        /// Show only the step on this scenario line.
        #[arg(long)]
        line: Option<u32>,
        /// Show every step (default: up to the first mismatch).
        #[arg(long, conflicts_with = "line")]
        all: bool,
        /// Letters instead of chess symbols (the default when the locale is not UTF-8).
        #[arg(long)]
        ascii: bool,
        /// Folder holding the expected answers (as for `run`).
        #[arg(long, default_value = "snapshots")]
        snapshots: PathBuf,
        /// Scenario root: snapshot names are paths relative to it.
        #[arg(long, default_value = "scenarios")]
        root: PathBuf,
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
    /// Print shell completions (bash, zsh, fish, elvish, powershell) to stdout.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to stdout: `chessgrade man > chessgrade.1`.
    Man,
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

/// Parses the command line, runs the command, and returns its exit code.
pub fn main() -> u8 {
    let cli = Cli::parse();
    setup_color(cli.color);
    match cli.command {
        Command::Run { scenarios, .. } | Command::Grade { scenarios, .. } if scenarios.list => {
            batch::list(&scenarios)
        }
        Command::Run {
            scenarios,
            update,
            accept,
            output,
        } => run::run(&scenarios, update, accept, &output),
        Command::Trace { file } => trace::trace(&file),
        Command::Grade {
            scenarios,
            class: Some(dir),
            compiler,
            limits,
            output,
            ..
        } => class::grade_class(&dir, &scenarios, &compiler, &limits, &output),
        Command::Grade {
            submission: Some(dir),
            ..
        } if chessgrade::class::looks_like_class(&dir) => {
            eprintln!(
                "error: {} holds several submission folders; grade them all with `--class {}`",
                dir.display(),
                dir.display()
            );
            2
        }
        Command::Grade {
            scenarios,
            submission,
            engine,
            compiler,
            limits,
            output,
            ..
        } => grade::grade(&scenarios, submission, engine, &compiler, &limits, &output),
        Command::Merge {
            reports,
            format,
            output,
        } => merge::merge(&reports, format, output.as_deref()),
        Command::Perft {
            fen,
            depth,
            divide,
            rules,
        } => perft::perft(rules, &fen, depth, divide),
        Command::Completions { shell } => completions::completions(shell),
        Command::Man => completions::man(),
        Command::Explain {
            scenario,
            submission,
            engine,
            compiler,
            line,
            all,
            ascii,
            snapshots,
            root,
        } => explain::explain_cmd(&explain::ExplainArgs {
            scenario,
            submission,
            engine,
            compiler,
            snapshots,
            root,
            line,
            all,
            ascii,
        }),
    }
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
