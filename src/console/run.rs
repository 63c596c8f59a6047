//! Running a console program once for a plan: a fresh temporary working
//! directory with the plan's files, every input line written up front and
//! stdin closed after the last, stdout and stderr read as one stream, and
//! the limits of any submission. A program that keeps asking for input
//! after its input ended (a loop at end of file) is stopped as soon as that
//! is plain, without waiting for the time limit.

use super::{ConsoleProgram, Plan, split_at_prompts, strip_ansi};
use crate::memcheck::Findings;
use crate::sandbox::{self, Ending, EngineCommand, Streams};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Output kept per run; a program printing more is looping.
const MAX_CONSOLE_OUTPUT: usize = 4 << 20;
/// Prompts beyond the input lines after which a program is plainly
/// reading on at end of file.
const PROMPTS_PAST_INPUT: usize = 20;

/// How the run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunEnd {
    Exited(i32),
    Signalled(String),
    /// Still running at the time limit, its input not all read.
    TimedOut,
    /// Still running after its input ended (prompting on, or silent), or
    /// flooding its output.
    ReadOnAfterInput,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// stdout and stderr in the order written, capped.
    pub output: Vec<u8>,
    pub end: RunEnd,
    /// The files the plan checks, as the program left them (`None`: absent).
    pub files: HashMap<String, Option<Vec<u8>>>,
    /// What a memory check found (`None`: memory not checked).
    pub memory: Option<Findings>,
    /// The program's folder was at its disk bound when it ended.
    pub disk: Option<sandbox::DiskReached>,
}

/// Runs `command` (one of `program`'s builds, under its limits and
/// environment) through `plan`; `Err` when it cannot even start (a
/// staff-side problem).
pub fn run(
    plan: &Plan,
    command: &EngineCommand,
    program: &ConsoleProgram,
) -> std::io::Result<Outcome> {
    // Bounded (`--disk`): the plan's files, and all the program writes.
    let dir = sandbox::Scratch::new("chessgrade-console-", &program.limits.disk)?;
    for (name, bytes) in &plan.files {
        std::fs::write(dir.path().join(name), bytes)?;
    }
    // The program may rewrite the scenario's files (a save over the board
    // it loaded): they are its own.
    sandbox::hand_over(dir.path())?;
    let mut command = command.clone();
    command.args.extend(plan.args.iter().map(Into::into));
    let mut env = program.env.clone();
    let checked_limits;
    let mut limits = &program.limits;
    if let Some(checker) = &program.memcheck {
        let (wrapped, extra) = checker.command(&command, dir.path(), limits.memory_bytes);
        command = wrapped;
        env.extend(extra);
        checked_limits = checker.limits(limits);
        limits = &checked_limits;
    }
    let env: Vec<(&str, std::ffi::OsString)> =
        env.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let mut proc = sandbox::spawn(&command, limits, dir.path(), Streams::Merged, &env)?;

    let input: String = plan.inputs().map(|l| format!("{l}\n")).collect();
    let inputs = plan.inputs().count();
    let mut stdin = proc.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || {
        // A program that exits early closes the pipe: not an error here.
        let _ = stdin.write_all(input.as_bytes());
        drop(stdin);
    });
    let kept = Arc::new(Mutex::new(Vec::new()));
    let flooded = Arc::new(Mutex::new(false));
    let mut out = proc.stdout.take().expect("merged stdout");
    let reader = {
        let kept = Arc::clone(&kept);
        let flooded = Arc::clone(&flooded);
        let cap = limits.max_output_bytes.min(MAX_CONSOLE_OUTPUT);
        std::thread::spawn(move || {
            let mut chunk = [0u8; 8192];
            while let Ok(n) = out.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let mut kept = kept.lock().expect("not poisoned");
                let room = cap.saturating_sub(kept.len()).min(n);
                kept.extend_from_slice(&chunk[..room]);
                if room < n {
                    *flooded.lock().expect("not poisoned") = true;
                }
            }
        })
    };

    let deadline = Instant::now() + limits.timeout;
    let prompts_seen = || {
        let bytes = kept.lock().expect("not poisoned").clone();
        let text = strip_ansi(&String::from_utf8_lossy(&bytes));
        split_at_prompts(&text, &plan.prompts).len() - 1
    };
    let mut last_check = Instant::now();
    let end = loop {
        if let Some(status) = proc.wait_until(Instant::now() + Duration::from_millis(20)) {
            if proc.over_memory() {
                break RunEnd::Signalled(format!(
                    "SIGKILL: more than {} MiB of resident memory",
                    limits.memory_bytes >> 20
                ));
            }
            break match Ending::of(status) {
                Ending::Exited(code) => RunEnd::Exited(code),
                Ending::Signalled(sig) => RunEnd::Signalled(sig),
                Ending::CpuLimit => RunEnd::Signalled("SIGXCPU (CPU time limit)".into()),
            };
        }
        if *flooded.lock().expect("not poisoned") {
            proc.kill_tree();
            break RunEnd::ReadOnAfterInput;
        }
        if Instant::now() >= deadline {
            proc.kill_tree();
            break if prompts_seen() > inputs {
                RunEnd::ReadOnAfterInput
            } else {
                RunEnd::TimedOut
            };
        }
        if last_check.elapsed() >= Duration::from_millis(100) {
            last_check = Instant::now();
            if prompts_seen() > inputs + PROMPTS_PAST_INPUT {
                proc.kill_tree();
                break RunEnd::ReadOnAfterInput;
            }
        }
    };
    proc.end();
    let _ = writer.join();
    let _ = reader.join();
    let output = std::mem::take(&mut *kept.lock().expect("not poisoned"));
    let mut files = HashMap::new();
    for ex in &plan.exchanges {
        for save in &ex.saves {
            files.insert(
                save.file.clone(),
                std::fs::read(dir.path().join(&save.file)).ok(),
            );
        }
    }
    let memory = program.memcheck.as_ref().map(|c| c.collect(dir.path()));
    let end = match (&end, &program.memcheck, &memory) {
        (RunEnd::Exited(code), Some(checker), Some(found)) => {
            RunEnd::Exited(checker.exit_status(*code, found, dir.path()))
        }
        _ => end,
    };
    Ok(Outcome {
        output,
        end,
        files,
        memory,
        disk: dir.reached(),
    })
}
