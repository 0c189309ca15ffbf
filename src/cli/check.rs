//! `matome check`: its arguments, the check (`check::check`), the problems and the summary line;
//! exit 1 when there is a problem.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The built site to check (default: public/ in the site root).
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Read every page's links and parse every content file. Without it, only the pages builds
    /// wrote since the last check are read (every link into a file that is gone is still found)
    /// and only new or changed content files parsed; every page is read when the record of the
    /// last check is missing or cannot be trusted.
    #[arg(long)]
    pub all: bool,
}

/// Checks the site and reports it.
pub fn run(root: &Path, args: CheckArgs) -> Result<ExitCode> {
    let r = crate::check::check(root, args.output, args.all)?;
    if let Some(why) = &r.link_check.fallback {
        println!("checking every page's links: {why}");
    }
    for p in &r.problems {
        eprintln!("{p}");
    }
    let l = &r.link_check;
    let read = if l.full {
        String::new()
    } else {
        let same = if l.unchanged > 0 {
            format!("; {} written again unchanged", l.unchanged)
        } else {
            String::new()
        };
        format!(
            " (read {} pages written since the last check, {} links{same}; looked up {} link targets)",
            l.read_pages, l.read_links, l.targets
        )
    };
    println!(
        "checked {} content files ({} items), {} pages, {} links{read}: {} problem(s)",
        r.content_files,
        r.items,
        r.pages,
        r.links,
        r.problems.len()
    );
    Ok(if r.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
