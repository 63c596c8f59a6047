//! `cargo bench --bench perft`: perft speed (leaf nodes per second) on a few
//! standard positions and one large board, single-threaded.

use chessgrade::engine::{Position, RuleSet, START_FEN};
use std::time::Instant;

fn run(name: &str, rules: RuleSet, fen: &str, depth: u32, expected: u64) {
    let pos = Position::from_fen(rules, fen).expect("bench FENs parse");
    let start = Instant::now();
    let nodes = pos.perft(depth);
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(nodes, expected, "{name}: perft({depth})");
    println!(
        "{name:<28} depth {depth}  {nodes:>11} nodes  {secs:>7.3} s  {:>6.2} M nodes/s",
        nodes as f64 / secs / 1e6
    );
}

fn main() {
    let standard = RuleSet::standard();
    run("start position", standard, START_FEN, 5, 4_865_609);
    run(
        "kiwipete",
        standard,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        4,
        4_085_603,
    );
    run(
        "endgame (position 3)",
        standard,
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        5,
        674_624,
    );
    let wide = RuleSet {
        castling: chessgrade::engine::Castling::None,
        ..standard
    };
    run(
        "12x10 double step",
        wide,
        "rnbqkbnrnbqr/pppppppppppp/12/12/12/12/12/12/PPPPPPPPPPPP/RNBQKBNRNBQR w - - 0 1",
        4,
        1_018_784,
    );
}
