//! A site's files that override the built-in theme, and whether an upgrade left them behind.
//!
//! `matome theme eject` (`crate::theme_eject`) copies a built-in template or static file into
//! the site and records, in [`EJECTED_RECORD`] at the site root (committed), the matome version and the
//! SHA-256 of the built-in file it copied. One record for templates and static files alike: a
//! comment cannot go in every static file (an SVG or a future image), a header in a template
//! would change the whitespace of its pages, and an edit to the file cannot lose the record.
//!
//! At every build [`check`] looks at each overriding file and says (warnings, once per build):
//! - an ejected file whose built-in has changed since it was ejected (its recorded hash is not the
//!   built-in's today): the site misses the fix; compare with `matome theme eject --diff`;
//! - a file under `themes/default/` with no record that differs from the built-in: a copy made
//!   by an older `matome init` (which copied the whole theme), edited or stale.
//!
//! Hand-made files in the site's `templates/` and `static/` and those of a theme of another
//! name have no record and no warning: they are the site's own. A site's `search.js` that reads
//! another static index format than this matome writes is refused (an error): the search page
//! would fail on every query.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::layout::EJECTED_RECORD;
use crate::search::static_index::FORMAT;

/// What `matome theme eject` recorded of one file, keyed by its path in the site
/// (`templates/digest.html`, `static/style.css`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ejected {
    /// The matome version that ejected it.
    pub matome: String,
    /// SHA-256 (hex) of the built-in file it was copied from.
    pub builtin_sha256: String,
}

/// The manifest: site path → record.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Manifest {
    pub files: BTreeMap<String, Ejected>,
}

const MANIFEST_HEADER: &str = "\
# Files copied out of matome's built-in theme by `matome theme eject`: the matome version and
# the SHA-256 of the built-in file each came from. `matome build` warns when the built-in file
# has changed since. Commit this file with the ejected files.
";

impl Manifest {
    /// Parses the manifest's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Manifest> {
        toml::from_str(text).with_context(|| {
            format!(
                "{} is not a valid record of ejected files (fix it, or delete it and re-eject the files with `matome theme eject`)",
                path.display()
            )
        })
    }

    /// Reads the manifest of the site at `root` (none is an empty one).
    pub fn load(root: &Path) -> Result<Manifest> {
        let path = root.join(EJECTED_RECORD);
        match std::fs::read_to_string(&path) {
            Ok(text) => Manifest::parse(&text, &path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Manifest::default()),
            Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
        }
    }

    /// Writes the manifest of the site at `root` (atomically).
    pub fn save(&self, root: &Path) -> Result<()> {
        let body = toml::to_string(self).context("writing the record of ejected files")?;
        crate::fsutil::write_atomic(
            &root.join(EJECTED_RECORD),
            format!("{MANIFEST_HEADER}\n{body}").as_bytes(),
        )
    }
}

/// SHA-256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::hash::hex(&Sha256::digest(bytes))
}

/// One file of the site that takes the place of a built-in one.
#[derive(Debug)]
pub struct Override<'a> {
    /// The built-in's name (`digest.html`, `search.js`).
    pub name: &'a str,
    /// Its path relative to the site root (`templates/digest.html`,
    /// `themes/default/static/search.js`).
    pub rel: String,
    pub bytes: &'a [u8],
    /// The built-in file it overrides.
    pub builtin: &'a [u8],
}

/// The static index format a `search.js` reads: its `const SEARCH_FORMAT = N;`, or for a copy
/// made before that line existed, its `m.format !== N` manifest check.
pub fn search_js_format(text: &str) -> Option<u32> {
    let number_after = |marker: &str| -> Option<u32> {
        let at = text.find(marker)? + marker.len();
        let digits: String = text[at..]
            .trim_start()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    };
    number_after("SEARCH_FORMAT =").or_else(|| number_after("m.format !=="))
}

/// Checks the site's overriding files (the ones that win: `search_js` is the effective
/// `search.js` override, if any). Returns the warnings to print; an error for a `search.js`
/// that does not read the format this matome writes.
pub fn check(
    manifest: &Manifest,
    overrides: &[Override],
    search_js: Option<&Override>,
) -> Result<Vec<String>> {
    if let Some(js) = search_js.filter(|o| o.bytes != o.builtin) {
        let text = String::from_utf8_lossy(js.bytes);
        match search_js_format(&text) {
            Some(f) if f == FORMAT => {}
            found => {
                let found = found.map_or_else(
                    || {
                        "declares no static search format (no `const SEARCH_FORMAT = N;`)"
                            .to_string()
                    },
                    |f| format!("reads static search index format {f}"),
                );
                bail!(
                    "{} {found}, but this matome writes format {FORMAT}: the search page would fail. \
                     Delete it to use the built-in search.js, or see what changed with \
                     `matome theme eject --diff search.js`, delete it, `matome theme eject search.js` \
                     and re-apply your edits",
                    js.rel
                );
            }
        }
    }
    let mut warnings = Vec::new();
    for o in overrides {
        let builtin_hash = sha256_hex(o.builtin);
        match manifest.files.get(&o.rel) {
            Some(rec) if rec.builtin_sha256 != builtin_hash => warnings.push(format!(
                "{} was ejected from matome {} and the built-in {} has changed since: see your \
                 edits with `matome theme eject --diff {}`, then delete the file, take a fresh copy \
                 with `matome theme eject {}` and re-apply them (or just delete it to use the \
                 built-in one)",
                o.rel, rec.matome, o.name, o.name, o.name
            )),
            Some(_) => {}
            None if o.rel.starts_with("themes/default/") && o.bytes != o.builtin => {
                warnings.push(format!(
                    "{} overrides the built-in {} and differs from it, with no record of the matome \
                     version it came from (a copy made by an older `matome init`?): if you did not \
                     edit it, delete it (the built-in one is used); if you did, see your edits with \
                     `matome theme eject --diff {}`, then delete it, take a fresh copy with \
                     `matome theme eject {}` and re-apply them",
                    o.rel, o.name, o.name, o.name
                ));
            }
            None => {}
        }
    }
    Ok(warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_js_format_reads_the_constant_and_the_older_check() {
        assert_eq!(search_js_format("const SEARCH_FORMAT = 1;\n"), Some(1));
        assert_eq!(
            search_js_format("if (m.format !== 2) throw new Error('x');"),
            Some(2)
        );
        assert_eq!(search_js_format("console.log('hi')"), None);
        let builtin = include_str!("../../themes/default/static/search.js");
        assert_eq!(search_js_format(builtin), Some(FORMAT));
    }

    #[test]
    fn manifest_round_trips_and_names_its_file_when_broken() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Manifest::default();
        m.files.insert(
            "templates/digest.html".into(),
            Ejected {
                matome: "0.1.0".into(),
                builtin_sha256: sha256_hex(b"x"),
            },
        );
        m.save(dir.path()).unwrap();
        assert_eq!(Manifest::load(dir.path()).unwrap(), m);
        std::fs::write(dir.path().join(EJECTED_RECORD), "[oops").unwrap();
        let e = format!("{:#}", Manifest::load(dir.path()).unwrap_err());
        assert!(e.contains(EJECTED_RECORD), "{e}");
    }

    #[test]
    fn an_override_ejected_from_an_older_builtin_is_warned_about_once() {
        let mut m = Manifest::default();
        m.files.insert(
            "templates/digest.html".into(),
            Ejected {
                matome: "0.0.1".into(),
                builtin_sha256: sha256_hex(b"old built-in"),
            },
        );
        m.files.insert(
            "templates/home.html".into(),
            Ejected {
                matome: "0.0.1".into(),
                builtin_sha256: sha256_hex(b"today's"),
            },
        );
        let o = |name, rel: &str, bytes, builtin| Override {
            name,
            rel: rel.into(),
            bytes,
            builtin,
        };
        let overrides = [
            o(
                "digest.html",
                "templates/digest.html",
                b"edited",
                b"new built-in",
            ),
            o("home.html", "templates/home.html", b"edited", b"today's"),
            o("day.html", "templates/day.html", b"hand-made", b"built-in"),
            o(
                "month.html",
                "themes/default/templates/month.html",
                b"old copy",
                b"built-in",
            ),
            o(
                "year.html",
                "themes/default/templates/year.html",
                b"same",
                b"same",
            ),
        ];
        let w = check(&m, &overrides, None).unwrap();
        assert_eq!(w.len(), 2, "{w:#?}");
        assert!(w[0].starts_with("templates/digest.html was ejected from matome 0.0.1"));
        assert!(w[0].contains("matome theme eject --diff digest.html"));
        assert!(w[1].starts_with("themes/default/templates/month.html"));
    }
}
