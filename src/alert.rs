//! `matome alert`: tell the curator, once, about problems worth a human's attention, and once
//! more when each is solved.
//!
//! Problems: a feed failing for `[alerts] feed_failing_hours` (24 by default) according to
//! `fetch-state.json` (since its last success, or since matome first saw it failing if it never
//! worked), a `[[publish]]` target failing as long (per `publish-state.json`), and a workflow
//! step that failed, as the workflow reports it
//! (`matome alert --step build=failure`; `--step build=success` closes it). Each problem is one
//! entry in `publish-state.json` (committed), so an hourly run does not repeat an alert; an
//! alert that could not be delivered is tried again at the next run. Destinations: a webhook
//! (URL from the environment; a JSON body with `text` for Slack and `content` for Discord) and
//! e-mail over SMTP with STARTTLS (lettre with rustls; login from the environment).

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use chrono::{DateTime, FixedOffset};
use serde_json::json;

use crate::config::Config;
use crate::config::publish::{AlertSettings, EmailSettings};
use crate::fetch::state::FetchState;
use crate::publish::state::{AlertState, PublishState};
use crate::publish::targets::JsonBody;

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
    /// Failing; `due` once it has lasted long enough to alert.
    Open {
        due: bool,
        since: DateTime<FixedOffset>,
        message: String,
    },
    Solved,
    /// Nothing new is known (a step not reported this run): leave it as it is.
    Unchanged,
}

impl Status {
    /// `what` (a feed, a target) failing since `since`, due once that is at or before `due_by`.
    fn failing(
        what: String,
        since: DateTime<FixedOffset>,
        failures: u32,
        last_error: Option<&str>,
        due_by: DateTime<FixedOffset>,
    ) -> Status {
        Status::Open {
            due: since <= due_by,
            since,
            message: format!(
                "{what} has failed since {} ({failures} attempt(s) in a row): {}",
                crate::content::rfc3339(&since),
                last_error.unwrap_or("unknown error")
            ),
        }
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
    let threshold = chrono::Duration::hours(i64::from(settings.feed_failing_hours));
    let run_url = run_url();

    // Every problem known now or before.
    let mut keys: Vec<String> = state.alerts.keys().cloned().collect();
    for f in &config.feeds {
        if fetch
            .feeds
            .get(&f.url)
            .is_some_and(|s| s.consecutive_failures > 0)
        {
            keys.push(format!("feed:{}", f.url));
        }
    }
    for (name, t) in &state.targets {
        if t.consecutive_failures > 0 {
            keys.push(format!("publish:{name}"));
        }
    }
    for s in &opts.steps {
        keys.push(format!("step:{}", s.step));
    }
    keys.sort();
    keys.dedup();

    let configured: std::collections::HashSet<&str> =
        config.feeds.iter().map(|f| f.url.as_str()).collect();
    let dests = destinations(settings);
    for key in keys {
        let old = state.alerts.get(&key);
        // Failing since its own record says, else since the open alert, else now.
        let failing = |what: String,
                       since: Option<DateTime<FixedOffset>>,
                       failures: u32,
                       error: Option<&str>| {
            let since = since.or(old.map(|o| o.since)).unwrap_or(now);
            Status::failing(what, since, failures, error, now - threshold)
        };
        let status = if let Some(url) = key.strip_prefix("feed:") {
            match fetch.feeds.get(url) {
                Some(fs) if fs.consecutive_failures > 0 && configured.contains(url) => failing(
                    format!("feed {url}"),
                    fs.last_success,
                    fs.consecutive_failures,
                    fs.last_error.as_deref(),
                ),
                _ => Status::Solved,
            }
        } else if let Some(name) = key.strip_prefix("publish:") {
            match state.targets.get(name) {
                Some(t)
                    if t.consecutive_failures > 0
                        && config.publish.iter().any(|p| p.name == name) =>
                {
                    failing(
                        format!("publishing to {name}"),
                        t.failing_since,
                        t.consecutive_failures,
                        t.last_error.as_deref(),
                    )
                }
                _ => Status::Solved,
            }
        } else if let Some(step) = key.strip_prefix("step:") {
            match opts.steps.iter().rev().find(|s| s.step == step) {
                Some(s) if !s.ok => Status::Open {
                    due: true,
                    since: old.map(|o| o.since).unwrap_or(now),
                    message: format!(
                        "the workflow's {step} step failed{}",
                        run_url
                            .as_deref()
                            .map(|u| format!(": {u}"))
                            .unwrap_or_default()
                    ),
                },
                Some(_) => Status::Solved,
                None => Status::Unchanged,
            }
        } else {
            Status::Unchanged
        };
        match status {
            Status::Unchanged => {}
            Status::Open {
                due,
                since,
                message,
            } => {
                let entry = state
                    .alerts
                    .entry(key.clone())
                    .or_insert_with(|| AlertState {
                        since,
                        message: message.clone(),
                        alerted: None,
                        sent_to: Vec::new(),
                        recovered: None,
                        recovery_sent_to: Vec::new(),
                    });
                entry.since = since;
                // Failing again before the recovery went out: the alert still stands.
                entry.recovered = None;
                entry.recovery_sent_to.clear();
                if !due || entry.alerted.is_some() {
                    continue;
                }
                entry.message = message;
                let subject = format!("[matome] {}: {}", config.title, short(&entry.message));
                for d in &dests {
                    if entry.sent_to.contains(&d.name()) {
                        continue;
                    }
                    match d.send(
                        root,
                        &config,
                        "problem",
                        &key,
                        &subject,
                        &entry.message,
                        since,
                    ) {
                        Ok(()) => {
                            entry.sent_to.push(d.name());
                            report.sent += 1;
                            report.lines.push(format!(
                                "alert sent ({}): {}",
                                d.name(),
                                entry.message
                            ));
                        }
                        Err(e) => report.failed.push(format!("alert to {}: {e:#}", d.name())),
                    }
                }
                if dests.iter().all(|d| entry.sent_to.contains(&d.name())) {
                    entry.alerted = Some(now);
                }
            }
            Status::Solved => {
                let Some(entry) = state.alerts.get_mut(&key) else {
                    continue;
                };
                if entry.sent_to.is_empty() {
                    state.alerts.remove(&key);
                    continue;
                }
                entry.recovered.get_or_insert(now);
                let message = format!("recovered: {}", entry.message);
                let subject = format!("[matome] {}: {}", config.title, short(&message));
                for d in &dests {
                    let n = d.name();
                    if !entry.sent_to.contains(&n) || entry.recovery_sent_to.contains(&n) {
                        continue;
                    }
                    match d.send(
                        root,
                        &config,
                        "recovered",
                        &key,
                        &subject,
                        &message,
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
                    state.alerts.remove(&key);
                }
            }
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

enum Destination<'a> {
    Webhook(&'a str),
    Email(&'a EmailSettings),
}

fn destinations(s: &AlertSettings) -> Vec<Destination<'_>> {
    let mut out = Vec::new();
    if let Some(env) = &s.webhook_env {
        out.push(Destination::Webhook(env));
    }
    if let Some(e) = &s.email {
        out.push(Destination::Email(e));
    }
    out
}

impl Destination<'_> {
    fn name(&self) -> String {
        match self {
            Destination::Webhook(_) => "webhook".into(),
            Destination::Email(_) => "email".into(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn send(
        &self,
        root: &Path,
        config: &Config,
        event: &str,
        key: &str,
        subject: &str,
        message: &str,
        since: DateTime<FixedOffset>,
    ) -> Result<()> {
        let mut redactor = crate::publish::targets::Redactor::default();
        let r = match self {
            Destination::Webhook(env) => webhook(
                env,
                config,
                event,
                key,
                subject,
                message,
                since,
                &mut redactor,
            ),
            Destination::Email(e) => email(root, e, subject, message, &mut redactor),
        };
        r.map_err(|e| anyhow!("{}", redactor.redact(&format!("{e:#}"))))
    }
}

#[allow(clippy::too_many_arguments)]
fn webhook(
    env: &str,
    config: &Config,
    event: &str,
    key: &str,
    subject: &str,
    message: &str,
    since: DateTime<FixedOffset>,
    redactor: &mut crate::publish::targets::Redactor,
) -> Result<()> {
    let url = std::env::var(env)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| anyhow!("the environment variable {env} (alerts.webhook_env) is not set"))?;
    redactor.add(&url);
    let text = format!("{subject}\n{message}");
    let body = json!({
        "event": event,
        "problem": key,
        "message": message,
        "since": crate::content::rfc3339(&since),
        "site": config.title,
        "text": text,
        "content": text,
    });
    let client = crate::publish::http_client()?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(async {
        let r = client
            .post(url.trim())
            .json_body(&body)
            .send()
            .await
            .map_err(|e| anyhow!("the alert webhook ({env}): {}", e.without_url()))?;
        let status = r.status();
        if !status.is_success() {
            let text = r.text().await.unwrap_or_default();
            bail!(
                "HTTP {} from the alert webhook ({env}): {}",
                status.as_u16(),
                text.chars().take(300).collect::<String>().trim()
            );
        }
        Ok(())
    })
}

fn email(
    root: &Path,
    e: &EmailSettings,
    subject: &str,
    message: &str,
    redactor: &mut crate::publish::targets::Redactor,
) -> Result<()> {
    use lettre::transport::smtp::authentication::Credentials;
    use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
    use lettre::{Message, SmtpTransport, Transport};

    let mut msg = Message::builder()
        .from(e.from.parse().context("alerts.email.from")?)
        .subject(subject);
    for to in &e.to {
        msg = msg.to(to.parse().context("alerts.email.to")?);
    }
    let msg = msg
        .header(lettre::message::header::ContentType::TEXT_PLAIN)
        .body(format!("{message}\n\n-- \nmatome alert\n"))
        .context("composing the alert e-mail")?;

    let mut builder = if e.starttls {
        crate::publish::install_crypto_provider();
        let mut tls = TlsParameters::builder(e.host.clone());
        let ca = std::env::var_os("MATOME_SMTP_CA_FILE")
            .map(std::path::PathBuf::from)
            .or_else(|| e.ca_file.as_ref().map(|p| root.join(p)));
        if let Some(ca) = ca {
            let pem = std::fs::read(&ca).with_context(|| {
                format!(
                    "reading the CA file {} (alerts.email.ca_file or MATOME_SMTP_CA_FILE)",
                    ca.display()
                )
            })?;
            tls = tls.add_root_certificate(
                Certificate::from_pem(&pem)
                    .with_context(|| format!("{} is not a PEM certificate", ca.display()))?,
            );
        }
        let params = tls.build_rustls().context("setting up TLS for SMTP")?;
        SmtpTransport::builder_dangerous(e.host.as_str()).tls(Tls::Required(params))
    } else {
        SmtpTransport::builder_dangerous(e.host.as_str())
    };
    builder = builder.port(e.port).timeout(Some(Duration::from_secs(30)));
    let user = std::env::var(&e.user_env).ok().filter(|v| !v.is_empty());
    let password = std::env::var(&e.password_env)
        .ok()
        .filter(|v| !v.is_empty());
    match (user, password) {
        (Some(u), Some(p)) => {
            redactor.add(&p);
            builder = builder.credentials(Credentials::new(u, p));
        }
        (None, None) => {}
        _ => bail!(
            "set both {} and {} (the SMTP login), or neither",
            e.user_env,
            e.password_env
        ),
    }
    builder
        .build()
        .send(&msg)
        .with_context(|| format!("sending the alert e-mail via {}:{}", e.host, e.port))?;
    Ok(())
}

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
