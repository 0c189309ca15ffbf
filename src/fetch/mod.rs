//! `matome fetch`: one run over every configured feed, ending in at most one new snapshot.
//!
//! Owns the run: which feeds are due, fetching them concurrently (bounded overall and per
//! host), decoding and parsing, deciding which items are new against the whole archive and
//! each new item's story against the window's ([`stories`]), and writing the hour's snapshot
//! and the fetch state. A broken feed is reported with its URL and recorded; the run carries
//! on. History is never rewritten: a run only appends to the current hour's file, and a killed
//! run leaves the archive as it was.
//!
//! A run is bounded in time: `[fetch] run_timeout` after it starts, every feed not yet fetched,
//! decoded and parsed (the parse runs on tokio's blocking pool, inside the deadline) is recorded
//! as failed ("run deadline reached"), and what was fetched by then is written as usual.

pub mod address;
mod admit;
pub mod daily;
pub mod decode;
mod guard;
pub mod http;
pub mod parse;
#[cfg(test)]
mod proptests;
mod report;
pub mod state;
mod stories;
pub mod weight;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use chrono::{DateTime, FixedOffset};
use tokio::sync::Semaphore;

use crate::analyze::DocFreq;
use crate::config::{Config, FeedConfig, FetchSettings};
use crate::content;
use crate::fsutil::SiteLock;
use admit::Admission;
use report::Reporter;
pub use report::{Deferred, Failure, RunReport};
use state::{FeedState, FetchState};

/// How a run is asked to behave.
#[derive(Debug, Clone, Default)]
pub struct FetchOptions {
    /// The time the run is taken to happen; `None`: the clock.
    pub now: Option<DateTime<FixedOffset>>,
    /// Show a progress bar (on a terminal, outside CI).
    pub progress: bool,
}

/// What one feed's fetch came to.
#[derive(Debug)]
enum Outcome {
    NotModified,
    Fetched {
        feed: parse::ParsedFeed,
        etag: Option<String>,
        last_modified: Option<String>,
    },
    Failed {
        error: String,
        retry_after: Option<Duration>,
    },
    /// Cut short by the run's deadline (`fetch.run_timeout`); `started`: the feed had its slot
    /// (else other feeds held every one).
    DeadlineReached {
        started: bool,
    },
}

/// Runs one fetch over the site at `root`, in steps: open the run (lock, archive, state), fetch
/// the feeds that are due, admit their new items, annotate them, write the hour.
pub fn run(root: &Path, opts: &FetchOptions) -> Result<RunReport> {
    let config = Config::load(root)?;
    if config.feeds.is_empty() {
        bail!(
            "{} lists no feeds: add [[feeds]] entries or run `matome feeds import FILE`",
            crate::config::config_path(root).display()
        );
    }
    let _lock = SiteLock::acquire_or_wait(root)?;
    let mut run = Run::open(root, &config, opts)?;
    let due = run.due_feeds();
    let outcomes = run.fetch(&due, opts.progress)?;
    let mut new_items = run.admit(&due, outcomes);
    let df = run.annotate(&mut new_items)?;
    run.write(new_items, df)
}

/// One run between its steps: what it measures "new" against, the feeds' state, the report.
struct Run<'a> {
    root: &'a Path,
    config: &'a Config,
    /// The time the run is taken to happen, in the site's zone.
    now: DateTime<FixedOffset>,
    /// `[fetch] run_timeout` after the lock was taken.
    deadline: std::time::Instant,
    /// The archive's keys (its `keys` moved to `seen`), for the snapshot written.
    archive: content::ArchiveKeys,
    /// Every item key archived so far, and this run's new ones.
    seen: HashSet<content::ItemKey>,
    state: FetchState,
    report: RunReport,
}

impl<'a> Run<'a> {
    /// Opens a run under the site lock: the archive's keys and the fetch state loaded, what an
    /// interrupted run left removed.
    fn open(root: &'a Path, config: &'a Config, opts: &FetchOptions) -> Result<Run<'a>> {
        let locked_at = std::time::SystemTime::now();
        // The deadline counts from here: waiting for another run's lock is not this run's work.
        let deadline = std::time::Instant::now() + config.fetch.run_timeout;
        let now = opts
            .now
            .unwrap_or_else(|| chrono::Utc::now().fixed_offset())
            .with_timezone(&config.timezone)
            .fixed_offset();
        // Temp files of a run killed mid-write (older than our lock, so none of ours).
        let content_dir = root.join(content::CONTENT_DIR);
        for p in crate::fsutil::remove_stale_temp_files(&content_dir, locked_at) {
            eprintln!("removed {}, left by an interrupted run", p.display());
        }
        // Everything archived so far: what "new" is measured against. A broken file does not
        // stop the run (its items would be lost from feeds that drop them); its items are
        // recognised by the key lines it still shows, and it is reported until it is fixed.
        let mut archive = content::load_keys(root)?;
        for b in &archive.broken {
            eprintln!(
                "warning: {}\n  the run goes on; its items are recognised by their `feed` and `id` lines. Fix it or restore it with git (`matome build` fails until then)",
                b.error
            );
        }
        let seen = std::mem::take(&mut archive.keys);
        let (state, state_note) = FetchState::load_or_recover(root, now)?;
        if let Some(note) = state_note {
            eprintln!("warning: {note}");
        }
        let report = RunReport {
            feeds: config.feeds.len(),
            run_timeout: config.fetch.run_timeout,
            ..Default::default()
        };
        Ok(Run {
            root,
            config,
            now,
            deadline,
            archive,
            seen,
            state,
            report,
        })
    }

    /// The feeds due now, in config order; the others are reported as deferred (backing off).
    fn due_feeds(&mut self) -> Vec<FeedConfig> {
        let mut due = Vec::new();
        for feed in &self.config.feeds {
            let fs = self.state.feeds.entry(feed.url.clone()).or_default();
            if fs.is_due(self.now) {
                due.push(feed.clone());
            } else {
                self.report.deferred.push(Deferred {
                    url: feed.url.clone(),
                    until: fs.next_attempt.expect("not due means a next attempt"),
                    failures: fs.consecutive_failures,
                });
            }
        }
        due
    }

    /// Fetches the due feeds ([`fetch_all`]), each line reported as it comes.
    fn fetch(&self, due: &[FeedConfig], progress: bool) -> Result<Vec<Outcome>> {
        let reporter = Reporter::new(due.len(), progress);
        for d in &self.report.deferred {
            reporter.line(&format!(
                "deferred: {}: backing off after {} failure(s) until {}",
                d.url,
                d.failures,
                content::rfc3339(&d.until)
            ));
        }
        let outcomes = fetch_all(
            due,
            &self.state,
            &self.config.fetch,
            self.deadline,
            &reporter,
        );
        reporter.finish();
        outcomes
    }

    /// Each feed's outcome recorded in its state and the report; the new items, in config
    /// order, each new exactly once.
    fn admit(&mut self, due: &[FeedConfig], outcomes: Vec<Outcome>) -> Vec<content::Item> {
        let (now, fetch) = (self.now, &self.config.fetch);
        let backoff = fetch.backoff();
        let cx = Admission {
            config: self.config,
            now,
            day: now.date_naive(),
        };
        let mut new_items = Vec::new();
        for (feed, outcome) in due.iter().zip(outcomes) {
            let fs = self.state.feeds.get_mut(&feed.url).expect("inserted above");
            let (error, retry_after) = match outcome {
                Outcome::NotModified => {
                    self.report.not_modified += 1;
                    fs.record_success(now);
                    continue;
                }
                Outcome::Fetched {
                    feed: parsed,
                    etag,
                    last_modified,
                } => {
                    self.report.ok += 1;
                    let validators = http::Validators {
                        etag,
                        last_modified,
                    };
                    cx.admit(
                        fs,
                        feed,
                        &parsed,
                        validators,
                        &mut self.seen,
                        &mut new_items,
                    );
                    continue;
                }
                Outcome::Failed { error, retry_after } => (error, retry_after),
                Outcome::DeadlineReached { started } => {
                    self.report.deadline_cut += 1;
                    (deadline_reached(fetch.run_timeout, started), None)
                }
            };
            let failure = failed(fs, &feed.url, now, error, retry_after, &backoff);
            self.report.failed.push(failure);
        }
        new_items
    }

    /// 頻出ワード and summaries of the new items, ranked against the whole archive plus this
    /// run's items; the document frequencies to save (`None`: no new items).
    fn annotate(&self, new_items: &mut [content::Item]) -> Result<Option<DocFreq>> {
        if new_items.is_empty() {
            return Ok(None);
        }
        let mut df = DocFreq::load_or_rebuild(self.root, self.archive.items)?;
        crate::analyze::annotate_new(new_items, &mut df, &self.config.analyze);
        Ok(Some(df))
    }

    /// Writes the hour's snapshot (when there are new items), the document frequencies and the
    /// fetch state, each feed's day charged what its new items weigh; the run's report.
    fn write(mut self, new_items: Vec<content::Item>, df: Option<DocFreq>) -> Result<RunReport> {
        let (root, config, now) = (self.root, self.config, self.now);
        daily::spend(&mut self.state, &new_items, now.date_naive(), &config.fetch);
        // Feeds no longer configured leave the state file.
        let configured: HashSet<&str> = config.feeds.iter().map(|f| f.url.as_str()).collect();
        self.state
            .feeds
            .retain(|url, _| configured.contains(url.as_str()));
        self.report.new_items = new_items.len();
        if !new_items.is_empty() {
            let written =
                stories::decide_and_write(root, config, now, new_items, &mut self.archive)?;
            self.report.written = Some(written);
        }
        if let Some(df) = df {
            df.save(root)?;
        }
        self.state.save(root)?;
        Ok(self.report)
    }
}

/// The site name of a feed: the configured one, else the feed's first title (kept in the
/// state), else its host.
fn site_name(feed: &FeedConfig, fs: &FeedState) -> String {
    feed.site
        .clone()
        .or_else(|| fs.site.clone())
        .unwrap_or_else(|| {
            url::Url::parse(&feed.url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string))
                .unwrap_or_else(|| feed.url.clone())
        })
}

/// Fetches every due feed concurrently; outcomes come back in the order of `feeds`. A feed not
/// fetched and parsed by `deadline` fails with [`deadline_reached`].
fn fetch_all(
    feeds: &[FeedConfig],
    state: &FetchState,
    settings: &FetchSettings,
    deadline: std::time::Instant,
    reporter: &Reporter,
) -> Result<Vec<Outcome>> {
    if feeds.is_empty() {
        return Ok(Vec::new());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let clients = Arc::new(http::Clients::new(settings)?);
    let deadline = tokio::time::Instant::from_std(deadline);
    let outcomes = runtime.block_on(async {
        let overall = Arc::new(Semaphore::new(settings.concurrency));
        let mut per_host: HashMap<String, Arc<Semaphore>> = HashMap::new();
        let mut tasks = Vec::with_capacity(feeds.len());
        for feed in feeds {
            let host = host_key(&feed.url);
            let host_sem = per_host
                .entry(host)
                .or_insert_with(|| Arc::new(Semaphore::new(settings.per_host)))
                .clone();
            let overall = overall.clone();
            let clients = clients.clone();
            let settings = settings.clone();
            let url = feed.url.clone();
            let validators = state
                .feeds
                .get(&feed.url)
                .map(|s| http::Validators {
                    etag: s.etag.clone(),
                    last_modified: s.last_modified.clone(),
                })
                .unwrap_or_default();
            tasks.push(tokio::spawn(async move {
                let started = std::sync::atomic::AtomicBool::new(false);
                let fetch = async {
                    // Host first, so a feed waiting for its host does not hold an overall slot.
                    let _host = host_sem.acquire_owned().await.expect("never closed");
                    let _slot = overall.acquire_owned().await.expect("never closed");
                    started.store(true, std::sync::atomic::Ordering::Relaxed);
                    fetch_one(&clients, &url, &validators, &settings).await
                };
                match tokio::time::timeout_at(deadline, fetch).await {
                    Ok(outcome) => outcome,
                    Err(_) => Outcome::DeadlineReached {
                        started: started.load(std::sync::atomic::Ordering::Relaxed),
                    },
                }
            }));
        }
        let mut outcomes = Vec::with_capacity(tasks.len());
        for (feed, task) in feeds.iter().zip(tasks) {
            let mut outcome = task.await.unwrap_or_else(|e| Outcome::Failed {
                error: format!("internal error while fetching: {e}"),
                retry_after: None,
            });
            if let Outcome::Failed { error, .. } = &mut outcome {
                // It may quote the server or the feed: no control bytes to the terminal or state.
                *error = crate::text::one_line(error);
                reporter.line(&format!("error: {}: {error}", feed.url));
            }
            if let Outcome::DeadlineReached { started } = outcome {
                let error = deadline_reached(settings.run_timeout, started);
                reporter.line(&format!("error: {}: {error}", feed.url));
            }
            reporter.tick();
            outcomes.push(outcome);
        }
        outcomes
    });
    // A parse still running on the blocking pool past the deadline is abandoned, not waited
    // for (dropping the runtime would wait); it ends with the process.
    runtime.shutdown_background();
    Ok(outcomes)
}

/// Records a feed's failure in its state; the failure for the run's report.
fn failed(
    fs: &mut FeedState,
    url: &str,
    now: DateTime<FixedOffset>,
    error: String,
    retry_after: Option<Duration>,
    backoff: &crate::backoff::Backoff,
) -> Failure {
    fs.record_failure(url, now, error.clone(), retry_after, backoff);
    Failure {
        url: url.to_string(),
        reason: error,
    }
}

/// The failure recorded for a feed the run deadline cut short.
fn deadline_reached(run_timeout: Duration, started: bool) -> String {
    let when = if started {
        "before this feed was fetched and parsed"
    } else {
        "before this feed's turn came (other feeds held every slot)"
    };
    format!(
        "run deadline reached {when}: the run stops after fetch.run_timeout = {}s",
        run_timeout.as_secs_f64()
    )
}

fn host_key(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| {
            u.host_str()
                .map(|h| format!("{h}:{}", u.port_or_known_default().unwrap_or(0)))
        })
        .unwrap_or_else(|| url.to_string())
}

/// One feed: GET (waiting once for a short Retry-After), decode, parse.
async fn fetch_one(
    clients: &http::Clients,
    url: &str,
    validators: &http::Validators,
    settings: &FetchSettings,
) -> Outcome {
    let client = match clients.for_feed(url) {
        Ok(c) => c,
        Err(e) => {
            return Outcome::Failed {
                error: e.to_string(),
                retry_after: None,
            };
        }
    };
    let client = &client;
    let mut waited = false;
    let fetched = loop {
        match http::get(client, url, validators, settings).await {
            Err(http::FetchError::Status {
                retry_after: Some(wait),
                ..
            }) if !waited && wait <= settings.retry_after_max_wait => {
                waited = true;
                tokio::time::sleep(wait).await;
            }
            Err(e @ http::FetchError::Status { retry_after, .. }) => {
                return Outcome::Failed {
                    error: e.to_string(),
                    retry_after,
                };
            }
            Err(e) => {
                return Outcome::Failed {
                    error: e.to_string(),
                    retry_after: None,
                };
            }
            Ok(f) => break f,
        }
    };
    match fetched {
        http::Fetched::NotModified => Outcome::NotModified,
        http::Fetched::Body {
            bytes,
            charset,
            etag,
            last_modified,
        } => {
            let url = url.to_string();
            let budget = parse::Budget::for_items(settings.max_items_per_feed);
            let parsed = tokio::task::spawn_blocking(move || {
                let text = decode::decode(&bytes, charset.as_deref()).map_err(|e| e.to_string())?;
                drop(bytes);
                parse::parse_feed_within(&text, &url, &budget)
            })
            .await;
            match parsed {
                Ok(Ok(feed)) => Outcome::Fetched {
                    feed,
                    etag,
                    last_modified,
                },
                Ok(Err(error)) => Outcome::Failed {
                    error,
                    retry_after: None,
                },
                Err(e) => Outcome::Failed {
                    error: format!("the feed parser crashed on this feed ({e})"),
                    retry_after: None,
                },
            }
        }
    }
}
