//! Plain-text preparation of untrusted feed text.
//!
//! Owns turning feed HTML into plain text (tags stripped, `script`/`style` dropped, entities
//! decoded), removing control characters, folding white space and bounding lengths. It knows
//! nothing about words; the analyser works on what this produces. Also the small facts about
//! text that several stages share, each in one place: which characters are CJK ([`is_cjk`]),
//! escaping for XML and HTML output ([`xml_escape`]) and which URLs are links
//! ([`is_http_url`], [`http_url`]).

#[doc(hidden)]
pub mod reference;
mod scan;

use scan::Scanner;
#[cfg(test)]
pub(crate) use scan::{html_to_text_work, reset_work, work_done};

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

/// 1-based line of a byte offset in `text` (clamped to its end): how config and content errors
/// name the line.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
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
/// Every sentence of every item is prepared, so this reads bytes: only ASCII and the characters
/// led by 0xC2, 0xE1 or 0xE2 (U+0080..U+00BF, U+1000..U+2FFF) can be white space that folds (the
/// ideographic space, U+3000, is kept), so no other character is decoded.
pub fn is_folded(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut prev_space = true; // the start counts as a space: no leading white space
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let c = if b < 0x80 {
            char::from(b)
        } else if matches!(b, 0xc2 | 0xe1 | 0xe2) {
            s[i..]
                .chars()
                .next()
                .expect("a lead byte starts a character")
        } else {
            // (a byte of a character that is no white space)
            prev_space = false;
            i += 1;
            continue;
        };
        let space = c == '\n' || c == '\r' || is_fold_space(c);
        if space && (prev_space || !(c == ' ' || c == '\n')) {
            return false;
        }
        prev_space = space;
        i += c.len_utf8();
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

/// Kana or a CJK ideograph: a title with one is a Japanese item's (an English headline may
/// still hold ’, —, € or é, so "not ASCII" is no test of the language).
pub fn is_japanese(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}')
}

/// The currency a sign written before an amount names ($ usd, ¥ jpy, € eur, £ gbp): how stories
/// read an amount, and why the analyser takes "$40M" for one.
pub fn currency_before(c: char) -> Option<&'static str> {
    match c {
        '$' => Some("usd"),
        '¥' => Some("jpy"),
        '€' => Some("eur"),
        '£' => Some("gbp"),
        _ => None,
    }
}

/// Characters indexed by bigrams: kanji, kana (with ー, 々, 〆, 〇) and hangul. The static search
/// page (`search.js`) has the same ranges; the word clouds split Japanese words by it.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3005..=0x3007
        | 0x3041..=0x309f
        | 0x30a1..=0x30fa
        | 0x30fc..=0x30ff
        | 0x31f0..=0x31ff
        | 0x3400..=0x4dbf
        | 0x4e00..=0x9fff
        | 0xf900..=0xfaff
        | 0x20000..=0x3ffff
        | 0x1100..=0x11ff
        | 0x3131..=0x318e
        | 0xac00..=0xd7a3)
}

/// Escapes text for HTML and XML output (`&`, `<`, `>`, `"`, `'`), dropping the characters
/// XML 1.0 does not allow (NUL and the other C0 controls but tab and line breaks, U+FFFE,
/// U+FFFF) and the C1 controls, so no name or title, from a feed or a hand-edited file, makes
/// atom.xml, a sitemap or an inline SVG ill-formed.
pub fn xml_escape(s: &str) -> String {
    let invalid = |c: char| {
        (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{fffe}' | '\u{ffff}')
    };
    if s.contains(invalid) {
        let clean: String = s.chars().filter(|&c| !invalid(c)).collect();
        return quick_xml::escape::escape(clean.as_str()).into_owned();
    }
    quick_xml::escape::escape(s).into_owned()
}

/// Whether `url` is an absolute http(s) URL with a host: the only links matome shows, follows
/// or posts to.
pub fn is_http_url(url: &url::Url) -> bool {
    matches!(url.scheme(), "http" | "https") && url.host().is_some()
}

/// `s` as an absolute http(s) URL, or `None` (javascript:, data:, relative, garbage).
pub fn http_url(s: &str) -> Option<url::Url> {
    url::Url::parse(s).ok().filter(is_http_url)
}

/// Link texts that say nothing of where a link goes ("more", "go", "リンク", …: the list
/// search engines' link-text checks use), compared case-insensitively. A keyword, category or
/// site that happens to be named so gets its taxonomy's name beside it in its links, so the link
/// says what it is ("頻出ワード: Go").
pub fn is_generic_link_text(s: &str) -> bool {
    const GENERIC: &[&str] = &[
        "click here",
        "click this",
        "go",
        "here",
        "information",
        "learn more",
        "more",
        "more info",
        "more information",
        "right here",
        "read more",
        "see more",
        "start",
        "this",
        "ここをクリック",
        "こちらをクリック",
        "リンク",
        "続きを読む",
        "続く",
        "全文表示",
    ];
    let s = s.trim();
    s.len() <= 32 && GENERIC.iter().any(|g| g.eq_ignore_ascii_case(s))
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

    /// Issue 22: the names that say nothing as a link's text, whatever their case; any other.
    #[test]
    fn generic_link_texts_are_known_whatever_their_case() {
        for g in ["Go", "go", " MORE ", "Read more", "リンク", "続きを読む"] {
            assert!(is_generic_link_text(g), "{g:?}");
        }
        for w in ["Golang", "Go言語", "日本銀行", "", "more or less"] {
            assert!(!is_generic_link_text(w), "{w:?}");
        }
    }

    /// The one XML escape (theme, chart, word cloud, sparkline): markup escaped, characters XML
    /// 1.0 forbids dropped, so a control byte from a feed cannot make atom.xml ill-formed.
    #[test]
    fn xml_escape_escapes_markup_and_drops_what_xml_forbids() {
        assert_eq!(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
        assert_eq!(xml_escape("x\u{0}y\u{1b}z\u{85}\u{ffff}"), "xyz");
        assert_eq!(xml_escape("tab\tand\nlines"), "tab\tand\nlines");
        assert_eq!(xml_escape("日本語"), "日本語");
    }

    /// The one http(s) check (links shown, feed links, redirects, base_url, feed URLs).
    #[test]
    fn only_absolute_http_urls_with_a_host_are_links() {
        for good in [
            "https://example.com/a?b=1",
            "http://例え.jp/",
            "HTTPS://X.ORG",
        ] {
            assert!(http_url(good).is_some(), "{good}");
        }
        for bad in [
            "javascript:alert(1)",
            "data:text/html,x",
            "file:///etc/passwd",
            "/relative",
            "mailto:a@b.c",
            "https://",
            "",
        ] {
            assert!(http_url(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn cjk_is_kanji_kana_and_hangul() {
        for c in ['日', 'あ', 'ア', 'ー', '々', '한'] {
            assert!(is_cjk(c), "{c}");
        }
        for c in ['a', '1', 'é', ' ', '。'] {
            assert!(!is_cjk(c), "{c}");
        }
    }

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
            "é b",
            "日本 銀行。",
        ] {
            assert_eq!(is_folded(s), fold_whitespace(s) == s, "{s:?}");
        }
        // (every white space character, alone, doubled and between words of every script: the
        // byte scan decodes only some characters)
        for c in (0..0x3100)
            .filter_map(char::from_u32)
            .filter(|c| c.is_whitespace())
        {
            for s in [
                format!("{c}"),
                format!("a{c}b"),
                format!("日{c}本"),
                format!("é{c}{c}ü"),
                format!("a {c}"),
            ] {
                assert_eq!(is_folded(&s), fold_whitespace(&s) == s, "{s:?}");
            }
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
/// scanner this one replaced (`text/reference.rs`), and work linear in the input.
#[cfg(test)]
mod html_tests;
