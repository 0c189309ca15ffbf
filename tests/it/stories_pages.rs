//! Stories on the built site (issue 24): real builds into temp dirs of snapshots that record
//! `story = "ID"` (what content/ holds once fetch assigns stories). Three sites' items in one
//! story over two hours show on the digest rows (each reaching the others), on the day page's
//! and the home page's top stories and in `stories/atom.xml` (read by feedparser); a lone item
//! shows nothing extra; feed text stays escaped; a later hour that joins an old story renders
//! the old digest and its day again and nothing unrelated; a cold rebuild gives the same bytes.
//! The README's account of stories states the settings and numbers these pages follow.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::SystemTime;

use chrono::{DateTime, FixedOffset};
use matome::content::Item;

use crate::support::Site;
use crate::support::snapshots::{self, Source, write_digest as write};

fn t(s: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(s).unwrap()
}

const ITMEDIA: Source = Source::new("ITmedia", "itmedia");
const IMPRESS: Source = Source::new("Impress Watch", "impress-watch");
const CNET: Source = Source::new("CNET Japan", "cnet-japan");
const LOCAL: Source = Source::new("地方ニュース", "chiho-news");

/// An item of `source` whose link has a query (its `&` escaped on every page); `story` is the
/// item whose story it joins (`None`: its own).
fn item(id: &str, source: Source, title: &str, story: Option<(Source, &str)>) -> Item {
    let mut item = snapshots::item(id, source, title, story);
    item.link.push_str("?x=1&y=2");
    item
}

fn build(site: &Site) -> String {
    let out = site.matome(&["build"]);
    out.assert_success();
    out.stdout
}

const APPLE: &str = "Apple、新型iPhoneを発表";
const APPLE_2: &str = "アップルが新iPhone発表、価格は据え置き";
const APPLE_3: &str = "Apple unveils the new iPhone";
const LONE: &str = "地方銀行の決算、増益に";

/// Hour 08:00: ITmedia's item (the story's first) and a lone item; hour 09:00: Impress Watch and
/// CNET Japan join the story.
fn three_site_story() -> Site {
    let mut site = Site::new();
    site.config.base_url = "https://example.com/".into();
    site.write_config(&[]);
    write(
        &site,
        "2021-07-20T08:00:00+09:00",
        vec![
            item("a1", ITMEDIA, APPLE, None),
            item("l1", LOCAL, LONE, None),
        ],
    );
    write(
        &site,
        "2021-07-20T09:00:00+09:00",
        vec![
            item("b1", IMPRESS, APPLE_2, Some((ITMEDIA, "a1"))),
            item("c1", CNET, APPLE_3, Some((ITMEDIA, "a1"))),
        ],
    );
    site
}

/// The `<tr>` of row `n` (from 1) of a digest page.
fn row(html: &str, n: usize) -> &str {
    let start = html
        .find(&format!("<tr id=\"item-{n}\">"))
        .unwrap_or_else(|| panic!("no row {n}"));
    let end = start + html[start..].find("</tr>").unwrap();
    &html[start..end]
}

/// The top-stories section of a page, if any.
fn stories_section(html: &str) -> Option<&str> {
    let start = html.find("<section class=\"stories\"")?;
    let end = start + html[start..].find("</section>").unwrap();
    Some(&html[start..end])
}

#[test]
fn three_sites_in_one_story_show_on_rows_day_home_and_feed() {
    let site = three_site_story();
    build(&site);
    let first = site.read("public/2021/07/20/0800/index.html");
    let second = site.read("public/2021/07/20/0900/index.html");
    // The story's first row reaches the two others: sites, titles, links.
    let a = row(&first, 1);
    assert!(
        a.contains("<details open><summary>ほか2サイト</summary>"),
        "{a}"
    );
    for want in [
        "Impress Watch: <a href=\"https://impress-watch.example/a/b1?x=1&amp;y=2\"",
        APPLE_2,
        "CNET Japan: <a href=\"https://cnet-japan.example/a/c1?x=1&amp;y=2\"",
        APPLE_3,
    ] {
        assert!(a.contains(want), "{want} in {a}");
    }
    // A lone item shows nothing extra.
    let lone = row(&first, 2);
    assert!(lone.contains(LONE));
    assert!(!lone.contains("<details"), "{lone}");
    // Each later row links to the story's place: its first row, which lists them all.
    for n in [1, 2] {
        let r = row(&second, n);
        assert!(
            r.contains("<a class=\"story\" href=\"/2021/07/20/0800/#item-1\">ほか2サイト</a>"),
            "{r}"
        );
    }
    // The day page leads with the story: its headline (the first item's), 3 sites, each source.
    let day = site.read("public/2021/07/20/index.html");
    let top = stories_section(&day).expect("the day's top stories");
    assert!(top.contains("この日の主な話題"), "{top}");
    assert!(
        top.contains(&format!(
            "#item-1\">{APPLE}</a> <span class=\"count\">3サイト</span>"
        )),
        "{top}"
    );
    for s in ["ITmedia: ", "Impress Watch: ", "CNET Japan: "] {
        assert!(top.contains(s), "{s} in {top}");
    }
    assert!(!top.contains(LONE), "a lone item is no top story: {top}");
    // So does the home page.
    let home = site.read("public/index.html");
    let top = stories_section(&home).expect("the home page's top stories");
    assert!(
        top.contains("いま話題のニュース") && top.contains("3サイト"),
        "{top}"
    );
    // Both link the story feed; the home page's top stories also show a reader the link.
    for page in [&day, &home] {
        assert!(
            page.contains("— 多くのサイトが報じた話題\" href=\"/stories/atom.xml\">"),
            "the story feed is linked"
        );
    }
    assert!(
        top.contains("<a href=\"/stories/atom.xml\">Atom フィード: 多くのサイトが報じた話題</a>"),
        "a visible link to the story feed: {top}"
    );
    let day_top = stories_section(&day).unwrap();
    assert!(!day_top.contains("stories/atom.xml"), "{day_top}");
    // The feed: one entry, entered when its third site (feed_min_sites = 3) reported it.
    let path = site.path("public/stories/atom.xml");
    let parsed = crate::feeds::parse_with_feedparser(std::slice::from_ref(&path));
    let f = &parsed[0];
    assert_eq!(f["bozo"], false, "{}", f["exception"]);
    let entries = f["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let e = &entries[0];
    let key = ITMEDIA.story("a1");
    assert_eq!(
        e["id"].as_str().unwrap(),
        format!("tag:example.com,2021-07-19:story/{key}")
    );
    assert_eq!(e["title"].as_str().unwrap(), APPLE);
    assert_eq!(
        e["published"].as_i64().unwrap(),
        t("2021-07-20T09:00:00+09:00").timestamp(),
        "entered at the hour its third site reported it"
    );
    let content = e["content"].as_str().unwrap();
    for l in [
        "itmedia.example/a/a1",
        "impress-watch.example/a/b1",
        "cnet-japan.example/a/c1",
    ] {
        assert!(content.contains(l), "{l} in {content}");
    }
    assert!(
        e["link"]
            .as_str()
            .unwrap()
            .ends_with("/2021/07/20/0800/#item-1")
    );
    roxmltree::Document::parse(&site.read("public/stories/atom.xml")).unwrap();
}

#[test]
fn a_story_of_one_site_and_lone_items_show_nothing_extra() {
    let site = Site::new();
    site.write_config(&[]);
    write(
        &site,
        "2021-07-20T08:00:00+09:00",
        vec![item("a1", ITMEDIA, APPLE, None)],
    );
    // The same site again, in the story: no other source.
    write(
        &site,
        "2021-07-20T09:00:00+09:00",
        vec![item("a2", ITMEDIA, APPLE_2, Some((ITMEDIA, "a1")))],
    );
    build(&site);
    for page in [
        "2021/07/20/0800/index.html",
        "2021/07/20/0900/index.html",
        "2021/07/20/index.html",
        "index.html",
    ] {
        let html = site.read(Path::new("public").join(page));
        assert!(
            !html.contains("<details") && !html.contains("class=\"story\""),
            "{page}"
        );
        assert!(stories_section(&html).is_none(), "{page}");
    }
    let feed = site.read("public/stories/atom.xml");
    assert!(!feed.contains("<entry>"), "{feed}");
}

#[test]
fn hostile_titles_stay_escaped_on_rows_top_stories_and_the_feed() {
    let evil = "<script>alert(1)</script> & \"q\" <b>x";
    let site = Site::new();
    site.write_config(&[]);
    write(
        &site,
        "2021-07-20T08:00:00+09:00",
        vec![item("a1", ITMEDIA, evil, None)],
    );
    write(
        &site,
        "2021-07-20T09:00:00+09:00",
        vec![
            item(
                "b1",
                Source::new("Impress <i>Watch</i>", "impress-watch"),
                evil,
                Some((ITMEDIA, "a1")),
            ),
            item("c1", CNET, evil, Some((ITMEDIA, "a1"))),
        ],
    );
    build(&site);
    let escaped = "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; &lt;b&gt;x";
    for page in [
        "2021/07/20/0800/index.html",
        "2021/07/20/0900/index.html",
        "2021/07/20/index.html",
        "index.html",
    ] {
        let html = site.read(Path::new("public").join(page));
        assert!(!html.contains("<script>alert"), "{page}");
        assert!(!html.contains("<i>Watch"), "{page}");
        assert!(
            html.matches(escaped).count() >= 2,
            "{page}: the title escaped where stories show it"
        );
    }
    let text = site.read("public/stories/atom.xml");
    assert!(!text.contains("<script>"), "{text}");
    let doc = roxmltree::Document::parse(&text).unwrap();
    let title = doc
        .descendants()
        .find(|n| n.has_tag_name("title") && n.parent().is_some_and(|p| p.has_tag_name("entry")))
        .unwrap();
    assert_eq!(
        title.text(),
        Some(evil),
        "the entry's title is the title, as text"
    );
    let parsed = crate::feeds::parse_with_feedparser(&[site.path("public/stories/atom.xml")]);
    assert_eq!(parsed[0]["bozo"], false, "{}", parsed[0]["exception"]);
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
            let m = e.metadata().unwrap().modified().unwrap();
            (rel, (std::fs::read(e.path()).unwrap(), m))
        })
        .collect()
}

/// A later hour, on the next day, joins a story whose first item is on an earlier digest: that
/// digest shows "+N" now, and its day page the story; unrelated pages are not written (nor
/// rendered), older home pages keep their bytes (stable pagination).
#[test]
fn a_later_hour_joining_an_old_story_renders_the_old_digest_again_and_nothing_unrelated() {
    let mut site = Site::new();
    site.config.append = "[build]\ndigests_per_page = 2\n".into();
    site.write_config(&[]);
    write(
        &site,
        "2021-07-19T10:00:00+09:00",
        vec![item("a1", ITMEDIA, APPLE, None)],
    );
    write(
        &site,
        "2021-07-19T11:00:00+09:00",
        vec![item("x1", LOCAL, LONE, None)],
    );
    write(
        &site,
        "2021-07-19T12:00:00+09:00",
        vec![item("y1", LOCAL, "天気の話", None)],
    );
    write(
        &site,
        "2021-07-19T13:00:00+09:00",
        vec![item("z1", LOCAL, "交通の話", None)],
    );
    build(&site);
    let old = "2021/07/19/1000/index.html";
    let before = files(&site.path("public"));
    assert!(!String::from_utf8_lossy(&before[old].0).contains("<details"));
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        &site,
        "2021-07-20T09:00:00+09:00",
        vec![
            item("b1", IMPRESS, APPLE_2, Some((ITMEDIA, "a1"))),
            item("c1", CNET, APPLE_3, Some((ITMEDIA, "a1"))),
        ],
    );
    let out = build(&site);
    let after = files(&site.path("public"));
    let old_html = String::from_utf8_lossy(&after[old].0).into_owned();
    assert!(
        row(&old_html, 1).contains("<details open><summary>ほか2サイト</summary>"),
        "{old_html}"
    );
    let day = String::from_utf8_lossy(&after["2021/07/19/index.html"].0).into_owned();
    assert!(
        stories_section(&day).is_some_and(|s| s.contains("3サイト")),
        "{day}"
    );
    let changed = |rel: &str| {
        before
            .get(rel)
            .is_none_or(|b| b.0 != after[rel].0 || b.1 != after[rel].1)
    };
    assert!(changed(old) && changed("2021/07/19/index.html"));
    // Untouched: a digest of the old day that shows no story and is no neighbour, the older
    // home page, the old day's month.
    for rel in [
        "2021/07/19/1100/index.html",
        "2021/07/19/1200/index.html",
        "page/1/index.html",
    ] {
        assert!(!changed(rel), "{rel} was written again ({out})");
    }
    // Only what the new hour touches was rendered: the new digest, its neighbour (1300), the
    // old digest, both days, month, year, archives, home, feeds, sitemaps, site/category pages.
    let rendered: usize = out
        .split(" rendered")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    let written = after
        .keys()
        .filter(|r| changed(r) && !r.starts_with("search/"))
        .count();
    assert!(
        rendered <= written + 2,
        "rendered {rendered}, written {written}: {out}"
    );
}

/// Issue 24, the next hour at a year: an hour of a new month whose item joins a story of the
/// month before rewrites, of that month's static search, only the chunks (`cN.json`) holding the
/// story's items: its buckets, names and other chunks keep their bytes and are not written; the
/// old digest the story starts on shows it; a cold rebuild gives every file's bytes.
#[test]
fn a_next_hour_joining_an_old_months_story_rewrites_only_the_chunks_holding_its_items() {
    let site = Site::new();
    site.write_config(&[]);
    // July 31st, four hours of 50 items: numbers 0–199 in July's shard, chunks of 64.
    for (h, hour) in ["20", "21", "22", "23"].iter().enumerate() {
        let items = (0..50)
            .map(|k| match (h, k) {
                // Number 60 (chunk 0) starts the story; number 130 (chunk 2) joins it.
                (1, 10) => item("a1", ITMEDIA, APPLE, None),
                (2, 30) => item("a2", IMPRESS, APPLE_2, Some((ITMEDIA, "a1"))),
                _ => item(
                    &format!("x{h}-{k}"),
                    LOCAL,
                    &format!("地方の話題 {h}-{k}"),
                    None,
                ),
            })
            .collect();
        write(&site, &format!("2021-07-31T{hour}:00:00+09:00"), items);
    }
    build(&site);
    let before = files(&site.path("public"));
    let july: Vec<&String> = before
        .keys()
        .filter(|r| r.starts_with("search/2021-07/"))
        .collect();
    assert!(
        july.iter().any(|r| r.ends_with("/c3.json"))
            && !july.iter().any(|r| r.ends_with("/c4.json")),
        "four chunks: {july:?}"
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        &site,
        "2021-08-01T00:00:00+09:00",
        vec![
            item("c1", CNET, APPLE_3, Some((ITMEDIA, "a1"))),
            item("l1", LOCAL, LONE, None),
        ],
    );
    let out = build(&site);
    let after = files(&site.path("public"));
    let changed = |rel: &str| {
        before
            .get(rel)
            .is_none_or(|b| after.get(rel).is_none_or(|a| b.0 != a.0 || b.1 != a.1))
    };
    let rewritten: Vec<&str> = july
        .iter()
        .map(|r| r.as_str())
        .filter(|r| changed(r))
        .collect();
    assert_eq!(
        rewritten,
        ["search/2021-07/c0.json", "search/2021-07/c2.json"],
        "{out}"
    );
    // The rows now count the August item: [items, sites, members…].
    let c0: serde_json::Value = serde_json::from_slice(&after["search/2021-07/c0.json"].0).unwrap();
    assert_eq!(c0[60][7][0], 3, "{}", c0[60]);
    assert_eq!(c0[60][7][1], 3, "{}", c0[60]);
    // The pages: the digest the story starts on shows it, an unrelated one of that day is not
    // written again.
    let first = String::from_utf8_lossy(&after["2021/07/31/2100/index.html"].0).into_owned();
    assert!(first.contains("ほか2サイト"), "{first}");
    assert!(changed("2021/07/31/2100/index.html"));
    assert!(!changed("2021/07/31/2000/index.html"), "{out}");

    std::fs::remove_dir_all(site.path(".matome")).unwrap();
    std::fs::remove_dir_all(site.path("public")).unwrap();
    build(&site);
    let cold = files(&site.path("public"));
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        cold.keys().collect::<Vec<_>>()
    );
    for (rel, (bytes, _)) in &after {
        assert!(bytes == &cold[rel].0, "{rel} differs after a cold rebuild");
    }
}

/// Build, wipe `.matome/`, build again: every output file the same bytes.
#[test]
fn stories_survive_a_cold_rebuild_byte_for_byte() {
    let site = three_site_story();
    build(&site);
    let first = files(&site.path("public"));
    assert!(
        String::from_utf8_lossy(&first["2021/07/20/0800/index.html"].0).contains("ほか2サイト")
    );
    std::fs::remove_dir_all(site.path(".matome")).unwrap();
    std::fs::remove_dir_all(site.path("public")).unwrap();
    build(&site);
    let second = files(&site.path("public"));
    assert_eq!(
        first.keys().collect::<Vec<_>>(),
        second.keys().collect::<Vec<_>>()
    );
    for (rel, (bytes, _)) in &first {
        assert!(
            bytes == &second[rel].0,
            "{rel} differs after a cold rebuild"
        );
    }
}

/// `[stories]`: `feed_min_sites` decides when a story enters the feed, `top_per_day = 0` leaves
/// the day and home pages without top stories (the rows still say "+N").
#[test]
fn the_stories_settings_decide_the_feed_and_the_top_stories() {
    let mut site = Site::new();
    site.config.append = "[stories]\nfeed_min_sites = 2\ntop_per_day = 0\n".into();
    site.write_config(&[]);
    write(
        &site,
        "2021-07-20T08:00:00+09:00",
        vec![item("a1", ITMEDIA, APPLE, None)],
    );
    write(
        &site,
        "2021-07-20T10:00:00+09:00",
        vec![item("b1", IMPRESS, APPLE_2, Some((ITMEDIA, "a1")))],
    );
    build(&site);
    for page in ["2021/07/20/index.html", "index.html"] {
        let html = site.read(Path::new("public").join(page));
        assert!(stories_section(&html).is_none(), "{page}");
    }
    assert!(
        site.read("public/2021/07/20/0800/index.html")
            .contains("<summary>ほか1サイト</summary>")
    );
    let parsed = crate::feeds::parse_with_feedparser(&[site.path("public/stories/atom.xml")]);
    let entries = parsed[0]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "two sites are enough: {entries:?}");
    assert_eq!(
        entries[0]["published"].as_i64().unwrap(),
        t("2021-07-20T10:00:00+09:00").timestamp()
    );
}

/// The README's "Stories" and "What a reader sees of stories" (everything up to the next
/// section): the text a reader of the README is told.
fn readme_stories() -> String {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("\n### Stories\n").expect("a Stories section");
    let end = start + readme[start..].find("\n### The `.matome/` cache").unwrap();
    readme[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// What the README says of stories is what the code does: every `[stories]` setting is
/// explained there, the numbers it states are the code's, and the screenshots it names exist.
#[test]
fn the_readme_states_the_stories_settings_numbers_and_screenshots_as_they_are() {
    use matome::render::story::HOME_WINDOW_HOURS;
    use matome::render::views::stories::{
        FEED_HOURS, FEED_MAX_ENTRIES, FEED_MIN_ENTRIES, TOP_SOURCES,
    };
    let text = readme_stories();
    for s in matome::config::settings::ALL {
        if let Some(key) = s.key.strip_prefix("stories.") {
            assert!(text.contains(&format!("{key}`")), "{key} is explained");
        }
    }
    let settings = matome::stories::Settings::default();
    let stated = [
        format!(
            "the last `window_hours`, {} by default, at most {},{:03} items",
            settings.window_hours,
            settings.max_items / 1000,
            settings.max_items % 1000
        ),
        format!("at most {TOP_SOURCES}, the rest at its place"),
        format!("an item in the {HOME_WINDOW_HOURS} hours before the newest digest"),
        format!(
            "the entries of the last {FEED_HOURS} hours (at least {FEED_MIN_ENTRIES} of the last week, at most {FEED_MAX_ENTRIES})"
        ),
    ];
    for want in stated {
        assert!(text.contains(&want), "the README says: {want}");
    }
    let mut shots = 0;
    for kind in ["digest", "day", "home"] {
        for width in [390, 768, 1350] {
            let rel = format!("docs/stories-{kind}-{width}.png");
            assert!(
                Path::new(env!("CARGO_MANIFEST_DIR")).join(&rel).is_file(),
                "{rel}"
            );
            shots += 1;
        }
    }
    assert!(text.contains("`docs/stories-{digest,day,home}-{390,768,1350}.png`"));
    assert_eq!(shots, 9);
}
