//! `matome alert`: tell the curator, once, about problems worth a human's attention, and once
//! more when each is solved.
//!
//! Problems: a feed failing for `[alerts] feed_failing_hours` (24 by default) according to
//! `fetch-state.json` (since its last success, or since matome first saw it failing if it never
//! worked), a `[[publish]]` target failing as long (per `publish-state.json`), and a workflow
//! step that failed, as the workflow reports it
//! (`matome alert --step build=failure`; `--step build=success` closes it). Each problem is one
//! entry in `publish-state.json` (committed), so an hourly run does not repeat an alert; an
//! alert that could not be delivered is tried again at the next run. A post a service refused
//! for good ([`Problem::Dropped`]) is alerted once, with no recovery. Destinations: a webhook
//! (URL from the environment; a JSON body with `text` for Slack and `content` for Discord) and
//! e-mail over SMTP with STARTTLS (lettre with rustls; login from the environment).
//!
//! Every message is matome's own words plus the error a feed or service gave, quoted through
//! [`crate::publish::inert`]: a feed's error can ping no one and link nowhere, on any
//! destination; the subject holds matome's words only.

use std::path::Path;

use anyhow::Result;
use chrono::{DateTime, FixedOffset};

use crate::config::Config;
use crate::fetch::state::FetchState;
use crate::publish::inert::{Medium, Message};
use crate::publish::state::{AlertState, Problem, PublishState};

/// How a workflow step (or job) ended, as GitHub Actions names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepOutcome {
    pub step: String,
    /// `true` for `success`, `false` for `failure`; other results are not passed on.
    pub ok: bool,
}

impl std::str::FromStr for StepOutcome {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (step, result) = s
            .split_once('=')
            .ok_or_else(|| format!("`{s}` is not STEP=RESULT, such as build=failure"))?;
        let step = step.trim();
        if step.is_empty()
            || !step
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!(
                "`{step}` is not a step name (letters, digits, - and _)"
            ));
        }
        let ok = match result.trim() {
            "success" => true,
            "failure" => false,
            other => {
                return Err(format!(
                    "`{other}`: the result is success or failure (skipped and cancelled steps \
                     are not passed; GitHub's `needs.JOB.result` gives these words)"
                ));
            }
        };
        Ok(StepOutcome {
            step: step.to_string(),
            ok,
        })
    }
}

/// Options of one alert run.
#[derive(Debug, Clone, Default)]
pub struct AlertOptions {
    pub now: Option<DateTime<FixedOffset>>,
    pub steps: Vec<StepOutcome>,
}

/// What an alert run did.
#[derive(Debug, Default)]
pub struct AlertReport {
    pub lines: Vec<String>,
    /// Deliveries that failed (retried at the next run).
    pub failed: Vec<String>,
    pub sent: usize,
}

/// Where the current state says a problem is.
enum Status {
    /// Failing; `due` once it has lasted long enough to alert. `message` is matome's words,
    /// `detail` the untrusted error (quoted inert).
    Open {
        due: bool,
        since: DateTime<FixedOffset>,
        message: String,
        detail: Option<String>,
    },
    /// Solved: a recovery goes to whoever had the alert.
    Solved,
    /// Gone without a recovery to tell (a dropped post once its record is gone).
    Forgotten,
    /// Nothing new is known (a step not reported this run): leave it as it is.
    Unchanged,
}

/// What an alert run reads.
struct Known<'a> {
    config: &'a Config,
    fetch: &'a FetchState,
    state: &'a PublishState,
    steps: &'a [StepOutcome],
    now: DateTime<FixedOffset>,
    threshold: chrono::Duration,
    run_url: Option<String>,
}

impl Known<'_> {
    /// Every problem known now or before.
    fn problems(&self) -> Vec<Problem> {
        let mut out: Vec<Problem> = self.state.alerts.keys().cloned().collect();
        for f in &self.config.feeds {
            if self
                .fetch
                .feeds
                .get(&f.url)
                .is_some_and(|s| s.consecutive_failures > 0)
            {
                out.push(Problem::Feed(f.url.clone()));
            }
        }
        for (name, t) in &self.state.targets {
            if t.consecutive_failures > 0 {
                out.push(Problem::Publish(name.clone()));
            }
            for d in &t.dropped {
                out.push(Problem::Dropped {
                    target: name.clone(),
                    post: d.post.clone(),
                });
            }
        }
        for s in self.steps {
            out.push(Problem::Step(s.step.clone()));
        }
        out.sort();
        out.dedup();
        out
    }

    /// `what` failing since `since` (else since the open alert, else now).
    fn failing(
        &self,
        p: &Problem,
        what: String,
        since: Option<DateTime<FixedOffset>>,
        failures: u32,
        error: Option<&str>,
    ) -> Status {
        let since = since
            .or(self.state.alerts.get(p).map(|o| o.since))
            .unwrap_or(self.now);
        Status::Open {
            due: since <= self.now - self.threshold,
            since,
            message: format!(
                "{what} has failed since {} ({failures} attempt(s) in a row)",
                crate::content::rfc3339(&since)
            ),
            detail: Some(error.unwrap_or("unknown error").to_string()),
        }
    }

    fn status(&self, p: &Problem) -> Status {
        let configured = |name: &str| self.config.publish.iter().any(|t| t.name == name);
        match p {
            Problem::Feed(url) => match self.fetch.feeds.get(url) {
                Some(fs)
                    if fs.consecutive_failures > 0
                        && self.config.feeds.iter().any(|f| &f.url == url) =>
                {
                    self.failing(
                        p,
                        format!("feed {url}"),
                        fs.last_success,
                        fs.consecutive_failures,
                        fs.last_error.as_deref(),
                    )
                }
                _ => Status::Solved,
            },
            Problem::Publish(name) => match self.state.targets.get(name) {
                Some(t) if t.consecutive_failures > 0 && configured(name) => self.failing(
                    p,
                    format!("publishing to {name}"),
                    t.failing_since,
                    t.consecutive_failures,
                    t.last_error.as_deref(),
                ),
                _ => Status::Solved,
            },
            Problem::Dropped { target, post } => {
                let d = self
                    .state
                    .targets
                    .get(target)
                    .filter(|_| configured(target))
                    .and_then(|t| t.dropped.iter().find(|d| &d.post == post));
                match d {
                    Some(d) => Status::Open {
                        due: true,
                        since: d.at,
                        message: format!(
                            "{target} refused {post} for good; it was dropped and the next posts                              went on"
                        ),
                        detail: Some(d.reason.clone()),
                    },
                    None => Status::Forgotten,
                }
            }
            Problem::Step(step) => match self.steps.iter().rev().find(|s| &s.step == step) {
                Some(s) if !s.ok => Status::Open {
                    due: true,
                    since: self
                        .state
                        .alerts
                        .get(p)
                        .map(|o| o.since)
                        .unwrap_or(self.now),
                    message: format!(
                        "the workflow's {step} step failed{}",
                        self.run_url
                            .as_deref()
                            .map(|u| format!(": {u}"))
                            .unwrap_or_default()
                    ),
                    detail: None,
                },
                Some(_) => Status::Solved,
                None => Status::Unchanged,
            },
            Problem::Other(_) => Status::Unchanged,
        }
    }
}

/// The body of an alert: matome's words, then the quoted error.
fn body(message: &str, detail: Option<&str>) -> Message {
    let m = Message::default().ours(message);
    match detail {
        Some(d) => m.ours(": ").quoted(d),
        None => m,
    }
}

/// One alert run.
pub fn run(root: &Path, opts: &AlertOptions) -> Result<AlertReport> {
    let config = Config::load(root)?;
    let mut report = AlertReport::default();
    let Some(settings) = &config.alerts else {
        report
            .lines
            .push("no [alerts] in matome.toml: nothing to do".into());
        return Ok(report);
    };
    let now = opts
        .now
        .unwrap_or_else(|| chrono::Utc::now().fixed_offset());
    let _lock = crate::fsutil::SiteLock::acquire_or_wait(root)?;
    let fetch = FetchState::load(root)?;
    let mut state = PublishState::load(root)?;
    let known = Known {
        config: &config,
        fetch: &fetch,
        state: &state,
        steps: &opts.steps,
        now,
        threshold: chrono::Duration::hours(i64::from(settings.feed_failing_hours)),
        run_url: run_url(),
    };
    let statuses: Vec<(Problem, Status)> = known
        .problems()
        .into_iter()
        .map(|p| {
            let s = known.status(&p);
            (p, s)
        })
        .collect();
    let out = Outbox {
        root,
        config: &config,
        dests: destinations(settings),
        now,
    };
    for (p, status) in statuses {
        match status {
            Status::Unchanged => {}
            Status::Forgotten => {
                state.alerts.remove(&p);
            }
            Status::Open {
                due,
                since,
                message,
                detail,
            } => out.open(&mut state, &mut report, &p, due, since, message, detail),
            Status::Solved => out.solved(&mut state, &mut report, &p),
        }
    }
    state.save(root)?;
    if report.sent == 0 && report.failed.is_empty() {
        let open = state
            .alerts
            .values()
            .filter(|a| a.alerted.is_some())
            .count();
        report
            .lines
            .push(format!("no new alert ({open} problem(s) already alerted)"));
    }
    Ok(report)
}

/// Sending alerts and recoveries, and recording who has them.
struct Outbox<'a> {
    root: &'a Path,
    config: &'a Config,
    dests: Vec<Destination<'a>>,
    now: DateTime<FixedOffset>,
}

impl Outbox<'_> {
    /// A problem that is open: alerted once it is due, to each destination once.
    #[allow(clippy::too_many_arguments)]
    fn open(
        &self,
        state: &mut PublishState,
        report: &mut AlertReport,
        p: &Problem,
        due: bool,
        since: DateTime<FixedOffset>,
        message: String,
        detail: Option<String>,
    ) {
        let entry = state.alerts.entry(p.clone()).or_insert_with(|| AlertState {
            since,
            message: message.clone(),
            alerted: None,
            sent_to: Vec::new(),
            recovered: None,
            recovery_sent_to: Vec::new(),
            detail: detail.clone(),
        });
        entry.since = since;
        // Failing again before the recovery went out: the alert still stands.
        entry.recovered = None;
        entry.recovery_sent_to.clear();
        if !due || entry.alerted.is_some() {
            return;
        }
        entry.message = message;
        entry.detail = detail;
        let subject = format!("[matome] {}: {}", self.config.title, short(&entry.message));
        let text = body(&entry.message, entry.detail.as_deref());
        for d in &self.dests {
            if entry.sent_to.contains(&d.name()) {
                continue;
            }
            match d.send(self.root, self.config, "problem", p, &subject, &text, since) {
                Ok(()) => {
                    entry.sent_to.push(d.name());
                    report.sent += 1;
                    report.lines.push(format!(
                        "alert sent ({}): {}",
                        d.name(),
                        text.render(Medium::Plain)
                    ));
                }
                Err(e) => report.failed.push(format!("alert to {}: {e:#}", d.name())),
            }
        }
        if self.dests.iter().all(|d| entry.sent_to.contains(&d.name())) {
            entry.alerted = Some(self.now);
        }
    }

    /// A problem that is solved: a recovery to every destination that had the alert.
    fn solved(&self, state: &mut PublishState, report: &mut AlertReport, p: &Problem) {
        let Some(entry) = state.alerts.get_mut(p) else {
            return;
        };
        if entry.sent_to.is_empty() {
            state.alerts.remove(p);
            return;
        }
        entry.recovered.get_or_insert(self.now);
        // A record from before matome kept the error apart holds it in the message: quoted.
        let text = match &entry.detail {
            Some(_) => Message::default().ours(format!("recovered: {}", entry.message)),
            None => Message::default()
                .ours("recovered: ")
                .quoted(&entry.message),
        };
        let subject = format!(
            "[matome] {}: {}",
            self.config.title,
            short(&format!("recovered: {}", entry.message))
        );
        for d in &self.dests {
            let n = d.name();
            if !entry.sent_to.contains(&n) || entry.recovery_sent_to.contains(&n) {
                continue;
            }
            match d.send(
                self.root,
                self.config,
                "recovered",
                p,
                &subject,
                &text,
                entry.since,
            ) {
                Ok(()) => {
                    entry.recovery_sent_to.push(n.clone());
                    report.sent += 1;
                    report
                        .lines
                        .push(format!("recovery sent ({n}): {}", entry.message));
                }
                Err(e) => report.failed.push(format!("recovery to {n}: {e:#}")),
            }
        }
        if entry
            .sent_to
            .iter()
            .all(|n| entry.recovery_sent_to.contains(n))
        {
            state.alerts.remove(p);
        }
    }
}

/// The first line of a message, at most 100 characters, for a subject.
fn short(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    if line.chars().count() <= 100 {
        return line.to_string();
    }
    let mut out: String = line.chars().take(99).collect();
    out.push('…');
    out
}

/// This workflow run's page on GitHub, when run by GitHub Actions.
fn run_url() -> Option<String> {
    let server = std::env::var("GITHUB_SERVER_URL").ok()?;
    let repo = std::env::var("GITHUB_REPOSITORY").ok()?;
    let id = std::env::var("GITHUB_RUN_ID").ok()?;
    Some(format!("{server}/{repo}/actions/runs/{id}"))
}

mod deliver;
use deliver::{Destination, destinations};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_outcomes_parse_github_results() {
        assert_eq!(
            "build=failure".parse::<StepOutcome>().unwrap(),
            StepOutcome {
                step: "build".into(),
                ok: false
            }
        );
        assert!("deploy=success".parse::<StepOutcome>().unwrap().ok);
        let e = "deploy=skipped".parse::<StepOutcome>().unwrap_err();
        assert!(e.contains("success or failure"), "{e}");
        assert!("build".parse::<StepOutcome>().is_err());
    }
}
