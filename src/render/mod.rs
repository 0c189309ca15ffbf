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
pub mod record;
mod rising;
pub mod safety;
pub mod site;
pub mod size;
pub mod story;
pub mod strings;
pub mod theme;
pub mod views;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::config::Config;
use crate::content::BrokenFile;
use crate::content::archive::Archive;
use crate::fetch::state::FetchState;
use crate::fsutil;
use crate::hash::Fp;
use page::{Kind, Page};
use record::{BuildState, PageRecord, STATE_VERSION, confined, load_state, state_path};
use site::BaseUrl;
use site::Site;
use theme::Theme;
use views::Snapshots;

/// The default output folder at the site root.
pub const OUTPUT_DIR: &str = "public";

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
    /// What updating the search index did.
    pub search: crate::search::index::IndexReport,
    /// The output folder's bytes and files after the build.
    pub size: size::SiteSize,
    /// Set when the output is above `[build] size_warning_mb`: what to do about it.
    pub size_warning: Option<String>,
    pub elapsed: Duration,
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

/// A `--base-url` given on the command line, normalised ([`crate::config::normalize_base_url`]).
pub fn normalize_base_url(s: &str) -> Result<String> {
    crate::config::normalize_base_url(s).with_context(|| {
        format!(
            "base URL must be an absolute http(s) URL such as https://USER.github.io/REPO/, not {:?}",
            s.trim()
        )
    })
}

/// Builds the site at `root`, in four steps: [`load`] the inputs (config, archive, search
/// index, theme, fetch state), [`plan_build`] every output file and which of them changed,
/// [`render`] those (and the static search index), [`reconcile`] the output folder and the
/// records with what was written.
pub fn build(root: &Path, opts: &BuildOptions) -> Result<BuildReport> {
    let started = Instant::now();
    let mut phases = Phases::new(started);
    let inputs = load(root, opts, &mut phases)?;
    let site = Site::new(&inputs.config, &inputs.archive, inputs.base.clone());
    phases.end("site");
    let planned = plan_build(&inputs, &site, &mut phases)?;
    let rendered = render(&inputs, &site, &planned, &mut phases)?;
    let done = reconcile(&inputs, &planned, rendered, &mut phases)?;
    if phases.on {
        // Every TOML parse of a snapshot this process made (a cold build: one per file).
        eprintln!("snapshot parses: {}", crate::content::derived::parses());
    }
    Ok(BuildReport {
        size_warning: done
            .size
            .warning(&inputs.output, inputs.config.build.size_warning_mb as u64),
        size: done.size,
        digests: inputs.archive.digests.len(),
        items: inputs.archive.items.len(),
        pages: planned.pages.len(),
        rendered: planned.todo.len(),
        written: done.written,
        removed: done.removed,
        search: inputs.search,
        output: inputs.output,
        elapsed: started.elapsed(),
    })
}

/// What a build is made from, read once under the site lock.
struct Inputs {
    root: PathBuf,
    config: Config,
    /// matome.toml's bytes (every fingerprint covers them).
    config_text: Vec<u8>,
    /// `--base-url` or the config's, normalised: the one the site and the theme read.
    base: std::sync::Arc<BaseUrl>,
    /// The output folder, canonical.
    output: PathBuf,
    /// Held until the build ends: a fetch may be writing content/.
    _lock: fsutil::SiteLock,
    archive: Archive,
    /// Snapshot files that do not parse: left out of the archive, named at the end.
    broken: Vec<BrokenFile>,
    /// What bringing the tantivy index up to date did.
    search: crate::search::index::IndexReport,
    theme: Theme,
    /// The fetch state the feed-health page shows, and its fingerprint.
    health: FetchState,
    health_fp: u64,
}

/// Step 1: the config, the output folder, the site lock, the archive (a file that does not
/// parse is left out: every other page builds), the tantivy index brought up to date, the
/// theme and the fetch state.
fn load(root: &Path, opts: &BuildOptions, phases: &mut Phases) -> Result<Inputs> {
    let config = Config::load(root)?;
    let config_text = std::fs::read(crate::config::config_path(root)).unwrap_or_default();
    let base_url = match &opts.base_url {
        Some(u) => normalize_base_url(u).context("--base-url")?,
        None => config.base_url.clone(),
    };
    let output = opts.output.clone().unwrap_or_else(|| root.join(OUTPUT_DIR));
    std::fs::create_dir_all(&output)
        .with_context(|| format!("creating the output folder {}", output.display()))?;
    let output = output
        .canonicalize()
        .with_context(|| format!("resolving {}", output.display()))?;
    if root.canonicalize().is_ok_and(|r| r == output) {
        bail!("the output folder cannot be the site root; use --output public");
    }
    let lock = fsutil::SiteLock::acquire_or_wait(root)?;
    let (archive, broken) = Archive::load_partial(root)?;
    phases.end("archive");
    let search = crate::search::index::update(root, &config, &archive)?;
    phases.end("search index");
    let base = BaseUrl::new(base_url);
    let theme = Theme::load(root, &config.theme, base.clone(), config.timezone)?;
    theme
        .warnings
        .iter()
        .for_each(|w| eprintln!("warning: {w}"));
    // A missing fetch state is empty, an unreadable one is empty with the reason shown.
    let health = FetchState::load_for_health(root);
    let mut state_bytes = serde_json::to_vec(&health)?;
    state_bytes.extend_from_slice(health.load_error.as_deref().unwrap_or("").as_bytes());
    let health_fp = crate::hash::fnv1a(&state_bytes);
    phases.end("theme, health");
    Ok(Inputs {
        root: root.to_path_buf(),
        config,
        config_text,
        base,
        output,
        _lock: lock,
        archive,
        broken,
        search,
        theme,
        health,
        health_fp,
    })
}

/// Every output file of the site and what this build must render.
struct Planned {
    pages: Vec<Page>,
    sitemap: Vec<views::sitemap::SitemapUrl>,
    /// The fingerprint of what every output file depends on besides its own inputs.
    global: u64,
    /// The last build's record.
    old: BuildState,
    /// The pages to render (places in `pages`): a new fingerprint, or missing from the folder.
    todo: Vec<usize>,
}

/// Step 2: every output file with its fingerprint (its own inputs, then the build's global
/// ones: matome's version, the base URL, the theme, matome.toml), and those whose fingerprint
/// differs from the last build's record or whose file is missing.
fn plan_build(inputs: &Inputs, site: &Site, phases: &mut Phases) -> Result<Planned> {
    let plan::Plan { mut pages, sitemap } = plan::plan(site, inputs.health_fp);
    phases.end("plan");
    plan::check_unique_paths(site, &pages)?;
    let mut global = Fp::new("build");
    global
        .str(env!("CARGO_PKG_VERSION"))
        .str(inputs.base.url())
        .u64(inputs.theme.fingerprint)
        .bytes(&inputs.config_text)
        // Names given long slugs (their URLs depend on other names): rare, then a full build.
        .u64(plan::slug_collisions(site));
    let global = global.0;
    for p in &mut pages {
        p.fp = Fp(p.fp).u64(global).0;
    }
    let old = load_state(&state_path(&inputs.root, &inputs.output));
    phases.end("unique paths, global, record");
    let output = &inputs.output;
    let todo: Vec<usize> = (0..pages.len())
        .into_par_iter()
        .filter(|&i| {
            let p = &pages[i];
            !old.pages
                .get(&p.path)
                .is_some_and(|r| r.fingerprint == p.fp && r.size.is_some())
                || !output.join(&p.path).exists()
        })
        .collect();
    phases.end("todo");
    Ok(Planned {
        pages,
        sitemap,
        global,
        old,
        todo,
    })
}

/// What rendering wrote.
struct Rendered {
    /// Per page of [`Planned::todo`], in its order: whether its bytes changed and their length.
    pages: Vec<Result<(bool, u64)>>,
    /// The static files whose bytes changed, with their fingerprints.
    statics: Vec<(String, u64)>,
    search: crate::search::site_index::Written,
}

/// Step 3: the pages to render, each from the snapshot files it shows, written where their
/// bytes changed; at the same time the static search index; then the theme's static files.
fn render(
    inputs: &Inputs,
    site: &Site,
    planned: &Planned,
    phases: &mut Phases,
) -> Result<Rendered> {
    let ctx = views::Ctx::new(site, &inputs.theme, &inputs.health, &planned.sitemap);
    let feed_snapshots = Mutex::new(Snapshots::default());
    let output = &inputs.output;
    let (pages, search) = rayon::join(
        || -> Vec<Result<(bool, u64)>> {
            planned
                .todo
                .par_iter()
                .map(|&i| {
                    let p = &planned.pages[i];
                    read_snapshots(site, &p.kind, &feed_snapshots)
                        .and_then(|snapshots| views::render(&ctx, p, &snapshots))
                        .and_then(|bytes| {
                            fsutil::write_if_changed(&output.join(&p.path), &bytes)
                                .map(|w| (w, bytes.len() as u64))
                        })
                        .with_context(|| format!("page {}", p.path))
                })
                .collect()
        },
        || {
            let source = crate::search::site_index::Source {
                archive: site.archive,
                tz: site.tz(),
                digest_url: &|d| site.digest_url(d),
            };
            crate::search::site_index::write(
                &inputs.root,
                &source,
                output,
                planned.global,
                &planned.old.search_months,
            )
        },
    );
    phases.end("render, static search");
    let mut statics = Vec::new();
    for (rel, bytes) in &inputs.theme.statics {
        if fsutil::write_if_changed(&output.join(rel), bytes)? {
            statics.push((rel.clone(), crate::hash::fnv1a(bytes)));
        }
    }
    Ok(Rendered {
        pages,
        statics,
        search: search?,
    })
}

/// What the build did to the output folder.
struct Reconciled {
    written: usize,
    removed: usize,
    size: size::SiteSize,
}

/// The pages rendered, added up.
struct Tally<'a> {
    /// Pages whose bytes changed.
    written: usize,
    /// What `matome check` reads instead of every page ([`changes`]): each file written, with
    /// its fingerprint.
    written_paths: Vec<(String, u64)>,
    errors: Vec<String>,
    failed: std::collections::HashSet<&'a str>,
    /// The size of each page rendered now (the others keep the last build's).
    sizes: FxHashMap<&'a str, u64>,
}

impl<'a> Tally<'a> {
    fn of(planned: &'a Planned, pages: Vec<Result<(bool, u64)>>) -> Tally<'a> {
        let mut t = Tally {
            written: 0,
            written_paths: Vec::new(),
            errors: Vec::new(),
            failed: Default::default(),
            sizes: FxHashMap::default(),
        };
        for (r, &i) in pages.into_iter().zip(&planned.todo) {
            let page = &planned.pages[i];
            match r {
                Ok((w, len)) => {
                    t.sizes.insert(page.path.as_str(), len);
                    if w {
                        t.written += 1;
                        t.written_paths.push((page.path.clone(), page.fp));
                    }
                }
                Err(e) => {
                    t.errors.push(format!("{e:#}"));
                    t.failed.insert(page.path.as_str());
                }
            }
        }
        t
    }
}

/// Step 4: the files of the last build the site no longer has deleted, the pages written handed
/// to `matome check` ([`changes`]), the build record saved, failures reported, the site's size.
fn reconcile(
    inputs: &Inputs,
    planned: &Planned,
    rendered: Rendered,
    phases: &mut Phases,
) -> Result<Reconciled> {
    let old = &planned.old;
    let mut tally = Tally::of(planned, rendered.pages);
    let written = tally.written + rendered.statics.len() + rendered.search.files;
    tally.written_paths.extend(rendered.statics);
    let Tally {
        written_paths,
        errors,
        failed,
        sizes,
        ..
    } = tally;
    let live: std::collections::HashSet<&str> = planned
        .pages
        .iter()
        .map(|p| p.path.as_str())
        .chain(inputs.theme.statics.keys().map(String::as_str))
        .collect();
    // With a broken content file its pages are missing from the plan: keep what the last build
    // wrote of them until it is fixed (the build fails, so nothing half-built is deployed).
    let (removed, kept) = if inputs.broken.is_empty() {
        (remove_gone(&inputs.output, old, &live), Vec::new())
    } else {
        let kept: Vec<(String, PageRecord)> = old
            .pages
            .iter()
            .filter(|(p, _)| !live.contains(p.as_str()))
            .map(|(p, r)| (p.clone(), *r))
            .collect();
        (0, kept)
    };
    phases.end("statics, removed");
    changes::add(&inputs.root, &inputs.output, written_paths);
    phases.end("changes");
    let pages = planned
        .pages
        .iter()
        .filter(|p| !failed.contains(p.path.as_str()))
        .map(|p| {
            let len = sizes
                .get(p.path.as_str())
                .copied()
                .or_else(|| old.pages.get(&p.path).and_then(|r| r.size))
                .unwrap_or(0);
            let record = PageRecord {
                fingerprint: p.fp,
                size: Some(len),
            };
            (p.path.clone(), record)
        })
        .chain(kept)
        .collect();
    let state = BuildState {
        version: STATE_VERSION,
        base_url: inputs.base.url().to_string(),
        pages,
        statics: inputs.theme.statics.keys().cloned().collect(),
        search_months: rendered.search.months,
    };
    let changed = !planned.todo.is_empty() || removed > 0 || rendered.search.files > 0;
    save_record(inputs, old, &state, changed);
    report_failures(inputs, planned, &errors)?;
    phases.end("record");
    // What this build and the last ones wrote, from the record: walking the output folder took
    // longer than the rest of an hourly build at three years (93,000 files).
    let size = size::SiteSize::of_record(
        state.pages.values().map(|r| r.size.unwrap_or(0)),
        inputs.theme.statics.values().map(|b| b.len() as u64),
        state.search_months.values().map(|m| &m.shard),
        rendered.search.manifest_bytes,
    );
    phases.end("size");
    Ok(Reconciled {
        written,
        removed,
        size,
    })
}

/// Deletes the files of the last build (`old`) that are not `live`, and the folders they leave
/// empty; returns how many files went. The record is a cache (a CI cache may be poisoned): a
/// path outside the output folder is never deleted ([`confined`]).
fn remove_gone(output: &Path, old: &BuildState, live: &std::collections::HashSet<&str>) -> usize {
    let mut removed = 0;
    for gone in old
        .pages
        .keys()
        .chain(old.statics.iter())
        .filter(|p| !live.contains(p.as_str()))
    {
        let Some(path) = confined(output, gone) else {
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
    removed
}

/// Saves the build record when anything in it changed. The record only saves time: a build
/// that cannot save it still succeeded, and one lost in a crash means a full build (no fsync).
fn save_record(inputs: &Inputs, old: &BuildState, state: &BuildState, changed: bool) {
    if (changed
        || old.version != state.version
        || old.base_url != state.base_url
        || old.statics != state.statics
        || old.search_months.keys().ne(state.search_months.keys()))
        && let Some(bytes) = fsutil::to_sealed(state)
    {
        let _ = fsutil::write_if_changed(&state_path(&inputs.root, &inputs.output), &bytes);
    }
}

/// The build's error, if a content file did not parse (exit status 2, like a config error: the
/// curator must fix the file) or pages could not be rendered.
fn report_failures(inputs: &Inputs, planned: &Planned, errors: &[String]) -> Result<()> {
    if !inputs.broken.is_empty() {
        bail!(
            "{:#}\n(every other page was built: {} of {} files rendered{})",
            crate::content::broken_files_error(&inputs.broken),
            planned.todo.len() - errors.len(),
            planned.pages.len(),
            if errors.is_empty() {
                String::new()
            } else {
                format!("; {} page(s) failed: {}", errors.len(), errors.join("; "))
            }
        );
    }
    if !errors.is_empty() {
        let shown: Vec<&str> = errors.iter().take(10).map(String::as_str).collect();
        bail!(
            "{} page(s) could not be rendered:\n  {}{}",
            errors.len(),
            shown.join("\n  "),
            if errors.len() > 10 { "\n  …" } else { "" }
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests;
