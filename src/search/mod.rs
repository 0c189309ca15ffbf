//! Search: the static index the site's search page reads (GitHub Pages has no server).

pub mod static_index;
