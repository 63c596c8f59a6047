//! Showing what a submission printed without letting it act on the reader.
//!
//! Answers, stderr excerpts and compiler messages are the submission's
//! bytes. Written raw, an escape sequence clears the grader's terminal,
//! recolours it or retitles the window, a carriage return overwrites a
//! verdict, a bidi override reorders what the reader sees, and a control
//! character makes a JUnit file invalid XML (the whole report is lost).
//! Every reporter therefore passes untrusted text through one of these
//! helpers; JSON needs none, since `serde_json` escapes every control
//! character itself and a Rust `String` is always valid UTF-8.
//!
//! Escapes are visible and unambiguous enough to debug with: `\x1b` for an
//! ASCII control, `\u{9b}` for any other character. Newlines and tabs are
//! layout and stay as they are.
//!
//! HTML and SVG (the HTML pages, the board pictures, Gradescope's HTML
//! output) take every text through [`html`], the one function that makes a
//! text markup: its `&`, `<`, `>` and quotes become references, and what
//! XML cannot hold or a reader would not see (controls, bidirectional
//! overrides) becomes a visible escape, so a page or picture stays
//! well-formed and shows what was printed.

use std::borrow::Cow;
use std::fmt::Write;

/// Text for a terminal (or a log viewer that interprets ANSI, like GitHub
/// Actions'): C0 controls but `\n` and `\t`, DEL, C1 controls and the
/// bidirectional overrides and isolates become visible escapes.
pub fn terminal(text: &str) -> Cow<'_, str> {
    escape_where(text, |c| {
        (c.is_control() && c != '\n' && c != '\t') || is_bidi_control(c)
    })
}

/// Text for XML 1.0 (attributes and CDATA alike): the characters XML cannot
/// hold at all (C0 controls but tab, newline and carriage return; U+FFFE,
/// U+FFFF) become visible escapes, so the file stays well-formed.
pub fn xml(text: &str) -> Cow<'_, str> {
    escape_where(
        text,
        |c| !matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..),
    )
}

/// Text for HTML and SVG, content and attribute values alike (the one
/// escaping function of every page and picture): `&`, `<`, `>`, `"` and `'`
/// become character references; what XML 1.0 cannot hold and the
/// bidirectional controls become visible escapes (as [`xml`] and
/// [`terminal`] write them); newlines, tabs and carriage returns stay.
pub fn html(text: &str) -> String {
    let visible = escape_where(text, |c| {
        is_bidi_control(c)
            || !matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
    });
    let mut out = String::with_capacity(visible.len() + 16);
    for c in visible.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn escape_where(text: &str, bad: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&bad) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !bad(c) {
            out.push(c);
        } else if c.is_ascii() {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "a\x1b[2J\x1b]0;t\x07\x00b\rc\x08\x7f\u{9b}31m\u{202e}d\te\nf";

    #[test]
    fn terminals_see_every_control_as_a_visible_escape() {
        assert_eq!(
            terminal(HOSTILE),
            "a\\x1b[2J\\x1b]0;t\\x07\\x00b\\x0dc\\x08\\x7f\\u{9b}31m\\u{202e}d\te\nf"
        );
        assert!(
            !terminal(HOSTILE)
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t')
        );
    }

    #[test]
    fn plain_text_is_not_copied() {
        assert!(matches!(terminal("K.r/... ♔ é"), Cow::Borrowed(_)));
        assert!(matches!(xml("K.r/... ♔ é\r\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn html_is_markup_safe_and_shows_every_control() {
        assert_eq!(
            html(HOSTILE),
            "a\\x1b[2J\\x1b]0;t\\x07\\x00b\rc\\x08\\x7f\\u{9b}31m\\u{202e}d\te\nf"
        );
        assert_eq!(
            html("<script>alert('x')</script> ]]> \"q\" & é ♔"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; ]]&gt; &quot;q&quot; &amp; é ♔"
        );
        // Invalid UTF-8, made lossy where it was read, stays as U+FFFD.
        let lossy = String::from_utf8_lossy(b"a\xff\xfe<b");
        assert_eq!(html(&lossy), "a\u{fffd}\u{fffd}&lt;b");
        assert_eq!(html("\u{fffe}\u{ffff}"), "\\u{fffe}\\u{ffff}");
    }

    #[test]
    fn xml_keeps_what_xml_can_hold_and_escapes_the_rest() {
        assert_eq!(
            xml("a\x1b[1m\x00\u{fffe}\u{ffff}\u{9b}\r\n\t\u{1F600}"),
            "a\\x1b[1m\\x00\\u{fffe}\\u{ffff}\u{9b}\r\n\t\u{1F600}"
        );
    }
}
