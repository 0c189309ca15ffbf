//! Stories in real headless Chromium at phone, tablet and desktop widths (390, 768, 1350 px):
//! a digest's story lines (the open list of other sites on a story's first row, the link to it on
//! later rows), the day page's and the home page's top stories. Nothing scrolls sideways or is
//! clipped, every story link is visible, at least 24 px tall and not covered, a later row's link
//! lands on the story's first row (highlighted), the list folds, and each row's 頻出ワード are its
//! own. With `MATOME_SHOTS=DIR` the pages are also saved as screenshots
//! (`DIR/stories-{digest,day,home}-{width}.png`; the README's, in docs/, are the demo site's, by
//! `scripts/screenshot`).

use base64::Engine as _;
use matome::content::Item;
use serde_json::json;

use crate::browser_site::{CLIPPED_JS, tappable_links_js};
use crate::support::browser::{self, Browser};
use crate::support::snapshots::{self, Source, write_digest as write};
use crate::support::web::serve_dir;
use crate::support::{Site, TestServer};

const WIDTHS: [u32; 3] = [390, 768, 1350];

const ITMEDIA: Source = Source::new("ITmedia NEWS", "itmedianews");
const NIKKEI: Source = Source::new("日経電子版", "nikkei");
const MINATO: Source = Source::new("みなと新聞", "minato-np");
const IMPRESS: Source = Source::new("Impress Watch", "impresswatch");
const DEVNOTE: Source = Source::new("開発ノート", "devnote");
const CNET: Source = Source::new("CNET Japan", "cnetjapan");
const VERGE: Source = Source::new("The Verge", "theverge");
const REUTERS: Source = Source::new("ロイター", "reuters");
const BLOOMBERG: Source = Source::new("Bloomberg", "bloomberg");
const SCIENCE: Source = Source::new("サイエンス・デイリー", "sciencedaily");

/// An item of `source` in category `cat` with the 頻出ワード its title would give; `story` names
/// the (source, id) of the story's first item.
fn item(
    id: &str,
    source: Source,
    cat: &str,
    title: &str,
    keywords: &[&str],
    story: Option<(Source, &str)>,
) -> Item {
    let mut item = snapshots::item(id, source, title, story);
    item.category = cat.into();
    item.keywords = keywords.iter().map(|k| k.to_string()).collect();
    item.summary = format!("{title}。記事の要約です。");
    item
}

/// Two hours of a news morning: a release covered by four sites, a rate decision by three
/// (one in English), an outage by two, and lone items between them.
fn story_site(server: &TestServer) -> Site {
    let mut site = Site::new();
    site.config.base_url = server.url("/repo/");
    site.config.title = "テックニュースまとめ".into();
    site.write_config(&[]);
    write(
        &site,
        "2021-07-20T08:00:00+09:00",
        vec![
            item(
                "r1",
                ITMEDIA,
                "IT",
                "Apple、新型iPhone 13を発表　カメラを大幅強化し価格は据え置き",
                &["Apple", "iPhone 13", "カメラ"],
                None,
            ),
            item(
                "b1",
                NIKKEI,
                "金融",
                "日銀、政策金利を据え置き　物価見通しを上方修正",
                &["日銀", "政策金利", "物価見通し"],
                None,
            ),
            item(
                "l1",
                MINATO,
                "ニュース",
                "大雨で在来線の一部区間が運転見合わせ　午前中の再開目指す",
                &["大雨", "在来線", "運転見合わせ"],
                None,
            ),
            item(
                "o1",
                IMPRESS,
                "IT",
                "大手クラウドで大規模障害、国内の複数サービスに影響",
                &["クラウド", "大規模障害"],
                None,
            ),
            item(
                "l2",
                DEVNOTE,
                "Program",
                "Rustの非同期処理でキャンセルを安全に扱う3つのパターン",
                &["Rust", "非同期処理", "キャンセル"],
                None,
            ),
        ],
    );
    write(
        &site,
        "2021-07-20T09:00:00+09:00",
        vec![
            item(
                "r2",
                IMPRESS,
                "IT",
                "iPhone 13シリーズ発表、A15 Bionic搭載で9月24日発売",
                &["iPhone 13", "A15 Bionic"],
                Some((ITMEDIA, "r1")),
            ),
            item(
                "r3",
                CNET,
                "IT",
                "アップル、「iPhone 13」を発表--バッテリー持続時間が延長",
                &["アップル", "iPhone 13", "バッテリー"],
                Some((ITMEDIA, "r1")),
            ),
            item(
                "r4",
                VERGE,
                "海外TECH",
                "Apple announces the iPhone 13 with a bigger battery and a brighter display",
                &["Apple", "iPhone 13", "battery"],
                Some((ITMEDIA, "r1")),
            ),
            item(
                "b2",
                REUTERS,
                "金融",
                "日銀が金融政策の現状維持を決定、物価見通し引き上げ",
                &["日銀", "金融政策", "物価見通し"],
                Some((NIKKEI, "b1")),
            ),
            item(
                "b3",
                BLOOMBERG,
                "金融",
                "BOJ holds rates steady, raises its inflation outlook",
                &["BOJ", "rates", "inflation outlook"],
                Some((NIKKEI, "b1")),
            ),
            item(
                "o2",
                ITMEDIA,
                "IT",
                "クラウド障害が復旧、原因はネットワーク設定の誤り",
                &["クラウド障害", "ネットワーク設定"],
                Some((IMPRESS, "o1")),
            ),
            item(
                "l3",
                SCIENCE,
                "科学",
                "小惑星の砂から水とアミノ酸の痕跡　探査機が持ち帰った試料を分析",
                &["小惑星", "アミノ酸", "探査機"],
                None,
            ),
        ],
    );
    site.matome(&["build"]).assert_success();
    serve_dir(server, "/repo/", &site.path("public"));
    site
}

fn shot(b: &mut Browser, name: &str, width: u32) {
    let Some(dir) = std::env::var_os("MATOME_SHOTS") else {
        return;
    };
    b.eval("window.scrollTo(0, 0)");
    let v = b.call("Page.captureScreenshot", json!({"format": "png"}));
    let png = base64::engine::general_purpose::STANDARD
        .decode(v["data"].as_str().unwrap())
        .unwrap();
    let path = std::path::Path::new(&dir).join(format!("stories-{name}-{width}.png"));
    std::fs::write(path, png).unwrap();
}

/// Each digest row's 頻出ワード that its title does not hold (a keyword chip's text without its
/// hidden label), and how many chips the rows show.
const FOREIGN_KEYWORDS_JS: &str = r#"(() => {
  const out = [];
  let chips = 0;
  for (const tr of document.querySelectorAll('.digest-table tbody tr')) {
    const title = tr.querySelector('th > a').textContent.toLowerCase();
    for (const c of tr.querySelectorAll('td:nth-of-type(4) > a, td:nth-of-type(4) > span')) {
      chips++;
      const k = [...c.childNodes].filter(n => !(n.classList && n.classList.contains('visually-hidden')))
        .map(n => n.textContent).join('');
      if (!title.includes(k.toLowerCase())) out.push(tr.id + ': ' + k);
    }
  }
  return {foreign: out, chips};
})()"#;

/// Every story link and summary: visible, in the window, ≥ 24 px tall, not covered.
const TAP_TARGETS_JS: &str = r#"(async () => {
  const out = [];
  for (const a of document.querySelectorAll('.digest-table th a.story, .digest-table th summary, .stories a')) {
    a.scrollIntoView({block: 'center'});
    await new Promise(r => requestAnimationFrame(r));
    const box = a.getClientRects()[0];
    const name = a.textContent.slice(0, 24);
    if (!box || box.width < 1 || box.height < 1) { out.push(name + ': not visible'); continue; }
    if (box.height < 24 && !a.closest('li')) out.push(name + ': ' + box.height + ' px tall');
    if (box.left < 0 || box.right > innerWidth + 0.5) out.push(name + ': outside the window');
    const hit = document.elementFromPoint(box.left + Math.min(box.width / 2, 6), box.top + box.height / 2);
    if (!hit || !(hit === a || a.contains(hit))) out.push(name + ': covered by ' + (hit ? hit.outerHTML.slice(0, 60) : 'nothing'));
  }
  return out;
})()"#;

#[test]
fn stories_read_and_tap_well_at_phone_tablet_and_desktop_widths() {
    assert!(
        browser::available(),
        "no chromium: scripts/setup installs it"
    );
    let server = TestServer::new();
    let _site = story_site(&server);
    let mut b = Browser::launch();
    for width in WIDTHS {
        b.set_viewport(width, 1000);
        for (name, page) in [
            ("digest", "2021/07/20/0800/"),
            ("later", "2021/07/20/0900/"),
            ("day", "2021/07/20/"),
            ("home", ""),
        ] {
            b.navigate(&server.url(&format!("/repo/{page}")));
            let clipped = b.eval(CLIPPED_JS);
            assert_eq!(clipped, json!([]), "{width} px /repo/{page}");
            let taps = b.eval(TAP_TARGETS_JS);
            assert_eq!(taps, json!([]), "{width} px /repo/{page}");
            // Every article, the stories' sources included, one tap away.
            let v = b.eval(&tappable_links_js(
                ".digest-table tbody tr",
                "th a[href^='http']",
            ));
            assert_eq!(v["problems"], json!([]), "{width} px /repo/{page}");
            if ["digest", "later"].contains(&name) {
                // What the screenshots show of each item fits it: its own 頻出ワード.
                let v = b.eval(FOREIGN_KEYWORDS_JS);
                assert_eq!(v["foreign"], json!([]), "{width} px /repo/{page}");
                assert!(v["chips"].as_u64().unwrap() >= 10, "{v}");
            }
            if name != "later" {
                shot(&mut b, name, width);
            }
        }
        // The day leads with the release (four sites), then the rate decision (three), then the
        // outage (two): by distinct sites.
        b.navigate(&server.url("/repo/2021/07/20/"));
        let order = b.eval(
            "[...document.querySelectorAll('.stories > ol > li .count')].map(e => e.textContent)",
        );
        assert_eq!(
            order,
            json!(["4サイト", "3サイト", "2サイト"]),
            "{width} px"
        );
        // A later row's "+N" lands on the story's first row, highlighted, its list open; the
        // list folds.
        b.navigate(&server.url("/repo/2021/07/20/0900/"));
        // Clicked after the evaluation returns, so the navigation does not cut it off; waited
        // for until the new page has its target row (on a loaded machine the URL changes
        // before the page is parsed).
        b.eval("setTimeout(() => document.querySelector('#item-1 a.story').click(), 0); true");
        b.wait_for(
            "location.hash === '#item-1' && location.pathname.endsWith('/0800/') \
             && document.querySelector('tr:target') !== null",
            std::time::Duration::from_secs(10),
        );
        let v = b.eval(
            "(() => { const tr = document.querySelector('tr:target'); const d = tr.querySelector('details'); \
             const open = d.open; d.querySelector('summary').click(); \
             return [tr.id, open, d.open, [...d.querySelectorAll('li')].length]; })()",
        );
        assert_eq!(v, json!(["item-1", true, false, 3]), "{width} px");
    }
    assert!(
        b.console.iter().all(|m| !m.contains("Error")),
        "{:?}",
        b.console
    );
}
