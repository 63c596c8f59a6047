//! `chessgrade gen`: generated suites parse, replay to their own snapshots
//! through `chessgrade run`, are byte-identical for a seed, keep each rule
//! set's scenario forms, and cover every refusal reason of each rule set
//! in a modest number of scenarios.

use crate::helpers::{chessgrade, root};
use chessgrade::engine::{MoveError, RuleSetId};
use chessgrade::r#gen::{self as suite_gen, Feature, GenOptions, reachable_refusals, render};
use chessgrade::scenario::{self, StepKind};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

fn gen_into(out: &Path, rules: &str, count: &str, seed: &str) -> Output {
    chessgrade(&[
        "gen",
        "--rules",
        rules,
        "--count",
        count,
        "--seed",
        seed,
        out.to_str().unwrap(),
    ])
}

/// Every file under `dir`, by relative path, with its bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_path_buf();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

#[test]
fn every_refusal_reason_of_every_rule_set_is_covered_in_120_scenarios() {
    for rules in RuleSetId::ALL {
        let suite = suite_gen::generate(&GenOptions::new(rules.rules(), 120, 2026)).unwrap();
        let cov = &suite.coverage;
        assert_eq!(
            cov.missing_refusals(),
            Vec::<MoveError>::new(),
            "{rules}:\n{cov}"
        );
        for e in reachable_refusals(&rules.rules()) {
            assert!(
                cov.refusal(e) >= 2,
                "{rules}: {e} hit {} times\n{cov}",
                cov.refusal(e)
            );
        }
        assert_eq!(cov.scenarios, 120);
        let features: &[Feature] = match rules {
            RuleSetId::Lab3 => &[
                Feature::ValidScan,
                Feature::ThreatScan,
                Feature::Check,
                Feature::OffBoard,
                Feature::KingIntoCheck,
            ],
            RuleSetId::Standard => &[
                Feature::Castling,
                Feature::EnPassant,
                Feature::Promotion,
                Feature::Checkmate,
                Feature::Stalemate,
                Feature::Undo,
                Feature::Perft,
            ],
            RuleSetId::Cuhk => &[Feature::Stopped, Feature::Capture, Feature::Score],
            RuleSetId::Jhu => &[
                Feature::Checkmate,
                Feature::Promotion,
                Feature::Save,
                Feature::Check,
            ],
        };
        for &f in features {
            assert!(cov.feature(f) > 0, "{rules}: no {}\n{cov}", f.name());
        }
        // The summary names every reachable reason with its count.
        let text = cov.to_string();
        for e in reachable_refusals(&rules.rules()) {
            assert!(text.contains(e.message()), "{text}");
        }
    }
}

#[test]
fn lab3_boards_vary_in_size_and_the_other_rule_sets_play_8x8() {
    let lab3 = suite_gen::generate(&GenOptions::new(RuleSetId::Lab3.rules(), 100, 5)).unwrap();
    assert!(lab3.coverage.sizes.len() >= 20, "{:?}", lab3.coverage.sizes);
    assert!(lab3.coverage.sizes.contains_key(&(8, 8)));
    let jhu = suite_gen::generate(&GenOptions::new(RuleSetId::Jhu.rules(), 30, 5)).unwrap();
    assert_eq!(jhu.coverage.sizes.keys().collect::<Vec<_>>(), [&(8, 8)]);
}

#[test]
fn each_rule_set_gets_only_the_forms_its_subjects_run() {
    for rules in RuleSetId::ALL {
        let suite = suite_gen::generate(&GenOptions::new(rules.rules(), 60, 11)).unwrap();
        for g in &suite.scenarios {
            let s = &g.scenario;
            let name = g.rel.display();
            match rules {
                RuleSetId::Lab3 => {
                    // A plain course config: no directives, a size and placements, Lab 3 steps.
                    assert!(!g.text.lines().any(|l| l.starts_with('@')), "{name}");
                    assert!(s.fen.is_none() && s.turn.is_none(), "{name}");
                    assert!(
                        s.steps.iter().all(|st| matches!(
                            st.kind,
                            StepKind::MovePiece { .. }
                                | StepKind::IsValidScan
                                | StepKind::UnderThreatScan
                        )),
                        "{name}"
                    );
                }
                RuleSetId::Cuhk => {
                    assert_eq!(
                        s.fen.as_deref(),
                        Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
                        "{name}"
                    );
                    assert!(s.placements.is_empty(), "{name}");
                    assert!(
                        s.steps.iter().all(|st| matches!(
                            st.kind,
                            StepKind::Move { .. }
                                | StepKind::Stop { sentinel: true }
                                | StepKind::Status
                                | StepKind::Score
                        )),
                        "{name}"
                    );
                }
                RuleSetId::Jhu => {
                    // A board picture (loaded with L), then M / S commands and what they print.
                    assert!(
                        g.text.contains("\nboard\n") && s.turn.is_some() && s.fen.is_none(),
                        "{name}"
                    );
                    assert!(
                        s.steps.iter().all(|st| matches!(
                            st.kind,
                            StepKind::Move {
                                promotion: None,
                                ..
                            } | StepKind::Save
                                | StepKind::Status
                                | StepKind::Score
                        )),
                        "{name}"
                    );
                }
                RuleSetId::Standard => assert!(s.fen.is_some(), "{name}"),
            }
            // Each file says what it covers.
            assert!(g.text.starts_with("// chessgrade gen --rules"), "{name}");
            assert!(
                g.text.lines().any(|l| l.starts_with("// covers: ")),
                "{name}"
            );
        }
    }
}

#[test]
fn a_suite_replays_to_its_own_snapshots_through_run() {
    let out = tempfile::tempdir().unwrap();
    for rules in ["lab3", "standard", "cuhk", "jhu"] {
        let o = gen_into(out.path(), rules, "40", "9");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            stdout.contains(&format!("coverage: 40 {rules} scenarios")),
            "{stdout}"
        );
    }
    let scenarios = out.path().join("scenarios");
    let snapshots = out.path().join("snapshots");
    let o = chessgrade(&[
        "run",
        scenarios.to_str().unwrap(),
        "--root",
        scenarios.to_str().unwrap(),
        "--snapshots",
        snapshots.to_str().unwrap(),
        "--color",
        "never",
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("ok: 160 passed, 0 failed"), "{stdout}");
    assert!(out.path().join("coverage.txt").exists());
    // Named with its flags, it needs no note.
    assert!(!stdout.contains("is a suite folder"), "{stdout}");

    // The suite folder runs as it is, and says where it read from.
    let o = chessgrade(&["run", out.path().to_str().unwrap(), "--color", "never"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("ok: 160 passed, 0 failed"), "{stdout}");
    let note = format!(
        "note: {} is a suite folder: scenarios from {}, snapshots from {}",
        out.path().display(),
        scenarios.display(),
        snapshots.display()
    );
    assert_eq!(
        format!("{stdout}{stderr}").matches(&note).count(),
        1,
        "{stdout}{stderr}"
    );
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_another_seed_does_not() {
    let (a, b, c) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    for rules in ["lab3", "standard", "cuhk", "jhu"] {
        assert!(gen_into(a.path(), rules, "25", "77").status.success());
        assert!(gen_into(b.path(), rules, "25", "77").status.success());
        assert!(gen_into(c.path(), rules, "25", "78").status.success());
    }
    let (ta, tb, tc) = (tree(a.path()), tree(b.path()), tree(c.path()));
    assert_eq!(ta.len(), 4 * 25 * 2 + 1);
    assert!(ta == tb, "two runs with seed 77 differ");
    assert!(ta != tc, "seeds 77 and 78 gave the same suite");
}

#[test]
fn a_small_suite_is_the_start_of_a_larger_one() {
    let small = suite_gen::generate(&GenOptions::new(RuleSetId::Standard.rules(), 10, 3)).unwrap();
    let large = suite_gen::generate(&GenOptions::new(RuleSetId::Standard.rules(), 30, 3)).unwrap();
    for (s, l) in small.scenarios.iter().zip(&large.scenarios) {
        assert_eq!(s.text, l.text);
        assert_eq!(s.snapshot, l.snapshot);
    }
}

#[test]
fn options_the_subjects_cannot_honour_are_staff_errors() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap();
    let cases: [&[&str]; 4] = [
        &[
            "gen", "--rules", "cuhk", "--count", "3", "--seed", "1", "--mix", "motif=1", dir,
        ],
        &[
            "gen", "--rules", "jhu", "--count", "3", "--seed", "1", "--size", "6x6", dir,
        ],
        &[
            "gen", "--rules", "lab3", "--count", "3", "--seed", "1", "--size", "0x4", dir,
        ],
        &[
            "gen", "--rules", "lab3", "--count", "3", "--seed", "1", "--mix", "motif=x", dir,
        ],
    ];
    for args in cases {
        let o = chessgrade(args);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert!(!o.stderr.is_empty());
    }
    // An existing suite is not overwritten silently.
    assert!(gen_into(out.path(), "lab3", "3", "1").status.success());
    let again = gen_into(out.path(), "lab3", "2", "1");
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    let forced = chessgrade(&[
        "gen", "--rules", "lab3", "--count", "2", "--seed", "1", "--force", dir,
    ]);
    assert!(forced.status.success());
    assert_eq!(
        std::fs::read_dir(out.path().join("scenarios/lab3"))
            .unwrap()
            .count(),
        2
    );
    assert_eq!(
        std::fs::read_dir(out.path().join("snapshots"))
            .unwrap()
            .count(),
        2
    );
}

#[test]
fn rendering_a_bundled_scenario_reads_back_the_same() {
    let root = root().join("scenarios");
    let mut n = 0;
    for e in walkdir::WalkDir::new(&root).into_iter().map(|e| e.unwrap()) {
        if e.path().extension().is_none_or(|x| x != "txt") {
            continue;
        }
        let s = scenario::load(e.path()).unwrap();
        let back = scenario::parse(&render(&s, &[])).unwrap();
        let kinds =
            |s: &scenario::Scenario| s.steps.iter().map(|s| s.kind.clone()).collect::<Vec<_>>();
        assert_eq!(kinds(&back), kinds(&s), "{}", e.path().display());
        let setup = |s: &scenario::Scenario| {
            (
                s.dims,
                s.fen.clone(),
                s.turn,
                s.directives.rules,
                s.directives.visibility,
            )
        };
        assert_eq!(setup(&back), setup(&s), "{}", e.path().display());
        // The same Mystery piece (its vectors may be listed in another order).
        let mystery = |s: &scenario::Scenario| {
            s.directives.mystery.map(|m| {
                let mut v = m.vectors().to_vec();
                v.sort_unstable();
                (m.slides, m.value, v)
            })
        };
        assert_eq!(mystery(&back), mystery(&s), "{}", e.path().display());
        let squares = |s: &scenario::Scenario| {
            let mut v: Vec<_> = s
                .placements
                .iter()
                .map(|p| (p.square, p.color, p.role))
                .collect();
            v.sort_by_key(|(sq, ..)| *sq);
            v.dedup_by_key(|(sq, ..)| *sq);
            v
        };
        if s.turn.is_none() {
            assert_eq!(squares(&back), squares(&s), "{}", e.path().display());
        }
        n += 1;
    }
    assert!(n >= 140, "{n}");
}
