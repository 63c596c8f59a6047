//! Reading valgrind memcheck's XML reports (`--xml=yes`, protocol 4).
//!
//! Each `<error>` has a `<kind>` (`InvalidRead`, `InvalidFree`,
//! `UninitCondition`, `Leak_DefinitelyLost`, ...), a `<what>` (or, for a
//! leak, an `<xwhat>` with `<leakedbytes>` and `<leakedblocks>`), the stack
//! of the access, then pairs of `<auxwhat>` and `<stack>`: where the block
//! was freed (`... free'd`), where it was allocated (`Block was alloc'd
//! at`), where an uninitialised value was created. The kind and the words
//! of the first `<auxwhat>` tell a use after free from an overflow and a
//! double free from an invalid free. A file cut short (valgrind killed at
//! the time limit) yields the errors it holds.

use super::{
    Access, ErrorKind, Findings, Leak, Leaks, MemoryError, RawFrame, Sources, Tool, first_student,
    freeing,
};
use quick_xml::events::Event;

/// One `<error>` while it is read.
#[derive(Default)]
struct RawError {
    kind: String,
    what: String,
    leaked_bytes: u64,
    leaked_blocks: u64,
    /// The stacks and `<auxwhat>` texts, in document order.
    items: Vec<Item>,
}

enum Item {
    Stack(Vec<RawFrame>),
    Aux(String),
}

/// The findings in the XML reports of one scenario's processes.
pub fn parse(texts: &[String], sources: &Sources) -> Findings {
    let mut errors = Vec::new();
    let mut leaks = Vec::new();
    for text in texts {
        for raw in read_errors(text) {
            if raw.kind.starts_with("Leak_") {
                if matches!(
                    raw.kind.as_str(),
                    "Leak_DefinitelyLost" | "Leak_IndirectlyLost"
                ) {
                    leaks.push(Leak {
                        bytes: raw.leaked_bytes,
                        blocks: raw.leaked_blocks,
                        allocated: first_student(sources, stack_at(&raw.items, 0)),
                    });
                }
            } else {
                errors.push(to_error(&raw, sources));
            }
        }
    }
    Findings {
        tool: Tool::Valgrind,
        errors: errors.len(),
        error: errors.into_iter().next(),
        leaks: Leaks::of(leaks),
    }
}

/// Every complete `<error>` of one document, in order.
fn read_errors(text: &str) -> Vec<RawError> {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut errors = Vec::new();
    let mut path: Vec<String> = Vec::new();
    let mut error: Option<RawError> = None;
    let mut stack: Option<Vec<RawFrame>> = None;
    let mut frame: Option<(String, String, String, u32)> = None;
    let mut text_buf = String::new();
    // Cut short or garbled (an `Err`): keep the errors read so far.
    while let Ok(event) = reader.read_event() {
        match event {
            Event::Eof => break,
            Event::Start(e) => {
                let name = e.name().as_ref().to_string();
                match name.as_str() {
                    "error" if path.last().is_some_and(|p| p == "valgrindoutput") => {
                        error = Some(RawError::default());
                    }
                    "stack" if error.is_some() => stack = Some(Vec::new()),
                    "frame" if stack.is_some() => {
                        frame = Some((String::new(), String::new(), String::new(), 0))
                    }
                    _ => {}
                }
                path.push(name);
                text_buf.clear();
            }
            Event::Text(t) => text_buf.push_str(&t.xml10_content()),
            Event::CData(t) => text_buf.push_str(&t.xml10_content()),
            Event::GeneralRef(r) => text_buf.push_str(&resolve(&r.into_inner())),
            Event::End(_) => {
                let Some(name) = path.pop() else { break };
                let value = std::mem::take(&mut text_buf);
                let parent = path.last().map(String::as_str);
                match (name.as_str(), parent) {
                    ("fn", Some("frame")) => set(&mut frame, |f| f.0 = value),
                    ("dir", Some("frame")) => set(&mut frame, |f| f.1 = value),
                    ("file", Some("frame")) => set(&mut frame, |f| f.2 = value),
                    ("line", Some("frame")) => {
                        set(&mut frame, |f| f.3 = value.trim().parse().unwrap_or(0))
                    }
                    ("frame", _) => {
                        if let (Some((function, dir, file, line)), Some(s)) =
                            (frame.take(), stack.as_mut())
                        {
                            let path = match (dir.is_empty(), file.is_empty()) {
                                (_, true) => String::new(),
                                (true, false) => file,
                                (false, false) => format!("{dir}/{file}"),
                            };
                            s.push((function, path, line));
                        }
                    }
                    ("stack", _) => {
                        if let (Some(s), Some(e)) = (stack.take(), error.as_mut()) {
                            e.items.push(Item::Stack(s));
                        }
                    }
                    ("kind", Some("error")) => set(&mut error, |e| e.kind = value),
                    ("what", Some("error")) => set(&mut error, |e| e.what = value),
                    ("text", Some("xwhat")) => set(&mut error, |e| e.what = value),
                    ("leakedbytes", Some("xwhat")) => set(&mut error, |e| {
                        e.leaked_bytes = value.trim().parse().unwrap_or(0)
                    }),
                    ("leakedblocks", Some("xwhat")) => set(&mut error, |e| {
                        e.leaked_blocks = value.trim().parse().unwrap_or(0)
                    }),
                    ("auxwhat", Some("error")) => {
                        set(&mut error, |e| e.items.push(Item::Aux(value)))
                    }
                    ("error", _) => {
                        if let Some(e) = error.take() {
                            errors.push(e);
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    errors
}

fn set<T>(slot: &mut Option<T>, f: impl FnOnce(&mut T)) {
    if let Some(v) = slot.as_mut() {
        f(v);
    }
}

/// An entity or character reference's text (`lt` → `<`, `#60` → `<`).
fn resolve(name: &str) -> String {
    let named = match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => None,
    };
    let numeric = || {
        let n = name.strip_prefix('#')?;
        let code = match n.strip_prefix('x') {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => n.parse().ok()?,
        };
        char::from_u32(code)
    };
    named
        .or_else(numeric)
        .map_or_else(|| format!("&{name};"), String::from)
}

/// The `n`-th stack of an error (0: the access's).
fn stack_at(items: &[Item], n: usize) -> &[RawFrame] {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Stack(s) => Some(s.as_slice()),
            Item::Aux(_) => None,
        })
        .nth(n)
        .unwrap_or(&[])
}

/// The stack that follows the first `<auxwhat>` matching `pred`.
fn stack_after(items: &[Item], pred: impl Fn(&str) -> bool) -> Option<&[RawFrame]> {
    let at = items
        .iter()
        .position(|i| matches!(i, Item::Aux(t) if pred(t)))?;
    items[at + 1..].iter().find_map(|i| match i {
        Item::Stack(s) => Some(s.as_slice()),
        Item::Aux(_) => None,
    })
}

fn first_aux(items: &[Item]) -> &str {
    items
        .iter()
        .find_map(|i| match i {
            Item::Aux(t) => Some(t.as_str()),
            Item::Stack(_) => None,
        })
        .unwrap_or("")
}

fn to_error(raw: &RawError, sources: &Sources) -> MemoryError {
    let aux = first_aux(&raw.items);
    let freed_block = aux.contains(" free'd");
    let kind = match raw.kind.as_str() {
        "InvalidRead" | "InvalidWrite" if freed_block => ErrorKind::UseAfterFree,
        "InvalidRead" | "InvalidWrite"
            if aux.contains("bytes after a block") || aux.contains("bytes before a block") =>
        {
            ErrorKind::OutOfBounds
        }
        "InvalidRead" | "InvalidWrite" if aux.contains("stack") => ErrorKind::OutOfBounds,
        "InvalidRead" | "InvalidWrite" | "InvalidJump" => ErrorKind::InvalidAccess,
        "InvalidFree" if freed_block => ErrorKind::DoubleFree,
        "InvalidFree" => ErrorKind::InvalidFree,
        "MismatchedFree" => ErrorKind::MismatchedFree,
        "UninitCondition" | "UninitValue" | "SyscallParam" => ErrorKind::Uninitialised,
        _ => ErrorKind::Other,
    };
    // `Invalid read of size 4`
    let access = match raw.kind.as_str() {
        "InvalidRead" | "InvalidWrite" => Some(Access {
            write: raw.kind == "InvalidWrite",
            size: raw
                .what
                .rsplit(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0),
        }),
        _ => None,
    };
    let freed = stack_after(&raw.items, |t| t.contains(" free'd"));
    let allocated = stack_after(&raw.items, |t| {
        t.contains("alloc'd") || t.starts_with("Uninitialised value was created")
    });
    MemoryError {
        kind,
        access,
        detail: raw.what.clone(),
        at: first_student(sources, stack_at(&raw.items, 0)),
        allocated: allocated.and_then(|s| first_student(sources, s)),
        freed: freed.and_then(|s| freeing(sources, s)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memcheck::frame;
    use std::path::Path;

    fn sources() -> Sources {
        Sources::at(Path::new("/tmp/b/upload"))
    }

    fn frame_xml(function: &str, dir: &str, file: &str, line: u32) -> String {
        format!(
            "<frame><ip>0x1</ip><obj>/tmp/b/engine</obj><fn>{function}</fn><dir>{dir}</dir><file>{file}</file><line>{line}</line></frame>"
        )
    }

    const RUNTIME: &str = "<frame><ip>0x4841F2F</ip><obj>/usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so</obj><fn>operator delete(void*, unsigned long)</fn></frame>";

    fn document(errors: &str) -> String {
        format!(
            "<?xml version=\"1.0\"?>\n<valgrindoutput>\n<protocolversion>4</protocolversion>\n{errors}\n<errorcounts>\n</errorcounts>\n</valgrindoutput>\n"
        )
    }

    /// The shape of a real report (valgrind 3.19, `Invalid read` of a freed
    /// block), with the adapter's glue frame under the student's.
    fn use_after_free() -> String {
        let up = "/tmp/b/upload";
        document(&format!(
            "<error><unique>0x0</unique><tid>1</tid><kind>InvalidRead</kind><what>Invalid read of size 4</what>\
             <stack>{}{}</stack>\
             <auxwhat>Address 0x4d6dc84 is 4 bytes inside a block of size 16 free'd</auxwhat>\
             <stack>{RUNTIME}{}</stack>\
             <auxwhat>Block was alloc'd at</auxwhat>\
             <stack>{}</stack></error>",
            frame_xml(
                "Student::ChessBoard::isValidMove(int, int, int, int)",
                up,
                "ChessBoard.cc",
                172
            ),
            frame_xml(
                "chessgrade::hooks::valid(chessgrade::Square, chessgrade::Square)",
                "/tmp/b",
                "chessgrade_hooks.cc",
                63
            ),
            frame_xml(
                "Student::ChessBoard::movePiece(int, int, int, int)",
                up,
                "ChessBoard.cc",
                238
            ),
            frame_xml(
                "Student::ChessBoard::isValidMove(int, int, int, int)",
                up,
                "ChessBoard.cc",
                177
            ),
        ))
    }

    #[test]
    fn an_invalid_read_of_a_freed_block_is_a_use_after_free() {
        let f = parse(&[use_after_free()], &sources());
        assert_eq!(f.errors, 1);
        let e = f.error.unwrap();
        assert_eq!(e.kind, ErrorKind::UseAfterFree);
        assert_eq!(
            e.access,
            Some(Access {
                write: false,
                size: 4
            })
        );
        assert_eq!(e.detail, "Invalid read of size 4");
        assert_eq!(
            e.at,
            frame("ChessBoard.cc", 172, "Student::ChessBoard::isValidMove")
        );
        assert_eq!(
            e.freed,
            frame("ChessBoard.cc", 238, "Student::ChessBoard::movePiece")
        );
        assert_eq!(
            e.allocated,
            frame("ChessBoard.cc", 177, "Student::ChessBoard::isValidMove")
        );
    }

    #[test]
    fn overflows_double_frees_and_uninitialised_values_are_told_apart() {
        let up = "/tmp/b/upload";
        let at = frame_xml(
            "Student::ChessBoard::movePiece(int, int, int, int)",
            up,
            "ChessBoard.cc",
            214,
        );
        let alloc = frame_xml(
            "Student::ChessBoard::movePiece(int, int, int, int)",
            up,
            "ChessBoard.cc",
            205,
        );
        let text = document(&format!(
            "<error><kind>InvalidWrite</kind><what>Invalid write of size 4</what><stack>{at}</stack>\
             <auxwhat>Address 0x4d6dc90 is 0 bytes after a block of size 32 alloc'd</auxwhat><stack>{alloc}</stack></error>\
             <error><kind>InvalidFree</kind><what>Invalid free() / delete / delete[] / realloc()</what><stack>{RUNTIME}{at}</stack>\
             <auxwhat>Address 0x4d6dc80 is 0 bytes inside a block of size 32 free'd</auxwhat><stack>{at}</stack>\
             <auxwhat>Block was alloc'd at</auxwhat><stack>{alloc}</stack></error>\
             <error><kind>UninitCondition</kind><what>Conditional jump or move depends on uninitialised value(s)</what>\
             <stack>{}</stack><auxwhat>Uninitialised value was created by a heap allocation</auxwhat><stack>{RUNTIME}{alloc}</stack></error>",
            frame_xml(
                "Student::PawnPiece::canMoveToLocation(int, int)",
                up,
                "PawnPiece.cc",
                30
            ),
        ));
        let errors: Vec<MemoryError> = read_errors(&text)
            .iter()
            .map(|r| to_error(r, &sources()))
            .collect();
        assert_eq!(errors.len(), 3);
        assert_eq!(errors[0].kind, ErrorKind::OutOfBounds);
        assert_eq!(
            errors[0].access,
            Some(Access {
                write: true,
                size: 4
            })
        );
        assert_eq!(errors[0].allocated.as_ref().unwrap().line, 205);
        assert_eq!(errors[1].kind, ErrorKind::DoubleFree);
        assert_eq!(errors[1].at.as_ref().unwrap().line, 214);
        assert_eq!(errors[1].freed.as_ref().unwrap().line, 214);
        assert_eq!(errors[2].kind, ErrorKind::Uninitialised);
        assert_eq!(
            errors[2].at,
            frame("PawnPiece.cc", 30, "Student::PawnPiece::canMoveToLocation")
        );
        assert_eq!(errors[2].allocated.as_ref().unwrap().line, 205);
        let f = parse(&[text], &sources());
        assert_eq!(
            (f.errors, f.error.unwrap().kind),
            (3, ErrorKind::OutOfBounds)
        );
    }

    #[test]
    fn definite_and_indirect_leaks_count_and_possible_ones_do_not() {
        let up = "/tmp/b/upload";
        let leak = |kind: &str, bytes: u64, blocks: u64, line: u32| {
            format!(
                "<error><kind>{kind}</kind><xwhat><text>{bytes} bytes in {blocks} blocks are lost</text>\
                 <leakedbytes>{bytes}</leakedbytes><leakedblocks>{blocks}</leakedblocks></xwhat>\
                 <stack>{RUNTIME}{}</stack></error>",
                frame_xml(
                    "Student::ChessBoard::createChessPiece(Color, Type, int, int)",
                    up,
                    "ChessBoard.cc",
                    line
                )
            )
        };
        let text = document(&format!(
            "{}{}{}",
            leak("Leak_DefinitelyLost", 32, 1, 40),
            leak("Leak_IndirectlyLost", 96, 3, 44),
            leak("Leak_PossiblyLost", 1000, 1, 50),
        ));
        let f = parse(&[text], &sources());
        assert_eq!(f.error, None);
        let leaks = f.leaks.unwrap();
        assert_eq!((leaks.bytes, leaks.blocks), (128, 4));
        assert_eq!(
            leaks.largest[0].allocated,
            frame("ChessBoard.cc", 44, "Student::ChessBoard::createChessPiece")
        );
    }

    #[test]
    fn a_report_cut_short_keeps_its_complete_errors_and_escapes_are_read() {
        let mut text = use_after_free().replace(
            "Student::ChessBoard::movePiece(int, int, int, int)",
            "Student::ChessBoard::operator&lt;&lt;(std::vector&lt;int&gt;&amp;)",
        );
        let full = parse(std::slice::from_ref(&text), &sources());
        assert_eq!(
            full.error.unwrap().freed.unwrap().function,
            "Student::ChessBoard::operator<<"
        );
        text.push_str("<error><kind>InvalidRead</kind><what>Invalid read of si");
        text = text.replace("</valgrindoutput>", "");
        let cut = parse(&[text], &sources());
        assert_eq!(cut.errors, 1);
        assert_eq!(parse(&["not xml <<<".to_string()], &sources()).errors, 0);
    }
}
