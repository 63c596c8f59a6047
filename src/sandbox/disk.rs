//! Bounded disk: every folder a submission writes in (a scenario's working
//! folder, a build's folder) holds at most so many bytes and so many files,
//! enforced by the kernel as the program writes, not by looking afterwards.
//!
//! Landlock already lets a sandboxed process write only beneath its own
//! folder, so bounding that folder bounds everything it can write. RLIMIT_FSIZE
//! bounds one file only: a program that writes many files just under it (or
//! a Makefile, which is a shell script) could otherwise fill the grader's
//! disk before its timeout.
//!
//! ## How
//!
//! Each such folder is a [`Scratch`]: a temporary folder with a tmpfs of its
//! own mounted on it (`size=`, `nr_inodes=`, `nosuid`, `nodev`) by the
//! *grader*, in the grader's mount namespace, for the folder's whole life;
//! dropping it detaches the tmpfs (its files are gone at once, however many)
//! and removes the empty folder. A write past the bound fails in the program
//! with `ENOSPC`; and the grader, not the sandboxed process, holds the mount, so:
//!
//! - what a build makes (the program, its objects) outlives the build's
//!   processes: the grader copies it into the build cache and scenarios run
//!   it, as from any folder, until the build is dropped;
//! - what a scenario's program leaves behind (a save file the plan checks, a
//!   memory checker's report) is read after the program ended, and gone when
//!   its scenario ends;
//! - the files the grader writes first (the upload's copy, a scenario's
//!   files) are inside the bound too, so the folder as a whole is bounded.
//!
//! The grader mounts in a mount namespace of its own, entered at its start
//! ([`enter_own_mount_namespace`], while it is single-threaded): as root,
//! `unshare(CLONE_NEWNS)`; otherwise a user namespace of its own as well,
//! where the grader keeps its uid and gid (mapped to themselves) but may
//! mount. Its mounts are then invisible to the rest of the machine and
//! vanish with the grader, even if it is killed. Without that call (the
//! library used in a threaded test), a root grader mounts in the namespace
//! it is in and unmounts at the end; an unprivileged one cannot mount, and
//! the report says the disk is unbounded ([`super::Isolation::missing`]).
//!
//! Why not the alternatives: mounting in the sandboxed process's own
//! namespace loses the folder's contents when its last process ends (a
//! build's products, a scenario's saved files), or needs them copied out
//! through a descriptor passed back between fork and exec; filesystem quotas
//! depend on the disk's filesystem and its mount options; a size check
//! after the run would come after the disk is full.
//!
//! The sandboxed process cannot undo the bound: it runs without privileges
//! (a uid of its own under a root grader; an unprivileged grader's processes
//! only gain capabilities in a user namespace they make, where mounts
//! inherited from the grader are locked), and Landlock forbids a
//! restricted process every change to its mounts.
//!
//! tmpfs lives in memory (and swap): a full folder costs up to its bound in
//! memory until it is dropped. docs/grading.md ("Guarantees") gives the
//! defaults, why, and the grader's total.

use std::io;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The most a folder a submission writes in may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskBound {
    /// Bytes of file data.
    pub bytes: u64,
    /// Files, folders and links (the tmpfs's inodes).
    pub files: u64,
}

impl DiskBound {
    /// The default bytes: 64 MiB. The largest folder of the fixtures is a
    /// CUHK build under AddressSanitizer, about 6 MiB in 50 files
    /// (docs/grading.md).
    pub const DEFAULT_BYTES: u64 = 64 << 20;
    /// The default file count.
    pub const DEFAULT_FILES: u64 = 4096;
}

impl Default for DiskBound {
    fn default() -> Self {
        DiskBound {
            bytes: Self::DEFAULT_BYTES,
            files: Self::DEFAULT_FILES,
        }
    }
}

impl std::fmt::Display for DiskBound {
    /// `64 MiB, 4096 files`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, {} files", mebibytes(self.bytes), self.files)
    }
}

/// `64 MiB`, or `1.5 MiB` when not whole.
fn mebibytes(bytes: u64) -> String {
    if bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
    }
}

/// How the grader bounds a folder a submission writes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiskMount {
    /// A tmpfs of its own, mounted as root.
    Direct,
    /// A tmpfs of its own, mounted in a user namespace of the grader's own
    /// (an unprivileged grader).
    InUserNamespace,
    /// No mount (a container's profile denies it): a folder of the
    /// grader's disk whose bytes and files the grader counts while a
    /// sandbox runs in it, with the files the sandbox's processes hold
    /// open unlinked on that disk (read from `/proc/<pid>/fd`), ending
    /// the sandbox at the bound (every 10 ms, every millisecond while it
    /// grows);
    /// RLIMIT_FSIZE bounds each file, and the seccomp filter refuses
    /// `fallocate`, which would reserve any size between two counts.
    Watched,
}

/// How often a watched folder ([`DiskMount::Watched`]) is counted while a
/// sandbox runs in it and it does not change. Between two counts a
/// program can write what the disk takes in that time, each file within
/// RLIMIT_FSIZE: the bound is kept to that.
pub const WATCH_INTERVAL: std::time::Duration = std::time::Duration::from_millis(10);

/// How often a watched folder is counted while it grows (it changed at
/// the last count).
pub const WATCH_INTERVAL_GROWING: std::time::Duration = std::time::Duration::from_millis(1);

/// A watched folder alive: a sandbox started in it (or below) is watched
/// against its bound.
#[derive(Clone)]
pub(super) struct Watch {
    pub folder: std::path::PathBuf,
    pub bound: DiskBound,
    /// What the watch counted when it ended a sandbox at the bound (the
    /// folder's [`Scratch`] reads it: what an ended sandbox held open
    /// unlinked is gone from the folder by then).
    pub reached: Arc<OnceLock<DiskUse>>,
}

/// The watched folders alive.
static WATCHED: std::sync::Mutex<Vec<Watch>> = std::sync::Mutex::new(Vec::new());

/// The watched folder `dir` is in (or is).
pub(super) fn watched_folder(dir: &Path) -> Option<Watch> {
    let watched = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
    watched
        .iter()
        .find(|watch| dir.starts_with(&watch.folder))
        .cloned()
}

/// What the folder `dir` holds, counted file by file: the blocks each
/// file takes (not its length: a sparse file takes what it wrote), and
/// every file, folder and link below it. Links are not followed.
pub(super) fn count(dir: &Path) -> DiskUse {
    use std::os::unix::fs::MetadataExt;
    let mut used = DiskUse { bytes: 0, files: 0 };
    for entry in walkdir::WalkDir::new(dir)
        .follow_links(false)
        .min_depth(1)
        .into_iter()
        .filter_map(Result::ok)
    {
        used.files += 1;
        if let Ok(meta) = entry.metadata() {
            used.bytes = used.bytes.saturating_add(meta.blocks().saturating_mul(512));
        }
    }
    used
}

/// What the processes `pids` hold open that no folder shows: regular
/// files unlinked (no name left) on the filesystem `dev`, each file once
/// however many descriptors and processes hold it, by the blocks it
/// takes. A program that unlinks the files it writes and keeps them open
/// fills the disk as surely as one that keeps their names, and the folder
/// a walk counts stays empty; they are freed when the last process
/// holding them ends. Processes that end meanwhile, or whose descriptors
/// this grader may not read, are skipped.
///
/// `as_uid`: the sandbox's own uid (and gid), taken as this thread's
/// filesystem ids while it reads: a root grader without `CAP_SYS_PTRACE`
/// (a container's capabilities) may read the descriptors of its own uid's
/// processes only, and the sandbox's are then its own. Filesystem ids
/// are a thread's own (the C library does not pass them on to the other
/// threads): only the calling thread's change, and they are back when
/// this returns.
pub(super) fn unlinked(pids: &[i32], dev: u64, as_uid: Option<u32>) -> DiskUse {
    use nix::unistd::{Gid, Uid, setfsgid, setfsuid};
    let Some(uid) = as_uid else {
        return unlinked_as_is(pids, dev);
    };
    let gid = setfsgid(Gid::from_raw(uid));
    let was = setfsuid(Uid::from_raw(uid));
    let used = unlinked_as_is(pids, dev);
    setfsuid(was);
    setfsgid(gid);
    used
}

/// [`unlinked`] with this thread's own ids.
fn unlinked_as_is(pids: &[i32], dev: u64) -> DiskUse {
    use std::os::unix::fs::MetadataExt;
    let mut seen = std::collections::HashSet::new();
    let mut used = DiskUse { bytes: 0, files: 0 };
    for pid in pids {
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.filter_map(Result::ok) {
            // The descriptor's link, followed: the open file itself.
            let Ok(meta) = std::fs::metadata(fd.path()) else {
                continue;
            };
            if meta.is_file() && meta.nlink() == 0 && meta.dev() == dev && seen.insert(meta.ino()) {
                used.files += 1;
                used.bytes = used.bytes.saturating_add(meta.blocks().saturating_mul(512));
            }
        }
    }
    used
}

/// What [`enter_own_mount_namespace`] entered, once.
static ENTERED: OnceLock<Option<DiskMount>> = OnceLock::new();

/// Moves the grader into a mount namespace of its own (as root), or a user
/// and mount namespace of its own (otherwise), where it may mount the
/// bounded folders' tmpfs without the rest of the machine seeing them;
/// they vanish with the grader. Call it first thing in `main`: entering a
/// user namespace needs a single-threaded process. Failing (a container
/// without the right, user namespaces turned off) is not an error: the
/// report then says whether the disk is bounded.
pub fn enter_own_mount_namespace() -> Option<DiskMount> {
    *ENTERED.get_or_init(|| {
        let root = nix::unistd::geteuid().is_root();
        let entered = if root {
            enter_as_root()
        } else {
            enter_in_user_namespace()
        };
        entered.ok().map(|()| mounting(root))
    })
}

fn enter_as_root() -> io::Result<()> {
    use nix::sched::{CloneFlags, unshare};
    unshare(CloneFlags::CLONE_NEWNS).map_err(io::Error::from)?;
    no_propagation_out()
}

fn enter_in_user_namespace() -> io::Result<()> {
    use nix::sched::{CloneFlags, unshare};
    let (uid, gid) = (nix::unistd::getuid(), nix::unistd::getgid());
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS).map_err(io::Error::from)?;
    // The same ids inside as outside: files keep their owner, and every
    // permission check is what it was.
    std::fs::write("/proc/self/setgroups", "deny")?;
    std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    no_propagation_out()
}

/// Mounts made in this namespace stay in it (the machine's own still
/// reach it).
fn no_propagation_out() -> io::Result<()> {
    use nix::libc;
    // SAFETY: NUL-terminated literals; null source, type and data are
    // allowed for a propagation change.
    let done = unsafe {
        libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_SLAVE,
            std::ptr::null(),
        )
    };
    if done != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// How a grader that may mount mounts (as root, or in its namespace).
fn mounting(root: bool) -> DiskMount {
    match root {
        true => DiskMount::Direct,
        false => DiskMount::InUserNamespace,
    }
}

/// How this grader bounds folders: a tmpfs mounted and unmounted on a
/// fresh temporary folder (what every [`Scratch`] does) where it can, else
/// by watching them ([`DiskMount::Watched`]).
pub(super) fn probe() -> Option<DiskMount> {
    let mounted = || {
        let dir = tempfile::Builder::new()
            .prefix("chessgrade-probe-")
            .tempdir()
            .ok()?;
        let bound = DiskBound {
            bytes: 4096,
            files: 1,
        };
        mount_tmpfs(dir.path(), &bound).ok()?;
        unmount(dir.path());
        Some(mounting(nix::unistd::geteuid().is_root()))
    };
    Some(mounted().unwrap_or(DiskMount::Watched))
}

fn mount_tmpfs(dir: &Path, bound: &DiskBound) -> io::Result<()> {
    use nix::libc;
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let target = CString::new(dir.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // One inode is the folder itself.
    let options = CString::new(format!(
        "size={},nr_inodes={},mode=0700",
        bound.bytes.max(4096),
        bound.files.saturating_add(1)
    ))
    .map_err(io::Error::other)?;
    // SAFETY: every pointer is a NUL-terminated string that outlives the call.
    let done = unsafe {
        libc::mount(
            c"chessgrade".as_ptr(),
            target.as_ptr(),
            c"tmpfs".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV,
            options.as_ptr().cast(),
        )
    };
    if done != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Detaches the tmpfs on `dir`: its files are gone once nothing uses them.
fn unmount(dir: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let Ok(target) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return;
    };
    // SAFETY: a NUL-terminated string that outlives the call.
    unsafe { nix::libc::umount2(target.as_ptr(), nix::libc::MNT_DETACH) };
}

/// A temporary folder a submission writes in, bounded by [`DiskBound`]
/// where the grader can mount ([`super::isolation`]); removed with
/// everything in it when dropped.
pub struct Scratch {
    dir: tempfile::TempDir,
    /// The bound in force (`None`: the folder is unbounded here).
    bound: Option<DiskBound>,
    /// It is a tmpfs of its own (`false`: a folder of the grader's disk,
    /// watched or unbounded).
    mounted: bool,
    /// Watched: what the watch counted when it ended a sandbox at the
    /// bound.
    watched: Option<Arc<OnceLock<DiskUse>>>,
}

impl Scratch {
    /// A fresh folder named `<prefix>XXXXXX` in the temporary folder,
    /// bounded by `bound` when the grader can.
    pub fn new(prefix: &str, bound: &DiskBound) -> io::Result<Scratch> {
        let dir = tempfile::Builder::new().prefix(prefix).tempdir()?;
        let (bound, mounted, watched) = match super::isolation().disk {
            Some(DiskMount::Watched) => {
                let reached = Arc::new(OnceLock::new());
                let mut watched = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
                watched.push(Watch {
                    folder: dir.path().to_path_buf(),
                    bound: *bound,
                    reached: Arc::clone(&reached),
                });
                (Some(*bound), false, Some(reached))
            }
            Some(_) => {
                mount_tmpfs(dir.path(), bound)?;
                (Some(*bound), true, None)
            }
            None => (None, false, None),
        };
        Ok(Scratch {
            dir,
            bound,
            mounted,
            watched,
        })
    }

    /// Whether the folder is a filesystem of its own (a bounded tmpfs):
    /// full there is its bound; otherwise it is on the grader's disk.
    pub fn mounted(&self) -> bool {
        self.mounted
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The bound in force (`None`: this grader cannot bound folders).
    pub fn bound(&self) -> Option<DiskBound> {
        self.bound
    }

    /// What the folder holds now.
    pub fn usage(&self) -> Option<DiskUse> {
        self.bound?;
        if !self.mounted {
            return Some(count(self.path()));
        }
        let stat = nix::sys::statvfs::statvfs(self.path()).ok()?;
        let block = stat.fragment_size().max(1);
        let total_files = stat.files().saturating_sub(1);
        Some(DiskUse {
            bytes: (stat.blocks() - stat.blocks_free()).saturating_mul(block),
            files: total_files.saturating_sub(stat.files_free()),
        })
    }

    /// The folder is at its bound (bytes or files): a write the program
    /// made may have failed for it. Looked at after the run, to say why it
    /// failed; the bound itself was kept by the kernel all along (a
    /// watched folder: by the watch, and then it is what the watch counted
    /// when it ended a sandbox, unlinked files held open included).
    pub fn reached(&self) -> Option<DiskReached> {
        let bound = self.bound?;
        if let Some(&used) = self.watched.as_ref().and_then(|w| w.get()) {
            return Some(DiskReached { bound, used });
        }
        let used = self.usage()?;
        let full =
            used.bytes.saturating_add(FULL_SLACK) >= bound.bytes || used.files >= bound.files;
        full.then_some(DiskReached { bound, used })
    }
}

/// Free space below which a folder counts as full: a write of a few pages
/// no longer fits.
const FULL_SLACK: u64 = 64 << 10;

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.mounted {
            unmount(self.dir.path());
        } else {
            if self.bound.is_some() {
                let mut watched = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
                watched.retain(|watch| watch.folder != self.dir.path());
            }
            // On the grader's own disk, what the run wrote is still there:
            // the last moment the grader can see that disk full under it
            // (once removed, the room is back).
            super::headroom::note_full_disk(self.dir.path());
        }
        // The `TempDir` then removes the folder, empty once unmounted.
    }
}

/// What a bounded folder holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskUse {
    pub bytes: u64,
    pub files: u64,
}

/// A folder found at its bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskReached {
    pub bound: DiskBound,
    pub used: DiskUse,
}

impl DiskReached {
    /// `<whose> folder reached the disk bound (64 MiB, 4096 files): 64 MiB
    /// in 5 files`.
    pub fn describe(&self, whose: &str) -> String {
        let files = match self.used.files {
            1 => "1 file".to_string(),
            n => format!("{n} files"),
        };
        format!(
            "{whose} folder reached the disk bound ({}): {} in {files}",
            self.bound,
            mebibytes(self.used.bytes),
        )
    }
}

impl std::fmt::Display for DiskReached {
    /// [`DiskReached::describe`] of `its` folder (the program's).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe("its"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_what_reached_them_read_as_sizes_and_counts() {
        assert_eq!(DiskBound::default().to_string(), "64 MiB, 4096 files");
        let reached = DiskReached {
            bound: DiskBound {
                bytes: 4 << 20,
                files: 10,
            },
            used: DiskUse {
                bytes: (4 << 20) - 4096,
                files: 3,
            },
        };
        assert_eq!(
            reached.to_string(),
            "its folder reached the disk bound (4 MiB, 10 files): 4.0 MiB in 3 files"
        );
    }

    /// A bounded folder refuses a write past its bytes and a file past its
    /// count (ENOSPC), says it reached its bound, keeps its files until
    /// dropped, and is gone after.
    #[test]
    fn a_scratch_folder_holds_its_bound_and_no_more() {
        if super::super::isolation().disk.is_none() {
            eprintln!("skipping: this grader cannot mount a tmpfs (not root, no namespace)");
            return;
        }
        let bound = DiskBound {
            bytes: 1 << 20,
            files: 8,
        };
        let scratch = Scratch::new("chessgrade-test-", &bound).unwrap();
        assert_eq!(scratch.reached(), None);
        let big = scratch.path().join("big");
        let error = std::fs::write(&big, vec![1u8; 2 << 20]).unwrap_err();
        assert_eq!(error.raw_os_error(), Some(nix::libc::ENOSPC));
        let reached = scratch.reached().expect("at its bytes");
        assert_eq!(reached.used.files, 1);
        std::fs::remove_file(&big).unwrap();
        assert_eq!(scratch.reached(), None, "room again");
        let mut made = 0;
        let error = loop {
            match std::fs::write(scratch.path().join(format!("f{made}")), "") {
                Ok(()) => made += 1,
                Err(e) => break e,
            }
        };
        assert_eq!(error.raw_os_error(), Some(nix::libc::ENOSPC));
        assert_eq!(made, 8);
        assert_eq!(scratch.reached().map(|r| r.used.files), Some(8));
        let path = scratch.path().to_path_buf();
        drop(scratch);
        assert!(!path.exists());
    }
}
