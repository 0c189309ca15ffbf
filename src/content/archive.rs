//! The loaded archive: every digest and item the site is built from, with its indexes.
//!
//! Loading a year of snapshots (400,000 items, 330 MB of TOML) takes seconds, so the build keeps
//! what it needs of each file — digest times, and per item the title, link, site, category,
//! publication time and keywords, not the long texts — in a cache under `.matome/archive/`, one
//! file per month. A file whose size and time (or, after a fresh clone, whose bytes) match its
//! cache entry is not parsed; only the month chunks that changed are rewritten. content/ stays
//! the only source of truth: a missing or foreign cache, or one whose checksum does not match
//! ([`fsutil::seal`]), is rebuilt from it, and a file that no
//! longer parses is reported with its path and line like everywhere else.
//!
//! A chunk names each site, category and keyword once (`Chunk::names`) and its rows refer to
//! them by number, so loading three years (1.2 million items) allocates two strings per item
//! (title, link) and interns each distinct name once per month, not once per item.
//!
//! Summaries and the Markdown body are read from the snapshot file itself when a page needs them
//! ([`Archive::snapshot`]); only digest pages and feeds do.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use chrono::{DateTime, FixedOffset, TimeZone, Utc};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::{BrokenFile, Snapshot, load_paths_partial, rel_name, snapshot_paths, stamp};
use crate::fsutil;

/// 2: rows name sites, categories and keywords by their place in `Chunk::names`.
const CACHE_VERSION: u32 = 2;

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

/// One item as list pages show it.
#[derive(Debug, Clone)]
pub struct Entry {
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
    pub items: Vec<Entry>,
    pub categories: Names,
    pub sites: Names,
    pub keywords: Names,
    /// Snapshot files parsed by this load (the rest came from the cache).
    pub parsed_files: usize,
}

impl Archive {
    /// The items of digest `d`.
    pub fn digest_items(&self, d: usize) -> &[Entry] {
        let r = &self.digests[d].items;
        &self.items[r.start as usize..r.end as usize]
    }

    /// Reads digest `d`'s snapshot file in full (summaries, texts, body).
    pub fn snapshot(&self, d: usize) -> Result<Snapshot> {
        Snapshot::load(&self.digests[d].path)
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
        let loaded: Vec<Result<(String, LoadedChunk)>> = chunks
            .into_par_iter()
            .map(|(name, paths)| Ok((name.clone(), load_chunk(root, &cache_dir, &name, paths)?)))
            .collect();
        let mut errors = Vec::new();
        // Each file with the number of its chunk, whose names its rows refer to.
        let mut files: Vec<(usize, FileEntry)> = Vec::new();
        let mut tables: Vec<Vec<String>> = Vec::new();
        let mut names = Vec::new();
        let mut parsed_files = 0;
        let mut broken = Vec::new();
        for r in loaded {
            match r {
                Ok((name, c)) => {
                    parsed_files += c.parsed;
                    broken.extend(c.broken);
                    names.push(name);
                    let chunk = tables.len();
                    tables.push(c.names);
                    files.extend(c.files.into_iter().map(|e| (chunk, e)));
                }
                Err(e) => errors.push(format!("{e:#}")),
            }
        }
        if !errors.is_empty() {
            anyhow::bail!("{}", errors.join("\n"));
        }
        remove_stale_chunks(&cache_dir, &names);
        files.sort_by(|(_, a), (_, b)| (a.hour, &a.rel).cmp(&(b.hour, &b.rel)));
        let mut archive = Archive {
            parsed_files,
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
        for (chunk, f) in files {
            archive.push(root, f, &tables[chunk], &mut ids[chunk]);
        }
        Ok((archive, broken))
    }

    /// Adds one file's digest and items; `table` is its chunk's names, `ids` their ids so far.
    fn push(&mut self, root: &Path, f: FileEntry, table: &[String], ids: &mut [[u32; 3]]) {
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
            self.items.push(Entry {
                digest: d,
                index: index as u32,
                title: row.title,
                link: row.link,
                site,
                category,
                published: row.published,
                keywords,
            });
        }
        self.digests.push(Digest {
            path: root.join(&f.rel),
            hour: time(f.hour),
            updated: time(f.updated),
            hash: f.hash,
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
    size: u64,
    mtime_ns: u128,
    hash: u64,
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
fn entry_of(
    rel: String,
    size: u64,
    mtime_ns: u128,
    text: &str,
    s: Snapshot,
) -> (Vec<String>, FileEntry) {
    let mut table = Table::default();
    let entry = FileEntry {
        rel,
        size,
        mtime_ns,
        hash: crate::hash::fnv1a(text.as_bytes()),
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
                title: i.title,
                link: i.link,
                published: i.published.timestamp(),
            })
            .collect(),
    };
    (table.names, entry)
}

/// One month's names and entries: from the cache where the files are unchanged, parsed
/// otherwise (the files that do not parse are returned apart, never cached). The chunk is
/// rewritten when anything in it changed.
fn load_chunk(
    root: &Path,
    cache_dir: &Path,
    name: &str,
    paths: Vec<PathBuf>,
) -> Result<LoadedChunk> {
    let chunk_path = cache_dir.join(format!("{name}.bin"));
    let (names, mut cached): (Vec<String>, FxHashMap<String, FileEntry>) =
        std::fs::read(&chunk_path)
            .ok()
            // Sealed with a checksum: a chunk cut short or corrupted is parsed again from
            // content/.
            .and_then(|b| fsutil::from_sealed::<Chunk>(&b))
            .filter(|c| c.version == CACHE_VERSION && c.is_whole())
            .map(|c| {
                let files = c.files.into_iter().map(|f| (f.rel.clone(), f)).collect();
                (c.names, files)
            })
            .unwrap_or_default();
    let cached_count = cached.len();
    let mut entries = Vec::with_capacity(paths.len());
    let mut to_parse = Vec::new();
    let mut changed = false;
    for p in paths {
        let rel = rel_name(root, &p);
        let (size, mtime_ns) = stamp(&p).unwrap_or((0, 0));
        match cached.remove(&rel) {
            Some(e) if e.size == size && e.mtime_ns == mtime_ns => entries.push(e),
            // Same size, another time (a fresh clone): the bytes decide.
            Some(mut e) if e.size == size => {
                let bytes =
                    std::fs::read(&p).with_context(|| format!("reading {}", p.display()))?;
                if crate::hash::fnv1a(&bytes) == e.hash {
                    e.mtime_ns = mtime_ns;
                    entries.push(e);
                } else {
                    to_parse.push(p);
                }
                changed = true;
            }
            _ => {
                to_parse.push(p);
                changed = true;
            }
        }
    }
    // Files gone from content/ leave the chunk too.
    changed |= !cached.is_empty() || entries.len() + to_parse.len() != cached_count;
    let parsed = to_parse.len();
    let mut broken = Vec::new();
    let mut fresh = Vec::new();
    if !to_parse.is_empty() {
        let (parsed, bad) = load_paths_partial(to_parse, |p, text, s| {
            let (size, mtime_ns) = stamp(&p).unwrap_or((0, 0));
            entry_of(rel_name(root, &p), size, mtime_ns, text, s)
        });
        fresh = parsed;
        broken = bad;
    }
    if changed {
        // One table for the chunk, holding only the names its files use (a file gone takes
        // its names with it).
        let mut table = Table::default();
        for e in &mut entries {
            table.renumber(&names, e);
        }
        for (own, mut e) in fresh {
            table.renumber(&own, &mut e);
            entries.push(e);
        }
        let chunk = Chunk {
            version: CACHE_VERSION,
            names: table.names,
            files: entries,
        };
        // The cache only saves time: failing to write it is not worth failing the build. No
        // fsync (the current month's chunk, megabytes at a month's end, is rewritten every
        // hour): replaced by rename, and one cut short by a crash does not verify, so it is
        // parsed again.
        if let Some(bytes) = fsutil::to_sealed(&chunk) {
            let _ = fsutil::write_if_changed(&chunk_path, &bytes);
        }
        return Ok(LoadedChunk {
            names: chunk.names,
            files: chunk.files,
            parsed,
            broken,
        });
    }
    Ok(LoadedChunk {
        names,
        files: entries,
        parsed,
        broken,
    })
}

/// One month as [`load_chunk`] gives it.
struct LoadedChunk {
    /// The names its rows refer to.
    names: Vec<String>,
    files: Vec<FileEntry>,
    /// Files parsed (not taken from the cache).
    parsed: usize,
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
mod tests {
    use super::*;
    use crate::content::Item;

    fn t(s: &str) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(s).unwrap()
    }

    fn item(id: &str, cat: &str, kws: &[&str]) -> Item {
        Item {
            id: id.into(),
            feed: "https://example.com/feed".into(),
            category: cat.into(),
            site: "Example".into(),
            title: format!("title {id}"),
            link: format!("https://example.com/{id}"),
            published: t("2021-07-20T07:20:00+09:00"),
            keywords: kws.iter().map(|s| s.to_string()).collect(),
            summary: "s".into(),
            text: String::new(),
            trend: None,
        }
    }

    fn write(root: &Path, hour: &str, items: Vec<Item>) {
        let h = t(hour);
        let s = Snapshot {
            hour: h,
            updated: h,
            items,
            body: String::new(),
        };
        s.write(&root.join(crate::content::snapshot_rel_path(&h)))
            .unwrap();
    }

    /// A site with one item ("a", IT) in the 08:00 digest of 2021-07-20.
    fn one_item_site() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "2021-07-20T08:00:00+09:00",
            vec![item("a", "IT", &[])],
        );
        dir
    }

    #[test]
    fn indexes_and_cache_agree_with_content() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            root,
            "2021-07-20T09:00:00+09:00",
            vec![item("b", "IT", &["Apple", "半導体"])],
        );
        write(
            root,
            "2021-07-20T08:00:00+09:00",
            vec![
                item("a", "IT", &["apple"]),
                item("c", "金融", &["日本銀行"]),
            ],
        );
        let a = Archive::load(root).unwrap();
        assert_eq!(a.parsed_files, 2);
        assert_eq!(a.digests.len(), 2);
        assert!(a.digests[0].hour < a.digests[1].hour, "time order");
        assert_eq!(a.items.len(), 3);
        assert_eq!(a.items[0].title, "title a");
        // Keywords fold case; the first written form is shown.
        let apple = a.keywords.get("APPLE").unwrap();
        assert_eq!(a.keywords.names[apple as usize], "apple");
        assert_eq!(a.keywords.items[apple as usize], vec![0, 2]);
        let it = a.categories.get("IT").unwrap();
        assert_eq!(a.categories.items[it as usize], vec![0, 2]);

        // Second load: everything from the cache, same archive.
        let b = Archive::load(root).unwrap();
        assert_eq!(b.parsed_files, 0);
        assert_eq!(b.items.len(), 3);
        assert_eq!(b.digests[1].hash, a.digests[1].hash);

        // A hand edit is seen (size changes), a removed file disappears.
        let p = root.join("content/2021/07/20/0900.md");
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, text.replace("title b", "title bee")).unwrap();
        std::fs::remove_file(root.join("content/2021/07/20/0800.md")).unwrap();
        let c = Archive::load(root).unwrap();
        assert_eq!(c.parsed_files, 1);
        assert_eq!(c.items.len(), 1);
        assert_eq!(c.items[0].title, "title bee");
    }

    /// What a build sees of an archive: names in order, each taxonomy's items, each item's
    /// names.
    fn shape(a: &Archive) -> Vec<String> {
        let mut out = Vec::new();
        for n in [&a.categories, &a.sites, &a.keywords] {
            out.push(format!("{:?} {:?}", n.names, n.items));
        }
        for e in &a.items {
            out.push(format!(
                "{} {} {} {} {:?}",
                e.title, e.link, e.site, e.category, e.keywords
            ));
        }
        out
    }

    /// Chunks name sites, categories and keywords by their place in the chunk's table, in
    /// whatever order files entered the cache; the archive must still intern them in the order
    /// items first use them, as a load without any cache does.
    #[test]
    fn names_from_cached_chunks_are_numbered_as_without_a_cache() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            root,
            "2021-07-20T09:00:00+09:00",
            vec![item("b", "金融", &["半導体", "Apple"])],
        );
        write(
            root,
            "2021-08-01T09:00:00+09:00",
            vec![item("d", "IT", &["apple", "日本銀行"])],
        );
        Archive::load(root).unwrap();
        // An older file of the same month enters the cached chunk after the newer one.
        write(
            root,
            "2021-07-20T08:00:00+09:00",
            vec![
                item("a", "IT", &["日本銀行", "半導体"]),
                item("c", "科学", &[]),
            ],
        );
        let cached = Archive::load(root).unwrap();
        assert_eq!(cached.parsed_files, 1);
        let again = Archive::load(root).unwrap();
        assert_eq!(again.parsed_files, 0);
        std::fs::remove_dir_all(crate::layout::archive_cache_dir(root)).unwrap();
        let fresh = Archive::load(root).unwrap();
        assert_eq!(fresh.parsed_files, 3);
        assert_eq!(shape(&cached), shape(&fresh));
        assert_eq!(shape(&again), shape(&fresh));
        assert_eq!(fresh.keywords.names, ["日本銀行", "半導体", "Apple"]);
    }

    /// A chunk that does not verify (damaged) or whose rows name outside its table is parsed
    /// again from content/, never trusted.
    #[test]
    fn a_damaged_or_inconsistent_chunk_is_rebuilt_from_content() {
        let dir = one_item_site();
        let root = dir.path();
        let want = shape(&Archive::load(root).unwrap());
        let chunk = crate::layout::archive_cache_dir(root).join("2021-07.bin");
        let mut bytes = std::fs::read(&chunk).unwrap();
        bytes[3] ^= 0x40;
        std::fs::write(&chunk, &bytes).unwrap();
        let a = Archive::load(root).unwrap();
        assert_eq!(a.parsed_files, 1, "a damaged chunk is not used");
        assert_eq!(shape(&a), want);

        let mut c: Chunk = fsutil::from_sealed(&std::fs::read(&chunk).unwrap()).unwrap();
        c.files[0].items[0].keywords.push(c.names.len() as u32);
        std::fs::write(&chunk, fsutil::to_sealed(&c).unwrap()).unwrap();
        let a = Archive::load(root).unwrap();
        assert_eq!(
            a.parsed_files, 1,
            "a chunk naming outside its table is not used"
        );
        assert_eq!(shape(&a), want);
        assert_eq!(
            Archive::load(root).unwrap().parsed_files,
            0,
            "and is rewritten"
        );
    }

    #[test]
    fn a_same_size_edit_with_a_new_time_is_caught_by_the_hash() {
        let dir = one_item_site();
        let root = dir.path();
        Archive::load(root).unwrap();
        let p = root.join("content/2021/07/20/0800.md");
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, text.replace("title a", "title z")).unwrap();
        let a = Archive::load(root).unwrap();
        assert_eq!(a.items[0].title, "title z");
    }

    #[test]
    fn a_broken_file_is_named_with_its_line() {
        let dir = one_item_site();
        let root = dir.path();
        let p = root.join("content/2021/07/20/0900.md");
        std::fs::write(
            &p,
            "+++\nhour = 2021-07-20T09:00:00+09:00\nupdated = nope\n+++\n",
        )
        .unwrap();
        let e = format!("{:#}", Archive::load(root).unwrap_err());
        assert!(e.contains("0900.md:3"), "{e}");
    }
}
