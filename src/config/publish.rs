//! `[[publish]]` targets and `[alerts]` in matome.toml: their raw TOML shape, defaults and
//! validation (errors name the file, the line and the key, like the rest of the config).
//!
//! A target is one type per service ([`Service`]): the raw table is a serde enum tagged by
//! `kind`, each variant with its own keys and `deny_unknown_fields`, so a key that does not
//! belong to the kind is refused by the parser like any unknown key, and no field means
//! different things for different services.
//!
//! Only non-secret settings live here. Every credential is read from an environment variable
//! whose NAME the config holds (`password_env`, `token_env`, `url_env`, `secret_env`,
//! `consumer_key_env`, …), with a documented default, so matome.toml can be committed.

use anyhow::{Result, bail};
use serde::Deserialize;
use toml::Spanned;

use super::ranges::{Number, default_whole, whole};
use super::settings::{self as s, Setting};

/// What kind of service a target posts to (its `kind` in matome.toml).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PublishKind {
    Bluesky,
    Mastodon,
    Slack,
    Discord,
    Webhook,
    X,
    Hatena,
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
            PublishKind::X => "x",
            PublishKind::Hatena => "hatena",
        }
    }
}

/// One `[[publish]]` target: what every target has, and its service's own settings.
#[derive(Debug, Clone, PartialEq)]
pub struct PublishTarget {
    /// Unique among the targets; keys its record in `publish-state.json`. Default: the kind.
    pub name: String,
    /// 頻出ワード shown as hashtags at most.
    pub hashtags: usize,
    /// Also post the day's top trend words when a `kind = "trends"` feed is configured.
    pub trends: bool,
    /// Posts sent per run at most (a backlog after an outage drains over several runs).
    pub max_posts_per_run: usize,
    /// A post older than this many hours (its digest's hour) is skipped and recorded instead
    /// of sent late (default 24).
    pub max_age_hours: u32,
    /// What the target posts: each new digest (the default), or each story once it reaches
    /// `[stories] feed_min_sites` distinct sites (`what = "stories"`).
    pub what: PublishWhat,
    pub service: Service,
}

/// `what = "digests" | "stories"` of a `[[publish]]` target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PublishWhat {
    #[default]
    Digests,
    Stories,
}

impl PublishTarget {
    pub fn kind(&self) -> PublishKind {
        self.service.kind()
    }
}

/// Each service's own settings.
#[derive(Debug, Clone, PartialEq)]
pub enum Service {
    /// Bluesky (AT Protocol): a session from a handle and an app password, then a post.
    Bluesky(Bluesky),
    /// Mastodon: `POST /api/v1/statuses` with an access token.
    Mastodon(Mastodon),
    /// A Slack incoming webhook (its URL, a secret, in `url_env`).
    Slack(ChatWebhook),
    /// A Discord webhook (its URL, a secret, in `url_env`).
    Discord(ChatWebhook),
    /// A generic JSON webhook (body documented in the README), optionally signed.
    Webhook(Webhook),
    /// X: API v2 `POST /2/tweets`, OAuth 1.0a user context.
    X(OAuthService),
    /// Hatena Bookmark: REST API `POST /rest/1/my/bookmark`, OAuth 1.0a (`write_public`).
    Hatena(Hatena),
}

impl Service {
    pub fn kind(&self) -> PublishKind {
        match self {
            Service::Bluesky(_) => PublishKind::Bluesky,
            Service::Mastodon(_) => PublishKind::Mastodon,
            Service::Slack(_) => PublishKind::Slack,
            Service::Discord(_) => PublishKind::Discord,
            Service::Webhook(_) => PublishKind::Webhook,
            Service::X(_) => PublishKind::X,
            Service::Hatena(_) => PublishKind::Hatena,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bluesky {
    /// The account's handle (or DID), e.g. `matome.bsky.social`.
    pub handle: String,
    /// The PDS / entryway URL (default `https://bsky.social`).
    pub service: String,
    /// The variable holding the app password (default `MATOME_BLUESKY_APP_PASSWORD`).
    pub password_env: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mastodon {
    /// The instance URL (required), without a trailing `/`.
    pub instance: String,
    /// The variable holding the access token (default `MATOME_MASTODON_TOKEN`).
    pub token_env: String,
    /// `public`, `unlisted`, `private` or `direct`, as the curator set it (never from a feed).
    pub visibility: String,
    /// The instance's character limit; default: read from `/api/v2/instance`, else 500.
    pub max_chars: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatWebhook {
    /// The variable holding the webhook URL (it carries its token).
    pub url_env: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Webhook {
    /// Where the URL comes from: written in matome.toml, or from a variable.
    pub url: WebhookUrl,
    /// The variable holding the HMAC-SHA256 signing secret (the body is signed only when it is
    /// set; default `MATOME_WEBHOOK_SECRET`).
    pub secret_env: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum WebhookUrl {
    /// `url = "…"`: not a secret.
    Fixed(String),
    /// `url_env` (default `MATOME_WEBHOOK_URL`).
    Env(String),
}

/// An OAuth 1.0a service (X, Hatena Bookmark): its API root and the four variables holding
/// the consumer key and secret and the access token and secret.
#[derive(Debug, Clone, PartialEq)]
pub struct OAuthService {
    /// The API root, without a trailing `/` (`https://api.x.com`,
    /// `https://bookmark.hatenaapis.com`); a test points it at a local server.
    pub api: String,
    pub consumer_key_env: String,
    pub consumer_secret_env: String,
    pub access_token_env: String,
    pub access_token_secret_env: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Hatena {
    pub oauth: OAuthService,
    /// Items bookmarked per digest at most: its top items by their 頻出ワード (default 3).
    pub bookmarks_per_digest: usize,
    /// Only items of these categories (default: every category).
    pub categories: Vec<String>,
}

/// One `[[publish]]` table as written, with its place in the file.
pub(crate) type RawPublish = Spanned<RawTarget>;

/// A raw target struct: the keys every target takes, then its kind's own.
macro_rules! raw_target {
    ($name:ident { $($field:ident : $ty:ty),* $(,)? }) => {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(crate) struct $name {
            #[serde(default)]
            name: Option<String>,
            #[serde(default)]
            hashtags: Option<Number>,
            #[serde(default)]
            trends: Option<bool>,
            #[serde(default)]
            max_posts_per_run: Option<Number>,
            #[serde(default)]
            max_age_hours: Option<Number>,
            #[serde(default)]
            what: Option<String>,
            $(#[serde(default)] $field: Option<$ty>,)*
        }

        impl $name {
            fn common(&self) -> Common<'_> {
                Common {
                    name: self.name.as_deref(),
                    hashtags: self.hashtags,
                    trends: self.trends,
                    max_posts_per_run: self.max_posts_per_run,
                    max_age_hours: self.max_age_hours,
                    what: self.what.as_deref(),
                }
            }
        }
    };
}

raw_target!(RawBluesky {
    handle: String,
    service: String,
    password_env: String
});
raw_target!(RawMastodon {
    instance: String,
    token_env: String,
    visibility: String,
    max_chars: Number
});
raw_target!(RawChat {
    url_env: String,
    url: String
});
raw_target!(RawWebhook {
    url: String,
    url_env: String,
    secret_env: String
});
raw_target!(RawX {
    api: String,
    consumer_key_env: String,
    consumer_secret_env: String,
    access_token_env: String,
    access_token_secret_env: String
});
raw_target!(RawHatena {
    api: String,
    consumer_key_env: String,
    consumer_secret_env: String,
    access_token_env: String,
    access_token_secret_env: String,
    bookmarks_per_digest: Number,
    categories: Vec<String>
});

/// A `[[publish]]` table, by its `kind`.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum RawTarget {
    Bluesky(RawBluesky),
    Mastodon(RawMastodon),
    Slack(RawChat),
    Discord(RawChat),
    Webhook(RawWebhook),
    X(RawX),
    Hatena(RawHatena),
}

struct Common<'a> {
    name: Option<&'a str>,
    hashtags: Option<Number>,
    trends: Option<bool>,
    max_posts_per_run: Option<Number>,
    max_age_hours: Option<Number>,
    what: Option<&'a str>,
}

pub(crate) type At<'a> = &'a dyn Fn(std::ops::Range<usize>) -> String;

/// Where in one `[[publish]]` table a key is written: `file:line` of the key's line, else of
/// the table (the values of a tagged table carry no place of their own).
struct Table<'a> {
    text: &'a str,
    span: std::ops::Range<usize>,
    at: At<'a>,
}

impl Table<'_> {
    fn at(&self) -> String {
        (self.at)(self.span.clone())
    }

    fn key(&self, key: &str) -> String {
        // From the table's start to the next table header (its span may be the header only).
        let body = self.text.get(self.span.start..).unwrap_or("");
        let mut offset = self.span.start;
        for (i, line) in body.split_inclusive('\n').enumerate() {
            let t = line.trim_start();
            if i > 0 && t.starts_with('[') {
                break;
            }
            if let Some(rest) = t.strip_prefix(key)
                && rest.trim_start().starts_with('=')
            {
                return (self.at)(offset..offset);
            }
            offset += line.len();
        }
        self.at()
    }

    /// `key`'s value as the NAME of an environment variable, else `default`.
    fn env(&self, v: &Option<String>, key: &str, default: &str) -> Result<String> {
        match v {
            None => Ok(default.to_string()),
            Some(v) => {
                let s = v.trim();
                if s.is_empty() || !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    bail!(
                        "{}: publish.{key} is the NAME of an environment variable (letters, \
                         digits, `_`), such as {default:?}; never put the secret itself in \
                         matome.toml",
                        self.key(key)
                    );
                }
                Ok(s.to_string())
            }
        }
    }

    fn url(&self, v: &str, key: &str) -> Result<String> {
        let s = v.trim();
        crate::config::check_feed_url(s)
            .map_err(|why| anyhow::anyhow!("{}: publish.{key}: {why}", self.key(key)))?;
        Ok(s.trim_end_matches('/').to_string())
    }

    /// A whole number of this table checked against its declaration (`publish.KEY`), else the
    /// declared default.
    fn int<T: TryFrom<i64>>(&self, v: Option<Number>, s: &Setting) -> Result<T> {
        match v {
            None => default_whole(s),
            Some(n) => {
                let key = s.key.strip_prefix("publish.").unwrap_or(s.key);
                whole(n, s, &self.key(key))
            }
        }
    }
}

/// The default variable of an OAuth target's credential: `MATOME_<NAME>_<WHAT>`, the target's
/// name in capitals (`x` → `MATOME_X_CONSUMER_KEY`), so two targets never share one.
fn per_target_env(name: &str, what: &str) -> String {
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("MATOME_{name}_{what}")
}

#[allow(clippy::too_many_arguments)]
fn oauth(
    t: &Table,
    name: &str,
    api: &Option<String>,
    default_api: &str,
    ck: &Option<String>,
    cs: &Option<String>,
    at: &Option<String>,
    ats: &Option<String>,
) -> Result<OAuthService> {
    Ok(OAuthService {
        api: match api {
            Some(u) => t.url(u, "api")?,
            None => default_api.to_string(),
        },
        consumer_key_env: t.env(
            ck,
            "consumer_key_env",
            &per_target_env(name, "CONSUMER_KEY"),
        )?,
        consumer_secret_env: t.env(
            cs,
            "consumer_secret_env",
            &per_target_env(name, "CONSUMER_SECRET"),
        )?,
        access_token_env: t.env(
            at,
            "access_token_env",
            &per_target_env(name, "ACCESS_TOKEN"),
        )?,
        access_token_secret_env: t.env(
            ats,
            "access_token_secret_env",
            &per_target_env(name, "ACCESS_TOKEN_SECRET"),
        )?,
    })
}

/// One target's service settings, validated.
fn service(raw: &RawTarget, name: &str, t: &Table) -> Result<Service> {
    Ok(match raw {
        RawTarget::Bluesky(r) => Service::Bluesky(bluesky(r, t)?),
        RawTarget::Mastodon(r) => Service::Mastodon(mastodon(r, t)?),
        RawTarget::Slack(r) | RawTarget::Discord(r) => {
            let (kind, default) = match raw {
                RawTarget::Slack(_) => ("slack", "MATOME_SLACK_WEBHOOK_URL"),
                _ => ("discord", "MATOME_DISCORD_WEBHOOK_URL"),
            };
            if r.url.is_some() {
                bail!(
                    "{}: publish.url is only for kind = \"webhook\"; a {kind} webhook URL is a \
                     secret: put it in the environment variable named by url_env (default \
                     {default})",
                    t.key("url")
                );
            }
            let chat = ChatWebhook {
                url_env: t.env(&r.url_env, "url_env", default)?,
            };
            match raw {
                RawTarget::Slack(_) => Service::Slack(chat),
                _ => Service::Discord(chat),
            }
        }
        RawTarget::Webhook(r) => Service::Webhook(Webhook {
            url: match &r.url {
                Some(u) => WebhookUrl::Fixed(t.url(u, "url")?),
                None => WebhookUrl::Env(t.env(&r.url_env, "url_env", "MATOME_WEBHOOK_URL")?),
            },
            secret_env: t.env(&r.secret_env, "secret_env", "MATOME_WEBHOOK_SECRET")?,
        }),
        RawTarget::X(r) => Service::X(oauth(
            t,
            name,
            &r.api,
            "https://api.x.com",
            &r.consumer_key_env,
            &r.consumer_secret_env,
            &r.access_token_env,
            &r.access_token_secret_env,
        )?),
        RawTarget::Hatena(r) => Service::Hatena(Hatena {
            oauth: oauth(
                t,
                name,
                &r.api,
                "https://bookmark.hatenaapis.com",
                &r.consumer_key_env,
                &r.consumer_secret_env,
                &r.access_token_env,
                &r.access_token_secret_env,
            )?,
            bookmarks_per_digest: t
                .int(r.bookmarks_per_digest, &s::PUBLISH_BOOKMARKS_PER_DIGEST)?,
            categories: r.categories.clone().unwrap_or_default(),
        }),
    })
}

/// `kind = "bluesky"`: the handle (without `@`), the PDS, the app password's variable.
fn bluesky(r: &RawBluesky, t: &Table) -> Result<Bluesky> {
    let Some(h) = &r.handle else {
        bail!(
            "{}: publish: kind = \"bluesky\" needs `handle` (e.g. \"matome.bsky.social\")",
            t.at()
        );
    };
    Ok(Bluesky {
        handle: h.trim().trim_start_matches('@').to_string(),
        service: match &r.service {
            Some(s) => t.url(s, "service")?,
            None => "https://bsky.social".to_string(),
        },
        password_env: t.env(
            &r.password_env,
            "password_env",
            "MATOME_BLUESKY_APP_PASSWORD",
        )?,
    })
}

/// `kind = "mastodon"`: the instance, the token's variable, the visibility, the length limit.
fn mastodon(r: &RawMastodon, t: &Table) -> Result<Mastodon> {
    let Some(i) = &r.instance else {
        bail!(
            "{}: publish: kind = \"mastodon\" needs `instance` (e.g. \"https://mastodon.social\")",
            t.at()
        );
    };
    let visibility = match r.visibility.as_deref() {
        None => "public".to_string(),
        Some(v @ ("public" | "unlisted" | "private" | "direct")) => v.to_string(),
        Some(_) => bail!(
            "{}: publish.visibility must be \"public\", \"unlisted\", \"private\" or \"direct\"",
            t.key("visibility")
        ),
    };
    // Absent: the instance's own limit (`PUBLISH_MAX_CHARS.unset`), so no default here.
    let max_chars = match r.max_chars {
        None => None,
        Some(n) => Some(t.int(Some(n), &s::PUBLISH_MAX_CHARS)?),
    };
    Ok(Mastodon {
        instance: t.url(i, "instance")?,
        token_env: t.env(&r.token_env, "token_env", "MATOME_MASTODON_TOKEN")?,
        visibility,
        max_chars,
    })
}

fn kind_of(raw: &RawTarget) -> PublishKind {
    match raw {
        RawTarget::Bluesky(_) => PublishKind::Bluesky,
        RawTarget::Mastodon(_) => PublishKind::Mastodon,
        RawTarget::Slack(_) => PublishKind::Slack,
        RawTarget::Discord(_) => PublishKind::Discord,
        RawTarget::Webhook(_) => PublishKind::Webhook,
        RawTarget::X(_) => PublishKind::X,
        RawTarget::Hatena(_) => PublishKind::Hatena,
    }
}

fn common(raw: &RawTarget) -> Common<'_> {
    match raw {
        RawTarget::Bluesky(r) => r.common(),
        RawTarget::Mastodon(r) => r.common(),
        RawTarget::Slack(r) | RawTarget::Discord(r) => r.common(),
        RawTarget::Webhook(r) => r.common(),
        RawTarget::X(r) => r.common(),
        RawTarget::Hatena(r) => r.common(),
    }
}

/// Validates the `[[publish]]` tables (`text`: the config's text, for the lines of keys).
pub(crate) fn publish_targets(
    raw: Vec<RawPublish>,
    text: &str,
    at: At,
) -> Result<Vec<PublishTarget>> {
    let mut out: Vec<PublishTarget> = Vec::with_capacity(raw.len());
    for r in raw {
        let t = Table {
            text,
            span: r.span(),
            at,
        };
        let raw = r.get_ref();
        let kind = kind_of(raw);
        let c = common(raw);
        let name = match c.name {
            Some(n) if !n.trim().is_empty() => n.trim().to_string(),
            Some(_) => bail!("{}: publish.name must not be empty", t.key("name")),
            None => kind.as_str().to_string(),
        };
        if out.iter().any(|o| o.name == name) {
            bail!(
                "{}: two [[publish]] targets are called {name:?}: give each a distinct `name` \
                 (it keys what was posted in publish-state.json)",
                t.at()
            );
        }
        let service = service(raw, &name, &t)?;
        let what = match c.what.map(str::trim) {
            None | Some("digests") => PublishWhat::Digests,
            Some("stories") => PublishWhat::Stories,
            Some(other) => bail!(
                "{}: publish.what is \"digests\" (each new digest) or \"stories\" (each story \
                 once enough sites covered it), not {other:?}",
                t.key("what")
            ),
        };
        out.push(PublishTarget {
            hashtags: t.int(c.hashtags, &s::PUBLISH_HASHTAGS)?,
            trends: c.trends.unwrap_or(true),
            max_posts_per_run: t.int(c.max_posts_per_run, &s::PUBLISH_MAX_POSTS_PER_RUN)?,
            max_age_hours: t.int(c.max_age_hours, &s::PUBLISH_MAX_AGE_HOURS)?,
            what,
            name,
            service,
        });
    }
    Ok(out)
}

mod alerts;
pub use alerts::{AlertSettings, EmailSettings};
pub(crate) use alerts::{RawAlerts, alert_settings};

#[cfg(test)]
mod tests;
