//! `matome check`: the config, every content file, and every internal link of the built site.
//!
//! Reports every problem it finds (not just the first), each with the file it is in, and exits
//! non-zero if there was any. Content checks go beyond parsing: an item archived twice, a file
//! whose name does not match the hour it declares. Link checks resolve every `href` and `src`
//! of every built HTML page under the base path the site was built with, to a file in the
//! output folder.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::config::Config;
use crate::content::{self, ItemKey};

/// What `check` found.
#[derive(Debug, Default)]
pub struct CheckReport {
    pub problems: Vec<String>,
    pub content_files: usize,
    pub items: usize,
    pub pages: usize,
    pub links: usize,
}

/// Checks the site at `root`; `output` is the built site (default public/).
pub fn check(root: &Path, output: Option<PathBuf>) -> Result<CheckReport> {
    let mut r = CheckReport::default();
    let config = match Config::load(root) {
        Ok(c) => Some(c),
        Err(e) => {
            r.problems.push(format!("{e:#}"));
            None
        }
    };
    check_content(root, config.as_ref(), &mut r);
    let output = output.unwrap_or_else(|| root.join(crate::render::OUTPUT_DIR));
    if !output.join("index.html").exists() {
        r.problems.push(format!(
            "{}: no built site here; run `matome build` first",
            output.display()
        ));
        return Ok(r);
    }
    let base_url = crate::render::last_base_url(root, &output)
        .or_else(|| config.map(|c| c.base_url))
        .unwrap_or_else(|| "http://localhost/".into());
    check_links(&output, &base_url, &mut r)?;
    Ok(r)
}

fn check_content(root: &Path, config: Option<&Config>, r: &mut CheckReport) {
    let paths = match content::snapshot_paths(root) {
        Ok(p) => p,
        Err(e) => {
            r.problems.push(format!("{e:#}"));
            return;
        }
    };
    r.content_files = paths.len();
    let mut seen: HashMap<ItemKey, String> = HashMap::new();
    for path in paths {
        let shown = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let snapshot = match content::Snapshot::load(&path) {
            Ok(s) => s,
            Err(e) => {
                r.problems.push(format!("{e:#}"));
                continue;
            }
        };
        let hour = match config {
            Some(c) => snapshot.hour.with_timezone(&c.timezone).fixed_offset(),
            None => snapshot.hour,
        };
        let expected = content::snapshot_rel_path(&hour);
        if !path.ends_with(&expected) {
            r.problems.push(format!(
                "{shown}: its hour is {} but the file for that hour is {}",
                content::rfc3339(&snapshot.hour),
                expected.display()
            ));
        }
        for item in &snapshot.items {
            r.items += 1;
            if let Some(first) = seen.insert(item.key(), shown.clone()) {
                r.problems.push(format!(
                    "{shown}: item {:?} of feed {} is also in {first}; an item is archived once",
                    item.id, item.feed
                ));
            }
        }
    }
}

fn check_links(output: &Path, base_url: &str, r: &mut CheckReport) -> Result<()> {
    let base = url::Url::parse(base_url)?;
    for entry in walkdir::WalkDir::new(output).sort_by_file_name() {
        let entry = entry?;
        let path = entry.path();
        if !entry.file_type().is_file() || path.extension().is_none_or(|e| e != "html") {
            continue;
        }
        r.pages += 1;
        let rel = path.strip_prefix(output).unwrap_or(path);
        let rel_url = rel.to_string_lossy().replace('\\', "/");
        // 404.html is served at any depth, so its links must not be relative; resolve it at
        // the site root like the others.
        let page_url = base.join(&rel_url)?;
        let html = std::fs::read_to_string(path)?;
        for link in attribute_values(&html) {
            r.links += 1;
            if let Some(problem) = check_link(output, &base, &page_url, &link) {
                r.problems
                    .push(format!("{}: {problem}", output.join(rel).display()));
            }
        }
    }
    Ok(())
}

/// The problem with one link of a page, if any.
fn check_link(output: &Path, base: &url::Url, page: &url::Url, link: &str) -> Option<String> {
    if link.starts_with('#') || link.starts_with("mailto:") {
        return None;
    }
    let target = match page.join(link) {
        Ok(t) => t,
        Err(e) => return Some(format!("unparsable link {link:?} ({e})")),
    };
    if target.origin() != base.origin() {
        return None; // outbound
    }
    let Some(rel) = target.path().strip_prefix(base.path()) else {
        return Some(format!(
            "link {link:?} leaves the site's base path {}",
            base.path()
        ));
    };
    let rel = percent_encoding::percent_decode_str(rel)
        .decode_utf8_lossy()
        .into_owned();
    let mut file = output.join(&rel);
    if rel.is_empty() || rel.ends_with('/') {
        file = file.join("index.html");
    }
    if rel.split('/').any(|s| s == "..") || !file.is_file() {
        return Some(format!("broken link {link:?} (no file {})", file.display()));
    }
    None
}

/// Every `href="…"` and `src="…"` value in a page (the built site always double-quotes).
fn attribute_values(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in [" href=\"", " src=\""] {
        let mut rest = html;
        while let Some(p) = rest.find(attr) {
            rest = &rest[p + attr.len()..];
            if let Some(end) = rest.find('"') {
                out.push(crate::text::decode_entities(&rest[..end]));
                rest = &rest[end..];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_resolve_under_the_base_path() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        std::fs::create_dir_all(out.join("keywords/日本銀行")).unwrap();
        std::fs::write(out.join("keywords/日本銀行/index.html"), "").unwrap();
        std::fs::write(out.join("style.css"), "").unwrap();
        let base = url::Url::parse("https://u.github.io/repo/").unwrap();
        let page = base.join("2021/07/20/0800/index.html").unwrap();
        let ok = |l: &str| check_link(out, &base, &page, l);
        assert_eq!(ok("/repo/keywords/日本銀行/"), None);
        assert_eq!(
            ok("/repo/keywords/%E6%97%A5%E6%9C%AC%E9%8A%80%E8%A1%8C/"),
            None
        );
        assert_eq!(ok("../../../../style.css"), None);
        assert_eq!(ok("/repo/style.css?v=1#x"), None);
        assert_eq!(ok("https://example.com/elsewhere"), None);
        assert_eq!(ok("#item-3"), None);
        assert!(
            ok("/repo/keywords/missing/")
                .unwrap()
                .contains("broken link")
        );
        assert!(ok("/style.css").unwrap().contains("base path"));
        assert!(ok("/repo/../etc/passwd").is_some());
    }

    #[test]
    fn attribute_values_are_decoded() {
        let v = attribute_values(r#"<a href="/a?b=1&amp;c=2">x</a><img alt="" src="/i.svg">"#);
        assert_eq!(v, vec!["/a?b=1&c=2", "/i.svg"]);
    }
}
