//! A class's first run against its regrade with the build cache, on the
//! same machine in the same run (issue 20, item 5; goal: the regrade at
//! most 1/5 of the first run), as the ratio of the two walls:
//!
//! - **first run**: an empty cache folder (`--build-cache` in a temporary
//!   folder, so the user's cache plays no part): every upload compiled,
//!   the adapter's object too, and each build stored;
//! - **regrade**: the same command again, as after a snapshot fix: every
//!   build copied from the cache (checked: each member's report says so),
//!   only the scenarios run.
//!
//! The class: `CACHE_BENCH_MEMBERS` uploads (default 35) dealt in turn
//! from the Lab 3 fixtures (the correct upload, the mutants, one that does
//! not compile), each with one line of its own added to `ChessBoard.hh`
//! (an empty `namespace chessgrade_bench_student_N {}`, which every unit
//! includes) so that no two uploads share a key nor a unit's object (the
//! worst case for a first run), graded on
//! `scenarios/lab3`. The regrade's report is checked equal to the first
//! run's, times and the build notes aside.
//!
//! `cargo bench --bench build_cache`. Needs g++.

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

/// Grades the class in `dir` with the cache in `cache`, writing `output`;
/// its wall and output.
fn grade(dir: &Path, cache: &Path, jobs: usize, output: &str) -> (Duration, Output) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_chessgrade"));
    c.current_dir(dir)
        .args(["grade", "--class", "uploads", "scenarios/lab3", "-q"])
        .args(["--format", "json", "--output", output])
        .arg("--jobs")
        .arg(jobs.to_string())
        .arg("--build-cache")
        .arg(cache)
        .env("NO_COLOR", "1");
    for v in chessgrade::class::shard::VARIABLES {
        c.env_remove(v);
    }
    let started = Instant::now();
    let out = c.output().expect("chessgrade runs");
    let wall = started.elapsed();
    // 1: some student lost a point (the mutants do); 2 is the staff's.
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{output}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (wall, out)
}

/// The class report with the times and the build notes (compiled in
/// 1.2 s, or from the cache) blanked; how many members' builds came from
/// the cache.
fn untimed(path: &Path) -> (serde_json::Value, usize) {
    fn walk(v: &mut serde_json::Value, cached: &mut usize) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m.iter_mut() {
                    if k == "elapsed_secs" {
                        *x = 0.into();
                    } else {
                        walk(x, cached);
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(|x| walk(x, cached)),
            serde_json::Value::String(s) if s.starts_with("compile: ") => {
                if s.contains("from the build cache") {
                    *cached += 1;
                }
                *s = "compile".into();
            }
            _ => {}
        }
    }
    let mut v = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut cached = 0;
    walk(&mut v, &mut cached);
    (v, cached)
}

fn main() {
    let members: usize = std::env::var("CACHE_BENCH_MEMBERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(35);
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let course = tempfile::tempdir().unwrap();
    let dir = course.path();
    let fixtures = root().join("tests/fixtures/submissions");
    for i in 0..members {
        let from = FIXTURES[i % FIXTURES.len()];
        let to = dir.join("uploads").join(format!("s{:02}-{from}", i + 1));
        copy_dir(&fixtures.join(from), &to);
        // In the header every unit includes, and not as a comment (which
        // preprocessing drops): no unit of one upload is another's either.
        let hh = to.join("ChessBoard.hh");
        let mut text = std::fs::read_to_string(&hh).unwrap();
        text.push_str(&format!(
            "namespace chessgrade_bench_student_{} {{}}\n",
            i + 1
        ));
        std::fs::write(&hh, text).unwrap();
    }
    std::os::unix::fs::symlink(root().join("scenarios"), dir.join("scenarios")).unwrap();
    std::os::unix::fs::symlink(root().join("snapshots"), dir.join("snapshots")).unwrap();
    let cache = dir.join("cache");
    println!(
        "class of {members} uploads on scenarios/lab3, --jobs {jobs}, an empty cache, one run of each:"
    );

    let (first, _) = grade(dir, &cache, jobs, "first.json");
    let (regrade, _) = grade(dir, &cache, jobs, "regrade.json");
    let (first_report, first_cached) = untimed(&dir.join("first.json"));
    let (regrade_report, regrade_cached) = untimed(&dir.join("regrade.json"));
    assert_eq!(
        first_cached, 0,
        "the first run found builds in an empty cache"
    );
    assert_eq!(
        regrade_cached, members,
        "every regrade build from the cache"
    );
    assert_eq!(
        first_report, regrade_report,
        "the regrade's report differs from the first run's"
    );
    let entries = std::fs::read_dir(cache.join("builds")).unwrap().count();
    assert_eq!(entries, members, "one entry per upload");

    let secs = |d: Duration| d.as_secs_f64();
    println!("  first run (every upload built): {:>7.2} s", secs(first));
    println!(
        "  regrade (every build cached):   {:>7.2} s  ratio {:.3} (goal: at most 0.2)",
        secs(regrade),
        secs(regrade) / secs(first)
    );
}
