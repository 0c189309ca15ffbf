//! The home page (the latest digests, paginated) and one page per digest (an hour's items,
//! trend words and rising words).

use anyhow::Result;
use serde::Serialize;

use super::stories::{self, TopStory};
use super::{
    Ctx, DigestCard, ItemView, Link, PagerView, describe, digest_card, entry_view, html, layout,
    rfc3339, search_url,
};
use crate::content::Snapshot;
use crate::render::page::{Fp, Fps, Kind, Page, Pager, html_path, neighbours};
use crate::render::rising::{self, RisingView};
use crate::render::safety::{markdown_html, safe_link};
use crate::render::site::Site;

/// Home and its older pages, then every digest's page.
pub(crate) fn pages(site: &Site, fps: &Fps) -> Vec<Page> {
    let a = site.archive;
    let mut pages = Vec::new();
    let pager = Pager::home(site);
    for page in std::iter::once(0).chain(1..=pager.numbered()) {
        let mut fp = Fp::new("home");
        fp.u64(page as u64)
            .opt(pager.older(page))
            .opt(pager.newer(page));
        for d in pager.range(page) {
            fps.digest(&mut fp, d);
        }
        if page == 0 {
            stories::home_fp(site, &mut fp);
        }
        pages.push(Page {
            path: html_path(&Site::home_url(page)),
            kind: Kind::Home { page },
            fp: fp.0,
        });
    }
    for d in 0..a.digests.len() {
        let mut fp = Fp::new("digest");
        fps.digest(&mut fp, d);
        // Its rows' stories: what each row says of the other sites that covered it.
        for e in a.digest_items(d) {
            if let Some(s) = site.stories.fp(e.story) {
                fp.u64(s);
            }
        }
        // Neighbours: the previous/next links show their headings (hour and item count).
        for n in neighbours(d, a.digests.len()) {
            fp.u64(u64::from(n.is_some()));
            if let Some(n) = n {
                fp.str(&site.digest_heading(n));
            }
        }
        // Its rising words: the hours of the baseline before it.
        for w in d.saturating_sub(site.config.trends.hour_window)..d {
            fps.digest(&mut fp, w);
        }
        pages.push(Page {
            path: html_path(&site.digest_url(d)),
            kind: Kind::Digest(d),
            fp: fp.0,
        });
    }
    pages
}

/// `home.html`: a page of the latest digests, newest first.
#[derive(Serialize)]
pub struct HomeView {
    /// The first page only: the recent stories most sites covered (decayed by age).
    pub stories: Vec<TopStory>,
    pub digests: Vec<DigestCard>,
    pub pager: PagerView,
}

pub(crate) fn home(ctx: &Ctx, p: usize) -> Result<Vec<u8>> {
    let site = ctx.site;
    let pager = Pager::home(site);
    let v = HomeView {
        stories: if p == 0 {
            stories::home_top(site)
        } else {
            Vec::new()
        },
        digests: pager.range(p).rev().map(|d| digest_card(site, d)).collect(),
        pager: PagerView {
            older: pager.older(p).map(Site::home_url),
            newer: pager.newer(p).map(Site::home_url),
        },
    };
    let title = if p == 0 {
        site.config.title.clone()
    } else {
        format!("{} ({})", site.strings.latest, p)
    };
    html(
        ctx.theme,
        "home.html",
        &layout(site, title, Site::home_url(p), "home", v),
    )
}

/// A trend word of a digest (from a Google Trends feed), as the old tool's table showed it.
#[derive(Serialize)]
pub struct TrendRow {
    pub word: String,
    /// The search page for the word: the archived items that mention it.
    pub search: String,
    pub link: Option<String>,
    pub news: Vec<NewsView>,
    pub volume: Option<u64>,
    /// `200,000+`, as the old tool showed it.
    pub volume_text: String,
    pub published: String,
}

/// A news article a trend word links to.
#[derive(Serialize)]
pub struct NewsView {
    pub title: String,
    /// An http(s) URL.
    pub url: String,
    pub source: String,
}

/// `digest.html`: one digest.
#[derive(Serialize)]
pub struct DigestView {
    pub heading: String,
    /// RFC 3339 in the site's zone.
    pub hour: String,
    /// When its file was last written (RFC 3339, site's zone).
    pub updated: String,
    /// Items plus trend words.
    pub count: usize,
    /// The curator's Markdown body, rendered and sanitised.
    pub body_html: String,
    pub items: Vec<ItemView>,
    /// The biggest searches first.
    pub trends: Vec<TrendRow>,
    pub rising: Vec<RisingView>,
    pub prev: Option<Link>,
    pub next: Option<Link>,
    pub day: Link,
}

pub(crate) fn digest(ctx: &Ctx, d: usize, snapshot: &Snapshot) -> Result<Vec<u8>> {
    let site = ctx.site;
    let s = site.strings;
    let a = site.archive;
    let entries = a.digest_items(d);
    let mut items: Vec<ItemView> = Vec::new();
    let mut trends: Vec<TrendRow> = Vec::new();
    for (e, item) in entries.iter().zip(&snapshot.items) {
        if let Some(t) = &item.trend {
            trends.push(TrendRow {
                word: item.title.clone(),
                search: search_url(&item.title),
                link: safe_link(&item.link),
                news: t
                    .news
                    .iter()
                    .filter_map(|n| {
                        Some(NewsView {
                            title: n.title.clone(),
                            url: safe_link(&n.url)?,
                            source: n.source.clone(),
                        })
                    })
                    .collect(),
                volume: t.volume,
                volume_text: t
                    .volume
                    .map(|v| format!("{}+", thousands(v)))
                    .unwrap_or_default(),
                published: rfc3339(&site.local(&item.published)),
            });
            continue;
        }
        let mut v = entry_view(site, e, None);
        // The file itself is the truth for what only this page shows.
        v.summary = (!item.summary.is_empty()).then(|| item.summary.clone());
        v.story = stories::row(site, a.digests[d].items.start + e.index);
        v.host = v
            .link
            .as_deref()
            .and_then(|l| url::Url::parse(l).ok())
            .and_then(|u| u.host_str().map(str::to_string));
        items.push(v);
    }
    // The old tool's trend table: the biggest searches first.
    trends.sort_by(|a, b| b.volume.cmp(&a.volume).then_with(|| a.word.cmp(&b.word)));
    let digest = &a.digests[d];
    let day = site.digest_day[d];
    let link = |n: usize| Link {
        name: site.digest_heading(n),
        url: site.digest_url(n),
    };
    let heading = site.digest_heading(d);
    let description = describe(
        site,
        &heading,
        digest_card(site, d)
            .keywords
            .into_iter()
            .map(|k| k.name)
            .chain(items.iter().map(|i| i.title.clone())),
    );
    let [prev, next] = neighbours(d, a.digests.len());
    let v = DigestView {
        heading: heading.clone(),
        hour: rfc3339(&site.local(&digest.hour)),
        updated: rfc3339(&site.local(&digest.updated)),
        count: items.len() + trends.len(),
        body_html: markdown_html(&snapshot.body),
        items,
        trends,
        rising: rising::rising_at(site, &ctx.hours, d, site.config.trends.hour_window),
        prev: prev.map(link),
        next: next.map(link),
        day: Link {
            name: site.days[day].date.format(s.day_format).to_string(),
            url: site.day_url(day),
        },
    };
    let mut l = layout(site, heading, site.digest_url(d), "digest", v);
    l.page.description = description;
    html(ctx.theme, "digest.html", &l)
}

/// 200000 → "200,000".
pub(crate) fn thousands(v: u64) -> String {
    let digits = v.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_are_grouped() {
        assert_eq!(super::thousands(200_000), "200,000");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1_000), "1,000");
    }
}
