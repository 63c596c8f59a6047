//! Hostile submissions against the sandbox, end to end through the binary:
//! each case of `tests/fixtures/hostile/README.md` gets its verdict class
//! checked, and afterwards no process of the fixture may be left (found by
//! a unique marker in its argv) and no temporary directory either (the
//! grader runs with its own `TMPDIR`, which must end up empty).

use crate::helpers::{command, copy_dir, output, root, submission};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::atomic::{AtomicU32, Ordering};

fn hostile_dir() -> PathBuf {
    root().join("tests/fixtures/hostile")
}

/// A marker no other process on the machine has in its argv.
fn marker(case: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "chessgrade-hostile-{case}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Pids of running processes whose argv contains `marker`.
fn survivors(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().filter_map(Result::ok) {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let zombie = std::fs::read_to_string(entry.path().join("stat")).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        });
        if !zombie
            && cmdline
                .split(|&b| b == 0)
                .any(|arg| arg == marker.as_bytes())
        {
            found.push(pid);
        }
    }
    found
}

/// Fails (after killing them) if any process carrying `marker` is alive.
fn assert_nothing_survives(marker: &str) {
    // The grader has exited; SIGKILLed processes may still be on their way
    // out for a moment.
    let mut left = survivors(marker);
    for _ in 0..50 {
        if left.is_empty() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        left = survivors(marker);
    }
    for pid in &left {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(*pid as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    panic!("processes of the fixture survived grading: {left:?}");
}

fn assert_empty(tmp: &Path) {
    let left: Vec<_> = std::fs::read_dir(tmp)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "temporary files left behind: {left:?}");
}

struct Graded {
    json: serde_json::Value,
    human: String,
    junit: String,
}

impl Graded {
    fn scenario(&self) -> &serde_json::Value {
        &self.json["scenarios"][0]
    }
    fn class(&self) -> &str {
        self.scenario()["class"].as_str().unwrap_or("pass")
    }
}

/// `chessgrade ARGS` in the project's folder with `tmp` as its `TMPDIR`.
fn chessgrade(args: &[String], tmp: &Path) -> Output {
    output(command(root()).args(args).env("TMPDIR", tmp))
}

/// Grades the tiny scenario with `subject` (`--engine ...` or
/// `--submission ...`) in the human, JSON and JUnit formats at once.
fn grade(subject: &[String], limits: &[&str], tmp: &Path) -> Graded {
    let dir = hostile_dir();
    let json_path = tmp.join("..").join(format!(
        "{}.json",
        tmp.file_name().unwrap().to_string_lossy()
    ));
    let mut args: Vec<String> = vec!["grade".into()];
    for (flag, value) in [
        ("--root", dir.join("scenarios")),
        ("--snapshots", dir.join("snapshots")),
    ] {
        args.push(flag.into());
        args.push(value.display().to_string());
    }
    args.extend(["--color", "never", "--jobs", "1"].map(String::from));
    args.extend(limits.iter().map(|s| s.to_string()));
    args.push(dir.join("scenarios").display().to_string());
    // The engine's command follows `--engine --`: the subject comes last.
    let mut human_args = args.clone();
    human_args.extend(["--format", "json", "--output"].map(String::from));
    human_args.push(json_path.display().to_string());
    human_args.extend(subject.iter().cloned());
    let human_run = chessgrade(&human_args, tmp);
    let human = String::from_utf8(human_run.stdout).expect("UTF-8 terminal output");
    let json_text = std::fs::read_to_string(&json_path)
        .unwrap_or_else(|e| panic!("no JSON report ({e}): {human}"));
    let _ = std::fs::remove_file(&json_path);
    let json = serde_json::from_str(&json_text).expect("valid JSON");
    let mut junit_args = args;
    junit_args.extend(["--format", "junit"].map(String::from));
    junit_args.extend(subject.iter().cloned());
    let junit = String::from_utf8(chessgrade(&junit_args, tmp).stdout).expect("UTF-8 JUnit");
    Graded { json, human, junit }
}

/// Runs a behaviour of `engine.py` and checks that nothing is left.
fn engine_case(behaviour: &str, limits: &[&str]) -> Graded {
    let tmp = tempfile::tempdir().unwrap();
    let mark = marker(behaviour);
    let subject: Vec<String> = vec![
        "--engine".into(),
        "--".into(),
        "python3".into(),
        hostile_dir().join("engine.py").display().to_string(),
        behaviour.into(),
        mark.clone(),
    ];
    let graded = grade(&subject, limits, tmp.path());
    assert_nothing_survives(&mark);
    assert_empty(tmp.path());
    graded
}

const QUICK: &[&str] = &["--timeout", "5"];

#[test]
fn a_straight_engine_passes_so_the_other_verdicts_mean_something() {
    let g = engine_case("ok", QUICK);
    assert_eq!(g.class(), "pass", "{}", g.human);
}

#[test]
fn a_setsid_child_does_not_survive_the_scenario() {
    let g = engine_case("setsid-child", QUICK);
    assert_eq!(g.class(), "pass", "{}", g.human);
}

#[test]
fn a_double_forked_daemon_does_not_survive_the_scenario() {
    let g = engine_case("double-fork", QUICK);
    assert_eq!(g.class(), "pass", "{}", g.human);
}

#[test]
fn a_parent_that_exits_while_its_child_holds_stdout_ends_the_scenario() {
    // A timeout long enough that waiting for it would show as `timeout`.
    let g = engine_case("parent-exits-child-holds-stdout", &["--timeout", "60"]);
    assert_eq!(g.class(), "exited_early", "{}", g.human);
    assert!(g.human.contains("exited early (status 3)"), "{}", g.human);
}

#[test]
fn closing_stdout_but_staying_alive_is_its_own_class_not_a_crash() {
    let g = engine_case("closed-stdout-alive", QUICK);
    assert_eq!(g.class(), "closed_output", "{}", g.human);
    assert!(
        g.human.contains("closed its output but kept running"),
        "{}",
        g.human
    );
    assert!(!g.human.contains("SIGKILL"), "{}", g.human);
}

#[test]
fn a_fork_bomb_is_bounded_and_ended_whole() {
    let g = engine_case("fork-bomb", &["--timeout", "2"]);
    assert_eq!(g.class(), "timeout", "{}", g.human);
}

#[test]
fn an_infinite_loop_is_a_timeout() {
    let g = engine_case("infinite-loop", &["--timeout", "3", "--cpu", "1"]);
    assert_eq!(g.class(), "timeout", "{}", g.human);
}

#[test]
fn a_memory_hog_hits_the_memory_limit() {
    let g = engine_case("memory-hog", &["--timeout", "10", "--memory-mb", "200"]);
    // Python's MemoryError under RLIMIT_AS: a traceback and exit status 1.
    assert_eq!(g.class(), "exited_early", "{}", g.human);
    assert!(g.human.contains("MemoryError"), "{}", g.human);
}

#[test]
fn megabytes_on_stdout_are_cut_at_the_line_limit() {
    let g = engine_case("megabytes-stdout", QUICK);
    assert_eq!(g.class(), "malformed_answer", "{}", g.human);
    assert!(
        g.human.contains("an answer line longer than"),
        "{}",
        g.human
    );
}

#[test]
fn megabytes_on_stderr_are_drained_and_capped() {
    let g = engine_case("megabytes-stderr", QUICK);
    assert_eq!(g.class(), "pass", "{}", g.human);
    assert!(g.json.to_string().len() < 1 << 20, "the report stays small");
}

#[test]
fn escape_sequences_and_control_characters_are_shown_safely() {
    let g = engine_case("escapes", QUICK);
    assert_eq!(g.class(), "malformed_answer", "{}", g.human);
    // Terminal: not one control character but newlines.
    let controls: Vec<char> = g
        .human
        .chars()
        .filter(|c| c.is_control() && *c != '\n')
        .collect();
    assert!(
        controls.is_empty(),
        "raw controls {controls:?} in\n{}",
        g.human
    );
    // ... yet the reader sees what was sent, from the answer and the stderr.
    assert!(
        g.human
            .contains(r"answered `\x1b[2J\x1b[1;31mOWNED\x07\x00\x1b[0m`"),
        "{}",
        g.human
    );
    assert!(
        g.human
            .contains(r"\x1b]0;pwned\x07\x1b[2J\x1b[Hstderr says \x00hi\x08"),
        "{}",
        g.human
    );
    // JUnit: well-formed XML 1.0 with the same visible escapes.
    let allowed = |c: char| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
    assert!(g.junit.chars().all(allowed), "{:?}", g.junit);
    let mut reader = quick_xml::Reader::from_str(&g.junit);
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("JUnit is not well-formed: {e}\n{}", g.junit),
        }
    }
    assert!(g.junit.contains(r"OWNED\x07\x00"), "{}", g.junit);
    // JSON: valid (parsed above), the raw answer kept exactly in `message`.
    let message = g.scenario()["message"].as_str().unwrap();
    assert!(
        message.contains("\x1b[2J\x1b[1;31mOWNED\x07\0"),
        "{message:?}"
    );
}

/// A copy of the correct Lab 3 upload in a fresh folder, for a test to
/// spoil.
fn lab3_copy(work: &Path, name: &str) -> PathBuf {
    let sub = work.join(name);
    copy_dir(&submission("lab3-correct"), &sub);
    sub
}

/// A Lab 3 submission whose header includes a FIFO: the build reads a
/// private copy of the upload, which holds regular files only, so the
/// compiler never blocks on it: the header is missing, a compile error at
/// once.
#[test]
fn a_fifo_header_never_reaches_the_compiler() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let sub = lab3_copy(work.path(), "fifo");
    let header = sub.join("ChessBoard.hh");
    let text = std::fs::read_to_string(&header).unwrap();
    std::fs::write(&header, format!("#include \"Hang.hh\"\n{text}")).unwrap();
    nix::unistd::mkfifo(&sub.join("Hang.hh"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    let subject = vec!["--submission".to_string(), sub.display().to_string()];
    let g = grade(&subject, &["--compile-timeout", "60"], tmp.path());
    assert_eq!(g.class(), "compile_error", "{}", g.human);
    assert!(
        g.human.contains("Hang.hh: No such file or directory"),
        "{}",
        g.human
    );
    assert_empty(tmp.path());
}

/// A Lab 3 submission whose compile never ends (a constant expression
/// that loops for billions of steps): at `--compile-timeout` the whole
/// build (driver and cc1plus) is killed. The loops are nested, each under
/// GCC's limit of 262,144 iterations a loop (one loop of 2^40 steps is
/// refused at that limit in well under a second, a compile error that only
/// lost the race while the upload's other units were compiled beside it,
/// not once they come from the unit cache).
#[test]
fn a_compiler_that_never_finishes_is_stopped_at_the_compile_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let sub = lab3_copy(work.path(), "slow");
    // A unique file name: it appears in the compiler's argv.
    let name = format!("{}.cc", marker("slow"));
    std::fs::write(
        sub.join(&name),
        "constexpr long spin() { long s = 0; for (long i = 0; i < 200000; i++) for (long j = 0; j < 200000; j++) s += i ^ j; return s; }\n\
         static_assert(spin() != 1, \"never decided\");\n",
    )
    .unwrap();
    let subject = vec!["--submission".to_string(), sub.display().to_string()];
    let g = grade(&subject, &["--compile-timeout", "1"], tmp.path());
    assert_eq!(g.class(), "compile_error", "{}", g.human);
    assert!(g.human.contains("compilation timed out"), "{}", g.human);
    assert_nothing_survives_in_argv(&name);
    assert_empty(tmp.path());
}

/// Like [`assert_nothing_survives`], for a marker that is part of an
/// argument (a path) rather than a whole one.
fn assert_nothing_survives_in_argv(needle: &str) {
    let alive = || -> Vec<u32> {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(Result::ok)
            .filter_map(|e| {
                let pid = e.file_name().to_str()?.parse::<u32>().ok()?;
                let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
                (pid != std::process::id() && String::from_utf8_lossy(&cmdline).contains(needle))
                    .then_some(pid)
            })
            .collect()
    };
    let mut left = alive();
    for _ in 0..50 {
        if left.is_empty() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        left = alive();
    }
    panic!("build processes survived the compile timeout: {left:?}");
}

#[test]
fn the_compile_timeout_must_be_a_positive_number() {
    let tmp = tempfile::tempdir().unwrap();
    for bad in ["0", "-1", "nan", "inf", "100000"] {
        let out = chessgrade(
            &[
                "grade".into(),
                format!("--compile-timeout={bad}"),
                "--submission".into(),
                "tests/fixtures/submissions/lab3-correct".into(),
            ],
            tmp.path(),
        );
        assert_eq!(out.status.code(), Some(2), "--compile-timeout {bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--compile-timeout"),
            "{bad}"
        );
    }
}
