//! Where matome keeps its own files in a site: every cache under `.matome/` (rebuilt from
//! content/ when missing or stale, never committed) and the state files beside matome.toml
//! (committed). The one place those names are spelled; the modules that read and write each file
//! own its format (named on each item). Does not cover content/, the theme or the output folder.

use std::path::{Path, PathBuf};

/// The cache folder at the site root (`.gitignore`d by `matome init`; CI restores it).
pub const CACHE_DIR: &str = ".matome";
/// The site lock at the site root ([`crate::fsutil::SiteLock`]).
pub const LOCK_FILE: &str = ".matome.lock";
/// Feed validators, health and back-off, committed ([`crate::fetch::state`]).
pub const FETCH_STATE_FILE: &str = "fetch-state.json";
/// What each publish target was sent, committed ([`crate::publish::state`]).
pub const PUBLISH_STATE_FILE: &str = "publish-state.json";
/// What `matome theme eject` copied, committed (read by [`crate::render::overrides`]).
pub const EJECTED_RECORD: &str = ".matome-ejected.toml";
/// How a temporary file matome writes begins (then random characters and `.tmp`).
pub const TEMP_PREFIX: &str = ".matome.";

/// `.matome/keys.bin`: the archived (feed, id) keys per snapshot file, postcard
/// ([`crate::content::keys`]; `keys.json` before issue 13).
pub const KEYS_CACHE: &str = "keys.bin";
/// `.matome/keys.json`: the keys cache before issue 13, deleted when `keys.bin` is written.
pub const LEGACY_KEYS_CACHE: &str = "keys.json";
/// `.matome/df.tsv`: document frequencies ([`crate::analyze::df`]).
pub const DF_CACHE: &str = "df.tsv";
/// `.matome/archive/`: the loaded archive per month, postcard ([`crate::content::archive`]).
pub const ARCHIVE_CACHE_DIR: &str = "archive";
/// `.matome/build/`: one record per output folder of what the last build wrote (`crate::render`).
pub const BUILD_RECORDS_DIR: &str = "build";
/// `.matome/search/`: the tantivy index and its record ([`crate::search::index`]).
pub const SEARCH_INDEX_DIR: &str = "search";
/// `.matome/search/files.json`: snapshot file → content hash, as indexed.
pub const SEARCH_FILES: &str = "files.json";
/// `.matome/search/tantivy/`: tantivy's own files.
pub const TANTIVY_DIR: &str = "tantivy";
/// `.matome/check/`: per output folder, of the built site's links (`<output key>.links`; `crate::check`), and the
/// pages builds wrote since the last check (`<output key>.pending`; `crate::render::changes`).
pub const CHECK_DIR: &str = "check";
/// `.matome/stories.bin`: the window of stories, derived from content/ ([`stories_window`]).
pub const STORIES_WINDOW: &str = "stories.bin";
/// `.matome/derived/`: one record per snapshot file, the snapshot as parsed
/// ([`crate::content::derived`]).
pub const DERIVED_DIR: &str = "derived";
/// `.matome/search-docs/`: the static search's documents per month before the derived layer
/// (issue 23); removed by a build that finds it.
pub const LEGACY_SEARCH_DOCS_DIR: &str = "search-docs";
/// `.matome/check/content.bin`: what `matome check` kept of each content file before the
/// derived layer (issue 23: the check reads `keys.bin`); removed by a check that finds it.
pub const LEGACY_CHECK_CONTENT: &str = "content.bin";

/// `.matome/` of the site at `root`.
pub fn cache_dir(root: &Path) -> PathBuf {
    root.join(CACHE_DIR)
}

/// `.matome.lock` of the site at `root`.
pub fn lock_file(root: &Path) -> PathBuf {
    root.join(LOCK_FILE)
}

/// `fetch-state.json` of the site at `root`.
pub fn fetch_state(root: &Path) -> PathBuf {
    root.join(FETCH_STATE_FILE)
}

/// `publish-state.json` of the site at `root`.
pub fn publish_state(root: &Path) -> PathBuf {
    root.join(PUBLISH_STATE_FILE)
}

/// `.matome/keys.bin` of the site at `root`.
pub fn keys_cache(root: &Path) -> PathBuf {
    cache_dir(root).join(KEYS_CACHE)
}

/// `.matome/df.tsv` of the site at `root`.
pub fn df_cache(root: &Path) -> PathBuf {
    cache_dir(root).join(DF_CACHE)
}

/// `.matome/archive/` of the site at `root`.
pub fn archive_cache_dir(root: &Path) -> PathBuf {
    cache_dir(root).join(ARCHIVE_CACHE_DIR)
}

/// `.matome/build/` of the site at `root`.
pub fn build_records_dir(root: &Path) -> PathBuf {
    cache_dir(root).join(BUILD_RECORDS_DIR)
}

/// `.matome/search/` of the site at `root`.
pub fn search_index_dir(root: &Path) -> PathBuf {
    cache_dir(root).join(SEARCH_INDEX_DIR)
}

/// `.matome/search/files.json` of the site at `root`.
pub fn search_files(root: &Path) -> PathBuf {
    search_index_dir(root).join(SEARCH_FILES)
}

/// `.matome/search/tantivy/` of the site at `root`.
pub fn tantivy_dir(root: &Path) -> PathBuf {
    search_index_dir(root).join(TANTIVY_DIR)
}

/// `.matome/check/` of the site at `root`.
pub fn check_dir(root: &Path) -> PathBuf {
    cache_dir(root).join(CHECK_DIR)
}

/// The name the records of one output folder share: a stable hash of its (canonical) path, so a
/// site built into two folders keeps a record for each.
fn output_key(output: &Path) -> String {
    format!(
        "{:016x}",
        crate::hash::fnv1a(output.to_string_lossy().as_bytes())
    )
}

/// `.matome/build/<output key>.bin`: what the last build into `output` wrote (`crate::render`).
pub fn build_record(root: &Path, output: &Path) -> PathBuf {
    build_records_dir(root).join(format!("{}.bin", output_key(output)))
}

/// `.matome/check/<output key>.links`: the link record of `output` ([`crate::check`]).
pub fn check_links(root: &Path, output: &Path) -> PathBuf {
    check_dir(root).join(format!("{}.links", output_key(output)))
}

/// `.matome/check/<output key>.pending`: the files builds wrote into `output` since the last
/// check ([`crate::render::changes`]).
pub fn check_pending(root: &Path, output: &Path) -> PathBuf {
    check_dir(root).join(format!("{}.pending", output_key(output)))
}

/// `.matome/stories.bin` of the site at `root`: the window of stories a fetch decides new
/// items' stories against (`crate::stories::window`).
pub fn stories_window(root: &Path) -> PathBuf {
    cache_dir(root).join(STORIES_WINDOW)
}

/// `.matome/derived/` of the site at `root`.
pub fn derived_dir(root: &Path) -> PathBuf {
    cache_dir(root).join(DERIVED_DIR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cache_lives_under_the_cache_dir() {
        let root = Path::new("site");
        for p in [
            keys_cache(root),
            df_cache(root),
            archive_cache_dir(root),
            build_records_dir(root),
            search_index_dir(root),
            search_files(root),
            tantivy_dir(root),
            derived_dir(root),
            stories_window(root),
            check_dir(root),
        ] {
            assert!(p.starts_with("site/.matome"), "{}", p.display());
        }
        for p in [lock_file(root), fetch_state(root), publish_state(root)] {
            assert_eq!(p.parent(), Some(root), "{}", p.display());
        }
    }
}
