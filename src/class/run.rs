//! A class run as one value, decided in the library: the members (and a
//! shard's share of them), the scenarios, the class's one plan, then the
//! grading and the class report. The CLI builds a [`ClassSpec`] from its
//! flags, says what [`ClassRun`] reports (the header, each member as it
//! finishes, the table) and writes the files; it decides nothing, as for
//! `grade` (cargo-nextest's runner builder is the model).

use super::shard::{self, Shard, ShardSpec};
use super::{ClassOptions, Graded, Member, Naming};
use crate::grading::{BatchSpec, Discovered, Plan, StaffError, UploadOptions};
use crate::report::{ClassIdentity, ClassReport, Report, RunIdentity, SliceInfo};
use crate::runner::{Found, SnapshotMode};
use crate::scenario::Diagnostic;
use crate::snapshot::SnapshotStore;
use std::path::PathBuf;

/// What the flags ask of a class run.
pub struct ClassSpec {
    /// The class folder (`--class DIR`).
    pub dir: PathBuf,
    /// The scenarios, as for any batch.
    pub batch: BatchSpec,
    /// How each upload is built and run.
    pub options: UploadOptions,
    /// `--shard K/N`, `--shard-count N`.
    pub shard: Option<ShardSpec>,
    pub shard_count: Option<usize>,
    /// `--require-isolation`.
    pub require_isolation: bool,
}

/// A class ready to grade: everything decided, nothing built yet.
pub struct ClassRun {
    pub dir: PathBuf,
    /// Every member of the class, and how they were named.
    pub all: Vec<Member>,
    pub naming: Naming,
    /// The members this run grades (a shard's share, or all).
    pub members: Vec<Member>,
    pub shard: Option<Shard>,
    pub found: Vec<Found>,
    /// Scenarios that could not be read (input errors).
    pub errors: Vec<Diagnostic>,
    /// What the walk passed over.
    pub skipped: Vec<String>,
    /// What the class table calls the uploads (`Lab 3`, `JHU console`).
    pub kind: String,
    /// `isolation: ...`, said once and in every member's report.
    pub isolation: String,
    /// The memory check, said once.
    pub memcheck: Option<String>,
    identity: RunIdentity,
    store: SnapshotStore,
    options: ClassOptions,
    /// Keeps an LMS download's gathered files while the run is.
    _roster: super::Roster,
    /// Keeps the members' uploads copied out of the class folder before
    /// any build, where Landlock does not keep members apart (`stage`).
    _staged: Option<super::stage::Staged>,
}

/// A graded class: each member, the class report, what went wrong on the
/// staff's side.
pub struct ClassOutcome {
    pub graded: Vec<Graded>,
    pub report: ClassReport,
    /// `member: error` for each build that could not even start.
    pub staff_errors: Vec<String>,
    /// Members whose build came from the build cache.
    pub from_cache: usize,
    /// Some scenarios could not be read (the run's input errors).
    pub input_errors: bool,
}

impl ClassSpec {
    /// Reads the class, picks the shard, walks the scenarios and sets up
    /// the class's one plan; a problem here is the staff's (exit 2).
    pub fn prepare(self, env: impl Fn(&str) -> Option<String>) -> Result<ClassRun, StaffError> {
        let isolation =
            crate::grading::isolation_note(self.require_isolation, &self.options.limits.disk)?;
        let roster = super::members(&self.dir)?;
        let shard = shard::detect(self.shard, self.shard_count, env)
            .map_err(|e| StaffError::Usage(format!("cannot tell which shard to grade: {e}")))?;
        if shard.is_some() && self.batch.partition.is_some() {
            return Err(StaffError::Usage(
                "a class in shards splits its members, --partition a run's scenarios: give only one"
                    .into(),
            ));
        }
        let all = roster.members.clone();
        let members = match &shard {
            Some(s) => shard::select(&all, s),
            None => all.clone(),
        };
        // Every upload read before any student code runs, where nothing
        // else keeps a member's build from a classmate's files.
        let staged = super::stage::stage(&members).map_err(|e| {
            StaffError::Class(format!(
                "cannot copy the uploads out of {} before grading: {e}",
                self.dir.display()
            ))
        })?;
        let members = staged.as_ref().map_or(members, |s| s.members.clone());
        let Discovered {
            found,
            errors,
            notes: skipped,
            identity,
        } = self.batch.discover().map_err(|e| match e {
            StaffError::NoScenario { notes, .. } => StaffError::NoScenario {
                message: "no scenario selected for the class (pass --allow-empty to accept that)"
                    .into(),
                notes,
            },
            e => e,
        })?;
        let store = self.batch.store();
        let plan = Plan::for_uploads(&found, &store, &self.options)?;
        if plan.judges_on_snapshots() {
            self.batch.check_snapshots(&found)?;
        }
        Ok(ClassRun {
            dir: self.dir,
            naming: roster.naming.clone(),
            all,
            members,
            shard,
            found,
            errors,
            skipped,
            kind: plan.kind_name(),
            isolation,
            memcheck: plan.memcheck_note(),
            identity,
            store,
            options: ClassOptions {
                plan,
                jobs: self.batch.jobs,
                mode: SnapshotMode::Check,
            },
            _roster: roster,
            _staged: staged,
        })
    }
}

impl ClassRun {
    /// Grades the members (`on_done` sees each as it finishes) and makes
    /// the class report: each member's report with the isolation note,
    /// the class's identity, the shard's slice.
    pub fn grade(&self, on_done: &(dyn Fn(&Graded) + Sync)) -> ClassOutcome {
        let graded = super::grade_class(
            &self.members,
            &self.found,
            &self.store,
            &self.options,
            on_done,
        );
        let reports: Vec<Report> = graded
            .iter()
            .map(|g| {
                let mut report = g.report(&self.identity);
                report.notes.push(self.isolation.clone());
                report
            })
            .collect();
        let names: Vec<&str> = self.all.iter().map(|m| m.name.as_str()).collect();
        let mut report = ClassReport::new(reports)
            .with_identity(ClassIdentity::of(&names), self.identity.clone());
        if let Some(s) = &self.shard {
            report = report.with_shard(SliceInfo {
                index: s.index,
                count: s.count,
                from: s.origin(),
            });
        }
        let staff_errors = graded
            .iter()
            .filter_map(|g| {
                g.staff_error
                    .as_ref()
                    .map(|e| format!("{}: {e}", g.member.name))
            })
            .collect();
        let from_cache = graded.iter().filter(|g| g.from_cache).count();
        ClassOutcome {
            graded,
            report,
            staff_errors,
            from_cache,
            input_errors: !self.errors.is_empty(),
        }
    }
}

impl ClassOutcome {
    /// The run's exit code: 2 for a staff-side problem (a build that could
    /// not start, a scenario that could not be read), else the class's.
    pub fn exit_code(&self) -> u8 {
        self.report
            .exit_code(!self.staff_errors.is_empty() || self.input_errors)
    }
}
