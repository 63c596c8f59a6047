//! Grading console programs end to end: small stand-in programs under
//! `tests/fixtures/console-scripts/` (a JHU `./chess` and a CUHK game in
//! Python, installed by a Makefile as the course's binary; one planted bug
//! per mutant; a C++ file that does not compile) graded through the binary
//! with `grade --submission`, and the verdicts checked per scenario.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scripts() -> PathBuf {
    root().join("tests/fixtures/console-scripts")
}

fn chessgrade(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chessgrade"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the binary runs")
}

/// An upload folder: `script` installed as `chess` by the Makefile, with `mutant`.
fn upload(script: &str, mutant: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(scripts().join(script), dir.path().join("chess.py")).unwrap();
    let makefile = std::fs::read_to_string(scripts().join("Makefile.in")).unwrap();
    let makefile = makefile.replace("MUTANT ?=", &format!("MUTANT ?= {mutant}"));
    std::fs::write(dir.path().join("Makefile"), makefile).unwrap();
    dir
}

/// The JSON report of grading `dir` on `scenarios`: (exit code, report).
fn grade(dir: &Path, scenarios: &[&str], extra: &[&str]) -> (i32, serde_json::Value, String) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut args = vec!["grade", "--submission", dir.to_str().unwrap()];
    args.extend(scenarios);
    args.extend([
        "--format",
        "json",
        "--output",
        report.path().to_str().unwrap(),
    ]);
    args.extend(extra);
    let out = chessgrade(&args);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let json = std::fs::read_to_string(report.path())
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    (out.status.code().unwrap_or(-1), json, text)
}

/// (scenario name, status, class) per scenario of a report.
fn verdicts(report: &serde_json::Value) -> Vec<(String, String, Option<String>)> {
    report["scenarios"]
        .as_array()
        .expect("a scenarios array")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["status"].as_str().unwrap().to_string(),
                s["class"].as_str().map(str::to_string),
            )
        })
        .collect()
}

/// The bundled JHU scenarios a program without the Mystery piece can play.
const JHU: &[&str] = &[
    "scenarios/jhu/check",
    "scenarios/jhu/mates",
    "scenarios/jhu/promotion",
    "scenarios/jhu/refusals",
    "scenarios/jhu/save",
    "scenarios/jhu/score",
    "scenarios/jhu/special-moves",
    "scenarios/jhu/console",
];

#[test]
fn jhu_correct_program_passes_every_scenario() {
    let dir = upload("jhu_chess.py", "");
    let (code, report, text) = grade(dir.path(), JHU, &[]);
    assert_eq!(code, 0, "{text}");
    let v = verdicts(&report);
    assert_eq!(v.len(), 12, "{v:?}");
    assert!(v.iter().all(|(_, s, _)| s == "pass"), "{v:?}");
}

/// Grades one mutant; returns the failing scenarios' (name, class).
fn failures(mutant: &str, scenarios: &[&str]) -> (Vec<(String, String)>, String) {
    let dir = upload("jhu_chess.py", mutant);
    let (code, report, text) = grade(dir.path(), scenarios, &[]);
    assert_eq!(code, 1, "{mutant}: {text}");
    let failed = verdicts(&report)
        .into_iter()
        .filter(|(_, s, _)| s != "pass")
        .map(|(n, _, c)| (n, c.unwrap_or_default()))
        .collect();
    (failed, text)
}

#[test]
fn jhu_wrong_refusal_message_fails_where_a_path_is_blocked() {
    let (failed, text) = failures("wrong-message", &["scenarios/jhu/refusals"]);
    assert_eq!(
        failed,
        vec![(
            "jhu/refusals/nine_messages_in_the_seeds_order.txt".to_string(),
            "wrong_output".to_string()
        )]
    );
    // The report names the command, and only the lines that differ.
    assert!(text.contains("input sent: M A1A3"), "{text}");
    assert!(
        text.contains(
            "expected:\n          Could not make move: path is not clear\n        actual:\n          Could not make move: path is blocked\n        the program's output"
        ),
        "{text}"
    );
    // The board before the command, and the program's raw output for it.
    assert!(text.contains("board before the step:"), "{text}");
    assert!(
        text.contains("the program's output for this command:"),
        "{text}"
    );
}

#[test]
fn jhu_wrong_check_line_fails_only_scenarios_with_a_check() {
    let (failed, _) = failures(
        "wrong-check-line",
        &["scenarios/jhu/check", "scenarios/jhu/save"],
    );
    assert_eq!(
        failed,
        vec![(
            "jhu/check/check_picture_and_its_three_answers.txt".to_string(),
            "wrong_output".to_string()
        )]
    );
}

#[test]
fn jhu_missing_save_is_a_wrong_save_file() {
    let (failed, text) = failures("missing-save", &["scenarios/jhu/save"]);
    assert_eq!(failed[0].1, "wrong_save_file", "{text}");
    assert!(text.contains("(no file written)"), "{text}");
}

#[test]
fn jhu_crash_is_classified_with_its_signal() {
    let (failed, text) = failures("crash-on-move", &["scenarios/jhu/score"]);
    assert_eq!(failed[0].1, "crash", "{text}");
    assert!(text.contains("SIGSEGV"), "{text}");
}

#[test]
fn jhu_loop_at_end_of_input_is_stopped_and_classified() {
    // Ignores `q` and prompts on at end of file.
    let (failed, text) = failures("loop-at-eof", &["scenarios/jhu/save"]);
    assert_eq!(failed[0].1, "did_not_exit", "{text}");
    assert!(
        text.contains("did not exit after its input ended"),
        "{text}"
    );
}

#[test]
fn compile_error_is_reported_once_with_the_compilers_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        scripts().join("compile-error.cpp"),
        dir.path().join("main.cpp"),
    )
    .unwrap();
    let (code, report, text) = grade(
        dir.path(),
        &["scenarios/jhu/save", "scenarios/jhu/score"],
        &[],
    );
    assert_eq!(code, 1, "{text}");
    assert_eq!(text.matches("error: 'not_a_type'").count(), 1, "{text}");
    let v = verdicts(&report);
    assert_eq!(v.len(), 2);
    assert!(
        v.iter()
            .all(|(_, _, c)| c.as_deref() == Some("compile_error"))
    );
}

#[test]
fn scenario_the_dialect_cannot_express_is_a_staff_error_before_running() {
    let dir = upload("jhu_chess.py", "");
    // `perft` has no JHU command; a lab3 scenario has no console program.
    let (code, report, text) = grade(dir.path(), &["scenarios/lab3/pawns"], &[]);
    assert_eq!(code, 2, "{text}");
    assert_eq!(report, serde_json::Value::Null, "no report is written");
    assert!(text.contains("not gradable by console"), "{text}");
}

#[test]
fn engine_options_after_the_command_are_chessgrades() {
    // `--format json --output f` after `--engine CMD` are chessgrade's own.
    let report = tempfile::NamedTempFile::new().unwrap();
    let out = chessgrade(&[
        "grade",
        "--engine",
        "/bin/cat",
        "scenarios/lab3/pawns",
        "--format",
        "json",
        "--output",
        report.path().to_str().unwrap(),
    ]);
    assert!(out.status.code().is_some());
    let text = std::fs::read_to_string(report.path()).unwrap();
    assert!(
        text.contains("\"scenarios\""),
        "the report was written: {text}"
    );
    // A missing engine is a staff error before anything runs.
    let out = chessgrade(&[
        "grade",
        "--engine",
        "./no-such-engine",
        "scenarios/lab3/pawns",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"));
    // The command after `--`.
    let out = chessgrade(&[
        "grade",
        "scenarios/lab3/pawns",
        "--engine",
        "--",
        "/bin/false",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(1));
}

/// The bundled CUHK scenarios that start from the start position (the only
/// one the CUHK program can play).
const CUHK: &[&str] = &[
    "scenarios/cuhk/console",
    "scenarios/cuhk/game-over",
    "scenarios/cuhk/notation",
    "scenarios/cuhk/stop/z0_z0_on_a_fresh_board_is_a_draw.txt",
];

fn cuhk_failures(mutant: &str) -> (Vec<(String, String)>, String) {
    let dir = upload("cuhk_chess.py", mutant);
    let (code, report, text) = grade(dir.path(), CUHK, &[]);
    assert_eq!(code, 1, "{mutant}: {text}");
    let failed = verdicts(&report)
        .into_iter()
        .filter(|(_, s, _)| s != "pass")
        .map(|(n, _, c)| (n, c.unwrap_or_default()))
        .collect();
    (failed, text)
}

#[test]
fn cuhk_correct_program_passes_every_start_position_scenario() {
    let dir = upload("cuhk_chess.py", "");
    let (code, report, text) = grade(dir.path(), CUHK, &[]);
    assert_eq!(code, 0, "{text}");
    let v = verdicts(&report);
    assert_eq!(v.len(), 4, "{v:?}");
    assert!(v.iter().all(|(_, s, _)| s == "pass"), "{v:?}");
}

#[test]
fn cuhk_wrong_message_fails_every_scenario_with_a_refusal() {
    let (failed, text) = cuhk_failures("wrong-message");
    let names: Vec<&str> = failed.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "cuhk/console/invalid_inputs_then_a_pawn_capture_and_z0_z0.txt",
            "cuhk/game-over/sample_run_black_bishop_takes_the_ignored_king.txt",
            "cuhk/notation/lower_case_z0_is_an_off_board_move.txt",
        ],
        "{text}"
    );
    assert!(failed.iter().all(|(_, c)| c == "wrong_output"));
    assert!(text.contains("input sent: E2 E4"), "{text}");
}

#[test]
fn cuhk_game_that_goes_on_after_a_king_capture_fails_there() {
    let (failed, text) = cuhk_failures("king-capture-goes-on");
    assert_eq!(
        failed,
        vec![(
            "cuhk/game-over/sample_run_black_bishop_takes_the_ignored_king.txt".to_string(),
            "wrong_output".to_string()
        )],
        "{text}"
    );
    assert!(text.contains("input sent: B5 E8"), "{text}");
    assert!(text.contains("Black wins!"), "{text}");
}

#[test]
fn cuhk_loop_at_end_of_input_is_stopped_and_classified() {
    // It ignores `Z0 Z0` and asks on at end of file; the sample run ends
    // with a king's capture instead, so that one passes.
    let (failed, text) = cuhk_failures("loop-at-eof");
    assert_eq!(failed.len(), 3, "{text}");
    assert!(
        failed.iter().all(|(n, _)| !n.contains("game-over")),
        "{failed:?}"
    );
    assert!(
        failed.iter().all(|(_, c)| c == "did_not_exit"),
        "{failed:?}"
    );
}

#[test]
fn cuhk_setup_other_than_the_start_is_not_gradable() {
    let dir = upload("cuhk_chess.py", "");
    let (code, _, text) = grade(dir.path(), &["scenarios/cuhk/stop"], &[]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("always starts from the start position"),
        "{text}"
    );
}
