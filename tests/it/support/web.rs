//! Reading built sites as a browser would: a static file server over an output folder under a
//! sub-path, a minimal HTTP client, and a tag scanner for links and attributes.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::server::{FALLBACK, Response, TestServer};

/// Serves the files of `dir` under the URL path `prefix` (`/repo/`), as GitHub Pages does:
/// a folder answers with its index.html, a miss with 404.html and status 404.
pub fn serve_dir(server: &TestServer, prefix: &str, dir: &Path) {
    let prefix = prefix.to_string();
    let dir: PathBuf = dir.to_path_buf();
    server.route(FALLBACK, move |req: &super::server::Request, _| {
        let not_found = || {
            let body = std::fs::read(dir.join("404.html")).unwrap_or_default();
            Response::status(404)
                .content_type("text/html; charset=utf-8")
                .body(body)
        };
        let Some(rest) = req.path.strip_prefix(&prefix) else {
            return not_found();
        };
        let rel = percent_decode(rest);
        if rel.split('/').any(|s| s == "..") {
            return not_found();
        }
        let mut path = dir.join(&rel);
        if path.is_dir() {
            path = path.join("index.html");
        }
        match std::fs::read(&path) {
            Ok(bytes) => Response::ok(bytes).content_type(content_type(&path)),
            Err(_) => not_found(),
        }
    });
}

fn content_type(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css",
        Some("js") => "text/javascript",
        Some("xml") => "application/xml",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

pub fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// One HTTP/1.1 GET (`path` already percent-encoded): status and body.
pub fn http_get(addr: SocketAddr, path: &str) -> (u16, Vec<u8>) {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).expect("read response");
    let head_end = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("response head");
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("status code");
    let mut body = buf[head_end + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    (status, body)
}

fn dechunk(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(nl) = b[i..].windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&b[i..i + nl]).trim(), 16).unwrap_or(0);
        i += nl + 2;
        if size == 0 {
            break;
        }
        out.extend_from_slice(&b[i..i + size]);
        i += size + 2;
    }
    out
}

/// A start tag with its attributes (values entity-decoded).
#[derive(Debug, Clone)]
pub struct Tag {
    pub name: String,
    pub attrs: Vec<(String, String)>,
}

impl Tag {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Every start tag of an HTML/XML document, as a browser's tokenizer would see it (comments
/// skipped; text is not tags, so escaped markup in text never shows up here).
pub fn tags(html: &str) -> Vec<Tag> {
    let b = html.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        if html[i..].starts_with("<!--") {
            i = html[i..].find("-->").map_or(b.len(), |e| i + e + 3);
            continue;
        }
        let start = i + 1;
        if start >= b.len() || !b[start].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let mut j = start;
        while j < b.len() && !b[j].is_ascii_whitespace() && b[j] != b'>' && b[j] != b'/' {
            j += 1;
        }
        let name = html[start..j].to_ascii_lowercase();
        let mut attrs = Vec::new();
        loop {
            while j < b.len() && (b[j].is_ascii_whitespace() || b[j] == b'/') {
                j += 1;
            }
            if j >= b.len() || b[j] == b'>' {
                break;
            }
            let ns = j;
            while j < b.len() && !b[j].is_ascii_whitespace() && !matches!(b[j], b'=' | b'>') {
                j += 1;
            }
            let an = html[ns..j].to_ascii_lowercase();
            let mut value = String::new();
            if j < b.len() && b[j] == b'=' {
                j += 1;
                if j < b.len() && (b[j] == b'"' || b[j] == b'\'') {
                    let q = b[j];
                    let vs = j + 1;
                    let ve = html[vs..]
                        .bytes()
                        .position(|c| c == q)
                        .map_or(b.len(), |p| vs + p);
                    value = decode_entities(&html[vs..ve]);
                    j = (ve + 1).min(b.len());
                } else {
                    let vs = j;
                    while j < b.len() && !b[j].is_ascii_whitespace() && b[j] != b'>' {
                        j += 1;
                    }
                    value = decode_entities(&html[vs..j]);
                }
            }
            attrs.push((an, value));
        }
        out.push(Tag { name, attrs });
        i = j + 1;
    }
    out
}

pub fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        let Some(end) = rest.find(';').filter(|&e| e <= 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let ent = &rest[1..end];
        let decoded = match ent {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ if ent.starts_with("#x") || ent.starts_with("#X") => {
                u32::from_str_radix(&ent[2..], 16)
                    .ok()
                    .and_then(char::from_u32)
            }
            _ if ent.starts_with('#') => ent[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The URLs a page links to or loads: href and src of every tag.
pub fn links(html: &str) -> Vec<String> {
    tags(html)
        .into_iter()
        .flat_map(|t| {
            t.attrs
                .into_iter()
                .filter(|(n, _)| n == "href" || n == "src")
                .map(|(_, v)| v)
        })
        .collect()
}

#[test]
fn tag_scanner_reads_attributes_like_a_browser() {
    let t = tags(
        r#"<p>&lt;script&gt;</p><!-- <a href="x"> --><a HREF='/a?b=1&amp;c=2' onclick=go()>x</a><img src=/i.png/>"#,
    );
    assert_eq!(t.len(), 3);
    assert_eq!(t[1].attr("href"), Some("/a?b=1&c=2"));
    assert_eq!(t[1].attr("onclick"), Some("go()"));
    assert_eq!(t[2].attr("src"), Some("/i.png/"));
    assert_eq!(percent_decode("/r/%E6%97%A5/"), "/r/日/");
}

/// What a reader reaches by following links from the home page `prefix` (`/repo/`) of a site
/// that `server` serves: every URL path visited (percent-decoded) and every broken link.
pub struct Crawl {
    pub reached: std::collections::BTreeSet<String>,
    /// `path → status` for an answer other than 200, a link that does not parse, or a
    /// same-host link outside `prefix`.
    pub broken: Vec<String>,
}

/// Crawls the site from `prefix`, following the links of every page (a folder or an `.html`
/// file) to the same host.
pub fn crawl(server: &TestServer, prefix: &str) -> Crawl {
    let base = url::Url::parse(&server.url(prefix)).unwrap();
    let mut seen = std::collections::HashSet::new();
    let mut queue = std::collections::VecDeque::from([prefix.to_string()]);
    let mut broken = Vec::new();
    while let Some(path) = queue.pop_front() {
        if !seen.insert(path.clone()) {
            continue;
        }
        let (status, body) = http_get(server.addr(), &path);
        if status != 200 {
            broken.push(format!("{path} → {status}"));
            continue;
        }
        if !(path.ends_with('/') || path.ends_with(".html")) {
            continue;
        }
        let page = base.join(&path).unwrap();
        for link in links(&String::from_utf8_lossy(&body)) {
            let Ok(target) = page.join(&link) else {
                broken.push(format!("{path}: unparsable {link}"));
                continue;
            };
            if target.host_str() != base.host_str() || target.port() != base.port() {
                continue;
            }
            if !target.path().starts_with(prefix) {
                broken.push(format!("{path}: links outside the base path: {link}"));
                continue;
            }
            queue.push_back(target.path().to_string());
        }
    }
    Crawl {
        reached: seen.iter().map(|p| percent_decode(p)).collect(),
        broken,
    }
}

/// Every HTML page (`…/index.html`) of the output folder `public`, as the URL path under
/// `prefix` that a crawl reaches it by.
pub fn html_pages(public: &Path, prefix: &str) -> std::collections::BTreeSet<String> {
    walkdir::WalkDir::new(public)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name() == "index.html")
        .map(|e| {
            let rel = e.path().strip_prefix(public).unwrap().to_string_lossy();
            format!("{prefix}{}", rel.trim_end_matches("index.html"))
        })
        .collect()
}
