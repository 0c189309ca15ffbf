//! `matome serve`'s search API, `GET {base path}api/search`: the query parameters (bounded
//! `offset`, clamped `limit`, dates in the site's zone), answered from the tantivy index as JSON;
//! a malformed parameter is a 400 with a JSON error, an index not ready a 503.

use std::sync::Arc;

use anyhow::{Result, anyhow};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::Shared;
use crate::search::index::{MAX_OFFSET, SearchOptions, parse_date, parse_until};

#[derive(Debug, Deserialize)]
pub(super) struct SearchParams {
    #[serde(default)]
    q: String,
    limit: Option<usize>,
    offset: Option<usize>,
    category: Option<String>,
    site: Option<String>,
    since: Option<String>,
    until: Option<String>,
    sort: Option<String>,
}

/// The API's `limit` is clamped to `1..=API_MAX_LIMIT`.
const API_MAX_LIMIT: usize = 200;

fn bad_request(msg: String) -> Response {
    (
        StatusCode::BAD_REQUEST,
        axum::Json(serde_json::json!({ "error": msg })),
    )
        .into_response()
}

pub(super) async fn api_search(
    State(shared): State<Arc<Shared>>,
    query: Result<Query<SearchParams>, QueryRejection>,
) -> Response {
    // A malformed parameter (`offset=-1`, `limit=1e99`, a number past u64) is the caller's
    // mistake: a 400 with a JSON error, as the page expects, not axum's plain text.
    let p = match query {
        Ok(Query(p)) => p,
        Err(e) => return bad_request(e.body_text()),
    };
    // `offset` past the bound is refused rather than clamped: clamping would answer a
    // different question. (The searcher allocates for offset + limit hits.)
    let offset = p.offset.unwrap_or(0);
    if offset > MAX_OFFSET {
        return bad_request(format!(
            "offset {offset} is too large: at most {MAX_OFFSET} hits can be skipped (narrow the query instead)"
        ));
    }
    let tz = shared.timezone;
    let date = |d: &Option<String>, end: bool| -> Result<Option<i64>> {
        d.as_deref()
            .filter(|s| !s.is_empty())
            .map(|s| {
                if end {
                    parse_until(s, tz)
                } else {
                    parse_date(s, tz)
                }
            })
            .transpose()
    };
    let (since, until) = match (date(&p.since, false), date(&p.until, true)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return bad_request(format!("{e:#}")),
    };
    // Newest first unless relevance is asked for, as on the page and in the CLI.
    let by_date = match p.sort.as_deref() {
        None | Some("" | "date") => true,
        Some("relevance") => false,
        Some(other) => {
            return bad_request(format!(
                "sort {other:?} is not one of \"date\" (newest first) and \"relevance\""
            ));
        }
    };
    let opts = SearchOptions {
        query: p.q,
        limit: p.limit.unwrap_or(20).clamp(1, API_MAX_LIMIT),
        offset,
        category: p.category.filter(|s| !s.is_empty()),
        site: p.site.filter(|s| !s.is_empty()),
        since,
        until,
        by_date,
    };
    let result = match shared.searcher.read().unwrap().as_ref() {
        Some(s) => s.search(&opts),
        None => Err(anyhow!(
            "the search index is not ready (the last build failed)"
        )),
    };
    match result {
        Ok(hits) => axum::Json(serde_json::json!({ "hits": hits })).into_response(),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(serde_json::json!({ "error": format!("{e:#}") })),
        )
            .into_response(),
    }
}
