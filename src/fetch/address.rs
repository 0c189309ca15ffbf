//! Which addresses are globally reachable: a fetch may reach those besides the feed's own origin
//! (and what `[fetch] allow_private` names: `config/allow_private.rs`).
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

#[cfg(test)]
mod tests;
