//! Drawing a board for people: column numbers on top, row numbers on the
//! left, one character a square.

use crate::engine::BoardText;

/// Draws `board` with row and column numbers, each line prefixed by `indent`.
pub fn draw_board(board: &BoardText, indent: &str) -> String {
    let rows: Vec<&str> = board.rows().collect();
    let cols = rows.first().map_or(0, |r| r.chars().count());
    let row_w = rows.len().saturating_sub(1).to_string().len();
    let col_w = cols.saturating_sub(1).to_string().len();
    let mut out = format!("{indent}{:row_w$}   ", "");
    // cells start after "<row> | ": the header's digits line up with them
    let header: Vec<String> = (0..cols).map(|c| format!("{c:>col_w$}")).collect();
    out.push_str(&header.join(" "));
    out.push('\n');
    out.push_str(&format!(
        "{indent}{:row_w$} +{}\n",
        "",
        "-".repeat(cols * (col_w + 1))
    ));
    for (r, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row.chars().map(|ch| format!("{ch:>col_w$}")).collect();
        out.push_str(&format!("{indent}{r:>row_w$} | {}\n", cells.join(" ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_numbers_around_the_squares() {
        let text = draw_board(&BoardText("K.r/...".into()), "");
        assert_eq!(text, "    0 1 2\n  +------\n0 | K . r\n1 | . . .\n");
    }

    #[test]
    fn wide_boards_pad_columns() {
        let text = draw_board(&BoardText("..........K".into()), "");
        assert!(text.starts_with("     0  1  2"), "{text}");
        assert!(text.ends_with(" .  K\n"));
    }
}
