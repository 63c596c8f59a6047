//! The integration tests: one test binary (`cargo test --test it`), one
//! module per topic, so the crate is linked once and every test shares one
//! pool of test threads.
mod helpers;

mod class;
mod cli;
mod console;
mod course_corpus;
mod determinism;
mod explain;
mod fuzz;
mod r#gen;
mod grade;
mod hostile;
mod isolation;
mod malformed;
mod papercuts;
mod perft;
mod protocol;
mod readme;
mod scenarios;
mod select;
mod serve;
mod shrink;
mod snapshot_names;
