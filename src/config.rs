//! The site configuration, `matome.toml`.
//!
//! Owns parsing and validating the config (title, base_url, language, time zone, fetch settings,
//! the feed list). It does not fetch anything; `matome feeds import` lives in [`crate::import`].
//! Every error names the file, the key and the line.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use toml::Spanned;

/// The config file's name at the site root.
pub const CONFIG_FILE: &str = "matome.toml";

/// The site language: theme strings and date formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Ja,
    En,
}

/// A parsed, validated `matome.toml`.
#[derive(Debug, Clone)]
pub struct Config {
    pub title: String,
    pub base_url: String,
    pub language: Language,
    pub timezone: chrono_tz::Tz,
    pub theme: String,
    pub fetch: FetchSettings,
    pub analyze: crate::analyze::AnalyzeSettings,
    pub build: BuildSettings,
    pub trends: TrendSettings,
    pub feeds: Vec<FeedConfig>,
    /// `[deploy]`: where `matome deploy` publishes; `None` when the table is absent.
    pub deploy: Option<DeploySettings>,
}

/// `[trends]`: rising words (急上昇ワード) and the daily word clouds.
#[derive(Debug, Clone, PartialEq)]
pub struct TrendSettings {
    /// Baseline of an hour's rising words: this many digests before it.
    pub hour_window: usize,
    /// Baseline of a day's rising words: this many days before it.
    pub day_window: usize,
    /// A word rises only if it occurs at least this often in the hour or day.
    pub min_count: u32,
    /// ... and its burst score (a z-score, see `trends::burst`) is at least this.
    pub min_score: f64,
    /// Rising words listed at most.
    pub top: usize,
    /// Words in each of a day's two word clouds (Japanese, English) at most.
    pub cloud_words: usize,
}

impl Default for TrendSettings {
    fn default() -> Self {
        TrendSettings {
            hour_window: 48,
            day_window: 7,
            min_count: 3,
            min_score: 2.5,
            top: 20,
            cloud_words: 50,
        }
    }
}

/// `[build]`: the size of the site's lists.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildSettings {
    /// Items per page of a category, site or keyword.
    pub items_per_page: usize,
    /// Digests per page of the home page.
    pub digests_per_page: usize,
    /// A keyword gets a page (and its chips a link) once this many items carry it; 1 gives every
    /// keyword a page. Real archives have many keywords seen once: 2 keeps a year's site far
    /// smaller (GitHub Pages sites should stay under 1 GB).
    pub keyword_min_items: usize,
}

impl Default for BuildSettings {
    fn default() -> Self {
        BuildSettings {
            items_per_page: 50,
            digests_per_page: 24,
            keyword_min_items: 1,
        }
    }
}

/// `[deploy]`: the S3-compatible bucket `matome deploy` publishes the built site to.
/// Credentials never live here: they come from the environment (`AWS_ACCESS_KEY_ID`, …).
#[derive(Debug, Clone, PartialEq)]
pub struct DeploySettings {
    /// `url` as written (`s3://bucket/prefix`), for messages.
    pub url: String,
    pub bucket: String,
    /// The key prefix without leading or trailing `/` (empty: the bucket's root).
    pub prefix: String,
    /// `region`; `None`: `AWS_REGION` / `AWS_DEFAULT_REGION`, else `us-east-1` (R2: `auto`).
    pub region: Option<String>,
    /// `endpoint` for R2, MinIO or GCS interoperability (`https://…`); `None`: Amazon S3.
    pub endpoint: Option<String>,
    /// Objects uploaded or deleted at once.
    pub concurrency: usize,
    /// Retries of a failed request (with exponential back-off) before it counts as failed.
    pub retries: usize,
    /// Cache-Control of every object whose URL carries no version (HTML, feeds, …).
    pub cache_control: String,
    /// Cache-Control of the search shards, whose URLs carry the index version (`?v=`).
    pub cache_control_immutable: String,
}

impl DeploySettings {
    pub const DEFAULT_CONCURRENCY: usize = 8;
    pub const DEFAULT_RETRIES: usize = 4;
    pub const DEFAULT_CACHE_CONTROL: &str = "public, max-age=300";
    pub const DEFAULT_CACHE_CONTROL_IMMUTABLE: &str = "public, max-age=31536000, immutable";
}

/// Splits `s3://bucket/prefix` into the bucket and the prefix (no leading or trailing `/`).
pub fn parse_bucket_url(url: &str) -> Result<(String, String), String> {
    let Some(rest) = url.strip_prefix("s3://") else {
        return Err(format!(
            "`{url}` is not an s3:// URL: write \"s3://BUCKET\" or \"s3://BUCKET/PREFIX\" (R2, MinIO and GCS use s3:// too, with `endpoint`)"
        ));
    };
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    let valid =
        |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.' | '_');
    if bucket.is_empty() || !bucket.chars().all(valid) {
        return Err(format!(
            "`{url}`: the bucket name `{bucket}` must be lower-case letters, digits, `-`, `.` or `_`"
        ));
    }
    let prefix = prefix.trim_matches('/');
    if prefix.split('/').any(|p| p == "." || p == "..") || prefix.contains("//") {
        return Err(format!(
            "`{url}`: the prefix `{prefix}` must not hold `.`, `..` or empty parts"
        ));
    }
    Ok((bucket.to_string(), prefix.to_string()))
}

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

/// `[fetch]`: how politely and how defensively feeds are fetched.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchSettings {
    /// Feeds fetched at once, overall.
    pub concurrency: usize,
    /// Feeds fetched at once from one host.
    pub per_host: usize,
    pub connect_timeout: Duration,
    /// Whole request, body included.
    pub timeout: Duration,
    /// Cap on the decoded (decompressed) body.
    pub max_body_bytes: u64,
    pub max_redirects: usize,
    /// A `Retry-After` up to this long is waited for within the run; longer ones defer the feed
    /// to a later run.
    pub retry_after_max_wait: Duration,
    /// Items kept per feed per run (the newest first as the feed lists them).
    pub max_items_per_feed: usize,
    /// Titles longer than this many characters are cut (with "…").
    pub max_title_chars: usize,
    /// The plain text kept from an item's description.
    pub max_text_chars: usize,
    /// Back-off after repeated failures: first delay and cap.
    pub backoff_base: Duration,
    pub backoff_max: Duration,
}

impl Default for FetchSettings {
    fn default() -> Self {
        FetchSettings {
            concurrency: 16,
            per_host: 2,
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_body_bytes: 8 * 1024 * 1024,
            max_redirects: 5,
            retry_after_max_wait: Duration::from_secs(10),
            max_items_per_feed: 200,
            max_title_chars: 300,
            max_text_chars: 1000,
            backoff_base: Duration::from_secs(3600),
            backoff_max: Duration::from_secs(24 * 3600),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    title: String,
    base_url: Spanned<String>,
    #[serde(default)]
    language: Option<Language>,
    #[serde(default)]
    timezone: Option<Spanned<String>>,
    #[serde(default)]
    theme: Option<String>,
    #[serde(default)]
    fetch: RawFetch,
    #[serde(default)]
    analyze: RawAnalyze,
    #[serde(default)]
    build: RawBuild,
    #[serde(default)]
    trends: RawTrends,
    #[serde(default)]
    feeds: Vec<RawFeed>,
    #[serde(default)]
    deploy: Option<RawDeploy>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeploy {
    url: Spanned<String>,
    region: Option<String>,
    endpoint: Option<Spanned<String>>,
    concurrency: Option<Spanned<usize>>,
    retries: Option<usize>,
    cache_control: Option<Spanned<String>>,
    cache_control_immutable: Option<Spanned<String>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawFetch {
    concurrency: Option<Spanned<usize>>,
    per_host: Option<Spanned<usize>>,
    connect_timeout: Option<Spanned<f64>>,
    timeout: Option<Spanned<f64>>,
    max_body_bytes: Option<Spanned<u64>>,
    max_redirects: Option<usize>,
    retry_after_max_wait: Option<Spanned<f64>>,
    max_items_per_feed: Option<Spanned<usize>>,
    max_title_chars: Option<Spanned<usize>>,
    max_text_chars: Option<usize>,
    backoff_base: Option<Spanned<f64>>,
    backoff_max: Option<Spanned<f64>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawAnalyze {
    keywords: Option<usize>,
    summary_chars: Option<usize>,
    summary_sentences: Option<usize>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawTrends {
    hour_window: Option<Spanned<usize>>,
    day_window: Option<Spanned<usize>>,
    min_count: Option<u32>,
    min_score: Option<Spanned<f64>>,
    top: Option<usize>,
    cloud_words: Option<usize>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawBuild {
    items_per_page: Option<Spanned<usize>>,
    digests_per_page: Option<Spanned<usize>>,
    keyword_min_items: Option<Spanned<usize>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFeed {
    url: Spanned<String>,
    category: Spanned<String>,
    #[serde(default)]
    site: Option<String>,
    #[serde(default)]
    kind: Option<Spanned<String>>,
}

/// 1-based line of a byte offset in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Checks that `url` is an absolute http(s) URL; the error says what is wrong.
pub fn check_feed_url(url: &str) -> Result<(), String> {
    match url::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => Ok(()),
        Ok(u) => Err(format!(
            "`{url}` is not an http(s) URL (scheme `{}`)",
            u.scheme()
        )),
        Err(e) => Err(format!("`{url}` is not a valid URL: {e}")),
    }
}

impl Config {
    /// Parses and validates config text. `name` is used in error messages (usually the path).
    pub fn parse(text: &str, name: &str) -> Result<Config> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            let msg = e.message().trim().to_string();
            match line {
                Some(line) => anyhow::anyhow!("{name}:{line}: {msg}"),
                None => anyhow::anyhow!("{name}: {msg}"),
            }
        })?;
        let at = |span: std::ops::Range<usize>| format!("{name}:{}", line_of(text, span.start));

        let base_url = raw.base_url.get_ref().trim().to_string();
        match url::Url::parse(&base_url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {}
            _ => bail!(
                "{}: `base_url` must be an absolute http(s) URL such as \"https://USER.github.io/REPO/\", not {base_url:?}",
                at(raw.base_url.span())
            ),
        }
        let base_url = if base_url.ends_with('/') {
            base_url
        } else {
            format!("{base_url}/")
        };

        let timezone = match &raw.timezone {
            None => chrono_tz::Tz::UTC,
            Some(tz) => tz.get_ref().parse::<chrono_tz::Tz>().map_err(|_| {
                anyhow::anyhow!(
                    "{}: `timezone` must be an IANA time zone name such as \"Asia/Tokyo\" or \"UTC\", not {:?}",
                    at(tz.span()),
                    tz.get_ref()
                )
            })?,
        };

        let fetch = Self::fetch_settings(raw.fetch, &at)?;
        let d = crate::analyze::AnalyzeSettings::default();
        let analyze = crate::analyze::AnalyzeSettings {
            keywords: raw.analyze.keywords.unwrap_or(d.keywords),
            summary_chars: raw.analyze.summary_chars.unwrap_or(d.summary_chars),
            summary_sentences: raw.analyze.summary_sentences.unwrap_or(d.summary_sentences),
        };

        let b = BuildSettings::default();
        let positive = |v: Option<Spanned<usize>>, name: &str, default: usize| -> Result<usize> {
            match v {
                None => Ok(default),
                Some(v) if *v.get_ref() >= 1 => Ok(*v.get_ref()),
                Some(v) => bail!("{}: build.{name} must be at least 1", at(v.span())),
            }
        };
        let build = BuildSettings {
            items_per_page: positive(raw.build.items_per_page, "items_per_page", b.items_per_page)?,
            digests_per_page: positive(
                raw.build.digests_per_page,
                "digests_per_page",
                b.digests_per_page,
            )?,
            keyword_min_items: positive(
                raw.build.keyword_min_items,
                "keyword_min_items",
                b.keyword_min_items,
            )?,
        };

        let d = TrendSettings::default();
        let trends = TrendSettings {
            hour_window: positive(raw.trends.hour_window, "hour_window", d.hour_window)
                .map_err(|e| anyhow::anyhow!("{}", e.to_string().replace("build.", "trends.")))?,
            day_window: positive(raw.trends.day_window, "day_window", d.day_window)
                .map_err(|e| anyhow::anyhow!("{}", e.to_string().replace("build.", "trends.")))?,
            min_count: raw.trends.min_count.unwrap_or(d.min_count),
            min_score: match raw.trends.min_score {
                None => d.min_score,
                Some(v) if v.get_ref().is_finite() => *v.get_ref(),
                Some(v) => bail!("{}: trends.min_score must be a number", at(v.span())),
            },
            top: raw.trends.top.unwrap_or(d.top),
            cloud_words: raw.trends.cloud_words.unwrap_or(d.cloud_words),
        };

        let mut feeds: Vec<FeedConfig> = Vec::with_capacity(raw.feeds.len());
        let mut seen = std::collections::HashMap::new();
        for f in raw.feeds {
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

        let deploy = raw
            .deploy
            .map(|d| Self::deploy_settings(d, &at))
            .transpose()?;

        Ok(Config {
            title: raw.title,
            base_url,
            language: raw.language.unwrap_or(Language::Ja),
            timezone,
            theme: raw.theme.unwrap_or_else(|| "default".to_string()),
            fetch,
            analyze,
            build,
            trends,
            feeds,
            deploy,
        })
    }

    fn deploy_settings(
        raw: RawDeploy,
        at: &dyn Fn(std::ops::Range<usize>) -> String,
    ) -> Result<DeploySettings> {
        let url = raw.url.get_ref().trim().to_string();
        let (bucket, prefix) = parse_bucket_url(&url)
            .map_err(|why| anyhow::anyhow!("{}: deploy.url: {why}", at(raw.url.span())))?;
        let endpoint = match raw.endpoint {
            None => None,
            Some(e) => {
                let v = e.get_ref().trim().trim_end_matches('/').to_string();
                check_feed_url(&v).map_err(|why| {
                    anyhow::anyhow!(
                        "{}: deploy.endpoint: {why}; e.g. \"https://ACCOUNT_ID.r2.cloudflarestorage.com\"",
                        at(e.span())
                    )
                })?;
                Some(v)
            }
        };
        let concurrency = match raw.concurrency {
            None => DeploySettings::DEFAULT_CONCURRENCY,
            Some(c) if (1..=256).contains(c.get_ref()) => *c.get_ref(),
            Some(c) => bail!("{}: deploy.concurrency must be 1 to 256", at(c.span())),
        };
        let header = |v: Option<Spanned<String>>, key: &str, default: &str| -> Result<String> {
            match v {
                None => Ok(default.to_string()),
                Some(s)
                    if !s.get_ref().trim().is_empty()
                        && s.get_ref()
                            .chars()
                            .all(|c| c == ' ' || c.is_ascii_graphic()) =>
                {
                    Ok(s.get_ref().trim().to_string())
                }
                Some(s) => bail!(
                    "{}: deploy.{key} must be a non-empty Cache-Control value such as {default:?}",
                    at(s.span())
                ),
            }
        };
        Ok(DeploySettings {
            url,
            bucket,
            prefix,
            region: raw
                .region
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty()),
            endpoint,
            concurrency,
            retries: raw.retries.unwrap_or(DeploySettings::DEFAULT_RETRIES),
            cache_control: header(
                raw.cache_control,
                "cache_control",
                DeploySettings::DEFAULT_CACHE_CONTROL,
            )?,
            cache_control_immutable: header(
                raw.cache_control_immutable,
                "cache_control_immutable",
                DeploySettings::DEFAULT_CACHE_CONTROL_IMMUTABLE,
            )?,
        })
    }

    fn fetch_settings(
        raw: RawFetch,
        at: &dyn Fn(std::ops::Range<usize>) -> String,
    ) -> Result<FetchSettings> {
        let d = FetchSettings::default();
        let positive = |v: Option<Spanned<usize>>, key: &str, default: usize| -> Result<usize> {
            match v {
                None => Ok(default),
                Some(s) if *s.get_ref() >= 1 => Ok(*s.get_ref()),
                Some(s) => bail!("{}: fetch.{key} must be at least 1", at(s.span())),
            }
        };
        let secs = |v: Option<Spanned<f64>>, key: &str, default: Duration| -> Result<Duration> {
            match v {
                None => Ok(default),
                Some(s) if s.get_ref().is_finite() && *s.get_ref() >= 0.0 => {
                    Ok(Duration::from_secs_f64(*s.get_ref()))
                }
                Some(s) => bail!(
                    "{}: fetch.{key} is a number of seconds, 0 or more",
                    at(s.span())
                ),
            }
        };
        let max_body_bytes = match raw.max_body_bytes {
            None => d.max_body_bytes,
            Some(s) if *s.get_ref() >= 1024 => *s.get_ref(),
            Some(s) => bail!(
                "{}: fetch.max_body_bytes must be at least 1024",
                at(s.span())
            ),
        };
        Ok(FetchSettings {
            concurrency: positive(raw.concurrency, "concurrency", d.concurrency)?,
            per_host: positive(raw.per_host, "per_host", d.per_host)?,
            connect_timeout: secs(raw.connect_timeout, "connect_timeout", d.connect_timeout)?,
            timeout: secs(raw.timeout, "timeout", d.timeout)?,
            max_body_bytes,
            max_redirects: raw.max_redirects.unwrap_or(d.max_redirects),
            retry_after_max_wait: secs(
                raw.retry_after_max_wait,
                "retry_after_max_wait",
                d.retry_after_max_wait,
            )?,
            max_items_per_feed: positive(
                raw.max_items_per_feed,
                "max_items_per_feed",
                d.max_items_per_feed,
            )?,
            max_title_chars: positive(raw.max_title_chars, "max_title_chars", d.max_title_chars)?,
            max_text_chars: raw.max_text_chars.unwrap_or(d.max_text_chars),
            backoff_base: secs(raw.backoff_base, "backoff_base", d.backoff_base)?,
            backoff_max: secs(raw.backoff_max, "backoff_max", d.backoff_max)?,
        })
    }

    /// Reads and parses `<root>/matome.toml`.
    pub fn load(root: &Path) -> Result<Config> {
        let path = config_path(root);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "reading {} (is this a matome site? `matome init` makes one, `--root DIR` points at one)",
                path.display()
            )
        })?;
        Config::parse(&text, &path.display().to_string())
    }
}

/// `<root>/matome.toml`.
pub fn config_path(root: &Path) -> PathBuf {
    root.join(CONFIG_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
title = "テックニュースまとめ"
base_url = "https://user.github.io/repo/"
language = "ja"
timezone = "Asia/Tokyo"

[[feeds]]
url = "https://rss.itmedia.co.jp/rss/2.0/itmedia_all.xml"
category = "IT"
site = "ITmedia 総合記事一覧"

[[feeds]]
url = "https://example.com/feed"
category = "海外TECH"
"#;

    #[test]
    fn parses_the_design_example() {
        let c = Config::parse(MINIMAL, "matome.toml").unwrap();
        assert_eq!(c.title, "テックニュースまとめ");
        assert_eq!(c.timezone, chrono_tz::Asia::Tokyo);
        assert_eq!(c.language, Language::Ja);
        assert_eq!(c.feeds.len(), 2);
        assert_eq!(c.feeds[0].site.as_deref(), Some("ITmedia 総合記事一覧"));
        assert_eq!(c.feeds[1].site, None);
        assert_eq!(c.fetch, FetchSettings::default());
        assert_eq!(c.theme, "default");
    }

    #[test]
    fn unknown_key_names_key_and_line() {
        let text = MINIMAL.replace("category = \"IT\"", "category = \"IT\"\ncolour = \"red\"");
        let err = Config::parse(&text, "matome.toml").unwrap_err().to_string();
        assert!(err.contains("colour"), "{err}");
        assert!(err.starts_with("matome.toml:10:"), "{err}");
    }

    #[test]
    fn unknown_top_level_key_is_an_error() {
        let text = format!("titel = \"x\"\n{MINIMAL}");
        let err = Config::parse(&text, "matome.toml").unwrap_err().to_string();
        assert!(err.contains("titel"), "{err}");
        assert!(err.starts_with("matome.toml:1:"), "{err}");
    }

    #[test]
    fn bad_timezone_names_line() {
        let text = MINIMAL.replace("Asia/Tokyo", "Tokyo/Japan");
        let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
        assert!(err.starts_with("m.toml:5:"), "{err}");
        assert!(err.contains("timezone"), "{err}");
    }

    #[test]
    fn feed_url_must_be_http() {
        let text = MINIMAL.replace("https://example.com/feed", "ftp://example.com/feed");
        let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
        assert!(err.starts_with("m.toml:13:"), "{err}");
        assert!(err.contains("ftp"), "{err}");
    }

    #[test]
    fn duplicate_feed_is_an_error() {
        let text = MINIMAL.replace(
            "https://example.com/feed",
            "https://rss.itmedia.co.jp/rss/2.0/itmedia_all.xml",
        );
        let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
        assert!(err.contains("listed twice"), "{err}");
    }

    #[test]
    fn fetch_settings_override_defaults() {
        let text = format!("{MINIMAL}\n[fetch]\nconcurrency = 4\ntimeout = 2.5\n")
            .replace("[[feeds]]", "[[feeds]]");
        // [fetch] after [[feeds]] arrays is still a top-level table in TOML.
        let c = Config::parse(&text, "m.toml").unwrap();
        assert_eq!(c.fetch.concurrency, 4);
        assert_eq!(c.fetch.timeout, Duration::from_millis(2500));
        assert_eq!(c.fetch.per_host, 2);
    }

    #[test]
    fn deploy_table_is_parsed_with_defaults() {
        let text = format!(
            "{MINIMAL}\n[deploy]\nurl = \"s3://news-site/archive/\"\nendpoint = \"http://127.0.0.1:9000/\"\n"
        );
        let c = Config::parse(&text, "m.toml").unwrap();
        let d = c.deploy.unwrap();
        assert_eq!(
            (d.bucket.as_str(), d.prefix.as_str()),
            ("news-site", "archive")
        );
        assert_eq!(d.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(d.concurrency, DeploySettings::DEFAULT_CONCURRENCY);
        assert_eq!(d.cache_control, DeploySettings::DEFAULT_CACHE_CONTROL);
        assert!(Config::parse(MINIMAL, "m.toml").unwrap().deploy.is_none());
    }

    #[test]
    fn deploy_errors_name_key_and_line() {
        let text = format!("{MINIMAL}\n[deploy]\nurl = \"https://bucket\"\n");
        let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
        assert!(
            err.starts_with("m.toml:17:") && err.contains("deploy.url"),
            "{err}"
        );
        let text = format!("{MINIMAL}\n[deploy]\nurl = \"s3://b\"\nbucket = \"b\"\n");
        let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
        assert!(
            err.starts_with("m.toml:18:") && err.contains("bucket"),
            "{err}"
        );
        let text = format!("{MINIMAL}\n[deploy]\nurl = \"s3://b\"\nconcurrency = 0\n");
        let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
        assert!(err.contains("deploy.concurrency"), "{err}");
        assert!(parse_bucket_url("s3://Bad_Bucket").is_err());
        assert!(parse_bucket_url("s3://b/a/../c").is_err());
        assert_eq!(parse_bucket_url("s3://b"), Ok(("b".into(), String::new())));
    }

    #[test]
    fn zero_concurrency_is_refused() {
        let text = format!("{MINIMAL}\n[fetch]\nconcurrency = 0\n");
        let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
        assert!(err.contains("fetch.concurrency"), "{err}");
    }
}
