//! Keeping a results file within a platform's size limit.
//!
//! PrairieLearn refuses a `results.json` over 1 MB, and GitHub Classroom's
//! reporter reads its results from an environment variable, which Linux
//! caps at 128 KiB. A submission decides how long its failures are (a
//! board of 256x256 squares, a flood of stderr), so a renderer cannot
//! assume its file fits: it hands its value and the texts that may be cut
//! (outputs, messages) to [`fit`], which cuts the longest ones first, each
//! to a common length (the longest kept is as short as it needs to be and
//! no shorter), and ends each cut text with a note saying how much was left
//! out. Texts are cut at a character boundary, and lengths are counted as
//! JSON writes them (escapes included), so the result is always valid
//! UTF-8 and valid JSON of at most the limit.

use serde::Serialize;

/// The longest note [`cut`] appends (in JSON bytes).
const NOTE_MAX: usize = 160;

/// How `value` is written: its length in bytes.
pub(crate) type Size<T> = fn(&T) -> usize;

/// The texts of `value` that may be cut.
pub(crate) type Texts<T> = fn(&mut T) -> Vec<&mut String>;

/// Cuts the longest of `texts(value)` until `size(value)` is at most
/// `limit`. Returns how many texts were cut, or `None` when even empty
/// texts would not fit (the rest of the value is over the limit by
/// itself; the caller drops whole entries).
fn fit<T>(value: &mut T, limit: usize, size: Size<T>, texts: Texts<T>) -> Option<usize> {
    let mut cuts = 0;
    // Each round measures the whole value again, so whatever the layout
    // adds around a text (indentation, separators) is counted; one round
    // is enough unless a cut text's note is longer than it was.
    for _ in 0..8 {
        let total = size(value);
        if total <= limit {
            return Some(cuts);
        }
        let lens: Vec<usize> = texts(value).iter().map(|t| json_len(t)).collect();
        let fixed = total - lens.iter().sum::<usize>().min(total);
        if fixed > limit {
            return None;
        }
        let budget = limit - fixed;
        let cap = common_cap(&lens, budget);
        for t in texts(value) {
            if cut(t, cap) {
                cuts += 1;
            }
        }
    }
    (size(value) <= limit).then_some(cuts)
}

/// The largest length `c` such that the texts cut to `c` (the shorter
/// ones kept whole) add up to at most `budget`.
fn common_cap(lens: &[usize], budget: usize) -> usize {
    let total = |c: usize| lens.iter().map(|&l| l.min(c)).sum::<usize>();
    let (mut lo, mut hi) = (0, lens.iter().copied().max().unwrap_or(0));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if total(mid) <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Cuts `text` to at most `cap` JSON bytes, a note saying so at its end
/// (or to nothing, when not even the note fits). Whether it was cut.
fn cut(text: &mut String, cap: usize) -> bool {
    let whole = json_len(text);
    if whole <= cap {
        return false;
    }
    if cap < NOTE_MAX {
        text.clear();
        return true;
    }
    let room = cap - NOTE_MAX;
    let mut used = 0;
    let mut end = 0;
    for (i, c) in text.char_indices() {
        let l = char_json_len(c);
        if used + l > room {
            break;
        }
        used += l;
        end = i + c.len_utf8();
    }
    let left = text.len() - end;
    text.truncate(end);
    text.push_str(&format!(
        "\n[... cut by chessgrade: {left} more bytes of this text left out, to keep the results within the platform's size limit]"
    ));
    true
}

/// What [`fit_or_drop`] had to do: texts cut, entries left out.
pub(crate) struct Fitted {
    pub cuts: usize,
    pub left_out: usize,
}

/// [`fit`], and when even empty texts do not fit, the last tenth of
/// `entries(value)` left out and the rest fitted again, until it fits or
/// no entry is left: a results file holds as many scenarios as its limit
/// allows, the first ones first.
pub(crate) fn fit_or_drop<T, E>(
    value: &mut T,
    limit: usize,
    size: Size<T>,
    texts: Texts<T>,
    entries: fn(&mut T) -> &mut Vec<E>,
) -> Fitted {
    let mut left_out = 0;
    loop {
        if let Some(cuts) = fit(value, limit, size, texts) {
            return Fitted { cuts, left_out };
        }
        let list = entries(value);
        if list.is_empty() {
            return Fitted { cuts: 0, left_out };
        }
        let keep = list.len() * 9 / 10;
        left_out += list.len() - keep;
        list.truncate(keep);
    }
}

/// How many bytes `text` takes as a JSON string's contents.
pub(crate) fn json_len(text: &str) -> usize {
    text.chars().map(char_json_len).sum()
}

/// A character's length inside a JSON string, as `serde_json` escapes it.
fn char_json_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// `value` as pretty JSON's length (a [`Size`]).
pub(crate) fn pretty_len<T: Serialize>(value: &T) -> usize {
    serde_json::to_vec_pretty(value).map_or(usize::MAX, |b| b.len())
}

/// `value` as compact JSON's length (a [`Size`]).
pub(crate) fn compact_len<T: Serialize>(value: &T) -> usize {
    serde_json::to_vec(value).map_or(usize::MAX, |b| b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Doc {
        a: String,
        b: String,
        c: String,
    }

    fn texts(d: &mut Doc) -> Vec<&mut String> {
        vec![&mut d.a, &mut d.b, &mut d.c]
    }

    #[test]
    fn the_longest_texts_are_cut_first_and_short_ones_kept() {
        let mut d = Doc {
            a: "short".into(),
            b: "x".repeat(50_000),
            c: "é\u{1}\"".repeat(20_000),
        };
        let cuts = fit(&mut d, 10_000, pretty_len::<Doc>, texts).unwrap();
        assert_eq!(cuts, 2);
        let json = serde_json::to_string_pretty(&d).unwrap();
        assert!(json.len() <= 10_000, "{}", json.len());
        assert!(
            json.len() > 9_000,
            "cut no more than needed: {}",
            json.len()
        );
        assert_eq!(d.a, "short");
        assert!(d.b.ends_with("size limit]"), "{}", &d.b[d.b.len() - 80..]);
        assert!(d.b.contains("more bytes of this text left out"));
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert!(back["c"].as_str().unwrap().starts_with("é\u{1}\""));
    }

    #[test]
    fn what_fits_is_left_alone() {
        let mut d = Doc {
            a: "a".into(),
            b: "b".into(),
            c: "c".into(),
        };
        assert_eq!(fit(&mut d, 1000, compact_len::<Doc>, texts), Some(0));
        assert_eq!(d.b, "b");
    }

    #[test]
    fn a_value_too_large_without_its_texts_says_so() {
        #[derive(Serialize)]
        struct Big {
            names: Vec<String>,
            out: String,
        }
        let mut big = Big {
            names: vec!["n".repeat(100); 100],
            out: "o".repeat(100),
        };
        assert_eq!(
            fit(&mut big, 1000, compact_len::<Big>, |b| vec![&mut b.out]),
            None
        );
    }

    #[test]
    fn json_lengths_count_escapes() {
        for s in ["plain", "a\"b\\c\nd\te\u{1}\u{1f}é♔\u{7f}\u{2028}"] {
            assert_eq!(
                json_len(s),
                serde_json::to_string(s).unwrap().len() - 2,
                "{s:?}"
            );
        }
    }
}
