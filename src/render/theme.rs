//! Templates and static files: where they come from and the filters they get.
//!
//! Look-up order, per file name: the site's own `templates/` (and `static/`), then
//! `themes/<theme>/templates/` (and `static/`), then the default theme embedded in the binary —
//! so a site with no theme folder still builds, and a site overrides one template by dropping a
//! file of the same name in `templates/`. The theme's fingerprint (every template's name and
//! source) decides whether the last build's pages can be kept. The site's files that override
//! built-in ones are checked by `overrides` (stale ejected copies, a `search.js` of another
//! format).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use chrono::DateTime;
use tera::{Tera, Value};

use crate::render::overrides::{self, Manifest, Override};
use crate::render::site::BaseUrl;

macro_rules! embedded {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../themes/default/templates/", $name)))),*]
    };
}

/// The default theme's templates, compiled in.
pub const DEFAULT_TEMPLATES: &[(&str, &str)] = embedded!(
    "base.html",
    "macros.html",
    "home.html",
    "digest.html",
    "day.html",
    "month.html",
    "year.html",
    "archives.html",
    "terms.html",
    "term.html",
    "health.html",
    "404.html",
    "search.html",
    "trends.html",
    "atom.xml",
    "digests_atom.xml",
    "stories_atom.xml",
    "stories_link.html",
    "sitemap.xml",
    "sitemap_index.xml",
    "robots.txt",
);

/// The default theme's static files, compiled in.
pub const DEFAULT_STATIC: &[(&str, &[u8])] = &[
    (
        "style.css",
        include_bytes!("../../themes/default/static/style.css"),
    ),
    (
        "favicon.svg",
        include_bytes!("../../themes/default/static/favicon.svg"),
    ),
    (
        "search.js",
        include_bytes!("../../themes/default/static/search.js"),
    ),
];

/// A loaded theme: templates ready to render and the static files to copy.
pub struct Theme {
    pub tera: Tera,
    /// Changes when any template does.
    pub fingerprint: u64,
    /// Path under the output folder → bytes.
    pub statics: BTreeMap<String, Vec<u8>>,
    /// Template name → where it came from, for errors.
    origins: HashMap<String, String>,
    /// Overriding files left behind by an upgrade (see `overrides::check`): `build` prints
    /// each once.
    pub warnings: Vec<String>,
}

impl Theme {
    /// Loads the templates and static files of `theme` for the site at `root`; its filters put
    /// paths under `base` and show times in `tz`.
    pub fn load(root: &Path, theme: &str, base: Arc<BaseUrl>, tz: chrono_tz::Tz) -> Result<Theme> {
        let mut sources: BTreeMap<String, (String, String)> = DEFAULT_TEMPLATES
            .iter()
            .map(|(n, s)| (n.to_string(), (s.to_string(), format!("(built-in) {n}"))))
            .collect();
        let mut statics: BTreeMap<String, Vec<u8>> = DEFAULT_STATIC
            .iter()
            .map(|(n, b)| (n.to_string(), b.to_vec()))
            .collect();
        let theme_dir = root.join("themes").join(theme);
        if theme != "default" && !theme_dir.is_dir() {
            bail!(
                "theme {theme:?} (matome.toml `theme`) not found: expected the folder {}",
                theme_dir.display()
            );
        }
        // File name → its path relative to the site root, for the files that win.
        let mut template_rel: BTreeMap<String, String> = BTreeMap::new();
        let mut static_rel: BTreeMap<String, String> = BTreeMap::new();
        let site_rel = |path: &Path| {
            path.strip_prefix(root)
                .unwrap_or(path)
                .to_string_lossy()
                .replace('\\', "/")
        };
        for dir in [theme_dir.clone(), root.to_path_buf()] {
            read_tree(&dir.join("templates"), |rel, bytes, path| {
                let text = String::from_utf8(bytes)
                    .map_err(|_| anyhow!("{} is not UTF-8", path.display()))?;
                template_rel.insert(rel.clone(), site_rel(path));
                sources.insert(rel, (text, path.display().to_string()));
                Ok(())
            })?;
            read_tree(&dir.join("static"), |rel, bytes, path| {
                static_rel.insert(rel.clone(), site_rel(path));
                statics.insert(rel, bytes);
                Ok(())
            })?;
        }
        let warnings = check_overrides(root, &sources, &template_rel, &statics, &static_rel)?;
        let mut fp = String::new();
        for (name, (text, _)) in &sources {
            fp.push_str(name);
            fp.push('\0');
            fp.push_str(text);
            fp.push('\0');
        }
        let fingerprint = crate::hash::fnv1a(fp.as_bytes());

        let mut tera = Tera::default();
        tera.autoescape_on(vec![".html", ".xml"]);
        // The five characters that matter in HTML text and quoted attributes; tera's default
        // also writes every `/` of every URL as `&#x2F;`.
        tera.set_escape_fn(crate::text::xml_escape);
        register_filters(&mut tera, base, tz);
        // Parse one by one first so an error names the file it is in.
        for (name, (text, origin)) in &sources {
            if let Err(e) = tera::Template::new(name, None, text) {
                return Err(anyhow!("{}", error_chain(&e))).context(format!("template {origin}"));
            }
        }
        tera.add_raw_templates(sources.iter().map(|(n, (t, _))| (n.as_str(), t.as_str())))
            .map_err(|e| anyhow!("{}", error_chain(&e)))
            .context("loading the templates")?;
        Ok(Theme {
            tera,
            fingerprint,
            statics,
            origins: sources.into_iter().map(|(n, (_, o))| (n, o)).collect(),
            warnings,
        })
    }

    /// Renders template `name` with a view (a serialisable struct).
    pub fn render(&self, name: &str, view: &impl serde::Serialize) -> Result<String> {
        let ctx = tera::Context::from_serialize(view).context("preparing a page's view")?;
        self.tera
            .render(name, &ctx)
            .map_err(|e| anyhow!("{}", error_chain(&e)))
            .with_context(|| {
                let origin = self.origins.get(name).map_or(name, String::as_str);
                format!("rendering template {origin}")
            })
    }
}

/// The site's files that take a built-in one's place, checked against the record of ejected
/// files: warnings for stale ones, an error for a `search.js` of another format.
fn check_overrides(
    root: &Path,
    sources: &BTreeMap<String, (String, String)>,
    template_rel: &BTreeMap<String, String>,
    statics: &BTreeMap<String, Vec<u8>>,
    static_rel: &BTreeMap<String, String>,
) -> Result<Vec<String>> {
    let mut list = Vec::new();
    for (name, builtin) in DEFAULT_TEMPLATES {
        if let (Some(rel), Some((text, _))) = (template_rel.get(*name), sources.get(*name)) {
            list.push(Override {
                name,
                rel: rel.clone(),
                bytes: text.as_bytes(),
                builtin: builtin.as_bytes(),
            });
        }
    }
    let mut search_js = None;
    for (name, builtin) in DEFAULT_STATIC {
        if let (Some(rel), Some(bytes)) = (static_rel.get(*name), statics.get(*name)) {
            let o = Override {
                name,
                rel: rel.clone(),
                bytes,
                builtin,
            };
            if *name == "search.js" {
                search_js = Some(list.len());
            }
            list.push(o);
        }
    }
    if list.is_empty() {
        return Ok(Vec::new());
    }
    // A broken record only costs its warnings: the site still builds.
    let (manifest, mut warnings) = match Manifest::load(root) {
        Ok(m) => (m, Vec::new()),
        Err(e) => (Manifest::default(), vec![format!("{e:#}")]),
    };
    warnings.extend(overrides::check(
        &manifest,
        &list,
        search_js.map(|i| &list[i]),
    )?);
    Ok(warnings)
}

/// Tera's errors hide the useful part (the line, the missing variable) in their sources.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        out.push_str(": ");
        out.push_str(&s.to_string());
        src = s.source();
    }
    out
}

/// Every file under `dir` (if it exists), with its path relative to `dir`.
fn read_tree(dir: &Path, mut f: impl FnMut(String, Vec<u8>, &Path) -> Result<()>) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.with_context(|| format!("listing {}", dir.display()))?;
        if !entry.file_type().is_file() || entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(dir)
            .unwrap_or(entry.path())
            .to_string_lossy()
            .replace('\\', "/");
        let bytes = std::fs::read(entry.path())
            .with_context(|| format!("reading {}", entry.path().display()))?;
        f(rel, bytes, entry.path())?;
    }
    Ok(())
}

/// `url`: a site path (`categories/it/`) → a link under base_url (`/REPO/categories/it/`), or
/// the absolute URL with `abs=true`; with `encoded=true` as well, percent-encoded as a URI
/// (`…/keywords/%E6%97%A5%E6%9C%AC/`: what sitemaps and link previews want; without it the
/// characters stay as they are, as the Atom feeds' ids always had them). Absolute http(s) URLs
/// pass through.
/// `date`: an RFC 3339 time → the site's zone, formatted (`format`, default `%Y-%m-%d %H:%M`).
/// The test `generic` (`{% if k.name is generic %}`): a name that says nothing as a link's
/// text ([`crate::text::is_generic_link_text`]).
fn register_filters(tera: &mut Tera, base: Arc<BaseUrl>, tz: chrono_tz::Tz) {
    tera.register_tester(
        "generic",
        |v: Option<&Value>, _: &[Value]| -> tera::Result<bool> {
            Ok(v.and_then(Value::as_str)
                .is_some_and(crate::text::is_generic_link_text))
        },
    );
    tera.register_filter(
        "url",
        move |v: &Value, args: &HashMap<String, Value>| -> tera::Result<Value> {
            let path = v
                .as_str()
                .ok_or_else(|| tera::Error::msg("url: expects a path string"))?;
            if path.starts_with("http://") || path.starts_with("https://") {
                return Ok(Value::String(path.to_string()));
            }
            let flag = |name: &str| args.get(name).and_then(Value::as_bool).unwrap_or(false);
            let abs = flag("abs");
            let base = if abs { base.url() } else { base.path() };
            let joined = format!("{base}{}", path.trim_start_matches('/'));
            if abs && flag("encoded") {
                let uri = url::Url::parse(&joined)
                    .map_err(|e| tera::Error::msg(format!("url: {joined:?}: {e}")))?;
                return Ok(Value::String(uri.into()));
            }
            Ok(Value::String(joined))
        },
    );
    tera.register_filter(
        "date",
        move |v: &Value, args: &HashMap<String, Value>| -> tera::Result<Value> {
            let s = v
                .as_str()
                .ok_or_else(|| tera::Error::msg("date: expects an RFC 3339 string"))?;
            let t = DateTime::parse_from_rfc3339(s)
                .map_err(|e| tera::Error::msg(format!("date: {s:?} is not RFC 3339 ({e})")))?;
            let format = args
                .get("format")
                .and_then(Value::as_str)
                .unwrap_or("%Y-%m-%d %H:%M");
            let mut out = String::new();
            use std::fmt::Write as _;
            write!(out, "{}", t.with_timezone(&tz).format(format))
                .map_err(|_| tera::Error::msg(format!("date: bad format {format:?}")))?;
            Ok(Value::String(out))
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(root: &Path, name: &str) -> Result<Theme> {
        let base = BaseUrl::new("https://u.github.io/repo/");
        Theme::load(root, name, base, chrono_tz::Asia::Tokyo)
    }

    /// Writes `text` to `root/rel`, making its folders.
    fn put(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// The error (with its causes) of loading theme `name` at `root`.
    fn load_error(root: &Path, name: &str) -> String {
        format!("{:#}", load(root, name).err().unwrap())
    }

    #[test]
    fn site_templates_override_the_theme_which_overrides_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let theme = load(root, "default").unwrap();
        let builtin_fp = theme.fingerprint;
        assert!(theme.statics.contains_key("style.css"));

        put(root, "themes/default/templates/robots.txt", "theme");
        let theme = load(root, "default").unwrap();
        assert_eq!(
            theme.render("robots.txt", &serde_json::json!({})).unwrap(),
            "theme"
        );
        assert_ne!(theme.fingerprint, builtin_fp);

        put(root, "templates/robots.txt", "site");
        let theme = load(root, "default").unwrap();
        assert_eq!(
            theme.render("robots.txt", &serde_json::json!({})).unwrap(),
            "site"
        );
    }

    #[test]
    fn a_broken_template_is_named_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        put(dir.path(), "templates/404.html", "ok\n{% if %}\n");
        let e = load_error(dir.path(), "default");
        assert!(e.contains("templates/404.html"), "{e}");
        assert!(e.contains("2:"), "names the line: {e}");
    }

    #[test]
    fn a_missing_theme_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let e = load_error(dir.path(), "fancy");
        assert!(e.contains("themes/fancy"), "{e}");
    }

    #[test]
    fn filters_honour_base_url_and_zone() {
        let mut tera = Tera::default();
        let base = BaseUrl::new("https://u.github.io/repo/");
        register_filters(&mut tera, base, chrono_tz::Asia::Tokyo);
        tera.add_raw_template(
            "t",
            "{{ p | url }} {{ p | url(abs=true) }} {{ t | date }} {{ t | date(format=\"%H\") }}",
        )
        .unwrap();
        tera.add_raw_template("e", "{{ p | url(abs=true, encoded=true) }}")
            .unwrap();
        let ctx = tera::Context::from_serialize(
            serde_json::json!({"p": "categories/it/", "t": "2021-07-19T23:20:00Z"}),
        )
        .unwrap();
        assert_eq!(
            tera.render("t", &ctx).unwrap(),
            "/repo/categories/it/ https://u.github.io/repo/categories/it/ 2021-07-20 08:20 08"
        );
        let ctx = tera::Context::from_serialize(
            serde_json::json!({"p": "keywords/日本 銀行/?q=円&x=%41"}),
        )
        .unwrap();
        assert_eq!(
            tera.render("e", &ctx).unwrap(),
            "https://u.github.io/repo/keywords/%E6%97%A5%E6%9C%AC%20%E9%8A%80%E8%A1%8C/?q=%E5%86%86&x=%41"
        );
    }
}
