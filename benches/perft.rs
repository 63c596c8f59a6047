//! `cargo bench --bench perft`: perft speed on a few standard positions and
//! one large board, single-threaded. The machine is noisy, so the figure
//! that matters is the ratio to a peer measured in the same run: the
//! straightforward perft a client of the public API writes (list the legal
//! moves, play each, recurse, undo), against the engine's own (one move
//! buffer per ply, leaves counted without being played).

use chessgrade::engine::{Position, RuleSet, START_FEN};
use std::time::Instant;

/// The peer: perft through the public API only.
fn api_perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    for mv in pos.legal_moves() {
        let record = pos.play(mv);
        nodes += api_perft(pos, depth - 1);
        pos.undo(record);
    }
    nodes
}

fn timed(f: impl FnOnce() -> u64) -> (u64, f64) {
    let start = Instant::now();
    let nodes = f();
    (nodes, start.elapsed().as_secs_f64())
}

fn run(name: &str, rules: RuleSet, fen: &str, depth: u32, expected: u64) {
    let pos = Position::from_fen(rules, fen).expect("bench FENs parse");
    let (nodes, secs) = timed(|| pos.perft(depth));
    let (peer_nodes, peer_secs) = timed(|| api_perft(&mut pos.clone(), depth));
    assert_eq!(nodes, expected, "{name}: perft({depth})");
    assert_eq!(peer_nodes, expected, "{name}: API perft({depth})");
    println!(
        "{name:<22} depth {depth} {nodes:>9} nodes  perft {:>6.2} M/s  API perft {:>6.2} M/s  ratio {:>5.1}x",
        nodes as f64 / secs / 1e6,
        nodes as f64 / peer_secs / 1e6,
        peer_secs / secs
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
