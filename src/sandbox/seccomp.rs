//! The sandbox's own system-call filter: what no sandboxed process may
//! ask the kernel for, wherever the grader runs.
//!
//! Landlock and a network namespace are what confine a submission where
//! the kernel grants them. A container's default seccomp profile (Docker,
//! Gradescope, PrairieLearn, a Kubernetes pod) denies `unshare` and
//! `mount`, so there is no network namespace, and an older one denies
//! Landlock too. What still works there is seccomp itself (the profile
//! allows a process to add a filter of its own), so every sandboxed
//! process gets this one, last thing before `exec`, in every environment:
//!
//! - **no socket** (`socket` fails with `EACCES`): Landlock rules TCP only
//!   (ABI 4) and only without a namespace is anything reachable, so UDP,
//!   raw and packet sockets, netlink, and Unix sockets that could reach a
//!   service outside the sandbox (a pathname socket) are refused at their
//!   making. `socketpair` (two connected ends, reaching nothing) stays;
//!   no course program or compiler makes a socket of its own;
//! - **nothing that reaches into another process or the kernel's state**:
//!   `ptrace` (but for a checked run, whose LeakSanitizer attaches to its
//!   own threads: there Landlock or the uid keeps it within the sandbox),
//!   `process_vm_readv`, `process_vm_writev`, `pidfd_getfd`, `kcmp`,
//!   `keyctl`, `add_key`, `request_key`, `bpf`, `perf_event_open`,
//!   `userfaultfd`, `io_uring_*` (whose operations would not pass through
//!   this filter), `open_by_handle_at`, `name_to_handle_at`;
//! - **no signal to the grader**: `kill` of its pid, its process group or
//!   every process (`-1`), `tgkill`, `rt_sigqueueinfo`, `rt_tgsigqueueinfo`
//!   and `pidfd_open` of its pid, and `tkill` altogether (its threads' ids
//!   are not known ahead, and a SIGKILL to one ends it): where neither
//!   Landlock's signal scoping (ABI 6) nor a uid of the sandbox's own
//!   keeps a process from the grader, the grader still survives it;
//! - **no System V or POSIX IPC** (`shmget`, `msgget`, `semget`,
//!   `mq_open`, and the calls on their objects): such an object outlives
//!   the process and is the whole machine's, a channel to a later scenario
//!   or a classmate that no file rule sees;
//! - **no `fallocate`** (it fails with `EOPNOTSUPP`, as on a filesystem
//!   without it): one call reserves any size at once, faster than a
//!   watched folder ([`super::DiskMount::Watched`]) is counted, where a
//!   program's writes are bounded by that count and RLIMIT_FSIZE. The C
//!   library's `posix_fallocate` then writes the file's blocks itself,
//!   which both bound; compilers, linkers and interpreters that try it
//!   go on without it. Refused everywhere, tmpfs or not: a reservation is
//!   no program's business, and the runs are the same in every
//!   environment;
//! - **no mount and no namespace**: `mount`, `umount2`, the new mount API,
//!   `pivot_root`, `chroot`, `unshare`, `setns`, and `clone` with any
//!   `CLONE_NEW*` flag (`clone3` answers `ENOSYS`, as in Docker, so the C
//!   library falls back to `clone`, whose flags a filter can read).
//!
//! The filter is built once per grader (`seccompiler`, the rust-vmm
//! project's BPF compiler: the rules are data here, not hand-written BPF),
//! and applied between fork and exec with one `prctl` and one `seccomp`
//! call, which allocate nothing. A filter cannot be removed, and every
//! process the sandbox starts inherits it. System calls of another
//! architecture (i386 through `int 0x80`) kill the process (seccompiler's
//! architecture check); x32 numbers of the refused calls are refused too.

use nix::libc;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The x32 ABI's bit in a system call's number (x86-64 kernels built with
/// it: their numbers are the x86-64 ones with this bit set).
const X32_BIT: i64 = 0x4000_0000;

/// The `clone` flags that make a namespace.
const CLONE_NEW: &[u64] = &[
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWCGROUP as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
];

/// The system calls refused outright (`EPERM`), but `socket` (`EACCES`),
/// `clone3` (`ENOSYS`), `clone` (by its flags) and `ptrace` (by the run).
const REFUSED: &[libc::c_long] = &[
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_pidfd_getfd,
    libc::SYS_kcmp,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_open_by_handle_at,
    libc::SYS_name_to_handle_at,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_mount_setattr,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_unshare,
    libc::SYS_setns,
    // System V and POSIX IPC: objects that outlive the process, shared by
    // the whole machine (there is no IPC namespace of the sandbox's), so a
    // channel to a later scenario or a classmate that no file rule sees.
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmctl,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semtimedop,
    libc::SYS_semctl,
    libc::SYS_mq_open,
    libc::SYS_mq_unlink,
];

/// x32-only numbers of refused calls (the x32 ABI numbers these apart).
const REFUSED_X32: &[i64] = &[
    521, // ptrace
    539, // process_vm_readv
    540, // process_vm_writev
];

/// A rule matching a call whose argument `index` (an `int`: a pid) is
/// `value`.
fn arg_is(index: u8, value: i32) -> Result<SeccompRule, seccompiler::BackendError> {
    SeccompRule::new(vec![SeccompCondition::new(
        index,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Eq,
        value as u32 as u64,
    )?])
}

/// The calls that would signal the grader: `kill` of its pid, of its
/// process group or of everything (`-1`); `tgkill`, `rt_sigqueueinfo`,
/// `rt_tgsigqueueinfo` and `pidfd_open` of its pid; `tkill` of any thread
/// (a SIGKILL to one of the grader's threads, whose ids are not known
/// ahead, ends it; the C library signals with `tgkill`).
fn signalling_the_grader() -> Result<BTreeMap<i64, Vec<SeccompRule>>, seccompiler::BackendError> {
    let me = std::process::id() as i32;
    let group = nix::unistd::getpgrp().as_raw();
    let mut rules = BTreeMap::new();
    rules.insert(
        libc::SYS_kill,
        vec![arg_is(0, me)?, arg_is(0, -group)?, arg_is(0, -1)?],
    );
    for call in [
        libc::SYS_tgkill,
        libc::SYS_rt_sigqueueinfo,
        libc::SYS_rt_tgsigqueueinfo,
        libc::SYS_pidfd_open,
    ] {
        rules.insert(call, vec![arg_is(0, me)?]);
    }
    rules.insert(libc::SYS_tkill, Vec::new());
    let x32: Vec<(i64, Vec<SeccompRule>)> = rules
        .iter()
        .map(|(&nr, r)| (nr | X32_BIT, r.clone()))
        .collect();
    rules.extend(x32);
    Ok(rules)
}

/// The filters, built once: `(whether ptrace is allowed, the filters)`.
fn filters(ptrace: bool) -> &'static [BpfProgram] {
    static PLAIN: OnceLock<Vec<BpfProgram>> = OnceLock::new();
    static TRACING: OnceLock<Vec<BpfProgram>> = OnceLock::new();
    let cell = if ptrace { &TRACING } else { &PLAIN };
    cell.get_or_init(|| build(ptrace).expect("the sandbox's seccomp filter compiles"))
}

/// A filter that answers `errno` to every call in `rules`, and lets
/// everything else through.
fn refusing(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    errno: i32,
) -> Result<BpfProgram, seccompiler::BackendError> {
    SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        TargetArch::x86_64,
    )?
    .try_into()
}

fn build(ptrace: bool) -> Result<Vec<BpfProgram>, seccompiler::BackendError> {
    let mut refused: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let mut calls: Vec<i64> = REFUSED.to_vec();
    if !ptrace {
        calls.push(libc::SYS_ptrace);
        calls.push(REFUSED_X32[0]);
    }
    calls.extend(&REFUSED_X32[1..]);
    for nr in calls.clone() {
        if nr < 512 {
            calls.push(nr | X32_BIT);
        }
    }
    for nr in calls {
        refused.insert(nr, Vec::new());
    }
    // `clone` with a namespace flag: one rule per flag (any one matches).
    let mut clone = Vec::new();
    for &flag in CLONE_NEW {
        clone.push(SeccompRule::new(vec![SeccompCondition::new(
            0,
            SeccompCmpArgLen::Qword,
            SeccompCmpOp::MaskedEq(flag),
            flag,
        )?])?);
    }
    refused.insert(libc::SYS_clone, clone);
    let socket = [libc::SYS_socket, libc::SYS_socket | X32_BIT];
    let no_socket = socket.iter().map(|&nr| (nr, Vec::new())).collect();
    let clone3 = [libc::SYS_clone3, libc::SYS_clone3 | X32_BIT];
    let no_clone3 = clone3.iter().map(|&nr| (nr, Vec::new())).collect();
    let fallocate = [libc::SYS_fallocate, libc::SYS_fallocate | X32_BIT];
    let no_fallocate = fallocate.iter().map(|&nr| (nr, Vec::new())).collect();
    Ok(vec![
        refusing(refused, libc::EPERM)?,
        refusing(signalling_the_grader()?, libc::EPERM)?,
        refusing(no_socket, libc::EACCES)?,
        refusing(no_clone3, libc::ENOSYS)?,
        refusing(no_fallocate, libc::EOPNOTSUPP)?,
    ])
}

/// The filters of one sandbox, chosen (and built, the first time) in the
/// parent; [`Filters::apply`] installs them in the child.
pub struct Filters {
    programs: &'static [BpfProgram],
}

impl Filters {
    /// The filters for a run; `ptrace`: it may trace its own threads (a
    /// checked run's LeakSanitizer).
    pub fn for_run(ptrace: bool) -> Filters {
        Filters {
            programs: filters(ptrace),
        }
    }

    /// Sets `no_new_privs` and installs every filter on the calling
    /// thread. Between fork and exec: it allocates nothing.
    pub fn apply(&self) -> std::io::Result<()> {
        for program in self.programs {
            seccompiler::apply_filter(program).map_err(|e| match e {
                seccompiler::Error::Prctl(e) | seccompiler::Error::Seccomp(e) => e,
                _ => std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            })?;
        }
        Ok(())
    }
}

/// Whether this kernel and the grader's own filters (a container's
/// profile) let a process add a filter: probed once, in a forked child.
pub fn available() -> bool {
    static PROBED: OnceLock<bool> = OnceLock::new();
    *PROBED.get_or_init(|| {
        let filters = Filters::for_run(false);
        super::jail::probe_child(move || filters.apply().is_ok())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filters_compile_for_both_kinds_of_run() {
        assert_eq!(filters(false).len(), 5);
        assert_eq!(filters(true).len(), 5);
        assert!(filters(false)[0].len() > filters(true)[0].len());
    }
}
