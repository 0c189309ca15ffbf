//! The HTTP side of fetching: one polite, defensive GET of a feed.
//!
//! Conditional GET with the previous validators, connect and total timeouts, a cap on the
//! decoded body (gzip, brotli and deflate are decoded while streaming, so a gzip bomb stops at
//! the cap), at most N redirects over http(s) only, none inward (`guard.rs`: a redirect or a DNS
//! answer leading from the feed's origin to a private address is refused), and `Retry-After`
//! read on 429/503.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use reqwest::header::{self, HeaderMap};

use super::guard::{Guard, Refused};
use crate::config::FetchSettings;

/// The user agent: matome and its version.
pub const USER_AGENT: &str = concat!(
    "matome/",
    env!("CARGO_PKG_VERSION"),
    " (news archive builder)"
);

/// Why a fetch failed; the run branches on the kind (back-off, Retry-After, reporting).
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("HTTP {status}{}{}", reason(*status), retry_after.map(|d| format!(" (Retry-After: {}s)", d.as_secs())).unwrap_or_default())]
    Status {
        status: u16,
        retry_after: Option<Duration>,
    },
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    #[error(
        "body larger than the {limit}-byte cap (after decompression); raise fetch.max_body_bytes if the feed is really that big"
    )]
    TooLarge { limit: u64 },
    #[error("redirect refused: {0}")]
    Redirect(String),
    /// A connection to an address the feed may not reach (`guard::Refused`).
    #[error("{0}")]
    Private(String),
    #[error("{0}")]
    Network(String),
}

fn reason(status: u16) -> String {
    reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .map(|r| format!(" {r}"))
        .unwrap_or_default()
}

/// What a successful request gave.
#[derive(Debug)]
pub enum Fetched {
    /// 304: nothing changed since the validators we sent.
    NotModified,
    Body {
        bytes: Vec<u8>,
        /// The charset of the Content-Type header, if any.
        charset: Option<String>,
        etag: Option<String>,
        last_modified: Option<String>,
    },
}

/// Validators from the previous run.
#[derive(Debug, Default, Clone)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

/// Installs the TLS crypto provider once per process (ring: small and quick to build).
fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// What a run's clients share: the settings, the TLS configuration (its root certificates are
/// read once per run, not once per feed) and the proxies the environment names.
pub struct Clients {
    settings: FetchSettings,
    tls: rustls::ClientConfig,
    proxies: Vec<String>,
}

impl Clients {
    pub fn new(settings: &FetchSettings) -> anyhow::Result<Clients> {
        install_crypto_provider();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = rustls_platform_verifier::Verifier::new(provider.clone())
            .context("reading the system's root certificates")?;
        let mut tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .context("TLS protocol versions")?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Clients {
            settings: settings.clone(),
            tls,
            proxies: super::guard::proxy_hosts_from_env(),
        })
    }

    /// The client of one feed's fetch: its resolver and redirect policy know the feed's
    /// configured origin (`fetch/guard.rs`).
    pub fn for_feed(&self, feed_url: &str) -> Result<reqwest::Client, FetchError> {
        let guard = Arc::new(Guard::new(
            feed_url,
            self.settings.allow_private.clone(),
            self.proxies.clone(),
        ));
        let max = self.settings.max_redirects;
        let policy_guard = guard.clone();
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            let url = attempt.url().clone();
            if !crate::text::is_http_url(&url) {
                return attempt.error(format!("redirect to a non-http(s) URL {url}"));
            }
            if attempt.previous().contains(&url) {
                return attempt.error(format!("redirect loop at {url}"));
            }
            if attempt.previous().len() > max {
                return attempt.error(format!("more than {max} redirects"));
            }
            if let Err(why) = policy_guard.check_redirect(&url) {
                return attempt.error(why);
            }
            attempt.follow()
        });
        reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .connect_timeout(self.settings.connect_timeout)
            .timeout(self.settings.timeout)
            .redirect(policy)
            .tls_backend_preconfigured(self.tls.clone())
            .dns_resolver(super::guard::Resolver(guard))
            .build()
            .map_err(|e| FetchError::Network(format!("building the HTTP client: {e}")))
    }
}

/// One GET of `url`.
pub async fn get(
    client: &reqwest::Client,
    url: &str,
    validators: &Validators,
    settings: &FetchSettings,
) -> Result<Fetched, FetchError> {
    // The client's timeout covers the body too; this outer one is the backstop for a server
    // that trickles forever.
    let total = settings.timeout;
    match tokio::time::timeout(
        total + Duration::from_secs(1),
        get_inner(client, url, validators, settings),
    )
    .await
    {
        Ok(r) => r,
        Err(_) => Err(FetchError::Timeout(total)),
    }
}

async fn get_inner(
    client: &reqwest::Client,
    url: &str,
    validators: &Validators,
    settings: &FetchSettings,
) -> Result<Fetched, FetchError> {
    let mut req = client.get(url).header(
        header::ACCEPT,
        "application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.8",
    );
    if let Some(etag) = &validators.etag {
        req = req.header(header::IF_NONE_MATCH, etag);
    }
    if let Some(lm) = &validators.last_modified {
        req = req.header(header::IF_MODIFIED_SINCE, lm);
    }
    let mut resp = req.send().await.map_err(|e| classify(e, settings))?;
    let status = resp.status();
    if status == reqwest::StatusCode::NOT_MODIFIED {
        return Ok(Fetched::NotModified);
    }
    if !status.is_success() {
        let retry_after = if status.as_u16() == 429 || status.as_u16() == 503 {
            retry_after(resp.headers())
        } else {
            None
        };
        return Err(FetchError::Status {
            status: status.as_u16(),
            retry_after,
        });
    }
    let headers = resp.headers().clone();
    let limit = settings.max_body_bytes;
    if let Some(len) = resp.content_length() {
        // Only meaningful without content coding; with it, the decoded stream is checked below.
        if headers.get(header::CONTENT_ENCODING).is_none() && len > limit {
            return Err(FetchError::TooLarge { limit });
        }
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| classify(e, settings))? {
        if body.len() as u64 + chunk.len() as u64 > limit {
            return Err(FetchError::TooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    let text_header = |name: header::HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    Ok(Fetched::Body {
        bytes: body,
        charset: text_header(header::CONTENT_TYPE)
            .and_then(|ct| super::decode::charset_from_content_type(&ct)),
        etag: text_header(header::ETAG),
        last_modified: text_header(header::LAST_MODIFIED),
    })
}

fn classify(e: reqwest::Error, settings: &FetchSettings) -> FetchError {
    if e.is_timeout() {
        return FetchError::Timeout(settings.timeout);
    }
    if e.is_redirect() {
        return FetchError::Redirect(source_chain(&e));
    }
    let mut src = std::error::Error::source(&e);
    while let Some(s) = src {
        if let Some(refused) = s.downcast_ref::<Refused>() {
            return FetchError::Private(refused.to_string());
        }
        src = s.source();
    }
    FetchError::Network(source_chain(&e))
}

/// The error with its causes, "a: b: c", without repeating the URL reqwest puts in front.
fn source_chain(e: &reqwest::Error) -> String {
    let mut parts = vec![without_url(e)];
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        src = s.source();
    }
    parts.join(": ")
}

/// The error's message without the " for url (…)" reqwest adds (the feed URL is printed anyway).
fn without_url(e: &reqwest::Error) -> String {
    let s = e.to_string();
    match e.url() {
        Some(u) => s.replace(&format!(" for url ({u})"), ""),
        None => s,
    }
}

/// `Retry-After`: delay-seconds or an HTTP date.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let v = headers.get(header::RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let secs = (when.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_seconds();
    Some(Duration::from_secs(secs.max(0) as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_seconds_and_dates() {
        let mut h = HeaderMap::new();
        h.insert(header::RETRY_AFTER, "120".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(120)));
        h.insert(
            header::RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(
            retry_after(&h),
            Some(Duration::ZERO),
            "a past date means now"
        );
        h.insert(header::RETRY_AFTER, "soon".parse().unwrap());
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn user_agent_names_matome_and_version() {
        assert!(USER_AGENT.starts_with(&format!("matome/{}", env!("CARGO_PKG_VERSION"))));
    }
}
