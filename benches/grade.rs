//! Whole-process grading bench (issue 10): the fixture submission
//! `tests/fixtures/submissions/lab3-correct` on the 151 course configs
//! (`../shared/lab3-course`), each figure a ratio against a peer measured in
//! the same run:
//!
//! - the submission's own compute: its engine, in ONE process, fed every
//!   config's requests in one go (the adapter expanding every scan itself);
//! - grader overhead per scenario = (wall of `grade --jobs 1 --engine <built engine>`
//!   − own compute) / 151 (target < 1 ms); the part of it that is the fork
//!   server's fork per scenario, measured without the grader (this bench
//!   drives the engine through `BEGIN`/`END` itself), and the rest (the
//!   grader's own share) are printed below it;
//! - `grade --submission` wall against compile + own compute (target ≤ 1.10);
//! - peak RSS (grader and engine, from `/usr/bin/time`) of grading the
//!   bundled 256×256 scenario (target < 100 MB).
//!
//! Times are the best of 5 runs. `cargo bench --bench grade`; with
//! `GRADE_BENCH_ENGINE=<built engine>` that engine is measured instead of the
//! fixture's (docs/performance.md). Needs g++ and `../shared/`.

use chessgrade::protocol::{Request, ScanKind};
use chessgrade::scenario::{self, StepKind};
use chessgrade::submission::{CppOptions, build_cpp};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every request the grader sends for one scenario (v2, with `scan`).
fn requests(path: &Path, out: &mut Vec<u8>) {
    let s = scenario::load(path).expect("a course config");
    let mut reqs = vec![Request::New(s.dims)];
    reqs.extend(s.placements.iter().map(|p| Request::Place {
        color: p.color,
        role: p.role,
        square: p.square.coord(),
    }));
    reqs.push(Request::Board);
    for step in &s.steps {
        reqs.push(match &step.kind {
            StepKind::IsValidScan => Request::Scan(ScanKind::Valid),
            StepKind::UnderThreatScan => Request::Scan(ScanKind::Threat),
            StepKind::MovePiece { from, to } => Request::Move(*from, *to),
            other => panic!("not a Lab 3 step: {other:?}"),
        });
        reqs.push(Request::Board);
    }
    for r in reqs {
        let _ = writeln!(out, "{r}");
    }
}

/// The engine's own compute: one process answers all 151 configs in one go.
fn own_compute(engine: &Path, configs: &[PathBuf]) -> Duration {
    let mut input = b"HELLO 2\n".to_vec();
    for c in configs {
        requests(c, &mut input);
    }
    input.extend_from_slice(b"QUIT\n");
    let started = Instant::now();
    let mut child = Command::new(engine)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the engine starts");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let mut answers = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut answers)
        .unwrap();
    writer.join().unwrap().unwrap();
    child.wait().unwrap();
    let took = started.elapsed();
    assert!(
        !answers.contains("ERR"),
        "the engine answered every request"
    );
    took
}

/// The same compute with the fork server as the grader drives it, minus
/// the grader: each config in a child the adapter forks (`BEGIN` … `END`,
/// then wait for `ENDED`: the one round trip per scenario that forking
/// needs), written and read directly from this thread.
fn own_compute_forked(engine: &Path, configs: &[PathBuf]) -> Duration {
    let started = Instant::now();
    let mut child = Command::new(engine)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the engine starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut answers = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdin.write_all(b"HELLO 2\n").unwrap();
    answers.read_line(&mut line).unwrap();
    for c in configs {
        let mut input = b"BEGIN\n".to_vec();
        requests(c, &mut input);
        input.extend_from_slice(b"END\n");
        stdin.write_all(&input).unwrap();
        loop {
            line.clear();
            assert!(
                answers.read_line(&mut line).unwrap() > 0,
                "the engine answers"
            );
            assert!(
                !line.starts_with("ERR"),
                "the engine answered every request"
            );
            if line.starts_with("ENDED") {
                break;
            }
        }
    }
    stdin.write_all(b"QUIT\n").unwrap();
    child.wait().unwrap();
    started.elapsed()
}

fn chessgrade(args: &[&str]) -> (Duration, std::process::Output) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_chessgrade"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the grader runs");
    (started.elapsed(), out)
}

fn best_of<T>(n: usize, mut f: impl FnMut() -> (Duration, T)) -> (Duration, T) {
    let mut best = f();
    for _ in 1..n {
        let next = f();
        if next.0 < best.0 {
            best = next;
        }
    }
    best
}

fn main() {
    let corpus = root().join("../shared/lab3-course");
    if !corpus.exists() {
        eprintln!("skipping: {} is missing", corpus.display());
        return;
    }
    let (configs_dir, expected) = (corpus.join("configs"), corpus.join("expected"));
    let mut configs: Vec<PathBuf> = std::fs::read_dir(&configs_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    configs.sort();
    let n = configs.len();
    let fixture = root().join("tests/fixtures/submissions/lab3-correct");

    let options = CppOptions::new("g++", Duration::from_secs(300));
    let started = Instant::now();
    let build = build_cpp(&fixture, &options).expect("the fixture compiles");
    let compile = started.elapsed();
    // GRADE_BENCH_ENGINE=<built engine>: measure that engine instead (for
    // profiling, docs/performance.md); the compile figure stays the fixture's.
    let engine = std::env::var_os("GRADE_BENCH_ENGINE")
        .map(PathBuf::from)
        .unwrap_or_else(|| build.command.program.clone());

    let own = best_of(5, || (own_compute(&engine, &configs), ())).0;
    let forked = best_of(5, || (own_compute_forked(&engine, &configs), ())).0;
    let (c, e) = (configs_dir.to_str().unwrap(), expected.to_str().unwrap());
    let eng = engine.to_str().unwrap();
    let (graded, out) = best_of(5, || {
        // One worker: the same single core the own-compute peer had.
        chessgrade(&[
            "grade",
            c,
            "--root",
            c,
            "--snapshots",
            e,
            "--jobs",
            "1",
            "--engine",
            eng,
        ])
    });
    assert_eq!(out.status.code(), Some(0), "all 151 pass");
    let f = fixture.to_str().unwrap();
    let (whole, out) = chessgrade(&["grade", c, "--root", c, "--snapshots", e, "--submission", f]);
    assert_eq!(out.status.code(), Some(0), "all 151 pass");

    let overhead = (graded.as_secs_f64() - own.as_secs_f64()) * 1000.0 / n as f64;
    println!(
        "grader overhead per scenario  {overhead:8.3} ms   (grade --jobs 1 --engine {:.3}s − own compute {:.3}s, {n} configs; target < 1 ms)",
        graded.as_secs_f64(),
        own.as_secs_f64()
    );
    println!(
        "  of which fork per scenario   {:8.3} ms   (own compute with a fork server, no grader, {:.3}s − own compute)",
        (forked.as_secs_f64() - own.as_secs_f64()) * 1000.0 / n as f64,
        forked.as_secs_f64()
    );
    println!(
        "  of which the grader itself    {:8.3} ms   (grade − the fork server peer: requests, answers, judging, reporting)",
        (graded.as_secs_f64() - forked.as_secs_f64()) * 1000.0 / n as f64,
    );
    let peer = compile + own;
    println!(
        "grade --submission wall       {:8.3} s    vs compile {:.3}s + own compute {:.3}s = {:.3}s   ratio {:.2}x (target ≤ 1.10x)",
        whole.as_secs_f64(),
        compile.as_secs_f64(),
        own.as_secs_f64(),
        peer.as_secs_f64(),
        whole.as_secs_f64() / peer.as_secs_f64()
    );

    confinement_cost();

    if Path::new("/usr/bin/time").exists() {
        let big = "scenarios/lab3-beyond-the-interface/two_fifty_six_by_two_fifty_six.txt";
        let out = Command::new("/usr/bin/time")
            .args(["-f", "%M"])
            .arg(env!("CARGO_BIN_EXE_chessgrade"))
            .args(["grade", big, "--timeout", "5", "--engine", eng])
            .current_dir(root())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let kb: u64 = stderr
            .lines()
            .last()
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or(0);
        println!(
            "peak RSS, 256x256 graded      {:8.1} MB   (grader or engine, whichever is larger; target < 100 MB; verdict: {})",
            kb as f64 / 1024.0,
            if out.status.code() == Some(0) {
                "pass"
            } else {
                "timeout at 5 s"
            }
        );
    }
}

/// What the confinement costs each sandboxed process (docs/grading.md,
/// "Confinement"): starting `/bin/true` through the sandbox (process group,
/// rlimits, sweep, Landlock ruleset, network namespace, uid) against a plain
/// `Command` spawn of it, best of 5 rounds of 100 each. A Lab 3 fork server
/// pays it once per worker; a console program and every compiler
/// invocation once each.
fn confinement_cost() {
    use chessgrade::sandbox::{self, EngineCommand, Limits, Streams};
    const ROUNDS: u32 = 100;
    let dir = tempfile::tempdir().unwrap();
    let cmd = EngineCommand {
        program: PathBuf::from("/bin/true"),
        args: Vec::new(),
    };
    let (sandboxed, ()) = best_of(5, || {
        let started = Instant::now();
        for _ in 0..ROUNDS {
            let mut proc =
                sandbox::spawn(&cmd, &Limits::default(), dir.path(), Streams::Separate, &[])
                    .expect("the sandbox starts /bin/true");
            drop(proc.stdin.take());
            proc.wait_until(Instant::now() + Duration::from_secs(10))
                .expect("/bin/true exits");
        }
        (started.elapsed(), ())
    });
    let (plain, ()) = best_of(5, || {
        let started = Instant::now();
        for _ in 0..ROUNDS {
            Command::new("/bin/true").status().unwrap();
        }
        (started.elapsed(), ())
    });
    let each = |d: Duration| d.as_secs_f64() * 1000.0 / f64::from(ROUNDS);
    println!(
        "sandboxed process start+end   {:8.3} ms   vs a plain spawn {:.3} ms   ratio {:.2}x ({})",
        each(sandboxed),
        each(plain),
        sandboxed.as_secs_f64() / plain.as_secs_f64(),
        sandbox::isolation()
    );
}
