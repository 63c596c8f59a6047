//! Who is in a class folder, and by what name: the class exports courses
//! download, read as they come, so that a report says whose score is whose
//! with no glue script of the TA's.
//!
//! - **A folder per submission** (the default): named after the folder.
//! - **A Gradescope export** ("Export submissions": `submission_<id>/`
//!   folders beside `submission_metadata.yml`): named after the students
//!   the metadata lists for each id (a group submission lists all its
//!   members), with their ids and emails in a note.
//! - **GitHub Classroom clones** (`<assignment>-<username>/`, each a git
//!   repository): named after the username.
//! - **An LMS download**: Canvas's one file per student and file
//!   (`smithjohn_12345_678_chess.zip`, `smithjohn_LATE_12345_678_main.cpp`;
//!   a student's loose files are gathered into one upload under their
//!   original names) and Moodle's `Full Name_12345_assignsubmission_file_`
//!   folders or files: named after the student, with the LMS's id.
//! - **Zip files**: each one a member (unpacked when graded, by the upload
//!   reader, which refuses a hostile one for that student alone).
//!
//! The rule used is reported once ([`Naming::describe`]).

use super::Member;
use crate::grading::StaffError;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One student behind a submission, as the export names them.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Student {
    pub name: String,
    /// The id the export gives (a student id, the LMS's user id).
    pub id: Option<String>,
    pub email: Option<String>,
}

impl Student {
    /// `Jane Doe (12345, jane@example.edu)`.
    pub fn describe(&self) -> String {
        let extra: Vec<&str> = self
            .id
            .iter()
            .chain(&self.email)
            .map(String::as_str)
            .collect();
        match extra.is_empty() {
            true => self.name.clone(),
            false => format!("{} ({})", self.name, extra.join(", ")),
        }
    }
}

/// Where the members' names come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Naming {
    /// The folders' (and zip files') names.
    Folders,
    /// `submission_metadata.yml` of a Gradescope export.
    Gradescope,
    /// GitHub Classroom's `<assignment>-<username>` folders.
    Classroom { assignment: String },
    /// Canvas's or Moodle's file and folder names.
    Lms,
}

impl Naming {
    /// The rule, as the class run reports it (`None`: folder names, as
    /// always).
    pub fn describe(&self) -> Option<String> {
        match self {
            Naming::Folders => None,
            Naming::Gradescope => {
                Some("names from submission_metadata.yml (a Gradescope export)".into())
            }
            Naming::Classroom { assignment } => Some(format!(
                "names from GitHub Classroom's folder names ({assignment}-<username>)"
            )),
            Naming::Lms => Some(
                "names from the LMS's file names (Canvas: <name>_<id>_<submission>_<file>; \
                 Moodle: <Full Name>_<id>_assignsubmission_...)"
                    .into(),
            ),
        }
    }
}

/// A class folder's members and the rule that named them.
#[derive(Clone, Debug)]
pub struct Roster {
    pub members: Vec<Member>,
    pub naming: Naming,
    /// Where an LMS's loose files were gathered, one folder per student:
    /// kept while the roster is.
    _gathered: Option<Arc<tempfile::TempDir>>,
}

fn class_error(dir: &Path, what: impl std::fmt::Display) -> StaffError {
    StaffError::Class(format!("{}: {what}", dir.display()))
}

/// Reads the class folder `dir` (see the module doc).
pub fn read(dir: &Path) -> Result<Roster, StaffError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| class_error(dir, format!("cannot read the class folder: {e}")))?;
    let mut folders = Vec::new();
    let mut files = Vec::new();
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || crate::upload::is_debris_dir(&name) {
            continue;
        }
        let path = e.path();
        if path.is_dir() {
            folders.push((name, path));
        } else if path.is_file() {
            files.push((name, path));
        }
    }
    folders.sort();
    files.sort();
    let metadata = dir.join("submission_metadata.yml");
    let (mut members, naming, gathered) = if metadata.is_file() {
        let text = std::fs::read_to_string(&metadata)
            .map_err(|e| class_error(&metadata, format!("cannot be read: {e}")))?;
        let by_id = gradescope_metadata(&text);
        let members = folders
            .into_iter()
            .map(|(name, path)| {
                let students = by_id.get(&name).cloned().unwrap_or_default();
                member(name, path, students)
            })
            .collect();
        (members, Naming::Gradescope, None)
    } else if let Some(assignment) = classroom_assignment(&folders) {
        let members = folders
            .into_iter()
            .map(|(name, path)| {
                let user = name[assignment.len() + 1..].to_string();
                let student = Student {
                    name: user.clone(),
                    ..Student::default()
                };
                Member {
                    name: user,
                    dir: path,
                    students: vec![student],
                }
            })
            .collect();
        (members, Naming::Classroom { assignment }, None)
    } else {
        lms_or_folders(dir, folders, files)?
    };
    // Two students of one name stay apart: the folder says which.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for m in &members {
        *seen.entry(m.name.clone()).or_default() += 1;
    }
    for m in &mut members {
        if seen[&m.name] > 1 {
            let file = m.dir.file_name().unwrap_or_default().to_string_lossy();
            m.name = format!("{} ({file})", m.name);
        }
    }
    members.sort_by(|a, b| a.name.cmp(&b.name));
    if members.is_empty() {
        return Err(class_error(
            dir,
            "no submission folders in the class folder",
        ));
    }
    Ok(Roster {
        members,
        naming,
        _gathered: gathered,
    })
}

/// A member named after its students (joined), else after `name`.
fn member(name: String, dir: PathBuf, students: Vec<Student>) -> Member {
    let names: Vec<&str> = students.iter().map(|s| s.name.as_str()).collect();
    Member {
        name: match names.is_empty() {
            true => name,
            false => names.join(", "),
        },
        dir,
        students,
    }
}

/// The assignment's name when every folder is a git repository named
/// `<assignment>-<username>` (two or more of them).
fn classroom_assignment(folders: &[(String, PathBuf)]) -> Option<String> {
    if folders.len() < 2 || !folders.iter().all(|(_, p)| p.join(".git").exists()) {
        return None;
    }
    let first = &folders[0].0;
    let mut common = first.len();
    for (name, _) in &folders[1..] {
        common = common.min(
            first
                .bytes()
                .zip(name.bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    let prefix = &first[..common];
    let cut = prefix.rfind('-')?;
    let assignment = &prefix[..cut];
    let every_user = folders.iter().all(|(n, _)| n.len() > cut + 1);
    (!assignment.is_empty() && every_user).then(|| assignment.to_string())
}

/// What an LMS's name says: the student, their id, and the file's own
/// name (Canvas and Moodle files).
#[derive(Debug, PartialEq, Eq)]
struct LmsName {
    student: String,
    id: String,
    original: Option<String>,
}

/// Canvas: `lastfirst[_LATE]_<userid>_<submissionid>_<original>`.
fn canvas_name(name: &str) -> Option<LmsName> {
    let parts: Vec<&str> = name.splitn(5, '_').collect();
    let (student, rest) = match parts.as_slice() {
        [s, "LATE", rest @ ..] => (*s, rest),
        [s, rest @ ..] => (*s, rest),
        [] => return None,
    };
    let [uid, sub, original @ ..] = rest else {
        return None;
    };
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let original = original.join("_");
    (numeric(uid)
        && numeric(sub)
        && !original.is_empty()
        && student.chars().all(|c| c.is_alphanumeric() || c == '-'))
    .then(|| LmsName {
        student: student.to_string(),
        id: uid.to_string(),
        original: Some(original),
    })
}

/// Moodle: `<Full Name>_<id>_assignsubmission_<plugin>_[<original>]`.
fn moodle_name(name: &str) -> Option<LmsName> {
    let (who, rest) = name.split_once("_assignsubmission_")?;
    let (student, id) = who.rsplit_once('_')?;
    let original = rest
        .split_once('_')
        .map(|(_, o)| o)
        .filter(|o| !o.is_empty());
    (!student.is_empty() && !id.is_empty()).then(|| LmsName {
        student: student.to_string(),
        id: id.to_string(),
        original: original.map(str::to_string),
    })
}

type Members = (Vec<Member>, Naming, Option<Arc<tempfile::TempDir>>);

/// Folders and zip files as members; an LMS's names read where they
/// follow its pattern, and a student's loose files gathered into one
/// folder.
fn lms_or_folders(
    dir: &Path,
    folders: Vec<(String, PathBuf)>,
    files: Vec<(String, PathBuf)>,
) -> Result<Members, StaffError> {
    let mut lms = false;
    let mut members = Vec::new();
    for (name, path) in folders {
        match moodle_name(&name) {
            Some(n) => {
                lms = true;
                members.push(named(n, path));
            }
            None => members.push(member(name, path, Vec::new())),
        }
    }
    // Loose files of one student (Canvas gives one file per file).
    let mut loose: BTreeMap<(String, String), Vec<(String, PathBuf)>> = BTreeMap::new();
    for (name, path) in files {
        let parsed = canvas_name(&name).or_else(|| moodle_name(&name));
        let zip = crate::upload::is_archive(&path);
        match parsed {
            Some(n) => {
                lms = true;
                let original = n.original.clone().unwrap_or(name.clone());
                loose
                    .entry((n.student, n.id))
                    .or_default()
                    .push((original, path));
            }
            None if zip => {
                let stem = Path::new(&name)
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                members.push(member(stem, path, Vec::new()));
            }
            // A TA's own file beside the uploads (a grade sheet).
            None => {}
        }
    }
    let mut gathered = None;
    for ((student, id), files) in loose {
        let n = LmsName {
            student,
            id,
            original: None,
        };
        // One zip: the student's upload, unpacked when graded.
        if let [(_, path)] = files.as_slice()
            && crate::upload::is_archive(path)
        {
            members.push(named(n, path.clone()));
            continue;
        }
        if gathered.is_none() {
            gathered = Some(Arc::new(
                tempfile::Builder::new()
                    .prefix("chessgrade-class-")
                    .tempdir()
                    .map_err(|e| class_error(dir, format!("cannot gather the loose files: {e}")))?,
            ));
        }
        let root = gathered.as_ref().expect("made above").path();
        let folder = root.join(format!("{}_{}", n.student, n.id));
        for (original, path) in &files {
            // The LMS's own name for a file is one path segment.
            let safe = original.replace(['/', '\\'], "_");
            let target = folder.join(safe.trim_start_matches('.'));
            std::fs::create_dir_all(&folder)
                .and_then(|_| std::fs::copy(path, &target).map(drop))
                .map_err(|e| class_error(path, format!("cannot be gathered: {e}")))?;
        }
        members.push(named(n, folder));
    }
    let naming = if lms { Naming::Lms } else { Naming::Folders };
    Ok((members, naming, gathered))
}

fn named(n: LmsName, dir: PathBuf) -> Member {
    Member {
        name: n.student.clone(),
        dir,
        students: vec![Student {
            name: n.student,
            id: Some(n.id),
            email: None,
        }],
    }
}

/// The students of each submission id in Gradescope's
/// `submission_metadata.yml` (`submission_<id>:` then `:submitters:`, a
/// list of `:name:`, `:sid:`, `:email:`): read line by line, as that file
/// is written; anything else in it is skipped.
fn gradescope_metadata(text: &str) -> BTreeMap<String, Vec<Student>> {
    let mut out: BTreeMap<String, Vec<Student>> = BTreeMap::new();
    let mut current: Option<String> = None;
    // The indent of the `:submitters:` key being read, if any.
    let mut submitters: Option<usize> = None;
    for line in text.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') || line == "---" {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let body = line.trim_start();
        if indent == 0 {
            submitters = None;
            current = body
                .strip_suffix(':')
                .map(|k| unquote(k.trim_start_matches(':')));
            continue;
        }
        let Some(key) = current.clone() else { continue };
        if body == ":submitters:" {
            submitters = Some(indent);
            continue;
        }
        let Some(at) = submitters else { continue };
        let item = body.strip_prefix("- ");
        if indent < at || (indent == at && item.is_none()) {
            submitters = None;
            continue;
        }
        let students = out.entry(key).or_default();
        let field = match item {
            Some(rest) => {
                students.push(Student::default());
                rest
            }
            None => body,
        };
        let Some(student) = students.last_mut() else {
            continue;
        };
        if let Some((name, value)) = field.split_once(": ") {
            let value = unquote(value.trim());
            match name.trim() {
                ":name" => student.name = value,
                ":sid" => student.id = Some(value).filter(|v| !v.is_empty()),
                ":email" => student.email = Some(value).filter(|v| !v.is_empty()),
                _ => {}
            }
        }
    }
    for students in out.values_mut() {
        students.retain(|s| !s.name.is_empty() || s.id.is_some());
        for s in students.iter_mut().filter(|s| s.name.is_empty()) {
            s.name = s.id.clone().unwrap_or_default();
        }
    }
    out
}

/// A YAML scalar without its quotes (`'12345'`, `"Jane"`; `''` in single
/// quotes is one `'`).
fn unquote(v: &str) -> String {
    if let Some(inner) = v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    if let Some(inner) = v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        return inner.replace("\\\"", "\"");
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const METADATA: &str = "\
---
submission_123456:
  :submitters:
  - :name: Jane Doe
    :sid: '12345'
    :email: jane@example.edu
  :created_at: 2026-11-01 12:00:00.000000000 -08:00
  :score: 10.0
submission_123457:
  :submitters:
  - :name: O'Brien, Pat
    :sid: ''
    :email: pat@example.edu
  - :name: \"Li Wei\"
    :sid: '777'
    :email: li@example.edu
  :history:
  - :name: not a student
";

    #[test]
    fn a_gradescope_export_is_named_after_its_students_groups_included() {
        let by_id = gradescope_metadata(METADATA);
        assert_eq!(
            by_id["submission_123456"],
            [Student {
                name: "Jane Doe".into(),
                id: Some("12345".into()),
                email: Some("jane@example.edu".into())
            }]
        );
        let group: Vec<String> = by_id["submission_123457"]
            .iter()
            .map(Student::describe)
            .collect();
        assert_eq!(
            group,
            [
                "O'Brien, Pat (pat@example.edu)",
                "Li Wei (777, li@example.edu)"
            ]
        );

        let class = tempfile::tempdir().unwrap();
        std::fs::write(class.path().join("submission_metadata.yml"), METADATA).unwrap();
        for id in ["submission_123456", "submission_123457", "submission_999"] {
            std::fs::create_dir(class.path().join(id)).unwrap();
        }
        let roster = read(class.path()).unwrap();
        assert_eq!(roster.naming, Naming::Gradescope);
        let names: Vec<&str> = roster.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            ["Jane Doe", "O'Brien, Pat, Li Wei", "submission_999"]
        );
        assert_eq!(roster.members[1].students.len(), 2);
    }

    #[test]
    fn github_classroom_clones_are_named_after_the_username() {
        let class = tempfile::tempdir().unwrap();
        for user in ["ada-l", "grace"] {
            std::fs::create_dir_all(class.path().join(format!("chess-lab-{user}/.git"))).unwrap();
        }
        let roster = read(class.path()).unwrap();
        assert_eq!(
            roster.naming,
            Naming::Classroom {
                assignment: "chess-lab".into()
            }
        );
        let names: Vec<&str> = roster.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["ada-l", "grace"]);
        // Without .git, the same folders are just folders.
        std::fs::remove_dir(class.path().join("chess-lab-grace/.git")).unwrap();
        assert_eq!(read(class.path()).unwrap().naming, Naming::Folders);
    }

    #[test]
    fn lms_downloads_are_named_after_the_student_and_loose_files_gathered() {
        assert_eq!(
            canvas_name("smithjohn_LATE_12345_678_chess.zip"),
            Some(LmsName {
                student: "smithjohn".into(),
                id: "12345".into(),
                original: Some("chess.zip".into())
            })
        );
        assert_eq!(canvas_name("my_chess_game.zip"), None);
        assert_eq!(
            moodle_name("John Smith_4242_assignsubmission_file_"),
            Some(LmsName {
                student: "John Smith".into(),
                id: "4242".into(),
                original: None
            })
        );
        let class = tempfile::tempdir().unwrap();
        let p = class.path();
        std::fs::write(p.join("smithjohn_12345_678_main.cpp"), "int main() {}").unwrap();
        std::fs::write(p.join("smithjohn_12345_678_board_v2.h"), "#pragma once").unwrap();
        std::fs::write(p.join("doejane_222_679_chess.zip"), b"PK\x05\x06").unwrap();
        std::fs::write(p.join("grades.csv"), "name,score").unwrap();
        std::fs::create_dir(p.join("John Smith_4242_assignsubmission_file_")).unwrap();
        let roster = read(p).unwrap();
        assert_eq!(roster.naming, Naming::Lms);
        let names: Vec<(&str, Option<&str>)> = roster
            .members
            .iter()
            .map(|m| (m.name.as_str(), m.students[0].id.as_deref()))
            .collect();
        assert_eq!(
            names,
            [
                ("John Smith", Some("4242")),
                ("doejane", Some("222")),
                ("smithjohn", Some("12345"))
            ]
        );
        let gathered = &roster.members[2].dir;
        assert!(gathered.join("main.cpp").is_file() && gathered.join("board_v2.h").is_file());
        assert!(roster.members[1].dir.ends_with("doejane_222_679_chess.zip"));
    }

    #[test]
    fn students_of_one_name_stay_apart() {
        let class = tempfile::tempdir().unwrap();
        std::fs::write(
            class.path().join("submission_metadata.yml"),
            "submission_1:\n  :submitters:\n  - :name: Sam Lee\nsubmission_2:\n  :submitters:\n  - :name: Sam Lee\n",
        )
        .unwrap();
        for id in ["submission_1", "submission_2"] {
            std::fs::create_dir(class.path().join(id)).unwrap();
        }
        let names: Vec<String> = read(class.path())
            .unwrap()
            .members
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert_eq!(names, ["Sam Lee (submission_1)", "Sam Lee (submission_2)"]);
    }
}
