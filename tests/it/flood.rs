//! Issue 21, finding 7: what one feed can add to the site. A hostile feed sends the most a run
//! takes (200 new items, `fetch.max_items_per_feed`) every hour, items in pairs sharing three
//! made-up names, each pair's names new. Before, each pair made three keyword pages: 7,204 pages
//! (23.5 MB; 29.7 MB in all) a day. Now a keyword needs two sites (`build.keyword_min_sites`),
//! a feed cannot pose as many sites, and a feed gets at most `fetch.max_items_per_feed_day`
//! new items a day (the rest wait), so a month of it adds under 10 MB, measured on a real build.
//! An item count alone does not bound bytes: 200 items a day at the longest lengths matome
//! keeps added ~54 MB a month; a feed's day also holds at most `fetch.max_bytes_per_feed_day`
//! of what its items weigh (`fetch/weight.rs`), so that month adds under 10 MB too, while the
//! ordinary month is untouched and deferred items arrive on a later day, each once.

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

/// `n` CJK characters, different for every `seed` (so the search index gets new bigrams).
fn cjk(seed: usize, n: usize) -> String {
    (0..n)
        .map(|k| char::from_u32(0x4E00 + ((seed * n + k) * 7919 % 20_900) as u32).unwrap())
        .collect()
}

/// Item `i` at the longest lengths matome keeps (300-character titles, 1,000 characters of
/// text), in one of three shapes: Japanese, text that every page escapes to six bytes a
/// character, and a 2,000-byte link.
fn heavy_item(i: usize) -> String {
    let (title, link, text) = match i % 3 {
        0 => {
            let text: String = (0..25).map(|s| cjk(i * 25 + s, 39) + "。").collect();
            (cjk(i, 300), format!("https://flood.example/{i}"), text)
        }
        1 => (
            format!("{i}{}", "&quot;&apos;".repeat(150)),
            format!("https://flood.example/{i}"),
            format!("{i}{}", "&amp;quot;&amp;apos;".repeat(500)),
        ),
        _ => {
            let text: String = (0..40).map(|w| format!("Word{i}x{w} ")).collect();
            let title: String = (0..40).map(|w| format!("Name{i}y{w} ")).collect();
            let link = format!("https://flood.example/{i}/{}", "a&amp;b=".repeat(500));
            (title, link, text.repeat(3))
        }
    };
    format!(
        "<item><title>{title}</title><link>{link}</link><guid>https://flood.example/g{i}</guid>\
         <description>{text}</description></item>"
    )
}

/// Serves `per_request` new items at the longest lengths on every request; counts them.
fn heavy_flood(server: &TestServer, path: &str, per_request: usize) -> Arc<AtomicUsize> {
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&sent);
    server.route(path, move |_: &crate::support::Request, _| {
        let start = counter.fetch_add(per_request, Ordering::SeqCst);
        let items: String = (start..start + per_request).map(heavy_item).collect();
        Response::rss(format!(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Heavy</title>\
             <link>https://flood.example/</link>{items}</channel></rss>"
        ))
    });
    sent
}

/// Bytes of every file under `dir`.
fn bytes_under(dir: &std::path::Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

/// The `id` lines of every item under content/.
fn archived_ids(site: &Site) -> Vec<String> {
    walkdir::WalkDir::new(site.path("content"))
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .flat_map(|e| {
            let text = std::fs::read_to_string(e.path()).unwrap();
            text.lines()
                .filter(|l| l.starts_with("id = "))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
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
                items,
                200,
                "day {day} after {now}: the day's budget, no more; {}",
                site.read("fetch-state.json")
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

#[test]
fn one_feed_sending_items_at_the_longest_lengths_for_a_month_adds_under_10_mb() {
    let server = TestServer::new();
    let sent = heavy_flood(&server, "/heavy.xml", 200);
    let mut site = crate::support::demo_site("http://127.0.0.1/flood/");
    site.config.fetch.as_mut().unwrap().max_body_bytes = 8 << 20;
    site.write_config(&[FeedSpec::new(&server.url("/heavy.xml"), "IT")]);
    site.matome(&["build"]).assert_success();
    let (public_before, content_before) = (
        bytes_under(&site.path("public")),
        bytes_under(&site.path("content")),
    );
    let ids_before = archived_ids(&site).len();

    // A month of the day's first run and one more (what an hourly run adds once the day's
    // bytes are spent: nothing but a lighter item that still fits).
    for day in 1..=30 {
        for hour in [0, 1] {
            let now = format!("2021-08-{day:02}T{hour:02}:05:00+09:00");
            let out = site.matome(&["fetch", "--now", &now]);
            out.assert_success();
            if hour == 1 {
                assert!(
                    out.stderr.contains("(fetch.max_bytes_per_feed_day)"),
                    "{now}: {}",
                    out.stderr
                );
            }
        }
    }
    let archived = archived_ids(&site).len() - ids_before;
    assert!(sent.load(Ordering::SeqCst) >= 60 * 200);
    let state = site.state();
    let feed = &state["feeds"][server.url("/heavy.xml")];
    assert!(feed["items_waiting"].as_u64().unwrap() > 100, "{feed}");
    assert!(feed["budget_bytes"].as_u64().unwrap() <= 400_000, "{feed}");

    site.matome(&["build"]).assert_success();
    let public = bytes_under(&site.path("public")) - public_before;
    let content = bytes_under(&site.path("content")) - content_before;
    eprintln!(
        "a month of the heaviest flood: {archived} items archived, +{public} bytes of site, +{content} bytes of content/"
    );
    assert!(
        public < 10_000_000,
        "one feed added {public} bytes of site in a month ({archived} items)"
    );
    assert!(content < 10_000_000, "and {content} bytes of content/");
    // The budget still lets in a fair number: at least 20 of the heaviest a day.
    assert!(archived >= 20 * 30, "{archived} items in a month");
}

#[test]
fn ordinary_volume_is_untouched_and_deferred_items_arrive_later_exactly_once() {
    let server = TestServer::new();
    // Ten heavy items, always the same, and one whose link alone outweighs a day.
    let mut heavy: String = (0..10).map(heavy_item).collect();
    heavy.push_str(&format!(
        "<item><title>Too large</title><link>https://flood.example/big/{}</link></item>",
        "a".repeat(40_000)
    ));
    server.route(
        "/heavy.xml",
        Response::rss(format!(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Heavy</title>\
             <link>https://flood.example/</link>{heavy}</channel></rss>"
        )),
    );
    server.route("/ordinary.xml", Response::fixture("rss2.xml"));
    let mut site = Site::new();
    site.config.fetch_extra = "max_bytes_per_feed_day = 40000\n".into();
    let heavy_url = server.url("/heavy.xml");
    site.write_config(&[
        FeedSpec::new(&heavy_url, "IT"),
        FeedSpec::new(&server.url("/ordinary.xml"), "IT"),
    ]);
    let mut per_day = Vec::new();
    for day in 1..=6 {
        let before = archived_ids(&site).len();
        for hour in [0, 1, 12] {
            let now = format!("2021-08-{day:02}T{hour:02}:05:00+09:00");
            let out = site.matome(&["fetch", "--now", &now]);
            out.assert_success();
            let note = "1 new item(s) not archived: each weighs more than a whole day's \
                        fetch.max_bytes_per_feed_day (40000 bytes)";
            assert!(out.stderr.contains(note), "{now}: {}", out.stderr);
        }
        per_day.push(archived_ids(&site).len() - before);
        let state = site.state();
        assert_eq!(state["feeds"][&heavy_url]["items_too_large"], 1);
        assert!(state["feeds"][&heavy_url]["budget_bytes"].as_u64().unwrap() <= 60_000);
    }
    let ids = archived_ids(&site);
    let ordinary = std::fs::read_to_string(site.path("content/2021/08/01/0000.md")).unwrap();
    assert_eq!(
        ordinary.matches(&server.url("/ordinary.xml")).count(),
        3,
        "the ordinary feed's items all arrive on its first run"
    );
    let heavy_ids: Vec<&String> = ids
        .iter()
        .filter(|l| l.contains("flood.example/g"))
        .collect();
    let unique: std::collections::BTreeSet<&&String> = heavy_ids.iter().collect();
    assert_eq!(
        heavy_ids.len(),
        10,
        "every heavy item, in {per_day:?} a day"
    );
    assert_eq!(unique.len(), 10, "each once");
    assert!(
        per_day[0] - 3 < 10 && per_day[1] > 0,
        "spread over days: {per_day:?}"
    );
    assert!(
        !ids.iter().any(|l| l.contains("/big/")),
        "the too large one never"
    );
    let state = site.state();
    assert_eq!(
        state["feeds"][&heavy_url]["items_waiting"],
        serde_json::Value::Null
    );
}
