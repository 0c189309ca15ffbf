//! The HTML-to-text scanner as it was before issue 11 made it linear (it rescanned to the end
//! for every unclosed `<tag` and lower-cased the rest of the text for every dropped element, so it
//! is quadratic on hostile input). Kept, in this one copy, as the reference: the randomised tests
//! (`text/html_tests.rs`) check that [`super::html_to_text`] gives the same text, and
//! `benches/html_to_text.rs` times it as the "before" column. matome itself never calls it.

use super::{BLOCK, DROPPED, fold_whitespace, push_raw, push_text};

/// Plain text of `html`, as matome made it before issue 11 (quadratic on hostile input).
pub fn html_to_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let bytes = html.as_bytes();
    let mut i = 0;
    let mut text_start = 0;
    while i < bytes.len() {
        if bytes[i] != b'<' {
            i += 1;
            continue;
        }
        let rest = &html[i..];
        // Comment or CDATA or doctype.
        if let Some(after) = rest.strip_prefix("<!--") {
            push_text(&mut out, &html[text_start..i]);
            let end = after
                .find("-->")
                .map(|e| i + 4 + e + 3)
                .unwrap_or(html.len());
            i = end;
            text_start = i;
            continue;
        }
        if let Some(after) = rest.strip_prefix("<![CDATA[") {
            push_text(&mut out, &html[text_start..i]);
            let (inner, end) = match after.find("]]>") {
                Some(e) => (&after[..e], i + 9 + e + 3),
                None => (after, html.len()),
            };
            // CDATA content is raw text, not markup.
            push_raw(&mut out, inner);
            i = end;
            text_start = i;
            continue;
        }
        let Some((name, closing, tag_end)) = parse_tag(rest) else {
            i += 1;
            continue;
        };
        push_text(&mut out, &html[text_start..i]);
        i += tag_end;
        let lname = name.to_ascii_lowercase();
        if !closing && DROPPED.contains(&lname.as_str()) && !rest[..tag_end].ends_with("/>") {
            // Skip to the matching close tag (case-insensitive), or the end.
            let close = format!("</{lname}");
            let lower_rest = html[i..].to_ascii_lowercase();
            i = match lower_rest.find(&close) {
                Some(p) => {
                    let after = i + p;
                    html[after..]
                        .find('>')
                        .map(|g| after + g + 1)
                        .unwrap_or(html.len())
                }
                None => html.len(),
            };
        } else if BLOCK.contains(&lname.as_str()) {
            out.push('\n');
        } else if lname == "img" || lname == "td" || lname == "th" {
            out.push(' ');
        }
        text_start = i;
    }
    push_text(&mut out, &html[text_start..]);
    fold_whitespace(&out)
}

/// Recognises `<name ...>` or `</name>` at the start of `s`; returns the name, whether it is a
/// closing tag and the length up to and including `>`.
fn parse_tag(s: &str) -> Option<(&str, bool, usize)> {
    let b = s.as_bytes();
    let mut j = 1;
    let closing = b.get(1) == Some(&b'/');
    if closing {
        j += 1;
    }
    if b.get(1) == Some(&b'!') || b.get(1) == Some(&b'?') {
        // <!DOCTYPE ...> or <?xml ...?>
        let end = s.find('>')?;
        return Some(("!", false, end + 1));
    }
    let start = j;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'-' || b[j] == b':') {
        j += 1;
    }
    if j == start || !b[start].is_ascii_alphabetic() {
        return None;
    }
    let name = &s[start..j];
    // Find the closing '>' outside quotes.
    let mut quote: Option<u8> = None;
    while j < b.len() {
        match (quote, b[j]) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b[j]),
            (None, b'>') => return Some((name, closing, j + 1)),
            _ => {}
        }
        j += 1;
    }
    None
}
