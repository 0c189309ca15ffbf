//! `matome analyze`: its arguments, the re-analysis (`analyze_archive::analyze_archive`) and its summary
//! line.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// Every item, not only those without keywords (or without a story): after a change of
    /// the analyser or of the stories' method.
    #[arg(long)]
    pub all: bool,
}

/// Re-analyses the archive and reports it.
pub fn run(root: &Path, args: AnalyzeArgs) -> Result<ExitCode> {
    let r = crate::analyze_archive::analyze_archive(root, args.all)?;
    println!(
        "{} items in the archive: {} analysed, {} files rewritten; the stories of {} items decided",
        r.items, r.analysed, r.files_rewritten, r.stories_decided
    );
    Ok(ExitCode::SUCCESS)
}
