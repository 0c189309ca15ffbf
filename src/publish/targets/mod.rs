//! Sending one post to one service, per its documented contract; what a service's answer means
//! (sent, refused for good, rate-limited, failed); settling a post whose answer a killed run
//! never saw; and keeping secrets out of every message.
//!
//! One file per service: [`bluesky`], [`mastodon`], [`chat`] (Slack, Discord, the signed JSON
//! webhook), [`x`] and [`hatena`] (both OAuth 1.0a, [`oauth`]). Every text a service receives
//! was made inert for it by [`super::inert`] and fitted to its limits by [`super::limits`].
//!
//! **What an answer means.** 2xx: sent. 429: rate-limited, tried again after the service's
//! reset time (`x-rate-limit-reset`, else `Retry-After`, else the back-off). 400, 413, 414,
//! 415 and 422 say the post itself is unacceptable: it is refused for good, recorded as
//! dropped, and the queue moves on. Any other answer (401/403/404: credentials or address; 5xx;
//! no answer) is a failure of the target, retried at the next run with a growing back-off.

pub mod bluesky;
pub mod chat;
pub mod hatena;
pub mod mastodon;
pub mod oauth;
pub mod x;

use anyhow::{Result, anyhow};
use chrono::{DateTime, FixedOffset};
use serde_json::Value;

use super::Post;
use super::state::Attempt;
use super::text::Templates;
use crate::config::publish::{PublishTarget, Service, WebhookUrl};

/// A JSON body (reqwest's `json` feature is not built; this is all of it that is needed).
pub(crate) trait JsonBody {
    fn json_body(self, body: &Value) -> Self;
}

impl JsonBody for reqwest::RequestBuilder {
    fn json_body(self, body: &Value) -> Self {
        self.header("Content-Type", "application/json")
            .body(serde_json::to_vec(body).expect("JSON values serialise"))
    }
}

/// Replaces every secret this run has read with `[redacted]`.
#[derive(Debug, Default, Clone)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// Adds a secret; a URL's path and query are added as well (an error may print the URL
    /// differently, or only its path).
    pub fn add(&mut self, secret: &str) {
        let secret = secret.trim();
        if secret.len() < 4 {
            return;
        }
        self.secrets.push(secret.to_string());
        if let Ok(u) = url::Url::parse(secret) {
            let tail = &u[url::Position::BeforePath..];
            if tail.len() >= 8 {
                self.secrets.push(tail.to_string());
            }
            self.secrets.push(u.to_string());
        }
        // Its percent-encoded form too (an OAuth header or a signed form carries that).
        let encoded = oauth::percent_encode(secret);
        if encoded != secret {
            self.secrets.push(encoded);
        }
        // Longest first, so a secret containing another is replaced whole.
        self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        self.secrets.dedup();
    }

    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), "[redacted]");
            }
        }
        out
    }
}

/// A target's secrets, read from the environment.
pub enum Credentials {
    /// Bluesky's app password, Mastodon's access token.
    Password(String),
    /// A Slack or Discord webhook URL (it carries its token).
    Url(String),
    /// The generic webhook: its URL, how to name it in messages, and its signing secret.
    Webhook {
        url: String,
        label: String,
        signing: Option<String>,
    },
    /// X, Hatena Bookmark.
    OAuth(oauth::Keys),
}

fn read_env(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

fn required(name: &str, what: &str) -> Result<String> {
    read_env(name).ok_or_else(|| {
        anyhow!(
            "the environment variable {name} is not set: it holds {what} (see the README, \
             \"Publishing\", for how to create it)"
        )
    })
}

fn secret_url(name: &str, what: &str) -> Result<String> {
    let url = required(name, what)?;
    crate::config::check_feed_url(&url)
        .map_err(|_| anyhow!("the environment variable {name} does not hold an http(s) URL"))?;
    Ok(url)
}

/// Reads a target's credentials, adding them to the redactor.
pub fn credentials(t: &PublishTarget, redactor: &mut Redactor) -> Result<Credentials> {
    let creds = match &t.service {
        Service::Bluesky(b) => {
            Credentials::Password(required(&b.password_env, "the Bluesky app password")?)
        }
        Service::Mastodon(m) => {
            Credentials::Password(required(&m.token_env, "the Mastodon access token")?)
        }
        Service::Slack(c) => {
            Credentials::Url(secret_url(&c.url_env, "the Slack incoming-webhook URL")?)
        }
        Service::Discord(c) => Credentials::Url(secret_url(&c.url_env, "the Discord webhook URL")?),
        Service::Webhook(w) => {
            let (url, label) = match &w.url {
                WebhookUrl::Fixed(u) => (u.clone(), u.clone()),
                WebhookUrl::Env(env) => (
                    secret_url(env, "the webhook URL (or set `url` in matome.toml)")?,
                    format!("the webhook (URL from {env})"),
                ),
            };
            Credentials::Webhook {
                url,
                label,
                signing: read_env(&w.secret_env),
            }
        }
        Service::X(o) => Credentials::OAuth(oauth::Keys::from_env(o, "X")?),
        Service::Hatena(h) => Credentials::OAuth(oauth::Keys::from_env(&h.oauth, "Hatena")?),
    };
    match &creds {
        Credentials::Password(s) | Credentials::Url(s) => redactor.add(s),
        Credentials::Webhook { url, signing, .. } => {
            if matches!(&t.service, Service::Webhook(w) if matches!(w.url, WebhookUrl::Env(_))) {
                redactor.add(url);
            }
            if let Some(s) = signing {
                redactor.add(s);
            }
        }
        Credentials::OAuth(k) => k.redact_into(redactor),
    }
    Ok(creds)
}

/// What a run keeps per target between posts (a Bluesky session, Mastodon's limit and account).
#[derive(Default)]
pub struct Session {
    bluesky: Option<(String, String)>,
    mastodon_limit: Option<(usize, usize)>,
    mastodon_account: Option<String>,
}

/// Everything a post needs besides the post itself.
pub struct Context<'a> {
    pub http: &'a reqwest::Client,
    pub templates: &'a Templates,
    pub base_url: &'a str,
    pub lang: &'static str,
    pub now: DateTime<FixedOffset>,
}

/// Why a post was not sent.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// The target failed (credentials, address, the service down, no answer): retried at the
    /// next run. `unknown_outcome`: the request may have reached the service (no answer came).
    Retry {
        message: String,
        unknown_outcome: bool,
    },
    /// The service refused this post for good: it is dropped, the queue moves on.
    Refused(String),
    /// Rate-limited: tried again after `until` (when the service said), else after the back-off.
    RateLimited {
        message: String,
        until: Option<DateTime<FixedOffset>>,
    },
}

impl Failure {
    pub fn retry(message: impl Into<String>) -> Failure {
        Failure::Retry {
            message: message.into(),
            unknown_outcome: false,
        }
    }

    /// The same failure, its message prefixed (`posting digest:…: HTTP 500 …`).
    pub fn context(self, prefix: &str) -> Failure {
        match self {
            Failure::Retry {
                message,
                unknown_outcome,
            } => Failure::Retry {
                message: format!("{prefix}: {message}"),
                unknown_outcome,
            },
            Failure::Refused(m) => Failure::Refused(format!("{prefix}: {m}")),
            Failure::RateLimited { message, until } => Failure::RateLimited {
                message: format!("{prefix}: {message}"),
                until,
            },
        }
    }

    pub fn message(&self) -> &str {
        match self {
            Failure::Retry { message, .. }
            | Failure::Refused(message)
            | Failure::RateLimited { message, .. } => message,
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Failure {
        Failure::retry(format!("{e:#}"))
    }
}

/// Whether an HTTP status says the post itself is unacceptable (so retrying cannot help).
pub fn refused_for_good(status: u16) -> bool {
    matches!(status, 400 | 413 | 414 | 415 | 422)
}

/// When a 429 says to come back: `x-rate-limit-reset` (Unix seconds, X), else `Retry-After`
/// (seconds or an HTTP date).
fn retry_at(
    headers: &reqwest::header::HeaderMap,
    now: DateTime<FixedOffset>,
) -> Option<DateTime<FixedOffset>> {
    let get = |n: &str| headers.get(n).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(t) = get("x-rate-limit-reset").and_then(|v| v.parse::<i64>().ok()) {
        return DateTime::from_timestamp(t, 0).map(|t| t.fixed_offset());
    }
    let v = get("retry-after")?;
    if let Ok(s) = v.parse::<i64>() {
        return Some(now + chrono::Duration::seconds(s.clamp(0, 7 * 86400)));
    }
    DateTime::parse_from_rfc2822(v).ok()
}

/// The response's JSON on 2xx, else a [`Failure`] with the status and the start of the body.
/// The URL is never part of it (`label` names the endpoint), so a secret URL cannot leak.
pub async fn check(
    r: reqwest::Result<reqwest::Response>,
    label: &str,
    now: DateTime<FixedOffset>,
) -> Result<Value, Failure> {
    let r = r.map_err(|e| Failure::Retry {
        // A refused connection never reached the service; a timeout or a cut one may have.
        unknown_outcome: !e.is_connect(),
        message: format!(
            "{label}: {}",
            crate::render::theme::error_chain(&e.without_url())
        ),
    })?;
    let status = r.status();
    let until = retry_at(r.headers(), now);
    let body = r.text().await.map_err(|e| Failure::Retry {
        unknown_outcome: true,
        message: format!("{label}: reading the answer: {}", e.without_url()),
    })?;
    if status.is_success() {
        return Ok(serde_json::from_str(&body).unwrap_or(Value::Null));
    }
    let snippet: String = body.chars().take(300).collect();
    let message = format!("HTTP {} from {label}: {}", status.as_u16(), snippet.trim());
    Err(match status.as_u16() {
        429 => Failure::RateLimited { message, until },
        s if refused_for_good(s) => Failure::Refused(message),
        _ => Failure::retry(message),
    })
}

/// Sends `post` to target `t`; returns what the service calls it (a URI or id), if anything.
pub async fn send(
    cx: &Context<'_>,
    t: &PublishTarget,
    creds: &Credentials,
    session: &mut Session,
    post: &Post,
) -> Result<Option<String>, Failure> {
    let mut view = post.view.clone();
    view.hashtags.truncate(t.hashtags);
    match (&t.service, creds) {
        (Service::Bluesky(b), Credentials::Password(pw)) => {
            bluesky::send(cx, t, b, pw, session, post, &view).await
        }
        (Service::Mastodon(m), Credentials::Password(token)) => {
            mastodon::send(cx, t, m, token, session, post, &view).await
        }
        (Service::Slack(_), Credentials::Url(url)) => chat::slack(cx, url, post, &view).await,
        (Service::Discord(_), Credentials::Url(url)) => chat::discord(cx, url, post, &view).await,
        (
            Service::Webhook(_),
            Credentials::Webhook {
                url,
                label,
                signing,
            },
        ) => chat::webhook(cx, url, label, signing.as_deref(), post, &view).await,
        (Service::X(o), Credentials::OAuth(keys)) => x::send(cx, o, keys, post, &view).await,
        (Service::Hatena(h), Credentials::OAuth(keys)) => {
            hatena::send(cx, h, keys, post, &view).await
        }
        _ => Err(Failure::retry("credentials of another kind (a bug)")),
    }
}

/// How a post whose answer the last run never saw is settled.
#[derive(Debug, Clone, PartialEq)]
pub enum Settled {
    /// The service says it has the post (what it calls it).
    Posted(Option<String>),
    /// The service cannot be asked; the documented rule takes it as sent (at most once).
    AssumedSent,
    /// Not there (or a resend is harmless): send it again.
    Resend,
}

/// Settles `attempt` (the post `post`) on target `t`, asking the service where its API allows.
pub async fn settle(
    cx: &Context<'_>,
    t: &PublishTarget,
    creds: &Credentials,
    session: &mut Session,
    attempt: &Attempt,
    post: &Post,
) -> Result<Settled, Failure> {
    match (&t.service, creds) {
        (Service::Bluesky(b), Credentials::Password(pw)) => {
            bluesky::settle(cx, t, b, pw, session, attempt).await
        }
        (Service::Mastodon(m), Credentials::Password(token)) => {
            mastodon::settle(cx, m, token, session, post).await
        }
        // Incoming webhooks and X's free API cannot be asked what was posted.
        (Service::Slack(_) | Service::Discord(_) | Service::X(_), _) => Ok(Settled::AssumedSent),
        // The receiver drops repeats by X-Matome-Delivery; a bookmark again is an update.
        (Service::Webhook(_) | Service::Hatena(_), _) => Ok(Settled::Resend),
        _ => Err(Failure::retry("credentials of another kind (a bug)")),
    }
}

pub(crate) use crate::hash::hex;

/// `bail!` for the services' own answers that are not HTTP errors.
pub(crate) fn malformed(label: &str, what: &str) -> Failure {
    Failure::retry(format!("{label} answered without {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redactor_hides_secrets_and_secret_urls_paths() {
        let mut r = Redactor::default();
        r.add("https://hooks.slack.com/services/T000/B000/XXXXSECRET");
        r.add("app-pass-1234");
        r.add("kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw+/=");
        let s = r.redact(
            "POST /services/T000/B000/XXXXSECRET failed; pw app-pass-1234; \
             kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw%2B%2F%3D",
        );
        assert!(
            !s.contains("XXXXSECRET") && !s.contains("app-pass-1234") && !s.contains("kAcSO"),
            "{s}"
        );
    }

    #[test]
    fn statuses_are_sorted_into_retry_refused_and_rate_limited() {
        for s in [400, 413, 422] {
            assert!(refused_for_good(s), "{s}");
        }
        for s in [401, 403, 404, 408, 429, 500, 503] {
            assert!(!refused_for_good(s), "{s}");
        }
        let now = DateTime::parse_from_rfc3339("2021-07-20T08:00:00+09:00").unwrap();
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("x-rate-limit-reset", "1626736500".parse().unwrap());
        assert_eq!(retry_at(&h, now).unwrap().timestamp(), 1626736500);
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("retry-after", "120".parse().unwrap());
        assert_eq!(
            retry_at(&h, now),
            Some(now + chrono::Duration::seconds(120))
        );
    }
}
