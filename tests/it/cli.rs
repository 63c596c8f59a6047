//! End-to-end tests of the `chessgrade` binary: exit codes, messages for
//! every kind of bad input, snapshot updates, and failure reports.

use crate::helpers::{command, output, project, root, stderr, stdout};
use std::path::{Path, PathBuf};
use std::process::Output;

/// `chessgrade ARGS` in `dir`, with `NO_COLOR` unset (colour is the flags' choice).
fn chessgrade(dir: &Path, args: &[&str]) -> Output {
    output(command(dir).args(args).env_remove("NO_COLOR"))
}

const GOOD: &[u8] =
    b"// a rook and a king\n2\n4 4\nw r 3 0\nb k 0 3\n~\nisValidScan\nmovePiece 3 0 0 0\n";

fn snap_path(dir: &Path, rel: &str) -> PathBuf {
    dir.join("snapshots")
        .join(format!("scenario@{}.snap", rel.replace('/', "__")))
}

#[test]
fn trace_prints_the_course_trace_format() {
    let dir = project(&[("a/good.txt", GOOD)]);
    let out = chessgrade(dir.path(), &["trace", "scenarios/a/good.txt"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(
        text.starts_with("DIMS 4 4\nL7 isValidScan\n  V 0 3 0 2\n"),
        "{text}"
    );
    assert!(
        text.ends_with("L8 movePiece 3 0 0 0 = 1\n  B R..k/..../..../....\nEND\n"),
        "{text}"
    );
}

#[test]
fn missing_snapshots_fail_then_accept_writes_them_and_runs_pass() {
    let dir = project(&[("a/good.txt", GOOD), ("b/other.txt", GOOD)]);
    let out = chessgrade(dir.path(), &["run"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("no snapshot yet"));

    let out = chessgrade(dir.path(), &["run", "--accept"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let snap = std::fs::read_to_string(snap_path(dir.path(), "a/good.txt")).unwrap();
    assert!(snap.starts_with("---\nsource: tests/scenarios.rs\nexpression: trace\ninput_file: scenarios/a/good.txt\n---\nDIMS 4 4\n"), "{snap}");

    let out = chessgrade(dir.path(), &["run"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.contains("PASS   2/2   a/good.txt"), "{text}");
    assert!(
        text.contains("ok: 2 passed, 0 failed; points 4/4"),
        "{text}"
    );
    assert!(
        !text.contains('\u{1b}'),
        "no colour when stdout is not a terminal"
    );
}

#[test]
fn update_writes_reviewable_snap_new_files() {
    let dir = project(&[("a/good.txt", GOOD), ("b/other.txt", GOOD)]);
    let out = chessgrade(dir.path(), &["run", "--update"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("review pending snapshots"));
    let pending = snap_path(dir.path(), "a/good.txt").with_extension("snap.new");
    assert!(pending.exists());
    assert!(!snap_path(dir.path(), "a/good.txt").exists());
    // Still failing until accepted.
    assert_eq!(chessgrade(dir.path(), &["run"]).status.code(), Some(1));
}

#[test]
fn a_broken_snapshot_fails_at_the_right_line_with_a_focused_diff() {
    let dir = project(&[("a/good.txt", GOOD), ("b/other.txt", GOOD)]);
    chessgrade(dir.path(), &["run", "--accept"]);
    let path = snap_path(dir.path(), "a/good.txt");
    let snap = std::fs::read_to_string(&path).unwrap();
    // Break one scan item: claim the king may go to (1,1) instead of (1,2).
    std::fs::write(&path, snap.replace("  V 0 3 1 2\n", "  V 0 3 1 1\n")).unwrap();
    let out = chessgrade(dir.path(), &["run", "--color", "never"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("FAIL   0/2   a/good.txt"), "{text}");
    assert!(
        text.contains("first mismatch at line 7 (trace line 4): isValidScan"),
        "{text}"
    );
    assert!(
        text.contains("missing (expected, not answered):\n          V 0 3 1 1"),
        "{text}"
    );
    assert!(
        text.contains("extra (answered, not expected):\n          V 0 3 1 2"),
        "{text}"
    );
    assert!(text.contains("board before the step:"), "{text}");
    // The king whose moves differ (*), the missing (+) and extra (x) targets.
    assert!(
        text.contains("0   .  .  . *k\n          1   . +. x.  ."),
        "{text}"
    );
    assert!(
        text.contains("PASS   2/2   b/other.txt"),
        "the batch goes on: {text}"
    );
    assert!(text.contains("1 passed, 1 failed; points 2/4"), "{text}");
}

#[test]
fn a_wrong_move_result_shows_expected_and_actual_boards() {
    let dir = project(&[("a/good.txt", GOOD), ("b/other.txt", GOOD)]);
    chessgrade(dir.path(), &["run", "--accept"]);
    let path = snap_path(dir.path(), "a/good.txt");
    let snap = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        snap.replace(
            "= 1\n  B R..k/..../..../....",
            "= 0\n  B ...k/..../..../R...",
        ),
    )
    .unwrap();
    let text = stdout(&chessgrade(dir.path(), &["run"]));
    assert!(
        text.contains("first mismatch at line 8 (trace line"),
        "{text}"
    );
    assert!(text.contains("result: expected 0, actual 1"), "{text}");
    assert!(text.contains("expected board after:"), "{text}");
    assert!(text.contains("actual board after:"), "{text}");
}

#[test]
fn colour_can_be_forced() {
    let dir = project(&[("a/good.txt", GOOD), ("b/other.txt", GOOD)]);
    let text = stdout(&chessgrade(dir.path(), &["run", "--color", "always"]));
    assert!(text.contains('\u{1b}'), "{text}");
    // A report file is plain even then: colour is for the terminal.
    let out = dir.path().join("report.txt");
    let run = chessgrade(
        dir.path(),
        &[
            "run",
            "--color",
            "always",
            "--format",
            "human",
            "--output",
            out.to_str().unwrap(),
        ],
    );
    // (No snapshots yet: both fail, in red on the terminal.)
    assert_eq!(run.status.code(), Some(1), "{}", stdout(&run));
    let file = std::fs::read_to_string(&out).unwrap();
    assert!(file.contains("FAILED: 0 passed, 2 failed"), "{file}");
    assert!(!file.contains('\u{1b}'), "{file:?}");
}

/// Each bad input: its file, the `line:col: message` expected, and the
/// caret line.
const BAD: &[(&str, &[u8], &str)] = &[
    (
        "bad_number.txt",
        b"1\n4 four\n~\n",
        "bad_number.txt:2:3: expected a whole number for the columns, found `four`",
    ),
    (
        "unknown_piece.txt",
        b"1\n4 4\nw x 1 1\n~\n",
        "unknown_piece.txt:3:3: unknown piece `x`",
    ),
    (
        "unknown_step.txt",
        b"1\n4 4\n~\nteleport 1 1\n",
        "unknown_step.txt:4:1: unknown step `teleport`",
    ),
    (
        "missing_tilde.txt",
        b"1\n4 4\nw k 1 1\nisValidScan\n",
        "missing_tilde.txt:4:1: expected a placement",
    ),
    (
        "off_board.txt",
        b"1\n4 4\nw k 9 1\n~\n",
        "off_board.txt:3:5: square 9 1 is off the 4x4 board",
    ),
    (
        "absurd_size.txt",
        b"1\n1000000 1000000\n~\n",
        "absurd_size.txt:2:1: board size 1000000x1000000 is out of range",
    ),
    (
        "garbage.txt",
        b"\x00\x9f\x92\x96binary",
        "garbage.txt:1:2: not a text file",
    ),
    ("empty.txt", b"", "empty.txt:1:1: the scenario is empty"),
];

#[test]
fn every_bad_input_gets_a_located_message_and_exit_code_2() {
    for (name, body, message) in BAD {
        let dir = project(&[(name, body)]);
        let out = chessgrade(dir.path(), &["trace", &format!("scenarios/{name}")]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = stderr(&out);
        assert!(err.contains(message), "{name}: {err}");
        assert!(err.contains('^'), "{name} shows a caret: {err}");
    }
}

#[test]
fn a_bad_file_fails_only_itself_and_the_batch_goes_on() {
    let mut files: Vec<(&str, &[u8])> = BAD.iter().map(|(n, b, _)| (*n, *b)).collect();
    files.push(("zz_good.txt", GOOD));
    let dir = project(&files);
    chessgrade(dir.path(), &["run", "--accept", "scenarios/zz_good.txt"]);
    let out = chessgrade(dir.path(), &["run"]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    for (name, _, message) in BAD {
        assert!(
            text.contains(&format!(" ERR   0/0   {name}")),
            "{name}: {text}"
        );
        assert!(text.contains(message), "{name}: {text}");
    }
    assert!(text.contains("PASS   2/2   zz_good.txt"), "{text}");
    assert!(
        text.contains("1 passed, 0 failed, 8 input errors"),
        "{text}"
    );
}

#[test]
fn a_missing_file_is_an_input_error() {
    let dir = project(&[("good.txt", GOOD)]);
    let out = chessgrade(dir.path(), &["trace", "scenarios/nope.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("scenarios/nope.txt: cannot read scenario"),
        "{}",
        stderr(&out)
    );
    let out = chessgrade(
        dir.path(),
        &["run", "scenarios/nope.txt", "scenarios/good.txt"],
    );
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(
        text.contains("scenarios/nope.txt: no such file or folder"),
        "{text}"
    );
    assert!(
        text.contains("good.txt"),
        "the rest of the batch still runs: {text}"
    );
}

#[test]
fn usage_errors_exit_2_and_help_documents_exit_codes() {
    let dir = project(&[]);
    assert_eq!(
        chessgrade(dir.path(), &["run", "--bogus"]).status.code(),
        Some(2)
    );
    let help = stdout(&chessgrade(dir.path(), &["run", "--help"]));
    assert!(
        help.contains("Exit codes: 0 all scenarios passed; 1 some scenario failed"),
        "{help}"
    );
}

#[test]
fn accept_does_not_ask_for_a_review() {
    let dir = project(&[("a/good.txt", GOOD), ("b/other.txt", GOOD)]);
    let text = stdout(&chessgrade(dir.path(), &["run", "--accept"]));
    assert!(text.contains("2 snapshots written"), "{text}");
    assert!(!text.contains("review pending"), "{text}");
}

#[test]
fn perft_prints_node_counts_like_other_perft_tools() {
    let dir = tempfile::tempdir().unwrap();
    let out = chessgrade(dir.path(), &["perft", "--depth", "3"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "Nodes searched: 8902\n");

    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let out = chessgrade(
        dir.path(),
        &["perft", "--fen", kiwipete, "--depth", "2", "--divide"],
    );
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        48 + 2,
        "48 root moves, a blank line, the total"
    );
    assert!(
        lines.contains(&"e1g1: 43") && lines.contains(&"e1c1: 43"),
        "{text}"
    );
    assert!(text.ends_with("\nNodes searched: 2039\n"), "{text}");

    // The rule set is a flag: JHU has no castling, so two fewer root moves.
    let out = chessgrade(
        dir.path(),
        &["perft", "--fen", kiwipete, "--depth", "1", "--rules", "jhu"],
    );
    assert_eq!(stdout(&out), "Nodes searched: 46\n");

    let out = chessgrade(dir.path(), &["perft", "--fen", "8/8 w", "--depth", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("FEN"), "{}", stderr(&out));
}

#[test]
fn grade_explain_and_shrink_share_the_subject_flags() {
    let root = root();
    let scenario = "scenarios/lab3/pawns/double_step_from_start_rows.txt";
    let upload = "tests/fixtures/submissions/lab3-correct";
    let commands: [&[&str]; 3] = [
        &["grade", scenario, "--submission", upload],
        &["explain", scenario, "--submission", upload],
        &["shrink", scenario, "--submission", upload],
    ];
    for command in commands {
        // --cflags reaches the compiler in all three (shrink used to
        // have no --cflags and built with the course's flags only): a
        // flag g++ refuses stops the build as the staff's error.
        let mut args = command.to_vec();
        args.extend(["--cflags", "-fno-such-flag"]);
        let out = chessgrade(root, &args);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("unrecognized command-line option '-fno-such-flag'"),
            "{command:?}: {}",
            stderr(&out)
        );
        // --compiler too.
        let mut args = command.to_vec();
        args.extend(["--compiler", "/nonexistent/g++"]);
        let out = chessgrade(root, &args);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("/nonexistent/g++"),
            "{command:?}: {}",
            stderr(&out)
        );
        // --submission and --engine exclude each other everywhere.
        let mut args = command.to_vec();
        args.extend(["--engine", "true"]);
        let out = chessgrade(root, &args);
        assert_eq!(out.status.code(), Some(2), "{command:?}");
        assert!(
            stderr(&out).contains("cannot be used with"),
            "{command:?}: {}",
            stderr(&out)
        );
    }
    // What --submission may hold is each command's own help.
    let help = |cmd: &str| stdout(&chessgrade(root, &[cmd, "--help"]));
    assert!(help("grade").contains("or a console program (Makefile, CMakeLists.txt"));
    assert!(help("explain").contains(
        "A submission folder to explain: Lab 3 C++ classes, or a console program (Makefile, CMakeLists.txt"
    ));
    assert!(help("shrink").contains(
        "A submission folder, built once: Lab 3 C++ classes (with the adapter), or a console program"
    ));
}
