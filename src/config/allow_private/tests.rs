use super::*;

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[test]
fn allow_private_reads_networks_addresses_and_names() {
    let allow = AllowPrivate::parse(["10.0.0.0/8", "fd00::/8", "192.168.1.5", "Intranet.Example."])
        .unwrap();
    assert!(allow.allows_ip(ip("10.200.0.1")));
    assert!(
        allow.allows_ip(ip("::ffff:10.0.0.1")),
        "mapped addresses are their IPv4 one"
    );
    assert!(allow.allows_ip(ip("fd00::5")));
    assert!(allow.allows_ip(ip("192.168.1.5")));
    assert!(!allow.allows_ip(ip("192.168.1.6")));
    assert!(!allow.allows_ip(ip("127.0.0.1")));
    assert!(allow.allows_host("intranet.example"));
    assert!(allow.allows_host("INTRANET.example."));
    assert!(!allow.allows_host("other.example"));
    assert!(AllowPrivate::parse([]).unwrap().is_empty());
}

#[test]
fn allow_private_refuses_what_it_cannot_read_saying_why() {
    for (entry, says) in [
        ("10.0.0.0/33", "0–32"),
        ("fd00::/129", "0–128"),
        ("10.0.0.1/8", "the network is 10.0.0.0/8"),
        ("10.0.0.0/x", "0–32"),
        ("intranet/8", "not an IP address"),
        ("127.1", "127.0.0.1"),
        ("*.example", "neither"),
        ("", "neither"),
        ("a b", "neither"),
        ("host:8080", "neither"),
    ] {
        let e = AllowPrivate::parse([entry]).unwrap_err();
        assert!(e.contains(says), "{entry}: {e}");
    }
}
