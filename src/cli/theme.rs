//! `matome theme eject`: its arguments, listing, `--diff` and copying (`theme_eject`), and what
//! was ejected or refused.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum ThemeCommand {
    /// Copy built-in templates or static files into the site's templates/ and static/ to edit
    /// them (never overwriting), recorded in .matome-ejected.toml (commit it) so `build` warns
    /// when an upgrade changes the built-in file. With no FILE, list the files.
    Eject(EjectArgs),
}

#[derive(Debug, Args)]
pub struct EjectArgs {
    /// Files to copy: `digest.html` or `templates/digest.html`, `style.css` or
    /// `static/style.css`.
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// Copy nothing: show how the site's copy of each FILE (of every file it overrides, with no
    /// FILE) differs from this matome's built-in one, as a unified diff.
    #[arg(long)]
    pub diff: bool,
}

/// Runs a `theme` subcommand and reports it.
pub fn run(root: &Path, command: ThemeCommand) -> Result<ExitCode> {
    let ThemeCommand::Eject(args) = command;
    let theme = || crate::config::Config::load(root).map(|c| c.theme);
    if args.diff {
        print!(
            "{}",
            crate::theme_eject::diff(root, &theme()?, &args.files)?
        );
        return Ok(ExitCode::SUCCESS);
    }
    if args.files.is_empty() {
        println!(
            "files of the built-in theme (`matome theme eject FILE…` copies them into the site):"
        );
        for line in crate::theme_eject::list(root, &theme()?) {
            println!("  {line}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    // Ejecting needs a site (its matome.toml), so files never land in a stray folder.
    theme()?;
    let r = crate::theme_eject::eject(root, &args.files)?;
    for p in &r.written {
        println!("ejected {}", p.strip_prefix(root).unwrap_or(p).display());
    }
    for msg in &r.refused {
        eprintln!("error: {msg}");
    }
    if !r.written.is_empty() {
        println!(
            "recorded in {} (commit it with them)",
            crate::layout::EJECTED_RECORD
        );
    }
    Ok(if r.refused.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
