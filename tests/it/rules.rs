//! A course's own rules end to end through the binary (docs/course-rules.md):
//! a folder's `rules.toml`, `--rules`, a scenario's `@rules FILE`, several
//! rule files in one run, bad rule files as located errors (exit 2, the
//! rest of the batch going on), `rules show` read back, and every other
//! command that takes a rule set: `trace`, `perft`, `serve`, `explain`, and
//! grading a Lab 3 upload and protocol engines under a course's rules.

use crate::helpers::{self, command, lab3_engine, output, project, stderr, stdout};
use std::path::Path;
use std::process::Output;

fn run(dir: &Path, args: &[&str]) -> Output {
    output(command(dir).args(args).env("NO_COLOR", "1"))
}

/// A Lab 3 scenario that a pawn's double step decides: White's pawn on
/// row 6 asks for row 4.
const DOUBLE_STEP: &str = "1\n8 8\nw k 7 4\nb k 0 4\nw p 6 0\n~\nmovePiece 6 0 4 0\n";
const NO_DOUBLE_STEP: &str =
    "extends = \"lab3\"\nname = \"lab3 without double steps\"\ndouble_step = false\n";

#[test]
fn a_folder_file_changes_its_family_below_it_and_the_snapshot_follows() {
    let dir = project(&[
        ("course/rules.toml", NO_DOUBLE_STEP.as_bytes()),
        ("course/pawns/double.txt", DOUBLE_STEP.as_bytes()),
        ("other/double.txt", DOUBLE_STEP.as_bytes()),
    ]);
    let out = run(dir.path(), &["run", "--accept"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let snap =
        |name: &str| std::fs::read_to_string(dir.path().join("snapshots").join(name)).unwrap();
    // Under the course's file the double step is refused; elsewhere it is lab3's.
    let course = snap("scenario@course__pawns__double.txt.snap");
    assert!(course.contains("L7 movePiece 6 0 4 0 = 0"), "{course}");
    let other = snap("scenario@other__double.txt.snap");
    assert!(other.contains("L7 movePiece 6 0 4 0 = 1"), "{other}");
    // The same file named by --rules gives the same answers: no conflict.
    std::fs::write(dir.path().join("flag.toml"), NO_DOUBLE_STEP).unwrap();
    let out = run(
        dir.path(),
        &["run", "--rules", "flag.toml", "scenarios/course"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // --rules applies to every lab3 scenario: `other` now disagrees with its snapshot.
    let out = run(
        dir.path(),
        &["run", "--rules", "flag.toml", "scenarios/other"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}

#[test]
fn a_flag_and_a_folder_file_that_disagree_are_the_scenario_s_error() {
    let dir = project(&[
        ("course/rules.toml", NO_DOUBLE_STEP.as_bytes()),
        ("course/double.txt", DOUBLE_STEP.as_bytes()),
    ]);
    std::fs::write(
        dir.path().join("ep.toml"),
        "extends = \"lab3\"\nen_passant = true\n",
    )
    .unwrap();
    let out = run(dir.path(), &["run", "--rules", "ep.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let text = stdout(&out);
    assert!(
        text.contains("two rule files for this lab3 scenario disagree"),
        "{text}"
    );
    assert!(
        text.contains("ep.toml") && text.contains("course/rules.toml"),
        "{text}"
    );
}

#[test]
fn bad_rule_files_are_located_errors_and_the_batch_goes_on() {
    let dir = project(&[
        ("bad/rules.toml", b"extends = \"lab3\"\nen_pasant = true\n"),
        ("bad/a.txt", DOUBLE_STEP.as_bytes()),
        ("bad/b.txt", DOUBLE_STEP.as_bytes()),
        ("good/c.txt", DOUBLE_STEP.as_bytes()),
        (
            "named/d.txt",
            b"@rules pieces.toml\n1\nfen 4k3/8/8/8/8/8/8/A3K3 w - - 0 1\n~\nisValidScan\n",
        ),
        (
            "named/pieces.toml",
            b"extends = \"standard\"\n[pieces.A]\nbetza = \"BX\"\n",
        ),
    ]);
    let out = run(dir.path(), &["run", "--accept"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let text = stdout(&out);
    // Each scenario under the bad file names the file, line and column
    // (and the recap at the end says it again).
    for scenario in ["bad/a.txt", "bad/b.txt"] {
        let at = text
            .find(&format!("ERR   0/0   {scenario}"))
            .expect(scenario);
        let next = &text[at..].lines().nth(1).unwrap_or("");
        assert!(
            next.trim_start()
                .starts_with("scenarios/bad/rules.toml:2:1: unknown key `en_pasant`"),
            "{text}"
        );
    }
    assert!(
        text.contains("scenarios/named/pieces.toml:3:11: `X` is not a Betza atom"),
        "{text}"
    );
    assert!(text.contains("NEW   1/1   good/c.txt"), "{text}");
    // A bad --rules file is the staff's error before anything runs.
    std::fs::write(
        dir.path().join("flag.toml"),
        "extends = \"lab3\"\npromotion = \"QZ\"\n",
    )
    .unwrap();
    let out = run(
        dir.path(),
        &["run", "--rules", "flag.toml", "scenarios/good"],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("flag.toml:2:15: a pawn cannot promote to `Z`"),
        "{err}"
    );
    assert!(!stdout(&out).contains("PASS"), "{}", stdout(&out));
}

#[test]
fn scenarios_of_several_rule_files_in_one_run_each_use_their_own() {
    let capablanca =
        std::fs::read(helpers::root().join("scenarios/variants/capablanca.toml")).unwrap();
    let amazon = std::fs::read(helpers::root().join("scenarios/variants/amazon.toml")).unwrap();
    let dir = project(&[
        ("v/capablanca.toml", &capablanca),
        ("v/amazon.toml", &amazon),
        (
            "v/capa.txt",
            b"@rules capablanca.toml\n1\nfen rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1\n~\nperft 2\n",
        ),
        (
            "v/amazon.txt",
            b"@rules amazon.toml\n1\nfen rnbakbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBAKBNR w KQkq - 0 1\n~\nperft 2\n",
        ),
    ]);
    let out = run(dir.path(), &["run", "--accept"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let snap =
        |name: &str| std::fs::read_to_string(dir.path().join("snapshots").join(name)).unwrap();
    // Fairy-Stockfish's counts (tests/it/variants.rs checks them at depth 3).
    assert!(snap("scenario@v__capa.txt.snap").contains("perft 2 = 784"));
    assert!(snap("scenario@v__amazon.txt.snap").contains("perft 2 = 484"));
}

#[test]
fn rules_show_prints_a_file_that_reads_back_and_perft_and_trace_take_files() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["lab3", "standard", "cuhk", "jhu"] {
        let out = run(dir.path(), &["rules", "show", name]);
        assert_eq!(out.status.code(), Some(0));
        let path = dir.path().join(format!("{name}.toml"));
        std::fs::write(&path, stdout(&out)).unwrap();
        // Read back: the same file again.
        let again = run(dir.path(), &["rules", "show", path.to_str().unwrap()]);
        assert_eq!(stdout(&again), stdout(&out), "{name}");
    }
    let out = run(dir.path(), &["rules", "show", "chess960"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown rule set `chess960`"),
        "{}",
        stderr(&out)
    );
    let capa = helpers::root().join("scenarios/variants/capablanca.toml");
    let out = run(
        dir.path(),
        &["perft", "--rules", capa.to_str().unwrap(), "--depth", "2"],
    );
    assert_eq!(stdout(&out).trim(), "Nodes searched: 784");
    let scenario = dir.path().join("s.txt");
    std::fs::write(
        &scenario,
        format!(
            "@rules {}\n1\nfen 4k5/10/10/10/10/10/10/4KA4 w - - 0 1\n~\nmove f1h3\nmove e8d8\nmove h3g5\n",
            capa.display()
        ),
    )
    .unwrap();
    let out = run(dir.path(), &["trace", scenario.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let trace = stdout(&out);
    // The archbishop: a bishop's move, then a knight's.
    assert!(trace.contains("L5 move f1h3 = 1"), "{trace}");
    assert!(trace.contains("L7 move h3g5 = 1"), "{trace}");
}

#[test]
fn protocol_engines_are_told_the_rules_or_cannot_play_them() {
    let capa = helpers::root().join("scenarios/variants/capablanca.toml");
    let dir = project(&[(
        "v/capa.txt",
        format!(
            "@rules {}\n1\nfen 4k5/10/10/10/10/10/10/4KA4 w - - 0 1\n~\nmove f1h3\nperft 2\nisValidScan\n",
            capa.display()
        )
        .as_bytes(),
    )]);
    let out = run(dir.path(), &["run", "--accept"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // The reference engine behind `serve` declares `rules`: it plays them.
    let serve = format!("{} serve", helpers::bin());
    let out = run(dir.path(), &["grade", "--engine", &serve]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // The example Python engine does not: the scenario is unsupported there.
    let python = helpers::root().join("adapters/python-engine/engine.py");
    let python = format!("python3 {}", python.display());
    let out = run(dir.path(), &["grade", "--engine", &python]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("without the `rules` capability"), "{text}");
}

#[test]
fn a_lab3_upload_is_graded_on_the_course_s_rules_which_its_code_implements() {
    let dir = project(&[
        ("course/rules.toml", NO_DOUBLE_STEP.as_bytes()),
        ("course/double.txt", DOUBLE_STEP.as_bytes()),
    ]);
    let out = run(dir.path(), &["run", "--accept"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // The course's rules say no double step: the upload that forgets it is right.
    let mutant = lab3_engine("lab3-mutant-no-double-step");
    let out = run(dir.path(), &["grade", "--engine", &mutant]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let correct = lab3_engine("lab3-correct");
    let out = run(dir.path(), &["grade", "--engine", &correct]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    // A rule the Lab 3 interface cannot say: a staff error before any build.
    let promoting = "extends = \"lab3\"\npromotion = \"QR\"\n";
    std::fs::write(dir.path().join("scenarios/course/rules.toml"), promoting).unwrap();
    let upload = helpers::submission("lab3-correct");
    let out = run(
        dir.path(),
        &["grade", "--submission", upload.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("promote to QR"), "{}", stderr(&out));
}
