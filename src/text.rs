//! Plain-text preparation of untrusted feed text.
//!
//! Owns turning feed HTML into plain text (tags stripped, `script`/`style` dropped, entities
//! decoded), removing control characters, folding white space and bounding lengths. It knows
//! nothing about words; the analyser works on what this produces.

/// Elements whose content is never text.
const DROPPED: &[&str] = &[
    "script", "style", "noscript", "template", "iframe", "object", "svg", "math", "head",
];

/// Elements that end a line of text.
const BLOCK: &[&str] = &[
    "p",
    "br",
    "div",
    "li",
    "ul",
    "ol",
    "tr",
    "table",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "pre",
    "section",
    "article",
    "header",
    "footer",
    "hr",
    "dd",
    "dt",
    "figure",
    "figcaption",
];

/// Converts an HTML fragment to plain text: tags stripped, `script`/`style` and the like dropped
/// with their content, comments and CDATA markers removed, entities decoded, block elements
/// turned into line breaks, control characters removed and white space folded.
///
/// Lenient by design: a `<` that does not start a tag (`1 < 2`, or a `<name` never closed by a
/// `>`) is kept as text.
///
/// Linear in the input, whatever it holds: every byte is looked at a bounded number of times
/// (searches only move forward, see [`Scanner`]), so an 8 MiB hostile description costs what an
/// 8 MiB ordinary one does.
pub fn html_to_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let bytes = html.as_bytes();
    let mut scan = Scanner::new(bytes);
    let mut i = 0;
    let mut text_start = 0;
    while let Some(lt) = scan.find_byte(b'<', i) {
        i = lt;
        let rest = &html[i..];
        // Comment or CDATA or doctype.
        if rest.starts_with("<!--") {
            push_text(&mut out, &html[text_start..i]);
            i = scan.find_seq(b"-->", i + 4).map_or(html.len(), |e| e + 3);
            text_start = i;
            continue;
        }
        if rest.starts_with("<![CDATA[") {
            push_text(&mut out, &html[text_start..i]);
            let (inner, end) = match scan.find_seq(b"]]>", i + 9) {
                Some(e) => (&html[i + 9..e], e + 3),
                None => (&html[i + 9..], html.len()),
            };
            // CDATA content is raw text, not markup.
            push_raw(&mut out, inner);
            i = end;
            text_start = i;
            continue;
        }
        let Some((name, closing, tag_end)) = scan.tag_at(html, i) else {
            i += 1;
            continue;
        };
        push_text(&mut out, &html[text_start..i]);
        let self_closing = html[..tag_end].ends_with("/>");
        i = tag_end;
        if !closing && !self_closing && DROPPED.iter().any(|d| d.eq_ignore_ascii_case(name)) {
            // Skip to the matching close tag (case-insensitive) and its `>`, or the end.
            i = match scan.find_close_tag(name, i) {
                Some(p) => scan.find_byte(b'>', p).map_or(html.len(), |g| g + 1),
                None => html.len(),
            };
        } else if BLOCK.iter().any(|b| b.eq_ignore_ascii_case(name)) {
            out.push('\n');
        } else if ["img", "td", "th"]
            .iter()
            .any(|t| t.eq_ignore_ascii_case(name))
        {
            out.push(' ');
        }
        text_start = i;
    }
    push_text(&mut out, &html[text_start..]);
    fold_whitespace(&out)
}

/// Forward-only searches over one HTML fragment, so that [`html_to_text`] stays linear.
///
/// The naive scanner looked for the `>` of every `<name` afresh: `<a` repeated 100,000 times
/// with no `>` anywhere scanned to the end 100,000 times. Here every search remembers what it
/// found (or that nothing is there) and later searches, which never start further back, reuse
/// it. The one search that is not a plain "next byte" (the end of a tag, where `>` inside a
/// quoted attribute value does not count) is answered from a table built in one backward pass
/// over the quote characters the first time a tag meets a quote.
struct Scanner<'a> {
    b: &'a [u8],
    /// The last search for `<` and for `>`, see [`find_cached`].
    next_lt: Option<(usize, usize)>,
    next_gt: Option<(usize, usize)>,
    /// Same for the sequences `-->`, `]]>` and `</`.
    next_seq: [Option<(usize, usize)>; 3],
    /// Positions of `"` and `'`, ascending, and for each, where a tag scan that meets it
    /// outside quotes ends (`u32::MAX`: never). Built on first need.
    quotes: Option<(Vec<u32>, Vec<u32>)>,
    /// Index into `quotes` of the first quote at or after the last tag scan's start.
    quote_cursor: usize,
}

/// The sequences [`Scanner::find_seq`] knows.
const SEQS: [&[u8]; 3] = [b"-->", b"]]>", b"</"];

impl<'a> Scanner<'a> {
    fn new(b: &'a [u8]) -> Scanner<'a> {
        Scanner {
            b,
            next_lt: None,
            next_gt: None,
            next_seq: [None; 3],
            quotes: None,
            quote_cursor: 0,
        }
    }

    /// The first `byte` (`<` or `>`) at or after `from`.
    fn find_byte(&mut self, byte: u8, from: usize) -> Option<usize> {
        let b = self.b;
        let cache = if byte == b'<' {
            &mut self.next_lt
        } else {
            &mut self.next_gt
        };
        find_cached(cache, from, b.len(), |start| {
            memchr::memchr(byte, &b[start..]).map(|p| start + p)
        })
    }

    /// The first occurrence of one of [`SEQS`] at or after `from`.
    fn find_seq(&mut self, seq: &[u8], from: usize) -> Option<usize> {
        let k = SEQS
            .iter()
            .position(|s| *s == seq)
            .expect("a known sequence");
        let b = self.b;
        find_cached(&mut self.next_seq[k], from, b.len(), |start| {
            memchr::memmem::find(&b[start..], seq).map(|p| start + p)
        })
    }

    /// The position of the first `</name` (ASCII case-insensitive) at or after `from`.
    fn find_close_tag(&mut self, name: &str, from: usize) -> Option<usize> {
        let mut at = from;
        loop {
            let p = self.find_seq(b"</", at)?;
            let after = p + 2;
            let candidate = self.b.get(after..after + name.len())?;
            work(name.len());
            if candidate.eq_ignore_ascii_case(name.as_bytes()) {
                return Some(p);
            }
            at = after;
        }
    }

    /// Recognises `<name ...>` or `</name>` (or `<!...>`, `<?...>`) at `i`; returns the name,
    /// whether it is a closing tag, and the position just after its `>`.
    fn tag_at<'h>(&mut self, html: &'h str, i: usize) -> Option<(&'h str, bool, usize)> {
        let b = html.as_bytes();
        if matches!(b.get(i + 1), Some(b'!' | b'?')) {
            // <!DOCTYPE ...> or <?xml ...?>
            let end = self.find_byte(b'>', i)?;
            return Some(("!", false, end + 1));
        }
        let closing = b.get(i + 1) == Some(&b'/');
        let start = i + 1 + usize::from(closing);
        let mut j = start;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'-' || b[j] == b':') {
            j += 1;
        }
        work(j - start + 1);
        if j == start || !b[start].is_ascii_alphabetic() {
            return None;
        }
        let end = self.tag_end(j)?;
        Some((&html[start..j], closing, end + 1))
    }

    /// The `>` ending a tag whose attributes start at `p` (a `>` inside quotes does not count).
    /// Successive calls must not go back.
    fn tag_end(&mut self, p: usize) -> Option<usize> {
        // No `>` at all after `p`: no tag can end (and none after it either).
        let gt = self.find_byte(b'>', p)?;
        // No quote before the `>`: the common case, and no table needed.
        let first_quote = match &self.quotes {
            None => {
                let seg = &self.b[p..gt];
                work(seg.len() + 1);
                if memchr::memchr2(b'"', b'\'', seg).is_none() {
                    return Some(gt);
                }
                self.build_quotes();
                self.first_quote_from(p)
            }
            Some(_) => self.first_quote_from(p),
        };
        let (quotes, ends) = self.quotes.as_ref().expect("built above");
        match first_quote {
            Some(q) if (quotes[q] as usize) < gt => {
                (ends[q] != u32::MAX).then_some(ends[q] as usize)
            }
            _ => Some(gt),
        }
    }

    /// Index of the first quote at or after `p` (the cursor only moves forward).
    fn first_quote_from(&mut self, p: usize) -> Option<usize> {
        let (quotes, _) = self.quotes.as_ref().expect("built");
        while self.quote_cursor < quotes.len() && (quotes[self.quote_cursor] as usize) < p {
            self.quote_cursor += 1;
            work(1);
        }
        (self.quote_cursor < quotes.len()).then_some(self.quote_cursor)
    }

    /// The quote table: for each quote met outside quotes inside a tag, where that tag ends.
    /// From a quote at `x`, the value runs to the next quote of the same kind at `y`; after it,
    /// the tag ends at the next `>` unless another quote comes first, whose answer is already
    /// known (the pass runs backwards). Each stretch between two quotes is searched once.
    fn build_quotes(&mut self) {
        let b = self.b;
        let quotes: Vec<u32> = memchr::memchr2_iter(b'"', b'\'', b)
            .map(|p| u32::try_from(p).unwrap_or(u32::MAX))
            .collect();
        work(b.len() + 1);
        let mut ends = vec![u32::MAX; quotes.len()];
        // Index of the next `"` and `'` after the current one.
        let mut next_of = [usize::MAX; 2];
        for k in (0..quotes.len()).rev() {
            let kind = usize::from(b[quotes[k] as usize] == b'\'');
            let close = next_of[kind];
            next_of[kind] = k;
            if close == usize::MAX {
                continue; // the value never closes: no end
            }
            let after = quotes[close] as usize + 1;
            let next_quote = close + 1;
            let limit = quotes.get(next_quote).map_or(b.len(), |&q| q as usize);
            let seg = &b[after.min(limit)..limit];
            work(seg.len() + 1);
            ends[k] = match memchr::memchr(b'>', seg) {
                Some(g) => u32::try_from(after + g).unwrap_or(u32::MAX),
                None if next_quote < quotes.len() => ends[next_quote],
                None => u32::MAX,
            };
        }
        self.quotes = Some((quotes, ends));
    }
}

/// A search that remembers its last answer: `cache` is `(from, found)`, the first match at or
/// after `from` being at `found` (`len`: none), so it also answers every later `from` up to
/// `found`. Searches that only move forward thus examine each byte once in all.
fn find_cached(
    cache: &mut Option<(usize, usize)>,
    from: usize,
    len: usize,
    search: impl FnOnce(usize) -> Option<usize>,
) -> Option<usize> {
    let found = match *cache {
        Some((f, found)) if f <= from && from <= found => found,
        _ => {
            let start = from.min(len);
            let found = search(start).unwrap_or(len);
            work(found - start + 1);
            *cache = Some((from, found));
            found
        }
    };
    (found < len).then_some(found)
}

/// Counts the bytes the scanner examines (test builds only), so tests can assert on work, not
/// on wall time.
/// 1-based line of a byte offset in `text` (clamped to its end): how config and content errors
/// name the line.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
fn work(n: usize) {
    WORK.with(|w| w.set(w.get() + n as u64));
}

#[cfg(not(test))]
#[inline(always)]
fn work(_n: usize) {}

#[cfg(test)]
thread_local! {
    static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Starts counting the work of this thread's [`html_to_text`] calls afresh (test builds only).
#[cfg(test)]
pub(crate) fn reset_work() {
    WORK.with(|w| w.set(0));
}

/// The work of this thread's [`html_to_text`] calls since [`reset_work`], in bytes examined.
#[cfg(test)]
pub(crate) fn work_done() -> u64 {
    WORK.with(|w| w.get())
}

/// The work [`html_to_text`] does on `html`, in bytes examined (test builds only).
#[cfg(test)]
pub(crate) fn html_to_text_work(html: &str) -> (String, u64) {
    reset_work();
    let text = html_to_text(html);
    (text, work_done())
}

/// Decodes HTML entities in plain text (control characters dropped, nothing else changed).
pub fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_text(&mut out, s);
    out
}

/// White space that folds; the ideographic space (U+3000) is kept, it is part of Japanese text.
fn is_fold_space(c: char) -> bool {
    c.is_whitespace() && c != '\u{3000}'
}

/// Appends text with entities decoded.
fn push_text(out: &mut String, s: &str) {
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        push_raw(out, &rest[..amp]);
        let after = &rest[amp + 1..];
        let end = after
            .char_indices()
            .take(40)
            .find(|(_, c)| *c == ';' || c.is_whitespace() || *c == '&' || *c == '<')
            .filter(|(_, c)| *c == ';')
            .map(|(e, _)| e);
        match end.and_then(|e| decode_entity(&after[..e]).map(|d| (d, e))) {
            Some((decoded, e)) => {
                push_raw(out, &decoded);
                rest = &after[e + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    push_raw(out, rest);
}

fn decode_entity(name: &str) -> Option<String> {
    if let Some(num) = name.strip_prefix('#') {
        let code = if let Some(hex) = num.strip_prefix('x').or_else(|| num.strip_prefix('X')) {
            u32::from_str_radix(hex, 16).ok()?
        } else {
            num.parse::<u32>().ok()?
        };
        let c = char::from_u32(code).unwrap_or('\u{fffd}');
        return Some(c.to_string());
    }
    quick_xml::escape::resolve_html5_entity(name).map(str::to_string)
}

/// Appends text, dropping control characters (keeping line breaks and tabs as white space).
fn push_raw(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(c),
            c if is_unwanted(c) => {}
            c => out.push(c),
        }
    }
}

/// Control and other invisible formatting characters that must never reach a snapshot.
fn is_unwanted(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}')
}

/// Folds runs of spaces and tabs to one space, trims lines, keeps single line breaks between
/// non-empty lines, and trims the whole.
pub fn fold_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    // What separates the next word from the text before it: nothing, a space or a line break.
    let mut pending: Option<char> = None;
    for c in s.chars() {
        if c == '\n' || c == '\r' {
            pending = Some('\n');
        } else if is_fold_space(c) {
            if pending.is_none() {
                pending = Some(' ');
            }
        } else {
            if let Some(sep) = pending.take()
                && !out.is_empty()
            {
                out.push(sep);
            }
            out.push(c);
        }
    }
    out
}

/// Whether [`fold_whitespace`] would return `s` unchanged (so it need not be copied).
pub fn is_folded(s: &str) -> bool {
    let mut prev_space = true; // the start counts as a space: no leading white space
    for c in s.chars() {
        let space = c == '\n' || c == '\r' || is_fold_space(c);
        if space && (prev_space || !(c == ' ' || c == '\n')) {
            return false;
        }
        prev_space = space;
    }
    !prev_space || s.is_empty()
}

/// One line of clean text: control characters removed, all white space folded to single spaces.
pub fn one_line(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .filter(|c| c.is_whitespace() || !is_unwanted(*c))
        .collect();
    let mut out = String::with_capacity(cleaned.len());
    for word in cleaned.split(is_fold_space).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Cuts `s` to at most `max` characters, ending with "…" when it was cut.
pub fn truncate_chars(s: &str, max: usize) -> String {
    if max == 0 {
        return String::new();
    }
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some(_) => {
            let cut: String = s.chars().take(max.saturating_sub(1)).collect();
            format!("{}…", cut.trim_end())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_tags_and_decodes_entities() {
        assert_eq!(
            html_to_text("<p>日本銀行&amp;財務省 &hellip; <b>発表</b>&#x3002;&#12290;</p>"),
            "日本銀行&財務省 … 発表。。"
        );
    }

    #[test]
    fn drops_script_and_style_with_content() {
        assert_eq!(
            html_to_text(
                "a<script>alert('x<b>')</script>b<STYLE>p{}</STYLE>c<noscript>n</noscript>"
            ),
            "abc"
        );
    }

    #[test]
    fn unclosed_script_drops_the_rest() {
        assert_eq!(html_to_text("safe<script>alert(1)"), "safe");
    }

    #[test]
    fn blocks_make_lines() {
        assert_eq!(
            html_to_text("<p>one</p><p>two<br>three</p>"),
            "one\ntwo\nthree"
        );
    }

    #[test]
    fn keeps_lone_less_than_and_unknown_entities() {
        assert_eq!(
            html_to_text("1 < 2 && 3 > 2 &nosuch; AT&T"),
            "1 < 2 && 3 > 2 &nosuch; AT&T"
        );
    }

    #[test]
    fn attributes_with_gt_inside_quotes() {
        assert_eq!(
            html_to_text(r#"<a title="a>b" href="x">link</a> text"#),
            "link text"
        );
    }

    #[test]
    fn comments_and_cdata() {
        assert_eq!(html_to_text("a<!-- hidden -->b<![CDATA[<c>]]>"), "ab<c>");
    }

    #[test]
    fn control_characters_are_removed() {
        assert_eq!(one_line("ti\u{7}tle\u{0}\u{200b} \n next"), "title next");
        assert_eq!(html_to_text("a\u{1b}[31mb"), "a[31mb");
    }

    #[test]
    fn ideographic_space_is_kept_inside_text() {
        assert_eq!(
            one_line("月額3300円から\u{3000}初期設定は  簡単"),
            "月額3300円から\u{3000}初期設定は 簡単"
        );
    }

    #[test]
    fn is_folded_agrees_with_fold_whitespace() {
        for s in [
            "",
            "a",
            "a b",
            "a  b",
            " a",
            "a ",
            "a\nb",
            "a\n\nb",
            "a \nb",
            "a\r\nb",
            "a\tb",
            "日本\u{3000}銀行",
            "\u{3000}",
            "a\u{a0}b",
            "\n",
            " ",
        ] {
            assert_eq!(is_folded(s), fold_whitespace(s) == s, "{s:?}");
        }
    }

    /// Arbitrary markup never panics and never lets control or invisible characters through
    /// (the text is plain: pages escape it when rendering).
    #[test]
    fn arbitrary_markup_is_handled() {
        const PIECES: &[&str] = &[
            "<",
            ">",
            "&",
            ";",
            "&amp;",
            "&#x",
            "&#",
            "12",
            "<script>",
            "</script>",
            "<SCRIPT x='>'>",
            "alert(1)",
            "<style>",
            "</style",
            "<!--",
            "-->",
            "<![CDATA[",
            "]]>",
            "<p>",
            "</p>",
            "<a href=\"x\">",
            "日本",
            "🫠",
            "\u{7}",
            "\u{1b}",
            "\u{200b}",
            " ",
            "\n",
            "\"",
            "'",
            "<br/>",
            "<img src=x onerror=alert(1)>",
            "&nbsp;",
            "&hellip",
            "<?xml?>",
            "<!DOCTYPE x>",
        ];
        let mut rng = crate::test_rng::XorShift(0xdead_beef_cafe_f00d);
        for _ in 0..3000 {
            let html = rng.text(PIECES, 12);
            let text = html_to_text(&html);
            assert!(
                !text.chars().any(|c| c.is_control() && c != '\n'),
                "{html:?} → {text:?}"
            );
            assert!(
                !text.chars().any(|c| c == '\u{200b}'),
                "{html:?} → {text:?}"
            );
            let line = one_line(&text);
            assert!(!line.contains('\n'));
        }
    }

    #[test]
    fn truncation_counts_characters() {
        assert_eq!(truncate_chars("日本銀行", 10), "日本銀行");
        assert_eq!(truncate_chars("日本銀行気候変動", 4), "日本銀…");
        assert_eq!(truncate_chars("abc", 0), "");
    }
}

/// Randomised tests: no panic, plain output, the same text as the straightforward (quadratic)
/// scanner this one replaced, and work linear in the input.
#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    /// The scanner as it was before it was made linear: the reference for what the output must
    /// be (it rescanned to the end for every unclosed `<tag` and lower-cased the rest of the
    /// text for every dropped element).
    mod reference {
        use super::super::{BLOCK, DROPPED, fold_whitespace, push_raw, push_text};

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
                if !closing && DROPPED.contains(&lname.as_str()) && !rest[..tag_end].ends_with("/>")
                {
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
    }

    /// Pieces that make the scanner's hard cases likely.
    const PIECES: &[&str] = &[
        "<",
        ">",
        "/>",
        "&",
        ";",
        "&amp;",
        "&#x41;",
        "&#",
        "\"",
        "'",
        "=",
        " ",
        "\n",
        "a",
        "日本",
        "<a",
        "<a href=\"",
        "<a title='",
        "</a>",
        "<p>",
        "</p",
        "<br/>",
        "<img src=x>",
        "<script>",
        "</script>",
        "</SCRIPT >",
        "<style x='>'>",
        "</style>",
        "<svg/>",
        "<!--",
        "-->",
        "<![CDATA[",
        "]]>",
        "<!DOCTYPE",
        "<?xml",
        "?>",
        "\u{7}",
        "\u{200b}",
        "🫠",
        "<td>",
        "<Head>",
        "</head>",
        "</",
        "<1",
    ];

    fn markup() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(PIECES), 0..48).prop_map(|v| v.concat())
    }

    fn any_text() -> impl Strategy<Value = String> {
        prop::collection::vec(any::<char>(), 0..64).prop_map(String::from_iter)
    }

    /// Work per input byte that no input may exceed (each byte is examined a bounded number of
    /// times; see `Scanner`).
    const WORK_PER_BYTE: u64 = 16;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        #[test]
        fn same_text_as_the_reference_scanner(html in markup()) {
            prop_assert_eq!(html_to_text(&html), reference::html_to_text(&html));
        }

        #[test]
        fn arbitrary_text_is_plain_and_bounded(html in prop_oneof![markup(), any_text()]) {
            let (text, work) = html_to_text_work(&html);
            prop_assert!(!text.chars().any(|c| is_unwanted(c) && c != '\n'), "{:?}", text);
            prop_assert_eq!(&fold_whitespace(&text), &text);
            prop_assert!(work <= WORK_PER_BYTE * (html.len() as u64 + 1), "{} for {}", work, html.len());
        }

        /// Repeating any piece of markup 8 times as often costs about 8 times the work (10 allows
        /// for per-call constants; the quadratic scanner's ratio was near 64): no input makes the
        /// scanner go back over what it has read.
        #[test]
        fn work_grows_linearly_with_repetition(unit in markup().prop_filter("non-empty", |s| !s.is_empty())) {
            let (_, small) = html_to_text_work(&unit.repeat(16));
            let (_, large) = html_to_text_work(&unit.repeat(128));
            prop_assert!(large <= 10 * small + 64, "{} then {} for {:?}", small, large, unit);
        }
    }
}

/// Hostile descriptions from issue 11 (quadratic before): 8 times the input must cost about 8
/// times the work (at most 10 times: per-call constants), and a few bytes examined per input byte.
#[cfg(test)]
mod linear {
    use super::*;

    /// Work for `unit` repeated n and 8n times; asserts linear growth and a per-byte bound.
    fn assert_linear(unit: &str) {
        let n = 2_000;
        let (_, small) = html_to_text_work(&unit.repeat(n));
        let (_, large) = html_to_text_work(&unit.repeat(8 * n));
        let bytes = (8 * n * unit.len()) as u64;
        assert!(
            large <= 10 * small + 64,
            "{unit:?}: work {small} for n, {large} for 8n"
        );
        assert!(
            large <= 4 * bytes,
            "{unit:?}: work {large} for {bytes} bytes"
        );
    }

    #[test]
    fn unclosed_tags_are_linear() {
        assert_linear("<a");
        assert_linear("<div");
        assert_linear("<a href=x ");
    }

    #[test]
    fn unclosed_quotes_in_tags_are_linear() {
        assert_linear("<a \"");
        assert_linear("<a title='");
        assert_linear("<a '>\"");
        assert_linear("<b x=\"'>");
    }

    #[test]
    fn script_pairs_are_linear() {
        assert_linear("<script></script>");
        assert_linear("<STYLE>x</style >");
        assert_linear("<script></scrip");
    }

    #[test]
    fn unclosed_comments_cdata_and_doctypes_are_linear() {
        assert_linear("<!-- x");
        assert_linear("<!");
        assert_linear("<?x");
        assert_linear("<![CDATA[<");
        assert_linear("&amp&#x;&");
    }
}
