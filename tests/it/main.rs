//! The integration tests: one test binary (`cargo test --test it`), one
//! module per topic, so the crate is linked once and every test shares one
//! pool of test threads.
mod helpers;

mod book;
mod build_cache;
mod class;
mod cli;
mod console;
mod console_explain;
mod console_failures;
mod console_mystery;
mod console_overlay;
mod course_corpus;
mod determinism;
mod disk;
mod docs_commands;
mod explain;
mod fuzz;
mod r#gen;
mod grade;
mod hostile;
mod isolation;
mod kit;
mod layers;
mod malformed;
mod memcheck;
mod papercuts;
mod perft;
mod protocol;
mod readme;
mod reference;
mod rules;
mod scenarios;
mod select;
mod serve;
mod shards;
mod shrink;
mod snapshot_names;
mod uploads;
mod variants;

/// Cargo builds this binary only (`autotests = false`, one `[[test]]`), so
/// a test file anywhere else under `tests/`, or one here that this file
/// does not declare, would never run: each must be a module above.
#[test]
fn every_integration_test_file_is_a_module_of_this_binary() {
    let tests = helpers::root().join("tests");
    let stray: Vec<_> = std::fs::read_dir(&tests)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs") || p.join("main.rs").is_file())
        .filter(|p| !p.ends_with("it"))
        .collect();
    assert!(stray.is_empty(), "not in the test binary: {stray:?}");
    let main = std::fs::read_to_string(tests.join("it/main.rs")).unwrap();
    let mut undeclared = Vec::new();
    for entry in std::fs::read_dir(tests.join("it")).unwrap() {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|x| x == "rs") && stem != "main" {
            let declared = [format!("mod {stem};"), format!("mod r#{stem};")];
            if !declared.iter().any(|d| main.lines().any(|l| l == d)) {
                undeclared.push(stem.to_string());
            }
        }
    }
    assert!(
        undeclared.is_empty(),
        "not declared in main.rs: {undeclared:?}"
    );
}
