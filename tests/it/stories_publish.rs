//! `matome publish` posting top stories (`what = "stories"`, issue 24) to the recording servers
//! of [`crate::publish_services`] (each checking what it receives against the service's
//! contract, limits included): a story is posted once, when its `[stories] feed_min_sites`-th
//! distinct site reports it, never again as more sites do or across reruns; its text is its
//! headline (inert), its sites count and its first link; a digests target beside it goes on
//! posting digests; a run reads its span through the derived layer, parsing only new files.

use serde_json::Value;

use crate::publish_services::*;
use crate::support::{RunOutput, Site};

/// One item: (site, id, title, story ID or "" for its own).
type Row<'a> = (&'a str, &'a str, &'a str, &'a str);

/// The story ID of `site`'s item `id`: its key.
fn key(site: &str, id: &str) -> String {
    matome::content::ItemKey::new(&format!("https://{site}.example/feed"), id).hex()
}

/// Writes (or replaces) the digest of `hour` with these items.
fn write(site: &Site, hour: &str, rows: &[Row]) {
    let h = chrono::DateTime::parse_from_rfc3339(hour).unwrap();
    let rel = format!("content/{}.md", h.format("%Y/%m/%d/%H%M"));
    let mut text = format!("+++\nhour = {hour}\nupdated = {hour}\n");
    for (s, id, title, story) in rows {
        let story = if story.is_empty() {
            String::new()
        } else {
            format!("story = {story:?}\n")
        };
        text.push_str(&format!(
            "\n[[items]]\nid = {id:?}\nfeed = \"https://{s}.example/feed\"\ncategory = \"IT\"\nsite = {s:?}\ntitle = {}\nlink = \"https://{s}.example/{id}\"\npublished = {hour}\nkeywords = [\"生成AI\"]\nsummary = \"\"\ntext = \"\"\n{story}",
            crate::support::site::toml_str(title)
        ));
    }
    text.push_str("+++\n");
    site.write(rel, text);
}

const HOSTILE: &str = "@everyone 新型チップ発表 https://evil.example/x #PR $TSLA <!here>";

#[test]
fn a_story_is_posted_once_when_its_third_site_reports_it_on_every_service() {
    let (services, rec) = start();
    let mut site = Site::new();
    site.config.base_url = BASE.into();
    site.config.append = targets_toml(&rec, &ALL, "what = \"stories\"\n");
    site.write_config(&[]);
    let env = envs(&rec);
    let chip = key("a", "chip");
    let long = "長い見出し".repeat(200);
    let long_id = key("a", "long");
    write(
        &site,
        "2021-07-20T08:00:00+09:00",
        &[("a", "chip", HOSTILE, ""), ("a", "long", &long, "")],
    );
    let out = publish(&site, &env, "2021-07-20T08:30:00+09:00", &[]);
    out.assert_success();
    assert_eq!(rec.count(), 0, "the first run marks and posts nothing");
    assert!(
        out.stdout
            .contains("webhook: new target: posts stories after 2021-07-20T08:59:59+09:00"),
        "{}",
        out.stdout
    );

    // A second site: below the threshold (3 by default).
    write(
        &site,
        "2021-07-20T09:00:00+09:00",
        &[
            ("b", "chip", "新型チップ発表", &chip),
            ("b", "long", &long, &long_id),
        ],
    );
    let out = publish(&site, &env, "2021-07-20T09:30:00+09:00", &[]);
    out.assert_success();
    assert_eq!(rec.count(), 0, "{}", out.combined());

    // The third site (and the second site again, which is no new site): both stories are due, in
    // the order they reached three sites; a lone item and a two-site story are not.
    let other = key("x", "lone");
    write(
        &site,
        "2021-07-20T10:00:00+09:00",
        &[
            ("x", "lone", "別の話題", ""),
            ("b", "chip2", "チップ続報", &chip),
            ("c", "chip", "新チップ、各社が採用", &chip),
            ("c", "long", &long, &long_id),
            ("y", "pair", "二サイトの話", &other),
        ],
    );
    let out = publish(&site, &env, "2021-07-20T10:30:00+09:00", &[]);
    out.assert_success();
    assert_eq!(counts(&services), [2; 5], "{}", out.combined());
    assert_eq!(services.tweets.lock().unwrap().len(), 2, "X too");
    let bookmarks: Vec<String> = services.bookmarks.lock().unwrap().keys().cloned().collect();
    assert_eq!(
        bookmarks,
        ["https://a.example/chip", "https://a.example/long"],
        "Hatena bookmarks each story's first link"
    );
    // Reruns and more sites: nothing again.
    publish(&site, &env, "2021-07-20T10:40:00+09:00", &[]).assert_success();
    write(
        &site,
        "2021-07-20T11:00:00+09:00",
        &[("d", "chip", "新チップ、さらに", &chip)],
    );
    publish(&site, &env, "2021-07-20T11:30:00+09:00", &[]).assert_success();
    assert_eq!(counts(&services), [2; 5], "each story once");

    // What was posted: the headline, its sites, its first link.
    let hooks = services.accepted("webhook");
    let ids: Vec<&str> = hooks.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [format!("story:{chip}"), format!("story:{long_id}")]);
    let h = &hooks[0];
    assert_eq!(h["event"], "story");
    assert_eq!(h["url"], "https://a.example/chip");
    assert_eq!(h["items"], 3, "its sites");
    let text = h["text"].as_str().unwrap();
    assert!(text.contains("3サイトが報道"), "{text}");
    assert!(text.ends_with("https://a.example/chip"), "{text}");
    // The headline is a feed's text: inert everywhere.
    let statuses = services.statuses.lock().unwrap();
    let records = services.records.lock().unwrap();
    let discord = services.accepted("discord");
    let slack = services.accepted("slack");
    let texts: Vec<String> = statuses
        .values()
        .map(|s| s["text"].as_str().unwrap_or_default().to_string())
        .chain(
            records
                .values()
                .map(|r| r["text"].as_str().unwrap().to_string()),
        )
        .chain(
            discord
                .iter()
                .map(|d| d["content"].as_str().unwrap().to_string()),
        )
        .chain(
            slack
                .iter()
                .map(|s| s["text"].as_str().unwrap().to_string()),
        )
        .collect();
    assert_eq!(texts.len(), 8);
    for t in &texts {
        assert!(
            !t.contains("https://evil.example"),
            "a feed's URL stays text: {t}"
        );
        assert!(!t.contains("@everyone"), "no mention: {t}");
        assert!(!t.contains("#PR"), "no hashtag: {t}");
    }
    for s in &slack {
        let t = s["text"].as_str().unwrap();
        assert!(!t.contains("<!here>"), "no Slack command: {t}");
    }
    // Limits: the long headline was shortened to fit each service (the recording servers refuse
    // a post over its limit).
    for r in records.values() {
        let t = r["text"].as_str().unwrap();
        assert!(unicode_segmentation::UnicodeSegmentation::graphemes(t, true).count() <= 300);
        assert!(t.contains("https://a.example/"), "{t}");
    }
    for s in statuses.values() {
        assert!(mastodon_len(s["text"].as_str().unwrap()) <= 500);
    }
    let tweets = services.tweets.lock().unwrap().clone();
    for tw in &tweets {
        assert!(x_weighted_len(tw["text"].as_str().unwrap()) <= 280, "{tw}");
    }
    let marks: Value = serde_json::from_str(&site.read("publish-state.json")).unwrap();
    assert_eq!(marks["targets"]["webhook"]["posts"], 2);
}

/// A site whose webhook target posts stories (`webhook_extra` added to its table) and whose
/// Slack target posts digests, a story reaching the feed at two sites.
fn stories_and_digests_site(rec: &Recorder, webhook_extra: &str) -> Site {
    let mut site = Site::new();
    site.config.base_url = BASE.into();
    site.config.append = format!(
        "{}{}[stories]\nfeed_min_sites = 2\n",
        targets_toml(
            rec,
            &["webhook"],
            &format!("what = \"stories\"\n{webhook_extra}")
        ),
        targets_toml(rec, &["slack"], "")
    );
    site.write_config(&[]);
    site
}

#[test]
fn the_threshold_is_the_stories_setting_and_digests_targets_go_on_posting_digests() {
    let (services, rec) = start();
    let site = stories_and_digests_site(&rec, "name = \"stories\"\n");
    let env = envs(&rec);
    let s = key("a", "1");
    write(
        &site,
        "2021-07-20T08:00:00+09:00",
        &[("a", "0", "前の話", "")],
    );
    publish(&site, &env, "2021-07-20T08:30:00+09:00", &[]).assert_success();
    write(
        &site,
        "2021-07-20T09:00:00+09:00",
        &[("a", "1", "新しい話", "")],
    );
    publish(&site, &env, "2021-07-20T09:30:00+09:00", &[]).assert_success();
    assert_eq!(services.accepted("webhook").len(), 0, "one site");
    assert_eq!(services.accepted("slack").len(), 1, "the digest");
    write(
        &site,
        "2021-07-20T10:00:00+09:00",
        &[("b", "1", "新しい話の続報", &s)],
    );
    let out = publish(&site, &env, "2021-07-20T10:30:00+09:00", &[]);
    out.assert_success();
    let hooks = services.accepted("webhook");
    assert_eq!(hooks.len(), 1, "{}", out.combined());
    assert_eq!(hooks[0]["id"], format!("story:{s}"));
    assert_eq!(hooks[0]["heading"], "新しい話");
    assert_eq!(services.accepted("slack").len(), 2);
    // A bad `what` is refused with its place.
    let cfg = site
        .read("matome.toml")
        .replace("what = \"stories\"", "what = \"story\"");
    site.write_config_raw(&cfg);
    let out = publish(&site, &env, "2021-07-20T10:40:00+09:00", &[]);
    out.assert_failure();
    assert!(
        out.stderr.contains("publish.what is \"digests\""),
        "{}",
        out.stderr
    );
}

/// `matome publish` with `MATOME_TIMINGS`: its output and the snapshot parses it reports.
fn publish_counting(site: &Site, env: &[(String, String)], now: &str) -> (RunOutput, usize) {
    let mut env = env.to_vec();
    env.push(("MATOME_TIMINGS".into(), "1".into()));
    let out = publish(site, &env, now, &[]);
    out.assert_success();
    let parses = out
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("snapshot parses: "))
        .unwrap_or_else(|| panic!("no parse count in {}", out.combined()))
        .trim()
        .parse()
        .unwrap();
    (out, parses)
}

/// A stories target reads its span through the derived layer, as the build does, and so does a
/// digests target beside it: after a build no snapshot file is parsed again; a new hour no
/// record describes yet is parsed once (and recorded), its story and its digest still posted,
/// and the next run parses nothing.
#[test]
fn publishing_stories_and_digests_parses_no_file_the_derived_layer_holds() {
    let (services, rec) = start();
    let site = stories_and_digests_site(&rec, "");
    let env = envs(&rec);
    let (first, second) = (key("a", "1"), key("a", "2"));
    write(
        &site,
        "2021-07-20T08:00:00+09:00",
        &[("a", "1", "新型チップ発表", ""), ("a", "2", "決算発表", "")],
    );
    write(
        &site,
        "2021-07-20T09:00:00+09:00",
        &[("b", "1", "新型チップを発表", &first)],
    );
    site.matome(&["build"]).assert_success();
    let (out, parses) = publish_counting(&site, &env, "2021-07-20T09:30:00+09:00");
    assert_eq!(
        parses,
        0,
        "the build recorded every file: {}",
        out.combined()
    );

    write(
        &site,
        "2021-07-20T10:00:00+09:00",
        &[("b", "2", "決算を発表", &second)],
    );
    let (out, parses) = publish_counting(&site, &env, "2021-07-20T10:30:00+09:00");
    assert_eq!(parses, 1, "only the new hour: {}", out.combined());
    let hooks = services.accepted("webhook");
    assert_eq!(hooks.len(), 1, "{}", out.combined());
    assert_eq!(hooks[0]["id"], format!("story:{second}"));
    assert_eq!(hooks[0]["heading"], "決算発表");
    assert_eq!(hooks[0]["items"], 2);
    let slack = services.accepted("slack");
    assert_eq!(slack.len(), 1, "the new digest: {}", out.combined());
    assert!(
        slack[0]["text"]
            .as_str()
            .unwrap()
            .contains("2021-07-20 10:00"),
        "{}",
        slack[0]
    );

    let (out, parses) = publish_counting(&site, &env, "2021-07-20T10:40:00+09:00");
    assert_eq!(parses, 0, "recorded by the run before: {}", out.combined());
    assert!(out.stdout.contains("nothing new"), "{}", out.stdout);
}
