//! Confinement: what a sandboxed process may see and reach, beyond the
//! rlimits and the process-tree bookkeeping of the rest of the sandbox.
//!
//! A submission runs code the grader did not write: its static
//! initialisers, its build (a Makefile is a shell script), its program.
//! Whatever it does, it must not forge its verdict: read the expected
//! answers, touch another student's files or the grader's cache, reach the
//! network, or signal the grader. So every process a submission starts gets,
//! between `fork` and `exec`:
//!
//! - **Landlock** (the kernel's unprivileged access control, the
//!   maintainers' `landlock` crate): read and execute the system
//!   ([`SYSTEM_ROOTS`]), read what its own command line names (the program's
//!   folder, a script, a source, the shim it preloads: see
//!   [`Grants::for_command`]), use a few harmless devices, and write only
//!   beneath its own working directory. Nothing else exists for it: the
//!   scenarios, the snapshots, other uploads, the adapter cache, report
//!   paths, `/proc` (so no other process's command line, environment or
//!   memory). ABI 4 adds "no TCP bind or connect"; ABI 6 scopes signals and
//!   abstract Unix sockets to the sandbox's own processes, so it can no
//!   longer signal the grader or another sandbox. Landlock also stops
//!   `ptrace` of anything outside the sandbox.
//! - **A network namespace of its own** (no interface but a downed
//!   loopback): no TCP, UDP or any other socket reaches anything. As root
//!   it is made directly; otherwise inside a user namespace, where the
//!   kernel allows unprivileged ones (the process's own uid and gid mapped
//!   to themselves there, so that it can still set them: `make` does).
//! - **An unprivileged uid of its own** when the grader runs as root (a
//!   Gradescope-style container): each folder a submission works in (a
//!   build's, a scenario's) belongs to a uid no other sandbox has, drawn
//!   from [`SANDBOX_UIDS`] when the folder is handed over ([`hand_over`]),
//!   and every process working in it runs as that uid. The ordinary
//!   permission checks then apply too, and RLIMIT_NPROC, which the kernel
//!   counts per uid, is each sandbox's own: one student's fork bomb cannot
//!   use up the processes a classmate graded beside it needs.
//!
//! What the kernel grants is found out once per grader ([`isolation`]) and
//! reported (`isolation: landlock abi 7, no network, seccomp, a uid of its own, disk
//! 64 MiB, 4096 files`: the last is [`super::disk`]'s bound); a missing
//! mechanism is named there, and `--require-isolation` refuses to grade
//! without all of them. The per-spawn work happens in the parent (the
//! ruleset is built and its paths opened before the fork), so the child
//! only makes system calls that allocate nothing.

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope,
};
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The folders every sandboxed process may read and execute: the system's
/// programs, libraries, toolchains and configuration. Course material must
/// not live beneath these (docs/grading.md says so).
pub const SYSTEM_ROOTS: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
];

/// Devices a program may open for reading and writing.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// The uids (and gids) submissions run as when the grader is root, one per
/// folder a submission works in, drawn at random: no account has them, and
/// two sandboxes alive at once share one with odds of about one in a
/// million even with hundreds of them (then they share an RLIMIT_NPROC, as
/// every sandbox once did; Landlock still keeps them apart).
pub const SANDBOX_UIDS: std::ops::Range<u32> = 0x4000_0000..0x8000_0000;

/// The newest Landlock ABI this grader asks for; older kernels get what
/// they have (the report says which).
const WANTED_ABI: ABI = ABI::V6;

/// How a sandboxed process gets a network namespace of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetNamespace {
    /// `unshare(CLONE_NEWNET)`: the grader is root.
    Direct,
    /// `unshare(CLONE_NEWUSER | CLONE_NEWNET)`: an unprivileged grader on a
    /// kernel that allows user namespaces.
    InUserNamespace,
}

/// Which isolation the kernel grants this grader, found out once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Isolation {
    /// The Landlock ABI in force (`None`: the kernel has no Landlock).
    pub landlock_abi: Option<i32>,
    /// How the network is cut off (`None`: it is not, beyond Landlock's TCP
    /// rules where the ABI has them).
    pub netns: Option<NetNamespace>,
    /// Submissions run as uids of their own ([`SANDBOX_UIDS`]; `false`:
    /// the grader's own).
    pub own_uids: bool,
    /// The grader runs as root: then submissions must not keep its uid.
    pub grader_is_root: bool,
    /// How the folders submissions write in are bounded (`None`: they are
    /// not; see the `disk` module).
    pub disk: Option<super::DiskMount>,
    /// Every sandboxed process runs under the sandbox's own seccomp filter
    /// (no sockets, no ptrace, no mount or namespace: the `seccomp`
    /// module); `false`: the kernel or a container's profile refused it.
    pub seccomp: bool,
}

impl Isolation {
    /// Landlock confines files (every ABI).
    pub fn files(&self) -> bool {
        self.landlock_abi.is_some()
    }

    /// Signals (and abstract Unix sockets) stay within the sandbox: Landlock
    /// ABI 6 scoping.
    pub fn signals_scoped(&self) -> bool {
        self.landlock_abi.is_some_and(|abi| abi >= 6)
    }

    /// No network at all: a namespace of its own, or no socket at all
    /// (the seccomp filter).
    pub fn no_network(&self) -> bool {
        self.netns.is_some() || self.seccomp
    }

    /// TCP at least is cut off (a namespace, or Landlock ABI 4).
    pub fn no_tcp(&self) -> bool {
        self.no_network() || self.landlock_abi.is_some_and(|abi| abi >= 4)
    }

    /// What is missing for the full confinement, in words (empty: nothing).
    pub fn missing(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if !self.files() {
            missing.push("Landlock (the kernel has none: files and /proc are readable)");
        } else if !self.signals_scoped() {
            missing.push("Landlock ABI 6 signal scoping (the kernel's Landlock is older)");
        }
        if !self.seccomp {
            missing.push(
                "the sandbox's seccomp filter (the kernel or the container's profile refused it: sockets, ptrace, namespaces open)",
            );
        }
        if !self.no_network() {
            missing.push("a network namespace (the kernel refused one)");
        }
        if self.grader_is_root && !self.own_uids {
            missing.push("a uid of their own (the grader is root and could not drop it)");
        }
        if self.disk.is_none() {
            missing.push("a bounded disk");
        }
        missing
    }

    /// Whether every mechanism is in force.
    pub fn complete(&self) -> bool {
        self.missing().is_empty()
    }
}

impl Isolation {
    /// The report's line with `disk` as the folders' bound: `landlock abi
    /// 7, no network, a uid of its own, disk 64 MiB, 4096 files`, naming what
    /// is missing.
    pub fn describe(&self, disk: &super::DiskBound) -> String {
        match self.disk {
            Some(super::DiskMount::Watched) => {
                format!("{}, disk {disk} (watched)", Mechanisms(self))
            }
            Some(_) => format!("{}, disk {disk}", Mechanisms(self)),
            None => format!("{}, disk unbounded", Mechanisms(self)),
        }
    }
}

impl std::fmt::Display for Isolation {
    /// [`Isolation::describe`] with the default disk bound.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe(&super::DiskBound::default()))
    }
}

/// Every mechanism but the disk's, in words.
struct Mechanisms<'a>(&'a Isolation);

impl std::fmt::Display for Mechanisms<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let iso = self.0;
        match iso.landlock_abi {
            Some(abi) => write!(f, "landlock abi {abi}")?,
            None => write!(f, "no landlock (files readable)")?,
        }
        if iso.netns.is_some() {
            write!(f, ", no network")?;
        } else if iso.seccomp {
            write!(f, ", no sockets")?;
        } else if iso.no_tcp() {
            write!(f, ", no tcp (other sockets open)")?;
        } else {
            write!(f, ", network open")?;
        }
        if iso.files() && !iso.signals_scoped() {
            write!(f, ", signals not scoped")?;
        }
        match iso.seccomp {
            true => write!(f, ", seccomp")?,
            false => write!(f, ", no seccomp")?,
        }
        match iso.own_uids {
            true => write!(f, ", a uid of its own"),
            false => write!(f, ", the grader's uid"),
        }
    }
}

/// The isolation this grader's sandboxes get: probed on first use (a fact
/// of the kernel, found once, never a setting).
pub fn isolation() -> &'static Isolation {
    static PROBED: OnceLock<Isolation> = OnceLock::new();
    PROBED.get_or_init(probe)
}

fn probe() -> Isolation {
    let root = nix::unistd::geteuid().is_root();
    let uid = fresh_uid();
    let own_uids = root && probe_child(|| drop_privileges(uid).is_ok());
    // A root grader's sandboxes change to uids of their own, which a user
    // namespace mapping only the grader's would not hold: root makes the
    // network namespace directly or not at all (root without
    // CAP_SYS_ADMIN, as in a container).
    let how = match root {
        true => NetNamespace::Direct,
        false => NetNamespace::InUserNamespace,
    };
    let netns = probe_child(move || unshare_network(how).is_ok()).then_some(how);
    Isolation {
        landlock_abi: probe_landlock(),
        netns,
        own_uids,
        grader_is_root: root,
        disk: super::disk::probe(),
        seccomp: super::seccomp::available(),
    }
}

/// Runs `test` in a forked child and tells whether it returned true. The
/// child makes only async-signal-safe system calls, then `_exit`s.
pub(super) fn probe_child(test: impl Fn() -> bool) -> bool {
    use nix::sys::wait::{WaitStatus, waitpid};
    use nix::unistd::{ForkResult, fork};
    // SAFETY: the child runs `test` (an unshare, setgroups or setresuid: no
    // allocation, no lock) and `_exit`s; it never returns into Rust code
    // that could touch state another thread held at the fork.
    match unsafe { fork() } {
        Ok(ForkResult::Child) => {
            let ok = test();
            // SAFETY: `_exit` is async-signal-safe and ends the child here.
            unsafe { nix::libc::_exit(if ok { 0 } else { 1 }) }
        }
        Ok(ForkResult::Parent { child }) => loop {
            match waitpid(child, None) {
                Ok(WaitStatus::Exited(_, code)) => break code == 0,
                Err(nix::errno::Errno::EINTR) => continue,
                _ => break false,
            }
        },
        Err(_) => false,
    }
}

/// Restricts a throwaway thread (Landlock applies per thread unless asked
/// otherwise) and reads back the ABI in force.
fn probe_landlock() -> Option<i32> {
    std::thread::spawn(|| {
        let status = ruleset(&Grants::default(), None)
            .ok()?
            .restrict_self()
            .ok()?;
        match (status.ruleset, status.landlock) {
            (RulesetStatus::NotEnforced, _) => None,
            (_, LandlockStatus::Available { effective_abi, .. }) => Some(effective_abi as i32),
            _ => None,
        }
    })
    .join()
    .ok()
    .flatten()
}

/// What one sandboxed command may read beyond the system: the folders its
/// command line names.
#[derive(Clone, Debug, Default)]
pub struct Grants {
    read: Vec<PathBuf>,
    /// Read its own `/proc/<pid>` (see `Confinement::enter`): what
    /// sanitizers and valgrind need; `/proc` stays closed otherwise.
    pub own_proc: bool,
}

impl Grants {
    /// A command sees what it is given: the folder of its program (when not
    /// a system one), every absolute path among its arguments and its
    /// environment values (a file's folder, or the folder itself), such as
    /// a script, a source file, an include directory or a preloaded shim.
    /// These are chosen by the grader, never by the submission.
    pub fn for_command(program: &Path, args: &[OsString], env: &[(&str, OsString)]) -> Grants {
        let mut read = Vec::new();
        let named = std::iter::once(program.as_os_str())
            .chain(args.iter().map(OsString::as_os_str))
            .chain(env.iter().map(|(_, v)| v.as_os_str()));
        for value in named {
            let path = Path::new(value);
            if !path.is_absolute() {
                continue;
            }
            let folder = match std::fs::metadata(path) {
                Ok(m) if m.is_dir() => path,
                Ok(_) => match path.parent() {
                    Some(parent) => parent,
                    None => continue,
                },
                Err(_) => continue,
            };
            let folder = folder.to_path_buf();
            if folder != Path::new("/") && !read.contains(&folder) {
                read.push(folder);
            }
        }
        Grants {
            read,
            own_proc: false,
        }
    }
}

/// The ruleset for one sandbox: the system read-only, the devices, the
/// command's own folders read-only and `workdir` (when given) writable;
/// no TCP, signals and abstract sockets scoped. Built in the parent.
fn ruleset(
    grants: &Grants,
    workdir: Option<&Path>,
) -> Result<RulesetCreated, landlock::RulesetError> {
    let abi = WANTED_ABI;
    let read = AccessFs::from_read(abi);
    let mut rules: Vec<(PathFd, landlock::BitFlags<AccessFs>)> = Vec::new();
    let mut add = |path: &Path, access| {
        // A path that does not exist on this machine (no /lib32) is skipped.
        if let Ok(fd) = PathFd::new(path) {
            rules.push((fd, access));
        }
    };
    for root in SYSTEM_ROOTS {
        add(Path::new(root), read);
    }
    for dev in DEVICES {
        add(Path::new(dev), AccessFs::ReadFile | AccessFs::WriteFile);
    }
    for folder in &grants.read {
        add(folder, read);
    }
    if let Some(dir) = workdir {
        add(dir, AccessFs::from_all(abi));
    }
    let mut created = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))?
        .handle_access(AccessNet::from_all(abi))?
        .scope(Scope::AbstractUnixSocket | Scope::Signal)?
        .create()?;
    for (fd, access) in rules {
        created = created.add_rule(PathBeneath::new(fd, access))?;
    }
    Ok(created)
}

/// What the child does between fork and exec, prepared in the parent.
pub struct Confinement {
    ruleset: Option<RulesetCreated>,
    /// A second descriptor of `ruleset`, for the rule only the child can
    /// name (its own `/proc/<pid>`); `None` unless [`Grants::own_proc`].
    own_proc_rule: Option<std::os::fd::OwnedFd>,
    netns: Option<NetNamespace>,
    drop_to: Option<u32>,
    /// `uid_map` and `gid_map` of the user namespace the network namespace
    /// is made in ([`NetNamespace::InUserNamespace`]): the process's own
    /// ids, mapped to themselves.
    id_maps: Option<(Vec<u8>, Vec<u8>)>,
    /// The system-call filter, installed last (`None`: unavailable here).
    filters: Option<super::seccomp::Filters>,
}

impl Confinement {
    /// Prepares the confinement of one sandbox whose working directory is
    /// `workdir`, and hands that directory over to the sandbox's uid (the
    /// one it was handed over to before, else a fresh one).
    pub fn prepare(grants: &Grants, workdir: &Path) -> io::Result<Confinement> {
        let iso = isolation();
        let uid = iso.own_uids.then(|| uid_for(workdir));
        if let Some(uid) = uid {
            hand_over_one(workdir, uid)?;
        }
        let ruleset = match iso.landlock_abi {
            Some(_) => Some(ruleset(grants, Some(workdir)).map_err(io::Error::other)?),
            None => None,
        };
        let own_proc_rule = match (&ruleset, grants.own_proc) {
            (Some(r), true) => Option::<std::os::fd::OwnedFd>::from(r.try_clone()?),
            _ => None,
        };
        let id_maps = (iso.netns == Some(NetNamespace::InUserNamespace)).then(|| {
            let (uid, gid) = (nix::unistd::getuid(), nix::unistd::getgid());
            (
                format!("{uid} {uid} 1").into_bytes(),
                format!("{gid} {gid} 1").into_bytes(),
            )
        });
        // A checked run's LeakSanitizer attaches to its own threads with
        // `ptrace`: allowed there, within Landlock's scope or the uid's.
        let filters = iso
            .seccomp
            .then(|| super::seccomp::Filters::for_run(grants.own_proc));
        Ok(Confinement {
            ruleset,
            own_proc_rule,
            netns: iso.netns,
            drop_to: uid,
            id_maps,
            filters,
        })
    }

    /// The uid the process will run as (`None`: the grader's).
    pub fn uid(&self) -> Option<u32> {
        self.drop_to
    }

    /// In the child, after the rlimits: the network namespace, the uid, then
    /// Landlock (which sets `no_new_privs`, so nothing regains privileges
    /// through a set-uid program). Allocation-free.
    ///
    /// With [`Grants::own_proc`], the child opens `/proc/self` — its own
    /// `/proc/<pid>`, which only it can name before it runs — and adds it
    /// to the ruleset, read-only, before restricting itself. The pid stays
    /// the same through `exec`, so the program reads its own maps, status
    /// and threads; every other `/proc/<pid>` (the grader's, init's, a
    /// classmate's), `/proc/sys` and the rest stay out of reach, and so do
    /// processes it forks (their pids differ).
    pub fn enter(&mut self) -> io::Result<()> {
        if let Some(how) = self.netns {
            unshare_network(how)?;
        }
        // Without a map its ids are the overflow ids (65534), which it
        // cannot set: `setuid(getuid())` fails with EINVAL, and with it
        // every program that resets its ids before running another (GNU
        // make's `posix_spawn`, so every Makefile).
        if let Some((uid_map, gid_map)) = &self.id_maps {
            write_own_proc(c"/proc/self/setgroups", b"deny")?;
            write_own_proc(c"/proc/self/uid_map", uid_map)?;
            write_own_proc(c"/proc/self/gid_map", gid_map)?;
        }
        if let Some(rules) = self.own_proc_rule.take() {
            add_own_proc_rule(&rules)?;
        }
        if let Some(uid) = self.drop_to {
            drop_privileges(uid)?;
        }
        if let Some(ruleset) = self.ruleset.take() {
            ruleset
                .restrict_self()
                .map_err(|_| io::Error::from(io::ErrorKind::PermissionDenied))?;
        }
        // Last: the filter refuses `unshare`, which the namespace needed.
        if let Some(filters) = &self.filters {
            filters.apply()?;
        }
        Ok(())
    }
}

/// Adds "read beneath `/proc/self`" (this process's own `/proc/<pid>`) to
/// the ruleset behind `rules`. Only system calls: safe between fork and
/// exec.
fn add_own_proc_rule(rules: &std::os::fd::OwnedFd) -> io::Result<()> {
    use nix::libc;
    use std::os::fd::AsRawFd;
    // struct landlock_path_beneath_attr (packed: u64 then i32).
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }
    const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;
    let access = (AccessFs::ReadFile | AccessFs::ReadDir).bits();
    // SAFETY: a NUL-terminated literal; `open` allocates nothing.
    let proc_self = unsafe {
        libc::open(
            c"/proc/self".as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if proc_self < 0 {
        return Err(io::Error::last_os_error());
    }
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd: proc_self,
    };
    // SAFETY: the attribute outlives the call; both descriptors are open.
    let added = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            rules.as_raw_fd(),
            LANDLOCK_RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0,
        )
    };
    let error = io::Error::last_os_error();
    // SAFETY: our own descriptor, closed once.
    unsafe { libc::close(proc_self) };
    if added != 0 {
        return Err(error);
    }
    Ok(())
}

/// Writes `bytes` to the file `path` of this process's own `/proc`. Only
/// system calls: safe between fork and exec.
fn write_own_proc(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    use nix::libc;
    // SAFETY: a NUL-terminated path; `open` allocates nothing.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the buffer outlives the call; the descriptor is open.
    let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    let error = io::Error::last_os_error();
    // SAFETY: our own descriptor, closed once.
    unsafe { libc::close(fd) };
    if written != bytes.len() as isize {
        return Err(error);
    }
    Ok(())
}

fn unshare_network(how: NetNamespace) -> io::Result<()> {
    use nix::sched::{CloneFlags, unshare};
    let flags = match how {
        NetNamespace::Direct => CloneFlags::CLONE_NEWNET,
        NetNamespace::InUserNamespace => CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET,
    };
    unshare(flags).map_err(io::Error::from)
}

/// No supplementary groups, then gid and uid `uid` (real, effective and
/// saved: there is no way back).
fn drop_privileges(uid: u32) -> io::Result<()> {
    use nix::unistd::{Gid, Uid, setgroups, setresgid, setresuid};
    let gid = Gid::from_raw(uid);
    let uid = Uid::from_raw(uid);
    setgroups(&[]).map_err(io::Error::from)?;
    setresgid(gid, gid, gid).map_err(io::Error::from)?;
    setresuid(uid, uid, uid).map_err(io::Error::from)
}

fn hand_over_one(path: &Path, uid: u32) -> io::Result<()> {
    use nix::unistd::{Gid, Uid, fchownat};
    fchownat(
        nix::fcntl::AT_FDCWD,
        path,
        Some(Uid::from_raw(uid)),
        Some(Gid::from_raw(uid)),
        nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
    )
    .map_err(io::Error::from)
}

/// Makes `dir` and everything in it the sandbox's own (when submissions run
/// as uids of their own): a build folder the grader filled, or a
/// scenario's files, which the submission may then change; a file is
/// given to the sandbox that owns its folder. The uid is the one the
/// folder was handed over to before, else a fresh one. A folder handed
/// over may be passed through by other uids (mode `o+x`, never `o+r`): a
/// program built in one is run from another sandbox's folder (Landlock
/// decides which sandbox may, by its grants). Links are not followed. A
/// no-op when the grader is not root.
pub fn hand_over(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if !isolation().own_uids {
        return Ok(());
    }
    let uid = uid_for(dir);
    for entry in walkdir::WalkDir::new(dir).follow_links(false) {
        let entry = entry.map_err(io::Error::other)?;
        hand_over_one(entry.path(), uid)?;
    }
    let meta = std::fs::symlink_metadata(dir)?;
    if meta.is_dir() {
        let mode = meta.permissions().mode() | 0o011;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

/// The uid of the sandbox that works in `path` (for a file, in its
/// folder): the folder's owner when it was handed over before, else a
/// fresh one.
fn uid_for(path: &Path) -> u32 {
    use std::os::unix::fs::MetadataExt;
    let folder = match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => Some(path),
        _ => path.parent(),
    };
    folder
        .and_then(|f| std::fs::metadata(f).ok())
        .map(|m| m.uid())
        .filter(|uid| SANDBOX_UIDS.contains(uid))
        .unwrap_or_else(fresh_uid)
}

/// A uid from [`SANDBOX_UIDS`], at random (the standard library's hasher
/// keys, a counter and the clock: not guessable before the folder exists,
/// and unlike any other grader's).
fn fresh_uid() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(NEXT.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    let span = SANDBOX_UIDS.end - SANDBOX_UIDS.start;
    SANDBOX_UIDS.start + (h.finish() % u64::from(span)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_names_each_mechanism_and_what_is_missing() {
        let full = Isolation {
            landlock_abi: Some(7),
            netns: Some(NetNamespace::Direct),
            own_uids: true,
            grader_is_root: true,
            disk: Some(super::super::DiskMount::Direct),
            seccomp: true,
        };
        assert_eq!(
            full.to_string(),
            "landlock abi 7, no network, seccomp, a uid of its own, disk 64 MiB, 4096 files"
        );
        let small = super::super::DiskBound {
            bytes: 8 << 20,
            files: 100,
        };
        assert_eq!(
            full.describe(&small),
            "landlock abi 7, no network, seccomp, a uid of its own, disk 8 MiB, 100 files"
        );
        assert!(full.complete());
        // A container's: no namespace, the filter closes every socket.
        let docker = Isolation {
            netns: None,
            ..full.clone()
        };
        assert_eq!(
            docker.to_string(),
            "landlock abi 7, no sockets, seccomp, a uid of its own, disk 64 MiB, 4096 files"
        );
        assert!(docker.complete());
        // A container that cannot mount: the grader counts the folders.
        let watched = Isolation {
            disk: Some(super::super::DiskMount::Watched),
            ..docker
        };
        assert_eq!(
            watched.to_string(),
            "landlock abi 7, no sockets, seccomp, a uid of its own, disk 64 MiB, 4096 files (watched)"
        );
        assert!(watched.complete());
        let old = Isolation {
            landlock_abi: Some(4),
            netns: None,
            own_uids: false,
            grader_is_root: false,
            disk: Some(super::super::DiskMount::InUserNamespace),
            seccomp: false,
        };
        assert_eq!(
            old.to_string(),
            "landlock abi 4, no tcp (other sockets open), signals not scoped, no seccomp, the grader's uid, disk 64 MiB, 4096 files"
        );
        assert_eq!(old.missing().len(), 3, "{:?}", old.missing());
        let none = Isolation {
            landlock_abi: None,
            netns: None,
            own_uids: false,
            grader_is_root: true,
            disk: None,
            seccomp: false,
        };
        assert_eq!(
            none.to_string(),
            "no landlock (files readable), network open, no seccomp, the grader's uid, disk unbounded"
        );
        assert!(!none.complete());
        assert_eq!(none.missing().len(), 5, "{:?}", none.missing());
    }

    #[test]
    fn a_command_sees_the_folders_it_names_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("engine.py");
        std::fs::write(&script, "").unwrap();
        let grants = Grants::for_command(
            Path::new("python3"),
            &["-u".into(), script.clone().into(), "relative.txt".into()],
            &[("LD_PRELOAD", dir.path().join("missing.so").into())],
        );
        assert_eq!(grants.read, vec![dir.path().to_path_buf()]);
    }
}
