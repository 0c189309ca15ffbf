//! `matome build`: the archive rendered into a static site.
//!
//! Owns the output folder: which files it holds ([`plan::plan`]), rendering them with the theme
//! ([`theme`]) through the page kinds' views ([`views`]), and the incremental bookkeeping. A build remembers each output file's
//! fingerprint and size in `.matome/build/` (keyed by the output folder; the sizes add up to
//! the size line, [`size::SiteSize::of_record`]); the next build renders only
//! files whose fingerprint changed or that are missing, writes only files whose bytes changed
//! (so unchanged files keep their modification time), and deletes files the site no longer
//! has. A change of theme, templates, config or matome version changes every fingerprint: a
//! full build. The record is a cache and trusted no further than that: it is checksummed (one
//! that does not verify means a full build), and a path read from it is deleted only when it
//! stays inside the output folder (`confined`). It reads content/ through
//! [`crate::content::archive`] and never writes there.
//!
//! All of the build's IO is here: the archive, the fetch state and each page's snapshot files
//! are read in this file and passed to the pure parts ([`site`], [`plan`], [`views`]).

pub mod changes;
pub mod chart;
pub mod overrides;
pub mod page;
pub mod plan;
mod rising;
pub mod safety;
pub mod site;
pub mod size;
pub mod strings;
pub mod theme;
pub mod views;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::config::Config;
use crate::content::archive::Archive;
use crate::fetch::state::FetchState;
use crate::fsutil;
use crate::search::static_index::{self, MonthShard, StaticDoc};
use page::{Kind, Page};
use site::Site;
use theme::{Filters, Theme};
use views::Snapshots;

/// The default output folder at the site root.
pub const OUTPUT_DIR: &str = "public";
/// 5: each page's size beside its fingerprint.
const STATE_VERSION: u32 = 5;

/// `matome build`'s options.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Overrides the config's base_url.
    pub base_url: Option<String>,
    /// Output folder (default: `public/` at the site root).
    pub output: Option<PathBuf>,
}

/// What a build did.
#[derive(Debug, Clone)]
pub struct BuildReport {
    pub output: PathBuf,
    pub digests: usize,
    pub items: usize,
    /// Output files the site has.
    pub pages: usize,
    /// Files rendered this time (the rest were unchanged since the last build).
    pub rendered: usize,
    /// Files whose bytes changed and were written (including static files).
    pub written: usize,
    /// Files of the last build the site no longer has, deleted.
    pub removed: usize,
    /// Snapshot files parsed (the rest came from the archive cache).
    pub parsed_files: usize,
    /// What updating the search index did.
    pub search: crate::search::index::IndexReport,
    /// The output folder's bytes and files after the build.
    pub size: size::SiteSize,
    /// Set when the output is above `[build] size_warning_mb`: what to do about it.
    pub size_warning: Option<String>,
    pub elapsed: Duration,
}

/// The last build's record for one output folder.
#[derive(Debug, Default, Serialize, Deserialize)]
struct BuildState {
    version: u32,
    /// The base URL the pages were built for (what `matome check` resolves links against).
    base_url: String,
    /// Output path → (fingerprint, bytes written): the size line adds the bytes up instead of
    /// walking the output folder.
    pages: FxHashMap<String, (u64, u64)>,
    /// Static files copied.
    statics: Vec<String>,
    /// The static search index: each month's fingerprint and what was written for it.
    search_months: SearchMonths,
}

/// What the static search shows of an item, cached per month in `.matome/search-docs/` by
/// snapshot file hash, so rewriting the current month's shard parses only the new file.
#[derive(Debug, Serialize, Deserialize)]
struct DocRow {
    title: String,
    summary: String,
    link: Option<String>,
    site: String,
    category: String,
    published: i64,
}

/// Each month of the static search index: its fingerprint and what was written for it.
type SearchMonths = std::collections::BTreeMap<String, (u64, MonthShard)>;

fn state_path(root: &Path, output: &Path) -> PathBuf {
    crate::layout::build_record(root, output)
}

/// The last build's record, if it verifies: its checksum (a hash of the body, appended when it
/// was saved) matches and it is of this version. Anything else (missing, cut short, corrupted,
/// of another version) is an empty record: a full build. The record is still not trusted for
/// paths: every path read from it goes through [`confined`] before anything is deleted.
fn load_state(path: &Path) -> BuildState {
    let Ok(bytes) = std::fs::read(path) else {
        return BuildState::default();
    };
    fsutil::from_sealed::<BuildState>(&bytes)
        .filter(|s| s.version == STATE_VERSION)
        .or_else(|| legacy_state(&bytes))
        .unwrap_or_default()
}

/// A page's size in a record that does not know it: the page is rendered again.
const SIZE_UNKNOWN: u64 = u64::MAX;

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
        search_months: SearchMonths,
    }
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    if crate::hash::fnv1a(body).to_le_bytes() != sum {
        return None;
    }
    let v4: V4 = postcard::from_bytes(body).ok()?;
    (v4.version == 4).then(|| BuildState {
        version: STATE_VERSION,
        base_url: v4.base_url,
        pages: v4
            .pages
            .into_iter()
            .map(|(p, fp)| (p, (fp, SIZE_UNKNOWN)))
            .collect(),
        statics: v4.statics,
        search_months: v4.search_months,
    })
}

/// `rel` (a path read from a cache) under `output`, if it stays there: relative, only plain
/// names (no `..`, no root, no `\`, no NUL), and its folder, resolved through symlinks, inside
/// `output` (the canonical output folder). `None` for anything else, which is then left alone.
fn confined(output: &Path, rel: &str) -> Option<PathBuf> {
    use std::path::Component;
    let p = Path::new(rel);
    if rel.is_empty()
        || rel.contains(['\0', '\\'])
        || !p.components().all(|c| matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let full = output.join(p);
    let parent = full.parent()?.canonicalize().ok()?;
    parent.starts_with(output).then_some(full)
}

/// Writes the static search index (`OUTPUT/search/`): the shards of the months whose snapshot
/// files changed (a new hour rewrites its month's, never a past month's), deletes the shards of
/// months gone, and the manifest. Returns each month's record, how many files were written and
/// the manifest's size.
fn write_static_search(
    root: &Path,
    site: &Site,
    output: &Path,
    global: u64,
    old: &SearchMonths,
) -> Result<(SearchMonths, usize, u64)> {
    let archive = site.archive;
    let dir = output.join("search");
    // Digests by month in the site's zone, with the month's fingerprint.
    let mut months: std::collections::BTreeMap<String, (u64, Vec<usize>)> = Default::default();
    for (d, digest) in archive.digests.iter().enumerate() {
        let month = digest
            .hour
            .with_timezone(&site.tz)
            .format("%Y-%m")
            .to_string();
        let entry = months
            .entry(month)
            .or_insert((global ^ u64::from(static_index::FORMAT), Vec::new()));
        entry.0 = entry.0.rotate_left(5).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ digest.hash;
        entry.1.push(d);
    }
    let mut out = SearchMonths::new();
    let mut written = 0;
    for (month, (fp, digests)) in months {
        if let Some((old_fp, shard)) = old.get(&month)
            && *old_fp == fp
            && dir.join(&month).is_dir()
            && shard_is_whole(&dir, &month, shard)
        {
            out.insert(month, (fp, shard.clone()));
            continue;
        }
        // The month's items in full (summaries are not in the archive cache), in archive order:
        // from the month's docs cache where a snapshot file is unchanged, parsed otherwise.
        let cache_path = crate::layout::search_docs_dir(root).join(format!("{month}.bin"));
        let mut cache: rustc_hash::FxHashMap<u64, Vec<DocRow>> = std::fs::read(&cache_path)
            .ok()
            .and_then(|b| fsutil::from_sealed::<Vec<(u64, Vec<DocRow>)>>(&b))
            .map(|v| v.into_iter().collect())
            .unwrap_or_default();
        let missing: Vec<usize> = digests
            .iter()
            .copied()
            .filter(|&d| !cache.contains_key(&archive.digests[d].hash))
            .collect();
        let parsed: Vec<Result<(u64, Vec<DocRow>)>> = missing
            .par_iter()
            .map(|&d| {
                let s = archive.snapshot(d)?;
                Ok((
                    archive.digests[d].hash,
                    s.items
                        .into_iter()
                        .map(|i| DocRow {
                            link: safety::safe_link(&i.link),
                            published: i.published.timestamp(),
                            title: i.title,
                            summary: i.summary,
                            site: i.site,
                            category: i.category,
                        })
                        .collect(),
                ))
            })
            .collect();
        for p in parsed {
            let (hash, rows) = p?;
            cache.insert(hash, rows);
        }
        let urls: Vec<String> = digests.iter().map(|&d| site.digest_url(d)).collect();
        let mut docs = Vec::new();
        for (&d, url) in digests.iter().zip(&urls) {
            for row in &cache[&archive.digests[d].hash] {
                docs.push(StaticDoc {
                    title: &row.title,
                    summary: &row.summary,
                    // Checked again: the row comes from a cache file.
                    link: row
                        .link
                        .as_deref()
                        .filter(|l| safety::safe_link(l).is_some()),
                    site: &row.site,
                    category: &row.category,
                    published: row.published,
                    digest_url: url,
                });
            }
        }
        let t_docs = std::time::Instant::now();
        let shard = static_index::write_month(&dir, &month, &docs, site.tz)
            .with_context(|| format!("writing the search index of {month}"))?;
        if std::env::var_os("MATOME_TIMINGS").is_some() {
            eprintln!(
                "search shard {month}: {} docs in {:?}",
                docs.len(),
                t_docs.elapsed()
            );
        }
        drop(docs);
        if !missing.is_empty() {
            // Only this month's digests: a hand-edited file's old rows go.
            let keep: Vec<(u64, Vec<DocRow>)> = digests
                .iter()
                .filter_map(|&d| {
                    let h = archive.digests[d].hash;
                    cache.remove(&h).map(|rows| (h, rows))
                })
                .collect();
            if let Some(bytes) = fsutil::to_sealed(&keep) {
                let _ = fsutil::write_if_changed(&cache_path, &bytes);
            }
        }
        written += shard.written;
        out.insert(month, (fp, shard));
    }
    // Months read from the record: only a well-formed month's own folder is removed.
    for gone in old.keys().filter(|m| !out.contains_key(*m)) {
        if static_index::check_month(gone).is_ok()
            && let Some(path) = confined(output, &format!("search/{gone}"))
        {
            let _ = std::fs::remove_dir_all(path);
        }
    }
    let shards: Vec<MonthShard> = out.values().map(|(_, s)| s.clone()).collect();
    let categories: Vec<&str> = archive
        .categories
        .names
        .iter()
        .map(String::as_str)
        .collect();
    let manifest = static_index::write_manifest(&dir, &shards, &categories)?;
    Ok((out, written, manifest))
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

/// The snapshot files page `kind` shows ([`views::reads`]), read. The Atom feeds share theirs
/// (every category's feed shows the latest hours' files).
fn read_snapshots(site: &Site, kind: &Kind, shared: &Mutex<Snapshots>) -> Result<Snapshots> {
    let mut out = Snapshots::default();
    for d in views::reads(site, kind) {
        if out.contains_key(&d) {
            continue;
        }
        let cached = matches!(kind, Kind::Atom(_))
            .then(|| shared.lock().unwrap().get(&d).cloned())
            .flatten();
        let s = match cached {
            Some(s) => s,
            None => {
                let s = Arc::new(site.archive.snapshot(d)?);
                if matches!(kind, Kind::Atom(_)) {
                    shared.lock().unwrap().insert(d, s.clone());
                }
                s
            }
        };
        out.insert(d, s);
    }
    Ok(out)
}

/// With `MATOME_TIMINGS` set, prints each phase of a build on stderr as it ends
/// (`phase NAME: this phase (at: since the start)`).
struct Phases {
    on: bool,
    started: Instant,
    last: Instant,
}

impl Phases {
    fn new(started: Instant) -> Phases {
        Phases {
            on: std::env::var_os("MATOME_TIMINGS").is_some(),
            started,
            last: started,
        }
    }

    fn end(&mut self, name: &str) {
        if self.on {
            let now = Instant::now();
            eprintln!(
                "phase {name}: {:?} (at {:?})",
                now - self.last,
                now - self.started
            );
            self.last = now;
        }
    }
}

/// The base URL the last build into `output` used, if it is known.
pub fn last_base_url(root: &Path, output: &Path) -> Option<String> {
    let output = output.canonicalize().ok()?;
    let state = load_state(&state_path(root, &output));
    (!state.base_url.is_empty()).then_some(state.base_url)
}

/// Checks and normalises a base URL: absolute http(s), ending in `/`.
pub fn normalize_base_url(s: &str) -> Result<String> {
    let s = s.trim();
    if crate::text::http_url(s).is_none() {
        bail!(
            "base URL must be an absolute http(s) URL such as https://USER.github.io/REPO/, not {s:?}"
        );
    }
    Ok(if s.ends_with('/') {
        s.to_string()
    } else {
        format!("{s}/")
    })
}

/// Builds the site at `root`.
pub fn build(root: &Path, opts: &BuildOptions) -> Result<BuildReport> {
    let started = Instant::now();
    let mut phases = Phases::new(started);
    let config = Config::load(root)?;
    let config_text = std::fs::read(crate::config::config_path(root)).unwrap_or_default();
    let base_url = match &opts.base_url {
        Some(u) => normalize_base_url(u).context("--base-url")?,
        None => config.base_url.clone(),
    };
    let output = match &opts.output {
        Some(o) => o.clone(),
        None => root.join(OUTPUT_DIR),
    };
    std::fs::create_dir_all(&output)
        .with_context(|| format!("creating the output folder {}", output.display()))?;
    let output = output
        .canonicalize()
        .with_context(|| format!("resolving {}", output.display()))?;
    if root.canonicalize().is_ok_and(|r| r == output) {
        bail!("the output folder cannot be the site root; use --output public");
    }
    // A fetch may be writing content/: build from a consistent archive.
    let _lock = fsutil::SiteLock::acquire_or_wait(root)?;
    // A file that does not parse is left out (and named at the end): every other page builds.
    let (archive, broken) = Archive::load_partial(root)?;
    phases.end("archive");
    let search = crate::search::index::update(root, &config, &archive)?;
    phases.end("search index");
    let filters = Filters {
        base_url: base_url.clone(),
        base_path: site::base_path(&base_url),
        timezone: config.timezone,
    };
    let theme = Theme::load(root, &config.theme, filters)?;
    theme
        .warnings
        .iter()
        .for_each(|w| eprintln!("warning: {w}"));
    // The feed-health page changes with the fetch state (read once; a missing file is empty, an
    // unreadable one is empty with the reason shown on the page).
    let health = FetchState::load_for_health(root);
    let mut state_bytes = serde_json::to_vec(&health)?;
    state_bytes.extend_from_slice(health.load_error.as_deref().unwrap_or("").as_bytes());
    let state_hash = crate::hash::fnv1a(&state_bytes);
    phases.end("theme, health");
    let site = Site::new(&config, &archive, base_url.clone());
    phases.end("site");
    let plan::Plan {
        pages: mut plan,
        sitemap,
    } = plan::plan(&site, state_hash);
    phases.end("plan");
    plan::check_unique_paths(&site, &plan)?;

    // Everything every page depends on besides its own inputs.
    let global = {
        let mut g = format!("{}\0{base_url}\0", env!("CARGO_PKG_VERSION")).into_bytes();
        g.extend_from_slice(&theme.fingerprint.to_le_bytes());
        g.extend_from_slice(&config_text);
        // Names given long slugs (their URLs depend on other names): rare, and then a full build.
        let collisions = plan::slug_collisions(&site);
        if collisions != 0 {
            g.extend_from_slice(&collisions.to_le_bytes());
        }
        crate::hash::fnv1a(&g)
    };
    for p in &mut plan {
        p.fp ^= global.rotate_left(17);
        p.fp = p.fp.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ global;
    }

    let state_file = state_path(root, &output);
    let old = load_state(&state_file);
    phases.end("unique paths, global, record");
    let todo: Vec<&Page> = plan
        .par_iter()
        .filter(|p| {
            !old.pages
                .get(&p.path)
                .is_some_and(|r| r.0 == p.fp && r.1 != SIZE_UNKNOWN)
                || !output.join(&p.path).exists()
        })
        .collect();
    phases.end("todo");

    // The pages and the static search index (the months that changed) at the same time.
    let ctx = views::Ctx::new(&site, &theme, &health, &sitemap);
    let feed_snapshots = Mutex::new(Snapshots::default());
    let (results, static_search) = rayon::join(
        || -> Vec<(String, Result<(bool, u64)>)> {
            todo.par_iter()
                .map(|p| {
                    let r = read_snapshots(&site, &p.kind, &feed_snapshots)
                        .and_then(|snapshots| views::render(&ctx, p, &snapshots))
                        .and_then(|bytes| {
                            fsutil::write_if_changed(&output.join(&p.path), &bytes)
                                .map(|w| (w, bytes.len() as u64))
                        })
                        .with_context(|| format!("page {}", p.path));
                    (p.path.clone(), r)
                })
                .collect()
        },
        || write_static_search(root, &site, &output, global, &old.search_months),
    );
    phases.end("render, static search");
    let mut written = 0;
    // What `matome check` reads instead of every page ([`changes`]).
    let mut written_paths = Vec::new();
    let mut errors = Vec::new();
    let mut failed = std::collections::HashSet::new();
    // The size of each page rendered now (the others keep the last build's).
    let mut sizes: FxHashMap<&str, u64> = FxHashMap::default();
    // In `todo`'s order: each page's fingerprint goes with it.
    for ((path, r), page) in results.into_iter().zip(&todo) {
        match r {
            Ok((w, len)) => {
                written += usize::from(w);
                sizes.insert(page.path.as_str(), len);
                if w {
                    written_paths.push((path, page.fp));
                }
            }
            Err(e) => {
                errors.push(format!("{e:#}"));
                failed.insert(path);
            }
        }
    }
    for (rel, bytes) in &theme.statics {
        if fsutil::write_if_changed(&output.join(rel), bytes)? {
            written += 1;
            written_paths.push((rel.clone(), crate::hash::fnv1a(bytes)));
        }
    }

    let (search_months, search_written, manifest_bytes) = static_search?;
    written += search_written;

    // Files of the last build the site no longer has.
    let live: std::collections::HashSet<&str> = plan
        .iter()
        .map(|p| p.path.as_str())
        .chain(theme.statics.keys().map(String::as_str))
        .collect();
    let mut removed = 0;
    // With a broken content file its pages are missing from the plan: keep what the last build
    // wrote of them until it is fixed (the build fails, so nothing half-built is deployed).
    let kept: Vec<(String, (u64, u64))> = if broken.is_empty() {
        Vec::new()
    } else {
        old.pages
            .iter()
            .filter(|(p, _)| !live.contains(p.as_str()))
            .map(|(p, fp)| (p.clone(), *fp))
            .collect()
    };
    for gone in old
        .pages
        .keys()
        .chain(old.statics.iter())
        .filter(|p| !live.contains(p.as_str()) && broken.is_empty())
    {
        // The record is a cache (a CI cache may be poisoned): a path outside the output folder
        // is never deleted.
        let Some(path) = confined(&output, gone) else {
            continue;
        };
        if std::fs::remove_file(&path).is_ok() {
            removed += 1;
            // Drop folders left empty (a page's own folder), never above the output folder.
            let mut dir = path.parent();
            while let Some(d) = dir {
                if d == output || std::fs::remove_dir(d).is_err() {
                    break;
                }
                dir = d.parent();
            }
        }
    }

    phases.end("statics, removed");
    changes::add(root, &output, written_paths);
    phases.end("changes");
    let state = BuildState {
        version: STATE_VERSION,
        base_url: base_url.clone(),
        pages: plan
            .iter()
            .filter(|p| !failed.contains(&p.path))
            .map(|p| {
                let len = sizes
                    .get(p.path.as_str())
                    .copied()
                    .or_else(|| old.pages.get(&p.path).map(|r| r.1))
                    .unwrap_or(0);
                (p.path.clone(), (p.fp, len))
            })
            .chain(kept)
            .collect(),
        statics: theme.statics.keys().cloned().collect(),
        search_months,
    };
    // The state only saves time: a build that cannot record it still succeeded, and a state
    // lost in a crash means one full build (so no fsync).
    if (!todo.is_empty()
        || removed > 0
        || search_written > 0
        || old.base_url != base_url
        || old.statics != state.statics
        || old.search_months.keys().ne(state.search_months.keys()))
        && let Some(bytes) = fsutil::to_sealed(&state)
    {
        let _ = fsutil::write_if_changed(&state_file, &bytes);
    }
    if !broken.is_empty() {
        // Exit status 2, like a config error: the curator must fix the file.
        bail!(
            "{:#}\n(every other page was built: {} of {} files rendered{})",
            crate::content::broken_files_error(&broken),
            todo.len() - errors.len(),
            plan.len(),
            if errors.is_empty() {
                String::new()
            } else {
                format!("; {} page(s) failed: {}", errors.len(), errors.join("; "))
            }
        );
    }
    if !errors.is_empty() {
        let shown: Vec<&String> = errors.iter().take(10).collect();
        bail!(
            "{} page(s) could not be rendered:\n  {}{}",
            errors.len(),
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n  "),
            if errors.len() > 10 { "\n  …" } else { "" }
        );
    }
    phases.end("record");
    // What this build and the last ones wrote, from the record: walking the output folder took
    // longer than the rest of an hourly build at three years (93,000 files).
    let size = size::SiteSize::of_record(
        state.pages.values().map(|r| r.1),
        theme.statics.values().map(|b| b.len() as u64),
        state.search_months.values().map(|(_, m)| m),
        manifest_bytes,
    );
    phases.end("size");
    let size_warning = size.warning(&output, config.build.size_warning_mb as u64);
    Ok(BuildReport {
        size,
        size_warning,
        output,
        digests: archive.digests.len(),
        items: archive.items.len(),
        pages: plan.len(),
        rendered: todo.len(),
        written,
        removed,
        parsed_files: archive.parsed_files,
        search,
        elapsed: started.elapsed(),
    })
}

#[cfg(test)]
mod tests;
