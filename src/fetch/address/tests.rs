use super::*;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// The host of `url` as the URL parser reads it, judged.
fn judged(url: &str) -> Option<&'static str> {
    let u = url::Url::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
    match u.host() {
        Some(url::Host::Ipv4(v4)) => non_global(IpAddr::V4(v4)),
        Some(url::Host::Ipv6(v6)) => non_global(IpAddr::V6(v6)),
        other => panic!("{url}: not an address: {other:?}"),
    }
}

#[test]
fn loopback_in_every_spelling_is_not_global() {
    for url in [
        "http://127.0.0.1/",
        "http://2130706433/",
        "http://2130706433:8080/feed.xml",
        "http://0x7f000001/",
        "http://0x7f.0.0.1/",
        "http://0177.0.0.1/",
        "http://0177.0.0.01/",
        "http://127.1/",
        "http://127.0.1/",
        "http://127.0.0.1./",
        "http://2130706433./",
        "http://127.255.255.254/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]/",
        "http://[0:0:0:0:0:ffff:127.0.0.1]/",
        "http://[::127.0.0.1]/",
        "http://[64:ff9b::127.0.0.1]/",
        "http://[2002:7f00:1::]/",
    ] {
        assert_eq!(judged(url), Some("loopback"), "{url}");
    }
}

#[test]
fn every_non_global_class_is_refused() {
    for (addr, class) in [
        ("10.1.2.3", "private (RFC 1918)"),
        ("172.16.0.1", "private (RFC 1918)"),
        ("172.31.255.255", "private (RFC 1918)"),
        ("192.168.1.1", "private (RFC 1918)"),
        ("169.254.169.254", "link-local"),
        ("100.64.0.1", "shared (100.64.0.0/10)"),
        ("100.127.255.255", "shared (100.64.0.0/10)"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("0.1.2.3", "\"this network\" (0.0.0.0/8)"),
        ("255.255.255.255", "broadcast"),
        ("240.0.0.1", "reserved (240.0.0.0/4)"),
        ("192.0.2.1", "documentation"),
        ("198.18.0.1", "benchmarking (198.18.0.0/15)"),
        ("192.0.0.8", "IETF protocol assignment (192.0.0.0/24)"),
        ("::", "unspecified"),
        ("fc00::1", "unique-local (fc00::/7)"),
        ("fd12:3456::1", "unique-local (fc00::/7)"),
        ("fe80::1", "link-local"),
        ("ff02::1", "multicast"),
        ("ff0e::1", "multicast"),
        ("::ffff:10.0.0.1", "private (RFC 1918)"),
        ("::ffff:169.254.169.254", "link-local"),
        ("2001:db8::1", "documentation"),
        ("2001::1", "IETF protocol assignment (2001::/23)"),
        ("100::1", "discard-only (100::/64)"),
    ] {
        assert_eq!(non_global(ip(addr)), Some(class), "{addr}");
    }
    // The same in URL spellings the parser normalises.
    assert_eq!(judged("http://0xa.1/"), Some("private (RFC 1918)"));
    assert_eq!(judged("http://3232235777/"), Some("private (RFC 1918)"));
    assert_eq!(judged("http://0251.0376.0251.0376/"), Some("link-local"));
    assert_eq!(judged("http://0/"), Some("unspecified"));
    assert_eq!(
        judged("http://[fd00::1]:8080/"),
        Some("unique-local (fc00::/7)")
    );
}

#[test]
fn global_addresses_are_global() {
    for addr in [
        "93.184.216.34",
        "8.8.8.8",
        "1.1.1.1",
        "100.63.255.255",
        "100.128.0.0",
        "172.15.255.255",
        "172.32.0.0",
        "192.0.0.9",
        "192.88.99.1",
        "2606:4700::1111",
        "2001:4860:4860::8888",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
        "2001:1::1",
        "2001:20::1",
    ] {
        assert_eq!(non_global(ip(addr)), None, "{addr}");
    }
}
