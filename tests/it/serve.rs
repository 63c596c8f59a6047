//! `chessgrade serve` on hostile input, in-process: random request
//! sequences (every request, squares on and off the board, coordinates
//! past 64 bits, garbage tokens and bytes, board sizes at and past the
//! limits, CRLF endings) never make it panic, and every session it answers
//! is well formed: each request line gets its answer in the protocol's
//! shape, read with the grader's own answer parsers, or one `ERR <text>`
//! line ([`check_session`]). The same property runs unbounded with
//! `cargo fuzz run serve` in `fuzz/`.

use chessgrade::protocol::{V1, V2, check_session, serve_version};
use proptest::prelude::*;

/// A number as written in a request: mostly small, sometimes at or past
/// a limit (a side of 256, u16, u32, i64), or not a number at all.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0i64..10).prop_map(|n| n.to_string()),
        1 => prop::sample::select(vec![
            "-1", "255", "256", "257", "300", "65535", "65536", "4294967295", "4294967296",
            "9223372036854775807", "-9223372036854775808", "99999999999999999999", "+3", "0x1",
            "1e3", "", "-",
        ])
        .prop_map(str::to_string),
    ]
}

/// A square: two numbers, or `- -`.
fn square() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (number(), number()).prop_map(|(r, c)| format!("{r} {c}")),
        1 => Just("- -".to_string()),
    ]
}

fn size() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (1i64..9, 1i64..9).prop_map(|(r, c)| format!("{r} {c}")),
        1 => prop::sample::select(vec![
            "1 1", "1 256", "256 1", "256 256", "255 256", "0 8", "8 0", "257 8", "8 257",
            "-1 -1", "99999999999999999999 1", "8",
        ])
        .prop_map(str::to_string),
    ]
}

fn fen() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_string()),
        Just("4k3/P7/8/8/8/8/8/4K3 w - - 0 1".to_string()),
        Just("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".to_string()),
        Just("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1".to_string()),
        Just("k/K w - -".to_string()),
        Just(format!(
            "k255/{}/255K w - - 0 1",
            vec!["256"; 254].join("/")
        )),
        (
            "[pnbrqkPNBRQK1-9/]{0,30}",
            "[wbx-]{0,2}",
            "[KQkqA-Za-z-]{0,5}",
            "[a-z0-9-]{0,4}",
            "[0-9a-]{0,3}",
        )
            .prop_map(|(p, s, c, e, n)| format!("{p} {s} {c} {e} {n} {n}")),
    ]
}

fn rules() -> impl Strategy<Value = String> {
    let id = prop::sample::select(vec!["lab3", "standard", "cuhk", "jhu", "chess960", ""]);
    let offset = (-3i64..5, -3i64..5).prop_map(|(a, b)| format!("{a},{b}"));
    prop_oneof![
        3 => id.clone().prop_map(str::to_string),
        1 => (
            id,
            prop::sample::select(vec!["leaper", "slider", "hopper"]),
            number(),
            prop::collection::vec(offset, 0..4),
        )
            .prop_map(|(id, kind, value, offsets)| {
                format!("{id} mystery {kind} {value} {}", offsets.join(" "))
            }),
    ]
}

fn letter(options: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    prop::sample::select(options.to_vec())
}

const COLOURS: &[&str] = &["w", "b", "w", "b", "x", "W", "", "ww"];
const PIECES: &[&str] = &["k", "q", "r", "b", "n", "p", "m", "K", "z", "", "kq"];
const PROMOTIONS: &[&str] = &["", "", " q", " r", " b", " n", " k", " p", " Q", " qq"];

/// One request line (without its ending).
fn request() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => size().prop_map(|s| format!("NEW {s}")),
        1 => fen().prop_map(|f| format!("FEN {f}")),
        1 => rules().prop_map(|r| format!("RULES {r}")),
        6 => (letter(COLOURS), letter(PIECES), square())
            .prop_map(|(c, p, s)| format!("PLACE {c} {p} {s}")),
        1 => letter(COLOURS).prop_map(|c| format!("TURN {c}")),
        4 => (square(), square(), letter(PROMOTIONS))
            .prop_map(|(a, b, p)| format!("PLAY {a} {b}{p}")),
        2 => (square(), square()).prop_map(|(a, b)| format!("VALID {a} {b}")),
        2 => (square(), square()).prop_map(|(a, b)| format!("MOVE {a} {b}")),
        1 => square().prop_map(|a| format!("THREAT {a}")),
        2 => letter(&[
            "BOARD", "SCAN VALID", "SCAN THREAT", "SCAN", "UNDO", "REDO", "STATUS", "SCORE",
            "STOP", "SAVE", "BEGIN", "END", "HELLO 1", "HELLO 2", "HELLO 3", "PERFT 0",
            "PERFT 1", "DIVIDE 0", "DIVIDE 1", "PERFT 4294967296", "DIVIDE -1", "PERFT",
        ])
        .prop_map(str::to_string),
        1 => number().prop_map(|n| format!("MACHINE {n}")),
        1 => "\\PC{0,24}",
        1 => ("[A-Z]{1,8}", "[ -~]{0,12}").prop_map(|(w, rest)| format!("{w} {rest}")),
    ]
}

/// A request line's bytes: the line, sometimes damaged (a NUL, an escape
/// sequence, bytes that are not UTF-8, an extra token, a lone CR), with
/// its ending.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let damage = prop_oneof![
        8 => Just(Vec::new()),
        1 => Just(b"\0".to_vec()),
        1 => Just(b"\x1b[2J".to_vec()),
        1 => Just(vec![0xff, 0xfe]),
        1 => Just(b" extra".to_vec()),
        1 => Just(b"\r".to_vec()),
        1 => Just(b"  ".to_vec()),
    ];
    let ending = prop_oneof![4 => Just(&b"\n"[..]), 1 => Just(&b"\r\n"[..])];
    (request(), damage, ending).prop_map(|(r, d, e)| [r.as_bytes(), &d, e].concat())
}

/// A session: a rule set and a board most of the time (so the game
/// requests get answers, not only errors), then random lines.
fn session() -> impl Strategy<Value = Vec<u8>> {
    let start = prop_oneof![
        1 => Just(Vec::new()),
        3 => (rules(), size()).prop_map(|(r, s)| format!("RULES {r}\nNEW {s}\n").into_bytes()),
        1 => fen().prop_map(|f| format!("HELLO 2\nFEN {f}\n").into_bytes()),
    ];
    (
        start,
        prop::collection::vec(line(), 0..40),
        any::<bool>(),
        prop::sample::select(vec![&b""[..], b"QUIT\n", b"QUIT\nBOARD\n"]),
    )
        .prop_map(|(start, lines, trailing, end)| {
            let mut bytes = [start, lines.concat()].concat();
            // The last line may lack its newline.
            if !trailing && bytes.last() == Some(&b'\n') {
                bytes.pop();
                if bytes.last() == Some(&b'\r') {
                    bytes.pop();
                }
            }
            if !end.is_empty() {
                if bytes.last().is_some_and(|&b| b != b'\n') {
                    bytes.push(b'\n');
                }
                bytes.extend_from_slice(end);
            }
            bytes
        })
}

fn served(input: &[u8], version: u32) -> Vec<u8> {
    let mut out = Vec::new();
    serve_version(input, &mut out, version).expect("writing to a Vec cannot fail");
    out
}

fn check(input: &[u8], version: u32) -> Result<(), TestCaseError> {
    let out = served(input, version);
    if let Err(why) = check_session(input, &out) {
        return Err(TestCaseError::fail(format!(
            "{why}\n--- input\n{}\n--- output\n{}",
            String::from_utf8_lossy(input),
            String::from_utf8_lossy(&out)
        )));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_sessions_never_panic_and_are_answered_line_by_line(
        input in session(),
        v1 in prop::bool::weighted(0.1),
    ) {
        check(&input, if v1 { V1 } else { V2 })?;
    }

    #[test]
    fn arbitrary_bytes_are_answered_line_by_line(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
    ) {
        check(&bytes, V2)?;
    }
}

/// The requests of issue 18, and the corners of the biggest and smallest
/// boards, one by one.
#[test]
fn squares_at_and_past_the_edges_of_every_size() {
    for (rows, cols) in [(1, 1), (1, 256), (256, 1), (256, 256), (8, 8)] {
        let (r, c) = (rows - 1, cols - 1);
        let input = format!(
            "RULES jhu\nNEW {rows} {cols}\nPLACE w k {r} {c}\nPLACE b k 0 0\nPLACE w q {rows} 0\n\
             PLACE w q 0 {cols}\nPLACE w q -1 -1\nBOARD\nSCAN VALID\nSCAN THREAT\n\
             PLAY 300 300 1 1\nPLAY {r} {c} {rows} {cols}\nPLAY {r} {c} - -\nVALID {r} {c} {rows} {c}\n\
             THREAT {rows} {cols}\nPLACE w q 3 8\nSTATUS\nSAVE\nMACHINE 1\nPERFT 1\nDIVIDE 1\n\
             UNDO\nREDO\nSTOP\nPLAY 0 0 0 1\n"
        );
        let out = served(input.as_bytes(), V2);
        let text = String::from_utf8_lossy(&out);
        assert_eq!(check_session(input.as_bytes(), &out), Ok(()), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[4],
            format!("ERR square {rows} 0 is off the {rows}x{cols} board")
        );
        assert_eq!(
            lines[5],
            format!("ERR square 0 {cols} is off the {rows}x{cols} board")
        );
        // (On 1x1 the lone king is stalemated: every move is refused as
        // the game being over, which is checked first.)
        if rows * cols > 1 {
            assert!(
                text.contains("REFUSED start position is not on board"),
                "{text}"
            );
            assert!(
                text.contains("REFUSED end position is not on board"),
                "{text}"
            );
        }
    }
}
