//! Delivering an alert: to the webhook (one JSON body that Slack reads as `text` and Discord as
//! `content`, each made inert for its reader) and over SMTP (lettre, STARTTLS), with every
//! secret redacted from what an error says.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use chrono::{DateTime, FixedOffset};
use serde_json::json;

use crate::config::Config;
use crate::config::publish::{AlertSettings, EmailSettings};
use crate::publish::inert::{self, Medium, Message};
use crate::publish::state::Problem;
use crate::publish::targets::JsonBody;

pub(super) enum Destination<'a> {
    Webhook(&'a str),
    Email(&'a EmailSettings),
}

pub(super) fn destinations(s: &AlertSettings) -> Vec<Destination<'_>> {
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
    pub(super) fn name(&self) -> String {
        match self {
            Destination::Webhook(_) => "webhook".into(),
            Destination::Email(_) => "email".into(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn send(
        &self,
        root: &Path,
        config: &Config,
        event: &str,
        problem: &Problem,
        subject: &str,
        message: &Message,
        since: DateTime<FixedOffset>,
    ) -> Result<()> {
        let mut redactor = crate::publish::targets::Redactor::default();
        let r = match self {
            Destination::Webhook(env) => webhook(
                env,
                config,
                &Alert {
                    event,
                    problem,
                    subject,
                    message,
                    since,
                },
                &mut redactor,
            ),
            Destination::Email(e) => email(root, e, subject, message, &mut redactor),
        };
        r.map_err(|e| anyhow!("{}", redactor.redact(&format!("{e:#}"))))
    }
}

/// One alert as it goes out.
struct Alert<'a> {
    event: &'a str,
    problem: &'a Problem,
    /// matome's words only.
    subject: &'a str,
    message: &'a Message,
    since: DateTime<FixedOffset>,
}

/// The alert webhook's body: the plain fields (untrusted parts defanged), `text` for Slack and
/// `content` for Discord, each made inert for its reader, with nothing to ping, unfurl or embed.
fn webhook_body(config: &Config, a: &Alert) -> serde_json::Value {
    let slack = format!(
        "{}\n{}",
        inert::escape(Medium::SlackMrkdwn, a.subject),
        a.message.render(Medium::SlackMrkdwn)
    );
    let discord = format!(
        "{}\n{}",
        inert::escape(Medium::DiscordMarkdown, a.subject),
        a.message.render(Medium::DiscordMarkdown)
    );
    let mut body = json!({
        "event": a.event,
        "problem": a.problem.key(),
        "message": a.message.render(Medium::Plain),
        "since": crate::content::rfc3339(&a.since),
        "site": config.title,
    });
    for (k, v) in [
        inert::slack_body(&slack),
        inert::discord_body(&discord, true),
    ]
    .into_iter()
    .filter_map(|v| v.as_object().cloned())
    .flatten()
    {
        // Slack's blocks repeat its text; the alert keeps to `text` (its fallback shape).
        if k != "blocks" {
            body[k] = v;
        }
    }
    body
}

fn webhook(
    env: &str,
    config: &Config,
    alert: &Alert,
    redactor: &mut crate::publish::targets::Redactor,
) -> Result<()> {
    let url = std::env::var(env)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| anyhow!("the environment variable {env} (alerts.webhook_env) is not set"))?;
    redactor.add(&url);
    let body = webhook_body(config, alert);
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
    message: &Message,
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
        .body(format!(
            "{}\n\n-- \nmatome alert\n",
            message.render(Medium::Plain)
        ))
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
