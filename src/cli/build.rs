//! `matome build`: its arguments, the build (`render::build`), its summary lines and the size
//! warning.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The site's public URL, overriding `base_url` in matome.toml (e.g. the GitHub Pages URL).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The output folder (default: public/ in the site root).
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
}

/// Builds the site and reports it.
pub fn run(root: &Path, args: BuildArgs) -> Result<ExitCode> {
    let r = crate::render::build(
        root,
        &crate::render::BuildOptions {
            base_url: args.base_url,
            output: args.output,
        },
    )?;
    println!(
        "built {} ({} digests, {} items): {} files, {} rendered, {} written, {} removed; search index: {} items added{} in {:.2} s",
        r.output.display(),
        r.digests,
        r.items,
        r.pages,
        r.rendered,
        r.written,
        r.removed,
        r.search.items_added,
        if r.search.rebuilt { " (rebuilt)" } else { "" },
        r.elapsed.as_secs_f64()
    );
    println!("site size: {}", r.size.describe());
    if let Some(w) = &r.size_warning {
        eprintln!("warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}
