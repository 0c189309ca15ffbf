//! No way inward: what one feed's fetch may connect to.
//!
//! The curator trusts the origin they configured (its host and port), whatever it is and
//! whatever its name resolves to: a feed on 127.0.0.1 or on an intranet host works. Anything
//! else a fetch is led to, by a redirect or by a DNS answer, must be globally reachable
//! (`address::non_global`) or allowed by `[fetch] allow_private`. Checked twice:
//!
//! - **the redirect's URL** ([`Guard::check_redirect`]): an address written in it, in any
//!   spelling the URL parser reads (`2130706433`, `0x7f.1`, `127.1`, `[::ffff:127.0.0.1]`), and
//!   another port of the configured host when that host is private;
//! - **the DNS answer, at connect time** ([`Guard`] is the client's resolver): a name other
//!   than the configured host resolving to a non-global address is refused (mixed answers keep
//!   their global addresses), so `localhost` or a name an attacker points at 10.0.0.1 is not
//!   reached. The configured host's first answer is kept for the rest of the fetch (its later
//!   look-ups, a redirect to another of its ports), so a rebinding DNS cannot change it.
//!
//! The hosts of the proxies the environment names (`HTTPS_PROXY` and the like) are the
//! curator's too; behind a proxy the proxy resolves names, so only addresses written in URLs
//! are checked.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use super::address::non_global;
use crate::config::allow_private::AllowPrivate;

/// A name resolved to addresses a fetch may not reach.
#[derive(Debug, thiserror::Error)]
#[error(
    "refused: {host} resolves to {addr}, a {class} address (only the feed's own host and port may be private; fetch.allow_private allows more)"
)]
pub struct Refused {
    pub host: String,
    pub addr: IpAddr,
    pub class: &'static str,
}

/// One feed's fetch: its configured origin and what may be reached besides.
#[derive(Debug)]
pub struct Guard {
    /// The configured host, lower case, without a trailing dot (an address as the URL parser
    /// writes it, IPv6 without brackets).
    host: String,
    port: Option<u16>,
    allow: AllowPrivate,
    /// Proxy hosts from the environment.
    proxies: Vec<String>,
    /// The configured host's first DNS answer.
    pinned: tokio::sync::OnceCell<Vec<SocketAddr>>,
}

/// A host as compared: lower case, no trailing dot, IPv6 without brackets.
fn normalise(host: &str) -> String {
    host.trim_end_matches('.')
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

fn host_of(url: &url::Url) -> Option<String> {
    Some(match url.host()? {
        url::Host::Domain(d) => normalise(d),
        url::Host::Ipv4(a) => a.to_string(),
        url::Host::Ipv6(a) => a.to_string(),
    })
}

/// Hosts of the proxies reqwest takes from the environment.
pub fn proxy_hosts_from_env() -> Vec<String> {
    [
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
    ]
    .iter()
    .filter_map(|v| std::env::var(v).ok())
    .filter_map(|p| {
        let p = p.trim();
        let with_scheme = if p.contains("://") {
            p.to_string()
        } else {
            format!("http://{p}")
        };
        url::Url::parse(&with_scheme)
            .ok()
            .as_ref()
            .and_then(host_of)
    })
    .collect()
}

impl Guard {
    /// The guard of a fetch of `feed_url` (a configured feed URL, so http(s) with a host).
    pub fn new(feed_url: &str, allow: AllowPrivate, proxies: Vec<String>) -> Guard {
        let url = url::Url::parse(feed_url).ok();
        Guard {
            host: url.as_ref().and_then(host_of).unwrap_or_default(),
            port: url.as_ref().and_then(url::Url::port_or_known_default),
            allow,
            proxies,
            pinned: tokio::sync::OnceCell::new(),
        }
    }

    fn allowed(&self, ip: IpAddr) -> Option<&'static str> {
        non_global(ip).filter(|_| !self.allow.allows_ip(ip))
    }

    /// Whether a redirect to `url` may be followed; the error says why not.
    pub fn check_redirect(&self, url: &url::Url) -> Result<(), String> {
        let Some(host) = host_of(url) else {
            return Err(format!("redirect to {url}, which has no host"));
        };
        let same_host = host == self.host;
        if same_host && url.port_or_known_default() == self.port {
            return Ok(());
        }
        let why = |what: String| {
            format!(
                "redirect to {url} refused: {what} (only the feed's own host and port may be private; fetch.allow_private allows more)"
            )
        };
        if let Ok(ip) = host.parse::<IpAddr>() {
            if let Some(class) = self.allowed(ip) {
                return Err(why(format!("{ip} is a {class} address")));
            }
            return Ok(());
        }
        if same_host
            && !self.allow.allows_host(&host)
            && let Some(addrs) = self.pinned.get()
            && let Some((ip, class)) = addrs
                .iter()
                .find_map(|a| self.allowed(a.ip()).map(|c| (a.ip(), c)))
        {
            return Err(why(format!(
                "another port of the feed's host, which resolves to {ip}, a {class} address"
            )));
        }
        // Any other name is checked when it is resolved.
        Ok(())
    }

    /// The addresses a connection to `host` may use.
    async fn addresses(
        &self,
        host: &str,
    ) -> Result<Vec<SocketAddr>, Box<dyn std::error::Error + Send + Sync>> {
        if host == self.host {
            let addrs = self.pinned.get_or_try_init(|| lookup(host)).await?;
            return Ok(addrs.clone());
        }
        let addrs = lookup(host).await?;
        if self.allow.allows_host(host) || self.proxies.iter().any(|p| p == host) {
            return Ok(addrs);
        }
        let mut refused = None;
        let kept: Vec<SocketAddr> = addrs
            .into_iter()
            .filter(|a| match self.allowed(a.ip()) {
                Some(class) => {
                    refused.get_or_insert((a.ip(), class));
                    false
                }
                None => true,
            })
            .collect();
        match refused {
            Some((addr, class)) if kept.is_empty() => Err(Box::new(Refused {
                host: host.to_string(),
                addr,
                class,
            })),
            _ => Ok(kept),
        }
    }
}

async fn lookup(host: &str) -> std::io::Result<Vec<SocketAddr>> {
    Ok(tokio::net::lookup_host((host, 0)).await?.collect())
}

/// The client's resolver: [`Guard::addresses`].
pub struct Resolver(pub Arc<Guard>);

impl reqwest::dns::Resolve for Resolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let guard = self.0.clone();
        let host = normalise(name.as_str());
        Box::pin(async move {
            let addrs = guard.addresses(&host).await?;
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests;
