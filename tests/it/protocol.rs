//! Protocol v2 end to end: the reference engine behind `chessgrade serve`
//! and the independent Python engine under `adapters/python-engine/` are
//! graded on every bundled scenario of every rule set; a v1 engine still
//! works; a version mismatch is a clear malformed answer; a 256×256 scan
//! streamed to a v1 engine runs in bounded memory and ends as a timeout.

use crate::helpers::{bin, command, root, scenarios, verdicts};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `chessgrade grade <paths> --format json <extra> --engine <engine...>`.
fn grade(paths: &[&str], extra: &[&str], engine: &[&str]) -> (Option<i32>, serde_json::Value) {
    grade_with(command(root()), paths, extra, engine)
}

fn grade_with(
    mut cmd: Command,
    paths: &[&str],
    extra: &[&str],
    engine: &[&str],
) -> (Option<i32>, serde_json::Value) {
    cmd.arg("grade")
        .args(paths)
        .args(["--format", "json"])
        .args(extra)
        .args(["--engine", "--"])
        .args(engine)
        .current_dir(root());
    let out: Output = cmd.output().expect("the grader runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "JSON report: {e}\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), json)
}

fn failures(report: &serde_json::Value) -> Vec<String> {
    scenarios(report)
        .iter()
        .filter(|s| s["status"] != "pass")
        .map(|s| format!("{}: {} {}", s["name"], s["class"], s["message"]))
        .collect()
}

fn bundled_count() -> usize {
    walkdir::WalkDir::new(root().join("scenarios"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "txt"))
        .count()
}

fn rule_sets(report: &serde_json::Value) -> std::collections::BTreeSet<String> {
    scenarios(report)
        .iter()
        .map(|s| {
            let name = s["name"].as_str().unwrap();
            name.split('/').next().unwrap().to_string()
        })
        .collect()
}

#[test]
fn serve_passes_every_bundled_scenario_of_every_rule_set() {
    let (code, report) = grade(&["scenarios"], &[], &[bin(), "serve"]);
    assert_eq!(failures(&report), Vec::<String>::new());
    assert_eq!(scenarios(&report).len(), bundled_count());
    assert_eq!(
        rule_sets(&report).into_iter().collect::<Vec<_>>(),
        [
            "cuhk",
            "design004",
            "jhu",
            "lab3",
            "lab3-beyond-the-interface",
            "standard",
            "variants"
        ]
    );
    assert_eq!(code, Some(0));
}

fn python_engine() -> PathBuf {
    root().join("adapters/python-engine/engine.py")
}

/// The example Python engine speaks protocol v2 without the `rules`
/// capability: it passes every bundled scenario of the four built-in sets,
/// and the variants' (rule files of their own) are `unsupported` there,
/// never a wrong answer.
#[test]
fn the_python_engine_passes_every_bundled_scenario_of_every_rule_set() {
    let engine = python_engine();
    let (code, report) = grade(
        &["scenarios"],
        &["--timeout", "60", "--cpu", "60"],
        &["python3", engine.to_str().unwrap()],
    );
    let verdicts = verdicts(&report);
    let (variants, built_in): (Vec<_>, Vec<_>) = verdicts
        .iter()
        .partition(|(name, _, _)| name.starts_with("variants/"));
    assert!(!variants.is_empty());
    for (name, status, class) in &variants {
        assert_eq!(
            (status.as_str(), class.as_deref()),
            ("fail", Some("unsupported")),
            "{name}"
        );
    }
    let failed: Vec<_> = built_in
        .iter()
        .filter(|(_, status, _)| status != "pass")
        .collect();
    assert_eq!(
        failed,
        Vec::<&&(String, String, Option<String>)>::new(),
        "{:?}",
        failures(&report)
    );
    assert_eq!(scenarios(&report).len(), bundled_count());
    assert_eq!(code, Some(1));
}

/// The engine runs in an empty temporary folder; a relative script path
/// given on the command line still means the file it named there.
#[test]
fn a_relative_engine_script_path_is_the_file_it_names_here() {
    let (code, report) = grade(
        &["scenarios/lab3/pawns"],
        &[],
        &["python3", "adapters/python-engine/engine.py"],
    );
    assert_eq!(failures(&report), Vec::<String>::new());
    assert!(!scenarios(&report).is_empty());
    assert_eq!(code, Some(0));
}

#[test]
fn a_v1_engine_still_grades_lab3_and_says_what_it_cannot_express() {
    let (code, report) = grade(
        &["scenarios/lab3/pawns", "scenarios/lab3/king-safety"],
        &[],
        &[bin(), "serve", "--v1"],
    );
    assert_eq!(failures(&report), Vec::<String>::new());
    assert!(scenarios(&report).len() >= 5);
    assert_eq!(code, Some(0));
    let (code, report) = grade(&["scenarios/jhu/refusals"], &[], &[bin(), "serve", "--v1"]);
    assert_eq!(code, Some(1));
    for s in scenarios(&report) {
        assert_eq!(s["class"], "unsupported", "{s}");
        assert!(
            s["message"].as_str().unwrap().contains("protocol v1"),
            "{s}"
        );
    }
}

#[test]
fn a_version_mismatch_is_a_clear_malformed_answer() {
    let dir = tempfile::tempdir().unwrap();
    let engine = dir.path().join("future.py");
    std::fs::write(
        &engine,
        "import sys\nfor line in sys.stdin:\n    print('HELLO 7 caps=warp', flush=True)\n",
    )
    .unwrap();
    let (code, report) = grade(
        &["scenarios/lab3/pawns/double_step_from_start_rows.txt"],
        &[],
        &["python3", engine.to_str().unwrap()],
    );
    assert_eq!(code, Some(1));
    let s = &scenarios(&report)[0];
    assert_eq!(s["class"], "malformed_answer", "{s}");
    let msg = s["message"].as_str().unwrap();
    assert!(msg.contains("protocol version"), "{msg}");
    assert!(
        msg.contains("`HELLO 2` was answered `HELLO 7 caps=warp`"),
        "{msg}"
    );
    assert!(msg.contains("versions 1 and 2"), "{msg}");
}

/// Issue 10: the bundled 256×256 scenario asks 65,536² `VALID` calls of an
/// engine without the scan capability. Under an address-space limit on the
/// grader itself (which the old code, materialising every request, could
/// not live under) the scan streams until the scenario's time limit, is a
/// timeout, and the next scenario of the batch still runs and passes.
#[test]
fn a_256_by_256_scan_streams_in_bounded_memory_and_times_out() {
    if !Path::new("/usr/bin/prlimit").exists() {
        eprintln!("skipping: prlimit is missing");
        return;
    }
    let mut cmd = Command::new("/usr/bin/prlimit");
    // 1 GiB of address space for the grader (threads' stacks and malloc
    // arenas included); the engine gets less (--memory-mb).
    cmd.arg(format!("--as={}", 1u64 << 30)).arg(bin());
    // `prlimit PROG args`: the grader's own arguments follow.
    let (code, report) = grade_with(
        cmd,
        &[
            "scenarios/lab3-beyond-the-interface/two_fifty_six_by_two_fifty_six.txt",
            "scenarios/lab3/pawns/double_step_from_start_rows.txt",
        ],
        &["--timeout", "2", "--memory-mb", "256", "--jobs", "1"],
        &[bin(), "serve", "--v1"],
    );
    assert_eq!(code, Some(1));
    let s = scenarios(&report);
    assert_eq!(s.len(), 2);
    assert_eq!(s[0]["class"], "timeout", "{}", s[0]);
    assert!(s[0]["message"].as_str().unwrap().contains("isValidScan"));
    assert_eq!(s[1]["status"], "pass", "{}", s[1]);
}
