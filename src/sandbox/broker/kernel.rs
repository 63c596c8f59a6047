//! The kernel's side of the broker: the notifying filter and its listener
//! (made in the sandboxed child, handed to the grader over a socket),
//! notifications and their replies, a descriptor put into the target, and
//! the target's memory.
//!
//! Everything the child runs between fork and exec ([`install_listener`],
//! [`send_fd`]) is plain system calls on stack memory: no allocation.

use nix::libc;
use seccompiler::{BpfProgram, sock_filter};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// The data of the `SeccompAction::Trace` that marks a notifying rule in
/// seccompiler's output (seccompiler has no user-notification action):
/// [`notifying`] turns each such return into `SECCOMP_RET_USER_NOTIF`.
pub(super) const NOTIFY_MARK: u32 = 0x4e4f;

/// seccompiler's program with every `ret TRACE|NOTIFY_MARK` made a
/// `ret USER_NOTIF`: the rules are still seccompiler's data; only the
/// action the compiler cannot name is set here, on return instructions
/// alone (a comparison's constant is never touched).
pub(super) fn notifying(mut program: BpfProgram) -> BpfProgram {
    const BPF_RET_K: u16 = 0x06;
    let mark = libc::SECCOMP_RET_TRACE | NOTIFY_MARK;
    for insn in &mut program {
        if insn.code == BPF_RET_K && insn.k == mark {
            insn.k = libc::SECCOMP_RET_USER_NOTIF;
        }
    }
    program
}

/// Installs `program` on the calling thread with a listener, and returns
/// the listener's descriptor (close-on-exec). `no_new_privs` must be set
/// already (the sandbox's own filters set it). Between fork and exec.
pub(super) fn install_listener(program: &[sock_filter]) -> io::Result<RawFd> {
    #[repr(C)]
    struct SockFprog {
        len: u16,
        filter: *const sock_filter,
    }
    let fprog = SockFprog {
        len: program.len() as u16,
        filter: program.as_ptr(),
    };
    // SAFETY: the kernel copies the program from `fprog`, which outlives
    // the call; the flags ask for a new listener descriptor.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
            &fprog as *const SockFprog,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(fd as RawFd)
}

/// A connected pair of Unix stream sockets, close-on-exec: the grader's
/// end and the child's.
pub(super) fn socket_pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` has room for the two descriptors.
    let done = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if done != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just gave us both.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Room for one descriptor's control message, aligned as `cmsghdr` needs.
#[repr(C, align(8))]
struct Control([u8; 64]);

/// A message of one byte (`iov`, pointing at it) with `control_len`
/// bytes of `control` for its control data. Allocation-free.
fn one_byte_message(
    iov: &mut libc::iovec,
    control: &mut Control,
    control_len: usize,
) -> libc::msghdr {
    // SAFETY: a zeroed msghdr is valid (no name, no data).
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.0.as_mut_ptr().cast();
    msg.msg_controllen = control_len.min(control.0.len());
    msg
}

/// Sends the descriptor `fd` over the socket `to` with one byte.
/// Allocation-free: between fork and exec.
pub(super) fn send_fd(to: RawFd, fd: RawFd) -> io::Result<()> {
    let mut control = Control([0; 64]);
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // SAFETY: every pointer of the message points at locals that outlive
    // the `sendmsg`, and the control buffer has room for CMSG_SPACE(4)
    // bytes (24 of its 64).
    unsafe {
        let space = libc::CMSG_SPACE(size_of::<RawFd>() as u32) as usize;
        let msg = one_byte_message(&mut iov, &mut control, space);
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(size_of::<RawFd>() as u32) as usize;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fd);
        loop {
            if libc::sendmsg(to, &msg, libc::MSG_NOSIGNAL) == 1 {
                return Ok(());
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}

/// What a look at the socket a listener comes through found.
pub(super) enum Received {
    /// A listener, from the child that made it.
    Fd(OwnedFd),
    /// Nothing yet.
    Nothing,
    /// Nothing, and nothing ever will come: every child's end is closed.
    Closed,
}

/// Waits up to `timeout_ms` on the socket `from` for a descriptor.
pub(super) fn receive_fd(from: &OwnedFd, timeout_ms: i32) -> Received {
    let mut pfd = libc::pollfd {
        fd: from.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    if unsafe { libc::poll(&mut pfd, 1, timeout_ms) } <= 0 {
        return Received::Nothing;
    }
    let mut control = Control([0; 64]);
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut msg = one_byte_message(&mut iov, &mut control, 64);
    // SAFETY: as in `send_fd`; the kernel writes at most `msg_controllen`
    // bytes of control data into `control`.
    unsafe {
        let n = libc::recvmsg(
            from.as_raw_fd(),
            &mut msg,
            libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC,
        );
        if n == 0 {
            return Received::Closed;
        }
        if n < 0 {
            return Received::Nothing;
        }
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if cmsg.is_null()
            || (*cmsg).cmsg_level != libc::SOL_SOCKET
            || (*cmsg).cmsg_type != libc::SCM_RIGHTS
        {
            return Received::Nothing;
        }
        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>());
        // The kernel just installed this descriptor for us.
        Received::Fd(OwnedFd::from_raw_fd(fd))
    }
}

/// One system call a sandboxed thread is blocked in, waiting for the
/// broker.
#[derive(Clone, Copy, Debug)]
pub(super) struct Call {
    pub id: u64,
    /// The calling thread's id (in the grader's pid namespace).
    pub tid: i32,
    pub nr: i64,
    pub args: [u64; 6],
}

/// What the blocked call returns.
pub(super) enum Reply {
    /// The call runs as the thread made it (only where nothing the thread
    /// can still change decides what it does: register arguments).
    Continue,
    /// It returns this value.
    Value(i64),
    /// It fails with this errno.
    Errno(i32),
    /// It returns this descriptor, put into the thread's table
    /// (close-on-exec when `cloexec`).
    Fd(OwnedFd, bool),
    /// It opens the FIFO `object` holds with `flags`, which waits for the
    /// other end: done on a thread of its own (see `broker::Fifos`), then
    /// answered as [`Reply::Fd`] (close-on-exec when the `bool`).
    Wait(OwnedFd, i32, bool),
}

/// How a wait for the next call ended.
pub(super) enum Wait {
    Call,
    /// No process uses the filter any more.
    Gone,
    Timeout,
}

/// The grader's end of one sandbox's filter.
pub(super) struct Listener(pub OwnedFd);

impl Listener {
    /// Asks the kernel to wake the answered thread on the broker's own CPU
    /// (Linux 6.6; older kernels refuse, and it runs as before): a brokered
    /// call is a round trip of two wake-ups, which this shortens.
    pub fn wake_synchronously(&self) {
        const SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: u64 = 1;
        // SAFETY: the ioctl takes its flags by value.
        unsafe {
            libc::ioctl(
                self.0.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_SET_FLAGS,
                SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP,
            )
        };
    }

    /// Waits up to `timeout_ms` for a call.
    pub fn wait(&self, timeout_ms: i32) -> Wait {
        let mut pfd = libc::pollfd {
            fd: self.0.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
        if n <= 0 {
            return Wait::Timeout;
        }
        if pfd.revents & libc::POLLIN != 0 {
            Wait::Call
        } else {
            Wait::Gone
        }
    }

    /// The next call (`None`: it went away before it was read).
    pub fn receive(&self) -> Option<Call> {
        // SAFETY: the kernel wants a zeroed request and fills it.
        let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
        // SAFETY: the ioctl writes one `seccomp_notif` into `req`.
        let done = unsafe {
            libc::ioctl(
                self.0.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_RECV,
                &mut req as *mut libc::seccomp_notif,
            )
        };
        (done == 0).then(|| Call {
            id: req.id,
            tid: req.pid as i32,
            nr: i64::from(req.data.nr),
            args: req.data.args,
        })
    }

    /// Whether the call `id` still waits (its thread has not died, so its
    /// pid is still its own: what was read from `/proc/<tid>` was its).
    pub fn still_waiting(&self, id: u64) -> bool {
        // SAFETY: the ioctl reads one u64.
        unsafe {
            libc::ioctl(
                self.0.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_ID_VALID,
                &id as *const u64,
            ) == 0
        }
    }

    /// Answers the call `id` (an answer to a call that went away is lost).
    pub fn reply(&self, id: u64, reply: Reply) {
        let (val, error, flags) = match reply {
            Reply::Continue => (0, 0, libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32),
            Reply::Value(v) => (v, 0, 0),
            Reply::Errno(e) => (0, -e, 0),
            // Answered by its own thread once the FIFO opens.
            Reply::Wait(..) => (0, -libc::EIO, 0),
            Reply::Fd(fd, cloexec) => {
                let addfd = libc::seccomp_notif_addfd {
                    id,
                    flags: libc::SECCOMP_ADDFD_FLAG_SEND as u32,
                    srcfd: fd.as_raw_fd() as u32,
                    newfd: 0,
                    newfd_flags: if cloexec { libc::O_CLOEXEC as u32 } else { 0 },
                };
                // SAFETY: the ioctl reads one `seccomp_notif_addfd`; with
                // SEND it also answers the call with the new descriptor.
                let done = unsafe {
                    libc::ioctl(
                        self.0.as_raw_fd(),
                        libc::SECCOMP_IOCTL_NOTIF_ADDFD,
                        &addfd as *const libc::seccomp_notif_addfd,
                    )
                };
                if done >= 0 {
                    return;
                }
                let errno = io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO);
                if errno == libc::ENOENT {
                    return;
                }
                (0, -errno, 0)
            }
        };
        let mut resp = libc::seccomp_notif_resp {
            id,
            val,
            error,
            flags,
        };
        // SAFETY: the ioctl reads one `seccomp_notif_resp`.
        unsafe {
            libc::ioctl(
                self.0.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_SEND,
                &mut resp as *mut libc::seccomp_notif_resp,
            );
        }
    }
}

/// A blocked thread's memory (`/proc/<tid>/mem`), opened with the
/// broker's file-system identity (the sandbox's): what the thread passed
/// by pointer is read once, into the grader, and acted on from there.
pub(super) struct Memory(std::fs::File);

/// The longest path read from a thread (`PATH_MAX`).
pub(super) const PATH_MAX: usize = 4096;

impl Memory {
    /// The memory of thread `tid`, writable when `write`.
    pub fn open(tid: i32, write: bool) -> io::Result<Memory> {
        std::fs::OpenOptions::new()
            .read(true)
            .write(write)
            .open(format!("/proc/{tid}/mem"))
            .map(Memory)
    }

    /// Reads `buf.len()` bytes at `addr`.
    pub fn read(&self, addr: u64, buf: &mut [u8]) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        self.0.read_exact_at(buf, addr)
    }

    /// The NUL-terminated string at `addr` (without its NUL), read a page
    /// at a time so that one ending just before an unmapped page is read.
    pub fn string(&self, addr: u64) -> Result<Vec<u8>, i32> {
        use std::os::unix::fs::FileExt;
        if addr == 0 {
            return Err(libc::EFAULT);
        }
        let mut text = Vec::new();
        let mut at = addr;
        while text.len() <= PATH_MAX {
            let page_end = (at | 4095) + 1;
            let mut chunk = vec![0u8; (page_end - at) as usize];
            let n = self.0.read_at(&mut chunk, at).map_err(|_| libc::EFAULT)?;
            if n == 0 {
                return Err(libc::EFAULT);
            }
            if let Some(end) = chunk[..n].iter().position(|&b| b == 0) {
                text.extend_from_slice(&chunk[..end]);
                return Ok(text);
            }
            text.extend_from_slice(&chunk[..n]);
            at += n as u64;
        }
        Err(libc::ENAMETOOLONG)
    }

    /// Writes `bytes` at `addr` (a result the call returns by pointer).
    pub fn write(&self, addr: u64, bytes: &[u8]) -> Result<(), i32> {
        use std::os::unix::fs::FileExt;
        self.0.write_all_at(bytes, addr).map_err(|_| libc::EFAULT)
    }
}

/// Sets the calling thread's file-system identity to `uid` (and gid `uid`,
/// no supplementary groups): every file it opens from now on is opened as
/// the sandbox's uid would, and, that uid not being root, without the
/// file capabilities. Per thread (raw system calls: the C library's
/// `setgroups` would change every thread of the grader).
pub(super) fn become_files_of(uid: u32) -> io::Result<()> {
    // SAFETY: plain system calls on the calling thread.
    unsafe {
        if libc::syscall(libc::SYS_setgroups, 0, std::ptr::null::<libc::gid_t>()) != 0 {
            return Err(io::Error::last_os_error());
        }
        libc::setfsgid(uid);
        libc::setfsuid(uid);
        // Both calls return the previous id; read back what is in force.
        if libc::setfsuid(u32::MAX) as u32 != uid || libc::setfsgid(u32::MAX) as u32 != uid {
            return Err(io::Error::from(io::ErrorKind::PermissionDenied));
        }
    }
    Ok(())
}
