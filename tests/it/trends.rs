//! Trends feeds (`kind = "trends"`, Google Trends' RSS with its ht: elements): archived with
//! their search volume and news links, once a day per word, and shown in the old tool's trend
//! table sorted by volume.

use crate::fetch::archived;
use crate::support::{FeedSpec, Response, Site, TestServer};

fn trends_site(server: &TestServer, kind: &str) -> Site {
    server.route("/trends.xml", Response::fixture("google-trends-jp.xml"));
    let site = Site::new();
    site.write_config(&[FeedSpec::new(&server.url("/trends.xml"), "トレンド")
        .site("Google トレンド")
        .extra(&format!("kind = \"{kind}\""))]);
    site
}

#[test]
fn a_trends_feed_keeps_volumes_and_news_links() {
    let server = TestServer::new();
    let site = trends_site(&server, "trends");
    site.matome(&["fetch", "--now", "2021-07-20T14:28:58+09:00"])
        .assert_success();
    let items = archived(&site);
    assert_eq!(items.len(), 4, "{items:#?}");
    let ohtani = items.iter().find(|i| i.title == "大谷翔平").unwrap();
    let t = ohtani.trend.as_ref().expect("trend data");
    assert_eq!(t.volume, Some(200_000), "\"200,000+\" is a number");
    assert!(t.picture.starts_with("https://encrypted-tbn0.gstatic.com/"));
    let news: Vec<(&str, &str, &str)> = t
        .news
        .iter()
        .map(|n| (n.title.as_str(), n.url.as_str(), n.source.as_str()))
        .collect();
    assert_eq!(
        news,
        [
            (
                "大谷翔平、34号2ラン & 盗塁も　リーグトップ独走",
                "https://sports.example.jp/mlb/ohtani-34",
                "スポニチ Sponichi Annex"
            ),
            (
                "エンゼルス大谷 初回に先制弾",
                "https://baseball.example.jp/angels/0720",
                "日刊スポーツ"
            ),
        ],
        "a javascript: news link is dropped"
    );
    let volumes: Vec<Option<u64>> = items
        .iter()
        .map(|i| i.trend.as_ref().unwrap().volume)
        .collect();
    assert_eq!(
        volumes,
        [Some(20_000), Some(200_000), Some(50_000), Some(5_000)]
    );
    // Every item shares the feed's link and has no GUID: each word gets its own id, by day.
    let mut ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4);
    assert!(
        ohtani.id.starts_with("trend:大谷翔平:2021-07-20"),
        "{}",
        ohtani.id
    );

    // The next hour's run sees the same words: nothing new.
    let again = site.matome(&["fetch", "--now", "2021-07-20T15:28:58+09:00"]);
    again.assert_success();
    assert_eq!(archived(&site).len(), 4, "{}", again.stdout);
}

#[test]
fn the_digest_shows_the_trend_table_sorted_by_volume() {
    let server = TestServer::new();
    let site = trends_site(&server, "trends");
    site.matome(&["fetch", "--now", "2021-07-20T14:28:58+09:00"])
        .assert_success();
    site.matome(&["build"]).assert_success();
    let page = site.read("public/2021/07/20/1400/index.html");
    let table = &page[page
        .find("<table class=\"trend-table\">")
        .expect("a trend table")..];
    let table = &table[..table.find("</table>").unwrap()];
    for header in ["トレンドワード", "リンクURL", "検索ボリューム", "登録日"] {
        assert!(
            table.contains(&format!("<th scope=\"col\">{header}</th>")),
            "{header}"
        );
    }
    let order: Vec<u64> = table
        .match_indices("data-volume=\"")
        .map(|(i, m)| {
            let rest = &table[i + m.len()..];
            rest[..rest.find('"').unwrap()].parse().unwrap()
        })
        .collect();
    assert_eq!(order, [200_000, 50_000, 20_000, 5_000], "biggest first");
    assert!(table.contains(">200,000+<"));
    assert!(
        table.contains(
            "href=\"https://sports.example.jp/mlb/ohtani-34\" rel=\"noopener noreferrer\""
        )
    );
    assert!(!table.contains("javascript:"));
    // A trend word links to the search for it: the archived items that mention it.
    assert!(
        table.contains("/test/search/?q=%E5%A4%A7%E8%B0%B7%E7%BF%94%E5%B9%B3"),
        "{table}"
    );
    // No empty news table beside it.
    assert!(!page.contains("class=\"digest-table\""));
}

#[test]
fn the_same_feed_as_news_ignores_the_trend_data() {
    let server = TestServer::new();
    let site = trends_site(&server, "news");
    site.matome(&["fetch", "--now", "2021-07-20T14:28:58+09:00"])
        .assert_success();
    assert!(archived(&site).iter().all(|i| i.trend.is_none()));
}

#[test]
fn an_unknown_feed_kind_is_a_config_error() {
    let server = TestServer::new();
    let site = trends_site(&server, "weather");
    let out = site.matome(&["fetch"]);
    out.assert_code(2);
    assert!(
        out.stderr
            .contains("feeds.kind must be \"news\" or \"trends\""),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("matome.toml:"), "{}", out.stderr);
}
