//! What search engines and link previews read (issue 22, items 5 and 6): every page's description
//! and OpenGraph tags with absolute URLs, the sitemaps' `lastmod` and percent-encoded URLs, and
//! link texts that say what a generic-named keyword is, and a keyword chart that starts with the
//! archive.

use std::collections::BTreeMap;

use chrono::{DateTime, FixedOffset, Utc};
use matome::content::{Item, Snapshot, load_all, snapshot_rel_path};

use crate::support::web::{percent_decode, tags};
use crate::support::{Site, demo_site};

const BASE: &str = "https://user.github.io/repo/";

/// Every `…index.html` and `404.html` of `public/`, by path under it.
fn html_files(site: &Site) -> BTreeMap<String, String> {
    let public = site.path("public");
    walkdir::WalkDir::new(&public)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "html"))
        .map(|e| {
            let rel = e.path().strip_prefix(&public).unwrap();
            let rel = rel.to_string_lossy().replace('\\', "/");
            (rel, std::fs::read_to_string(e.path()).unwrap())
        })
        .collect()
}

/// The `content` of `<meta name|property="key">`, exactly once in the page.
fn meta(html: &str, key: &str) -> String {
    let found: Vec<String> = tags(&html[..html.find("</head>").unwrap()])
        .into_iter()
        .filter(|t| t.name == "meta")
        .filter(|t| t.attr("name") == Some(key) || t.attr("property") == Some(key))
        .map(|t| t.attr("content").unwrap_or_default().to_string())
        .collect();
    assert_eq!(found.len(), 1, "one {key}: {found:?}");
    found.into_iter().next().unwrap()
}

/// An absolute URL under BASE, in ASCII, that names the page at `rel` (percent-decoded).
fn assert_page_url(url: &str, rel: &str, what: &str) {
    assert!(url.is_ascii(), "{what}: not percent-encoded: {url}");
    let path = url
        .strip_prefix(BASE)
        .unwrap_or_else(|| panic!("{what}: not absolute under {BASE}: {url}"));
    let want = rel.strip_suffix("index.html").unwrap_or(rel);
    assert_eq!(percent_decode(path), want, "{what}");
}

#[test]
fn every_page_has_a_description_and_opengraph_tags_with_absolute_urls() {
    let site = demo_site(BASE);
    site.matome(&["build"]).assert_success();
    let pages = html_files(&site);
    assert!(pages.len() > 30, "{}", pages.len());
    let mut descriptions = BTreeMap::new();
    for (rel, html) in &pages {
        let d = meta(html, "description");
        assert!(!d.trim().is_empty(), "{rel}: an empty description");
        assert!(d.chars().count() <= 140, "{rel}: {d}");
        // Written once: one element is both the description search engines show and the one
        // link previews read (`property` is RDFa's, beside HTML's `name`); two copies cost a
        // year of pages ~10 MB of GitHub Pages' 1 GB.
        assert_eq!(meta(html, "og:description"), d, "{rel}");
        let with_it: Vec<_> = tags(&html[..html.find("</head>").unwrap()])
            .into_iter()
            .filter(|t| {
                t.name == "meta"
                    && (t.attr("name") == Some("description")
                        || t.attr("property") == Some("og:description"))
            })
            .collect();
        assert_eq!(with_it.len(), 1, "{rel}: the description written once");
        assert_eq!(
            (with_it[0].attr("name"), with_it[0].attr("property")),
            (Some("description"), Some("og:description")),
            "{rel}"
        );
        assert!(!meta(html, "og:title").is_empty(), "{rel}");
        assert_eq!(meta(html, "og:site_name"), "テストサイト", "{rel}");
        assert_eq!(meta(html, "og:locale"), "ja_JP", "{rel}");
        assert_eq!(meta(html, "og:type"), "website", "{rel}");
        assert_eq!(meta(html, "twitter:card"), "summary", "{rel}");
        let og_url = meta(html, "og:url");
        assert_page_url(&og_url, rel, &format!("{rel}: og:url"));
        let links = tags(html);
        let link = |rel_: &str| {
            links
                .iter()
                .find(|t| t.name == "link" && t.attr("rel") == Some(rel_))
                .and_then(|t| t.attr("href"))
                .map(str::to_string)
        };
        assert_eq!(
            link("sitemap").as_deref(),
            Some("/repo/sitemap.xml"),
            "{rel}"
        );
        if rel != "404.html" {
            assert_eq!(link("canonical"), Some(og_url), "{rel}");
        }
        descriptions.insert(rel.clone(), d);
    }
    // Pages that show items say what they hold: their own description, not the site's.
    let site_wide = &descriptions["index.html"];
    for rel in [
        "2021/07/20/0800/index.html",
        "2021/07/20/index.html",
        "keywords/index.html",
    ] {
        assert_ne!(&descriptions[rel], site_wide, "{rel}");
    }
    assert!(descriptions["2021/07/20/0800/index.html"].starts_with("RSSフィード2021-07-20 08:00"));
    // The day page's description counts the day's items (those of its two digests).
    let day_items: usize = load_all(site.root())
        .unwrap()
        .iter()
        .filter(|(_, s)| s.hour.format("%F").to_string() == "2021-07-20")
        .map(|(_, s)| s.items.len())
        .sum();
    assert!(day_items > 0);
    let day = &descriptions["2021/07/20/index.html"];
    assert!(
        day.starts_with(&format!("2021年7月20日 {day_items}件")),
        "{day}"
    );
}

#[test]
fn sitemaps_have_lastmod_and_percent_encoded_urls_of_every_page() {
    let site = demo_site(BASE);
    site.matome(&["build"]).assert_success();
    let pages = html_files(&site);
    let sitemap = site.read("public/sitemap-1.xml");
    let mut locs: BTreeMap<String, Option<String>> = BTreeMap::new();
    for url in sitemap.split("<url>").skip(1) {
        let loc = between(url, "<loc>", "</loc>").expect("a loc");
        let rel = format!(
            "{}index.html",
            percent_decode(loc.strip_prefix(BASE).unwrap())
        );
        assert_page_url(loc, &rel, "sitemap loc");
        let lastmod = between(url, "<lastmod>", "</lastmod>").map(str::to_string);
        if let Some(m) = &lastmod {
            DateTime::parse_from_rfc3339(m).unwrap_or_else(|e| panic!("{rel}: {m}: {e}"));
        }
        locs.insert(rel, lastmod);
    }
    // Every HTML page but 404, and nothing else.
    let want: Vec<&String> = pages.keys().filter(|r| *r != "404.html").collect();
    assert_eq!(locs.keys().collect::<Vec<_>>(), want);
    assert!(
        locs.keys().any(|r| !r.is_ascii()),
        "the demo has non-ASCII URLs"
    );
    // A digest's lastmod is its file's last update; its day's the latest of its digests'.
    let updated: BTreeMap<String, DateTime<FixedOffset>> = load_all(site.root())
        .unwrap()
        .into_iter()
        .map(|(_, s)| {
            (
                s.hour.format("%Y/%m/%d/%H%M/index.html").to_string(),
                s.updated,
            )
        })
        .collect();
    for (rel, at) in &updated {
        let got = locs[rel].as_deref().expect("a digest has a lastmod");
        assert_eq!(DateTime::parse_from_rfc3339(got).unwrap(), *at, "{rel}");
    }
    let day = locs["2021/07/20/index.html"].clone().unwrap();
    let latest_that_day = updated
        .iter()
        .filter(|(r, _)| r.starts_with("2021/07/20/"))
        .map(|(_, t)| *t)
        .max()
        .unwrap();
    assert_eq!(DateTime::parse_from_rfc3339(&day).unwrap(), latest_that_day);
    for rel in [
        "index.html",
        "keywords/index.html",
        "categories/IT/index.html",
    ] {
        assert!(locs[rel].is_some(), "{rel} has a lastmod");
    }
    assert_eq!(locs["search/index.html"], None);
    // The index names its part with the latest lastmod; robots.txt names the index.
    let index = site.read("public/sitemap.xml");
    let newest = updated.values().max().unwrap().with_timezone(&Utc);
    assert!(
        index.contains(&format!(
            "<sitemap><loc>{BASE}sitemap-1.xml</loc><lastmod>{}</lastmod></sitemap>",
            newest.format("%Y-%m-%dT%H:%M:%SZ")
        )),
        "{index}"
    );
    assert!(
        site.read("public/robots.txt")
            .contains(&format!("Sitemap: {BASE}sitemap.xml"))
    );
}

fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = s.find(open)? + open.len();
    let end = s[start..].find(close)? + start;
    Some(&s[start..end])
}

/// A keyword named "Go" made Lighthouse's link-text audit fail ("Go" is a generic link text):
/// its links carry what it is in their text, on every page that links it.
#[test]
fn a_keyword_named_like_a_generic_link_says_what_it_is_in_every_link() {
    let mut site = Site::new();
    site.config.base_url = BASE.into();
    site.config.append = "[build]\nkeyword_min_items = 1\nkeyword_min_sites = 1\n".into();
    site.write_config(&[]);
    let h = DateTime::parse_from_rfc3339("2021-07-20T08:00:00+09:00").unwrap();
    let item = |n: u32, keywords: &[&str]| Item {
        id: format!("https://news.example.jp/go/{n}"),
        feed: "https://news.example.jp/feed.xml".into(),
        category: "Program".into(),
        site: "Gopher News".into(),
        title: format!("Go 1.{n} released"),
        link: format!("https://news.example.jp/go/{n}"),
        published: h - chrono::Duration::minutes(i64::from(n)),
        keywords: keywords.iter().map(|k| k.to_string()).collect(),
        summary: "The Go team released a new version.".into(),
        text: String::new(),
        trend: None,
        story: String::new(),
    };
    Snapshot {
        hour: h,
        updated: h + chrono::Duration::minutes(20),
        items: vec![item(1, &["Go", "release"]), item(2, &["Go", "release"])],
        body: String::new(),
    }
    .write(&site.path(snapshot_rel_path(&h)))
    .unwrap();
    site.matome(&["build"]).assert_success();
    let chip =
        "<a href=\"/repo/keywords/go/\"><span class=\"visually-hidden\">頻出ワード: </span>Go</a>";
    for rel in [
        "public/2021/07/20/0800/index.html",
        "public/index.html",
        "public/keywords/index.html",
        "public/keywords/release/index.html",
    ] {
        let html = site.read(rel);
        assert!(html.contains(chip), "{rel}: {html}");
        assert!(!html.contains("\">Go</a>"), "{rel}: a bare Go link");
    }
    // Other keywords are left as they were.
    assert!(
        site.read("public/2021/07/20/0800/index.html")
            .contains("<a href=\"/repo/keywords/release/\">release</a>")
    );
    // In the day's word cloud the link's text content carries it too.
    let day = site.read("public/2021/07/20/index.html");
    assert!(
        day.contains("<a href=\"/repo/keywords/go/\"><title>頻出ワード: Go</title><text"),
        "{day}"
    );
}

/// Issue 22, item 6: a keyword's chart padded short histories with months before the archive
/// began; it starts at the archive's first month, never before.
#[test]
fn a_keywords_chart_starts_at_the_archives_first_month() {
    let mut site = Site::new();
    site.config.base_url = BASE.into();
    site.config.append = "[build]\nkeyword_min_items = 1\nkeyword_min_sites = 1\n".into();
    site.write_config(&[]);
    for (hour, keyword) in [
        ("2021-05-10T08:00:00+09:00", "量子計算"),
        ("2021-07-20T08:00:00+09:00", "半導体"),
    ] {
        let h = DateTime::parse_from_rfc3339(hour).unwrap();
        Snapshot {
            hour: h,
            updated: h + chrono::Duration::minutes(20),
            items: vec![Item {
                id: format!("https://news.example.jp/{keyword}"),
                feed: "https://news.example.jp/feed.xml".into(),
                category: "IT".into(),
                site: "ITニュース総合".into(),
                title: format!("{keyword}の記事"),
                link: format!("https://news.example.jp/{keyword}"),
                published: h,
                keywords: vec![keyword.into()],
                summary: String::new(),
                text: String::new(),
                trend: None,
                story: String::new(),
            }],
            body: String::new(),
        }
        .write(&site.path(snapshot_rel_path(&h)))
        .unwrap();
    }
    site.matome(&["build"]).assert_success();
    let chart = |kw: &str| {
        let html = site.read(format!("public/keywords/{kw}/index.html"));
        let start = html.find("<svg class=\"chart\"").expect("a chart");
        html[start..start + html[start..].find("</svg>").unwrap()].to_string()
    };
    let late = chart("半導体");
    assert!(
        late.contains("aria-label=\"月ごとの件数: 2021年5月 – 2021年7月, 1\""),
        "{late}"
    );
    assert_eq!(late.matches("<rect").count(), 3, "{late}");
    let early = chart("量子計算");
    assert!(early.contains("2021年5月: 1"), "{early}");
    assert!(
        !early.contains("2021年4月"),
        "no month before the archive: {early}"
    );
}
