//! The trends page: the rising words of the latest day and hour, and the latest day's trend
//! words (from Google Trends feeds).

use anyhow::Result;
use serde::Serialize;

use super::{Ctx, Link, Snapshots, describe, html, layout, search_url};
use crate::render::page::{Fp, Fps, Kind, Page};
use crate::render::rising::{self, RisingView};
use crate::render::site::{Site, Tax};

/// The page: the latest day and hour with their baselines.
pub(crate) fn page(site: &Site, fps: &Fps) -> Page {
    let mut fp = Fp::new("trends");
    let first_day = site
        .days
        .len()
        .saturating_sub(site.config.trends.day_window + 1);
    for day in &site.days[first_day..] {
        for &d in &day.digests {
            fps.digest(&mut fp, d);
        }
    }
    let digests = site.archive.digests.len();
    let first_hour = digests.saturating_sub(site.config.trends.hour_window + 1);
    for d in first_hour..digests {
        fps.digest(&mut fp, d);
    }
    Page {
        path: "trends/index.html".into(),
        kind: Kind::Trends,
        fp: fp.0,
    }
}

/// The snapshot files the page reads: the latest day's (its trend words).
pub(crate) fn reads(site: &Site) -> Vec<usize> {
    site.days
        .last()
        .map(|d| d.digests.clone())
        .unwrap_or_default()
}

/// A trend word of the latest day.
#[derive(Serialize)]
pub struct TrendWord {
    pub word: String,
    /// The keyword's page if the archive has one, else the search for the word.
    pub url: String,
    pub volume: Option<u64>,
}

/// `trends.html`.
#[derive(Serialize)]
pub struct TrendsView {
    /// The latest day and hour (digest), if any.
    pub day: Option<Link>,
    pub hour: Option<Link>,
    pub rising_day: Vec<RisingView>,
    pub rising_hour: Vec<RisingView>,
    /// The biggest searches first.
    pub trend_words: Vec<TrendWord>,
}

/// The page; `snapshots` holds the files [`reads`] named.
pub(crate) fn trends(ctx: &Ctx, snapshots: &Snapshots) -> Result<Vec<u8>> {
    let site = ctx.site;
    let s = site.strings;
    let a = site.archive;
    let last_day = site.days.len().checked_sub(1);
    let last_hour = a.digests.len().checked_sub(1);
    let mut trend_words: Vec<TrendWord> = Vec::new();
    for d in reads(site) {
        for item in &snapshots[&d].items {
            let Some(t) = &item.trend else { continue };
            if trend_words.iter().any(|w| w.word == item.title) {
                continue;
            }
            // A word the archive has as a keyword links to its page; any other to the search
            // for it.
            let url = a
                .keywords
                .get(&item.title)
                .map(|k| site.term_link(Tax::Keyword, k).url)
                .filter(|u| !u.is_empty())
                .unwrap_or_else(|| search_url(&item.title));
            trend_words.push(TrendWord {
                word: item.title.clone(),
                url,
                volume: t.volume,
            });
        }
    }
    trend_words.sort_by(|x, y| y.volume.cmp(&x.volume).then_with(|| x.word.cmp(&y.word)));
    let v = TrendsView {
        day: last_day.map(|i| Link {
            name: site.days[i].date.format(s.day_format).to_string(),
            url: site.day_url(i),
        }),
        hour: last_hour.map(|d| Link {
            name: site.digest_heading(d),
            url: site.digest_url(d),
        }),
        rising_day: last_day
            .map(|i| rising::rising_at(site, &ctx.days, i, site.config.trends.day_window))
            .unwrap_or_default(),
        rising_hour: last_hour
            .map(|d| rising::rising_at(site, &ctx.hours, d, site.config.trends.hour_window))
            .unwrap_or_default(),
        trend_words,
    };
    let description = describe(
        site,
        s.rising,
        v.rising_day
            .iter()
            .chain(&v.rising_hour)
            .map(|r| r.word.name.as_str())
            .chain(v.trend_words.iter().map(|w| w.word.as_str())),
    );
    let mut l = layout(site, s.rising.into(), "trends/".into(), "trends", &v);
    l.page.description = description;
    html(ctx.theme, "trends.html", &l)
}
