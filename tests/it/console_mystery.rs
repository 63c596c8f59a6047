//! JHU's Mystery piece graded from the command line: `grade --submission`
//! writes the graders' `Mystery.h` for each scenario's `@mystery` shape
//! over the upload (after the staff overlay, whose `Mystery.h` is the
//! released stub that cannot move) and builds the upload once per shape,
//! shared by the scenarios with that shape. Run on the real fixture
//! `tests/fixtures/console/jhu-correct` with the course's starter files as
//! the overlay, exactly as docs/console.md tells a TA to.

use crate::helpers::{jhu_overlay, root};
use std::process::Command;

/// `grade --submission jhu-correct --overlay <starter>` with `args`:
/// (exit code, JSON report, human output).
fn grade_jhu_correct(args: &[&str]) -> (i32, serde_json::Value, String) {
    let overlay = jhu_overlay(None);
    let upload = root().join("tests/fixtures/console/jhu-correct");
    let report = tempfile::NamedTempFile::new().unwrap();
    let out = Command::new(crate::helpers::bin())
        .args([
            "grade",
            "--color",
            "never",
            "--submission",
            upload.to_str().unwrap(),
            "--overlay",
            overlay.path().to_str().unwrap(),
        ])
        .args(args)
        .args(["--format", "json", "--output"])
        .arg(report.path())
        .current_dir(root())
        .output()
        .expect("the binary runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let json = std::fs::read_to_string(report.path())
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    (out.status.code().unwrap_or(-1), json, text)
}

/// (scenario name, status, class) per scenario of a report.
fn verdicts(report: &serde_json::Value) -> Vec<(String, String, String)> {
    report["scenarios"]
        .as_array()
        .unwrap_or_else(|| panic!("no scenarios in {report}"))
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or_default().to_string(),
                s["status"].as_str().unwrap_or_default().to_string(),
                s["class"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect()
}

#[test]
fn every_bundled_jhu_scenario_mystery_included_passes_a_correct_upload() {
    let (code, report, text) = grade_jhu_correct(&["scenarios/jhu"]);
    assert_eq!(code, 0, "{text}");
    let v = verdicts(&report);
    assert_eq!(v.len(), 14, "{v:?}");
    assert!(v.iter().all(|(_, s, _)| s == "pass"), "{v:?}");
    // One build per shape, each named with the scenario's own notation.
    assert!(
        text.contains(
            "note: built with the graders' Mystery.h for `@mystery slider 1,1 value 5` for 1 scenario(s)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "note: built with the graders' Mystery.h for `@mystery leaper 1,3 value 4` for 1 scenario(s)\n"
        ),
        "{text}"
    );
}

#[test]
fn scenarios_with_one_shape_share_a_build_and_a_build_that_fails_fails_only_them() {
    let dir = tempfile::tempdir().unwrap();
    let camel = root().join("scenarios/jhu/mystery/camel_leaper_moves_captures_and_checks.txt");
    let text = std::fs::read_to_string(&camel).unwrap();
    std::fs::copy(&camel, dir.path().join("camel.txt")).unwrap();
    // The same camel, its offset written the other way round.
    let again = text.replace(
        "@mystery leaper 1,3 value 4",
        "@mystery leaper -3,1 value 4",
    );
    assert_ne!(again, text);
    std::fs::write(dir.path().join("camel_again.txt"), again).unwrap();
    // A build that refuses the graders' Mystery.h (as an upload whose code
    // needs more of the piece than the course promises would).
    let build = "if grep -q \"graders' Mystery\" Mystery.h; then echo 'Game.cpp:7: error: no member named fly in Mystery' >&2; exit 1; fi; make";
    let (code, report, text) = grade_jhu_correct(&[
        "scenarios/jhu/score",
        dir.path().to_str().unwrap(),
        "--build",
        build,
    ]);
    assert_eq!(code, 1, "{text}");
    let mut v = verdicts(&report);
    v.sort();
    assert_eq!(
        v,
        [
            ("camel.txt".into(), "fail".into(), "compile_error".into()),
            (
                "camel_again.txt".into(),
                "fail".into(),
                "compile_error".into()
            ),
            (
                "jhu/score/shannon_values_after_captures.txt".into(),
                "pass".into(),
                "-".into()
            ),
        ],
        "{text}"
    );
    // One build for both camels (one note), and what it was built with.
    assert_eq!(
        text.matches("note: did not compile with").count(),
        1,
        "{text}"
    );
    assert!(
        text.contains(
            "note: did not compile with the graders' Mystery.h for `@mystery leaper 1,3 value 4` (its 2 scenario(s) fail): Game.cpp:7: error: no member named fly in Mystery\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "      the submission did not compile:\n        built with the graders' Mystery.h for `@mystery leaper 1,3 value 4`:\n        Game.cpp:7: error: no member named fly in Mystery\n"
        ),
        "{text}"
    );
}
