//! The window index as derived state: `.matome/stories.bin`, the [`StoryIndex`] of the last
//! few days that a fetch decides new items' stories against, kept between runs so an hour
//! costs its own items, not a scan of the archive. content/ is the truth; this is a cache of
//! it under the derived layer's rules ([`crate::content::derived`]):
//!
//! - **One version**: the layer's `VERSION`, the method's [`super::METHOD`] and a fingerprint
//!   of the method's [`Settings`]; an index of any other is not read.
//! - **One seal** ([`crate::fsutil::to_sealed`]): one that does not verify is not read.
//! - **Freshness**: it names the snapshot files it covers with their stamps (size and bytes;
//!   the time is left out, so a fresh clone's files are the same files) — every file of the
//!   span ([`span_secs`]: two windows and a day back from the archive's latest hour, all an
//!   index's items and the document frequencies they were weighed with depend on). Unless
//!   those are exactly the span's files as the fetch's key view ([`ArchiveKeys`]) finds them
//!   now, it is rebuilt: a hand edit, a deleted or added file, a run killed between the
//!   snapshot and the index.
//! - **One rebuild path** ([`Window::open`]): the span's snapshots (their derived records,
//!   else parsed), in archive order, each item inserted with its recorded story
//!   ([`crate::content::Item::story_id`]), which gives the window a run from the start would
//!   have had: every item of the last window weighed against the window before it.
//!
//! Memory and time are the span's, never the archive's.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, FixedOffset};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::index::{Saved, SavedRef};
use super::{Facts, Settings, StoryIndex};
use crate::content::{self, ArchiveKeys, Item, derived::Stamp};
use crate::fsutil;

/// What the window knows of one snapshot file it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Covered {
    size: u64,
    /// FNV-1a of its bytes (its derived stamp's).
    hash: u64,
    /// The hour it declares, unix seconds.
    hour: i64,
}

impl Covered {
    fn of(stamp: &Stamp, hour: &DateTime<FixedOffset>) -> Covered {
        Covered {
            size: stamp.size,
            hash: stamp.hash,
            hour: hour.timestamp(),
        }
    }
}

/// Files keyed by their site-relative path (archive order).
type Files = BTreeMap<String, Covered>;

/// `.matome/stories.bin` as written.
#[derive(Serialize)]
struct StoredRef<'a> {
    version: u32,
    method: u32,
    settings: u64,
    files: &'a Files,
    index: SavedRef<'a>,
}

/// `.matome/stories.bin` as read.
#[derive(Deserialize)]
struct Stored {
    version: u32,
    method: u32,
    settings: u64,
    files: Files,
    index: Saved,
}

/// How [`Window::open`] came by its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opened {
    /// Read from `.matome/stories.bin`, covering exactly the span's files.
    Loaded,
    /// Rebuilt from content/, for this reason.
    Rebuilt(&'static str),
}

/// The window of stories, open for one run.
pub struct Window {
    index: StoryIndex,
    files: Files,
    settings: Settings,
    pub opened: Opened,
}

/// How far back from the archive's latest hour a window's files reach: two windows (the items
/// of the last one, and those they were weighed against when they came) and a day (items
/// published before their digest's hour).
pub fn span_secs(settings: &Settings) -> i64 {
    (2 * settings.window_hours + 24) * 3600
}

fn fingerprint(settings: &Settings) -> u64 {
    crate::hash::fnv1a(format!("{settings:?}").as_bytes())
}

/// The files of `all` in the span back from the latest of them.
fn in_span(all: &Files, settings: &Settings) -> Files {
    let Some(latest) = all.values().map(|c| c.hour).max() else {
        return Files::new();
    };
    let from = latest - span_secs(settings);
    all.iter()
        .filter(|(_, c)| c.hour >= from)
        .map(|(n, c)| (n.clone(), *c))
        .collect()
}

/// The snapshot files of the span as the key view holds them (those that load): one pass
/// over the view's entries, the span's alone copied.
fn current(archive: &ArchiveKeys, settings: &Settings) -> Files {
    let hours: Vec<i64> = archive
        .files
        .values()
        .map(|f| f.hour().timestamp())
        .collect();
    let Some(latest) = hours.iter().max() else {
        return Files::new();
    };
    let from = latest - span_secs(settings);
    archive
        .files
        .iter()
        .zip(hours.iter())
        .filter(|(_, h)| **h >= from)
        .map(|((n, f), h)| {
            let s = f.stamp();
            let c = Covered {
                size: s.size,
                hash: s.hash,
                hour: *h,
            };
            (n.clone(), c)
        })
        .collect()
}

impl Window {
    /// The window for the archive `archive` describes (a fetch's key view, just checked
    /// against content/): `.matome/stories.bin` if it is of this version, method and
    /// settings, verifies, and covers exactly the span's files as they are; else rebuilt from
    /// content/.
    pub fn open(root: &Path, archive: &ArchiveKeys, settings: Settings) -> Window {
        let now = current(archive, &settings);
        match read(root, &settings) {
            Ok((files, index)) if files == now => Window {
                index,
                files,
                settings,
                opened: Opened::Loaded,
            },
            Ok(_) => Window::rebuild(root, &now, settings, "content/ changed since it was saved"),
            Err(why) => Window::rebuild(root, &now, settings, why),
        }
    }

    /// The window rebuilt from the snapshot files `files` (a span), whatever is saved.
    fn rebuild(root: &Path, files: &Files, settings: Settings, why: &'static str) -> Window {
        let paths = files.keys().map(|n| root.join(n)).collect();
        // A file that does not load now is left out (and the next run, finding it in the
        // key view again or not, rebuilds once more: a broken file is reported by the fetch).
        let (loaded, _) = content::load_paths_partial(root, paths, |p, stamp, s| {
            let facts: Vec<Facts> = s.items.iter().map(|i| Facts::of(i, s.hour)).collect();
            let name = content::rel_name(root, &p);
            (name, Covered::of(&stamp, &s.hour), s, facts)
        });
        let mut index = StoryIndex::new(settings.clone());
        let mut covered = Files::new();
        for (name, c, s, facts) in loaded {
            for (item, f) in s.items.iter().zip(facts) {
                index.insert(f, &item.story_id());
            }
            covered.insert(name, c);
        }
        Window {
            index,
            files: covered,
            settings,
            opened: Opened::Rebuilt(why),
        }
    }

    /// [`Window::open`] with the index rebuilt from content/ whatever is saved (`matome
    /// analyze` after rewriting stories).
    pub fn rebuilt(root: &Path, archive: &ArchiveKeys, settings: Settings) -> Window {
        let now = current(archive, &settings);
        Window::rebuild(root, &now, settings, "asked for")
    }

    /// Decides the story of each of `items` (new, archived in this order in the digest of
    /// `hour`) against the window and writes it into the item (its own key when it starts
    /// one); how many joined a story.
    pub fn decide(&mut self, items: &mut [Item], hour: DateTime<FixedOffset>) -> usize {
        let facts: Vec<Facts> = items.par_iter().map(|i| Facts::of(i, hour)).collect();
        let mut joined = 0;
        for (item, f) in items.iter_mut().zip(facts) {
            let a = self.index.assign(&item.key().hex(), f);
            joined += usize::from(a.joined);
            item.story = a.story;
        }
        joined
    }

    /// Notes that the snapshot file `name` (site-relative, as the key view has it after the
    /// run wrote it) now holds the items [`Window::decide`] decided.
    pub fn record(&mut self, archive: &ArchiveKeys, name: &str) {
        if let Some(f) = archive.files.get(name) {
            self.files
                .insert(name.to_string(), Covered::of(&f.stamp(), &f.hour()));
        }
    }

    /// Writes `.matome/stories.bin` (atomically; a cache: failing to write it costs a rebuild
    /// on the next run, not this run).
    pub fn save(&mut self, root: &Path) {
        self.files = in_span(&self.files, &self.settings);
        let stored = StoredRef {
            version: content::derived::VERSION,
            method: super::METHOD,
            settings: fingerprint(&self.settings),
            files: &self.files,
            index: self.index.saved(),
        };
        if let Some(bytes) = fsutil::to_sealed(&stored) {
            let _ = fsutil::write_atomic(&crate::layout::stories_window(root), &bytes);
        }
    }

    /// Items in the window.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether the window holds no item.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
}

/// The saved window, if it is of this version, method and settings and verifies.
fn read(root: &Path, settings: &Settings) -> Result<(Files, StoryIndex), &'static str> {
    let bytes = std::fs::read(crate::layout::stories_window(root)).map_err(|_| "missing")?;
    let stored: Stored = fsutil::from_sealed(&bytes).ok_or("damaged")?;
    if stored.version != content::derived::VERSION
        || stored.method != super::METHOD
        || stored.settings != fingerprint(settings)
    {
        return Err("of another version, method or settings");
    }
    let index = StoryIndex::restore(stored.index, settings.clone()).ok_or("damaged")?;
    Ok((stored.files, index))
}
