//! Grading console programs end to end: small stand-in programs under
//! `tests/fixtures/console-scripts/` (a JHU `./chess` and a CUHK game in
//! Python, installed by a Makefile as the course's binary; one planted bug
//! per mutant; a C++ file that does not compile) graded through the binary
//! with `grade --submission`, and the verdicts checked per scenario; then
//! the real C++ fixture programs of `tests/fixtures/console/` (JHU with
//! the course's starter overlay, CUHK with g++), each built once per run,
//! graded on every bundled scenario their console can play, CUHK's
//! machine players (modes 2 and 3) judged by property, and the JUnit and
//! Gradescope reports of console runs checked well-formed.

use crate::helpers::{
    self, CUHK_ALL, JHU_ALL, chessgrade, console_fixture, console_program, console_scripts,
    jhu_overlay, root, verdicts,
};
use std::path::{Path, PathBuf};
use std::process::Command;

/// An upload folder: `script` installed as `chess` by the Makefile, with `mutant`.
fn upload(script: &str, mutant: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::helpers::script_upload(script, mutant, dir.path());
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

#[test]
fn jhu_correct_program_passes_every_scenario() {
    let dir = upload("jhu_chess.py", "");
    let (code, report, text) = grade(dir.path(), JHU_ALL, &[]);
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
        console_scripts().join("compile-error.cpp"),
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
    // JHU scenarios make this a console run; among them, a lab3 scenario
    // has no console program: the staff's mix, refused before running.
    let (code, report, text) = grade(
        dir.path(),
        &["scenarios/jhu/save", "scenarios/lab3/pawns"],
        &[],
    );
    assert_eq!(code, 2, "{text}");
    assert_eq!(report, serde_json::Value::Null, "no report is written");
    assert!(text.contains("not gradable by console"), "{text}");
    // Lab 3 scenarios alone grade a Lab 3 upload: a console program there
    // is the student's wrong upload, not the staff's problem.
    let (code, report, text) = grade(dir.path(), &["scenarios/lab3/pawns"], &[]);
    assert_eq!(code, 1, "{text}");
    let v = verdicts(&report);
    assert!(!v.is_empty());
    assert!(
        v.iter()
            .all(|(_, _, c)| c.as_deref() == Some("not_recognised")),
        "{v:?}"
    );
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

fn cuhk_failures(mutant: &str) -> (Vec<(String, String)>, String) {
    let dir = upload("cuhk_chess.py", mutant);
    let (code, report, text) = grade(dir.path(), CUHK_ALL, &[]);
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
    let (code, report, text) = grade(dir.path(), CUHK_ALL, &[]);
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

// ---------------------------------------------------------------------
// The real C++ fixture programs of tests/fixtures/console/ (see its
// README): each built once per run (`helpers::console_program`), then
// graded with --program; the uploads themselves go through `grade
// --submission` where the build is what is tested (the starter overlay, the
// graders' Mystery.h, a compile error).
// ---------------------------------------------------------------------

/// Runs `grade` with `args` and a JSON report: (exit code, report, output).
fn grade_with(args: &[&str]) -> (i32, serde_json::Value, String) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut all = vec!["grade", "--color", "never"];
    all.extend(args);
    all.extend([
        "--format",
        "json",
        "--output",
        report.path().to_str().unwrap(),
    ]);
    let out = chessgrade(&all);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let json = std::fs::read_to_string(report.path())
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    (out.status.code().unwrap_or(-1), json, text)
}

/// Grades a built fixture on `scenarios`: every scenario's (name, class),
/// `pass` for a pass, and the output.
fn grade_fixture(
    fixture: &str,
    scenarios: &[&str],
    extra: &[&str],
) -> (i32, Vec<(String, String)>, String) {
    let chess = console_program(fixture);
    let mut args = vec!["--program", chess.to_str().unwrap()];
    args.extend(scenarios);
    args.extend(extra);
    let (code, report, text) = grade_with(&args);
    assert_ne!(code, 2, "{fixture}: {text}");
    let v = verdicts(&report)
        .into_iter()
        .map(|(n, s, c)| (n, if s == "pass" { s } else { c.unwrap_or(s) }))
        .collect();
    (code, v, text)
}

/// The scenarios of `all` that are not `pass`.
fn not_passing(all: &[(String, String)]) -> Vec<(&str, &str)> {
    all.iter()
        .filter(|(_, c)| c != "pass")
        .map(|(n, c)| (n.as_str(), c.as_str()))
        .collect()
}

#[test]
fn real_jhu_correct_with_the_starter_overlay_passes_every_scenario() {
    let overlay = jhu_overlay(None);
    let dir = console_fixture("jhu-correct");
    let mut args = vec![
        "--submission",
        dir.to_str().unwrap(),
        "--overlay",
        overlay.path().to_str().unwrap(),
    ];
    args.extend(JHU_ALL);
    let (code, report, text) = grade_with(&args);
    assert_eq!(code, 0, "{text}");
    let v = verdicts(&report);
    assert_eq!(v.len(), 12, "{v:?}");
    assert!(v.iter().all(|(_, s, _)| s == "pass"), "{v:?}");
}

#[test]
fn real_jhu_correct_built_once_passes_every_scenario() {
    let (code, v, text) = grade_fixture("jhu-correct", JHU_ALL, &[]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(v.len(), 12);
    assert!(not_passing(&v).is_empty(), "{v:?}");
}

#[test]
fn real_jhu_wrong_message_fails_only_the_blocked_path_refusal() {
    let (code, v, text) = grade_fixture("jhu-mutant-wrong-message", JHU_ALL, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        not_passing(&v),
        vec![(
            "jhu/refusals/nine_messages_in_the_seeds_order.txt",
            "wrong_output"
        )],
        "{text}"
    );
    assert!(text.contains("input sent: M A1A3"), "{text}");
    assert!(
        text.contains(
            "expected:\n          Could not make move: path is not clear\n        actual:\n          Could not make move: path is blocked\n"
        ),
        "{text}"
    );
}

#[test]
fn real_jhu_wrong_check_fails_every_scenario_with_a_check() {
    let (_, v, text) = grade_fixture("jhu-mutant-wrong-check", JHU_ALL, &[]);
    assert_eq!(
        not_passing(&v),
        vec![
            (
                "jhu/check/check_picture_and_its_three_answers.txt",
                "wrong_output"
            ),
            ("jhu/mates/rook_ladder_mate_in_two.txt", "wrong_output"),
            ("jhu/promotion/pawns_become_queens.txt", "wrong_output"),
            (
                "jhu/refusals/nine_messages_in_the_seeds_order.txt",
                "wrong_output"
            ),
        ],
        "{text}"
    );
    // Only the missing line is shown.
    assert!(
        text.contains("expected:\n          You are in check!\n        the program's output"),
        "{text}"
    );
}

#[test]
fn real_jhu_no_save_fails_every_save_of_a_game_still_going() {
    let (_, v, text) = grade_fixture("jhu-mutant-no-save", JHU_ALL, &[]);
    assert_eq!(
        not_passing(&v),
        vec![
            (
                "jhu/check/check_picture_and_its_three_answers.txt",
                "wrong_save_file"
            ),
            ("jhu/promotion/pawns_become_queens.txt", "wrong_save_file"),
            ("jhu/save/save_after_a_few_moves.txt", "wrong_save_file"),
        ],
        "{text}"
    );
    assert!(text.contains("(no file written)"), "{text}");
}

#[test]
fn real_jhu_crash_fails_every_scenario_with_a_capture() {
    let (_, v, text) = grade_fixture("jhu-crash", JHU_ALL, &[]);
    assert_eq!(
        not_passing(&v),
        vec![
            ("jhu/check/check_picture_and_its_three_answers.txt", "crash"),
            ("jhu/promotion/pawns_become_queens.txt", "crash"),
            ("jhu/save/save_after_a_few_moves.txt", "crash"),
            ("jhu/score/shannon_values_after_captures.txt", "crash"),
        ],
        "{text}"
    );
    assert!(text.contains("SIGSEGV"), "{text}");
}

#[test]
fn real_jhu_loop_at_eof_fails_every_game_that_does_not_end_by_itself() {
    let (_, v, text) = grade_fixture("jhu-loop-at-eof", JHU_ALL, &[]);
    let failing: Vec<&str> = not_passing(&v).iter().map(|(n, _)| *n).collect();
    assert_eq!(
        failing,
        vec![
            "jhu/check/check_picture_and_its_three_answers.txt",
            "jhu/console/garbage_squares_as_the_program_reads_them.txt",
            "jhu/promotion/pawns_become_queens.txt",
            "jhu/refusals/nine_messages_in_the_seeds_order.txt",
            "jhu/save/save_after_a_few_moves.txt",
            "jhu/score/shannon_values_after_captures.txt",
            "jhu/special-moves/no_castling_and_no_en_passant.txt",
        ],
        "{text}"
    );
    assert!(
        not_passing(&v).iter().all(|(_, c)| *c == "did_not_exit"),
        "{v:?}"
    );
    // Mates and stalemates end it: those pass.
    assert!(v.iter().any(|(n, c)| n.contains("mates/") && c == "pass"));
}

#[test]
fn real_jhu_compile_error_is_reported_once() {
    let overlay = jhu_overlay(None);
    let dir = console_fixture("jhu-compile-error");
    let mut args = vec![
        "--submission",
        dir.to_str().unwrap(),
        "--overlay",
        overlay.path().to_str().unwrap(),
    ];
    args.extend(JHU_ALL);
    let (code, report, text) = grade_with(&args);
    assert_eq!(code, 1, "{text}");
    // The compiler's message once; each scenario only points to it.
    assert_eq!(
        text.matches("has no member named 'remove_piece'").count(),
        1,
        "{text}"
    );
    let v = verdicts(&report);
    assert_eq!(v.len(), 12);
    assert!(
        v.iter()
            .all(|(_, _, c)| c.as_deref() == Some("compile_error")),
        "{v:?}"
    );
}

#[test]
fn real_cuhk_correct_passes_every_console_scenario() {
    let (code, v, text) = grade_fixture("cuhk-correct", CUHK_ALL, &[]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(v.len(), 4);
    assert!(not_passing(&v).is_empty(), "{v:?}");
    // Through the upload too (g++ over every .cpp, the course's flags).
    let dir = console_fixture("cuhk-correct");
    let mut args = vec!["--submission", dir.to_str().unwrap()];
    args.extend(CUHK_ALL);
    let (code, _, text) = grade_with(&args);
    assert_eq!(code, 0, "{text}");
}

#[test]
fn real_cuhk_wrong_winner_fails_every_game_with_a_winner() {
    let (_, v, text) = grade_fixture("cuhk-mutant-wrong-winner", CUHK_ALL, &[]);
    assert_eq!(
        not_passing(&v),
        vec![
            (
                "cuhk/console/invalid_inputs_then_a_pawn_capture_and_z0_z0.txt",
                "wrong_output"
            ),
            (
                "cuhk/game-over/sample_run_black_bishop_takes_the_ignored_king.txt",
                "wrong_output"
            ),
        ],
        "{text}"
    );
    assert!(
        text.contains("expected:\n          Black wins!\n        actual:\n          White wins!"),
        "{text}"
    );
}

#[test]
fn real_cuhk_knight_that_cannot_leap_fails_where_a_knight_moves() {
    let (_, v, text) = grade_fixture("cuhk-mutant-no-knight-leap", CUHK_ALL, &[]);
    assert_eq!(
        not_passing(&v),
        vec![(
            "cuhk/notation/lower_case_z0_is_an_off_board_move.txt",
            "wrong_output"
        )],
        "{text}"
    );
    assert!(text.contains("actual:\n          invalid input!"), "{text}");
}

#[test]
fn real_cuhk_trailing_space_fails_exactly_and_passes_with_the_tolerance() {
    let (_, v, text) = grade_fixture("cuhk-mutant-trailing-space", CUHK_ALL, &[]);
    assert_eq!(not_passing(&v).len(), 4, "{text}");
    assert!(not_passing(&v).iter().all(|(_, c)| *c == "wrong_output"));
    // The dialect's option, in a staff copy of the texts file.
    let texts: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("src/console/texts.json")).unwrap(),
    )
    .unwrap();
    let mut texts = texts;
    texts["cuhk"]["ignore_trailing_space"] = serde_json::Value::Bool(true);
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), texts.to_string()).unwrap();
    let (code, v, text) = grade_fixture(
        "cuhk-mutant-trailing-space",
        CUHK_ALL,
        &["--console-texts", file.path().to_str().unwrap()],
    );
    assert_eq!(code, 0, "{text}");
    assert!(not_passing(&v).is_empty(), "{v:?}");
    // The tolerance does not hide a real difference.
    let (code, _, text) = grade_fixture(
        "cuhk-mutant-wrong-winner",
        CUHK_ALL,
        &["--console-texts", file.path().to_str().unwrap()],
    );
    assert_eq!(code, 1, "{text}");
}

#[test]
fn real_cuhk_compile_error_is_reported_once() {
    let dir = console_fixture("cuhk-compile-error");
    let mut args = vec!["--submission", dir.to_str().unwrap()];
    args.extend(CUHK_ALL);
    let (code, report, text) = grade_with(&args);
    assert_eq!(code, 1, "{text}");
    assert_eq!(
        text.matches("error: no matching function for call to 'Queen::isPathClear")
            .count(),
        1,
        "{text}"
    );
    let v = verdicts(&report);
    assert_eq!(v.len(), 4);
    assert!(
        v.iter()
            .all(|(_, _, c)| c.as_deref() == Some("compile_error"))
    );
}

// ---------------------------------------------------------------------
// CUHK machine players (modes 2 and 3), judged by property.
// ---------------------------------------------------------------------

const MODE3: &str =
    "tests/fixtures/console-scripts/cuhk-machine/mode3_machines_play_to_a_kings_capture.txt";
const MODE2: &str =
    "tests/fixtures/console-scripts/cuhk-machine/mode2_human_moves_and_machine_replies.txt";

#[test]
fn real_cuhk_correct_machines_pass_modes_2_and_3() {
    let (code, v, text) = grade_fixture("cuhk-correct", &[MODE3, MODE2], &[]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(not_passing(&v).is_empty(), "{v:?}");
}

/// The program's whole output for `input`, with the shim preloaded at
/// clock `time`.
fn run_with_shim(chess: &Path, input: &str, time: &str) -> Vec<u8> {
    let shim_dir = tempfile::tempdir().unwrap();
    let env = chessgrade::console::build_shim(shim_dir.path(), "gcc").unwrap();
    let mut cmd = Command::new(chess);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.env("CHESSGRADE_TIME", time);
    helpers::output_with_input(&mut cmd, input).stdout
}

#[test]
fn the_shim_makes_machine_games_repeat_and_its_clock_picks_the_game() {
    let chess = console_program("cuhk-correct");
    let a = run_with_shim(&chess, "3\n", "1000000000");
    let b = run_with_shim(&chess, "3\n", "1000000000");
    let c = run_with_shim(&chess, "3\n", "7");
    let text = String::from_utf8_lossy(&a);
    assert!(text.contains("White's turn: "), "{text}");
    assert!(
        text.ends_with("wins!\n") || text.ends_with("Draw game!\n"),
        "{text}"
    );
    assert_eq!(a, b, "the same clock, the same game");
    assert_ne!(a, c, "another clock, another game");
}

#[test]
fn real_cuhk_machine_making_an_illegal_move_fails_both_modes_there() {
    let (code, v, text) = grade_fixture("cuhk-machine-illegal", &[MODE3, MODE2], &[]);
    assert_eq!(code, 1, "{text}");
    assert_eq!(
        not_passing(&v),
        vec![
            ("mode3_machines_play_to_a_kings_capture.txt", "wrong_output"),
            ("mode2_human_moves_and_machine_replies.txt", "wrong_output"),
        ],
        "{text}"
    );
    // The move it printed, and why the reference refuses it.
    assert!(text.contains("the reference refuses"), "{text}");
    assert!(text.contains("board before the step:"), "{text}");
    // Mode 2's first machine turn is reported at the first `machine` step.
    assert!(
        text.contains("first mismatch at line 10: machine 1"),
        "{text}"
    );
}

#[test]
fn real_cuhk_mode_2_judges_the_human_moves_in_the_game_played() {
    // The knight that cannot leap: the human's G8 F6 is refused.
    let (_, v, text) = grade_fixture("cuhk-mutant-no-knight-leap", &[MODE2], &[]);
    assert_eq!(
        not_passing(&v),
        vec![("mode2_human_moves_and_machine_replies.txt", "wrong_output")],
        "{text}"
    );
    assert!(text.contains("input sent: G8 F6"), "{text}");
    // The wrong winner fails at the end of the game.
    let (_, v, text) = grade_fixture("cuhk-mutant-wrong-winner", &[MODE3], &[]);
    assert_eq!(not_passing(&v).len(), 1, "{text}");
    assert!(text.contains("wins!"), "{text}");
}

#[test]
fn machine_steps_on_the_wrong_side_or_with_undo_are_not_gradable() {
    let chess = console_program("cuhk-correct");
    let dir = tempfile::tempdir().unwrap();
    let white_machine = dir.path().join("white_machine.txt");
    std::fs::write(
        &white_machine,
        "@rules cuhk\n1\nfen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1\n~\nmachine 1\nmove E2 E4\n",
    )
    .unwrap();
    let (code, _, text) = grade_with(&[
        "--program",
        chess.to_str().unwrap(),
        white_machine.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("in mode 2 the CUHK program's machine plays Black"),
        "{text}"
    );
    let undo = dir.path().join("undo.txt");
    std::fs::write(
        &undo,
        "@rules cuhk\n1\nfen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1\n~\nmachine 1\nundo\n",
    )
    .unwrap();
    let (code, _, text) =
        grade_with(&["--program", chess.to_str().unwrap(), undo.to_str().unwrap()]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("line 6: the CUHK program (modes 2 and 3) has no input for `undo`"),
        "{text}"
    );
    // The bundled machine scenario has moves (mode 2) and machine steps on
    // both sides.
    let (code, _, text) = grade_with(&[
        "--program",
        chess.to_str().unwrap(),
        "scenarios/cuhk/machine/random_moves_from_the_start_alternate_sides.txt",
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("line 9: in mode 2 the CUHK program's machine plays Black"),
        "{text}"
    );
}

// ---------------------------------------------------------------------
// Reports of console runs: Gradescope JSON and JUnit XML, well-formed.
// ---------------------------------------------------------------------

/// Checks that `doc` is well-formed XML 1.0 (the subset a JUnit report
/// uses: a declaration, elements, attributes, text, CDATA, character and
/// the five entity references); returns the element names in document
/// order, or what is wrong and where.
fn xml_elements(doc: &str) -> Result<Vec<String>, String> {
    let allowed = |c: char| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
    if let Some((at, c)) = doc.char_indices().find(|&(_, c)| !allowed(c)) {
        return Err(format!("character {c:?} not allowed in XML at byte {at}"));
    }
    let references_ok = |text: &str, at: usize| -> Result<(), String> {
        if text.contains('<') {
            return Err(format!("raw `<` in text or attribute at byte {at}"));
        }
        for (i, _) in text.match_indices('&') {
            let rest = &text[i + 1..];
            let end = rest
                .find(';')
                .ok_or(format!("unterminated reference at byte {}", at + i))?;
            let name = &rest[..end];
            let ok = matches!(name, "amp" | "lt" | "gt" | "quot" | "apos")
                || name
                    .strip_prefix("#x")
                    .is_some_and(|h| u32::from_str_radix(h, 16).is_ok())
                || name
                    .strip_prefix('#')
                    .is_some_and(|d| d.parse::<u32>().is_ok());
            if !ok {
                return Err(format!("bad reference &{name}; at byte {}", at + i));
            }
        }
        Ok(())
    };
    let mut rest = doc;
    let mut at = 0;
    let mut open: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let advance = |rest: &mut &str, at: &mut usize, n: usize| {
        *rest = &rest[n..];
        *at += n;
    };
    if rest.starts_with("<?xml") {
        let end = rest.find("?>").ok_or("unterminated declaration")?;
        advance(&mut rest, &mut at, end + 2);
    }
    while !rest.is_empty() {
        if let Some(body) = rest.strip_prefix("<![CDATA[") {
            if open.is_empty() {
                return Err(format!("CDATA outside the root at byte {at}"));
            }
            let end = body
                .find("]]>")
                .ok_or(format!("unterminated CDATA at byte {at}"))?;
            advance(&mut rest, &mut at, 9 + end + 3);
        } else if let Some(body) = rest.strip_prefix("</") {
            let end = body.find('>').ok_or("unterminated end tag")?;
            let name = body[..end].trim();
            if open.pop().as_deref() != Some(name) {
                return Err(format!(
                    "</{name}> does not close the open element at byte {at}"
                ));
            }
            advance(&mut rest, &mut at, 2 + end + 1);
        } else if let Some(body) = rest.strip_prefix('<') {
            // A start tag: attributes are quoted; `>` may appear in a value.
            let mut i = 0;
            let bytes = body.as_bytes();
            let mut quote = None;
            while i < bytes.len() {
                match (quote, bytes[i]) {
                    (None, b'"' | b'\'') => quote = Some(bytes[i]),
                    (Some(q), b) if b == q => quote = None,
                    (None, b'>') => break,
                    _ => {}
                }
                i += 1;
            }
            if i == bytes.len() {
                return Err(format!("unterminated start tag at byte {at}"));
            }
            let tag = &body[..i];
            let (tag, empty) = match tag.strip_suffix('/') {
                Some(t) => (t, true),
                None => (tag, false),
            };
            let name_end = tag.find(char::is_whitespace).unwrap_or(tag.len());
            let name = &tag[..name_end];
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_-.:".contains(c))
            {
                return Err(format!("bad element name {name:?} at byte {at}"));
            }
            if open.is_empty() && !names.is_empty() {
                return Err(format!("a second root element at byte {at}"));
            }
            // name="value" pairs, each name once.
            let mut attrs = tag[name_end..].trim();
            let mut seen = Vec::new();
            while !attrs.is_empty() {
                let eq = attrs
                    .find('=')
                    .ok_or(format!("attribute without a value at byte {at}"))?;
                let key = attrs[..eq].trim();
                if seen.contains(&key) {
                    return Err(format!("attribute {key} twice at byte {at}"));
                }
                seen.push(key);
                let after = attrs[eq + 1..].trim_start();
                let q = after.chars().next().ok_or("attribute value missing")?;
                if q != '"' && q != '\'' {
                    return Err(format!("unquoted attribute {key} at byte {at}"));
                }
                let close = after[1..].find(q).ok_or("unterminated attribute value")?;
                references_ok(&after[1..1 + close], at)?;
                attrs = after[1 + close + 1..].trim_start();
            }
            names.push(name.to_string());
            if !empty {
                open.push(name.to_string());
            }
            advance(&mut rest, &mut at, 1 + i + 1);
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            let text = &rest[..end];
            if open.is_empty() && !text.trim().is_empty() {
                return Err(format!("text outside the root at byte {at}"));
            }
            references_ok(text, at)?;
            advance(&mut rest, &mut at, end);
        }
    }
    if let Some(name) = open.pop() {
        return Err(format!("<{name}> is never closed"));
    }
    if names.is_empty() {
        return Err("no root element".into());
    }
    Ok(names)
}

#[test]
fn the_xml_checker_rejects_what_is_not_well_formed() {
    assert!(
        xml_elements("<?xml version=\"1.0\"?>\n<a x=\"1 &amp; >\"><b/><![CDATA[<&]]>t</a>\n")
            .is_ok()
    );
    for bad in [
        "<a><b></a></b>",
        "<a>x & y</a>",
        "<a x=1/>",
        "<a>\u{1}</a>",
        "<a><![CDATA[x]]]></a>x",
        "<a/><b/>",
        "<a>",
        "<a x=\"<\"/>",
    ] {
        assert!(xml_elements(bad).is_err(), "{bad:?} passed");
    }
}

/// Grades `args` with `--format FORMAT` into a file; the report's text.
fn report_text(args: &[&str], format: &str) -> (i32, String) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut all = vec!["grade", "--color", "never"];
    all.extend(args);
    all.extend([
        "--format",
        format,
        "--output",
        report.path().to_str().unwrap(),
    ]);
    let out = chessgrade(&all);
    (
        out.status.code().unwrap_or(-1),
        std::fs::read_to_string(report.path()).unwrap(),
    )
}

/// Checks a Gradescope report: the fields Gradescope reads, one test per
/// scenario, the total the sum of the tests' scores; (name, score, max).
fn gradescope_tests(text: &str) -> Vec<(String, f64, f64)> {
    let json: serde_json::Value = serde_json::from_str(text).expect("Gradescope JSON parses");
    let tests: Vec<(String, f64, f64)> = json["tests"]
        .as_array()
        .expect("a tests array")
        .iter()
        .map(|t| {
            assert!(t["output"].is_string(), "{t}");
            (
                t["name"].as_str().expect("a name").to_string(),
                t["score"].as_f64().expect("a score"),
                t["max_score"].as_f64().expect("a max_score"),
            )
        })
        .collect();
    let total: f64 = tests.iter().map(|t| t.1).sum();
    assert_eq!(json["score"].as_f64(), Some(total), "{text}");
    tests
}

/// A hostile console program: control characters, invalid UTF-8, XML's
/// `]]>`, `<&>` and a bidi override before the JHU prompt (so in the
/// reported output of the program's start), then exit 3.
fn hostile_program(dir: &Path) -> PathBuf {
    let path = dir.join("chess");
    std::fs::write(
        &path,
        "#!/bin/sh\nprintf '\\001\\000\\007 ]]> <a & b=\"c\"> \\377\\376 \\342\\200\\256 x\\nNext command: '\nexit 3\n",
    )
    .unwrap();
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&path, perms).unwrap();
    path
}

#[test]
fn console_reports_are_well_formed_junit_and_gradescope() {
    let hostile_dir = tempfile::tempdir().unwrap();
    let hostile = hostile_program(hostile_dir.path());
    let runs: Vec<(Vec<String>, usize, usize)> = vec![
        // (arguments, scenarios, passing)
        (
            vec![
                "--program".into(),
                console_program("jhu-mutant-wrong-message")
                    .display()
                    .to_string(),
                "scenarios/jhu/refusals".into(),
                "scenarios/jhu/save".into(),
            ],
            2,
            1,
        ),
        (
            vec![
                "--program".into(),
                console_program("jhu-crash").display().to_string(),
                "scenarios/jhu/score".into(),
            ],
            1,
            0,
        ),
        (
            vec![
                "--program".into(),
                console_program("cuhk-correct").display().to_string(),
                MODE3.into(),
                MODE2.into(),
                "scenarios/cuhk/console".into(),
            ],
            3,
            3,
        ),
        (
            vec![
                "--program".into(),
                console_program("cuhk-machine-illegal")
                    .display()
                    .to_string(),
                MODE3.into(),
            ],
            1,
            0,
        ),
        (
            vec![
                "--submission".into(),
                console_fixture("cuhk-compile-error").display().to_string(),
                "scenarios/cuhk/console".into(),
                "scenarios/cuhk/notation".into(),
            ],
            2,
            0,
        ),
        (
            vec![
                "--program".into(),
                hostile.display().to_string(),
                "scenarios/jhu/save".into(),
            ],
            1,
            0,
        ),
    ];
    for (args, scenarios, passing) in runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, junit) = report_text(&args, "junit");
        assert_eq!(code, if passing == scenarios { 0 } else { 1 }, "{args:?}");
        let elements = xml_elements(&junit).unwrap_or_else(|e| panic!("{args:?}: {e}\n{junit}"));
        assert_eq!(
            elements.iter().filter(|e| *e == "testcase").count(),
            scenarios,
            "{junit}"
        );
        let failures = elements
            .iter()
            .filter(|e| *e == "failure" || *e == "error")
            .count();
        assert_eq!(failures, scenarios - passing, "{junit}");
        assert!(junit.contains(&format!("tests=\"{scenarios}\"")), "{junit}");

        if args[1] == hostile.to_str().unwrap() {
            // The hostile text is reported, made safe, not dropped.
            assert!(junit.contains("<a & b=\"c\">"), "{junit}");
        }
        let (_, gradescope) = report_text(&args, "gradescope");
        let tests = gradescope_tests(&gradescope);
        assert_eq!(tests.len(), scenarios, "{gradescope}");
        let full = tests.iter().filter(|(_, s, m)| s == m && *m > 0.0).count();
        assert_eq!(full, passing, "{gradescope}");
    }
}
