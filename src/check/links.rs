//! The built site's internal links: every `href` and `src` of every HTML page, resolved from the
//! page's own URL (so relative, root-relative and absolute same-site links are alike) under the
//! base path, to a file in the output folder.
//!
//! A full check reads every page. The hourly check reads only the pages builds wrote since the
//! last check ([`crate::render::changes`]) and relies on a record of the rest: the link record
//! (`.matome/check/<output key>.links`, sealed with [`fsutil::seal`]) holds, per page, the
//! distinct targets its links resolve to and the problems that do not depend on other files
//! (unparsable links, links that leave the base path). Every target of the record is looked up
//! again each time, so a link into a page that a later build deleted, or that was removed by
//! hand, is found and named with every page that still links there; pages gone from the output
//! leave the record. A page written again from the fingerprint it was last checked at (the
//! build's fingerprint covers everything the page shows, and builds are deterministic) is not
//! read again, so an output folder built anew with `.matome/` restored costs no more than one
//! new hour. The record is for one output folder, base URL and matome version; when it
//! is missing, does not verify or is for anything else, or the builds' record of what they wrote
//! is missing or incomplete, the check reads every page (and says why in one line), then writes
//! a fresh record. Either way the problems come out of the same record in the same order, so an
//! incremental check reports exactly what a full one would, unless a page was edited by hand
//! (`--all` reads it again).

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::fsutil;
use crate::render::changes;

const FORMAT: u32 = 1;
/// Pages read and resolved in parallel per batch before their targets are interned.
const BATCH: usize = 1024;

/// What the link check found and did.
#[derive(Debug, Default)]
pub struct LinkReport {
    pub problems: Vec<String>,
    /// HTML pages the site has, and the links on them.
    pub pages: usize,
    pub links: usize,
    /// Pages read this time (all of them in a full check) and their links.
    pub read_pages: usize,
    pub read_links: usize,
    /// Whether every page was read.
    pub full: bool,
    /// Why an incremental check read every page instead.
    pub fallback: Option<String>,
    /// Distinct link targets looked up.
    pub targets: usize,
    /// Pages written again with the fingerprint they were checked at, so not read.
    pub unchanged: usize,
}

/// One page's links as the record keeps them.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct PageLinks {
    /// The fingerprint the build wrote the page from (0: not known).
    fp: u64,
    links: u32,
    /// Sorted, distinct ids into [`Record::targets`] (delta-encoded on disk).
    targets: Vec<u32>,
    /// Problems of single links that no other file can fix.
    problems: Vec<String>,
}

/// The link record: what the last check knew of every page.
#[derive(Debug, Default)]
struct Record {
    format: u32,
    version: String,
    output: String,
    base_url: String,
    /// Link targets: paths relative to the base path, percent-decoded, as linked (`c/IT/`).
    targets: Vec<String>,
    /// Page path (relative to the output folder) → its links.
    pages: BTreeMap<String, PageLinks>,
}

/// Target interning on top of a record.
#[derive(Default)]
struct Targets {
    ids: FxHashMap<String, u32>,
}

impl Record {
    fn intern(&mut self, t: &mut Targets, target: String) -> u32 {
        if let Some(&id) = t.ids.get(&target) {
            return id;
        }
        let id = self.targets.len() as u32;
        self.targets.push(target.clone());
        t.ids.insert(target, id);
        id
    }
}

/// The link record's file for `output` (canonical).
fn record_path(root: &Path, output: &Path) -> PathBuf {
    crate::layout::check_links(root, output)
}

/// On disk: the header, the targets, each page with its targets delta-encoded (most gaps are
/// small, so postcard's varints stay short).
type OnDisk = (
    u32,
    String,
    String,
    String,
    Vec<String>,
    BTreeMap<String, PageLinks>,
);

fn save(path: &Path, record: &Record) -> Result<()> {
    let pages: BTreeMap<String, PageLinks> = record
        .pages
        .iter()
        .map(|(p, l)| {
            let mut prev = 0;
            let targets = l
                .targets
                .iter()
                .map(|&t| {
                    let d = t - prev;
                    prev = t;
                    d
                })
                .collect();
            let links = PageLinks {
                fp: l.fp,
                links: l.links,
                targets,
                problems: l.problems.clone(),
            };
            (p.clone(), links)
        })
        .collect();
    let bytes = postcard::to_stdvec(&(
        record.format,
        &record.version,
        &record.output,
        &record.base_url,
        &record.targets,
        pages,
    ))?;
    // Replaced by rename but not fsynced: a record lost in a crash means one full check, and
    // an fsync of ~12 MB on a busy runner's disk costs more than the rest of the hourly check.
    fsutil::write_if_changed(path, &fsutil::seal(bytes))?;
    Ok(())
}

/// The record at `path`, or why there is none to trust.
fn load(path: &Path) -> Result<Record, String> {
    let bytes = std::fs::read(path)
        .map_err(|_| format!("no link record of an earlier check ({})", path.display()))?;
    let damaged = || format!("the link record {} does not verify", path.display());
    let (format, version, output, base_url, targets, mut pages): OnDisk = fsutil::unseal(&bytes)
        .and_then(|b| postcard::from_bytes(b).ok())
        .ok_or_else(damaged)?;
    for l in pages.values_mut() {
        let mut prev = 0u32;
        for t in &mut l.targets {
            prev = prev.checked_add(*t).ok_or_else(damaged)?;
            *t = prev;
        }
        if l.targets.iter().any(|&t| t as usize >= targets.len()) {
            return Err(damaged());
        }
    }
    Ok(Record {
        format,
        version,
        output,
        base_url,
        targets,
        pages,
    })
}

/// Checks the links of the site built into `output` (canonical) for `base_url`: every page with
/// `all`, else the pages written since the last check plus every target's existence.
pub fn check(root: &Path, output: &Path, base_url: &str, all: bool) -> Result<LinkReport> {
    let base = url::Url::parse(base_url).with_context(|| format!("the base URL {base_url:?}"))?;
    let mut report = LinkReport::default();
    let record_file = record_path(root, output);
    let pending = changes::load(root, output);
    let previous = trusted_record(&record_file, pending.as_ref(), output, base_url);
    let written = pending.map(|p| p.written).unwrap_or_default();
    let mut targets = Targets::default();
    let record = match previous {
        Ok(record) if !all => {
            let pages = Pages {
                output,
                base: &base,
            };
            pages.read_written(record, written, &mut targets, &mut report)?
        }
        previous => {
            report.full = true;
            // What each page was written from, where that is known for sure.
            let mut fps: FxHashMap<String, u64> = FxHashMap::default();
            match previous {
                Ok(r) => fps.extend(r.pages.into_iter().map(|(p, l)| (p, l.fp))),
                Err(why) if !all => report.fallback = Some(why),
                Err(_) => {}
            }
            fps.extend(written);
            let pages = Pages {
                output,
                base: &base,
            };
            pages.read_every(base_url, fps, &mut targets, &mut report)?
        }
    };
    drop(targets);
    let record = compact(record);
    report_problems(output, &base, &record, &mut report);
    // The record only saves time: a check that cannot save it still checked.
    if let Err(e) = save(&record_file, &record) {
        eprintln!("warning: could not save {}: {e:#}", record_file.display());
    } else if let Err(e) = changes::clear(root, output) {
        eprintln!(
            "warning: could not clear {}: {e:#}",
            changes::path(root, output).display()
        );
    }
    Ok(report)
}

/// The last check's record, if it can be trusted for this output folder and base URL with the
/// builds' record of the pages written since (`pending`); else why not.
fn trusted_record(
    record_file: &Path,
    pending: Option<&changes::Pending>,
    output: &Path,
    base_url: &str,
) -> Result<Record, String> {
    let r = load(record_file)?;
    if r.format != FORMAT || r.version != env!("CARGO_PKG_VERSION") {
        return Err(format!(
            "the link record was written by matome {} (this is {})",
            r.version,
            env!("CARGO_PKG_VERSION")
        ));
    }
    if r.output != output.to_string_lossy() || r.base_url != base_url {
        return Err(format!(
            "the link record is for {} at {}, not {} at {base_url}",
            r.output,
            r.base_url,
            output.display()
        ));
    }
    match pending {
        None => Err("no record of the pages builds wrote since the last check".into()),
        Some(p) if p.lost => {
            Err("a build found its record of written pages missing or corrupt".into())
        }
        Some(_) => Ok(r),
    }
}

/// The built site whose pages' links are read.
struct Pages<'a> {
    output: &'a Path,
    base: &'a url::Url,
}

impl Pages<'_> {
    /// The last check's `record` brought up to date: pages gone leave it, and the pages builds
    /// wrote since (`written`, each with its fingerprint) are read unless written from the
    /// fingerprint they were checked at.
    fn read_written(
        &self,
        mut record: Record,
        written: std::collections::BTreeMap<String, u64>,
        targets: &mut Targets,
        report: &mut LinkReport,
    ) -> Result<Record> {
        let output = self.output;
        for (i, t) in record.targets.iter().enumerate() {
            targets.ids.insert(t.clone(), i as u32);
        }
        // Pages gone from the output leave the record.
        let gone: Vec<String> = record
            .pages
            .par_iter()
            .filter(|(p, _)| !output.join(p).is_file())
            .map(|(p, _)| p.clone())
            .collect();
        for p in gone {
            record.pages.remove(&p);
        }
        // A page written again from the fingerprint it was checked at has the same bytes
        // (builds are deterministic): an output folder built anew is not read again.
        let mut todo: Vec<(String, u64)> = Vec::new();
        for (p, fp) in written {
            if !p.ends_with(".html") || !plain(&p) {
                continue;
            }
            if fp != 0 && record.pages.get(&p).is_some_and(|l| l.fp == fp) {
                report.unchanged += 1;
            } else if output.join(&p).is_file() {
                todo.push((p, fp));
            }
        }
        read_pages(output, self.base, &todo, &mut record, targets, report)?;
        Ok(record)
    }

    /// A new record of every HTML page of the output folder, each with the fingerprint it was
    /// written from where `fps` knows it.
    fn read_every(
        &self,
        base_url: &str,
        fps: FxHashMap<String, u64>,
        targets: &mut Targets,
        report: &mut LinkReport,
    ) -> Result<Record> {
        let output = self.output;
        let mut all_pages = Vec::new();
        for entry in walkdir::WalkDir::new(output).sort_by_file_name() {
            let entry = entry.with_context(|| format!("listing {}", output.display()))?;
            let path = entry.path();
            if !entry.file_type().is_file() || path.extension().is_none_or(|e| e != "html") {
                continue;
            }
            let rel = path.strip_prefix(output).unwrap_or(path);
            let rel = rel.to_string_lossy().replace('\\', "/");
            let fp = fps.get(&rel).copied().unwrap_or(0);
            all_pages.push((rel, fp));
        }
        drop(fps);
        let mut record = Record {
            format: FORMAT,
            version: env!("CARGO_PKG_VERSION").to_string(),
            output: output.to_string_lossy().into_owned(),
            base_url: base_url.to_string(),
            ..Record::default()
        };
        read_pages(output, self.base, &all_pages, &mut record, targets, report)?;
        Ok(record)
    }
}

/// A path read from a cache: relative, plain names only.
fn plain(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.contains(['\0', '\\'])
        && Path::new(rel)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

/// Reads `pages` (relative to `output`) in parallel batches and puts their links in the record.
fn read_pages(
    output: &Path,
    base: &url::Url,
    pages: &[(String, u64)],
    record: &mut Record,
    targets: &mut Targets,
    report: &mut LinkReport,
) -> Result<()> {
    for batch in pages.chunks(BATCH) {
        let read: Vec<Result<Found>> = batch
            .par_iter()
            .map(|(rel, _)| {
                let path = output.join(rel);
                // A page that cannot be read is a problem of that page; the rest are checked.
                let html = match std::fs::read(&path).map(String::from_utf8) {
                    Ok(Ok(html)) => html,
                    Ok(Err(_)) => return Ok((0, Vec::new(), vec!["not UTF-8 text".into()])),
                    Err(e) => return Ok((0, Vec::new(), vec![format!("cannot be read ({e})")])),
                };
                // 404.html is served at any depth, so its links must not be relative; resolve
                // it at the site root like the others.
                let page_url = base
                    .join(rel)
                    .with_context(|| format!("the URL of {}", path.display()))?;
                Ok(page_links(base, &page_url, &html))
            })
            .collect();
        for ((rel, fp), r) in batch.iter().zip(read) {
            let (links, mut found, problems) = r?;
            found.sort_unstable();
            found.dedup();
            let mut ids: Vec<u32> = found
                .into_iter()
                .map(|t| record.intern(targets, t))
                .collect();
            ids.sort_unstable();
            report.read_pages += 1;
            report.read_links += links as usize;
            record.pages.insert(
                rel.clone(),
                PageLinks {
                    fp: *fp,
                    links,
                    targets: ids,
                    problems,
                },
            );
        }
    }
    Ok(())
}

/// A page's links as read: how many, the targets they resolve to (with repeats), and the
/// problems of single links.
type Found = (u32, Vec<String>, Vec<String>);

/// A page's links ([`Found`]).
fn page_links(base: &url::Url, page: &url::Url, html: &str) -> Found {
    let (mut links, mut found, mut problems) = (0u32, Vec::new(), Vec::new());
    for link in attribute_values(html) {
        links += 1;
        match resolve(base, page, &link) {
            Resolved::Elsewhere => {}
            Resolved::Target(t) => found.push(t),
            Resolved::Problem(p) => problems.push(p),
        }
    }
    (links, found, problems)
}

/// Where one link of a page leads.
#[derive(Debug, PartialEq, Eq)]
enum Resolved {
    /// A fragment of the page itself, mail, or another site.
    Elsewhere,
    /// A path under the base path (percent-decoded, without query or fragment).
    Target(String),
    /// A link that is wrong whatever files there are.
    Problem(String),
}

fn resolve(base: &url::Url, page: &url::Url, link: &str) -> Resolved {
    if link.starts_with('#') || link.starts_with("mailto:") {
        return Resolved::Elsewhere;
    }
    let target = match page.join(link) {
        Ok(t) => t,
        Err(e) => return Resolved::Problem(format!("unparsable link {link:?} ({e})")),
    };
    if target.origin() != base.origin() {
        return Resolved::Elsewhere;
    }
    let Some(rel) = target.path().strip_prefix(base.path()) else {
        return Resolved::Problem(format!(
            "link {link:?} leaves the site's base path {}",
            base.path()
        ));
    };
    let rel = percent_encoding::percent_decode_str(rel)
        .decode_utf8_lossy()
        .into_owned();
    if rel.split('/').any(|s| s == "..") {
        return Resolved::Problem(format!("link {link:?} leaves the output folder"));
    }
    Resolved::Target(rel)
}

/// The file a target (a path under the base path) is served from.
fn target_file(output: &Path, target: &str) -> PathBuf {
    let file = output.join(target);
    if target.is_empty() || target.ends_with('/') {
        file.join("index.html")
    } else {
        file
    }
}

/// Keeps only the targets some page links to, renumbered.
fn compact(mut record: Record) -> Record {
    let mut used = vec![false; record.targets.len()];
    for l in record.pages.values() {
        for &t in &l.targets {
            used[t as usize] = true;
        }
    }
    let mut new_id = vec![u32::MAX; record.targets.len()];
    let mut kept = Vec::new();
    for (i, t) in std::mem::take(&mut record.targets).into_iter().enumerate() {
        if used[i] {
            new_id[i] = kept.len() as u32;
            kept.push(t);
        }
    }
    record.targets = kept;
    for l in record.pages.values_mut() {
        for t in &mut l.targets {
            *t = new_id[*t as usize];
        }
        // Ids are renumbered in the same order, so the list stays sorted.
    }
    record
}

/// Every problem the record holds, by page in path order: a link's own problems, then each
/// target that is no file in the output folder.
fn report_problems(output: &Path, base: &url::Url, record: &Record, report: &mut LinkReport) {
    let missing: Vec<bool> = record
        .targets
        .par_iter()
        .map(|t| !target_file(output, t).is_file())
        .collect();
    report.targets = record.targets.len();
    report.pages = record.pages.len();
    for (page, l) in &record.pages {
        report.links += l.links as usize;
        let shown = output.join(page);
        for p in &l.problems {
            report.problems.push(format!("{}: {p}", shown.display()));
        }
        for &t in &l.targets {
            if missing[t as usize] {
                let target = &record.targets[t as usize];
                report.problems.push(format!(
                    "{}: broken link \"{}{target}\" (no file {})",
                    shown.display(),
                    base.path(),
                    target_file(output, target).display()
                ));
            }
        }
    }
}

/// Every `href="…"` and `src="…"` value in a page (the built site always double-quotes).
fn attribute_values(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in [" href=\"", " src=\""] {
        let mut rest = html;
        while let Some(p) = rest.find(attr) {
            rest = &rest[p + attr.len()..];
            if let Some(end) = rest.find('"') {
                out.push(crate::text::decode_entities(&rest[..end]));
                rest = &rest[end..];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
