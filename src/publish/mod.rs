//! `matome publish`: post each new digest (and, with a trends feed, each day's top trend words)
//! to the `[[publish]]` targets — Bluesky, Mastodon, Slack, Discord, a JSON webhook, X, Hatena
//! Bookmark — each once.
//!
//! Owns: the run over the targets and its steps per target (first run, back-off, settling an
//! attempt a killed run left, skipping posts too old, sending in order). What there is to post
//! is [`post`]'s, the text [`text`]'s, made inert by [`inert`] and fitted by [`limits`];
//! sending is [`targets`]'s; `publish-state.json` is [`state`]'s. It does not build the site:
//! post URLs are where `matome build` puts the pages (`content::digest_path` under `base_url`).
//!
//! **Once.** The whole run holds the site lock, so overlapping runs take turns and the second
//! sees what the first posted. Posts go out oldest first. Before each request the attempt is
//! written (atomically) to `publish-state.json`, and after it the result; a rerun starts after
//! the last post. An attempt left without a result (the run was killed mid-request) is settled
//! by the next run as [`targets::settle`] documents per service: asked of the service where its
//! API allows (Bluesky's record key, Mastodon's statuses), else by the service's rule (at most
//! once for Slack, Discord and X; sent again to the webhook and Hatena, where a repeat is
//! harmless). The README has the table.
//!
//! **No flood, nothing weeks late.** A target's first run records a "since" mark, the newest
//! digest of the archive at that moment, and posts nothing; from then on only digests (and
//! trends days) after the mark are posted, at most `max_posts_per_run` per run. After an outage,
//! posts older than `max_age_hours` (a day) are skipped and recorded instead of sent late.
//!
//! **Failures** are recorded per target (with secrets redacted), retried at the next run, then
//! with a growing back-off (a 429 waits for the service's reset time); the run carries on with
//! the other targets and `matome publish` still exits 0 (1 with `--strict`), so it never fails
//! the fetch, build or deploy. A post a service refuses for good is dropped with the reason
//! (`matome alert` tells the curator once) and the queue moves on.

pub mod inert;
pub mod limits;
pub mod post;
pub mod state;
pub mod stories;
pub mod targets;
pub mod text;

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use chrono::{DateTime, FixedOffset};

use crate::config::publish::{PublishTarget, PublishWhat};
use crate::config::{Config, FeedKind, Language};
use post::{DigestFile, Maker, Planned};
pub use post::{Post, PostItem};
use state::{Attempt, PublishState, TargetState};
use targets::{Credentials, Failure, Redactor, Session, Settled};
use text::Templates;

/// Options of one publish run.
#[derive(Debug, Clone, Default)]
pub struct PublishOptions {
    /// The time the run is taken to happen; default: the clock.
    pub now: Option<DateTime<FixedOffset>>,
    /// The site's public URL, overriding `base_url` (like `matome build --base-url`).
    pub base_url: Option<String>,
}

/// What a run did, per target, for the output.
#[derive(Debug, Default)]
pub struct PublishReport {
    /// Lines to print: `target: posted digest:… (ref)`, `target: nothing new`, ….
    pub lines: Vec<String>,
    /// `target: error` for every failed target (secrets redacted).
    pub failed: Vec<String>,
    /// Posts sent.
    pub posted: usize,
}

pub(crate) fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// An HTTP client for posting: the fetch client's user agent, short timeouts, no redirects
/// (a webhook that redirects is misconfigured, and a redirect could carry a token elsewhere).
pub(crate) fn http_client() -> Result<reqwest::Client> {
    install_crypto_provider();
    Ok(reqwest::Client::builder()
        .user_agent(crate::fetch::http::USER_AGENT)
        .connect_timeout(std::time::Duration::from_secs(10))
        .timeout(std::time::Duration::from_secs(30))
        .redirect(reqwest::redirect::Policy::none())
        .build()?)
}

/// One run's shared parts.
struct Run<'a> {
    root: &'a Path,
    now: DateTime<FixedOffset>,
    state: PublishState,
    report: PublishReport,
    files: &'a [DigestFile],
    has_trends: bool,
    tz: chrono_tz::Tz,
    maker: Maker<'a>,
    rt: tokio::runtime::Runtime,
    cx: targets::Context<'a>,
}

/// One publish run over every `[[publish]]` target.
pub fn run(root: &Path, opts: &PublishOptions) -> Result<PublishReport> {
    let config = Config::load(root)?;
    if config.publish.is_empty() {
        let mut report = PublishReport::default();
        report
            .lines
            .push("no [[publish]] targets in matome.toml: nothing to do".into());
        return Ok(report);
    }
    let base_url = match &opts.base_url {
        Some(u) => crate::render::normalize_base_url(u).context("--base-url")?,
        None => config.base_url.clone(),
    };
    let now = opts
        .now
        .unwrap_or_else(|| chrono::Utc::now().fixed_offset());
    let templates = Templates::load(root, &config.theme)?;
    let _lock = crate::fsutil::SiteLock::acquire_or_wait(root)?;
    let state = PublishState::load(root)?;
    let files = post::digest_files(root, config.timezone)?;
    let trend_feeds: Vec<&str> = config
        .feeds
        .iter()
        .filter(|f| f.kind == FeedKind::Trends)
        .map(|f| f.url.as_str())
        .collect();
    let stories = due_stories(root, &config, &base_url, &files, now)?;
    let http = http_client()?;
    let mut run = Run {
        root,
        now,
        state,
        report: PublishReport::default(),
        files: &files,
        has_trends: !trend_feeds.is_empty(),
        tz: config.timezone,
        maker: Maker {
            root,
            config: &config,
            base_url: &base_url,
            files: &files,
            trend_feeds,
            made: BTreeMap::new(),
            stories,
        },
        rt: tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("starting the async runtime")?,
        cx: targets::Context {
            http: &http,
            templates: &templates,
            base_url: &base_url,
            lang: match config.language {
                Language::Ja => "ja",
                Language::En => "en",
            },
            now,
        },
    };
    for t in &config.publish {
        run.target(t)?;
        run.state.save(root)?;
    }
    Ok(run.report)
}

/// The stories due for the `what = "stories"` targets: those that reached `[stories]
/// feed_min_sites` within the span any of them may still post (see [`stories`]).
fn due_stories(
    root: &Path,
    config: &Config,
    base_url: &str,
    files: &[DigestFile],
    now: DateTime<FixedOffset>,
) -> Result<Vec<stories::DueStory>> {
    let Some(max_age) = config
        .publish
        .iter()
        .filter(|t| t.what == PublishWhat::Stories)
        .map(|t| i64::from(t.max_age_hours))
        .max()
    else {
        return Ok(Vec::new());
    };
    let from = now - chrono::Duration::hours(max_age + stories::LOOKBACK_HOURS);
    stories::due(
        root,
        config,
        base_url,
        files,
        from,
        config.stories.feed_min_sites,
    )
}

impl Run<'_> {
    /// What target `t` has to post after its cursor, oldest first (at most `max`).
    fn plan(
        &mut self,
        t: &PublishTarget,
        max: Option<usize>,
    ) -> Vec<(DateTime<FixedOffset>, Planned)> {
        let cursor = self.ts(t).cursor();
        match t.what {
            PublishWhat::Digests => post::plan(self.files, cursor, self.trends(t), self.tz, max),
            PublishWhat::Stories => self
                .maker
                .stories
                .iter()
                .enumerate()
                .filter(|(_, s)| cursor.is_none_or(|c| s.order > c))
                .take(max.unwrap_or(usize::MAX))
                .map(|(i, s)| (s.order, Planned::Story(i)))
                .collect(),
        }
    }

    /// Everything one target does in a run.
    fn target(&mut self, t: &PublishTarget) -> Result<()> {
        let name = &t.name;
        let Some(ts) = self.state.targets.get(name).cloned() else {
            return self.first_run(t);
        };
        if !ts.is_due(self.now) {
            self.report.lines.push(format!(
                "{name}: deferred after {} failure(s) until {}",
                ts.consecutive_failures,
                ts.next_attempt
                    .map(|t| crate::content::rfc3339(&t))
                    .unwrap_or_default()
            ));
            return Ok(());
        }
        let mut redactor = Redactor::default();
        let creds = match targets::credentials(t, &mut redactor) {
            Ok(c) => c,
            Err(e) => {
                self.fail(t, Failure::retry(format!("{e:#}")), &redactor);
                return Ok(());
            }
        };
        let mut session = Session::default();
        if let Some(attempt) = ts.attempt.clone()
            && !self.settle(t, &creds, &mut session, &attempt, &redactor)?
        {
            return Ok(());
        }
        self.skip_stale(t)?;
        let planned = self.plan(t, Some(t.max_posts_per_run));
        if planned.is_empty() {
            self.report.lines.push(format!("{name}: nothing new"));
            return Ok(());
        }
        for (order, p) in planned {
            if !self.send_one(t, &creds, &mut session, order, p, &redactor)? {
                break;
            }
        }
        Ok(())
    }

    fn ts(&mut self, t: &PublishTarget) -> &mut TargetState {
        self.state.targets.get_mut(&t.name).expect("target")
    }

    fn trends(&self, t: &PublishTarget) -> bool {
        t.trends && self.has_trends
    }

    /// A target's first run: the mark, and nothing posted.
    fn first_run(&mut self, t: &PublishTarget) -> Result<()> {
        // A stories target's mark is the newest hour's end: a story that reached the threshold
        // in it (its place is within the hour) is not new either.
        let newest = self.files.last().map(|f| match t.what {
            PublishWhat::Digests => f.hour,
            PublishWhat::Stories => f.hour + chrono::Duration::seconds(3599),
        });
        let ts = TargetState {
            kind: t.kind().as_str().to_string(),
            created: Some(self.now),
            since: newest,
            ..Default::default()
        };
        self.state.targets.insert(t.name.clone(), ts);
        let name = &t.name;
        let what = match t.what {
            PublishWhat::Digests => "digests",
            PublishWhat::Stories => "stories",
        };
        self.report.lines.push(match newest {
            Some(h) => format!(
                "{name}: new target: posts {what} after {} (the newest now); nothing posted this run",
                crate::content::rfc3339(&h)
            ),
            None => format!(
                "{name}: new target: the archive is empty; all {what} from now on are posted"
            ),
        });
        Ok(())
    }

    /// Settles the attempt a run left without a result; `false` when the target failed.
    fn settle(
        &mut self,
        t: &PublishTarget,
        creds: &Credentials,
        session: &mut Session,
        attempt: &Attempt,
        redactor: &Redactor,
    ) -> Result<bool> {
        let planned = self.plan(t, None);
        let post = match planned.iter().find(|(o, _)| *o == attempt.order) {
            Some((_, p)) => self.maker.get(*p)?,
            None => None,
        };
        let Some(post) = post.filter(|p| p.id == attempt.post) else {
            // The post is gone from the archive: nothing to settle.
            self.ts(t).attempt = None;
            return Ok(true);
        };
        let settled = self
            .rt
            .block_on(targets::settle(&self.cx, t, creds, session, attempt, &post));
        let now = self.now;
        let name = &t.name;
        match settled {
            Ok(Settled::Posted(r)) => {
                let r = r.map(|r| redactor.redact(&r));
                self.report.lines.push(format!(
                    "{name}: {} was posted by the run that stopped before its answer{}",
                    post.id,
                    r.as_deref().map(|r| format!(" ({r})")).unwrap_or_default()
                ));
                self.ts(t).record_post(now, post.order, &post.id, r);
            }
            Ok(Settled::AssumedSent) => {
                self.report.lines.push(format!(
                    "{name}: {} was being sent when a run stopped; {} cannot be asked, so it is \
                     taken as sent (at most once), not sent again",
                    post.id,
                    t.kind().as_str()
                ));
                let ts = self.ts(t);
                ts.record_post(now, post.order, &post.id, None);
                ts.unconfirmed += 1;
            }
            Ok(Settled::Resend) => self.ts(t).attempt = None,
            Err(e) => {
                self.fail(t, e, redactor);
                // Still unsettled: kept for the next run.
                self.ts(t).attempt = Some(attempt.clone());
                return Ok(false);
            }
        }
        self.state.save(self.root)?;
        Ok(true)
    }

    /// Skips (and records) the posts older than `max_age_hours`.
    fn skip_stale(&mut self, t: &PublishTarget) -> Result<()> {
        let cutoff = self.now - chrono::Duration::hours(i64::from(t.max_age_hours));
        let stale: Vec<(DateTime<FixedOffset>, Planned)> = self
            .plan(t, None)
            .into_iter()
            .take_while(|(o, _)| *o < cutoff)
            .collect();
        let (Some(first), Some(last)) = (stale.first(), stale.last()) else {
            return Ok(());
        };
        let id = |o: &DateTime<FixedOffset>| crate::content::rfc3339(o);
        self.report.lines.push(format!(
            "{}: skipped {} post(s) older than {} h (from {} to {}), not sent late",
            t.name,
            stale.len(),
            t.max_age_hours,
            id(&first.0),
            id(&last.0)
        ));
        let last_id = format!("{} (older than {} h)", id(&last.0), t.max_age_hours);
        self.ts(t)
            .record_skipped(last.0, stale.len() as u64, &last_id);
        self.state.save(self.root)
    }

    /// Sends one planned post; `false` when the target failed (the rest waits for next run).
    fn send_one(
        &mut self,
        t: &PublishTarget,
        creds: &Credentials,
        session: &mut Session,
        order: DateTime<FixedOffset>,
        p: Planned,
        redactor: &Redactor,
    ) -> Result<bool> {
        let post = match self.maker.get(p) {
            Ok(Some(post)) => post,
            Ok(None) => {
                // An empty digest or a day without trend words: nothing to say, move on.
                self.ts(t).posted_through = Some(order);
                return Ok(true);
            }
            Err(e) => {
                self.fail(t, Failure::retry(format!("{e:#}")), redactor);
                return Ok(false);
            }
        };
        let (now, name) = (self.now, &t.name);
        let attempt = Attempt {
            post: post.id.clone(),
            order,
            started: now,
        };
        self.ts(t).attempt = Some(attempt.clone());
        self.state.save(self.root)?;
        let sent = self
            .rt
            .block_on(targets::send(&self.cx, t, creds, session, &post));
        let ok = match sent {
            Ok(remote) => {
                let remote = remote.map(|r| redactor.redact(&r));
                self.report.lines.push(format!(
                    "{name}: posted {}{}",
                    post.id,
                    remote
                        .as_deref()
                        .map(|r| format!(" ({r})"))
                        .unwrap_or_default()
                ));
                self.report.posted += 1;
                self.ts(t).record_post(now, order, &post.id, remote);
                true
            }
            Err(Failure::Refused(why)) => {
                let why = redactor.redact(&why);
                self.report.failed.push(format!(
                    "{name}: {} was refused for good and is dropped (the next posts go on): {why}",
                    post.id
                ));
                self.ts(t).record_dropped(now, order, &post.id, why);
                true
            }
            Err(e) => {
                let unknown = matches!(
                    e,
                    Failure::Retry {
                        unknown_outcome: true,
                        ..
                    }
                );
                self.fail(t, e.context(&format!("posting {}", post.id)), redactor);
                if unknown {
                    // It may have reached the service: the next run settles it.
                    self.ts(t).attempt = Some(attempt);
                }
                false
            }
        };
        self.state.save(self.root)?;
        Ok(ok)
    }

    /// A failure of this target: recorded (redacted) in the state and the report.
    fn fail(&mut self, t: &PublishTarget, e: Failure, redactor: &Redactor) {
        let name = &t.name;
        let now = self.now;
        let error = redactor.redact(e.message());
        let ts = self.ts(t);
        match &e {
            Failure::RateLimited {
                until: Some(until), ..
            } => ts.record_rate_limited(name, now, *until, error.clone()),
            _ => ts.record_failure(name, now, error.clone()),
        }
        let retry = match ts.next_attempt {
            Some(t) => format!("retried after {}", crate::content::rfc3339(&t)),
            None => "retried at the next run".to_string(),
        };
        self.report
            .failed
            .push(format!("{name}: {error} ({retry})"));
    }
}
