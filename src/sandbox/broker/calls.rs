//! What the broker does with each call a sandboxed thread is blocked in.
//!
//! A call that takes a path is never let through as it is: what a path
//! pointer points at can be changed by another thread of the sandbox
//! between the broker's look and the kernel's. So the broker reads the
//! path once, opens what it names itself (`openat2`, magic links refused,
//! as the sandbox's uid), judges the object it reached by its real path
//! ([`Policy::place`]), and then does the call's work on that object:
//! an open gets the broker's descriptor put into the thread
//! (`SECCOMP_IOCTL_NOTIF_ADDFD`); a `stat` or `readlink` gets the result
//! written into its buffer; a change (make, remove, rename, link, chmod,
//! times) is made by the broker on a folder it checked, beneath the
//! sandbox's own. Calls whose arguments are all in registers (a signal's
//! pid, a `setpgid`) are checked and let through: nothing the sandbox can
//! change afterwards decides what they do.
//!
//! Two calls are let through after a look at a path. `chdir`: a working
//! folder grants nothing (every path relative to it is brokered and judged
//! by what it reaches). And `execve`: the broker cannot run a program for
//! the thread. What it runs gets no more files
//! than the sandbox (every open is still brokered), and a program outside
//! the places it may run from, reached by racing the look, is ended at its
//! first brokered call (a dynamically linked program's loader opens its
//! libraries before `main`).

use super::kernel::{Call, Memory, Reply};
use super::policy::{Caller, Place, Policy};
use nix::libc;
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::PathBuf;

/// An errno, the way every handler fails.
type Res<T> = Result<T, i32>;

/// What one broker knows while it answers calls.
pub(super) struct Broker {
    pub policy: Policy,
    /// Paths are brokered (no Landlock here).
    pub files: bool,
    /// Signals and process calls are brokered (no Landlock scoping, no
    /// uid of its own).
    pub signals: bool,
    /// `CHESSGRADE_SANDBOX=<token>`, as in `/proc/<pid>/environ`.
    pub marker: Vec<u8>,
}

/// Opens `path` relative to `dir` with `openat2`.
fn openat2(dir: RawFd, path: &[u8], flags: i32, mode: u64, resolve: u64) -> Res<OwnedFd> {
    let path = CString::new(path).map_err(|_| libc::EINVAL)?;
    // SAFETY: a zeroed open_how is valid (no flags, mode or resolve).
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (flags | libc::O_CLOEXEC) as u64;
    how.mode = mode;
    how.resolve = resolve;
    // SAFETY: a NUL-terminated path and an `open_how` that outlive the call.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir,
            path.as_ptr(),
            &how as *const libc::open_how,
            size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        return Err(errno());
    }
    // SAFETY: the kernel just gave us this descriptor.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

fn errno() -> i32 {
    std::io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

/// `/proc/self/fd/<n>` of the broker: the object `fd` holds, by a path.
fn magic(fd: &OwnedFd) -> CString {
    CString::new(format!("/proc/self/fd/{}", fd.as_raw_fd())).expect("no NUL")
}

/// The real path of what `fd` holds.
fn real_path(fd: &OwnedFd) -> Res<PathBuf> {
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).map_err(|_| libc::EACCES)
}

/// The result of a plain system call: 0, or its errno.
fn done(result: libc::c_int) -> Reply {
    match result {
        0 => Reply::Value(0),
        _ => Reply::Errno(errno()),
    }
}

/// Splits a path at its last component: `a/b/` is (`a`, `b/`), `b` is
/// (`.`, `b`), `/b` is (`/`, `b`); a trailing slash stays with the name.
fn split(path: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let trimmed = path.len() - path.iter().rev().take_while(|&&b| b == b'/').count();
    match path[..trimmed].iter().rposition(|&b| b == b'/') {
        None => (b".".to_vec(), path.to_vec()),
        Some(0) => (b"/".to_vec(), path[1..].to_vec()),
        Some(i) => (path[..i].to_vec(), path[i + 1..].to_vec()),
    }
}

/// One call, as the broker works on it.
struct Ctx<'a> {
    broker: &'a Broker,
    call: Call,
    mem: Memory,
    tgid: std::cell::OnceCell<i32>,
}

impl Ctx<'_> {
    fn arg(&self, i: usize) -> u64 {
        self.call.args[i]
    }

    /// An `int` argument (a descriptor, a pid, flags).
    fn int(&self, i: usize) -> i32 {
        self.call.args[i] as i32
    }

    fn caller(&self) -> Caller {
        Caller {
            tid: self.call.tid,
            tgid: *self.tgid.get_or_init(|| tgid_of(self.call.tid)),
        }
    }

    fn place(&self, real: &std::path::Path) -> Place {
        self.broker.policy.place(real, || self.caller())
    }

    /// The path at argument `i` (`None` for a null pointer).
    fn path(&self, i: usize) -> Res<Option<Vec<u8>>> {
        match self.arg(i) {
            0 => Ok(None),
            addr => self.mem.string(addr).map(Some),
        }
    }

    /// `/proc/self` and `/proc/thread-self` of the calling thread, for
    /// paths that start with them (the broker's own `/proc/self` is the
    /// grader's; any other way to it reaches the grader's, which is
    /// refused as outside).
    fn own_proc_path(&self, path: Vec<u8>) -> Vec<u8> {
        // The caller's ids only for a path of `/proc` (read from there).
        if !path.starts_with(b"/proc/") {
            return path;
        }
        let Caller { tid, tgid } = self.caller();
        for (prefix, with) in [
            (
                &b"/proc/thread-self"[..],
                format!("/proc/{tgid}/task/{tid}"),
            ),
            (&b"/proc/self"[..], format!("/proc/{tgid}")),
        ] {
            if let Some(rest) = path.strip_prefix(prefix)
                && (rest.is_empty() || rest[0] == b'/')
            {
                let mut out = with.into_bytes();
                out.extend_from_slice(rest);
                return out;
            }
        }
        path
    }

    /// Whether `path` (with `/proc/self` made the caller's) is exactly the
    /// caller's own `/proc/<pid>/exe` or its thread's.
    fn own_exe(&self, path: &[u8]) -> bool {
        let Caller { tid, tgid } = self.caller();
        path == format!("/proc/{tgid}/exe").as_bytes()
            || path == format!("/proc/{tgid}/task/{tid}/exe").as_bytes()
    }

    /// The object the calling thread's descriptor `fd` holds (its working
    /// folder for `AT_FDCWD`), by way of its `/proc/<tid>`.
    fn fd_object(&self, fd: i32) -> Res<OwnedFd> {
        let tid = self.call.tid;
        let path = match fd {
            libc::AT_FDCWD => format!("/proc/{tid}/cwd"),
            fd if fd >= 0 => format!("/proc/{tid}/fd/{fd}"),
            _ => return Err(libc::EBADF),
        };
        let fd = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_PATH)
            .open(path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ENOENT) => libc::EBADF,
                _ => libc::EACCES,
            })?;
        Ok(fd.into())
    }

    /// What `path` (relative to the thread's `dirfd`) leads to, as an
    /// `O_PATH` descriptor, with its real path: resolved as the kernel
    /// would for the thread, magic links refused, the last link followed
    /// when `follow`; `extra` resolve flags of the thread's own
    /// (`openat2`'s). An empty path with `empty` is `dirfd` itself.
    fn lookup(
        &self,
        dirfd: i32,
        path: &[u8],
        follow: bool,
        extra: u64,
        empty: bool,
    ) -> Res<(OwnedFd, PathBuf)> {
        let object = if path.is_empty() {
            if !empty {
                return Err(libc::ENOENT);
            }
            self.fd_object(dirfd)?
        } else {
            let path = self.own_proc_path(path.to_vec());
            // An absolute path starts at `/` (the same for the thread and
            // the broker) unless `openat2`'s flags root it at `dirfd`.
            let rooted = extra & (libc::RESOLVE_BENEATH | libc::RESOLVE_IN_ROOT) != 0;
            let base = match (path.first(), rooted) {
                (Some(b'/'), false) => None,
                _ => Some(self.fd_object(dirfd)?),
            };
            let dir = base.as_ref().map_or(libc::AT_FDCWD, |b| b.as_raw_fd());
            let mut flags = libc::O_PATH;
            if !follow {
                flags |= libc::O_NOFOLLOW;
            }
            // One magic link is followed: a checked process's own
            // `/proc/<pid>/exe` (a sanitizer reads its program's debug
            // information there), whose object is then judged by its real
            // path like any other.
            let magic = match follow && self.broker.policy.own_proc() && self.own_exe(&path) {
                true => 0,
                false => libc::RESOLVE_NO_MAGICLINKS,
            };
            openat2(dir, &path, flags, 0, magic | extra)?
        };
        let real = real_path(&object)?;
        Ok((object, real))
    }

    /// [`Ctx::lookup`] where the object's metadata may be looked at (any
    /// place but outside): a `stat`, an `access`, a `readlink`.
    fn look(&self, dirfd: i32, path: &[u8], follow: bool, empty: bool) -> Res<(OwnedFd, Place)> {
        let (object, real) = self.lookup(dirfd, path, follow, 0, empty)?;
        if path.is_empty() {
            // The thread's own descriptor: fd-based calls reach it anyway.
            return Ok((object, Place::Writable));
        }
        match self.place(&real) {
            Place::Outside => Err(libc::EACCES),
            place => Ok((object, place)),
        }
    }

    /// The folder `path`'s last component is in, which must be the
    /// sandbox's own folder or beneath it, and that component's name.
    fn parent(&self, dirfd: i32, path: &[u8]) -> Res<(OwnedFd, Vec<u8>)> {
        let (parent, name) = split(path);
        let (dir, real) = self.lookup(dirfd, &parent, true, 0, false)?;
        if !real.starts_with(self.broker.policy.workdir()) {
            return Err(libc::EACCES);
        }
        Ok((dir, name))
    }

    /// The object `path` leads to, which must be the sandbox's own folder
    /// or beneath it (a chmod, a chown, new times, a truncation).
    fn own_object(&self, dirfd: i32, path: &[u8], follow: bool, empty: bool) -> Res<OwnedFd> {
        let (object, real) = self.lookup(dirfd, path, follow, 0, empty)?;
        if !path.is_empty() && !real.starts_with(self.broker.policy.workdir()) {
            return Err(libc::EACCES);
        }
        Ok(object)
    }
}

/// The thread group (process) of thread `tid`, from its status (itself
/// when unreadable: then nothing of `/proc` is its own but that).
fn tgid_of(tid: i32) -> i32 {
    std::fs::read_to_string(format!("/proc/{tid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Tgid:"))
                .and_then(|n| n.trim().parse().ok())
        })
        .unwrap_or(tid)
}

use std::os::unix::fs::OpenOptionsExt;

/// A `name` that is `.`, `..` or empty: no entry of its folder to make,
/// remove or rename.
fn not_an_entry(name: &[u8]) -> bool {
    let name = name.strip_suffix(b"/").unwrap_or(name);
    matches!(name, b"" | b"." | b"..")
}

impl Broker {
    /// The answer to `call`: `mem` is the thread's memory, opened before
    /// the call was checked to be still waiting.
    pub(super) fn answer(&self, call: Call, mem: Memory) -> Reply {
        let ctx = Ctx {
            broker: self,
            call,
            mem,
            tgid: std::cell::OnceCell::new(),
        };
        let result = match call.nr {
            nr if self.files && is_path_call(nr) => self.path_call(&ctx),
            nr if self.signals && is_process_call(nr) => self.process_call(&ctx),
            _ => Err(libc::ENOSYS),
        };
        result.unwrap_or_else(Reply::Errno)
    }

    // The C library's names for the system calls, matched as they are.
    #[allow(non_upper_case_globals)]
    fn path_call(&self, c: &Ctx) -> Res<Reply> {
        use libc::*;
        let path = |i: usize| -> Res<Vec<u8>> { c.path(i)?.ok_or(EFAULT) };
        let at = |i: usize| c.int(i);
        match c.call.nr {
            SYS_open => self.open(c, AT_FDCWD, &path(0)?, c.int(1), c.arg(2), 0),
            SYS_creat => self.open(
                c,
                AT_FDCWD,
                &path(0)?,
                O_CREAT | O_WRONLY | O_TRUNC,
                c.arg(1),
                0,
            ),
            SYS_openat => self.open(c, at(0), &path(1)?, c.int(2), c.arg(3), 0),
            SYS_openat2 => {
                let size = c.arg(3) as usize;
                if size < size_of::<open_how>() {
                    return Err(EINVAL);
                }
                let mut raw = [0u8; size_of::<open_how>()];
                c.mem.read(c.arg(2), &mut raw).map_err(|_| EFAULT)?;
                let field =
                    |i: usize| u64::from_ne_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap());
                let (flags, mode, resolve) = (field(0), field(1), field(2));
                self.open(c, at(0), &path(1)?, flags as i32, mode, resolve)
            }
            SYS_stat => self.stat(c, AT_FDCWD, path(0)?, c.arg(1), 0),
            SYS_lstat => self.stat(c, AT_FDCWD, path(0)?, c.arg(1), AT_SYMLINK_NOFOLLOW),
            SYS_newfstatat => {
                let p = c.path(1)?.unwrap_or_default();
                self.stat(c, at(0), p, c.arg(2), c.int(3))
            }
            SYS_statx => {
                let p = c.path(1)?.unwrap_or_default();
                self.statx(c, at(0), p, c.int(2), c.arg(3) as u32, c.arg(4))
            }
            SYS_statfs => {
                let (object, _) = c.look(AT_FDCWD, &path(0)?, true, false)?;
                // SAFETY: a zeroed statfs is valid; fstatfs fills it.
                let mut buf: statfs = unsafe { std::mem::zeroed() };
                // SAFETY: an open descriptor and a buffer of the right size.
                if unsafe { fstatfs(object.as_raw_fd(), &mut buf) } != 0 {
                    return Err(errno());
                }
                c.mem.write(c.arg(1), bytes_of(&buf))?;
                Ok(Reply::Value(0))
            }
            SYS_access => self.access(c, AT_FDCWD, &path(0)?, c.int(1), 0),
            SYS_faccessat => self.access(c, at(0), &path(1)?, c.int(2), 0),
            SYS_faccessat2 => self.access(c, at(0), &path(1)?, c.int(2), c.int(3)),
            SYS_readlink => self.readlink(c, AT_FDCWD, &path(0)?, c.arg(1), c.arg(2)),
            SYS_readlinkat => self.readlink(c, at(0), &path(1)?, c.arg(2), c.arg(3)),
            SYS_mkdir | SYS_mkdirat | SYS_mknod | SYS_mknodat => {
                let (dir_fd, p, mode, dev) = match c.call.nr {
                    SYS_mkdir => (AT_FDCWD, path(0)?, c.arg(1), None),
                    SYS_mkdirat => (at(0), path(1)?, c.arg(2), None),
                    SYS_mknod => (AT_FDCWD, path(0)?, c.arg(1), Some(c.arg(2))),
                    _ => (at(0), path(1)?, c.arg(2), Some(c.arg(3))),
                };
                // No device node, whatever the broker's capabilities: a
                // node of the machine's disk in its folder would be a way
                // around every rule here.
                if dev.is_some() && matches!(mode as mode_t & S_IFMT, S_IFCHR | S_IFBLK) {
                    return Err(EPERM);
                }
                let (dir, name) = c.parent(dir_fd, &p)?;
                if not_an_entry(&name) {
                    return Err(EEXIST);
                }
                let name = CString::new(name).map_err(|_| EINVAL)?;
                // SAFETY: an open folder and a NUL-terminated name.
                Ok(done(unsafe {
                    match dev {
                        None => mkdirat(dir.as_raw_fd(), name.as_ptr(), mode as mode_t),
                        Some(dev) => mknodat(dir.as_raw_fd(), name.as_ptr(), mode as mode_t, dev),
                    }
                }))
            }
            SYS_unlink | SYS_unlinkat | SYS_rmdir => {
                let (dir_fd, p, flags) = match c.call.nr {
                    SYS_unlink => (AT_FDCWD, path(0)?, 0),
                    SYS_rmdir => (AT_FDCWD, path(0)?, AT_REMOVEDIR),
                    _ => (at(0), path(1)?, c.int(2)),
                };
                let (dir, name) = c.parent(dir_fd, &p)?;
                if not_an_entry(&name) {
                    return Err(EBUSY);
                }
                let name = CString::new(name).map_err(|_| EINVAL)?;
                // SAFETY: an open folder and a NUL-terminated name.
                Ok(done(unsafe {
                    unlinkat(dir.as_raw_fd(), name.as_ptr(), flags & AT_REMOVEDIR)
                }))
            }
            SYS_symlink | SYS_symlinkat => {
                let (target, dir_fd, p) = match c.call.nr {
                    SYS_symlink => (path(0)?, AT_FDCWD, path(1)?),
                    _ => (path(0)?, at(1), path(2)?),
                };
                let (dir, name) = c.parent(dir_fd, &p)?;
                if not_an_entry(&name) {
                    return Err(EEXIST);
                }
                let (target, name) = (
                    CString::new(target).map_err(|_| EINVAL)?,
                    CString::new(name).map_err(|_| EINVAL)?,
                );
                // SAFETY: NUL-terminated strings and an open folder.
                Ok(done(unsafe {
                    symlinkat(target.as_ptr(), dir.as_raw_fd(), name.as_ptr())
                }))
            }
            SYS_link | SYS_linkat => {
                let (olddir, old, newdir, new, flags) = match c.call.nr {
                    SYS_link => (AT_FDCWD, path(0)?, AT_FDCWD, path(1)?, 0),
                    _ => (at(0), path(1)?, at(2), path(3)?, c.int(4)),
                };
                if flags & AT_EMPTY_PATH != 0 {
                    return Err(EPERM);
                }
                // The object linked, after its last link when asked: it
                // must be the sandbox's own already.
                let object = c.own_object(olddir, &old, flags & AT_SYMLINK_FOLLOW != 0, false)?;
                let (dir, name) = c.parent(newdir, &new)?;
                if not_an_entry(&name) {
                    return Err(EEXIST);
                }
                let name = CString::new(name).map_err(|_| EINVAL)?;
                // SAFETY: NUL-terminated paths and an open folder.
                Ok(done(unsafe {
                    linkat(
                        AT_FDCWD,
                        magic(&object).as_ptr(),
                        dir.as_raw_fd(),
                        name.as_ptr(),
                        AT_SYMLINK_FOLLOW,
                    )
                }))
            }
            SYS_rename | SYS_renameat | SYS_renameat2 => {
                let (olddir, old, newdir, new, flags) = match c.call.nr {
                    SYS_rename => (AT_FDCWD, path(0)?, AT_FDCWD, path(1)?, 0),
                    SYS_renameat => (at(0), path(1)?, at(2), path(3)?, 0),
                    _ => (at(0), path(1)?, at(2), path(3)?, c.arg(4) as u32),
                };
                let (from, from_name) = c.parent(olddir, &old)?;
                let (to, to_name) = c.parent(newdir, &new)?;
                if not_an_entry(&from_name) || not_an_entry(&to_name) {
                    return Err(EBUSY);
                }
                let (from_name, to_name) = (
                    CString::new(from_name).map_err(|_| EINVAL)?,
                    CString::new(to_name).map_err(|_| EINVAL)?,
                );
                // SAFETY: open folders and NUL-terminated names.
                Ok(done(unsafe {
                    syscall(
                        SYS_renameat2,
                        from.as_raw_fd(),
                        from_name.as_ptr(),
                        to.as_raw_fd(),
                        to_name.as_ptr(),
                        flags,
                    ) as c_int
                }))
            }
            SYS_chmod | SYS_fchmodat | SYS_fchmodat2 => {
                let (dir_fd, p, mode, flags) = match c.call.nr {
                    SYS_chmod => (AT_FDCWD, path(0)?, c.arg(1), 0),
                    SYS_fchmodat => (at(0), path(1)?, c.arg(2), 0),
                    _ => (at(0), c.path(1)?.unwrap_or_default(), c.arg(2), c.int(3)),
                };
                let follow = flags & AT_SYMLINK_NOFOLLOW == 0;
                let object = c.own_object(dir_fd, &p, follow, flags & AT_EMPTY_PATH != 0)?;
                if !follow && is_link(&object) {
                    return Err(EOPNOTSUPP);
                }
                // SAFETY: a NUL-terminated path.
                Ok(done(unsafe {
                    chmod(magic(&object).as_ptr(), mode as mode_t)
                }))
            }
            SYS_chown | SYS_lchown | SYS_fchownat => {
                let (dir_fd, p, uid, gid, flags) = match c.call.nr {
                    SYS_chown => (AT_FDCWD, path(0)?, c.arg(1), c.arg(2), 0),
                    SYS_lchown => (AT_FDCWD, path(0)?, c.arg(1), c.arg(2), AT_SYMLINK_NOFOLLOW),
                    _ => (
                        at(0),
                        c.path(1)?.unwrap_or_default(),
                        c.arg(2),
                        c.arg(3),
                        c.int(4),
                    ),
                };
                let follow = flags & AT_SYMLINK_NOFOLLOW == 0;
                let object = c.own_object(dir_fd, &p, follow, flags & AT_EMPTY_PATH != 0)?;
                // SAFETY: an open descriptor and an empty, NUL-terminated path.
                Ok(done(unsafe {
                    fchownat(
                        object.as_raw_fd(),
                        c"".as_ptr(),
                        uid as uid_t,
                        gid as gid_t,
                        AT_EMPTY_PATH,
                    )
                }))
            }
            SYS_truncate => {
                let object = c.own_object(AT_FDCWD, &path(0)?, true, false)?;
                // SAFETY: a NUL-terminated path.
                Ok(done(unsafe {
                    truncate(magic(&object).as_ptr(), c.arg(1) as off_t)
                }))
            }
            SYS_utime | SYS_utimes | SYS_futimesat | SYS_utimensat => self.times(c),
            SYS_chdir => {
                // A working folder grants nothing: every path relative to
                // it is brokered and judged by the object it reaches. So
                // the look (no working folder outside the sandbox's places
                // and the folders on the way to them) is let through
                // after it, as Landlock lets any `chdir` through.
                let (_, real) = c.lookup(AT_FDCWD, &path(0)?, true, 0, false)?;
                match c.place(&real) {
                    Place::Outside => Err(EACCES),
                    _ => Ok(Reply::Continue),
                }
            }
            SYS_execve | SYS_execveat => {
                let (dir_fd, p, flags) = match c.call.nr {
                    SYS_execve => (AT_FDCWD, path(0)?, 0),
                    _ => (at(0), c.path(1)?.unwrap_or_default(), c.int(4)),
                };
                let follow = flags & AT_SYMLINK_NOFOLLOW == 0;
                let (_, real) = c.lookup(dir_fd, &p, follow, 0, flags & AT_EMPTY_PATH != 0)?;
                match c.place(&real) {
                    Place::Readable | Place::Writable => Ok(Reply::Continue),
                    _ => Err(EACCES),
                }
            }
            _ => Err(ENOSYS),
        }
    }

    /// `open`, `openat`, `openat2`, `creat`.
    fn open(
        &self,
        c: &Ctx,
        dir_fd: i32,
        path: &[u8],
        flags: i32,
        mode: u64,
        resolve: u64,
    ) -> Res<Reply> {
        use libc::*;
        let cloexec = flags & O_CLOEXEC != 0;
        let flags = flags & !O_CLOEXEC;
        let tmpfile = flags & O_TMPFILE == O_TMPFILE;
        let writes = flags & O_ACCMODE != O_RDONLY || flags & (O_CREAT | O_TRUNC) != 0 || tmpfile;
        if !self.runs_from_its_places(c) {
            return Err(EACCES);
        }
        if flags & O_CREAT != 0 && !tmpfile {
            // The file may not exist yet: its folder must be the
            // sandbox's, and its name may not lead out of that folder.
            // Opened without blocking (an existing FIFO would wait for a
            // peer, the broker with it); a FIFO opened that way is told
            // apart, and is the one case whose open does not wait.
            let (dir, name) = c.parent(dir_fd, path)?;
            let file = openat2(
                dir.as_raw_fd(),
                &name,
                flags | O_NONBLOCK,
                mode,
                resolve | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
            )?;
            if flags & O_NONBLOCK == 0 {
                // SAFETY: an open descriptor.
                unsafe { fcntl(file.as_raw_fd(), F_SETFL, flags & !O_NONBLOCK & !O_ACCMODE) };
            }
            return Ok(Reply::Fd(file, cloexec));
        }
        let follow = flags & O_NOFOLLOW == 0;
        let (object, real) = c.lookup(dir_fd, path, follow, resolve, false)?;
        let place = c.place(&real);
        let allowed = match place {
            Place::Writable => true,
            Place::Readable => !writes,
            Place::OwnProc => !writes && self.policy.own_proc(),
            Place::Passage => flags & O_PATH != 0,
            Place::Outside => false,
        };
        if !allowed {
            return Err(EACCES);
        }
        if flags & O_PATH != 0 {
            return Ok(Reply::Fd(object, cloexec));
        }
        let meta = stat_of(&object)?;
        let kind = meta.st_mode & S_IFMT;
        if !follow && kind == S_IFLNK {
            return Err(ELOOP);
        }
        if flags & O_DIRECTORY != 0 && kind != S_IFDIR {
            return Err(ENOTDIR);
        }
        let reopen = flags & !(O_NOFOLLOW | O_EXCL);
        if kind == S_IFIFO && flags & O_NONBLOCK == 0 && flags & O_ACCMODE != O_RDWR {
            return Ok(Reply::Wait(object, reopen, cloexec));
        }
        // SAFETY: a NUL-terminated path.
        let fd = unsafe { libc::open(magic(&object).as_ptr(), reopen | O_CLOEXEC, mode as c_uint) };
        if fd < 0 {
            return Err(errno());
        }
        // SAFETY: the kernel just gave us this descriptor.
        Ok(Reply::Fd(unsafe { OwnedFd::from_raw_fd(fd) }, cloexec))
    }

    /// Whether the calling process runs a program from a place it may run
    /// programs from; one that does not (an `execve` that raced the
    /// broker's look) is killed and gets nothing more.
    fn runs_from_its_places(&self, c: &Ctx) -> bool {
        let exe = std::fs::read_link(format!("/proc/{}/exe", c.call.tid));
        let ok = exe.is_ok_and(|exe| matches!(c.place(&exe), Place::Readable | Place::Writable));
        if !ok {
            kill_process(c.caller().tgid);
        }
        ok
    }

    fn stat(&self, c: &Ctx, dir_fd: i32, path: Vec<u8>, buf: u64, flags: i32) -> Res<Reply> {
        use libc::*;
        let follow = flags & AT_SYMLINK_NOFOLLOW == 0;
        let (object, _) = c.look(dir_fd, &path, follow, flags & AT_EMPTY_PATH != 0)?;
        let meta = stat_of(&object)?;
        c.mem.write(buf, bytes_of(&meta))?;
        Ok(Reply::Value(0))
    }

    fn statx(
        &self,
        c: &Ctx,
        dir_fd: i32,
        path: Vec<u8>,
        flags: i32,
        mask: u32,
        buf: u64,
    ) -> Res<Reply> {
        use libc::*;
        let follow = flags & AT_SYMLINK_NOFOLLOW == 0;
        let (object, _) = c.look(dir_fd, &path, follow, flags & AT_EMPTY_PATH != 0)?;
        // SAFETY: a zeroed statx is valid; the kernel fills it.
        let mut out: libc::statx = unsafe { std::mem::zeroed() };
        // SAFETY: an open descriptor, an empty path and a buffer of the
        // right size.
        let r = unsafe {
            libc::statx(
                object.as_raw_fd(),
                c"".as_ptr(),
                AT_EMPTY_PATH | (flags & AT_STATX_SYNC_TYPE),
                mask,
                &mut out,
            )
        };
        if r != 0 {
            return Err(errno());
        }
        c.mem.write(buf, bytes_of(&out))?;
        Ok(Reply::Value(0))
    }

    fn access(&self, c: &Ctx, dir_fd: i32, path: &[u8], mode: i32, flags: i32) -> Res<Reply> {
        use libc::*;
        let follow = flags & AT_SYMLINK_NOFOLLOW == 0;
        let (object, place) = c.look(dir_fd, path, follow, flags & AT_EMPTY_PATH != 0)?;
        let may = match place {
            Place::Writable => true,
            Place::Readable | Place::OwnProc => mode & W_OK == 0,
            Place::Passage | Place::Outside => mode & (R_OK | W_OK | X_OK) == 0,
        };
        if !may {
            return Err(EACCES);
        }
        // As the sandbox's uid: the broker's file-system identity.
        // SAFETY: an open descriptor and an empty, NUL-terminated path.
        Ok(done(unsafe {
            syscall(
                SYS_faccessat2,
                object.as_raw_fd(),
                c"".as_ptr(),
                mode,
                AT_EMPTY_PATH | AT_EACCESS,
            ) as c_int
        }))
    }

    fn readlink(&self, c: &Ctx, dir_fd: i32, path: &[u8], buf: u64, size: u64) -> Res<Reply> {
        use libc::*;
        if size as i64 <= 0 {
            return Err(EINVAL);
        }
        let (object, _) = c.look(dir_fd, path, false, true)?;
        if !is_link(&object) {
            return Err(EINVAL);
        }
        let mut text = vec![0u8; super::kernel::PATH_MAX];
        // SAFETY: an open descriptor, an empty path and a buffer of
        // PATH_MAX bytes.
        let n = unsafe {
            readlinkat(
                object.as_raw_fd(),
                c"".as_ptr(),
                text.as_mut_ptr().cast(),
                text.len(),
            )
        };
        if n < 0 {
            return Err(errno());
        }
        let n = (n as usize).min(size as usize);
        c.mem.write(buf, &text[..n])?;
        Ok(Reply::Value(n as i64))
    }

    /// `utime`, `utimes`, `futimesat`, `utimensat`: new times for an
    /// object of the sandbox's own folder (a descriptor's own, without a
    /// path, goes through as it is).
    #[allow(non_upper_case_globals)]
    fn times(&self, c: &Ctx) -> Res<Reply> {
        use libc::*;
        let (dir_fd, path_arg, times, flags) = match c.call.nr {
            SYS_utime | SYS_utimes => (AT_FDCWD, 0, c.arg(1), 0),
            SYS_futimesat => (c.int(0), 1, c.arg(2), 0),
            _ => (c.int(0), 1, c.arg(2), c.int(3)),
        };
        let Some(path) = c.path(path_arg)? else {
            // utimensat(fd, NULL, ...): the descriptor itself, in a register.
            return Ok(Reply::Continue);
        };
        let follow = flags & AT_SYMLINK_NOFOLLOW == 0;
        let object = c.own_object(dir_fd, &path, follow, flags & AT_EMPTY_PATH != 0)?;
        // The times as `utimensat` takes them (null: now).
        // The thread's `n` 64-bit words at `addr`.
        let words = |addr: u64, n: usize| -> Res<[i64; 4]> {
            let mut raw = [0u8; 32];
            c.mem.read(addr, &mut raw[..n * 8]).map_err(|_| EFAULT)?;
            Ok(std::array::from_fn(|i| {
                i64::from_ne_bytes(raw[i * 8..i * 8 + 8].try_into().expect("8 bytes"))
            }))
        };
        let spec: Option<[timespec; 2]> = match (times, c.call.nr) {
            (0, _) => None,
            // Two `time_t`s.
            (addr, SYS_utime) => {
                let w = words(addr, 2)?;
                Some([0, 1].map(|i| timespec {
                    tv_sec: w[i],
                    tv_nsec: 0,
                }))
            }
            // Two `timeval`s, then two `timespec`s.
            (addr, nr) => {
                let w = words(addr, 4)?;
                let scale = match nr {
                    SYS_utimes | SYS_futimesat => 1000,
                    _ => 1,
                };
                Some([0, 1].map(|i| timespec {
                    tv_sec: w[2 * i],
                    tv_nsec: w[2 * i + 1] * scale,
                }))
            }
        };
        let ptr = spec.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        // SAFETY: a NUL-terminated path and null or two timespecs.
        Ok(done(unsafe {
            utimensat(AT_FDCWD, magic(&object).as_ptr(), ptr, 0)
        }))
    }

    #[allow(non_upper_case_globals)]
    fn process_call(&self, c: &Ctx) -> Res<Reply> {
        use libc::*;
        let pid = c.int(0);
        let allowed = match c.call.nr {
            SYS_kill | SYS_rt_sigqueueinfo => match pid {
                0 => true,
                -1 => false,
                p if p < 0 => self.member(-p),
                p => self.member(p),
            },
            SYS_tkill | SYS_pidfd_open => self.member(pid),
            SYS_tgkill | SYS_rt_tgsigqueueinfo => pid == c.caller().tgid || self.member(pid),
            SYS_setpgid => {
                let group = c.int(1);
                let target_ok = pid == 0 || pid == c.caller().tgid || self.member(pid);
                let group_ok =
                    group == 0 || group == pid || group == c.caller().tgid || self.member(group);
                target_ok && group_ok
            }
            SYS_fcntl if c.int(1) != F_SETOWN => true,
            SYS_fcntl => match c.int(2) {
                0 => true,
                p if p < 0 => self.member(-p),
                p => self.member(p),
            },
            SYS_ptrace => match c.arg(0) as u32 {
                PTRACE_ATTACH | PTRACE_SEIZE => tgid_of(c.int(1)) == c.caller().tgid,
                _ => true,
            },
            _ => return Err(ENOSYS),
        };
        match allowed {
            true => Ok(Reply::Continue),
            false => Err(EPERM),
        }
    }

    /// Whether process `pid` is one of this sandbox's: it (or, for a
    /// process that has exited and is not reaped yet, its parent) carries
    /// the sandbox's marker.
    fn member(&self, pid: i32) -> bool {
        if pid <= 0 {
            return false;
        }
        let marked = |pid: i32| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|e| e == self.marker))
        };
        marked(pid) || parent_of(pid).is_some_and(marked)
    }
}

/// The parent of `pid`, from its stat line.
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    let close = stat.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(&stat[close + 1..]).ok()?;
    rest.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// SIGKILLs process `pid` (one of the sandbox's: it is blocked in a call
/// to this broker).
fn kill_process(pid: i32) {
    // SAFETY: plain system calls; the pidfd is closed at once.
    unsafe {
        let fd = libc::syscall(libc::SYS_pidfd_open, pid, 0);
        if fd >= 0 {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                fd,
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            );
            libc::close(fd as RawFd);
        }
    }
}

/// `fstat` of what an `O_PATH` descriptor holds.
fn stat_of(fd: &OwnedFd) -> Res<libc::stat> {
    // SAFETY: a zeroed stat is valid; fstatat fills it.
    let mut meta: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: an open descriptor, an empty path, a buffer of the right size.
    let r = unsafe {
        libc::fstatat(
            fd.as_raw_fd(),
            c"".as_ptr(),
            &mut meta,
            libc::AT_EMPTY_PATH | libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if r != 0 {
        return Err(errno());
    }
    Ok(meta)
}

fn is_link(fd: &OwnedFd) -> bool {
    stat_of(fd).is_ok_and(|m| m.st_mode & libc::S_IFMT == libc::S_IFLNK)
}

/// The bytes of a plain C struct, as the thread's buffer takes them.
fn bytes_of<T: Copy>(value: &T) -> &[u8] {
    // SAFETY: `T` is a plain C struct (stat, statx, statfs): reading its
    // bytes, padding included, is what the kernel's copy-out does too.
    unsafe { std::slice::from_raw_parts((value as *const T).cast::<u8>(), size_of::<T>()) }
}

/// The path-taking calls this broker answers (x86-64 numbers).
pub(super) const PATH_CALLS: &[i64] = &[
    libc::SYS_open,
    libc::SYS_openat,
    libc::SYS_openat2,
    libc::SYS_creat,
    libc::SYS_stat,
    libc::SYS_lstat,
    libc::SYS_newfstatat,
    libc::SYS_statx,
    libc::SYS_statfs,
    libc::SYS_access,
    libc::SYS_faccessat,
    libc::SYS_faccessat2,
    libc::SYS_readlink,
    libc::SYS_readlinkat,
    libc::SYS_mkdir,
    libc::SYS_mkdirat,
    libc::SYS_mknod,
    libc::SYS_mknodat,
    libc::SYS_unlink,
    libc::SYS_unlinkat,
    libc::SYS_rmdir,
    libc::SYS_symlink,
    libc::SYS_symlinkat,
    libc::SYS_link,
    libc::SYS_linkat,
    libc::SYS_rename,
    libc::SYS_renameat,
    libc::SYS_renameat2,
    libc::SYS_chmod,
    libc::SYS_fchmodat,
    libc::SYS_fchmodat2,
    libc::SYS_chown,
    libc::SYS_lchown,
    libc::SYS_fchownat,
    libc::SYS_truncate,
    libc::SYS_utime,
    libc::SYS_utimes,
    libc::SYS_futimesat,
    libc::SYS_utimensat,
    libc::SYS_execve,
    libc::SYS_execveat,
    libc::SYS_chdir,
];

fn is_path_call(nr: i64) -> bool {
    PATH_CALLS.contains(&nr)
}

/// The process calls this broker answers when it brokers signals: whom a
/// signal, a process group, an I/O owner or a trace reaches.
pub(super) const PROCESS_CALLS: &[i64] = &[
    libc::SYS_kill,
    libc::SYS_tkill,
    libc::SYS_tgkill,
    libc::SYS_rt_sigqueueinfo,
    libc::SYS_rt_tgsigqueueinfo,
    libc::SYS_pidfd_open,
    libc::SYS_setpgid,
    libc::SYS_ptrace,
];

fn is_process_call(nr: i64) -> bool {
    PROCESS_CALLS.contains(&nr) || nr == libc::SYS_fcntl
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_splits_at_its_last_component() {
        let s = |p: &str| {
            let (a, b) = split(p.as_bytes());
            (String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap())
        };
        assert_eq!(s("a/b"), ("a".into(), "b".into()));
        assert_eq!(s("a/b/"), ("a".into(), "b/".into()));
        assert_eq!(s("b"), (".".into(), "b".into()));
        assert_eq!(s("/b"), ("/".into(), "b".into()));
        assert_eq!(s("/a/b//c"), ("/a/b/".into(), "c".into()));
        assert_eq!(s("/"), (".".into(), "/".into()));
        assert!(not_an_entry(b"/"));
        assert!(not_an_entry(b".."));
        assert!(not_an_entry(b"./"));
        assert!(!not_an_entry(b"..."));
    }
}
