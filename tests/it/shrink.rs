//! `chessgrade shrink` on a one-bug fixture: the Lab 3 mutant whose
//! `isValidMove` never checks its own king's safety fails a 6x6 double-check
//! scenario (6 pieces, 4 steps); the shrinker must bring it down to one
//! king, one checking piece and the one scan that shows the bug, and the
//! result must still fail on the mutant and pass on the correct submission.

use crate::helpers::{chessgrade, lab3_engine, root, submission};

#[test]
fn a_king_safety_bug_shrinks_to_a_king_a_checker_and_one_scan() {
    let out = tempfile::tempdir().unwrap();
    let minimal = out.path().join("minimal.txt");
    let o = chessgrade(&[
        "--color",
        "never",
        "shrink",
        "scenarios/lab3/king-safety/double_check_only_the_king_may_move.txt",
        "--submission",
        submission("lab3-mutant-no-king-safety").to_str().unwrap(),
        "-o",
        minimal.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        stdout.contains("(wrong_answer at a `isValidScan` step): 4 -> 1 steps, 6 -> 2 placements"),
        "{stdout}"
    );
    assert!(stdout.contains("first mismatch"), "{stdout}");
    let s = chessgrade::scenario::load(&minimal).unwrap();
    // Reviewed: a white king and the black piece checking it, then isValidScan,
    // where the mutant lets the king stay on the checking line.
    assert_eq!(s.placements.len(), 2, "{stdout}");
    assert_eq!(s.steps.len(), 1);
    assert_eq!(s.steps[0].kind, chessgrade::scenario::StepKind::IsValidScan);
    // Reviewed: the king may not step onto b's diagonal (1 1); the mutant lets it.
    assert_eq!(
        std::fs::read_to_string(&minimal).unwrap(),
        "1\n2 3\nw k 1 0\nb b 0 2\n~\nisValidScan\n"
    );
    assert!(stdout.contains("6x6 -> 2x3 board"), "{stdout}");
    // The minimal scenario fails on the mutant and passes on the correct
    // submission (each compiled once per run, as an engine).
    for (name, code) in [("lab3-mutant-no-king-safety", 1), ("lab3-correct", 0)] {
        let o = chessgrade(&[
            "shrink",
            minimal.to_str().unwrap(),
            "--engine",
            &lab3_engine(name),
        ]);
        assert_eq!(
            o.status.code(),
            Some(code),
            "{name}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
}

#[test]
fn a_scenario_that_passes_has_nothing_to_shrink_and_bad_input_is_a_staff_error() {
    let o = chessgrade(&[
        "shrink",
        "scenarios/lab3/king-safety/double_check_only_the_king_may_move.txt",
        "--engine",
        &lab3_engine("lab3-correct"),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("nothing to shrink"));
    let missing = chessgrade(&["shrink", "no/such/file.txt", "--engine", "/bin/cat"]);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn engine_is_one_argument_or_the_command_after_a_double_dash() {
    // The engine runs in an empty temporary folder: its path is absolute.
    let engine = root().join("adapters/python-engine/engine.py");
    let engine = engine.to_str().unwrap();
    let scenario = "scenarios/lab3/king-safety/double_check_only_the_king_may_move.txt";
    // The independent Python engine passes the scenario: nothing to shrink.
    let o = chessgrade(&["shrink", scenario, "--engine", "--", "python3", engine]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("nothing to shrink"));
    let o = chessgrade(&["shrink", scenario, "--engine", &format!("python3 {engine}")]);
    assert_eq!(o.status.code(), Some(0));
    // The old `--engine PROG ARGS...` form is a usage error, not a guess.
    let o = chessgrade(&["shrink", scenario, "--engine", "python3", engine]);
    assert_eq!(o.status.code(), Some(2));
    // A missing engine is a staff error before anything runs.
    let o = chessgrade(&["shrink", scenario, "--engine", "./no-such-engine"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not exist"));
}
