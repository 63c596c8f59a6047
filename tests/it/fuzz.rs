//! Property tests: no input makes the parser or the engine panic, and the
//! engine's scans agree with its single calls on random positions.
//!
//! The parser's fuzz harness (run briefly here, in every `cargo test`; the
//! same property runs unbounded with `cargo fuzz run parse` in `fuzz/`):
//! arbitrary bytes, and valid scenarios damaged at the byte level or
//! spliced with hostile pieces (BOMs, lone CRs, NULs, escape sequences,
//! huge numbers, long tokens, FEN lines with random fields, repeated
//! directives). Every input parses or fails with a diagnostic whose line
//! and column lie inside the input and whose text stays short.

use chessgrade::domain::{Coord, Dims, Piece};
use chessgrade::engine::{Position, RuleSet};
use chessgrade::scenario::{parse, parse_bytes};
use chessgrade::subject::EngineSubject;
use proptest::prelude::*;

/// A valid scenario text built from random parts, under any rule set
/// (with or without a Mystery piece), using every kind of step.
fn scenario_text() -> impl Strategy<Value = String> {
    let dims = (1i64..7, 1i64..7);
    let rules = prop::sample::select(vec!["lab3", "standard", "cuhk", "jhu"]);
    (dims, rules, any::<bool>()).prop_flat_map(|((rows, cols), rules, mystery)| {
        let mut roles = vec!['k', 'r', 'b', 'p', 'q', 'n'];
        if mystery {
            roles.push('m');
        }
        let placement = (
            prop::sample::select(vec!['b', 'w']),
            prop::sample::select(roles),
            0..rows,
            0..cols,
        )
            .prop_map(|(c, p, r, k)| format!("{c} {p} {r} {k}"));
        // A square in the rule set's notation, sometimes off the board.
        let square = (0u8..9, 0i64..9).prop_map(move |(file, rank)| {
            let letter = (b'a' + file) as char;
            match rules {
                "jhu" => format!("{}{rank}", letter.to_ascii_uppercase()),
                _ => format!("{letter}{rank}"),
            }
        });
        let sep = if rules == "cuhk" { " " } else { "" };
        let step = prop_oneof![
            Just("isValidScan".to_string()),
            Just("underThreatScan".to_string()),
            (-1..rows + 1, -1..cols + 1, -1..rows + 1, -1..cols + 1)
                .prop_map(|(a, b, c, d)| format!("movePiece {a} {b} {c} {d}")),
            (square.clone(), square).prop_map(move |(a, b)| format!("move {a}{sep}{b}")),
            prop::sample::select(vec![
                "undo", "redo", "status", "score", "stop", "save", "perft 2", "divide 1",
            ])
            .prop_map(str::to_string),
            any::<u64>().prop_map(|seed| format!("machine {seed}")),
        ];
        (
            prop::collection::vec(placement, 0..10),
            prop::collection::vec(step, 0..12),
        )
            .prop_map(move |(ps, ss)| {
                let mystery = if mystery {
                    "@mystery leaper 1,2 2,2 value 3\n"
                } else {
                    ""
                };
                format!(
                    "@rules {rules}\n{mystery}1\n{rows} {cols}\n{}\n~\n{}\n",
                    ps.join("\n"),
                    ss.join("\n")
                )
            })
    })
}

/// Applies random byte-level damage to a text.
fn mutate(text: String, edits: Vec<(usize, u8, u8)>) -> Vec<u8> {
    let mut bytes = text.into_bytes();
    for (pos, kind, byte) in edits {
        let at = if bytes.is_empty() {
            0
        } else {
            pos % (bytes.len() + 1)
        };
        match kind % 3 {
            0 if at < bytes.len() => bytes[at] = byte,
            1 => bytes.insert(at, byte),
            _ if at < bytes.len() => {
                bytes.remove(at);
            }
            _ => {}
        }
    }
    bytes
}

/// Hostile fragments spliced into otherwise valid scenarios.
fn hostile_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\u{feff}".to_string()),
        Just("\r".to_string()),
        Just("\0".to_string()),
        Just("\u{1b}[2J".to_string()),
        Just("//".to_string()),
        Just("@rules standard\n".to_string()),
        Just("@rules jhu\n".to_string()),
        Just("@visibility hidden\n".to_string()),
        Just("99999999999999999999999".to_string()),
        Just("-9223372036854775808".to_string()),
        (1usize..3000).prop_map(|n| "z".repeat(n)),
        (1usize..300).prop_map(|n| " 1".repeat(n)),
        (
            "[pnbrqkPNBRQK1-9/]{0,40}",
            "[wbx-]{0,2}",
            "[KQkqA-H-]{0,5}",
            "[a-h1-8-]{0,3}",
            "[0-9a]{0,3}"
        )
            .prop_map(|(p, s, c, e, n)| format!("\nfen {p} {s} {c} {e} {n} {n}\n")),
        Just("\nboard\n--k\nK-\nw\n".to_string()),
        Just("\nperft 8\n".to_string()),
    ]
}

/// The properties every parse result must have, whatever the input.
fn check_parse(bytes: &[u8]) -> Result<(), TestCaseError> {
    if let Err(diag) = parse_bytes(bytes) {
        let lines = bytes.split(|&b| b == b'\n').count();
        prop_assert!(
            diag.line >= 1 && diag.line <= lines,
            "line {} of {lines}",
            diag.line
        );
        let line = bytes
            .split(|&b| b == b'\n')
            .nth(diag.line - 1)
            .unwrap_or(&[]);
        let chars = String::from_utf8_lossy(line).chars().count();
        prop_assert!(
            diag.col >= 1 && diag.col <= chars + 1,
            "col {} of {chars}",
            diag.col
        );
        prop_assert!(!diag.message.is_empty());
        prop_assert!(diag.to_string().len() < 2000, "{}", diag);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn spliced_hostile_pieces_parse_or_fail_with_located_short_errors(
        text in scenario_text(),
        pieces in prop::collection::vec((any::<usize>(), hostile_piece()), 1..4),
    ) {
        let mut text = text;
        for (at, piece) in pieces {
            let mut at = at % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text.insert_str(at, &piece);
        }
        check_parse(text.as_bytes())?;
    }

    #[test]
    fn arbitrary_bytes_give_located_errors(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        check_parse(&bytes)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = parse_bytes(&bytes);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = parse(&text);
    }

    #[test]
    fn mutated_scenarios_parse_or_fail_cleanly_and_run(
        text in scenario_text(),
        edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6),
    ) {
        let bytes = mutate(text, edits);
        match parse_bytes(&bytes) {
            Ok(scenario) => {
                let exec = chessgrade::runner::execute(&scenario, &mut EngineSubject::new());
                prop_assert!(exec.failure.is_none());
                prop_assert!(exec.trace.render().ends_with("END\n"));
            }
            Err(diag) => {
                prop_assert!(diag.line >= 1);
                prop_assert!(diag.col >= 1);
                prop_assert!(!diag.message.is_empty());
            }
        }
    }

    #[test]
    fn valid_scenarios_always_parse(text in scenario_text()) {
        prop_assert!(parse(&text).is_ok(), "{}", text);
    }

    #[test]
    fn scans_equal_pairwise_calls_on_random_positions(
        (rows, cols, pieces) in (1i64..6, 1i64..6).prop_flat_map(|(r, c)| {
            (Just(r), Just(c), prop::collection::vec(
                (prop::sample::select("kKrRbBpPqQnN".chars().collect::<Vec<_>>()), 0..r, 0..c), 0..8))
        })
    ) {
        let dims = Dims::new(rows, cols).unwrap();
        let mut pos = Position::new(RuleSet::lab3(), dims);
        for (ch, r, c) in pieces {
            pos.place(dims.square_at(r, c).unwrap(), Piece::from_char(ch).unwrap());
        }
        let scan: Vec<_> = pos.valid_moves().into_iter().map(|m| (m.from(), m.to())).collect();
        let mut pairwise = Vec::new();
        for from in dims.squares() {
            for to in dims.squares() {
                if pos.is_valid_move(from.coord(), to.coord()) {
                    pairwise.push((from, to));
                }
            }
        }
        prop_assert_eq!(scan, pairwise);
        let threats = pos.threatened_pieces();
        for sq in dims.squares() {
            prop_assert_eq!(threats.contains(&sq), pos.is_piece_under_threat(sq.coord()));
        }
        prop_assert!(!pos.is_valid_move(Coord::new(-1, 0), Coord::new(0, 0)));
    }
}
