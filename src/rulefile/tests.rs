//! Rule files: reading, errors at their place, the built-in sets written
//! out and read back, and which file a scenario runs under.

use super::*;
use crate::domain::{Color, Role};
use crate::engine::{Castling, Notation, RoleSet};

/// Writes `files` (path, text) under a fresh folder.
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// Reads one rule file's text.
fn read_text(text: &str) -> Result<RuleSet, Diagnostic> {
    let dir = folder(&[("r.toml", text)]);
    load(&dir.path().join("r.toml"))
}

/// The line, column and message of a rule file's error.
fn error(text: &str) -> (usize, usize, String) {
    let d = read_text(text).expect_err("an error");
    assert!(
        d.path.as_ref().is_some_and(|p| p.ends_with("r.toml")),
        "{d}"
    );
    (d.line, d.col, d.message)
}

#[test]
fn every_built_in_set_reads_back_from_its_printed_file() {
    let dir = tempfile::tempdir().unwrap();
    for id in RuleSetId::ALL {
        let built_in = id.rules();
        let path = dir.path().join(format!("{id}.toml"));
        std::fs::write(&path, show(&built_in)).unwrap();
        let read = load(&path).unwrap_or_else(|d| panic!("{d}"));
        assert!(read.same_rules(&built_in), "{id}: {read:#?}");
        assert_eq!((read.id, read.name), (id, id.name()));
    }
}

/// A copy of a built-in set with one line changed but its `name` kept is
/// named after its file: reports never pass it off as the built-in set.
/// An unchanged copy keeps the name.
#[test]
fn a_changed_copy_of_a_built_in_set_is_named_after_its_file() {
    let lab3 = show(&crate::engine::RuleSetId::Lab3.rules());
    let changed = lab3.replace("double_step = true", "double_step = false");
    assert_ne!(changed, lab3);
    let dir = folder(&[("no-double-step.toml", &changed), ("copy.toml", &lab3)]);
    let rules = load(&dir.path().join("no-double-step.toml")).unwrap();
    assert_eq!(rules.name, "no-double-step");
    assert!(!rules.pawn_double_step);
    assert_eq!(load(&dir.path().join("copy.toml")).unwrap().name, "lab3");
}

#[test]
fn a_file_changes_what_it_says_and_keeps_the_rest() {
    let r = read_text("extends = \"lab3\"\nname = \"lab3 with en passant\"\nen_passant = true\n")
        .unwrap();
    assert_eq!((r.id, r.name), (RuleSetId::Lab3, "lab3 with en passant"));
    assert!(r.en_passant);
    assert!(
        RuleSet {
            en_passant: false,
            ..r
        }
        .same_rules(&RuleSet::lab3())
    );
    // Without a name, the file's stem.
    assert_eq!(read_text("extends = \"standard\"\n").unwrap().name, "r");
}

#[test]
fn the_issue_s_example_reads_into_a_capablanca_set() {
    let r = read_text(
        r#"extends = "standard"        # lab3 | standard | cuhk | jhu
name = "capablanca"
castling = "rights"
en_passant = true
double_step = true
promotion = "QRBNAC"
king_safety = true
ends = ["checkmate", "stalemate"]
start = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1"
[pieces.A]
name = "archbishop"
betza = "BN"
value = 7
[pieces.C]
name = "chancellor"
betza = "RN"
value = 8
"#,
    )
    .unwrap();
    assert_eq!(r.castling, Castling::Rights);
    assert_eq!(r.promotion.letters(), "QRBNAC");
    assert_eq!(r.piece_name(Role::A), "archbishop");
    assert_eq!((r.value(Role::A), r.value(Role::C)), (7, 8));
    assert_eq!(r.pieces.legs(Role::C, Color::White).len(), 12);
    let start = Position::from_fen(r, r.start.unwrap()).unwrap();
    assert_eq!(start.dims().cols(), 10);
    assert_eq!(start.legal_moves().len(), 28);
    // Written out and read back: the same rules.
    let again = read_text(&show(&r)).unwrap();
    assert!(again.same_rules(&r), "{}", show(&r));
}

use crate::engine::Position;

#[test]
fn chess_pieces_may_be_given_other_moves_or_values() {
    let r = read_text(
        "extends = \"standard\"\n[pieces.N]\nbetza = \"mNcB\"\n[pieces.B]\nbetza = \"mBcN\"\n[pieces.Q]\nvalue = 10\n",
    )
    .unwrap();
    assert!(!r.pieces.classic_movers());
    assert_eq!(r.piece_name(Role::Knight), "knight");
    assert_eq!(r.value(Role::Queen), 10);
    let knight = r.pieces.legs(Role::Knight, Color::White);
    assert!(
        knight
            .iter()
            .all(|l| (l.range == 1) == (l.quiet && !l.capture))
    );
    // `values` changes a value without a [pieces] table.
    let v = read_text("extends = \"cuhk\"\n[values]\nQ = 90\n").unwrap();
    assert_eq!((v.value(Role::Queen), v.value(Role::King)), (90, 1000));
}

#[test]
fn a_file_may_extend_another_file_but_not_in_a_loop() {
    let dir = folder(&[
        (
            "base.toml",
            "extends = \"standard\"\n[pieces.A]\nbetza = \"BN\"\n",
        ),
        (
            "sub/term.toml",
            "extends = \"../base.toml\"\npromotion = \"QA\"\n",
        ),
        ("a.toml", "extends = \"b.toml\"\n"),
        ("b.toml", "extends = \"a.toml\"\n"),
    ]);
    let term = load(&dir.path().join("sub/term.toml")).unwrap();
    assert_eq!(term.id, RuleSetId::Standard);
    assert_eq!(term.promotion, RoleSet::of(&[Role::Queen, Role::A]));
    assert!(term.knows(Role::A));
    let d = load(&dir.path().join("a.toml")).unwrap_err();
    assert!(d.message.contains("loop"), "{d}");
    assert_eq!((d.line, d.col), (1, 11));
}

#[test]
fn bad_files_are_errors_at_their_place() {
    let cases: &[(&str, (usize, usize), &str)] = &[
        (
            "extends = \"standard\"\nen_pasant = true\n",
            (2, 1),
            "unknown key `en_pasant`",
        ),
        ("name = \"x\"\n", (1, 1), "missing `extends`"),
        (
            "extends = \"chess960\"\n",
            (1, 11),
            "unknown rule set `chess960`",
        ),
        (
            "extends = \"standard\"\nen_passant = \"yes\"\n",
            (2, 14),
            "true or false",
        ),
        (
            "extends = \"standard\"\ncastling = \"always\"\n",
            (2, 12),
            "unknown castling",
        ),
        (
            "extends = \"standard\"\nends = [\"mate\"]\n",
            (2, 9),
            "unknown end `mate`",
        ),
        (
            "extends = \"standard\"\nends = \"checkmate\"\n",
            (2, 8),
            "a list",
        ),
        (
            "extends = \"standard\"\npromotion = \"QX\"\n",
            (2, 15),
            "no such piece",
        ),
        (
            "extends = \"standard\"\npromotion = \"QK\"\n",
            (2, 15),
            "may not promote to a king",
        ),
        (
            "extends = \"standard\"\npromotion = \"qr\"\n",
            (2, 14),
            "upper-case letters",
        ),
        (
            "extends = \"standard\"\npromotion = \"QRQ\"\n",
            (2, 16),
            "listed twice",
        ),
        (
            "extends = \"standard\"\n[pieces.A]\nbetza = \"BX\"\n",
            (3, 11),
            "`X` is not a Betza atom",
        ),
        (
            "extends = \"standard\"\n[pieces.A]\nbetza = \"pR\"\n",
            (3, 10),
            "hoppers",
        ),
        (
            "extends = \"standard\"\n[pieces.A]\nname = \"a\"\n",
            (2, 9),
            "needs `betza`",
        ),
        (
            "extends = \"standard\"\n[pieces.A]\nbetza = \"\"\n",
            (3, 9),
            "at least one move",
        ),
        (
            "extends = \"standard\"\n[pieces.a]\nbetza = \"B\"\n",
            (2, 9),
            "upper case",
        ),
        (
            "extends = \"standard\"\n[pieces.AB]\nbetza = \"B\"\n",
            (2, 9),
            "not a piece letter",
        ),
        (
            "extends = \"standard\"\n[pieces.K]\nbetza = \"N\"\n",
            (3, 1),
            "takes only a value",
        ),
        (
            "extends = \"standard\"\n[pieces.A]\nbetza = \"B\"\nspeed = 3\n",
            (4, 1),
            "unknown key `speed`",
        ),
        (
            "extends = \"standard\"\n[pieces.A]\nbetza = \"B\"\nvalue = -1\n",
            (4, 9),
            "whole number from 0",
        ),
        (
            "extends = \"standard\"\nstart = \"8/7 w - -\"\n",
            (2, 9),
            "does not fit",
        ),
        (
            "extends = \"standard\"\nstart = \"4k3/8/8/8/8/8/8/A3K3 w - - 0 1\"\n",
            (2, 26),
            "`A` is not a piece",
        ),
        (
            "extends = \"lab3\"\nstart = \"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\"\n",
            (2, 36),
            "castling is not by rights",
        ),
        (
            "extends = \"standard\"\ncastling_files = [\"g\", \"c\"]\n",
            (2, 18),
            "comes before",
        ),
        (
            "extends = \"standard\"\ncastling_files = [\"c\"]\n",
            (2, 18),
            "two file letters",
        ),
        ("extends = \"standard\"\nname = \"\"\n", (2, 8), "printable"),
        (
            "extends = \"standard\"\nen_passant = \n",
            (2, 14),
            "not a TOML file",
        ),
        (
            "extends = \"standard\"\n[values]\nA = 3\n",
            (3, 1),
            "not a piece of these rules",
        ),
    ];
    for (text, at, words) in cases {
        let (line, col, message) = error(text);
        assert!(message.contains(words), "{text:?}: {message}");
        assert_eq!((line, col), *at, "{text:?}: {message}");
    }
}

#[test]
fn a_key_of_the_set_inside_a_piece_table_is_the_piece_s_unknown_key() {
    // TOML puts every key after `[pieces.A]` in that table.
    let (line, col, m) =
        error("extends = \"standard\"\n[pieces.A]\nbetza = \"BN\"\npromotion = \"QA\"\n");
    assert!(m.contains("unknown key `promotion` in [pieces.A]"), "{m}");
    assert_eq!((line, col), (4, 1));
}

#[test]
fn files_that_are_not_rule_files_are_refused_whole() {
    let dir = folder(&[("bin.toml", "")]);
    std::fs::write(dir.path().join("bin.toml"), [0xff, 0xfe, 0x00]).unwrap();
    let d = load(&dir.path().join("bin.toml")).unwrap_err();
    assert!(d.message.contains("UTF-8"), "{d}");
    let d = load(&dir.path().join("missing.toml")).unwrap_err();
    assert!(d.message.contains("cannot read rule file"), "{d}");
    let fifo = dir.path().join("fifo.toml");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let d = load(&fifo).unwrap_err();
    assert!(d.message.contains("FIFO"), "{d}");
    // Over the cap, which no flag raises: said so, with no advice to.
    let big = dir.path().join("big.toml");
    std::fs::write(&big, "#".repeat(2 << 20)).unwrap();
    let d = load(&big).unwrap_err();
    assert!(
        d.message
            .contains("the file is larger than the 1 MiB such a file may be (2 MiB)"),
        "{d}"
    );
    assert!(!d.message.contains("--max-input-mb"), "{d}");
}

#[test]
fn named_takes_a_built_in_name_or_a_file() {
    assert!(named("jhu").unwrap().same_rules(&RuleSet::jhu()));
    let dir = folder(&[("x.toml", "extends = \"cuhk\"\nnotation = \"uci\"\n")]);
    let path = dir.path().join("x.toml");
    let r = named(path.to_str().unwrap()).unwrap();
    assert_eq!((r.id, r.notation), (RuleSetId::Cuhk, Notation::Uci));
    let d = named("chess960").unwrap_err();
    assert!(d.message.contains("unknown rule set"), "{d}");
}

const EN_PASSANT: &str = "extends = \"lab3\"\nen_passant = true\n";

#[test]
fn a_folder_file_replaces_its_family_below_it() {
    let dir = folder(&[
        ("s/rules.toml", EN_PASSANT),
        ("s/a/x.txt", ""),
        (
            "s/b/rules.toml",
            "extends = \"lab3\"\ndouble_step = false\n",
        ),
        ("s/b/y.txt", ""),
        ("other/z.txt", ""),
    ]);
    let root = dir.path().join("s");
    let book = RuleBook::new(Some(&root), &[]).unwrap();
    let at = |p: &str, named: Option<&str>| {
        let path = dir.path().join(p);
        book.for_scenario(&path).resolve(named).unwrap().rules
    };
    // Below s/: s/rules.toml for lab3 scenarios, the nearest file first.
    assert!(at("s/a/x.txt", None).en_passant);
    assert!(at("s/a/x.txt", Some("lab3")).en_passant);
    let y = at("s/b/y.txt", None);
    assert!(!y.pawn_double_step && !y.en_passant);
    // Other families keep their built-in set.
    assert!(at("s/a/x.txt", Some("standard")).same_rules(&RuleSet::standard()));
    // Outside the root: its own folder only.
    assert!(at("other/z.txt", None).same_rules(&RuleSet::lab3()));
}

#[test]
fn rules_flags_replace_their_family_and_disagreements_are_errors() {
    let dir = folder(&[
        ("flag.toml", EN_PASSANT),
        (
            "same.toml",
            "extends = \"lab3\"\nname = \"other name\"\nen_passant = true\n",
        ),
        ("std.toml", "extends = \"standard\"\nen_passant = false\n"),
        ("s/x.txt", ""),
        ("t/rules.toml", "extends = \"lab3\"\ndouble_step = false\n"),
        ("t/y.txt", ""),
        (
            "u/rules.toml",
            "extends = \"lab3\"\nname = \"u\"\nen_passant = true\n",
        ),
        ("u/z.txt", ""),
    ]);
    let d = dir.path();
    let book = RuleBook::new(Some(d), &[d.join("flag.toml"), d.join("std.toml")]).unwrap();
    let (xp, yp, zp) = (d.join("s/x.txt"), d.join("t/y.txt"), d.join("u/z.txt"));
    let x = book.for_scenario(&xp);
    assert!(x.resolve(None).unwrap().rules.en_passant);
    assert!(!x.resolve(Some("standard")).unwrap().rules.en_passant);
    assert!(
        x.resolve(Some("cuhk"))
            .unwrap()
            .rules
            .same_rules(&RuleSet::cuhk())
    );
    // A folder file and a flag that disagree: the scenario's error.
    let y = book.for_scenario(&yp);
    match y.resolve(None) {
        Err(RulesError::Here(m)) => {
            assert!(m.contains("disagree") && m.contains("flag.toml"), "{m}")
        }
        other => panic!("{other:?}"),
    }
    // Agreeing ones (the same rules under another name) are fine.
    let z = book.for_scenario(&zp);
    assert!(z.resolve(None).unwrap().rules.en_passant);
    // Two flags for one family: the staff's error before anything runs.
    let e = RuleBook::new(None, &[d.join("flag.toml"), d.join("same.toml")]).unwrap_err();
    assert!(e.message.contains("two --rules files for the lab3"), "{e}");
    let e = RuleBook::new(None, &[d.join("missing.toml")]).unwrap_err();
    assert!(e.message.contains("cannot read rule file"), "{e}");
}

#[test]
fn a_scenario_names_a_file_beside_it_or_under_the_root() {
    let dir = folder(&[
        (
            "s/v/capa.toml",
            "extends = \"standard\"\n[pieces.A]\nbetza = \"BN\"\n",
        ),
        ("s/v/x.txt", ""),
        ("s/common.toml", "extends = \"jhu\"\n"),
        ("s/w/y.txt", ""),
        ("s/w/bad.toml", "extends = \"standard\"\nfoo = 1\n"),
    ]);
    let root = dir.path().join("s");
    let book = RuleBook::new(Some(&root), &[]).unwrap();
    let (xp, yp) = (dir.path().join("s/v/x.txt"), dir.path().join("s/w/y.txt"));
    let x = book.for_scenario(&xp);
    assert!(x.resolve(Some("capa.toml")).unwrap().rules.knows(Role::A));
    let y = book.for_scenario(&yp);
    assert_eq!(
        y.resolve(Some("common.toml")).unwrap().rules.id,
        RuleSetId::Jhu
    );
    match y.resolve(Some("nope.toml")) {
        Err(RulesError::Here(m)) => assert!(m.contains("no rule file `nope.toml`"), "{m}"),
        other => panic!("{other:?}"),
    }
    match y.resolve(Some("bad.toml")) {
        Err(RulesError::InFile(d)) => assert_eq!((d.line, d.col), (2, 1), "{d}"),
        other => panic!("{other:?}"),
    }
    match y.resolve(Some("chess960")) {
        Err(RulesError::Here(m)) => assert!(m.contains("unknown rule set"), "{m}"),
        other => panic!("{other:?}"),
    }
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    /// Pieces of rule files, to be strung together at random.
    const PARTS: [&str; 24] = [
        "extends = \"standard\"\n",
        "extends = \"lab3\"\n",
        "extends = \"r.toml\"\n",
        "name = \"x\"\n",
        "promotion = \"QA\"\n",
        "promotion = \"\"\n",
        "castling = \"rights\"\n",
        "castling_files = [\"c\", \"z\"]\n",
        "ends = [\"checkmate\", \"checkmate\"]\n",
        "start = \"4k3/8/8/8/8/8/8/A3K3 w KQkq - 0 1\"\n",
        "start = \"\"\n",
        "[pieces.A]\n",
        "[pieces.K]\n",
        "[pieces.M]\n",
        "betza = \"BN\"\n",
        "betza = \"nR9fsmcZZ\"\n",
        "betza = \"\\u0000\"\n",
        "value = 99999999999\n",
        "[values]\nA = 3\n",
        "en_passant = 1\n",
        "= = =\n",
        "[[pieces]]\n",
        "\"\\ud800\"\n",
        "é\n",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Any mix of valid and broken lines reads as rules or as a
        /// located error, never a panic.
        #[test]
        fn any_text_is_rules_or_a_located_error(picks in prop::collection::vec(0..PARTS.len(), 0..12)) {
            let text: String = picks.iter().map(|&i| PARTS[i]).collect();
            if let Err(d) = read_text(&text) {
                prop_assert!(d.line >= 1 || d.message.contains("extends"), "{d}");
            }
        }

        /// So do random bytes.
        #[test]
        fn random_text_never_panics(text in "\\PC{0,200}") {
            let _ = read_text(&text);
        }
    }
}

/// A `move` step takes every move as `divide` writes it: castles on a
/// 10x8 board (the king moves four files: written king-takes-rook) and
/// from Chess960 starts included, promotions to the rules' own pieces too.
#[test]
fn a_move_is_taken_as_divide_writes_it() {
    let capablanca = read_text(
        "extends = \"standard\"\npromotion = \"QRBNAC\"\ncastling_files = [\"c\", \"i\"]\n[pieces.A]\nbetza = \"BN\"\n[pieces.C]\nbetza = \"RN\"\n",
    )
    .unwrap();
    let standard = crate::engine::RuleSetId::Standard.rules();
    for (rules, fen) in [
        (
            capablanca,
            "r3k4r/pPpppppppp/10/10/10/10/PPPPPPPPPP/R3K4R w KQkq - 0 1",
        ),
        (
            capablanca,
            "r3k4r/pppppppppp/10/10/10/10/PPPPPPPPPP/R3K4R b KQkq - 0 1",
        ),
        (standard, "r5kr/8/8/8/8/8/8/RK5R w AH - 0 1"),
        (standard, "1rk4r/8/8/8/8/8/8/1RK4R w BHbh - 0 1"),
    ] {
        let pos = Position::from_fen(rules, fen).unwrap();
        let dims = pos.dims();
        for mv in pos.legal_moves() {
            let text = mv.uci(dims);
            // A square is letters then digits; a promotion's letter follows.
            let square_end = |t: &str| {
                let letters = t.find(|c: char| c.is_ascii_digit()).unwrap();
                letters
                    + t[letters..]
                        .find(|c: char| !c.is_ascii_digit())
                        .unwrap_or(t.len() - letters)
            };
            let (from, rest) = text.split_at(square_end(&text));
            let (to, promo) = rest.split_at(square_end(rest));
            let promotion = promo
                .chars()
                .next()
                .and_then(|c| Role::from_letter(c.to_ascii_uppercase()));
            let got = pos.check_move(
                crate::engine::parse_square(dims, from),
                crate::engine::parse_square(dims, to),
                promotion,
            );
            assert_eq!(got, Ok(mv), "{fen}: `move {text}`");
        }
    }
}
