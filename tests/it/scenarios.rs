//! Every bundled scenario's trace, checked against its snapshot with insta's
//! `glob!`, so `cargo insta test` / `cargo insta review` work after an
//! engine change. The snapshots are the very files `chessgrade run` reads.

#[test]
fn scenario() {
    insta::with_settings!({
        snapshot_path => "../../snapshots",
        prepend_module_to_snapshot => false,
    }, {
        insta::glob!("../../scenarios", "**/*.txt", |path| {
            let trace = chessgrade::trace_file(path).unwrap_or_else(|d| panic!("{d}"));
            insta::assert_snapshot!("scenario", trace);
        });
    });
}
