//! Perft as text, the way chess tools print it (for `chessgrade perft`).

use super::position::Position;
use super::rules::RuleSet;

/// Perft of the FEN `fen` under standard chess, as text: with `divide`, one
/// `move: count` line per root move (sorted by move text), a blank line, then
/// `Nodes searched: N`; without, just `Nodes searched: N`. A FEN that does
/// not parse gives the parser's message.
pub fn perft_report(fen: &str, depth: u32, divide: bool) -> Result<String, String> {
    perft_report_with(RuleSet::standard(), fen, depth, divide)
}

/// [`perft_report`] under any rules.
pub fn perft_report_with(
    rules: RuleSet,
    fen: &str,
    depth: u32,
    divide: bool,
) -> Result<String, String> {
    let pos = Position::from_fen(rules, fen).map_err(|e| e.to_string())?;
    let mut out = String::new();
    let total = if divide && depth > 0 {
        let moves = pos.divide(depth);
        for (mv, n) in &moves {
            out.push_str(&format!("{mv}: {n}\n"));
        }
        out.push('\n');
        moves.iter().map(|(_, n)| n).sum()
    } else {
        pos.perft(depth)
    };
    out.push_str(&format!("Nodes searched: {total}\n"));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::START_FEN;

    #[test]
    fn report_without_divide_is_one_line() {
        assert_eq!(
            perft_report(START_FEN, 3, false).unwrap(),
            "Nodes searched: 8902\n"
        );
        assert_eq!(
            perft_report(START_FEN, 0, false).unwrap(),
            "Nodes searched: 1\n"
        );
    }

    #[test]
    fn divide_lists_root_moves_then_the_total() {
        let text = perft_report(START_FEN, 2, true).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 22);
        assert_eq!(lines[0], "a2a3: 20");
        assert!(lines.contains(&"g1f3: 20"));
        assert_eq!(lines[20], "");
        assert_eq!(lines[21], "Nodes searched: 400");
    }

    #[test]
    fn bad_fen_is_an_error_message() {
        let err = perft_report("rnbqkbnr/pppppppp w", 1, false).unwrap_err();
        assert!(err.contains("4 to 6 fields"), "{err}");
    }
}
