//! What reading an upload costs (issue 29, item 8): the reader's decision
//! and the copy made from it ([`Upload::read`] + [`Upload::copy_into`]),
//! against the plain copy of the whole folder that builds made before the
//! reader existed (every regular file, walked with `walkdir`: the peer,
//! measured in the same run), for a class of uploads.
//!
//! The class: `UPLOAD_BENCH_MEMBERS` uploads (default 35) dealt in turn
//! from the Lab 3 and console fixtures, each packaged as students' machines
//! leave them (inside one top folder, with `__MACOSX/`, `.DS_Store`, a
//! `.vscode/` and a committed `main.o`), so the reader has decisions to
//! make. Each round reads and copies every member once; the figure is the
//! median round, and the ratio of the two medians.
//!
//! `cargo bench --bench upload`.

use chessgrade::upload::{CaseRule, Upload};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const FIXTURES: [&str; 6] = [
    "submissions/lab3-correct",
    "submissions/lab3-mutant-no-double-step",
    "submissions/lab3-static-state",
    "console/cuhk-correct",
    "console/jhu-correct",
    "console/jhu-mutant-no-save",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// The class, packaged (see the module doc).
fn class(members: usize, at: &Path) -> Vec<PathBuf> {
    let mut elf = vec![0u8; 64];
    elf[..4].copy_from_slice(b"\x7fELF");
    elf[4] = 2;
    elf[5] = 1;
    elf[16] = 1;
    (0..members)
        .map(|i| {
            let member = at.join(format!("student{i:02}"));
            let top = member.join("project");
            let fixture = root()
                .join("tests/fixtures")
                .join(FIXTURES[i % FIXTURES.len()]);
            for entry in std::fs::read_dir(&fixture).unwrap() {
                let path = entry.unwrap().path();
                write(
                    &top.join(path.file_name().unwrap()),
                    &std::fs::read(&path).unwrap(),
                );
            }
            write(&top.join(".DS_Store"), b"\0\0\0\x01Bud1");
            write(&top.join(".vscode/settings.json"), b"{}");
            write(&top.join("main.o"), &elf);
            write(&member.join("__MACOSX/project/._main.cc"), &[0, 5, 22, 7]);
            member
        })
        .collect()
}

/// The copy builds made before the reader: every regular file and folder.
fn plain_copy(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).follow_links(false) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let members: usize = std::env::var("UPLOAD_BENCH_MEMBERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(35);
    let rounds = 15;
    let work = tempfile::tempdir().unwrap();
    let uploads = class(members, &work.path().join("class"));
    let out = work.path().join("out");
    let round = |copy: &dyn Fn(&Path, &Path)| -> Duration {
        let _ = std::fs::remove_dir_all(&out);
        let started = Instant::now();
        for (i, upload) in uploads.iter().enumerate() {
            copy(upload, &out.join(i.to_string()));
        }
        started.elapsed()
    };
    let reader = |from: &Path, to: &Path| {
        let upload = Upload::read(from).expect("the upload reads");
        assert!(!upload.notes(CaseRule::AsUploaded).is_empty());
        upload.copy_into(to, CaseRule::AsUploaded).unwrap();
    };
    let (mut read, mut plain) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        // Alternated, so both see the same state of the machine.
        read.push(round(&reader));
        plain.push(round(&plain_copy));
    }
    let (read, plain) = (median(read), median(plain));
    println!("upload reading, {members} uploads, median of {rounds} rounds");
    println!(
        "  the reader (read + copy_into): {:>8.2} ms ({:.3} ms per upload)",
        read.as_secs_f64() * 1e3,
        read.as_secs_f64() * 1e3 / members as f64
    );
    println!(
        "  plain copy of the folder:      {:>8.2} ms ({:.3} ms per upload)",
        plain.as_secs_f64() * 1e3,
        plain.as_secs_f64() * 1e3 / members as f64
    );
    println!(
        "  ratio reader / plain copy: {:.2}x",
        read.as_secs_f64() / plain.as_secs_f64()
    );
}
