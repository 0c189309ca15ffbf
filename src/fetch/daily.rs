//! A feed's daily budget: how many new items (`fetch.max_items_per_feed_day`) and how many bytes
//! of them (`fetch.max_bytes_per_feed_day`, weighed by `fetch/weight.rs`) one feed may have
//! archived on a day of the site's calendar, so that what one feed adds to the site is bounded
//! over time whatever it sends.
//!
//! A new item past either budget waits: it is not archived (nor marked seen), and a later day's
//! run archives it while the feed still lists it. An item that alone weighs more than a whole
//! day's byte budget could never fit: it is not archived, and each run notes it. The counts live
//! in the feed's record in fetch-state.json ([`FeedState`]).

use std::collections::HashMap;

use chrono::NaiveDate;

use super::state::{FeedState, FetchState};
use super::weight;
use crate::config::FetchSettings;
use crate::content::Item;

/// What a feed may still have archived today, and what the run has left out so far.
#[derive(Debug, Clone, PartialEq)]
pub struct DayBudget {
    items_left: usize,
    bytes_left: u64,
    max_bytes: u64,
    /// New items left for a later day, because the item budget or the byte budget was spent.
    pub waiting_for_items: u64,
    pub waiting_for_bytes: u64,
    /// New items heavier than a whole day's byte budget.
    pub too_large: u64,
}

/// What becomes of one new item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// Archived now.
    Take,
    /// Not archived yet: a later day has room for it.
    Wait,
    /// Heavier than a whole day's byte budget: never archived under this setting.
    TooLarge,
}

impl DayBudget {
    /// The feed's budget left on `day`.
    pub fn of(fs: &FeedState, day: NaiveDate, settings: &FetchSettings) -> DayBudget {
        let max_bytes = settings.max_bytes_per_feed_day;
        DayBudget {
            items_left: fs.budget_left(day, settings.max_items_per_feed_day),
            bytes_left: max_bytes.saturating_sub(fs.bytes_used_on(day, max_bytes)),
            max_bytes,
            waiting_for_items: 0,
            waiting_for_bytes: 0,
            too_large: 0,
        }
    }

    /// Whether a new item weighing `bytes` is archived now, and if so counts it.
    pub fn admit(&mut self, bytes: u64) -> Admit {
        if bytes > self.max_bytes {
            self.too_large += 1;
            Admit::TooLarge
        } else if self.items_left == 0 {
            self.waiting_for_items += 1;
            Admit::Wait
        } else if bytes > self.bytes_left {
            // A lighter item after it may still fit today.
            self.waiting_for_bytes += 1;
            Admit::Wait
        } else {
            self.items_left -= 1;
            self.bytes_left -= bytes;
            Admit::Take
        }
    }

    /// New items left for a later day.
    pub fn waiting(&self) -> u64 {
        self.waiting_for_items + self.waiting_for_bytes
    }

    /// The lines a run prints for `url` about what it left out, if anything.
    pub fn notes(&self, url: &str, settings: &FetchSettings) -> Vec<String> {
        let mut notes = Vec::new();
        if self.waiting() > 0 {
            let mut spent = Vec::new();
            if self.waiting_for_items > 0 {
                spent.push(format!(
                    "{} items (fetch.max_items_per_feed_day)",
                    settings.max_items_per_feed_day
                ));
            }
            if self.waiting_for_bytes > 0 {
                spent.push(format!(
                    "{} bytes (fetch.max_bytes_per_feed_day)",
                    settings.max_bytes_per_feed_day
                ));
            }
            notes.push(format!(
                "note: {url}: {} new item(s) wait for a later day: the feed has had its {} of today",
                self.waiting(),
                spent.join(" and its ")
            ));
        }
        if self.too_large > 0 {
            notes.push(format!(
                "note: {url}: {} new item(s) not archived: each weighs more than a whole day's \
                 fetch.max_bytes_per_feed_day ({} bytes); raise it to archive them",
                self.too_large, settings.max_bytes_per_feed_day
            ));
        }
        notes
    }
}

/// Charges each feed's day with what its new items weigh now that the analysis has given them
/// keywords and summaries (they were let in on their weight before it).
pub fn spend(state: &mut FetchState, items: &[Item], day: NaiveDate, settings: &FetchSettings) {
    let mut per_feed: HashMap<&str, (usize, u64)> = HashMap::new();
    for item in items {
        let spent = per_feed.entry(item.feed.as_str()).or_default();
        spent.0 += 1;
        spent.1 = spent.1.saturating_add(weight::weigh(item).bytes());
    }
    for (url, (n, bytes)) in per_feed {
        if let Some(fs) = state.feeds.get_mut(url) {
            fs.spend(day, n, bytes, settings.max_bytes_per_feed_day);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2021, 8, 1).unwrap()
    }

    fn settings(items: usize, bytes: u64) -> FetchSettings {
        FetchSettings {
            max_items_per_feed_day: items,
            max_bytes_per_feed_day: bytes,
            ..Default::default()
        }
    }

    #[test]
    fn items_are_taken_until_either_budget_is_spent() {
        let s = settings(3, 1000);
        let mut b = DayBudget::of(&FeedState::default(), day(), &s);
        assert_eq!(b.admit(400), Admit::Take);
        assert_eq!(b.admit(700), Admit::Wait, "over the bytes left");
        assert_eq!(b.admit(1001), Admit::TooLarge, "over a whole day");
        assert_eq!(b.admit(600), Admit::Take, "a lighter one still fits");
        assert_eq!(b.admit(0), Admit::Take);
        assert_eq!(b.admit(0), Admit::Wait, "three items a day");
        assert_eq!(
            (b.waiting_for_bytes, b.waiting_for_items, b.too_large),
            (1, 1, 1)
        );
        let notes = b.notes("https://f.example/", &s);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].contains(
                "2 new item(s) wait for a later day: the feed has had its 3 items \
                 (fetch.max_items_per_feed_day) and its 1000 bytes (fetch.max_bytes_per_feed_day)"
            ),
            "{notes:?}"
        );
        assert!(notes[1].contains("1 new item(s) not archived"), "{notes:?}");
        assert!(
            DayBudget::of(&FeedState::default(), day(), &s)
                .notes("u", &s)
                .is_empty()
        );
    }

    #[test]
    fn the_budget_left_is_what_the_state_has_not_spent() {
        let s = settings(200, 1000);
        let mut fs = FeedState::default();
        fs.spend(day(), 2, 2500, 1000);
        let today = DayBudget::of(&fs, day(), &s);
        assert_eq!((today.items_left, today.bytes_left), (198, 0));
        let next = DayBudget::of(&fs, day().succ_opt().unwrap(), &s);
        assert_eq!(
            (next.items_left, next.bytes_left),
            (200, 0),
            "a debt of 1500"
        );
        let after = DayBudget::of(&fs, day() + chrono::Days::new(2), &s);
        assert_eq!(after.bytes_left, 500);
    }

    #[test]
    fn a_run_charges_each_feed_what_its_items_weigh() {
        let item = |feed: &str, title: &str| Item {
            id: title.into(),
            feed: feed.into(),
            category: "IT".into(),
            site: "S".into(),
            title: title.into(),
            link: String::new(),
            published: chrono::DateTime::parse_from_rfc3339("2021-08-01T00:05:00+09:00").unwrap(),
            keywords: vec!["k".into()],
            summary: "s".into(),
            text: String::new(),
            trend: None,
            story: String::new(),
        };
        let items = [item("a", "1"), item("b", "2"), item("a", "3")];
        let mut state = FetchState::default();
        for url in ["a", "b"] {
            state.feeds.insert(url.into(), FeedState::default());
        }
        spend(&mut state, &items, day(), &settings(200, 1_000_000));
        let w = weight::weigh(&items[0]).bytes();
        assert_eq!(state.feeds["a"].budget_used, 2);
        assert_eq!(state.feeds["a"].budget_bytes, 2 * w);
        assert_eq!(state.feeds["b"].budget_bytes, w);
    }
}
