//! `chessgrade completions SHELL` and `chessgrade man`: shell completions
//! and a roff man page generated from the clap definitions, so they never
//! drift from the real flags.

use clap::CommandFactory;
use std::io::Write;

pub fn completions(shell: clap_complete::Shell) -> u8 {
    let mut cmd = super::Cli::command();
    clap_complete::generate(shell, &mut cmd, "chessgrade", &mut std::io::stdout());
    0
}

pub fn man() -> u8 {
    let cmd = super::Cli::command();
    let mut buf = Vec::new();
    if let Err(e) = clap_mangen::Man::new(cmd).render(&mut buf) {
        eprintln!("error: cannot render the man page: {e}");
        return 2;
    }
    let _ = std::io::stdout().lock().write_all(&buf);
    0
}
