//! A scriptable, std-only HTTP/1.1 test server.
//!
//! ```ignore
//! let server = TestServer::new();
//! server.route("/feed.xml", Response::fixture("rss2.xml").etag("\"v1\"").conditional());
//! server.route("/flaky", |_req: &Request, hit: usize| {
//!     if hit == 0 { Response::status(503).header("Retry-After", "1") } else { Response::ok("ok") }
//! });
//! let url = server.url("/feed.xml");
//! // ... run matome ...
//! let reqs = server.requests("/feed.xml");
//! assert_eq!(reqs[1].header("if-none-match").as_deref(), Some("\"v1\""));
//! ```
//!
//! Every connection is answered once and closed (`Connection: close`).
//! Connection threads are detached and watch a shutdown flag, so dropping the
//! server (or the test process exiting) never waits for a hanging client.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime};

/// How long a `hang` response keeps the socket open by default.
pub const DEFAULT_HANG: Duration = Duration::from_secs(120);
/// Upper bound on how long an `endless` body is written (safety net).
pub const ENDLESS_MAX: Duration = Duration::from_secs(600);
/// Inflated size of [`Response::gzip_bomb`]: 512 MiB. (Deflate tops out at
/// ~1032:1, so a 1 GiB bomb would be ~1.06 MB on the wire — more than the
/// 1 MiB `max_body_bytes` the size-limit tests set, making such a test ambiguous.
/// At 512 MiB the wire size is ~530 KB, comfortably below it.)
pub const GZIP_BOMB_SIZE: u64 = 512 << 20;

const MAX_REQUEST_HEAD: usize = 64 * 1024;
const REQUEST_HEAD_DEADLINE: Duration = Duration::from_secs(10);
/// The route that answers any path no other route matches.
pub const FALLBACK: &str = "*";

const POLL: Duration = Duration::from_millis(20);

// ---------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------

/// One request as received by the server.
#[derive(Clone, Debug)]
pub struct Request {
    /// `GET`, `HEAD`, ...
    pub method: String,
    /// Request target exactly as sent, e.g. `/feed.xml?x=1`.
    pub target: String,
    /// Target without the query string, e.g. `/feed.xml`.
    pub path: String,
    /// `HTTP/1.1`
    #[allow(dead_code, reason = "shown by {:?} in failing tests' messages")]
    pub version: String,
    /// Headers in the order received, names as sent.
    pub headers: Vec<(String, String)>,
    /// When the request head was fully received.
    pub received_at: Instant,
    /// Wall-clock time of `received_at`.
    #[allow(dead_code, reason = "shown by {:?} in failing tests' messages")]
    pub received_at_system: SystemTime,
    /// 0-based index of this request among requests for the same `path`.
    pub hit: usize,
    /// 0-based index among all requests to this server.
    #[allow(dead_code, reason = "shown by {:?} in failing tests' messages")]
    pub seq: usize,
    /// The client's address.
    #[allow(dead_code, reason = "shown by {:?} in failing tests' messages")]
    pub peer: SocketAddr,
}

impl Request {
    /// First header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    }

    /// Whether a header with this name was sent (case-insensitive); `benches/fetch.rs` counts
    /// conditional requests with it.
    #[allow(
        dead_code,
        reason = "used by benches/fetch.rs, which includes this file"
    )]
    pub fn has_header(&self, name: &str) -> bool {
        self.headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case(name))
    }

    /// Query string without the `?`, if any.
    pub fn query(&self) -> Option<&str> {
        self.target.split_once('?').map(|(_, q)| q)
    }
}

// ---------------------------------------------------------------------------
// Response
// ---------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Kind {
    /// Status line, headers, body.
    Normal,
    /// Bytes written verbatim (no status line or headers are generated).
    Raw(Arc<[u8]>),
    /// Read the request, optionally send head + some body bytes, then keep
    /// the socket open without sending anything more.
    Hang {
        send_head: bool,
        body_bytes: usize,
        hold: Duration,
    },
    /// Head (no Content-Length), `head` bytes, then `repeat` forever.
    Endless { head: Arc<[u8]>, repeat: Arc<[u8]> },
    /// Normal response, but written one byte per `interval`.
    Trickle {
        interval: Duration,
        include_head: bool,
    },
}

/// A scripted response. Build with the constructors and chain modifiers.
#[derive(Clone, Debug)]
pub struct Response {
    status: u16,
    reason: Option<String>,
    headers: Vec<(String, String)>,
    body: Arc<[u8]>,
    auto_content_length: bool,
    chunked: bool,
    conditional: bool,
    delay: Duration,
    kind: Kind,
}

impl Response {
    /// A response with this status and an empty body.
    pub fn status(status: u16) -> Self {
        Response {
            status,
            reason: None,
            headers: Vec::new(),
            body: Arc::from(Vec::new()),
            auto_content_length: true,
            chunked: false,
            conditional: false,
            delay: Duration::ZERO,
            kind: Kind::Normal,
        }
    }

    /// 200 with this body (no Content-Type unless you add one).
    pub fn ok(body: impl Into<Vec<u8>>) -> Self {
        Self::status(200).body(body)
    }

    /// 200, `Content-Type: application/rss+xml` (no charset parameter).
    pub fn rss(body: impl Into<Vec<u8>>) -> Self {
        Self::ok(body).content_type("application/rss+xml")
    }

    /// 200 with the bytes of `tests/fixtures/feeds/<name>`, and a Content-Type
    /// (without charset) guessed from the name: `*.json` → application/feed+json,
    /// `atom*` → application/atom+xml, `rss1*`/`rss090*` → application/rdf+xml,
    /// other `*.xml` → application/rss+xml, anything else → application/octet-stream.
    pub fn fixture(name: &str) -> Self {
        let ct = if name.ends_with(".json") {
            "application/feed+json"
        } else if name.starts_with("atom") {
            "application/atom+xml"
        } else if name.starts_with("rss1") || name.starts_with("rss090") {
            "application/rdf+xml"
        } else if name.ends_with(".xml") {
            "application/rss+xml"
        } else {
            "application/octet-stream"
        };
        Self::ok(super::fixture(name)).content_type(ct)
    }

    /// 404 with a short text body.
    pub fn not_found() -> Self {
        Self::status(404)
            .content_type("text/plain; charset=utf-8")
            .body("not found")
    }

    /// `status` (301, 302, 303, 307, 308) with `Location: location`.
    /// `location` may be absolute (`server.url("/b")`) or a path (`/b`).
    pub fn redirect(status: u16, location: &str) -> Self {
        Self::status(status)
            .header("Location", location)
            .content_type("text/plain; charset=utf-8")
            .body(format!("redirect to {location}"))
    }

    /// Bytes written verbatim instead of an HTTP response (e.g. garbage, a
    /// broken status line). Headers/status set on this response are ignored.
    pub fn raw(bytes: impl Into<Vec<u8>>) -> Self {
        let mut r = Self::status(200);
        r.kind = Kind::Raw(Arc::from(bytes.into()));
        r
    }

    /// 200 whose body is `body` gzip-compressed, with `Content-Encoding: gzip`.
    pub fn gzip(body: impl Into<Vec<u8>>) -> Self {
        Self::ok(body).gzipped()
    }

    /// 200, `Content-Encoding: gzip`, `Content-Type: application/rss+xml`,
    /// body is a ~530 KB gzip stream inflating to [`GZIP_BOMB_SIZE`]
    /// (512 MiB) of ASCII spaces. Built once per process (see
    /// [`gzip_bomb_bytes`]). For other sizes use [`Response::gzip_bomb_of`].
    pub fn gzip_bomb() -> Self {
        let mut r = Self::status(200)
            .content_type("application/rss+xml")
            .header("Content-Encoding", "gzip");
        r.body = gzip_bomb_bytes();
        r
    }

    /// Read the request, then send nothing and keep the socket open for
    /// [`DEFAULT_HANG`] (ends early when the client disconnects or the server
    /// is dropped).
    pub fn hang() -> Self {
        let mut r = Self::status(200);
        r.kind = Kind::Hang {
            send_head: false,
            body_bytes: 0,
            hold: DEFAULT_HANG,
        };
        r
    }

    /// 200 `application/rss+xml` with no Content-Length, body
    /// `<?xml ...?><rss version="2.0"><channel>...` followed by `<item>` junk
    /// written forever until the client disconnects.
    pub fn endless() -> Self {
        Self::endless_with(
            b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel><title>endless</title><link>http://127.0.0.1/</link><description>never ends</description>\n",
            b"<item><title>\xE7\x84\xA1\xE9\x99\x90 junk item</title><link>http://127.0.0.1/junk</link><description>xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx</description></item>\n",
        )
    }

    /// 200 with no Content-Length: `head` once, then `repeat` forever.
    /// Combine with [`Response::chunked`] for `Transfer-Encoding: chunked`.
    pub fn endless_with(head: &[u8], repeat: &[u8]) -> Self {
        assert!(!repeat.is_empty(), "endless repeat must not be empty");
        let mut r = Self::status(200).content_type("application/rss+xml");
        r.auto_content_length = false;
        r.kind = Kind::Endless {
            head: Arc::from(head),
            repeat: Arc::from(repeat),
        };
        r
    }

    // ---- modifiers --------------------------------------------------------

    /// Set a header, replacing any existing one with the same name
    /// (case-insensitive).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub fn content_type(self, value: &str) -> Self {
        self.header("Content-Type", value)
    }

    /// `ETag` header; pass it quoted, e.g. `"\"v1\""` or `"W/\"v1\""`.
    pub fn etag(self, value: &str) -> Self {
        self.header("ETag", value)
    }

    /// `Last-Modified` header, e.g. `"Tue, 20 Jul 2021 08:00:00 GMT"`.
    pub fn last_modified(self, value: &str) -> Self {
        self.header("Last-Modified", value)
    }

    /// `Retry-After` header (seconds or HTTP-date).
    pub fn retry_after(self, value: &str) -> Self {
        self.header("Retry-After", value)
    }

    /// Replace the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = Arc::from(body.into());
        self
    }

    /// gzip the current body and set `Content-Encoding: gzip`.
    pub fn gzipped(mut self) -> Self {
        self.body = Arc::from(gzip(&self.body));
        self.header("Content-Encoding", "gzip")
    }

    /// Send the body with `Transfer-Encoding: chunked` (also for `endless`).
    pub fn chunked(mut self) -> Self {
        self.chunked = true;
        self.auto_content_length = false;
        self
    }

    /// Wait this long after reading the request before answering.
    pub fn delay(mut self, d: Duration) -> Self {
        self.delay = d;
        self
    }

    /// Answer `304 Not Modified` (with the same ETag/Last-Modified, no body)
    /// when the request's `If-None-Match` matches this response's `ETag`
    /// (weak comparison, list and `*` supported), or — only when the request
    /// has no `If-None-Match` — its `If-Modified-Since` equals this
    /// response's `Last-Modified` string. Otherwise answer as built.
    pub fn conditional(mut self) -> Self {
        self.conditional = true;
        self
    }

    /// Send status line and headers at once, then the body one byte per
    /// `interval`.
    pub fn trickle(mut self, interval: Duration) -> Self {
        self.kind = Kind::Trickle {
            interval,
            include_head: false,
        };
        self
    }

    /// Send status line, headers (Content-Length of the full body) and the
    /// first `n` body bytes, then stall with the socket open like
    /// [`Response::hang`].
    pub fn stall_after(mut self, n: usize) -> Self {
        self.kind = Kind::Hang {
            send_head: true,
            body_bytes: n,
            hold: DEFAULT_HANG,
        };
        self
    }

    // ---- accessors ------------------------------------------------------------

    pub fn get_header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Apply [`Response::conditional`] logic against `req`.
    pub fn resolve_for(self, req: &Request) -> Response {
        if !self.conditional || self.status != 200 {
            return self;
        }
        let etag = self.get_header("etag").map(str::to_string);
        let last_modified = self.get_header("last-modified").map(str::to_string);
        let not_modified = match req.header("if-none-match") {
            Some(inm) => match &etag {
                Some(etag) => etag_list_matches(&inm, etag),
                None => false,
            },
            None => match (req.header("if-modified-since"), &last_modified) {
                (Some(ims), Some(lm)) => ims.trim() == lm.trim(),
                _ => false,
            },
        };
        if !not_modified {
            return self;
        }
        let mut r = Response::status(304);
        for keep in ["etag", "last-modified", "cache-control", "expires", "vary"] {
            if let Some(v) = self.get_header(keep) {
                let name = self
                    .headers
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(keep))
                    .map(|(k, _)| k.clone())
                    .unwrap_or_else(|| keep.to_string());
                r = r.header(&name, v);
            }
        }
        r.delay = self.delay;
        r
    }
}

fn strip_weak(tag: &str) -> &str {
    let t = tag.trim();
    t.strip_prefix("W/").unwrap_or(t)
}

fn etag_list_matches(if_none_match: &str, etag: &str) -> bool {
    let want = strip_weak(etag);
    if_none_match
        .split(',')
        .map(str::trim)
        .any(|t| t == "*" || strip_weak(t) == want)
}

// ---------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------

/// A route handler: `(request, nth hit of this path, 0-based) -> Response`.
pub type Handler = Arc<dyn Fn(&Request, usize) -> Response + Send + Sync>;

/// Anything `TestServer::route` accepts: a `Response` (served on every hit),
/// a `Vec<Response>` (served in order; the last one repeats), or a closure
/// `Fn(&Request, usize) -> Response`.
pub trait IntoHandler {
    fn into_handler(self) -> Handler;
}

impl IntoHandler for Response {
    fn into_handler(self) -> Handler {
        Arc::new(move |_, _| self.clone())
    }
}

impl IntoHandler for Vec<Response> {
    fn into_handler(self) -> Handler {
        assert!(!self.is_empty(), "response sequence must not be empty");
        Arc::new(move |_, hit| self[hit.min(self.len() - 1)].clone())
    }
}

impl<F> IntoHandler for F
where
    F: Fn(&Request, usize) -> Response + Send + Sync + 'static,
{
    fn into_handler(self) -> Handler {
        Arc::new(self)
    }
}

// ---------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------

#[derive(Default)]
struct Log {
    requests: Vec<Request>,
    hits: HashMap<String, usize>,
}

struct Shared {
    routes: Mutex<HashMap<String, Handler>>,
    log: Mutex<Log>,
    shutdown: AtomicBool,
}

impl Shared {
    fn is_shutdown(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }
}

/// The test server. Listens on `127.0.0.1:<random port>` until dropped.
pub struct TestServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept_thread: Option<JoinHandle<()>>,
}

impl Default for TestServer {
    fn default() -> Self {
        Self::new()
    }
}

impl TestServer {
    pub fn new() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind test server");
        listener
            .set_nonblocking(true)
            .expect("nonblocking listener");
        let addr = listener.local_addr().expect("local addr");
        let shared = Arc::new(Shared {
            routes: Mutex::new(HashMap::new()),
            log: Mutex::new(Log::default()),
            shutdown: AtomicBool::new(false),
        });
        let s = Arc::clone(&shared);
        let accept_thread = thread::Builder::new()
            .name(format!("test-server-{}", addr.port()))
            .spawn(move || accept_loop(listener, s))
            .expect("spawn accept thread");
        TestServer {
            addr,
            shared,
            accept_thread: Some(accept_thread),
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:PORT` + `path` (`path` should start with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Register (or replace) the handler for `path`. `path` is matched against
    /// the full request target first (`/feed?x=1`), then against the path
    /// without query string; [`FALLBACK`] (`*`) answers every other path.
    pub fn route(&self, path: &str, handler: impl IntoHandler) -> &Self {
        self.shared
            .routes
            .lock()
            .unwrap()
            .insert(path.to_string(), handler.into_handler());
        self
    }

    /// All requests whose path (without query) or full target equals `path`,
    /// in arrival order.
    pub fn requests(&self, path: &str) -> Vec<Request> {
        self.shared
            .log
            .lock()
            .unwrap()
            .requests
            .iter()
            .filter(|r| r.path == path || r.target == path)
            .cloned()
            .collect()
    }

    /// Every request received, in arrival order.
    pub fn all_requests(&self) -> Vec<Request> {
        self.shared.log.lock().unwrap().requests.clone()
    }

    /// Number of requests received for `path` (without query).
    pub fn hits(&self, path: &str) -> usize {
        self.shared
            .log
            .lock()
            .unwrap()
            .hits
            .get(path)
            .copied()
            .unwrap_or(0)
    }

    /// Wait until `path` has been hit at least `n` times; false on timeout.
    pub fn wait_for_hits(&self, path: &str, n: usize, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if self.hits(path) >= n {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        if let Some(t) = self.accept_thread.take() {
            let _ = t.join();
        }
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    while !shared.is_shutdown() {
        match listener.accept() {
            Ok((stream, peer)) => {
                let s = Arc::clone(&shared);
                // Detached: the thread ends on its own (client gone, response
                // done, or shutdown flag) and never blocks process exit.
                let _ = thread::Builder::new()
                    .name("test-server-conn".into())
                    .spawn(move || handle_connection(stream, peer, s));
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(2));
            }
            Err(_) => thread::sleep(Duration::from_millis(10)),
        }
    }
    // `listener` is dropped here: the port stops accepting immediately.
}

// ---------------------------------------------------------------------------
// Connection handling
// ---------------------------------------------------------------------------

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

/// Read until the end of the request head. None if the client went away,
/// sent too much, took too long, or the server is shutting down.
fn read_head(stream: &mut TcpStream, shared: &Shared) -> Option<Vec<u8>> {
    let deadline = Instant::now() + REQUEST_HEAD_DEADLINE;
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = find_head_end(&buf) {
            buf.truncate(end);
            return Some(buf);
        }
        if buf.len() > MAX_REQUEST_HEAD || shared.is_shutdown() || Instant::now() >= deadline {
            return None;
        }
        match stream.read(&mut chunk) {
            Ok(0) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if is_timeout(&e) => continue,
            Err(_) => return None,
        }
    }
}

fn find_head_end(buf: &[u8]) -> Option<usize> {
    if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
        return Some(i + 4);
    }
    buf.windows(2).position(|w| w == b"\n\n").map(|i| i + 2)
}

struct ParsedHead {
    method: String,
    target: String,
    version: String,
    headers: Vec<(String, String)>,
}

fn parse_head(head: &[u8]) -> Option<ParsedHead> {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let request_line = lines.next()?;
    let mut parts = request_line.split_ascii_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let version = parts.next().unwrap_or("HTTP/1.0").to_string();
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in lines {
        if line.is_empty() {
            break;
        }
        if (line.starts_with(' ') || line.starts_with('\t')) && !headers.is_empty() {
            // obsolete line folding
            let last = headers.last_mut().unwrap();
            last.1.push(' ');
            last.1.push_str(line.trim());
            continue;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    Some(ParsedHead {
        method,
        target,
        version,
        headers,
    })
}

/// Path part of a request target; absolute-form targets are reduced to their path.
fn target_path(target: &str) -> String {
    let mut t = target;
    if let Some(rest) = t
        .strip_prefix("http://")
        .or_else(|| t.strip_prefix("https://"))
    {
        t = rest.find('/').map(|i| &rest[i..]).unwrap_or("/");
    }
    t.split(['?', '#']).next().unwrap_or("/").to_string()
}

fn handle_connection(mut stream: TcpStream, peer: SocketAddr, shared: Arc<Shared>) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(POLL));
    let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));

    let Some(head) = read_head(&mut stream, &shared) else {
        return;
    };
    let Some(parsed) = parse_head(&head) else {
        let _ = write_all(
            &mut stream,
            b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            &shared,
        );
        finish(&mut stream);
        return;
    };

    let path = target_path(&parsed.target);
    let request = {
        let mut log = shared.log.lock().unwrap();
        let hit_ref = log.hits.entry(path.clone()).or_insert(0);
        let hit = *hit_ref;
        *hit_ref += 1;
        let seq = log.requests.len();
        let req = Request {
            method: parsed.method,
            target: parsed.target,
            path,
            version: parsed.version,
            headers: parsed.headers,
            received_at: Instant::now(),
            received_at_system: SystemTime::now(),
            hit,
            seq,
            peer,
        };
        log.requests.push(req.clone());
        req
    };

    let handler = {
        let routes = shared.routes.lock().unwrap();
        routes
            .get(&request.target)
            .or_else(|| routes.get(&request.path))
            .or_else(|| routes.get(FALLBACK))
            .cloned()
    };
    let response = match handler {
        Some(h) => {
            catch_unwind(AssertUnwindSafe(|| h(&request, request.hit))).unwrap_or_else(|_| {
                Response::status(500)
                    .content_type("text/plain")
                    .body("test handler panicked")
            })
        }
        None => Response::not_found(),
    };
    let response = response.resolve_for(&request);

    if !response.delay.is_zero() && !nap(&shared, response.delay) {
        return;
    }
    let head_only = request.method.eq_ignore_ascii_case("HEAD");
    if serve(&mut stream, &response, head_only, &shared).is_ok() {
        finish(&mut stream);
    }
}

/// Sleep `d` in small steps; false if the server shut down meanwhile.
fn nap(shared: &Shared, d: Duration) -> bool {
    let deadline = Instant::now() + d;
    loop {
        if shared.is_shutdown() {
            return false;
        }
        let now = Instant::now();
        if now >= deadline {
            return true;
        }
        thread::sleep((deadline - now).min(POLL));
    }
}

/// write_all that survives write timeouts (used as a shutdown poll) and gives
/// up when the server shuts down or the peer is gone.
fn write_all(stream: &mut TcpStream, mut buf: &[u8], shared: &Shared) -> io::Result<()> {
    while !buf.is_empty() {
        if shared.is_shutdown() {
            return Err(io::Error::other("server shut down"));
        }
        match stream.write(buf) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => buf = &buf[n..],
            Err(e) if is_timeout(&e) => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Half-close and drain so the client sees a clean EOF rather than a reset.
fn finish(stream: &mut TcpStream) {
    let _ = stream.flush();
    let _ = stream.shutdown(Shutdown::Write);
    let deadline = Instant::now() + Duration::from_millis(500);
    let mut sink = [0u8; 4096];
    while Instant::now() < deadline {
        match stream.read(&mut sink) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if is_timeout(&e) => {}
            Err(_) => break,
        }
    }
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        203 => "Non-Authoritative Information",
        204 => "No Content",
        206 => "Partial Content",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        410 => "Gone",
        429 => "Too Many Requests",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Unknown",
    }
}

fn has_no_body(status: u16) -> bool {
    (100..200).contains(&status) || status == 204 || status == 304
}

/// Status line + headers + blank line.
fn render_head(r: &Response, close_delimited: bool) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {} {}\r\n",
        r.status,
        r.reason.as_deref().unwrap_or(reason_phrase(r.status))
    );
    let has = |name: &str| r.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
    for (k, v) in &r.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    if r.chunked && !has("transfer-encoding") {
        out.push_str("Transfer-Encoding: chunked\r\n");
    } else if r.auto_content_length
        && !close_delimited
        && !has_no_body(r.status)
        && !has("content-length")
    {
        out.push_str(&format!("Content-Length: {}\r\n", r.body.len()));
    }
    if !has("connection") {
        out.push_str("Connection: close\r\n");
    }
    out.push_str("\r\n");
    out.into_bytes()
}

fn chunk_frame(data: &[u8]) -> Vec<u8> {
    let mut v = format!("{:X}\r\n", data.len()).into_bytes();
    v.extend_from_slice(data);
    v.extend_from_slice(b"\r\n");
    v
}

/// Body bytes as they go on the wire (chunk-framed if needed).
fn wire_body(r: &Response) -> Vec<u8> {
    if has_no_body(r.status) {
        return Vec::new();
    }
    if r.chunked {
        let mut v = Vec::with_capacity(r.body.len() + 32);
        for c in r.body.chunks(16 * 1024) {
            v.extend(chunk_frame(c));
        }
        v.extend_from_slice(b"0\r\n\r\n");
        v
    } else {
        r.body.to_vec()
    }
}

fn serve(stream: &mut TcpStream, r: &Response, head_only: bool, shared: &Shared) -> io::Result<()> {
    match &r.kind {
        Kind::Raw(bytes) => write_all(stream, bytes, shared),
        Kind::Normal => {
            let mut out = render_head(r, false);
            if !head_only {
                out.extend(wire_body(r));
            }
            write_all(stream, &out, shared)
        }
        Kind::Trickle {
            interval,
            include_head,
        } => {
            let head = render_head(r, false);
            let body = if head_only { Vec::new() } else { wire_body(r) };
            let mut trickled = Vec::new();
            if *include_head {
                trickled.extend(head);
            } else {
                write_all(stream, &head, shared)?;
            }
            trickled.extend(body);
            for b in trickled {
                if !nap(shared, *interval) {
                    return Err(io::Error::other("server shut down"));
                }
                write_all(stream, &[b], shared)?;
            }
            Ok(())
        }
        Kind::Hang {
            send_head,
            body_bytes,
            hold,
        } => {
            if *send_head {
                let mut out = render_head(r, false);
                let body = wire_body(r);
                out.extend_from_slice(&body[..(*body_bytes).min(body.len())]);
                write_all(stream, &out, shared)?;
                let _ = stream.flush();
            }
            hold_open(stream, shared, *hold);
            // Don't `finish`: just drop the socket.
            Err(io::Error::other("hang done"))
        }
        Kind::Endless { head, repeat } => {
            let mut out = render_head(r, true);
            if r.chunked {
                out.extend(chunk_frame(head));
            } else {
                out.extend_from_slice(head);
            }
            write_all(stream, &out, shared)?;
            if head_only {
                return Ok(());
            }
            // Repeat the pattern into a ~16 KiB block for efficient writes.
            let mut block = Vec::with_capacity(16 * 1024 + repeat.len());
            while block.len() < 16 * 1024 {
                block.extend_from_slice(repeat);
            }
            let block = if r.chunked {
                chunk_frame(&block)
            } else {
                block
            };
            let started = Instant::now();
            while started.elapsed() < ENDLESS_MAX {
                write_all(stream, &block, shared)?;
            }
            Ok(())
        }
    }
}

/// Keep the socket open for `hold`, ending early when the peer disconnects
/// or the server shuts down. Incoming bytes are discarded.
fn hold_open(stream: &mut TcpStream, shared: &Shared, hold: Duration) {
    let deadline = Instant::now() + hold;
    let mut sink = [0u8; 1024];
    while Instant::now() < deadline && !shared.is_shutdown() {
        match stream.read(&mut sink) {
            Ok(0) => return, // peer closed
            Ok(_) => {}
            Err(e) if is_timeout(&e) => {}
            Err(_) => return,
        }
    }
}

// ---------------------------------------------------------------------------
// gzip helpers
// ---------------------------------------------------------------------------

/// gzip-compress `data` (default level).
pub fn gzip(data: &[u8]) -> Vec<u8> {
    use flate2::Compression;
    use flate2::write::GzEncoder;
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(data).expect("gzip");
    enc.finish().expect("gzip finish")
}

/// gunzip `data` completely (for assertions on small payloads).
pub fn gunzip(data: &[u8]) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(data).read_to_end(&mut out)?;
    Ok(out)
}

/// The bytes of [`Response::gzip_bomb`]: one gzip member (~530 KB) that
/// inflates to [`GZIP_BOMB_SIZE`] (512 MiB) of ASCII spaces. Built once per
/// process, in a few milliseconds.
pub fn gzip_bomb_bytes() -> Arc<[u8]> {
    static BOMB: OnceLock<Arc<[u8]>> = OnceLock::new();
    BOMB.get_or_init(|| Arc::from(build_gzip_bomb(b"", b' ', GZIP_BOMB_SIZE)))
        .clone()
}

/// Build a single gzip member that inflates to `prefix` followed by `fill`
/// bytes, `inflated_len` bytes in total (`inflated_len >= prefix.len()`).
///
/// Only ~2 MiB is ever fed to the compressor: a "head" block
/// (prefix + fill) and one 1 MiB block of fill are compressed with sync
/// flushes, and the second one's bytes are repeated. This is valid because
/// sync flush ends on a byte boundary and the repeated block only
/// back-references (≤ 32 KiB) fill bytes. The CRC is computed with
/// `Crc::combine`, so nothing ever allocates or hashes `inflated_len` bytes.
pub fn build_gzip_bomb(prefix: &[u8], fill: u8, inflated_len: u64) -> Vec<u8> {
    use flate2::{Compress, Compression, Crc, FlushCompress, Status};

    const CHUNK: u64 = 1 << 20;
    let prefix_len = prefix.len() as u64;
    assert!(inflated_len >= prefix_len, "bomb shorter than its prefix");
    let fill_len = inflated_len - prefix_len;

    // head = prefix + head_fill, where head_fill >= 64 KiB (so every repeated
    // chunk sees only fill bytes in its 32 KiB window) unless the whole bomb
    // is smaller than that.
    let (head_fill, repeats) = if fill_len < 2 * CHUNK {
        (fill_len, 0u64)
    } else {
        let rem = fill_len % CHUNK;
        (CHUNK + rem, fill_len / CHUNK - 1)
    };

    fn deflate(c: &mut Compress, mut input: &[u8], flush: FlushCompress, out: &mut Vec<u8>) {
        loop {
            if out.capacity() - out.len() < 64 * 1024 {
                out.reserve(256 * 1024);
            }
            let before_in = c.total_in();
            let status = c.compress_vec(input, out, flush).expect("deflate");
            let consumed = (c.total_in() - before_in) as usize;
            input = &input[consumed..];
            if flush == FlushCompress::Finish {
                if status == Status::StreamEnd {
                    break;
                }
            } else if input.is_empty() && out.len() < out.capacity() {
                // All input consumed and the output space was not filled:
                // the flush is complete.
                break;
            }
        }
    }

    let mut c = Compress::new(Compression::best(), false);
    let mut deflated = Vec::new();
    let mut crc = Crc::new();

    // Head block.
    let mut head = prefix.to_vec();
    head.resize(prefix.len() + head_fill as usize, fill);
    crc.update(&head);
    deflate(&mut c, &head, FlushCompress::Sync, &mut deflated);
    drop(head);

    // One fill chunk, compressed once, repeated.
    if repeats > 0 {
        let chunk = vec![fill; CHUNK as usize];
        let mut chunk_crc = Crc::new();
        chunk_crc.update(&chunk);
        let start = deflated.len();
        deflate(&mut c, &chunk, FlushCompress::Sync, &mut deflated);
        let compressed_chunk = deflated[start..].to_vec();
        deflated.reserve(compressed_chunk.len() * repeats as usize);
        crc.combine(&chunk_crc);
        for _ in 1..repeats {
            deflated.extend_from_slice(&compressed_chunk);
            crc.combine(&chunk_crc);
        }
    }
    // Final (empty) block.
    deflate(&mut c, &[], FlushCompress::Finish, &mut deflated);

    let mut out = Vec::with_capacity(deflated.len() + 18);
    // gzip header: magic, CM=deflate, no flags, mtime 0, XFL=2 (max compression), OS=255.
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255]);
    out.extend_from_slice(&deflated);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&((inflated_len & 0xffff_ffff) as u32).to_le_bytes());
    out
}
