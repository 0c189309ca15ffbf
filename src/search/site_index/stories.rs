//! The stories of the static search index (issue 24): for each item of a story of several items,
//! the eighth element of its row (`[items, sites, member…]`, [`super::static_index`]'s format),
//! made from the whole archive at every build, so a story that grows in a later hour (or month)
//! changes the rows of its earlier members and, through the month's fingerprint, their months.
//! Linear in the archive (its rows' stories, [`Archive::stories`], plus a sort of each month's
//! items by publication, as the shards number them); an item alone gets nothing.

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::super::static_index::MAX_STORY_MEMBERS;
use crate::content::archive::Archive;

/// The row element of every item of a story of several items, by archive item index.
pub type StoryRows = FxHashMap<u32, Value>;

/// The rows' story elements: `month_of[d]` is digest `d`'s month (an index into `months`, the
/// `YYYY-MM` names).
pub(super) fn story_rows(archive: &Archive, month_of: &[usize], months: &[String]) -> StoryRows {
    // Each item's place in its month's shard: its number there, published order then archive
    // order, as `static_index::write_month` numbers them.
    let mut place: Vec<(usize, u32)> = vec![(0, 0); archive.items.len()];
    let mut by_month: Vec<Vec<u32>> = vec![Vec::new(); months.len()];
    for (d, digest) in archive.digests.iter().enumerate() {
        by_month[month_of[d]].extend(digest.items.clone());
    }
    for (m, items) in by_month.iter_mut().enumerate() {
        items.sort_by_key(|&i| archive.items[i as usize].published);
        for (n, &i) in items.iter().enumerate() {
            place[i as usize] = (m, n as u32);
        }
    }
    let mut rows = StoryRows::default();
    let stories = &archive.stories;
    for members in (0..stories.len() as u32)
        .map(|s| stories.members(s))
        .filter(|m| m.len() > 1)
    {
        let mut order = members.to_vec();
        order.sort_by_key(|&i| (archive.items[i as usize].published, i));
        let mut sites: Vec<u32> = members
            .iter()
            .map(|&i| archive.items[i as usize].site)
            .collect();
        sites.sort_unstable();
        sites.dedup();
        let listed = &order[..order.len().min(MAX_STORY_MEMBERS)];
        for &i in members {
            let own = place[i as usize].0;
            let mut row = vec![Value::from(members.len()), Value::from(sites.len())];
            row.extend(listed.iter().map(|&j| {
                let (m, n) = place[j as usize];
                if m == own {
                    Value::from(n)
                } else {
                    Value::from(format!("{}:{n}", months[m]))
                }
            }));
            rows.insert(i, Value::Array(row));
        }
    }
    rows
}
