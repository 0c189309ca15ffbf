//! The stories of the static search index (issue 24): for each item of a story of several items,
//! the eighth element of its row (`[items, sites, member…]`, [`super::static_index`]'s format).
//! A story that grows in a later hour (or month) changes the rows of its earlier members and,
//! through each chunk's fingerprint of its stories, the chunks holding them.
//!
//! Each build numbers every month's items as its shard does ([`static_index::shard_order`], the
//! one statement of that order) and gives each story of several items its shape once (its
//! counts and listed members, as month and number) with a fingerprint of it: integers, linear
//! in the archive. The row itself (JSON) is made only for the items of the months the build
//! writes again ([`ShardStories::row`]); an item alone gets nothing.

use serde_json::Value;

use super::super::static_index::{self, MAX_STORY_MEMBERS};
use crate::content::archive::Archive;
use crate::hash::Fp;

/// A story of several items as its rows show it.
struct Shape {
    items: u32,
    sites: u32,
    /// Its listed members (oldest first, at most [`MAX_STORY_MEMBERS`]): a range of
    /// [`ShardStories::listed`].
    listed: std::ops::Range<u32>,
    /// What its rows say (counts, each listed member's month and number), hashed: a month's
    /// fingerprint mixes it in for each of its items in the story.
    fp: u64,
}

/// No shape: a story of one item.
const ALONE: u32 = u32::MAX;

/// The stories' part of the static rows of a build's archive.
pub(super) struct ShardStories<'a> {
    archive: &'a Archive,
    months: &'a [String],
    /// Each item's month (an index into `months`) and its number in that month's shard.
    place: Vec<(u32, u32)>,
    /// Each month's items by their numbers in its shard.
    numbered: Vec<Vec<u32>>,
    /// Each story's shape (an index into `shapes`), [`ALONE`] for a story of one item.
    shape_of: Vec<u32>,
    shapes: Vec<Shape>,
    listed: Vec<u32>,
}

impl<'a> ShardStories<'a> {
    /// `month_of[d]` is digest `d`'s month (an index into `months`, the `YYYY-MM` names).
    pub(super) fn new(archive: &'a Archive, month_of: &[usize], months: &'a [String]) -> Self {
        let items = &archive.items;
        // Each month's items in archive order (a month's digests may not be adjacent), then
        // their numbers as `write_month` gives them.
        let mut by_month: Vec<Vec<u32>> = vec![Vec::new(); months.len()];
        for (d, digest) in archive.digests.iter().enumerate() {
            by_month[month_of[d]].extend(digest.items.clone());
        }
        let mut place = vec![(0u32, 0u32); items.len()];
        let mut published = Vec::new();
        let mut numbered = Vec::with_capacity(by_month.len());
        for (m, month) in by_month.iter().enumerate() {
            published.clear();
            published.extend(month.iter().map(|&i| items[i as usize].published));
            let order = static_index::shard_order(&published);
            for (n, &k) in order.iter().enumerate() {
                place[month[k as usize] as usize] = (m as u32, n as u32);
            }
            numbered.push(order.into_iter().map(|k| month[k as usize]).collect());
        }
        let stories = &archive.stories;
        let mut shape_of = vec![ALONE; stories.len()];
        let mut shapes = Vec::new();
        let mut listed = Vec::new();
        let mut sites = Vec::new();
        let mut order = Vec::new();
        for s in 0..stories.len() as u32 {
            let members = stories.members(s);
            if members.len() < 2 {
                continue;
            }
            sites.clear();
            sites.extend(members.iter().map(|&i| items[i as usize].site));
            sites.sort_unstable();
            sites.dedup();
            order.clear();
            order.extend_from_slice(members);
            let n = order.len().min(MAX_STORY_MEMBERS);
            let key = |&i: &u32| (items[i as usize].published, i);
            if n < order.len() {
                order.select_nth_unstable_by_key(n - 1, key);
            }
            order[..n].sort_unstable_by_key(key);
            let mut fp = Fp::new("story-row");
            fp.u64(members.len() as u64).u64(sites.len() as u64);
            for &j in &order[..n] {
                let (m, k) = place[j as usize];
                fp.str(&months[m as usize]).u64(u64::from(k));
            }
            let start = listed.len() as u32;
            listed.extend_from_slice(&order[..n]);
            shape_of[s as usize] = shapes.len() as u32;
            shapes.push(Shape {
                items: members.len() as u32,
                sites: sites.len() as u32,
                listed: start..listed.len() as u32,
                fp: fp.0,
            });
        }
        ShardStories {
            archive,
            months,
            place,
            numbered,
            shape_of,
            shapes,
            listed,
        }
    }

    fn shape(&self, i: u32) -> Option<&Shape> {
        let s = self.archive.items[i as usize].story;
        self.shapes.get(self.shape_of[s as usize] as usize)
    }

    /// The fingerprint of item `i`'s story element, if its story has several items.
    fn fp(&self, i: u32) -> Option<u64> {
        self.shape(i).map(|s| s.fp)
    }

    /// Item `i`'s number in its month's shard.
    pub(super) fn number(&self, i: u32) -> u32 {
        self.place[i as usize].1
    }

    /// Month `m`'s chunks' stories: for each chunk of its shard (`cN.json`), a hash of its items'
    /// story elements (each with its item's number), so a story that grows changes the chunks
    /// of its members and no other.
    pub(super) fn chunk_fps(&self, m: usize) -> Vec<u64> {
        self.numbered[m]
            .chunks(static_index::CHUNK_DOCS)
            .enumerate()
            .map(|(k, chunk)| {
                let mut fp = Fp::new("search-chunk-stories");
                for (n, &i) in chunk.iter().enumerate() {
                    if let Some(story) = self.fp(i) {
                        fp.u64((k * static_index::CHUNK_DOCS + n) as u64).u64(story);
                    }
                }
                fp.0
            })
            .collect()
    }

    /// Item `i`'s story element (`[items, sites, member…]`), if its story has several items:
    /// each member by its number in its month's shard, prefixed with its month's name when that
    /// is not item `i`'s month.
    pub(super) fn row(&self, i: u32) -> Option<Value> {
        let shape = self.shape(i)?;
        let own = self.place[i as usize].0;
        let mut row = vec![Value::from(shape.items), Value::from(shape.sites)];
        let listed = &self.listed[shape.listed.start as usize..shape.listed.end as usize];
        row.extend(listed.iter().map(|&j| {
            let (m, n) = self.place[j as usize];
            if m == own {
                Value::from(n)
            } else {
                Value::from(format!("{}:{n}", self.months[m as usize]))
            }
        }));
        Some(Value::Array(row))
    }
}
