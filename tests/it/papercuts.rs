//! Issue 18's papercuts, end to end through the binary: `run OUT/` on a
//! `gen` suite runs its scenarios (not its coverage summary), and `shrink`
//! takes `--snapshots` / `--root` as `explain` and `grade` do, judging the
//! scenario against its snapshot.

use crate::helpers::{bin, chessgrade};
use std::path::{Path, PathBuf};
use std::process::Output;

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn run_on_a_gen_folder_runs_its_scenarios_and_notes_the_summary() {
    let out = tempfile::tempdir().unwrap();
    for rules in ["lab3", "jhu"] {
        let o = chessgrade(&[
            "gen",
            "--rules",
            rules,
            "--count",
            "6",
            "--seed",
            "18",
            s(out.path()),
        ]);
        assert!(o.status.success(), "{}", text(&o));
    }
    let summary = out.path().join("coverage.txt");
    assert!(summary.is_file());
    let (scenarios, snapshots) = (out.path().join("scenarios"), out.path().join("snapshots"));
    let o = chessgrade(&[
        "--color",
        "never",
        "run",
        s(out.path()),
        "--root",
        s(&scenarios),
        "--snapshots",
        s(&snapshots),
    ]);
    let all = text(&o);
    assert_eq!(o.status.code(), Some(0), "{all}");
    assert!(all.contains("ok: 12 passed, 0 failed"), "{all}");
    assert!(
        all.contains(&format!(
            "skipped {}: the coverage summary of a `chessgrade gen` suite",
            summary.display()
        )),
        "{all}"
    );
    // `--list` selects the same twelve, the summary not among them.
    let o = chessgrade(&[
        "run",
        s(out.path()),
        "--root",
        s(&scenarios),
        "--snapshots",
        s(&snapshots),
        "--list",
    ]);
    let listed = String::from_utf8_lossy(&o.stdout);
    assert!(!listed.contains("coverage"), "{listed}");
    assert_eq!(listed.lines().count(), 12, "{listed}");
}

/// A scenario under `root/` with its snapshot in `snaps/`, whose one
/// answer the snapshot holds otherwise than the reference engine answers.
fn scenario_with_a_differing_snapshot(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (root, snaps) = (dir.join("root"), dir.join("snaps"));
    std::fs::create_dir_all(root.join("lab3")).unwrap();
    let file = root.join("lab3/king_steps_up.txt");
    std::fs::write(
        &file,
        "1\n4 4\nw k 3 0\nb r 0 1\nw p 3 3\n~\nmovePiece 3 3 2 3\nmovePiece 3 0 2 0\n",
    )
    .unwrap();
    let o = chessgrade(&[
        "run",
        s(&root),
        "--root",
        s(&root),
        "--snapshots",
        s(&snaps),
        "--accept",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let snap = std::fs::read_dir(&snaps)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "snap"))
        .expect("a snapshot was written");
    let body = std::fs::read_to_string(&snap).unwrap();
    let changed = body.replace("movePiece 3 0 2 0 = 0", "movePiece 3 0 2 0 = 1");
    assert_ne!(body, changed, "{body}");
    std::fs::write(&snap, changed).unwrap();
    (file, root, snaps)
}

#[test]
fn shrink_judges_the_scenario_against_its_snapshot_like_explain() {
    let dir = tempfile::tempdir().unwrap();
    let (file, root, snaps) = scenario_with_a_differing_snapshot(dir.path());
    let engine = format!("{} serve", bin());
    // Against the reference engine's answers (no snapshot under the
    // default root), the reference engine passes: nothing to shrink.
    let o = chessgrade(&["shrink", s(&file), "--engine", &engine]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("nothing to shrink"));
    // With the snapshot flags, as explain: the engine fails the snapshot at
    // the king's step, and shrink finds that failure and keeps it.
    let flags = ["--root", s(&root), "--snapshots", s(&snaps)];
    let o = chessgrade(&[&["explain", s(&file), "--engine", &engine][..], &flags].concat());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = dir.path().join("minimal.txt");
    let o = chessgrade(
        &[
            &["--color", "never", "shrink", s(&file), "--engine", &engine][..],
            &flags,
            &["-o", s(&out)],
        ]
        .concat(),
    );
    let all = text(&o);
    assert_eq!(o.status.code(), Some(1), "{all}");
    assert!(all.contains("expected: "), "{all}");
    assert!(all.contains("wrong_answer at a `movePiece` step"), "{all}");
    // No smaller scenario fails against the engine's own answers, so the
    // scenario is its own minimum.
    let minimal = chessgrade::scenario::load(&out).unwrap();
    assert_eq!(minimal.steps.len(), 2, "{all}");
    // A snapshot folder without this scenario's snapshot: the engine's
    // answers, as for explain.
    let o = chessgrade(
        &[
            &["shrink", s(&file), "--engine", &engine][..],
            &["--snapshots", s(&dir.path().join("none"))],
        ]
        .concat(),
    );
    assert_eq!(o.status.code(), Some(0), "no snapshot there: {}", text(&o));
}
