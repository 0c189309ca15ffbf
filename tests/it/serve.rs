//! `matome serve`: a real server on an ephemeral port — pages under the base path, 404, content
//! types, path traversal, the search API, live reload over server-sent events, errors, Ctrl-C.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::Site;
use crate::support::web::http_get;

/// A running `matome serve`, killed on drop.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT/repo/`
    pub url: String,
    pub addr: std::net::SocketAddr,
    pub base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    pub fn start(site: &Site) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_matome"))
            .args([
                "--root",
                site.root().to_str().unwrap(),
                "serve",
                "--port",
                "0",
            ])
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start matome serve");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(at) = line.find("http://") {
                    let url = line[at..].split_whitespace().next().unwrap().to_string();
                    let _ = tx.send(url);
                }
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("serve prints its URL");
        let parsed = url::Url::parse(&url).unwrap();
        let addr = format!("{}:{}", parsed.host_str().unwrap(), parsed.port().unwrap())
            .parse()
            .unwrap();
        Server {
            child,
            base: parsed.path().to_string(),
            url,
            addr,
        }
    }

    pub fn get(&self, path: &str) -> (u16, String) {
        let (status, body) = http_get(self.addr, path);
        (status, String::from_utf8_lossy(&body).into_owned())
    }
}

/// Response head and body of a raw request (the path sent exactly as given).
fn raw(addr: std::net::SocketAddr, path: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

fn header<'a>(response: &'a str, name: &str) -> Option<&'a str> {
    let head = &response[..response.find("\r\n\r\n")?];
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

pub fn demo_site() -> Site {
    crate::support::demo_site("https://user.github.io/repo/")
}

#[test]
fn pages_404_types_and_traversal() {
    let site = demo_site();
    site.write("secret.txt", "do not serve");
    let server = Server::start(&site);
    assert_eq!(server.base, "/repo/");
    let (status, home) = server.get("/repo/");
    assert_eq!(status, 200);
    assert!(
        home.contains("/repo/__matome/live.js"),
        "the reload script is injected"
    );
    assert!(
        !site.read("public/index.html").contains("__matome"),
        "and never written to the output"
    );
    // The site root redirects to the base path; a folder without its slash gets one.
    let r = raw(server.addr, "/");
    assert!(r.starts_with("HTTP/1.1 301"), "{r}");
    assert_eq!(header(&r, "location"), Some("/repo/"));
    let r = raw(server.addr, "/repo/archives");
    assert_eq!(header(&r, "location"), Some("/repo/archives/"));
    // Misses get 404.html with status 404.
    let (status, body) = server.get("/repo/no/such/page/");
    assert_eq!(status, 404);
    assert!(body.contains("href=\"/repo/style.css\""), "{body}");
    for (path, ct) in [
        ("/repo/style.css", "text/css"),
        ("/repo/atom.xml", "application/atom+xml"),
        ("/repo/sitemap.xml", "application/xml"),
        ("/repo/favicon.svg", "image/svg+xml"),
        ("/repo/robots.txt", "text/plain"),
        ("/repo/2021/07/20/0800/", "text/html"),
    ] {
        let r = raw(server.addr, path);
        assert!(r.starts_with("HTTP/1.1 200"), "{path}: {r}");
        assert!(
            header(&r, "content-type").unwrap().starts_with(ct),
            "{path}: {r}"
        );
    }
    // No folder listings, nothing outside the output folder.
    std::fs::create_dir_all(site.path("public/empty")).unwrap();
    for path in [
        "/repo/empty/",
        "/repo/../secret.txt",
        "/repo/%2e%2e/secret.txt",
        "/repo/..%2fsecret.txt",
        "/repo/2021/../../secret.txt",
        "/repo/../matome.toml",
        "/secret.txt",
    ] {
        let r = raw(server.addr, path);
        assert!(r.starts_with("HTTP/1.1 404"), "{path}: {r}");
        assert!(
            !r.contains("do not serve") && !r.contains("base_url"),
            "{path}"
        );
    }
}

#[test]
fn the_search_api_answers_from_the_index() {
    let site = demo_site();
    let server = Server::start(&site);
    let (status, body) = server.get("/repo/api/search?q=%E6%97%A5%E6%9C%AC%E9%8A%80%E8%A1%8C");
    assert_eq!(status, 200);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let hits = v["hits"].as_array().expect("hits");
    assert!(!hits.is_empty(), "日本銀行: {body}");
    for field in [
        "title",
        "link",
        "site",
        "category",
        "published",
        "keywords",
        "summary",
        "url",
    ] {
        assert!(!hits[0][field].is_null(), "{field}: {body}");
    }
    assert!(
        hits[0]["url"].as_str().unwrap().starts_with(&server.url),
        "hits link to the preview"
    );
    let (_, body) = server.get("/repo/api/search?q=cloud&limit=2&sort=date");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    let hits = v["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2, "{body}");
    assert!(hits[0]["published"].as_str() >= hits[1]["published"].as_str());
    // "Load more": the next hits after an offset.
    let (_, next) = server.get("/repo/api/search?q=cloud&limit=1&offset=1&sort=date");
    let next: serde_json::Value = serde_json::from_str(&next).unwrap();
    assert_eq!(next["hits"][0]["link"], hits[1]["link"]);
    let (_, body) = server.get("/repo/api/search?q=cloud&category=%E9%87%91%E8%9E%8D");
    assert_eq!(body, r#"{"hits":[]}"#);
    let (status, _) = server.get("/repo/api/search?q=cloud&since=yesterday");
    assert_eq!(status, 400);
}

/// Reads server-sent events from the events endpoint until one named `name` arrives.
fn wait_event(stream: &mut BufReader<TcpStream>, name: &str, timeout: Duration) -> String {
    let deadline = Instant::now() + timeout;
    let mut event = String::new();
    let mut line = String::new();
    while Instant::now() < deadline {
        line.clear();
        match stream.read_line(&mut line) {
            Ok(0) => panic!("the event stream closed"),
            Ok(_) => {}
            Err(_) => continue, // read timeout: keep waiting
        }
        let l = line.trim_end();
        if let Some(e) = l.strip_prefix("event:") {
            event = e.trim().to_string();
        } else if let Some(d) = l.strip_prefix("data:")
            && event == name
        {
            return d.trim().to_string();
        }
    }
    panic!("no {name} event within {timeout:?}");
}

fn events(server: &Server) -> BufReader<TcpStream> {
    let mut s = TcpStream::connect(server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    write!(
        s,
        "GET /repo/__matome/events HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\r\n",
        server.addr
    )
    .unwrap();
    BufReader::new(s)
}

#[test]
fn edits_rebuild_and_reload_and_errors_are_shown_then_recovered() {
    let site = demo_site();
    let server = Server::start(&site);
    let mut stream = events(&server);
    std::thread::sleep(Duration::from_millis(300));

    // A note in a digest: rebuilt, pages told to reload, the change served.
    let p = site.path("content/2021/07/20/0800.md");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, format!("{text}\n今日の**ひとこと**\n")).unwrap();
    wait_event(&mut stream, "reload", Duration::from_secs(20));
    let (_, page) = server.get("/repo/2021/07/20/0800/");
    assert!(page.contains("<strong>ひとこと</strong>"), "{page}");

    // A broken template: the error reaches open pages and new ones; the server keeps serving.
    site.write(
        "templates/digest.html",
        "{% extends \"base.html\" %}{% block main %}{{ oops(\n",
    );
    let msg = wait_event(&mut stream, "build-error", Duration::from_secs(20));
    assert!(msg.contains("templates/digest.html"), "{msg}");
    let mut fresh = events(&server);
    let again = wait_event(&mut fresh, "build-error", Duration::from_secs(5));
    assert_eq!(again, msg, "a page opened now sees the error too");
    let (status, _) = server.get("/repo/");
    assert_eq!(status, 200);

    // Fixed: rebuilt, reloaded.
    std::fs::remove_file(site.path("templates/digest.html")).unwrap();
    wait_event(&mut stream, "reload", Duration::from_secs(20));
    let (status, page) = server.get("/repo/2021/07/20/0800/");
    assert_eq!(status, 200);
    assert!(page.contains("ひとこと"));
}

#[test]
fn a_taken_port_is_a_clear_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let site = demo_site();
    let out = site.matome(&["serve", "--port", &port]);
    out.assert_failure();
    assert!(
        out.stderr.contains(&format!("port {port}")),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("already in use"), "{}", out.stderr);
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_it_cleanly() {
    let site = demo_site();
    let mut server = Server::start(&site);
    // An open page (its event stream) must not hold the shutdown up.
    let _stream = events(&server);
    std::thread::sleep(Duration::from_millis(200));
    let pid = server.child.id() as i32;
    unsafe {
        libc::kill(pid, libc::SIGINT);
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            assert!(status.success(), "{status:?}");
            break;
        }
        assert!(Instant::now() < deadline, "still running after Ctrl-C");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Response of a raw request with the Host header given (the path sent exactly as given).
fn raw_host(addr: std::net::SocketAddr, path: &str, host: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

fn status_of(response: &str) -> u16 {
    response
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {response:?}"))
}

/// Issue 11, finding 3: `offset=1125899906842624` aborted the process on an allocation of
/// petabytes and `offset=18446744073709551615` panicked; any web page can send that GET.
#[test]
fn serve_search_api_bounds_offset_and_limit() {
    let site = demo_site();
    let server = Server::start(&site);
    for (query, why) in [
        ("offset=1125899906842624", "too large"),
        ("offset=18446744073709551615", "too large"),
        ("offset=18446744073709551616", "past u64"),
        ("offset=10001", "past the bound"),
        ("offset=-1", "negative"),
        ("limit=1e99", "not an integer"),
        ("limit=18446744073709551616", "past u64"),
    ] {
        let (status, body) = server.get(&format!("/repo/api/search?q=cloud&{query}"));
        assert_eq!(status, 400, "{query} ({why}): {body}");
        let v: serde_json::Value =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("{query}: {e}: {body}"));
        assert!(
            v["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{query}: {body}"
        );
    }
    let (_, body) = server.get("/repo/api/search?q=cloud&offset=10000");
    assert_eq!(body, r#"{"hits":[]}"#, "the bound itself is allowed");
    // limit is clamped to 1..=200, even when huge.
    let (status, body) = server.get("/repo/api/search?q=cloud&limit=18446744073709551615");
    assert_eq!(status, 200, "{body}");
    let (status, body) = server.get("/repo/api/search?q=cloud&limit=0");
    assert_eq!(status, 200, "{body}");
    // Still alive and answering.
    let (status, body) = server.get("/repo/api/search?q=cloud");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"hits\":[{"), "{body}");
}

/// Issue 11, finding 3: a page on another site whose name was rebound to 127.0.0.1 (DNS
/// rebinding) could read the preview and its API; only the bound address's names are served.
#[test]
fn serve_refuses_other_hosts_against_dns_rebinding() {
    let site = demo_site();
    let server = Server::start(&site);
    let port = server.addr.port();
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("LocalHost:{port}"),
        format!("[::1]:{port}"),
    ] {
        let r = raw_host(server.addr, "/repo/", &host);
        assert_eq!(status_of(&r), 200, "{host}: {r}");
    }
    for host in [
        format!("evil.example:{port}"),
        format!("127.0.0.1.evil.example:{port}"),
        "127.0.0.1".to_string(),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        format!("localhost:{port}@evil.example"),
        format!("[::1]x:{port}"),
        String::new(),
    ] {
        for path in [
            "/repo/",
            "/repo/api/search?q=cloud",
            "/repo/__matome/live.js",
        ] {
            let r = raw_host(server.addr, path, &host);
            assert_eq!(status_of(&r), 403, "{host} {path}: {r}");
            assert!(!r.contains("hits"), "{host} {path}: {r}");
        }
    }
}

/// Issue 11, finding 3: `GET //tmp` answered `301 Location: //tmp/` (protocol-relative: another
/// host), and `/%2Froot` vs `/%2Fnope` told which folders exist outside the output folder.
#[test]
fn serve_folder_redirects_stay_inside_the_output() {
    let site = crate::support::demo_site("https://user.github.io/");
    let server = Server::start(&site);
    let not_found = raw(server.addr, "/no/such/page");
    assert_eq!(status_of(&not_found), 404);
    let body = |r: &str| r[r.find("\r\n\r\n").unwrap()..].to_string();
    let outside = site.root().parent().unwrap().display().to_string();
    for path in [
        "//tmp".to_string(),
        "//tmp/".to_string(),
        "///tmp".to_string(),
        "//evil.example".to_string(),
        "/%2Ftmp".to_string(),
        "/%2Froot".to_string(),
        "/%2Fnope".to_string(),
        "/%2F%2Ftmp".to_string(),
        "/..%2F..%2Ftmp".to_string(),
        "/%2e%2e".to_string(),
        format!(
            "/%2F{}",
            outside.trim_start_matches('/').replace('/', "%2F")
        ),
        format!("/{outside}"),
    ] {
        let r = raw(server.addr, &path);
        assert_eq!(status_of(&r), 404, "{path}: {r}");
        assert!(header(&r, "location").is_none(), "{path}: {r}");
        assert_eq!(body(&r), body(&not_found), "{path}: the same 404 for all");
    }
    // A folder inside the output folder still gets its slash.
    let r = raw(server.addr, "/archives");
    assert_eq!(status_of(&r), 301, "{r}");
    assert_eq!(header(&r, "location"), Some("/archives/"));
}

#[test]
fn serve_follows_a_base_url_change_and_redirects_the_old_path() {
    let mut site = demo_site();
    let server = Server::start(&site);
    let mut stream = events(&server);
    std::thread::sleep(Duration::from_millis(300));

    // base_url gets another path while serving: rebuilt, open pages told to reload, and the site
    // is served under the new path.
    site.config.base_url = "https://user.github.io/news/".into();
    site.write_config(&[]);
    wait_event(&mut stream, "reload", Duration::from_secs(20));
    let (status, page) = server.get("/news/2021/07/20/0800/");
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("href=\"/news/2021/07/20/\""),
        "links under /news/: {page}"
    );
    assert!(page.contains("src=\"/news/__matome/live.js\""), "{page}");
    // The open page reloads at its old URL and lands on the same page under the new path.
    let r = raw(server.addr, "/repo/2021/07/20/0800/?x=1");
    assert!(r.starts_with("HTTP/1.1 301"), "{r}");
    assert_eq!(header(&r, "location"), Some("/news/2021/07/20/0800/?x=1"));
    let r = raw(server.addr, "/");
    assert_eq!(header(&r, "location"), Some("/news/"), "{r}");
    // The live-reload endpoints and the search API follow.
    let (status, _) = server.get("/news/__matome/live.js");
    assert_eq!(status, 200);
    let (status, body) = server.get("/news/api/search?q=%E6%97%A5%E6%9C%AC%E9%8A%80%E8%A1%8C");
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("http://127.0.0.1:") && body.contains("/news/2021/"),
        "hits link under /news/: {body}"
    );
    let mut fresh = BufReader::new({
        let mut s = TcpStream::connect(server.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        write!(
            s,
            "GET /news/__matome/events HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\r\n",
            server.addr
        )
        .unwrap();
        s
    });
    std::thread::sleep(Duration::from_millis(300));

    // And back: /repo/ again, /news/ redirecting there.
    site.config.base_url = "https://user.github.io/repo/".into();
    site.write_config(&[]);
    wait_event(&mut fresh, "reload", Duration::from_secs(20));
    let (status, page) = server.get("/repo/");
    assert_eq!(status, 200);
    assert!(page.contains("href=\"/repo/2021/"), "{page}");
    let r = raw(server.addr, "/news/archives/");
    assert_eq!(header(&r, "location"), Some("/repo/archives/"), "{r}");
}
