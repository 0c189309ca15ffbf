//! `matome fetch` against a real HTTP server on 127.0.0.1: formats, charsets, conditional GET,
//! hostile servers, item identity, exit status.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use matome::content::{Item, Snapshot};

use crate::support::{FeedSpec, Response, RunOutput, Site, TestServer};

const NOW: &str = "2021-07-20T08:28:58+09:00";

/// Every item archived in the site, in file order.
pub fn archived(site: &Site) -> Vec<Item> {
    site.content_files()
        .iter()
        .flat_map(|rel| {
            let text = site.read(rel);
            Snapshot::parse(&text, &rel.display().to_string())
                .unwrap_or_else(|e| panic!("{e}\n{text}"))
                .items
        })
        .collect()
}

/// The snapshot files, relative to the site root.
pub fn files(site: &Site) -> Vec<String> {
    site.content_files()
        .iter()
        .map(|p| p.display().to_string())
        .collect()
}

fn titles(site: &Site) -> Vec<String> {
    archived(site).into_iter().map(|i| i.title).collect()
}

/// A site with one feed per (path, response), all in category IT.
fn site_with(server: &TestServer, routes: Vec<(&str, Response)>) -> Site {
    let site = Site::new();
    let mut specs = Vec::new();
    for (path, resp) in routes {
        server.route(path, resp);
        specs.push(FeedSpec::new(&server.url(path), "IT"));
    }
    site.write_config(&specs);
    site
}

fn fetch(site: &Site) -> RunOutput {
    site.matome(&["fetch", "--now", NOW])
}

fn fetch_at(site: &Site, now: &str) -> RunOutput {
    site.matome(&["fetch", "--now", now])
}

#[test]
fn every_feed_format_is_archived() {
    let server = TestServer::new();
    let cases = [
        ("/rss090.xml", "PC-9801の復刻キーボードが予約開始"),
        (
            "/rss091.xml",
            "新型ワイヤレスイヤホン、ノイズキャンセリング性能が向上",
        ),
        (
            "/rss1-rdf.xml",
            "国産スパコン、新たな性能ランキングで首位を維持",
        ),
        (
            "/rss2.xml",
            "半導体大手、国内に新工場\u{3000}投資額は約8000億円",
        ),
        (
            "/atom.xml",
            "ドル円、110円台前半で小動き\u{3000}FOMC控え様子見",
        ),
        (
            "/jsonfeed.json",
            "Tokio 1.8リリース：非同期ランタイムの新機能を解説",
        ),
    ];
    let site = site_with(
        &server,
        cases
            .iter()
            .map(|(p, _)| (*p, Response::fixture(&p[1..])))
            .collect(),
    );
    let out = fetch(&site);
    out.assert_success();
    assert!(out.stdout.contains("6 ok"), "{out:?}");
    assert_eq!(files(&site), ["content/2021/07/20/0800.md"]);
    let items = archived(&site);
    for (path, title) in cases {
        let from_feed: Vec<&Item> = items.iter().filter(|i| i.feed.ends_with(path)).collect();
        assert!(from_feed.len() >= 2, "{path}: {from_feed:?}");
        assert!(
            from_feed.iter().any(|i| i.title == title),
            "{path}: no item titled {title}: {from_feed:#?}"
        );
        for i in from_feed {
            assert_eq!(i.category, "IT");
            assert!(!i.id.is_empty());
            assert!(i.published.to_rfc3339().ends_with("+09:00"), "{i:?}");
        }
    }
}

#[test]
fn japanese_charsets_are_decoded_without_mojibake() {
    let server = TestServer::new();
    let site = site_with(
        &server,
        vec![
            ("/sjis", Response::fixture("rss2-shift_jis.xml")),
            ("/cp932", Response::fixture("rss2-cp932.xml")),
            ("/eucjp", Response::fixture("rss2-euc-jp.xml")),
            (
                "/eucjp-header",
                Response::ok(crate::support::fixture("rss2-euc-jp-undeclared.xml"))
                    .content_type("application/xml; charset=EUC-JP"),
            ),
            ("/jis", Response::fixture("rss2-iso-2022-jp.xml")),
            ("/utf16le", Response::fixture("rss2-utf16le-bom.xml")),
            (
                "/utf16be",
                Response::fixture("rss2-utf16be-declared-utf16.xml"),
            ),
            ("/lying", Response::fixture("rss2-lying-declaration.xml")),
        ],
    );
    let out = fetch(&site);
    out.assert_success();
    assert!(
        out.stdout.contains("8 ok, 0 not modified, 0 failed"),
        "{out:?}"
    );
    let t = titles(&site);
    for want in [
        "日本銀行、金融政策決定会合で現状維持を決定",
        "ソフト開発の表現能力を高める新言語を発表",
        "①新製品発表会を開催\u{3000}㈱テスト商事",
        "髙橋社長、Ⅲ期目の抱負を語る",
        "半導体不足、自動車生産に影響続く",
        "ﾊﾝｶｸｶﾅを含む見出し：地銀再編の動き",
        "Linuxカーネル5.13が公開、新たなセキュリティ機能を搭載",
        "電子メール配信の文字コード事情",
        "国内PC出荷台数、前年同期比で増加",
        "Emoji 14.0 draft adds 🫠 melting face",
        "サーバー市場、国内メーカーのシェアが拡大",
        "生成AIの業務利用、企業の3割が検討",
    ] {
        assert!(t.iter().any(|x| x == want), "missing {want:?} in {t:#?}");
    }
    // No replacement characters or escape bytes anywhere in the archive.
    for rel in site.content_files() {
        let text = site.read(&rel);
        assert!(!text.contains('\u{fffd}'), "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
    }
}

#[test]
fn undecodable_feed_is_a_clear_error_not_mojibake() {
    let server = TestServer::new();
    let site = site_with(
        &server,
        vec![
            // EUC-JP bytes with no declaration at all: not guessed.
            (
                "/undeclared",
                Response::fixture("rss2-euc-jp-undeclared.xml"),
            ),
            ("/ok", Response::fixture("rss2.xml")),
        ],
    );
    let out = fetch(&site);
    out.assert_success();
    assert!(
        out.stderr
            .contains(&format!("error: {}: ", server.url("/undeclared"))),
        "{out:?}"
    );
    assert!(out.stderr.contains("not valid UTF-8"), "{out:?}");
    assert!(archived(&site).iter().all(|i| i.feed.ends_with("/ok")));
}

#[test]
fn second_run_is_conditional_and_gets_304() {
    let server = TestServer::new();
    let site = site_with(
        &server,
        vec![
            (
                "/etag",
                Response::fixture("rss2.xml").etag("\"v1\"").conditional(),
            ),
            (
                "/lm",
                Response::fixture("atom.xml")
                    .last_modified("Tue, 20 Jul 2021 08:00:00 GMT")
                    .conditional(),
            ),
        ],
    );
    fetch(&site).assert_success();
    let first = site.read("content/2021/07/20/0800.md");
    let out = fetch_at(&site, "2021-07-20T09:05:00+09:00");
    out.assert_success();
    assert!(out.stdout.contains("0 ok, 2 not modified"), "{out:?}");
    assert!(out.stdout.contains("no new items"), "{out:?}");

    let etag_reqs = server.requests("/etag");
    assert_eq!(etag_reqs.len(), 2);
    assert_eq!(etag_reqs[0].header("if-none-match"), None);
    assert_eq!(
        etag_reqs[1].header("if-none-match").as_deref(),
        Some("\"v1\"")
    );
    let lm_reqs = server.requests("/lm");
    assert_eq!(
        lm_reqs[1].header("if-modified-since").as_deref(),
        Some("Tue, 20 Jul 2021 08:00:00 GMT")
    );
    let ua = etag_reqs[0].header("user-agent").unwrap();
    assert!(
        ua.starts_with(&format!("matome/{}", env!("CARGO_PKG_VERSION"))),
        "{ua}"
    );
    // Nothing new: no new file, the old one untouched.
    assert_eq!(site.content_files().len(), 1);
    assert_eq!(site.read("content/2021/07/20/0800.md"), first);
    let state = site.state();
    let feed = &state["feeds"][server.url("/etag")];
    assert_eq!(feed["etag"], "\"v1\"");
    assert_eq!(feed["last_success"], "2021-07-20T09:05:00+09:00");
}

#[test]
fn gzip_encoded_feed_is_decoded() {
    let server = TestServer::new();
    let site = site_with(
        &server,
        vec![("/gz", Response::fixture("rss2.xml").gzipped())],
    );
    fetch(&site).assert_success();
    assert_eq!(archived(&site).len(), 3);
}

/// Each hostile server fails its own feed, reported with the URL, while a good feed still lands.
#[test]
fn hostile_servers_fail_alone_and_the_run_carries_on() {
    let server = TestServer::new();
    let mut big =
        b"<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>big</title>".to_vec();
    big.extend(std::iter::repeat_n(b' ', 2 * 1024 * 1024));
    big.extend_from_slice(b"</channel></rss>");
    let cases: Vec<(&str, Response, &str)> = vec![
        ("/500", Response::status(500), "HTTP 500"),
        ("/404", Response::not_found(), "HTTP 404"),
        ("/hang", Response::hang(), "timed out"),
        (
            "/garbage",
            Response::fixture("garbage.bin"),
            "not valid UTF-8",
        ),
        ("/bomb", Response::gzip_bomb(), "cap"),
        ("/big", Response::ok(big), "cap"),
        ("/endless", Response::endless(), "cap"),
        ("/loop-a", Response::redirect(302, "/loop-b"), "redirect"),
        (
            "/html",
            Response::ok("<html><body>Not a feed</body></html>"),
            "not a feed",
        ),
    ];
    server.route("/loop-b", Response::redirect(302, "/loop-a"));
    let site = Site::new().with_fetch(|f| {
        f.timeout = 2;
        f.max_body_bytes = 1024 * 1024;
    });
    let mut specs: Vec<FeedSpec> = Vec::new();
    for (path, resp, _) in &cases {
        server.route(path, resp.clone());
        specs.push(FeedSpec::new(&server.url(path), "IT"));
    }
    server.route("/good", Response::fixture("rss2.xml"));
    specs.push(FeedSpec::new(&server.url("/good"), "IT"));
    site.write_config(&specs);

    let out = fetch(&site);
    out.assert_success();
    assert!(out.elapsed < Duration::from_secs(20), "{out:?}");
    assert!(
        out.stdout
            .contains("10 feeds: 1 ok, 0 not modified, 9 failed"),
        "{out:?}"
    );
    let state = site.state();
    for (path, _, reason) in &cases {
        let url = server.url(path);
        let line = out
            .stderr
            .lines()
            .find(|l| l.starts_with(&format!("error: {url}: ")))
            .unwrap_or_else(|| panic!("no error line for {url}: {out:?}"));
        let reason = reason.to_lowercase();
        assert!(line.to_lowercase().contains(&reason), "{path}: {line}");
        let fs = &state["feeds"][&url];
        assert_eq!(fs["consecutive_failures"], 1, "{path}: {fs}");
        assert!(
            fs["last_error"]
                .as_str()
                .unwrap()
                .to_lowercase()
                .contains(&reason)
        );
    }
    assert_eq!(
        archived(&site).len(),
        3,
        "the good feed's items are archived"
    );
    // The bomb was not inflated to its full size: the request ended at the cap.
    assert!(server.requests("/bomb").len() == 1);
}

#[test]
fn redirects_are_followed_up_to_five() {
    let server = TestServer::new();
    for i in 0..5 {
        server.route(
            &format!("/r{i}"),
            Response::redirect(301, &format!("/r{}", i + 1)),
        );
    }
    server.route("/r5", Response::fixture("rss2.xml"));
    for i in 0..7 {
        server.route(
            &format!("/s{i}"),
            Response::redirect(302, &format!("/s{}", i + 1)),
        );
    }
    server.route("/s7", Response::fixture("atom.xml"));
    server.route("/ftp", Response::redirect(302, "ftp://127.0.0.1/feed.xml"));
    let site = Site::new();
    site.write_config(&[
        FeedSpec::new(&server.url("/r0"), "IT"),
        FeedSpec::new(&server.url("/s0"), "IT"),
        FeedSpec::new(&server.url("/ftp"), "IT"),
    ]);
    let out = fetch(&site);
    out.assert_success();
    assert!(
        out.stdout.contains("1 ok, 0 not modified, 2 failed"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains(&format!("error: {}: redirect", server.url("/s0"))),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains(&format!("error: {}: ", server.url("/ftp"))),
        "{out:?}"
    );
    assert_eq!(server.hits("/s6"), 0, "stopped after 5 redirects");
    // Items keep the configured feed URL, not the redirect target.
    assert!(archived(&site).iter().all(|i| i.feed == server.url("/r0")));
}

#[test]
fn exit_status_tells_the_truth() {
    let server = TestServer::new();
    let site = site_with(
        &server,
        vec![("/a", Response::status(500)), ("/b", Response::status(503))],
    );
    let out = fetch(&site);
    out.assert_code(1);
    assert!(out.stderr.contains("no feed could be fetched"), "{out:?}");

    let site = site_with(
        &server,
        vec![
            ("/ok", Response::fixture("rss2.xml")),
            ("/bad", Response::status(500)),
        ],
    );
    fetch(&site).assert_success();
    let out = site.matome(&["fetch", "--now", "2021-07-20T09:10:00+09:00", "--strict"]);
    out.assert_code(1);
    assert!(out.stderr.contains("--strict"), "{out:?}");
}

#[test]
fn config_errors_name_file_and_line_and_exit_non_zero() {
    let site = Site::new();
    site.write_config_raw(
        "title = \"t\"\nbase_url = \"https://x.github.io/r/\"\ntimezone = \"Asia/Tokio\"\n",
    );
    let out = fetch(&site);
    out.assert_failure();
    assert!(out.stderr.contains("matome.toml:3:"), "{out:?}");
    assert!(out.stderr.contains("timezone"), "{out:?}");
    assert!(!site.exists("content"));
}

#[test]
fn short_retry_after_is_waited_for_long_one_defers_the_feed() {
    let server = TestServer::new();
    server.route(
        "/busy",
        vec![
            Response::status(503).retry_after("1"),
            Response::fixture("rss2.xml"),
        ],
    );
    server.route("/limited", Response::status(429).retry_after("7200"));
    let site = Site::new();
    site.write_config(&[
        FeedSpec::new(&server.url("/busy"), "IT"),
        FeedSpec::new(&server.url("/limited"), "IT"),
    ]);
    let out = fetch(&site);
    out.assert_success();
    let busy = server.requests("/busy");
    assert_eq!(busy.len(), 2, "{out:?}");
    assert!(busy[1].received_at - busy[0].received_at >= Duration::from_millis(950));
    let state = site.state();
    assert_eq!(
        state["feeds"][server.url("/limited")]["next_attempt"],
        "2021-07-20T10:28:58+09:00"
    );
    // An hour later the limited feed is still deferred (and said so); after two hours it is tried.
    let out = fetch_at(&site, "2021-07-20T09:30:00+09:00");
    assert!(out.stdout.contains("1 deferred"), "{out:?}");
    assert!(
        out.stderr
            .contains(&format!("deferred: {}", server.url("/limited"))),
        "{out:?}"
    );
    assert_eq!(server.hits("/limited"), 1);
    fetch_at(&site, "2021-07-20T10:30:00+09:00");
    assert_eq!(server.hits("/limited"), 2);
}

#[test]
fn a_failing_feed_backs_off_but_is_never_dropped() {
    let server = TestServer::new();
    let site = site_with(
        &server,
        vec![
            ("/ok", Response::fixture("rss2.xml")),
            ("/down", Response::status(500)),
        ],
    );
    let hours = [
        "2021-07-20T08:00:00+09:00",
        "2021-07-20T09:00:00+09:00",
        "2021-07-20T10:00:00+09:00",
        "2021-07-20T11:00:00+09:00",
        "2021-07-20T12:00:00+09:00",
        "2021-07-20T13:00:00+09:00",
        "2021-07-20T14:00:00+09:00",
        "2021-07-20T15:00:00+09:00",
        "2021-07-20T16:00:00+09:00",
        "2021-07-21T16:00:00+09:00",
    ];
    let mut tried_at = Vec::new();
    for (i, h) in hours.iter().enumerate() {
        let before = server.hits("/down");
        fetch_at(&site, h).assert_success();
        if server.hits("/down") > before {
            tried_at.push(i);
        }
    }
    // Tried at the first two runs, then less and less often, and still tried a day later.
    assert_eq!(&tried_at[..2], &[0, 1], "{tried_at:?}");
    assert!(
        tried_at.len() < hours.len() - 2,
        "no back-off: {tried_at:?}"
    );
    assert_eq!(tried_at.last(), Some(&(hours.len() - 1)), "{tried_at:?}");
    let state = site.state();
    let down = &state["feeds"][server.url("/down")];
    assert_eq!(down["consecutive_failures"], tried_at.len());
    assert_eq!(down["last_error"], "HTTP 500 Internal Server Error");
    assert!(down["last_success"].is_null());
    assert_eq!(server.hits("/ok"), hours.len());
}

#[test]
fn concurrency_is_bounded_per_host() {
    let server = TestServer::new();
    let in_flight = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let mut specs = Vec::new();
    for i in 0..8 {
        let (in_flight, peak) = (in_flight.clone(), peak.clone());
        let path = format!("/feed{i}");
        server.route(&path, move |_: &crate::support::Request, _| {
            let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(150));
            in_flight.fetch_sub(1, Ordering::SeqCst);
            Response::fixture("rss2.xml")
        });
        specs.push(FeedSpec::new(&server.url(&path), "IT"));
    }
    let site = Site::new();
    site.write_config(&specs);
    fetch(&site).assert_success();
    assert_eq!(
        peak.load(Ordering::SeqCst),
        2,
        "default per-host limit is 2"
    );

    // Raising per_host lets more through at once.
    peak.store(0, Ordering::SeqCst);
    let site = Site::new().with_fetch(|_| {});
    let mut cfg = site.write_config(&specs);
    cfg = cfg.replace("[fetch]\n", "[fetch]\nper_host = 4\n");
    site.write_config_raw(&cfg);
    fetch(&site).assert_success();
    assert_eq!(peak.load(Ordering::SeqCst), 4);
}

#[test]
fn items_are_new_exactly_once() {
    let server = TestServer::new();
    // The feed drops an item and re-adds it later; duplicate GUIDs; items without GUID or link.
    let full = String::from_utf8(crate::support::fixture("rss2.xml")).unwrap();
    let first_item_end = full.find("</item>").unwrap() + "</item>".len();
    let first_item_start = full.find("<item>").unwrap();
    let dropped = format!("{}{}", &full[..first_item_start], &full[first_item_end..]);
    server.route(
        "/feed",
        vec![
            Response::ok(full.clone()),
            Response::ok(dropped),
            Response::ok(full.clone()),
        ],
    );
    server.route("/dups", Response::fixture("rss2-duplicate-guids.xml"));
    server.route("/noguid", Response::fixture("rss2-no-guid.xml"));
    // The same feed content under a second URL (another category): kept in both.
    server.route("/mirror", Response::ok(full));
    let site = Site::new();
    site.write_config(&[
        FeedSpec::new(&server.url("/feed"), "IT"),
        FeedSpec::new(&server.url("/dups"), "金融"),
        FeedSpec::new(&server.url("/noguid"), "ニュース"),
        FeedSpec::new(&server.url("/mirror"), "海外TECH"),
    ]);
    fetch(&site).assert_success();
    let first = archived(&site);
    assert_eq!(
        first.iter().filter(|i| i.feed.ends_with("/feed")).count(),
        3
    );
    assert_eq!(
        first.iter().filter(|i| i.feed.ends_with("/mirror")).count(),
        3
    );
    assert_eq!(
        first.iter().filter(|i| i.feed.ends_with("/dups")).count(),
        2,
        "two items share a GUID: archived once"
    );
    let noguid: Vec<&Item> = first
        .iter()
        .filter(|i| i.feed.ends_with("/noguid"))
        .collect();
    assert_eq!(noguid.len(), 3);
    assert!(
        noguid
            .iter()
            .any(|i| i.link.is_empty() && i.id.starts_with("sha256:"))
    );

    for h in ["2021-07-20T09:10:00+09:00", "2021-07-20T10:10:00+09:00"] {
        let out = fetch_at(&site, h);
        out.assert_success();
        assert!(out.stdout.contains("no new items"), "{h}: {out:?}");
    }
    assert_eq!(
        archived(&site),
        first,
        "nothing archived twice, nothing changed"
    );
    assert_eq!(site.content_files().len(), 1);
    // Every (feed, id) pair is unique across the archive.
    let mut keys: Vec<_> = first
        .iter()
        .map(|i| (i.feed.clone(), i.id.clone()))
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), first.len());
}

#[test]
fn dates_are_normalised_clamped_and_defaulted() {
    let server = TestServer::new();
    let site = site_with(
        &server,
        vec![
            ("/future", Response::fixture("rss2-future-date.xml")),
            ("/nodates", Response::fixture("rss2-no-dates.xml")),
            ("/atom", Response::fixture("atom.xml")),
        ],
    );
    fetch(&site).assert_success();
    let items = archived(&site);
    let get = |t: &str| items.iter().find(|i| i.title.contains(t)).unwrap();
    let p = |i: &Item| matome::content::rfc3339(&i.published);
    assert_eq!(
        p(get("2099年")),
        NOW,
        "a date in the future is clamped to the run"
    );
    assert_eq!(p(get("Kubernetes入門")), NOW, "no date: the run time");
    // 22:30Z on the 19th is 07:30 in Tokyo.
    assert!(
        items.iter().any(|i| p(i) == "2021-07-20T07:30:00+09:00"),
        "{items:#?}"
    );
}

#[test]
fn hostile_item_text_is_cleaned_and_bounded() {
    let server = TestServer::new();
    let site = site_with(
        &server,
        vec![("/x", Response::fixture("rss2-script-title.xml"))],
    );
    fetch(&site).assert_success();
    let items = archived(&site);
    assert_eq!(items.len(), 4);
    for i in &items {
        assert!(!i.title.chars().any(char::is_control), "{:?}", i.title);
        assert!(
            i.title.chars().count() <= 300,
            "{}",
            i.title.chars().count()
        );
        assert!(!i.text.contains("<script"), "{:?}", i.text);
        assert!(!i.text.contains("onerror"), "{:?}", i.text);
        assert!(
            i.link.is_empty() || i.link.starts_with("http://") || i.link.starts_with("https://"),
            "{:?}",
            i.link
        );
    }
    assert!(
        items
            .iter()
            .any(|i| i.title == "制御文字入りの[31mタイトル[0m"),
        "{items:#?}"
    );
    assert!(items.iter().any(|i| i.title.ends_with('…')));
    assert!(
        items
            .iter()
            .any(|i| i.title == "javascript:リンクを持つ記事" && i.link.is_empty())
    );
}

#[test]
fn a_second_run_in_the_same_hour_appends_and_keeps_the_body() {
    let server = TestServer::new();
    server.route(
        "/feed",
        vec![Response::fixture("rss2.xml"), Response::fixture("atom.xml")],
    );
    let site = Site::new();
    site.write_config(&[FeedSpec::new(&server.url("/feed"), "IT")]);
    fetch_at(&site, "2021-07-20T08:05:00+09:00").assert_success();
    let rel = "content/2021/07/20/0800.md";
    // The curator adds a note to the digest.
    let edited = format!("{}今朝のまとめ: **半導体**の話題が多い。\n", site.read(rel));
    site.write(rel, &edited);
    let out = fetch_at(&site, "2021-07-20T08:50:00+09:00");
    out.assert_success();
    assert_eq!(files(&site), [rel]);
    let snap = Snapshot::parse(&site.read(rel), rel).unwrap();
    assert_eq!(snap.items.len(), 6);
    assert_eq!(snap.body, "今朝のまとめ: **半導体**の話題が多い。\n");
    assert_eq!(
        matome::content::rfc3339(&snap.updated),
        "2021-07-20T08:50:00+09:00"
    );
    // The old items come first, unchanged; the new ones follow.
    let old = Snapshot::parse(&edited, rel).unwrap();
    assert_eq!(snap.items[..3], old.items[..]);
    assert!(snap.items[3..].iter().all(|i| !old.items.contains(i)));
    // The next hour gets its own file.
    server.route("/feed", Response::fixture("jsonfeed.json"));
    fetch_at(&site, "2021-07-20T09:00:00+09:00").assert_success();
    assert_eq!(files(&site), [rel, "content/2021/07/20/0900.md"]);
}
