//! `cargo bench --bench perft`: the reference engine's perft against peers
//! measured in the same run, single-threaded, each line a ratio (the
//! machine is shared and noisy, so absolute speeds move between runs while
//! ratios hold).
//!
//! - 8x8: shakmaty (a dev-dependency), with bulk counting (the last ply's
//!   moves counted, not played: `shakmaty::perft` and `Position::perft`)
//!   and without (every leaf played, through each library's public API:
//!   `legal_moves_into` / `play` / `undo` here, `legal_moves` / clone /
//!   `play_unchecked` there). Targets (issue 20): every leaf played at
//!   least as fast as shakmaty (1.0x), bulk counting at least 1.2x.
//! - Other sizes: Fairy-Stockfish, the engine that plays chess on any board
//!   up to 12x10, when it is installed: its native UCI binary
//!   (`fairy-stockfish`, e.g. Debian's package; `go perft`, bulk counting),
//!   and its Python binding `pyffish` (`pip install pyffish`; no perft of
//!   its own, so a small script recurses with `legal_moves` and counts the
//!   last ply). Either absent: one line says so and the bench goes on.
//!
//! - Rule files (`-- rules`, issue 36): each built-in set against the same
//!   set read back from the file `rules show` prints (the same code should
//!   run: target ratio at least 0.95), and the variant rule files of
//!   `scenarios/variants/` (a course's own pieces, which move by the rule
//!   set's table) against native Fairy-Stockfish on the same positions.
//! - Boards over 128 squares (12x12 to 16x32): the set-based generator on
//!   multi-word square sets against the mailbox generator, the same
//!   positions and `perft` (the mailbox forced by `Position::mailbox_only`);
//!   a 32x32 control line runs the mailbox on both sides.
//!
//! Each timing is the best of [`REPEATS`] runs, peers interleaved; by the
//! wall clock, or with `CHESSGRADE_BENCH_CPU_TIME=1` by the thread's CPU
//! clock, which a machine shared with other jobs disturbs far less (time
//! spent waiting for a core is not counted; the lines against another
//! process, Fairy-Stockfish, stay on the wall clock).
//! `cargo bench --bench perft -- 8x8` (or `-- sizes`, `-- wide`) runs one
//! section.

use chessgrade::engine::{Castling, MoveList, Position, RoleSet, RuleSet, START_FEN};
use shakmaty::{CastlingMode, Chess, Position as _, fen::Fen};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

const REPEATS: usize = 5;

/// [`best_of`] by the wall clock whatever the environment says: for a
/// comparison with another process.
fn best_of_wall<const N: usize>(runs: [&dyn Fn() -> u64; N]) -> [(u64, f64); N] {
    let mut best = [(0, f64::INFINITY); N];
    for _ in 0..REPEATS {
        for (run, best) in runs.iter().zip(&mut best) {
            let start = Instant::now();
            let n = run();
            *best = (n, best.1.min(start.elapsed().as_secs_f64()));
        }
    }
    best
}

/// The calling thread's CPU time in seconds.
fn thread_cpu_seconds() -> f64 {
    let ts = nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .expect("clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec() as f64 + ts.tv_nsec() as f64 * 1e-9
}

/// Seconds taken by `run`, by the wall clock or (`CHESSGRADE_BENCH_CPU_TIME`
/// set) by the thread's CPU clock, and what it returned.
fn timed(run: &dyn Fn() -> u64) -> (u64, f64) {
    if std::env::var_os("CHESSGRADE_BENCH_CPU_TIME").is_some() {
        let start = thread_cpu_seconds();
        let n = run();
        return (n, thread_cpu_seconds() - start);
    }
    let start = Instant::now();
    let n = run();
    (n, start.elapsed().as_secs_f64())
}

/// The least time of `REPEATS` runs of each of `runs` (interleaved), and
/// what each returned.
fn best_of<const N: usize>(runs: [&dyn Fn() -> u64; N]) -> [(u64, f64); N] {
    let mut best = [(0, f64::INFINITY); N];
    for _ in 0..REPEATS {
        for (run, best) in runs.iter().zip(&mut best) {
            let (n, secs) = timed(*run);
            *best = (n, best.1.min(secs));
        }
    }
    best
}

/// Every leaf played, through the public API, one move list per ply.
fn leaf_perft(pos: &mut Position, lists: &mut [MoveList]) -> u64 {
    let Some((list, deeper)) = lists.split_first_mut() else {
        return 1;
    };
    pos.legal_moves_into(list);
    let mut nodes = 0;
    for &mv in list.iter() {
        let record = pos.play(mv);
        nodes += leaf_perft(pos, deeper);
        pos.undo(record);
    }
    nodes
}

fn shakmaty_leaf_perft(pos: &Chess, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    pos.legal_moves()
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            shakmaty_leaf_perft(&child, depth - 1)
        })
        .sum()
}

fn mps(nodes: u64, secs: f64) -> f64 {
    nodes as f64 / secs / 1e6
}

fn eight_by_eight(name: &str, fen: &str, depth: u32, expected: u64) {
    let ours = Position::from_fen(RuleSet::standard(), fen).expect("bench FENs parse");
    let theirs: Chess = fen
        .parse::<Fen>()
        .expect("shakmaty parses the FEN")
        .into_position(CastlingMode::Chess960)
        .expect("a legal position");
    let [(n, t), (peer_n, peer_t)] =
        best_of([&|| ours.perft(depth), &|| shakmaty::perft(&theirs, depth)]);
    assert_eq!((n, peer_n), (expected, expected), "{name}: perft({depth})");
    let [(leaf_n, leaf_t), (peer_leaf_n, peer_leaf_t)] = best_of([
        &|| {
            leaf_perft(
                &mut ours.clone(),
                &mut vec![MoveList::new(); depth as usize],
            )
        },
        &|| shakmaty_leaf_perft(&theirs, depth),
    ]);
    assert_eq!(
        (leaf_n, peer_leaf_n),
        (expected, expected),
        "{name}: leaves"
    );
    println!(
        "8x8 {name:<18} depth {depth} {n:>9} leaves | bulk: chessgrade {:>6.1} M/s  shakmaty {:>6.1} M/s  ratio {:>5.2}x | every leaf played: chessgrade {:>5.1} M/s  shakmaty {:>5.1} M/s  ratio {:>5.2}x",
        mps(n, t),
        mps(n, peer_t),
        peer_t / t,
        mps(n, leaf_t),
        mps(n, peer_leaf_t),
        peer_leaf_t / leaf_t,
    );
}

/// A position on another board size, with Fairy-Stockfish's name for its
/// rules (a built-in variant, or one defined in [`FSF_VARIANTS`] /
/// [`PYFFISH_VARIANTS`]).
struct OtherSize {
    name: &'static str,
    fen: &'static str,
    double_step: bool,
    promotion: &'static str,
    variant: &'static str,
    /// (depth, leaves) for chessgrade and the native engine.
    deep: (u32, u64),
    /// (depth, leaves) for pyffish, whose per-call cost is far higher.
    shallow: (u32, u64),
}

const OTHER_SIZES: [OtherSize; 5] = [
    OtherSize {
        name: "5x5 Gardner",
        fen: "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1",
        double_step: false,
        promotion: "QRBN",
        variant: "gardner",
        deep: (6, 572_874),
        shallow: (4, 4_775),
    },
    OtherSize {
        name: "6x6 Los Alamos",
        fen: "rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1",
        double_step: false,
        promotion: "QRN",
        variant: "losalamos",
        deep: (6, 2_549_164),
        shallow: (4, 14_332),
    },
    OtherSize {
        name: "7x6",
        fen: "rnbqkbr/ppppppp/7/7/PPPPPPP/RNBQKBR w - - 0 1",
        double_step: false,
        promotion: "QRBN",
        variant: "cg7x6",
        deep: (6, 2_437_452),
        shallow: (4, 11_562),
    },
    OtherSize {
        name: "10x8",
        fen: "rnbqkbnrnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQKBNRNR w - - 0 1",
        double_step: true,
        promotion: "QRBN",
        variant: "cg10x8",
        deep: (5, 16_604_397),
        shallow: (3, 19_130),
    },
    OtherSize {
        name: "12x10",
        fen: "rnbqkbnrnbqr/pppppppppppp/12/12/12/12/12/12/PPPPPPPPPPPP/RNBQKBNRNBQR w - - 0 1",
        double_step: true,
        promotion: "QRBN",
        variant: "cg12x10",
        deep: (5, 38_356_054),
        shallow: (3, 30_314),
    },
];

/// The custom sizes for the native binary (Fairy-Stockfish 11's keys).
const FSF_VARIANTS: &str = "
[cg7x6:chess]
maxRank = 6
maxFile = g
castling = false
doubleStep = false
promotionRank = 6
startFen = rnbqkbr/ppppppp/7/7/PPPPPPP/RNBQKBR w - - 0 1

[cg10x8:chess]
maxFile = j
castling = false
startFen = rnbqkbnrnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQKBNRNR w - - 0 1

[cg12x10:chess]
maxRank = 10
maxFile = l
castling = false
promotionRank = 10
startFen = rnbqkbnrnbqr/pppppppppppp/12/12/12/12/12/12/PPPPPPPPPPPP/RNBQKBNRNBQR w - - 0 1
";

/// The same sizes for pyffish (current Fairy-Stockfish's keys).
const PYFFISH_VARIANTS: &str = "
[cg7x6:chess]
maxRank = 6
maxFile = g
castling = false
doubleStep = false
promotionRegionWhite = *6
startFen = rnbqkbr/ppppppp/7/7/PPPPPPP/RNBQKBR w - - 0 1

[cg10x8:chess]
maxFile = j
castling = false
startFen = rnbqkbnrnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQKBNRNR w - - 0 1

[cg12x10:chess]
maxRank = 10
maxFile = l
castling = false
doubleStepRegionWhite = *2
doubleStepRegionBlack = *9
promotionRegionWhite = *10
promotionRegionBlack = *1
startFen = rnbqkbnrnbqr/pppppppppppp/12/12/12/12/12/12/PPPPPPPPPPPP/RNBQKBNRNBQR w - - 0 1
";

/// Reads `variant fen depth` lines on stdin; for each, prints `leaves
/// seconds` (perft by `legal_moves`, the last ply counted).
const PYFFISH_SCRIPT: &str = r#"
import sys, time
import pyffish as sf
sf.load_variant_config(sys.argv[1])
def perft(v, fen, path, d):
    moves = sf.legal_moves(v, fen, path)
    if d == 1:
        return len(moves)
    return sum(perft(v, fen, path + [m], d - 1) for m in moves)
for line in sys.stdin:
    v, d, fen = line.split(" ", 2)
    t = time.perf_counter()
    n = perft(v, fen.strip(), [], int(d))
    print(n, time.perf_counter() - t, flush=True)
"#;

/// The native binary: `CHESSGRADE_FAIRY_STOCKFISH`, else `fairy-stockfish`
/// on the path or in `/usr/games` (Debian).
fn fsf_binary() -> Option<String> {
    let candidates = std::env::var("CHESSGRADE_FAIRY_STOCKFISH")
        .into_iter()
        .chain([
            "fairy-stockfish".into(),
            "/usr/games/fairy-stockfish".into(),
        ]);
    candidates.into_iter().find(|bin| {
        Command::new(bin)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map(|mut child| {
                drop(child.stdin.take());
                child.wait().is_ok()
            })
            .unwrap_or(false)
    })
}

/// Native `go perft` time (the engine set up first, then timed from the
/// command to its `Nodes searched` line); `None` if it fails.
fn fsf_perft(
    bin: &str,
    variants: &str,
    variant: &str,
    fen: &str,
    depth: u32,
) -> Option<(u64, f64)> {
    let mut child = Command::new(bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let mut lines = BufReader::new(child.stdout.take()?).lines();
    let mut wait_for = |prefix: &str| lines.find_map(|l| l.ok().filter(|l| l.starts_with(prefix)));
    writeln!(
        stdin,
        "uci\nsetoption name VariantPath value {variants}\nsetoption name UCI_Variant value {variant}\nposition fen {fen}\nisready"
    )
    .ok()?;
    wait_for("readyok")?;
    let start = Instant::now();
    writeln!(stdin, "go perft {depth}").ok()?;
    let done = wait_for("Nodes searched")?;
    let secs = start.elapsed().as_secs_f64();
    let _ = writeln!(stdin, "quit");
    let _ = child.wait();
    Some((done.rsplit(' ').next()?.trim().parse().ok()?, secs))
}

/// The Fairy-Stockfish part of a line: its speed and ratio against
/// chessgrade's `n` leaves in `t` seconds where it counts the same, what it
/// counts where not, nothing where it is not installed (`None`).
fn fsf_column(theirs: Option<Option<(u64, f64)>>, n: u64, t: f64) -> String {
    match theirs {
        Some(Some((fsf_n, fsf_t))) if fsf_n == n => format!(
            " | Fairy-Stockfish (native) {:>6.1} M/s  ratio {:>5.2}x",
            mps(n, fsf_t),
            fsf_t / t
        ),
        Some(Some((fsf_n, _))) => format!(" | Fairy-Stockfish counts {fsf_n}: not compared"),
        Some(None) => " | Fairy-Stockfish (native) failed on it".into(),
        None => String::new(),
    }
}

/// pyffish perft of each (variant, fen, depth), in one Python process;
/// `Err` says why it could not run.
fn pyffish_perft(jobs: &[(&str, &str, u32)]) -> Result<Vec<(u64, f64)>, String> {
    let mut child = Command::new("python3")
        .args(["-c", PYFFISH_SCRIPT, PYFFISH_VARIANTS])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("python3 not runnable: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    for (variant, fen, depth) in jobs {
        writeln!(stdin, "{variant} {depth} {fen}").map_err(|e| e.to_string())?;
    }
    drop(stdin);
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(err.lines().last().unwrap_or("python3 failed").to_string());
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            let (n, secs) = line.split_once(' ').ok_or("bad script output")?;
            Ok((
                n.parse().map_err(|_| "bad count")?,
                secs.parse().map_err(|_| "bad time")?,
            ))
        })
        .collect()
}

fn other_sizes() {
    let fsf = fsf_binary();
    let variants_file =
        std::env::temp_dir().join(format!("chessgrade-bench-{}.ini", std::process::id()));
    std::fs::write(&variants_file, FSF_VARIANTS).expect("temp dir writable");
    let variants = variants_file.to_string_lossy().into_owned();
    if fsf.is_none() {
        println!(
            "other sizes: native Fairy-Stockfish skipped: no `fairy-stockfish` binary (apt-get install fairy-stockfish, or set CHESSGRADE_FAIRY_STOCKFISH)"
        );
    }
    let jobs: Vec<_> = OTHER_SIZES
        .iter()
        .map(|c| (c.variant, c.fen, c.shallow.0))
        .collect();
    let pyffish = pyffish_perft(&jobs);
    if let Err(why) = &pyffish {
        println!("other sizes: pyffish skipped: {why} (pip install pyffish)");
    }
    for (i, case) in OTHER_SIZES.iter().enumerate() {
        let rules = RuleSet {
            castling: Castling::None,
            pawn_double_step: case.double_step,
            en_passant: case.double_step,
            promotion: RoleSet::from_letters(case.promotion).expect("role letters"),
            ..RuleSet::standard()
        };
        let pos = Position::from_fen(rules, case.fen).expect("bench FENs parse");
        let (depth, expected) = case.deep;
        // Wall clock: the native peer is another process.
        let [(n, t)] = best_of_wall([&|| pos.perft(depth)]);
        assert_eq!(n, expected, "{}: perft({depth})", case.name);
        let mut line = format!(
            "{:<16} depth {depth} {n:>9} leaves  chessgrade {:>6.1} M/s",
            case.name,
            mps(n, t)
        );
        line += &fsf_column(
            fsf.as_deref()
                .map(|bin| fsf_perft(bin, &variants, case.variant, case.fen, depth)),
            n,
            t,
        );
        if let Ok(results) = &pyffish {
            let (shallow, expected) = case.shallow;
            let [(small_n, small_t)] = best_of_wall([&|| pos.perft(shallow)]);
            assert_eq!(small_n, expected, "{}: perft({shallow})", case.name);
            match results[i] {
                (py_n, py_t) if py_n == small_n => {
                    line += &format!(
                        " | depth {shallow}: pyffish {:>6.3} M/s  ratio {:>7.0}x",
                        mps(small_n, py_t),
                        py_t / small_t
                    )
                }
                (py_n, _) => {
                    line += &format!(" | pyffish counts {py_n} at depth {shallow}: not compared")
                }
            }
        }
        println!("{line}");
    }
    let _ = std::fs::remove_file(variants_file);
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument picks a section.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted = |section: &str| only.is_empty() || only.iter().any(|o| o == section);
    let clock = match std::env::var_os("CHESSGRADE_BENCH_CPU_TIME") {
        Some(_) => "thread CPU time",
        None => "wall clock",
    };
    println!(
        "chessgrade perft, single-threaded; best of {REPEATS} runs ({clock}); ratio = peer time / chessgrade time (above 1: chessgrade faster)"
    );
    if wanted("8x8") {
        eight_by_eight_suite();
    }
    if wanted("sizes") {
        other_sizes();
    }
    if wanted("wide") {
        wide_boards();
    }
    if wanted("rules") {
        rule_files();
    }
}

/// A rule set from a file against the same built-in set, then the
/// variants' own pieces against Fairy-Stockfish.
fn rule_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, fen, depth) in [
        ("standard", START_FEN, 5),
        (
            "standard",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            4,
        ),
        ("lab3", START_FEN, 5),
        ("jhu", START_FEN, 5),
        ("cuhk", START_FEN, 4),
    ] {
        let built_in = chessgrade::rulefile::named(name).expect("a built-in set");
        let path = dir.path().join(format!("{name}.toml"));
        std::fs::write(&path, chessgrade::rulefile::show(&built_in)).expect("temp dir writable");
        let from_file = chessgrade::rulefile::load(&path).expect("the printed file reads back");
        let a = Position::from_fen(built_in, fen).expect("bench FENs parse");
        let b = Position::from_fen(from_file, fen).expect("bench FENs parse");
        let [(n, t_built_in), (m, t_file)] = best_of([&|| a.perft(depth), &|| b.perft(depth)]);
        assert_eq!(n, m, "{name}: the file counts what the built-in set counts");
        println!(
            "rules {name:<9} depth {depth} {n:>10} leaves  built-in {:>6.1} M/s  from its file {:>6.1} M/s  ratio {:>4.2}x (target >= 0.95)",
            mps(n, t_built_in),
            mps(n, t_file),
            t_built_in / t_file
        );
    }
    let fsf = fsf_binary();
    if fsf.is_none() {
        println!(
            "rules: the variants' Fairy-Stockfish lines skipped: no `fairy-stockfish` binary (apt-get install fairy-stockfish)"
        );
    }
    let empty = dir.path().join("none.ini");
    std::fs::write(&empty, "").expect("temp dir writable");
    let variants = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/variants");
    for (variant, depth) in [
        ("capablanca", 4),
        ("amazon", 4),
        ("hoppelpoppel", 4),
        ("modern", 4),
        ("courier", 4),
        ("shatranj", 5),
    ] {
        let rules = chessgrade::rulefile::load(&variants.join(format!("{variant}.toml")))
            .expect("a variant rule file");
        let pos = Position::from_fen(rules, rules.start_fen()).expect("the variant's start");
        let [(n, t)] = best_of_wall([&|| pos.perft(depth)]);
        let mut line = format!(
            "variant {variant:<12} depth {depth} {n:>10} leaves  chessgrade {:>6.1} M/s",
            mps(n, t)
        );
        let theirs = fsf.as_deref().map(|bin| {
            fsf_perft(
                bin,
                &empty.to_string_lossy(),
                variant,
                rules.start_fen(),
                depth,
            )
        });
        line += &fsf_column(theirs, n, t);
        println!("{line}");
    }
}

fn eight_by_eight_suite() {
    eight_by_eight("start position", START_FEN, 5, 4_865_609);
    eight_by_eight(
        "kiwipete",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        4,
        4_085_603,
    );
    eight_by_eight(
        "endgame (pos 3)",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        6,
        11_030_083,
    );
    eight_by_eight(
        "promotions (pos 4)",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        5,
        15_833_292,
    );
    eight_by_eight(
        "pos 5",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        4,
        2_103_487,
    );
}

/// A board over 128 squares, where the multi-word square sets race the
/// mailbox generator.
struct WideCase {
    name: &'static str,
    rules: fn() -> RuleSet,
    fen: &'static str,
    depth: u32,
    /// The leaf count of `../shared/perft/non8x8.epd`, where it has one.
    published: Option<u64>,
}

/// Standard moves without castling (as the non-8x8 suite plays them).
fn no_castling() -> RuleSet {
    RuleSet {
        castling: Castling::None,
        ..RuleSet::standard()
    }
}

/// Four-word sets (129 to 256 squares), eight-word sets (257 to 512), and
/// a control past 512 squares, where both sides are the mailbox: its ratio
/// shows how far the machine's noise moves a ratio of equals.
const WIDE_BOARDS: [WideCase; 7] = [
    WideCase {
        name: "12x12 armies",
        rules: no_castling,
        fen: "rnbqkbnrnbqr/pppppppppppp/12/12/12/12/12/12/12/12/PPPPPPPPPPPP/RNBQKBNRNBQR w - - 0 1",
        depth: 4,
        published: Some(1_036_275),
    },
    WideCase {
        name: "16x16 armies",
        rules: no_castling,
        fen: "rnbqkbnrnbqrnbqr/pppppppppppppppp/16/16/16/16/16/16/16/16/16/16/16/16/PPPPPPPPPPPPPPPP/RNBQKBNRNBQRNBQR w - - 0 1",
        depth: 4,
        published: None,
    },
    WideCase {
        name: "16x16 sparse lab3",
        rules: RuleSet::lab3,
        fen: "r2b3k4b2r/p1p1p1p1p1p1p1p1/16/16/16/16/16/16/16/16/16/16/16/16/1P1P1P1P1P1P1P1P/R2B3K4B2R w - - 0 1",
        depth: 4,
        published: None,
    },
    WideCase {
        name: "20x20 armies",
        rules: no_castling,
        fen: "rnbqkbnrnbqrnbqrnbqr/pppppppppppppppppppp/20/20/20/20/20/20/20/20/20/20/20/20/20/20/20/20/PPPPPPPPPPPPPPPPPPPP/RNBQKBNRNBQRNBQRNBQR w - - 0 1",
        depth: 3,
        published: None,
    },
    WideCase {
        name: "22x22 sparse lab3",
        rules: RuleSet::lab3,
        fen: "r2b3k4b2r1n1b1q/1p1p1p1p1p1p1p1p1p1p1p/22/22/22/22/22/22/22/22/22/22/22/22/22/22/22/22/22/22/1P1P1P1P1P1P1P1P1P1P1P/R2B3K4B2R1N1B1Q w - - 0 1",
        depth: 3,
        published: None,
    },
    WideCase {
        name: "16x32 armies",
        rules: no_castling,
        fen: "rnbqkbnrnbqrnbqrrnbqbnrnbqrnbqbr/pppppppppppppppppppppppppppppppp/32/32/32/32/32/32/32/32/32/32/32/32/PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP/RNBQKBNRNBQRNBQRRNBQBNRNBQRNBQBR w - - 0 1",
        depth: 3,
        published: None,
    },
    WideCase {
        name: "32x32 control",
        rules: no_castling,
        fen: "rnbqkbnrnbqrnbqrrnbqbnrnbqrnbqbr/pppppppppppppppppppppppppppppppp/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/32/PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP/RNBQKBNRNBQRNBQRRNBQBNRNBQRNBQBR w - - 0 1",
        depth: 3,
        published: None,
    },
];

/// Boards over 128 squares: perft by the set-based generator on multi-word
/// sets against the same perft forced onto the mailbox generator
/// (`Position::mailbox_only`), same play/undo, same run. Both must count
/// the same leaves (and the published count, where there is one).
fn wide_boards() {
    for case in &WIDE_BOARDS {
        let pos = Position::from_fen((case.rules)(), case.fen).expect("bench FENs parse");
        let mailbox = pos.mailbox_only();
        let depth = case.depth;
        let [(n, t), (peer_n, peer_t)] = best_of([&|| pos.perft(depth), &|| mailbox.perft(depth)]);
        assert_eq!(
            n, peer_n,
            "{}: perft({depth}) by sets and by mailbox",
            case.name
        );
        if let Some(published) = case.published {
            assert_eq!(n, published, "{}: perft({depth})", case.name);
        }
        println!(
            "{:<18} {:>4} squares depth {depth} {n:>9} leaves  square sets {:>6.1} M/s  mailbox {:>6.1} M/s  ratio {:>5.2}x",
            case.name,
            pos.dims().len(),
            mps(n, t),
            mps(n, peer_t),
            peer_t / t,
        );
    }
}
