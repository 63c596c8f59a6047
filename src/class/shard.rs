//! A class in shards: which share of a class one machine grades, so that
//! a class of any size can be spread over the job engines courses already
//! run (a Slurm job array, a Kubernetes Indexed Job, GitLab `parallel:`, a
//! GitHub Actions matrix) and merged back into one class report.
//!
//! Two things are decided here, both without talking to the other
//! machines, so both must come out the same on every one of them:
//!
//! - **Which shard am I** ([`detect`]): `--shard K/N` when given, else the
//!   variables the engine sets for each task (see [`ShardSource`]); the
//!   shard records where K and N came from, and the class slice says it.
//! - **Which members are mine** ([`assign`]): a deterministic, disjoint
//!   split of the whole member list balanced by estimated cost (the bytes
//!   of an upload's sources plus a fixed share every member costs alike),
//!   by greedy longest-processing-time: members sorted by cost (largest
//!   first) then name, each given to the least-loaded shard (lowest number
//!   on ties). It depends only on the members' names and source sizes, so
//!   every machine that sees the same class folder makes the same split;
//!   one that sees a different folder is caught by `merge` (the slices'
//!   member lists do not match).

use super::Member;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// What every member costs besides its sources (the adapter, the link,
/// running the scenarios), in the same unit as source bytes: without it a
/// shard of many tiny uploads would be thought cheap.
pub const FIXED_COST: u64 = 16 * 1024;

/// The variable naming the completions count of a Kubernetes Indexed Job
/// (Kubernetes sets only the index); `--shard-count` overrides it.
pub const SHARD_COUNT_VAR: &str = "CHESSGRADE_SHARD_COUNT";

/// Every variable [`detect`] reads (tests clear them around a run).
pub const VARIABLES: [&str; 9] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_STEP",
    "JOB_COMPLETION_INDEX",
    SHARD_COUNT_VAR,
    "CI_NODE_INDEX",
    "CI_NODE_TOTAL",
];

/// `K/N` as written on the command line: shard K (1-based) of N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    pub index: usize,
    pub count: usize,
}

/// A `--shard` value that is not `K/N` with 1 <= K <= N (the text given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadShard(pub String);

impl fmt::Display for BadShard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a shard is K/N with 1 <= K <= N (e.g. 2/4), found `{}`",
            self.0
        )
    }
}

impl std::error::Error for BadShard {}

impl FromStr for ShardSpec {
    type Err = BadShard;
    fn from_str(s: &str) -> Result<Self, BadShard> {
        let bad = || BadShard(s.to_string());
        let (k, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(ShardSpec { index, count })
    }
}

/// Where a shard's K and N came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardSource {
    /// `--shard K/N`.
    Flag,
    /// A Slurm job array: `SLURM_ARRAY_TASK_ID` counted from
    /// `SLURM_ARRAY_TASK_MIN` in steps of `SLURM_ARRAY_TASK_STEP` (1 when
    /// unset); N is `SLURM_ARRAY_TASK_COUNT`, else from `_MAX`.
    Slurm,
    /// A Kubernetes Indexed Job: `JOB_COMPLETION_INDEX` (0-based); N from
    /// `--shard-count` or `CHESSGRADE_SHARD_COUNT`.
    Kubernetes,
    /// GitLab `parallel:`: `CI_NODE_INDEX` (1-based) of `CI_NODE_TOTAL`.
    GitLab,
}

impl fmt::Display for ShardSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ShardSource::Flag => "--shard",
            ShardSource::Slurm => "Slurm array",
            ShardSource::Kubernetes => "Kubernetes Indexed Job",
            ShardSource::GitLab => "GitLab parallel",
        })
    }
}

/// One machine's shard: K of N, and what said so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: usize,
    pub count: usize,
    pub source: ShardSource,
    /// The variables read, as `NAME=value` (empty for the flag).
    pub variables: Vec<String>,
}

impl Shard {
    /// Where K/N came from, for the slice and the terminal:
    /// `Slurm array: SLURM_ARRAY_TASK_ID=3, ...`, or `--shard`.
    pub fn origin(&self) -> String {
        if self.variables.is_empty() {
            self.source.to_string()
        } else {
            format!("{}: {}", self.source, self.variables.join(", "))
        }
    }
}

/// Why no shard could be worked out (the staff's setup; exit 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShardError {
    /// A variable is not a whole number.
    NotANumber { variable: String, value: String },
    /// A variable the engine's scheme needs is missing.
    Missing { needed: String, because: String },
    /// The numbers do not make a shard K of N.
    OutOfRange { variables: Vec<String>, why: String },
    /// `--shard-count` without an Indexed Job's index.
    CountWithoutIndex,
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardError::NotANumber { variable, value } => {
                write!(f, "{variable}={value} is not a whole number")
            }
            ShardError::Missing { needed, because } => {
                write!(f, "{because} is set but {needed} is not")
            }
            ShardError::OutOfRange { variables, why } => {
                write!(f, "{}: {why}", variables.join(", "))
            }
            ShardError::CountWithoutIndex => f.write_str(
                "--shard-count is the completions count of a Kubernetes Indexed Job, but JOB_COMPLETION_INDEX is not set (use --shard K/N elsewhere)",
            ),
        }
    }
}

impl std::error::Error for ShardError {}

/// The shard this machine grades: `flag` when given (`--shard 1/1` grades
/// the whole class whatever the environment says), else the first engine
/// whose variables are set, looked up through `env` (Slurm, then
/// Kubernetes, then GitLab); `None` when there is none (the whole class).
/// `shard_count` is `--shard-count`.
pub fn detect(
    flag: Option<ShardSpec>,
    shard_count: Option<usize>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<Shard>, ShardError> {
    if let Some(ShardSpec { index, count }) = flag {
        return Ok(Some(Shard {
            index,
            count,
            source: ShardSource::Flag,
            variables: Vec::new(),
        }));
    }
    let var = |name: &str| -> Result<Option<(String, usize)>, ShardError> {
        match env(name) {
            None => Ok(None),
            Some(v) if v.trim().is_empty() => Ok(None),
            Some(v) => v
                .trim()
                .parse()
                .map(|n| Some((format!("{name}={}", v.trim()), n)))
                .map_err(|_| ShardError::NotANumber {
                    variable: name.into(),
                    value: v,
                }),
        }
    };
    let shard = |index: usize, count: usize, source, variables: Vec<String>| {
        if count == 0 || index == 0 || index > count {
            return Err(ShardError::OutOfRange {
                variables,
                why: format!("that is not a shard K/N with 1 <= K <= N (K={index}, N={count})"),
            });
        }
        Ok(Some(Shard {
            index,
            count,
            source,
            variables,
        }))
    };
    if let Some((id_text, id)) = var("SLURM_ARRAY_TASK_ID")? {
        let (min_text, min) = var("SLURM_ARRAY_TASK_MIN")?.ok_or_else(|| ShardError::Missing {
            needed: "SLURM_ARRAY_TASK_MIN".into(),
            because: "SLURM_ARRAY_TASK_ID".into(),
        })?;
        let step = var("SLURM_ARRAY_TASK_STEP")?;
        let count = var("SLURM_ARRAY_TASK_COUNT")?;
        let max = var("SLURM_ARRAY_TASK_MAX")?;
        let mut variables = vec![id_text, min_text];
        let step_n = match &step {
            Some((t, s)) if *s != 1 => {
                variables.push(t.clone());
                *s
            }
            _ => 1,
        };
        if let Some((t, _)) = &max {
            variables.push(t.clone());
        }
        if let Some((t, _)) = &count {
            variables.push(t.clone());
        }
        if step_n == 0 || id < min || (id - min) % step_n != 0 {
            return Err(ShardError::OutOfRange {
                variables,
                why: "the task id is not one of MIN, MIN+STEP, ...".into(),
            });
        }
        let from_max = max
            .as_ref()
            .map(|(_, m)| m.saturating_sub(min) / step_n + 1);
        let n = match (count.as_ref().map(|c| c.1), from_max) {
            (Some(c), Some(m)) if c != m => {
                return Err(ShardError::OutOfRange {
                    variables,
                    why: format!(
                        "the array is not a range MIN-MAX (its {c} tasks are not the {m} from MIN to MAX); give it as --array=MIN-MAX[:STEP]"
                    ),
                });
            }
            (Some(c), _) => c,
            (None, Some(m)) => m,
            (None, None) => {
                return Err(ShardError::Missing {
                    needed: "SLURM_ARRAY_TASK_COUNT (or SLURM_ARRAY_TASK_MAX)".into(),
                    because: "SLURM_ARRAY_TASK_ID".into(),
                });
            }
        };
        return shard((id - min) / step_n + 1, n, ShardSource::Slurm, variables);
    }
    if let Some((index_text, index)) = var("JOB_COMPLETION_INDEX")? {
        let mut variables = vec![index_text];
        let count = match shard_count {
            Some(n) => n,
            None => {
                let (t, n) = var(SHARD_COUNT_VAR)?.ok_or_else(|| ShardError::Missing {
                    needed: format!("--shard-count (or {SHARD_COUNT_VAR}, the Job's completions)"),
                    because: "JOB_COMPLETION_INDEX".into(),
                })?;
                variables.push(t);
                n
            }
        };
        return shard(
            index.saturating_add(1),
            count,
            ShardSource::Kubernetes,
            variables,
        );
    }
    if shard_count.is_some() {
        return Err(ShardError::CountWithoutIndex);
    }
    if let Some((index_text, index)) = var("CI_NODE_INDEX")? {
        let (total_text, total) = var("CI_NODE_TOTAL")?.ok_or_else(|| ShardError::Missing {
            needed: "CI_NODE_TOTAL".into(),
            because: "CI_NODE_INDEX".into(),
        })?;
        return shard(
            index,
            total,
            ShardSource::GitLab,
            vec![index_text, total_text],
        );
    }
    Ok(None)
}

/// A member's estimated cost: the bytes of its C/C++ sources and build
/// files (symbolic links not followed, unreadable files counted as empty)
/// plus [`FIXED_COST`].
pub fn cost(dir: &Path) -> u64 {
    // A zip member: its packed bytes stand for its sources.
    if dir.is_file() {
        let len = std::fs::metadata(dir).map_or(0, |m| m.len());
        return len.saturating_add(FIXED_COST);
    }
    let counted = |p: &Path| {
        p.file_name()
            .is_some_and(|n| n == "Makefile" || n == "makefile" || n == "CMakeLists.txt")
            || p.extension().is_some_and(|x| {
                ["cc", "cpp", "cxx", "c", "h", "hh", "hpp", "hxx"]
                    .iter()
                    .any(|e| x == *e)
            })
    };
    let bytes: u64 = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && counted(e.path()))
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .fold(0, u64::saturating_add);
    bytes.saturating_add(FIXED_COST)
}

/// The shard (1-based) of each member of `costs` (name, cost), in the
/// given order: greedy longest-processing-time over the members sorted by
/// cost (largest first) then name, each to the least-loaded shard, the
/// lowest-numbered on ties. Depends only on the names and costs, not on
/// their order.
pub fn assign(costs: &[(&str, u64)], count: usize) -> Vec<usize> {
    let count = count.max(1);
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].1.cmp(&costs[a].1).then(costs[a].0.cmp(costs[b].0)));
    let mut load = vec![0u64; count];
    let mut out = vec![0; costs.len()];
    for i in order {
        let (least, _) = load
            .iter()
            .enumerate()
            .min_by_key(|&(k, l)| (*l, k))
            .expect("at least one shard");
        load[least] = load[least].saturating_add(costs[i].1);
        out[i] = least + 1;
    }
    out
}

/// The members of `all` that `shard` grades, in the order of `all`.
pub fn select(all: &[Member], shard: &Shard) -> Vec<Member> {
    let costs: Vec<(String, u64)> = all.iter().map(|m| (m.name.clone(), cost(&m.dir))).collect();
    let named: Vec<(&str, u64)> = costs.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    assign(&named, shard.count)
        .into_iter()
        .zip(all)
        .filter(|(k, _)| *k == shard.index)
        .map(|(_, m)| m.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    fn k_of_n(r: Result<Option<Shard>, ShardError>) -> (usize, usize, ShardSource) {
        let s = r.unwrap().unwrap();
        (s.index, s.count, s.source)
    }

    #[test]
    fn the_flag_is_parsed_and_wins_over_the_environment() {
        assert_eq!(
            "2/4".parse::<ShardSpec>(),
            Ok(ShardSpec { index: 2, count: 4 })
        );
        for bad in ["0/4", "5/4", "1/0", "2", "a/b", "-1/2", ""] {
            assert!(bad.parse::<ShardSpec>().is_err(), "{bad}");
        }
        let gitlab = env(&[("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "3")]);
        let flag = Some(ShardSpec { index: 1, count: 1 });
        assert_eq!(
            k_of_n(detect(flag, None, &gitlab)),
            (1, 1, ShardSource::Flag)
        );
        assert_eq!(detect(None, None, env(&[])), Ok(None));
    }

    #[test]
    fn slurm_arrays_count_from_their_first_task_in_steps() {
        // sbatch --array=0-3
        let zero_based = env(&[
            ("SLURM_ARRAY_TASK_ID", "0"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_STEP", "1"),
        ]);
        assert_eq!(
            k_of_n(detect(None, None, zero_based)),
            (1, 4, ShardSource::Slurm)
        );
        // sbatch --array=1-3, older Slurm without _COUNT
        let one_based = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "3"),
        ]);
        let s = detect(None, None, one_based).unwrap().unwrap();
        assert_eq!((s.index, s.count), (3, 3));
        assert_eq!(
            s.origin(),
            "Slurm array: SLURM_ARRAY_TASK_ID=3, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_MAX=3"
        );
        // sbatch --array=10-40:10 → tasks 10, 20, 30, 40
        let stepped = env(&[
            ("SLURM_ARRAY_TASK_ID", "30"),
            ("SLURM_ARRAY_TASK_MIN", "10"),
            ("SLURM_ARRAY_TASK_MAX", "40"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
            ("SLURM_ARRAY_TASK_STEP", "10"),
        ]);
        assert_eq!(
            k_of_n(detect(None, None, stepped)),
            (3, 4, ShardSource::Slurm)
        );
    }

    #[test]
    fn slurm_arrays_that_are_not_a_range_are_refused() {
        // sbatch --array=1,3,7: three tasks, MIN 1, MAX 7.
        let list = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "7"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]);
        let e = detect(None, None, list).unwrap_err().to_string();
        assert!(e.contains("not a range MIN-MAX"), "{e}");
        let no_min = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(
            detect(None, None, no_min).unwrap_err().to_string(),
            "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN is not"
        );
        let word = env(&[("SLURM_ARRAY_TASK_ID", "three")]);
        assert_eq!(
            detect(None, None, word).unwrap_err().to_string(),
            "SLURM_ARRAY_TASK_ID=three is not a whole number"
        );
    }

    #[test]
    fn kubernetes_indexes_from_zero_and_needs_the_count() {
        let pod = env(&[("JOB_COMPLETION_INDEX", "2")]);
        assert_eq!(
            k_of_n(detect(None, Some(4), &pod)),
            (3, 4, ShardSource::Kubernetes)
        );
        assert!(
            detect(None, None, &pod)
                .unwrap_err()
                .to_string()
                .contains("--shard-count (or CHESSGRADE_SHARD_COUNT")
        );
        let with_var = env(&[("JOB_COMPLETION_INDEX", "3"), (SHARD_COUNT_VAR, "4")]);
        let s = detect(None, None, with_var).unwrap().unwrap();
        assert_eq!((s.index, s.count), (4, 4));
        assert_eq!(
            s.origin(),
            "Kubernetes Indexed Job: JOB_COMPLETION_INDEX=3, CHESSGRADE_SHARD_COUNT=4"
        );
        let past = env(&[("JOB_COMPLETION_INDEX", "4")]);
        assert!(matches!(
            detect(None, Some(4), past),
            Err(ShardError::OutOfRange { .. })
        ));
        assert_eq!(
            detect(None, Some(4), env(&[])),
            Err(ShardError::CountWithoutIndex)
        );
    }

    #[test]
    fn gitlab_counts_from_one() {
        let job = env(&[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "2")]);
        assert_eq!(k_of_n(detect(None, None, job)), (1, 2, ShardSource::GitLab));
        let zero = env(&[("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "2")]);
        assert!(detect(None, None, zero).is_err());
        let alone = env(&[("CI_NODE_INDEX", "1")]);
        assert!(detect(None, None, alone).is_err());
    }

    #[test]
    fn longest_first_to_the_least_loaded_shard() {
        // Worked by hand: sorted e(9) a(7) b(7) d(3) c(2) f(2); loads
        // after each: e→1 (9,0,0), a→2 (9,7,0), b→3 (9,7,7), d→2 (9,10,7),
        // c→3 (9,10,9), f→1 on the tie (11,10,9).
        let costs = [("a", 7), ("b", 7), ("c", 2), ("d", 3), ("e", 9), ("f", 2)];
        assert_eq!(assign(&costs, 3), vec![2, 3, 3, 2, 1, 1]);
        // The input order does not matter.
        let mut reversed = costs;
        reversed.reverse();
        assert_eq!(assign(&reversed, 3), vec![1, 1, 2, 3, 3, 2]);
        // More shards than members: the last ones are empty.
        assert_eq!(assign(&[("x", 1), ("y", 1)], 4), vec![1, 2]);
        assert_eq!(assign(&[], 2), Vec::<usize>::new());
    }

    #[test]
    fn shards_are_disjoint_and_cover_the_class() {
        let dir = tempfile::tempdir().unwrap();
        let mut all = Vec::new();
        for (i, name) in ["amy", "bo", "cy", "di", "ed"].iter().enumerate() {
            let d = dir.path().join(name);
            std::fs::create_dir(&d).unwrap();
            std::fs::write(d.join("ChessBoard.cc"), "x".repeat(1000 * i)).unwrap();
            std::fs::write(d.join("notes.txt"), "x".repeat(100_000)).unwrap();
            all.push(Member {
                name: name.to_string(),
                dir: d,
                students: Vec::new(),
            });
        }
        assert_eq!(cost(&all[2].dir), 2000 + FIXED_COST);
        let mut seen = Vec::new();
        for index in 1..=2 {
            let shard = Shard {
                index,
                count: 2,
                source: ShardSource::Flag,
                variables: vec![],
            };
            seen.extend(select(&all, &shard).into_iter().map(|m| m.name));
        }
        // Costs F + 4000 (ed), 3000 (di), 2000 (cy), 1000 (bo), 0 (amy):
        // ed→1, di→2, cy→2 (F+3000 < F+4000), bo→1 (2F+5000 each), amy→1
        // on the tie. notes.txt is not a source: not counted.
        assert_eq!(seen, ["amy", "bo", "ed", "cy", "di"]);
    }
}
