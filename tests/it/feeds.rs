//! The Atom feeds a build writes, read by feedparser (from PyPI, installed by scripts/setup into
//! target/tools/feedparser) and by a strict reader (feed-rs, and roxmltree for well-formedness):
//! every feed parses cleanly, runs newest first and covers at least a day — the items feeds
//! every item of the last 24 hours' digests (within their size bound), the digests feed one entry
//! per hourly digest.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::{DateTime, Duration, FixedOffset};
use matome::content::{Item, Snapshot, snapshot_rel_path};
use matome::render::views::feeds::{DIGEST_FEED_MIN, FEED_MAX_ENTRIES};
use serde_json::Value;

use crate::support::Site;

/// Hourly digests in the fixture, and items in each.
const HOURS: i64 = 40;
const PER_HOUR: i64 = 100;

fn feedparser() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/feedparser/bin/python");
    assert!(
        p.exists(),
        "{} is missing: run scripts/setup (it installs feedparser for these tests)",
        p.display()
    );
    p
}

fn start() -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339("2021-07-19T00:00:00+09:00").unwrap()
}

/// 40 hours of 100 items each (2,400 in the last day: more than the site feed's bound), half IT,
/// half 金融; within an hour the feed order is not the published order, and the last hour also
/// archives an item published two days before.
fn fixture() -> Site {
    let site = Site::new();
    site.write_config(&[]);
    for h in 0..HOURS {
        let hour = start() + Duration::hours(h);
        let mut items: Vec<Item> = (0..PER_HOUR)
            .map(|i| {
                // 0, 59, 1, 58, …: minutes out of order.
                let minute = if i % 2 == 0 {
                    i / 2
                } else {
                    PER_HOUR - 1 - i / 2
                };
                let id = format!("h{h}-{i}");
                Item {
                    id: id.clone(),
                    feed: "https://news.example/feed".into(),
                    category: if i % 2 == 0 { "IT" } else { "金融" }.into(),
                    site: "テストニュース".into(),
                    title: format!("記事 {id} <速報> & \"引用\""),
                    link: format!("https://news.example/{id}"),
                    published: hour - Duration::hours(1) + Duration::minutes(minute),
                    keywords: vec!["半導体".into()],
                    summary: format!("要約 {id}"),
                    text: String::new(),
                    trend: None,
                    story: String::new(),
                }
            })
            .collect();
        if h == HOURS - 1 {
            let mut late = items[0].clone();
            late.id = "late".into();
            late.link = "https://news.example/late".into();
            late.published = hour - Duration::days(2);
            items.push(late);
        }
        Snapshot {
            hour,
            updated: hour + Duration::minutes(5),
            items,
            body: String::new(),
        }
        .write(&site.path(snapshot_rel_path(&hour)))
        .unwrap();
    }
    site.matome(&["build"]).assert_success();
    site
}

/// Every Atom file under `public/`.
fn feeds(site: &Site) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = site
        .files_under("public")
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "atom.xml"))
        .map(|p| site.path(p))
        .collect();
    out.sort();
    out
}

/// feedparser's reading of each file: `{bozo, entries: [{id, link, published, updated}]}`.
pub(crate) fn parse_with_feedparser(files: &[PathBuf]) -> Vec<Value> {
    let script = r#"
import feedparser, json, sys, calendar
out = []
for path in sys.argv[1:]:
    d = feedparser.parse(path)
    stamp = lambda t: calendar.timegm(t) if t else None
    out.append({
        "bozo": d.bozo, "exception": str(d.get("bozo_exception", "")), "title": d.feed.get("title"),
        "entries": [{"id": e.get("id"), "link": e.get("link"), "title": e.get("title"),
                     "published": stamp(e.get("published_parsed")), "updated": stamp(e.get("updated_parsed")),
                     "content": (e.get("content") or [{}])[0].get("value", "")} for e in d.entries],
    })
json.dump(out, sys.stdout)
"#;
    let out = Command::new(feedparser())
        .arg("-c")
        .arg(script)
        .args(files)
        .output()
        .expect("running feedparser");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_feed_parses_cleanly_runs_newest_first_and_covers_a_day() {
    let site = fixture();
    let files = feeds(&site);
    let rel = |p: &Path| {
        p.strip_prefix(site.path("public"))
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let names: Vec<String> = files.iter().map(|p| rel(p)).collect();
    assert!(names.contains(&"atom.xml".to_string()), "{names:?}");
    assert!(names.contains(&"digests/atom.xml".to_string()), "{names:?}");
    assert!(names.contains(&"stories/atom.xml".to_string()), "{names:?}");
    assert_eq!(
        names.len(),
        5,
        "the site's, the digests', the stories', two categories': {names:?}"
    );
    let parsed = parse_with_feedparser(&files);
    let newest_hour = start() + Duration::hours(HOURS - 1);
    // The items archived in the last day: the digests after newest - 24 h.
    let window: Vec<(i64, i64)> = ((HOURS - 24)..HOURS)
        .flat_map(|h| (0..PER_HOUR).map(move |i| (h, i)))
        .collect();
    for (path, feed) in files.iter().zip(&parsed) {
        let name = rel(path);
        assert_eq!(feed["bozo"], false, "{name}: {}", feed["exception"]);
        let bytes = std::fs::read(path).unwrap();
        let text = std::str::from_utf8(&bytes).unwrap();
        roxmltree::Document::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let strict = feed_rs::parser::parse(&bytes[..]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let entries = feed["entries"].as_array().unwrap();
        assert_eq!(strict.entries.len(), entries.len(), "{name}");
        let time = |e: &Value, k: &str| e[k].as_i64().unwrap_or_else(|| panic!("{name}: {e}"));
        if name == "stories/atom.xml" {
            // One site covers every item here: no story of several sites (tests/it/stories_pages.rs).
            assert!(entries.is_empty(), "{name}: {entries:?}");
            continue;
        }
        if name == "digests/atom.xml" {
            // One entry per digest of the last day (at least DIGEST_FEED_MIN), newest first.
            assert_eq!(entries.len(), 24.max(DIGEST_FEED_MIN), "{name}");
            let hours: Vec<i64> = entries.iter().map(|e| time(e, "published")).collect();
            assert!(hours.windows(2).all(|w| w[0] > w[1]), "{name}: {hours:?}");
            assert_eq!(hours[0], newest_hour.timestamp());
            assert!(
                hours[0] - hours[hours.len() - 1] >= 23 * 3600,
                "{name} spans a day"
            );
            // Each lists its digest's items, linked, with feed text escaped.
            let first = entries[0]["content"].as_str().unwrap();
            assert!(first.contains("https://news.example/h39-0"), "{first}");
            assert!(first.contains("&lt;速報&gt; &amp;"), "{first}");
            assert!(
                entries[0]["link"]
                    .as_str()
                    .unwrap()
                    .ends_with("/2021/07/20/1500/")
            );
            continue;
        }
        let times: Vec<i64> = entries.iter().map(|e| time(e, "updated")).collect();
        assert!(
            times.windows(2).all(|w| w[0] >= w[1]),
            "{name} is newest first"
        );
        let links: BTreeSet<String> = entries
            .iter()
            .map(|e| e["link"].as_str().unwrap().to_string())
            .collect();
        let want: Vec<String> = window
            .iter()
            .filter(|(_, i)| match name.as_str() {
                "atom.xml" => true,
                n if n.contains("/IT/") => i % 2 == 0,
                _ => i % 2 == 1,
            })
            .map(|(h, i)| format!("https://news.example/h{h}-{i}"))
            .collect();
        if name == "atom.xml" {
            // 2,401 items in the last day: the newest FEED_MAX_ENTRIES of them (the bound).
            assert_eq!(entries.len(), FEED_MAX_ENTRIES, "{name}");
            assert!(want.len() > FEED_MAX_ENTRIES);
            let newest = &want[want.len() - (FEED_MAX_ENTRIES - 1)..];
            assert!(newest.iter().all(|l| links.contains(l)), "{name}");
        } else {
            // A category's last day in full (1,200 or 1,201 items), and the late item sorted last.
            let missing: Vec<&String> = want.iter().filter(|l| !links.contains(*l)).collect();
            assert!(
                missing.is_empty(),
                "{name} lacks {} items: {:?}",
                missing.len(),
                &missing[..missing.len().min(5)]
            );
            assert!(
                times[0] - times[times.len() - 1] >= 24 * 3600 - 3600,
                "{name} spans a day"
            );
        }
        if name.contains("/IT/") || name == "atom.xml" {
            assert_eq!(
                entries.last().unwrap()["link"],
                "https://news.example/late",
                "{name}: published two days ago, so last"
            );
        }
    }
}

#[test]
fn every_page_links_the_digests_feed() {
    let site = fixture();
    for page in ["public/index.html", "public/search/index.html"] {
        let html = site.read(page);
        assert!(
            html.contains(r#"type="application/atom+xml""#)
                && html.contains(r#"href="/test/digests/atom.xml""#),
            "{page}"
        );
    }
}
