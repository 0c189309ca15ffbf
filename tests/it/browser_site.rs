//! The built site in real headless Chromium: the search page of a `matome build` under a
//! sub-path (static files only, as on GitHub Pages) and under `matome serve` (the live index),
//! and live reload with the build-error overlay.

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

/// Titles of the demo items whose title or summary contains `needle`.
fn expected(site: &crate::support::Site, needle: &str) -> Vec<String> {
    let mut out: Vec<String> = load_all(site.root())
        .unwrap()
        .into_iter()
        .flat_map(|(_, s)| s.items)
        .filter(|i| i.title.contains(needle) || i.summary.contains(needle))
        .map(|i| i.title)
        .collect();
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
        assert_eq!(got, want, "{query}: every exact match, nothing else");
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
