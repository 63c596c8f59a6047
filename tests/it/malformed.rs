//! Malformed and hostile inputs on the reference side, end to end through
//! the binary: every case finishes (each run under a 20 s watchdog that
//! kills it and fails the test), exits 2 with a message naming the file
//! (and line and column where there is one), keeps its messages short, and
//! leaves nothing behind. One test per case of docs/scenarios.md.

use crate::helpers::{command, project};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const WATCHDOG: Duration = Duration::from_secs(20);

/// Runs the binary in `dir` with `stdout` as given, killing it (and failing)
/// if it outlives the watchdog.
fn run_with(dir: &Path, args: &[&str], stdout: Stdio) -> Output {
    let mut child = command(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > WATCHDOG {
            child.kill().unwrap();
            panic!("chessgrade {args:?} still running after {WATCHDOG:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn run(dir: &Path, args: &[&str]) -> Output {
    run_with(dir, args, Stdio::piped())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const GOOD: &[u8] = b"1\n4 4\nw k 3 0\nb k 0 3\n~\nisValidScan\nmovePiece 3 0 2 0\n";

fn mkfifo(path: &Path) {
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
}

#[test]
fn a_fifo_is_refused_without_blocking_and_noted_in_a_walk() {
    let dir = project(&[("a/ok.txt", GOOD)]);
    mkfifo(&dir.path().join("scenarios/a/pipe.txt"));
    let out = run(dir.path(), &["trace", "scenarios/a/pipe.txt"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("scenarios/a/pipe.txt: cannot read scenario: it is a FIFO (named pipe), not a regular file"),
        "{err}"
    );
    let out = run(dir.path(), &["run", "--accept"]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("skipped scenarios/a/pipe.txt: a FIFO (named pipe), not a regular file"),
        "{stdout}"
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}");
}

#[test]
fn a_link_to_dev_zero_is_refused_by_its_kind() {
    let dir = project(&[]);
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("scenarios/zero.txt")).unwrap();
    let out = run(dir.path(), &["trace", "scenarios/zero.txt"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("it is a character device, not a regular file"),
        "{err}"
    );
    let out = run(dir.path(), &["run", "scenarios/zero.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).contains("character device"));
}

#[test]
fn an_oversized_file_is_refused_by_its_size_before_it_is_read() {
    let dir = project(&[]);
    let path = dir.path().join("scenarios/huge.txt");
    // Sparse: 2 GiB of NULs that take no disk.
    std::fs::File::create(&path)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let out = run(dir.path(), &["trace", "scenarios/huge.txt"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("scenarios/huge.txt: cannot read scenario: the file is larger than the 16 MiB limit (2 GiB; raise it with --max-input-mb)"),
        "{err}"
    );
    assert!(err.len() < 1000, "{} bytes of error", err.len());
    // The cap is a flag.
    std::fs::write(&path, vec![b'\n'; 2 << 20]).unwrap();
    let out = run(
        dir.path(),
        &["trace", "--max-input-mb", "1", "scenarios/huge.txt"],
    );
    assert!(text(&out.stderr).contains("larger than the 1 MiB limit"));
}

#[test]
fn a_utf8_bom_is_accepted() {
    let mut body = b"\xef\xbb\xbf".to_vec();
    body.extend_from_slice(GOOD);
    let dir = project(&[("bom.txt", &body), ("plain.txt", GOOD)]);
    let with = run(dir.path(), &["trace", "scenarios/bom.txt"]);
    let without = run(dir.path(), &["trace", "scenarios/plain.txt"]);
    assert_eq!(with.status.code(), Some(0), "{}", text(&with.stderr));
    assert_eq!(with.stdout, without.stdout);
}

#[test]
fn cr_only_line_endings_are_named() {
    let body = String::from_utf8(GOOD.to_vec())
        .unwrap()
        .replace('\n', "\r");
    let dir = project(&[("mac.txt", body.as_bytes())]);
    let out = run(dir.path(), &["trace", "scenarios/mac.txt"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("scenarios/mac.txt:1:2: the file has CR-only line endings"),
        "{err}"
    );
}

#[test]
fn conflicting_rules_name_both_lines() {
    let dir = project(&[(
        "two.txt",
        b"@rules lab3\n@visibility hidden\n@rules standard\n1\n8 8\n~\n",
    )]);
    let out = run(dir.path(), &["trace", "scenarios/two.txt"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("scenarios/two.txt:3:8: conflicting `@rules` directives: line 1 says `lab3`, line 3 says `standard`"),
        "{err}"
    );
}

#[test]
fn fen_errors_put_the_caret_on_the_bad_field() {
    let dir = project(&[(
        "fen.txt",
        b"@rules standard\n1\nfen 8//8/8/8/8/8/8/8 w - - 0 1\n~\n",
    )]);
    let out = run(dir.path(), &["trace", "scenarios/fen.txt"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("scenarios/fen.txt:3:7: bad FEN piece placement: row 2 is empty"),
        "{err}"
    );
    assert!(err.ends_with("  |       ^\n"), "{err}");
}

#[test]
fn deep_perft_stops_at_the_timeout_and_the_batch_goes_on() {
    let dir = project(&[
        ("a/deep.txt", b"@rules standard\n1\nfen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n~\nperft 2\ndivide 8\n"),
        ("b/ok.txt", GOOD),
    ]);
    let out = run(dir.path(), &["run", "--accept", "--timeout", "1"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("scenarios/a/deep.txt:6:1: the reference engine did not finish this scenario within --timeout 1s"),
        "{stdout}"
    );
    assert!(stdout.contains("NEW   1/1   b/ok.txt"), "{stdout}");
    let out = run(
        dir.path(),
        &["trace", "--timeout", "1", "scenarios/a/deep.txt"],
    );
    assert_eq!(out.status.code(), Some(2));
    // The steps before the deadline are printed; the error says where it stopped.
    assert_eq!(text(&out.stdout), "DIMS 8 8\nL5 perft 2 = 400\n");
    assert!(text(&out.stderr).contains("deep.txt:6:1"));
}

#[test]
fn a_two_megabyte_file_of_tokens_is_parsed_in_linear_time() {
    // One line of a million tokens: the quadratic tokenizer took 49 s.
    let body = format!(
        "1\n4 4\n~\nmovePiece 1 1 1 1{}\n\n{}",
        " 1".repeat(1 << 20),
        "x ".repeat(1000)
    );
    let dir = project(&[("many.txt", body.as_bytes())]);
    let out = run(dir.path(), &["trace", "scenarios/many.txt"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("scenarios/many.txt:6:1: unknown step `x`"),
        "{err}"
    );
    // A placement line of a million tokens: its error is short too.
    let body = format!("1\n4 4\nw k 1 1{}\n~\n", " 1".repeat(1 << 20));
    std::fs::write(dir.path().join("scenarios/many.txt"), body).unwrap();
    let out = run(dir.path(), &["trace", "scenarios/many.txt"]);
    let err = text(&out.stderr);
    assert!(
        err.contains("many.txt:3:9: expected `<b|w> <piece> <row> <col>`: unexpected extra text"),
        "{err}"
    );
    assert!(err.len() < 1000, "{} bytes of error", err.len());
}

#[test]
fn a_megabyte_bad_token_is_shown_cut() {
    let body = format!("1\n4 4\nw {} 1 1\n~\n", "q".repeat(1 << 20));
    let dir = project(&[("long.txt", body.as_bytes())]);
    let out = run(dir.path(), &["trace", "scenarios/long.txt"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("scenarios/long.txt:3:3: unknown piece `qqqq"),
        "{err}"
    );
    assert!(err.contains("(1048576 characters)"), "{err}");
    assert!(err.len() < 1000, "{} bytes of error", err.len());
}

#[test]
fn a_huge_trace_is_refused_before_it_runs() {
    let moves = "movePiece 0 0 0 1\nmovePiece 0 1 0 0\n".repeat(10_000);
    let body = format!("1\n256 256\nw r 0 0\n~\n{moves}");
    let dir = project(&[("big.txt", body.as_bytes())]);
    let out = run(dir.path(), &["trace", "scenarios/big.txt"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("scenarios/big.txt:1024:1: the trace would pass the 64 MiB limit"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    let out = run(dir.path(), &["run", "--accept"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).contains("--max-trace-mb"));
    assert_eq!(
        std::fs::read_dir(dir.path().join("snapshots")).map_or(0, |d| d.count()),
        0
    );
}

#[test]
fn dangling_links_and_loops_in_a_walk_are_noted() {
    let dir = project(&[("a/ok.txt", GOOD)]);
    let s = dir.path().join("scenarios");
    std::os::unix::fs::symlink(s.join("gone.txt"), s.join("a/dangling.txt")).unwrap();
    std::os::unix::fs::symlink(s.join("a/self.txt"), s.join("a/self.txt")).unwrap();
    std::os::unix::fs::symlink(&s, s.join("a/up")).unwrap();
    let out = run(dir.path(), &["run", "--accept"]);
    let stdout = text(&out.stdout);
    for line in [
        "skipped scenarios/a/dangling.txt: a dangling symbolic link",
        "skipped scenarios/a/self.txt: a symbolic link that loops",
        "skipped scenarios/a/up: a symbolic link to a folder (links are not followed)",
    ] {
        assert!(stdout.contains(line), "{line} not in {stdout}");
    }
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn an_empty_selection_is_exit_2_unless_allowed() {
    let dir = project(&[("notes.md", b"no scenarios here")]);
    let out = run(dir.path(), &["run"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("no scenario selected: scenarios has no *.txt scenario file"),
        "{err}"
    );
    let out = run(dir.path(), &["run", "--allow-empty"]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn output_that_cannot_be_written_is_exit_2_naming_the_target() {
    let dir = project(&[("a/ok.txt", GOOD)]);
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = run_with(dir.path(), &["run", "--accept"], Stdio::from(full));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot write to stdout: No space left on device"));

    let out = run(
        dir.path(),
        &["run", "--format", "json", "--output", "/dev/full"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("cannot write the report to /dev/full: No space left on device")
    );
    // Never replaced by a file, even by root.
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata("/dev/full")
            .unwrap()
            .file_type()
            .is_char_device()
    );

    // A folder nobody may create files in (root included).
    let out = run(
        dir.path(),
        &["run", "--format", "json", "--output", "/proc/report.json"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot write the report to /proc/report.json: "));

    // A link is written through, and stays a link.
    std::fs::write(dir.path().join("target.json"), "old").unwrap();
    std::os::unix::fs::symlink("target.json", dir.path().join("link.json")).unwrap();
    let out = run(
        dir.path(),
        &["run", "--format", "json", "--output", "link.json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        std::fs::symlink_metadata(dir.path().join("link.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(dir.path().join("target.json"))
            .unwrap()
            .contains("chessgrade_report")
    );
    // A dangling link is refused.
    std::os::unix::fs::symlink("gone.json", dir.path().join("dangling.json")).unwrap();
    let out = run(
        dir.path(),
        &["run", "--format", "json", "--output", "dangling.json"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .contains("cannot write the report to dangling.json: it is a dangling symbolic link")
    );
    assert!(!dir.path().join("gone.json").exists());
}

#[test]
fn a_stale_temporary_snapshot_is_removed_by_the_next_run() {
    let dir = project(&[("a/ok.txt", GOOD), ("b/ok.txt", GOOD)]);
    let out = run(dir.path(), &["run", "--accept"]);
    assert_eq!(out.status.code(), Some(0));
    // What a run killed mid-write leaves: its pid is no longer alive.
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = dir.path().join(format!(
        "snapshots/.scenario@a__ok.txt.snap.chessgrade-tmp-{dead}-XyZ123"
    ));
    std::fs::write(&stale, "half a snap").unwrap();
    let out = run(dir.path(), &["run"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!stale.exists());
    assert!(text(&out.stdout).contains("a temporary snapshot file left by an interrupted run"));
    assert_eq!(
        std::fs::read_dir(dir.path().join("snapshots"))
            .unwrap()
            .count(),
        2
    );
}

#[test]
fn latin1_names_get_their_own_snapshots() {
    let dir = project(&[("a/x.txt", GOOD)]);
    let folder = dir.path().join("scenarios/a");
    let e_acute = folder.join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt"));
    let e_grave = folder.join(std::ffi::OsStr::from_bytes(b"caf\xe8.txt"));
    std::fs::write(&e_acute, GOOD).unwrap();
    std::fs::write(&e_grave, b"1\n3 3\n~\nisValidScan\n").unwrap();
    let out = run(dir.path(), &["run", "--accept"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let snaps: Vec<PathBuf> = std::fs::read_dir(dir.path().join("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(snaps.len(), 3, "{snaps:?}");
    let out = run(dir.path(), &["run"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

#[test]
fn bad_numbers_on_the_command_line_are_usage_errors() {
    let dir = project(&[("a/ok.txt", GOOD)]);
    for (args, says) in [
        (&["run", "--timeout", "1e300"][..], "--timeout"),
        (&["run", "--timeout", "0"][..], "--timeout"),
        (&["run", "--jobs", "0"][..], "--jobs"),
        (&["trace", "--timeout", "NaN", "x.txt"][..], "--timeout"),
        (
            &["grade", "--memory-mb", "0", "--engine", "/bin/true"][..],
            "--memory-mb",
        ),
        (
            &["grade", "--cpu", "0", "--engine", "/bin/true"][..],
            "--cpu",
        ),
    ] {
        let out = run(dir.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains(says) && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}
