//! A fetch's last step: each new item's story decided against the window of stories
//! ([`crate::stories::window`], opened only when there are new items), in archive order, and
//! written into every new item's record (its own key when it starts a story, so the snapshot
//! says the story was decided); then the snapshot, then the window with that file noted.
//! Joining an earlier hour's story writes only the new item's record: an earlier hour's file
//! is never rewritten.

use std::path::{Path, PathBuf};

use anyhow::Result;
use chrono::{DateTime, FixedOffset};

use super::admit::write_snapshot;
use crate::config::Config;
use crate::content::{self, ArchiveKeys, Item};
use crate::stories::{
    self,
    window::{Opened, Window},
};

/// Decides the stories of `new_items`, adds them to this hour's snapshot
/// ([`write_snapshot`]) and saves the window; the snapshot's path under the root.
pub(super) fn decide_and_write(
    root: &Path,
    config: &Config,
    now: DateTime<FixedOffset>,
    mut new_items: Vec<Item>,
    archive: &mut ArchiveKeys,
) -> Result<PathBuf> {
    let started = std::time::Instant::now();
    let mut window = Window::open(root, archive, stories::Settings::of(&config.stories));
    let opened = started.elapsed();
    let hour = content::digest_hour(now.to_utc(), config.timezone);
    let (items, joined) = (new_items.len(), window.decide(&mut new_items, hour));
    let rel = write_snapshot(root, config, now, new_items, archive)?;
    window.record(archive, &content::rel_name(root, &root.join(&rel)));
    window.save(root);
    if std::env::var_os("MATOME_TIMINGS").is_some() {
        let how = match window.opened {
            Opened::Loaded => "loaded".to_string(),
            Opened::Rebuilt(why) => format!("rebuilt ({why})"),
        };
        eprintln!(
            "stories: window {how} in {opened:?}, {} items; {joined} of {items} new items joined a story; {:?} in all",
            window.len(),
            started.elapsed()
        );
    }
    Ok(rel)
}
