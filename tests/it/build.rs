//! `matome build`: pages, safety, sub-path links, incremental rebuilds, errors.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, SystemTime};

use chrono::{DateTime, FixedOffset};
use matome::content::{Item, Snapshot, snapshot_rel_path};

use crate::support::web::{crawl, html_pages, http_get, serve_dir, tags};
use crate::support::{Site, TestServer};

fn t(s: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(s).unwrap()
}

struct It<'a> {
    id: &'a str,
    category: &'a str,
    site: &'a str,
    title: &'a str,
    keywords: &'a [&'a str],
}

fn item(i: &It, published: &str) -> Item {
    Item {
        id: format!("https://news.example.jp/{}", i.id),
        feed: format!("https://news.example.jp/{}.xml", i.site.len()),
        category: i.category.into(),
        site: i.site.into(),
        title: i.title.into(),
        link: format!("https://news.example.jp/articles/{}?a=1&b=2", i.id),
        published: t(published),
        keywords: i.keywords.iter().map(|s| s.to_string()).collect(),
        summary: format!("{}についての要約。二文目です。", i.title),
        text: String::new(),
        trend: None,
        story: String::new(),
    }
}

fn write_snapshot(site: &Site, hour: &str, items: Vec<Item>, body: &str) {
    let h = t(hour);
    let s = Snapshot {
        hour: h,
        updated: h + chrono::Duration::minutes(28) + chrono::Duration::seconds(58),
        items,
        body: body.into(),
    };
    s.write(&site.path(snapshot_rel_path(&h))).unwrap();
}

/// A small archive over two days: two categories, three sites, shared keywords.
fn fixture_site(base_url: &str) -> Site {
    let mut site = Site::new();
    site.config.base_url = base_url.into();
    // Every keyword gets a page, as before `[build] keyword_min_items` defaulted to 2 and
    // `keyword_min_sites` to 2: these tests are about the pages of keywords seen once or on one
    // site (tests/it/size.rs and tests/it/flood.rs cover the defaults).
    site.config.append = "[build]\nkeyword_min_items = 1\nkeyword_min_sites = 1\n".into();
    site.write_config(&[]);
    write_snapshot(
        &site,
        "2021-07-19T23:00:00+09:00",
        vec![item(
            &It {
                id: "a1",
                category: "金融",
                site: "マネー&マーケット",
                title: "日本銀行、気候変動対応オペを開始",
                keywords: &["日本銀行", "気候変動"],
            },
            "2021-07-19T22:10:00+09:00",
        )],
        "",
    );
    write_snapshot(
        &site,
        "2021-07-20T08:00:00+09:00",
        vec![
            item(
                &It {
                    id: "b1",
                    category: "IT",
                    site: "ITニュース総合",
                    title: "中小企業向けクラウドPC、月額3300円から",
                    keywords: &["クラウドPC", "中小企業"],
                },
                "2021-07-20T07:20:00+09:00",
            ),
            item(
                &It {
                    id: "b2",
                    category: "海外TECH",
                    site: "The Circuit Ledger",
                    title: "Regional carrier moves its 5G core to a public cloud",
                    keywords: &["5G core", "public cloud"],
                },
                "2021-07-20T07:12:26+09:00",
            ),
            item(
                &It {
                    id: "b3",
                    category: "金融",
                    site: "マネー&マーケット",
                    title: "日本銀行の政策決定会合、長期金利を据え置き",
                    keywords: &["日本銀行", "長期金利"],
                },
                "2021-07-20T06:00:00+09:00",
            ),
        ],
        "今朝の**注目**は[日銀](https://www.boj.or.jp/)の発表です。",
    );
    site
}

fn build(site: &Site, extra: &[&str]) -> String {
    let mut args = vec!["build"];
    args.extend_from_slice(extra);
    let out = site.matome(&args);
    out.assert_success();
    out.stdout
}

fn files(dir: &Path) -> BTreeMap<String, (Vec<u8>, SystemTime)> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let bytes = std::fs::read(e.path()).unwrap();
            let mtime = e.metadata().unwrap().modified().unwrap();
            (rel, (bytes, mtime))
        })
        .collect()
}

/// The `<main>` of a page, with the version redacted: what snapshots compare.
fn main_of(html: &str) -> String {
    let start = html.find("<main").expect("a <main> landmark");
    let end = html.find("</main>").expect("</main>") + "</main>".len();
    html[start..end].to_string()
}

#[test]
fn digest_category_and_keyword_pages_match_their_snapshots() {
    let site = fixture_site("https://user.github.io/repo/");
    build(&site, &[]);
    let page = |rel: &str| site.read(Path::new("public").join(rel));
    let digest = page("2021/07/20/0800/index.html");
    // The old digest's shape, in Japanese.
    assert!(digest.contains("<html lang=\"ja\">"));
    assert!(digest.contains("<h1>RSSフィード2021-07-20 08:00 分まとめ(3件)</h1>"));
    assert!(digest.contains(
        "投稿時間:<time datetime=\"2021-07-20T08:28:58+09:00\">2021-07-20 08:28:58</time>"
    ));
    insta::assert_snapshot!("digest_page", main_of(&digest));
    insta::assert_snapshot!(
        "category_page",
        main_of(&page("categories/金融/index.html"))
    );
    insta::assert_snapshot!(
        "keyword_page",
        main_of(&page("keywords/日本銀行/index.html"))
    );
}

#[test]
fn english_sites_get_english_strings() {
    let mut site = fixture_site("https://example.com/");
    site.config.language = "en".into();
    site.write_config(&[]);
    build(&site, &[]);
    let digest = site.read("public/2021/07/20/0800/index.html");
    assert!(digest.contains("<html lang=\"en\">"));
    assert!(
        digest.contains("<h1>Feed digest 2021-07-20 08:00 (3 items)</h1>"),
        "{digest}"
    );
    assert!(digest.contains("Posted: "));
    assert!(!digest.contains("分まとめ"));
}

#[test]
fn every_page_kind_is_written_with_links_under_the_base_url() {
    let site = fixture_site("https://user.github.io/repo/");
    let out = build(&site, &[]);
    assert!(out.contains("2 digests, 4 items"), "{out}");
    for rel in [
        "index.html",
        "2021/07/20/0800/index.html",
        "2021/07/19/2300/index.html",
        "2021/07/20/index.html",
        "2021/07/index.html",
        "2021/index.html",
        "archives/index.html",
        "categories/index.html",
        "categories/IT/index.html",
        "categories/IT/atom.xml",
        "sites/index.html",
        "keywords/index.html",
        "keywords/長期金利/index.html",
        "health/index.html",
        "atom.xml",
        "sitemap.xml",
        "sitemap-1.xml",
        "robots.txt",
        "404.html",
        ".nojekyll",
        "style.css",
        "favicon.svg",
    ] {
        assert!(site.exists(Path::new("public").join(rel)), "missing {rel}");
    }
    // Feeds and sitemaps are well-formed XML with absolute URLs under base_url.
    let atom = site.read("public/atom.xml");
    let doc = roxmltree::Document::parse(&atom).expect("atom.xml parses");
    let entries: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("entry"))
        .collect();
    assert_eq!(entries.len(), 4);
    assert!(atom.contains("<link rel=\"self\" type=\"application/atom+xml\" href=\"https://user.github.io/repo/atom.xml\"/>"));
    let cat = site.read("public/categories/金融/atom.xml");
    let doc = roxmltree::Document::parse(&cat).expect("category feed parses");
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("entry"))
            .count(),
        2
    );
    let sitemap = site.read("public/sitemap-1.xml");
    let doc = roxmltree::Document::parse(&sitemap).unwrap();
    let locs: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("loc"))
        .filter_map(|n| n.text())
        .collect();
    assert!(
        locs.iter()
            .all(|l| l.starts_with("https://user.github.io/repo/"))
    );
    assert!(locs.contains(&"https://user.github.io/repo/2021/07/20/0800/"));
    assert!(
        site.read("public/robots.txt")
            .contains("Sitemap: https://user.github.io/repo/sitemap.xml")
    );
    // Every page has the CSP, and the whole site loads nothing from elsewhere.
    for (rel, (bytes, _)) in files(&site.path("public")) {
        if !rel.ends_with(".html") {
            continue;
        }
        let html = String::from_utf8(bytes).unwrap();
        assert!(
            html.contains("http-equiv=\"Content-Security-Policy\""),
            "{rel}"
        );
        for tag in tags(&html) {
            if matches!(tag.name.as_str(), "link" | "script" | "img") {
                for v in [tag.attr("href"), tag.attr("src")].into_iter().flatten() {
                    assert!(
                        v.starts_with("/repo/") || tag.attr("rel") == Some("canonical"),
                        "{rel}: {} loads {v}",
                        tag.name
                    );
                }
            }
        }
    }
}

#[test]
fn nothing_executable_from_a_feed_reaches_public() {
    let site = Site::new();
    site.write_config(&[]);
    let evil = Item {
        id: "x".into(),
        feed: "https://evil.example/feed".into(),
        category: "<script>alert('cat')</script>".into(),
        site: "\"><img src=x onerror=alert('site')>".into(),
        title: "<script>alert('title')</script><img src=x onerror=alert(1)>".into(),
        link: "javascript:alert('link')".into(),
        published: t("2021-07-20T07:00:00+09:00"),
        keywords: vec!["<svg onload=alert(1)>".into(), "javascript:alert(1)".into()],
        summary: "<img src=x onerror=alert('summary')> <a href=\"javascript:alert(1)\">x</a>"
            .into(),
        text: String::new(),
        trend: None,
        story: String::new(),
    };
    let data_link = Item {
        id: "y".into(),
        link: "data:text/html,<script>alert(1)</script>".into(),
        title: "data link".into(),
        ..evil.clone()
    };
    let vb = Item {
        id: "z".into(),
        link: " VBScript:msgbox(1)".into(),
        title: "vbscript link".into(),
        ..evil.clone()
    };
    write_snapshot_items(&site, vec![evil, data_link, vb]);
    build(&site, &[]);
    let mut pages = 0;
    for (rel, (bytes, _)) in files(&site.path("public")) {
        // What a browser parses as markup (the search index's data files are JSON and binary
        // postings, read by the page and shown with textContent).
        if !(rel.ends_with(".html") || rel.ends_with(".xml") || rel.ends_with(".svg")) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        for tag in tags(&text) {
            // The theme's own scripts, from the site itself, are the only scripts.
            if tag.name == "script" {
                let src = tag.attr("src").unwrap_or_default();
                assert!(
                    src.starts_with("/test/") && src.ends_with(".js"),
                    "{rel}: a script that is not the theme's: {:?}",
                    tag.attrs
                );
                continue;
            }
            assert!(
                !matches!(tag.name.as_str(), "iframe" | "object" | "embed"),
                "{rel}: <{}> {:?}",
                tag.name,
                tag.attrs
            );
            for (name, value) in &tag.attrs {
                assert!(
                    !name.starts_with("on"),
                    "{rel}: event handler {name}={value}"
                );
                if matches!(name.as_str(), "href" | "src" | "action" | "formaction") {
                    let v = value.trim().to_ascii_lowercase();
                    for scheme in ["javascript:", "data:", "vbscript:"] {
                        assert!(!v.starts_with(scheme), "{rel}: {name}={value}");
                    }
                }
            }
            // No link opens a window its page can reach, or overrides the page's policy.
            assert!(
                tag.attr("target").is_none() && tag.attr("referrerpolicy").is_none(),
                "{rel}: {tag:?}"
            );
        }
        // A link to an article sends it nothing of the page: every HTML page's one referrer
        // policy is `no-referrer` (which a `rel="noreferrer"` on each of a year's ~400,000 row
        // links said again: ~7 MB of GitHub Pages' 1 GB).
        if rel.ends_with(".html") {
            let policies: Vec<_> = tags(&text)
                .into_iter()
                .filter(|t| t.name == "meta" && t.attr("name") == Some("referrer"))
                .map(|t| t.attr("content").unwrap_or_default().to_string())
                .collect();
            assert_eq!(policies, ["no-referrer"], "{rel}");
        }
        pages += 1;
    }
    assert!(pages > 10);
    // The markup is shown as text, escaped, on the digest page.
    let digest = site.read("public/2021/07/20/0700/index.html");
    assert!(
        digest.contains("&lt;script&gt;alert(&apos;title&apos;)&lt;/script&gt;")
            || digest.contains("&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt;"),
        "{digest}"
    );
}

fn write_snapshot_items(site: &Site, items: Vec<Item>) {
    let h = t("2021-07-20T07:00:00+09:00");
    let s = Snapshot {
        hour: h,
        updated: h,
        items,
        body: "<script>alert('body')</script><img src=x onerror=alert(1)> [x](javascript:alert(1)) <a href=\"data:text/html,x\">d</a>".into(),
    };
    s.write(&site.path(snapshot_rel_path(&h))).unwrap();
}

#[test]
fn a_sub_path_site_is_fully_reachable_and_every_link_resolves() {
    let server = TestServer::new();
    let base = server.url("/repo/");
    let site = fixture_site(&base);
    build(&site, &[]);
    serve_dir(&server, "/repo/", &site.path("public"));

    // Crawl from the home page, as a reader would.
    let crawl = crawl(&server, "/repo/");
    assert!(crawl.broken.is_empty(), "broken links: {:#?}", crawl.broken);
    // Every HTML page written is reachable by links from home.
    let pages = html_pages(&site.path("public"), "/repo/");
    let unreached: Vec<&String> = pages.difference(&crawl.reached).collect();
    assert!(
        unreached.is_empty(),
        "not reachable from home: {unreached:?}"
    );
    // A miss gets the 404 page, styled from the sub-path.
    let (status, body) = http_get(server.addr(), "/repo/no/such/page/");
    assert_eq!(status, 404);
    assert!(String::from_utf8_lossy(&body).contains("href=\"/repo/style.css\""));
}

#[test]
fn base_url_and_output_can_be_overridden() {
    let site = fixture_site("https://user.github.io/repo/");
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("site");
    build(
        &site,
        &[
            "--base-url",
            "https://news.example.org/archive",
            "--output",
            out.to_str().unwrap(),
        ],
    );
    assert!(
        !site.exists("public/index.html"),
        "--output replaces public/"
    );
    let home = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(home.contains("href=\"/archive/style.css\""), "{home}");
    assert!(home.contains("https://news.example.org/archive/"));
    let bad = site.matome(&["build", "--base-url", "javascript:alert(1)"]);
    bad.assert_failure();
    assert!(bad.stderr.contains("--base-url"), "{}", bad.stderr);
}

/// The incremental contract: after one new hourly snapshot, exactly the pages that show it (or
/// link to its neighbours) are rewritten; every other file keeps its bytes and its mtime.
#[test]
fn one_new_snapshot_rewrites_only_the_pages_it_changes() {
    let site = fixture_site("https://user.github.io/repo/");
    // A past month of history, so untouched days and a past search shard exist.
    write_snapshot(
        &site,
        "2021-06-18T12:00:00+09:00",
        vec![item(
            &It {
                id: "c1",
                category: "科学",
                site: "サイエンス",
                title: "量子コンピューターの新方式",
                keywords: &["量子コンピューター"],
            },
            "2021-06-18T11:00:00+09:00",
        )],
        "",
    );
    build(&site, &[]);
    let public = site.path("public");
    // Age every file so a rewrite is visible in its mtime.
    let old_time = SystemTime::now() - Duration::from_secs(3600);
    for e in walkdir::WalkDir::new(&public) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            std::fs::File::options()
                .write(true)
                .open(e.path())
                .unwrap()
                .set_modified(old_time)
                .unwrap();
        }
    }
    let before = files(&public);

    write_snapshot(
        &site,
        "2021-07-20T09:00:00+09:00",
        vec![item(
            &It {
                id: "d1",
                category: "IT",
                site: "ITニュース総合",
                title: "生成AIの業務利用が拡大",
                keywords: &["生成AI", "中小企業"],
            },
            "2021-07-20T08:40:00+09:00",
        )],
        "",
    );
    let out = build(&site, &[]);
    let after = files(&public);
    let changed: BTreeSet<&str> = after
        .iter()
        .filter(|(rel, (bytes, mtime))| {
            before
                .get(*rel)
                .is_none_or(|(b, m)| b != bytes || m != mtime)
        })
        .map(|(rel, _)| rel.as_str())
        .collect();
    let expected: BTreeSet<&str> = [
        // The new digest, and the previous one (its "next" link).
        "2021/07/20/0900/index.html",
        "2021/07/20/0800/index.html",
        // Its day, month, year and the archive index.
        "2021/07/20/index.html",
        "2021/07/index.html",
        "2021/index.html",
        "archives/index.html",
        // Home, the trends page (the latest hour and day), the feeds and the sitemap.
        "index.html",
        "trends/index.html",
        "atom.xml",
        "categories/IT/atom.xml",
        "digests/atom.xml",
        "sitemap-1.xml",
        // The sitemap index: its part's lastmod is the new digest's update.
        "sitemap.xml",
        // Its category, site and keywords, and the lists with their counts.
        "categories/IT/index.html",
        "categories/index.html",
        "sites/ITニュース総合/index.html",
        "sites/index.html",
        "keywords/生成ai/index.html",
        "keywords/中小企業/index.html",
        "keywords/index.html",
    ]
    .into_iter()
    .collect();
    // The static search index: the new item's month and the manifest, never a past month.
    let (search, pages): (BTreeSet<&str>, BTreeSet<&str>) =
        changed.iter().partition(|r| r.starts_with("search/"));
    assert_eq!(pages, expected, "build said: {out}");
    assert!(search.contains("search/manifest.json"), "{search:?}");
    assert!(
        search.iter().any(|r| r.starts_with("search/2021-07/")),
        "{search:?}"
    );
    assert!(
        search
            .iter()
            .all(|r| r.starts_with("search/2021-07/") || *r == "search/manifest.json"),
        "a past month's shard was rewritten: {search:?}"
    );
    assert!(before.keys().any(|r| r.starts_with("search/2021-06/")));
    // Unchanged files were not even rendered.
    assert!(
        out.contains(&format!("{} rendered", expected.len())),
        "{out}"
    );
    // A build with nothing new renders nothing.
    let again = build(&site, &[]);
    assert!(
        again.contains(" 0 rendered, 0 written, 0 removed"),
        "{again}"
    );
}

#[test]
fn a_theme_change_rebuilds_everything_and_vanished_pages_are_deleted() {
    let site = fixture_site("https://user.github.io/repo/");
    build(&site, &[]);
    let first = build(&site, &[]);
    assert!(first.contains(" 0 rendered"), "{first}");
    // Override one template: every page is rendered again.
    site.write(
        "templates/404.html",
        "{% extends \"base.html\" %}{% block main %}<h1>迷子</h1>{% endblock main %}",
    );
    let out = build(&site, &[]);
    let total: usize = out
        .split(": ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("file count");
    assert!(out.contains(&format!("{total} rendered")), "{out}");
    assert!(site.read("public/404.html").contains("迷子"));
    // Removing a snapshot removes its pages and the pages only it had.
    std::fs::remove_file(site.path("content/2021/07/19/2300.md")).unwrap();
    let out = build(&site, &[]);
    assert!(!site.exists("public/2021/07/19/2300/index.html"), "{out}");
    assert!(!site.exists("public/2021/07/19"), "empty folders go too");
    assert!(!site.exists("public/keywords/気候変動/index.html"));
    assert!(site.exists("public/keywords/日本銀行/index.html"));
}

#[test]
fn build_errors_name_the_file_and_line() {
    let site = fixture_site("https://user.github.io/repo/");
    site.write(
        "content/2021/07/21/0100.md",
        "+++\nhour = 2021-07-21T01:00:00+09:00\nupdated = 2021-07-21T01:00:00+09:00\n\n[[items]]\nid = \"x\"\nfeed = \"https://e.example/f\"\ncategory = \"IT\"\nsite = \"s\"\ntitle = \"t\"\npublished = \"yesterday\"\n+++\n",
    );
    let out = site.matome(&["build"]);
    out.assert_code(2);
    assert!(
        out.stderr.contains("content/2021/07/21/0100.md:11"),
        "{}",
        out.stderr
    );
    std::fs::remove_file(site.path("content/2021/07/21/0100.md")).unwrap();

    site.write("templates/digest.html", "{% extends \"base.html\" %}\n{% block main %}\n{{ heading | nosuchfilter }}\n{% endblock main %}");
    let out = site.matome(&["build"]);
    out.assert_code(2);
    assert!(
        out.stderr.contains("templates/digest.html"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("nosuchfilter"), "{}", out.stderr);
}

#[test]
fn the_health_page_shows_each_feeds_record() {
    let site = Site::new();
    site.write_config(&[
        crate::support::FeedSpec::new("https://ok.example/feed.xml", "IT").site("元気なサイト"),
        crate::support::FeedSpec::new("https://down.example/feed.xml", "金融")
            .site("落ちているサイト"),
    ]);
    site.write(
        "fetch-state.json",
        r#"{"version":1,"feeds":{
          "https://ok.example/feed.xml":{"last_success":"2021-07-20T08:28:58+09:00","last_attempt":"2021-07-20T08:28:58+09:00","consecutive_failures":0,"items_archived":42},
          "https://down.example/feed.xml":{"last_success":"2021-07-18T08:28:58+09:00","last_attempt":"2021-07-20T08:28:58+09:00","consecutive_failures":3,"last_error":"HTTP 503 <Service Unavailable>","next_attempt":"2021-07-20T12:00:00+09:00","items_archived":7}}}"#,
    );
    build(&site, &[]);
    let html = site.read("public/health/index.html");
    let down = html.find("落ちているサイト").unwrap();
    let ok = html.find("元気なサイト").unwrap();
    assert!(down < ok, "failing feeds first");
    assert!(html.contains("HTTP 503 &lt;Service Unavailable&gt;"));
    assert!(html.contains(">3<"), "failure count");
    assert!(html.contains(">42<"), "items archived");
    assert!(
        html.contains("2021-07-20 12:00:00"),
        "next attempt in the site zone"
    );
}

/// `[build] keyword_min_items = 2`: a keyword seen once has no page and is shown unlinked; when
/// a second item brings it, its page appears and the older pages that show it link to it.
#[test]
fn keywords_seen_once_can_stay_unlinked_until_they_recur() {
    let mut site = fixture_site("https://user.github.io/repo/");
    // One site's items (tests/it/flood.rs covers keyword_min_sites).
    site.config.append =
        "[build]\nkeyword_min_items = 2\nkeyword_min_sites = 1\nitems_per_page = 1\n".into();
    site.write_config(&[]);
    build(&site, &[]);
    // 日本銀行 is in two items, 長期金利 in one.
    assert!(site.exists("public/keywords/日本銀行/index.html"));
    assert!(!site.exists("public/keywords/長期金利/index.html"));
    let digest = site.read("public/2021/07/20/0800/index.html");
    assert!(digest.contains("<span>長期金利</span>"), "{digest}");
    assert!(digest.contains(">日本銀行</a>"));
    assert!(!site.read("public/keywords/index.html").contains("長期金利"));
    // One item per page: a two-item category has a numbered page.
    assert!(site.exists("public/categories/金融/page/1/index.html"));

    write_snapshot(
        &site,
        "2021-07-20T09:00:00+09:00",
        vec![item(
            &It {
                id: "e1",
                category: "金融",
                site: "マネー&マーケット",
                title: "長期金利が上昇",
                keywords: &["長期金利"],
            },
            "2021-07-20T08:50:00+09:00",
        )],
        "",
    );
    build(&site, &[]);
    assert!(site.exists("public/keywords/長期金利/index.html"));
    let digest = site.read("public/2021/07/20/0800/index.html");
    assert!(
        digest.contains(">長期金利</a>"),
        "the older digest now links it"
    );
    let check = site.matome(&["check"]);
    check.assert_success();
}

#[test]
fn build_settings_are_validated() {
    let mut site = fixture_site("https://user.github.io/repo/");
    site.config.append = "[build]\nitems_per_page = 0\n".into();
    site.write_config(&[]);
    let out = site.matome(&["build"]);
    out.assert_code(2);
    assert!(
        out.stderr
            .contains("build.items_per_page must be at least 1"),
        "{}",
        out.stderr
    );
}

/// Regression: a digest's previous/next links show the neighbour's heading, item count included;
/// a second run in the neighbour's hour (more items in its file) must reach the link.
#[test]
fn a_neighbours_new_item_count_reaches_the_link_to_it() {
    let site = fixture_site("https://user.github.io/repo/");
    build(&site, &[]);
    let before = site.read("public/2021/07/19/2300/index.html");
    assert!(before.contains("RSSフィード2021-07-20 08:00 分まとめ(3件)"));
    let path = site.path("content/2021/07/20/0800.md");
    let mut s = Snapshot::load(&path).unwrap();
    s.items.push(item(
        &It {
            id: "b4",
            category: "IT",
            site: "ITニュース総合",
            title: "追加の記事",
            keywords: &["追加"],
        },
        "2021-07-20T08:40:00+09:00",
    ));
    s.write(&path).unwrap();
    build(&site, &[]);
    let after = site.read("public/2021/07/19/2300/index.html");
    assert!(
        after.contains("RSSフィード2021-07-20 08:00 分まとめ(4件)"),
        "{after}"
    );
}

/// A numbered page of a category, site or keyword list is not rendered again when the list
/// grows (stable pagination): it said the list's whole count ("2件"), which went stale, so an
/// incremental build's page differed from a cold rebuild's. Only the first page counts now, and
/// after a new hour every file has a cold rebuild's bytes.
#[test]
fn a_numbered_list_page_keeps_a_cold_rebuilds_bytes_when_its_list_grows() {
    let mut site = fixture_site("https://user.github.io/repo/");
    site.config.append = "[build]\nitems_per_page = 1\n".into();
    site.write_config(&[]);
    build(&site, &[]);
    let numbered = "public/categories/金融/page/1/index.html";
    assert!(site.exists(numbered));
    write_snapshot(
        &site,
        "2021-07-20T09:00:00+09:00",
        vec![item(
            &It {
                id: "e1",
                category: "金融",
                site: "マネー&マーケット",
                title: "長期金利が上昇",
                keywords: &["長期金利"],
            },
            "2021-07-20T08:50:00+09:00",
        )],
        "",
    );
    build(&site, &[]);
    let first = site.read("public/categories/金融/index.html");
    assert!(
        first.contains(r#"<span class="count">3件</span>"#),
        "{first}"
    );
    assert!(!site.read(numbered).contains(r#"class="count""#));
    let incremental = files(&site.path("public"));
    std::fs::remove_dir_all(site.path(".matome")).unwrap();
    std::fs::remove_dir_all(site.path("public")).unwrap();
    build(&site, &[]);
    let cold = files(&site.path("public"));
    assert_eq!(
        incremental.keys().collect::<Vec<_>>(),
        cold.keys().collect::<Vec<_>>()
    );
    for (rel, (bytes, _)) in &incremental {
        assert!(bytes == &cold[rel].0, "{rel} differs from a cold rebuild");
    }
}
