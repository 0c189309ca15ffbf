//! The command line: parses the arguments (clap derive; doc comments are the help text) and
//! dispatches to the command's module, nothing more. Each command is a module of its own under
//! `cli/` (mdBook's `src/cmd/`): its `Args` struct, a `run` that calls the library and prints
//! its report, and its exit code. The work itself lives in the pipeline's modules.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

pub mod alert;
pub mod analyze;
pub mod build;
pub mod check;
pub mod deploy;
pub mod feeds;
pub mod fetch;
pub mod init;
pub mod publish;
pub mod search;
pub mod serve;
pub mod theme;

pub use alert::AlertArgs;
pub use analyze::AnalyzeArgs;
pub use build::BuildArgs;
pub use check::CheckArgs;
pub use deploy::DeployArgs;
pub use feeds::{FeedsCommand, ImportArgs};
pub use fetch::FetchArgs;
pub use init::InitArgs;
pub use publish::PublishArgs;
pub use search::{SearchArgs, SortOrder};
pub use serve::ServeArgs;
pub use theme::{EjectArgs, ThemeCommand};

/// matome: hourly digests of many RSS/Atom/JSON feeds, archived as dated files and built into a
/// searchable static site.
#[derive(Debug, Parser)]
#[command(name = "matome", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// The site's root folder (where matome.toml is).
    #[arg(long, global = true, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Fetch every feed once and archive the new items in this hour's snapshot file
    /// (content/YYYY/MM/DD/HHMM.md).
    Fetch(FetchArgs),
    /// Manage the feed list in matome.toml.
    #[command(subcommand)]
    Feeds(FeedsCommand),
    /// Recompute 頻出ワード and summaries of archived items (after a stop-word or dictionary
    /// change), rewriting only the snapshot files that change.
    Analyze(AnalyzeArgs),
    /// Render content/ into the static site (public/ by default), re-rendering only the pages
    /// that changed since the last build.
    Build(BuildArgs),
    /// Create a new site: matome.toml with example feeds, content/ and a GitHub Actions
    /// workflow that fetches hourly, commits content/, builds and deploys to GitHub Pages. The
    /// default theme stays built into matome (see `matome theme eject`).
    Init(InitArgs),
    /// Copy files of the built-in theme into the site to edit them (`matome theme eject`).
    #[command(subcommand)]
    Theme(ThemeCommand),
    /// Validate the config, every content file and every internal link of the built site.
    Check(CheckArgs),
    /// Search the archive: words are AND-ed, "quoted phrases" match words together, -word
    /// excludes. Brings the index (.matome/search/) up to date with content/ first.
    Search(SearchArgs),
    /// Build the site and preview it on 127.0.0.1 under base_url's path, rebuilding and
    /// reloading open pages when matome.toml, content/, templates/, themes/ or static/ change;
    /// the search page uses the live index (`/api/search`).
    Serve(ServeArgs),
    /// Post each new digest (and, with a trends feed, each day's top trend words) to the
    /// [[publish]] targets (Bluesky, Mastodon, Slack, Discord, webhooks, X, Hatena Bookmark), each once;
    /// what was posted is kept in publish-state.json (commit it). Failed posts are retried at
    /// the next run; exit 0 even then (1 with --strict), 2 on a config or state error.
    Publish(PublishArgs),
    /// Send one alert per problem ([alerts] in matome.toml: a webhook and/or e-mail): a feed
    /// failing for a day per fetch-state.json, a workflow step reported failed with --step; and
    /// one more when it recovers. State in publish-state.json (commit it).
    Alert(AlertArgs),
    /// Upload what changed in the built site to the S3-compatible bucket of matome.toml's
    /// [deploy] (S3, R2, GCS, MinIO), then delete the objects the site no longer has.
    /// Credentials come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, …).
    Deploy(DeployArgs),
}

/// The command line as clap should see it: after `search`, a word like `-円安` is an
/// exclusion, not an unknown option, so its `-` becomes `−` (U+2212, which the query language
/// also reads as an exclusion). Options (`--json`, `-h`) are left alone.
pub fn normalize_args(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Vec<std::ffi::OsString> {
    let mut in_search = false;
    args.into_iter()
        .map(|a| {
            let Some(s) = a.to_str() else { return a };
            if !in_search {
                in_search = s == "search";
                return a;
            }
            match s.strip_prefix('-') {
                Some(rest) if !rest.is_empty() && !rest.starts_with('-') && rest != "h" => {
                    format!("\u{2212}{rest}").into()
                }
                _ => a,
            }
        })
        .collect()
}

fn parse_rfc3339(s: &str) -> Result<chrono::DateTime<chrono::FixedOffset>, String> {
    chrono::DateTime::parse_from_rfc3339(s)
        .map_err(|e| format!("`{s}` is not an RFC 3339 time like 2021-07-20T08:28:58+09:00 ({e})"))
}

/// Runs a parsed command line; the exit code tells the truth about partial failure.
pub fn run(cli: Cli) -> Result<ExitCode> {
    let root = &cli.root;
    match cli.command {
        Command::Fetch(args) => fetch::run(root, args),
        Command::Feeds(command) => feeds::run(root, command),
        Command::Analyze(args) => analyze::run(root, args),
        Command::Build(args) => build::run(root, args),
        Command::Init(args) => init::run(root, args),
        Command::Theme(command) => theme::run(root, command),
        Command::Check(args) => check::run(root, args),
        Command::Search(args) => search::run(root, args),
        Command::Serve(args) => serve::run(root, args),
        Command::Publish(args) => publish::run(root, args),
        Command::Alert(args) => alert::run(root, args),
        Command::Deploy(args) => deploy::run(root, args),
    }
}

#[cfg(test)]
mod tests;
