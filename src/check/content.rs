//! The content part of `matome check`: every snapshot file parses, is named for the hour it
//! declares, and archives no item another file already has.
//!
//! A year is 8,760 files; parsing them all each hour would cost more than the rest of the check.
//! So what the check needs of each file (the hour it declares, a hash of each item's key, or its
//! parse error) is kept in `.matome/check/content.bin` (sealed with [`fsutil::seal`]) with the
//! file's size, modification time and content hash, like the archive cache: a file is parsed
//! again only when it is new or its bytes changed (a fresh clone's new times cost a read and a
//! hash, not a parse). A record that is missing, does not verify or is of another matome version
//! is rebuilt by parsing everything; `--all` does that too. Duplicates are found by key hash and
//! confirmed on the two files' parsed items before they are reported, so a hash collision is
//! never reported as a duplicate. Problems come out in path order whether the record was used
//! or not.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use chrono::{DateTime, FixedOffset};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::content::{self, ItemKey, Snapshot};
use crate::fsutil;

/// 2: items keyed by [`ItemKey`] (the fetch's key) instead of a 64-bit hash of their own.
const FORMAT: u32 = 2;

/// What the content check found.
#[derive(Debug, Default)]
pub struct ContentReport {
    pub problems: Vec<String>,
    pub files: usize,
    pub items: usize,
    /// Files parsed this time (the rest came from the record).
    pub parsed: usize,
}

/// What the check needs of one snapshot file.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct FileRec {
    size: u64,
    mtime: u128,
    /// [`crate::hash::fnv1a`] of the file's bytes.
    hash: u64,
    /// Its hour (RFC 3339), or the reason it does not parse.
    hour: Result<String, String>,
    /// Each item's key ([`crate::content::Item::key`]), in file order.
    keys: Vec<ItemKey>,
}

type Record = (u32, String, BTreeMap<String, FileRec>);

fn record_path(root: &Path) -> PathBuf {
    crate::layout::check_dir(root).join("content.bin")
}

fn load_record(root: &Path) -> BTreeMap<String, FileRec> {
    std::fs::read(record_path(root))
        .ok()
        .and_then(|b| fsutil::from_sealed::<Record>(&b))
        .filter(|(f, v, _)| *f == FORMAT && v == env!("CARGO_PKG_VERSION"))
        .map(|(_, _, files)| files)
        .unwrap_or_default()
}

/// A file read and, unless `old` still describes its bytes, parsed.
fn read_file(path: &Path, old: Option<&FileRec>) -> (FileRec, bool) {
    let (size, mtime) = content::stamp(path).unwrap_or((u64::MAX, 0));
    if let Some(old) = old
        && old.size == size
        && old.mtime == mtime
    {
        return (old.clone(), false);
    }
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            let rec = FileRec {
                size,
                mtime,
                hash: 0,
                hour: Err(format!("reading snapshot {}: {e}", path.display())),
                keys: Vec::new(),
            };
            return (rec, true);
        }
    };
    let hash = crate::hash::fnv1a(&bytes);
    if let Some(old) = old
        && old.hash == hash
        && old.size == size
    {
        let mut rec = old.clone();
        rec.mtime = mtime;
        return (rec, false);
    }
    let parsed = String::from_utf8(bytes)
        .map_err(|e| format!("{}: not UTF-8 ({e})", path.display()))
        .and_then(|text| {
            Snapshot::parse(&text, &path.display().to_string())
                .map_err(|e| format!("{:#}", anyhow::Error::from(e)))
        });
    let rec = match parsed {
        Ok(s) => FileRec {
            size,
            mtime,
            hash,
            hour: Ok(content::rfc3339(&s.hour)),
            keys: s.items.iter().map(crate::content::Item::key).collect(),
        },
        Err(e) => FileRec {
            size,
            mtime,
            hash,
            hour: Err(e),
            keys: Vec::new(),
        },
    };
    (rec, true)
}

/// Checks every snapshot file of the site at `root`; `all` parses every one.
pub fn check(root: &Path, config: Option<&Config>, all: bool) -> ContentReport {
    let mut r = ContentReport::default();
    let paths = match content::snapshot_paths(root) {
        Ok(p) => p,
        Err(e) => {
            r.problems.push(format!("{e:#}"));
            return r;
        }
    };
    r.files = paths.len();
    let old = if all {
        BTreeMap::new()
    } else {
        load_record(root)
    };
    let shown: Vec<String> = paths
        .iter()
        .map(|p| p.strip_prefix(root).unwrap_or(p).display().to_string())
        .collect();
    let read: Vec<(FileRec, bool)> = paths
        .par_iter()
        .zip(&shown)
        .map(|(p, s)| read_file(p, old.get(s)))
        .collect();
    r.parsed = read.iter().filter(|(_, parsed)| *parsed).count();
    let recs: Vec<FileRec> = read.into_iter().map(|(f, _)| f).collect();

    // key → (file, item) of its first occurrence, in path order.
    let mut seen: FxHashMap<ItemKey, (usize, usize)> = FxHashMap::default();
    let mut loaded: FxHashMap<usize, Option<Snapshot>> = FxHashMap::default();
    for (f, rec) in recs.iter().enumerate() {
        let hour = match &rec.hour {
            Ok(h) => h,
            Err(e) => {
                r.problems.push(e.clone());
                continue;
            }
        };
        if let Ok(hour) = DateTime::<FixedOffset>::parse_from_rfc3339(hour) {
            let local = match config {
                Some(c) => hour.with_timezone(&c.timezone).fixed_offset(),
                None => hour,
            };
            let expected = content::snapshot_rel_path(&local);
            if !paths[f].ends_with(&expected) {
                r.problems.push(format!(
                    "{}: its hour is {} but the file for that hour is {}",
                    shown[f],
                    content::rfc3339(&hour),
                    expected.display()
                ));
            }
        }
        for (i, &k) in rec.keys.iter().enumerate() {
            r.items += 1;
            let Some(&(first_f, first_i)) = seen.get(&k) else {
                seen.insert(k, (f, i));
                continue;
            };
            // Confirmed on the parsed items: a hash collision is not a duplicate.
            for g in [f, first_f] {
                loaded
                    .entry(g)
                    .or_insert_with(|| Snapshot::load(&paths[g]).ok());
            }
            let item = |g: usize, n: usize| loaded[&g].as_ref().and_then(|s| s.items.get(n));
            if let (Some(a), Some(b)) = (item(f, i), item(first_f, first_i))
                && (&a.feed, &a.id) == (&b.feed, &b.id)
            {
                r.problems.push(format!(
                    "{}: item {:?} of feed {} is also in {}; an item is archived once",
                    shown[f], a.id, a.feed, shown[first_f]
                ));
            }
        }
    }

    let files: BTreeMap<String, FileRec> = shown.into_iter().zip(recs).collect();
    if r.parsed > 0 || files.len() != old.len() || all {
        let record: (u32, &str, &BTreeMap<String, FileRec>) =
            (FORMAT, env!("CARGO_PKG_VERSION"), &files);
        // The record only saves time: one that cannot be saved (or is lost in a crash: no fsync)
        // means more parsing next time.
        if let Some(bytes) = fsutil::to_sealed(&record) {
            let _ = fsutil::write_if_changed(&record_path(root), &bytes);
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "+++\nhour = 2021-07-20T08:00:00+09:00\nupdated = 2021-07-20T08:10:00+09:00\n\n[[items]]\nid = \"a\"\nfeed = \"https://f.example/rss\"\ncategory = \"IT\"\nsite = \"S\"\ntitle = \"T\"\nlink = \"https://f.example/a\"\npublished = 2021-07-20T07:00:00+09:00\nkeywords = []\nsummary = \"\"\n+++\n";

    fn site() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("content/2021/07/20/0800.md");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, FILE).unwrap();
        dir
    }

    #[test]
    fn unchanged_files_are_not_parsed_again_and_problems_stay_reported() {
        let dir = site();
        let root = dir.path();
        let first = check(root, None, false);
        assert_eq!((first.files, first.items, first.parsed), (1, 1, 1));
        assert!(first.problems.is_empty(), "{:?}", first.problems);
        // The same item in a file for another hour: both problems, in path order.
        let other = root.join("content/2021/07/21/0900.md");
        std::fs::create_dir_all(other.parent().unwrap()).unwrap();
        std::fs::write(&other, FILE).unwrap();
        let second = check(root, None, false);
        assert_eq!(second.parsed, 1, "only the new file");
        assert_eq!(second.problems.len(), 2, "{:?}", second.problems);
        assert!(second.problems[0].contains("its hour is"));
        assert!(second.problems[1].contains("is also in content/2021/07/20/0800.md"));
        let third = check(root, None, false);
        assert_eq!(third.parsed, 0);
        assert_eq!(third.problems, second.problems);
        // A new time with the same bytes is read, not parsed; --all parses everything.
        let t = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&other)
            .unwrap()
            .set_modified(t)
            .unwrap();
        assert_eq!(check(root, None, false).parsed, 0);
        assert_eq!(check(root, None, true).parsed, 2);
        // A broken record is rebuilt.
        std::fs::write(record_path(root), b"junk").unwrap();
        let rebuilt = check(root, None, false);
        assert_eq!(rebuilt.parsed, 2);
        assert_eq!(rebuilt.problems, second.problems);
    }

    #[test]
    fn a_file_that_breaks_is_parsed_again_and_named_with_its_line() {
        let dir = site();
        let root = dir.path();
        check(root, None, false);
        let p = root.join("content/2021/07/20/0800.md");
        std::fs::write(&p, "+++\nhour = 1\n+++\n").unwrap();
        let r = check(root, None, false);
        assert_eq!(r.parsed, 1);
        assert_eq!(r.problems.len(), 1);
        assert!(r.problems[0].contains("0800.md:2"), "{:?}", r.problems);
        assert_eq!(check(root, None, false).problems, r.problems);
    }
}
