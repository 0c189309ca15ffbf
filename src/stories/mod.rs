//! Stories: the items, from any sites and in either language, that report the same event
//! within a few days. Each new item's story is decided against an index of the window's
//! stories ([`StoryIndex`]), never the whole archive, and named by a stable ID: the key of its
//! first item. An item alone is its own story.
//!
//! How (precision first: two events in one story mislead more than one story in two):
//! - the same article — normalised links equal ([`link::normalise`]: tracking queries,
//!   fragments, `www.`/`m.`/AMP variants, trailing slashes dropped) — always joins;
//! - the same headline from another site (outlet labels such as `（ITmedia NEWS）` left out)
//!   joins;
//! - otherwise two items of one language join when their title and lead words (lindera nouns
//!   and compounds, stemmed Latin words, 頻出ワード and telling numbers, weighted by the window's
//!   idf) are similar enough and the titles share at least two of them; across languages when
//!   the titles share at least two rare names or numbers (an organisation one term whichever
//!   name it goes by: `names`);
//! - a join is vetoed by any item of the story whose title states numbers of one kind and size
//!   that disagree (versions, amounts, percentages, counts, seismic intensities, scores; a
//!   round figure agrees with what rounds to it: [`numbers`]), that announces a pre-release
//!   where the other does not, that names another central bank, that (both titles Japanese)
//!   names things in Latin script or organisations none of which the other names, or that
//!   reports a kind of event the other's excludes (a market's move against the news it moved
//!   on or another market's move, results against a launch, an outage against a launch, a
//!   leak against what is not one, a plan against its outcome: `events`); market moves more
//!   than the fresh hours apart never join (each trading day's is its own story).
//!
//! Also how widely a story was covered and how stories rank by it ([`coverage`]).
//!
//! Owns the method, the window index and coverage, and the window as derived state
//! ([`window`]: `.matome/stories.bin`, checked against content/ and rebuilt from it): where
//! facts come from ([`Facts::of`], reading the analyser's public API), and nothing of pages or
//! search. A fetch writes each new item's [`Assignment::story`] into its record
//! (`crate::fetch`); `matome analyze` recomputes them (`crate::analyze_archive`).

pub mod coverage;
mod events;
mod facts;
mod index;
pub mod link;
mod names;
pub mod numbers;
mod score;
pub mod window;

pub use facts::{Facts, Lang, strip_outlet_labels, title_key};
pub use index::{Assignment, StoryIndex};
pub use score::contradicts;

use chrono::{DateTime, FixedOffset};

use crate::content::Item;

/// The method's version: bump it when what decides a story changes (facts, scores, vetoes,
/// the index), so a saved window ([`window`]) of the old method is rebuilt, not believed.
/// `matome analyze --all` then recomputes the archive's stories with the new one.
pub const METHOD: u32 = 4;

/// The method's knobs. [`Settings::default`] is what the quality test measures.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Two items further apart in time than this never join.
    pub window_hours: i64,
    /// Items the window holds at most (the oldest leave first).
    pub max_items: usize,
    /// Cosine two items of one language and different sites need.
    pub threshold: f64,
    /// Cosine two items of one site need (a site rarely reports one event twice).
    pub same_site_threshold: f64,
    /// Or: the rarity of the title terms two items of one language share (summed idf, each
    /// relative to that of a term only one item has).
    pub rare_shared: f64,
    /// The same rarity two items in different languages must share.
    pub cross_rare: f64,
    /// Hours within which reports count as fresh (no decay).
    pub fresh_hours: f64,
    /// What the cosine needed grows by, per day past the fresh hours (the rarity needed
    /// grows by its own value per day).
    pub decay: f64,
    /// The share of a story's items in the window a new item must share a title word with
    /// to join it.
    pub coverage: f64,
    /// What a shared compound or 頻出ワード adds to the rarity shared, against a shared word.
    pub compound_rarity: f64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            window_hours: 72,
            max_items: 50_000,
            threshold: 0.4,
            same_site_threshold: 0.6,
            rare_shared: 2.5,
            cross_rare: 1.8,
            fresh_hours: 12.0,
            decay: 0.4,
            coverage: 0.5,
            compound_rarity: 1.0,
        }
    }
}

impl Settings {
    /// The method's settings for a site (`[stories]` of matome.toml), the rest at their
    /// defaults.
    pub fn of(config: &crate::config::StorySettings) -> Settings {
        Settings {
            window_hours: i64::from(config.window_hours),
            ..Settings::default()
        }
    }

    /// How long an item stays in the index: the window.
    pub fn retain_hours(&self) -> i64 {
        self.window_hours
    }
}

/// One item to (re)assign: its key (the ID of a story it starts), the item, and when it was
/// archived (its digest's time).
pub struct ToAssign<'a> {
    pub key: &'a str,
    pub item: &'a Item,
    pub archived: DateTime<FixedOffset>,
}

/// The stories of `items`, given in archive order, as a fresh window would assign them one by
/// one (`matome analyze --all` after a change of method). Facts are read on all cores, then
/// assigned in order; memory is the window's plus one chunk of facts.
pub fn recompute(items: &[ToAssign<'_>], settings: &Settings) -> Vec<String> {
    use rayon::prelude::*;
    const CHUNK: usize = 8192;
    let mut index = StoryIndex::new(settings.clone());
    let mut out = Vec::with_capacity(items.len());
    for chunk in items.chunks(CHUNK) {
        let facts: Vec<Facts> = chunk
            .par_iter()
            .map(|t| Facts::of(t.item, t.archived))
            .collect();
        for (t, f) in chunk.iter().zip(facts) {
            out.push(index.assign(t.key, f).story);
        }
    }
    out
}

#[cfg(test)]
mod tests;
