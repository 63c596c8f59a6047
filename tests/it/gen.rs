//! `chessgrade gen`: generated suites parse, replay to their own snapshots
//! through `chessgrade run`, are byte-identical for a seed, keep each rule
//! set's scenario forms, and cover every refusal reason of each rule set
//! in a modest number of scenarios; a course's rule file's suite is
//! written with its rules and runs under them; docs/gen.md's excerpts are
//! real runs.

use crate::helpers::{chessgrade, command, output, root, stderr, stdout};
use chessgrade::domain::Role;
use chessgrade::engine::{MoveError, Position, RuleSet, RuleSetId};
use chessgrade::r#gen::{self as suite_gen, Feature, GenOptions, reachable_refusals, render};
use chessgrade::rulefile;
use chessgrade::scenario::{self, StepKind};
use chessgrade::subject::Setup;
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

// ---------------------------------------------------------------------
// A course's rule file.
// ---------------------------------------------------------------------

/// Lab 3 as a course changes it this term: en passant allowed.
const LAB3_EN_PASSANT: &str =
    "extends = \"lab3\"\nname = \"lab3 with en passant\"\nen_passant = true\n";

fn capablanca() -> PathBuf {
    root().join("scenarios/variants/capablanca.toml")
}

fn rules_of(path: &Path) -> RuleSet {
    rulefile::load(path).unwrap()
}

/// The pieces a generated scenario starts with.
fn start_roles(g: &suite_gen::Generated) -> Vec<Role> {
    let pos: Position = Setup::of(&g.scenario).initial_position().unwrap();
    pos.board().pieces().map(|(_, p)| p.role).collect()
}

#[test]
fn a_rule_files_suite_is_written_with_its_rules_and_run_passes_under_them() {
    let out = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let ep = files.path().join("lab3-ep.toml");
    std::fs::write(&ep, LAB3_EN_PASSANT).unwrap();
    for (file, count, name) in [
        (capablanca(), "30", "capablanca"),
        (ep.clone(), "80", "lab3 with en passant"),
    ] {
        let o = gen_into(out.path(), file.to_str().unwrap(), count, "4");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let text = stdout(&o);
        assert!(
            text.contains(&format!("coverage: {count} {name} scenarios")),
            "{text}"
        );
        assert!(text.contains("(the rules in "), "{text}");
    }
    let scenarios = out.path().join("scenarios");
    // The rules, written flat beside the scenarios, are the file's.
    for (folder, file) in [("capablanca", capablanca()), ("lab3-with-en-passant", ep)] {
        let written = scenarios.join(folder).join("rules.toml");
        let text = std::fs::read_to_string(&written).unwrap();
        assert_eq!(text, rulefile::show(&rules_of(&file)), "{folder}");
        assert!(rules_of(&written).same_rules(&rules_of(&file)), "{folder}");
    }
    // The scenarios keep their family's `@rules` (a Lab 3 course's, none).
    let texts = |folder: &str| -> Vec<String> {
        let mut v: Vec<_> = std::fs::read_dir(scenarios.join(folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "txt"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect();
        v.sort();
        v
    };
    let capa = texts("capablanca");
    assert_eq!(capa.len(), 30);
    assert!(capa.iter().all(|t| t.contains("\n@rules standard\n")));
    assert!(
        capa.iter()
            .all(|t| t.starts_with("// chessgrade gen --rules rules.toml --seed 4"))
    );
    let lab3 = texts("lab3-with-en-passant");
    assert_eq!(lab3.len(), 80);
    assert!(lab3.iter().all(|t| !t.lines().any(|l| l.starts_with('@'))));

    // `run OUT/` runs both under their rules, and they pass.
    let o = chessgrade(&["run", out.path().to_str().unwrap(), "--color", "never"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("ok: 110 passed, 0 failed"),
        "{}",
        stdout(&o)
    );

    // The snapshots hold the file's answers: under Lab 3's own rules (the
    // folder file gone), the scenarios that took en passant fail.
    let took: Vec<String> = std::fs::read_dir(scenarios.join("lab3-with-en-passant"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .any(|l| l.starts_with("// covers: ") && l.contains("en passant"))
        })
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(!took.is_empty(), "no scenario of 80 took en passant");
    std::fs::remove_file(scenarios.join("lab3-with-en-passant/rules.toml")).unwrap();
    let o = chessgrade(&["run", out.path().to_str().unwrap(), "--color", "never"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let text = stdout(&o);
    let failed: Vec<&str> = text.lines().filter(|l| l.starts_with("FAIL ")).collect();
    for name in &took {
        assert!(
            failed
                .iter()
                .any(|l| l.contains(&format!("lab3-with-en-passant/{name}"))),
            "{name} passes without the rule file: {failed:?}"
        );
    }
    assert!(
        failed.iter().all(|l| l.contains("lab3-with-en-passant/")),
        "{failed:?}"
    );
}

#[test]
fn a_rule_files_suite_places_the_courses_pieces_and_plays_by_its_rules() {
    let rules = rules_of(&capablanca());
    let suite = suite_gen::generate(&GenOptions::new(rules, 60, 8)).unwrap();
    assert_eq!(suite.coverage.sizes.keys().collect::<Vec<_>>(), [&(8, 10)]);
    let mut own = 0;
    for g in &suite.scenarios {
        let roles = start_roles(g);
        assert!(roles.iter().all(|&r| rules.pieces.knows(r)), "{}", g.text);
        if g.focus == suite_gen::Focus::Start {
            assert_eq!(g.scenario.fen.as_deref(), rules.start, "{}", g.text);
        } else if roles.iter().any(|r| matches!(r, Role::A | Role::C)) {
            own += 1;
        }
    }
    // Random and motif setups draw the archbishop and the chancellor too.
    assert!(
        own >= 10,
        "{own} of 60 setups beyond the start hold an A or a C"
    );
    // Castling to the rule file's files, promotion (to its pieces too).
    let cov = &suite.coverage;
    for f in [Feature::Castling, Feature::Promotion] {
        assert!(cov.feature(f) > 0, "no {}\n{cov}", f.name());
    }
    assert_eq!(cov.missing_refusals(), Vec::<MoveError>::new(), "{cov}");

    // A Lab 3 course that allows en passant gets scenarios that take it.
    let lab3_ep = RuleSet {
        name: "lab3 with en passant",
        en_passant: true,
        ..RuleSet::lab3()
    };
    let suite = suite_gen::generate(&GenOptions::new(lab3_ep, 120, 2026)).unwrap();
    assert!(
        suite.coverage.feature(Feature::EnPassant) >= 2,
        "{}",
        suite.coverage
    );
    assert!(suite.coverage.focuses.contains_key("en-passant"));

    // Pieces of chess that move otherwise (shatranj's queen and bishop):
    // no motif built on chess's pieces, and the suite still reads back.
    let shatranj = rules_of(&root().join("scenarios/variants/shatranj.toml"));
    assert!(!shatranj.pieces.classic_movers());
    let suite = suite_gen::generate(&GenOptions::new(shatranj, 60, 8)).unwrap();
    for focus in ["pin", "check", "mate", "stalemate"] {
        assert!(!suite.coverage.focuses.contains_key(focus), "{focus}");
    }
    assert!(suite.coverage.focuses.contains_key("promotion"));
}

#[test]
fn a_rule_files_suite_is_the_same_bytes_for_a_seed() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let file = capablanca();
    for dir in [a.path(), b.path()] {
        assert!(
            gen_into(dir, file.to_str().unwrap(), "20", "5")
                .status
                .success()
        );
    }
    let ta = tree(a.path());
    assert_eq!(ta.len(), 20 * 2 + 2);
    assert!(ta == tree(b.path()));
}

#[test]
fn a_bad_rule_file_or_a_size_its_start_does_not_have_is_a_staff_error() {
    let out = tempfile::tempdir().unwrap();
    let bad = out.path().join("bad.toml");
    std::fs::write(
        &bad,
        "extends = \"lab3\"\nname = \"x\"\npromotion = \"QX\"\n",
    )
    .unwrap();
    let o = gen_into(&out.path().join("suite"), bad.to_str().unwrap(), "5", "1");
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "{}:3:15: a pawn cannot promote to `X`",
            bad.display()
        )),
        "{err}"
    );
    assert!(!out.path().join("suite").exists());
    // Capablanca starts on 8x10: another size is refused, that one is taken.
    let capa = capablanca();
    let dir = out.path().join("capa");
    let args = |size: &'static str| {
        let mut a = vec!["gen", "--rules", capa.to_str().unwrap(), "--count", "3"];
        a.extend(["--seed", "1", "--size", size, dir.to_str().unwrap()]);
        chessgrade(&a)
    };
    let o = args("8x8");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("start on a 8x10 board"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.exists());
    assert_eq!(args("8x10").status.code(), Some(0));
}

/// docs/gen.md's `gen` and `run` excerpts, rerun in order in a folder of
/// their own (with the project's `scenarios/` for the rule files they
/// name), and its scenario excerpts found in the suites they wrote.
#[test]
fn the_chapters_gen_excerpts_are_real_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root().join("scenarios"), dir.path().join("scenarios")).unwrap();
    let excerpts: Vec<_> = crate::readme::every_excerpt("docs/gen.md")
        .into_iter()
        .filter(|(cmd, _)| cmd.starts_with("chessgrade gen ") || cmd.starts_with("chessgrade run "))
        .collect();
    assert!(excerpts.len() >= 4, "{excerpts:?}");
    for (cmd, expected) in &excerpts {
        let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
        let o = output(command(dir.path()).args(&args).env("NO_COLOR", "1"));
        assert_eq!(o.status.code(), Some(0), "`{cmd}`: {}", stderr(&o));
        let actual = crate::readme::actual_lines(&stdout(&o));
        if let Err(why) = crate::readme::matches(expected, &actual) {
            panic!(
                "docs/gen.md: `$ {cmd}`: {why}\n--- real output:\n{}",
                stdout(&o)
            );
        }
    }
    // A block that shows a generated file is the start of one of them.
    let doc = std::fs::read_to_string(root().join("docs/gen.md")).unwrap();
    let shown: Vec<&str> = doc
        .split("```\n")
        .filter(|block| block.starts_with("// chessgrade gen --rules"))
        .collect();
    assert!(shown.len() >= 2, "{shown:?}");
    let written: Vec<String> = walkdir::WalkDir::new(dir.path())
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "txt"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    for block in shown {
        assert!(
            written.iter().any(|text| text.starts_with(block)),
            "docs/gen.md shows a scenario no excerpt wrote:\n{block}"
        );
    }
}
