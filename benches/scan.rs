//! `cargo bench --bench scan`: how much a scan gains by generating the
//! legal moves once, against its peer — the naive scan that asks
//! `is_valid_move` for every (from, to) pair, as a submission is driven.
//! Both run in the same process, interleaved, and the figure reported is
//! their ratio, since absolute times on a shared machine are noise.

use chessgrade::domain::{Dims, Piece};
use chessgrade::engine::{Position, RuleSet};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn position(rows: &[&str]) -> Position {
    let dims = Dims::new(rows.len() as i64, rows[0].len() as i64).unwrap();
    let mut p = Position::new(RuleSet::lab3(), dims);
    for (r, line) in rows.iter().enumerate() {
        for (c, ch) in line.chars().enumerate() {
            if let Some(piece) = Piece::from_char(ch) {
                p.place(dims.square_at(r as i64, c as i64).unwrap(), piece);
            }
        }
    }
    p
}

fn generated_scan(p: &Position) -> usize {
    p.valid_moves().len()
}

fn pairwise_scan(p: &Position) -> usize {
    let dims = p.dims();
    let mut n = 0;
    for from in dims.squares() {
        for to in dims.squares() {
            n += usize::from(p.is_valid_move(from.coord(), to.coord()));
        }
    }
    n
}

/// Mean time of one call, over rounds of `reps` calls until `budget` is spent.
fn time(f: &dyn Fn() -> usize, reps: u32) -> Duration {
    let start = Instant::now();
    for _ in 0..reps {
        black_box(f());
    }
    start.elapsed() / reps
}

fn compare(name: &str, p: &Position) {
    assert_eq!(generated_scan(p), pairwise_scan(p), "both scans agree");
    let (mut fast, mut slow) = (Vec::new(), Vec::new());
    // Interleave the two so machine noise hits both alike; keep medians.
    for _ in 0..7 {
        fast.push(time(&|| generated_scan(p), 50));
        slow.push(time(&|| pairwise_scan(p), 2));
    }
    fast.sort();
    slow.sort();
    let (f, s) = (fast[3], slow[3]);
    println!(
        "{name:<28} generated scan {:>10.1?}  pairwise calls {:>10.1?}  ratio {:>7.1}x",
        f,
        s,
        s.as_secs_f64() / f.as_secs_f64()
    );
}

fn main() {
    let start = [
        "rbbkkbbr", "pppppppp", "........", "........", "........", "........", "PPPPPPPP",
        "RBBKKBBR",
    ];
    compare("8x8 full armies", &position(&start));
    let castle = [
        "r...k..r", "p.p..p.p", "..b..b..", "...p....", "....P...", "..B..B..", "P.P..P.P",
        "R...K..R",
    ];
    compare("8x8 castling middlegame", &position(&castle));
    let mut big: Vec<String> = vec![".".repeat(16); 16];
    big[0] = "r..b...k....b..r".into();
    big[1] = "p.p.p.p.p.p.p.p.".into();
    big[14] = ".P.P.P.P.P.P.P.P".into();
    big[15] = "R..B...K....B..R".into();
    let rows: Vec<&str> = big.iter().map(String::as_str).collect();
    compare("16x16 sparse armies", &position(&rows));
}
