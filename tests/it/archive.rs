//! The archive survives what happens to runs: a kill mid-run, a half-written temp file, two
//! runs at once, a hand-edited file that no longer parses.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use matome::content::Snapshot;

use crate::fetch::{archived, files};
use crate::support::{FeedSpec, Response, Site, TestServer};

fn spawn_fetch(site: &Site, now: &str) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_matome"))
        .arg("--root")
        .arg(site.root())
        .args(["fetch", "--now", now])
        .env("CI", "true")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env_remove("http_proxy")
        .env_remove("HTTP_PROXY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start matome")
}

/// Every file of the site (relative path, bytes), aside from the lock file and the disposable
/// caches under .matome/ (rebuilt from content/ whenever they disagree with it).
fn tree(site: &Site) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(site.root())
        .into_iter()
        .filter_entry(|e| e.file_name() != ".matome")
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file() && e.file_name() != ".matome.lock")
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(site.root())
                .unwrap()
                .display()
                .to_string();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_killed_run_leaves_the_archive_as_it_was() {
    let server = TestServer::new();
    server.route(
        "/a",
        vec![Response::fixture("rss2.xml"), Response::fixture("atom.xml")],
    );
    server.route(
        "/slow",
        vec![Response::fixture("jsonfeed.json"), Response::hang()],
    );
    let site = Site::new().with_fetch(|f| f.timeout = 60);
    site.write_config(&[
        FeedSpec::new(&server.url("/a"), "IT"),
        FeedSpec::new(&server.url("/slow"), "IT"),
    ]);
    site.matome(&["fetch", "--now", "2021-07-20T08:05:00+09:00"])
        .assert_success();
    let before = tree(&site);

    // The second run of the hour has new items from /a but waits on /slow: kill it there.
    let mut child = spawn_fetch(&site, "2021-07-20T08:45:00+09:00");
    assert!(server.wait_for_hits("/slow", 2, Duration::from_secs(10)));
    std::thread::sleep(Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(tree(&site), before, "a killed run changed the archive");

    // A temp file left by a run killed in the middle of a write is not mistaken for a snapshot.
    site.write(
        "content/2021/07/20/.0800.md.k1Xz.tmp",
        "+++\nhour = 2021-07-20T08:00:00+09:00\nupdated = 2021-07-2",
    );
    server.route("/slow", Response::fixture("jsonfeed.json"));
    let out = site.matome(&["fetch", "--now", "2021-07-20T08:50:00+09:00"]);
    out.assert_success();
    assert!(out.stdout.contains("3 new items"), "{out:?}");
    assert_eq!(archived(&site).len(), 9);
}

/// Snapshot writes replace the file whole: a reader never sees a partial file.
#[test]
fn readers_never_see_a_partial_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("content/2021/07/20/0800.md");
    let base = Snapshot::parse(
        "+++\nhour = 2021-07-20T08:00:00+09:00\nupdated = 2021-07-20T08:00:00+09:00\n+++\n",
        "x",
    )
    .unwrap();
    base.write(&path).unwrap();
    let reader_path = path.clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop2 = stop.clone();
    let reader = std::thread::spawn(move || {
        let mut reads = 0;
        while !stop2.load(std::sync::atomic::Ordering::Relaxed) {
            let text = std::fs::read_to_string(&reader_path).unwrap();
            Snapshot::parse(&text, "x").unwrap_or_else(|e| panic!("partial read: {e}"));
            reads += 1;
        }
        reads
    });
    let mut snap = base.clone();
    let template = archived_item();
    for i in 0..300 {
        let mut item = template.clone();
        item.id = format!("id-{i}");
        item.text = "本文".repeat(500);
        snap.items.push(item);
        snap.write(&path).unwrap();
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(reader.join().unwrap() > 0);
}

fn archived_item() -> matome::content::Item {
    let text = "+++\nhour = 2021-07-20T08:00:00+09:00\nupdated = 2021-07-20T08:00:00+09:00\n\n[[items]]\nid = \"x\"\nfeed = \"http://127.0.0.1/f\"\ncategory = \"IT\"\nsite = \"s\"\ntitle = \"t\"\nlink = \"\"\npublished = 2021-07-20T08:00:00+09:00\nkeywords = []\nsummary = \"\"\ntext = \"\"\n+++\n";
    Snapshot::parse(text, "x").unwrap().items.remove(0)
}

#[test]
fn two_concurrent_runs_do_not_interleave_or_duplicate() {
    let server = TestServer::new();
    server.route(
        "/a",
        Response::fixture("rss2.xml").delay(Duration::from_millis(400)),
    );
    server.route(
        "/b",
        Response::fixture("atom.xml").delay(Duration::from_millis(400)),
    );
    let site = Site::new();
    site.write_config(&[
        FeedSpec::new(&server.url("/a"), "IT"),
        FeedSpec::new(&server.url("/b"), "金融"),
    ]);
    let start = Instant::now();
    let first = spawn_fetch(&site, "2021-07-20T08:10:00+09:00");
    let second = spawn_fetch(&site, "2021-07-20T08:10:01+09:00");
    let outs = [
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    ];
    for o in &outs {
        assert!(o.status.success(), "{o:?}");
    }
    let stderr: String = outs
        .iter()
        .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
        .collect();
    assert!(
        stderr.contains("waiting for another matome run"),
        "{stderr}"
    );
    // One run waited for the other: the runs did not overlap.
    assert!(start.elapsed() >= Duration::from_millis(800));
    let items = archived(&site);
    assert_eq!(items.len(), 6, "each item exactly once: {items:#?}");
    assert_eq!(files(&site), ["content/2021/07/20/0800.md"]);
    let stdout: String = outs
        .iter()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .collect();
    assert!(
        stdout.contains("6 new items") && stdout.contains("no new items"),
        "{stdout}"
    );
}

#[test]
fn a_broken_content_file_is_reported_with_path_and_line_and_the_run_goes_on() {
    let server = TestServer::new();
    server.route("/a", Response::fixture("rss2.xml"));
    let site = Site::new();
    site.write_config(&[FeedSpec::new(&server.url("/a"), "IT")]);
    site.write(
        "content/2021/07/19/2300.md",
        "+++\nhour = 2021-07-19T23:00:00+09:00\nupdated = 2021-07-19T23:10:00+09:00\n\n[[items]]\nid = \"x\"\ntitle = \"unterminated\n+++\n",
    );
    site.write(
        "content/2021/07/19/2200.md",
        "+++\nhour = 2021-07-19T22:00:00+09:00\nupdated = 2021-07-19T22:10:00+09:00\n",
    );
    // The run goes on (issue 11: refusing would lose the items feeds drop before the file is
    // fixed); both broken files are named, each with its line, and left as they are.
    let out = site.matome(&["fetch", "--now", "2021-07-20T08:10:00+09:00"]);
    out.assert_success();
    assert!(
        out.stderr.contains("content/2021/07/19/2300.md:7:"),
        "{out:?}"
    );
    assert!(
        out.stderr.contains("content/2021/07/19/2200.md:3:"),
        "{out:?}"
    );
    assert!(out.stderr.contains("closing `+++`"), "{out:?}");
    assert!(site.exists("content/2021/07/20/0800.md"));
    assert!(
        site.read("content/2021/07/19/2200.md")
            .ends_with("22:10:00+09:00\n")
    );
    // The build names them too, and fails until they are fixed.
    let out = site.matome(&["build"]);
    out.assert_code(2);
    assert!(
        out.stderr.contains("content/2021/07/19/2300.md:7:"),
        "{out:?}"
    );
}

#[test]
fn analyze_recomputes_keywords_and_leaves_the_rest_untouched() {
    let server = TestServer::new();
    server.route("/a", Response::fixture("rss2-shift_jis.xml"));
    let site = Site::new();
    site.write_config(&[FeedSpec::new(&server.url("/a"), "IT")]);
    site.matome(&["fetch", "--now", "2021-07-20T08:10:00+09:00"])
        .assert_success();
    let rel = "content/2021/07/20/0800.md";
    let fetched = Snapshot::parse(&site.read(rel), rel).unwrap();
    assert!(
        fetched.items.iter().all(|i| !i.keywords.is_empty()),
        "{fetched:#?}"
    );
    // A curator's note and an item whose keywords were cleared by hand.
    let mut edited = fetched.clone();
    edited.items[0].keywords.clear();
    edited.items[0].summary.clear();
    edited.body = "メモ\n".into();
    site.write(rel, edited.to_text());

    let out = site.matome(&["analyze"]);
    out.assert_success();
    assert!(
        out.stdout.contains("1 analysed, 1 files rewritten"),
        "{out:?}"
    );
    let after = Snapshot::parse(&site.read(rel), rel).unwrap();
    assert_eq!(
        after.items, fetched.items,
        "the cleared item is analysed again, the same way"
    );
    assert_eq!(after.body, "メモ\n");
    assert_eq!(after.updated, fetched.updated);

    // --all re-tags an item whose keywords an older analyser wrote (issue 25: a new analyser
    // version must reach the whole archive), and leaves the curator's note.
    let mut stale = after.clone();
    stale.items[1].keywords = vec!["stale keyword".into()];
    site.write(rel, stale.to_text());
    let out = site.matome(&["analyze", "--all"]);
    out.assert_success();
    assert!(out.stdout.contains("1 files rewritten"), "{out:?}");
    let retagged = Snapshot::parse(&site.read(rel), rel).unwrap();
    assert_eq!(
        retagged.items, fetched.items,
        "re-tagged as fetch tagged it"
    );
    assert_eq!(retagged.body, "メモ\n");

    // --all with nothing changed rewrites nothing.
    let text = site.read(rel);
    let out = site.matome(&["analyze", "--all"]);
    out.assert_success();
    assert!(out.stdout.contains("0 files rewritten"), "{out:?}");
    assert_eq!(site.read(rel), text);
}
