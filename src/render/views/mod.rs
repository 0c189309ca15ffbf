//! What templates receive: one module per page kind, each with its pages' fingerprint inputs
//! (`pages`) beside the view builder that shows them, and the named view structs that are the
//! theme's interface (docs/THEMES.md documents them for theme authors).
//!
//! No IO here: a page's snapshot files are read by the caller ([`super::build`]) and passed in
//! ([`reads`] says which a page needs). The rule that keeps incremental builds right — no page
//! shows what its fingerprint does not cover — is checked by reading the two side by side.

pub mod calendar;
pub mod digest;
pub mod feeds;
pub mod health;
pub mod search;
pub mod sitemap;
pub mod stories;
pub mod terms;
pub mod trends;

use std::sync::Arc;

use anyhow::Result;
use chrono::{DateTime, FixedOffset, TimeZone};
use rustc_hash::FxHashMap;
use serde::Serialize;

use super::page::{Kind, Page};
use super::rising::Counts;
use super::safety::safe_link;
pub use super::site::Link;
use super::site::{Site, Tax};
use super::strings::Strings;
use super::theme::Theme;
use crate::content::Snapshot;
use crate::content::archive::ListedItem;
use crate::fetch::state::FetchState;

/// Snapshot files a page shows (summaries, bodies, trend rows), by digest, read by the caller.
pub type Snapshots = FxHashMap<usize, Arc<Snapshot>>;

/// What rendering a page needs besides the page itself.
pub struct Ctx<'a> {
    pub site: &'a Site<'a>,
    pub theme: &'a Theme,
    /// The fetch state the feed-health page shows.
    pub health: &'a FetchState,
    /// The sitemap's pages, from [`super::plan::plan`].
    pub sitemap: &'a [sitemap::SitemapUrl],
    /// Keyword counts per hour and per day, computed as pages ask for them.
    hours: Counts,
    days: Counts,
}

impl<'a> Ctx<'a> {
    pub fn new(
        site: &'a Site<'a>,
        theme: &'a Theme,
        health: &'a FetchState,
        sitemap: &'a [sitemap::SitemapUrl],
    ) -> Ctx<'a> {
        Ctx {
            site,
            theme,
            health,
            sitemap,
            hours: Counts::hours(),
            days: Counts::days(),
        }
    }
}

/// The digests whose snapshot files page `kind` shows (read by the caller and passed to
/// [`render`]).
pub fn reads(site: &Site, kind: &Kind) -> Vec<usize> {
    match kind {
        Kind::Digest(d) => vec![*d],
        Kind::Atom(cat) => feeds::entries(site, *cat)
            .into_iter()
            .map(|i| site.archive.items[i as usize].digest as usize)
            .collect(),
        Kind::Trends => trends::reads(site),
        _ => Vec::new(),
    }
}

/// Renders one page; `snapshots` holds (at least) what [`reads`] named.
pub fn render(ctx: &Ctx, page: &Page, snapshots: &Snapshots) -> Result<Vec<u8>> {
    match &page.kind {
        Kind::Home { page } => digest::home(ctx, *page),
        Kind::Digest(d) => digest::digest(ctx, *d, &snapshots[d]),
        Kind::Day(i) => calendar::day(ctx, *i),
        Kind::Month(i) => calendar::month(ctx, *i),
        Kind::Year(i) => calendar::year(ctx, *i),
        Kind::Archives => calendar::archives(ctx),
        Kind::Terms(tax) => terms::list(ctx, *tax),
        Kind::Term { tax, id, page } => terms::term(ctx, *tax, *id, *page),
        Kind::Health => health::health(ctx),
        Kind::Atom(cat) => feeds::atom(ctx, *cat, snapshots),
        Kind::DigestsAtom => feeds::digests_atom(ctx),
        Kind::StoriesAtom => stories::feed(ctx),
        Kind::Sitemap(n) => sitemap::sitemap(ctx, *n),
        Kind::SitemapIndex => sitemap::sitemap_index(ctx),
        Kind::Robots => sitemap::robots(ctx),
        Kind::Trends => trends::trends(ctx, snapshots),
        Kind::Search => search::search(ctx),
        Kind::NotFound => search::not_found(ctx),
        Kind::NoJekyll => Ok(Vec::new()),
    }
}

// --- What every page receives ---

/// `site`: the site as a whole.
#[derive(Serialize)]
pub struct SiteView<'a> {
    pub title: &'a str,
    /// The absolute base URL, ending in `/`.
    pub base_url: &'a str,
    /// Its path (`/` or `/REPO/`).
    pub base_path: &'a str,
    /// `ja` or `en`.
    pub language: &'static str,
    /// `matome VERSION`.
    pub generator: String,
}

/// `page`: the page itself.
#[derive(Serialize)]
pub struct PageMeta {
    pub title: String,
    /// Site-relative URL of this page.
    pub url: String,
    /// The page kind (`home`, `digest`, `day`, …): the template's name without extension.
    pub kind: &'static str,
    /// One line on what the page holds, written once (`<meta name="description"
    /// property="og:description">`): at most [`DESCRIPTION_CHARS`] characters; the site's title
    /// and [`Strings::about`] on pages with nothing of their own to say.
    pub description: String,
}

/// The longest description a page gets (search engines show about this many characters of a
/// Japanese one, about twice as many of an English one).
pub const DESCRIPTION_CHARS: usize = 140;

/// What an HTML template receives: `site`, `t` (the theme's words), `page`, and the page
/// kind's own fields (`body`, flattened).
#[derive(Serialize)]
pub struct Layout<'a, T: Serialize> {
    pub site: SiteView<'a>,
    pub t: &'static Strings,
    pub page: PageMeta,
    #[serde(flatten)]
    pub body: T,
}

/// One archived item as lists show it.
#[derive(Serialize)]
pub struct ItemView {
    pub title: String,
    /// `None` unless an http(s) URL.
    pub link: Option<String>,
    pub site: Link,
    pub category: Link,
    /// 頻出ワード; a keyword without a page has an empty URL.
    pub keywords: Vec<Link>,
    /// RFC 3339 in the site's zone.
    pub published: String,
    /// The digest that holds it.
    pub digest: Link,
    /// Its place in its snapshot file, from 1: the digest page's row is `#item-{index}`.
    pub index: u32,
    /// Only where the page shows summaries (digests, Atom).
    pub summary: Option<String>,
    /// Only on digest pages: the link's host, which the リンクURL column shows (the title is the
    /// link; the whole URL there again cost a year of digests ~14 MB).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Only on digest pages, and only when other sites covered the item's story too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub story: Option<stories::RowStory>,
}

/// One digest as lists show it.
#[derive(Serialize)]
pub struct DigestCard {
    pub url: String,
    pub heading: String,
    /// RFC 3339 in the site's zone.
    pub hour: String,
    pub count: usize,
    /// Up to 8 keywords seen in more than one of its items, the most frequent first.
    pub keywords: Vec<Link>,
}

/// Links to the older and newer pages of a list (site-relative URLs).
#[derive(Serialize, Default)]
pub struct PagerView {
    pub older: Option<String>,
    pub newer: Option<String>,
}

/// A link with a count (days of a month, terms of a list).
#[derive(Serialize)]
pub struct CountLink {
    pub name: String,
    pub url: String,
    pub count: usize,
}

/// The layout around a page kind's view.
pub(crate) fn layout<'s, T: Serialize>(
    site: &'s Site,
    title: String,
    url: String,
    kind: &'static str,
    body: T,
) -> Layout<'s, T> {
    Layout {
        site: SiteView {
            title: &site.config.title,
            base_url: site.base_url(),
            base_path: site.base_path(),
            language: site.strings.lang,
            generator: format!("matome {}", env!("CARGO_PKG_VERSION")),
        },
        t: site.strings,
        page: PageMeta {
            title,
            url,
            kind,
            description: format!("{}: {}", site.config.title, site.strings.about),
        },
        body,
    }
}

/// A description: `lead`, then as many of `words` as fit in [`DESCRIPTION_CHARS`] (the
/// theme's list separator between them); a lead that is too long alone is cut with `…`.
pub(crate) fn describe<S: AsRef<str>>(
    site: &Site,
    lead: &str,
    words: impl IntoIterator<Item = S>,
) -> String {
    let mut out = crate::text::truncate_chars(lead.trim(), DESCRIPTION_CHARS);
    let mut len = out.chars().count();
    let sep = site.strings.list_sep;
    for (i, w) in words.into_iter().enumerate() {
        let w = w.as_ref().trim();
        let glue = if i == 0 { " — " } else { sep };
        let n = glue.chars().count() + w.chars().count();
        if w.is_empty() || len + n > DESCRIPTION_CHARS {
            break;
        }
        out.push_str(glue);
        out.push_str(w);
        len += n;
    }
    out
}

pub(crate) fn entry_view(site: &Site, e: &ListedItem, summary: Option<String>) -> ItemView {
    ItemView {
        title: e.title.clone(),
        link: safe_link(&e.link),
        site: site.term_link(Tax::Site, e.site),
        category: site.term_link(Tax::Category, e.category),
        keywords: e
            .keywords
            .iter()
            .map(|&k| site.term_link(Tax::Keyword, k))
            .collect(),
        published: rfc3339(&site.local(&utc(e.published))),
        digest: Link {
            name: site.digest_heading(e.digest as usize),
            url: site.digest_url(e.digest as usize),
        },
        index: e.index + 1,
        summary,
        host: None,
        story: None,
    }
}

pub(crate) fn digest_card(site: &Site, d: usize) -> DigestCard {
    let items = site.archive.digest_items(d);
    let mut counts: FxHashMap<u32, usize> = FxHashMap::default();
    for e in items {
        for &k in &e.keywords {
            *counts.entry(k).or_default() += 1;
        }
    }
    let mut top: Vec<(u32, usize)> = counts.into_iter().filter(|&(_, c)| c > 1).collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    DigestCard {
        url: site.digest_url(d),
        heading: site.digest_heading(d),
        hour: rfc3339(&site.local(&site.archive.digests[d].hour)),
        count: items.len(),
        keywords: top
            .into_iter()
            .take(8)
            .map(|(k, _)| site.term_link(Tax::Keyword, k))
            .collect(),
    }
}

pub(crate) fn rfc3339<T: TimeZone>(t: &DateTime<T>) -> String
where
    T::Offset: std::fmt::Display,
{
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn utc(secs: i64) -> DateTime<FixedOffset> {
    chrono::Utc
        .timestamp_opt(secs, 0)
        .single()
        .unwrap_or_default()
        .fixed_offset()
}

/// The search page's URL for a word: the archived items that mention it.
pub(crate) fn search_url(word: &str) -> String {
    format!(
        "search/?q={}",
        url::form_urlencoded::byte_serialize(word.as_bytes()).collect::<String>()
    )
}

/// A page's bytes: template `name` with view `v`.
pub(crate) fn html<T: Serialize>(theme: &Theme, name: &str, v: &T) -> Result<Vec<u8>> {
    Ok(theme.render(name, v)?.into_bytes())
}
