//! Board pictures: a [`Diagram`] drawn as one SVG image, the picture every
//! HTML destination shows where a student reads a result (a student's page
//! and the class page's drill-down, `explain --format html`, Gradescope's
//! HTML output, PrairieLearn's test images). The destinations only place
//! it; what it shows is the diagram's, the same data the terminal's text
//! diagram is drawn from, so the two never disagree.
//!
//! Why it is shaped this way:
//! - **Self-contained bytes**: no stylesheet, script, external font or
//!   element id, so the same SVG is inlined in a page (several on one page
//!   never clash) and given as an image (`data:image/svg+xml;base64,...`,
//!   [`data_url`]) where a platform shows images but sanitises markup.
//! - **Pieces**: a chess glyph for the six standard roles, the filled glyph
//!   for both sides (White filled white and outlined), so the two read
//!   alike on any square; any other piece (JHU's Mystery piece, a course's
//!   own letter) is its letter on a disc, white for White and dark for
//!   Black, whatever the letter; anything else a submission's board holds
//!   is shown in red, escaped.
//! - **Marks read without colour**: each marked square has its colour and
//!   the text diagram's symbol (`*`, `+`, `x`, `!`) in a corner; the step's
//!   move is an arrow with its two squares ringed; a legend under the board
//!   says what each means in the board's own coordinates.
//! - **Any size**: at most [`MAX_SQUARES`] rows and columns are drawn, cut
//!   around the marked squares ([`Diagram::window`]) and said in the
//!   legend; squares shrink from 48 to 22 pixels as a board grows, so a
//!   1x1 board and a 256x256 one both stay readable.
//! - **Escaped**: every text (labels, titles, a square's character) goes
//!   through [`sanitize::html`](super::sanitize::html).

use super::diagram::{Coords, Diagram, Mark};
use super::sanitize::html;
use std::fmt::Write;

/// The most rows (and columns) a picture draws; a larger board is cut
/// around its marked squares.
pub const MAX_SQUARES: usize = 20;

const PAD: i32 = 6;
const LEGEND_LINE: i32 = 20;
const LEGEND_FONT: i32 = 12;
/// Roughly how wide a character of the legend's font is (a sans-serif at
/// 12 px averages under 7): the picture is made wide enough for its text.
const CHAR_W: f64 = 7.0;

const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";
const MOVE: &str = "#1f63b5";
const GLYPH_FONTS: &str = "'DejaVu Sans','Segoe UI Symbol','Noto Sans Symbols 2','Apple Symbols','Arial Unicode MS',sans-serif";
const TEXT_FONTS: &str = "'DejaVu Sans','Segoe UI',Helvetica,Arial,sans-serif";

/// A mark's square colour (a colour-blind-safe set: bluish green, orange,
/// yellow, purple), and the colour of its corner symbol.
fn fill(m: Mark) -> &'static str {
    match m {
        Mark::Missing => "#5cc99a",
        Mark::Extra => "#f08a5d",
        Mark::From => "#f5d65b",
        Mark::Differs => "#c89bd9",
    }
}

/// The diagram as an SVG image (its title as the image's `<title>`).
pub fn svg(d: &Diagram) -> String {
    let rows = d.rows();
    let (nr, nc) = (rows.len(), rows.first().map_or(0, Vec::len));
    // A large board is cut around its marks, else around where the
    // step's move went.
    let to: Vec<[usize; 2]> = d.moved.iter().map(|m| m[1]).collect();
    let (rw, cw) = d.window_around(MAX_SQUARES, MAX_SQUARES, &to);
    let (row_labels, col_labels) = d.labels(rw, cw);
    let s = (400 / rw.len().max(cw.len()).max(1)).clamp(22, 48) as i32;
    // Labels as large as a square holds (three digits under a small one).
    let col_chars = col_labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(1);
    let fits = (f64::from(s - 3) / (col_chars as f64 * 0.62)) as i32;
    let label_font = (s * 3 / 10).clamp(11, 14).min(fits).max(8);
    let label_chars = row_labels.iter().map(|l| l.chars().count()).max();
    let label_w = (label_chars.unwrap_or(1) as f64 * f64::from(label_font) * 0.62) as i32 + 8;
    let (ox, oy) = (PAD + label_w, PAD + label_font + 6);
    let (bw, bh) = (cw.len() as i32 * s, rw.len() as i32 * s);
    let legend = legend(d, nr, nc, rw, cw);
    let legend_top = oy + bh + 8;
    let text_w = legend
        .iter()
        .map(|l| 24 + (l.text.chars().count() as f64 * CHAR_W) as i32)
        .max()
        .unwrap_or(0);
    let width = (ox + bw + PAD).max(PAD + text_w + PAD);
    let height = legend_top + legend.len() as i32 * LEGEND_LINE + PAD;
    let mut o = String::new();
    let _ = write!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"board-picture\" role=\"img\" \
         width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" \
         font-family=\"{TEXT_FONTS}\"><title>{}</title>\
         <rect width=\"{width}\" height=\"{height}\" fill=\"#fff\"/>",
        html(&d.title)
    );
    // Labels: columns on top, rows on the left.
    for (i, l) in col_labels.iter().enumerate() {
        let x = ox + i as i32 * s + s / 2;
        let _ = write!(
            o,
            "<text class=\"col\" x=\"{x}\" y=\"{}\" font-size=\"{label_font}\" fill=\"#555\" text-anchor=\"middle\">{}</text>",
            oy - 5,
            html(l)
        );
    }
    for (i, l) in row_labels.iter().enumerate() {
        let y = oy + i as i32 * s + s / 2;
        let _ = write!(
            o,
            "<text class=\"row\" x=\"{}\" y=\"{y}\" dy=\"0.35em\" font-size=\"{label_font}\" fill=\"#555\" text-anchor=\"end\">{}</text>",
            ox - 5,
            html(l)
        );
    }
    // Squares and their marks; the pieces, in one group sharing their
    // font, on top.
    let mut pieces = String::new();
    for (i, r) in (rw.start..rw.end).enumerate() {
        for (j, c) in (cw.start..cw.end).enumerate() {
            let (x, y) = (ox + j as i32 * s, oy + i as i32 * s);
            let shade = if (r + c) % 2 == 1 { DARK } else { LIGHT };
            let mark = d.mark_at(r, c);
            let (class, colour) = match mark {
                Some(m) => (m.class(), fill(m)),
                None => ("sq", shade),
            };
            let _ = write!(
                o,
                "<rect class=\"{class}\" x=\"{x}\" y=\"{y}\" width=\"{s}\" height=\"{s}\" fill=\"{colour}\"/>"
            );
            if let Some(m) = mark {
                let _ = write!(
                    o,
                    "<text class=\"sym\" x=\"{}\" y=\"{}\" font-size=\"{}\" font-weight=\"bold\" fill=\"#111\">{}</text>",
                    x + 2,
                    y + s * 3 / 10 + 2,
                    (s * 3 / 10).max(9),
                    m.symbol()
                );
            }
            let ch = rows[r].get(c).copied().unwrap_or(' ');
            piece(&mut pieces, ch, d.coords, x, y, s);
        }
    }
    let _ = write!(
        o,
        "<g font-family=\"{GLYPH_FONTS}\" font-size=\"{}\" text-anchor=\"middle\" stroke-linejoin=\"round\" paint-order=\"stroke\">{pieces}</g>",
        s * 4 / 5
    );
    let _ = write!(
        o,
        "<rect x=\"{ox}\" y=\"{oy}\" width=\"{bw}\" height=\"{bh}\" fill=\"none\" stroke=\"#7a5a3a\" stroke-width=\"1\"/>"
    );
    if let Some(m) = d.moved {
        arrow(
            &mut o,
            m,
            (rw.start, rw.end),
            (cw.start, cw.end),
            (ox, oy),
            s,
        );
    }
    for (k, line) in legend.iter().enumerate() {
        let y = legend_top + k as i32 * LEGEND_LINE;
        line.swatch.draw(&mut o, PAD, y);
        let _ = write!(
            o,
            "<text class=\"legend\" x=\"{}\" y=\"{}\" font-size=\"{LEGEND_FONT}\" fill=\"#333\">{}</text>",
            PAD + 22,
            y + 13,
            html(&line.text)
        );
    }
    o.push_str("</svg>");
    o
}

/// The picture as a `data:` URL, for an `<img>` or an image list.
pub fn data_url(d: &Diagram) -> String {
    format!(
        "data:image/svg+xml;base64,{}",
        super::classroom::base64(svg(d).as_bytes())
    )
}

/// Pictures given as images (`data:` URLs) within a number of bytes: a
/// platform's results file holds them beside the text, and a submission
/// decides how many failures, and how large their boards, there are. A
/// scenario's pictures come all or none, the first scenarios first; one
/// left without them still has its whole failure as text.
pub(crate) struct Budget {
    left: usize,
}

impl Budget {
    pub(crate) fn new(bytes: usize) -> Budget {
        Budget { left: bytes }
    }

    /// Each of `boards` as (its title, its data URL), or `None` when they
    /// are not within what is left (or there are none).
    pub(crate) fn images(&mut self, boards: &[Diagram]) -> Option<Vec<(String, String)>> {
        if boards.is_empty() {
            return None;
        }
        let images: Vec<(String, String)> = boards
            .iter()
            .map(|d| (d.title.clone(), data_url(d)))
            .collect();
        let size: usize = images.iter().map(|(t, u)| t.len() + u.len()).sum();
        if size > self.left {
            return None;
        }
        self.left -= size;
        Some(images)
    }
}

/// One piece on the square at (`x`, `y`), `ch` in its readers' letters.
fn piece(o: &mut String, ch: char, coords: Coords, x: i32, y: i32, s: i32) {
    if ch == '.' || ch == ' ' {
        return;
    }
    let (cx, cy) = (x + s / 2, y + s / 2);
    // The engine's letter tells the side: White upper case.
    let engine = coords.letter(ch);
    let white = engine.is_ascii_uppercase();
    let glyph = match engine.to_ascii_lowercase() {
        'k' => Some('♚'),
        'q' => Some('♛'),
        'r' => Some('♜'),
        'b' => Some('♝'),
        'n' => Some('♞'),
        'p' => Some('♟'),
        _ => None,
    };
    let side = if white { "white" } else { "black" };
    match glyph {
        Some(g) if engine.is_ascii_alphabetic() => {
            let (fill, stroke, width) = if white {
                ("#fff", "#222", f64::from(s) * 0.04)
            } else {
                ("#222", "#222", f64::from(s) * 0.01)
            };
            // U+FE0E: the glyph as text, never an emoji. Font, size and
            // anchor are the group's (see `svg`).
            let _ = write!(
                o,
                "<text class=\"piece {side}\" x=\"{cx}\" y=\"{cy}\" dy=\"0.36em\" fill=\"{fill}\" \
                 stroke=\"{stroke}\" stroke-width=\"{width:.1}\">{g}\u{FE0E}</text>"
            );
        }
        _ if ch.is_ascii_alphabetic() => {
            let (disc, rim, letter) = if white {
                ("#fff", "#222", "#222")
            } else {
                ("#333", "#111", "#fff")
            };
            let _ = write!(
                o,
                "<circle class=\"piece letter {side}\" cx=\"{cx}\" cy=\"{cy}\" r=\"{:.1}\" fill=\"{disc}\" stroke=\"{rim}\" stroke-width=\"1.5\"/>\
                 <text class=\"letter {side}\" x=\"{cx}\" y=\"{cy}\" dy=\"0.35em\" font-size=\"{}\" font-weight=\"bold\" \
                 font-family=\"{TEXT_FONTS}\" fill=\"{letter}\">{ch}</text>",
                f64::from(s) * 0.36,
                s / 2
            );
        }
        // Not a piece any course has: what the board held, visibly.
        _ => {
            let _ = write!(
                o,
                "<text class=\"unknown\" x=\"{cx}\" y=\"{cy}\" dy=\"0.35em\" font-size=\"{}\" font-family=\"{TEXT_FONTS}\" fill=\"#c00\">{}</text>",
                s * 2 / 5,
                html(&ch.to_string())
            );
        }
    }
}

/// The move from `m[0]` to `m[1]`: both squares ringed (those in the
/// window) and, when both are shown, an arrow between them.
fn arrow(
    o: &mut String,
    m: [[usize; 2]; 2],
    rows: (usize, usize),
    cols: (usize, usize),
    (ox, oy): (i32, i32),
    s: i32,
) {
    let shown =
        |sq: [usize; 2]| (rows.0..rows.1).contains(&sq[0]) && (cols.0..cols.1).contains(&sq[1]);
    let corner = |sq: [usize; 2]| {
        (
            ox + (sq[1] - cols.0) as i32 * s,
            oy + (sq[0] - rows.0) as i32 * s,
        )
    };
    for (sq, class) in [(m[0], "move-from"), (m[1], "move-to")] {
        if shown(sq) {
            let (x, y) = corner(sq);
            let _ = write!(
                o,
                "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{MOVE}\" stroke-width=\"3\"/>",
                x + 2,
                y + 2,
                s - 4,
                s - 4
            );
        }
    }
    if !(shown(m[0]) && shown(m[1])) || m[0] == m[1] {
        return;
    }
    let centre = |sq: [usize; 2]| {
        let (x, y) = corner(sq);
        (f64::from(x + s / 2), f64::from(y + s / 2))
    };
    let ((x1, y1), (x2, y2)) = (centre(m[0]), centre(m[1]));
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt();
    let (ux, uy) = (dx / len, dy / len);
    let s = f64::from(s);
    let (head, half) = (s * 0.42, s * 0.26);
    let (tx, ty) = (x2 - ux * s * 0.12, y2 - uy * s * 0.12);
    let (bx, by) = (tx - ux * head, ty - uy * head);
    let (sx, sy) = (x1 + ux * s * 0.18, y1 + uy * s * 0.18);
    let _ = write!(
        o,
        "<g class=\"arrow\" fill=\"{MOVE}\" stroke=\"{MOVE}\" opacity=\"0.78\">\
         <line x1=\"{sx:.1}\" y1=\"{sy:.1}\" x2=\"{bx:.1}\" y2=\"{by:.1}\" stroke-width=\"{:.1}\"/>\
         <polygon stroke=\"none\" points=\"{tx:.1},{ty:.1} {:.1},{:.1} {:.1},{:.1}\"/></g>",
        s * 0.14,
        bx - uy * half,
        by + ux * half,
        bx + uy * half,
        by - ux * half
    );
}

/// A line of the legend: its swatch and its words.
struct Line {
    swatch: Swatch,
    text: String,
}

enum Swatch {
    Mark(Mark),
    Move,
    None,
}

impl Swatch {
    /// The swatch in the 16x16 box at (`x`, `y`).
    fn draw(&self, o: &mut String, x: i32, y: i32) {
        match self {
            Swatch::Mark(m) => {
                let _ = write!(
                    o,
                    "<rect class=\"key {}\" x=\"{x}\" y=\"{}\" width=\"16\" height=\"16\" fill=\"{}\" stroke=\"#777\" stroke-width=\"0.5\"/>\
                     <text x=\"{}\" y=\"{}\" font-size=\"11\" font-weight=\"bold\" fill=\"#111\">{}</text>",
                    m.class(),
                    y + 1,
                    fill(*m),
                    x + 2,
                    y + 11,
                    m.symbol()
                );
            }
            Swatch::Move => {
                let _ = write!(
                    o,
                    "<g class=\"key move\" fill=\"{MOVE}\" stroke=\"{MOVE}\" opacity=\"0.78\">\
                     <line x1=\"{x}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke-width=\"3\"/>\
                     <polygon stroke=\"none\" points=\"{},{} {},{} {},{}\"/></g>",
                    y + 9,
                    x + 9,
                    y + 9,
                    x + 16,
                    y + 9,
                    x + 9,
                    y + 3,
                    x + 9,
                    y + 15
                );
            }
            Swatch::None => {}
        }
    }
}

/// What the legend says: the board shown when it is cut, each mark used,
/// the move.
fn legend(
    d: &Diagram,
    nr: usize,
    nc: usize,
    rows: super::diagram::Range,
    cols: super::diagram::Range,
) -> Vec<Line> {
    let mut lines = Vec::new();
    if nc == 0 {
        lines.push(Line {
            swatch: Swatch::None,
            text: "(a board without squares)".into(),
        });
    } else if rows.len() < nr || cols.len() < nc {
        let (rl, cl) = d.labels(rows, cols);
        let range = |l: &[String]| match (l.first(), l.last()) {
            (Some(a), Some(b)) if a != b => format!("{a}–{b}"),
            (Some(a), _) => a.clone(),
            _ => String::new(),
        };
        lines.push(Line {
            swatch: Swatch::None,
            text: format!(
                "cut: rows {} and columns {} of the {nr}x{nc} board, around the squares that matter",
                range(&rl),
                range(&cl)
            ),
        });
    }
    let mut used: Vec<Mark> = d.marks.iter().map(|(_, m)| *m).collect();
    used.sort();
    used.dedup();
    for m in used {
        lines.push(Line {
            swatch: Swatch::Mark(m),
            text: m.meaning().to_string(),
        });
    }
    if let Some([from, to]) = d.moved {
        let name = |sq: [usize; 2]| d.coords.square(sq[0], sq[1], nr);
        lines.push(Line {
            swatch: Swatch::Move,
            text: format!("the step's move: from {} to {}", name(from), name(to)),
        });
    }
    lines
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::BoardText;

    fn board(text: &str, coords: Coords) -> Diagram {
        Diagram::new("board before the step", &BoardText(text.into()), coords)
    }

    /// The SVG (or any markup) parsed as XML: it must be well-formed (an
    /// image that is not is not shown at all); its elements' texts, in
    /// order, references decoded.
    pub(crate) fn texts(svg: &str) -> Vec<String> {
        use quick_xml::events::Event;
        let mut reader = quick_xml::Reader::from_str(svg);
        let (mut out, mut current) = (Vec::new(), String::new());
        loop {
            match reader.read_event().expect("well-formed SVG") {
                Event::Eof => break,
                Event::Start(_) => current.clear(),
                Event::End(_) if !current.is_empty() => out.push(std::mem::take(&mut current)),
                Event::Text(t) => current.push_str(&t.into_inner()),
                Event::GeneralRef(r) => current.push_str(match &*r.into_inner() {
                    "lt" => "<",
                    "gt" => ">",
                    "amp" => "&",
                    "quot" => "\"",
                    "#39" => "'",
                    other => panic!("unexpected reference {other}"),
                }),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn a_lab3_scan_is_labelled_in_numbers_with_its_marks_and_legend() {
        let d = board("...../..P../.....", Coords::Numbers)
            .with_scan_items(&["  V 1 2 0 2".into()], &["  V 1 2 0 3".into()]);
        let svg = svg(&d);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert_eq!(svg.matches("<rect class=\"missing\"").count(), 1);
        assert_eq!(svg.matches("<rect class=\"extra\"").count(), 1);
        assert_eq!(svg.matches("<rect class=\"from\"").count(), 1);
        assert_eq!(svg.matches("<rect class=\"sq\"").count(), 12);
        let t = texts(&svg);
        assert_eq!(t[0], "board before the step");
        // Columns 0-4 on top, rows 0-2 on the left.
        assert_eq!(&t[1..9], ["0", "1", "2", "3", "4", "0", "1", "2"]);
        assert!(t.contains(&"♟\u{FE0E}".to_string()), "{t:?}");
        for meaning in [
            "piece whose answers differ",
            "expected, not answered",
            "answered, not expected",
        ] {
            assert!(t.iter().any(|x| x == meaning), "{meaning}: {t:?}");
        }
        assert!(!svg.contains("arrow"), "no move, no arrow");
    }

    #[test]
    fn a_move_is_an_arrow_named_in_the_courses_coordinates() {
        // JHU: files A.., ranks from the bottom; E2 to E4 on 8x8.
        let d = board(&["........"; 8].join("/"), Coords::UpperFiles).with_move("move E2E4");
        assert_eq!(d.moved, Some([[6, 4], [4, 4]]));
        let svg = svg(&d);
        assert_eq!(svg.matches("class=\"arrow\"").count(), 1);
        assert!(svg.contains("class=\"move-from\"") && svg.contains("class=\"move-to\""));
        assert!(texts(&svg).contains(&"the step's move: from E2 to E4".to_string()));
        // CUHK: row 1 on top; Lab 3: numbers; a square off the board: none.
        let cuhk = board(&["........"; 8].join("/"), Coords::UpperFilesTopDown);
        assert_eq!(cuhk.with_move("move B5 E8").moved, Some([[4, 1], [7, 4]]));
        let lab3 = board(&["....."; 5].join("/"), Coords::Numbers);
        assert_eq!(
            lab3.clone().with_move("movePiece 4 4 2 4").moved,
            Some([[4, 4], [2, 4]])
        );
        assert_eq!(lab3.clone().with_move("movePiece 4 4 5 4").moved, None);
        assert_eq!(lab3.clone().with_move("isValidScan").moved, None);
        // A protocol engine's standard step, drawn in numbers.
        let std = board(&["........"; 8].join("/"), Coords::Numbers);
        assert_eq!(std.with_move("move e2e4").moved, Some([[6, 4], [4, 4]]));
    }

    #[test]
    fn any_other_letter_is_a_disc_coloured_by_its_side() {
        // JHU's Mystery piece and any course's own letter, either side;
        // CUHK writes Black upper case, so its `M` is Black's.
        let d = board("MmZz/Kk..", Coords::Numbers);
        let svg = svg(&d);
        assert_eq!(
            svg.matches("<circle class=\"piece letter white\"").count(),
            2
        );
        assert_eq!(
            svg.matches("<circle class=\"piece letter black\"").count(),
            2
        );
        assert_eq!(svg.matches("<text class=\"piece white\"").count(), 1);
        // The engine's Black Mystery piece and White king, as CUHK's
        // Table 1 writes them: `M` and `k`.
        let cuhk = svg_of(board("mK", Coords::UpperFilesTopDown));
        assert!(
            cuhk.contains("<circle class=\"piece letter black\""),
            "{cuhk}"
        );
        assert!(cuhk.contains(">M</text>"), "{cuhk}");
        assert!(cuhk.contains("<text class=\"piece white\""), "{cuhk}");
    }

    fn svg_of(d: Diagram) -> String {
        svg(&d)
    }

    #[test]
    fn whatever_a_submissions_board_holds_is_escaped() {
        let d = board("<&\u{1b}\"'/>]]\u{202e}", Coords::Numbers);
        let svg = svg(&d);
        let t = texts(&svg);
        for shown in ["<", "&", "\\x1b", "\"", "'", ">", "]", "\\u{202e}"] {
            assert!(t.iter().any(|x| x == shown), "{shown}: {t:?}");
        }
        assert!(!svg.contains('\u{1b}') && !svg.contains('\u{202e}'));
        let hostile = Diagram {
            title: "</title><script>alert(1)</script>".into(),
            ..d
        };
        let svg = super::svg(&hostile);
        assert!(!svg.contains("<script"), "{svg}");
        assert_eq!(texts(&svg)[0], hostile.title);
    }

    #[test]
    fn every_size_from_one_square_to_256_squares_a_side_is_drawn_and_a_cut_is_said() {
        let one = svg_of(board("K", Coords::Numbers));
        assert_eq!(one.matches("<rect class=\"sq\"").count(), 1);
        texts(&one);
        let mut rows = vec![".".repeat(256); 256];
        rows[200].replace_range(100..101, "q");
        let big = board(&rows.join("/"), Coords::Numbers)
            .with_scan_items(&["  V 200 100 190 110".into()], &[]);
        let svg = svg(&big);
        let squares = svg.matches("<rect class=\"").count();
        assert!(squares <= MAX_SQUARES * MAX_SQUARES + 8, "{squares}");
        let t = texts(&svg);
        let cut = t
            .iter()
            .find(|x| x.starts_with("cut: "))
            .expect("the cut is said");
        assert_eq!(
            cut,
            "cut: rows 185–204 and columns 95–114 of the 256x256 board, around the squares that matter"
        );
        assert!(svg.contains("<rect class=\"missing\""), "the mark is shown");
        // Squares stay at least 22 pixels wide.
        let width: i32 = svg
            .split("width=\"")
            .nth(1)
            .and_then(|w| w.split('"').next())
            .and_then(|w| w.parse().ok())
            .unwrap();
        assert!(width >= 22 * MAX_SQUARES as i32, "{width}");
        // Nothing marked: cut around where the step's move went.
        let moved = board(&rows.join("/"), Coords::Numbers).with_move("movePiece 255 0 0 0");
        let t = texts(&svg_of(moved));
        assert!(
            t.iter().any(|x| x == "cut: rows 0–19 and columns 0–19 of the 256x256 board, around the squares that matter"),
            "{t:?}"
        );
        // An empty board is said, not drawn as nothing.
        let empty = svg_of(board("", Coords::Numbers));
        assert!(texts(&empty).contains(&"(a board without squares)".to_string()));
    }

    #[test]
    fn a_budget_gives_each_scenarios_pictures_whole_until_it_is_spent() {
        let boards = vec![
            board("K./..", Coords::Numbers),
            board("k./..", Coords::Numbers),
        ];
        let size: usize = boards
            .iter()
            .map(|d| d.title.len() + data_url(d).len())
            .sum();
        let mut budget = Budget::new(size * 2 + size * 3 / 4);
        assert_eq!(budget.images(&boards).map(|i| i.len()), Some(2));
        assert_eq!(budget.images(&[]), None);
        assert_eq!(
            budget.images(&boards).unwrap()[0].0,
            "board before the step"
        );
        assert_eq!(budget.images(&boards), None, "all or none");
        assert_eq!(budget.images(&boards[..1]).map(|i| i.len()), Some(1));
    }

    #[test]
    fn a_data_url_holds_the_same_svg() {
        let d = board("K.", Coords::Files);
        let url = data_url(&d);
        assert!(url.starts_with("data:image/svg+xml;base64,PHN2Zy"), "{url}");
    }
}
