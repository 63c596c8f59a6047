//! The `chessgrade` binary: a thin shell over the library. Each command's
//! wiring lives in its own file under `cli/`.

mod cli;

fn main() -> std::process::ExitCode {
    // While the process is single-threaded: the bounded folders' mounts
    // are the grader's own (chessgrade::sandbox::disk).
    chessgrade::sandbox::enter_own_mount_namespace();
    std::process::ExitCode::from(cli::main())
}
