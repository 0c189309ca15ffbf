//! How `matome deploy` behaves when the bucket says "slow down": every request to the store
//! (listing pages, HEADs, uploads, deletions) goes through [`Throttled`], an HTTP layer under
//! `object_store` that
//!
//! - answers a `503` (S3's `SlowDown`) or `429` by waiting what the bucket's `Retry-After` asks
//!   (seconds or an HTTP date, at most a minute), else an exponential back-off from 1 s to
//!   30 s, plus up to half again as jitter, and trying again, until the request has waited
//!   `[deploy] throttle_wait` in all (then it fails, naming the status and the wait, and every
//!   request after it fails at once: a bucket that never stops throttling ends the deploy in
//!   about `throttle_wait`, not that long per object);
//! - holds every request that has not started yet for that `Retry-After` too (the whole
//!   deploy pauses, not just the throttled request);
//! - runs at most [`Limiter`]'s current number of requests at once: it starts at `[deploy]
//!   concurrency`, halves (down to 1) at each throttling, and grows by one again after that
//!   many requests in a row succeed (additive increase, multiplicative decrease).
//!
//! `object_store`'s own retries (`[deploy] retries`, for other server errors and dropped
//! connections) never see a throttling answer: a request that runs out of `throttle_wait`
//! fails with an error `object_store` does not retry. Owns nothing else of the deploy.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use object_store::ClientOptions;
use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpErrorKind, HttpRequest, HttpResponse, HttpService,
    ReqwestConnector,
};
use tokio::sync::Notify;

/// The longest `Retry-After` honoured as written (a longer one is shortened to this).
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// The back-off of a throttled request whose answer has no `Retry-After`: 1 s, doubling.
const BACKOFF_START: Duration = Duration::from_secs(1);
const BACKOFF_MAX: Duration = Duration::from_secs(30);

/// How many requests may run at once, and when the next may start.
#[derive(Debug)]
pub struct Limiter {
    max: usize,
    state: Mutex<State>,
    changed: Notify,
}

#[derive(Debug)]
struct State {
    limit: usize,
    running: usize,
    /// Successes in a row since the limit last changed.
    successes: usize,
    /// Bumped at each halving: a throttled request that started before it halves nothing more.
    generation: u64,
    paused_until: Option<Instant>,
    throttled: u64,
    lowest: usize,
    /// A request ran out of its wait: the rest are not sent.
    gave_up: bool,
}

/// What throttling did to a deploy, for its report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThrottleStats {
    /// Throttling answers (`503`, `429`) received.
    pub throttled: u64,
    /// The fewest requests allowed at once during the deploy.
    pub lowest_concurrency: usize,
}

/// A running request's place; dropping it frees the place.
#[derive(Debug)]
pub struct Permit {
    limiter: Arc<Limiter>,
    generation: u64,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.limiter.state.lock().expect("limiter").running -= 1;
        self.limiter.changed.notify_waiters();
    }
}

impl Limiter {
    pub fn new(max: usize) -> Arc<Limiter> {
        let max = max.max(1);
        Arc::new(Limiter {
            max,
            state: Mutex::new(State {
                limit: max,
                running: 0,
                successes: 0,
                generation: 0,
                paused_until: None,
                throttled: 0,
                lowest: max,
                gave_up: false,
            }),
            changed: Notify::new(),
        })
    }

    /// Waits for a place (and for any pause a `Retry-After` asked for).
    pub async fn acquire(self: &Arc<Self>) -> Permit {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let pause = {
                let mut s = self.state.lock().expect("limiter");
                let now = Instant::now();
                match s.paused_until {
                    Some(until) if until > now => Some(until - now),
                    _ if s.running < s.limit => {
                        s.running += 1;
                        return Permit {
                            limiter: Arc::clone(self),
                            generation: s.generation,
                        };
                    }
                    _ => None,
                }
            };
            match pause {
                Some(d) => {
                    tokio::select! {
                        _ = tokio::time::sleep(d) => {}
                        _ = &mut changed => {}
                    }
                }
                None => changed.await,
            }
        }
    }

    /// A request holding `permit` was throttled: halve the limit (once per generation) and
    /// hold new requests for `pause`.
    fn throttled(&self, permit: &Permit, pause: Duration) {
        let mut s = self.state.lock().expect("limiter");
        s.throttled += 1;
        s.successes = 0;
        if permit.generation == s.generation {
            s.limit = (s.limit / 2).max(1);
            s.lowest = s.lowest.min(s.limit);
            s.generation += 1;
        }
        let until = Instant::now() + pause;
        s.paused_until = Some(s.paused_until.map_or(until, |p| p.max(until)));
    }

    fn succeeded(&self) {
        let grew = {
            let mut s = self.state.lock().expect("limiter");
            s.successes += 1;
            if s.successes >= s.limit && s.limit < self.max {
                s.limit += 1;
                s.successes = 0;
                true
            } else {
                false
            }
        };
        if grew {
            self.changed.notify_waiters();
        }
    }

    fn give_up(&self) {
        self.state.lock().expect("limiter").gave_up = true;
        self.changed.notify_waiters();
    }

    fn gave_up(&self) -> bool {
        self.state.lock().expect("limiter").gave_up
    }

    pub fn stats(&self) -> ThrottleStats {
        let s = self.state.lock().expect("limiter");
        ThrottleStats {
            throttled: s.throttled,
            lowest_concurrency: s.lowest,
        }
    }
}

/// The wait a throttling answer asks for: `Retry-After` in seconds or as an HTTP date, at
/// most [`MAX_RETRY_AFTER`]; `None` when there is none that reads.
pub fn retry_after(value: &str, now: chrono::DateTime<chrono::Utc>) -> Option<Duration> {
    let value = value.trim();
    let wait = match value.parse::<u64>() {
        Ok(secs) => Duration::from_secs(secs),
        Err(_) => {
            let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
            (at.with_timezone(&chrono::Utc) - now)
                .to_std()
                .unwrap_or(Duration::ZERO)
        }
    };
    Some(wait.min(MAX_RETRY_AFTER))
}

/// The wait before try `attempt + 2` of a throttled request: what the bucket asked for (or
/// the back-off), plus a jitter of up to half again, so throttled requests do not return
/// together. `unit` is a random number in [0, 1).
pub fn throttle_wait(asked: Option<Duration>, attempt: u32, unit: f64) -> Duration {
    let base = asked.unwrap_or_else(|| {
        BACKOFF_START
            .saturating_mul(1u32 << attempt.min(16))
            .min(BACKOFF_MAX)
    });
    base.mul_f64(1.0 + 0.5 * unit.clamp(0.0, 1.0))
}

/// The error of a request the bucket kept throttling past `throttle_wait`.
#[derive(Debug, thiserror::Error)]
#[error(
    "the bucket kept throttling this request (HTTP {status}, {tries} tries over {waited:.0?}): \
     run the deploy again later, or lower [deploy] concurrency or raise throttle_wait"
)]
pub struct KeptThrottling {
    status: u16,
    tries: u32,
    waited: Duration,
}

/// The error of a request not sent because another one ran out of `throttle_wait`.
#[derive(Debug, thiserror::Error)]
#[error("not sent: the bucket kept throttling another request past [deploy] throttle_wait")]
pub struct GaveUp;

/// The [`HttpConnector`] `matome deploy` gives `object_store`: reqwest under [`Throttled`].
#[derive(Debug, Clone)]
pub struct ThrottledConnector {
    pub limiter: Arc<Limiter>,
    /// The most a request may wait in all on throttling answers.
    pub budget: Duration,
}

impl HttpConnector for ThrottledConnector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let inner = ReqwestConnector::default().connect(options)?;
        Ok(HttpClient::new(Throttled {
            inner,
            limiter: Arc::clone(&self.limiter),
            budget: self.budget,
        }))
    }
}

/// See the module docs.
#[derive(Debug)]
pub struct Throttled {
    inner: HttpClient,
    limiter: Arc<Limiter>,
    budget: Duration,
}

fn is_throttling(status: u16) -> bool {
    status == 503 || status == 429
}

#[async_trait::async_trait]
impl HttpService for Throttled {
    async fn call(&self, req: HttpRequest) -> Result<HttpResponse, HttpError> {
        let (parts, body) = req.into_parts();
        let mut waited = Duration::ZERO;
        let mut attempt = 0u32;
        loop {
            if self.limiter.gave_up() {
                return Err(HttpError::new(HttpErrorKind::Unknown, GaveUp));
            }
            let permit = self.limiter.acquire().await;
            if self.limiter.gave_up() {
                return Err(HttpError::new(HttpErrorKind::Unknown, GaveUp));
            }
            let req = HttpRequest::from_parts(parts.clone(), body.clone());
            let response = self.inner.execute(req).await?;
            let status = response.status().as_u16();
            if !is_throttling(status) {
                drop(permit);
                if response.status().is_success() {
                    self.limiter.succeeded();
                }
                return Ok(response);
            }
            let asked = response
                .headers()
                .get(http::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| retry_after(v, chrono::Utc::now()));
            drop(response);
            let wait = throttle_wait(asked, attempt, fastrand::f64());
            self.limiter.throttled(&permit, asked.unwrap_or(wait));
            drop(permit);
            attempt += 1;
            if waited + wait > self.budget {
                self.limiter.give_up();
                return Err(HttpError::new(
                    HttpErrorKind::Unknown,
                    KeptThrottling {
                        status,
                        tries: attempt,
                        waited,
                    },
                ));
            }
            tokio::time::sleep(wait).await;
            waited += wait;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates_and_is_capped() {
        let now = chrono::DateTime::parse_from_rfc3339("2021-07-20T08:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        assert_eq!(retry_after("1", now), Some(Duration::from_secs(1)));
        assert_eq!(retry_after(" 7 ", now), Some(Duration::from_secs(7)));
        assert_eq!(retry_after("86400", now), Some(MAX_RETRY_AFTER));
        assert_eq!(
            retry_after("Tue, 20 Jul 2021 08:00:05 GMT", now),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            retry_after("Tue, 20 Jul 2021 07:00:00 GMT", now),
            Some(Duration::ZERO),
            "a date in the past: at once"
        );
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-1", now), None);
    }

    #[test]
    fn a_throttled_wait_honours_retry_after_and_adds_at_most_half_as_jitter() {
        let asked = Some(Duration::from_secs(1));
        assert_eq!(throttle_wait(asked, 0, 0.0), Duration::from_secs(1));
        assert_eq!(throttle_wait(asked, 5, 0.999_999).as_millis(), 1499);
        // Without Retry-After: 1 s, 2 s, 4 s … up to 30 s.
        assert_eq!(throttle_wait(None, 0, 0.0), Duration::from_secs(1));
        assert_eq!(throttle_wait(None, 2, 0.0), Duration::from_secs(4));
        assert_eq!(throttle_wait(None, 40, 0.0), Duration::from_secs(30));
        assert_eq!(throttle_wait(None, 40, 1.0), Duration::from_secs(45));
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_limit_halves_once_per_throttling_and_grows_back_one_at_a_time() {
        let limiter = Limiter::new(8);
        let permits: Vec<Permit> =
            futures_util::future::join_all((0..8).map(|_| limiter.acquire())).await;
        // Eight requests throttled at once halve the limit once, not eight times.
        for p in &permits {
            limiter.throttled(p, Duration::from_millis(200));
        }
        assert_eq!(limiter.state.lock().unwrap().limit, 4);
        drop(permits);
        // New requests wait out the pause.
        let started = Instant::now();
        let p = limiter.acquire().await;
        assert!(started.elapsed() >= Duration::from_millis(150));
        limiter.throttled(&p, Duration::ZERO);
        assert_eq!(limiter.state.lock().unwrap().limit, 2);
        drop(p);
        for _ in 0..2 {
            limiter.succeeded();
        }
        assert_eq!(limiter.state.lock().unwrap().limit, 3);
        assert_eq!(
            limiter.stats(),
            ThrottleStats {
                throttled: 9,
                lowest_concurrency: 2
            }
        );
    }
}
