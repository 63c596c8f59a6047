//! Option groups that several commands share (flattened into each), so a
//! flag means the same thing and is spelled the same way everywhere.

use chessgrade::runner::Partition;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Args)]
pub struct ScenarioArgs {
    /// Scenario files or folders (folders are searched for *.txt).
    #[arg(default_value = "scenarios")]
    pub paths: Vec<PathBuf>,
    /// Folder holding the expected answers: `scenario@<name>.snap` files, or
    /// `<stem>.expected` traces (the course corpus layout).
    #[arg(long, default_value = "snapshots")]
    pub snapshots: PathBuf,
    /// Scenario root: snapshot names are paths relative to it.
    #[arg(long, default_value = "scenarios")]
    pub root: PathBuf,
    /// Run only this slice of the scenarios (`slice:K/N`), to split a run across machines.
    #[arg(long)]
    pub partition: Option<Partition>,
    /// Scenarios run in parallel (default: the number of cores).
    #[arg(long, short)]
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
}

#[derive(Args)]
pub struct OutputArgs {
    /// Report format: human (terminal), json, junit, gradescope, github, html.
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

#[derive(Args)]
pub struct LimitArgs {
    /// Wall-clock seconds per scenario; the submission's whole process group is killed after it.
    #[arg(long, default_value_t = 10.0)]
    pub timeout: f64,
    /// CPU seconds per scenario.
    #[arg(long, default_value_t = 10)]
    pub cpu: u64,
    /// Memory (address space) per scenario, in MiB.
    #[arg(long, default_value_t = 1024)]
    pub memory_mb: u64,
    /// Answers read per scenario, in MiB.
    #[arg(long, default_value_t = 64)]
    pub max_output_mb: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
    Junit,
    Gradescope,
    Github,
    /// One self-contained HTML page (tables, board diagrams; no network).
    Html,
}
