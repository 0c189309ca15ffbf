//! One fetch run's archiving, after the fetching: which of a fetched feed's entries become new
//! items ([`Admission::admit`]: new exactly once, within the feed's daily budgets, the feed's
//! state brought up to date) and adding them to this hour's snapshot file ([`write_snapshot`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use chrono::{DateTime, FixedOffset};

use super::state::FeedState;
use super::{daily, http, parse, site_name, weight};
use crate::config::{Config, FeedConfig};
use crate::content::{self, Snapshot};

/// What decides which of a fetched feed's entries are archived this run.
pub(super) struct Admission<'a> {
    pub(super) config: &'a Config,
    pub(super) now: DateTime<FixedOffset>,
    pub(super) day: chrono::NaiveDate,
}

impl Admission<'_> {
    /// A fetched feed's new entries as items, each new exactly once (`seen`) and within the
    /// feed's daily budgets; its state (title, site, validators, what waits) brought up to date.
    pub(super) fn admit(
        &self,
        fs: &mut FeedState,
        feed: &FeedConfig,
        parsed: &parse::ParsedFeed,
        validators: http::Validators,
        seen: &mut HashSet<content::ItemKey>,
        new_items: &mut Vec<content::Item>,
    ) {
        fs.record_success(self.now);
        if parsed.title.is_some() {
            fs.title = parsed.title.clone();
        }
        if fs.site.is_none() {
            fs.site = fs.title.clone();
        }
        let site = site_name(feed, fs);
        let cx = parse::ItemContext {
            feed_url: &feed.url,
            kind: feed.kind,
            category: &feed.category,
            site: &site,
            now: self.now,
            tz: self.config.timezone,
            settings: &self.config.fetch,
        };
        let before = new_items.len();
        let mut bad_dates = 0;
        // The feed's daily budgets: new items past them wait (not marked seen) for a
        // later day's run, which fetches the feed in full again (no validators kept).
        let mut budget = daily::DayBudget::of(fs, self.day, &self.config.fetch);
        for entry in parsed
            .entries
            .iter()
            .take(self.config.fetch.max_items_per_feed)
        {
            let item = parse::to_item(entry, &cx);
            if seen.contains(&item.key())
                || budget.admit(weight::weigh(&item).bytes()) != daily::Admit::Take
            {
                continue;
            }
            seen.insert(item.key());
            bad_dates += usize::from(parse::implausible_date(entry, self.now));
            new_items.push(item);
        }
        fs.items_waiting = budget.waiting();
        fs.items_too_large = budget.too_large;
        if budget.waiting() == 0 {
            fs.etag = validators.etag;
            fs.last_modified = validators.last_modified;
        } else {
            fs.etag = None;
            fs.last_modified = None;
        }
        for note in budget.notes(&feed.url, &self.config.fetch) {
            eprintln!("{note}");
        }
        if bad_dates > 0 {
            eprintln!(
                "note: {}: {bad_dates} new item(s) had an implausible date (before 1990 or more than a day ahead); archived with the run time",
                feed.url
            );
        }
        fs.items_archived += (new_items.len() - before) as u64;
    }
}

/// Adds the run's items to this hour's snapshot file (written atomically; a file that does
/// not parse is never rewritten) and remembers it in the keys cache; its path under the root.
pub(super) fn write_snapshot(
    root: &Path,
    config: &Config,
    now: DateTime<FixedOffset>,
    new_items: Vec<content::Item>,
    archive: &mut content::ArchiveKeys,
) -> Result<PathBuf> {
    let hour = content::digest_hour(now.to_utc(), config.timezone);
    let rel = content::snapshot_rel_path(&hour);
    let path = root.join(&rel);
    let mut snapshot = if path.exists() {
        // Never rewrite a file we cannot read (the curator's note would be lost). The state
        // is not saved either, so the next run fetches these items again once it is fixed.
        Snapshot::load(&path).context(
            "this hour's snapshot does not parse, so the new items cannot be added to it; \
             nothing was written: fix the file and run again",
        )?
    } else {
        Snapshot {
            hour,
            updated: now,
            items: Vec::new(),
            body: String::new(),
        }
    };
    snapshot.updated = now;
    snapshot.items.extend(new_items);
    // The snapshot lands before the state: if the run dies in between, the next run fetches
    // again (the old validators) and finds the items already archived.
    let text = snapshot.to_text();
    crate::fsutil::write_atomic(&path, text.as_bytes())
        .with_context(|| format!("writing snapshot {}", rel.display()))?;
    archive.remember(root, &path, &text, &snapshot);
    Ok(rel)
}
