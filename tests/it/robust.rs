//! Hostile input, round 2 (issue 11): implausible and unrepresentable dates, broken content and
//! state files, control bytes from feeds, XML-invalid characters in names, out-of-range config
//! values, kill -9 leftovers, and a repository that tests itself without anything outside it.

use std::path::Path;

use crate::support::{FeedSpec, Response, Site, TestServer};

/// Files of the repository the tests and docs rely on (tracked sources, docs and scripts).
fn repository_text_files() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for top in [
        "src", "tests", "scripts", "benches", "docs", "themes", "build.rs",
    ] {
        for e in walkdir::WalkDir::new(root.join(top)) {
            let e = e.unwrap();
            if e.file_type().is_file() {
                out.push(e.into_path());
            }
        }
    }
    for e in std::fs::read_dir(root).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md" || x == "toml") {
            out.push(p);
        }
    }
    out
}

/// A fresh clone has nothing beside it: no file of the repository may read or link a path
/// outside it (the import test read a data folder beside the checkout, ARCHITECTURE.md linked
/// a design document there).
#[test]
fn nothing_in_the_repository_reads_or_links_outside_it() {
    let needle = format!("..{}shared", '/');
    let mut offenders = Vec::new();
    for p in repository_text_files() {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        for (i, line) in text.lines().enumerate() {
            if line.contains(&needle) {
                offenders.push(format!("{}:{}: {line}", p.display(), i + 1));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
    assert!(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/rssfeed-example.csv")
            .is_file()
    );
}

const NOW: &str = "2021-07-20T08:28:58+09:00";

fn atom_entry(id: &str, updated: &str) -> String {
    format!(
        "<entry><id>urn:{id}</id><title>{id}</title><link href=\"http://example.com/{id}\"/>\
         <updated>{updated}</updated><summary>本文 {id}</summary></entry>\n"
    )
}

fn atom(entries: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\
         <title>Hostile dates</title><id>urn:feed</id><updated>2021-07-20T00:00:00Z</updated>\n{entries}</feed>"
    )
}

/// Each snapshot file's items' `published` as Python's `tomllib` (a second TOML
/// implementation, the one every command's files are read with: `support::toml_readers`) reads
/// it (`datetime.isoformat()`).
fn tomllib_published(site: &Site) -> Vec<Vec<String>> {
    let files: Vec<_> = site.content_files().iter().map(|p| site.path(p)).collect();
    assert!(!files.is_empty());
    crate::support::toml_readers::tomllib(&files)
        .iter()
        .map(|fm| {
            fm["items"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|i| i["published"].as_str().unwrap().to_string())
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect()
}

/// Year 0 with a +23:59 offset was archived as `-0001-12-31T09:19:59+09:19`, and every later
/// build failed on that file; 1899 dates took Tokyo's local mean time (+09:18:59), which TOML
/// cannot hold. Implausible dates are archived as the run time, noted once per feed, and every
/// file matome writes reads back with a second TOML implementation.
#[test]
fn hostile_dates_are_archived_as_the_run_time_and_every_file_reads_with_tomllib() {
    let server = TestServer::new();
    let entries = [
        ("year0", "0000-01-01T00:00:00+23:59"),
        ("lmt1899", "1899-12-31T23:59:59+09:18"),
        ("y1899", "1899-06-01T12:00:00+09:00"),
        ("negative", "-0001-12-31T00:00:00Z"),
        ("epoch", "1970-01-01T00:00:00Z"),
        ("future", "9999-12-31T23:59:59Z"),
        ("garbage", "not a date at all"),
        ("good", "2021-07-19T22:12:26Z"),
    ]
    .iter()
    .map(|(id, d)| atom_entry(id, d))
    .collect::<String>()
        // Text that must survive the TOML writer too: fences, quotes, escapes, odd line breaks.
        + "<entry><id>urn:text</id><title>+++ \\\" ''' \"\"\" [[items]] \u{2028} \u{85} \u{7f} 🫠</title>\
           <updated>2021-07-19T22:00:00Z</updated><summary>a\n+++\nb \\u0041 key = \"x\"</summary></entry>\n";
    server.route(
        "/dates.xml",
        Response::ok(atom(&entries)).content_type("application/atom+xml"),
    );
    let rss = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Old</title><link>http://example.com/</link>\
        <item><title>rss1899</title><guid>rss1899</guid><pubDate>Sun, 31 Dec 1899 23:59:59 +0918</pubDate></item>\
        <item><title>rss0000</title><guid>rss0000</guid><pubDate>Sat, 01 Jan 0000 00:00:00 +2359</pubDate></item>\
        </channel></rss>";
    server.route("/old.xml", Response::rss(rss));
    let site = Site::new();
    let dates_url = server.url("/dates.xml");
    site.write_config(&[
        FeedSpec::new(&dates_url, "IT"),
        FeedSpec::new(&server.url("/old.xml"), "IT"),
    ]);
    let out = site.matome(&["fetch", "--now", NOW]);
    out.assert_success();
    // One line per feed, with a count, not one per item.
    let notes: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("implausible date"))
        .collect();
    assert_eq!(notes.len(), 2, "{out:?}");
    assert!(
        notes
            .iter()
            .any(|l| l.contains(&dates_url) && l.contains(": 5 new item(s)")),
        "{out:?}"
    );

    let now = chrono::DateTime::parse_from_rfc3339(NOW).unwrap();
    let items = crate::fetch::archived(&site);
    assert_eq!(items.len(), 11, "{items:#?}");
    for it in &items {
        if it.id == "urn:text" {
            assert!(it.title.starts_with("+++ \\\" "), "{}", it.title);
        } else if it.title == "good" {
            assert_eq!(
                matome::content::rfc3339(&it.published),
                "2021-07-20T07:12:26+09:00"
            );
        } else {
            assert_eq!(it.published, now, "{}: {}", it.title, it.published);
        }
    }
    // The second TOML reader agrees on every date.
    let py = tomllib_published(&site);
    let from_python: Vec<chrono::DateTime<chrono::FixedOffset>> = py
        .concat()
        .iter()
        .map(|s| chrono::DateTime::parse_from_rfc3339(s).unwrap())
        .collect();
    let ours: Vec<_> = items.iter().map(|i| i.published).collect();
    assert_eq!(from_python, ours);
    // And the site builds.
    site.matome(&["build"]).assert_success();
}

/// A content file broken by hand (here: the very date the year-0 bug wrote) stopped every
/// build. The build names it (path:line), still builds every other page, and exits 2.
#[test]
fn a_broken_content_file_is_named_and_every_other_page_still_builds() {
    let site = crate::support::demo_site("https://user.github.io/repo/");
    site.matome(&["build"]).assert_success();
    let broken = "content/2021/07/20/0900.md";
    let text = site.read(broken);
    let (before, after) = text.split_once("published = ").unwrap();
    let line = before.lines().count() + 1;
    let rest = after.split_once('\n').unwrap().1;
    site.write(
        broken,
        format!("{before}published = -0001-12-31T09:19:59+09:19\n{rest}"),
    );
    // From scratch too (no cache, no previous output).
    std::fs::remove_dir_all(site.path(".matome")).unwrap();
    std::fs::remove_dir_all(site.path("public")).unwrap();
    let out = site.matome(&["build"]);
    out.assert_code(2);
    assert!(
        out.stderr.contains(&format!("{broken}:{line}:")),
        "names the file and line {line}: {out:?}"
    );
    assert!(out.stderr.contains("every other page was built"), "{out:?}");
    for page in [
        "index.html",
        "2021/07/20/0800/index.html",
        "2021/07/21/1200/index.html",
        "2021/07/22/0700/index.html",
        "atom.xml",
        "sitemap.xml",
        "health/index.html",
    ] {
        assert!(
            site.exists(Path::new("public").join(page)),
            "{page} missing"
        );
    }
    assert!(!site.exists("public/2021/07/20/0900/index.html"));
    // Fixed: the next build succeeds and has the page again.
    site.write(broken, &text);
    site.matome(&["build"]).assert_success();
    assert!(site.exists("public/2021/07/20/0900/index.html"));
}

/// A broken old content file stopped every fetch (its items could not be recognised). The run
/// goes on, names the file, and does not archive that file's items again.
#[test]
fn fetch_goes_on_past_a_broken_content_file_without_archiving_its_items_twice() {
    let server = TestServer::new();
    let one = atom_entry("a1", "2021-07-19T22:00:00Z");
    server.route(
        "/f.xml",
        Response::ok(atom(&one)).content_type("application/atom+xml"),
    );
    let site = Site::new();
    site.write_config(&[FeedSpec::new(&server.url("/f.xml"), "IT")]);
    site.matome(&["fetch", "--now", NOW]).assert_success();
    let first = "content/2021/07/20/0800.md";
    let text = site.read(first);
    // A hand edit that breaks the file (an unclosed string), the cache gone as on a new runner.
    site.write(first, text.replacen("title = \"a1\"", "title = \"a1", 1));
    std::fs::remove_dir_all(site.path(".matome")).unwrap();
    let two = format!("{one}{}", atom_entry("a2", "2021-07-20T00:30:00Z"));
    server.route(
        "/f.xml",
        Response::ok(atom(&two)).content_type("application/atom+xml"),
    );
    let out = site.matome(&["fetch", "--now", "2021-07-20T09:30:00+09:00"]);
    out.assert_success();
    assert!(out.stderr.contains(&format!("{first}:")), "{out:?}");
    assert!(out.stdout.contains("1 new items written"), "{out:?}");
    let second = site.read("content/2021/07/20/0900.md");
    assert!(
        second.contains("urn:a2") && !second.contains("urn:a1"),
        "{second}"
    );
    assert_eq!(
        site.read(first),
        text.replacen("title = \"a1\"", "title = \"a1", 1),
        "untouched"
    );
}

/// Control bytes a server or feed sends (here in the charset it declares) reached the
/// terminal, fetch-state.json and the health page.
#[test]
fn control_bytes_from_a_feed_never_reach_stderr_state_or_health_page() {
    let server = TestServer::new();
    let mut body = b"<?xml version=\"1.0\" encoding=\"x-\x1b[31mevil\x07\x1b]0;pwned\x07\"?><rss version=\"2.0\"><channel><title>t</title>".to_vec();
    body.extend_from_slice(b"\xff\xfe\x00\x9b</channel></rss>");
    server.route("/evil.xml", Response::rss(body));
    let site = Site::new();
    site.write_config(&[FeedSpec::new(&server.url("/evil.xml"), "IT")]);
    let out = site.matome(&["fetch", "--now", NOW]);
    assert!(
        out.stderr.contains("evil"),
        "the error is still reported: {out:?}"
    );
    let bad = |s: &str| s.chars().any(|c| c.is_control() && c != '\n');
    assert!(!bad(&out.stderr), "{:?}", out.stderr);
    let state = site.state();
    let error = state["feeds"][server.url("/evil.xml")]["last_error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(error.contains("evil") && !bad(&error), "{error:?}");
    site.matome(&["build"]).assert_success();
    let health = site.read("public/health/index.html");
    assert!(
        health.contains("evil") && !bad(&health.replace(['\n', '\t'], "")),
        "{health}"
    );
}

/// A NUL (or another character XML forbids) in a category, site or title made atom.xml
/// ill-formed. Every XML file the build writes parses.
#[test]
fn xml_invalid_characters_in_names_never_make_atom_or_sitemap_ill_formed() {
    let site = Site::new();
    site.write_config(&[]);
    site.write(
        "content/2021/07/20/0800.md",
        "+++\nhour = 2021-07-20T08:00:00+09:00\nupdated = 2021-07-20T08:10:00+09:00\n\n\
         [[items]]\nid = \"x\"\nfeed = \"http://example.com/f\"\ncategory = \"IT\\u0000\\u001B\\uFFFE\"\n\
         site = \"S\\u0000ite\\u0007\"\ntitle = \"T\\u0000itle \\uFFFF\\u0085end\"\n\
         link = \"http://example.com/a\"\npublished = 2021-07-20T08:00:00+09:00\n\
         keywords = [\"k\\u0000w\"]\nsummary = \"s\\u0000\"\ntext = \"\"\n+++\n",
    );
    site.matome(&["build"]).assert_success();
    let xml: Vec<_> = site
        .files_under("public")
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    assert!(xml.len() >= 4, "{xml:?}");
    for p in xml {
        let text = site.read(&p);
        roxmltree::Document::parse(&text)
            .unwrap_or_else(|e| panic!("{} is not well-formed: {e}\n{text}", p.display()));
    }
    let atom = site.read("public/atom.xml");
    assert!(atom.contains("<title>Title end</title>"), "{atom}");
}

/// A corrupt fetch-state.json stopped `build` and `fetch`. The build goes on (the health page
/// says why it shows nothing); a fetch keeps the bad file aside, starts fresh and says so.
#[test]
fn a_corrupt_fetch_state_stops_neither_build_nor_fetch_and_is_kept() {
    let server = TestServer::new();
    server.route(
        "/f.xml",
        Response::ok(atom(&atom_entry("a1", "2021-07-19T22:00:00Z")))
            .content_type("application/atom+xml"),
    );
    let site = Site::new();
    site.write_config(&[FeedSpec::new(&server.url("/f.xml"), "IT")]);
    site.matome(&["fetch", "--now", NOW]).assert_success();
    let corrupt = "{\"version\": 1, \"feeds\": {\"http://x/\": ";
    site.write("fetch-state.json", corrupt);
    let out = site.matome(&["build"]);
    out.assert_success();
    let health = site.read("public/health/index.html");
    assert!(
        health.contains("state-error") && health.contains("fetch-state.json"),
        "{health}"
    );

    let out = site.matome(&["fetch", "--now", "2021-07-20T09:30:00+09:00"]);
    out.assert_success();
    let backup = "fetch-state.json.bad-20210720T003000Z";
    assert!(out.stderr.contains(backup), "{out:?}");
    assert_eq!(site.read(backup), corrupt, "the bad file is kept as it was");
    assert!(site.state()["feeds"].as_object().unwrap().len() == 1);
    assert!(
        out.stdout.contains("no new items"),
        "nothing archived twice: {out:?}"
    );
    site.matome(&["build"]).assert_success();
    assert!(
        !site
            .read("public/health/index.html")
            .contains("state-error")
    );
}

/// kill -9 between creating a snapshot's temp file and renaming it left `.HHMM.md.*.tmp` files
/// in content/ for good, and `git add content` committed them.
#[test]
fn leftover_temp_files_are_removed_by_the_next_fetch_and_ignored_by_git() {
    let server = TestServer::new();
    server.route(
        "/f.xml",
        Response::ok(atom(&atom_entry("a1", "2021-07-19T22:00:00Z")))
            .content_type("application/atom+xml"),
    );
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("site");
    let init = std::process::Command::new(env!("CARGO_BIN_EXE_matome"))
        .args(["init"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(init.status.success(), "{init:?}");
    let leftover = root.join("content/2021/07/19/.2300.md.Ab12Cd.tmp");
    let other = root.join("content/2021/07/19/.notes.tmp");
    std::fs::create_dir_all(leftover.parent().unwrap()).unwrap();
    std::fs::write(&leftover, "+++\nhalf").unwrap();
    std::fs::write(&other, "mine").unwrap();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(args)
            .output()
            .unwrap()
    };
    assert!(git(&["init", "-q"]).status.success());
    let ignored = git(&["check-ignore", "content/2021/07/19/.2300.md.Ab12Cd.tmp"]);
    assert!(
        ignored.status.success(),
        "the .gitignore init writes ignores it: {ignored:?}"
    );
    // A run of that site (its config pointed at the test server).
    let config = std::fs::read_to_string(root.join("matome.toml")).unwrap();
    let head = config.split("[[feeds]]").next().unwrap();
    std::fs::write(
        root.join("matome.toml"),
        format!(
            "{head}[[feeds]]\nurl = \"{}\"\ncategory = \"IT\"\n",
            server.url("/f.xml")
        ),
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_matome"))
        .arg("--root")
        .arg(&root)
        .args(["fetch", "--now", NOW])
        .env("CI", "true")
        .env("NO_PROXY", "127.0.0.1")
        .env_remove("http_proxy")
        .env_remove("HTTP_PROXY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!leftover.exists(), "{stderr}");
    assert!(stderr.contains(".2300.md.Ab12Cd.tmp"), "{stderr}");
    assert!(other.exists(), "only matome's own temp names are removed");
}

/// `timeout = 1e300`, `concurrency = 9223372036854775807` and `backoff_base = backoff_max =
/// 1e15` panicked the binary (exit 101); `timeout = 0` failed every feed. Each is a config error
/// (exit 2) naming `matome.toml:LINE: fetch.KEY`.
#[test]
fn out_of_range_fetch_settings_are_config_errors_not_panics() {
    for (extra, key) in [
        ("timeout = 1e300", "fetch.timeout"),
        ("timeout = 0", "fetch.timeout"),
        ("concurrency = 9223372036854775807", "fetch.concurrency"),
        ("backoff_base = 1e15\nbackoff_max = 1e15", "fetch.backoff_"),
    ] {
        let mut site = Site::new();
        site.config.fetch = None;
        site.config.fetch_extra = extra.into();
        site.write_config(&[FeedSpec::new("http://127.0.0.1:9/f.xml", "IT")]);
        let line = site
            .read("matome.toml")
            .lines()
            .position(|l| l.starts_with(extra.split(" =").next().unwrap()))
            .unwrap()
            + 1;
        let out = site.matome(&["fetch", "--now", NOW]);
        out.assert_code(2);
        assert!(
            out.stderr.contains(&format!("matome.toml:{line}: {key}")),
            "{extra}: {out:?}"
        );
    }
}
