//! `matome serve`'s live reload: the watcher over the inputs (never the output folder or the
//! caches), the debounced rebuild, and what open pages are told over server-sent events
//! (reload, a build error for the overlay, shutdown), with the script (`live.js`) that listens.
//! Serving files and routing are [`super`]'s.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::response::sse::{Event, KeepAlive, Sse};
use tokio::sync::broadcast;

use super::{Shared, reroot};
use crate::config::Config;
use crate::render::{self, BuildOptions};
use crate::search::index::SiteSearcher;

/// What open pages are told.
#[derive(Debug, Clone)]
pub(super) enum Signal {
    Reload,
    Error(String),
    /// The server stops: event streams end, so open pages do not hold the shutdown up.
    Shutdown,
}

/// Builds the site; on success pages reload, on failure they show the error.
pub(super) fn rebuild(shared: &Shared) {
    match render::build(&shared.root, &BuildOptions::default()) {
        Ok(r) => {
            println!(
                "built: {} rendered, {} written, {} removed in {:.2} s",
                r.rendered,
                r.written,
                r.removed,
                r.elapsed.as_secs_f64()
            );
            let config = Config::load(&shared.root);
            if let Ok(c) = &config {
                reroot(shared, &crate::render::site::base_path(&c.base_url));
            }
            *shared.error.write().unwrap() = None;
            let local_url = shared.paths().local_url;
            let searcher = config.and_then(|c| SiteSearcher::open(&shared.root, &c, &local_url));
            *shared.searcher.write().unwrap() = searcher.ok();
            let _ = shared.signals.send(Signal::Reload);
        }
        Err(e) => {
            let msg = format!("{e:#}");
            eprintln!("error: {msg}");
            *shared.error.write().unwrap() = Some(msg.clone());
            let _ = shared.signals.send(Signal::Error(msg));
        }
    }
}

/// The inputs a change to which rebuilds the site (never the output folder or the caches).
const WATCHED: &[&str] = &["content", "templates", "themes", "static"];

pub(super) fn is_input(root: &Path, p: &Path) -> bool {
    let Ok(rel) = p.strip_prefix(root) else {
        return false;
    };
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    // Editors' temporary and backup files.
    if name.starts_with('.')
        || name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".tmp")
    {
        return false;
    }
    let first = rel
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    first == crate::config::CONFIG_FILE || WATCHED.contains(&first.as_str())
}

/// Watches the inputs on a thread of its own: events are debounced (a save is often several
/// events), then the site is rebuilt.
pub(super) fn watch(shared: Arc<Shared>) -> Result<()> {
    use notify::{RecursiveMode, Watcher};
    let (tx, rx) = std::sync::mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(tx).context("starting the file watcher")?;
    let root = shared.root.clone();
    // The root itself (not recursively: the output folder is there) for matome.toml and for
    // input folders created later.
    watcher
        .watch(&root, RecursiveMode::NonRecursive)
        .with_context(|| format!("watching {}", root.display()))?;
    let mut watched: Vec<PathBuf> = Vec::new();
    fn add(root: &Path, watcher: &mut notify::RecommendedWatcher, watched: &mut Vec<PathBuf>) {
        for d in WATCHED {
            let p = root.join(d);
            if p.is_dir()
                && !watched.contains(&p)
                && watcher.watch(&p, RecursiveMode::Recursive).is_ok()
            {
                watched.push(p);
            }
        }
    }
    add(&root, &mut watcher, &mut watched);
    std::thread::Builder::new()
        .name("matome-watch".into())
        .spawn(move || {
            let quiet = Duration::from_millis(250);
            while let Ok(first) = rx.recv() {
                let changes = |e: notify::Result<notify::Event>| {
                    // Reading a file (the build reads content/) is not a change.
                    e.is_ok_and(|e| {
                        !matches!(e.kind, notify::EventKind::Access(_))
                            && e.paths.iter().any(|p| is_input(&root, p))
                    })
                };
                let mut relevant = changes(first);
                // Debounce: wait until the inputs have been quiet for a moment.
                loop {
                    match rx.recv_timeout(quiet) {
                        Ok(e) => relevant |= changes(e),
                        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => break,
                        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return,
                    }
                }
                if relevant {
                    add(&root, &mut watcher, &mut watched);
                    rebuild(&shared);
                }
            }
        })
        .context("starting the watcher thread")?;
    Ok(())
}

pub(super) async fn events(
    State(shared): State<Arc<Shared>>,
) -> Sse<impl futures_util::Stream<Item = Result<Event, std::convert::Infallible>>> {
    let rx = shared.signals.subscribe();
    // A page that loads while the build is broken sees the error at once.
    let pending = shared.error.read().unwrap().clone().map(Signal::Error);
    let stream = futures_util::stream::unfold((rx, pending), |(mut rx, pending)| async move {
        let signal = match pending {
            Some(s) => s,
            None => loop {
                match rx.recv().await {
                    Ok(s) => break s,
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            },
        };
        let event = match signal {
            Signal::Reload => Event::default().event("reload").data("reload"),
            Signal::Error(msg) => Event::default().event("build-error").data(msg),
            Signal::Shutdown => return None,
        };
        Some((Ok(event), (rx, None)))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

const LIVE_JS: &str = include_str!("live.js");

pub(super) async fn live_js() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        LIVE_JS,
    )
}
