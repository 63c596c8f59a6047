//! The sandbox every submission process runs in: builds, protocol engines
//! and console programs alike.
//!
//! One place decides how a child is started (own process group, empty
//! working directory, a cleared environment, rlimits on CPU, memory, file
//! size, processes and core dumps; the folders it writes in bounded in
//! bytes and files, see [`Scratch`]), how its output streams are wired
//! (separate stdout and stderr, or one pipe for both so that a console
//! program's interleaving is kept), and how it is ended (everything it
//! started, always). Subjects talk protocols; they never call `kill`,
//! `waitpid` or `setrlimit` themselves, so a hardening here protects every
//! subject at once.
//!
//! ## Nothing escapes
//!
//! A submission may start processes that leave its process group
//! (`setsid`), orphan themselves (a double fork) or hold its output pipe
//! after it exits. So:
//! - the grader makes itself a *child subreaper* (`PR_SET_CHILD_SUBREAPER`)
//!   at the first spawn: an orphan of any sandbox is re-parented to the
//!   grader, never to init, so it stays visible and reapable;
//! - every sandboxed process carries a per-sandbox marker in its
//!   environment (`CHESSGRADE_SANDBOX=<token>`), inherited by everything it
//!   starts; `sweep` finds a sandbox's processes by process
//!   group, marker (on orphans) and ancestry, SIGKILLs them until none is
//!   left (a fork bomb included) and reaps the ones the grader adopted;
//! - each sandbox has one *reaper thread* that owns the leader's `Child`
//!   and blocks in its `wait`. The moment the leader exits it sweeps the
//!   rest of the tree and only then publishes the exit status. So the
//!   leader's exit *is* the ending: a child that still holds stdout is
//!   killed, the reader sees end of file at once, and the scenario does not
//!   wait for its timeout. [`Sandboxed::end`] (and `Drop`) kill the leader,
//!   sweep, and wait for that status.
//!
//! Parallel scenarios: reapers and sweeps never call `waitpid(-1)`. The
//! leader is reaped only by its own reaper thread (through `Child::wait`,
//! i.e. `waitpid(pid)`); a sweep reaps only pids it killed itself or found
//! dead among the sandbox's members as the grader's children, checked by
//! start time against reuse. Another sandbox's leader, its exit status,
//! or any other child of the grader is therefore never taken. After the
//! leader is reaped and a sweep leaves nothing running, the tree is
//! finished and later sweeps are no-ops, so a reused process group id is
//! never signalled. A process that leaves the group, clears its
//! environment and is orphaned before any sweep sees it cannot be told
//! from another sandbox's: it is adopted by the grader (never by init) and
//! is the one gap of this scheme (docs/grading.md, "Guarantees").
//!
//! ## Classification
//!
//! A status the grader caused (the SIGKILL of [`Sandboxed::end`]) is never
//! reported as the submission's crash: [`Sandboxed::after_output_closed`]
//! tells a process that ended on its own ([`OutputClosed::Ended`]) from one
//! that closed its output but kept running ([`OutputClosed::KeptRunning`]).

mod broker;
mod disk;
mod headroom;
mod jail;
mod seccomp;
mod sweep;

pub use disk::{DiskBound, DiskMount, DiskReached, DiskUse, Scratch, enter_own_mount_namespace};
pub use headroom::{GraderFault, Headroom, disk_full, said};
pub use jail::{
    Grants, Isolation, LEAVE_OFF, NetNamespace, SANDBOX_UIDS, SYSTEM_ROOTS, hand_over, isolation,
};
pub use sweep::MARKER_VAR;

use std::ffi::OsString;
use std::io::{self, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use sweep::Tree;

/// Resource limits for one sandboxed process tree.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Wall-clock time for the whole scenario.
    pub timeout: Duration,
    /// CPU seconds (RLIMIT_CPU).
    pub cpu_seconds: u64,
    /// Memory in bytes: address space (RLIMIT_AS) or resident memory,
    /// as [`Limits::memory_accounting`] says.
    pub memory_bytes: u64,
    /// How `memory_bytes` is enforced.
    pub memory_accounting: MemoryAccounting,
    /// The process may read its own `/proc/<pid>` (its memory map, its
    /// threads, its status), and nothing else of `/proc`: what
    /// AddressSanitizer, LeakSanitizer and valgrind read about the process
    /// they run in. Granted to the process the sandbox starts (the same pid
    /// after `exec`), not to processes it forks.
    pub own_proc: bool,
    /// Total bytes read from the engine's stdout.
    pub max_output_bytes: usize,
    /// Longest single answer line.
    pub max_line_bytes: usize,
    /// Bytes of stderr kept for the report (the rest is drained and dropped).
    pub max_stderr_bytes: usize,
    /// Largest file the engine may write (RLIMIT_FSIZE).
    pub max_file_bytes: u64,
    /// Processes the tree may run at once beyond what its user already
    /// runs (RLIMIT_NPROC, which counts per user). Not applied to root,
    /// for whom the kernel does not enforce it.
    pub max_processes: Option<u64>,
    /// The most the folder it works in may hold ([`Scratch`]): made by the
    /// caller, who bounds it with this.
    pub disk: DiskBound,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(10),
            cpu_seconds: 10,
            memory_bytes: 1 << 30,
            memory_accounting: MemoryAccounting::AddressSpace,
            own_proc: false,
            max_output_bytes: 64 << 20,
            max_line_bytes: 1 << 20,
            max_stderr_bytes: 16 << 10,
            max_file_bytes: 16 << 20,
            max_processes: Some(64),
            disk: DiskBound::default(),
        }
    }
}

/// How a sandbox bounds the memory of what it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryAccounting {
    /// RLIMIT_AS on every process: an allocation past it fails (the
    /// program sees `std::bad_alloc` or a null `malloc`).
    AddressSpace,
    /// No address-space limit (AddressSanitizer reserves terabytes of it
    /// for its shadow): instead the grader adds up the resident memory of
    /// the sandbox's whole tree every [`MEMORY_WATCH_INTERVAL`] and ends the
    /// tree once it is over `memory_bytes` ([`Sandboxed::over_memory`]).
    /// The watch runs in the grader, so nothing the submission does (kill a
    /// thread, exec another program) escapes it; between two looks a
    /// process can grow by what it touches in that time.
    Resident,
}

/// How often a [`MemoryAccounting::Resident`] sandbox's leader's memory
/// is looked at (its whole tree's, every fourth time).
pub const MEMORY_WATCH_INTERVAL: Duration = Duration::from_millis(25);

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

/// One of a sandboxed child's output streams: the grader's end of a pipe
/// (a file descriptor, so that a caller can poll it).
pub type Output = io::PipeReader;

/// A running sandboxed process tree. Dropping it ends the whole tree.
pub struct Sandboxed {
    pid: u32,
    /// The broker answering its calls, where one does (stopped once the
    /// sandbox is ended: dropped after `Drop::drop` ends it).
    _broker: Option<broker::Running>,
    tree: Arc<Tree>,
    exit: Arc<ExitCell>,
    /// Set when the memory watch ended the tree ([`MemoryAccounting::Resident`]).
    over_memory: Arc<AtomicBool>,
    /// Set when the disk watch ended the tree (a watched folder past its
    /// bound, [`disk::DiskMount::Watched`]).
    over_disk: Arc<AtomicBool>,
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<Output>,
    /// `None` when the streams are merged into `stdout`.
    pub stderr: Option<Output>,
}

/// The leader's exit status, published by the reaper thread once the rest
/// of the tree is swept.
#[derive(Default)]
struct ExitCell {
    status: Mutex<Option<ExitStatus>>,
    published: Condvar,
}

impl ExitCell {
    fn get(&self) -> Option<ExitStatus> {
        *self.status.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait_until(&self, deadline: Option<Instant>) -> Option<ExitStatus> {
        let mut status = self.status.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if status.is_some() {
                return *status;
            }
            status = match deadline {
                None => self
                    .published
                    .wait(status)
                    .unwrap_or_else(|e| e.into_inner()),
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return None;
                    }
                    self.published
                        .wait_timeout(status, left)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
        }
    }
}

/// How long a process whose output reached end of file gets to exit on its
/// own before it counts as having closed its output but kept running.
pub const OUTPUT_CLOSED_GRACE: Duration = Duration::from_secs(1);

/// What a process whose output reached end of file turned out to be doing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputClosed {
    /// It ended on its own (anything it left running was swept).
    Ended(Ending),
    /// It closed its output but was still running at the grace period's end
    /// (or the deadline): the grader ended it, which is not a crash.
    KeptRunning,
}

/// Starts `cmd` in `workdir` under `limits`: a process group of its own,
/// a cleared environment (PATH, HOME and TMPDIR = workdir, LANG=C, the
/// sandbox marker, plus `env`), rlimits, and the confinement of
/// `jail` (its own folders, no network, no signal out).
pub fn spawn(
    cmd: &EngineCommand,
    limits: &Limits,
    workdir: &Path,
    streams: Streams,
    env: &[(&str, OsString)],
) -> io::Result<Sandboxed> {
    sweep::become_subreaper();
    let token = sweep::new_token();
    let mut command = Command::new(&cmd.program);
    command
        .args(&cmd.args)
        .current_dir(workdir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", workdir)
        .env("TMPDIR", workdir)
        .env("LANG", "C")
        .stdin(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    command.env(MARKER_VAR, &token);
    let (stdout, stderr) = match streams {
        Streams::Separate => {
            let (out, out_writer) = io::pipe()?;
            let (err, err_writer) = io::pipe()?;
            command.stdout(out_writer).stderr(err_writer);
            (out, Some(err))
        }
        Streams::Merged => {
            let (reader, writer) = io::pipe()?;
            command.stdout(writer.try_clone()?).stderr(writer);
            (reader, None)
        }
    };
    let mut grants = Grants::for_command(&cmd.program, &cmd.args, env);
    grants.own_proc = limits.own_proc;
    let marker = format!("{MARKER_VAR}={token}");
    let (confinement, broker) = jail::Confinement::prepare(&grants, workdir, &marker)?;
    // Answering before the spawn: the child's `exec` is brokered already.
    let broker = broker.map(|b| b.start(&token)).transpose()?;
    let own_uid = confinement.uid();
    confine(&mut command, limits, confinement);
    close_on_exec_beyond_stdio();
    let mut child = spawn_retrying(&mut command)?;
    // The parent's copies of the write ends close with `command`, so the
    // reader sees end of file once the process tree lets go of them (and
    // the broker's socket, so that it sees no child is left to send).
    drop(command);
    let pid = child.id();
    let stdin = child.stdin.take();
    let stdout = Some(stdout);
    let tree = Arc::new(Tree::new(pid, &token));
    let exit = Arc::new(ExitCell::default());
    let (reaper_tree, reaper_exit) = (Arc::clone(&tree), Arc::clone(&exit));
    let reaper = std::thread::Builder::new()
        .name(format!("sandbox-reaper-{pid}"))
        .spawn(move || {
            let status = child
                .wait()
                .unwrap_or_else(|_| ExitStatus::from_raw(SIGKILLED));
            // The leader's exit is the ending: nothing it started outlives it.
            reaper_tree.sweep_after_leader();
            *reaper_exit.status.lock().unwrap_or_else(|e| e.into_inner()) = Some(status);
            reaper_exit.published.notify_all();
        });
    if let Err(e) = reaper {
        // The closure (and the Child) is gone: end and reap the leader here.
        let leader = nix::unistd::Pid::from_raw(pid as i32);
        let _ = nix::sys::signal::kill(leader, nix::sys::signal::Signal::SIGKILL);
        let _ = nix::sys::wait::waitpid(leader, None);
        tree.sweep_after_leader();
        return Err(e);
    }
    let sandboxed = Sandboxed {
        pid,
        _broker: broker,
        tree,
        exit,
        over_memory: Arc::new(AtomicBool::new(false)),
        over_disk: Arc::new(AtomicBool::new(false)),
        stdin,
        stdout,
        stderr,
    };
    if limits.memory_accounting == MemoryAccounting::Resident {
        let watched = watch_memory(
            pid,
            limits.memory_bytes,
            Arc::clone(&sandboxed.tree),
            Arc::clone(&sandboxed.exit),
            Arc::clone(&sandboxed.over_memory),
        );
        // Unwatched, it must not run: dropping it ends the tree.
        watched?;
    }
    if let Some(watch) = disk::watched_folder(workdir) {
        let watched = watch_disk(
            pid,
            watch,
            own_uid,
            Arc::clone(&sandboxed.tree),
            Arc::clone(&sandboxed.exit),
            Arc::clone(&sandboxed.over_disk),
        );
        watched?;
    }
    Ok(sandboxed)
}

/// Starts the watch of a sandbox working in a watched folder (no tmpfs of
/// its own: [`DiskMount::Watched`]): until the leader's exit is published,
/// every [`disk::WATCH_INTERVAL`] the folder's bytes and files are counted,
/// with the files the sandbox's processes hold open unlinked on the
/// folder's filesystem ([`disk::unlinked`]; its processes found again at
/// most every [`disk::WATCH_INTERVAL`], their descriptors read at every
/// count, as `own_uid`, the sandbox's uid where it has one of its own);
/// past the bound the count is recorded for the folder's
/// `Scratch::reached`, the whole tree is killed and `over` set.
fn watch_disk(
    pid: u32,
    watch: disk::Watch,
    own_uid: Option<u32>,
    tree: Arc<Tree>,
    exit: Arc<ExitCell>,
    over: Arc<AtomicBool>,
) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let dev = std::fs::metadata(&watch.folder)?.dev();
    std::thread::Builder::new()
        .name(format!("sandbox-disk-{pid}"))
        .spawn(move || {
            let mut pids = tree.live_pids();
            let mut found = Instant::now();
            let count = |pids: &[i32]| {
                let folder = disk::count(&watch.folder);
                let unlinked = disk::unlinked(pids, dev, own_uid);
                DiskUse {
                    bytes: folder.bytes.saturating_add(unlinked.bytes),
                    files: folder.files + unlinked.files,
                }
            };
            let mut last = count(&pids);
            let mut growing = false;
            loop {
                // Counted again almost at once while it grows: what a flood
                // writes past the bound is what it writes in a millisecond.
                let interval = match growing {
                    true => disk::WATCH_INTERVAL_GROWING,
                    false => disk::WATCH_INTERVAL,
                };
                if exit.wait_until(Some(Instant::now() + interval)).is_some() {
                    return;
                }
                if found.elapsed() >= disk::WATCH_INTERVAL {
                    pids = tree.live_pids();
                    found = Instant::now();
                }
                let used = count(&pids);
                growing = used != last;
                last = used;
                let bound = watch.bound;
                if used.bytes >= bound.bytes || used.files > bound.files {
                    let _ = watch.reached.set(used);
                    over.store(true, Ordering::Release);
                    kill_unreaped(pid, &exit);
                    tree.sweep();
                    return;
                }
            }
        })
        .map(|_| ())
}

/// SIGKILLs the leader `pid` and its process group while its exit is not
/// published (so the ids are surely still the sandbox's).
fn kill_unreaped(pid: u32, exit: &ExitCell) {
    if exit.get().is_none() {
        use nix::sys::signal::{Signal, kill, killpg};
        let leader = nix::unistd::Pid::from_raw(pid as i32);
        let _ = killpg(leader, Signal::SIGKILL);
        let _ = kill(leader, Signal::SIGKILL);
    }
}

/// Starts the watch of a [`MemoryAccounting::Resident`] sandbox: until the
/// leader's exit is published, every [`MEMORY_WATCH_INTERVAL`] the resident
/// memory of the leader (and every fourth time that of every process of
/// the tree, added up) is read; over `limit` the whole tree is killed and
/// `over` set.
fn watch_memory(
    pid: u32,
    limit: u64,
    tree: Arc<Tree>,
    exit: Arc<ExitCell>,
    over: Arc<AtomicBool>,
) -> io::Result<()> {
    std::thread::Builder::new()
        .name(format!("sandbox-memory-{pid}"))
        .spawn(move || {
            for tick in 1u64.. {
                if exit
                    .wait_until(Some(Instant::now() + MEMORY_WATCH_INTERVAL))
                    .is_some()
                {
                    return;
                }
                // The leader at every look; the whole tree (a scan of
                // /proc) every fourth.
                let resident = if tick % 4 == 0 {
                    tree.resident_bytes()
                } else {
                    tree.leader_resident_bytes()
                };
                if resident > limit {
                    over.store(true, Ordering::Release);
                    // The leader is not reaped yet (its status is not
                    // published), so its pid and group are still its own.
                    kill_unreaped(pid, &exit);
                    tree.sweep();
                    return;
                }
            }
        })
        .map(|_| ())
}

/// The raw wait status of a process killed by SIGKILL (a fallback, should
/// waiting for the leader ever fail).
const SIGKILLED: i32 = nix::sys::signal::Signal::SIGKILL as i32;

/// Puts the child in its own process group, applies the rlimits and enters
/// the confinement between fork and exec.
/// Starts `command`, again while its program is busy (ETXTBSY): a
/// program the grader has just written (a build copied from the build
/// cache) stays open for writing in any child another thread forked while
/// it was being written, until that child's `exec` (the descriptor is
/// close-on-exec), which is a matter of milliseconds.
fn spawn_retrying(command: &mut Command) -> io::Result<std::process::Child> {
    let mut wait = Duration::from_millis(1);
    loop {
        match command.spawn() {
            Err(e)
                if e.raw_os_error() == Some(nix::errno::Errno::ETXTBSY as i32)
                    && wait <= Duration::from_millis(512) =>
            {
                std::thread::sleep(wait);
                wait *= 2;
            }
            r => return r,
        }
    }
}

/// Marks every descriptor of the grader above stderr close-on-exec, so
/// that a sandboxed program starts with its three standard streams and
/// nothing else. Rust opens its own descriptors so; those the grader
/// inherited were not (a shell's `exec 7< snapshot`, a harness's pipe),
/// and Landlock does not look at a descriptor that is already open: an
/// inherited one would hand the program whatever it reaches. The
/// sandbox's own setup (the Landlock ruleset, the broker's socket) still
/// runs before `exec`, where the descriptors are open yet.
fn close_on_exec_beyond_stdio() {
    use nix::fcntl::{FcntlArg, FdFlag, fcntl};
    use std::os::fd::BorrowedFd;
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let fds: Vec<i32> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect();
    for fd in fds {
        // SAFETY: only the descriptor's flags are read and set, for this
        // call; one closed meanwhile (the listing's own) answers EBADF,
        // which is ignored.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        if let Ok(flags) = fcntl(fd, FcntlArg::F_GETFD) {
            let flags = FdFlag::from_bits_truncate(flags);
            if !flags.contains(FdFlag::FD_CLOEXEC) {
                let _ = fcntl(fd, FcntlArg::F_SETFD(flags | FdFlag::FD_CLOEXEC));
            }
        }
    }
}

fn confine(command: &mut Command, limits: &Limits, mut confinement: jail::Confinement) {
    use nix::sys::resource::{Resource, setrlimit};
    command.process_group(0);
    let limits = limits.clone();
    // RLIMIT_NPROC counts every process of the user: leave room for
    // `max_processes` more than run now (with a uid of the sandbox's own,
    // its own processes only). Root is exempt from it anyway, but a root
    // grader's submissions run as uids of their own.
    let uid = confinement.uid().unwrap_or_else(sweep::own_uid);
    let nproc = limits
        .max_processes
        .filter(|_| uid != 0)
        .map(|n| sweep::processes_of(uid) + n);
    let apply = move || -> io::Result<()> {
        let set = |resource, soft: u64, hard: u64| {
            setrlimit(resource, soft, hard).map_err(io::Error::from)
        };
        // The hard limit one second above the soft one: SIGXCPU (reported
        // as a CPU time-out) arrives before the kernel's SIGKILL.
        set(
            Resource::RLIMIT_CPU,
            limits.cpu_seconds,
            limits.cpu_seconds.saturating_add(1),
        )?;
        match limits.memory_accounting {
            MemoryAccounting::AddressSpace => set(
                Resource::RLIMIT_AS,
                limits.memory_bytes,
                limits.memory_bytes,
            )?,
            // Watched from outside instead (see `watch_memory`); a limit
            // the grader itself inherited is lifted where it may be.
            MemoryAccounting::Resident => {
                let _ = set(
                    Resource::RLIMIT_AS,
                    nix::sys::resource::RLIM_INFINITY,
                    nix::sys::resource::RLIM_INFINITY,
                );
            }
        }
        set(
            Resource::RLIMIT_FSIZE,
            limits.max_file_bytes,
            limits.max_file_bytes,
        )?;
        set(Resource::RLIMIT_CORE, 0, 0)?;
        if let Some(n) = nproc {
            set(Resource::RLIMIT_NPROC, n, n)?;
        }
        confinement.enter()
    };
    // SAFETY: setrlimit, unshare, setresuid and the Landlock calls are
    // async-signal-safe, and the closure allocates nothing (everything,
    // the Landlock ruleset included, was prepared before the fork).
    unsafe {
        command.pre_exec(apply);
    }
}

impl Sandboxed {
    /// The leader's process id (also the process group id).
    pub fn id(&self) -> u32 {
        self.pid
    }

    /// Sends SIGKILL to the leader and its process group while the leader
    /// is not reaped (so the ids are surely still this sandbox's), then
    /// sweeps every other process of the sandbox.
    pub fn kill_tree(&mut self) {
        use nix::sys::signal::{Signal, kill, killpg};
        use nix::unistd::Pid;
        if self.exit.get().is_none() {
            let pid = Pid::from_raw(self.pid as i32);
            let _ = killpg(pid, Signal::SIGKILL);
            let _ = kill(pid, Signal::SIGKILL);
        }
        self.tree.sweep();
    }

    /// Whether the memory watch ended the tree for holding more resident
    /// memory than its limit ([`MemoryAccounting::Resident`] only).
    pub fn over_memory(&self) -> bool {
        self.over_memory.load(Ordering::Acquire)
    }

    /// Whether the disk watch ended the tree for filling its watched
    /// folder past its bound ([`DiskMount::Watched`] only).
    pub fn over_disk(&self) -> bool {
        self.over_disk.load(Ordering::Acquire)
    }

    /// The leader's exit status, once it has exited and its tree is swept.
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.exit.get()
    }

    /// Waits for the process to exit on its own until `deadline`.
    pub fn wait_until(&mut self, deadline: Instant) -> Option<ExitStatus> {
        self.exit.wait_until(Some(deadline))
    }

    /// Ends the whole tree and waits for the leader: its exit status (a
    /// SIGKILL when it was still running, i.e. the grader's own kill).
    pub fn end(&mut self) -> Option<ExitStatus> {
        self.kill_tree();
        let status = self.exit.wait_until(None);
        // Anything that slipped between the kill and the leader's exit.
        self.tree.sweep();
        status
    }

    /// The process's output reached end of file: waits (until `deadline`,
    /// at most [`OUTPUT_CLOSED_GRACE`]) for it to end on its own, then ends
    /// the whole tree. The grader's own kill is never reported as the
    /// process's ending.
    pub fn after_output_closed(&mut self, deadline: Instant) -> OutputClosed {
        let grace = (Instant::now() + OUTPUT_CLOSED_GRACE).min(deadline);
        let own = self.wait_until(grace);
        self.end();
        match own {
            Some(status) => OutputClosed::Ended(Ending::of(status)),
            None => OutputClosed::KeptRunning,
        }
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
/// same confinement as a submission; at the timeout the whole tree is
/// ended (a compiler blocked on a FIFO included), and whatever it wrote by
/// then is kept.
pub fn run_to_completion(
    cmd: &EngineCommand,
    limits: &Limits,
    workdir: &Path,
) -> io::Result<Completed> {
    run_to_completion_with(cmd, limits, workdir, &[])
}

/// [`run_to_completion`] with `env` added to the sandbox's environment.
pub fn run_to_completion_with(
    cmd: &EngineCommand,
    limits: &Limits,
    workdir: &Path,
    env: &[(&str, OsString)],
) -> io::Result<Completed> {
    let mut proc = spawn(cmd, limits, workdir, Streams::Merged, env)?;
    drop(proc.stdin.take());
    let mut out = proc.stdout.take().expect("merged stdout");
    let cap = limits.max_output_bytes;
    let kept = Arc::new(Mutex::new((Vec::new(), 0usize)));
    let sink = Arc::clone(&kept);
    let (done_tx, done) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        while let Ok(n) = out.read(&mut chunk) {
            if n == 0 {
                break;
            }
            let mut kept = sink.lock().unwrap_or_else(|e| e.into_inner());
            let room = cap.saturating_sub(kept.0.len()).min(n);
            kept.0.extend_from_slice(&chunk[..room]);
            kept.1 += n - room;
        }
        let _ = done_tx.send(());
    });
    let status = proc.wait_until(Instant::now() + limits.timeout);
    proc.end();
    // Everything is ended, so the pipe closes; should something hold it
    // anyway, the grader does not wait for it for long.
    let _ = done.recv_timeout(Duration::from_secs(1));
    let kept = kept.lock().unwrap_or_else(|e| e.into_inner());
    let mut output = String::from_utf8_lossy(&kept.0).into_owned();
    if kept.1 > 0 {
        output.push_str(&format!("\n… ({} more bytes not kept)", kept.1));
    }
    Ok(Completed { status, output })
}

/// The executable a program name runs: a path as is, a bare name on PATH.
pub fn resolve(program: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.components().count() > 1 {
        return runnable(program).then(|| std::path::absolute(program).ok())?;
    }
    which::which(program).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> EngineCommand {
        EngineCommand {
            program: PathBuf::from("/bin/sh"),
            args: vec!["-c".into(), script.into()],
        }
    }

    fn start(script: &str) -> (Sandboxed, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let proc = spawn(
            &sh(script),
            &Limits::default(),
            dir.path(),
            Streams::Separate,
            &[],
        )
        .unwrap();
        (proc, dir)
    }

    /// Reads the child's stdout to end of file.
    fn read_all(proc: &mut Sandboxed) -> String {
        let mut text = String::new();
        proc.stdout
            .take()
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        text
    }

    #[test]
    fn orphans_in_a_session_of_their_own_are_swept() {
        // The subshell starts a `setsid` sleeper and exits: the sleeper is
        // orphaned, outside the process group, found by its marker.
        let (mut proc, _dir) = start("(setsid sleep 60 >/dev/null 2>&1 &); echo ready; sleep 60");
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(proc.stdout.as_mut().unwrap()),
            &mut line,
        )
        .unwrap();
        assert_eq!(line, "ready\n");
        // Looked for a while: the sleeper may be between `setsid` and its
        // `exec` of `sleep`, its marker unreadable for that instant (seen
        // once under the whole suite's load).
        let seen = (0..200).any(|_| {
            proc.tree.any_alive() || {
                std::thread::sleep(Duration::from_millis(10));
                false
            }
        });
        assert!(seen, "the sleeper runs until the end");
        let status = proc.end().expect("reaped");
        assert_eq!(Ending::of(status), Ending::Signalled("SIGKILL".into()));
        assert!(!proc.tree.any_alive(), "nothing of the tree survives");
    }

    /// The grader's zombie children in process group `pgid`.
    fn zombies_in_group(pgid: u32) -> Vec<String> {
        let me = std::process::id().to_string();
        let mut found = Vec::new();
        for entry in std::fs::read_dir("/proc").unwrap().filter_map(Result::ok) {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            let fields: Vec<&str> = stat
                .rsplit(')')
                .next()
                .unwrap()
                .split_whitespace()
                .collect();
            if fields[0] == "Z" && fields[1] == me && fields[2] == pgid.to_string() {
                found.push(stat);
            }
        }
        found
    }

    #[test]
    fn a_tree_killed_whole_leaves_no_zombie_behind() {
        // A fork server's shape: the leader, its child (a zygote), and that
        // child's child (a spare), all killed by the same `killpg`; the two
        // below the leader are re-parented to the grader as zombies.
        let (mut proc, _dir) = start("sh -c 'sleep 60 & wait' & echo ready; wait");
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(proc.stdout.as_mut().unwrap()),
            &mut line,
        )
        .unwrap();
        assert_eq!(line, "ready\n");
        let pgid = proc.pid;
        proc.end().expect("reaped");
        assert_eq!(zombies_in_group(pgid), Vec::<String>::new());
    }

    #[test]
    fn the_leaders_exit_ends_a_child_holding_the_pipe() {
        // Without the sweep at the leader's exit the read below would wait
        // 60 s for the sleeper to let go of stdout.
        let (mut proc, _dir) = start("sleep 60 & echo bye; exit 5");
        assert_eq!(read_all(&mut proc), "bye\n");
        let closed = proc.after_output_closed(Instant::now() + Duration::from_secs(30));
        assert_eq!(closed, OutputClosed::Ended(Ending::Exited(5)));
        assert!(!proc.tree.any_alive());
    }

    #[test]
    fn closing_stdout_and_staying_alive_is_not_a_crash() {
        let (mut proc, _dir) = start("exec >&-; sleep 60");
        assert_eq!(read_all(&mut proc), "");
        let closed = proc.after_output_closed(Instant::now() + Duration::from_secs(30));
        assert_eq!(closed, OutputClosed::KeptRunning);
        assert!(!proc.tree.any_alive());
    }

    #[test]
    fn a_build_that_hangs_is_ended_whole_at_its_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits {
            timeout: Duration::from_millis(300),
            ..Limits::default()
        };
        let done = run_to_completion(
            &sh("echo started; (setsid sleep 60 &); sleep 60"),
            &limits,
            dir.path(),
        )
        .unwrap();
        assert_eq!(done.status, None, "stopped at the timeout");
        assert_eq!(done.output, "started\n", "what it wrote is kept");
    }

    /// A fork bomb in one sandbox leaves another sandbox started before it
    /// (whose RLIMIT_NPROC was set when fewer processes ran) free to fork:
    /// each sandbox's folder has a uid of its own, and the kernel counts
    /// processes per uid. (With one uid for all, the bomb filled the
    /// shared count past the earlier sandbox's limit.)
    #[test]
    fn a_fork_bomb_beside_a_sandbox_leaves_it_its_processes() {
        if !isolation().own_uids {
            eprintln!("skipping: sandboxes run as the grader's uid here (not root)");
            return;
        }
        let limits = Limits {
            timeout: Duration::from_secs(20),
            max_processes: Some(8),
            ..Limits::default()
        };
        let bomb_limits = Limits {
            timeout: Duration::from_secs(3),
            max_processes: Some(8),
            ..Limits::default()
        };
        let victim_dir = tempfile::tempdir().unwrap();
        let bomb_dir = tempfile::tempdir().unwrap();
        std::thread::scope(|scope| {
            // Started first; forks five processes once the bomb is going.
            let victim = scope.spawn(|| {
                run_to_completion(
                    &sh("sleep 1; for i in 1 2 3 4 5; do sleep 0.2 & done; wait && echo forked"),
                    &limits,
                    victim_dir.path(),
                )
                .unwrap()
            });
            std::thread::sleep(Duration::from_millis(200));
            // Forks to its limit and keeps trying until its timeout.
            let bomb = EngineCommand {
                program: PathBuf::from("python3"),
                args: vec![
                    "-c".into(),
                    "import os, time\nwhile True:\n    try:\n        if os.fork() == 0:\n            time.sleep(5)\n            os._exit(0)\n    except OSError:\n        time.sleep(0.01)\n".into(),
                ],
            };
            let bomb = run_to_completion(&bomb, &bomb_limits, bomb_dir.path()).unwrap();
            assert_eq!(bomb.status, None, "the bomb runs to its timeout");
            let victim = victim.join().unwrap();
            assert!(victim.success(), "{victim:?}");
            assert_eq!(victim.output, "forked\n");
        });
    }

    /// Runs `script` to completion under `limits`: (exit code, output).
    fn run_sh(script: &str, limits: &Limits) -> (Option<i32>, String) {
        let dir = tempfile::tempdir().unwrap();
        let done = run_to_completion(&sh(script), limits, dir.path()).unwrap();
        (done.status.and_then(|s| s.code()), done.output)
    }

    #[test]
    fn own_proc_opens_the_process_its_own_proc_folder_and_nothing_else() {
        if !isolation().files() {
            eprintln!("skipping: no Landlock on this kernel");
            return;
        }
        let granted = Limits {
            own_proc: true,
            ..Limits::default()
        };
        // `exec` keeps the pid: the program reads its own /proc/<pid>.
        let (code, out) = run_sh("exec grep -c ^Pid: /proc/self/status", &granted);
        assert_eq!((code, out.as_str()), (Some(0), "1\n"));
        // A child it forks has another pid, and the rest of /proc is closed.
        for other in [
            "cat /proc/self/status",
            "exec cat /proc/1/cmdline",
            "exec cat /proc/$PPID/environ",
            "exec cat /proc/meminfo",
        ] {
            let (code, out) = run_sh(other, &granted);
            assert_ne!(code, Some(0), "{other} was readable: {out}");
        }
        let (code, _) = run_sh("exec grep -c ^Pid: /proc/self/status", &Limits::default());
        assert_ne!(code, Some(0), "/proc is closed without the grant");
    }

    /// `fallocate` fails (`EOPNOTSUPP`: a reservation would outrun a
    /// watched folder's count), and the C library's `posix_fallocate`
    /// writes the blocks itself instead: they are there, as asked.
    #[test]
    fn fallocate_is_refused_and_posix_fallocate_writes_instead() {
        if !isolation().seccomp {
            eprintln!("skipping: no seccomp filter here");
            return;
        }
        let (code, out) = run_sh("fallocate -l 1048576 reserved 2>&1", &Limits::default());
        assert_eq!(code, Some(1), "{out}");
        assert!(out.contains("Operation not supported"), "{out}");
        let (code, out) = run_sh(
            "exec python3 -c 'import os\n\
             fd = os.open(\"written\", os.O_CREAT | os.O_WRONLY)\n\
             os.posix_fallocate(fd, 0, 1 << 20)\n\
             print(os.fstat(fd).st_size, os.fstat(fd).st_blocks * 512 >= 1 << 20)'",
            &Limits::default(),
        );
        assert_eq!((code, out.as_str()), (Some(0), "1048576 True\n"));
    }

    #[test]
    fn a_tree_over_its_resident_memory_is_ended_by_the_watch() {
        let limits = Limits {
            memory_bytes: 64 << 20,
            memory_accounting: MemoryAccounting::Resident,
            timeout: Duration::from_secs(30),
            ..Limits::default()
        };
        // No address-space limit: 512 MiB of touched memory would be allowed.
        let dir = tempfile::tempdir().unwrap();
        let mut proc = spawn(
            &sh("exec python3 -c \"import time; b = b'x' * (512 << 20); time.sleep(30)\""),
            &limits,
            dir.path(),
            Streams::Separate,
            &[],
        )
        .unwrap();
        let status = proc.wait_until(Instant::now() + Duration::from_secs(20));
        assert!(proc.over_memory(), "the watch ended it: {status:?}");
        assert_eq!(
            status.map(Ending::of),
            Some(Ending::Signalled("SIGKILL".into()))
        );
        let mut small = spawn(&sh("exit 0"), &limits, dir.path(), Streams::Separate, &[]).unwrap();
        let status = small.wait_until(Instant::now() + Duration::from_secs(20));
        assert_eq!(status.map(Ending::of), Some(Ending::Exited(0)));
        assert!(!small.over_memory());
    }

    #[test]
    fn a_cpu_time_out_is_reported_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let limits = Limits {
            timeout: Duration::from_secs(30),
            cpu_seconds: 1,
            ..Limits::default()
        };
        let done = run_to_completion(&sh("while :; do :; done"), &limits, dir.path()).unwrap();
        assert_eq!(done.status.map(Ending::of), Some(Ending::CpuLimit));
    }
}
