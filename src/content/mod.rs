//! Snapshot files under `content/` and the archive they make up.
//!
//! Owns the on-disk format of `content/YYYY/MM/DD/HHMM.md` (TOML front matter between `+++`
//! lines, one `[[items]]` block per item in a fixed key order, then an optional Markdown body),
//! parsing it with errors that name the path and line, writing it atomically, and loading the
//! whole archive. It does not fetch or analyse anything.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use chrono::{DateTime, Datelike, FixedOffset, Timelike};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::fsutil;

pub mod archive;
pub mod derived;
pub mod keys;
pub use keys::{ArchiveKeys, load_keys};

/// The content folder's name at the site root.
pub const CONTENT_DIR: &str = "content";

/// One archived feed item.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item {
    /// Stable per feed: the GUID, else the link, else a hash of title and content.
    pub id: String,
    /// The URL of the feed it came from (as configured).
    pub feed: String,
    pub category: String,
    pub site: String,
    pub title: String,
    /// The article's URL (http(s) only; empty when the feed gave none).
    #[serde(default)]
    pub link: String,
    #[serde(deserialize_with = "de_datetime")]
    pub published: DateTime<FixedOffset>,
    /// 頻出ワード: the item's top words.
    #[serde(default)]
    pub keywords: Vec<String>,
    #[serde(default)]
    pub summary: String,
    /// Plain text of the feed's description, bounded in length.
    #[serde(default)]
    pub text: String,
    /// For the items of a trends feed (`kind = "trends"`): the search volume and news links.
    #[serde(default)]
    pub trend: Option<Trend>,
    /// The story the item belongs to: the key ([`ItemKey::hex`]) of the story's first item,
    /// decided when the item was archived. Empty in snapshots written before stories: such an
    /// item is its own story ([`Item::story_id`]).
    #[serde(default)]
    pub story: String,
}

/// What a trends feed (Google Trends' RSS) says of a trend word beyond an ordinary item.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trend {
    /// The approximate search volume (`ht:approx_traffic` "20,000+" → 20000), if given; at most
    /// [`MAX_VOLUME`], TOML's largest integer.
    #[serde(default, deserialize_with = "de_volume")]
    pub volume: Option<u64>,
    /// A picture of the trend (`ht:picture`), http(s) only.
    #[serde(default)]
    pub picture: String,
    /// The news articles the trend links to (`ht:news_item`).
    #[serde(default)]
    pub news: Vec<NewsLink>,
}

/// The largest volume a snapshot holds: TOML integers are 64-bit signed, and TOML 1.0 requires a
/// reader to refuse one that does not fit, so larger volumes are clamped to this when read from a
/// feed and when written.
pub const MAX_VOLUME: u64 = i64::MAX as u64;

/// A volume as TOML holds it: a whole number from 0 to [`MAX_VOLUME`]; anything else (such as
/// `18446744073709551615`, which older versions wrote) is an error, as TOML 1.0 requires.
fn de_volume<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    match Option::<i64>::deserialize(d) {
        Ok(Some(v)) => u64::try_from(v).map(Some).map_err(|_| {
            serde::de::Error::custom(format!("a trend volume is not negative, not {v}"))
        }),
        Ok(None) => Ok(None),
        Err(e) => Err(serde::de::Error::custom(format!(
            "a trend volume is a whole number from 0 to {MAX_VOLUME} (TOML's integer range): {e}"
        ))),
    }
}

/// One news article of a trend.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewsLink {
    pub title: String,
    pub url: String,
    #[serde(default)]
    pub source: String,
}

impl Item {
    /// The key that makes an item "already archived": the feed and the item's id.
    pub fn key(&self) -> ItemKey {
        ItemKey::new(&self.feed, &self.id)
    }

    /// The ID of the item's story: the recorded one, else its own key (alone, it is its own
    /// story).
    pub fn story_id(&self) -> std::borrow::Cow<'_, str> {
        if self.story.is_empty() {
            std::borrow::Cow::Owned(self.key().hex())
        } else {
            std::borrow::Cow::Borrowed(&self.story)
        }
    }
}

/// (feed URL, item id): an item is archived once per feed.
///
/// Kept as the first 128 bits of the SHA-256 of `feed U+001F id`, not the strings: a fetch holds
/// the key of every archived item (1.2 M at three years of ~45 items an hour), and the strings
/// were ~100 MB on disk in `.matome/keys.bin` and several times that in memory. Two different
/// items share a key with a probability of about n / 2¹²⁸ per new item (10⁻³² at a million),
/// far below a disk's error rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ItemKey([u8; 16]);

impl ItemKey {
    pub fn new(feed: &str, id: &str) -> ItemKey {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(feed.as_bytes());
        h.update([0x1f]);
        h.update(id.as_bytes());
        let digest = h.finalize();
        let mut key = [0; 16];
        key.copy_from_slice(&digest[..16]);
        ItemKey(key)
    }

    /// The key as 32 lower-case hex digits: a story's ID in snapshots and pages.
    pub fn hex(&self) -> String {
        crate::hash::hex(&self.0)
    }

    /// The key [`ItemKey::hex`] wrote: 32 lower-case hex digits, else `None`.
    pub fn from_hex(hex: &str) -> Option<ItemKey> {
        let b = hex.as_bytes();
        let nibble = |c: u8| match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        };
        if b.len() != 32 {
            return None;
        }
        let mut key = [0u8; 16];
        for (i, k) in key.iter_mut().enumerate() {
            *k = nibble(b[2 * i])? << 4 | nibble(b[2 * i + 1])?;
        }
        Some(ItemKey(key))
    }
}

/// One snapshot file: a digest of the items one hour's runs found.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The hour this digest is for (site zone, floored to the hour).
    pub hour: DateTime<FixedOffset>,
    /// The time of the last run that added to it.
    pub updated: DateTime<FixedOffset>,
    pub items: Vec<Item>,
    /// The curator's Markdown, kept as written.
    pub body: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    #[serde(deserialize_with = "de_datetime")]
    hour: DateTime<FixedOffset>,
    #[serde(deserialize_with = "de_datetime")]
    updated: DateTime<FixedOffset>,
    #[serde(default)]
    items: Vec<Item>,
}

fn de_datetime<'de, D: serde::Deserializer<'de>>(d: D) -> Result<DateTime<FixedOffset>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Toml(toml::value::Datetime),
        Text(String),
    }
    let text = match Either::deserialize(d)? {
        Either::Toml(dt) => dt.to_string(),
        Either::Text(s) => s,
    };
    DateTime::parse_from_rfc3339(&text).map_err(|e| {
        serde::de::Error::custom(format!(
            "`{text}` is not an RFC 3339 date-time with an offset, such as 2021-07-20T08:00:00+09:00 ({e})"
        ))
    })
}

/// An error in a content file, with its position.
#[derive(Debug, thiserror::Error)]
#[error("{path}:{line}: {message}")]
pub struct ContentError {
    pub path: String,
    pub line: usize,
    pub message: String,
}

/// Where the front matter of a snapshot's text (without its byte order mark) lies: its start,
/// its end and the body's start; else the line and what is wrong.
pub(crate) fn front_matter(text: &str) -> Result<(usize, usize, usize), (usize, &'static str)> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "+++" {
        return Err((
            1,
            "a snapshot starts with a `+++` line, then TOML front matter, then `+++`",
        ));
    }
    let mut offset = first.len();
    for line in lines {
        if line.trim_end() == "+++" {
            return Ok((first.len(), offset, offset + line.len()));
        }
        offset += line.len();
    }
    Err((
        crate::text::line_of(text, text.len().saturating_sub(1)),
        "the front matter never ends: did you forget the closing `+++`?",
    ))
}

impl Snapshot {
    /// Parses a snapshot file's text; `path` is used in errors. Counted ([`derived::parses`]):
    /// what the derived layer holds is read from it, not parsed again.
    pub fn parse(text: &str, path: &str) -> Result<Snapshot, ContentError> {
        derived::count_parse();
        let err = |line: usize, message: String| ContentError {
            path: path.to_string(),
            line,
            message,
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let (fm_start, fm_end, body_start) =
            front_matter(text).map_err(|(line, m)| err(line, m.into()))?;
        let fm = &text[fm_start..fm_end];
        let parsed: FrontMatter = toml::from_str(fm).map_err(|e| {
            let line = e
                .span()
                .map(|s| crate::text::line_of(text, fm_start + s.start))
                .unwrap_or(1);
            err(line, e.message().trim().to_string())
        })?;
        Ok(Snapshot {
            hour: parsed.hour,
            updated: parsed.updated,
            items: parsed.items,
            body: text[body_start..].to_string(),
        })
    }

    /// Reads and parses one snapshot file.
    pub fn load(path: &Path) -> Result<Snapshot> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading snapshot {}", path.display()))?;
        Ok(Snapshot::parse(&text, &path.display().to_string())?)
    }

    /// The file's text: stable key order, one block per item, the body kept as it was.
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(256 + self.items.len() * 512);
        out.push_str("+++\n");
        let _ = writeln!(out, "hour = {}", rfc3339(&self.hour));
        let _ = writeln!(out, "updated = {}", rfc3339(&self.updated));
        for item in &self.items {
            out.push_str("\n[[items]]\n");
            kv(&mut out, "id", &item.id);
            kv(&mut out, "feed", &item.feed);
            kv(&mut out, "category", &item.category);
            kv(&mut out, "site", &item.site);
            kv(&mut out, "title", &item.title);
            kv(&mut out, "link", &item.link);
            let _ = writeln!(out, "published = {}", rfc3339(&item.published));
            out.push_str("keywords = [");
            for (i, k) in item.keywords.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                toml_string(&mut out, k);
            }
            out.push_str("]\n");
            if !item.story.is_empty() {
                kv(&mut out, "story", &item.story);
            }
            kv(&mut out, "summary", &item.summary);
            kv(&mut out, "text", &item.text);
            if let Some(t) = &item.trend {
                // One inline table, news links one per line of the array.
                out.push_str("trend = { ");
                if let Some(v) = t.volume {
                    let _ = write!(out, "volume = {}, ", v.min(MAX_VOLUME));
                }
                out.push_str("picture = ");
                toml_string(&mut out, &t.picture);
                out.push_str(", news = [");
                for (i, n) in t.news.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str("{ title = ");
                    toml_string(&mut out, &n.title);
                    out.push_str(", url = ");
                    toml_string(&mut out, &n.url);
                    out.push_str(", source = ");
                    toml_string(&mut out, &n.source);
                    out.push_str(" }");
                }
                out.push_str("] }\n");
            }
        }
        out.push_str("+++\n");
        out.push_str(&self.body);
        out
    }

    /// Writes the snapshot atomically (temp file, fsync, rename).
    pub fn write(&self, path: &Path) -> Result<()> {
        fsutil::write_atomic(path, self.to_text().as_bytes())
    }
}

fn kv(out: &mut String, key: &str, value: &str) {
    out.push_str(key);
    out.push_str(" = ");
    toml_string(out, value);
    out.push('\n');
}

/// Appends `s` as a TOML basic string.
pub(crate) fn toml_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// RFC 3339 with seconds and the offset (`+09:00`, `Z` never used so files read the same way).
///
/// Always a date-time that TOML (and so any second TOML reader, such as Python's `tomllib`)
/// can hold: an offset with seconds (historic local mean time, `+09:18:59`) cannot be written
/// in RFC 3339, so such a time is written in UTC (the same instant); a year outside
/// 0001–9999 is clamped to the nearest representable instant. Items never get such dates from
/// a fetch (see [`crate::fetch::parse::to_item`]); this keeps any caller from writing a file that
/// no longer parses.
pub fn rfc3339(t: &DateTime<FixedOffset>) -> String {
    representable(t).format("%Y-%m-%dT%H:%M:%S%:z").to_string()
}

/// `t` as an instant RFC 3339 and TOML can write exactly: a whole-minute offset, a year in
/// 0001–9999.
fn representable(t: &DateTime<FixedOffset>) -> DateTime<FixedOffset> {
    let utc = FixedOffset::east_opt(0).expect("zero offset");
    let t = if t.offset().local_minus_utc() % 60 != 0 {
        t.with_timezone(&utc)
    } else {
        *t
    };
    let year = t.year();
    if (1..=9999).contains(&year) {
        return t;
    }
    let (y, mo, d, h, mi, s) = if year < 1 {
        (1, 1, 1, 0, 0, 0)
    } else {
        (9999, 12, 31, 23, 59, 59)
    };
    chrono::NaiveDate::from_ymd_opt(y, mo, d)
        .and_then(|d| d.and_hms_opt(h, mi, s))
        .expect("a valid date")
        .and_utc()
        .fixed_offset()
}

/// The hour a run at `now` belongs to, in the site's zone.
pub fn digest_hour(now: DateTime<chrono::Utc>, tz: chrono_tz::Tz) -> DateTime<FixedOffset> {
    let local = now.with_timezone(&tz);
    let floored = local
        .with_minute(0)
        .and_then(|t| t.with_second(0))
        .and_then(|t| t.with_nanosecond(0))
        .expect("flooring to the hour is always valid");
    floored.fixed_offset()
}

/// `content/YYYY/MM/DD/HHMM.md` (relative to the site root) for a digest hour.
pub fn snapshot_rel_path(hour: &DateTime<FixedOffset>) -> PathBuf {
    PathBuf::from(CONTENT_DIR)
        .join(format!("{:04}", hour.year()))
        .join(format!("{:02}", hour.month()))
        .join(format!("{:02}", hour.day()))
        .join(format!("{:02}{:02}.md", hour.hour(), hour.minute()))
}

/// A file's path relative to the site root, with `/` (the caches' key).
pub(crate) fn rel_name(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

/// The site path of an hour's digest page (`2021/07/20/0800/`), in the site's zone.
pub fn digest_path(hour: &DateTime<FixedOffset>, tz: chrono_tz::Tz) -> String {
    hour.with_timezone(&tz).format("%Y/%m/%d/%H%M/").to_string()
}

/// Every snapshot file under `content/`, sorted by path (so by time).
pub fn snapshot_paths(root: &Path) -> Result<Vec<PathBuf>> {
    let dir = root.join(CONTENT_DIR);
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let mut paths = Vec::new();
    for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
        let entry = entry.with_context(|| format!("listing {}", dir.display()))?;
        if entry.file_type().is_file()
            && entry.path().extension().is_some_and(|e| e == "md")
            && !entry.file_name().to_string_lossy().starts_with('.')
        {
            paths.push(entry.into_path());
        }
    }
    Ok(paths)
}

/// All snapshots of a site, parsed in parallel. Every broken file is reported (path and line),
/// not just the first.
pub fn load_all(root: &Path) -> Result<Vec<(PathBuf, Snapshot)>> {
    load_paths(root, snapshot_paths(root)?, |p, _, s| (p, s))
}

/// All snapshots that parse, leaving out (not failing on) broken files: for a fetch, which has
/// already reported them ([`ArchiveKeys::broken`]) and must not lose this run's items over them.
pub fn load_all_readable(root: &Path) -> Result<Vec<(PathBuf, Snapshot)>> {
    Ok(load_paths_partial(root, snapshot_paths(root)?, |p, _, s| (p, s)).0)
}

/// Loads the given snapshot files in parallel ([`derived::load`]: from their records, else
/// parsed) and maps each with `f` (given the path, the file's stamp and the snapshot); all
/// broken files are reported, each with its path and line.
pub(crate) fn load_paths<T: Send>(
    root: &Path,
    paths: Vec<PathBuf>,
    f: impl Fn(PathBuf, derived::Stamp, Snapshot) -> T + Sync,
) -> Result<Vec<T>> {
    let (ok, broken) = load_paths_partial(root, paths, f);
    if !broken.is_empty() {
        return Err(broken_files_error(&broken));
    }
    Ok(ok)
}

/// A snapshot file that could not be read or parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokenFile {
    pub path: PathBuf,
    /// `path:line: what is wrong` (or the IO error, with the path).
    pub error: String,
}

/// The error that lists every broken file and says how to fix them.
pub fn broken_files_error(broken: &[BrokenFile]) -> anyhow::Error {
    anyhow!(
        "{} content file(s) could not be read; fix them (or restore them with git) and run again:\n  {}",
        broken.len(),
        broken
            .iter()
            .map(|b| b.error.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    )
}

/// Like [`load_paths`], but a broken file does not stop the others: the files that parse are
/// mapped with `f`, the broken ones are returned with their errors (in path order).
pub(crate) fn load_paths_partial<T: Send>(
    root: &Path,
    paths: Vec<PathBuf>,
    f: impl Fn(PathBuf, derived::Stamp, Snapshot) -> T + Sync,
) -> (Vec<T>, Vec<BrokenFile>) {
    let results: Vec<std::result::Result<T, BrokenFile>> = paths
        .into_par_iter()
        .map(|p| derived::load(root, &p).map(|(stamp, s)| f(p, stamp, s)))
        .collect();
    let mut ok = Vec::with_capacity(results.len());
    let mut broken = Vec::new();
    for r in results {
        match r {
            Ok(v) => ok.push(v),
            Err(b) => broken.push(b),
        }
    }
    (ok, broken)
}

/// The (feed, id) keys a snapshot file's text still shows when it does not parse: every
/// `feed = "…"` and `id = "…"` line that is valid TOML on its own, paired within its
/// `[[items]]` block. A fetch uses them so a hand-broken file's items are not archived again.
/// Linear in the text.
pub fn recover_keys(text: &str) -> Vec<ItemKey> {
    fn value(line: &str, key: &str) -> Option<String> {
        let rest = line
            .trim()
            .strip_prefix(key)?
            .trim_start()
            .strip_prefix('=')?;
        let table: toml::Table = toml::from_str(&format!("v = {}", rest.trim())).ok()?;
        table.get("v")?.as_str().map(str::to_string)
    }
    let mut keys = Vec::new();
    let (mut feed, mut id) = (None::<String>, None::<String>);
    let mut flush = |feed: &mut Option<String>, id: &mut Option<String>| {
        if let (Some(f), Some(i)) = (feed.take(), id.take()) {
            keys.push(ItemKey::new(&f, &i));
        }
    };
    for line in text.lines() {
        if line.trim() == "[[items]]" {
            flush(&mut feed, &mut id);
        } else if let Some(v) = value(line, "feed") {
            feed = Some(v);
        } else if let Some(v) = value(line, "id") {
            id = Some(v);
        }
    }
    flush(&mut feed, &mut id);
    keys
}

#[cfg(test)]
mod tests;
