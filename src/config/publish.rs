//! `[[publish]]` targets and `[alerts]` in matome.toml: their raw TOML shape, defaults and
//! validation (errors name the file, the line and the key, like the rest of the config).
//!
//! Only non-secret settings live here. Every credential is read from an environment variable
//! whose NAME the config holds (`password_env`, `token_env`, `url_env`, `secret_env`), with a
//! documented default, so matome.toml can be committed.

use std::path::PathBuf;

use anyhow::{Result, bail};
use serde::Deserialize;
use toml::Spanned;

/// Where a `[[publish]]` target posts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublishKind {
    /// Bluesky (AT Protocol): a session from a handle and an app password, then a post.
    Bluesky,
    /// Mastodon: `POST /api/v1/statuses` with an access token.
    Mastodon,
    /// A Slack incoming webhook.
    Slack,
    /// A Discord webhook.
    Discord,
    /// A generic JSON webhook (body documented in the README), optionally signed.
    Webhook,
}

impl PublishKind {
    /// The name written in matome.toml (`kind = "bluesky"`).
    pub fn as_str(self) -> &'static str {
        match self {
            PublishKind::Bluesky => "bluesky",
            PublishKind::Mastodon => "mastodon",
            PublishKind::Slack => "slack",
            PublishKind::Discord => "discord",
            PublishKind::Webhook => "webhook",
        }
    }

    /// The environment variable read for the target's secret when the config names none.
    pub fn default_secret_env(self) -> &'static str {
        match self {
            PublishKind::Bluesky => "MATOME_BLUESKY_APP_PASSWORD",
            PublishKind::Mastodon => "MATOME_MASTODON_TOKEN",
            PublishKind::Slack => "MATOME_SLACK_WEBHOOK_URL",
            PublishKind::Discord => "MATOME_DISCORD_WEBHOOK_URL",
            PublishKind::Webhook => "MATOME_WEBHOOK_SECRET",
        }
    }
}

/// One `[[publish]]` target.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishTarget {
    /// Unique among the targets; keys its record in `publish-state.json`. Default: the kind.
    pub name: String,
    pub kind: PublishKind,
    /// Bluesky: the account's handle (or DID), e.g. `matome.bsky.social`.
    pub handle: String,
    /// Bluesky: the PDS / entryway URL (default `https://bsky.social`). Mastodon: the instance
    /// URL (required). Webhook: the URL when it is not secret (else `url_env`).
    pub endpoint: String,
    /// The environment variable holding the secret: Bluesky app password, Mastodon access
    /// token, Slack/Discord webhook URL, or the generic webhook's URL (`url_env`).
    pub secret_env: String,
    /// Webhook: the environment variable holding the HMAC-SHA256 signing secret (optional: the
    /// body is signed only when the variable is set).
    pub signing_env: Option<String>,
    /// 頻出ワード shown as hashtags at most.
    pub hashtags: usize,
    /// Mastodon: the instance's character limit; default: read from `/api/v2/instance`,
    /// else 500.
    pub max_chars: Option<usize>,
    /// Mastodon: `public`, `unlisted`, `private` or `direct`.
    pub visibility: String,
    /// Also post the day's top trend words when a `kind = "trends"` feed is configured.
    pub trends: bool,
    /// Posts sent per run at most (a backlog after an outage drains over several runs).
    pub max_posts_per_run: usize,
}

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
pub(crate) struct RawPublish {
    kind: Spanned<String>,
    #[serde(default)]
    name: Option<Spanned<String>>,
    #[serde(default)]
    handle: Option<Spanned<String>>,
    #[serde(default)]
    service: Option<Spanned<String>>,
    #[serde(default)]
    instance: Option<Spanned<String>>,
    #[serde(default)]
    url: Option<Spanned<String>>,
    #[serde(default)]
    password_env: Option<Spanned<String>>,
    #[serde(default)]
    token_env: Option<Spanned<String>>,
    #[serde(default)]
    url_env: Option<Spanned<String>>,
    #[serde(default)]
    secret_env: Option<Spanned<String>>,
    #[serde(default)]
    hashtags: Option<usize>,
    #[serde(default)]
    max_chars: Option<Spanned<usize>>,
    #[serde(default)]
    visibility: Option<Spanned<String>>,
    #[serde(default)]
    trends: Option<bool>,
    #[serde(default)]
    max_posts_per_run: Option<Spanned<usize>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAlerts {
    #[serde(default)]
    feed_failing_hours: Option<Spanned<u32>>,
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
    port: Option<u16>,
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

type At<'a> = &'a dyn Fn(std::ops::Range<usize>) -> String;

fn env_name(v: &Spanned<String>, key: &str, at: At) -> Result<String> {
    let s = v.get_ref().trim();
    if s.is_empty() || !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        bail!(
            "{}: publish.{key} is the NAME of an environment variable (letters, digits, `_`), \
             such as \"MATOME_BLUESKY_APP_PASSWORD\"; never put the secret itself in matome.toml",
            at(v.span())
        );
    }
    Ok(s.to_string())
}

fn http_url(v: &Spanned<String>, key: &str, at: At) -> Result<String> {
    let s = v.get_ref().trim();
    crate::config::check_feed_url(s)
        .map_err(|why| anyhow::anyhow!("{}: {key}: {why}", at(v.span())))?;
    Ok(s.trim_end_matches('/').to_string())
}

/// Validates the `[[publish]]` tables.
pub(crate) fn publish_targets(raw: Vec<RawPublish>, at: At) -> Result<Vec<PublishTarget>> {
    let mut out: Vec<PublishTarget> = Vec::with_capacity(raw.len());
    for r in raw {
        let kind = match r.kind.get_ref().as_str() {
            "bluesky" => PublishKind::Bluesky,
            "mastodon" => PublishKind::Mastodon,
            "slack" => PublishKind::Slack,
            "discord" => PublishKind::Discord,
            "webhook" => PublishKind::Webhook,
            other => bail!(
                "{}: publish.kind must be \"bluesky\", \"mastodon\", \"slack\", \"discord\" or \"webhook\", not {other:?}",
                at(r.kind.span())
            ),
        };
        // A key that does not belong to this kind is an error, like an unknown key.
        let only = |v: Option<&Spanned<String>>, key: &str, kinds: &[PublishKind]| -> Result<()> {
            match v {
                Some(v) if !kinds.contains(&kind) => bail!(
                    "{}: publish.{key} does not apply to kind = {:?} (only to {})",
                    at(v.span()),
                    kind.as_str(),
                    kinds
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => Ok(()),
            }
        };
        use PublishKind::*;
        only(r.handle.as_ref(), "handle", &[Bluesky])?;
        only(r.service.as_ref(), "service", &[Bluesky])?;
        only(r.password_env.as_ref(), "password_env", &[Bluesky])?;
        only(r.instance.as_ref(), "instance", &[Mastodon])?;
        only(r.token_env.as_ref(), "token_env", &[Mastodon])?;
        only(r.visibility.as_ref(), "visibility", &[Mastodon])?;
        only(r.secret_env.as_ref(), "secret_env", &[Webhook])?;
        only(r.url_env.as_ref(), "url_env", &[Slack, Discord, Webhook])?;
        if let Some(u) = &r.url
            && kind != Webhook
        {
            bail!(
                "{}: publish.url is only for kind = \"webhook\"; a {} webhook URL is a secret: \
                 put it in the environment variable named by url_env (default {})",
                at(u.span()),
                kind.as_str(),
                kind.default_secret_env()
            );
        }
        if let Some(m) = &r.max_chars
            && kind != Mastodon
        {
            bail!(
                "{}: publish.max_chars only applies to kind = \"mastodon\"",
                at(m.span())
            );
        }
        let line = at(r.kind.span());
        let name = match &r.name {
            Some(n) if !n.get_ref().trim().is_empty() => n.get_ref().trim().to_string(),
            Some(n) => bail!("{}: publish.name must not be empty", at(n.span())),
            None => kind.as_str().to_string(),
        };
        if out.iter().any(|t| t.name == name) {
            bail!(
                "{line}: two [[publish]] targets are called {name:?}: give each a distinct `name` \
                 (it keys what was posted in publish-state.json)"
            );
        }
        let env = |v: &Option<Spanned<String>>, key: &str, default: &str| -> Result<String> {
            v.as_ref()
                .map(|v| env_name(v, key, at))
                .unwrap_or_else(|| Ok(default.to_string()))
        };
        let (handle, endpoint, secret_env, signing_env) = match kind {
            Bluesky => {
                let Some(h) = &r.handle else {
                    bail!(
                        "{line}: publish: kind = \"bluesky\" needs `handle` (e.g. \"matome.bsky.social\")"
                    );
                };
                let service = match &r.service {
                    Some(s) => http_url(s, "publish.service", at)?,
                    None => "https://bsky.social".to_string(),
                };
                (
                    h.get_ref().trim().trim_start_matches('@').to_string(),
                    service,
                    env(&r.password_env, "password_env", kind.default_secret_env())?,
                    None,
                )
            }
            Mastodon => {
                let Some(i) = &r.instance else {
                    bail!(
                        "{line}: publish: kind = \"mastodon\" needs `instance` (e.g. \"https://mastodon.social\")"
                    );
                };
                (
                    String::new(),
                    http_url(i, "publish.instance", at)?,
                    env(&r.token_env, "token_env", kind.default_secret_env())?,
                    None,
                )
            }
            Slack | Discord => (
                String::new(),
                String::new(),
                env(&r.url_env, "url_env", kind.default_secret_env())?,
                None,
            ),
            Webhook => {
                let endpoint = match &r.url {
                    Some(u) => http_url(u, "publish.url", at)?,
                    None => String::new(),
                };
                (
                    String::new(),
                    endpoint,
                    env(&r.url_env, "url_env", "MATOME_WEBHOOK_URL")?,
                    Some(env(&r.secret_env, "secret_env", kind.default_secret_env())?),
                )
            }
        };
        let visibility = match &r.visibility {
            None => "public".to_string(),
            Some(v)
                if ["public", "unlisted", "private", "direct"].contains(&v.get_ref().as_str()) =>
            {
                v.get_ref().clone()
            }
            Some(v) => bail!(
                "{}: publish.visibility must be \"public\", \"unlisted\", \"private\" or \"direct\"",
                at(v.span())
            ),
        };
        let max_chars = match &r.max_chars {
            None => None,
            Some(m) if *m.get_ref() >= 100 => Some(*m.get_ref()),
            Some(m) => bail!("{}: publish.max_chars must be at least 100", at(m.span())),
        };
        let max_posts_per_run = match &r.max_posts_per_run {
            None => 3,
            Some(m) if *m.get_ref() >= 1 => *m.get_ref(),
            Some(m) => bail!(
                "{}: publish.max_posts_per_run must be at least 1",
                at(m.span())
            ),
        };
        out.push(PublishTarget {
            name,
            kind,
            handle,
            endpoint,
            secret_env,
            signing_env,
            hashtags: r.hashtags.unwrap_or(3),
            max_chars,
            visibility,
            trends: r.trends.unwrap_or(true),
            max_posts_per_run,
        });
    }
    Ok(out)
}

/// Validates `[alerts]`.
pub(crate) fn alert_settings(
    raw: Option<RawAlerts>,
    name: &str,
    at: At,
) -> Result<Option<AlertSettings>> {
    let Some(raw) = raw else { return Ok(None) };
    let feed_failing_hours = match &raw.feed_failing_hours {
        None => 24,
        Some(h) if *h.get_ref() >= 1 => *h.get_ref(),
        Some(h) => bail!(
            "{}: alerts.feed_failing_hours must be at least 1",
            at(h.span())
        ),
    };
    let webhook_env = raw
        .webhook_env
        .as_ref()
        .map(|v| {
            env_name(v, "webhook_env", at)
                .map_err(|e| anyhow::anyhow!("{}", e.to_string().replace("publish.", "alerts.")))
        })
        .transpose()?;
    let email = match raw.email {
        None => None,
        Some(e) => {
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
            Some(EmailSettings {
                host,
                port: e.port.unwrap_or(587),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    const HEAD: &str = "title = \"t\"\nbase_url = \"https://u.github.io/r/\"\n";

    fn parse(tail: &str) -> Result<Config> {
        Config::parse(&format!("{HEAD}{tail}"), "matome.toml")
    }

    #[test]
    fn targets_get_their_defaults() {
        let c = parse(
            "[[publish]]\nkind = \"bluesky\"\nhandle = \"@me.bsky.social\"\n\n[[publish]]\nkind = \"mastodon\"\ninstance = \"https://mstdn.jp/\"\nmax_chars = 1000\n\n[[publish]]\nkind = \"slack\"\n",
        )
        .unwrap();
        let [b, m, s] = &c.publish[..] else {
            panic!("{:?}", c.publish)
        };
        assert_eq!(
            (b.name.as_str(), b.handle.as_str()),
            ("bluesky", "me.bsky.social")
        );
        assert_eq!(b.endpoint, "https://bsky.social");
        assert_eq!(b.secret_env, "MATOME_BLUESKY_APP_PASSWORD");
        assert_eq!(
            (m.endpoint.as_str(), m.max_chars),
            ("https://mstdn.jp", Some(1000))
        );
        assert_eq!(m.secret_env, "MATOME_MASTODON_TOKEN");
        assert_eq!(s.secret_env, "MATOME_SLACK_WEBHOOK_URL");
        assert_eq!((b.hashtags, b.max_posts_per_run, b.trends), (3, 3, true));
        assert!(c.alerts.is_none());
    }

    #[test]
    fn unknown_and_misplaced_keys_name_the_line() {
        let e = parse("\n[[publish]]\nkind = \"slack\"\ncolour = \"red\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("matome.toml:6:") && e.contains("colour"),
            "{e}"
        );
        let e = parse("[[publish]]\nkind = \"slack\"\nhandle = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("matome.toml:5:") && e.contains("handle"),
            "{e}"
        );
        let e = parse("[[publish]]\nkind = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("matome.toml:4:") && e.contains("bluesky"),
            "{e}"
        );
        let e = parse("[[publish]]\nkind = \"bluesky\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("needs `handle`"), "{e}");
    }

    #[test]
    fn a_secret_in_the_config_is_refused() {
        // A Slack or Discord webhook URL carries its token: only its variable's name goes here.
        let e = parse(
            "[[publish]]\nkind = \"slack\"\nurl = \"https://hooks.slack.com/services/T/B/X\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("url_env"), "{e}");
        let e = parse("[[publish]]\nkind = \"bluesky\"\nhandle = \"h\"\npassword_env = \"abcd-efgh-ijkl-mnop\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("NAME of an environment variable"), "{e}");
    }

    #[test]
    fn two_targets_of_a_kind_need_names() {
        let t = "[[publish]]\nkind = \"discord\"\n\n[[publish]]\nkind = \"discord\"\n";
        let e = parse(t).unwrap_err().to_string();
        assert!(e.contains("distinct `name`"), "{e}");
        let ok = parse(&t.replacen(
            "kind = \"discord\"\n",
            "kind = \"discord\"\nname = \"d2\"\nurl_env = \"D2\"\n",
            1,
        ))
        .unwrap();
        assert_eq!(ok.publish[0].name, "d2");
    }

    #[test]
    fn alerts_need_a_destination_and_valid_addresses() {
        let e = parse("[alerts]\nfeed_failing_hours = 12\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("webhook_env"), "{e}");
        let e = parse("[alerts.email]\nhost = \"smtp.example.jp\"\nfrom = \"not an address\"\nto = [\"a@example.jp\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("matome.toml:5:") && e.contains("alerts.email.from"),
            "{e}"
        );
        let c = parse("[alerts.email]\nhost = \"smtp.example.jp\"\nfrom = \"bot@example.jp\"\nto = [\"a@example.jp\"]\n").unwrap();
        let a = c.alerts.unwrap();
        assert_eq!(a.feed_failing_hours, 24);
        let m = a.email.unwrap();
        assert_eq!(
            (m.port, m.starttls, m.password_env.as_str()),
            (587, true, "MATOME_SMTP_PASSWORD")
        );
    }
}
