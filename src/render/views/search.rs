//! The pages with no data of their own: the search page (its script reads the static index
//! under `search/`), 404.html and .nojekyll.

use anyhow::Result;

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

/// `search.html`: the layout only (`site`, `t`, `page`).
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
            (),
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
