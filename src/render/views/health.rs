//! The feed-health page: every configured feed with its fetch state (`fetch-state.json`).

use anyhow::Result;
use chrono::{DateTime, FixedOffset};
use serde::Serialize;

use super::{Ctx, html, layout, rfc3339};
use crate::render::page::{Fp, Kind, Page};
use crate::render::safety::safe_link;

/// The page; `state` is the fingerprint of the fetch state it shows.
pub(crate) fn page(state: u64) -> Page {
    Page {
        path: "health/index.html".into(),
        kind: Kind::Health,
        fp: Fp::new("health").u64(state).0,
    }
}

/// One feed's health.
#[derive(Serialize)]
pub struct FeedHealth {
    /// The configured `site`, else the feed's title, else its URL.
    pub site: String,
    pub category: String,
    pub url: String,
    /// The feed URL if it is http(s).
    pub link: Option<String>,
    /// `ok`, `failing` or `never` (not fetched successfully yet).
    pub status: &'static str,
    /// RFC 3339 in the site's zone.
    pub last_success: Option<String>,
    pub last_attempt: Option<String>,
    pub consecutive_failures: u32,
    pub last_error: Option<String>,
    pub next_attempt: Option<String>,
    pub items_archived: u64,
}

/// `health.html`: failing feeds first, the worst at the top.
#[derive(Serialize)]
pub struct HealthView {
    pub feeds: Vec<FeedHealth>,
    pub failing: usize,
    pub total: usize,
    /// Why fetch-state.json could not be read, if it could not.
    pub state_error: Option<String>,
}

pub(crate) fn health(ctx: &Ctx) -> Result<Vec<u8>> {
    let site = ctx.site;
    let state = ctx.health;
    let mut feeds: Vec<FeedHealth> = site
        .config
        .feeds
        .iter()
        .map(|f| {
            let st = state.feeds.get(&f.url);
            let name = f
                .site
                .clone()
                .or_else(|| st.and_then(|s| s.title.as_deref().map(crate::text::one_line)))
                .unwrap_or_else(|| f.url.clone());
            let status = match st {
                None => "never",
                Some(s) if s.consecutive_failures > 0 => "failing",
                Some(s) if s.last_success.is_some() => "ok",
                Some(_) => "never",
            };
            let t = |v: Option<&DateTime<FixedOffset>>| v.map(|t| rfc3339(&site.local(t)));
            FeedHealth {
                site: name,
                category: f.category.clone(),
                url: f.url.clone(),
                link: safe_link(&f.url),
                status,
                last_success: t(st.and_then(|s| s.last_success.as_ref())),
                last_attempt: t(st.and_then(|s| s.last_attempt.as_ref())),
                consecutive_failures: st.map_or(0, |s| s.consecutive_failures),
                // A state file from an older matome may hold control bytes a feed sent.
                last_error: st.and_then(|s| s.last_error.as_deref().map(crate::text::one_line)),
                next_attempt: t(st.and_then(|s| s.next_attempt.as_ref())),
                items_archived: st.map_or(0, |s| s.items_archived),
            }
        })
        .collect();
    // Failing feeds first, the worst at the top.
    feeds.sort_by(|a, b| {
        b.consecutive_failures
            .cmp(&a.consecutive_failures)
            .then_with(|| a.category.cmp(&b.category))
            .then_with(|| a.site.cmp(&b.site))
    });
    let v = HealthView {
        failing: feeds.iter().filter(|f| f.status == "failing").count(),
        total: feeds.len(),
        feeds,
        state_error: state.load_error.clone(),
    };
    html(
        ctx.theme,
        "health.html",
        &layout(
            site,
            site.strings.health.into(),
            "health/".into(),
            "health",
            v,
        ),
    )
}
