//! `grade --memcheck[=asan|valgrind]` end to end, through the binary: each
//! memory-bug fixture (`tests/fixtures/submissions/lab3-*`, the JHU console
//! fixtures `jhu-use-after-free` and `jhu-leak`) is reported with the right
//! kind and the student's own file and line under both tools (a build
//! copied from the build cache as well as a fresh one); the correct
//! Lab 3, JHU and CUHK fixtures report nothing; the policies (errors as
//! notes, leaks as a test item of their own) change what a finding costs;
//! class mode (Lab 3 and console classes), `explain` (Lab 3 and console)
//! and `shrink` take the same
//! flags and show the findings; and a hostile upload stays
//! confined while checked (its own `/proc/<pid>` is readable, nothing else).
//!
//! The expected files and lines were read off the fixtures by hand (each
//! bug is marked `BUG (on purpose)` there; `tests/fixtures/submissions/
//! README.md` lists them). Lab 3 cases run on the course corpus
//! (`../shared/lab3-course`), on one or a few configs each.

use crate::helpers::{
    self, console_fixture, copy_dir, jhu_overlay, root, submission as lab3_fixture,
};
use chessgrade::memcheck::Tool;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// `../shared/lab3-course` (the course corpus); `None` (the test says so
/// and passes) where it is absent, a failure under CI.
fn course() -> Option<PathBuf> {
    helpers::shared("lab3-course")
}

/// `chessgrade ARGS` without colours.
fn run(args: &[&str]) -> Output {
    helpers::output(helpers::command(root()).args(args).env("NO_COLOR", "1"))
}

/// Grades with `args` (which choose the subject and the scenarios) and a
/// JSON report: (exit code, the report, the human output).
fn graded(args: &[&str]) -> (i32, Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let mut all = vec!["grade", "--jobs", "2", "--format", "json", "--output"];
    all.push(report.to_str().unwrap());
    all.extend_from_slice(args);
    let out = run(&all);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let json =
        std::fs::read_to_string(&report).unwrap_or_else(|e| panic!("no report ({e}):\n{text}"));
    let v: Value = serde_json::from_str(&json).unwrap();
    (out.status.code().unwrap_or(-1), v, text)
}

/// A Lab 3 fixture graded on course configs whose names contain `filter`.
fn grade_lab3(
    course: &Path,
    fixture: &str,
    tool: &str,
    filter: &str,
    extra: &[&str],
) -> (i32, Value, String) {
    let configs = course.join("configs");
    let expected = course.join("expected");
    let memcheck = format!("--memcheck={tool}");
    let fixture = lab3_fixture(fixture);
    let mut args = vec![
        "--submission",
        fixture.to_str().unwrap(),
        configs.to_str().unwrap(),
        "--root",
        configs.to_str().unwrap(),
        "--snapshots",
        expected.to_str().unwrap(),
        memcheck.as_str(),
        "--filter",
        filter,
    ];
    args.extend_from_slice(extra);
    graded(&args)
}

/// The record of the scenario named `name` in a report.
fn scenario<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no scenario {name} in {v:#}"))
}

/// `file:line` of a frame in a report (`-` when there is none).
fn at(frame: &Value) -> String {
    match frame {
        Value::Null => "-".to_string(),
        f => format!("{}:{}", f["file"].as_str().unwrap(), f["line"]),
    }
}

/// What a failing scenario's memory error says: (line, kind, access, at,
/// freed, allocated).
fn memory_failure(s: &Value) -> (u64, String, String, String, String, String) {
    assert_eq!(s["status"], "fail", "{s:#}");
    assert_eq!(s["class"], "memory_error", "{s:#}");
    let e = &s["memory"]["error"];
    let access = match &e["access"] {
        Value::Null => "-".to_string(),
        a => format!(
            "{} {}",
            if a["write"] == true { "write" } else { "read" },
            a["size"]
        ),
    };
    (
        s["line"].as_u64().unwrap_or(0),
        e["kind"].as_str().unwrap().to_string(),
        access,
        at(&e["at"]),
        at(&e["freed"]),
        at(&e["allocated"]),
    )
}

fn s(text: &str) -> String {
    text.to_string()
}

#[test]
fn a_use_after_free_names_the_read_the_free_and_the_allocation() {
    let Some(course) = course() else {
        return;
    };
    // Each tool's build graded twice: the second run's program is the
    // first's, copied from the build cache (the same run's cache, which
    // other tests share, so the first may be a copy too), and names the
    // same lines.
    for (tool, run) in [("asan", 1), ("asan", 2), ("valgrind", 1), ("valgrind", 2)] {
        let (code, v, text) =
            grade_lab3(&course, "lab3-use-after-free", tool, "part2_8x8_1.txt", &[]);
        assert_eq!(code, 1, "{text}");
        if run == 2 {
            assert!(
                text.contains("compile: from the build cache (g++"),
                "{tool}: {text}"
            );
        }
        let f = memory_failure(scenario(&v, "part2_8x8_1.txt"));
        assert_eq!(
            f,
            (
                15,
                s("use_after_free"),
                s("read 4"),
                s("ChessBoard.cc:172"),
                s("ChessBoard.cc:238"),
                s("ChessBoard.cc:177")
            ),
            "{tool}: {text}"
        );
        assert!(
            text.contains("at ChessBoard.cc:172 (Student::ChessBoard::isValidMove)"),
            "{tool}: the human report names the student's line: {text}"
        );
    }
}

#[test]
fn a_heap_overflow_names_the_write_and_the_allocation() {
    let Some(course) = course() else {
        return;
    };
    for tool in ["asan", "valgrind"] {
        let (code, v, text) =
            grade_lab3(&course, "lab3-heap-overflow", tool, "part2_8x8_1.txt", &[]);
        assert_eq!(code, 1, "{text}");
        let f = memory_failure(scenario(&v, "part2_8x8_1.txt"));
        assert_eq!(
            f,
            (
                13,
                s("out_of_bounds"),
                s("write 1"),
                s("ChessBoard.cc:219"),
                s("-"),
                s("ChessBoard.cc:217")
            ),
            "{tool}: {text}"
        );
    }
}

#[test]
fn a_double_free_names_both_frees() {
    let Some(course) = course() else {
        return;
    };
    for tool in ["asan", "valgrind"] {
        let (code, v, text) = grade_lab3(&course, "lab3-double-free", tool, "part2_4x4_2.txt", &[]);
        assert_eq!(code, 1, "{text}");
        let f = memory_failure(scenario(&v, "part2_4x4_2.txt"));
        assert_eq!(
            f,
            (
                11,
                s("double_free"),
                s("-"),
                s("ChessBoard.cc:192"),
                s("ChessBoard.cc:189"),
                s("ChessBoard.cc:186")
            ),
            "{tool}: {text}"
        );
    }
}

#[test]
fn an_uninitialised_read_is_found_by_valgrind_and_not_looked_for_by_asan() {
    let Some(course) = course() else {
        return;
    };
    let (code, v, text) = grade_lab3(
        &course,
        "lab3-uninitialised",
        "valgrind",
        "part1_4x4_7.txt",
        &[],
    );
    assert_eq!(code, 1, "{text}");
    let f = memory_failure(scenario(&v, "part1_4x4_7.txt"));
    assert_eq!(
        f,
        (
            8,
            s("uninitialised"),
            s("-"),
            s("PawnPiece.cc:31"),
            s("-"),
            s("ChessBoard.cc:33")
        ),
        "{text}"
    );
    assert!(text.contains("created at ChessBoard.cc:33"), "{text}");
    // AddressSanitizer does not track initialisation: nothing found, and
    // the answers are the course build's (a fresh heap is zeroed).
    let (code, v, text) = grade_lab3(
        &course,
        "lab3-uninitialised",
        "asan",
        "part1_4x4_7.txt",
        &[],
    );
    assert_eq!(code, 0, "{text}");
    let m = &scenario(&v, "part1_4x4_7.txt")["memory"];
    assert_eq!(
        (m["error"].clone(), m["errors"].clone()),
        (Value::Null, 0.into())
    );
}

/// The first leak site of a checked scenario: (file, function).
fn largest_leak(s: &Value) -> (String, String, u64) {
    let l = &s["memory"]["leaks"];
    assert!(l["bytes"].as_u64().unwrap() > 0, "{s:#}");
    let a = &l["largest"][0]["allocated"];
    (
        a["file"].as_str().unwrap().to_string(),
        a["function"].as_str().unwrap().to_string(),
        a["line"].as_u64().unwrap(),
    )
}

#[test]
fn leaks_are_a_note_by_default_and_a_test_item_of_their_own_with_leak_points() {
    let Some(course) = course() else {
        return;
    };
    for tool in ["asan", "valgrind"] {
        let (code, v, text) = grade_lab3(&course, "lab3-leak", tool, "part2_8x8_1.txt", &[]);
        assert_eq!(code, 0, "a leak is a note: {text}");
        let rec = scenario(&v, "part2_8x8_1.txt");
        assert_eq!(rec["status"], "pass");
        let (file, function, line) = largest_leak(rec);
        assert_eq!(
            (file.as_str(), function.as_str()),
            ("ChessBoard.cc", "Student::ChessBoard::createChessPiece"),
            "{tool}: {text}"
        );
        assert!(
            (33..=39).contains(&line),
            "a `new` of createChessPiece: {line}"
        );
        assert!(text.contains("memory leak:"), "{text}");
    }
    // The JHU-style deduction: one item worth its own points.
    let dir = tempfile::tempdir().unwrap();
    let configs = course.join("configs");
    let expected = course.join("expected");
    for (fixture, score) in [("lab3-leak", 0.0), ("lab3-correct", 5.0)] {
        let out_file = dir.path().join(format!("{fixture}.json"));
        let fixture_dir = lab3_fixture(fixture);
        let out = run(&[
            "grade",
            "--submission",
            fixture_dir.to_str().unwrap(),
            configs.to_str().unwrap(),
            "--root",
            configs.to_str().unwrap(),
            "--snapshots",
            expected.to_str().unwrap(),
            "--filter",
            "part2_8x8_1.txt",
            "--memcheck",
            "--leak-points",
            "5",
            "--format",
            "gradescope",
            "--output",
            out_file.to_str().unwrap(),
        ]);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&out_file).unwrap()).unwrap();
        let tests = v["tests"].as_array().unwrap();
        let item = tests
            .iter()
            .find(|t| t["name"] == "memcheck: memory leaks")
            .unwrap_or_else(|| panic!("{v:#}"));
        assert_eq!(item["max_score"], 5.0);
        assert_eq!(item["score"], score, "{fixture}: {v:#}");
        assert_eq!(v["score"], score, "the scenario has no points of its own");
        assert_eq!(out.status.code(), Some(if score == 0.0 { 1 } else { 0 }));
        if score == 0.0 {
            let output = item["output"].as_str().unwrap();
            assert!(
                output.contains("part2_8x8_1.txt") && output.contains("ChessBoard.cc"),
                "{output}"
            );
        }
    }
}

#[test]
fn memory_errors_as_notes_leave_the_verdict_to_the_answers() {
    let Some(course) = course() else {
        return;
    };
    let (_, v, text) = grade_lab3(
        &course,
        "lab3-heap-overflow",
        "asan",
        "part2_8x8_1.txt",
        &["--memory-errors", "note"],
    );
    let rec = scenario(&v, "part2_8x8_1.txt");
    // The overflow lands in malloc's slack: the answers are right.
    assert_eq!(rec["status"], "pass", "{text}");
    assert_eq!(rec["memory"]["error"]["kind"], "out_of_bounds");
    assert_eq!(rec["memory"]["error"]["at"]["line"], 219);
    assert!(text.contains("memcheck (asan): memory error"), "{text}");
}

#[test]
fn the_correct_lab3_upload_reports_nothing() {
    let Some(course) = course() else {
        return;
    };
    // Every course config under AddressSanitizer; a few under valgrind
    // (pawns, moves and scans, castling).
    let (code, v, text) = grade_lab3(&course, "lab3-correct", "asan", "part", &[]);
    assert_eq!(code, 0, "{text}");
    let scenarios = v["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 151);
    for rec in scenarios {
        assert_eq!(rec["memory"]["errors"], 0, "{rec:#}");
        assert_eq!(rec["memory"]["leaks"], Value::Null, "{rec:#}");
    }
    for config in ["part1_4x4_7.txt", "part2_8x8_1.txt", "part4_8x8_12.txt"] {
        let (code, v, text) = grade_lab3(&course, "lab3-correct", "valgrind", config, &[]);
        assert_eq!(code, 0, "{config}: {text}");
        let m = &scenario(&v, config)["memory"];
        assert_eq!(
            (m["errors"].clone(), m["leaks"].clone()),
            (0.into(), Value::Null)
        );
    }
}

fn grade_jhu(fixture: &str, tool: &str, filter: &str) -> (i32, Value, String) {
    helpers::checked_console_build(fixture, tool.parse().expect("a memory checker"));
    let overlay = jhu_overlay(None);
    let dir = console_fixture(fixture);
    let scenarios = root().join("scenarios/jhu");
    let memcheck = format!("--memcheck={tool}");
    graded(&[
        "--submission",
        dir.to_str().unwrap(),
        "--overlay",
        overlay.path().to_str().unwrap(),
        scenarios.to_str().unwrap(),
        "--root",
        root().join("scenarios").to_str().unwrap(),
        "--snapshots",
        root().join("snapshots").to_str().unwrap(),
        memcheck.as_str(),
        "--filter",
        filter,
    ])
}

#[test]
fn a_console_programs_use_after_free_is_named_at_the_command_that_made_it() {
    if helpers::shared("jhu-course").is_none() {
        return;
    }
    let name = "jhu/score/shannon_values_after_captures.txt";
    // As for Lab 3: the second run of each tool is a copy from the build
    // cache (built by the course's Makefile through the compiler wrappers).
    for (tool, run) in [("asan", 1), ("asan", 2), ("valgrind", 1), ("valgrind", 2)] {
        let (code, v, text) = grade_jhu("jhu-use-after-free", tool, name);
        assert_eq!(code, 1, "{text}");
        if run == 2 {
            assert!(
                text.contains("build: from the build cache"),
                "{tool}: {text}"
            );
        }
        let f = memory_failure(scenario(&v, name));
        assert_eq!(
            f,
            (
                20,
                s("use_after_free"),
                s("read 8"),
                s("Board.cpp:94"),
                s("Board.cpp:91"),
                s("Board.cpp:40")
            ),
            "{tool}: {text}"
        );
    }
}

#[test]
fn a_console_programs_leaks_are_found_at_its_exit_and_the_starter_files_left_out() {
    if helpers::shared("jhu-course").is_none() {
        return;
    }
    let name = "jhu/score/shannon_values_after_captures.txt";
    for tool in ["asan", "valgrind"] {
        let (code, v, text) = grade_jhu("jhu-leak", tool, name);
        assert_eq!(code, 0, "{text}");
        let rec = scenario(&v, name);
        assert_eq!(rec["status"], "pass");
        // Allocated by the overlay's create_piece, called from the
        // student's Board: the starter file is not the student's frame.
        let (file, function, line) = largest_leak(rec);
        assert_eq!(
            (file.as_str(), function.as_str(), line),
            ("Board.cpp", "Chess::Board::copy_from", 40),
            "{tool}: {text}"
        );
    }
}

#[test]
fn the_correct_console_programs_report_nothing() {
    if helpers::shared("jhu-course").is_none() {
        return;
    }
    for tool in ["asan", "valgrind"] {
        // Every JHU scenario under AddressSanitizer; two under valgrind.
        let filter = if tool == "asan" { "jhu/" } else { "save" };
        let (_, v, text) = grade_jhu("jhu-correct", tool, filter);
        for rec in v["scenarios"].as_array().unwrap() {
            let m = &rec["memory"];
            assert_eq!(
                (m["errors"].clone(), m["leaks"].clone()),
                (0.into(), Value::Null),
                "{tool}: {text}"
            );
        }
        let cuhk = console_fixture("cuhk-correct");
        let scenarios = root().join("scenarios/cuhk/console");
        let memcheck = format!("--memcheck={tool}");
        let (code, v, text) = graded(&[
            "--submission",
            cuhk.to_str().unwrap(),
            scenarios.to_str().unwrap(),
            "--root",
            root().join("scenarios").to_str().unwrap(),
            "--snapshots",
            root().join("snapshots").to_str().unwrap(),
            memcheck.as_str(),
        ]);
        assert_eq!(code, 0, "{tool}: {text}");
        for rec in v["scenarios"].as_array().unwrap() {
            let m = &rec["memory"];
            assert_eq!(
                (m["errors"].clone(), m["leaks"].clone()),
                (0.into(), Value::Null),
                "{tool}: {text}"
            );
        }
    }
}

#[test]
fn a_class_is_checked_member_by_member() {
    let Some(course) = course() else {
        return;
    };
    let class = tempfile::tempdir().unwrap();
    for name in ["lab3-correct", "lab3-leak", "lab3-heap-overflow"] {
        copy_dir(&lab3_fixture(name), &class.path().join(name));
    }
    let reports = tempfile::tempdir().unwrap();
    let configs = course.join("configs");
    let expected = course.join("expected");
    let out = run(&[
        "grade",
        "--class",
        class.path().to_str().unwrap(),
        configs.to_str().unwrap(),
        "--root",
        configs.to_str().unwrap(),
        "--snapshots",
        expected.to_str().unwrap(),
        "--filter",
        "part2_8x8_1.txt",
        "--memcheck",
        "--format",
        "json",
        "--output-dir",
        reports.path().to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("memcheck: AddressSanitizer"), "{text}");
    let member = |name: &str| -> Value {
        let path = reports.path().join(format!("{name}.json"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let correct = member("lab3-correct");
    let rec = scenario(&correct, "part2_8x8_1.txt");
    assert_eq!(
        (rec["status"].clone(), rec["memory"]["leaks"].clone()),
        ("pass".into(), Value::Null)
    );
    let leak = member("lab3-leak");
    assert_eq!(scenario(&leak, "part2_8x8_1.txt")["status"], "pass");
    largest_leak(scenario(&leak, "part2_8x8_1.txt"));
    let overflow = member("lab3-heap-overflow");
    let f = memory_failure(scenario(&overflow, "part2_8x8_1.txt"));
    assert_eq!(
        (f.1.as_str(), f.3.as_str()),
        ("out_of_bounds", "ChessBoard.cc:219")
    );
}

/// A class of console uploads checked with AddressSanitizer: each member
/// built with the checker's flags behind the course's Makefile (the
/// starter overlay on top), each judged on its own: the correct program
/// passes with nothing found, the use after free fails where its bug is,
/// the leak passes with its leak noted.
#[test]
fn a_class_of_console_programs_is_checked_member_by_member() {
    if helpers::shared("jhu-course").is_none() {
        return;
    }
    let class = tempfile::tempdir().unwrap();
    for name in ["jhu-correct", "jhu-use-after-free", "jhu-leak"] {
        helpers::checked_console_build(name, Tool::Asan);
        copy_dir(&console_fixture(name), &class.path().join(name));
    }
    let overlay = jhu_overlay(None);
    let reports = tempfile::tempdir().unwrap();
    let name = "jhu/score/shannon_values_after_captures.txt";
    let out = run(&[
        "grade",
        "--class",
        class.path().to_str().unwrap(),
        "--overlay",
        overlay.path().to_str().unwrap(),
        root().join("scenarios/jhu").to_str().unwrap(),
        "--root",
        root().join("scenarios").to_str().unwrap(),
        "--snapshots",
        root().join("snapshots").to_str().unwrap(),
        "--filter",
        name,
        "--memcheck",
        "--format",
        "json",
        "--output-dir",
        reports.path().to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("memcheck: AddressSanitizer"), "{text}");
    let member = |who: &str| -> Value {
        let path = reports.path().join(format!("{who}.json"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let correct = member("jhu-correct");
    let rec = scenario(&correct, name);
    assert_eq!(
        (
            rec["status"].clone(),
            rec["memory"]["errors"].clone(),
            rec["memory"]["leaks"].clone()
        ),
        ("pass".into(), 0.into(), Value::Null),
        "{text}"
    );
    let uaf = member("jhu-use-after-free");
    let f = memory_failure(scenario(&uaf, name));
    assert_eq!(
        (f.1.as_str(), f.3.as_str(), f.4.as_str()),
        ("use_after_free", "Board.cpp:94", "Board.cpp:91"),
        "{text}"
    );
    let leak = member("jhu-leak");
    let rec = scenario(&leak, name);
    assert_eq!(rec["status"], "pass", "{text}");
    let (file, _, line) = largest_leak(rec);
    assert_eq!((file.as_str(), line), ("Board.cpp", 40), "{text}");
}

#[test]
fn explain_walks_to_the_step_a_memory_error_stopped() {
    let Some(course) = course() else {
        return;
    };
    let config = course.join("configs/part2_8x8_1.txt");
    let configs = course.join("configs");
    let expected = course.join("expected");
    let fixture = lab3_fixture("lab3-heap-overflow");
    let out = run(&[
        "explain",
        config.to_str().unwrap(),
        "--submission",
        fixture.to_str().unwrap(),
        "--root",
        configs.to_str().unwrap(),
        "--snapshots",
        expected.to_str().unwrap(),
        "--memcheck",
        "--ascii",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("line 13: FAILED: memory error (AddressSanitizer): out-of-bounds access (write of 1 byte) at ChessBoard.cc:219"),
        "{text}"
    );
}

#[test]
fn flags_that_cannot_be_honoured_are_usage_errors() {
    let Some(course) = course() else {
        return;
    };
    let configs = course.join("configs");
    let jhu = root().join("scenarios/jhu");
    let correct = lab3_fixture("lab3-correct");
    for (scenarios, args, why) in [
        (
            &configs,
            vec!["--engine", "/bin/cat", "--memcheck"],
            "an engine is not built here",
        ),
        (
            &configs,
            vec![
                "--submission",
                correct.to_str().unwrap(),
                "--memory-errors",
                "note",
            ],
            "a policy without --memcheck",
        ),
        (
            &configs,
            vec![
                "--submission",
                correct.to_str().unwrap(),
                "--memcheck=purify",
            ],
            "an unknown tool",
        ),
        (
            &jhu,
            vec!["--program", "/bin/cat", "--memcheck=asan"],
            "a program built elsewhere has no AddressSanitizer",
        ),
    ] {
        let mut all = vec!["grade", scenarios.to_str().unwrap()];
        all.extend(args);
        let out = run(&all);
        assert_eq!(out.status.code(), Some(2), "{why}: {:?}", out);
    }
}

/// Whether the kernel confines submissions fully here; prints why not.
fn confinement_available() -> bool {
    let iso = chessgrade::sandbox::isolation();
    if !iso.complete() {
        eprintln!("skipping: this kernel cannot confine submissions fully ({iso})");
        return false;
    }
    true
}

/// A correct upload plus the isolation tests' attack (one `ATTACK_*`),
/// aiming at `target`.
fn hostile_upload(attack: &str, target: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&lab3_fixture("lab3-correct"), dir.path());
    let source =
        std::fs::read_to_string(root().join("tests/fixtures/hostile/chessgrade_attack.cc"))
            .unwrap();
    let defines = format!(
        "#define ATTACK_{attack} 1\n#define CG_TARGET {:?}\n",
        target.to_str().unwrap()
    );
    std::fs::write(dir.path().join("chessgrade_attack.cc"), defines + &source).unwrap();
    dir
}

#[test]
fn a_checked_upload_still_cannot_read_the_answers_or_touch_the_grader() {
    if !confinement_available() {
        return;
    }
    let Some(course) = course() else {
        return;
    };
    let configs = course.join("configs");
    let expected = course.join("expected");
    let answer = expected.join("part2_8x8_1.expected");
    assert!(answer.is_file());
    for attack in ["READ_ANSWERS", "KILL_GRADER"] {
        let upload = hostile_upload(attack, &answer);
        // Under valgrind; AddressSanitizer's checked processes face these
        // attacks and more in a class (isolation.rs,
        // hostile_lab3_uploads_checked_by_memcheck_...).
        let tool = "valgrind";
        let memcheck = format!("--memcheck={tool}");
        // The attack runs in a static initialiser: the grader's
        // /proc/<pid> (its command line names the answers), init's and
        // the answer file itself stay closed; an attack that gets
        // anywhere aborts the program.
        let (code, v, text) = graded(&[
            "--submission",
            upload.path().to_str().unwrap(),
            configs.to_str().unwrap(),
            "--root",
            configs.to_str().unwrap(),
            "--snapshots",
            expected.to_str().unwrap(),
            memcheck.as_str(),
            "--filter",
            "part2_8x8_1.txt",
        ]);
        assert_eq!(code, 0, "{attack} under {tool}: {text}");
        assert_eq!(scenario(&v, "part2_8x8_1.txt")["status"], "pass");
        assert!(!text.contains("ATTACK SUCCEEDED"), "{text}");
    }
}

#[test]
fn a_memory_hog_is_stopped_without_an_address_space_limit() {
    let Some(course) = course() else {
        return;
    };
    // AddressSanitizer runs without RLIMIT_AS: the grader watches the
    // tree's resident memory instead. The fixture fills 64 MiB blocks
    // until it holds 2 GiB; at --memory-mb 256 it must be stopped long
    // before that, and the grader go on.
    let fixture = lab3_fixture("hostile-alloc-unbounded");
    let configs = course.join("configs");
    let expected = course.join("expected");
    let started = std::time::Instant::now();
    let (code, v, text) = graded(&[
        "--submission",
        fixture.to_str().unwrap(),
        configs.to_str().unwrap(),
        "--root",
        configs.to_str().unwrap(),
        "--snapshots",
        expected.to_str().unwrap(),
        "--memcheck",
        "--memory-mb",
        "256",
        "--filter",
        "part1_4x4_1.txt",
    ]);
    assert_eq!(code, 1, "{text}");
    let rec = scenario(&v, "part1_4x4_1.txt");
    assert_eq!(rec["status"], "fail");
    let message = rec["message"].as_str().unwrap();
    // Either the allocator said no (bad_alloc, as under RLIMIT_AS) or the
    // watch ended it.
    assert!(
        message.contains("bad_alloc") || message.contains("resident memory"),
        "{message}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(120));
}

#[test]
fn explain_shows_a_console_programs_memory_error_and_fails_on_it() {
    if helpers::shared("jhu-course").is_none() {
        return;
    }
    let overlay = jhu_overlay(None);
    let scenario = root().join("scenarios/jhu/score/shannon_values_after_captures.txt");
    let explain = |fixture: &str| {
        helpers::checked_console_build(fixture, Tool::Asan);
        let dir = console_fixture(fixture);
        let out = run(&[
            "explain",
            scenario.to_str().unwrap(),
            "--submission",
            dir.to_str().unwrap(),
            "--overlay",
            overlay.path().to_str().unwrap(),
            "--root",
            root().join("scenarios").to_str().unwrap(),
            "--snapshots",
            root().join("snapshots").to_str().unwrap(),
            "--memcheck",
            "--ascii",
        ]);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    // The same finding as `grade` names (see the use-after-free test above).
    let (code, text) = explain("jhu-use-after-free");
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("memcheck (asan): memory error: use after free (read of 8 bytes) at Board.cpp:94 (Chess::Board::move_piece); freed at Board.cpp:91 (Chess::Board::move_piece); allocated at Board.cpp:40 (Chess::Board::copy_from)"),
        "{text}"
    );
    let (code, text) = explain("jhu-correct");
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("memcheck (asan): no memory error, no leak"),
        "{text}"
    );
    assert!(text.ends_with("every command's answer matches\n"), "{text}");
}

#[test]
fn shrink_keeps_a_memory_error_while_it_shrinks() {
    let Some(course) = course() else {
        return;
    };
    let config = course.join("configs/part2_8x8_1.txt");
    let fixture = lab3_fixture("lab3-heap-overflow");
    let out = run(&[
        "shrink",
        config.to_str().unwrap(),
        "--submission",
        fixture.to_str().unwrap(),
        "--root",
        course.join("configs").to_str().unwrap(),
        "--snapshots",
        course.join("expected").to_str().unwrap(),
        "--memcheck",
        "--max-runs",
        "60",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    // Built as grade builds it: the smaller scenario still fails on the
    // overflow the heap-overflow test names, not on an answer.
    assert!(text.contains("(memory_error at a `"), "{text}");
    assert!(
        text.contains("at ChessBoard.cc:219 (Student::ChessBoard::isPieceUnderThreat)"),
        "{text}"
    );
}

/// Issue 37: where the grader's broker answers a checked program's file
/// calls (the jail's variant B, as a CI runner's user: no Landlock, no
/// uid of its own), both tools still work as unjailed: AddressSanitizer
/// reads its program's debug information through its own
/// `/proc/<pid>/exe` and valgrind runs its tool and reads its own maps,
/// so the use after free is named at the student's lines.
#[test]
fn under_the_broker_both_tools_name_the_students_lines() {
    let (Some(course), Some(jail)) = (course(), helpers::jail()) else {
        return;
    };
    let configs = course.join("configs");
    let expected = course.join("expected");
    let fixture = lab3_fixture("lab3-use-after-free");
    // A cache of its own that the jail's user may write.
    let cache = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        cache.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    for tool in ["asan", "valgrind"] {
        let memcheck = format!("--memcheck={tool}");
        let mut command = helpers::command(root());
        command
            .args(["grade", "--require-isolation", "--submission"])
            .arg(&fixture)
            .arg(&configs)
            .arg("--root")
            .arg(&configs)
            .arg("--snapshots")
            .arg(&expected)
            .args([memcheck.as_str(), "--filter", "part2_8x8_1.txt"])
            .env("NO_COLOR", "1")
            .env("XDG_CACHE_HOME", cache.path());
        let out = helpers::output(&mut helpers::jailed(&jail, 'B', Some(65534), &command));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(1), "{tool}: {text}");
        assert!(text.contains("files brokered (no landlock)"), "{text}");
        assert!(
            text.contains("use after free (read of 4 bytes) at ChessBoard.cc:172")
                && text.contains("freed at ChessBoard.cc:238"),
            "{tool}: {text}"
        );
    }
}
