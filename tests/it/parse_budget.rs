//! One feed body cannot take the run's memory (issue 21, finding 1): hostile bodies at the
//! body cap are cut to their first `max_items_per_feed` entries or refused with an error naming
//! the parse budget, the other feeds' items are archived and fetch-state.json is written, and
//! the run's peak RSS stays far below what the bodies would have cost (a JSON Feed of empty
//! items took ~1.6 KB per item: 1 MiB of them, ~560 MB).

use std::process::{Command, Stdio};

use crate::fetch::archived;
use crate::support::{FeedSpec, Response, Site, TestServer};

const NOW: &str = "2021-07-20T08:28:58+09:00";
const CAP: usize = 1_048_576;

fn fill(head: &str, unit: &str, tail: &str) -> String {
    let n = (CAP - head.len() - tail.len()) / unit.len();
    format!("{head}{}{tail}", unit.repeat(n))
}

/// `matome fetch` in `site`, with its peak RSS in MiB (wait4 on the child).
fn fetch_with_peak(site: &Site) -> (i32, String, f64) {
    let child = Command::new(env!("CARGO_BIN_EXE_matome"))
        .arg("--root")
        .arg(site.root())
        .args(["fetch", "--now", NOW])
        .env("CI", "true")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env_remove("http_proxy")
        .env_remove("HTTP_PROXY")
        .env_remove("https_proxy")
        .env_remove("HTTPS_PROXY")
        .env_remove("all_proxy")
        .env_remove("ALL_PROXY")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(site.path("fetch.stderr")).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: wait4 on our own child, which is not waited on again.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(rc, pid, "wait4: {}", std::io::Error::last_os_error());
    drop(child);
    let stderr = site.read("fetch.stderr");
    assert!(
        libc::WIFEXITED(status),
        "matome died (status {status}):\n{stderr}"
    );
    (
        libc::WEXITSTATUS(status),
        stderr,
        ru.ru_maxrss as f64 / 1024.0,
    )
}

#[test]
fn hostile_bodies_at_the_cap_are_bounded_and_the_normal_feed_is_archived() {
    let server = TestServer::new();
    let json = fill(
        "{\"version\":\"https://jsonfeed.org/version/1.1\",\"title\":\"hostile\",\"items\":[",
        "{},",
        "{}]}",
    );
    let rss_head = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>hostile</title>";
    let categories = fill(
        &format!("{rss_head}<item><title>t</title><guid>g</guid>"),
        "<category/>",
        "</item></channel></rss>",
    );
    let deep = {
        let n = (CAP - rss_head.len() - 20) / 7;
        format!(
            "{rss_head}{}{}</channel></rss>",
            "<x>".repeat(n),
            "</x>".repeat(n)
        )
    };
    let items = fill(rss_head, "<item><guid>i</guid></item>", "</channel></rss>");
    for b in [&json, &categories, &deep, &items] {
        assert!(b.len() <= CAP);
    }
    server.route(
        "/json",
        Response::ok(json).content_type("application/feed+json"),
    );
    server.route("/categories", Response::rss(categories));
    server.route("/deep", Response::rss(deep));
    server.route("/items", Response::rss(items));
    server.route("/normal", Response::fixture("rss2.xml"));
    let site = Site::new();
    let url = |p: &str| server.url(p);
    site.write_config(&[
        FeedSpec::new(&url("/json"), "IT"),
        FeedSpec::new(&url("/categories"), "IT"),
        FeedSpec::new(&url("/deep"), "IT"),
        FeedSpec::new(&url("/items"), "IT"),
        FeedSpec::new(&url("/normal"), "IT"),
    ]);
    let (code, stderr, peak_mib) = fetch_with_peak(&site);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        peak_mib < 300.0,
        "peak RSS {peak_mib:.0} MiB for four 1 MiB hostile bodies"
    );

    // The normal feed's items are archived, and the state is written.
    let archived = archived(&site);
    assert!(
        archived.iter().filter(|i| i.feed == url("/normal")).count() >= 2,
        "{archived:#?}"
    );
    let state = site.state();
    let feeds = &state["feeds"];
    // Refused, with an error that names the budget.
    for path in ["/categories", "/deep"] {
        let fs = &feeds[url(path)];
        assert_eq!(fs["consecutive_failures"], 1, "{path}: {fs}");
        let error = fs["last_error"].as_str().unwrap();
        assert!(error.starts_with("refused: "), "{path}: {error}");
        assert!(
            stderr.contains(&format!("error: {}: refused: ", url(path))),
            "{stderr}"
        );
    }
    let error = feeds[url("/categories")]["last_error"].as_str().unwrap();
    assert!(
        error.contains("60000 elements and attributes")
            && error.contains("fetch.max_items_per_feed = 200"),
        "{error}"
    );
    assert!(
        feeds[url("/deep")]["last_error"]
            .as_str()
            .unwrap()
            .contains("nested more than 512 deep")
    );
    // Cut to their first items: read, as many as a run keeps.
    for path in ["/json", "/items"] {
        assert_eq!(feeds[url(path)]["consecutive_failures"], 0, "{path}");
        assert!(archived.iter().filter(|i| i.feed == url(path)).count() <= 200);
    }
}
