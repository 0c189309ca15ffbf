//! The Atom feeds (the whole site, per category, the hourly digests). The sitemaps and
//! robots.txt are [`super::sitemap`]'s.

use anyhow::Result;
use serde::Serialize;

use super::{Ctx, ItemView, Snapshots, entry_view, rfc3339};
use crate::render::page::{Fp, Fps, Kind, Page};
use crate::render::site::{Site, Tax};

/// An items feed covers the digests of the last [`FEED_HOURS`] hours (before its newest
/// digest), so a reader polling daily loses nothing; at least [`FEED_MIN_ENTRIES`] entries
/// (a quiet feed still shows something), at most [`FEED_MAX_ENTRIES`] (the size bound: about
/// 1 KB an entry, so a feed stays under ~2 MB; a site busier than that is followed through
/// `digests/atom.xml`).
pub const FEED_HOURS: i64 = 24;
/// The fewest entries an items feed shows (when it has them).
pub const FEED_MIN_ENTRIES: usize = 50;
/// The most entries an items feed shows.
pub const FEED_MAX_ENTRIES: usize = 2_000;
/// The digests feed (`digests/atom.xml`): one entry per digest of the last [`FEED_HOURS`]
/// hours, at least this many…
pub const DIGEST_FEED_MIN: usize = 24;
/// …and at most this many (a week of hourly digests).
pub const DIGEST_FEED_MAX: usize = 168;
/// Items listed in one digest entry; the rest are on the digest page (the entry says how many).
pub const DIGEST_ENTRY_ITEMS: usize = 300;

/// The first digest of the feed window: the oldest digest within [`FEED_HOURS`] of the newest.
fn window_start(site: &Site) -> usize {
    let d = &site.archive.digests;
    let Some(last) = d.last() else { return 0 };
    let from = last.hour - chrono::Duration::hours(FEED_HOURS);
    d.partition_point(|x| x.hour <= from)
}

/// The items feed `cat` (`None`: the whole site) shows, newest first (by published time, then
/// archive order): every item of the digests in the window, at least [`FEED_MIN_ENTRIES`], at
/// most [`FEED_MAX_ENTRIES`].
pub(crate) fn entries(site: &Site, cat: Option<u32>) -> Vec<u32> {
    let a = site.archive;
    let first_item = a
        .digests
        .get(window_start(site))
        .map_or(a.items.len() as u32, |d| d.items.start);
    let all: Vec<u32>;
    let items: &[u32] = match cat {
        None => {
            all = (0..a.items.len() as u32).collect();
            &all
        }
        Some(c) => &a.categories.items[c as usize],
    };
    let in_window = items.len() - items.partition_point(|&i| i < first_item);
    let n = in_window.clamp(
        FEED_MIN_ENTRIES.min(items.len()),
        FEED_MAX_ENTRIES.min(items.len()),
    );
    let mut out = items[items.len() - n..].to_vec();
    out.sort_by(|&x, &y| {
        let (ex, ey) = (&a.items[x as usize], &a.items[y as usize]);
        ey.published.cmp(&ex.published).then(y.cmp(&x))
    });
    out
}

/// The digests the digests feed shows, newest first.
pub(crate) fn digest_entries(site: &Site) -> Vec<usize> {
    let len = site.archive.digests.len();
    let in_window = len - window_start(site);
    let n = in_window.clamp(DIGEST_FEED_MIN.min(len), DIGEST_FEED_MAX.min(len));
    (len - n..len).rev().collect()
}

/// The digests feed's path.
pub const DIGESTS_FEED: &str = "digests/atom.xml";

/// `atom.xml`, `digests/atom.xml`, then every category's.
pub(crate) fn atom_pages(site: &Site, fps: &Fps) -> Vec<Page> {
    let atom_fp = |tag: &str, items: &[u32]| {
        let mut fp = Fp::new(tag);
        for &i in items {
            fp.u64(fps.item[i as usize]);
        }
        fp.0
    };
    let mut digests_fp = Fp::new("digests-atom");
    for d in digest_entries(site) {
        digests_fp.u64(fps.digest[d]);
    }
    let mut pages = vec![
        Page {
            path: "atom.xml".into(),
            kind: Kind::Atom(None),
            fp: atom_fp("atom", &entries(site, None)),
        },
        Page {
            path: DIGESTS_FEED.into(),
            kind: Kind::DigestsAtom,
            fp: digests_fp.0,
        },
    ];
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
    for &i in &ids {
        let e = &a.items[i as usize];
        let summary = snapshots[&(e.digest as usize)]
            .items
            .get(e.index as usize)
            .map(|it| it.summary.clone())
            .filter(|s| !s.is_empty());
        list.push(AtomEntry {
            id: format!(
                "{}{}#item-{}",
                site.base_url(),
                site.digest_url(e.digest as usize),
                e.index + 1
            ),
            item: entry_view(site, e, summary),
        });
    }
    let updated = ids
        .iter()
        .map(|&i| &a.digests[a.items[i as usize].digest as usize].updated)
        .max()
        .map(|t| rfc3339(&t.to_utc()))
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

/// One entry of the digests feed: a digest and the items it lists.
#[derive(Serialize)]
pub struct DigestEntry {
    /// The digest page (absolute URL): the entry's id and link.
    pub id: String,
    /// Site-relative.
    pub url: String,
    pub heading: String,
    /// The digest's hour (RFC 3339, UTC).
    pub published: String,
    /// When its file was last written (RFC 3339, UTC).
    pub updated: String,
    /// Its items, in the digest's order, at most [`DIGEST_ENTRY_ITEMS`].
    pub items: Vec<ItemView>,
    /// Items the entry leaves to the digest page.
    pub more: usize,
    /// The line that says so (empty when none are left).
    pub more_text: String,
}

/// `digests_atom.xml`: one entry per hourly digest, newest first.
#[derive(Serialize)]
pub struct DigestsAtomView {
    pub title: String,
    /// The site's title (the entries' author).
    pub site_title: String,
    /// The feed's own URL (site-relative).
    pub feed_url: String,
    /// The newest digest's update time (RFC 3339, UTC).
    pub updated: String,
    pub entries: Vec<DigestEntry>,
}

/// `digests/atom.xml`: built from the archive alone (titles, links, sites, keywords).
pub(crate) fn digests_atom(ctx: &Ctx) -> Result<Vec<u8>> {
    let site = ctx.site;
    let a = site.archive;
    let list = digest_entries(site);
    let entries: Vec<DigestEntry> = list
        .iter()
        .map(|&d| {
            let items = a.digest_items(d);
            let url = site.digest_url(d);
            DigestEntry {
                id: format!("{}{url}", site.base_url()),
                heading: site.digest_heading(d),
                published: rfc3339(&a.digests[d].hour.to_utc()),
                updated: rfc3339(&a.digests[d].updated.to_utc()),
                items: items
                    .iter()
                    .take(DIGEST_ENTRY_ITEMS)
                    .map(|e| entry_view(site, e, None))
                    .collect(),
                more: items.len().saturating_sub(DIGEST_ENTRY_ITEMS),
                more_text: match items.len().saturating_sub(DIGEST_ENTRY_ITEMS) {
                    0 => String::new(),
                    n => site
                        .strings
                        .digests_feed_more
                        .replace("{n}", &n.to_string()),
                },
                url,
            }
        })
        .collect();
    let updated = list
        .iter()
        .map(|&d| &a.digests[d].updated)
        .max()
        .map(|t| rfc3339(&t.to_utc()))
        .unwrap_or_else(|| "1970-01-01T00:00:00Z".into());
    let v = DigestsAtomView {
        title: format!("{} — {}", site.config.title, site.strings.digests_feed),
        site_title: site.config.title.clone(),
        feed_url: DIGESTS_FEED.into(),
        updated,
        entries,
    };
    Ok(ctx.theme.render("digests_atom.xml", &v)?.into_bytes())
}
