//! Issue 13: a site that fits GitHub Pages. `matome build` says the output's size and warns
//! above `[build] size_warning_mb`; keywords under `[build] keyword_min_items` have no page and
//! no link to one; a keyword's list keeps its newest `[build] keyword_max_pages` pages and its
//! oldest kept page leads to the search; every link resolves and every page is reachable from
//! home, at every depth, before and after one more hour.

use std::path::Path;

use chrono::{DateTime, Duration, FixedOffset};
use matome::content::{Item, Snapshot, snapshot_rel_path};

use crate::support::web::{crawl, html_pages, serve_dir};
use crate::support::{Site, TestServer};

fn t(s: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(s).unwrap()
}

/// One snapshot at `hour` with `n` items, each carrying `keywords(i)` (i counts across the
/// site, from `first`).
fn write_hour(
    site: &Site,
    hour: &str,
    first: usize,
    n: usize,
    keywords: impl Fn(usize) -> Vec<&'static str>,
) {
    let h = t(hour);
    let items = (first..first + n)
        .map(|i| Item {
            id: format!("https://news.example.jp/{i}"),
            feed: format!("https://news.example.jp/feed{}.xml", i % 3),
            category: ["IT", "金融"][i % 2].into(),
            site: ["ITニュース総合", "マネー&マーケット", "The Circuit Ledger"][i % 3].into(),
            title: format!("記事{i}: 日本銀行と半導体の動きを追う長めの見出し"),
            link: format!("https://news.example.jp/articles/{i}?a=1&b=2"),
            published: h - Duration::minutes((i % 50) as i64),
            keywords: keywords(i).into_iter().map(String::from).collect(),
            summary: format!(
                "記事{i}の要約。日本銀行の政策と半導体の供給をめぐる動きが続いている。関係者は今後の見通しについて慎重な見方を示した。"
            ),
            text: String::new(),
            trend: None,
            story: String::new(),
        })
        .collect();
    let s = Snapshot {
        hour: h,
        updated: h + Duration::minutes(20),
        items,
        body: String::new(),
    };
    s.write(&site.path(snapshot_rel_path(&h))).unwrap();
}

fn site_with(base_url: &str, build: &str) -> Site {
    let mut site = Site::new();
    site.config.base_url = base_url.into();
    site.config.append = format!("[build]\n{build}");
    site.write_config(&[]);
    site
}

/// Every file under `dir`: (count, bytes).
fn measure(dir: &Path) -> (u64, u64) {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .fold((0, 0), |(n, b), e| (n + 1, b + e.metadata().unwrap().len()))
}

fn assert_whole(site: &Site) {
    let server = TestServer::new();
    serve_dir(&server, "/repo/", &site.path("public"));
    let crawl = crawl(&server, "/repo/");
    assert!(crawl.broken.is_empty(), "broken links: {:#?}", crawl.broken);
    let unreached: Vec<String> = html_pages(&site.path("public"), "/repo/")
        .difference(&crawl.reached)
        .cloned()
        .collect();
    assert!(
        unreached.is_empty(),
        "not reachable from home: {unreached:?}"
    );
    site.matome(&["check", "--all"]).assert_success();
}

#[test]
fn build_reports_the_sites_size_and_warns_above_size_warning_mb() {
    // About 2 MB: 600 items with summaries on their digest, category, site and keyword pages.
    let site = site_with("https://user.github.io/repo/", "size_warning_mb = 1000\n");
    for h in 0..20 {
        write_hour(
            &site,
            &format!("2021-07-20T{h:02}:00:00+09:00"),
            h * 30,
            30,
            |_| vec!["日本銀行", "半導体"],
        );
    }
    let out = site.matome(&["build"]);
    out.assert_success();
    let (files, bytes) = measure(&site.path("public"));
    assert!(bytes > 1_000_000, "the fixture must pass 1 MB: {bytes}");
    let tenths = (bytes + 50_000) / 100_000;
    let line = format!(
        "site size: {}.{} MB in {} files",
        tenths / 10,
        tenths % 10,
        if files >= 1000 {
            format!("{},{:03}", files / 1000, files % 1000)
        } else {
            files.to_string()
        }
    );
    assert!(out.stdout.contains(&line), "{line:?} in {}", out.stdout);
    assert!(!out.stderr.contains("GitHub Pages"), "{}", out.stderr);

    // Lowered under the site's size: the build still succeeds, and warns once, naming the
    // limit, the setting and what shrinks the site.
    site.write_config_raw(
        &std::fs::read_to_string(site.path("matome.toml"))
            .unwrap()
            .replace("size_warning_mb = 1000", "size_warning_mb = 1"),
    );
    let out = site.matome(&["build"]);
    out.assert_success();
    assert!(out.stdout.contains(&line), "{}", out.stdout);
    let warnings: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", out.stderr);
    for part in [
        "over the 1 MB of `[build] size_warning_mb`",
        "GitHub Pages publishes sites of at most 1 GB",
        "keyword_max_pages",
        "keyword_min_items",
        "matome deploy",
    ] {
        assert!(warnings[0].contains(part), "{part}: {}", warnings[0]);
    }

    // A bad value names the key.
    site.write_config_raw(
        &std::fs::read_to_string(site.path("matome.toml"))
            .unwrap()
            .replace("size_warning_mb = 1", "size_warning_mb = 0"),
    );
    let out = site.matome(&["build"]);
    out.assert_code(2);
    assert!(
        out.stderr
            .contains("build.size_warning_mb must be at least 1"),
        "{}",
        out.stderr
    );
}

/// The size line is added up from the build record (walking the output folder took longer
/// than the rest of an hourly build at three years): it must stay the folder's exact bytes and
/// files after builds that add pages, rewrite them, remove them (a keyword's oldest page giving
/// way, a digest whose file is deleted) and rewrite the static search, and after a page deleted
/// by hand.
#[test]
fn the_size_line_stays_exact_after_builds_that_remove_pages() {
    let site = site_with(
        "https://user.github.io/repo/",
        "items_per_page = 2\nkeyword_max_pages = 2\n",
    );
    let public = site.path("public");
    let build = || {
        let report = matome::render::build(site.root(), &Default::default()).unwrap();
        let (files, bytes) = measure(&public);
        assert_eq!(
            (report.size.files, report.size.bytes),
            (files, bytes),
            "reported (files, bytes) against the folder"
        );
        report
    };
    nine_items_on_one_keyword(&site);
    build();
    let kw = "public/keywords/日本銀行";
    assert!(site.exists(format!("{kw}/page/3/index.html")));

    // One more hour: page 4 appears and page 3 gives way (a removal).
    write_hour(&site, "2021-07-20T09:00:00+09:00", 9, 2, |_| {
        vec!["日本銀行"]
    });
    let report = build();
    assert!(report.removed > 0, "{report:?}");
    assert!(!site.exists(format!("{kw}/page/3/index.html")));

    // A digest's file deleted: its page goes, the lists shrink, the search month is rewritten.
    std::fs::remove_file(site.path("content/2021/07/20/0700.md")).unwrap();
    let report = build();
    assert!(report.removed > 0, "{report:?}");
    assert!(!site.exists("public/2021/07/20/0700/index.html"));

    // A page deleted by hand is written again, and counted again.
    std::fs::remove_file(site.path("public/2021/07/20/0800/index.html")).unwrap();
    let report = build();
    assert_eq!(report.rendered, 1, "{report:?}");

    // A build with nothing to do reports the same.
    let before = report.size;
    assert_eq!(build().size, before);
}

#[test]
fn a_keyword_under_keyword_min_items_has_no_page_and_nothing_links_to_one() {
    let site = site_with(
        "https://user.github.io/repo/",
        "keyword_min_items = 3\nitems_per_page = 2\n",
    );
    // 半導体 on every item (6), 希少語 on two: under the minimum of 3.
    write_hour(&site, "2021-07-19T23:00:00+09:00", 0, 3, |i| {
        if i == 1 {
            vec!["半導体", "希少語"]
        } else {
            vec!["半導体"]
        }
    });
    write_hour(&site, "2021-07-20T08:00:00+09:00", 3, 3, |i| {
        if i == 4 {
            vec!["半導体", "希少語"]
        } else {
            vec!["半導体"]
        }
    });
    site.matome(&["build"]).assert_success();
    assert!(site.exists("public/keywords/半導体/index.html"));
    assert!(site.exists("public/keywords/半導体/page/1/index.html"));
    assert!(!site.exists("public/keywords/希少語"));
    let digest = site.read("public/2021/07/20/0800/index.html");
    assert!(
        digest.contains("<span>希少語</span>"),
        "shown unlinked: {digest}"
    );
    assert!(digest.contains(">半導体</a>"));
    for page in html_pages(&site.path("public"), "/repo/") {
        let rel = format!("public/{}index.html", page.trim_start_matches("/repo/"));
        let html = site.read(&rel);
        assert!(
            !html.contains("keywords/希少語"),
            "{rel} links a keyword with no page"
        );
    }
    assert_whole(&site);

    // A third item brings it to the minimum: its page appears and the older digest links it.
    write_hour(&site, "2021-07-20T09:00:00+09:00", 6, 1, |_| vec!["希少語"]);
    site.matome(&["build"]).assert_success();
    assert!(site.exists("public/keywords/希少語/index.html"));
    assert!(
        site.read("public/2021/07/20/0800/index.html")
            .contains(">希少語</a>")
    );
    assert_whole(&site);
}

/// Three hours (06:00–08:00 on 2021-07-20) of three items each, every item with the keyword
/// 日本銀行.
fn nine_items_on_one_keyword(site: &Site) {
    for h in 0..3 {
        write_hour(
            site,
            &format!("2021-07-20T{:02}:00:00+09:00", h + 6),
            h * 3,
            3,
            |_| vec!["日本銀行"],
        );
    }
}

#[test]
fn a_keywords_oldest_pages_give_way_to_search_and_every_link_still_resolves() {
    let site = site_with(
        "https://user.github.io/repo/",
        "items_per_page = 2\nkeyword_max_pages = 2\n",
    );
    // 日本銀行 on all 9 items: pages 1–3 and the first page; two kept (the first and 3).
    nine_items_on_one_keyword(&site);
    site.matome(&["build"]).assert_success();
    let kw = "public/keywords/日本銀行";
    assert!(site.exists(format!("{kw}/index.html")));
    assert!(site.exists(format!("{kw}/page/3/index.html")));
    assert!(!site.exists(format!("{kw}/page/2/index.html")));
    assert!(!site.exists(format!("{kw}/page/1/index.html")));
    // Categories keep every page.
    assert!(site.exists("public/categories/IT/page/1/index.html"));
    let oldest = site.read(format!("{kw}/page/3/index.html"));
    assert!(
        oldest.contains("href=\"/repo/search/?q=%E6%97%A5%E6%9C%AC%E9%8A%80%E8%A1%8C\""),
        "the oldest kept page leads to the search: {oldest}"
    );
    assert!(!oldest.contains("page/2/"), "{oldest}");
    assert!(!site.read(format!("{kw}/index.html")).contains("search/?q="));
    // Rows link their row in the digest, under their day.
    assert!(oldest.contains("<h2 class=\"day\"><a href=\"/repo/2021/07/20/\">2021-07-20</a></h2>"));
    assert!(
        oldest.contains("href=\"/repo/2021/07/20/0700/#item-"),
        "{oldest}"
    );
    assert_whole(&site);

    // One more hour: page 4 appears, page 3 gives way, nothing links to it any more.
    write_hour(&site, "2021-07-20T09:00:00+09:00", 9, 2, |_| {
        vec!["日本銀行"]
    });
    site.matome(&["build"]).assert_success();
    assert!(site.exists(format!("{kw}/page/4/index.html")));
    assert!(!site.exists(format!("{kw}/page/3/index.html")));
    assert!(
        site.read(format!("{kw}/page/4/index.html"))
            .contains("search/?q=")
    );
    assert_whole(&site);
    // The first page still counts (and charts) every item.
    assert!(site.read(format!("{kw}/index.html")).contains("11件"));
}

/// Regression: digest rows were numbered by their place among the news rows (`loop.index`),
/// while the search index, the Atom ids and now every list row link `#item-N` by the item's
/// place in its snapshot file; with a trend word first in the file they pointed one row off.
#[test]
fn list_rows_and_search_link_the_items_own_row_when_a_digest_also_holds_trend_words() {
    let site = site_with("https://user.github.io/repo/", "");
    let h = t("2021-07-20T08:00:00+09:00");
    let mut news = Item {
        id: "https://news.example.jp/n1".into(),
        feed: "https://news.example.jp/feed.xml".into(),
        category: "IT".into(),
        site: "ITニュース総合".into(),
        title: "量子計算の新方式".into(),
        link: "https://news.example.jp/articles/n1".into(),
        published: h,
        keywords: vec!["量子計算".into()],
        summary: "量子計算の要約。".into(),
        text: String::new(),
        trend: None,
        story: String::new(),
    };
    let trend = Item {
        id: "https://trends.example.com/2021-07-20/大谷翔平".into(),
        feed: "https://trends.example.com/rss".into(),
        category: "トレンド".into(),
        site: "Google トレンド".into(),
        title: "大谷翔平".into(),
        link: "https://trends.example.com/".into(),
        trend: Some(matome::content::Trend {
            volume: Some(200_000),
            ..Default::default()
        }),
        keywords: Vec::new(),
        ..news.clone()
    };
    news.published = h - Duration::minutes(5);
    Snapshot {
        hour: h,
        updated: h + Duration::minutes(20),
        items: vec![trend, news],
        body: String::new(),
    }
    .write(&site.path(snapshot_rel_path(&h)))
    .unwrap();
    site.matome(&["build"]).assert_success();
    let digest = site.read("public/2021/07/20/0800/index.html");
    let row = &digest[digest
        .find("<tr id=\"item-2\">")
        .expect("the news item is row 2")..];
    assert!(
        row[..row.find("</tr>").unwrap()].contains("量子計算の新方式"),
        "{digest}"
    );
    assert!(
        !digest.contains("<tr id=\"item-1\">"),
        "row 1 is the trend word, in its own table"
    );
    // The list row links the item's row in its digest (whose title links the article).
    assert!(
        site.read("public/categories/IT/index.html")
            .contains("href=\"/repo/2021/07/20/0800/#item-2\">量子計算の新方式</a>")
    );
    let out = site.matome(&["search", "量子計算", "--json"]);
    out.assert_success();
    assert!(
        out.stdout.contains("/2021/07/20/0800/#item-2\""),
        "{}",
        out.stdout
    );
    site.matome(&["check", "--all"]).assert_success();
}
