//! The command line: one clap `Args` struct per subcommand; doc comments are the help text.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

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

#[derive(Debug, Args)]
pub struct PublishArgs {
    /// The time the run is taken to happen (RFC 3339). Default: the clock.
    #[arg(long, value_name = "RFC3339", value_parser = parse_rfc3339)]
    pub now: Option<chrono::DateTime<chrono::FixedOffset>>,
    /// The site's public URL for the links, overriding `base_url` (e.g. the GitHub Pages URL).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Exit 1 if any target failed.
    #[arg(long)]
    pub strict: bool,
}

#[derive(Debug, Args)]
pub struct AlertArgs {
    /// How a workflow step or job ended: STEP=success or STEP=failure (GitHub's
    /// `needs.JOB.result`); repeatable. A failure is alerted at once, a success closes it.
    #[arg(long = "step", value_name = "STEP=RESULT")]
    pub steps: Vec<crate::alert::StepOutcome>,
    /// The time the run is taken to happen (RFC 3339). Default: the clock.
    #[arg(long, value_name = "RFC3339", value_parser = parse_rfc3339)]
    pub now: Option<chrono::DateTime<chrono::FixedOffset>>,
    /// Exit 1 if an alert could not be delivered (it is retried at the next run either way).
    #[arg(long)]
    pub strict: bool,
}

#[derive(Debug, Args)]
pub struct DeployArgs {
    /// List what would be uploaded and deleted; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The built site to upload (default: public/ in the site root).
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The query, e.g. `日本銀行 -円安` or `"public cloud"` (a word starting with `-` is an
    /// exclusion, not an option).
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
    /// One JSON object per hit per line (title, link, site, category, published, keywords,
    /// summary, url).
    #[arg(long)]
    pub json: bool,
    /// Hits at most.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Only items of this category.
    #[arg(long)]
    pub category: Option<String>,
    /// Only items of this site.
    #[arg(long)]
    pub site: Option<String>,
    /// Only items published on or after this date (YYYY-MM-DD in the site's zone, or RFC 3339).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only items published before the end of this date (YYYY-MM-DD, or an RFC 3339 time).
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
    /// Order of the hits: newest first (`date`, the default, as the search page), or best
    /// first (`relevance`).
    #[arg(long, value_enum, default_value_t = SortOrder::Date)]
    pub sort: SortOrder,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SortOrder {
    Relevance,
    Date,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The folder for the new site (default: --root, the current folder).
    pub dir: Option<PathBuf>,
    /// Where the workflow publishes the site: GitHub Pages, or an S3-compatible bucket with
    /// `matome deploy` (then matome.toml gets a [deploy] table to fill in).
    #[arg(long, value_enum, default_value_t = crate::init::DeployTarget::Pages)]
    pub deploy: crate::init::DeployTarget,
}

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

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The site's public URL, overriding `base_url` in matome.toml (e.g. the GitHub Pages URL).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The output folder (default: public/ in the site root).
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// Every item, not only those without keywords.
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The time the run is taken to happen (RFC 3339, e.g. 2021-07-20T08:28:58+09:00): names the
    /// digest and decides what is new. Default: the clock.
    #[arg(long, value_name = "RFC3339", value_parser = parse_rfc3339)]
    pub now: Option<chrono::DateTime<chrono::FixedOffset>>,

    /// Exit non-zero if any feed failed (by default only when no feed could be fetched).
    #[arg(long)]
    pub strict: bool,
}

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

fn theme_eject(root: &std::path::Path, args: EjectArgs) -> Result<ExitCode> {
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
            crate::render::overrides::MANIFEST
        );
    }
    Ok(if r.refused.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Runs a parsed command line; the exit code tells the truth about partial failure.
pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Fetch(args) => fetch(&cli.root, args),
        Command::Build(args) => {
            let r = crate::render::build(
                &cli.root,
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
        Command::Init(args) => {
            let dir = args.dir.unwrap_or(cli.root);
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
        Command::Theme(ThemeCommand::Eject(args)) => theme_eject(&cli.root, args),
        Command::Check(args) => {
            let r = crate::check::check(&cli.root, args.output, args.all)?;
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
        Command::Search(args) => search(&cli.root, args),
        Command::Deploy(args) => deploy(&cli.root, args),
        Command::Serve(args) => {
            crate::serve::serve(
                &cli.root,
                crate::serve::ServeOptions {
                    bind: args.bind,
                    port: args.port,
                },
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Analyze(args) => {
            let r = crate::reanalyze::reanalyze(&cli.root, args.all)?;
            println!(
                "{} items in the archive: {} analysed, {} files rewritten",
                r.items, r.analysed, r.files_rewritten
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Publish(args) => {
            let r = crate::publish::run(
                &cli.root,
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
            Ok(if args.strict && !r.failed.is_empty() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Alert(args) => {
            let r = crate::alert::run(
                &cli.root,
                &crate::alert::AlertOptions {
                    now: args.now,
                    steps: args.steps,
                },
            )?;
            for l in &r.lines {
                println!("{l}");
            }
            for f in &r.failed {
                eprintln!("error: {f} (tried again at the next run)");
            }
            Ok(if args.strict && !r.failed.is_empty() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Feeds(FeedsCommand::Import(args)) => {
            let report = crate::import::import(&cli.root, &args.file)
                .with_context(|| format!("importing feeds from {}", args.file.display()))?;
            println!(
                "{} feeds read: {} added, {} already configured",
                report.read, report.added, report.duplicates
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn fetch(root: &std::path::Path, args: FetchArgs) -> Result<ExitCode> {
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

fn deploy(root: &std::path::Path, args: DeployArgs) -> Result<ExitCode> {
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

fn search(root: &std::path::Path, args: SearchArgs) -> Result<ExitCode> {
    use std::io::{IsTerminal, Write};
    let config = crate::config::Config::load(root)?;
    let tz = config.timezone;
    let until = args
        .until
        .as_deref()
        .map(|d| crate::search::index::parse_until(d, tz))
        .transpose()
        .context("--until")?;
    let opts = crate::search::index::SearchOptions {
        query: args.query.join(" "),
        limit: args.limit,
        offset: 0,
        category: args.category,
        site: args.site,
        since: args
            .since
            .as_deref()
            .map(|d| crate::search::index::parse_date(d, tz))
            .transpose()
            .context("--since")?,
        until,
        by_date: args.sort == SortOrder::Date,
    };
    {
        let _lock = crate::fsutil::SiteLock::acquire_or_wait(root)?;
        let archive = crate::content::archive::Archive::load(root)?;
        crate::search::index::update(root, &config, &archive)?;
    }
    let hits =
        crate::search::index::SiteSearcher::open(root, &config, &config.base_url)?.search(&opts)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        for h in &hits {
            serde_json::to_writer(&mut out, h)?;
            writeln!(out)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let (on, off) = if color {
        ("\x1b[1;33m", "\x1b[0m")
    } else {
        ("[", "]")
    };
    for h in &hits {
        let date = h
            .published
            .get(..16)
            .unwrap_or(&h.published)
            .replace('T', " ");
        writeln!(out, "{date}  {} / {}", h.category, h.site)?;
        writeln!(out, "  {}", h.title)?;
        if !h.snippet.is_empty() {
            writeln!(
                out,
                "  {}",
                h.snippet.replace('\u{2}', on).replace('\u{3}', off)
            )?;
        }
        if !h.link.is_empty() {
            writeln!(out, "  {}", h.link)?;
        }
        writeln!(out, "  {}", h.url)?;
        writeln!(out)?;
    }
    writeln!(out, "{} hit(s)", hits.len())?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests;
