//! `[fetch] allow_private`: the networks, addresses and host names a fetch may reach besides
//! each feed's own origin although they are not globally reachable (`fetch/guard.rs` applies
//! it). Each entry is checked when matome.toml is read: a prefix length in range, no bits past
//! the prefix, a plain host name. Pure: no IO.

use std::net::IpAddr;

/// `[fetch] allow_private`: networks (`10.0.0.0/8`, `fd00::/8`, or one address) and host names
/// (`intranet.example`) a fetch may reach although they are not global.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowPrivate {
    nets: Vec<ipnet::IpNet>,
    /// Lower case, without a trailing dot.
    hosts: Vec<String>,
}

impl AllowPrivate {
    /// Reads the setting's entries; an error names the entry and what is wrong with it.
    pub fn parse<'a>(entries: impl IntoIterator<Item = &'a str>) -> Result<AllowPrivate, String> {
        let mut allow = AllowPrivate::default();
        for entry in entries {
            allow.add(entry)?;
        }
        Ok(allow)
    }

    fn add(&mut self, entry: &str) -> Result<(), String> {
        let e = entry.trim();
        if let Some((addr, len)) = e.split_once('/') {
            let addr: IpAddr = addr.parse().map_err(|_| {
                format!("`{entry}`: `{addr}` is not an IP address (a network is written 10.0.0.0/8 or fd00::/8)")
            })?;
            let max = if addr.is_ipv4() { 32 } else { 128 };
            let len: u8 = len
                .parse()
                .ok()
                .filter(|l| *l <= max)
                .ok_or_else(|| format!("`{entry}`: the prefix length must be 0–{max}"))?;
            let net = ipnet::IpNet::new(addr, len).expect("length checked");
            if net.trunc() != net {
                return Err(format!(
                    "`{entry}` has bits set past its prefix: the network is {}",
                    net.trunc()
                ));
            }
            self.nets.push(net);
            return Ok(());
        }
        let bare = e.trim_start_matches('[').trim_end_matches(']');
        if let Ok(addr) = bare.parse::<IpAddr>() {
            self.nets.push(ipnet::IpNet::from(addr));
            return Ok(());
        }
        match url::Host::parse(e) {
            Ok(url::Host::Domain(d)) if !d.is_empty() && !d.contains(['*', ':', '/']) => {
                self.hosts.push(d.trim_end_matches('.').to_string());
                Ok(())
            }
            Ok(url::Host::Ipv4(v4)) => {
                // `url` reads some host names as IPv4 (`127.1`, `0x7f.1`): write them out.
                Err(format!(
                    "`{entry}` is the IPv4 address {v4}: write it as {v4} (or a network, {v4}/32)"
                ))
            }
            _ => Err(format!(
                "`{entry}` is neither a network (10.0.0.0/8, fd00::/8), an address nor a host name (intranet.example)"
            )),
        }
    }

    /// Whether `ip` is in an allowed network.
    pub fn allows_ip(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            v4 => v4,
        };
        self.nets.iter().any(|n| n.contains(&ip))
    }

    /// Whether the host name `host` is allowed (case and a trailing dot aside).
    pub fn allows_host(&self, host: &str) -> bool {
        let host = host.trim_end_matches('.');
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    pub fn is_empty(&self) -> bool {
        self.nets.is_empty() && self.hosts.is_empty()
    }
}

#[cfg(test)]
mod tests;
