//! `matome deploy` against a bucket s3s-fs cannot be (issue 21, finding 8): one holding keys
//! that are valid in S3 but never matome's (`site/backup//index.html`, `site/a/../b.html`), and
//! one that throttles (`503 SlowDown`, `Retry-After: 1`) for longer than a few quick retries
//! last. Both are the small S3 server of `support/fake_s3.rs`, on 127.0.0.1.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::deploy::{built_site_at, deploy, public};
use crate::support::fake_s3::FakeS3;

/// The bucket holds exactly public/ under `site/` (plus the manifest), byte for byte.
fn assert_mirrors(server: &FakeS3, site: &crate::support::Site) {
    let local = public(site);
    let remote: BTreeMap<String, Vec<u8>> = server
        .objects()
        .into_iter()
        .filter_map(|(k, o)| Some((k.strip_prefix("site/")?.to_string(), o.bytes)))
        .filter(|(k, _)| k != matome::deploy::DEPLOY_MANIFEST)
        .collect();
    let missing: Vec<&String> = local.keys().filter(|k| !remote.contains_key(*k)).collect();
    assert!(missing.is_empty(), "not uploaded: {missing:?}");
    for (k, v) in &local {
        assert!(remote[k] == *v, "{k} differs");
    }
}

/// Keys S3 holds that matome never writes: an empty segment, `..`, `.`, a folder marker, a
/// control character.
const FOREIGN: [&str; 5] = [
    "site/a/../b.html",
    "site/backup//index.html",
    "site/ctl\u{1}key.html",
    "site/dir/",
    "site/./x.html",
];

#[test]
fn keys_matome_never_writes_are_left_alone_and_named_and_the_deploy_goes_on() {
    // Pages of 7 keys: the odd keys land on several listing pages.
    let server = FakeS3::start(7, Duration::ZERO);
    for k in FOREIGN {
        server.put(k, b"not the site's");
    }
    server.put("site/stale/index.html", b"gone from the site");
    server.put("elsewhere/x.html", b"outside the prefix");
    let site = built_site_at(&server.endpoint(), "concurrency = 4\n");

    let out = deploy(&site, &["--dry-run"]);
    out.assert_success();
    assert!(
        out.stdout.contains("delete  stale/index.html"),
        "{}",
        out.stdout
    );
    for k in FOREIGN {
        assert!(
            !out.stdout.contains(&format!("delete  {}", &k[5..])),
            "{k} would be deleted:\n{}",
            out.stdout
        );
    }

    let out = deploy(&site, &[]);
    out.assert_success();
    let err = &out.stderr;
    assert!(
        err.contains("left alone: 5 object(s) under s3://news/site/"),
        "{err}"
    );
    for k in FOREIGN {
        assert!(err.contains(&format!("{k:?}")), "{k:?} is named: {err}");
    }
    // The site went up, the stale page went, and nothing foreign was touched.
    assert_mirrors(&server, &site);
    let objects = server.objects();
    assert!(!objects.contains_key("site/stale/index.html"));
    for k in FOREIGN.iter().chain(&["elsewhere/x.html"]) {
        assert!(objects.contains_key(*k), "{k} was deleted");
    }
    let touched: Vec<_> = server
        .log()
        .into_iter()
        .filter(|r| FOREIGN.contains(&r.key.as_str()))
        .collect();
    assert!(touched.is_empty(), "requests for foreign keys: {touched:?}");

    // The next deploy uploads nothing and still names them.
    let puts = server.log().iter().filter(|r| r.method == "PUT").count();
    let out = deploy(&site, &[]);
    out.assert_success();
    assert!(
        out.stderr.contains("left alone: 5 object(s)"),
        "{}",
        out.stderr
    );
    assert_eq!(
        server.log().iter().filter(|r| r.method == "PUT").count(),
        puts,
        "{}",
        out.stdout
    );
}

#[test]
fn a_bucket_that_keeps_throttling_is_waited_for_as_retry_after_says_and_the_deploy_finishes() {
    // From the first upload: 5 s of nothing but 503 SlowDown (longer than a few quick retries
    // last), then at most 40 requests a second.
    let server = FakeS3::start(1000, Duration::from_millis(5));
    server.throttle_from_first_upload(Duration::from_secs(5), 20.0, 40.0);
    let site = built_site_at(&server.endpoint(), "concurrency = 8\nretries = 4\n");
    let files = public(&site).len();

    let out = deploy(&site, &[]);
    out.assert_success();
    assert_mirrors(&server, &site);
    let log = server.log();
    let throttled: Vec<_> = log.iter().filter(|r| r.status == 503).collect();
    assert!(!throttled.is_empty(), "the bucket throttled");
    // Every throttled request was tried again only after the Retry-After: 1 it was given.
    for t in &throttled {
        let again = log
            .iter()
            .find(|r| r.at > t.at && r.method == t.method && r.key == t.key && r.query == t.query);
        if let Some(again) = again {
            let after = again.at - t.at;
            assert!(
                after >= Duration::from_millis(950),
                "{} {:?} again {after:?} after its 503",
                t.method,
                t.key
            );
        }
    }
    // Fewer requests at once, and the deploy backs off as one: far fewer throttled answers
    // than objects.
    assert!(
        out.stderr.contains("the bucket throttled") && out.stderr.contains("went down to"),
        "{}",
        out.stderr
    );
    assert!(
        throttled.len() < files / 2,
        "{} throttled answers for {files} files",
        throttled.len()
    );
    assert!(server.max_in_flight() <= 8, "{}", server.max_in_flight());
}

#[test]
fn a_bucket_that_never_stops_throttling_fails_the_deploy_once_throttle_wait_is_spent() {
    let server = FakeS3::start(1000, Duration::ZERO);
    server.throttle_from_first_upload(Duration::from_secs(3600), 1.0, 1.0);
    let site = built_site_at(
        &server.endpoint(),
        "concurrency = 4\nretries = 4\nthrottle_wait = 3\n",
    );
    let started = std::time::Instant::now();
    let out = deploy(&site, &[]);
    out.assert_failure();
    assert!(
        out.stderr
            .contains("the bucket kept throttling this request (HTTP 503"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("run it again"), "{}", out.stderr);
    // Bounded by throttle_wait (plus a last wait of at most 1.5 × Retry-After), not retried
    // by object_store on top.
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}
