//! Staff-side errors: everything that stops a run before (or instead of)
//! grading, because of what the staff asked for rather than what a student
//! uploaded. Each is one exit-2 message saying what to do; none is ever
//! counted in a student's report. A student's problems (a compile error, an
//! upload of the wrong kind) are results, not errors, and never come here.

use crate::console::SetupError;
use std::fmt;
use std::path::PathBuf;

/// Why a run could not grade (exit 2).
#[derive(Debug)]
pub enum StaffError {
    /// A flag (or flag combination) the command cannot honour, said whole.
    Usage(String),
    /// Neither an upload, an engine nor a program was named.
    NoSubject,
    /// `--engine` or `--program` names nothing runnable.
    NotExecutable { what: &'static str, path: PathBuf },
    /// The upload folder named does not exist (a staff typo, not a
    /// student's empty upload).
    MissingUpload(PathBuf),
    /// The build tool could not even start (the compiler is missing, a
    /// temporary folder cannot be made).
    Build(String),
    /// The console grader could not be set up for these scenarios.
    Console(SetupError),
    /// A course's hook file (`--adapter`) cannot be used: it cannot be
    /// read, does not compile against the course's headers beside it, or
    /// lacks a required hook (the file and the hook named).
    Hooks(String),
    /// `--require-isolation` on a machine that cannot confine fully.
    Isolation(String),
    /// The selection is empty: what was searched and how to accept it,
    /// with the walk's notes (what it skipped may be why).
    NoScenario { message: String, notes: Vec<String> },
    /// The one scenario a command was given cannot be used: it does not
    /// parse (the located message), is not a scenario file, or its
    /// snapshot cannot be read.
    Scenario(String),
    /// A `--rules` file that cannot be read or used (its located message).
    Rules(String),
    /// Scenarios the chosen kind of subject cannot run, one line each and a
    /// last line saying what it means.
    NotGradable(Vec<String>),
    /// Grading without the expected answers of the selection.
    NoSnapshots(String),
    /// The course's reference program cannot record snapshots (it did not
    /// build, or its files cannot be read).
    Reference(String),
    /// The scenarios belong to several courses whose programs differ.
    MixedCourses(String),
    /// A class folder that cannot be read or holds no submission.
    Class(String),
    /// A report or output that cannot be written.
    Output {
        target: String,
        error: std::io::Error,
    },
}

impl StaffError {
    /// What led up to the error, printed before it as `note: <line>`.
    pub fn notes(&self) -> &[String] {
        match self {
            StaffError::NoScenario { notes, .. } => notes,
            _ => &[],
        }
    }

    /// The message, one per problem (printed as `error: <first line>`, any
    /// further lines, a located error's source excerpt, under it).
    pub fn messages(&self) -> Vec<String> {
        match self {
            StaffError::Console(e) => e.messages(),
            StaffError::NotGradable(lines) => lines.clone(),
            // One located error: its source excerpt stands under it.
            StaffError::Rules(m) => vec![m.clone()],
            other => other.to_string().lines().map(str::to_string).collect(),
        }
    }
}

impl fmt::Display for StaffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StaffError::Usage(m)
            | StaffError::Isolation(m)
            | StaffError::NoScenario { message: m, .. }
            | StaffError::MixedCourses(m)
            | StaffError::NoSnapshots(m)
            | StaffError::Reference(m)
            | StaffError::Class(m)
            | StaffError::Hooks(m)
            | StaffError::Rules(m)
            | StaffError::Scenario(m) => f.write_str(m),
            StaffError::NoSubject => {
                f.write_str("give --submission DIR, --engine CMD or --program PATH")
            }
            StaffError::NotExecutable { what, path } => write!(
                f,
                "the {what} `{}` does not exist or is not executable",
                path.display()
            ),
            StaffError::MissingUpload(dir) => write!(
                f,
                "not a recognised submission: {} does not exist (a folder of one upload is expected)",
                dir.display()
            ),
            StaffError::Build(m) => write!(f, "cannot build the submission: {m}"),
            StaffError::Console(e) => write!(f, "{e}"),
            StaffError::NotGradable(lines) => f.write_str(&lines.join("\n")),
            StaffError::Output { target, error } => {
                write!(f, "cannot write the report to {target}: {error}")
            }
        }
    }
}

impl std::error::Error for StaffError {}

impl From<SetupError> for StaffError {
    fn from(e: SetupError) -> Self {
        StaffError::Console(e)
    }
}
