//! `matome publish` to X (API v2 `POST /2/tweets`) and Hatena Bookmark (`POST
//! /rest/1/my/bookmark`), both OAuth 1.0a, against the recording servers of
//! [`crate::publish_services`], which recompute every request's signature from the request as
//! the services do, and check the body, X's weighted length and Hatena's limits.

use std::sync::atomic::Ordering;

use serde_json::Value;

use crate::publish_services::*;
use crate::support::Site;

fn state(site: &Site) -> Value {
    serde_json::from_str(&site.read("publish-state.json")).unwrap()
}

#[test]
fn x_gets_each_digest_once_signed_as_x_checks_it_within_280_weighted_characters() {
    let (services, rec) = start();
    let site = publish_site_with(&rec, &["x"], "");
    // A heading of CJK (weight 2 each) far over 280, and the page URL (23 whatever its length).
    site.write(
        "templates/publish/post.txt",
        "{% for i in range(end=40) %}{{ heading }}{% endfor %}\n{{ url }}\n{% for tag in hashtags %}#{{ tag }} {% endfor %}\n",
    );
    let env = envs(&rec);
    digest(&site, "2021-07-20T08:00:00+09:00");
    publish(&site, &env, "2021-07-20T08:30:00+09:00", &[]).assert_success();
    digest(&site, "2021-07-20T09:00:00+09:00");
    let out = publish(&site, &env, "2021-07-20T09:30:00+09:00", &["--strict"]);
    out.assert_success();
    let tweets = services.tweets.lock().unwrap().clone();
    assert_eq!(tweets.len(), 1, "{}", out.combined());
    let text = tweets[0]["text"].as_str().unwrap();
    let n = x_weighted_len(text);
    assert!(n <= 280 && n > 200, "weighted {n}: {text}");
    assert!(
        text.contains("…\nhttps://curator.github.io/news/2021/07/20/0900/"),
        "{text}"
    );
    let reqs = rec.requests("/2/tweets");
    assert!(
        reqs[0]
            .header("authorization")
            .unwrap()
            .starts_with("OAuth ")
    );
    assert_eq!(reqs[0].header("content-type"), Some("application/json"));
    // The returned id is recorded; a rerun posts nothing.
    let s = state(&site);
    assert_eq!(s["targets"]["x"]["last_post_ref"], tweets[0]["id"]);
    publish(&site, &env, "2021-07-20T09:40:00+09:00", &[]).assert_success();
    assert_eq!(rec.requests("/2/tweets").len(), 1);
}

/// An hour near the real clock (X's rate-limit reset is real time), in the site's zone.
fn hour(offset_hours: i64) -> chrono::DateTime<chrono::FixedOffset> {
    use chrono::Timelike;
    let tokyo = chrono::FixedOffset::east_opt(9 * 3600).unwrap();
    let now = chrono::Utc::now().with_timezone(&tokyo);
    let floored = now
        .with_minute(0)
        .unwrap()
        .with_second(0)
        .unwrap()
        .with_nanosecond(0)
        .unwrap();
    floored + chrono::Duration::hours(offset_hours)
}

fn rfc(t: chrono::DateTime<chrono::FixedOffset>) -> String {
    t.to_rfc3339()
}

#[test]
fn x_429_defers_until_its_reset_and_a_400_drops_the_post() {
    let (services, rec) = start();
    let site = publish_site_with(&rec, &["x"], "");
    let env = envs(&rec);
    let m = chrono::Duration::minutes(1);
    digest(&site, &rfc(hour(-4)));
    publish(&site, &env, &rfc(hour(-4) + m * 30), &[]).assert_success();
    digest(&site, &rfc(hour(-3)));
    services.fail_next("x", Fail::RateLimit);
    let out = publish(&site, &env, &rfc(hour(-3) + m * 30), &[]);
    out.assert_success();
    assert!(out.stderr.contains("HTTP 429"), "{}", out.stderr);
    assert_eq!(rec.requests("/2/tweets").len(), 1);
    let next = state(&site)["targets"]["x"]["next_attempt"]
        .as_str()
        .unwrap()
        .to_string();
    let next = chrono::DateTime::parse_from_rfc3339(&next).unwrap();
    // x-rate-limit-reset is 15 minutes from the server's clock.
    let wait = next.timestamp() - chrono::Utc::now().timestamp();
    assert!((800..=900).contains(&wait), "deferred {wait} s");
    // Before the reset: not tried; after it: posted.
    let out = publish(&site, &env, &rfc(next - m), &[]);
    assert!(out.stdout.contains("x: deferred"), "{}", out.stdout);
    assert_eq!(rec.requests("/2/tweets").len(), 1);
    publish(&site, &env, &rfc(next + m), &[]).assert_success();
    assert_eq!(services.tweets.lock().unwrap().len(), 1);

    // A 400 (X refusing the post itself) drops it; the next digest still goes out.
    digest(&site, &rfc(hour(-2)));
    digest(&site, &rfc(hour(-1)));
    services.fail_next("x", Fail::Refuse);
    let out = publish(&site, &env, &rfc(next + m * 2), &[]);
    assert!(out.stderr.contains("refused for good"), "{}", out.stderr);
    let tweets = services.tweets.lock().unwrap().clone();
    assert_eq!(tweets.len(), 2, "{}", out.combined());
    let s = state(&site);
    let dropped = s["targets"]["x"]["dropped"][0]["post"].as_str().unwrap();
    assert!(dropped.starts_with("digest:"), "{s}");
    assert!(
        s["targets"]["x"]["dropped"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("HTTP 400")
    );
    assert_eq!(s["targets"]["x"]["last_post_ref"], tweets[1]["id"]);
}

/// A digest with items of two categories; the IT ones share 頻出ワード, so they rank first.
fn mixed_digest(site: &Site, hour: &str) {
    let h = chrono::DateTime::parse_from_rfc3339(hour).unwrap();
    let rel = format!("content/{}.md", h.format("%Y/%m/%d/%H%M"));
    let long = format!(
        "[PR] id:evil https://evil.example/x #Scam {}",
        "生成AIの導入で社内の文書検索が変わる。".repeat(8)
    );
    let many: Vec<String> = (0..12).map(|i| format!("\"語{i}\"")).collect();
    let items = [
        (
            "IT",
            "https://example.jp/a",
            "生成AIで社内文書を検索",
            format!("[\"生成AI\", \"社内文書\", {}]", many.join(", ")),
            long.clone(),
        ),
        (
            "金融",
            "https://example.jp/b",
            "日銀、オペを拡充",
            "[\"日本銀行\", \"生成AI\", \"社内文書\"]".to_string(),
            "要約".to_string(),
        ),
        (
            "IT",
            "https://example.jp/c",
            "生成AIの社内文書",
            "[\"生成AI\", \"社内文書\"]".to_string(),
            "短い要約".to_string(),
        ),
        (
            "IT",
            "https://example.jp/d",
            "ほかの話",
            "[\"その他\"]".to_string(),
            "要約".to_string(),
        ),
    ];
    let mut text = format!("+++\nhour = {hour}\nupdated = {hour}\n");
    for (i, (cat, link, title, kw, summary)) in items.iter().enumerate() {
        text.push_str(&format!(
            "\n[[items]]\nid = \"{hour}-{i}\"\nfeed = \"https://example.jp/feed.xml\"\ncategory = \"{cat}\"\nsite = \"例サイト\"\ntitle = \"{title}\"\nlink = \"{link}\"\npublished = {hour}\nkeywords = {kw}\nsummary = {summary:?}\ntext = \"\"\n"
        ));
    }
    text.push_str("+++\n");
    site.write(rel, text);
}

#[test]
fn hatena_bookmarks_the_top_items_of_a_category_signed_tagged_and_within_100_characters() {
    let (services, rec) = start();
    let site = publish_site_with(
        &rec,
        &["hatena"],
        "categories = [\"IT\"]\nbookmarks_per_digest = 2\n",
    );
    let env = envs(&rec);
    digest(&site, "2021-07-20T08:00:00+09:00");
    publish(&site, &env, "2021-07-20T08:30:00+09:00", &[]).assert_success();
    mixed_digest(&site, "2021-07-20T09:00:00+09:00");
    let out = publish(&site, &env, "2021-07-20T09:30:00+09:00", &["--strict"]);
    out.assert_success();
    let bookmarks = services.bookmarks.lock().unwrap().clone();
    let urls: Vec<&str> = bookmarks.keys().map(String::as_str).collect();
    assert_eq!(
        urls,
        ["https://example.jp/a", "https://example.jp/c"],
        "{}",
        out.combined()
    );
    let a = &bookmarks["https://example.jp/a"];
    let comment = a["comment"].as_str().unwrap();
    assert!(comment.encode_utf16().count() <= 100, "{comment}");
    assert!(comment.ends_with('…'), "cut to the limit: {comment}");
    // Feed text at the comment's start makes no Hatena tag, no id: link, no URL.
    assert!(!comment.starts_with('['), "{comment}");
    assert!(
        !comment.contains("id:") && !comment.contains("https://evil"),
        "{comment}"
    );
    let tags: Vec<&str> = a["tags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(tags.len(), 10, "at most 10: {tags:?}");
    assert_eq!(&tags[..2], ["生成AI", "社内文書"]);
    // Every request's form was signed (the server recomputed each signature).
    for r in rec.requests("/rest/1/my/bookmark") {
        assert!(r.header("authorization").unwrap().starts_with("OAuth "));
    }
    // Once: a rerun sends nothing; a bookmark Hatena refuses is skipped, the others made.
    let before = rec.count();
    publish(&site, &env, "2021-07-20T09:40:00+09:00", &[]).assert_success();
    assert_eq!(rec.count(), before);
    mixed_digest(&site, "2021-07-20T10:00:00+09:00");
    services.bookmarks.lock().unwrap().clear();
    services.fail_next("hatena", Fail::Refuse);
    let out = publish(&site, &env, "2021-07-20T10:30:00+09:00", &[]);
    out.assert_success();
    assert!(
        out.stdout
            .contains("1 bookmark(s); refused: https://example.jp/a"),
        "{}",
        out.stdout
    );
    assert_eq!(services.bookmarks.lock().unwrap().len(), 1);
}

#[test]
fn no_x_or_hatena_secret_reaches_output_or_files() {
    let (services, rec) = start();
    let site = publish_site_with(&rec, &["x", "hatena"], "");
    let env = envs(&rec);
    digest(&site, "2021-07-20T08:00:00+09:00");
    publish(&site, &env, "2021-07-20T08:30:00+09:00", &[]).assert_success();
    digest(&site, "2021-07-20T09:00:00+09:00");
    // Both echo everything they received, the Authorization header included.
    services.echo.store(true, Ordering::Relaxed);
    let mut outs = vec![publish(&site, &env, "2021-07-20T09:30:00+09:00", &[])];
    assert!(
        outs[0].stderr.contains("error: publish x"),
        "{}",
        outs[0].stderr
    );
    assert!(outs[0].stderr.contains("[redacted]"), "{}", outs[0].stderr);
    services.echo.store(false, Ordering::Relaxed);
    // A missing variable is named, never its neighbours' values.
    let partial: Vec<(String, String)> = env
        .iter()
        .filter(|(k, _)| k != "MATOME_HATENA_ACCESS_TOKEN_SECRET")
        .cloned()
        .collect();
    outs.push(publish(&site, &partial, "2021-07-20T12:00:00+09:00", &[]));
    assert!(
        outs[1]
            .stderr
            .contains("MATOME_HATENA_ACCESS_TOKEN_SECRET is not set"),
        "{}",
        outs[1].stderr
    );
    outs.push(publish(&site, &env, "2021-07-20T15:00:00+09:00", &[]));
    assert_eq!(
        services.tweets.lock().unwrap().len(),
        1,
        "{}",
        outs[2].combined()
    );
    for out in &outs {
        for s in SECRETS {
            assert!(
                !out.combined().contains(s),
                "{s} printed:\n{}",
                out.combined()
            );
        }
    }
    for e in walkdir::WalkDir::new(site.root()) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let text = String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned();
            for s in SECRETS {
                assert!(!text.contains(s), "{s} written to {}", e.path().display());
            }
        }
    }
}
