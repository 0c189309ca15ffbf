//! The built site in real headless Chromium: the search page of a `matome build` under a
//! sub-path (static files only, as on GitHub Pages) and under `matome serve` (the live index),
//! live reload with the build-error overlay, and the reader's side at phone, tablet and desktop
//! widths (issue 22): every article one tap away, nothing wider than the window or clipped in a
//! scrolled box, the sticky header and the highlighted row, the 404 page's search, cloud words
//! large enough to read.

use std::time::Duration;

use matome::content::load_all;

use crate::serve::{Server, demo_site};
use crate::support::TestServer;
use crate::support::browser::{self, Browser};
use crate::support::web::serve_dir;

const WAIT: Duration = Duration::from_secs(20);

fn launch() -> Browser {
    assert!(
        browser::available(),
        "no {}: install Debian's chromium (scripts/setup does)",
        browser::chromium_path().display()
    );
    Browser::launch()
}

fn settle(b: &mut Browser) -> Vec<(String, String)> {
    b.wait_for(
        "['more','done'].includes(document.getElementById('search-results').dataset.state)",
        WAIT,
    );
    let v = b.eval(
        "[...document.querySelectorAll('#search-results .hit')].map(li => [li.querySelector('.hit-title').textContent, li.querySelector('.hit-digest').href])",
    );
    serde_json::from_value(v).unwrap()
}

/// The demo items whose title or summary contains `needle`.
fn matching(site: &crate::support::Site, needle: &str) -> Vec<matome::content::Item> {
    load_all(site.root())
        .unwrap()
        .into_iter()
        .flat_map(|(_, s)| s.items)
        .filter(|i| i.title.contains(needle) || i.summary.contains(needle))
        .collect()
}

/// The titles search shows for `needle`: one hit per story of the matching items, its newest
/// match (search collapses a story's items into one hit), sorted.
fn expected(site: &crate::support::Site, needle: &str) -> Vec<String> {
    let mut newest: std::collections::BTreeMap<String, matome::content::Item> = Default::default();
    for item in matching(site, needle) {
        let story = item.story_id().into_owned();
        match newest.get(&story) {
            Some(seen) => {
                assert_ne!(seen.published, item.published, "a tie within {story}");
                if item.published > seen.published {
                    newest.insert(story, item);
                }
            }
            None => {
                newest.insert(story, item);
            }
        }
    }
    let mut out: Vec<String> = newest.into_values().map(|i| i.title).collect();
    out.sort();
    out
}

#[test]
fn a_built_sites_search_page_finds_every_match_from_static_files_under_a_sub_path() {
    let server = TestServer::new();
    let mut site = demo_site();
    site.config.base_url = server.url("/repo/");
    site.write_config(&[]);
    site.matome(&["build"]).assert_success();
    serve_dir(&server, "/repo/", &site.path("public"));
    let mut b = launch();

    // The demo's 日本銀行 items include a story of two sites (the central bank's climate funds):
    // the page shows it once.
    assert!(matching(&site, "日本銀行").len() > expected(&site, "日本銀行").len());
    for (query, needle) in [("日本銀行", "日本銀行"), ("気候変動", "気候変動")] {
        let want = expected(&site, needle);
        assert!(!want.is_empty(), "the demo has {needle}");
        b.navigate(&server.url(&format!(
            "/repo/search/?q={}",
            url::form_urlencoded::byte_serialize(query.as_bytes()).collect::<String>()
        )));
        let hits = settle(&mut b);
        let mut got: Vec<String> = hits.iter().map(|(t, _)| t.clone()).collect();
        got.sort();
        assert_eq!(
            got, want,
            "{query}: every exact match, one hit per story, nothing else"
        );
        // Results link to their digest pages under the sub-path.
        assert!(
            hits.iter()
                .all(|(_, href)| href.starts_with(&server.url("/repo/20")))
        );
    }
    // The search page made only same-site requests under /repo/ (no server API, no CDN).
    let outside: Vec<String> = server
        .all_requests()
        .into_iter()
        .map(|r| r.path)
        .filter(|p| !p.starts_with("/repo/") || p.contains("/api/"))
        .collect();
    assert!(outside.is_empty(), "{outside:?}");
    assert!(
        b.console.iter().all(|m| !m.contains("Error")),
        "{:?}",
        b.console
    );
}

#[test]
fn under_matome_serve_the_search_page_asks_the_live_index() {
    let site = demo_site();
    let server = Server::start(&site);
    let mut b = launch();
    b.navigate(&format!(
        "{}search/?q=%E6%97%A5%E6%9C%AC%E9%8A%80%E8%A1%8C",
        server.url
    ));
    let hits = settle(&mut b);
    assert!(!hits.is_empty());
    // The API's hits link to the preview with the item's anchor (the static index links by path).
    assert!(
        hits.iter()
            .all(|(_, href)| href.starts_with(&server.url) && href.contains("#item-")),
        "{hits:?}"
    );
    let mut got: Vec<String> = hits.into_iter().map(|(t, _)| t).collect();
    got.sort();
    assert_eq!(got, expected(&site, "日本銀行"));
}

#[test]
fn live_reload_shows_changes_and_build_errors_in_the_browser() {
    let site = demo_site();
    let server = Server::start(&site);
    let mut b = launch();
    b.navigate(&format!("{}2021/07/20/0800/", server.url));
    b.wait_for("document.querySelector('h1') !== null", WAIT);
    // Give the page a moment to open its event stream.
    b.wait_for("performance.now() > 500", WAIT);

    let p = site.path("content/2021/07/20/0800.md");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, format!("{text}\n編集部の**メモ**です。\n")).unwrap();
    b.wait_for(
        "document.querySelector('.note strong') && document.querySelector('.note strong').textContent === 'メモ'",
        WAIT,
    );

    site.write(
        "templates/digest.html",
        "{% extends \"base.html\" %}{% block main %}{{ broken(\n",
    );
    let overlay = b.wait_for(
        "(document.getElementById('matome-error') || {}).textContent",
        WAIT,
    );
    assert!(
        overlay.as_str().unwrap().contains("templates/digest.html"),
        "{overlay}"
    );

    std::fs::remove_file(site.path("templates/digest.html")).unwrap();
    b.wait_for(
        "!document.getElementById('matome-error') && !!document.querySelector('.note strong')",
        WAIT,
    );
}

// --- Issue 22: the reader's side, at phone, tablet and desktop widths ---

/// The widths every page is read at: a small phone, a common phone, a tablet, a small laptop
/// and a desktop.
const WIDTHS: [u32; 5] = [320, 390, 768, 1024, 1350];

/// The demo site built under `/repo/` and served from its files, as GitHub Pages would.
fn built_demo(server: &TestServer) -> crate::support::Site {
    let mut site = demo_site();
    site.config.base_url = server.url("/repo/");
    site.write_config(&[]);
    site.matome(&["build"]).assert_success();
    serve_dir(server, "/repo/", &site.path("public"));
    site
}

/// The demo's digests: URL under /repo/ and the links of its news items, in file order.
fn digests(site: &crate::support::Site) -> Vec<(String, Vec<String>)> {
    load_all(site.root())
        .unwrap()
        .into_iter()
        .map(|(_, s)| {
            let url = s.hour.format("/repo/%Y/%m/%d/%H%M/").to_string();
            let links = s
                .items
                .into_iter()
                .filter(|i| i.trend.is_none())
                .map(|i| i.link)
                .collect();
            (url, links)
        })
        .collect()
}

/// For each element matched by `sel`: the first link in it that matches `link` must be
/// visible inside the window and the element hit at its middle (not covered, not clipped).
/// Returns `{links: [href…], problems: [text…]}`.
pub(crate) fn tappable_links_js(sel: &str, link: &str) -> String {
    format!(
        r#"(async () => {{
  const problems = [], links = [];
  for (const el of document.querySelectorAll({sel:?})) {{
    const a = el.querySelector({link:?});
    if (!a) {{ problems.push((el.id || el.textContent.slice(0, 30)) + ': no link'); links.push(''); continue; }}
    links.push(a.href);
    a.scrollIntoView({{block: 'center'}});
    await new Promise(r => requestAnimationFrame(r));
    const box = a.getClientRects()[0];
    const name = (el.id || a.textContent.slice(0, 30));
    if (!box || box.width < 1 || box.height < 1) {{ problems.push(name + ': not visible'); continue; }}
    if (box.left < 0 || box.right > innerWidth + 0.5) problems.push(name + ': outside the window ' + box.left + '..' + box.right);
    const hit = document.elementFromPoint(box.left + Math.min(box.width / 2, 6), box.top + box.height / 2);
    if (!hit || !(hit === a || a.contains(hit))) problems.push(name + ': covered by ' + (hit ? hit.outerHTML.slice(0, 60) : 'nothing'));
  }}
  return {{links, problems}};
}})()"#
    )
}

#[test]
fn every_digest_item_and_list_row_has_a_visible_tappable_link_to_its_article_at_every_width() {
    let server = TestServer::new();
    let site = built_demo(&server);
    let digests = digests(&site);
    let mut b = launch();
    for width in WIDTHS {
        b.set_viewport(width, 800);
        for (url, want) in &digests {
            b.navigate(&server.url(url));
            let v = b.eval(&tappable_links_js(
                ".digest-table tbody tr",
                "th a[href^='http']",
            ));
            assert_eq!(v["problems"], serde_json::json!([]), "{width} px, {url}");
            let got: Vec<String> = serde_json::from_value(v["links"].clone()).unwrap();
            assert_eq!(
                &got, want,
                "{width} px, {url}: one title link per item, in order"
            );
        }
        // A category's and a keyword's rows: the item's digest row in one tap (its title links
        // the article: two taps, which keeps term pages' bytes within issue 21's budget).
        for url in ["/repo/categories/IT/", "/repo/keywords/ai/"] {
            b.navigate(&server.url(url));
            let v = b.eval(&tappable_links_js(".rows li", "a[href*='#item-']"));
            assert_eq!(v["problems"], serde_json::json!([]), "{width} px, {url}");
            assert!(!v["links"].as_array().unwrap().is_empty(), "{url}");
        }
    }
    assert!(
        b.console.iter().all(|m| !m.contains("Error")),
        "{:?}",
        b.console
    );
}

/// Elements that clip their content in a box that scrolls or hides it, and a document wider
/// than the window.
pub(crate) const CLIPPED_JS: &str = r#"(() => {
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > innerWidth) out.push('the document: ' + doc.scrollWidth + ' px wide in ' + innerWidth);
  for (const el of document.querySelectorAll('body *')) {
    if (!(el instanceof HTMLElement)) continue;
    const x = getComputedStyle(el).overflowX;
    if (x === 'visible' || el.clientWidth <= 1 || el.clientHeight <= 1) continue;
    if (el.scrollWidth > el.clientWidth + 1)
      out.push(el.tagName.toLowerCase() + '.' + el.className + ': ' + el.scrollWidth + ' px in ' + el.clientWidth + ' (' + x + ')');
  }
  return out;
})()"#;

#[test]
fn no_page_scrolls_sideways_or_clips_its_content_in_a_scrolled_box_at_any_width() {
    let server = TestServer::new();
    let _site = built_demo(&server);
    let mut b = launch();
    let pages = [
        "",
        "2021/07/20/0800/",
        "2021/07/20/",
        "2021/07/",
        "2021/",
        "archives/",
        "categories/",
        "categories/IT/",
        "sites/",
        "keywords/",
        "keywords/ai/",
        "trends/",
        "health/",
        "search/?q=%E6%97%A5%E6%9C%AC%E9%8A%80%E8%A1%8C",
        "no/such/page/",
    ];
    let mut problems = Vec::new();
    for width in WIDTHS {
        b.set_viewport(width, 800);
        for page in pages {
            b.navigate(&server.url(&format!("/repo/{page}")));
            if page.starts_with("search/") {
                settle(&mut b);
            }
            let v = b.eval(CLIPPED_JS);
            for p in v.as_array().unwrap() {
                problems.push(format!("{width} px /repo/{page}: {}", p.as_str().unwrap()));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_digest_header_sticks_and_a_row_reached_by_its_anchor_is_highlighted_below_it() {
    let server = TestServer::new();
    let _site = built_demo(&server);
    let mut b = launch();
    let state = r#"(async () => {
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const bg = el => getComputedStyle(el).backgroundColor;
  const row = document.getElementById('item-5'), other = document.getElementById('item-7');
  const lit = el => [bg(el), bg(el.querySelector('th'))].find(c => c !== 'rgba(0, 0, 0, 0)') || '';
  const head = document.querySelector('.digest-table thead th').getBoundingClientRect();
  return {target: row.matches(':target'), lit: lit(row), other: lit(other),
          top: row.getBoundingClientRect().top, head: head.bottom, headTop: head.top};
})()"#;
    for width in WIDTHS {
        b.set_viewport(width, 800);
        b.navigate(&server.url("/repo/"));
        b.navigate(&server.url("/repo/2021/07/20/0800/#item-5"));
        let v = b.eval(state);
        assert_eq!(v["target"], true, "{width} px: {v}");
        assert_ne!(v["lit"], "", "{width} px: the row is highlighted: {v}");
        assert_eq!(v["other"], "", "{width} px: only that row: {v}");
        let top = v["top"].as_f64().unwrap();
        assert!(top >= 0.0, "{width} px: the row is in the window: {v}");
        if width > 860 {
            // The header is stuck to the top of the window and the row is below it.
            assert!(
                v["headTop"].as_f64().unwrap().abs() < 1.0,
                "{width} px: {v}"
            );
            assert!(top >= v["head"].as_f64().unwrap() - 1.0, "{width} px: {v}");
        }
    }
}

#[test]
fn the_404_page_has_a_search_box_that_finds_the_sites_items() {
    let server = TestServer::new();
    let site = built_demo(&server);
    let mut b = launch();
    b.set_viewport(390, 800);
    b.navigate(&server.url("/repo/2020/no/such/page/"));
    b.eval(
        "(() => { const f = document.querySelector('main form[role=search]'); \
         f.querySelector('input[name=q]').value = '日本銀行'; f.requestSubmit(); })()",
    );
    b.wait_for(
        "location.pathname === '/repo/search/' && document.readyState === 'complete' && !!document.getElementById('search-results')",
        WAIT,
    );
    let mut got: Vec<String> = settle(&mut b).into_iter().map(|(t, _)| t).collect();
    got.sort();
    let want = expected(&site, "日本銀行");
    assert!(!want.is_empty());
    assert_eq!(got, want);
}

#[test]
fn word_cloud_words_are_never_drawn_under_12_px_on_a_phone() {
    let server = TestServer::new();
    let _site = built_demo(&server);
    let mut b = launch();
    for width in [320, 390] {
        b.set_viewport(width, 800);
        b.navigate(&server.url("/repo/2021/07/20/"));
        let sizes: Vec<f64> = serde_json::from_value(b.eval(
            "[...document.querySelectorAll('svg.cloud text')].map(t => parseFloat(t.getAttribute('font-size')) * t.ownerSVGElement.getScreenCTM().a)",
        ))
        .unwrap();
        assert!(sizes.len() > 20, "{width} px: {} words", sizes.len());
        let smallest = sizes.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(smallest >= 12.0, "{width} px: a word at {smallest:.1} px");
    }
}

#[test]
fn the_stacked_digest_is_still_a_table_to_screen_readers() {
    let server = TestServer::new();
    let site = built_demo(&server);
    let rows = digests(&site)[0].1.len();
    let mut b = launch();
    b.set_viewport(390, 800);
    b.navigate(&server.url(&digests(&site)[0].0));
    assert_eq!(
        b.eval("getComputedStyle(document.querySelector('.digest-table tr')).display"),
        "block",
        "stacked at 390 px"
    );
    b.call("Accessibility.enable", serde_json::json!({}));
    let tree = b.call("Accessibility.getFullAXTree", serde_json::json!({}));
    let count = |role: &str| {
        tree["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["role"]["value"] == role)
            .count()
    };
    assert_eq!(count("table"), 1);
    // Six columns but the URL's, hidden below 1200 px (the title links the article).
    assert_eq!(count("columnheader"), 5);
    assert_eq!(count("rowheader"), rows, "each item's title heads its row");
    assert!(count("row") > rows, "a row per item and the header row");
}
