//! The files for machines: Atom feeds (the whole site and per category), the sitemaps and
//! robots.txt.

use anyhow::Result;
use serde::Serialize;

use super::{Ctx, ItemView, Snapshots, entry_view, layout, rfc3339};
use crate::render::page::{Fp, Fps, Kind, Page};
use crate::render::site::{Site, Tax};

/// URLs per sitemap file (the protocol allows 50,000).
pub const SITEMAP_URLS: usize = 40_000;

/// Entries in an Atom feed.
pub const FEED_ENTRIES: usize = 50;

/// The items feed `cat` (`None`: the whole site) shows, oldest first: its last
/// [`FEED_ENTRIES`].
pub(crate) fn entries(site: &Site, cat: Option<u32>) -> Vec<u32> {
    let a = site.archive;
    match cat {
        None => (a.items.len().saturating_sub(FEED_ENTRIES)..a.items.len())
            .map(|i| i as u32)
            .collect(),
        Some(c) => {
            let items = &a.categories.items[c as usize];
            items[items.len().saturating_sub(FEED_ENTRIES)..].to_vec()
        }
    }
}

/// `atom.xml`, then every category's.
pub(crate) fn atom_pages(site: &Site, fps: &Fps) -> Vec<Page> {
    let atom_fp = |tag: &str, items: &[u32]| {
        let mut fp = Fp::new(tag);
        for &i in items {
            fp.u64(fps.item[i as usize]);
        }
        fp.0
    };
    let mut pages = vec![Page {
        path: "atom.xml".into(),
        kind: Kind::Atom(None),
        fp: atom_fp("atom", &entries(site, None)),
    }];
    for id in 0..site.archive.categories.len() as u32 {
        pages.push(Page {
            path: format!("{}atom.xml", site.term_url(Tax::Category, id, 0)),
            kind: Kind::Atom(Some(id)),
            fp: atom_fp("category-atom", &entries(site, Some(id))),
        });
    }
    pages
}

/// One entry of an Atom feed: an item with its summary and a stable id.
#[derive(Serialize)]
pub struct AtomEntry {
    /// The item's anchor on its digest page (absolute URL).
    pub id: String,
    #[serde(flatten)]
    pub item: ItemView,
}

/// `atom.xml`: a feed's latest entries, newest first.
#[derive(Serialize)]
pub struct AtomView {
    pub title: String,
    /// The page the feed is of (site-relative; empty for the home page).
    pub url: String,
    /// The feed's own URL (site-relative).
    pub feed_url: String,
    /// The newest entry's digest's update time (RFC 3339, UTC).
    pub updated: String,
    pub entries: Vec<AtomEntry>,
}

/// Feed `cat`; `snapshots` holds the files of its entries' digests (their summaries).
pub(crate) fn atom(ctx: &Ctx, cat: Option<u32>, snapshots: &Snapshots) -> Result<Vec<u8>> {
    let site = ctx.site;
    let a = site.archive;
    let (title, url, feed_url) = match cat {
        None => (site.config.title.clone(), String::new(), "atom.xml".into()),
        Some(c) => (
            format!("{} — {}", site.config.title, a.categories.names[c as usize]),
            site.term_url(Tax::Category, c, 0),
            format!("{}atom.xml", site.term_url(Tax::Category, c, 0)),
        ),
    };
    let ids = entries(site, cat);
    let mut list = Vec::with_capacity(ids.len());
    for &i in ids.iter().rev() {
        let e = &a.items[i as usize];
        let summary = snapshots[&(e.digest as usize)]
            .items
            .get(e.index as usize)
            .map(|it| it.summary.clone())
            .filter(|s| !s.is_empty());
        list.push(AtomEntry {
            id: format!(
                "{}{}#item-{}",
                site.base_url,
                site.digest_url(e.digest as usize),
                e.index + 1
            ),
            item: entry_view(site, e, summary),
        });
    }
    let updated = ids
        .last()
        .map(|&i| rfc3339(&a.digests[a.items[i as usize].digest as usize].updated))
        .unwrap_or_else(|| "1970-01-01T00:00:00Z".into());
    let v = AtomView {
        title,
        url,
        feed_url,
        updated,
        entries: list,
    };
    Ok(ctx.theme.render("atom.xml", &v)?.into_bytes())
}

/// The sitemap files for `urls` (chunks of [`SITEMAP_URLS`]), then the sitemap index.
pub(crate) fn sitemap_pages(urls: &[String]) -> Vec<Page> {
    let mut index_fp = Fp::new("sitemap-index");
    let mut pages = Vec::new();
    for (n, chunk) in urls.chunks(SITEMAP_URLS).enumerate() {
        let mut fp = Fp::new("sitemap");
        for u in chunk {
            fp.str(u);
        }
        index_fp.u64(n as u64);
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

/// `sitemap.xml` (the template): one sitemap file.
#[derive(Serialize)]
pub struct SitemapView<'a> {
    /// Site-relative page URLs.
    pub urls: &'a [String],
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
    /// `sitemap-1.xml`, … (site-relative).
    pub parts: Vec<String>,
}

pub(crate) fn sitemap_index(ctx: &Ctx) -> Result<Vec<u8>> {
    let n = ctx.sitemap.len().div_ceil(SITEMAP_URLS).max(1);
    let parts: Vec<String> = (1..=n).map(|i| format!("sitemap-{i}.xml")).collect();
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
