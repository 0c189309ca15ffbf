//! `matome fetch` on feeds feed-rs refuses or reads empty, which the lenient reader recovers
//! (`fetch/parse/lenient.rs`): Atom 0.3, RSS 2.0 under a namespace prefix, an Atom content type
//! feed-rs refuses, ill-formed XML. Served by a real server on 127.0.0.1; each item archived once
//! across runs, with its date, and the snapshot file parses.

use matome::content::Item;

use crate::fetch::archived;
use crate::support::{FeedSpec, Response, Site, TestServer};

const NOW: &str = "2021-07-20T08:28:58+09:00";

/// (fixture, items it has, one title and its published time in the site's zone)
const CASES: [(&str, usize, &str, &str); 9] = [
    (
        "atom03-escaped.xml",
        2,
        "日銀、金融政策決定会合の結果を発表",
        "2021-07-20T07:20:00+09:00",
    ),
    (
        "atom03-base64.xml",
        1,
        "東証、取引時間を延長 <速報>",
        "2021-07-20T06:45:00+09:00",
    ),
    (
        "atom03-xml.xml",
        1,
        "Rust 1.54 released",
        "2021-07-20T06:00:00+09:00",
    ),
    (
        "rss2-prefixed.xml",
        2,
        "新型ロケットの打ち上げ延期",
        "2021-07-20T06:10:00+09:00",
    ),
    (
        "atom-xhtml-content-type.xml",
        2,
        "Servo resumes development",
        "2021-07-20T08:05:00+09:00",
    ),
    (
        "rss2-illformed-unclosed-tags.xml",
        3,
        "東京都、新規感染者数を発表",
        "2021-07-20T06:00:00+09:00",
    ),
    (
        "rss2-illformed-entities.xml",
        2,
        "Café chain expands — 40 new stores…",
        "2021-07-20T07:00:00+09:00",
    ),
    (
        "rss2-illformed-stray-ampersand.xml",
        2,
        "AT&T and Time Warner: Q&A",
        "2021-07-20T08:15:00+09:00",
    ),
    (
        "rss2-illformed-bad-cdata.xml",
        2,
        "長期金利、低下",
        "2021-07-20T07:30:00+09:00",
    ),
];

fn of_feed<'a>(items: &'a [Item], server: &TestServer, name: &str) -> Vec<&'a Item> {
    let url = server.url(&format!("/{name}"));
    items.iter().filter(|i| i.feed == url).collect()
}

#[test]
fn recovered_feeds_are_archived_once_across_runs() {
    let server = TestServer::new();
    let site = Site::new();
    let mut specs = Vec::new();
    for (name, ..) in CASES {
        let path = format!("/{name}");
        server.route(&path, Response::fixture(name));
        specs.push(FeedSpec::new(&server.url(&path), "IT"));
    }
    site.write_config(&specs);
    let out = site.matome(&["fetch", "--now", NOW]);
    out.assert_success();
    assert!(
        out.stdout.contains("9 ok, 0 not modified, 0 failed"),
        "{out:?}"
    );
    let first = archived(&site);
    for (name, count, title, published) in CASES {
        let items = of_feed(&first, &server, name);
        assert_eq!(items.len(), count, "{name}: {items:#?}");
        let item = items
            .iter()
            .find(|i| i.title == title)
            .unwrap_or_else(|| panic!("{name}: no {title:?} in {items:#?}"));
        assert_eq!(
            matome::content::rfc3339(&item.published),
            published,
            "{name}"
        );
        assert!(
            item.link.starts_with("http"),
            "{name}: every recovered item here has a link: {item:?}"
        );
    }
    // The same feeds an hour and two hours later: nothing is new, nothing changes.
    for now in ["2021-07-20T09:10:00+09:00", "2021-07-20T10:10:00+09:00"] {
        let out = site.matome(&["fetch", "--now", now]);
        out.assert_success();
        assert!(out.stdout.contains("no new items"), "{now}: {out:?}");
    }
    assert_eq!(archived(&site), first);
    assert_eq!(site.content_files().len(), 1);
}

/// A Shift_JIS feed (declared) that is also ill-formed: decoded strictly first, then recovered,
/// with the same titles as the intact feed and no mojibake.
#[test]
fn illformed_shift_jis_feed_is_recovered_without_mojibake() {
    let intact = crate::support::fixture("rss2-shift_jis.xml");
    let text_end = intact
        .windows(b"</channel>".len())
        .position(|w| w == b"</channel>")
        .expect("</channel>");
    // Cut before </channel></rss>, and a stray `&` in the channel's description.
    let mut broken = intact[..text_end].to_vec();
    let desc = broken
        .windows(b"<description>".len())
        .position(|w| w == b"<description>")
        .expect("<description>");
    broken.splice(
        desc + b"<description>".len()..desc + b"<description>".len(),
        *b"Q&A ",
    );

    let server = TestServer::new();
    server.route("/intact", Response::fixture("rss2-shift_jis.xml"));
    server.route("/broken", Response::rss(broken));
    let site = Site::new();
    site.write_config(&[
        FeedSpec::new(&server.url("/intact"), "IT"),
        FeedSpec::new(&server.url("/broken"), "IT"),
    ]);
    site.matome(&["fetch", "--now", NOW]).assert_success();
    let items = archived(&site);
    let titles = |url: &str| -> Vec<String> {
        let mut t: Vec<String> = items
            .iter()
            .filter(|i| i.feed == url)
            .map(|i| i.title.clone())
            .collect();
        t.sort();
        t
    };
    let intact_titles = titles(&server.url("/intact"));
    assert!(!intact_titles.is_empty());
    assert_eq!(titles(&server.url("/broken")), intact_titles);
    for rel in site.content_files() {
        let text = site.read(&rel);
        assert!(!text.contains('\u{fffd}'), "{text}");
    }
}
