//! The size of the built site: its total bytes and files, measured after each build, and the
//! warning `matome build` gives before GitHub Pages refuses the site.
//!
//! GitHub Pages publishes sites of at most 1 GB; past it the deploy step only warns ("Uploaded
//! artifact size of N bytes exceeds the allowed size of 1 GB. Deployment might fail") and
//! deployments may time out. A build says the size every time and warns above `[build]
//! size_warning_mb` (900 MB by default), naming the settings that shrink the site. Does not
//! decide what the site contains (the page plan and the templates do).
//!
//! The size is what matome wrote there, added up from the build record ([`SiteSize::of_record`]:
//! every page's bytes, the static files, the static search's months and manifest), not a walk
//! of the folder, which took longer than the rest of an hourly build at three years of archive
//! (93,000 files). A file put into the output folder by hand is not counted; one deleted by hand
//! is written again by the next build, and counted.

use std::path::Path;

use anyhow::{Context, Result};

use super::views::digest::thousands;
use crate::search::static_index::MonthShard;

/// One megabyte as GitHub counts its 1 GB limit (decimal).
pub const MB: u64 = 1_000_000;

/// What the output folder holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SiteSize {
    /// Bytes of every file (what an upload of the folder sends, before compression).
    pub bytes: u64,
    pub files: u64,
}

impl SiteSize {
    /// Walks `output`: every regular file's length (symlinks are not followed: Pages' upload
    /// action does not follow them either). Linear in the files of the folder; what the build
    /// reports must equal it on a folder only matome writes (the tests check that).
    pub fn measure(output: &Path) -> Result<SiteSize> {
        let mut size = SiteSize::default();
        for entry in walkdir::WalkDir::new(output) {
            let entry = entry.with_context(|| format!("measuring {}", output.display()))?;
            if entry.file_type().is_file() {
                let meta = entry
                    .metadata()
                    .with_context(|| format!("measuring {}", entry.path().display()))?;
                size.bytes += meta.len();
                size.files += 1;
            }
        }
        Ok(size)
    }

    /// The files a build leaves, from its record: each page's bytes, each static file's, each
    /// month of the static search (its files and their total) and the search manifest's.
    pub fn of_record<'a>(
        pages: impl Iterator<Item = u64>,
        statics: impl Iterator<Item = u64>,
        search_months: impl Iterator<Item = &'a MonthShard>,
        manifest: u64,
    ) -> SiteSize {
        let mut size = SiteSize {
            bytes: manifest,
            files: 1,
        };
        for len in pages.chain(statics) {
            size.bytes += len;
            size.files += 1;
        }
        for m in search_months {
            size.bytes += m.bytes;
            size.files += m.files.len() as u64;
        }
        size
    }

    /// `612.3 MB in 41,234 files`.
    pub fn describe(&self) -> String {
        format!(
            "{} in {} files",
            megabytes(self.bytes),
            thousands(self.files)
        )
    }

    /// The warning for a site above `limit_mb` megabytes, `None` at or below it.
    pub fn warning(&self, output: &Path, limit_mb: u64) -> Option<String> {
        (self.bytes > limit_mb.saturating_mul(MB)).then(|| {
            format!(
                "{} holds {}, over the {limit_mb} MB of `[build] size_warning_mb`: GitHub Pages \
                 publishes sites of at most 1 GB (past it the deploy warns \"Deployment might \
                 fail\" and may time out). To shrink the site, lower `[build] keyword_max_pages` \
                 (fewer pages per keyword) or raise `[build] keyword_min_items` (fewer keyword \
                 pages) in matome.toml, or deploy to object storage with `matome deploy` \
                 ([deploy] in matome.toml), which has no such limit",
                output.display(),
                self.describe()
            )
        })
    }
}

/// Bytes as decimal megabytes with one decimal: `612.3 MB`.
pub fn megabytes(bytes: u64) -> String {
    let tenths = (bytes + MB / 20) / (MB / 10);
    format!("{}.{} MB", thousands(tenths / 10), tenths % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_written_for_people() {
        assert_eq!(megabytes(0), "0.0 MB");
        assert_eq!(megabytes(949_999), "0.9 MB");
        assert_eq!(megabytes(950_000), "1.0 MB");
        assert_eq!(megabytes(1_234_567_890), "1,234.6 MB");
        let s = SiteSize {
            bytes: 612_345_678,
            files: 41_234,
        };
        assert_eq!(s.describe(), "612.3 MB in 41,234 files");
    }

    #[test]
    fn the_warning_starts_above_the_limit() {
        let at = SiteSize {
            bytes: 900 * MB,
            files: 1,
        };
        assert_eq!(at.warning(Path::new("public"), 900), None);
        let over = SiteSize {
            bytes: 900 * MB + 1,
            files: 1,
        };
        let w = over.warning(Path::new("public"), 900).unwrap();
        for part in [
            "public",
            "1 GB",
            "size_warning_mb",
            "keyword_max_pages",
            "keyword_min_items",
        ] {
            assert!(w.contains(part), "{part}: {w}");
        }
    }

    #[test]
    fn measuring_counts_every_file_below_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(dir.path().join("index.html"), b"12345").unwrap();
        std::fs::write(dir.path().join("a/b/index.html"), b"123").unwrap();
        std::fs::write(dir.path().join(".nojekyll"), b"").unwrap();
        let s = SiteSize::measure(dir.path()).unwrap();
        assert_eq!(s, SiteSize { bytes: 8, files: 3 });
    }
}
