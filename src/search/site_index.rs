//! Writing a site's static search index (`OUTPUT/search/`) at each build: which months to write
//! again (those whose snapshot files changed: a new hour rewrites its month's shard, never a past
//! month's) and, in a month whose files did not change, which chunks of rows to write again
//! because a story of their items grew (only those chunks: the month's buckets and names stay),
//! the documents each month is made of (with their
//! stories: `site_index/stories.rs`), deleting the shards of months gone, and the manifest. The format of the files is [`super::static_index`]'s; the build ([`crate::render`])
//! calls [`write`] and keeps what it returns in its record.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::static_index::{self, MonthShard, StaticDoc};
use crate::content::archive::Archive;
use crate::fsutil::confined;
use crate::hash::Fp;
use stories::ShardStories;

mod stories;

/// Each month of the static search index (`YYYY-MM`): its fingerprints and what was written for
/// it. The build record keeps it, so the next build knows which months, and which chunks of a
/// month, changed.
pub type SearchMonths = BTreeMap<String, SearchMonth>;

/// One month of [`SearchMonths`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchMonth {
    /// What the month's shard is made of but its stories: the build's global fingerprint, the
    /// index format and each of its snapshot files' bytes. Another one writes the whole month.
    pub fp: u64,
    /// Each chunk's stories (`cN.json`'s story elements, hashed): another one rewrites that
    /// chunk only.
    pub stories: Vec<u64>,
    pub shard: MonthShard,
}

/// What the static index is made of: the archive, the site's zone (months are the zone's) and
/// the URL of each digest's page (where a result links to).
pub struct Source<'a> {
    pub archive: &'a Archive,
    pub tz: chrono_tz::Tz,
    pub digest_url: &'a (dyn Fn(usize) -> String + Sync),
}

/// An item's link as the static search shows it: http(s) only.
fn safe_link(link: &str) -> Option<String> {
    crate::text::http_url(link.trim()).map(|u| u.to_string())
}

/// What [`write`] did.
pub struct Written {
    /// Each month's fingerprint and what was written for it (the build record keeps it).
    pub months: SearchMonths,
    /// Files written.
    pub files: usize,
    /// The manifest's size.
    pub manifest_bytes: u64,
}

/// Writes the static search index of `site` into `output/search/`. `global` is the build's
/// fingerprint of everything every file depends on; `old` the months the last build wrote.
pub fn write(
    root: &Path,
    site: &Source,
    output: &Path,
    global: u64,
    old: &SearchMonths,
) -> Result<Written> {
    let archive = site.archive;
    let dir = output.join("search");
    // The documents' cache before the derived layer.
    let _ = std::fs::remove_dir_all(
        crate::layout::cache_dir(root).join(crate::layout::LEGACY_SEARCH_DOCS_DIR),
    );
    let mut months = SearchMonths::new();
    let mut files = 0;
    let (names, month_of) = digest_months(site);
    let stories = ShardStories::new(archive, &month_of, &names);
    let timings = std::env::var_os("MATOME_TIMINGS").is_some();
    for (m, (month, (fp, digests))) in plan_months(site, global).into_iter().enumerate() {
        debug_assert_eq!(names[m], month);
        let chunk_stories = stories.chunk_fps(m);
        if let Some(old) = old.get(&month)
            && old.fp == fp
            && dir.join(&month).is_dir()
            && shard_is_whole(&dir, &month, &old.shard)
        {
            let only: BTreeSet<usize> = (0..chunk_stories.len())
                .filter(|&k| old.stories.get(k) != Some(&chunk_stories[k]))
                .collect();
            let t = std::time::Instant::now();
            let shard = if only.is_empty() && old.stories.len() == chunk_stories.len() {
                // Nothing written: the record's count is the build's that wrote it.
                Some(MonthShard {
                    written: 0,
                    removed: 0,
                    ..old.shard.clone()
                })
            } else {
                rewrite_chunks(site, &dir, &month, &digests, &stories, &only, &old.shard)?
            };
            if let Some(shard) = shard {
                if timings && !only.is_empty() {
                    eprintln!(
                        "search shard {month}: {} of {} chunks (stories) in {:?}",
                        only.len(),
                        chunk_stories.len(),
                        t.elapsed()
                    );
                }
                files += shard.written;
                let stories = chunk_stories;
                months.insert(month, SearchMonth { fp, stories, shard });
                continue;
            }
        }
        let rows = month_rows(archive, &digests, &stories)?;
        let urls: Vec<String> = digests.iter().map(|&d| (site.digest_url)(d)).collect();
        let docs: Vec<StaticDoc> = rows
            .iter()
            .zip(&urls)
            .flat_map(|(rows, url)| rows.iter().map(move |row| row.doc(url)))
            .collect();
        let t_docs = std::time::Instant::now();
        let shard = static_index::write_month(&dir, &month, &docs, site.tz)
            .with_context(|| format!("writing the search index of {month}"))?;
        if timings {
            eprintln!(
                "search shard {month}: {} docs in {:?}",
                docs.len(),
                t_docs.elapsed()
            );
        }
        files += shard.written;
        let stories = chunk_stories;
        months.insert(month, SearchMonth { fp, stories, shard });
    }
    // Months read from the record: only a well-formed month's own folder is removed.
    for gone in old.keys().filter(|m| !months.contains_key(*m)) {
        if static_index::check_month(gone).is_ok()
            && let Some(path) = confined(output, &format!("search/{gone}"))
        {
            let _ = std::fs::remove_dir_all(path);
        }
    }
    let shards: Vec<MonthShard> = months.values().map(|m| m.shard.clone()).collect();
    let categories: Vec<&str> = archive
        .categories
        .names
        .iter()
        .map(String::as_str)
        .collect();
    let manifest_bytes = static_index::write_manifest(&dir, &shards, &categories)?;
    Ok(Written {
        months,
        files,
        manifest_bytes,
    })
}

/// The month (`YYYY-MM` in the site's zone) of each digest: the names in order, and each
/// digest's index into them.
fn digest_months(site: &Source) -> (Vec<String>, Vec<usize>) {
    let mut names: Vec<String> = Vec::new();
    let mut at: BTreeMap<String, usize> = BTreeMap::new();
    let month_of = site
        .archive
        .digests
        .iter()
        .map(|digest| {
            let month = digest
                .hour
                .with_timezone(&site.tz)
                .format("%Y-%m")
                .to_string();
            *at.entry(month.clone()).or_insert_with(|| {
                names.push(month);
                names.len() - 1
            })
        })
        .collect();
    (names, month_of)
}

/// The digests of each month in the site's zone, with the month's fingerprint: the build's
/// global one, the index format and each of its files' bytes (its items' stories, which later
/// items elsewhere can change, are each chunk's: [`ShardStories::chunk_fps`]). In the order of
/// [`digest_months`]' names.
fn plan_months(site: &Source, global: u64) -> Vec<(String, (u64, Vec<usize>))> {
    let mut months: BTreeMap<String, (Fp, Vec<usize>)> = BTreeMap::new();
    for (d, digest) in site.archive.digests.iter().enumerate() {
        let month = digest
            .hour
            .with_timezone(&site.tz)
            .format("%Y-%m")
            .to_string();
        let entry = months.entry(month).or_insert_with(|| {
            let mut fp = Fp::new("search-month");
            fp.u64(global).u64(u64::from(static_index::FORMAT));
            (fp, Vec::new())
        });
        entry.0.u64(digest.hash);
        entry.1.push(d);
    }
    let mut months: Vec<(String, (u64, Vec<usize>))> = months
        .into_iter()
        .map(|(m, (fp, ds))| (m, (fp.0, ds)))
        .collect();
    // The order of `digest_months`' names: by each month's first digest.
    months.sort_by_key(|(_, (_, ds))| ds[0]);
    months
}

/// Writes again the chunks `only` of a month whose files did not change (`old` is what the last
/// build wrote for it), from the records of just the digests holding their items; the other
/// items give only their site, category, digest URL and link (the month's names), from the
/// archive.
fn rewrite_chunks(
    site: &Source,
    dir: &Path,
    month: &str,
    digests: &[usize],
    stories: &ShardStories,
    only: &BTreeSet<usize>,
    old: &MonthShard,
) -> Result<Option<MonthShard>> {
    let archive = site.archive;
    let chunk = |i: u32| stories.number(i) as usize / static_index::CHUNK_DOCS;
    let needed: Vec<usize> = digests
        .iter()
        .copied()
        .filter(|&d| {
            archive.digests[d]
                .items
                .clone()
                .any(|i| only.contains(&chunk(i)))
        })
        .collect();
    let rows = month_rows(archive, &needed, stories)?;
    let rows: BTreeMap<usize, Vec<DocRow>> = needed.into_iter().zip(rows).collect();
    let urls: Vec<String> = digests.iter().map(|&d| (site.digest_url)(d)).collect();
    // The links of the items outside those chunks, for their origins.
    let links: Vec<Vec<Option<String>>> = digests
        .iter()
        .map(|&d| {
            let items = archive.digests[d].items.clone();
            items
                .map(|i| safe_link(&archive.items[i as usize].link))
                .collect()
        })
        .collect();
    let mut docs = Vec::new();
    for ((&d, url), links) in digests.iter().zip(&urls).zip(&links) {
        let digest = &archive.digests[d];
        for (k, i) in digest.items.clone().enumerate() {
            let doc = if only.contains(&chunk(i)) {
                // A record that lost an item since: the whole month is written instead.
                let Some(row) = rows.get(&d).and_then(|r| r.get(k)) else {
                    return Ok(None);
                };
                row.doc(url)
            } else {
                {
                    let item = &archive.items[i as usize];
                    StaticDoc {
                        title: "",
                        summary: "",
                        link: links[k].as_deref(),
                        site: &archive.sites.names[item.site as usize],
                        category: &archive.categories.names[item.category as usize],
                        published: item.published,
                        digest_url: url,
                        story: None,
                    }
                }
            };
            docs.push(doc);
        }
    }
    static_index::write_chunks(dir, month, &docs, only, old)
        .with_context(|| format!("writing the search index of {month}"))
}

/// What the static search shows of an item.
#[derive(Debug)]
struct DocRow {
    title: String,
    summary: String,
    link: Option<String>,
    site: String,
    category: String,
    published: i64,
    story: Option<serde_json::Value>,
}

impl DocRow {
    fn doc<'a>(&'a self, digest_url: &'a str) -> StaticDoc<'a> {
        StaticDoc {
            title: &self.title,
            summary: &self.summary,
            link: self.link.as_deref(),
            site: &self.site,
            category: &self.category,
            published: self.published,
            digest_url,
            story: self.story.as_ref(),
        }
    }
}

/// The rows of each of the month's `digests`, in archive order, from their files' records in
/// the derived layer ([`Archive::snapshot`]), with their stories.
fn month_rows(
    archive: &Archive,
    digests: &[usize],
    stories: &ShardStories,
) -> Result<Vec<Vec<DocRow>>> {
    digests
        .par_iter()
        .map(|&d| {
            let s = archive.snapshot(d)?;
            let start = archive.digests[d].items.start;
            Ok(s.items
                .into_iter()
                .enumerate()
                .map(|(k, i)| DocRow {
                    story: stories.row(start + k as u32),
                    link: safe_link(&i.link),
                    published: i.published.timestamp(),
                    title: i.title,
                    summary: i.summary,
                    site: i.site,
                    category: i.category,
                })
                .collect())
        })
        .collect()
}

/// Whether a month's record (read from the build record) describes that month and files that
/// are all there, inside its folder; if not the month is written again.
fn shard_is_whole(dir: &Path, month: &str, shard: &MonthShard) -> bool {
    shard.month == month
        && shard.files.iter().all(|f| {
            f.strip_prefix(month)
                .and_then(|r| r.strip_prefix('/'))
                // The names static_index writes (`b01f-2.bin` too: a month whose record
                // refused those was re-indexed by every build).
                .is_some_and(static_index::is_shard_data_file)
                && dir.join(f).is_file()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 13: a month whose index has long posting lists in files of their own
    /// (`b01f-0.bin`) was never "whole" to the next build, so every build re-indexed every
    /// month of the archive (16 s of a year's next-hour build).
    #[test]
    fn a_month_with_posting_list_files_is_whole_to_the_next_build() {
        let dir = tempfile::tempdir().unwrap();
        // A word in 9,000 items: its posting list (a bitmap of 1,125 bytes at best) is a file.
        let titles: Vec<String> = (0..9000).map(|i| format!("量子計算の記事 {i}")).collect();
        let docs: Vec<StaticDoc> = titles
            .iter()
            .map(|t| StaticDoc {
                title: t,
                summary: "量子計算の話題",
                link: Some("https://example.com/a"),
                site: "サイト",
                category: "科学",
                published: 1_626_739_200,
                digest_url: "2021/07/20/0800/",
                story: None,
            })
            .collect();
        let shard = static_index::write_month(dir.path(), "2021-07", &docs, chrono_tz::Asia::Tokyo)
            .unwrap();
        assert!(
            shard
                .files
                .iter()
                .any(|f| f.strip_prefix("2021-07/b").is_some_and(|r| r.contains('-'))),
            "the month has a posting list file: {:?}",
            shard.files.iter().take(5).collect::<Vec<_>>()
        );
        assert!(shard_is_whole(dir.path(), "2021-07", &shard));
        // A record naming a file that is not there, or one outside the month, is not whole.
        let mut gone = shard.clone();
        gone.files.push("2021-07/b000-99.bin".into());
        assert!(!shard_is_whole(dir.path(), "2021-07", &gone));
        let mut outside = shard.clone();
        outside.files[0] = "2021-07/../../x".into();
        assert!(!shard_is_whole(dir.path(), "2021-07", &outside));
    }
}
