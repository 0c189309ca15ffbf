//! What the pages show of trends: an hour's and a day's rising words (急上昇ワード, scored by
//! [`crate::trends::burst`]), the day's word clouds ([`crate::trends::cloud`]), and the trends
//! page. Counting is per digest (an hour) and per day in the site's zone; the baseline of a
//! period is the periods before it, so a page's rising words never change once later hours
//! arrive (their fingerprints cover exactly that window: see [`super::views`]).

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::site::{Link, Site, Tax};
use crate::trends::burst::{BurstSettings, rising, sparkline_svg};
use crate::trends::cloud::{CloudOptions, CloudWord, word_cloud_svg};

/// One period's keyword counts: (keyword, count) sorted by keyword, and the total.
pub(crate) type Period = Arc<(Vec<(u32, u32)>, u32)>;

/// Keyword counts per period (hours or days), computed when a page first asks for a period and
/// kept: an hourly build renders a handful of pages and needs only their baselines.
///
/// The work per page is bounded by its window, never by the archive: a period is found by its
/// index (a day's digests were once found by walking every day before it, so a cold build did
/// days² steps), and [`rising_at`] takes each period of its window from the cache once (not
/// once per word and period, each under the lock).
#[derive(Default)]
pub(crate) struct Counts {
    days: bool,
    cache: Mutex<FxHashMap<usize, Period>>,
    /// Periods asked for and periods counted: what the tests pin.
    #[cfg(test)]
    asked: std::sync::atomic::AtomicUsize,
    #[cfg(test)]
    counted: std::sync::atomic::AtomicUsize,
}

impl Counts {
    pub(crate) fn hours() -> Counts {
        Counts::default()
    }

    pub(crate) fn days() -> Counts {
        Counts {
            days: true,
            ..Counts::default()
        }
    }

    fn period(&self, site: &Site, p: usize) -> Period {
        #[cfg(test)]
        self.asked
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if let Some(hit) = self.cache.lock().unwrap().get(&p) {
            return hit.clone();
        }
        #[cfg(test)]
        self.counted
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let a = site.archive;
        // Day p's digests by index (an hour is the digest itself).
        let digests: &[usize] = if self.days {
            site.days.get(p).map_or(&[], |day| day.digests.as_slice())
        } else {
            std::slice::from_ref(&p)
        };
        let mut m: FxHashMap<u32, u32> = FxHashMap::default();
        let mut total = 0;
        for &d in digests {
            for e in a.digest_items(d) {
                for &k in &e.keywords {
                    *m.entry(k).or_default() += 1;
                    total += 1;
                }
            }
        }
        let mut v: Vec<(u32, u32)> = m.into_iter().collect();
        v.sort_unstable();
        let period = Arc::new((v, total));
        self.cache.lock().unwrap().insert(p, period.clone());
        period
    }
}

/// Keyword `k`'s count in a period.
fn count_in(period: &Period, k: u32) -> u32 {
    period
        .0
        .binary_search_by_key(&k, |&(kk, _)| kk)
        .map_or(0, |i| period.0[i].1)
}

/// One rising word as pages show it.
#[derive(Debug, Serialize)]
pub struct RisingView {
    pub word: Link,
    /// The burst score, one decimal.
    pub score: f64,
    pub count: u32,
    /// The word's counts over the window, as a small inline SVG.
    pub sparkline: String,
}

/// The rising words of period `p` (baseline: the `window` periods before it).
pub(crate) fn rising_at(site: &Site, c: &Counts, p: usize, window: usize) -> Vec<RisingView> {
    let t = &site.config.trends;
    let s = BurstSettings {
        window,
        min_count: t.min_count,
        min_score: t.min_score,
        top: t.top,
    };
    let from = p.saturating_sub(window);
    // The window's periods, each taken once; the current one last.
    let periods: Vec<Period> = (from..=p).map(|q| c.period(site, q)).collect();
    let current = &periods[periods.len() - 1];
    let series: Vec<(u32, Vec<u32>)> = current
        .0
        .iter()
        .filter(|&&(_, n)| n >= t.min_count)
        .map(|&(k, _)| (k, periods.iter().map(|q| count_in(q, k)).collect()))
        .collect();
    let totals: Vec<u32> = periods.iter().map(|q| q.1).collect();
    rising(series.iter().map(|(k, v)| (*k, v.as_slice())), &totals, &s)
        .into_iter()
        .map(|(k, score)| {
            let values = &series.iter().find(|(kk, _)| *kk == k).expect("scored").1;
            let word = site.term_link(Tax::Keyword, k);
            RisingView {
                sparkline: sparkline_svg(values, &word.name),
                word,
                score: (score * 10.0).round() / 10.0,
                count: *values.last().unwrap_or(&0),
            }
        })
        .collect()
}

fn is_japanese(word: &str) -> bool {
    word.chars().any(crate::text::is_cjk)
}

/// The day page's cloud canvas: 360 units wide, so on a 320 px phone (the cloud about 280 px
/// wide) the smallest words, 16 units, are drawn at 12 px or more; taller than wide, to hold
/// about as many words as the old 640 × 360 canvas at 18–56.
pub const PHONE_CLOUD: CloudOptions = CloudOptions {
    width: 360.0,
    height: 420.0,
    min_font: 16.0,
    max_font: 44.0,
    max_words: 50,
    label: String::new(),
    link_label: String::new(),
};

/// A day's two word clouds (Japanese words, other words) as inline SVG; empty when the day has
/// no such words.
pub(crate) fn clouds(site: &Site, c: &Counts, day: usize) -> (String, String) {
    let names = &site.archive.keywords.names;
    let mut words: Vec<(u32, u32)> = c.period(site, day).0.clone();
    words.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then(names[a.0 as usize].cmp(&names[b.0 as usize]))
    });
    let hrefs: Vec<(u32, u32, Option<String>)> = words
        .into_iter()
        .map(|(k, n)| {
            let link = site.term_link(Tax::Keyword, k);
            let href = (!link.url.is_empty()).then(|| format!("{}{}", site.base_path(), link.url));
            (k, n, href)
        })
        .collect();
    let max = site.config.trends.cloud_words;
    let make = |ja: bool, label: &str| -> String {
        let list: Vec<CloudWord> = hrefs
            .iter()
            .filter(|(k, _, _)| is_japanese(&names[*k as usize]) == ja)
            .take(max)
            .map(|(k, n, href)| CloudWord {
                text: &names[*k as usize],
                weight: f64::from(*n),
                href: href.as_deref(),
            })
            .collect();
        if list.is_empty() {
            return String::new();
        }
        word_cloud_svg(
            &list,
            &CloudOptions {
                max_words: max,
                label: label.to_string(),
                link_label: site.strings.keyword.to_string(),
                ..PHONE_CLOUD
            },
        )
    };
    (
        make(true, site.strings.cloud_ja),
        make(false, site.strings.cloud_en),
    )
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::atomic::Ordering::Relaxed;

    use chrono::{Duration, FixedOffset, TimeZone};

    use super::*;
    use crate::config::Config;
    use crate::content::archive::{Archive, Digest, ListedItem};

    /// `days` days of two digests each (08:00 and 09:00 in Tokyo): "steady" once in every
    /// digest, "burst" five more times in each digest of the last day only.
    fn archive(days: usize) -> Archive {
        let mut a = Archive::default();
        a.keywords.names = vec!["steady".into(), "burst".into()];
        a.keywords.items = vec![Vec::new(), Vec::new()];
        let start = FixedOffset::east_opt(9 * 3600)
            .unwrap()
            .with_ymd_and_hms(2021, 7, 1, 8, 0, 0)
            .unwrap();
        for day in 0..days {
            for h in 0..2 {
                let d = a.digests.len() as u32;
                let first = a.items.len() as u32;
                let burst = if day + 1 == days { 5 } else { 0 };
                for i in 0..=burst {
                    let k = u32::from(i > 0);
                    a.keywords.items[k as usize].push(a.items.len() as u32);
                    a.items.push(ListedItem {
                        digest: d,
                        index: i,
                        title: String::new(),
                        link: String::new(),
                        site: 0,
                        category: 0,
                        published: 0,
                        keywords: vec![k],
                        story: 0,
                    });
                }
                let hour = start + Duration::days(day as i64) + Duration::hours(h);
                a.digests.push(Digest {
                    path: PathBuf::new(),
                    hour,
                    updated: hour,
                    hash: 0,
                    items: first..a.items.len() as u32,
                    has_body: false,
                });
            }
        }
        a
    }

    fn config() -> Config {
        Config::parse(
            "title = \"t\"\nbase_url = \"https://user.github.io/repo/\"\ntimezone = \"Asia/Tokyo\"\n",
            "matome.toml",
        )
        .unwrap()
    }

    /// Issue 13 (a cold build growing faster than the archive): a day's rising words took
    /// every period of the window once per word (each under the lock), and a day's digests
    /// were found by walking every day before it (days² steps over a cold build). Now a page
    /// takes each period of its window once, whatever its words, and a pass over every day
    /// counts each day once.
    #[test]
    fn rising_words_take_each_period_of_their_window_once() {
        let (config, days, window) = (config(), 30, 7);
        let archive = archive(days);
        let site = Site::new(
            &config,
            &archive,
            crate::render::site::BaseUrl::new(config.base_url.clone()),
        );
        assert_eq!(site.days.len(), days);
        let c = Counts::days();
        let rising = rising_at(&site, &c, days - 1, window);
        let words: Vec<&str> = rising.iter().map(|r| r.word.name.as_str()).collect();
        assert_eq!(words, ["burst"]);
        assert_eq!(rising[0].count, 10);
        assert_eq!(c.asked.load(Relaxed), window + 1, "one look-up per period");
        // Every day, as a cold build renders them: each counted once, look-ups bounded by the
        // window per day.
        for p in 0..days {
            rising_at(&site, &c, p, window);
        }
        assert_eq!(c.counted.load(Relaxed), days);
        assert!(c.asked.load(Relaxed) <= (days + 1) * (window + 1));
    }

    /// A day's counts are its own digests' keywords, found by the day's index; a day past the
    /// last is empty (as it was).
    #[test]
    fn a_days_counts_are_its_own_digests() {
        let (config, days) = (config(), 12);
        let archive = archive(days);
        let site = Site::new(
            &config,
            &archive,
            crate::render::site::BaseUrl::new(config.base_url.clone()),
        );
        let c = Counts::days();
        for p in 0..days - 1 {
            assert_eq!(*c.period(&site, p), (vec![(0, 2)], 2), "day {p}");
        }
        assert_eq!(*c.period(&site, days - 1), (vec![(0, 2), (1, 10)], 12));
        assert_eq!(*c.period(&site, days), (Vec::new(), 0));
        let hours = Counts::hours();
        assert_eq!(
            *hours.period(&site, 2 * days - 1),
            (vec![(0, 1), (1, 5)], 6)
        );
    }
}
