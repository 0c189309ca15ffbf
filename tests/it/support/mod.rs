//! Shared integration-test infrastructure: an HTTP test server, a temporary
//! site wrapper that runs the real `matome` binary, and fixture access.
#![allow(dead_code, unused_imports)]

pub mod browser;
pub mod server;
pub mod site;
pub mod web;

pub use server::{Request, Response, TestServer};
pub use site::{FeedSpec, FetchConfig, RunOutput, Site, SiteConfig};

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
