//! Acceptance against the real course: every config in
//! `../shared/lab3-course/configs/` must trace exactly to its answer in
//! `../shared/lab3-course/expected/`. The corpus is read in place, never
//! copied into the project.
//!
//! The corpus lives outside the repository. Where it is absent the test says
//! so and passes, except under CI (`CI` set), where its absence is a failure.
//! `CHESSGRADE_LAB3_CORPUS` points it elsewhere.

use crate::helpers;
use chessgrade::compare::compare;
use std::path::PathBuf;

fn corpus_dir() -> Option<PathBuf> {
    match std::env::var_os("CHESSGRADE_LAB3_CORPUS") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => helpers::shared("lab3-course"),
    }
}

#[test]
fn every_course_config_traces_to_its_expected_answer() {
    let Some(dir) = corpus_dir() else { return };
    let mut configs: Vec<PathBuf> = std::fs::read_dir(dir.join("configs"))
        .expect("configs folder is readable")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    configs.sort();
    assert_eq!(configs.len(), 151, "the course corpus has 151 configs");

    let mut differing = Vec::new();
    for config in &configs {
        let stem = config.file_stem().unwrap().to_string_lossy();
        let expected_path = dir.join("expected").join(format!("{stem}.expected"));
        let expected = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        let actual = match chessgrade::trace_file(config) {
            Ok(trace) => trace,
            Err(diag) => {
                differing.push(format!("{stem}: does not parse: {diag}"));
                continue;
            }
        };
        if let Some(m) = compare(&expected, &actual) {
            let exp = m.expected_header.unwrap_or_default();
            let act = m.actual_header.unwrap_or_default();
            differing.push(format!(
                "{stem}: first difference at trace line {} (expected `{exp}`, got `{act}`): {:?}",
                m.trace_line, m.detail
            ));
        }
    }
    assert!(
        differing.is_empty(),
        "{} of {} course configs differ:\n{}",
        differing.len(),
        configs.len(),
        differing.join("\n")
    );
}
