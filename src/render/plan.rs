//! Which pages the site has: [`plan`] lists every output file, in a stable order, with a
//! fingerprint of everything its content depends on, and returns the sitemap with them.
//!
//! The fingerprints cover the bytes of the snapshot files whose items a page shows, its
//! neighbours for previous/next links, and — mixed in by the caller — the theme and config. A
//! page whose fingerprint is unchanged since the last build is not rendered again. That only
//! works because no page depends on more than it says: pages show no global counts in their
//! layout, and lists are paginated from the oldest item ([`Pager`](super::page::Pager)), so a
//! new item changes the first page of a list and never shifts the others. Each page kind's
//! fingerprint inputs live beside its view builder, in [`super::views`].

use rustc_hash::FxHashMap;

use super::page::{Fp, Fps, Kind, Page};
use super::safety::slug;
use super::site::{Site, Tax};
use super::views;

/// Every output file of the site and the sitemap's URLs.
pub struct Plan {
    pub pages: Vec<Page>,
    /// Every HTML page but 404, site-relative, in plan order, with when it last changed
    /// (`sitemap-N.xml` holds chunk N-1 of [`SITEMAP_URLS`](views::sitemap::SITEMAP_URLS)).
    pub sitemap: Vec<views::sitemap::SitemapUrl>,
}

/// Every output file of the site, with its fingerprint. `health` is the fingerprint of the
/// fetch state the feed-health page shows.
pub fn plan(site: &Site, health: u64) -> Plan {
    let fps = Fps::new(site);
    let mut pages = Vec::new();
    pages.extend(views::digest::pages(site, &fps));
    pages.extend(views::calendar::pages(site, &fps));
    pages.extend(views::terms::pages(site, &fps));
    pages.extend(views::feeds::atom_pages(site, &fps));
    pages.push(views::stories::feed_page(site));
    pages.push(views::health::page(health));
    pages.push(views::trends::page(site, &fps));
    pages.extend(views::search::pages());
    // Sitemaps: every HTML page but 404, in files of at most SITEMAP_URLS.
    let sitemap: Vec<views::sitemap::SitemapUrl> = pages
        .iter()
        .filter(|p| p.path.ends_with("index.html"))
        .map(|p| views::sitemap::entry(site, &p.path, &p.kind))
        .collect();
    pages.extend(views::sitemap::pages(&sitemap));
    Plan { pages, sitemap }
}

/// A hash of the names that got a [`slug_long`](super::safety::slug_long) (0 when none did):
/// their URLs depend on other names, so the build's global fingerprint includes it.
pub fn slug_collisions(site: &Site) -> u64 {
    let mut fp = Fp(0);
    for (i, tax) in Tax::ALL.into_iter().enumerate() {
        for (id, s) in site.slugs[i].iter().enumerate() {
            let name = &site.names(tax).names[id];
            let short = if tax == Tax::Keyword {
                slug(&name.to_lowercase())
            } else {
                slug(name)
            };
            if *s != short {
                fp.str(s);
            }
        }
    }
    fp.0
}

/// What a page shows, for errors: `the site "Foo!"`, `the digest 2021/07/20/0800/`.
fn describe(site: &Site, kind: &Kind) -> String {
    match kind {
        Kind::Term { tax, id, page } => format!(
            "the {} {:?}{}",
            tax.name(),
            site.names(*tax).names[*id as usize],
            if *page > 0 {
                format!(" (page {page})")
            } else {
                String::new()
            }
        ),
        Kind::Atom(Some(id)) => format!(
            "the feed of the category {:?}",
            site.archive.categories.names[*id as usize]
        ),
        other => format!("{other:?}"),
    }
}

/// Refuses a plan in which two pages would be written to the same output file (one would
/// silently win): names both and the path.
pub fn check_unique_paths(site: &Site, pages: &[Page]) -> anyhow::Result<()> {
    let mut seen: FxHashMap<&str, &Kind> = FxHashMap::default();
    for p in pages {
        if let Some(first) = seen.insert(p.path.as_str(), &p.kind) {
            anyhow::bail!(
                "{} and {} would both be written to {}: give one of them another name (a feed's `site` or `category` in matome.toml)",
                describe(site, first),
                describe(site, &p.kind),
                p.path
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::content::archive::Archive;

    fn config() -> Config {
        Config::parse(
            "title = \"t\"\nbase_url = \"https://user.github.io/repo/\"\n",
            "matome.toml",
        )
        .unwrap()
    }

    /// Issue 11, finding 4: two pages with one output path must be refused, naming both.
    #[test]
    fn two_pages_with_one_path_are_refused() {
        let config = config();
        let mut archive = Archive::default();
        archive.categories.names = vec!["c++".into(), "c-ae8bb0".into()];
        archive.categories.items = vec![Vec::new(), Vec::new()];
        let site = Site::new(
            &config,
            &archive,
            crate::render::site::BaseUrl::new(config.base_url.clone()),
        );
        let plan = plan(&site, 0);
        check_unique_paths(&site, &plan.pages).unwrap();
        let page = |id| Page {
            path: "categories/c-ae8bb0/index.html".into(),
            kind: Kind::Term {
                tax: Tax::Category,
                id,
                page: 0,
            },
            fp: 0,
        };
        let err = check_unique_paths(&site, &[page(0), page(1)])
            .unwrap_err()
            .to_string();
        for part in ["\"c++\"", "\"c-ae8bb0\"", "categories/c-ae8bb0/index.html"] {
            assert!(err.contains(part), "{part}: {err}");
        }
    }

    /// The sitemap comes with the plan (it used to be left in the site model as a side effect
    /// of planning, so a sitemap rendered without a plan was silently empty).
    #[test]
    fn the_plan_returns_the_sitemap_of_its_html_pages() {
        let config = config();
        let mut archive = Archive::default();
        archive.categories.names = vec!["IT".into()];
        archive.categories.items = vec![Vec::new()];
        let site = Site::new(
            &config,
            &archive,
            crate::render::site::BaseUrl::new(config.base_url.clone()),
        );
        let plan = plan(&site, 0);
        let html: Vec<&str> = plan
            .pages
            .iter()
            .filter_map(|p| p.path.strip_suffix("index.html"))
            .collect();
        let locs: Vec<&str> = plan.sitemap.iter().map(|u| u.loc.as_str()).collect();
        assert_eq!(locs, html);
        assert!(locs.contains(&"categories/IT/"));
        assert!(plan.pages.iter().any(|p| p.path == "sitemap-1.xml"));
    }
}
