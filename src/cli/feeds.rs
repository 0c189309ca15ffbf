//! `matome feeds import`: its arguments, the import (`import::import`) and its summary line.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum FeedsCommand {
    /// Add feeds from an OPML file, or from a CSV with the header `sitename,FeedURL,Category`.
    /// Feeds already configured are skipped.
    Import(ImportArgs),
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The OPML or CSV file.
    pub file: PathBuf,
}

/// Runs a `feeds` subcommand and reports it.
pub fn run(root: &Path, command: FeedsCommand) -> Result<ExitCode> {
    let FeedsCommand::Import(args) = command;
    let report = crate::import::import(root, &args.file)
        .with_context(|| format!("importing feeds from {}", args.file.display()))?;
    println!(
        "{} feeds read: {} added, {} already configured",
        report.read, report.added, report.duplicates
    );
    Ok(ExitCode::SUCCESS)
}
