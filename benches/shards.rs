//! A class in 4 shards against the same class on one process, on the same
//! machine (issue 20, item 5): what grading in shards costs besides the
//! grading itself (each shard's start, scenario walk and class listing,
//! its share of the build budget, and the merge), as ratios of walls
//! measured in the same run:
//!
//! - **4 shards one after another** (each with the whole `--jobs`), their
//!   walls added, plus the merge, against the one-process class run: the
//!   overhead of splitting, which includes each shard's tail (its last
//!   build alone on a core while the others idle: with few members per
//!   shard this dominates, e.g. 3 members on 2 jobs are 2 rounds, not 1.5);
//! - **4 shards at once** (each with a quarter of `--jobs`, at least 1),
//!   the wall until the last ends plus the merge, against the one-process
//!   run: what a machine running several tasks of an array pays;
//! - the balance: each shard's members and wall (largest / mean).
//!
//! The class: `SHARD_BENCH_MEMBERS` uploads (default 35) dealt in turn from
//! the Lab 3 fixtures (the correct upload, the mutants, one that does not
//! compile), each under its own name, graded on `scenarios/lab3`. Every
//! upload is built in every run (`--no-build-cache`: what is measured is
//! the split, not the cache; benches/build_cache.rs measures that). The merged report is
//! checked equal to the one-process report, timings aside.
//!
//! `cargo bench --bench shards`. Needs g++.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const FIXTURES: [&str; 8] = [
    "lab3-correct",
    "lab3-mutant-no-double-step",
    "lab3-mutant-board-not-updated",
    "lab3-mutant-no-king-safety",
    "lab3-mutant-pinned-attacker-ignored",
    "lab3-mutant-turn-in-isvalid",
    "lab3-static-state",
    "hostile-compile-error",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Runs chessgrade in `dir` with `args`; its wall and output.
fn chessgrade(dir: &Path, args: &[String]) -> (Duration, Output) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_chessgrade"));
    c.current_dir(dir).args(args).env("NO_COLOR", "1");
    for v in chessgrade::class::shard::VARIABLES {
        c.env_remove(v);
    }
    let started = Instant::now();
    let out = c.output().expect("chessgrade runs");
    (started.elapsed(), out)
}

fn check(what: &str, out: &Output) {
    // 1: some student lost a point (the mutants do); 2 is the staff's.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn grade_args(shard: Option<(usize, usize)>, jobs: usize, output: &str) -> Vec<String> {
    let mut a: Vec<String> = [
        "grade",
        "--class",
        "uploads",
        "scenarios/lab3",
        "--no-build-cache",
        "-q",
        "--format",
        "json",
        "--output",
        output,
        "--jobs",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(jobs.to_string());
    if let Some((k, n)) = shard {
        a.push("--shard".into());
        a.push(format!("{k}/{n}"));
    }
    a
}

fn merge(dir: &Path, output: &str) -> Duration {
    let mut args: Vec<String> = vec!["merge".into(), "--format".into(), "json".into()];
    args.extend((1..=4).map(|k| format!("slice-{k}.json")));
    args.extend(["--output".into(), output.into()]);
    let (wall, out) = chessgrade(dir, &args);
    check("merge", &out);
    wall
}

/// A class report's JSON with the times (`elapsed_secs`, the build's
/// `compile: 1.2s (...)` note) blanked.
fn untimed(path: &Path) -> serde_json::Value {
    fn walk(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if k == "elapsed_secs" {
                        *x = 0.into();
                    } else {
                        walk(x);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(walk),
            serde_json::Value::String(s) if s.starts_with("compile: ") => {
                *s = "compile".into();
            }
            _ => {}
        }
    }
    let mut v = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    walk(&mut v);
    v
}

fn members_of(path: &Path) -> usize {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["submissions"].as_array().map_or(0, Vec::len)
}

fn main() {
    let members: usize = std::env::var("SHARD_BENCH_MEMBERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(35);
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let course = tempfile::tempdir().unwrap();
    let dir = course.path();
    let fixtures = root().join("tests/fixtures/submissions");
    for i in 0..members {
        let from = FIXTURES[i % FIXTURES.len()];
        copy_dir(
            &fixtures.join(from),
            &dir.join("uploads").join(format!("s{:02}-{from}", i + 1)),
        );
    }
    std::os::unix::fs::symlink(root().join("scenarios"), dir.join("scenarios")).unwrap();
    std::os::unix::fs::symlink(root().join("snapshots"), dir.join("snapshots")).unwrap();
    println!("class of {members} uploads on scenarios/lab3, --jobs {jobs}, one run of each:");

    let (one, out) = chessgrade(dir, &grade_args(None, jobs, "whole.json"));
    check("one process", &out);

    let mut sequential = Duration::ZERO;
    let mut walls = Vec::new();
    for k in 1..=4 {
        let (wall, out) = chessgrade(
            dir,
            &grade_args(Some((k, 4)), jobs, &format!("slice-{k}.json")),
        );
        check(&format!("shard {k}/4"), &out);
        sequential += wall;
        walls.push((members_of(&dir.join(format!("slice-{k}.json"))), wall));
    }
    let merge_wall = merge(dir, "merged.json");
    sequential += merge_wall;
    assert_eq!(
        untimed(&dir.join("merged.json")),
        untimed(&dir.join("whole.json")),
        "the merged report differs from the one-process report"
    );

    let quarter = (jobs / 4).max(1);
    let started = Instant::now();
    let children: Vec<_> = (1..=4)
        .map(|k| {
            let mut c = Command::new(env!("CARGO_BIN_EXE_chessgrade"));
            c.current_dir(dir)
                .args(grade_args(
                    Some((k, 4)),
                    quarter,
                    &format!("slice-{k}.json"),
                ))
                .env("NO_COLOR", "1");
            for v in chessgrade::class::shard::VARIABLES {
                c.env_remove(v);
            }
            c.stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (k, child) in children.into_iter().enumerate() {
        check(
            &format!("shard {}/4 at once", k + 1),
            &child.wait_with_output().unwrap(),
        );
    }
    let concurrent = started.elapsed() + merge(dir, "merged-at-once.json");
    assert_eq!(
        untimed(&dir.join("merged-at-once.json")),
        untimed(&dir.join("whole.json"))
    );

    let secs = |d: Duration| d.as_secs_f64();
    println!("  one process:                  {:>7.2} s", secs(one));
    println!(
        "  4 shards in turn + merge:     {:>7.2} s  ratio {:.2} (merge {:.3} s)",
        secs(sequential),
        secs(sequential) / secs(one),
        secs(merge_wall)
    );
    println!(
        "  4 shards at once + merge:     {:>7.2} s  ratio {:.2} (--jobs {quarter} each)",
        secs(concurrent),
        secs(concurrent) / secs(one)
    );
    let mean = walls.iter().map(|(_, w)| secs(*w)).sum::<f64>() / 4.0;
    let max = walls.iter().map(|(_, w)| secs(*w)).fold(0.0, f64::max);
    let shares: Vec<String> = walls
        .iter()
        .map(|(m, w)| format!("{m} in {:.2} s", secs(*w)))
        .collect();
    println!(
        "  balance (in turn): {}; largest / mean {:.2}",
        shares.join(", "),
        max / mean
    );
}
