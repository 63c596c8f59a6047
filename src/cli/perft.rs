//! `chessgrade perft`: leaf counts of the legal-move tree, printed the way
//! other perft tools print them so their outputs can be diffed.

use std::io::Write;

pub fn perft(
    rules: chessgrade::engine::RuleSet,
    fen: Option<&str>,
    depth: u32,
    divide: bool,
) -> u8 {
    let fen = fen.unwrap_or(rules.start_fen());
    match chessgrade::engine::perft_report_with(rules, fen, depth, divide) {
        Ok(text) => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}
