//! The `chessgrade` binary: a thin shell over the library. Each command's
//! wiring lives in its own file under `cli/`.

mod cli;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(cli::main())
}
