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
    // The failure names the rules it was judged under, as the JSON report
    // does for every scenario.
    let text = stdout(&out);
    assert!(
        text.contains("other/double.txt [")
            && text.contains("s]\n      under the rules `lab3 without double steps`\n"),
        "{text}"
    );
    let out = run(dir.path(), &["run", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules: Vec<_> = report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["rules"].as_str().unwrap()))
        .collect();
    assert_eq!(
        rules,
        [
            ("course/pawns/double.txt", "lab3 without double steps"),
            ("other/double.txt", "lab3")
        ]
    );
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
    // One error, its source excerpt under it as the compiler shows one.
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    assert!(
        err.ends_with("\n  |\n2 | promotion = \"QZ\"\n  |               ^\n"),
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

const CHAPTER: &str = "docs/course-rules.md";

/// The `$` excerpt of the chapter whose command starts with `start`.
fn chapter_excerpt(start: &str) -> (String, Vec<String>) {
    let found: Vec<_> = crate::readme::every_excerpt(CHAPTER)
        .into_iter()
        .filter(|(cmd, _)| cmd.starts_with(start))
        .collect();
    assert_eq!(found.len(), 1, "one `$ {start}...` in {CHAPTER}");
    found.into_iter().next().unwrap()
}

/// Runs the chapter's excerpt `start` in `dir` (its command as written,
/// `chessgrade` being the built one) and checks what it printed against
/// the lines shown (`...` skips lines, times ignored).
fn rerun_excerpt(dir: &Path, start: &str, code: i32) -> String {
    let (cmd, expected) = chapter_excerpt(start);
    let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
    let out = run(dir, &args);
    assert_eq!(out.status.code(), Some(code), "{cmd}: {}", stderr(&out));
    let printed = format!("{}{}", stdout(&out), stderr(&out));
    let actual = crate::readme::actual_lines(&printed);
    if let Err(why) = crate::readme::matches(&expected, &actual) {
        panic!("{CHAPTER}: `$ {cmd}`: not what it prints: {why}\n--- printed:\n{printed}");
    }
    printed
}

/// "Your course's rules", "A rule change, end to end": every step as the
/// chapter shows it, in a copy of the Lab 3 suite: the printed file, the
/// two changed lines, the new scenario (the chapter's own text), the
/// update that writes exactly its snapshot, the review's lines, and a
/// class of last term's uploads graded under the new rules.
#[test]
fn the_chapter_s_rule_change_runs_as_it_shows() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let suite = helpers::root().join("scenarios/lab3");
    for entry in walkdir::WalkDir::new(&suite) {
        let entry = entry.unwrap();
        let to = d
            .join("scenarios/lab3")
            .join(entry.path().strip_prefix(&suite).unwrap());
        match entry.file_type().is_dir() {
            true => std::fs::create_dir_all(&to).unwrap(),
            false => drop(std::fs::copy(entry.path(), &to).unwrap()),
        }
    }
    std::fs::create_dir_all(d.join("snapshots")).unwrap();
    for e in std::fs::read_dir(helpers::root().join("snapshots")).unwrap() {
        let p = e.unwrap().path();
        if p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("scenario@lab3__")
        {
            std::fs::copy(&p, d.join("snapshots").join(p.file_name().unwrap())).unwrap();
        }
    }
    // 1. The built-in set, printed.
    let printed = rerun_excerpt(d, "chessgrade rules show lab3", 0);
    // 2. The chapter's two changed lines, in the printed file.
    let text = std::fs::read_to_string(helpers::root().join(CHAPTER)).unwrap();
    assert!(text.contains("```toml\nname = \"lab3 with en passant\"\nen_passant = true\n```"));
    let file: String = printed
        .lines()
        .map(|l| match l.split_whitespace().next() {
            Some("name") => "name = \"lab3 with en passant\"".to_string(),
            Some("en_passant") => "en_passant = true".to_string(),
            _ => l.to_string(),
        })
        .map(|l| l + "\n")
        .collect();
    std::fs::write(d.join("scenarios/lab3/rules.toml"), file).unwrap();
    // 3. The new scenario, as the chapter writes it.
    let start = text
        .find("// This term's rule")
        .expect("the scenario in the chapter");
    let scenario = &text[start..start + text[start..].find("```").unwrap()];
    let name = "scenarios/lab3/pawns/en_passant_only_right_after_the_double_step.txt";
    std::fs::write(d.join(name), scenario).unwrap();
    rerun_excerpt(d, "chessgrade run --update scenarios/lab3", 0);
    let pending: Vec<_> = std::fs::read_dir(d.join("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".snap.new"))
        .collect();
    assert_eq!(
        pending,
        ["scenario@lab3__pawns__en_passant_only_right_after_the_double_step.txt.snap.new"]
    );
    // 4. The review reads the lines the chapter quotes.
    let new = std::fs::read_to_string(d.join("snapshots").join(&pending[0])).unwrap();
    for line in [
        "L19 movePiece 3 4 2 5 = 1",
        "L15 movePiece 3 4 2 3 = 0",
        "  V 3 4 2 5",
    ] {
        assert!(new.contains(line), "{line}\n{new}");
    }
    assert!(
        new.contains("  B ......../....k.../.....P../...p..../"),
        "{new}"
    );
    let out = run(d, &["run", "--accept", "scenarios/lab3"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // 5. Last term's uploads, graded under the new rules.
    for upload in ["lab3-correct", "lab3-mutant-no-double-step"] {
        helpers::copy_dir(&helpers::submission(upload), &d.join("class").join(upload));
    }
    rerun_excerpt(
        d,
        "chessgrade grade --class class/ scenarios/lab3/pawns -q",
        1,
    );
}

/// Issue 36: each built-in set, printed by `rules show` and read back as a
/// rule file in its place, gives every bundled scenario's snapshot
/// unchanged (the four files at once, each for its own family).
#[test]
fn the_built_in_sets_read_back_from_their_files_keep_every_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["run".to_string(), "-q".to_string()];
    for name in ["lab3", "standard", "cuhk", "jhu"] {
        let out = run(dir.path(), &["rules", "show", name]);
        let file = dir.path().join(format!("{name}.toml"));
        std::fs::write(&file, stdout(&out)).unwrap();
        args.extend(["--rules".to_string(), file.display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(helpers::root(), &args);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    let bundled = walkdir::WalkDir::new(helpers::root().join("scenarios"))
        .into_iter()
        .filter(|e| e.as_ref().unwrap().path().extension() == Some("txt".as_ref()))
        .count();
    assert!(
        text.contains(&format!("ok: {bundled} passed, 0 failed")),
        "{text}"
    );
}
