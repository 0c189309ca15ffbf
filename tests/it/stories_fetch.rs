//! Stories decided at fetch (issue 24): real fetches from feeds served on 127.0.0.1, two hours
//! apart. The same event from three sites is one story named by its first item's key, a
//! release and the next version's beta stay apart, a syndicated copy with a tracking query
//! joins, and the earlier hour's file is never rewritten. The window of stories a fetch keeps
//! in `.matome/` is derived state: deleted, damaged, wiped with the rest of `.matome/`, or
//! stale after a hand edit of content/, it is rebuilt from content/ and decides the same.
//! `matome analyze` gives an archive without stories the ones a fetch gave it.

use std::collections::BTreeMap;

use matome::content::Snapshot;

use crate::support::site::DEFAULT_RUN_TIMEOUT;
use crate::support::{FeedSpec, Response, Site, TestServer};

const HOUR1: &str = "2026-03-16T10:10:00+09:00";
const HOUR2: &str = "2026-03-16T11:10:00+09:00";
const FILE1: &str = "content/2026/03/16/1000.md";
const FILE2: &str = "content/2026/03/16/1100.md";

/// An RSS feed of `(title, link, published)` items.
fn rss(title: &str, items: &[(&str, &str, &str)]) -> String {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"><channel><title>{title}</title><link>https://example.com/</link><description>d</description>\n"
    );
    for (t, link, date) in items {
        let link = link.replace('&', "&amp;");
        out.push_str(&format!(
            "<item><title>{t}</title><link>{link}</link><guid>{link}</guid><pubDate>{date}</pubDate><description>{t}</description></item>\n"
        ));
    }
    out.push_str("</channel></rss>\n");
    out
}

const CF_A: (&str, &str, &str) = (
    "Cloudflare acquires Stratowave to bring replicated Postgres to Workers",
    "https://a.example/cloudflare-stratowave",
    "Mon, 16 Mar 2026 09:40:00 +0900",
);
const RUST_RELEASE: (&str, &str, &str) = (
    "Announcing Rust 1.86.0",
    "https://a.example/rust-1.86",
    "Mon, 16 Mar 2026 09:50:00 +0900",
);
const RUST_BETA: (&str, &str, &str) = (
    "Rust 1.87.0 beta is now available for testing",
    "https://a.example/rust-1.87-beta",
    "Mon, 16 Mar 2026 10:50:00 +0900",
);
const CF_B: (&str, &str, &str) = (
    "Cloudflare acquires database startup Stratowave",
    "https://b.example/news/stratowave",
    "Mon, 16 Mar 2026 09:55:00 +0900",
);
const LAPTOP: (&str, &str, &str) = (
    "新型ノートPCを発表",
    "https://www.itmedia.co.jp/news/articles/2603/16/news1.html",
    "Mon, 16 Mar 2026 09:30:00 +0900",
);
const CF_C: (&str, &str, &str) = (
    "Stratowave joins Cloudflare: replicated Postgres for Workers",
    "https://c.example/stratowave-cloudflare",
    "Mon, 16 Mar 2026 10:40:00 +0900",
);
/// An aggregator's copies: another title, the same article with tracking queries.
const LAPTOP_COPY: (&str, &str, &str) = (
    "ノートPC、新しいモデル",
    "http://itmedia.co.jp/news/articles/2603/16/news1.html?utm_source=rss&utm_medium=feed",
    "Mon, 16 Mar 2026 10:30:00 +0900",
);
const CF_COPY: (&str, &str, &str) = (
    "【まとめ】買収のニュース",
    "https://a.example/cloudflare-stratowave?af=R",
    "Mon, 16 Mar 2026 10:45:00 +0900",
);

/// Four feeds (sites A, B, C and an aggregator) serving the first hour's items.
fn feeds() -> TestServer {
    let server = TestServer::new();
    first_hour(&server);
    server
}

/// The first hour's feeds.
fn first_hour(server: &TestServer) {
    server.route("/a", Response::rss(rss("A", &[CF_A, RUST_RELEASE])));
    server.route("/b", Response::rss(rss("B", &[CF_B, LAPTOP])));
    server.route("/c", Response::rss(rss("C", &[])));
    server.route("/d", Response::rss(rss("D", &[])));
}

/// The second hour: each feed adds its new items (the old ones stay in the feed).
fn second_hour(server: &TestServer) {
    server.route(
        "/a",
        Response::rss(rss("A", &[RUST_BETA, CF_A, RUST_RELEASE])),
    );
    server.route("/c", Response::rss(rss("C", &[CF_C])));
    server.route("/d", Response::rss(rss("D", &[LAPTOP_COPY, CF_COPY])));
}

fn site(server: &TestServer) -> Site {
    let site = Site::new();
    site.write_config(&[
        FeedSpec::new(&server.url("/a"), "IT").site("Site A"),
        FeedSpec::new(&server.url("/b"), "IT").site("Site B"),
        FeedSpec::new(&server.url("/c"), "IT").site("Site C"),
        FeedSpec::new(&server.url("/d"), "IT").site("Aggregator"),
    ]);
    site
}

/// Each archived item's story and its own key, by title, from both hours' files.
fn stories(site: &Site) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    for rel in [FILE1, FILE2] {
        let s = Snapshot::parse(&site.read(rel), rel).unwrap();
        for i in s.items {
            out.insert(i.title.clone(), (i.story.clone(), i.key().hex()));
        }
    }
    out
}

/// A fresh site fetched at both hours from `server`'s feeds (the same feeds, so the same item
/// keys, for every site of a test), `between` done to it between them; and how the second
/// hour's fetch came by its window (`MATOME_TIMINGS`' line).
fn two_hours_told(server: &TestServer, between: impl Fn(&Site)) -> (Site, String) {
    first_hour(server);
    let site = site(server);
    site.matome(&["fetch", "--now", HOUR1]).assert_success();
    between(&site);
    second_hour(server);
    let timed = [("MATOME_TIMINGS", "1")];
    let out = site.matome_with(&["fetch", "--now", HOUR2], &timed, DEFAULT_RUN_TIMEOUT);
    out.assert_success();
    let told = out
        .stderr
        .lines()
        .find(|l| l.starts_with("stories: window "))
        .unwrap_or_else(|| panic!("no stories line: {out:?}"))
        .to_string();
    (site, told)
}

fn two_hours(server: &TestServer, between: impl Fn(&Site)) -> Site {
    two_hours_told(server, between).0
}

#[test]
fn one_event_from_three_sites_over_two_hours_is_one_story_and_an_earlier_hour_is_not_rewritten() {
    let server = feeds();
    let site = site(&server);
    site.matome(&["fetch", "--now", HOUR1]).assert_success();
    let first = site.read_bytes(FILE1);
    assert!(site.exists(".matome/stories.bin"));
    second_hour(&server);
    site.matome(&["fetch", "--now", HOUR2]).assert_success();
    assert_eq!(
        site.read_bytes(FILE1),
        first,
        "the second hour never rewrites the first hour's file"
    );

    let s = stories(&site);
    assert_eq!(s.len(), 8, "{s:#?}");
    // every new item's record says its story was decided
    for (title, (story, _)) in &s {
        assert!(!story.is_empty(), "{title} has no story");
        assert!(
            site.read(FILE1).contains(&format!("story = \"{story}\""))
                || site.read(FILE2).contains(&format!("story = \"{story}\"")),
            "{title}"
        );
    }
    let story = |t: &(&str, &str, &str)| s[t.0].0.clone();
    let key = |t: &(&str, &str, &str)| s[t.0].1.clone();
    // one event, three sites, two hours: the first item's key names it
    assert_eq!(story(&CF_A), key(&CF_A));
    assert_eq!(story(&CF_B), key(&CF_A), "{s:#?}");
    assert_eq!(story(&CF_C), key(&CF_A), "{s:#?}");
    // a copy of the same article, with a tracking query, joins it (whatever its title)
    assert_eq!(story(&CF_COPY), key(&CF_A), "{s:#?}");
    assert_eq!(story(&LAPTOP), key(&LAPTOP));
    assert_eq!(story(&LAPTOP_COPY), key(&LAPTOP), "{s:#?}");
    // a release and the next version's beta, same site: two stories, each its own
    assert_eq!(story(&RUST_RELEASE), key(&RUST_RELEASE));
    assert_eq!(story(&RUST_BETA), key(&RUST_BETA), "{s:#?}");
    // `matome check` finds every story the fetches wrote well formed, each naming a first item
    // before it
    site.matome(&["build"]).assert_success();
    site.matome(&["check"]).assert_success();
}

/// What each way of losing the window (or changing its settings) gives the second hour: the
/// second hour's file as a run with the window intact writes it, the window rebuilt from
/// content/ (and said why).
#[test]
fn a_lost_or_damaged_window_is_rebuilt_from_content_and_decides_the_same() {
    let server = TestServer::new();
    let (intact, told) = two_hours_told(&server, |_| {});
    assert!(told.starts_with("stories: window loaded"), "{told}");
    let want = intact.read(FILE2);
    let window = |site: &Site| site.path(".matome/stories.bin");
    let (deleted, told) =
        two_hours_told(&server, |site| std::fs::remove_file(window(site)).unwrap());
    assert!(
        told.starts_with("stories: window rebuilt (missing)"),
        "{told}"
    );
    assert_eq!(deleted.read(FILE2), want, "the window deleted");
    let (damaged, told) = two_hours_told(&server, |site| {
        let mut bytes = std::fs::read(window(site)).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x55;
        std::fs::write(window(site), bytes).unwrap();
    });
    assert!(
        told.starts_with("stories: window rebuilt (damaged)"),
        "{told}"
    );
    assert_eq!(damaged.read(FILE2), want, "the window damaged");
    let (cut, told) = two_hours_told(&server, |site| {
        let bytes = std::fs::read(window(site)).unwrap();
        std::fs::write(window(site), &bytes[..bytes.len() / 3]).unwrap();
    });
    assert!(
        told.starts_with("stories: window rebuilt (damaged)"),
        "{told}"
    );
    assert_eq!(cut.read(FILE2), want, "the window cut short");
    let (cold, told) = two_hours_told(&server, |site| {
        std::fs::remove_dir_all(site.path(".matome")).unwrap()
    });
    assert!(
        told.starts_with("stories: window rebuilt (missing)"),
        "{told}"
    );
    assert_eq!(
        cold.read(FILE2),
        want,
        "all of .matome/ gone (a cold rebuild)"
    );
    assert_eq!(cold.read(FILE1), intact.read(FILE1));
    // a window of other settings is not believed either (and the same events still join)
    let (other, told) = two_hours_told(&server, |site| {
        let config = site.read("matome.toml") + "\n[stories]\nwindow_hours = 48\n";
        site.write("matome.toml", config);
    });
    assert!(
        told.starts_with("stories: window rebuilt (of another version, method or settings)"),
        "{told}"
    );
    assert_eq!(other.read(FILE2), want, "[stories] window_hours changed");
    // and the window each run leaves is the same window
    for site in [&deleted, &damaged, &cut, &cold] {
        assert_eq!(
            std::fs::read(window(site)).unwrap(),
            std::fs::read(window(&intact)).unwrap()
        );
    }
}

/// Regression: a window saved before a hand edit of content/ is not believed. A curator who
/// names the first hour's story by hand gets the next hour's reports joined to that name, as
/// a window built from the edited content/ decides.
#[test]
fn a_window_older_than_a_hand_edit_of_content_is_not_believed() {
    const CURATED: &str = "0123456789abcdef0123456789abcdef";
    let edit = |site: &Site| {
        let mut s = Snapshot::parse(&site.read(FILE1), FILE1).unwrap();
        for i in &mut s.items {
            if i.title == CF_A.0 || i.title == CF_B.0 {
                i.story = CURATED.into();
            }
        }
        site.write(FILE1, s.to_text());
    };
    let server = TestServer::new();
    let (edited, told) = two_hours_told(&server, edit);
    assert!(
        told.starts_with("stories: window rebuilt (content/ changed since it was saved)"),
        "{told}"
    );
    let s = stories(&edited);
    assert_eq!(s[CF_C.0].0, CURATED, "{s:#?}");
    assert_eq!(s[CF_COPY.0].0, CURATED, "{s:#?}");
    let rebuilt = two_hours(&server, |site| {
        edit(site);
        std::fs::remove_dir_all(site.path(".matome")).unwrap();
    });
    assert_eq!(edited.read(FILE2), rebuilt.read(FILE2));

    // a first hour's file deleted by hand: its items come back in the second hour (the feeds
    // still have them), decided as a window built from what content/ now holds decides
    let gone = two_hours(&server, |site| {
        std::fs::remove_file(site.path(FILE1)).unwrap()
    });
    let cold = two_hours(&server, |site| {
        std::fs::remove_file(site.path(FILE1)).unwrap();
        std::fs::remove_dir_all(site.path(".matome")).unwrap();
    });
    assert_eq!(gone.read(FILE2), cold.read(FILE2));
    let s = Snapshot::parse(&gone.read(FILE2), FILE2).unwrap();
    let cf: Vec<&str> = s
        .items
        .iter()
        .filter(|i| [CF_A.0, CF_B.0, CF_C.0, CF_COPY.0].contains(&i.title.as_str()))
        .map(|i| i.story.as_str())
        .collect();
    assert_eq!(cf.len(), 4, "{s:#?}");
    assert!(cf.iter().all(|id| *id == cf[0]), "{cf:?}");
}

/// `matome analyze` decides the stories of items that have none (an archive from before
/// stories) as the fetches did, byte for byte; `--all` decides every item's again and gives
/// the same; neither rewrites a file whose stories stand.
#[test]
fn analyze_gives_an_archive_without_stories_the_ones_fetch_gave() {
    let server = TestServer::new();
    let site = two_hours(&server, |_| {});
    let fetched = [site.read(FILE1), site.read(FILE2)];
    let wipe = |site: &Site| {
        for rel in [FILE1, FILE2] {
            let mut s = Snapshot::parse(&site.read(rel), rel).unwrap();
            for i in &mut s.items {
                i.story.clear();
            }
            site.write(rel, s.to_text());
        }
    };
    wipe(&site);
    assert!(!site.read(FILE1).contains("story = "));
    let out = site.matome(&["analyze"]);
    out.assert_success();
    assert!(
        out.stdout
            .contains("0 analysed, 2 files rewritten; the stories of 8 items decided"),
        "{out:?}"
    );
    assert_eq!([site.read(FILE1), site.read(FILE2)], fetched);
    let out = site.matome(&["analyze"]);
    assert!(
        out.stdout
            .contains("0 files rewritten; the stories of 0 items decided"),
        "{out:?}"
    );

    // only the newer hour without stories: decided against the older hour's, as recorded
    let mut s = Snapshot::parse(&site.read(FILE2), FILE2).unwrap();
    for i in &mut s.items {
        i.story.clear();
    }
    site.write(FILE2, s.to_text());
    let out = site.matome(&["analyze"]);
    assert!(
        out.stdout
            .contains("0 analysed, 1 files rewritten; the stories of 4 items decided"),
        "{out:?}"
    );
    assert_eq!([site.read(FILE1), site.read(FILE2)], fetched);

    let before = stories(&site);
    wipe(&site);
    let out = site.matome(&["analyze", "--all"]);
    out.assert_success();
    assert_eq!(
        stories(&site),
        before,
        "--all decides them as the fetches did"
    );
    assert_eq!(
        [site.read(FILE1), site.read(FILE2)],
        fetched,
        "and the files are the fetches' byte for byte"
    );
    let text = [site.read(FILE1), site.read(FILE2)];
    let out = site.matome(&["analyze", "--all"]);
    assert!(out.stdout.contains(" 0 files rewritten"), "{out:?}");
    assert_eq!([site.read(FILE1), site.read(FILE2)], text);
    site.matome(&["build"]).assert_success();
    site.matome(&["check"]).assert_success();
}
