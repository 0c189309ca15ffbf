//! The site configuration, `matome.toml`.
//!
//! Owns parsing and validating the config (title, base_url, language, time zone, fetch settings,
//! the feed list). It does not fetch anything; `matome feeds import` lives in [`crate::import`].
//! Every error names the file, the key and the line. Beside it: `[[feeds]]` in `feeds.rs`,
//! `[[publish]]` and `[alerts]` in [`publish`], `[deploy]` in [`deploy`], every numeric
//! setting's key, default, range and help in [`settings`] (checked as read by `ranges.rs`), the
//! unit tests in `config/tests.rs`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use toml::Spanned;

use crate::text::line_of;

pub mod allow_private;
pub mod deploy;
mod feeds;
pub mod publish;
mod ranges;
pub mod settings;
pub mod stories;

pub use deploy::DeploySettings;
pub use feeds::{FeedConfig, FeedKind, check_feed_url};
use ranges::{Int, Ranges, Real};
use settings as s;
pub use stories::StorySettings;

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
    /// `[stories]`: the window stories are decided against, and what the pages make of them.
    pub stories: StorySettings,
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
            hour_window: s::TRENDS_HOUR_WINDOW.usize(),
            day_window: s::TRENDS_DAY_WINDOW.usize(),
            min_count: s::TRENDS_MIN_COUNT.u32(),
            min_score: s::TRENDS_MIN_SCORE.default,
            top: s::TRENDS_TOP.usize(),
            cloud_words: s::TRENDS_CLOUD_WORDS.usize(),
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
    /// ... and items from at least this many distinct sites: one feed alone (whose site name is
    /// fixed at its first title) cannot make keyword pages, however many items it sends.
    pub keyword_min_sites: usize,
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
            items_per_page: s::BUILD_ITEMS_PER_PAGE.usize(),
            digests_per_page: s::BUILD_DIGESTS_PER_PAGE.usize(),
            keyword_min_items: s::BUILD_KEYWORD_MIN_ITEMS.usize(),
            keyword_min_sites: s::BUILD_KEYWORD_MIN_SITES.usize(),
            keyword_max_pages: s::BUILD_KEYWORD_MAX_PAGES.usize(),
            size_warning_mb: s::BUILD_SIZE_WARNING_MB.usize(),
        }
    }
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
    /// New items archived per feed per day (the site's calendar day); the rest wait for a later
    /// day's run (see `fetch::run`).
    pub max_items_per_feed_day: usize,
    /// Bytes the new items of one feed may add in a day (weighed by `fetch/weight.rs`: the
    /// larger of their bytes in content/ and in the built site); the rest wait likewise, and an
    /// item heavier than this alone is not archived.
    pub max_bytes_per_feed_day: u64,
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
    /// Networks and host names besides each feed's own origin that a fetch may reach although
    /// they are not globally reachable (`[fetch] allow_private`; see `fetch/guard.rs`).
    pub allow_private: allow_private::AllowPrivate,
}

impl FetchSettings {
    /// A failing feed's back-off (`backoff_base`, `backoff_max`).
    pub fn backoff(&self) -> crate::backoff::Backoff {
        crate::backoff::Backoff {
            base: self.backoff_base,
            max: self.backoff_max,
        }
    }
}

/// The default `[fetch] run_timeout`: 10 minutes of the hourly workflow's 45 (the rest is for
/// installing matome on a cold cache, building, checking and uploading the site).
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(s::FETCH_RUN_TIMEOUT.u64());

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
            keywords: s::ANALYZE_KEYWORDS.usize(),
            summary_chars: s::ANALYZE_SUMMARY_CHARS.usize(),
            summary_sentences: s::ANALYZE_SUMMARY_SENTENCES.usize(),
        }
    }
}

pub use settings::MAX_RUN_TIMEOUT_SECS;

/// The default `[fetch] max_bytes_per_feed_day`: 330 kB, so a month of one feed weighs at most
/// ~10 MB whatever it sends (measured: 8–9 MB of site for the heaviest items), while 200
/// ordinary items a day (~1.5 kB each) pass.
pub const DEFAULT_MAX_BYTES_PER_FEED_DAY: u64 = s::FETCH_MAX_BYTES_PER_FEED_DAY.u64();

impl Default for FetchSettings {
    fn default() -> Self {
        FetchSettings {
            concurrency: s::FETCH_CONCURRENCY.usize(),
            per_host: s::FETCH_PER_HOST.usize(),
            connect_timeout: s::FETCH_CONNECT_TIMEOUT.duration(),
            timeout: s::FETCH_TIMEOUT.duration(),
            max_body_bytes: s::FETCH_MAX_BODY_BYTES.u64(),
            max_redirects: s::FETCH_MAX_REDIRECTS.usize(),
            retry_after_max_wait: s::FETCH_RETRY_AFTER_MAX_WAIT.duration(),
            max_items_per_feed: s::FETCH_MAX_ITEMS_PER_FEED.usize(),
            max_items_per_feed_day: s::FETCH_MAX_ITEMS_PER_FEED_DAY.usize(),
            max_bytes_per_feed_day: s::FETCH_MAX_BYTES_PER_FEED_DAY.u64(),
            max_title_chars: s::FETCH_MAX_TITLE_CHARS.usize(),
            max_text_chars: s::FETCH_MAX_TEXT_CHARS.usize(),
            backoff_base: s::FETCH_BACKOFF_BASE.duration(),
            backoff_max: s::FETCH_BACKOFF_MAX.duration(),
            run_timeout: DEFAULT_RUN_TIMEOUT,
            allow_private: Default::default(),
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
    stories: stories::RawStories,
    #[serde(default)]
    feeds: Vec<feeds::RawFeed>,
    #[serde(default)]
    publish: Vec<publish::RawPublish>,
    #[serde(default)]
    alerts: Option<publish::RawAlerts>,
    deploy: Option<deploy::RawDeploy>,
}

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
    max_items_per_feed_day: Int,
    max_bytes_per_feed_day: Int,
    max_title_chars: Int,
    max_text_chars: Int,
    backoff_base: Real,
    backoff_max: Real,
    run_timeout: Real,
    #[serde(default)]
    allow_private: Vec<Spanned<String>>,
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
    keyword_min_sites: Int,
    keyword_max_pages: Int,
    size_warning_mb: Int,
}

impl RawAnalyze {
    fn settings(self, r: &Ranges) -> Result<AnalyzeSettings> {
        Ok(AnalyzeSettings {
            keywords: r.int(self.keywords, &s::ANALYZE_KEYWORDS)?,
            summary_chars: r.int(self.summary_chars, &s::ANALYZE_SUMMARY_CHARS)?,
            summary_sentences: r.int(self.summary_sentences, &s::ANALYZE_SUMMARY_SENTENCES)?,
        })
    }
}

impl RawBuild {
    fn settings(self, r: &Ranges) -> Result<BuildSettings> {
        Ok(BuildSettings {
            items_per_page: r.int(self.items_per_page, &s::BUILD_ITEMS_PER_PAGE)?,
            digests_per_page: r.int(self.digests_per_page, &s::BUILD_DIGESTS_PER_PAGE)?,
            keyword_min_items: r.int(self.keyword_min_items, &s::BUILD_KEYWORD_MIN_ITEMS)?,
            keyword_min_sites: r.int(self.keyword_min_sites, &s::BUILD_KEYWORD_MIN_SITES)?,
            keyword_max_pages: r.int(self.keyword_max_pages, &s::BUILD_KEYWORD_MAX_PAGES)?,
            size_warning_mb: r.int(self.size_warning_mb, &s::BUILD_SIZE_WARNING_MB)?,
        })
    }
}

impl RawTrends {
    fn settings(self, r: &Ranges) -> Result<TrendSettings> {
        Ok(TrendSettings {
            hour_window: r.int(self.hour_window, &s::TRENDS_HOUR_WINDOW)?,
            day_window: r.int(self.day_window, &s::TRENDS_DAY_WINDOW)?,
            min_count: r.int(self.min_count, &s::TRENDS_MIN_COUNT)?,
            min_score: r.real(self.min_score, &s::TRENDS_MIN_SCORE)?,
            top: r.int(self.top, &s::TRENDS_TOP)?,
            cloud_words: r.int(self.cloud_words, &s::TRENDS_CLOUD_WORDS)?,
        })
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

        let Some(base_url) = normalize_base_url(raw.base_url.get_ref()) else {
            bail!(
                "{}: `base_url` must be an absolute http(s) URL such as \"https://USER.github.io/REPO/\", not {:?}",
                at(raw.base_url.span()),
                raw.base_url.get_ref().trim()
            )
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

        let r = Ranges { at: &at };
        let fetch = Self::fetch_settings(raw.fetch, &at)?;
        let analyze = raw.analyze.settings(&r)?;
        let build = raw.build.settings(&r)?;
        let trends = raw.trends.settings(&r)?;
        let stories = raw.stories.settings(&r)?;
        let feeds = feeds::read(raw.feeds, text, &at)?;
        let publish = publish::publish_targets(raw.publish, text, &at)?;
        let alerts = publish::alert_settings(raw.alerts, name, &at)?;
        let deploy = raw
            .deploy
            .map(|d| deploy::deploy_settings(d, &at))
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
            stories,
            feeds,
            publish,
            alerts,
            deploy,
        })
    }

    fn fetch_settings(
        raw: RawFetch,
        at: &dyn Fn(std::ops::Range<usize>) -> String,
    ) -> Result<FetchSettings> {
        let r = Ranges { at };
        let base = raw.backoff_base.as_ref().map(|s| s.span());
        let settings = FetchSettings {
            concurrency: r.int(raw.concurrency, &s::FETCH_CONCURRENCY)?,
            per_host: r.int(raw.per_host, &s::FETCH_PER_HOST)?,
            connect_timeout: r.secs(raw.connect_timeout, &s::FETCH_CONNECT_TIMEOUT)?,
            timeout: r.secs(raw.timeout, &s::FETCH_TIMEOUT)?,
            max_body_bytes: r.int(raw.max_body_bytes, &s::FETCH_MAX_BODY_BYTES)?,
            max_redirects: r.int(raw.max_redirects, &s::FETCH_MAX_REDIRECTS)?,
            retry_after_max_wait: r
                .secs(raw.retry_after_max_wait, &s::FETCH_RETRY_AFTER_MAX_WAIT)?,
            max_items_per_feed: r.int(raw.max_items_per_feed, &s::FETCH_MAX_ITEMS_PER_FEED)?,
            max_items_per_feed_day: r
                .int(raw.max_items_per_feed_day, &s::FETCH_MAX_ITEMS_PER_FEED_DAY)?,
            max_bytes_per_feed_day: r
                .int(raw.max_bytes_per_feed_day, &s::FETCH_MAX_BYTES_PER_FEED_DAY)?,
            max_title_chars: r.int(raw.max_title_chars, &s::FETCH_MAX_TITLE_CHARS)?,
            max_text_chars: r.int(raw.max_text_chars, &s::FETCH_MAX_TEXT_CHARS)?,
            backoff_base: r.secs(raw.backoff_base, &s::FETCH_BACKOFF_BASE)?,
            backoff_max: r.secs(raw.backoff_max, &s::FETCH_BACKOFF_MAX)?,
            run_timeout: r.secs(raw.run_timeout, &s::FETCH_RUN_TIMEOUT)?,
            allow_private: Self::allow_private(&raw.allow_private, at)?,
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

    /// `[fetch] allow_private`: each entry a network, an address or a host name.
    fn allow_private(
        raw: &[Spanned<String>],
        at: &dyn Fn(std::ops::Range<usize>) -> String,
    ) -> Result<allow_private::AllowPrivate> {
        let mut entries = Vec::new();
        for e in raw {
            allow_private::AllowPrivate::parse([e.get_ref().as_str()])
                .map_err(|why| anyhow::anyhow!("{}: fetch.allow_private: {why}", at(e.span())))?;
            entries.push(e.get_ref().as_str());
        }
        allow_private::AllowPrivate::parse(entries).map_err(anyhow::Error::msg)
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

/// The one normalisation of a base URL (`base_url` in matome.toml, `--base-url`): trimmed, an
/// absolute http(s) URL, ending in `/`; `None` when it is not an absolute http(s) URL.
pub fn normalize_base_url(s: &str) -> Option<String> {
    let s = s.trim();
    crate::text::http_url(s)?;
    Some(if s.ends_with('/') {
        s.to_string()
    } else {
        format!("{s}/")
    })
}

/// `<root>/matome.toml`.
pub fn config_path(root: &Path) -> PathBuf {
    root.join(CONFIG_FILE)
}

#[cfg(test)]
mod tests;
