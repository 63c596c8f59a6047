//! The subject `run` takes its answers from: the built-in engine, or the
//! course's own reference program (`run --update --submission REF/`,
//! `--engine CMD`), whose answers then become the snapshots students are
//! graded against.
//!
//! Why it is shaped so:
//!
//! - **A reference is a subject like a student's**, prepared by the same
//!   [`Plan`] (a Lab 3 upload built with the adapter, an engine named),
//!   and run in the same sandbox: a course's program is code too, and may
//!   be last year's student's. Its traces are the trace format the
//!   built-in engine writes, so students are graded against them unchanged.
//! - **Only a subject whose answers are a trace can record one.** A Lab 3
//!   upload (through the adapter) and a protocol engine answer every step
//!   as a trace entry. A console program (JHU, CUHK) answers in a
//!   transcript that no trace can be read back from exactly: CUHK's prints
//!   `invalid input!` whatever the refusal's reason and nothing for
//!   `status` or `score`; JHU's board display is free-form and not judged.
//!   So a console reference is the staff's error for every scenario it was
//!   asked to record (exit 2, naming them), never a half-right snapshot.
//! - **Its failures are the staff's** ([`Prepared::as_reference`]): a
//!   reference that does not build stops the run before anything is
//!   written; one that crashes, times out or answers garbage on a scenario
//!   writes nothing for it, and that scenario is an input error naming the
//!   reference (exit 2) while the others are recorded.
//! - **Each snapshot says who wrote it** ([`RecordedBy`]: the kind, the
//!   folder or command, and the SHA-256 of its files), in insta's `info`
//!   field, so a reviewer sees it in `cargo insta review`.

use super::error::StaffError;
use super::subject::{
    Plan, Prepared, SubjectSpec, UploadKind, UploadOptions, check_lab3, upload_kind,
};
use crate::runner::Found;
use crate::sandbox::EngineCommand;
use crate::snapshot::{RecordedBy, ReferenceKind};
use crate::upload::Upload;
use std::path::Path;

/// The reference of a `run`: the built-in engine when `what` is
/// [`SubjectSpec::Reference`], else the course's program `what` names,
/// built (a Lab 3 upload) or checked (an engine) here, each scenario
/// under the options' limits.
pub fn prepare_reference(
    found: &[Found],
    what: &SubjectSpec,
    options: &UploadOptions,
) -> Result<Prepared, StaffError> {
    let timeout = options.limits.timeout;
    if !matches!(what, SubjectSpec::Reference) && options.memcheck.is_some() {
        return Err(StaffError::Usage(
            "--memcheck checks a student's memory; a reference records its answers (grade it with `grade --memcheck` to check its memory)".into(),
        ));
    }
    match what {
        SubjectSpec::Reference => Ok(Prepared::reference(timeout)),
        SubjectSpec::Engine(command) => {
            let plan = Plan::Engine {
                command: command.clone(),
                limits: options.limits.clone(),
            };
            let recorder = RecordedBy {
                kind: ReferenceKind::Engine,
                name: shown(command),
                sha256: engine_hash(command)?,
            };
            let who = format!("the reference engine `{}`", recorder.name);
            Ok(plan.engine().as_reference(who, Some(recorder), timeout))
        }
        SubjectSpec::Program(_) => Err(console_reference(found)),
        SubjectSpec::Upload(dir) => {
            let kind = match options.force_console {
                true => UploadKind::Console,
                false => upload_kind(found, false)?,
            };
            if kind == UploadKind::Console {
                return Err(console_reference(found));
            }
            check_lab3(found)?;
            let prepared = Plan::classes(options).build(dir)?;
            if let Some(why) = prepared.not_run_message() {
                return Err(StaffError::Reference(format!(
                    "the reference {} cannot record snapshots, so none was written: {why}",
                    dir.display()
                )));
            }
            let recorder = RecordedBy {
                kind: ReferenceKind::Lab3Upload,
                name: dir.display().to_string(),
                sha256: upload_hash(dir)?,
            };
            let who = format!("the reference upload {}", dir.display());
            Ok(prepared.as_reference(who, Some(recorder), timeout))
        }
    }
}

/// The staff error of a console program as a reference: every scenario it
/// was to record, named (up to eight), and why none can be.
fn console_reference(found: &[Found]) -> StaffError {
    const SHOWN: usize = 8;
    let mut lines: Vec<String> = found
        .iter()
        .take(SHOWN)
        .map(|f| {
            format!(
                "{}: no snapshot can be recorded from a console program",
                f.path.display()
            )
        })
        .collect();
    if found.len() > SHOWN {
        lines.push(format!("… and {} more", found.len() - SHOWN));
    }
    lines.push(
        "a console program's transcript cannot be read back into a trace exactly (CUHK's prints `invalid input!` whatever the reason and nothing for `status` or `score`; JHU's board display is free-form); record these snapshots with the built-in engine (`run --update`) or an engine speaking the protocol (`--engine`), and check the course's program against them with `grade --program`".into(),
    );
    StaffError::NotGradable(lines)
}

/// An engine's command as one line (`python3 /abs/engine.py --fast`).
fn shown(command: &EngineCommand) -> String {
    std::iter::once(command.program.as_os_str())
        .chain(command.args.iter().map(|a| a.as_os_str()))
        .map(|w| w.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The hash of an engine's files: its executable (found on `PATH` when
/// named bare), then every argument that names a file (a script), in
/// order, each listed by its path.
fn engine_hash(command: &EngineCommand) -> Result<String, StaffError> {
    let program =
        crate::sandbox::resolve(&command.program).ok_or_else(|| StaffError::NotExecutable {
            what: "engine",
            path: command.program.clone(),
        })?;
    let mut files = vec![program];
    files.extend(
        command
            .args
            .iter()
            .map(Path::new)
            .filter(|p| p.is_file())
            .map(Path::to_path_buf),
    );
    RecordedBy::hash_files(files.iter().map(|p| (p.display().to_string(), p.as_path()))).map_err(
        |e| StaffError::Reference(format!("cannot read the reference engine's files: {e}")),
    )
}

/// The hash of an upload's files as the grader takes them (debris and
/// build products left out), by their paths in the folder that holds the
/// program, sorted.
fn upload_hash(dir: &Path) -> Result<String, StaffError> {
    let cannot = |e: String| {
        StaffError::Reference(format!("cannot read the reference {}: {e}", dir.display()))
    };
    let upload = Upload::read(dir).map_err(|e| cannot(e.to_string()))?;
    let mut files: Vec<(String, std::path::PathBuf)> = upload
        .files()
        .iter()
        .map(|f| (f.display().to_string(), upload.root().join(f)))
        .collect();
    files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    RecordedBy::hash_files(
        files
            .iter()
            .map(|(shown, path)| (shown.clone(), path.as_path())),
    )
    .map_err(|e| cannot(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::ConsoleOptions;
    use crate::subject::Limits;
    use crate::submission::{BuildCache, CppOptions};
    use std::path::PathBuf;
    use std::time::Duration;

    fn options() -> UploadOptions {
        UploadOptions {
            cpp: CppOptions::new("/nonexistent/g++", Duration::from_secs(1)),
            console: ConsoleOptions::new(Default::default(), Limits::default()),
            force_console: false,
            limits: Limits::default(),
            memcheck: None,
            cache: BuildCache::off(),
            case: Default::default(),
            adapter: None,
        }
    }

    #[test]
    fn an_engine_reference_is_named_by_its_command_and_the_hash_of_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("engine.py");
        std::fs::write(&script, "print('HELLO 2')\n").unwrap();
        let command = EngineCommand {
            program: PathBuf::from("sh"),
            args: vec![script.clone().into(), "--fast".into()],
        };
        let prepared =
            prepare_reference(&[], &SubjectSpec::Engine(command.clone()), &options()).unwrap();
        let by = prepared
            .recorder()
            .expect("a reference says who it is")
            .clone();
        assert_eq!(by.kind, ReferenceKind::Engine);
        assert_eq!(by.name, format!("sh {} --fast", script.display()));
        let sh = crate::sandbox::resolve(Path::new("sh")).unwrap();
        let expected = RecordedBy::hash_files([
            (sh.display().to_string(), sh.as_path()),
            (script.display().to_string(), script.as_path()),
        ])
        .unwrap();
        assert_eq!(by.sha256, expected);
        // Another script is another reference.
        std::fs::write(&script, "print('HELLO 1')\n").unwrap();
        assert_ne!(engine_hash(&command).unwrap(), expected);
        // The built-in engine says nothing of itself.
        let builtin = prepare_reference(&[], &SubjectSpec::Reference, &options()).unwrap();
        assert_eq!(builtin.recorder(), None);
    }

    #[test]
    fn an_uploads_hash_is_of_the_files_the_grader_takes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.cc"), "int b;\n").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/a.hh"), "int a;\n").unwrap();
        let hash = upload_hash(dir.path()).unwrap();
        let expected = RecordedBy::hash_files([
            ("b.cc".to_string(), dir.path().join("b.cc").as_path()),
            (
                "sub/a.hh".to_string(),
                dir.path().join("sub/a.hh").as_path(),
            ),
        ])
        .unwrap();
        assert_eq!(hash, expected);
        // Packaging debris is not the upload.
        std::fs::write(dir.path().join(".DS_Store"), "junk").unwrap();
        assert_eq!(upload_hash(dir.path()).unwrap(), expected);
    }

    #[test]
    fn a_console_program_or_a_memory_check_cannot_record_snapshots() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "1\n3 3\nw k 1 1\n~\nisValidScan\n").unwrap();
        let found = [Found::new(path.clone(), PathBuf::from("a.txt"))];
        let program = SubjectSpec::Program(PathBuf::from("/bin/true"));
        let lines = prepare_reference(&found, &program, &options())
            .unwrap_err()
            .messages();
        assert_eq!(
            lines[0],
            format!(
                "{}: no snapshot can be recorded from a console program",
                path.display()
            )
        );
        assert!(lines[1].starts_with("a console program's transcript cannot be read back"));
        let mut checked = options();
        checked.memcheck = Some(crate::memcheck::Memcheck {
            tool: crate::memcheck::Tool::Asan,
            policy: Default::default(),
        });
        let upload = SubjectSpec::Upload(dir.path().to_path_buf());
        let err = prepare_reference(&found, &upload, &checked).unwrap_err();
        assert!(matches!(err, StaffError::Usage(_)), "{err}");
    }
}
