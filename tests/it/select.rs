//! Selecting scenarios and the nextest-like run summary, end to end:
//! `--filter` (substring, glob, `--exact`), `--list`, `--fail-fast`,
//! `--quiet`, per-scenario times and the failure recap.

use crate::helpers::{command, output, stderr, stdout};
use std::path::Path;
use std::process::Output;

/// `chessgrade ARGS --color=never` in `dir`.
fn chessgrade(dir: &Path, args: &[&str]) -> Output {
    output(command(dir).args(args).arg("--color=never"))
}

const GOOD: &str = "1\n4 4\nw r 3 0\nb k 0 3\n~\nisValidScan\nmovePiece 3 0 0 0\n";

/// A project with five scenarios and accepted snapshots; `broken` names
/// scenarios whose snapshot is then edited so they fail.
fn project(broken: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let names = [
        "kings/a_one.txt",
        "kings/b_two.txt",
        "pawns/c_three.txt",
        "pawns/deep/d_four.txt",
        "rooks/e_five.txt",
    ];
    for name in names {
        let path = dir.path().join("scenarios").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, GOOD).unwrap();
    }
    let out = chessgrade(dir.path(), &["run", "--accept"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    for name in broken {
        let snap = dir
            .path()
            .join("snapshots")
            .join(format!("scenario@{}.snap", name.replace('/', "__")));
        let text = std::fs::read_to_string(&snap).unwrap();
        let edited = text.replace("  V 3 0 0 0\n", "");
        assert_ne!(text, edited, "the edit must change the snapshot");
        std::fs::write(&snap, edited).unwrap();
    }
    dir
}

fn listed(dir: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["run", "--list"];
    all.extend_from_slice(args);
    let out = chessgrade(dir, &all);
    assert_eq!(out.status.code(), Some(0));
    stdout(&out).lines().map(String::from).collect()
}

#[test]
fn list_prints_the_selected_names_and_runs_nothing() {
    let dir = project(&["kings/a_one.txt"]);
    assert_eq!(
        listed(dir.path(), &[]),
        [
            "kings/a_one.txt",
            "kings/b_two.txt",
            "pawns/c_three.txt",
            "pawns/deep/d_four.txt",
            "rooks/e_five.txt"
        ]
    );
    // A failing scenario is listed, not run: exit 0, no FAIL line.
    assert_eq!(
        listed(dir.path(), &["--filter", "a_one"]),
        ["kings/a_one.txt"]
    );
}

#[test]
fn filters_are_substrings_globs_or_exact_names_and_any_match_keeps() {
    let dir = project(&[]);
    let d = dir.path();
    assert_eq!(
        listed(d, &["--filter", "pawns"]),
        ["pawns/c_three.txt", "pawns/deep/d_four.txt"]
    );
    assert_eq!(
        listed(d, &["--filter", "pawns/*.txt"]),
        ["pawns/c_three.txt"]
    );
    assert_eq!(
        listed(d, &["--filter", "**/d_*.txt", "--filter", "e_five"]),
        ["pawns/deep/d_four.txt", "rooks/e_five.txt"]
    );
    assert!(listed(d, &["--filter", "kings", "--exact"]).is_empty());
    assert_eq!(
        listed(d, &["--filter", "kings/b_two.txt", "--exact"]),
        ["kings/b_two.txt"]
    );
    // Partitions split what the filters selected.
    assert_eq!(
        listed(d, &["--filter", "kings", "--partition", "slice:2/2"]),
        ["kings/b_two.txt"]
    );
}

#[test]
fn results_show_times_and_the_failures_come_back_at_the_end() {
    let dir = project(&["kings/b_two.txt", "rooks/e_five.txt"]);
    let out = chessgrade(dir.path(), &["run"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let pass = text
        .lines()
        .find(|l| l.starts_with("PASS   1/1   kings/a_one.txt ["))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(pass.ends_with("s]"), "{pass}");
    let recap = text.split("\nfailures (2):\n").nth(1).expect("a recap");
    assert!(
        recap.starts_with(
            "  FAIL kings/b_two.txt: a call did not match the expected answer at line 6: isValidScan\n  \
             FAIL rooks/e_five.txt: a call did not match the expected answer at line 6: isValidScan\n\n\
             FAILED: 3 passed, 2 failed; points 3/5"
        ),
        "{recap}"
    );
}

#[test]
fn quiet_prints_only_failures_and_the_summary() {
    let dir = project(&["pawns/c_three.txt"]);
    let out = chessgrade(dir.path(), &["run", "-q"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(!text.contains("PASS"), "{text}");
    assert!(
        text.starts_with("FAIL   0/1   pawns/c_three.txt ["),
        "{text}"
    );
    assert!(text.contains("FAILED: 4 passed, 1 failed"), "{text}");
}

#[test]
fn fail_fast_stops_starting_scenarios_after_the_first_failure() {
    let dir = project(&["kings/b_two.txt", "rooks/e_five.txt"]);
    let out = chessgrade(dir.path(), &["run", "--fail-fast", "--jobs", "1"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("FAIL   0/1   kings/b_two.txt"), "{text}");
    assert!(!text.contains("pawns/c_three.txt"), "{text}");
    assert!(!text.contains("rooks/e_five.txt"), "{text}");
    assert!(
        text.contains("note: 3 scenarios not run (--fail-fast stopped at the first failure)"),
        "{text}"
    );
    assert!(text.contains("FAILED: 1 passed, 1 failed"), "{text}");
}

#[test]
fn exact_without_a_filter_is_a_usage_error() {
    let dir = project(&[]);
    let out = chessgrade(dir.path(), &["run", "--exact"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Runs slice `k` of `n` as JSON into `slice-k.json`; returns its path.
fn slice(dir: &Path, k: usize, n: usize, extra: &[&str]) -> String {
    let file = format!("slice-{k}.json");
    let part = format!("slice:{k}/{n}");
    let mut args = vec![
        "run",
        "--partition",
        &part,
        "--format",
        "json",
        "--output",
        &file,
    ];
    args.extend_from_slice(extra);
    let out = chessgrade(dir, &args);
    assert!(out.status.code().is_some_and(|c| c < 2), "{}", stdout(&out));
    file
}

fn merge(dir: &Path, files: &[&str]) -> Output {
    let mut args = vec!["merge"];
    args.extend_from_slice(files);
    chessgrade(dir, &args)
}

#[test]
fn merge_joins_every_slice_of_one_run() {
    let dir = project(&["rooks/e_five.txt"]);
    let d = dir.path();
    let files: Vec<String> = (1..=3).map(|k| slice(d, k, 3, &[])).collect();
    let refs: Vec<&str> = files.iter().map(String::as_str).collect();
    let out = merge(d, &refs);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with("4 passed, 1 failed, 0 errors; points 4/5\n"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn merge_names_missing_and_duplicate_slices_and_refuses_other_runs() {
    let dir = project(&[]);
    let d = dir.path();
    let (a, b, c) = (
        slice(d, 1, 3, &[]),
        slice(d, 2, 3, &[]),
        slice(d, 3, 3, &[]),
    );
    let out = merge(d, &[&a, &c]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: cannot merge: missing slices: slice:2/3\n"
    );
    std::fs::copy(d.join(&b), d.join("again.json")).unwrap();
    let out = merge(d, &[&a, &b, &c, "again.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: cannot merge: duplicate slices: slice:2/3 in slice-2.json and again.json\n"
    );
    // A slice of a differently filtered run is not part of this one.
    let other = {
        let file = "other.json";
        let out = chessgrade(
            d,
            &[
                "run",
                "--filter",
                "pawns",
                "--partition",
                "slice:2/3",
                "--format",
                "json",
                "--output",
                file,
            ],
        );
        assert_eq!(out.status.code(), Some(0));
        file
    };
    let out = merge(d, &[&a, other, &c]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: cannot merge: slice-1.json and other.json are not slices of one run (different scenarios or subject)\n"
    );
}
