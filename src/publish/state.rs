//! `publish-state.json` at the site root, beside `fetch-state.json` and committed like it, so a
//! stateless CI runner knows what was posted and which problems were alerted.
//!
//! Per target: the "since" mark taken on its first run (the newest digest then; only later
//! posts are sent, so an existing archive does not flood a new target), how far it has posted
//! (posts go out in time order, so one cursor says what was posted), and its failures with the
//! back-off before the next try; the attempt under way (written before a post is sent, so a run
//! killed mid-request leaves a record the next run settles), the posts a service refused for
//! good (dropped, with the reason) and those skipped for being too old. Per alert problem
//! ([`Problem`]): since when it is open and whether (when) the alert went out. The file stays
//! small: a few lines per target and per open problem.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

use crate::backoff::Backoff;
use crate::fsutil;

const VERSION: u32 = 1;

/// Everything `matome publish` and `matome alert` remember between runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PublishState {
    pub version: u32,
    /// Keyed by the target's `name`.
    pub targets: BTreeMap<String, TargetState>,
    /// Open (and recently closed, until the recovery is sent) problems; written as keys like
    /// `feed:URL` or `step:build`.
    pub alerts: BTreeMap<Problem, AlertState>,
}

/// What an alert is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Problem {
    /// A configured feed failing (`feed:URL`).
    Feed(String),
    /// A `[[publish]]` target failing (`publish:NAME`).
    Publish(String),
    /// A workflow step reported failed (`step:NAME`).
    Step(String),
    /// A post a service refused for good (`dropped:POST@TARGET`): alerted once, no recovery.
    Dropped { target: String, post: String },
    /// A key this matome does not know (a newer one's), kept as it is.
    Other(String),
}

impl Problem {
    /// Its key in `publish-state.json`.
    pub fn key(&self) -> String {
        match self {
            Problem::Feed(u) => format!("feed:{u}"),
            Problem::Publish(n) => format!("publish:{n}"),
            Problem::Step(s) => format!("step:{s}"),
            Problem::Dropped { target, post } => format!("dropped:{post}@{target}"),
            Problem::Other(k) => k.clone(),
        }
    }

    /// Reads a key (post ids never hold `@`, so a dropped post's key splits at its first).
    pub fn parse(key: &str) -> Problem {
        if let Some(u) = key.strip_prefix("feed:") {
            Problem::Feed(u.to_string())
        } else if let Some(n) = key.strip_prefix("publish:") {
            Problem::Publish(n.to_string())
        } else if let Some(s) = key.strip_prefix("step:") {
            Problem::Step(s.to_string())
        } else if let Some((post, target)) =
            key.strip_prefix("dropped:").and_then(|r| r.split_once('@'))
        {
            Problem::Dropped {
                target: target.to_string(),
                post: post.to_string(),
            }
        } else {
            Problem::Other(key.to_string())
        }
    }
}

impl Serialize for Problem {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.key())
    }
}

impl<'de> Deserialize<'de> for Problem {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Problem, D::Error> {
        Ok(Problem::parse(&String::deserialize(d)?))
    }
}

/// A post being sent: written before the request, cleared with its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// The post's id (`digest:…`, `trends:…`).
    pub post: String,
    /// Its place in time (where the cursor moves once it is settled).
    pub order: DateTime<FixedOffset>,
    /// When the request was started.
    pub started: DateTime<FixedOffset>,
}

/// A post that was not sent, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dropped {
    pub post: String,
    pub at: DateTime<FixedOffset>,
    /// What the service answered (secrets redacted).
    pub reason: String,
}

/// One `[[publish]]` target's record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TargetState {
    pub kind: String,
    /// The run that first saw this target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<DateTime<FixedOffset>>,
    /// The newest digest when the target was created: only posts after it are sent. `None`: the
    /// archive was empty, so every digest is new.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<DateTime<FixedOffset>>,
    /// The time of the last post sent (a digest's hour, or a trends day's last second).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub posted_through: Option<DateTime<FixedOffset>>,
    /// The id of the last post sent (`digest:…`, `trends:…`) and what the service called it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_post: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_post_ref: Option<String>,
    /// Posts sent over the target's life.
    pub posts: u64,
    pub consecutive_failures: u32,
    /// The last error, with secrets redacted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_attempt: Option<DateTime<FixedOffset>>,
    /// Since when the target has been failing (its first failure after the last post), for
    /// `matome alert`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failing_since: Option<DateTime<FixedOffset>>,
    /// Not to be tried before this time (back-off after repeated failures).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_attempt: Option<DateTime<FixedOffset>>,
    /// The post being sent when the last run stopped without its result (settled by the next).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt: Option<Attempt>,
    /// Posts a run ended during and that were taken as sent (at most once: see the README).
    #[serde(skip_serializing_if = "is_zero")]
    pub unconfirmed: u64,
    /// The latest posts the service refused for good (the newest [`DROPPED_KEPT`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<Dropped>,
    /// Posts skipped for being older than `max_age_hours`, over the target's life, and the last.
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_skipped: Option<String>,
}

/// Dropped posts kept per target.
pub const DROPPED_KEPT: usize = 20;

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One problem an alert is (or was) about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlertState {
    /// Since when the problem is known (a feed: its last success, or when first seen failing).
    pub since: DateTime<FixedOffset>,
    /// What is wrong, as the alert says it.
    pub message: String,
    /// When the alert went out to every destination; `None` while not yet due or delivered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alerted: Option<DateTime<FixedOffset>>,
    /// The destinations (`webhook`, `email`) that have the alert.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sent_to: Vec<String>,
    /// When the problem was seen solved; the entry stays until every destination that had the
    /// alert has the recovery too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered: Option<DateTime<FixedOffset>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recovery_sent_to: Vec<String>,
    /// The untrusted part of the message (a feed's or a service's error), quoted inert.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl PublishState {
    pub fn path(root: &Path) -> PathBuf {
        crate::layout::publish_state(root)
    }

    /// Reads the state; a missing file is an empty state.
    pub fn load(root: &Path) -> Result<PublishState> {
        let state = fsutil::read_state(
            &Self::path(root),
            "publish state",
            "fix it or restore it with git (deleting it makes every target start afresh from the \
             newest digest, posting nothing older)",
        )?;
        Ok(state.unwrap_or_else(|| PublishState {
            version: VERSION,
            ..Default::default()
        }))
    }

    /// Writes the state atomically.
    pub fn save(&self, root: &Path) -> Result<()> {
        let current = PublishState {
            version: VERSION,
            ..self.clone()
        };
        fsutil::write_state(&Self::path(root), &current)
    }
}

impl TargetState {
    /// Whether the target may be tried at `now`.
    pub fn is_due(&self, now: DateTime<FixedOffset>) -> bool {
        self.next_attempt.is_none_or(|t| t <= now)
    }

    /// Where posting resumes: after the last post sent, else after the creation mark.
    pub fn cursor(&self) -> Option<DateTime<FixedOffset>> {
        self.posted_through.max(self.since)
    }

    /// Records a post sent.
    pub fn record_post(
        &mut self,
        now: DateTime<FixedOffset>,
        order: DateTime<FixedOffset>,
        id: &str,
        remote: Option<String>,
    ) {
        self.posted_through = Some(order);
        self.last_post = Some(id.to_string());
        self.last_post_ref = remote;
        self.posts += 1;
        self.attempt = None;
        self.last_attempt = Some(now);
        self.consecutive_failures = 0;
        self.last_error = None;
        self.failing_since = None;
        self.next_attempt = None;
    }

    /// Records a post the service refused for good: the cursor moves past it, the reason is kept
    /// (and alerted once by `matome alert`). Not a failure of the target.
    pub fn record_dropped(
        &mut self,
        now: DateTime<FixedOffset>,
        order: DateTime<FixedOffset>,
        post: &str,
        reason: String,
    ) {
        self.posted_through = Some(order);
        self.attempt = None;
        self.last_attempt = Some(now);
        self.dropped.push(Dropped {
            post: post.to_string(),
            at: now,
            reason,
        });
        let excess = self.dropped.len().saturating_sub(DROPPED_KEPT);
        self.dropped.drain(..excess);
    }

    /// Records posts skipped for their age, through `order`.
    pub fn record_skipped(&mut self, order: DateTime<FixedOffset>, n: u64, last: &str) {
        self.posted_through = Some(order);
        self.skipped += n;
        self.last_skipped = Some(last.to_string());
    }

    /// Records a rate limit: not tried again before `until` (the service's reset time).
    pub fn record_rate_limited(
        &mut self,
        name: &str,
        now: DateTime<FixedOffset>,
        until: DateTime<FixedOffset>,
        error: String,
    ) {
        self.record_failure(name, now, error);
        self.next_attempt = Some(self.next_attempt.map_or(until, |t| t.max(until)));
    }

    /// Records a failure: retried at the next run, then after a growing back-off
    /// ([`Backoff::PUBLISH`]: 1 h, 2 h, 4 h … up to a day, with jitter).
    pub fn record_failure(&mut self, name: &str, now: DateTime<FixedOffset>, error: String) {
        self.attempt = None;
        self.last_attempt = Some(now);
        self.consecutive_failures = self.consecutive_failures.saturating_add(1);
        self.last_error = Some(error);
        self.failing_since.get_or_insert(now);
        self.next_attempt =
            Backoff::PUBLISH.next_attempt(name, self.consecutive_failures, None, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(s).unwrap()
    }

    #[test]
    fn cursor_is_the_later_of_the_mark_and_the_last_post() {
        let mut s = TargetState {
            since: Some(t("2021-07-20T08:00:00+09:00")),
            ..Default::default()
        };
        assert_eq!(s.cursor(), s.since);
        s.record_post(
            t("2021-07-20T10:17:00+09:00"),
            t("2021-07-20T09:00:00+09:00"),
            "digest:x",
            None,
        );
        assert_eq!(s.cursor(), Some(t("2021-07-20T09:00:00+09:00")));
        let empty = TargetState::default();
        assert_eq!(empty.cursor(), None);
    }

    #[test]
    fn failures_back_off_and_a_post_resets_them() {
        let now = t("2021-07-20T08:00:00+09:00");
        let mut s = TargetState::default();
        s.record_failure("bluesky", now, "HTTP 500".into());
        assert!(
            s.is_due(now),
            "the first failure is retried at the next run"
        );
        s.record_failure("bluesky", now, "HTTP 500".into());
        assert!(!s.is_due(now + chrono::Duration::minutes(30)));
        assert!(s.is_due(now + chrono::Duration::hours(2)));
        s.record_post(now, now, "digest:x", None);
        assert_eq!(s.consecutive_failures, 0);
        assert!(s.is_due(now));
    }

    #[test]
    fn round_trips_through_json() {
        let dir = tempfile::tempdir().unwrap();
        let mut st = PublishState::load(dir.path()).unwrap();
        st.targets.insert(
            "b".into(),
            TargetState {
                kind: "bluesky".into(),
                ..Default::default()
            },
        );
        st.alerts.insert(
            Problem::Dropped {
                target: "a:b@c".into(),
                post: "digest:2021-07-20T08:00:00+09:00".into(),
            },
            AlertState {
                since: t("2021-07-20T08:00:00+09:00"),
                message: "m".into(),
                alerted: None,
                sent_to: vec![],
                recovered: None,
                recovery_sent_to: vec![],
                detail: Some("d".into()),
            },
        );
        st.alerts.insert(
            Problem::Step("build".into()),
            AlertState {
                since: t("2021-07-20T08:00:00+09:00"),
                message: "m".into(),
                alerted: None,
                sent_to: vec![],
                recovered: None,
                recovery_sent_to: vec![],
                detail: None,
            },
        );
        st.save(dir.path()).unwrap();
        let text = std::fs::read_to_string(PublishState::path(dir.path())).unwrap();
        assert!(text.contains("\"step:build\""), "{text}");
        assert_eq!(PublishState::load(dir.path()).unwrap(), st);
    }
}
