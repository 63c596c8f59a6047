//! Build products told by their content, not their names: ELF, Mach-O and
//! PE/COFF files, `ar` archives, GCC's precompiled headers and macOS's
//! AppleDouble companions. A student's upload carries these because they
//! were committed with the sources (`main.o`, `chess` made on a Mac); a
//! build that finds them newer than their sources links them and fails on
//! a file made for another machine, so the reader leaves them out
//! (`super::Upload`). A file that is none of these is the student's,
//! whatever its name: `main.o` holding C++ text is a source.

/// What a binary file is, by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Binary {
    /// A relocatable object (`.o`, `.obj`).
    Object,
    /// A static library (`ar` archive: `.a`, `.lib`).
    Archive,
    /// A program (ELF executable or PIE, Mach-O executable, PE `.exe`).
    Executable,
    /// A shared library (`.so`, `.dylib`, `.dll`).
    SharedLibrary,
    /// A core dump.
    Core,
    /// GCC's precompiled header (`.gch`).
    PrecompiledHeader,
    /// Mach-O debug symbols (a `.dSYM` bundle's DWARF file).
    DebugSymbols,
    /// A macOS AppleDouble file (`._name`: resource fork and attributes).
    AppleDouble,
}

impl Binary {
    /// What a note calls it.
    pub(super) fn noun(self) -> &'static str {
        match self {
            Binary::Object => "object file",
            Binary::Archive => "static library",
            Binary::Executable => "program",
            Binary::SharedLibrary => "shared library",
            Binary::Core => "core dump",
            Binary::PrecompiledHeader => "precompiled header",
            Binary::DebugSymbols => "debug symbols",
            Binary::AppleDouble => "macOS attributes file",
        }
    }
}

/// How many leading bytes [`sniff`] needs at most (an ELF file's program
/// headers usually follow its header).
pub(super) const SNIFF_BYTES: usize = 4096;

/// What `head` (a file's first bytes, up to [`SNIFF_BYTES`]) says the
/// file is, if it is a binary the reader knows.
pub(super) fn sniff(head: &[u8]) -> Option<Binary> {
    if head.starts_with(b"\x7fELF") {
        return elf(head);
    }
    if head.starts_with(b"!<arch>\n") || head.starts_with(b"!<thin>\n") {
        return Some(Binary::Archive);
    }
    if head.starts_with(b"gpch") {
        return Some(Binary::PrecompiledHeader);
    }
    if head.starts_with(&[0x00, 0x05, 0x16, 0x07]) {
        return Some(Binary::AppleDouble);
    }
    if let Some(kind) = mach_o(head) {
        return Some(kind);
    }
    if head.starts_with(b"MZ") {
        return pe(head);
    }
    coff_object(head)
}

fn u16_at(b: &[u8], at: usize, little: bool) -> Option<u16> {
    let s: [u8; 2] = b.get(at..at + 2)?.try_into().ok()?;
    Some(if little {
        u16::from_le_bytes(s)
    } else {
        u16::from_be_bytes(s)
    })
}

fn u32_at(b: &[u8], at: usize, little: bool) -> Option<u32> {
    let s: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
    Some(if little {
        u32::from_le_bytes(s)
    } else {
        u32::from_be_bytes(s)
    })
}

fn u64_at(b: &[u8], at: usize, little: bool) -> Option<u64> {
    let s: [u8; 8] = b.get(at..at + 8)?.try_into().ok()?;
    Some(if little {
        u64::from_le_bytes(s)
    } else {
        u64::from_be_bytes(s)
    })
}

/// An ELF file by its `e_type`; a shared object (`ET_DYN`) with an
/// interpreter (`PT_INTERP`) is a position-independent program.
fn elf(b: &[u8]) -> Option<Binary> {
    let wide = *b.get(4)? == 2;
    let little = *b.get(5)? == 1;
    Some(match u16_at(b, 16, little)? {
        1 => Binary::Object,
        2 => Binary::Executable,
        4 => Binary::Core,
        3 => {
            // Program headers: offset, entry size and count.
            let (off, size, count) = if wide {
                (
                    u64_at(b, 32, little)? as usize,
                    u16_at(b, 54, little)? as usize,
                    u16_at(b, 56, little)? as usize,
                )
            } else {
                (
                    u32_at(b, 28, little)? as usize,
                    u16_at(b, 42, little)? as usize,
                    u16_at(b, 44, little)? as usize,
                )
            };
            let interp = (0..count.min(64)).any(|i| {
                off.checked_add(i.saturating_mul(size))
                    .and_then(|at| u32_at(b, at, little))
                    == Some(3)
            });
            if interp {
                Binary::Executable
            } else {
                Binary::SharedLibrary
            }
        }
        _ => return None,
    })
}

/// A Mach-O file (thin or fat) by its `filetype`.
fn mach_o(b: &[u8]) -> Option<Binary> {
    let magic = u32_at(b, 0, false)?;
    let little = match magic {
        0xfeedface | 0xfeedfacf => false,
        0xcefaedfe | 0xcffaedfe => true,
        // A universal binary: a few architectures (a Java class file
        // shares the magic, with a version of 45 or more here).
        0xcafebabe => {
            let archs = u32_at(b, 4, false)?;
            return (1..30).contains(&archs).then_some(Binary::Executable);
        }
        _ => return None,
    };
    Some(match u32_at(b, 12, little)? {
        1 => Binary::Object,
        2 | 5 | 7 => Binary::Executable,
        4 => Binary::Core,
        6 | 8 | 9 => Binary::SharedLibrary,
        10 => Binary::DebugSymbols,
        _ => return None,
    })
}

/// A PE image (`MZ`, then `PE\0\0` where the DOS header points): a DLL or
/// a program.
fn pe(b: &[u8]) -> Option<Binary> {
    let at = u32_at(b, 0x3c, true)? as usize;
    if b.get(at..at + 4) != Some(b"PE\0\0") {
        // No PE header where the DOS header points: text that starts
        // with "MZ", or a DOS program no build makes.
        return None;
    }
    let characteristics = u16_at(b, at + 22, true)?;
    Some(if characteristics & 0x2000 != 0 {
        Binary::SharedLibrary
    } else {
        Binary::Executable
    })
}

/// An MSVC object file (`.obj`): COFF with a known machine, a plausible
/// section count and no optional header; or the "anonymous" header of
/// `/GL` and `/bigobj` objects.
fn coff_object(b: &[u8]) -> Option<Binary> {
    if b.len() < 20 {
        return None;
    }
    let machine = u16_at(b, 0, true)?;
    if machine == 0 && u16_at(b, 2, true)? == 0xffff {
        return Some(Binary::Object);
    }
    let known = matches!(machine, 0x014c | 0x8664 | 0xaa64 | 0x01c4);
    let sections = u16_at(b, 2, true)?;
    let optional = u16_at(b, 16, true)?;
    (known && (1..=4096).contains(&sections) && optional == 0).then_some(Binary::Object)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64-bit little-endian ELF header of `e_type`, with program headers
    /// at 64 when `interp` asks for a `PT_INTERP` one.
    fn elf64(e_type: u16, interp: bool) -> Vec<u8> {
        let mut b = vec![0u8; 64 + 56 * 2];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2;
        b[5] = 1;
        b[16..18].copy_from_slice(&e_type.to_le_bytes());
        b[32..40].copy_from_slice(&64u64.to_le_bytes());
        b[54..56].copy_from_slice(&56u16.to_le_bytes());
        b[56..58].copy_from_slice(&2u16.to_le_bytes());
        b[64..68].copy_from_slice(&1u32.to_le_bytes()); // PT_LOAD
        let second = if interp { 3u32 } else { 2 }; // PT_INTERP or PT_DYNAMIC
        b[120..124].copy_from_slice(&second.to_le_bytes());
        b
    }

    fn mach(magic: u32, filetype: u32) -> Vec<u8> {
        let mut b = vec![0u8; 32];
        b[..4].copy_from_slice(&magic.to_be_bytes());
        b[12..16].copy_from_slice(&filetype.to_le_bytes());
        b
    }

    #[test]
    fn elf_files_are_told_by_their_type() {
        assert_eq!(sniff(&elf64(1, false)), Some(Binary::Object));
        assert_eq!(sniff(&elf64(2, false)), Some(Binary::Executable));
        assert_eq!(sniff(&elf64(3, true)), Some(Binary::Executable), "a PIE");
        assert_eq!(sniff(&elf64(3, false)), Some(Binary::SharedLibrary));
        assert_eq!(sniff(&elf64(4, false)), Some(Binary::Core));
        assert_eq!(sniff(b"\x7fELF"), None, "cut short");
    }

    #[test]
    fn mach_o_pe_coff_and_archives_are_known() {
        // 64-bit Mach-O as written on a little-endian Mac (cf fa ed fe).
        assert_eq!(sniff(&mach(0xcffaedfe, 1)), Some(Binary::Object));
        assert_eq!(sniff(&mach(0xcffaedfe, 2)), Some(Binary::Executable));
        assert_eq!(sniff(&mach(0xcffaedfe, 10)), Some(Binary::DebugSymbols));
        let fat = [0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2];
        assert_eq!(sniff(&fat), Some(Binary::Executable));
        let java = [0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 61];
        assert_eq!(sniff(&java), None, "a Java class file");
        assert_eq!(sniff(b"!<arch>\nmain.o/ "), Some(Binary::Archive));
        assert_eq!(sniff(b"gpch013"), Some(Binary::PrecompiledHeader));
        assert_eq!(sniff(&[0, 5, 22, 7, 0, 2]), Some(Binary::AppleDouble));
        let mut exe = vec![0u8; 0x100];
        exe[..2].copy_from_slice(b"MZ");
        exe[0x3c] = 0x80;
        exe[0x80..0x84].copy_from_slice(b"PE\0\0");
        assert_eq!(sniff(&exe), Some(Binary::Executable));
        exe[0x80 + 22..0x80 + 24].copy_from_slice(&0x2102u16.to_le_bytes());
        assert_eq!(sniff(&exe), Some(Binary::SharedLibrary));
        let mut obj = vec![0u8; 40];
        obj[..2].copy_from_slice(&0x8664u16.to_le_bytes());
        obj[2..4].copy_from_slice(&3u16.to_le_bytes());
        assert_eq!(sniff(&obj), Some(Binary::Object));
    }

    #[test]
    fn sources_and_text_are_never_binaries() {
        for text in [
            &b"#include \"Knight.h\"\nint main() {}\n"[..],
            b"all: chess\n\tg++ -o chess *.cpp\n",
            b"",
            b"MZ is a text file that starts like a DOS program",
            b"\xef\xbb\xbf// a source with a byte-order mark",
        ] {
            assert_eq!(sniff(text), None, "{:?}", String::from_utf8_lossy(text));
        }
    }
}
