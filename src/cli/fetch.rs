//! `matome fetch`: its arguments, the run (`fetch::run`), its summary line and its exit code
//! (non-zero when no feed at all could be fetched, or with `--strict` on any failure).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The time the run is taken to happen (RFC 3339, e.g. 2021-07-20T08:28:58+09:00): names the
    /// digest and decides what is new. Default: the clock.
    #[arg(long, value_name = "RFC3339", value_parser = super::parse_rfc3339)]
    pub now: Option<chrono::DateTime<chrono::FixedOffset>>,

    /// Exit non-zero if any feed failed (by default only when no feed could be fetched).
    #[arg(long)]
    pub strict: bool,
}

/// Runs one fetch and reports it.
pub fn run(root: &Path, args: FetchArgs) -> Result<ExitCode> {
    let progress = std::env::var_os("CI").is_none();
    let report = crate::fetch::run(
        root,
        &crate::fetch::FetchOptions {
            now: args.now,
            progress,
        },
    )?;
    println!("{}", report.summary());
    if report.attempted() > 0 && report.ok + report.not_modified == 0 {
        eprintln!("error: no feed could be fetched");
        return Ok(ExitCode::from(1));
    }
    if args.strict && !report.failed.is_empty() {
        eprintln!("error: {} feed(s) failed (--strict)", report.failed.len());
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
