//! Randomised tests over the fetch path (issue 11): decoding arbitrary bytes, parsing arbitrary
//! and mangled real feeds, and the snapshot round trip (write → parse → the same items), for
//! arbitrary strings including control characters and odd Unicode. No case may panic, every
//! output must re-parse, and the work of cleaning descriptions on the parse path must grow
//! linearly with the input (asserted on `text`'s work counter, never on wall time). Case counts
//! are modest so the suite stays fast.

use chrono::{DateTime, FixedOffset, TimeZone};
use proptest::prelude::*;

use super::decode::{decode, xml_declared_encoding};
use super::parse::{parse_feed, test_context, to_item};
use crate::config::FetchSettings;
use crate::content::{Item, NewsLink, Snapshot, Trend};

const URL: &str = "http://example.com/feed.xml";

/// The feed fixtures of the integration tests: real shapes to mangle.
const FIXTURES: &[&[u8]] = &[
    include_bytes!("../../tests/fixtures/feeds/rss2.xml"),
    include_bytes!("../../tests/fixtures/feeds/atom.xml"),
    include_bytes!("../../tests/fixtures/feeds/rss1-rdf.xml"),
    include_bytes!("../../tests/fixtures/feeds/rss090.xml"),
    include_bytes!("../../tests/fixtures/feeds/jsonfeed.json"),
    include_bytes!("../../tests/fixtures/feeds/google-trends-jp.xml"),
    include_bytes!("../../tests/fixtures/feeds/rss2-shift_jis.xml"),
    include_bytes!("../../tests/fixtures/feeds/rss2-euc-jp.xml"),
    include_bytes!("../../tests/fixtures/feeds/rss2-utf16le-bom.xml"),
    include_bytes!("../../tests/fixtures/feeds/rss2-iso-2022-jp.xml"),
];

/// Charset labels a server or a declaration might give, real and not.
const LABELS: &[&str] = &[
    "utf-8",
    "UTF8",
    "shift_jis",
    "cp932",
    "euc-jp",
    "iso-2022-jp",
    "utf-16",
    "utf-16be",
    "windows-1252",
    "latin1",
    "x-unknown",
    "",
    "\"utf-8\"",
    " Shift_JIS ",
];

/// Text with control characters, odd Unicode (BOMs, bidi controls, non-characters, surrogates'
/// neighbours, astral planes) and TOML's own syntax.
fn odd_string() -> impl Strategy<Value = String> {
    let odd = prop::sample::select(vec![
        '\0',
        '\u{7}',
        '\u{1b}',
        '\u{7f}',
        '\u{85}',
        '\u{a0}',
        '\u{200b}',
        '\u{202e}',
        '\u{2028}',
        '\u{3000}',
        '\u{d7ff}',
        '\u{e000}',
        '\u{feff}',
        '\u{fffd}',
        '\u{fffe}',
        '\u{ffff}',
        '\u{1f600}',
        '\u{10ffff}',
        '"',
        '\'',
        '\\',
        '\n',
        '\r',
        '\t',
        '=',
        '[',
        ']',
        '#',
        '+',
        '日',
        '本',
    ]);
    let c = prop_oneof![3 => any::<char>(), 2 => odd, 2 => prop::char::range('a', 'z')];
    prop::collection::vec(c, 0..40).prop_map(String::from_iter)
}

/// A plausible date with a whole-minute offset (implausible dates are another test's concern).
fn date() -> impl Strategy<Value = DateTime<FixedOffset>> {
    (631_152_000i64..4_102_444_800, -14 * 60..=14 * 60i32).prop_map(|(secs, min)| {
        FixedOffset::east_opt(min * 60)
            .unwrap()
            .timestamp_opt(secs, 0)
            .unwrap()
    })
}

fn item() -> impl Strategy<Value = Item> {
    let trend = prop::option::of(
        (
            prop::option::of(0..=crate::content::MAX_VOLUME),
            odd_string(),
            prop::collection::vec((odd_string(), odd_string(), odd_string()), 0..3),
        )
            .prop_map(|(volume, picture, news)| Trend {
                volume,
                picture,
                news: news
                    .into_iter()
                    .map(|(title, url, source)| NewsLink { title, url, source })
                    .collect(),
            }),
    );
    (
        (odd_string(), odd_string(), odd_string(), odd_string()),
        (odd_string(), odd_string(), date()),
        (
            prop::collection::vec(odd_string(), 0..4),
            odd_string(),
            odd_string(),
            trend,
        ),
    )
        .prop_map(
            |(
                (id, feed, category, site),
                (title, link, published),
                (keywords, summary, text, trend),
            )| {
                Item {
                    id,
                    feed,
                    category,
                    site,
                    title,
                    link,
                    published,
                    keywords,
                    summary,
                    text,
                    trend,
                    story: String::new(),
                }
            },
        )
}

/// What a broken feed has in odd places.
const JUNK: &[&str] = &[
    "<",
    ">",
    "&",
    "&nosuch;",
    "&#0;",
    "]]>",
    "<![CDATA[",
    "<item>",
    "</item>",
    "<entry>",
    "</title>",
    "<description>",
    "\"",
    "\u{0}",
    "\u{1b}",
    "\u{feff}",
    "<a",
    "<script>",
    "日本",
    "\u{fffd}",
];

/// A fixture mangled the way broken servers and editors do: a range dropped, repeated or
/// overwritten with junk, now and then cut short.
fn mangled_feed() -> impl Strategy<Value = Vec<u8>> {
    let edit = (
        0usize..10,
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        prop::sample::select(JUNK),
    );
    (
        prop::sample::select(FIXTURES.to_vec()),
        prop::collection::vec(edit, 1..4),
    )
        .prop_map(|(fixture, edits)| {
            let mut b = fixture.to_vec();
            for (kind, at, len, junk) in edits {
                if b.is_empty() {
                    break;
                }
                let i = at.index(b.len());
                let j = (i + len.index(16)).min(b.len());
                match kind {
                    0 => b.truncate(i),
                    1..=3 => {
                        b.drain(i..j);
                    }
                    4..=5 => {
                        let copy = b[i..j].to_vec();
                        b.splice(i..i, copy);
                    }
                    _ => {
                        b.splice(i..i, junk.bytes());
                    }
                }
            }
            b
        })
}

fn settings() -> FetchSettings {
    FetchSettings::default()
}

/// Every entry of a parsed feed, as the items a run would archive, survives the snapshot round
/// trip.
fn assert_items_round_trip(items: Vec<Item>) -> Result<(), TestCaseError> {
    let hour = FixedOffset::east_opt(9 * 3600)
        .unwrap()
        .with_ymd_and_hms(2021, 7, 20, 8, 0, 0)
        .unwrap();
    let snapshot = Snapshot {
        hour,
        updated: hour,
        items,
        body: String::new(),
    };
    let text = snapshot.to_text();
    let back = Snapshot::parse(&text, "content/2021/07/20/0800.md")
        .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    prop_assert_eq!(back, snapshot);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Arbitrary bytes under arbitrary labels: decoded or refused, never a panic; what decodes
    /// is UTF-8 that decodes again to itself (no second decoding, no mojibake added).
    #[test]
    fn decode_never_panics_and_its_output_decodes_to_itself(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
        label in prop::option::of(prop::sample::select(LABELS)),
    ) {
        let _ = xml_declared_encoding(&bytes);
        if let Ok(text) = decode(&bytes, label) {
            prop_assert_eq!(decode(text.as_bytes(), None), Ok(text.clone()));
            prop_assert!(text.len() <= 3 * bytes.len() + 64, "output grows linearly");
        }
    }

    /// Mangled real feeds (in their own charsets) decode or fail, parse or fail, never panic
    /// (parse_feed turns the parser's panics into errors); what parses becomes items that
    /// survive the snapshot round trip.
    #[test]
    fn mangled_feeds_parse_or_fail_and_their_items_round_trip(bytes in mangled_feed()) {
        let Ok(text) = decode(&bytes, None) else { return Ok(()) };
        let Ok(feed) = parse_feed(&text, URL) else { return Ok(()) };
        let settings = settings();
        let cx = test_context(&settings);
        let items: Vec<Item> = feed.entries.iter().map(|e| to_item(e, &cx)).collect();
        for item in &items {
            prop_assert!(item.text.chars().count() <= settings.max_text_chars);
            prop_assert!(!item.title.contains('\n'));
        }
        assert_items_round_trip(items)?;
    }

    /// Arbitrary text, not a feed: an error, never a panic.
    #[test]
    fn arbitrary_text_is_not_a_feed_and_does_not_panic(text in odd_string()) {
        let _ = parse_feed(&text, URL);
        let _ = parse_feed(&format!("<rss version=\"2.0\"><channel><item><title>{text}</title><description>{text}</description></item></channel></rss>"), URL);
    }

    /// Items with arbitrary strings in every field (control characters, BOMs, bidi controls,
    /// non-characters, TOML syntax) are written and read back unchanged.
    #[test]
    fn snapshot_round_trip_keeps_arbitrary_items(items in prop::collection::vec(item(), 0..4)) {
        assert_items_round_trip(items)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// A feed whose description is a piece of hostile markup repeated n and then 8n times: the
    /// work of cleaning it on the parse path grows at most about 8-fold (it grew 64-fold when
    /// the scan was quadratic).
    #[test]
    fn parse_path_work_is_linear_in_the_description(
        unit in prop::sample::select(vec!["<a", "<div ", "<a \"", "<script></script>", "<!", "<p title='>", "&amp;<b>"]),
    ) {
        let feed = |n: usize| format!(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title><item><title>x</title><description><![CDATA[{}]]></description></item></channel></rss>",
            unit.repeat(n)
        );
        let work = |n: usize| {
            let text = feed(n);
            crate::text::reset_work();
            let parsed = parse_feed(&text, URL).expect("parses");
            prop_assert_eq!(parsed.entries.len(), 1);
            Ok(crate::text::work_done())
        };
        let small = work(1_000)?;
        let large = work(8_000)?;
        prop_assert!(small > 0);
        prop_assert!(large <= 10 * small + 64, "work {} for n, {} for 8n", small, large);
    }
}

/// Pieces hostile bodies repeat: entries, objects, unclosed and nested elements, attributes,
/// markup in texts, CDATA and entities.
const HOSTILE_XML: &[&str] = &[
    "<item/>",
    "<entry/>",
    "<item><title>t</title><guid>g</guid></item>",
    "<item>",
    "<category>c</category>",
    "<category/>",
    "<link href=\"http://example.com/\" rel=\"alternate\"/>",
    "<media:content url=\"x\"><media:thumbnail url=\"y\"/></media:content>",
    "<x>",
    "</x>",
    "<x xml:base=\"a/\">",
    "<a b=\"\" c=\"\" d=\"\"/>",
    "<description><p>text <b>bold</b></p></description>",
    "<![CDATA[<item/>]]>",
    "&amp;&nbsp;",
    "</item>",
];

const HOSTILE_JSON: &[&str] = &[
    "{}",
    "{\"id\":\"1\",\"title\":\"t\"}",
    "{\"tags\":[\"a\",\"b\",\"c\"]}",
    "{\"authors\":[{\"name\":\"a\"},{\"name\":\"b\"}]}",
    "[[[]]]",
    "\"x\"",
];

/// A body of `unit` × `n` inside an RSS channel, an Atom feed or a JSON Feed's items.
fn hostile_body(shape: usize, unit: &str, n: usize) -> String {
    match shape {
        0 => format!(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title>{}</channel></rss>",
            unit.repeat(n)
        ),
        1 => format!(
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title>{}</feed>",
            unit.repeat(n)
        ),
        _ => format!(
            "{{\"version\":\"https://jsonfeed.org/version/1.1\",\"title\":\"t\",\"items\":[{}]}}",
            vec![unit; n].join(",")
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Whatever a body repeats and however often, the parse budget's pass does work linear in
    /// its bytes, keeps at most the entry budget and counts at most the node budget; what it
    /// passes on is no longer than the body (but for the closing tags it adds), and the parse
    /// reads at most the entry budget. A body over the other bounds is refused, saying so.
    #[test]
    fn the_parse_budget_bounds_entries_and_nodes_with_work_linear_in_the_body(
        shape in 0usize..3,
        xml in prop::sample::select(HOSTILE_XML),
        json in prop::sample::select(HOSTILE_JSON),
        n in 1usize..6_000,
        max_items in 1usize..40,
    ) {
        use super::parse::{Budget, budget, parse_feed_within};
        let unit = if shape == 2 { json } else { xml };
        let text = hostile_body(shape, unit, n);
        let b = Budget::for_items(max_items);
        match budget::bound(&text, &b) {
            Ok(bounded) => {
                prop_assert!(bounded.entries <= max_items);
                prop_assert!(bounded.nodes <= b.nodes);
                prop_assert!(bounded.work <= 2 * text.len() + 16, "work {} for {} bytes", bounded.work, text.len());
                prop_assert!(bounded.text.len() <= text.len() + budget::DEPTH * 16);
                if let Ok(feed) = parse_feed_within(&text, URL, &b) {
                    prop_assert!(feed.entries.len() <= max_items, "{} entries", feed.entries.len());
                }
            }
            Err(e) => {
                let e = e.to_string();
                prop_assert!(e.starts_with("refused: ") || e.starts_with("not a feed: "), "{}", e);
                prop_assert!(parse_feed_within(&text, URL, &b).is_err());
            }
        }
    }
}
