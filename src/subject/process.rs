//! An external engine driven over the line protocol of `docs/protocol.md`.
//!
//! One fresh process per scenario, in its own process group and temporary
//! working directory, under rlimits (CPU seconds, address space, file size,
//! no core dumps). Requests are pipelined: a writer thread feeds stdin from
//! a queue while the caller drains answers that a reader thread collects,
//! so a 65,536-call scan never deadlocks on full pipes and never costs a
//! round trip per call. Every wait is bounded by the scenario's wall-clock
//! deadline; on any failure the whole process group is killed.

use super::{Setup, Subject, SubjectError};
use crate::domain::{Coord, Dims, Square};
use crate::engine::BoardText;
use crate::sandbox::{self, Ending, OutputClosed, Sandboxed, Streams};
pub use crate::sandbox::{EngineCommand, Limits};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::ChildStdin;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// The protocol version this grader speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// An external engine as a [`Subject`].
pub struct ProcessSubject {
    command: EngineCommand,
    limits: Limits,
    running: Option<Running>,
    /// The current board size, to check `BOARD` answers and expand scans.
    dims: Option<Dims>,
    /// What the last process wrote to stderr (capped).
    stderr: Arc<Mutex<CappedText>>,
}

struct Running {
    child: Sandboxed,
    requests: Sender<Vec<u8>>,
    answers: Receiver<ReadEvent>,
    /// Signalled when the stderr drain reaches end of file.
    stderr_done: Receiver<()>,
    deadline: Instant,
    _workdir: tempfile::TempDir,
}

enum ReadEvent {
    Line(String),
    TooLong,
    TooMuch,
    Eof,
}

impl ProcessSubject {
    pub fn new(command: EngineCommand, limits: Limits) -> Self {
        ProcessSubject {
            command,
            limits,
            running: None,
            dims: None,
            stderr: Arc::new(Mutex::new(CappedText::default())),
        }
    }

    /// What the engine printed on stderr during the current scenario (capped).
    pub fn stderr_excerpt(&self) -> String {
        self.stderr.lock().map(|s| s.render()).unwrap_or_default()
    }

    fn spawn(&mut self) -> Result<(), SubjectError> {
        self.stop();
        let workdir = tempfile::Builder::new()
            .prefix("chessgrade-run-")
            .tempdir()
            .map_err(|e| SubjectError::Io(format!("cannot create a working directory: {e}")))?;
        let mut child = sandbox::spawn(
            &self.command,
            &self.limits,
            workdir.path(),
            Streams::Separate,
            &[],
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
        *self.stderr.lock().expect("stderr buffer") = CappedText::new(self.limits.max_stderr_bytes);
        let stderr_done = spawn_stderr_drain(stderr, Arc::clone(&self.stderr));
        let answers = spawn_reader(
            stdout,
            self.limits.max_line_bytes,
            self.limits.max_output_bytes,
        );
        let requests = spawn_writer(stdin);
        self.running = Some(Running {
            child,
            requests,
            answers,
            stderr_done,
            deadline: Instant::now() + self.limits.timeout,
            _workdir: workdir,
        });
        Ok(())
    }

    /// Kills the engine's whole process group and reaps it.
    fn stop(&mut self) {
        if let Some(mut run) = self.running.take() {
            run.child.end();
            collect_stderr(&run);
        }
    }

    /// Sends `requests` (one per line) in one go and returns one answer per
    /// request, each checked by `accept`.
    fn call<T>(
        &mut self,
        requests: &[String],
        accept: impl Fn(&str) -> Option<T>,
    ) -> Result<Vec<T>, SubjectError> {
        let run = self
            .running
            .as_mut()
            .ok_or_else(|| SubjectError::Io("engine not started".into()))?;
        let mut batch = Vec::with_capacity(requests.iter().map(|r| r.len() + 1).sum());
        for r in requests {
            batch.extend_from_slice(r.as_bytes());
            batch.push(b'\n');
        }
        // A closed queue means the writer saw the engine's stdin close; the
        // reader will report the exit, so the error here is not final.
        let _ = run.requests.send(batch);
        let mut out = Vec::with_capacity(requests.len());
        for request in requests {
            let line = self.next_answer()?;
            match accept(&line) {
                Some(v) => out.push(v),
                None => {
                    self.stop();
                    return Err(SubjectError::Malformed(format!(
                        "`{request}` was answered `{}`",
                        shorten(&line)
                    )));
                }
            }
        }
        Ok(out)
    }

    fn next_answer(&mut self) -> Result<String, SubjectError> {
        let run = self.running.as_mut().expect("checked by call");
        let left = run.deadline.saturating_duration_since(Instant::now());
        let event = match run.answers.recv_timeout(left) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => {
                self.stop();
                return Err(SubjectError::Timeout);
            }
            Err(RecvTimeoutError::Disconnected) => ReadEvent::Eof,
        };
        match event {
            ReadEvent::Line(line) => Ok(line),
            ReadEvent::TooLong => {
                self.stop();
                Err(SubjectError::Malformed(format!(
                    "an answer line longer than {} bytes",
                    self.limits.max_line_bytes
                )))
            }
            ReadEvent::TooMuch => {
                self.stop();
                Err(SubjectError::Malformed(format!(
                    "more than {} bytes of answers",
                    self.limits.max_output_bytes
                )))
            }
            ReadEvent::Eof => Err(self.ended()),
        }
    }

    /// The engine closed its stdout: find out how it ended.
    fn ended(&mut self) -> SubjectError {
        let Some(mut run) = self.running.take() else {
            return SubjectError::ExitedEarly(None);
        };
        let closed = run.child.after_output_closed(run.deadline);
        collect_stderr(&run);
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
}

impl Drop for ProcessSubject {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Subject for ProcessSubject {
    fn setup(&mut self, setup: &Setup) -> Result<(), SubjectError> {
        let (rules, dims, placements) = (setup.rules, setup.dims, setup.placements);
        // Protocol v1 mirrors the Lab 3 interface: no FEN, no side to move,
        // no special moves, no Mystery piece.
        let plain_setup = setup.fen.is_none() && setup.turn.is_none() && rules.mystery.is_none();
        if rules.id != crate::engine::RuleSetId::Lab3 || !plain_setup {
            return Err(SubjectError::Unsupported(format!(
                "{} scenarios{} over protocol v{PROTOCOL_VERSION}",
                rules.id,
                if plain_setup {
                    ""
                } else {
                    " with a FEN, board picture or Mystery piece"
                }
            )));
        }
        self.spawn()?;
        self.dims = Some(dims);
        let hello = format!("HELLO {PROTOCOL_VERSION}");
        let version_ok =
            |a: &str| (a == hello || a.starts_with(&format!("{hello} "))).then_some(());
        self.call(std::slice::from_ref(&hello), version_ok)
            .map_err(|e| match e {
                SubjectError::Malformed(m) => {
                    SubjectError::Malformed(format!("protocol version: {m}"))
                }
                other => other,
            })?;
        let mut requests = vec![format!("NEW {} {}", dims.rows(), dims.cols())];
        requests.extend(placements.iter().map(|p| {
            format!(
                "PLACE {} {} {} {}",
                p.color.letter(),
                p.role.letter(),
                p.square.row,
                p.square.col
            )
        }));
        self.call(&requests, |a| (a == "OK").then_some(()))?;
        Ok(())
    }

    fn valid_scan(&mut self) -> Result<Vec<(Square, Square)>, SubjectError> {
        let dims = self.dims()?;
        let pairs: Vec<(Square, Square)> = dims
            .squares()
            .flat_map(|from| dims.squares().map(move |to| (from, to)))
            .collect();
        let requests: Vec<String> = pairs
            .iter()
            .map(|(f, t)| format!("VALID {f} {t}"))
            .collect();
        let answers = self.call(&requests, parse_bool)?;
        Ok(pairs
            .into_iter()
            .zip(answers)
            .filter(|(_, ok)| *ok)
            .map(|(p, _)| p)
            .collect())
    }

    fn threat_scan(&mut self) -> Result<Vec<Square>, SubjectError> {
        let dims = self.dims()?;
        let squares: Vec<Square> = dims.squares().collect();
        let requests: Vec<String> = squares.iter().map(|s| format!("THREAT {s}")).collect();
        let answers = self.call(&requests, parse_bool)?;
        Ok(squares
            .into_iter()
            .zip(answers)
            .filter(|(_, t)| *t)
            .map(|(s, _)| s)
            .collect())
    }

    fn move_piece(&mut self, from: Coord, to: Coord) -> Result<bool, SubjectError> {
        let answers = self.call(&[format!("MOVE {from} {to}")], parse_bool)?;
        Ok(answers[0])
    }

    fn board(&mut self) -> Result<BoardText, SubjectError> {
        let dims = self.dims()?;
        let answers = self.call(&["BOARD".to_string()], |a| parse_board(a, dims))?;
        Ok(answers.into_iter().next().expect("one answer per request"))
    }

    /// Says goodbye, gives the engine a moment to exit, then ends its group.
    fn finish(&mut self) {
        if let Some(run) = self.running.as_mut() {
            let _ = run.requests.send(b"QUIT\n".to_vec());
            run.child
                .wait_until(Instant::now() + Duration::from_millis(200));
        }
        self.stop();
    }

    fn stderr_excerpt(&self) -> Option<String> {
        Some(ProcessSubject::stderr_excerpt(self)).filter(|s| !s.is_empty())
    }
}

fn parse_bool(answer: &str) -> Option<bool> {
    match answer {
        "1" => Some(true),
        "0" => Some(false),
        _ => None,
    }
}

/// `BOARD <rows joined by '/'>`, of exactly the board's shape and alphabet.
fn parse_board(answer: &str, dims: Dims) -> Option<BoardText> {
    let text = answer.strip_prefix("BOARD ")?;
    let rows: Vec<&str> = text.split('/').collect();
    let shape_ok = rows.len() == dims.rows() as usize
        && rows.iter().all(|r| {
            r.len() == dims.cols() as usize
                && r.chars().all(|c| c == '.' || "KQRBNPkqrbnp".contains(c))
        });
    shape_ok.then(|| BoardText(text.to_string()))
}

fn shorten(s: &str) -> String {
    const MAX: usize = 80;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX).collect::<String>())
    }
}

fn spawn_writer(mut stdin: ChildStdin) -> Sender<Vec<u8>> {
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    thread::spawn(move || {
        for batch in rx {
            if stdin
                .write_all(&batch)
                .and_then(|()| stdin.flush())
                .is_err()
            {
                break; // the engine closed its stdin; the reader reports how it ended
            }
        }
    });
    tx
}

fn spawn_reader(
    stdout: impl Read + Send + 'static,
    max_line: usize,
    max_total: usize,
) -> Receiver<ReadEvent> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut reader = BufReader::with_capacity(64 << 10, stdout);
        let mut total = 0usize;
        let mut buf = Vec::new();
        loop {
            buf.clear();
            let read = (&mut reader)
                .take(max_line as u64 + 1)
                .read_until(b'\n', &mut buf);
            let event = match read {
                Ok(0) | Err(_) => ReadEvent::Eof,
                Ok(n) => {
                    total += n;
                    if total > max_total {
                        ReadEvent::TooMuch
                    } else if buf.last() != Some(&b'\n') && n > max_line {
                        ReadEvent::TooLong
                    } else {
                        let line = String::from_utf8_lossy(&buf);
                        ReadEvent::Line(line.trim_end_matches(['\n', '\r']).to_string())
                    }
                }
            };
            let last = !matches!(event, ReadEvent::Line(_));
            if tx.send(event).is_err() || last {
                break;
            }
        }
    });
    rx
}

/// Waits (briefly) until everything the engine wrote to stderr is kept:
/// the drain thread may still be copying when the process is gone.
fn collect_stderr(run: &Running) {
    let _ = run.stderr_done.recv_timeout(Duration::from_millis(500));
}

fn spawn_stderr_drain(
    stderr: impl Read + Send + 'static,
    sink: Arc<Mutex<CappedText>>,
) -> Receiver<()> {
    let (done, done_rx) = mpsc::channel();
    thread::spawn(move || {
        let mut stderr = stderr;
        let mut chunk = [0u8; 8192];
        while let Ok(n) = stderr.read(&mut chunk) {
            if n == 0 {
                break;
            }
            if let Ok(mut s) = sink.lock() {
                s.push(&chunk[..n]);
            }
        }
        let _ = done.send(());
    });
    done_rx
}

/// The first `cap` bytes of a stream, plus a count of what was dropped.
#[derive(Default)]
struct CappedText {
    cap: usize,
    kept: Vec<u8>,
    dropped: usize,
}

impl CappedText {
    fn new(cap: usize) -> Self {
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

    fn render(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.kept).into_owned();
        if self.dropped > 0 {
            s.push_str(&format!("\n… ({} more bytes not kept)", self.dropped));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn boards_must_have_the_boards_shape() {
        let dims = Dims::new(2, 3).unwrap();
        assert_eq!(
            parse_board("BOARD K../..p", dims),
            Some(BoardText("K../..p".into()))
        );
        assert_eq!(parse_board("BOARD K../..", dims), None);
        assert_eq!(parse_board("BOARD K../..x", dims), None);
        assert_eq!(parse_board("K../..p", dims), None);
    }

    #[test]
    fn answers_are_exactly_zero_or_one() {
        assert_eq!(parse_bool("1"), Some(true));
        assert_eq!(parse_bool("0"), Some(false));
        assert_eq!(parse_bool("true"), None);
        assert_eq!(parse_bool(" 1"), None);
    }

    #[test]
    fn capped_text_keeps_the_start_and_counts_the_rest() {
        let mut c = CappedText::new(4);
        c.push(b"abcdef");
        c.push(b"gh");
        assert_eq!(c.render(), "abcd\n… (4 more bytes not kept)");
    }

    #[test]
    fn richer_setups_are_refused_before_any_process_starts() {
        let command = EngineCommand {
            program: PathBuf::from("/nonexistent/engine"),
            args: Vec::new(),
        };
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
    }
}
