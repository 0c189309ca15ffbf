//! Bluesky: `com.atproto.server.createSession` (handle + app password) once per run, then
//! `com.atproto.repo.createRecord` of an `app.bsky.feed.post` (≤ 300 graphemes and 3,000
//! bytes, `langs`, facets for the page link and matome's hashtags only, an
//! `app.bsky.embed.external` link card to the page).
//!
//! **Exactly once.** The record key is a TID made from the post's time and the target, so the
//! same post always has the same key: a createRecord of a key that exists fails, and
//! `com.atproto.repo.getRecord` tells whether a post landed (after an error, or when a run was
//! killed mid-request) — the record is there if and only if it was posted.

use serde_json::json;

use super::{Context, Failure, Session, Settled, check, malformed};
use crate::config::publish::{Bluesky, PublishTarget};
use crate::publish::Post;
use crate::publish::inert::{self, Medium};
use crate::publish::limits::Limit;
use crate::publish::state::Attempt;
use crate::publish::targets::JsonBody;
use crate::publish::text::{self, PostView};

use chrono::{DateTime, FixedOffset};

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

/// The record key of a post (stable for the post and the account, not the base URL, which
/// `--base-url` may change).
fn rkey(t: &PublishTarget, b: &Bluesky, order: DateTime<FixedOffset>) -> String {
    tid(order, &format!("{}\u{0}{}", b.handle, t.name))
}

fn xrpc(b: &Bluesky, method: &str) -> String {
    format!("{}/xrpc/{method}", b.service)
}

/// The session (access JWT, DID), opened once per run.
async fn session(
    cx: &Context<'_>,
    b: &Bluesky,
    password: &str,
    session: &mut Session,
) -> Result<(String, String), Failure> {
    if let Some(s) = &session.bluesky {
        return Ok(s.clone());
    }
    let url = xrpc(b, "com.atproto.server.createSession");
    let r = cx
        .http
        .post(&url)
        .json_body(&json!({"identifier": b.handle, "password": password}))
        .send()
        .await;
    // A refused login is the target's credentials, never the post's.
    let v = check(r, &url, cx.now)
        .await
        .map_err(|e| Failure::retry(e.message()))?;
    let (Some(jwt), Some(did)) = (v["accessJwt"].as_str(), v["did"].as_str()) else {
        return Err(malformed(&url, "accessJwt and did"));
    };
    let s = (jwt.to_string(), did.to_string());
    session.bluesky = Some(s.clone());
    Ok(s)
}

/// Whether the record `rkey` exists.
async fn exists(cx: &Context<'_>, b: &Bluesky, jwt: &str, did: &str, rkey: &str) -> bool {
    let Ok(url) = url::Url::parse_with_params(
        &xrpc(b, "com.atproto.repo.getRecord"),
        [
            ("repo", did),
            ("collection", "app.bsky.feed.post"),
            ("rkey", rkey),
        ],
    ) else {
        return false;
    };
    matches!(cx.http.get(url).bearer_auth(jwt).send().await, Ok(r) if r.status().is_success())
}

pub async fn send(
    cx: &Context<'_>,
    t: &PublishTarget,
    b: &Bluesky,
    password: &str,
    s: &mut Session,
    post: &Post,
    view: &PostView,
) -> Result<Option<String>, Failure> {
    let (jwt, did) = session(cx, b, password, s).await?;
    let text = cx.templates.render_within(
        post.template,
        &inert::view(Medium::Plain, view),
        &Limit::Bluesky,
    )?;
    let rkey = rkey(t, b, post.order);
    let record = json!({
        "$type": "app.bsky.feed.post",
        "text": text,
        "createdAt": cx.now.with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        "langs": [cx.lang],
        "facets": text::facets(&text, &view.url, &view.hashtags),
        "embed": {
            "$type": "app.bsky.embed.external",
            "external": {
                "uri": view.url,
                "title": view.heading,
                "description": inert::inert(Medium::Plain, &post.description),
            }
        }
    });
    let url = xrpc(b, "com.atproto.repo.createRecord");
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
    match check(r, &url, cx.now).await {
        Ok(v) => Ok(v["uri"].as_str().map(str::to_string)),
        // Did it land before the error (a lost answer, an earlier run)? The key is the post's.
        Err(e) => match exists(cx, b, &jwt, &did, &rkey).await {
            true => Ok(Some(format!("at://{did}/app.bsky.feed.post/{rkey}"))),
            false => Err(e),
        },
    }
}

pub async fn settle(
    cx: &Context<'_>,
    t: &PublishTarget,
    b: &Bluesky,
    password: &str,
    s: &mut Session,
    attempt: &Attempt,
) -> Result<Settled, Failure> {
    let (jwt, did) = session(cx, b, password, s).await?;
    let rkey = rkey(t, b, attempt.order);
    Ok(match exists(cx, b, &jwt, &did, &rkey).await {
        true => Settled::Posted(Some(format!("at://{did}/app.bsky.feed.post/{rkey}"))),
        false => Settled::Resend,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tids_are_13_sortable_characters_stable_per_post() {
        let a = DateTime::parse_from_rfc3339("2021-07-20T08:00:00+09:00").unwrap();
        let b = DateTime::parse_from_rfc3339("2021-07-20T09:00:00+09:00").unwrap();
        assert_eq!(tid(a, "x").len(), 13);
        assert_eq!(tid(a, "x"), tid(a, "x"));
        assert!(tid(a, "x") < tid(b, "x"));
        assert!(tid(a, "x").starts_with(|c: char| "234567abcdefghij".contains(c)));
    }
}
