//! The window index end to end on hand-made items: syndicated copies join, hard negatives stay
//! apart, the window forgets what it must, and an index rebuilt from recorded stories decides
//! as the first one did.

use chrono::{DateTime, Duration, FixedOffset};

use super::*;
use crate::content::Item;

fn at(hour: i64) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339("2026-03-16T09:00:00+09:00").unwrap() + Duration::hours(hour)
}

fn item(site: &str, title: &str, link: &str, hour: i64) -> Item {
    Item {
        id: link.to_string(),
        feed: format!("https://{site}.example/feed"),
        category: "IT".into(),
        site: site.into(),
        title: title.into(),
        link: link.into(),
        published: at(hour),
        keywords: vec![],
        summary: String::new(),
        text: String::new(),
        trend: None,
        story: String::new(),
    }
}

/// The stories of `items` assigned in order by a fresh window (keys "0", "1", …).
fn stories(items: &[Item]) -> Vec<String> {
    let mut index = StoryIndex::new(Settings::default());
    items
        .iter()
        .enumerate()
        .map(|(n, i)| {
            index
                .assign(&n.to_string(), Facts::of(i, i.published))
                .story
        })
        .collect()
}

#[test]
fn a_syndicated_copy_with_a_tracking_query_joins() {
    let s = stories(&[
        item(
            "ITmedia",
            "新型ノートPCを発表",
            "https://www.itmedia.co.jp/news/articles/2603/16/news1.html",
            0,
        ),
        item(
            "Antenna",
            "ノートPC、新しいモデル",
            "http://itmedia.co.jp/news/articles/2603/16/news1.html?utm_source=rss&utm_medium=feed",
            1,
        ),
    ]);
    assert_eq!(s, ["0", "0"]);
}

#[test]
fn the_same_headline_from_another_site_joins_and_labels_do_not_matter() {
    let s = stories(&[
        item(
            "ITmedia NEWS",
            "食品卸の丸越フーズにランサムウェア攻撃　受発注システムが停止",
            "https://a.example/1",
            0,
        ),
        item(
            "Yahoo",
            "食品卸の丸越フーズにランサムウェア攻撃　受発注システムが停止（ITmedia NEWS）",
            "https://b.example/2",
            1,
        ),
    ]);
    assert_eq!(s, ["0", "0"]);
}

#[test]
fn a_release_and_the_next_versions_beta_stay_apart() {
    let s = stories(&[
        item(
            "Rust Blog",
            "Announcing Rust 1.86.0",
            "https://blog.example/rust-1.86",
            0,
        ),
        item(
            "Publickey",
            "Rust 1.86正式リリース。トレイトのアップキャストに対応",
            "https://pk.example/rust186",
            2,
        ),
        item(
            "Rust Blog",
            "Rust 1.87.0 beta is now available for testing",
            "https://blog.example/rust-1.87-beta",
            3,
        ),
        item(
            "Publickey",
            "Rust 1.87ベータ版が公開。トレイトのアップキャストを改善",
            "https://pk.example/rust187b",
            4,
        ),
    ]);
    assert_eq!(s[0], s[1], "one release in two languages: {s:?}");
    assert_ne!(s[0], s[2], "{s:?}");
    assert_ne!(s[1], s[3], "{s:?}");
    assert!(!s[2..].contains(&s[0]), "{s:?}");
}

#[test]
fn a_rate_decision_and_a_survey_of_it_stay_apart() {
    let s = stories(&[
        item(
            "Bloomberg",
            "日銀は今週利上げへ、エコノミストの8割が予想－サーベイ",
            "https://bb.example/1",
            0,
        ),
        item(
            "日経",
            "日銀、政策金利1%に引き上げ　30年ぶり水準",
            "https://nk.example/2",
            50,
        ),
        item(
            "NHK",
            "日銀 追加利上げ決定 政策金利1%程度に 約30年ぶりの水準",
            "https://nhk.example/3",
            50,
        ),
    ]);
    assert_ne!(s[0], s[1], "{s:?}");
    assert_eq!(s[1], s[2], "{s:?}");
}

#[test]
fn two_days_market_closes_stay_apart() {
    let s = stories(&[
        item(
            "日経",
            "日経平均、反落　終値は412円安の5万3120円",
            "https://nk.example/a",
            6,
        ),
        item(
            "日経",
            "日経平均、続落　終値は187円安の5万2933円",
            "https://nk.example/b",
            30,
        ),
    ]);
    assert_ne!(s[0], s[1]);
}

#[test]
fn a_companys_launch_and_its_results_stay_apart() {
    let s = stories(&[
        item(
            "PR TIMES",
            "ハルカゼ住宅、蓄電池を標準搭載した平屋住宅「ひらりZERO」を4月1日に発売",
            "https://pr.example/1",
            0,
        ),
        item(
            "日経",
            "ハルカゼ住宅、蓄電池標準の平屋住宅　シニア夫婦向け",
            "https://nk.example/1",
            2,
        ),
        item(
            "日経",
            "ハルカゼ住宅の前期、純利益18%増　今期は12円増配",
            "https://nk.example/2",
            6,
        ),
        item(
            "株探",
            "ハルカゼ住宅が年初来高値、増配と今期増益見通しを好感",
            "https://kb.example/3",
            24,
        ),
    ]);
    assert_eq!(s[0], s[1], "{s:?}");
    assert!(!s[2..].contains(&s[0]), "{s:?}");
    assert_ne!(
        s[2], s[3],
        "a stock's move is not the results it moved on: {s:?}"
    );
}

#[test]
fn two_central_banks_and_a_market_moving_on_one_stay_apart() {
    let s = stories(&[
        item(
            "日経",
            "米FRB、政策金利を据え置き　年内2回の利下げ見通し維持",
            "https://nk.example/fed",
            0,
        ),
        item(
            "日経マーケット",
            "NYダウ反発、318ドル高　FRBの利下げ見通し維持で",
            "https://nk.example/dow",
            3,
        ),
        item(
            "ロイター",
            "日銀が利上げ、政策金利1.0％に　賛成8・反対1",
            "https://rt.example/boj",
            9,
        ),
        item(
            "Reuters",
            "Bank of Japan raises rates to 1%, highest in three decades",
            "https://reuters.example/boj",
            9,
        ),
    ]);
    assert_ne!(s[0], s[1], "{s:?}");
    assert_ne!(s[0], s[2], "{s:?}");
    assert_ne!(s[0], s[3], "{s:?}");
    assert_eq!(
        s[2], s[3],
        "one bank by either name, across languages: {s:?}"
    );
}

#[test]
fn a_launch_put_off_and_its_success_stay_apart() {
    let s = stories(&[
        item(
            "JAXA",
            "H3ロケット9号機による技術試験衛星10号機の打上げ延期について",
            "https://jaxa.example/1",
            0,
        ),
        item(
            "NHK",
            "H3ロケット9号機 打ち上げ成功 技術試験衛星を予定の軌道に",
            "https://nhk.example/2",
            40,
        ),
        item(
            "共同",
            "H3ロケット9号機打ち上げ成功　技術試験衛星を軌道に投入",
            "https://kyodo.example/3",
            40,
        ),
    ]);
    assert_ne!(s[0], s[1], "{s:?}");
    assert_eq!(s[1], s[2], "{s:?}");
}

#[test]
fn an_item_alone_is_its_own_story_named_by_its_key() {
    let mut index = StoryIndex::new(Settings::default());
    let i = item(
        "NHK",
        "福岡で桜が開花 全国で最も早く",
        "https://nhk.example/sakura",
        0,
    );
    let a = index.assign("key-1", Facts::of(&i, i.published));
    assert_eq!(
        a,
        Assignment {
            story: "key-1".into(),
            joined: false
        }
    );
}

#[test]
fn the_window_forgets_old_items_and_holds_at_most_its_cap() {
    let settings = Settings {
        max_items: 50,
        ..Settings::default()
    };
    let mut index = StoryIndex::new(settings);
    for n in 0..200 {
        let i = item(
            "s",
            &format!("記事{n}号の話題 Widget{n}"),
            &format!("https://s.example/{n}"),
            n,
        );
        index.assign(&n.to_string(), Facts::of(&i, i.published));
        assert!(index.len() <= 50);
    }
    // only the last 72 hours stay (and at most 50 items)
    assert!(index.len() <= 50 && index.len() >= 49, "{}", index.len());
    // a copy of an item long gone starts a story of its own
    let old = item("t", "記事0号の話題 Widget0", "https://s.example/0", 200);
    assert!(!index.assign("late", Facts::of(&old, old.published)).joined);
}

#[test]
fn an_index_rebuilt_from_recorded_stories_decides_as_the_first() {
    let items = [
        item(
            "A",
            "Cloudflare acquires Stratowave to bring replicated Postgres to Workers",
            "https://a.example/1",
            0,
        ),
        item(
            "B",
            "Cloudflare acquires database startup Stratowave",
            "https://b.example/2",
            1,
        ),
        item(
            "C",
            "Stratowave joins Cloudflare: replicated Postgres for Workers",
            "https://c.example/3",
            2,
        ),
    ];
    let first = stories(&items);
    assert_eq!(first, ["0", "0", "0"]);
    let mut rebuilt = StoryIndex::new(Settings::default());
    for (i, s) in items[..2].iter().zip(&first) {
        rebuilt.insert(Facts::of(i, i.published), s);
    }
    let last = rebuilt.assign("2", Facts::of(&items[2], items[2].published));
    assert_eq!(last.story, first[2]);
}

#[test]
fn recompute_is_the_incremental_assignment() {
    let items = [
        item(
            "A",
            "AWS東京リージョンで障害　EC2に接続しにくい状態に",
            "https://a.example/1",
            0,
        ),
        item(
            "B",
            "AWS東京リージョンで障害、EC2のAPIエラーが増加",
            "https://b.example/2",
            1,
        ),
        item(
            "C",
            "福岡で桜が開花 全国で最も早く",
            "https://c.example/3",
            2,
        ),
    ];
    assert_eq!(stories(&items), ["0", "0", "2"]);
    let keys = ["0", "1", "2"];
    let batch: Vec<ToAssign> = items
        .iter()
        .zip(keys)
        .map(|(item, key)| ToAssign {
            key,
            item,
            archived: item.published,
        })
        .collect();
    assert_eq!(recompute(&batch, &Settings::default()), stories(&items));
}
