//! What untrusted text may become in a page: links, slugs and the curator's Markdown.
//!
//! Feed content is hostile. Titles, summaries and names are plain text that the templates escape
//! (tera autoescape); a link is emitted only when it is an absolute http(s) URL; the Markdown
//! body is rendered with pulldown-cmark and then passed through ammonia's allowlist, which drops
//! scripts, event handlers and non-http(s) URLs and marks outbound links noopener noreferrer.

use std::collections::HashSet;
use std::sync::OnceLock;

use crate::fsutil;

/// The link as an http(s) URL, or `None` (javascript:, data:, vbscript:, relative, garbage).
pub fn safe_link(link: &str) -> Option<String> {
    let link = link.trim();
    let url = url::Url::parse(link).ok()?;
    match url.scheme() {
        "http" | "https" if url.host().is_some() => Some(url.to_string()),
        _ => None,
    }
}

/// A path segment for a name (category, site, keyword): letters and digits of any script are
/// kept, anything else becomes `-`; when that loses information (or the name is long) a short
/// hash of the name is appended, so two names never share a page.
pub fn slug(name: &str) -> String {
    const MAX_CHARS: usize = 60;
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
    let lossy = out.is_empty() || out != name || out.chars().count() > MAX_CHARS;
    if lossy {
        let short: String = out.chars().take(MAX_CHARS).collect();
        let hash = fsutil::fnv1a(name.as_bytes()) & 0xff_ffff;
        if short.is_empty() {
            format!("{hash:06x}")
        } else {
            format!("{short}-{hash:06x}")
        }
    } else {
        out
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
