//! `matome check`: the config, every content file, and the internal links of the built site.
//!
//! Reports every problem it finds (not just the first), each with the file it is in, and exits
//! non-zero if there was any. Content checks go beyond parsing: an item archived twice, a file
//! whose name does not match the hour it declares, a `story` that names no story the archive
//! has (not an ID, or no item before it that is its story's first); only new or changed files
//! are parsed ([`content`]). Link checks ([`links`]) resolve every `href` and `src` of the built
//! HTML pages under the base path the site was built with, to a file in the output folder: by
//! default those of the pages builds wrote since the last check, plus every link into a file
//! that is gone; with `--all` those of every page (and every content file is parsed).

pub mod content;
pub mod links;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::config::Config;

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
    // build may run in between. A site it cannot lock (a read-only checkout) is still checked;
    // its records then cannot be saved either, and every check reads everything.
    let _lock = crate::fsutil::SiteLock::acquire_or_wait(root)
        .map_err(|e| eprintln!("warning: checking without the site lock: {e:#}"))
        .ok();
    let started = std::time::Instant::now();
    let config = match Config::load(root) {
        Ok(c) => Some(c),
        Err(e) => {
            r.problems.push(format!("{e:#}"));
            None
        }
    };
    let mut c = content::check(root, config.as_ref(), all);
    r.content_files = c.files;
    r.items = c.items;
    r.problems.append(&mut c.problems);
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
