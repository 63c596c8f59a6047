//! Uploads as they arrive (`chessgrade::upload`): the same programs as the
//! fixtures, packaged the way students' machines leave them (a macOS zip,
//! a Visual Studio project, committed objects and programs of another
//! machine, `src/` + `include/`, an include in another case), grade as
//! their sources deserve, and the report says what was done.
//!
//! Each packaged upload is made here from a fixture, so the sources are
//! the fixture's and the expected scores are the fixture's (reviewed in
//! `tests/fixtures/*/README.md`): the packaging must change nothing but
//! the notes. Builds are shared with the rest of the run: an upload whose
//! copy, once the reader has decided, equals a fixture's comes from the
//! run's build cache, and the others reuse the fixture's unit objects.

use crate::helpers::{CUHK_ALL, chessgrade, console_fixture, copy_dir, jhu_overlay, submission};
use serde_json::Value;
use std::path::Path;

const APPLE_DOUBLE: &[u8] = &[0, 5, 22, 7, 0, 2, 0, 0, b'M', b'a', b'c', b' ', b'O', b'S'];

/// A 64-bit Mach-O file of `filetype` (1 object, 2 program), as a Mac
/// writes one: what `make` on a Mac leaves in a student's repository.
fn mach_o(filetype: u8) -> Vec<u8> {
    let mut b = vec![0u8; 64];
    b[..4].copy_from_slice(&[0xcf, 0xfa, 0xed, 0xfe]);
    b[4] = 7;
    b[12] = filetype;
    b
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// `grade ARGS --format FORMAT --output F`: (exit code, the report's text,
/// stdout and stderr).
fn grade_as(format: &str, args: &[&str]) -> (i32, String, String) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut all = vec!["grade", "--color", "never"];
    all.extend(args);
    all.extend([
        "--format",
        format,
        "--output",
        report.path().to_str().unwrap(),
    ]);
    let out = chessgrade(&all);
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let body = std::fs::read_to_string(report.path()).unwrap_or_default();
    (out.status.code().unwrap_or(-1), body, text)
}

/// `grade ARGS` as JSON: (exit code, report, output).
fn grade(args: &[&str]) -> (i32, Value, String) {
    let (code, body, text) = grade_as("json", args);
    let json = serde_json::from_str(&body).unwrap_or(Value::Null);
    (code, json, text)
}

fn notes(report: &Value) -> Vec<String> {
    report["notes"]
        .as_array()
        .map(|n| {
            n.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// (scenario, status, class) of every scenario.
fn verdicts(report: &Value) -> Vec<(String, String, String)> {
    crate::helpers::verdicts(report)
        .into_iter()
        .map(|(n, s, c)| (n, s, c.unwrap_or_default()))
        .collect()
}

fn has_note(notes: &[String], text: &str) -> bool {
    notes.iter().any(|n| n.contains(text))
}

/// `lab3-correct` as macOS's "Compress" packs it: `Lab3/` with the
/// student's `.vscode/`, a committed Mac `chess`, its `chess.dSYM/` and
/// `test_files/`, beside `__MACOSX/`.
fn macos_zip(to: &Path) {
    let lab3 = to.join("Lab3");
    copy_dir(&submission("lab3-correct"), &lab3);
    write(&lab3.join(".DS_Store"), b"\0\0\0\x01Bud1");
    write(&lab3.join(".vscode/settings.json"), b"{}");
    write(&lab3.join("chess"), &mach_o(2));
    write(
        &lab3.join("chess.dSYM/Contents/Resources/DWARF/chess"),
        &mach_o(10),
    );
    write(
        &lab3.join("test_files/config1.txt"),
        b"a config of the student's\n",
    );
    write(&to.join("__MACOSX/Lab3/._ChessBoard.cc"), APPLE_DOUBLE);
    write(&to.join("__MACOSX/._Lab3"), APPLE_DOUBLE);
}

const LAB3_SCENARIOS: &str = "scenarios/lab3/bishops";

#[test]
fn a_lab3_upload_from_a_macos_zip_grades_like_the_clean_one_alone_and_in_a_class() {
    let class = tempfile::tempdir().unwrap();
    copy_dir(&submission("lab3-correct"), &class.path().join("clean"));
    macos_zip(&class.path().join("zipped"));
    write(&class.path().join("__MACOSX/._zipped"), APPLE_DOUBLE);

    let clean = class.path().join("clean");
    let zipped = class.path().join("zipped");
    let (code, want, text) = grade(&["--submission", clean.to_str().unwrap(), LAB3_SCENARIOS]);
    assert_eq!(code, 0, "{text}");
    let (code, got, text) = grade(&["--submission", zipped.to_str().unwrap(), LAB3_SCENARIOS]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(verdicts(&got), verdicts(&want));
    let notes = notes(&got);
    for note in [
        "upload: the program is in Lab3/, graded from there",
        "left out 4 packaging and IDE files that are not the program: Lab3/.vscode/, \
         Lab3/chess.dSYM/, __MACOSX/, Lab3/.DS_Store",
        "left out 1 build product the upload carried: chess; built from the sources",
        "left out main.cc: it defines its own main()",
    ] {
        assert!(notes.iter().any(|n| n == note), "{note}\nnot in {notes:#?}");
    }

    // Every report format says what was left out.
    let args = ["--submission", zipped.to_str().unwrap(), LAB3_SCENARIOS];
    for format in ["junit", "github", "gradescope"] {
        let (code, body, text) = grade_as(format, &args);
        assert_eq!(code, 0, "{format}: {text}");
        assert!(body.contains("the program is in Lab3/"), "{format}: {body}");
        assert!(
            body.contains("build product the upload carried: chess"),
            "{format}: {body}"
        );
    }

    // As class members: the class's own __MACOSX/ is no member.
    let (code, report, text) = grade_as(
        "json",
        &["--class", class.path().to_str().unwrap(), LAB3_SCENARIOS],
    );
    assert_eq!(code, 0, "{text}");
    let report: Value = serde_json::from_str(&report).unwrap();
    let members = report["submissions"]
        .as_array()
        .unwrap_or_else(|| panic!("{report:#}"));
    let names: Vec<&str> = members
        .iter()
        .map(|m| m["subject"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names[0].ends_with("clean") && names[1].ends_with("zipped"),
        "{names:?}"
    );
    assert_eq!(verdicts(&members[0]), verdicts(&members[1]));
    assert_eq!(verdicts(&members[1]), verdicts(&want));
}

#[test]
fn a_lab3_upload_split_over_include_and_src_builds() {
    let upload = tempfile::tempdir().unwrap();
    let fixture = submission("lab3-correct");
    for entry in std::fs::read_dir(&fixture).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        let folder = match path.extension().and_then(|x| x.to_str()) {
            Some("hh" | "h") => "include",
            Some("cc") => "src",
            _ => continue,
        };
        write(
            &upload.path().join(folder).join(name),
            &std::fs::read(&path).unwrap(),
        );
    }
    let (code, got, text) = grade(&[
        "--submission",
        upload.path().to_str().unwrap(),
        LAB3_SCENARIOS,
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(
        verdicts(&got).iter().all(|(_, s, _)| s == "pass"),
        "{got:#}"
    );
    let notes = notes(&got);
    assert!(
        notes
            .iter()
            .any(|n| n == "left out src/main.cc: it defines its own main()"),
        "{notes:#?}"
    );
}

/// `cuhk-correct` as its Visual Studio project holds it: `Chess/Chess.sln`,
/// `Chess/Chess/Chess.vcxproj` listing the sources in `Source\`, headers in
/// `Header/`, pictures in `README/`, the IDE's `.vs/` and `x64/Debug/`;
/// and `knight.cpp` including `"Knight.h"`, which Windows found as
/// `knight.h`.
fn visual_studio(to: &Path) {
    let project = to.join("Chess/Chess");
    let mut listed = String::new();
    let fixture = console_fixture("cuhk-correct");
    let mut names: Vec<_> = std::fs::read_dir(&fixture)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let mut text = std::fs::read_to_string(&path).unwrap();
        let folder = if name.ends_with(".cpp") {
            listed.push_str(&format!("    <ClCompile Include=\"Source\\{name}\" />\r\n"));
            "Source"
        } else {
            "Header"
        };
        if name == "knight.cpp" {
            assert!(text.contains("#include \"knight.h\""));
            text = text.replace("#include \"knight.h\"", "#include \"Knight.h\"");
        }
        write(&project.join(folder).join(&name), text.as_bytes());
    }
    let vcxproj = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<Project>\r\n  <ItemGroup>\r\n{listed}  </ItemGroup>\r\n</Project>\r\n"
    );
    write(&project.join("Chess.vcxproj"), vcxproj.as_bytes());
    write(&project.join("Chess.vcxproj.user"), b"<Project />");
    write(&project.join("README/board.png"), b"\x89PNG\r\n\x1a\n");
    let mut obj = vec![0u8; 64];
    obj[..2].copy_from_slice(&0x8664u16.to_le_bytes());
    obj[2] = 4;
    write(&project.join("x64/Debug/knight.obj"), &obj);
    write(&project.join("x64/Debug/Chess.exe"), b"MZ");
    write(
        &to.join("Chess/Chess.sln"),
        b"Microsoft Visual Studio Solution File, Format Version 12.00\r\n",
    );
    write(&to.join("Chess/.vs/Chess/v17/.suo"), b"\xd0\xcf\x11\xe0");
}

#[test]
fn a_visual_studio_cuhk_project_builds_as_the_students_ide_did_and_strict_case_refuses_it() {
    let upload = tempfile::tempdir().unwrap();
    visual_studio(upload.path());
    let dir = upload.path().to_str().unwrap();
    let mut args = vec!["--submission", dir];
    args.extend(CUHK_ALL);
    let (code, report, text) = grade(&args);
    assert_eq!(code, 0, "{text}");
    let all = verdicts(&report);
    assert!(
        !all.is_empty() && all.iter().all(|(_, s, _)| s == "pass"),
        "{all:?}"
    );
    let said = notes(&report);
    for note in [
        "upload: the program is in Chess/Chess/, graded from there",
        "left out 3 packaging and IDE files that are not the program: Chess/.vs/, \
         Chess/Chess/Chess.vcxproj.user, Chess/Chess/x64/",
        "sources: the 13 files Chess.vcxproj lists: Source/bishop.cpp, Source/board.cpp, \
         Source/game.cpp, Source/human.cpp, Source/king.cpp, Source/knight.cpp, \
         Source/machine.cpp, Source/main.cpp, …; include path: ./, Header/",
        "Source/knight.cpp line 4: #include \"Knight.h\" names Header/knight.h, but its name \
         differs from the file's only in case, which Windows and macOS ignore and Linux does \
         not; built as #include \"knight.h\" (--strict-case makes this a compile error)",
    ] {
        assert!(has_note(&said, note), "{note}\nnot in {said:#?}");
    }

    args.push("--strict-case");
    let (code, report, text) = grade(&args);
    assert_eq!(code, 1, "{text}");
    let all = verdicts(&report);
    assert!(all.iter().all(|(_, _, c)| c == "compile_error"), "{all:?}");
    assert_eq!(
        report["compile_error"],
        "Source/knight.cpp line 4: #include \"Knight.h\" names \
         Header/knight.h, but its name differs from the file's only in case, which Windows \
         and macOS ignore and Linux does not. This course builds by Linux's rules \
         (--strict-case): write #include \"knight.h\", or rename the file.",
        "{report:#}"
    );
}

#[test]
fn build_products_of_another_machine_are_left_out_of_a_jhu_build() {
    let upload = tempfile::tempdir().unwrap();
    copy_dir(&console_fixture("jhu-correct"), upload.path());
    // Committed on the student's Mac after their last build: newer than
    // the sources, so `make` would link them.
    for name in ["main.o", "Knight.o", "Board.o"] {
        write(&upload.path().join(name), &mach_o(1));
    }
    write(&upload.path().join("chess"), &mach_o(2));
    let overlay = jhu_overlay(None);
    let (code, report, text) = grade(&[
        "--submission",
        upload.path().to_str().unwrap(),
        "--overlay",
        overlay.path().to_str().unwrap(),
        "scenarios/jhu/check",
    ]);
    assert_eq!(code, 0, "{text}");
    let all = verdicts(&report);
    assert!(
        !all.is_empty() && all.iter().all(|(_, s, _)| s == "pass"),
        "{all:?}"
    );
    assert!(
        notes(&report).iter().any(|n| n
            == "left out 4 build products the upload carried: Board.o, Knight.o, chess, main.o; \
                built from the sources"),
        "{:#?}",
        notes(&report)
    );
}

#[test]
fn an_uploads_shape_is_said_in_a_students_words() {
    // Two files that define main(): the CUHK program and a test driver.
    let upload = tempfile::tempdir().unwrap();
    copy_dir(&console_fixture("cuhk-correct"), upload.path());
    write(
        &upload.path().join("test_main.cpp"),
        b"#include \"board.h\"\nint main() { return 0; }\n",
    );
    let mut args = vec!["--submission", upload.path().to_str().unwrap()];
    args.extend(CUHK_ALL);
    let (code, report, text) = grade(&args);
    assert_eq!(code, 1, "{text}");
    assert!(
        verdicts(&report)
            .iter()
            .all(|(_, _, c)| c == "compile_error"),
        "{report:#}"
    );
    assert!(
        report["compile_error"]
            .as_str()
            .unwrap_or_default()
            .starts_with(
                "The upload's shape, not its code: 2 files define main() (main.cpp, \
                 test_main.cpp), and a program has one."
            ),
        "{report:#}"
    );

    // Nothing to build: the student uploaded their report only.
    let docs = tempfile::tempdir().unwrap();
    write(&docs.path().join("Report/report.pdf"), b"%PDF-1.7");
    write(&docs.path().join("README.md"), b"my chess game");
    let mut args = vec!["--submission", docs.path().to_str().unwrap()];
    args.extend(CUHK_ALL);
    let (code, report, text) = grade(&args);
    assert_eq!(code, 1, "{text}");
    assert!(
        verdicts(&report)
            .iter()
            .all(|(_, _, c)| c == "not_recognised"),
        "{report:#}"
    );
    assert!(
        has_note(&notes(&report), "(it holds README.md, Report/report.pdf)"),
        "{:#?}",
        notes(&report)
    );
}

/// A zip of the files of `from` under `prefix` (plus `extra` entries),
/// written with the `zip` crate as an LMS would serve it.
fn zip_folder(from: &Path, prefix: &str, extra: &[(&str, &[u8])], to: &Path) {
    use std::io::Write;
    let mut w = zip::ZipWriter::new(std::fs::File::create(to).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    let mut names: Vec<_> = std::fs::read_dir(from)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names {
        let name = path.file_name().unwrap().to_str().unwrap();
        w.start_file(format!("{prefix}{name}"), opts).unwrap();
        w.write_all(&std::fs::read(&path).unwrap()).unwrap();
    }
    for (name, bytes) in extra {
        w.start_file(*name, opts).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap();
}

/// (subject, points earned, the report's notes) of each member of a
/// class's JSON report.
fn class_members(report: &Value) -> Vec<(String, u64, Vec<String>)> {
    report["submissions"]
        .as_array()
        .unwrap_or_else(|| panic!("{report:#}"))
        .iter()
        .map(|m| {
            let earned = m["scenarios"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["earned"].as_u64().unwrap())
                .sum();
            (m["subject"].as_str().unwrap().to_string(), earned, notes(m))
        })
        .collect()
}

/// `grade --class DIR` on the Lab 3 pawn scenarios (9, one point each):
/// (exit code, class report, output).
fn grade_class(dir: &Path) -> (i32, Value, String) {
    let (code, body, text) = grade_as(
        "json",
        &["--class", dir.to_str().unwrap(), "scenarios/lab3/pawns"],
    );
    (
        code,
        serde_json::from_str(&body).unwrap_or(Value::Null),
        text,
    )
}

// The pawn scenarios: lab3-correct earns all 9; lab3-mutant-no-double-step
// loses the 3 that take a pawn's double step (tests/fixtures/submissions/
// README.md), as in class.rs's table.
const PAWNS_ALL: u64 = 9;
const PAWNS_NO_DOUBLE_STEP: u64 = 6;

#[test]
fn a_gradescope_export_is_reported_under_the_students_names() {
    let class = tempfile::tempdir().unwrap();
    copy_dir(
        &submission("lab3-correct"),
        &class.path().join("submission_111"),
    );
    copy_dir(
        &submission("lab3-mutant-no-double-step"),
        &class.path().join("submission_222"),
    );
    write(
        &class.path().join("submission_metadata.yml"),
        b"---\nsubmission_111:\n  :submitters:\n  - :name: Ada Lovelace\n    :sid: '1815'\n    :email: ada@example.edu\n  :score: 0.0\nsubmission_222:\n  :submitters:\n  - :name: Grace Hopper\n    :sid: '1906'\n    :email: grace@example.edu\n  - :name: Alan Turing\n    :sid: '1912'\n    :email: alan@example.edu\n",
    );
    let (code, report, text) = grade_class(class.path());
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("names from submission_metadata.yml (a Gradescope export)"),
        "{text}"
    );
    let members = class_members(&report);
    assert_eq!(members[0].0, "Ada Lovelace");
    assert_eq!(members[0].1, PAWNS_ALL);
    assert_eq!(
        members[0].2[0],
        "submitted by Ada Lovelace (1815, ada@example.edu) (submission_111)"
    );
    assert_eq!(members[1].0, "Grace Hopper, Alan Turing");
    assert_eq!(members[1].1, PAWNS_NO_DOUBLE_STEP);
    assert!(
        text.contains("Grace Hopper, Alan Turing"),
        "the table names them: {text}"
    );
}

#[test]
fn an_lms_download_of_zips_and_loose_files_is_graded_whole_and_a_hostile_zip_refused_alone() {
    let class = tempfile::tempdir().unwrap();
    let p = class.path();
    // Canvas: a zip of a folder, loose files, and a zip that reaches out.
    zip_folder(
        &submission("lab3-correct"),
        "Lab3/",
        &[("__MACOSX/Lab3/._ChessBoard.cc", APPLE_DOUBLE)],
        &p.join("lovelaceada_1815_501_lab3.zip"),
    );
    for entry in std::fs::read_dir(submission("lab3-mutant-no-double-step")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        std::fs::copy(&path, p.join(format!("hoppergrace_LATE_1906_502_{name}"))).unwrap();
    }
    zip_folder(
        &submission("lab3-correct"),
        "",
        &[("../../escaped.txt", b"outside")],
        &p.join("mallorymal_666_503_lab3.zip"),
    );
    // Moodle: a folder per student.
    copy_dir(
        &submission("lab3-correct"),
        &p.join("Alan Turing_1912_assignsubmission_file_"),
    );
    write(&p.join("grades.csv"), b"name,score\n");

    let (code, report, text) = grade_class(p);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("names from the LMS's file names"), "{text}");
    let members = class_members(&report);
    let scores: Vec<(&str, u64)> = members.iter().map(|(n, e, _)| (n.as_str(), *e)).collect();
    assert_eq!(
        scores,
        [
            ("Alan Turing", PAWNS_ALL),
            ("hoppergrace", PAWNS_NO_DOUBLE_STEP),
            ("lovelaceada", PAWNS_ALL),
            ("mallorymal", 0),
        ]
    );
    let ada = &members[2].2;
    assert!(
        ada.iter()
            .any(|n| n == "upload: unpacked from lovelaceada_1815_501_lab3.zip"),
        "{ada:#?}"
    );
    assert!(
        ada.iter()
            .any(|n| n == "upload: the program is in Lab3/, graded from there"),
        "{ada:#?}"
    );
    let mallory = &members[3].2;
    assert!(
        mallory.iter().any(|n| n.contains(
            "the archive mallorymal_666_503_lab3.zip was refused: \"../../escaped.txt\" would be \
             written outside the upload"
        )),
        "{mallory:#?}"
    );
    assert!(!p.join("escaped.txt").exists() && !p.parent().unwrap().join("escaped.txt").exists());
}

#[test]
fn github_classroom_clones_are_named_after_their_usernames() {
    let class = tempfile::tempdir().unwrap();
    for (user, fixture) in [
        ("ada", "lab3-correct"),
        ("grace-h", "lab3-mutant-no-double-step"),
    ] {
        let repo = class.path().join(format!("chess-lab-{user}"));
        copy_dir(&submission(fixture), &repo);
        write(&repo.join(".git/HEAD"), b"ref: refs/heads/main\n");
    }
    let (code, report, text) = grade_class(class.path());
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("names from GitHub Classroom's folder names (chess-lab-<username>)"),
        "{text}"
    );
    let scores: Vec<(String, u64)> = class_members(&report)
        .into_iter()
        .map(|(n, e, _)| (n, e))
        .collect();
    assert_eq!(
        scores,
        [
            ("ada".to_string(), PAWNS_ALL),
            ("grace-h".to_string(), PAWNS_NO_DOUBLE_STEP)
        ]
    );
}
