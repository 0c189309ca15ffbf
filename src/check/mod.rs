//! `matome check`: the config, every content file, and the internal links of the built site.
//!
//! Reports every problem it finds (not just the first), each with the file it is in, and exits
//! non-zero if there was any. Content checks go beyond parsing: an item archived twice, a file
//! whose name does not match the hour it declares. Link checks ([`links`]) resolve every `href`
//! and `src` of the built HTML pages under the base path the site was built with, to a file in
//! the output folder: by default those of the pages builds wrote since the last check, plus
//! every link into a file that is gone; with `--all` those of every page.

pub mod links;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::config::Config;
use crate::content::{self, ItemKey};

/// What `check` found.
#[derive(Debug, Default)]
pub struct CheckReport {
    pub problems: Vec<String>,
    pub content_files: usize,
    pub items: usize,
    pub pages: usize,
    pub links: usize,
    /// What the link check read and why (see [`links::LinkReport`]).
    pub link_check: links::LinkReport,
}

/// Checks the site at `root`; `output` is the built site (default public/). `all` reads every
/// page's links; otherwise only those of the pages builds wrote since the last check (and every
/// link into a file that is gone), unless the record of the last check cannot be trusted.
pub fn check(root: &Path, output: Option<PathBuf>, all: bool) -> Result<CheckReport> {
    let mut r = CheckReport::default();
    // The check keeps a record of the links and clears the builds' record of written pages: no
    // build may run in between.
    let _lock = crate::fsutil::SiteLock::acquire_or_wait(root)?;
    let started = std::time::Instant::now();
    let config = match Config::load(root) {
        Ok(c) => Some(c),
        Err(e) => {
            r.problems.push(format!("{e:#}"));
            None
        }
    };
    check_content(root, config.as_ref(), &mut r);
    let t_content = started.elapsed();
    let output = output.unwrap_or_else(|| root.join(crate::render::OUTPUT_DIR));
    if !output.join("index.html").exists() {
        r.problems.push(format!(
            "{}: no built site here; run `matome build` first",
            output.display()
        ));
        return Ok(r);
    }
    let base_url = crate::render::last_base_url(root, &output)
        .or_else(|| config.map(|c| c.base_url))
        .unwrap_or_else(|| "http://localhost/".into());
    let output = output
        .canonicalize()
        .with_context(|| format!("resolving {}", output.display()))?;
    let mut l = links::check(root, &output, &base_url, all)?;
    if std::env::var_os("MATOME_TIMINGS").is_some() {
        eprintln!(
            "content {t_content:?} links {:?}",
            started.elapsed() - t_content
        );
    }
    r.pages = l.pages;
    r.links = l.links;
    r.problems.append(&mut l.problems);
    r.link_check = l;
    Ok(r)
}

fn check_content(root: &Path, config: Option<&Config>, r: &mut CheckReport) {
    let paths = match content::snapshot_paths(root) {
        Ok(p) => p,
        Err(e) => {
            r.problems.push(format!("{e:#}"));
            return;
        }
    };
    r.content_files = paths.len();
    let mut seen: HashMap<ItemKey, String> = HashMap::new();
    for path in paths {
        let shown = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let snapshot = match content::Snapshot::load(&path) {
            Ok(s) => s,
            Err(e) => {
                r.problems.push(format!("{e:#}"));
                continue;
            }
        };
        let hour = match config {
            Some(c) => snapshot.hour.with_timezone(&c.timezone).fixed_offset(),
            None => snapshot.hour,
        };
        let expected = content::snapshot_rel_path(&hour);
        if !path.ends_with(&expected) {
            r.problems.push(format!(
                "{shown}: its hour is {} but the file for that hour is {}",
                content::rfc3339(&snapshot.hour),
                expected.display()
            ));
        }
        for item in &snapshot.items {
            r.items += 1;
            if let Some(first) = seen.insert(item.key(), shown.clone()) {
                r.problems.push(format!(
                    "{shown}: item {:?} of feed {} is also in {first}; an item is archived once",
                    item.id, item.feed
                ));
            }
        }
    }
}
