//! Document frequencies of terms over the whole archive, for TF-IDF.
//!
//! Kept incrementally in a cache file (`.matome/df.tsv`, not committed): each fetch adds its new
//! items. content/ stays the source of truth: the cache is rebuilt from it whenever it is
//! missing, was made by another analyser version, or does not count as many items as the archive.

use std::collections::HashSet;

use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rayon::prelude::*;

use super::Analyzer;
use crate::content::Item;
use crate::fsutil;

/// Document frequencies: in how many items each term key occurs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocFreq {
    pub docs: u64,
    pub df: FxHashMap<String, u32>,
}

impl DocFreq {
    /// Inverse document frequency, smoothed so unseen terms score highest and no term scores 0.
    pub fn idf(&self, key: &str) -> f64 {
        let df = self.df.get(key).copied().unwrap_or(0) as f64;
        ((1.0 + self.docs as f64) / (1.0 + df)).ln() + 1.0
    }

    /// Counts one item's distinct keys.
    pub fn add_keys(&mut self, keys: HashSet<String>) {
        self.docs += 1;
        for k in keys {
            *self.df.entry(k).or_default() += 1;
        }
    }

    /// Counts items, analysing them in parallel.
    pub fn add_items<'a>(&mut self, items: impl IntoParallelIterator<Item = &'a Item>) {
        let a = Analyzer::get();
        let sets: Vec<HashSet<String>> = items.into_par_iter().map(|i| a.doc_keys(i)).collect();
        for s in sets {
            self.add_keys(s);
        }
    }

    /// Frequencies over `items` from scratch.
    pub fn from_items(items: &[&Item]) -> DocFreq {
        let mut df = DocFreq::default();
        df.add_items(items.par_iter().copied());
        df
    }

    pub fn path(root: &Path) -> PathBuf {
        root.join(".matome").join("df.tsv")
    }

    /// The cached frequencies if they are current for an archive of `archived` items, else
    /// frequencies rebuilt from the whole archive under `root`.
    pub fn load_or_rebuild(root: &Path, archived: u64) -> Result<DocFreq> {
        if let Some(df) = Self::load(root)
            && df.docs == archived
        {
            return Ok(df);
        }
        let snapshots = crate::content::load_all(root)?;
        let items: Vec<&Item> = snapshots.iter().flat_map(|(_, s)| s.items.iter()).collect();
        Ok(Self::from_items(&items))
    }

    fn load(root: &Path) -> Option<DocFreq> {
        let text = std::fs::read_to_string(Self::path(root)).ok()?;
        let mut lines = text.lines();
        let header = lines.next()?;
        let mut parts = header.split('\t');
        if parts.next()? != "matome-df" || parts.next()? != Analyzer::get().fingerprint() {
            return None;
        }
        let docs = parts.next()?.parse().ok()?;
        let mut df = FxHashMap::default();
        for line in lines {
            let (k, v) = line.rsplit_once('\t')?;
            df.insert(k.to_string(), v.parse().ok()?);
        }
        Some(DocFreq { docs, df })
    }

    /// Writes the cache atomically.
    pub fn save(&self, root: &Path) -> Result<()> {
        let mut keys: Vec<(&String, &u32)> = self.df.iter().collect();
        keys.sort();
        let mut out = format!(
            "matome-df\t{}\t{}\n",
            Analyzer::get().fingerprint(),
            self.docs
        );
        for (k, v) in keys {
            if k.contains(['\t', '\n']) {
                continue;
            }
            out.push_str(k);
            out.push('\t');
            out.push_str(&v.to_string());
            out.push('\n');
        }
        fsutil::write_atomic(&Self::path(root), out.as_bytes())
            .context("writing the document-frequency cache")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idf_orders_rare_above_common() {
        let mut df = DocFreq::default();
        for i in 0..10 {
            let mut keys: HashSet<String> = ["日本".to_string()].into();
            if i == 0 {
                keys.insert("日本銀行".into());
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
        df.add_keys(["a".to_string(), "b c".to_string()].into());
        df.save(dir.path()).unwrap();
        assert_eq!(DocFreq::load(dir.path()), Some(df.clone()));
        // The archive holds a different number of items: rebuilt (here from an empty archive).
        assert_eq!(
            DocFreq::load_or_rebuild(dir.path(), 0).unwrap(),
            DocFreq::default()
        );
        assert_eq!(DocFreq::load_or_rebuild(dir.path(), 1).unwrap(), df);
    }
}
