//! `[[feeds]]` in matome.toml: each feed's URL (an http(s) URL, listed once), category, site
//! name and kind, validated with file:line errors like the rest of the config.

use anyhow::{Result, bail};
use serde::Deserialize;
use toml::Spanned;

use crate::text::line_of;

/// One `[[feeds]]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedConfig {
    pub url: String,
    pub category: String,
    /// The site name shown on pages; `None` means "the feed's own title".
    pub site: Option<String>,
    pub kind: FeedKind,
}

/// What a feed's items are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FeedKind {
    /// News: items with 頻出ワード and summaries (the default).
    #[default]
    News,
    /// Trend words with their search volume (Google Trends' RSS): `kind = "trends"`.
    Trends,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFeed {
    url: Spanned<String>,
    category: Spanned<String>,
    #[serde(default)]
    site: Option<String>,
    #[serde(default)]
    kind: Option<Spanned<String>>,
}

/// Checks that `url` is an absolute http(s) URL; the error says what is wrong.
pub fn check_feed_url(url: &str) -> Result<(), String> {
    match url::Url::parse(url) {
        Ok(u) if crate::text::is_http_url(&u) => Ok(()),
        Ok(u) => Err(format!(
            "`{url}` is not an http(s) URL (scheme `{}`)",
            u.scheme()
        )),
        Err(e) => Err(format!("`{url}` is not a valid URL: {e}")),
    }
}

/// `[[feeds]]`: each URL an http(s) URL listed once, each with a category.
pub(super) fn read(
    raw: Vec<RawFeed>,
    text: &str,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<Vec<FeedConfig>> {
    let mut feeds: Vec<FeedConfig> = Vec::with_capacity(raw.len());
    let mut seen = std::collections::HashMap::new();
    for f in raw {
        let url = f.url.get_ref().trim().to_string();
        if let Err(why) = check_feed_url(&url) {
            bail!("{}: feeds.url: {why}", at(f.url.span()));
        }
        if let Some(first) = seen.insert(url.clone(), line_of(text, f.url.span().start)) {
            bail!(
                "{}: feeds.url: `{url}` is listed twice (first on line {first}); remove one",
                at(f.url.span())
            );
        }
        let category = f.category.get_ref().trim().to_string();
        if category.is_empty() {
            bail!(
                "{}: feeds.category must not be empty",
                at(f.category.span())
            );
        }
        let site = f
            .site
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty());
        let kind = match f.kind.as_ref().map(|k| k.get_ref().as_str()) {
            None | Some("news") => FeedKind::News,
            Some("trends") => FeedKind::Trends,
            Some(other) => bail!(
                "{}: feeds.kind must be \"news\" or \"trends\", not {other:?}",
                at(f.kind.as_ref().expect("some").span())
            ),
        };
        feeds.push(FeedConfig {
            url,
            category,
            site,
            kind,
        });
    }
    Ok(feeds)
}
