//! The scenario parser never panics, and its errors lie inside the input
//! and stay short (the same property `tests/it/fuzz.rs` runs briefly).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Err(diag) = chessgrade::scenario::parse_bytes(bytes) {
        let lines = bytes.split(|&b| b == b'\n').count();
        assert!(diag.line >= 1 && diag.line <= lines);
        assert!(diag.col >= 1);
        assert!(diag.to_string().len() < 2000);
    }
});
