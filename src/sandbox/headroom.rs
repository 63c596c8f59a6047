//! The grader's own resources, as opposed to a sandbox's bounds: was a
//! failed run the program's doing, or did the grader run short under it?
//!
//! A sandbox bounds what a submission may use (its folder's bytes and
//! files, its memory, its processes); running into one of those is the
//! submission's result. The machine under the grader has limits of its
//! own: the disk the temporary folders are on, its memory (the kernel's
//! OOM killer), its processes. A build that fails because the grader's
//! disk was full says `No space left on device` exactly as one that filled
//! its own folder does, and cached as the upload's compile error it would
//! cost the student every regrade. So a failed run is looked at twice:
//! first against its own bounds (the caller: `Scratch::reached`, the
//! timeout), then here against the grader's:
//!
//! - **measured**: the kernel's count of OOM kills (`/proc/vmstat`
//!   `oom_kill`, every cgroup's included) rose while the run ran; or the
//!   filesystem the run's folder is on, when that folder is not a bounded
//!   tmpfs of its own, has next to nothing free;
//! - **said**: the run's output names an exhausted resource of the
//!   machine's (`No space left on device`, a process killed by a signal
//!   nobody in the grader sent, `Too many open files in system`, ...)
//!   though nothing measured shows it. A program can print those words
//!   itself, so words alone never decide: the caller runs it once more,
//!   and only what is measured then makes it the grader's.
//!
//! The checks are cheap (one small file read before and after a run, one
//! `statvfs` after a failure) and run only around builds and failures.

use std::path::{Path, PathBuf};

/// Free space below which a filesystem counts as full: a compiler's next
/// write (an object, an assembler file) no longer fits.
const DISK_SLACK: u64 = 1 << 20;

/// Free inodes below which a filesystem counts as out of files.
const FILES_SLACK: u64 = 16;

/// What the output of a run says when the machine, not the run, is short
/// of something (each as the C library and GCC write it).
const SAID: &[(&str, &str)] = &[
    ("No space left on device", "no space left on the device"),
    ("Disk quota exceeded", "the disk quota is exceeded"),
    (
        "Killed signal terminated program",
        "a compiler was killed by a signal",
    ),
    ("Too many open files in system", "the system's open files"),
    ("Input/output error", "an input/output error of the disk"),
    ("Cannot fork", "no process could be started"),
    (
        "fork: Resource temporarily unavailable",
        "no process could be started",
    ),
    ("fork: retry", "no process could be started"),
];

/// A look at the grader's resources before a run.
#[derive(Clone, Copy, Debug)]
pub struct Headroom {
    oom_kills: Option<u64>,
}

impl Headroom {
    /// The resources as they are now.
    pub fn now() -> Headroom {
        Headroom {
            oom_kills: oom_kills(),
        }
    }

    /// Why a run that started at `self` in the folder `dir` and failed
    /// with `output` may be the grader's fault (`None`: nothing says so).
    /// The caller has ruled out the run's own bounds first.
    pub fn fault_since(&self, dir: &super::Scratch, output: &str) -> Option<GraderFault> {
        if let Some(killed) = oom_fault(self.oom_kills, oom_kills()) {
            return Some(killed);
        }
        // A bounded folder is a filesystem of its own: full there is the
        // run's bound, which the caller judged.
        if !dir.mounted()
            && let Some(full) = disk_full(dir.path())
        {
            return Some(full);
        }
        said(output)
    }
}

/// What `output` says ran short on the machine, in its own words (the
/// shortage is not measured: a program can print those words itself).
pub fn said(output: &str) -> Option<GraderFault> {
    SAID.iter()
        .find(|(words, _)| output.contains(words))
        .map(|(words, what)| GraderFault::Said { words, what })
}

/// A failed run the grader, not the program, may be the cause of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraderFault {
    /// The kernel's OOM killer ended `killed` processes while it ran.
    OutOfMemory { killed: u64 },
    /// The filesystem of the run's folder is full.
    DiskFull {
        folder: PathBuf,
        free_bytes: u64,
        free_files: u64,
    },
    /// Only its output says so (`words`): `what` ran short.
    Said {
        words: &'static str,
        what: &'static str,
    },
}

impl GraderFault {
    /// Whether the grader measured the shortage (rather than only reading
    /// it in the program's output, which the program could have printed).
    pub fn measured(&self) -> bool {
        !matches!(self, GraderFault::Said { .. })
    }
}

impl std::fmt::Display for GraderFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GraderFault::OutOfMemory { killed } => write!(
                f,
                "the machine ran out of memory: the kernel's OOM killer ended {killed} process{} while it ran",
                if *killed == 1 { "" } else { "es" }
            ),
            GraderFault::DiskFull {
                folder,
                free_bytes,
                free_files,
            } => write!(
                f,
                "the grader's disk is full: the filesystem of {} has {} KiB and {free_files} files free",
                folder.display(),
                free_bytes >> 10
            ),
            GraderFault::Said { words, what } => {
                write!(f, "its output says `{words}` ({what})")
            }
        }
    }
}

/// The OOM killer's work between two counts of its kills.
fn oom_fault(before: Option<u64>, after: Option<u64>) -> Option<GraderFault> {
    let (before, after) = (before?, after?);
    (after > before).then(|| GraderFault::OutOfMemory {
        killed: after - before,
    })
}

/// The kernel's count of OOM kills since boot (`None`: not readable).
fn oom_kills() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/vmstat").ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("oom_kill "))
        .and_then(|n| n.trim().parse().ok())
}

/// The fault of a full filesystem under `dir` (`None`: it has room).
pub fn disk_full(dir: &Path) -> Option<GraderFault> {
    let stat = nix::sys::statvfs::statvfs(dir).ok()?;
    let free_bytes = stat.blocks_available().saturating_mul(stat.fragment_size());
    // A filesystem without inode accounting (btrfs) says 0 of 0.
    let free_files = stat.files_available();
    let out_of_files = stat.files() > 0 && free_files < FILES_SLACK;
    (free_bytes < DISK_SLACK || out_of_files).then(|| GraderFault::DiskFull {
        folder: dir.to_path_buf(),
        free_bytes,
        free_files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_alone_is_said_never_measured() {
        let dir = super::super::Scratch::new("chessgrade-test-", &Default::default()).unwrap();
        let before = Headroom { oom_kills: None };
        let fault = before
            .fault_since(&dir, "as: a.o: No space left on device\n")
            .expect("said");
        assert!(!fault.measured());
        assert_eq!(
            fault.to_string(),
            "its output says `No space left on device` (no space left on the device)"
        );
        assert_eq!(before.fault_since(&dir, "error: expected ';'"), None);
    }

    #[test]
    fn an_oom_kill_since_the_start_is_measured() {
        assert!(oom_kills().is_some(), "/proc/vmstat counts OOM kills");
        assert_eq!(oom_fault(Some(3), Some(3)), None);
        assert_eq!(oom_fault(None, Some(3)), None);
        let fault = oom_fault(Some(3), Some(4)).expect("measured");
        assert_eq!(fault, GraderFault::OutOfMemory { killed: 1 });
        assert!(fault.measured());
        assert!(fault.to_string().contains("OOM killer ended 1 process "));
        let two = oom_fault(Some(3), Some(5)).unwrap();
        assert!(two.to_string().contains("ended 2 processes "));
    }

    /// A full filesystem under an unbounded folder is the grader's; the
    /// same fullness in a bounded folder is that folder's own bound, left
    /// to the caller.
    #[test]
    fn a_full_filesystem_is_the_graders_unless_it_is_the_folders_bound() {
        if super::super::isolation().disk.is_none() {
            eprintln!("skipping: this grader cannot mount a tmpfs (not root, no namespace)");
            return;
        }
        let bound = super::super::DiskBound {
            bytes: 2 << 20,
            files: 64,
        };
        let full = super::super::Scratch::new("chessgrade-test-", &bound).unwrap();
        assert_eq!(disk_full(full.path()), None, "empty");
        let _ = std::fs::write(full.path().join("big"), vec![0u8; 4 << 20]);
        match disk_full(full.path()) {
            Some(GraderFault::DiskFull { free_bytes, .. }) => assert!(free_bytes < DISK_SLACK),
            other => panic!("{other:?}"),
        }
        let before = Headroom { oom_kills: None };
        assert_eq!(
            before.fault_since(&full, ""),
            None,
            "the folder's own bound"
        );
    }
}
