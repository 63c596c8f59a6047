//! Class mode end to end: a class folder with a good submission, a
//! one-bug mutant, one that does not compile and one with no files at all;
//! every one is graded, none stops the class, and the table, the class
//! JSON and the per-submission reports agree.

use std::path::Path;
use std::process::{Command, Output};

fn chessgrade(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chessgrade"))
        .args(args)
        .args(["--color", "never"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

fn class_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/submissions");
    for s in [
        "lab3-correct",
        "lab3-mutant-no-double-step",
        "hostile-compile-error",
    ] {
        copy_dir(&fixtures.join(s), &dir.path().join(s));
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
            "nothing-uploaded                  0/9       0       9  compile_error 9",
            "",
            "failures in the class: compile_error 18, wrong_answer 3",
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
