//! Shared by the integration tests that read `../shared/` (the product
//! side's read-only corpora), which lives beside the project, not in it.

use std::path::PathBuf;

/// `../shared/<rel>` if it exists. Where it is absent the caller's test
/// says so and passes, except under CI (`CI` set), where its absence is a
/// failure: CI always has `shared/` beside the clone.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel);
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
