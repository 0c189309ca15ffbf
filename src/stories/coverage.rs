//! How widely each story was covered: the distinct sites that reported it and when each first
//! did, and the ranking of stories by that coverage (a day's page by distinct sites; the home
//! page with time decay). Pure: it reads `(story, site, time)` reports from whatever holds them
//! (archive rows, snapshots) and does no IO.

use std::collections::HashMap;
use std::hash::Hash;

use chrono::{DateTime, FixedOffset};

/// One archived item, as coverage sees it. `S` names its story: an ID
/// ([`crate::content::Item::story_id`]) or any number standing for one.
#[derive(Clone, Copy, Debug)]
pub struct Report<'a, S> {
    pub story: S,
    pub site: &'a str,
    /// When it was reported (the item's publication or archive time, as the caller chooses).
    pub at: DateTime<FixedOffset>,
}

/// One story's coverage.
#[derive(Clone, Debug, PartialEq)]
pub struct Coverage<'a, S> {
    pub story: S,
    /// Each distinct site with the time of its first report, earliest first.
    pub sites: Vec<(&'a str, DateTime<FixedOffset>)>,
    /// Reports in all (a site may report a story more than once).
    pub items: usize,
    pub first: DateTime<FixedOffset>,
    pub last: DateTime<FixedOffset>,
}

impl<S> Coverage<'_, S> {
    /// The number of distinct sites.
    pub fn site_count(&self) -> usize {
        self.sites.len()
    }

    /// When the story's `n`-th distinct site first reported it: when it entered a feed of
    /// stories covered by `n` sites. `None` while fewer covered it (and for `n` = 0).
    pub fn reached(&self, n: usize) -> Option<DateTime<FixedOffset>> {
        n.checked_sub(1)
            .and_then(|i| self.sites.get(i))
            .map(|s| s.1)
    }
}

/// The coverage of every story among `reports`, in order of first report (then story ID):
/// linear in the reports.
pub fn coverage<'a, S: Copy + Eq + Hash + Ord>(
    reports: impl IntoIterator<Item = Report<'a, S>>,
) -> Vec<Coverage<'a, S>> {
    let mut at: HashMap<S, usize> = HashMap::new();
    let mut out: Vec<Coverage<'a, S>> = Vec::new();
    for r in reports {
        let i = *at.entry(r.story).or_insert_with(|| {
            out.push(Coverage {
                story: r.story,
                sites: Vec::new(),
                items: 0,
                first: r.at,
                last: r.at,
            });
            out.len() - 1
        });
        let c = &mut out[i];
        c.items += 1;
        c.first = c.first.min(r.at);
        c.last = c.last.max(r.at);
        match c.sites.iter_mut().find(|s| s.0 == r.site) {
            Some(s) => s.1 = s.1.min(r.at),
            None => c.sites.push((r.site, r.at)),
        }
    }
    for c in &mut out {
        c.sites.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(b.0)));
    }
    out.sort_by(|a, b| a.first.cmp(&b.first).then(a.story.cmp(&b.story)));
    out
}

/// How stories are ranked.
#[derive(Clone, Copy, Debug)]
pub enum Rank {
    /// A day's page: by distinct sites, then reports, then the earliest first.
    BySites,
    /// The home page: distinct sites halved for every `half_life_hours` since the story's
    /// latest report, as of `now`.
    Decayed {
        now: DateTime<FixedOffset>,
        half_life_hours: f64,
    },
}

impl Rank {
    fn score<S>(self, c: &Coverage<'_, S>) -> f64 {
        let sites = c.site_count() as f64;
        match self {
            Rank::BySites => sites,
            Rank::Decayed {
                now,
                half_life_hours,
            } => {
                let age = (now - c.last).num_seconds().max(0) as f64 / 3600.0;
                sites * 0.5f64.powf(age / half_life_hours.max(f64::MIN_POSITIVE))
            }
        }
    }
}

/// The top `limit` stories of `stories` covered by at least `min_sites` distinct sites, best
/// first; ties go to more reports, then the newer latest report, then the story ID, so the
/// order is total and stable across builds.
pub fn top<'s, 'a, S: Ord>(
    stories: &'s [Coverage<'a, S>],
    min_sites: usize,
    rank: Rank,
    limit: usize,
) -> Vec<&'s Coverage<'a, S>> {
    let mut scored: Vec<(f64, &Coverage<'a, S>)> = stories
        .iter()
        .filter(|c| c.site_count() >= min_sites.max(1))
        .map(|c| (rank.score(c), c))
        .collect();
    scored.sort_by(|(sa, a), (sb, b)| {
        sb.total_cmp(sa)
            .then(b.items.cmp(&a.items))
            .then(b.last.cmp(&a.last))
            .then(a.story.cmp(&b.story))
    });
    scored.truncate(limit);
    scored.into_iter().map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(h: i64) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339("2026-03-16T00:00:00+09:00").unwrap()
            + chrono::Duration::hours(h)
    }

    fn r<'a>(story: &'a str, site: &'a str, h: i64) -> Report<'a, &'a str> {
        Report {
            story,
            site,
            at: t(h),
        }
    }

    #[test]
    fn distinct_sites_count_once_with_their_first_report() {
        let c = coverage([
            r("a", "ITmedia", 3),
            r("a", "ITmedia", 1),
            r("b", "NHK", 2),
            r("a", "Impress", 2),
        ]);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].story, "a", "first reported first");
        assert_eq!(c[0].sites, vec![("ITmedia", t(1)), ("Impress", t(2))]);
        assert_eq!(c[0].items, 3);
        assert_eq!((c[0].first, c[0].last), (t(1), t(3)));
        assert_eq!(c[0].reached(2), Some(t(2)), "entered a two-site feed then");
        assert_eq!(c[0].reached(3), None);
        assert_eq!(c[0].reached(0), None);
    }

    #[test]
    fn a_day_ranks_by_distinct_sites_not_by_reports() {
        let c = coverage([
            r("loud", "A", 0),
            r("loud", "A", 1),
            r("loud", "A", 2),
            r("wide", "A", 0),
            r("wide", "B", 1),
            r("alone", "C", 0),
        ]);
        let top = top(&c, 2, Rank::BySites, 10);
        assert_eq!(
            top.iter().map(|c| c.story).collect::<Vec<_>>(),
            vec!["wide"],
            "one site's many reports are not coverage"
        );
    }

    #[test]
    fn the_home_page_decays_old_stories_below_fresh_ones() {
        let c = coverage([
            r("old", "A", 0),
            r("old", "B", 0),
            r("old", "C", 0),
            r("new", "A", 47),
            r("new", "B", 48),
        ]);
        let rank = Rank::Decayed {
            now: t(48),
            half_life_hours: 12.0,
        };
        let order: Vec<_> = top(&c, 2, rank, 10).iter().map(|c| c.story).collect();
        assert_eq!(order, vec!["new", "old"]);
        let by_sites: Vec<_> = top(&c, 2, Rank::BySites, 10)
            .iter()
            .map(|c| c.story)
            .collect();
        assert_eq!(by_sites, vec!["old", "new"]);
    }

    #[test]
    fn ties_are_broken_the_same_way_in_any_input_order() {
        let reports = [
            r("x", "A", 0),
            r("x", "B", 0),
            r("y", "A", 0),
            r("y", "B", 0),
        ];
        let mut reversed = reports;
        reversed.reverse();
        let a: Vec<_> = top(&coverage(reports), 1, Rank::BySites, 1)
            .iter()
            .map(|c| c.story)
            .collect();
        let b: Vec<_> = top(&coverage(reversed), 1, Rank::BySites, 1)
            .iter()
            .map(|c| c.story)
            .collect();
        assert_eq!(a, b);
        assert_eq!(a, vec!["x"]);
    }
}
