//! The text of a post: tera templates (site `templates/publish/`, then the theme's, then the
//! built-in ones, the pages' look-up order), hashtags made from 頻出ワード, fitting each
//! service's limit, and Bluesky's facets (UTF-8 byte offsets of the hashtags and the link).
//!
//! Fitting never cuts a word in half blindly: hashtags are dropped from the end first, then
//! trend words, then the heading is shortened (by graphemes, with "…"); only a template that
//! alone exceeds the limit is cut hard.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use serde::Serialize;
use tera::Tera;
use unicode_segmentation::UnicodeSegmentation;

use super::limits::{Limit, graphemes};

/// The built-in templates: name → source.
pub const DEFAULT_TEMPLATES: &[(&str, &str)] = &[
    ("publish/post.txt", include_str!("templates/post.txt")),
    ("publish/trends.txt", include_str!("templates/trends.txt")),
    ("publish/story.txt", include_str!("templates/story.txt")),
    (
        "publish/bookmark.txt",
        include_str!("templates/bookmark.txt"),
    ),
];

/// A trend word and its search volume.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrendWord {
    pub word: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume: Option<u64>,
}

/// What a post template receives.
#[derive(Debug, Clone, Serialize)]
pub struct PostView {
    /// `digest`, `trends` or `story`.
    pub kind: &'static str,
    pub site_title: String,
    /// The digest's heading (`RSSフィード2021-07-20 08:00 分まとめ(42件)`) or the trends day's;
    /// a story's headline (its first item's title: a feed's text, made inert for a story).
    pub heading: String,
    /// A story's coverage as matome words it (`3サイトが報道`); empty for other posts.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub coverage: String,
    /// The absolute URL of the digest (or day) page.
    pub url: String,
    /// The digest's hour (RFC 3339).
    pub time: String,
    /// Items in the digest.
    pub items: usize,
    /// The digest's most frequent 頻出ワード, as written.
    pub keywords: Vec<String>,
    /// The same, hashtag-safe, without `#`.
    pub hashtags: Vec<String>,
    /// The day's top trend words (trends posts; digests that hold trend items).
    pub trend_words: Vec<TrendWord>,
}

/// The post templates of a site.
pub struct Templates {
    tera: Tera,
}

impl Templates {
    /// Loads `publish/*.txt`: the site's `templates/`, then `themes/<theme>/templates/`, then
    /// the built-in defaults.
    pub fn load(root: &Path, theme: &str) -> Result<Templates> {
        let mut tera = Tera::default();
        tera.autoescape_on(vec![]);
        for (name, builtin) in DEFAULT_TEMPLATES {
            let mut source = (builtin.to_string(), format!("(built-in) {name}"));
            for dir in [
                root.join("templates"),
                root.join("themes").join(theme).join("templates"),
            ] {
                let p = dir.join(name);
                if p.is_file() {
                    let text = std::fs::read_to_string(&p)
                        .with_context(|| format!("reading template {}", p.display()))?;
                    source = (text, p.display().to_string());
                    break;
                }
            }
            tera.add_raw_template(name, &source.0)
                .map_err(|e| anyhow!("{}", crate::render::theme::error_chain(&e)))
                .with_context(|| format!("template {}", source.1))?;
        }
        Ok(Templates { tera })
    }

    fn render(&self, name: &str, view: &PostView) -> Result<String> {
        self.render_value(name, view)
    }

    /// Renders `name` with any view (a bookmark's), blank lines dropped.
    pub fn render_value<T: Serialize>(&self, name: &str, view: &T) -> Result<String> {
        let ctx = tera::Context::from_serialize(view).context("preparing a post's view")?;
        let text = self
            .tera
            .render(name, &ctx)
            .map_err(|e| anyhow!("{}", crate::render::theme::error_chain(&e)))
            .with_context(|| format!("rendering template {name}"))?;
        // Templates end in a newline and may leave blank lines where a list was empty.
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .collect();
        Ok(lines.join("\n"))
    }

    /// Renders `name` with `view`, shortened until `limit` fits it.
    pub fn render_within(&self, name: &str, view: &PostView, limit: &Limit) -> Result<String> {
        let fits = |t: &str| limit.fits(t);
        let mut v = view.clone();
        let text = self.render(name, &v)?;
        if fits(&text) {
            return Ok(text);
        }
        while !v.hashtags.is_empty() {
            v.hashtags.pop();
            let text = self.render(name, &v)?;
            if fits(&text) {
                return Ok(text);
            }
        }
        while v.trend_words.len() > 1 {
            v.trend_words.pop();
            let text = self.render(name, &v)?;
            if fits(&text) {
                return Ok(text);
            }
        }
        // The longest heading prefix (then "…") that fits: a binary search over graphemes.
        let g: Vec<&str> = view.heading.graphemes(true).collect();
        let mut try_k = |k: usize| -> Result<Option<String>> {
            v.heading = format!("{}…", g[..k].concat());
            let text = self.render(name, &v)?;
            Ok(fits(&text).then_some(text))
        };
        if let Some(mut best) = try_k(0)? {
            let (mut lo, mut hi) = (0, g.len().saturating_sub(1));
            while lo < hi {
                let mid = (lo + hi).div_ceil(2);
                match try_k(mid)? {
                    Some(text) => {
                        best = text;
                        lo = mid;
                    }
                    None => hi = mid - 1,
                }
            }
            return Ok(best);
        }
        // Only a template (or one trend word) that alone exceeds the limit gets here.
        v.heading = String::new();
        let text = self.render(name, &v)?;
        if fits(&text) {
            return Ok(text);
        }
        Ok(cut(&text, &fits))
    }
}

/// Cuts `text` to the longest grapheme prefix (plus "…") that fits: a binary search, so a long
/// text costs a logarithmic number of measures.
pub fn cut(text: &str, fits: &dyn Fn(&str) -> bool) -> String {
    let g: Vec<&str> = text.graphemes(true).collect();
    let with = |k: usize| format!("{}…", g[..k].concat());
    let (mut lo, mut hi) = (0, g.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(&with(mid)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    with(lo)
}

/// A word as a hashtag (without `#`): letters, digits and `_` of any script are kept, the rest
/// dropped (`Google Cloud` → `GoogleCloud`, `C++` → `C`); `None` if nothing is left or only
/// digits (which no service treats as a tag) or longer than 64 graphemes.
pub fn hashtag(word: &str) -> Option<String> {
    let tag: String = word
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    // Bluesky's tags are at most 64 graphemes; a longer word is no tag anywhere worth having.
    (!tag.is_empty() && !tag.chars().all(|c| c.is_numeric()) && graphemes(&tag) <= 64)
        .then_some(tag)
}

/// Up to `n` hashtags from `words` (most important first), without repeats (any case).
pub fn hashtags<'a>(words: impl IntoIterator<Item = &'a str>, n: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words {
        if out.len() >= n {
            break;
        }
        if let Some(t) = hashtag(w)
            && !out.iter().any(|o| o.to_lowercase() == t.to_lowercase())
        {
            out.push(t);
        }
    }
    out
}

/// A Bluesky rich-text facet: a byte range of the UTF-8 text and what it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Facet {
    pub index: ByteSlice,
    pub features: Vec<serde_json::Value>,
}

/// `byteStart`..`byteEnd` of a facet (UTF-8 bytes, end exclusive).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ByteSlice {
    #[serde(rename = "byteStart")]
    pub byte_start: usize,
    #[serde(rename = "byteEnd")]
    pub byte_end: usize,
}

/// The facets of a post's text: every occurrence of `link` (the page's URL) as a `#link`, and
/// every `#tag` of `tags` (the hashtags matome made; at the start or after white space, ending
/// at a character that is not a letter, digit or `_`) as a `#tag` without its `#`. Nothing
/// else in the text becomes a facet: text from feeds reaches Bluesky as plain text.
pub fn facets(text: &str, link: &str, tags: &[String]) -> Vec<Facet> {
    let mut out = Vec::new();
    if !link.is_empty() {
        for (start, _) in text.match_indices(link) {
            out.push(Facet {
                index: ByteSlice {
                    byte_start: start,
                    byte_end: start + link.len(),
                },
                features: vec![serde_json::json!({
                    "$type": "app.bsky.richtext.facet#link",
                    "uri": link,
                })],
            });
        }
    }
    let mut prev_space = true;
    for (i, c) in text.char_indices() {
        if c == '#' && prev_space {
            let rest = &text[i + 1..];
            let len: usize = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .map(char::len_utf8)
                .sum();
            let tag = &rest[..len];
            if !tag.is_empty() && tags.iter().any(|t| t == tag) {
                out.push(Facet {
                    index: ByteSlice {
                        byte_start: i,
                        byte_end: i + 1 + len,
                    },
                    features: vec![serde_json::json!({
                        "$type": "app.bsky.richtext.facet#tag",
                        "tag": tag,
                    })],
                });
            }
        }
        prev_space = c.is_whitespace();
    }
    out.sort_by_key(|f| f.index.byte_start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(heading: &str, tags: &[&str]) -> PostView {
        PostView {
            kind: "digest",
            site_title: "t".into(),
            heading: heading.into(),
            coverage: String::new(),
            url: "https://user.github.io/repo/2021/07/20/0800/".into(),
            time: "2021-07-20T08:00:00+09:00".into(),
            items: 3,
            keywords: tags.iter().map(|s| s.to_string()).collect(),
            hashtags: tags.iter().map(|s| s.to_string()).collect(),
            trend_words: vec![],
        }
    }

    #[test]
    fn hashtags_keep_letters_of_any_script() {
        assert_eq!(hashtag("生成AI").as_deref(), Some("生成AI"));
        assert_eq!(hashtag("Google Cloud").as_deref(), Some("GoogleCloud"));
        assert_eq!(hashtag("C++").as_deref(), Some("C"));
        assert_eq!(hashtag("2021"), None);
        assert_eq!(hashtag("・"), None);
        assert_eq!(hashtag(&"語".repeat(65)), None);
        assert_eq!(
            hashtags(["AI", "ai", "日本銀行", "x y"], 2),
            ["AI", "日本銀行"]
        );
    }

    #[test]
    fn facets_are_utf8_byte_ranges_of_tags_and_link() {
        let text = "まとめ https://e.jp/a/\n#生成AI #日本銀行 a#no #123";
        let tags = [
            "生成AI".to_string(),
            "日本銀行".to_string(),
            "no".to_string(),
        ];
        let f = facets(text, "https://e.jp/a/", &tags);
        assert_eq!(f.len(), 3, "{f:?}");
        // A `#word` matome did not make is no tag, wherever it is.
        assert_eq!(facets("#BreakingScam", "", &tags), vec![]);
        assert_eq!(
            &text[f[0].index.byte_start..f[0].index.byte_end],
            "https://e.jp/a/"
        );
        assert_eq!(&text[f[1].index.byte_start..f[1].index.byte_end], "#生成AI");
        assert_eq!(f[1].features[0]["tag"], "生成AI");
        assert_eq!(
            &text[f[2].index.byte_start..f[2].index.byte_end],
            "#日本銀行"
        );
    }

    #[test]
    fn templates_are_looked_up_in_the_site_then_the_theme_then_built_in() {
        let dir = tempfile::tempdir().unwrap();
        let put = |rel: &str, text: &str| {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        put("themes/x/templates/publish/post.txt", "theme {{ url }}");
        put("themes/x/templates/publish/trends.txt", "theme trends");
        put("templates/publish/trends.txt", "site trends {{ items }}");
        let t = Templates::load(dir.path(), "x").unwrap();
        let v = view("h", &[]);
        assert_eq!(
            t.render("publish/post.txt", &v).unwrap(),
            format!("theme {}", v.url)
        );
        assert_eq!(t.render("publish/trends.txt", &v).unwrap(), "site trends 3");
        let builtin = Templates::load(dir.path(), "default").unwrap();
        assert!(
            builtin
                .render("publish/post.txt", &v)
                .unwrap()
                .starts_with("h\nhttps://")
        );
        put("templates/publish/post.txt", "{{ oops(");
        let e = Templates::load(dir.path(), "x").err().unwrap();
        assert!(
            format!("{e:#}").contains("templates/publish/post.txt"),
            "{e:#}"
        );
    }

    #[test]
    fn a_template_too_long_by_itself_is_cut_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("templates/publish/post.txt");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, format!("{}{{{{ heading }}}}", "長".repeat(400))).unwrap();
        let t = Templates::load(dir.path(), "default").unwrap();
        let text = t
            .render_within("publish/post.txt", &view("見出し", &[]), &Limit::Bluesky)
            .unwrap();
        assert_eq!(graphemes(&text), 300);
        assert!(text.ends_with("長…"), "{text}");
    }

    #[test]
    fn long_headings_and_many_tags_fit_by_dropping_tags_then_shortening() {
        let t = Templates::load(Path::new("/nonexistent"), "default").unwrap();
        let tags: Vec<String> = (0..40).map(|i| format!("タグ{i}")).collect();
        let mut v = view("RSSフィード2021-07-20 08:00 分まとめ(42件)", &[]);
        v.hashtags = tags;
        let text = t
            .render_within("publish/post.txt", &v, &Limit::Bluesky)
            .unwrap();
        assert!(graphemes(&text) <= 300);
        assert!(text.starts_with("RSSフィード2021-07-20 08:00 分まとめ(42件)\nhttps://"));
        assert!(text.contains("#タグ0 "), "{text}");
        let long = "長い見出し".repeat(100);
        let v = view(&long, &["生成AI"]);
        let text = t
            .render_within("publish/post.txt", &v, &Limit::Bluesky)
            .unwrap();
        assert!(graphemes(&text) <= 300, "{}", graphemes(&text));
        assert!(
            text.contains("…\nhttps://user.github.io/repo/2021/07/20/0800/"),
            "{text}"
        );
    }
}
