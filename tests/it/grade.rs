//! Grading real processes: the fixture submissions under
//! `tests/fixtures/submissions/` (a correct Lab 3 C++ submission, one-bug
//! mutants, hostile ones) compiled and driven over the protocol, with
//! their verdicts checked against each fixture's `EXPECT` file. Each
//! fixture is compiled once per run ([`lab3_engine`]) and graded with
//! `--engine`; tests of the build itself (a compile error, the left-out
//! main, a stray global class) still go through `--submission`.

use crate::helpers::{self, chessgrade, lab3_engine, root, scenarios, submission};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

/// How a test names a fixture to the grader: its shared engine, or the
/// folder itself for the fixture that does not compile.
fn subject(name: &str) -> Vec<String> {
    if name == "hostile-compile-error" {
        vec![
            "--submission".into(),
            submission(name).display().to_string(),
        ]
    } else {
        vec!["--engine".into(), lab3_engine(name)]
    }
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The course corpus, or `None` (and a notice) where it is absent outside CI.
fn corpus() -> Option<PathBuf> {
    helpers::shared("lab3-course")
}

/// Grades `subject` (e.g. `["--submission", dir]`) on `configs` of the
/// course corpus; returns the exit code and the JSON report.
fn grade_course(
    subject: &[&str],
    configs: &[&str],
    extra: &[&str],
) -> Option<(i32, serde_json::Value)> {
    let corpus = corpus()?;
    let config_dir = corpus.join("configs");
    let expected = corpus.join("expected");
    let mut args: Vec<String> = vec!["grade".into()];
    if configs.is_empty() {
        args.push(config_dir.display().to_string());
    } else {
        args.extend(
            configs
                .iter()
                .map(|c| config_dir.join(c).display().to_string()),
        );
    }
    for (flag, value) in [("--root", &config_dir), ("--snapshots", &expected)] {
        args.push(flag.into());
        args.push(value.display().to_string());
    }
    args.extend(["--format", "json"].map(String::from));
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(subject.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = chessgrade(&refs);
    let text = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "JSON report: {e}\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    Some((out.status.code().unwrap_or(-1), json))
}

fn failing(report: &serde_json::Value) -> BTreeSet<String> {
    scenarios(report)
        .iter()
        .filter(|s| s["status"] != "pass")
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_correct_submission_scores_full_marks_on_all_151_course_configs() {
    let dir = submission("lab3-correct");
    let Some((code, report)) = grade_course(&["--submission", dir.to_str().unwrap()], &[], &[])
    else {
        return;
    };
    assert_eq!(scenarios(&report).len(), 151);
    assert_eq!(failing(&report), BTreeSet::new());
    assert_eq!(code, 0);
    let notes = report["notes"].as_array().unwrap();
    assert!(
        notes.iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("main.cc: it defines its own main()")),
        "the stray main.cc is left out and noted: {notes:?}"
    );
}

#[test]
fn each_mutant_fails_exactly_the_configs_that_exercise_its_bug() {
    for mutant in [
        "lab3-mutant-turn-in-isvalid",
        "lab3-mutant-no-double-step",
        "lab3-mutant-no-king-safety",
        "lab3-mutant-pinned-attacker-ignored",
        "lab3-mutant-board-not-updated",
    ] {
        let dir = submission(mutant);
        let Some((code, report)) = grade_course(&refs(&subject(mutant)), &[], &[]) else {
            return;
        };
        let expected: BTreeSet<String> = std::fs::read_to_string(dir.join("EXPECT"))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect();
        assert!(!expected.is_empty());
        assert_eq!(failing(&report), expected, "{mutant}");
        assert_eq!(code, 1, "{mutant}");
        for s in scenarios(&report).iter().filter(|s| s["status"] == "fail") {
            let class = s["class"].as_str().unwrap();
            assert!(
                matches!(class, "wrong_answer" | "board_out_of_sync"),
                "{mutant}: {class}"
            );
            assert!(
                s["line"].as_u64().is_some(),
                "{mutant}: the first mismatching line is named"
            );
        }
    }
}

#[test]
fn the_board_not_updated_mutant_is_reported_out_of_sync() {
    let Some((_, report)) = grade_course(
        &refs(&subject("lab3-mutant-board-not-updated")),
        &["part2_4x4_1.txt"],
        &[],
    ) else {
        return;
    };
    let s = &scenarios(&report)[0];
    assert_eq!(s["class"], "board_out_of_sync");
    assert_eq!(s["line"], 10, "the first successful move");
    assert!(s["details"].as_str().unwrap().contains("expected board"));
}

/// No state leaks between scenarios: the fixture aborts at its process's
/// second board, and still passes every scenario graded through one fork
/// server (each scenario in a fresh fork of the ready adapter: the one
/// forked at `BEGIN` first, then the spares forked ahead after `ENDED`).
#[test]
fn state_left_by_one_scenario_never_reaches_the_next() {
    use std::io::Write;
    let engine = lab3_engine("lab3-static-state");
    // Control: in one process, the second board aborts.
    let mut child = Command::new(&engine)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"HELLO 2\nNEW 2 2\nNEW 2 2\nBOARD\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .skip(1)
            .collect::<Vec<_>>(),
        ["OK"],
        "the first board is made, the second aborts"
    );
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&out.status),
        Some(6)
    );

    let configs = [
        "part1_4x4_1.txt",
        "part1_4x4_2.txt",
        "part2_4x4_1.txt",
        "part2_4x4_2.txt",
        "part3_4x4_1__e5e9969a.txt",
        "part3_4x4_2__757b8fc1.txt",
    ];
    let Some((code, report)) = grade_course(&["--engine", &engine], &configs, &["--jobs", "1"])
    else {
        return;
    };
    assert_eq!(scenarios(&report).len(), configs.len());
    assert_eq!(failing(&report), BTreeSet::new());
    assert_eq!(code, 0);
}

/// Hostile fixtures: a scans-only config and one with moves, both graded,
/// the verdict classified, and the run completes.
#[test]
fn hostile_submissions_are_classified_and_the_run_completes() {
    let cases: &[(&str, &str, &str)] = &[
        // (fixture, verdict on part1_4x4_2 [scans only], verdict on part2_4x4_1 [moves])
        ("hostile-infinite-loop", "timeout", "timeout"),
        ("hostile-segfault", "pass", "crash"),
        ("hostile-abort", "crash", "crash"),
        ("hostile-print-megabytes", "pass", "pass"),
        (
            "hostile-alloc-unbounded",
            "malformed_answer",
            "malformed_answer",
        ),
        ("hostile-fork-loop", "timeout", "timeout"),
        ("hostile-close-stdout", "exited_early", "exited_early"),
        ("hostile-compile-error", "compile_error", "compile_error"),
    ];
    for (name, scans_only, with_moves) in cases {
        // A small memory limit makes the allocation bomb hit it long before
        // any timeout, however loaded the machine is.
        let limits: &[&str] = if *name == "hostile-alloc-unbounded" {
            &["--timeout", "20", "--memory-mb", "256"]
        } else {
            &["--timeout", "2", "--cpu", "2"]
        };
        let Some((_, report)) = grade_course(
            &refs(&subject(name)),
            &["part1_4x4_2.txt", "part2_4x4_1.txt"],
            limits,
        ) else {
            return;
        };
        let got: Vec<String> = scenarios(&report)
            .iter()
            .map(|s| s["class"].as_str().unwrap_or("pass").to_string())
            .collect();
        assert_eq!(
            got,
            vec![scans_only.to_string(), with_moves.to_string()],
            "{name}"
        );
    }
    let details = |name: &str| {
        let (_, report) = grade_course(
            &refs(&subject(name)),
            &["part2_4x4_1.txt"],
            &["--timeout", "2"],
        )
        .unwrap();
        scenarios(&report)[0]["details"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(details("hostile-segfault").contains("crash (SIGSEGV)"));
    assert!(details("hostile-abort").contains("crash (SIGABRT)"));
    assert!(
        details("hostile-compile-error").contains("RookPiece.cc"),
        "the compiler's message is shown"
    );
}

#[test]
fn a_garbage_answering_engine_in_another_language_is_malformed() {
    let engine = submission("hostile-garbage/engine.py");
    let Some((code, report)) = grade_course(
        &["--engine", "--", "python3", engine.to_str().unwrap()],
        &["part2_4x4_1.txt"],
        &[],
    ) else {
        return;
    };
    assert_eq!(code, 1);
    let s = &scenarios(&report)[0];
    assert_eq!(s["class"], "malformed_answer");
    assert!(
        s["message"]
            .as_str()
            .unwrap()
            .contains("`VALID 0 0 0 0` was answered `maybe`"),
        "{s}"
    );
}

/// A 16x16 isValidScan is 65,536 pipelined calls: it must not deadlock.
#[test]
fn a_sixteen_by_sixteen_scan_does_not_deadlock() {
    let dir = tempfile::tempdir().unwrap();
    let scenarios_dir = dir.path().join("scenarios");
    std::fs::create_dir_all(&scenarios_dir).unwrap();
    std::fs::write(
        scenarios_dir.join("big.txt"),
        "1\n16 16\nw k 15 4\nb k 0 4\nw r 15 0\nb b 0 2\nw p 14 3\nb p 1 3\n~\nisValidScan\nmovePiece 14 3 12 3\nisValidScan\nunderThreatScan\n",
    )
    .unwrap();
    let snaps = dir.path().join("snapshots");
    let (s, n) = (scenarios_dir.to_str().unwrap(), snaps.to_str().unwrap());
    let out = chessgrade(&["run", s, "--root", s, "--snapshots", n, "--accept"]);
    assert_eq!(out.status.code(), Some(0));
    let sub = lab3_engine("lab3-correct");
    let out = chessgrade(&["grade", s, "--root", s, "--snapshots", n, "--engine", &sub]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("PASS   1/1   big.txt"), "{text}");
}

/// The submission starts in an empty temporary directory of its own.
#[test]
fn submissions_run_in_a_fresh_empty_directory() {
    let dir = tempfile::tempdir().unwrap();
    let engine = dir.path().join("spy engine.py");
    std::fs::write(
        &engine,
        "import os, sys\nsys.stderr.write('CWD=' + os.getcwd() + ' FILES=' + repr(os.listdir('.')) + '\\n')\nsys.stderr.flush()\nprint('HELLO 0', flush=True)\n",
    )
    .unwrap();
    let Some((_, report)) = grade_course(
        &["--engine", "--", "python3", engine.to_str().unwrap()],
        &["part1_4x4_1.txt"],
        &[],
    ) else {
        return;
    };
    let s = &scenarios(&report)[0];
    assert_eq!(s["class"], "malformed_answer", "{s}");
    assert!(
        s["message"].as_str().unwrap().contains("protocol version"),
        "{s}"
    );
    let details = s["details"].as_str().unwrap();
    assert!(details.contains("chessgrade-run-"), "{details}");
    assert!(details.contains("FILES=[]"), "{details}");
}

#[test]
fn gradescope_junit_github_and_merged_partitions_from_a_real_run() {
    let Some(corpus) = corpus() else { return };
    let configs = corpus.join("configs");
    let sub = lab3_engine("lab3-mutant-no-double-step");
    let out_dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str], format: &str, file: &str| -> PathBuf {
        let path = out_dir.path().join(file);
        let mut args = vec![
            "grade",
            configs.to_str().unwrap(),
            "--root",
            configs.to_str().unwrap(),
            "--snapshots",
        ];
        let expected = corpus.join("expected");
        args.push(expected.to_str().unwrap());
        args.extend(["--format", format, "--output", path.to_str().unwrap()]);
        args.extend(extra);
        // `--engine` takes the rest of the line: last.
        args.extend(["--engine", &sub]);
        let out = chessgrade(&args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        path
    };

    // Gradescope: the spec's fields, with each test's score and status.
    let gs: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run(&[], "gradescope", "results.json")).unwrap(),
    )
    .unwrap();
    assert!(gs["score"].is_number());
    assert!(gs["execution_time"].is_u64());
    let tests = gs["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 151);
    for t in tests {
        for field in [
            "name",
            "number",
            "score",
            "max_score",
            "status",
            "output",
            "visibility",
        ] {
            assert!(!t[field].is_null(), "missing {field} in {t}");
        }
        assert!(t["status"] == "passed" || t["status"] == "failed");
    }
    assert_eq!(tests.iter().filter(|t| t["status"] == "failed").count(), 39);

    // JUnit: parses as XML, one testcase per scenario, failures counted.
    let xml = std::fs::read_to_string(run(&[], "junit", "junit.xml")).unwrap();
    let mut reader = quick_xml::Reader::from_str(&xml);
    let (mut cases, mut failures) = (0, 0);
    loop {
        match reader.read_event().expect("well-formed JUnit XML") {
            quick_xml::events::Event::Eof => break,
            quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => {
                match e.name().as_ref() {
                    "testcase" => cases += 1,
                    "failure" => failures += 1,
                    _ => {}
                }
            }
            _ => {}
        }
    }
    assert_eq!((cases, failures), (151, 39));

    // GitHub: an annotation at the scenario file and line of each first mismatch.
    let gh = std::fs::read_to_string(run(&[], "github", "gh.txt")).unwrap();
    assert_eq!(
        gh.lines()
            .filter(|l| l.starts_with("::error file="))
            .count(),
        39
    );
    assert!(
        gh.lines().any(|l| l.contains("part1_4x4_5.txt,line=")),
        "{gh}"
    );

    // Partitions: two slices merge into the whole run.
    let whole: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run(&[], "json", "whole.json")).unwrap())
            .unwrap();
    let a = run(&["--partition", "slice:1/2"], "json", "a.json");
    let b = run(&["--partition", "slice:2/2"], "json", "b.json");
    let merged_path = out_dir.path().join("merged.json");
    let out = chessgrade(&[
        "merge",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--format",
        "json",
        "--output",
        merged_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let merged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&merged_path).unwrap()).unwrap();
    let names = |r: &serde_json::Value| -> Vec<(String, String)> {
        let mut v: Vec<_> = scenarios(r)
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap().to_string(),
                    s["status"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&merged), names(&whole));
    let slice_a: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    assert_eq!(scenarios(&slice_a).len(), 76);
    assert_eq!(slice_a["partition"], "slice:1/2");
}

#[test]
fn a_missing_submission_folder_is_a_usage_error() {
    let out = chessgrade(&["grade", "--submission", "/nonexistent/submission"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a recognised submission"));
}

/// Issue 12: a stray global `class ChessPiece;` in a student header compiles
/// under the adapter as it does in the course's build, and grades right.
#[test]
fn a_stray_global_class_in_a_student_header_still_compiles_and_passes() {
    let dir = submission("lab3-stray-global-class");
    let Some((code, report)) = grade_course(
        &["--submission", dir.to_str().unwrap()],
        &["part1_4x4_2.txt", "part2_4x4_1.txt", "part3_8x8_9.txt"],
        &[],
    ) else {
        return;
    };
    assert_eq!(failing(&report), BTreeSet::new(), "{report}");
    assert_eq!(code, 0);
}

/// Issue 12: a compile error is shown once (the report's `compile_error`,
/// not a note), starting with the student's file and line; each scenario
/// names only that first error.
#[test]
fn a_compile_error_is_reported_once_with_the_students_file_first() {
    let dir = submission("hostile-compile-error");
    let Some((code, report)) = grade_course(
        &["--submission", dir.to_str().unwrap()],
        &["part1_4x4_1.txt", "part1_4x4_2.txt", "part2_4x4_1.txt"],
        &[],
    ) else {
        return;
    };
    assert_eq!(code, 1);
    let notes: Vec<&str> = report["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        !notes.iter().any(|n| n.contains("error:")),
        "the message is not a note: {notes:?}"
    );
    let message = report["compile_error"].as_str().expect("compile_error");
    let first_line = message.lines().next().unwrap();
    assert!(
        first_line.starts_with("RookPiece.cc:13:40: error:"),
        "{first_line}"
    );
    assert!(
        notes.iter().any(|n| n.starts_with("compile: ")),
        "the compile time is in the summary notes: {notes:?}"
    );
    for s in scenarios(&report) {
        assert_eq!(s["class"], "compile_error");
        let details = s["details"].as_str().unwrap();
        assert!(details.contains("RookPiece.cc:13:40"), "{details}");
        assert!(
            !details.contains("In member function"),
            "the whole compiler output is not copied under each scenario: {details}"
        );
    }
}

/// A `--submission` folder that exists but holds no upload of the kind the
/// scenarios grade is the student's result (every scenario
/// `not_recognised`, exit 1), as on Gradescope; only a missing folder is a
/// staff-side error (above).
#[test]
fn an_upload_of_the_wrong_kind_is_the_students_not_recognised() {
    let empty = tempfile::tempdir().unwrap();
    let lab3 = submission("lab3-correct");
    let jhu = root().join("scenarios/jhu/check");
    let lab3_scenario = root().join("scenarios/lab3/board-sizes");
    let cases = [
        // (upload, scenarios, what the note says was expected)
        (
            empty.path().to_path_buf(),
            &lab3_scenario,
            "no ChessBoard.hh",
        ),
        (
            lab3.clone(),
            &jhu,
            "a Lab 3 upload (ChessBoard.hh), but these scenarios grade the JHU console program",
        ),
        (
            empty.path().to_path_buf(),
            &jhu,
            "nothing to build: no Makefile, CMakeLists.txt or C++ source file (.cpp, .cc) for \
             the JHU console program (it holds no files)",
        ),
    ];
    for (upload, folder, expected) in cases {
        let out = chessgrade(&[
            "grade",
            folder.to_str().unwrap(),
            "--submission",
            upload.to_str().unwrap(),
            "--format",
            "json",
        ]);
        let text = String::from_utf8_lossy(&out.stdout);
        let report: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{e}: {text}{}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(out.status.code(), Some(1), "{text}");
        let all = scenarios(&report);
        assert!(!all.is_empty());
        assert!(all.iter().all(|s| s["class"] == "not_recognised"), "{text}");
        let note = report["notes"][0].as_str().unwrap();
        assert!(
            note.starts_with(&format!("not a recognised submission: {expected}")),
            "{note}"
        );
    }
}
