//! `chessgrade explain` (and `shrink`) on console programs (JHU CS220,
//! CUHK CSCI1120):
//! the real fixture programs of `tests/fixtures/console/` (built once per
//! test binary, then passed as `--program`; the Mystery piece through
//! `--submission` and the starter overlay, as a TA runs it) walked command
//! by command: each input sent, the lines the course judges, the files a
//! JHU program saves, and the reference's board after each command in the
//! course's coordinates. The expected texts are the courses' (seed 002's
//! messages and save format, seed 000's rows and labels), written here.

use crate::helpers::{console_fixture, console_program, jhu_overlay, root};
use std::process::Command;

/// `chessgrade explain --ascii ARGS`: (exit code, stdout, stderr).
fn explain(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(crate::helpers::bin())
        .args(["explain", "--ascii", "--color", "never"])
        .args(args)
        .current_dir(root())
        .env("COLUMNS", "100")
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Explains `scenario` on the built `fixture`.
fn explain_fixture(fixture: &str, scenario: &str, extra: &[&str]) -> (i32, String, String) {
    let chess = console_program(fixture);
    let mut args = vec!["--program", chess.to_str().unwrap(), scenario];
    args.extend(extra);
    explain(&args)
}

const REFUSALS: &str = "scenarios/jhu/refusals/nine_messages_in_the_seeds_order.txt";
const SAVE: &str = "scenarios/jhu/save/save_after_a_few_moves.txt";
const CUHK_CONSOLE: &str =
    "scenarios/cuhk/console/invalid_inputs_then_a_pawn_capture_and_z0_z0.txt";

#[test]
fn a_jhu_program_is_walked_command_by_command_up_to_its_first_mismatch() {
    let (code, out, err) = explain_fixture("jhu-mutant-wrong-message", REFUSALS, &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("judged: the lines the course judges (the board display is the program's own and is not compared)\n"),
        "{out}"
    );
    // The setup's board file, in the course's save format (rank 8 first).
    assert!(
        out.contains(
            "files written before the start:\n    chessgrade-setup.txt:\n      rnbqkbnr\n      pppppppp\n      --------\n"
        ),
        "{out}"
    );
    // 1. e4: the turn passes to Black, the pawn stands on E4.
    assert!(
        out.contains(
            "line 30: move E2E4: ok\n    input sent: M E2E4\n    printed (the judged lines), as expected:\n      black move\n      Material point value: 39\n    board after:\n          A  B  C  D  E  F  G  H\n      8   r  n  b  q  k  b  n  r\n      7   p  p  p  p  p  p  p  p\n      6   .  .  .  .  .  .  .  .\n      5   .  .  .  .  .  .  .  .\n      4   .  .  .  .  P  .  .  .\n      3   .  .  .  .  .  .  .  .\n      2   P  P  P  P  .  P  P  P\n      1   R  N  B  Q  K  B  N  R\n"
        ),
        "{out}"
    );
    // A refusal changes nothing.
    assert!(
        out.contains(
            "line 32: move E4E5: ok\n    input sent: M E4E5\n    printed (the judged lines), as expected:\n      Could not make move: illegal capture shape\n      white move\n      Material point value: 39\n    board unchanged by the command\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "line 33: move A1A3: MISMATCH\n    the output differs\n    input sent: M A1A3\n    expected:\n      Could not make move: path is not clear\n    actual:\n      Could not make move: path is blocked\n"
        ),
        "{out}"
    );
    assert!(!out.contains("line 34:"), "{out}");
    assert!(
        out.contains("later commands not shown; --all shows every command"),
        "{out}"
    );
    assert!(out.ends_with("\nfirst mismatch at line 33\n"), "{out}");
    // --all goes on past it.
    let (code, out, _) = explain_fixture("jhu-mutant-wrong-message", REFUSALS, &["--all"]);
    assert_eq!(code, 1);
    assert!(out.contains("\nline 34: move D2D4: ok\n"), "{out}");
    assert!(out.ends_with("\nfirst mismatch at line 33\n"), "{out}");
}

#[test]
fn a_jhu_save_shows_the_file_expected_and_written() {
    // After 1. e4 e5 2. Nf3, Black to move (the course's nine lines).
    let (code, out, err) = explain_fixture("jhu-correct", SAVE, &["--line", "22"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(
            "line 22: save: ok\n    input sent: S chessgrade-save-22.txt\n    printed (the judged lines), as expected:\n      black move\n      Material point value: 39\n    saved chessgrade-save-22.txt (line 22), as expected:\n      rnbqkbnr⏎\n      pppp-ppp⏎\n      --------⏎\n      ----p---⏎\n      ----P---⏎\n      -----N--⏎\n      PPPP-PPP⏎\n      RNBQKB-R⏎\n      b\n"
        ),
        "{out}"
    );
    // Only that step's command.
    assert!(
        !out.contains("line 18:") && !out.contains("setup:"),
        "{out}"
    );
    // A program that writes no file fails at the first save.
    let (code, out, _) = explain_fixture("jhu-mutant-no-save", SAVE, &[]);
    assert_eq!(code, 1);
    assert!(
        out.contains(
            "line 18: save: MISMATCH\n    the saved file chessgrade-save-18.txt differs from the expected save\n    input sent: S chessgrade-save-18.txt\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("    actual:\n      (no file written)\n"),
        "{out}"
    );
    // A line that sends nothing is a usage error.
    let (code, _, err) = explain_fixture("jhu-correct", SAVE, &["--line", "5"]);
    assert_eq!(code, 2);
    assert!(err.contains("line 5 sends no command"), "{err}");
}

#[test]
fn a_cuhk_game_shows_each_round_and_the_board_as_the_course_prints_it() {
    let (code, out, err) = explain_fixture("cuhk-correct", CUHK_CONSOLE, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("judged: every line, exactly as the course's program prints it\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "line 11: move E2 E4: ok\n    input sent: E2 E4\n    printed, as expected:\n      invalid input!\n    board unchanged by the command\n"
        ),
        "{out}"
    );
    // 1. A7 A5: White's pawn (lower case in CUHK) from row 7 to row 5.
    assert!(
        out.contains(
            "line 14: move A7 A5: ok\n    input sent: A7 A5\n    printed, as expected:\n      Round 2:\n"
        ),
        "{out}"
    );
    let after = out.split("line 14: move A7 A5: ok\n").nth(1).unwrap();
    assert!(
        after.contains(
            "    board after:\n          A  B  C  D  E  F  G  H\n      1   R  N  B  Q  K  B  N  R\n      2   P  P  P  P  P  P  P  P\n      3   .  .  .  .  .  .  .  .\n      4   .  .  .  .  .  .  .  .\n      5   p  .  .  .  .  .  .  .\n      6   .  .  .  .  .  .  .  .\n      7   .  p  p  p  p  p  p  p\n      8   r  n  b  q  k  b  n  r\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("line 20: move Z0 Z0: ok\n    input sent: Z0 Z0\n    printed, as expected:\n      Black wins!\n"),
        "{out}"
    );
    assert!(out.ends_with("\nevery command's answer matches\n"), "{out}");
}

#[test]
fn a_wrong_winner_after_the_implicit_z0_z0_is_explained_at_the_end_of_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("white_ahead.txt");
    std::fs::write(
        &path,
        "@rules cuhk\n1\nfen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1\n~\nmove A7 A5\nmove B2 B4\nmove A5 B4\n",
    )
    .unwrap();
    let (code, out, err) = explain_fixture("cuhk-mutant-wrong-winner", path.to_str().unwrap(), &[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("\nline 7: move A5 B4: ok\n"), "{out}");
    assert!(
        out.contains(
            "end of the game (`Z0 Z0` sent): MISMATCH\n    the output differs\n    input sent: Z0 Z0\n    expected:\n      White wins!\n    actual:\n      Black wins!\n"
        ),
        "{out}"
    );
    assert!(
        out.ends_with("\nfirst mismatch at end of the game (`Z0 Z0` sent)\n"),
        "{out}"
    );
}

#[test]
fn a_machine_game_shows_its_inputs_and_the_programs_output() {
    let (code, out, err) = explain_fixture(
        "cuhk-correct",
        "tests/fixtures/console-scripts/cuhk-machine/mode3_machines_play_to_a_kings_capture.txt",
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("judged: a machine game: "), "{out}");
    assert!(
        out.contains("\nsetup: mode `3` sent (the game starts: `Round 1:` and the board)\n    input sent: 3\n"),
        "{out}"
    );
    assert!(
        out.contains("the program's output:\n    Choose game mode (1, 2, 3): Round 1:\n"),
        "{out}"
    );
    assert!(out.ends_with("\nevery command's answer matches\n"), "{out}");
}

#[test]
fn a_jhu_upload_is_built_with_the_graders_mystery_piece_to_explain_a_mystery_scenario() {
    let overlay = jhu_overlay(None);
    let upload = console_fixture("jhu-correct");
    let (code, out, err) = explain(&[
        "--submission",
        upload.to_str().unwrap(),
        "--overlay",
        overlay.path().to_str().unwrap(),
        "scenarios/jhu/mystery/camel_leaper_moves_captures_and_checks.txt",
        "--all",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(
            "note: built with the graders' Mystery.h for `@mystery leaper 1,3 value 4` for 1 scenario(s)\n"
        ),
        "{out}"
    );
    // The camel leaps (1,3) from A1 over its pawns; Black (king, pawn,
    // rook) then has 0 + 1 + 5 points.
    assert!(
        out.contains(
            "line 23: move A1B4: ok\n    input sent: M A1B4\n    printed (the judged lines), as expected:\n      black move\n      Material point value: 6\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("\n      4   .  M  .  .  .  .  .  r\n"),
        "{out}"
    );
    assert!(out.ends_with("\nevery command's answer matches\n"), "{out}");
}

#[test]
fn a_scenario_the_console_cannot_play_is_a_staff_error() {
    let (code, out, err) = explain_fixture(
        "jhu-correct",
        "scenarios/lab3/bishops/bishop_never_moves_straight.txt",
        &[],
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("not gradable by console"), "{err}");
}

#[test]
fn a_cuhk_failure_shrinks_to_the_moves_that_still_fail_it() {
    // The seed's sample run: Black's bishop takes the White king that
    // White ignored; the mutant names the wrong winner.
    let chess = console_program("cuhk-mutant-wrong-winner");
    let out = Command::new(crate::helpers::bin())
        .args([
            "shrink",
            "scenarios/cuhk/game-over/sample_run_black_bishop_takes_the_ignored_king.txt",
            "--program",
            chess.to_str().unwrap(),
            "--color",
            "never",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    // Candidates the CUHK program cannot play (a FEN without a piece is
    // not its start position) are skipped, not a grader's error.
    assert_eq!(out.status.code(), Some(1), "{text}");
    let counts = text
        .split("(wrong_output at a `move` step): 15 -> ")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    let steps: usize = counts.split(' ').next().unwrap().parse().unwrap();
    assert!(steps < 15, "{text}");
    // The capture is kept, last, and still fails the same way.
    let minimal = text.split("\n\n").nth(1).unwrap_or_default();
    assert!(minimal.starts_with("@rules cuhk\n"), "{text}");
    assert!(minimal.ends_with("\nmove B5 E8"), "{text}");
    assert!(
        text.contains(
            ": move B5 E8\n        the output differs\n        input sent: B5 E8\n        expected:\n          Black wins!\n        actual:\n          White wins!\n"
        ),
        "{text}"
    );
}

/// A console walk as a page: every command a section with the reference's
/// board as a picture in the course's coordinates (CUHK: row 1 on top) and
/// the move's arrow, the first mismatch marked with `grade`'s words.
#[test]
fn a_cuhk_walk_as_a_page_shows_each_command_with_its_board_and_the_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("walk.html");
    let (code, out, err) = explain_fixture(
        "cuhk-mutant-wrong-winner",
        "scenarios/cuhk/game-over/sample_run_black_bishop_takes_the_ignored_king.txt",
        &["--format", "html", "--output", page.to_str().unwrap()],
    );
    assert_eq!(code, 1, "{out}{err}");
    let page = std::fs::read_to_string(&page).unwrap();
    let mismatch = page
        .split("<section class=\"step mismatch\"")
        .nth(1)
        .expect("the mismatch's section")
        .split("</section>")
        .next()
        .unwrap();
    assert!(mismatch.contains("line 17: move B5 E8"), "{mismatch}");
    assert!(
        mismatch.contains("expected:\n  Black wins!\nactual:\n  White wins!"),
        "{mismatch}"
    );
    assert!(
        mismatch.contains("the step&#39;s move: from B5 to E8"),
        "{mismatch}"
    );
    // Its board before the step is a picture, not the text's diagram.
    assert!(mismatch.contains("<figcaption>board before the step</figcaption><svg"));
    assert!(!mismatch.contains("1   R  N  B  Q  K"), "{mismatch}");
    // A command that moved: its board after, CUHK's rows from 1 on top.
    let moved = page
        .split("line 10: move D7 D5")
        .nth(1)
        .unwrap()
        .split("</section>")
        .next()
        .unwrap();
    assert!(
        moved.contains("the step&#39;s move: from D7 to D5"),
        "{moved}"
    );
    assert!(page.contains("<a href=\"#command-"), "the walk's links");
    assert!(page.contains("class=\"bad\">17 ✗</a>"), "{page}");
}
