//! The graders' `Mystery.h` for JHU CS220's Mystery piece, written from a
//! scenario's `@mystery` shape.
//!
//! The course (seed 002) releases a stub `Mystery` class that cannot move
//! and, when it grades, replaces `Mystery.h` with its own piece: a
//! `Mystery` with the starter's member functions defined for some move
//! shape and a `const` `point_value()` returning an `int`. Students' code
//! must handle any such piece through `Piece`'s virtual functions (their
//! `Game` checks that a straight-line shape does not pass through pieces;
//! any other shape jumps). A scenario with `@mystery` is only meaningful on
//! a program built with that scenario's piece, so console grading writes
//! this header over the upload (after the staff overlay) and builds it once
//! per distinct shape, shared by every scenario with that shape
//! ([`super::ConsoleGrader::build_traced`]).
//!
//! The header is a pure function of the shape: the same shape (whatever
//! order its offsets were listed in) gives the same text, which is what
//! decides that two scenarios share a build.

use crate::engine::MysteryShape;

/// The header's file name, as the course's `CreatePiece.cpp` includes it.
pub const MYSTERY_HEADER: &str = "Mystery.h";

/// How far a slider reaches on the JHU program's 8x8 board.
const SLIDER_REACH: i32 = 7;

/// The shape as a scenario writes it: `@mystery slider 1,1 value 5` (one
/// offset per symmetry class, smallest first).
pub fn describe(shape: &MysteryShape) -> String {
    let kind = if shape.slides { "slider" } else { "leaper" };
    let mut offsets = crate::protocol::canonical_offsets(shape);
    offsets.sort_unstable();
    let offsets: Vec<String> = offsets.iter().map(|(a, b)| format!("{a},{b}")).collect();
    format!(
        "@mystery {kind} {} value {}",
        offsets.join(" "),
        shape.value
    )
}

/// The graders' `Mystery.h` for `shape`: `legal_move_shape` accepts
/// exactly the shape's vectors (a slider's repeated along their line, up
/// to the board's edge), `point_value()` is the shape's value, and the
/// letters and constructor are the released stub's.
pub fn mystery_header(shape: &MysteryShape) -> String {
    let mut vectors = shape.vectors().to_vec();
    vectors.sort_unstable();
    let reach = if shape.slides { SLIDER_REACH } else { 1 };
    let list: Vec<String> = vectors
        .iter()
        .map(|(dr, dc)| format!("{{{dr}, {dc}}}"))
        .collect();
    let n = vectors.len();
    let value = shape.value;
    let described = describe(shape);
    format!(
        r#"// The graders' Mystery piece, written by chessgrade for `{described}`.
// It replaces the released Mystery.h (seed 002: "When we grade, we'll supply a new
// version of Mystery.h"). Offsets are (rows, columns), rows counted down the board.
#ifndef MYSTERY_H
#define MYSTERY_H

#include "Piece.h"

namespace Chess
{{
  class Mystery : public Piece {{

  public:
    bool legal_move_shape(const Position& start, const Position& end) const override {{
      const int dr = start.second - end.second;
      const int dc = end.first - start.first;
      const int vectors[{n}][2] = {{{list}}};
      for (int k = 1; k <= {reach}; k++)
        for (const auto& v : vectors)
          if (dr == k * v[0] && dc == k * v[1]) return true;
      return false;
    }}

    int point_value() const {{ return {value}; }}

    char to_ascii() const override {{ return is_white() ? 'M' : 'm'; }}

    std::string to_unicode() const override {{ return is_white() ? "\u2687" : "\u2689"; }}

  private:
    Mystery(bool is_white) : Piece(is_white) {{}}

    friend Piece* create_piece(const char& piece_designator);
  }};
}}
#endif // MYSTERY_H
"#,
        list = list.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_camel_accepts_its_eight_jumps_and_counts_its_value() {
        let camel = MysteryShape::new(false, &[(1, 3)], 4).unwrap();
        let h = mystery_header(&camel);
        // The eight (±1, ±3) and (±3, ±1) jumps, sorted, written by hand.
        assert!(
            h.contains(
                "const int vectors[8][2] = {{-3, -1}, {-3, 1}, {-1, -3}, {-1, 3}, {1, -3}, {1, 3}, {3, -1}, {3, 1}};\n"
            ),
            "{h}"
        );
        assert!(h.contains("for (int k = 1; k <= 1; k++)"), "{h}");
        assert!(h.contains("int point_value() const { return 4; }"), "{h}");
        assert!(
            h.starts_with(
                "// The graders' Mystery piece, written by chessgrade for `@mystery leaper 1,3 value 4`.\n"
            ),
            "{h}"
        );
    }

    #[test]
    fn a_slider_repeats_its_steps_to_the_edge() {
        let rider = MysteryShape::new(true, &[(1, 1)], 5).unwrap();
        let h = mystery_header(&rider);
        assert!(
            h.contains("const int vectors[4][2] = {{-1, -1}, {-1, 1}, {1, -1}, {1, 1}};\n"),
            "{h}"
        );
        assert!(h.contains("for (int k = 1; k <= 7; k++)"), "{h}");
        assert_eq!(describe(&rider), "@mystery slider 1,1 value 5");
    }

    #[test]
    fn the_same_shape_listed_otherwise_is_the_same_header() {
        let a = MysteryShape::new(false, &[(1, 2), (0, 2)], 3).unwrap();
        let b = MysteryShape::new(false, &[(-2, 0), (2, -1)], 3).unwrap();
        assert_eq!(mystery_header(&a), mystery_header(&b));
        assert_eq!(describe(&a), "@mystery leaper 0,2 1,2 value 3");
        let other_value = MysteryShape::new(false, &[(1, 2), (0, 2)], 4).unwrap();
        assert_ne!(mystery_header(&a), mystery_header(&other_value));
    }
}
