//! matome: a static-site generator for news archives.
//!
//! The pipeline (see ARCHITECTURE.md): [`config`] reads matome.toml; [`fetch`] turns feeds into
//! dated snapshot files that [`content`] owns; [`analyze`] and [`text`] prepare item text;
//! [`import`] adds feeds from OPML or CSV; [`trends`] scores rising words and lays out word clouds;
//! [`stories`] groups the items that report one event; [`render`] builds the site from the
//! archive; [`publish`] posts new digests to social networks and webhooks, [`alert`] tells the
//! curator about failures; [`cli`] is the command line over all of it.

pub mod alert;
pub mod analyze;
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
pub mod reanalyze;
pub mod render;
pub mod search;
pub mod serve;
pub mod stories;
pub mod text;
pub mod theme_eject;
pub mod trends;

#[cfg(test)]
mod test_rng;
