//! The build cache (issue 20, item 3), through the binary: a regrade
//! after a snapshot or scenario change compiles nothing (every member's
//! report says its build came from the cache, and no entry is written: a
//! build would store one); one changed byte in a header, or in a console
//! upload's overlay, rebuilds that upload only; a truncated or altered
//! entry is built again and the grade does not change; `--no-build-cache`
//! neither reads nor writes; two graders sharing one cache folder at once
//! leave it whole; a Lab 3 build that misses compiles only the units no
//! earlier build had. Each test has its own cache folder (`--build-cache`);
//! those of whole builds start with the run's unit objects
//! ([`seeded_course`]), the unit cache's own tests empty.
//! The confinement side (a submission cannot reach the cache) is in
//! tests/it/isolation.rs.

use crate::helpers::{
    cache_entry_kind, cache_home, command, console_fixture, copy_dir, lab3_engine, output, root,
    script_upload, submission,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A course folder of its own: `scenarios/lab3/pawns` and their
/// snapshots (copies, so a test may change one), `class/` with the given
/// members (name, fixture), and `cache/` for `--build-cache`.
fn course(members: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &root().join("scenarios/lab3/pawns"),
        &dir.path().join("scenarios/lab3/pawns"),
    );
    std::fs::create_dir_all(dir.path().join("snapshots")).unwrap();
    for e in std::fs::read_dir(root().join("snapshots")).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("scenario@lab3__pawns__") {
            std::fs::copy(&path, dir.path().join("snapshots").join(&name)).unwrap();
        }
    }
    for (name, fixture) in members {
        copy_dir(&submission(fixture), &dir.path().join("class").join(name));
    }
    dir
}

/// [`course`] with its cache folder holding the run's unit objects and
/// Lab 3 adapter (from `target/tmp/xdg-cache/chessgrade/`, where
/// `helpers::lab3_engine` compiled `lab3-correct` once per run): for the
/// tests of whole builds, whose uploads then compile only the units the
/// correct one lacks, and link. The unit cache's own tests start empty.
fn seeded_course(members: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = course(members);
    seed(&dir.path().join("cache"));
    dir
}

/// Copies the run's unit objects and Lab 3 adapter into the cache folder
/// `cache` (see [`seeded_course`]).
fn seed(cache: &Path) {
    lab3_engine("lab3-correct");
    let shared = cache_home().join("chessgrade");
    std::fs::create_dir_all(cache.join("objects")).unwrap();
    // Whole entries only: not another run's temporary files (`.name`).
    let entries = |folder: &Path| -> Vec<PathBuf> {
        std::fs::read_dir(folder)
            .into_iter()
            .flatten()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .filter(|p| p.extension().is_some_and(|x| x == "entry"))
            .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
            .collect()
    };
    for entry in entries(&shared.join("objects")) {
        std::fs::copy(
            &entry,
            cache.join("objects").join(entry.file_name().unwrap()),
        )
        .unwrap();
    }
    for entry in entries(&shared) {
        if entry
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("adapter-kit-")
        {
            std::fs::copy(&entry, cache.join(entry.file_name().unwrap())).unwrap();
        }
    }
}

/// `grade --class class scenarios/lab3/pawns` in `course`, with its cache
/// and `extra`: the exit code, the table's rows (name → points) and each
/// member's notes (name → notes, one string).
struct Graded {
    code: Option<i32>,
    points: BTreeMap<String, String>,
    notes: BTreeMap<String, String>,
    /// Each member's compile error (its report's `compile_error`), if any.
    compile_errors: BTreeMap<String, String>,
    text: String,
}

fn grade_class(course: &Path, scenarios: &str, extra: &[&str]) -> Graded {
    let json = course.join("class.json");
    let cache = course.join("cache");
    let mut args = vec![
        "grade",
        "--class",
        "class",
        scenarios,
        "--root",
        "scenarios",
        "--snapshots",
        "snapshots",
        "--build-cache",
        cache.to_str().unwrap(),
        "--format",
        "json",
        "--output",
        json.to_str().unwrap(),
        "--jobs",
        "2",
        "-q",
        "--color",
        "never",
    ];
    args.extend(extra);
    graded(output(command(course).args(&args)), &json)
}

fn graded(out: Output, json: &Path) -> Graded {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let points = text
        .lines()
        .skip_while(|l| !l.starts_with("submission"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| {
            let mut w = l.split_whitespace();
            (w.next().unwrap().to_string(), w.next().unwrap().to_string())
        })
        .collect();
    let report: serde_json::Value = std::fs::read_to_string(json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let notes = report["submissions"]
        .as_array()
        .map(|subs| {
            subs.iter()
                .map(|s| {
                    let name = s["subject"].as_str().unwrap().to_string();
                    let notes: Vec<&str> = s["notes"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|n| n.as_str().unwrap())
                        .collect();
                    (name, notes.join("\n"))
                })
                .collect()
        })
        .unwrap_or_default();
    let compile_errors = report["submissions"]
        .as_array()
        .map(|subs| {
            subs.iter()
                .filter_map(|s| {
                    let message = s["compile_error"].as_str()?.to_string();
                    Some((s["subject"].as_str().unwrap().to_string(), message))
                })
                .collect()
        })
        .unwrap_or_default();
    Graded {
        code: out.status.code(),
        points,
        notes,
        compile_errors,
        text,
    }
}

impl Graded {
    /// Whether `member`'s build came from the cache (its report says so).
    fn cached(&self, member: &str) -> bool {
        let notes = &self.notes[member];
        notes.contains("compile: from the build cache (g++")
            || notes.contains("build: from the build cache")
    }

    /// Whether `member` was compiled now (its note gives the time).
    fn compiled(&self, member: &str) -> bool {
        self.notes[member]
            .lines()
            .any(|l| l.starts_with("compile: ") && l.contains("s (g++") && !l.contains("cache"))
    }

    fn points(&self) -> Vec<(&str, &str)> {
        self.points
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }
}

/// Every file under `dir` with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// The uploads' entries (`cache/builds/`), each checked whole: name → kind.
fn build_entries(course: &Path) -> BTreeMap<PathBuf, String> {
    entry_kinds(&course.join("cache/builds"))
}

/// The entries in `folder`, each checked whole: name → kind.
fn entry_kinds(folder: &Path) -> BTreeMap<PathBuf, String> {
    files(folder)
        .into_keys()
        .map(|p| {
            let kind = cache_entry_kind(&p)
                .unwrap_or_else(|| panic!("{} is not a valid entry", p.display()));
            (p, kind)
        })
        .collect()
}

const DOUBLE_STEP_SNAPSHOT: &str =
    "snapshots/scenario@lab3__pawns__double_step_from_start_rows.txt.snap";

#[test]
fn a_regrade_after_a_snapshot_or_scenario_change_rebuilds_nothing() {
    let course = seeded_course(&[
        ("correct", "lab3-correct"),
        ("mutant", "lab3-mutant-no-double-step"),
        ("broken", "hostile-compile-error"),
    ]);
    let dir = course.path();
    let first = grade_class(dir, "scenarios/lab3/pawns", &[]);
    assert_eq!(first.code, Some(1), "{}", first.text);
    // The points as tests/it/class.rs has them for these fixtures.
    assert_eq!(
        first.points(),
        [("broken", "0/9"), ("correct", "9/9"), ("mutant", "6/9")],
        "{}",
        first.text
    );
    for m in ["correct", "mutant", "broken"] {
        assert!(first.compiled(m), "{m}: {}", first.notes[m]);
    }
    assert!(
        first
            .text
            .lines()
            .any(|l| l.starts_with("graded in ") && !l.contains("build cache")),
        "{}",
        first.text
    );
    // Two programs and one compile error.
    let entries = build_entries(dir);
    let mut kinds: Vec<&str> = entries.values().map(String::as_str).collect();
    kinds.sort_unstable();
    assert_eq!(kinds, ["compile-error", "program", "program"]);
    let stored = files(&dir.join("cache"));

    // A snapshot fixed after a rule question: the first scan of
    // double_step_from_start_rows no longer expects the single step 1 0 → 2 0.
    let snap = dir.join(DOUBLE_STEP_SNAPSHOT);
    let text = std::fs::read_to_string(&snap).unwrap();
    assert!(text.contains("L12 isValidScan\n  V 1 0 2 0\n"));
    std::fs::write(&snap, text.replacen("  V 1 0 2 0\n", "", 1)).unwrap();
    let regrade = grade_class(dir, "scenarios/lab3/pawns", &[]);
    assert_eq!(regrade.code, Some(1), "{}", regrade.text);
    // The correct upload now answers a move the snapshot does not have;
    // the mutant already failed that scenario; the compile error is the
    // same (its message too, from the cache).
    assert_eq!(
        regrade.points(),
        [("broken", "0/9"), ("correct", "8/9"), ("mutant", "6/9")],
        "{}",
        regrade.text
    );
    for m in ["correct", "mutant", "broken"] {
        assert!(regrade.cached(m), "{m}: {}", regrade.notes[m]);
    }
    assert!(
        regrade
            .text
            .lines()
            .any(|l| l.starts_with("graded in ")
                && l.ends_with(" (3 of 3 builds from the build cache)")),
        "{}",
        regrade.text
    );
    assert!(
        regrade.compile_errors["broken"]
            .contains("RookPiece.cc:13:40: error: expected ';' before '}' token"),
        "{}",
        regrade.compile_errors["broken"]
    );
    assert_eq!(
        first.compile_errors["broken"].lines().next(),
        regrade.compile_errors["broken"].lines().next()
    );
    assert_eq!(
        stored,
        files(&dir.join("cache")),
        "a regrade wrote to the cache"
    );

    // Another selection of scenarios: the same builds.
    let one = grade_class(
        dir,
        "scenarios/lab3/pawns/double_step_only_from_own_start_row.txt",
        &[],
    );
    for m in ["correct", "mutant", "broken"] {
        assert!(one.cached(m), "{m}: {}", one.notes[m]);
    }
    assert_eq!(stored, files(&dir.join("cache")));
}

#[test]
fn one_changed_header_byte_rebuilds_that_upload_only() {
    let course = seeded_course(&[("a", "lab3-correct"), ("b", "lab3-mutant-turn-in-isvalid")]);
    let dir = course.path();
    let first = grade_class(dir, "scenarios/lab3/pawns", &[]);
    assert!(
        first.compiled("a") && first.compiled("b"),
        "{:?}",
        first.notes
    );
    assert_eq!(build_entries(dir).len(), 2);
    // One byte more at the end of a header no `.cc` names directly (it is
    // included by the others).
    let header = dir.join("class/a/ChessPiece.hh");
    let mut bytes = std::fs::read(&header).unwrap();
    bytes.push(b'\n');
    std::fs::write(&header, bytes).unwrap();
    let again = grade_class(dir, "scenarios/lab3/pawns", &[]);
    assert!(again.compiled("a"), "{}", again.notes["a"]);
    assert!(again.cached("b"), "{}", again.notes["b"]);
    assert_eq!(again.points, first.points, "{}", again.text);
    assert_eq!(build_entries(dir).len(), 3);
}

#[test]
fn a_truncated_or_altered_entry_is_rebuilt_and_the_grade_is_the_same() {
    let course = seeded_course(&[("mutant", "lab3-mutant-no-double-step")]);
    let dir = course.path();
    let first = grade_class(dir, "scenarios/lab3/pawns", &[]);
    assert_eq!(first.points(), [("mutant", "6/9")], "{}", first.text);
    let entries = build_entries(dir);
    let [(entry, kind)] = entries.iter().collect::<Vec<_>>()[..] else {
        panic!("one entry: {entries:?}");
    };
    assert_eq!(kind, "program");
    let good = std::fs::read(entry).unwrap();
    let mut altered = good.clone();
    let last = altered.len() - 100;
    altered[last] ^= 0x55;
    for (what, damaged) in [
        ("truncated", good[..good.len() / 2].to_vec()),
        ("one byte altered", altered),
        ("replaced", b"garbage".to_vec()),
    ] {
        std::fs::write(entry, &damaged).unwrap();
        let again = grade_class(dir, "scenarios/lab3/pawns", &[]);
        assert_eq!(
            again.points(),
            [("mutant", "6/9")],
            "{what}: {}",
            again.text
        );
        assert!(
            again.compiled("mutant"),
            "{what}: {}",
            again.notes["mutant"]
        );
        // Replaced by a whole entry again, which the next run uses.
        assert_eq!(build_entries(dir).len(), 1, "{what}");
        let next = grade_class(dir, "scenarios/lab3/pawns", &[]);
        assert!(next.cached("mutant"), "{what}: {}", next.notes["mutant"]);
        assert_eq!(next.points(), [("mutant", "6/9")], "{what}");
    }
}

#[test]
fn no_build_cache_neither_reads_nor_writes_uploads_builds() {
    let course = course(&[("correct", "lab3-correct")]);
    let dir = course.path();
    let off = grade_class(dir, "scenarios/lab3/pawns", &["--no-build-cache"]);
    // `--build-cache` comes with every run here: the two conflict.
    assert_eq!(off.code, Some(2), "{}", off.text);
    assert!(off.text.contains("cannot be used with"), "{}", off.text);

    let run = |extra: &[&str]| {
        let json = dir.join("alone.json");
        let mut args = vec![
            "grade",
            "--class",
            "class",
            "scenarios/lab3/pawns",
            "--root",
            "scenarios",
            "--snapshots",
            "snapshots",
            "--format",
            "json",
            "--output",
            json.to_str().unwrap(),
            "-q",
        ];
        args.extend(extra);
        // The default cache folder is $XDG_CACHE_HOME/chessgrade.
        let out = output(
            command(dir)
                .args(&args)
                .env("XDG_CACHE_HOME", dir.join("xdg")),
        );
        graded(out, &json)
    };
    // The units and the adapter are there already: what is tested is
    // whether uploads' builds are read and written.
    seed(&dir.join("xdg/chessgrade"));
    let default_builds = dir.join("xdg/chessgrade/builds");
    let first = run(&["--no-build-cache"]);
    assert_eq!(first.points(), [("correct", "9/9")], "{}", first.text);
    assert!(first.compiled("correct"), "{}", first.notes["correct"]);
    assert!(!default_builds.exists(), "nothing stored");
    // With the cache: stored in the default folder, then used.
    assert!(run(&[]).compiled("correct"));
    assert!(run(&[]).cached("correct"));
    let stored = files(&default_builds);
    assert_eq!(stored.len(), 1);
    // Off again: compiled, though the cache has it, and nothing written.
    let again = run(&["--no-build-cache"]);
    assert!(again.compiled("correct"), "{}", again.notes["correct"]);
    assert_eq!(files(&default_builds), stored);
}

#[test]
fn a_cache_folder_the_submissions_may_read_is_refused() {
    let out = output(command(root()).args([
        "grade",
        "--submission",
        submission("lab3-correct").to_str().unwrap(),
        "--build-cache",
        "/usr/local/chessgrade-cache",
    ]));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "/usr/local/chessgrade-cache is beneath /usr, which every submission may read"
        ),
        "{err}"
    );
}

#[test]
fn two_graders_sharing_a_cache_at_once_leave_it_whole() {
    let course = seeded_course(&[
        ("correct", "lab3-correct"),
        ("static", "lab3-static-state"),
        ("broken", "hostile-compile-error"),
    ]);
    let dir = course.path();
    let cache = dir.join("cache");
    let spawn = |json: &str| {
        command(dir)
            .args([
                "grade",
                "--class",
                "class",
                "scenarios/lab3/pawns",
                "--root",
                "scenarios",
                "--snapshots",
                "snapshots",
                "--build-cache",
                cache.to_str().unwrap(),
                "--format",
                "json",
                "--output",
                json,
                "--jobs",
                "1",
                "-q",
                "--color",
                "never",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn("a.json"), spawn("b.json"));
    let a = graded(a.wait_with_output().unwrap(), &dir.join("a.json"));
    let b = graded(b.wait_with_output().unwrap(), &dir.join("b.json"));
    assert_eq!(a.code, Some(1), "{}", a.text);
    assert_eq!(a.points, b.points, "{}\n{}", a.text, b.text);
    // Whole entries only (a half-written one would fail its hash), one
    // per upload, and no temporary file left behind.
    let entries = build_entries(dir);
    assert_eq!(entries.len(), 3, "{entries:?}");
    let stray: Vec<PathBuf> = files(&cache)
        .into_keys()
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    // And they serve the next run.
    let next = grade_class(dir, "scenarios/lab3/pawns", &[]);
    assert_eq!(next.points, a.points);
    for m in ["correct", "static", "broken"] {
        assert!(next.cached(m), "{m}: {}", next.notes[m]);
    }
}

/// A console upload's key holds the staff's overlay: a changed byte there
/// rebuilds it, and the program from the cache runs with its sources
/// beside it (the stand-in's `chess` is a script that runs `chess.py`
/// from its folder).
#[test]
fn a_changed_overlay_byte_rebuilds_a_console_upload() {
    let dir = tempfile::tempdir().unwrap();
    let upload = dir.path().join("upload");
    script_upload("cuhk_chess.py", "", &upload);
    let overlay = dir.path().join("overlay");
    std::fs::create_dir_all(&overlay).unwrap();
    std::fs::write(overlay.join("STAFF.txt"), "rules v1\n").unwrap();
    let cache = dir.path().join("cache");
    let grade = || {
        let json = dir.path().join("r.json");
        let out = output(command(root()).args([
            "grade",
            "--submission",
            upload.to_str().unwrap(),
            "scenarios/cuhk/console",
            "--overlay",
            overlay.to_str().unwrap(),
            "--build-cache",
            cache.to_str().unwrap(),
            "--format",
            "json",
            "--output",
            json.to_str().unwrap(),
        ]));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert_eq!(v["scenarios"][0]["status"], "pass", "{v}");
        v["notes"]
            .to_string()
            .contains("build: from the build cache")
    };
    assert!(!grade(), "the first build");
    assert!(grade(), "the same upload and overlay");
    std::fs::write(overlay.join("STAFF.txt"), "rules v2\n").unwrap();
    assert!(!grade(), "a changed overlay");
    assert!(grade());
    assert_eq!(files(&cache.join("builds")).len(), 2);
}

/// The unit cache's entries (`cache/objects/`), each checked whole: the
/// objects and the manifests, by kind.
fn unit_entries(course: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut kinds: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for (p, kind) in entry_kinds(&course.join("cache/objects")) {
        kinds.entry(kind).or_default().push(p);
    }
    kinds
}

/// A Lab 3 build that misses as a whole compiles only the units no earlier
/// build had: a mutant of the correct upload (one `.cc` changed, a file no
/// unit reads added) adds one object, and is graded as it is when compiled from
/// nothing; a damaged entry is a miss, compiled again and replaced.
#[test]
fn a_build_that_misses_reuses_the_units_it_shares_with_earlier_builds() {
    let course = course(&[("correct", "lab3-correct")]);
    let dir = course.path();
    let first = grade_class(dir, "scenarios/lab3/pawns", &[]);
    assert_eq!(first.points(), [("correct", "9/9")], "{}", first.text);
    // Six student units (main.cc defines main: left out) and the glue,
    // each an object and the manifest of the files its compile read.
    let units = unit_entries(dir);
    let count = |u: &BTreeMap<String, Vec<PathBuf>>| -> Vec<(String, usize)> {
        u.iter().map(|(k, v)| (k.clone(), v.len())).collect()
    };
    assert_eq!(
        count(&units),
        [("manifest".to_string(), 7), ("object".to_string(), 7)]
    );

    // The mutant differs from the correct upload in PawnPiece.cc and
    // has a file no unit reads (what its bug should fail).
    let mutant = submission("lab3-mutant-no-double-step");
    let differs: Vec<String> = std::fs::read_dir(&mutant)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| {
            std::fs::read(mutant.join(n)).ok()
                != std::fs::read(submission("lab3-correct").join(n)).ok()
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(differs, ["EXPECT", "PawnPiece.cc"]);
    copy_dir(&mutant, &dir.join("class/mutant"));
    let second = grade_class(dir, "scenarios/lab3/pawns", &[]);
    assert_eq!(
        second.points(),
        [("correct", "9/9"), ("mutant", "6/9")],
        "{}",
        second.text
    );
    assert!(second.cached("correct"), "{}", second.notes["correct"]);
    assert!(second.compiled("mutant"), "{}", second.notes["mutant"]);
    let after = unit_entries(dir);
    assert_eq!(
        count(&after),
        [("manifest".to_string(), 8), ("object".to_string(), 8)],
        "one new unit: {after:?}"
    );
    assert!(units["object"].iter().all(|o| after["object"].contains(o)));

    // Every unit entry damaged and the uploads' builds gone: both uploads
    // are compiled again, graded the same, and every entry is whole again.
    for path in after.values().flatten() {
        let mut bytes = std::fs::read(path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(path, bytes).unwrap();
    }
    std::fs::remove_dir_all(dir.join("cache/builds")).unwrap();
    let third = grade_class(dir, "scenarios/lab3/pawns", &[]);
    assert_eq!(third.points, second.points, "{}", third.text);
    assert!(third.compiled("correct") && third.compiled("mutant"));
    assert_eq!(unit_entries(dir), after);

    // A header the units include changed: every unit compiled again (the
    // manifests name it), the grade the same.
    let header = dir.join("class/correct/ChessPiece.hh");
    let mut bytes = std::fs::read(&header).unwrap();
    bytes.extend_from_slice(b"\n");
    std::fs::write(&header, bytes).unwrap();
    let fourth = grade_class(dir, "scenarios/lab3/pawns", &[]);
    assert_eq!(fourth.points, second.points, "{}", fourth.text);
    assert_eq!(
        unit_entries(dir)["object"].len(),
        8 + 7,
        "every unit of the changed upload is new"
    );
}

/// A console upload of `.cpp` files (CUHK's, no Makefile) is compiled a
/// file at a time with the course's flags, each file's object kept in the
/// unit cache: a mutant that differs in one `.cpp` adds one object and
/// fails as it does built from nothing; a file that does not compile is
/// the student's compile error, as one `g++ *.cpp` would say it.
#[test]
fn a_console_build_of_sources_reuses_the_units_it_shares_with_earlier_builds() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let grade = |upload: &Path| -> (Option<i32>, String) {
        let out = output(command(root()).args([
            "grade",
            "--submission",
            upload.to_str().unwrap(),
            "scenarios/cuhk/console",
            "--build-cache",
            cache.to_str().unwrap(),
            "--color",
            "never",
        ]));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code(), text)
    };
    let count = |kind: &str| unit_entries(dir.path()).get(kind).map_or(0, Vec::len);
    let correct = console_fixture("cuhk-correct");
    let sources = std::fs::read_dir(&correct)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "cpp")
        })
        .count();
    assert!(sources > 1, "{sources}");
    let (code, text) = grade(&correct);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!((count("object"), count("manifest")), (sources, sources));

    // The mutant differs from the correct upload in game.cpp (and its
    // BUG note, which no unit reads).
    let (code, text) = grade(&console_fixture("cuhk-mutant-wrong-winner"));
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("FAIL cuhk/console/invalid_inputs_then_a_pawn_capture_and_z0_z0.txt"),
        "{text}"
    );
    assert_eq!(count("object"), sources + 1);

    // One file that does not compile: the compiler's message names it,
    // nothing of it is kept, and the grade is the student's compile error.
    let broken = dir.path().join("broken");
    copy_dir(&correct, &broken);
    std::fs::write(broken.join("knight.cpp"), "int f() { return nope; }\n").unwrap();
    let (code, text) = grade(&broken);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("knight.cpp:1:"), "{text}");
    assert!(
        text.contains("compile_error") || text.contains("compile error"),
        "{text}"
    );
    assert_eq!(count("object"), sources + 1);
}
