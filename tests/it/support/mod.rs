//! Shared integration-test infrastructure: an HTTP test server, a temporary
//! site wrapper that runs the real `matome` binary, and fixture access.

pub mod browser;
pub mod fake_s3;
pub mod quality_set;
pub mod server;
pub mod site;
pub mod snapshots;
pub mod toml_readers;
pub mod web;

pub use server::{Request, Response, TestServer};
pub use site::{FeedSpec, RunOutput, Site};

use std::path::PathBuf;

/// Directory holding the feed fixtures (`tests/fixtures/feeds`).
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/feeds")
}

/// Absolute path of `tests/fixtures/feeds/<name>`.
pub fn fixture_path(name: &str) -> PathBuf {
    fixtures_dir().join(name)
}

/// Raw bytes of `tests/fixtures/feeds/<name>` (panics with the path if missing).
pub fn fixture(name: &str) -> Vec<u8> {
    let p = fixture_path(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("read fixture {}: {e}", p.display()))
}

/// A temporary site holding the repository's demo archive (`content/`), with `base_url`.
pub fn demo_site(base_url: &str) -> Site {
    let mut site = Site::new();
    site.config.base_url = base_url.into();
    site.write_config(&[]);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for e in walkdir::WalkDir::new(root.join("content")) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(root).unwrap();
            site.write(rel, std::fs::read(e.path()).unwrap());
        }
    }
    site
}
