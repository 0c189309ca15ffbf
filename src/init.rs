//! `matome init [DIR]`: a new site that builds at once and deploys itself.
//!
//! Writes matome.toml (with example feeds), content/, .gitignore and
//! `.github/workflows/matome.yml`: every hour, GitHub Actions fetches, commits the new snapshot
//! and the fetch state, builds with the Pages URL and deploys to GitHub Pages, in jobs that each
//! hold only the permissions they use (the one that may push runs no matome code), with every
//! action pinned to a commit and the binary cached per matome commit. No copy of the
//! theme: the default theme stays built into matome, so an upgrade reaches the site; a file to
//! edit is copied out with `matome theme eject` (`crate::theme_eject`). Never overwrites a file
//! that exists.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The workflow file `init` writes.
pub const WORKFLOW: &str = include_str!("init/matome.yml");
/// The workflow `init --deploy s3` writes instead: build, then `matome deploy` to a bucket.
pub const WORKFLOW_S3: &str = include_str!("init/matome-s3.yml");

/// Where the workflow `init` writes publishes the site.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum DeployTarget {
    /// GitHub Pages (the default).
    #[default]
    Pages,
    /// An S3-compatible bucket (S3, R2, GCS, MinIO) with `matome deploy`.
    S3,
}

/// The `[deploy]` table `init --deploy s3` appends to matome.toml.
const DEPLOY_TABLE: &str = r#"
# Where `matome deploy` uploads the site (README: "Deploying to object storage"). Credentials come
# from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), never from this file.
# Set base_url above to the site's public URL (the CloudFront or custom domain).
[deploy]
url = "s3://your-bucket"     # or "s3://your-bucket/prefix"
region = "us-east-1"         # R2: "auto"
# endpoint = "https://ACCOUNT_ID.r2.cloudflarestorage.com"   # R2, MinIO, GCS (https://storage.googleapis.com)
"#;

const GITIGNORE: &str = "\
# Build output and caches: rebuilt from content/ (CI keeps .matome/ and public/ with actions/cache).
/public/
/.matome/
.matome.lock
# Temporary files of a write cut short (kill -9); the next fetch removes them.
.*.tmp
# A fetch-state.json that could not be read, kept aside by fetch (see its warning).
fetch-state.json.bad-*
";

fn config(title: &str) -> String {
    let mut quoted = String::new();
    crate::content::toml_string(&mut quoted, title);
    format!(
        r#"# matome.toml: the site's settings (every key is described in matome's README, Configuration).
title = {title}
# The workflow builds with the GitHub Pages URL; this one is used by local builds.
base_url = "https://USER.github.io/REPO/"
language = "ja"              # "ja" or "en": theme strings and date formats
timezone = "Asia/Tokyo"      # digests are named and shown in this zone
# theme = "default"          # optional: a theme folder under themes/; default: the built-in one

# Add feeds here, or import them: `matome feeds import feeds.csv` (sitename,FeedURL,Category)
# or an OPML file.
[[feeds]]
url = "https://rss.itmedia.co.jp/rss/2.0/itmedia_all.xml"
category = "IT"
site = "ITmedia 総合記事一覧"

[[feeds]]
url = "https://www.publickey1.jp/atom.xml"
category = "IT"

[[feeds]]
url = "https://feeds.arstechnica.com/arstechnica/index"
category = "海外TECH"
site = "Ars Technica"
"#,
        title = quoted
    )
}

/// What `init` wrote.
#[derive(Debug)]
pub struct InitReport {
    pub root: PathBuf,
    pub written: Vec<PathBuf>,
}

/// Scaffolds a site in `dir` (created if needed) that deploys to GitHub Pages. Fails if `dir`
/// already has a matome.toml.
pub fn init(dir: &Path) -> Result<InitReport> {
    init_for(dir, DeployTarget::Pages)
}

/// Like [`init`], with the workflow (and for S3 the `[deploy]` table) for `target`.
pub fn init_for(dir: &Path, target: DeployTarget) -> Result<InitReport> {
    let config_path = crate::config::config_path(dir);
    if config_path.exists() {
        bail!(
            "{} already exists: this folder is a matome site already",
            config_path.display()
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let title = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "ニュースまとめ".into());
    let (config_text, workflow) = match target {
        DeployTarget::Pages => (config(&title), WORKFLOW),
        DeployTarget::S3 => (config(&title) + DEPLOY_TABLE, WORKFLOW_S3),
    };
    let files: Vec<(PathBuf, Vec<u8>)> = vec![
        (config_path, config_text.into_bytes()),
        (dir.join(".gitignore"), GITIGNORE.as_bytes().to_vec()),
        (dir.join("content").join(".gitkeep"), Vec::new()),
        (
            dir.join(".github").join("workflows").join("matome.yml"),
            workflow.as_bytes().to_vec(),
        ),
    ];
    let mut written = Vec::new();
    for (path, bytes) in files {
        if path.exists() {
            continue;
        }
        crate::fsutil::write_atomic(&path, &bytes)?;
        written.push(path);
    }
    Ok(InitReport {
        root: dir.to_path_buf(),
        written,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_writes_a_site_that_loads_and_refuses_to_run_twice() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("テックまとめ");
        let r = init(&root).unwrap();
        assert_eq!(r.written.len(), 4, "{:?}", r.written);
        let config = crate::config::Config::load(&root).unwrap();
        assert_eq!(config.title, "テックまとめ");
        assert_eq!(config.feeds.len(), 3);
        // The theme stays built in: nothing of it is copied.
        assert!(!root.join("themes").exists());
        assert!(!root.join("templates").exists());
        assert!(!root.join("static").exists());
        assert!(
            std::fs::read_to_string(root.join(".gitignore"))
                .unwrap()
                .contains("/.matome/")
        );
        let e = init(&root).unwrap_err().to_string();
        assert!(e.contains("already"), "{e}");
    }

    #[test]
    fn init_for_s3_writes_a_deploy_table_that_loads() {
        let dir = tempfile::tempdir().unwrap();
        init_for(dir.path(), DeployTarget::S3).unwrap();
        let config = crate::config::Config::load(dir.path()).unwrap();
        let d = config.deploy.expect("a [deploy] table");
        assert_eq!(
            (d.bucket.as_str(), d.region.as_deref()),
            ("your-bucket", Some("us-east-1"))
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".github/workflows/matome.yml")).unwrap(),
            WORKFLOW_S3
        );
    }
}
