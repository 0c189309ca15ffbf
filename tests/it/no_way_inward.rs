//! No way inward (issue 21, finding 2): a redirect or a DNS answer that leads from a feed's
//! configured origin to a loopback, private or otherwise non-global address is refused and
//! recorded as the feed's error; the configured origin itself (these servers are on 127.0.0.1)
//! works, and `[fetch] allow_private` allows more. The spellings of addresses are unit tests of
//! the check (`src/fetch/guard/tests.rs`, `src/fetch/address/tests.rs`).

use crate::fetch::archived;
use crate::support::{FeedSpec, Response, Site, TestServer};

const NOW: &str = "2021-07-20T08:28:58+09:00";

/// A CI server's feed, on another port of the same machine: nothing of it may be archived.
fn internal_feed() -> Response {
    Response::rss(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>CI</title><link>http://ci.internal/</link>\
         <item><title>deploy key: password=hunter2</title><guid>ci-1</guid><link>http://ci.internal/1</link></item>\
         </channel></rss>",
    )
}

fn public_feed() -> Response {
    Response::fixture("rss2.xml")
}

fn error_of(site: &Site, url: &str) -> String {
    site.state()["feeds"][url]["last_error"]
        .as_str()
        .unwrap_or_else(|| panic!("no error recorded for {url}: {}", site.state()))
        .to_string()
}

/// The scenario: a feed answers `302 Location: http://2130706433:PORT/…` (127.0.0.1
/// as a decimal number), where an internal feed has a password in a title. It was followed
/// and archived.
#[test]
fn a_redirect_to_a_decimal_loopback_address_is_not_followed() {
    let feed = TestServer::new();
    let internal = TestServer::new();
    internal.route("/ci.xml", internal_feed());
    feed.route(
        "/feed.xml",
        Response::redirect(
            302,
            &format!("http://2130706433:{}/ci.xml", internal.port()),
        ),
    );
    feed.route("/good.xml", public_feed());
    let site = Site::new();
    let url = feed.url("/feed.xml");
    site.write_config(&[
        FeedSpec::new(&url, "IT"),
        FeedSpec::new(&feed.url("/good.xml"), "IT"),
    ]);
    let out = site.matome(&["fetch", "--now", NOW]);
    out.assert_success();
    assert_eq!(
        internal.hits("/ci.xml"),
        0,
        "the internal server was reached"
    );
    let items = archived(&site);
    assert!(!items.is_empty(), "the other feed's items are archived");
    assert!(
        items.iter().all(|i| !i.title.contains("password")),
        "{items:#?}"
    );
    let error = error_of(&site, &url);
    assert!(error.contains("redirect"), "{error}");
    assert!(error.contains("127.0.0.1 is a loopback address"), "{error}");
    assert!(
        out.stderr.contains(&format!("error: {url}: redirect")),
        "{out:?}"
    );
}

/// Other spellings and classes the redirect check refuses, end to end: short form, hex,
/// IPv4-mapped IPv6, trailing dot, link-local metadata address, unspecified.
#[test]
fn redirects_to_other_spellings_of_inward_addresses_are_not_followed() {
    let feed = TestServer::new();
    let internal = TestServer::new();
    internal.route("/ci.xml", internal_feed());
    let port = internal.port();
    let targets = [
        format!("http://127.1:{port}/ci.xml"),
        format!("http://0x7f.0.0.1:{port}/ci.xml"),
        format!("http://[::ffff:127.0.0.1]:{port}/ci.xml"),
        format!("http://127.0.0.1.:{port}/ci.xml"),
        format!("http://0.0.0.0:{port}/ci.xml"),
        "http://169.254.169.254/latest/meta-data/".to_string(),
    ];
    let mut specs = Vec::new();
    for (i, to) in targets.iter().enumerate() {
        let path = format!("/r{i}.xml");
        feed.route(&path, Response::redirect(301, to));
        specs.push(FeedSpec::new(&feed.url(&path), "IT"));
    }
    let site = Site::new();
    site.write_config(&specs);
    let out = site.matome(&["fetch", "--now", NOW]);
    assert_eq!(internal.hits("/ci.xml"), 0, "{out:?}");
    assert!(out.stdout.contains("0 ok"), "{out:?}");
    for (i, to) in targets.iter().enumerate() {
        let error = error_of(&site, &feed.url(&format!("/r{i}.xml")));
        assert!(error.contains("refused"), "{to}: {error}");
    }
}

/// A name that resolves to a loopback address (`localhost`, from the hosts file) is refused
/// when the connection is made, not from the URL's text, unless it is the feed's own host.
#[test]
fn a_redirect_to_a_name_resolving_to_loopback_is_refused_at_connect_time() {
    let feed = TestServer::new();
    let internal = TestServer::new();
    internal.route("/ci.xml", internal_feed());
    feed.route(
        "/feed.xml",
        Response::redirect(302, &format!("http://localhost:{}/ci.xml", internal.port())),
    );
    let site = Site::new();
    let url = feed.url("/feed.xml");
    // The feed itself configured by that name works: the curator trusts what they configured.
    let by_name = format!("http://localhost:{}/good.xml", feed.port());
    feed.route("/good.xml", public_feed());
    site.write_config(&[FeedSpec::new(&url, "IT"), FeedSpec::new(&by_name, "IT")]);
    let out = site.matome(&["fetch", "--now", NOW]);
    out.assert_success();
    assert_eq!(internal.hits("/ci.xml"), 0, "{out:?}");
    let error = error_of(&site, &url);
    assert!(
        error.contains("refused: localhost resolves to") && error.contains("loopback"),
        "{error}"
    );
    assert!(archived(&site).iter().all(|i| i.feed == by_name));
    assert!(!archived(&site).is_empty());
}

/// A feed on a private origin (127.0.0.1 here) may redirect within its own host and port, and
/// to a global address, but not to another private origin, not even another port of its host.
#[test]
fn a_feed_on_a_private_origin_may_redirect_within_it_but_nowhere_else_inward() {
    let feed = TestServer::new();
    let internal = TestServer::new();
    internal.route("/ci.xml", internal_feed());
    feed.route("/old.xml", Response::redirect(301, "/new.xml"));
    feed.route("/new.xml", public_feed());
    feed.route(
        "/other-port.xml",
        Response::redirect(302, &internal.url("/ci.xml")),
    );
    let site = Site::new();
    site.write_config(&[
        FeedSpec::new(&feed.url("/old.xml"), "IT"),
        FeedSpec::new(&feed.url("/other-port.xml"), "IT"),
    ]);
    let out = site.matome(&["fetch", "--now", NOW]);
    out.assert_success();
    assert!(out.stdout.contains("1 ok"), "{out:?}");
    assert_eq!(feed.hits("/new.xml"), 1);
    assert_eq!(internal.hits("/ci.xml"), 0);
    let error = error_of(&site, &feed.url("/other-port.xml"));
    assert!(error.contains("loopback"), "{error}");
}

/// `[fetch] allow_private` names what a curator needs reached: then the same redirect is
/// followed. Its entries are checked with the file and line.
#[test]
fn allow_private_lets_a_curator_reach_a_named_network() {
    let feed = TestServer::new();
    let internal = TestServer::new();
    internal.route("/ci.xml", internal_feed());
    feed.route(
        "/feed.xml",
        Response::redirect(
            302,
            &format!("http://2130706433:{}/ci.xml", internal.port()),
        ),
    );
    let mut site = Site::new();
    site.config.fetch_extra = "allow_private = [\"127.0.0.0/8\"]\n".into();
    site.write_config(&[FeedSpec::new(&feed.url("/feed.xml"), "IT")]);
    site.matome(&["fetch", "--now", NOW]).assert_success();
    assert_eq!(internal.hits("/ci.xml"), 1);
    assert!(archived(&site).iter().any(|i| i.id == "ci-1"));

    for (entry, says) in [
        ("10.0.0.0/33", "prefix length must be 0–32"),
        ("10.0.0.1/8", "the network is 10.0.0.0/8"),
        ("*.example", "neither a network"),
    ] {
        site.config.fetch_extra = format!("allow_private = [\"ok.example\", \"{entry}\"]\n");
        let text = site.write_config(&[FeedSpec::new(&feed.url("/feed.xml"), "IT")]);
        let line = text
            .lines()
            .position(|l| l.starts_with("allow_private"))
            .unwrap()
            + 1;
        let out = site.matome(&["fetch", "--now", NOW]);
        assert_eq!(out.code, Some(2), "{out:?}");
        assert!(
            out.stderr.contains(&format!(
                "matome.toml:{line}: fetch.allow_private: `{entry}`"
            )),
            "{out:?}"
        );
        assert!(out.stderr.contains(says), "{out:?}");
    }
}
