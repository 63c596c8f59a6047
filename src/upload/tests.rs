//! The reader on uploads laid out as students' machines leave them: each
//! fixture is written here, file by file, so the test says what it holds.

use super::*;

/// Writes `files` (path, bytes) under a new temporary folder.
fn upload(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, bytes) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    dir
}

/// A relocatable ELF object's first bytes (64-bit, little-endian).
fn elf_object() -> Vec<u8> {
    let mut b = vec![0u8; 64];
    b[..4].copy_from_slice(b"\x7fELF");
    b[4] = 2;
    b[5] = 1;
    b[16] = 1;
    b
}

/// A 64-bit Mach-O file of `filetype` (1 object, 2 program), as a Mac writes it.
fn mach_o(filetype: u8) -> Vec<u8> {
    let mut b = vec![0u8; 32];
    b[..4].copy_from_slice(&[0xcf, 0xfa, 0xed, 0xfe]);
    b[12] = filetype;
    b
}

fn paths(list: &[PathBuf]) -> Vec<String> {
    list.iter().map(|p| show(p)).collect()
}

const MAIN: &[u8] = b"#include \"Board.h\"\nint main() { return 0; }\n";

#[test]
fn a_macos_zip_is_its_one_folder_without_the_archivers_debris() {
    let dir = upload(&[
        ("Lab3/ChessBoard.hh", b"class ChessBoard {};"),
        ("Lab3/ChessBoard.cc", b"#include \"ChessBoard.hh\"\n"),
        ("Lab3/main.cc", b"int main() { return 0; }"),
        ("Lab3/.DS_Store", b"\0\0\0\x01Bud1"),
        ("__MACOSX/Lab3/._ChessBoard.cc", &[0, 5, 22, 7, 0, 2, 0, 0]),
        ("__MACOSX/._Lab3", &[0, 5, 22, 7, 0, 2, 0, 0]),
        (".DS_Store", b"\0\0\0\x01Bud1"),
    ]);
    let up = Upload::read(dir.path()).unwrap();
    assert_eq!(up.root(), dir.path().canonicalize().unwrap().join("Lab3"));
    assert_eq!(
        paths(up.files()),
        ["ChessBoard.cc", "ChessBoard.hh", "main.cc"]
    );
    assert_eq!(up.kind(), Some(UploadKind::Lab3));
    let lab3 = up.lab3().unwrap();
    assert_eq!(paths(&lab3.sources), ["ChessBoard.cc"]);
    assert_eq!(paths(&lab3.left_out), ["main.cc"]);
    assert_eq!(
        up.notes(CaseRule::AsUploaded),
        [
            "upload: the program is in Lab3/, graded from there",
            "left out 3 packaging and IDE files that are not the program: __MACOSX/, \
             .DS_Store, Lab3/.DS_Store"
        ]
    );
}

#[test]
fn a_visual_studio_project_is_one_program_built_from_the_sources_its_project_lists() {
    let project = br#"<Project><ItemGroup>
        <ClCompile Include="Source\main.cpp" />
        <ClCompile Include="Source\knight.cpp">
        </ClCompile>
        <ClInclude Include="Header\knight.h" />
      </ItemGroup></Project>"#;
    let dir = upload(&[
        ("Chess/Chess.sln", b"Microsoft Visual Studio Solution File"),
        ("Chess/Chess/Chess.vcxproj", project),
        ("Chess/Chess/Chess.vcxproj.user", b"<Project/>"),
        (
            "Chess/Chess/Source/main.cpp",
            b"#include \"Knight.h\"\nint main() {}\n",
        ),
        (
            "Chess/Chess/Source/knight.cpp",
            b"// the knight\n#include \"Knight.h\"\n",
        ),
        ("Chess/Chess/Source/scratch.cpp", b"int unused;\n"),
        ("Chess/Chess/Header/knight.h", b"#pragma once\n"),
        ("Chess/Chess/README/board.png", b"\x89PNG\r\n"),
        (
            "Chess/Chess/x64/Debug/knight.obj",
            &[
                0x64, 0x86, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            ],
        ),
        ("Chess/.vs/Chess/v17/.suo", b"x"),
    ]);
    let up = Upload::read(dir.path()).unwrap();
    assert_eq!(up.kind(), Some(UploadKind::Console));
    assert_eq!(up.build_file(), None);
    let sources = up.program_sources();
    assert_eq!(
        paths(&sources.files),
        ["Source/knight.cpp", "Source/main.cpp"]
    );
    assert_eq!(sources.project.as_deref(), Some(Path::new("Chess.vcxproj")));
    assert_eq!(paths(&up.header_dirs()), ["", "Header"]);
    assert_eq!(up.case_fixes().len(), 2);
    let fix = &up.case_fixes()[0];
    assert_eq!(
        (
            show(&fix.file),
            fix.line,
            fix.written.as_str(),
            fix.fixed.as_str(),
            show(&fix.actual)
        ),
        (
            "Source/knight.cpp".into(),
            2,
            "Knight.h",
            "knight.h",
            "Header/knight.h".into()
        )
    );
    let notes = up.notes(CaseRule::AsUploaded);
    assert_eq!(
        notes[0],
        "upload: the program is in Chess/Chess/, graded from there"
    );
    assert_eq!(
        notes[1],
        "left out 3 packaging and IDE files that are not the program: Chess/.vs/, \
         Chess/Chess/Chess.vcxproj.user, Chess/Chess/x64/"
    );
    assert_eq!(
        notes[2],
        "Source/knight.cpp line 2: #include \"Knight.h\" names Header/knight.h, but its name \
         differs from the file's only in case, which Windows and macOS ignore and Linux does \
         not; built as #include \"knight.h\" (--strict-case makes this a compile error)"
    );
    assert_eq!(up.case_error(CaseRule::AsUploaded), None);
    let strict = up.case_error(CaseRule::Strict).unwrap();
    assert!(
        strict.starts_with("Source/knight.cpp line 2: #include \"Knight.h\" names Header/knight.h")
            && strict.contains("(--strict-case): write #include \"knight.h\", or rename the file."),
        "{strict}"
    );
    assert_eq!(
        up.notes(CaseRule::Strict).len(),
        2,
        "the fixes are the error, not notes"
    );

    // The copy resolves the include on its line and nothing else.
    let out = tempfile::tempdir().unwrap();
    up.copy_into(out.path(), CaseRule::AsUploaded).unwrap();
    assert_eq!(
        std::fs::read_to_string(out.path().join("Source/knight.cpp")).unwrap(),
        "// the knight\n#include \"knight.h\"\n"
    );
    assert!(
        out.path().join("x64/Debug").is_dir() && !out.path().join("x64/Debug/knight.obj").exists(),
        "a build folder is kept empty: a Makefile may write there without creating it"
    );
    assert!(out.path().join("README/board.png").is_file());
    let strict = tempfile::tempdir().unwrap();
    up.copy_into(strict.path(), CaseRule::Strict).unwrap();
    assert_eq!(
        std::fs::read_to_string(strict.path().join("Source/knight.cpp")).unwrap(),
        "// the knight\n#include \"Knight.h\"\n"
    );
}

#[test]
fn build_products_are_left_out_by_content_and_objects_without_sources_kept() {
    let dir = upload(&[
        ("main.cpp", MAIN),
        ("Knight.cpp", b"int knight;\n"),
        ("Board.h", b"#pragma once\n"),
        ("main.o", &elf_object()),
        ("Knight.o", &mach_o(1)),
        ("chess", &mach_o(2)),
        ("core", &{
            let mut b = elf_object();
            b[16] = 4;
            b
        }),
        ("Board.h.gch", b"gpch013 ..."),
        ("instructor.o", &elf_object()),
        // The student's own text, whatever its name.
        ("notes.o", b"remember to test castling\n"),
        (
            "Makefile",
            b"chess: main.o Knight.o\n\tg++ -o chess main.o Knight.o\n",
        ),
    ]);
    let up = Upload::read(dir.path()).unwrap();
    assert_eq!(
        paths(up.files()),
        [
            "Board.h",
            "Knight.cpp",
            "Makefile",
            "instructor.o",
            "main.cpp",
            "notes.o"
        ]
    );
    assert_eq!(up.build_file(), Some(BuildFile::Make));
    assert_eq!(
        up.notes(CaseRule::AsUploaded),
        [
            "left out 5 build products the upload carried: Board.h.gch, Knight.o, chess, core, \
             main.o; built from the sources",
            "kept instructor.o: no source of the upload makes this object file (a course may \
             hand one out)"
        ]
    );
}

#[test]
fn several_programs_are_said_only_when_each_folder_holds_one() {
    let class = upload(&[
        ("alice/main.cpp", MAIN),
        ("alice/Board.h", b""),
        ("bob/chess/Makefile", b"all:\n"),
        ("bob/chess/game.cpp", b""),
        ("notes/README.md", b"grading notes"),
    ]);
    assert_eq!(
        Upload::read(class.path()).unwrap_err(),
        ReadError::SeveralPrograms(vec!["alice".into(), "bob".into()])
    );
    let lab3_class = upload(&[
        ("a/ChessBoard.hh", b""),
        ("a/ChessBoard.cc", b""),
        ("b/ChessBoard.hh", b""),
        ("b/ChessBoard.cc", b""),
    ]);
    assert!(matches!(
        Upload::read(lab3_class.path()),
        Err(ReadError::SeveralPrograms(_))
    ));
    for split in [
        ["src/main.cpp", "include/Board.h"],
        ["Source/main.cpp", "Header/Board.h"],
    ] {
        let one = upload(&[
            (split[0], MAIN),
            (split[1], b"#pragma once\n"),
            ("README.md", b""),
        ]);
        let up = Upload::read(one.path()).unwrap();
        assert_eq!(up.root(), one.path().canonicalize().unwrap(), "{split:?}");
        assert_eq!(paths(&up.program_sources().files), [split[0]]);
        assert!(up.notes(CaseRule::AsUploaded).is_empty(), "{split:?}");
        assert!(
            up.case_fixes().is_empty(),
            "Board.h is found on the include path"
        );
    }
    // A folder of documents beside the program's folder is not a program.
    let docs = upload(&[("report/report.pdf", b"%PDF"), ("code/main.cpp", MAIN)]);
    let up = Upload::read(docs.path()).unwrap();
    assert_eq!(up.root(), docs.path().canonicalize().unwrap().join("code"));
}

#[test]
fn lab3_interface_files_are_found_in_subfolders() {
    let dir = upload(&[
        ("repo/include/ChessBoard.hh", b""),
        ("repo/include/ChessPiece.hh", b""),
        ("repo/src/ChessBoard.cc", b"#include \"ChessBoard.hh\"\n"),
        ("repo/src/main.cc", b"int main() { return 0; }"),
        ("repo/test_files/config1.txt", b"..."),
    ]);
    let up = Upload::read(dir.path()).unwrap();
    let lab3 = up.lab3().unwrap();
    assert_eq!(paths(&lab3.sources), ["src/ChessBoard.cc"]);
    assert_eq!(paths(&lab3.left_out), ["src/main.cc"]);
    assert_eq!(paths(&up.header_dirs()), ["", "include"]);
    // Sources beside the header are the upload's; others are not taken in.
    let beside = upload(&[
        ("ChessBoard.hh", b""),
        ("ChessBoard.cc", b""),
        ("old/ChessBoard.cc", b""),
    ]);
    let lab3 = Upload::read(beside.path()).unwrap().lab3().unwrap();
    assert_eq!(paths(&lab3.sources), ["ChessBoard.cc"]);
    let none = upload(&[("README.md", b"")]);
    let err = Upload::read(none.path()).unwrap().lab3().unwrap_err();
    assert!(err.ends_with("(it holds README.md)"), "{err}");
}

#[test]
fn build_folders_holding_sources_are_the_students_and_windows_separators_are_resolved() {
    let dir = upload(&[
        (
            "Release/main.cpp",
            b"#include \"..\\include\\Board.h\"\nint main() {}\n",
        ),
        ("include/Board.h", b""),
        ("Debug/chess.exe", b"MZ"),
        (
            "build/CMakeCache.txt",
            b"# made in C:/Users/student/chess/build",
        ),
        ("build/CMakeFiles/x.txt", b""),
    ]);
    let up = Upload::read(dir.path()).unwrap();
    assert_eq!(paths(up.files()), ["Release/main.cpp", "include/Board.h"]);
    let fix = &up.case_fixes()[0];
    assert_eq!(
        (fix.fixed.as_str(), show(&fix.actual)),
        ("../include/Board.h", "include/Board.h".into())
    );
    assert!(
        fix.note()
            .contains("it separates folders with \\, which only Windows accepts;"),
        "{}",
        fix.note()
    );
}

#[test]
fn links_fifos_and_absurd_sizes_never_reach_a_build() {
    let dir = upload(&[("main.cpp", MAIN), ("Board.h", b"")]);
    std::os::unix::fs::symlink("/etc/passwd", dir.path().join("passwd.h")).unwrap();
    nix::unistd::mkfifo(&dir.path().join("pipe.cpp"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    let up = Upload::read(dir.path()).unwrap();
    assert_eq!(paths(up.files()), ["Board.h", "main.cpp"]);
    assert_eq!(
        up.notes(CaseRule::AsUploaded),
        [
            "left out 2 entries that are not a regular file (a link, FIFO or device): passwd.h, pipe.cpp"
        ]
    );
    let file = dir.path().join("main.cpp");
    assert!(matches!(Upload::read(&file), Err(ReadError::NotAFolder(_))));
    assert!(matches!(
        Upload::read(&dir.path().join("missing")),
        Err(ReadError::NotAFolder(_))
    ));
    let big = upload(&[("main.cpp", MAIN)]);
    std::fs::File::create(big.path().join("data.bin"))
        .unwrap()
        .set_len(MAX_UPLOAD_BYTES + 1)
        .unwrap();
    assert_eq!(Upload::read(big.path()).unwrap_err(), ReadError::TooLarge);
}
