//! The calendar pages: one per day (its digests, rising words and word clouds), month and
//! year, and the archives page (every year with its months).

use anyhow::Result;
use chrono::NaiveDate;
use serde::Serialize;

use super::{CountLink, Ctx, DigestCard, Link, describe, digest_card, html, layout};
use crate::render::page::{Fp, Fps, Kind, Page, html_path, neighbours};
use crate::render::rising::{self, RisingView};
use crate::render::site::Site;

/// Every day, month and year, then the archives page.
pub(crate) fn pages(site: &Site, fps: &Fps) -> Vec<Page> {
    let mut pages = Vec::new();
    for (i, day) in site.days.iter().enumerate() {
        // Its digests and its neighbours' URLs: nothing else (not its index, not the number
        // of days), so a new day changes only itself and the day before.
        let mut fp = Fp::new("day");
        for &d in &day.digests {
            fps.digest(&mut fp, d);
        }
        let neighbours = neighbours(i, site.days.len());
        for n in neighbours.into_iter().flatten() {
            fp.str(&site.day_url(n));
        }
        // Its top stories (those that began that day: a later item of one changes it too).
        super::stories::day_fp(site, &mut fp, i);
        // Its rising words: the days of the baseline before it.
        for w in i.saturating_sub(site.config.trends.day_window)..i {
            for &d in &site.days[w].digests {
                fps.digest(&mut fp, d);
            }
        }
        pages.push(Page {
            path: html_path(&site.day_url(i)),
            kind: Kind::Day(i),
            fp: fp.0,
        });
    }
    for (i, month) in site.months.iter().enumerate() {
        let mut fp = Fp::new("month");
        for &day in &month.days {
            for &d in &site.days[day].digests {
                fps.digest(&mut fp, d);
            }
        }
        let neighbours = neighbours(i, site.months.len());
        for n in neighbours.into_iter().flatten() {
            fp.str(&site.month_url(n));
        }
        pages.push(Page {
            path: html_path(&site.month_url(i)),
            kind: Kind::Month(i),
            fp: fp.0,
        });
    }
    let mut archives_fp = Fp::new("archives");
    for (i, year) in site.years.iter().enumerate() {
        let mut fp = Fp::new("year");
        for &m in &year.months {
            fp.str(&site.month_url(m));
            for &day in &site.months[m].days {
                for &d in &site.days[day].digests {
                    fps.digest(&mut fp, d);
                }
            }
        }
        let neighbours = neighbours(i, site.years.len());
        for n in neighbours.into_iter().flatten() {
            fp.str(&site.year_url(n));
        }
        archives_fp.u64(fp.0);
        pages.push(Page {
            path: html_path(&site.year_url(i)),
            kind: Kind::Year(i),
            fp: fp.0,
        });
    }
    pages.push(Page {
        path: "archives/index.html".into(),
        kind: Kind::Archives,
        fp: archives_fp.0,
    });
    pages
}

/// `day.html`: one day.
#[derive(Serialize)]
pub struct DayView {
    /// The date, in the theme's day format.
    pub label: String,
    pub count: usize,
    /// The stories that began that day, most sites first (only those more than one covered).
    pub stories: Vec<super::stories::TopStory>,
    /// Its digests, newest first.
    pub digests: Vec<DigestCard>,
    pub prev: Option<Link>,
    pub next: Option<Link>,
    pub month: Link,
    pub rising: Vec<RisingView>,
    /// The day's word clouds as inline SVG (Japanese words, other words); empty when none.
    pub cloud_ja: String,
    pub cloud_en: String,
}

pub(crate) fn day(ctx: &Ctx, i: usize) -> Result<Vec<u8>> {
    let site = ctx.site;
    let s = site.strings;
    let day = &site.days[i];
    let month = site.day_month[i];
    let label = |n: usize| Link {
        name: site.days[n].date.format(s.day_format).to_string(),
        url: site.day_url(n),
    };
    let (cloud_ja, cloud_en) = rising::clouds(site, &ctx.days, i);
    let digests: Vec<DigestCard> = day
        .digests
        .iter()
        .rev()
        .map(|&d| digest_card(site, d))
        .collect();
    let [prev, next] = neighbours(i, site.days.len());
    let v = DayView {
        label: day.date.format(s.day_format).to_string(),
        count: digests.iter().map(|c| c.count).sum(),
        stories: super::stories::day_top(site, i),
        digests,
        prev: prev.map(label),
        next: next.map(label),
        month: Link {
            name: site.months[month].first.format(s.month_format).to_string(),
            url: site.month_url(month),
        },
        rising: rising::rising_at(site, &ctx.days, i, site.config.trends.day_window),
        cloud_ja,
        cloud_en,
    };
    // The day's words: each digest's, the latest digest's first.
    let mut words: Vec<&str> = Vec::new();
    for k in v.digests.iter().flat_map(|c| &c.keywords) {
        if !words.contains(&k.name.as_str()) {
            words.push(&k.name);
        }
    }
    let description = describe(site, &format!("{} {}{}", v.label, v.count, s.items), words);
    let mut l = layout(site, v.label.clone(), site.day_url(i), "day", &v);
    l.page.description = description;
    html(ctx.theme, "day.html", &l)
}

/// `month.html`: one month.
#[derive(Serialize)]
pub struct MonthView {
    pub label: String,
    pub count: usize,
    /// Its days with their item counts, oldest first.
    pub days: Vec<CountLink>,
    pub prev: Option<Link>,
    pub next: Option<Link>,
    pub year: Link,
}

pub(crate) fn month(ctx: &Ctx, i: usize) -> Result<Vec<u8>> {
    let site = ctx.site;
    let s = site.strings;
    let m = &site.months[i];
    let year = site.month_year[i];
    let label = |n: usize| Link {
        name: site.months[n].first.format(s.month_format).to_string(),
        url: site.month_url(n),
    };
    let days: Vec<CountLink> = m
        .days
        .iter()
        .map(|&day| CountLink {
            name: site.days[day].date.format(s.day_format).to_string(),
            url: site.day_url(day),
            count: day_count(site, day),
        })
        .collect();
    let [prev, next] = neighbours(i, site.months.len());
    let v = MonthView {
        label: m.first.format(s.month_format).to_string(),
        count: days.iter().map(|d| d.count).sum(),
        days,
        prev: prev.map(label),
        next: next.map(label),
        year: Link {
            name: year_label(site, year),
            url: site.year_url(year),
        },
    };
    let mut l = layout(site, v.label.clone(), site.month_url(i), "month", &v);
    l.page.description = counted(site, &v.label, v.count);
    html(ctx.theme, "month.html", &l)
}

/// `year.html`: one year.
#[derive(Serialize)]
pub struct YearView {
    pub label: String,
    pub count: usize,
    /// Its months with their item counts, oldest first.
    pub months: Vec<CountLink>,
    pub prev: Option<Link>,
    pub next: Option<Link>,
}

pub(crate) fn year(ctx: &Ctx, i: usize) -> Result<Vec<u8>> {
    let site = ctx.site;
    let label = |n: usize| Link {
        name: year_label(site, n),
        url: site.year_url(n),
    };
    let months = month_links(site, i);
    let [prev, next] = neighbours(i, site.years.len());
    let v = YearView {
        label: year_label(site, i),
        count: months.iter().map(|m| m.count).sum(),
        months,
        prev: prev.map(label),
        next: next.map(label),
    };
    let mut l = layout(site, v.label.clone(), site.year_url(i), "year", &v);
    l.page.description = counted(site, &v.label, v.count);
    html(ctx.theme, "year.html", &l)
}

/// A year on the archives page.
#[derive(Serialize)]
pub struct ArchiveYear {
    pub name: String,
    pub url: String,
    pub count: usize,
    pub months: Vec<CountLink>,
}

/// `archives.html`: every year, newest first, with its months.
#[derive(Serialize)]
pub struct ArchivesView {
    /// Items in the archive.
    pub count: usize,
    pub years: Vec<ArchiveYear>,
}

pub(crate) fn archives(ctx: &Ctx) -> Result<Vec<u8>> {
    let site = ctx.site;
    let years: Vec<ArchiveYear> = (0..site.years.len())
        .rev()
        .map(|y| {
            let months = month_links(site, y);
            ArchiveYear {
                name: year_label(site, y),
                url: site.year_url(y),
                count: months.iter().map(|m| m.count).sum(),
                months,
            }
        })
        .collect();
    let v = ArchivesView {
        count: site.archive.items.len(),
        years,
    };
    let mut l = layout(
        site,
        site.strings.archives.into(),
        "archives/".into(),
        "archives",
        &v,
    );
    l.page.description = counted(site, site.strings.archives, v.count);
    html(ctx.theme, "archives.html", &l)
}

/// `2021年7月 52件 — テックニュースまとめ: RSSフィードの…`: a period and its count, then what the
/// site is.
fn counted(site: &Site, label: &str, count: usize) -> String {
    let lead = format!("{label} {count}{}", site.strings.items);
    describe(
        site,
        &lead,
        [format!("{}: {}", site.config.title, site.strings.about)],
    )
}

fn day_count(site: &Site, day: usize) -> usize {
    site.days[day]
        .digests
        .iter()
        .map(|&d| site.archive.digest_items(d).len())
        .sum()
}

fn year_label(site: &Site, y: usize) -> String {
    NaiveDate::from_ymd_opt(site.years[y].year, 1, 1)
        .map(|d| d.format(site.strings.year_format).to_string())
        .unwrap_or_default()
}

fn month_links(site: &Site, y: usize) -> Vec<CountLink> {
    site.years[y]
        .months
        .iter()
        .map(|&m| CountLink {
            name: site.months[m]
                .first
                .format(site.strings.month_format)
                .to_string(),
            url: site.month_url(m),
            count: site.months[m]
                .days
                .iter()
                .map(|&d| day_count(site, d))
                .sum(),
        })
        .collect()
}
