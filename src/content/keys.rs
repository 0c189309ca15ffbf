//! The archive's item keys, for deciding what is new, without parsing the whole archive each run:
//! the derived layer's ([`super::derived`]) view for a fetch and for `matome check`.
//!
//! `.matome/keys.bin` (postcard, sealed, [`derived::VERSION`]) remembers each snapshot file's
//! keys ([`ItemKey`]: 16 bytes an item), the hour it declares and the stories its items join
//! (16 bytes an item that joins another's), with its [`Stamp`]. A file
//! whose entry still stands ([`Stamp::check`]: every file of a fresh git clone, with the cache
//! restored by CI, is recognised by its bytes) is not read further; the others are loaded through
//! [`derived::load`] (their record, else a parse) — normally none, or the current hour's — so an
//! hourly fetch costs the same after a year as after a day. content/ stays the source of truth:
//! a missing, unreadable or foreign view, or one that does not verify, is rebuilt from it.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Result;
use chrono::{DateTime, FixedOffset};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::derived::{self, Fresh, Stamp};
use super::{BrokenFile, ItemKey, Snapshot, rel_name, snapshot_paths};
use crate::fsutil;

/// What a fetch run (and `matome check`) needs to know of the archive: the key of every
/// archived item, per file.
#[derive(Debug, Default)]
pub struct ArchiveKeys {
    pub keys: HashSet<ItemKey>,
    /// Items in the archive (the same item in two feeds counts twice).
    pub items: u64,
    /// Snapshot files not taken from the view this time (loaded from their record or parsed).
    pub refreshed_files: usize,
    /// Every snapshot file that loads, keyed by its site-relative path.
    pub(crate) files: BTreeMap<String, FileKeys>,
    /// Snapshot files that do not parse (their keys recovered from their readable lines).
    pub broken: Vec<BrokenFile>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Cache {
    version: u32,
    /// Keyed by the path relative to the site root.
    files: BTreeMap<String, FileKeys>,
}

#[derive(Serialize)]
struct CacheRef<'a> {
    version: u32,
    files: &'a BTreeMap<String, FileKeys>,
}

/// Writes the view: postcard, [`fsutil::seal`]ed (its keys decide which items are new, so a
/// corrupted one must never be believed).
fn save_cache(root: &Path, files: &BTreeMap<String, FileKeys>) {
    let cache = CacheRef {
        version: derived::VERSION,
        files,
    };
    // The view only saves time: failing to write it is not worth failing the run.
    if let Some(bytes) = fsutil::to_sealed(&cache) {
        let _ = fsutil::write_atomic(&cache_path(root), &bytes);
        // What earlier versions kept, if a restored `.matome/` still has it.
        let dir = crate::layout::cache_dir(root);
        let _ = std::fs::remove_file(dir.join(crate::layout::LEGACY_KEYS_CACHE));
        let _ = std::fs::remove_file(
            crate::layout::check_dir(root).join(crate::layout::LEGACY_CHECK_CONTENT),
        );
    }
}

impl FileKeys {
    fn of(stamp: Stamp, s: &Snapshot) -> FileKeys {
        let keys: Vec<ItemKey> = s.items.iter().map(super::Item::key).collect();
        let stories = s
            .items
            .iter()
            .zip(&keys)
            .enumerate()
            .filter(|(_, (item, _))| !item.story.is_empty())
            .filter_map(|(n, (item, key))| match ItemKey::from_hex(&item.story) {
                Some(first) if first == *key => None,
                Some(first) => Some((n as u32, StoryRef::First(first))),
                None => Some((n as u32, StoryRef::Malformed)),
            })
            .collect();
        FileKeys {
            stamp,
            hour: (s.hour.timestamp(), s.hour.offset().local_minus_utc()),
            keys,
            stories,
        }
    }

    /// The file's stamp (size, time, bytes) as the view last saw it.
    pub(crate) fn stamp(&self) -> Stamp {
        self.stamp
    }

    /// The hour the file declares.
    pub(crate) fn hour(&self) -> DateTime<FixedOffset> {
        let (secs, offset) = self.hour;
        let offset = FixedOffset::east_opt(offset).unwrap_or(FixedOffset::east_opt(0).unwrap());
        DateTime::from_timestamp(secs, 0)
            .unwrap_or_default()
            .with_timezone(&offset)
    }
}

impl ArchiveKeys {
    /// Snapshot files in the view (those that load).
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// Records a snapshot this run has just written at `path`, so the next run (and the next
    /// build) finds it in the view and its record instead of parsing it.
    pub fn remember(&mut self, root: &Path, path: &Path, text: &str, snapshot: &Snapshot) {
        let stamp = Stamp::of(path, text.as_bytes());
        derived::write_record(root, path, stamp, snapshot);
        self.files
            .insert(rel_name(root, path), FileKeys::of(stamp, snapshot));
        save_cache(root, &self.files);
    }
}

/// One snapshot file's entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FileKeys {
    stamp: Stamp,
    /// The hour it declares: seconds and offset.
    hour: (i64, i32),
    /// The file's item keys, in file order.
    pub(crate) keys: Vec<ItemKey>,
    /// The items whose `story` is not their own (by their number in the file, in file order):
    /// what `matome check` needs to check it. An item alone, starting a story or archived
    /// before stories has none here.
    pub(crate) stories: Vec<(u32, StoryRef)>,
}

/// What an item's `story` says, when it names a story other than the item's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum StoryRef {
    /// The key of the story's first item (its 32 hex digits).
    First(ItemKey),
    /// Not 32 lower-case hex digits.
    Malformed,
}

fn cache_path(root: &Path) -> PathBuf {
    crate::layout::keys_cache(root)
}

fn load_cache(root: &Path) -> Cache {
    std::fs::read(cache_path(root))
        .ok()
        .and_then(|b| fsutil::from_sealed::<Cache>(&b))
        .filter(|c| c.version == derived::VERSION)
        .unwrap_or_default()
}

/// The keys of every archived item. A file whose entry stands is not read further; the others
/// are loaded ([`derived::load`]) and reduced to their keys at once, so memory stays small however
/// large the archive grows. A file that does not parse does not stop the load: it is listed in
/// [`ArchiveKeys::broken`] (path and line) and its keys are recovered from its readable
/// `feed`/`id` lines ([`super::recover_keys`]).
pub fn load_keys(root: &Path) -> Result<ArchiveKeys> {
    load_keys_with(root, false)
}

/// [`load_keys`]; with `reparse`, every file is parsed from content/ and the view rebuilt
/// (`matome check --all`).
pub fn load_keys_with(root: &Path, reparse: bool) -> Result<ArchiveKeys> {
    let paths = snapshot_paths(root)?;
    let mut cache = if reparse {
        Cache::default()
    } else {
        load_cache(root)
    };
    let mut changed = cache.files.len() != paths.len();
    let entries: Vec<(String, PathBuf, Option<FileKeys>)> = paths
        .into_iter()
        .map(|p| {
            let name = rel_name(root, &p);
            let old = cache.files.remove(&name);
            (name, p, old)
        })
        .collect();
    // Each entry with whether the view learns something (`save`) and whether it came from
    // outside the view (`loaded`: its record or a parse).
    type Checked = Result<(FileKeys, bool, bool), BrokenFile>;
    let checked: Vec<(String, Checked)> = entries
        .into_par_iter()
        .map(|(name, p, old)| {
            let r = match old.as_ref().map(|e| (e, e.stamp.check(&p))) {
                Some((e, Fresh::Same)) => Ok((e.clone(), false, false)),
                Some((e, Fresh::Retimed(stamp))) => {
                    Ok((FileKeys { stamp, ..e.clone() }, true, false))
                }
                _ => {
                    let loaded = if reparse {
                        derived::parse(root, &p)
                    } else {
                        derived::load(root, &p)
                    };
                    loaded.map(|(stamp, s)| (FileKeys::of(stamp, &s), true, true))
                }
            };
            (name, r)
        })
        .collect();
    let mut out = ArchiveKeys::default();
    let mut fresh: BTreeMap<String, FileKeys> = BTreeMap::new();
    for (name, r) in checked {
        match r {
            Ok((entry, save, loaded)) => {
                changed |= save;
                out.refreshed_files += usize::from(loaded);
                fresh.insert(name, entry);
            }
            Err(b) => {
                out.refreshed_files += 1;
                out.broken.push(b);
            }
        }
    }
    // A broken file is never in the view (so it is read again, and reported, until it is
    // fixed); its items are still recognised by the key lines it shows.
    for b in &out.broken {
        let recovered = std::fs::read_to_string(&b.path)
            .map(|t| super::recover_keys(&t))
            .unwrap_or_default();
        out.items += recovered.len() as u64;
        out.keys.extend(recovered);
    }
    out.keys.reserve(fresh.values().map(|e| e.keys.len()).sum());
    for entry in fresh.values() {
        out.items += entry.keys.len() as u64;
        out.keys.extend(entry.keys.iter().copied());
    }
    if changed || !out.broken.is_empty() {
        save_cache(root, &fresh);
    }
    out.files = fresh;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Snapshot;

    fn snap(hour: &str, ids: &[&str]) -> Snapshot {
        let mut text = format!("+++\nhour = {hour}\nupdated = {hour}\n");
        for id in ids {
            text.push_str(&format!(
                "\n[[items]]\nid = \"{id}\"\nfeed = \"http://f/\"\ncategory = \"IT\"\nsite = \"s\"\ntitle = \"t\"\npublished = {hour}\n"
            ));
        }
        text.push_str("+++\n");
        Snapshot::parse(&text, "x").unwrap()
    }

    /// A site with items a1, a2 in its 08:00 file and b1 in its 09:00 file (2021-07-20), and
    /// the paths of the two files.
    fn two_files() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("content/2021/07/20/0800.md");
        let b = dir.path().join("content/2021/07/20/0900.md");
        snap("2021-07-20T08:00:00+09:00", &["a1", "a2"])
            .write(&a)
            .unwrap();
        snap("2021-07-20T09:00:00+09:00", &["b1"])
            .write(&b)
            .unwrap();
        (dir, a, b)
    }

    /// Issue 11, finding 5: the keys cache decides which items are new; an edited or corrupted
    /// one (here: an id it does not have) must not be believed.
    #[test]
    fn a_keys_cache_that_does_not_verify_is_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        snap("2021-07-20T08:00:00+09:00", &["a1", "a2"])
            .write(&root.join("content/2021/07/20/0800.md"))
            .unwrap();
        let first = load_keys(root).unwrap();
        let bytes = std::fs::read(cache_path(root)).unwrap();
        let a2 = ItemKey::new("http://f/", "a2");
        let at = bytes
            .windows(16)
            .position(|w| w == a2.0)
            .expect("the cache holds the key");
        let mut edited = bytes.clone();
        edited[at] ^= 1;
        std::fs::write(cache_path(root), &edited).unwrap();
        let again = load_keys(root).unwrap();
        assert_eq!(again.refreshed_files, 1, "the file is read again");
        assert_eq!(again.keys, first.keys);
        std::fs::write(cache_path(root), &bytes[..bytes.len() / 2]).unwrap();
        assert_eq!(load_keys(root).unwrap().refreshed_files, 1);
        // An unchanged cache is believed: nothing parsed.
        load_keys(root).unwrap();
        assert_eq!(load_keys(root).unwrap().refreshed_files, 0);
    }

    /// Issue 13 (the hourly fetch at three years: 1.2 CPU s and 820 MiB, a 107 MB keys.bin):
    /// the cache held every item's feed URL and id, and the fetch held them twice more in
    /// memory. It now holds a 16-byte key per item, whatever the ids' length.
    #[test]
    fn the_keys_cache_holds_a_fixed_size_key_per_item_not_its_id() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let ids: Vec<String> = (0..500)
            .map(|i| format!("https://news.example.com/articles/2021/07/20/{i:0>150}"))
            .collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        snap("2021-07-20T08:00:00+09:00", &ids)
            .write(&root.join("content/2021/07/20/0800.md"))
            .unwrap();
        let keys = load_keys(root).unwrap();
        assert_eq!(keys.keys.len(), 500);
        assert!(keys.keys.contains(&ItemKey::new("http://f/", ids[499])));
        let cache = std::fs::metadata(cache_path(root)).unwrap().len();
        assert!(cache < 500 * 20, "{cache} bytes for 500 items");
        // Read back from the cache, the same keys.
        let again = load_keys(root).unwrap();
        assert_eq!((again.refreshed_files, &again.keys), (0, &keys.keys));
    }

    #[test]
    fn unchanged_files_come_from_the_cache_changed_ones_are_parsed() {
        let (dir, a, b) = two_files();
        let root = dir.path();

        let first = load_keys(root).unwrap();
        assert_eq!((first.items, first.refreshed_files), (3, 2));
        let again = load_keys(root).unwrap();
        assert_eq!(
            (again.items, again.refreshed_files),
            (3, 0),
            "all from the cache"
        );
        assert_eq!(again.keys, first.keys);

        // The current hour's file grows: only it is parsed.
        snap("2021-07-20T09:00:00+09:00", &["b1", "b2"])
            .write(&b)
            .unwrap();
        let grown = load_keys(root).unwrap();
        assert_eq!((grown.items, grown.refreshed_files), (4, 1));
        assert!(grown.keys.contains(&ItemKey::new("http://f/", "b2")));

        // A fresh clone: every time changes, no byte does. Nothing is parsed.
        let t = filetime_now_minus(3600);
        for f in [&a, &b] {
            std::fs::File::options()
                .write(true)
                .open(f)
                .unwrap()
                .set_modified(t)
                .unwrap();
        }
        let cloned = load_keys(root).unwrap();
        assert_eq!((cloned.items, cloned.refreshed_files), (4, 0));
        assert_eq!(cloned.keys, grown.keys);
        // Same size, another time, other bytes (an edit): parsed.
        let text = std::fs::read_to_string(&b).unwrap().replace("b2", "b3");
        std::fs::write(&b, text).unwrap();
        let edited = load_keys(root).unwrap();
        assert_eq!(edited.refreshed_files, 1);
        assert!(edited.keys.contains(&ItemKey::new("http://f/", "b3")));

        // A deleted file's keys go; a broken cache is rebuilt.
        std::fs::remove_file(&a).unwrap();
        assert_eq!(load_keys(root).unwrap().items, 2);
        std::fs::write(cache_path(root), "{not json").unwrap();
        let rebuilt = load_keys(root).unwrap();
        assert_eq!((rebuilt.items, rebuilt.refreshed_files), (2, 1));
    }

    fn filetime_now_minus(secs: u64) -> std::time::SystemTime {
        std::time::SystemTime::now() - std::time::Duration::from_secs(secs)
    }

    #[test]
    fn a_file_written_by_the_run_is_remembered_without_a_parse() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut keys = load_keys(root).unwrap();
        let a = root.join("content/2021/07/20/0800.md");
        let s = snap("2021-07-20T08:00:00+09:00", &["a1", "a2"]);
        s.write(&a).unwrap();
        keys.remember(root, &a, &s.to_text(), &s);
        let next = load_keys(root).unwrap();
        assert_eq!((next.items, next.refreshed_files), (2, 0));
    }

    #[test]
    fn a_hand_edit_that_breaks_a_cached_file_is_still_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let a = root.join("content/2021/07/20/0800.md");
        snap("2021-07-20T08:00:00+09:00", &["a1"])
            .write(&a)
            .unwrap();
        load_keys(root).unwrap();
        std::fs::write(&a, "+++\nhour = oops\n+++\n").unwrap();
        let keys = load_keys(root).unwrap();
        assert_eq!(keys.broken.len(), 1);
        assert!(
            keys.broken[0].error.contains("0800.md:2:"),
            "{:?}",
            keys.broken
        );
    }

    /// A hand edit that breaks an old file does not stop a fetch, and does not make its items
    /// new again: their keys are read from the lines that still make sense.
    #[test]
    fn a_broken_file_still_counts_its_items_as_archived() {
        let (dir, a, _) = two_files();
        let root = dir.path();
        let text = std::fs::read_to_string(&a).unwrap();
        std::fs::write(&a, text.replacen("title = \"t\"", "title = t\"", 1)).unwrap();
        let keys = load_keys(root).unwrap();
        assert_eq!(keys.broken.len(), 1, "{:?}", keys.broken);
        assert!(
            keys.broken[0].error.contains("0800.md:"),
            "{:?}",
            keys.broken
        );
        for id in ["a1", "a2", "b1"] {
            assert!(keys.keys.contains(&ItemKey::new("http://f/", id)), "{id}");
        }
        assert_eq!(keys.items, 3);
        // Reported again at the next load: a broken file is never cached.
        assert_eq!(load_keys(root).unwrap().broken.len(), 1);
    }
}
