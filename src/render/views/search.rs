//! The pages with no data of their own: the search page (its script reads the static index
//! under `search/`), 404.html and .nojekyll.

use anyhow::Result;
use serde::Serialize;

use super::{Ctx, html, layout};
use crate::render::page::{Fp, Kind, Page};

/// `search/index.html`, `404.html`, `robots.txt` and `.nojekyll`: the same for ever but for
/// the theme and config (mixed in by the caller).
pub(crate) fn pages() -> Vec<Page> {
    [
        ("search/index.html", Kind::Search),
        ("404.html", Kind::NotFound),
        ("robots.txt", Kind::Robots),
        (".nojekyll", Kind::NoJekyll),
    ]
    .into_iter()
    .map(|(path, kind)| Page {
        path: path.into(),
        kind,
        fp: Fp::new(path).0,
    })
    .collect()
}

/// `search.html`: the layout and the site's time zone (the page shows times in it).
#[derive(Serialize)]
pub struct SearchView {
    /// The IANA name of `timezone` in matome.toml (`Asia/Tokyo`).
    pub timezone: String,
}

/// `search.html`.
pub(crate) fn search(ctx: &Ctx) -> Result<Vec<u8>> {
    let site = ctx.site;
    html(
        ctx.theme,
        "search.html",
        &layout(
            site,
            site.strings.search.into(),
            "search/".into(),
            "search",
            SearchView {
                timezone: site.config.timezone.name().to_string(),
            },
        ),
    )
}

/// `404.html`: the layout only.
pub(crate) fn not_found(ctx: &Ctx) -> Result<Vec<u8>> {
    let site = ctx.site;
    html(
        ctx.theme,
        "404.html",
        &layout(
            site,
            site.strings.not_found.into(),
            "404.html".into(),
            "404",
            (),
        ),
    )
}
