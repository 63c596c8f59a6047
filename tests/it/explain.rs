//! `chessgrade explain` end to end: a known mismatch (a snapshot edited so
//! the reference engine disagrees with it, and a one-bug Lab 3 mutant)
//! drawn step by step with the missing and extra squares marked.

use crate::helpers::{command, lab3_engine, output, root, stdout};
use std::path::Path;
use std::process::Output;

/// `chessgrade ARGS --color never` in `dir`, in a UTF-8 locale on an
/// 80-column terminal.
fn chessgrade(dir: &Path, args: &[&str]) -> Output {
    output(
        command(dir)
            .args(args)
            .args(["--color", "never"])
            .env("LANG", "C.UTF-8")
            .env("COLUMNS", "80")
            .env_remove("LC_ALL")
            .env_remove("LC_CTYPE"),
    )
}

const SCENARIO: &str =
    "1\n4 4\nw r 3 0\nb k 0 3\n~\nisValidScan\n  underThreatScan\nmovePiece 3 0 0 0\n";

/// A project whose one snapshot claims the king may go to (1,1), not
/// (1,2), and that the rook is not threatened... by editing it.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scenarios/a")).unwrap();
    std::fs::write(dir.path().join("scenarios/a/x.txt"), SCENARIO).unwrap();
    let out = chessgrade(dir.path(), &["run", "--accept"]);
    assert_eq!(out.status.code(), Some(0));
    let snap = dir.path().join("snapshots/scenario@a__x.txt.snap");
    let text = std::fs::read_to_string(&snap).unwrap();
    let edited = text.replace("  V 0 3 1 2\n", "  V 0 3 1 1\n");
    assert_ne!(edited, text);
    std::fs::write(&snap, edited).unwrap();
    dir
}

#[test]
fn a_scan_mismatch_is_drawn_with_missing_and_extra_squares() {
    let dir = project();
    let out = chessgrade(dir.path(), &["explain", "scenarios/a/x.txt"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let body = text.split_once("\n\n").map(|(_, b)| b).unwrap_or(&text);
    assert!(body.starts_with("board after the setup:\n"), "{text}");
    assert!(
        body.contains(
            "line 6: MISMATCH: 1 missing, 1 extra\n    6 | isValidScan\n      | ^^^^^^^^^^^\n    \
             missing (expected, not answered): V 0 3 1 1\n    extra (answered, not expected): V 0 3 1 2\n"
        ),
        "{text}"
    );
    assert!(
        body.contains("    0   ·  ·  · *♚\n    1   · +· x·  ·\n"),
        "{text}"
    );
    assert!(body.ends_with("(2 later steps not shown; --all shows every step, --line N one step)\n\nfirst mismatch at line 6\n"), "{text}");
}

#[test]
fn one_step_with_its_caret_and_boards_before_and_after_in_ascii() {
    let dir = project();
    let out = chessgrade(
        dir.path(),
        &["explain", "scenarios/a/x.txt", "--line", "8", "--ascii"],
    );
    // Line 8 matches; the scenario as a whole still does not.
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains(
            "line 8: ok\n    8 | movePiece 3 0 0 0\n      | ^^^^^^^^^^^^^^^^^\n    answered: = 1\n    board before:\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("    board after:\n        0  1  2  3\n    0   R  .  .  k\n"),
        "{text}"
    );
    let out = chessgrade(
        dir.path(),
        &["explain", "scenarios/a/x.txt", "--line", "7", "--ascii"],
    );
    let text = stdout(&out);
    assert!(
        text.contains("    7 |   underThreatScan\n      |   ^^^^^^^^^^^^^^^\n"),
        "{text}"
    );
    let out = chessgrade(dir.path(), &["explain", "scenarios/a/x.txt", "--line", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("line 2 holds no step (steps are on lines 6, 7, 8)")
    );
}

/// The mutant compiled once per run, explained as an engine (the README's
/// excerpt explains the same mutant through `--submission`).
#[test]
fn a_mutant_submission_is_explained_against_the_snapshot() {
    let engine = lab3_engine("lab3-mutant-no-double-step");
    let out = chessgrade(
        root(),
        &[
            "explain",
            "scenarios/lab3/pawns/double_step_from_start_rows.txt",
            "--engine",
            &engine,
            "--ascii",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("line 12: MISMATCH: 2 missing, 0 extra\n    12 | isValidScan\n"),
        "{text}"
    );
    assert!(
        text.contains("missing (expected, not answered): V 1 0 3 0, V 4 4 2 4\n"),
        "{text}"
    );
    // The pawns that should double-step (*) and their targets (+).
    assert!(text.contains("    1  *p  .  p  .  .  .\n    2   .  .  P  . +.  .\n    3  +.  .  .  .  .  r\n    4   .  .  .  . *P  P\n"), "{text}");
}

#[test]
fn standard_boards_are_labelled_with_files_and_ranks() {
    let out = chessgrade(
        root(),
        &[
            "explain",
            "scenarios/standard/en-passant/only_immediately_after_double_step.txt",
            "--line",
            "8",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(
        text.contains("        a  b  c  d  e  f  g  h\n    8   ·  ·  ·  ·  ♚"),
        "{text}"
    );
    assert!(text.contains("    5   ·  ·  ·  ♟  ♙  ·  ·  ·\n"), "{text}");
    assert!(text.ends_with("every step matches\n"), "{text}");
}

#[test]
fn explain_takes_an_engine_as_one_argument_or_after_a_double_dash() {
    // The engine runs in an empty temporary folder: its path is absolute.
    let engine = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/adapters/python-engine/engine.py"
    );
    // Options come first here: everything after `--` is the engine's.
    let run = |args: &[&str]| output(command(root()).args(["--color", "never"]).args(args));
    let scenario = "scenarios/lab3/pawns/double_step_from_start_rows.txt";
    let after = run(&["explain", scenario, "--engine", "--", "python3", engine]);
    assert_eq!(after.status.code(), Some(0), "{}", stdout(&after));
    assert!(
        stdout(&after).contains("with engine python3"),
        "{}",
        stdout(&after)
    );
    let one = run(&[
        "explain",
        scenario,
        "--engine",
        &format!("python3 {engine}"),
    ]);
    assert_eq!(one.status.code(), Some(0), "{}", stdout(&one));
    let missing = run(&["explain", scenario, "--engine", "./no-such-engine"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("does not exist"));
}

/// `explain --format html`: one page walking every step (not only up to
/// the first mismatch), each with its boards as pictures, the first
/// mismatch marked in the links and on its section.
#[test]
fn the_walk_as_a_page_has_every_step_with_its_pictures_and_marks_the_first_mismatch() {
    let dir = project();
    let out = chessgrade(
        dir.path(),
        &[
            "explain",
            "scenarios/a/x.txt",
            "--format",
            "html",
            "-o",
            "walk.html",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(stdout(&out), "", "the page is in the file");
    let page = std::fs::read_to_string(dir.path().join("walk.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(page.contains("<title>explain: scenarios/a/x.txt</title>"));
    // The setup and the three steps, each a section; the scan on line 6
    // is the first mismatch, and the later steps are shown too.
    assert_eq!(page.matches("<section class=\"step").count(), 4, "{page}");
    assert_eq!(
        page.matches("<section class=\"step mismatch\" id=\"line-6\">")
            .count(),
        1
    );
    assert!(
        page.contains("<a href=\"#line-6\" class=\"bad\">6 ✗</a>"),
        "{page}"
    );
    assert!(page.contains("<a href=\"#line-8\">8 ✓</a>"), "{page}");
    let scan = page
        .split("id=\"line-6\"")
        .nth(1)
        .unwrap()
        .split("</section>")
        .next()
        .unwrap();
    assert!(scan.contains("<rect class=\"missing\""), "{scan}");
    assert!(scan.contains("<rect class=\"extra\""), "{scan}");
    assert!(scan.contains("missing (expected, not answered): <code>V 0 3 1 1</code>"));
    // The move on line 8: its arrow, from 3 0 to 0 0.
    let mv = page
        .split("id=\"line-8\"")
        .nth(1)
        .unwrap()
        .split("</section>")
        .next()
        .unwrap();
    assert!(mv.contains("class=\"arrow\""), "{mv}");
    assert!(mv.contains("the step&#39;s move: from 3 0 to 0 0"), "{mv}");
    assert!(page.contains("<a href=\"#line-6\">first mismatch at line 6</a>"));
    // One step alone, to stdout.
    let out = chessgrade(
        dir.path(),
        &[
            "explain",
            "scenarios/a/x.txt",
            "--format",
            "html",
            "--line",
            "8",
        ],
    );
    let one = stdout(&out);
    assert_eq!(one.matches("<section class=\"step").count(), 1, "{one}");
    assert!(one.contains("id=\"line-8\""), "{one}");
}
