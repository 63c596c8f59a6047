//! `chessgrade serve`: the reference engine speaking the engine protocol
//! (v2, and v1) on stdin/stdout, so an engine author can compare their
//! answers with the reference's, and the grader can be tested end to end.

pub fn serve(v1: bool) -> u8 {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let version = if v1 {
        chessgrade::protocol::V1
    } else {
        chessgrade::protocol::V2
    };
    match chessgrade::protocol::serve_version(stdin.lock(), stdout.lock(), version) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}
