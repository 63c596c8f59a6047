//! Recording snapshots (issue 36, items 4 and 5): `run --update` after a
//! rule change writes exactly the snapshots whose answers changed and says
//! what changed, in files `cargo insta` accepts; and `run --update
//! --submission REF/` (`--engine CMD`) records them from the course's own
//! reference, each saying who wrote it, writing nothing where the
//! reference fails. The excerpts of docs/running.md and docs/grading.md
//! are these runs, rerun here and checked line by line.

use crate::docs_commands::Course;
use crate::helpers::{self, lab3_engine, root, scenarios};
use chessgrade::snapshot::{RecordedBy, ReferenceKind, Snapshot};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

const RUNNING: &str = "docs/running.md";
const GRADING: &str = "docs/grading.md";

/// The `$` excerpt of `doc` whose command starts with `start`: the command
/// and the lines shown under it.
fn excerpt(doc: &str, start: &str) -> (String, Vec<String>) {
    let found: Vec<(String, Vec<String>)> = crate::readme::every_excerpt(doc)
        .into_iter()
        .filter(|(cmd, _)| cmd.starts_with(start))
        .collect();
    assert_eq!(found.len(), 1, "{doc}: one `$ {start}...`: {found:?}");
    found.into_iter().next().unwrap()
}

/// Runs `doc`'s excerpt starting with `start` in the course folder, wants
/// exit `code`, and checks what it printed against the lines the doc shows
/// (`...` skips lines, times ignored, as `readme.rs` checks).
fn rerun(c: &Course, doc: &str, start: &str, code: i32) -> String {
    let (cmd, expected) = excerpt(doc, start);
    let cmd = cmd.split("  #").next().unwrap().trim_end();
    let out = c.run(cmd, code);
    let actual = crate::readme::actual_lines(&out);
    if let Err(why) = crate::readme::matches(&expected, &actual) {
        panic!("{doc}: `$ {cmd}`: the excerpt is not what it prints: {why}\n--- printed:\n{out}");
    }
    out
}

/// Each file of `dir`: its bytes and when it was last written.
fn files(dir: &Path) -> BTreeMap<String, (Vec<u8>, SystemTime)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let modified = std::fs::metadata(&p).unwrap().modified().unwrap();
            (name, (std::fs::read(&p).unwrap(), modified))
        })
        .collect()
}

/// The `.snap.new` files of `dir`.
fn pending(dir: &Path) -> BTreeSet<String> {
    files(dir)
        .into_keys()
        .filter(|n| n.ends_with(".snap.new"))
        .collect()
}

/// What `cargo insta accept` does to each pending snapshot of `dir`
/// (cargo-insta's `commit`: the `.snap.new` read with insta's own parser
/// and saved over the `.snap`, then removed), checking on the way that
/// insta reads each as the snapshot of its scenario's trace and writes it
/// back byte for byte.
fn insta_accept(dir: &Path) {
    for name in pending(dir) {
        let new = dir.join(&name);
        let text = std::fs::read_to_string(&new).unwrap();
        let ours = Snapshot::parse(&text);
        let theirs = insta::Snapshot::from_file(&new)
            .unwrap_or_else(|e| panic!("insta cannot read {}: {e}", new.display()));
        let body = theirs.contents().as_text().expect("a text snapshot");
        assert_eq!(body.to_string(), ours.body.trim_end(), "{name}");
        assert_eq!(theirs.metadata().expression(), Some("trace"), "{name}");
        let input = theirs.metadata().input_file().expect("its scenario");
        assert!(input.ends_with(".txt"), "{name}: {input}");
        let target = new.with_extension("");
        theirs.save(&target).unwrap();
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            text,
            "{name}: insta writes the accepted snapshot as chessgrade wrote it"
        );
        std::fs::remove_file(&new).unwrap();
    }
}

/// `sha256sum`'s listing of a plain folder's files, hashed again: the
/// command docs/grading.md tells a reviewer to run (`cd REF && ...`), run
/// on `dir`.
fn folder_hash(c: &Course, dir: &str) -> String {
    let doc = std::fs::read_to_string(root().join(GRADING)).unwrap();
    let lines: Vec<&str> = doc
        .lines()
        .filter(|l| l.starts_with("cd REF && "))
        .collect();
    assert_eq!(lines.len(), 1, "{GRADING}: one `cd REF && ...` line");
    let command = lines[0].split("  #").next().unwrap().trim_end();
    let out = c.run(&command.replacen("REF", dir, 1), 0);
    out.split_whitespace().next().unwrap().to_string()
}

/// The scenarios of a JSON report that did not pass.
fn not_passed(report: &serde_json::Value) -> BTreeSet<String> {
    scenarios(report)
        .iter()
        .filter(|s| s["status"] != "pass")
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn after_a_rule_change_update_writes_exactly_the_changed_snapshots_and_says_what_changed() {
    // The course's scenarios: a copy of the bundled lab3 suite, folders and all.
    let c = Course::with_scenarios(&["lab3/pawns"]);
    let lab3 = root().join("scenarios/lab3");
    c.run(
        &format!(
            "rm -r scenarios/lab3 && cp -r {} scenarios/lab3",
            lab3.display()
        ),
        0,
    );
    c.own_snapshots();
    let snapshots = c.path("snapshots");
    let before = files(&snapshots);
    // What should change, from an independent implementation of the new
    // rules: the C++ fixture whose pawns never advance two squares fails
    // exactly the scenarios whose answers a rule file without the double
    // step changes.
    let mutant = lab3_engine("lab3-mutant-no-double-step");
    c.run(
        &format!(
            "chessgrade grade --engine {mutant} scenarios/lab3 --format json --output old.json"
        ),
        1,
    );
    let changed = not_passed(&c.json("old.json"));
    assert_eq!(changed.len(), 15, "{changed:?}");
    // The rule change, as docs/running.md makes it, and the update.
    let (rule_file, _) = excerpt(RUNNING, "chessgrade rules show lab3");
    c.run(&rule_file, 0);
    rerun(&c, RUNNING, "chessgrade run --update", 0);
    let expected: BTreeSet<String> = changed
        .iter()
        .map(|name| format!("scenario@{}.snap.new", name.replace('/', "__")))
        .collect();
    assert_eq!(pending(&snapshots), expected);
    // No snapshot was rewritten, nor any other file touched, and a second
    // update rewrites nothing either (the JSON report of it).
    c.run(
        "chessgrade run --update scenarios/lab3 --rules no-double-step.toml --format json --output r.json",
        0,
    );
    let after = files(&snapshots);
    for (name, old) in &before {
        assert_eq!(after.get(name), Some(old), "{name} was touched");
    }
    assert_eq!(after.len(), before.len() + 15);
    // The JSON report: the tally, and each scenario's changed steps.
    let report = c.json("r.json");
    assert_eq!(report["changes"]["changed"], 15);
    assert_eq!(report["changes"]["new"], 0);
    let groups: Vec<(String, u64, u64)> = report["changes"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["group"].as_str().unwrap().to_string(),
                g["scenarios"].as_u64().unwrap(),
                g["steps"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = |g: &str, s, n| (g.to_string(), s, n);
    assert_eq!(
        groups,
        [
            want("move_now_refused", 7, 11),
            want("scan_squares", 14, 19),
            want("board", 1, 1),
        ]
    );
    let double = scenarios(&report)
        .iter()
        .find(|s| s["name"] == "lab3/pawns/double_step_from_start_rows.txt")
        .unwrap();
    assert_eq!(double["status"], "updated");
    let steps: Vec<(u64, &str, &str)> = double["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|ch| {
            (
                ch["line"].as_u64().unwrap(),
                ch["kind"].as_str().unwrap(),
                ch["what"].as_str().unwrap(),
            )
        })
        .collect();
    // Row 1's pawn (Black's) and row 4's (White's on a 6-row board) lose
    // their double steps: the scan misses them, both moves are refused,
    // and the later scan sees the pawns where they stayed.
    assert_eq!(
        steps[..3],
        [
            (
                12,
                "scan_squares",
                "0 added, 2 removed: -V 1 0 3 0, -V 4 4 2 4"
            ),
            (13, "move_now_refused", "now refused (was valid)"),
            (14, "move_now_refused", "now refused (was valid)"),
        ]
    );
    assert_eq!(steps[3].1, "scan_squares");
    assert!(
        scenarios(&report)
            .iter()
            .filter(|s| s["status"] == "pass")
            .all(|s| s.get("changes").is_none())
    );
    // `cargo insta accept` takes them as they are; then all pass under the
    // new rules, and the fixture of the new rules passes all of them.
    insta_accept(&snapshots);
    let out = c.run(
        "chessgrade run scenarios/lab3 --rules no-double-step.toml",
        0,
    );
    assert!(out.contains("ok: 91 passed, 0 failed"), "{out}");
    c.run(
        &format!(
            "chessgrade grade --engine {mutant} scenarios/lab3 --format json --output new.json"
        ),
        0,
    );
    assert_eq!(not_passed(&c.json("new.json")), BTreeSet::new());
}

#[test]
fn recorded_from_the_correct_lab3_upload_the_snapshots_are_the_courses_answers() {
    let Some(corpus) = helpers::shared("lab3-course") else {
        return;
    };
    // Built once per run (and so in the build cache `run` reads).
    lab3_engine("lab3-correct");
    let mutant = lab3_engine("lab3-mutant-no-double-step");
    let c = Course::new();
    rerun(
        &c,
        GRADING,
        "chessgrade run --update --submission tests/fixtures/submissions/lab3-correct",
        0,
    );
    rerun(&c, GRADING, "head -9 course-snapshots/", 0);
    let recorded = c.path("course-snapshots");
    let by = RecordedBy {
        kind: ReferenceKind::Lab3Upload,
        name: "tests/fixtures/submissions/lab3-correct".into(),
        sha256: folder_hash(&c, "tests/fixtures/submissions/lab3-correct"),
    };
    let configs: Vec<PathBuf> = std::fs::read_dir(corpus.join("configs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    assert_eq!(configs.len(), 151);
    let mut differing = Vec::new();
    for config in &configs {
        let name = config.file_name().unwrap().to_string_lossy();
        let stem = config.file_stem().unwrap().to_string_lossy();
        let text = std::fs::read_to_string(recorded.join(format!("scenario@{name}.snap.new")))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let snap = Snapshot::parse(&text);
        assert_eq!(snap.recorder().as_ref(), Some(&by), "{name}");
        let answer =
            std::fs::read_to_string(corpus.join("expected").join(format!("{stem}.expected")))
                .unwrap();
        if !snap.matches(&answer) {
            differing.push(name.into_owned());
        }
    }
    assert!(
        differing.is_empty(),
        "recorded answers that are not the course's: {differing:?}"
    );
    // Reviewed and accepted, they grade a student as the course's answers
    // do: the mutant without the double step fails exactly the configs its
    // EXPECT lists (those where a pawn's double step is answered).
    let (accept, _) = excerpt(GRADING, "cargo insta accept");
    assert_eq!(accept, "cargo insta accept");
    insta_accept(&recorded);
    let grade = crate::docs_commands::grading_command(
        GRADING,
        "chessgrade grade --submission tests/fixtures/submissions/lab3-mutant-no-double-step ../shared",
    );
    let grade = grade.replace(
        "--submission tests/fixtures/submissions/lab3-mutant-no-double-step",
        &format!("--engine {mutant}"),
    );
    c.run(&format!("{grade} --format json --output mutant.json"), 1);
    let report = c.json("mutant.json");
    let failing = not_passed(&report);
    let expected: BTreeSet<String> =
        std::fs::read_to_string(helpers::submission("lab3-mutant-no-double-step").join("EXPECT"))
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
    assert_eq!(failing, expected);
    // Without --update, `run` only compares a reference with them: the
    // mutant as the reference differs on those configs (exit 1, nothing
    // written).
    let before = files(&recorded);
    let out = c.run(
        &format!("chessgrade run --engine {mutant} ../shared/lab3-course/configs --root ../shared/lab3-course/configs --snapshots course-snapshots -q"),
        1,
    );
    assert!(
        out.contains(&format!("FAILED: {} passed, 39 failed;", 151 - 39)),
        "{out}"
    );
    assert_eq!(files(&recorded), before);
    // The built-in engine agrees with every one: nothing is rewritten, and
    // each still says which reference wrote it.
    let before = files(&recorded);
    let out = c.run(
        "chessgrade run --update ../shared/lab3-course/configs --root ../shared/lab3-course/configs --snapshots course-snapshots -q",
        0,
    );
    assert!(out.contains("ok: 151 passed, 0 failed;"), "{out}");
    assert_eq!(files(&recorded), before);
}

#[test]
fn a_reference_upload_that_crashes_on_a_scenario_writes_nothing_for_it() {
    if helpers::shared("lab3-course").is_none() {
        return;
    }
    lab3_engine("hostile-segfault");
    let c = Course::new();
    rerun(
        &c,
        GRADING,
        "chessgrade run --update --submission tests/fixtures/submissions/hostile-segfault",
        2,
    );
    assert_eq!(
        files(&c.path("segfault-snapshots"))
            .into_keys()
            .collect::<Vec<_>>(),
        ["scenario@part1_4x4_1.txt.snap.new"]
    );
}

#[test]
fn a_reference_engine_that_crashes_or_hangs_on_a_scenario_writes_nothing_for_it() {
    let dir = helpers::project(&[
        ("a.txt", b"1\n3 3\nw k 1 1\n~\nisValidScan\n"),
        ("crash.txt", b"1\n4 4\nw k 1 1\n~\nisValidScan\n"),
        ("hang.txt", b"1\n5 5\nw k 1 1\n~\nisValidScan\n"),
    ]);
    let script = root().join("tests/fixtures/reference/serve_but.py");
    let bin = helpers::bin();
    let out = helpers::output(helpers::command(dir.path()).args([
        "run",
        "--update",
        "--timeout",
        "1",
        "--engine",
        "--",
        "python3",
        script.to_str().unwrap(),
        bin,
        "crash:NEW 4 4",
        "hang:NEW 5 5",
    ]));
    let text = helpers::stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    let command = format!(
        "python3 {} {bin} crash:NEW 4 4 hang:NEW 5 5",
        script.display()
    );
    let who = format!("the reference engine `{command}`");
    for line in [
        format!("scenarios/crash.txt: {who} could not run this step: crash (SIGSEGV)"),
        format!(
            "scenarios/hang.txt: {who} did not finish this scenario within --timeout 1s (stopped at this step)"
        ),
        "FAILED: 0 passed, 0 failed, 1 snapshots written, 2 input errors; points 1/3".into(),
    ] {
        assert!(text.contains(&line), "`{line}` in:\n{text}");
    }
    assert!(
        text.contains("\nnote: isolation: "),
        "run sandboxed: {text}"
    );
    // Only the scenario it answered has a snapshot: its trace, and who
    // wrote it (the hash of python3, the script and the engine it runs, as
    // `sha256sum` lists them).
    let snapshots = dir.path().join("snapshots");
    assert_eq!(
        files(&snapshots).into_keys().collect::<Vec<_>>(),
        ["scenario@a.txt.snap.new"]
    );
    let snap = Snapshot::parse(
        &std::fs::read_to_string(snapshots.join("scenario@a.txt.snap.new")).unwrap(),
    );
    let trace = helpers::output(helpers::command(dir.path()).args(["trace", "scenarios/a.txt"]));
    assert!(snap.matches(&helpers::stdout(&trace)));
    let listing = helpers::output(std::process::Command::new("bash").arg("-c").arg(format!(
        "sha256sum $(command -v python3) {} {bin} | sha256sum",
        script.display()
    )));
    let by = snap.recorder().expect("who wrote it");
    assert_eq!(by.kind, ReferenceKind::Engine);
    assert_eq!(by.name, command);
    assert_eq!(
        by.sha256,
        helpers::stdout(&listing).split_whitespace().next().unwrap()
    );
}

#[test]
fn a_reference_that_does_not_build_or_is_a_console_program_records_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let snapshots = dir.path().join("snapshots");
    let snapshots = snapshots.to_str().unwrap();
    let broken = helpers::submission("hostile-compile-error");
    let out = helpers::chessgrade(&[
        "run",
        "--update",
        "--submission",
        broken.to_str().unwrap(),
        "scenarios/lab3/pawns",
        "--snapshots",
        snapshots,
    ]);
    let err = helpers::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with(&format!(
            "error: the reference {} cannot record snapshots, so none was written: the submission did not compile:",
            broken.display()
        )),
        "{err}"
    );
    assert!(err.contains("expected ';' before '}' token"), "{err}");
    assert!(helpers::stdout(&out).is_empty());
    // A console program: its transcript is no trace. Refused before
    // anything is built or run, every scenario named.
    let cuhk = helpers::console_fixture("cuhk-correct");
    for reference in [
        ["--submission", cuhk.to_str().unwrap()],
        ["--program", "/bin/true"],
    ] {
        let mut args = vec!["run", "--accept"];
        args.extend(reference);
        args.extend(["scenarios/cuhk/console", "--snapshots", snapshots]);
        let out = helpers::chessgrade(&args);
        let err = helpers::stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        let lines: Vec<&str> = err.lines().collect();
        assert!(
            lines[0].starts_with("error: scenarios/cuhk/console/")
                && lines[0].ends_with(": no snapshot can be recorded from a console program"),
            "{err}"
        );
        assert!(
            lines.last().unwrap().starts_with(
                "error: a console program's transcript cannot be read back into a trace exactly"
            ),
            "{err}"
        );
    }
    assert!(!Path::new(snapshots).exists());
}
