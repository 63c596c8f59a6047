//! An external engine driven over the line protocol of `docs/protocol.md`
//! (v2, or v1 for engines that only speak that).
//!
//! Each engine runs in the sandbox (own process group and temporary working
//! directory, rlimits on CPU, address space and file size). An engine that
//! declares the `fork` capability is a fork server: it starts once per
//! worker and forks a fresh child per scenario (`BEGIN`/`END`), so no state
//! leaks between scenarios while exec and startup are paid once; any other
//! engine runs one fresh process per scenario.
//!
//! Requests are pipelined: a whole scenario (setup, the initial board,
//! every step with the board after it, and a fork server's `END`) goes in
//! one write, and the answers are read in order, on the caller's own
//! thread ([`pipes`](super::pipes): one `poll` per wait, no helper threads
//! to hand over to). Scans are streamed: requests are generated as they are
//! sent, with at most [`WINDOW`] unanswered at any time, so memory stays
//! flat however many calls a scan makes (65,536² on a 256×256 board); an
//! engine with the `scan` capability expands scans itself and answers only
//! the results. Every wait is bounded by the scenario's wall-clock deadline
//! (a scan that cannot finish in time is a timeout); on a failure the whole
//! process group is killed. Nothing here sleeps for a fixed time: every
//! wait is for an answer, an end of file or an exit.
//!
//! A fork server's `ENDED` (its child exited) is read lazily: when the next
//! scenario starts, or when the report asks for the scenario's stderr, so
//! that the child's exit overlaps with the grader judging the scenario.
//!
//! Under a memory check ([`ProcessSubject::with_memcheck`]) every scenario
//! has a process of its own (the checked adapter is no fork server); after
//! `QUIT` the grader waits for it to end (the board's destructor and the
//! leak check run then) and reads the tool's findings from its scratch
//! folder, and the next scenario's process is started while it ends (a
//! spare, spoken to only when its scenario comes).

use super::pipes::{Answer, CappedText, Pipes, TimedOut};
use super::{Setup, StepsRun, Subject, SubjectError};
use crate::domain::{Coord, Dims, Role, Square};
use crate::engine::{BoardText, GameStatus, MoveError, RuleSet, RuleSetId, Scores};
use crate::memcheck::{Checked, Checker, Findings};
use crate::protocol::{self, Capabilities, Ended, Hello, Request, ScanKind};
use crate::sandbox::{self, Ending, OutputClosed, Sandboxed, Streams};
pub use crate::sandbox::{EngineCommand, Limits};
use crate::scenario::{Step, StepKind};
use crate::trace::Outcome;
use std::io::Write;
use std::time::{Duration, Instant};

/// The newest protocol version this grader speaks (it also speaks v1).
pub const PROTOCOL_VERSION: u32 = protocol::V2;

/// Requests in flight (sent, not yet answered) during a streamed scan.
pub const WINDOW: usize = 1 << 14;
/// Requests per write during a streamed scan.
const CHUNK: usize = 1 << 10;

/// An external engine as a [`Subject`].
pub struct ProcessSubject {
    command: EngineCommand,
    limits: Limits,
    running: Option<Running>,
    /// The current board size, to check `BOARD` answers and expand scans.
    dims: Option<Dims>,
    /// The current scenario's wall-clock deadline.
    deadline: Instant,
    /// What the engine wrote to stderr during the current scenario (capped).
    stderr: CappedText,
    /// Setup requests sent whose `OK` is not read yet: the setup does not
    /// wait for them, so that they travel with the first call (one round
    /// trip for setup and initial board); they are read, in order, before
    /// any other answer.
    unconfirmed: Vec<Request>,
    /// The engine is the grader's adapter kit ([`ProcessSubject::with_kit`]).
    kit: bool,
    /// The memory check of every process started ([`ProcessSubject::with_memcheck`]).
    memcheck: Option<Checker>,
    /// The program's own memory limit (`limits` may be the checker's).
    program_memory: u64,
    /// What the memory check found in the current scenario's processes.
    findings: Option<Findings>,
    /// A checked engine started ahead for the next scenario (see `finish`):
    /// its start overlaps the previous one's end and leak check. Nothing is
    /// sent to it before its scenario; it is ended with the subject.
    spare: Option<Running>,
    /// A folder of the current scenario's engine was found at its disk
    /// bound when the engine was ended (the folder is gone since).
    disk: Option<sandbox::DiskReached>,
}

struct Running {
    child: Sandboxed,
    pipes: Pipes,
    hello: Hello,
    /// A fork server's child is serving a scenario.
    in_session: bool,
    /// `END` was sent with the scenario's last steps (see `run_steps`).
    end_sent: bool,
    /// The scenario is over and its child told `END`; its `ENDED` is not
    /// read yet (see [`ProcessSubject::settle`]).
    ended_owed: bool,
    _workdir: sandbox::Scratch,
}

/// How long a fork server's child gets, after `END`, to exit and be
/// reported (`ENDED`) before the server is ended and started afresh.
const ENDED_GRACE: Duration = Duration::from_secs(1);

/// How long a memory-checked engine gets at least, after `QUIT`, for its
/// board's destructor and its leak check (valgrind's takes a moment)
/// before it is ended; a fifth of its checked time limit where that is
/// more (valgrind's: 20 s at the default `--timeout`), so that a loaded
/// machine, slowing the tool as it slows the program, cuts no report short.
const MEMCHECK_EXIT_GRACE: Duration = Duration::from_secs(10);

impl ProcessSubject {
    pub fn new(command: EngineCommand, limits: Limits) -> Self {
        let limits_memory = limits.memory_bytes;
        ProcessSubject {
            command,
            limits,
            running: None,
            dims: None,
            deadline: Instant::now(),
            stderr: CappedText::default(),
            unconfirmed: Vec::new(),
            kit: false,
            memcheck: None,
            program_memory: limits_memory,
            findings: None,
            spare: None,
            disk: None,
        }
    }

    /// Checks memory: every process runs under `checker` (its build's
    /// tool, one process per scenario since the checked adapter is no fork
    /// server), with the limits it needs, and each scenario's findings are
    /// read from its processes' scratch folders before those are removed
    /// ([`Subject::memory`]). `None` leaves the subject as it is.
    pub fn with_memcheck(mut self, checker: Option<Checker>) -> Self {
        if let Some(c) = &checker {
            self.limits = c.limits(&self.limits);
        }
        self.memcheck = checker;
        self
    }

    /// The engine is the grader's own adapter kit over a course's classes
    /// (`adapters/kit/`): its `ERR unsupported: <why>` and `ERR hook <name>:
    /// <what>` answers say the scenario cannot be put to those classes
    /// (the staff's problem, [`SubjectError::NotGradable`]), not that the
    /// submission answered wrong.
    pub fn with_kit(mut self) -> Self {
        self.kit = true;
        self
    }

    /// What the engine printed on stderr during the current scenario
    /// (capped): complete once the scenario's process has ended.
    pub fn stderr_excerpt(&mut self) -> String {
        self.settle();
        self.stderr.render()
    }

    /// The handshake the running engine gave (version, capabilities).
    pub fn hello(&self) -> Option<&Hello> {
        self.running.as_ref().map(|r| &r.hello)
    }

    fn reset_stderr(&mut self) {
        self.stderr = CappedText::new(self.limits.max_stderr_bytes);
    }

    /// Starts the engine and shakes hands: `HELLO 2` first; an engine that
    /// answers `HELLO 1`, or `ERR` and then `HELLO 1` to `HELLO 1`, is a v1
    /// engine; any other answer is a malformed one ("protocol version").
    fn spawn(&mut self) -> Result<(), SubjectError> {
        self.stop();
        let run = match self.spare.take() {
            Some(spare) => spare,
            None => self.start()?,
        };
        self.reset_stderr();
        self.running = Some(run);
        let hello = self.handshake().map_err(|e| match e {
            SubjectError::Malformed(m) => SubjectError::Malformed(format!("protocol version: {m}")),
            other => other,
        })?;
        self.running.as_mut().expect("just started").hello = hello;
        Ok(())
    }

    /// Starts an engine process (not yet spoken to): its scratch folder,
    /// the sandbox, the pipes.
    fn start(&self) -> Result<Running, SubjectError> {
        let workdir = sandbox::Scratch::new("chessgrade-run-", &self.limits.disk)
            .map_err(|e| SubjectError::Io(format!("cannot create a working directory: {e}")))?;
        let (command, env) = match &self.memcheck {
            Some(c) => c.command(&self.command, workdir.path(), self.program_memory),
            None => (self.command.clone(), Vec::new()),
        };
        let env: Vec<(&str, std::ffi::OsString)> =
            env.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        let mut child = sandbox::spawn(
            &command,
            &self.limits,
            workdir.path(),
            Streams::Separate,
            &env,
        )
        .map_err(|e| {
            SubjectError::Io(format!(
                "cannot start {}: {e}",
                self.command.program.display()
            ))
        })?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let pipes = Pipes::new(
            stdin,
            stdout,
            stderr,
            self.limits.max_line_bytes,
            self.limits.max_output_bytes,
        )
        .map_err(|e| SubjectError::Io(format!("cannot set up the engine's pipes: {e}")))?;
        Ok(Running {
            child,
            pipes,
            hello: Hello {
                version: protocol::V1,
                caps: Capabilities::default(),
                name: None,
            },
            in_session: false,
            end_sent: false,
            ended_owed: false,
            _workdir: workdir,
        })
    }

    fn handshake(&mut self) -> Result<Hello, SubjectError> {
        let first = self.ask(&Request::Hello(protocol::V2))?;
        let retry_v1 = |s: &mut Self| -> Result<Hello, SubjectError> {
            let again = s.ask(&Request::Hello(protocol::V1))?;
            match Hello::parse(&again) {
                Ok(h) if h.version == protocol::V1 => Ok(h),
                _ => Err(s.malformed(format!(
                    "`HELLO 1` was answered `{}` (this grader speaks versions 1 and 2)",
                    protocol::shorten(&again)
                ))),
            }
        };
        if first.starts_with("ERR") {
            return retry_v1(self);
        }
        match Hello::parse(&first) {
            Ok(h) if h.version == protocol::V2 || h.version == protocol::V1 => Ok(h),
            Ok(h) => Err(self.malformed(format!(
                "`HELLO 2` was answered `{}`: version {} (this grader speaks versions 1 and 2)",
                protocol::shorten(&first),
                h.version
            ))),
            Err(_) => Err(self.malformed(format!(
                "`HELLO 2` was answered `{}` (expected `HELLO 2 ...` or `HELLO 1 ...`)",
                protocol::shorten(&first)
            ))),
        }
    }

    /// Kills the engine's whole process group and reaps it.
    fn stop(&mut self) {
        self.unconfirmed.clear();
        if let Some(mut run) = self.running.take() {
            run.child.end();
            collect_stderr(&mut run, &mut self.stderr);
            self.collect_findings(&run);
            self.disk = self.disk.or_else(|| run._workdir.reached());
        }
    }

    /// Adds what the memory checker reported in an ended engine's scratch
    /// folder to the scenario's findings.
    fn collect_findings(&mut self, run: &Running) {
        let Some(checker) = &self.memcheck else {
            return;
        };
        let found = checker.collect(run._workdir.path());
        self.findings = Some(match self.findings.take() {
            None => found,
            Some(mut earlier) => {
                earlier.errors += found.errors;
                if earlier.error.is_none() {
                    earlier.error = found.error;
                }
                if earlier.leaks.is_none() {
                    earlier.leaks = found.leaks;
                }
                earlier
            }
        });
    }

    /// Reads a finished scenario's `ENDED` (a fork server's child has
    /// exited): its stderr is then complete, and the server ready for the
    /// next `BEGIN`. A child that does not end cleanly within
    /// [`ENDED_GRACE`] takes its server with it (a fresh one serves the
    /// next scenario); the scenario's verdict is already made.
    fn settle(&mut self) {
        let Some(run) = self.running.as_mut().filter(|r| r.ended_owed) else {
            return;
        };
        run.ended_owed = false;
        let until = Instant::now() + ENDED_GRACE;
        let clean = loop {
            match run.pipes.next(until, &mut self.stderr) {
                Ok(Answer::Line(l)) => match protocol::parse_ended(&l) {
                    Some(ended) => break ended == Ended::Exit(0),
                    None => continue, // answers nobody read (after a failure)
                },
                _ => break false,
            }
        };
        if clean {
            // The child is gone: everything it wrote is in the pipe.
            run.pipes.drain_stderr(&mut self.stderr);
        } else {
            self.stop();
        }
    }

    /// A failure in a folder at its disk bound is the disk limit's (the
    /// write that failed there may well be why), saying how it failed too.
    fn on_disk_limit(&self, error: SubjectError) -> SubjectError {
        match Subject::disk_reached(self) {
            Some(reached) if !matches!(error, SubjectError::DiskLimit(_)) => {
                SubjectError::DiskLimit(format!("{reached}; then {error}"))
            }
            _ => error,
        }
    }

    fn malformed(&mut self, what: String) -> SubjectError {
        self.stop();
        SubjectError::Malformed(what)
    }

    fn running(&mut self) -> Result<&mut Running, SubjectError> {
        self.running
            .as_mut()
            .ok_or_else(|| SubjectError::Io("engine not started".into()))
    }

    fn version(&self) -> u32 {
        self.running.as_ref().map_or(0, |r| r.hello.version)
    }

    fn caps(&self) -> Capabilities {
        self.running
            .as_ref()
            .map_or(Capabilities::default(), |r| r.hello.caps)
    }

    /// Queues raw request bytes; they are written when the next answer is
    /// awaited. (An engine that closed its stdin is not an error here: its
    /// end of output reports how it ended.)
    fn send_bytes(&mut self, bytes: Vec<u8>) -> Result<(), SubjectError> {
        self.running()?.pipes.queue(&bytes);
        Ok(())
    }

    fn send(&mut self, requests: &[Request]) -> Result<(), SubjectError> {
        let mut batch = Vec::new();
        for r in requests {
            let _ = writeln!(batch, "{r}");
        }
        self.send_bytes(batch)
    }

    /// One request, one answer line.
    fn ask(&mut self, request: &Request) -> Result<String, SubjectError> {
        self.send(std::slice::from_ref(request))?;
        self.next_answer()
    }

    /// One request, one answer checked by `accept`.
    fn call<T>(
        &mut self,
        request: Request,
        accept: impl Fn(&str) -> Option<T>,
    ) -> Result<T, SubjectError> {
        self.send(std::slice::from_ref(&request))?;
        self.read(&request, accept)
    }

    /// The answer to `request`, already sent, checked by `accept`.
    fn read<T>(
        &mut self,
        request: &Request,
        accept: impl Fn(&str) -> Option<T>,
    ) -> Result<T, SubjectError> {
        let line = self.next_answer()?;
        self.check(request, &line, accept)
    }

    fn check<T>(
        &mut self,
        request: &Request,
        line: &str,
        accept: impl Fn(&str) -> Option<T>,
    ) -> Result<T, SubjectError> {
        match accept(line) {
            Some(v) => Ok(v),
            None if self.kit => {
                let refused = match line.strip_prefix("ERR unsupported: ") {
                    Some(why) => Some(why.to_string()),
                    None => line.strip_prefix("ERR hook ").map(|what| {
                        let (hook, what) = what.split_once(": ").unwrap_or((what, ""));
                        format!("the hook file's `{hook}` hook {what}")
                    }),
                };
                match refused {
                    Some(why) => {
                        self.stop();
                        Err(SubjectError::NotGradable(format!(
                            "{why} (asked `{request}`)"
                        )))
                    }
                    None => Err(self.malformed(format!(
                        "`{request}` was answered `{}`",
                        protocol::shorten(line)
                    ))),
                }
            }
            None => Err(self.malformed(format!(
                "`{request}` was answered `{}`",
                protocol::shorten(line)
            ))),
        }
    }

    /// The multi-line answer to `request`, already sent (`<word> <n>` then `n` lines, each checked).
    fn read_list<T>(
        &mut self,
        request: &Request,
        word: &str,
        accept: impl Fn(&str) -> Option<T>,
    ) -> Result<Vec<T>, SubjectError> {
        let n = self.read(request, |a| protocol::parse_count(a, word))?;
        let mut out = Vec::new();
        for _ in 0..n {
            let item = self.read(request, &accept)?;
            out.push(item);
        }
        Ok(out)
    }

    /// The one request that asks for `step`, if the engine can answer it
    /// as one request (a scan needs the `scan` capability, the richer steps
    /// protocol v2); `None`: the step is asked the slow way, or refused.
    fn step_request(&self, step: &StepKind) -> Option<Request> {
        let v2 = self.version() >= protocol::V2;
        Some(match step {
            StepKind::MovePiece { from, to } => Request::Move(*from, *to),
            StepKind::IsValidScan if self.caps().scan => Request::Scan(ScanKind::Valid),
            StepKind::UnderThreatScan if self.caps().scan => Request::Scan(ScanKind::Threat),
            StepKind::IsValidScan | StepKind::UnderThreatScan => return None,
            _ if !v2 => return None,
            StepKind::Move {
                from,
                to,
                promotion,
                ..
            } => Request::Play {
                from: from.map(Square::coord),
                to: to.map(Square::coord),
                promotion: *promotion,
            },
            StepKind::Perft { depth } => Request::Perft(*depth),
            StepKind::Divide { depth } => Request::Divide(*depth),
            StepKind::Undo => Request::Undo,
            StepKind::Redo => Request::Redo,
            StepKind::Status => Request::Status,
            StepKind::Stop { .. } => Request::Stop,
            StepKind::Score => Request::Score,
            StepKind::Machine { seed } => Request::Machine(*seed),
            StepKind::Save => Request::Save,
        })
    }

    /// The answer to `request` (already sent, made by [`Self::step_request`]
    /// for `step`), as the step's outcome: the same checks as the one-call
    /// methods of [`Subject`].
    fn receive(&mut self, step: &StepKind, request: &Request) -> Result<Outcome, SubjectError> {
        Ok(match step {
            StepKind::MovePiece { .. } | StepKind::Undo | StepKind::Redo => {
                Outcome::Moved(self.read(request, protocol::parse_bool)?)
            }
            StepKind::IsValidScan => Outcome::ValidMoves(self.read_valid_scan(request)?),
            StepKind::UnderThreatScan => Outcome::Threatened(self.read_threat_scan(request)?),
            StepKind::Move { .. } => Outcome::Played(self.read(request, protocol::parse_played)?),
            StepKind::Perft { .. } => Outcome::Count(self.read(request, protocol::parse_perft)?),
            StepKind::Divide { .. } => Outcome::Divide(self.read_divide(request)?),
            StepKind::Status | StepKind::Stop { .. } => {
                Outcome::Status(self.read(request, protocol::parse_status)?)
            }
            StepKind::Score => Outcome::Score(self.read(request, protocol::parse_score)?),
            StepKind::Machine { .. } => {
                Outcome::Machine(self.read(request, protocol::parse_machine)?)
            }
            StepKind::Save => Outcome::Saved(self.read_save(request)?),
        })
    }

    fn read_board(&mut self) -> Result<BoardText, SubjectError> {
        let dims = self.dims()?;
        self.read(&Request::Board, |a| protocol::parse_board(a, dims))
    }

    fn read_valid_scan(
        &mut self,
        request: &Request,
    ) -> Result<Vec<(Square, Square)>, SubjectError> {
        let dims = self.dims()?;
        let mut pairs = self.read_list(request, "SCAN", |l| protocol::parse_valid_line(l, dims))?;
        // Sorted, not deduplicated: a pair listed twice is the engine's
        // answer, shown as it is.
        pairs.sort();
        Ok(pairs)
    }

    fn read_threat_scan(&mut self, request: &Request) -> Result<Vec<Square>, SubjectError> {
        let dims = self.dims()?;
        let mut squares =
            self.read_list(request, "SCAN", |l| protocol::parse_threat_line(l, dims))?;
        squares.sort();
        Ok(squares)
    }

    fn read_divide(&mut self, request: &Request) -> Result<Vec<(String, u64)>, SubjectError> {
        let mut lines = self.read_list(request, "DIVIDE", protocol::parse_divide_line)?;
        lines.sort();
        Ok(lines)
    }

    fn read_save(&mut self, request: &Request) -> Result<Vec<String>, SubjectError> {
        self.read_list(request, "SAVE", |l| Some(l.to_string()))
    }

    /// The next answer, after the `OK`s the setup is owed.
    fn next_answer(&mut self) -> Result<String, SubjectError> {
        if !self.unconfirmed.is_empty() {
            for request in std::mem::take(&mut self.unconfirmed) {
                let line = self.next_line()?;
                self.check(&request, &line, |a| (a == "OK").then_some(()))?;
            }
        }
        self.next_line()
    }

    fn next_line(&mut self) -> Result<String, SubjectError> {
        let deadline = self.deadline;
        let Some(run) = self.running.as_mut() else {
            return Err(SubjectError::Io("engine not started".into()));
        };
        let answer = match run.pipes.next(deadline, &mut self.stderr) {
            Ok(answer) => answer,
            Err(TimedOut) => {
                self.stop();
                return Err(SubjectError::Timeout);
            }
        };
        match answer {
            Answer::Line(line) => {
                if run.in_session
                    && let Some(ended) = protocol::parse_ended(&line)
                {
                    // The scenario's child died. Requests sent after the
                    // one it died on may still wait in the pipe, where the
                    // server would read them as its own: start afresh for
                    // the next scenario rather than risk stray answers.
                    run.in_session = false;
                    self.stop();
                    return Err(match ended {
                        Ended::Exit(code) => SubjectError::ExitedEarly(Some(code)),
                        Ended::Signal(sig) if sig == "SIGXCPU" => SubjectError::Timeout,
                        Ended::Signal(sig) => SubjectError::Crash(sig),
                    });
                }
                Ok(line)
            }
            Answer::TooLong => {
                let max = self.limits.max_line_bytes;
                Err(self.malformed(format!("an answer line longer than {max} bytes")))
            }
            Answer::TooMuch => {
                let max = self.limits.max_output_bytes;
                Err(self.malformed(format!("more than {max} bytes of answers")))
            }
            Answer::Eof => Err(self.ended()),
        }
    }

    /// The engine closed its stdout: find out how it ended.
    fn ended(&mut self) -> SubjectError {
        let Some(mut run) = self.running.take() else {
            return SubjectError::ExitedEarly(None);
        };
        let closed = run.child.after_output_closed(self.deadline);
        collect_stderr(&mut run, &mut self.stderr);
        self.collect_findings(&run);
        self.disk = self.disk.or_else(|| run._workdir.reached());
        if run.child.over_memory() {
            return SubjectError::Crash(format!(
                "SIGKILL: more than {} MiB of resident memory",
                self.limits.memory_bytes >> 20
            ));
        }
        match closed {
            OutputClosed::Ended(Ending::CpuLimit) => SubjectError::Timeout,
            OutputClosed::Ended(Ending::Signalled(sig)) => SubjectError::Crash(sig),
            OutputClosed::Ended(Ending::Exited(code)) => SubjectError::ExitedEarly(Some(code)),
            OutputClosed::KeptRunning => SubjectError::ClosedOutput,
        }
    }

    fn dims(&self) -> Result<Dims, SubjectError> {
        self.dims
            .ok_or_else(|| SubjectError::Io("setup first".into()))
    }

    /// A v2 step over a v1 engine cannot be expressed.
    fn need_v2(&self, step: &str) -> Result<(), SubjectError> {
        if self.version() >= protocol::V2 {
            Ok(())
        } else {
            Err(SubjectError::Unsupported(format!(
                "`{step}` over protocol v1 (the engine answered `HELLO 1`)"
            )))
        }
    }

    /// Streams `count` yes/no requests made by `request(i)`, keeping at most
    /// [`WINDOW`] in flight, and returns the indices answered `1`.
    fn stream_bools(
        &mut self,
        count: usize,
        request: impl Fn(usize) -> Request,
    ) -> Result<Vec<usize>, SubjectError> {
        let (mut sent, mut received) = (0usize, 0usize);
        let mut yes = Vec::new();
        while received < count {
            // Refill a whole chunk at a time once the window has room for
            // one: at most WINDOW requests (and their answers) in flight.
            while sent < count && sent - received + CHUNK <= WINDOW {
                let end = (sent + CHUNK).min(count);
                let mut batch = Vec::with_capacity((end - sent) * 24);
                for i in sent..end {
                    let _ = writeln!(batch, "{}", request(i));
                }
                let expected = 2 * (end - sent); // `0\n` or `1\n` each
                sent = end;
                self.running()?.pipes.allowance += expected;
                self.send_bytes(batch)?;
            }
            let line = self.next_answer()?;
            if self.check(&request(received), &line, protocol::parse_bool)? {
                yes.push(received);
            }
            received += 1;
        }
        Ok(yes)
    }

    /// Queues every step's request, each followed by `BOARD` (and a fork
    /// server's `END` after the last: nothing follows but [`Subject::finish`];
    /// a child that fails earlier takes its server with it, see
    /// `next_line`). `None`, with nothing queued, when a step is not one
    /// request.
    fn queue_steps(&mut self, steps: &[Step]) -> Option<Vec<Request>> {
        let requests: Vec<Request> = steps
            .iter()
            .map(|s| self.step_request(&s.kind))
            .collect::<Option<_>>()?;
        let mut batch = Vec::with_capacity(requests.len() * 16);
        for r in &requests {
            let _ = writeln!(batch, "{r}\n{}", Request::Board);
        }
        let run = self.running.as_mut()?;
        if run.hello.caps.fork && run.in_session {
            let _ = writeln!(batch, "{}", Request::End);
            run.end_sent = true;
        }
        run.pipes.queue(&batch);
        Some(requests)
    }

    /// The answers to steps queued by [`Self::queue_steps`], in order,
    /// until one fails.
    fn read_steps(&mut self, steps: &[Step], requests: &[Request]) -> StepsRun {
        let mut run = StepsRun::default();
        for (i, (step, request)) in steps.iter().zip(requests).enumerate() {
            let done = self
                .receive(&step.kind, request)
                .and_then(|outcome| Ok((outcome, self.read_board()?)));
            match done {
                Ok(done) => run.done.push(done),
                Err(error) => {
                    run.failure = Some((i, error));
                    break;
                }
            }
        }
        run
    }
}

impl Drop for ProcessSubject {
    fn drop(&mut self) {
        self.stop();
        if let Some(mut spare) = self.spare.take() {
            spare.child.end();
        }
    }
}

/// A course's own rules (a rule file's, not its family's built-in set),
/// or `None` for a built-in set (with its Mystery shape).
fn own_rules(rules: &RuleSet) -> Option<RuleSet> {
    let family = RuleSet {
        mystery: rules.mystery,
        ..rules.id.rules()
    };
    (!rules.same_rules(&family)).then_some(family)
}

/// Can protocol v1 (the Lab 3 interface) express this setup?
fn v1_can_express(setup: &Setup) -> bool {
    setup.rules.id == RuleSetId::Lab3
        && setup.fen.is_none()
        && setup.turn.is_none()
        && setup.rules.mystery.is_none()
}

impl ProcessSubject {
    /// What `RULES` tells the engine: the scenario's rules, as tokens for a
    /// rule file's changes when the engine declares `rules`. Without it, a
    /// Lab 3 family's rules are the student's code's to implement (the
    /// interface cannot be told any), so the family's name is sent; any
    /// other course's own rules cannot be played: the scenario is
    /// `unsupported`.
    fn rules_to_tell(&mut self, setup: &Setup) -> Result<RuleSet, SubjectError> {
        match own_rules(&setup.rules) {
            None => Ok(setup.rules),
            Some(_) if self.caps().rules => Ok(setup.rules),
            Some(family) if setup.rules.id == RuleSetId::Lab3 => Ok(family),
            Some(_) => {
                self.stop();
                Err(SubjectError::Unsupported(format!(
                    "the rule file `{}` over an engine without the `rules` capability (it would play the built-in `{}`)",
                    setup.rules.name, setup.rules.id
                )))
            }
        }
    }
}

impl Subject for ProcessSubject {
    fn setup(&mut self, setup: &Setup) -> Result<(), SubjectError> {
        self.settle();
        if self.memcheck.is_some() {
            // Whatever ran before is not this scenario's to report.
            self.stop();
            self.findings = None;
        }
        // A folder found full before is not this scenario's to report (a
        // fork server's folder, should it still be full, is looked at again).
        self.disk = None;
        self.deadline = Instant::now() + self.limits.timeout;
        self.dims = Some(setup.dims);
        let reusable = self
            .running
            .as_ref()
            .is_some_and(|r| r.hello.caps.fork && !r.in_session);
        if !reusable {
            self.spawn()?;
        }
        let version = self.version();
        if version < protocol::V2 && !v1_can_express(setup) {
            self.stop();
            return Err(SubjectError::Unsupported(format!(
                "{} scenarios{} over protocol v1 (the engine answered `HELLO 1`)",
                setup.rules.id,
                if setup.rules.id == RuleSetId::Lab3 {
                    " with a FEN, board picture or Mystery piece"
                } else {
                    ""
                }
            )));
        }
        let mut requests = Vec::new();
        if self.caps().fork {
            self.reset_stderr();
            requests.push(Request::Begin);
            let run = self.running()?;
            run.in_session = true;
            run.end_sent = false;
        }
        let mut expect_ok = Vec::new();
        if version >= protocol::V2 {
            expect_ok.push(Request::Rules(Box::new(self.rules_to_tell(setup)?)));
        }
        match setup.fen {
            Some(fen) => expect_ok.push(Request::Fen(fen.to_string())),
            None => expect_ok.push(Request::New(setup.dims)),
        }
        expect_ok.extend(setup.placements.iter().map(|p| Request::Place {
            color: p.color,
            role: p.role,
            square: p.square.coord(),
        }));
        if let Some(turn) = setup.turn {
            expect_ok.push(Request::Turn(turn));
        }
        requests.extend(expect_ok.iter().cloned());
        self.send(&requests)?;
        // Checked before the next answer is read (see `unconfirmed`).
        self.unconfirmed = expect_ok;
        Ok(())
    }

    fn valid_scan(&mut self) -> Result<Vec<(Square, Square)>, SubjectError> {
        let dims = self.dims()?;
        if self.caps().scan {
            let request = Request::Scan(ScanKind::Valid);
            self.send(std::slice::from_ref(&request))?;
            return self.read_valid_scan(&request);
        }
        let n = dims.len();
        let pair = |i: usize| (dims.square_of_index(i / n), dims.square_of_index(i % n));
        let yes = self.stream_bools(n * n, |i| {
            let (f, t) = pair(i);
            Request::Valid(f.coord(), t.coord())
        })?;
        Ok(yes.into_iter().map(pair).collect())
    }

    fn threat_scan(&mut self) -> Result<Vec<Square>, SubjectError> {
        let dims = self.dims()?;
        if self.caps().scan {
            let request = Request::Scan(ScanKind::Threat);
            self.send(std::slice::from_ref(&request))?;
            return self.read_threat_scan(&request);
        }
        let yes = self.stream_bools(dims.len(), |i| {
            Request::Threat(dims.square_of_index(i).coord())
        })?;
        Ok(yes.into_iter().map(|i| dims.square_of_index(i)).collect())
    }

    fn move_piece(&mut self, from: Coord, to: Coord) -> Result<bool, SubjectError> {
        self.call(Request::Move(from, to), protocol::parse_bool)
    }

    fn board(&mut self) -> Result<BoardText, SubjectError> {
        self.send(&[Request::Board])?;
        self.read_board()
    }

    fn play(
        &mut self,
        from: Option<Square>,
        to: Option<Square>,
        promotion: Option<Role>,
    ) -> Result<Result<(), MoveError>, SubjectError> {
        self.need_v2("move")?;
        let request = Request::Play {
            from: from.map(Square::coord),
            to: to.map(Square::coord),
            promotion,
        };
        self.call(request, protocol::parse_played)
    }

    fn perft(&mut self, depth: u32) -> Result<u64, SubjectError> {
        self.need_v2("perft")?;
        self.call(Request::Perft(depth), protocol::parse_perft)
    }

    fn divide(&mut self, depth: u32) -> Result<Vec<(String, u64)>, SubjectError> {
        self.need_v2("divide")?;
        let request = Request::Divide(depth);
        self.send(std::slice::from_ref(&request))?;
        self.read_divide(&request)
    }

    fn undo(&mut self) -> Result<bool, SubjectError> {
        self.need_v2("undo")?;
        self.call(Request::Undo, protocol::parse_bool)
    }

    fn redo(&mut self) -> Result<bool, SubjectError> {
        self.need_v2("redo")?;
        self.call(Request::Redo, protocol::parse_bool)
    }

    fn status(&mut self) -> Result<GameStatus, SubjectError> {
        self.need_v2("status")?;
        self.call(Request::Status, protocol::parse_status)
    }

    fn score(&mut self) -> Result<Scores, SubjectError> {
        self.need_v2("score")?;
        self.call(Request::Score, protocol::parse_score)
    }

    fn stop(&mut self) -> Result<GameStatus, SubjectError> {
        self.need_v2("stop")?;
        self.call(Request::Stop, protocol::parse_status)
    }

    fn machine(&mut self, seed: u64) -> Result<Option<String>, SubjectError> {
        self.need_v2("machine")?;
        self.call(Request::Machine(seed), protocol::parse_machine)
    }

    fn save(&mut self) -> Result<Vec<String>, SubjectError> {
        self.need_v2("save")?;
        self.send(&[Request::Save])?;
        self.read_save(&Request::Save)
    }

    /// The whole scenario in one write: the setup, `BOARD`, and (when
    /// every step is one request, see `Self::queue_steps`) the steps; then
    /// the answers in order. One round trip for the scenario.
    fn run_scenario(
        &mut self,
        setup: &Setup,
        steps: &[Step],
    ) -> Result<(BoardText, StepsRun), SubjectError> {
        let started = self.setup(setup).and_then(|()| {
            self.send(&[Request::Board])?;
            let queued = self.queue_steps(steps);
            Ok((queued, self.read_board()?))
        });
        let (queued, board) = started.map_err(|e| self.on_disk_limit(e))?;
        let mut run = match queued {
            Some(requests) => self.read_steps(steps, &requests),
            None => super::run_steps_one_by_one(self, steps),
        };
        run.failure = run.failure.map(|(i, e)| (i, self.on_disk_limit(e)));
        Ok((board, run))
    }

    /// Sends every step's request, each followed by `BOARD`, in one write,
    /// then reads the answers in order: one round trip for the steps. The
    /// engine still serves them one by one, in order, exactly as if each
    /// were asked alone (the grader never decides what to ask from an
    /// earlier answer: every step runs, right or wrong). A scenario with a
    /// step that is not one request (a scan without the `scan` capability:
    /// streamed; a step v1 cannot express: refused) is asked one call at a
    /// time.
    fn run_steps(&mut self, steps: &[Step]) -> StepsRun {
        let mut run = match self.queue_steps(steps) {
            Some(requests) => self.read_steps(steps, &requests),
            None => super::run_steps_one_by_one(self, steps),
        };
        run.failure = run.failure.map(|(i, e)| (i, self.on_disk_limit(e)));
        run
    }

    /// Ends the scenario. A fork server's child is told `END` (if it was
    /// not with the last step) and its `ENDED` is read later (`Self::settle`);
    /// any other engine is told `QUIT` and given until its end of output
    /// (at most a moment) to exit before its group is ended. No fixed
    /// sleep: each wait ends on an event.
    fn finish(&mut self) {
        self.unconfirmed.clear();
        let Some(run) = self.running.as_mut() else {
            return;
        };
        if run.hello.caps.fork {
            if !run.in_session {
                return; // the child already ended (its ENDED was read)
            }
            if !run.end_sent {
                run.pipes.queue(b"END\n");
            }
            run.in_session = false;
            run.ended_owed = true;
            return;
        }
        run.pipes.queue(b"QUIT\n");
        // A checked engine finds its leaks on the way out: its end is waited
        // for, while the next scenario's engine starts.
        let grace = match self.memcheck {
            Some(_) => (self.limits.timeout / 5).max(MEMCHECK_EXIT_GRACE),
            None => Duration::from_millis(200),
        };
        let until = Instant::now() + grace;
        if let Some(run) = self.running.as_mut() {
            // QUIT is on its way before the spare is started.
            let _ = run.pipes.next(Instant::now(), &mut self.stderr);
        }
        if self.memcheck.is_some() && self.spare.is_none() {
            self.spare = self.start().ok();
        }
        let Some(run) = self.running.as_mut() else {
            return;
        };
        while let Ok(Answer::Line(_)) = run.pipes.next(until, &mut self.stderr) {}
        if self.memcheck.is_some()
            && let Some(run) = self.running.as_mut()
        {
            run.child.wait_until(until);
        }
        self.stop();
    }

    fn stderr_excerpt(&mut self) -> Option<String> {
        Some(ProcessSubject::stderr_excerpt(self)).filter(|s| !s.is_empty())
    }

    fn disk_reached(&self) -> Option<sandbox::DiskReached> {
        self.disk
            .or_else(|| self.running.as_ref().and_then(|r| r._workdir.reached()))
    }

    fn memory(&mut self) -> Option<Checked> {
        let checker = self.memcheck.as_ref()?;
        let (tool, errors) = (checker.tool(), checker.memcheck.policy.errors);
        Some(Checked {
            findings: self.findings.take().unwrap_or_else(|| Findings::none(tool)),
            errors,
        })
    }
}

/// Keeps what an ended engine wrote to stderr (every writer is gone, so
/// its end of file comes at once; should an escaped process hold the pipe,
/// the grader does not wait for it long).
fn collect_stderr(run: &mut Running, sink: &mut CappedText) {
    let until = Instant::now() + Duration::from_millis(500);
    run.pipes.drain_stderr_until_eof(until, sink);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A strict v1 engine: `ERR` to `HELLO 2`, then `HELLO 1`.
    const V1_ENGINE: &str = "import sys\nfor line in sys.stdin:\n    t = line.split()\n    if t == ['HELLO', '1']: print('HELLO 1 tiny', flush=True)\n    elif t[0] == 'HELLO': print('ERR unsupported protocol version', flush=True)\n    elif t[0] == 'QUIT': break\n    else: print('OK', flush=True)\n";

    fn python(script: &str) -> (tempfile::TempDir, EngineCommand) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("engine.py");
        std::fs::write(&path, script).unwrap();
        let command = EngineCommand {
            program: PathBuf::from("python3"),
            args: vec![path.into_os_string()],
        };
        (dir, command)
    }

    #[test]
    fn a_v1_engine_is_recognised_and_richer_setups_are_unsupported() {
        let (_dir, command) = python(V1_ENGINE);
        for text in [
            "@rules jhu\n1\n8 8\n~\n",
            "1\nfen 8/8/8/8/8/8/8/K6k w - - 0 1\n~\n",
            "1\nboard\nK-\nb\n~\n",
            "@mystery leaper 1,2\n1\n2 2\n~\n",
        ] {
            let scenario = crate::scenario::parse(text).unwrap();
            let mut subject = ProcessSubject::new(command.clone(), Limits::default());
            let err = subject.setup(&Setup::of(&scenario)).unwrap_err();
            assert!(matches!(err, SubjectError::Unsupported(_)), "{text}: {err}");
        }
        let scenario = crate::scenario::parse("1\n2 2\nw k 0 0\n~\n").unwrap();
        let mut subject = ProcessSubject::new(command, Limits::default());
        subject.setup(&Setup::of(&scenario)).unwrap();
        assert_eq!(subject.hello().unwrap().version, 1);
        assert!(matches!(subject.undo(), Err(SubjectError::Unsupported(_))));
        subject.finish();
    }

    /// A v1 engine that logs every request to stderr, answers `OK`, `1`
    /// to moves and an empty 2×2 board, and exits at its second `MOVE`.
    const LOGGING_ENGINE: &str = "import sys\nmoves = 0\nfor line in sys.stdin:\n    t = line.split()\n    sys.stderr.write(line); sys.stderr.flush()\n    if t == ['HELLO', '2']: print('ERR unsupported', flush=True)\n    elif t[0] == 'HELLO': print('HELLO 1 log', flush=True)\n    elif t[0] == 'MOVE':\n        moves += 1\n        if moves == 2: sys.exit(3)\n        print('1', flush=True)\n    elif t[0] == 'BOARD': print('BOARD ../..', flush=True)\n    elif t[0] == 'QUIT': break\n    else: print('OK', flush=True)\n";

    #[test]
    fn pipelined_steps_keep_the_order_and_stop_at_the_failing_step() {
        let (_dir, command) = python(LOGGING_ENGINE);
        let scenario = crate::scenario::parse(
            "1\n2 2\nw k 0 0\n~\nmovePiece 0 0 0 1\nmovePiece 0 1 1 1\nmovePiece 1 1 1 0\n",
        )
        .unwrap();
        let mut subject = ProcessSubject::new(command, Limits::default());
        subject.setup(&Setup::of(&scenario)).unwrap();
        assert_eq!(subject.board().unwrap().as_str(), "../..");
        let run = subject.run_steps(&scenario.steps);
        assert_eq!(run.done.len(), 1, "the first step and its board");
        assert_eq!(run.done[0].0, Outcome::Moved(true));
        assert_eq!(run.failure, Some((1, SubjectError::ExitedEarly(Some(3)))));
        subject.finish();
        // The engine saw the setup (its OKs read with the first board),
        // then each step followed by BOARD, in order, up to where it died.
        let log = subject.stderr_excerpt();
        let seen: Vec<&str> = log.lines().skip_while(|l| !l.starts_with("NEW")).collect();
        assert_eq!(
            seen,
            [
                "NEW 2 2",
                "PLACE w k 0 0",
                "BOARD",
                "MOVE 0 0 0 1",
                "BOARD",
                "MOVE 0 1 1 1"
            ]
        );
    }

    #[test]
    fn a_setup_the_engine_refuses_fails_before_the_first_board() {
        let (_dir, command) = python(
            "import sys\nfor line in sys.stdin:\n    t = line.split()\n    if t[0] == 'HELLO': print('HELLO 2 x', flush=True)\n    elif t[0] == 'PLACE': print('ERR no', flush=True)\n    elif t[0] == 'BOARD': print('BOARD ../..', flush=True)\n    else: print('OK', flush=True)\n",
        );
        let scenario = crate::scenario::parse("1\n2 2\nw k 0 0\n~\n").unwrap();
        let mut subject = ProcessSubject::new(command, Limits::default());
        subject.setup(&Setup::of(&scenario)).unwrap();
        let err = subject.board().unwrap_err();
        let SubjectError::Malformed(msg) = err else {
            panic!("{err}")
        };
        assert!(
            msg.contains("PLACE w k 0 0") && msg.contains("ERR no"),
            "{msg}"
        );
    }

    #[test]
    fn an_unknown_version_is_a_clear_malformed_answer() {
        let (_dir, command) =
            python("print('HELLO 3 future', flush=True)\nimport sys\nsys.stdin.read()\n");
        let scenario = crate::scenario::parse("1\n2 2\n~\n").unwrap();
        let mut subject = ProcessSubject::new(command, Limits::default());
        let err = subject.setup(&Setup::of(&scenario)).unwrap_err();
        let SubjectError::Malformed(msg) = err else {
            panic!("{err}")
        };
        assert!(msg.starts_with("protocol version:"), "{msg}");
        assert!(msg.contains("version 3"), "{msg}");
        assert!(msg.contains("speaks versions 1 and 2"), "{msg}");
    }
}
