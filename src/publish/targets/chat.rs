//! Slack and Discord incoming webhooks, and the generic signed JSON webhook.
//!
//! - Slack: `text` plus one mrkdwn section block (≤ 3,000 characters), `unfurl_links` and
//!   `unfurl_media` false ([`inert::slack_body`]).
//! - Discord: `content` ≤ 2,000 characters, `allowed_mentions` with nothing parsed
//!   ([`inert::discord_body`]).
//! - Webhook: the JSON body and the `X-Matome-*` headers the README documents, signed with
//!   HMAC-SHA256 when a secret is set; `X-Matome-Delivery` is the post's id, the same on a
//!   retry, so a receiver can drop repeats.
//!
//! None of them can be asked what was posted: a post a killed run never saw answered is taken
//! as sent by Slack and Discord (at most once) and sent again to the webhook (at least once,
//! with the same delivery id).

use hmac::{Hmac, Mac};
use serde_json::json;
use sha2::Sha256;

use super::{Context, Failure, JsonBody, check, hex};
use crate::publish::Post;
use crate::publish::inert::{self, Medium};
use crate::publish::limits::Limit;
use crate::publish::text::PostView;

pub async fn slack(
    cx: &Context<'_>,
    url: &str,
    post: &Post,
    view: &PostView,
) -> Result<Option<String>, Failure> {
    let text = cx.templates.render_within(
        post.template,
        &inert::view(Medium::SlackMrkdwn, view),
        &Limit::Slack,
    )?;
    let r = cx
        .http
        .post(url)
        .json_body(&inert::slack_body(&text))
        .send()
        .await;
    check(r, "the Slack webhook", cx.now).await.map(|_| None)
}

pub async fn discord(
    cx: &Context<'_>,
    url: &str,
    post: &Post,
    view: &PostView,
) -> Result<Option<String>, Failure> {
    let text = cx.templates.render_within(
        post.template,
        &inert::view(Medium::DiscordMarkdown, view),
        &Limit::Discord,
    )?;
    let r = cx
        .http
        .post(url)
        .json_body(&inert::discord_body(&text, false))
        .send()
        .await;
    check(r, "the Discord webhook", cx.now).await.map(|_| None)
}

pub async fn webhook(
    cx: &Context<'_>,
    url: &str,
    label: &str,
    signing: Option<&str>,
    post: &Post,
    view: &PostView,
) -> Result<Option<String>, Failure> {
    let text = cx.templates.render_within(
        post.template,
        &inert::view(Medium::Plain, view),
        &Limit::None,
    )?;
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
    }))
    .map_err(|e| Failure::retry(e.to_string()))?;
    let timestamp = cx.now.timestamp().to_string();
    let mut req = cx
        .http
        .post(url)
        .header("Content-Type", "application/json")
        .header("X-Matome-Event", view.kind)
        .header("X-Matome-Delivery", &post.id)
        .header("X-Matome-Timestamp", &timestamp);
    if let Some(secret) = signing {
        req = req.header(
            "X-Matome-Signature-256",
            signature(secret, &timestamp, &body),
        );
    }
    check(req.body(body).send().await, label, cx.now)
        .await
        .map(|_| None)
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

#[cfg(test)]
mod tests {
    use super::*;

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
