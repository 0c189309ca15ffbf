//! The archive's item keys, for deciding what is new, without parsing the whole archive each run.
//!
//! A cache (`.matome/keys.bin`, postcard with a checksum, not committed) remembers each
//! snapshot file's keys ([`ItemKey`]: 16 bytes an item) together with its size, modification
//! time and content hash. A file whose time changed but whose bytes did
//! not (every file of a fresh git clone, with the cache restored by CI) is recognised by its hash
//! without being parsed. A run parses only the files that are new or changed since —
//! normally none, or the current hour's — so an hourly fetch costs the same after a year as after
//! a day. content/ stays the source of truth: a missing, unreadable or foreign cache, or one
//! whose checksum does not match its entries, is rebuilt from it, and any file whose size or
//! time differs is parsed again.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Result;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{ItemKey, Snapshot, load_paths_partial, rel_name, snapshot_paths, stamp};
use crate::fsutil;

/// 4: the keys as [`ItemKey`]s (16 bytes each) instead of feed URLs and item ids.
const VERSION: u32 = 4;

/// What a fetch run needs to know of the archive: the key of every archived item.
#[derive(Debug, Default)]
pub struct ArchiveKeys {
    pub keys: HashSet<ItemKey>,
    /// Items in the archive (the same item in two feeds counts twice).
    pub items: u64,
    /// Snapshot files parsed this time (the rest came from the cache).
    pub parsed_files: usize,
    /// The cache's entries, kept so a file this run writes can be added without a re-parse.
    files: BTreeMap<String, FileKeys>,
    /// Snapshot files that do not parse (their keys recovered from their readable lines).
    pub broken: Vec<super::BrokenFile>,
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

/// Writes the cache: postcard, [`fsutil::seal`]ed (its keys decide which items are new, so a
/// corrupted one must never be believed). It was JSON checksummed by serialising it twice:
/// 38 MB parsed, written and hashed every hour at a year of archive.
fn save_cache(root: &Path, files: &BTreeMap<String, FileKeys>) {
    let cache = CacheRef {
        version: VERSION,
        files,
    };
    // The cache only saves time: failing to write it is not worth failing the run.
    if let Some(bytes) = fsutil::to_sealed(&cache) {
        let _ = fsutil::write_atomic(&cache_path(root), &bytes);
        // The JSON cache of earlier versions, if a restored `.matome/` still has it.
        let legacy = crate::layout::cache_dir(root).join(crate::layout::LEGACY_KEYS_CACHE);
        let _ = std::fs::remove_file(legacy);
    }
}

/// The cache entry of the snapshot `s` read from `path`, whose bytes are `text`.
fn entry_for(path: &Path, text: &str, s: &Snapshot) -> FileKeys {
    let (size, mtime_ns) = stamp(path).unwrap_or((0, 0));
    let hash = crate::hash::fnv1a(text.as_bytes());
    FileKeys {
        size,
        mtime_ns,
        hash,
        items: s.items.len() as u64,
        keys: s.items.iter().map(super::Item::key).collect(),
    }
}

impl ArchiveKeys {
    /// Records a snapshot this run has just written at `path` (its text `text`), so the next
    /// run finds its keys in the cache instead of parsing it.
    pub fn remember(&mut self, root: &Path, path: &Path, text: &str, snapshot: &Snapshot) {
        self.files
            .insert(rel_name(root, path), entry_for(path, text, snapshot));
        save_cache(root, &self.files);
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct FileKeys {
    size: u64,
    mtime_ns: u128,
    /// [`crate::hash::fnv1a`] of the file's bytes.
    hash: u64,
    items: u64,
    /// The file's item keys.
    keys: Vec<ItemKey>,
}

fn cache_path(root: &Path) -> PathBuf {
    crate::layout::keys_cache(root)
}

fn load_cache(root: &Path) -> Cache {
    std::fs::read(cache_path(root))
        .ok()
        .and_then(|b| fsutil::from_sealed::<Cache>(&b))
        .filter(|c| c.version == VERSION)
        .unwrap_or_default()
}

/// The keys of every archived item. Files unchanged since the cache was written are not read;
/// the others are parsed and reduced to their keys at once, so memory stays small however large
/// the archive grows. A file that does not parse does not stop the load: it is listed in
/// [`ArchiveKeys::broken`] (path and line) and its keys are recovered from its readable
/// `feed`/`id` lines ([`super::recover_keys`]).
pub fn load_keys(root: &Path) -> Result<ArchiveKeys> {
    let paths = snapshot_paths(root)?;
    let mut cache = load_cache(root);
    let rel = |p: &Path| rel_name(root, p);
    let mut fresh: BTreeMap<String, FileKeys> = BTreeMap::new();
    let mut stale: Vec<PathBuf> = Vec::new();
    // Same size, another time: the bytes decide (read and hashed in parallel, not parsed).
    let mut recheck: Vec<(String, PathBuf, FileKeys, u128)> = Vec::new();
    for p in paths {
        let name = rel(&p);
        match (cache.files.remove(&name), stamp(&p)) {
            (Some(entry), Some((size, mtime_ns))) if entry.size == size => {
                if entry.mtime_ns == mtime_ns {
                    fresh.insert(name, entry);
                } else {
                    recheck.push((name, p, entry, mtime_ns));
                }
            }
            _ => stale.push(p),
        }
    }
    let mut dropped = !cache.files.is_empty();
    let rechecked: Vec<(String, PathBuf, Option<FileKeys>)> = recheck
        .into_par_iter()
        .map(|(name, p, mut entry, mtime_ns)| {
            let same = std::fs::read(&p).is_ok_and(|b| crate::hash::fnv1a(&b) == entry.hash);
            entry.mtime_ns = mtime_ns;
            (name, p, same.then_some(entry))
        })
        .collect();
    for (name, p, entry) in rechecked {
        dropped = true; // the cache learns the new times
        match entry {
            Some(entry) => {
                fresh.insert(name, entry);
            }
            None => stale.push(p),
        }
    }
    let parsed_files = stale.len();
    let (parsed, broken) = load_paths_partial(stale, |p, text, s| {
        let entry = entry_for(&p, text, &s);
        (p, entry)
    });
    for (p, entry) in parsed {
        fresh.insert(rel(&p), entry);
    }

    let mut out = ArchiveKeys {
        parsed_files,
        ..Default::default()
    };
    // A broken file is never cached (so it is read again, and reported, until it is fixed);
    // its items are still recognised by the key lines it shows.
    for b in &broken {
        let recovered = std::fs::read_to_string(&b.path)
            .map(|t| super::recover_keys(&t))
            .unwrap_or_default();
        out.items += recovered.len() as u64;
        out.keys.extend(recovered);
    }
    out.broken = broken;
    out.keys.reserve(fresh.values().map(|e| e.keys.len()).sum());
    for entry in fresh.values() {
        out.items += entry.items;
        out.keys.extend(entry.keys.iter().copied());
    }
    if parsed_files > 0 || dropped {
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
        assert_eq!(again.parsed_files, 1, "the file is read again");
        assert_eq!(again.keys, first.keys);
        std::fs::write(cache_path(root), &bytes[..bytes.len() / 2]).unwrap();
        assert_eq!(load_keys(root).unwrap().parsed_files, 1);
        // An unchanged cache is believed: nothing parsed.
        load_keys(root).unwrap();
        assert_eq!(load_keys(root).unwrap().parsed_files, 0);
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
        assert_eq!((again.parsed_files, &again.keys), (0, &keys.keys));
    }

    #[test]
    fn unchanged_files_come_from_the_cache_changed_ones_are_parsed() {
        let (dir, a, b) = two_files();
        let root = dir.path();

        let first = load_keys(root).unwrap();
        assert_eq!((first.items, first.parsed_files), (3, 2));
        let again = load_keys(root).unwrap();
        assert_eq!(
            (again.items, again.parsed_files),
            (3, 0),
            "all from the cache"
        );
        assert_eq!(again.keys, first.keys);

        // The current hour's file grows: only it is parsed.
        snap("2021-07-20T09:00:00+09:00", &["b1", "b2"])
            .write(&b)
            .unwrap();
        let grown = load_keys(root).unwrap();
        assert_eq!((grown.items, grown.parsed_files), (4, 1));
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
        assert_eq!((cloned.items, cloned.parsed_files), (4, 0));
        assert_eq!(cloned.keys, grown.keys);
        // Same size, another time, other bytes (an edit): parsed.
        let text = std::fs::read_to_string(&b).unwrap().replace("b2", "b3");
        std::fs::write(&b, text).unwrap();
        let edited = load_keys(root).unwrap();
        assert_eq!(edited.parsed_files, 1);
        assert!(edited.keys.contains(&ItemKey::new("http://f/", "b3")));

        // A deleted file's keys go; a broken cache is rebuilt.
        std::fs::remove_file(&a).unwrap();
        assert_eq!(load_keys(root).unwrap().items, 2);
        std::fs::write(cache_path(root), "{not json").unwrap();
        let rebuilt = load_keys(root).unwrap();
        assert_eq!((rebuilt.items, rebuilt.parsed_files), (2, 1));
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
        assert_eq!((next.items, next.parsed_files), (2, 0));
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
