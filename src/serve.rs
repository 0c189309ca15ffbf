//! `matome serve`: the local preview. Builds the site, serves the output folder on loopback
//! under the path of base_url (so links behave as on GitHub Pages), watches the inputs and
//! rebuilds incrementally, tells open pages to reload (server-sent events), shows build errors
//! as an overlay, and answers search queries from the tantivy index. A change of base_url's path
//! while serving re-roots the server after the rebuild: everything moves under the new path and
//! the old one redirects there (so an open page reloads onto the same page).
//!
//! The reload script is injected into HTML responses only; nothing of it is ever written to the
//! output folder, which stays exactly what `matome build` deploys. Modelled on mdBook's
//! `serve`: an explicit list of watched inputs (never the output), a debounce, a rebuild, a
//! broadcast.
//!
//! This file is the HTTP server: start-up, routing under the current base path, files (404.html,
//! traversal refused, the injected script), the Host check, re-rooting. The watcher, rebuilds and
//! the server-sent events are in `serve/live.rs` (beside `live.js`); `/api/search` is in
//! `serve/api.rs`.

use std::net::{IpAddr, SocketAddr};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, RwLock};

use anyhow::{Context, Result, anyhow};
use axum::Router;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::broadcast;

use crate::config::Config;
use crate::render;
use crate::search::index::SiteSearcher;

mod api;
mod live;

use api::api_search;
use live::{Signal, events, live_js, rebuild, watch};

/// `matome serve`'s options.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub bind: IpAddr,
    /// 0 picks a free port.
    pub port: u16,
}

/// Where the site is served: follows `base_url`'s path from build to build.
#[derive(Debug, Clone)]
struct Paths {
    /// `/` or `/REPO/`.
    base_path: String,
    /// `http://127.0.0.1:PORT/REPO/`: what search hits link to.
    local_url: String,
    /// The base path served before `base_url` last changed: redirected to `base_path`, so open
    /// pages that reload land on the same page under the new path.
    moved_from: Option<String>,
}

struct Shared {
    root: PathBuf,
    output: PathBuf,
    /// The address the server listens on.
    local: SocketAddr,
    paths: RwLock<Paths>,
    /// The Host headers this server answers (DNS rebinding defence): see [`allowed_hosts`].
    hosts: Hosts,
    /// The site's zone, for the search API's dates.
    timezone: chrono_tz::Tz,
    /// The last build's error, shown to pages that load while it stands.
    error: RwLock<Option<String>>,
    searcher: RwLock<Option<SiteSearcher>>,
    signals: broadcast::Sender<Signal>,
}

/// Builds and serves the site at `root` until Ctrl-C.
pub fn serve(root: &Path, opts: ServeOptions) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the server runtime")?;
    // Absolute: the watcher reports absolute paths.
    let root = root
        .canonicalize()
        .with_context(|| format!("resolving {}", root.display()))?;
    runtime.block_on(run(root, opts))
}

async fn run(root: PathBuf, opts: ServeOptions) -> Result<()> {
    let config = Config::load(&root)?;
    let base_path = crate::render::site::base_path(&config.base_url);
    let addr = SocketAddr::new(opts.bind, opts.port);
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        if e.kind() == std::io::ErrorKind::AddrInUse {
            anyhow!(
                "port {} on {} is already in use: stop what runs there, or choose another port with --port",
                opts.port,
                opts.bind
            )
        } else {
            anyhow!("listening on {addr}: {e}")
        }
    })?;
    let local = listener.local_addr()?;
    let (signals, _) = broadcast::channel(16);
    let shared = Arc::new(Shared {
        output: root.join(render::OUTPUT_DIR),
        local,
        paths: RwLock::new(Paths {
            local_url: format!("http://{local}{base_path}"),
            base_path,
            moved_from: None,
        }),
        hosts: allowed_hosts(local),
        timezone: config.timezone,
        root: root.clone(),
        error: RwLock::new(None),
        searcher: RwLock::new(None),
        signals,
    });
    {
        let shared = shared.clone();
        tokio::task::spawn_blocking(move || rebuild(&shared)).await?;
    }
    watch(shared.clone())?;

    // One handler that reads the base path per request: `base_url` may change while serving.
    let app = Router::new()
        .fallback(dispatch)
        .layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            check_host,
        ))
        .with_state(shared.clone());
    // Listen for Ctrl-C before saying we are up, so an early one is not missed.
    #[cfg(unix)]
    let mut interrupt = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .context("listening for Ctrl-C")?;
    println!(
        "serving {} at {} (Ctrl-C to stop)",
        config.title,
        shared.paths().local_url
    );
    let stopping = shared.clone();
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            #[cfg(unix)]
            interrupt.recv().await;
            #[cfg(not(unix))]
            let _ = tokio::signal::ctrl_c().await;
            println!("stopping");
            let _ = stopping.signals.send(Signal::Shutdown);
        })
        .await
        .context("serving")?;
    Ok(())
}

impl Shared {
    fn paths(&self) -> Paths {
        self.paths.read().unwrap().clone()
    }
}

/// Serves the site under `base_path` from now on (the build just made its links use it), the
/// old path redirecting there; says so on the terminal. Nothing when it is the same.
fn reroot(shared: &Shared, base_path: &str) {
    let mut paths = shared.paths.write().unwrap();
    if paths.base_path == base_path {
        return;
    }
    let old = std::mem::replace(&mut paths.base_path, base_path.to_string());
    paths.local_url = format!("http://{}{base_path}", shared.local);
    println!(
        "base_url's path changed from {old} to {base_path}: now serving at {} ({old} redirects there)",
        paths.local_url
    );
    paths.moved_from = Some(old);
}

fn content_type(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "xml" if p.file_name().is_some_and(|n| n == "atom.xml") => "application/atom+xml",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "txt" => "text/plain; charset=utf-8",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

/// What a request path names inside the output folder: under the base path, no `..`, no
/// absolute or empty-root part, inside the output folder even through symlinks. The canonical
/// path of an existing file or folder, else `None`.
fn locate(shared: &Shared, path: &str) -> Option<PathBuf> {
    let rest = path.strip_prefix(shared.paths().base_path.as_str())?;
    let rel = percent_encoding::percent_decode_str(rest)
        .decode_utf8()
        .ok()?;
    let rel = Path::new(rel.as_ref());
    if rel.components().any(|c| !matches!(c, Component::Normal(_)))
        || rel.to_string_lossy().contains('\0')
    {
        return None;
    }
    let canonical = shared.output.join(rel).canonicalize().ok()?;
    let output = shared.output.canonicalize().ok()?;
    canonical.starts_with(&output).then_some(canonical)
}

/// The output file a request path names, if it is one (a folder names its `index.html`).
fn resolve(shared: &Shared, path: &str) -> Option<PathBuf> {
    let mut p = locate(shared, path)?;
    if p.is_dir() {
        p = p.join("index.html").canonicalize().ok()?;
        let output = shared.output.canonicalize().ok()?;
        if !p.starts_with(&output) {
            return None;
        }
    }
    p.is_file().then_some(p)
}

/// Every request: the live-reload endpoints and the search API under the current base path,
/// else a file.
async fn dispatch(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let paths = shared.paths();
    let uri = request.uri().clone();
    if let Some(rest) = uri.path().strip_prefix(paths.base_path.as_str()) {
        let get = matches!(request.method(), &Method::GET | &Method::HEAD);
        match rest {
            "__matome/events" | "__matome/live.js" | "api/search" if !get => {
                return StatusCode::METHOD_NOT_ALLOWED.into_response();
            }
            "__matome/events" => return events(State(shared)).await.into_response(),
            "__matome/live.js" => return live_js().await.into_response(),
            "api/search" => return api_search(State(shared), Query::try_from_uri(&uri)).await,
            _ => {}
        }
    }
    files(&shared, &paths, &uri).await
}

async fn files(shared: &Shared, paths: &Paths, uri: &Uri) -> Response {
    let path = uri.path();
    if path == "/" && paths.base_path != "/" {
        return redirect(&paths.base_path);
    }
    // The path served before base_url changed: the same page under the new one.
    if let Some(rest) = paths
        .moved_from
        .as_deref()
        .filter(|old| *old != "/")
        .and_then(|old| path.strip_prefix(old))
        && !path.starts_with(paths.base_path.as_str())
    {
        let q = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
        return redirect(&format!("{}{rest}{q}", paths.base_path));
    }
    // A folder without its slash: as GitHub Pages does, redirect — only for a folder inside
    // the output folder (anything else is the same 404, so nothing outside is revealed), and
    // never to a `//host` (protocol-relative) Location.
    if !path.ends_with('/')
        && path.len() > paths.base_path.len()
        && !path.starts_with("//")
        && locate(shared, path).is_some_and(|p| p.is_dir())
    {
        let q = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
        return redirect(&format!("{path}/{q}"));
    }
    match resolve(shared, path) {
        Some(file) => match tokio::fs::read(&file).await {
            Ok(bytes) => respond(shared, StatusCode::OK, &file, bytes),
            Err(_) => not_found(shared).await,
        },
        None => not_found(shared).await,
    }
}

/// The Host headers a server bound to one address answers.
#[derive(Debug, Clone)]
struct Hosts {
    port: u16,
    /// The bound address (`127.0.0.1`, `::1`, …).
    bind: IpAddr,
}

/// The hosts of the server listening on `local`: `127.0.0.1:PORT`, `localhost:PORT`,
/// `[::1]:PORT` and the bound address with the port (without the port only on port 80). A
/// server bound to every interface (`--bind 0.0.0.0` or `::`) also answers any IP address with
/// its port: DNS rebinding needs a host *name*, and a LAN address is what such a bind is for.
fn allowed_hosts(local: SocketAddr) -> Hosts {
    Hosts {
        port: local.port(),
        bind: local.ip(),
    }
}

impl Hosts {
    fn allows(&self, host: &str) -> bool {
        // `name[:port]` or `[v6][:port]`.
        let (name, port) = if let Some(rest) = host.strip_prefix('[') {
            let Some((v6, after)) = rest.split_once(']') else {
                return false;
            };
            match after.strip_prefix(':') {
                Some(p) => (v6, Some(p)),
                None if after.is_empty() => (v6, None),
                None => return false,
            }
        } else {
            match host.rsplit_once(':') {
                // An IPv6 address must be in brackets.
                Some((n, _)) if n.contains(':') => return false,
                Some((n, p)) => (n, Some(p)),
                None => (host, None),
            }
        };
        let port_ok = match port {
            Some(p) => p.parse::<u16>().is_ok_and(|p| p == self.port),
            None => self.port == 80,
        };
        if !port_ok {
            return false;
        }
        if name.eq_ignore_ascii_case("localhost") {
            return true;
        }
        let Ok(ip) = name.parse::<IpAddr>() else {
            return false;
        };
        ip == IpAddr::from([127, 0, 0, 1])
            || ip == IpAddr::from(std::net::Ipv6Addr::LOCALHOST)
            || ip == self.bind
            || self.bind.is_unspecified()
    }
}

/// Refuses requests for any other host with 403 before they reach a handler: a web page whose
/// name was rebound to 127.0.0.1 (DNS rebinding) would otherwise read the preview and its API.
async fn check_host(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()));
    match host {
        Some(h) if shared.hosts.allows(h) => next.run(request).await,
        _ => (
            StatusCode::FORBIDDEN,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            format!(
                "this server answers only for its own address: open {}\n",
                shared.paths().local_url
            ),
        )
            .into_response(),
    }
}

fn redirect(to: &str) -> Response {
    let mut r = StatusCode::MOVED_PERMANENTLY.into_response();
    if let Ok(v) = HeaderValue::from_str(to) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

async fn not_found(shared: &Shared) -> Response {
    let page = shared.output.join("404.html");
    match tokio::fs::read(&page).await {
        Ok(bytes) => respond(shared, StatusCode::NOT_FOUND, &page, bytes),
        Err(_) => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// A file's response; HTML gets the live-reload script (served, never written to the output).
fn respond(shared: &Shared, status: StatusCode, file: &Path, mut bytes: Vec<u8>) -> Response {
    let ct = content_type(file);
    if ct.starts_with("text/html") {
        let base = shared.paths().base_path;
        let tag =
            format!("<script src=\"{base}__matome/live.js\" data-base=\"{base}\" defer></script>");
        let at = find_last(&bytes, b"</body>").unwrap_or(bytes.len());
        bytes.splice(at..at, tag.into_bytes());
        // The search page asks the live index instead of the static one.
        let meta = format!("<meta name=\"matome-api\" content=\"{base}api/search\">");
        if let Some(at) = find_last(&bytes, b"</head>") {
            bytes.splice(at..at, meta.into_bytes());
        }
    }
    (
        status,
        [
            (header::CONTENT_TYPE, ct),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        bytes,
    )
        .into_response()
}

fn find_last(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

#[cfg(test)]
mod tests;
