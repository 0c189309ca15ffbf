//! The loaded archive: every digest and item the site is built from, with its indexes.
//!
//! Loading a year of snapshots (400,000 items, 330 MB of TOML) takes seconds, so the build keeps
//! what it needs of each file — digest times, and per item the title, link, site, category,
//! publication time and keywords, not the long texts — in a view of the derived layer
//! ([`super::derived`]) under `.matome/archive/`, one file per month. A file whose entry still
//! stands ([`Stamp::check`]) is not read further; the others are loaded through
//! [`derived::load`] (their record, else a parse); only the month chunks that changed are
//! rewritten. content/ stays the only source of truth: a missing or foreign chunk, or one that
//! does not verify ([`fsutil::seal`]), is rebuilt from it, and a file that cannot be read or no
//! longer parses is reported with its path and line like everywhere else.
//!
//! A chunk names each site, category and keyword once (`Chunk::names`) and its rows refer to
//! them by number, so loading three years (1.2 million items) allocates two strings per item
//! (title, link) and interns each distinct name once per month, not once per item.
//!
//! Each row carries its item's story (the 16 bytes of its ID); [`Stories`] lays out every story's
//! members across the archive ([`stories`]).
//!
//! Summaries, texts and the Markdown body are read from the file's record when a page or the
//! search index needs them ([`Archive::snapshot`]).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::Result;
use chrono::{DateTime, FixedOffset, TimeZone, Utc};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::derived::{self, Fresh, Stamp};
use super::{BrokenFile, Snapshot, load_paths_partial, rel_name, snapshot_paths};
use crate::fsutil;

pub mod stories;
pub use stories::{Stories, StoryKey, story_key};

/// One digest (snapshot file) of the archive.
#[derive(Debug, Clone)]
pub struct Digest {
    /// The file, absolute.
    pub path: PathBuf,
    /// The hour it is for, in the offset the file gives.
    pub hour: DateTime<FixedOffset>,
    /// The last run that added to it.
    pub updated: DateTime<FixedOffset>,
    /// [`crate::hash::fnv1a`] of the file's bytes: changes whenever anything in it does.
    pub hash: u64,
    /// Its items, as indexes into [`Archive::items`].
    pub items: Range<u32>,
    /// Whether the curator wrote a Markdown body.
    pub has_body: bool,
}

/// One item as list pages show it: a list row of the archive (a feed's entry as fetched is
/// [`crate::fetch::parse::FeedEntry`]).
#[derive(Debug, Clone)]
pub struct ListedItem {
    /// Index of its digest in [`Archive::digests`].
    pub digest: u32,
    /// Position in its snapshot file.
    pub index: u32,
    pub title: String,
    pub link: String,
    pub site: u32,
    pub category: u32,
    /// Seconds since the epoch.
    pub published: i64,
    pub keywords: Vec<u32>,
    /// Its story's number in [`Archive::stories`].
    pub story: u32,
}

/// Interned names (categories, sites or keywords) in order of first appearance.
#[derive(Debug, Default)]
pub struct Names {
    /// The name as shown (for keywords: the first written form seen).
    pub names: Vec<String>,
    /// The items that carry each name, oldest first (archive order).
    pub items: Vec<Vec<u32>>,
    index: FxHashMap<String, u32>,
    /// Keywords only: lower-cased keys, so "Apple" and "apple" are one keyword.
    folded: FxHashMap<String, u32>,
}

impl Names {
    fn intern(&mut self, name: &str, fold: bool) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let key = if fold {
            Some(name.to_lowercase())
        } else {
            None
        };
        if let Some(k) = &key
            && let Some(&i) = self.folded.get(k)
        {
            self.index.insert(name.to_string(), i);
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.items.push(Vec::new());
        self.index.insert(name.to_string(), i);
        if let Some(k) = key {
            self.folded.insert(k, i);
        }
        i
    }

    /// The id of a name as written (keywords: any case).
    pub fn get(&self, name: &str) -> Option<u32> {
        self.index
            .get(name)
            .or_else(|| self.folded.get(&name.to_lowercase()))
            .copied()
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// The whole archive, digests in time order.
#[derive(Debug, Default)]
pub struct Archive {
    pub digests: Vec<Digest>,
    pub items: Vec<ListedItem>,
    pub categories: Names,
    pub sites: Names,
    pub keywords: Names,
    /// Every story and its members.
    pub stories: Stories,
    /// Snapshot files not taken from the archive's view by this load (from their record or
    /// parsed).
    pub refreshed_files: usize,
    /// The site root (where the files' records are).
    root: PathBuf,
}

impl Archive {
    /// The items of digest `d`.
    pub fn digest_items(&self, d: usize) -> &[ListedItem] {
        let r = &self.digests[d].items;
        &self.items[r.start as usize..r.end as usize]
    }

    /// Digest `d`'s snapshot in full (summaries, texts, body): from its record
    /// ([`derived::snapshot`]), else parsed from content/.
    pub fn snapshot(&self, d: usize) -> Result<Snapshot> {
        let digest = &self.digests[d];
        derived::snapshot(&self.root, &digest.path, digest.hash)
    }

    /// Loads the archive of the site at `root`, using and refreshing the cache. A file that does
    /// not parse is an error (every broken file is listed, with its path and line).
    pub fn load(root: &Path) -> Result<Archive> {
        let (archive, broken) = Archive::load_partial(root)?;
        if !broken.is_empty() {
            return Err(super::broken_files_error(&broken));
        }
        Ok(archive)
    }

    /// Like [`Archive::load`], but the files that do not parse are left out and returned beside
    /// the archive of all the others (a build still renders every other page).
    pub fn load_partial(root: &Path) -> Result<(Archive, Vec<BrokenFile>)> {
        let paths = snapshot_paths(root)?;
        let cache_dir = crate::layout::archive_cache_dir(root);
        // Group the files into month chunks by their path (content/YYYY/MM/…).
        let mut chunks: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
        for p in paths {
            chunks.entry(chunk_name(root, &p)).or_default().push(p);
        }
        let loaded: Vec<(String, LoadedChunk)> = chunks
            .into_par_iter()
            .map(|(name, paths)| {
                let chunk = load_chunk(root, &cache_dir, &name, paths);
                (name, chunk)
            })
            .collect();
        // Each file with the number of its chunk, whose names its rows refer to.
        let mut files: Vec<(usize, FileEntry)> = Vec::new();
        let mut tables: Vec<Vec<String>> = Vec::new();
        let mut names = Vec::new();
        let mut refreshed_files = 0;
        let mut broken = Vec::new();
        for (name, c) in loaded {
            refreshed_files += c.refreshed;
            broken.extend(c.broken);
            names.push(name);
            let chunk = tables.len();
            tables.push(c.names);
            files.extend(c.files.into_iter().map(|e| (chunk, e)));
        }
        broken.sort_by(|a: &BrokenFile, b: &BrokenFile| a.path.cmp(&b.path));
        remove_stale_chunks(&cache_dir, &names);
        files.sort_by(|(_, a), (_, b)| (a.hour, &a.rel).cmp(&(b.hour, &b.rel)));
        let mut archive = Archive {
            refreshed_files,
            root: root.to_path_buf(),
            digests: Vec::with_capacity(files.len()),
            items: Vec::with_capacity(files.iter().map(|(_, f)| f.items.len()).sum()),
            ..Archive::default()
        };
        // Per chunk, each of its names' ids as category, site and keyword, once known: names
        // are interned in the order items first use them, as if interned item by item.
        let mut ids: Vec<Vec<[u32; 3]>> = tables
            .iter()
            .map(|t| vec![[u32::MAX; 3]; t.len()])
            .collect();
        let mut numbers = stories::StoryNumbers::default();
        for (chunk, f) in files {
            archive.push(root, f, &tables[chunk], &mut ids[chunk], &mut numbers);
        }
        archive.stories = numbers.finish(&archive.items);
        Ok((archive, broken))
    }

    /// Adds one file's digest and items; `table` is its chunk's names, `ids` their ids so far.
    fn push(
        &mut self,
        root: &Path,
        f: FileEntry,
        table: &[String],
        ids: &mut [[u32; 3]],
        stories: &mut stories::StoryNumbers,
    ) {
        let d = self.digests.len() as u32;
        let start = self.items.len() as u32;
        // A name's id in one of the three lists (0 categories, 1 sites, 2 keywords); every
        // number is inside the table (`load_chunk` refuses a chunk otherwise).
        fn id(names: &mut Names, table: &[String], ids: &mut [[u32; 3]], n: u32, k: usize) -> u32 {
            let slot = &mut ids[n as usize];
            if slot[k] == u32::MAX {
                slot[k] = names.intern(&table[n as usize], k == 2);
            }
            slot[k]
        }
        for (index, row) in f.items.into_iter().enumerate() {
            let id_ = self.items.len() as u32;
            let category = id(&mut self.categories, table, ids, row.category, 0);
            let site = id(&mut self.sites, table, ids, row.site, 1);
            self.categories.items[category as usize].push(id_);
            self.sites.items[site as usize].push(id_);
            let mut keywords = Vec::with_capacity(row.keywords.len());
            for &k in &row.keywords {
                let k = id(&mut self.keywords, table, ids, k, 2);
                if !keywords.contains(&k) {
                    keywords.push(k);
                    self.keywords.items[k as usize].push(id_);
                }
            }
            self.items.push(ListedItem {
                digest: d,
                index: index as u32,
                title: row.title,
                link: row.link,
                site,
                category,
                published: row.published,
                keywords,
                story: stories.number(row.story),
            });
        }
        self.digests.push(Digest {
            path: root.join(&f.rel),
            hour: time(f.hour),
            updated: time(f.updated),
            hash: f.stamp.hash,
            items: start..self.items.len() as u32,
            has_body: f.has_body,
        });
    }
}

fn time((secs, offset): (i64, i32)) -> DateTime<FixedOffset> {
    let offset = FixedOffset::east_opt(offset).unwrap_or(FixedOffset::east_opt(0).unwrap());
    offset
        .timestamp_opt(secs, 0)
        .single()
        .unwrap_or_else(|| Utc.timestamp_opt(0, 0).unwrap().fixed_offset())
}

fn stamp_of(t: &DateTime<FixedOffset>) -> (i64, i32) {
    (t.timestamp(), t.offset().local_minus_utc())
}

#[derive(Debug, Serialize, Deserialize)]
struct Chunk {
    version: u32,
    /// Every site, category and keyword the rows name, once each.
    names: Vec<String>,
    files: Vec<FileEntry>,
}

impl Chunk {
    /// Whether every row names only what `names` holds (a sealed chunk can fail this only if
    /// the code that wrote it was wrong; it is then parsed again like a damaged one).
    fn is_whole(&self) -> bool {
        let n = self.names.len() as u32;
        self.files
            .iter()
            .flat_map(|f| &f.items)
            .all(|r| r.site < n && r.category < n && r.keywords.iter().all(|&k| k < n))
    }
}

/// A month's names while its chunk is put together: each name's place in `names`.
#[derive(Default)]
struct Table {
    names: Vec<String>,
    index: FxHashMap<String, u32>,
}

impl Table {
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }

    /// The rows of `f` (numbered by `old`) renumbered into this table.
    fn renumber(&mut self, old: &[String], f: &mut FileEntry) {
        for r in &mut f.items {
            r.site = self.intern(&old[r.site as usize]);
            r.category = self.intern(&old[r.category as usize]);
            for k in &mut r.keywords {
                *k = self.intern(&old[*k as usize]);
            }
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct FileEntry {
    /// Relative to the site root, with `/`.
    rel: String,
    stamp: Stamp,
    hour: (i64, i32),
    updated: (i64, i32),
    has_body: bool,
    items: Vec<Row>,
}

/// One item; `site`, `category` and `keywords` are places in its chunk's names.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Row {
    title: String,
    link: String,
    site: u32,
    category: u32,
    published: i64,
    keywords: Vec<u32>,
    /// The story's ID ([`story_key`] of [`crate::content::Item::story_id`]).
    story: StoryKey,
}

/// `content/2021/07/20/0800.md` → `2021-07`; anything else → `other`.
fn chunk_name(root: &Path, p: &Path) -> String {
    let rel = rel_name(root, p);
    let parts: Vec<&str> = rel.split('/').collect();
    if parts.len() == 5
        && parts[1].len() == 4
        && parts[2].len() == 2
        && parts[1..3]
            .iter()
            .all(|s| s.bytes().all(|b| b.is_ascii_digit()))
    {
        format!("{}-{}", parts[1], parts[2])
    } else {
        "other".to_string()
    }
}

/// A parsed file's entry; its rows' names are numbered into `names` (the file's own table,
/// renumbered into its chunk's by [`Table::renumber`]).
fn entry_of(rel: String, stamp: Stamp, s: Snapshot) -> (Vec<String>, FileEntry) {
    let mut table = Table::default();
    let entry = FileEntry {
        rel,
        stamp,
        hour: stamp_of(&s.hour),
        updated: stamp_of(&s.updated),
        has_body: !s.body.trim().is_empty(),
        items: s
            .items
            .into_iter()
            .map(|i| Row {
                site: table.intern(&i.site),
                category: table.intern(&i.category),
                keywords: i.keywords.iter().map(|k| table.intern(k)).collect(),
                story: story_key(&i.story_id()),
                title: i.title,
                link: i.link,
                published: i.published.timestamp(),
            })
            .collect(),
    };
    (table.names, entry)
}

/// A month's chunk as cached, if it verifies, is of this version and names only what it holds.
fn read_chunk(chunk_path: &Path) -> Option<Chunk> {
    let bytes = std::fs::read(chunk_path).ok()?;
    fsutil::from_sealed::<Chunk>(&bytes).filter(|c| c.version == derived::VERSION && c.is_whole())
}

/// One month's names and entries: from the cache where the files' entries stand, loaded
/// otherwise (the files that cannot be read or do not parse are returned apart, never cached).
/// The chunk is rewritten when anything in it changed.
fn load_chunk(root: &Path, cache_dir: &Path, name: &str, paths: Vec<PathBuf>) -> LoadedChunk {
    let chunk_path = cache_dir.join(format!("{name}.bin"));
    let (names, mut cached): (Vec<String>, FxHashMap<String, FileEntry>) = read_chunk(&chunk_path)
        .map(|c| {
            let files = c.files.into_iter().map(|f| (f.rel.clone(), f)).collect();
            (c.names, files)
        })
        .unwrap_or_default();
    let cached_count = cached.len();
    let mut entries = Vec::with_capacity(paths.len());
    let mut to_load = Vec::new();
    let mut changed = false;
    for p in paths {
        let rel = rel_name(root, &p);
        match cached.remove(&rel).map(|e| (e.stamp.check(&p), e)) {
            Some((Fresh::Same, e)) => entries.push(e),
            Some((Fresh::Retimed(stamp), e)) => {
                entries.push(FileEntry { stamp, ..e });
                changed = true;
            }
            _ => {
                to_load.push(p);
                changed = true;
            }
        }
    }
    // Files gone from content/ leave the chunk too.
    changed |= !cached.is_empty() || entries.len() + to_load.len() != cached_count;
    let refreshed = to_load.len();
    let (fresh, broken) = load_paths_partial(root, to_load, |p, stamp, s| {
        entry_of(rel_name(root, &p), stamp, s)
    });
    if !changed {
        return LoadedChunk {
            names,
            files: entries,
            refreshed,
            broken,
        };
    }
    // One table for the chunk, holding only the names its files use (a file gone takes its
    // names with it).
    let mut table = Table::default();
    for e in &mut entries {
        table.renumber(&names, e);
    }
    for (own, mut e) in fresh {
        table.renumber(&own, &mut e);
        entries.push(e);
    }
    let chunk = Chunk {
        version: derived::VERSION,
        names: table.names,
        files: entries,
    };
    // The cache only saves time: failing to write it is not worth failing the build. No fsync
    // (the current month's chunk, megabytes at a month's end, is rewritten every hour):
    // replaced by rename, and one cut short by a crash does not verify, so it is loaded again.
    if let Some(bytes) = fsutil::to_sealed(&chunk) {
        let _ = fsutil::write_if_changed(&chunk_path, &bytes);
    }
    if let Some((year, month)) = name.split_once('-') {
        derived::prune_month(root, year, month);
    }
    LoadedChunk {
        names: chunk.names,
        files: chunk.files,
        refreshed,
        broken,
    }
}

/// One month as [`load_chunk`] gives it.
struct LoadedChunk {
    /// The names its rows refer to.
    names: Vec<String>,
    files: Vec<FileEntry>,
    /// Files not taken from the chunk (read from their record or parsed).
    refreshed: usize,
    broken: Vec<BrokenFile>,
}

fn remove_stale_chunks(cache_dir: &Path, live: &[String]) {
    let Ok(dir) = std::fs::read_dir(cache_dir) else {
        return;
    };
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".bin")
            && !live.iter().any(|l| l == stem)
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests;
