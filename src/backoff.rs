//! Back-off after repeated failures, one rule for feeds (`fetch-state.json`, from `[fetch]
//! backoff_base` and `backoff_max`) and publish targets (`publish-state.json`, [`Backoff::PUBLISH`]):
//! none after the first failure (the next scheduled run retries), then base, 2×base, 4×base …
//! capped, each scaled by a jitter in [0.75, 1.25) derived from the key (a feed's URL, a target's
//! name) and the count, so retries do not fall in lock-step and runs are reproducible. The
//! next attempt's time saturates: no setting or Retry-After can overflow the date.

use std::time::Duration;

use chrono::{DateTime, FixedOffset};

/// A back-off: its first delay and its cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub base: Duration,
    pub max: Duration,
}

const HOUR: Duration = Duration::from_secs(3600);

impl Backoff {
    /// A publish target's: 1 h, 2 h, 4 h … up to a day (the fetch's defaults).
    pub const PUBLISH: Backoff = Backoff {
        base: HOUR,
        max: Duration::from_secs(24 * 3600),
    };

    /// The delay after `failures` consecutive failures of `key`.
    pub fn delay(&self, key: &str, failures: u32) -> Duration {
        if failures <= 1 {
            return Duration::ZERO;
        }
        let exp = (failures - 2).min(20);
        let raw = self.base.saturating_mul(1u32 << exp).min(self.max);
        // A fixed hash (not the standard library's, which may change between Rust releases): the
        // retry time it decides is saved in the state files.
        let mut bytes = key.as_bytes().to_vec();
        bytes.extend_from_slice(&failures.to_le_bytes());
        let jitter = 0.75 + (crate::hash::fnv1a(&bytes) % 1000) as f64 / 2000.0;
        raw.mul_f64(jitter).min(self.max)
    }

    /// When to try again after `failures` failures at `now`: `None` for the next run; a server's
    /// `retry_after` is honoured when longer than the back-off (up to the cap).
    pub fn next_attempt(
        &self,
        key: &str,
        failures: u32,
        retry_after: Option<Duration>,
        now: DateTime<FixedOffset>,
    ) -> Option<DateTime<FixedOffset>> {
        let backoff = self.delay(key, failures);
        let wait = match retry_after {
            Some(r) => r.min(self.max).max(backoff),
            None => backoff,
        };
        (!wait.is_zero()).then(|| {
            chrono::Duration::from_std(wait)
                .ok()
                .and_then(|d| now.checked_add_signed(d))
                .unwrap_or(now + chrono::Duration::days(365))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: Duration = HOUR;
    const B: Backoff = Backoff::PUBLISH;

    #[test]
    fn backoff_grows_with_jitter_and_is_capped() {
        assert_eq!(B.delay("u", 1), Duration::ZERO);
        let mut last = Duration::ZERO;
        for n in 2..6 {
            let d = B.delay("u", n);
            let nominal = H * (1 << (n - 2));
            assert!(
                d >= nominal.mul_f64(0.75) && d < nominal.mul_f64(1.25),
                "{n}: {d:?}"
            );
            assert!(d > last);
            last = d;
        }
        assert!(B.delay("u", 40) <= 24 * H);
        // Jitter differs between feeds so they do not retry in lock-step.
        let spread: std::collections::HashSet<_> = (0..20)
            .map(|i| B.delay(&format!("https://f{i}/"), 3))
            .collect();
        assert!(spread.len() > 10);
    }

    /// `backoff_base = backoff_max = 1e15` panicked when the next attempt overflowed the date.
    #[test]
    fn a_huge_backoff_does_not_overflow_the_date() {
        let now = DateTime::parse_from_rfc3339("2021-07-20T08:00:00+09:00").unwrap();
        let huge = Duration::from_secs_f64(1e15);
        let b = Backoff {
            base: huge,
            max: huge,
        };
        assert!(b.next_attempt("u", 3, Some(huge), now).unwrap() > now);
    }
}
