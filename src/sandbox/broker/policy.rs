//! Where a brokered sandbox may go: the same places Landlock would let it
//! (docs/grading.md, "Confinement"), said as real paths.
//!
//! Every decision is made on the real path of the object a call reached
//! (what the kernel says an open descriptor is, `/proc/self/fd/<n>`),
//! never on the text the sandbox passed: whatever links, `..` or
//! concurrent renames the path went through, the object it ended on is
//! what is judged.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// What a sandbox may reach, fixed when it is started.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Read (and run) beneath these: the system, the folders its command
    /// names.
    read: Vec<PathBuf>,
    /// Read and write these devices (exactly these paths).
    devices: Vec<PathBuf>,
    /// Read, write, make and remove beneath (and in) this folder.
    workdir: PathBuf,
    /// The folders on the way to the places above (`/`, `/tmp`, ...):
    /// their own metadata may be looked at (a `stat`, a `readlink`), as a
    /// program that makes a path absolute does, and nothing in them.
    passes: HashSet<PathBuf>,
    /// Open its own `/proc/<pid>` (a checked run's sanitizer or valgrind
    /// reads its memory map there); its metadata (`/proc/self/exe`) is
    /// always the process's to read.
    own_proc: bool,
}

/// Where a real path lies for one calling thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Beneath the sandbox's own folder, or a device it may write.
    Writable,
    /// Beneath a folder it may read and run programs from.
    Readable,
    /// The caller's own `/proc/<pid>` (or its thread's).
    OwnProc,
    /// A folder on the way to one of the above.
    Passage,
    /// Anywhere else.
    Outside,
}

/// The calling thread, as `/proc` names it.
#[derive(Clone, Copy, Debug)]
pub struct Caller {
    pub tid: i32,
    pub tgid: i32,
}

/// `path` and each of its existing ancestors, made real (links followed):
/// what a descriptor's real path is compared against. A path that does not
/// exist is kept as given.
fn real(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

impl Policy {
    /// The places of a sandbox: `read` (the system roots and its
    /// command's folders), `devices`, its `workdir`.
    pub fn new(read: &[PathBuf], devices: &[PathBuf], workdir: &Path, own_proc: bool) -> Policy {
        let read: Vec<PathBuf> = read
            .iter()
            .filter(|p| p.exists())
            .map(|p| real(p))
            .collect();
        let devices: Vec<PathBuf> = devices.iter().map(|p| real(p)).collect();
        let workdir = real(workdir);
        let mut passes = HashSet::new();
        for place in read.iter().chain(&devices).chain(std::iter::once(&workdir)) {
            for up in place.ancestors().skip(1) {
                passes.insert(up.to_path_buf());
            }
        }
        Policy {
            read,
            devices,
            workdir,
            passes,
            own_proc,
        }
    }

    /// The sandbox's own folder, real.
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// May the caller open its own `/proc/<pid>` files?
    pub fn own_proc(&self) -> bool {
        self.own_proc
    }

    /// Where `real` (a descriptor's real path) lies for the calling thread
    /// `caller` names (asked only for a path beneath `/proc`).
    pub fn place(&self, real: &Path, caller: impl FnOnce() -> Caller) -> Place {
        if real.starts_with(&self.workdir) || self.devices.iter().any(|d| d == real) {
            return Place::Writable;
        }
        if self.read.iter().any(|r| real.starts_with(r)) {
            return Place::Readable;
        }
        if real.starts_with("/proc") {
            let caller = caller();
            let own = |pid: i32| real.starts_with(Path::new("/proc").join(pid.to_string()));
            if own(caller.tgid) || own(caller.tid) {
                return Place::OwnProc;
            }
        }
        if self.passes.contains(real) {
            return Place::Passage;
        }
        Place::Outside
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_place_is_told_by_its_real_path() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        let program = dir.path().join("build");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(&program).unwrap();
        let policy = Policy::new(
            &[
                PathBuf::from("/usr"),
                program.clone(),
                PathBuf::from("/nope"),
            ],
            &[PathBuf::from("/dev/null")],
            &work,
            false,
        );
        let me = Caller { tid: 41, tgid: 40 };
        let place = |p: &Path| policy.place(p, || me);
        let dir = dir.path().canonicalize().unwrap();
        assert_eq!(place(&dir.join("work/a/b")), Place::Writable);
        assert_eq!(place(&dir.join("work")), Place::Writable);
        assert_eq!(place(Path::new("/dev/null")), Place::Writable);
        assert_eq!(place(Path::new("/dev/zero")), Place::Outside);
        assert_eq!(place(Path::new("/usr/lib/x")), Place::Readable);
        assert_eq!(place(&dir.join("build/prog")), Place::Readable);
        // A sibling whose name starts the same is not beneath it.
        assert_eq!(place(&dir.join("builder/prog")), Place::Outside);
        assert_eq!(place(&dir.join("workshop")), Place::Outside);
        assert_eq!(place(Path::new("/proc/40/maps")), Place::OwnProc);
        assert_eq!(place(Path::new("/proc/41/exe")), Place::OwnProc);
        assert_eq!(place(Path::new("/proc/4/maps")), Place::Outside);
        assert_eq!(place(Path::new("/proc/400/maps")), Place::Outside);
        assert_eq!(place(Path::new("/")), Place::Passage);
        assert_eq!(place(&dir), Place::Passage);
        assert_eq!(place(&dir.join("snapshots")), Place::Outside);
        assert_eq!(place(Path::new("/etc/passwd")), Place::Outside);
    }
}
