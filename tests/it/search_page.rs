//! The static search page in a real headless Chromium: the index written by
//! `search::static_index`, the default theme's `search.html` and `search.js`, served under a
//! sub-path as GitHub Pages serves a project site.

use std::path::Path;
use std::time::Duration;

use matome::config::Language;
use matome::render::site::BaseUrl;
use matome::render::strings::Strings;
use matome::render::theme::Theme;
use matome::search::static_index::{
    StaticDoc, for_each_term, normalize, write_manifest, write_month,
};
use serde_json::{Value, json};

use crate::support::TestServer;
use crate::support::browser::{self, Browser};
use crate::support::web::serve_dir;

const WAIT: Duration = Duration::from_secs(10);

/// One fixture item: (title, summary, category, digest URL).
type Row = (String, String, &'static str, String);

/// Enough items for long posting lists (over `EXTERNAL_BYTES`, in files of their own).
const FILLERS: usize = 9000;

fn july() -> Vec<Row> {
    let mut rows: Vec<Row> = (0..FILLERS)
        .map(|i| {
            (
                format!("週末のニュースまとめ{i}"),
                "A news roundup.".into(),
                "IT",
                "2021/07/01/0000/".into(),
            )
        })
        .collect();
    for i in 1..=25 {
        let day = 1 + (i - 1) / 5;
        rows.push((
            format!("気候変動ニュース第{i}報"),
            format!("各国の気候変動対策について。記事{i}。"),
            "科学",
            format!("2021/07/{day:02}/0800/"),
        ));
        if i % 5 == 0 {
            // Noise between them, and items that only look like matches.
            rows.push((
                "気候が変わる".into(),
                "天候変化と株価変動".into(), // 気候, 候変 and 変動, never 気候変動
                "科学",
                format!("2021/07/{day:02}/0900/"),
            ));
            rows.push((
                "日本の銀行、金利を据え置き".into(), // 日本 and 銀行 apart
                "地方銀行の決算".into(),
                "金融",
                format!("2021/07/{day:02}/0900/"),
            ));
        }
    }
    for (title, summary, category) in [
        ("日本銀行が金融政策を決定", "長期金利の上昇を容認", "金融"),
        (
            "EU regulators propose rules for AI",
            "The new regulation covers chatbots.",
            "海外TECH",
        ),
        (
            "Deregulation of taxis",
            "Cities debate the market.",
            "海外TECH",
        ),
        (
            "Regulations tighten in Europe",
            "Banks face stricter capital rules.",
            "海外TECH",
        ),
        (
            "Rust 2024 edition released",
            "The regulated release train shipped on time.",
            "IT",
        ),
        ("日銀短観", "日本銀行は短観を公表した。", "金融"),
    ] {
        rows.push((
            title.into(),
            summary.into(),
            category,
            "2021/07/06/1000/".into(),
        ));
    }
    rows
}

fn june() -> Vec<Row> {
    let mut rows: Vec<Row> = (1..=3)
        .map(|i| {
            (
                format!("6月の気候変動記事{i}"),
                "先月の話題。".into(),
                "科学",
                format!("2021/06/{:02}/1200/", 10 + i),
            )
        })
        .collect();
    rows.push((
        "June regulation update".into(),
        "A slow month.".into(),
        "海外TECH",
        "2021/06/20/1200/".into(),
    ));
    rows
}

/// The time of a digest URL (`YYYY/MM/DD/HHMM/`, Tokyo), in Unix seconds.
fn digest_time(url: &str) -> i64 {
    let t = chrono::NaiveDateTime::parse_from_str(&url[..15], "%Y/%m/%d/%H%M").unwrap();
    t.and_utc().timestamp() - 9 * 3600
}

/// Each item published in its digest's hour, a second after the one before it.
fn docs(rows: &[Row]) -> Vec<StaticDoc<'_>> {
    rows.iter()
        .enumerate()
        .map(|(n, (title, summary, category, digest))| StaticDoc {
            title,
            summary,
            link: Some("https://news.example.jp/a"),
            site: "テストニュース",
            category,
            published: digest_time(digest) + n as i64,
            digest_url: digest,
            story: None,
        })
        .collect()
}

/// A built fixture site: the search index of June and July 2021, the search page and the
/// theme's static files, in `public/`.
fn fixture_site(public: &Path) {
    let search = public.join("search");
    let (j6, j7) = (june(), july());
    let tz = chrono_tz::Asia::Tokyo;
    let m6 = write_month(&search, "2021-06", &docs(&j6), tz).unwrap();
    let m7 = write_month(&search, "2021-07", &docs(&j7), tz).unwrap();
    write_manifest(&search, &[m6, m7], &["IT", "科学", "金融", "海外TECH"]).unwrap();
    let empty = tempfile::tempdir().unwrap();
    let theme = Theme::load(
        empty.path(),
        "default",
        BaseUrl::new("https://user.github.io/repo/"),
        chrono_tz::Asia::Tokyo,
    )
    .unwrap();
    let view = json!({
        "site": {"title": "テスト", "base_url": "https://user.github.io/repo/",
                 "base_path": "/repo/", "language": "ja", "generator": "matome test"},
        "t": Strings::of(Language::Ja),
        "page": {"title": "検索", "url": "search/", "kind": "search"},
        "timezone": "Asia/Tokyo",
    });
    let html = theme.render("search.html", &view).unwrap();
    std::fs::write(search.join("index.html"), html).unwrap();
    for (rel, bytes) in &theme.statics {
        std::fs::write(public.join(rel), bytes).unwrap();
    }
}

struct Page {
    b: Browser,
    server: TestServer,
    _dir: tempfile::TempDir,
}

fn open() -> Page {
    assert!(
        browser::available(),
        "no {}: install Debian's chromium (scripts/setup does)",
        browser::chromium_path().display()
    );
    let dir = tempfile::tempdir().unwrap();
    fixture_site(dir.path());
    let server = TestServer::new();
    serve_dir(&server, "/repo/", dir.path());
    Page {
        b: Browser::launch(),
        server,
        _dir: dir,
    }
}

impl Page {
    /// Opens the search page with `query` (already URL-encoded) and waits for the first results.
    fn search(&mut self, query: &str) -> Vec<String> {
        let url = self.server.url(&format!("/repo/search/{query}"));
        self.b.navigate(&url);
        self.settled()
    }

    /// Waits until the page is done searching; the titles shown.
    fn settled(&mut self) -> Vec<String> {
        self.b.wait_for(
            "['more','done'].includes(document.getElementById('search-results').dataset.state)",
            WAIT,
        );
        self.titles()
    }

    /// Opens the search page with no query and waits until it has read the manifest.
    fn blank(&mut self) {
        let url = self.server.url("/repo/search/");
        self.b.navigate(&url);
        self.b.wait_for(
            "document.querySelectorAll('#search-category option').length > 1",
            WAIT,
        );
    }

    fn titles(&mut self) -> Vec<String> {
        let v = self.b.eval(
            "[...document.querySelectorAll('#search-results .hit-title')].map(e => e.textContent)",
        );
        serde_json::from_value(v).unwrap()
    }

    fn status(&mut self) -> String {
        self.b
            .eval("document.getElementById('search-status').textContent")
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

#[test]
fn japanese_query_finds_every_exact_match_newest_first_and_loads_older_months() {
    let mut p = open();
    let first = p.search("?q=%E6%B0%97%E5%80%99%E5%A4%89%E5%8B%95"); // 気候変動
    let expected: Vec<String> = (6..=25)
        .rev()
        .map(|i| format!("気候変動ニュース第{i}報"))
        .collect();
    assert_eq!(first, expected, "a page of 20, newest first");
    assert_eq!(p.status(), "20件を表示中（さらにあります）");
    // The query is highlighted; the form shows it.
    assert_eq!(
        p.b.eval("document.querySelector('.hit mark').textContent"),
        "気候変動"
    );
    assert_eq!(
        p.b.eval("document.getElementById('search-q').value"),
        "気候変動"
    );
    // Accessible: a labelled input, a live region, a list.
    assert_eq!(
        p.b.eval("document.querySelector('label[for=search-q]').textContent"),
        "キーワード"
    );
    assert_eq!(
        p.b.eval("document.getElementById('search-status').getAttribute('role')"),
        "status"
    );
    assert_eq!(
        p.b.eval("document.getElementById('search-results').tagName"),
        "OL"
    );

    p.b.eval("document.getElementById('search-more').click()");
    p.b.wait_for(
        "document.querySelectorAll('#search-results .hit').length === 28",
        WAIT,
    );
    let all = p.settled();
    assert_eq!(
        &all[20..],
        &[
            "気候変動ニュース第5報",
            "気候変動ニュース第4報",
            "気候変動ニュース第3報",
            "気候変動ニュース第2報",
            "気候変動ニュース第1報",
            "6月の気候変動記事3",
            "6月の気候変動記事2",
            "6月の気候変動記事1",
        ],
        "load more reaches June"
    );
    assert!(
        !all.iter().any(|t| t.contains("気候が変わる")),
        "bigrams apart are no match"
    );
    assert_eq!(p.status(), "28件見つかりました");
    assert_eq!(
        p.b.eval("document.getElementById('search-more').hidden"),
        true
    );
    // The digest link honours the sub-path.
    assert_eq!(
        p.b.eval("document.querySelector('.hit-digest').getAttribute('href')"),
        "/repo/2021/07/05/0800/"
    );

    // A rare term narrows the candidates to a page: the long lists of ニュ, ュー and ース are not
    // fetched (the page checks the text anyway); a common word fetches its long list.
    let own_files = "performance.getEntriesByType('resource').filter(e => /b[0-9a-f]{3}-[0-9]+\\.bin/.test(e.name)).length";
    let narrow = p.search("?q=%E3%83%8B%E3%83%A5%E3%83%BC%E3%82%B9%E7%AC%AC25%E5%A0%B1"); // ニュース第25報
    assert_eq!(narrow, ["気候変動ニュース第25報"]);
    assert_eq!(p.b.eval(own_files), 0);
    let news = p.search("?q=news");
    assert_eq!(news.len(), 20);
    assert_eq!(news[0], format!("週末のニュースまとめ{}", FILLERS - 1));
    assert!(p.b.eval(own_files).as_u64().unwrap() > 0);

    let boj = p.search("?q=%E6%97%A5%E6%9C%AC%E9%8A%80%E8%A1%8C"); // 日本銀行
    assert_eq!(boj, ["日銀短観", "日本銀行が金融政策を決定"]);
    assert!(
        p.b.console.iter().all(|m| !m.contains("exception")),
        "{:?}",
        p.b.console
    );
}

#[test]
fn english_query_typed_and_submitted_is_stemmed_and_lands_in_the_url() {
    let mut p = open();
    p.blank();
    assert_eq!(
        p.b.eval("document.getElementById('search-results').dataset.state"),
        "idle"
    );
    // The category filter lists the manifest's categories.
    assert_eq!(
        p.b.eval("[...document.querySelectorAll('#search-category option')].map(o => o.value)"),
        json!(["", "IT", "科学", "金融", "海外TECH"])
    );
    p.b.eval("document.getElementById('search-q').focus()");
    p.b.call("Input.insertText", json!({"text": "Regulations"}));
    p.b.eval("document.querySelector('#search-form button[type=submit]').click()");
    p.b.wait_for("location.search.startsWith('?q=')", WAIT);
    let hits = p.settled();
    assert_eq!(
        p.b.eval("location.search"),
        "?q=Regulations",
        "the query lives in the URL"
    );
    assert_eq!(
        hits,
        [
            "Rust 2024 edition released",
            "Regulations tighten in Europe",
            "EU regulators propose rules for AI",
            "June regulation update",
        ],
        "regulated, regulations, regulators, regulation; never deregulation"
    );
    // Words are AND-ed; -word excludes; a quoted phrase must appear as written.
    assert_eq!(
        p.search("?q=regulations+-europe+-rust"),
        [
            "EU regulators propose rules for AI",
            "June regulation update"
        ]
    );
    assert_eq!(
        p.search("?q=regulation+chatbots"),
        ["EU regulators propose rules for AI"]
    );
    assert_eq!(
        p.search("?q=%22new+regulation%22"),
        ["EU regulators propose rules for AI"]
    );
    assert_eq!(p.search("?q=%22regulation+new%22"), Vec::<String>::new());
    assert_eq!(p.status(), "見つかりませんでした");
    // Filters: category, and dates (which skip months outside them).
    assert_eq!(
        p.search("?q=regulations&category=IT"),
        ["Rust 2024 edition released"]
    );
    let june = p.search("?q=%E6%B0%97%E5%80%99%E5%A4%89%E5%8B%95&from=2021-06-01&to=2021-06-11");
    assert_eq!(june, ["6月の気候変動記事1"]);
    let early_july =
        p.search("?q=%E6%B0%97%E5%80%99%E5%A4%89%E5%8B%95&from=2021-06-12&to=2021-07-01");
    assert_eq!(
        early_july,
        [
            "気候変動ニュース第5報",
            "気候変動ニュース第4報",
            "気候変動ニュース第3報",
            "気候変動ニュース第2報",
            "気候変動ニュース第1報",
            "6月の気候変動記事3",
            "6月の気候変動記事2",
        ]
    );
    // A lone kanji is a query; a lone kana has nothing to look for.
    assert_eq!(
        p.search("?q=%E6%A0%AA"), // 株
        vec!["気候が変わる"; 5],
        "天候変化と株価変動"
    );
    // Back goes to the previous search.
    p.b.eval("history.back()");
    p.b.wait_for("location.search.includes('from=2021-06-12')", WAIT);
    assert_eq!(p.settled().len(), 7);
    p.search("?q=%E3%81%AE"); // の
    assert_eq!(
        p.status(),
        "探せる語がありません。助詞や記号だけでなく、語を入力してください"
    );
}

/// ~200 English words (each step of Porter2, its exceptions and y handling) through the page's
/// stemmer and rust-stemmers; the page's terms and buckets against the writer's.
#[test]
fn page_stemmer_and_terms_agree_with_the_index_writer() {
    let mut p = open();
    p.blank();
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    assert!(words.len() >= 200, "{}", words.len());
    let stems = p.b.eval(&format!(
        "{}.map(w => matomeSearch.stem(w))",
        serde_json::to_string(&words).unwrap()
    ));
    let stemmer = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
    let mut wrong = Vec::new();
    for (w, js) in words.iter().zip(stems.as_array().unwrap()) {
        let rust = stemmer.stem(w);
        if js.as_str() != Some(&*rust) {
            wrong.push(format!("{w}: rust {rust}, page {js}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");

    let texts = [
        "気候変動とAI規制、２０２４年",
        "ＡＢＣ ﾃﾞｰﾀｾﾝﾀｰ　Ünïcode café's naïve résumé",
        "米Apple、iPhone 15を発表。株価は+3.5%",
        "생성형 AI 한국어 テキスト 々〆〇 ヶ所",
        "𠮷野家の牛丼 ＃１ Ⅻ ① ㈱",
    ];
    for text in texts {
        let page = p.b.eval(&format!(
            "matomeSearch.termsOf(matomeSearch.normalize({}))",
            Value::String(text.into())
        ));
        let mut rust = Vec::new();
        for_each_term(&normalize(text), &mut |t| rust.push(t.to_string()));
        assert_eq!(page, json!(rust), "{text}");
    }
    // Queries become the same clauses and terms (terms.rs), stop words included.
    let stop = matome::search::terms::stop_words();
    for q in [
        "幹線 -新幹線",
        "円",
        "の は",
        "the of",
        "\"the cloud\" regulations",
        "米Apple、iPhone15 “全角 引用” －株",
        "ＡＢＣ ﾃﾞｰﾀ 𠮷野家",
        "-\"public cloud\" a円",
    ] {
        let page = p.b.eval(&format!(
            "matomeSearch.clauseTerms({}, {})",
            Value::String(q.into()),
            serde_json::to_string(stop).unwrap()
        ));
        let rust: Vec<Value> = matome::search::terms::parse_query(q)
            .iter()
            .filter_map(|c| {
                let terms = matome::search::terms::clause_terms(&c.text);
                (!terms.is_empty()).then(|| {
                    json!({"neg": c.exclude, "terms": terms.iter().map(|t| json!([t.text, t.position])).collect::<Vec<_>>()})
                })
            })
            .collect();
        assert_eq!(page, json!(rust), "{q}");
    }
    for (term, buckets) in [
        ("気候", 256),
        ("regul", 64),
        ("\u{1}IT", 16),
        ("𠮷野", 4096),
    ] {
        let page = p.b.eval(&format!(
            "matomeSearch.bucketOf({}, {buckets})",
            Value::String(term.into())
        ));
        assert_eq!(
            page,
            json!(matome::search::static_index::bucket_of(term, buckets)),
            "{term}"
        );
    }
}

const WORDS: &str = "
caresses ponies ties cries gas gaps kiwis cats us bus ss class
feed agreed plastered bled motoring sing conflated troubled sized hopping tanned falling hissing
fizzed failing filing happy sky skies dying lying tying idly gently ugly early only singly news
howe atlas cosmos bias andes inning innings outing outings canning cannings herring earring
proceed proceeds exceed exceeded succeed succeeding generous generously generate general
communication community arsenal arsenic relational conditional rational valenci hesitanci
digitizer conformabli radicalli differentli vileli analogousli vietnamization predication
operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti
triplicate formative formalize electriciti electrical hopeful goodness revival allowance
inference airliner gyroscopic adjustable defensible irritant replacement adjustment dependent
adoption homologou communism activate angulariti homologous effective bowdlerize probate rate
cease controll roll yellow sayings saying enjoy obeyed player playing annoyance yes youth yearly
cry crying dry dryness fly flying toy toys buy buying apply applied applies replied relied
regulations regulation regulated regulators regulating regulatory deregulation irregular
regular regularly running runner runs ran easily easy fairly quickly hopefully friendly
consign consigned consigning consignment consist consisted consistency consistent
consistently consisting consists consolation consolations consolatory console consoled
knack knackeries knacks knag knave knaves knavish kneaded kneading knee kneel kneeled
kneeling kneels knees knell knelt knew knick knif knife knight knightly knights knit knits
knitted knitting knives knob knobs knock knocked knocker knockers knocking knocks knopp
knot knots lay layer layered laying lays multiply multiplied ability abilities able
abroad absence absolutely accompanied according accountability achievements acquisition
announcement antitrust apps artificial automakers billion chipmaker companies computing
datacenter encrypted engineers executives falsely governments hacked hackers industries
investors lawsuit legislation microchips outage outages passkeys policies quantum ransomware
semiconductors smartphones startups subscriptions vulnerabilities webassembly zero-day
'tis o'clock dog's dogs' naïve café résumé Ünïcode 2024 3d gpu4 y ye yo aa abc
";

/// Issue 22: the page jumped while results arrived (CLS 0.887 on desktop, 0.10 on a phone). The
/// layout-shift entries, summed from the page's start until the results are shown, stay under
/// 0.05 at phone, tablet and desktop widths; a screenshot of each is kept in
/// target/screenshots/ to look at.
#[test]
fn results_arrive_without_the_page_shifting_at_every_width() {
    use base64::Engine;
    let mut p = open();
    let shots = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    p.b.call(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": "window.__cls = 0; new PerformanceObserver((l) => { for (const e of l.getEntries()) if (!e.hadRecentInput) window.__cls += e.value; }).observe({type: 'layout-shift', buffered: true});"}),
    );
    for (width, height, mobile) in [(390, 844, true), (768, 1024, true), (1350, 900, false)] {
        p.b.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
        );
        let hits = p.search("?q=news");
        assert_eq!(hits.len(), 20, "{width}px");
        // Let the last results lay out and any late shift be reported.
        std::thread::sleep(Duration::from_millis(600));
        let cls = p.b.eval("window.__cls").as_f64().unwrap();
        eprintln!("{width}px: cumulative layout shift {cls:.4}");
        assert!(cls < 0.05, "{width}px: cumulative layout shift {cls}");
        let overflow =
            p.b.eval("document.documentElement.scrollWidth - window.innerWidth");
        assert!(
            overflow.as_i64().unwrap() <= 0,
            "{width}px scrolls sideways: {overflow}"
        );
        let shot = p.b.call("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap();
        std::fs::write(shots.join(format!("search-{width}.png")), png).unwrap();
    }
}
