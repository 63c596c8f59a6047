//! The broker: where Landlock is missing (an older container profile, an
//! old kernel), the grader answers a sandbox's file and process calls
//! itself, through seccomp user notification.
//!
//! Without Landlock, and without namespaces or a uid of its own (a CI
//! runner's user inside Docker's older profile), nothing but seccomp is
//! left to keep a submission from the hidden answers, the grader's
//! `/proc`, the other uploads and every world-writable folder; with a uid
//! of its own (a root grader there) the ordinary permissions still leave
//! it whatever the world may read or write. So in those places every
//! sandboxed process runs under one more filter, whose calls stop and wait
//! for the grader (`SECCOMP_RET_USER_NOTIF`):
//!
//! - **files**: every call that takes a path (`open`, `stat`, `readlink`,
//!   `access`, `mkdir`, `unlink`, `rename`, `link`, `chmod`, `utimes`,
//!   `execve`, ...). The broker reads the path from the thread's memory
//!   once, resolves it itself as the sandbox's uid (`openat2`, magic links
//!   refused), judges the object it reached by its real path
//!   ([`policy::Policy`]: the places Landlock would allow), and does the
//!   call's work: an open's descriptor is put into the thread
//!   (`SECCOMP_IOCTL_NOTIF_ADDFD`, Linux 5.14), so what is opened is what
//!   was judged, whatever the sandbox changes in between (see `calls`);
//! - **processes** (where no uid of its own and no Landlock scoping keeps
//!   sandboxes apart): a signal, a process group, a trace or an I/O owner
//!   reaches only processes carrying the sandbox's marker.
//!
//! The filter is made in the child between fork and exec, after every
//! other part of the confinement, with a listener descriptor the child
//! sends to the grader over a socket pair ([`kernel::send_fd`]) before it
//! runs the program. One thread per sandbox answers its calls (under a
//! root grader with the sandbox's uid as its file-system identity, so
//! that it opens nothing the sandbox could not) and ends when no process
//! of the sandbox is left. If the grader stops answering, the calls fail
//! (`ENOSYS`): nothing is let through by default.
//!
//! What it costs (measured in the jail's variant B, docs/performance.md): a
//! brokered `stat` takes about 20 µs and an `open` about 70 µs instead of
//! 1-4 µs (a round trip of wake-ups, made on the broker's CPU where the
//! kernel can, Linux 6.6; the thread's memory opened; the broker's own
//! open; the descriptor's hand-over, two more wake-ups), so a Lab 3 build,
//! thousands of file calls, takes about a third longer; a fork server's
//! scenario makes almost none. Only where Landlock is missing.

mod calls;
mod kernel;
mod policy;

pub use policy::Policy;

use nix::libc;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// What a sandbox's broker answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Brokered {
    /// Calls that take a path (no Landlock here).
    pub files: bool,
    /// Calls that reach another process (no Landlock signal scoping and no
    /// uid of its own here).
    pub signals: bool,
}

impl Brokered {
    /// Whether there is anything to broker.
    pub fn any(&self) -> bool {
        self.files || self.signals
    }
}

/// The x32 ABI's bit in a system call's number.
const X32_BIT: i64 = 0x4000_0000;

/// System calls newer than this grader (Linux 6.10 on): refused, so that a
/// kernel's new way to a path is not an open door.
const NEWER: std::ops::RangeInclusive<i64> = 457..=511;

/// The filters of a brokered sandbox, built once per kind: one that
/// refuses what the broker does not answer, one that notifies it.
fn programs(brokered: Brokered) -> &'static [BpfProgram] {
    static BUILT: [OnceLock<Vec<BpfProgram>>; 4] = [const { OnceLock::new() }; 4];
    let cell = &BUILT[usize::from(brokered.files) * 2 + usize::from(brokered.signals)];
    cell.get_or_init(|| build(brokered).expect("the broker's filters compile"))
}

fn unconditional(calls: impl IntoIterator<Item = i64>) -> BTreeMap<i64, Vec<SeccompRule>> {
    calls.into_iter().map(|nr| (nr, Vec::new())).collect()
}

/// A rule matching a call whose argument `index` (an `int`) is `value`.
fn arg_is(index: u8, value: u64) -> Result<SeccompRule, seccompiler::BackendError> {
    SeccompRule::new(vec![SeccompCondition::new(
        index,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Eq,
        value,
    )?])
}

fn filter(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    action: SeccompAction,
) -> Result<BpfProgram, seccompiler::BackendError> {
    SeccompFilter::new(rules, SeccompAction::Allow, action, TargetArch::x86_64)?.try_into()
}

fn build(brokered: Brokered) -> Result<Vec<BpfProgram>, seccompiler::BackendError> {
    let mut programs = Vec::new();
    let mut notified: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let mut refused = Vec::new();
    if brokered.files {
        notified.extend(unconditional(calls::PATH_CALLS.iter().copied()));
        // Other ways to a path, none a course program needs.
        let unsupported = [
            libc::SYS_setxattr,
            libc::SYS_lsetxattr,
            libc::SYS_getxattr,
            libc::SYS_lgetxattr,
            libc::SYS_listxattr,
            libc::SYS_llistxattr,
            libc::SYS_removexattr,
            libc::SYS_lremovexattr,
        ];
        refused.push((unconditional(unsupported), libc::EOPNOTSUPP));
        let denied = [
            libc::SYS_inotify_add_watch,
            libc::SYS_fanotify_init,
            libc::SYS_fanotify_mark,
            libc::SYS_uselib,
            libc::SYS_swapon,
            libc::SYS_swapoff,
            libc::SYS_acct,
            libc::SYS_quotactl,
        ];
        refused.push((unconditional(denied), libc::EACCES));
        // x32's own numbers for `execve` and `execveat` (520, 545) beside
        // the x86-64 numbers with x32's bit.
        let x32 = calls::PATH_CALLS
            .iter()
            .copied()
            .chain([520, 545])
            .map(|nr| nr | X32_BIT);
        refused.push((unconditional(NEWER.chain(x32)), libc::ENOSYS));
    }
    if brokered.signals {
        notified.extend(unconditional(calls::PROCESS_CALLS.iter().copied()));
        notified.insert(libc::SYS_fcntl, vec![arg_is(1, libc::F_SETOWN as u64)?]);
        // An owner given by pointer could change after a look:
        // F_SETOWN_EX, FIOSETOWN, SIOCSPGRP.
        const F_SETOWN_EX: u64 = 15;
        const FIOSETOWN: u64 = 0x8901;
        const SIOCSPGRP: u64 = 0x8902;
        refused.push((
            [(libc::SYS_fcntl, vec![arg_is(1, F_SETOWN_EX)?])]
                .into_iter()
                .collect(),
            libc::EINVAL,
        ));
        refused.push((
            [(
                libc::SYS_ioctl,
                vec![arg_is(1, FIOSETOWN)?, arg_is(1, SIOCSPGRP)?],
            )]
            .into_iter()
            .collect(),
            libc::EPERM,
        ));
        let x32 = calls::PROCESS_CALLS
            .iter()
            .chain(&[libc::SYS_fcntl, libc::SYS_ioctl])
            .map(|nr| nr | X32_BIT);
        refused.push((unconditional(x32), libc::ENOSYS));
    }
    for (rules, errno) in refused {
        programs.push(filter(rules, SeccompAction::Errno(errno as u32))?);
    }
    let marked = filter(notified, SeccompAction::Trace(kernel::NOTIFY_MARK))?;
    programs.push(kernel::notifying(marked));
    Ok(programs)
}

/// A brokered sandbox before its spawn: the grader's end of the socket
/// the child's listener comes through, and what the broker will know.
pub struct Prepared {
    broker: calls::Broker,
    fs_uid: Option<u32>,
    ours: OwnedFd,
}

/// What the child does with the broker, between fork and exec: its end of
/// the socket (kept by the spawn's command, so that it closes in the
/// grader with it) and the filters.
pub struct Handoff {
    theirs: OwnedFd,
    programs: &'static [BpfProgram],
}

impl Prepared {
    /// The broker of a sandbox allowed what `policy` says, whose processes
    /// carry `marker` (`NAME=token`), running as `fs_uid` when the grader
    /// is root; and the child's part.
    pub fn new(
        brokered: Brokered,
        policy: Policy,
        marker: &str,
        fs_uid: Option<u32>,
    ) -> io::Result<(Prepared, Handoff)> {
        let (ours, theirs) = kernel::socket_pair()?;
        let prepared = Prepared {
            broker: calls::Broker {
                policy,
                files: brokered.files,
                signals: brokered.signals,
                marker: marker.as_bytes().to_vec(),
            },
            fs_uid,
            ours,
        };
        let handoff = Handoff {
            theirs,
            programs: programs(brokered),
        };
        Ok((prepared, handoff))
    }

    /// Starts the broker's thread, before the spawn: the child's `execve`
    /// is already one of its calls. It takes each listener a child sends
    /// (a spawn retried after ETXTBSY starts several) and answers it until
    /// that child's processes are gone; it ends once every child's end of
    /// the socket is closed and nothing came, or when [`Running`] is
    /// dropped.
    pub fn start(self, name: &str) -> io::Result<Running> {
        let stop = Arc::new(AtomicBool::new(false));
        let running = Running {
            stop: Arc::clone(&stop),
        };
        std::thread::Builder::new()
            .name(format!("sandbox-broker-{name}"))
            .spawn(move || {
                while !stop.load(Ordering::Acquire) {
                    match kernel::receive_fd(&self.ours, 50) {
                        kernel::Received::Fd(fd) => serve(
                            Arc::new(kernel::Listener(fd)),
                            &self.broker,
                            self.fs_uid,
                            &stop,
                        ),
                        kernel::Received::Nothing => continue,
                        kernel::Received::Closed => break,
                    }
                }
            })?;
        Ok(running)
    }
}

impl Handoff {
    /// In the child, last: the refusing filters, then the notifying one,
    /// whose listener goes to the grader. Allocation-free.
    pub fn enter(&self) -> io::Result<()> {
        // A process that changed its uid is not dumpable until it runs a
        // program, and its memory is then closed to the broker, which
        // reads the path of that `execve` there.
        // SAFETY: a plain system call.
        if unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let (notifying, refusing) = self.programs.split_last().expect("a notifying filter");
        for program in refusing {
            seccompiler::apply_filter(program).map_err(|e| match e {
                seccompiler::Error::Prctl(e) | seccompiler::Error::Seccomp(e) => e,
                _ => io::Error::from(io::ErrorKind::PermissionDenied),
            })?;
        }
        let listener = kernel::install_listener(notifying)?;
        let sent = kernel::send_fd(self.theirs.as_raw_fd(), listener);
        // SAFETY: our own descriptor, closed once.
        unsafe { libc::close(listener) };
        sent
    }
}

/// A sandbox's broker, answering until the sandbox is gone; dropping it
/// tells the thread to stop (after the sandbox is ended).
pub struct Running {
    stop: Arc<AtomicBool>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}

/// The broker's thread: answers calls until no process uses the filter
/// (or `stop`), then releases any FIFO open it waits on.
fn serve(
    listener: Arc<kernel::Listener>,
    broker: &calls::Broker,
    fs_uid: Option<u32>,
    stop: &AtomicBool,
) {
    if let Some(uid) = fs_uid
        && kernel::become_files_of(uid).is_err()
    {
        // Unanswered, every brokered call fails.
        return;
    }
    listener.wake_synchronously();
    let fifos = Fifos::default();
    while !stop.load(Ordering::Acquire) {
        match listener.wait(50) {
            kernel::Wait::Timeout => continue,
            kernel::Wait::Gone => break,
            kernel::Wait::Call => {}
        }
        let Some(call) = listener.receive() else {
            continue;
        };
        let mem = kernel::Memory::open(call.tid, true);
        // Opened while the call still waits: the memory is that thread's.
        if !listener.still_waiting(call.id) {
            continue;
        }
        let reply = match mem {
            Ok(mem) => broker.answer(call, mem),
            Err(_) => kernel::Reply::Errno(libc::EACCES),
        };
        match reply {
            kernel::Reply::Wait(object, flags, cloexec) => {
                fifos.open(&listener, call.id, object, flags, cloexec, fs_uid)
            }
            reply => listener.reply(call.id, reply),
        }
    }
    fifos.release();
}

/// The FIFO opens waiting for their other end, each on a thread of its
/// own (the broker goes on answering): released when the sandbox ends, by
/// opening the other end without waiting, so that no grader thread waits
/// on a FIFO nobody will open.
#[derive(Default)]
struct Fifos {
    waiting: Arc<Mutex<Vec<(u64, OwnedFd, i32)>>>,
}

impl Fifos {
    fn open(
        &self,
        listener: &Arc<kernel::Listener>,
        id: u64,
        object: OwnedFd,
        flags: i32,
        cloexec: bool,
        fs_uid: Option<u32>,
    ) {
        let Ok(kept) = object.try_clone() else {
            listener.reply(id, kernel::Reply::Errno(libc::EMFILE));
            return;
        };
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((id, kept, flags));
        let (listener, waiting) = (Arc::clone(listener), Arc::clone(&self.waiting));
        let spawned = std::thread::Builder::new()
            .name("sandbox-broker-fifo".into())
            .spawn(move || {
                let reply = match fs_uid.map_or(Ok(()), kernel::become_files_of) {
                    Ok(()) => open_by_magic(&object, flags)
                        .map_or_else(kernel::Reply::Errno, |fd| kernel::Reply::Fd(fd, cloexec)),
                    Err(_) => kernel::Reply::Errno(libc::EACCES),
                };
                waiting
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .retain(|(waiting_id, ..)| *waiting_id != id);
                listener.reply(id, reply);
            });
        if spawned.is_err() {
            self.waiting
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|(waiting_id, ..)| *waiting_id != id);
        }
    }

    /// Opens the other end of every FIFO still waited on, without
    /// waiting, and closes it: each waiting open returns.
    fn release(&self) {
        let waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        for (_, object, flags) in waiting.iter() {
            let other = match flags & libc::O_ACCMODE {
                libc::O_RDONLY => libc::O_WRONLY,
                _ => libc::O_RDONLY,
            };
            drop(open_by_magic(object, other | libc::O_NONBLOCK));
        }
    }
}

/// Opens what the `O_PATH` descriptor `object` holds with `flags`.
fn open_by_magic(object: &OwnedFd, flags: i32) -> Result<OwnedFd, i32> {
    use std::os::fd::FromRawFd;
    let path =
        std::ffi::CString::new(format!("/proc/self/fd/{}", object.as_raw_fd())).expect("no NUL");
    // SAFETY: a NUL-terminated path.
    let fd = unsafe { libc::open(path.as_ptr(), flags | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO));
    }
    // SAFETY: the kernel just gave us this descriptor.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Whether the broker works here: a program (`true`) run under it, its
/// loader's opens answered, as `uid` when given (a root grader's sandbox
/// uid). Found out once per grader.
pub fn available(uid: Option<u32>, drop_privileges: fn(u32) -> io::Result<()>) -> bool {
    static PROBED: OnceLock<bool> = OnceLock::new();
    *PROBED.get_or_init(|| probe(uid, drop_privileges).unwrap_or(false))
}

fn probe(uid: Option<u32>, drop_privileges: fn(u32) -> io::Result<()>) -> io::Result<bool> {
    use std::os::unix::process::CommandExt;
    let program = which::which("true").map_err(io::Error::other)?;
    let dir = tempfile::Builder::new()
        .prefix("chessgrade-probe-")
        .tempdir()?;
    if let Some(uid) = uid {
        nix::unistd::chown(
            dir.path(),
            Some(nix::unistd::Uid::from_raw(uid)),
            Some(nix::unistd::Gid::from_raw(uid)),
        )
        .map_err(io::Error::from)?;
    }
    let read: Vec<PathBuf> = super::SYSTEM_ROOTS.iter().map(PathBuf::from).collect();
    let policy = Policy::new(&read, &[], dir.path(), false);
    let brokered = Brokered {
        files: true,
        signals: true,
    };
    let (prepared, handoff) = Prepared::new(brokered, policy, "CHESSGRADE_PROBE=1", uid)?;
    let running = prepared.start("probe")?;
    let mut command = std::process::Command::new(&program);
    command
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: setgroups, setresgid, setresuid, prctl, seccomp, sendmsg
    // and close: system calls only, nothing allocated.
    unsafe {
        command.pre_exec(move || {
            if let Some(uid) = uid {
                drop_privileges(uid)?;
            }
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            handoff.enter()
        });
    }
    let mut child = command.spawn()?;
    drop(command);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    drop(running);
    Ok(status.is_some_and(|s| s.success()))
}

/// The read places of a sandbox: the system's and its command's.
pub fn read_places(system: &[&str], granted: &[PathBuf]) -> Vec<PathBuf> {
    system
        .iter()
        .map(PathBuf::from)
        .chain(granted.iter().cloned())
        .collect()
}

/// Exact paths, for [`Policy::new`]'s devices.
pub fn paths(list: &[&str]) -> Vec<PathBuf> {
    list.iter().map(|p| Path::new(p).to_path_buf()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_broker_has_its_filters_and_notifies_in_the_last() {
        for (files, signals) in [(true, false), (false, true), (true, true)] {
            let programs = programs(Brokered { files, signals });
            let last = programs.last().unwrap();
            let notifies = last
                .iter()
                .any(|i| i.code == 0x06 && i.k == libc::SECCOMP_RET_USER_NOTIF);
            assert!(notifies, "{files} {signals}");
            let traces = programs.iter().flatten().any(|i| {
                i.code == 0x06 && i.k & libc::SECCOMP_RET_ACTION_FULL == libc::SECCOMP_RET_TRACE
            });
            assert!(!traces, "no mark is left as a trace");
        }
    }
}
