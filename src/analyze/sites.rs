//! Per-site document frequencies: in how many of one site's items a term occurs, so that what a
//! site repeats in nearly every item (a columnist's series name, a report series' title, a
//! preprint server's announcement header, a link aggregator's points and comments line) is
//! known as that site's label rather than a keyword of its items. Learnt from the archive, so a
//! new feed's boilerplate is found without any list.
//!
//! Each site keeps a count-min sketch ([`SITE_ROWS`] rows of [`SITE_WIDTH`] counters) instead of
//! one count per term: its size is bounded whatever the site publishes, adding is a sum (so an
//! archive counted item by item, in any order or in parallel parts, gives the same counters: the
//! rebuild and the hourly update agree), and a count is never under-estimated (collisions add at
//! most a few per cent of the site's items, far below the share that makes a label). The
//! global counts and the cache file are [`super::df`]'s.

use rustc_hash::FxHashMap;

/// Counters per row of a site's sketch.
pub const SITE_WIDTH: usize = 1024;
/// Rows of a site's sketch (a term's count is its smallest counter).
pub const SITE_ROWS: usize = 2;

/// A term is a site's label when it occurs in at least this share of the site's items …
const LABEL_SHARE: f64 = 0.5;
/// … in at least this many of them …
const LABEL_MIN_ITEMS: u32 = 3;
/// … and this many times more often, as a share, than in the other sites' items.
const LABEL_CONCENTRATION: f64 = 8.0;

/// One site's item count and sketch of term counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SiteFreq {
    pub docs: u32,
    /// `SITE_ROWS * SITE_WIDTH` counters (empty until the first item).
    pub(super) counts: Vec<u32>,
}

/// The counters of a term key's hash, one per row.
fn buckets(key: u64) -> [usize; SITE_ROWS] {
    // The key is a 64-bit FNV-1a hash, whose high bits are poorly mixed for short words: mixed
    // again (splitmix64's finaliser), its low and high halves index the two rows.
    let mut z = key.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    [
        (z as u32 as usize) % SITE_WIDTH,
        SITE_WIDTH + ((z >> 32) as usize) % SITE_WIDTH,
    ]
}

/// The hash a site is keyed by (its name as configured or as the feed gives it).
pub fn site_hash(site: &str) -> u64 {
    crate::hash::fnv1a(site.as_bytes())
}

impl SiteFreq {
    /// Counts one item's distinct keys.
    pub fn add(&mut self, keys: impl IntoIterator<Item = u64>) {
        if self.counts.is_empty() {
            self.counts = vec![0; SITE_ROWS * SITE_WIDTH];
        }
        self.docs += 1;
        for k in keys {
            for b in buckets(k) {
                self.counts[b] += 1;
            }
        }
    }

    /// In how many of the site's items `key` occurs (never fewer than the truth).
    pub fn count(&self, key: u64) -> u32 {
        if self.counts.is_empty() {
            return 0;
        }
        buckets(key)
            .into_iter()
            .map(|b| self.counts[b])
            .min()
            .unwrap_or(0)
    }

    /// The counts of two disjoint sets of the site's items.
    pub fn merge(&mut self, other: &SiteFreq) {
        if other.counts.is_empty() {
            return;
        }
        if self.counts.is_empty() {
            self.counts = vec![0; SITE_ROWS * SITE_WIDTH];
        }
        self.docs += other.docs;
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
    }

    /// Whether `key`, found in `global` of the archive's `docs` items, is this site's label:
    /// in a large share of its items and rarely in the others'.
    pub fn is_label(&self, key: u64, global: u32, docs: u64) -> bool {
        self.label_share(key, global, docs, LABEL_MIN_ITEMS)
            .is_some_and(|share| share >= LABEL_SHARE)
    }

    /// Whether `key` is a label this site puts before its titles' colon ("Show HN:", "Chart of
    /// the Week:"): a series a site runs in a few of its items, not in half of them, so two items
    /// of the site are enough, but it must still be rare in the others'.
    pub fn is_title_label(&self, key: u64, global: u32, docs: u64) -> bool {
        self.label_share(key, global, docs, 2).is_some()
    }

    /// The share of this site's items that hold `key` when at least `min_items` of them do and
    /// it is [`LABEL_CONCENTRATION`] times rarer, as a share, in the other sites' items.
    fn label_share(&self, key: u64, global: u32, docs: u64, min_items: u32) -> Option<f64> {
        // (the site's count is at most the archive's: a rare term, most of an item's, needs no
        // look at the sketch)
        if global < min_items {
            return None;
        }
        let here = self.count(key).min(global);
        if here < min_items || self.docs == 0 {
            return None;
        }
        let share = f64::from(here) / f64::from(self.docs);
        let others = u64::from(global - here) as f64
            / (docs.saturating_sub(u64::from(self.docs))).max(1) as f64;
        (others * LABEL_CONCENTRATION <= share).then_some(share)
    }

    /// The sketch as text: `index=count` for each counter that is not zero.
    pub(super) fn encode(&self, out: &mut String) {
        use std::fmt::Write as _;
        let mut first = true;
        for (i, c) in self.counts.iter().enumerate().filter(|(_, c)| **c > 0) {
            if !first {
                out.push(' ');
            }
            first = false;
            let _ = write!(out, "{i}={c}");
        }
    }

    /// [`SiteFreq::encode`]'s text back, if every counter is in range and named once (a counter
    /// adds up the items of every key in it, so it may exceed `docs`).
    pub(super) fn decode(docs: u32, text: &str) -> Option<SiteFreq> {
        let mut counts = vec![0; SITE_ROWS * SITE_WIDTH];
        for part in text.split(' ').filter(|p| !p.is_empty()) {
            let (i, c) = part.split_once('=')?;
            let (i, c): (usize, u32) = (i.parse().ok()?, c.parse().ok()?);
            if c == 0 || *counts.get(i)? != 0 {
                return None;
            }
            counts[i] = c;
        }
        Some(SiteFreq { docs, counts })
    }
}

/// Every site's [`SiteFreq`], keyed by [`site_hash`].
pub type Sites = FxHashMap<u64, SiteFreq>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::term_hash;

    #[test]
    fn a_series_name_in_most_of_one_sites_items_is_its_label_and_a_topic_is_not() {
        let mut site = SiteFreq::default();
        for i in 0..10 {
            let mut keys = vec![term_hash("markets minute"), term_hash(&format!("topic{i}"))];
            if i < 3 {
                keys.push(term_hash("bitcoin"));
            }
            site.add(keys);
        }
        // The archive: this site's 10 items and 90 others, 9 of which say "bitcoin" and one
        // of which uses the series' words.
        let docs = 100;
        assert!(site.is_label(term_hash("markets minute"), 11, docs));
        assert!(!site.is_label(term_hash("bitcoin"), 12, docs), "3 in 10");
        assert!(!site.is_label(term_hash("topic1"), 1, docs), "once");
        // A word every site uses is nobody's label.
        assert!(!site.is_label(term_hash("markets minute"), 60, docs));
    }

    #[test]
    fn the_sketch_is_the_same_whatever_the_order_and_round_trips() {
        let items: Vec<Vec<u64>> = (0..50u64)
            .map(|i| {
                (0..20)
                    .map(|k| term_hash(&format!("w{}", (i * 7 + k) % 60)))
                    .collect()
            })
            .collect();
        let mut one = SiteFreq::default();
        for keys in &items {
            one.add(keys.iter().copied());
        }
        let (mut a, mut b) = (SiteFreq::default(), SiteFreq::default());
        for keys in items.iter().rev().take(20) {
            a.add(keys.iter().copied());
        }
        for keys in items.iter().take(30) {
            b.add(keys.iter().copied());
        }
        a.merge(&b);
        assert_eq!(a, one);
        for k in 0..60 {
            let key = term_hash(&format!("w{k}"));
            let truth = items.iter().filter(|keys| keys.contains(&key)).count() as u32;
            assert!(one.count(key) >= truth);
            assert!(
                one.count(key) <= truth + 2,
                "collisions stay rare: {}",
                one.count(key)
            );
        }
        let mut text = String::new();
        one.encode(&mut text);
        assert_eq!(SiteFreq::decode(one.docs, &text), Some(one.clone()));
        assert_eq!(SiteFreq::decode(50, "5000=1"), None, "out of range");
        assert_eq!(SiteFreq::decode(50, "5=1 5=2"), None, "twice");
    }
}
