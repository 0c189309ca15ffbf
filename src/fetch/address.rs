//! Which addresses a fetch may reach besides the feed's own: globally reachable ones, and what
//! `[fetch] allow_private` names.
//!
//! [`non_global`] is the IANA special-purpose registries' "not globally reachable" (the rule
//! of std's `IpAddr::is_global`, still unstable, so written out here), plus every multicast
//! address: loopback, RFC 1918 private, shared (100.64.0.0/10), link-local, unique-local
//! (fc00::/7), unspecified, broadcast, documentation, benchmarking, reserved, and IPv6 forms
//! that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`,
//! NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) judged by the IPv4 address they carry. Spellings
//! are the URL parser's concern: `url` reads `2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1` and
//! `127.0.0.1.` all as 127.0.0.1 before any of this sees them. Pure: no IO.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why `ip` is not globally reachable (a short class name for errors), or `None` if it is.
pub fn non_global(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => non_global_v4(v4),
        IpAddr::V6(v6) => non_global_v6(v6),
    }
}

fn non_global_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, d] = ip.octets();
    Some(match (a, b, c, d) {
        _ if ip.is_unspecified() => "unspecified",
        _ if ip.is_broadcast() => "broadcast",
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_private() => "private (RFC 1918)",
        _ if ip.is_link_local() => "link-local",
        _ if ip.is_multicast() => "multicast",
        (0, ..) => "\"this network\" (0.0.0.0/8)",
        (100, 64..=127, ..) => "shared (100.64.0.0/10)",
        // IETF protocol assignments, but for the two anycast relays documented as global.
        (192, 0, 0, x) if x != 9 && x != 10 => "IETF protocol assignment (192.0.0.0/24)",
        (192, 0, 2, _) | (198, 51, 100, _) | (203, 0, 113, _) => "documentation",
        (198, 18..=19, ..) => "benchmarking (198.18.0.0/15)",
        (240..=255, ..) => "reserved (240.0.0.0/4)",
        _ => return None,
    })
}

fn non_global_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    // Forms that carry an IPv4 address reach that address (or a translator in front of it).
    let carried = match s {
        [0, 0, 0, 0, 0, 0xffff, hi, lo] => Some((hi, lo)),
        [0, 0, 0, 0, 0, 0, hi, lo] if (hi, lo) > (0, 1) => Some((hi, lo)),
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some((hi, lo)),
        [0x2002, hi, lo, ..] => Some((hi, lo)),
        _ => None,
    };
    if let Some((hi, lo)) = carried {
        let v4 = Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
        return non_global_v4(v4);
    }
    Some(match s {
        _ if ip.is_unspecified() => "unspecified",
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_multicast() => "multicast",
        [a, ..] if a & 0xfe00 == 0xfc00 => "unique-local (fc00::/7)",
        [a, ..] if a & 0xffc0 == 0xfe80 => "link-local",
        [a, ..] if a & 0xffc0 == 0xfec0 => "site-local (deprecated, fec0::/10)",
        [0x64, 0xff9b, 1, ..] => "local-use IPv4/IPv6 translation (64:ff9b:1::/48)",
        [0x100, 0, 0, 0, ..] => "discard-only (100::/64)",
        [0x2001, 0xdb8, ..] | [0x3fff, 0..=0x0fff, ..] => "documentation",
        // IETF protocol assignments (2001::/23: Teredo, benchmarking, ORCHID) but those
        // documented as global.
        [0x2001, b, c, ..]
            if b < 0x200
                && !(b == 1 && s[2..7] == [0, 0, 0, 0, 0] && (s[7] == 1 || s[7] == 2))
                && b != 3
                && !(b == 4 && c == 0x112)
                && !(0x20..=0x2f).contains(&b) =>
        {
            "IETF protocol assignment (2001::/23)"
        }
        _ => return None,
    })
}

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
