//! `chessgrade serve` never panics on any request lines, and every
//! session it answers is well formed: each request line gets its answer
//! in the protocol's shape, or one `ERR <text>` line (the property
//! `tests/it/serve.rs` runs briefly in every `cargo test`).
#![no_main]

use chessgrade::protocol::{
    Request, V1, V2, check_session, parse_request, request_lines, serve_version,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    // The first byte picks the version; the rest are the request lines.
    let Some((&first, input)) = bytes.split_first() else {
        return;
    };
    // A deep PERFT or DIVIDE is slow by nature, not a bug: leave them out.
    let deep = request_lines(input).any(|line| {
        let text = String::from_utf8_lossy(line);
        matches!(
            parse_request(text.trim_end_matches(['\n', '\r'])),
            Ok(Request::Perft(d) | Request::Divide(d)) if d > 1
        )
    });
    if deep {
        return;
    }
    let version = if first % 8 == 0 { V1 } else { V2 };
    let mut out = Vec::new();
    serve_version(input, &mut out, version).expect("writing to a Vec cannot fail");
    if let Err(why) = check_session(input, &out) {
        panic!(
            "{why}\n--- input\n{}\n--- output\n{}",
            String::from_utf8_lossy(input),
            String::from_utf8_lossy(&out)
        );
    }
});
