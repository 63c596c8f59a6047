//! A rule set on the wire: what a rule file changes in its family, as
//! `RULES` `key=value` tokens (capability `rules`, docs/protocol.md).
//!
//! Only the differences from the family's built-in set are written, so the
//! four built-in sets keep their one-word `RULES` line and engines that
//! know only those are never sent a token. What the engine does not need
//! to play (the set's name, its start position) is not sent.

use super::RequestError;
use super::shorten;
use crate::domain::{Color, Role};
use crate::engine::{
    Castling, Ends, Kind, Notation, PieceTable, RoleSet, RuleSet, RuleSetId, betza, file_name,
};

fn flag(on: bool) -> &'static str {
    if on { "1" } else { "0" }
}

/// The tokens that turn `rules.id`'s built-in set into `rules` (the
/// Mystery shape aside: it has its own clause).
pub(super) fn rule_tokens(rules: &RuleSet) -> Vec<String> {
    let base = rules.id.rules();
    let mut out = Vec::new();
    if rules.castling != base.castling {
        out.push(format!("castling={}", rules.castling.name()));
    }
    if let Some([q, k]) = rules
        .castling_files
        .filter(|_| rules.castling_files != base.castling_files)
    {
        out.push(format!("castling_files={},{}", file_name(q), file_name(k)));
    }
    for (key, a, b) in [
        ("en_passant", rules.en_passant, base.en_passant),
        ("double_step", rules.pawn_double_step, base.pawn_double_step),
        ("king_safety", rules.king_safety, base.king_safety),
        (
            "valid_move_checks_turn",
            rules.validity_checks_turn,
            base.validity_checks_turn,
        ),
    ] {
        if a != b {
            out.push(format!("{key}={}", flag(a)));
        }
    }
    if rules.promotion != base.promotion {
        let letters = rules.promotion.letters();
        out.push(format!(
            "promotion={}",
            if letters.is_empty() { "-" } else { &letters }
        ));
    }
    if rules.ends != base.ends {
        let names = rules.ends.names();
        let text = if names.is_empty() {
            "-".to_string()
        } else {
            names.join(",")
        };
        out.push(format!("ends={text}"));
    }
    if rules.notation != base.notation {
        out.push(format!("notation={}", rules.notation.name()));
    }
    for (role, kind) in rules.pieces.own_pieces() {
        let same_moves = base
            .pieces
            .kind(role)
            .is_some_and(|k| k.legs(Color::White) == kind.legs(Color::White));
        if !same_moves {
            out.push(format!(
                "piece={}:{}",
                role.letter().to_ascii_uppercase(),
                kind.betza
            ));
        }
    }
    for role in Role::ALL {
        if rules.values.of(role) != base.values.of(role) {
            out.push(format!(
                "value={}:{}",
                role.letter().to_ascii_uppercase(),
                rules.values.of(role)
            ));
        }
    }
    out
}

/// The rule set `tokens` make of `id`'s built-in set.
pub(super) fn rules_of_tokens(id: RuleSetId, tokens: &[&str]) -> Result<RuleSet, RequestError> {
    let mut rules = id.rules();
    let mut defs: Vec<(Role, Kind)> = Vec::new();
    let bad = |token: &str, why: &str| {
        RequestError::RuleToken(format!("rules token `{}`: {why}", shorten(token)))
    };
    let letter = |token: &str, text: &str| -> Result<Role, RequestError> {
        match text.as_bytes() {
            [c @ b'A'..=b'Z'] => Ok(Role::from_letter(*c as char).unwrap_or(Role::Pawn)),
            _ => Err(bad(token, "expected a piece's upper-case letter")),
        }
    };
    let boolean = |token: &str, v: &str| match v {
        "1" => Ok(true),
        "0" => Ok(false),
        _ => Err(bad(token, "expected 0 or 1")),
    };
    for &token in tokens {
        let (key, value) = token.split_once('=').unwrap_or((token, ""));
        match key {
            "castling" => {
                rules.castling = Castling::ALL
                    .into_iter()
                    .find(|c| c.name() == value)
                    .ok_or_else(|| bad(token, "expected none, home-squares or rights"))?
            }
            "castling_files" => {
                let files: Vec<u16> = value
                    .split(',')
                    .filter_map(|f| match f.as_bytes() {
                        [c @ b'a'..=b'z'] => Some(u16::from(c - b'a')),
                        _ => None,
                    })
                    .collect();
                match files[..] {
                    [q, k] if q < k && value.len() == 3 => rules.castling_files = Some([q, k]),
                    _ => return Err(bad(token, "expected two file letters, like c,g")),
                }
            }
            "en_passant" => rules.en_passant = boolean(token, value)?,
            "double_step" => rules.pawn_double_step = boolean(token, value)?,
            "king_safety" => rules.king_safety = boolean(token, value)?,
            "valid_move_checks_turn" => rules.validity_checks_turn = boolean(token, value)?,
            "promotion" => {
                let letters = if value == "-" { "" } else { value };
                let set = RoleSet::from_letters(letters)
                    .filter(|s| s.len() == letters.len())
                    .filter(|s| !s.iter().any(|r| matches!(r, Role::Pawn | Role::King)))
                    .ok_or_else(|| bad(token, "expected piece letters, like QRBN, or -"))?;
                rules.promotion = set;
            }
            "ends" => {
                let mut ends = Ends::default();
                for name in value.split(',').filter(|n| *n != "-") {
                    match name {
                        "checkmate" => ends.checkmate = true,
                        "stalemate" => ends.stalemate = true,
                        "king-captured" => ends.king_captured = true,
                        _ => {
                            return Err(bad(
                                token,
                                "expected checkmate, stalemate, king-captured or -",
                            ));
                        }
                    }
                }
                rules.ends = ends;
            }
            "notation" => {
                rules.notation = match value {
                    "uci" => Notation::Uci,
                    "jhu" => Notation::Jhu,
                    "cuhk" => Notation::Cuhk,
                    _ => return Err(bad(token, "expected uci, jhu or cuhk")),
                }
            }
            "piece" => {
                let (l, text) = value
                    .split_once(':')
                    .ok_or_else(|| bad(token, "expected piece=<letter>:<betza>"))?;
                let role = letter(token, l)?;
                if matches!(role, Role::Pawn | Role::King) {
                    return Err(bad(
                        token,
                        "the pawn's and the king's moves are the rules' own",
                    ));
                }
                let legs = betza::parse(text).map_err(|e| bad(token, &e.message))?;
                if legs.is_empty() {
                    return Err(bad(token, "a piece needs at least one move"));
                }
                defs.retain(|(r, _)| *r != role);
                defs.push((role, Kind::new(role.name(), text, legs)));
            }
            "value" => {
                let (l, n) = value
                    .split_once(':')
                    .ok_or_else(|| bad(token, "expected value=<letter>:<points>"))?;
                rules.values.0[letter(token, l)? as usize] = n
                    .parse()
                    .map_err(|_| bad(token, "expected a whole number of points"))?;
            }
            _ => return Err(bad(token, "unknown key")),
        }
    }
    if !defs.is_empty() {
        rules.pieces = PieceTable::build(defs);
    }
    if let Some(r) = rules.promotion.iter().find(|&r| !rules.pieces.knows(r)) {
        return Err(RequestError::RuleToken(format!(
            "a pawn cannot promote to `{}`: no such piece",
            r.letter().to_ascii_uppercase()
        )));
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Request, parse_request};

    fn round_trip(rules: RuleSet) -> RuleSet {
        let line = Request::Rules(Box::new(rules)).to_string();
        match parse_request(&line) {
            Ok(Request::Rules(read)) => *read,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn built_in_sets_keep_their_one_word_line() {
        for id in RuleSetId::ALL {
            assert_eq!(
                Request::Rules(Box::new(id.rules())).to_string(),
                format!("RULES {id}")
            );
        }
    }

    #[test]
    fn a_changed_set_goes_as_tokens_and_reads_back_the_same() {
        let capablanca = RuleSet {
            promotion: RoleSet::of(&[Role::Queen, Role::A, Role::C]),
            castling_files: Some([2, 8]),
            pieces: PieceTable::build(vec![
                (Role::A, Kind::from_betza("archbishop", "BN").unwrap()),
                (Role::C, Kind::from_betza("chancellor", "RN").unwrap()),
                (Role::Knight, Kind::from_betza("knight", "mNcB").unwrap()),
            ]),
            ends: Ends {
                checkmate: true,
                stalemate: false,
                king_captured: true,
            },
            en_passant: false,
            notation: Notation::Jhu,
            ..RuleSet::standard()
        };
        let mut valued = capablanca;
        valued.values.0[Role::A as usize] = 7;
        let line = Request::Rules(Box::new(valued)).to_string();
        assert!(
            line.starts_with("RULES standard castling_files=c,i en_passant=0 promotion=QAC"),
            "{line}"
        );
        assert!(
            line.contains("piece=A:BN") && line.contains("value=A:7"),
            "{line}"
        );
        assert!(round_trip(valued).same_rules(&valued), "{line}");
        // With a Mystery clause after the tokens.
        let mystery = RuleSet {
            mystery: Some(crate::engine::MysteryShape::new(false, &[(1, 3)], 2).unwrap()),
            king_safety: false,
            ..RuleSet::jhu()
        };
        assert!(round_trip(mystery).same_rules(&mystery));
    }

    #[test]
    fn bad_tokens_are_errors_that_name_them() {
        for (line, words) in [
            ("RULES standard en_passant=yes", "expected 0 or 1"),
            ("RULES standard piece=A:BX", "`X` is not a Betza atom"),
            ("RULES standard piece=K:N", "the rules' own"),
            ("RULES standard promotion=QA", "no such piece"),
            ("RULES standard promotion=QK", "expected piece letters"),
            ("RULES standard frob=1", "unknown key"),
            ("RULES lab3 castling_files=g,c", "two file letters"),
        ] {
            match parse_request(line) {
                Err(e) => assert!(e.to_string().contains(words), "{line}: {e}"),
                Ok(r) => panic!("{line}: {r:?}"),
            }
        }
    }
}
