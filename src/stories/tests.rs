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
fn japanese_titles_naming_different_products_stay_apart() {
    let s = stories(&[
        item(
            "窓の杜",
            "「Acme Browser」に緊急アップデート、悪用されているゼロデイ脆弱性を修正",
            "https://mado.example/1",
            0,
        ),
        item(
            "Security NEXT",
            "「Acme Browser」にアップデート - ゼロデイ脆弱性を修正",
            "https://snext.example/2",
            2,
        ),
        item(
            "Security NEXT",
            "「Zeta Reader」にアップデート - 悪用されているゼロデイ脆弱性を修正",
            "https://snext.example/3",
            3,
        ),
    ]);
    assert_eq!(s[0], s[1], "one product's fix: {s:?}");
    assert!(!s[..2].contains(&s[2]), "another product's fix: {s:?}");
}

#[test]
fn an_outage_and_a_launch_of_one_region_stay_apart() {
    let s = stories(&[
        item(
            "AWS ブログ",
            "AWS 東京リージョンで Amazon EC2 Z9 インスタンスが利用可能に",
            "https://aws.example/1",
            0,
        ),
        item(
            "ITmedia NEWS",
            "AWS東京リージョンで障害　一部のEC2インスタンスに接続できず",
            "https://itm.example/2",
            20,
        ),
        item(
            "クラウド Watch",
            "AWS、東京リージョンで障害　一部EC2インスタンスに接続できず",
            "https://cw.example/3",
            21,
        ),
    ]);
    assert_eq!(s[1], s[2], "one outage: {s:?}");
    assert_ne!(s[0], s[1], "an availability is not an outage: {s:?}");
}

#[test]
fn a_leak_and_the_launch_it_leaked_stay_apart() {
    let s = stories(&[
        item(
            "The Verge",
            "Samsung's Galaxy Z Fold 9 leaks in full ahead of Unpacked",
            "https://verge.example/1",
            0,
        ),
        item(
            "The Verge",
            "Samsung unveils the Galaxy Z Fold 9 at Unpacked",
            "https://verge.example/2",
            40,
        ),
        item(
            "Ars Technica",
            "Samsung unveils Galaxy Z Fold 9 with a thinner hinge at Unpacked",
            "https://ars.example/3",
            41,
        ),
    ]);
    assert_eq!(s[1], s[2], "one launch: {s:?}");
    assert_ne!(s[0], s[1], "the leak before it: {s:?}");
}

#[test]
fn a_launch_time_notice_and_the_launchs_outcome_stay_apart() {
    let s = stories(&[
        item(
            "JAXA",
            "H3ロケット11号機による技術試験衛星の打上げ時刻について",
            "https://jaxa.example/1",
            0,
        ),
        item(
            "NHK",
            "H3ロケット11号機 打ち上げ成功 技術試験衛星を軌道に",
            "https://nhk.example/2",
            30,
        ),
        item(
            "sorae",
            "H3ロケット11号機打ち上げ成功、技術試験衛星を分離",
            "https://sorae.example/3",
            31,
        ),
    ]);
    assert_eq!(s[1], s[2], "{s:?}");
    assert_ne!(s[0], s[1], "a plan is not its outcome: {s:?}");
}

#[test]
fn a_share_price_and_a_deal_value_agree_and_rounded_closes_join() {
    let s = stories(&[
        item(
            "日経",
            "ミナト商事、コダマ製作所にTOB　1株3100円で完全子会社化",
            "https://nk.example/1",
            0,
        ),
        item(
            "ロイター",
            "ミナト商事、コダマ製作所を約900億円で買収へ　TOBで完全子会社化",
            "https://rt.example/2",
            1,
        ),
        item(
            "日経マーケット",
            "日経平均が大幅続伸、800円高　半導体株に買い",
            "https://nk.example/3",
            6,
        ),
        item(
            "株探",
            "東京株式（大引け）＝日経平均は812円高、半導体株に買い",
            "https://kb.example/4",
            6,
        ),
        item(
            "ロイター",
            "東京株式市場・大引け＝日経平均は大幅続伸、半導体株に買い　650円高",
            "https://rt.example/5",
            6,
        ),
    ]);
    assert_eq!(s[0], s[1], "a price per share and the deal's value: {s:?}");
    assert_eq!(s[2], s[3], "800円高 is 812円高 rounded: {s:?}");
    assert!(!s[2..4].contains(&s[4]), "650円高 is another close: {s:?}");
}

#[test]
fn an_abbreviation_is_the_name_written_in_full() {
    let s = stories(&[
        item(
            "ロイター",
            "米CPI、6月は前年比2.8%上昇　コアは鈍化",
            "https://rt.example/1",
            0,
        ),
        item(
            "日経",
            "米消費者物価6月2.8%上昇　コアは鈍化",
            "https://nk.example/2",
            1,
        ),
        item(
            "日経",
            "米GDP、4〜6月は年率2.8%増　個人消費が回復",
            "https://nk.example/3",
            2,
        ),
    ]);
    assert_eq!(s[0], s[1], "{s:?}");
    assert!(!s[..2].contains(&s[2]), "another statistic: {s:?}");
}

#[test]
fn a_carrier_and_its_brand_are_one_name_another_carrier_is_not() {
    let s = stories(&[
        item(
            "ITmedia Mobile",
            "auで通信障害　全国で音声通話がつながりにくい状況",
            "https://itm.example/1",
            0,
        ),
        item(
            "NHK",
            "KDDI 通信障害 全国で音声通話つながりにくく",
            "https://nhk.example/2",
            1,
        ),
        item(
            "ITmedia Mobile",
            "ドコモで通信障害　全国で音声通話がつながりにくい状況",
            "https://itm.example/3",
            30,
        ),
    ]);
    assert_eq!(s[0], s[1], "{s:?}");
    assert!(!s[..2].contains(&s[2]), "another carrier's outage: {s:?}");
}

#[test]
fn moves_of_two_markets_the_same_day_stay_apart() {
    let s = stories(&[
        item(
            "ロイター",
            "米国株式市場＝下落、CPI上振れで利下げ観測後退",
            "https://rt.example/1",
            0,
        ),
        item(
            "日経マーケット",
            "NYダウ続落、CPI上振れで利下げ観測後退",
            "https://nk.example/2",
            1,
        ),
        item(
            "ブルームバーグ",
            "円が対ドルで下落、CPI上振れで利下げ観測後退",
            "https://bb.example/3",
            1,
        ),
    ]);
    assert_eq!(s[0], s[1], "one market's close: {s:?}");
    assert!(!s[..2].contains(&s[2]), "the yen is another market: {s:?}");
}

#[test]
fn public_betas_are_a_pre_release() {
    let s = stories(&[
        item(
            "9to5Mac",
            "iOS 30 public beta now available: here's how to install it",
            "https://9to5.example/1",
            0,
        ),
        item(
            "MacRumors",
            "Apple Releases First Public Betas of iOS 30",
            "https://mr.example/2",
            2,
        ),
        item(
            "MacRumors",
            "Apple Releases iOS 30 With New Lock Screen",
            "https://mr.example/3",
            4,
        ),
    ]);
    assert_eq!(s[0], s[1], "{s:?}");
    assert!(
        !s[..2].contains(&s[2]),
        "the release is not the beta: {s:?}"
    );
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

/// The demo archive's first hours: a cloud PC for small firms and a bank's loans for small
/// firms share the one compound 中小企業向け (cut into 中小 + 企業 + 向け) and an amount in yen,
/// and in a window of a few dozen items every word is rare; they are two events.
#[test]
fn two_titles_sharing_only_one_compound_and_a_currency_stay_apart() {
    let with_text = |mut i: Item, text: &str| {
        i.text = text.into();
        i
    };
    let mut items = vec![
        with_text(
            item(
                "ITニュース総合",
                "[クラウド] 中小企業向けクラウドPC、月額3300円から　初期設定は最短10分",
                "https://it.example/news042.html",
                0,
            ),
            "クラウド事業者のネクサスクラウドは7月20日、従業員50人以下の中小企業を対象にしたクラウドPCサービス“DeskLine”を8月から提供すると発表した。料金は1ユーザー当たり月額3,300円（税込）からで、初期設定は最短10分で完了するという。",
        ),
        item(
            "ITニュース総合",
            "政府、半導体の国内生産拠点整備に追加支援　先端ロジック工場の誘致へ",
            "https://it.example/news023.html",
            0,
        ),
        with_text(
            item(
                "セキュリティ速報",
                "ランサムウェア被害、上半期は1.5倍に　VPN機器の脆弱性狙う",
                "https://sec.example/1",
                1,
            ),
            "2021年上半期に報告されたランサムウェアの被害は前年同期の約1.5倍に増えた。修正プログラムを適用していなかった中小企業の被害が目立つ。",
        ),
        item(
            "マネー&マーケット",
            "日銀、気候変動対応の資金供給で初回オペ",
            "https://mm.example/0005",
            1,
        ),
        with_text(
            item(
                "マネー&マーケット",
                "大手銀行、中小企業向け脱炭素融資に専用枠　総額1兆円",
                "https://mm.example/0006",
                2,
            ),
            "大手銀行グループは、中小企業の脱炭素に向けた設備投資を支援する総額1兆円の融資枠を設けると発表した。省エネ設備の導入や再生可能エネルギーへの切り替えを計画する企業に、通常より低い金利で資金を貸し出す。",
        ),
    ];
    // the demo's items carry their 頻出ワード, as fetch writes them
    items[0].keywords = vec!["初期設定".into(), "クラウドPC".into(), "中小企業".into()];
    items[4].keywords = vec!["大手銀行".into(), "脱炭素融資".into(), "中小企業".into()];
    let s = stories(&items);
    assert_ne!(s[0], s[4], "{s:?}");
}
