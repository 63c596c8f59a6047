//! Reading the reports of AddressSanitizer, LeakSanitizer and
//! UndefinedBehaviorSanitizer (GCC's runtimes) from their log files.
//!
//! The reports are text meant for people, so only their stable parts are
//! read: the header line (`==PID==ERROR: AddressSanitizer: <kind> ...`,
//! `==PID==ERROR: LeakSanitizer: detected memory leaks`, `file:line:col:
//! runtime error: <message>`), the access line (`READ of size 4 at ...`),
//! the stack frames (`#N 0xADDR in FUNCTION FILE:LINE[:COL]`), the headings
//! of the free and allocation stacks, the leak records (`Direct leak of N
//! byte(s) in M object(s) allocated from:`) and the `SUMMARY:` line.
//! Anything else (shadow byte maps, hints) is skipped, and a report cut
//! short (the process killed mid-report) yields what it holds.

use super::{
    Access, ErrorKind, Findings, Leak, Leaks, MemoryError, RawFrame, Sources, Tool, first_student,
    freeing,
};

/// Which stack a frame line belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Access,
    Freed,
    Allocated,
    Leak,
    Other,
}

/// One error report while it is read.
struct Report {
    kind: ErrorKind,
    detail: String,
    access: Option<Access>,
    ub_location: Option<RawFrame>,
    access_stack: Vec<RawFrame>,
    freed: Vec<RawFrame>,
    allocated: Vec<RawFrame>,
}

/// The findings in the text of every log file of one scenario's processes.
pub fn parse(texts: &[String], sources: &Sources) -> Findings {
    let mut errors: Vec<MemoryError> = Vec::new();
    let mut leaks: Vec<Leak> = Vec::new();
    for text in texts {
        parse_one(text, sources, &mut errors, &mut leaks);
    }
    Findings {
        tool: Tool::Asan,
        errors: errors.len(),
        error: errors.into_iter().next(),
        leaks: Leaks::of(leaks),
    }
}

fn parse_one(text: &str, sources: &Sources, errors: &mut Vec<MemoryError>, leaks: &mut Vec<Leak>) {
    let mut report: Option<Report> = None;
    let mut section = Section::Other;
    // The leak record being read: (bytes, blocks, frames).
    let mut leak: Option<(u64, u64, Vec<RawFrame>)> = None;
    let finish_leak = |leak: &mut Option<(u64, u64, Vec<RawFrame>)>, leaks: &mut Vec<Leak>| {
        if let Some((bytes, blocks, frames)) = leak.take() {
            leaks.push(Leak {
                bytes,
                blocks,
                allocated: first_student(sources, &frames),
            });
        }
    };
    let finish = |report: &mut Option<Report>, errors: &mut Vec<MemoryError>| {
        if let Some(r) = report.take() {
            errors.push(to_error(r, sources));
        }
    };
    for line in text.lines() {
        let trimmed = without_pid(line.trim());
        if let Some(header) = error_header(trimmed) {
            finish(&mut report, errors);
            finish_leak(&mut leak, leaks);
            match header {
                Header::Leaks => {
                    section = Section::Other;
                }
                Header::Error(kind, detail) => {
                    report = Some(Report {
                        kind,
                        detail,
                        access: None,
                        ub_location: None,
                        access_stack: Vec::new(),
                        freed: Vec::new(),
                        allocated: Vec::new(),
                    });
                    section = Section::Access;
                }
                Header::Undefined(location, message) => {
                    report = Some(Report {
                        kind: ErrorKind::UndefinedBehaviour,
                        detail: message,
                        access: None,
                        ub_location: Some(location),
                        access_stack: Vec::new(),
                        freed: Vec::new(),
                        allocated: Vec::new(),
                    });
                    section = Section::Access;
                }
            }
            continue;
        }
        if let Some((bytes, blocks)) = leak_record(trimmed) {
            finish_leak(&mut leak, leaks);
            leak = Some((bytes, blocks, Vec::new()));
            section = Section::Leak;
            continue;
        }
        if let Some(frame) = frame_line(trimmed) {
            match section {
                Section::Leak => {
                    if let Some(l) = leak.as_mut() {
                        l.2.push(frame);
                    }
                }
                Section::Access => {
                    if let Some(r) = report.as_mut() {
                        r.access_stack.push(frame);
                    }
                }
                Section::Freed => {
                    if let Some(r) = report.as_mut() {
                        r.freed.push(frame);
                    }
                }
                Section::Allocated => {
                    if let Some(r) = report.as_mut() {
                        r.allocated.push(frame);
                    }
                }
                Section::Other => {}
            }
            continue;
        }
        if let Some(access) = access_line(trimmed) {
            if let Some(r) = report.as_mut().filter(|r| r.access.is_none()) {
                r.access = Some(access);
            }
            continue;
        }
        if trimmed.starts_with("freed by thread") {
            section = Section::Freed;
        } else if trimmed.starts_with("previously allocated by thread")
            || trimmed.starts_with("allocated by thread")
        {
            section = Section::Allocated;
        } else if let Some(summary) = trimmed.strip_prefix("SUMMARY: AddressSanitizer: ") {
            // The canonical name of the error (`double-free`, `SEGV`, ...).
            if let Some(r) = report.as_mut() {
                let name = summary.split_whitespace().next().unwrap_or("");
                if !name.is_empty() && !name.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                    r.detail = name.to_string();
                    r.kind = kind_of(name).unwrap_or(r.kind);
                }
            }
            section = Section::Other;
        } else if trimmed.starts_with("SUMMARY:") || trimmed.starts_with("Shadow bytes") {
            section = Section::Other;
        } else if let Some(r) = report.as_mut().filter(|r| r.access.is_none())
            && trimmed.starts_with("The signal is caused by a ")
        {
            let write = trimmed.contains("WRITE");
            r.access = Some(Access { write, size: 0 });
        }
    }
    finish(&mut report, errors);
    finish_leak(&mut leak, leaks);
}

enum Header {
    Error(ErrorKind, String),
    Leaks,
    /// A UBSan report: where, and its message.
    Undefined(RawFrame, String),
}

/// A line that starts a report.
fn error_header(line: &str) -> Option<Header> {
    if let Some(rest) = line.strip_prefix("ERROR: ") {
        if rest.starts_with("LeakSanitizer:") {
            return Some(Header::Leaks);
        }
        let what = rest.strip_prefix("AddressSanitizer: ")?;
        let what = what.strip_prefix("attempting ").unwrap_or(what);
        let name = what.split_whitespace().next().unwrap_or("");
        let kind = kind_of(name).unwrap_or(ErrorKind::Other);
        return Some(Header::Error(kind, name.to_string()));
    }
    // UBSan: `path:line:col: runtime error: message`.
    let (location, message) = line.split_once(": runtime error: ")?;
    let mut parts = location.rsplitn(3, ':');
    let (col, line_no, file) = (parts.next()?, parts.next()?, parts.next()?);
    let (line_no, _) = (line_no.parse::<u32>().ok()?, col.parse::<u32>().ok()?);
    Some(Header::Undefined(
        (String::new(), file.to_string(), line_no),
        message.trim().to_string(),
    ))
}

/// A line without the `==PID==` the sanitizers put in front of their own lines.
fn without_pid(line: &str) -> &str {
    line.strip_prefix("==")
        .and_then(|rest| rest.split_once("=="))
        .filter(|(pid, _)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        .map_or(line, |(_, rest)| rest)
}

/// The kind named by an AddressSanitizer report (`heap-use-after-free`).
fn kind_of(name: &str) -> Option<ErrorKind> {
    Some(match name {
        "heap-use-after-free" => ErrorKind::UseAfterFree,
        "heap-buffer-overflow"
        | "stack-buffer-overflow"
        | "stack-buffer-underflow"
        | "global-buffer-overflow"
        | "dynamic-stack-buffer-overflow"
        | "container-overflow"
        | "intra-object-overflow" => ErrorKind::OutOfBounds,
        "double-free" => ErrorKind::DoubleFree,
        "bad-free" | "free" => ErrorKind::InvalidFree,
        "alloc-dealloc-mismatch" | "new-delete-type-mismatch" => ErrorKind::MismatchedFree,
        "stack-use-after-scope" | "stack-use-after-return" => ErrorKind::UseAfterScope,
        "stack-overflow" => ErrorKind::StackOverflow,
        "SEGV" | "BUS" | "unknown-crash" | "wild-addr" | "wild-addr-read" | "wild-addr-write"
        | "wild-jump" => ErrorKind::InvalidAccess,
        _ => return None,
    })
}

/// `READ of size 4 at 0x... thread T0`.
fn access_line(line: &str) -> Option<Access> {
    let (what, rest) = line.split_once(" of size ")?;
    let write = match what {
        "READ" => false,
        "WRITE" => true,
        _ => return None,
    };
    let size = rest.split_whitespace().next()?.parse().ok()?;
    Some(Access { write, size })
}

/// `Direct leak of 40 byte(s) in 1 object(s) allocated from:` (or Indirect).
fn leak_record(line: &str) -> Option<(u64, u64)> {
    let rest = line
        .strip_prefix("Direct leak of ")
        .or_else(|| line.strip_prefix("Indirect leak of "))?;
    let (bytes, rest) = rest.split_once(" byte(s) in ")?;
    let (blocks, _) = rest.split_once(" object(s)")?;
    Some((bytes.trim().parse().ok()?, blocks.trim().parse().ok()?))
}

/// `#1 0x55d5c in Student::ChessBoard::isValidMove(int, int) /x/ChessBoard.cc:42:7`
/// → (function, file, line). The function may hold spaces; the location is
/// the last word (a module in parentheses has no file).
fn frame_line(line: &str) -> Option<RawFrame> {
    let rest = line.strip_prefix('#')?;
    let (number, rest) = rest.split_once(' ')?;
    number.parse::<u32>().ok()?;
    let rest = rest.trim_start();
    let (_address, rest) = rest.split_once(' ')?;
    let rest = rest.strip_prefix("in ")?;
    let (function, location) = rest.rsplit_once(' ')?;
    if location.starts_with('(') {
        return Some((function.to_string(), String::new(), 0));
    }
    // file:line or file:line:col (a path may itself hold colons).
    let mut parts: Vec<&str> = location.rsplitn(3, ':').collect();
    parts.reverse();
    let (file, line_no) = match parts.as_slice() {
        [file, l, c] if l.parse::<u32>().is_ok() && c.parse::<u32>().is_ok() => {
            (file.to_string(), l.parse().ok()?)
        }
        [head @ .., l] if l.parse::<u32>().is_ok() => (head.join(":"), l.parse().ok()?),
        _ => (location.to_string(), 0),
    };
    Some((function.to_string(), file, line_no))
}

fn to_error(r: Report, sources: &Sources) -> MemoryError {
    // UBSan names the place itself; its stack (when printed) has the function.
    let at = match &r.ub_location {
        Some((_, file, line)) => {
            let function = r
                .access_stack
                .iter()
                .find(|(_, f, l)| f == file && l == line)
                .map(|(f, _, _)| f.clone())
                .unwrap_or_default();
            sources
                .first_student_frame([(function.as_str(), file.as_str(), *line)])
                .or_else(|| first_student(sources, &r.access_stack))
        }
        None => first_student(sources, &r.access_stack),
    };
    MemoryError {
        kind: r.kind,
        access: r.access,
        detail: r.detail,
        at,
        allocated: first_student(sources, &r.allocated),
        freed: freeing(sources, &r.freed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memcheck::frame;
    use std::path::Path;

    /// A real report (GCC 12, `lab3-use-after-free`'s shape), trimmed of
    /// its shadow map; the paths are the build folder's.
    const USE_AFTER_FREE: &str = "\
=================================================================
==30081==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000014 at pc 0x563b72059417 bp 0x7ffc71c11310 sp 0x7ffc71c11308
READ of size 4 at 0x602000000014 thread T0
    #0 0x563b72059416 in std::vector<int, std::allocator<int> >::operator[](unsigned long) /usr/include/c++/12/bits/stl_vector.h:1123
    #1 0x563b72059417 in Student::ChessBoard::isValidMove(int, int, int, int) /tmp/b/upload/ChessBoard.cc:172
    #2 0x563b72059f0b in chessgrade::hooks::valid(chessgrade::Square, chessgrade::Square) /tmp/b/chessgrade_hooks.cc:63
    #3 0x7f8218a45249 in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58
    #4 0x563b72059210 in _start (/tmp/b/engine+0x6210)

0x602000000014 is located 4 bytes inside of 16-byte region [0x602000000010,0x602000000020)
freed by thread T0 here:
    #0 0x7f8218cba038 in operator delete(void*, unsigned long) ../../../../src/libsanitizer/asan/asan_new_delete.cpp:164
    #1 0x563b7205938f in Student::ChessBoard::movePiece(int, int, int, int) /tmp/b/upload/ChessBoard.cc:238:5

previously allocated by thread T0 here:
    #0 0x7f8218cb9628 in operator new(unsigned long) ../../../../src/libsanitizer/asan/asan_new_delete.cpp:95
    #1 0x563b720592eb in Student::ChessBoard::isValidMove(int, int, int, int) /tmp/b/upload/ChessBoard.cc:177

SUMMARY: AddressSanitizer: heap-use-after-free /tmp/b/upload/ChessBoard.cc:172 in Student::ChessBoard::isValidMove(int, int, int, int)
Shadow bytes around the buggy address:
  0x0c047fff7fb0: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
==30081==ABORTING
";

    fn sources() -> Sources {
        Sources::at(Path::new("/tmp/b/upload"))
    }

    #[test]
    fn a_use_after_free_names_the_students_read_free_and_allocation() {
        let f = parse(&[USE_AFTER_FREE.to_string()], &sources());
        assert_eq!(f.errors, 1);
        assert_eq!(f.leaks, None);
        let e = f.error.unwrap();
        assert_eq!(e.kind, ErrorKind::UseAfterFree);
        assert_eq!(
            e.access,
            Some(Access {
                write: false,
                size: 4
            })
        );
        assert_eq!(e.detail, "heap-use-after-free");
        // The vector's header frame and the adapter's glue are left out.
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
    fn a_double_free_is_named_by_its_summary() {
        let text = "\
==77==ERROR: AddressSanitizer: attempting double-free on 0x606000000020 in thread T0:
    #0 0x7f1 in operator delete[](void*) ../../../../src/libsanitizer/asan/asan_new_delete.cpp:155
    #1 0x55a in Student::ChessBoard::movePiece(int, int, int, int) /tmp/b/upload/ChessBoard.cc:214
    #2 0x55b in chessgrade::hooks::try_move(chessgrade::Square, chessgrade::Square) /tmp/b/chessgrade_hooks.cc:65

0x606000000020 is located 0 bytes inside of 64-byte region [0x606000000020,0x606000000060)
freed by thread T0 here:
    #0 0x7f1 in operator delete[](void*) ../../../../src/libsanitizer/asan/asan_new_delete.cpp:155
    #1 0x55c in Student::ChessBoard::movePiece(int, int, int, int) /tmp/b/upload/ChessBoard.cc:211

previously allocated by thread T0 here:
    #0 0x7f2 in operator new[](unsigned long) ../../../../src/libsanitizer/asan/asan_new_delete.cpp:98
    #1 0x55d in Student::ChessBoard::movePiece(int, int, int, int) /tmp/b/upload/ChessBoard.cc:205

SUMMARY: AddressSanitizer: double-free ../../../../src/libsanitizer/asan/asan_new_delete.cpp:155 in operator delete[](void*)
==77==ABORTING
";
        let e = parse(&[text.to_string()], &sources()).error.unwrap();
        assert_eq!(e.kind, ErrorKind::DoubleFree);
        assert_eq!(e.access, None);
        assert_eq!(
            e.at,
            frame("ChessBoard.cc", 214, "Student::ChessBoard::movePiece")
        );
        assert_eq!(e.freed.unwrap().line, 211);
        assert_eq!(e.allocated.unwrap().line, 205);
    }

    #[test]
    fn leak_records_add_up_with_their_allocation_sites() {
        let text = "\
=================================================================
==30139==ERROR: LeakSanitizer: detected memory leaks

Direct leak of 400 byte(s) in 1 object(s) allocated from:
    #0 0x7fc1a8ab9628 in operator new[](unsigned long) ../../../../src/libsanitizer/asan/asan_new_delete.cpp:98
    #1 0x55f04face113 in main /tmp/b/upload/main.cpp:22
    #2 0x7fc1a8845249 in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58

Indirect leak of 48 byte(s) in 3 object(s) allocated from:
    #0 0x7fc1a8ab94c8 in operator new(unsigned long) (/tmp/b/chess+0x9de58)
    #1 0x55f04face0aa in Board::add(Piece*) /tmp/b/upload/Board.cpp:40:12

SUMMARY: AddressSanitizer: 448 byte(s) leaked in 4 allocation(s).
";
        let f = parse(&[text.to_string()], &sources());
        assert_eq!((f.error, f.errors), (None, 0));
        let leaks = f.leaks.unwrap();
        assert_eq!((leaks.bytes, leaks.blocks), (448, 4));
        assert_eq!(leaks.largest[0].allocated, frame("main.cpp", 22, "main"));
        assert_eq!(
            leaks.largest[1].allocated,
            frame("Board.cpp", 40, "Board::add")
        );
    }

    #[test]
    fn undefined_behaviour_names_the_line_ubsan_gives() {
        let text = "\
Board.cpp:9:28: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'
    #0 0x556432e078ab in Board::score() /tmp/b/upload/Board.cpp:9
    #1 0x556432e07fb9 in main /tmp/b/upload/main.cpp:18
";
        let f = parse(&[text.to_string()], &sources());
        let e = f.error.unwrap();
        assert_eq!(e.kind, ErrorKind::UndefinedBehaviour);
        assert_eq!(
            e.detail,
            "signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'"
        );
        assert_eq!(e.at, frame("Board.cpp", 9, ""));
    }

    #[test]
    fn a_segv_names_the_access_and_a_cut_report_keeps_what_it_has() {
        let text = "\
==9==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 (pc 0x55 bp 0x7f sp 0x7f T0)
==9==The signal is caused by a WRITE memory access.
==9==Hint: address points to the zero page.
    #0 0x55 in Student::ChessBoard::movePiece(int, int, int, int) /tmp/b/upload/ChessBoard.cc:190
    #1 0x56 in chessgrade::hooks::try_move(chessgrade::Square, chessgrade::Square) /tmp/b/chessgrade_adap";
        let e = parse(&[text.to_string()], &sources()).error.unwrap();
        assert_eq!(e.kind, ErrorKind::InvalidAccess);
        assert_eq!(
            e.access,
            Some(Access {
                write: true,
                size: 0
            })
        );
        assert_eq!(e.at.unwrap().line, 190);
    }

    #[test]
    fn garbage_is_no_finding() {
        let f = parse(
            &["#x\n# 1 0x in\n==1==ERROR: \nREAD of size x\nDirect leak of many".to_string()],
            &sources(),
        );
        assert_eq!(f.error, None);
        assert_eq!(f.leaks, None);
    }
}
