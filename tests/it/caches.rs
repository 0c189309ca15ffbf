//! The caches under `.matome/` are verified and rebuilt from content/ when they do not verify,
//! and no path read from them leaves the output folder (issue 11, finding 5).

use std::collections::BTreeMap;

use matome::content::{Item, Snapshot};
use matome::search::site_index::SearchMonth;
use serde::{Deserialize, Serialize};

use crate::support::{FeedSpec, Response, Site, TestServer};

fn demo() -> Site {
    crate::support::demo_site("https://user.github.io/repo/")
}

/// Every archived item by id.
fn items_by_id(site: &Site) -> BTreeMap<String, Item> {
    site.content_files()
        .iter()
        .flat_map(|rel| {
            Snapshot::parse(&site.read(rel), &rel.display().to_string())
                .unwrap()
                .items
        })
        .map(|i| (i.id.clone(), i))
        .collect()
}

/// The segment files of the tantivy index, largest first.
fn segment_files(site: &Site) -> Vec<std::path::PathBuf> {
    let mut files: Vec<(u64, std::path::PathBuf)> = site
        .files_under(".matome/search/tantivy")
        .into_iter()
        .map(|rel| site.path(rel))
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            !name.ends_with(".json") && !name.ends_with(".lock")
        })
        .map(|p| (std::fs::metadata(&p).unwrap().len(), p))
        .collect();
    files.sort();
    files.reverse();
    files.into_iter().map(|(_, p)| p).collect()
}

fn truncate_half(p: &std::path::Path) {
    let bytes = std::fs::read(p).unwrap();
    std::fs::write(p, &bytes[..bytes.len() / 2]).unwrap();
}

/// A truncated segment under `.matome/search/` was never repaired: `build` exited 0 and
/// `search` failed until the folder was deleted by hand.
#[test]
fn a_damaged_search_index_is_rebuilt_from_content() {
    let site = demo();
    site.matome(&["build"]).assert_success();
    let fresh = site.matome(&["search", "--json", "日本銀行"]);
    fresh.assert_success();
    assert!(!fresh.stdout.trim().is_empty(), "{fresh:?}");

    let segments = segment_files(&site);
    assert!(!segments.is_empty());
    truncate_half(&segments[0]);
    let out = site.matome(&["build"]);
    out.assert_success();
    assert_eq!(
        out.stderr.matches("damaged").count(),
        1,
        "said once: {out:?}"
    );
    let again = site.matome(&["search", "--json", "日本銀行"]);
    again.assert_success();
    assert_eq!(again.stdout, fresh.stdout, "{again:?}");
    assert!(!again.stderr.contains("damaged"), "repaired: {again:?}");

    // `search` on its own repairs it too, whichever file is cut.
    // (Each repair writes new segments: the files are listed again each time.)
    for k in 0..segment_files(&site).len() {
        let seg = segment_files(&site)[k].clone();
        truncate_half(&seg);
        let out = site.matome(&["search", "--json", "日本銀行"]);
        out.assert_success();
        assert_eq!(out.stdout, fresh.stdout, "{}: {out:?}", seg.display());
        assert!(out.stderr.contains("damaged"), "{}: {out:?}", seg.display());
    }
}

/// A cut-down `.matome/df.tsv` (header intact) was accepted: 449 of 450 new items got other
/// keywords, written into content/ for good. Now it is rebuilt, and the keywords are the same
/// as with a fresh cache.
#[test]
fn a_cut_down_df_cache_gives_the_same_keywords_as_a_fresh_one() {
    let server = TestServer::new();
    server.route("/rss2.xml", Response::fixture("rss2.xml"));
    let a = demo();
    let b = demo();
    for site in [&a, &b] {
        site.write_config(&[FeedSpec::new(&server.url("/rss2.xml"), "IT")]);
        site.matome(&["fetch", "--now", "2021-07-23T09:28:58+09:00"])
            .assert_success();
    }
    // The cache of `a` loses most of its lines; the one of `b` is gone.
    let df = a.read(".matome/df.tsv");
    let kept: Vec<&str> = df.lines().take(4).collect();
    a.write(".matome/df.tsv", format!("{}\n", kept.join("\n")));
    std::fs::remove_file(b.path(".matome/df.tsv")).unwrap();
    server.route("/atom.xml", Response::fixture("atom.xml"));
    for site in [&a, &b] {
        site.write_config(&[
            FeedSpec::new(&server.url("/rss2.xml"), "IT"),
            FeedSpec::new(&server.url("/atom.xml"), "IT"),
        ]);
        site.matome(&["fetch", "--now", "2021-07-23T10:28:58+09:00"])
            .assert_success();
    }
    let (ia, ib) = (items_by_id(&a), items_by_id(&b));
    assert_eq!(ia.len(), ib.len());
    let new: Vec<&Item> = ia
        .values()
        .filter(|i| i.feed.ends_with("/atom.xml"))
        .collect();
    assert!(!new.is_empty());
    for i in new {
        assert!(!i.keywords.is_empty(), "{}", i.title);
        assert_eq!(i.keywords, ib[&i.id].keywords, "{}", i.title);
    }
}

/// The build record as it is stored (`render::BuildState`).
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    version: u32,
    base_url: String,
    pages: BTreeMap<String, Page>,
    statics: Vec<String>,
    search_months: BTreeMap<String, SearchMonth>,
}

/// A static search month as build records before version 7 kept it: its fingerprint beside the
/// shard, the shard without its files' sums (`render::record`'s `MonthV6`).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct MonthV6 {
    month: String,
    docs: usize,
    files: Vec<String>,
    bytes: u64,
    buckets: usize,
    chunk: usize,
    days: Vec<(u32, u32)>,
    version: String,
    written: usize,
    removed: usize,
}

/// This version's months as a record before version 7 kept them.
fn months_v6(months: BTreeMap<String, SearchMonth>) -> BTreeMap<String, (u64, MonthV6)> {
    months
        .into_iter()
        .map(|(name, m)| {
            let s = m.shard;
            let old = MonthV6 {
                month: s.month,
                docs: s.docs,
                files: s.files,
                bytes: s.bytes,
                buckets: s.buckets,
                chunk: s.chunk,
                days: s.days,
                version: s.version,
                written: s.written,
                removed: s.removed,
            };
            (name, (m.fp, old))
        })
        .collect()
}

/// A page's record (`render::record::PageRecord`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Page {
    fingerprint: u64,
    size: Option<u64>,
}

/// A crafted `.matome/build/*.bin` (a poisoned CI cache) made the build delete files outside
/// `public/`.
#[test]
fn a_crafted_build_record_deletes_nothing_outside_the_output() {
    let site = demo();
    site.matome(&["build"]).assert_success();
    let records = site.files_under(".matome/build");
    assert_eq!(records.len(), 1, "{records:?}");
    let record = site.path(&records[0]);
    let bytes = std::fs::read(&record).unwrap();
    let (mut r, _) = postcard::take_from_bytes::<Record>(&bytes).unwrap();

    let elsewhere = tempfile::tempdir().unwrap();
    let absolute = elsewhere.path().join("x");
    std::fs::write(&absolute, "keep").unwrap();
    std::fs::write(elsewhere.path().join("victim.txt"), "keep").unwrap();
    site.write("outside", "keep");
    site.write("victim/keep.txt", "keep");
    site.write("content/keep.txt", "keep");
    #[cfg(unix)]
    std::os::unix::fs::symlink(elsewhere.path(), site.path("public/link")).unwrap();
    for rel in [
        "../outside".to_string(),
        "../content/keep.txt".to_string(),
        absolute.display().to_string(),
        "link/victim.txt".to_string(),
        "2021/../../outside".to_string(),
    ] {
        let page = Page {
            fingerprint: 1,
            size: Some(1),
        };
        r.pages.insert(rel, page);
    }
    r.statics.push("../outside".into());
    // A month of the static search index that is gone: its folder would be removed.
    let shard = r.search_months.values().next().unwrap().clone();
    for month in ["../../victim", "../../content"] {
        r.search_months.insert(
            month.into(),
            SearchMonth {
                fp: 1,
                ..shard.clone()
            },
        );
    }
    // As the build writes it: the record, then its checksum.
    let crafted = matome::fsutil::seal(postcard::to_stdvec(&r).unwrap());
    std::fs::write(&record, &crafted).unwrap();

    let out = site.matome(&["build"]);
    out.assert_success();
    assert_eq!(site.read("outside"), "keep");
    assert_eq!(site.read("content/keep.txt"), "keep");
    assert_eq!(site.read("victim/keep.txt"), "keep");
    assert!(!site.content_files().is_empty());
    assert!(absolute.exists(), "{}", absolute.display());
    assert!(elsewhere.path().join("victim.txt").exists());
    assert!(site.exists("public/index.html"));

    // A record cut short is no record: a full build, which succeeds.
    truncate_half(&record);
    let out = site.matome(&["build"]);
    out.assert_success();
    assert!(site.exists("public/2021/07/20/0800/index.html"));
    std::fs::remove_file(site.path("public/link")).unwrap();
    site.matome(&["check"]).assert_success();
}

/// The build record of version 4 (before page sizes), sealed as it was (FNV-1a, 8 bytes).
#[derive(Debug, Serialize, Deserialize)]
struct RecordV4 {
    version: u32,
    base_url: String,
    pages: BTreeMap<String, u64>,
    statics: Vec<String>,
    search_months: BTreeMap<String, (u64, MonthV6)>,
}

/// Version 5 of the build record (page sizes) made the record of an older build unreadable,
/// so its pages that the site no longer had (a keyword's page that gave way that hour) stayed
/// in public/ for good, counted by no size line. The old record is now read once for them.
#[test]
fn a_build_record_of_version_4_still_removes_the_pages_the_site_no_longer_has() {
    let site = demo();
    site.matome(&["build"]).assert_success();
    let records = site.files_under(".matome/build");
    let record = site.path(&records[0]);
    let bytes = std::fs::read(&record).unwrap();
    let r: Record = matome::fsutil::from_sealed(&bytes).unwrap();
    let mut old = RecordV4 {
        version: 4,
        base_url: r.base_url,
        pages: r
            .pages
            .into_iter()
            .map(|(p, page)| (p, page.fingerprint))
            .collect(),
        statics: r.statics,
        search_months: months_v6(r.search_months),
    };
    // A page the last (older) build wrote that this site no longer has.
    let gone = "keywords/gone/page/3/index.html";
    site.write(format!("public/{gone}"), "<html>stale</html>");
    old.pages.insert(gone.into(), 7);
    let mut body = postcard::to_stdvec(&old).unwrap();
    let sum = matome::hash::fnv1a(&body);
    body.extend_from_slice(&sum.to_le_bytes());
    std::fs::write(&record, &body).unwrap();

    let report = matome::render::build(site.root(), &Default::default()).unwrap();
    assert!(
        !site.exists(format!("public/{gone}")),
        "the stale page is removed"
    );
    assert!(!site.exists("public/keywords/gone"), "and its folders");
    assert_eq!(report.removed, 1, "{report:?}");
    assert_eq!(
        report.rendered, report.pages,
        "sizes unknown: every page again"
    );
    let (files, bytes) = walkdir::WalkDir::new(site.path("public"))
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .fold((0, 0), |(n, b), e| (n + 1, b + e.metadata().unwrap().len()));
    assert_eq!((report.size.files, report.size.bytes), (files, bytes));
    // And the record is of this version again: the next build renders nothing.
    let again = matome::render::build(site.root(), &Default::default()).unwrap();
    assert_eq!(again.rendered, 0, "{again:?}");
    assert_eq!(again.size, report.size);
}

/// The build record of version 5 (each page's fingerprint and size a pair, `u64::MAX` for a
/// size unknown).
#[derive(Debug, Serialize, Deserialize)]
struct RecordV5 {
    version: u32,
    base_url: String,
    pages: BTreeMap<String, (u64, u64)>,
    statics: Vec<String>,
    search_months: BTreeMap<String, (u64, MonthV6)>,
}

/// Version 6 made a page's record a struct: a record of version 5 is still read for what it says
/// (nothing is rendered again, and a page the site no longer has is removed).
#[test]
fn a_build_record_of_version_5_is_read_for_what_it_says() {
    let site = demo();
    let first = matome::render::build(site.root(), &Default::default()).unwrap();
    let records = site.files_under(".matome/build");
    let record = site.path(&records[0]);
    let r: Record = matome::fsutil::from_sealed(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(r.version, 7);
    let mut old = RecordV5 {
        version: 5,
        base_url: r.base_url,
        pages: r
            .pages
            .into_iter()
            .map(|(p, page)| (p, (page.fingerprint, page.size.unwrap())))
            .collect(),
        statics: r.statics,
        search_months: months_v6(r.search_months),
    };
    let gone = "keywords/gone/page/3/index.html";
    site.write(format!("public/{gone}"), "<html>stale</html>");
    old.pages.insert(gone.into(), (7, 18));
    let sealed = matome::fsutil::seal(postcard::to_stdvec(&old).unwrap());
    std::fs::write(&record, sealed).unwrap();

    let report = matome::render::build(site.root(), &Default::default()).unwrap();
    assert!(
        !site.exists(format!("public/{gone}")),
        "the stale page is removed"
    );
    assert_eq!(report.removed, 1, "{report:?}");
    assert_eq!(report.rendered, 0, "the sizes are known: {report:?}");
    assert_eq!(report.size, first.size);
    let r: Record = matome::fsutil::from_sealed(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(r.version, 7, "saved in this version again");

    // A build with nothing to do saves an older record in this version too.
    old.pages.remove(gone);
    let sealed = matome::fsutil::seal(postcard::to_stdvec(&old).unwrap());
    std::fs::write(&record, sealed).unwrap();
    let report = matome::render::build(site.root(), &Default::default()).unwrap();
    assert_eq!((report.rendered, report.removed), (0, 0), "{report:?}");
    let r: Record = matome::fsutil::from_sealed(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(r.version, 7);
}

/// `.matome/search/files.json` says which snapshot files the index holds; one out of step with
/// the index (here: a file forgotten) made the next update index that file's items twice.
#[test]
fn a_search_state_out_of_step_with_the_index_is_rebuilt() {
    let site = demo();
    site.matome(&["build"]).assert_success();
    let fresh = site.matome(&["search", "--json", "--limit", "100", "クラウド"]);
    fresh.assert_success();
    assert!(!fresh.stdout.trim().is_empty(), "{fresh:?}");
    let mut state: serde_json::Value =
        serde_json::from_str(&site.read(".matome/search/files.json")).unwrap();
    let files = state["files"].as_object_mut().unwrap();
    let first = files.keys().next().unwrap().clone();
    files.remove(&first);
    site.write(".matome/search/files.json", state.to_string());
    let out = site.matome(&["build"]);
    out.assert_success();
    assert!(out.stderr.contains("rebuilding"), "{out:?}");
    let again = site.matome(&["search", "--json", "--limit", "100", "クラウド"]);
    again.assert_success();
    assert_eq!(again.stdout, fresh.stdout, "no item twice");
}
