//! What `matome publish` and `matome alert` guarantee against hostile text and hostile
//! circumstances (issue 21, findings 3–6), against the recording servers of
//! [`crate::publish_services`]: a feed's text pings no one and links nowhere on any service;
//! every service's limits are met as it counts them; a post refused for good is dropped and the
//! queue moves on; posts too old are skipped; a run killed mid-request never posts twice.

use std::time::Duration;

use serde_json::{Value, json};
use twitter_text::extractor::Extractor;

use crate::publish_services::*;
use crate::support::{Response, Site, TestServer};

/// The text with matome's invisible joiners removed and its look-alike dots made dots: what a
/// reader sees.
fn visible(s: &str) -> String {
    s.chars()
        .filter(|&c| c != '\u{2060}')
        .map(|c| if c == '\u{2024}' { '.' } else { c })
        .collect()
}

/// No mention, federated mention, cashtag or URL off the site, and no hashtag but `allowed`:
/// what twitter-text (X's parser, and Mastodon's) finds in `text`.
fn assert_inert(service: &str, text: &str, allowed_tags: &[&str]) {
    let x = Extractor::new();
    assert!(
        x.extract_mentioned_screennames(text).is_empty(),
        "{service}: mention in {text}"
    );
    assert!(
        x.extract_federated_mentions(text).is_empty(),
        "{service}: mention in {text}"
    );
    assert!(
        x.extract_cashtags(text).is_empty(),
        "{service}: cashtag in {text}"
    );
    for tag in x.extract_hashtags(text) {
        assert!(
            allowed_tags.contains(&tag.as_str()),
            "{service}: hashtag #{tag} in {text}"
        );
    }
    for url in x.extract_urls(text) {
        assert!(url.starts_with(BASE), "{service}: link {url} in {text}");
    }
    assert!(!text.contains("https://evil"), "{service}: {text}");
}

const HOSTILE_WORDS: [&str; 6] = [
    "@victim@mastodon.example",
    "#BreakingScam",
    "https://evil.example/x",
    "[Official notice](https://evil.example/phish)",
    "<!channel>",
    "@everyone $SCAM evil.com",
];

#[test]
fn trend_words_from_a_feed_make_no_mention_hashtag_link_or_facet_on_any_service() {
    let (services, rec) = start();
    let site = publish_site_with(&rec, &ALL, "");
    let cfg = site.read("matome.toml").replacen(
        "kind = \"mastodon\"\n",
        "kind = \"mastodon\"\nvisibility = \"direct\"\n",
        1,
    );
    site.write_config_raw(&cfg);
    with_trends_feed(&site);
    let env = envs(&rec);
    digest(&site, "2021-07-20T22:00:00+09:00");
    publish(&site, &env, "2021-07-20T22:30:00+09:00", &[]).assert_success();
    let words: Vec<(&str, u64)> = HOSTILE_WORDS
        .iter()
        .enumerate()
        .map(|(i, w)| (*w, 100000 - i as u64))
        .collect();
    write_trends(&site, "2021-07-20T23:00:00+09:00", &words);
    digest(&site, "2021-07-21T00:00:00+09:00");
    let out = publish(&site, &env, "2021-07-21T00:30:00+09:00", &[]);
    out.assert_success();
    assert!(out.stderr.is_empty(), "{}", out.combined());

    // Tags only from 頻出ワード matome made (where the template writes `#`).
    let allowed = [
        "生成AI",
        "社内文書",
        "大手損保",
        "日本銀行",
        "気候変動対応オペ",
        "GoogleCloud",
    ];
    let statuses = services.statuses.lock().unwrap().clone();
    assert_eq!(statuses.len(), 3, "digest, trends, digest");
    let trends = statuses
        .values()
        .find(|s| s["text"].as_str().unwrap().contains("トレンドワード"))
        .unwrap();
    for s in statuses.values() {
        let text = s["text"].as_str().unwrap();
        assert_inert("mastodon", text, &allowed);
        // Still `direct` as configured: a status addressed to no one.
        assert_eq!(s["visibility"], "direct");
    }
    // Shown as text, as written.
    let shown = visible(trends["text"].as_str().unwrap());
    for w in HOSTILE_WORDS {
        assert!(shown.contains(w), "{w} not shown in {shown}");
    }

    for t in services.tweets.lock().unwrap().iter() {
        assert_inert("x", t["text"].as_str().unwrap(), &allowed);
    }
    assert_eq!(services.tweets.lock().unwrap().len(), 3);

    for r in services.records.lock().unwrap().values() {
        check_bluesky_record(r).unwrap();
        for f in r["facets"].as_array().unwrap() {
            let feature = &f["features"][0];
            match feature["$type"].as_str().unwrap() {
                "app.bsky.richtext.facet#link" => {
                    assert!(feature["uri"].as_str().unwrap().starts_with(BASE), "{f}")
                }
                _ => assert!(allowed.contains(&feature["tag"].as_str().unwrap()), "{f}"),
            }
        }
        assert!(
            r["embed"]["external"]["uri"]
                .as_str()
                .unwrap()
                .starts_with(BASE)
        );
        assert!(
            !r["embed"]["external"]["description"]
                .as_str()
                .unwrap()
                .contains("https://evil")
        );
    }

    for d in services.accepted("discord") {
        let c = d["content"].as_str().unwrap();
        assert_eq!(d["allowed_mentions"], json!({"parse": []}));
        assert!(
            !c.contains("@everyone") && !c.contains("](https://") && !c.contains("https://evil"),
            "{c}"
        );
        // Every bracket is escaped: no masked link, no <@id> or <!…>.
        let chars: Vec<char> = c.chars().collect();
        for (i, ch) in chars.iter().enumerate() {
            if "[]<>".contains(*ch) {
                assert!(i > 0 && chars[i - 1] == '\\', "unescaped bracket in {c}");
            }
        }
        assert!(!c.contains("\n#B"), "{c}");
    }
    for s in services.accepted("slack") {
        let t = s["text"].as_str().unwrap();
        assert_eq!(
            (s["unfurl_links"].clone(), s["unfurl_media"].clone()),
            (json!(false), json!(false))
        );
        assert!(!t.contains('<') && !t.contains("https://evil"), "{t}");
        assert_eq!(s["blocks"][0]["text"]["text"], s["text"]);
    }
    for h in services.accepted("webhook") {
        assert_inert("webhook", h["text"].as_str().unwrap(), &allowed);
    }
    // Hatena bookmarks the digests' news items only, never a trend word's link.
    let bookmarks = services.bookmarks.lock().unwrap();
    assert!(!bookmarks.is_empty());
    assert!(
        bookmarks
            .keys()
            .all(|u| u.starts_with("https://example.jp/")),
        "{bookmarks:?}"
    );
}

/// A feed whose charset is a Slack command, a Discord ping and two links fails with that text
/// in its error; `matome alert` quotes it a day later.
#[test]
fn a_feed_error_quoted_in_an_alert_pings_no_one_and_links_nowhere() {
    let smtp = crate::publish::smtp_server();
    let (services, rec) = start();
    let feeds = TestServer::new();
    let evil = "<!channel> @everyone <https://evil.example/fix|Click here to re-authorize matome> [fix](https://evil.example/d)";
    feeds.route(
        "/feed.xml",
        Response::ok(&b"<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>caf\xe9</title></channel></rss>"[..])
            .content_type(&format!("application/rss+xml; charset={evil}")),
    );
    let mut site = Site::new();
    site.config.append = format!(
        "[alerts]\nwebhook_env = \"ALERT_HOOK\"\n\n[alerts.email]\nhost = \"127.0.0.1\"\nport = {}\nfrom = \"matome <bot@example.jp>\"\nto = [\"curator@example.jp\"]\nca_file = \"ca.pem\"\n",
        smtp.port
    );
    site.write_config(&[crate::support::FeedSpec::new(&feeds.url("/feed.xml"), "IT")]);
    std::fs::copy(&smtp.ca, site.path("ca.pem")).unwrap();
    let hook = rec.url("/alert");
    let env = [
        ("ALERT_HOOK", hook.as_str()),
        ("MATOME_SMTP_USER", "alerts@example.jp"),
        ("MATOME_SMTP_PASSWORD", "smtp-pass-S3CRET6"),
    ];
    let run = |args: &[&str]| {
        let out = site.matome_with(args, &env, Duration::from_secs(60));
        assert_eq!(out.code, Some(0), "{}", out.combined());
        out
    };
    site.matome_with(
        &["fetch", "--now", "2021-07-20T08:10:00+09:00"],
        &[],
        Duration::from_secs(60),
    );
    let state = site.read("fetch-state.json");
    assert!(
        state.contains("evil.example"),
        "the error quotes the charset: {state}"
    );
    run(&["alert", "--now", "2021-07-20T08:15:00+09:00"]);
    site.matome_with(
        &["fetch", "--now", "2021-07-21T09:10:00+09:00"],
        &[],
        Duration::from_secs(60),
    );
    run(&["alert", "--now", "2021-07-21T09:15:00+09:00"]);

    let alerts = services.accepted("alert");
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    let a = &alerts[0];
    let text = a["text"].as_str().unwrap();
    assert!(text.contains("&lt;!channel&gt;"), "shown as text: {text}");
    assert!(
        !text.contains("<!channel>") && !text.contains("<https://"),
        "{text}"
    );
    assert_eq!(
        (a["unfurl_links"].clone(), a["unfurl_media"].clone()),
        (json!(false), json!(false))
    );
    let content = a["content"].as_str().unwrap();
    assert_eq!(a["allowed_mentions"], json!({"parse": []}));
    assert_eq!(a["flags"], 4, "SUPPRESS_EMBEDS");
    assert!(
        !content.contains("@everyone") && !content.contains("](https://"),
        "{content}"
    );
    let feed = feeds.url("/feed.xml");
    for (what, s) in [
        ("text", text),
        ("content", content),
        ("message", a["message"].as_str().unwrap()),
    ] {
        for url in Extractor::new().extract_urls(s) {
            assert!(
                feed.starts_with(&url) || url.starts_with(&feed),
                "{what}: link {url} in {s}"
            );
        }
        assert!(
            !s.contains("https://evil") && !s.contains("evil.example"),
            "{what}: {s}"
        );
        assert!(
            Extractor::new().extract_mentioned_screennames(s).is_empty(),
            "{what}: {s}"
        );
        assert!(
            visible(s).contains("@everyone"),
            "{what} shows the text: {s}"
        );
    }
    // The subject holds matome's words only; the mail's body quotes the error defanged.
    let m = crate::publish::mails(&smtp);
    assert_eq!(m.len(), 1);
    let subject = m[0]["subject"].as_str().unwrap();
    assert!(
        !subject.contains("evil") && !subject.contains('<'),
        "{subject}"
    );
    let body = m[0]["data"].as_str().unwrap();
    assert!(
        !body.contains("https://evil") && !body.contains("evil.example"),
        "{body}"
    );
    assert!(visible(body).contains("<!channel> @everyone"), "{body}");
}

#[test]
fn a_post_over_blueskys_3000_bytes_in_under_300_graphemes_is_fitted_not_refused() {
    let (services, rec) = start();
    let site = publish_site_with(&rec, &["bluesky"], "");
    with_trends_feed(&site);
    let env = envs(&rec);
    digest(&site, "2021-07-20T22:00:00+09:00");
    publish(&site, &env, "2021-07-20T22:30:00+09:00", &[]).assert_success();
    // Ten trend words, each one letter and 299 combining accents: 600 bytes, 1 grapheme.
    let heavy: Vec<String> = "abcdefghij"
        .chars()
        .map(|c| format!("{c}{}", "\u{0301}".repeat(299)))
        .collect();
    let words: Vec<(&str, u64)> = heavy.iter().map(|w| (w.as_str(), 1000)).collect();
    write_trends(&site, "2021-07-20T23:00:00+09:00", &words);
    digest(&site, "2021-07-21T00:00:00+09:00");
    let out = publish(&site, &env, "2021-07-21T00:30:00+09:00", &["--strict"]);
    out.assert_success();
    let records = services.records.lock().unwrap();
    assert_eq!(records.len(), 3, "{}", out.combined());
    for r in records.values() {
        let text = r["text"].as_str().unwrap();
        assert!(text.len() <= 3000, "{} bytes", text.len());
    }
    let state: Value = serde_json::from_str(&site.read("publish-state.json")).unwrap();
    assert_eq!(state["targets"]["bluesky"]["consecutive_failures"], 0);
}

#[test]
fn a_post_refused_for_good_is_dropped_alerted_once_and_the_next_goes_out() {
    let (services, rec) = start();
    let mut site = Site::new();
    site.config.base_url = BASE.into();
    site.config.append = format!(
        "{}[alerts]\nwebhook_env = \"ALERT_HOOK\"\n",
        targets_toml(&rec, &["mastodon", "slack"], "")
    );
    site.write_config(&[]);
    let mut env = envs(&rec);
    env.push(("ALERT_HOOK".into(), rec.url("/alert")));
    let alert = |now: &str| {
        let e: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        site.matome_with(&["alert", "--now", now], &e, Duration::from_secs(60))
            .assert_success();
    };
    digest(&site, "2021-07-20T08:00:00+09:00");
    publish(&site, &env, "2021-07-20T08:30:00+09:00", &[]).assert_success();
    digest(&site, "2021-07-20T09:00:00+09:00");
    digest(&site, "2021-07-20T10:00:00+09:00");
    services.fail_next("mastodon", Fail::Refuse);
    services.fail_next("slack", Fail::Refuse);
    let out = publish(&site, &env, "2021-07-20T10:30:00+09:00", &[]);
    out.assert_success();
    assert!(
        out.stderr.contains("refused for good and is dropped"),
        "{}",
        out.stderr
    );
    // The queue moved on in the same run: the 10:00 digest went out.
    assert_eq!(
        services.statuses.lock().unwrap().len(),
        1,
        "{}",
        out.combined()
    );
    assert_eq!(services.accepted("slack").len(), 1);
    let state: Value = serde_json::from_str(&site.read("publish-state.json")).unwrap();
    let m = &state["targets"]["mastodon"];
    assert_eq!(m["dropped"][0]["post"], "digest:2021-07-20T09:00:00+09:00");
    assert!(
        m["dropped"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("HTTP 422"),
        "{m}"
    );
    assert_eq!(
        m["consecutive_failures"], 0,
        "a refused post is not a failing target"
    );
    assert_eq!(m["last_post"], "digest:2021-07-20T10:00:00+09:00");

    alert("2021-07-20T10:35:00+09:00");
    alert("2021-07-20T11:35:00+09:00");
    let alerts = services.accepted("alert");
    assert_eq!(alerts.len(), 2, "one per dropped post, once: {alerts:?}");
    let msg = alerts
        .iter()
        .map(|a| a["message"].as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        msg.contains("mastodon refused digest:2021-07-20T09:00:00+09:00 for good"),
        "{msg}"
    );
    assert!(
        msg.contains("HTTP 422") && msg.contains("slack refused"),
        "{msg}"
    );
    // Nothing is retried: a rerun sends nothing.
    let before = rec.count();
    publish(&site, &env, "2021-07-20T10:40:00+09:00", &[]).assert_success();
    assert_eq!(rec.count(), before);
}

#[test]
fn after_an_outage_posts_older_than_a_day_are_skipped_and_recorded_not_sent_late() {
    let (services, rec) = start();
    let mut site = Site::new();
    site.config.base_url = BASE.into();
    site.config.append = format!(
        "{}{}",
        targets_toml(&rec, &["webhook"], "max_posts_per_run = 10\n"),
        targets_toml(
            &rec,
            &["slack"],
            "max_age_hours = 100\nmax_posts_per_run = 10\n"
        )
    );
    site.write_config(&[]);
    let env = envs(&rec);
    digest(&site, "2021-07-01T08:00:00+09:00");
    publish(&site, &env, "2021-07-01T08:30:00+09:00", &[]).assert_success();
    // Three days of digests every six hours while publishing was down.
    let mut hours = Vec::new();
    for day in 1..=3 {
        for h in [9, 15, 21] {
            hours.push(format!("2021-07-0{day}T{h:02}:00:00+09:00"));
        }
    }
    for h in &hours {
        digest(&site, h);
    }
    let out = publish(&site, &env, "2021-07-03T22:00:00+09:00", &[]);
    out.assert_success();
    assert!(
        out.stdout
            .contains("webhook: skipped 6 post(s) older than 24 h"),
        "{}",
        out.stdout
    );
    let sent: Vec<String> = services
        .accepted("webhook")
        .iter()
        .map(|h| h["time"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        sent,
        [
            "2021-07-03T09:00:00+09:00",
            "2021-07-03T15:00:00+09:00",
            "2021-07-03T21:00:00+09:00"
        ],
        "only the last day's, oldest first"
    );
    // max_age_hours widens it: Slack takes all nine.
    assert_eq!(services.accepted("slack").len(), 9);
    let state: Value = serde_json::from_str(&site.read("publish-state.json")).unwrap();
    assert_eq!(state["targets"]["webhook"]["skipped"], 6);
    assert!(
        state["targets"]["webhook"]["last_skipped"]
            .as_str()
            .unwrap()
            .starts_with("2021-07-02T21:00:00+09:00")
    );
}

/// Starts `matome publish` in the background (the harness's environment), for a test to kill.
fn spawn_publish(site: &Site, env: &[(String, String)], now: &str) -> std::process::Child {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_matome"));
    cmd.arg("--root")
        .arg(site.root())
        .args(["publish", "--now", now])
        .env("CI", "true")
        .env("NO_COLOR", "1")
        .env("NO_PROXY", "127.0.0.1")
        .env("no_proxy", "127.0.0.1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    for v in [
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
    ] {
        cmd.env_remove(v);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().expect("matome")
}

/// `matome publish` killed with SIGTERM while a request is in flight (the service has it and
/// holds its answer), then run again: per service, as the README promises — exactly once where
/// the service can be asked (Bluesky, Mastodon) or a repeat is harmless (Hatena), at most once
/// where it cannot (Slack, Discord, X), at least once with the same delivery id (the webhook).
#[test]
fn publish_killed_with_sigterm_mid_request_never_posts_twice() {
    let paths = [
        ("slack", SLACK_PATH),
        ("discord", DISCORD_PATH),
        ("x", "/2/tweets"),
        ("bluesky", "/xrpc/com.atproto.repo.createRecord"),
        ("mastodon", "/api/v1/statuses"),
        ("webhook", "/hook"),
        ("hatena", "/rest/1/my/bookmark"),
    ];
    for (kind, path) in paths {
        let (services, rec) = start();
        let site = publish_site_with(&rec, &[kind], "");
        let env = envs(&rec);
        digest(&site, "2021-07-20T08:00:00+09:00");
        publish(&site, &env, "2021-07-20T08:30:00+09:00", &[]).assert_success();
        digest(&site, "2021-07-20T09:00:00+09:00");
        services.hold(kind);
        let mut child = spawn_publish(&site, &env, "2021-07-20T09:30:00+09:00");
        assert!(rec.wait_for(path), "{kind}: no request");
        std::thread::sleep(Duration::from_millis(100));
        // SAFETY: a plain kill(2) of our own child's pid.
        unsafe {
            libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
        }
        let status = child.wait().unwrap();
        assert!(!status.success(), "{kind}: killed mid-request");
        services.release();
        let state: Value = serde_json::from_str(&site.read("publish-state.json")).unwrap();
        assert_eq!(
            state["targets"][kind]["attempt"]["post"], "digest:2021-07-20T09:00:00+09:00",
            "{kind}: the attempt was recorded before the request"
        );

        let out = publish(&site, &env, "2021-07-20T09:40:00+09:00", &[]);
        out.assert_success();
        publish(&site, &env, "2021-07-20T09:50:00+09:00", &[]).assert_success();
        let sent = rec.requests(path).len();
        let (posts, requests) = match kind {
            "slack" | "discord" | "webhook" => (services.accepted(kind).len(), sent),
            "x" => (services.tweets.lock().unwrap().len(), sent),
            "bluesky" => (services.records.lock().unwrap().len(), sent),
            "mastodon" => (services.statuses.lock().unwrap().len(), sent),
            _ => (services.bookmarks.lock().unwrap().len(), sent),
        };
        match kind {
            "slack" | "discord" | "x" => {
                assert_eq!(
                    (posts, requests),
                    (1, 1),
                    "{kind}: at most once\n{}",
                    out.combined()
                );
                assert!(
                    out.stdout.contains("taken as sent"),
                    "{kind}: {}",
                    out.stdout
                );
            }
            "bluesky" => {
                assert_eq!((posts, requests), (1, 1), "{kind}: exactly once");
                assert_eq!(rec.requests("/xrpc/com.atproto.repo.getRecord").len(), 1);
            }
            "mastodon" => {
                assert_eq!((posts, requests), (1, 1), "{kind}: exactly once");
                assert_eq!(rec.requests("/api/v1/accounts/1/statuses").len(), 1);
            }
            "webhook" => {
                let hooks = services.accepted("webhook");
                assert_eq!(posts, 2, "at least once");
                assert_eq!(hooks[0]["id"], hooks[1]["id"], "with the same delivery id");
            }
            _ => {
                // Three bookmarks (one held when killed), sent again: three, each once.
                assert_eq!(posts, 3, "{kind}: {}", out.combined());
                assert_eq!(requests, 4);
            }
        }
        let state: Value = serde_json::from_str(&site.read("publish-state.json")).unwrap();
        let t = &state["targets"][kind];
        assert_eq!(
            t["last_post"], "digest:2021-07-20T09:00:00+09:00",
            "{kind}: {t}"
        );
        assert!(t.get("attempt").is_none(), "{kind}: settled: {t}");
    }
}
