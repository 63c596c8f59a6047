//! Every command in README.md and docs/*.md that grades is run by a test on
//! the fixtures and gives the score it should; so is every command that
//! packages an autograder (`chessgrade package`), whose zip is then run.
//!
//! The commands are found mechanically: every line of a fenced block that
//! calls `chessgrade grade` or `chessgrade package` (after a `$ ` prompt, as a YAML `- ` item or
//! `run:` step, or plain; lines continued with `\`, or a YAML step's more
//! indented lines, joined). [`PLANS`] says what happens to each: run by a
//! test of this module, rerun by `readme.rs` (a `$` excerpt it reruns
//! line by line), run by `shards.rs` (a block marked `<!-- recipe: -->`),
//! or skipped with a reason. A command added to the docs, or changed, that
//! is in none of these fails [`every_grading_command_in_the_docs_is_planned`].
//!
//! Each command runs as written, through `bash -c`, in a course folder laid
//! out as the docs assume (`course/` below a temporary folder, `chessgrade`
//! first on the PATH):
//!
//! - `scenarios/`, `snapshots/`, `tests/`, `src/`, `adapters/`: links to the
//!   project's, or for a command about a flag rather than the full set, a
//!   copy of a few small scenario folders (named in each test);
//! - `../shared`: a link to the project's `../shared`;
//! - `target/tmp/`: a link to the test target's temporary folder, where
//!   `helpers::console_program` builds the console fixtures once per run;
//! - each placeholder path a fixture, copied there: `path/to/student42`,
//!   `student42/`, `submission/`, `path/to/team7`, `cuhk7/`, `./chess`,
//!   `path/to/engine.py`, `class/`, `uploads/` (a class of fixtures),
//!   `staff/jhu-overlay` (the seven starter files, as docs/jhu.md's
//!   `$OVERLAY`), `staff/jhu-scenarios`, `staff/cuhk-scenarios`;
//! - what an excerpt sets up itself (`OVERLAY=$(mktemp -d)` and its
//!   `for` loop, `mkdir jhu-class && cp ...`, `sed ... > tolerant.json`) is
//!   run from the doc's own lines, in the same shell (`TMPDIR` is inside
//!   the temporary folder).
//!
//! The Gradescope `run_autograder` script runs whole, with one documented
//! substitution: `/autograder/` becomes `<tmp>/autograder/` (laid out as on
//! Gradescope: `source/` with the binary, `scenarios/` and `snapshots/`,
//! `submission/`, `results/`). The packaged `run_autograder`, PrairieLearn's
//! entrypoint and the Classroom workflow's grading step read their root
//! from a variable instead (`AUTOGRADER_ROOT`, `PL_GRADE_ROOT`,
//! `RUNNER_TEMP` and `GITHUB_OUTPUT`), set to a temporary folder laid out
//! as the platform lays it out.
//!
//! A command written after a `$` prompt is also checked against the output
//! the doc shows under it, as `readme.rs` checks the excerpts it reruns
//! (`...` skips lines, `/.../` stands for a path, times are ignored).
//!
//! The expected scores are reviewed by hand from what each fixture is, never
//! taken from a run: a correct upload gets every point of its course's
//! scenarios; a mutant loses exactly the scenarios its bug touches (the
//! reasoning is beside each expectation; `EXPECT` files and
//! `tests/fixtures/*/README.md` say which scenarios each bug touches).

use crate::helpers::{
    console_fixture, console_program, copy_dir, design004_upload, root, submission,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

// ---------------------------------------------------------------------
// Finding the commands.
// ---------------------------------------------------------------------

/// One logical shell line of a fenced block of a doc.
#[derive(Clone, Debug)]
struct DocLine {
    doc: String,
    /// 1-based line where it starts.
    line: usize,
    /// As the shell gets it: prompt, YAML `- ` and `run: ` removed,
    /// continued lines joined, a trailing `  # comment` dropped.
    text: String,
    /// Written after a `$ ` prompt.
    prompt: bool,
    /// In a block marked `<!-- recipe: NAME -->` (run by `shards.rs`).
    recipe: bool,
    /// Which fenced block of the doc (counted from 0).
    block: usize,
}

/// README.md and docs/*.md, in that order.
fn docs() -> Vec<String> {
    let mut docs = crate::helpers::book_chapters();
    docs.insert(0, "README.md".to_string());
    docs
}

/// Every logical line of `doc`'s fenced blocks.
fn block_lines(doc: &str) -> Vec<DocLine> {
    let text = std::fs::read_to_string(root().join(doc)).unwrap();
    shell_lines(doc, &text)
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn shell_lines(doc: &str, text: &str) -> Vec<DocLine> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let (mut in_block, mut recipe, mut marked) = (false, false, false);
    let mut block = 0;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim_start();
        i += 1;
        if t.starts_with("```") {
            block += usize::from(in_block);
            in_block = !in_block;
            recipe = in_block && marked;
            marked = false;
            continue;
        }
        if !in_block {
            if t.starts_with("<!-- recipe:") {
                marked = true;
            } else if !t.is_empty() {
                marked = false;
            }
            continue;
        }
        let start = i;
        let (prompt, body) = match t.strip_prefix("$ ") {
            Some(b) => (true, b),
            None => (false, t),
        };
        let item = body.strip_prefix("- ");
        let body = item.unwrap_or(body);
        let step = body.strip_prefix("run: ");
        let yaml = item.is_some() || step.is_some();
        let mut cmd = step.unwrap_or(body).trim_end().to_string();
        while let Some(next) = lines.get(i) {
            let n = next.trim_start();
            if cmd.ends_with('\\') {
                cmd.pop();
            } else if !(yaml
                && indent(next) > indent(line)
                && !n.is_empty()
                && !n.starts_with("- ")
                && !n.starts_with("```"))
            {
                break;
            }
            cmd = format!("{} {}", cmd.trim_end(), n.trim_end());
            i += 1;
        }
        if let Some(at) = cmd.find("  #") {
            cmd.truncate(at);
        }
        out.push(DocLine {
            doc: doc.to_string(),
            line: start,
            text: cmd.trim_end().to_string(),
            prompt,
            recipe,
            block,
        });
    }
    out
}

/// Whether a shell line runs `chessgrade grade`.
fn grades(text: &str) -> bool {
    text.match_indices("chessgrade grade ")
        .any(|(at, _)| at == 0 || text[..at].ends_with([' ', '/', '(', '`', '"', '\'']))
}

/// Whether a shell line runs `chessgrade package`.
fn packages(text: &str) -> bool {
    text.starts_with("chessgrade package ")
}

/// Every grading (or packaging) command of the docs.
fn grading_commands() -> Vec<DocLine> {
    docs()
        .iter()
        .flat_map(|d| block_lines(d))
        .filter(|l| grades(&l.text) || packages(&l.text))
        .collect()
}

// ---------------------------------------------------------------------
// What happens to each.
// ---------------------------------------------------------------------

enum Plan {
    /// Run and scored by the test of this module named here.
    Test(&'static str),
    /// A `$` excerpt (README or book) that `readme.rs` reruns, checking its
    /// lines (the result lines and summary with their points included).
    Readme,
    /// A recipe of docs/grading.md that `shards.rs` runs, comparing the
    /// merged class report with a one-machine run whose points it checks.
    Shards,
    /// Not run: why.
    Skip(&'static str),
}

const README: &str = "README.md";
const DEBUGGING: &str = "docs/debugging.md";
const SUBMISSIONS: &str = "docs/submissions.md";
const CLASS: &str = "docs/class.md";
const MEMCHECK: &str = "docs/memcheck.md";
const JHU: &str = "docs/jhu.md";
const CUHK: &str = "docs/cuhk.md";
const GRADING: &str = "docs/grading.md";
const CONSOLE: &str = "docs/console.md";
const PERFORMANCE: &str = "docs/performance.md";
const COURSE_CLASSES: &str = "docs/course-classes.md";

/// Every grading command of the docs, by (doc, text).
const PLANS: &[(&str, &str, Plan)] = &[
    (
        "docs/course-rules.md",
        "chessgrade grade --class class/ scenarios/lab3/pawns -q",
        Plan::Skip(
            "rules::the_chapter_s_rule_change_runs_as_it_shows runs the chapter's whole walkthrough, this class of last term's fixtures under the course's new rules included, and checks the lines it shows",
        ),
    ),
    (
        README,
        "chessgrade package gradescope scenarios/lab3 -o autograder.zip",
        Plan::Test("gradescope_package_end_to_end"),
    ),
    (
        README,
        "chessgrade grade --submission student42/ scenarios/lab3/pawns --format prairielearn",
        Plan::Test("prairielearn_format_and_entrypoint_end_to_end"),
    ),
    (
        README,
        "chessgrade grade --submission student42/ scenarios/lab3/pawns --format classroom | sed 's/^result=//' | base64 -d | cut -c1-92",
        Plan::Test("classroom_format_and_workflow_end_to_end"),
    ),
    (
        README,
        "chessgrade grade --submission tests/fixtures/submissions/lab3-mutant-no-double-step scenarios/lab3/pawns/double_step_from_start_rows.txt",
        Plan::Readme,
    ),
    (
        README,
        "chessgrade grade --class class/ --filter lab3/pawns -q --format html --output class.html --output-dir reports/",
        Plan::Test("readme_lab3_class_whole_and_in_two_shards"),
    ),
    (
        GRADING,
        "chessgrade grade --class canvas/ scenarios/lab3/pawns -q",
        Plan::Skip(
            "uploads::an_lms_download_of_zips_and_loose_files_is_graded_whole_and_a_hostile_zip_refused_alone \
             grades such a Canvas download (and a Moodle folder) and checks every score and the refusal",
        ),
    ),
    (
        GRADING,
        "chessgrade grade --submission student-mac/ scenarios/lab3/bishops",
        Plan::Skip(
            "uploads::a_lab3_upload_from_a_macos_zip_grades_like_the_clean_one_alone_and_in_a_class \
             makes this upload from lab3-correct and checks its score and every note shown",
        ),
    ),
    (
        GRADING,
        "chessgrade grade --submission student-vs/ scenarios/cuhk/console",
        Plan::Skip(
            "uploads::a_visual_studio_cuhk_project_builds_as_the_students_ide_did_and_strict_case_refuses_it \
             makes this upload from cuhk-correct and checks its scores and notes",
        ),
    ),
    (
        GRADING,
        "chessgrade grade --submission student-vs/ scenarios/cuhk/console --strict-case",
        Plan::Skip(
            "uploads::a_visual_studio_cuhk_project_builds_as_the_students_ide_did_and_strict_case_refuses_it \
             grades it with --strict-case and checks the compile error's words",
        ),
    ),
    (
        CLASS,
        "chessgrade grade --class class/ --filter lab3/pawns -q --format json --output class.json",
        Plan::Skip(
            "the regrade of the README's class (graded by readme_lab3_class_whole_and_in_two_shards): \
             build_cache::a_regrade_after_a_snapshot_or_scenario_change_rebuilds_nothing grades a \
             class twice so and checks the scores and that nothing was compiled",
        ),
    ),
    (
        GRADING,
        "chessgrade grade --class uploads/ scenarios/lab3 --format json --output class.json",
        Plan::Skip(
            "first run and regrade: build_cache::a_regrade_after_a_snapshot_or_scenario_change_rebuilds_nothing \
             runs them on a class of fixtures and checks the scores",
        ),
    ),
    (
        GRADING,
        "chessgrade grade --class uploads/ scenarios/lab3 --shard 2/4 --build-cache /srv/course/build-cache ...",
        Plan::Skip(
            "`...` for the shard recipe's flags; build_cache::two_graders_sharing_a_cache_at_once_leave_it_whole \
             runs two graders on one --build-cache folder",
        ),
    ),
    (
        GRADING,
        "chessgrade grade --class uploads/ scenarios/lab3 --no-build-cache",
        Plan::Skip(
            "build_cache::no_build_cache_neither_reads_nor_writes_uploads_builds runs it on a class of \
             fixtures and checks the scores",
        ),
    ),
    (
        MEMCHECK,
        "chessgrade grade --submission tests/fixtures/submissions/lab3-use-after-free ../shared/lab3-course/configs --root ../shared/lab3-course/configs --snapshots ../shared/lab3-course/expected --filter part2_8x8_1.txt --memcheck",
        Plan::Readme,
    ),
    (
        MEMCHECK,
        "chessgrade grade --submission tests/fixtures/submissions/lab3-leak ../shared/lab3-course/configs --root ../shared/lab3-course/configs --snapshots ../shared/lab3-course/expected --filter part2_8x8_1.txt --memcheck=valgrind --leak-points 2",
        Plan::Readme,
    ),
    (
        DEBUGGING,
        "chessgrade grade --submission tests/fixtures/submissions/lab3-mutant-no-double-step scenarios/lab3/pawns/double_step_from_start_rows.txt",
        Plan::Readme,
    ),
    (
        SUBMISSIONS,
        "chessgrade grade --submission tests/fixtures/submissions/lab3-mutant-no-king-safety ../shared/lab3-course/configs --root ../shared/lab3-course/configs --snapshots ../shared/lab3-course/expected --filter part3_4x4_2__757b8fc1",
        Plan::Readme,
    ),
    (
        GRADING,
        "chessgrade grade --submission tests/fixtures/submissions/lab3-mutant-no-double-step ../shared/lab3-course/configs --root ../shared/lab3-course/configs --snapshots course-snapshots",
        Plan::Skip(
            "reference::recorded_from_the_correct_lab3_upload_the_snapshots_are_the_courses_answers \
             records course-snapshots/ from lab3-correct as docs/grading.md does, then runs this command \
             (the mutant as its engine built once per run) and checks the 39 configs its EXPECT lists",
        ),
    ),
    (
        SUBMISSIONS,
        "chessgrade grade --submission student42/ ../shared/lab3-course/configs --root ../shared/lab3-course/configs --snapshots ../shared/lab3-course/expected",
        Plan::Test("readme_student42_on_the_course_corpus"),
    ),
    (
        CLASS,
        "chessgrade grade --class class/ --filter lab3/pawns -q --format html --output class.html --output-dir reports/",
        Plan::Test("readme_lab3_class_whole_and_in_two_shards"),
    ),
    (
        CLASS,
        "chessgrade grade --class class/ --filter lab3/pawns -q --shard 1/2 --format json --output slice-1.json",
        Plan::Test("readme_lab3_class_whole_and_in_two_shards"),
    ),
    (
        CLASS,
        "CI_NODE_INDEX=2 CI_NODE_TOTAL=2 chessgrade grade --class class/ --filter lab3/pawns -q --format json --output slice-2.json",
        Plan::Test("readme_lab3_class_whole_and_in_two_shards"),
    ),
    (
        JHU,
        "chessgrade grade --submission tests/fixtures/console/jhu-correct --overlay \"$OVERLAY\" scenarios/jhu",
        Plan::Test("readme_jhu_correct_on_every_jhu_scenario"),
    ),
    (
        JHU,
        "chessgrade grade --submission tests/fixtures/console/jhu-mutant-wrong-message --overlay \"$OVERLAY\" scenarios/jhu/refusals | head -33",
        Plan::Test("readme_jhu_mutants_fail_where_their_bug_is"),
    ),
    (
        JHU,
        "chessgrade grade --submission tests/fixtures/console/jhu-loop-at-eof --overlay \"$OVERLAY\" scenarios/jhu/save | head -13",
        Plan::Test("readme_jhu_mutants_fail_where_their_bug_is"),
    ),
    (
        JHU,
        "chessgrade grade --class jhu-class/ --overlay \"$OVERLAY\" scenarios/jhu/{check,console,mates,promotion,refusals,save,score,special-moves} -q --output-dir reports/",
        Plan::Test("readme_jhu_class"),
    ),
    (
        JHU,
        "chessgrade grade --submission tests/fixtures/console/jhu-other-term-piece-h --overlay \"$OVERLAY\" scenarios/jhu/console",
        Plan::Test("readme_jhu_upload_of_another_term_on_the_overlay"),
    ),
    (
        CUHK,
        "chessgrade grade --submission tests/fixtures/console/cuhk-correct scenarios/cuhk/{console,game-over,notation} tests/fixtures/console-scripts/cuhk-machine",
        Plan::Test("readme_cuhk_correct_and_wrong_winner"),
    ),
    (
        CUHK,
        "chessgrade grade --submission tests/fixtures/console/cuhk-mutant-wrong-winner scenarios/cuhk/game-over tests/fixtures/console-scripts/cuhk-machine | grep -v \"^ *[0-9-]\\|   A   B\"",
        Plan::Test("readme_cuhk_correct_and_wrong_winner"),
    ),
    (
        CUHK,
        "chessgrade grade --submission tests/fixtures/console/cuhk-mutant-trailing-space scenarios/cuhk/console | tail -1",
        Plan::Test("readme_cuhk_trailing_space_strict_and_tolerated"),
    ),
    (
        CUHK,
        "chessgrade grade --submission tests/fixtures/console/cuhk-mutant-trailing-space scenarios/cuhk/console --console-texts tolerant.json | tail -1",
        Plan::Test("readme_cuhk_trailing_space_strict_and_tolerated"),
    ),
    (
        CUHK,
        "chessgrade grade --submission cuhk7/ scenarios/cuhk/stop",
        Plan::Test("readme_cuhk_setup_that_is_not_the_start_is_a_staff_error"),
    ),
    (
        GRADING,
        "chessgrade grade --submission path/to/student42 scenarios/lab3",
        Plan::Test("grading_one_lab3_upload"),
    ),
    (
        GRADING,
        "chessgrade grade scenarios/ --engine \"python3 path/to/engine.py\"",
        Plan::Test("grading_an_engine_in_any_language"),
    ),
    (
        GRADING,
        "chessgrade grade scenarios/ --format json --output r.json --engine -- python3 path/to/engine.py",
        Plan::Test("grading_an_engine_in_any_language"),
    ),
    (
        GRADING,
        "chessgrade grade --submission path/to/team7 --overlay staff/jhu-overlay scenarios/jhu/console",
        Plan::Test("grading_one_console_upload_and_a_built_program"),
    ),
    (
        GRADING,
        "chessgrade grade --program ./chess scenarios/jhu/console",
        Plan::Test("grading_one_console_upload_and_a_built_program"),
    ),
    (
        GRADING,
        "./chessgrade grade --submission /autograder/submission scenarios/lab3 --format gradescope --output /autograder/results/results.json",
        Plan::Test("gradescope_run_autograder_end_to_end"),
    ),
    (
        GRADING,
        "chessgrade package gradescope scenarios/lab3 -o autograder.zip",
        Plan::Test("gradescope_package_end_to_end"),
    ),
    (
        GRADING,
        "run_autograder runs: ./chessgrade grade --submission \"$ROOT/submission\" scenarios --root scenarios --snapshots snapshots --format gradescope --output \"$ROOT/results/results.json\"",
        Plan::Skip(
            "a line of the output of the `chessgrade package` excerpt (the command the packaged \
             run_autograder runs), not a command: gradescope_package_end_to_end runs it from the zip",
        ),
    ),
    (
        GRADING,
        "chessgrade grade --submission student42/ scenarios/lab3/pawns --format prairielearn",
        Plan::Test("prairielearn_format_and_entrypoint_end_to_end"),
    ),
    (
        GRADING,
        "chessgrade grade --submission \"$ROOT/student\" scenarios --root scenarios --snapshots snapshots --format prairielearn --output \"$ROOT/results/results.json\" || [ $? -eq 1 ]",
        Plan::Test("prairielearn_format_and_entrypoint_end_to_end"),
    ),
    (
        GRADING,
        "chessgrade grade --submission student42/ scenarios/lab3/pawns --format classroom | cut -c1-72",
        Plan::Test("classroom_format_and_workflow_end_to_end"),
    ),
    (
        GRADING,
        "chessgrade grade --submission student42/ scenarios/lab3/pawns --format classroom | sed 's/^result=//' | base64 -d | cut -c1-92",
        Plan::Test("classroom_format_and_workflow_end_to_end"),
    ),
    (
        GRADING,
        "name: chessgrade id: chessgrade run: chessgrade grade --submission submission/ \"$RUNNER_TEMP/course/scenarios/lab3\" --root \"$RUNNER_TEMP/course/scenarios\" --snapshots \"$RUNNER_TEMP/course/snapshots\" --format classroom >> \"$GITHUB_OUTPUT\" || [ $? -eq 1 ]",
        Plan::Test("classroom_format_and_workflow_end_to_end"),
    ),
    (
        GRADING,
        "chessgrade grade --submission submission/ scenarios/lab3 --partition slice:${{ matrix.slice }}/4 --format json --output report-${{ matrix.slice }}.json || [ $? -eq 1 ]",
        Plan::Test("grading_ci_matrix_of_slices_merged"),
    ),
    (
        GRADING,
        "chessgrade grade --class uploads/ scenarios/lab3 --format json --output class.json --output-dir reports/",
        Plan::Test("grading_lab3_class"),
    ),
    (
        GRADING,
        "chessgrade grade --class uploads/ --overlay staff/jhu-overlay staff/jhu-scenarios --output-dir reports/",
        Plan::Test("grading_jhu_class"),
    ),
    (
        GRADING,
        "chessgrade grade --class uploads/ staff/cuhk-scenarios --format junit --output-dir reports/",
        Plan::Test("grading_cuhk_class"),
    ),
    (
        GRADING,
        "chessgrade grade --class uploads/ scenarios/lab3 --jobs \"$SLURM_CPUS_PER_TASK\" -q --format json --output \"slice-$SLURM_ARRAY_TASK_ID.json\" || [ $? -eq 1 ]",
        Plan::Shards,
    ),
    (
        GRADING,
        "chessgrade grade --class uploads/ scenarios/lab3 --shard-count 4 -q --format json --output slice-$JOB_COMPLETION_INDEX.json || [ $? -eq 1 ]",
        Plan::Shards,
    ),
    (
        GRADING,
        "chessgrade grade --class uploads/ scenarios/lab3 -q --format json --output slice-$CI_NODE_INDEX.json || [ $? -eq 1 ]",
        Plan::Shards,
    ),
    (
        GRADING,
        "chessgrade grade --class uploads/ scenarios/lab3 --shard ${{ matrix.shard }}/4 -q --format json --output slice-${{ matrix.shard }}.json || [ $? -eq 1 ]",
        Plan::Shards,
    ),
    (
        CONSOLE,
        "chessgrade grade --program target/tmp/console-fixtures/cuhk-machine-illegal/chess tests/fixtures/console-scripts/cuhk-machine/mode3_machines_play_to_a_kings_capture.txt | head -10",
        Plan::Test("console_doc_programs_built_by_the_tests"),
    ),
    (
        CONSOLE,
        "chessgrade grade --program target/tmp/console-fixtures/cuhk-mutant-king-queen-swapped/chess scenarios/cuhk/console",
        Plan::Test("console_doc_programs_built_by_the_tests"),
    ),
    (
        COURSE_CLASSES,
        "chessgrade grade --submission tests/fixtures/submissions/design004-correct --adapter adapters/design004/hooks.cc scenarios/design004",
        Plan::Readme,
    ),
    (
        COURSE_CLASSES,
        "chessgrade grade --submission target/tmp/design004-mutants/castle-undo-leaves-rook --adapter adapters/design004/hooks.cc scenarios/design004/history-undo-castle-puts-king-and-rook-back",
        Plan::Test("course_classes_mutant_made_by_the_tests"),
    ),
    (
        COURSE_CLASSES,
        "chessgrade grade --submission tests/fixtures/submissions/design004-correct --adapter adapters/design004/hooks.cc scenarios/lab3/pawns/double_step_from_start_rows.txt",
        Plan::Readme,
    ),
    (
        COURSE_CLASSES,
        "chessgrade package gradescope scenarios/design004 --adapter adapters/design004/hooks.cc -o autograder.zip",
        Plan::Test("course_classes_packaged_for_gradescope"),
    ),
    (
        COURSE_CLASSES,
        "run_autograder runs: ./chessgrade grade --submission \"$ROOT/submission\" scenarios --root scenarios --snapshots snapshots --adapter adapter/hooks.cc --format gradescope --output \"$ROOT/results/results.json\"",
        Plan::Skip(
            "a line of the output of the `chessgrade package` excerpt, not a command: \
             course_classes_packaged_for_gradescope runs it from the zip",
        ),
    ),
    (
        PERFORMANCE,
        "strace -f -c chessgrade grade $C --root $C --snapshots $E --jobs 1 --engine ./engine",
        Plan::Skip(
            "a profiling recipe: `$C`, `$E` and `./engine` are the course corpus and the \
             fixture built with the adapter by hand; grading that corpus with --engine is \
             what benches/grade.rs times, and its points are checked by course_corpus.rs",
        ),
    ),
    (
        PERFORMANCE,
        "perf stat -e task-clock,context-switches,page-faults chessgrade grade $C ... --jobs 1 --engine ./engine",
        Plan::Skip("a profiling recipe with `...` for the arguments of the line above"),
    ),
    (
        PERFORMANCE,
        "perf record -g chessgrade grade $C ... ; perf report --sort comm,dso",
        Plan::Skip("a profiling recipe with `...` for the arguments of the line above"),
    ),
];

fn plan_of(cmd: &DocLine) -> Option<&'static Plan> {
    PLANS
        .iter()
        .find(|(doc, text, _)| *doc == cmd.doc && *text == cmd.text)
        .map(|(_, _, plan)| plan)
}

#[test]
fn every_grading_command_in_the_docs_is_planned() {
    let found = grading_commands();
    let mut problems = Vec::new();
    for cmd in &found {
        let where_ = format!("{}:{}: `{}`", cmd.doc, cmd.line, cmd.text);
        match plan_of(cmd) {
            None => problems.push(format!(
                "{where_}: not in PLANS of tests/it/docs_commands.rs: run it there with the \
                 score it should give, or skip it with a reason"
            )),
            Some(Plan::Readme) if !(cmd.prompt && crate::readme::rerunnable(&cmd.text)) => {
                problems.push(format!("{where_}: readme.rs does not rerun it"))
            }
            Some(Plan::Shards) if !cmd.recipe => {
                problems.push(format!("{where_}: not in a `<!-- recipe: -->` block"))
            }
            Some(Plan::Skip(why)) if why.trim().is_empty() => {
                problems.push(format!("{where_}: skipped without a reason"))
            }
            Some(Plan::Test(name)) if !SOURCE.contains(&format!("fn {name}() {{")) => {
                problems.push(format!("{where_}: no test `{name}` in docs_commands.rs"))
            }
            _ => {}
        }
    }
    for (doc, text, _) in PLANS {
        if !found.iter().any(|c| c.doc == *doc && c.text == *text) {
            problems.push(format!(
                "{doc}: `{text}`: planned, but no longer in the doc"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

const SOURCE: &str = include_str!("docs_commands.rs");

#[test]
fn the_extractor_joins_continued_lines_and_yaml_steps() {
    let doc = "\
text `chessgrade grade --not-in-a-block`
```
$ chessgrade grade --a \\
    --b
FAIL the output
chessgrade grade --c   # a comment
```
<!-- recipe: r -->
```yaml
    steps:
      - run: ./chessgrade grade --d
               --e
      - uses: x
```
";
    let lines: Vec<(usize, String, bool, bool)> = shell_lines("d.md", doc)
        .into_iter()
        .filter(|l| grades(&l.text))
        .map(|l| (l.line, l.text, l.prompt, l.recipe))
        .collect();
    assert_eq!(
        lines,
        [
            (3, "chessgrade grade --a --b".to_string(), true, false),
            (6, "chessgrade grade --c".to_string(), false, false),
            (11, "./chessgrade grade --d --e".to_string(), false, true),
        ]
    );
    assert!(!grades("chessgrade grader"));
    assert!(!grades("xchessgrade grade x"));
}

/// The one grading command of `doc` that starts with `start` (for a test
/// of another module that runs it; its plan says which).
pub(crate) fn grading_command(doc: &str, start: &str) -> String {
    let found: Vec<DocLine> = grading_commands()
        .into_iter()
        .filter(|c| c.doc == doc && c.text.starts_with(start))
        .collect();
    assert_eq!(found.len(), 1, "{doc}: `{start}...`: {found:?}");
    found[0].text.clone()
}

/// The grading command `text` of `doc`, checked to be there and planned
/// for a test of this module.
fn doc_command(doc: &str, text: &str) -> String {
    let found = grading_commands();
    let cmd = found
        .iter()
        .find(|c| c.doc == doc && c.text == text)
        .unwrap_or_else(|| panic!("{doc} has no grading command `{text}`"));
    assert!(matches!(plan_of(cmd), Some(Plan::Test(_))), "{text}");
    cmd.text.clone()
}

/// The output `doc` shows under the `$` line of its grading command `text`
/// (up to the next `$` line or the block's end); none for a command without
/// a prompt.
fn excerpt(doc: &str, text: &str) -> Option<Vec<String>> {
    let cmd = grading_commands()
        .into_iter()
        .find(|c| c.doc == doc && c.text == text)?;
    if !cmd.prompt {
        return None;
    }
    let raw = std::fs::read_to_string(root().join(doc)).unwrap();
    let raw: Vec<&str> = raw.lines().collect();
    let mut i = cmd.line - 1;
    while raw[i].trim_end().ends_with('\\') {
        i += 1;
    }
    Some(
        raw[i + 1..]
            .iter()
            .take_while(|l| !l.starts_with("$ ") && !l.trim_start().starts_with("```"))
            .map(|l| l.to_string())
            .collect(),
    )
}

/// Checks what a `$` command printed against the doc's excerpt under it,
/// as `readme.rs` does for the excerpts it reruns (`...` skips lines,
/// `/.../` stands for a path, times are ignored).
fn check_excerpt(doc: &str, text: &str, printed: &str) {
    let Some(expected) = excerpt(doc, text) else {
        return;
    };
    let actual = crate::readme::actual_lines(printed);
    if let Err(why) = crate::readme::matches(&expected, &actual) {
        panic!(
            "{doc}: `$ {text}`: the excerpt is not what it prints: {why}\n--- printed:\n{printed}"
        );
    }
}

/// The one `$` line of `doc` (not a grading one) that starts with `start`:
/// what an excerpt sets up before its commands.
fn doc_setup(doc: &str, start: &str) -> String {
    let lines: Vec<DocLine> = block_lines(doc)
        .into_iter()
        .filter(|l| l.prompt && l.text.starts_with(start))
        .collect();
    assert_eq!(lines.len(), 1, "{doc}: `$ {start}...`: {lines:?}");
    lines[0].text.clone()
}

/// docs/jhu.md's own lines that assemble `$OVERLAY` from the JHU starter.
fn overlay_setup() -> String {
    format!(
        "{}\n{}\n",
        doc_setup(JHU, "OVERLAY="),
        doc_setup(JHU, "for f in Makefile Piece.h")
    )
}

// ---------------------------------------------------------------------
// The course folder.
// ---------------------------------------------------------------------

/// Every variable the shard detection reads: cleared, so a test run inside
/// a CI job is not sharded by its engine.
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

/// A course folder (see the module's doc).
pub(crate) struct Course {
    tmp: tempfile::TempDir,
}

impl Course {
    /// With the project's whole `scenarios/`.
    pub(crate) fn new() -> Course {
        Course::with_scenarios(&[])
    }

    /// With `scenarios/` holding copies of the project's `scenarios/<f>`
    /// for each `f` of `only` (all of them when empty).
    pub(crate) fn with_scenarios(only: &[&str]) -> Course {
        let tmp = tempfile::tempdir().unwrap();
        let course = tmp.path().join("course");
        std::fs::create_dir_all(course.join("target")).unwrap();
        std::fs::create_dir(tmp.path().join("tmp")).unwrap();
        let link = |from: &Path, to: &Path| std::os::unix::fs::symlink(from, to).unwrap();
        for d in ["snapshots", "tests", "src", "adapters"] {
            link(&root().join(d), &course.join(d));
        }
        if only.is_empty() {
            link(&root().join("scenarios"), &course.join("scenarios"));
        }
        let c = Course { tmp };
        for f in only {
            c.copy_scenarios(f, &format!("scenarios/{f}"));
        }
        link(
            Path::new(env!("CARGO_TARGET_TMPDIR")),
            &c.dir().join("target/tmp"),
        );
        link(&root().join("../shared"), &c.tmp.path().join("shared"));
        c
    }

    /// The course folder, where the commands run.
    pub(crate) fn dir(&self) -> PathBuf {
        self.tmp.path().join("course")
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.dir().join(rel)
    }

    /// Copies the project's `scenarios/<from>` (a folder, or one file) to
    /// `<course>/<to>`.
    fn copy_scenarios(&self, from: &str, to: &str) {
        let src = root().join("scenarios").join(from);
        let dest = self.path(to);
        if src.is_dir() {
            copy_dir(&src, &dest);
        } else {
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::copy(&src, &dest).unwrap();
        }
    }

    /// `snapshots/` as a copy of the project's, which the course's commands
    /// may then write in (instead of a link to the project's own).
    pub(crate) fn own_snapshots(&self) {
        let snapshots = self.path("snapshots");
        std::fs::remove_file(&snapshots).unwrap();
        copy_dir(&root().join("snapshots"), &snapshots);
    }

    /// Copies the upload `fixture` to `<course>/<to>`.
    fn upload(&self, fixture: &Path, to: &str) {
        copy_dir(fixture, &self.path(to));
    }

    /// The seven JHU starter files a student must not change, at `to` (the
    /// README's `$OVERLAY`).
    fn jhu_overlay(&self, to: &str) {
        copy_dir(crate::helpers::jhu_overlay(None).path(), &self.path(to));
    }

    /// `script` run by bash in the course folder.
    pub(crate) fn bash(&self, script: &str) -> Output {
        // The run's build cache, which every test shares: an upload another
        // test built is not built again (an excerpt comes from a first run;
        // the matcher takes `from the build cache` where it shows a compile
        // time, and drops a console build's cache note). But an excerpt cut
        // by `head` counts lines, and that note is one line more than a
        // first run prints: such a command gets a cache of its own.
        let cache = if script.contains("| head") {
            self.tmp.path().join("cache")
        } else {
            crate::helpers::cache_home()
        };
        let mut c = Command::new("bash");
        c.arg("-c").arg(script).current_dir(self.dir());
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![
            Path::new(crate::helpers::bin())
                .parent()
                .unwrap()
                .to_path_buf(),
        ];
        dirs.extend(std::env::split_paths(&path));
        c.env("PATH", std::env::join_paths(dirs).unwrap())
            .env("XDG_CACHE_HOME", cache)
            .env("TMPDIR", self.tmp.path().join("tmp"))
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .env("LANG", "C.UTF-8")
            .env_remove("LC_ALL")
            .env_remove("CLICOLOR_FORCE");
        for v in ENGINE_VARIABLES {
            c.env_remove(v);
        }
        c.output().expect("bash runs")
    }

    /// `script` run, its exit code wanted.
    pub(crate) fn run(&self, script: &str, code: i32) -> String {
        let out = self.bash(script);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(
            out.status.code(),
            Some(code),
            "`{script}`\n--- stdout:\n{text}\n--- stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    }

    /// The grading command `text` of `doc` run after `setup`, its exit
    /// code wanted, its output checked against the doc's excerpt.
    fn run_doc(&self, doc: &str, text: &str, setup: &str, code: i32) -> String {
        let out = self.run(&format!("{setup}{text}"), code);
        check_excerpt(doc, text, &out);
        out
    }

    pub(crate) fn json(&self, rel: &str) -> Value {
        let path = self.path(rel);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_str(&text).unwrap()
    }

    /// The names of the files in `<course>/<rel>`, sorted.
    fn files(&self, rel: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path(rel))
            .unwrap_or_else(|e| panic!("{rel}: {e}"))
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

// ---------------------------------------------------------------------
// Reading the results.
// ---------------------------------------------------------------------

/// (`PASS`/`FAIL`/`ERR`, points, scenario) of each result line of a human
/// report, e.g. `FAIL   0/1   jhu/save/save_after_a_few_moves.txt [0.2s]`.
fn results(out: &str) -> Vec<(String, String, String)> {
    out.lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let points = w.get(1)?.split_once('/')?;
            let numbers = points.0.parse::<u64>().is_ok() && points.1.parse::<u64>().is_ok();
            (["PASS", "FAIL", "ERR"].contains(&w[0]) && numbers && w.len() >= 3)
                .then(|| (w[0].to_string(), w[1].to_string(), w[2].to_string()))
        })
        .collect()
}

/// The `(passed, failed, points)` of a human report's last line, e.g.
/// `ok: 14 passed, 0 failed; points 14/14; 0.35s`.
fn summary(out: &str) -> (u64, u64, String) {
    let line = out
        .lines()
        .rfind(|l| l.starts_with("ok: ") || l.starts_with("FAILED: "))
        .unwrap_or_else(|| panic!("no summary line in:\n{out}"));
    let count = |what: &str| {
        let at = line.find(what).unwrap();
        line[..at]
            .rsplit([' ', ','])
            .find(|w| !w.is_empty())
            .unwrap()
            .parse()
            .unwrap()
    };
    let points = line.split("points ").nth(1).unwrap();
    let points = points.split(';').next().unwrap().to_string();
    (count(" passed"), count(" failed"), points)
}

/// The rows of a class table: (submission, points, failures by class).
fn class_table(out: &str) -> Vec<(String, String, String)> {
    out.lines()
        .skip_while(|l| !l.starts_with("submission "))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[0].to_string(), w[1].to_string(), w[4..].join(" "))
        })
        .collect()
}

fn rows(expected: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    expected
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

/// The scenarios of a JSON report (one subject) that did not pass.
fn failed(report: &Value) -> Vec<String> {
    let mut names: Vec<String> = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| s["status"] != "pass")
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// (subject, points earned, points possible, scenarios failed) of each
/// member of a class JSON report.
fn members(class: &Value) -> Vec<(String, u64, u64, Vec<String>)> {
    class["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .map(|m| {
            let s = m["scenarios"].as_array().unwrap();
            (
                m["subject"].as_str().unwrap().to_string(),
                s.iter().map(|x| x["earned"].as_u64().unwrap()).sum(),
                s.iter().map(|x| x["points"].as_u64().unwrap()).sum(),
                failed(m),
            )
        })
        .collect()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The lab3/pawns scenarios a pawn that never double-steps fails, by
/// reading them: `double_step_from_start_rows` (1 0 -> 3 0 and 4 4 -> 2 4
/// are expected), `double_step_only_from_own_start_row` (6 0 -> 4 0 and
/// 1 7 -> 3 7 in its scan), `start_row_depends_on_board_height` (8 0 -> 6 0
/// on 10 rows). The other six never need a double step to be accepted:
/// `double_step_target_occupied_is_refused` and
/// `blocked_straight_ahead_by_any_piece` only try refused ones, and the
/// pawns of the rest are off their start rows or blocked.
const NO_DOUBLE_STEP_FAILS_IN_PAWNS: [&str; 3] = [
    "lab3/pawns/double_step_from_start_rows.txt",
    "lab3/pawns/double_step_only_from_own_start_row.txt",
    "lab3/pawns/start_row_depends_on_board_height.txt",
];

// ---------------------------------------------------------------------
// The README and the chapters it grew into (docs/submissions.md,
// docs/class.md, docs/jhu.md, docs/cuhk.md): the tests keep their names.
// ---------------------------------------------------------------------

#[test]
fn readme_student42_on_the_course_corpus() {
    let Some(_) = crate::helpers::shared("lab3-course") else {
        return;
    };
    let cmd = doc_command(
        SUBMISSIONS,
        "chessgrade grade --submission student42/ ../shared/lab3-course/configs --root ../shared/lab3-course/configs --snapshots ../shared/lab3-course/expected",
    );
    let c = Course::new();
    let mutant = submission("lab3-mutant-no-double-step");
    c.upload(&mutant, "student42");
    let out = c.run(&cmd, 1);
    // The mutant's EXPECT lists the 39 configs whose course answers need a
    // double step; the 112 others pass. Each config is worth the points its
    // points line says (0 or 1 in the corpus).
    let expect = std::fs::read_to_string(mutant.join("EXPECT")).unwrap();
    let expect: Vec<&str> = expect.lines().collect();
    assert_eq!(expect.len(), 39);
    let configs = c.tmp.path().join("shared/lab3-course/configs");
    let (mut earned, mut possible) = (0, 0);
    for entry in std::fs::read_dir(&configs).unwrap() {
        let path = entry.unwrap().path();
        let points = points_line(&path);
        possible += points;
        let name = path.file_name().unwrap().to_str().unwrap();
        if !expect.contains(&name) {
            earned += points;
        }
    }
    let mut fails: Vec<String> = results(&out)
        .into_iter()
        .filter(|(s, _, _)| s != "PASS")
        .map(|(_, _, name)| name)
        .collect();
    fails.sort();
    assert_eq!(fails, expect, "{out}");
    assert_eq!(
        summary(&out),
        (112, 39, format!("{earned}/{possible}")),
        "{out}"
    );
}

/// The points line of a Lab 3 config: its first line that is not blank, a
/// `//` comment or an `@` directive.
fn points_line(path: &Path) -> u64 {
    let text = std::fs::read_to_string(path).unwrap();
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('@'))
        .unwrap();
    line.parse()
        .unwrap_or_else(|_| panic!("{}: `{line}`", path.display()))
}

/// The README's (and docs/class.md's) class: a correct upload, the no-double-step mutant, one
/// that does not compile and an empty folder, on the nine lab3/pawns
/// scenarios (`--filter lab3/pawns`).
fn readme_class(c: &Course) {
    for s in [
        "lab3-correct",
        "lab3-mutant-no-double-step",
        "hostile-compile-error",
    ] {
        c.upload(&submission(s), &format!("class/{s}"));
    }
    std::fs::create_dir_all(c.path("class/nothing-uploaded")).unwrap();
}

/// The class table of the README's (and docs/class.md's) class, reviewed by hand: nine pawns
/// scenarios worth a point each; the mutant fails
/// [`NO_DOUBLE_STEP_FAILS_IN_PAWNS`]; the upload that does not compile and
/// the empty folder fail all nine.
const README_CLASS: [(&str, &str, &str); 4] = [
    ("hostile-compile-error", "0/9", "compile_error 9"),
    ("lab3-correct", "9/9", ""),
    ("lab3-mutant-no-double-step", "6/9", "wrong_answer 3"),
    ("nothing-uploaded", "0/9", "not_recognised 9"),
];

#[test]
fn readme_lab3_class_whole_and_in_two_shards() {
    let whole = doc_command(
        CLASS,
        "chessgrade grade --class class/ --filter lab3/pawns -q --format html --output class.html --output-dir reports/",
    );
    let c = Course::new();
    readme_class(&c);
    let out = c.run_doc(CLASS, &whole, "", 1);
    // The README shows the same run, shortened.
    check_excerpt(README, &whole, &out);
    assert_eq!(class_table(&out), rows(&README_CLASS), "{out}");
    assert_eq!(
        c.files("reports"),
        strings(&[
            "hostile-compile-error.html",
            "lab3-correct.html",
            "lab3-mutant-no-double-step.html",
            "nothing-uploaded.html",
        ])
    );
    let html = std::fs::read_to_string(c.path("class.html")).unwrap();
    for (name, _, _) in README_CLASS {
        assert!(html.contains(name), "{name}");
    }

    // The same class in two shards, then merged.
    let first = doc_command(
        CLASS,
        "chessgrade grade --class class/ --filter lab3/pawns -q --shard 1/2 --format json --output slice-1.json",
    );
    let second = doc_command(
        CLASS,
        "CI_NODE_INDEX=2 CI_NODE_TOTAL=2 chessgrade grade --class class/ --filter lab3/pawns -q --format json --output slice-2.json",
    );
    c.run_doc(CLASS, &first, "", 1);
    c.run_doc(CLASS, &second, "", 1);
    let merged = c.run("chessgrade merge slice-1.json slice-2.json", 1);
    assert_eq!(class_table(&merged), rows(&README_CLASS), "{merged}");
    let mut sliced = Vec::new();
    for (k, slice) in ["slice-1.json", "slice-2.json"].iter().enumerate() {
        let v = c.json(slice);
        assert_eq!(v["shard"]["index"], k + 1);
        assert_eq!(v["shard"]["count"], 2);
        sliced.extend(members(&v));
    }
    sliced.sort();
    let mutant = sliced
        .iter()
        .find(|m| m.0 == "lab3-mutant-no-double-step")
        .unwrap();
    assert_eq!(mutant.3, strings(&NO_DOUBLE_STEP_FAILS_IN_PAWNS));
    let points: Vec<(&str, u64, u64)> = sliced.iter().map(|m| (m.0.as_str(), m.1, m.2)).collect();
    assert_eq!(
        points,
        [
            ("hostile-compile-error", 0, 9),
            ("lab3-correct", 9, 9),
            ("lab3-mutant-no-double-step", 6, 9),
            ("nothing-uploaded", 0, 9),
        ]
    );
}

/// Every bundled JHU scenario, each worth a point (`scenarios/jhu`).
const JHU_SCENARIOS: [&str; 14] = [
    "jhu/check/check_picture_and_its_three_answers.txt",
    "jhu/console/garbage_squares_as_the_program_reads_them.txt",
    "jhu/mates/checkmate_picture_ends_the_game.txt",
    "jhu/mates/queen_move_stalemates.txt",
    "jhu/mates/rook_ladder_mate_in_two.txt",
    "jhu/mates/stalemate_picture_ends_the_game.txt",
    "jhu/mystery/bishop_like_slider_blocked_pins_and_checks.txt",
    "jhu/mystery/camel_leaper_moves_captures_and_checks.txt",
    "jhu/promotion/pawns_become_queens.txt",
    "jhu/promotion/promotion_to_a_queen_mates.txt",
    "jhu/refusals/nine_messages_in_the_seeds_order.txt",
    "jhu/save/save_after_a_few_moves.txt",
    "jhu/score/shannon_values_after_captures.txt",
    "jhu/special-moves/no_castling_and_no_en_passant.txt",
];

#[test]
fn readme_jhu_correct_on_every_jhu_scenario() {
    let cmd = doc_command(
        JHU,
        "chessgrade grade --submission tests/fixtures/console/jhu-correct --overlay \"$OVERLAY\" scenarios/jhu",
    );
    let c = Course::new();
    let out = c.run_doc(JHU, &cmd, &overlay_setup(), 0);
    // The correct program passes all 14, the two Mystery ones built with
    // the graders' Mystery.h for their shapes.
    let passed: Vec<(String, String, String)> = JHU_SCENARIOS
        .iter()
        .map(|s| ("PASS".into(), "1/1".into(), s.to_string()))
        .collect();
    assert_eq!(results(&out), passed, "{out}");
    assert_eq!(summary(&out), (14, 0, "14/14".to_string()));
}

#[test]
fn readme_jhu_mutants_fail_where_their_bug_is() {
    let c = Course::new();
    // `path is blocked` for `path is not clear`: of jhu/refusals' one
    // scenario, its A1A3 refusal (tests/fixtures/console/README.md).
    let cmd = doc_command(
        JHU,
        "chessgrade grade --submission tests/fixtures/console/jhu-mutant-wrong-message --overlay \"$OVERLAY\" scenarios/jhu/refusals | head -33",
    );
    let out = c.run_doc(JHU, &cmd, &overlay_setup(), 0);
    assert_eq!(
        results(&out),
        [(
            "FAIL".to_string(),
            "0/1".to_string(),
            "jhu/refusals/nine_messages_in_the_seeds_order.txt".to_string()
        )],
        "{out}"
    );
    assert!(
        out.contains("Could not make move: path is blocked"),
        "{out}"
    );
    // Loops at the end of its input: jhu/save's game does not end in a
    // mate, so the program is left to quit on `q`, which it ignores.
    let cmd = doc_command(
        JHU,
        "chessgrade grade --submission tests/fixtures/console/jhu-loop-at-eof --overlay \"$OVERLAY\" scenarios/jhu/save | head -13",
    );
    let out = c.run_doc(JHU, &cmd, &overlay_setup(), 0);
    assert_eq!(
        results(&out),
        [(
            "FAIL".to_string(),
            "0/1".to_string(),
            "jhu/save/save_after_a_few_moves.txt".to_string()
        )],
        "{out}"
    );
    assert!(out.contains("did not exit after its input ended"), "{out}");
}

#[test]
fn readme_jhu_class() {
    let cmd = doc_command(
        JHU,
        "chessgrade grade --class jhu-class/ --overlay \"$OVERLAY\" scenarios/jhu/{check,console,mates,promotion,refusals,save,score,special-moves} -q --output-dir reports/",
    );
    let c = Course::new();
    let setup = doc_setup(JHU, "mkdir jhu-class && cp -r ");
    let out = c.run_doc(JHU, &cmd, &format!("{}{setup}\n", overlay_setup()), 1);
    // The 12 JHU scenarios without a Mystery piece. jhu-crash crashes at the
    // first accepted capture: check (C2B4), promotion/pawns_become_queens
    // (B7A8), save (F3E5), score (E4D5) -- 4; the wrong message only fails
    // refusals; a Lab 3 upload and an empty folder are not JHU programs.
    assert_eq!(
        class_table(&out),
        rows(&[
            ("jhu-compile-error", "0/12", "compile_error 12"),
            ("jhu-correct", "12/12", ""),
            ("jhu-crash", "8/12", "crash 4"),
            ("jhu-mutant-wrong-message", "11/12", "wrong_output 1"),
            ("lab3-correct", "0/12", "not_recognised 12"),
            ("nothing-uploaded", "0/12", "not_recognised 12"),
        ]),
        "{out}"
    );
    assert_eq!(c.files("reports").len(), 6);
}

#[test]
fn readme_jhu_upload_of_another_term_on_the_overlay() {
    let cmd = doc_command(
        JHU,
        "chessgrade grade --submission tests/fixtures/console/jhu-other-term-piece-h --overlay \"$OVERLAY\" scenarios/jhu/console",
    );
    let c = Course::new();
    let out = c.run_doc(JHU, &cmd, &overlay_setup(), 1);
    // Its pieces override what only its own Piece.h declares: with the
    // overlay's Piece.h it does not compile, and the report says why.
    assert_eq!(summary(&out), (0, 1, "0/1".to_string()), "{out}");
    assert!(
        out.contains("the course's term-specific starter) replaced 1 file that differs from the upload's: Piece.h."),
        "{out}"
    );
}

#[test]
fn readme_cuhk_correct_and_wrong_winner() {
    let c = Course::new();
    let cmd = doc_command(
        CUHK,
        "chessgrade grade --submission tests/fixtures/console/cuhk-correct scenarios/cuhk/{console,game-over,notation} tests/fixtures/console-scripts/cuhk-machine",
    );
    let out = c.run_doc(CUHK, &cmd, "", 0);
    // The correct program: every point of the three mode 1 games and the
    // two machine games.
    assert_eq!(summary(&out), (5, 0, "5/5".to_string()), "{out}");
    let cmd = doc_command(
        CUHK,
        "chessgrade grade --submission tests/fixtures/console/cuhk-mutant-wrong-winner scenarios/cuhk/game-over tests/fixtures/console-scripts/cuhk-machine | grep -v \"^ *[0-9-]\\|   A   B\"",
    );
    let out = c.run_doc(CUHK, &cmd, "", 0);
    // Winner lines swapped: the game over (Black takes the king) and the
    // mode 3 game (ended by a king's capture) print the other winner. The
    // mode 2 game is stopped by Z0 Z0 on equal points, a draw, which the
    // mutant prints right: White's three moves (E7 E5, G8 F6, F8 C5)
    // capture nothing, and neither do Black's machine replies in the game
    // the program plays (its machine is cuhk-correct's: H2 H3, D2 D3, then
    // a third move from a position where no Black piece reaches a White
    // one; read off the program's own output, `explain --all`).
    assert_eq!(
        results(&out),
        [
            (
                "FAIL",
                "0/1",
                "cuhk/game-over/sample_run_black_bishop_takes_the_ignored_king.txt"
            ),
            ("PASS", "1/1", "mode2_human_moves_and_machine_replies.txt"),
            ("FAIL", "0/1", "mode3_machines_play_to_a_kings_capture.txt"),
        ]
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())),
        "{out}"
    );
    assert_eq!(summary(&out), (1, 2, "1/3".to_string()));
}

#[test]
fn readme_cuhk_trailing_space_strict_and_tolerated() {
    let c = Course::new();
    let strict = doc_command(
        CUHK,
        "chessgrade grade --submission tests/fixtures/console/cuhk-mutant-trailing-space scenarios/cuhk/console | tail -1",
    );
    // Every board row lacks the course's trailing space: compared exactly,
    // the one game fails; tolerated, it passes.
    let out = c.run_doc(CUHK, &strict, "", 0);
    assert_eq!(summary(&out), (0, 1, "0/1".to_string()), "{out}");
    let setup = doc_setup(CUHK, "sed 's/\"ignore_trailing_space\": false/");
    let tolerant = doc_command(
        CUHK,
        "chessgrade grade --submission tests/fixtures/console/cuhk-mutant-trailing-space scenarios/cuhk/console --console-texts tolerant.json | tail -1",
    );
    let out = c.run_doc(CUHK, &tolerant, &format!("{setup}\n"), 0);
    assert_eq!(summary(&out), (1, 0, "1/1".to_string()), "{out}");
}

#[test]
fn readme_cuhk_setup_that_is_not_the_start_is_a_staff_error() {
    let cmd = doc_command(
        CUHK,
        "chessgrade grade --submission cuhk7/ scenarios/cuhk/stop",
    );
    let c = Course::new();
    c.upload(&console_fixture("cuhk-correct"), "cuhk7");
    let out = c.bash(&cmd);
    let err = String::from_utf8_lossy(&out.stderr);
    check_excerpt(CUHK, &cmd, &err);
    // z0_z0_after_captures starts from a FEN that is not the start
    // position: exit 2 before anything is built, no score at all.
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "scenarios/cuhk/stop/z0_z0_after_captures_wins_on_cuhk_points.txt: not gradable by console"
        ),
        "{err}"
    );
    assert!(err.contains("nothing was run"), "{err}");
    assert!(results(&String::from_utf8_lossy(&out.stdout)).is_empty());
}

// ---------------------------------------------------------------------
// docs/grading.md
// ---------------------------------------------------------------------

/// The bundled `scenarios/lab3`: 91 scenarios, a point each.
const LAB3_SCENARIOS: usize = 91;

#[test]
fn grading_one_lab3_upload() {
    let cmd = doc_command(
        GRADING,
        "chessgrade grade --submission path/to/student42 scenarios/lab3",
    );
    let c = Course::new();
    c.upload(&submission("lab3-correct"), "path/to/student42");
    let out = c.run(&cmd, 0);
    // A correct upload: every point of the course's scenarios.
    let n = LAB3_SCENARIOS as u64;
    assert_eq!(summary(&out), (n, 0, format!("{n}/{n}")), "{out}");
    assert!(results(&out).iter().all(|r| r.2.starts_with("lab3/")));
}

#[test]
fn grading_an_engine_in_any_language() {
    // About `--engine`, not the whole set: one small folder of each rule
    // set (9 + 5 + 3 + 1 scenarios, a point each).
    let c = Course::with_scenarios(&[
        "lab3/pawns",
        "standard/castling",
        "cuhk/stop",
        "jhu/refusals",
    ]);
    std::fs::create_dir_all(c.path("path/to")).unwrap();
    std::fs::copy(
        root().join("adapters/python-engine/engine.py"),
        c.path("path/to/engine.py"),
    )
    .unwrap();
    // The independent Python engine answers every rule set right.
    let cmd = doc_command(
        GRADING,
        "chessgrade grade scenarios/ --engine \"python3 path/to/engine.py\"",
    );
    let out = c.run(&cmd, 0);
    assert_eq!(summary(&out), (18, 0, "18/18".to_string()), "{out}");
    let cmd = doc_command(
        GRADING,
        "chessgrade grade scenarios/ --format json --output r.json --engine -- python3 path/to/engine.py",
    );
    c.run(&cmd, 0);
    let report = c.json("r.json");
    assert_eq!(report["scenarios"].as_array().unwrap().len(), 18);
    assert_eq!(failed(&report), Vec::<String>::new());
}

#[test]
fn grading_one_console_upload_and_a_built_program() {
    let c = Course::new();
    c.upload(&console_fixture("jhu-correct"), "path/to/team7");
    c.jhu_overlay("staff/jhu-overlay");
    // jhu/console's one scenario, passed by the correct program, built
    // after the overlay ...
    let cmd = doc_command(
        GRADING,
        "chessgrade grade --submission path/to/team7 --overlay staff/jhu-overlay scenarios/jhu/console",
    );
    let out = c.run(&cmd, 0);
    assert_eq!(summary(&out), (1, 0, "1/1".to_string()), "{out}");
    // ... or built already.
    std::fs::copy(console_program("jhu-correct"), c.path("chess")).unwrap();
    let cmd = doc_command(
        GRADING,
        "chessgrade grade --program ./chess scenarios/jhu/console",
    );
    let out = c.run(&cmd, 0);
    assert_eq!(summary(&out), (1, 0, "1/1".to_string()), "{out}");
}

/// The `run_autograder` block of docs/grading.md.
fn run_autograder() -> String {
    let doc = std::fs::read_to_string(root().join(GRADING)).unwrap();
    let after = doc
        .split_once("`run_autograder`\n```sh\n")
        .expect("a `run_autograder` block")
        .1;
    after.split_once("```").unwrap().0.to_string()
}

#[test]
fn gradescope_run_autograder_end_to_end() {
    let script = run_autograder();
    doc_command(
        GRADING,
        "./chessgrade grade --submission /autograder/submission scenarios/lab3 --format gradescope --output /autograder/results/results.json",
    );
    // Gradescope's layout: the zip unpacked in source/ (the binary,
    // scenarios/, snapshots/), the student's files in submission/, an
    // empty results/.
    let c = Course::new();
    let gs = c.tmp.path().join("autograder");
    for d in ["source", "submission", "results"] {
        std::fs::create_dir_all(gs.join(d)).unwrap();
    }
    for (from, to) in [
        (Path::new(crate::helpers::bin()), "source/chessgrade"),
        (&root().join("scenarios"), "source/scenarios"),
        (&root().join("snapshots"), "source/snapshots"),
    ] {
        std::os::unix::fs::symlink(from, gs.join(to)).unwrap();
    }
    copy_dir(&submission("lab3-correct"), &gs.join("submission"));
    std::fs::write(
        gs.join("source/run_autograder"),
        script.replace("/autograder/", &format!("{}/", gs.display())),
    )
    .unwrap();
    c.run(&format!("bash {}/source/run_autograder", gs.display()), 0);
    let text = std::fs::read_to_string(gs.join("results/results.json")).unwrap();
    let results: Value = serde_json::from_str(&text).unwrap();
    // A correct upload: every Lab 3 scenario a passed test worth its point.
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), LAB3_SCENARIOS, "{text}");
    assert_eq!(results["score"], LAB3_SCENARIOS as f64);
    for t in tests {
        assert_eq!(t["status"], "passed", "{t}");
        assert_eq!(t["max_score"], 1.0, "{t}");
        assert!(t["name"].as_str().unwrap().starts_with("lab3/"), "{t}");
        assert_eq!(t["visibility"], "visible", "{t}");
    }
}

/// The lines of docs/grading.md's CI matrix block that run `chessgrade`.
fn ci_matrix() -> Vec<String> {
    let lines: Vec<DocLine> = block_lines(GRADING);
    let grade = lines
        .iter()
        .find(|l| l.text.contains("--partition slice:${{ matrix.slice }}/4"))
        .unwrap();
    lines
        .iter()
        .filter(|l| l.block == grade.block && l.text.starts_with("chessgrade "))
        .map(|l| l.text.clone())
        .collect()
}

#[test]
fn grading_ci_matrix_of_slices_merged() {
    let grade = doc_command(
        GRADING,
        "chessgrade grade --submission submission/ scenarios/lab3 --partition slice:${{ matrix.slice }}/4 --format json --output report-${{ matrix.slice }}.json || [ $? -eq 1 ]",
    );
    let steps = ci_matrix();
    assert_eq!(steps[0], grade);
    assert!(steps.len() >= 2, "{steps:?}");
    // About `--partition`: the nine lab3/pawns scenarios, the mutant that
    // never double-steps.
    let c = Course::with_scenarios(&["lab3/pawns"]);
    c.upload(&submission("lab3-mutant-no-double-step"), "submission");
    // Each job of the matrix, then the artifacts as download-artifact lays
    // them out (a folder per artifact, named after it).
    let jobs: Vec<String> = (1..=4)
        .map(|k| grade.replace("${{ matrix.slice }}", &k.to_string()))
        .collect();
    for job in &jobs {
        c.run(job, 0);
    }
    for k in 1..=4 {
        let name = format!("report-{k}");
        std::fs::create_dir(c.path(&name)).unwrap();
        std::fs::rename(
            c.path(&format!("{name}.json")),
            c.path(&format!("{name}/{name}.json")),
        )
        .unwrap();
    }
    for step in &steps[1..] {
        c.run(step, 0);
    }
    // The merged JUnit: the 9 scenarios, the mutant's 3 failures.
    let junit = std::fs::read_to_string(c.path("junit.xml")).unwrap();
    assert!(
        junit.contains("tests=\"9\" failures=\"3\" errors=\"0\""),
        "{junit}"
    );
    let failing: Vec<String> = junit
        .split("<testcase ")
        .skip(1)
        .filter(|case| case.contains("<failure"))
        .map(|case| case.split('"').nth(1).unwrap().to_string())
        .collect();
    assert_eq!(failing, strings(&NO_DOUBLE_STEP_FAILS_IN_PAWNS), "{junit}");
}

#[test]
fn grading_lab3_class() {
    let cmd = doc_command(
        GRADING,
        "chessgrade grade --class uploads/ scenarios/lab3 --format json --output class.json --output-dir reports/",
    );
    // About class mode: the nine lab3/pawns scenarios.
    let c = Course::with_scenarios(&["lab3/pawns"]);
    for s in ["lab3-correct", "lab3-mutant-no-double-step"] {
        c.upload(&submission(s), &format!("uploads/{s}"));
    }
    std::fs::create_dir_all(c.path("uploads/nothing-uploaded")).unwrap();
    c.run(&cmd, 1);
    assert_eq!(
        members(&c.json("class.json")),
        [
            ("lab3-correct".to_string(), 9, 9, vec![]),
            (
                "lab3-mutant-no-double-step".to_string(),
                6,
                9,
                strings(&NO_DOUBLE_STEP_FAILS_IN_PAWNS)
            ),
            (
                "nothing-uploaded".to_string(),
                0,
                9,
                strings(&[
                    "lab3/pawns/black_down_white_up_never_backwards.txt",
                    "lab3/pawns/black_pawn_captures_towards_higher_rows.txt",
                    "lab3/pawns/blocked_straight_ahead_by_any_piece.txt",
                    "lab3/pawns/capture_diagonal_forward_only.txt",
                    "lab3/pawns/double_step_from_start_rows.txt",
                    "lab3/pawns/double_step_only_from_own_start_row.txt",
                    "lab3/pawns/double_step_target_occupied_is_refused.txt",
                    "lab3/pawns/last_row_pawn_has_no_moves.txt",
                    "lab3/pawns/start_row_depends_on_board_height.txt",
                ])
            ),
        ]
    );
    let mutant = c.json("reports/lab3-mutant-no-double-step.json");
    assert_eq!(failed(&mutant), strings(&NO_DOUBLE_STEP_FAILS_IN_PAWNS));
    assert_eq!(c.files("reports").len(), 3);
}

#[test]
fn grading_jhu_class() {
    let cmd = doc_command(
        GRADING,
        "chessgrade grade --class uploads/ --overlay staff/jhu-overlay staff/jhu-scenarios --output-dir reports/",
    );
    // About class mode: two small JHU folders (one scenario each).
    let c = Course::new();
    c.copy_scenarios("jhu/refusals", "staff/jhu-scenarios/refusals");
    c.copy_scenarios("jhu/console", "staff/jhu-scenarios/console");
    c.jhu_overlay("staff/jhu-overlay");
    for s in [
        "jhu-correct",
        "jhu-mutant-wrong-message",
        "jhu-other-term-piece-h",
    ] {
        c.upload(&console_fixture(s), &format!("uploads/{s}"));
    }
    let out = c.run(&cmd, 1);
    // The wrong message fails refusals only; the upload written against
    // another term's Piece.h does not compile once the overlay's Piece.h
    // replaces its own.
    assert_eq!(
        class_table(&out),
        rows(&[
            ("jhu-correct", "2/2", ""),
            ("jhu-mutant-wrong-message", "1/2", "wrong_output 1"),
            ("jhu-other-term-piece-h", "0/2", "compile_error 2"),
        ]),
        "{out}"
    );
    let report = std::fs::read_to_string(c.path("reports/jhu-other-term-piece-h.txt")).unwrap();
    assert!(
        report.contains("the overlay (--overlay staff/jhu-overlay, the course's term-specific starter) replaced 1 file that differs from the upload's: Piece.h"),
        "{report}"
    );
}

#[test]
fn grading_cuhk_class() {
    let cmd = doc_command(
        GRADING,
        "chessgrade grade --class uploads/ staff/cuhk-scenarios --format junit --output-dir reports/",
    );
    // About class mode: two one-scenario CUHK folders.
    let c = Course::new();
    c.copy_scenarios("cuhk/console", "staff/cuhk-scenarios/console");
    c.copy_scenarios("cuhk/game-over", "staff/cuhk-scenarios/game-over");
    for s in ["cuhk-correct", "cuhk-mutant-wrong-winner"] {
        c.upload(&console_fixture(s), &format!("uploads/{s}"));
    }
    let out = c.run(&cmd, 1);
    // Both games end with a winner: the console one by points after Z0 Z0
    // (Black 1128, White 1127, as its comment works out), the game over by
    // Black taking the king; the mutant prints the other winner in both.
    assert_eq!(
        class_table(&out),
        rows(&[
            ("cuhk-correct", "2/2", ""),
            ("cuhk-mutant-wrong-winner", "0/2", "wrong_output 2"),
        ]),
        "{out}"
    );
    assert_eq!(
        c.files("reports"),
        strings(&["cuhk-correct.xml", "cuhk-mutant-wrong-winner.xml"])
    );
    let junit = std::fs::read_to_string(c.path("reports/cuhk-mutant-wrong-winner.xml")).unwrap();
    assert!(junit.contains("tests=\"2\" failures=\"2\""), "{junit}");
    let junit = std::fs::read_to_string(c.path("reports/cuhk-correct.xml")).unwrap();
    assert!(junit.contains("tests=\"2\" failures=\"0\""), "{junit}");
}

/// `results.json` of a Gradescope or PrairieLearn run under `root`.
fn results_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The names of the tests of a results file (Gradescope's, PrairieLearn's,
/// Classroom's) whose `field` is not `full`, sorted.
fn short_of(tests: &Value, field: &str, full: Value) -> Vec<String> {
    let mut names: Vec<String> = tests
        .as_array()
        .expect("tests")
        .iter()
        .filter(|t| t[field] != full)
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// Unpacks `zip` into `dir` with the zip crate (as Gradescope unpacks the
/// autograder into `source/`), checking that Gradescope's scripts and the
/// binary are executable in it.
fn unpack_autograder(zip: &Path, dir: &Path) {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(zip).unwrap()).unwrap();
    for name in ["setup.sh", "run_autograder", "chessgrade"] {
        let mode = archive.by_name(name).unwrap().unix_mode().unwrap();
        assert_eq!(mode & 0o777, 0o755, "{name}: {mode:o}");
    }
    archive.extract(dir).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir.join("chessgrade"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "unpacked executable: {mode:o}");
}

/// Gradescope's layout under `<tmp>/<name>/autograder`: `source/` holding
/// the zip's contents, `submission/` the upload, an empty `results/`.
/// Runs the packaged `run_autograder` there (its root from
/// `AUTOGRADER_ROOT`) and returns `results.json`.
fn run_packaged(c: &Course, zip: &str, name: &str, upload: &Path) -> Value {
    let gs = c.tmp.path().join(name).join("autograder");
    for d in ["source", "submission", "results"] {
        std::fs::create_dir_all(gs.join(d)).unwrap();
    }
    unpack_autograder(&c.path(zip), &gs.join("source"));
    copy_dir(upload, &gs.join("submission"));
    c.run(
        &format!(
            "AUTOGRADER_ROOT={0} bash {0}/source/run_autograder",
            gs.display()
        ),
        0,
    );
    results_json(&gs.join("results/results.json"))
}

#[test]
fn gradescope_package_end_to_end() {
    let cmd = doc_command(
        GRADING,
        "chessgrade package gradescope scenarios/lab3 -o autograder.zip",
    );
    let c = Course::new();
    let out = c.run_doc(GRADING, &cmd, "", 0);
    // The README shows the same run.
    check_excerpt(README, &cmd, &out);
    // A correct upload: every one of the 91 Lab 3 scenarios passed, a
    // point each.
    let correct = run_packaged(&c, "autograder.zip", "correct", &submission("lab3-correct"));
    let tests = &correct["tests"];
    assert_eq!(tests.as_array().unwrap().len(), LAB3_SCENARIOS);
    assert_eq!(correct["score"], LAB3_SCENARIOS as f64);
    assert_eq!(
        short_of(tests, "status", Value::from("passed")),
        Vec::<String>::new()
    );
    // An upload that does not compile (its EXPECT: `compile error`): every
    // scenario failed, 0 points.
    let broken = run_packaged(
        &c,
        "autograder.zip",
        "broken",
        &submission("hostile-compile-error"),
    );
    assert_eq!(broken["score"], 0.0);
    assert_eq!(
        short_of(&broken["tests"], "status", Value::from("failed")),
        Vec::<String>::new()
    );
    assert!(
        broken["output"].as_str().unwrap().contains("compile error"),
        "{broken}"
    );
    // About partial credit: a package of lab3/pawns, with a grading flag
    // passed through, and the pawn that never double-steps: it fails
    // exactly NO_DOUBLE_STEP_FAILS_IN_PAWNS, 6 of 9 points. (Its scenarios
    // in the older spelling, `--scenarios`, still taken.)
    c.run(
        "chessgrade package gradescope --scenarios scenarios/lab3/pawns -o pawns.zip -- --timeout 20",
        0,
    );
    let mutant = run_packaged(
        &c,
        "pawns.zip",
        "mutant",
        &submission("lab3-mutant-no-double-step"),
    );
    assert_eq!(mutant["score"], 6.0);
    assert_eq!(
        short_of(&mutant["tests"], "status", Value::from("passed")),
        strings(&NO_DOUBLE_STEP_FAILS_IN_PAWNS)
    );
    // The staff's mistakes: exit 2, one message, no zip.
    for (bad, says) in [
        (
            "chessgrade package gradescope scenarios/nowhere -o bad.zip",
            "error: cannot package the scenarios: scenarios/nowhere",
        ),
        (
            "chessgrade package gradescope scenarios/lab3/pawns -o no/such/folder/bad.zip",
            "error: cannot write the zip no/such/folder/bad.zip",
        ),
        (
            "chessgrade package gradescope --scenarios scenarios/lab3/pawns -o bad.zip -- --timout 5",
            "error: the grading flags after `--` are not ones `chessgrade grade` takes",
        ),
        (
            "chessgrade package gradescope --scenarios scenarios/lab3/pawns -o bad.zip -- --format json",
            "error: `--format`: the packaged run_autograder sets --format itself",
        ),
    ] {
        let out = c.bash(bad);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.starts_with(says), "{bad}: {err}");
        assert_eq!(err.lines().count(), 1, "{bad}: {err}");
    }
    assert!(!c.path("bad.zip").exists());
}

/// The PrairieLearn entrypoint block of docs/grading.md.
fn pl_entrypoint() -> String {
    let doc = std::fs::read_to_string(root().join(GRADING)).unwrap();
    let after = doc
        .split_once("`/usr/local/bin/pl-chessgrade`\n```sh\n")
        .expect("the PrairieLearn entrypoint block")
        .1;
    after.split_once("```").unwrap().0.to_string()
}

#[test]
fn prairielearn_format_and_entrypoint_end_to_end() {
    let cmd = doc_command(
        GRADING,
        "chessgrade grade --submission student42/ scenarios/lab3/pawns --format prairielearn",
    );
    let c = Course::with_scenarios(&["lab3/pawns"]);
    c.upload(&submission("lab3-mutant-no-double-step"), "student42");
    // Exit 1: the mutant lost points.
    let out = c.run_doc(GRADING, &cmd, "", 1);
    check_excerpt(README, &cmd, &out);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["score"].as_f64(), Some(6.0 / 9.0));

    // The entrypoint, as written, under a root laid out as PrairieLearn's
    // /grade: the student's files, the question's tests/ (scenarios/ and
    // snapshots/), no results/ (the entrypoint makes it).
    let script = pl_entrypoint();
    assert!(script.contains(&doc_command(
        GRADING,
        "chessgrade grade --submission \"$ROOT/student\" scenarios --root scenarios --snapshots snapshots --format prairielearn --output \"$ROOT/results/results.json\" || [ $? -eq 1 ]",
    )));
    std::fs::write(c.path("pl-chessgrade"), &script).unwrap();
    let grade = |name: &str, upload: &str| -> Value {
        let g = c.tmp.path().join(name).join("grade");
        copy_dir(&submission(upload), &g.join("student"));
        copy_dir(
            &c.path("scenarios/lab3/pawns"),
            &g.join("tests/scenarios/lab3/pawns"),
        );
        std::os::unix::fs::symlink(root().join("snapshots"), g.join("tests/snapshots")).unwrap();
        c.run(
            &format!("PL_GRADE_ROOT={} sh pl-chessgrade", g.display()),
            0,
        );
        results_json(&g.join("results/results.json"))
    };
    // Correct: all nine pawns scenarios, score 1.
    let v = grade("correct", "lab3-correct");
    assert_eq!(
        (
            v["gradable"].clone(),
            v["score"].as_f64(),
            v["points"].as_u64(),
            v["max_points"].as_u64()
        ),
        (Value::Bool(true), Some(1.0), Some(9), Some(9)),
        "{v}"
    );
    assert_eq!(v["tests"].as_array().unwrap().len(), 9);
    assert_eq!(
        short_of(&v["tests"], "points", Value::from(1)),
        Vec::<String>::new()
    );
    // The mutant: NO_DOUBLE_STEP_FAILS_IN_PAWNS lose their point; each
    // says its first mismatch in one line and shows the board.
    let v = grade("mutant", "lab3-mutant-no-double-step");
    assert_eq!(v["score"].as_f64(), Some(6.0 / 9.0));
    assert_eq!(
        (v["points"].as_u64(), v["max_points"].as_u64()),
        (Some(6), Some(9))
    );
    assert_eq!(
        short_of(&v["tests"], "points", Value::from(1)),
        strings(&NO_DOUBLE_STEP_FAILS_IN_PAWNS)
    );
    for t in v["tests"].as_array().unwrap() {
        if t["points"] == 0 {
            let message = t["message"].as_str().unwrap();
            assert!(message.starts_with("a call did not match"), "{t}");
            assert!(!message.contains('\n'), "{t}");
            assert!(
                t["output"]
                    .as_str()
                    .unwrap()
                    .contains("board before the step"),
                "{t}"
            );
        }
    }
    assert!(
        v["output"]
            .as_str()
            .unwrap()
            .contains("note: left out main.cc"),
        "{v}"
    );
    // Does not compile: not gradable, the compiler's words in
    // format_errors (its EXPECT: a compile error).
    let v = grade("broken", "hostile-compile-error");
    assert_eq!(v["gradable"], false, "{v}");
    let errors = v["format_errors"].as_array().expect("format_errors");
    assert!(errors[0].as_str().unwrap().contains("error:"), "{errors:?}");
}

/// Standard base64 back to bytes, as the Classroom reporter decodes it.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c:?}"),
        }
    };
    let mut out = Vec::new();
    for chunk in text.trim_end().as_bytes().chunks(4) {
        let digits: Vec<u32> = chunk
            .iter()
            .filter(|&&c| c != b'=')
            .map(|&c| value(c))
            .collect();
        let n = digits
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, d)| n | (d << (18 - 6 * i)));
        for i in 0..digits.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

#[test]
fn classroom_format_and_workflow_end_to_end() {
    let c = Course::with_scenarios(&["lab3/pawns"]);
    c.upload(&submission("lab3-mutant-no-double-step"), "student42");
    for text in [
        "chessgrade grade --submission student42/ scenarios/lab3/pawns --format classroom | cut -c1-72",
        "chessgrade grade --submission student42/ scenarios/lab3/pawns --format classroom | sed 's/^result=//' | base64 -d | cut -c1-92",
    ] {
        // A pipe's status is its last command's.
        let out = c.run_doc(GRADING, &doc_command(GRADING, text), "", 0);
        // The README shows the decoded one.
        check_excerpt(README, text, &out);
    }

    // The workflow: the reporter reads <RUNNER>_RESULTS for its runner, the
    // grading step's id, from that step's `result` output.
    // The extractor joins a YAML step's lines: the command is its `run:`.
    let step = doc_command(
        GRADING,
        "name: chessgrade id: chessgrade run: chessgrade grade --submission submission/ \"$RUNNER_TEMP/course/scenarios/lab3\" --root \"$RUNNER_TEMP/course/scenarios\" --snapshots \"$RUNNER_TEMP/course/snapshots\" --format classroom >> \"$GITHUB_OUTPUT\" || [ $? -eq 1 ]",
    );
    let step = step.split_once("run: ").unwrap().1.to_string();
    let doc = std::fs::read_to_string(root().join(GRADING)).unwrap();
    let yaml = doc
        .split_once("name: Autograding Tests\n")
        .expect("the Classroom workflow")
        .1
        .split_once("```")
        .unwrap()
        .0;
    let field = |key: &str| -> Vec<String> {
        yaml.lines()
            .filter_map(|l| l.trim_start().trim_start_matches("- ").strip_prefix(key))
            .map(|v| v.trim().to_string())
            .collect()
    };
    let id = field("id: ");
    assert_eq!(id.len(), 1, "{yaml}");
    let id = &id[0];
    assert!(
        yaml.contains(&format!("id: {id}\n        run: {step}\n")),
        "{yaml}"
    );
    assert_eq!(field("runners: "), std::slice::from_ref(id));
    assert_eq!(
        field(&format!("{}_RESULTS: ", id.to_uppercase())),
        [format!("\"${{{{ steps.{id}.outputs.result }}}}\"")]
    );
    assert!(yaml.contains("uses: classroom-resources/autograding-grading-reporter@v1"));

    // The step as written: the course in $RUNNER_TEMP/course (the nine
    // lab3/pawns scenarios, the snapshots), the upload in submission/,
    // GITHUB_OUTPUT a file the step appends to.
    let runner = c.tmp.path().join("runner");
    copy_dir(
        &c.path("scenarios/lab3/pawns"),
        &runner.join("course/scenarios/lab3/pawns"),
    );
    std::os::unix::fs::symlink(root().join("snapshots"), runner.join("course/snapshots")).unwrap();
    let reporter_reads = |upload: &str| -> Value {
        let _ = std::fs::remove_dir_all(c.path("submission"));
        c.upload(&submission(upload), "submission");
        let output = c.tmp.path().join(format!("github-output-{upload}"));
        std::fs::write(&output, "earlier=1\n").unwrap();
        c.run(
            &format!(
                "export RUNNER_TEMP={} GITHUB_OUTPUT={}\n{step}",
                runner.display(),
                output.display()
            ),
            0,
        );
        let written = std::fs::read_to_string(&output).unwrap();
        let lines: Vec<&str> = written.lines().collect();
        assert_eq!(lines.len(), 2, "one output line appended: {written}");
        assert_eq!(lines[0], "earlier=1");
        let b64 = lines[1].strip_prefix("result=").expect("result=");
        serde_json::from_slice(&base64_decode(b64)).expect("JSON")
    };
    // Correct: status pass, every scenario a passing test worth its point.
    let v = reporter_reads("lab3-correct");
    assert_eq!(
        (v["version"].as_u64(), v["status"].as_str()),
        (Some(1), Some("pass"))
    );
    assert_eq!(v["max_score"], 9);
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 9);
    assert_eq!(
        short_of(&v["tests"], "status", Value::from("pass")),
        Vec::<String>::new()
    );
    assert_eq!(
        short_of(&v["tests"], "score", Value::from(1)),
        Vec::<String>::new()
    );
    // The mutant: status fail; NO_DOUBLE_STEP_FAILS_IN_PAWNS fail with 0,
    // so the reporter sends 6 points of 9.
    let v = reporter_reads("lab3-mutant-no-double-step");
    assert_eq!(v["status"], "fail");
    assert_eq!(v["max_score"], 9);
    let failed = strings(&NO_DOUBLE_STEP_FAILS_IN_PAWNS);
    assert_eq!(short_of(&v["tests"], "status", Value::from("pass")), failed);
    assert_eq!(short_of(&v["tests"], "score", Value::from(1)), failed);
    let total: u64 = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["score"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 6);
    for t in v["tests"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        assert_eq!(
            t["filename"],
            format!("{}/course/scenarios/{name}", runner.display())
        );
        if t["status"] == "fail" {
            assert!(t["line_no"].as_u64().unwrap() > 0, "{t}");
            assert!(
                t["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("a call did not match"),
                "{t}"
            );
        }
    }
}

// ---------------------------------------------------------------------
// docs/course-classes.md
// ---------------------------------------------------------------------

#[test]
fn course_classes_mutant_made_by_the_tests() {
    let c = Course::new();
    // Undoing a castle leaves the rook: the one scenario of the folder
    // fails at its first undo (tests/it/kit.rs lists where this mutant
    // fails, and why).
    design004_upload("castle-undo-leaves-rook");
    let cmd = doc_command(
        COURSE_CLASSES,
        "chessgrade grade --submission target/tmp/design004-mutants/castle-undo-leaves-rook --adapter adapters/design004/hooks.cc scenarios/design004/history-undo-castle-puts-king-and-rook-back",
    );
    let out = c.run_doc(COURSE_CLASSES, &cmd, "", 1);
    assert_eq!(summary(&out), (0, 1, "0/1".to_string()), "{out}");
    assert!(out.contains("first mismatch at line 9: undo"), "{out}");
}

/// The hook file and the course's headers go into the autograder: the
/// packaged `run_autograder` grades a 004 upload as `grade --adapter`
/// does, the correct one every point, the mutant whose undo of a castle
/// leaves the rook short of exactly the scenario that undoes castles.
#[test]
fn course_classes_packaged_for_gradescope() {
    let c = Course::new();
    let cmd = doc_command(
        COURSE_CLASSES,
        "chessgrade package gradescope scenarios/design004 --adapter adapters/design004/hooks.cc -o autograder.zip",
    );
    c.run_doc(COURSE_CLASSES, &cmd, "", 0);
    let correct = run_packaged(
        &c,
        "autograder.zip",
        "correct",
        &design004_upload("design004-correct"),
    );
    let tests = &correct["tests"];
    let all = tests.as_array().unwrap().len();
    assert!(all >= 30, "{correct}");
    assert_eq!(correct["score"], all as f64, "{}", correct["output"]);
    let mutant = run_packaged(
        &c,
        "autograder.zip",
        "mutant",
        &design004_upload("castle-undo-leaves-rook"),
    );
    // Short of the two scenarios that undo a castle (tests/it/kit.rs says
    // where each mutant fails and why).
    assert_eq!(mutant["score"], (all - 2) as f64);
    assert_eq!(
        short_of(&mutant["tests"], "status", Value::from("passed")),
        [
            "design004/history-redo-any-move-behaves-correctly/redo_castle.txt",
            "design004/history-undo-castle-puts-king-and-rook-back/both_castlings_undone.txt"
        ]
    );
    // A hook file that does not compile is the staff's error now (exit 2,
    // the compiler's words, no zip), as `grade --adapter` says it, not at
    // the first upload on Gradescope.
    let out = c.run(
        "mkdir broken && cp adapters/design004/*.h broken/ && \
         sed 's/void rules(const char \\*name)/& oops/' adapters/design004/hooks.cc > broken/hooks.cc && \
         chessgrade package gradescope scenarios/design004 --adapter broken/hooks.cc -o broken.zip 2>&1",
        2,
    );
    assert!(
        out.contains("the hook file does not compile") && out.contains("oops"),
        "{out}"
    );
    assert!(!c.path("broken.zip").exists());
    // Not both: a hook file grades classes, an overlay a console program.
    let out = c.run(
        "chessgrade package gradescope scenarios/design004 --adapter adapters/design004/hooks.cc --overlay tests -o bad.zip 2>&1",
        2,
    );
    assert!(out.contains("cannot be used with"), "{out}");
}

// ---------------------------------------------------------------------
// docs/console.md
// ---------------------------------------------------------------------

#[test]
fn console_doc_programs_built_by_the_tests() {
    let c = Course::new();
    // The machine that ignores the pieces' rules: its first machine move of
    // the mode 3 game is not one the reference accepts.
    console_program("cuhk-machine-illegal");
    let cmd = doc_command(
        CONSOLE,
        "chessgrade grade --program target/tmp/console-fixtures/cuhk-machine-illegal/chess tests/fixtures/console-scripts/cuhk-machine/mode3_machines_play_to_a_kings_capture.txt | head -10",
    );
    let out = c.run_doc(CONSOLE, &cmd, "", 0);
    assert_eq!(
        results(&out),
        [(
            "FAIL".to_string(),
            "0/1".to_string(),
            "mode3_machines_play_to_a_kings_capture.txt".to_string()
        )],
        "{out}"
    );
    // Kings and queens swapped: the first board printed is wrong.
    console_program("cuhk-mutant-king-queen-swapped");
    let cmd = doc_command(
        CONSOLE,
        "chessgrade grade --program target/tmp/console-fixtures/cuhk-mutant-king-queen-swapped/chess scenarios/cuhk/console",
    );
    let out = c.run_doc(CONSOLE, &cmd, "", 1);
    assert_eq!(summary(&out), (0, 1, "0/1".to_string()), "{out}");
    assert!(out.contains("first mismatch at setup"), "{out}");
}
