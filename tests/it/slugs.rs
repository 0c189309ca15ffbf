//! Names in URLs (issue 11, finding 4): two names never share a page, whatever they are.

use chrono::DateTime;
use matome::content::{Item, Snapshot, snapshot_rel_path};

use crate::support::Site;

fn item(n: usize, category: &str, site: &str, keywords: &[&str]) -> Item {
    Item {
        id: format!("https://news.example.jp/{n}"),
        feed: format!("https://news.example.jp/{n}.xml"),
        category: category.into(),
        site: site.into(),
        title: format!("記事{n} {site} {category}"),
        link: format!("https://news.example.jp/articles/{n}"),
        published: DateTime::parse_from_rfc3339("2021-07-20T07:00:00+09:00").unwrap(),
        keywords: keywords.iter().map(|s| s.to_string()).collect(),
        summary: format!("記事{n}の要約です。"),
        text: String::new(),
        trend: None,
        story: String::new(),
    }
}

/// The page of every file under `dir` (one level): folder name → its index.html.
fn pages_under(site: &Site, dir: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(site.path(dir)).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            let index = e.path().join("index.html");
            out.push((
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(index).unwrap(),
            ));
        }
    }
    out.sort();
    out
}

/// Feed titles `Foo!` and `Foo-95f502` both became `sites/Foo-95f502/`, categories `c++` and
/// `c-ae8bb0` both `categories/c-ae8bb0/`: one page silently won and `matome check` said nothing.
#[test]
fn names_shaped_like_hashed_slugs_get_pages_of_their_own() {
    let site = Site::new();
    site.write_config(&[]);
    let hour = DateTime::parse_from_rfc3339("2021-07-20T08:00:00+09:00").unwrap();
    Snapshot {
        hour,
        updated: hour,
        items: vec![
            item(1, "c++", "Foo!", &[]),
            item(2, "c-ae8bb0", "Foo-95f502", &[]),
        ],
        body: String::new(),
    }
    .write(&site.path(snapshot_rel_path(&hour)))
    .unwrap();
    site.matome(&["build"]).assert_success();
    for (dir, a, b) in [
        ("public/sites", "Foo!", "Foo-95f502"),
        ("public/categories", "c++", "c-ae8bb0"),
    ] {
        let pages = pages_under(&site, dir);
        assert_eq!(
            pages.len(),
            2,
            "{dir}: {:?}",
            pages.iter().map(|p| &p.0).collect::<Vec<_>>()
        );
        // Each name's page lists its own item only.
        let with = |needle: &str| {
            pages
                .iter()
                .filter(|(_, html)| html.contains(needle))
                .map(|(name, _)| name.clone())
                .collect::<Vec<_>>()
        };
        let (one, two) = (with("記事1 "), with("記事2 "));
        assert_eq!(one.len(), 1, "{dir} {a}: {one:?}");
        assert_eq!(two.len(), 1, "{dir} {b}: {two:?}");
        assert_ne!(one, two, "{dir}: {a} and {b} share a page");
    }
    let check = site.matome(&["check"]);
    check.assert_success();
}
