//! Mastodon: `POST /api/v1/statuses` with a Bearer token and an `Idempotency-Key` derived from
//! the post, within the instance's limit (`max_chars`, else `/api/v2/instance` →
//! `configuration.statuses.max_characters` and `characters_reserved_per_url`, else 500 and 23),
//! with the visibility matome.toml sets.
//!
//! **Exactly once.** A retry carries the same `Idempotency-Key`, so Mastodon answers with the
//! status it already made (it keeps keys for an hour). A post whose answer a killed run never
//! saw is looked for among the account's latest statuses
//! (`/api/v1/accounts/verify_credentials`, then `/api/v1/accounts/:id/statuses`): a status
//! linking the post's page is the post.

use serde_json::json;
use sha2::{Digest, Sha256};

use super::{Context, Failure, Session, Settled, check, hex, malformed};
use crate::config::publish::{Mastodon, PublishTarget};
use crate::publish::Post;
use crate::publish::inert::{self, Medium};
use crate::publish::limits::Limit;
use crate::publish::targets::JsonBody;
use crate::publish::text::PostView;

/// The instance's limit and URL weight.
async fn limit(cx: &Context<'_>, m: &Mastodon, session: &mut Session) -> Limit {
    let (max, url) = match (m.max_chars, session.mastodon_limit) {
        (Some(n), _) => (n, 23),
        (None, Some(l)) => l,
        (None, None) => {
            let api = format!("{}/api/v2/instance", m.instance);
            let l = match check(cx.http.get(&api).send().await, &api, cx.now).await {
                Ok(v) => {
                    let s = &v["configuration"]["statuses"];
                    (
                        s["max_characters"].as_u64().map_or(500, |n| n as usize),
                        s["characters_reserved_per_url"]
                            .as_u64()
                            .map_or(23, |n| n as usize),
                    )
                }
                Err(_) => (500, 23),
            };
            session.mastodon_limit = Some(l);
            l
        }
    };
    Limit::Mastodon { max, url }
}

fn idempotency_key(m: &Mastodon, t: &PublishTarget, post: &Post) -> String {
    hex(&Sha256::digest(
        format!("{}\u{0}{}\u{0}{}", m.instance, t.name, post.id).as_bytes(),
    ))[..32]
        .to_string()
}

pub async fn send(
    cx: &Context<'_>,
    t: &PublishTarget,
    m: &Mastodon,
    token: &str,
    session: &mut Session,
    post: &Post,
    view: &PostView,
) -> Result<Option<String>, Failure> {
    let limit = limit(cx, m, session).await;
    let text =
        cx.templates
            .render_within(post.template, &inert::view(Medium::Plain, view), &limit)?;
    let url = format!("{}/api/v1/statuses", m.instance);
    let r = cx
        .http
        .post(&url)
        .bearer_auth(token)
        .header("Idempotency-Key", idempotency_key(m, t, post))
        .json_body(&json!({
            "status": text,
            "visibility": m.visibility,
            "language": cx.lang,
        }))
        .send()
        .await;
    let v = check(r, &url, cx.now).await?;
    Ok(v["url"].as_str().or(v["id"].as_str()).map(str::to_string))
}

pub async fn settle(
    cx: &Context<'_>,
    m: &Mastodon,
    token: &str,
    session: &mut Session,
    post: &Post,
) -> Result<Settled, Failure> {
    let account = match &session.mastodon_account {
        Some(a) => a.clone(),
        None => {
            let url = format!("{}/api/v1/accounts/verify_credentials", m.instance);
            let v = check(
                cx.http.get(&url).bearer_auth(token).send().await,
                &url,
                cx.now,
            )
            .await
            .map_err(|e| Failure::retry(e.message()))?;
            let id = v["id"].as_str().ok_or_else(|| malformed(&url, "an id"))?;
            session.mastodon_account = Some(id.to_string());
            id.to_string()
        }
    };
    let url = format!(
        "{}/api/v1/accounts/{account}/statuses?limit=40&exclude_replies=true&exclude_reblogs=true",
        m.instance
    );
    let v = check(
        cx.http.get(&url).bearer_auth(token).send().await,
        &url,
        cx.now,
    )
    .await
    .map_err(|e| Failure::retry(e.message()))?;
    let page = &post.view.url;
    let found = v.as_array().into_iter().flatten().find(|s| {
        s["content"]
            .as_str()
            .is_some_and(|c| c.contains(page.as_str()))
    });
    Ok(match found {
        Some(s) => Settled::Posted(s["url"].as_str().or(s["id"].as_str()).map(str::to_string)),
        None => Settled::Resend,
    })
}
