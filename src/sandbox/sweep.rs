//! Finding and ending every process of one sandbox, including the ones
//! that left its process group (`setsid`, `setpgid`) or were orphaned (a
//! double fork).
//!
//! A process belongs to a sandbox when, in a scan of `/proc`:
//! - it is in the sandbox's process group (the leader's pid), or
//! - it carries the sandbox's marker (`CHESSGRADE_SANDBOX=<token>`) in its
//!   environment and was orphaned (its parent is the grader, which is a
//!   child subreaper, or init where that could not be set), or
//! - it was swept by this sandbox before and is still the same process
//!   (same start time), or
//! - its parent belongs to the sandbox (transitively).
//!
//! The marker is only looked for on orphans: every other process either
//! still hangs below a member or never was one. A process that leaves the
//! group, clears its environment *and* is orphaned before any sweep sees
//! it escapes this attribution; the cgroup (where the machine has one we
//! may write) does not have that gap. `docs/grading.md` says which holds.
//!
//! Reaping: the grader is a child subreaper, so orphans of every sandbox
//! become the grader's children. A sweep reaps only the pids it killed
//! itself or found already dead among the sandbox's members once they are
//! the grader's children, each checked by start time so a reused pid is
//! never waited for, and never a sandbox's leader (its owner reaps that one through its
//! `Child`). It never calls `waitpid(-1)`, so it cannot take the exit
//! status of another sandbox's process or of any other child of the
//! grader.

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The environment variable that marks a sandbox's processes.
pub const MARKER_VAR: &str = "CHESSGRADE_SANDBOX";

/// How long one sweep keeps killing new members (a fork bomb keeps adding
/// some until the last forker is dead) before giving up on this round.
const SWEEP_BUDGET: Duration = Duration::from_secs(2);

/// Makes this process a child subreaper, once: orphans of every sandbox
/// are re-parented to the grader instead of init, where a sweep finds and
/// reaps them. Returns whether it is in effect.
pub fn become_subreaper() -> bool {
    static SET: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SET.get_or_init(|| nix::sys::prctl::set_child_subreaper(true).is_ok())
}

/// A fresh marker value, unique in this grader and across graders.
pub fn new_token() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}.{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// What identifies one sandbox's processes.
pub struct Tree {
    /// The sandbox's first process; its pid is also the process group id.
    leader: Pid,
    /// `CHESSGRADE_SANDBOX=<token>`, as it appears in `/proc/<pid>/environ`.
    marker: Vec<u8>,
    /// Processes this sandbox killed, with their start times, until reaped.
    swept: Mutex<HashMap<i32, u64>>,
    /// Set once the leader is reaped and a sweep left nothing running:
    /// nothing can join the sandbox any more, and its process group id may
    /// be reused by an unrelated process, so later sweeps do nothing.
    finished: AtomicBool,
}

/// One line of `/proc/<pid>/stat`, the fields a sweep needs.
#[derive(Clone, Copy, Debug)]
struct Stat {
    pid: i32,
    state: u8,
    ppid: i32,
    pgid: i32,
    start: u64,
}

impl Stat {
    fn zombie(&self) -> bool {
        matches!(self.state, b'Z' | b'X' | b'x')
    }
}

fn read_stat(pid: i32) -> Option<Stat> {
    let text = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp ...`: comm may hold anything, spaces and
    // parentheses included, so fields are counted from the last `)`.
    let close = text.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(&text[close + 1..]).ok()?;
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    Some(Stat {
        pid,
        state: *fields.first()?.as_bytes().first()?,
        ppid: fields.get(1)?.parse().ok()?,
        pgid: fields.get(2)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

fn all_processes() -> Vec<Stat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(read_stat)
        .collect()
}

impl Tree {
    pub fn new(leader: u32, token: &str) -> Tree {
        Tree {
            leader: Pid::from_raw(leader as i32),
            marker: format!("{MARKER_VAR}={token}").into_bytes(),
            swept: Mutex::new(HashMap::new()),
            finished: AtomicBool::new(false),
        }
    }

    fn has_marker(&self, pid: i32) -> bool {
        std::fs::read(format!("/proc/{pid}/environ"))
            .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == self.marker))
    }

    /// The sandbox's processes in one scan (zombies included), leader
    /// excluded.
    fn members(&self, leader_reaped: bool) -> Vec<Stat> {
        let me = std::process::id() as i32;
        let leader = self.leader.as_raw();
        let procs = all_processes();
        let swept = self.swept.lock().map(|s| s.clone()).unwrap_or_default();
        let mut children: HashMap<i32, Vec<usize>> = HashMap::new();
        for (i, p) in procs.iter().enumerate() {
            children.entry(p.ppid).or_default().push(i);
        }
        let mut member: HashSet<i32> = HashSet::new();
        // Once reaped, the leader's children were re-parented to the grader
        // and its pid may belong to someone else: no ancestry through it.
        let mut queue: Vec<i32> = if leader_reaped {
            Vec::new()
        } else {
            vec![leader]
        };
        for p in &procs {
            if p.pid == me || p.pid == leader {
                continue;
            }
            let seed = p.pgid == leader
                || swept.get(&p.pid) == Some(&p.start)
                || ((p.ppid == me || p.ppid == 1) && !p.zombie() && self.has_marker(p.pid));
            if seed {
                queue.push(p.pid);
            }
        }
        while let Some(pid) = queue.pop() {
            if pid != leader && !member.insert(pid) {
                continue;
            }
            for &i in children.get(&pid).map_or(&[][..], Vec::as_slice) {
                if procs[i].pid != me && !member.contains(&procs[i].pid) {
                    queue.push(procs[i].pid);
                }
            }
        }
        procs
            .into_iter()
            .filter(|p| member.contains(&p.pid))
            .collect()
    }

    /// Kills every process of the sandbox but the leader (the caller ends
    /// that one through its handle) and reaps the ones re-parented to the
    /// grader. Returns how many processes it killed.
    pub fn sweep(&self) -> usize {
        self.sweep_inner(false)
    }

    /// [`Tree::sweep`] once the leader has been reaped: when it leaves
    /// nothing running, the tree is finished for good.
    pub fn sweep_after_leader(&self) -> usize {
        self.sweep_inner(true)
    }

    fn sweep_inner(&self, leader_reaped: bool) -> usize {
        if self.finished.load(Ordering::Acquire) {
            return 0;
        }
        let started = Instant::now();
        let me = std::process::id() as i32;
        let mut killed = 0;
        loop {
            let members = self.members(leader_reaped);
            // Members that died with the group (a `killpg` before any scan:
            // a fork server's zygote and spare die with their front) and
            // were re-parented to the grader are reaped with the swept ones,
            // not left as zombies until the grader exits.
            if let Ok(mut swept) = self.swept.lock() {
                for p in members.iter().filter(|p| p.zombie() && p.ppid == me) {
                    swept.insert(p.pid, p.start);
                }
            }
            let live: Vec<Stat> = members.into_iter().filter(|p| !p.zombie()).collect();
            if live.is_empty() {
                if leader_reaped {
                    self.finished.store(true, Ordering::Release);
                }
                break;
            }
            for p in &live {
                if let Ok(mut swept) = self.swept.lock() {
                    swept.insert(p.pid, p.start);
                }
                if kill(Pid::from_raw(p.pid), Signal::SIGKILL).is_ok() {
                    killed += 1;
                }
            }
            if started.elapsed() > SWEEP_BUDGET {
                break;
            }
            // The killed processes need a moment to die before a rescan
            // stops finding them.
            std::thread::sleep(Duration::from_millis(1));
        }
        self.reap();
        killed
    }

    /// Waits for the swept processes that are the grader's children now,
    /// each only while `/proc` shows it is still the process that was killed.
    /// A swept process still below another dying member is re-parented to
    /// the grader a moment later: a few short rounds cover that.
    fn reap(&self) {
        let me = std::process::id() as i32;
        let deadline = Instant::now() + Duration::from_millis(500);
        loop {
            let Ok(mut swept) = self.swept.lock() else {
                return;
            };
            swept.retain(|&pid, &mut start| {
                let Some(stat) = read_stat(pid) else {
                    return false; // gone: reaped by its parent, a member
                };
                if stat.start != start {
                    return false; // the pid was reused: not ours any more
                }
                if stat.ppid != me || !stat.zombie() {
                    return true; // not ours to reap yet
                }
                // Still alive only if the wait found nothing; reaped, or
                // not the grader's child after all (ECHILD): done with it.
                matches!(
                    waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG)),
                    Ok(WaitStatus::StillAlive)
                )
            });
            if swept.is_empty() || Instant::now() >= deadline {
                return;
            }
            drop(swept);
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// The resident memory of the leader and every other live process of
    /// the sandbox, in bytes (shared pages counted in each process).
    pub fn resident_bytes(&self) -> u64 {
        let others: u64 = self
            .members(false)
            .iter()
            .filter(|p| !p.zombie())
            .map(|p| resident_pages(p.pid))
            .sum();
        (resident_pages(self.leader.as_raw()) + others).saturating_mul(page_size())
    }

    /// The leader and every other live process of the sandbox (one scan
    /// of `/proc`).
    pub fn live_pids(&self) -> Vec<i32> {
        let mut pids = vec![self.leader.as_raw()];
        pids.extend(
            self.members(false)
                .iter()
                .filter(|p| !p.zombie())
                .map(|p| p.pid),
        );
        pids
    }

    /// The leader's resident memory, in bytes (one file read).
    pub fn leader_resident_bytes(&self) -> u64 {
        resident_pages(self.leader.as_raw()).saturating_mul(page_size())
    }

    /// Is any process of the sandbox (the leader aside) still running?
    #[cfg(test)]
    pub fn any_alive(&self) -> bool {
        self.members(false).iter().any(|p| !p.zombie())
    }
}

/// A process's resident pages (`/proc/<pid>/statm`), 0 when it is gone.
fn resident_pages(pid: i32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/statm"))
        .ok()
        .and_then(|t| t.split_ascii_whitespace().nth(1)?.parse::<u64>().ok())
        .unwrap_or(0)
}

fn page_size() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .map_or(4096, |p| p as u64)
}

/// The grader's effective user id (the owner of `/proc/self`).
pub fn own_uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map_or(0, |m| m.uid())
}

/// How many processes the user `uid` runs now (for an RLIMIT_NPROC that
/// leaves room for `n` more).
pub fn processes_of(uid: u32) -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    use std::os::unix::fs::MetadataExt;
    dir.filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<u32>().is_ok())
        })
        .filter(|e| e.metadata().is_ok_and(|m| m.uid() == uid))
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_are_read_past_odd_command_names() {
        let me = read_stat(std::process::id() as i32).expect("own stat");
        assert_eq!(me.pid, std::process::id() as i32);
        assert_eq!(me.ppid, nix::unistd::getppid().as_raw());
        assert_eq!(me.pgid, nix::unistd::getpgrp().as_raw());
        assert!(me.start > 0);
    }

    #[test]
    fn tokens_are_unique() {
        assert_ne!(new_token(), new_token());
    }
}
