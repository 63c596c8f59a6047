//! Class mode end to end: a class folder with a good submission, a
//! one-bug mutant, one that does not compile and one with no files at all;
//! every one is graded, none stops the class, and the table, the class
//! JSON and the per-submission reports agree. The same for classes of
//! console programs (the real JHU fixtures with the starter overlay, the
//! real CUHK fixtures; each class graded once per run and checked
//! by several tests), a mixed class (Lab 3 and console uploads: the
//! scenarios decide, the other kind is that student's "not recognised"),
//! and the staff-side problems that stop a console class before any build.

use crate::helpers::{self, CUHK_ALL, JHU_ALL, copy_dir, jhu_overlay, root, submission, verdicts};
use std::path::Path;
use std::process::Output;
use std::sync::OnceLock;

/// `chessgrade ARGS --color never` in the project's folder.
fn chessgrade(args: &[&str]) -> Output {
    let mut all = args.to_vec();
    all.extend(["--color", "never"]);
    helpers::chessgrade(&all)
}

fn class_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for s in [
        "lab3-correct",
        "lab3-mutant-no-double-step",
        "hostile-compile-error",
    ] {
        copy_dir(&submission(s), &dir.path().join(s));
    }
    std::fs::create_dir(dir.path().join("nothing-uploaded")).unwrap();
    dir
}

#[test]
fn a_class_is_graded_whole_with_a_table_and_reports() {
    let class = class_folder();
    let out_dir = class.path().join("out-reports");
    let json = class.path().join("class.json");
    let out = chessgrade(&[
        "grade",
        "--class",
        class.path().to_str().unwrap(),
        "--filter",
        "lab3/pawns",
        "--jobs",
        "2",
        "--format",
        "json",
        "--output",
        json.to_str().unwrap(),
        "--output-dir",
        out_dir.to_str().unwrap(),
        "-q",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("submission"))
        .take(7)
        .collect();
    // The output folder is a sub-folder too but was created after the
    // class was listed.
    assert_eq!(
        table,
        [
            "submission                     points  passed  failed  failures by class",
            "hostile-compile-error             0/9       0       9  compile_error 9",
            "lab3-correct                      9/9       9       0",
            "lab3-mutant-no-double-step        6/9       6       3  wrong_answer 3",
            "nothing-uploaded                  0/9       0       9  not_recognised 9",
            "",
            "failures in the class: compile_error 9, not_recognised 9, wrong_answer 3",
        ],
        "{text}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let subs = v["submissions"].as_array().unwrap();
    assert_eq!(subs.len(), 4);
    assert_eq!(subs[3]["subject"], "nothing-uploaded");
    assert!(
        subs[3]["notes"][0]
            .as_str()
            .unwrap()
            .starts_with("not a recognised submission: no ChessBoard.hh")
    );
    for name in [
        "hostile-compile-error",
        "lab3-correct",
        "lab3-mutant-no-double-step",
        "nothing-uploaded",
    ] {
        let r: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out_dir.join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(r["subject"], name);
        assert_eq!(r["scenarios"].as_array().unwrap().len(), 9);
    }
}

#[test]
fn a_folder_of_submissions_given_as_one_submission_suggests_class() {
    let class = class_folder();
    let out = chessgrade(&["grade", "--submission", class.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("holds several submission folders; grade them all with `--class"),
        "{err}"
    );
}

// ---------------------------------------------------------------------
// Classes of console programs.
// ---------------------------------------------------------------------

/// What a student uploaded.
#[derive(Clone, Copy)]
enum Upload {
    /// A copy of `tests/fixtures/<path>`.
    Fixture(&'static str),
    /// The stand-in JHU program of `tests/fixtures/console-scripts/`
    /// installed as `chess` by its Makefile, with this mutant (empty: correct).
    Script(&'static str),
    /// A Makefile whose `chess` sleeps without reading: it can only time out.
    Hangs,
    /// An empty folder.
    Nothing,
}

/// Writes `upload` into the new folder `to`.
fn put(upload: Upload, to: &Path) {
    match upload {
        Upload::Fixture(path) => copy_dir(&root().join("tests/fixtures").join(path), to),
        Upload::Script(mutant) => helpers::script_upload("jhu_chess.py", mutant, to),
        Upload::Hangs => {
            std::fs::create_dir(to).unwrap();
            std::fs::write(
                to.join("Makefile"),
                "chess:\n\tprintf '#!/bin/sh\\nexec sleep 60\\n' > chess\n\tchmod +x chess\n",
            )
            .unwrap();
        }
        Upload::Nothing => std::fs::create_dir(to).unwrap(),
    }
}

/// One graded class: the exit code, stdout and stderr, and the folder
/// holding the class (`class/`) and its reports (kept for the tests that
/// read them).
struct ClassRun {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    dir: tempfile::TempDir,
}

impl ClassRun {
    /// Grades the class of `students` with `args`; `{out}` in an argument
    /// is the run's folder.
    fn grade(students: &[(&str, Upload)], args: &[&str]) -> ClassRun {
        let dir = tempfile::tempdir().unwrap();
        let class = dir.path().join("class");
        std::fs::create_dir(&class).unwrap();
        for (name, upload) in students {
            put(*upload, &class.join(name));
        }
        let out = dir.path().to_str().unwrap().to_string();
        let class = class.to_str().unwrap().to_string();
        let args: Vec<String> = args.iter().map(|a| a.replace("{out}", &out)).collect();
        let mut all = vec!["grade", "--class", class.as_str()];
        all.extend(args.iter().map(String::as_str));
        let run = chessgrade(&all);
        ClassRun {
            code: run.status.code(),
            stdout: String::from_utf8_lossy(&run.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&run.stderr).into_owned(),
            dir,
        }
    }

    /// The class table: from its header to the class's failure line.
    fn table(&self) -> Vec<&str> {
        let mut lines: Vec<&str> = self
            .stdout
            .lines()
            .skip_while(|l| !l.starts_with("submission "))
            .collect();
        let end = lines
            .iter()
            .position(|l| l.starts_with("failures in the class"))
            .map_or(lines.len(), |i| i + 1);
        lines.truncate(end);
        lines
    }

    fn read(&self, rel: &str) -> String {
        let path = self.dir.path().join(rel);
        std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}\n--- stdout:\n{}--- stderr:\n{}",
                path.display(),
                self.stdout,
                self.stderr
            )
        })
    }

    fn json(&self, rel: &str) -> serde_json::Value {
        serde_json::from_str(&self.read(rel)).unwrap()
    }

    /// The class report's entry for one student.
    fn student(&self, name: &str) -> serde_json::Value {
        let class = self.json("class.json");
        class["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["subject"] == name)
            .unwrap_or_else(|| panic!("{name} in {class}"))
            .clone()
    }
}

/// The real JHU fixtures as a class, graded once per run with the
/// starter overlay: a correct project, `jhu-crash` (SIGSEGV after the
/// first accepted capture), one that does not compile, an empty folder.
fn jhu_class() -> &'static ClassRun {
    static RUN: OnceLock<ClassRun> = OnceLock::new();
    RUN.get_or_init(|| {
        let overlay = jhu_overlay(None);
        let mut args = JHU_ALL.to_vec();
        args.extend([
            "--overlay",
            overlay.path().to_str().unwrap(),
            "--jobs",
            "2",
            "--format",
            "json",
            "--output",
            "{out}/class.json",
            "--output-dir",
            "{out}/reports",
        ]);
        ClassRun::grade(
            &[
                ("ada", Upload::Fixture("console/jhu-correct")),
                ("bob", Upload::Fixture("console/jhu-crash")),
                ("cy", Upload::Fixture("console/jhu-compile-error")),
                ("dee", Upload::Nothing),
            ],
            &args,
        )
    })
}

/// The (scenario, class) of each scenario of `report` that did not pass.
fn not_passing(report: &serde_json::Value) -> Vec<(String, String)> {
    verdicts(report)
        .into_iter()
        .filter(|(_, status, _)| status != "pass")
        .map(|(name, _, class)| (name, class.unwrap_or_default()))
        .collect()
}

#[test]
fn a_class_of_jhu_programs_scores_each_upload_by_its_bug() {
    let run = jhu_class();
    // A crash and a compile error are the students' results, not the staff's.
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .starts_with("grading 4 JHU console submissions in /"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.table(),
        [
            "submission     points  passed  failed  failures by class",
            "ada             12/12      12       0",
            "bob              8/12       8       4  crash 4",
            "cy               0/12       0      12  compile_error 12",
            "dee              0/12       0      12  not_recognised 12",
            "",
            "failures in the class: compile_error 12, not_recognised 12, crash 4",
        ],
        "{}{}",
        run.stdout,
        run.stderr
    );
    let by_name = |name: &str| run.student(name);
    // jhu-crash's BUG: SIGSEGV right after the first accepted capture, so
    // exactly the scenarios with a capture fail, as crashes.
    let crash = |s: &str| (s.to_string(), "crash".to_string());
    assert_eq!(
        not_passing(&by_name("bob")),
        [
            crash("jhu/check/check_picture_and_its_three_answers.txt"),
            crash("jhu/promotion/pawns_become_queens.txt"),
            crash("jhu/save/save_after_a_few_moves.txt"),
            crash("jhu/score/shannon_values_after_captures.txt"),
        ]
    );
    let bob = by_name("bob");
    let first = bob["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["status"] != "pass")
        .unwrap();
    assert!(
        first["message"].as_str().unwrap().contains("SIGSEGV"),
        "{first}"
    );
    assert_eq!(verdicts(&bob).len(), 12);
    // jhu-compile-error's BUG: Game.cpp calls an undeclared remove_piece;
    // the member's report carries the compiler's message once, as its
    // compile_error (not a note), and each scenario points there.
    let cy = by_name("cy");
    assert!(
        cy["compile_error"].to_string().contains("remove_piece"),
        "{cy}"
    );
    assert!(!cy["notes"].to_string().contains("remove_piece"), "{cy}");
    let first = &cy["scenarios"][0];
    assert!(
        first["details"]
            .as_str()
            .unwrap()
            .contains("shown once, in the notes"),
        "{first}"
    );
    // The empty folder is not recognised (checked before the overlay,
    // whose Makefile would otherwise make it a compile error).
    assert_eq!(
        by_name("dee")["notes"][0],
        "not a recognised submission: nothing to build: no Makefile, CMakeLists.txt or C++ \
         source file (.cpp, .cc) for the JHU console program (it holds no files)"
    );
    assert!(not_passing(&by_name("ada")).is_empty());
}

#[test]
fn a_class_of_jhu_programs_writes_one_report_per_upload() {
    let run = jhu_class();
    let class = run.json("class.json");
    let names: Vec<&str> = class["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["subject"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ada", "bob", "cy", "dee"]);
    for name in names {
        let r = run.json(&format!("reports/{name}.json"));
        assert_eq!(r["subject"], name);
        assert_eq!(r["scenarios"].as_array().unwrap().len(), 12);
        // The same verdicts in the class report and the student's own.
        assert_eq!(verdicts(&r), verdicts(&run.student(name)), "{name}");
    }
    assert!(run.stdout.contains("wrote 4 reports to "), "{}", run.stdout);
}

/// A JUnit test case: its name and its failure's type (`None`: a pass).
type Case = (String, Option<String>);

/// Each `<testcase>` of a JUnit file, `(name, failure type)` (`None`: a
/// pass), and the suite's `tests`/`failures` counts; the reader checks the
/// file is well-formed on the way. (Attribute values are taken raw: the
/// names compared hold nothing XML escapes.)
fn junit_cases(xml: &str) -> (Vec<Case>, (String, String)) {
    use quick_xml::events::Event;
    let attr = |e: &quick_xml::events::BytesStart, name: &str| {
        e.try_get_attribute(name)
            .unwrap()
            .map(|a| a.value.to_string())
    };
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut cases: Vec<Case> = Vec::new();
    let mut counts = None;
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) => match e.name().into_inner() {
                "testsuite" => {
                    counts = Some((attr(&e, "tests").unwrap(), attr(&e, "failures").unwrap()))
                }
                "testcase" => cases.push((attr(&e, "name").unwrap(), None)),
                "failure" | "error" => cases.last_mut().unwrap().1 = attr(&e, "type"),
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    (cases, counts.expect("a testsuite"))
}

#[test]
fn a_class_of_cuhk_programs_is_graded_with_junit_reports_per_upload() {
    let mut args = CUHK_ALL.to_vec();
    args.extend(["--format", "junit", "--output-dir", "{out}/reports", "-q"]);
    let run = ClassRun::grade(
        &[
            ("ann", Upload::Fixture("console/cuhk-correct")),
            ("ben", Upload::Fixture("console/cuhk-mutant-wrong-winner")),
            ("cal", Upload::Nothing),
        ],
        &args,
    );
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("grading 3 CUHK console submissions"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.table(),
        [
            "submission     points  passed  failed  failures by class",
            "ann               4/4       4       0",
            "ben               2/4       2       2  wrong_output 2",
            "cal               0/4       0       4  not_recognised 4",
            "",
            "failures in the class: not_recognised 4, wrong_output 2",
        ],
        "{}{}",
        run.stdout,
        run.stderr
    );
    // cuhk-mutant-wrong-winner's BUG: the winner lines are swapped, a draw
    // is right; so the two games that end with a winner fail.
    let (cases, counts) = junit_cases(&run.read("reports/ben.xml"));
    let failed: Vec<(&str, &str)> = cases
        .iter()
        .filter_map(|(n, t)| Some((n.as_str(), t.as_deref()?)))
        .collect();
    assert_eq!(
        failed,
        [
            (
                "cuhk/console/invalid_inputs_then_a_pawn_capture_and_z0_z0.txt",
                "wrong_output"
            ),
            (
                "cuhk/game-over/sample_run_black_bishop_takes_the_ignored_king.txt",
                "wrong_output"
            ),
        ]
    );
    assert_eq!(counts, ("4".to_string(), "2".to_string()));
    let (cases, counts) = junit_cases(&run.read("reports/ann.xml"));
    assert_eq!(cases.len(), 4);
    assert!(cases.iter().all(|(_, t)| t.is_none()), "{cases:?}");
    assert_eq!(counts, ("4".to_string(), "0".to_string()));
    let (cases, _) = junit_cases(&run.read("reports/cal.xml"));
    assert!(
        cases
            .iter()
            .all(|(_, t)| t.as_deref() == Some("not_recognised")),
        "{cases:?}"
    );
}

/// A class of both kinds of upload: the JHU stand-in program (correct, a
/// loop at end of input, one that never answers), a Lab 3 upload and an
/// empty folder.
const MIXED: &[(&str, Upload)] = &[
    ("eve", Upload::Script("")),
    ("fay", Upload::Script("loop-at-eof")),
    ("gus", Upload::Hangs),
    ("hal", Upload::Fixture("submissions/lab3-correct")),
    ("ivy", Upload::Nothing),
];

#[test]
fn a_mixed_class_on_console_scenarios_grades_the_console_uploads() {
    let run = ClassRun::grade(
        MIXED,
        &[
            "scenarios/jhu/save",
            "scenarios/jhu/score",
            "--timeout",
            "1",
            "--format",
            "json",
            "--output",
            "{out}/class.json",
            "-q",
        ],
    );
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    // A loop at end of input, a timeout and a Lab 3 upload are each that
    // student's result; the class goes on.
    assert_eq!(
        run.table(),
        [
            "submission     points  passed  failed  failures by class",
            "eve               2/2       2       0",
            "fay               0/2       0       2  did_not_exit 2",
            "gus               0/2       0       2  timeout 2",
            "hal               0/2       0       2  not_recognised 2",
            "ivy               0/2       0       2  not_recognised 2",
            "",
            "failures in the class: not_recognised 4, did_not_exit 2, timeout 2",
        ],
        "{}{}",
        run.stdout,
        run.stderr
    );
    assert_eq!(
        run.student("hal")["notes"][0],
        "not a recognised submission: a Lab 3 upload (ChessBoard.hh), but these scenarios grade the JHU console program"
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn a_mixed_class_on_lab3_scenarios_grades_the_lab3_uploads() {
    let run = ClassRun::grade(
        MIXED,
        &[
            "scenarios/lab3/pawns/double_step_from_start_rows.txt",
            "--format",
            "json",
            "--output",
            "{out}/class.json",
            "-q",
        ],
    );
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("grading 5 Lab 3 submissions"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.table(),
        [
            "submission     points  passed  failed  failures by class",
            "eve               0/1       0       1  not_recognised 1",
            "fay               0/1       0       1  not_recognised 1",
            "gus               0/1       0       1  not_recognised 1",
            "hal               1/1       1       0",
            "ivy               0/1       0       1  not_recognised 1",
            "",
            "failures in the class: not_recognised 4",
        ],
        "{}{}",
        run.stdout,
        run.stderr
    );
    let eve = run.student("eve");
    let note = eve["notes"][0].as_str().unwrap();
    assert!(
        note.starts_with("not a recognised submission: no ChessBoard.hh"),
        "{note}"
    );
}

/// Grades a class of one correct console upload with `args`: (exit code, stdout, stderr).
fn staff_error(args: &[&str]) -> (Option<i32>, String, String) {
    let run = ClassRun::grade(&[("eve", Upload::Script(""))], args);
    (run.code, run.stdout, run.stderr)
}

#[test]
fn a_console_class_the_staff_cannot_grade_stops_before_any_build() {
    // A Lab 3 scenario among the JHU ones: the dialect cannot express it.
    let (code, out, err) = staff_error(&[
        "scenarios/jhu/save",
        "scenarios/lab3/pawns/double_step_from_start_rows.txt",
    ]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [
            "error: the selected scenarios mix courses: 1 are a console course's (e.g. scenarios/jhu/save/save_after_a_few_moves.txt), 1 are not (e.g. scenarios/lab3/pawns/double_step_from_start_rows.txt: not gradable by console); grade one course's folder at a time (e.g. scenarios/lab3, scenarios/jhu or scenarios/cuhk)",
        ]
    );
    // Nothing was built or graded: not even the class's first line.
    assert!(out.is_empty(), "{out}");
    // Both courses in one class.
    let (code, out, err) = staff_error(&["scenarios/jhu/save", "scenarios/cuhk/console"]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert_eq!(
        err,
        "error: the scenarios mix console dialects (jhu and cuhk): grade one course's program at a time\n"
    );
    // An overlay that is not there is said once, not once per student.
    let (code, out, err) =
        staff_error(&["scenarios/jhu/save", "--overlay", "/nonexistent/overlay"]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert_eq!(
        err,
        "error: --overlay /nonexistent/overlay is not a folder\n"
    );
    // A console flag makes it a console class whatever the scenarios.
    let (code, out, err) = staff_error(&[
        "scenarios/lab3/pawns/double_step_from_start_rows.txt",
        "--build",
        "make",
    ]);
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(err.contains("not gradable by console"), "{err}");
}

#[test]
fn a_console_class_builds_each_upload_with_the_build_command_and_program() {
    // `--build` replaces each upload's build; `--program` names what it makes.
    let args = [
        "scenarios/jhu/save",
        "--build",
        "make && mv chess game",
        "-q",
    ];
    let mut with_program = args.to_vec();
    with_program.extend(["--program", "game"]);
    let run = ClassRun::grade(&[("eve", Upload::Script(""))], &with_program);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert_eq!(run.table()[1], "eve               1/1       1       0");
    // Without it the course's `chess` is looked for, and its absence is
    // the upload's compile error.
    let mut json = args.to_vec();
    json.extend(["--format", "json", "--output", "{out}/class.json"]);
    let run = ClassRun::grade(&[("eve", Upload::Script(""))], &json);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    let eve = run.student("eve");
    assert_eq!(eve["scenarios"][0]["class"], "compile_error");
    assert!(
        eve["compile_error"]
            .to_string()
            .contains("the build finished but made no `chess`"),
        "{eve}"
    );
}

/// A reader that stops early (`grade --class ... | head`) closes stdout:
/// the class is still graded to the end, every report is written and the
/// exit code is the verdict's (1: nobody passes), not a panic's 101.
#[test]
fn a_closed_stdout_does_not_stop_a_class() {
    let class = tempfile::tempdir().unwrap();
    for s in ["a", "b", "c"] {
        std::fs::create_dir(class.path().join(s)).unwrap();
    }
    let reports = tempfile::tempdir().unwrap();
    let mut child = helpers::command(root())
        .args(["grade", "--class"])
        .arg(class.path())
        .args(["--filter", "lab3/pawns", "--color", "never", "--output-dir"])
        .arg(reports.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader is gone before the first line is written.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for s in ["a", "b", "c"] {
        assert!(reports.path().join(format!("{s}.txt")).is_file(), "{s}");
    }
}

/// PrairieLearn's and Classroom's formats are a student's: with `--class`
/// each member gets its own file in `--output-dir` (`<name>.json`,
/// `<name>.out`), and a class-wide `--output` in them is a staff error.
/// Empty uploads: nothing is compiled, each scenario is `not_recognised`.
#[test]
fn platform_formats_write_one_file_per_member() {
    let members = [("amy", Upload::Nothing), ("bo", Upload::Nothing)];
    let pl = ClassRun::grade(
        &members,
        &[
            "scenarios/lab3/pawns",
            "-q",
            "--format",
            "prairielearn",
            "--output-dir",
            "{out}/pl",
        ],
    );
    assert_eq!(pl.code, Some(1), "{}{}", pl.stdout, pl.stderr);
    for name in ["amy", "bo"] {
        let v: serde_json::Value = serde_json::from_str(&pl.read(&format!("pl/{name}.json")))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(v["score"], 0.0, "{v}");
        assert_eq!(v["max_points"], 9, "{v}");
        assert_eq!(v["tests"].as_array().unwrap().len(), 9, "{v}");
    }
    let room = ClassRun::grade(
        &members,
        &[
            "scenarios/lab3/pawns",
            "-q",
            "--format",
            "classroom",
            "--output-dir",
            "{out}/room",
        ],
    );
    assert_eq!(room.code, Some(1), "{}{}", room.stdout, room.stderr);
    let line = room.read("room/amy.out");
    assert!(
        line.starts_with("result=") && line.lines().count() == 1,
        "{line}"
    );
    let refused = ClassRun::grade(
        &members,
        &[
            "scenarios/lab3/pawns",
            "--format",
            "classroom",
            "--output",
            "{out}/all.out",
        ],
    );
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("--output-dir"),
        "{}",
        refused.stderr
    );
}
