//! `matome theme eject [--diff] [FILE…]`: copies chosen templates or static files of the
//! built-in theme into the site (`templates/NAME`, `static/NAME`: the folders the look-up reads
//! first), to edit them, never overwriting; records each in `.matome-ejected.toml`
//! (`render::overrides`) so `build` can say when an upgrade changed the built-in file since.
//! With no FILE it lists what can be ejected; `--diff` shows how the site's copy differs from
//! today's built-in file.
//!
//! Does not decide what a build warns about (`render::overrides` does).

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::render::overrides::{Ejected, Manifest, sha256_hex};
use crate::render::theme::{DEFAULT_STATIC, DEFAULT_TEMPLATES};

/// One file of the built-in theme.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    /// `digest.html`, `search.js`.
    pub name: &'static str,
    /// `templates` or `static`.
    pub folder: &'static str,
    pub bytes: &'static [u8],
}

impl Builtin {
    /// Its path in the site once ejected (`templates/digest.html`).
    pub fn site_path(&self) -> String {
        format!("{}/{}", self.folder, self.name)
    }
}

/// Every file of the built-in theme, templates first, each sorted by name.
pub fn builtins() -> Vec<Builtin> {
    let mut t: Vec<Builtin> = DEFAULT_TEMPLATES
        .iter()
        .map(|(name, text)| Builtin {
            name,
            folder: "templates",
            bytes: text.as_bytes(),
        })
        .collect();
    t.sort_by_key(|b| b.name);
    let mut s: Vec<Builtin> = DEFAULT_STATIC
        .iter()
        .map(|(name, bytes)| Builtin {
            name,
            folder: "static",
            bytes,
        })
        .collect();
    s.sort_by_key(|b| b.name);
    t.extend(s);
    t
}

/// The built-in file a command-line name means: `digest.html` or `templates/digest.html`.
pub fn find(name: &str) -> Result<Builtin> {
    let all = builtins();
    let clean = name.trim_start_matches("./");
    if let Some(b) = all
        .iter()
        .find(|b| b.name == clean || b.site_path() == clean)
    {
        return Ok(*b);
    }
    let names: Vec<String> = all.iter().map(Builtin::site_path).collect();
    bail!(
        "the built-in theme has no file {name:?}; it has: {}",
        names.join(", ")
    )
}

/// What `eject` did with each file.
#[derive(Debug, Default)]
pub struct EjectReport {
    /// Copied (path in the site).
    pub written: Vec<PathBuf>,
    /// Left alone because the site has the file already: the message says what to do.
    pub refused: Vec<String>,
}

/// Copies `names` (built-in theme files) into the site at `root`, never over an existing file,
/// and records each in the manifest. An unknown name is an error before anything is written.
pub fn eject(root: &Path, names: &[String]) -> Result<EjectReport> {
    let files = names
        .iter()
        .map(|n| find(n))
        .collect::<Result<Vec<Builtin>>>()?;
    let mut manifest = Manifest::load(root)?;
    let mut report = EjectReport::default();
    for b in files {
        let rel = b.site_path();
        let path = root.join(&rel);
        if path.exists() {
            report.refused.push(format!(
                "{rel} exists in the site: not overwritten (compare it with the built-in one: `matome theme eject --diff {}`; to take a fresh copy, move it aside first)",
                b.name
            ));
            continue;
        }
        crate::fsutil::write_atomic(&path, b.bytes)?;
        manifest.files.insert(
            rel,
            Ejected {
                matome: env!("CARGO_PKG_VERSION").into(),
                builtin_sha256: sha256_hex(b.bytes),
            },
        );
        report.written.push(path);
    }
    if !report.written.is_empty() {
        manifest.save(root)?;
    }
    Ok(report)
}

/// The lines `matome theme eject` prints with no FILE: every file that can be ejected, and
/// whether the site has its own.
pub fn list(root: &Path, theme: &str) -> Vec<String> {
    builtins()
        .iter()
        .map(|b| match site_copy(root, theme, b) {
            Some(p) => format!("{}  (the site has {})", b.site_path(), p),
            None => b.site_path(),
        })
        .collect()
}

/// The site's file that overrides `b` and wins (`templates/` before `themes/<theme>/`), as a
/// path relative to the root.
fn site_copy(root: &Path, theme: &str, b: &Builtin) -> Option<String> {
    [b.site_path(), format!("themes/{theme}/{}", b.site_path())]
        .into_iter()
        .find(|rel| root.join(rel).is_file())
}

/// A unified diff from today's built-in file to the site's copy of it, for each of `names`
/// (every file the site overrides, when empty). A site with no copy of a file says so.
pub fn diff(root: &Path, theme: &str, names: &[String]) -> Result<String> {
    let files = if names.is_empty() {
        builtins()
            .into_iter()
            .filter(|b| site_copy(root, theme, b).is_some())
            .collect()
    } else {
        names
            .iter()
            .map(|n| find(n))
            .collect::<Result<Vec<Builtin>>>()?
    };
    let mut out = String::new();
    for b in files {
        let Some(rel) = site_copy(root, theme, &b) else {
            out.push_str(&format!(
                "# {}: the site has no copy; the built-in one is used\n",
                b.site_path()
            ));
            continue;
        };
        let path = root.join(&rel);
        let mine =
            std::fs::read(&path).map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
        let (old, new) = (
            String::from_utf8_lossy(b.bytes),
            String::from_utf8_lossy(&mine),
        );
        let d = similar::TextDiff::from_lines(old.as_ref(), new.as_ref());
        let text = d
            .unified_diff()
            .header(
                &format!("built-in {} (matome {})", b.name, env!("CARGO_PKG_VERSION")),
                &rel,
            )
            .to_string();
        if text.is_empty() {
            out.push_str(&format!("# {rel}: the same as the built-in {}\n", b.name));
        } else {
            out.push_str(&text);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_bare_or_with_their_folder() {
        assert_eq!(find("digest.html").unwrap().folder, "templates");
        assert_eq!(find("static/search.js").unwrap().name, "search.js");
        let e = find("nope.html").unwrap_err().to_string();
        assert!(
            e.contains("templates/digest.html") && e.contains("static/style.css"),
            "{e}"
        );
    }
}
