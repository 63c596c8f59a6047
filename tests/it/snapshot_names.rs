//! The CLI and the insta `glob!` test must name snapshots alike, or one of
//! them would see the other's files as missing. insta names a globbed file
//! by its path below the common prefix of all matched files, so this holds
//! only while `scenarios/` has files in two or more top-level folders; this
//! test fails, naming the culprits, as soon as a scenario and its snapshot
//! stop pairing up (a snapshot without a scenario, or the reverse).
//! Temporary files of snapshot writes (`.<name>.chessgrade-tmp-<pid>-...`,
//! removed by the next run once their writer is gone) are not snapshots.

use std::collections::BTreeSet;

#[test]
fn every_scenario_has_exactly_its_snapshot_and_no_snapshot_is_orphaned() {
    let root = crate::helpers::root();
    let scenarios = root.join("scenarios");
    let store = chessgrade::snapshot::SnapshotStore::new(root.join("snapshots"));
    let (found, errors) =
        chessgrade::runner::discover(std::slice::from_ref(&scenarios), &scenarios);
    assert!(errors.is_empty(), "{errors:?}");

    let top_level: BTreeSet<_> = found
        .iter()
        .filter_map(|f| f.rel.components().next())
        .collect();
    assert!(
        top_level.len() >= 2,
        "keep scenarios in two or more top-level folders (insta glob naming)"
    );

    let expected: BTreeSet<_> = found.iter().map(|f| store.path_for(&f.rel)).collect();
    let present: BTreeSet<_> = std::fs::read_dir(root.join("snapshots"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            !p.file_name().is_some_and(|n| {
                n.to_string_lossy()
                    .contains(chessgrade::snapshot::TEMP_MARK)
            })
        })
        .collect();
    let missing: Vec<_> = expected.difference(&present).collect();
    let orphaned: Vec<_> = present.difference(&expected).collect();
    assert!(
        missing.is_empty(),
        "scenarios without a snapshot: {missing:#?}"
    );
    assert!(
        orphaned.is_empty(),
        "snapshots (or pending .snap.new) without a scenario: {orphaned:#?}"
    );
}
