//! Hidden tests at scale: `chessgrade gen` writes a suite of scenarios from
//! seeded random play of the reference engine, each with the snapshot the
//! engine answers, and a coverage summary.
//!
//! A scenario is built in three parts — a setup ([`setup`]: the start
//! position, a random legal placement, or a motif that catches bugs), steps
//! ([`play`]: legal moves biased toward captures, checks, promotions,
//! castling, en passant and game ends, and attempts at every refusal reason
//! of the rule set), then text ([`render()`]). The text is parsed back and
//! replayed by the runner on the engine, exactly as `chessgrade run` will,
//! so the snapshot is the run's own answer and a file that would not parse
//! is a generator bug caught here, not in a student's report.
//!
//! The rules are a [`RuleSet`]: a built-in set or a course's rule file.
//! Every position is built and played under them; their family
//! (`RuleSet::id`) decides what is the course's: the setup and step forms
//! its programs run, the mix, the motifs, the notation. A rule file's
//! suite is written with the rules beside its scenarios (a folder
//! `rules.toml`, see [`crate::rulefile`]), so that `chessgrade run OUT/`
//! runs it under them while each scenario keeps its family's `@rules`.
//!
//! Determinism: one SplitMix64 stream per scenario, seeded from the suite
//! seed and the scenario's index ([`rng`]), and nothing iterated in hash
//! order, so a seed gives the same bytes on every run of the same version,
//! and a suite of 10 is the first 10 of a suite of 1,000.
//!
//! Layout of a suite in `OUT/`:
//!
//! ```text
//! OUT/scenarios/<rules>/<index>_<focus>.txt
//! OUT/scenarios/<rules>/rules.toml          (a rule file's suite)
//! OUT/snapshots/scenario@<rules>__<index>_<focus>.txt.snap
//! OUT/coverage.txt
//! ```
//!
//! where `<rules>` is the rules' name (a built-in set's, or a rule file's
//! `name`).
//!
//! which `chessgrade run OUT/scenarios --root OUT/scenarios --snapshots
//! OUT/snapshots` runs (and `grade` grades); `run OUT/` with the same flags
//! too, since a folder walk passes over the summary
//! ([`crate::runner::is_gen_summary`]).

pub mod coverage;
pub mod play;
pub mod render;
pub mod rng;
pub mod setup;

pub use coverage::{Coverage, Feature, Hit, REFUSALS, reachable_refusals};
pub use render::render;
pub use setup::{Focus, Motif};

use crate::domain::Dims;
use crate::engine::{Game, RuleSet, RuleSetId};
use crate::rulefile::{self, Resolved, RuleBook};
use crate::scenario::{self, Scenario, Step};
use crate::snapshot::{Snapshot, SnapshotStore};
use crate::subject::{EngineSubject, Setup};
use rng::Rng;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The suite folder's layout, which the runner's walk knows too.
pub use crate::runner::{COVERAGE_FILE, SCENARIOS_DIR, SNAPSHOTS_DIR};

/// How often each kind of setup is drawn: `start=2,random=1,motif=2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mix {
    pub start: u32,
    pub random: u32,
    pub motif: u32,
}

impl Mix {
    /// The default for a rule set (CUHK: the start position only).
    pub fn default_for(rules: RuleSetId) -> Mix {
        match rules {
            RuleSetId::Cuhk => Mix {
                start: 1,
                random: 0,
                motif: 0,
            },
            _ => Mix {
                start: 2,
                random: 1,
                motif: 3,
            },
        }
    }
}

/// Why a `--mix` value was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadMix {
    /// A part that is not `<kind>=<weight>`.
    NotAPair(String),
    /// A weight that is not a number from 0 to 1000 (the part).
    Weight(String),
    /// A kind other than start, random, motif.
    UnknownKind(String),
    /// Every weight is 0.
    AllZero,
}

impl fmt::Display for BadMix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadMix::NotAPair(part) => {
                write!(f, "`{part}`: expected <kind>=<weight>, like motif=3")
            }
            BadMix::Weight(part) => {
                write!(f, "`{part}`: the weight must be a number from 0 to 1000")
            }
            BadMix::UnknownKind(key) => {
                write!(f, "`{key}`: unknown kind (known: start, random, motif)")
            }
            BadMix::AllZero => f.write_str("the mix needs one kind with a weight above 0"),
        }
    }
}

impl std::error::Error for BadMix {}

impl FromStr for Mix {
    type Err = BadMix;

    fn from_str(s: &str) -> Result<Mix, BadMix> {
        let mut mix = Mix {
            start: 0,
            random: 0,
            motif: 0,
        };
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| BadMix::NotAPair(part.to_string()))?;
            let weight: u32 = value
                .parse()
                .ok()
                .filter(|&w| w <= 1000)
                .ok_or_else(|| BadMix::Weight(part.to_string()))?;
            match key {
                "start" => mix.start = weight,
                "random" => mix.random = weight,
                "motif" => mix.motif = weight,
                _ => {
                    return Err(BadMix::UnknownKind(key.to_string()));
                }
            }
        }
        if mix.start + mix.random + mix.motif == 0 {
            return Err(BadMix::AllZero);
        }
        Ok(mix)
    }
}

impl fmt::Display for Mix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "start={},random={},motif={}",
            self.start, self.random, self.motif
        )
    }
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct GenOptions {
    /// The rules: a built-in set, or a rule file's (`rulefile::named`).
    pub rules: RuleSet,
    pub count: usize,
    pub seed: u64,
    /// One board size for every scenario (default: Lab 3 varies it, the
    /// others play 8x8).
    pub size: Option<Dims>,
    /// Steps per scenario (default: by rule set).
    pub steps: Option<usize>,
    /// Setup kinds (default: [`Mix::default_for`]).
    pub mix: Option<Mix>,
}

impl GenOptions {
    pub fn new(rules: RuleSet, count: usize, seed: u64) -> GenOptions {
        GenOptions {
            rules,
            count,
            seed,
            size: None,
            steps: None,
            mix: None,
        }
    }

    fn steps(&self) -> usize {
        self.steps.unwrap_or(match self.rules.id {
            RuleSetId::Lab3 => 6,
            RuleSetId::Standard | RuleSetId::Jhu => 10,
            RuleSetId::Cuhk => 16,
        })
    }

    /// Refuses what the rule set's grading subjects cannot run.
    fn check(&self) -> Result<Mix, GenError> {
        let bad = |m: String| Err(GenError::Options(m));
        let family = self.rules.id;
        let mix = self.mix.unwrap_or(Mix::default_for(family));
        let console = matches!(family, RuleSetId::Cuhk | RuleSetId::Jhu);
        let start = setup::start_dims(&self.rules);
        if self.rules.start.is_some() && start.is_none() {
            return bad(format!(
                "the rules `{}`: their `start` does not fit them",
                self.rules.name
            ));
        }
        match (self.size, start) {
            (Some(d), Some(s)) if d != s => {
                return bad(format!(
                    "--size {}x{}: the rules `{}` start on a {}x{} board (their `start`), and gen plays on it",
                    d.rows(),
                    d.cols(),
                    self.rules.name,
                    s.rows(),
                    s.cols()
                ));
            }
            (Some(d), None) if console && (d.rows(), d.cols()) != (8, 8) => {
                return bad(format!(
                    "--size {}x{}: {family} programs play on 8x8 only",
                    d.rows(),
                    d.cols(),
                ));
            }
            _ => {}
        }
        if family == RuleSetId::Cuhk && (mix.random > 0 || mix.motif > 0) {
            return bad("--mix: cuhk scenarios start from the start position (its console program cannot be set up), so only start=N".into());
        }
        if self.steps.is_some_and(|s| s > 10_000) {
            return bad("--steps: at most 10000".into());
        }
        Ok(mix)
    }
}

/// One generated scenario.
#[derive(Clone, Debug)]
pub struct Generated {
    /// Its name: the path under `OUT/scenarios/`.
    pub rel: PathBuf,
    pub text: String,
    /// The parsed scenario (as `run` will read it).
    pub scenario: Scenario,
    /// The `.snap` file's text.
    pub snapshot: String,
    pub focus: Focus,
    pub hits: Vec<Hit>,
}

/// A generated suite.
#[derive(Clone, Debug)]
pub struct Suite {
    pub scenarios: Vec<Generated>,
    pub coverage: Coverage,
}

#[derive(Debug)]
pub enum GenError {
    /// Options the rule set's subjects cannot honour (a staff error).
    Options(String),
    /// A generated file did not read back as generated: a chessgrade bug.
    Internal(String),
    Io(PathBuf, std::io::Error),
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GenError::Options(m) => f.write_str(m),
            GenError::Internal(m) => write!(f, "internal error (please report): {m}"),
            GenError::Io(p, e) => write!(f, "{}: {e}", p.display()),
        }
    }
}

impl std::error::Error for GenError {}

/// The suite's folder under `OUT/scenarios/` (and its snapshots' name
/// prefix): the rules' name, each run of characters other than letters,
/// digits, `_` and `.` written `-` (a rule file's name is any text, such
/// as `lab3 without double steps`), never hidden, `.` or `..`.
pub fn suite_folder(rules: &RuleSet) -> String {
    let mut folder = String::new();
    for c in rules.name.chars() {
        if c.is_alphanumeric() || matches!(c, '_' | '.') {
            folder.push(c);
        } else if !folder.ends_with('-') {
            folder.push('-');
        }
    }
    let folder = folder.trim_matches(['-', '.']);
    if folder.is_empty() {
        "rules".into()
    } else {
        folder.into()
    }
}

/// Are `rules` a built-in set (rather than a rule file's)? A rule file
/// that changes nothing is its set.
fn built_in(rules: &RuleSet) -> bool {
    *rules == rules.id.rules()
}

/// Generates the suite `opts` asks for.
pub fn generate(opts: &GenOptions) -> Result<Suite, GenError> {
    let mix = opts.check()?;
    let mut coverage = Coverage::new(opts.rules);
    let width = opts.count.saturating_sub(1).to_string().len().max(4);
    let scenarios = (0..opts.count)
        .map(|i| {
            let g = one(opts, mix, i, width)?;
            coverage.add_scenario(g.scenario.dims, g.focus.name(), g.scenario.steps.len());
            for &h in &g.hits {
                coverage.add(h);
            }
            Ok(g)
        })
        .collect::<Result<Vec<_>, GenError>>()?;
    Ok(Suite {
        scenarios,
        coverage,
    })
}

fn one(opts: &GenOptions, mix: Mix, index: usize, width: usize) -> Result<Generated, GenError> {
    let rules = &opts.rules;
    let mut rng = Rng::for_scenario(opts.seed, index as u64);
    let focus = match rng.weighted(&[mix.start, mix.random, mix.motif]) {
        0 => Focus::Start,
        1 => Focus::Random,
        _ => match setup::motifs(rules).as_slice() {
            [] => Focus::Random,
            motifs => Focus::Motif(*rng.pick(motifs)),
        },
    };
    let dims = setup::pick_dims(&mut rng, rules, opts.size);
    let built = setup::build(&mut rng, rules, dims, focus);
    let mut scenario = built.scenario;
    let start = Setup::of(&scenario)
        .initial_position()
        .map_err(|e| GenError::Internal(format!("scenario {index}: setup: {e}")))?;
    let favour = match built.focus {
        Focus::Motif(Motif::Pin | Motif::Check) if rules.king_safety => {
            Some(crate::engine::MoveError::ExposesCheck)
        }
        _ => None,
    };
    let played = play::play(
        &mut rng,
        rules,
        Game::new(start),
        opts.steps(),
        favour,
        &built.opening,
    );
    scenario.steps = played
        .steps
        .iter()
        .map(|kind| Step {
            line: 0,
            kind: kind.clone(),
        })
        .collect();
    let rel = PathBuf::from(suite_folder(rules))
        .join(format!("{index:0width$}_{}.txt", built.focus.name()));
    // A rule file's suite names the rules.toml written beside it.
    let named = if built_in(rules) {
        rules.name
    } else {
        rulefile::FOLDER_FILE
    };
    let comments = vec![
        format!(
            "chessgrade gen --rules {named} --seed {}: scenario {index} ({})",
            opts.seed,
            built.focus.name()
        ),
        format!(
            "setup: {}x{}, {}",
            scenario.dims.rows(),
            scenario.dims.cols(),
            built.what
        ),
        format!("covers: {}", covers(&played.hits)),
    ];
    let text = render(&scenario, &comments);
    // Read back as `run` reads it: under these rules (a rule file's
    // suite's folder file), whatever family its `@rules` names.
    let book = RuleBook::fixed(Resolved {
        rules: *rules,
        file: None,
    });
    let parsed = scenario::parse_with(&text, &book.for_text()).map_err(|d| {
        GenError::Internal(format!("{}: does not parse: {d}\n{text}", rel.display()))
    })?;
    let kinds = |s: &Scenario| s.steps.iter().map(|s| s.kind.clone()).collect::<Vec<_>>();
    if kinds(&parsed) != played.steps || parsed.placements.len() != scenario.placements.len() {
        return Err(GenError::Internal(format!(
            "{}: reads back differently from what was generated",
            rel.display()
        )));
    }
    let execution = crate::runner::execute(&parsed, &mut EngineSubject::new());
    let input = Path::new(SCENARIOS_DIR).join(&rel);
    let snapshot = Snapshot::new(&input, &execution.trace.render()).render();
    Ok(Generated {
        rel,
        text,
        scenario: parsed,
        snapshot,
        focus: built.focus,
        hits: played.hits,
    })
}

/// "refused: path is not clear (2), capture, ..." in first-hit order.
fn covers(hits: &[Hit]) -> String {
    let mut seen: Vec<(Hit, usize)> = Vec::new();
    for &h in hits {
        match seen.iter_mut().find(|(s, _)| *s == h) {
            Some((_, n)) => *n += 1,
            None => seen.push((h, 1)),
        }
    }
    if seen.is_empty() {
        return "nothing beyond the setup".into();
    }
    seen.iter()
        .map(|(h, n)| {
            if *n > 1 {
                format!("{h} ({n})")
            } else {
                h.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where [`Suite::write`] wrote a suite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// `OUT/scenarios/<rules>`.
    pub scenarios: PathBuf,
    /// `OUT/snapshots`.
    pub snapshots: PathBuf,
    /// `OUT/scenarios/<rules>/rules.toml`: a rule file's rules, written flat.
    pub rules: Option<PathBuf>,
    /// `OUT/coverage.txt`.
    pub coverage: PathBuf,
}

impl Suite {
    /// Writes the suite under `out` (see the module docs for the layout):
    /// a rule file's rules beside its scenarios, where `run` finds them.
    /// An existing suite of the same rules there is refused unless
    /// `replace`, which removes it first (scenarios and their snapshots).
    pub fn write(&self, out: &Path, replace: bool) -> Result<Written, GenError> {
        let io = |p: &Path| {
            let p = p.to_path_buf();
            move |e| GenError::Io(p, e)
        };
        let rules = suite_folder(&self.coverage.rules);
        let dir = out.join(SCENARIOS_DIR).join(&rules);
        let snapshots = out.join(SNAPSHOTS_DIR);
        let occupied = std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some());
        if occupied && !replace {
            return Err(GenError::Options(format!(
                "{} already holds scenarios (pass --force to replace them)",
                dir.display()
            )));
        }
        if occupied {
            std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
            let prefix = format!("scenario@{rules}__");
            if let Ok(entries) = std::fs::read_dir(&snapshots) {
                for e in entries.flatten() {
                    if e.file_name().to_string_lossy().starts_with(&prefix) {
                        std::fs::remove_file(e.path()).map_err(io(&e.path()))?;
                    }
                }
            }
        }
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        std::fs::create_dir_all(&snapshots).map_err(io(&snapshots))?;
        let store = SnapshotStore::new(&snapshots);
        for g in &self.scenarios {
            let path = out.join(SCENARIOS_DIR).join(&g.rel);
            std::fs::write(&path, &g.text).map_err(io(&path))?;
            let snap = store.path_for(&g.rel);
            std::fs::write(&snap, &g.snapshot).map_err(io(&snap))?;
        }
        let rules_file = if built_in(&self.coverage.rules) {
            None
        } else {
            let file = dir.join(rulefile::FOLDER_FILE);
            std::fs::write(&file, rulefile::show(&self.coverage.rules)).map_err(io(&file))?;
            Some(file)
        };
        let cov = out.join(COVERAGE_FILE);
        std::fs::write(&cov, self.coverage.to_string()).map_err(io(&cov))?;
        Ok(Written {
            scenarios: dir,
            snapshots,
            rules: rules_file,
            coverage: cov,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &'static str) -> RuleSet {
        RuleSet {
            name,
            en_passant: true,
            ..RuleSet::lab3()
        }
    }

    #[test]
    fn a_rule_files_name_becomes_one_plain_folder() {
        for id in RuleSetId::ALL {
            assert_eq!(suite_folder(&id.rules()), id.name());
        }
        let cases = [
            ("capablanca", "capablanca"),
            ("lab3 without double steps", "lab3-without-double-steps"),
            ("../../etc", "etc"),
            ("a/b\\c", "a-b-c"),
            (".hidden", "hidden"),
            ("CS 101 (2026).v2", "CS-101-2026-.v2"),
            ("échecs", "échecs"),
            ("..", "rules"),
            ("", "rules"),
        ];
        for (name, folder) in cases {
            assert_eq!(suite_folder(&named(name)), folder, "{name}");
        }
    }

    #[test]
    fn a_start_fixes_the_board_and_another_size_is_refused() {
        let small = RuleSet {
            start: Some("rnbqk/ppppp/5/5/PPPPP/RNBQK w - - 0 1"),
            castling: crate::engine::Castling::None,
            ..RuleSet::standard()
        };
        let opts = |size: Option<(i64, i64)>| GenOptions {
            size: size.map(|(r, c)| Dims::new(r, c).unwrap()),
            ..GenOptions::new(small, 12, 1)
        };
        let suite = generate(&opts(None)).unwrap();
        assert_eq!(suite.coverage.sizes.keys().collect::<Vec<_>>(), [&(6, 5)]);
        assert!(generate(&opts(Some((6, 5)))).is_ok());
        let err = generate(&opts(Some((8, 8)))).unwrap_err().to_string();
        assert!(err.contains("--size 8x8") && err.contains("6x5"), "{err}");
        // The start setups are the rules' start.
        let start = suite.scenarios.iter().find(|g| g.focus == Focus::Start);
        assert_eq!(start.unwrap().scenario.fen, small.start.map(String::from));
    }
}
