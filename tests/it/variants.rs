//! Rule files checked against an independent implementation: every rule
//! file of `scenarios/variants/` is a Fairy-Stockfish variant of the same
//! name, and chessgrade's perft must equal Fairy-Stockfish's from the
//! variant's start and from positions reached by random play; and pieces
//! of Fairy-Stockfish's own library, written in Betza in a rule file and
//! named in a Fairy-Stockfish variants file, must move alike on random
//! boards.
//!
//! Fairy-Stockfish is Debian's `fairy-stockfish` package (11.1), which
//! `.ci/run` installs. Where it is absent the tests say how to get it and
//! pass, except under CI (`CI` set), where its absence is a failure.

use crate::helpers;
use chessgrade::domain::{Color, Dims, Piece, Role};
use chessgrade::engine::{Position, RuleSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// Plies deep each position is counted.
const DEPTH: u32 = 3;
/// Positions reached by random play, per variant.
const RANDOM_POSITIONS: usize = 20;

/// The `fairy-stockfish` binary, or `None` (said, and failing under CI).
fn fairy_stockfish() -> Option<PathBuf> {
    let found = which::which("fairy-stockfish")
        .ok()
        .or_else(|| Some(PathBuf::from("/usr/games/fairy-stockfish")).filter(|p| p.exists()));
    if found.is_none() {
        let how = "install Debian's package: apt-get install fairy-stockfish";
        assert!(
            std::env::var_os("CI").is_none(),
            "fairy-stockfish is missing ({how})"
        );
        eprintln!("skipping: fairy-stockfish is missing; {how}");
    }
    found
}

/// A running Fairy-Stockfish, spoken to over UCI.
struct Fsf {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Fsf {
    fn start(bin: &Path) -> Fsf {
        let mut child = Command::new(bin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("fairy-stockfish starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut fsf = Fsf {
            child,
            stdin,
            lines,
        };
        fsf.send("uci");
        fsf.until(|l| l == "uciok");
        fsf
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("fairy-stockfish reads");
        self.stdin.flush().unwrap();
    }

    /// The lines up to the one `done` accepts (which is returned last).
    fn until(&mut self, done: impl Fn(&str) -> bool) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("fairy-stockfish went quiet after {seen:?}"));
            let last = done(&line);
            seen.push(line);
            if last {
                return seen;
            }
        }
    }

    fn variant(&mut self, name: &str, variants_file: Option<&Path>) {
        if let Some(file) = variants_file {
            self.send(&format!(
                "setoption name VariantPath value {}",
                file.display()
            ));
        }
        self.send(&format!("setoption name UCI_Variant value {name}"));
        self.send("isready");
        self.until(|l| l == "readyok");
    }

    /// Perft of `fen`, with Fairy-Stockfish's per-move counts.
    fn perft(&mut self, fen: &str, depth: u32) -> (u64, Vec<String>) {
        self.send(&format!("position fen {fen}"));
        self.send(&format!("go perft {depth}"));
        let lines = self.until(|l| l.starts_with("Nodes searched:"));
        let total = lines
            .last()
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .expect("a node count");
        (total, lines)
    }
}

impl Drop for Fsf {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.child.wait();
    }
}

/// SplitMix64: the positions are the same on every run.
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
        (self.next() % n as u64) as usize
    }
}

/// The start and `count` positions reached from it by random legal play
/// (1 to 40 plies, stopping early where no move is left).
fn positions(rules: RuleSet, start: &str, count: usize, rng: &mut Rng) -> Vec<String> {
    let mut out = vec![start.to_string()];
    for _ in 0..count {
        let mut pos = Position::from_fen(rules, start).unwrap();
        for _ in 0..1 + rng.below(40) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play(moves[rng.below(moves.len())]);
        }
        out.push(pos.to_fen());
    }
    out
}

/// A mismatch, with both sides' per-move counts to find the move at fault.
fn mismatch(what: &str, fen: &str, ours: &Position, theirs: (u64, Vec<String>)) -> String {
    let mut divide: Vec<String> = ours
        .divide(DEPTH)
        .into_iter()
        .map(|(m, n)| format!("{m}: {n}"))
        .collect();
    divide.sort();
    let mut fsf: Vec<String> = theirs.1.into_iter().filter(|l| l.contains(": ")).collect();
    fsf.sort();
    format!(
        "{what}: perft {DEPTH} of {fen}: chessgrade {}, fairy-stockfish {}\nchessgrade: {divide:?}\nfairy-stockfish: {fsf:?}",
        ours.perft(DEPTH),
        theirs.0
    )
}

#[test]
fn every_variant_rule_file_counts_what_fairy_stockfish_counts() {
    let Some(bin) = fairy_stockfish() else {
        return;
    };
    let dir = helpers::root().join("scenarios/variants");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "the variants: {files:?}");
    let mut fsf = Fsf::start(&bin);
    let mut failures = Vec::new();
    let mut rng = Rng(0x5eed_cafe);
    for file in &files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let rules = chessgrade::rulefile::load(file).unwrap_or_else(|d| panic!("{d}"));
        let start = rules.start_fen();
        fsf.variant(&name, None);
        for fen in positions(rules, start, RANDOM_POSITIONS, &mut rng) {
            let ours = Position::from_fen(rules, &fen).unwrap();
            let theirs = fsf.perft(&fen, DEPTH);
            if ours.perft(DEPTH) != theirs.0 {
                failures.push(mismatch(&name, &fen, &ours, theirs));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Pieces of Fairy-Stockfish's library (its 11.1 names) and their Betza,
/// as its `piece.cpp` defines them: moves and captures apart, directions,
/// lame leaps, compounds.
const LIBRARY: [(&str, &str); 20] = [
    ("knibis", "mNcB"),
    ("biskni", "mBcN"),
    ("kniroo", "mNcR"),
    ("rookni", "mRcN"),
    ("silver", "FfW"),
    ("gold", "WfF"),
    ("fers", "F"),
    ("wazir", "W"),
    ("alfil", "A"),
    ("fersAlfil", "FA"),
    ("bers", "RF"),
    ("aiwok", "RNF"),
    ("archbishop", "BN"),
    ("chancellor", "RN"),
    ("amazon", "QN"),
    ("dragonHorse", "BW"),
    ("commoner", "K"),
    ("centaur", "KN"),
    ("horse", "nN"),
    ("elephant", "nA"),
];

/// Letters a random piece may take (none of chess's).
const LETTERS: [char; 6] = ['A', 'C', 'D', 'E', 'F', 'G'];

#[test]
fn betza_pieces_move_as_fairy_stockfish_s_own_on_random_boards() {
    let Some(bin) = fairy_stockfish() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let mut rng = Rng(0xb37a_0001);
    let mut fsf = Fsf::start(&bin);
    let mut failures = Vec::new();
    for round in 0..12 {
        // Three library pieces on letters of their own.
        let mut picked: Vec<(char, &str, &str)> = Vec::new();
        while picked.len() < 3 {
            let (name, betza) = LIBRARY[rng.below(LIBRARY.len())];
            if !picked.iter().any(|(_, n, _)| *n == name) {
                picked.push((LETTERS[picked.len() * 2 + rng.below(2)], name, betza));
            }
        }
        let mut rule_file = String::from("extends = \"standard\"\ncastling = \"none\"\n");
        let mut ini = format!("[random{round}:chess]\ncastling = false\n");
        for (letter, name, betza) in &picked {
            rule_file.push_str(&format!("[pieces.{letter}]\nbetza = \"{betza}\"\n"));
            ini.push_str(&format!("{name} = {}\n", letter.to_ascii_lowercase()));
        }
        let toml = work.path().join(format!("random{round}.toml"));
        let ini_path = work.path().join(format!("random{round}.ini"));
        std::fs::write(&toml, &rule_file).unwrap();
        std::fs::write(&ini_path, &ini).unwrap();
        let rules = chessgrade::rulefile::load(&toml).unwrap_or_else(|d| panic!("{d}"));
        fsf.variant(&format!("random{round}"), Some(&ini_path));
        for _ in 0..4 {
            let fen = random_board(&mut rng, rules, &picked);
            let ours = Position::from_fen(rules, &fen).unwrap();
            let theirs = fsf.perft(&fen, DEPTH);
            if ours.perft(DEPTH) != theirs.0 {
                let what = format!("{picked:?}");
                failures.push(mismatch(&what, &fen, &ours, theirs));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A random legal-looking 8x8 board: both kings not in check, a few pawns
/// off the first and last rows, and the picked pieces and chess's.
fn random_board(rng: &mut Rng, rules: RuleSet, picked: &[(char, &str, &str)]) -> String {
    let dims = Dims::new(8, 8).unwrap();
    loop {
        let mut pos = Position::new(rules, dims);
        let mut free: Vec<_> = dims.squares().collect();
        let mut put = |pos: &mut Position, piece: Piece, rng: &mut Rng, pawn: bool| {
            let choices: Vec<usize> = (0..free.len())
                .filter(|&i| !pawn || (1..7).contains(&free[i].row()))
                .collect();
            let i = choices[rng.below(choices.len())];
            pos.place(free.swap_remove(i), piece);
        };
        for color in [Color::White, Color::Black] {
            put(&mut pos, Piece::new(color, Role::King), rng, false);
            for _ in 0..rng.below(4) {
                put(&mut pos, Piece::new(color, Role::Pawn), rng, true);
            }
            for (letter, _, _) in picked {
                if rng.below(3) > 0 {
                    let role = Role::from_letter(*letter).unwrap();
                    put(&mut pos, Piece::new(color, role), rng, false);
                }
            }
            for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                if rng.below(4) == 0 {
                    put(&mut pos, Piece::new(color, role), rng, false);
                }
            }
        }
        // The side not to move may not stand in check.
        let fen = pos.to_fen();
        let mut flipped = pos.clone();
        flipped.set_turn(Color::Black);
        if !flipped.in_check() {
            return fen;
        }
    }
}
