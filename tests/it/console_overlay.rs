//! `--overlay` diagnostics: when a console build fails after the overlay
//! replaced files that differed from the upload's, the report (human, JSON,
//! Gradescope) names them and says the overlay is the course's
//! term-specific starter. On the fixture written against another term's
//! starter (`tests/fixtures/console/jhu-other-term-piece-h`: its own
//! `Piece.h` declares `point_value()`, which its pieces mark `override`).
//! And when such a build succeeds, a note names the upload's files that
//! were not the ones graded.

use crate::helpers::{chessgrade, console_fixture, copy_dir, jhu_overlay, stdout};
use serde_json::Value;

const NOTE: &str = "the course's term-specific starter) replaced 1 file that differs from the upload's: Piece.h. If the upload was written against another term's starter, grade it without --overlay or with that term's starter.";

/// Grades `fixture` with `overlay` on jhu/console: (exit code, human
/// output, JSON report).
fn grade(fixture: &str, overlay: &std::path::Path, format: &str) -> (i32, String, Value) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let out = chessgrade(&[
        "grade",
        "--color",
        "never",
        "--submission",
        console_fixture(fixture).to_str().unwrap(),
        "--overlay",
        overlay.to_str().unwrap(),
        "scenarios/jhu/console",
        "--format",
        format,
        "--output",
        report.path().to_str().unwrap(),
    ]);
    let json = serde_json::from_str(&std::fs::read_to_string(report.path()).unwrap())
        .unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), stdout(&out), json)
}

#[test]
fn an_overlay_that_replaced_a_differing_file_is_named_when_the_build_fails() {
    let overlay = jhu_overlay(None);
    let (code, human, json) = grade("jhu-other-term-piece-h", overlay.path(), "json");
    assert_eq!(code, 1, "{human}");
    let named = format!(
        "the overlay (--overlay {}, {NOTE}",
        overlay.path().display()
    );
    assert!(human.contains(&named), "{human}");
    assert!(
        human.contains("marked 'override', but does not override"),
        "{human}"
    );
    assert_eq!(json["scenarios"][0]["class"], "compile_error", "{json}");
    let message = json["compile_error"].as_str().unwrap_or_default();
    assert!(message.contains(NOTE), "{json}");
    // What the student sees on Gradescope.
    let (_, _, results) = grade("jhu-other-term-piece-h", overlay.path(), "gradescope");
    assert_eq!(results["score"], 0.0);
    let output = results["output"].as_str().unwrap();
    assert!(output.contains(&named), "{output}");
}

#[test]
fn the_same_upload_builds_on_its_own_terms_starter_and_nothing_is_said_otherwise() {
    // That term's starter: the overlay with the upload's own Piece.h.
    let theirs = jhu_overlay(None);
    std::fs::copy(
        console_fixture("jhu-other-term-piece-h").join("Piece.h"),
        theirs.path().join("Piece.h"),
    )
    .unwrap();
    let (code, human, _) = grade("jhu-other-term-piece-h", theirs.path(), "json");
    assert_eq!(code, 0, "{human}");
    assert!(!human.contains("the overlay"), "{human}");
    // A build that fails for its own reason, where the overlay replaced
    // nothing the upload had: no word about the overlay.
    let overlay = jhu_overlay(None);
    let (code, human, _) = grade("jhu-compile-error", overlay.path(), "json");
    assert_eq!(code, 1, "{human}");
    assert!(human.contains("compile error"), "{human}");
    assert!(!human.contains("the overlay"), "{human}");
    // An upload that carries the starter's own files unchanged: nothing
    // differs, nothing is said.
    let upload = tempfile::tempdir().unwrap();
    copy_dir(&console_fixture("jhu-compile-error"), upload.path());
    copy_dir(overlay.path(), upload.path());
    let report = tempfile::NamedTempFile::new().unwrap();
    let out = chessgrade(&[
        "grade",
        "--submission",
        upload.path().to_str().unwrap(),
        "--overlay",
        overlay.path().to_str().unwrap(),
        "scenarios/jhu/console",
        "--format",
        "json",
        "--output",
        report.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let json = std::fs::read_to_string(report.path()).unwrap();
    assert!(json.contains("compile_error"), "{json}");
    assert!(!json.contains("the overlay"), "{json}");
}

/// An upload whose copy of a starter file differs but still builds on
/// the overlay's: it is graded as built, and the report says which of its
/// files were not the ones graded (the same from the build cache).
#[test]
fn an_overlay_that_replaced_a_differing_file_is_named_when_the_build_succeeds() {
    let overlay = jhu_overlay(None);
    let upload = tempfile::tempdir().unwrap();
    copy_dir(&console_fixture("jhu-correct"), upload.path());
    // The student's copy of the starter's Terminal.h, with a line added.
    let terminal = upload.path().join("Terminal.h");
    let mut text = std::fs::read_to_string(overlay.path().join("Terminal.h")).unwrap();
    text.push_str("\n// the student's own comment\n");
    std::fs::write(&terminal, text).unwrap();
    let note = format!(
        "overlay: --overlay {} replaced 1 file that differs from the upload's: Terminal.h; \
         the program was built and graded with the overlay's",
        overlay.path().display()
    );
    for run in ["first", "from the build cache"] {
        let report = tempfile::NamedTempFile::new().unwrap();
        let out = chessgrade(&[
            "grade",
            "--color",
            "never",
            "--submission",
            upload.path().to_str().unwrap(),
            "--overlay",
            overlay.path().to_str().unwrap(),
            "scenarios/jhu/console",
            "--format",
            "json",
            "--output",
            report.path().to_str().unwrap(),
        ]);
        let human = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{run}: {human}");
        assert!(human.contains(&format!("note: {note}")), "{run}: {human}");
        let json: Value =
            serde_json::from_str(&std::fs::read_to_string(report.path()).unwrap()).unwrap();
        let notes: Vec<&str> = json["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        assert!(notes.contains(&note.as_str()), "{run}: {notes:?}");
    }
}
