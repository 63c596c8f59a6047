//! The sandbox every submission process runs in: builds, protocol engines
//! and console programs alike.
//!
//! One place decides how a child is started (own process group, empty
//! working directory, a cleared environment, rlimits on CPU, memory, file
//! size and core dumps), how its output streams are wired (separate stdout
//! and stderr, or one pipe for both so that a console program's interleaving
//! is kept), and how it is ended (the whole process group, always). Subjects
//! talk protocols; they never call `kill` or `setrlimit` themselves, so a
//! hardening here protects every subject at once.

use std::ffi::OsString;
use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Resource limits for one sandboxed process tree.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Wall-clock time for the whole scenario.
    pub timeout: Duration,
    /// CPU seconds (RLIMIT_CPU).
    pub cpu_seconds: u64,
    /// Address space in bytes (RLIMIT_AS).
    pub memory_bytes: u64,
    /// Total bytes read from the engine's stdout.
    pub max_output_bytes: usize,
    /// Longest single answer line.
    pub max_line_bytes: usize,
    /// Bytes of stderr kept for the report (the rest is drained and dropped).
    pub max_stderr_bytes: usize,
    /// Largest file the engine may write (RLIMIT_FSIZE).
    pub max_file_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(10),
            cpu_seconds: 10,
            memory_bytes: 1 << 30,
            max_output_bytes: 64 << 20,
            max_line_bytes: 1 << 20,
            max_stderr_bytes: 16 << 10,
            max_file_bytes: 16 << 20,
        }
    }
}

/// The command that starts a program: the program and its arguments, never
/// a shell string.
#[derive(Clone, Debug)]
pub struct EngineCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

/// How the child's output streams are wired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Streams {
    /// stdout and stderr on two pipes (a protocol engine: answers on
    /// stdout, debug output on stderr).
    Separate,
    /// stdout and stderr on one pipe, so the reader sees them in the order
    /// the program wrote them (a console program judged on its transcript).
    Merged,
}

/// One of a sandboxed child's output streams.
pub type Output = Box<dyn Read + Send>;

/// A running sandboxed process. Dropping it ends its whole process group.
pub struct Sandboxed {
    child: Child,
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<Output>,
    /// `None` when the streams are merged into `stdout`.
    pub stderr: Option<Output>,
    reaped: Option<ExitStatus>,
}

/// Starts `cmd` in `workdir` under `limits`: a process group of its own,
/// a cleared environment (PATH, HOME = workdir, LANG=C, plus `env`), and
/// rlimits.
pub fn spawn(
    cmd: &EngineCommand,
    limits: &Limits,
    workdir: &Path,
    streams: Streams,
    env: &[(&str, OsString)],
) -> io::Result<Sandboxed> {
    let mut command = Command::new(&cmd.program);
    command
        .args(&cmd.args)
        .current_dir(workdir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", workdir)
        .env("LANG", "C")
        .stdin(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let merged_reader = match streams {
        Streams::Separate => {
            command.stdout(Stdio::piped()).stderr(Stdio::piped());
            None
        }
        Streams::Merged => {
            let (reader, writer) = io::pipe()?;
            command.stdout(writer.try_clone()?).stderr(writer);
            Some(reader)
        }
    };
    confine(&mut command, limits);
    let mut child = command.spawn()?;
    // The parent's copies of the write ends close with `command`, so the
    // reader sees end of file once the process tree lets go of them.
    drop(command);
    let stdin = child.stdin.take();
    let (stdout, stderr): (Option<Output>, Option<Output>) = match merged_reader {
        Some(reader) => (Some(Box::new(reader)), None),
        None => (
            child.stdout.take().map(|s| Box::new(s) as Output),
            child.stderr.take().map(|s| Box::new(s) as Output),
        ),
    };
    Ok(Sandboxed {
        child,
        stdin,
        stdout,
        stderr,
        reaped: None,
    })
}

/// Puts the child in its own process group and applies the rlimits
/// between fork and exec.
fn confine(command: &mut Command, limits: &Limits) {
    use nix::sys::resource::{Resource, setrlimit};
    command.process_group(0);
    let limits = limits.clone();
    let apply = move || -> io::Result<()> {
        let set = |resource, value: u64| setrlimit(resource, value, value).map_err(io::Error::from);
        set(Resource::RLIMIT_CPU, limits.cpu_seconds)?;
        set(Resource::RLIMIT_AS, limits.memory_bytes)?;
        set(Resource::RLIMIT_FSIZE, limits.max_file_bytes)?;
        set(Resource::RLIMIT_CORE, 0)?;
        Ok(())
    };
    // SAFETY: setrlimit is async-signal-safe, and the closure allocates
    // nothing (the limits were cloned before the fork).
    unsafe {
        command.pre_exec(apply);
    }
}

impl Sandboxed {
    /// The process id (also the process group id).
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGKILL to the whole process group (and the leader, should it
    /// have left the group).
    pub fn kill_tree(&mut self) {
        use nix::sys::signal::{Signal, kill, killpg};
        use nix::unistd::Pid;
        let pid = Pid::from_raw(self.child.id() as i32);
        let _ = killpg(pid, Signal::SIGKILL);
        if self.reaped.is_none() {
            let _ = kill(pid, Signal::SIGKILL);
        }
    }

    /// The exit status, if the process has exited.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        if self.reaped.is_none() {
            self.reaped = self.child.try_wait().ok().flatten();
        }
        self.reaped
    }

    /// Waits for the process to exit on its own until `deadline`.
    pub fn wait_until(&mut self, deadline: Instant) -> Option<ExitStatus> {
        let mut pause = Duration::from_micros(200);
        loop {
            if let Some(status) = self.try_wait() {
                return Some(status);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            std::thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }

    /// Ends the whole process group and reaps the leader: its exit status
    /// (a SIGKILL when it was still running).
    pub fn end(&mut self) -> Option<ExitStatus> {
        self.kill_tree();
        if self.reaped.is_none() {
            self.reaped = self.child.wait().ok();
        }
        self.reaped
    }
}

impl Drop for Sandboxed {
    fn drop(&mut self) {
        self.end();
    }
}

/// How a finished process ended, in the grader's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    /// Killed by a signal (its name).
    Signalled(String),
    /// Used up its CPU seconds (SIGXCPU).
    CpuLimit,
}

impl Ending {
    pub fn of(status: ExitStatus) -> Ending {
        match (status.code(), status.signal()) {
            (Some(code), _) => Ending::Exited(code),
            (None, Some(sig)) if sig == nix::sys::signal::Signal::SIGXCPU as i32 => {
                Ending::CpuLimit
            }
            (None, Some(sig)) => Ending::Signalled(signal_name(sig)),
            (None, None) => Ending::Exited(-1),
        }
    }
}

/// The conventional name of a signal (`SIGSEGV`), or `signal N`.
pub fn signal_name(sig: i32) -> String {
    match nix::sys::signal::Signal::try_from(sig) {
        Ok(s) => s.as_str().to_string(),
        Err(_) => format!("signal {sig}"),
    }
}

/// The result of running a program to completion (a build step).
#[derive(Debug)]
pub struct Completed {
    /// `None` when it was stopped at the timeout.
    pub status: Option<ExitStatus>,
    /// stdout and stderr, in the order written, capped at `max_output_bytes`.
    pub output: String,
}

impl Completed {
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }
}

/// Runs `cmd` in `workdir` to completion within `limits.timeout`, under the
/// same confinement as a submission; the whole process group is ended at
/// the timeout.
pub fn run_to_completion(
    cmd: &EngineCommand,
    limits: &Limits,
    workdir: &Path,
) -> io::Result<Completed> {
    let mut proc = spawn(cmd, limits, workdir, Streams::Merged, &[])?;
    drop(proc.stdin.take());
    let mut out = proc.stdout.take().expect("merged stdout");
    let cap = limits.max_output_bytes;
    let reader = std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut chunk = [0u8; 8192];
        let mut dropped = 0usize;
        while let Ok(n) = out.read(&mut chunk) {
            if n == 0 {
                break;
            }
            let room = cap.saturating_sub(kept.len()).min(n);
            kept.extend_from_slice(&chunk[..room]);
            dropped += n - room;
        }
        let mut text = String::from_utf8_lossy(&kept).into_owned();
        if dropped > 0 {
            text.push_str(&format!("\n… ({dropped} more bytes not kept)"));
        }
        text
    });
    let status = proc.wait_until(Instant::now() + limits.timeout);
    // Also ends anything the build left running that still holds the pipe.
    proc.kill_tree();
    let output = reader.join().unwrap_or_default();
    Ok(Completed { status, output })
}
