//! Issue 21, finding 7: what one feed can add to the site. A hostile feed sends the most a run
//! takes (200 new items, `fetch.max_items_per_feed`) every hour, items in pairs sharing three
//! made-up names, each pair's names new. Before, each pair made three keyword pages: 7,204 pages
//! (23.5 MB; 29.7 MB in all) a day. Now a keyword needs two sites (`build.keyword_min_sites`),
//! a feed cannot pose as many sites, and a feed gets at most `fetch.max_items_per_feed_day`
//! new items a day (the rest wait), so a month of it adds under 10 MB, measured on a real build.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::support::{FeedSpec, Response, Site, TestServer};

const SYLLABLES: [&str; 18] = [
    "ka", "zor", "vel", "mi", "tra", "quo", "bel", "nex", "dra", "lum", "phi", "sar", "tov", "rin",
    "gal", "ops", "yen", "wek",
];

/// A made-up name: number `n` in a four-syllable alphabet.
fn name(n: usize, salt: usize) -> String {
    let mut n = n * 7 + salt;
    let mut s = String::new();
    for _ in 0..4 {
        s.push_str(SYLLABLES[n % SYLLABLES.len()]);
        n /= SYLLABLES.len();
    }
    let mut c = s.chars();
    c.next().unwrap().to_uppercase().chain(c).collect()
}

/// Serves `per_request` new items on every request, items 2k and 2k+1 sharing three names. The
/// counter says how many items it has sent.
fn flood(server: &TestServer, path: &str, per_request: usize) -> Arc<AtomicUsize> {
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&sent);
    server.route(path, move |_: &crate::support::Request, _| {
        let start = counter.fetch_add(per_request, Ordering::SeqCst);
        let mut xml = String::from(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Flood</title>\
             <link>https://flood.example/</link>",
        );
        for i in start..start + per_request {
            let p = i / 2;
            let (a, b, c) = (name(p, 1), name(p, 2), name(p, 3));
            xml.push_str(&format!(
                "<item><title>{a} and {b} unveil the {c} platform</title>\
                 <link>https://flood.example/{i}</link><guid>https://flood.example/{i}</guid>\
                 <description>{a} said on Monday that {b} will ship {c} to customers. {c} is new.</description></item>"
            ));
        }
        xml.push_str("</channel></rss>");
        Response::rss(xml)
    });
    sent
}

/// Bytes and files of the output folder, and its keyword pages.
fn measure(site: &Site) -> (u64, usize, usize) {
    let (mut bytes, mut files, mut keywords) = (0, 0, 0);
    for e in walkdir::WalkDir::new(site.path("public")) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            bytes += e.metadata().unwrap().len();
            files += 1;
            let rel = e.path().strip_prefix(site.path("public")).unwrap();
            keywords += usize::from(rel.starts_with("keywords") && rel.ends_with("index.html"));
        }
    }
    (bytes, files, keywords)
}

#[test]
fn one_feed_sending_the_worst_it_can_for_a_month_adds_under_10_mb() {
    let server = TestServer::new();
    let sent = flood(&server, "/flood.xml", 200);
    let site = crate::support::demo_site("http://127.0.0.1/flood/");
    site.write_config(&[FeedSpec::new(&server.url("/flood.xml"), "IT")]);
    site.matome(&["build"]).assert_success();
    let (bytes_before, files_before, keywords_before) = measure(&site);

    // A month of hourly runs. The first run of a day takes the day's whole budget; every later
    // run of the day fetches 200 new items and archives none of them (checked on the first and
    // the last day), so the month is driven with two runs a day plus those checks.
    let mut archived = 0;
    for day in 1..=30 {
        let hours: &[u32] = if day == 1 || day == 30 {
            &[0, 1, 2, 12, 23]
        } else {
            &[0, 1]
        };
        for (n, hour) in hours.iter().enumerate() {
            let now = format!("2021-08-{day:02}T{hour:02}:05:00+09:00");
            let out = site.matome(&["fetch", "--now", &now]);
            out.assert_success();
            let dir = site.path(format!("content/2021/08/{day:02}"));
            let items: usize = std::fs::read_dir(&dir)
                .map(|d| {
                    d.map(|f| {
                        std::fs::read_to_string(f.unwrap().path())
                            .unwrap()
                            .matches("[[items]]")
                            .count()
                    })
                    .sum()
                })
                .unwrap_or(0);
            assert_eq!(
                items, 200,
                "day {day} after {now}: the day's budget, no more"
            );
            if n > 0 {
                assert!(
                    out.stderr.contains("200 new item(s) wait for a later day"),
                    "{}",
                    out.stderr
                );
            }
        }
        archived += 200;
    }
    assert!(
        sent.load(Ordering::SeqCst) >= 64 * 200,
        "the feed sent more than it got"
    );
    let state = std::fs::read_to_string(site.path("fetch-state.json")).unwrap();
    assert!(state.contains("\"items_waiting\": 200"), "{state}");

    let out = site.matome(&["build"]);
    out.assert_success();
    let (bytes, files, keywords) = measure(&site);
    let added = bytes - bytes_before;
    eprintln!(
        "a month of the flood: {archived} items archived, +{added} bytes, +{} files, +{} keyword pages",
        files - files_before,
        keywords - keywords_before
    );
    assert_eq!(
        keywords, keywords_before,
        "one feed alone makes no keyword page"
    );
    assert!(
        added < 10_000_000,
        "one feed added {added} bytes in a month ({archived} items)"
    );
    // Its items are all there, every one on its digest.
    let digest = std::fs::read_to_string(site.path("public/2021/08/30/0000/index.html")).unwrap();
    let links: std::collections::BTreeSet<&str> = digest
        .match_indices("https://flood.example/")
        .map(|(at, m)| {
            let rest = &digest[at + m.len()..];
            &rest[..rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len())]
        })
        .filter(|n| !n.is_empty())
        .collect();
    assert_eq!(links.len(), 200, "the day's 200 items, each on its digest");
}

#[test]
fn a_keyword_gets_a_page_once_two_sites_carry_it_and_a_feed_keeps_its_first_title_as_its_site() {
    let server = TestServer::new();
    flood(&server, "/flood.xml", 4);
    // The second site's items carry the flood's first pair of names.
    let (a, b, c) = (name(0, 1), name(0, 2), name(0, 3));
    server.route(
        "/other.xml",
        Response::rss(format!(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Other</title>\
             <link>https://other.example/</link>\
             <item><title>{a} and {b} unveil the {c} platform, reviewed</title>\
             <link>https://other.example/1</link><description>{a} and {b} are partners.</description></item>\
             </channel></rss>"
        )),
    );
    let mut site = Site::new();
    site.config.base_url = "http://127.0.0.1/flood/".into();
    site.write_config(&[FeedSpec::new(&server.url("/flood.xml"), "IT")]);
    site.matome(&["fetch", "--now", "2021-08-01T00:05:00+09:00"])
        .assert_success();
    site.matome(&["build"]).assert_success();
    let slug = a.to_lowercase();
    let page = |name: &str| site.path(format!("public/keywords/{name}/index.html"));
    let has_page = |n: &str| page(n).is_file() || page(&n.to_lowercase()).is_file();
    assert!(!has_page(&a), "one site: no page for {a} ({slug})");

    site.write_config(&[
        FeedSpec::new(&server.url("/flood.xml"), "IT"),
        FeedSpec::new(&server.url("/other.xml"), "IT"),
    ]);
    site.matome(&["fetch", "--now", "2021-08-01T01:05:00+09:00"])
        .assert_success();
    site.matome(&["build"]).assert_success();
    assert!(
        has_page(&a) || has_page(&b),
        "two sites carry {a}, {b}: a page"
    );

    // A feed that renames itself every run stays one site.
    server.route("/rename.xml", |_: &crate::support::Request, hit: usize| {
        Response::rss(format!(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Name {hit}</title>\
                 <link>https://rename.example/</link><item><title>Item {hit}</title>\
                 <link>https://rename.example/{hit}</link></item></channel></rss>"
        ))
    });
    site.write_config(&[FeedSpec::new(&server.url("/rename.xml"), "IT")]);
    for hour in 2..5 {
        site.matome(&[
            "fetch",
            "--now",
            &format!("2021-08-01T{hour:02}:05:00+09:00"),
        ])
        .assert_success();
    }
    let text = walkdir::WalkDir::new(site.path("content"))
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect::<String>();
    assert!(text.contains("site = \"Name 0\""), "{text}");
    assert!(!text.contains("site = \"Name 1\"") && !text.contains("site = \"Name 2\""));
}
