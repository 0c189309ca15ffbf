//! The `matome` binary: parse arguments, run, print the error chain once, set the exit code.

use std::process::ExitCode;

use clap::Parser;

// Rendering allocates many small strings on every core; glibc's malloc contends.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = matome::cli::Cli::parse_from(matome::cli::normalize_args(std::env::args_os()));
    match matome::cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
