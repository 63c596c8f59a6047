//! The grader's end of an engine's three pipes, driven from the caller's
//! own thread: requests are queued and written when the caller is about to
//! wait, answers are read as the caller needs them, and stderr is drained
//! meanwhile — every wait one `poll`, bounded by the scenario's deadline.
//!
//! Why no threads: a writer thread, a reader thread and a stderr drain each
//! cost a wake-up and a handoff on every round trip (futexes, context
//! switches on another core); on the two-core grading machine that was the
//! larger part of the grader's own cost per scenario (docs/performance.md).
//! The caller waits anyway, so it does the waiting on all three pipes
//! itself, and the guarantees hold without the handoffs:
//! - no deadlock on a full pipe: while a write would block, answers and
//!   stderr are read, so the engine is never stuck writing to us;
//! - bounded memory: what is buffered is at most the answers owed plus the
//!   caps (a line longer than `max_line`, or more than `max_total` bytes of
//!   answers beyond what streamed scans are owed, ends the reading);
//! - every wait ends at the deadline.
//!
//! stderr is read lazily. A submission's debug output (a line per
//! `movePiece` is common) would otherwise wake the grader for every line
//! and cost the submission a wake-up per write; measured, that was 7% of
//! grading the course corpus. So the stderr pipe is enlarged (1 MiB where
//! the system allows) and read whenever an answer arrives, and a wait only
//! glances at it every [`STDERR_GLANCE`]; a glance that finds the pipe half
//! full or more (a flood) watches stderr for the rest of that wait, so a
//! flooding engine is drained as fast as it writes and never blocks for
//! long.
//!
//! The grader's ends are non-blocking; the engine's ends are separate open
//! files (a pipe has one per end), so the engine sees ordinary blocking
//! pipes.

use std::io::{self, ErrorKind, PipeReader, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::process::ChildStdin;
use std::time::{Duration, Instant};

use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

/// Bytes read from a pipe at a time.
const CHUNK: usize = 64 << 10;

/// How long a wait goes without looking at stderr (see the module doc).
pub(super) const STDERR_GLANCE: Duration = Duration::from_millis(10);

/// The stderr pipe's size asked for (the default unprivileged maximum).
const STDERR_PIPE: usize = 1 << 20;

/// What the next answer turned out to be.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Answer {
    /// One line, without its line ending.
    Line(String),
    /// A line longer than the limit.
    TooLong,
    /// More answer bytes than the limit (plus what scans are owed).
    TooMuch,
    /// The engine closed its stdout.
    Eof,
}

/// The deadline passed before an answer came.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct TimedOut;

/// The first `cap` bytes of a stream, plus a count of what was dropped.
#[derive(Default)]
pub(super) struct CappedText {
    cap: usize,
    kept: Vec<u8>,
    dropped: usize,
}

impl CappedText {
    pub(super) fn new(cap: usize) -> Self {
        CappedText {
            cap,
            ..Default::default()
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        let room = self.cap.saturating_sub(self.kept.len());
        let keep = room.min(bytes.len());
        self.kept.extend_from_slice(&bytes[..keep]);
        self.dropped += bytes.len() - keep;
    }

    pub(super) fn render(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.kept).into_owned();
        if self.dropped > 0 {
            s.push_str(&format!("\n… ({} more bytes not kept)", self.dropped));
        }
        s
    }
}

/// An engine's stdin, stdout and stderr, as the grader drives them.
pub(super) struct Pipes {
    /// `None` once the engine closed it (a write failed).
    stdin: Option<ChildStdin>,
    /// Requests queued; `queued[written..]` is not written yet.
    queued: Vec<u8>,
    written: usize,
    stdout: PipeReader,
    /// Answer bytes read and not handed out: `buf[start..end]`. The rest
    /// of `buf` is room for the next read, zeroed once when it grows
    /// rather than on every read.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// How much of `buf[start..]` is known to hold no line end.
    scanned: usize,
    eof: bool,
    /// `None` once it reached end of file.
    stderr: Option<PipeReader>,
    /// What the stderr pipe holds before a writer blocks.
    stderr_capacity: usize,
    /// Answer bytes handed out so far (for `max_total`).
    consumed: usize,
    max_line: usize,
    max_total: usize,
    /// Answer bytes streamed scans are owed, which do not count against
    /// `max_total` (a scan of 65,536² calls is not a flood of output).
    pub(super) allowance: usize,
}

fn nonblocking(fd: BorrowedFd) -> io::Result<()> {
    let flags = OFlag::from_bits_retain(fcntl(fd, FcntlArg::F_GETFL)?);
    fcntl(fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
    Ok(())
}

impl Pipes {
    pub(super) fn new(
        stdin: ChildStdin,
        stdout: PipeReader,
        stderr: PipeReader,
        max_line: usize,
        max_total: usize,
    ) -> io::Result<Pipes> {
        nonblocking(stdin.as_fd())?;
        nonblocking(stdout.as_fd())?;
        nonblocking(stderr.as_fd())?;
        // A larger pipe where the system allows; the default otherwise.
        let _ = fcntl(stderr.as_fd(), FcntlArg::F_SETPIPE_SZ(STDERR_PIPE as i32));
        let stderr_capacity = fcntl(stderr.as_fd(), FcntlArg::F_GETPIPE_SZ)
            .map_or(64 << 10, |n| n.max(4096) as usize);
        Ok(Pipes {
            stdin: Some(stdin),
            queued: Vec::new(),
            written: 0,
            stdout,
            buf: Vec::new(),
            start: 0,
            end: 0,
            scanned: 0,
            eof: false,
            stderr: Some(stderr),
            stderr_capacity,
            consumed: 0,
            max_line,
            max_total,
            allowance: 0,
        })
    }

    /// Queues request bytes; they are written when the caller next waits
    /// (so that everything asked between two waits goes in one write).
    pub(super) fn queue(&mut self, bytes: &[u8]) {
        if self.stdin.is_some() {
            self.queued.extend_from_slice(bytes);
        }
    }

    /// The next answer line, waiting until `deadline`; stderr goes to
    /// `stderr` meanwhile.
    pub(super) fn next(
        &mut self,
        deadline: Instant,
        stderr: &mut CappedText,
    ) -> Result<Answer, TimedOut> {
        loop {
            if let Some(answer) = self.take_line() {
                return Ok(answer);
            }
            if self.eof {
                return Ok(self.take_rest());
            }
            self.write_some();
            if self.read_stdout() {
                self.drain_stderr(stderr);
                continue;
            }
            self.wait(deadline, stderr)?;
        }
    }

    /// Reads what the engine has written to stderr so far, without
    /// waiting: at most one pipe-full (everything, when the writer is known
    /// to be gone); the bytes read.
    pub(super) fn drain_stderr(&mut self, sink: &mut CappedText) -> usize {
        let mut total = 0;
        while total < self.stderr_capacity {
            match self.read_stderr(sink) {
                0 => break,
                n => total += n,
            }
        }
        total
    }

    /// Reads stderr until its end of file or `deadline` (the engine was
    /// ended: its bytes are all in the pipe, or soon will be).
    pub(super) fn drain_stderr_until_eof(&mut self, deadline: Instant, sink: &mut CappedText) {
        while self.stderr.is_some() {
            self.drain_stderr(sink);
            let Some(stderr) = &self.stderr else { break };
            let Some(timeout) = poll_timeout(deadline) else {
                break;
            };
            let mut fds = [PollFd::new(stderr.as_fd(), PollFlags::POLLIN)];
            if matches!(poll(&mut fds, timeout), Ok(0)) {
                break;
            }
        }
    }

    /// One complete line from the buffer, or a verdict on it.
    fn take_line(&mut self) -> Option<Answer> {
        let pending = &self.buf[self.start..self.end];
        match pending[self.scanned..].iter().position(|&b| b == b'\n') {
            Some(at) => {
                let len = self.scanned + at;
                let line = &pending[..len];
                if len > self.max_line {
                    return Some(Answer::TooLong);
                }
                self.consumed += len + 1;
                if self.consumed > self.max_total.saturating_add(self.allowance) {
                    return Some(Answer::TooMuch);
                }
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                let text = String::from_utf8_lossy(line).into_owned();
                self.start += len + 1;
                self.scanned = 0;
                if self.start == self.end {
                    self.start = 0;
                    self.end = 0;
                }
                Some(Answer::Line(text))
            }
            None if pending.len() > self.max_line => Some(Answer::TooLong),
            None => {
                self.scanned = pending.len();
                None
            }
        }
    }

    /// At end of file: a last unterminated line, then `Eof`.
    fn take_rest(&mut self) -> Answer {
        let rest = &self.buf[self.start..self.end];
        if rest.is_empty() {
            return Answer::Eof;
        }
        self.consumed += rest.len();
        let text = String::from_utf8_lossy(rest).into_owned();
        self.start = 0;
        self.end = 0;
        self.scanned = 0;
        if self.consumed > self.max_total.saturating_add(self.allowance) {
            return Answer::TooMuch;
        }
        Answer::Line(text)
    }

    /// Writes queued requests until the pipe is full. A failed write means
    /// the engine closed its stdin: nothing more is sent, and how it ended
    /// is found from its stdout.
    fn write_some(&mut self) {
        let Some(stdin) = self.stdin.as_mut() else {
            return;
        };
        while self.written < self.queued.len() {
            match stdin.write(&self.queued[self.written..]) {
                Ok(n) => self.written += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(_) => {
                    self.stdin = None;
                    break;
                }
            }
        }
        self.queued.clear();
        self.written = 0;
    }

    /// One read of stdout; `true` if it got bytes or end of file.
    fn read_stdout(&mut self) -> bool {
        if self.start > 0 && self.start >= self.end / 2 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() < self.end + CHUNK {
            self.buf.resize(self.end + CHUNK, 0);
        }
        let got = loop {
            match self.stdout.read(&mut self.buf[self.end..]) {
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        match got {
            Ok(0) => {
                self.eof = true;
                true
            }
            Ok(n) => {
                self.end += n;
                true
            }
            Err(e) => {
                if e.kind() != ErrorKind::WouldBlock {
                    self.eof = true; // an unreadable pipe ends the answers
                    return true;
                }
                false
            }
        }
    }

    /// One read of stderr into `sink`; the bytes it got.
    fn read_stderr(&mut self, sink: &mut CappedText) -> usize {
        let Some(stderr) = self.stderr.as_mut() else {
            return 0;
        };
        let mut chunk = [0u8; 16 << 10];
        loop {
            return match stderr.read(&mut chunk) {
                Ok(0) => {
                    self.stderr = None;
                    0
                }
                Ok(n) => {
                    sink.push(&chunk[..n]);
                    n
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == ErrorKind::WouldBlock => 0,
                Err(_) => {
                    self.stderr = None;
                    0
                }
            };
        }
    }

    /// Waits until stdout has bytes (queued requests written as the pipe
    /// takes them, stderr glanced at or watched: see the module doc), or
    /// the deadline.
    fn wait(&mut self, deadline: Instant, sink: &mut CappedText) -> Result<(), TimedOut> {
        let mut watch_stderr = false;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let glance = !watch_stderr && self.stderr.is_some() && left > STDERR_GLANCE;
            let until = if glance {
                Instant::now() + STDERR_GLANCE
            } else {
                deadline
            };
            let timeout = poll_timeout(until).ok_or(TimedOut)?;
            let writing = self.stdin.is_some() && self.written < self.queued.len();
            // Not glancing (watching, or the deadline is nearer than a
            // glance): stderr is polled with the rest.
            let watched = if glance { None } else { self.stderr.as_ref() };
            let (out_ready, err_ready, in_ready, idle) = {
                let mut fds = Vec::with_capacity(3);
                fds.push(PollFd::new(self.stdout.as_fd(), PollFlags::POLLIN));
                if let Some(e) = watched {
                    fds.push(PollFd::new(e.as_fd(), PollFlags::POLLIN));
                }
                if writing && let Some(i) = &self.stdin {
                    fds.push(PollFd::new(i.as_fd(), PollFlags::POLLOUT));
                }
                let idle = match poll(&mut fds, timeout) {
                    Ok(n) => n == 0,
                    Err(nix::errno::Errno::EINTR) => continue,
                    // Cannot poll: read and write blindly; the loop in
                    // `next` still ends at the deadline.
                    Err(_) => return Ok(()),
                };
                let ready = |fd: &PollFd| fd.any().unwrap_or(true);
                let err_at = watched.is_some().then_some(1);
                let in_at = writing.then_some(fds.len() - 1);
                (
                    ready(&fds[0]),
                    err_at.is_some_and(|i| ready(&fds[i])),
                    in_at.is_some_and(|i| ready(&fds[i])),
                    idle,
                )
            };
            if idle && glance {
                // Half a pipe or more since the last look: a flood; watch
                // stderr until the answer comes.
                watch_stderr = self.drain_stderr(sink) >= self.stderr_capacity / 2;
                continue;
            }
            if err_ready {
                self.read_stderr(sink);
            }
            if in_ready {
                self.write_some();
            }
            if out_ready {
                return Ok(());
            }
        }
    }
}

/// What is left until `deadline`, rounded up to poll's milliseconds;
/// `None` once it has passed.
fn poll_timeout(deadline: Instant) -> Option<PollTimeout> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return None;
    }
    let ms = left.as_millis().saturating_add(1).min(i32::MAX as u128);
    let ms = Duration::from_millis(ms as u64);
    Some(PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    /// Pipes to `sh -c script`, with the given caps.
    fn shell(script: &str, max_line: usize, max_total: usize) -> (std::process::Child, Pipes) {
        let (out_r, out_w) = io::pipe().unwrap();
        let (err_r, err_w) = io::pipe().unwrap();
        let mut child = Command::new("sh")
            .args(["-c", script])
            .stdin(Stdio::piped())
            .stdout(out_w)
            .stderr(err_w)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let pipes = Pipes::new(stdin, out_r, err_r, max_line, max_total).unwrap();
        (child, pipes)
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(20)
    }

    #[test]
    fn capped_text_keeps_the_start_and_counts_the_rest() {
        let mut c = CappedText::new(4);
        c.push(b"abcdef");
        c.push(b"gh");
        assert_eq!(c.render(), "abcd\n… (4 more bytes not kept)");
    }

    #[test]
    fn lines_come_in_order_with_stderr_on_the_side_and_a_last_partial_line() {
        let (mut child, mut pipes) = shell(
            "read a; echo \"got $a\"; echo oops >&2; printf 'one\\r\\ntwo'",
            100,
            1000,
        );
        let mut err = CappedText::new(100);
        pipes.queue(b"hello\n");
        let next = |p: &mut Pipes, e: &mut CappedText| p.next(soon(), e).unwrap();
        assert_eq!(next(&mut pipes, &mut err), Answer::Line("got hello".into()));
        assert_eq!(next(&mut pipes, &mut err), Answer::Line("one".into()));
        assert_eq!(next(&mut pipes, &mut err), Answer::Line("two".into()));
        assert_eq!(next(&mut pipes, &mut err), Answer::Eof);
        child.wait().unwrap();
        pipes.drain_stderr_until_eof(soon(), &mut err);
        assert_eq!(err.render(), "oops\n");
    }

    #[test]
    fn a_flood_on_stderr_is_drained_while_the_answer_is_awaited() {
        // 20 MB on stderr before the answer: far more than the pipe holds,
        // so the engine blocks unless the glance sees the flood and stderr
        // is watched; every byte is counted, the first kept.
        let (mut child, mut pipes) = shell(
            "head -c 20000000 /dev/zero | tr '\\0' e >&2; echo done",
            100,
            1000,
        );
        let mut err = CappedText::new(10);
        assert_eq!(
            pipes.next(soon(), &mut err),
            Ok(Answer::Line("done".into()))
        );
        child.wait().unwrap();
        pipes.drain_stderr_until_eof(soon(), &mut err);
        assert_eq!(err.render(), "eeeeeeeeee\n… (19999990 more bytes not kept)");
    }

    #[test]
    fn a_request_larger_than_the_pipe_does_not_deadlock_an_engine_that_answers_as_it_reads() {
        // 400,000 requests (~3 MB) queued at once against an engine that
        // echoes each: the write blocks while the engine's answers fill
        // its own pipe, unless answers are read during the write.
        let (mut child, mut pipes) = shell("cat", 100, 1 << 30);
        let mut err = CappedText::new(100);
        let mut batch = Vec::new();
        for i in 0..400_000 {
            batch.extend_from_slice(format!("r{i}\n").as_bytes());
        }
        pipes.queue(&batch);
        for i in 0..400_000 {
            assert_eq!(
                pipes.next(soon(), &mut err).unwrap(),
                Answer::Line(format!("r{i}"))
            );
        }
        drop(pipes);
        child.wait().unwrap();
    }

    #[test]
    fn a_silent_engine_times_out_at_the_deadline() {
        let (mut child, mut pipes) = shell("sleep 30", 100, 1000);
        let started = Instant::now();
        let deadline = started + Duration::from_millis(200);
        let got = pipes.next(deadline, &mut CappedText::new(10));
        assert_eq!(got, Err(TimedOut));
        assert!(Instant::now() >= deadline);
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn too_long_and_too_much_are_told_apart() {
        let (mut child, mut pipes) = shell("printf '%0200d\\n' 0", 100, 1000);
        let got = pipes.next(soon(), &mut CappedText::new(10)).unwrap();
        assert_eq!(got, Answer::TooLong);
        child.wait().unwrap();

        let (mut child, mut pipes) = shell("yes 0123456789", 100, 1000);
        let mut err = CappedText::new(10);
        let mut lines = 0;
        let last = loop {
            match pipes.next(soon(), &mut err).unwrap() {
                Answer::Line(_) => lines += 1,
                other => break other,
            }
        };
        assert_eq!(last, Answer::TooMuch);
        assert_eq!(lines, 1000 / 11, "every whole line within the cap");
        drop(pipes);
        child.kill().unwrap();
        child.wait().unwrap();

        // The allowance (answers owed to streamed scans) raises the cap.
        let (mut child, mut pipes) = shell("yes 0123456789", 100, 1000);
        pipes.allowance = 1100;
        let mut lines = 0;
        while let Answer::Line(_) = pipes.next(soon(), &mut err).unwrap() {
            lines += 1;
        }
        assert_eq!(lines, 2100 / 11);
        drop(pipes);
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn an_engine_that_closed_its_stdin_costs_nothing_more_to_write_to() {
        let (mut child, mut pipes) = shell("exec 0<&-; sleep 0.2; echo done", 100, 1000);
        let mut err = CappedText::new(10);
        pipes.queue(&vec![b'x'; 1 << 20]);
        assert_eq!(
            pipes.next(soon(), &mut err).unwrap(),
            Answer::Line("done".into())
        );
        assert!(pipes.stdin.is_none(), "the failed write dropped stdin");
        child.wait().unwrap();
    }
}
