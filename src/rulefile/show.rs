//! A rule set written out as a rule file (`chessgrade rules show`): every
//! key with its value and a comment saying what it does, so that a course
//! starts from a built-in set's file, changes a line, and reads it back to
//! exactly the rules it changed.

use crate::domain::Role;
use crate::engine::{RuleSet, file_name};
use std::fmt::Write;

/// `rules` as a rule file that reads back to the same rules (a file's
/// `extends` chain written flat, on its family).
pub fn show(rules: &RuleSet) -> String {
    let mut out = String::new();
    let line = |out: &mut String, key_value: String, comment: &str| {
        let _ = writeln!(out, "{key_value:<34} # {comment}");
    };
    let _ = writeln!(
        out,
        "# The `{}` rules as a rule file (chessgrade rules show). Copy it, change what your course\n\
         # changes, and name it with `@rules FILE`, `--rules FILE` or a folder's rules.toml.",
        rules.name
    );
    line(
        &mut out,
        format!("extends = {}", quoted(rules.id.name())),
        "lab3 | standard | cuhk | jhu, or another rule file: the rest of this file overrides it",
    );
    line(
        &mut out,
        format!("name = {}", quoted(rules.name)),
        "shown in reports",
    );
    line(
        &mut out,
        format!("castling = {}", quoted(rules.castling.name())),
        "none | home-squares (Lab 3: 8x8, king and rook untouched) | rights (FEN KQkq)",
    );
    match rules.castling_files {
        Some([queen, king]) => line(
            &mut out,
            format!(
                "castling_files = [{}, {}]",
                quoted(&file_name(queen)),
                quoted(&file_name(king))
            ),
            "where the king lands castling: queen side, king side",
        ),
        None => line(
            &mut out,
            "# castling_files = [\"c\", \"g\"]".into(),
            "where the king lands (default: c, and the file before the last)",
        ),
    }
    line(
        &mut out,
        format!("en_passant = {}", rules.en_passant),
        "a pawn may take a pawn that just made a double step",
    );
    line(
        &mut out,
        format!("double_step = {}", rules.pawn_double_step),
        "pawns may advance two squares from their start row",
    );
    line(
        &mut out,
        format!("promotion = {}", quoted(&rules.promotion.letters())),
        "the letters a pawn may become, the default first (\"\" = it stays a pawn)",
    );
    line(
        &mut out,
        format!("king_safety = {}", rules.king_safety),
        "false: a move may leave the mover's king attacked (CUHK)",
    );
    let ends: Vec<String> = rules.ends.names().iter().map(|e| quoted(e)).collect();
    line(
        &mut out,
        format!("ends = [{}]", ends.join(", ")),
        "any of checkmate, stalemate, king-captured",
    );
    match rules.start {
        Some(fen) => line(
            &mut out,
            format!("start = {}", quoted(fen)),
            "the start position (FEN, any size)",
        ),
        None => line(
            &mut out,
            "# start = \"<FEN>\"".into(),
            "a start position (default: chess's)",
        ),
    }
    line(
        &mut out,
        format!("notation = {}", quoted(rules.notation.name())),
        "how `move` steps are written: uci (e2e4) | jhu (E2E4) | cuhk (A7 A5)",
    );
    line(
        &mut out,
        format!("valid_move_checks_turn = {}", rules.validity_checks_turn),
        "isValidMove refuses the side not to move (Lab 3: false)",
    );
    let own: Vec<(Role, &crate::engine::Kind)> = rules.pieces.own_pieces().collect();
    let _ = writeln!(
        out,
        "\n[values]                           # what `score` counts for each piece"
    );
    for role in Role::CHESS
        .into_iter()
        .filter(|r| !own.iter().any(|(o, _)| o == r))
    {
        let _ = writeln!(out, "{} = {}", role_letter(role), rules.values.of(role));
    }
    for (role, kind) in &own {
        let _ = writeln!(out, "\n[pieces.{}]", role_letter(*role));
        let _ = writeln!(out, "name = {}", quoted(&kind.name));
        let _ = writeln!(out, "betza = {}", quoted(&kind.betza));
        let _ = writeln!(out, "value = {}", rules.values.of(*role));
    }
    if own.is_empty() {
        let _ = writeln!(
            out,
            "\n# [pieces.A]                       # a piece of your own: White's letter (Black's in lower case)\n\
             # name = \"archbishop\"\n\
             # betza = \"BN\"                     # its moves in Betza notation (docs/course-rules.md)\n\
             # value = 7"
        );
    }
    out
}

fn role_letter(role: Role) -> char {
    role.letter().to_ascii_uppercase()
}

/// A TOML basic string.
fn quoted(text: &str) -> String {
    let mut out = String::from('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
