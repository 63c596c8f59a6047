//! `chessgrade trace FILE`: the reference engine's whole trace of one
//! scenario, in the course corpus's trace format, under the same limits as
//! `run` (input size, trace size, `--timeout`).

use super::args::{InputArgs, ReferenceArgs};
use chessgrade::rulefile::RuleBook;
use chessgrade::scenario::{self, Diagnostic};
use chessgrade::subject::EngineSubject;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub fn trace(file: &Path, rules: &[PathBuf], reference: &ReferenceArgs, input: &InputArgs) -> u8 {
    let caps = input.caps();
    let book = match RuleBook::new(Some(Path::new(".")), rules) {
        Ok(book) => book,
        Err(diag) => {
            eprintln!("error: {diag}");
            return 2;
        }
    };
    let scenario = match scenario::load_with(file, caps.input_bytes, &book) {
        Ok(s) => s,
        Err(diag) => {
            eprintln!("error: {diag}");
            return 2;
        }
    };
    let located = |line: u32, message: String| {
        let source = scenario::read_regular_file(file, caps.input_bytes)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let text = source.lines().nth(line as usize - 1).unwrap_or("");
        Diagnostic::at(line as usize, 1, message, text).with_path(file)
    };
    if let Err(e) = chessgrade::trace::check_size(&scenario, caps.trace_bytes) {
        eprintln!("error: {}", located(e.line, e.to_string()));
        return 2;
    }
    let mut subject = EngineSubject::with_timeout(Duration::from_secs_f64(reference.timeout));
    let execution = chessgrade::runner::execute(&scenario, &mut subject);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let written = execution
        .trace
        .write_to(&mut out)
        .and_then(|()| out.flush());
    match written {
        // A closed pipe (e.g. `| head`) is the reader's choice, not an error.
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("error: cannot write the trace to stdout: {e}");
            return 2;
        }
        Ok(()) => {}
    }
    if let Some(failure) = execution.failure {
        let message = match failure.error {
            chessgrade::subject::SubjectError::Timeout => format!(
                "the reference engine did not finish this scenario within --timeout {}s; the trace above stops before this step",
                reference.timeout
            ),
            other => format!("the reference engine could not run this step: {other}"),
        };
        let diag = match failure.line {
            Some(line) => located(line, message),
            None => Diagnostic::file(file, message),
        };
        eprintln!("error: {diag}");
        return 2;
    }
    0
}
