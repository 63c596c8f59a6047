//! The integration tests: one test binary (`cargo test --test it`), one
//! module per topic, so the crate is linked once and every test shares one
//! pool of test threads.
mod helpers;

mod class;
mod cli;
mod console;
mod course_corpus;
mod explain;
mod fuzz;
mod r#gen;
mod grade;
mod hostile;
mod malformed;
mod perft;
mod protocol;
mod readme;
mod scenarios;
mod select;
mod shrink;
mod snapshot_names;
