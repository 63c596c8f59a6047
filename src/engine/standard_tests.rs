//! One test (or more) per rule of the `standard` rule set, plus FEN, move
//! notation, play/undo, and the legality filter against brute force.

use super::*;
use crate::domain::{Color, Coord, Dims, Piece, Role};
use proptest::prelude::*;

fn fen(text: &str) -> Position {
    Position::from_fen(RuleSet::standard(), text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The side to move's legal moves as sorted UCI texts.
fn ucis(p: &Position) -> Vec<String> {
    let mut v: Vec<String> = p
        .legal_moves()
        .into_iter()
        .map(|m| m.uci(p.dims()))
        .collect();
    v.sort();
    v
}

fn has(p: &Position, uci: &str) -> bool {
    p.find_uci(uci).is_some()
}

/// Plays the UCI moves in order, each of which must be legal.
fn play(p: &mut Position, moves: &[&str]) {
    for m in moves {
        let mv = p
            .find_uci(m)
            .unwrap_or_else(|| panic!("{m} is not legal in {}", p.to_fen()));
        p.play(mv);
    }
}

fn castling_field(p: &Position) -> String {
    p.to_fen().split(' ').nth(2).unwrap().to_string()
}

// ---- turns ----------------------------------------------------------------

#[test]
fn validity_checks_the_turn() {
    let p = fen(START_FEN);
    assert!(p.is_valid_move(Coord::new(6, 4), Coord::new(4, 4)), "e2e4");
    assert!(
        !p.is_valid_move(Coord::new(1, 4), Coord::new(3, 4)),
        "e7e5 is not valid while White is to move"
    );
    assert_eq!(
        p.valid_moves().len(),
        20,
        "the scan lists the side to move only"
    );
}

// ---- en passant -------------------------------------------------------------

#[test]
fn en_passant_takes_the_pawn_beside_and_only_at_once() {
    let mut p = fen("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1");
    play(&mut p, &["d7d5"]);
    assert_eq!(p.en_passant_square(), parse_square(p.dims(), "d6"));
    assert!(p.to_fen().contains(" d6 "), "{}", p.to_fen());
    let ep = p.find_uci("e5d6").expect("en passant is legal");
    assert_eq!(
        ep.kind(),
        MoveKind::EnPassant {
            captured: parse_square(p.dims(), "d5").unwrap()
        }
    );
    let before = p.clone();
    let record = p.play(ep);
    assert_eq!(
        record.captured(),
        Some(Piece::new(Color::Black, Role::Pawn))
    );
    assert_eq!(p.to_fen(), "4k3/8/3P4/8/8/8/8/4K3 b - - 0 2");
    p.undo(record);
    assert_eq!(p, before);

    // One move later the chance is gone.
    play(&mut p, &["e1e2", "e8e7"]);
    assert!(!has(&p, "e5d6"));
    assert_eq!(p.en_passant_square(), None);
}

#[test]
fn en_passant_refused_when_it_exposes_the_king_along_the_row() {
    // Black king a4, pawns d4 (white, just double-stepped) and e4 (black),
    // white queen h4: taking en passant empties both squares of the row.
    let p = fen("8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1");
    assert!(!has(&p, "e4d3"), "horizontal pin");
    assert!(has(&p, "e4e3"), "the pawn may still advance");
    // The same capture with nothing on the row behind is fine.
    let p = fen("8/8/8/8/k2Pp3/8/8/3K4 b - d3 0 1");
    assert!(has(&p, "e4d3"));
}

#[test]
fn en_passant_refused_when_the_capturer_is_pinned_diagonally() {
    // Horizontal again, with the king beside the capturer.
    let p = fen("4k3/8/8/2KPp2q/8/8/8/8 w - e6 0 1");
    assert!(!has(&p, "d5e6"), "{:?}", ucis(&p));
    assert!(has(&p, "d5d6"), "the pawn itself is not pinned");
    let p = fen("4k3/8/8/3pP3/8/1b6/8/5K2 w - d6 0 1");
    assert!(has(&p, "e5d6"));
    let p = fen("4k3/8/8/3pP3/8/8/8/K7 w - d6 0 1");
    assert!(has(&p, "e5d6"));
    // Bishop h8... king b2: pawn e5 pinned on the long diagonal.
    let p = fen("4k2b/8/8/3pP3/8/8/1K6/8 w - d6 0 1");
    assert!(!has(&p, "e5d6"), "pinned diagonally: {:?}", ucis(&p));
}

#[test]
fn en_passant_may_capture_the_checking_pawn() {
    let p = fen("4k3/8/8/3pP3/4K3/8/8/8 w - d6 0 1");
    assert!(p.in_check());
    assert!(has(&p, "e5d6"), "removes the checker");
    assert_eq!(ucis(&p).len(), 8);
}

#[test]
fn no_en_passant_without_the_flag() {
    let rules = RuleSet {
        en_passant: false,
        ..RuleSet::standard()
    };
    let mut p = Position::from_fen(rules, "4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1").unwrap();
    play(&mut p, &["d7d5"]);
    assert_eq!(p.en_passant_square(), None);
    assert!(!has(&p, "e5d6"));
}

// ---- double step ------------------------------------------------------------

#[test]
fn double_steps_are_flagged_and_configurable() {
    let p = fen(START_FEN);
    assert_eq!(p.find_uci("e2e4").unwrap().kind(), MoveKind::DoubleStep);
    assert_eq!(p.find_uci("e2e3").unwrap().kind(), MoveKind::Normal);
    let rules = RuleSet {
        pawn_double_step: false,
        ..RuleSet::standard()
    };
    let p = Position::from_fen(rules, START_FEN).unwrap();
    assert!(p.find_uci("e2e4").is_none());
    assert_eq!(p.legal_moves().len(), 12);
}

// ---- castling ---------------------------------------------------------------

const CASTLES: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

#[test]
fn castling_moves_king_and_rook() {
    let mut p = fen(CASTLES);
    assert!(has(&p, "e1g1") && has(&p, "e1c1"));
    play(&mut p, &["e1g1"]);
    assert_eq!(p.to_fen(), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    play(&mut p, &["e8c8"]);
    assert_eq!(p.to_fen(), "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
}

#[test]
fn castling_rights_are_lost_when_king_or_rook_moves() {
    let mut p = fen(CASTLES);
    play(&mut p, &["h1h2"]);
    assert_eq!(castling_field(&p), "Qkq");
    play(&mut p, &["e8e7"]);
    assert_eq!(castling_field(&p), "Q");
    play(&mut p, &["h2h1", "e7e8"]);
    assert_eq!(
        castling_field(&p),
        "Q",
        "coming back does not restore rights"
    );
    assert!(!has(&p, "e1g1") && has(&p, "e1c1"));
}

#[test]
fn castling_right_is_lost_when_the_rook_is_captured() {
    let mut p = fen("r3k2r/8/8/8/8/8/6B1/R3K2R w KQkq - 0 1");
    play(&mut p, &["g2a8"]);
    assert_eq!(castling_field(&p), "KQk");
    assert!(!has(&p, "e8c8"));
    assert!(has(&p, "e8g8"));
    // A rook captured on its corner by a rook loses both sides' rights.
    let mut p = fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    play(&mut p, &["a1a8"]);
    assert_eq!(castling_field(&p), "Kk");
}

#[test]
fn castling_refused_out_of_through_or_into_check() {
    let p = fen("4k3/4r3/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert!(p.in_check());
    assert!(!has(&p, "e1g1") && !has(&p, "e1c1"), "out of check");
    let p = fen("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert!(!has(&p, "e1g1"), "through an attacked f1");
    assert!(has(&p, "e1c1"));
    let p = fen("4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert!(!has(&p, "e1g1"), "into check on g1");
    let p = fen("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert!(
        has(&p, "e1c1"),
        "b1 attacked does not matter: the king does not cross it"
    );
    let p = fen("4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1");
    assert!(!has(&p, "e1c1"), "b1 must be empty");
}

#[test]
fn castling_needs_the_right_and_the_rook() {
    let p = fen("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1");
    assert!(has(&p, "e1g1") && !has(&p, "e1c1"));
    // A right whose rook is missing is dropped by the FEN reader.
    let p = fen("4k3/8/8/8/8/8/8/4K2R w KQ - 0 1");
    assert_eq!(castling_field(&p), "K");
}

#[test]
fn chess960_castling_by_file_letters() {
    // King b1, rooks a1 and h1 (Shredder letters); king lands on c1/g1.
    let mut p = fen("r5kr/8/8/8/8/8/8/RK5R w AH - 0 1");
    assert_eq!(castling_field(&p), "KQ");
    // Queen side: the king moves one file, written king-takes-rook.
    assert!(has(&p, "b1a1"), "{:?}", ucis(&p));
    play(&mut p, &["b1h1"]);
    assert_eq!(p.to_fen(), "r5kr/8/8/8/8/8/8/R4RK1 b - - 1 1");
    // The king staying on its square still may not castle out of check.
    let p = fen("4k3/8/8/8/8/8/8/1RK1r3 w B - 0 1");
    assert!(p.in_check());
    assert!(!has(&p, "c1b1"), "{:?}", ucis(&p));
}

// ---- promotion --------------------------------------------------------------

#[test]
fn promotion_to_each_allowed_piece_with_and_without_capture() {
    let p = fen("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    let promos: Vec<String> = ucis(&p)
        .into_iter()
        .filter(|m| m.starts_with("a7"))
        .collect();
    assert_eq!(
        promos,
        [
            "a7a8b", "a7a8n", "a7a8q", "a7a8r", "a7b8b", "a7b8n", "a7b8q", "a7b8r"
        ]
    );
    for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
        let mut q = p.clone();
        let uci = format!("a7b8{}", role.letter());
        let record = q.play(q.find_uci(&uci).unwrap());
        assert_eq!(
            record.captured(),
            Some(Piece::new(Color::Black, Role::Knight))
        );
        let b8 = parse_square(q.dims(), "b8").unwrap();
        assert_eq!(q.board().get(b8), Some(Piece::new(Color::White, role)));
        assert_eq!(q.board().get(parse_square(q.dims(), "a7").unwrap()), None);
        q.undo(record);
        assert_eq!(q, p);
    }
    // The rules choose the pieces.
    let rules = RuleSet {
        promotion: RoleSet::from_letters("QRN").unwrap(),
        ..RuleSet::standard()
    };
    let p = Position::from_fen(rules, "4k3/P7/8/8/8/8/8/4K3 w - - 0 1").unwrap();
    let promos: Vec<String> = ucis(&p)
        .into_iter()
        .filter(|m| m.starts_with("a7"))
        .collect();
    assert_eq!(promos, ["a7a8n", "a7a8q", "a7a8r"]);
}

#[test]
fn lab3_style_calls_promote_to_the_first_listed_role() {
    let mut p = fen("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        p.find_move(Coord::new(1, 0), Coord::new(0, 0), Some(Role::Knight))
            .and_then(|m| m.promotion()),
        Some(Role::Knight)
    );
    assert!(p.move_piece(Coord::new(1, 0), Coord::new(0, 0)));
    assert_eq!(p.board_text().as_str().chars().next(), Some('Q'));
}

#[test]
fn promotion_out_of_check_and_blocked_pawns() {
    // The pawn may promote by capturing the checking rook.
    let p = fen("2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1");
    assert!(p.in_check());
    assert!(has(&p, "e7f8q") && has(&p, "e7f8n"));
    assert!(has(&p, "e7e8q"), "promoting on e8 blocks the check");
    let p = fen("4n3/4P3/8/8/8/8/8/k3K3 w - - 0 1");
    assert!(ucis(&p).iter().all(|m| !m.starts_with("e7")));
}

// ---- check, mate, stalemate -------------------------------------------------

#[test]
fn checkmate_and_stalemate_are_detected() {
    let mut p = fen(START_FEN);
    play(&mut p, &["f2f3", "e7e5", "g2g4", "d8h4"]);
    assert!(p.in_check());
    assert_eq!(
        p.status(),
        GameStatus::Checkmate {
            winner: Color::Black
        }
    );
    assert!(p.legal_moves().is_empty() && p.valid_moves().is_empty());

    let p = fen("k7/8/1Q6/8/8/8/8/7K b - - 0 1");
    assert!(!p.in_check());
    assert_eq!(p.status(), GameStatus::Stalemate);

    let p = fen("k7/8/1Q6/8/8/8/8/7K w - - 0 1");
    assert_eq!(p.status(), GameStatus::Ongoing);

    // Lab 3 has no such notion.
    let p = Position::from_fen(RuleSet::lab3(), "k7/8/1Q6/8/8/8/8/7K b - - 0 1").unwrap();
    assert_eq!(p.status(), GameStatus::Ongoing);
}

#[test]
fn double_check_allows_only_king_moves() {
    // Rook a1 and knight f3 both check the king on e1.
    let p = fen("4k3/8/8/8/8/5n2/1B6/r3K3 w - - 0 1");
    assert!(p.in_check());
    assert_eq!(ucis(&p), ["e1e2", "e1f2"]);
    // With one checker, the bishop may block or capture.
    let p = fen("4k3/8/8/8/8/8/1B6/r3K3 w - - 0 1");
    assert!(has(&p, "b2a1") && has(&p, "b2c1"));
}

#[test]
fn pinned_pieces_move_only_along_the_pin() {
    let p = fen("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1");
    let rook: Vec<String> = ucis(&p)
        .into_iter()
        .filter(|m| m.starts_with("e2"))
        .collect();
    assert_eq!(rook, ["e2e3", "e2e4", "e2e5", "e2e6", "e2e7"]);
    let p = fen("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1");
    assert!(ucis(&p).iter().all(|m| !m.starts_with("e2")));
}

// ---- play / undo ------------------------------------------------------------

#[test]
fn undo_restores_every_move_kind() {
    let positions = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/Pp2P3/2N2Q1p/1PPBBPPP/R3K2R b KQkq a3 0 1",
        "1n2k3/P7/8/8/8/8/8/4K3 w - - 5 9",
        "r5kr/8/8/8/8/8/8/RK5R w AHh - 0 1",
        "rnbqkbnrnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQKBNRNR w - - 0 1",
    ];
    let mut kinds = std::collections::HashSet::new();
    for text in positions {
        let p = fen(text);
        for mv in p.legal_moves() {
            let mut q = p.clone();
            let record = q.play(mv);
            assert_ne!(q, p);
            // One ply deeper as well, so that state set by the move is undone too.
            for reply in q.legal_moves() {
                let mut r = q.clone();
                let inner = r.play(reply);
                r.undo(inner);
                assert_eq!(r, q, "{text}: undo {}", reply.uci(q.dims()));
            }
            q.undo(record);
            assert_eq!(q, p, "{text}: undo {}", mv.uci(p.dims()));
            kinds.insert(std::mem::discriminant(&mv.kind()));
        }
    }
    assert_eq!(kinds.len(), 5, "every move kind was tried");
}

/// A move played where its square of departure is empty (not a legal
/// move, which play's contract excludes) on a board that goes the general
/// way carries nothing, and undo takes it back without putting the move's
/// piece on that square.
#[test]
fn undo_of_a_move_from_an_empty_square_on_a_large_board_restores_it() {
    let p = fen("rnbqkbnrnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQKBNRNR w - - 0 1");
    let e2e4 = p.find_uci("e2e4").unwrap();
    let mut q = p.clone();
    q.play(e2e4);
    let mut r = q.clone();
    let record = r.play(e2e4);
    r.undo(record);
    assert_eq!(r, q);
}

#[test]
fn undo_restores_lab3_castling_memory() {
    let mut p = Position::from_fen(RuleSet::lab3(), "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1").unwrap();
    let before = p.clone();
    let castle = p
        .find_move(Coord::new(7, 4), Coord::new(7, 6), None)
        .unwrap();
    let record = p.play(castle);
    assert!(!p.untouched(p.dims().at(7, 7)));
    p.undo(record);
    assert_eq!(p, before);
    assert!(p.untouched(p.dims().at(7, 7)));
}

// ---- notation ---------------------------------------------------------------

#[test]
fn uci_names_files_from_a_and_ranks_from_the_bottom() {
    let p = fen(START_FEN);
    assert_eq!(ucis(&p)[..3], ["a2a3", "a2a4", "b1a3"]);
    let tall =
        Position::from_fen(RuleSet::standard(), "4k/5/5/5/5/5/5/5/5/P3K/5/5 w - - 0 1").unwrap();
    assert!(has(&tall, "a3a4"));
    let tall =
        Position::from_fen(RuleSet::standard(), "4k/5/P4/5/5/5/5/5/5/4K/5/5 w - - 0 1").unwrap();
    assert!(has(&tall, "a10a11"), "{:?}", ucis(&tall));
    assert_eq!(file_name(0), "a");
    assert_eq!(file_name(25), "z");
    assert_eq!(file_name(26), "aa");
    assert_eq!(file_name(27), "ab");
    let wide = Dims::new(2, 30).unwrap();
    let sq = wide.at(0, 27);
    assert_eq!(square_name(wide, sq), "ab2");
    assert_eq!(parse_square(wide, "ab2"), Some(sq));
    assert_eq!(parse_square(wide, "a3"), None);
    assert_eq!(parse_square(wide, "a0"), None);
    assert_eq!(parse_square(wide, "a02"), None);
    assert_eq!(parse_square(wide, "2a"), None);
    assert_eq!(parse_square(wide, ""), None);
}

// ---- FEN --------------------------------------------------------------------

#[test]
fn fen_round_trips() {
    for text in [
        START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
        "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
        "rnbqkbnrnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQKBNRNR w - - 0 1",
        "rnbqkbnrnbqr/pppppppppppp/12/12/12/12/12/12/12/12/PPPPPPPPPPPP/RNBQKBNRNBQR b - - 12 40",
        "4rrk1/8/8/8/8/8/8/4RRK1 w Ff - 0 1",
        "k/1/K b - - 0 1",
    ] {
        let p = fen(text);
        assert_eq!(p.to_fen(), text);
    }
    let p = fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq -");
    assert_eq!(
        p.to_fen(),
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "clocks default"
    );
    assert_eq!((p.dims().rows(), p.dims().cols()), (8, 8));
    let p = fen("rnbqkbnrnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQKBNRNR w - - 0 1");
    assert_eq!((p.dims().rows(), p.dims().cols()), (8, 10));
    assert_eq!(
        p.board().get(p.dims().at(7, 9)),
        Some(Piece::new(Color::White, Role::Rook))
    );
    assert_eq!(
        p.board().get(p.dims().at(0, 0)),
        Some(Piece::new(Color::Black, Role::Rook)),
        "row 0 is the first FEN rank: Black's home row"
    );
}

type ErrorKind = fn(&FenError) -> bool;

#[test]
fn malformed_fens_are_clear_errors() {
    let cases: [(&str, ErrorKind); 15] = [
        ("", |e| matches!(e, FenError::FieldCount(0))),
        ("8/8 w - - 0 1 extra", |e| {
            matches!(e, FenError::FieldCount(7))
        }),
        ("8/8/x7 w - -", |e| {
            matches!(
                e,
                FenError::UnknownPiece {
                    row: 3,
                    letter: 'x'
                }
            )
        }),
        ("8/8/*7 w - -", |e| matches!(e, FenError::Pieces(_))),
        ("8/7 w - -", |e| matches!(e, FenError::Pieces(_))),
        ("8//8 w - -", |e| matches!(e, FenError::Pieces(_))),
        ("08/8 w - -", |e| matches!(e, FenError::Pieces(_))),
        ("257 w - -", |e| matches!(e, FenError::Pieces(_))),
        ("99999999999999999999999 w - -", |e| {
            matches!(e, FenError::Pieces(_))
        }),
        ("8/8 x - -", |e| matches!(e, FenError::Side(_))),
        ("8/8 w KX1 -", |e| matches!(e, FenError::Castling(_))),
        ("8/8 w Z -", |e| matches!(e, FenError::Castling(_))),
        ("8/8/8/8/8/8/8/8 w - e4", |e| {
            matches!(e, FenError::EnPassant(_))
        }),
        ("8/8/8/8/8/8/8/8 w - i6", |e| {
            matches!(e, FenError::EnPassant(_))
        }),
        ("8/8/8/8/8/8/8/8 w - - -1 1", |e| {
            matches!(e, FenError::Clock(_))
        }),
    ];
    for (text, ok) in cases {
        match Position::from_fen(RuleSet::standard(), text) {
            Ok(_) => panic!("`{text}` was accepted"),
            Err(e) => {
                assert!(ok(&e), "`{text}`: unexpected error {e:?}");
                assert!(!e.to_string().is_empty());
            }
        }
    }
    let too_many_rows = vec!["1"; 257].join("/");
    assert!(matches!(
        Position::from_fen(RuleSet::standard(), &format!("{too_many_rows} w - -")),
        Err(FenError::Pieces(_))
    ));
    let widest = ["256"; 2].join("/");
    assert!(Position::from_fen(RuleSet::standard(), &format!("{widest} w - -")).is_ok());
}

proptest! {
    #[test]
    fn random_strings_never_panic_the_fen_reader(text in "\\PC{0,60}") {
        let _ = Position::from_fen(RuleSet::standard(), &text);
    }

    #[test]
    fn fen_like_strings_never_panic_the_fen_reader(
        text in "[pnbrqkPNBRQK0-9/]{1,40} [wbx] [KQkqA-Za-h-]{1,5} ([a-l][0-9]{1,2}|-)( [0-9]{1,3})?( [0-9]{1,3})?"
    ) {
        if let Ok(p) = Position::from_fen(RuleSet::standard(), &text) {
            // Whatever parses has a FEN that parses back to the same position.
            let again = Position::from_fen(RuleSet::standard(), &p.to_fen()).unwrap();
            prop_assert_eq!(again.to_fen(), p.to_fen());
            let _ = p.perft(2);
        }
    }

    /// The king-safety filter (checks and pins seen from the king) agrees
    /// with playing every pseudo-legal move and looking at the kings.
    #[test]
    fn legality_filter_agrees_with_brute_force(
        rows in 3i64..9,
        cols in 3i64..9,
        pieces in prop::collection::vec((0usize..12, 0i64..9, 0i64..9), 1..14),
        black in any::<bool>(),
        ep_col in prop::option::of(0i64..9),
        lab3 in any::<bool>(),
    ) {
        let dims = Dims::new(rows, cols).unwrap();
        let base = if lab3 { RuleSet::lab3() } else { RuleSet::standard() };
        let mut p = Position::new(base, dims);
        for (kind, r, c) in pieces {
            if let Some(sq) = dims.square_at(r % rows, c % cols) {
                p.place(sq, Piece::from_char(b"PNBRQKpnbrqk"[kind] as char).unwrap());
            }
        }
        let turn = if black { Color::Black } else { Color::White };
        p.set_turn(turn);
        let mover_home = home_row(turn.opponent(), dims) as i64 + 2 * turn.opponent().forward() as i64;
        p.set_en_passant_square(ep_col.and_then(|c| dims.square_at(mover_home, c % cols)));
        let mut rights = CastlingRights::NONE;
        for color in [Color::Black, Color::White] {
            rights.set(color, CastleSide::King, Some(dims.cols() - 1));
            rights.set(color, CastleSide::Queen, Some(0));
        }
        p.set_castling_rights(rights);

        let mut loose = p.clone();
        loose.set_rules(RuleSet { king_safety: false, ..base });
        let mut expected: Vec<Move> = loose
            .legal_moves()
            .into_iter()
            .filter(|&mv| {
                let mut q = loose.clone();
                q.play(mv);
                !q.board()
                    .pieces()
                    .any(|(sq, piece)| {
                        piece == Piece::new(turn, Role::King)
                            && attacks::is_attacked(q.board(), sq, turn.opponent())
                    })
            })
            .collect();
        let mut actual = p.legal_moves();
        let key = |m: &Move| (m.from(), m.to(), format!("{:?}", m.kind()));
        expected.sort_by_key(key);
        actual.sort_by_key(key);
        prop_assert_eq!(actual, expected, "{}", p.to_fen());
    }
}

#[test]
fn legal_moves_into_lists_legal_moves_unsorted_on_any_size() {
    let fens = [
        START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        // 12x12: past 128 squares, the mailbox path with its scratch board.
        "rnbqkbnrnbqr/pppppppppppp/12/12/12/12/12/12/12/12/PPPPPPPPPPPP/RNBQKBNRNBQR w - - 0 1",
    ];
    let mut list = crate::engine::MoveList::new();
    for fen in fens {
        let pos = Position::from_fen(RuleSet::standard(), fen).unwrap();
        for _ in 0..2 {
            pos.legal_moves_into(&mut list);
            let mut unsorted = list.to_vec();
            unsorted.sort_by_key(|mv| (mv.from(), mv.to()));
            assert_eq!(unsorted, pos.legal_moves(), "{fen}");
            assert_eq!(pos.count_legal_moves(), list.len() as u64, "{fen}");
        }
    }
}

/// Squares a FEN names (a castling file, an en-passant square) are checked
/// against the board the FEN describes; its pieces fill that board exactly,
/// up to the largest.
#[test]
fn fen_squares_lie_on_the_board_they_describe() {
    for (fen, why) in [
        (
            "4k3/8/8/8/8/8/8/4K2R w I - 0 1",
            "bad FEN castling field: file `I` is off the board",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - a9 0 1",
            "bad FEN en-passant field: `a9` is not a square of this board",
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 b - i3 0 1",
            "bad FEN en-passant field: `i3` is not a square of this board",
        ),
    ] {
        let e = Position::from_fen(RuleSet::standard(), fen).unwrap_err();
        assert_eq!(e.to_string(), why, "{fen}");
    }
    // On a 9-wide board the same file is on it.
    assert!(Position::from_fen(RuleSet::standard(), "4k4/9/9/9/9/9/9/4K3R w I - 0 1").is_ok());
    let middle = vec!["256"; 254].join("/");
    let fen = format!("k255/{middle}/255K w - - 0 1");
    let p = Position::from_fen(RuleSet::standard(), &fen).unwrap();
    let dims = p.dims();
    assert_eq!((dims.rows(), dims.cols()), (256, 256));
    assert_eq!(
        p.board().get(dims.at(0, 0)),
        Some(Piece::new(Color::Black, Role::King))
    );
    assert_eq!(
        p.board().get(dims.at(255, 255)),
        Some(Piece::new(Color::White, Role::King))
    );
    assert_eq!(p.board().pieces().count(), 2);
    assert_eq!(p.to_fen(), fen);
}
