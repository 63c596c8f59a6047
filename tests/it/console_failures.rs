//! Where and how a console program's failure is reported, on the real
//! fixture programs of `tests/fixtures/console/` (each built once per test
//! binary): a failure after the scenario's last step is named at the
//! input that ends the game, a setup failure says what differed (a board
//! printed wrong names its squares), and the board shown is the one the
//! program had (a JHU setup's loaded board), in the course's own
//! coordinates (files A-H; JHU ranks 8 to 1 down the page, CUHK rows 1 to
//! 8 as its program prints them).

use crate::helpers::{chessgrade, console_program};
use std::path::Path;

/// Grades the built `fixture` on `scenarios`: (exit code, JSON report, human output).
fn grade_fixture(fixture: &str, scenarios: &[&str]) -> (i32, serde_json::Value, String) {
    let chess = console_program(fixture);
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut args = vec![
        "grade",
        "--color",
        "never",
        "--program",
        chess.to_str().unwrap(),
    ];
    args.extend(scenarios);
    // The JSON report in a file; the human one still on stdout.
    args.extend([
        "--format",
        "json",
        "--output",
        report.path().to_str().unwrap(),
    ]);
    let out = chessgrade(&args);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let json = std::fs::read_to_string(report.path())
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    (out.status.code().unwrap_or(-1), json, text)
}

/// A scenario file in a temporary folder.
fn scenario(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

const CUHK_START: &str =
    "@rules cuhk\n1\nfen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1\n~\n";

#[test]
fn a_winner_wrong_only_after_the_implicit_z0_z0_is_reported_at_the_end_of_the_game() {
    let dir = tempfile::tempdir().unwrap();
    // White's pawn takes Black's: White ahead when the scenario's end
    // sends `Z0 Z0`; the mutant swaps the winner lines.
    let implicit = scenario(
        dir.path(),
        "white_ahead.txt",
        &format!("{CUHK_START}move A7 A5\nmove B2 B4\nmove A5 B4\n"),
    );
    let (code, json, text) = grade_fixture("cuhk-mutant-wrong-winner", &[&implicit]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(
            "      first mismatch at end of the game (`Z0 Z0` sent)\n        the output differs\n        input sent: Z0 Z0\n        expected:\n          White wins!\n        actual:\n          Black wins!\n"
        ),
        "{text}"
    );
    assert!(!text.contains("first mismatch at line"), "{text}");
    // The board the game reached, as CUHK's students read it: row 1 on
    // top, Black upper case (its pawn gone from B2), White's pawn on B4.
    assert!(
        text.contains(
            "        board at the end of the game:\n              A  B  C  D  E  F  G  H\n          1   R  N  B  Q  K  B  N  R\n          2   P  .  P  P  P  P  P  P\n          3   .  .  .  .  .  .  .  .\n          4   .  p  .  .  .  .  .  .\n"
        ),
        "{text}"
    );
    let s = &json["scenarios"][0];
    assert_eq!(s["line"], serde_json::Value::Null, "{s}");
    assert_eq!(
        s["message"], "the output differs at end of the game (`Z0 Z0` sent)",
        "{s}"
    );
    assert_eq!(s["boards"][0]["title"], "board at the end of the game");
    assert_eq!(s["boards"][0]["coords"], "upper_files_top_down");
    // The scenario's own `move Z0 Z0` is still reported at its line.
    let (_, _, text) = grade_fixture(
        "cuhk-mutant-wrong-winner",
        &["scenarios/cuhk/console/invalid_inputs_then_a_pawn_capture_and_z0_z0.txt"],
    );
    assert!(
        text.contains("first mismatch at line 20: move Z0 Z0\n"),
        "{text}"
    );
}

#[test]
fn a_jhu_program_that_ignores_q_is_reported_at_the_end_of_the_game() {
    let (code, json, text) = grade_fixture("jhu-loop-at-eof", &["scenarios/jhu/save"]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(
            "      first mismatch at end of the game (`q` sent)\n        did not exit after its input ended\n        input sent: q\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("        board at the end of the game:\n"),
        "{text}"
    );
    assert_eq!(json["scenarios"][0]["line"], serde_json::Value::Null);
}

#[test]
fn a_cuhk_board_printed_wrong_at_the_start_names_the_squares_that_differ() {
    let (code, json, text) = grade_fixture(
        "cuhk-mutant-king-queen-swapped",
        &["scenarios/cuhk/console/invalid_inputs_then_a_pawn_capture_and_z0_z0.txt"],
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(
            "      first mismatch at setup: mode `1` sent (the game starts: `Round 1:` and the board)\n        the output differs\n        input sent: 1\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "        what differs: the board printed differs from the expected one on 4 square(s): D1 (expected Black queen, printed Black king); E1 (expected Black king, printed Black queen); D8 (expected White queen, printed White king); E8 (expected White king, printed White queen)\n"
        ),
        "{text}"
    );
    // Both boards as the course prints them (row 1 on top, Black upper
    // case), the squares that differ marked.
    assert!(
        text.contains(
            "        expected board:\n              A  B  C  D  E  F  G  H\n          1   R  N  B  Q  K  B  N  R\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "        board the program printed:\n              A  B  C  D  E  F  G  H\n          1   R  N  B !K !Q  B  N  R\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "          8   r  n  b !k !q  b  n  r\n          ! differs from the expected board\n"
        ),
        "{text}"
    );
    let s = &json["scenarios"][0];
    assert_eq!(
        s["message"],
        "the output differs at setup: mode `1` sent (the game starts: `Round 1:` and the board)"
    );
    let printed = &s["boards"][1];
    assert_eq!(printed["title"], "board the program printed");
    assert_eq!(printed["coords"], "upper_files_top_down");
    // In the course's letters too, as drawn above: Black upper case on row 1.
    assert_eq!(
        printed["board"],
        "RNBKQBNR/PPPPPPPP/......../......../......../......../pppppppp/rnbkqbnr"
    );
    assert_eq!(printed["marks"].as_array().map(Vec::len), Some(4), "{s}");
}

#[test]
fn a_cuhk_board_printed_wrong_in_a_machine_game_names_the_squares_too() {
    let (code, _, text) = grade_fixture(
        "cuhk-mutant-king-queen-swapped",
        &["tests/fixtures/console-scripts/cuhk-machine/mode3_machines_play_to_a_kings_capture.txt"],
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(
            "first mismatch at setup: mode `3` sent (the game starts: `Round 1:` and the board)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "what differs: the board printed differs from the expected one on 4 square(s): D1 "
        ),
        "{text}"
    );
    assert!(
        text.contains("          1   R  N  B !K !Q  B  N  R\n"),
        "{text}"
    );
}

#[test]
fn a_board_with_the_right_pieces_but_no_trailing_spaces_says_so() {
    let (code, _, text) = grade_fixture(
        "cuhk-mutant-trailing-space",
        &["scenarios/cuhk/console/invalid_inputs_then_a_pawn_capture_and_z0_z0.txt"],
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("      first mismatch at setup: mode `1` sent (the game starts: `Round 1:` and the board)\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "        what differs: the board printed has the expected pieces on every square\n        what differs: only trailing spaces differ: 8 printed line(s) lack the trailing space(s) the course prints\n"
        ),
        "{text}"
    );
    // No second board: the pieces agree.
    assert!(!text.contains("board the program printed"), "{text}");
    assert!(text.contains("        board at the start:\n"), "{text}");
}

#[test]
fn a_jhu_setup_mismatch_shows_the_board_loaded_in_files_and_ranks() {
    // The mutant never says "You are in check!": the loaded position is
    // in check, so the first mismatch is the setup's load.
    let (code, json, text) = grade_fixture(
        "jhu-mutant-wrong-check",
        &["scenarios/jhu/check/check_picture_and_its_three_answers.txt"],
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(
            "      first mismatch at setup: `L chessgrade-setup.txt` sent (the scenario's position, loaded from a board file)\n        the output differs\n        input sent: L chessgrade-setup.txt\n        expected:\n          You are in check!\n"
        ),
        "{text}"
    );
    // The scenario's position (not the start), rank 8 on top, as the
    // course's board files and display read.
    assert!(
        text.contains(
            "        board loaded from chessgrade-setup.txt:\n              A  B  C  D  E  F  G  H\n          8   .  .  .  .  k  .  .  .\n          7   p  p  p  p  .  p  p  p\n          6   .  .  .  .  .  .  .  .\n          5   .  .  .  .  .  .  .  .\n          4   .  b  .  .  .  .  .  .\n          3   .  .  .  .  .  .  .  .\n          2   P  P  N  .  .  P  P  P\n          1   R  .  .  Q  K  .  .  R\n"
        ),
        "{text}"
    );
    assert!(!text.contains("0  1  2  3"), "{text}");
    let s = &json["scenarios"][0];
    assert_eq!(
        s["boards"][0]["title"],
        "board loaded from chessgrade-setup.txt"
    );
    assert_eq!(s["boards"][0]["coords"], "upper_files");
}

#[test]
fn a_jhu_step_failure_shows_the_board_reached_in_files_and_ranks() {
    let (_, _, text) = grade_fixture(
        "jhu-mutant-wrong-message",
        &["scenarios/jhu/refusals/nine_messages_in_the_seeds_order.txt"],
    );
    assert!(
        text.contains("first mismatch at line 33: move A1A3\n"),
        "{text}"
    );
    // After 1. e4 e5 (the scenario's moves before A1A3).
    let board = text
        .split("        board before the step:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        board.starts_with(
            "              A  B  C  D  E  F  G  H\n          8   r  n  b  q  k  b  n  r\n"
        ),
        "{text}"
    );
    assert!(
        board.contains("\n          1   R  N  B  Q  K  B  N  R\n"),
        "{text}"
    );
}
