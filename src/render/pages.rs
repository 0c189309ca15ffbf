//! Which pages the site has, what each one depends on, and the view each template receives.
//!
//! [`plan`] lists every output file with a fingerprint of everything its content depends on (the
//! bytes of the snapshot files whose items it shows, its neighbours for previous/next links, and
//! — mixed in by the caller — the theme and config). A page whose fingerprint is unchanged since
//! the last build is not rendered again. That only works because no page depends on more than
//! it says: pages show no global counts in their layout, and lists are paginated from the oldest
//! item ([`Pager`]), so a new item changes the first page of a list and never shifts the others.

use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::Result;
use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, TimeZone};
use chrono_tz::Tz;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Serialize;

use super::safety::{markdown_html, safe_link, slug, slug_long};
use super::strings::Strings;
use super::theme::Theme;
use crate::config::Config;
use crate::content::Snapshot;
use crate::content::archive::{Archive, Entry};
use crate::fetch::state::FetchState;

/// Entries in an Atom feed.
pub const FEED_ENTRIES: usize = 50;
/// Keywords on the keyword list page (the rest are reached from the digests).
pub const KEYWORD_LIST: usize = 500;
/// URLs per sitemap file (the protocol allows 50,000).
pub const SITEMAP_URLS: usize = 40_000;

/// The three ways items are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tax {
    Category,
    Site,
    Keyword,
}

impl Tax {
    pub const ALL: [Tax; 3] = [Tax::Category, Tax::Site, Tax::Keyword];

    pub fn dir(self) -> &'static str {
        match self {
            Tax::Category => "categories",
            Tax::Site => "sites",
            Tax::Keyword => "keywords",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Tax::Category => "category",
            Tax::Site => "site",
            Tax::Keyword => "keyword",
        }
    }
}

/// What an output file is.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Home (`page` 0) or one of its older pages.
    Home {
        page: usize,
    },
    Digest(usize),
    Day(usize),
    Month(usize),
    Year(usize),
    Archives,
    Terms(Tax),
    Term {
        tax: Tax,
        id: u32,
        page: usize,
    },
    Health,
    /// The search page (it reads the static index under `search/`).
    Search,
    /// Rising words of the latest hour and day, and the day's trend words.
    Trends,
    Atom(Option<u32>),
    SitemapIndex,
    Sitemap(usize),
    Robots,
    NotFound,
    NoJekyll,
}

/// One output file.
#[derive(Debug, Clone)]
pub struct Page {
    /// Path under the output folder (`2021/07/20/0800/index.html`).
    pub path: String,
    pub kind: Kind,
    /// Everything the page shows depends on this (without the theme and config).
    pub fp: u64,
}

/// Stable pagination of `n` entries, `per` to a page, numbered from the OLDEST: page j (1-based)
/// holds entries [(j-1)·per, j·per) for ever; the first page (the list's own URL) holds the rest,
/// between `per` and 2·`per`-1 entries once there are that many. A new entry changes the first
/// page only, and once every `per` entries one more numbered page appears.
#[derive(Debug, Clone, Copy)]
pub struct Pager {
    pub n: usize,
    pub per: usize,
}

impl Pager {
    /// Numbered pages (older than the first page).
    pub fn numbered(&self) -> usize {
        (self.n / self.per).saturating_sub(1)
    }

    /// Entries of page `page` (0 = the first page), oldest first.
    pub fn range(&self, page: usize) -> Range<usize> {
        if page == 0 {
            self.numbered() * self.per..self.n
        } else {
            (page - 1) * self.per..page * self.per
        }
    }

    /// The page with older entries.
    pub fn older(&self, page: usize) -> Option<usize> {
        match page {
            0 => (self.numbered() > 0).then(|| self.numbered()),
            1 => None,
            p => Some(p - 1),
        }
    }

    /// The page with newer entries (`Some(0)` is the first page).
    pub fn newer(&self, page: usize) -> Option<usize> {
        match page {
            0 => None,
            p if p >= self.numbered() => Some(0),
            p => Some(p + 1),
        }
    }
}

/// A fingerprint under construction.
#[derive(Debug, Clone, Copy)]
struct Fp(u64);

impl Fp {
    fn new(tag: &str) -> Fp {
        let mut f = Fp(0x243f_6a88_85a3_08d3);
        f.str(tag);
        f
    }
    fn u64(&mut self, v: u64) -> &mut Fp {
        // splitmix64-style mixing: order-sensitive, well distributed.
        let mut z = (self.0 ^ v).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        self.0 = z ^ (z >> 31);
        self
    }
    fn str(&mut self, s: &str) -> &mut Fp {
        self.u64(crate::fsutil::fnv1a(s.as_bytes()))
    }
    fn opt(&mut self, v: Option<usize>) -> &mut Fp {
        self.u64(v.map_or(u64::MAX, |v| v as u64))
    }
}

struct Day {
    date: NaiveDate,
    digests: Vec<usize>,
}

struct Month {
    first: NaiveDate,
    days: Vec<usize>,
}

struct Year {
    year: i32,
    months: Vec<usize>,
}

/// Everything pages are made from.
pub struct Site<'a> {
    pub config: &'a Config,
    pub archive: &'a Archive,
    pub tz: Tz,
    pub base_url: String,
    pub base_path: String,
    pub strings: &'static Strings,
    health: Option<FetchState>,
    health_hash: u64,
    days: Vec<Day>,
    months: Vec<Month>,
    years: Vec<Year>,
    digest_day: Vec<usize>,
    day_month: Vec<usize>,
    month_year: Vec<usize>,
    slugs: [Vec<String>; 3],
    /// Precomputed per digest and per term: every list row links to them.
    digest_urls: Vec<String>,
    digest_headings: Vec<String>,
    term_urls: [Vec<String>; 3],
    /// Keywords with a page (`[build] keyword_min_items`); the others are shown unlinked.
    has_page: Vec<bool>,
    feed_snapshots: Mutex<FxHashMap<usize, Arc<Snapshot>>>,
    sitemap_urls: OnceLock<Vec<String>>,
    hour_counts: super::rising::Counts,
    day_counts: super::rising::Counts,
}

impl<'a> Site<'a> {
    pub fn new(
        config: &'a Config,
        archive: &'a Archive,
        base_url: String,
        health: Option<(FetchState, u64)>,
    ) -> Site<'a> {
        let tz = config.timezone;
        let base_path = url::Url::parse(&base_url)
            .map(|u| u.path().to_string())
            .unwrap_or_else(|_| "/".into());
        let mut days: Vec<Day> = Vec::new();
        let mut digest_day = Vec::with_capacity(archive.digests.len());
        for (i, d) in archive.digests.iter().enumerate() {
            let date = d.hour.with_timezone(&tz).date_naive();
            if days.last().is_none_or(|l| l.date != date) {
                days.push(Day {
                    date,
                    digests: Vec::new(),
                });
            }
            days.last_mut().unwrap().digests.push(i);
            digest_day.push(days.len() - 1);
        }
        let mut months: Vec<Month> = Vec::new();
        for (i, day) in days.iter().enumerate() {
            let first = day.date.with_day(1).unwrap();
            if months.last().is_none_or(|m| m.first != first) {
                months.push(Month {
                    first,
                    days: Vec::new(),
                });
            }
            months.last_mut().unwrap().days.push(i);
        }
        let day_month: Vec<usize> = months
            .iter()
            .enumerate()
            .flat_map(|(m, month)| month.days.iter().map(move |_| m))
            .collect();
        let mut years: Vec<Year> = Vec::new();
        for (i, m) in months.iter().enumerate() {
            if years.last().is_none_or(|y| y.year != m.first.year()) {
                years.push(Year {
                    year: m.first.year(),
                    months: Vec::new(),
                });
            }
            years.last_mut().unwrap().months.push(i);
        }
        let month_year: Vec<usize> = years
            .iter()
            .enumerate()
            .flat_map(|(y, year)| year.months.iter().map(move |_| y))
            .collect();
        let slugs = [
            unique_slugs(&archive.categories.names, false),
            unique_slugs(&archive.sites.names, false),
            unique_slugs(&archive.keywords.names, true),
        ];
        let (health, health_hash) = match health {
            Some((s, h)) => (Some(s), h),
            None => (None, 0),
        };
        let mut site = Site {
            config,
            archive,
            tz,
            base_url,
            base_path,
            strings: Strings::of(config.language),
            health,
            health_hash,
            days,
            months,
            years,
            digest_day,
            day_month,
            month_year,
            slugs,
            digest_urls: Vec::new(),
            digest_headings: Vec::new(),
            term_urls: [Vec::new(), Vec::new(), Vec::new()],
            has_page: archive
                .keywords
                .items
                .iter()
                .map(|items| items.len() >= config.build.keyword_min_items)
                .collect(),
            feed_snapshots: Mutex::new(FxHashMap::default()),
            sitemap_urls: OnceLock::new(),
            hour_counts: super::rising::Counts::hours(),
            day_counts: super::rising::Counts::days(),
        };
        site.digest_urls = (0..archive.digests.len())
            .map(|d| site.make_digest_url(d))
            .collect();
        site.digest_headings = (0..archive.digests.len())
            .map(|d| site.make_digest_heading(d))
            .collect();
        for (i, tax) in Tax::ALL.into_iter().enumerate() {
            site.term_urls[i] = site.slugs[i]
                .iter()
                .map(|slug| format!("{}/{slug}/", tax.dir()))
                .collect();
        }
        site
    }

    fn names(&self, tax: Tax) -> &crate::content::archive::Names {
        match tax {
            Tax::Category => &self.archive.categories,
            Tax::Site => &self.archive.sites,
            Tax::Keyword => &self.archive.keywords,
        }
    }

    fn local(&self, t: &DateTime<FixedOffset>) -> DateTime<Tz> {
        t.with_timezone(&self.tz)
    }

    // --- URLs (site-relative; templates put them under base_url with the `url` filter) ---

    pub fn digest_url(&self, d: usize) -> String {
        self.digest_urls[d].clone()
    }

    fn make_digest_url(&self, d: usize) -> String {
        crate::content::digest_path(&self.archive.digests[d].hour, self.tz)
    }

    fn day_url(&self, i: usize) -> String {
        let d = self.days[i].date;
        format!("{:04}/{:02}/{:02}/", d.year(), d.month(), d.day())
    }

    fn month_url(&self, i: usize) -> String {
        let d = self.months[i].first;
        format!("{:04}/{:02}/", d.year(), d.month())
    }

    fn year_url(&self, i: usize) -> String {
        format!("{:04}/", self.years[i].year)
    }

    fn term_url(&self, tax: Tax, id: u32, page: usize) -> String {
        let i = Tax::ALL.iter().position(|t| *t == tax).unwrap();
        let base = &self.term_urls[i][id as usize];
        if page == 0 {
            base.clone()
        } else {
            format!("{base}page/{page}/")
        }
    }

    fn home_url(page: usize) -> String {
        if page == 0 {
            String::new()
        } else {
            format!("page/{page}/")
        }
    }

    /// Each day's digests, oldest day first.
    pub(super) fn day_digests(&self) -> impl Iterator<Item = &Vec<usize>> {
        self.days.iter().map(|d| &d.digests)
    }

    /// A link to a term's page; a keyword without a page gets an empty URL (shown unlinked).
    pub(super) fn term_link(&self, tax: Tax, id: u32) -> Link {
        Link {
            name: self.names(tax).names[id as usize].clone(),
            url: if self.has_term_page(tax, id) {
                self.term_url(tax, id, 0)
            } else {
                String::new()
            },
        }
    }

    fn has_term_page(&self, tax: Tax, id: u32) -> bool {
        tax != Tax::Keyword || self.has_page[id as usize]
    }

    fn digest_heading(&self, d: usize) -> String {
        self.digest_headings[d].clone()
    }

    fn make_digest_heading(&self, d: usize) -> String {
        let digest = &self.archive.digests[d];
        let hour = self
            .local(&digest.hour)
            .format("%Y-%m-%d %H:%M")
            .to_string();
        self.strings
            .digest_heading(&hour, (digest.items.end - digest.items.start) as usize)
    }

    fn home_pager(&self) -> Pager {
        Pager {
            n: self.archive.digests.len(),
            per: self.config.build.digests_per_page,
        }
    }

    fn term_pager(&self, tax: Tax, id: u32) -> Pager {
        Pager {
            n: self.names(tax).items[id as usize].len(),
            per: self.config.build.items_per_page,
        }
    }
}

fn html_path(url: &str) -> String {
    format!("{url}index.html")
}

/// Each name's slug (keywords lower-cased); names whose slugs meet (a 24-bit hash collision,
/// keywords differing only in case) all get [`slug_long`], so no two share a page.
fn unique_slugs(names: &[String], lower: bool) -> Vec<String> {
    let key = |n: &String| if lower { n.to_lowercase() } else { n.clone() };
    let mut slugs: Vec<String> = names.iter().map(|n| slug(&key(n))).collect();
    let mut seen: FxHashMap<&str, usize> = FxHashMap::default();
    for s in &slugs {
        *seen.entry(s.as_str()).or_default() += 1;
    }
    let shared: Vec<bool> = slugs.iter().map(|s| seen[s.as_str()] > 1).collect();
    for (i, n) in names.iter().enumerate() {
        if shared[i] {
            slugs[i] = slug_long(&key(n), n);
        }
    }
    slugs
}

impl Site<'_> {
    /// A hash of the names that got a [`slug_long`] (0 when none did): their URLs depend on
    /// other names, so the build's global fingerprint includes it.
    pub fn slug_collisions(&self) -> u64 {
        let mut fp = Fp(0);
        for (i, tax) in Tax::ALL.into_iter().enumerate() {
            for (id, s) in self.slugs[i].iter().enumerate() {
                let name = &self.names(tax).names[id];
                let short = if tax == Tax::Keyword {
                    slug(&name.to_lowercase())
                } else {
                    slug(name)
                };
                if *s != short {
                    fp.str(s);
                }
            }
        }
        fp.0
    }

    /// What a page shows, for errors: `the site "Foo!"`, `the digest 2021/07/20/0800/`.
    fn describe(&self, kind: &Kind) -> String {
        match kind {
            Kind::Term { tax, id, page } => format!(
                "the {} {:?}{}",
                tax.name(),
                self.names(*tax).names[*id as usize],
                if *page > 0 {
                    format!(" (page {page})")
                } else {
                    String::new()
                }
            ),
            Kind::Atom(Some(id)) => format!(
                "the feed of the category {:?}",
                self.archive.categories.names[*id as usize]
            ),
            other => format!("{other:?}"),
        }
    }
}

/// Refuses a plan in which two pages would be written to the same output file (one would
/// silently win): names both and the path.
pub fn check_unique_paths(site: &Site, pages: &[Page]) -> anyhow::Result<()> {
    let mut seen: FxHashMap<&str, &Kind> = FxHashMap::default();
    for p in pages {
        if let Some(first) = seen.insert(p.path.as_str(), &p.kind) {
            anyhow::bail!(
                "{} and {} would both be written to {}: give one of them another name (a feed's `site` or `category` in matome.toml)",
                site.describe(first),
                site.describe(&p.kind),
                p.path
            );
        }
    }
    Ok(())
}

fn rfc3339<T: TimeZone>(t: &DateTime<T>) -> String
where
    T::Offset: std::fmt::Display,
{
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Every output file of the site, with its fingerprint.
pub fn plan(site: &Site) -> Vec<Page> {
    let a = site.archive;
    let mut pages = Vec::new();
    // Each item's own fingerprint: its file's bytes, its place in the file, and whether its
    // keywords have pages (which decides whether they are links wherever the item is shown).
    let item_fps: Vec<u64> = a
        .items
        .par_iter()
        .map(|e| {
            let mut fp = Fp(a.digests[e.digest as usize].hash);
            fp.u64(u64::from(e.index));
            for &k in &e.keywords {
                fp.u64(u64::from(site.has_page[k as usize]));
            }
            fp.0
        })
        .collect();
    // A digest's: its file's bytes (the body, the update time) and its items'.
    let digest_fps: Vec<u64> = (0..a.digests.len())
        .into_par_iter()
        .map(|d| {
            let r = &a.digests[d].items;
            let mut fp = Fp(a.digests[d].hash);
            for i in r.start..r.end {
                fp.u64(item_fps[i as usize]);
            }
            fp.0
        })
        .collect();
    let digest_fp = |fp: &mut Fp, d: usize| {
        fp.u64(digest_fps[d]);
    };

    // Home and its older pages.
    let pager = site.home_pager();
    for page in std::iter::once(0).chain(1..=pager.numbered()) {
        let mut fp = Fp::new("home");
        fp.u64(page as u64)
            .opt(pager.older(page))
            .opt(pager.newer(page));
        for d in pager.range(page) {
            digest_fp(&mut fp, d);
        }
        pages.push(Page {
            path: html_path(&Site::home_url(page)),
            kind: Kind::Home { page },
            fp: fp.0,
        });
    }
    // Digests.
    for d in 0..a.digests.len() {
        let mut fp = Fp::new("digest");
        digest_fp(&mut fp, d);
        // Neighbours: the previous/next links show their headings (hour and item count).
        for n in [
            d.checked_sub(1),
            Some(d + 1).filter(|&n| n < a.digests.len()),
        ] {
            fp.u64(u64::from(n.is_some()));
            if let Some(n) = n {
                fp.str(&site.digest_headings[n]);
            }
        }
        // Its rising words: the hours of the baseline before it.
        for w in d.saturating_sub(site.config.trends.hour_window)..d {
            digest_fp(&mut fp, w);
        }
        pages.push(Page {
            path: html_path(&site.digest_url(d)),
            kind: Kind::Digest(d),
            fp: fp.0,
        });
    }
    // Calendar.
    for (i, day) in site.days.iter().enumerate() {
        // Its digests and its neighbours' URLs: nothing else (not its index, not the number
        // of days), so a new day changes only itself and the day before.
        let mut fp = Fp::new("day");
        for &d in &day.digests {
            digest_fp(&mut fp, d);
        }
        let neighbours = [
            i.checked_sub(1),
            Some(i + 1).filter(|&n| n < site.days.len()),
        ];
        for n in neighbours.into_iter().flatten() {
            fp.str(&site.day_url(n));
        }
        // Its rising words: the days of the baseline before it.
        for w in i.saturating_sub(site.config.trends.day_window)..i {
            for &d in &site.days[w].digests {
                digest_fp(&mut fp, d);
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
                digest_fp(&mut fp, d);
            }
        }
        let neighbours = [
            i.checked_sub(1),
            Some(i + 1).filter(|&n| n < site.months.len()),
        ];
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
                    digest_fp(&mut fp, d);
                }
            }
        }
        let neighbours = [
            i.checked_sub(1),
            Some(i + 1).filter(|&n| n < site.years.len()),
        ];
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
    // Categories, sites, keywords.
    for tax in Tax::ALL {
        let names = site.names(tax);
        let mut list_fp = Fp::new(tax.dir());
        for id in 0..names.len() {
            if site.has_term_page(tax, id as u32) {
                list_fp
                    .str(&names.names[id])
                    .u64(names.items[id].len() as u64);
            }
        }
        let term_pages: Vec<Vec<Page>> = (0..names.len() as u32)
            .into_par_iter()
            .filter(|&id| site.has_term_page(tax, id))
            .map(|id| {
                let pager = site.term_pager(tax, id);
                let items = &names.items[id as usize];
                let mut out = Vec::with_capacity(pager.numbered() + 1);
                // Numbered pages first: the first page of a keyword folds them in (its chart
                // and related words depend on every item with the keyword).
                let mut all = Fp::new("all");
                for page in (1..=pager.numbered()).chain(std::iter::once(0)) {
                    let mut fp = Fp::new(tax.name());
                    fp.str(&names.names[id as usize])
                        .u64(page as u64)
                        .opt(pager.older(page))
                        .opt(pager.newer(page));
                    for &i in &items[pager.range(page)] {
                        fp.u64(item_fps[i as usize]);
                    }
                    if page == 0 && tax == Tax::Keyword {
                        fp.u64(all.0);
                    }
                    all.u64(fp.0);
                    out.push(Page {
                        path: html_path(&site.term_url(tax, id, page)),
                        kind: Kind::Term { tax, id, page },
                        fp: fp.0,
                    });
                }
                out
            })
            .collect();
        pages.extend(term_pages.into_iter().flatten());
        pages.push(Page {
            path: format!("{}/index.html", tax.dir()),
            kind: Kind::Terms(tax),
            fp: list_fp.0,
        });
    }
    // Feeds.
    let atom_fp = |tag: &str, items: &[u32]| {
        let mut fp = Fp::new(tag);
        for &i in &items[items.len().saturating_sub(FEED_ENTRIES)..] {
            fp.u64(item_fps[i as usize]);
        }
        fp.0
    };
    let all: Vec<u32> = (a.items.len().saturating_sub(FEED_ENTRIES)..a.items.len())
        .map(|i| i as u32)
        .collect();
    pages.push(Page {
        path: "atom.xml".into(),
        kind: Kind::Atom(None),
        fp: atom_fp("atom", &all),
    });
    for id in 0..a.categories.len() as u32 {
        pages.push(Page {
            path: format!("{}atom.xml", site.term_url(Tax::Category, id, 0)),
            kind: Kind::Atom(Some(id)),
            fp: atom_fp("category-atom", &a.categories.items[id as usize]),
        });
    }
    pages.push(Page {
        path: "health/index.html".into(),
        kind: Kind::Health,
        fp: Fp::new("health").u64(site.health_hash).0,
    });
    // The trends page: the latest day and hour with their baselines.
    let mut trends_fp = Fp::new("trends");
    let first_day = site
        .days
        .len()
        .saturating_sub(site.config.trends.day_window + 1);
    for day in &site.days[first_day..] {
        for &d in &day.digests {
            digest_fp(&mut trends_fp, d);
        }
    }
    let first_hour = a
        .digests
        .len()
        .saturating_sub(site.config.trends.hour_window + 1);
    for d in first_hour..a.digests.len() {
        digest_fp(&mut trends_fp, d);
    }
    pages.push(Page {
        path: "trends/index.html".into(),
        kind: Kind::Trends,
        fp: trends_fp.0,
    });
    for (path, kind) in [
        ("search/index.html", Kind::Search),
        ("404.html", Kind::NotFound),
        ("robots.txt", Kind::Robots),
        (".nojekyll", Kind::NoJekyll),
    ] {
        pages.push(Page {
            path: path.into(),
            kind,
            fp: Fp::new(path).0,
        });
    }
    // Sitemaps: every HTML page but 404, in files of at most SITEMAP_URLS.
    let urls: Vec<String> = pages
        .iter()
        .filter(|p| p.path.ends_with("index.html"))
        .map(|p| p.path.trim_end_matches("index.html").to_string())
        .collect();
    let mut index_fp = Fp::new("sitemap-index");
    let mut parts = Vec::new();
    for (n, chunk) in urls.chunks(SITEMAP_URLS).enumerate() {
        let mut fp = Fp::new("sitemap");
        for u in chunk {
            fp.str(u);
        }
        index_fp.u64(n as u64);
        parts.push(Page {
            path: format!("sitemap-{}.xml", n + 1),
            kind: Kind::Sitemap(n),
            fp: fp.0,
        });
    }
    pages.extend(parts);
    let _ = site.sitemap_urls.set(urls);
    pages.push(Page {
        path: "sitemap.xml".into(),
        kind: Kind::SitemapIndex,
        fp: index_fp.0,
    });
    pages
}

// ---------------------------------------------------------------------------------------------
// Views: what templates receive.

#[derive(Debug, Clone, Serialize)]
pub struct Link {
    pub name: String,
    pub url: String,
}

#[derive(Serialize)]
struct SiteView<'a> {
    title: &'a str,
    base_url: &'a str,
    base_path: &'a str,
    language: &'static str,
    generator: String,
}

#[derive(Serialize)]
struct PageMeta {
    title: String,
    /// Site-relative URL of this page.
    url: String,
    kind: &'static str,
}

#[derive(Serialize)]
struct Layout<'a, T: Serialize> {
    site: SiteView<'a>,
    t: &'static Strings,
    page: PageMeta,
    #[serde(flatten)]
    body: T,
}

#[derive(Serialize)]
struct ItemView {
    title: String,
    /// `None` unless an http(s) URL.
    link: Option<String>,
    site: Link,
    category: Link,
    keywords: Vec<Link>,
    published: String,
    digest: Link,
    summary: Option<String>,
}

#[derive(Serialize)]
struct DigestCard {
    url: String,
    heading: String,
    hour: String,
    count: usize,
    keywords: Vec<Link>,
}

#[derive(Serialize, Default)]
struct PagerView {
    older: Option<String>,
    newer: Option<String>,
}

#[derive(Serialize)]
struct CountLink {
    name: String,
    url: String,
    count: usize,
}

impl Site<'_> {
    fn layout<T: Serialize>(
        &self,
        title: String,
        url: String,
        kind: &'static str,
        body: T,
    ) -> Layout<'_, T> {
        Layout {
            site: SiteView {
                title: &self.config.title,
                base_url: &self.base_url,
                base_path: &self.base_path,
                language: self.strings.lang,
                generator: format!("matome {}", env!("CARGO_PKG_VERSION")),
            },
            t: self.strings,
            page: PageMeta { title, url, kind },
            body,
        }
    }

    fn entry_view(&self, e: &Entry, summary: Option<String>) -> ItemView {
        ItemView {
            title: e.title.clone(),
            link: safe_link(&e.link),
            site: self.term_link(Tax::Site, e.site),
            category: self.term_link(Tax::Category, e.category),
            keywords: e
                .keywords
                .iter()
                .map(|&k| self.term_link(Tax::Keyword, k))
                .collect(),
            published: rfc3339(&self.local(&utc(e.published))),
            digest: Link {
                name: self.digest_heading(e.digest as usize),
                url: self.digest_url(e.digest as usize),
            },
            summary,
        }
    }

    fn digest_card(&self, d: usize) -> DigestCard {
        let items = self.archive.digest_items(d);
        let mut counts: FxHashMap<u32, usize> = FxHashMap::default();
        for e in items {
            for &k in &e.keywords {
                *counts.entry(k).or_default() += 1;
            }
        }
        let mut top: Vec<(u32, usize)> = counts.into_iter().filter(|&(_, c)| c > 1).collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        DigestCard {
            url: self.digest_url(d),
            heading: self.digest_heading(d),
            hour: rfc3339(&self.local(&self.archive.digests[d].hour)),
            count: items.len(),
            keywords: top
                .into_iter()
                .take(8)
                .map(|(k, _)| self.term_link(Tax::Keyword, k))
                .collect(),
        }
    }

    fn feed_snapshot(&self, d: usize) -> Result<Arc<Snapshot>> {
        if let Some(s) = self.feed_snapshots.lock().unwrap().get(&d) {
            return Ok(s.clone());
        }
        let s = Arc::new(self.archive.snapshot(d)?);
        self.feed_snapshots.lock().unwrap().insert(d, s.clone());
        Ok(s)
    }
}

fn utc(secs: i64) -> DateTime<FixedOffset> {
    chrono::Utc
        .timestamp_opt(secs, 0)
        .single()
        .unwrap_or_default()
        .fixed_offset()
}

/// Renders one page.
pub fn render(site: &Site, theme: &Theme, page: &Page) -> Result<Vec<u8>> {
    let s = site.strings;
    let a = site.archive;
    match &page.kind {
        Kind::Home { page: p } => {
            let pager = site.home_pager();
            let digests: Vec<DigestCard> =
                pager.range(*p).rev().map(|d| site.digest_card(d)).collect();
            #[derive(Serialize)]
            struct V {
                digests: Vec<DigestCard>,
                pager: PagerView,
            }
            let v = V {
                digests,
                pager: PagerView {
                    older: pager.older(*p).map(Site::home_url),
                    newer: pager.newer(*p).map(Site::home_url),
                },
            };
            let title = if *p == 0 {
                site.config.title.clone()
            } else {
                format!("{} ({})", s.latest, p)
            };
            html(
                theme,
                "home.html",
                &site.layout(title, Site::home_url(*p), "home", v),
            )
        }
        Kind::Digest(d) => {
            let d = *d;
            let snapshot = a.snapshot(d)?;
            let entries = a.digest_items(d);
            #[derive(Serialize)]
            struct TrendRow {
                word: String,
                /// The search page for the word: the archived items that mention it.
                search: String,
                link: Option<String>,
                news: Vec<NewsView>,
                volume: Option<u64>,
                /// `200,000+`, as the old tool showed it.
                volume_text: String,
                published: String,
            }
            #[derive(Serialize)]
            struct NewsView {
                title: String,
                url: String,
                source: String,
            }
            let mut items: Vec<ItemView> = Vec::new();
            let mut trends: Vec<TrendRow> = Vec::new();
            for (e, item) in entries.iter().zip(&snapshot.items) {
                if let Some(t) = &item.trend {
                    trends.push(TrendRow {
                        word: item.title.clone(),
                        search: format!(
                            "search/?q={}",
                            url::form_urlencoded::byte_serialize(item.title.as_bytes())
                                .collect::<String>()
                        ),
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
                let mut v = site.entry_view(e, None);
                // The file itself is the truth for what only this page shows.
                v.summary = (!item.summary.is_empty()).then(|| item.summary.clone());
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
            #[derive(Serialize)]
            struct V {
                heading: String,
                hour: String,
                updated: String,
                count: usize,
                body_html: String,
                items: Vec<ItemView>,
                trends: Vec<TrendRow>,
                rising: Vec<super::rising::RisingView>,
                prev: Option<Link>,
                next: Option<Link>,
                day: Link,
            }
            let heading = site.digest_heading(d);
            let v = V {
                heading: heading.clone(),
                hour: rfc3339(&site.local(&digest.hour)),
                updated: rfc3339(&site.local(&digest.updated)),
                count: items.len() + trends.len(),
                body_html: markdown_html(&snapshot.body),
                items,
                trends,
                rising: super::rising::rising_at(
                    site,
                    &site.hour_counts,
                    d,
                    site.config.trends.hour_window,
                ),
                prev: d.checked_sub(1).map(link),
                next: (d + 1 < a.digests.len()).then(|| link(d + 1)),
                day: Link {
                    name: site.days[day].date.format(s.day_format).to_string(),
                    url: site.day_url(day),
                },
            };
            html(
                theme,
                "digest.html",
                &site.layout(heading, site.digest_url(d), "digest", v),
            )
        }
        Kind::Day(i) => {
            let i = *i;
            let day = &site.days[i];
            let month = site.day_month[i];
            let label = |n: usize| Link {
                name: site.days[n].date.format(s.day_format).to_string(),
                url: site.day_url(n),
            };
            #[derive(Serialize)]
            struct V {
                label: String,
                count: usize,
                digests: Vec<DigestCard>,
                prev: Option<Link>,
                next: Option<Link>,
                month: Link,
                rising: Vec<super::rising::RisingView>,
                cloud_ja: String,
                cloud_en: String,
            }
            let day_counts = &site.day_counts;
            let (cloud_ja, cloud_en) = super::rising::clouds(site, day_counts, i);
            let digests: Vec<DigestCard> = day
                .digests
                .iter()
                .rev()
                .map(|&d| site.digest_card(d))
                .collect();
            let v = V {
                label: day.date.format(s.day_format).to_string(),
                count: digests.iter().map(|c| c.count).sum(),
                digests,
                prev: i.checked_sub(1).map(label),
                next: (i + 1 < site.days.len()).then(|| label(i + 1)),
                month: Link {
                    name: site.months[month].first.format(s.month_format).to_string(),
                    url: site.month_url(month),
                },
                rising: super::rising::rising_at(
                    site,
                    day_counts,
                    i,
                    site.config.trends.day_window,
                ),
                cloud_ja,
                cloud_en,
            };
            html(
                theme,
                "day.html",
                &site.layout(v.label.clone(), site.day_url(i), "day", v),
            )
        }
        Kind::Month(i) => {
            let i = *i;
            let m = &site.months[i];
            let year = site.month_year[i];
            let label = |n: usize| Link {
                name: site.months[n].first.format(s.month_format).to_string(),
                url: site.month_url(n),
            };
            #[derive(Serialize)]
            struct V {
                label: String,
                count: usize,
                days: Vec<CountLink>,
                prev: Option<Link>,
                next: Option<Link>,
                year: Link,
            }
            let days: Vec<CountLink> = m
                .days
                .iter()
                .map(|&day| CountLink {
                    name: site.days[day].date.format(s.day_format).to_string(),
                    url: site.day_url(day),
                    count: day_count(site, day),
                })
                .collect();
            let v = V {
                label: m.first.format(s.month_format).to_string(),
                count: days.iter().map(|d| d.count).sum(),
                days,
                prev: i.checked_sub(1).map(label),
                next: (i + 1 < site.months.len()).then(|| label(i + 1)),
                year: Link {
                    name: year_label(site, year),
                    url: site.year_url(year),
                },
            };
            html(
                theme,
                "month.html",
                &site.layout(v.label.clone(), site.month_url(i), "month", v),
            )
        }
        Kind::Year(i) => {
            let i = *i;
            let label = |n: usize| Link {
                name: year_label(site, n),
                url: site.year_url(n),
            };
            #[derive(Serialize)]
            struct V {
                label: String,
                count: usize,
                months: Vec<CountLink>,
                prev: Option<Link>,
                next: Option<Link>,
            }
            let months = month_links(site, i);
            let v = V {
                label: year_label(site, i),
                count: months.iter().map(|m| m.count).sum(),
                months,
                prev: i.checked_sub(1).map(label),
                next: (i + 1 < site.years.len()).then(|| label(i + 1)),
            };
            html(
                theme,
                "year.html",
                &site.layout(v.label.clone(), site.year_url(i), "year", v),
            )
        }
        Kind::Archives => {
            #[derive(Serialize)]
            struct YearView {
                name: String,
                url: String,
                count: usize,
                months: Vec<CountLink>,
            }
            #[derive(Serialize)]
            struct V {
                count: usize,
                years: Vec<YearView>,
            }
            let years: Vec<YearView> = (0..site.years.len())
                .rev()
                .map(|y| {
                    let months = month_links(site, y);
                    YearView {
                        name: year_label(site, y),
                        url: site.year_url(y),
                        count: months.iter().map(|m| m.count).sum(),
                        months,
                    }
                })
                .collect();
            let v = V {
                count: a.items.len(),
                years,
            };
            html(
                theme,
                "archives.html",
                &site.layout(s.archives.into(), "archives/".into(), "archives", v),
            )
        }
        Kind::Terms(tax) => {
            let names = site.names(*tax);
            let mut terms: Vec<CountLink> = (0..names.len() as u32)
                .filter(|&id| site.has_term_page(*tax, id))
                .map(|id| CountLink {
                    name: names.names[id as usize].clone(),
                    url: site.term_url(*tax, id, 0),
                    count: names.items[id as usize].len(),
                })
                .collect();
            terms.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
            let total = terms.len();
            if *tax == Tax::Keyword {
                terms.truncate(KEYWORD_LIST);
            }
            #[derive(Serialize)]
            struct V {
                taxonomy: &'static str,
                total: usize,
                terms: Vec<CountLink>,
            }
            let title = match tax {
                Tax::Category => s.categories,
                Tax::Site => s.sites,
                Tax::Keyword => s.keywords,
            };
            let v = V {
                taxonomy: tax.name(),
                total,
                terms,
            };
            html(
                theme,
                "terms.html",
                &site.layout(title.into(), format!("{}/", tax.dir()), "terms", v),
            )
        }
        Kind::Term { tax, id, page: p } => {
            let (tax, id, p) = (*tax, *id, *p);
            let names = site.names(tax);
            let all = &names.items[id as usize];
            let pager = site.term_pager(tax, id);
            let items: Vec<ItemView> = all[pager.range(p)]
                .iter()
                .rev()
                .map(|&i| site.entry_view(&a.items[i as usize], None))
                .collect();
            let (chart, related) = if tax == Tax::Keyword && p == 0 {
                (
                    Some(super::chart::monthly_svg(site, all, s.frequency)),
                    related_keywords(site, id),
                )
            } else {
                (None, Vec::new())
            };
            #[derive(Serialize)]
            struct V {
                taxonomy: &'static str,
                taxonomy_label: &'static str,
                taxonomy_url: String,
                name: String,
                count: usize,
                items: Vec<ItemView>,
                pager: PagerView,
                chart_svg: Option<String>,
                related: Vec<Link>,
                atom: Option<String>,
            }
            let name = names.names[id as usize].clone();
            let v = V {
                taxonomy: tax.name(),
                taxonomy_label: match tax {
                    Tax::Category => s.category,
                    Tax::Site => s.site,
                    Tax::Keyword => s.keyword,
                },
                taxonomy_url: format!("{}/", tax.dir()),
                name: name.clone(),
                count: all.len(),
                items,
                pager: PagerView {
                    older: pager.older(p).map(|q| site.term_url(tax, id, q)),
                    newer: pager.newer(p).map(|q| site.term_url(tax, id, q)),
                },
                chart_svg: chart,
                related,
                atom: (tax == Tax::Category)
                    .then(|| format!("{}atom.xml", site.term_url(tax, id, 0))),
            };
            let title = if p == 0 {
                name
            } else {
                format!("{name} ({p})")
            };
            html(
                theme,
                "term.html",
                &site.layout(title, site.term_url(tax, id, p), "term", v),
            )
        }
        Kind::Health => health_page(site, theme),
        Kind::Atom(cat) => {
            let (items, title, url, feed_url): (&[u32], String, String, String) = match cat {
                None => (
                    &[],
                    site.config.title.clone(),
                    String::new(),
                    "atom.xml".into(),
                ),
                Some(c) => (
                    &a.categories.items[*c as usize],
                    format!(
                        "{} — {}",
                        site.config.title, a.categories.names[*c as usize]
                    ),
                    site.term_url(Tax::Category, *c, 0),
                    format!("{}atom.xml", site.term_url(Tax::Category, *c, 0)),
                ),
            };
            let ids: Vec<u32> = if cat.is_none() {
                (a.items.len().saturating_sub(FEED_ENTRIES)..a.items.len())
                    .map(|i| i as u32)
                    .collect()
            } else {
                items[items.len().saturating_sub(FEED_ENTRIES)..].to_vec()
            };
            #[derive(Serialize)]
            struct Entry2 {
                id: String,
                #[serde(flatten)]
                item: ItemView,
            }
            #[derive(Serialize)]
            struct V {
                title: String,
                url: String,
                feed_url: String,
                updated: String,
                entries: Vec<Entry2>,
            }
            let mut entries = Vec::with_capacity(ids.len());
            for &i in ids.iter().rev() {
                let e = &a.items[i as usize];
                let snap = site.feed_snapshot(e.digest as usize)?;
                let summary = snap
                    .items
                    .get(e.index as usize)
                    .map(|it| it.summary.clone())
                    .filter(|s| !s.is_empty());
                entries.push(Entry2 {
                    id: format!(
                        "{}{}#item-{}",
                        site.base_url,
                        site.digest_url(e.digest as usize),
                        e.index + 1
                    ),
                    item: site.entry_view(e, summary),
                });
            }
            let updated = ids
                .last()
                .map(|&i| rfc3339(&a.digests[a.items[i as usize].digest as usize].updated))
                .unwrap_or_else(|| "1970-01-01T00:00:00Z".into());
            let v = V {
                title,
                url,
                feed_url,
                updated,
                entries,
            };
            Ok(theme.render("atom.xml", &v)?.into_bytes())
        }
        Kind::Sitemap(n) => {
            let urls: Vec<String> = plan_urls(site)
                .chunks(SITEMAP_URLS)
                .nth(*n)
                .map(|c| c.to_vec())
                .unwrap_or_default();
            Ok(theme
                .render("sitemap.xml", &serde_json::json!({ "urls": urls }))?
                .into_bytes())
        }
        Kind::SitemapIndex => {
            let n = plan_urls(site).len().div_ceil(SITEMAP_URLS).max(1);
            let parts: Vec<String> = (1..=n).map(|i| format!("sitemap-{i}.xml")).collect();
            Ok(theme
                .render("sitemap_index.xml", &serde_json::json!({ "parts": parts }))?
                .into_bytes())
        }
        Kind::Robots => Ok(theme
            .render(
                "robots.txt",
                &site.layout(String::new(), String::new(), "robots", ()),
            )?
            .into_bytes()),
        Kind::Trends => {
            #[derive(Serialize)]
            struct TrendWord {
                word: String,
                url: String,
                volume: Option<u64>,
            }
            #[derive(Serialize)]
            struct V {
                day: Option<Link>,
                hour: Option<Link>,
                rising_day: Vec<super::rising::RisingView>,
                rising_hour: Vec<super::rising::RisingView>,
                trend_words: Vec<TrendWord>,
            }
            let last_day = site.days.len().checked_sub(1);
            let last_hour = a.digests.len().checked_sub(1);
            let mut trend_words: Vec<TrendWord> = Vec::new();
            if let Some(day) = last_day {
                for &d in &site.days[day].digests {
                    for item in a.snapshot(d)?.items {
                        let Some(t) = &item.trend else { continue };
                        if trend_words.iter().any(|w| w.word == item.title) {
                            continue;
                        }
                        // A word the archive has as a keyword links to its page; any other
                        // to the search for it.
                        let url = a
                            .keywords
                            .get(&item.title)
                            .map(|k| site.term_link(Tax::Keyword, k).url)
                            .filter(|u| !u.is_empty())
                            .unwrap_or_else(|| {
                                format!(
                                    "search/?q={}",
                                    url::form_urlencoded::byte_serialize(item.title.as_bytes())
                                        .collect::<String>()
                                )
                            });
                        trend_words.push(TrendWord {
                            word: item.title.clone(),
                            url,
                            volume: t.volume,
                        });
                    }
                }
            }
            trend_words.sort_by(|x, y| y.volume.cmp(&x.volume).then_with(|| x.word.cmp(&y.word)));
            let v = V {
                day: last_day.map(|i| Link {
                    name: site.days[i].date.format(s.day_format).to_string(),
                    url: site.day_url(i),
                }),
                hour: last_hour.map(|d| Link {
                    name: site.digest_heading(d),
                    url: site.digest_url(d),
                }),
                rising_day: last_day
                    .map(|i| {
                        super::rising::rising_at(
                            site,
                            &site.day_counts,
                            i,
                            site.config.trends.day_window,
                        )
                    })
                    .unwrap_or_default(),
                rising_hour: last_hour
                    .map(|d| {
                        super::rising::rising_at(
                            site,
                            &site.hour_counts,
                            d,
                            site.config.trends.hour_window,
                        )
                    })
                    .unwrap_or_default(),
                trend_words,
            };
            html(
                theme,
                "trends.html",
                &site.layout(s.rising.into(), "trends/".into(), "trends", v),
            )
        }
        Kind::Search => html(
            theme,
            "search.html",
            &site.layout(s.search.into(), "search/".into(), "search", ()),
        ),
        Kind::NotFound => html(
            theme,
            "404.html",
            &site.layout(s.not_found.into(), "404.html".into(), "404", ()),
        ),
        Kind::NoJekyll => Ok(Vec::new()),
    }
}

/// The sitemap's URLs (every HTML page but 404), in plan order; set by [`plan`].
fn plan_urls<'s>(site: &'s Site) -> &'s [String] {
    site.sitemap_urls.get().map_or(&[], |v| v.as_slice())
}

/// 200000 → "200,000".
fn thousands(v: u64) -> String {
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

/// The keywords seen most often in the same items as keyword `id`.
fn related_keywords(site: &Site, id: u32) -> Vec<Link> {
    let a = site.archive;
    let mut counts: FxHashMap<u32, usize> = FxHashMap::default();
    for &i in &a.keywords.items[id as usize] {
        for &k in &a.items[i as usize].keywords {
            if k != id && site.has_page[k as usize] {
                *counts.entry(k).or_default() += 1;
            }
        }
    }
    let mut top: Vec<(u32, usize)> = counts.into_iter().collect();
    top.sort_by(|x, y| {
        y.1.cmp(&x.1)
            .then_with(|| a.keywords.names[x.0 as usize].cmp(&a.keywords.names[y.0 as usize]))
    });
    top.into_iter()
        .take(12)
        .map(|(k, _)| site.term_link(Tax::Keyword, k))
        .collect()
}

fn health_page(site: &Site, theme: &Theme) -> Result<Vec<u8>> {
    #[derive(Serialize)]
    struct FeedHealth {
        site: String,
        category: String,
        url: String,
        link: Option<String>,
        status: &'static str,
        last_success: Option<String>,
        last_attempt: Option<String>,
        consecutive_failures: u32,
        last_error: Option<String>,
        next_attempt: Option<String>,
        items_archived: u64,
    }
    #[derive(Serialize)]
    struct V {
        feeds: Vec<FeedHealth>,
        failing: usize,
        total: usize,
        /// Why fetch-state.json could not be read, if it could not.
        state_error: Option<String>,
    }
    let empty = FetchState::default();
    let state = site.health.as_ref().unwrap_or(&empty);
    let mut feeds: Vec<FeedHealth> = site
        .config
        .feeds
        .iter()
        .map(|f| {
            let st = state.feeds.get(&f.url);
            let name = f
                .site
                .clone()
                .or_else(|| st.and_then(|s| s.title.as_deref().map(crate::text::one_line)))
                .unwrap_or_else(|| f.url.clone());
            let status = match st {
                None => "never",
                Some(s) if s.consecutive_failures > 0 => "failing",
                Some(s) if s.last_success.is_some() => "ok",
                Some(_) => "never",
            };
            let t = |v: Option<&DateTime<FixedOffset>>| v.map(|t| rfc3339(&site.local(t)));
            FeedHealth {
                site: name,
                category: f.category.clone(),
                url: f.url.clone(),
                link: safe_link(&f.url),
                status,
                last_success: t(st.and_then(|s| s.last_success.as_ref())),
                last_attempt: t(st.and_then(|s| s.last_attempt.as_ref())),
                consecutive_failures: st.map_or(0, |s| s.consecutive_failures),
                // A state file from an older matome may hold control bytes a feed sent.
                last_error: st.and_then(|s| s.last_error.as_deref().map(crate::text::one_line)),
                next_attempt: t(st.and_then(|s| s.next_attempt.as_ref())),
                items_archived: st.map_or(0, |s| s.items_archived),
            }
        })
        .collect();
    // Failing feeds first, the worst at the top.
    feeds.sort_by(|a, b| {
        b.consecutive_failures
            .cmp(&a.consecutive_failures)
            .then_with(|| a.category.cmp(&b.category))
            .then_with(|| a.site.cmp(&b.site))
    });
    let v = V {
        failing: feeds.iter().filter(|f| f.status == "failing").count(),
        total: feeds.len(),
        feeds,
        state_error: state.load_error.clone(),
    };
    Ok(theme
        .render(
            "health.html",
            &site.layout(site.strings.health.into(), "health/".into(), "health", v),
        )?
        .into_bytes())
}

/// Writes a month label list for tests and the chart: months from `first` to `last` inclusive.
pub(super) fn months_between(first: NaiveDate, last: NaiveDate) -> Vec<NaiveDate> {
    let mut out = Vec::new();
    let mut m = first.with_day(1).unwrap();
    let last = last.with_day(1).unwrap();
    while m <= last {
        out.push(m);
        m = m
            .checked_add_months(chrono::Months::new(1))
            .unwrap_or(last.succ_opt().unwrap_or(last));
    }
    out
}

impl Site<'_> {
    pub(super) fn digest_month(&self, d: usize) -> NaiveDate {
        self.months[self.day_month[self.digest_day[d]]].first
    }
}

/// A page's bytes: template `name` with view `v`.
fn html<T: Serialize>(theme: &Theme, name: &str, v: &T) -> Result<Vec<u8>> {
    Ok(theme.render(name, v)?.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Issue 11, finding 4: two names whose 24-bit slug hashes meet (easy to find on purpose)
    /// must not share a page; nor keywords that differ only in case.
    #[test]
    fn colliding_slugs_are_disambiguated() {
        // Names with the same clean part (`x`) until two hashed slugs meet: a few thousand.
        let mut by_slug: FxHashMap<String, String> = FxHashMap::default();
        let marks = ['!', '?', '#', '%', '&', '*', '+', '='];
        let pair = (0u32..)
            .map(|i| {
                let mut n = String::from("x");
                for k in 0..6 {
                    n.push(marks[(i >> (3 * k)) as usize & 7]);
                }
                n
            })
            .find_map(|n| {
                let s = slug(&n);
                match by_slug.get(&s) {
                    Some(other) => Some((other.clone(), n)),
                    None => {
                        by_slug.insert(s, n);
                        None
                    }
                }
            })
            .unwrap();
        assert_eq!(slug(&pair.0), slug(&pair.1));
        let names = vec![pair.0.clone(), "x".to_string(), pair.1.clone()];
        let slugs = unique_slugs(&names, false);
        assert_eq!(slugs[1], "x", "a name that meets nobody keeps its slug");
        assert_ne!(slugs[0], slugs[2], "{names:?}");
        assert!(slugs[0].starts_with("x-") && slugs[2].starts_with("x-"));
        let slugs = unique_slugs(&["Rust".to_string(), "rust".to_string()], true);
        assert_ne!(slugs[0], slugs[1]);
    }

    /// Issue 11, finding 4: two pages with one output path must be refused, naming both.
    #[test]
    fn two_pages_with_one_path_are_refused() {
        let config = Config::parse(
            "title = \"t\"\nbase_url = \"https://user.github.io/repo/\"\n",
            "matome.toml",
        )
        .unwrap();
        let mut archive = Archive::default();
        archive.categories.names = vec!["c++".into(), "c-ae8bb0".into()];
        archive.categories.items = vec![Vec::new(), Vec::new()];
        let site = Site::new(&config, &archive, config.base_url.clone(), None);
        let plan = plan(&site);
        check_unique_paths(&site, &plan).unwrap();
        let page = |id| Page {
            path: "categories/c-ae8bb0/index.html".into(),
            kind: Kind::Term {
                tax: Tax::Category,
                id,
                page: 0,
            },
            fp: 0,
        };
        let err = check_unique_paths(&site, &[page(0), page(1)])
            .unwrap_err()
            .to_string();
        for part in ["\"c++\"", "\"c-ae8bb0\"", "categories/c-ae8bb0/index.html"] {
            assert!(err.contains(part), "{part}: {err}");
        }
    }

    #[test]
    fn pagination_is_stable_as_items_arrive() {
        let per = 3;
        // For every size, pages partition the entries, and numbered pages never change.
        let mut seen: BTreeMap<usize, Range<usize>> = BTreeMap::new();
        for n in 0..40 {
            let p = Pager { n, per };
            let mut covered = vec![0; n];
            for page in std::iter::once(0).chain(1..=p.numbered()) {
                for i in p.range(page) {
                    covered[i] += 1;
                }
                if page > 0 {
                    let r = p.range(page);
                    assert_eq!(r.len(), per);
                    if let Some(old) = seen.insert(page, r.clone()) {
                        assert_eq!(old, r, "page {page} changed at n={n}");
                    }
                }
            }
            assert!(covered.iter().all(|&c| c == 1), "n={n}: {covered:?}");
            if n >= per {
                let first = p.range(0).len();
                assert!(
                    (per..2 * per).contains(&first),
                    "n={n}: first page has {first}"
                );
            }
            // Links walk every page from newest to oldest and back.
            let mut page = 0;
            let mut visited = 1;
            while let Some(o) = p.older(page) {
                assert_eq!(p.newer(o), Some(page));
                page = o;
                visited += 1;
            }
            assert_eq!(visited, p.numbered() + 1);
        }
    }

    #[test]
    fn fingerprints_are_order_sensitive() {
        let mut a = Fp::new("x");
        a.u64(1).u64(2);
        let mut b = Fp::new("x");
        b.u64(2).u64(1);
        assert_ne!(a.0, b.0);
        assert_ne!(Fp::new("x").0, Fp::new("y").0);
    }

    #[test]
    fn months_between_counts_inclusively() {
        let d = |y, m| NaiveDate::from_ymd_opt(y, m, 15).unwrap();
        assert_eq!(months_between(d(2021, 11), d(2022, 2)).len(), 4);
        assert_eq!(months_between(d(2021, 11), d(2021, 11)).len(), 1);
    }
}
