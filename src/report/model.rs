//! The machine-readable report: a plain, serialisable record of a run that
//! every file format (JSON, JUnit, Gradescope, GitHub, PrairieLearn, GitHub
//! Classroom, HTML) is rendered from, and
//! that `chessgrade merge` reads back to join the slices of a split run.
//! Building it is the one place results are turned into text; renderers
//! only lay that text out.
//!
//! A report also names the run it belongs to ([`RunIdentity`]: a
//! fingerprint of the selected scenario names, before partitioning), so
//! `merge` can prove that its slices are of one run and cover it exactly.
//! The field is optional in the JSON, so older reports still read (and are
//! refused by `merge` with a clear reason).

use super::HumanReporter;
use super::diagram::{Diagram, failure_diagrams};
use crate::compare::{ChangeGroup, Tally};
use crate::memcheck::Findings;
use crate::runner::{FailureKind, ScenarioResult, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Bumped when the JSON shape changes incompatibly.
pub const REPORT_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Report {
    pub chessgrade_report: u32,
    /// What was graded: "reference engine", a submission folder, a command.
    pub subject: String,
    /// The partition this report covers (`slice:K/N`), if any.
    pub partition: Option<String>,
    pub elapsed_secs: f64,
    /// Remarks about the whole run (files left out of a build, ...).
    pub notes: Vec<String>,
    /// The compiler's message, when the upload did not build (each
    /// scenario then fails as `compile_error` and points here): what
    /// PrairieLearn shows as the reason an attempt is not graded, and what
    /// a student's page shows first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compile_error: Option<String>,
    pub scenarios: Vec<ScenarioRecord>,
    /// Which run this report (or slice) is part of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunIdentity>,
    /// The snapshots written (`run --update`), counted by what changed
    /// (each scenario's steps are in its `changes`).
    #[serde(default, skip_serializing_if = "Tally::is_empty")]
    pub changes: Tally,
}

/// What makes slices "of one run": the scenarios selected before the run
/// was partitioned.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct RunIdentity {
    /// FNV-1a (64 bit, hex) of the sorted scenario names, one per line.
    pub fingerprint: String,
    /// How many scenarios the whole run has (all slices together).
    pub scenarios: usize,
}

impl RunIdentity {
    /// The identity of a run over these scenario names (any order).
    pub fn of<S: AsRef<str>>(names: &[S]) -> RunIdentity {
        let (fingerprint, scenarios) = fingerprint(names);
        RunIdentity {
            fingerprint,
            scenarios,
        }
    }
}

/// FNV-1a (64 bit, hex) of the sorted names, one per line, and how many
/// there are: what a run's scenarios and a class's members are told
/// apart by.
pub(crate) fn fingerprint<S: AsRef<str>>(names: &[S]) -> (String, usize) {
    let mut sorted: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    sorted.sort_unstable();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for name in &sorted {
        for b in name.bytes().chain(std::iter::once(b'\n')) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    (format!("{hash:016x}"), sorted.len())
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ScenarioRecord {
    /// The scenario's name (path relative to the scenario root).
    pub name: String,
    /// The scenario file, as given to the run.
    pub path: String,
    /// The name of the rules it ran under (a rule file's `name`; absent
    /// when the scenario could not be read, and in older reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    pub points: u32,
    pub earned: u32,
    /// Gradescope visibility: visible, hidden, after_due_date, after_published.
    pub visibility: String,
    pub status: Status,
    /// For failures: wrong_answer, board_out_of_sync, timeout, crash,
    /// malformed_answer, exited_early, compile_error, not_recognised,
    /// memory_error, memory_leak, no_snapshot, input_error.
    pub class: Option<String>,
    /// The scenario line of the first mismatch, when there is one.
    pub line: Option<u32>,
    /// The scenario text of that line.
    pub step: Option<String>,
    /// One line saying what went wrong (empty on a pass).
    pub message: String,
    /// The full human-readable explanation (empty on a pass).
    pub details: String,
    pub elapsed_secs: f64,
    /// Board diagrams of the first mismatch (the HTML report draws them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boards: Vec<Diagram>,
    /// What a memory check found (`--memcheck`): the first error, the
    /// number of errors, the leaks; present on every checked scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Findings>,
    /// A rewritten snapshot's changed steps (`run --update`; empty for a
    /// new one, and for any other result).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<ChangeRecord>,
}

/// One step whose answer a rewritten snapshot changed.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ChangeRecord {
    /// The scenario line (`None`: the trace's `DIMS` or `END`).
    pub line: Option<u32>,
    /// The step as the trace writes it.
    pub step: String,
    /// What kind of change: move_now_valid, move_now_refused,
    /// refusal_reason, scan_squares, game_end, board, score, count, steps,
    /// other.
    pub kind: ChangeGroup,
    /// What changed, in words.
    pub what: String,
}

impl ScenarioRecord {
    /// The tally of `records`' written snapshots: a new one (no changes)
    /// or the kinds of its changed steps.
    fn tally(records: &[ScenarioRecord]) -> Tally {
        Tally::of(
            records
                .iter()
                .filter(|r| r.status == Status::Updated)
                .map(|r| (!r.changes.is_empty()).then(|| r.changes.iter().map(|c| c.kind))),
        )
    }
}

impl ScenarioRecord {
    /// Whether students may see this scenario's details now: only a
    /// `visible` one. Platforms without Gradescope's visibility settings
    /// (PrairieLearn, GitHub Classroom) show students every test at once,
    /// so their renderers keep a hidden scenario's points and verdict and
    /// leave out its name and failure.
    pub fn shown_to_students(&self) -> bool {
        self.visibility == "visible"
    }

    /// Whether it counts as passed (a pass, or a snapshot just written).
    pub fn passed(&self) -> bool {
        matches!(self.status, Status::Pass | Status::Updated)
    }

    /// Its name where students read every test: its own when shown, else
    /// `hidden scenario N` (`index` counted from 0).
    pub fn name_for_students(&self, index: usize) -> String {
        if self.shown_to_students() {
            self.name.clone()
        } else {
            format!("hidden scenario {}", index + 1)
        }
    }

    /// The memory check's findings as note lines (none when unchecked or clean).
    pub fn memory_notes(&self) -> Vec<String> {
        self.memory
            .as_ref()
            .map(Findings::notes)
            .unwrap_or_default()
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    Fail,
    Error,
    Updated,
}

/// Totals of a report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    pub errors: usize,
    /// Sums of u32 points: u64 so they never wrap.
    pub points: u64,
    pub possible: u64,
}

impl Report {
    /// The run in one line, as the platforms' files open with it:
    /// `6 of 9 scenarios passed; 6 / 9 points.`
    pub fn summary_line(&self) -> String {
        let t = self.totals();
        format!(
            "{} of {} scenarios passed; {} / {} points.",
            t.passed,
            self.scenarios.len(),
            t.points,
            t.possible
        )
    }

    pub fn new(
        subject: impl Into<String>,
        partition: Option<String>,
        elapsed_secs: f64,
        notes: Vec<String>,
        results: &[ScenarioResult],
    ) -> Report {
        let scenarios: Vec<ScenarioRecord> =
            results.iter().map(ScenarioRecord::from_result).collect();
        Report {
            chessgrade_report: REPORT_VERSION,
            subject: subject.into(),
            partition,
            elapsed_secs,
            notes,
            compile_error: None,
            changes: ScenarioRecord::tally(&scenarios),
            scenarios,
            run: None,
        }
    }

    /// The notes as the text formats tell them (the terminal, Gradescope's
    /// output, JUnit's, GitHub's notices): the run's notes, then the
    /// compiler's message ([`compile_error_note`]), right above the
    /// scenarios that point to it.
    pub fn told_notes(&self) -> Vec<String> {
        let mut notes = self.notes.clone();
        notes.extend(self.compile_error.as_deref().map(compile_error_note));
        notes
    }

    /// The report, with the compiler's message of an upload that did not
    /// build (`None`: it built, or nothing was built).
    pub fn with_compile_error(mut self, message: Option<String>) -> Report {
        self.compile_error = message;
        self
    }

    /// The report, marked as part of the run `identity`.
    pub fn with_run(mut self, identity: RunIdentity) -> Report {
        self.run = Some(identity);
        self
    }

    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for s in &self.scenarios {
            match s.status {
                Status::Pass | Status::Updated => t.passed += 1,
                Status::Fail => t.failed += 1,
                Status::Error => t.errors += 1,
            }
            t.points += u64::from(s.earned);
            t.possible += u64::from(s.points);
        }
        t
    }

    /// Joins the reports of a split run, each named (its file) for the
    /// errors: they must be of one run (same identity and subject), their
    /// slices `K/N` must each appear once and all appear, and together they
    /// must hold exactly the run's scenarios. Scenarios come out by name;
    /// notes without repeats; times added up; the compiler's message kept.
    pub fn merge(reports: Vec<(String, Report)>) -> Result<Report, MergeError> {
        use MergeProblem as P;
        let fail = |problem| Merging::Run.error(problem);
        let Some((first_name, first)) = reports.first() else {
            return Err(fail(P::Nothing));
        };
        let mut slices: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        let mut count = None;
        for (name, r) in &reports {
            if r.chessgrade_report != REPORT_VERSION {
                return Err(fail(P::Version {
                    file: name.clone(),
                    version: r.chessgrade_report,
                }));
            }
            let Some(run) = &r.run else {
                return Err(fail(P::NoIdentity { file: name.clone() }));
            };
            if Some(run) != first.run.as_ref() || r.subject != first.subject {
                return Err(fail(P::OtherRun {
                    first: first_name.clone(),
                    other: name.clone(),
                }));
            }
            let (k, n) = match &r.partition {
                Some(p) => parse_slice(p).ok_or_else(|| {
                    fail(P::BadSlice {
                        file: name.clone(),
                        slice: p.clone(),
                    })
                })?,
                None => (1, 1),
            };
            if *count.get_or_insert(n) != n {
                return Err(fail(P::DifferentSplits {
                    first: first_name.clone(),
                    other: name.clone(),
                }));
            }
            slices.entry(k).or_default().push(name.clone());
        }
        Merging::Run.check_slices(&slices, count.unwrap_or(1))?;
        let identity = first.run.clone().expect("checked above");
        let mut merged = Report {
            chessgrade_report: REPORT_VERSION,
            subject: first.subject.clone(),
            partition: None,
            elapsed_secs: 0.0,
            notes: Vec::new(),
            // Every slice built the same upload: its message is theirs.
            compile_error: reports.iter().find_map(|(_, r)| r.compile_error.clone()),
            scenarios: Vec::new(),
            run: Some(identity.clone()),
            changes: Tally::default(),
        };
        let mut by_name: BTreeMap<String, (String, ScenarioRecord)> = BTreeMap::new();
        // The memory check's leak item is each slice's own: one item for
        // the run, failed when any slice's failed (its points once).
        let mut leak_item: Option<ScenarioRecord> = None;
        for (file, r) in reports {
            merged.elapsed_secs += r.elapsed_secs;
            for n in r.notes {
                if !merged.notes.contains(&n) {
                    merged.notes.push(n);
                }
            }
            for s in r.scenarios {
                if s.name == crate::memcheck::LEAK_ITEM {
                    let worse = leak_item.as_ref().is_none_or(|k| s.earned < k.earned);
                    if worse {
                        leak_item = Some(s);
                    }
                    continue;
                }
                if let Some((other, _)) = by_name.get(&s.name) {
                    return Err(fail(P::Duplicate {
                        name: s.name,
                        files: [other.clone(), file],
                    }));
                }
                by_name.insert(s.name.clone(), (file.clone(), s));
            }
        }
        let names: Vec<&String> = by_name.keys().collect();
        let covered = RunIdentity::of(&names);
        if covered != identity {
            return Err(fail(P::Coverage {
                expected: identity.scenarios,
                found: covered.scenarios,
            }));
        }
        merged.scenarios = by_name.into_values().map(|(_, s)| s).collect();
        merged.scenarios.extend(leak_item);
        merged.changes = ScenarioRecord::tally(&merged.scenarios);
        Ok(merged)
    }
}

/// The compiler's message as a note of the text formats:
/// `compile error:` and the message on the lines below.
pub fn compile_error_note(message: &str) -> String {
    format!("compile error:\n{message}")
}

/// `slice:K/N` → (K, N).
fn parse_slice(p: &str) -> Option<(usize, usize)> {
    let (k, n) = p.strip_prefix("slice:")?.split_once('/')?;
    let (k, n) = (k.parse().ok()?, n.parse().ok()?);
    (1..=n).contains(&k).then_some((k, n))
}

/// Why reports cannot be merged into one honest result: the slices of a
/// split run (`--partition`, [`Report::merge`]) or of a class graded in
/// shards ([`ClassReport::merge`](super::ClassReport::merge)). Both merges
/// check the same things (one version, one identity, one split, each slice
/// once and every slice, nothing twice, everything covered), so one type
/// says them both, in the words of what is merged ([`Merging`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeError {
    pub of: Merging,
    pub problem: MergeProblem,
}

/// What is being merged: the words a [`MergeError`] says it in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merging {
    /// The reports of a split run (slices `slice:K/N`), holding scenarios.
    Run,
    /// The class reports of a class graded in shards (`shard K/N`),
    /// holding submissions.
    Class,
}

/// What is wrong with the slices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MergeProblem {
    Nothing,
    Version {
        file: String,
        version: u32,
    },
    /// A report that does not say what it is a slice of (an older
    /// chessgrade).
    NoIdentity {
        file: String,
    },
    /// Slices of different runs: other scenarios (a split run: or another
    /// subject).
    OtherRun {
        first: String,
        other: String,
    },
    /// Class slices of classes with different member lists.
    OtherClass {
        first: String,
        other: String,
    },
    /// A slice number that does not read (`slice:K/N`, `shard K/N`).
    BadSlice {
        file: String,
        slice: String,
    },
    DifferentSplits {
        first: String,
        other: String,
    },
    /// Each slice with the files that hold it.
    DuplicateSlices(Vec<(String, Vec<String>)>),
    MissingSlices(Vec<String>),
    /// One scenario (a class: one submission) in two slices.
    Duplicate {
        name: String,
        files: [String; 2],
    },
    /// The slices together do not hold the whole run (class).
    Coverage {
        expected: usize,
        found: usize,
    },
}

impl Merging {
    /// The error `problem` of these slices.
    pub(crate) fn error(self, problem: MergeProblem) -> MergeError {
        MergeError { of: self, problem }
    }

    /// A slice's name: `slice:2/3`, `shard 2/3`.
    fn slice(self, k: usize, n: usize) -> String {
        match self {
            Merging::Run => format!("slice:{k}/{n}"),
            Merging::Class => format!("shard {k}/{n}"),
        }
    }

    /// Each slice `K` of `n` (with the files that hold it) is there once.
    pub(crate) fn check_slices(
        self,
        slices: &BTreeMap<usize, Vec<String>>,
        n: usize,
    ) -> Result<(), MergeError> {
        let duplicates: Vec<(String, Vec<String>)> = slices
            .iter()
            .filter(|(_, files)| files.len() > 1)
            .map(|(k, files)| (self.slice(*k, n), files.clone()))
            .collect();
        if !duplicates.is_empty() {
            return Err(self.error(MergeProblem::DuplicateSlices(duplicates)));
        }
        let missing: Vec<String> = (1..=n)
            .filter(|k| !slices.contains_key(k))
            .map(|k| self.slice(k, n))
            .collect();
        if !missing.is_empty() {
            return Err(self.error(MergeProblem::MissingSlices(missing)));
        }
        Ok(())
    }
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use MergeProblem as P;
        let class = self.of == Merging::Class;
        // The words: what a slice is called, what is whole, what it holds.
        let (report, slices, whole, items) = match self.of {
            Merging::Run => ("report", "slices", "run", "scenario"),
            Merging::Class => ("class report", "shards", "class", "submission"),
        };
        match &self.problem {
            P::Nothing => write!(f, "no {report}s to merge"),
            P::Version { file, version } => {
                write!(f, "{file}: unsupported {report} version {version}")
            }
            P::NoIdentity { file } if class => write!(
                f,
                "{file}: the class report does not say which class and scenarios it is of (written by an older chessgrade?); grade that shard again"
            ),
            P::NoIdentity { file } => write!(
                f,
                "{file}: the report does not say which run it belongs to (written by an older chessgrade?); rerun that slice"
            ),
            P::OtherRun { first, other } if class => write!(
                f,
                "{first} and {other} graded the class on different scenarios"
            ),
            P::OtherRun { first, other } => write!(
                f,
                "{first} and {other} are not slices of one run (different scenarios or subject)"
            ),
            P::OtherClass { first, other } => write!(
                f,
                "{first} and {other} are slices of different classes (their member lists differ: was the class folder the same on every machine?)"
            ),
            P::BadSlice { file, slice } => {
                let what = if class { "shard" } else { "partition" };
                write!(f, "{file}: unreadable {what} `{slice}`")
            }
            P::DifferentSplits { first, other } => write!(
                f,
                "{first} and {other} split the {whole} into different numbers of {slices}"
            ),
            P::DuplicateSlices(d) => {
                let list: Vec<String> = d
                    .iter()
                    .map(|(slice, files)| format!("{slice} in {}", files.join(" and ")))
                    .collect();
                write!(f, "duplicate {slices}: {}", list.join("; "))
            }
            P::MissingSlices(m) => write!(f, "missing {slices}: {}", m.join(", ")),
            P::Duplicate { name, files } => {
                write!(f, "{items} {name} is in both {} and {}", files[0], files[1])
            }
            P::Coverage { expected, found } if !class => write!(
                f,
                "the slices hold {found} of the run's {expected} scenarios (a slice stopped early, e.g. --fail-fast?)"
            ),
            P::Coverage { expected, found } if expected == found => write!(
                f,
                "the slices' {found} submissions are not the class's {expected} (other names: was the class folder the same on every machine?)"
            ),
            P::Coverage { expected, found } => write!(
                f,
                "the slices hold {found} of the class's {expected} submissions"
            ),
        }
    }
}

impl std::error::Error for MergeError {}

/// A failure's one-line cause (what the recap and the `message` field
/// say); `None` for a result that is not a failure.
pub fn cause(r: &ScenarioResult) -> Option<String> {
    r.is_failure().then(|| status_of(r).4)
}

type Described = (Status, Option<String>, Option<u32>, Option<String>, String);

/// Status, class, line, step source and one-line message of a result.
fn status_of(r: &ScenarioResult) -> Described {
    match &r.verdict {
        Verdict::Pass => (Status::Pass, None, None, None, String::new()),
        Verdict::Updated { path, .. } => (
            Status::Updated,
            None,
            None,
            None,
            format!("wrote {}", path.display()),
        ),
        Verdict::NoSnapshot => (
            Status::Fail,
            Some("no_snapshot".to_string()),
            None,
            None,
            "no snapshot to compare with".to_string(),
        ),
        Verdict::InputError(d) => (
            Status::Error,
            Some("input_error".to_string()),
            (d.line > 0).then_some(d.line as u32),
            None,
            d.to_string().lines().next().unwrap_or_default().to_string(),
        ),
        Verdict::Fail(f) => {
            let what = match &f.kind {
                FailureKind::WrongAnswer(_) => {
                    "a call did not match the expected answer".to_string()
                }
                FailureKind::BoardOutOfSync { .. } => "the board is out of sync".to_string(),
                FailureKind::Subject(e) => e.to_string(),
                FailureKind::CompileError(_) => "compile error".to_string(),
                FailureKind::NotRecognised(_) => "not a recognised submission".to_string(),
                FailureKind::NotGraded(_) => "not graded (a staff-side problem)".to_string(),
                FailureKind::Transcript(t) => t.problem.to_string(),
                FailureKind::MemoryError(m) => m.to_string(),
                FailureKind::MemoryLeaks(l) => l.to_string(),
            };
            let at = match (f.line, &f.kind) {
                (Some(l), _) => format!(" at line {l}"),
                (None, FailureKind::Transcript(t)) => t
                    .place
                    .as_ref()
                    .map_or(String::new(), |p| format!(" at {p}")),
                (None, _) => String::new(),
            };
            let step = f
                .step_source
                .as_deref()
                .map_or(String::new(), |s| format!(": {s}"));
            (
                Status::Fail,
                Some(f.kind.class().to_string()),
                f.line,
                f.step_source.clone(),
                format!("{what}{at}{step}"),
            )
        }
    }
}

impl ScenarioRecord {
    fn from_result(r: &ScenarioResult) -> ScenarioRecord {
        let (status, class, line, step, message) = status_of(r);
        let noted = r.memory.as_ref().is_some_and(|m| !m.is_clean());
        let details = if status == Status::Pass && !noted {
            String::new()
        } else {
            plain_details(r)
        };
        ScenarioRecord {
            name: r.name.display().to_string(),
            path: r.path.display().to_string(),
            rules: r.rules.map(str::to_string),
            points: r.points,
            earned: r.earned(),
            visibility: r.visibility.name().to_string(),
            status,
            class,
            line,
            step,
            message,
            details,
            elapsed_secs: r.elapsed.as_secs_f64(),
            boards: match &r.verdict {
                Verdict::Fail(f) => failure_diagrams(f),
                _ => Vec::new(),
            },
            memory: r.memory.clone(),
            changes: r
                .changes()
                .unwrap_or_default()
                .iter()
                .map(|c| ChangeRecord {
                    line: c.line,
                    step: c.step.clone(),
                    kind: c.kind.group(),
                    what: c.kind.to_string(),
                })
                .collect(),
        }
    }
}

/// The human report of one scenario, without colour (whatever the
/// terminal's palette: a reporter is plain unless given one).
fn plain_details(r: &ScenarioResult) -> String {
    let mut buf = Vec::new();
    let _ = HumanReporter::new(&mut buf).scenario(r);
    String::from_utf8_lossy(&buf).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str, status: Status, points: u32) -> ScenarioRecord {
        ScenarioRecord {
            name: name.into(),
            path: format!("scenarios/{name}"),
            rules: None,
            points,
            earned: if status == Status::Pass { points } else { 0 },
            visibility: "visible".into(),
            status,
            class: None,
            line: None,
            step: None,
            message: String::new(),
            details: String::new(),
            elapsed_secs: 0.5,
            boards: Vec::new(),
            memory: None,
            changes: Vec::new(),
        }
    }

    /// Slice `k` of 2 of a run over a.txt, b.txt, d.txt.
    fn slice(k: usize, scenarios: Vec<ScenarioRecord>) -> (String, Report) {
        let r = Report {
            chessgrade_report: REPORT_VERSION,
            subject: "engine".into(),
            partition: Some(format!("slice:{k}/2")),
            elapsed_secs: 1.0,
            notes: vec!["n".into()],
            compile_error: None,
            scenarios,
            run: Some(RunIdentity::of(&["d.txt", "a.txt", "b.txt"])),
            changes: Tally::default(),
        };
        (format!("s{k}.json"), r)
    }

    fn both() -> Vec<(String, Report)> {
        vec![
            slice(
                1,
                vec![
                    record("b.txt", Status::Pass, 2),
                    record("d.txt", Status::Fail, 1),
                ],
            ),
            slice(2, vec![record("a.txt", Status::Pass, 3)]),
        ]
    }

    #[test]
    fn merging_slices_sorts_and_totals() {
        let m = Report::merge(both()).unwrap();
        let names: Vec<_> = m.scenarios.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, vec!["a.txt", "b.txt", "d.txt"]);
        assert_eq!(m.notes, vec!["n".to_string()]);
        assert_eq!(m.elapsed_secs, 2.0);
        let t = m.totals();
        assert_eq!((t.passed, t.failed, t.points, t.possible), (2, 1, 5, 6));
    }

    #[test]
    fn merging_keeps_the_compilers_message() {
        let mut reports = both();
        assert_eq!(Report::merge(reports.clone()).unwrap().compile_error, None);
        for (_, r) in &mut reports {
            r.compile_error = Some("Board.cc:3:1: error: expected ';'".into());
        }
        let m = Report::merge(reports).unwrap();
        assert_eq!(
            m.compile_error.as_deref(),
            Some("Board.cc:3:1: error: expected ';'")
        );
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["compile_error"], "Board.cc:3:1: error: expected ';'");
        assert_eq!(serde_json::from_value::<Report>(json).unwrap(), m);
    }

    #[test]
    fn a_missing_slice_is_named() {
        let mut reports = both();
        reports.pop();
        assert_eq!(
            Report::merge(reports).unwrap_err().to_string(),
            "missing slices: slice:2/2"
        );
    }

    #[test]
    fn a_duplicate_slice_names_both_files() {
        let mut reports = both();
        let mut again = reports[1].clone();
        again.0 = "copy.json".into();
        reports.push(again);
        assert_eq!(
            Report::merge(reports).unwrap_err().to_string(),
            "duplicate slices: slice:2/2 in s2.json and copy.json"
        );
    }

    #[test]
    fn slices_of_different_runs_or_subjects_do_not_merge() {
        let mut reports = both();
        reports[1].1.run = Some(RunIdentity::of(&["a.txt"]));
        assert!(matches!(
            Report::merge(reports),
            Err(MergeError {
                of: Merging::Run,
                problem: MergeProblem::OtherRun { .. }
            })
        ));
        let mut reports = both();
        reports[1].1.subject = "other".into();
        assert!(matches!(
            Report::merge(reports),
            Err(MergeError {
                problem: MergeProblem::OtherRun { .. },
                ..
            })
        ));
        let mut reports = both();
        reports[1].1.run = None;
        assert_eq!(
            Report::merge(reports).unwrap_err(),
            Merging::Run.error(MergeProblem::NoIdentity {
                file: "s2.json".into()
            })
        );
    }

    #[test]
    fn slices_that_do_not_hold_the_whole_run_do_not_merge() {
        let mut reports = both();
        reports[1].1.scenarios.clear();
        assert_eq!(
            Report::merge(reports).unwrap_err(),
            Merging::Run.error(MergeProblem::Coverage {
                expected: 3,
                found: 2
            })
        );
        let mut reports = both();
        reports[1]
            .1
            .scenarios
            .push(record("b.txt", Status::Pass, 2));
        assert!(matches!(
            Report::merge(reports),
            Err(MergeError {
                problem: MergeProblem::Duplicate { .. },
                ..
            })
        ));
    }

    #[test]
    fn the_tally_of_written_snapshots_is_the_records_own_and_merges_whole() {
        let change = |line, kind| ChangeRecord {
            line: Some(line),
            step: "isValidScan".into(),
            kind,
            what: String::new(),
        };
        let mut reports = both();
        // Slice 1: b.txt changed (two scan steps), d.txt new; slice 2: a.txt
        // changed (a scan and a board).
        reports[0].1.scenarios[0].status = Status::Updated;
        reports[0].1.scenarios[0].changes = vec![
            change(5, ChangeGroup::ScanSquares),
            change(6, ChangeGroup::ScanSquares),
        ];
        reports[0].1.scenarios[1].status = Status::Updated;
        reports[1].1.scenarios[0].status = Status::Updated;
        reports[1].1.scenarios[0].changes = vec![
            change(7, ChangeGroup::ScanSquares),
            change(8, ChangeGroup::Board),
        ];
        let slice = &reports[0].1;
        assert_eq!(
            ScenarioRecord::tally(&slice.scenarios),
            Tally::of([Some(vec![ChangeGroup::ScanSquares; 2]), None])
        );
        let merged = Report::merge(reports).unwrap();
        let counts: Vec<(ChangeGroup, usize, usize)> = merged
            .changes
            .groups
            .iter()
            .map(|g| (g.group, g.scenarios, g.steps))
            .collect();
        assert_eq!((merged.changes.new, merged.changes.changed), (1, 2));
        assert_eq!(
            counts,
            [(ChangeGroup::ScanSquares, 2, 3), (ChangeGroup::Board, 1, 1)]
        );
        // In the JSON only when something was written.
        let text = serde_json::to_string(&merged).unwrap();
        assert!(
            text.contains("\"changes\":{\"new\":1,\"changed\":2"),
            "{text}"
        );
        assert!(
            !serde_json::to_string(&both()[0].1)
                .unwrap()
                .contains("changes")
        );
    }

    #[test]
    fn each_slices_leak_item_merges_into_one_failed_if_any_failed() {
        let item = |status| {
            let mut r = record(crate::memcheck::LEAK_ITEM, status, 5);
            r.path = crate::memcheck::LEAK_ITEM.into();
            r
        };
        let mut reports = both();
        reports[0].1.scenarios.push(item(Status::Pass));
        reports[1].1.scenarios.push(item(Status::Fail));
        let m = Report::merge(reports).unwrap();
        let names: Vec<_> = m.scenarios.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            vec!["a.txt", "b.txt", "d.txt", crate::memcheck::LEAK_ITEM]
        );
        assert_eq!(m.scenarios[3].status, Status::Fail);
        let t = m.totals();
        assert_eq!((t.points, t.possible), (5, 11), "the item's points once");
    }

    #[test]
    fn identity_ignores_order_and_sees_names() {
        assert_eq!(RunIdentity::of(&["a", "b"]), RunIdentity::of(&["b", "a"]));
        assert_ne!(RunIdentity::of(&["a", "b"]), RunIdentity::of(&["a", "c"]));
        assert_ne!(RunIdentity::of(&["ab"]), RunIdentity::of(&["a", "b"]));
    }

    #[test]
    fn json_round_trips_and_old_reports_still_read() {
        let r = slice(1, vec![record("a.txt", Status::Fail, 1)]).1;
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains("\"status\":\"fail\""));
        assert!(text.contains("\"fingerprint\""));
        assert_eq!(serde_json::from_str::<Report>(&text).unwrap(), r);
        let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
        old.as_object_mut().unwrap().remove("run");
        let old: Report = serde_json::from_value(old).unwrap();
        assert_eq!(old.run, None);
    }
}
