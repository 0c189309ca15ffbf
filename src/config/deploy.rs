//! `[deploy]` in matome.toml: the S3-compatible bucket `matome deploy` publishes to, its raw
//! TOML shape, defaults and validation (errors name the file, the line and the key, like the rest
//! of the config). Credentials never live here: they come from the environment. The upload itself
//! is [`crate::deploy`]'s.

use anyhow::{Result, bail};
use serde::Deserialize;
use toml::Spanned;

use super::check_feed_url;
use super::ranges::{Int, Ranges};
use super::settings as s;

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
    /// The most one request waits in all while the bucket throttles it (`503 SlowDown`, `429`,
    /// honouring `Retry-After`) before it counts as failed.
    pub throttle_wait: std::time::Duration,
    /// Cache-Control of every object whose URL carries no version (HTML, feeds, …).
    pub cache_control: String,
    /// Cache-Control of the search shards, whose URLs carry the index version (`?v=`).
    pub cache_control_immutable: String,
}

impl DeploySettings {
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

/// `[deploy]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawDeploy {
    url: Spanned<String>,
    region: Option<String>,
    endpoint: Option<Spanned<String>>,
    concurrency: Int,
    retries: Int,
    throttle_wait: Int,
    cache_control: Option<Spanned<String>>,
    cache_control_immutable: Option<Spanned<String>>,
}

/// Validates `[deploy]`; `at` turns a span into `FILE:LINE`.
pub(crate) fn deploy_settings(
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
    let r = Ranges { at };
    let concurrency = r.int(raw.concurrency, &s::DEPLOY_CONCURRENCY)?;
    let retries = r.int(raw.retries, &s::DEPLOY_RETRIES)?;
    let throttle_wait: u64 = r.int(raw.throttle_wait, &s::DEPLOY_THROTTLE_WAIT)?;
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
        throttle_wait: std::time::Duration::from_secs(throttle_wait),
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
