//! Document frequencies of terms over the whole archive, for TF-IDF, and per site (a sketch of
//! in how many of each site's items a term occurs, [`super::sites`]), to tell a site's labels
//! from its items' keywords.
//!
//! Kept incrementally in a cache file (`.matome/df.tsv`, not committed): each fetch adds its new
//! items. content/ stays the source of truth: the cache is rebuilt from it whenever it is
//! missing, was made by another analyser version, does not count as many items as the archive,
//! or does not verify (its header carries a hash of the body: a file cut short, edited or
//! corrupted is rebuilt, never used).

use rustc_hash::{FxHashMap, FxHashSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rayon::prelude::*;

use super::Analyzer;
use super::sites::{SiteFreq, Sites, site_hash};
use crate::content::Item;
use crate::fsutil;

/// Document frequencies: in how many items each term key occurs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocFreq {
    pub docs: u64,
    /// Keyed by [`super::term_hash`] of the term key.
    pub df: FxHashMap<u64, u32>,
    /// Per site (keyed by [`site_hash`] of its name): its items and a sketch of their terms.
    pub sites: Sites,
}

impl DocFreq {
    /// Inverse document frequency, smoothed so unseen terms score highest and no term scores 0.
    pub fn idf(&self, key: &str) -> f64 {
        self.idf_of(super::term_hash(key))
    }

    /// [`DocFreq::idf`] of a hashed key.
    pub fn idf_of(&self, hash: u64) -> f64 {
        self.idf_of_count(self.count(hash))
    }

    /// In how many items of the archive the term with this hashed key occurs.
    pub fn count(&self, hash: u64) -> u32 {
        self.df.get(&hash).copied().unwrap_or(0)
    }

    /// [`DocFreq::idf`] of a term found in `count` items ([`DocFreq::count`]): for a caller
    /// that already looked the count up.
    pub fn idf_of_count(&self, count: u32) -> f64 {
        ((1.0 + self.docs as f64) / (1.0 + count as f64)).ln() + 1.0
    }

    /// Counts one item's distinct keys, in the whole archive only (no site).
    pub fn add_keys(&mut self, keys: impl IntoIterator<Item = u64>) {
        self.docs += 1;
        for k in keys {
            *self.df.entry(k).or_default() += 1;
        }
    }

    /// Counts one item of `site` with its distinct keys, in the archive and in its site.
    pub fn add_item(&mut self, site: &str, keys: &FxHashSet<u64>) {
        self.add_keys(keys.iter().copied());
        self.sites
            .entry(site_hash(site))
            .or_default()
            .add(keys.iter().copied());
    }

    /// Whether the term `key` is a label of `site` rather than a keyword of its items: in a
    /// large share of the site's items and rarely in other sites' ([`SiteFreq::is_label`]).
    pub fn is_site_label(&self, site: &str, key: &str) -> bool {
        self.site_test(site, key, SiteFreq::is_label)
    }

    /// Whether the term `key`, written before a title's colon, is a series label of `site`
    /// ([`SiteFreq::is_title_label`]).
    pub fn is_site_title_label(&self, site: &str, key: &str) -> bool {
        self.site_test(site, key, SiteFreq::is_title_label)
    }

    /// `test` of `site`'s sketch with the key's hash, its items in the archive and the
    /// archive's size (false for a site the archive does not hold).
    fn site_test(&self, site: &str, key: &str, test: fn(&SiteFreq, u64, u32, u64) -> bool) -> bool {
        let hash = super::term_hash(key);
        self.site(site)
            .is_some_and(|s| test(s, hash, self.count(hash), self.docs))
    }

    /// The sketch of `site`'s items, if the archive holds any: for a caller testing many keys
    /// of one site ([`SiteFreq::is_label`], [`SiteFreq::is_title_label`]), which looks it up
    /// once.
    pub fn site(&self, site: &str) -> Option<&SiteFreq> {
        self.sites.get(&site_hash(site))
    }

    /// Frequencies over `items` from scratch, analysing them in parallel.
    pub fn from_items(items: &[&Item]) -> DocFreq {
        let a = Analyzer::get();
        let sets: Vec<FxHashSet<u64>> = items.par_iter().map(|i| a.item_terms(i).keys()).collect();
        let mut df = DocFreq::default();
        for (item, s) in items.iter().zip(&sets) {
            df.add_item(&item.site, s);
        }
        df
    }

    pub fn path(root: &Path) -> PathBuf {
        crate::layout::df_cache(root)
    }

    /// The cached frequencies if they are current for an archive of `archived` items, else
    /// frequencies rebuilt from the whole archive under `root`.
    pub fn load_or_rebuild(root: &Path, archived: u64) -> Result<DocFreq> {
        if let Some(df) = Self::load(root)
            && df.docs == archived
        {
            return Ok(df);
        }
        Self::rebuild(root)
    }

    /// Frequencies over every snapshot file under `root` that parses, one file at a time in
    /// parallel: memory holds the counts, never the archive (holding every snapshot took a
    /// fresh runner's fetch to 2.2 GB at three years). A broken file (reported by the fetch
    /// that calls this) is skipped and must not stop the run.
    pub fn rebuild(root: &Path) -> Result<DocFreq> {
        let a = Analyzer::get();
        let paths = crate::content::snapshot_paths(root)?;
        Ok(paths
            .into_par_iter()
            .fold(DocFreq::default, |mut df, p| {
                if let Ok(text) = std::fs::read_to_string(&p)
                    && let Ok(s) = crate::content::Snapshot::parse(&text, &p.display().to_string())
                {
                    for item in &s.items {
                        df.add_item(&item.site, &a.item_terms(item).keys());
                    }
                }
                df
            })
            .reduce(DocFreq::default, DocFreq::merge))
    }

    /// The counts of two disjoint sets of items.
    fn merge(mut self, mut other: DocFreq) -> DocFreq {
        if self.df.len() < other.df.len() {
            std::mem::swap(&mut self, &mut other);
        }
        self.docs += other.docs;
        for (k, v) in other.df {
            *self.df.entry(k).or_default() += v;
        }
        for (site, f) in other.sites {
            match self.sites.entry(site) {
                std::collections::hash_map::Entry::Occupied(mut e) => e.get_mut().merge(&f),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(f);
                }
            }
        }
        self
    }

    /// The cache if it verifies: `matome-df`, the analyser's fingerprint, the item count and a
    /// hash of the body in the header; every line a key and a count between 1 and the item
    /// count, or (`@` first) a site, its item count and its sketch ([`SiteFreq::decode`]); no
    /// key or site twice, and the sites' items no more than the archive's.
    fn load(root: &Path) -> Option<DocFreq> {
        let text = std::fs::read_to_string(Self::path(root)).ok()?;
        let (header, body) = text.split_once('\n')?;
        let mut parts = header.split('\t');
        if parts.next()? != "matome-df" || parts.next()? != Analyzer::get().fingerprint() {
            return None;
        }
        let docs: u64 = parts.next()?.parse().ok()?;
        let hash = u64::from_str_radix(parts.next()?, 16).ok()?;
        if parts.next().is_some() || crate::hash::fnv1a(body.as_bytes()) != hash {
            return None;
        }
        let mut df = FxHashMap::default();
        let mut sites = Sites::default();
        for line in body.lines() {
            if let Some(site) = line.strip_prefix('@') {
                let mut parts = site.splitn(3, '\t');
                let hash = u64::from_str_radix(parts.next()?, 16).ok()?;
                let n: u32 = parts.next()?.parse().ok()?;
                let f = SiteFreq::decode(n, parts.next()?)?;
                if n == 0 || sites.insert(hash, f).is_some() {
                    return None;
                }
                continue;
            }
            let (k, v) = line.split_once('\t')?;
            let v: u32 = v.parse().ok()?;
            if v == 0 || u64::from(v) > docs {
                return None;
            }
            if df.insert(u64::from_str_radix(k, 16).ok()?, v).is_some() {
                return None;
            }
        }
        if sites.values().map(|s| u64::from(s.docs)).sum::<u64>() > docs {
            return None;
        }
        Some(DocFreq { docs, df, sites })
    }

    /// Writes the cache atomically.
    pub fn save(&self, root: &Path) -> Result<()> {
        let mut keys: Vec<(&u64, &u32)> = self.df.iter().collect();
        keys.sort();
        let mut body = String::with_capacity(keys.len() * 24);
        for (k, v) in keys {
            use std::fmt::Write as _;
            let _ = writeln!(body, "{k:016x}\t{v}");
        }
        let mut sites: Vec<(&u64, &SiteFreq)> = self.sites.iter().collect();
        sites.sort_by_key(|(k, _)| **k);
        for (k, f) in sites {
            use std::fmt::Write as _;
            let _ = write!(body, "@{k:016x}\t{}\t", f.docs);
            f.encode(&mut body);
            body.push('\n');
        }
        let out = format!(
            "matome-df\t{}\t{}\t{:016x}\n{body}",
            Analyzer::get().fingerprint(),
            self.docs,
            crate::hash::fnv1a(body.as_bytes())
        );
        fsutil::write_atomic(&Self::path(root), out.as_bytes())
            .context("writing the document-frequency cache")
    }
}

#[cfg(test)]
mod tests {
    use super::super::term_hash;
    use super::*;

    #[test]
    fn idf_orders_rare_above_common() {
        let mut df = DocFreq::default();
        for i in 0..10 {
            let mut keys = vec![term_hash("日本")];
            if i == 0 {
                keys.push(term_hash("日本銀行"));
            }
            df.add_keys(keys);
        }
        assert!(df.idf("日本銀行") > df.idf("日本"));
        assert!(df.idf("未知") > df.idf("日本銀行"));
        assert!(df.idf("日本") > 0.0);
    }

    #[test]
    fn cache_round_trips_and_is_rebuilt_when_stale() {
        let dir = tempfile::tempdir().unwrap();
        let mut df = DocFreq::default();
        df.add_keys([term_hash("a"), term_hash("b c")]);
        df.save(dir.path()).unwrap();
        assert_eq!(DocFreq::load(dir.path()), Some(df.clone()));
        // The archive holds a different number of items: rebuilt (here from an empty archive).
        assert_eq!(
            DocFreq::load_or_rebuild(dir.path(), 0).unwrap(),
            DocFreq::default()
        );
        assert_eq!(DocFreq::load_or_rebuild(dir.path(), 1).unwrap(), df);
    }

    /// Issue 13: the rebuild reads one file at a time (it held every snapshot of the archive
    /// at once) and must count exactly what analysing all the items together counts; a file
    /// that does not parse is left out.
    #[test]
    fn the_streamed_rebuild_counts_what_the_whole_archive_counts() {
        use crate::content::{Item, Snapshot};
        use chrono::DateTime;
        let dir = tempfile::tempdir().unwrap();
        let words = ["日本銀行", "生成AI", "半導体", "クラウド", "Rust", "決算"];
        let mut all: Vec<Item> = Vec::new();
        for h in 0..30u32 {
            let hour = DateTime::parse_from_rfc3339(&format!(
                "2021-07-{:02}T{:02}:00:00+09:00",
                1 + h / 24,
                h % 24
            ))
            .unwrap();
            let items: Vec<Item> = (0..7u32)
                .map(|n| {
                    let (a, b) = (words[((h + n) % 6) as usize], words[((h * n) % 6) as usize]);
                    Item {
                        id: format!("{h}-{n}"),
                        feed: "https://example.com/feed".into(),
                        category: "IT".into(),
                        site: "サイト".into(),
                        title: format!("{a}と{b}の動き {h}"),
                        link: format!("https://example.com/{h}/{n}"),
                        published: hour,
                        keywords: vec![],
                        summary: String::new(),
                        text: format!("{a}をめぐり{b}が広がっている。"),
                        trend: None,
                        story: String::new(),
                    }
                })
                .collect();
            all.extend(items.iter().cloned());
            let s = Snapshot {
                hour,
                updated: hour,
                items,
                body: String::new(),
            };
            let path = dir.path().join(crate::content::snapshot_rel_path(&hour));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, s.to_text()).unwrap();
        }
        let broken = dir.path().join("content/2021/07/03/0000.md");
        std::fs::create_dir_all(broken.parent().unwrap()).unwrap();
        std::fs::write(&broken, "+++\nhour = nonsense\n").unwrap();
        let refs: Vec<&Item> = all.iter().collect();
        let expected = DocFreq::from_items(&refs);
        assert_eq!(expected.docs, 210);
        assert_eq!(DocFreq::rebuild(dir.path()).unwrap(), expected);
        assert_eq!(DocFreq::load_or_rebuild(dir.path(), 0).unwrap(), expected);
    }

    /// Issue 11, finding 5: a df.tsv cut short (its header intact) was accepted, and 449 of 450
    /// new items got other keywords, written into content/ for good.
    #[test]
    fn a_cache_that_does_not_verify_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let mut df = DocFreq::default();
        for i in 0..4 {
            df.add_keys((0..=i).map(|k| term_hash(&format!("term{k}"))));
        }
        df.save(dir.path()).unwrap();
        assert_eq!(DocFreq::load(dir.path()), Some(df.clone()));
        let path = DocFreq::path(dir.path());
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let cut = format!("{}\n", lines[..lines.len() - 1].join("\n"));
        let doubled = format!("{text}{}\n", lines[1]);
        let (k, _) = lines[1].split_once('\t').unwrap();
        let edited = text.replacen(lines[1], &format!("{k}\t3"), 1);
        let over = text.replacen(lines[1], &format!("{k}\t5"), 1);
        let old_format = text.replacen(
            &format!("\t{}\n", lines[0].rsplit('\t').next().unwrap()),
            "\n",
            1,
        );
        for (what, bad) in [
            ("cut short", cut),
            ("a line twice", doubled),
            ("a count edited", edited),
            ("a count above the items", over),
            ("no body hash", old_format),
            ("empty", String::new()),
            ("garbage", "\u{0}\u{1}".to_string()),
        ] {
            std::fs::write(&path, &bad).unwrap();
            assert_eq!(DocFreq::load(dir.path()), None, "{what}: {bad:?}");
        }
    }
}
