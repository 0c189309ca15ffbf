//! Hostile input, round 2 (issue 11): implausible and unrepresentable dates, broken content and
//! state files, control bytes from feeds, XML-invalid characters in names, out-of-range config
//! values, kill -9 leftovers, and a repository that tests itself without anything outside it.

use std::path::Path;

use crate::support::{FeedSpec, Response, Site, TestServer};

/// Files of the repository the tests and docs rely on (tracked sources, docs and scripts).
fn repository_text_files() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for top in ["src", "tests", "scripts", "benches", "docs", "themes", "build.rs"] {
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
/// outside it (the import test read `../shared/data/…`, ARCHITECTURE.md linked `../shared/`).
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
