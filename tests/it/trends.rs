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

/// Rising words on a synthetic week: a word that spikes today rises; a steady word, even a
/// frequent one, does not. Shown on the trends page, the day page and the hour's digest, each
/// linked to its keyword page; the day's word clouds are valid SVG whose links resolve.
#[test]
fn rising_words_and_word_clouds_on_the_pages() {
    use chrono::{DateTime, Duration};
    use matome::content::{Item, Snapshot, snapshot_rel_path};
    let mut site = Site::new();
    // The test's items are one site's: every keyword they carry twice gets a page.
    site.config.append = "[build]\nkeyword_min_sites = 1\n".into();
    site.write_config(&[]);
    let start = DateTime::parse_from_rfc3339("2021-07-12T09:00:00+09:00").unwrap();
    for day in 0..8 {
        let hour = start + Duration::days(day);
        let mut items = Vec::new();
        for n in 0..6 {
            let mut keywords = vec!["定番".to_string()];
            // 急騰語: never before the last day, then in every item of it.
            if day == 7 {
                keywords.push("急騰語".into());
            }
            if n % 2 == 0 {
                keywords.push("Kubernetes".into());
            }
            items.push(Item {
                id: format!("{day}-{n}"),
                feed: "https://e.example/feed".into(),
                category: "IT".into(),
                site: "サイト".into(),
                title: format!("記事 {day}-{n}"),
                link: format!("https://e.example/{day}/{n}"),
                published: hour,
                keywords,
                summary: String::new(),
                text: String::new(),
                trend: None,
                story: String::new(),
            });
        }
        Snapshot {
            hour,
            updated: hour,
            items,
            body: String::new(),
        }
        .write(&site.path(snapshot_rel_path(&hour)))
        .unwrap();
    }
    site.matome(&["build"]).assert_success();
    let rising_words = |html: &str| -> Vec<String> {
        let Some(at) = html.find("<table class=\"rising-table\">") else {
            return Vec::new();
        };
        let table = &html[at..at + html[at..].find("</table>").unwrap()];
        table
            .match_indices("<th scope=\"row\">")
            .map(|(i, m)| {
                let rest = &table[i + m.len()..];
                let cell = &rest[..rest.find("</th>").unwrap()];
                crate::support::web::decode_entities(
                    cell.rsplit_once("\">")
                        .map_or(cell, |(_, t)| t)
                        .trim_end_matches("</a>"),
                )
            })
            .collect()
    };
    let trends = site.read("public/trends/index.html");
    assert_eq!(rising_words(&trends), ["急騰語"], "{trends}");
    for w in ["定番", "Kubernetes"] {
        assert!(
            !rising_words(&trends).contains(&w.to_string()),
            "{w} is steady"
        );
    }
    assert!(trends.contains("href=\"/test/keywords/急騰語/\""));
    assert!(trends.contains("class=\"spark\""), "a sparkline per word");
    let last_day = site.read("public/2021/07/19/index.html");
    assert!(rising_words(&last_day).contains(&"急騰語".to_string()));
    let earlier_day = site.read("public/2021/07/18/index.html");
    assert!(
        rising_words(&earlier_day).is_empty(),
        "nothing rose on a steady day"
    );
    let digest = site.read("public/2021/07/19/0900/index.html");
    assert!(
        rising_words(&digest).contains(&"急騰語".to_string()),
        "the hour's rising words"
    );

    // Two clouds on the day page (Japanese, English): valid SVG, words linked.
    let svgs: Vec<&str> = last_day
        .match_indices("<svg class=\"cloud\"")
        .map(|(i, _)| &last_day[i..i + last_day[i..].find("</svg>").unwrap() + 6])
        .collect();
    assert_eq!(svgs.len(), 2, "{last_day}");
    for svg in &svgs {
        roxmltree::Document::parse(svg).expect("the cloud is well-formed XML");
    }
    assert!(svgs[0].contains("急騰語") && svgs[0].contains("href=\"/test/keywords/急騰語/\""));
    assert!(svgs[1].contains("Kubernetes") && !svgs[1].contains("定番"));
    // Every link of the built site (the clouds' included) resolves.
    site.matome(&["check"]).assert_success();
}

#[test]
fn trend_settings_are_read_and_checked() {
    let mut site = Site::new();
    site.config.append = "[trends]\nday_window = 0\n".into();
    site.write_config(&[]);
    let out = site.matome(&["build"]);
    out.assert_code(2);
    assert!(
        out.stderr.contains("trends.day_window must be at least 1"),
        "{}",
        out.stderr
    );
    site.config.append = "[trends]\nwindow = 3\n".into();
    site.write_config(&[]);
    let out = site.matome(&["build"]);
    out.assert_code(2);
    assert!(out.stderr.contains("window"), "{}", out.stderr);
}

/// `ht:approx_traffic` of `99999999999999999999+` was written as `volume =
/// 18446744073709551615`, past TOML's integer range (a strict reader must refuse it; matome's
/// own read it). The volume is clamped to TOML's largest integer; the file reads with the toml
/// crate and tomllib (as every file a command writes does: `support::toml_readers`), and the
/// site builds.
#[test]
fn a_volume_past_tomls_integer_range_is_clamped_and_every_reader_reads_the_file() {
    let server = TestServer::new();
    let feed = String::from_utf8(crate::support::fixture("google-trends-jp.xml"))
        .unwrap()
        .replacen("200,000+", "99999999999999999999+", 1);
    server.route("/trends.xml", Response::rss(feed));
    let site = Site::new();
    site.write_config(&[
        FeedSpec::new(&server.url("/trends.xml"), "トレンド").extra("kind = \"trends\"")
    ]);
    site.matome(&["fetch", "--now", "2021-07-20T14:28:58+09:00"])
        .assert_success();
    let file = site.read(&site.content_files()[0]);
    assert!(file.contains("volume = 9223372036854775807,"), "{file}");
    assert!(!file.contains("18446744073709551615"));
    let items = archived(&site);
    let ohtani = items.iter().find(|i| i.title == "大谷翔平").unwrap();
    assert_eq!(ohtani.trend.as_ref().unwrap().volume, Some(i64::MAX as u64));
    site.matome(&["build"]).assert_success();
}
