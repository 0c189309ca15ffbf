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
#[derive(Default)]
pub(crate) struct Counts {
    days: bool,
    cache: Mutex<FxHashMap<usize, Period>>,
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
        if let Some(hit) = self.cache.lock().unwrap().get(&p) {
            return hit.clone();
        }
        let a = site.archive;
        let digests: Vec<usize> = if self.days {
            site.day_digests().nth(p).cloned().unwrap_or_default()
        } else {
            vec![p]
        };
        let mut m: FxHashMap<u32, u32> = FxHashMap::default();
        let mut total = 0;
        for d in digests {
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

    fn count(&self, site: &Site, p: usize, k: u32) -> u32 {
        let period = self.period(site, p);
        period
            .0
            .binary_search_by_key(&k, |&(kk, _)| kk)
            .map_or(0, |i| period.0[i].1)
    }
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
    let series: Vec<(u32, Vec<u32>)> = c
        .period(site, p)
        .0
        .iter()
        .filter(|&&(_, n)| n >= t.min_count)
        .map(|&(k, _)| (k, (from..=p).map(|q| c.count(site, q, k)).collect()))
        .collect();
    let totals: Vec<u32> = (from..=p).map(|q| c.period(site, q).1).collect();
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
            let href = (!link.url.is_empty()).then(|| format!("{}{}", site.base_path, link.url));
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
                ..CloudOptions::default()
            },
        )
    };
    (
        make(true, site.strings.cloud_ja),
        make(false, site.strings.cloud_en),
    )
}
