//! The adapter kit with a course's own hook file (`--adapter`), on seed
//! 004's design (issue 38): every item of the seed's test plan is a bundled
//! scenario folder named after it; a correct upload passes them all; each
//! mutant (a student's usual bug) fails exactly the scenarios that exercise
//! its bug; a hook file that is missing a hook, does not compile or answers
//! garbage, and a scenario the course's classes cannot run, are the staff's
//! errors (exit 2) naming the hook; a student's crash inside a hook is the
//! student's. Lab 3 through the kit is covered by the Lab 3 tests
//! (`grade.rs`, `determinism.rs`, `course_corpus.rs`, ...), unchanged.

use crate::helpers::{
    self, DESIGN004_MUTANTS, chessgrade, design004_engine, design004_hooks, design004_upload, root,
    stderr, stdout,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Seed 004's "What to test for" items, each with the folder of
/// `scenarios/design004/` that tests it (items that only introduce others,
/// ending with `:`, are quoted with each of theirs instead).
const ITEMS: &[(&str, &str)] = &[
    (
        "if you create a Point with coordinates (a,b), you get those coordinates back when you call GetX() and GetY()",
        "point-gives-its-coordinates-back",
    ),
    (
        "When you undo a normal move (not a kill, castle, etc), the piece which moved goes back to where it came from.",
        "history-undo-normal-move-puts-the-piece-back",
    ),
    (
        "When you undo a castle, both the rook and the king go back to the correct position.",
        "history-undo-castle-puts-king-and-rook-back",
    ),
    (
        "When you undo a normal kill (not En Passant), the killed piece comes back.",
        "history-undo-normal-kill-brings-the-piece-back",
    ),
    (
        "When you undo an En Passant kill, the pawn goes back to the right location.",
        "history-undo-en-passant-puts-the-pawn-back",
    ),
    (
        "When you redo any move, it behaves correctly (hand-wavey because it's easier than undoing -- simply call Board::TryToMove() as if somebody had just tried to make that move)",
        "history-redo-any-move-behaves-correctly",
    ),
    (
        "none of your own pieces occupy the space",
        "board-try-to-move-not-onto-own-piece",
    ),
    (
        "the move conforms with the definition of the behavior of the piece at p1",
        "board-try-to-move-only-the-pieces-own-moves",
    ),
    (
        "the move does not put the player whose turn it is into check",
        "board-try-to-move-not-into-check",
    ),
    (
        "when you move a king or a castle, it is noted that that particular piece is no longer elligible for castling",
        "board-moved-king-or-rook-cannot-castle",
    ),
    (
        "when you move a king to a castling position, the rook moves to his opposite side",
        "board-castling-moves-the-rook",
    ),
    (
        "when you move a pawn two spaces forward, the fact that it may be killed En Passant is recorded",
        "board-double-step-records-en-passant",
    ),
    (
        "when you move a piece to kill a pawn En Passant, the pawn is actually removed",
        "board-en-passant-removes-the-pawn",
    ),
    (
        "Move() will move the piece from p1 to p2, elliminating whatever piece happens to be at p2 at the moment",
        "board-move-eliminates-the-piece-at-p2",
    ),
    (
        "All moves will be recorded in the history",
        "board-all-moves-recorded-in-history",
    ),
    (
        "CanMove() does not allow a piece to take another of the same color.",
        "piece-can-move-not-onto-same-color",
    ),
    (
        "CanMove() does not allow moving a piece off the board.",
        "piece-can-move-not-off-the-board",
    ),
    (
        "CanMove() does not allow a move which would put the current player in check.",
        "piece-can-move-not-into-check",
    ),
    (
        "TryToMove() only makes the move when CanMove() says it is legal.",
        "piece-try-to-move-only-when-can-move-says-legal",
    ),
    (
        "pawns are correctly killed in En Passant.",
        "piece-pawns-killed-en-passant",
    ),
    (
        "a pawn may move one space forward any time the space in front of it is unoccupied",
        "pawn-one-step-forward-when-unoccupied",
    ),
    (
        "a pawn may move one space diagonally forward to kill piece of the opposite color",
        "pawn-kills-one-step-diagonally-forward",
    ),
    (
        "a pawn may move two spaces forward if the two spaces in front of it are unoccupied and it is still in its starting location",
        "pawn-double-step-only-from-its-starting-location",
    ),
    (
        "a pawn must be exchanged for another type of piece if it makes it to the other side of the board.",
        "pawn-exchanged-on-the-last-row",
    ),
    (
        "a bishop may move any distance diagonally in any direction as long as it doesn't \"go over\" another piece.",
        "bishop-moves-diagonally-without-jumping",
    ),
    (
        "a bishop may kill by landing on its space if the piece is on a space the bishop can legally move to.",
        "bishop-kills-where-it-may-move",
    ),
];

/// The items of seed 004's "Correctness/What to test for" lists that test
/// something themselves: every `- ` line after such a heading that does not
/// end with `:` (those introduce the lines below them).
fn seed_items(seed: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut in_list = false;
    for line in seed.lines() {
        if line.contains("What to test for:") {
            in_list = true;
            continue;
        }
        match line.strip_prefix("- ") {
            Some(item) if in_list => {
                if !item.trim_end().ends_with(':') {
                    items.push(item.trim_end().to_string());
                }
            }
            _ => in_list = false,
        }
    }
    items
}

/// A scenario's leading comment lines, joined with spaces.
fn header_comment(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map_while(|l| l.strip_prefix("// "))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_item_of_seed_004s_test_plan_is_a_scenario_folder_named_after_it() {
    let Some(seeds) = helpers::shared("seeds") else {
        return;
    };
    let seed = std::fs::read_dir(&seeds)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("004_"))
        .expect("seed 004");
    let items = seed_items(&std::fs::read_to_string(seed).unwrap());
    let listed: Vec<String> = ITEMS.iter().map(|(item, _)| item.to_string()).collect();
    assert_eq!(items, listed, "the seed's items, in its order");
    let design = root().join("scenarios/design004");
    let folders: BTreeSet<String> = std::fs::read_dir(&design)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let named: BTreeSet<String> = ITEMS.iter().map(|(_, f)| f.to_string()).collect();
    assert_eq!(folders, named, "one folder per item, no other");
    for (item, folder) in ITEMS {
        let files: Vec<_> = std::fs::read_dir(design.join(folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(!files.is_empty(), "{folder} holds no scenario");
        for file in files {
            assert_eq!(file.extension().unwrap(), "txt", "{}", file.display());
            let quoted = header_comment(&file);
            assert!(
                quoted.contains(item),
                "{} does not quote its item {item:?}: {quoted}",
                file.display()
            );
        }
    }
}

/// Every scenario of `scenarios/design004`, by name (`design004/...`).
fn design004_scenarios() -> BTreeSet<String> {
    walkdir::WalkDir::new(root().join("scenarios/design004"))
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .map(|p| {
            p.strip_prefix(root().join("scenarios"))
                .unwrap()
                .display()
                .to_string()
        })
        .collect()
}

/// Grades `subject` on `scenarios/design004` (JSON): the exit code, and
/// the failing scenarios with their class.
fn grade_design004(subject: &[&str]) -> (i32, Vec<(String, String)>) {
    let mut args = vec!["grade"];
    args.extend(subject);
    args.extend(["scenarios/design004", "--format", "json"]);
    let out = chessgrade(&args);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
    let verdicts = helpers::verdicts(&report);
    assert_eq!(
        verdicts
            .iter()
            .map(|(n, ..)| n.clone())
            .collect::<BTreeSet<_>>(),
        design004_scenarios()
    );
    let failing = verdicts
        .into_iter()
        .filter(|(_, status, _)| status != "pass")
        .map(|(name, status, class)| (name, format!("{status} {}", class.unwrap_or_default())))
        .collect();
    (out.status.code().unwrap(), failing)
}

#[test]
fn a_correct_design004_upload_passes_the_seeds_whole_test_plan() {
    let upload = design004_upload("design004-correct");
    let hooks = design004_hooks();
    let (code, failing) = grade_design004(&[
        "--submission",
        upload.to_str().unwrap(),
        "--adapter",
        hooks.to_str().unwrap(),
    ]);
    assert_eq!((code, failing), (0, Vec::new()));
}

/// The scenarios `mutant` fails (each `fail`, with the first thing wrong
/// there): reviewed by hand from what its bug does and what each scenario
/// plays, never taken from a run.
fn expected_failures(mutant: &str) -> Vec<(&'static str, &'static str)> {
    match mutant {
        // The only scenarios that undo a castle: after the undo the rook
        // is still beside the king.
        "castle-undo-leaves-rook" => vec![
            (
                "design004/history-redo-any-move-behaves-correctly/redo_castle.txt",
                "fail board_out_of_sync",
            ),
            (
                "design004/history-undo-castle-puts-king-and-rook-back/both_castlings_undone.txt",
                "fail board_out_of_sync",
            ),
        ],
        // The only scenarios with an en-passant kill that is made (the one
        // in piece-can-move-not-into-check is refused, the one in
        // board-double-step-records-en-passant too late): the killed pawn
        // stays on the board.
        "en-passant-keeps-pawn" => vec![
            (
                "design004/board-en-passant-removes-the-pawn/en_passant_kills_remove_the_pawn.txt",
                "fail board_out_of_sync",
            ),
            (
                "design004/history-redo-any-move-behaves-correctly/redo_en_passant.txt",
                "fail board_out_of_sync",
            ),
            (
                "design004/history-undo-en-passant-puts-the-pawn-back/en_passant_undone.txt",
                "fail board_out_of_sync",
            ),
            (
                "design004/piece-pawns-killed-en-passant/en_passant_both_ways.txt",
                "fail board_out_of_sync",
            ),
        ],
        // The only scenario that redoes after a new move: the redo makes
        // the old e2-e4 (legal again) instead of answering 0.
        "redo-after-new-move" => vec![(
            "design004/history-redo-any-move-behaves-correctly/nothing_to_redo_after_a_new_move.txt",
            "fail wrong_answer",
        )],
        // The only scenarios that ask about a piece pinned to its king (or
        // an en-passant kill that would expose it): the scan lists its
        // moves off the pin.
        "pinned-piece-moves" => vec![
            (
                "design004/board-try-to-move-not-into-check/moves_into_check_refused.txt",
                "fail wrong_answer",
            ),
            (
                "design004/piece-can-move-not-into-check/en_passant_exposing_the_king.txt",
                "fail wrong_answer",
            ),
            (
                "design004/piece-can-move-not-into-check/pinned_pieces_move_along_the_pin.txt",
                "fail wrong_answer",
            ),
        ],
        // The only scenario that asks a pawn that has moved for two
        // squares (every other scan's pawns are on their starting rows or
        // blocked): e3-e5 is made.
        "double-step-after-moving" => vec![(
            "design004/pawn-double-step-only-from-its-starting-location/double_step_only_from_the_start.txt",
            "fail wrong_answer",
        )],
        other => panic!("no expectation for {other}"),
    }
}

fn a_mutant_fails_exactly_the_scenarios_of_its_bug(mutant: &str) {
    let engine = design004_engine(mutant);
    let (code, failing) = grade_design004(&["--engine", &engine]);
    let expected: Vec<(String, String)> = expected_failures(mutant)
        .into_iter()
        .map(|(n, c)| (n.to_string(), c.to_string()))
        .collect();
    assert_eq!((code, failing), (1, expected), "{mutant}");
}

#[test]
fn the_castle_undo_mutant_fails_where_a_castle_is_undone() {
    a_mutant_fails_exactly_the_scenarios_of_its_bug("castle-undo-leaves-rook");
}

#[test]
fn the_en_passant_mutant_fails_where_a_pawn_is_killed_en_passant() {
    a_mutant_fails_exactly_the_scenarios_of_its_bug("en-passant-keeps-pawn");
}

#[test]
fn the_redo_mutant_fails_where_a_redo_follows_a_new_move() {
    a_mutant_fails_exactly_the_scenarios_of_its_bug("redo-after-new-move");
}

#[test]
fn the_pin_mutant_fails_where_a_pinned_piece_is_asked_about() {
    a_mutant_fails_exactly_the_scenarios_of_its_bug("pinned-piece-moves");
}

#[test]
fn the_double_step_mutant_fails_where_a_moved_pawn_tries_two_squares() {
    a_mutant_fails_exactly_the_scenarios_of_its_bug("double-step-after-moving");
}

#[test]
fn every_design004_mutant_is_tested() {
    let tested: BTreeSet<&str> = DESIGN004_MUTANTS
        .iter()
        .map(|m| m.name)
        .filter(|n| *n != "crash-in-try-to-move")
        .collect();
    for name in &tested {
        assert!(!expected_failures(name).is_empty(), "{name}");
    }
    assert_eq!(tested.len(), 5, "the five bugs of issue 38");
}

#[test]
fn a_students_crash_inside_a_hook_is_the_students_crash() {
    let upload = design004_upload("crash-in-try-to-move");
    let out = chessgrade(&[
        "grade",
        "--submission",
        upload.to_str().unwrap(),
        "--adapter",
        design004_hooks().to_str().unwrap(),
        "scenarios/design004/history-undo-normal-move-puts-the-piece-back",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let scenario = &helpers::scenarios(&report)[0];
    assert_eq!(scenario["status"], "fail");
    assert_eq!(scenario["class"], "crash");
    // The first move to an empty square, Ng1-f3, is where it crashed.
    assert_eq!(scenario["line"], 10);
    assert!(
        scenario["message"].as_str().unwrap().contains("SIGSEGV"),
        "{scenario}"
    );
}

/// A course folder in a temporary folder: seed 004's headers, and its hook
/// file changed by `change` (the text to replace, and by what).
fn course_with_hooks(change: (&str, &str)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(root().join("adapters/design004")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "h") {
            std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    let hooks = std::fs::read_to_string(design004_hooks()).unwrap();
    assert!(hooks.contains(change.0), "{}", change.0);
    std::fs::write(
        dir.path().join("hooks.cc"),
        hooks.replace(change.0, change.1),
    )
    .unwrap();
    dir
}

/// `grade` of the correct seed 004 upload with the hook file `hooks` on
/// `scenarios`.
fn grade_with_hooks(hooks: &Path, scenarios: &str) -> std::process::Output {
    let upload = design004_upload("design004-correct");
    chessgrade(&[
        "grade",
        "--submission",
        upload.to_str().unwrap(),
        "--adapter",
        hooks.to_str().unwrap(),
        scenarios,
    ])
}

/// `grade` through seed 004's hook file changed by `change`, which is
/// refused before any upload is built or any scenario run (exit 2): the
/// error, the hook file and its course folder.
fn refused_hook_file(change: (&str, &str)) -> (String, PathBuf, tempfile::TempDir) {
    let course = course_with_hooks(change);
    let hooks = course.path().join("hooks.cc");
    let out = grade_with_hooks(
        &hooks,
        "scenarios/design004/point-gives-its-coordinates-back",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        !err.contains("compile:") && stdout(&out).is_empty(),
        "{err}"
    );
    (err, hooks, course)
}

#[test]
fn a_hook_file_without_a_required_hook_is_the_staffs_error_naming_the_hook() {
    let (err, hooks, _course) =
        refused_hook_file(("char piece_at(Square at)", "char piece_on(Square at)"));
    assert!(
        err.contains(&format!(
            "error: --adapter {}: the hook file does not define the required hook `piece_at`",
            hooks.display()
        )),
        "{err}"
    );
    // docs/course-classes.md shows this line, the hook file at `course/`.
    let line = err
        .lines()
        .find(|l| l.contains("`piece_at`"))
        .unwrap()
        .replace(&hooks.display().to_string(), "course/hooks.cc");
    let chapter = std::fs::read_to_string(root().join("docs/course-classes.md")).unwrap();
    assert!(chapter.lines().any(|l| l == line), "{line}");
}

#[test]
fn the_chapters_code_is_seed_004s_hook_file_as_it_is() {
    let chapter = std::fs::read_to_string(root().join("docs/course-classes.md")).unwrap();
    let hooks = std::fs::read_to_string(design004_hooks()).unwrap();
    let file: Vec<&str> = hooks.lines().collect();
    let mut blocks = 0;
    for block in chapter.split("```cpp\n").skip(1) {
        let lines: Vec<&str> = block.split("\n```").next().unwrap().lines().collect();
        assert!(
            file.windows(lines.len()).any(|w| w == lines.as_slice()),
            "not in adapters/design004/hooks.cc as it is:\n{}",
            lines.join("\n")
        );
        blocks += 1;
    }
    assert_eq!(blocks, 3);
}

#[test]
fn a_hook_file_that_does_not_compile_is_the_staffs_error_with_the_compilers_message() {
    let (err, hooks, course) =
        refused_hook_file(("return board->UndoLastMove();", "return board->Undo();"));
    assert!(
        err.contains(&format!(
            "error: --adapter {}: the hook file does not compile against the course's headers (11 in {})",
            hooks.display(),
            course.path().display()
        )),
        "{err}"
    );
    // The compiler's own words, at the hook file's line.
    assert!(
        err.contains(&format!("{}:", hooks.display()))
            && err.contains("has no member named")
            && err.contains("Undo"),
        "{err}"
    );
}

#[test]
fn a_hook_answering_garbage_is_the_staffs_error_naming_the_hook() {
    // The hook writes 'x' for every king: no piece letter.
    let course = course_with_hooks(("kind = 'k';", "kind = 'x';"));
    let hooks = course.path().join("hooks.cc");
    let scenario = "scenarios/design004/history-undo-normal-move-puts-the-piece-back";
    let out = grade_with_hooks(&hooks, scenario);
    let (out_text, err) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(2), "{out_text}{err}");
    assert!(
        out_text.contains(
            "not gradable through the course's hook file: the hook file's `piece_at` hook answered character 120 ('x') for row 0 column 4, which is no piece: the hook answers '.', '?' or one of KQRBNPkqrbnp (asked `BOARD`)"
        ),
        "{out_text}"
    );
    assert!(
        out_text.contains("0 passed, 0 failed, 1 input errors"),
        "{out_text}"
    );
}

/// The project `dir`'s scenarios (their snapshots written by the
/// reference engine first) graded on the correct seed 004 upload through
/// the hook file `hooks`.
fn grade_project(dir: &tempfile::TempDir, hooks: &Path) -> std::process::Output {
    let run = helpers::output(helpers::command(dir.path()).args(["run", "--accept", "-q"]));
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let upload = design004_upload("design004-correct");
    helpers::output(helpers::command(dir.path()).args([
        "grade",
        "--submission",
        upload.to_str().unwrap(),
        "--adapter",
        hooks.to_str().unwrap(),
        "-q",
    ]))
}

#[test]
fn scenarios_the_courses_classes_cannot_run_are_the_staffs_errors_with_the_reason() {
    let dir = helpers::project(&[
        (
            "t/threats.txt",
            b"@rules standard\n1\nfen 4k3/8/8/8/8/8/8/4K3 w - - 0 1\n~\nmovePiece 7 4 6 4\nunderThreatScan\n",
        ),
        (
            "t/lab3.txt",
            b"1\n8 8\nw k 7 4\nb k 0 4\n~\nisValidScan\n",
        ),
        (
            "t/rights.txt",
            b"@rules standard\n1\n8 8\nw k 7 4\nw r 7 7\nb k 0 4\n~\nisValidScan\n",
        ),
        (
            "t/size.txt",
            b"@rules standard\n1\n6 6\nw k 5 4\nb k 0 4\n~\nisValidScan\n",
        ),
        (
            "t/black.txt",
            b"@rules standard\n1\nfen 4k3/8/8/8/8/8/8/4K3 b - - 0 1\n~\nisValidScan\n",
        ),
    ]);
    let out = grade_project(&dir, &design004_hooks());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{text}{}", stderr(&out));
    let why = "not gradable through the course's hook file";
    for line in [
        format!(
            "scenarios/t/black.txt: {why}: Black to move first: the kit sets no side to move (the course's classes start with White) (asked `FEN 4k3/8/8/8/8/8/8/4K3 b - - 0 1`)"
        ),
        format!(
            "scenarios/t/lab3.txt: {why}: seed 004's classes play standard chess only (asked `RULES lab3`)"
        ),
        format!(
            "scenarios/t/rights.txt: {why}: the setup's castling rights are `-`, but a placed piece has not moved, so its kings and rooks on their home squares may castle `K`: set it up with a FEN whose castling field is `K` (asked `BOARD`)"
        ),
        format!("scenarios/t/size.txt: {why}: seed 004's Board is 8x8 (asked `NEW 6 6`)"),
        format!(
            "scenarios/t/threats.txt:6:1: {why}: the hook file defines no `threatened` hook (isPieceUnderThreat: THREAT, SCAN THREAT) (asked `SCAN THREAT`)"
        ),
    ] {
        assert!(text.contains(&line), "{line}\nnot in:\n{text}");
    }
    assert!(
        text.contains("0 passed, 0 failed, 5 input errors"),
        "{text}"
    );
}

#[test]
fn steps_no_hook_answers_are_refused_before_anything_is_built() {
    let dir = helpers::project(&[
        (
            "s/move.txt",
            b"@rules standard\n1\nfen 4k3/8/8/8/8/8/8/4K3 w - - 0 1\n~\nmove e1e2\n",
        ),
        (
            "s/status.txt",
            b"@rules standard\n1\nfen 4k3/8/8/8/8/8/8/4K3 w - - 0 1\n~\nmovePiece 7 4 6 4\nstatus\n",
        ),
        (
            "s/fine.txt",
            b"@rules standard\n1\nfen 4k3/8/8/8/8/8/8/4K3 w - - 0 1\n~\nundo\n",
        ),
    ]);
    // The hook file is never read: the scenarios are refused first.
    let out = grade_project(&dir, Path::new("/nonexistent/hooks.cc"));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        [
            "error: scenarios/s/move.txt: not gradable through a course's hook file: line 5: a `move` step (its refusal reason is no hook's answer: write it as movePiece)",
            "error: scenarios/s/status.txt: not gradable through a course's hook file: line 6: `status`, which no hook of the adapter kit answers",
            "error: 2 scenario(s) cannot be put to a course's classes through the adapter kit; nothing was built",
        ]
    );
}

#[test]
fn a_hook_file_that_is_not_there_is_the_staffs_error() {
    let out = chessgrade(&[
        "grade",
        "--submission",
        design004_upload("design004-correct").to_str().unwrap(),
        "--adapter",
        "/nonexistent/hooks.cc",
        "scenarios/design004/point-gives-its-coordinates-back",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("error: --adapter /nonexistent/hooks.cc: "),
        "{err}"
    );
    // A console program cannot be graded through hooks.
    let out = chessgrade(&[
        "grade",
        "--submission",
        design004_upload("design004-correct").to_str().unwrap(),
        "--adapter",
        design004_hooks().to_str().unwrap(),
        "--build",
        "make",
        "scenarios/design004/point-gives-its-coordinates-back",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--adapter grades a course's C++ classes through its hook file"),
        "{}",
        stderr(&out)
    );
}

/// The kit over seed 004's classes, spoken to directly (outside a
/// session, one request at a time as the front serves them): what it
/// refuses as the staff's (`ERR unsupported: ...`), what it answers
/// without asking the classes, and what it asks them.
#[test]
fn the_kit_refuses_what_the_hooks_cannot_serve_and_answers_the_rest() {
    let session: &[(&str, &str)] = &[
        ("HELLO 2", "HELLO 2 caps=scan,fork name=chessgrade-kit"),
        (
            "RULES standard castling=none",
            "ERR unsupported: the rule set `standard` changed (`castling=none` ...): the course's classes play their own rules, which a hook file cannot change",
        ),
        (
            "RULES lab3",
            "ERR unsupported: seed 004's classes play standard chess only",
        ),
        ("RULES standard", "OK"),
        ("NEW 6 6", "ERR unsupported: seed 004's Board is 8x8"),
        (
            "FEN 4k3/8/8/8/8/8/8/4K3 b - - 0 1",
            "ERR unsupported: Black to move first: the kit sets no side to move (the course's classes start with White)",
        ),
        (
            "FEN 4k3/8/8/8/8/8/8/4K3 w - e3 0 1",
            "ERR unsupported: an en-passant square in the setup (`e3`): a placed piece has not moved",
        ),
        (
            "FEN 4k3/8/8/8/8/8/8/4A3 w - - 0 1",
            "ERR unsupported: a piece `A` (a Mystery piece, or a rule file's): the kit places the six chess pieces only",
        ),
        ("FEN 4k3/8/8//8/8/8/4K3 w - - 0 1", "ERR bad FEN"),
        // Kings and rooks at home give the rights the FEN says.
        ("FEN r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1", "OK"),
        (
            "BOARD",
            "BOARD r...k.../......../......../......../......../......../......../....K..R",
        ),
        ("NEW 8 8", "OK"),
        ("PLACE w k 7 4", "OK"),
        ("PLACE w r 7 7", "OK"),
        (
            "PLACE w a 0 0",
            "ERR unsupported: a piece `a` (a Mystery piece, or a rule file's): the kit places the six chess pieces only",
        ),
        ("PLACE w 1 0 0", "ERR bad piece"),
        // NEW gives no castling rights under `standard`; the king and rook
        // placed at home would castle.
        (
            "BOARD",
            "ERR unsupported: the setup's castling rights are `-`, but a placed piece has not moved, so its kings and rooks on their home squares may castle `K`: set it up with a FEN whose castling field is `K`",
        ),
        (
            "PLAY 7 4 7 5",
            "ERR unsupported: `move` steps need a refused move's reason, which no hook gives: use movePiece steps",
        ),
        (
            "STATUS",
            "ERR unsupported: no hook tells check, mate or stalemate (`status`)",
        ),
        (
            "THREAT 7 4",
            "ERR unsupported: the hook file defines no `threatened` hook (isPieceUnderThreat: THREAT, SCAN THREAT)",
        ),
        ("VALID 7 4 9 9", "0"),
        ("VALID 7 4 7 5", "1"),
        ("MOVE 7 4 7 5", "1"),
        ("UNDO", "1"),
        ("UNDO", "0"),
        ("REDO", "1"),
        (
            "BOARD",
            "BOARD ......../......../......../......../......../......../......../.....K.R",
        ),
        ("FROB", "ERR unknown request"),
    ];
    let mut input = String::new();
    for (request, _) in session {
        input.push_str(request);
        input.push('\n');
    }
    input.push_str("QUIT\n");
    let mut engine = std::process::Command::new(design004_engine("design004-correct"));
    let out = helpers::output_with_input(engine.stderr(std::process::Stdio::null()), &input);
    assert!(out.status.success());
    let answers = String::from_utf8(out.stdout).unwrap();
    let answers: Vec<&str> = answers.lines().collect();
    let expected: Vec<&str> = session.iter().map(|(_, answer)| *answer).collect();
    assert_eq!(answers, expected);
}
