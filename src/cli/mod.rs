//! The `chessgrade` command line: the clap definitions and one file per
//! command, each of which only wires the library together. Nothing here
//! decides a verdict or formats a result; that is the library's job, so
//! every command can be tested through the library as well as end to end.
//!
//! Shared pieces live beside the commands: `args` (option groups several
//! commands flatten), `batch` (discover → run → report, used by `run` and
//! `grade`) and `emit` (writing a report in a machine format).
//!
//! Standard output is written with `outln!`/`out!`, never `println!`: a
//! reader that stops early (`chessgrade grade --class ... | head`) closes
//! the pipe, and `println!` would panic mid-run. The run goes on, its
//! report files are still written and its exit code is still the
//! verdict's. (SIGPIPE stays ignored: the grader writes to submissions'
//! pipes, and a submission closing its stdin must not kill the grader.)

/// `println!` for a stdout that may be closed: the line is dropped, the
/// run goes on (see the module doc).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

/// `print!` for a stdout that may be closed.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout().lock(), $($arg)*);
    }};
}

mod args;
mod batch;
mod class;
mod completions;
mod emit;
mod explain;
mod r#gen;
mod grade;
mod merge;
mod package;
mod perft;
mod run;
mod serve;
mod shrink;
mod trace;

use args::{
    ConsoleArgs, InputArgs, LimitArgs, OutputArgs, ReferenceArgs, ScenarioArgs, ShardArgs,
    SnapshotArgs, SubjectArgs,
};
use chessgrade::report::Palette;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

pub use args::Format;

const EXIT_CODES: &str = "Exit codes: 0 all scenarios passed; 1 some scenario failed; \
2 usage error or unreadable input (malformed scenario, missing file, no scenario selected, \
a scenario over a limit on the reference engine, an output that cannot be written).";

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
    /// Colour when stdout is a terminal, unless NO_COLOR is set or CLICOLOR is 0.
    Auto,
    Always,
    Never,
}

impl From<ColorChoice> for chessgrade::report::ColorChoice {
    fn from(c: ColorChoice) -> Self {
        match c {
            ColorChoice::Auto => Self::Auto,
            ColorChoice::Always => Self::Always,
            ColorChoice::Never => Self::Never,
        }
    }
}

// Parsed once per run: the size of the biggest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Run scenarios on the reference engine (or the course's own reference program:
    /// --submission, --engine) and compare with the snapshots, or write them.
    #[command(
        after_help = EXIT_CODES,
        mut_arg("submission", |a| a.help("The course's own reference, a Lab 3 upload (built with the adapter, run sandboxed): its answers are compared with the snapshots, or recorded with --update/--accept (each snapshot says which reference wrote it)")),
        mut_arg("engine", |a| a.conflicts_with("program")),
        mut_arg("timeout", |a| a.help("Wall-clock seconds per scenario on the reference (the built-in engine, or the course's program); a scenario over it is an input error naming the reference (exit 2), nothing is written for it, and the batch goes on"))
    )]
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
        subject: SubjectArgs,
        #[command(flatten)]
        console: ConsoleArgs,
        #[command(flatten)]
        limits: LimitArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Print the reference engine's trace of one scenario.
    #[command(after_help = EXIT_CODES)]
    Trace {
        /// The scenario file.
        file: PathBuf,
        /// A rule file the scenario runs under when it is of the rule
        /// file's family (as `run --rules`); repeatable, one per family.
        #[arg(long = "rules", value_name = "FILE")]
        rules: Vec<PathBuf>,
        #[command(flatten)]
        reference: ReferenceArgs,
        #[command(flatten)]
        input: InputArgs,
    },
    /// Grade a submission: drive it call by call through every scenario and
    /// compare its traces with the snapshots.
    #[command(
        after_help = EXIT_CODES,
        mut_arg("submission", |a| a
            .conflicts_with("class")
            .required_unless_present_any(["engine", "program", "command", "class"])),
        mut_arg("engine", |a| a.conflicts_with("program"))
    )]
    Grade {
        #[command(flatten)]
        scenarios: ScenarioArgs,
        #[command(flatten)]
        subject: SubjectArgs,
        /// A class: one sub-folder per submission (named after it), graded in parallel;
        /// Lab 3 uploads, or console programs when the scenarios are `@rules jhu`/`cuhk`.
        #[arg(long, conflicts_with = "engine", value_name = "DIR")]
        class: Option<PathBuf>,
        #[command(flatten)]
        shards: ShardArgs,
        #[command(flatten)]
        console: ConsoleArgs,
        #[command(flatten)]
        limits: LimitArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Walk one scenario step by step: the source line, what was answered
    /// against what was expected, and the boards before and after each
    /// step with the missing (+) and extra (x) squares marked. A console
    /// program (JHU, CUHK) is walked command by command: the input sent,
    /// the lines expected and printed, saved files, the board after each.
    #[command(
        after_help = "Exit codes: 0 every step matches; 1 a step does not match; 2 usage error or unreadable input.",
        mut_arg("submission", |a| a.help("A submission folder to explain: Lab 3 C++ classes, or a console program (Makefile, CMakeLists.txt or .cpp files; JHU, CUHK) (default: the reference engine)"))
    )]
    Explain {
        /// The scenario file.
        scenario: PathBuf,
        #[command(flatten)]
        subject: SubjectArgs,
        /// Show only the step on this scenario line.
        #[arg(long)]
        line: Option<u32>,
        /// Show every step (default: up to the first mismatch).
        #[arg(long, conflicts_with = "line")]
        all: bool,
        /// Letters instead of chess symbols (the default when the locale is not UTF-8).
        #[arg(long)]
        ascii: bool,
        /// human (the terminal) or html: one self-contained page, the boards as pictures,
        /// for a browser.
        #[arg(long, value_enum, default_value_t = explain::ExplainFormat::Human)]
        format: explain::ExplainFormat,
        /// Write the walk to this file instead of stdout.
        #[arg(long, short)]
        output: Option<PathBuf>,
        #[command(flatten)]
        snapshot: SnapshotArgs,
        #[command(flatten)]
        console: ConsoleArgs,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Count leaf positions of the legal-move tree (standard rules), like other perft tools.
    Perft {
        /// The position (FEN, any board size; default: the rules' start position, chess's
        /// unless a rule file gives `start`).
        #[arg(long)]
        fen: Option<String>,
        /// Plies to search.
        #[arg(long)]
        depth: u32,
        /// Print the count below each legal root move.
        #[arg(long)]
        divide: bool,
        /// The rules: standard, lab3, cuhk, jhu, or a rule file (docs/course-rules.md).
        #[arg(long, default_value = "standard", value_parser = args::rule_set, value_name = "NAME|FILE")]
        rules: chessgrade::engine::RuleSet,
    },
    /// Rule sets as rule files: `rules show standard` prints the built-in set as a file a
    /// course copies and changes (docs/course-rules.md).
    #[command(subcommand)]
    Rules(RulesCommand),
    /// Print shell completions (bash, zsh, fish, elvish, powershell) to stdout.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to stdout: `chessgrade man > chessgrade.1`.
    Man,
    /// Generate a suite of scenarios with their snapshots from seeded random play
    /// of the reference engine (see docs/gen.md).
    #[command(
        after_help = "Writes OUT/scenarios/<rules>/*.txt (and, for a rule file, the rules as \
OUT/scenarios/<rules>/rules.toml), OUT/snapshots/*.snap and OUT/coverage.txt; run them with \
`chessgrade run OUT/`. Exit codes: 0 written; 2 bad options, a bad rule file or a write error."
    )]
    Gen {
        /// The rules: lab3, standard, cuhk, jhu, or a rule file (docs/course-rules.md); its
        /// family (the set it extends) decides the scenarios' forms.
        #[arg(long, value_parser = args::rule_set, value_name = "NAME|FILE")]
        rules: chessgrade::engine::RuleSet,
        /// How many scenarios.
        #[arg(long)]
        count: usize,
        /// The seed: the same seed (and version) gives the same bytes.
        #[arg(long)]
        seed: u64,
        /// One board size for all, ROWSxCOLS (default: lab3 varies it; the others 8x8).
        #[arg(long, value_parser = r#gen::parse_size)]
        size: Option<chessgrade::domain::Dims>,
        /// Steps per scenario (default: lab3 6, standard and jhu 10, cuhk 16).
        #[arg(long)]
        steps: Option<usize>,
        /// Setup kinds and their weights, e.g. start=1,random=1,motif=4 (default start=2,random=1,motif=3; cuhk start only).
        #[arg(long)]
        mix: Option<chessgrade::r#gen::Mix>,
        /// Replace a suite of the same rule set already in OUT.
        #[arg(long)]
        force: bool,
        /// The folder to write to.
        out: PathBuf,
    },
    /// Shrink a scenario on which a submission fails to a small one that still
    /// fails the same way; print it and its first mismatch.
    #[command(
        after_help = "The scenario is judged against its snapshot (--snapshots, --root, as for `grade` \
and `explain`), or the reference engine when it has none; each smaller candidate has no snapshot \
and is judged against the reference engine. A console program (a JHU or CUHK upload, or --program) \
is built as `grade` builds it and each candidate graded as `grade` grades it; candidates its course's \
program cannot play are skipped. \
Exit codes: 1 the submission fails (the minimal scenario is printed); 0 it passes the scenario; \
2 usage error, unreadable scenario, or a submission that cannot be built or run.",
        mut_arg("submission", |a| a
            .help("A submission folder, built once: Lab 3 C++ classes (with the adapter), or a console program (Makefile, CMakeLists.txt or .cpp files; JHU, CUHK)")
            .required_unless_present_any(["engine", "program"]))
    )]
    Shrink {
        /// The failing scenario file.
        file: PathBuf,
        #[command(flatten)]
        subject: SubjectArgs,
        #[command(flatten)]
        snapshot: SnapshotArgs,
        #[command(flatten)]
        limits: LimitArgs,
        #[command(flatten)]
        console: ConsoleArgs,
        /// Candidates to try at most (each is one run of the submission).
        #[arg(long, default_value_t = 2000)]
        max_runs: usize,
        /// Write the minimal scenario here.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Package an autograder for a grading platform: `package gradescope` writes the one
    /// zip a TA uploads to Gradescope.
    #[command(subcommand)]
    Package(PackageCommand),
    /// Speak the engine protocol (docs/protocol.md, v2 and v1) on stdin/stdout
    /// with the reference engine.
    Serve {
        /// Speak only protocol v1 (the Lab 3 calls, one call per request).
        #[arg(long)]
        v1: bool,
        /// A rule file played when `RULES` names its family alone (as `run --rules`);
        /// repeatable, one per family.
        #[arg(long = "rules", value_parser = args::rule_set, value_name = "FILE")]
        rules: Vec<chessgrade::engine::RuleSet>,
    },
    /// Merge JSON reports of a split run (`--partition`) into one result, or the class
    /// slices of a class graded in shards (`grade --class --shard`) into one class report.
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
        /// Class slices: also write each submission's report (in --format) into this
        /// folder, as `<submission>.<ext>`.
        #[arg(long)]
        output_dir: Option<PathBuf>,
    },
}

/// What `rules` does.
#[derive(Subcommand)]
enum RulesCommand {
    /// Print a rule set as a rule file: every key, its value and what it does.
    #[command(after_help = "Example: chessgrade rules show lab3 > my-lab3.toml\n\
Exit codes: 0 printed; 2 an unknown set or a bad rule file.")]
    Show {
        /// lab3, standard, cuhk, jhu, or a rule file (printed flat, its `extends` chain resolved).
        #[arg(value_parser = args::rule_set, value_name = "NAME|FILE")]
        rules: chessgrade::engine::RuleSet,
    },
}

/// What `package` writes.
#[derive(Subcommand)]
enum PackageCommand {
    /// Write a Gradescope autograder zip: setup.sh, run_autograder (the `grade` command, its
    /// flags fixed now), this chessgrade binary, the scenarios, their snapshots and the
    /// overlay. Grading flags after `--` are passed to `grade` as they are.
    #[command(
        after_help = "Example: chessgrade package gradescope scenarios/lab3 -o autograder.zip -- --timeout 5\n\
Exit codes: 0 written; 2 bad flags, unreadable scenarios or a zip that cannot be written."
    )]
    Gradescope {
        /// Scenario files or folders to grade on (folders are searched for *.txt), as `grade`
        /// takes them (default: scenarios).
        #[arg(value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// The same as the paths (the older spelling; repeatable).
        #[arg(long, value_name = "DIR")]
        scenarios: Vec<PathBuf>,
        #[command(flatten)]
        snapshot: SnapshotArgs,
        /// Console uploads: the course's starter files copied over each upload before building.
        #[arg(long, value_name = "DIR")]
        overlay: Option<PathBuf>,
        /// A course's own C++ classes: its hook file, packaged with the course's headers
        /// beside it (docs/course-classes.md).
        #[arg(long, value_name = "FILE", conflicts_with = "overlay")]
        adapter: Option<PathBuf>,
        /// The zip to write (replaced whole, never left half written).
        #[arg(long, short, value_name = "FILE")]
        output: PathBuf,
        /// Grading flags for `grade` on Gradescope (`-- --timeout 5 --memcheck`).
        #[arg(last = true, allow_hyphen_values = true)]
        flags: Vec<String>,
    },
}

/// Parses the command line, runs the command, and returns its exit code:
/// the command's own, or 2 with the staff error's message (its notes
/// first, as `note:` lines).
pub fn main() -> u8 {
    match dispatch() {
        Ok(code) => code,
        Err(e) => {
            for note in e.notes() {
                eprintln!("note: {note}");
            }
            // A message's later lines (a located error's source excerpt)
            // stand under its first, as the compiler prints them.
            for message in e.messages() {
                let mut lines = message.lines();
                eprintln!("error: {}", lines.next().unwrap_or(""));
                for line in lines {
                    eprintln!("{line}");
                }
            }
            2
        }
    }
}

fn dispatch() -> Result<u8, chessgrade::grading::StaffError> {
    let cli = Cli::parse();
    // Decided once; every command that colours is handed it.
    let palette = Palette::for_stdout(cli.color.into());
    Ok(match cli.command {
        Command::Run { scenarios, .. } | Command::Grade { scenarios, .. } if scenarios.list => {
            batch::list(&scenarios)?
        }
        Command::Run {
            scenarios,
            update,
            accept,
            subject,
            console,
            limits,
            output,
        } => run::run(&run::RunArgs {
            scenarios,
            update,
            accept,
            subject,
            console,
            limits,
            output,
            palette,
        })?,
        Command::Trace {
            file,
            rules,
            reference,
            input,
        } => trace::trace(&file, &rules, &reference, &input),
        Command::Grade {
            scenarios,
            subject,
            class: Some(dir),
            shards,
            console,
            limits,
            output,
        } => class::grade_class(&class::ClassArgs {
            dir,
            scenarios,
            shards,
            subject,
            console,
            limits,
            output,
            palette,
        })?,
        Command::Grade {
            subject:
                SubjectArgs {
                    submission: Some(dir),
                    ..
                },
            ..
        } if chessgrade::class::looks_like_class(&dir) => {
            return Err(chessgrade::grading::StaffError::Usage(format!(
                "{} holds several submission folders; grade them all with `--class {}`",
                dir.display(),
                dir.display()
            )));
        }
        Command::Grade {
            scenarios,
            subject,
            console,
            limits,
            output,
            class: None,
            ..
        } => grade::grade(&scenarios, &subject, &console, &limits, &output, palette)?,
        Command::Gen {
            rules,
            count,
            seed,
            size,
            steps,
            mix,
            force,
            out,
        } => r#gen::run(rules, count, seed, size, steps, mix, &out, force),
        Command::Shrink {
            file,
            subject,
            snapshot,
            limits,
            console,
            max_runs,
            output,
        } => shrink::run(&shrink::ShrinkArgs {
            file,
            subject,
            snapshot,
            limits,
            console,
            max_runs,
            output,
            palette,
        })?,
        Command::Serve { v1, rules } => serve::serve(v1, &rules),
        Command::Rules(RulesCommand::Show { rules }) => {
            out!("{}", chessgrade::rulefile::show(&rules));
            0
        }
        Command::Package(PackageCommand::Gradescope {
            paths,
            scenarios,
            snapshot,
            overlay,
            adapter,
            output,
            flags,
        }) => package::gradescope(&package::GradescopeArgs {
            scenarios: package::scenario_paths(paths, scenarios),
            snapshot,
            overlay,
            adapter,
            output,
            flags,
        })?,
        Command::Merge {
            reports,
            format,
            output,
            output_dir,
        } => merge::merge(&reports, format, output.as_deref(), output_dir.as_deref())?,
        Command::Perft {
            fen,
            depth,
            divide,
            rules,
        } => perft::perft(rules, fen.as_deref(), depth, divide),
        Command::Completions { shell } => completions::completions(shell),
        Command::Man => completions::man(),
        Command::Explain {
            scenario,
            subject,
            line,
            all,
            ascii,
            format,
            output,
            snapshot,
            console,
            limits,
        } => explain::explain_cmd(&explain::ExplainArgs {
            scenario,
            subject,
            snapshot,
            console,
            limits,
            line,
            all,
            ascii,
            format,
            output,
            palette,
        })?,
    })
}
