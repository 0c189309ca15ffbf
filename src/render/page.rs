//! What an output file is ([`Page`], [`Kind`]), stable pagination ([`Pager`]) and the
//! fingerprint builder ([`Fp`]) with the fingerprints every page kind starts from ([`Fps`]).
//!
//! The vocabulary the page plan ([`super::plan`]) and the page kinds ([`super::views`]) share:
//! each kind's module lists its pages with the fingerprint of everything they show, beside the
//! view builder that shows it.

use std::ops::Range;

use rayon::prelude::*;

use super::site::{Site, Tax};

/// What an output file is.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// Home (`page` 0) or one of its older pages.
    Home {
        page: usize,
    },
    Digest(usize),
    Day(usize),
    Month(usize),
    Year(usize),
    Archives,
    Terms(Tax),
    Term {
        tax: Tax,
        id: u32,
        page: usize,
    },
    Health,
    /// The search page (it reads the static index under `search/`).
    Search,
    /// Rising words of the latest hour and day, and the day's trend words.
    Trends,
    Atom(Option<u32>),
    /// `digests/atom.xml`: one entry per digest.
    DigestsAtom,
    /// `stories/atom.xml`: the stories enough sites covered.
    StoriesAtom,
    SitemapIndex,
    Sitemap(usize),
    Robots,
    NotFound,
    NoJekyll,
}

/// One output file.
#[derive(Debug, Clone)]
pub struct Page {
    /// Path under the output folder (`2021/07/20/0800/index.html`).
    pub path: String,
    pub kind: Kind,
    /// Everything the page shows depends on this (without the theme and config).
    pub fp: u64,
}

/// The output file of a page at site-relative `url` (a folder URL).
pub(crate) fn html_path(url: &str) -> String {
    format!("{url}index.html")
}

/// The previous and next of entry `i` of `len` (digests, days, months, years): what a page's
/// previous/next links show, and so what its fingerprint covers.
pub(crate) fn neighbours(i: usize, len: usize) -> [Option<usize>; 2] {
    [i.checked_sub(1), Some(i + 1).filter(|&n| n < len)]
}

/// Stable pagination of `n` entries, `per` to a page, numbered from the OLDEST: page j (1-based)
/// holds entries [(j-1)·per, j·per) for ever; the first page (the list's own URL) holds the rest,
/// between `per` and 2·`per`-1 entries once there are that many. A new entry changes the first
/// page only, and once every `per` entries one more numbered page appears.
///
/// `keep` (0: all) bounds how many pages a list has: only the first page and the newest
/// `keep`-1 numbered pages exist; older numbered pages are dropped (their entries stay on the
/// other pages that list them) and the oldest kept page has no older link. Kept pages keep
/// their numbers, so a page that exists never changes what it holds.
#[derive(Debug, Clone, Copy)]
pub struct Pager {
    pub n: usize,
    pub per: usize,
    pub keep: usize,
}

impl Pager {
    /// Numbered pages (older than the first page).
    pub fn numbered(&self) -> usize {
        (self.n / self.per).saturating_sub(1)
    }

    /// The oldest numbered page that exists (pages `first_kept()..=numbered()`; none when it is
    /// greater than `numbered()`).
    pub fn first_kept(&self) -> usize {
        if self.keep == 0 {
            1
        } else {
            (self.numbered() + 2).saturating_sub(self.keep).max(1)
        }
    }

    /// Whether entries older than page `page` exist that no page lists (it is the oldest page
    /// kept, and pages were dropped).
    pub fn dropped_before(&self, page: usize) -> bool {
        self.older(page).is_none() && self.first_kept() > 1 && self.numbered() > 0
    }

    /// Entries of page `page` (0 = the first page), oldest first.
    pub fn range(&self, page: usize) -> Range<usize> {
        if page == 0 {
            self.numbered() * self.per..self.n
        } else {
            (page - 1) * self.per..page * self.per
        }
    }

    /// The page with older entries.
    pub fn older(&self, page: usize) -> Option<usize> {
        match page {
            0 => (self.numbered() >= self.first_kept()).then(|| self.numbered()),
            p if p <= self.first_kept() => None,
            p => Some(p - 1),
        }
    }

    /// The page with newer entries (`Some(0)` is the first page).
    pub fn newer(&self, page: usize) -> Option<usize> {
        match page {
            0 => None,
            p if p >= self.numbered() => Some(0),
            p => Some(p + 1),
        }
    }

    /// The home page's: the digests.
    pub(crate) fn home(site: &Site) -> Pager {
        Pager {
            n: site.archive.digests.len(),
            per: site.config.build.digests_per_page,
            keep: 0,
        }
    }

    /// A term's: its items (a keyword's newest `[build] keyword_max_pages` pages).
    pub(crate) fn term(site: &Site, tax: Tax, id: u32) -> Pager {
        Pager {
            n: site.names(tax).items[id as usize].len(),
            per: site.config.build.items_per_page,
            keep: if tax == Tax::Keyword {
                site.config.build.keyword_max_pages
            } else {
                0
            },
        }
    }
}

/// The one fingerprint builder ([`crate::hash::Fp`]), named here for the page kinds.
pub(crate) use crate::hash::Fp;

/// The fingerprints pages are made of: each item's and each digest's.
pub(crate) struct Fps {
    /// Per archive item: its file's bytes, its place in the file, and whether its keywords have
    /// pages (which decides whether they are links wherever the item is shown).
    pub(crate) item: Vec<u64>,
    /// Per digest: its file's bytes (the body, the update time) and its items'.
    pub(crate) digest: Vec<u64>,
}

impl Fps {
    pub(crate) fn new(site: &Site) -> Fps {
        let a = site.archive;
        let item: Vec<u64> = a
            .items
            .par_iter()
            .map(|e| {
                let mut fp = Fp(a.digests[e.digest as usize].hash);
                fp.u64(u64::from(e.index));
                for &k in &e.keywords {
                    fp.u64(u64::from(site.has_page[k as usize]));
                }
                fp.0
            })
            .collect();
        let digest: Vec<u64> = (0..a.digests.len())
            .into_par_iter()
            .map(|d| {
                let r = &a.digests[d].items;
                let mut fp = Fp(a.digests[d].hash);
                for i in r.start..r.end {
                    fp.u64(item[i as usize]);
                }
                fp.0
            })
            .collect();
        Fps { item, digest }
    }

    /// Mixes digest `d` into `fp`.
    pub(crate) fn digest(&self, fp: &mut Fp, d: usize) {
        fp.u64(self.digest[d]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn pagination_is_stable_as_items_arrive() {
        let per = 3;
        // For every size, pages partition the entries, and numbered pages never change.
        let mut seen: BTreeMap<usize, Range<usize>> = BTreeMap::new();
        for n in 0..40 {
            let p = Pager { n, per, keep: 0 };
            let mut covered = vec![0; n];
            for page in std::iter::once(0).chain(1..=p.numbered()) {
                for i in p.range(page) {
                    covered[i] += 1;
                }
                if page > 0 {
                    let r = p.range(page);
                    assert_eq!(r.len(), per);
                    if let Some(old) = seen.insert(page, r.clone()) {
                        assert_eq!(old, r, "page {page} changed at n={n}");
                    }
                }
            }
            assert!(covered.iter().all(|&c| c == 1), "n={n}: {covered:?}");
            if n >= per {
                let first = p.range(0).len();
                assert!(
                    (per..2 * per).contains(&first),
                    "n={n}: first page has {first}"
                );
            }
            // Links walk every page from newest to oldest and back.
            let mut page = 0;
            let mut visited = 1;
            while let Some(o) = p.older(page) {
                assert_eq!(p.newer(o), Some(page));
                page = o;
                visited += 1;
            }
            assert_eq!(visited, p.numbered() + 1);
        }
    }

    /// `keep`: the first page and the newest `keep`-1 numbered pages exist, each holds what it
    /// held before, links walk exactly the kept pages, and the oldest says entries were dropped.
    #[test]
    fn a_kept_window_drops_the_oldest_pages_only() {
        let per = 3;
        for keep in 1..5 {
            for n in 0..40 {
                let all = Pager { n, per, keep: 0 };
                let p = Pager { n, per, keep };
                let kept: Vec<usize> = (p.first_kept()..=p.numbered()).collect();
                assert_eq!(
                    kept.len() + 1,
                    keep.min(all.numbered() + 1),
                    "n={n} keep={keep}"
                );
                for &page in kept.iter().chain(std::iter::once(&0)) {
                    assert_eq!(p.range(page), all.range(page));
                }
                let mut page = 0;
                let mut visited = vec![0];
                while let Some(o) = p.older(page) {
                    assert_eq!(p.newer(o), Some(page));
                    page = o;
                    visited.push(o);
                }
                assert_eq!(visited.len(), kept.len() + 1, "n={n} keep={keep}");
                assert_eq!(
                    p.dropped_before(page),
                    all.numbered() + 1 > keep,
                    "n={n} keep={keep}"
                );
                assert!(kept.iter().all(|&k| k == page || !p.dropped_before(k)));
            }
        }
    }

    #[test]
    fn fingerprints_are_order_sensitive() {
        let mut a = Fp::new("x");
        a.u64(1).u64(2);
        let mut b = Fp::new("x");
        b.u64(2).u64(1);
        assert_ne!(a.0, b.0);
        assert_ne!(Fp::new("x").0, Fp::new("y").0);
    }
}
