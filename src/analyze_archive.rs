//! `matome analyze [--all]`: the command that recomputes archived items' keywords and summaries
//! and rewrites the snapshot files that change (under the site lock, atomically). The analysis
//! itself is [`crate::analyze`]; this module owns only the command's reading and writing.

use std::path::Path;

use anyhow::Result;

use crate::analyze::{DocFreq, annotate};
use crate::config::Config;
use crate::content::Item;
use crate::fsutil::SiteLock;

/// What `matome analyze` did.
#[derive(Debug, Default, PartialEq)]
pub struct AnalyzeReport {
    pub items: usize,
    pub analysed: usize,
    pub files_rewritten: usize,
}

/// `matome analyze [--all]`: recomputes the keywords and summaries of archived items (those
/// without keywords, or every item with `all`) against the whole archive, rewriting only the
/// files that change, atomically, with everything else in them untouched.
pub fn analyze_archive(root: &Path, all: bool) -> Result<AnalyzeReport> {
    let config = Config::load(root)?;
    let _lock = SiteLock::acquire_or_wait(root)?;
    let mut snapshots = crate::content::load_all(root)?;
    let items: Vec<&Item> = snapshots.iter().flat_map(|(_, s)| s.items.iter()).collect();
    let df = DocFreq::from_items(&items);
    let mut report = AnalyzeReport {
        items: items.len(),
        ..Default::default()
    };
    for (path, snapshot) in &mut snapshots {
        let before = snapshot.items.clone();
        let mut todo: Vec<Item> = snapshot
            .items
            .iter()
            .filter(|i| all || i.keywords.is_empty())
            .cloned()
            .collect();
        if todo.is_empty() {
            continue;
        }
        report.analysed += todo.len();
        annotate(&mut todo, &df, &config.analyze);
        let mut fresh = todo.into_iter();
        for item in snapshot.items.iter_mut() {
            if all || item.keywords.is_empty() {
                *item = fresh.next().expect("one analysed item per selected item");
            }
        }
        if snapshot.items != before {
            snapshot.write(path)?;
            report.files_rewritten += 1;
        }
    }
    df.save(root)?;
    Ok(report)
}
