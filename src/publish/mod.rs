//! `matome publish`: post each new digest (and, with a trends feed, each day's top trend words)
//! to the `[[publish]]` targets — Bluesky, Mastodon, Slack, Discord, a JSON webhook — each
//! exactly once.
//!
//! Owns: which posts are new for each target, their text (see [`text`]), sending them (see
//! [`targets`]) and `publish-state.json` (see [`state`]). It does not build the site: post URLs
//! are where `matome build` puts the pages (`content::digest_path` under `base_url`).
//!
//! **Exactly once.** The whole run holds the site lock, so overlapping runs take turns and the
//! second sees what the first posted. Posts go out oldest first; after each one the target's
//! cursor (the post's time) is written atomically to `publish-state.json`, which the workflow
//! commits. A rerun therefore starts after the last post. For the narrow window between a
//! service accepting a post and the state reaching the disk, Bluesky records have a key derived
//! from the post (a retry finds the record instead of posting again) and Mastodon gets an
//! `Idempotency-Key`; Slack, Discord and webhooks receive the post id (`X-Matome-Delivery`).
//!
//! **No flood.** A target's first run records a "since" mark, the newest digest of the archive
//! at that moment, and posts nothing; from then on only digests (and trends days) after the
//! mark are posted, at most `max_posts_per_run` per run so a backlog drains gradually.
//!
//! **Failures** are recorded per target (with secrets redacted), retried at the next run, then
//! with a growing back-off; the run carries on with the other targets and `matome publish`
//! still exits 0 (1 with `--strict`), so it never fails the fetch, build or deploy.

pub mod state;
pub mod targets;
pub mod text;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, TimeZone};

use crate::config::{Config, FeedKind, Language};
use crate::content::Snapshot;
use state::{PublishState, TargetState};
use text::{PostView, Templates, TrendWord};

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

/// One post, the same for every target except for its hashtag count and length.
#[derive(Debug, Clone)]
pub struct Post {
    /// `digest:2021-07-20T08:00:00+09:00` or `trends:2021-07-20`.
    pub id: String,
    /// Its place in time: a digest's hour, or a trends day's last second.
    pub order: DateTime<FixedOffset>,
    pub template: &'static str,
    pub view: PostView,
    /// The link card's description (Bluesky): the first item titles.
    pub description: String,
}

/// A snapshot file, with the hour its path names.
#[derive(Debug, Clone)]
struct DigestFile {
    hour: DateTime<FixedOffset>,
    path: PathBuf,
}

/// The archive's digest files by their paths (`content/YYYY/MM/DD/HHMM.md`, site zone), oldest
/// first. Files named otherwise are left to `matome check`.
fn digest_files(root: &Path, tz: chrono_tz::Tz) -> Result<Vec<DigestFile>> {
    let mut out = Vec::new();
    for path in crate::content::snapshot_paths(root)? {
        let rel = crate::content::rel_name(root, &path);
        let parts: Vec<&str> = rel.split('/').collect();
        let [_, y, m, d, hm] = parts[..] else {
            continue;
        };
        let stamp = format!("{y}-{m}-{d} {}", hm.trim_end_matches(".md"));
        let Ok(local) = chrono::NaiveDateTime::parse_from_str(&stamp, "%Y-%m-%d %H%M") else {
            continue;
        };
        let Some(hour) = tz.from_local_datetime(&local).earliest() else {
            continue;
        };
        out.push(DigestFile {
            hour: hour.fixed_offset(),
            path,
        });
    }
    out.sort_by_key(|f| f.hour);
    Ok(out)
}

/// What one target should post next: (order, what).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Planned {
    /// The trends post of the day (an index of its last digest file).
    Trends(usize),
    /// A digest (its index in the file list).
    Digest(usize),
}

/// The day a digest belongs to, in the site's zone.
fn day_of(hour: &DateTime<FixedOffset>, tz: chrono_tz::Tz) -> NaiveDate {
    hour.with_timezone(&tz).date_naive()
}

/// The last second of `day` in the site's zone: a trends day's place among the digests.
fn end_of_day(day: NaiveDate, tz: chrono_tz::Tz) -> DateTime<FixedOffset> {
    let next = day
        .succ_opt()
        .unwrap_or(day)
        .and_hms_opt(0, 0, 0)
        .expect("midnight");
    let start = tz
        .from_local_datetime(&next)
        .earliest()
        .unwrap_or_else(|| tz.from_utc_datetime(&next));
    (start - chrono::Duration::seconds(1)).fixed_offset()
}

/// The posts after `cursor`, oldest first, at most `max`: every digest, and (with `trends`)
/// each completed day's trends post, which comes after the day's last digest.
fn plan(
    files: &[DigestFile],
    cursor: Option<DateTime<FixedOffset>>,
    trends: bool,
    tz: chrono_tz::Tz,
    max: usize,
) -> Vec<(DateTime<FixedOffset>, Planned)> {
    let after = |t: DateTime<FixedOffset>| cursor.is_none_or(|c| t > c);
    // Start just before the first file after the cursor (its previous day may close there).
    let first = files.partition_point(|f| !after(f.hour)).saturating_sub(1);
    let mut out = Vec::new();
    for i in first..files.len() {
        if trends && i > 0 {
            let prev = day_of(&files[i - 1].hour, tz);
            if day_of(&files[i].hour, tz) > prev {
                let t = end_of_day(prev, tz);
                if after(t) {
                    out.push((t, Planned::Trends(i - 1)));
                }
            }
        }
        if after(files[i].hour) {
            out.push((files[i].hour, Planned::Digest(i)));
        }
        if out.len() >= max {
            break;
        }
    }
    out.truncate(max);
    out
}

/// Builds the posts the run needs (each once, shared by the targets).
struct Maker<'a> {
    config: &'a Config,
    base_url: &'a str,
    files: &'a [DigestFile],
    trend_feeds: Vec<&'a str>,
    made: BTreeMap<Planned, Option<Post>>,
}

impl Maker<'_> {
    fn get(&mut self, p: Planned) -> Result<Option<Post>> {
        if let Some(post) = self.made.get(&p) {
            return Ok(post.clone());
        }
        let post = match p {
            Planned::Digest(i) => self.digest(i)?,
            Planned::Trends(i) => self.trends(i)?,
        };
        self.made.insert(p, post.clone());
        Ok(post)
    }

    fn is_trend(&self, item: &crate::content::Item) -> bool {
        item.trend.is_some() || self.trend_feeds.contains(&item.feed.as_str())
    }

    fn trend_words<'b>(
        &self,
        items: impl Iterator<Item = &'b crate::content::Item>,
    ) -> Vec<TrendWord> {
        let mut words: Vec<TrendWord> = Vec::new();
        for it in items.filter(|it| self.is_trend(it)) {
            let volume = it.trend.as_ref().and_then(|t| t.volume);
            match words.iter_mut().find(|w| w.word == it.title) {
                Some(w) => w.volume = w.volume.max(volume),
                None => words.push(TrendWord {
                    word: it.title.clone(),
                    volume,
                }),
            }
        }
        words.sort_by_key(|w| std::cmp::Reverse(w.volume));
        words.truncate(10);
        words
    }

    fn digest(&self, i: usize) -> Result<Option<Post>> {
        let snap = Snapshot::load(&self.files[i].path)?;
        let tz = self.config.timezone;
        let news: Vec<_> = snap.items.iter().filter(|it| !self.is_trend(it)).collect();
        if snap.items.is_empty() {
            return Ok(None);
        }
        // The digest's 頻出ワード: most items first, then first seen.
        let mut counts: Vec<(String, usize)> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = Default::default();
        for it in &news {
            for k in &it.keywords {
                let i = *index.entry(k.to_lowercase()).or_insert_with(|| {
                    counts.push((k.clone(), 0));
                    counts.len() - 1
                });
                counts[i].1 += 1;
            }
        }
        counts.sort_by_key(|c| std::cmp::Reverse(c.1));
        let keywords: Vec<String> = counts.into_iter().take(10).map(|(w, _)| w).collect();
        let strings = crate::render::strings::Strings::of(self.config.language);
        let heading = strings.digest_heading(
            &snap
                .hour
                .with_timezone(&tz)
                .format("%Y-%m-%d %H:%M")
                .to_string(),
            snap.items.len(),
        );
        let description = cut_chars(
            &snap
                .items
                .iter()
                .take(3)
                .map(|it| it.title.as_str())
                .collect::<Vec<_>>()
                .join(" / "),
            300,
        );
        Ok(Some(Post {
            id: format!("digest:{}", crate::content::rfc3339(&snap.hour)),
            order: self.files[i].hour,
            template: "publish/post.txt",
            view: PostView {
                kind: "digest",
                site_title: self.config.title.clone(),
                heading,
                url: format!(
                    "{}{}",
                    self.base_url,
                    crate::content::digest_path(&snap.hour, tz)
                ),
                time: crate::content::rfc3339(&snap.hour),
                items: snap.items.len(),
                hashtags: text::hashtags(keywords.iter().map(String::as_str), 10),
                keywords,
                trend_words: self.trend_words(snap.items.iter()),
            },
            description,
        }))
    }

    fn trends(&self, last: usize) -> Result<Option<Post>> {
        let tz = self.config.timezone;
        let day = day_of(&self.files[last].hour, tz);
        let mut items = Vec::new();
        for f in self.files[..=last].iter().rev() {
            if day_of(&f.hour, tz) != day {
                break;
            }
            items.extend(Snapshot::load(&f.path)?.items);
        }
        let words = self.trend_words(items.iter());
        if words.is_empty() {
            return Ok(None);
        }
        let date = day.format("%Y-%m-%d").to_string();
        let heading = match self.config.language {
            Language::Ja => format!("{date} のトレンドワード"),
            Language::En => format!("Trend words of {date}"),
        };
        let description = cut_chars(
            &words
                .iter()
                .map(|w| w.word.as_str())
                .collect::<Vec<_>>()
                .join(" / "),
            300,
        );
        Ok(Some(Post {
            id: format!("trends:{date}"),
            order: end_of_day(day, tz),
            template: "publish/trends.txt",
            view: PostView {
                kind: "trends",
                site_title: self.config.title.clone(),
                heading,
                url: format!(
                    "{}{:04}/{:02}/{:02}/",
                    self.base_url,
                    day.year(),
                    day.month(),
                    day.day()
                ),
                time: crate::content::rfc3339(&end_of_day(day, tz)),
                items: words.len(),
                keywords: words.iter().map(|w| w.word.clone()).collect(),
                hashtags: text::hashtags(words.iter().map(|w| w.word.as_str()), 10),
                trend_words: words,
            },
            description,
        }))
    }
}

fn cut_chars(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut out: String = s.chars().take(n - 1).collect();
    out.push('…');
    out
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

/// One publish run over every `[[publish]]` target.
pub fn run(root: &Path, opts: &PublishOptions) -> Result<PublishReport> {
    let config = Config::load(root)?;
    let mut report = PublishReport::default();
    if config.publish.is_empty() {
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
    let mut state = PublishState::load(root)?;
    let files = digest_files(root, config.timezone)?;
    let newest = files.last().map(|f| f.hour);
    let trend_feeds: Vec<&str> = config
        .feeds
        .iter()
        .filter(|f| f.kind == FeedKind::Trends)
        .map(|f| f.url.as_str())
        .collect();
    let has_trends = !trend_feeds.is_empty();
    let mut maker = Maker {
        config: &config,
        base_url: &base_url,
        files: &files,
        trend_feeds,
        made: BTreeMap::new(),
    };
    let http = http_client()?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let lang = match config.language {
        Language::Ja => "ja",
        Language::En => "en",
    };
    let cx = targets::Context {
        http: &http,
        templates: &templates,
        base_url: &base_url,
        lang,
        now,
    };
    for t in &config.publish {
        let name = &t.name;
        let Some(ts) = state.targets.get(name).cloned() else {
            // First run: the mark, and nothing posted.
            let ts = TargetState {
                kind: t.kind.as_str().to_string(),
                created: Some(now),
                since: newest,
                ..Default::default()
            };
            state.targets.insert(name.clone(), ts);
            state.save(root)?;
            report.lines.push(match newest {
                Some(h) => format!(
                    "{name}: new target: posts digests after {} (the newest now); nothing posted this run",
                    crate::content::rfc3339(&h)
                ),
                None => format!("{name}: new target: the archive is empty; every digest from now on is posted"),
            });
            continue;
        };
        if !ts.is_due(now) {
            report.lines.push(format!(
                "{name}: deferred after {} failure(s) until {}",
                ts.consecutive_failures,
                ts.next_attempt
                    .map(|t| crate::content::rfc3339(&t))
                    .unwrap_or_default()
            ));
            continue;
        }
        let planned = plan(
            &files,
            ts.cursor(),
            t.trends && has_trends,
            config.timezone,
            t.max_posts_per_run,
        );
        if planned.is_empty() {
            report.lines.push(format!("{name}: nothing new"));
            continue;
        }
        let mut redactor = targets::Redactor::default();
        let creds = targets::credentials(t, &mut redactor);
        // A failure of this target: recorded (redacted) in the state and the report.
        let failed = |state: &mut PublishState, report: &mut PublishReport, error: String| {
            fail(state, report, name, now, error, &redactor)
        };
        let creds = match creds {
            Ok(c) => c,
            Err(e) => {
                failed(&mut state, &mut report, format!("{e:#}"));
                state.save(root)?;
                continue;
            }
        };
        let mut session = targets::Session::default();
        for (order, p) in planned {
            let post = match maker.get(p) {
                Ok(Some(post)) => post,
                Ok(None) => {
                    // An empty digest or a day without trend words: nothing to say, move on.
                    let ts = state.targets.get_mut(name).expect("target");
                    ts.posted_through = Some(order);
                    continue;
                }
                Err(e) => {
                    failed(&mut state, &mut report, format!("{e:#}"));
                    break;
                }
            };
            match rt.block_on(targets::send(&cx, t, &creds, &mut session, &post)) {
                Ok(remote) => {
                    report.lines.push(format!(
                        "{name}: posted {}{}",
                        post.id,
                        remote
                            .as_deref()
                            .map(|r| format!(" ({})", redactor.redact(r)))
                            .unwrap_or_default()
                    ));
                    report.posted += 1;
                    let ts = state.targets.get_mut(name).expect("target");
                    ts.record_post(now, order, &post.id, remote.map(|r| redactor.redact(&r)));
                    state.save(root)?;
                }
                Err(e) => {
                    failed(
                        &mut state,
                        &mut report,
                        format!("posting {}: {e:#}", post.id),
                    );
                    break;
                }
            }
        }
        state.save(root)?;
    }
    Ok(report)
}

fn fail(
    state: &mut PublishState,
    report: &mut PublishReport,
    name: &str,
    now: DateTime<FixedOffset>,
    error: String,
    redactor: &targets::Redactor,
) {
    let error = redactor.redact(&error);
    let ts = state.targets.get_mut(name).expect("target");
    ts.record_failure(name, now, error.clone());
    let retry = match ts.next_attempt {
        Some(t) => format!("retried after {}", crate::content::rfc3339(&t)),
        None => "retried at the next run".to_string(),
    };
    report.failed.push(format!("{name}: {error} ({retry})"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(hours: &[&str]) -> Vec<DigestFile> {
        hours
            .iter()
            .map(|h| DigestFile {
                hour: DateTime::parse_from_rfc3339(h).unwrap(),
                path: PathBuf::new(),
            })
            .collect()
    }

    #[test]
    fn plan_posts_after_the_cursor_and_closes_days_with_their_trends() {
        let tz = chrono_tz::Asia::Tokyo;
        let f = files(&[
            "2021-07-20T22:00:00+09:00",
            "2021-07-20T23:00:00+09:00",
            "2021-07-21T00:00:00+09:00",
            "2021-07-21T01:00:00+09:00",
        ]);
        let c = Some(f[1].hour);
        let p = plan(&f, c, true, tz, 10);
        assert_eq!(
            p.iter().map(|(_, p)| *p).collect::<Vec<_>>(),
            [Planned::Trends(1), Planned::Digest(2), Planned::Digest(3)]
        );
        assert_eq!(
            p[0].0,
            DateTime::parse_from_rfc3339("2021-07-20T23:59:59+09:00").unwrap()
        );
        // Without trends, after the last: nothing; a cap limits a backlog.
        assert!(plan(&f, Some(f[3].hour), true, tz, 10).is_empty());
        assert_eq!(plan(&f, None, false, tz, 2).len(), 2);
        // Once the trends post is through, it is not planned again.
        let p = plan(&f, Some(p[0].0), true, tz, 10);
        assert_eq!(
            p.iter().map(|(_, p)| *p).collect::<Vec<_>>(),
            [Planned::Digest(2), Planned::Digest(3)]
        );
    }
}
