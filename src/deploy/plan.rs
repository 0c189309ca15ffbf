//! The pure half of `matome deploy`: what the output folder and the bucket hold, and the plan
//! that turns them into uploads and deletions in a link-safe order, with each object's headers.
//! No IO: [`super`] lists, hashes, uploads and deletes.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config::DeploySettings;

use super::{DEPLOY_MANIFEST, MANIFEST_FORMAT};

/// One file of the output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalFile {
    /// Relative path with `/` separators: the key under the prefix.
    pub rel: String,
    pub size: u64,
    /// Hex MD5 of the bytes.
    pub md5: String,
}

/// One object in the bucket, as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteObject {
    pub size: u64,
    pub e_tag: Option<String>,
}

/// What the last deploy recorded about one object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    pub md5: String,
    pub size: u64,
    #[serde(default)]
    pub e_tag: Option<String>,
    pub content_type: String,
    pub cache_control: String,
}

/// `PREFIX/.matome-deploy.json`: every object the last complete deploy left, by relative path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub files: BTreeMap<String, ManifestEntry>,
}

/// The steps of a deploy, in order (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    Assets,
    NewPages,
    ChangedPages,
    EntryPoints,
}

/// One object to upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upload {
    pub rel: String,
    pub size: u64,
    pub md5: String,
    /// Not in the bucket yet.
    pub new: bool,
    pub content_type: &'static str,
    pub cache_control: String,
}

/// What a deploy does, decided before any request that changes the bucket.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Uploads by step, each step's in path order.
    pub steps: BTreeMap<Step, Vec<Upload>>,
    /// Relative paths of objects to delete, in path order.
    pub deletes: Vec<String>,
    /// Files already in the bucket as they are.
    pub unchanged: usize,
}

impl Plan {
    /// All uploads in the order they run.
    pub fn uploads(&self) -> impl Iterator<Item = &Upload> {
        self.steps.values().flatten()
    }
}

/// What a deploy did (or, with `--dry-run`, would do).
#[derive(Debug, Clone)]
pub struct DeployReport {
    /// `s3://bucket/prefix` as configured.
    pub target: String,
    pub files: usize,
    pub plan: Plan,
    pub uploaded_bytes: u64,
    pub dry_run: bool,
    pub elapsed: Duration,
    /// Full keys under the prefix that matome never writes: left alone.
    pub foreign: Vec<String>,
    /// What the bucket's throttling did.
    pub throttle: super::throttle::ThrottleStats,
}

/// The Content-Type of an output file, from its name.
pub fn content_type(rel: &str) -> &'static str {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("html" | "htm") => "text/html; charset=utf-8",
        // The site's feeds are Atom (`atom.xml`, `category/…/atom.xml`); sitemaps are plain XML.
        Some("xml") if name == "atom.xml" => "application/atom+xml; charset=utf-8",
        Some("xml") => "application/xml; charset=utf-8",
        Some("json") => "application/json",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("txt") => "text/plain; charset=utf-8",
        // The static search index's posting lists (`search/YYYY-MM/bXXX.bin`, `bXXX-K.bin`).
        Some("bin") => "application/octet-stream",
        Some("webmanifest") => "application/manifest+json",
        _ => mime_guess::from_path(name)
            .first_raw()
            .unwrap_or("application/octet-stream"),
    }
}

/// True for the files whose URLs carry a version: the static search index's month files
/// (`search/YYYY-MM/…`), which the search page always requests with `?v=` the manifest's version.
pub fn is_versioned(rel: &str) -> bool {
    let Some(rest) = rel.strip_prefix("search/") else {
        return false;
    };
    let Some((month, file)) = rest.split_once('/') else {
        return false;
    };
    let m = month.as_bytes();
    m.len() == 7
        && m[4] == b'-'
        && m.iter()
            .enumerate()
            .all(|(i, b)| i == 4 || b.is_ascii_digit())
        && !file.is_empty()
        && !file.contains('/')
}

/// The Cache-Control of an output file: long and immutable for versioned files, short for the
/// rest (pages, feeds, manifests, styles).
pub fn cache_control<'a>(rel: &str, settings: &'a DeploySettings) -> &'a str {
    if is_versioned(rel) {
        &settings.cache_control_immutable
    } else {
        &settings.cache_control
    }
}

fn is_page(rel: &str) -> bool {
    rel.ends_with(".html") || rel.ends_with(".htm")
}

/// The home page, the feeds and sitemaps and the search manifest: what visitors and readers
/// enter by, uploaded after everything they lead to.
fn is_entry_point(rel: &str) -> bool {
    rel == "index.html" || rel.ends_with(".xml") || rel == "search/manifest.json"
}

/// ETags are quoted (`"…"`); weak ones start with `W/`.
fn etag_hex(e_tag: &str) -> &str {
    e_tag.trim_start_matches("W/").trim_matches('"')
}

/// Compares the output folder with the bucket. `remote` and `manifest` are keyed by relative
/// path; `settings` gives the headers.
pub fn plan(
    local: &[LocalFile],
    remote: &BTreeMap<String, RemoteObject>,
    manifest: &Manifest,
    settings: &DeploySettings,
) -> Plan {
    let mut out = Plan::default();
    let mut present = BTreeSet::new();
    for f in local {
        present.insert(f.rel.as_str());
        let ct = content_type(&f.rel);
        let cc = cache_control(&f.rel, settings);
        let r = remote.get(&f.rel);
        let same = r.is_some_and(|r| {
            if r.size != f.size {
                return false;
            }
            let etag_is_md5 = r
                .e_tag
                .as_deref()
                .is_some_and(|e| etag_hex(e).eq_ignore_ascii_case(&f.md5));
            match manifest.files.get(&f.rel) {
                // The recorded ETag vouches for the bytes recorded with it; a store that lists
                // no ETags (s3s-fs) is taken at the manifest's word (with the size).
                Some(m) => {
                    m.content_type == ct
                        && m.cache_control == cc
                        && (etag_is_md5
                            || (m.md5 == f.md5
                                && m.size == f.size
                                && (r.e_tag.is_none() || m.e_tag == r.e_tag)))
                }
                None => etag_is_md5,
            }
        });
        if same {
            out.unchanged += 1;
            continue;
        }
        let new = r.is_none();
        let step = if is_entry_point(&f.rel) {
            Step::EntryPoints
        } else if !is_page(&f.rel) {
            Step::Assets
        } else if new {
            Step::NewPages
        } else {
            Step::ChangedPages
        };
        out.steps.entry(step).or_default().push(Upload {
            rel: f.rel.clone(),
            size: f.size,
            md5: f.md5.clone(),
            new,
            content_type: ct,
            cache_control: cc.to_string(),
        });
    }
    for v in out.steps.values_mut() {
        v.sort_by(|a, b| a.rel.cmp(&b.rel));
    }
    out.deletes = remote
        .keys()
        .filter(|k| !present.contains(k.as_str()) && k.as_str() != DEPLOY_MANIFEST)
        .cloned()
        .collect();
    out
}

/// The manifest after the uploads: every object the site now has, as the bucket holds it (an
/// uploaded object with the ETag its upload answered; an unchanged one with the listed ETag,
/// else, for a store that lists none, the one recorded).
pub fn next_manifest(
    local: &[LocalFile],
    plan: &Plan,
    remote: &BTreeMap<String, RemoteObject>,
    manifest: &Manifest,
    uploaded: &BTreeMap<String, Option<String>>,
    settings: &DeploySettings,
) -> Manifest {
    let by_rel: BTreeSet<&str> = plan.uploads().map(|u| u.rel.as_str()).collect();
    let mut next = Manifest {
        format: MANIFEST_FORMAT,
        files: BTreeMap::new(),
    };
    for f in local {
        let e_tag = match by_rel.contains(f.rel.as_str()) {
            true => uploaded.get(&f.rel).cloned().flatten(),
            false => remote
                .get(&f.rel)
                .and_then(|r| r.e_tag.clone())
                .or_else(|| manifest.files.get(&f.rel).and_then(|m| m.e_tag.clone())),
        };
        next.files.insert(
            f.rel.clone(),
            ManifestEntry {
                md5: f.md5.clone(),
                size: f.size,
                e_tag,
                content_type: content_type(&f.rel).to_string(),
                cache_control: cache_control(&f.rel, settings).to_string(),
            },
        );
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deploy::MANIFEST_FORMAT;

    fn settings() -> DeploySettings {
        crate::config::Config::parse(
            "title = \"t\"\nbase_url = \"https://x.example/\"\n[deploy]\nurl = \"s3://b/p\"\n",
            "m.toml",
        )
        .unwrap()
        .deploy
        .unwrap()
    }

    fn file(rel: &str, md5: &str) -> LocalFile {
        LocalFile {
            rel: rel.into(),
            size: 10,
            md5: md5.into(),
        }
    }

    fn obj(md5: &str) -> RemoteObject {
        RemoteObject {
            size: 10,
            e_tag: Some(format!("\"{md5}\"")),
        }
    }

    #[test]
    fn types_and_caching_follow_the_file() {
        let s = settings();
        assert_eq!(
            content_type("2021/07/20/0800/index.html"),
            "text/html; charset=utf-8"
        );
        assert_eq!(
            content_type("atom.xml"),
            "application/atom+xml; charset=utf-8"
        );
        assert_eq!(
            content_type("category/it/atom.xml"),
            "application/atom+xml; charset=utf-8"
        );
        assert_eq!(
            content_type("sitemap-1.xml"),
            "application/xml; charset=utf-8"
        );
        assert_eq!(
            content_type("search/2021-07/b01f-2.bin"),
            "application/octet-stream"
        );
        assert_eq!(content_type("search/manifest.json"), "application/json");
        assert_eq!(content_type("favicon.svg"), "image/svg+xml");
        assert_eq!(content_type("style.css"), "text/css; charset=utf-8");
        assert_eq!(content_type("search.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("photo.PNG"), "image/png");
        assert_eq!(
            cache_control("search/2021-07/c0.json", &s),
            s.cache_control_immutable
        );
        assert_eq!(
            cache_control("search/2021-07/b000.bin", &s),
            s.cache_control_immutable
        );
        for short in [
            "search/manifest.json",
            "index.html",
            "atom.xml",
            "search/x/b.bin",
            "search/2021-07/a/b",
        ] {
            assert_eq!(cache_control(short, &s), s.cache_control, "{short}");
        }
    }

    #[test]
    fn identical_objects_are_not_uploaded_even_without_a_manifest() {
        let s = settings();
        let local = [file("index.html", "aa"), file("a/index.html", "bb")];
        let remote = BTreeMap::from([
            ("index.html".to_string(), obj("aa")),
            ("a/index.html".to_string(), obj("bb")),
        ]);
        let p = plan(&local, &remote, &Manifest::default(), &s);
        assert_eq!(p.unchanged, 2);
        assert_eq!(p.uploads().count(), 0);
        assert!(p.deletes.is_empty());
    }

    #[test]
    fn changes_go_in_link_safe_order_and_vanished_objects_are_deleted() {
        let s = settings();
        let local = [
            file("index.html", "new-home"),
            file("2021/07/20/0900/index.html", "x"),
            file("keyword/a/index.html", "changed"),
            file("search/2021-07/b000.bin", "shard"),
            file("search/manifest.json", "m"),
            file("atom.xml", "feed"),
        ];
        let remote = BTreeMap::from([
            ("index.html".to_string(), obj("old-home")),
            ("keyword/a/index.html".to_string(), obj("old")),
            ("keyword/gone/index.html".to_string(), obj("g")),
            (DEPLOY_MANIFEST.to_string(), obj("mm")),
        ]);
        let p = plan(&local, &remote, &Manifest::default(), &s);
        let order: Vec<(Step, &str)> = p
            .steps
            .iter()
            .flat_map(|(st, v)| v.iter().map(move |u| (*st, u.rel.as_str())))
            .collect();
        assert_eq!(
            order,
            [
                (Step::Assets, "search/2021-07/b000.bin"),
                (Step::NewPages, "2021/07/20/0900/index.html"),
                (Step::ChangedPages, "keyword/a/index.html"),
                (Step::EntryPoints, "atom.xml"),
                (Step::EntryPoints, "index.html"),
                (Step::EntryPoints, "search/manifest.json"),
            ]
        );
        assert_eq!(p.deletes, ["keyword/gone/index.html"]);
    }

    #[test]
    fn a_manifest_etag_vouches_for_stores_whose_etags_are_not_md5() {
        let s = settings();
        let local = [file("index.html", "aa")];
        let remote = BTreeMap::from([(
            "index.html".to_string(),
            RemoteObject {
                size: 10,
                e_tag: Some("\"kms-1\"".into()),
            },
        )]);
        let entry = |md5: &str, e_tag: &str, cc: &str| ManifestEntry {
            md5: md5.into(),
            size: 10,
            e_tag: Some(e_tag.into()),
            content_type: content_type("index.html").into(),
            cache_control: cc.into(),
        };
        let m = |e: ManifestEntry| Manifest {
            format: MANIFEST_FORMAT,
            files: BTreeMap::from([("index.html".to_string(), e)]),
        };
        let cc = s.cache_control.clone();
        assert_eq!(
            plan(&local, &remote, &m(entry("aa", "\"kms-1\"", &cc)), &s).unchanged,
            1
        );
        // Other bytes recorded, or the object replaced since: upload.
        assert_eq!(
            plan(&local, &remote, &m(entry("zz", "\"kms-1\"", &cc)), &s).unchanged,
            0
        );
        assert_eq!(
            plan(&local, &remote, &m(entry("aa", "\"kms-0\"", &cc)), &s).unchanged,
            0
        );
        // The same bytes under other headers (a changed [deploy] cache_control): upload.
        assert_eq!(
            plan(
                &local,
                &remote,
                &m(entry("aa", "\"kms-1\"", "no-cache")),
                &s
            )
            .unchanged,
            0
        );
    }
}
