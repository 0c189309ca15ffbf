//! A small S3-compatible server for what s3s-fs cannot do: hold keys that are valid in S3 but
//! not as files (`site/backup//index.html`, `site/a/../b.html`, a folder marker `site/dir/`),
//! and throttle like S3 (`503 SlowDown` with `Retry-After`). Objects live in memory; it answers
//! path-style ListObjectsV2 (pages of [`FakeS3::page_size`], `encoding-type=url` as S3 does),
//! GET, HEAD, PUT, DELETE and the multi-object delete (`POST ?delete`), and logs every request
//! with its arrival time and status. Signatures are not checked (s3s-fs tests them).
//!
//! Throttling ([`FakeS3::throttle_from_first_upload`]) is what S3 does while it scales a busy
//! prefix: from the first upload on, every request gets `503 SlowDown` with `Retry-After: 1`
//! for a while, then a token bucket (`burst` at once, then `per_second`) limits the rate, each
//! request without a token getting the same answer.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use md5::{Digest, Md5};

/// One stored object.
#[derive(Clone, Debug)]
pub struct Object {
    pub bytes: Vec<u8>,
    pub content_type: String,
    pub cache_control: String,
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Logged {
    pub method: String,
    /// The decoded key (without the bucket), empty for bucket requests.
    pub key: String,
    pub query: String,
    pub at: Instant,
    pub status: u16,
}

struct Bucket {
    tokens: f64,
    refilled: Instant,
    burst: f64,
    per_second: f64,
    /// Everything is throttled for this long from the first upload on.
    blackout: Duration,
    first_put: Option<Instant>,
}

struct Shared {
    objects: Mutex<BTreeMap<String, Object>>,
    log: Mutex<Vec<Logged>>,
    throttle: Mutex<Option<Bucket>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    stop: AtomicBool,
    page_size: usize,
    delay: Duration,
}

/// The server, on 127.0.0.1 until dropped.
pub struct FakeS3 {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl FakeS3 {
    /// A server whose listing pages hold `page_size` keys and whose requests each take `delay`.
    pub fn start(page_size: usize, delay: Duration) -> FakeS3 {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared {
            objects: Mutex::new(BTreeMap::new()),
            log: Mutex::new(Vec::new()),
            throttle: Mutex::new(None),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            page_size,
            delay,
        });
        let s = Arc::clone(&shared);
        thread::spawn(move || {
            while !s.stop.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let s = Arc::clone(&s);
                        thread::spawn(move || serve(stream, &s));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(2)),
                }
            }
        });
        FakeS3 { addr, shared }
    }

    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// From the first upload on: every request throttled for `blackout`, then at most `burst`
    /// at once and `per_second`.
    pub fn throttle_from_first_upload(&self, blackout: Duration, burst: f64, per_second: f64) {
        *self.shared.throttle.lock().unwrap() = Some(Bucket {
            tokens: burst,
            refilled: Instant::now(),
            burst,
            per_second,
            blackout,
            first_put: None,
        });
    }

    pub fn put(&self, key: &str, bytes: &[u8]) {
        self.shared.objects.lock().unwrap().insert(
            key.to_string(),
            Object {
                bytes: bytes.to_vec(),
                content_type: "application/octet-stream".into(),
                cache_control: String::new(),
            },
        );
    }

    pub fn objects(&self) -> BTreeMap<String, Object> {
        self.shared.objects.lock().unwrap().clone()
    }

    pub fn log(&self) -> Vec<Logged> {
        self.shared.log.lock().unwrap().clone()
    }

    /// The most requests it was answering at once.
    pub fn max_in_flight(&self) -> usize {
        self.shared.max_in_flight.load(Ordering::SeqCst)
    }
}

impl Drop for FakeS3 {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
    }
}

struct Req {
    method: String,
    path: String,
    query: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn read_request(stream: &TcpStream) -> Option<Req> {
    let mut r = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        r.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let header = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    let mut body = Vec::new();
    if let Some(len) = header("content-length").and_then(|l| l.parse::<usize>().ok()) {
        body.resize(len, 0);
        r.read_exact(&mut body).ok()?;
    } else if header("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
        loop {
            let mut size = String::new();
            r.read_line(&mut size).ok()?;
            let n = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).ok()?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    }
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    Some(Req {
        method,
        path: path.to_string(),
        query: query.to_string(),
        headers,
        body,
    })
}

fn decode(s: &str) -> String {
    percent_encoding::percent_decode_str(&s.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

/// S3's `encoding-type=url`: unreserved characters and `/` stay, a space is `+`.
fn s3_url_encode(key: &str) -> String {
    let mut out = String::new();
    for b in key.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn etag(bytes: &[u8]) -> String {
    let d = Md5::digest(bytes);
    format!(
        "\"{}\"",
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

type Answer = (u16, Vec<(String, String)>, Vec<u8>);

fn take_token(shared: &Shared, method: &str) -> bool {
    let mut t = shared.throttle.lock().unwrap();
    let Some(b) = t.as_mut() else {
        return true;
    };
    let now = Instant::now();
    if b.first_put.is_none() && method == "PUT" {
        b.first_put = Some(now);
    }
    let Some(first) = b.first_put else {
        return true;
    };
    if now < first + b.blackout {
        b.refilled = now;
        return false;
    }
    b.tokens =
        (b.tokens + now.duration_since(b.refilled).as_secs_f64() * b.per_second).min(b.burst);
    b.refilled = now;
    if b.tokens >= 1.0 {
        b.tokens -= 1.0;
        true
    } else {
        false
    }
}

fn answer(req: &Req, shared: &Shared, key: &str) -> Answer {
    if !take_token(shared, &req.method) {
        let body = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>\
            <Message>Please reduce your request rate.</Message></Error>"
            .to_vec();
        return (503, vec![("Retry-After".into(), "1".into())], body);
    }
    thread::sleep(shared.delay);
    let q: BTreeMap<String, String> = req
        .query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect();
    let mut objects = shared.objects.lock().unwrap();
    let meta = |o: &Object| {
        vec![
            ("ETag".to_string(), etag(&o.bytes)),
            ("Content-Type".to_string(), o.content_type.clone()),
            ("Cache-Control".to_string(), o.cache_control.clone()),
            (
                "Last-Modified".to_string(),
                "Tue, 20 Jul 2021 08:00:00 GMT".to_string(),
            ),
        ]
    };
    let header = |n: &str| {
        req.headers
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    match (req.method.as_str(), key.is_empty()) {
        ("GET", true) if q.get("list-type").map(String::as_str) == Some("2") => {
            let prefix = q.get("prefix").cloned().unwrap_or_default();
            let after = q.get("continuation-token").cloned();
            let encode = q.get("encoding-type").map(String::as_str) == Some("url");
            let keys: Vec<(&String, &Object)> = objects
                .iter()
                .filter(|(k, _)| k.starts_with(&prefix))
                .filter(|(k, _)| after.as_ref().is_none_or(|a| k.as_str() > a.as_str()))
                .take(shared.page_size + 1)
                .collect();
            let truncated = keys.len() > shared.page_size;
            let mut xml = String::from(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">",
            );
            if encode {
                xml.push_str("<EncodingType>url</EncodingType>");
            }
            xml.push_str(&format!("<IsTruncated>{truncated}</IsTruncated>"));
            let page = &keys[..keys.len().min(shared.page_size)];
            if truncated {
                let last = page.last().unwrap().0;
                xml.push_str(&format!(
                    "<NextContinuationToken>{}</NextContinuationToken>",
                    xml_escape(last)
                ));
            }
            for (k, o) in page {
                let shown = if encode {
                    s3_url_encode(k)
                } else {
                    xml_escape(k)
                };
                xml.push_str(&format!(
                    "<Contents><Key>{shown}</Key><LastModified>2021-07-20T08:00:00.000Z</LastModified>\
                     <ETag>{}</ETag><Size>{}</Size><StorageClass>STANDARD</StorageClass></Contents>",
                    xml_escape(&etag(&o.bytes)),
                    o.bytes.len()
                ));
            }
            xml.push_str("</ListBucketResult>");
            (
                200,
                vec![("Content-Type".into(), "application/xml".into())],
                xml.into_bytes(),
            )
        }
        ("POST", true) if q.contains_key("delete") => {
            let body = String::from_utf8_lossy(&req.body).into_owned();
            let mut out =
                String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DeleteResult>");
            for part in body.split("<Key>").skip(1) {
                let k = part.split("</Key>").next().unwrap_or("");
                let k = k
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&quot;", "\"")
                    .replace("&amp;", "&");
                objects.remove(&k);
                out.push_str(&format!("<Deleted><Key>{}</Key></Deleted>", xml_escape(&k)));
            }
            out.push_str("</DeleteResult>");
            (
                200,
                vec![("Content-Type".into(), "application/xml".into())],
                out.into_bytes(),
            )
        }
        ("PUT", false) => {
            let o = Object {
                bytes: req.body.clone(),
                content_type: header("content-type"),
                cache_control: header("cache-control"),
            };
            let tag = etag(&o.bytes);
            objects.insert(key.to_string(), o);
            (200, vec![("ETag".into(), tag)], Vec::new())
        }
        ("GET" | "HEAD", false) => match objects.get(key) {
            Some(o) => {
                let body = if req.method == "GET" {
                    o.bytes.clone()
                } else {
                    Vec::new()
                };
                let mut h = meta(o);
                if req.method == "HEAD" {
                    h.push(("Content-Length".into(), o.bytes.len().to_string()));
                }
                (200, h, body)
            }
            None => (
                404,
                Vec::new(),
                b"<Error><Code>NoSuchKey</Code></Error>".to_vec(),
            ),
        },
        ("DELETE", false) => {
            objects.remove(key);
            (204, Vec::new(), Vec::new())
        }
        _ => (
            400,
            Vec::new(),
            b"<Error><Code>InvalidRequest</Code></Error>".to_vec(),
        ),
    }
}

fn serve(mut stream: TcpStream, shared: &Shared) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let Some(req) = read_request(&stream) else {
        return;
    };
    let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    shared.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let at = Instant::now();
    // Path style: /BUCKET/KEY.
    let rest = req.path.trim_start_matches('/');
    let key = rest
        .split_once('/')
        .map(|(_, k)| decode_path(k))
        .unwrap_or_default();
    let (status, headers, body) = answer(&req, shared, &key);
    shared.in_flight.fetch_sub(1, Ordering::SeqCst);
    shared.log.lock().unwrap().push(Logged {
        method: req.method.clone(),
        key,
        query: req.query.clone(),
        at,
        status,
    });
    let mut head = format!("HTTP/1.1 {status} X\r\nConnection: close\r\n");
    let has_length = headers.iter().any(|(k, _)| k == "Content-Length");
    for (k, v) in &headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if !has_length {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
}

/// A key in a request path: percent-escapes only (`+` is itself there).
fn decode_path(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}
