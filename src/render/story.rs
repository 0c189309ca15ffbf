//! What pages know of stories (issue 24): per story covered by more than one site, its sources —
//! each distinct site with its first item, in archive order — and the story's fingerprint, which
//! every page that shows the story mixes in. Also the stories a day page and the home page lead
//! with (ranked by [`crate::stories::coverage`]; `[stories]` settings decide how many).
//!
//! Built once per build, linear in the items of multi-item stories; an item alone (most of
//! them) costs nothing here.

use rustc_hash::{FxHashMap, FxHashSet};

use super::page::Fp;
use super::site::Site;
use crate::content::archive::Archive;
use crate::stories::coverage::{self, Rank, Report};

/// The home page ranks the stories with an item in this many hours before the newest digest
/// (three half-lives at the default: an older story's score is at most an eighth of its sites).
pub const HOME_WINDOW_HOURS: i64 = 72;

/// Every story with items from more than one site: its sources and fingerprint.
#[derive(Default)]
pub struct StorySources {
    of: FxHashMap<u32, Shown>,
}

struct Shown {
    /// Each distinct site's first item, oldest first.
    sources: Box<[u32]>,
    /// What every page showing the story depends on: its sources (site, title, link, place),
    /// how many items it has and its latest item's hour (the ranking's inputs).
    fp: u64,
}

impl StorySources {
    /// Linear in the items of stories with more than one item.
    pub fn new(site: &Site) -> StorySources {
        let a = site.archive;
        let mut of = FxHashMap::default();
        let mut seen = FxHashSet::default();
        for s in 0..a.stories.len() as u32 {
            let members = a.stories.members(s);
            if members.len() < 2 {
                continue;
            }
            seen.clear();
            let sources: Box<[u32]> = members
                .iter()
                .copied()
                .filter(|&i| seen.insert(a.items[i as usize].site))
                .collect();
            if sources.len() < 2 {
                continue;
            }
            let mut fp = Fp::new("story");
            fp.u64(members.len() as u64);
            let last = &a.items[*members.last().unwrap() as usize];
            fp.u64(a.digests[last.digest as usize].hour.timestamp() as u64);
            for &i in sources.iter() {
                let e = &a.items[i as usize];
                fp.str(&a.sites.names[e.site as usize])
                    .str(&e.title)
                    .str(&e.link)
                    .u64(u64::from(e.digest))
                    .u64(u64::from(e.index));
            }
            of.insert(s, Shown { sources, fp: fp.0 });
        }
        StorySources { of }
    }

    /// Story `s`'s sources (its distinct sites' first items), empty unless more than one site
    /// covered it.
    pub fn sources(&self, s: u32) -> &[u32] {
        self.of.get(&s).map_or(&[], |x| &x.sources)
    }

    /// Story `s`'s fingerprint, if more than one site covered it.
    pub fn fp(&self, s: u32) -> Option<u64> {
        self.of.get(&s).map(|x| x.fp)
    }

    /// How many stories more than one site covered.
    pub fn len(&self) -> usize {
        self.of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.of.is_empty()
    }
}

/// The stories covered by more than one site whose first item is in day `day`, in archive
/// order (each story belongs to the day it began).
pub(crate) fn day_stories(site: &Site, day: usize) -> Vec<u32> {
    let a = site.archive;
    let mut out = Vec::new();
    for &d in &site.days[day].digests {
        for (n, e) in a.digest_items(d).iter().enumerate() {
            let i = a.digests[d].items.start + n as u32;
            if site.stories.sources(e.story).first() == Some(&i) {
                out.push(e.story);
            }
        }
    }
    out
}

/// The stories the home page ranks: covered by more than one site, with an item in the
/// [`HOME_WINDOW_HOURS`] before the newest digest; each once, in order of first sight.
pub(crate) fn recent_stories(site: &Site, hours: i64) -> Vec<u32> {
    let a = site.archive;
    let Some(last) = a.digests.last() else {
        return Vec::new();
    };
    let from = last.hour - chrono::Duration::hours(hours);
    let first = a.digests.partition_point(|d| d.hour <= from);
    let mut seen = FxHashSet::default();
    let mut out = Vec::new();
    for d in first..a.digests.len() {
        for e in a.digest_items(d) {
            if site.stories.fp(e.story).is_some() && seen.insert(e.story) {
                out.push(e.story);
            }
        }
    }
    out
}

/// `stories` ranked by their distinct sites (`rank`), best first, at most `limit`, each with
/// its coverage's sites count and when its `n`-th site first reported it (`reached`).
pub(crate) fn ranked(
    a: &Archive,
    stories: &[u32],
    rank: Rank,
    min_sites: usize,
    limit: usize,
) -> Vec<Ranked> {
    let reports = stories.iter().flat_map(|&s| {
        a.stories.members(s).iter().map(move |&i| {
            let e = &a.items[i as usize];
            Report {
                story: s,
                site: a.sites.names[e.site as usize].as_str(),
                at: a.digests[e.digest as usize].hour,
            }
        })
    });
    let cov = coverage::coverage(reports);
    coverage::top(&cov, min_sites, rank, limit)
        .into_iter()
        .map(|c| Ranked {
            story: c.story,
            sites: c.site_count(),
            reached: c.reached(min_sites),
            last_site: c.sites.last().map(|s| s.1),
        })
        .collect()
}

/// A story as [`ranked`] gives it.
pub(crate) struct Ranked {
    pub(crate) story: u32,
    pub(crate) sites: usize,
    /// When its `min_sites`-th site first reported it.
    pub(crate) reached: Option<chrono::DateTime<chrono::FixedOffset>>,
    /// When its latest new site first reported it.
    pub(crate) last_site: Option<chrono::DateTime<chrono::FixedOffset>>,
}
