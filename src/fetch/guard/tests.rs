use super::*;

fn guard(feed: &str, allow: &[&str]) -> Guard {
    Guard::new(
        feed,
        AllowPrivate::parse(allow.iter().copied()).unwrap(),
        Vec::new(),
    )
}

fn redirect(g: &Guard, to: &str) -> Result<(), String> {
    g.check_redirect(&url::Url::parse(to).unwrap())
}

#[test]
fn a_redirect_to_a_decimal_loopback_address_is_refused() {
    let g = guard("https://news.example/feed.xml", &[]);
    let e = redirect(&g, "http://2130706433:8080/internal.xml").unwrap_err();
    assert!(e.contains("127.0.0.1 is a loopback address"), "{e}");
    assert!(e.contains("fetch.allow_private"), "{e}");
}

#[test]
fn a_redirect_to_a_private_address_is_refused_in_every_spelling() {
    let g = guard("https://news.example/feed.xml", &[]);
    for to in [
        "http://127.0.0.1/",
        "http://0x7f.1/",
        "http://0177.0.0.1/",
        "http://127.1/",
        "http://127.0.0.1./",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]:8080/",
        "http://10.0.0.1/",
        "http://0xa000001/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00::1]/",
        "http://[fe80::1]/",
        "http://100.64.0.1/",
        "http://224.0.0.1/",
        "http://0/",
        "http://0.0.0.0/",
        "http://255.255.255.255/",
        "https://192.168.0.1:8443/",
    ] {
        assert!(redirect(&g, to).is_err(), "{to} was followed");
    }
    // Global addresses and names (checked when resolved) are followed.
    for to in [
        "https://news.example/other.xml",
        "https://cdn.example/feed.xml",
        "http://93.184.216.34/",
        "http://[2606:4700::1111]/",
    ] {
        assert_eq!(redirect(&g, to), Ok(()), "{to}");
    }
}

#[test]
fn a_feed_on_a_private_origin_may_redirect_within_it_only() {
    let g = guard("http://127.0.0.1:8080/feed.xml", &[]);
    assert_eq!(redirect(&g, "http://127.0.0.1:8080/moved.xml"), Ok(()));
    assert_eq!(
        redirect(&g, "http://2130706433:8080/moved.xml"),
        Ok(()),
        "the same origin"
    );
    assert!(redirect(&g, "http://127.0.0.1:9090/internal.xml").is_err());
    assert!(redirect(&g, "http://127.0.0.2:8080/").is_err());
    assert!(redirect(&g, "http://10.0.0.1:8080/").is_err());
    // The configured host by name: its own port only, once its answer is known private.
    let g = guard("http://localhost:8080/feed.xml", &[]);
    assert_eq!(redirect(&g, "http://LOCALHOST.:8080/moved.xml"), Ok(()));
    g.pinned.set(vec!["127.0.0.1:0".parse().unwrap()]).unwrap();
    let e = redirect(&g, "http://localhost:9090/").unwrap_err();
    assert!(e.contains("another port of the feed's host"), "{e}");
}

#[test]
fn allow_private_widens_what_a_redirect_may_reach() {
    let g = guard(
        "https://news.example/feed.xml",
        &["10.0.0.0/8", "intranet.example"],
    );
    assert_eq!(redirect(&g, "http://10.1.2.3/feed.xml"), Ok(()));
    assert!(redirect(&g, "http://192.168.0.1/").is_err());
    let g = guard("http://intranet.example/feed.xml", &["intranet.example"]);
    g.pinned.set(vec!["10.0.0.1:0".parse().unwrap()]).unwrap();
    assert_eq!(redirect(&g, "http://intranet.example:8080/"), Ok(()));
}

#[tokio::test(flavor = "current_thread")]
async fn a_name_resolving_to_a_private_address_is_refused_unless_it_is_the_feeds() {
    // tokio's look-up reads an address written as a name without asking DNS, and localhost
    // comes from the hosts file: answers a test controls.
    let g = guard("https://news.example/feed.xml", &[]);
    let e = g.addresses("localhost").await.unwrap_err();
    assert!(e.downcast_ref::<Refused>().is_some(), "{e}");
    assert!(e.to_string().contains("loopback"), "{e}");
    let e = g.addresses("10.0.0.5").await.unwrap_err();
    assert!(
        e.to_string()
            .contains("10.0.0.5, a private (RFC 1918) address"),
        "{e}"
    );
    assert_eq!(
        g.addresses("93.184.216.34").await.unwrap(),
        vec!["93.184.216.34:0".parse::<SocketAddr>().unwrap()]
    );
    // The configured host resolves to whatever it resolves to, and keeps its first answer.
    let g = guard("http://localhost:8080/feed.xml", &[]);
    let first = g.addresses("localhost").await.unwrap();
    assert!(first.iter().all(|a| a.ip().is_loopback()), "{first:?}");
    assert_eq!(g.pinned.get(), Some(&first));
    // Allowed names and networks pass.
    let g = guard(
        "https://news.example/feed.xml",
        &["localhost", "10.0.0.0/8"],
    );
    assert!(g.addresses("localhost").await.is_ok());
    assert!(g.addresses("10.0.0.5").await.is_ok());
    // The environment's proxies are the curator's.
    let g = Guard::new(
        "https://news.example/feed.xml",
        AllowPrivate::default(),
        vec!["10.0.0.5".into()],
    );
    assert!(g.addresses("10.0.0.5").await.is_ok());
}
