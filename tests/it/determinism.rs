//! Issue 17: every Lab 3 scenario's child starts from the same process state
//! as a fresh start, whatever ran before it, in what order, with what
//! `--jobs` or timing (the adapter's zygote, `adapters/kit/kit_main.cc`).
//!
//! The witness is `tests/fixtures/submissions/lab3-use-after-free`: its
//! `isValidMove` reads freed memory, so its answers depend on what the heap
//! held before the scenario. Under the fork server before the zygote (each
//! child a fork of a front whose heap grew with every request it read) the
//! 151 course configs gave 96 failures graded one process per scenario, 102
//! with `--jobs 1` and 96 to 101 with `--jobs 4` from run to run (six
//! `part3_4x4_*` configs flipped); now every run gives the verdicts of one
//! process per scenario. The whole corpus is used: a run takes about a second.

use crate::helpers::{self, chessgrade, command, lab3_engine, root};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Each scenario's verdict: status, class, line, step, message and details.
type Verdicts = BTreeMap<String, String>;

/// Grades `configs` of the course corpus with `engine`; the verdicts by name.
fn grade(corpus: &Path, engine: &Path, configs: &[String], jobs: usize) -> Verdicts {
    let config_dir = corpus.join("configs");
    let mut cmd = command(root());
    cmd.arg("grade");
    cmd.args(configs.iter().map(|c| config_dir.join(c)));
    cmd.arg("--root").arg(&config_dir);
    cmd.arg("--snapshots").arg(corpus.join("expected"));
    cmd.args(["--format", "json", "--jobs", &jobs.to_string(), "--engine"]);
    cmd.arg(engine);
    let out = cmd.output().expect("the grader runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let report: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "JSON report: {e}\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let scenarios = report["scenarios"].as_array().expect("scenarios");
    assert_eq!(scenarios.len(), configs.len());
    scenarios
        .iter()
        .map(|s| {
            let verdict = ["status", "class", "line", "step", "message", "details"]
                .map(|k| s[k].to_string())
                .join(" | ");
            (s["name"].as_str().unwrap().to_string(), verdict)
        })
        .collect()
}

fn course_configs(corpus: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(corpus.join("configs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 151);
    names
}

/// The verdicts that differ between two runs, for the failure message.
fn differences(a: &Verdicts, b: &Verdicts) -> Vec<String> {
    a.iter()
        .filter(|(k, v)| b.get(*k) != Some(v))
        .map(|(k, v)| format!("{k}:\n  {v}\n  {}", b.get(k).map_or("-", |s| s.as_str())))
        .collect()
}

#[test]
fn a_use_after_free_gets_the_same_verdicts_on_every_run_with_any_jobs() {
    let Some(corpus) = helpers::shared("lab3-course") else {
        return;
    };
    let engine = PathBuf::from(lab3_engine("lab3-use-after-free"));
    let configs = course_configs(&corpus);
    let first = grade(&corpus, &engine, &configs, 1);
    let failing = first
        .values()
        .filter(|v| !v.starts_with("\"pass\""))
        .count();
    assert!(
        (50..151).contains(&failing),
        "the bug shows on some configs, not all: {failing} fail"
    );
    for (jobs, runs) in [(1, 4), (4, 5)] {
        for run in 0..runs {
            let again = grade(&corpus, &engine, &configs, jobs);
            let diff = differences(&first, &again);
            assert!(
                diff.is_empty(),
                "--jobs {jobs}, run {}: verdicts differ from the first run (--jobs 1):\n{}",
                run + 1,
                diff.join("\n")
            );
        }
    }
}

#[test]
fn a_use_after_free_gets_the_verdicts_of_one_process_per_scenario() {
    let Some(corpus) = helpers::shared("lab3-course") else {
        return;
    };
    let engine = PathBuf::from(lab3_engine("lab3-use-after-free"));
    let configs = course_configs(&corpus);
    let mut alone = Verdicts::new();
    for config in &configs {
        alone.extend(grade(&corpus, &engine, std::slice::from_ref(config), 1));
    }
    for jobs in [1, 4] {
        let together = grade(&corpus, &engine, &configs, jobs);
        let diff = differences(&alone, &together);
        assert!(
            diff.is_empty(),
            "--jobs {jobs}: verdicts differ from one grader run per scenario:\n{}",
            diff.join("\n")
        );
    }
}

/// The requests the grader sends for a course config (v2, with `scan`),
/// from `BEGIN` to `END`.
fn scenario_requests(path: &Path) -> Vec<u8> {
    use chessgrade::protocol::{Request, ScanKind};
    use chessgrade::scenario::StepKind;
    let s = chessgrade::scenario::load(path).expect("a course config");
    let mut reqs = vec![
        Request::Begin,
        Request::Rules(Box::new(s.directives.rule_set())),
    ];
    reqs.push(Request::New(s.dims));
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
    reqs.push(Request::End);
    let mut out = Vec::new();
    for r in reqs {
        writeln!(out, "{r}").unwrap();
    }
    out
}

/// Drives `engine` (a fork server) through `scenarios` in order, each sent
/// in pieces of `piece` bytes with a flush and a pause between them; the
/// answers of each scenario, `ENDED` included.
fn drive(engine: &Path, scenarios: &[&[u8]], piece: usize) -> Vec<String> {
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
    assert!(line.contains("fork"), "{line}");
    let mut transcripts = Vec::new();
    for requests in scenarios {
        for part in requests.chunks(piece) {
            stdin.write_all(part).unwrap();
            stdin.flush().unwrap();
            if piece < requests.len() {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        }
        let mut transcript = String::new();
        loop {
            line.clear();
            assert!(
                answers.read_line(&mut line).unwrap() > 0,
                "the engine answers"
            );
            transcript.push_str(&line);
            if line.starts_with("ENDED") {
                break;
            }
        }
        transcripts.push(transcript);
    }
    drop(stdin);
    child.wait().unwrap();
    transcripts
}

/// Below the grader: the same scenarios through one fork server, in two
/// orders, whole or in small pieces that arrive one by one (the grader
/// always writes a scenario at once, so its runs never chunk it), give each
/// scenario the same answers as a server of its own.
#[test]
fn chunking_and_order_never_change_a_childs_answers() {
    let Some(corpus) = helpers::shared("lab3-course") else {
        return;
    };
    let engine = PathBuf::from(lab3_engine("lab3-use-after-free"));
    // the configs whose verdicts flipped under the old fork server, and two
    // that fail the same way whatever ran before
    let names = [
        "part3_4x4_3__9d0b88b6.txt",
        "part3_4x4_4__bde07586.txt",
        "part3_4x4_5__9c2ed75e.txt",
        "part3_4x4_6__e2526ad3.txt",
        "part3_4x4_7__f5c90a58.txt",
        "part3_4x4_8__dc5b0cf3.txt",
        "part2_8x8_7.txt",
        "part2_4x4_8.txt",
    ];
    let texts: Vec<Vec<u8>> = names
        .iter()
        .map(|n| scenario_requests(&corpus.join("configs").join(n)))
        .collect();
    let all: Vec<&[u8]> = texts.iter().map(Vec::as_slice).collect();
    let alone: Vec<String> = all
        .iter()
        .map(|t| drive(&engine, &[t], t.len()).remove(0))
        .collect();
    let check = |got: Vec<String>, order: &[usize], how: &str| {
        for (answers, &i) in got.iter().zip(order) {
            assert_eq!(answers, &alone[i], "{} {how}", names[i]);
        }
    };
    let forward: Vec<usize> = (0..all.len()).collect();
    let backward: Vec<usize> = forward.iter().rev().copied().collect();
    for (order, piece) in [
        (&forward, usize::MAX),
        (&backward, usize::MAX),
        (&forward, 7),
    ] {
        let batch: Vec<&[u8]> = order.iter().map(|&i| all[i]).collect();
        let got = drive(&engine, &batch, piece);
        let how = if piece == usize::MAX {
            "in one server".to_string()
        } else {
            format!("in {piece}-byte pieces")
        };
        check(got, order, &how);
    }
}

/// A scenario far larger than a pipe buffer (the front reads its first 64
/// KiB, the child reads the rest itself before answering) still passes, and
/// the next scenario through the same server too.
#[test]
fn a_scenario_larger_than_a_pipe_buffer_is_read_whole_then_served() {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = dir.path().join("scenarios");
    std::fs::create_dir_all(&scenarios).unwrap();
    let mut big = String::from("1\n128 128\nw k 127 4\nb k 0 4\n");
    for r in 10..118 {
        for c in (0..128).step_by(2) {
            big.push_str(&format!("{} p {r} {c}\n", if r < 64 { "b" } else { "w" }));
        }
    }
    big.push_str("~\nmovePiece 127 4 126 4\nmovePiece 0 4 1 4\nmovePiece 126 4 127 5\n");
    assert!(big.len() > 1 << 16, "{} bytes", big.len());
    std::fs::write(scenarios.join("a_big.txt"), &big).unwrap();
    std::fs::write(
        scenarios.join("b_small.txt"),
        "1\n4 4\nw k 3 0\nb r 0 1\n~\nisValidScan\nmovePiece 3 0 2 0\n",
    )
    .unwrap();
    let snaps = dir.path().join("snapshots");
    let (s, n) = (scenarios.to_str().unwrap(), snaps.to_str().unwrap());
    let out = chessgrade(&["run", s, "--root", s, "--snapshots", n, "--accept"]);
    assert_eq!(out.status.code(), Some(0));
    let sub = lab3_engine("lab3-correct");
    let sub = sub.as_str();
    let out = chessgrade(&[
        "grade",
        s,
        "--root",
        s,
        "--snapshots",
        n,
        "--jobs",
        "1",
        "--engine",
        sub,
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("PASS   1/1   a_big.txt"), "{text}");
    assert!(text.contains("PASS   1/1   b_small.txt"), "{text}");
}
