//! Top stories as posts (issue 24): a `[[publish]]` target with `what = "stories"` posts each
//! story once, when it reaches `[stories] feed_min_sites` distinct sites, in the order they
//! reached it. A story's place in time is the hour of the item that brought its N-th site plus
//! that item's position in its file (in seconds), so two stories never share one, and items a
//! later run of the same hour appends come after those posted: the target's cursor
//! ([`super::state`]) says what was posted, exactly once across reruns.
//!
//! Read from the snapshot files of a bounded span: the posts a run can still send (newer than
//! `max_age_hours` of the target with the largest) and [`LOOKBACK_HOURS`] before them, where a
//! story's earlier members are. Each file is read through the derived layer
//! ([`crate::content::derived::load`]), as the build reads it: from its record, parsed only when
//! no record describes it (and then recorded). The post's text is the story's headline (its first item's title,
//! a feed's text: made inert by each sender like every feed text), how many sites covered it, and
//! its first link.

use std::path::Path;

use anyhow::Result;
use chrono::{DateTime, FixedOffset};

use super::post::{DigestFile, Post, PostItem};
use super::text::PostView;
use crate::config::{Config, Language};
use crate::content::Snapshot;
use crate::stories::coverage::{Report, coverage};

/// Hours before the oldest post a run may send whose files are read for the stories' earlier
/// members (a story joins items of the window before it: 72 hours by default).
pub const LOOKBACK_HOURS: i64 = 7 * 24;

/// One story that reached the threshold, ready to post.
#[derive(Debug, Clone)]
pub struct DueStory {
    /// When it reached the threshold (see the module doc).
    pub order: DateTime<FixedOffset>,
    pub id: String,
    pub headline: String,
    /// The first item's link (http(s)), else its place on its digest page.
    pub link: String,
    pub site: String,
    pub category: String,
    /// Distinct sites that covered it (as of this run).
    pub sites: usize,
}

/// An item's place in time: its file's hour plus its position there (1-based), in seconds (at
/// most 3,599, so within its hour).
fn item_time(hour: DateTime<FixedOffset>, k: usize) -> DateTime<FixedOffset> {
    hour + chrono::Duration::seconds((k as i64 + 1).min(3599))
}

/// The stories of `files` (those from `from` on) of the site at `root` that reached `min_sites`
/// distinct sites, in the order they did. Linear in the items read.
pub fn due(
    root: &Path,
    config: &Config,
    base_url: &str,
    files: &[DigestFile],
    from: DateTime<FixedOffset>,
    min_sites: usize,
) -> Result<Vec<DueStory>> {
    let start = files.partition_point(|f| f.hour < from);
    let mut snaps: Vec<(DateTime<FixedOffset>, Snapshot)> = Vec::new();
    for f in &files[start..] {
        // A file that does not parse is `matome check`'s to report; the others still count.
        if let Ok(s) = f.load(root) {
            snaps.push((f.hour, s));
        }
    }
    let ids: Vec<Vec<String>> = snaps
        .iter()
        .map(|(_, s)| s.items.iter().map(|i| i.story_id().into_owned()).collect())
        .collect();
    let reports = snaps.iter().zip(&ids).flat_map(|((hour, s), ids)| {
        s.items
            .iter()
            .zip(ids)
            .enumerate()
            .map(|(k, (i, id))| Report {
                story: id.as_str(),
                site: i.site.as_str(),
                at: item_time(*hour, k),
            })
    });
    // The first report of each story: its headline and link.
    let mut first: std::collections::HashMap<&str, (usize, usize)> = Default::default();
    for (f, ids) in ids.iter().enumerate() {
        for (k, id) in ids.iter().enumerate() {
            first.entry(id.as_str()).or_insert((f, k));
        }
    }
    let mut out = Vec::new();
    for c in coverage(reports) {
        let Some(order) = c.reached(min_sites.max(1)) else {
            continue;
        };
        let (f, k) = first[c.story];
        let (hour, s) = &snaps[f];
        let item = &s.items[k];
        let link = match crate::text::http_url(item.link.trim()) {
            Some(u) => u.to_string(),
            None => format!(
                "{base_url}{}#item-{}",
                crate::content::digest_path(hour, config.timezone),
                k + 1
            ),
        };
        out.push(DueStory {
            order,
            id: c.story.to_string(),
            headline: item.title.clone(),
            link,
            site: item.site.clone(),
            category: item.category.clone(),
            sites: c.site_count(),
        });
    }
    out.sort_by(|a, b| a.order.cmp(&b.order).then(a.id.cmp(&b.id)));
    Ok(out)
}

/// The post of a story.
pub fn post(config: &Config, s: &DueStory) -> Post {
    let coverage = match config.language {
        Language::Ja => format!("{}サイトが報道", s.sites),
        Language::En => format!("Covered by {} sites", s.sites),
    };
    Post {
        id: format!("story:{}", s.id),
        order: s.order,
        template: "publish/story.txt",
        view: PostView {
            kind: "story",
            site_title: config.title.clone(),
            heading: s.headline.clone(),
            coverage,
            url: s.link.clone(),
            time: crate::content::rfc3339(&s.order),
            items: s.sites,
            keywords: Vec::new(),
            hashtags: Vec::new(),
            trend_words: Vec::new(),
        },
        description: s.headline.clone(),
        items: vec![PostItem {
            title: s.headline.clone(),
            link: s.link.clone(),
            site: s.site.clone(),
            category: s.category.clone(),
            summary: String::new(),
            keywords: Vec::new(),
        }],
    }
}
