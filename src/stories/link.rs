//! Normalised article links: the form under which syndicated copies and tracking variants of
//! one article's address are equal. Owns only the rewriting of one URL string; which links
//! join which stories is [`super::index`]'s.
//!
//! Dropped: the scheme's difference (http and https), a leading `www.`, `m.`, `mobile.` or
//! `amp.` host label, an `/amp` path segment or `.amp` / `amp.html` ending, tracking queries
//! (`utm_*`, `af=R`, `ref=rss`, `fbclid`, …), fragments that point inside a page (`#comments`,
//! `#respond`), `index.html` and a trailing slash. Kept: every other query and fragment, since
//! some sites name the page with them (jiji.com's `?k=`, kabutan's `?b=`, a status dashboard's
//! `#service-region_time`).

use url::Url;

/// Query keys that only track where a reader came from (compared in lower case; `utm_*`,
/// `mc_*` and `at_*` by prefix).
const TRACKING: &[&str] = &[
    "af",
    "ref",
    "ref_src",
    "ref_url",
    "rss",
    "from",
    "fbclid",
    "gclid",
    "dclid",
    "msclkid",
    "yclid",
    "igshid",
    "ncid",
    "cmpid",
    "cmp",
    "icid",
    "src",
    "source",
    "feed",
    "feedtype",
    "output",
    "outputtype",
    "amp",
    "spm",
    "smid",
    "share",
    "n_cid",
    "wt.mc_id",
    "guccounter",
    "s_cid",
    "rss_id",
];

/// Fragments that point to a part of the article's page, not to another page.
fn page_part(fragment: &str) -> bool {
    let f = fragment.to_ascii_lowercase();
    f.is_empty()
        || f.starts_with("comment")
        || f.starts_with("respond")
        || f.starts_with("more")
        || f.starts_with("utm_")
        || matches!(
            f.as_str(),
            "top" | "main" | "content" | "article" | "disqus_thread" | "reply" | "continue"
        )
}

fn tracking(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k.starts_with("utm_") || k.starts_with("mc_") || k.starts_with("at_") || TRACKING.contains(&&*k)
}

/// The normalised form of an article link; `None` for an empty or unparsable link, or one that
/// is not http(s) (such items never join by link).
pub fn normalise(link: &str) -> Option<String> {
    let url = Url::parse(link.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let host = url.host_str()?.to_ascii_lowercase();
    let mut host = host.as_str();
    for label in ["www.", "m.", "mobile.", "amp.", "sp."] {
        if let Some(rest) = host.strip_prefix(label)
            && rest.contains('.')
        {
            host = rest;
            break;
        }
    }
    let mut out = String::with_capacity(link.len());
    out.push_str(host);
    if let Some(port) = url.port() {
        out.push(':');
        out.push_str(&port.to_string());
    }
    let segments: Vec<&str> = url
        .path()
        .split('/')
        .filter(|s| !s.is_empty() && !s.eq_ignore_ascii_case("amp"))
        .collect();
    for (n, seg) in segments.iter().enumerate() {
        let last = n + 1 == segments.len();
        let mut seg = *seg;
        if last {
            if matches!(seg, "index.html" | "index.htm" | "index.php") {
                break;
            }
            seg = seg
                .strip_suffix(".amp")
                .or_else(|| seg.strip_suffix(".amp.html"))
                .unwrap_or(seg);
        }
        out.push('/');
        out.push_str(seg);
    }
    let mut pairs: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| !tracking(k))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if !pairs.is_empty() {
        pairs.sort();
        out.push('?');
        for (n, (k, v)) in pairs.iter().enumerate() {
            if n > 0 {
                out.push('&');
            }
            out.push_str(k);
            if !v.is_empty() {
                out.push('=');
                out.push_str(v);
            }
        }
    }
    if let Some(fragment) = url.fragment().filter(|f| !page_part(f)) {
        out.push('#');
        out.push_str(fragment);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::normalise;

    fn same(a: &str, b: &str) {
        assert_eq!(normalise(a), normalise(b), "{a} vs {b}");
    }

    fn apart(a: &str, b: &str) {
        assert_ne!(normalise(a), normalise(b), "{a} vs {b}");
    }

    #[test]
    fn tracking_queries_scheme_www_and_slashes_are_dropped() {
        same(
            "https://www.itmedia.co.jp/news/articles/2603/19/news282.html?utm_source=rss&utm_medium=feed",
            "http://itmedia.co.jp/news/articles/2603/19/news282.html",
        );
        same(
            "https://www.publickey1.jp/blog/26/typescript60.html?af=R",
            "https://www.publickey1.jp/blog/26/typescript60.html",
        );
        same(
            "https://japan.cnet.com/article/35241088/?ref=rss",
            "https://japan.cnet.com/article/35241088",
        );
        same(
            "https://example.com/a/b/#comments",
            "http://example.com/a/b",
        );
        same("https://example.com/a/index.html", "https://example.com/a/");
    }

    #[test]
    fn mobile_and_amp_variants_are_one_address() {
        same(
            "https://m.example.com/news/1",
            "https://www.example.com/news/1",
        );
        same(
            "https://example.com/amp/news/1",
            "https://example.com/news/1",
        );
        same(
            "https://example.com/news/1.amp",
            "https://example.com/news/1",
        );
        same(
            "https://example.com/news/1?outputType=amp",
            "https://example.com/news/1",
        );
    }

    #[test]
    fn queries_and_fragments_that_name_the_page_are_kept() {
        apart(
            "https://www.jiji.com/jc/article?k=2026031800058&g=soc",
            "https://www.jiji.com/jc/article?k=2026031800059&g=soc",
        );
        apart(
            "https://kabutan.jp/news/marketnews/?b=n202603173234",
            "https://kabutan.jp/news/marketnews/?b=n202603173122",
        );
        apart(
            "https://health.aws.amazon.com/health/status#ec2-ap-northeast-1_1773724320",
            "https://health.aws.amazon.com/health/status#ec2-ap-northeast-1_1773736800",
        );
        // a section named "mobile" is a path, not a mobile host
        apart(
            "https://www.itmedia.co.jp/mobile/articles/2603/18/news057.html",
            "https://www.itmedia.co.jp/articles/2603/18/news057.html",
        );
    }

    #[test]
    fn what_is_not_a_web_address_has_no_form() {
        assert_eq!(normalise(""), None);
        assert_eq!(normalise("javascript:alert(1)"), None);
        assert_eq!(normalise("not a url"), None);
    }
}
