//! The one layer of state derived from content/: what `.matome/` remembers of each snapshot
//! file, and the one set of rules for trusting it.
//!
//! content/ is the ground truth; everything here is a cache of it. Each snapshot file has one
//! record ([`FileRecord`], `.matome/derived/content/YYYY/MM/DD/HHMM.md.bin`): the file's
//! [`Stamp`] (size, modification time, FNV-1a of its bytes) and the snapshot as parsed, so no
//! consumer parses the TOML of a file that some consumer has already parsed. The compact views
//! each consumer reads in bulk are built from the same parse and carry the same stamp per file:
//! the item keys of a fetch and of `matome check` ([`super::keys`], `.matome/keys.bin`), the
//! archive's list rows ([`super::archive`], `.matome/archive/`). The search documents (tantivy,
//! the static index) and every page's snapshot are read from the record
//! ([`super::archive::Archive::snapshot`]).
//!
//! The rules, the same for every record and view:
//! - **One version** ([`VERSION`]): a record or view of another version is not read.
//! - **One seal** ([`crate::fsutil::to_sealed`]): one that does not verify is not read.
//! - **One freshness rule** ([`Stamp::check`]): same size and time → the entry stands; same size,
//!   another time (a fresh clone) → the bytes decide; anything else, a file that cannot be read
//!   included, → the entry is rebuilt from content/.
//! - **One rebuild path** ([`load`]): a file whose entry does not stand is read from its record
//!   if that stands, else parsed (the only parse, counted by [`parses`]) and its record written.
//!   A file that cannot be read or parsed is a [`BrokenFile`] (path and line), never recorded.
//!
//! Writes are atomic (temp file and rename) and not fsynced: a record lost or cut short by a
//! crash does not verify, and is rebuilt.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::{DateTime, FixedOffset, TimeZone, Utc};
use serde::{Deserialize, Serialize};

use super::{BrokenFile, Item, NewsLink, Snapshot, Trend, rel_name};
use crate::fsutil;

/// The version of every record and view derived from content/ (records, keys.bin, archive
/// chunks). Bump it when what any of them holds, or how it is derived, changes: each is then
/// rebuilt from content/ once.
///
/// 5: one layer (records of whole snapshots; keys with their file's hour, shared with `matome
/// check`; the versionless search-docs cache gone).
/// 6: an item's story (issue 24).
/// 7: the archive's rows carry their story.
/// 8: the keys view carries the stories items join (`matome check` checks them).
pub(crate) const VERSION: u32 = 8;

/// Snapshot texts parsed by this process ([`Snapshot::parse`] counts each one, whoever calls it;
/// the derived layer's parse is [`load`]'s rebuild path).
static PARSES: AtomicUsize = AtomicUsize::new(0);

/// How many snapshot texts this process has parsed from their TOML, by any caller
/// (`MATOME_TIMINGS` prints it after a build and after a publish run; the tests assert a cold
/// build parses each file once, and that a build or a publish after it parses none).
pub fn parses() -> usize {
    PARSES.load(Ordering::Relaxed)
}

/// Counts one parse ([`Snapshot::parse`], and `matome check` placing a story problem).
pub(crate) fn count_parse() {
    PARSES.fetch_add(1, Ordering::Relaxed);
}

/// What every record and view knows of the snapshot file it was derived from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub size: u64,
    pub mtime_ns: u128,
    /// [`crate::hash::fnv1a`] of the file's bytes.
    pub hash: u64,
}

/// What [`Stamp::check`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fresh {
    /// Same size and time: the entry stands.
    Same,
    /// Same bytes, another time (a fresh clone): the entry stands with this stamp.
    Retimed(Stamp),
    /// Changed, gone or unreadable: rebuilt from content/.
    Changed,
}

/// A file's size and modification time: what [`Stamp::check`] compares before the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SizeTime {
    size: u64,
    mtime_ns: u128,
}

impl SizeTime {
    /// The file's size and time now; `None` when it cannot be read.
    fn of(path: &Path) -> Option<SizeTime> {
        let meta = std::fs::metadata(path).ok()?;
        let mtime_ns = meta
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_nanos();
        Some(SizeTime {
            size: meta.len(),
            mtime_ns,
        })
    }
}

impl Stamp {
    /// The stamp of `bytes` just read from `path` (its size and time now).
    pub fn of(path: &Path, bytes: &[u8]) -> Stamp {
        let now = SizeTime::of(path).unwrap_or(SizeTime {
            size: bytes.len() as u64,
            mtime_ns: 0,
        });
        Stamp {
            size: now.size,
            mtime_ns: now.mtime_ns,
            hash: crate::hash::fnv1a(bytes),
        }
    }

    /// The one rule for whether an entry stamped `self` still describes the file at `path`.
    pub fn check(&self, path: &Path) -> Fresh {
        match SizeTime::of(path) {
            Some(SizeTime { size, mtime_ns }) if size == self.size => {
                if mtime_ns == self.mtime_ns {
                    return Fresh::Same;
                }
                match std::fs::read(path) {
                    Ok(b) if crate::hash::fnv1a(&b) == self.hash => {
                        Fresh::Retimed(Stamp { mtime_ns, ..*self })
                    }
                    _ => Fresh::Changed,
                }
            }
            _ => Fresh::Changed,
        }
    }
}

/// A file's record: its stamp and the snapshot as parsed.
#[derive(Serialize, Deserialize)]
struct FileRecord<S> {
    version: u32,
    stamp: Stamp,
    snapshot: S,
}

/// `.matome/derived/<the file's site-relative path>.bin`.
fn record_path(root: &Path, path: &Path) -> PathBuf {
    crate::layout::derived_dir(root).join(format!("{}.bin", rel_name(root, path)))
}

/// The record of `path`, if it verifies and is of this version (not checked against the file).
fn read_record(root: &Path, path: &Path) -> Option<(Stamp, Snapshot)> {
    let bytes = std::fs::read(record_path(root, path)).ok()?;
    let r: FileRecord<Stored> = fsutil::from_sealed(&bytes)?;
    (r.version == VERSION).then(|| (r.stamp, r.snapshot.into_snapshot()))
}

/// Writes the record of `path` (a cache: a failure to write it only costs a parse later).
pub(crate) fn write_record(root: &Path, path: &Path, stamp: Stamp, s: &Snapshot) {
    let record = FileRecord {
        version: VERSION,
        stamp,
        snapshot: StoredRef::of(s),
    };
    if let Some(bytes) = fsutil::to_sealed(&record) {
        let _ = fsutil::write_if_changed(&record_path(root, path), &bytes);
    }
}

/// The snapshot whose bytes hash to `hash` (as an archive loaded them): from its record when
/// that is of those bytes, else parsed from content/ (and recorded).
pub fn snapshot(root: &Path, path: &Path, hash: u64) -> anyhow::Result<Snapshot> {
    if let Some((stamp, s)) = read_record(root, path)
        && stamp.hash == hash
    {
        return Ok(s);
    }
    load(root, path)
        .map(|(_, s)| s)
        .map_err(|b| anyhow::anyhow!("{}", b.error))
}

/// The one rebuild path: the snapshot at `path` and its stamp, from its record if that still
/// describes the file ([`Stamp::check`]), else parsed from content/ and recorded.
pub fn load(root: &Path, path: &Path) -> Result<(Stamp, Snapshot), BrokenFile> {
    if let Some((stamp, s)) = read_record(root, path) {
        match stamp.check(path) {
            Fresh::Same => return Ok((stamp, s)),
            Fresh::Retimed(now) => {
                write_record(root, path, now, &s);
                return Ok((now, s));
            }
            Fresh::Changed => {}
        }
    }
    parse(root, path)
}

/// Parses the snapshot at `path` from content/ whatever its record says (`matome check --all`,
/// and every file [`load`] finds no standing record for), and records it.
pub fn parse(root: &Path, path: &Path) -> Result<(Stamp, Snapshot), BrokenFile> {
    let broken = |error: String| BrokenFile {
        path: path.to_path_buf(),
        error,
    };
    let bytes = std::fs::read(path)
        .map_err(|e| broken(format!("reading snapshot {}: {e}", path.display())))?;
    let stamp = Stamp::of(path, &bytes);
    let text = String::from_utf8(bytes).map_err(|_| {
        broken(format!(
            "reading snapshot {}: stream did not contain valid UTF-8",
            path.display()
        ))
    })?;
    let s =
        Snapshot::parse(&text, &path.display().to_string()).map_err(|e| broken(e.to_string()))?;
    write_record(root, path, stamp, &s);
    Ok((stamp, s))
}

/// Removes the records under `.matome/derived/content/YYYY/MM/` of files gone from content/.
pub(crate) fn prune_month(root: &Path, year: &str, month: &str) {
    let dir = crate::layout::derived_dir(root)
        .join(super::CONTENT_DIR)
        .join(year)
        .join(month);
    for e in walkdir::WalkDir::new(&dir).into_iter().flatten() {
        let Some(rel) = e
            .path()
            .strip_prefix(crate::layout::derived_dir(root))
            .ok()
            .and_then(|r| r.to_str())
            .and_then(|r| r.strip_suffix(".bin"))
        else {
            continue;
        };
        if e.file_type().is_file() && !root.join(rel).is_file() {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// A time as stored: seconds, nanoseconds, offset seconds.
type Time = (i64, u32, i32);

fn time_of(t: &DateTime<FixedOffset>) -> Time {
    (
        t.timestamp(),
        t.timestamp_subsec_nanos(),
        t.offset().local_minus_utc(),
    )
}

fn time((secs, nanos, offset): Time) -> DateTime<FixedOffset> {
    let offset = FixedOffset::east_opt(offset).unwrap_or(FixedOffset::east_opt(0).unwrap());
    offset
        .timestamp_opt(secs, nanos)
        .single()
        .unwrap_or_else(|| Utc.timestamp_opt(0, 0).unwrap().fixed_offset())
}

/// A snapshot as a record stores it (read back).
#[derive(Deserialize)]
struct Stored {
    hour: Time,
    updated: Time,
    items: Vec<StoredItem>,
    body: String,
}

#[derive(Deserialize)]
struct StoredItem {
    id: String,
    feed: String,
    category: String,
    site: String,
    title: String,
    link: String,
    published: Time,
    keywords: Vec<String>,
    summary: String,
    text: String,
    trend: Option<StoredTrend>,
    story: String,
}

/// A trend as stored: volume, picture, news links (title, URL, source).
type StoredTrend = (Option<u64>, String, Vec<(String, String, String)>);

impl Stored {
    fn into_snapshot(self) -> Snapshot {
        Snapshot {
            hour: time(self.hour),
            updated: time(self.updated),
            body: self.body,
            items: self
                .items
                .into_iter()
                .map(|i| Item {
                    id: i.id,
                    feed: i.feed,
                    category: i.category,
                    site: i.site,
                    title: i.title,
                    link: i.link,
                    published: time(i.published),
                    keywords: i.keywords,
                    summary: i.summary,
                    text: i.text,
                    story: i.story,
                    trend: i.trend.map(|(volume, picture, news)| Trend {
                        volume,
                        picture,
                        news: news
                            .into_iter()
                            .map(|(title, url, source)| NewsLink { title, url, source })
                            .collect(),
                    }),
                })
                .collect(),
        }
    }
}

/// A snapshot as a record stores it (written; the same shape as [`Stored`]).
#[derive(Serialize)]
struct StoredRef<'a> {
    hour: Time,
    updated: Time,
    items: Vec<StoredItemRef<'a>>,
    body: &'a str,
}

type TrendRef<'a> = (Option<u64>, &'a str, Vec<(&'a str, &'a str, &'a str)>);

#[derive(Serialize)]
struct StoredItemRef<'a> {
    id: &'a str,
    feed: &'a str,
    category: &'a str,
    site: &'a str,
    title: &'a str,
    link: &'a str,
    published: Time,
    keywords: &'a [String],
    summary: &'a str,
    text: &'a str,
    trend: Option<TrendRef<'a>>,
    story: &'a str,
}

impl<'a> StoredRef<'a> {
    fn of(s: &'a Snapshot) -> StoredRef<'a> {
        StoredRef {
            hour: time_of(&s.hour),
            updated: time_of(&s.updated),
            body: &s.body,
            items: s
                .items
                .iter()
                .map(|i| StoredItemRef {
                    id: &i.id,
                    feed: &i.feed,
                    category: &i.category,
                    site: &i.site,
                    title: &i.title,
                    link: &i.link,
                    published: time_of(&i.published),
                    keywords: &i.keywords,
                    summary: &i.summary,
                    text: &i.text,
                    story: &i.story,
                    trend: i.trend.as_ref().map(|t| {
                        let news = t
                            .news
                            .iter()
                            .map(|n| (n.title.as_str(), n.url.as_str(), n.source.as_str()))
                            .collect();
                        (t.volume, t.picture.as_str(), news)
                    }),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_gives_back_the_snapshot_it_was_written_from() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let p = root.join("content/2021/07/20/0800.md");
        let text = "+++\nhour = 2021-07-20T08:00:00+09:00\nupdated = 2021-07-20T08:10:00.5+09:00\n\n[[items]]\nid = \"a\"\nfeed = \"https://f.example/rss\"\ncategory = \"IT\"\nsite = \"S\"\ntitle = \"T\"\nlink = \"https://f.example/a\"\npublished = 2021-07-20T07:00:00Z\nkeywords = [\"k\"]\nsummary = \"s\"\ntext = \"x\"\ntrend = { volume = 20000, picture = \"https://p.example/\", news = [{ title = \"n\", url = \"https://n.example/\", source = \"src\" }] }\n+++\nbody\n";
        fsutil::write_atomic(&p, text.as_bytes()).unwrap();
        let want = Snapshot::parse(text, "x").unwrap();
        let before = parses();
        let (stamp, s) = load(root, &p).unwrap();
        assert_eq!(s, want);
        assert!(parses() > before);
        let (again, s) = load(root, &p).unwrap();
        assert_eq!((again, &s), (stamp, &want), "from the record");
        assert_eq!(snapshot(root, &p, stamp.hash).unwrap(), want);
    }
}
