//! Stories in the full-text index (issue 24): one hit per story. [`StoryCollector`] keeps, of
//! every story among a query's matches, its best-ranked member (newest first, or best first), and
//! orders the stories by it, so a page of N hits is N stories and paging by offset is stable;
//! [`members`] reads a story's size and its other members from the whole index (not only the
//! query's matches). Linear in the matches; the tie-breaks are the items' own fast fields, so the
//! order is the same after a cold rebuild.

use std::cmp::Ordering;
use std::sync::Arc;

use anyhow::Result;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::Column;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{DocAddress, DocId, Score, Searcher, SegmentOrdinal, SegmentReader, TantivyDocument};

use super::Fields;

/// Fast fields the collector reads (names in [`super::schema`]).
pub(super) const STORY_KEY: &str = "story_key";
pub(super) const ITEM_KEY: &str = "item_key";
pub(super) const SITE_KEY: &str = "site_key";
const PUBLISHED: &str = "published";

/// At most this many other members are listed with a hit (its counts are always whole).
pub const MAX_OTHERS: usize = 50;

/// The u64 a story ID, item key or site name is collapsed and compared by.
pub(super) fn key64(s: &str) -> u64 {
    crate::hash::fnv1a(s.as_bytes())
}

/// A story's best member so far: what orders it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Best {
    score: Score,
    published: i64,
    item: u64,
    story: u64,
    pub(super) address: DocAddress,
}

impl Best {
    /// Its score (0 when ranked newest first).
    pub(super) fn score(&self) -> Score {
        self.score
    }

    /// Better first: by score (0 when newest first), then newer, then the item key, then the
    /// story: a total order that does not depend on where a document sits in the index.
    fn cmp(&self, other: &Best) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(other.published.cmp(&self.published))
            .then(self.item.cmp(&other.item))
            .then(self.story.cmp(&other.story))
    }
}

/// Collects one [`Best`] per story of the matches and returns them best first.
pub(super) struct StoryCollector {
    /// Rank by score; otherwise newest first.
    pub(super) by_score: bool,
    /// Matches that are not collected: the documents of the query's excluded clauses (see
    /// [`super::query`]: tantivy's own exclusion of a phrase can fail an assertion).
    pub(super) excluded: Arc<FxHashSet<DocAddress>>,
}

pub(super) struct StorySegment {
    by_score: bool,
    excluded: Arc<FxHashSet<DocAddress>>,
    segment: SegmentOrdinal,
    story: Column<u64>,
    item: Column<u64>,
    published: Column<i64>,
    best: FxHashMap<u64, Best>,
}

impl Collector for StoryCollector {
    type Fruit = Vec<Best>;
    type Child = StorySegment;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<StorySegment> {
        let ff = reader.fast_fields();
        Ok(StorySegment {
            by_score: self.by_score,
            excluded: Arc::clone(&self.excluded),
            segment,
            story: ff.u64(STORY_KEY)?,
            item: ff.u64(ITEM_KEY)?,
            published: ff.i64(PUBLISHED)?,
            best: FxHashMap::default(),
        })
    }

    fn requires_scoring(&self) -> bool {
        self.by_score
    }

    fn merge_fruits(&self, fruits: Vec<Vec<Best>>) -> tantivy::Result<Vec<Best>> {
        let mut best: FxHashMap<u64, Best> = FxHashMap::default();
        for b in fruits.into_iter().flatten() {
            keep_better(&mut best, b);
        }
        let mut out: Vec<Best> = best.into_values().collect();
        out.sort_by(Best::cmp);
        Ok(out)
    }
}

fn keep_better(best: &mut FxHashMap<u64, Best>, b: Best) {
    best.entry(b.story)
        .and_modify(|old| {
            if b.cmp(old) == Ordering::Less {
                *old = b;
            }
        })
        .or_insert(b);
}

impl SegmentCollector for StorySegment {
    type Fruit = Vec<Best>;

    fn collect(&mut self, doc: DocId, score: Score) {
        let address = DocAddress::new(self.segment, doc);
        if !self.excluded.is_empty() && self.excluded.contains(&address) {
            return;
        }
        let b = Best {
            score: if self.by_score { score } else { 0.0 },
            published: self.published.first(doc).unwrap_or(0),
            item: self.item.first(doc).unwrap_or(0),
            story: self.story.first(doc).unwrap_or(0),
            address,
        };
        keep_better(&mut self.best, b);
    }

    fn harvest(self) -> Vec<Best> {
        self.best.into_values().collect()
    }
}

/// Another item of a hit's story.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Member {
    pub site: String,
    pub title: String,
    pub link: String,
    /// The digest page that holds it (absolute, with the item's anchor).
    pub url: String,
    /// RFC 3339 in the site's zone.
    pub published: String,
}

/// A story's size in the whole index and its members other than `hit`, oldest first (at most
/// [`MAX_OTHERS`]).
pub(super) struct StorySize {
    pub(super) items: usize,
    pub(super) sites: usize,
    pub(super) others: Vec<(i64, TantivyDocument)>,
}

/// Collects every member of a story: (published, item key, site key, address).
struct MemberCollector;

struct MemberSegment {
    segment: SegmentOrdinal,
    item: Column<u64>,
    site: Column<u64>,
    published: Column<i64>,
    found: Vec<(i64, u64, u64, DocAddress)>,
}

impl Collector for MemberCollector {
    type Fruit = Vec<(i64, u64, u64, DocAddress)>;
    type Child = MemberSegment;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<MemberSegment> {
        let ff = reader.fast_fields();
        Ok(MemberSegment {
            segment,
            item: ff.u64(ITEM_KEY)?,
            site: ff.u64(SITE_KEY)?,
            published: ff.i64(PUBLISHED)?,
            found: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        let mut all: Self::Fruit = fruits.into_iter().flatten().collect();
        all.sort_by_key(|m| (m.0, m.1));
        Ok(all)
    }
}

impl SegmentCollector for MemberSegment {
    type Fruit = Vec<(i64, u64, u64, DocAddress)>;

    fn collect(&mut self, doc: DocId, _: Score) {
        self.found.push((
            self.published.first(doc).unwrap_or(0),
            self.item.first(doc).unwrap_or(0),
            self.site.first(doc).unwrap_or(0),
            DocAddress::new(self.segment, doc),
        ));
    }

    fn harvest(self) -> Self::Fruit {
        self.found
    }
}

/// The size of `story` in the index and its members other than the document at `hit`.
pub(super) fn members(
    searcher: &Searcher,
    f: &Fields,
    story: &str,
    hit: DocAddress,
) -> Result<StorySize> {
    let q = TermQuery::new(
        tantivy::Term::from_field_text(f.story, story),
        IndexRecordOption::Basic,
    );
    let found = searcher.search(&q, &MemberCollector)?;
    let mut sites: Vec<u64> = found.iter().map(|m| m.2).collect();
    sites.sort_unstable();
    sites.dedup();
    let mut others = Vec::new();
    for &(published, _, _, address) in found.iter().filter(|m| m.3 != hit).take(MAX_OTHERS) {
        others.push((published, searcher.doc::<TantivyDocument>(address)?));
    }
    Ok(StorySize {
        items: found.len().max(1),
        sites: sites.len().max(1),
        others,
    })
}

/// A stored text field of `doc`, or "".
pub(super) fn text(doc: &TantivyDocument, field: tantivy::schema::Field) -> String {
    doc.get_first(field)
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string()
}
