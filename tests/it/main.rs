//! The single integration-test crate: every integration test lives in a
//! module under `tests/it/`, so the test binary is linked only once.

mod archive;
mod browser_site;
mod build;
mod caches;
mod check;
mod deadline;
mod deploy;
mod deploy_hostile;
mod derived;
mod feeds;
mod fetch;
mod flood;
mod import;
mod init_check;
mod module_graph;
mod no_way_inward;
mod parse_budget;
mod publish;
mod publish_guarantees;
mod publish_oauth;
mod publish_services;
mod quality;
mod recovered_feeds;
mod robust;
mod search;
mod search_page;
mod search_paths;
pub mod serve;
mod size;
mod slugs;
mod story_quality;
mod support;
mod support_selftest;
mod theme;
mod trends;
mod workflow;
