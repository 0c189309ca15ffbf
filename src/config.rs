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

use crate::text::line_of;

pub mod publish;

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
    pub analyze: AnalyzeSettings,
    pub build: BuildSettings,
    pub trends: TrendSettings,
    pub feeds: Vec<FeedConfig>,
    /// `[[publish]]`: where `matome publish` posts new digests (see [`crate::publish`]).
    pub publish: Vec<publish::PublishTarget>,
    /// `[alerts]`: where `matome alert` (and `matome publish`) report problems.
    pub alerts: Option<publish::AlertSettings>,
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
    /// A keyword's list keeps its first page and its newest numbered pages up to this many pages
    /// in all (0: every page); its older items stay on their digest, category and site pages and
    /// in search. The most frequent keywords carry a third of an archive's items.
    pub keyword_max_pages: usize,
    /// `matome build` warns when the output folder holds more than this many megabytes
    /// (10^6 bytes): GitHub Pages publishes at most 1 GB.
    pub size_warning_mb: usize,
}

impl Default for BuildSettings {
    fn default() -> Self {
        BuildSettings {
            items_per_page: 100,
            digests_per_page: 24,
            keyword_min_items: 2,
            keyword_max_pages: 10,
            size_warning_mb: 900,
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
    /// The whole run's deadline: feeds not fetched and parsed by then are recorded as failed
    /// ("run deadline reached") and everything already fetched is written.
    pub run_timeout: Duration,
}

/// The default `[fetch] run_timeout`: 10 minutes of the hourly workflow's 45 (the rest is for
/// installing matome on a cold cache, building, checking and uploading the site).
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(600);

/// Settings of the analysis (`[analyze]` in matome.toml).
#[derive(Debug, Clone, PartialEq)]
pub struct AnalyzeSettings {
    /// 頻出ワード per item.
    pub keywords: usize,
    /// Characters of the summary.
    pub summary_chars: usize,
    /// Sentences of the summary at most.
    pub summary_sentences: usize,
}

impl Default for AnalyzeSettings {
    fn default() -> Self {
        AnalyzeSettings {
            keywords: 3,
            summary_chars: 200,
            summary_sentences: 3,
        }
    }
}

/// The largest `[fetch] run_timeout` accepted, in seconds: a day.
pub const MAX_RUN_TIMEOUT_SECS: f64 = 86_400.0;

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
            run_timeout: DEFAULT_RUN_TIMEOUT,
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
    publish: Vec<publish::RawPublish>,
    #[serde(default)]
    alerts: Option<publish::RawAlerts>,
    deploy: Option<RawDeploy>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeploy {
    url: Spanned<String>,
    region: Option<String>,
    endpoint: Option<Spanned<String>>,
    concurrency: Option<Spanned<usize>>,
    retries: Option<Spanned<usize>>,
    cache_control: Option<Spanned<String>>,
    cache_control_immutable: Option<Spanned<String>>,
}

/// A whole-number setting as written (any TOML number: the range and wholeness are checked
/// after, with the line and key, so `concurrency = 9223372036854775807` or `top = 1e9` is a
/// clear error, not a panic or a bare type error).
type Int = Option<Spanned<Number>>;

#[derive(Deserialize, Clone, Copy)]
#[serde(untagged)]
enum Number {
    Int(i64),
    Real(f64),
}
/// A number of seconds, or any other real-valued setting, as written.
type Real = Option<Spanned<f64>>;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawFetch {
    concurrency: Int,
    per_host: Int,
    connect_timeout: Real,
    timeout: Real,
    max_body_bytes: Int,
    max_redirects: Int,
    retry_after_max_wait: Real,
    max_items_per_feed: Int,
    max_title_chars: Int,
    max_text_chars: Int,
    backoff_base: Real,
    backoff_max: Real,
    run_timeout: Real,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawAnalyze {
    keywords: Int,
    summary_chars: Int,
    summary_sentences: Int,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawTrends {
    hour_window: Int,
    day_window: Int,
    min_count: Int,
    min_score: Real,
    top: Int,
    cloud_words: Int,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawBuild {
    items_per_page: Int,
    digests_per_page: Int,
    keyword_min_items: Int,
    keyword_max_pages: Int,
    size_warning_mb: Int,
}

/// The range of every numeric setting (`section.key`, least, greatest), documented in the
/// README. Seconds marked `> 0` refuse 0 as well.
pub const RANGES: &[(&str, f64, f64)] = &[
    ("fetch.concurrency", 1.0, 1024.0),
    ("fetch.per_host", 1.0, 1024.0),
    ("fetch.connect_timeout", 0.0, 600.0),
    ("fetch.timeout", 0.0, 3600.0),
    ("fetch.max_body_bytes", 1024.0, 1_073_741_824.0),
    ("fetch.max_redirects", 0.0, 20.0),
    ("fetch.retry_after_max_wait", 0.0, 3600.0),
    ("fetch.max_items_per_feed", 1.0, 100_000.0),
    ("fetch.max_title_chars", 1.0, 100_000.0),
    ("fetch.max_text_chars", 0.0, 100_000.0),
    ("fetch.backoff_base", 0.0, 604_800.0),
    ("fetch.backoff_max", 0.0, 2_592_000.0),
    ("fetch.run_timeout", 1.0, MAX_RUN_TIMEOUT_SECS),
    ("analyze.keywords", 0.0, 50.0),
    ("analyze.summary_chars", 0.0, 100_000.0),
    ("analyze.summary_sentences", 0.0, 100.0),
    ("build.items_per_page", 1.0, 10_000.0),
    ("build.digests_per_page", 1.0, 10_000.0),
    ("build.keyword_min_items", 1.0, 1_000_000.0),
    ("build.keyword_max_pages", 0.0, 1_000_000.0),
    ("build.size_warning_mb", 1.0, 1_000_000.0),
    ("trends.hour_window", 1.0, 100_000.0),
    ("trends.day_window", 1.0, 10_000.0),
    ("trends.min_count", 0.0, 1_000_000.0),
    ("trends.min_score", -1000.0, 1000.0),
    ("trends.top", 0.0, 10_000.0),
    ("trends.cloud_words", 0.0, 1000.0),
];

/// Settings in seconds that must be more than 0 (a timeout of 0 would fail every feed).
const POSITIVE_SECONDS: &[&str] = &["fetch.connect_timeout", "fetch.timeout"];

fn range_of(key: &str) -> (f64, f64) {
    RANGES
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|&(_, lo, hi)| (lo, hi))
        .expect("every numeric setting has a range")
}

/// Checks numeric settings against [`RANGES`]; errors are `FILE:LINE: section.key …`.
struct Ranges<'a> {
    at: &'a dyn Fn(std::ops::Range<usize>) -> String,
}

impl Ranges<'_> {
    /// A whole number in its range, or `default` when absent.
    fn int<T: TryFrom<i64>>(&self, v: Int, key: &str, default: T) -> Result<T> {
        let Some(v) = v else { return Ok(default) };
        let (lo, hi) = range_of(key);
        let n = match *v.get_ref() {
            Number::Int(n) => n,
            Number::Real(x) => bail!(
                "{}: {key} must be a whole number from {lo} to {hi}, not {x}",
                (self.at)(v.span())
            ),
        };
        if (n as f64) < lo || (n as f64) > hi {
            bail!(
                "{}: {key} must be at least {lo} and at most {hi}, not {n}",
                (self.at)(v.span())
            );
        }
        T::try_from(n)
            .map_err(|_| anyhow::anyhow!("{}: {key}: {n} is out of range", (self.at)(v.span())))
    }

    /// A real number in its range, or `default` when absent.
    fn real(&self, v: Real, key: &str, default: f64) -> Result<f64> {
        let Some(v) = v else { return Ok(default) };
        let (lo, hi) = range_of(key);
        let x = *v.get_ref();
        let positive = POSITIVE_SECONDS.contains(&key);
        if !x.is_finite() || x < lo || x > hi || (positive && x <= 0.0) {
            let least = if positive {
                "more than 0".to_string()
            } else {
                format!("at least {lo}")
            };
            let unit = if key.starts_with("fetch.") {
                " seconds"
            } else {
                ""
            };
            bail!(
                "{}: {key} must be {least} and at most {hi}{unit}, not {x}",
                (self.at)(v.span())
            );
        }
        Ok(x)
    }

    /// A number of seconds in its range, or `default` when absent.
    fn secs(&self, v: Real, key: &str, default: Duration) -> Result<Duration> {
        self.real(v, key, default.as_secs_f64())
            .map(Duration::from_secs_f64)
    }
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
            Ok(u) if crate::text::is_http_url(&u) => {}
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
        let r = Ranges { at: &at };
        let d = AnalyzeSettings::default();
        let analyze = AnalyzeSettings {
            keywords: r.int(raw.analyze.keywords, "analyze.keywords", d.keywords)?,
            summary_chars: r.int(
                raw.analyze.summary_chars,
                "analyze.summary_chars",
                d.summary_chars,
            )?,
            summary_sentences: r.int(
                raw.analyze.summary_sentences,
                "analyze.summary_sentences",
                d.summary_sentences,
            )?,
        };

        let b = BuildSettings::default();
        let build = BuildSettings {
            items_per_page: r.int(
                raw.build.items_per_page,
                "build.items_per_page",
                b.items_per_page,
            )?,
            digests_per_page: r.int(
                raw.build.digests_per_page,
                "build.digests_per_page",
                b.digests_per_page,
            )?,
            keyword_min_items: r.int(
                raw.build.keyword_min_items,
                "build.keyword_min_items",
                b.keyword_min_items,
            )?,
            keyword_max_pages: r.int(
                raw.build.keyword_max_pages,
                "build.keyword_max_pages",
                b.keyword_max_pages,
            )?,
            size_warning_mb: r.int(
                raw.build.size_warning_mb,
                "build.size_warning_mb",
                b.size_warning_mb,
            )?,
        };

        let d = TrendSettings::default();
        let trends = TrendSettings {
            hour_window: r.int(raw.trends.hour_window, "trends.hour_window", d.hour_window)?,
            day_window: r.int(raw.trends.day_window, "trends.day_window", d.day_window)?,
            min_count: r.int(raw.trends.min_count, "trends.min_count", d.min_count)?,
            min_score: r.real(raw.trends.min_score, "trends.min_score", d.min_score)?,
            top: r.int(raw.trends.top, "trends.top", d.top)?,
            cloud_words: r.int(raw.trends.cloud_words, "trends.cloud_words", d.cloud_words)?,
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

        let publish = publish::publish_targets(raw.publish, &at)?;
        let alerts = publish::alert_settings(raw.alerts, name, &at)?;
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
            publish,
            alerts,
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
        let retries = match raw.retries {
            None => DeploySettings::DEFAULT_RETRIES,
            Some(r) if *r.get_ref() <= 20 => *r.get_ref(),
            Some(r) => bail!("{}: deploy.retries must be 0 to 20", at(r.span())),
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
            retries,
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
        let r = Ranges { at };
        let base = raw.backoff_base.as_ref().map(|s| s.span());
        let settings = FetchSettings {
            concurrency: r.int(raw.concurrency, "fetch.concurrency", d.concurrency)?,
            per_host: r.int(raw.per_host, "fetch.per_host", d.per_host)?,
            connect_timeout: r.secs(
                raw.connect_timeout,
                "fetch.connect_timeout",
                d.connect_timeout,
            )?,
            timeout: r.secs(raw.timeout, "fetch.timeout", d.timeout)?,
            max_body_bytes: r.int(raw.max_body_bytes, "fetch.max_body_bytes", d.max_body_bytes)?,
            max_redirects: r.int(raw.max_redirects, "fetch.max_redirects", d.max_redirects)?,
            retry_after_max_wait: r.secs(
                raw.retry_after_max_wait,
                "fetch.retry_after_max_wait",
                d.retry_after_max_wait,
            )?,
            max_items_per_feed: r.int(
                raw.max_items_per_feed,
                "fetch.max_items_per_feed",
                d.max_items_per_feed,
            )?,
            max_title_chars: r.int(
                raw.max_title_chars,
                "fetch.max_title_chars",
                d.max_title_chars,
            )?,
            max_text_chars: r.int(raw.max_text_chars, "fetch.max_text_chars", d.max_text_chars)?,
            backoff_base: r.secs(raw.backoff_base, "fetch.backoff_base", d.backoff_base)?,
            backoff_max: r.secs(raw.backoff_max, "fetch.backoff_max", d.backoff_max)?,
            run_timeout: r.secs(raw.run_timeout, "fetch.run_timeout", d.run_timeout)?,
        };
        if settings.backoff_base > settings.backoff_max {
            bail!(
                "{}: fetch.backoff_base ({} s) must not be more than fetch.backoff_max ({} s)",
                base.map(at).unwrap_or_else(|| "matome.toml".into()),
                settings.backoff_base.as_secs_f64(),
                settings.backoff_max.as_secs_f64()
            );
        }
        Ok(settings)
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

    /// `timeout = 1e300`, `concurrency = 9223372036854775807` and
    /// `backoff_base = backoff_max = 1e15` panicked (Duration, Semaphore, date overflow);
    /// `timeout = 0` failed every feed. Each is refused with the file, line and key.
    #[test]
    fn numeric_settings_out_of_range_are_refused_with_file_line_and_key() {
        let cases = [
            ("[fetch]\ntimeout = 1e300\n", "fetch.timeout"),
            (
                "[fetch]\ntimeout = 0\n",
                "fetch.timeout must be more than 0",
            ),
            ("[fetch]\nconnect_timeout = 0\n", "fetch.connect_timeout"),
            ("[fetch]\ntimeout = nan\n", "fetch.timeout"),
            ("[fetch]\ntimeout = -1\n", "fetch.timeout"),
            (
                "[fetch]\nconcurrency = 9223372036854775807\n",
                "fetch.concurrency",
            ),
            ("[fetch]\nper_host = -3\n", "fetch.per_host"),
            (
                "[fetch]\nbackoff_base = 1e15\nbackoff_max = 1e15\n",
                "fetch.backoff_base",
            ),
            (
                "[fetch]\nbackoff_base = 7200\nbackoff_max = 3600\n",
                "must not be more than",
            ),
            (
                "[fetch]\nmax_body_bytes = 9223372036854775807\n",
                "fetch.max_body_bytes",
            ),
            ("[fetch]\nmax_redirects = 1000\n", "fetch.max_redirects"),
            (
                "[fetch]\nretry_after_max_wait = 1e20\n",
                "fetch.retry_after_max_wait",
            ),
            (
                "[fetch]\nmax_items_per_feed = 0\n",
                "fetch.max_items_per_feed",
            ),
            ("[fetch]\nmax_text_chars = -1\n", "fetch.max_text_chars"),
            ("[analyze]\nkeywords = 100000000\n", "analyze.keywords"),
            (
                "[build]\nitems_per_page = 9223372036854775807\n",
                "build.items_per_page",
            ),
            ("[trends]\nmin_count = -1\n", "trends.min_count"),
            ("[trends]\nmin_score = inf\n", "trends.min_score"),
            ("[trends]\ncloud_words = 1e9\n", "cloud_words"),
        ];
        for (table, key) in cases {
            let text = format!("{MINIMAL}\n{table}");
            let line = MINIMAL.lines().count() + 3;
            let err = Config::parse(&text, "matome.toml")
                .map(|c| format!("accepted: {:?}", c.fetch))
                .unwrap_or_else(|e| e.to_string());
            assert!(err.starts_with("matome.toml:"), "{table}: {err}");
            assert!(err.contains(key), "{table}: {err}");
            assert!(
                err.starts_with(&format!("matome.toml:{line}:"))
                    || err.starts_with(&format!("matome.toml:{}:", line + 1)),
                "{table}: {err}"
            );
        }
        // The ends of each range are accepted.
        let text = format!(
            "{MINIMAL}\n[fetch]\nconcurrency = 1024\ntimeout = 0.5\nbackoff_base = 604800\nbackoff_max = 2592000\nmax_redirects = 0\n"
        );
        let c = Config::parse(&text, "matome.toml").unwrap();
        assert_eq!(c.fetch.concurrency, 1024);
        assert_eq!(c.fetch.max_redirects, 0);
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
        let text = format!("{MINIMAL}\n[deploy]\nurl = \"s3://b\"\nretries = 1000000000000\n");
        let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
        assert!(
            err.starts_with("m.toml:18:") && err.contains("deploy.retries"),
            "{err}"
        );
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

    #[test]
    fn run_timeout_has_a_range() {
        let parse = |v: &str| {
            Config::parse(
                &format!("{MINIMAL}\n[fetch]\nrun_timeout = {v}\n"),
                "m.toml",
            )
        };
        assert_eq!(
            parse("90").unwrap().fetch.run_timeout,
            Duration::from_secs(90)
        );
        assert_eq!(
            parse("2.5").unwrap().fetch.run_timeout,
            Duration::from_millis(2500)
        );
        for bad in ["0", "0.5", "-1", "1e300", "nan", "inf", "86401"] {
            let err = parse(bad).unwrap_err().to_string();
            assert!(err.starts_with("m.toml:17:"), "{bad}: {err}");
            assert!(
                err.contains("fetch.run_timeout") && err.contains("at least 1 and at most 86400"),
                "{bad}: {err}"
            );
        }
    }
}
