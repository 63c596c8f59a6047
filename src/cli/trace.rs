//! `chessgrade trace FILE`: the reference engine's whole trace of one
//! scenario, in the course corpus's trace format.

use std::io::Write;
use std::path::Path;

pub fn trace(file: &Path) -> u8 {
    match chessgrade::trace_file(file) {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (e.g. `| head`) is not an error worth reporting.
            let _ = out.write_all(text.as_bytes());
            0
        }
        Err(diag) => {
            eprintln!("error: {diag}");
            2
        }
    }
}
