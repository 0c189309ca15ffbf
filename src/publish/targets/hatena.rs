//! Hatena Bookmark: REST API `POST /rest/1/my/bookmark` (form parameters `url`, `comment` and up
//! to 10 `tags`; OAuth 1.0a with the `write_public` scope, the form parameters signed). A
//! digest's post bookmarks its top items (by their 頻出ワード; `bookmarks_per_digest`, only the
//! `categories` chosen), each with a comment from `publish/bookmark.txt` (≤ 100 characters) and
//! its 頻出ワード as tags.
//!
//! **Exactly once in effect.** "If the URL has already been bookmarked by the user, the API
//! updates existing bookmark" (Hatena's documentation): a retry of a bookmark is an update, so
//! a digest whose answer was lost is simply sent again. A bookmark Hatena refuses (400) is
//! skipped and named; the digest is dropped only when every one of its bookmarks is refused.

use serde::Serialize;

use super::oauth::{self, Keys};
use super::{Context, Failure, check};
use crate::config::publish::Hatena;
use crate::publish::inert::{self, Medium};
use crate::publish::limits::Limit;
use crate::publish::text::{self, PostView};
use crate::publish::{Post, PostItem};

/// Tags per bookmark at most (Hatena's limit).
pub const MAX_TAGS: usize = 10;

/// What `publish/bookmark.txt` receives: one item, its feed text made inert.
#[derive(Debug, Clone, Serialize)]
pub struct BookmarkView {
    pub title: String,
    pub site: String,
    pub category: String,
    pub summary: String,
    pub keywords: Vec<String>,
    /// The digest's heading and page (matome's, under base_url).
    pub heading: String,
    pub digest_url: String,
    pub site_title: String,
}

/// The items of `post` to bookmark: its top items in the chosen categories.
pub fn chosen<'a>(h: &Hatena, post: &'a Post) -> Vec<&'a PostItem> {
    post.items
        .iter()
        .filter(|i| h.categories.is_empty() || h.categories.contains(&i.category))
        .filter(|i| crate::text::http_url(&i.link).is_some())
        .take(h.bookmarks_per_digest)
        .collect()
}

/// The comment for `item`, within Hatena's 100 characters.
fn comment(cx: &Context<'_>, item: &PostItem, view: &PostView) -> anyhow::Result<String> {
    let m = Medium::Plain;
    let v = BookmarkView {
        title: inert::inert(m, &item.title),
        site: inert::inert(m, &item.site),
        category: inert::inert(m, &item.category),
        summary: inert::inert(m, &item.summary),
        keywords: item.keywords.iter().map(|k| inert::inert(m, k)).collect(),
        heading: view.heading.clone(),
        digest_url: view.url.clone(),
        site_title: view.site_title.clone(),
    };
    let text = cx.templates.render_value("publish/bookmark.txt", &v)?;
    let fits = |t: &str| Limit::HatenaComment.fits(t);
    Ok(if fits(&text) {
        text
    } else {
        text::cut(&text, &fits)
    })
}

pub async fn send(
    cx: &Context<'_>,
    h: &Hatena,
    keys: &Keys,
    post: &Post,
    view: &PostView,
) -> Result<Option<String>, Failure> {
    let items = chosen(h, post);
    if items.is_empty() {
        return Ok(Some("nothing to bookmark".into()));
    }
    let url = format!("{}/rest/1/my/bookmark", h.oauth.api);
    let (mut done, mut refused) = (0, Vec::new());
    for item in &items {
        let comment = comment(cx, item, view)?;
        let tags = text::hashtags(item.keywords.iter().map(String::as_str), MAX_TAGS);
        let mut params: Vec<(&str, &str)> = vec![("url", &item.link), ("comment", &comment)];
        params.extend(tags.iter().map(|t| ("tags", t.as_str())));
        let auth = oauth::authorization(keys, "POST", &url, &params, None, false);
        let form: String = params
            .iter()
            .map(|(k, v)| format!("{}={}", oauth::percent_encode(k), oauth::percent_encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let r = cx
            .http
            .post(&url)
            .header("Authorization", auth)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(form)
            .send()
            .await;
        match check(r, "the Hatena Bookmark API", cx.now).await {
            Ok(_) => done += 1,
            Err(Failure::Refused(why)) => refused.push(format!("{}: {why}", item.link)),
            Err(e) => return Err(e),
        }
    }
    if done == 0 {
        return Err(Failure::Refused(refused.join("; ")));
    }
    let mut note = format!("{done} bookmark(s)");
    if !refused.is_empty() {
        note.push_str(&format!("; refused: {}", refused.join("; ")));
    }
    Ok(Some(note))
}
