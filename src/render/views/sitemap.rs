//! The files for search engines: the sitemaps (every HTML page but 404, with when it last
//! changed) and robots.txt.
//!
//! A page's `<lastmod>` is the latest `updated` time of the digests whose items it shows (the
//! moment the last run that changed it wrote its snapshot file), so it moves exactly when the
//! page's content does; the search, health and 404 pages have none.

use anyhow::Result;
use serde::Serialize;

use super::{Ctx, layout, rfc3339};
use crate::render::page::{Fp, Kind, Page, Pager};
use crate::render::site::Site;

/// URLs per sitemap file (the protocol allows 50,000).
pub const SITEMAP_URLS: usize = 40_000;

/// One page in a sitemap.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SitemapUrl {
    /// Site-relative URL of the page (`keywords/日本銀行/`).
    pub loc: String,
    /// When it last changed (RFC 3339, UTC), if it shows archived items.
    pub lastmod: Option<String>,
}

/// The sitemap entry of the page at `path` (an `…index.html`).
pub(crate) fn entry(site: &Site, path: &str, kind: &Kind) -> SitemapUrl {
    SitemapUrl {
        loc: path.trim_end_matches("index.html").to_string(),
        lastmod: last_change(site, kind)
            .map(|d| rfc3339(&site.archive.digests[d].updated.with_timezone(&chrono::Utc))),
    }
}

/// The digest, among those page `kind` shows, last written to.
fn last_change(site: &Site, kind: &Kind) -> Option<usize> {
    let a = site.archive;
    let latest = |ds: &mut dyn Iterator<Item = usize>| ds.max_by_key(|&d| a.digests[d].updated);
    let of_days = |days: &[usize]| -> Vec<usize> {
        days.iter()
            .flat_map(|&day| site.days[day].digests.iter().copied())
            .collect()
    };
    match kind {
        Kind::Digest(d) => Some(*d),
        Kind::Home { page } => latest(&mut Pager::home(site).range(*page)),
        Kind::Day(i) => latest(&mut site.days[*i].digests.iter().copied()),
        Kind::Month(i) => latest(&mut of_days(&site.months[*i].days).into_iter()),
        Kind::Year(i) => {
            let days: Vec<usize> = site.years[*i]
                .months
                .iter()
                .flat_map(|&m| site.months[m].days.iter().copied())
                .collect();
            latest(&mut of_days(&days).into_iter())
        }
        Kind::Term { tax, id, page } => {
            let items = &site.names(*tax).items[*id as usize];
            let range = Pager::term(site, *tax, *id).range(*page);
            latest(
                &mut items[range]
                    .iter()
                    .map(|&i| a.items[i as usize].digest as usize),
            )
        }
        Kind::Archives | Kind::Terms(_) | Kind::Trends => latest(&mut (0..a.digests.len())),
        _ => None,
    }
}

/// The sitemap files for `urls` (chunks of [`SITEMAP_URLS`]), then the sitemap index.
pub(crate) fn pages(urls: &[SitemapUrl]) -> Vec<Page> {
    let mut index_fp = Fp::new("sitemap-index");
    let mut pages = Vec::new();
    for (n, chunk) in urls.chunks(SITEMAP_URLS).enumerate() {
        let mut fp = Fp::new("sitemap");
        for u in chunk {
            fp.str(&u.loc).str(u.lastmod.as_deref().unwrap_or("-"));
        }
        index_fp
            .u64(n as u64)
            .str(latest_of(chunk).as_deref().unwrap_or("-"));
        pages.push(Page {
            path: format!("sitemap-{}.xml", n + 1),
            kind: Kind::Sitemap(n),
            fp: fp.0,
        });
    }
    pages.push(Page {
        path: "sitemap.xml".into(),
        kind: Kind::SitemapIndex,
        fp: index_fp.0,
    });
    pages
}

/// The latest `lastmod` of `urls` (all in UTC, so they compare as text).
fn latest_of(urls: &[SitemapUrl]) -> Option<String> {
    urls.iter().filter_map(|u| u.lastmod.clone()).max()
}

/// `sitemap.xml` (the template): one sitemap file.
#[derive(Serialize)]
pub struct SitemapView<'a> {
    pub urls: &'a [SitemapUrl],
}

pub(crate) fn sitemap(ctx: &Ctx, n: usize) -> Result<Vec<u8>> {
    let urls = ctx.sitemap.chunks(SITEMAP_URLS).nth(n).unwrap_or_default();
    Ok(ctx
        .theme
        .render("sitemap.xml", &SitemapView { urls })?
        .into_bytes())
}

/// `sitemap_index.xml`: the sitemap files.
#[derive(Serialize)]
pub struct SitemapIndexView {
    /// `sitemap-1.xml`, … (site-relative), each with its latest `lastmod`.
    pub parts: Vec<SitemapUrl>,
}

pub(crate) fn sitemap_index(ctx: &Ctx) -> Result<Vec<u8>> {
    let mut parts: Vec<SitemapUrl> = ctx
        .sitemap
        .chunks(SITEMAP_URLS)
        .enumerate()
        .map(|(i, chunk)| SitemapUrl {
            loc: format!("sitemap-{}.xml", i + 1),
            lastmod: latest_of(chunk),
        })
        .collect();
    if parts.is_empty() {
        parts.push(SitemapUrl {
            loc: "sitemap-1.xml".into(),
            lastmod: None,
        });
    }
    Ok(ctx
        .theme
        .render("sitemap_index.xml", &SitemapIndexView { parts })?
        .into_bytes())
}

pub(crate) fn robots(ctx: &Ctx) -> Result<Vec<u8>> {
    Ok(ctx
        .theme
        .render(
            "robots.txt",
            &layout(ctx.site, String::new(), String::new(), "robots", ()),
        )?
        .into_bytes())
}
