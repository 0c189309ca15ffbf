//! Randomised and work-counting tests of [`super::html_to_text`] (issue 11: linear time).

use super::*;

mod proptests {
    use super::*;
    use proptest::prelude::*;

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
            prop_assert_eq!(html_to_text(&html), super::reference::html_to_text(&html));
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
