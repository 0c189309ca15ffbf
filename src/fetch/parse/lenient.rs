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

use super::{FeedEntry, ParsedFeed, safe_http_url};
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

    fn finish(self, base: Option<&url::Url>) -> FeedEntry {
        let body = self
            .content
            .filter(|c| !c.trim().is_empty())
            .or(self.summary)
            .unwrap_or_default();
        FeedEntry {
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
mod tests;
