//! X: API v2 `POST /2/tweets` (`{"text": …}`) with OAuth 1.0a user context (the app's consumer
//! key and secret, the account's access token and secret; a JSON body is not part of the
//! signature). The text fits X's count: 280 weighted characters as twitter-text counts them
//! ([`crate::publish::limits::Limit::X`]). A 429 defers the target until `x-rate-limit-reset`;
//! a 400 (or X's 403 for duplicate content) refuses the post for good.
//!
//! **At most once.** The answer's `data.id` is recorded. X's free API cannot list an account's
//! posts, so a post whose answer a killed run never saw is taken as sent, never sent twice.

use serde_json::json;

use super::oauth::{self, Keys};
use super::{Context, Failure, JsonBody, check, malformed};
use crate::config::publish::OAuthService;
use crate::publish::Post;
use crate::publish::inert::{self, Medium};
use crate::publish::limits::Limit;
use crate::publish::text::PostView;

pub async fn send(
    cx: &Context<'_>,
    o: &OAuthService,
    keys: &Keys,
    post: &Post,
    view: &PostView,
) -> Result<Option<String>, Failure> {
    let text =
        cx.templates
            .render_within(post.template, &inert::view(Medium::Plain, view), &Limit::X)?;
    let url = format!("{}/2/tweets", o.api);
    let auth = oauth::authorization(keys, "POST", &url, &[], None, true);
    let r = cx
        .http
        .post(&url)
        .header("Authorization", auth)
        .json_body(&json!({"text": text}))
        .send()
        .await;
    let v = check(r, "the X API (POST /2/tweets)", cx.now)
        .await
        .map_err(|e| match e {
            Failure::Retry { message, .. }
                if message.starts_with("HTTP 403") && message.contains("duplicate") =>
            {
                Failure::Refused(message)
            }
            e => e,
        })?;
    let id = v["data"]["id"]
        .as_str()
        .ok_or_else(|| malformed("the X API", "data.id"))?;
    Ok(Some(id.to_string()))
}
