//! Unit tests of `fetch/parse/lenient.rs` (kept beside it so the file itself reads as the code).
use super::super::{FeedEntry, parse_feed, stable_id};
use chrono::{DateTime, Utc};

const URL: &str = "http://example.com/feed.xml";

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/feeds/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn parsed(name: &str) -> Vec<FeedEntry> {
    parse_feed(&fixture(name), URL)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .entries
}

fn at(s: &str) -> Option<DateTime<Utc>> {
    Some(s.parse().unwrap())
}

#[test]
fn atom03_escaped_content_issued_date_and_alternate_link() {
    let feed = parse_feed(&fixture("atom03-escaped.xml"), URL).unwrap();
    assert_eq!(feed.title.as_deref(), Some("はてなダイアリー風ブログ"));
    let e = &feed.entries;
    assert_eq!(e.len(), 2);
    assert_eq!(e[0].title, "日銀、金融政策決定会合の結果を発表");
    assert_eq!(
        e[0].link.as_deref(),
        Some("http://blog.example.jp/entry/2021/07/20/boj"),
        "rel=alternate wins over the edit link before it"
    );
    assert_eq!(
        e[0].guid.as_deref(),
        Some("tag:blog.example.jp,2021:entry-1")
    );
    assert_eq!(e[0].published, at("2021-07-19T22:20:00Z"), "issued");
    assert_eq!(e[0].text, "日本銀行は現状維持を決めた。");
    assert_eq!(e[1].published, at("2021-07-19T22:30:00Z"), "modified");
    assert_eq!(e[1].text, "ドル円の動き");
    assert_eq!(
        stable_id(&e[1]),
        "http://blog.example.jp/entry/2021/07/20/yen"
    );
}

#[test]
fn atom03_base64_content_is_decoded() {
    let e = parsed("atom03-base64.xml");
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].title, "東証、取引時間を延長 <速報>");
    assert_eq!(e[0].text, "東証の取引時間が30分延長されます。");
    assert_eq!(
        e[0].link.as_deref(),
        Some("http://market.example.jp/news/42")
    );
    assert_eq!(e[0].published, at("2021-07-19T21:45:00Z"));
}

#[test]
fn atom03_xml_mode_content_is_read_as_xhtml() {
    let e = parsed("atom03-xml.xml");
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].title, "Rust 1.54 released");
    assert_eq!(e[0].text, "Incremental compilation is back on by default.");
    assert_eq!(
        e[0].published,
        at("2021-07-19T21:00:00Z"),
        "issued without a zone"
    );
}

#[test]
fn rss2_under_a_namespace_prefix_is_read() {
    let feed = parse_feed(&fixture("rss2-prefixed.xml"), URL).unwrap();
    assert_eq!(feed.title.as_deref(), Some("名前空間つきRSS"));
    let e = &feed.entries;
    assert_eq!(e.len(), 2);
    assert_eq!(e[0].title, "量子コンピューター、国産初号機が稼働");
    assert_eq!(e[0].guid.as_deref(), Some("ns-2021-0720-1"));
    assert_eq!(e[0].text, "理化学研究所などが発表した。");
    assert_eq!(e[0].published, at("2021-07-19T22:40:00Z"));
    assert_eq!(
        e[1].link.as_deref(),
        Some("http://ns.example.jp/news/rocket")
    );
    assert_eq!(e[1].published, at("2021-07-19T21:10:00Z"), "dc:date");
}

#[test]
fn atom_xhtml_content_type_is_read_not_refused() {
    let e = parsed("atom-xhtml-content-type.xml");
    let titles: Vec<_> = e.iter().map(|e| e.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Servo resumes development",
            "WebAssembly GC proposal advances"
        ]
    );
    assert_eq!(e[0].text, "The Servo engine gets a new team.");
    assert_eq!(
        e[0].link.as_deref(),
        Some("https://weekly.example.com/servo")
    );
    assert_eq!(e[0].published, at("2021-07-19T23:05:00Z"));
}

#[test]
fn illformed_unclosed_and_mismatched_tags_keep_every_item() {
    let e = parsed("rss2-illformed-unclosed-tags.xml");
    let got: Vec<_> = e
        .iter()
        .map(|e| (e.title.as_str(), e.link.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        got,
        [
            (
                "地銀再編、新たに2行が統合へ",
                "http://unclosed.example.jp/news/1"
            ),
            (
                "半導体不足、自動車生産に影響",
                "http://unclosed.example.jp/news/2"
            ),
            (
                "東京都、新規感染者数を発表",
                "http://unclosed.example.jp/news/3"
            ),
        ]
    );
    assert_eq!(e[0].text, "経営統合で合意した。", "unclosed description");
    assert_eq!(e[2].published, at("2021-07-19T21:00:00Z"));
}

#[test]
fn illformed_html_entities_are_decoded_unknown_ones_kept() {
    let feed = parse_feed(&fixture("rss2-illformed-entities.xml"), URL).unwrap();
    assert_eq!(feed.title.as_deref(), Some("Entities News"));
    let e = &feed.entries;
    assert_eq!(e[0].title, "Café chain expands — 40 new stores…");
    assert_eq!(e[0].text, "© 2021 Example Press. Prices in ¥&#xZZ;.");
    assert_eq!(e[1].title, "Undefined &bogus; entity stays as written");
    assert_eq!(e[1].published, at("2021-07-19T21:00:00Z"));
}

#[test]
fn illformed_stray_ampersands_are_text() {
    let feed = parse_feed(&fixture("rss2-illformed-stray-ampersand.xml"), URL).unwrap();
    assert_eq!(feed.title.as_deref(), Some("M&A Watch"));
    let e = &feed.entries;
    assert_eq!(e[0].title, "AT&T and Time Warner: Q&A");
    assert_eq!(
        e[0].link.as_deref(),
        Some("http://amp.example.com/story?id=7&page=2")
    );
    assert_eq!(e[0].text, "R&D spending & profits");
    assert_eq!(
        e[1].link.as_deref(),
        Some("http://amp.example.com/story?id=8&page=1")
    );
}

#[test]
fn illformed_cdata_end_is_recovered() {
    let e = parsed("rss2-illformed-bad-cdata.xml");
    assert_eq!(e.len(), 2);
    assert_eq!(e[0].title, "日経平均、3日ぶり反発 <速報>");
    assert_eq!(e[1].title, "長期金利、低下");
    assert_eq!(e[1].text, "10年債利回りは0.01%。");
    assert_eq!(e[1].guid.as_deref(), Some("cdata-2"));
}

#[test]
fn a_feed_cut_short_keeps_the_items_before_the_cut() {
    let full = fixture("rss2-illformed-bad-cdata.xml");
    let cut = &full[..full.find("<guid>cdata-2").unwrap() + 10];
    let e = parse_feed(cut, URL).unwrap().entries;
    assert_eq!(e.len(), 2);
    assert_eq!(e[0].guid.as_deref(), Some("cdata-1"));
    assert_eq!(e[1].title, "長期金利、低下");
    let in_cdata = &full[..full.find("2万7千").unwrap()];
    let e = parse_feed(in_cdata, URL).unwrap().entries;
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].title, "日経平均、3日ぶり反発 <速報>");
}

#[test]
fn cdata_cut_at_its_start_is_dropped_not_shown() {
    let xml =
        "<rss version=\"2.0\"><channel><item><link>http://example.com/1</link><title><![CD\r\n";
    let e = parse_feed(xml, URL).unwrap().entries;
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].title, "");
    assert_eq!(e[0].link.as_deref(), Some("http://example.com/1"));
}

#[test]
fn rss1_items_without_a_link_are_kept() {
    let xml = r#"<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="http://example.com/"><title>RDF</title><link>http://example.com/</link></channel>
<item rdf:about="http://example.com/1"><title>リンクのない記事</title><dc:date>2021-07-20T07:00:00+09:00</dc:date></item>
</rdf:RDF>"#;
    let e = parse_feed(xml, URL).unwrap().entries;
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].title, "リンクのない記事");
    assert_eq!(e[0].published, at("2021-07-19T22:00:00Z"));
}

#[test]
fn recovered_ids_are_stable_across_runs() {
    let xml = "<rss version=\"2.0\"><channel><item><title>無題&nbsp;記事</title><description>本文 & 続き</description></item>";
    let ids = |_: u8| -> Vec<String> {
        parse_feed(xml, URL)
            .unwrap()
            .entries
            .iter()
            .map(stable_id)
            .collect()
    };
    let first = ids(0);
    assert_eq!(first.len(), 1);
    assert!(first[0].starts_with("sha256:"), "{first:?}");
    assert_eq!(ids(1), first);
    for name in ["atom03-escaped.xml", "rss2-illformed-unclosed-tags.xml"] {
        let a: Vec<_> = parsed(name).iter().map(stable_id).collect();
        let b: Vec<_> = parsed(name).iter().map(stable_id).collect();
        assert_eq!(a, b, "{name}");
    }
}

#[test]
fn a_broken_document_without_items_stays_an_error() {
    assert!(parse_feed("<rss version=\"2.0\">\n</rss", URL).is_err());
    assert!(parse_feed("<html><body><item>x</item></body></html>", URL).is_err());
    assert!(parse_feed("<rss version=\"2.0\"><channel><title>t</title>", URL).is_err());
}

#[test]
fn feeds_feed_rs_reads_are_not_read_again() {
    // feed-rs's reading (and so the ids already archived) is kept when it finds entries.
    let xml = r#"<rss version="2.0"><channel><title>t</title><item><title>a</title><link>http://example.com/a</link></item></channel></rss>"#;
    let lenient = super::parse(xml, URL).unwrap();
    let strict = parse_feed(xml, URL).unwrap();
    assert_eq!(lenient.entries.len(), 1);
    assert_eq!(strict.entries[0].link, lenient.entries[0].link);
}

/// Cuts and junk at random places in every recovered fixture: never a panic, links always
/// absolute http(s), text never holds a tag's `<`.
#[test]
fn random_damage_never_panics_and_keeps_links_safe() {
    let junk = [
        "<",
        "&",
        "]]>",
        "<![CDATA[",
        "</item>",
        "<item>",
        "<entry>",
        "</title>",
        "&nbsp;",
        "<link href=\"javascript:x\"/>",
        "<!--",
        "<日本",
        "</記事>",
        "<?",
        "<!DOCTYPE x [<!ENTITY e \"ee\">]>",
        "&e;",
        "<title>",
        "\u{0}",
        "&#xD800;",
        "<a",
        "\"",
        "=",
    ];
    let names = [
        "atom03-escaped.xml",
        "atom03-base64.xml",
        "atom03-xml.xml",
        "rss2-prefixed.xml",
        "atom-xhtml-content-type.xml",
        "rss2-illformed-unclosed-tags.xml",
        "rss2-illformed-entities.xml",
        "rss2-illformed-stray-ampersand.xml",
        "rss2-illformed-bad-cdata.xml",
    ];
    let mut rng = crate::test_rng::XorShift(0x5eed_1e41);
    for name in names {
        let text = fixture(name);
        for _ in 0..500 {
            let mut t = text.clone();
            for _ in 0..(rng.next() % 4) {
                let mut at = (rng.next() as usize) % (t.len() + 1);
                while !t.is_char_boundary(at) {
                    at -= 1;
                }
                if rng.next().is_multiple_of(3) {
                    t.truncate(at);
                } else {
                    t.insert_str(at, rng.pick(&junk));
                }
            }
            let Some(feed) = super::parse(&t, URL) else {
                continue;
            };
            for e in &feed.entries {
                if let Some(l) = &e.link {
                    assert!(l.starts_with("http://") || l.starts_with("https://"), "{l}");
                }
            }
        }
    }
}

#[test]
fn spans_never_cut_a_character() {
    let t = "日本語";
    assert_eq!(super::span(t, 1, 7), "日本");
    assert_eq!(super::span(t, 4, 2), "");
    assert_eq!(super::span(t, 3, 100), "本語");
}

#[test]
fn hostile_nesting_is_read_in_linear_work() {
    let hostile = |n: usize| {
        format!(
            "<rss><channel><item><title>t</title><description>{}{}</description>{}",
            "<div><a>".repeat(n),
            "</b>&x".repeat(n),
            "<item><title>&nbsp;".repeat(n)
        )
    };
    let work = |n: usize| {
        let mut w = 0;
        let feed = super::parse_counted(&hostile(n), URL, &mut w).unwrap();
        assert_eq!(feed.entries.len(), n + 1);
        w
    };
    let (small, large) = (work(2_000), work(8_000));
    assert!(
        large <= small * 4 + small / 2,
        "work grew from {small} to {large} for 4× the input"
    );
}
