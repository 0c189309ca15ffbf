//! `[alerts]` in matome.toml: where `matome alert` tells the curator (a webhook whose URL is
//! in an environment variable, SMTP), validated with file:line errors like the rest.

use std::path::PathBuf;

use anyhow::{Result, bail};
use serde::Deserialize;
use toml::Spanned;

use super::At;
use crate::config::ranges::{Int, Ranges};
use crate::config::settings as s;

/// `[alerts]`: where a curator is told about problems worth a human's attention.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AlertSettings {
    /// A feed is a problem once it has failed for this many hours (default 24).
    pub feed_failing_hours: u32,
    /// The environment variable holding the alert webhook URL (`webhook_env`); none: no webhook.
    pub webhook_env: Option<String>,
    /// `[alerts.email]`.
    pub email: Option<EmailSettings>,
}

/// `[alerts.email]`: mail over SMTP, with STARTTLS unless `starttls = false`.
#[derive(Debug, Clone, PartialEq)]
pub struct EmailSettings {
    pub host: String,
    pub port: u16,
    pub from: String,
    pub to: Vec<String>,
    /// Environment variables holding the SMTP login (both optional: no AUTH when unset).
    pub user_env: String,
    pub password_env: String,
    /// STARTTLS is required (default). `false` sends in clear: only for a relay on the same host.
    pub starttls: bool,
    /// An extra CA certificate (PEM) to trust, for a relay with a private CA; relative to the
    /// site root. The `MATOME_SMTP_CA_FILE` environment variable overrides it.
    pub ca_file: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAlerts {
    #[serde(default)]
    feed_failing_hours: Int,
    #[serde(default)]
    webhook_env: Option<Spanned<String>>,
    #[serde(default)]
    email: Option<RawEmail>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawEmail {
    host: Spanned<String>,
    #[serde(default)]
    port: Int,
    from: Spanned<String>,
    to: Spanned<Vec<String>>,
    #[serde(default)]
    user_env: Option<String>,
    #[serde(default)]
    password_env: Option<String>,
    #[serde(default)]
    starttls: Option<bool>,
    #[serde(default)]
    ca_file: Option<PathBuf>,
}

fn env_name(v: &Spanned<String>, key: &str, at: At) -> Result<String> {
    let s = v.get_ref().trim();
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        bail!(
            "{}: alerts.{key} is the NAME of an environment variable (letters, digits, `_`), \
             such as \"MATOME_ALERT_WEBHOOK_URL\"; never put the secret itself in matome.toml",
            at(v.span())
        );
    }
    Ok(s.to_string())
}

/// Validates `[alerts]`.
pub(crate) fn alert_settings(
    raw: Option<RawAlerts>,
    name: &str,
    at: At,
) -> Result<Option<AlertSettings>> {
    let Some(raw) = raw else { return Ok(None) };
    let feed_failing_hours =
        Ranges { at }.int(raw.feed_failing_hours, &s::ALERTS_FEED_FAILING_HOURS)?;
    let webhook_env = raw
        .webhook_env
        .as_ref()
        .map(|v| env_name(v, "webhook_env", at))
        .transpose()?;
    let email = match raw.email {
        None => None,
        Some(e) => Some(email_settings(e, at)?),
    };
    if webhook_env.is_none() && email.is_none() {
        bail!(
            "{name}: [alerts] says where to send alerts: set `webhook_env` (the environment variable holding \
             the webhook URL) and/or an [alerts.email] table"
        );
    }
    Ok(Some(AlertSettings {
        feed_failing_hours,
        webhook_env,
        email,
    }))
}

fn email_settings(e: RawEmail, at: At) -> Result<EmailSettings> {
    let host = e.host.get_ref().trim().to_string();
    if host.is_empty() {
        bail!("{}: alerts.email.host must not be empty", at(e.host.span()));
    }
    let from = e.from.get_ref().trim().to_string();
    if from.parse::<lettre::message::Mailbox>().is_err() {
        bail!(
            "{}: alerts.email.from must be an e-mail address such as \"matome <bot@example.jp>\", not {from:?}",
            at(e.from.span())
        );
    }
    if e.to.get_ref().is_empty() {
        bail!(
            "{}: alerts.email.to must list at least one address",
            at(e.to.span())
        );
    }
    for t in e.to.get_ref() {
        if t.parse::<lettre::message::Mailbox>().is_err() {
            bail!(
                "{}: alerts.email.to: {t:?} is not an e-mail address",
                at(e.to.span())
            );
        }
    }
    Ok(EmailSettings {
        host,
        port: Ranges { at }.int(e.port, &s::ALERTS_EMAIL_PORT)?,
        from,
        to: e.to.into_inner(),
        user_env: e.user_env.unwrap_or_else(|| "MATOME_SMTP_USER".into()),
        password_env: e
            .password_env
            .unwrap_or_else(|| "MATOME_SMTP_PASSWORD".into()),
        starttls: e.starttls.unwrap_or(true),
        ca_file: e.ca_file,
    })
}
