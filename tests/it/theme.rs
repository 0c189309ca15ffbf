//! Upgrades that do not break sites: `matome init` copies no theme, `matome theme eject` copies
//! chosen built-in files into the site (recorded in `.matome-ejected.toml`, never overwriting),
//! `build` warns about overrides an upgrade left behind and refuses a `search.js` that reads
//! another static index format.

use std::path::Path;

use sha2::{Digest, Sha256};

use crate::support::{RunOutput, Site};

fn builtin(rel: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("themes/default")
        .join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The `warning:` lines a run printed.
fn warnings(out: &RunOutput) -> Vec<&str> {
    out.stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect()
}

fn demo() -> Site {
    crate::support::demo_site("https://user.github.io/repo/")
}

#[test]
fn theme_eject_lists_copies_records_and_never_overwrites() {
    let site = demo();
    // No FILE: the list of what can be ejected.
    let out = site.matome(&["theme", "eject"]);
    out.assert_success();
    for name in [
        "templates/digest.html",
        "templates/base.html",
        "static/search.js",
        "static/style.css",
    ] {
        assert!(
            out.stdout.contains(name),
            "{name} not listed:\n{}",
            out.stdout
        );
    }

    // Copied into the folders the look-up reads first, byte for byte, and recorded.
    site.matome(&["theme", "eject", "digest.html", "static/style.css"])
        .assert_success();
    assert_eq!(
        site.read_bytes("templates/digest.html"),
        builtin("templates/digest.html")
    );
    assert_eq!(
        site.read_bytes("static/style.css"),
        builtin("static/style.css")
    );
    let manifest: toml::Table = toml::from_str(&site.read(".matome-ejected.toml")).unwrap();
    let rec = manifest["templates/digest.html"].as_table().unwrap();
    assert_eq!(rec["matome"].as_str(), Some(env!("CARGO_PKG_VERSION")));
    assert_eq!(
        rec["builtin_sha256"].as_str(),
        Some(sha256_hex(&builtin("templates/digest.html")).as_str())
    );
    assert!(manifest.contains_key("static/style.css"), "{manifest:?}");
    let out = site.matome(&["theme", "eject"]);
    assert!(
        out.stdout
            .contains("templates/digest.html  (the site has templates/digest.html)"),
        "{}",
        out.stdout
    );

    // The site's copy is the one used, and an edit to it is never overwritten.
    let edited = String::from_utf8(builtin("templates/digest.html"))
        .unwrap()
        .replace("{% block main %}", "{% block main %}<p>私の版</p>");
    site.write("templates/digest.html", &edited);
    let out = site.matome(&["theme", "eject", "digest.html", "home.html"]);
    out.assert_code(1);
    assert!(
        out.stderr
            .contains("templates/digest.html exists in the site: not overwritten"),
        "{out:?}"
    );
    assert_eq!(site.read("templates/digest.html"), edited);
    assert!(
        site.exists("templates/home.html"),
        "the other file is still ejected"
    );
    site.matome(&["build"]).assert_success();
    assert!(
        site.read("public/2021/07/20/0800/index.html")
            .contains("<p>私の版</p>")
    );

    // --diff shows the edit against the built-in file.
    let out = site.matome(&["theme", "eject", "--diff", "digest.html"]);
    out.assert_success();
    assert!(
        out.stdout.contains("+{% block main %}<p>私の版</p>"),
        "{}",
        out.stdout
    );

    // An unknown name is an error that lists the names, and writes nothing.
    let out = site.matome(&["theme", "eject", "favicon.svg", "digst.html"]);
    out.assert_failure();
    assert!(out.stderr.contains("\"digst.html\""), "{out:?}");
    assert!(
        out.stderr.contains("templates/digest.html") && out.stderr.contains("static/search.js"),
        "{out:?}"
    );
    assert!(!site.exists("static/favicon.svg"));
}

#[test]
fn build_warns_once_about_an_override_ejected_from_an_older_builtin() {
    let site = demo();
    site.matome(&["theme", "eject", "digest.html", "home.html"])
        .assert_success();
    // Freshly ejected: nothing to say.
    let out = site.matome(&["build"]);
    out.assert_success();
    assert!(!out.stderr.contains("warning:"), "{out:?}");

    // As if digest.html had been ejected from an older matome whose built-in file differed.
    let manifest = site.read(".matome-ejected.toml");
    let today = sha256_hex(&builtin("templates/digest.html"));
    let older = manifest.replacen(&today, &sha256_hex(b"an older digest.html"), 1);
    assert_ne!(older, manifest);
    site.write(
        ".matome-ejected.toml",
        older.replacen(env!("CARGO_PKG_VERSION"), "0.0.9", 1),
    );
    let out = site.matome(&["build"]);
    out.assert_success();
    let warned = warnings(&out);
    assert_eq!(warned.len(), 1, "{out:?}");
    assert!(
        warned[0].starts_with("warning: templates/digest.html was ejected from matome 0.0.9 and the built-in digest.html has changed since"),
        "{out:?}"
    );
    assert!(
        warned[0].contains("matome theme eject --diff digest.html"),
        "{out:?}"
    );

    // A broken record is named and the site still builds.
    let good = site.read(".matome-ejected.toml");
    site.write(".matome-ejected.toml", "[templates/digest.html\n");
    let out = site.matome(&["build"]);
    out.assert_success();
    assert!(
        out.stderr
            .contains(".matome-ejected.toml is not a valid record of ejected files"),
        "{out:?}"
    );
    site.write(".matome-ejected.toml", good);

    // Re-ejected (delete, eject): the record is today's and the warning is gone.
    std::fs::remove_file(site.path("templates/digest.html")).unwrap();
    site.matome(&["theme", "eject", "digest.html"])
        .assert_success();
    let out = site.matome(&["build"]);
    assert!(!out.stderr.contains("warning:"), "{out:?}");
}

#[test]
fn build_warns_about_a_theme_copy_made_by_an_older_init() {
    let site = demo();
    // An older `init` copied the theme into themes/default/: an unedited copy says nothing, an
    // edited (or stale) one is named.
    site.write(
        "themes/default/templates/day.html",
        builtin("templates/day.html"),
    );
    site.write("themes/default/static/style.css", "body { color: red }\n");
    let out = site.matome(&["build"]);
    out.assert_success();
    let warned = warnings(&out);
    assert_eq!(warned.len(), 1, "{out:?}");
    assert!(
        warned[0].contains("themes/default/static/style.css overrides the built-in style.css"),
        "{out:?}"
    );
    assert!(
        warned[0].contains("if you did not edit it, delete it"),
        "{out:?}"
    );
    let out = site.matome(&["theme", "eject", "--diff"]);
    assert!(
        out.stdout.contains("+++ themes/default/static/style.css"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("+body { color: red }"),
        "{}",
        out.stdout
    );
}

#[test]
fn build_refuses_a_search_js_of_another_format() {
    let site = demo();
    let js = String::from_utf8(builtin("static/search.js")).unwrap();
    let format = matome::search::static_index::FORMAT;
    let declared = format!("const SEARCH_FORMAT = {format};");
    assert!(js.contains(&declared));
    site.write(
        "static/search.js",
        js.replace(&declared, "const SEARCH_FORMAT = 0;"),
    );
    let out = site.matome(&["build"]);
    out.assert_failure();
    assert!(
        out.stderr.contains(&format!(
            "static/search.js reads static search index format 0, but this matome writes format {format}"
        )),
        "{out:?}"
    );
    assert!(
        out.stderr.contains("matome theme eject search.js"),
        "{out:?}"
    );
    assert!(
        !site.exists("public/index.html"),
        "nothing is built with it"
    );

    // One with no format at all is refused too.
    site.write("static/search.js", "console.log('mine');\n");
    let out = site.matome(&["build"]);
    out.assert_failure();
    assert!(
        out.stderr
            .contains("static/search.js declares no static search format"),
        "{out:?}"
    );

    // A copy from before SEARCH_FORMAT existed is read by its manifest check: one of this
    // format builds, and the same copy in an older init's themes/default/ of format 1 is refused.
    let before = js.replace(&declared, "").replace(
        "m.format !== SEARCH_FORMAT",
        &format!("m.format !== {format}"),
    );
    site.write("static/search.js", &before);
    site.matome(&["build"]).assert_success();
    std::fs::remove_file(site.path("static/search.js")).unwrap();
    site.write(
        "themes/default/static/search.js",
        before.replace(&format!("m.format !== {format}"), "m.format !== 1"),
    );
    let out = site.matome(&["build"]);
    out.assert_failure();
    assert!(
        out.stderr
            .contains("themes/default/static/search.js reads static search index format 1"),
        "{out:?}"
    );
}
