//! What stories cost on pages (issue 24, item 3: a year of archive within GitHub Pages' budget):
//! a top story lists its first [`TOP_SOURCES`] sources and links its place for the rest, where
//! its first row lists every other site, so no source is out of reach.

use chrono::{DateTime, FixedOffset};
use matome::content::{Item, ItemKey, Snapshot, snapshot_rel_path};
use matome::render::views::stories::TOP_SOURCES;

use crate::support::Site;

fn t(s: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(s).unwrap()
}

/// Item `k` of a story of `n` sites, each its own site and feed (the first names the story).
fn member(k: usize) -> Item {
    let feed = format!("https://site{k}.example/feed");
    Item {
        id: "quake".into(),
        story: if k == 0 {
            String::new()
        } else {
            ItemKey::new("https://site0.example/feed", "quake").hex()
        },
        feed,
        category: "ニュース".into(),
        site: format!("サイト{k}"),
        title: format!("地震の速報 その{k}"),
        link: format!("https://site{k}.example/quake"),
        published: t("2021-07-20T08:10:00+09:00") + chrono::Duration::minutes(5 * k as i64),
        keywords: Vec::new(),
        summary: String::new(),
        text: String::new(),
        trend: None,
    }
}

#[test]
fn a_top_story_lists_its_first_sources_and_links_its_place_for_the_rest() {
    let sites = TOP_SOURCES + 2;
    let site = Site::new();
    site.write_config(&[]);
    let h = t("2021-07-20T09:00:00+09:00");
    Snapshot {
        hour: h,
        updated: h,
        items: (0..sites).map(member).collect(),
        body: String::new(),
    }
    .write(&site.path(snapshot_rel_path(&h)))
    .unwrap();
    site.matome(&["build"]).assert_success();
    let day = site.read("public/2021/07/20/index.html");
    let start = day.find("<section class=\"stories\"").expect("top stories");
    let top = &day[start..start + day[start..].find("</section>").unwrap()];
    let listed: Vec<usize> = (0..sites)
        .filter(|k| top.contains(&format!("https://site{k}.example/quake")))
        .collect();
    assert_eq!(listed, (0..TOP_SOURCES).collect::<Vec<_>>(), "{top}");
    assert!(
        top.contains(&format!("{sites}サイト")),
        "the count is every site: {top}"
    );
    // The rest: a link to the story's place, whose row lists every other site.
    assert!(
        top.contains("<li><a href=\"/test/2021/07/20/0900/#item-1\">すべての報道元</a></li>"),
        "{top}"
    );
    let digest = site.read("public/2021/07/20/0900/index.html");
    let row = &digest[digest.find("<tr id=\"item-1\">").unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    for k in 1..sites {
        assert!(
            row.contains(&format!("<a href=\"https://site{k}.example/quake\">")),
            "site {k} on the story's place: {row}"
        );
    }
}
