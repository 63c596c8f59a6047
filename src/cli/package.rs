//! `chessgrade package gradescope`: the flags become the library's
//! `GradescopeSpec` (`chessgrade::package`), which writes the zip. Here we
//! check that the passed-through grading flags are ones `grade` takes (a
//! typo is found now, not on Gradescope at the first upload), name the
//! running binary as the one to ship, and print what the zip holds.

use super::args::SnapshotArgs;
use chessgrade::grading::StaffError;
use chessgrade::package::GradescopeSpec;
use clap::Parser;
use std::path::PathBuf;

/// `package gradescope`'s flags.
pub struct GradescopeArgs {
    pub scenarios: Vec<PathBuf>,
    pub snapshot: SnapshotArgs,
    pub overlay: Option<PathBuf>,
    pub adapter: Option<PathBuf>,
    pub output: PathBuf,
    pub flags: Vec<String>,
}

/// The scenarios to package: the positional paths and `--scenarios`
/// (both spellings are kept, the paths first), or `scenarios` as `grade`'s
/// default when neither names any.
pub fn scenario_paths(paths: Vec<PathBuf>, flagged: Vec<PathBuf>) -> Vec<PathBuf> {
    let all: Vec<PathBuf> = paths.into_iter().chain(flagged).collect();
    match all.is_empty() {
        true => vec![PathBuf::from("scenarios")],
        false => all,
    }
}

pub fn gradescope(a: &GradescopeArgs) -> Result<u8, StaffError> {
    let binary = std::env::current_exe().map_err(|e| {
        StaffError::Usage(format!(
            "cannot find the running chessgrade binary to ship: {e}"
        ))
    })?;
    let spec = GradescopeSpec {
        scenarios: a.scenarios.clone(),
        root: a.snapshot.root.clone(),
        snapshots: a.snapshot.snapshots.clone(),
        overlay: a.overlay.clone(),
        adapter: a.adapter.clone(),
        rules: a.snapshot.rules.clone(),
        flags: a.flags.clone(),
        binary,
    };
    spec.check_flags()?;
    // The flags as `grade` will parse them on Gradescope.
    let mut line = vec!["chessgrade", "grade", "--submission", "submission"];
    line.extend(a.flags.iter().map(String::as_str));
    line.push("scenarios");
    if let Err(e) = super::Cli::try_parse_from(&line) {
        let first = e.to_string();
        let first = first
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("error: ");
        return Err(StaffError::Usage(format!(
            "the grading flags after `--` are not ones `chessgrade grade` takes: {first}"
        )));
    }
    let packed = spec.write(&a.output)?;
    outln!(
        "wrote {}: setup.sh, run_autograder, chessgrade, {} scenarios, {} snapshots{}{}{}",
        a.output.display(),
        packed.scenarios,
        packed.snapshots,
        match packed.rule_files {
            0 => String::new(),
            n => format!(", {n} rule files"),
        },
        match packed.overlay_files {
            0 => String::new(),
            n => format!(", {n} overlay files"),
        },
        match packed.adapter_files {
            0 => String::new(),
            n => format!(", the hook file and {} course headers", n - 1),
        }
    );
    outln!("run_autograder runs: {}", packed.command);
    if !packed.without_snapshot.is_empty() {
        let n = packed.without_snapshot.len();
        let shown: Vec<&str> = packed
            .without_snapshot
            .iter()
            .take(3)
            .map(String::as_str)
            .collect();
        outln!(
            "note: {n} scenarios have no snapshot in {} ({}{}): fine for a console course (JHU, CUHK), whose expected transcripts are the reference engine's; a Lab 3 upload is not graded without them",
            a.snapshot.snapshots.display(),
            shown.join(", "),
            if n > 3 { ", ..." } else { "" }
        );
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_come_from_the_paths_and_the_flag_else_the_default_folder() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(
            scenario_paths(vec![p("a"), p("b")], vec![p("c")]),
            [p("a"), p("b"), p("c")]
        );
        assert_eq!(scenario_paths(vec![], vec![p("c")]), [p("c")]);
        assert_eq!(scenario_paths(vec![], vec![]), [p("scenarios")]);
    }
}
