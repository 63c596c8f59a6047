//! A class in shards, end to end: each recipe of docs/grading.md (Slurm
//! array, Kubernetes Indexed Job, GitLab `parallel:`, GitHub Actions
//! matrix) is run as written, its shard commands as concurrent processes
//! with the engine's variables set as the engine sets them, then its merge
//! commands; the merged class report must equal a one-machine class run,
//! timings aside. Then what `merge` refuses (a missing, duplicate or
//! foreign slice, a mix of kinds) and what the shard detection refuses,
//! each exit 2 with one message, on classes of empty folders (no builds).
//!
//! The Slurm recipe also runs on a real Slurm, when asked (`cargo test
//! --test it slurm -- --ignored`, which CI runs on the one-node Slurm of
//! `.ci/slurm-up`): its two scripts submitted with `sbatch`, the array
//! then the merge, every Slurm command bounded in time and the jobs
//! cancelled if the test fails.
//!
//! The graded class: the correct upload, a one-bug mutant, one that does
//! not compile and an empty folder, on the nine lab3/pawns scenarios.

use crate::helpers::{bin, copy_dir, root};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Every variable the shard detection reads: cleared around each run, so
/// a test run inside a CI job is not sharded by its engine.
const ENGINE_VARIABLES: [&str; 9] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_STEP",
    "JOB_COMPLETION_INDEX",
    "CHESSGRADE_SHARD_COUNT",
    "CI_NODE_INDEX",
    "CI_NODE_TOTAL",
];

/// A command in `dir` with no engine variable but `vars`, and chessgrade
/// first on the PATH (as the recipes expect it).
fn command(program: &str, dir: &Path, vars: &[(String, String)]) -> Command {
    let mut c = Command::new(program);
    c.current_dir(dir).env("NO_COLOR", "1");
    for v in ENGINE_VARIABLES {
        c.env_remove(v);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![Path::new(bin()).parent().unwrap().to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    c.env("PATH", std::env::join_paths(dirs).unwrap());
    c.envs(vars.iter().map(|(k, v)| (k, v)));
    c
}

fn chessgrade(dir: &Path, args: &[&str], vars: &[(String, String)]) -> Output {
    let mut c = command(bin(), dir, vars);
    c.args(args).output().expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A course folder as the recipes see it: `uploads/` (the class),
/// `scenarios/lab3/` (the pawns scenarios only, to keep the runs short)
/// and `snapshots/`.
fn course() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = root().join("tests/fixtures/submissions");
    for s in [
        "lab3-correct",
        "lab3-mutant-no-double-step",
        "hostile-compile-error",
    ] {
        copy_dir(&fixtures.join(s), &dir.path().join("uploads").join(s));
    }
    std::fs::create_dir(dir.path().join("uploads/nothing-uploaded")).unwrap();
    copy_dir(
        &root().join("scenarios/lab3/pawns"),
        &dir.path().join("scenarios/lab3/pawns"),
    );
    std::os::unix::fs::symlink(root().join("snapshots"), dir.path().join("snapshots")).unwrap();
    dir
}

/// A class report with every time set to 0 (`elapsed_secs`, the build's
/// `compile: 1.23s (...)` note) and the course folder written `COURSE`
/// (the machines of a real cluster mount it at one path; each test run
/// has its own).
fn untimed(v: Value, course: &Path) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for (k, x) in map.iter_mut() {
                    if k == "elapsed_secs" {
                        *x = Value::from(0.0);
                    } else {
                        walk(x);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            Value::String(s) => {
                // Built now (`1.23s`) or copied from the build cache
                // (`from the build cache`), depending on which run came
                // first; a console build's cache note likewise.
                if let Some(rest) = s.strip_prefix("compile: ")
                    && let Some((_secs, how)) = rest.split_once(" (")
                {
                    *s = format!("compile: _s ({how}");
                } else if s == chessgrade::grading::subject::FROM_CACHE_NOTE {
                    *s = String::new();
                }
            }
            _ => {}
        }
    }
    let text = v.to_string().replace(course.to_str().unwrap(), "COURSE");
    let mut v: Value = serde_json::from_str(&text).unwrap();
    walk(&mut v);
    v
}

fn read_json(path: &Path) -> Value {
    let t = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&t).unwrap()
}

/// The class graded on one machine, no shard (once per test binary).
fn one_machine() -> &'static Value {
    static WHOLE: OnceLock<Value> = OnceLock::new();
    WHOLE.get_or_init(|| {
        let c = course();
        let out = chessgrade(
            c.path(),
            &[
                "grade",
                "--class",
                "uploads/",
                "scenarios/lab3",
                "-q",
                "--format",
                "json",
                "--output",
                "whole.json",
            ],
            &[],
        );
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let whole = read_json(&c.path().join("whole.json"));
        // Reviewed by hand: the four members, by name, their points.
        let rows: Vec<(String, u64)> = whole["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let earned = r["scenarios"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s["earned"].as_u64().unwrap())
                    .sum();
                (r["subject"].as_str().unwrap().to_string(), earned)
            })
            .collect();
        let expected = [
            ("hostile-compile-error", 0),
            ("lab3-correct", 9),
            ("lab3-mutant-no-double-step", 6),
            ("nothing-uploaded", 0),
        ];
        assert_eq!(
            rows,
            expected.map(|(n, p)| (n.to_string(), p)).to_vec(),
            "{whole}"
        );
        assert_eq!(whole["class"]["members"], 4);
        assert_eq!(whole["run"]["scenarios"], 9);
        assert!(whole.get("shard").is_none());
        untimed(whole, c.path())
    })
}

/// The fenced blocks after each `<!-- recipe: name -->` of
/// docs/grading.md, each block's text whole.
fn recipe_blocks(name: &str) -> Vec<String> {
    let doc = std::fs::read_to_string(root().join("docs/grading.md")).unwrap();
    let marker = format!("<!-- recipe: {name} -->");
    let mut blocks = Vec::new();
    let mut armed = false;
    let mut inside = false;
    for line in doc.lines() {
        if line.trim() == marker {
            armed = true;
        } else if line.starts_with("```") && (armed || inside) {
            if !inside {
                blocks.push(String::new());
            }
            inside = !inside;
            armed = false;
        } else if inside {
            let block = blocks.last_mut().unwrap();
            block.push_str(line);
            block.push('\n');
        }
    }
    blocks
}

/// The shell lines of the docs' recipe `name` (the fenced blocks after
/// each `<!-- recipe: name -->`), and the whole text of those blocks.
fn recipe(name: &str) -> (Vec<String>, String) {
    let whole = recipe_blocks(name).concat();
    let lines: Vec<String> = whole
        .lines()
        .filter_map(|line| {
            let t = line.trim_start();
            let t = t.strip_prefix("- ").unwrap_or(t);
            let t = t.strip_prefix("run: ").unwrap_or(t);
            t.starts_with("chessgrade ").then(|| t.to_string())
        })
        .collect();
    assert!(!lines.is_empty(), "no recipe {name} in docs/grading.md");
    (lines, whole)
}

/// Runs recipe `name` in a fresh course folder: its `chessgrade grade`
/// lines once per shard k in 1..=n, all at once, through `sh -c` with
/// `vars(k)` set and `subst(line, k)` applied (what the engine expands
/// itself); then its `chessgrade merge` lines. Returns the folder.
fn run_recipe(
    name: &str,
    n: usize,
    vars: impl Fn(usize) -> Vec<(String, String)>,
    subst: impl Fn(&str, usize) -> String,
) -> tempfile::TempDir {
    // One recipe at a time (its shards at once): two cores are shared.
    static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (lines, _) = recipe(name);
    let c = course();
    let (grade, merge): (Vec<&String>, Vec<&String>) = lines
        .iter()
        .partition(|l| l.starts_with("chessgrade grade "));
    assert_eq!(grade.len(), 1, "{lines:?}");
    assert!(!merge.is_empty(), "{lines:?}");
    let children: Vec<_> = (1..=n)
        .map(|k| {
            command("sh", c.path(), &vars(k))
                .arg("-c")
                .arg(subst(grade[0], k))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (k, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{name} shard {}: {}{}",
            k + 1,
            text(&out.stdout),
            text(&out.stderr)
        );
    }
    for line in merge {
        let out = command("sh", c.path(), &[])
            .arg("-c")
            .arg(line)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{line}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
    }
    c
}

fn vars(pairs: &[(&str, String)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// What slice `file` says about its shard: (K, N, where from, members).
fn shard_of(dir: &Path, file: &str) -> (u64, u64, String, usize) {
    let v = read_json(&dir.join(file));
    (
        v["shard"]["index"].as_u64().unwrap(),
        v["shard"]["count"].as_u64().unwrap(),
        v["shard"]["from"].as_str().unwrap().to_string(),
        v["submissions"].as_array().unwrap().len(),
    )
}

#[test]
fn slurm_array_recipe_merges_into_the_one_machine_report() {
    let (_, script) = recipe("slurm");
    assert!(script.contains("#SBATCH --array=1-4"), "{script}");
    assert!(script.contains("#SBATCH --cpus-per-task=4"), "{script}");
    // What Slurm sets in each task of `--array=1-4 --cpus-per-task=4`
    // (here one CPU each: the machine has two).
    let c = run_recipe(
        "slurm",
        4,
        |k| {
            vars(&[
                ("SLURM_ARRAY_JOB_ID", "7100".into()),
                ("SLURM_JOB_ID", format!("{}", 7100 + k)),
                ("SLURM_ARRAY_TASK_ID", k.to_string()),
                ("SLURM_ARRAY_TASK_MIN", "1".into()),
                ("SLURM_ARRAY_TASK_MAX", "4".into()),
                ("SLURM_ARRAY_TASK_COUNT", "4".into()),
                ("SLURM_ARRAY_TASK_STEP", "1".into()),
                ("SLURM_CPUS_PER_TASK", "1".into()),
            ])
        },
        |line, _| line.to_string(),
    );
    assert_eq!(
        &untimed(read_json(&c.path().join("class.json")), c.path()),
        one_machine()
    );
    assert_eq!(
        shard_of(c.path(), "slice-3.json").2,
        "Slurm array: SLURM_ARRAY_TASK_ID=3, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=4, SLURM_ARRAY_TASK_COUNT=4"
    );
    // The four members, one per shard; every student's Gradescope file.
    let per_shard: Vec<usize> = (1..=4)
        .map(|k| shard_of(c.path(), &format!("slice-{k}.json")).3)
        .collect();
    assert_eq!(per_shard, [1, 1, 1, 1]);
    for name in ["lab3-correct", "nothing-uploaded"] {
        let g = read_json(&c.path().join(format!("gradescope/{name}.json")));
        assert_eq!(g["tests"].as_array().unwrap().len(), 9);
    }
    let html = std::fs::read_to_string(c.path().join("class.html")).unwrap();
    assert!(html.contains("lab3-mutant-no-double-step"));
}

// ---------------------------------------------------------------------
// The Slurm recipe on a real Slurm (ignored: it needs a controller).
// ---------------------------------------------------------------------

/// Runs `cmd` (whose output is small: it is read once it exits) to its
/// end, or kills it once `limit` has passed: `None` then.
fn bounded(cmd: &mut Command, limit: Duration) -> Option<Output> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "{:?}: {e} (this test needs Slurm's commands and a controller: \
                 .ci/slurm-up starts a one-node Slurm)",
                cmd.get_program()
            )
        });
    let deadline = Instant::now() + limit;
    loop {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Slurm jobs this test submitted, cancelled when it ends (a no-op for
/// those that are done), so a failed or timed-out test leaves none queued.
struct Jobs(Vec<String>);

impl Drop for Jobs {
    fn drop(&mut self) {
        if !self.0.is_empty() {
            let _ = bounded(
                Command::new("scancel").args(&self.0),
                Duration::from_secs(30),
            );
        }
    }
}

/// The controller's account of job `id`, one line per array task (kept
/// `MinJobAge`, 300 s by default, after the end); none if it does not
/// answer within 30 s.
fn job_lines(id: &str) -> Vec<String> {
    let out = bounded(
        Command::new("scontrol").args(["--oneliner", "show", "job", id]),
        Duration::from_secs(30),
    );
    out.map_or(Vec::new(), |o| {
        text(&o.stdout).lines().map(String::from).collect()
    })
}

/// The value of field `name` (`JobState`) in a line of [`job_lines`].
fn job_field<'a>(line: &'a str, name: &str) -> &'a str {
    line.split(' ')
        .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
        .unwrap_or("?")
}

/// What the failed jobs said: their output files (Slurm's
/// `slurm-<job>_<task>.out` in the submit folder) and the controller's
/// view of `jobs`.
fn slurm_logs(dir: &Path, jobs: &Jobs) -> String {
    let mut logs = String::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "out"))
        .collect();
    files.sort();
    for f in files {
        let t = std::fs::read_to_string(&f).unwrap_or_default();
        logs.push_str(&format!("--- {}\n{t}", f.display()));
    }
    for line in jobs.0.iter().flat_map(|j| job_lines(j)) {
        let fields = [
            "JobId",
            "ArrayTaskId",
            "JobName",
            "JobState",
            "Reason",
            "ExitCode",
        ];
        let fields: Vec<String> = fields
            .iter()
            .map(|f| format!("{f}={}", job_field(&line, f)))
            .collect();
        logs.push_str(&format!("--- scontrol: {}\n", fields.join(" ")));
    }
    logs
}

/// The docs' two Slurm scripts submitted as the docs chain them (`jid=$(sbatch
/// --parsable grade-class.sbatch) && sbatch --dependency=afterok:$jid
/// merge-class.sbatch`) to the Slurm the machine has (`.ci/slurm-up` starts
/// a one-node one), the submit folder being the course folder; the merged
/// class report must equal a one-machine class run. The array's four
/// tasks ask one CPU each (`--cpus-per-task=1` over the script's 4, which
/// a two-CPU node could never give), so they run two at a time.
#[test]
#[ignore = "needs a Slurm controller: `.ci/slurm-up` starts a one-node one (CI does)"]
fn slurm_recipe_runs_for_real_on_slurm() {
    const LIMIT: Duration = Duration::from_secs(600);
    let blocks = recipe_blocks("slurm");
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert!(blocks[0].contains("#SBATCH --array=1-4"), "{}", blocks[0]);
    assert!(blocks[1].contains("chessgrade merge "), "{}", blocks[1]);
    let c = course();
    let d = c.path();
    std::fs::write(d.join("grade-class.sbatch"), &blocks[0]).unwrap();
    std::fs::write(d.join("merge-class.sbatch"), &blocks[1]).unwrap();

    let ping = bounded(
        command("scontrol", d, &[]).arg("ping"),
        Duration::from_secs(30),
    );
    match &ping {
        Some(out) if out.status.success() && text(&out.stdout).contains("is UP") => {}
        _ => panic!(
            "no Slurm controller answers `scontrol ping` ({}): start one with .ci/slurm-up",
            ping.map_or("no answer in 30 s".into(), |o| format!(
                "{}{}",
                text(&o.stdout).trim(),
                text(&o.stderr).trim()
            ))
        ),
    }

    let mut jobs = Jobs(Vec::new());
    let grade = bounded(
        command("sbatch", d, &[]).args(["--parsable", "--cpus-per-task=1", "grade-class.sbatch"]),
        Duration::from_secs(60),
    )
    .expect("sbatch grade-class.sbatch answers within 60 s");
    assert!(grade.status.success(), "{}", text(&grade.stderr));
    // `--parsable` prints `<job id>` or `<job id>;<cluster>`.
    let grade_job = text(&grade.stdout)
        .trim()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    assert!(grade_job.parse::<u64>().is_ok(), "{grade_job:?}");
    jobs.0.push(grade_job.clone());
    // `--wait`: sbatch returns once the merge job has ended, with its exit
    // code; a failed grade task makes the merge's dependency one that can
    // never be met, and the controller (`kill_invalid_depend`) cancels it.
    let started = Instant::now();
    let merge = bounded(
        command("sbatch", d, &[]).args([
            "--parsable",
            "--wait",
            &format!("--dependency=afterok:{grade_job}"),
            "merge-class.sbatch",
        ]),
        LIMIT,
    );
    let merge_job = merge
        .as_ref()
        .and_then(|o| text(&o.stdout).lines().next().map(str::to_string))
        .and_then(|l| l.split(';').next().map(str::to_string))
        .filter(|l| !l.is_empty());
    jobs.0.extend(merge_job);
    match &merge {
        None => panic!(
            "the Slurm jobs did not end within {LIMIT:?}\n{}",
            slurm_logs(d, &jobs)
        ),
        Some(o) if !o.status.success() => panic!(
            "sbatch --wait merge-class.sbatch: {} {}\n{}",
            o.status,
            text(&o.stderr),
            slurm_logs(d, &jobs)
        ),
        Some(_) => eprintln!("the Slurm jobs ended in {:?}", started.elapsed()),
    }
    // sbatch --wait says 0 for a job cancelled before it ran: the
    // controller says how each job and array task ended.
    let states: Vec<String> = jobs
        .0
        .iter()
        .flat_map(|j| job_lines(j))
        .map(|l| job_field(&l, "JobState").to_string())
        .collect();
    assert_eq!(
        states,
        ["COMPLETED"; 5],
        "the four grade tasks and the merge\n{}",
        slurm_logs(d, &jobs)
    );

    assert_eq!(&untimed(read_json(&d.join("class.json")), d), one_machine());
    // What Slurm itself set in task 3 of `--array=1-4`.
    assert_eq!(
        shard_of(d, "slice-3.json").2,
        "Slurm array: SLURM_ARRAY_TASK_ID=3, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=4, SLURM_ARRAY_TASK_COUNT=4"
    );
    let per_shard: Vec<usize> = (1..=4)
        .map(|k| shard_of(d, &format!("slice-{k}.json")).3)
        .collect();
    assert_eq!(per_shard, [1, 1, 1, 1]);
    for name in ["lab3-correct", "nothing-uploaded"] {
        let g = read_json(&d.join(format!("gradescope/{name}.json")));
        assert_eq!(g["tests"].as_array().unwrap().len(), 9);
    }
    let html = std::fs::read_to_string(d.join("class.html")).unwrap();
    assert!(html.contains("lab3-mutant-no-double-step"));
}

#[test]
fn kubernetes_indexed_job_recipe_merges_into_the_one_machine_report() {
    let (_, manifest) = recipe("kubernetes");
    assert!(manifest.contains("completionMode: Indexed"), "{manifest}");
    assert!(manifest.contains("completions: 4"), "{manifest}");
    // An Indexed Job's pods get JOB_COMPLETION_INDEX 0..3 (and the
    // hostname-derived index annotation, not read).
    let c = run_recipe(
        "kubernetes",
        4,
        |k| vars(&[("JOB_COMPLETION_INDEX", (k - 1).to_string())]),
        |line, _| line.to_string(),
    );
    assert_eq!(
        &untimed(read_json(&c.path().join("class.json")), c.path()),
        one_machine()
    );
    assert_eq!(
        shard_of(c.path(), "slice-0.json"),
        (
            1,
            4,
            "Kubernetes Indexed Job: JOB_COMPLETION_INDEX=0".into(),
            1
        )
    );
}

#[test]
fn gitlab_parallel_recipe_merges_into_the_one_machine_report() {
    let (_, ci) = recipe("gitlab");
    assert!(ci.contains("parallel: 4"), "{ci}");
    let c = run_recipe(
        "gitlab",
        4,
        |k| {
            vars(&[
                ("CI", "true".into()),
                ("GITLAB_CI", "true".into()),
                ("CI_JOB_NAME", format!("grade {k}/4")),
                ("CI_NODE_INDEX", k.to_string()),
                ("CI_NODE_TOTAL", "4".into()),
            ])
        },
        |line, _| line.to_string(),
    );
    assert_eq!(
        &untimed(read_json(&c.path().join("class.json")), c.path()),
        one_machine()
    );
    assert_eq!(
        shard_of(c.path(), "slice-4.json").2,
        "GitLab parallel: CI_NODE_INDEX=4, CI_NODE_TOTAL=4"
    );
    // One JUnit file per student for GitLab's test report.
    let junit =
        std::fs::read_to_string(c.path().join("junit/lab3-mutant-no-double-step.xml")).unwrap();
    assert_eq!(junit.matches("<failure").count(), 3);
}

#[test]
fn github_matrix_recipe_merges_into_the_one_machine_report() {
    let (_, workflow) = recipe("github");
    assert!(workflow.contains("shard: [1, 2, 3, 4]"), "{workflow}");
    // A matrix job sets no shard variable; Actions expands the expression.
    let c = run_recipe(
        "github",
        4,
        |_| vars(&[("CI", "true".into()), ("GITHUB_ACTIONS", "true".into())]),
        |line, k| line.replace("${{ matrix.shard }}", &k.to_string()),
    );
    assert_eq!(
        &untimed(read_json(&c.path().join("class.json")), c.path()),
        one_machine()
    );
    assert_eq!(shard_of(c.path(), "slice-2.json").2, "--shard");
}

// ---------------------------------------------------------------------
// Refusals, on classes of empty folders (each member is "not
// recognised" without a build).
// ---------------------------------------------------------------------

/// A course whose class is folders with no upload, named `names`.
fn empty_class(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for n in names {
        std::fs::create_dir_all(dir.path().join("uploads").join(n)).unwrap();
    }
    copy_dir(
        &root().join("scenarios/lab3/pawns"),
        &dir.path().join("scenarios/lab3/pawns"),
    );
    std::os::unix::fs::symlink(root().join("snapshots"), dir.path().join("snapshots")).unwrap();
    dir
}

/// Grades shard `k`/`n` of the course's class into `file` (extra args
/// after the scenarios).
fn slice(dir: &Path, k: usize, n: usize, file: &str, extra: &[&str]) -> Output {
    let shard = format!("{k}/{n}");
    let mut args = vec![
        "grade",
        "--class",
        "uploads",
        "scenarios/lab3",
        "--shard",
        &shard,
        "-q",
        "--format",
        "json",
        "--output",
        file,
    ];
    args.extend_from_slice(extra);
    chessgrade(dir, &args, &[])
}

fn merge(dir: &Path, files: &[&str]) -> Output {
    let mut args = vec!["merge", "--format", "json"];
    args.extend_from_slice(files);
    chessgrade(dir, &args, &[])
}

#[test]
fn an_empty_shard_writes_its_slice_and_the_merge_needs_it() {
    let c = empty_class(&["amy", "bo"]);
    let d = c.path();
    let outs: Vec<Output> = (1..=3)
        .map(|k| slice(d, k, 3, &format!("s{k}.json"), &[]))
        .collect();
    // Two students in one shard each, none left for the third (exit 0:
    // no one lost a point there).
    let codes: Vec<Option<i32>> = outs.iter().map(|o| o.status.code()).collect();
    assert_eq!(
        codes,
        [Some(1), Some(1), Some(0)],
        "{}",
        text(&outs[2].stderr)
    );
    let lines: Vec<String> = text(&outs[2].stdout)
        .lines()
        .take(2)
        .map(String::from)
        .collect();
    assert_eq!(lines[1], "shard from --shard");
    assert_eq!(
        lines[0],
        "grading shard 3/3: 0 of 2 Lab 3 submissions in uploads on 9 scenarios"
    );
    assert_eq!(shard_of(d, "s3.json"), (3, 3, "--shard".into(), 0));
    let out = merge(d, &["s1.json", "s2.json", "s3.json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let merged: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = merged["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["subject"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["amy", "bo"]);
    let out = merge(d, &["s1.json", "s2.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: cannot merge: missing shards: shard 3/3\n"
    );
}

#[test]
fn duplicate_and_foreign_slices_and_mixed_kinds_are_refused() {
    let c = empty_class(&["amy", "bo", "cy"]);
    let d = c.path();
    for k in 1..=2 {
        let out = slice(d, k, 2, &format!("s{k}.json"), &[]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    }
    std::fs::copy(d.join("s2.json"), d.join("again.json")).unwrap();
    let out = merge(d, &["s1.json", "s2.json", "again.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: cannot merge: duplicate shards: shard 2/2 in s2.json and again.json\n"
    );
    // Another class: one more student in the folder when shard 2 listed it.
    std::fs::create_dir(d.join("uploads/dee")).unwrap();
    let out = slice(d, 2, 2, "late.json", &[]);
    assert_eq!(out.status.code(), Some(1));
    let out = merge(d, &["s1.json", "late.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: cannot merge: s1.json and late.json are slices of different classes (their member lists differ: was the class folder the same on every machine?)\n"
    );
    std::fs::remove_dir(d.join("uploads/dee")).unwrap();
    // Other scenarios: a shard graded on a filtered selection.
    let out = slice(d, 2, 2, "pawns.json", &["--filter", "captures"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let out = merge(d, &["s1.json", "pawns.json"]);
    assert_eq!(
        text(&out.stderr),
        "error: cannot merge: s1.json and pawns.json graded the class on different scenarios\n"
    );
    // One subject's report among class slices.
    std::fs::write(
        d.join("one.json"),
        r#"{"chessgrade_report": 1, "subject": "x", "partition": null, "elapsed_secs": 0, "notes": [], "scenarios": []}"#,
    )
    .unwrap();
    let out = merge(d, &["s1.json", "one.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "error: cannot merge: s1.json is a class report and one.json one subject's; merge one kind\n"
    );
    // A per-student format needs --output-dir.
    let out = chessgrade(
        d,
        &["merge", "s1.json", "s2.json", "--format", "junit"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("with --output-dir"));
}

#[test]
fn engine_variables_that_make_no_shard_are_one_staff_error() {
    let c = empty_class(&["amy", "bo"]);
    // (engine variables, extra flags, the one message)
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str], &'a str);
    let cases: [Case; 4] = [
        (
            &[("CI_NODE_INDEX", "5"), ("CI_NODE_TOTAL", "4")],
            &[],
            "error: cannot tell which shard to grade: CI_NODE_INDEX=5, CI_NODE_TOTAL=4: that is not a shard K/N with 1 <= K <= N (K=5, N=4)\n",
        ),
        (
            &[("JOB_COMPLETION_INDEX", "0")],
            &[],
            "error: cannot tell which shard to grade: JOB_COMPLETION_INDEX is set but --shard-count (or CHESSGRADE_SHARD_COUNT, the Job's completions) is not\n",
        ),
        (
            &[("SLURM_ARRAY_TASK_ID", "x")],
            &[],
            "error: cannot tell which shard to grade: SLURM_ARRAY_TASK_ID=x is not a whole number\n",
        ),
        (
            &[],
            &["--shard-count", "4"],
            "error: cannot tell which shard to grade: --shard-count is the completions count of a Kubernetes Indexed Job, but JOB_COMPLETION_INDEX is not set (use --shard K/N elsewhere)\n",
        ),
    ];
    for (env, extra, expected) in cases {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut args = vec!["grade", "--class", "uploads", "scenarios/lab3", "-q"];
        args.extend_from_slice(extra);
        let out = chessgrade(c.path(), &args, &env);
        assert_eq!(out.status.code(), Some(2), "{env:?}");
        assert_eq!(text(&out.stderr), expected);
    }
    // --shard 1/1 grades the whole class whatever the engine says.
    let out = chessgrade(
        c.path(),
        &[
            "grade",
            "--class",
            "uploads",
            "scenarios/lab3",
            "-q",
            "--shard",
            "1/1",
        ],
        &vars(&[("CI_NODE_INDEX", "2".into()), ("CI_NODE_TOTAL", "2".into())]),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("grading shard 1/1: 2 of 2 Lab 3"));
    // A bad --shard is clap's usage error.
    let out = chessgrade(
        c.path(),
        &["grade", "--class", "uploads", "--shard", "5/4"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("a shard is K/N with 1 <= K <= N"));
}

/// Keeps the helper lists in step with the library's.
#[test]
fn the_cleared_variables_are_the_ones_read() {
    let mut ours: Vec<&str> = ENGINE_VARIABLES.to_vec();
    let mut theirs: Vec<&str> = chessgrade::class::shard::VARIABLES.to_vec();
    ours.sort_unstable();
    theirs.sort_unstable();
    assert_eq!(ours, theirs);
}
