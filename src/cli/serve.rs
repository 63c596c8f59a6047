//! `chessgrade serve`: the reference engine speaking the engine protocol
//! (v2, and v1) on stdin/stdout, so an engine author can compare their
//! answers with the reference's, and the grader can be tested end to end.

pub fn serve(v1: bool, rules: &[chessgrade::engine::RuleSet]) -> u8 {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let version = if v1 {
        chessgrade::protocol::V1
    } else {
        chessgrade::protocol::V2
    };
    if let Some(twice) = rules
        .iter()
        .enumerate()
        .find(|(i, r)| rules[..*i].iter().any(|o| o.id == r.id))
    {
        eprintln!(
            "error: two --rules files for the {} family (give one per family)",
            twice.1.id
        );
        return 2;
    }
    match chessgrade::protocol::serve_with(stdin.lock(), stdout.lock(), version, rules) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}
