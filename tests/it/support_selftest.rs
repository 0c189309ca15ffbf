//! Tests of the test infrastructure itself (server, gzip helpers, site).

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::support::server::{GZIP_BOMB_SIZE, build_gzip_bomb, gunzip, gzip_bomb_bytes};
use crate::support::*;

/// A parsed response as seen by a minimal raw client.
struct Got {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Got {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn send_request(server: &TestServer, path: &str, headers: &[(&str, &str)]) -> TcpStream {
    let mut s = TcpStream::connect(server.addr()).unwrap();
    let mut req = format!("GET {path} HTTP/1.1\r\nHost: {}\r\n", server.addr());
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s
}

/// GET over a raw socket, read to EOF (the server always closes).
fn get(server: &TestServer, path: &str, headers: &[(&str, &str)]) -> Got {
    let mut s = send_request(server, path, headers);
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("response head")
        + 4;
    let head = String::from_utf8(raw[..end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let status = status_line.split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    Got {
        status,
        headers,
        body: raw[end..].to_vec(),
    }
}

#[test]
fn serves_route_and_records_request_headers() {
    let server = TestServer::new();
    server.route(
        "/feed.xml",
        Response::ok("<rss/>").content_type("application/rss+xml; charset=Shift_JIS"),
    );
    let got = get(
        &server,
        "/feed.xml?x=1",
        &[("User-Agent", "selftest/1.0"), ("X-Custom", "a b")],
    );
    assert_eq!(got.status, 200);
    assert_eq!(got.body, b"<rss/>");
    assert_eq!(got.header("content-length"), Some("6"));
    assert_eq!(got.header("connection"), Some("close"));
    assert_eq!(
        got.header("content-type"),
        Some("application/rss+xml; charset=Shift_JIS")
    );

    let reqs = server.requests("/feed.xml");
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(r.method, "GET");
    assert_eq!(r.path, "/feed.xml");
    assert_eq!(r.target, "/feed.xml?x=1");
    assert_eq!(r.query(), Some("x=1"));
    assert_eq!(r.hit, 0);
    assert_eq!(r.header("user-agent").as_deref(), Some("selftest/1.0"));
    assert_eq!(r.header("X-CUSTOM").as_deref(), Some("a b"));
    assert_eq!(r.header("if-none-match"), None);
    assert!(r.received_at.elapsed() < Duration::from_secs(5));
    assert_eq!(server.hits("/feed.xml"), 1);
    assert!(
        server
            .url("/feed.xml")
            .starts_with(&format!("http://127.0.0.1:{}/", server.port()))
    );
}

#[test]
fn unknown_path_is_404_and_recorded() {
    let server = TestServer::new();
    server.route("/a", Response::ok("a"));
    let got = get(&server, "/nope", &[]);
    assert_eq!(got.status, 404);
    assert_eq!(server.requests("/nope").len(), 1);
    assert_eq!(server.all_requests().len(), 1);
}

#[test]
fn closure_sees_nth_hit_and_sequences_repeat_last() {
    let server = TestServer::new();
    server.route("/flaky", |_req: &Request, hit: usize| {
        if hit == 0 {
            Response::status(503).retry_after("1")
        } else {
            Response::ok(format!("hit {hit}"))
        }
    });
    server.route("/seq", vec![Response::status(500), Response::ok("second")]);
    let a = get(&server, "/flaky", &[]);
    assert_eq!(a.status, 503);
    assert_eq!(a.header("retry-after"), Some("1"));
    let b = get(&server, "/flaky", &[]);
    assert_eq!((b.status, b.body.as_slice()), (200, &b"hit 1"[..]));
    assert_eq!(get(&server, "/seq", &[]).status, 500);
    assert_eq!(get(&server, "/seq", &[]).body, b"second");
    assert_eq!(get(&server, "/seq", &[]).body, b"second");
    let hits: Vec<usize> = server.requests("/seq").iter().map(|r| r.hit).collect();
    assert_eq!(hits, vec![0, 1, 2]);
}

#[test]
fn conditional_returns_304_on_matching_validators() {
    let server = TestServer::new();
    let lm = "Tue, 20 Jul 2021 08:00:00 GMT";
    server.route(
        "/feed.xml",
        Response::rss("<rss/>")
            .etag("\"v1\"")
            .last_modified(lm)
            .conditional(),
    );
    let first = get(&server, "/feed.xml", &[]);
    assert_eq!(first.status, 200);
    assert_eq!(first.header("etag"), Some("\"v1\""));
    assert_eq!(first.header("last-modified"), Some(lm));

    let inm = get(&server, "/feed.xml", &[("If-None-Match", "\"v1\"")]);
    assert_eq!(inm.status, 304);
    assert!(inm.body.is_empty());
    assert_eq!(inm.header("etag"), Some("\"v1\""));

    let weak = get(
        &server,
        "/feed.xml",
        &[("if-none-match", "\"v0\", W/\"v1\"")],
    );
    assert_eq!(weak.status, 304);

    let stale = get(&server, "/feed.xml", &[("If-None-Match", "\"v0\"")]);
    assert_eq!(stale.status, 200);
    assert_eq!(stale.body, b"<rss/>");

    let ims = get(&server, "/feed.xml", &[("If-Modified-Since", lm)]);
    assert_eq!(ims.status, 304);

    // If-None-Match takes precedence over If-Modified-Since.
    let both = get(
        &server,
        "/feed.xml",
        &[("If-None-Match", "\"v0\""), ("If-Modified-Since", lm)],
    );
    assert_eq!(both.status, 200);

    let reqs = server.requests("/feed.xml");
    assert_eq!(reqs.len(), 6);
    assert_eq!(reqs[1].header("if-none-match").as_deref(), Some("\"v1\""));
}

#[test]
fn hang_does_not_answer_within_one_second() {
    let server = TestServer::new();
    server.route("/hang", Response::hang());
    let mut s = send_request(&server, "/hang", &[]);
    s.set_read_timeout(Some(Duration::from_secs(1))).unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 16];
    let err = s.read(&mut buf).expect_err("hang route answered");
    assert!(
        matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
        "{err:?}"
    );
    assert!(started.elapsed() >= Duration::from_millis(900));
    assert_eq!(server.hits("/hang"), 1, "request was recorded");
}

#[test]
fn dropping_server_frees_port_and_ends_hanging_connections() {
    let server = TestServer::new();
    server.route("/hang", Response::hang());
    let addr = server.addr();
    let mut hanging = send_request(&server, "/hang", &[]);
    assert!(server.wait_for_hits("/hang", 1, Duration::from_secs(2)));

    let started = Instant::now();
    drop(server);
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "drop took {:?}",
        started.elapsed()
    );
    // Nothing accepts on the port any more ...
    assert!(TcpStream::connect(addr).is_err(), "port still accepting");
    // ... it can be bound again ...
    drop(TcpListener::bind(addr).expect("port not freed"));
    // ... and the hanging connection gets closed soon.
    hanging
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    let mut buf = [0u8; 16];
    match hanging.read(&mut buf) {
        Ok(0) => {}
        Err(e) if e.kind() == ErrorKind::ConnectionReset => {}
        other => panic!("hanging connection not closed: {other:?}"),
    }
}

#[test]
fn stall_after_sends_head_and_partial_body() {
    let server = TestServer::new();
    server.route("/stall", Response::rss(vec![b'x'; 1000]).stall_after(10));
    let mut s = send_request(&server, "/stall", &[]);
    s.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => panic!("connection closed"),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(_) => break,
        }
    }
    let text = String::from_utf8(got).unwrap();
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
    assert!(text.contains("Content-Length: 1000\r\n"), "{text}");
    assert!(text.ends_with("\r\n\r\nxxxxxxxxxx"), "{text}");
}

#[test]
fn endless_keeps_sending() {
    let server = TestServer::new();
    server.route("/endless", Response::endless());
    let mut s = send_request(&server, "/endless", &[]);
    s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    while got.len() < 2 * 1024 * 1024 {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "endless body ended after {} bytes", got.len());
        got.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&got[..2048]);
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"));
    assert!(!head.to_ascii_lowercase().contains("content-length"));
    assert!(head.contains("<rss version=\"2.0\"><channel>"));
    assert!(head.contains("<item>"));
}

#[test]
fn endless_chunked_uses_chunked_encoding() {
    let server = TestServer::new();
    server.route("/endless", Response::endless().chunked());
    let mut s = send_request(&server, "/endless", &[]);
    s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut got = vec![0u8; 4096];
    s.read_exact(&mut got).unwrap();
    let head = String::from_utf8_lossy(&got);
    assert!(head.contains("Transfer-Encoding: chunked\r\n"), "{head}");
}

#[test]
fn trickle_is_slow() {
    let server = TestServer::new();
    server.route(
        "/slow",
        Response::ok("abcde").trickle(Duration::from_millis(40)),
    );
    let started = Instant::now();
    let got = get(&server, "/slow", &[]);
    assert_eq!(got.body, b"abcde");
    assert!(started.elapsed() >= Duration::from_millis(190));
}

#[test]
fn redirects_raw_and_gzip() {
    let server = TestServer::new();
    server.route("/a", Response::redirect(301, &server.url("/b")));
    server.route("/b", Response::redirect(302, "/a"));
    server.route("/raw", Response::raw(&b"\xff\xfe garbage \x00\x01"[..]));
    server.route("/gz", Response::gzip("こんにちは"));

    let a = get(&server, "/a", &[]);
    assert_eq!(a.status, 301);
    assert_eq!(a.header("location"), Some(server.url("/b").as_str()));
    let b = get(&server, "/b", &[]);
    assert_eq!((b.status, b.header("location")), (302, Some("/a")));

    let mut s = send_request(&server, "/raw", &[]);
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    assert_eq!(raw, b"\xff\xfe garbage \x00\x01");

    let gz = get(&server, "/gz", &[]);
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert_eq!(gunzip(&gz.body).unwrap(), "こんにちは".as_bytes());
}

#[test]
fn small_gzip_bomb_inflates_exactly() {
    let len = 5 * 1024 * 1024 + 123;
    let bomb = build_gzip_bomb(b"<rss>", b' ', len);
    assert!(bomb.len() < 64 * 1024, "bomb is {} bytes", bomb.len());
    // GzDecoder checks CRC32 and ISIZE at the end.
    let out = gunzip(&bomb).unwrap();
    assert_eq!(out.len() as u64, len);
    assert!(out.starts_with(b"<rss>"));
    assert!(out[5..].iter().all(|&b| b == b' '));
}

#[test]
fn default_gzip_bomb_is_small_on_the_wire() {
    let bomb = gzip_bomb_bytes();
    // Well below the 1 MiB max_body_bytes the test sites set, on the wire.
    assert!(bomb.len() < 600_000, "bomb is {} bytes", bomb.len());
    assert_eq!(&bomb[..3], &[0x1f, 0x8b, 8]);
    assert_eq!(
        u32::from_le_bytes(bomb[bomb.len() - 4..].try_into().unwrap()),
        GZIP_BOMB_SIZE as u32
    );
    // Inflate a prefix only.
    let mut dec = flate2::read::GzDecoder::new(&bomb[..]);
    let mut buf = vec![0u8; 3 * 1024 * 1024];
    dec.read_exact(&mut buf).unwrap();
    assert!(buf.iter().all(|&b| b == b' '));

    let resp = Response::gzip_bomb();
    assert_eq!(resp.get_header("content-encoding"), Some("gzip"));
}

#[test]
fn site_renders_valid_config_and_lists_files() {
    let mut site = Site::new().with_fetch(|f| f.timeout = 1);
    site.config.fetch_extra = "user_agent = \"x\"".into();
    site.config.append = "[search]\nenabled = false".into();
    let text = site.write_config(&[
        FeedSpec::new("http://127.0.0.1:1/feed.xml", "IT").site("Example"),
        FeedSpec::new("http://127.0.0.1:1/b \"q\".xml", "経済"),
    ]);
    let parsed: toml::Table = toml::from_str(&site.read("matome.toml")).expect(&text);
    assert_eq!(parsed["title"].as_str(), Some("テストサイト"));
    assert_eq!(parsed["timezone"].as_str(), Some("Asia/Tokyo"));
    let fetch = parsed["fetch"].as_table().unwrap();
    assert_eq!(fetch["timeout"].as_integer(), Some(1));
    assert_eq!(fetch["connect_timeout"].as_integer(), Some(5));
    assert_eq!(fetch["max_body_bytes"].as_integer(), Some(1_048_576));
    assert_eq!(fetch["retry_after_max_wait"].as_integer(), Some(3));
    assert_eq!(fetch["user_agent"].as_str(), Some("x"));
    let feeds = parsed["feeds"].as_array().unwrap();
    assert_eq!(feeds.len(), 2);
    assert_eq!(feeds[0]["site"].as_str(), Some("Example"));
    assert_eq!(
        feeds[1]["url"].as_str(),
        Some("http://127.0.0.1:1/b \"q\".xml")
    );
    assert!(feeds[1].get("site").is_none());
    assert_eq!(parsed["search"]["enabled"].as_bool(), Some(false));

    site.write("content/2021/07/20/0900.md", "b");
    site.write("content/2021/07/20/0800.md", "a");
    site.write("content/2021/07/20/notes.txt", "x");
    site.write("content/_index.md", "i");
    assert_eq!(
        site.content_files(),
        vec![
            PathBuf::from("content/2021/07/20/0800.md"),
            PathBuf::from("content/2021/07/20/0900.md"),
            PathBuf::from("content/_index.md"),
        ]
    );
    assert!(site.state_opt().is_none());
    site.write("fetch-state.json", r#"{"feeds":{"a":{"etag":"\"v1\""}}}"#);
    assert_eq!(site.state()["feeds"]["a"]["etag"], "\"v1\"");
}

#[test]
fn site_runs_the_binary() {
    let site = Site::new();
    let out = site.matome(&["--help"]);
    assert!(out.code.is_some(), "{out:?}");
    assert!(!out.timed_out);
    let dbg = format!("{out:?}");
    assert!(dbg.contains("--- stdout") && dbg.contains("--- stderr"));
    assert!(dbg.contains(&format!("--root {}", site.root().display())));
}

#[test]
fn all_fixtures_listed_in_readme_exist() {
    let readme = String::from_utf8(fixture("README.md")).unwrap();
    let mut names = Vec::new();
    for line in readme.lines() {
        if let Some(rest) = line.strip_prefix("- `")
            && let Some((name, _)) = rest.split_once('`')
        {
            names.push(name.to_string());
        }
    }
    assert!(names.len() >= 20, "{names:?}");
    for name in names {
        assert!(fixture_path(&name).is_file(), "missing fixture {name}");
    }
}
