//! The window index: the stories of the last few days, held as an inverted index from term
//! hashes to the items that have them, with the window's own document frequencies. A new
//! item's story is decided against it alone (never a scan of the archive), and the items that
//! fall out of the window leave it, so its memory is bounded by the window's size
//! ([`Settings::window_hours`], [`Settings::max_items`]). Owns the bookkeeping; what counts as
//! the same event is [`super::score`]'s.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use super::Settings;
use super::facts::Facts;
use super::score::{self, Candidate, Role};

/// An item of the window.
struct Entry {
    facts: Facts,
    /// Index into [`StoryIndex::stories`] (by internal number).
    story: u32,
    /// Its norm under the idf of when it was added.
    norm: f64,
}

/// A story of the window.
struct Story {
    id: String,
    /// Its items still in the window.
    alive: u32,
}

/// What [`StoryIndex::assign`] decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    /// The story's ID: the key of its first item.
    pub story: String,
    /// Whether the item joined a story already in the window (false: it starts one).
    pub joined: bool,
}

/// Posting lists longer than this are not walked to find candidates: a term in that many items
/// of the window says little about any one of them (its weight is near zero anyway).
const MAX_POSTINGS_WALKED: usize = 2_000;

/// The window's stories, incremental: [`StoryIndex::assign`] each new item in archive order.
pub struct StoryIndex {
    settings: Settings,
    /// Items in the order they were added; `entries[0]` has slot `first_slot`.
    entries: VecDeque<Entry>,
    first_slot: u64,
    /// Term hash → slots of the items that have it (title terms tagged in the low bit).
    postings: FxHashMap<u64, VecDeque<u64>>,
    /// Normalised link hash → the latest slot with it.
    links: FxHashMap<u64, u64>,
    /// Items of the window that have each term.
    df: FxHashMap<u64, u32>,
    stories: FxHashMap<u32, Story>,
    /// Story ID → internal number, for the stories in the window.
    ids: FxHashMap<String, u32>,
    next_story: u32,
    newest: i64,
}

impl StoryIndex {
    /// An empty window.
    pub fn new(settings: Settings) -> StoryIndex {
        StoryIndex {
            settings,
            entries: VecDeque::new(),
            first_slot: 0,
            postings: FxHashMap::default(),
            links: FxHashMap::default(),
            df: FxHashMap::default(),
            stories: FxHashMap::default(),
            ids: FxHashMap::default(),
            next_story: 0,
            newest: i64::MIN,
        }
    }

    /// Items in the window.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the window holds no item.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Stories with an item in the window.
    pub fn stories(&self) -> usize {
        self.stories.len()
    }

    /// Puts an item already assigned (read back from a snapshot's `story`) into the window as
    /// it was, so an index rebuilt from content/ decides the next items as the first did.
    pub fn insert(&mut self, facts: Facts, story: &str) {
        self.evict(facts.time);
        let n = match self.ids.get(story) {
            Some(n) => *n,
            None => self.new_story(story),
        };
        self.add(facts, n);
    }

    /// Decides the story of a new item with key `key` (the ID of a story it starts) and adds it
    /// to the window.
    pub fn assign(&mut self, key: &str, facts: Facts) -> Assignment {
        self.evict(facts.time);
        let found = self.best_story(&facts);
        let (n, joined) = match found {
            Some(n) => (n, true),
            None => (self.new_story(key), false),
        };
        let story = self.stories[&n].id.clone();
        self.add(facts, n);
        Assignment { story, joined }
    }

    fn new_story(&mut self, id: &str) -> u32 {
        let n = self.next_story;
        self.next_story = self.next_story.wrapping_add(1);
        self.ids.insert(id.to_string(), n);
        self.stories.insert(
            n,
            Story {
                id: id.to_string(),
                alive: 0,
            },
        );
        n
    }

    /// Inverse document frequency of a term in the window (BM25's, never negative).
    fn idf(&self, term: u64) -> f64 {
        self.idf_of_count(self.df.get(&term).copied().unwrap_or(0))
    }

    fn idf_of_count(&self, df: u32) -> f64 {
        let n = self.entries.len() as f64;
        let df = f64::from(df);
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The story `facts` belongs to, if any in the window.
    fn best_story(&self, facts: &Facts) -> Option<u32> {
        if let Some(slot) = facts.link.and_then(|l| self.links.get(&l)) {
            return Some(self.entry(*slot).story);
        }
        let candidates = self.candidates(facts);
        // per story: the best match, unless some item of it contradicts the new one, and how
        // many of its items share a title word with it
        let mut best: FxHashMap<u32, f64> = FxHashMap::default();
        let mut related: FxHashMap<u32, u32> = FxHashMap::default();
        let mut vetoed: Vec<u32> = Vec::new();
        for c in &candidates {
            let e = self.entry(c.slot);
            if c.title_shared > 0 {
                *related.entry(e.story).or_default() += 1;
            }
            if score::contradicts(facts, &e.facts) {
                vetoed.push(e.story);
                continue;
            }
            if let Some(s) = score::join_score(facts, &e.facts, c, &self.settings) {
                let b = best.entry(e.story).or_insert(0.0);
                *b = b.max(s);
            }
        }
        // a story joins only if the new item relates to enough of it (no chains of one link)
        let covered = |n: &u32| {
            let alive = self.stories.get(n).map_or(1, |s| s.alive.max(1));
            f64::from(related.get(n).copied().unwrap_or(0))
                >= self.settings.coverage * f64::from(alive)
        };
        best.into_iter()
            .filter(|(n, _)| !vetoed.contains(n) && covered(n))
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(n, _)| n)
    }

    /// The window's items sharing a term with `facts` within the time window, with the weight
    /// of what they share.
    fn candidates(&self, facts: &Facts) -> Vec<Candidate> {
        let window = self.settings.window_hours * 3600;
        let weights = score::weights(facts, |t| self.idf(t));
        let unique = self.idf_of_count(1).max(f64::MIN_POSITIVE);
        let norm = score::norm(&weights);
        let mut acc: FxHashMap<u64, Candidate> = FxHashMap::default();
        for &(term, w, role) in &weights {
            let Some(list) = self.postings.get(&term) else {
                continue;
            };
            if list.len() > MAX_POSTINGS_WALKED {
                continue;
            }
            let idf = self.idf(term);
            for &tagged in list {
                let (slot, theirs) = (tagged >> 2, Role::from_tag(tagged));
                let c = acc.entry(slot).or_insert_with(|| Candidate::new(slot));
                c.dot += w * idf * theirs.weight();
                if role == Role::Title && theirs == Role::Title {
                    c.title_shared += 1;
                    c.title_idf += idf / unique;
                } else if role != Role::Lead && theirs != Role::Lead {
                    // a compound or a 頻出ワード both titles have: part of the rarity shared
                    c.title_idf += self.settings.compound_rarity * idf / unique;
                }
            }
        }
        let mut out: Vec<Candidate> = acc
            .into_values()
            .filter(|c| (self.entry(c.slot).facts.time - facts.time).abs() <= window)
            .map(|mut c| {
                let e = self.entry(c.slot);
                c.same_title = e.facts.title_key == facts.title_key;
                // the pieces of one compound both titles write are one shared thing
                c.title_runs = if c.title_shared >= 2 {
                    score::shared_runs(facts, &e.facts)
                } else {
                    c.title_shared
                };
                let theirs = if c.title_shared >= 2 || c.same_title {
                    score::norm_of(&e.facts, |t| self.idf(t))
                } else {
                    e.norm
                };
                c.cosine = c.dot / (norm * theirs).max(f64::MIN_POSITIVE);
                c.hours = (e.facts.time - facts.time).abs() as f64 / 3600.0;
                c
            })
            .collect();
        out.sort_by_key(|c| c.slot);
        out
    }

    fn entry(&self, slot: u64) -> &Entry {
        &self.entries[(slot - self.first_slot) as usize]
    }

    fn add(&mut self, facts: Facts, story: u32) {
        let slot = self.first_slot + self.entries.len() as u64;
        for t in terms(&facts) {
            *self.df.entry(t).or_default() += 1;
        }
        let weights = score::weights(&facts, |t| self.idf(t));
        let norm = score::norm(&weights);
        for (t, _, role) in weights {
            self.postings
                .entry(t)
                .or_default()
                .push_back(slot << 2 | role as u64);
        }
        if let Some(l) = facts.link {
            self.links.insert(l, slot);
        }
        if let Some(s) = self.stories.get_mut(&story) {
            s.alive += 1;
        }
        self.newest = self.newest.max(facts.time);
        self.entries.push_back(Entry { facts, story, norm });
    }

    /// Drops the oldest items while they are older than the window allows (by the newest time
    /// seen, counting `now`) or the window holds more than its cap.
    fn evict(&mut self, now: i64) {
        let horizon = self.newest.max(now) - self.settings.retain_hours() * 3600;
        while let Some(front) = self.entries.front() {
            if front.facts.time >= horizon && self.entries.len() < self.settings.max_items {
                break;
            }
            let e = self.entries.pop_front().expect("front exists");
            let slot = self.first_slot;
            self.first_slot += 1;
            for t in terms(&e.facts) {
                if let Some(d) = self.df.get_mut(&t) {
                    *d -= 1;
                    if *d == 0 {
                        self.df.remove(&t);
                    }
                }
                if let Some(list) = self.postings.get_mut(&t) {
                    while list.front().is_some_and(|p| p >> 2 <= slot) {
                        list.pop_front();
                    }
                    if list.is_empty() {
                        self.postings.remove(&t);
                    }
                }
            }
            if let Some(l) = e.facts.link
                && self.links.get(&l) == Some(&slot)
            {
                self.links.remove(&l);
            }
            if let Some(s) = self.stories.get_mut(&e.story) {
                s.alive -= 1;
                if s.alive == 0 {
                    self.ids.remove(&s.id);
                    self.stories.remove(&e.story);
                }
            }
        }
    }
}

/// The window as [`StoryIndex::saved`] writes it: its items in order with their story's
/// internal number and their norm, each story's ID, and the counters. The posting lists,
/// document frequencies, links and story sizes are not stored: they are a function of the items
/// ([`StoryIndex::restore`] rebuilds them), so a restored window is the saved one exactly.
#[derive(serde::Serialize)]
pub struct SavedRef<'a> {
    entries: Vec<(&'a Facts, u32, f64)>,
    stories: Vec<(u32, &'a str)>,
    first_slot: u64,
    next_story: u32,
    newest: i64,
}

/// A window read back ([`SavedRef`]'s shape), for [`StoryIndex::restore`].
#[derive(serde::Deserialize)]
pub struct Saved {
    entries: Vec<(Facts, u32, f64)>,
    stories: Vec<(u32, String)>,
    first_slot: u64,
    next_story: u32,
    newest: i64,
}

impl StoryIndex {
    /// What [`StoryIndex::restore`] needs to give this window back as it is.
    pub fn saved(&self) -> SavedRef<'_> {
        let mut stories: Vec<(u32, &str)> = self
            .stories
            .iter()
            .map(|(n, s)| (*n, s.id.as_str()))
            .collect();
        stories.sort_unstable_by_key(|s| s.0);
        SavedRef {
            entries: self
                .entries
                .iter()
                .map(|e| (&e.facts, e.story, e.norm))
                .collect(),
            stories,
            first_slot: self.first_slot,
            next_story: self.next_story,
            newest: self.newest,
        }
    }

    /// The window `saved` describes, deciding with `settings`; `None` if it does not hold
    /// together (an item of a story it does not name, a story with no item).
    pub fn restore(saved: Saved, settings: Settings) -> Option<StoryIndex> {
        let mut index = StoryIndex::new(settings);
        index.first_slot = saved.first_slot;
        index.next_story = saved.next_story;
        for (n, id) in saved.stories {
            index.ids.insert(id.clone(), n);
            index.stories.insert(n, Story { id, alive: 0 });
        }
        for (facts, story, norm) in saved.entries {
            let slot = index.first_slot + index.entries.len() as u64;
            let roles = facts
                .title
                .iter()
                .map(|t| (*t, Role::Title))
                .chain(facts.extra.iter().map(|t| (*t, Role::Extra)))
                .chain(facts.lead.iter().map(|t| (*t, Role::Lead)));
            for (t, role) in roles {
                *index.df.entry(t).or_default() += 1;
                index
                    .postings
                    .entry(t)
                    .or_default()
                    .push_back(slot << 2 | role as u64);
            }
            if let Some(l) = facts.link {
                index.links.insert(l, slot);
            }
            index.stories.get_mut(&story)?.alive += 1;
            index.entries.push_back(Entry { facts, story, norm });
        }
        index.newest = saved.newest;
        let whole = index.stories.values().all(|s| s.alive > 0)
            && index.ids.len() == index.stories.len()
            && !index.stories.contains_key(&index.next_story);
        whole.then_some(index)
    }
}

/// Every term of an item, once (title words, extras and lead are disjoint).
fn terms(facts: &Facts) -> impl Iterator<Item = u64> + '_ {
    facts
        .title
        .iter()
        .chain(&facts.extra)
        .chain(&facts.lead)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Item;
    use chrono::{DateTime, Duration};

    /// Items over five days, three sites, stories of one to three items: enough for the
    /// window to evict, join and keep apart.
    fn items() -> Vec<Item> {
        let start = DateTime::parse_from_rfc3339("2026-03-16T09:00:00+09:00").unwrap();
        (0..240)
            .map(|n| {
                let topic = n / 3;
                Item {
                    id: format!("{n}"),
                    feed: format!("https://s{}.example/feed", n % 3),
                    category: "IT".into(),
                    site: format!("site {}", n % 3),
                    title: format!("Widget{topic} 新製品 Gadget{} を発表", topic % 7),
                    link: format!("https://s{}.example/{n}", n % 3),
                    published: start + Duration::minutes(30 * n),
                    keywords: vec![],
                    summary: String::new(),
                    text: format!("Widget{topic} は新しい製品を発表した。"),
                    trend: None,
                    story: String::new(),
                }
            })
            .collect()
    }

    #[test]
    fn a_restored_window_is_the_saved_one() {
        let items = items();
        let mut live = StoryIndex::new(Settings::default());
        for (n, i) in items[..200].iter().enumerate() {
            live.assign(&n.to_string(), Facts::of(i, i.published));
        }
        let bytes = postcard::to_stdvec(&live.saved()).unwrap();
        let saved: Saved = postcard::from_bytes(&bytes).unwrap();
        let mut back = StoryIndex::restore(saved, Settings::default()).unwrap();
        assert_eq!(postcard::to_stdvec(&back.saved()).unwrap(), bytes);
        let mut joined = 0;
        for (n, i) in items.iter().enumerate().skip(200) {
            let a = live.assign(&n.to_string(), Facts::of(i, i.published));
            let b = back.assign(&n.to_string(), Facts::of(i, i.published));
            assert_eq!(a, b, "item {n}");
            joined += usize::from(a.joined);
        }
        assert!(joined > 10, "the items join stories ({joined})");
        assert_eq!(
            postcard::to_stdvec(&live.saved()).unwrap(),
            postcard::to_stdvec(&back.saved()).unwrap()
        );
    }

    #[test]
    fn a_saved_window_that_does_not_hold_together_is_refused() {
        let i = &items()[0];
        let mut live = StoryIndex::new(Settings::default());
        live.assign("0", Facts::of(i, i.published));
        let mut saved: Saved =
            postcard::from_bytes(&postcard::to_stdvec(&live.saved()).unwrap()).unwrap();
        saved.stories.clear();
        assert!(StoryIndex::restore(saved, Settings::default()).is_none());
    }
}
