//! `matome search`: its arguments, bringing the tantivy index up to date with content/ (under
//! the site lock), the query, and the hits (one per story, "+N sources") as text or one JSON
//! object per line.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use crate::search::index::{Hit, SearchOptions};

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The query, e.g. `日本銀行 -円安` or `"public cloud"` (a word starting with `-` is an
    /// exclusion, not an option).
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
    /// One JSON object per hit per line (title, link, site, category, published, keywords,
    /// summary, url; story, story_items, story_sites and the story's others: one hit per story).
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

/// Searches and prints the hits.
pub fn run(root: &Path, args: SearchArgs) -> Result<ExitCode> {
    let config = crate::config::Config::load(root)?;
    let json = args.json;
    let opts = options(args, config.timezone)?;
    {
        let _lock = crate::fsutil::SiteLock::acquire_or_wait(root)?;
        let archive = crate::content::archive::Archive::load(root)?;
        crate::search::index::update(root, &config, &archive)?;
    }
    let hits =
        crate::search::index::SiteSearcher::open(root, &config, &config.base_url)?.search(&opts)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if json {
        for h in &hits {
            serde_json::to_writer(&mut out, h)?;
            writeln!(out)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    print_hits(&mut out, &hits)?;
    Ok(ExitCode::SUCCESS)
}

/// The query and its filters, dates read in the site's zone.
fn options(args: SearchArgs, tz: chrono_tz::Tz) -> Result<SearchOptions> {
    let until = args
        .until
        .as_deref()
        .map(|d| crate::search::index::parse_until(d, tz))
        .transpose()
        .context("--until")?;
    Ok(SearchOptions {
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
    })
}

/// What a hit's story adds: the other sites that reported it (each once, not the hit's own;
/// those of its members listed), or for a story of one site how many more items it has.
fn more_sources(h: &Hit) -> String {
    let n = h.more_sources();
    if h.story_sites <= 1 {
        return format!("+{n} more from {}", h.site);
    }
    let mut sites: Vec<&str> = Vec::new();
    for o in &h.others {
        if o.site != h.site && !sites.contains(&o.site.as_str()) {
            sites.push(&o.site);
        }
    }
    format!("+{n} sources: {}", sites.join(", "))
}

/// The hits for a reader: date, category and site, title, snippet (matches highlighted on a
/// terminal, bracketed otherwise), link and digest page, then the count.
fn print_hits(out: &mut impl Write, hits: &[Hit]) -> Result<()> {
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let (on, off) = if color {
        ("\x1b[1;33m", "\x1b[0m")
    } else {
        ("[", "]")
    };
    for h in hits {
        let date = h
            .published
            .get(..16)
            .unwrap_or(&h.published)
            .replace('T', " ");
        writeln!(out, "{date}  {} / {}", h.category, h.site)?;
        writeln!(out, "  {}", h.title)?;
        if h.more_sources() > 0 {
            writeln!(out, "  {}", more_sources(h))?;
        }
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::index::Member;

    fn hit(site: &str, others: &[&str], story_sites: usize) -> Hit {
        Hit {
            title: "t".into(),
            link: String::new(),
            site: site.into(),
            category: "IT".into(),
            published: "2021-07-21T12:00:00+09:00".into(),
            keywords: vec![],
            summary: String::new(),
            url: String::new(),
            score: 0.0,
            snippet: String::new(),
            story: "s".into(),
            story_items: others.len() + 1,
            story_sites,
            others: others
                .iter()
                .map(|s| Member {
                    site: (*s).into(),
                    title: "o".into(),
                    link: String::new(),
                    url: String::new(),
                    published: String::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn the_other_sources_line_names_each_other_site_once_and_never_the_hits_own() {
        // the demo's breach story: the newest item's site also carried the first report's copy
        let h = hit("ビジネスIT", &["ITニュース", "ビジネスIT", "みなと新聞"], 3);
        assert_eq!(more_sources(&h), "+2 sources: ITニュース, みなと新聞");
        let h = hit("a", &["b", "c", "b"], 3);
        assert_eq!(more_sources(&h), "+2 sources: b, c");
        assert_eq!(more_sources(&hit("a", &["a", "a"], 1)), "+2 more from a");
    }
}
