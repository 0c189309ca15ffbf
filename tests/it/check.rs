//! `matome check`'s link check across builds (issue 13, item 3): the hourly check reads only the
//! pages builds wrote since the last check, still finds links into pages that are gone, falls
//! back to reading every page when its record cannot be trusted, and `--all` reads everything.
//! Its content check names each `story` that names no story the archive has (issue 24).

use crate::support::{RunOutput, Site};

fn demo_site() -> Site {
    crate::support::demo_site("http://127.0.0.1/test/")
}

/// One more hour after the demo archive's last, whose digest body links `body_link`.
fn add_next_hour(site: &Site, body_link: &str) {
    let last = site.read("content/2021/07/22/0700.md");
    let next = last
        .replace("2021-07-22T07:", "2021-07-22T08:")
        .replace("id = \"", "id = \"next-hour-");
    site.write(
        "content/2021/07/22/0800.md",
        format!("{next}\n[続き]({body_link})\n"),
    );
}

/// The build, then a check that records every page (the first check of a site reads them all).
fn built_and_checked() -> Site {
    let site = demo_site();
    site.matome(&["build"]).assert_success();
    let first = site.matome(&["check"]);
    first.assert_success();
    assert!(
        first
            .stdout
            .contains("checking every page's links: no link record"),
        "{}",
        first.stdout
    );
    site
}

fn incremental(out: &RunOutput) -> bool {
    !out.stdout.contains("checking every page's links")
        && out.stdout.contains("pages written since the last check")
}

/// How many pages the incremental check read, from its summary line.
fn pages_read(out: &RunOutput) -> usize {
    let after = out.stdout.split("(read ").nth(1).expect(&out.stdout);
    after.split(' ').next().unwrap().parse().unwrap()
}

/// Adds a link to a page by hand (no build writes it, so the hourly check does not read it).
fn edit_page(site: &Site, rel: &str, link: &str) {
    let html = site.read(rel);
    site.write(
        rel,
        html.replace("</body>", &format!("<a href=\"{link}\">x</a></body>")),
    );
}

#[test]
fn the_hourly_check_finds_a_broken_link_one_new_hour_wrote() {
    let site = built_and_checked();
    let again = site.matome(&["check"]);
    again.assert_success();
    assert!(incremental(&again), "{}", again.stdout);
    assert_eq!(pages_read(&again), 0, "{}", again.stdout);

    add_next_hour(&site, "http://127.0.0.1/test/missing-page/");
    let build = site.matome(&["build"]);
    build.assert_success();
    let out = site.matome(&["check"]);
    out.assert_code(1);
    assert!(incremental(&out), "{}", out.stdout);
    assert!(
        out.stderr
            .contains("public/2021/07/22/0800/index.html: broken link \"/test/missing-page/\""),
        "{}",
        out.stderr
    );
    let pages = site
        .files_under("public")
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .count();
    // The pages the build wrote, no more (its count includes feeds, sitemaps and search files).
    let written: usize = build
        .stdout
        .split(" written,")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .expect(&build.stdout);
    let read = pages_read(&out);
    assert!(
        read > 0 && read <= written && read < pages,
        "read {read} of {pages} pages, the build wrote {written} files: {}\n{}",
        out.stdout,
        build.stdout
    );

    // The problem stays reported until it is fixed, though its page is not read again.
    let out = site.matome(&["check"]);
    out.assert_code(1);
    assert_eq!(pages_read(&out), 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("broken link \"/test/missing-page/\""),
        "{}",
        out.stderr
    );
    // A page that appears fixes it.
    add_next_hour(&site, "http://127.0.0.1/test/2021/07/22/0700/");
    site.matome(&["build"]).assert_success();
    site.matome(&["check"]).assert_success();
}

#[test]
fn the_hourly_check_finds_links_into_removed_pages() {
    let site = demo_site();
    site.matome(&["build"]).assert_success();
    // A page no build writes again links a digest that a later build removes.
    site.write(
        "public/extra/index.html",
        "<html><body><a href=\"../2021/07/22/0700/\">x</a></body></html>",
    );
    site.matome(&["check"]).assert_success();
    std::fs::remove_file(site.path("content/2021/07/22/0700.md")).unwrap();
    site.matome(&["build"]).assert_success();
    assert!(!site.exists("public/2021/07/22/0700/index.html"));
    let out = site.matome(&["check"]);
    out.assert_code(1);
    assert!(incremental(&out), "{}", out.stdout);
    assert!(
        out.stderr
            .contains("public/extra/index.html: broken link \"/test/2021/07/22/0700/\""),
        "{}",
        out.stderr
    );
    // Pages the build rewrote no longer link it.
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);

    // A page removed by hand: every unchanged page that links it is named.
    std::fs::remove_file(site.path("public/extra/index.html")).unwrap();
    std::fs::remove_dir_all(site.path("public/categories/IT")).unwrap();
    let out = site.matome(&["check"]);
    out.assert_code(1);
    assert!(incremental(&out), "{}", out.stdout);
    assert_eq!(pages_read(&out), 0, "{}", out.stdout);
    assert!(
        out.stderr
            .contains("public/2021/07/20/0800/index.html: broken link \"/test/categories/IT/\""),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("extra"),
        "a removed page's links go: {}",
        out.stderr
    );
    // The next build writes it again, and the check is clean.
    site.matome(&["build"]).assert_success();
    site.matome(&["check"]).assert_success();
}

#[test]
fn check_all_reads_every_page_the_hourly_check_skips() {
    let site = built_and_checked();
    edit_page(&site, "public/2021/07/20/0900/index.html", "/test/nowhere/");
    let hourly = site.matome(&["check"]);
    hourly.assert_success();
    assert!(incremental(&hourly), "{}", hourly.stdout);

    let all = site.matome(&["check", "--all"]);
    all.assert_code(1);
    assert!(
        !all.stdout.contains("pages written since"),
        "{}",
        all.stdout
    );
    assert!(
        all.stderr
            .contains("public/2021/07/20/0900/index.html: broken link \"/test/nowhere/\""),
        "{}",
        all.stderr
    );
    // What --all read is what the hourly check knows from then on.
    let hourly = site.matome(&["check"]);
    hourly.assert_code(1);
    assert!(incremental(&hourly), "{}", hourly.stdout);
    assert_eq!(hourly.stderr, all.stderr);
}

/// A built site whose last check recorded every page, with a broken link then added by hand
/// to a page: only a check that reads every page finds it.
fn checked_then_edited() -> Site {
    let site = built_and_checked();
    edit_page(&site, "public/2021/07/20/0900/index.html", "/test/nowhere/");
    let hourly = site.matome(&["check"]);
    hourly.assert_success();
    site
}

/// `.matome/check/`'s file with extension `ext` (one output folder: one of each).
fn record(site: &Site, ext: &str) -> std::path::PathBuf {
    let files = site.files_under(".matome/check");
    let rel = files
        .iter()
        .find(|p| p.extension().is_some_and(|x| x == ext))
        .unwrap_or_else(|| panic!("no .{ext} in {files:?}"));
    site.path(rel)
}

/// The check failed on the broken link the tests add with `edit_page` (`/test/nowhere/`).
fn reports_the_link_added_by_hand(out: &RunOutput) {
    out.assert_code(1);
    assert!(
        out.stderr.contains("broken link \"/test/nowhere/\""),
        "{}",
        out.stderr
    );
}

/// The check reads every page, says why, and finds the link added by hand.
fn falls_back(site: &Site, why: &str) {
    let out = site.matome(&["check"]);
    out.assert_code(1);
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("checking every page's links: "));
    assert!(line.is_some_and(|l| l.contains(why)), "{}", out.stdout);
    reports_the_link_added_by_hand(&out);
}

#[test]
fn a_missing_check_record_falls_back_to_the_full_check() {
    let site = checked_then_edited();
    std::fs::remove_file(record(&site, "links")).unwrap();
    falls_back(&site, "no link record");
}

#[test]
fn a_corrupt_or_cut_check_record_falls_back_to_the_full_check() {
    let site = checked_then_edited();
    let path = record(&site, "links");
    let good = std::fs::read(&path).unwrap();
    let mut bytes = good.clone();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    std::fs::write(&path, &bytes).unwrap();
    falls_back(&site, "does not verify");

    let site = checked_then_edited();
    let path = record(&site, "links");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    falls_back(&site, "does not verify");
}

#[test]
fn a_lost_record_of_written_pages_falls_back_to_the_full_check() {
    let site = checked_then_edited();
    std::fs::remove_file(record(&site, "pending")).unwrap();
    falls_back(&site, "no record of the pages builds wrote");

    // A build that finds the record damaged cannot add to it: the next check reads everything.
    let site = checked_then_edited();
    std::fs::write(record(&site, "pending"), b"garbage").unwrap();
    site.matome(&["build"]).assert_success();
    falls_back(
        &site,
        "a build found its record of written pages missing or corrupt",
    );
}

#[test]
fn a_check_record_of_another_base_url_falls_back_to_the_full_check() {
    let site = built_and_checked();
    site.matome(&["build", "--base-url", "http://127.0.0.1/other/"])
        .assert_success();
    let out = site.matome(&["check"]);
    out.assert_success();
    assert!(
        out.stdout
            .contains("checking every page's links: the link record is for"),
        "{}",
        out.stdout
    );
}

/// One page that cannot be read is a problem of that page; every other page is still checked.
#[test]
fn a_page_that_is_not_text_is_named_and_the_rest_are_checked() {
    let site = demo_site();
    site.matome(&["build"]).assert_success();
    site.write("public/bad/index.html", b"<a href=\"x\">\xff\xfe</a>");
    edit_page(&site, "public/2021/07/20/0900/index.html", "/test/nowhere/");
    let out = site.matome(&["check", "--all"]);
    out.assert_code(1);
    assert!(
        out.stderr.contains("public/bad/index.html: not UTF-8 text"),
        "{}",
        out.stderr
    );
    reports_the_link_added_by_hand(&out);
}

/// With `.matome/` restored and the output built anew (every file written again), the hourly
/// check reads only what changed: a page written from the fingerprint it was checked at is the
/// same page. What it knew stays reported.
#[test]
fn an_output_folder_built_anew_is_not_read_again() {
    let site = built_and_checked();
    std::fs::remove_dir_all(site.path("public")).unwrap();
    site.matome(&["build"]).assert_success();
    let out = site.matome(&["check"]);
    out.assert_success();
    assert!(incremental(&out), "{}", out.stdout);
    assert_eq!(pages_read(&out), 0, "{}", out.stdout);
    assert!(
        out.stdout.contains("written again unchanged"),
        "{}",
        out.stdout
    );

    add_next_hour(&site, "http://127.0.0.1/test/missing-page/");
    std::fs::remove_dir_all(site.path("public")).unwrap();
    site.matome(&["build"]).assert_success();
    let out = site.matome(&["check"]);
    out.assert_code(1);
    assert!(pages_read(&out) > 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("broken link \"/test/missing-page/\""),
        "{}",
        out.stderr
    );
    std::fs::remove_dir_all(site.path("public")).unwrap();
    site.matome(&["build"]).assert_success();
    let out = site.matome(&["check"]);
    out.assert_code(1);
    assert_eq!(pages_read(&out), 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("broken link \"/test/missing-page/\""),
        "{}",
        out.stderr
    );
}

/// One `[[items]]` block of a hand-written snapshot, with this `story` line ("": none).
fn story_item(hour: &str, feed: &str, id: &str, story: &str) -> String {
    let story = if story.is_empty() {
        String::new()
    } else {
        format!("story = {story:?}\n")
    };
    format!(
        "\n[[items]]\nid = {id:?}\nfeed = {feed:?}\ncategory = \"IT\"\nsite = \"S\"\ntitle = \"T {id}\"\nlink = \"https://s.example/{id}\"\npublished = {hour}\nkeywords = []\n{story}summary = \"\"\ntext = \"\"\n"
    )
}

/// The line (from 1) of `story = "VALUE"` in `text`.
fn line_of_story(text: &str, value: &str) -> usize {
    let want = format!("story = {value:?}");
    1 + text
        .lines()
        .position(|l| l == want)
        .unwrap_or_else(|| panic!("no {want} in {text}"))
}

/// Every item's `story` is checked (issue 24): one that is not a story ID, names no item of the
/// archive, names an item archived after it or an item of another story is reported with its
/// file and line, as the other content problems are; from the keys view at the hourly check
/// as with `--all`, until it is fixed. A story of an earlier item, of an item before it in its
/// own file and the item's own key are fine.
#[test]
fn a_story_naming_no_first_item_before_it_is_reported_with_its_line() {
    let site = demo_site();
    let demo =
        matome::content::Snapshot::parse(&site.read("content/2021/07/20/0800.md"), "x").unwrap();
    let demo_story = demo.items[0].key().hex();
    let feed = "https://s.example/feed";
    let key = |id: &str| matome::content::ItemKey::new(feed, id).hex();
    let gone = matome::content::ItemKey::new("https://gone.example/feed", "x").hex();
    let (h8, h9) = ("2021-07-22T08:00:00+09:00", "2021-07-22T09:00:00+09:00");
    let eight = [
        story_item(h8, feed, "joins", &demo_story),
        story_item(h8, feed, "own", &key("own")),
        story_item(h8, feed, "alone", ""),
        story_item(h8, feed, "same-file", &key("own")),
        story_item(h8, feed, "bad", "NOT-AN-ID"),
        story_item(h8, feed, "gone", &gone),
        story_item(h8, feed, "early", &key("late")),
        // `same-file` joined the story of `own`: it is no story's first item.
        story_item(h8, feed, "chain", &key("same-file")),
    ];
    let eight = format!("+++\nhour = {h8}\nupdated = {h8}\n{}+++\n", eight.concat());
    site.write("content/2021/07/22/0800.md", &eight);
    site.write(
        "content/2021/07/22/0900.md",
        format!(
            "+++\nhour = {h9}\nupdated = {h9}\n{}+++\n",
            story_item(h9, feed, "late", &key("late"))
        ),
    );
    site.matome(&["build"]).assert_success();
    let file = "content/2021/07/22/0800.md";
    let want = [
        format!(
            "{file}:{}: story \"NOT-AN-ID\" is not a story ID",
            line_of_story(&eight, "NOT-AN-ID")
        ),
        format!(
            "{file}:{}: story \"{gone}\" names as its first no item the archive has",
            line_of_story(&eight, &gone)
        ),
        format!(
            "{file}:{}: story \"{}\" names as its first an item archived after this one (in content/2021/07/22/0900.md)",
            line_of_story(&eight, &key("late")),
            key("late")
        ),
        format!(
            "{file}:{}: story \"{}\" names as its first an item of another story (in {file})",
            line_of_story(&eight, &key("same-file")),
            key("same-file")
        ),
    ];
    let first = site.matome(&["check"]);
    first.assert_code(1);
    let problems: Vec<&str> = first
        .stderr
        .lines()
        .filter(|l| l.starts_with("content/"))
        .collect();
    assert_eq!(problems.len(), want.len(), "{}", first.stderr);
    for (got, want) in problems.iter().zip(&want) {
        assert!(got.starts_with(want.as_str()), "{got}\nwanted {want}");
    }
    // The hourly check takes the file from the view and still reports them; so does --all.
    let again = site.matome(&["check"]);
    again.assert_code(1);
    assert_eq!(again.stderr, first.stderr);
    let all = site.matome(&["check", "--all"]);
    all.assert_code(1);
    assert_eq!(all.stderr, first.stderr);

    // Fixed by hand (a story of an earlier item, none at all, the item's own): clean.
    let fixed = eight
        .replace("story = \"NOT-AN-ID\"\n", "")
        .replace(
            &format!("story = {gone:?}"),
            &format!("story = {demo_story:?}"),
        )
        .replace(
            &format!("story = {:?}", key("late")),
            &format!("story = {:?}", key("early")),
        )
        .replace(
            &format!("story = {:?}", key("same-file")),
            &format!("story = {:?}", key("own")),
        );
    site.write(file, fixed);
    site.matome(&["build"]).assert_success();
    let out = site.matome(&["check"]);
    out.assert_success();
}
