//! matome: a static-site generator for news archives. ARCHITECTURE.md says where each part
//! lives and what holds across them; every module opens with what it owns.
//!
//! The pipeline, in the order the data flows:
//! - [`config`]: matome.toml read and validated; every numeric setting declared once.
//! - [`fetch`]: one run over the feeds, ending in at most one new snapshot file.
//! - [`analyze`]: the one analyser (lindera, English stems): 頻出ワード, summaries, search tokens.
//! - [`content`]: the snapshot files under content/ and the archive they make up.
//! - [`render`]: `matome build`: the archive rendered into the static site.
//! - [`search`]: the tantivy index (`matome search`, serve's API) and the search page's static
//!   index.
//! - [`trends`]: rising words and word clouds, for the pages.
//! - [`stories`]: the items from any sites that report one event, grouped: the method, and the
//!   window a fetch decides new items' stories against (derived state in `.matome/`).
//! - [`check`]: `matome check`: the config, the content files and the built site's links.
//! - [`deploy`]: `matome deploy`: the built site uploaded to S3-compatible storage.
//! - [`publish`]: `matome publish`: new digests posted to social networks and webhooks.
//! - [`alert`]: `matome alert`: the curator told of each problem once, and of its recovery.
//!
//! The commands:
//! - [`cli`]: parses the command line and dispatches to one module per command (`cli/`).
//! - [`serve`]: `matome serve`: the local preview with live reload and search.
//! - [`init`]: `matome init`: a new site and its GitHub Actions workflow.
//! - [`import`]: `matome feeds import`: feeds added from OPML or CSV.
//! - [`analyze_archive`]: `matome analyze`: archived items analysed again, changed files
//!   rewritten.
//! - [`theme_eject`]: `matome theme eject`: built-in theme files copied into the site.
//!
//! The helpers:
//! - [`text`]: untrusted feed text made plain (HTML to text, bounds), escaping, shared small
//!   facts.
//! - [`fsutil`]: atomic writes, the committed state files, sealed caches, the site lock.
//! - [`hash`]: the FNV-1a hash saved to disk (content hashes, fingerprints), hex of bytes.
//! - [`layout`]: the name of every file matome keeps in a site.
//! - [`backoff`]: the back-off after failures, shared by feeds and publish targets.

pub mod alert;
pub mod analyze;
pub mod analyze_archive;
pub mod backoff;
pub mod check;
pub mod cli;
pub mod config;
pub mod content;
pub mod deploy;
pub mod fetch;
pub mod fsutil;
pub mod hash;
pub mod import;
pub mod init;
pub mod layout;
pub mod publish;
pub mod render;
pub mod search;
pub mod serve;
pub mod stories;
pub mod text;
pub mod theme_eject;
pub mod trends;

#[cfg(test)]
mod test_rng;
