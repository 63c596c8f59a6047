//! What the test modules share: running the built `chessgrade`, the
//! project's paths and `../shared/`, the fixtures (the C++ ones built once
//! per run), and readers of the JSON reports.
//!
//! Builds made here go under the test target's temporary folder
//! (`target/tmp/`), each replaced whole (a new file renamed over the old)
//! once per run, so another test process still running an old one is not
//! disturbed:
//!
//! - `target/tmp/lab3-engines/<fixture>`: a Lab 3 fixture compiled with the
//!   adapter ([`lab3_engine`]);
//! - `target/tmp/console-fixtures/<fixture>/chess`: a console fixture built
//!   by the grader's own console build ([`console_program`]), which also
//!   stores it in the run's build cache, so that grading the same upload
//!   with `--submission` or `--class` later copies it from there;
//! - `target/tmp/xdg-cache/chessgrade/`: the grader's adapter cache
//!   (`XDG_CACHE_HOME` of every `chessgrade` the tests start), so the
//!   adapter's own object is compiled once, not once per grading run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};

/// The project's folder.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The book's chapters, `docs/*.md` (SUMMARY.md too), sorted, as paths
/// relative to the project.
pub fn book_chapters() -> Vec<String> {
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| format!("docs/{}", p.file_name().unwrap().to_string_lossy()))
        .collect();
    docs.sort();
    docs
}

/// The built `chessgrade`.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_chessgrade")
}

/// `../shared/<rel>` (the product side's read-only corpora, which live
/// beside the project, not in it) if it exists. Where it is absent the
/// caller's test says so and passes, except under CI (`CI` set), where its
/// absence is a failure: CI always has `shared/` beside the clone.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let dir = root().join("../shared").join(rel);
    if dir.exists() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} is missing",
        dir.display()
    );
    eprintln!("skipping: {} is missing", dir.display());
    None
}

// ---------------------------------------------------------------------
// Running the binary.
// ---------------------------------------------------------------------

/// `chessgrade` to be run in `dir`, with the run's adapter cache; the
/// caller adds the arguments (and any environment).
pub fn command(dir: &Path) -> Command {
    let mut cmd = Command::new(bin());
    cmd.current_dir(dir).env("XDG_CACHE_HOME", cache_home());
    cmd
}

/// Runs `cmd` to the end.
pub fn output(cmd: &mut Command) -> Output {
    cmd.output().expect("the binary runs")
}

/// Runs `cmd` to the end with `input` on its stdin (stdout piped).
pub fn output_with_input(cmd: &mut Command, input: &str) -> Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the program runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// `chessgrade ARGS` in the project's folder.
pub fn chessgrade(args: &[&str]) -> Output {
    output(command(root()).args(args))
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A project folder with `scenarios/` holding the given files.
pub fn project(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scenarios")).unwrap();
    for (name, body) in files {
        let path = dir.path().join("scenarios").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    }
    dir
}

// ---------------------------------------------------------------------
// Fixtures.
// ---------------------------------------------------------------------

/// `tests/fixtures/submissions/<name>`: a Lab 3 (or hostile) upload.
pub fn submission(name: &str) -> PathBuf {
    root().join("tests/fixtures/submissions").join(name)
}

/// `tests/fixtures/console/<name>`: a real JHU or CUHK console program.
pub fn console_fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures/console").join(name)
}

/// `tests/fixtures/console-scripts/`: the stand-in console programs.
pub fn console_scripts() -> PathBuf {
    root().join("tests/fixtures/console-scripts")
}

/// Copies the files of `from` (not its folders) into `to`, created if
/// need be, each left writable (the fixtures may be checked out read-only).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let dest = to.join(path.file_name().unwrap());
            std::fs::copy(&path, &dest).unwrap();
            let mut perms = std::fs::metadata(&dest).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&dest, perms).unwrap();
        }
    }
}

/// The JHU starter files a student must not change (the console fixture
/// README's seven), as the `--overlay` folder staff pass, with `mystery`
/// as `Mystery.h` when given.
pub fn jhu_overlay(mystery: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let starter = root().join("../shared/jhu-course/starter");
    for f in [
        "Makefile",
        "Piece.h",
        "CreatePiece.h",
        "CreatePiece.cpp",
        "Terminal.h",
        "Exceptions.h",
        "Mystery.h",
    ] {
        std::fs::copy(starter.join(f), dir.path().join(f)).unwrap();
    }
    if let Some(text) = mystery {
        std::fs::write(dir.path().join("Mystery.h"), text).unwrap();
    }
    dir
}

/// Writes into the folder `to` (created) an upload of a stand-in program of
/// `tests/fixtures/console-scripts/`: `script` as `chess.py` and the
/// Makefile that installs it as the course's `chess`, with `mutant`
/// (empty: the correct program).
pub fn script_upload(script: &str, mutant: &str, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    std::fs::copy(console_scripts().join(script), to.join("chess.py")).unwrap();
    let makefile = std::fs::read_to_string(console_scripts().join("Makefile.in")).unwrap();
    let makefile = makefile.replace("MUTANT ?=", &format!("MUTANT ?= {mutant}"));
    std::fs::write(to.join("Makefile"), makefile).unwrap();
}

/// `target/tmp/<rel>`.
fn target_tmp(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(rel)
}

/// Puts a copy of the file `from` at `to`: copied next to it, then renamed
/// over it, so a process running the old `to` keeps running it.
fn install(from: &Path, to: &Path) {
    let dir = to.parent().unwrap();
    std::fs::create_dir_all(dir).unwrap();
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        to.file_name().unwrap().to_string_lossy(),
        std::process::id()
    ));
    std::fs::copy(from, &tmp).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
    std::fs::rename(&tmp, to).unwrap();
}

/// Builds per key: the first test to ask for a key builds it, later ones
/// (and concurrent ones, which wait for it) get its path; different keys
/// build concurrently. A build that panics is tried again by the next asker.
type Builds = OnceLock<Mutex<HashMap<String, Arc<OnceLock<PathBuf>>>>>;

/// What `build` makes for `key`, built once per run.
fn once_per_run(builds: &'static Builds, key: &str, build: impl FnOnce() -> PathBuf) -> PathBuf {
    let cell = builds
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key.to_string())
        .or_default()
        .clone();
    cell.get_or_init(build).clone()
}

/// `XDG_CACHE_HOME` for the run's `chessgrade`s, so the grader's adapter
/// cache is `target/tmp/xdg-cache/chessgrade/`, the one [`lab3_engine`]
/// builds with: the adapter's object is compiled by the first Lab 3 build
/// made under this target folder and reused by every later build with the
/// same compiler and flags. (Builds that start together before it is there
/// each compile it; the grader writes cache entries atomically.)
pub fn cache_home() -> PathBuf {
    target_tmp("xdg-cache")
}

/// Compiles a Lab 3 upload with the adapter, by the library's own build
/// (what `grade --submission` runs), the adapter's object cached in
/// `adapter_cache`.
fn build_lab3(dir: &Path, adapter_cache: &Path) -> chessgrade::submission::Build {
    let mut options =
        chessgrade::submission::CppOptions::new("g++", std::time::Duration::from_secs(300));
    options.cache.dir = Some(adapter_cache.to_path_buf());
    let upload = chessgrade::upload::Upload::read(dir).expect("a Lab 3 fixture");
    chessgrade::submission::build_cpp_traced(&upload, &options)
        .0
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// The Lab 3 fixture `tests/fixtures/submissions/<name>` compiled with the
/// adapter once per run, for every test that grades it with `--engine`
/// (`target/tmp/lab3-engines/<name>`). Tests of the build itself (a compile
/// error, the left-out main, class mode, the README's commands) still go
/// through `--submission`.
pub fn lab3_engine(name: &str) -> String {
    static BUILT: Builds = OnceLock::new();
    once_per_run(&BUILT, name, || {
        let build = build_lab3(&submission(name), &cache_home().join("chessgrade"));
        let path = target_tmp("lab3-engines").join(name);
        install(&build.command.program, &path);
        path
    })
    .display()
    .to_string()
}

/// Seed 004's hook file, with the course's headers beside it.
pub fn design004_hooks() -> PathBuf {
    root().join("adapters/design004/hooks.cc")
}

/// A seed 004 upload made at test time from `design004-correct` by one
/// textual change (`from` becomes `to` in `file`): a student's usual bug.
pub struct Design004Mutant {
    pub name: &'static str,
    file: &'static str,
    from: &'static str,
    to: &'static str,
}

/// The seed 004 mutants (tests/fixtures/submissions/README.md says what
/// each does; tests/it/kit.rs which scenarios each fails, and why).
pub const DESIGN004_MUTANTS: &[Design004Mutant] = &[
    Design004Mutant {
        // History::UndoLastMove puts the king back but not the rook.
        name: "castle-undo-leaves-rook",
        file: "History.cc",
        from: "    if (rook_from.GetX() >= 0)\n    {\n        Piece *rook = board->PieceAt(rook_to);\n        board->PlacePieceAt(NULL, &rook_to);\n        board->PlacePieceAt(rook, &rook_from);\n        rook->SetMoved(false);\n    }\n",
        to: "",
    },
    Design004Mutant {
        // Pawn::TryToMove moves onto the en-passant square and kills nothing.
        name: "en-passant-keeps-pawn",
        file: "Pawn.cc",
        from: "board->RemovePiece(Point(p.GetX(), from.GetY())); // kill pawn",
        to: "{} // kill pawn: forgotten",
    },
    Design004Mutant {
        // Board::Move keeps the moves taken back after a new move, so a
        // redo makes one of them.
        name: "redo-after-new-move",
        file: "Board.cc",
        from: "        while (undone != NULL)\n        {\n            History *after = undone->GetNext();\n            delete undone;\n            undone = after;\n        }\n",
        to: "        h->SetNext(undone); // the moves taken back stay, after the new one\n",
    },
    Design004Mutant {
        // Only the king looks whether a move leaves it attacked.
        name: "pinned-piece-moves",
        file: "Board.cc",
        from: "bool Board::LeavesKingAttacked(Piece *mover, Point to, MoveType mt)\n{\n",
        to: "bool Board::LeavesKingAttacked(Piece *mover, Point to, MoveType mt)\n{\n    if (dynamic_cast<King *>(mover) == NULL)\n        return false; // only the king looks where it goes\n",
    },
    Design004Mutant {
        // The seed's own Pawn::CanMove: two spaces from anywhere.
        name: "double-step-after-moving",
        file: "Pawn.cc",
        from: "    int start = (color == WHITE) ? 1 : height - 2;\n    if (dy == 2 * direction && dx == 0 && location.GetY() == start &&\n",
        to: "    if (dy == 2 * direction && dx == 0 &&\n",
    },
    Design004Mutant {
        // Board::TryToMove asks the colour of the piece at p2 without
        // looking whether there is one: a move to an empty square crashes
        // (SIGSEGV) inside the `try_move` hook.
        name: "crash-in-try-to-move",
        file: "Board.cc",
        from: "    if (temp_piece != NULL && temp_piece->GetColor() == turn)\n",
        to: "    if (temp_piece != NULL && PieceAt(p2)->GetColor() == turn)\n        return;\n    if (temp_piece != NULL && temp_piece->GetColor() == turn)\n",
    },
];

/// The seed 004 upload `name`: `design004-correct` (the fixture), or a
/// mutant of [`DESIGN004_MUTANTS`] written once per run to
/// `target/tmp/design004-mutants/<name>` (what docs/course-classes.md
/// grades).
pub fn design004_upload(name: &str) -> PathBuf {
    static WRITTEN: Builds = OnceLock::new();
    if name == "design004-correct" {
        return submission(name);
    }
    let mutant = DESIGN004_MUTANTS
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no seed 004 mutant {name}"));
    once_per_run(&WRITTEN, name, || {
        let base = target_tmp("design004-mutants");
        let work = base.join(format!(".{name}.{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        copy_dir(&submission("design004-correct"), &work);
        let file = work.join(mutant.file);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.contains(mutant.from),
            "{name}: the patch no longer applies"
        );
        std::fs::write(&file, text.replace(mutant.from, mutant.to)).unwrap();
        let path = base.join(name);
        let _ = std::fs::remove_dir_all(&path);
        std::fs::rename(&work, &path).unwrap();
        path
    })
}

/// The seed 004 upload `name` ([`design004_upload`]) compiled with the
/// adapter kit and seed 004's hooks, once per run, by the library's own
/// build (what `grade --submission DIR --adapter adapters/design004/hooks.cc`
/// runs), for the tests that grade it with `--engine`
/// (`target/tmp/design004-engines/<name>`). A mutant is built after the
/// correct upload, so that it compiles only the unit it changes (the unit
/// cache has the others).
pub fn design004_engine(name: &str) -> String {
    static BUILT: Builds = OnceLock::new();
    if name != "design004-correct" {
        design004_engine("design004-correct");
    }
    once_per_run(&BUILT, name, || {
        let mut options =
            chessgrade::submission::CppOptions::new("g++", std::time::Duration::from_secs(300));
        options.cache.dir = Some(cache_home().join("chessgrade"));
        let hooks = chessgrade::submission::CourseHooks::load(&design004_hooks(), &options)
            .unwrap_or_else(|e| panic!("{e}"));
        options.hooks = chessgrade::submission::Hooks::Course(hooks);
        let dir = design004_upload(name);
        let upload = chessgrade::upload::Upload::read(&dir).expect("a seed 004 upload");
        let build = chessgrade::submission::build_cpp_traced(&upload, &options)
            .0
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let path = target_tmp("design004-engines").join(name);
        install(&build.command.program, &path);
        path
    })
    .display()
    .to_string()
}

/// The kind of a build cache entry (`program`, `compile-error`,
/// `object`), read as docs/grading.md describes the format (one header
/// line `chessgrade-cache 1 KIND LENGTH SHA256`, then the payload), when
/// its payload has that length and SHA-256; `None` for anything else (a
/// truncated, altered or foreign file).
pub fn cache_entry_kind(path: &Path) -> Option<String> {
    use sha2::Digest;
    let bytes = std::fs::read(path).ok()?;
    let end = bytes.iter().position(|&b| b == b'\n')?;
    let header = String::from_utf8(bytes[..end].to_vec()).ok()?;
    let words: Vec<&str> = header.split(' ').collect();
    let [magic, version, kind, len, hash] = words.as_slice() else {
        return None;
    };
    let payload = &bytes[end + 1..];
    let digest: String = sha2::Sha256::digest(payload)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    (*magic == "chessgrade-cache"
        && *version == "1"
        && len.parse() == Ok(payload.len())
        && digest == *hash)
        .then(|| kind.to_string())
}

/// A console mutant made at test time from a fixture by one textual change.
struct Patched {
    name: &'static str,
    base: &'static str,
    file: &'static str,
    from: &'static str,
    to: &'static str,
}

const PATCHED: &[Patched] = &[Patched {
    // The machine plays any of its pieces to any cell that is empty or an
    // enemy's, without the piece's own moving rule (nor the turn check of
    // `Board::move`): its moves are random and mostly illegal.
    name: "cuhk-machine-illegal",
    base: "cuhk-correct",
    file: "machine.cpp",
    from: "if (board->move(y1, x1, y2, x2)) {",
    to: "Piece* t = board->get(y2, x2);\n            if (t != OUT_BOUND && !(y1 == y2 && x1 == x2) && (t == EMPTY || t->getColor() != p->getColor())) {\n                p->move(y2, x2);",
}];

/// The console fixture `tests/fixtures/console/<fixture>` (or a mutant
/// patched from one, see [`PATCHED`]) built by the grader the way its
/// course builds it (JHU: the starter overlay and `make`; CUHK: g++ over
/// every .cpp with the course's flags), into the run's build cache, once
/// per run; the path of its `chess`
/// (`target/tmp/console-fixtures/<fixture>/chess`), for `--program`.
pub fn console_program(fixture: &str) -> PathBuf {
    static BUILT: Builds = OnceLock::new();
    once_per_run(&BUILT, fixture, || {
        let base = target_tmp("console-fixtures");
        std::fs::create_dir_all(&base).unwrap();
        let work = tempfile::Builder::new()
            .prefix(&format!(".{fixture}-build-"))
            .tempdir_in(&base)
            .unwrap();
        let dir = work.path();
        match PATCHED.iter().find(|p| p.name == fixture) {
            Some(p) => {
                copy_dir(&console_fixture(p.base), dir);
                let file = dir.join(p.file);
                let text = std::fs::read_to_string(&file).unwrap();
                assert!(
                    text.contains(p.from),
                    "{}: the patch no longer applies",
                    p.name
                );
                std::fs::write(&file, text.replace(p.from, p.to)).unwrap();
            }
            None => copy_dir(&console_fixture(fixture), dir),
        }
        // The grader's own build (what `grade --submission` runs), into the
        // run's build cache: a later `--submission` or `--class` of the same
        // upload with the same overlay finds it there instead of compiling
        // it again.
        let build = grader_console_build(fixture, dir, None);
        let chess = base.join(fixture).join("chess");
        install(&build.command.program, &chess);
        chess
    })
}

/// Builds the console upload `dir` (the fixture `fixture`, or a copy) as
/// `grade --submission DIR` does, with the JHU starter as `--overlay` for a
/// JHU fixture, for `memcheck` when given, into the run's build cache.
fn grader_console_build(
    fixture: &str,
    dir: &Path,
    memcheck: Option<chessgrade::memcheck::Tool>,
) -> chessgrade::submission::Build {
    let texts = chessgrade::console::Texts::default();
    let jhu = fixture.starts_with("jhu");
    let overlay = jhu.then(|| jhu_overlay(None));
    let cache = chessgrade::submission::BuildCache {
        dir: Some(cache_home().join("chessgrade")),
        builds: true,
    };
    let how = chessgrade::submission::ConsoleBuild {
        binary: "chess",
        compiler: "g++",
        cxx_flags: if jhu {
            &texts.jhu.cxx_flags
        } else {
            &texts.cuhk.cxx_flags
        },
        command: None,
        overlay: overlay.as_ref().map(|o| o.path()),
        files: &[],
        timeout: std::time::Duration::from_secs(300),
        memcheck,
        cache: &cache,
        case: Default::default(),
        disk: chessgrade::sandbox::DiskBound::default(),
    };
    let upload = chessgrade::upload::Upload::read(dir).expect("a console fixture");
    chessgrade::submission::build_console_traced(&upload, &how)
        .0
        .unwrap_or_else(|e| panic!("{fixture} does not build: {e}"))
}

/// The console fixture `tests/fixtures/console/<fixture>` built for the
/// memory checker `tool` into the run's build cache, once per run: the
/// tests that grade it with `--memcheck` (and the JHU starter as
/// `--overlay`) call this first, so that two of them running at once do not
/// both build it (an AddressSanitizer build of the JHU program is about
/// 10 s of CPU); their own runs then copy it from the cache.
pub fn checked_console_build(fixture: &str, tool: chessgrade::memcheck::Tool) {
    static BUILT: Builds = OnceLock::new();
    once_per_run(&BUILT, &format!("{fixture} {}", tool.name()), || {
        grader_console_build(fixture, &console_fixture(fixture), Some(tool));
        PathBuf::new()
    });
}

// ---------------------------------------------------------------------
// Reports.
// ---------------------------------------------------------------------

/// The `scenarios` array of a JSON report.
pub fn scenarios(report: &serde_json::Value) -> &Vec<serde_json::Value> {
    report["scenarios"].as_array().expect("scenarios array")
}

/// (scenario name, status, class) of each scenario of a JSON report.
pub fn verdicts(report: &serde_json::Value) -> Vec<(String, String, Option<String>)> {
    scenarios(report)
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["status"].as_str().unwrap().to_string(),
                s["class"].as_str().map(str::to_string),
            )
        })
        .collect()
}

/// Every bundled JHU scenario but the two Mystery ones (they need the
/// graders' Mystery.h).
pub const JHU_ALL: &[&str] = &[
    "scenarios/jhu/check",
    "scenarios/jhu/console",
    "scenarios/jhu/mates",
    "scenarios/jhu/promotion",
    "scenarios/jhu/refusals",
    "scenarios/jhu/save",
    "scenarios/jhu/score",
    "scenarios/jhu/special-moves",
];

/// The bundled CUHK scenarios a console program can play in mode 1 (they
/// start from the start position, the only one the CUHK program can play).
pub const CUHK_ALL: &[&str] = &[
    "scenarios/cuhk/console",
    "scenarios/cuhk/game-over",
    "scenarios/cuhk/notation",
    "scenarios/cuhk/stop/z0_z0_on_a_fresh_board_is_a_draw.txt",
];

// ---------------------------------------------------------------------
// A container's limits without a container.
// ---------------------------------------------------------------------

/// `../shared/tools/dockerlike/jail` (Docker's default seccomp profile and
/// capability set, see its README), when it runs here: it needs root and
/// Debian's `python3-seccomp` (`.ci/run` installs it). Where it cannot
/// run the caller's test says so and passes, except under CI (`CI` set),
/// where that is a failure.
pub fn jail() -> Option<PathBuf> {
    static JAIL: OnceLock<Option<PathBuf>> = OnceLock::new();
    JAIL.get_or_init(|| {
        let path = shared("tools/dockerlike/jail")?;
        if !nix::unistd::geteuid().is_root() {
            eprintln!("skipping the jailed runs: the jail needs root");
            return None;
        }
        let probe = Command::new(&path)
            .args(["--quiet", "--", bin(), "--version"])
            .output();
        match probe {
            Ok(out) if out.status.success() => Some(path),
            other => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "the jail cannot run under CI ({other:?}): is python3-seccomp installed?"
                );
                eprintln!("skipping the jailed runs: the jail cannot run here ({other:?})");
                None
            }
        }
    })
    .clone()
}

/// `command`'s program and arguments run under the jail's `variant` (`A`:
/// current Docker, Landlock allowed; `B`: older Docker, Landlock's calls
/// answer ENOSYS), as `user` when given (a CI runner's uid), with its
/// environment and folder.
pub fn jailed(jail: &Path, variant: char, user: Option<u32>, command: &Command) -> Command {
    let mut jailed = Command::new(jail);
    jailed.args(["--quiet", "--variant", &variant.to_string()]);
    if let Some(uid) = user {
        jailed.args(["--user", &uid.to_string()]);
    }
    jailed
        .arg("--")
        .arg(command.get_program())
        .args(command.get_args());
    for (key, value) in command.get_envs() {
        match value {
            Some(v) => jailed.env(key, v),
            None => jailed.env_remove(key),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        jailed.current_dir(dir);
    }
    jailed
}
