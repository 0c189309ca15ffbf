//! Randomised and work-counting tests of [`super::html_to_text`] (issue 11: linear time).

use super::*;

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
