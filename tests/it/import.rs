//! `matome feeds import`: OPML and CSV feed lists into matome.toml.

use matome::config::Config;

use crate::support::{FeedSpec, Site};

/// The curators' real feed list (218 rows), kept in the repository so a fresh clone tests it.
fn shared_csv() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rssfeed-example.csv")
}

fn config(site: &Site) -> Config {
    Config::parse(&site.read("matome.toml"), "matome.toml").unwrap()
}

#[test]
fn the_real_218_feed_csv_imports_cleanly_and_only_once() {
    let site = Site::new();
    site.write_config(&[FeedSpec::new(
        "https://rss.itmedia.co.jp/rss/2.0/itmedia_all.xml",
        "IT",
    )]);
    let before = site.read("matome.toml");
    let csv = shared_csv();
    let out = site.matome(&["feeds", "import", csv.to_str().unwrap()]);
    out.assert_success();
    let c = config(&site);
    let listed_before = 1;
    // The site already had one feed; the CSV may list it too.
    let mut reader = csv::Reader::from_path(&csv).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 218);
    let overlap = rows
        .iter()
        .filter(|r| &r[1] == "https://rss.itmedia.co.jp/rss/2.0/itmedia_all.xml")
        .count();
    assert_eq!(c.feeds.len(), listed_before + 218 - overlap);
    assert!(
        out.stdout
            .contains(&format!("218 feeds read: {} added", 218 - overlap)),
        "{out:?}"
    );
    // The existing text is kept as written; feeds are appended.
    assert!(site.read("matome.toml").starts_with(&before));
    let categories: std::collections::BTreeSet<&str> =
        c.feeds.iter().map(|f| f.category.as_str()).collect();
    assert_eq!(categories.len(), 18, "{categories:?}");
    // The quoted name with commas survives.
    assert!(
        c.feeds
            .iter()
            .any(|f| f.site.as_deref() == Some("AWS Government, Education, and Nonprofits Blog"))
    );
    // The BOM did not leak into a name.
    assert!(
        c.feeds
            .iter()
            .all(|f| !f.site.as_deref().unwrap_or("").contains('\u{feff}'))
    );

    // A second import adds nothing.
    let text = site.read("matome.toml");
    let out = site.matome(&["feeds", "import", csv.to_str().unwrap()]);
    out.assert_success();
    assert!(
        out.stdout.contains("0 added, 218 already configured"),
        "{out:?}"
    );
    assert_eq!(site.read("matome.toml"), text);
}

#[test]
fn opml_with_nested_outlines() {
    let site = Site::new();
    site.write_config(&[FeedSpec::new("https://example.com/existing.xml", "IT")]);
    site.write(
        "feeds.opml",
        r#"<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
  <head><title>購読リスト</title></head>
  <body>
    <outline text="金融" title="金融">
      <outline type="rss" text="日本銀行 新着情報" xmlUrl="https://www.boj.or.jp/rss/whatsnew.xml" htmlUrl="https://www.boj.or.jp/"/>
      <outline type="rss" text="既存" xmlUrl="https://example.com/existing.xml"/>
    </outline>
    <outline text="海外TECH">
      <outline text="News">
        <outline type="rss" text="Ars Technica" xmlUrl="https://feeds.arstechnica.com/arstechnica/index"/>
      </outline>
    </outline>
    <outline type="rss" text="Loose feed" xmlUrl="https://example.org/feed"/>
  </body>
</opml>"#,
    );
    let out = site.matome(&["feeds", "import", site.path("feeds.opml").to_str().unwrap()]);
    out.assert_success();
    assert!(
        out.stdout
            .contains("4 feeds read: 3 added, 1 already configured"),
        "{out:?}"
    );
    let c = config(&site);
    let find = |u: &str| c.feeds.iter().find(|f| f.url == u).unwrap();
    assert_eq!(
        find("https://www.boj.or.jp/rss/whatsnew.xml").category,
        "金融"
    );
    assert_eq!(
        find("https://www.boj.or.jp/rss/whatsnew.xml")
            .site
            .as_deref(),
        Some("日本銀行 新着情報")
    );
    // The nearest folder names the category.
    assert_eq!(
        find("https://feeds.arstechnica.com/arstechnica/index").category,
        "News"
    );
    assert_eq!(find("https://example.org/feed").category, "未分類");
}

#[test]
fn a_bad_list_changes_nothing_and_names_the_line() {
    let site = Site::new();
    site.write_config(&[FeedSpec::new("https://example.com/existing.xml", "IT")]);
    let before = site.read("matome.toml");
    site.write(
        "bad.csv",
        "sitename,FeedURL,Category\nGood,https://example.com/good.xml,IT\nBad,javascript:alert(1),IT\n",
    );
    let out = site.matome(&["feeds", "import", site.path("bad.csv").to_str().unwrap()]);
    out.assert_failure();
    assert!(out.stderr.contains("bad.csv:3:"), "{out:?}");
    assert_eq!(site.read("matome.toml"), before);

    site.write("wrong.csv", "name,url\nx,https://example.com/x\n");
    let out = site.matome(&["feeds", "import", site.path("wrong.csv").to_str().unwrap()]);
    out.assert_failure();
    assert!(out.stderr.contains("sitename,FeedURL,Category"), "{out:?}");
}
