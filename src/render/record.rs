//! The build record of one output folder (`.matome/build/<output key>`): each output file's
//! fingerprint and size, the static files copied, the static search's months and the base URL
//! the pages were built for. It is a cache and trusted no further than that: sealed (one that
//! does not verify, or of another version, is an empty record: a full build), and a path read
//! from it is deleted only when it stays inside the output folder ([`confined`]).

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::fsutil;
pub use crate::fsutil::confined;
pub use crate::search::site_index::SearchMonths;

/// 5: each page's size beside its fingerprint.
/// 6: a page's record a [`PageRecord`] (its size unknown only in a record read from version 4).
/// 7: each static search month's stories per chunk and its files' sums
/// ([`crate::search::site_index::SearchMonth`]).
pub(super) const STATE_VERSION: u32 = 7;

/// What the record holds of one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct PageRecord {
    /// The page's fingerprint: what it was rendered from.
    pub(super) fingerprint: u64,
    /// The bytes written; `None` in a record that does not know it (the page is rendered again).
    pub(super) size: Option<u64>,
}

/// The last build's record for one output folder.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct BuildState {
    pub(super) version: u32,
    /// The base URL the pages were built for (what `matome check` resolves links against).
    pub(super) base_url: String,
    /// Output path → its fingerprint and size: the size line adds the bytes up instead of
    /// walking the output folder.
    pub(super) pages: FxHashMap<String, PageRecord>,
    /// Static files copied.
    pub(super) statics: Vec<String>,
    /// The static search index: each month's fingerprint and what was written for it.
    pub(super) search_months: SearchMonths,
}

pub(super) fn state_path(root: &Path, output: &Path) -> PathBuf {
    crate::layout::build_record(root, output)
}

/// The last build's record, if it verifies: its checksum (a hash of the body, appended when it
/// was saved) matches and it is of this version. Anything else (missing, cut short, corrupted,
/// of another version) is an empty record: a full build. The record is still not trusted for
/// paths: every path read from it goes through [`confined`] before anything is deleted.
pub(super) fn load_state(path: &Path) -> BuildState {
    let Ok(bytes) = std::fs::read(path) else {
        return BuildState::default();
    };
    fsutil::from_sealed::<BuildState>(&bytes)
        .filter(|s| s.version == STATE_VERSION)
        .or_else(|| state_v6(&bytes))
        .or_else(|| state_v5(&bytes))
        .or_else(|| legacy_state(&bytes))
        .unwrap_or_default()
}

/// A static search month as records before version 7 kept it.
#[derive(Deserialize)]
struct MonthV6 {
    month: String,
    docs: usize,
    files: Vec<String>,
    bytes: u64,
    buckets: usize,
    chunk: usize,
    days: Vec<(u32, u32)>,
    version: String,
    written: usize,
    removed: usize,
}

type SearchMonthsV6 = std::collections::BTreeMap<String, (u64, MonthV6)>;

/// The months of an older record, each to be written again (no fingerprint matches 0 but by
/// chance, and without sums no chunk is rewritten alone): their names say which folders are the
/// index's, so a month gone from the archive still loses its folder.
fn months_v6(old: SearchMonthsV6) -> SearchMonths {
    old.into_iter()
        .map(|(name, (_, m))| {
            let shard = crate::search::static_index::MonthShard {
                month: m.month,
                docs: m.docs,
                files: m.files,
                sums: Vec::new(),
                bytes: m.bytes,
                buckets: m.buckets,
                chunk: m.chunk,
                days: m.days,
                version: m.version,
                written: m.written,
                removed: m.removed,
            };
            let month = crate::search::site_index::SearchMonth {
                fp: 0,
                stories: Vec::new(),
                shard,
            };
            (name, month)
        })
        .collect()
}

/// A record of version 6 (the static search's months without stories per chunk): its pages
/// as they are, its months to be written again.
fn state_v6(bytes: &[u8]) -> Option<BuildState> {
    #[derive(Deserialize)]
    struct V6 {
        version: u32,
        base_url: String,
        pages: FxHashMap<String, PageRecord>,
        statics: Vec<String>,
        search_months: SearchMonthsV6,
    }
    let v6: V6 = fsutil::from_sealed(bytes)?;
    (v6.version == 6).then(|| BuildState {
        version: v6.version,
        base_url: v6.base_url,
        pages: v6.pages,
        statics: v6.statics,
        search_months: months_v6(v6.search_months),
    })
}

/// A record of version 5 (each page's fingerprint and size as a pair): what it says, read once
/// after an upgrade so that the next build renders nothing more than it would have. An older
/// record keeps its version here, so the build saves it in this one.
fn state_v5(bytes: &[u8]) -> Option<BuildState> {
    #[derive(Deserialize)]
    struct V5 {
        version: u32,
        base_url: String,
        pages: FxHashMap<String, (u64, u64)>,
        statics: Vec<String>,
        search_months: SearchMonthsV6,
    }
    let v5: V5 = fsutil::from_sealed(bytes)?;
    (v5.version == 5).then(|| BuildState {
        version: v5.version,
        base_url: v5.base_url,
        pages: v5
            .pages
            .into_iter()
            .map(|(p, (fingerprint, size))| {
                let size = Some(size);
                (p, PageRecord { fingerprint, size })
            })
            .collect(),
        statics: v5.statics,
        search_months: months_v6(v5.search_months),
    })
}

/// A record of version 4 (no page sizes; sealed with 8 bytes of FNV-1a), read once after an
/// upgrade so that the pages it lists which the site no longer has are still deleted (an empty
/// record would leave them in the output folder, uncounted); every other page is rendered again.
fn legacy_state(bytes: &[u8]) -> Option<BuildState> {
    #[derive(Deserialize)]
    struct V4 {
        version: u32,
        base_url: String,
        pages: FxHashMap<String, u64>,
        statics: Vec<String>,
        search_months: SearchMonthsV6,
    }
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    if crate::hash::fnv1a(body).to_le_bytes() != sum {
        return None;
    }
    let v4: V4 = postcard::from_bytes(body).ok()?;
    (v4.version == 4).then(|| BuildState {
        version: v4.version,
        base_url: v4.base_url,
        pages: v4
            .pages
            .into_iter()
            .map(|(p, fingerprint)| {
                let size = None;
                (p, PageRecord { fingerprint, size })
            })
            .collect(),
        statics: v4.statics,
        search_months: months_v6(v4.search_months),
    })
}
