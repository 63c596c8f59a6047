//! Bounded disk (issue 30): no submission, in a scenario or in its build,
//! writes more than `--disk` bytes or `--disk-files` files, each folder it
//! writes in being a tmpfs of that size the grader mounts
//! (`src/sandbox/disk.rs`). Tried as root and as an unprivileged grader
//! (uid 1000 through `setpriv`, when the tests run as root), with the
//! hostile fixtures `tests/fixtures/hostile/engine.py` (`disk-*`
//! behaviours) and `tests/fixtures/hostile/flood.py` (run by console
//! programs and Makefiles), and the issue's own upload (a Lab 3 upload
//! with `ATTACK_FILL_DISK`, the one C++ compile here). What must hold: the
//! write past the bound fails in the program (`No space left on device`), the
//! scenario's class is `disk_limit` in every report format, a build that runs
//! out says so, a class is graded completely, the grader's folders never
//! hold more than their bounds, nothing reaches the real disk, and nothing is
//! left behind.

use crate::helpers::{bin, copy_dir, jail, jailed, root};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The unprivileged grader's uid.
const UID: u32 = 1000;

/// Whether this grader bounds folders; prints why not.
fn disk_bounded() -> bool {
    let iso = chessgrade::sandbox::isolation();
    if iso.disk.is_none() || !iso.files() {
        eprintln!("skipping: this machine cannot bound folders or lacks Landlock ({iso})");
        return false;
    }
    true
}

/// The graders to try: the test's own user, and uid [`UID`] when the tests
/// run as root and that uid can run the built binary.
fn graders() -> Vec<Option<u32>> {
    let mut graders = vec![None];
    if !nix::unistd::geteuid().is_root() {
        return graders;
    }
    let probe = Command::new("setpriv")
        .args([
            &format!("--reuid={UID}"),
            &format!("--regid={UID}"),
            "--clear-groups",
        ])
        .arg(bin())
        .arg("--version")
        .output();
    if probe.is_ok_and(|o| o.status.success()) {
        graders.push(Some(UID));
    } else {
        eprintln!("skipping the unprivileged grader: uid {UID} cannot run the built chessgrade");
    }
    graders
}

/// A folder every uid may use (the unprivileged grader's temporary folder,
/// its cache, the class).
fn open_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    dir
}

/// Opens everything below `dir` to every uid (read, and write for folders).
fn open_up(dir: &Path) {
    for entry in walkdir::WalkDir::new(dir) {
        let entry = entry.unwrap();
        let mode = if entry.file_type().is_dir() {
            0o777
        } else {
            0o666
        };
        std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(mode)).unwrap();
    }
}

/// `chessgrade ARGS` as `uid` (`None`: as the test), in the project's
/// folder, with `tmp` as its temporary folder and `tmp/cache` as its cache.
fn chessgrade_as(uid: Option<u32>, tmp: &Path, args: &[impl AsRef<std::ffi::OsStr>]) -> Command {
    let mut command = match uid {
        None => Command::new(bin()),
        Some(uid) => {
            let mut c = Command::new("setpriv");
            c.arg(format!("--reuid={uid}"))
                .arg(format!("--regid={uid}"))
                .arg("--clear-groups")
                .arg(bin())
                .env("HOME", tmp);
            c
        }
    };
    // `--color never` right after the subcommand: at the end it would go
    // to the engine, after `--`.
    let (subcommand, rest) = args.split_first().expect("a subcommand");
    command
        .arg(subcommand)
        .args(["--color", "never"])
        .args(rest)
        .env("TMPDIR", tmp)
        .env("XDG_CACHE_HOME", tmp.join("..").join("cache"))
        .current_dir(root());
    command
}

/// `grade` on the hostile engine (`tests/fixtures/hostile`) playing
/// `behaviour` on its own scenario, with `flags` (bounds, format, output)
/// before the scenario.
fn hostile_grade(behaviour: &str, flags: &[&str]) -> Vec<String> {
    let hostile = root().join("tests/fixtures/hostile");
    let path = |rel: &str| hostile.join(rel).display().to_string();
    let mut args = vec![
        "grade".to_string(),
        "--root".to_string(),
        path("scenarios"),
        "--snapshots".to_string(),
        path("snapshots"),
    ];
    args.extend(flags.iter().map(|f| f.to_string()));
    args.extend([
        path("scenarios"),
        "--engine".to_string(),
        "--".to_string(),
        "python3".to_string(),
        path("engine.py"),
        behaviour.to_string(),
    ]);
    args
}

/// The folders the grader's temporary folder still holds.
fn left_in(tmp: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect()
}

/// A scratch area: `tmp` (the grader's temporary folder) and `cache`
/// beside it, both open to the unprivileged grader.
struct Area {
    dir: tempfile::TempDir,
}

impl Area {
    fn new() -> Area {
        let dir = open_dir();
        for sub in ["tmp", "cache", "out"] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        open_up(dir.path());
        Area { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
}

/// An engine that floods its folder past `--disk 4 --disk-files 200` (one
/// growing file, files of 1 MiB each under the per-file limit, empty
/// files), graded by each grader: the program sees `No space left on
/// device`, the scenario is `disk_limit` (the JSON report; the terminal's
/// names the bound), and nothing is left in the grader's temporary folder.
#[test]
fn an_engine_that_floods_its_folder_hits_the_disk_limit() {
    if !disk_bounded() {
        return;
    }
    for uid in graders() {
        for (behaviour, reached) in [
            ("disk-one-file", "4 MiB in 1 file"),
            // The fifth file is made, and its first write fails.
            ("disk-many-files", "4 MiB in 5 files"),
            ("disk-inode-flood", "0 MiB in 200 files"),
        ] {
            let area = Area::new();
            let json = area.path("out/report.json");
            let run = chessgrade_as(
                uid,
                &area.path("tmp"),
                &hostile_grade(
                    behaviour,
                    &[
                        "--disk",
                        "4",
                        "--disk-files",
                        "200",
                        "--format",
                        "json",
                        "--output",
                        json.to_str().unwrap(),
                    ],
                ),
            )
            .output()
            .unwrap();
            let human = String::from_utf8_lossy(&run.stdout);
            let who = format!("{behaviour} graded as {uid:?}");
            assert_eq!(run.status.code(), Some(1), "{who}: {human}");
            assert!(
                human.contains("disk 4 MiB, 200 files"),
                "{who}: the isolation line names the bound: {human}"
            );
            assert!(
                human.contains(&format!(
                    "disk limit: its folder reached the disk bound (4 MiB, 200 files): {reached}; then exited early (status 1)"
                )),
                "{who}: {human}"
            );
            assert!(
                human.contains("failed: No space left on device"),
                "{who}: the program's write failed: {human}"
            );
            let report: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
            assert_eq!(
                report["scenarios"][0]["class"], "disk_limit",
                "{who}: {report}"
            );
            assert_eq!(
                left_in(&area.path("tmp")),
                Vec::<PathBuf>::new(),
                "{who}: left behind"
            );
        }
    }
}

/// An engine whose write fails at the bound and that goes on as if
/// nothing happened, answering a call wrongly: the failure is the disk
/// limit's, not a wrong answer (issue 37).
#[test]
fn a_wrong_answer_after_the_folder_filled_is_the_disk_limits() {
    if !disk_bounded() {
        return;
    }
    let area = Area::new();
    let json = area.path("out/report.json");
    let run = chessgrade_as(
        None,
        &area.path("tmp"),
        &hostile_grade(
            "disk-then-wrong-answer",
            &[
                "--disk",
                "2",
                "--format",
                "json",
                "--output",
                json.to_str().unwrap(),
            ],
        ),
    )
    .output()
    .unwrap();
    let human = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{human}");
    assert!(
        human.contains(
            "disk limit: its folder reached the disk bound (2 MiB, 4096 files): 2 MiB in 1 file; then a call did not match the expected answer"
        ),
        "{human}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["scenarios"][0]["class"], "disk_limit", "{report}");
}

/// The disk limit is a class of its own in every report format.
#[test]
fn the_disk_limit_is_named_in_every_report_format() {
    if !disk_bounded() {
        return;
    }
    let area = Area::new();
    for (format, says) in [
        ("json", "\"class\": \"disk_limit\""),
        ("junit", "disk limit: its folder reached the disk bound"),
        (
            "gradescope",
            "disk limit: its folder reached the disk bound",
        ),
        ("github", "disk limit: its folder reached the disk bound"),
        ("html", "disk limit: its folder reached the disk bound"),
    ] {
        let report = area.path(&format!("out/report.{format}"));
        let run = chessgrade_as(
            None,
            &area.path("tmp"),
            &hostile_grade(
                "disk-many-files",
                &[
                    "--disk",
                    "2",
                    "--format",
                    format,
                    "--output",
                    report.to_str().unwrap(),
                ],
            ),
        )
        .output()
        .unwrap();
        assert_eq!(run.status.code(), Some(1), "{format}: {run:?}");
        let text = std::fs::read_to_string(&report).unwrap();
        assert!(text.contains(says), "{format}: {text}");
    }
}

/// A console upload (the CUHK script, built by a Makefile) whose Makefile
/// is `makefile`.
fn console_upload(class: &Path, name: &str, makefile: &str) {
    let upload = class.join(name);
    std::fs::create_dir_all(&upload).unwrap();
    let scripts = root().join("tests/fixtures");
    std::fs::copy(
        scripts.join("console-scripts/cuhk_chess.py"),
        upload.join("chess.py"),
    )
    .unwrap();
    std::fs::copy(scripts.join("hostile/flood.py"), upload.join("flood.py")).unwrap();
    std::fs::write(upload.join("Makefile"), makefile).unwrap();
}

/// A Makefile that installs the script as `chess`, running `flood.py MODE`
/// first when `flood` is given (the program floods its scenario's folder,
/// then exits 1).
fn program_makefile(flood: Option<&str>) -> String {
    let first = match flood {
        Some(mode) => format!("python3 \"$$(dirname \"$$0\")/flood.py\" {mode} || exit 1\\n"),
        None => String::new(),
    };
    format!(
        "chess: chess.py\n\
         \tprintf '#!/bin/sh\\n{first}exec python3 \"$$(dirname \"$$0\")/chess.py\" \"$$@\"\\n' > chess\n\
         \tchmod +x chess\n"
    )
}

/// The tmpfs folders of the grader `pid` (seen through its own mount
/// namespace) of at most `max_size` bytes, and the bytes each holds.
fn grader_folders(pid: u32, max_size: u64) -> Vec<(String, u64)> {
    let Ok(mounts) = std::fs::read_to_string(format!("/proc/{pid}/mountinfo")) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for line in mounts.lines() {
        let Some((before, after)) = line.split_once(" - ") else {
            continue;
        };
        let mut fs = after.split_whitespace();
        if (fs.next(), fs.next()) != (Some("tmpfs"), Some("chessgrade")) {
            continue;
        }
        let Some(point) = before.split_whitespace().nth(4) else {
            continue;
        };
        let inside = format!("/proc/{pid}/root{point}");
        // Unmounted since the mount table was read, the path is the real
        // disk's folder below it (far larger than any bound): not counted.
        if let Ok(stat) = nix::sys::statvfs::statvfs(inside.as_str())
            && stat.blocks() * stat.fragment_size() <= max_size
        {
            let used = (stat.blocks() - stat.blocks_free()) * stat.fragment_size();
            found.push((point.to_string(), used));
        }
    }
    found
}

/// Bytes below `dir` on the real disk (what the test, outside the grader's
/// mount namespace, sees there).
fn bytes_below(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// A class of console uploads beside a correct one, each flooding a folder
/// past `--disk 8 --disk-files 300`: at run time (many files of 1 MiB, one
/// file, empty files) and in its build (a Makefile writing files of 1 MiB),
/// graded with two jobs by each grader. The class report is complete, the
/// correct upload earns its point, the floods are `disk_limit` (the build's
/// a compile error that says it ran out of disk); while it runs, no folder
/// of the grader's ever holds more than its bound and all of them together
/// no more than the bound times the folders alive at once (a build's and a
/// scenario's per job: 4), the real disk gets none of it, and nothing is
/// left behind.
#[test]
fn a_class_of_floods_is_graded_completely_within_the_bounds() {
    if !disk_bounded() {
        return;
    }
    const BOUND: u64 = 8 << 20;
    const JOBS: usize = 2;
    for uid in graders() {
        let area = Area::new();
        let class = area.path("class");
        console_upload(&class, "correct", &program_makefile(None));
        for mode in ["many-files", "one-file", "empty-files"] {
            console_upload(
                &class,
                &format!("run-{mode}"),
                &program_makefile(Some(mode)),
            );
        }
        console_upload(
            &class,
            "build-many-files",
            "chess: chess.py\n\tpython3 flood.py many-files\n\tcp chess.py chess\n",
        );
        open_up(area.dir.path());
        let json = area.path("out/class.json");
        let tmp = area.path("tmp");
        let mut child = chessgrade_as(
            uid,
            &tmp,
            &[
                "grade",
                "--class",
                class.to_str().unwrap(),
                "scenarios/cuhk/console",
                "--disk",
                "8",
                "--disk-files",
                "300",
                "--jobs",
                &JOBS.to_string(),
                "--format",
                "json",
                "--output",
                json.to_str().unwrap(),
            ],
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
        let (mut most_folders, mut most_bytes, mut on_disk) = (0, 0, 0);
        let pid = child.id();
        let reader = std::thread::spawn({
            let mut out = child.stdout.take().unwrap();
            move || {
                let mut text = String::new();
                std::io::Read::read_to_string(&mut out, &mut text).unwrap();
                text
            }
        });
        while child.try_wait().unwrap().is_none() {
            let folders = grader_folders(pid, BOUND);
            for (point, used) in &folders {
                assert!(*used <= BOUND, "{point} holds {used} bytes");
            }
            most_folders = most_folders.max(folders.len());
            most_bytes = most_bytes.max(folders.iter().map(|(_, u)| u).sum::<u64>());
            on_disk = on_disk.max(bytes_below(&tmp));
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let stdout = reader.join().unwrap();
        let status = child.wait().unwrap();
        let who = format!("graded as {uid:?}");
        assert_eq!(status.code(), Some(1), "{who}: {stdout}");
        assert!(stdout.contains("disk 8 MiB, 300 files"), "{who}: {stdout}");
        assert!(
            most_folders <= 2 * JOBS,
            "{who}: {most_folders} folders at once"
        );
        assert!(
            most_bytes <= BOUND * most_folders as u64,
            "{who}: {most_bytes} bytes in {most_folders} folders"
        );
        assert!(
            most_bytes >= BOUND / 2,
            "{who}: the polls saw a flood ({most_bytes} bytes)"
        );
        assert!(
            on_disk < 1 << 20,
            "{who}: {on_disk} bytes reached the real disk"
        );
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let members = report["submissions"].as_array().unwrap();
        let mut graded: Vec<&str> = members
            .iter()
            .map(|m| m["subject"].as_str().unwrap())
            .collect();
        graded.sort_unstable();
        assert_eq!(
            graded,
            [
                "build-many-files",
                "correct",
                "run-empty-files",
                "run-many-files",
                "run-one-file"
            ],
            "{who}"
        );
        for member in members {
            let name = member["subject"].as_str().unwrap();
            let scenario = &member["scenarios"][0];
            let text = scenario.to_string();
            match name {
                "correct" => assert!(scenario["class"].is_null(), "{who}: {text}"),
                "build-many-files" => {
                    assert_eq!(scenario["class"], "compile_error", "{who}: {text}");
                    // The compiler's message is the member's compile_error.
                    let text = member["compile_error"].to_string();
                    assert!(
                        text.contains("disk limit: the build's folder reached the disk bound (8 MiB, 300 files)"),
                        "{who}: {text}"
                    );
                    assert!(text.contains("No space left on device"), "{who}: {text}");
                }
                _ => assert_eq!(scenario["class"], "disk_limit", "{who}: {name}: {text}"),
            }
        }
        let correct = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some("correct"))
            .unwrap_or_else(|| panic!("{who}: {stdout}"));
        assert_eq!(
            correct.split_whitespace().nth(1),
            Some("1/1"),
            "{who}: {stdout}"
        );
        assert_eq!(left_in(&tmp), Vec::<PathBuf>::new(), "{who}: left behind");
    }
}

/// An upload larger than the build's folder is the student's: a compile
/// error that says it does not fit, not a staff error.
#[test]
fn an_upload_larger_than_its_build_folder_does_not_fit() {
    if !disk_bounded() {
        return;
    }
    let area = Area::new();
    let upload = area.path("class/huge");
    copy_dir(
        &root().join("tests/fixtures/submissions/lab3-correct"),
        &upload,
    );
    std::fs::write(upload.join("notes.bin"), vec![0u8; 3 << 20]).unwrap();
    let run = chessgrade_as(
        None,
        &area.path("tmp"),
        &[
            "grade",
            "--disk",
            "2",
            "--submission",
            upload.to_str().unwrap(),
            "scenarios/lab3/pawns/double_step_from_start_rows.txt",
        ],
    )
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{stdout}{run:?}");
    assert!(
        stdout.contains("disk limit: the upload does not fit its build's folder"),
        "{stdout}"
    );
}

/// A grader that cannot mount (root without `CAP_SYS_ADMIN`, as in a
/// container that lacks it) bounds its folders by watching them (issue
/// 37): the isolation line says so, `--require-isolation` grades, and an
/// engine that floods its folder ([`WATCHED_FLOODS`]: among them files
/// unlinked and held open, and files reserved with `posix_fallocate`) is
/// stopped at the bound (plus what it writes between two counts) as
/// `disk_limit`, its disk (a small one of the test's) grown by at most
/// [`WATCHED_GROWTH`] meanwhile ([`flood_disk`]), nothing left behind.
#[test]
fn a_grader_that_cannot_mount_watches_its_folders_instead() {
    if !nix::unistd::geteuid().is_root() || !disk_bounded() {
        eprintln!("skipping: needs a root grader, to take CAP_SYS_ADMIN away");
        return;
    }
    let area = Area::new();
    let run = Command::new("setpriv")
        .arg("--bounding-set=-sys_admin")
        .arg(bin())
        .args([
            "grade",
            "--require-isolation",
            "--submission",
            "tests/fixtures/submissions/lab3-correct",
            "scenarios/lab3/pawns/double_step_from_start_rows.txt",
        ])
        .env("TMPDIR", area.path("tmp"))
        .env("XDG_CACHE_HOME", area.path("cache"))
        .current_dir(root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}{run:?}");
    assert!(
        stdout.contains("no sockets, seccomp, a uid of its own, disk 64 MiB, 4096 files (watched)"),
        "{stdout}"
    );
    assert_eq!(left_in(&area.path("tmp")), Vec::<PathBuf>::new());
    let (disk, tmp) = flood_disk(&area);
    for behaviour in WATCHED_FLOODS {
        let json = area.path("out/report.json");
        let mut command = Command::new("setpriv");
        command
            .arg("--bounding-set=-sys_admin")
            .arg(bin())
            .args(hostile_grade(
                behaviour,
                &[
                    "--disk",
                    "4",
                    "--disk-files",
                    "200",
                    "--format",
                    "json",
                    "--output",
                    json.to_str().unwrap(),
                ],
            ))
            .env("TMPDIR", &tmp)
            .current_dir(root());
        let (run, grew) = run_sampling_growth(command, &tmp);
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let scenario = &report["scenarios"][0];
        assert_eq!(scenario["class"], "disk_limit", "{behaviour}: {report}");
        let message = scenario["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("its folder reached the disk bound (4 MiB, 200 files)"),
            "{behaviour}: {message}"
        );
        assert!(
            grew <= WATCHED_GROWTH,
            "{behaviour}: the disk grew by {grew}"
        );
        assert_eq!(run.status.code(), Some(1), "{behaviour}: {run:?}");
        assert_eq!(left_in(&tmp), Vec::<PathBuf>::new());
    }
    drop(disk);
}

/// Issue 30's upload itself: a correct Lab 3 upload plus a static
/// initialiser that writes files of 15 MB (under the per-file limit) into
/// its working folder for ever, ignoring every failed write
/// (`ATTACK_FILL_DISK` of `tests/fixtures/hostile/chessgrade_attack.cc`, one
/// compile), graded by each grader (the unprivileged one first; the root
/// one then takes the build from the cache). The Lab 3 adapter is a fork
/// server whose folder is its worker's: the flood fills it to both bounds
/// and no further, the scenario is `disk_limit` (then a timeout, where it
/// once wrote ~4 GB), and nothing is left behind.
#[test]
fn issue_30s_upload_fills_its_folder_to_the_bound_and_no_further() {
    if !disk_bounded() {
        return;
    }
    let area = Area::new();
    let upload = area.path("class/filler");
    copy_dir(
        &root().join("tests/fixtures/submissions/lab3-correct"),
        &upload,
    );
    let attack =
        std::fs::read_to_string(root().join("tests/fixtures/hostile/chessgrade_attack.cc"))
            .unwrap();
    std::fs::write(
        upload.join("chessgrade_attack.cc"),
        format!("#define ATTACK_FILL_DISK 1\n{attack}"),
    )
    .unwrap();
    open_up(area.dir.path());
    let mut graders = graders();
    graders.reverse();
    for uid in graders {
        let json = area.path("out/report.json");
        let run = chessgrade_as(
            uid,
            &area.path("tmp"),
            &[
                "grade",
                "--disk",
                "32",
                "--timeout",
                "2",
                "--submission",
                upload.to_str().unwrap(),
                "scenarios/lab3/pawns/double_step_from_start_rows.txt",
                "--format",
                "json",
                "--output",
                json.to_str().unwrap(),
            ],
        )
        .output()
        .unwrap();
        let human = String::from_utf8_lossy(&run.stdout);
        let who = format!("graded as {uid:?}");
        assert_eq!(run.status.code(), Some(1), "{who}: {human}{run:?}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(
            report["scenarios"][0]["class"], "disk_limit",
            "{who}: {report}"
        );
        // Two files of 15 MiB and 2 MiB of a third fill its bytes; it then
        // goes on making (empty) files until their count is reached too,
        // and once its names wrap around (`fill0` again, opened with
        // O_TRUNC) it empties and refills its own files: what the folder
        // holds at the time limit is anywhere up to the bounds, never
        // beyond either.
        let said = "disk limit: its folder reached the disk bound (32 MiB, 4096 files): ";
        let (mib, files): (f64, u64) = human
            .split_once(said)
            .and_then(|(_, rest)| rest.split_once(" files; then timeout"))
            .and_then(|(held, _)| held.split_once(" MiB in "))
            .and_then(|(mib, n)| Some((mib.parse().ok()?, n.parse().ok()?)))
            .unwrap_or_else(|| panic!("{who}: {human}"));
        assert!(mib <= 32.0, "{who}: {mib} MiB: {human}");
        assert!((3..=4096).contains(&files), "{who}: {files} files: {human}");
        assert_eq!(
            left_in(&area.path("tmp")),
            Vec::<PathBuf>::new(),
            "{who}: left behind"
        );
    }
}

/// A tmpfs of `size` the test mounts on `dir` (as root), detached when
/// dropped: a small disk of the grader's own to fill.
struct SmallDisk {
    dir: PathBuf,
}

impl SmallDisk {
    fn mount(dir: &Path, size: &str) -> SmallDisk {
        std::fs::create_dir_all(dir).unwrap();
        let done = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0777"),
                "tmpfs",
            ])
            .arg(dir)
            .status()
            .unwrap();
        assert!(done.success(), "mount a tmpfs on {}", dir.display());
        SmallDisk {
            dir: dir.to_path_buf(),
        }
    }

    /// An ext4 disk of `size` bytes on a loop device, its image `image`
    /// (sparse), mounted on `dir` open to every uid: there, unlike on a
    /// tmpfs (which zeroes every page it reserves), `fallocate` reserves
    /// any size at once. `None` where the test cannot make one (no loop
    /// device, no `mkfs.ext4`).
    fn ext4(dir: &Path, image: &Path, size: u64) -> Option<SmallDisk> {
        std::fs::File::create(image).ok()?.set_len(size).ok()?;
        let made = Command::new("mkfs.ext4")
            .args(["-q", "-F"])
            .arg(image)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        std::fs::create_dir_all(dir).ok()?;
        let mounted = made.is_ok_and(|s| s.success())
            && Command::new("mount")
                .args(["-o", "loop"])
                .arg(image)
                .arg(dir)
                .status()
                .is_ok_and(|s| s.success());
        if !mounted {
            return None;
        }
        let disk = SmallDisk {
            dir: dir.to_path_buf(),
        };
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).ok()?;
        Some(disk)
    }

    fn resize(&self, size: &str) {
        let done = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.dir)
            .status()
            .unwrap();
        assert!(done.success());
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}

/// The floods a watched folder must stop at its bound: files of 1 MiB
/// each, empty files, files of 1 MiB unlinked and held open (the folder
/// looks empty), files reserved with `posix_fallocate`.
const WATCHED_FLOODS: [&str; 4] = [
    "disk-many-files",
    "disk-inode-flood",
    "disk-unlinked",
    "disk-fallocate",
];

/// The most a watched folder's filesystem may grow by under a flood with
/// `--disk 4`: the bound, and what the flood writes before the next count
/// (a count every 10 ms, every millisecond while the folder grows; ~30-45
/// MiB seen on this machine's disk, more on a loaded one). Unbounded, the
/// floods fill their disk ([`FLOOD_DISK`]).
const WATCHED_GROWTH: u64 = 128 << 20;

/// The size of the small disk the watched floods run on: far past
/// [`WATCHED_GROWTH`], and within what the floods write unbounded (an
/// unlinked flood writes 1000 MiB before it gives up; `posix_fallocate`
/// without the seccomp filter's refusal reserved ~1 GiB within a count).
const FLOOD_DISK: u64 = 768 << 20;

/// The small disk of [`FLOOD_DISK`] bytes the watched floods run on, its
/// grader's temporary folder `tmp` in it (open to every uid): ext4 on a
/// loop device where the test can make one, where `fallocate` is as cheap
/// as on a container's disk; else a tmpfs (said on stderr: there a
/// reservation zeroes its pages, slower than the watch counts).
fn flood_disk(area: &Area) -> (SmallDisk, PathBuf) {
    let dir = area.path("small");
    let disk = SmallDisk::ext4(&dir, &area.path("small.img"), FLOOD_DISK).unwrap_or_else(|| {
        eprintln!("no ext4 loop disk here: the watched floods run on a tmpfs");
        SmallDisk::mount(&dir, &FLOOD_DISK.to_string())
    });
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    open_up(&tmp);
    (disk, tmp)
}

/// Runs `command` to its end while sampling, every millisecond, how much
/// more the filesystem of `on` holds than when it started: its output,
/// and the most it grew by. (What a watched sandbox held open unlinked is
/// gone from the filesystem once the sandbox is ended: only a sample
/// during the run sees it.)
fn run_sampling_growth(mut command: Command, on: &Path) -> (std::process::Output, u64) {
    let used = || {
        let stat = nix::sys::statvfs::statvfs(on).unwrap();
        (stat.blocks() - stat.blocks_free()) * stat.fragment_size()
    };
    let before = used();
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let run = std::thread::spawn(move || child.wait_with_output().unwrap());
    let mut most = 0;
    while !run.is_finished() {
        most = most.max(used().saturating_sub(before));
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    (run.join().unwrap(), most)
}

/// The kinds of the entries of a build cache's `builds/` folder.
fn build_entries(cache: &Path) -> Vec<String> {
    std::fs::read_dir(cache.join("chessgrade/builds"))
        .map(|dir| {
            dir.filter_map(Result::ok)
                .filter_map(|e| crate::helpers::cache_entry_kind(&e.path()))
                .collect()
        })
        .unwrap_or_default()
}

/// A grader whose own disk is full, as in a container: its temporary
/// folder on a tmpfs of 1.2 MiB, and no `CAP_SYS_ADMIN`, so that its
/// sandboxes' folders are watched folders of that disk, not tmpfs of their
/// own (root only: mounting the small disk).
struct FullGraderDisk {
    /// Unmounted before the area is removed (fields drop in this order).
    disk: SmallDisk,
    area: Area,
    tmp: PathBuf,
}

impl FullGraderDisk {
    fn new() -> FullGraderDisk {
        let area = Area::new();
        let small = area.path("small");
        let disk = SmallDisk::mount(&small, "1200k");
        let tmp = small.join("tmp");
        std::fs::create_dir(&tmp).unwrap();
        FullGraderDisk { disk, area, tmp }
    }

    /// `chessgrade ARGS` from the project's root, on that disk.
    fn grade(&self, args: &[impl AsRef<std::ffi::OsStr>]) -> std::process::Output {
        Command::new("setpriv")
            .arg("--bounding-set=-sys_admin")
            .arg(bin())
            .args(args)
            .env("TMPDIR", &self.tmp)
            .env("XDG_CACHE_HOME", self.area.path("cache"))
            .current_dir(root())
            .output()
            .unwrap()
    }
}

/// Issue 37: the grader's own disk fills up during a build (its temporary
/// folder on a tmpfs of 1.2 MiB, a Lab 3 build needs about 4; the grader
/// without `CAP_SYS_ADMIN`, as in a container, so that its build folders
/// are not tmpfs of their own but folders of that disk). A class of two
/// correct uploads: the run is the staff's (exit 2, naming the full disk),
/// no member's scenario is a compile error (each is `not_graded`), and no
/// build is cached. With room again, the regrade builds both and each
/// earns its point.
#[test]
fn a_grader_whose_disk_fills_during_a_build_costs_no_student_a_point() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipping: mounting the small disk needs root");
        return;
    }
    let full_disk = FullGraderDisk::new();
    let (area, tmp) = (&full_disk.area, &full_disk.tmp);
    let class = area.path("class");
    for name in ["ada", "bob"] {
        copy_dir(
            &root().join("tests/fixtures/submissions/lab3-correct"),
            &class.join(name),
        );
        // Two builds of their own (the same files would share one).
        std::fs::write(class.join(name).join("NOTES.txt"), name).unwrap();
    }
    let json = area.path("out/class.json");
    let grade = || {
        full_disk.grade(&[
            "grade",
            "--class",
            class.to_str().unwrap(),
            "scenarios/lab3/pawns/double_step_from_start_rows.txt",
            "--jobs",
            "1",
            "--color",
            "never",
            "--format",
            "json",
            "--output",
            json.to_str().unwrap(),
        ])
    };
    let full = grade();
    let stdout = String::from_utf8_lossy(&full.stdout);
    let stderr = String::from_utf8_lossy(&full.stderr);
    assert_eq!(full.status.code(), Some(2), "{stdout}{stderr}");
    let said = format!("{stdout}{stderr}");
    assert!(
        said.contains("the grader ran short, not the upload: the grader's disk is full"),
        "{said}"
    );
    assert!(!said.contains("compile error"), "{said}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for member in report["submissions"].as_array().unwrap() {
        let scenario = &member["scenarios"][0];
        assert_eq!(scenario["class"], "not_graded", "{member}");
    }
    assert_eq!(build_entries(&area.path("cache")), Vec::<String>::new());
    assert_eq!(left_in(tmp), Vec::<PathBuf>::new(), "left behind");

    // Room again: built (nothing was cached), each earns its point.
    full_disk.disk.resize("64m");
    let again = grade();
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert_eq!(again.status.code(), Some(0), "{stdout}{again:?}");
    for name in ["ada", "bob"] {
        let row = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name}: {stdout}"));
        assert_eq!(row.split_whitespace().nth(1), Some("1/1"), "{stdout}");
    }
    assert_eq!(build_entries(&area.path("cache")), ["program", "program"]);
    assert_eq!(left_in(tmp), Vec::<PathBuf>::new(), "left behind");
}

/// Issue 37, item 1, for a scenario's run: a grader that cannot mount
/// (root without `CAP_SYS_ADMIN`: its folders are watched, on its own
/// disk) whose disk is full (a tmpfs of 1.2 MiB) grades an honest engine
/// that saves 2 MiB in its folder, far within `--disk`: its write fails
/// for the grader's lack of room, not its own, so the scenario is run
/// again and then `not_graded`, the run exits 2 naming the full disk, and
/// no score is given. With room again, the same scenario passes.
#[test]
fn a_scenario_that_fails_on_the_graders_full_disk_is_not_graded() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipping: mounting the small disk needs root");
        return;
    }
    let full_disk = FullGraderDisk::new();
    let tmp = &full_disk.tmp;
    let json = full_disk.area.path("out/report.json");
    let grade = || {
        full_disk.grade(&hostile_grade(
            "save-2mib",
            &[
                "--format",
                "json",
                "--output",
                json.to_str().unwrap(),
                "--color",
                "never",
            ],
        ))
    };
    let full = grade();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&full.stdout),
        String::from_utf8_lossy(&full.stderr)
    );
    assert_eq!(full.status.code(), Some(2), "{said}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let scenario = &report["scenarios"][0];
    assert_eq!(scenario["class"], "not_graded", "{report}");
    assert_eq!(scenario["earned"], 0, "{report}");
    let why = scenario.to_string();
    assert!(
        why.contains("while the grader ran short, not the program: the grader's disk is full"),
        "{why}"
    );
    assert_eq!(left_in(tmp), Vec::<PathBuf>::new(), "left behind");

    full_disk.disk.resize("64m");
    let again = grade();
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert_eq!(again.status.code(), Some(0), "{stdout}{again:?}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["scenarios"][0]["status"], "pass", "{report}");
    assert_eq!(left_in(tmp), Vec::<PathBuf>::new(), "left behind");
}

/// Issue 37: inside the jail (Docker's seccomp profile and capabilities: no
/// mount), variants A and B, as root and as a CI runner's user (65534),
/// the grader watches its folders: an engine that floods its folder
/// ([`WATCHED_FLOODS`]: files of 1 MiB, empty files, files unlinked and
/// held open, files reserved with `posix_fallocate`) is `disk_limit` at
/// the bound, as unjailed, its disk (a small one of the test's) grown by
/// at most [`WATCHED_GROWTH`] meanwhile ([`flood_disk`]), and nothing is left in the
/// grader's temporary folder.
#[test]
fn in_a_container_the_disk_stays_bounded() {
    let Some(jail) = jail() else {
        return;
    };
    for variant in ['A', 'B'] {
        for user in [None, Some(65534)] {
            for behaviour in WATCHED_FLOODS {
                let who = format!("{behaviour} in variant {variant} as {user:?}");
                let area = Area::new();
                let (disk, tmp) = flood_disk(&area);
                let json = area.path("out/report.json");
                let command = chessgrade_as(
                    None,
                    &tmp,
                    &hostile_grade(
                        behaviour,
                        &[
                            "--disk",
                            "4",
                            "--disk-files",
                            "200",
                            "--format",
                            "json",
                            "--output",
                            json.to_str().unwrap(),
                        ],
                    ),
                );
                let (run, grew) = run_sampling_growth(jailed(&jail, variant, user, &command), &tmp);
                let human = String::from_utf8_lossy(&run.stdout);
                assert_eq!(run.status.code(), Some(1), "{who}: {human}{run:?}");
                assert!(
                    human.contains("disk 4 MiB, 200 files (watched)"),
                    "{who}: {human}"
                );
                let report: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
                let scenario = &report["scenarios"][0];
                assert_eq!(scenario["class"], "disk_limit", "{who}: {report}");
                let message = scenario["message"].as_str().unwrap_or_default();
                assert!(
                    message.contains("its folder reached the disk bound (4 MiB, 200 files)"),
                    "{who}: {message}"
                );
                assert!(grew <= WATCHED_GROWTH, "{who}: the disk grew by {grew}");
                assert_eq!(left_in(&tmp), Vec::<PathBuf>::new(), "{who}");
                drop(disk);
            }
        }
    }
}
