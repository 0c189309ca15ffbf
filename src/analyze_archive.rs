//! `matome analyze [--all]`: the command that recomputes archived items' keywords, summaries
//! and stories and rewrites the snapshot files that change (under the site lock, atomically),
//! then rebuilds the window of stories a fetch decides against. The analysis itself is
//! [`crate::analyze`], the stories' method [`crate::stories`]; this module owns only the
//! command's reading and writing, and which items it redoes.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::analyze::{DocFreq, annotate};
use crate::config::Config;
use crate::content::{Item, Snapshot, derived};
use crate::fsutil::SiteLock;
use crate::stories::{self, Facts, StoryIndex, ToAssign, window::Window};

/// What `matome analyze` did.
#[derive(Debug, Default, PartialEq)]
pub struct AnalyzeReport {
    pub items: usize,
    pub analysed: usize,
    /// Items whose story was decided (every item with `--all`, else those without one).
    pub stories_decided: usize,
    pub files_rewritten: usize,
}

/// `matome analyze [--all]`: recomputes the keywords and summaries of archived items (those
/// without keywords, or every item with `all`) against the whole archive, then their stories
/// (those without one, or every item with `all`, after a change of method), rewriting only the
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
    let mut changed = vec![false; snapshots.len()];
    for ((_, snapshot), changed) in snapshots.iter_mut().zip(&mut changed) {
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
        *changed = snapshot.items != before;
    }
    let settings = stories::Settings::of(&config.stories);
    report.stories_decided = if all {
        recompute_stories(&mut snapshots, &mut changed, &settings)
    } else {
        fill_stories(&mut snapshots, &mut changed, &settings)
    };
    for ((path, snapshot), changed) in snapshots.iter().zip(&changed) {
        if *changed {
            let text = snapshot.to_text();
            crate::fsutil::write_atomic(path, text.as_bytes())?;
            // its record, so the window below (and the next build) need not parse it again
            let stamp = derived::Stamp::of(path, text.as_bytes());
            derived::write_record(root, path, stamp, snapshot);
            report.files_rewritten += 1;
        }
    }
    df.save(root)?;
    drop(snapshots);
    // The window a fetch decides against, from the stories as they now are.
    let archive = crate::content::load_keys(root)?;
    Window::rebuilt(root, &archive, settings).save(root);
    Ok(report)
}

/// Every item's story decided anew, in archive order, as a fresh window would
/// ([`stories::recompute`]); marks the files whose stories change. How many were decided.
fn recompute_stories(
    snapshots: &mut [(PathBuf, Snapshot)],
    changed: &mut [bool],
    settings: &stories::Settings,
) -> usize {
    let keys: Vec<String> = snapshots
        .iter()
        .flat_map(|(_, s)| s.items.iter().map(|i| i.key().hex()))
        .collect();
    let batch: Vec<ToAssign> = snapshots
        .iter()
        .flat_map(|(_, s)| s.items.iter().map(move |item| (item, s.hour)))
        .zip(&keys)
        .map(|((item, archived), key)| ToAssign {
            key,
            item,
            archived,
        })
        .collect();
    let decided = stories::recompute(&batch, settings);
    drop(batch);
    let mut decided = decided.into_iter();
    for ((_, s), changed) in snapshots.iter_mut().zip(changed) {
        for item in &mut s.items {
            let story = decided.next().expect("one story per item");
            if item.story != story {
                item.story = story;
                *changed = true;
            }
        }
    }
    keys.len()
}

/// The stories of the items that have none (an archive from before stories), each decided in
/// archive order against the window of the items before it, those with a story inserted as
/// recorded. Only the files within a span ([`stories::window::span_secs`]) before an item
/// without a story are read into the window, so an archive with stories costs nothing. How
/// many were decided.
fn fill_stories(
    snapshots: &mut [(PathBuf, Snapshot)],
    changed: &mut [bool],
    settings: &stories::Settings,
) -> usize {
    use rayon::prelude::*;
    let span = stories::window::span_secs(settings);
    // Per file: the hour of the first file at or after it with an item without a story.
    let mut next_missing: Vec<Option<i64>> = vec![None; snapshots.len()];
    let mut after = None;
    for (i, (_, s)) in snapshots.iter().enumerate().rev() {
        if s.items.iter().any(|it| it.story.is_empty()) {
            after = Some(s.hour.timestamp());
        }
        next_missing[i] = after;
    }
    let mut index = StoryIndex::new(settings.clone());
    let mut decided = 0;
    for (i, (_, s)) in snapshots.iter_mut().enumerate() {
        let Some(missing) = next_missing[i] else {
            break;
        };
        if missing - s.hour.timestamp() > span {
            continue;
        }
        let at = s.hour;
        let facts: Vec<Facts> = s.items.par_iter().map(|it| Facts::of(it, at)).collect();
        for (item, f) in s.items.iter_mut().zip(facts) {
            if item.story.is_empty() {
                item.story = index.assign(&item.key().hex(), f).story;
                decided += 1;
                changed[i] = true;
            } else {
                index.insert(f, &item.story);
            }
        }
    }
    decided
}
