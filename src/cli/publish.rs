//! `matome publish`: its arguments, the run over the targets (`publish::run`), what was posted
//! and what failed; exit 1 on a failure only with `--strict`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// The time the run is taken to happen (RFC 3339). Default: the clock.
    #[arg(long, value_name = "RFC3339", value_parser = super::parse_rfc3339)]
    pub now: Option<chrono::DateTime<chrono::FixedOffset>>,
    /// The site's public URL for the links, overriding `base_url` (e.g. the GitHub Pages URL).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Exit 1 if any target failed.
    #[arg(long)]
    pub strict: bool,
}

/// Publishes and reports it.
pub fn run(root: &Path, args: PublishArgs) -> Result<ExitCode> {
    let r = crate::publish::run(
        root,
        &crate::publish::PublishOptions {
            now: args.now,
            base_url: args.base_url,
        },
    )?;
    for l in &r.lines {
        println!("{l}");
    }
    for f in &r.failed {
        eprintln!("error: publish {f}");
    }
    println!(
        "{} post(s) sent, {} target(s) failed",
        r.posted,
        r.failed.len()
    );
    if std::env::var_os("MATOME_TIMINGS").is_some() {
        // Every TOML parse of a snapshot this run made: none of a file the derived layer holds.
        eprintln!("snapshot parses: {}", crate::content::derived::parses());
    }
    Ok(if args.strict && !r.failed.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
