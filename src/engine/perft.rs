//! Perft as text, the way chess tools print it (for `chessgrade perft`),
//! and perft that stops at a deadline (for scenario steps under `--timeout`).
//!
//! The interruptible entry points ([`perft_until`], [`divide_until`]) are
//! separate from [`Position::perft`] so the hot loop stays as it is: they
//! walk the top of the tree on the public API (`legal_moves`, `play`,
//! `undo`), checking the clock at every node, and hand each depth-2 subtree
//! of ordinary width to the fast [`Position::perft`]. Their counts are the
//! same by construction; the clock is read at most once per such subtree.

use super::fen::FenError;
use super::position::Position;
use super::rules::RuleSet;
use std::time::Instant;

/// An interruptible perft reached its deadline before finishing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interrupted;

/// A node with at most this many moves has its depth-2 subtree counted by
/// the fast perft in one go (a few hundred move generations at most).
const FAST_SUBTREE_WIDTH: usize = 256;

/// [`Position::perft`], or [`Interrupted`] once `deadline` has passed.
pub fn perft_until(pos: &Position, depth: u32, deadline: Instant) -> Result<u64, Interrupted> {
    count_until(&mut pos.clone(), depth, deadline)
}

/// [`Position::divide`], or [`Interrupted`] once `deadline` has passed.
pub fn divide_until(
    pos: &Position,
    depth: u32,
    deadline: Instant,
) -> Result<Vec<(String, u64)>, Interrupted> {
    if depth == 0 {
        return Ok(Vec::new());
    }
    let dims = pos.dims();
    let mut scratch = pos.clone();
    let mut out = Vec::new();
    for mv in pos.legal_moves() {
        let record = scratch.play(mv);
        let n = count_until(&mut scratch, depth - 1, deadline);
        scratch.undo(record);
        out.push((mv.uci(dims), n?));
    }
    out.sort();
    Ok(out)
}

fn count_until(pos: &mut Position, depth: u32, deadline: Instant) -> Result<u64, Interrupted> {
    if Instant::now() >= deadline {
        return Err(Interrupted);
    }
    if depth <= 1 {
        return Ok(pos.perft(depth));
    }
    let moves = pos.legal_moves();
    if depth == 2 && moves.len() <= FAST_SUBTREE_WIDTH {
        return Ok(pos.perft(2));
    }
    let mut nodes = 0;
    for mv in moves {
        let record = pos.play(mv);
        let n = count_until(pos, depth - 1, deadline);
        pos.undo(record);
        nodes += n?;
    }
    Ok(nodes)
}

/// Perft of the FEN `fen` under standard chess, as text: with `divide`, one
/// `move: count` line per root move (sorted by move text), a blank line, then
/// `Nodes searched: N`; without, just `Nodes searched: N`. A FEN that does
/// not parse gives the parser's message.
pub fn perft_report(fen: &str, depth: u32, divide: bool) -> Result<String, FenError> {
    perft_report_with(RuleSet::standard(), fen, depth, divide)
}

/// [`perft_report`] under any rules.
pub fn perft_report_with(
    rules: RuleSet,
    fen: &str,
    depth: u32,
    divide: bool,
) -> Result<String, FenError> {
    let pos = Position::from_fen(rules, fen)?;
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
    fn interruptible_perft_counts_the_same_and_stops_at_its_deadline() {
        use std::time::Duration;
        let far = Instant::now() + Duration::from_secs(3600);
        let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
        for fen in [START_FEN, kiwipete] {
            let pos = Position::from_fen(RuleSet::standard(), fen).unwrap();
            for depth in 0..=3 {
                assert_eq!(perft_until(&pos, depth, far), Ok(pos.perft(depth)));
                assert_eq!(divide_until(&pos, depth, far), Ok(pos.divide(depth)));
            }
        }
        // Depth 8 takes hours; a deadline 50 ms away stops it at once.
        let pos = Position::from_fen(RuleSet::standard(), START_FEN).unwrap();
        let soon = Instant::now() + Duration::from_millis(50);
        assert_eq!(perft_until(&pos, 8, soon), Err(Interrupted));
        assert_eq!(divide_until(&pos, 8, soon), Err(Interrupted));
        assert!(Instant::now() < soon + Duration::from_secs(5));
    }

    #[test]
    fn bad_fen_is_an_error_message() {
        let err = perft_report("rnbqkbnr/pppppppp w", 1, false).unwrap_err();
        assert_eq!(err, FenError::FieldCount(2));
        assert!(err.to_string().contains("4 to 6 fields"), "{err}");
    }
}
