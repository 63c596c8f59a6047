//! `chessgrade gen`: write a generated suite (scenarios, their snapshots
//! and the coverage summary) and print the summary.

use chessgrade::domain::Dims;
use chessgrade::engine::RuleSet;
use chessgrade::r#gen::{self as suite_gen, GenOptions, Mix};
use std::path::Path;

/// `RxC`, like `8x8` or `5x12`.
pub fn parse_size(s: &str) -> Result<Dims, String> {
    let (r, c) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{s}`: expected ROWSxCOLS, like 8x8"))?;
    let n = |t: &str| {
        t.trim()
            .parse::<i64>()
            .map_err(|_| format!("`{s}`: expected ROWSxCOLS, like 8x8"))
    };
    Dims::new(n(r)?, n(c)?).map_err(|e| e.to_string())
}

#[allow(clippy::too_many_arguments)]
pub fn run(
    rules: RuleSet,
    count: usize,
    seed: u64,
    size: Option<Dims>,
    steps: Option<usize>,
    mix: Option<Mix>,
    out: &Path,
    force: bool,
) -> u8 {
    let opts = GenOptions {
        size,
        steps,
        mix,
        ..GenOptions::new(rules, count, seed)
    };
    let written = suite_gen::generate(&opts).and_then(|s| s.write(out, force).map(|w| (s, w)));
    let (suite, written) = match written {
        Ok(done) => done,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    out!("{}", suite.coverage);
    let rules_file = written
        .rules
        .map(|f| format!(" (the rules in {})", f.display()))
        .unwrap_or_default();
    outln!(
        "wrote {} scenarios to {}{rules_file}, snapshots to {}, this summary to {}",
        suite.scenarios.len(),
        written.scenarios.display(),
        written.snapshots.display(),
        written.coverage.display()
    );
    // The suite folder runs as it is (`BatchSpec` finds its two folders).
    outln!("run them: chessgrade run {}", out.display());
    0
}
