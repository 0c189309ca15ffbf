//! What untrusted text may become in a page: links, slugs and the curator's Markdown.
//!
//! Feed content is hostile. Titles, summaries and names are plain text that the templates escape
//! (tera autoescape); a link is emitted only when it is an absolute http(s) URL; the Markdown
//! body is rendered with pulldown-cmark and then passed through ammonia's allowlist, which drops
//! scripts, event handlers and non-http(s) URLs and marks outbound links noopener noreferrer.

use std::collections::HashSet;
use std::sync::OnceLock;

/// The link as an http(s) URL, or `None` (javascript:, data:, vbscript:, relative, garbage).
pub fn safe_link(link: &str) -> Option<String> {
    crate::text::http_url(link.trim()).map(|u| u.to_string())
}

/// A path segment for a name (category, site, keyword): letters and digits of any script are
/// kept, anything else becomes `-`; when that loses information (or the name is long) a short
/// hash of the name is appended.
///
/// Unique by construction: a hashed slug always ends in `-` and six lowercase hex digits (or is
/// six hex digits), and a clean name that looks like that (`Foo-95f502`, `c-ae8bb0`) is hashed
/// too, so a clean slug never equals a hashed one. Two hashed slugs can still meet when their
/// 24-bit hashes do; [`slug_long`] and the page plan's duplicate check handle that.
pub fn slug(name: &str) -> String {
    let (clean, lossy) = clean_slug(name);
    if lossy {
        hashed(
            &clean,
            &format!("{:06x}", crate::hash::fnv1a(name.as_bytes()) & 0xff_ffff),
        )
    } else {
        clean
    }
}

/// The slug for a name whose [`slug`] another name shares: always hashed, with the full 64-bit
/// hash of `name` (pass the name as shown, so names that differ only in case differ here).
pub fn slug_long(slug_name: &str, name: &str) -> String {
    let (clean, _) = clean_slug(slug_name);
    hashed(
        &clean,
        &format!("{:016x}", crate::hash::fnv1a(name.as_bytes())),
    )
}

const MAX_SLUG_CHARS: usize = 60;

/// The name's letters, digits and `_` with single `-` between runs of anything else, and
/// whether that loses information (or looks like a hashed slug).
fn clean_slug(name: &str) -> (String, bool) {
    let mut out = String::with_capacity(name.len());
    let mut dash = false;
    for c in name.chars() {
        if c.is_alphanumeric() || c == '_' {
            out.push(c);
            dash = false;
        } else if !dash && !out.is_empty() {
            out.push('-');
            dash = true;
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    let lossy =
        out.is_empty() || out != name || out.chars().count() > MAX_SLUG_CHARS || looks_hashed(&out);
    (out, lossy)
}

/// `X-<6 or 16 lowercase hex>` or the hex alone: the shape of a hashed slug ([`slug`],
/// [`slug_long`]).
fn looks_hashed(s: &str) -> bool {
    let b = s.as_bytes();
    let n = b.len();
    [6, 16].into_iter().any(|len| {
        n >= len
            && b[n - len..]
                .iter()
                .all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
            && (n == len || b[n - len - 1] == b'-')
    })
}

fn hashed(clean: &str, hash: &str) -> String {
    let short: String = clean.chars().take(MAX_SLUG_CHARS).collect();
    if short.is_empty() {
        hash.to_string()
    } else {
        format!("{short}-{hash}")
    }
}

/// The curator's Markdown as sanitised HTML.
pub fn markdown_html(body: &str) -> String {
    use pulldown_cmark::{Options, Parser, html};
    let mut raw = String::with_capacity(body.len() * 2);
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_FOOTNOTES;
    html::push_html(&mut raw, Parser::new_ext(body, opts));
    sanitizer().clean(&raw).to_string()
}

fn sanitizer() -> &'static ammonia::Builder<'static> {
    static CLEANER: OnceLock<ammonia::Builder<'static>> = OnceLock::new();
    CLEANER.get_or_init(|| {
        let mut b = ammonia::Builder::default();
        b.url_schemes(HashSet::from(["http", "https", "mailto"]))
            .link_rel(Some("noopener noreferrer"))
            .url_relative(ammonia::UrlRelative::PassThrough);
        b
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_http_links_survive() {
        assert_eq!(
            safe_link(" https://example.com/a?b=1&c=2 ").as_deref(),
            Some("https://example.com/a?b=1&c=2")
        );
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "\tjavascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "vbscript:msgbox(1)",
            "/relative",
            "ftp://example.com/",
            "http://",
            "",
        ] {
            assert_eq!(safe_link(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn slugs_are_path_safe_and_distinct() {
        assert_eq!(slug("IT"), "IT");
        assert_eq!(slug("金融"), "金融");
        assert_eq!(slug("日本銀行"), "日本銀行");
        let cases = [
            "C++",
            "C#",
            "C",
            "a/b",
            "a b",
            "a-b",
            "..",
            "../../etc",
            "ITmedia 総合記事一覧",
            "?#%",
            "",
        ];
        let slugs: Vec<String> = cases.iter().map(|c| slug(c)).collect();
        for (c, s) in cases.iter().zip(&slugs) {
            assert!(!s.is_empty(), "{c:?}");
            assert!(
                s.chars()
                    .all(|ch| ch.is_alphanumeric() || ch == '-' || ch == '_'),
                "{c:?} → {s:?}"
            );
            assert!(!s.starts_with('-'), "{s}");
        }
        let unique: HashSet<&String> = slugs.iter().collect();
        assert_eq!(unique.len(), slugs.len(), "{slugs:?}");
        let long = "あ".repeat(200);
        assert!(slug(&long).len() < 200);
    }

    /// Issue 11, finding 4: `Foo!` and `Foo-95f502` (and `c++` and `c-ae8bb0`) both became
    /// `Foo-95f502` (`c-ae8bb0`): a clean name shaped like a hashed slug shared its URL.
    #[test]
    fn slugs_of_names_shaped_like_hashed_slugs_stay_distinct() {
        // The issue's pairs: each second name is the first one's hashed slug.
        assert_eq!(slug("Foo!"), "Foo-95f502");
        assert_eq!(slug("c++"), "c-ae8bb0");
        let bare = slug("?#%");
        for (a, b) in [
            ("Foo!", "Foo-95f502"),
            ("c++", "c-ae8bb0"),
            ("?#%", bare.as_str()),
        ] {
            assert_ne!(slug(a), slug(b), "{a:?} vs {b:?}");
            assert!(
                looks_hashed(&slug(b)),
                "{b:?} is hashed itself: {}",
                slug(b)
            );
        }
        assert_ne!(slug("decade"), "decade");
        // Ordinary names keep their URLs (the snapshots pin them).
        for keep in [
            "IT",
            "金融",
            "a-b",
            "Foo-95f50",
            "Foo-95F502",
            "x-1234567",
            "クラウドpc",
        ] {
            assert_eq!(slug(keep), keep);
        }
        // The long form: hashed, and it tells names apart that differ only in case.
        assert_ne!(slug_long("rust", "Rust"), slug_long("rust", "rust"));
        assert!(looks_hashed(&slug_long("rust", "rust")));
    }

    #[test]
    fn markdown_is_rendered_and_sanitised() {
        let html = markdown_html(
            "**note** [ok](https://example.com) [bad](javascript:alert(1))\n\n<script>alert(1)</script><img src=x onerror=alert(1)>",
        );
        assert!(html.contains("<strong>note</strong>"), "{html}");
        assert!(
            html.contains(r#"<a href="https://example.com" rel="noopener noreferrer">ok</a>"#),
            "{html}"
        );
        assert!(!html.contains("javascript:"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("onerror"), "{html}");
    }
}
