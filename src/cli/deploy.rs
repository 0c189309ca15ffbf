//! `matome deploy`: its arguments, the upload (`deploy::deploy`), the dry run's list, notes on
//! objects left alone and throttling, and the summary line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

#[derive(Debug, Args)]
pub struct DeployArgs {
    /// List what would be uploaded and deleted; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The built site to upload (default: public/ in the site root).
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
}

/// Deploys and reports it.
pub fn run(root: &Path, args: DeployArgs) -> Result<ExitCode> {
    let r = crate::deploy::deploy(
        root,
        &crate::deploy::DeployOptions {
            output: args.output,
            dry_run: args.dry_run,
            progress: std::env::var_os("CI").is_none(),
        },
    )?;
    if r.dry_run {
        for u in r.plan.uploads() {
            let what = if u.new { "new" } else { "changed" };
            println!(
                "upload  {}  ({what}, {} bytes, {})",
                u.rel, u.size, u.content_type
            );
        }
        for d in &r.plan.deletes {
            println!("delete  {d}");
        }
    }
    notes(&r);
    println!(
        "{}{}: {} files, {} {} ({} bytes), {} unchanged, {} {} in {:.2} s",
        if r.dry_run { "dry run: " } else { "deployed " },
        r.target,
        r.files,
        r.plan.uploads().count(),
        if r.dry_run { "to upload" } else { "uploaded" },
        r.uploaded_bytes,
        r.plan.unchanged,
        r.plan.deletes.len(),
        if r.dry_run { "to delete" } else { "deleted" },
        r.elapsed.as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

/// The notes on stderr: objects the bucket holds that matome never writes, and throttling.
fn notes(r: &crate::deploy::DeployReport) {
    if !r.foreign.is_empty() {
        let shown = crate::deploy::listing::FOREIGN_SHOWN;
        eprintln!(
            "note: left alone: {} object(s) under {} whose keys matome never writes (not the site's: \
             never uploaded over or deleted):",
            r.foreign.len(),
            r.target
        );
        for k in r.foreign.iter().take(shown) {
            eprintln!("  {k:?}");
        }
        if r.foreign.len() > shown {
            eprintln!("  … and {} more", r.foreign.len() - shown);
        }
    }
    if r.throttle.throttled > 0 {
        eprintln!(
            "note: the bucket throttled {} request(s); requests at once went down to {}",
            r.throttle.throttled, r.throttle.lowest_concurrency
        );
    }
}
