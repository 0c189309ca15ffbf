//! The site model pages are made from: the archive seen through the calendar of the site's time
//! zone (days, months, years), every page's URL, the names' slugs and term links.
//!
//! Immutable once made and free of caches and IO: [`Site::new`] computes everything from the
//! config and the loaded archive, and pages only read it. Which pages exist and what each
//! depends on is [`super::plan`]; what each shows is [`super::views`].

use std::sync::Arc;

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate};
use chrono_tz::Tz;
use rustc_hash::FxHashMap;
use serde::Serialize;

use super::safety::{slug, slug_long};
use super::story::StorySources;
use super::strings::Strings;
use crate::config::{BuildSettings, Config};
use crate::content::archive::{Archive, Names};

/// The three ways items are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tax {
    Category,
    Site,
    Keyword,
}

impl Tax {
    pub const ALL: [Tax; 3] = [Tax::Category, Tax::Site, Tax::Keyword];

    /// The folder its pages live in (`categories`, `sites`, `keywords`).
    pub fn dir(self) -> &'static str {
        match self {
            Tax::Category => "categories",
            Tax::Site => "sites",
            Tax::Keyword => "keywords",
        }
    }

    /// Its name as templates see it (`category`, `site`, `keyword`).
    pub fn name(self) -> &'static str {
        match self {
            Tax::Category => "category",
            Tax::Site => "site",
            Tax::Keyword => "keyword",
        }
    }
}

/// A name and the site-relative URL of its page (empty when it has none: shown unlinked).
#[derive(Debug, Clone, Serialize)]
pub struct Link {
    pub name: String,
    pub url: String,
}

/// One day of the calendar (the site's zone) that has digests.
pub(crate) struct Day {
    pub(crate) date: NaiveDate,
    /// Its digests, oldest first.
    pub(crate) digests: Vec<usize>,
}

/// One month that has days.
pub(crate) struct Month {
    /// Its first day.
    pub(crate) first: NaiveDate,
    pub(crate) days: Vec<usize>,
}

/// One year that has months.
pub(crate) struct Year {
    pub(crate) year: i32,
    pub(crate) months: Vec<usize>,
}

/// Everything pages are made from. The time zone is the config's ([`Site::tz`]); the base URL
/// is the build's one [`BaseUrl`], shared with the theme's filters.
pub struct Site<'a> {
    pub config: &'a Config,
    pub archive: &'a Archive,
    pub base: Arc<BaseUrl>,
    pub strings: &'static Strings,
    pub(crate) days: Vec<Day>,
    pub(crate) months: Vec<Month>,
    pub(crate) years: Vec<Year>,
    pub(crate) digest_day: Vec<usize>,
    pub(crate) day_month: Vec<usize>,
    pub(crate) month_year: Vec<usize>,
    pub(crate) slugs: [Vec<String>; 3],
    /// Precomputed per digest and per term: every list row links to them.
    digest_urls: Vec<String>,
    digest_headings: Vec<String>,
    term_urls: [Vec<String>; 3],
    /// Keywords with a page (`[build] keyword_min_items`); the others are shown unlinked.
    pub(crate) has_page: Vec<bool>,
    /// The stories more than one site covered: their sources and fingerprints.
    pub(crate) stories: StorySources,
}

/// The base URL a build makes its pages for (`base_url` in matome.toml, or `--base-url`) and its
/// path: made once per build and shared by the site model and the theme's `url` filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrl {
    url: String,
    path: String,
}

impl BaseUrl {
    /// The base URL `url` (normalised: absolute, ending in `/`), to share.
    pub fn new(url: impl Into<String>) -> Arc<BaseUrl> {
        let url = url.into();
        let path = base_path(&url);
        Arc::new(BaseUrl { url, path })
    }

    /// The absolute base URL, ending in `/`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Its path, starting and ending in `/` (`/` or `/REPO/`).
    pub fn path(&self) -> &str {
        &self.path
    }
}

/// The path of a base URL, starting and ending in `/` (`/` or `/REPO/`): where the site lives
/// on its host. `/` for anything that does not parse.
pub fn base_path(base_url: &str) -> String {
    url::Url::parse(base_url)
        .map(|u| u.path().to_string())
        .unwrap_or_else(|_| "/".into())
}

/// Whether a keyword carried by `items` gets a page: at least `keyword_min_items` items, from
/// at least `keyword_min_sites` distinct sites (so no one feed can make keyword pages alone:
/// issue 21). Stops at the first sites enough.
pub(crate) fn earns_page(archive: &Archive, items: &[u32], build: &BuildSettings) -> bool {
    if items.len() < build.keyword_min_items {
        return false;
    }
    if build.keyword_min_sites <= 1 {
        return true;
    }
    let mut sites = rustc_hash::FxHashSet::default();
    items.iter().any(|&i| {
        sites.insert(archive.items[i as usize].site) && sites.len() >= build.keyword_min_sites
    })
}

impl<'a> Site<'a> {
    pub fn new(config: &'a Config, archive: &'a Archive, base: Arc<BaseUrl>) -> Site<'a> {
        let tz = config.timezone;
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
        let mut site = Site {
            config,
            archive,
            base,
            strings: Strings::of(config.language),
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
                .map(|items| earns_page(archive, items, &config.build))
                .collect(),
            stories: StorySources::default(),
        };
        site.stories = StorySources::new(&site);
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

    /// The names of a taxonomy and their items.
    pub(crate) fn names(&self, tax: Tax) -> &Names {
        match tax {
            Tax::Category => &self.archive.categories,
            Tax::Site => &self.archive.sites,
            Tax::Keyword => &self.archive.keywords,
        }
    }

    /// The site's time zone (matome.toml's `timezone`).
    pub fn tz(&self) -> Tz {
        self.config.timezone
    }

    /// The absolute base URL the pages are made for, ending in `/`.
    pub fn base_url(&self) -> &str {
        self.base.url()
    }

    /// Its path, starting and ending in `/`.
    pub fn base_path(&self) -> &str {
        self.base.path()
    }

    /// A time in the site's zone.
    pub(crate) fn local(&self, t: &DateTime<FixedOffset>) -> DateTime<Tz> {
        t.with_timezone(&self.tz())
    }

    // --- URLs (site-relative; templates put them under base_url with the `url` filter) ---

    pub fn digest_url(&self, d: usize) -> String {
        self.digest_urls[d].clone()
    }

    fn make_digest_url(&self, d: usize) -> String {
        crate::content::digest_path(&self.archive.digests[d].hour, self.tz())
    }

    pub(crate) fn day_url(&self, i: usize) -> String {
        let d = self.days[i].date;
        format!("{:04}/{:02}/{:02}/", d.year(), d.month(), d.day())
    }

    pub(crate) fn month_url(&self, i: usize) -> String {
        let d = self.months[i].first;
        format!("{:04}/{:02}/", d.year(), d.month())
    }

    pub(crate) fn year_url(&self, i: usize) -> String {
        format!("{:04}/", self.years[i].year)
    }

    /// Page `page` (0 = the first) of a term's list.
    pub(crate) fn term_url(&self, tax: Tax, id: u32, page: usize) -> String {
        let i = Tax::ALL.iter().position(|t| *t == tax).unwrap();
        let base = &self.term_urls[i][id as usize];
        if page == 0 {
            base.clone()
        } else {
            format!("{base}page/{page}/")
        }
    }

    /// Page `page` (0 = the home page itself) of the latest digests.
    pub(crate) fn home_url(page: usize) -> String {
        if page == 0 {
            String::new()
        } else {
            format!("page/{page}/")
        }
    }

    /// A link to a term's page; a keyword without a page gets an empty URL (shown unlinked).
    pub(crate) fn term_link(&self, tax: Tax, id: u32) -> Link {
        Link {
            name: self.names(tax).names[id as usize].clone(),
            url: if self.has_term_page(tax, id) {
                self.term_url(tax, id, 0)
            } else {
                String::new()
            },
        }
    }

    pub(crate) fn has_term_page(&self, tax: Tax, id: u32) -> bool {
        tax != Tax::Keyword || self.has_page[id as usize]
    }

    /// A digest's heading: its hour and item count (what previous/next links show).
    pub(crate) fn digest_heading(&self, d: usize) -> String {
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

    /// The first day of the month digest `d` is in.
    pub(crate) fn digest_month(&self, d: usize) -> NaiveDate {
        self.months[self.day_month[self.digest_day[d]]].first
    }
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

/// The first days of the months from `first`'s to `last`'s, inclusive.
pub(crate) fn months_between(first: NaiveDate, last: NaiveDate) -> Vec<NaiveDate> {
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn months_between_counts_inclusively() {
        let d = |y, m| NaiveDate::from_ymd_opt(y, m, 15).unwrap();
        assert_eq!(months_between(d(2021, 11), d(2022, 2)).len(), 4);
        assert_eq!(months_between(d(2021, 11), d(2021, 11)).len(), 1);
    }

    #[test]
    fn base_path_is_the_base_urls_path() {
        assert_eq!(base_path("https://user.github.io/repo/"), "/repo/");
        assert_eq!(base_path("https://example.com/"), "/");
        assert_eq!(base_path("not a url"), "/");
    }
}
