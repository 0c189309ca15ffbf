//! Sending one post to one service, per its documented contract, and keeping secrets out of
//! every message.
//!
//! - Bluesky: `com.atproto.server.createSession` (handle + app password) once per run, then
//!   `com.atproto.repo.createRecord` of an `app.bsky.feed.post` (≤ 300 graphemes, `langs`,
//!   facets for the link and the hashtags, an `app.bsky.embed.external` link card). The record
//!   key is a TID made from the post's time and the target, so the same post always has the
//!   same key: if a createRecord fails, `com.atproto.repo.getRecord` tells whether it landed
//!   anyway, and a retry can never make a second post.
//! - Mastodon: `POST /api/v1/statuses` with a Bearer token and an `Idempotency-Key` derived
//!   from the post, within the instance's limit (`max_chars`, else
//!   `/api/v2/instance` → `configuration.statuses.max_characters`, else 500; URLs count 23).
//! - Slack: an incoming webhook, `text` plus one mrkdwn section block (≤ 3000 characters).
//! - Discord: a webhook, `content` ≤ 2000 characters, `allowed_mentions` with nothing parsed.
//! - Webhook: the JSON body and the `X-Matome-*` headers the README documents, signed with
//!   HMAC-SHA256 when a secret is set.

use anyhow::{Result, anyhow, bail};
use chrono::{DateTime, FixedOffset};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::Post;
use super::text::{self, Templates};
use crate::config::publish::{PublishKind, PublishTarget};

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
pub struct Credentials {
    /// Bluesky app password, Mastodon token, or the Slack/Discord/webhook URL.
    pub secret: String,
    /// The webhook's signing secret, if its variable is set.
    pub signing: Option<String>,
}

/// Reads a target's credentials, adding them to the redactor.
pub fn credentials(t: &PublishTarget, redactor: &mut Redactor) -> Result<Credentials> {
    let read = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let secret = if t.kind == PublishKind::Webhook && !t.endpoint.is_empty() {
        t.endpoint.clone()
    } else {
        match read(&t.secret_env) {
            Some(s) => s.trim().to_string(),
            None => bail!(
                "the environment variable {} is not set: it holds {} (see the README, \
                 \"Publishing\", for how to create it)",
                t.secret_env,
                match t.kind {
                    PublishKind::Bluesky => "the Bluesky app password",
                    PublishKind::Mastodon => "the Mastodon access token",
                    PublishKind::Slack => "the Slack incoming-webhook URL",
                    PublishKind::Discord => "the Discord webhook URL",
                    PublishKind::Webhook => "the webhook URL (or set `url` in matome.toml)",
                }
            ),
        }
    };
    if matches!(
        t.kind,
        PublishKind::Slack | PublishKind::Discord | PublishKind::Webhook
    ) {
        crate::config::check_feed_url(&secret).map_err(|_| {
            anyhow!(
                "the environment variable {} does not hold an http(s) URL",
                t.secret_env
            )
        })?;
    }
    if t.kind != PublishKind::Webhook || t.endpoint.is_empty() {
        redactor.add(&secret);
    }
    let signing = t.signing_env.as_deref().and_then(read);
    if let Some(s) = &signing {
        redactor.add(s);
    }
    Ok(Credentials { secret, signing })
}

/// What a run keeps per target between posts (a Bluesky session, Mastodon's limit).
#[derive(Default)]
pub struct Session {
    bluesky: Option<(String, String)>,
    mastodon_limit: Option<usize>,
}

/// Everything a post needs besides the post itself.
pub struct Context<'a> {
    pub http: &'a reqwest::Client,
    pub templates: &'a Templates,
    pub base_url: &'a str,
    pub lang: &'static str,
    pub now: DateTime<FixedOffset>,
}

/// Sends `post` to target `t`; returns what the service calls it (a URI or id), if anything.
pub async fn send(
    cx: &Context<'_>,
    t: &PublishTarget,
    creds: &Credentials,
    session: &mut Session,
    post: &Post,
) -> Result<Option<String>> {
    let mut view = post.view.clone();
    view.hashtags.truncate(t.hashtags);
    match t.kind {
        PublishKind::Bluesky => bluesky(cx, t, creds, session, post, &view).await,
        PublishKind::Mastodon => mastodon(cx, t, creds, session, post, &view).await,
        PublishKind::Slack => {
            let text = cx
                .templates
                .render_within(post.template, &view, 3000, &|s| {
                    text::utf16_len(&slack_escape(s))
                })?;
            let text = slack_escape(&text);
            let body = json!({
                "text": text,
                "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": text}}],
                "unfurl_links": true,
            });
            let r = cx.http.post(&creds.secret).json_body(&body).send().await;
            check(r, "the Slack webhook").await.map(|_| None)
        }
        PublishKind::Discord => {
            let text = cx
                .templates
                .render_within(post.template, &view, 2000, &text::utf16_len)?;
            let body = json!({"content": text, "allowed_mentions": {"parse": []}});
            let r = cx.http.post(&creds.secret).json_body(&body).send().await;
            check(r, "the Discord webhook").await.map(|_| None)
        }
        PublishKind::Webhook => {
            let text =
                cx.templates
                    .render_within(post.template, &view, usize::MAX, &text::chars)?;
            let body = serde_json::to_vec(&json!({
                "event": view.kind,
                "id": post.id,
                "site": {"title": view.site_title, "url": cx.base_url},
                "heading": view.heading,
                "url": view.url,
                "time": view.time,
                "items": view.items,
                "keywords": view.keywords,
                "hashtags": view.hashtags,
                "trend_words": view.trend_words,
                "text": text,
            }))?;
            let timestamp = cx.now.timestamp().to_string();
            let mut req = cx
                .http
                .post(&creds.secret)
                .header("Content-Type", "application/json")
                .header("X-Matome-Event", view.kind)
                .header("X-Matome-Delivery", &post.id)
                .header("X-Matome-Timestamp", &timestamp);
            if let Some(secret) = &creds.signing {
                req = req.header(
                    "X-Matome-Signature-256",
                    signature(secret, &timestamp, &body),
                );
            }
            let label = if t.endpoint.is_empty() {
                format!("the webhook (URL from {})", t.secret_env)
            } else {
                t.endpoint.clone()
            };
            check(req.body(body).send().await, &label)
                .await
                .map(|_| None)
        }
    }
}

/// `sha256=` and the hex HMAC-SHA256 of `{timestamp}.{body}` under `secret`.
pub fn signature(secret: &str, timestamp: &str, body: &[u8]) -> String {
    let mut data = Vec::with_capacity(timestamp.len() + 1 + body.len());
    data.extend_from_slice(timestamp.as_bytes());
    data.push(b'.');
    data.extend_from_slice(body);
    format!("sha256={}", hmac_sha256_hex(secret, &data))
}

fn hmac_sha256_hex(secret: &str, data: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(data);
    hex(&mac.finalize().into_bytes())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Slack's mrkdwn needs `&`, `<` and `>` escaped.
fn slack_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The response's JSON on 2xx, else an error with the status and the start of the body. The
/// URL is never part of it (`label` names the endpoint), so a secret URL cannot leak.
async fn check(r: reqwest::Result<reqwest::Response>, label: &str) -> Result<Value> {
    let r = r.map_err(|e| {
        anyhow!(
            "{label}: {}",
            crate::render::theme::error_chain(&e.without_url())
        )
    })?;
    let status = r.status();
    let body = r
        .text()
        .await
        .map_err(|e| anyhow!("{label}: reading the answer: {}", e.without_url()))?;
    if !status.is_success() {
        let snippet: String = body.chars().take(300).collect();
        bail!("HTTP {} from {label}: {}", status.as_u16(), snippet.trim());
    }
    Ok(serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// A TID (AT Protocol timestamp identifier) for `time` and a 10-bit clock id from `salt`:
/// 13 characters of base32-sortable.
pub fn tid(time: DateTime<FixedOffset>, salt: &str) -> String {
    const ALPHABET: &[u8; 32] = b"234567abcdefghijklmnopqrstuvwxyz";
    let micros = (time.timestamp_micros().max(0) as u64) & ((1 << 53) - 1);
    let clock = crate::hash::fnv1a(salt.as_bytes()) & 0x3ff;
    let mut v = (micros << 10) | clock;
    let mut out = [0u8; 13];
    for slot in out.iter_mut().rev() {
        *slot = ALPHABET[(v & 31) as usize];
        v >>= 5;
    }
    String::from_utf8(out.to_vec()).expect("ascii")
}

async fn bluesky(
    cx: &Context<'_>,
    t: &PublishTarget,
    creds: &Credentials,
    session: &mut Session,
    post: &Post,
    view: &text::PostView,
) -> Result<Option<String>> {
    let xrpc = |m: &str| format!("{}/xrpc/{m}", t.endpoint);
    if session.bluesky.is_none() {
        let url = xrpc("com.atproto.server.createSession");
        let r = cx
            .http
            .post(&url)
            .json_body(&json!({"identifier": t.handle, "password": creds.secret}))
            .send()
            .await;
        let v = check(r, &url).await?;
        let (Some(jwt), Some(did)) = (v["accessJwt"].as_str(), v["did"].as_str()) else {
            bail!("{url} answered without accessJwt and did");
        };
        session.bluesky = Some((jwt.to_string(), did.to_string()));
    }
    let (jwt, did) = session.bluesky.clone().expect("session");
    let text = cx
        .templates
        .render_within(post.template, view, 300, &text::graphemes)?;
    // Stable for the post and the account (not the base URL, which `--base-url` may change).
    let rkey = tid(post.order, &format!("{}\u{0}{}", t.handle, t.name));
    let record = json!({
        "$type": "app.bsky.feed.post",
        "text": text,
        "createdAt": cx.now.with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        "langs": [cx.lang],
        "facets": text::facets(&text, &view.url),
        "embed": {
            "$type": "app.bsky.embed.external",
            "external": {
                "uri": view.url,
                "title": view.heading,
                "description": post.description,
            }
        }
    });
    let url = xrpc("com.atproto.repo.createRecord");
    let r = cx
        .http
        .post(&url)
        .bearer_auth(&jwt)
        .json_body(&json!({
            "repo": did,
            "collection": "app.bsky.feed.post",
            "rkey": rkey,
            "record": record,
        }))
        .send()
        .await;
    match check(r, &url).await {
        Ok(v) => Ok(v["uri"].as_str().map(str::to_string)),
        Err(e) => {
            // Did it land before the error (a lost answer, an earlier killed run)? The key is
            // the post's, so the record is there if and only if it was posted.
            let get = xrpc("com.atproto.repo.getRecord");
            let found = cx
                .http
                .get(url::Url::parse_with_params(
                    &get,
                    [
                        ("repo", did.as_str()),
                        ("collection", "app.bsky.feed.post"),
                        ("rkey", rkey.as_str()),
                    ],
                )?)
                .bearer_auth(&jwt)
                .send()
                .await;
            match found {
                Ok(r) if r.status().is_success() => {
                    Ok(Some(format!("at://{did}/app.bsky.feed.post/{rkey}")))
                }
                _ => Err(e),
            }
        }
    }
}

async fn mastodon(
    cx: &Context<'_>,
    t: &PublishTarget,
    creds: &Credentials,
    session: &mut Session,
    post: &Post,
    view: &text::PostView,
) -> Result<Option<String>> {
    let limit = match (t.max_chars, session.mastodon_limit) {
        (Some(n), _) | (None, Some(n)) => n,
        (None, None) => {
            let url = format!("{}/api/v2/instance", t.endpoint);
            let n = match check(cx.http.get(&url).send().await, &url).await {
                Ok(v) => v["configuration"]["statuses"]["max_characters"]
                    .as_u64()
                    .map_or(500, |n| n as usize),
                Err(_) => 500,
            };
            session.mastodon_limit = Some(n);
            n
        }
    };
    let text = cx
        .templates
        .render_within(post.template, view, limit, &text::mastodon_length)?;
    let key = hex(&Sha256::digest(
        format!("{}\u{0}{}\u{0}{}", t.endpoint, t.name, post.id).as_bytes(),
    ))[..32]
        .to_string();
    let url = format!("{}/api/v1/statuses", t.endpoint);
    let r = cx
        .http
        .post(&url)
        .bearer_auth(&creds.secret)
        .header("Idempotency-Key", key)
        .json_body(&json!({
            "status": text,
            "visibility": t.visibility,
            "language": cx.lang,
        }))
        .send()
        .await;
    let v = check(r, &url).await?;
    Ok(v["url"].as_str().or(v["id"].as_str()).map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redactor_hides_secrets_and_secret_urls_paths() {
        let mut r = Redactor::default();
        r.add("https://hooks.slack.com/services/T000/B000/XXXXSECRET");
        r.add("app-pass-1234");
        let s = r.redact("POST /services/T000/B000/XXXXSECRET failed; pw app-pass-1234");
        assert!(
            !s.contains("XXXXSECRET") && !s.contains("app-pass-1234"),
            "{s}"
        );
    }

    #[test]
    fn tids_are_13_sortable_characters_stable_per_post() {
        let a = DateTime::parse_from_rfc3339("2021-07-20T08:00:00+09:00").unwrap();
        let b = DateTime::parse_from_rfc3339("2021-07-20T09:00:00+09:00").unwrap();
        assert_eq!(tid(a, "x").len(), 13);
        assert_eq!(tid(a, "x"), tid(a, "x"));
        assert!(tid(a, "x") < tid(b, "x"));
        assert!(tid(a, "x").starts_with(|c: char| "234567abcdefghij".contains(c)));
    }

    #[test]
    fn signature_is_hmac_sha256_of_timestamp_dot_body() {
        // RFC 4231, test case 2.
        assert_eq!(
            hmac_sha256_hex("Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            signature("k", "1626735600", b"{}"),
            format!("sha256={}", hmac_sha256_hex("k", b"1626735600.{}"))
        );
    }
}
