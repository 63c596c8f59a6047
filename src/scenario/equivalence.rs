//! TEMPORARY, test-only: the nom grammar (`parse.rs`) against the
//! hand-written parser it replaced (`legacy.rs`): the same result — the
//! same `Scenario`, or the same `Diagnostic` (line, column, message, source
//! window, caret) — on every bundled scenario, every Lab 3 course config,
//! the seeds, the test fixtures, generated suites of each rule set,
//! hand-written inputs of every line kind, and many thousands of random
//! mutations of all of them.

use super::{legacy, parse};
use crate::engine::RuleSetId;
use std::collections::BTreeMap;
use std::path::Path;

/// SplitMix64: reproducible mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn txt_files(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    if !dir.is_dir() {
        return;
    }
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_type().is_file() && entry.path().extension().is_some_and(|x| x == "txt") {
            let bytes = std::fs::read(entry.path()).unwrap();
            out.push((entry.path().display().to_string(), bytes));
        }
    }
}

/// Inputs of every line kind, valid and not, written by hand.
const HAND: &[&str] = &[
    "0\n4 4\nb k 0 0\nw k 2 0\n~\nisValidScan\nunderThreatScan\nmovePiece 2 0 3 1\n",
    "@rules standard\n@visibility after_due_date\n1\nfen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n~\nmove e2e4\nmove e7e5\nperft 2\ndivide 1\nundo\nredo\nstatus\nscore\nstop\nsave\n",
    "@rules cuhk\n1\n8 8\nw k 7 4\nb k 0 4\n~\nmove A7 A5\nmachine 7\nmove Z0 Z0\nscore\n",
    "@rules jhu\n@mystery leaper 1,3 value 4\n1\nboard\nrnbqkbnr\npppppppp\n--------\n---m----\n--------\n--------\nPPPPPPPP\nRNBQKBNR\nw\nw M 5 5\n~\nmove E2E4\nsave\nstatus\n",
    "@rules jhu\n@mystery slider 1,0 1,1\n1\n4 4\nw m 0 0\n~\nstatus\n",
    "@rules standard\n1\nfen 8/8/8/8/8/8/4P3/4K2k w - - 0 1 // c\nw q 0 0\n~\nmove e2e4\n",
    "\u{feff}// c\r\n\r\n  3  \r\n4\t4\r\nw p 2 1 \r\n~\r\nisValidScan // x\r\nmovePiece 2 1 1 1 *\r\n",
    "1\nboard\n--k\n---\nK-P\nb\n~\nstatus\n",
    "@rules lab3\n@rules lab3\n@visibility hidden\n1\n2 2\n~\n",
    "@mystery leaper 0,2 2,2\n1\n3 3\n~\n",
    "1\n4 4\nw k 0 0 // comment\nb k 3 3\n~\nmovePiece 0 0 1 1 // x\nmovePiece +1 -0 1 1\n",
    "\t1\n4\t\t4\nw\tk 0\t0\n\t~\n\tmovePiece\t0 0\t1 1\n",
    "1\n4 4\n\tw\tz 0 0\n~\n",
    "1\r\n4 4 \t \r\n~\r\nmovePiece 1 1 1 \t\r\n",
    "1 \nboard \n--k \t\nK-- \nw \n~ \t\nstatus \n",
    "\u{feff}\u{feff}1\n1 1\n~\n",
    "4294967296\n1 1\n~\n",
    "+7\n1 1\n~\nperft +8\nmachine +3\n",
    "1\n-9223372036854775809 1\n~\n",
    "1\n-9223372036854775808 1\n~\n",
    "@mystery leaper 1,2 value 4294967296\n1\n1 1\n~\n",
    "@mystery leaper 2147483648,1\n1\n1 1\n~\n",
    "1\n4 4\nw k 1 1 // a king\n\n// more\n   \n",
    "@rules jhu\n@visibility hidden",
];

/// Words that make parsers take unusual paths.
const WORDS: &[&str] = &[
    "",
    " ",
    "\t",
    "-1",
    "+3",
    "--5",
    "-",
    "+",
    "0",
    "8",
    "256",
    "257",
    "99999999999999999999",
    "-9223372036854775808",
    "9223372036854775807",
    "9223372036854775808",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "w",
    "b",
    "k",
    "m",
    "M",
    "x",
    "~",
    "~x",
    "//",
    "//x",
    "a//b",
    "@rules",
    "@visibility",
    "@mystery",
    "@colour",
    "@",
    "lab3",
    "standard",
    "cuhk",
    "jhu",
    "hidden",
    "leaper",
    "slider",
    "value",
    "1,2",
    "1,2,3",
    "1;2",
    ",1",
    "0,0",
    "17,1",
    "fen",
    "board",
    "movePiece",
    "isValidScan",
    "move",
    "perft",
    "divide",
    "machine",
    "status",
    "stop",
    "undo",
    "e2e4",
    "e7e8q",
    "e7e8x",
    "E2E4",
    "A7",
    "Z0",
    "z0",
    "i9",
    "--k",
    "K-P",
    "8//8",
    "8/8/8/8/8/8/8/8",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
    "KQkq",
    "e3",
    "é",
    "\u{feff}",
    "\r",
    "\0",
    "\u{1b}[2J",
    "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
];

/// Whole lines spliced in.
const LINES: &[&str] = &[
    "",
    "// note",
    "   ",
    "~",
    "~ x",
    "board",
    "board x",
    "w",
    "b",
    "b x",
    "--k",
    "-x-",
    "@rules standard",
    "@rules jhu",
    "@rules cuhk",
    "@rules lab3 extra",
    "@visibility visible",
    "@mystery leaper 1,2",
    "@mystery slider 1,0 value 3",
    "@mystery leaper",
    "@mystery leaper 1,2 value",
    "@mystery leaper 1,2 value 3 4",
    "@mystery leaper value -1",
    "fen 8/8/8/8/8/8/8/K6k w - - 0 1",
    "fen 8/8/8/8/8/8/8/K6k x - - 0 1",
    "fen 8/8/8/8/8/8/8/K6k w Qx - 0 1",
    "fen 8/8/8/8/8/8/8/K6k w - e9 0 1",
    "fen 8/8/8/8/8/8/8/K6k w - - a b",
    "fen 8/8/8/8/8/8/8/K6k w - - 0 1 2",
    "fen 8/8/8/8/8/8/8/K6k w",
    "fen 8/8/8/8/8/8/8/K7x w - - 0 1",
    "fen 8/8/8//8/8/8/K6k w - - 0 1",
    "fen m7/8/8/8/8/8/8/K6k w - - 0 1",
    "fen",
    "4 4",
    "4",
    "4 4 4",
    "0 0",
    "300 2",
    "w k 0 0",
    "w m 0 0",
    "w k 9 9",
    "w k 0",
    "w k 0 0 0",
    "isValidScan",
    "movePiece 0 0 1 1",
    "movePiece 0 0 1",
    "move e2e4",
    "move A7 A5",
    "move A7",
    "move Z0 Z0",
    "move",
    "machine 18446744073709551616",
    "machine -1",
    "machine",
    "perft 9",
    "perft -1",
    "divide 8",
    "perft",
    "jump 1 1",
    "status extra words",
];

const ALPHABET: &[u8] = b"0123456789 \t\n\r-+~/@,wbkqrnpmKQRBNPMxz.";

fn mutate(rng: &mut Rng, bytes: &[u8]) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(9) {
            // A byte replaced, inserted or removed.
            0 | 1 => {
                let at = rng.below(bytes.len() + 1);
                let b = if rng.below(8) == 0 {
                    rng.next() as u8
                } else {
                    *rng.pick(ALPHABET)
                };
                match rng.below(3) {
                    0 if at < bytes.len() => bytes[at] = b,
                    1 => bytes.insert(at, b),
                    _ if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    _ => {}
                }
            }
            // A word replaced by an unusual one.
            2 | 3 => {
                let starts: Vec<usize> = (0..bytes.len())
                    .filter(|&i| {
                        !matches!(bytes[i], b' ' | b'\t' | b'\n')
                            && (i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b'\n'))
                    })
                    .collect();
                if starts.is_empty() {
                    continue;
                }
                let start = *rng.pick(&starts);
                let end = (start..bytes.len())
                    .find(|&i| matches!(bytes[i], b' ' | b'\t' | b'\n'))
                    .unwrap_or(bytes.len());
                bytes.splice(start..end, rng.pick(WORDS).bytes());
            }
            // Lines removed, repeated, swapped, spliced in.
            4..=6 => {
                let mut lines: Vec<Vec<u8>> =
                    bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
                let i = rng.below(lines.len());
                match rng.below(4) {
                    0 => {
                        lines.remove(i);
                    }
                    1 => {
                        let line = lines[i].clone();
                        lines.insert(i, line);
                    }
                    2 => {
                        let j = rng.below(lines.len());
                        lines.swap(i, j);
                    }
                    _ => lines.insert(i, rng.pick(LINES).as_bytes().to_vec()),
                }
                bytes = lines.join(&b'\n');
            }
            // Cut short.
            7 => bytes.truncate(rng.below(bytes.len() + 1)),
            // Line endings and blanks.
            _ => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let text = match rng.below(5) {
                    0 => text.replace('\n', "\r\n"),
                    1 => text.replace('\n', " \t\n"),
                    2 => text.replace(' ', "\t"),
                    3 => format!("\u{feff}{text}"),
                    _ => text.replace('\n', "\r"),
                };
                bytes = text.into_bytes();
            }
        }
    }
    bytes
}

/// A message with what it quotes and counts blanked: its kind.
fn template(message: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in message.chars() {
        match c {
            '`' => {
                quoted = !quoted;
                if quoted {
                    out.push_str("`…`");
                }
            }
            _ if quoted => {}
            '0'..='9' => {
                if !out.ends_with('#') {
                    out.push('#');
                }
            }
            _ => out.push(c),
        }
    }
    out
}

fn shown_input(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let cut: String = text.chars().take(600).collect();
    format!("{cut:?}")
}

#[test]
fn the_nom_grammar_reads_every_input_as_the_old_parser_did() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut corpus: Vec<(String, Vec<u8>)> = Vec::new();
    txt_files(&root.join("scenarios"), &mut corpus);
    let bundled = corpus.len();
    txt_files(&root.join("../shared/lab3-course/configs"), &mut corpus);
    let course = corpus.len() - bundled;
    txt_files(&root.join("../shared/seeds"), &mut corpus);
    txt_files(&root.join("tests/fixtures"), &mut corpus);
    for rules in RuleSetId::ALL {
        for seed in [1, 2] {
            let suite =
                crate::r#gen::generate(&crate::r#gen::GenOptions::new(rules, 60, seed)).unwrap();
            for g in suite.scenarios {
                corpus.push((
                    format!("gen {rules} {seed} {}", g.rel.display()),
                    g.text.into_bytes(),
                ));
            }
        }
    }
    for (i, text) in HAND.iter().enumerate() {
        corpus.push((format!("hand {i}"), text.as_bytes().to_vec()));
    }
    // Whole-file edge cases.
    for text in [
        "",
        "\n",
        "\u{feff}",
        "\u{feff}\n",
        "1",
        "1\n",
        "1\r\n",
        "1\r",
        "  \n\t\n",
        "// only\n",
        "@rules jhu",
        "1\n4 4",
        "1\nboard",
        "1\nboard\n--k",
        "1\n4 4\n~",
    ] {
        corpus.push((format!("edge {text:?}"), text.as_bytes().to_vec()));
    }
    assert!(bundled >= 148, "{bundled} bundled scenarios");
    let originals = corpus.len();

    let mut rng = Rng(std::env::var("EQUIVALENCE_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0x5eed));
    let mutants_per_file = std::env::var("EQUIVALENCE_MUTANTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(40);
    let mut inputs: Vec<(String, Vec<u8>)> = corpus.clone();
    for (name, bytes) in &corpus {
        for k in 0..mutants_per_file {
            inputs.push((format!("{name} mutant {k}"), mutate(&mut rng, bytes)));
        }
    }

    let (mut ok, mut errors) = (0, 0);
    let mut messages: BTreeMap<String, usize> = BTreeMap::new();
    let mut differing = Vec::new();
    for (name, bytes) in &inputs {
        let new = parse::parse_bytes(bytes);
        let old = legacy::parse_bytes(bytes);
        match &new {
            Ok(_) => ok += 1,
            Err(d) => {
                errors += 1;
                *messages.entry(template(&d.message)).or_default() += 1;
            }
        }
        if new != old {
            differing.push(format!(
                "{name}: {}\n  new: {new:?}\n  old: {old:?}",
                shown_input(bytes)
            ));
        }
    }
    eprintln!(
        "compared {} inputs ({originals} files: {bundled} bundled, {course} course configs, the rest seeds, fixtures, generated, hand-written; {} mutants): {ok} parse, {errors} errors of {} kinds",
        inputs.len(),
        inputs.len() - originals,
        messages.len()
    );
    for (kind, n) in &messages {
        eprintln!("  {n:6}  {kind}");
    }
    assert!(
        differing.is_empty(),
        "{} of {} inputs differ:\n{}",
        differing.len(),
        inputs.len(),
        differing[..differing.len().min(10)].join("\n")
    );
}

#[test]
fn huge_and_hostile_inputs_read_alike() {
    let inputs = [
        format!("1\n4 4\n~\nmovePiece 1 1 1 1{}\n\nx", " 1".repeat(1 << 18)),
        format!("1\n4 4\nw k 1 1{}\n~\n", " 1".repeat(1 << 18)),
        format!("1\n4 4\nw {} 1 1\n~\n", "q".repeat(1 << 18)),
        format!("1\n4 4\n~\n{}", "isValidScan\n".repeat(1 << 16)),
        format!("{}1\n1 1\n~\n", "@rules lab3\n".repeat(1 << 14)),
        format!("1\nboard\n{}\nw\n~\n", "-".repeat(300)),
        format!("1\nboard\n{}w\n~\n", "--\n".repeat(300)),
        format!("{}\n", "\n".repeat(1 << 16)),
        format!("1\n4 4\n~\n{}", "// c\n".repeat(1 << 16)),
        "1 ".repeat(1 << 17),
        "z".repeat(1 << 18),
        format!("1\n4 4\n{}", "\r".repeat(1000)),
        format!("1\n4 4\n~\n{}é\u{feff}", " ".repeat(5000)),
    ];
    for input in &inputs {
        assert_eq!(
            parse::parse(input),
            legacy::parse(input),
            "{}",
            shown_input(input.as_bytes())
        );
    }
}

/// Best of `n` wall times of `f`.
fn best_of(n: usize, mut f: impl FnMut()) -> std::time::Duration {
    (0..n)
        .map(|_| {
            let start = std::time::Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap()
}

/// `cargo test --lib scenario::equivalence::speed -- --ignored --nocapture`:
/// the two parsers' times on the same inputs, in the same binary.
#[test]
#[ignore]
fn speed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    txt_files(&root.join("scenarios"), &mut files);
    txt_files(&root.join("../shared/lab3-course/configs"), &mut files);
    let files: Vec<String> = files
        .into_iter()
        .map(|(_, b)| String::from_utf8(b).unwrap())
        .collect();
    let mut generated = crate::r#gen::GenOptions::new(RuleSetId::Standard, 1, 3);
    generated.steps = Some(10_000);
    let generated = crate::r#gen::generate(&generated).unwrap().scenarios[0]
        .text
        .clone();
    let big_lab3 = format!(
        "// a large Lab 3 scenario\n1\n8 8\nw k 7 4\nb k 0 4\nw r 7 0\nb r 0 0\n~\n{}",
        "movePiece 7 0 6 0\nmovePiece 0 0 1 0\nisValidScan\nmovePiece 6 0 7 0 // back\nmovePiece 1 0 0 0\nunderThreatScan\n"
            .repeat(40_000)
    );
    let one_long_line = format!("1\n4 4\n~\nmovePiece 1 1 1 1{}\n", " 1".repeat(1 << 20));
    let cases: [(&str, Vec<&str>); 4] = [
        (
            "bundled + course files, 299 small files",
            files.iter().map(String::as_str).collect(),
        ),
        ("generated standard, 10,000 steps", vec![generated.as_str()]),
        ("Lab 3, 240,000 steps (4.6 MB)", vec![big_lab3.as_str()]),
        ("one line of a million words", vec![one_long_line.as_str()]),
    ];
    for (name, inputs) in &cases {
        let bytes: usize = inputs.iter().map(|t| t.len()).sum();
        let time =
            |f: fn(&str) -> Result<crate::scenario::Scenario, crate::scenario::Diagnostic>| {
                best_of(7, || {
                    for text in inputs {
                        std::hint::black_box(f(std::hint::black_box(text)).is_ok());
                    }
                })
            };
        let old = time(legacy::parse);
        let new = time(parse::parse);
        eprintln!(
            "{name:45} {bytes:>9} bytes   old {:>9.2?}   new {:>9.2?}   new/old {:.2}",
            old,
            new,
            new.as_secs_f64() / old.as_secs_f64()
        );
    }
}
