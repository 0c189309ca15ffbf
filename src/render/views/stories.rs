//! Stories on pages (issue 24): the line a digest row of a story several sites covered gets
//! (how many other sites, and their items), the top stories day pages and the home page lead
//! with, and `stories/atom.xml`, the feed of stories once enough sites covered them.
//!
//! What a page shows of a story is covered by the story's fingerprint
//! ([`crate::render::story::StorySources::fp`]); each page kind mixes in the fingerprints of
//! the stories it shows.

use anyhow::Result;
use chrono::{DateTime, FixedOffset};
use serde::Serialize;

use super::{Ctx, rfc3339};
use crate::content::archive::ListedItem;
use crate::render::page::{Fp, Kind, Page};
use crate::render::safety::safe_link;
use crate::render::site::Site;
use crate::render::story::{self, HOME_WINDOW_HOURS, Ranked};
use crate::stories::coverage::Rank;

/// Sources a top story lists on a day page or the home page (the rest: its place, whose row
/// lists them all). Three: a year of day pages listed 5 (~170 bytes each).
pub const TOP_SOURCES: usize = 3;
/// The story feed covers the stories that reached its sites in the [`FEED_HOURS`] before the
/// newest digest…
pub const FEED_HOURS: i64 = 24;
/// …at least this many (from the digests of the last [`FEED_SCAN_HOURS`])…
pub const FEED_MIN_ENTRIES: usize = 20;
/// …at most this many.
pub const FEED_MAX_ENTRIES: usize = 200;
/// How far back the story feed looks for its entries.
pub const FEED_SCAN_HOURS: i64 = 168;
/// The story feed's path.
pub const STORIES_FEED: &str = "stories/atom.xml";

/// One source of a story: a site's first item of it.
#[derive(Serialize)]
pub struct SourceView {
    pub site: String,
    pub title: String,
    /// `None` unless an http(s) URL.
    pub link: Option<String>,
    /// Its row on its digest page (site-relative, `…/#item-N`).
    pub url: String,
}

/// What a digest row says of its story when other sites covered it too. The story's first row
/// (its place) lists the other sites' items; every later row links to it: a year of rows pays
/// for each source's title and link once, not once per row of the story.
#[derive(Serialize)]
pub struct RowStory {
    /// "ほか2サイト" / "+2 sources": the other distinct sites.
    pub label: String,
    /// On the story's first row: the other sites' first items, oldest first; empty elsewhere.
    pub sources: Vec<SourceView>,
    /// On later rows: the story's place (its first row, site-relative `…/#item-N`).
    pub place: Option<String>,
}

/// A top story of a day or of the home page.
#[derive(Serialize)]
pub struct TopStory {
    /// Its first item's title.
    pub title: String,
    /// Its place: its first item's row (site-relative).
    pub url: String,
    /// Distinct sites that covered it.
    pub sites: usize,
    /// "3サイト" / "3 sources".
    pub sites_text: String,
    /// Its sources, oldest first, at most [`TOP_SOURCES`].
    pub sources: Vec<SourceView>,
    /// Sources not listed (see `url`).
    pub more: usize,
}

fn source(site: &Site, i: u32) -> SourceView {
    let a = site.archive;
    let e = &a.items[i as usize];
    SourceView {
        site: a.sites.names[e.site as usize].clone(),
        title: e.title.clone(),
        link: safe_link(&e.link),
        url: row_url(site, e),
    }
}

fn row_url(site: &Site, e: &ListedItem) -> String {
    format!(
        "{}#item-{}",
        site.digest_url(e.digest as usize),
        e.index + 1
    )
}

/// Row `i`'s story line, if other sites covered its story.
pub(crate) fn row(site: &Site, i: u32) -> Option<RowStory> {
    let a = site.archive;
    let e = &a.items[i as usize];
    let sources = site.stories.sources(e.story);
    if sources.is_empty() {
        return None;
    }
    let first = sources[0] == i;
    Some(RowStory {
        label: site
            .strings
            .story_sources
            .replace("{n}", &(sources.len() - 1).to_string()),
        sources: if first {
            sources[1..].iter().map(|&s| source(site, s)).collect()
        } else {
            Vec::new()
        },
        place: (!first).then(|| row_url(site, &a.items[sources[0] as usize])),
    })
}

fn top_story(site: &Site, r: &Ranked) -> TopStory {
    let a = site.archive;
    let sources = site.stories.sources(r.story);
    let first = &a.items[sources[0] as usize];
    TopStory {
        title: first.title.clone(),
        url: row_url(site, first),
        sites: r.sites,
        sites_text: site
            .strings
            .story_sites
            .replace("{n}", &r.sites.to_string()),
        sources: sources
            .iter()
            .take(TOP_SOURCES)
            .map(|&s| source(site, s))
            .collect(),
        more: sources.len().saturating_sub(TOP_SOURCES),
    }
}

/// Day `day`'s top stories: those that began that day, by distinct sites.
pub(crate) fn day_top(site: &Site, day: usize) -> Vec<TopStory> {
    let stories = story::day_stories(site, day);
    let limit = site.config.stories.top_per_day;
    story::ranked(site.archive, &stories, Rank::BySites, 2, limit)
        .iter()
        .map(|r| top_story(site, r))
        .collect()
}

/// Day `day`'s top stories' fingerprint input.
pub(crate) fn day_fp(site: &Site, fp: &mut Fp, day: usize) {
    for s in story::day_stories(site, day) {
        fp.u64(site.stories.fp(s).unwrap_or(0));
    }
}

/// The home page's top stories: the recent ones, by distinct sites decayed with the time since
/// their latest item, as of the newest digest's hour.
pub(crate) fn home_top(site: &Site) -> Vec<TopStory> {
    let Some(now) = site.archive.digests.last().map(|d| d.hour) else {
        return Vec::new();
    };
    let rank = Rank::Decayed {
        now,
        half_life_hours: site.config.stories.home_half_life_hours,
    };
    let stories = story::recent_stories(site, HOME_WINDOW_HOURS);
    let limit = site.config.stories.top_per_day;
    story::ranked(site.archive, &stories, rank, 2, limit)
        .iter()
        .map(|r| top_story(site, r))
        .collect()
}

/// The home page's top stories' fingerprint input.
pub(crate) fn home_fp(site: &Site, fp: &mut Fp) {
    if let Some(d) = site.archive.digests.last() {
        fp.u64(d.hour.timestamp() as u64);
    }
    for s in story::recent_stories(site, HOME_WINDOW_HOURS) {
        fp.u64(site.stories.fp(s).unwrap_or(0));
    }
}

/// The story feed's entries, newest first: the stories covered by `feed_min_sites` distinct
/// sites, by when the last of those first reported them, within [`FEED_HOURS`] of the newest
/// digest (at least [`FEED_MIN_ENTRIES`] from the last [`FEED_SCAN_HOURS`], at most
/// [`FEED_MAX_ENTRIES`]).
pub(crate) fn feed_entries(site: &Site) -> Vec<Ranked> {
    let a = site.archive;
    let Some(now) = a.digests.last().map(|d| d.hour) else {
        return Vec::new();
    };
    let n = site.config.stories.feed_min_sites.max(1);
    let stories = story::recent_stories(site, FEED_SCAN_HOURS);
    let mut all = story::ranked(a, &stories, Rank::BySites, n, usize::MAX);
    all.sort_by(|x, y| y.reached.cmp(&x.reached).then(x.story.cmp(&y.story)));
    let from = now - chrono::Duration::hours(FEED_HOURS);
    let in_window = all.iter().filter(|r| r.reached > Some(from)).count();
    let keep = in_window.clamp(
        FEED_MIN_ENTRIES.min(all.len()),
        FEED_MAX_ENTRIES.min(all.len()),
    );
    all.truncate(keep);
    all
}

/// `stories/atom.xml`.
pub(crate) fn feed_page(site: &Site) -> Page {
    let mut fp = Fp::new("stories-atom");
    fp.u64(site.config.stories.feed_min_sites as u64);
    for r in feed_entries(site) {
        fp.u64(site.stories.fp(r.story).unwrap_or(0));
    }
    Page {
        path: STORIES_FEED.into(),
        kind: Kind::StoriesAtom,
        fp: fp.0,
    }
}

/// One entry of the story feed.
#[derive(Serialize)]
pub struct StoryEntry {
    /// `tag:HOST,DATE:story/ID` (the date of its first item): the same for as long as the story
    /// exists.
    pub id: String,
    /// When the `feed_min_sites`-th site first reported it (RFC 3339, UTC).
    pub published: String,
    /// When its latest new site first reported it (RFC 3339, UTC).
    pub updated: String,
    #[serde(flatten)]
    pub story: TopStory,
}

/// `stories_atom.xml`: the stories many sites covered, newest first.
#[derive(Serialize)]
pub struct StoriesAtomView {
    pub title: String,
    pub site_title: String,
    /// The line linking to a story's place when the entry lists only some of its sources.
    pub all_text: &'static str,
    /// The feed's own URL (site-relative).
    pub feed_url: String,
    /// The newest entry's update time (RFC 3339, UTC).
    pub updated: String,
    pub entries: Vec<StoryEntry>,
}

fn utc(t: Option<DateTime<FixedOffset>>) -> String {
    t.map(|t| rfc3339(&t.to_utc()))
        .unwrap_or_else(|| "1970-01-01T00:00:00Z".into())
}

/// The tag URI of story `s`: the base URL's host, the date of its first item, its ID.
fn tag(site: &Site, s: u32) -> String {
    let a = site.archive;
    let host = url::Url::parse(site.base_url())
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| "localhost".into());
    let first = &a.items[a.stories.members(s)[0] as usize];
    let date = a.digests[first.digest as usize].hour.to_utc().date_naive();
    format!("tag:{host},{date}:story/{}", a.stories.id(s))
}

pub(crate) fn feed(ctx: &Ctx) -> Result<Vec<u8>> {
    let site = ctx.site;
    let entries: Vec<StoryEntry> = feed_entries(site)
        .iter()
        .map(|r| StoryEntry {
            id: tag(site, r.story),
            published: utc(r.reached),
            updated: utc(r.last_site),
            story: top_story(site, r),
        })
        .collect();
    let v = StoriesAtomView {
        title: format!("{} — {}", site.config.title, site.strings.stories_feed),
        all_text: site.strings.story_all,
        site_title: site.config.title.clone(),
        feed_url: STORIES_FEED.into(),
        updated: entries
            .iter()
            .map(|e| e.updated.as_str())
            .max()
            .unwrap_or("1970-01-01T00:00:00Z")
            .to_string(),
        entries,
    };
    Ok(ctx.theme.render("stories_atom.xml", &v)?.into_bytes())
}
