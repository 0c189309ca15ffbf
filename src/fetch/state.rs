//! The fetch state file, `fetch-state.json` at the site root.
//!
//! Per feed: the validators for conditional GET (ETag, Last-Modified), the health record (last
//! success, consecutive failures, last error) and when the feed may be tried again (back-off,
//! Retry-After). It is committed with content/ so a stateless CI runner keeps it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

use crate::fsutil;
use crate::layout::FETCH_STATE_FILE;

const VERSION: u32 = 1;

/// Everything matome remembers between fetch runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FetchState {
    pub version: u32,
    /// Keyed by feed URL; sorted so the committed file diffs cleanly.
    pub feeds: BTreeMap<String, FeedState>,
    /// Why the file could not be read, when [`FetchState::load_for_health`] had to give an empty
    /// state instead (never written).
    #[serde(skip)]
    pub load_error: Option<String>,
}

/// One feed's record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FeedState {
    /// The feed's own title, from its last successful parse.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_attempt: Option<DateTime<FixedOffset>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_success: Option<DateTime<FixedOffset>>,
    pub consecutive_failures: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// Not to be fetched before this time (back-off or Retry-After).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_attempt: Option<DateTime<FixedOffset>>,
    /// Items found new over the feed's life, for the feed-health page.
    pub items_archived: u64,
    /// The site name items get when matome.toml names none: the feed's first title, kept, so a
    /// feed cannot pose as many sites by changing its title (issue 21).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    /// The daily budgets (`fetch.max_items_per_feed_day`, `fetch.max_bytes_per_feed_day`): the
    /// day (in the site's zone), the items archived on it and what they weigh
    /// (`fetch/weight.rs`), an earlier day's overshoot included (see [`FeedState::bytes_used_on`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_day: Option<chrono::NaiveDate>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub budget_used: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub budget_bytes: u64,
    /// New items the last run left for a later day (over a budget).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub items_waiting: u64,
    /// New items the last run did not archive because each alone weighs more than a whole day's
    /// byte budget (they never fit; a larger `fetch.max_bytes_per_feed_day` lets them in).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub items_too_large: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl FeedState {
    /// How many more new items the feed may have archived on `day` (`max` a day).
    pub fn budget_left(&self, day: chrono::NaiveDate, max: usize) -> usize {
        let used = if self.budget_day == Some(day) {
            self.budget_used
        } else {
            0
        };
        (max as u64).saturating_sub(used) as usize
    }

    /// The bytes already weighed against `day`'s budget of `max`: the day's own, or, on a later
    /// day, what an earlier day weighed past its budget less `max` for each day since (an item's
    /// weight is known in full only after the analysis, so a run may overshoot; the overshoot is
    /// a debt the next day pays, and `n` days never weigh more than `n × max` plus one run's
    /// overshoot).
    pub fn bytes_used_on(&self, day: chrono::NaiveDate, max: u64) -> u64 {
        match self.budget_day {
            Some(d) if d == day => self.budget_bytes,
            Some(d) => {
                let days = (day - d).num_days().max(1) as u64;
                self.budget_bytes.saturating_sub(max.saturating_mul(days))
            }
            None => 0,
        }
    }

    /// Counts `n` items weighing `bytes` archived on `day` (`max`: the day's byte budget).
    pub fn spend(&mut self, day: chrono::NaiveDate, n: usize, bytes: u64, max: u64) {
        let used = self.bytes_used_on(day, max);
        if self.budget_day != Some(day) {
            self.budget_day = Some(day);
            self.budget_used = 0;
        }
        self.budget_used += n as u64;
        self.budget_bytes = used.saturating_add(bytes);
    }
}

impl FetchState {
    pub fn path(root: &Path) -> PathBuf {
        crate::layout::fetch_state(root)
    }

    /// Reads the state; a missing file is an empty state.
    pub fn load(root: &Path) -> Result<FetchState> {
        let state = fsutil::read_state(
            &Self::path(root),
            "fetch state",
            "fix it, restore it with git, or delete it \
             (matome then fetches every feed unconditionally)",
        )?;
        Ok(state.unwrap_or_else(|| FetchState {
            version: VERSION,
            ..Default::default()
        }))
    }

    /// Reads the state for a fetch run. A file that is not valid state does not stop the run: it
    /// is kept beside as `fetch-state.json.bad-YYYYMMDDTHHMMSSZ` (nothing is lost) and the run
    /// starts from an empty state (every feed fetched unconditionally; items already archived are
    /// still recognised from content/). Returns the note to print when that happened.
    pub fn load_or_recover(
        root: &Path,
        now: DateTime<FixedOffset>,
    ) -> Result<(FetchState, Option<String>)> {
        let err = match FetchState::load(root) {
            Ok(s) => return Ok((s, None)),
            Err(e) => e,
        };
        let path = Self::path(root);
        if !path.is_file() {
            return Err(err); // unreadable for another reason (permissions, a folder): say so
        }
        let backup = root.join(format!(
            "{FETCH_STATE_FILE}.bad-{}",
            now.to_utc().format("%Y%m%dT%H%M%SZ")
        ));
        std::fs::copy(&path, &backup).with_context(|| {
            format!(
                "{err:#}; keeping a copy of it as {} failed too",
                backup.display()
            )
        })?;
        let note = format!(
            "{}\n  kept it as {} and started from an empty state: every feed is fetched \
             unconditionally this run (nothing is archived twice)",
            crate::text::one_line(&format!("{err:#}")),
            backup.display()
        );
        Ok((
            FetchState {
                version: VERSION,
                ..Default::default()
            },
            Some(note),
        ))
    }

    /// Reads the state for the health page: a file that cannot be read gives an empty state with
    /// the reason in [`FetchState::load_error`], so the site still builds and the page says why
    /// it shows nothing.
    pub fn load_for_health(root: &Path) -> FetchState {
        FetchState::load(root).unwrap_or_else(|e| FetchState {
            load_error: Some(crate::text::one_line(&format!("{e:#}"))),
            ..Default::default()
        })
    }

    /// Writes the state atomically.
    pub fn save(&self, root: &Path) -> Result<()> {
        let current = FetchState {
            version: VERSION,
            ..self.clone()
        };
        fsutil::write_state(&Self::path(root), &current)
    }
}

impl FeedState {
    /// Whether the feed may be fetched at `now`.
    pub fn is_due(&self, now: DateTime<FixedOffset>) -> bool {
        self.next_attempt.is_none_or(|t| t <= now)
    }

    /// Records a successful fetch (200 or 304).
    pub fn record_success(&mut self, now: DateTime<FixedOffset>) {
        self.last_attempt = Some(now);
        self.last_success = Some(now);
        self.consecutive_failures = 0;
        self.last_error = None;
        self.next_attempt = None;
    }

    /// Records a failure and schedules the next try: the next run after the first failure, then
    /// a growing back-off with jitter; `retry_after` (from the server) is honoured when longer.
    pub fn record_failure(
        &mut self,
        url: &str,
        now: DateTime<FixedOffset>,
        error: String,
        retry_after: Option<Duration>,
        backoff: &crate::backoff::Backoff,
    ) {
        self.last_attempt = Some(now);
        self.consecutive_failures = self.consecutive_failures.saturating_add(1);
        // The error may quote the server or the feed: no control bytes into the file or pages.
        self.last_error = Some(crate::text::one_line(&error));
        self.next_attempt = backoff.next_attempt(url, self.consecutive_failures, retry_after, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(s).unwrap()
    }

    const H: Duration = Duration::from_secs(3600);
    const B: crate::backoff::Backoff = crate::backoff::Backoff::PUBLISH;

    #[test]
    fn the_daily_budget_counts_a_day_and_starts_again_the_next() {
        let day = chrono::NaiveDate::from_ymd_opt(2021, 8, 1).unwrap();
        let mut fs = FeedState::default();
        assert_eq!(fs.budget_left(day, 200), 200);
        fs.spend(day, 150, 0, 1000);
        assert_eq!(fs.budget_left(day, 200), 50);
        fs.spend(day, 50, 0, 1000);
        assert_eq!(fs.budget_left(day, 200), 0);
        assert_eq!(
            fs.budget_left(day, 100),
            0,
            "a lowered budget, already spent"
        );
        let next = day.succ_opt().unwrap();
        assert_eq!(fs.budget_left(next, 200), 200);
        fs.spend(next, 1, 0, 1000);
        assert_eq!((fs.budget_day, fs.budget_used), (Some(next), 1));
    }

    #[test]
    fn the_byte_budget_carries_only_an_overshoot_into_the_next_days() {
        let day = chrono::NaiveDate::from_ymd_opt(2021, 8, 1).unwrap();
        let later = |n| day + chrono::Days::new(n);
        let mut fs = FeedState::default();
        assert_eq!(fs.bytes_used_on(day, 1000), 0);
        fs.spend(day, 1, 600, 1000);
        fs.spend(day, 1, 300, 1000);
        assert_eq!(fs.bytes_used_on(day, 1000), 900);
        assert_eq!(
            fs.bytes_used_on(later(1), 1000),
            0,
            "what is left is not kept"
        );
        fs.spend(day, 1, 1700, 1000);
        assert_eq!(fs.bytes_used_on(day, 1000), 2600);
        assert_eq!(
            fs.bytes_used_on(later(1), 1000),
            1600,
            "the overshoot is a debt"
        );
        assert_eq!(fs.bytes_used_on(later(2), 1000), 600);
        assert_eq!(fs.bytes_used_on(later(3), 1000), 0);
        fs.spend(later(2), 2, 100, 1000);
        assert_eq!((fs.budget_used, fs.budget_bytes), (2, 700));
        // A run dated before the last one starts a day, as the item budget does.
        assert_eq!(fs.bytes_used_on(day, 1000), 0);
        assert_eq!(fs.bytes_used_on(later(2), u64::MAX), 700);
        assert_eq!(fs.bytes_used_on(later(900), u64::MAX), 0, "no overflow");
    }

    #[test]
    fn failure_then_success_resets() {
        let mut s = FeedState::default();
        let now = t("2021-07-20T08:00:00+09:00");
        s.record_failure("u", now, "HTTP 500".into(), None, &B);
        assert!(s.is_due(now), "first failure retries at the next run");
        s.record_failure("u", now, "HTTP 500".into(), None, &B);
        assert_eq!(s.consecutive_failures, 2);
        assert!(!s.is_due(now));
        assert!(s.is_due(now + chrono::Duration::hours(2)));
        s.record_success(now + chrono::Duration::hours(2));
        assert_eq!(s.consecutive_failures, 0);
        assert_eq!(s.last_error, None);
        assert!(s.is_due(now));
    }

    #[test]
    fn retry_after_is_honoured() {
        let mut s = FeedState::default();
        let now = t("2021-07-20T08:00:00+09:00");
        s.record_failure("u", now, "HTTP 429".into(), Some(2 * H), &B);
        assert_eq!(s.next_attempt, Some(now + chrono::Duration::hours(2)));
    }

    /// Control bytes in an error (a status line or a parser message quoting the feed) reached
    /// fetch-state.json and the health page.
    #[test]
    fn control_bytes_in_errors_are_not_recorded() {
        let mut s = FeedState::default();
        let now = t("2021-07-20T08:00:00+09:00");
        s.record_failure(
            "u",
            now,
            "HTTP 500 \u{1b}[31mred\u{7}\u{0}\u{9b}x\nnext".into(),
            None,
            &B,
        );
        assert_eq!(s.last_error.as_deref(), Some("HTTP 500 [31mredx next"));
    }

    /// `backoff_base = backoff_max = 1e15` panicked when the next attempt overflowed the date.
    #[test]
    fn a_huge_backoff_does_not_overflow_the_date() {
        let mut s = FeedState::default();
        let now = t("2021-07-20T08:00:00+09:00");
        let huge = Duration::from_secs_f64(1e15);
        for _ in 0..3 {
            let b = crate::backoff::Backoff {
                base: huge,
                max: huge,
            };
            s.record_failure("u", now, "x".into(), Some(huge), &b);
        }
        assert!(s.next_attempt.unwrap() > now);
    }

    /// A corrupt fetch-state.json stopped every fetch (and build). A fetch keeps a copy of it and
    /// starts fresh; the health page gets the reason.
    #[test]
    fn a_corrupt_state_is_kept_aside_and_the_run_starts_fresh() {
        let dir = tempfile::tempdir().unwrap();
        let now = t("2021-07-20T08:00:00+09:00");
        std::fs::write(
            dir.path().join(FETCH_STATE_FILE),
            "{\"version\": 1, \"feeds\": {",
        )
        .unwrap();
        let health = FetchState::load_for_health(dir.path());
        assert!(health.feeds.is_empty());
        assert!(health.load_error.unwrap().contains(FETCH_STATE_FILE));
        let (st, note) = FetchState::load_or_recover(dir.path(), now).unwrap();
        assert!(st.feeds.is_empty());
        let note = note.unwrap();
        assert!(
            note.contains("fetch-state.json.bad-20210719T230000Z"),
            "{note}"
        );
        let kept =
            std::fs::read_to_string(dir.path().join("fetch-state.json.bad-20210719T230000Z"));
        assert_eq!(kept.unwrap(), "{\"version\": 1, \"feeds\": {");
    }

    #[test]
    fn round_trips_through_json() {
        let dir = tempfile::tempdir().unwrap();
        let mut st = FetchState::load(dir.path()).unwrap();
        assert_eq!(st.version, VERSION);
        st.feeds.insert(
            "https://a/".into(),
            FeedState {
                etag: Some("\"v1\"".into()),
                ..Default::default()
            },
        );
        st.save(dir.path()).unwrap();
        assert_eq!(FetchState::load(dir.path()).unwrap(), st);
    }
}
