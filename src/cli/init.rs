//! `matome init`: its arguments, the scaffold (`init::init_for`) and the list of files written.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The folder for the new site (default: --root, the current folder).
    pub dir: Option<PathBuf>,
    /// Where the workflow publishes the site: GitHub Pages, or an S3-compatible bucket with
    /// `matome deploy` (then matome.toml gets a [deploy] table to fill in).
    #[arg(long, value_enum, default_value_t = crate::init::DeployTarget::Pages)]
    pub deploy: crate::init::DeployTarget,
}

/// Creates the site and reports what it wrote.
pub fn run(root: &Path, args: InitArgs) -> Result<ExitCode> {
    let dir = args.dir.unwrap_or_else(|| root.to_path_buf());
    let r = crate::init::init_for(&dir, args.deploy)?;
    println!("created a matome site in {}:", r.root.display());
    for p in &r.written {
        println!("  {}", p.strip_prefix(&r.root).unwrap_or(p).display());
    }
    println!(
        "next: edit matome.toml, then `matome --root {} fetch` and `matome --root {} build`",
        r.root.display(),
        r.root.display()
    );
    Ok(ExitCode::SUCCESS)
}
