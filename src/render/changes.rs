//! The pages builds wrote since the last `matome check`: what the hourly check reads instead of
//! every page of the site.
//!
//! Each build into an output folder adds the output files whose bytes it wrote (HTML pages and
//! static files), each with the fingerprint it was rendered from (a static file: a hash of its
//! bytes), to `.matome/check/<output key>.pending`; `matome check` reads the set, checks
//! those pages' links and then clears it ([`clear`]), under the site lock, so the set accumulates
//! across builds until a check covers them. The file is a cache: sealed with a checksum
//! ([`crate::fsutil::seal`]) and naming the output folder it is for. A missing, corrupt or foreign
//! one is not trusted: a build that finds none records that the set is incomplete ([`Pending::lost`]),
//! and the check then checks everything; so does a record of another matome version. The
//! fingerprints let the check skip a page written again with the bytes it already checked (an
//! output folder built anew with `.matome/` restored). Removed pages need no entry: the check finds every link
//! target that no longer exists. Owns this file's format; the check's own state is
//! [`crate::check`]'s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fsutil;

const FORMAT: u32 = 1;

/// Output files written since the last check of one output folder.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    format: u32,
    /// The matome version whose builds wrote the files (fingerprints are per version).
    version: String,
    /// The output folder (canonical) this record is for.
    pub output: String,
    /// True when some build's writes may be missing from `written` (no record, or one that did
    /// not verify, was found when a build added to it): only a full check covers the site then.
    pub lost: bool,
    /// Paths relative to the output folder, `/`-separated, each with the fingerprint it was
    /// last written from.
    pub written: BTreeMap<String, u64>,
}

/// `.matome/check/<key>.pending`: the pending record of the output folder `output` (canonical).
pub fn path(root: &Path, output: &Path) -> PathBuf {
    crate::layout::check_pending(root, output)
}

/// The pending record for `output`, if there is one that verifies and names that folder.
pub fn load(root: &Path, output: &Path) -> Option<Pending> {
    let bytes = std::fs::read(path(root, output)).ok()?;
    let p: Pending = fsutil::from_sealed(&bytes)?;
    (p.format == FORMAT
        && p.version == env!("CARGO_PKG_VERSION")
        && p.output == output.to_string_lossy())
    .then_some(p)
}

/// Adds the files a build wrote into `output` (with their fingerprints) to its pending record.
/// A record that is missing, does not verify or is of another matome version becomes
/// [`Pending::lost`]. The record is a cache: a failure to save it is
/// not a build failure (the next check, finding no record, checks everything).
pub fn add(root: &Path, output: &Path, written: impl IntoIterator<Item = (String, u64)>) {
    let loaded = load(root, output);
    let trusted = loaded.is_some();
    let mut p = loaded.unwrap_or_else(|| Pending {
        lost: true,
        ..empty(output)
    });
    let mut changed = !trusted;
    for (path, fp) in written {
        changed |= p.written.insert(path, fp) != Some(fp);
    }
    if changed {
        save(root, output, &p);
    }
}

/// Empties the pending record of `output`: a check covered everything in it.
pub fn clear(root: &Path, output: &Path) -> anyhow::Result<()> {
    save_checked(root, output, &empty(output))
}

fn empty(output: &Path) -> Pending {
    Pending {
        format: FORMAT,
        version: env!("CARGO_PKG_VERSION").to_string(),
        output: output.to_string_lossy().into_owned(),
        lost: false,
        written: BTreeMap::new(),
    }
}

fn save(root: &Path, output: &Path, p: &Pending) {
    let _ = save_checked(root, output, p);
}

fn save_checked(root: &Path, output: &Path, p: &Pending) -> anyhow::Result<()> {
    let bytes = fsutil::seal(postcard::to_stdvec(p)?);
    fsutil::write_if_changed(&path(root, output), &bytes)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_accumulates_and_a_lost_record_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let (root, out) = (dir.path(), Path::new("/site/public"));
        assert_eq!(load(root, out), None);
        add(root, out, [("a/index.html".to_string(), 1)]);
        let p = load(root, out).unwrap();
        assert!(p.lost, "no record before the first build: incomplete");
        clear(root, out).unwrap();
        add(root, out, [("a/index.html".to_string(), 1)]);
        add(root, out, [("b/index.html".to_string(), 2)]);
        add(root, out, [("a/index.html".to_string(), 3)]);
        let p = load(root, out).unwrap();
        assert!(!p.lost);
        let written: Vec<(&str, u64)> = p.written.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            written,
            [("a/index.html", 3), ("b/index.html", 2)],
            "the last write's fingerprint"
        );
        // Another output folder's record is not this one's.
        assert_eq!(load(root, Path::new("/site/other")), None);
        // A corrupt record is not trusted, and the next build says the set is incomplete.
        let file = path(root, out);
        let mut bytes = std::fs::read(&file).unwrap();
        bytes[3] ^= 1;
        std::fs::write(&file, &bytes).unwrap();
        assert_eq!(load(root, out), None);
        add(root, out, []);
        assert!(
            load(root, out).unwrap().lost,
            "even a build that wrote nothing"
        );
    }
}
