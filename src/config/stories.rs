//! `[stories]` of matome.toml: the window a new item's story is decided against, and what the
//! pages and the top stories' feed make of stories (their numbers declared in
//! [`super::settings`]). Read here, beside the other tables; the method's own knobs stay in
//! `crate::stories::Settings`.

use anyhow::Result;
use serde::Deserialize;

use super::ranges::{Int, Ranges, Real};
use super::settings as s;

/// `[stories]`: how stories are decided and shown.
#[derive(Debug, Clone, PartialEq)]
pub struct StorySettings {
    /// A new item's story is decided against the stories of this many hours before it (two
    /// items further apart never join); the window index holds them.
    pub window_hours: u32,
    /// A story enters the top stories' Atom feed once this many distinct sites reported it.
    pub feed_min_sites: usize,
    /// Top stories leading each day page and the home page (0: none).
    pub top_per_day: usize,
    /// The home page's ranking halves a story's distinct sites for every this many hours since
    /// its latest report.
    pub home_half_life_hours: f64,
}

impl Default for StorySettings {
    fn default() -> Self {
        StorySettings {
            window_hours: s::STORIES_WINDOW_HOURS.u32(),
            feed_min_sites: s::STORIES_FEED_MIN_SITES.usize(),
            top_per_day: s::STORIES_TOP_PER_DAY.usize(),
            home_half_life_hours: s::STORIES_HOME_HALF_LIFE_HOURS.default,
        }
    }
}

/// `[stories]` as written.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawStories {
    window_hours: Int,
    feed_min_sites: Int,
    top_per_day: Int,
    home_half_life_hours: Real,
}

impl RawStories {
    pub(super) fn settings(self, r: &Ranges) -> Result<StorySettings> {
        Ok(StorySettings {
            window_hours: r.int(self.window_hours, &s::STORIES_WINDOW_HOURS)?,
            feed_min_sites: r.int(self.feed_min_sites, &s::STORIES_FEED_MIN_SITES)?,
            top_per_day: r.int(self.top_per_day, &s::STORIES_TOP_PER_DAY)?,
            home_half_life_hours: r
                .real(self.home_half_life_hours, &s::STORIES_HOME_HALF_LIFE_HOURS)?,
        })
    }
}
