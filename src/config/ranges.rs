//! Numeric settings of matome.toml as written and their ranges: any TOML number is read, then its
//! range and wholeness are checked with the file, line and key (`FILE:LINE: fetch.timeout must be
//! …`), so a huge or fractional value is a clear error, not a panic or a bare type error.
//! [`RANGES`] is the table the README documents.

use std::time::Duration;

use anyhow::{Result, bail};
use serde::Deserialize;
use toml::Spanned;

use super::MAX_RUN_TIMEOUT_SECS;

/// A whole-number setting as written (any TOML number: the range and wholeness are checked
/// after, with the line and key, so `concurrency = 9223372036854775807` or `top = 1e9` is a
/// clear error, not a panic or a bare type error).
pub(super) type Int = Option<Spanned<Number>>;

#[derive(Deserialize, Clone, Copy)]
#[serde(untagged)]
pub(super) enum Number {
    Int(i64),
    Real(f64),
}
/// A number of seconds, or any other real-valued setting, as written.
pub(super) type Real = Option<Spanned<f64>>;

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
    ("fetch.max_items_per_feed_day", 1.0, 1_000_000.0),
    ("fetch.max_bytes_per_feed_day", 1000.0, 1e12),
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
    ("build.keyword_min_sites", 1.0, 1_000_000.0),
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
pub(super) struct Ranges<'a> {
    pub(super) at: &'a dyn Fn(std::ops::Range<usize>) -> String,
}

impl Ranges<'_> {
    /// A whole number in its range, or `default` when absent.
    pub(super) fn int<T: TryFrom<i64>>(&self, v: Int, key: &str, default: T) -> Result<T> {
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
    pub(super) fn real(&self, v: Real, key: &str, default: f64) -> Result<f64> {
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
    pub(super) fn secs(&self, v: Real, key: &str, default: Duration) -> Result<Duration> {
        self.real(v, key, default.as_secs_f64())
            .map(Duration::from_secs_f64)
    }
}
