//! One set of queries through the three search paths — `matome search` (the tantivy index),
//! `matome serve`'s JSON API (the same index, live) and the static search page (the static index
//! `matome build` wrote, read by search.js in headless Chromium) — giving the same hits, the ones
//! `search::terms` says match; newest first everywhere, and the page's times in the site's zone
//! under a browser in UTC.

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::{DateTime, FixedOffset};
use matome::content::{Item, Snapshot, snapshot_rel_path};
use matome::search::terms;
use serde_json::Value;

use crate::serve::Server;
use crate::support::browser::{self, Browser};
use crate::support::web::serve_dir;
use crate::support::{Site, TestServer};

const WAIT: Duration = Duration::from_secs(20);

/// (id, title, summary, published): spread over June and July 2021, several per hour, the hour's
/// items not in published order.
const ITEMS: &[(&str, &str, &str, &str)] = &[
    (
        "shinkansen",
        "東海道新幹線が運休",
        "大雨で新幹線の運転を見合わせ。",
        "2021-06-30T22:10:00+09:00",
    ),
    (
        "kansen",
        "幹線道路の渋滞",
        "国道の幹線で事故。",
        "2021-06-30T22:40:00+09:00",
    ),
    (
        "yen",
        "円安進む",
        "円安が進んだ。日本銀行は静観している。",
        "2021-06-30T22:05:00+09:00",
    ),
    (
        "kabu",
        "株価が反発",
        "東証の株価指数が上昇。",
        "2021-07-20T05:30:00+09:00",
    ),
    (
        "zei",
        "税制改正の議論",
        "消費税と法人税。",
        "2021-07-20T05:10:00+09:00",
    ),
    (
        "bei",
        "米Apple、iPhone15を発表",
        "米国で新製品。",
        "2021-07-20T05:50:00+09:00",
    ),
    (
        "boj",
        "日本銀行、気候変動対応オペ",
        "日本銀行は気候変動への対応を後押し。",
        "2021-07-20T06:20:00+09:00",
    ),
    (
        "bank",
        "大手銀行の融資枠",
        "銀行グループが脱炭素の融資枠。",
        "2021-07-20T06:05:00+09:00",
    ),
    (
        "apart",
        "気候が変わる",
        "天候変化と株価変動。",
        "2021-07-20T06:45:00+09:00",
    ),
    (
        "regul",
        "Regulators regulated AI models",
        "New regulation for public cloud providers.",
        "2021-07-21T08:15:00+09:00",
    ),
    (
        "outage",
        "Public cloud outage hits banks",
        "A public cloud outage stopped payments.",
        "2021-07-21T08:05:00+09:00",
    ),
    (
        "told",
        "The public was told the cloud is safe",
        "Officials told the public.",
        "2021-07-21T08:40:00+09:00",
    ),
    (
        "dereg",
        "Deregulation of taxis",
        "Cities debate the market.",
        "2021-07-21T08:30:00+09:00",
    ),
    (
        "fullwidth",
        "ＡＩ半導体の新工場",
        "ﾃﾞｰﾀｾﾝﾀｰ向け。",
        "2021-07-21T08:50:00+09:00",
    ),
];

const QUERIES: &[&str] = &[
    "幹線",
    "新幹線",
    "円",
    "株",
    "税",
    "米",
    "気候変動",
    "日本銀行",
    "銀行 -日本銀行",
    "regulations",
    "\"public cloud\"",
    "cloud -\"public cloud\"",
    "米apple",
    "ai半導体",
    "データセンター",
    "の",
    "the",
];

fn t(s: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(s).unwrap()
}

fn fixture() -> Site {
    let mut site = Site::new();
    site.config.base_url = "http://127.0.0.1/repo/".into();
    site.write_config(&[]);
    let mut hours: std::collections::BTreeMap<String, Vec<Item>> = Default::default();
    for &(id, title, summary, published) in ITEMS {
        let p = t(published);
        let hour = p.format("%Y-%m-%dT%H:00:00+09:00").to_string();
        hours.entry(hour).or_default().push(Item {
            id: id.into(),
            feed: "https://news.example/feed".into(),
            category: "ニュース".into(),
            site: "テストニュース".into(),
            title: title.into(),
            link: format!("https://news.example/{id}"),
            published: p,
            keywords: vec![],
            summary: summary.into(),
            text: String::new(),
            trend: None,
            story: String::new(),
        });
    }
    for (hour, items) in hours {
        let h = t(&hour) + chrono::Duration::hours(1);
        Snapshot {
            hour: h,
            updated: h,
            items,
            body: String::new(),
        }
        .write(&site.path(snapshot_rel_path(&h)))
        .unwrap();
    }
    site.matome(&["build"]).assert_success();
    site
}

/// What `search::terms` says the query matches: the ids, newest first.
fn reference(q: &str) -> Vec<String> {
    let clauses: Vec<(bool, Vec<terms::Term>)> = terms::parse_query(q)
        .into_iter()
        .map(|c| (c.exclude, terms::clause_terms(&c.text)))
        .filter(|(_, t)| !t.is_empty())
        .collect();
    if !clauses.iter().any(|(neg, _)| !neg) {
        return Vec::new();
    }
    let mut hits: Vec<(&str, &str)> = ITEMS
        .iter()
        .filter(|(_, title, summary, _)| {
            let fields = [terms::normalize(title), terms::normalize(summary)];
            clauses
                .iter()
                .all(|(neg, ts)| fields.iter().any(|f| terms::matches_clause(f, ts)) != *neg)
        })
        .map(|&(id, _, _, p)| (id, p))
        .collect();
    hits.sort_by_key(|&(_, p)| std::cmp::Reverse(t(p)));
    hits.into_iter().map(|(id, _)| id.to_string()).collect()
}

fn id_of(link: &str) -> String {
    link.rsplit('/').next().unwrap().to_string()
}

fn cli(site: &Site, q: &str) -> Vec<String> {
    let out = site.matome(&["search", "--json", "--limit", "200", q]);
    out.assert_success();
    out.stdout
        .lines()
        .map(|l| {
            id_of(
                serde_json::from_str::<Value>(l).unwrap()["link"]
                    .as_str()
                    .unwrap(),
            )
        })
        .collect()
}

fn api(server: &Server, q: &str) -> Vec<String> {
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("q", q)
        .append_pair("limit", "200")
        .finish();
    let (status, body) = server.get(&format!("/repo/api/search?{query}"));
    assert_eq!(status, 200, "{q}: {body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| id_of(h["link"].as_str().unwrap()))
        .collect()
}

/// The static page's hits (after every "load more"), and the times it shows.
fn page(b: &mut Browser, static_server: &TestServer, q: &str) -> (Vec<String>, Vec<String>) {
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("q", q)
        .finish();
    b.navigate(&static_server.url(&format!("/repo/search/?{query}")));
    loop {
        b.wait_for(
            "['more','done'].includes(document.getElementById('search-results').dataset.state)",
            WAIT,
        );
        if b.eval("document.getElementById('search-results').dataset.state") == "done" {
            break;
        }
        b.eval("document.getElementById('search-more').click()");
        b.wait_for(
            "document.getElementById('search-results').dataset.state === 'searching' || document.getElementById('search-results').dataset.state === 'done'",
            WAIT,
        );
    }
    let links: Vec<String> = serde_json::from_value(
        b.eval("[...document.querySelectorAll('#search-results .hit-title a')].map(a => a.href)"),
    )
    .unwrap();
    let times: Vec<String> = serde_json::from_value(
        b.eval("[...document.querySelectorAll('#search-results time')].map(t => t.textContent)"),
    )
    .unwrap();
    (links.iter().map(|l| id_of(l)).collect(), times)
}

#[test]
fn cli_api_and_static_page_give_the_same_hits_newest_first() {
    assert!(
        browser::available(),
        "no {}: install Debian's chromium (scripts/setup does)",
        browser::chromium_path().display()
    );
    let site = fixture();
    let server = Server::start(&site);
    let static_server = TestServer::new();
    serve_dir(&static_server, "/repo/", &site.path("public"));
    let mut b = Browser::launch();
    // A reader in UTC still sees the site's times.
    b.call(
        "Emulation.setTimezoneOverride",
        serde_json::json!({"timezoneId": "UTC"}),
    );
    let mut found_any = 0;
    for &q in QUERIES {
        let want = reference(q);
        let by_cli = cli(&site, q);
        let by_api = api(&server, q);
        let (by_page, _) = page(&mut b, &static_server, q);
        assert_eq!(by_cli, want, "matome search {q:?}");
        assert_eq!(by_api, want, "the API, {q:?}");
        assert_eq!(by_page, want, "the static page, {q:?}");
        found_any += usize::from(!want.is_empty());
    }
    assert_eq!(
        found_any,
        QUERIES.len() - 2,
        "all but の and the find something"
    );
    // The partial word and the lone kanji, as the issue names them.
    assert_eq!(reference("幹線"), ["kansen", "shinkansen"]);
    assert_eq!(reference("株"), ["apart", "kabu"]);
    assert_eq!(reference("米"), ["bei"]);
    // Times as the site shows them (Asia/Tokyo), not the browser's UTC.
    let (ids, times) = page(&mut b, &static_server, "株");
    assert_eq!(ids, ["apart", "kabu"]);
    assert_eq!(times, ["2021-07-20 06:45", "2021-07-20 05:30"]);
    assert_eq!(b.eval("new Date(0).getHours()"), 0, "the browser is in UTC");
    // Relevance when asked (CLI and API): the same hits, best first — the whole word 幹線
    // before the part of 新幹線.
    let out = site.matome(&["search", "--json", "--sort", "relevance", "幹線"]);
    let ranked: Vec<String> = out
        .stdout
        .lines()
        .map(|l| {
            id_of(
                serde_json::from_str::<Value>(l).unwrap()["link"]
                    .as_str()
                    .unwrap(),
            )
        })
        .collect();
    let mut a = ranked.clone();
    a.sort();
    assert_eq!(a, ["kansen", "shinkansen"]);
    assert_eq!(ranked[0], "kansen", "{ranked:?}");
    let (_, body) = server.get("/repo/api/search?q=%E5%B9%B9%E7%B7%9A&sort=relevance");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(id_of(v["hits"][0]["link"].as_str().unwrap()), "kansen");
    let (status, _) = server.get("/repo/api/search?q=x&sort=oldest");
    assert_eq!(status, 400, "an unknown order is refused");
    let ids: BTreeSet<String> = ITEMS.iter().map(|i| i.0.to_string()).collect();
    assert_eq!(ids.len(), ITEMS.len());
    assert!(
        b.console.iter().all(|m| !m.contains("exception")),
        "{:?}",
        b.console
    );
}
