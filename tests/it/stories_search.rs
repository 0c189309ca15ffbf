//! Stories in search (issue 24): one story's items from three sites over two hours are one hit
//! with its size (3 items, 3 sites) and the other two members, through `matome search --json`,
//! `matome serve`'s API (a real server on 127.0.0.1) and the static search page (the index
//! `matome build` wrote, read by search.js in headless Chromium); an item alone and a hard
//! negative (another story sharing the words) stay hits of their own; pages of collapsed hits
//! neither repeat nor lose a story; a story that crosses a month rewrites the earlier month's
//! rows; and a cold rebuild of the index gives the same answers.

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::{DateTime, FixedOffset};
use matome::content::{Item, ItemKey, Snapshot, snapshot_rel_path};
use serde_json::Value;

use crate::serve::Server;
use crate::support::browser::{self, Browser};
use crate::support::web::serve_dir;
use crate::support::{Site, TestServer};

const WAIT: Duration = Duration::from_secs(20);

fn t(s: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(s).unwrap()
}

/// An item of `site` (its own feed), in story `story` ("" = its own).
fn item(site: &str, id: &str, title: &str, published: &str, story: &str) -> Item {
    Item {
        id: id.into(),
        feed: format!("https://{site}.example/feed"),
        category: "IT".into(),
        site: site.into(),
        title: title.into(),
        link: format!("https://{site}.example/{id}"),
        published: t(published),
        keywords: vec![],
        summary: format!("{title}。"),
        text: String::new(),
        trend: None,
        story: story.into(),
    }
}

/// The story ID of the first item of `site` with `id`: its key.
fn key(site: &str, id: &str) -> String {
    ItemKey::new(&format!("https://{site}.example/feed"), id).hex()
}

/// Writes `items` into the snapshots of their hours (the hour after each publication).
fn write(site: &Site, items: Vec<Item>) {
    let mut hours: std::collections::BTreeMap<String, Vec<Item>> = Default::default();
    for i in items {
        let h = (i.published + chrono::Duration::hours(1))
            .format("%Y-%m-%dT%H:00:00+09:00")
            .to_string();
        hours.entry(h).or_default().push(i);
    }
    for (hour, mut items) in hours {
        let h = t(&hour);
        let path = site.path(snapshot_rel_path(&h));
        if let Ok(old) = Snapshot::load(&path) {
            let mut all = old.items;
            all.append(&mut items);
            items = all;
        }
        Snapshot {
            hour: h,
            updated: h,
            items,
            body: String::new(),
        }
        .write(&path)
        .unwrap();
    }
}

/// The release (three sites over two hours, the first with no story written: its own), the next
/// version's beta (two sites, the same words: a hard negative) and a lone item.
fn fixture() -> Site {
    let mut site = Site::new();
    site.config.base_url = "http://127.0.0.1/repo/".into();
    site.write_config(&[]);
    let release = key("itmedia", "rel");
    let beta = key("itmedia", "beta");
    write(
        &site,
        vec![
            item(
                "itmedia",
                "rel",
                "Rust 1.90 がリリース",
                "2021-07-20T08:10:00+09:00",
                "",
            ),
            item(
                "impress",
                "rel",
                "Rust 1.90 公開 新機能多数",
                "2021-07-20T09:05:00+09:00",
                &release,
            ),
            item(
                "cnet",
                "rel",
                "Rust 1.90 released",
                "2021-07-20T09:40:00+09:00",
                &release,
            ),
            item(
                "itmedia",
                "beta",
                "Rust 1.91 ベータ版",
                "2021-07-20T09:20:00+09:00",
                &beta,
            ),
            item(
                "impress",
                "beta",
                "Rust 1.91 ベータ公開",
                "2021-07-20T09:50:00+09:00",
                &beta,
            ),
            item(
                "gihyo",
                "meetup",
                "Rust の勉強会",
                "2021-07-20T09:30:00+09:00",
                "",
            ),
        ],
    );
    site.matome(&["build"]).assert_success();
    site
}

/// A hit as the tests compare it: (link, story items, story sites, the others' links).
type Shown = (String, u64, u64, Vec<String>);

fn shown(h: &Value) -> Shown {
    (
        h["link"].as_str().unwrap().to_string(),
        h["story_items"].as_u64().unwrap(),
        h["story_sites"].as_u64().unwrap(),
        h["others"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["link"].as_str().unwrap().to_string())
            .collect(),
    )
}

fn cli(site: &Site, args: &[&str]) -> Vec<Value> {
    let mut a = vec!["search", "--json"];
    a.extend_from_slice(args);
    let out = site.matome(&a);
    out.assert_success();
    out.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn api(server: &Server, query: &[(&str, &str)]) -> Vec<Value> {
    let q: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(query)
        .finish();
    let (status, body) = server.get(&format!("/repo/api/search?{q}"));
    assert_eq!(status, 200, "{q}: {body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    v["hits"].as_array().unwrap().clone()
}

/// A hit without its digest URLs (absolute: the CLI's at `base_url`, serve's at its address).
fn without_urls(h: &Value) -> Value {
    let mut h = h.clone();
    h.as_object_mut().unwrap().remove("url");
    for o in h["others"].as_array_mut().unwrap() {
        o.as_object_mut().unwrap().remove("url");
    }
    h
}

fn link(site: &str, id: &str) -> String {
    format!("https://{site}.example/{id}")
}

/// What every path must answer for "Rust", newest first by each story's newest member.
fn rust_hits() -> Vec<Shown> {
    vec![
        (link("impress", "beta"), 2, 2, vec![link("itmedia", "beta")]),
        (
            link("cnet", "rel"),
            3,
            3,
            vec![link("itmedia", "rel"), link("impress", "rel")],
        ),
        (link("gihyo", "meetup"), 1, 1, vec![]),
    ]
}

#[test]
fn a_story_of_three_sites_is_one_hit_with_its_size_in_the_cli_and_the_api() {
    let site = fixture();
    let hits = cli(&site, &["Rust"]);
    assert_eq!(hits.iter().map(shown).collect::<Vec<_>>(), rust_hits());
    let release = key("itmedia", "rel");
    assert_eq!(hits[1]["story"], release.as_str());
    assert_eq!(hits[1]["others"][0]["site"], "itmedia");
    assert_eq!(hits[1]["others"][0]["title"], "Rust 1.90 がリリース");
    assert_eq!(
        hits[2]["story"],
        key("gihyo", "meetup"),
        "alone: its own key"
    );
    // The size is the story's in the archive, not among the matches: only the first item says
    // リリース.
    let one = cli(&site, &["リリース"]);
    assert_eq!(
        one.iter().map(shown).collect::<Vec<_>>(),
        vec![(
            link("itmedia", "rel"),
            3,
            3,
            vec![link("impress", "rel"), link("cnet", "rel")]
        )]
    );
    // Best first: still one hit per story.
    let ranked = cli(&site, &["--sort", "relevance", "Rust"]);
    let stories: BTreeSet<&str> = ranked
        .iter()
        .map(|h| h["story"].as_str().unwrap())
        .collect();
    assert_eq!((ranked.len(), stories.len()), (3, 3));
    // A limit counts stories.
    assert_eq!(
        cli(&site, &["--limit", "2", "Rust"])
            .iter()
            .map(shown)
            .collect::<Vec<_>>(),
        rust_hits()[..2]
    );
    // The text output says so.
    let out = site.matome(&["search", "Rust"]);
    assert!(
        out.stdout.contains("+2 sources: itmedia, impress"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("3 hit(s)"), "{}", out.stdout);
    // serve's API: the same.
    let server = Server::start(&site);
    let by_api = api(&server, &[("q", "Rust")]);
    assert_eq!(by_api.iter().map(shown).collect::<Vec<_>>(), rust_hits());
    assert_eq!(
        by_api.iter().map(without_urls).collect::<Vec<_>>(),
        hits.iter().map(without_urls).collect::<Vec<_>>(),
        "the API's hits are the CLI's, field for field (serve's pages are at its own address)"
    );
}

#[test]
fn collapsed_hits_page_without_repeating_or_losing_a_story() {
    let mut site = Site::new();
    site.config.base_url = "http://127.0.0.1/repo/".into();
    site.write_config(&[]);
    // 30 stories of one to three sites, their members hours apart and interleaved with the
    // others', all matching 台風.
    let mut items = Vec::new();
    for s in 0..30 {
        let first = format!("t{s}");
        let sites = 1 + s % 3;
        for k in 0..sites {
            let at = t("2021-08-01T00:00:00+09:00")
                + chrono::Duration::minutes(37 * s as i64 + 300 * k as i64);
            let story = if k == 0 {
                String::new()
            } else {
                key("a", &first)
            };
            let mut i = item(
                ["a", "b", "c"][k],
                &first,
                &format!("台風{s}号の進路 {k}"),
                "2021-08-01T00:00:00+09:00",
                &story,
            );
            i.published = at;
            items.push(i);
        }
    }
    write(&site, items);
    site.matome(&["build"]).assert_success();
    let all = cli(&site, &["--limit", "200", "台風"]);
    assert_eq!(all.len(), 30, "one hit per story");
    let server = Server::start(&site);
    for sort in ["date", "relevance"] {
        let whole: Vec<Value> = api(&server, &[("q", "台風"), ("limit", "200"), ("sort", sort)]);
        assert_eq!(whole.len(), 30, "{sort}");
        let mut paged = Vec::new();
        for page in 0..8 {
            let offset = (page * 4).to_string();
            let hits = api(
                &server,
                &[
                    ("q", "台風"),
                    ("limit", "4"),
                    ("offset", &offset),
                    ("sort", sort),
                ],
            );
            assert!(hits.len() <= 4);
            paged.extend(hits);
        }
        let stories: Vec<&str> = paged.iter().map(|h| h["story"].as_str().unwrap()).collect();
        let distinct: BTreeSet<&str> = stories.iter().copied().collect();
        assert_eq!(stories.len(), 30, "{sort}: none lost");
        assert_eq!(distinct.len(), 30, "{sort}: none on two pages");
        assert_eq!(paged, whole, "{sort}: pages are slices of the whole answer");
    }
    // Newest first by each story's newest member.
    let newest: Vec<i64> = all
        .iter()
        .map(|h| t(h["published"].as_str().unwrap()).timestamp())
        .collect();
    assert!(newest.windows(2).all(|w| w[0] >= w[1]), "{newest:?}");
    let sizes: Vec<u64> = all
        .iter()
        .map(|h| h["story_sites"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes.iter().filter(|&&n| n == 3).count(), 10);
}

#[test]
fn stories_survive_a_cold_rebuild_of_the_index() {
    let site = fixture();
    let before = (
        cli(&site, &["Rust"]),
        cli(&site, &["--sort", "relevance", "Rust 1.90"]),
    );
    std::fs::remove_dir_all(matome::search::index::index_dir(site.root())).unwrap();
    let _ = std::fs::remove_dir_all(site.path(".matome"));
    site.matome(&["build"]).assert_success();
    let after = (
        cli(&site, &["Rust"]),
        cli(&site, &["--sort", "relevance", "Rust 1.90"]),
    );
    assert_eq!(before, after);
    assert_eq!(after.0.iter().map(shown).collect::<Vec<_>>(), rust_hits());
}

/// Every row of a month's shard (`public/search/YYYY-MM/cN.json`, in order), as the search page
/// reads it with the month's names (`n.json`): `[title, summary, link, site, category,
/// published, digest URL, story?]` with the link, names and time whole.
fn shard_rows(site: &Site, month: &str) -> Vec<Value> {
    let dir = site.path(format!("public/search/{month}"));
    let names: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("n.json")).unwrap()).unwrap();
    let name = |list: &str, v: &Value| names[list][v.as_u64().unwrap() as usize].clone();
    let mut rows = Vec::new();
    for k in 0.. {
        let Ok(text) = std::fs::read_to_string(dir.join(format!("c{k}.json"))) else {
            break;
        };
        let chunk: Vec<Value> = serde_json::from_str(&text).unwrap();
        rows.extend(chunk.into_iter().map(|mut r| {
            r[2] = match r[2].as_array() {
                Some(l) => Value::from(
                    name("origins", &l[0]).as_str().unwrap().to_string() + l[1].as_str().unwrap(),
                ),
                None => r[2].clone(),
            };
            r[3] = name("sites", &r[3]);
            r[4] = name("categories", &r[4]);
            r[5] = Value::from(names["base"].as_i64().unwrap() + r[5].as_i64().unwrap());
            r[6] = name("digests", &r[6]);
            r
        }));
    }
    rows
}

/// A story's row names its members by the numbers their months' shards give them (published
/// time, then archive order). Here publication and archive order disagree (an item published
/// before the items of an earlier hour, an item of a July digest published in June, a story
/// whose later hours hold its older items), two members share a second, and a story of 14
/// items lists its 12 oldest across both months: a row built from another order than the
/// shard's (archive order, or the tie the other way) names the wrong items.
#[test]
fn story_rows_name_each_member_by_its_number_in_its_months_shard() {
    let mut site = Site::new();
    site.config.base_url = "http://127.0.0.1/repo/".into();
    site.write_config(&[]);
    let a = key("s0", "a1");
    let b = key("s2", "b1");
    let c = key("c0", "c");
    // (hour, items in file order).
    let mut hours: Vec<(&str, Vec<Item>)> = vec![
        (
            "2021-06-30T22:00:00+09:00",
            vec![
                item("s0", "a1", "台風 A1", "2021-06-30T21:50:00+09:00", ""),
                item("s1", "a2", "台風 A2", "2021-06-30T21:10:00+09:00", &a),
                item("s2", "b1", "台風 B1", "2021-06-30T21:30:00+09:00", ""),
            ],
        ),
        (
            "2021-06-30T23:00:00+09:00",
            vec![
                // The same second as A2, one hour later in the archive.
                item("s0", "a3", "台風 A3", "2021-06-30T21:10:00+09:00", &a),
                item("s4", "b2", "台風 B2", "2021-06-30T20:00:00+09:00", &b),
                item("s5", "lone", "台風 単独", "2021-06-30T22:40:00+09:00", ""),
            ],
        ),
        (
            "2021-07-01T00:00:00+09:00",
            vec![
                item("s6", "a4", "台風 A4", "2021-06-30T23:55:00+09:00", &a),
                item("s7", "b3", "台風 B3", "2021-07-01T00:10:00+09:00", &b),
            ],
        ),
    ];
    // Story C: 14 sites, each later item published earlier than the one before it.
    for k in 0..14usize {
        let hour = if k < 7 { 0 } else { 2 };
        let at = t("2021-07-01T00:30:00+09:00") - chrono::Duration::minutes(17 * k as i64);
        let story = if k == 0 { "" } else { c.as_str() };
        let mut i = item(
            &format!("c{k}"),
            "c",
            &format!("台風 C{k}"),
            "2021-07-01T00:00:00+09:00",
            story,
        );
        i.published = at;
        hours[hour].1.push(i);
    }
    for (hour, items) in &hours {
        let h = t(hour);
        Snapshot {
            hour: h,
            updated: h,
            items: items.clone(),
            body: String::new(),
        }
        .write(&site.path(snapshot_rel_path(&h)))
        .unwrap();
    }
    site.matome(&["build"]).assert_success();

    // What each story's rows must say: its size, distinct sites, and its members by publication
    // then archive order (hour, place in the file), the 12 oldest.
    let mut archive: Vec<(i64, usize, usize, &Item)> = Vec::new();
    for (h, (_, items)) in hours.iter().enumerate() {
        for (n, i) in items.iter().enumerate() {
            archive.push((i.published.timestamp(), h, n, i));
        }
    }
    archive.sort_by_key(|&(p, h, n, _)| (p, h, n));
    let story_of = |i: &Item| {
        if i.story.is_empty() {
            key(&i.site, &i.id)
        } else {
            i.story.clone()
        }
    };
    let want = |story: &str| -> (u64, u64, Vec<String>) {
        let members: Vec<&Item> = archive
            .iter()
            .filter(|(.., i)| story_of(i) == story)
            .map(|&(.., i)| i)
            .collect();
        let sites: BTreeSet<&str> = members.iter().map(|i| i.site.as_str()).collect();
        let listed = members.iter().take(12).map(|i| i.link.clone()).collect();
        (members.len() as u64, sites.len() as u64, listed)
    };
    let months = ["2021-06", "2021-07"];
    let rows: Vec<Vec<Value>> = months.iter().map(|m| shard_rows(&site, m)).collect();
    assert_eq!((rows[0].len(), rows[1].len()), (13, 9));
    let resolve = |own: usize, member: &Value| -> String {
        let (m, n) = match member {
            Value::String(s) => {
                let (month, n) = s.split_once(':').unwrap();
                let m = months.iter().position(|x| *x == month).unwrap();
                assert_ne!(
                    m, own,
                    "a member of the row's own month is a bare number: {s}"
                );
                (m, n.parse::<usize>().unwrap())
            }
            n => (own, n.as_u64().unwrap() as usize),
        };
        rows[m][n][2].as_str().unwrap().to_string()
    };
    let mut checked = BTreeSet::new();
    for (own, month_rows) in rows.iter().enumerate() {
        for row in month_rows {
            let link = row[2].as_str().unwrap();
            let (_, _, _, i) = archive.iter().find(|(.., i)| i.link == link).unwrap();
            let story = story_of(i);
            let (items, sites, listed) = want(&story);
            let Some(element) = row.get(7) else {
                assert_eq!(
                    items, 1,
                    "{link}: a story of several items without its element"
                );
                continue;
            };
            let element = element.as_array().unwrap();
            assert_eq!(
                (element[0].as_u64().unwrap(), element[1].as_u64().unwrap()),
                (items, sites),
                "{link}"
            );
            let named: Vec<String> = element[2..].iter().map(|v| resolve(own, v)).collect();
            assert_eq!(named, listed, "{link}: the members its row names");
            checked.insert(story);
        }
    }
    assert_eq!(checked, BTreeSet::from([a, b, c]));
}

/// The static page's hits: (link, "+N" text, the others' links), after the others load.
fn page_hits(
    b: &mut Browser,
    server: &TestServer,
    q: &str,
    want: usize,
) -> Vec<(String, String, Vec<String>)> {
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("q", q)
        .finish();
    b.navigate(&server.url(&format!("/repo/search/?{query}")));
    b.wait_for(
        "document.getElementById('search-results').dataset.state === 'done'",
        WAIT,
    );
    b.wait_for(
        &format!(
            "[...document.querySelectorAll('#search-results .hit-others li')].length === {want}"
        ),
        WAIT,
    );
    let v = b.eval(
        "[...document.querySelectorAll('#search-results .hit')].map(h => [h.querySelector('.hit-title a').href, (h.querySelector('.hit-story summary') || {}).textContent || '', [...h.querySelectorAll('.hit-others a')].map(a => a.href)])",
    );
    serde_json::from_value(v).unwrap()
}

#[test]
fn the_static_search_shows_one_hit_per_story_with_its_sources() {
    assert!(
        browser::available(),
        "no {}: install Debian's chromium (scripts/setup does)",
        browser::chromium_path().display()
    );
    let site = fixture();
    let server = TestServer::new();
    serve_dir(&server, "/repo/", &site.path("public"));
    let mut b = Browser::launch();
    let hits = page_hits(&mut b, &server, "Rust", 3);
    let want: Vec<(String, String, Vec<String>)> = rust_hits()
        .into_iter()
        .map(|(l, items, sites, others)| {
            let more = if sites > 1 { sites - 1 } else { items - 1 };
            let label = if more > 0 {
                format!("ほか{more}件の報道")
            } else {
                String::new()
            };
            (l, label, others)
        })
        .collect();
    assert_eq!(hits, want);
    // Only the first item matches リリース; the hit still reaches the other two.
    let one = page_hits(&mut b, &server, "リリース", 2);
    assert_eq!(
        one,
        vec![(
            link("itmedia", "rel"),
            "ほか2件の報道".to_string(),
            vec![link("impress", "rel"), link("cnet", "rel")]
        )]
    );
    // A story across a month: June's item joined by July's. The June shard's row is rewritten
    // with the new size, and the page shows one hit (July's, the newest) reaching June's.
    let june = key("nhk", "typhoon");
    write(
        &site,
        vec![
            item(
                "nhk",
                "typhoon",
                "台風の進路",
                "2021-06-30T23:30:00+09:00",
                "",
            ),
            item(
                "jiji",
                "typhoon",
                "台風が接近",
                "2021-07-01T00:20:00+09:00",
                &june,
            ),
        ],
    );
    site.matome(&["build"]).assert_success();
    let across = page_hits(&mut b, &server, "台風", 1);
    assert_eq!(
        across,
        vec![(
            link("jiji", "typhoon"),
            "ほか1件の報道".to_string(),
            vec![link("nhk", "typhoon")]
        )]
    );
    assert!(
        b.console.iter().all(|m| !m.contains("exception")),
        "{:?}",
        b.console
    );
    // What the reader sees, at three widths (kept in target/screenshots/).
    screenshots(&mut b, &server);
}

fn screenshots(b: &mut Browser, server: &TestServer) {
    use base64::Engine;
    let shots = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for (width, height, mobile) in [(390, 844, true), (768, 1024, true), (1350, 900, false)] {
        b.call(
            "Emulation.setDeviceMetricsOverride",
            serde_json::json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
        );
        page_hits(b, server, "Rust", 3);
        b.eval("document.querySelectorAll('.hit-story').forEach(d => d.open = true)");
        let overflow = b.eval("document.documentElement.scrollWidth - window.innerWidth");
        assert!(
            overflow.as_i64().unwrap() <= 0,
            "{width}px scrolls sideways: {overflow}"
        );
        let shot = b.call(
            "Page.captureScreenshot",
            serde_json::json!({"format": "png"}),
        );
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap();
        std::fs::write(shots.join(format!("search-stories-{width}.png")), png).unwrap();
    }
}
