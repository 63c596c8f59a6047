//! Confinement, tried as a hostile student would: an upload that is
//! correct except for one extra file whose static initialiser runs before
//! `main` and attacks the grader (`tests/fixtures/hostile/chessgrade_attack.cc`,
//! one attack per upload: read the hidden answers, write outside its
//! folder, reach the network, kill the grader, poison the adapter cache,
//! read and rewrite classmates' files). Each is graded in a class beside
//! a correct upload, as a Lab 3 upload and as a console program (the CUHK
//! fixture), and alone with `--submission`. What must hold: the grader
//! survives, the class report is complete, each hostile upload earns
//! exactly what its correct part earns (an attack that gets anywhere makes
//! it abort), no file outside its scratch folder changed, no connection or
//! datagram arrived, the cache still checks out.
//!
//! The class folder, the canary and the cache are made world-writable
//! first, so that it is the confinement (Landlock) that stops each attack,
//! not only the uid a root grader drops to. Where the kernel lacks a
//! mechanism the tests say so and stop (docs/grading.md, "Guarantees").

use crate::helpers::{bin, cache_entry_kind, copy_dir, jail, jailed, root};
use sha2::Digest;
use std::collections::BTreeMap;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Whether this kernel confines submissions fully; prints why not.
fn confinement_available() -> bool {
    let iso = chessgrade::sandbox::isolation();
    if !iso.complete() {
        eprintln!(
            "skipping: this kernel cannot confine submissions fully ({iso}): {}",
            iso.missing().join("; ")
        );
        return false;
    }
    true
}

/// The attacks, as the macro that turns each on.
const ATTACKS: &[&str] = &[
    "READ_ANSWERS",
    "WRITE_OUTSIDE",
    "NETWORK",
    "KILL_GRADER",
    "POISON_CACHE",
    "CLASSMATES",
];

/// What the attacks aim at, and what the test watches.
struct Arena {
    dir: tempfile::TempDir,
    tcp: TcpListener,
    udp: UdpSocket,
}

impl Arena {
    fn new() -> Arena {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["class", "outside", "cache/chessgrade"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        std::fs::write(dir.path().join("outside/canary.txt"), "canary\n").unwrap();
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        tcp.set_nonblocking(true).unwrap();
        let port = tcp.local_addr().unwrap().port();
        let udp = UdpSocket::bind(("127.0.0.1", port)).unwrap();
        udp.set_nonblocking(true).unwrap();
        Arena { dir, tcp, udp }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn class(&self) -> PathBuf {
        self.path("class")
    }

    fn cache(&self) -> PathBuf {
        self.path("cache/chessgrade")
    }

    /// The `#define`s in front of the attack for `attack`.
    fn defines(&self, attack: &str) -> String {
        let quoted = |p: &Path| format!("{:?}", p.to_str().unwrap());
        let snapshot =
            root().join("snapshots/scenario@lab3__pawns__double_step_from_start_rows.txt.snap");
        assert!(snapshot.is_file());
        let target = match attack {
            "READ_ANSWERS" => Some(quoted(&snapshot)),
            "WRITE_OUTSIDE" => Some(quoted(&self.path("outside/canary.txt"))),
            "POISON_CACHE" => Some(quoted(&self.cache())),
            "CLASSMATES" => Some(quoted(&self.class())),
            _ => None,
        };
        let mut text = format!("#define ATTACK_{attack} 1\n");
        if let Some(t) = target {
            text += &format!("#define CG_TARGET {t}\n");
        }
        text += &format!(
            "#define CG_PORT {}\n",
            self.tcp.local_addr().unwrap().port()
        );
        text += &format!("#define CG_TOKEN {:?}\n", self.token());
        text
    }

    /// What names this arena's leftovers in the shared temporary folders.
    fn token(&self) -> String {
        self.dir
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }

    /// The files an attack would leave in the shared temporary folders.
    fn leftovers(&self) -> Vec<PathBuf> {
        ["/tmp", "/var/tmp"]
            .iter()
            .map(|d| Path::new(d).join(format!("chessgrade-pwned-{}", self.token())))
            .filter(|p| p.exists())
            .collect()
    }

    /// A class: `correct` (a copy of the fixture) and one hostile copy of
    /// it per attack of `attacks`, named after the attack.
    fn fill_class(&self, fixture: &str, attacks: &[&str]) -> Vec<String> {
        let attack_source =
            std::fs::read_to_string(root().join("tests/fixtures/hostile/chessgrade_attack.cc"))
                .unwrap();
        let mut names = vec!["correct".to_string()];
        copy_dir(
            &root().join("tests/fixtures").join(fixture),
            &self.class().join("correct"),
        );
        for attack in attacks {
            let name = attack.to_lowercase().replace('_', "-");
            let to = self.class().join(&name);
            copy_dir(&root().join("tests/fixtures").join(fixture), &to);
            std::fs::write(
                to.join("chessgrade_attack.cc"),
                self.defines(attack) + &attack_source,
            )
            .unwrap();
            names.push(name);
        }
        names
    }

    /// Opens everything up to the world, so that only the confinement can
    /// stop an attack.
    fn open_up(&self) {
        for entry in walkdir::WalkDir::new(self.dir.path()) {
            let entry = entry.unwrap();
            let mode = if entry.file_type().is_dir() {
                0o777
            } else {
                0o666
            };
            std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(mode)).unwrap();
        }
    }

    /// Every file of the arena with its content hash.
    fn files(&self) -> BTreeMap<PathBuf, String> {
        walkdir::WalkDir::new(self.dir.path())
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let bytes = std::fs::read(e.path()).unwrap();
                (e.path().to_path_buf(), hex(&sha2::Sha256::digest(&bytes)))
            })
            .collect()
    }

    /// Asserts that nothing reached the test's listeners.
    fn assert_no_connection(&self) {
        assert!(
            self.tcp.accept().is_err(),
            "a submission connected over TCP"
        );
        let mut buf = [0u8; 64];
        assert!(
            self.udp.recv_from(&mut buf).is_err(),
            "a submission sent a UDP datagram"
        );
    }

    /// Runs chessgrade with the arena's cache.
    fn chessgrade(&self, args: &[&str]) -> Output {
        self.chessgrade_as(&Grader::Test, args)
    }

    /// Runs chessgrade with the arena's cache, as `who` says.
    fn chessgrade_as(&self, who: &Grader, args: &[&str]) -> Output {
        let mut command = match who {
            Grader::Uid(uid) => {
                let mut c = Command::new("setpriv");
                c.arg(format!("--reuid={uid}"))
                    .arg(format!("--regid={uid}"))
                    .arg("--clear-groups")
                    .arg(bin())
                    .env("HOME", self.dir.path());
                c
            }
            _ => Command::new(bin()),
        };
        command
            .args(args)
            .args(["--color", "never"])
            .env("XDG_CACHE_HOME", self.path("cache"))
            .env("HOME", self.dir.path())
            .current_dir(root());
        match who {
            Grader::Jail(jail, variant, user) => {
                command = jailed(jail, *variant, *user, &command);
            }
            Grader::JailWithoutBroker(jail, variant, user) => {
                command.env(chessgrade::sandbox::LEAVE_OFF, "broker");
                command = jailed(jail, *variant, *user, &command);
            }
            _ => {}
        }
        command.output().expect("the binary runs")
    }
}

/// Who grades: the test's own user, another uid (through `setpriv`), or
/// the jail (its variant, as root or as a uid), with the broker or with
/// it left off (as on a kernel without seccomp user notification).
enum Grader {
    Test,
    Uid(u32),
    Jail(PathBuf, char, Option<u32>),
    JailWithoutBroker(PathBuf, char, Option<u32>),
}

impl Grader {
    /// What its isolation line must say.
    fn isolation(&self) -> &'static str {
        match self {
            Grader::Test => "isolation: landlock abi",
            Grader::Uid(_) => ", no network, seccomp, the grader's uid",
            Grader::Jail(_, 'A', None) => ", no sockets, seccomp, a uid of its own, disk",
            Grader::Jail(_, 'A', Some(_)) => ", no sockets, seccomp, the grader's uid, disk",
            Grader::Jail(_, _, None) => {
                "isolation: files brokered (no landlock), no sockets, seccomp, a uid of its own"
            }
            Grader::Jail(_, _, Some(_)) => {
                "isolation: files brokered (no landlock), no sockets, signals brokered, seccomp, the grader's uid"
            }
            Grader::JailWithoutBroker(_, _, None) => {
                "isolation: no landlock (files readable), no sockets, seccomp, a uid of its own"
            }
            Grader::JailWithoutBroker(_, _, Some(_)) => {
                "isolation: no landlock (files readable), no sockets, seccomp, the grader's uid"
            }
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every file of the cache (its folders included) is a whole entry whose
/// payload hashes to what its header records; at least `objects` of the
/// adapter's objects and `builds` builds are there. A file an attack
/// added, or one it truncated or rewrote, fails this.
fn assert_cache_intact(cache: &Path, objects_at_least: usize, builds: usize) {
    let (mut objects, mut built) = (0, 0);
    for e in walkdir::WalkDir::new(cache)
        .into_iter()
        .filter_map(Result::ok)
    {
        if !e.file_type().is_file() {
            continue;
        }
        match cache_entry_kind(e.path()).as_deref() {
            Some("object") => objects += 1,
            Some("manifest") => {}
            Some("program" | "compile-error") => built += 1,
            _ => panic!("{} is not a valid cache entry", e.path().display()),
        }
    }
    assert!(objects >= objects_at_least, "the cache holds the adapter");
    assert!(
        built >= builds,
        "the cache holds {built} builds, not {builds}"
    );
}

/// Grades a class of `fixture` and its hostile copies on `scenarios`:
/// every member earns `full` points and nothing outside changed.
fn hostile_class(fixture: &str, scenarios: &[&str], full: &str) {
    hostile_class_as(Grader::Test, ATTACKS, fixture, scenarios, full, &[]);
}

/// [`hostile_class`] with the grader run as `who` says, only `attacks`,
/// and `flags` added to every grading run.
fn hostile_class_as(
    who: Grader,
    attacks: &[&str],
    fixture: &str,
    scenarios: &[&str],
    full: &str,
    flags: &[&str],
) {
    if !confinement_available() {
        return;
    }
    let uid = match who {
        Grader::Test => None,
        _ => Some(()),
    };
    let arena = Arena::new();
    let names = arena.fill_class(fixture, attacks);
    // The cache holds the adapter before the class runs (so there is
    // something to poison), then everything is opened up.
    let mut warm_args = vec![
        "grade",
        "--submission",
        "tests/fixtures/submissions/lab3-correct",
        "scenarios/lab3/pawns/double_step_from_start_rows.txt",
    ];
    warm_args.extend(flags);
    let warm = arena.chessgrade(&warm_args);
    assert_eq!(warm.status.code(), Some(0), "{warm:?}");
    arena.open_up();
    let before = arena.files();
    let out = arena.path("out");
    let class = arena.class();
    let mut args = vec!["grade", "--class", class.to_str().unwrap()];
    args.extend(scenarios);
    args.extend([
        "--format",
        "json",
        "--output",
        out.to_str().unwrap(),
        "--jobs",
        "2",
    ]);
    args.extend(flags);
    let run = arena.chessgrade_as(&who, &args);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains(who.isolation()), "{stdout}");
    // The class report is complete: every member, every scenario passed.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let members = report["submissions"].as_array().unwrap();
    let graded: Vec<&str> = members
        .iter()
        .map(|m| m["subject"].as_str().unwrap())
        .collect();
    let mut expected: Vec<&str> = names.iter().map(String::as_str).collect();
    expected.sort_unstable();
    assert_eq!(graded, expected);
    for name in &names {
        let row = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name.as_str()))
            .unwrap_or_else(|| panic!("{name} in the table:\n{stdout}"));
        assert_eq!(
            row.split_whitespace().nth(1),
            Some(full),
            "{name} earns what its correct part earns:\n{stdout}{stderr}"
        );
    }
    // Nothing outside the submissions' scratch folders changed, but for
    // the builds the grader added to the cache: what was there is as it
    // was, and every file there is a whole, valid entry.
    let cache = arena.cache();
    let mut after = arena.files();
    after.remove(&out);
    after.retain(|p, _| !p.starts_with(&cache) || before.contains_key(p));
    assert_eq!(before, after, "files outside the sandboxes changed");
    arena.assert_no_connection();
    assert_eq!(arena.leftovers(), Vec::<PathBuf>::new());
    assert_cache_intact(&cache, 1, names.len());
    // The regrade is the root grader's, unchecked: an unprivileged or a
    // checked grader's copies from the cache are the same code path.
    if uid.is_some() || !flags.is_empty() {
        return;
    }

    // The regrade: every member's build comes from the cache (its program
    // attacks again, now beside its own cached build) and earns the same;
    // the cache is exactly as the first run left it.
    let cached = arena.files();
    let again = arena.chessgrade_as(&who, &args);
    let again_out = String::from_utf8_lossy(&again.stdout);
    assert_eq!(again.status.code(), Some(0), "{again_out}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    for member in report["submissions"].as_array().unwrap() {
        let notes = member["notes"].to_string();
        assert!(
            notes.contains("from the build cache"),
            "{}: {notes}",
            member["subject"]
        );
    }
    for name in &names {
        let row = again_out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name.as_str()))
            .unwrap();
        assert_eq!(row.split_whitespace().nth(1), Some(full), "{again_out}");
    }
    let mut now = arena.files();
    now.remove(&out);
    let mut cached = cached;
    cached.remove(&out);
    assert_eq!(cached, now, "the regrade changed files");
    assert_cache_intact(&cache, 1, names.len());
}

#[test]
fn hostile_lab3_uploads_in_a_class_earn_what_their_correct_part_earns() {
    hostile_class("submissions/lab3-correct", &["scenarios/lab3/pawns"], "9/9");
}

#[test]
fn hostile_console_programs_in_a_class_earn_what_their_correct_part_earns() {
    hostile_class(
        "console/cuhk-correct",
        // Two games: each attacks in every process it runs.
        &[
            "scenarios/cuhk/console",
            "scenarios/cuhk/stop/z0_z0_on_a_fresh_board_is_a_draw.txt",
        ],
        "2/2",
    );
}

/// The same class graded by an unprivileged grader (uid 1000, when the
/// tests run as root): the network namespace is made inside a user
/// namespace and submissions keep the grader's uid; Landlock alone keeps
/// them from each other and from the grader.
#[test]
fn hostile_lab3_uploads_under_an_unprivileged_grader_earn_what_their_correct_part_earns() {
    const UID: u32 = 1000;
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipping: the tests do not run as root, so they are the unprivileged grader");
        return;
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
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!(
            "skipping: uid {UID} cannot run the built chessgrade here (setpriv, or a private checkout)"
        );
        return;
    }
    // The attacks on what the uid no longer guards (the grader, its files,
    // the classmates' files): Landlock alone must stop them.
    hostile_class_as(
        Grader::Uid(UID),
        &["KILL_GRADER", "READ_ANSWERS", "CLASSMATES", "WRITE_OUTSIDE"],
        "submissions/lab3-correct",
        &["scenarios/lab3/pawns"],
        "9/9",
        &[],
    );
}

/// The class of hostile Lab 3 uploads built with AddressSanitizer and run
/// checked (`--memcheck`): each process may read its own `/proc/<pid>`
/// and runs without RLIMIT_AS, and every attack is still stopped.
#[test]
fn hostile_lab3_uploads_checked_by_memcheck_earn_what_their_correct_part_earns() {
    // The attacks on what a checked process is granted besides (its own
    // `/proc/<pid>`, no address-space limit): the network namespace and the
    // cache's place are the same checked or not.
    hostile_class_as(
        Grader::Test,
        &["KILL_GRADER", "READ_ANSWERS", "CLASSMATES", "WRITE_OUTSIDE"],
        "submissions/lab3-correct",
        &["scenarios/lab3/pawns"],
        "9/9",
        &["--memcheck"],
    );
}

/// Hostile uploads graded alone with `--submission`, Lab 3 and console:
/// the grader survives and reports full marks.
#[test]
fn hostile_uploads_graded_alone_earn_what_their_correct_part_earns() {
    if !confinement_available() {
        return;
    }
    let arena = Arena::new();
    arena.fill_class("submissions/lab3-correct", &["KILL_GRADER", "READ_ANSWERS"]);
    arena.open_up();
    let before = arena.files();
    for attack in ["kill-grader", "read-answers"] {
        let upload = arena.class().join(attack);
        let run = arena.chessgrade(&[
            "grade",
            "--submission",
            upload.to_str().unwrap(),
            "scenarios/lab3/pawns",
        ]);
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert_eq!(run.status.code(), Some(0), "{attack}: {stdout}");
        assert!(stdout.contains("points 9/9"), "{attack}: {stdout}");
        assert!(stdout.contains("note: isolation: landlock abi"), "{stdout}");
    }
    let mut after = arena.files();
    // The cache was empty: the first build filled it.
    after.retain(|p, _| !p.starts_with(arena.cache()));
    assert_eq!(before, after);
    arena.assert_no_connection();

    // A console program, alone: it attacks once per scenario.
    let arena = Arena::new();
    arena.fill_class("console/cuhk-correct", &["KILL_GRADER", "NETWORK"]);
    arena.open_up();
    let before = arena.files();
    for attack in ["kill-grader", "network"] {
        let upload = arena.class().join(attack);
        let run = arena.chessgrade(&[
            "grade",
            "--submission",
            upload.to_str().unwrap(),
            "scenarios/cuhk/console",
            "scenarios/cuhk/game-over",
        ]);
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert_eq!(run.status.code(), Some(0), "{attack}: {stdout}");
        assert!(stdout.contains("points 2/2"), "{attack}: {stdout}");
    }
    let mut after = arena.files();
    // The cache was empty: the builds filled it.
    after.retain(|p, _| !p.starts_with(arena.cache()));
    assert_eq!(before, after);
    assert_cache_intact(&arena.cache(), 0, 2);
    arena.assert_no_connection();
}

/// A truncated or altered cache entry of the adapter's object is found
/// out by its hash, compiled again and replaced: the upload is graded as
/// if the cache were clean. (Each run adds a note no unit reads to the
/// upload, so that its build misses the build cache and links the adapter
/// again, its units coming from the unit cache; tests/it/build_cache.rs
/// does the same to uploads' entries.)
#[test]
fn a_poisoned_adapter_cache_is_rebuilt_not_linked() {
    let arena = Arena::new();
    let upload = arena.path("upload");
    copy_dir(
        &root().join("tests/fixtures/submissions/lab3-correct"),
        &upload,
    );
    let runs = std::cell::Cell::new(0);
    let grade = || {
        runs.set(runs.get() + 1);
        std::fs::write(upload.join("NOTES.txt"), format!("run {}\n", runs.get())).unwrap();
        let out = arena.chessgrade(&[
            "grade",
            "--submission",
            upload.to_str().unwrap(),
            "scenarios/lab3/pawns/double_step_from_start_rows.txt",
        ]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("note: compile: ") && !text.contains("from the build cache"),
            "built, not copied: {text}"
        );
        out
    };
    assert_eq!(grade().status.code(), Some(0));
    let object = std::fs::read_dir(arena.cache())
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("adapter-kit-"))
        })
        .expect("the adapter is cached");
    let good = std::fs::read(&object).unwrap();
    for poison in [&good[..good.len() / 2], b"garbage".as_slice()] {
        std::fs::write(&object, poison).unwrap();
        let run = grade();
        assert_eq!(run.status.code(), Some(0), "{run:?}");
        // Compiled again (the bytes differ from the first build's in the
        // debug information's temporary paths), and recorded again.
        assert_ne!(
            std::fs::read(&object).unwrap(),
            poison,
            "the entry is replaced"
        );
        assert_cache_intact(&arena.cache(), 1, 0);
    }
}

/// The attack on the build cache from a build (a Makefile is a shell
/// script): list it, read it, plant an entry, rewrite every entry. Each
/// step that works fails the build, so an upload whose build is stopped
/// at every step earns full marks.
fn cache_attack_makefile(cache: &Path) -> String {
    let c = cache.display();
    format!(
        "chess: chess.py\n\
         \t@if ls '{c}' '{c}/builds' >/dev/null 2>&1; then echo 'ATTACK SUCCEEDED: listed the build cache'; exit 1; fi\n\
         \t@if cat '{c}'/*.entry '{c}'/builds/*.entry >/dev/null 2>&1; then echo 'ATTACK SUCCEEDED: read the build cache'; exit 1; fi\n\
         \t@if touch '{c}/builds/planted.entry' 2>/dev/null; then echo 'ATTACK SUCCEEDED: wrote into the build cache'; exit 1; fi\n\
         \t@for f in '{c}'/*.entry '{c}'/builds/*.entry; do if (printf garbage > \"$$f\") 2>/dev/null; then echo \"ATTACK SUCCEEDED: rewrote $$f\"; exit 1; fi; done\n\
         \tprintf '#!/bin/sh\\nexec python3 \"$$(dirname \"$$0\")/chess.py\" \"$$@\"\\n' > chess\n\
         \tchmod +x chess\n"
    )
}

/// A build that tries to read or write the build cache (its folder made
/// world-writable first, with entries in it) gets nowhere: the upload
/// builds and earns full marks, and the cache is as it was but for its own
/// new entry. The same Makefile run unconfined gets through (the control).
#[test]
fn a_build_cannot_reach_the_build_cache() {
    if !confinement_available() {
        return;
    }
    let arena = Arena::new();
    // Entries to attack: the adapter and a build.
    let warm = arena.chessgrade(&[
        "grade",
        "--submission",
        "tests/fixtures/submissions/lab3-correct",
        "scenarios/lab3/pawns/double_step_from_start_rows.txt",
    ]);
    assert_eq!(warm.status.code(), Some(0), "{warm:?}");
    let upload = arena.class().join("cache-attacker");
    std::fs::create_dir_all(&upload).unwrap();
    std::fs::copy(
        root().join("tests/fixtures/console-scripts/cuhk_chess.py"),
        upload.join("chess.py"),
    )
    .unwrap();
    std::fs::write(
        upload.join("Makefile"),
        cache_attack_makefile(&arena.cache()),
    )
    .unwrap();
    arena.open_up();
    let before = arena.files();
    let run = arena.chessgrade(&[
        "grade",
        "--submission",
        upload.to_str().unwrap(),
        "scenarios/cuhk/console",
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("points 1/1"), "{stdout}");
    let cache = arena.cache();
    let mut after = arena.files();
    let added: Vec<PathBuf> = after
        .keys()
        .filter(|p| !before.contains_key(*p))
        .cloned()
        .collect();
    after.retain(|p, _| before.contains_key(p));
    assert_eq!(before, after, "the build changed the cache");
    assert_eq!(added.len(), 1, "one new entry, the upload's: {added:?}");
    assert!(added[0].starts_with(cache.join("builds")), "{added:?}");
    assert_cache_intact(&cache, 1, 2);

    // The control: the same Makefile, unconfined, reaches the cache.
    let control = arena.path("control");
    copy_dir(&upload, &control);
    let make = Command::new("make").current_dir(&control).output().unwrap();
    let said = String::from_utf8_lossy(&make.stdout);
    assert!(
        said.starts_with("ATTACK SUCCEEDED: listed the build cache"),
        "{said}"
    );
}

/// The build is confined like the program: a source that includes a
/// hidden snapshot does not compile, and the compiler says why.
#[test]
fn a_build_cannot_include_the_hidden_answers() {
    if !confinement_available() {
        return;
    }
    let arena = Arena::new();
    let upload = arena.path("class/includer");
    copy_dir(
        &root().join("tests/fixtures/submissions/lab3-correct"),
        &upload,
    );
    let snapshot =
        root().join("snapshots/scenario@lab3__pawns__double_step_from_start_rows.txt.snap");
    std::fs::write(
        upload.join("Answers.cc"),
        format!(
            "static const char answers[] = {{\n#include {:?}\n}};\n",
            snapshot
        ),
    )
    .unwrap();
    let run = arena.chessgrade(&[
        "grade",
        "--submission",
        upload.to_str().unwrap(),
        "scenarios/lab3/pawns/double_step_from_start_rows.txt",
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("compile error"), "{stdout}");
    assert!(stdout.contains("Permission denied"), "{stdout}");
}

/// `--require-isolation` grades where everything holds and names the
/// isolation in the report.
#[test]
fn require_isolation_grades_where_the_kernel_confines_fully() {
    let arena = Arena::new();
    let run = arena.chessgrade(&[
        "grade",
        "--require-isolation",
        "--submission",
        "tests/fixtures/submissions/lab3-correct",
        "scenarios/lab3/pawns/double_step_from_start_rows.txt",
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    if chessgrade::sandbox::isolation().complete() {
        assert_eq!(run.status.code(), Some(0), "{stdout}{stderr}");
        let line = format!("note: isolation: {}", chessgrade::sandbox::isolation());
        assert!(stdout.lines().any(|l| l == line), "{stdout}");
    } else {
        assert_eq!(run.status.code(), Some(2), "{stdout}{stderr}");
        assert!(stderr.starts_with("error: --require-isolation"), "{stderr}");
    }
}

/// The control: each attack, compiled into a plain program and run without
/// the grader's confinement (as root, or as the test's user), gets through,
/// so a hostile upload earning full marks above means the confinement
/// stopped it, not that the attack could not work.
#[test]
fn unconfined_each_attack_gets_through() {
    let arena = Arena::new();
    // Something to read, rewrite and poison.
    let mate = arena.class().join("mate");
    std::fs::create_dir_all(&mate).unwrap();
    std::fs::write(mate.join("ChessBoard.cc"), "// a classmate's file\n").unwrap();
    std::fs::write(arena.cache().join("adapter-kit-1.o"), "object").unwrap();
    let source =
        std::fs::read_to_string(root().join("tests/fixtures/hostile/chessgrade_attack.cc"))
            .unwrap();
    for attack in ATTACKS {
        let program = arena.path(&format!("attack-{attack}"));
        let file = arena.path(&format!("attack-{attack}.cc"));
        std::fs::write(
            &file,
            arena.defines(attack) + &source + "\nint main() { return 0; }\n",
        )
        .unwrap();
        let built = Command::new("g++")
            .args(["-std=c++17", "-o"])
            .arg(&program)
            .arg(&file)
            .output()
            .unwrap();
        assert!(built.status.success(), "{built:?}");
        // A shell in between: the attack's parent, which KILL_GRADER may kill.
        let log = arena.path(&format!("attack-{attack}.log"));
        let shell = Command::new("sh")
            .arg("-c")
            .arg(format!("{:?} 2>{:?}; exit 0", program, log))
            .current_dir(arena.dir.path())
            .output()
            .unwrap();
        let said = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(
            said.starts_with("ATTACK SUCCEEDED"),
            "{attack}: {said:?} {shell:?}"
        );
    }
    // What got through left its marks.
    let _ = arena.tcp.accept().expect("the unconfined attack connected");
    let canary = std::fs::read_to_string(arena.path("outside/canary.txt")).unwrap();
    assert!(canary.ends_with("pwned\n"), "{canary}");
    for leftover in arena.leftovers() {
        std::fs::remove_file(leftover).unwrap();
    }
}

/// Issue 37: the class of hostile Lab 3 uploads graded inside the jail's
/// variant A (current Docker: Docker's seccomp profile and capabilities,
/// so no namespace and no mount; Landlock allowed), as root and as a CI
/// runner's user (65534): every attack fails and each upload earns what
/// its correct part earns, as unjailed; the isolation line names what held
/// there (no sockets: the seccomp filter; the disk watched).
#[test]
fn hostile_uploads_in_a_container_earn_what_their_correct_part_earns() {
    let Some(jail) = jail() else {
        return;
    };
    for user in [None, Some(65534)] {
        hostile_class_as(
            Grader::Jail(jail.clone(), 'A', user),
            ATTACKS,
            "submissions/lab3-correct",
            &["scenarios/lab3/pawns"],
            "9/9",
            &[],
        );
    }
}

/// Issue 37: inside the jail's variant B (older Docker: Landlock's calls
/// answer ENOSYS), as root and as a CI runner's user (65534: no uid of its
/// own, no namespace, only seccomp), the grader's broker answers every
/// call that takes a path (and, as the user, every call that reaches
/// another process): the isolation line names it, `--require-isolation`
/// grades, and every attack of the suite fails, as unjailed: each upload
/// earns what its correct part earns, nothing outside changed.
#[test]
fn without_landlock_the_broker_stops_every_attack() {
    let Some(jail) = jail() else {
        return;
    };
    for user in [None, Some(65534)] {
        hostile_class_as(
            Grader::Jail(jail.clone(), 'B', user),
            ATTACKS,
            "submissions/lab3-correct",
            &["scenarios/lab3/pawns"],
            "9/9",
            &["--require-isolation"],
        );
    }
}

/// Issue 37: inside the jail's variant B with the broker left off (as on a
/// kernel without seccomp user notification), as root and as a CI
/// runner's user, the isolation line says that files are readable and
/// `--require-isolation` refuses to grade, naming what is missing; what
/// remains still holds: the seccomp filter closes every socket and every
/// signal to the grader, so the uploads that reach for the network or kill
/// the grader earn what their correct part earns and the grader survives.
#[test]
fn without_landlock_or_the_broker_the_line_says_so_and_the_network_and_the_grader_still_hold() {
    let Some(jail) = jail() else {
        return;
    };
    for user in [None, Some(65534)] {
        let who = Grader::JailWithoutBroker(jail.clone(), 'B', user);
        let arena = Arena::new();
        arena.open_up();
        let refused = arena.chessgrade_as(
            &who,
            &[
                "grade",
                "--require-isolation",
                "--submission",
                "tests/fixtures/submissions/lab3-correct",
                "scenarios/lab3/pawns/double_step_from_start_rows.txt",
            ],
        );
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{user:?}: {stderr}");
        assert!(
            stderr.contains("--require-isolation")
                && stderr.contains("missing: Landlock or the grader's broker"),
            "{user:?}: {stderr}"
        );
        hostile_class_as(
            who,
            &["NETWORK", "KILL_GRADER"],
            "submissions/lab3-correct",
            &["scenarios/lab3/pawns"],
            "9/9",
            &[],
        );
    }
}

/// Issue 37, item 3: without Landlock and without the broker (the jail's
/// variant B, the broker left off as on a kernel older than 5.14) a class
/// member's program reaches a world-writable class folder and appends to
/// every classmate's sources (the attack lands: the class folder changed).
/// A root grader copied every upload into a folder of its own before the
/// first build, and its sandboxes run as other uids: the correct classmate
/// is graded from its copy and earns full marks.
#[test]
fn without_landlock_or_the_broker_a_class_is_graded_from_copies_taken_before_any_build() {
    let Some(jail) = jail() else {
        return;
    };
    let arena = Arena::new();
    arena.fill_class("submissions/lab3-correct", &["CLASSMATES"]);
    arena.open_up();
    let before = arena.files();
    let out = arena.path("out");
    let class = arena.class();
    let run = arena.chessgrade_as(
        &Grader::JailWithoutBroker(jail, 'B', None),
        &[
            "grade",
            "--class",
            class.to_str().unwrap(),
            "scenarios/lab3/pawns",
            // One member at a time: `classmates` runs (and attacks) before
            // `correct` is built.
            "--jobs",
            "1",
            "--format",
            "json",
            "--output",
            out.to_str().unwrap(),
        ],
    );
    let stdout = String::from_utf8_lossy(&run.stdout);
    let correct = stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some("correct"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(correct.split_whitespace().nth(1), Some("9/9"), "{stdout}");
    let after = arena.files();
    let changed = before
        .iter()
        .filter(|(p, hash)| p.starts_with(&class) && after.get(*p) != Some(hash))
        .count();
    assert!(changed > 0, "the attack landed on the class folder itself");
}

/// A descriptor the grader inherited open (a shell's `exec 7< snapshot`, a
/// harness's pipe) never reaches a sandboxed program: Landlock does not
/// look at a descriptor already open, so the grader marks every one above
/// stderr close-on-exec. An engine that reads every descriptor it might
/// have finds none of them, and the snapshot's text is nowhere in the
/// report.
#[test]
fn descriptors_the_grader_inherited_do_not_reach_the_program() {
    use nix::fcntl::{FcntlArg, FdFlag, fcntl};
    let dir = tempfile::tempdir().unwrap();
    let engine = dir.path().join("fds.py");
    std::fs::write(
        &engine,
        "import os, sys\n\
         found = []\n\
         for fd in range(3, 1024):\n\
         \x20   try:\n\
         \x20       found.append('%d: %r' % (fd, os.pread(fd, 200, 0)))\n\
         \x20   except OSError:\n\
         \x20       pass\n\
         sys.stderr.write('open descriptors: %s\\n' % found)\n",
    )
    .unwrap();
    for p in [dir.path(), engine.as_path()] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let name = "scenario@lab3__pawns__double_step_from_start_rows.txt.snap";
    let snapshot = std::fs::File::open(root().join("snapshots").join(name)).unwrap();
    // Inheritable, as a shell's redirection leaves it.
    fcntl(&snapshot, FcntlArg::F_SETFD(FdFlag::empty())).unwrap();
    let out = Command::new(bin())
        .current_dir(root())
        .args([
            "grade",
            "--color",
            "never",
            "scenarios/lab3/pawns/double_step_from_start_rows.txt",
            "--engine",
            "--",
            "python3",
            engine.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    drop(snapshot);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("open descriptors: []"), "{text}");
    assert!(!text.contains("source: tests/scenarios.rs"), "{text}");
}
