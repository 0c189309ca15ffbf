//! The lenient reader: entries from feeds feed-rs refuses or reads empty.
//!
//! feedparser's "loose" mode in spirit: Atom 0.3 (`http://purl.org/atom/ns#`, with `issued` /
//! `modified` / `created` dates and `content mode="escaped|base64|xml"`), RSS under a namespace
//! prefix (`<r:rss>`), RSS 1.0 items without a link, CDF, Atom content types feed-rs refuses
//! (`application/xhtml+xml`, base64 `application/octet-stream`), and ill-formed XML: unclosed or
//! mismatched tags, undefined entities (`&nbsp;`), a stray `&`, an unclosed CDATA section or a
//! document cut short. It reads what a reader would (title, link, id, date, text) from each
//! `item` / `entry` element by local name, whatever its namespace.
//!
//! quick-xml tokenises (with end-name checks off and dangling `&` allowed); the text of a field is
//! taken from the source between its tags and decoded here (CDATA kept verbatim, entities XML or
//! HTML, unknown ones left as written), so no entity is ever expanded from a DTD. One pass over
//! the input; the open-element stack is searched at most [`MATCH_DEPTH`] frames deep for an end
//! tag, so the time stays linear in the input whatever its nesting. Bytes are never re-decoded:
//! the text is the UTF-8 that `fetch::decode` produced.

use base64::Engine as _;
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use quick_xml::events::{BytesStart, Event};

use super::{Entry, ParsedFeed, safe_http_url};
use crate::text;

/// How many open elements an end tag is matched against before it is ignored as stray.
const MATCH_DEPTH: usize = 32;

/// Root elements of a feed (local names, lower case): RSS, RDF (RSS 0.90/1.0), Atom, CDF.
const ROOTS: [&str; 4] = ["rss", "rdf", "feed", "channel"];

/// Reads `text` leniently. `None` when it is not a feed at all (no known root element).
pub fn parse(text: &str, url: &str) -> Option<ParsedFeed> {
    parse_counted(text, url, &mut 0)
}

/// [`parse`], adding to `work` one per event and one per open element an end tag is compared
/// with (the tests check it grows linearly with the input).
fn parse_counted(text: &str, url: &str, work: &mut usize) -> Option<ParsedFeed> {
    let base = url::Url::parse(url).ok();
    let mut reader = quick_xml::Reader::from_str(text);
    let config = reader.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.allow_dangling_amp = true;
    config.check_comments = false;

    let mut stack: Vec<String> = Vec::new();
    let mut root_seen = false;
    let mut feed_title: Option<String> = None;
    let mut item: Option<ItemBuilder> = None;
    let mut entries = Vec::new();
    // The item's field being read, and the feed's title while it is read.
    let mut field: Option<OpenField> = None;
    let mut title_field: Option<OpenField> = None;
    let mut last = 0usize;
    loop {
        *work += 1;
        let before = last;
        let event = reader.read_event();
        let pos = reader.buffer_position() as usize;
        last = pos;
        let event = match event {
            Ok(e) => e,
            // A syntax error: go on after it if the reader moved, else stop with what we have.
            Err(_) if pos > before && pos < text.len() => continue,
            Err(_) => break,
        };
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                let name = local_name(e.name().as_ref());
                if !root_seen {
                    if !ROOTS.contains(&name.as_str()) {
                        return None;
                    }
                    root_seen = true;
                }
                // A child element ends a simple field (`<title>a<link>` reads "a"), and any
                // field that was left open (`<title>a</titel><link>`): markup stays in titles
                // and texts only.
                if let Some(f) = &field
                    && (!f.kind.takes_markup()
                        || FieldKind::of(&name).is_some_and(|k| k != FieldKind::Content))
                {
                    let mut f = field.take().expect("checked");
                    f.unclosed = true;
                    if let Some(it) = item.as_mut() {
                        it.set(&f, span(text, f.start, before));
                    }
                    stack.truncate(f.depth);
                } else if let Some(f) = field.as_mut() {
                    f.has_children = true;
                }
                if let Some(f) = title_field.as_mut() {
                    f.has_children = true;
                }
                if name == "item" || name == "entry" {
                    if let Some(mut it) = item.take() {
                        // An item opened inside an unclosed one: the old one ends here.
                        if let Some(mut f) = field.take() {
                            f.unclosed = true;
                            it.set(&f, span(text, f.start, before));
                        }
                        stack.truncate(it.depth);
                        entries.push(it.finish(base.as_ref()));
                    }
                    let mut it = ItemBuilder::new(stack.len());
                    it.attributes(e);
                    if empty {
                        entries.push(it.finish(base.as_ref()));
                    } else {
                        item = Some(it);
                        stack.push(name);
                    }
                    continue;
                }
                if let Some(it) = item.as_mut() {
                    if field.is_none()
                        && stack.len() == it.depth + 1
                        && let Some(kind) = FieldKind::of(&name)
                    {
                        let attrs = Attrs::of(e);
                        if kind == FieldKind::Link && attrs.href.is_some() {
                            it.atom_link(&attrs);
                        } else if !empty {
                            field = Some(OpenField {
                                kind,
                                attrs,
                                depth: stack.len(),
                                start: pos,
                                has_children: false,
                                unclosed: false,
                            });
                        }
                    }
                } else if name == "title"
                    && feed_title.is_none()
                    && title_field.is_none()
                    && !empty
                    && stack.last().is_some_and(|p| p == "channel" || p == "feed")
                {
                    title_field = Some(OpenField {
                        kind: FieldKind::Title,
                        attrs: Attrs::of(e),
                        depth: stack.len(),
                        start: pos,
                        has_children: false,
                        unclosed: false,
                    });
                }
                if !empty {
                    stack.push(name);
                }
            }
            Event::End(ref e) => {
                let name = local_name(e.name().as_ref());
                if (name == "item" || name == "entry")
                    && let Some(mut it) = item.take()
                {
                    if let Some(mut f) = field.take() {
                        f.unclosed = true;
                        it.set(&f, span(text, f.start, before));
                    }
                    stack.truncate(it.depth);
                    entries.push(it.finish(base.as_ref()));
                    continue;
                }
                let found = stack
                    .iter()
                    .rev()
                    .take(MATCH_DEPTH)
                    .inspect(|_| *work += 1)
                    .position(|n| *n == name)
                    .map(|from_top| stack.len() - 1 - from_top);
                let Some(at) = found else { continue };
                if let Some(f) = &field
                    && at <= f.depth
                {
                    let mut f = field.take().expect("checked");
                    f.unclosed = at < f.depth;
                    if let Some(it) = item.as_mut() {
                        it.set(&f, span(text, f.start, before));
                    }
                }
                if let Some(f) = &title_field
                    && at <= f.depth
                {
                    let f = title_field.take().expect("checked");
                    feed_title = Some(text::one_line(&f.value(span(text, f.start, before))));
                }
                if let Some(it) = &item
                    && at <= it.depth
                {
                    // The item's parent closed: the item ends too.
                    let it = item.take().expect("checked");
                    entries.push(it.finish(base.as_ref()));
                }
                stack.truncate(at);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !root_seen {
        return None;
    }
    // Cut short: what is open ends at the end of the text.
    if let Some(mut it) = item.take() {
        if let Some(mut f) = field.take() {
            f.unclosed = true;
            it.set(&f, span(text, f.start, text.len()));
        }
        entries.push(it.finish(base.as_ref()));
    }
    Some(ParsedFeed {
        title: feed_title.filter(|t| !t.is_empty()),
        entries,
    })
}

/// `text[start..end]`, each end moved back to a character boundary (a reader position after a
/// syntax error need not be one).
fn span(text: &str, start: usize, end: usize) -> &str {
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (start, end) = (floor(start), floor(end));
    &text[start.min(end)..end]
}

/// An element's local name (no prefix), lower case.
fn local_name(qname: &str) -> String {
    let local = qname.rsplit(':').next().unwrap_or(qname);
    local.trim().to_ascii_lowercase()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FieldKind {
    Title,
    Link,
    Id,
    /// description, summary, abstract: the short text.
    Summary,
    /// content, content:encoded, xhtml:body: the full text.
    Content,
    /// pubDate, published, issued, created, dc:date.
    Published,
    /// updated, modified, lastBuildDate: when nothing says published.
    Updated,
}

impl FieldKind {
    fn of(local: &str) -> Option<FieldKind> {
        Some(match local {
            "title" => FieldKind::Title,
            "link" => FieldKind::Link,
            "guid" | "id" => FieldKind::Id,
            "description" | "summary" | "abstract" => FieldKind::Summary,
            "content" | "encoded" | "body" => FieldKind::Content,
            "pubdate" | "published" | "issued" | "created" | "date" => FieldKind::Published,
            "updated" | "modified" => FieldKind::Updated,
            _ => return None,
        })
    }

    /// Fields whose value may be markup (Atom xhtml, `mode="xml"`, naked HTML in RSS).
    fn takes_markup(self) -> bool {
        matches!(
            self,
            FieldKind::Title | FieldKind::Summary | FieldKind::Content
        )
    }
}

/// The attributes the fields care about.
#[derive(Debug, Default)]
struct Attrs {
    href: Option<String>,
    rel: Option<String>,
    ty: Option<String>,
    mode: Option<String>,
}

impl Attrs {
    fn of(e: &BytesStart) -> Attrs {
        let mut a = Attrs::default();
        for attr in e.html_attributes().with_checks(false).flatten() {
            let key = local_name(attr.key.as_ref());
            let value = text::decode_entities(&attr.value);
            match key.as_str() {
                "href" => a.href = Some(value),
                "rel" => a.rel = Some(value.trim().to_ascii_lowercase()),
                "type" => a.ty = Some(value.trim().to_ascii_lowercase()),
                "mode" => a.mode = Some(value.trim().to_ascii_lowercase()),
                _ => {}
            }
        }
        a
    }

    /// Atom 1.0 `type`s other than text, html and XML ones, and Atom 0.3 `mode="base64"`, carry
    /// base64.
    fn is_base64(&self) -> bool {
        if self.mode.as_deref() == Some("base64") {
            return true;
        }
        match self.ty.as_deref() {
            None | Some("" | "text" | "html" | "xhtml") => false,
            Some(t) => {
                !(t.starts_with("text/")
                    || t.ends_with("+xml")
                    || t.ends_with("/xml")
                    || t.contains("html"))
            }
        }
    }

    fn is_html(&self) -> bool {
        self.ty.as_deref().is_some_and(|t| t.contains("html"))
    }
}

struct OpenField {
    kind: FieldKind,
    attrs: Attrs,
    /// The element's depth (its index in the open-element stack).
    depth: usize,
    /// Byte offset of its text in the source.
    start: usize,
    /// Markup inside it (xhtml, `mode="xml"`, naked HTML).
    has_children: bool,
    /// Ended by something other than its end tag: stray tags in it are dropped.
    unclosed: bool,
}

impl OpenField {
    /// The field's text as one string: markup made text, entities decoded.
    fn value(&self, raw: &str) -> String {
        // A feed cut inside `<![CDATA[`: the opener's start is not text.
        let raw = match raw.rfind("<!") {
            Some(at) if self.unclosed && "<![CDATA[".starts_with(raw[at..].trim_end()) => {
                &raw[..at]
            }
            _ => raw,
        };
        if self.has_children {
            return text::html_to_text(raw);
        }
        let mut value = xml_text(raw);
        if self.attrs.is_base64()
            && let Some(decoded) = base64::engine::general_purpose::STANDARD
                .decode(value.split_whitespace().collect::<String>())
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
        {
            value = decoded;
        }
        if self.unclosed {
            return text::html_to_text(&value);
        }
        let html = match self.kind {
            FieldKind::Summary | FieldKind::Content => true,
            FieldKind::Title => {
                self.attrs.is_html() || self.attrs.mode.as_deref() == Some("escaped")
            }
            _ => false,
        };
        if html {
            text::html_to_text(&value)
        } else {
            text::decode_entities(&value)
        }
    }
}

/// What one item has so far.
struct ItemBuilder {
    /// Its depth (index of its element in the open-element stack).
    depth: usize,
    title: Option<String>,
    /// (is preferred: rel alternate or none, href)
    link: Option<(bool, String)>,
    id: Option<String>,
    summary: Option<String>,
    content: Option<String>,
    published: Option<String>,
    updated: Option<String>,
}

impl ItemBuilder {
    fn new(depth: usize) -> ItemBuilder {
        ItemBuilder {
            depth,
            title: None,
            link: None,
            id: None,
            summary: None,
            content: None,
            published: None,
            updated: None,
        }
    }

    /// CDF's `<ITEM HREF=… LASTMOD=…>`.
    fn attributes(&mut self, e: &BytesStart) {
        for attr in e.html_attributes().with_checks(false).flatten() {
            let key = local_name(attr.key.as_ref());
            let value = text::decode_entities(&attr.value);
            match key.as_str() {
                "href" => self.link = Some((true, value)),
                "lastmod" => self.updated = Some(value),
                _ => {}
            }
        }
    }

    /// An Atom `<link href rel>`: the alternate one (or one without rel) wins, else the first.
    fn atom_link(&mut self, attrs: &Attrs) {
        let preferred = attrs
            .rel
            .as_deref()
            .is_none_or(|r| r.is_empty() || r == "alternate");
        let href = attrs.href.clone().unwrap_or_default();
        match &self.link {
            Some((true, _)) => {}
            Some((false, _)) if !preferred => {}
            _ => self.link = Some((preferred, href)),
        }
    }

    /// A field's text; the first of each kind wins.
    fn set(&mut self, field: &OpenField, raw: &str) {
        let slot = match field.kind {
            FieldKind::Title => &mut self.title,
            FieldKind::Id => &mut self.id,
            FieldKind::Summary => &mut self.summary,
            FieldKind::Content => &mut self.content,
            FieldKind::Published => &mut self.published,
            FieldKind::Updated => &mut self.updated,
            FieldKind::Link => {
                if !matches!(self.link, Some((true, _))) {
                    self.link = Some((true, text::one_line(&field.value(raw))));
                }
                return;
            }
        };
        if slot.is_none() {
            *slot = Some(field.value(raw));
        }
    }

    fn finish(self, base: Option<&url::Url>) -> Entry {
        let body = self
            .content
            .filter(|c| !c.trim().is_empty())
            .or(self.summary)
            .unwrap_or_default();
        Entry {
            guid: self
                .id
                .map(|g| g.trim().to_string())
                .filter(|g| !g.is_empty()),
            link: self.link.and_then(|(_, href)| safe_http_url(&href, base)),
            title: text::one_line(&self.title.unwrap_or_default()),
            text: body,
            published: self
                .published
                .as_deref()
                .and_then(parse_date)
                .or_else(|| self.updated.as_deref().and_then(parse_date)),
            trend: None,
        }
    }
}

/// The text of an element without child elements: CDATA sections verbatim (an unclosed one runs
/// to the end), comments dropped, entities decoded elsewhere (unknown ones kept as written).
fn xml_text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(lt) = rest.find('<') {
        out.push_str(&text::decode_entities(&rest[..lt]));
        let tail = &rest[lt..];
        if let Some(cdata) = tail.strip_prefix("<![CDATA[") {
            // An unclosed section ends at its first `]]` (a mistyped end), else at the end.
            let (end, skip) = match cdata.find("]]>") {
                Some(e) => (e, 3),
                None => cdata.find("]]").map_or((cdata.len(), 0), |e| (e, 2)),
            };
            out.push_str(&cdata[..end]);
            rest = &cdata[end + skip..];
        } else if let Some(comment) = tail.strip_prefix("<!--") {
            rest = comment.find("-->").map_or("", |e| &comment[e + 3..]);
        } else {
            out.push('<');
            rest = &tail[1..];
        }
    }
    out.push_str(&text::decode_entities(rest));
    out
}

/// A feed date: RFC 3339, RFC 2822, or W3C-DTF with parts left out (no seconds, no zone: UTC; a
/// date alone: midnight UTC), as Atom 0.3's `issued` and `created` allow.
pub fn parse_date(s: &str) -> Option<DateTime<Utc>> {
    let s = s.trim();
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Some(d.to_utc());
    }
    if let Ok(d) = DateTime::parse_from_rfc2822(s) {
        return Some(d.to_utc());
    }
    let zoned = match s.strip_suffix(['Z', 'z']) {
        Some(rest) => format!("{rest}+00:00"),
        None => s.to_string(),
    };
    for f in [
        "%Y-%m-%dT%H:%M:%S%.f%:z",
        "%Y-%m-%dT%H:%M%:z",
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%dT%H:%M%z",
    ] {
        if let Ok(d) = DateTime::parse_from_str(&zoned, f) {
            return Some(d.to_utc());
        }
    }
    for f in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S",
    ] {
        if let Ok(d) = NaiveDateTime::parse_from_str(s, f) {
            return Some(d.and_utc());
        }
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc())
}

#[cfg(test)]
mod tests {
    use super::super::{Entry, parse_feed, stable_id};
    use chrono::{DateTime, Utc};

    const URL: &str = "http://example.com/feed.xml";

    fn fixture(name: &str) -> String {
        let path = format!("{}/tests/fixtures/feeds/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn parsed(name: &str) -> Vec<Entry> {
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
}
