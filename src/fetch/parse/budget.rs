//! The parse budget: what one feed body may make the parsers hold, checked before they see it.
//!
//! feed-rs, the lenient reader and the Google Trends reader all hold a whole document's entries
//! (and every category, link or attribute) in memory before `fetch.max_items_per_feed` applies,
//! so an 8 MiB body of 2.8 M empty JSON items took 4.45 GB. This module makes one cheap
//! streaming pass first (quick-xml for XML, serde_json for JSON) and hands the parsers a text
//! they can hold:
//!
//! - **Entries** (`item` / `entry` elements, JSON Feed `items`): the document is cut before the
//!   first entry past `max_items_per_feed`, and the elements still open there are closed. Only
//!   the first N entries were ever archived, so a long feed reads as before, minus the bytes
//!   after its Nth entry. (A JSON Feed keeps every key; arrays other than `items` keep their
//!   first [`JSON_ARRAY`] elements.)
//! - **Nodes**: elements and attributes outside item texts (titles, descriptions, content: those
//!   are markup the parsers keep as text, bounded by the body size) are what the parsers turn
//!   into objects (categories, links, media, people), [`NODES_BASE`] + [`NODES_PER_ENTRY`] per
//!   entry of the budget, counted up to the cut. Over it, the feed is refused.
//! - **Depth** ([`DEPTH`] open elements), **attributes on one element** ([`ATTRIBUTES`]) and
//!   **nested `xml:base`** ([`XML_BASES`]: feed-rs joins each with the one around it, so nested
//!   ones grow quadratically): over any, the feed is refused.
//!
//! Truncating, not refusing, on entries: a feed with more entries than are read is ordinary
//! (archives, podcasts); one whose entries hold thousands of objects or nest a thousand deep is
//! broken or hostile, and reading half of it would archive half-read items, so it fails with an
//! error naming the budget. The work is one event (and one attribute) at a time, linear in the
//! bytes scanned; nothing is allocated per element beyond the open-element stack.

use std::borrow::Cow;

use quick_xml::events::Event;

mod json;

/// Model nodes allowed whatever the entry budget (the channel's own elements).
pub const NODES_BASE: usize = 10_000;
/// Model nodes allowed per entry of the budget (a rich podcast or media item has ~100).
pub const NODES_PER_ENTRY: usize = 250;
/// Open elements at once.
pub const DEPTH: usize = 512;
/// Attributes on one element.
pub const ATTRIBUTES: usize = 256;
/// `xml:base` attributes open at once.
pub const XML_BASES: usize = 16;
/// Elements kept of a JSON array other than the feed's `items` (authors, tags, attachments).
pub const JSON_ARRAY: usize = 64;

/// How much of one body the parsers may be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Entries read: `fetch.max_items_per_feed`.
    pub entries: usize,
    /// Elements and attributes outside item texts, up to the cut.
    pub nodes: usize,
}

impl Budget {
    /// The budget for `fetch.max_items_per_feed = max_items`.
    pub fn for_items(max_items: usize) -> Budget {
        Budget {
            entries: max_items,
            nodes: NODES_BASE.saturating_add(NODES_PER_ENTRY.saturating_mul(max_items)),
        }
    }
}

/// Why a body is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OverBudget {
    #[error(
        "refused: more than {limit} elements and attributes outside item texts in the feed's first {entries} items and around them (the parse budget: {NODES_BASE} + {NODES_PER_ENTRY} per item of fetch.max_items_per_feed = {entries})"
    )]
    Nodes { limit: usize, entries: usize },
    #[error("refused: elements nested more than {DEPTH} deep (at byte {at})")]
    Depth { at: usize },
    #[error("refused: an element with more than {ATTRIBUTES} attributes (at byte {at})")]
    Attributes { at: usize },
    #[error("refused: xml:base nested more than {XML_BASES} deep (at byte {at})")]
    XmlBase { at: usize },
    #[error("not a feed: unable to parse JSON: {0}")]
    Json(String),
}

/// The text the parsers get, and what the pass saw.
#[derive(Debug)]
pub struct Bounded<'a> {
    /// The body, or its first entries with what is open closed.
    pub text: Cow<'a, str>,
    /// Entries kept.
    pub entries: usize,
    /// Nodes counted (elements and attributes outside item texts, up to the cut).
    pub nodes: usize,
    /// Events, attributes and JSON values visited: linear in the bytes scanned.
    pub work: usize,
}

/// Bounds `text` for the parsers: XML and JSON by the first `<` or `{` (as feed-rs decides),
/// anything else unchanged (the parsers refuse it).
pub fn bound<'a>(text: &'a str, budget: &Budget) -> Result<Bounded<'a>, OverBudget> {
    match text.bytes().find(|b| *b == b'<' || *b == b'{') {
        Some(b'<') => bound_xml(text, budget),
        Some(_) => json::bound(text, budget),
        None => Ok(Bounded {
            text: Cow::Borrowed(text),
            entries: 0,
            nodes: 0,
            work: 0,
        }),
    }
}

/// Local names whose content is text or markup kept as text, when written without a prefix
/// (Atom's and RSS's own elements; `media:content` and `media:title` are objects).
const TEXT_FIELDS: [&[u8]; 9] = [
    b"title",
    b"subtitle",
    b"summary",
    b"content",
    b"description",
    b"rights",
    b"tagline",
    b"info",
    b"copyright",
];

/// Prefixed text fields: `content:encoded`, `xhtml:body` (any prefix).
const PREFIXED_TEXT_FIELDS: [&[u8]; 2] = [b"encoded", b"body"];

fn is_entry(local: &[u8]) -> bool {
    local.eq_ignore_ascii_case(b"item") || local.eq_ignore_ascii_case(b"entry")
}

fn is_text_field(qname: &[u8]) -> bool {
    match qname.iter().rposition(|b| *b == b':') {
        None => TEXT_FIELDS.iter().any(|f| qname.eq_ignore_ascii_case(f)),
        Some(colon) => {
            let local = &qname[colon + 1..];
            PREFIXED_TEXT_FIELDS
                .iter()
                .any(|f| local.eq_ignore_ascii_case(f))
        }
    }
}

fn local(qname: &[u8]) -> &[u8] {
    match qname.iter().rposition(|b| *b == b':') {
        Some(colon) => &qname[colon + 1..],
        None => qname,
    }
}

/// One open element: its name (a range of the text) and what it opened.
struct Open {
    name: (usize, usize),
    entry: bool,
    text_field: bool,
    xml_base: bool,
}

/// Where `part` (a slice of `text`) starts in `text`.
fn offset_in(text: &str, part: &[u8]) -> Option<usize> {
    let start = (part.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    (start + part.len() <= text.len()).then_some(start)
}

fn bound_xml<'a>(text: &'a str, budget: &Budget) -> Result<Bounded<'a>, OverBudget> {
    let mut reader = quick_xml::Reader::from_str(text);
    // As lenient as the lenient reader, so every text it reads is bounded too.
    let config = reader.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.allow_dangling_amp = true;
    config.check_comments = false;

    let mut stack: Vec<Open> = Vec::new();
    // Open text fields and xml:base attributes on the stack.
    let mut in_text = 0usize;
    let mut bases = 0usize;
    let mut entries = 0usize;
    let mut nodes = 0usize;
    let mut work = 0usize;
    let mut last = 0usize;
    loop {
        work += 1;
        let before = last;
        let event = reader.read_event();
        let pos = reader.buffer_position() as usize;
        last = pos;
        let event = match event {
            Ok(e) => e,
            Err(_) if pos > before && pos < text.len() => continue,
            Err(_) => break,
        };
        let (e, empty) = match &event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(e) => {
                let name = e.name();
                let name = name.as_ref().as_bytes();
                // Like the lenient reader: an end tag closes the nearest open element of its
                // name within 32 frames, else it is stray.
                let found = stack
                    .iter()
                    .rev()
                    .take(32)
                    .position(|o| text.as_bytes()[o.name.0..o.name.1] == *name);
                if let Some(from_top) = found {
                    for o in stack.drain(stack.len() - 1 - from_top..) {
                        in_text -= usize::from(o.text_field);
                        bases -= usize::from(o.xml_base);
                    }
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let qname = e.name();
        let qname = qname.as_ref().as_bytes();
        let entry = is_entry(local(qname));
        if entry {
            if entries == budget.entries {
                return Ok(cut(text, before, &stack, entries, nodes, work));
            }
            entries += 1;
            // An entry opened inside an unclosed one ends it (as the lenient reader reads it).
            if let Some(open) = stack.iter().rposition(|o| o.entry) {
                for o in stack.drain(open..) {
                    in_text -= usize::from(o.text_field);
                    bases -= usize::from(o.xml_base);
                }
            }
        }
        let mut attributes = 0usize;
        let mut xml_base = false;
        for attr in e.html_attributes().with_checks(false).flatten() {
            attributes += 1;
            work += 1;
            if attributes > ATTRIBUTES {
                return Err(OverBudget::Attributes { at: before });
            }
            xml_base |= attr.key.as_ref() == "xml:base";
        }
        if in_text == 0 {
            nodes += 1 + attributes;
            if nodes > budget.nodes {
                return Err(OverBudget::Nodes {
                    limit: budget.nodes,
                    entries: budget.entries,
                });
            }
        }
        if empty {
            continue;
        }
        let text_field = is_text_field(qname);
        let Some(name) = offset_in(text, qname) else {
            continue;
        };
        in_text += usize::from(text_field);
        bases += usize::from(xml_base);
        if bases > XML_BASES {
            return Err(OverBudget::XmlBase { at: before });
        }
        stack.push(Open {
            name: (name, name + qname.len()),
            entry,
            text_field,
            xml_base,
        });
        if stack.len() > DEPTH {
            return Err(OverBudget::Depth { at: before });
        }
    }
    Ok(Bounded {
        text: Cow::Borrowed(text),
        entries,
        nodes,
        work,
    })
}

/// The text before byte `at`, with the elements open there closed, innermost first.
fn cut<'a>(
    text: &'a str,
    at: usize,
    stack: &[Open],
    entries: usize,
    nodes: usize,
    work: usize,
) -> Bounded<'a> {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut out = String::with_capacity(at + stack.len() * 16);
    out.push_str(&text[..at]);
    for o in stack.iter().rev() {
        out.push_str("</");
        out.push_str(&text[o.name.0..o.name.1]);
        out.push('>');
    }
    Bounded {
        text: Cow::Owned(out),
        entries,
        nodes,
        work,
    }
}

#[cfg(test)]
mod tests;
