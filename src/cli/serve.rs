//! `matome serve`: its arguments and the call into `serve::serve` (which runs until stopped).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
}

/// Serves the site until stopped.
pub fn run(root: &Path, args: ServeArgs) -> Result<ExitCode> {
    crate::serve::serve(
        root,
        crate::serve::ServeOptions {
            bind: args.bind,
            port: args.port,
        },
    )?;
    Ok(ExitCode::SUCCESS)
}
