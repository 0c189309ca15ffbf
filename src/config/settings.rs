//! Every numeric setting of matome.toml, declared once: its key, type, default, range and what
//! it sets, whichever table it is in (`[fetch]`, `[analyze]`, `[build]`, `[trends]`, `[deploy]`,
//! `[[publish]]`, `[alerts]`, …). The declaration drives the defaults, parsing and the range
//! errors (`ranges.rs`, which takes a [`Setting`], so a key is a name the compiler checks, not a
//! string looked up at run time), and the README's table of settings ([`readme_table`]; a test
//! compares the two, another that each key is read with its own declaration). A default outside
//! its range, or a fraction for a whole number, does not compile ([`ALL`] is checked in a
//! `const`). A new table's numbers are declared here like the others.
//!
//! Settings that are not numbers (`allow_private`, URLs, names of environment variables, …) are
//! read beside their types (`config.rs`, `publish.rs`, `deploy.rs`).

use std::time::Duration;

/// What a setting's number is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A whole number (fractions refused).
    Whole,
    /// Any real number.
    Real,
    /// A number of seconds, 0 allowed.
    Seconds,
    /// A number of seconds more than 0 (a timeout of 0 would fail every feed).
    PositiveSeconds,
}

/// One numeric setting: `section.key`, its kind, default and range (least, greatest), and what
/// it sets (the README's words).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Setting {
    pub key: &'static str,
    pub kind: Kind,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    pub help: &'static str,
    /// What an absent key means when it is not `default` (Mastodon's `max_chars`: the
    /// instance's own limit, `default` only when it says none).
    pub unset: Option<&'static str>,
}

impl Setting {
    /// Whether the value is a number of seconds.
    pub const fn is_seconds(&self) -> bool {
        matches!(self.kind, Kind::Seconds | Kind::PositiveSeconds)
    }
    /// The default of a whole-number setting (whole and in range: checked at compile time).
    pub const fn usize(&self) -> usize {
        self.default as usize
    }
    pub const fn u32(&self) -> u32 {
        self.default as u32
    }
    pub const fn u64(&self) -> u64 {
        self.default as u64
    }
    /// The default of a number of seconds.
    pub fn duration(&self) -> Duration {
        Duration::from_secs_f64(self.default)
    }
}

macro_rules! settings {
    (@unset) => { None };
    (@unset $unset:literal) => { Some($unset) };
    ($($name:ident: $key:literal, $kind:ident, $default:expr, $min:expr, $max:expr, $help:literal
        $(, unset: $unset:literal)?;)*) => {
        $(
            #[doc = concat!("`", $key, "`: ", $help)]
            pub const $name: Setting = Setting {
                key: $key,
                kind: Kind::$kind,
                default: $default,
                min: $min,
                max: $max,
                help: $help,
                unset: settings!(@unset $($unset)?),
            };
        )*
        /// Every numeric setting, in the README's order.
        pub const ALL: &[Setting] = &[$($name),*];
    };
}

/// The largest `[fetch] run_timeout` accepted, in seconds: a day.
pub const MAX_RUN_TIMEOUT_SECS: f64 = 86_400.0;

settings! {
    FETCH_CONCURRENCY: "fetch.concurrency", Whole, 16.0, 1.0, 1024.0,
        "feeds fetched at once";
    FETCH_PER_HOST: "fetch.per_host", Whole, 2.0, 1.0, 1024.0,
        "feeds fetched at once from one host";
    FETCH_CONNECT_TIMEOUT: "fetch.connect_timeout", PositiveSeconds, 10.0, 0.0, 600.0,
        "connecting to a feed's server";
    FETCH_TIMEOUT: "fetch.timeout", PositiveSeconds, 30.0, 0.0, 3600.0,
        "a whole request, the body included";
    FETCH_MAX_BODY_BYTES: "fetch.max_body_bytes", Whole, 8_388_608.0, 1024.0, 1_073_741_824.0,
        "cap on a feed's decoded body";
    FETCH_MAX_REDIRECTS: "fetch.max_redirects", Whole, 5.0, 0.0, 20.0,
        "redirects followed per request";
    FETCH_RETRY_AFTER_MAX_WAIT: "fetch.retry_after_max_wait", Seconds, 10.0, 0.0, 3600.0,
        "a Retry-After up to this long is waited for in the run; a longer one defers the feed";
    FETCH_MAX_ITEMS_PER_FEED: "fetch.max_items_per_feed", Whole, 200.0, 1.0, 100_000.0,
        "items read per feed per run";
    FETCH_MAX_ITEMS_PER_FEED_DAY: "fetch.max_items_per_feed_day", Whole, 200.0, 1.0, 1_000_000.0,
        "new items archived per feed per day (the site's calendar day); the rest wait for a later day's run";
    FETCH_MAX_BYTES_PER_FEED_DAY: "fetch.max_bytes_per_feed_day", Whole, 330_000.0, 1000.0, 1e12,
        "bytes one feed's new items may add in a day (content/ or the site, the larger); the rest wait, and an item heavier than this alone is not archived";
    FETCH_MAX_TITLE_CHARS: "fetch.max_title_chars", Whole, 300.0, 1.0, 100_000.0,
        "titles longer than this are cut (with …)";
    FETCH_MAX_TEXT_CHARS: "fetch.max_text_chars", Whole, 1000.0, 0.0, 100_000.0,
        "plain text kept from an item's description";
    FETCH_BACKOFF_BASE: "fetch.backoff_base", Seconds, 3600.0, 0.0, 604_800.0,
        "back-off after a feed's 2nd consecutive failure, doubling (at most `fetch.backoff_max`)";
    FETCH_BACKOFF_MAX: "fetch.backoff_max", Seconds, 86_400.0, 0.0, 2_592_000.0,
        "the longest back-off";
    FETCH_RUN_TIMEOUT: "fetch.run_timeout", Seconds, 600.0, 1.0, MAX_RUN_TIMEOUT_SECS,
        "a whole run's deadline: feeds not done by then are recorded as failed";
    ANALYZE_KEYWORDS: "analyze.keywords", Whole, 3.0, 0.0, 50.0,
        "頻出ワード per item";
    ANALYZE_SUMMARY_CHARS: "analyze.summary_chars", Whole, 200.0, 0.0, 100_000.0,
        "the summary's character budget";
    ANALYZE_SUMMARY_SENTENCES: "analyze.summary_sentences", Whole, 3.0, 0.0, 100.0,
        "sentences of the summary at most";
    BUILD_ITEMS_PER_PAGE: "build.items_per_page", Whole, 100.0, 1.0, 10_000.0,
        "items per page of a category, site or keyword";
    BUILD_DIGESTS_PER_PAGE: "build.digests_per_page", Whole, 24.0, 1.0, 10_000.0,
        "digests per page of the home page";
    BUILD_KEYWORD_MIN_ITEMS: "build.keyword_min_items", Whole, 2.0, 1.0, 1_000_000.0,
        "a keyword gets a page once this many items carry it (1: every keyword)";
    BUILD_KEYWORD_MIN_SITES: "build.keyword_min_sites", Whole, 2.0, 1.0, 1_000_000.0,
        "... and items from this many distinct sites";
    BUILD_KEYWORD_MAX_PAGES: "build.keyword_max_pages", Whole, 10.0, 0.0, 1_000_000.0,
        "pages a keyword's list keeps: its first and the newest numbered ones (0: every page)";
    BUILD_SIZE_WARNING_MB: "build.size_warning_mb", Whole, 900.0, 1.0, 1_000_000.0,
        "`build` warns when the output passes this many MB (10^6 bytes)";
    TRENDS_HOUR_WINDOW: "trends.hour_window", Whole, 48.0, 1.0, 100_000.0,
        "an hour's rising words: against this many digests before it";
    TRENDS_DAY_WINDOW: "trends.day_window", Whole, 7.0, 1.0, 10_000.0,
        "a day's rising words: against this many days before it";
    TRENDS_MIN_COUNT: "trends.min_count", Whole, 3.0, 0.0, 1_000_000.0,
        "a word rises only with at least this many items in the period";
    TRENDS_MIN_SCORE: "trends.min_score", Real, 2.5, -1000.0, 1000.0,
        "... and at least this burst score (a z-score)";
    TRENDS_TOP: "trends.top", Whole, 20.0, 0.0, 10_000.0,
        "rising words listed";
    TRENDS_CLOUD_WORDS: "trends.cloud_words", Whole, 50.0, 0.0, 1000.0,
        "words in each of a day's two word clouds";
    STORIES_WINDOW_HOURS: "stories.window_hours", Whole, 72.0, 1.0, 8760.0,
        "a new item's story is decided against the stories of this many hours before it";
    STORIES_FEED_MIN_SITES: "stories.feed_min_sites", Whole, 3.0, 1.0, 1000.0,
        "a story enters the top stories' feed once this many distinct sites reported it";
    STORIES_TOP_PER_DAY: "stories.top_per_day", Whole, 10.0, 0.0, 1000.0,
        "top stories leading each day page and the home page (0: none)";
    STORIES_HOME_HALF_LIFE_HOURS: "stories.home_half_life_hours", Real, 24.0, 1.0, 8760.0,
        "the home page's ranking halves a story's distinct sites for every this many hours since its latest report";
    DEPLOY_CONCURRENCY: "deploy.concurrency", Whole, 8.0, 1.0, 256.0,
        "requests to the bucket at once (fewer while it throttles)";
    DEPLOY_RETRIES: "deploy.retries", Whole, 4.0, 0.0, 20.0,
        "retries of a failed request, with exponential back-off";
    DEPLOY_THROTTLE_WAIT: "deploy.throttle_wait", Whole, 300.0, 0.0, 3600.0,
        "seconds one request may wait in all while the bucket throttles it (503 SlowDown, 429)";
    PUBLISH_HASHTAGS: "publish.hashtags", Whole, 3.0, 0.0, 100.0,
        "頻出ワード a target shows as hashtags";
    PUBLISH_MAX_POSTS_PER_RUN: "publish.max_posts_per_run", Whole, 3.0, 1.0, 1000.0,
        "posts a target is sent per run (Hatena: digests)";
    PUBLISH_MAX_AGE_HOURS: "publish.max_age_hours", Whole, 24.0, 1.0, 8760.0,
        "a post older than this many hours is skipped and recorded, not sent late";
    PUBLISH_MAX_CHARS: "publish.max_chars", Whole, 500.0, 100.0, 1_000_000.0,
        "`kind = \"mastodon\"`: the post's character limit", unset: "the instance's, else 500";
    PUBLISH_BOOKMARKS_PER_DIGEST: "publish.bookmarks_per_digest", Whole, 3.0, 1.0, 100.0,
        "`kind = \"hatena\"`: each new digest's top items bookmarked";
    ALERTS_FEED_FAILING_HOURS: "alerts.feed_failing_hours", Whole, 24.0, 1.0, 8760.0,
        "a feed or publish target is a problem once it has failed this many hours";
    ALERTS_EMAIL_PORT: "alerts.email.port", Whole, 587.0, 1.0, 65535.0,
        "the SMTP server's port";
}

/// Every default whole where it must be, positive where it must be, and in its range; every key
/// once. Evaluated by the compiler.
const fn declaration_is_sound(all: &[Setting]) -> bool {
    let mut i = 0;
    while i < all.len() {
        let s = &all[i];
        let d = s.default;
        if !(d >= s.min && d <= s.max && s.min <= s.max) {
            return false;
        }
        if matches!(s.kind, Kind::Whole) && d != (d as i64) as f64 {
            return false;
        }
        if matches!(s.kind, Kind::PositiveSeconds) && d <= 0.0 {
            return false;
        }
        let mut j = 0;
        while j < i {
            if same(all[j].key, s.key) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const _: () = assert!(
    declaration_is_sound(ALL),
    "a setting's default is outside its range"
);

/// A setting's range as the README writes it: `1–1024`, `more than 0, at most 600`.
pub fn range_text(s: &Setting) -> String {
    match s.kind {
        Kind::PositiveSeconds => format!("more than 0, at most {}", s.max),
        _ => format!("{}–{}", s.min, s.max),
    }
}

/// What a kind of number is called in the README's table.
pub const fn kind_text(kind: Kind) -> &'static str {
    match kind {
        Kind::Whole => "whole number",
        Kind::Real => "number",
        Kind::Seconds | Kind::PositiveSeconds => "seconds",
    }
}

/// The README's table of numeric settings, one row per setting (key, type, default, range, what
/// it sets), made from [`ALL`].
pub fn readme_table() -> String {
    let mut out = String::from(
        "| key | type | default | range | what it sets |\n| --- | --- | --- | --- | --- |\n",
    );
    for s in ALL {
        let default = match s.unset {
            Some(unset) => unset.to_string(),
            None => s.default.to_string(),
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            s.key,
            kind_text(s.kind),
            default,
            range_text(s),
            s.help
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    const MINIMAL: &str = "title = \"t\"\nbase_url = \"https://example.com/\"\n";

    fn readme() -> String {
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
    }

    #[test]
    fn the_readme_table_is_the_declaration() {
        assert!(
            readme().contains(&readme_table()),
            "README.md's table of settings differs from src/config/settings.rs; it should read:\n{}",
            readme_table()
        );
    }

    /// The README's samples of matome.toml show every numeric setting (written or commented
    /// out, under its table's header) with its declared default.
    #[test]
    fn the_readme_samples_show_the_declared_defaults() {
        let text = readme();
        let mut section = String::new();
        let mut shown = Vec::new();
        for line in text.lines() {
            // A sample is an indented block; a line of prose ends it.
            let Some(line) = line.strip_prefix("    ") else {
                section.clear();
                continue;
            };
            let line = line.trim();
            let line = line.strip_prefix("# ").unwrap_or(line);
            if let Some(header) = line.strip_prefix('[') {
                let header = header.trim_start_matches('[');
                section = header.split(']').next().unwrap().to_string();
                continue;
            }
            let Some((k, v)) = line.split_once(" = ") else {
                continue;
            };
            let key = format!("{section}.{k}");
            let Some(s) = ALL.iter().find(|s| s.key == key) else {
                continue;
            };
            let v = v.split_whitespace().next().unwrap_or("");
            let v: f64 = v
                .parse()
                .unwrap_or_else(|_| panic!("{key} = {v} in a README sample"));
            assert_eq!(v, s.default, "{key} in a README sample");
            shown.push(key);
        }
        for s in ALL {
            assert!(
                shown.contains(&s.key.to_string()),
                "{} is in no README sample",
                s.key
            );
        }
    }

    /// The lines a key of `section` is written after: its table's header and the keys the table
    /// cannot do without. A plain table (`[fetch]`, `[stories]`, …) needs only its header.
    fn table_of(section: &str, key: &str) -> String {
        match (section, key) {
            ("deploy", _) => "[deploy]\nurl = \"s3://bucket\"\n".into(),
            ("publish", "max_chars") => {
                "[[publish]]\nkind = \"mastodon\"\ninstance = \"https://m.example\"\n".into()
            }
            ("publish", "bookmarks_per_digest") => "[[publish]]\nkind = \"hatena\"\n".into(),
            ("publish", _) => "[[publish]]\nkind = \"slack\"\n".into(),
            ("alerts", _) => "[alerts]\nwebhook_env = \"HOOK\"\n".into(),
            ("alerts.email", _) => "[alerts]\nwebhook_env = \"HOOK\"\n[alerts.email]\nhost = \"smtp.example\"\nfrom = \"a@example.jp\"\nto = [\"a@example.jp\"]\n".into(),
            _ => format!("[{section}]\n"),
        }
    }

    /// Each declaration is the one its key is read with: a value past its range is refused
    /// naming that key and its line, and the default is what an absent key gives.
    #[test]
    fn every_setting_is_read_with_its_own_declaration() {
        for s in ALL {
            let (section, key) = s.key.rsplit_once('.').unwrap();
            let table = format!("{MINIMAL}{}", table_of(section, key));
            let line = table.lines().count() + 1;
            let with = |v: f64| format!("{table}{key} = {v}\n");
            let defaults = Config::parse(&table, "matome.toml").unwrap();
            let e = Config::parse(&with(s.max + 1.0), "matome.toml")
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(&format!("matome.toml:{line}: {}", s.key)),
                "{}: {e}",
                s.key
            );
            let low = if s.kind == Kind::PositiveSeconds {
                0.0
            } else {
                s.min - 1.0
            };
            let e = Config::parse(&with(low), "matome.toml")
                .unwrap_err()
                .to_string();
            assert!(e.contains(s.key), "{}: {e}", s.key);
            if s.kind == Kind::Whole {
                let e = Config::parse(&format!("{table}{key} = {}.5\n", s.min), "matome.toml")
                    .unwrap_err()
                    .to_string();
                assert!(e.contains("must be a whole number"), "{}: {e}", s.key);
            }
            let c = Config::parse(&with(s.default), "matome.toml").unwrap();
            if s.unset.is_none() {
                assert_eq!(format!("{c:?}"), format!("{defaults:?}"), "{}", s.key);
            } else {
                assert_ne!(format!("{c:?}"), format!("{defaults:?}"), "{}", s.key);
            }
        }
    }

    #[test]
    fn a_misspelt_key_is_named_with_its_line() {
        let text = format!("{MINIMAL}[fetch]\nconcurency = 4\n");
        let e = Config::parse(&text, "matome.toml").unwrap_err().to_string();
        assert!(
            e.starts_with("matome.toml:4:") && e.contains("concurency"),
            "{e}"
        );
    }
}
