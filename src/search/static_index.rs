//! The static search index: what the default theme's search page reads on a site with no
//! server (GitHub Pages).
//!
//! Owns the files under `OUTPUT/search/`: one shard per month (`YYYY-MM/`) and a small
//! `manifest.json`. Does not own the search page itself (`themes/default/static/search.js`, which
//! reads these files and must agree with [`normalize`], [`for_each_term`] and the formats below),
//! nor deciding which months a build rewrites (the caller writes the months that changed).
//!
//! ## What is indexed
//!
//! The title and the summary of each item, cut into terms as [`super::terms`] says (what a
//! search matches is defined there, once, for all three search paths): the stems of words, the
//! bigrams of CJK text and the unigrams of kanji (a lone kana is never a query). The item's
//! category is the term `"\u{1}" + category`. A query for 気候変動 looks up 気候, 候変 and 変動 and
//! keeps the items that have all three; the page then checks each clause's terms at their
//! positions in the text it fetches to show an item, so bigrams met apart never show. Every item
//! that matches is a candidate, so recall is complete.
//!
//! ## Files of a month (`search/YYYY-MM/`)
//!
//! Items are numbered from 0 by published time (then archive order), oldest first.
//!
//! - `bXXX.bin` (`XXX`: the bucket number, 3 hex digits): the terms whose [`bucket_of`] is that
//!   bucket, so a query fetches one small file per term. Layout, every integer an unsigned LEB128
//!   varint: a format byte ([`FORMAT`]); the number of terms; per term, sorted by bytes, the length of the
//!   prefix it shares with the previous term, the length and bytes of the rest (UTF-8), its
//!   document count, and `payload_len << 2 | external << 1 | kind`; then the payloads of the
//!   terms that are not external, in order. Kind 0: the item numbers as varint deltas (the first
//!   from 0). Kind 1: a bitmap, the first item number then bytes whose bits (least significant
//!   first) mark items from it on — whichever is shorter, so no list is longer than a month's
//!   items / 8 bytes.
//! - `bXXX-K.bin`: the payload of the bucket's K-th external term (from 0, in term order): a list
//!   longer than [`EXTERNAL_BYTES`] gets a file of its own, so a bucket stays small and a query
//!   fetches a long list only when it needs it. Knowing every term's document count from the
//!   buckets, the page reads lists rarest first and, once few candidates are left, skips the long
//!   lists of words it checks against the text anyway.
//! - `n.json`: the month's names, `{"base": unix s, "sites": […], "categories": […],
//!   "digests": […], "origins": […]}`: the first item's publication time, and the sites,
//!   categories, digest URLs and links' origins (`https://host`), each in the order the month's
//!   items (by number) first name it, so a new hour's items leave the earlier numbers as they
//!   were.
//! - `cN.json`: items `N * chunk ..` (`chunk` = [`CHUNK_DOCS`]) as JSON arrays
//!   `[title, summary, link, site, category, published, digest]`: the site, category and digest
//!   as numbers into `n.json`'s lists, the link `[origin, rest]` (the origin's number, then the
//!   rest of the URL: `/a/1?x=2`) or `""` when the item has none, the publication time in seconds
//!   after `base` (a year's rows repeated these as strings: ~20 MB). What the page shows and what
//!   it checks a candidate against, fetched with the month's `n.json`. An item of a story of several items (issue 24)
//!   has an eighth element, `[items, sites, member…]`: the story's items and distinct sites in the
//!   whole archive, then its members oldest first (at most [`MAX_STORY_MEMBERS`], the first
//!   always), each an item number of this month or `"YYYY-MM:N"` for item N of another month's
//!   shard. The page shows one hit per story (the first member names it) with "+N sources" and
//!   the others; an item alone costs nothing more.
//!
//! The number of buckets grows with the month (about [`TARGET_BUCKET_BYTES`] each, a power of two)
//! and is recorded in the manifest with the month's item count, the first item of each day of
//! publication (`[YYYYMMDD, item]`, in the site's zone, for the date filter) and a version (a hash of every file), which the page adds to its URLs
//! (`?v=`) so a browser or CDN never mixes an old file with a new manifest. Files are written only
//! when their bytes change and the same input gives the same bytes, so a new hour rewrites the
//! current month's files and leaves every past month's untouched. The manifest also lists the
//! categories (the page's filter) and the English stop words (see [`super::terms`]).

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result, bail};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::fsutil;

/// Bumped when a file's layout changes; the page refuses a manifest of another format.
/// 4: rows name their site, category, digest and link's origin by number, their publication
/// time after the month's first (`n.json`).
pub const FORMAT: u32 = 4;
/// Items per document chunk (`cN.json`). A page of results scattered over a month fetches one
/// chunk per result (about 25 KB at 64 items), and a year of hourly items (~400,000) makes
/// 6,000 chunk files: at 16 a chunk it was 25,000, a third of a site GitHub Pages must publish.
pub const CHUNK_DOCS: usize = 64;
/// At most this many members of a story are listed in each of its items' rows (the counts are
/// whole): a row stays small, and a story's rows cost linear in its size times this.
pub const MAX_STORY_MEMBERS: usize = 12;
/// The size a bucket file aims at; a month gets the power of two of buckets that gives it.
pub const TARGET_BUCKET_BYTES: usize = 4 * 1024;
/// A posting list longer than this goes to a file of its own (`bXXX-K.bin`).
pub const EXTERNAL_BYTES: usize = 1024;
const MIN_BUCKETS: usize = 16;
const MAX_BUCKETS: usize = 4096;
/// The file name of a month's names (sites, categories, digests) in its folder.
pub const NAMES_FILE: &str = "n.json";
/// The file name of the manifest under the search folder.
pub const SEARCH_MANIFEST: &str = "manifest.json";
/// The first character of a category term.
pub const CATEGORY_MARK: char = '\u{1}';

/// One archived item as the static search sees it.
#[derive(Debug, Clone, Copy)]
pub struct StaticDoc<'a> {
    pub title: &'a str,
    /// Plain text.
    pub summary: &'a str,
    /// http(s) only, already checked.
    pub link: Option<&'a str>,
    pub site: &'a str,
    pub category: &'a str,
    /// Unix seconds.
    pub published: i64,
    /// Site-relative, e.g. `2021/07/20/0800/`; its date is the item's day for the date filter.
    pub digest_url: &'a str,
    /// For an item of a story of several items: `[items, sites, member…]` (see the module doc),
    /// already relative to the month being written; `None` for an item alone.
    pub story: Option<&'a serde_json::Value>,
}

/// What [`write_month`] wrote: one month's entry in the manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MonthShard {
    /// `YYYY-MM`.
    pub month: String,
    /// Items in the month.
    pub docs: usize,
    /// The month's files, relative to the search folder (`2021-07/b000.bin`).
    pub files: Vec<String>,
    /// Each file's hash and size, as `files` lists them: a build that rewrites some of the
    /// month's chunks ([`write_chunks`]) makes the version and the size from them.
    pub sums: Vec<(u64, u64)>,
    /// Their total size.
    pub bytes: u64,
    /// Bucket files (a power of two).
    pub buckets: usize,
    /// Items per chunk file.
    pub chunk: usize,
    /// `(YYYYMMDD, first item of that day)` for each day (of publication, in the site's zone)
    /// that has items, in order. A shard may hold items published in other months (an item
    /// archived late).
    pub days: Vec<(u32, u32)>,
    /// A hash of every file of the month (16 hex digits).
    pub version: String,
    /// Files whose bytes changed and were written by this call.
    #[serde(default)]
    pub written: usize,
    /// Stale files of the month deleted by this call.
    #[serde(default)]
    pub removed: usize,
}

pub use super::terms::{is_word_char, normalize};

/// Calls `f` with every term of normalised text the static index keeps, in order, repeats
/// included ([`super::terms::for_each_term`] less the unigrams of kana and hangul).
pub fn for_each_term(text: &str, f: &mut impl FnMut(&str)) {
    super::terms::for_each_term(text, &mut |t| {
        if super::terms::is_indexed(&t) {
            f(&t.text)
        }
    });
}

/// The bucket of a term: FNV-1a (32-bit) of its UTF-8 bytes, folded, modulo `buckets` (a power of
/// two). The page computes the same.
pub fn bucket_of(term: &str, buckets: usize) -> usize {
    let mut h: u32 = 0x811c_9dc5;
    for &b in term.as_bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    ((h ^ (h >> 16)) as usize) & (buckets - 1)
}

/// Appends `v` as an unsigned LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a varint at `*pos`, advancing it; `None` at the end of the bytes or on an overlong one.
pub fn get_varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v: u64 = 0;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// A posting list (ascending item numbers) encoded the shorter way: `(kind, payload)`.
pub fn encode_postings(docs: &[u32]) -> (u8, Vec<u8>) {
    let mut deltas = Vec::with_capacity(docs.len() + 4);
    let mut prev = 0u32;
    for (i, &d) in docs.iter().enumerate() {
        put_varint(&mut deltas, u64::from(if i == 0 { d } else { d - prev }));
        prev = d;
    }
    let (Some(&first), Some(&last)) = (docs.first(), docs.last()) else {
        return (0, deltas);
    };
    let span = (last - first) as usize + 1;
    let mut head = Vec::new();
    put_varint(&mut head, u64::from(first));
    if head.len() + span.div_ceil(8) >= deltas.len() {
        return (0, deltas);
    }
    let mut bitmap = head;
    let base = bitmap.len();
    bitmap.resize(base + span.div_ceil(8), 0);
    for &d in docs {
        let k = (d - first) as usize;
        bitmap[base + k / 8] |= 1 << (k % 8);
    }
    (1, bitmap)
}

/// Decodes what [`encode_postings`] wrote (`df` item numbers).
pub fn decode_postings(kind: u8, payload: &[u8], df: usize) -> Option<Vec<u32>> {
    let mut pos = 0;
    let mut out = Vec::with_capacity(df);
    if kind == 0 {
        let mut prev = 0u64;
        for i in 0..df {
            let v = get_varint(payload, &mut pos)?;
            prev = if i == 0 { v } else { prev + v };
            out.push(u32::try_from(prev).ok()?);
        }
    } else {
        let first = get_varint(payload, &mut pos)?;
        for (k, &byte) in payload[pos..].iter().enumerate() {
            for bit in 0..8 {
                if byte & (1 << bit) != 0 {
                    out.push(u32::try_from(first + (k * 8 + bit) as u64).ok()?);
                }
            }
        }
    }
    (out.len() == df).then_some(out)
}

/// One term of a bucket file, decoded (tests and tools; the page has its own reader).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketTerm {
    pub term: String,
    pub docs: Vec<u32>,
    /// K of the `bXXX-K.bin` file its list is in, when it is external.
    pub external: Option<usize>,
}

/// Reads a bucket file; `external(K)` gives the bytes of its `bXXX-K.bin`.
pub fn read_bucket(
    bytes: &[u8],
    mut external: impl FnMut(usize) -> Result<Vec<u8>>,
) -> Result<Vec<BucketTerm>> {
    let bad = || anyhow::anyhow!("not a search bucket file (format {FORMAT})");
    if bytes.first() != Some(&(FORMAT as u8)) {
        return Err(bad());
    }
    let mut pos = 1;
    let n = get_varint(bytes, &mut pos).ok_or_else(bad)? as usize;
    let mut heads = Vec::with_capacity(n.min(1 << 20));
    let mut prev: Vec<u8> = Vec::new();
    for _ in 0..n {
        let shared = get_varint(bytes, &mut pos).ok_or_else(bad)? as usize;
        let len = get_varint(bytes, &mut pos).ok_or_else(bad)? as usize;
        let rest = bytes.get(pos..pos + len).ok_or_else(bad)?;
        pos += len;
        let mut term = prev.get(..shared).ok_or_else(bad)?.to_vec();
        term.extend_from_slice(rest);
        let df = get_varint(bytes, &mut pos).ok_or_else(bad)? as usize;
        let pl = get_varint(bytes, &mut pos).ok_or_else(bad)?;
        heads.push((term.clone(), df, pl));
        prev = term;
    }
    let mut out = Vec::with_capacity(heads.len());
    let mut k = 0;
    for (term, df, pl) in heads {
        let (kind, len) = ((pl & 1) as u8, (pl >> 2) as usize);
        let (payload, ext) = if pl & 2 != 0 {
            k += 1;
            (external(k - 1)?, Some(k - 1))
        } else {
            let p = bytes.get(pos..pos + len).ok_or_else(bad)?.to_vec();
            pos += len;
            (p, None)
        };
        if payload.len() != len {
            return Err(bad());
        }
        out.push(BucketTerm {
            term: String::from_utf8(term).map_err(|_| bad())?,
            docs: decode_postings(kind, &payload, df).ok_or_else(bad)?,
            external: ext,
        });
    }
    Ok(out)
}

pub(crate) fn check_month(month: &str) -> Result<()> {
    let b = month.as_bytes();
    let ok = b.len() == 7
        && b[4] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || c.is_ascii_digit())
        && (1..=12).contains(&month[5..].parse::<u32>().unwrap_or(0));
    if !ok {
        bail!("search index: month {month:?} is not YYYY-MM");
    }
    Ok(())
}

/// The day an item was published, in the site's zone, as `YYYYMMDD`.
fn day_key(published: i64, tz: chrono_tz::Tz) -> u32 {
    use chrono::{Datelike, TimeZone};
    match tz.timestamp_opt(published, 0).single() {
        Some(t) => t.year().clamp(0, 9999) as u32 * 10_000 + t.month() * 100 + t.day(),
        None => 0,
    }
}

/// The index terms of one item, deduplicated, into `seen` (cleared first).
fn doc_terms(doc: &StaticDoc, seen: &mut Vec<String>) {
    seen.clear();
    for field in [doc.title, doc.summary] {
        let text = normalize(field);
        for_each_term(&text, &mut |t| seen.push(t.to_string()));
    }
    seen.push(format!("{CATEGORY_MARK}{}", doc.category));
    seen.sort_unstable();
    seen.dedup();
}

/// A file's name (relative to its month's folder) and bytes.
type File = (String, Vec<u8>);

/// Every file of a month's shard, and the number of buckets.
fn month_files(docs: &[StaticDoc]) -> Result<(Vec<File>, usize)> {
    // Postings: term → ascending item numbers.
    let mut postings: FxHashMap<String, Vec<u32>> = FxHashMap::default();
    let mut terms = Vec::new();
    for (n, doc) in docs.iter().enumerate() {
        let n = u32::try_from(n).context("search index: too many items in a month")?;
        doc_terms(doc, &mut terms);
        for t in terms.drain(..) {
            postings.entry(t).or_default().push(n);
        }
    }
    let mut encoded: Vec<(String, usize, u8, Vec<u8>)> = postings
        .into_iter()
        .map(|(term, docs)| {
            let (kind, payload) = encode_postings(&docs);
            (term, docs.len(), kind, payload)
        })
        .collect();
    encoded.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let inline: usize = encoded
        .iter()
        .map(|e| {
            e.0.len()
                + 4
                + if e.3.len() > EXTERNAL_BYTES {
                    0
                } else {
                    e.3.len()
                }
        })
        .sum();
    let buckets = inline
        .div_ceil(TARGET_BUCKET_BYTES)
        .next_power_of_two()
        .clamp(MIN_BUCKETS, MAX_BUCKETS);
    let mut by_bucket: Vec<Vec<usize>> = vec![Vec::new(); buckets];
    for (i, e) in encoded.iter().enumerate() {
        by_bucket[bucket_of(&e.0, buckets)].push(i);
    }
    let mut files = Vec::with_capacity(buckets + docs.len() / CHUNK_DOCS + 1);
    for (b, members) in by_bucket.iter().enumerate() {
        let mut out = vec![FORMAT as u8];
        put_varint(&mut out, members.len() as u64);
        let mut prev: &[u8] = &[];
        let mut external = 0;
        for &i in members {
            let (term, df, kind, payload) = &encoded[i];
            let t = term.as_bytes();
            let shared = prev.iter().zip(t).take_while(|(a, b)| a == b).count();
            put_varint(&mut out, shared as u64);
            put_varint(&mut out, (t.len() - shared) as u64);
            out.extend_from_slice(&t[shared..]);
            put_varint(&mut out, *df as u64);
            let ext = payload.len() > EXTERNAL_BYTES;
            put_varint(
                &mut out,
                ((payload.len() as u64) << 2) | (u64::from(ext) << 1) | u64::from(*kind),
            );
            if ext {
                files.push((format!("b{b:03x}-{external}.bin"), payload.clone()));
                external += 1;
            }
            prev = t;
        }
        for &i in members {
            if encoded[i].3.len() <= EXTERNAL_BYTES {
                out.extend_from_slice(&encoded[i].3);
            }
        }
        files.push((format!("b{b:03x}.bin"), out));
    }
    let (names, ids) = ShardNames::of(docs);
    files.push((NAMES_FILE.to_string(), names.to_json()?));
    for (k, chunk) in docs.chunks(CHUNK_DOCS).enumerate() {
        let at = k * CHUNK_DOCS;
        files.push((
            chunk_name(k),
            chunk_bytes(chunk, &ids[at..at + chunk.len()])?,
        ));
    }
    Ok((files, buckets))
}

/// A month's names as its rows number them: each site, category, digest URL and link origin
/// once, in the order the month's items (by number) first name it, and the first item's time.
#[derive(Default)]
struct ShardNames<'a> {
    base: i64,
    sites: Numbering<'a>,
    categories: Numbering<'a>,
    digests: Numbering<'a>,
    origins: Numbering<'a>,
}

#[derive(Default)]
struct Numbering<'a> {
    names: Vec<&'a str>,
    at: FxHashMap<&'a str, u32>,
}

impl<'a> Numbering<'a> {
    fn number(&mut self, name: &'a str) -> u32 {
        *self.at.entry(name).or_insert_with(|| {
            self.names.push(name);
            (self.names.len() - 1) as u32
        })
    }
}

/// A link's origin (`https://host`, up to the path) and the rest (`/a/1?x=2`, maybe empty).
fn split_origin(link: &str) -> Option<(&str, &str)> {
    let host = link.find("://")? + 3;
    let end = link[host..]
        .find(['/', '?', '#'])
        .map_or(link.len(), |k| host + k);
    Some(link.split_at(end))
}

/// What a row says of an item beside its title, summary and story: its numbers in the month's
/// names and its time after the month's base.
struct RowIds<'a> {
    site: u32,
    category: u32,
    digest: u32,
    /// The link's origin's number and the rest of it.
    link: Option<(u32, &'a str)>,
    published: i64,
}

impl<'a> ShardNames<'a> {
    /// The names of `docs` (in the shard's order) and what each doc's row says by them.
    fn of(docs: &[StaticDoc<'a>]) -> (ShardNames<'a>, Vec<RowIds<'a>>) {
        let mut names = ShardNames {
            base: docs.first().map_or(0, |d| d.published),
            ..ShardNames::default()
        };
        let ids = docs
            .iter()
            .map(|d| RowIds {
                site: names.sites.number(d.site),
                category: names.categories.number(d.category),
                digest: names.digests.number(d.digest_url),
                link: d
                    .link
                    .and_then(split_origin)
                    .map(|(origin, rest)| (names.origins.number(origin), rest)),
                published: d.published - names.base,
            })
            .collect();
        (names, ids)
    }

    fn to_json(&self) -> Result<Vec<u8>> {
        let mut bytes = serde_json::to_vec(&serde_json::json!({
            "base": self.base,
            "sites": self.sites.names,
            "categories": self.categories.names,
            "digests": self.digests.names,
            "origins": self.origins.names,
        }))?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

/// The name of chunk `k`'s file in its month's folder.
fn chunk_name(k: usize) -> String {
    format!("c{k}.json")
}

/// A chunk file: its docs' rows, `ids` what they say by the month's names.
fn chunk_bytes(docs: &[StaticDoc], ids: &[RowIds]) -> Result<Vec<u8>> {
    let rows: Vec<serde_json::Value> = docs
        .iter()
        .zip(ids)
        .map(|(d, ids)| {
            let link = match ids.link {
                Some((origin, rest)) => serde_json::json!([origin, rest]),
                None => serde_json::json!(""),
            };
            let mut row = serde_json::json!([
                d.title,
                d.summary,
                link,
                ids.site,
                ids.category,
                ids.published,
                ids.digest
            ]);
            if let (Some(story), Some(row)) = (d.story, row.as_array_mut()) {
                row.push(story.clone());
            }
            row
        })
        .collect();
    let mut bytes = serde_json::to_vec(&rows)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// A month's version: a hash of each file's name (in its folder) and hash, in order.
fn version_of<'a>(
    names: impl Iterator<Item = &'a str>,
    hashes: impl Iterator<Item = u64>,
) -> String {
    let mut version = Vec::new();
    for (name, hash) in names.zip(hashes) {
        version.extend_from_slice(name.as_bytes());
        version.push(0);
        version.extend_from_slice(&hash.to_le_bytes());
    }
    format!("{:016x}", crate::hash::fnv1a(&version))
}

/// Whether `name` is a file name this module writes in a month's folder: a bucket (`b01f.bin`),
/// a long posting list of its own (`b01f-2.bin`), the month's names (`n.json`) or a chunk of
/// items (`c3.json`).
pub(crate) fn is_shard_data_file(name: &str) -> bool {
    !name.starts_with(crate::layout::TEMP_PREFIX) && is_shard_file(name)
}

/// Whether a file in a month's folder is one this module writes (or a temporary file of ours).
fn is_shard_file(name: &str) -> bool {
    let stem_ok = |s: &str, hex: bool| {
        !s.is_empty()
            && s.chars().all(|c| {
                if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
            })
    };
    name.strip_prefix('b')
        .and_then(|s| s.strip_suffix(".bin"))
        .is_some_and(|s| match s.split_once('-') {
            Some((b, k)) => stem_ok(b, true) && stem_ok(k, false),
            None => stem_ok(s, true),
        })
        || name
            .strip_prefix('c')
            .and_then(|s| s.strip_suffix(".json"))
            .is_some_and(|s| stem_ok(s, false))
        || name == NAMES_FILE
        || (name.starts_with(crate::layout::TEMP_PREFIX) && name.ends_with(".tmp"))
}

/// How a month's shard numbers its items, given each one's publication time (unix seconds) in
/// archive order: `order[n]` is the archive-order position of item number `n`, by published
/// time, then archive order. The one statement of it: [`write_month`] numbers the shard's items
/// so, and the stories' rows name their members by these numbers
/// (`search::site_index`'s stories).
pub fn shard_order(published: &[i64]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..published.len() as u32).collect();
    // Unique keys: an unstable sort gives the one order.
    order.sort_unstable_by_key(|&k| (published[k as usize], k));
    order
}

/// Writes one month's shard into `dir` (= `OUTPUT/search`): `docs` in archive order (oldest
/// first); the shard numbers them by published time (then archive order), so the page, reading
/// item numbers backwards, shows the newest first, and a day (in `tz`, the site's zone) is a
/// range of items. Writes only files whose bytes change and deletes the month's stale files (a
/// month with no items loses its folder). Returns what it wrote, for [`write_manifest`].
pub fn write_month(
    dir: &Path,
    month: &str,
    docs: &[StaticDoc],
    tz: chrono_tz::Tz,
) -> Result<MonthShard> {
    check_month(month)?;
    let published: Vec<i64> = docs.iter().map(|d| d.published).collect();
    let sorted: Vec<StaticDoc> = shard_order(&published)
        .into_iter()
        .map(|k| docs[k as usize])
        .collect();
    let docs = &sorted[..];
    let month_dir = dir.join(month);
    let (files, buckets) = if docs.is_empty() {
        (Vec::new(), 0)
    } else {
        month_files(docs)?
    };
    let mut written = 0;
    let mut sums = Vec::with_capacity(files.len());
    for (name, data) in &files {
        if fsutil::write_if_changed(&month_dir.join(name), data)? {
            written += 1;
        }
        sums.push((crate::hash::fnv1a(data), data.len() as u64));
    }
    let live: BTreeSet<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let mut removed = 0;
    match std::fs::read_dir(&month_dir) {
        Ok(entries) => {
            for e in entries {
                let e = e.with_context(|| format!("listing {}", month_dir.display()))?;
                let name = e.file_name().to_string_lossy().into_owned();
                if is_shard_file(&name) && !live.contains(name.as_str()) {
                    std::fs::remove_file(e.path())
                        .with_context(|| format!("removing {}", e.path().display()))?;
                    removed += 1;
                }
            }
            if files.is_empty() {
                let _ = std::fs::remove_dir(&month_dir);
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("listing {}", month_dir.display())),
    }
    // The first item of each day of publication (items are in published order).
    let mut days: Vec<(u32, u32)> = Vec::new();
    for (n, doc) in docs.iter().enumerate() {
        let d = day_key(doc.published, tz);
        if days.last().is_none_or(|&(last, _)| d > last) {
            days.push((d, n as u32));
        }
    }
    Ok(MonthShard {
        month: month.to_string(),
        docs: docs.len(),
        files: files.iter().map(|(n, _)| format!("{month}/{n}")).collect(),
        bytes: sums.iter().map(|s| s.1).sum(),
        version: version_of(
            files.iter().map(|(n, _)| n.as_str()),
            sums.iter().map(|s| s.0),
        ),
        sums,
        buckets,
        chunk: CHUNK_DOCS,
        days,
        written,
        removed,
    })
}

/// Rewrites only the chunk files `only` (chunk numbers) of a month `old` describes, whose items
/// are the same (its content did not change, only some of its rows' stories): `docs` as for
/// [`write_month`], but of the items outside `only`'s chunks only the site, category, digest
/// URL, link and time are read (they make the month's names). The buckets and names stay as they are, and the
/// files come out as [`write_month`] would write them. `None` when `old` does not fit `docs`
/// (another count of items, a chunk it does not list, no sums): then write the whole month.
pub fn write_chunks(
    dir: &Path,
    month: &str,
    docs: &[StaticDoc],
    only: &BTreeSet<usize>,
    old: &MonthShard,
) -> Result<Option<MonthShard>> {
    check_month(month)?;
    if old.month != month
        || old.docs != docs.len()
        || old.chunk != CHUNK_DOCS
        || old.sums.len() != old.files.len()
    {
        return Ok(None);
    }
    let published: Vec<i64> = docs.iter().map(|d| d.published).collect();
    let sorted: Vec<StaticDoc> = shard_order(&published)
        .into_iter()
        .map(|k| docs[k as usize])
        .collect();
    let (_, ids) = ShardNames::of(&sorted);
    let mut shard = old.clone();
    shard.written = 0;
    shard.removed = 0;
    let prefix = format!("{month}/");
    for &k in only {
        let name = chunk_name(k);
        let Some(at) = shard
            .files
            .iter()
            .position(|f| f.strip_prefix(&prefix) == Some(name.as_str()))
        else {
            return Ok(None);
        };
        let start = k * CHUNK_DOCS;
        let end = (start + CHUNK_DOCS).min(sorted.len());
        let data = chunk_bytes(&sorted[start..end], &ids[start..end])?;
        if fsutil::write_if_changed(&dir.join(month).join(&name), &data)? {
            shard.written += 1;
        }
        shard.sums[at] = (crate::hash::fnv1a(&data), data.len() as u64);
    }
    shard.bytes = shard.sums.iter().map(|s| s.1).sum();
    shard.version = version_of(
        shard
            .files
            .iter()
            .map(|f| f.strip_prefix(&prefix).unwrap_or(f)),
        shard.sums.iter().map(|s| s.0),
    );
    Ok(Some(shard))
}

#[derive(Serialize)]
struct Manifest<'a> {
    format: u32,
    /// Newest first.
    months: Vec<ManifestMonth<'a>>,
    categories: &'a [&'a str],
    /// The English stop words (a clause of only these has nothing to look for).
    stop: &'static [String],
}

#[derive(Serialize)]
struct ManifestMonth<'a> {
    month: &'a str,
    docs: usize,
    buckets: usize,
    chunk: usize,
    days: &'a [(u32, u32)],
    v: &'a str,
}

/// Writes `search/manifest.json`: the months that have items, newest first, and the categories
/// (for the page's filter, in the order given). Written only when its bytes change. Returns its
/// size in bytes.
pub fn write_manifest(dir: &Path, months: &[MonthShard], categories: &[&str]) -> Result<u64> {
    let mut list: Vec<&MonthShard> = months.iter().filter(|m| m.docs > 0).collect();
    list.sort_by(|a, b| b.month.cmp(&a.month));
    list.dedup_by(|a, b| a.month == b.month);
    let manifest = Manifest {
        format: FORMAT,
        months: list
            .iter()
            .map(|m| ManifestMonth {
                month: &m.month,
                docs: m.docs,
                buckets: m.buckets,
                chunk: m.chunk,
                days: &m.days,
                v: &m.version,
            })
            .collect(),
        categories,
        stop: super::terms::stop_words(),
    };
    let mut bytes = serde_json::to_vec(&manifest)?;
    bytes.push(b'\n');
    fsutil::write_if_changed(&dir.join(SEARCH_MANIFEST), &bytes)?;
    Ok(bytes.len() as u64)
}

#[cfg(test)]
mod tests;
