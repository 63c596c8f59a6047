//! Issue 18's papercuts, end to end through the binary: `run OUT/` on a
//! `gen` suite runs its scenarios (not its coverage summary).

use std::path::Path;
use std::process::{Command, Output};

fn chessgrade(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chessgrade"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

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
