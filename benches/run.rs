//! `cargo bench --bench run`: the whole `chessgrade run` process on 1,000
//! generated Lab 3 scenarios (the target: under 0.1 s wall), beside
//! its peer measured in the same run: `run --list` on the same folder, which
//! starts the process, walks the folder and selects, but executes nothing.
//! The machine is noisy: best of 7 for each, and the ratio is the figure.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_chessgrade");

fn best_of(n: usize, mut f: impl FnMut()) -> Duration {
    (0..n)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .expect("n > 0")
}

fn chessgrade(args: &[&str]) {
    let out = Command::new(BIN)
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "chessgrade {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn main() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let out = tmp.path().join("suite");
    let out = out.to_str().expect("UTF-8 path");
    chessgrade(&[
        "gen", "--rules", "lab3", "--count", "1000", "--seed", "7", out,
    ]);
    let scenarios = format!("{out}/scenarios");
    let snapshots = format!("{out}/snapshots");
    assert!(Path::new(&scenarios).join("lab3").is_dir());
    let common = [
        "--root",
        &scenarios,
        "--snapshots",
        &snapshots,
        "--color",
        "never",
        "-q",
    ];
    let run = best_of(7, || {
        let mut args = vec!["run", scenarios.as_str()];
        args.extend(common);
        chessgrade(&args);
    });
    let list = best_of(7, || {
        let mut args = vec!["run", scenarios.as_str(), "--list"];
        args.extend(common);
        chessgrade(&args);
    });
    println!(
        "run 1000 lab3 scenarios  {:>7.1} ms (target < 100 ms)   run --list (no execution) {:>7.1} ms   ratio {:>5.2}x",
        run.as_secs_f64() * 1e3,
        list.as_secs_f64() * 1e3,
        run.as_secs_f64() / list.as_secs_f64()
    );
}
