//! Parsing decoded feed text into plain entries, and entries into archive items.
//!
//! RSS 0.9x, RSS 1.0 (RDF), RSS 2.0, Atom and JSON Feed through feed-rs. A panic inside the
//! parser (feed-rs has some on real inputs) becomes an error for that feed only. What feed-rs
//! refuses or reads empty goes to the lenient reader (`parse/lenient.rs`: Atom 0.3, prefixed RSS,
//! ill-formed XML). Neither sees more of a body than the parse budget (`parse/budget.rs`) allows.

use chrono::{DateTime, FixedOffset, Utc};
use sha2::{Digest, Sha256};

use crate::config::FetchSettings;
use crate::content::Item;
use crate::text;

pub mod budget;
mod lenient;

pub use budget::Budget;

/// A feed as parsed, before it becomes archive items.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedFeed {
    pub title: Option<String>,
    pub entries: Vec<FeedEntry>,
}

/// One entry as the feed gave it (text already plain, not yet bounded).
#[derive(Debug, Clone, PartialEq)]
pub struct FeedEntry {
    /// The GUID / id, when the feed has one.
    pub guid: Option<String>,
    pub link: Option<String>,
    pub title: String,
    /// The description or content, as plain text.
    pub text: String,
    pub published: Option<DateTime<Utc>>,
    /// Google Trends' extension elements (`ht:approx_traffic`, `ht:picture`, `ht:news_item`),
    /// when the feed has them.
    pub trend: Option<crate::content::Trend>,
}

/// The RDF namespace of RSS 0.90, which feed-rs does not know; its elements are those of RSS 1.0.
const RSS_090_NS: &str = "http://my.netscape.com/rdf/simple/0.9/";
const RSS_10_NS: &str = "http://purl.org/rss/1.0/";

/// Parses a feed from UTF-8 text. `url` resolves relative links.
///
/// feed-rs first: what it reads is kept as it reads it (so the ids of items archived before stay
/// the same). When it refuses the feed, or finds no entry, the lenient reader (`lenient`) reads
/// what it can: Atom 0.3, RSS under a namespace prefix, RSS 1.0 items without a link, Atom content
/// types feed-rs refuses, and ill-formed XML. A feed neither reads an entry from keeps feed-rs's
/// verdict (its error, or no entries). The budget of the default `fetch.max_items_per_feed`
/// applies ([`parse_feed_within`] takes another).
pub fn parse_feed(text: &str, url: &str) -> Result<ParsedFeed, String> {
    let settings = FetchSettings::default();
    parse_feed_within(text, url, &Budget::for_items(settings.max_items_per_feed))
}

/// [`parse_feed`] within `budget`: the parsers see at most its entries (the document is cut
/// after them), and a body over its other bounds is refused with an error naming the bound.
pub fn parse_feed_within(text: &str, url: &str, budget: &Budget) -> Result<ParsedFeed, String> {
    let bounded = budget::bound(text, budget).map_err(|e| e.to_string())?;
    let text: &str = &bounded.text;
    let strict = if text.contains(RSS_090_NS) {
        parse_feed_inner(&text.replace(RSS_090_NS, RSS_10_NS), url, budget.nodes)
    } else {
        parse_feed_inner(text, url, budget.nodes)
    };
    if matches!(&strict, Ok(feed) if !feed.entries.is_empty()) {
        return strict;
    }
    // Like feed-rs, the lenient reader may not take the run down with it.
    let lenient = std::panic::catch_unwind(|| lenient::parse(text, url))
        .ok()
        .flatten();
    match lenient {
        Some(mut feed) if !feed.entries.is_empty() => {
            if feed.title.is_none()
                && let Ok(strict) = &strict
            {
                feed.title.clone_from(&strict.title);
            }
            Ok(feed)
        }
        _ => strict,
    }
}

fn parse_feed_inner(text: &str, url: &str, nodes: usize) -> Result<ParsedFeed, String> {
    let parser = feed_rs::parser::Builder::new()
        .base_uri(Some(url))
        // No made-up ids: we derive our own stable one (never random).
        .id_generator(|_, _, _| String::new())
        .build();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        parser.parse(text.as_bytes())
    }));
    let feed = match result {
        Ok(Ok(feed)) => feed,
        Ok(Err(e)) => return Err(format!("not a feed: {e}")),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            return Err(format!("the feed parser crashed on this feed ({msg})"));
        }
    };
    let base = url::Url::parse(url).ok();
    let entries = feed
        .entries
        .into_iter()
        .map(|e| {
            let link = pick_link(&e.links, base.as_ref());
            let title = e.title.map(|t| title_text(&t)).unwrap_or_default();
            let body = e
                .content
                .as_ref()
                .and_then(|c| c.body.as_deref())
                .filter(|b| !b.trim().is_empty())
                .or(e.summary.as_ref().map(|s| s.content.as_str()))
                .unwrap_or("");
            FeedEntry {
                guid: Some(e.id.trim().to_string()).filter(|s| !s.is_empty()),
                link,
                title,
                text: text::html_to_text(body),
                published: e.published.or(e.updated),
                trend: None,
            }
        })
        .collect();
    let mut entries: Vec<FeedEntry> = entries;
    // feed-rs does not keep unknown namespaces: read Google Trends' elements ourselves.
    if text.contains("approx_traffic") || text.contains("news_item") {
        add_trends(text, &mut entries, base.as_ref(), nodes);
    }
    Ok(ParsedFeed {
        title: feed.title.map(|t| title_text(&t)).filter(|t| !t.is_empty()),
        entries,
    })
}

/// The ht: elements of each RSS `<item>` of a Google Trends feed, matched to the entries feed-rs
/// read (in document order; by title if the counts differ). A trend item has no GUID and shares
/// its link with every other item, so its id becomes the word and the day it trended: the same
/// word is archived once a day, however many hourly runs see it.
///
/// The document is held as a tree: at most four nodes (elements, attributes, texts) per node of
/// the parse budget, else the trend data is left out.
fn add_trends(text: &str, entries: &mut [FeedEntry], base: Option<&url::Url>, nodes: usize) {
    let Ok(doc) = roxmltree::Document::parse_with_options(
        text,
        roxmltree::ParsingOptions {
            allow_dtd: false,
            nodes_limit: u32::try_from(nodes.saturating_mul(4)).unwrap_or(u32::MAX),
        },
    ) else {
        return;
    };
    let local = |n: &roxmltree::Node| n.tag_name().name().to_string();
    let child_text = |n: &roxmltree::Node, name: &str| -> String {
        n.children()
            .find(|c| c.is_element() && c.tag_name().name() == name)
            .and_then(|c| c.text())
            .map(|t| text::one_line(&text::decode_entities(t)))
            .unwrap_or_default()
    };
    let items: Vec<(String, crate::content::Trend)> = doc
        .descendants()
        .filter(|n| n.is_element() && local(n) == "item")
        .map(|item| {
            let news = item
                .children()
                .filter(|c| c.is_element() && local(c) == "news_item")
                .filter_map(|n| {
                    let url = safe_http_url(&child_text(&n, "news_item_url"), base)?;
                    Some(crate::content::NewsLink {
                        title: child_text(&n, "news_item_title"),
                        url,
                        source: child_text(&n, "news_item_source"),
                    })
                })
                .collect();
            let trend = crate::content::Trend {
                volume: parse_volume(&child_text(&item, "approx_traffic")),
                picture: safe_http_url(&child_text(&item, "picture"), base).unwrap_or_default(),
                news,
            };
            (child_text(&item, "title"), trend)
        })
        .collect();
    let by_position = items.len() == entries.len();
    for (i, e) in entries.iter_mut().enumerate() {
        let found = if by_position {
            items.get(i)
        } else {
            items.iter().find(|(t, _)| *t == e.title)
        };
        if let Some((_, trend)) = found {
            e.trend = Some(trend.clone());
            if e.guid.is_none() {
                let day = e.published.map(|p| p.format("%Y-%m-%d").to_string());
                e.guid = Some(format!("trend:{}:{}", e.title, day.unwrap_or_default()));
            }
        }
    }
}

/// A search volume as Google Trends writes it: "20,000+" → 20000, "2万+" → 20000, "1M+" →
/// 1000000, "500K+" → 500000; clamped to [`crate::content::MAX_VOLUME`] (TOML's largest integer).
pub fn parse_volume(s: &str) -> Option<u64> {
    let s = s.trim().trim_end_matches('+').replace([',', ' '], "");
    let (digits, mult) = if let Some(d) = s.strip_suffix(['K', 'k']) {
        (d.to_string(), 1_000.0)
    } else if let Some(d) = s.strip_suffix(['M', 'm']) {
        (d.to_string(), 1_000_000.0)
    } else if let Some(d) = s.strip_suffix('万') {
        (d.to_string(), 10_000.0)
    } else {
        (s, 1.0)
    };
    let n: f64 = digits.parse().ok()?;
    // `as` saturates (at u64::MAX, above TOML's range): clamp first.
    let max = crate::content::MAX_VOLUME;
    (n >= 0.0).then(|| ((n * mult).round() as u64).min(max))
}

/// A title as one line of plain text. A title the feed marks as HTML (Atom `type="html"`) loses
/// its markup; a plain-text title (RSS) is text, so `Vec<String>` or `<dialog>` stay as written,
/// with only left-over entities of double-escaping feeds decoded. Pages escape it when rendering.
fn title_text(t: &feed_rs::model::Text) -> String {
    let is_html = t.content_type.subty().as_str().contains("html");
    let plain = if is_html {
        text::html_to_text(&t.content)
    } else {
        text::decode_entities(&t.content)
    };
    text::one_line(&plain)
}

/// The entry's article link: the alternate (or first) link, resolved, http(s) only.
fn pick_link(links: &[feed_rs::model::Link], base: Option<&url::Url>) -> Option<String> {
    let preferred = links
        .iter()
        .find(|l| l.rel.as_deref().is_none_or(|r| r == "alternate"))
        .or(links.first())?;
    safe_http_url(&preferred.href, base)
}

/// Resolves `href` against `base` and keeps it only if it is http(s). An empty `href` is no
/// link at all (never the base itself, which is the feed's own URL).
pub fn safe_http_url(href: &str, base: Option<&url::Url>) -> Option<String> {
    let href = text::one_line(href);
    if href.is_empty() {
        return None;
    }
    let parsed = match base {
        Some(b) => b.join(&href).ok()?,
        None => url::Url::parse(&href).ok()?,
    };
    text::is_http_url(&parsed).then(|| parsed.to_string())
}

/// What a run knows when it turns entries into items.
pub struct ItemContext<'a> {
    pub feed_url: &'a str,
    /// Trends feeds keep the trend data; news feeds ignore it.
    pub kind: crate::config::FeedKind,
    pub category: &'a str,
    pub site: &'a str,
    pub now: DateTime<FixedOffset>,
    pub tz: chrono_tz::Tz,
    pub settings: &'a FetchSettings,
}

/// The context the unit and property tests turn entries into items in: an IT news feed at
/// `http://example.com/feed.xml` (site "Example"), fetched 2021-07-20 08:28:58 in Tokyo.
#[cfg(test)]
pub(crate) fn test_context(settings: &FetchSettings) -> ItemContext<'_> {
    ItemContext {
        kind: crate::config::FeedKind::News,
        feed_url: "http://example.com/feed.xml",
        category: "IT",
        site: "Example",
        now: DateTime::parse_from_rfc3339("2021-07-20T08:28:58+09:00").unwrap(),
        tz: chrono_tz::Asia::Tokyo,
        settings,
    }
}

/// The item's stable id: the GUID, else the link, else a hash of title and text. Never random,
/// or the item would be archived again every hour.
pub fn stable_id(entry: &FeedEntry) -> String {
    if let Some(g) = &entry.guid {
        return text::one_line(g);
    }
    if let Some(l) = &entry.link {
        return l.clone();
    }
    let mut h = Sha256::new();
    h.update(entry.title.as_bytes());
    h.update([0u8]);
    h.update(entry.text.as_bytes());
    let digest = h.finalize();
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The earliest publication date taken as real: older ones (year 0, 1899 in local mean time,
/// the Unix epoch of an unset field) are feed bugs, and are archived with the run time.
pub fn earliest_plausible() -> DateTime<Utc> {
    DateTime::from_timestamp(631_152_000, 0).expect("1990-01-01T00:00:00Z")
}

/// How far past the run time a date may be before a run notes it (any future date is clamped to
/// the run time; a clock a little fast is common and not worth a line).
const FUTURE_NOTE_AFTER: chrono::TimeDelta = chrono::TimeDelta::days(1);

/// Whether the entry's date is one [`to_item`] replaces by the run time and a run notes: before
/// [`earliest_plausible`], or more than a day after the run time. (A date the parser could not
/// read at all arrives as missing, which is the run time too.)
pub fn implausible_date(entry: &FeedEntry, now: DateTime<FixedOffset>) -> bool {
    entry
        .published
        .is_some_and(|p| p < earliest_plausible() || p > now.to_utc() + FUTURE_NOTE_AFTER)
}

/// Turns an entry into an archive item: trimmed and bounded text, the date normalised to the
/// site's zone (missing, or before 1990: the run time; in the future: clamped to the run time),
/// so every date written is one RFC 3339 and TOML can hold.
pub fn to_item(entry: &FeedEntry, cx: &ItemContext) -> Item {
    let published = match entry.published {
        Some(p) if p >= earliest_plausible() => {
            let p = p.with_timezone(&cx.tz).fixed_offset();
            if p > cx.now { cx.now } else { p }
        }
        _ => cx.now,
    };
    let title = text::one_line(&entry.title);
    let body = text::truncate_chars(&entry.text, cx.settings.max_text_chars);
    let title = if title.is_empty() {
        // An untitled item still needs something to click: the start of its text.
        text::truncate_chars(&text::one_line(&body), 80)
    } else {
        title
    };
    Item {
        id: stable_id(entry),
        feed: cx.feed_url.to_string(),
        category: cx.category.to_string(),
        site: cx.site.to_string(),
        title: text::truncate_chars(&title, cx.settings.max_title_chars),
        link: entry.link.clone().unwrap_or_default(),
        published,
        keywords: Vec::new(),
        summary: String::new(),
        text: body,
        trend: match cx.kind {
            crate::config::FeedKind::Trends => Some(entry.trend.clone().unwrap_or_default()),
            crate::config::FeedKind::News => None,
        },
        story: String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_volumes_are_numbers() {
        assert_eq!(parse_volume("20,000+"), Some(20_000));
        assert_eq!(parse_volume(" 200,000+ "), Some(200_000));
        assert_eq!(parse_volume("2万+"), Some(20_000));
        assert_eq!(parse_volume("500K+"), Some(500_000));
        assert_eq!(parse_volume("1M+"), Some(1_000_000));
        assert_eq!(parse_volume("1.5M+"), Some(1_500_000));
        assert_eq!(parse_volume("100"), Some(100));
        assert_eq!(parse_volume(""), None);
        assert_eq!(parse_volume("many"), None);
    }

    /// `99999999999999999999+` was written as `volume = 18446744073709551615`, past TOML's
    /// integer range.
    #[test]
    fn a_volume_past_tomls_integer_range_is_clamped() {
        let max = crate::content::MAX_VOLUME;
        assert_eq!(max, i64::MAX as u64);
        assert_eq!(parse_volume("99999999999999999999+"), Some(max));
        assert_eq!(parse_volume("9223372036854775807"), Some(max));
        assert_eq!(parse_volume("1e300"), Some(max));
        assert_eq!(parse_volume("inf"), Some(max));
        assert_eq!(parse_volume("99999999999999M+"), Some(max));
        assert_eq!(parse_volume("NaN"), None);
        assert_eq!(parse_volume("-5"), None);
    }

    const URL: &str = "http://example.com/feed.xml";

    fn rss(items: &str) -> String {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Example &amp; Co</title><link>http://example.com/</link>{items}</channel></rss>"#
        )
    }

    #[test]
    fn rss2_entries() {
        let f = parse_feed(
            &rss(r#"<item><title>日本銀行 &lt;b&gt;発表&lt;/b&gt;</title><link>/a</link><guid>g1</guid>
            <description>&lt;p&gt;本文&amp;amp;です&lt;/p&gt;</description><pubDate>Tue, 20 Jul 2021 07:20:00 +0900</pubDate></item>"#),
            URL,
        )
        .unwrap();
        assert_eq!(f.title.as_deref(), Some("Example & Co"));
        let e = &f.entries[0];
        assert_eq!(e.guid.as_deref(), Some("g1"));
        assert_eq!(e.link.as_deref(), Some("http://example.com/a"));
        assert_eq!(
            e.title, "日本銀行 <b>発表</b>",
            "an RSS title is text, not markup"
        );
        assert_eq!(e.text, "本文&です");
        assert_eq!(
            e.published.unwrap().to_rfc3339(),
            "2021-07-19T22:20:00+00:00"
        );
    }

    #[test]
    fn rss_titles_keep_angle_brackets_atom_html_titles_lose_markup() {
        let f = parse_feed(
            &rss("<item><title>Vec&lt;String&gt; と &amp;amp;str の違い</title><guid>1</guid></item>"),
            URL,
        )
        .unwrap();
        assert_eq!(f.entries[0].title, "Vec<String> と &str の違い");
        let atom = r#"<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title><id>urn:a</id><updated>2021-07-20T00:00:00Z</updated>
<entry><id>urn:1</id><title type="html">&lt;b&gt;Bold&lt;/b&gt; move&lt;script&gt;x()&lt;/script&gt;</title><updated>2021-07-20T00:00:00Z</updated></entry></feed>"#;
        let f = parse_feed(atom, URL).unwrap();
        assert_eq!(f.entries[0].title, "Bold move");
    }

    #[test]
    fn missing_guid_falls_back_to_link_then_hash() {
        let f = parse_feed(
            &rss("<item><title>A</title><link>http://example.com/a</link></item><item><title>B</title><description>b</description></item>"),
            URL,
        )
        .unwrap();
        assert_eq!(f.entries[0].guid, None);
        assert_eq!(stable_id(&f.entries[0]), "http://example.com/a");
        let id = stable_id(&f.entries[1]);
        assert!(id.starts_with("sha256:") && id.len() == 7 + 32, "{id}");
        // Stable: the same entry always gets the same id.
        let again = parse_feed(
            &rss("<item><title>B</title><description>b</description></item>"),
            URL,
        )
        .unwrap();
        assert_eq!(stable_id(&again.entries[0]), id);
    }

    #[test]
    fn javascript_links_are_dropped() {
        let f = parse_feed(
            &rss("<item><title>x</title><link>javascript:alert(1)</link></item>"),
            URL,
        )
        .unwrap();
        assert_eq!(f.entries[0].link, None);
    }

    #[test]
    fn rss_090() {
        let xml = r#"<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://my.netscape.com/rdf/simple/0.9/">
<channel><title>Retro</title><link>http://example.com/</link><description>d</description></channel>
<item><title>PC-9801</title><link>http://example.com/9801</link></item>
<item><title>Mac</title><link>http://example.com/mac</link></item>
</rdf:RDF>"#;
        let f = parse_feed(xml, URL).unwrap();
        assert_eq!(f.title.as_deref(), Some("Retro"));
        let titles: Vec<_> = f.entries.iter().map(|e| e.title.as_str()).collect();
        assert_eq!(titles, ["PC-9801", "Mac"]);
        assert_eq!(stable_id(&f.entries[0]), "http://example.com/9801");
    }

    #[test]
    fn not_a_feed() {
        assert!(parse_feed("<html><body>hi</body></html>", URL).is_err());
        assert!(parse_feed("", URL).is_err());
    }

    #[test]
    fn dates_are_clamped_and_defaulted() {
        let settings = FetchSettings::default();
        let cx = test_context(&settings);
        let now = cx.now;
        let mut e = FeedEntry {
            trend: None,
            guid: None,
            link: None,
            title: "t".into(),
            text: String::new(),
            published: None,
        };
        assert_eq!(to_item(&e, &cx).published, now);
        e.published = Some("2099-01-01T00:00:00Z".parse().unwrap());
        assert_eq!(to_item(&e, &cx).published, now);
        e.published = Some("2021-07-19T22:12:26Z".parse().unwrap());
        assert_eq!(
            crate::content::rfc3339(&to_item(&e, &cx).published),
            "2021-07-20T07:12:26+09:00"
        );
    }

    /// Year 0 with a +23:59 offset was written as `-0001-12-31T09:19:59+09:19` and broke every
    /// later build; 1899 dates took Tokyo's local mean time (+09:18:59), which TOML cannot hold.
    #[test]
    fn dates_before_1990_become_the_run_time_and_are_noted() {
        let settings = FetchSettings::default();
        let cx = test_context(&settings);
        let now = cx.now;
        let entry = |published: Option<&str>| FeedEntry {
            trend: None,
            guid: None,
            link: None,
            title: "t".into(),
            text: String::new(),
            published: published.map(|p| DateTime::parse_from_rfc3339(p).unwrap().to_utc()),
        };
        for bad in [
            "0000-01-01T00:00:00+23:59",
            "1899-12-31T15:00:00Z",
            "1970-01-01T00:00:00Z",
            "1989-12-31T23:59:59Z",
        ] {
            let e = entry(Some(bad));
            assert_eq!(to_item(&e, &cx).published, now, "{bad}");
            assert!(implausible_date(&e, now), "{bad}");
        }
        let far = entry(Some("9999-12-31T23:59:59Z"));
        assert_eq!(to_item(&far, &cx).published, now);
        assert!(implausible_date(&far, now));
        // Kept as given: a plausible date, a clock a few minutes fast (clamped, not noted), none.
        let ok = entry(Some("1990-01-01T00:00:00Z"));
        assert_eq!(
            crate::content::rfc3339(&to_item(&ok, &cx).published),
            "1990-01-01T09:00:00+09:00"
        );
        assert!(!implausible_date(&ok, now));
        let fast = entry(Some("2021-07-20T08:40:00+09:00"));
        assert_eq!(to_item(&fast, &cx).published, now);
        assert!(!implausible_date(&fast, now));
        assert!(!implausible_date(&entry(None), now));
    }

    /// A trends item without `ht:picture` or a news URL stored the feed's own URL ("" resolved
    /// against the base).
    #[test]
    fn an_empty_href_is_no_link_not_the_feed_url() {
        let base = url::Url::parse(URL).unwrap();
        assert_eq!(safe_http_url("", Some(&base)), None);
        assert_eq!(safe_http_url(" \n ", Some(&base)), None);
        assert_eq!(
            safe_http_url("/a", Some(&base)).as_deref(),
            Some("http://example.com/a")
        );
        let trends = r#"<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:ht="https://trends.google.com/trending/rss"><channel><title>Daily Search Trends</title><link>https://trends.google.com/</link>
<item><title>大谷翔平</title><ht:approx_traffic>20,000+</ht:approx_traffic><ht:picture></ht:picture>
<ht:news_item><ht:news_item_title>速報</ht:news_item_title><ht:news_item_url></ht:news_item_url></ht:news_item>
<ht:news_item><ht:news_item_title>本塁打</ht:news_item_title><ht:news_item_url>https://example.jp/n</ht:news_item_url></ht:news_item></item>
</channel></rss>"#;
        let f = parse_feed(trends, URL).unwrap();
        let t = f.entries[0].trend.as_ref().unwrap();
        assert_eq!(t.picture, "");
        assert_eq!(t.news.len(), 1, "{:?}", t.news);
        assert_eq!(t.news[0].url, "https://example.jp/n");
    }

    #[test]
    fn long_titles_are_bounded() {
        let settings = FetchSettings::default();
        let cx = test_context(&settings);
        let e = FeedEntry {
            trend: None,
            guid: Some("g".into()),
            link: None,
            title: "長".repeat(5000),
            text: "本".repeat(5000),
            published: None,
        };
        let item = to_item(&e, &cx);
        assert_eq!(item.title.chars().count(), settings.max_title_chars);
        assert_eq!(item.text.chars().count(), settings.max_text_chars);
    }
}
