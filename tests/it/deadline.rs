//! The fetch run's deadline and hostile descriptions (issue 11, finding 2), against the real test
//! HTTP server: a feed that drips forever is cut off at `[fetch] run_timeout` and recorded as
//! failed while the other feeds' items, a hostile description's among them, are archived.

use std::time::Duration;

use crate::fetch::{archived, files};
use crate::support::{FeedSpec, Response, Site, TestServer};

const NOW: &str = "2021-07-20T08:28:58+09:00";

/// An RSS 2.0 feed with one item whose description is the CDATA `description`.
fn rss_with_description(title: &str, description: &str) -> Vec<u8> {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><rss version=\"2.0\"><channel><title>{title}</title>\
         <link>http://example.com/</link><item><title>{title} item</title>\
         <link>http://example.com/{title}</link><guid>{title}-1</guid>\
         <pubDate>Tue, 20 Jul 2021 07:00:00 +0900</pubDate>\
         <description><![CDATA[{description}]]></description></item></channel></rss>"
    )
    .into_bytes()
}

#[test]
fn run_deadline_cuts_off_a_dripping_feed_and_keeps_the_rest() {
    let server = TestServer::new();
    // Headers at once, then one byte every 200 ms of a 100 KB feed: hours, far past the
    // per-request timeout of 60 s set below, so only the run deadline can end it.
    let mut endless = rss_with_description("drip", "x");
    endless.splice(0..0, std::iter::repeat_n(b' ', 100_000));
    server.route(
        "/drip",
        Response::rss(endless).trickle(Duration::from_millis(200)),
    );
    // Hostile descriptions that took minutes to clean (quadratic): archived at once now.
    let mut hostile = "本文の前置き。".to_string();
    hostile.push_str(&"<script></script>".repeat(20_000));
    hostile.push_str(&"<a".repeat(250_000));
    server.route(
        "/hostile",
        Response::rss(rss_with_description("hostile", &hostile)),
    );
    server.route("/rss2", Response::fixture("rss2.xml"));
    server.route("/atom", Response::fixture("atom.xml"));
    let mut site = Site::new().with_fetch(|f| {
        f.timeout = 60;
        f.max_body_bytes = 2 * 1024 * 1024;
    });
    site.config.fetch_extra = "run_timeout = 3".into();
    let urls: Vec<String> = ["/drip", "/hostile", "/rss2", "/atom"]
        .iter()
        .map(|p| server.url(p))
        .collect();
    let specs: Vec<FeedSpec> = urls.iter().map(|u| FeedSpec::new(u, "IT")).collect();
    site.write_config(&specs);

    let out = site.matome(&["fetch", "--now", NOW]);
    // Some feeds were fetched: exit 0, as for any partial failure (README: `matome fetch`).
    out.assert_code(0);
    assert!(
        out.elapsed >= Duration::from_secs(3) && out.elapsed < Duration::from_secs(12),
        "the run ends near its 3 s deadline: {out:?}"
    );
    assert!(
        out.stdout
            .contains("4 feeds: 3 ok, 0 not modified, 1 failed, 0 deferred"),
        "{out:?}"
    );
    assert!(
        out.stdout.contains(
            "run deadline reached (fetch.run_timeout = 3s): 1 unfinished feed(s) recorded as failed"
        ),
        "{out:?}"
    );
    let drip = &urls[0];
    assert!(
        out.stderr
            .lines()
            .any(|l| l.starts_with(&format!("error: {drip}: run deadline reached"))),
        "{out:?}"
    );
    let state = site.state();
    let fs = &state["feeds"][drip];
    assert_eq!(fs["consecutive_failures"], 1, "{fs}");
    assert!(
        fs["last_error"]
            .as_str()
            .unwrap()
            .contains("run deadline reached before this feed was fetched and parsed"),
        "{fs}"
    );
    for url in &urls[1..] {
        assert_eq!(state["feeds"][url]["consecutive_failures"], 0, "{url}");
    }

    // Everything fetched before the deadline is in the hour's snapshot: 1 + 3 + 3 items.
    assert_eq!(files(&site), ["content/2021/07/20/0800.md"]);
    let items = archived(&site);
    assert_eq!(items.len(), 7, "{items:#?}");
    let hostile = items
        .iter()
        .find(|i| i.feed == urls[1])
        .expect("the hostile feed's item is archived");
    assert!(
        hostile.text.starts_with("本文の前置き。<a<a"),
        "{hostile:?}"
    );
    assert!(
        hostile.text.chars().count() <= 1000,
        "bounded by max_text_chars"
    );
    assert!(items.iter().all(|i| i.feed != *drip));

    // With --strict the same kind of run exits 1 (README), and the stuck feed fails again.
    let out = site.matome(&["fetch", "--now", "2021-07-20T09:28:58+09:00", "--strict"]);
    out.assert_code(1);
    assert_eq!(site.state()["feeds"][drip]["consecutive_failures"], 2);
}
