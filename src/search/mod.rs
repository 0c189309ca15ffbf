//! Search: what a query matches ([`terms`], one definition for all three paths), the full-text
//! index for `matome search` and `serve` ([`index`]), and the static index the site's search
//! page reads on GitHub Pages, which has no server ([`static_index`]: its format;
//! [`site_index`]: which months a build writes, from which documents).

pub mod index;
pub mod site_index;
pub mod static_index;
pub mod terms;
