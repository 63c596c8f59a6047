//! Betza notation: how a course writes the moves of its own pieces.
//!
//! A rule file gives each piece beyond the six of chess as a Betza string
//! (`BN` for an archbishop, `mNcB` for a knight that captures like a
//! bishop), as chess-variant engines write pieces. It is read here into
//! [`Leg`]s, the engine's one description of a non-pawn piece's moves:
//! a vector, taken once (a leaper) or repeated (a rider), for moves, for
//! captures or both, and whether the squares on the way must be empty.
//!
//! # Why it reads Betza as Fairy-Stockfish does
//!
//! Betza has dialects; the rule files are checked against Fairy-Stockfish
//! (perft from many positions), so its reading is the one implemented
//! (its `from_betza`), oddities included, and said here:
//!
//! - Atoms: leapers `W` (1,0) `F` (1,1) `D` (2,0) `N` (2,1) `A` (2,2)
//!   `H` (3,0) `C` = `L` (3,1) `Z` = `J` (3,2) `G` (3,3), and `K` (`W`
//!   and `F`); riders `R` (`W` repeated), `B` (`F`), `Q` (`W` and `F`).
//!   Each atom stands for its eight symmetric vectors.
//! - A leaper letter doubled rides (`NN`, the nightrider); a digit after an
//!   atom rides at most that many steps (`R4`, `N2`; `0` is unlimited).
//! - Before an atom: `m` moves only, `c` captures only (neither or both:
//!   both); `n` makes a leaper lame (the squares on its way, stepping along
//!   the longer axis first, must be empty); directions `f` `b` `v`
//!   (forward, backward, both) and `l` `r` `s` (left, right, both), seen
//!   from the piece's own side. A lone direction letter stands for itself
//!   doubled, so `fN` is the two narrow forward knight moves (`ffN`), and
//!   two letters of different axes pair up (`fsN`: the two wide forward
//!   moves; `flF`: one diagonal). For an orthogonal atom a pair splits
//!   (`fsW` is `fW` and `sW`).
//! - Refused, with the letter named: hoppers (`p`, `g`), initial-move-only
//!   moves (`i`), `h`, and any other letter or character.
//!
//! Vectors here are `(dr, dc)` on the engine's board, row 0 at the top, for
//! White: forward is `dr < 0`, right is `dc > 0`. Black's are the same
//! turned half a circle ([`Leg::flipped`]), as Fairy-Stockfish turns them.

use std::fmt;

/// One way a piece moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Leg {
    /// The step, for White (see the module doc).
    pub dr: i32,
    pub dc: i32,
    /// How many steps it may take along the vector: 1 for a leaper, 0 for
    /// no limit (a rider), `n` for a rider of at most `n` steps.
    pub range: u32,
    /// It may move to an empty square.
    pub quiet: bool,
    /// It may capture an enemy piece.
    pub capture: bool,
    /// A leap whose squares on the way must be empty ([`Leg::path`]).
    pub lame: bool,
}

impl Leg {
    /// The same leg for the other colour: the vector turned half a circle.
    pub fn flipped(self) -> Leg {
        Leg {
            dr: -self.dr,
            dc: -self.dc,
            ..self
        }
    }

    /// Does it ride (take more than one step)?
    pub fn rides(self) -> bool {
        self.range != 1
    }

    /// The squares a lame leap crosses, as offsets from its start: step
    /// along the axis with more left to go, diagonally when both are even,
    /// until the target (excluded). Fairy-Stockfish's lame path; for a
    /// straight leap, the squares between.
    pub fn path(self) -> impl Iterator<Item = (i32, i32)> {
        let (tr, tc) = (self.dr, self.dc);
        let (mut r, mut c) = (0, 0);
        std::iter::from_fn(move || {
            if (r, c) == (tr, tc) {
                return None;
            }
            let diff = (tc - c).abs() - (tr - r).abs();
            if diff >= 0 {
                c += (tc - c).signum();
            }
            if diff <= 0 {
                r += (tr - r).signum();
            }
            ((r, c) != (tr, tc)).then_some((r, c))
        })
    }
}

/// A Betza string that could not be read: why, and at which character
/// (0-based, in characters) of the string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BetzaError {
    pub at: usize,
    pub message: String,
}

impl fmt::Display for BetzaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BetzaError {}

/// The longest Betza string read: far past any real piece, short enough
/// that a hostile rule file cannot make a piece of millions of legs.
pub const MAX_BETZA_CHARS: usize = 64;

/// A leaper atom's first vector `(forward, right)`, `a >= b >= 0`.
fn leaper(atom: char) -> Option<&'static [(i32, i32)]> {
    Some(match atom {
        'W' => &[(1, 0)],
        'F' => &[(1, 1)],
        'D' => &[(2, 0)],
        'N' => &[(2, 1)],
        'A' => &[(2, 2)],
        'H' => &[(3, 0)],
        'C' | 'L' => &[(3, 1)],
        'Z' | 'J' => &[(3, 2)],
        'G' => &[(3, 3)],
        'K' => &[(1, 0), (1, 1)],
        _ => return None,
    })
}

/// A rider atom's vectors.
fn rider(atom: char) -> Option<&'static [(i32, i32)]> {
    Some(match atom {
        'R' => &[(1, 0)],
        'B' => &[(1, 1)],
        'Q' => &[(1, 0), (1, 1)],
        _ => None?,
    })
}

const VERTICAL: &str = "fbv";
const HORIZONTAL: &str = "rls";

/// The eight vectors `(forward, right)` of an atom `(a, b)`, each with
/// the direction pairs that select it (Fairy-Stockfish's table).
fn variants(a: i32, b: i32) -> [((i32, i32), &'static [&'static str]); 8] {
    [
        ((a, b), &["ff", "vv", "rf", "rv"]),
        ((-a, -b), &["bb", "vv", "lb", "lv"]),
        ((-b, a), &["rr", "ss", "br", "bs"]),
        ((b, -a), &["ll", "ss", "fl", "fs"]),
        ((b, a), &["rr", "ss", "fr", "fs"]),
        ((-b, -a), &["ll", "ss", "bl", "bs"]),
        ((-a, b), &["bb", "vv", "rb", "rv"]),
        ((a, -b), &["ff", "vv", "lf", "lv"]),
    ]
}

/// Reads a Betza string into legs for White, without duplicates, in a
/// fixed order (sorted), so that equal pieces compare equal.
pub fn parse(betza: &str) -> Result<Vec<Leg>, BetzaError> {
    let chars: Vec<char> = betza.chars().collect();
    let fail = |at: usize, message: String| Err(BetzaError { at, message });
    if chars.len() > MAX_BETZA_CHARS {
        return fail(
            MAX_BETZA_CHARS,
            format!(
                "a Betza string of {} characters (at most {MAX_BETZA_CHARS})",
                chars.len()
            ),
        );
    }
    let mut legs = Vec::new();
    let (mut quiet, mut capture, mut lame) = (false, false, false);
    let mut directions: Vec<String> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            'm' => quiet = true,
            'c' => capture = true,
            'n' => lame = true,
            'p' | 'g' => {
                return fail(
                    i,
                    format!("`{c}`: hoppers are not supported (a piece that jumps over another)"),
                );
            }
            'i' => {
                return fail(
                    i,
                    "`i`: moves allowed only as a piece's first move are not supported".into(),
                );
            }
            'h' => {
                return fail(
                    i,
                    "`h`: the half-direction modifier is not supported".into(),
                );
            }
            _ if VERTICAL.contains(c) || HORIZONTAL.contains(c) => {
                let next = chars.get(i + 1).copied();
                let pairs = |d: char| {
                    (VERTICAL.contains(c) && HORIZONTAL.contains(d))
                        || (HORIZONTAL.contains(c) && VERTICAL.contains(d))
                };
                match next {
                    Some(d) if d == c || pairs(d) => {
                        directions.push([c, d].iter().collect());
                        i += 1;
                    }
                    _ => directions.push([c, c].iter().collect()),
                }
            }
            _ if c.is_ascii_uppercase() => {
                let (atoms, mut range) = match (rider(c), leaper(c)) {
                    (Some(atoms), _) => (atoms, 0),
                    (None, Some(atoms)) => (atoms, 1),
                    (None, None) => {
                        return fail(
                            i,
                            format!(
                                "`{c}` is not a Betza atom (leapers W F D N A H C L Z J G K, riders R B Q)"
                            ),
                        );
                    }
                };
                match chars.get(i + 1) {
                    Some(d) if d.is_ascii_digit() => {
                        range = d.to_digit(10).unwrap_or(0);
                        i += 1;
                        if chars.get(i + 1).is_some_and(char::is_ascii_digit) {
                            return fail(
                                i + 1,
                                format!("`{c}`'s range is one digit (1 to 9, or 0 for no limit)"),
                            );
                        }
                    }
                    Some(&d) if d == c && range == 1 => {
                        range = 0;
                        i += 1;
                    }
                    _ => {}
                }
                if lame && range != 1 {
                    return fail(i, format!("`n` before `{c}`: only a leaper can be lame"));
                }
                let (quiet_too, capture_too) = match (quiet, capture) {
                    (false, false) => (true, true),
                    modes => modes,
                };
                for &(a, b) in atoms {
                    let mut wanted: Vec<String> = Vec::new();
                    for s in &directions {
                        let (x, y) = (s.as_bytes()[0] as char, s.as_bytes()[1] as char);
                        if atoms.len() == 1 && b == 0 && x != y {
                            wanted.push([x, x].iter().collect());
                            wanted.push([y, y].iter().collect());
                        } else {
                            wanted.push(s.clone());
                        }
                    }
                    let selects = |tags: &[&str]| {
                        wanted.is_empty() || tags.iter().any(|t| wanted.iter().any(|w| w == t))
                    };
                    for ((forward, right), tags) in variants(a, b) {
                        if selects(tags) {
                            legs.push(Leg {
                                dr: -forward,
                                dc: right,
                                range,
                                quiet: quiet_too,
                                capture: capture_too,
                                lame,
                            });
                        }
                    }
                }
                (quiet, capture, lame) = (false, false, false);
                directions.clear();
            }
            _ => {
                return fail(i, format!("`{}` is not Betza notation", c.escape_debug()));
            }
        }
        i += 1;
    }
    if quiet || capture || lame || !directions.is_empty() {
        return fail(
            chars.len(),
            "the Betza string ends with a modifier and no atom after it".into(),
        );
    }
    Ok(merge(legs))
}

/// Sorted, with the legs that differ only by mode merged (`mNcN` is `N`)
/// and exact duplicates dropped.
fn merge(mut legs: Vec<Leg>) -> Vec<Leg> {
    legs.sort();
    let mut out: Vec<Leg> = Vec::with_capacity(legs.len());
    for leg in legs {
        let same_way =
            |l: &Leg| (l.dr, l.dc, l.range, l.lame) == (leg.dr, leg.dc, leg.range, leg.lame);
        match out.iter_mut().find(|l| same_way(l)) {
            Some(l) => {
                l.quiet |= leg.quiet;
                l.capture |= leg.capture;
            }
            None => out.push(leg),
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vectors(betza: &str) -> Vec<(i32, i32, u32, bool, bool)> {
        parse(betza)
            .unwrap()
            .into_iter()
            .map(|l| (l.dr, l.dc, l.range, l.quiet, l.capture))
            .collect()
    }

    fn count(betza: &str) -> usize {
        parse(betza).unwrap().len()
    }

    #[test]
    fn atoms_stand_for_their_symmetric_vectors() {
        for (atom, n) in [
            ("W", 4),
            ("F", 4),
            ("D", 4),
            ("N", 8),
            ("A", 4),
            ("H", 4),
            ("C", 8),
            ("L", 8),
            ("Z", 8),
            ("J", 8),
            ("G", 4),
            ("K", 8),
            ("R", 4),
            ("B", 4),
            ("Q", 8),
        ] {
            assert_eq!(count(atom), n, "{atom}");
        }
        assert_eq!(parse("C"), parse("L"));
        assert_eq!(parse("Z"), parse("J"));
        assert_eq!(parse("K"), parse("WF"));
        assert_eq!(parse("Q"), parse("RB"));
        // The knight's jumps, as the engine's fixed shapes have them.
        let knight: Vec<_> = vectors("N").iter().map(|v| (v.0, v.1)).collect();
        assert_eq!(knight.len(), 8);
        for v in super::super::attacks::KNIGHT {
            assert!(knight.contains(&v), "{v:?}");
        }
    }

    #[test]
    fn riders_leapers_and_ranges() {
        assert!(parse("R").unwrap().iter().all(|l| l.range == 0));
        assert!(parse("W").unwrap().iter().all(|l| l.range == 1));
        assert!(
            parse("NN")
                .unwrap()
                .iter()
                .all(|l| l.range == 0 && l.dr.abs() + l.dc.abs() == 3)
        );
        assert!(parse("R4").unwrap().iter().all(|l| l.range == 4));
        assert!(parse("N2").unwrap().iter().all(|l| l.range == 2));
        assert!(parse("B0").unwrap().iter().all(|l| l.range == 0));
        // Compounds: the archbishop, chancellor and amazon.
        assert_eq!(count("BN"), 12);
        assert_eq!(count("RN"), 12);
        assert_eq!(count("QN"), 16);
    }

    #[test]
    fn move_and_capture_modifiers() {
        let knibis = parse("mNcB").unwrap();
        assert!(
            knibis
                .iter()
                .all(|l| (l.range == 1) == (l.quiet && !l.capture))
        );
        assert!(
            knibis
                .iter()
                .all(|l| (l.range == 0) == (l.capture && !l.quiet))
        );
        assert_eq!(parse("mNcN"), parse("N"));
        assert_eq!(parse("mcN"), parse("N"));
        // The pawn, as Fairy-Stockfish writes it: one step forward to move,
        // the forward diagonals to capture.
        assert_eq!(
            vectors("fmWfcF"),
            vec![
                (-1, -1, 1, false, true),
                (-1, 0, 1, true, false),
                (-1, 1, 1, false, true)
            ]
        );
    }

    #[test]
    fn directions_as_fairy_stockfish_reads_them() {
        // A lone letter is itself doubled: fN is the two narrow forward moves.
        assert_eq!(
            vectors("fN").iter().map(|v| (v.0, v.1)).collect::<Vec<_>>(),
            [(-2, -1), (-2, 1)]
        );
        // fs: the two wide forward moves.
        assert_eq!(
            vectors("fsN")
                .iter()
                .map(|v| (v.0, v.1))
                .collect::<Vec<_>>(),
            [(-1, -2), (-1, 2)]
        );
        // An orthogonal atom splits a pair: fsW is fW and sW (the xiangqi soldier).
        assert_eq!(
            vectors("fsW")
                .iter()
                .map(|v| (v.0, v.1))
                .collect::<Vec<_>>(),
            [(-1, 0), (0, -1), (0, 1)]
        );
        assert_eq!(
            vectors("flF")
                .iter()
                .map(|v| (v.0, v.1))
                .collect::<Vec<_>>(),
            [(-1, -1)]
        );
        assert_eq!(count("bW"), 1);
        assert_eq!(count("vW"), 2);
        assert_eq!(count("sR"), 2);
        // The silver general: FfW.
        assert_eq!(count("FfW"), 5);
    }

    #[test]
    fn lame_leapers_step_along_the_longer_axis_first() {
        let horse = parse("nN").unwrap();
        assert!(horse.iter().all(|l| l.lame));
        let leg = horse.iter().find(|l| (l.dr, l.dc) == (-2, 1)).unwrap();
        assert_eq!(leg.path().collect::<Vec<_>>(), [(-1, 0)]);
        let elephant = parse("nA").unwrap();
        assert_eq!(elephant[0].path().count(), 1);
        let h = parse("nH").unwrap();
        let up = h.iter().find(|l| l.dr == -3).unwrap();
        assert_eq!(up.path().collect::<Vec<_>>(), [(-1, 0), (-2, 0)]);
        let camel = Leg {
            dr: 1,
            dc: 3,
            range: 1,
            quiet: true,
            capture: true,
            lame: true,
        };
        assert_eq!(camel.path().collect::<Vec<_>>(), [(0, 1), (0, 2)]);
    }

    #[test]
    fn errors_name_the_character() {
        let err = |s: &str| parse(s).unwrap_err();
        assert_eq!(err("BX").at, 1);
        assert!(
            err("BX").message.contains("`X` is not a Betza atom"),
            "{}",
            err("BX")
        );
        assert_eq!(err("pR").at, 0);
        assert!(err("pR").message.contains("hoppers"));
        assert_eq!(err("iW").at, 0);
        assert!(err("nR").message.contains("only a leaper"));
        assert!(err("Nm").message.contains("ends with a modifier"));
        assert_eq!(err("Nm").at, 2);
        assert!(err("N ").message.contains("is not Betza"));
        assert!(err(&"N".repeat(65)).message.contains("65 characters"));
        assert_eq!(err("W300").at, 2);
        assert!(err("W300").message.contains("range is one digit"));
        assert_eq!(parse(""), Ok(vec![]));
    }

    #[test]
    fn black_legs_are_white_s_turned_half_a_circle() {
        let leg = parse("fW").unwrap()[0];
        assert_eq!((leg.dr, leg.dc), (-1, 0));
        assert_eq!((leg.flipped().dr, leg.flipped().dc), (1, 0));
    }
}
