//! Snapshot files written straight into a test site, as content/ holds them once fetches have
//! run and decided stories: items of named sites, each starting its own story or joining the
//! story of an earlier item (`story = "ID"`, the ID being that item's key). For the tests of
//! what pages and browsers make of stories.

use chrono::{DateTime, FixedOffset};
use matome::content::{Item, ItemKey, Snapshot, snapshot_rel_path};

use super::Site;

/// A site of a test archive: its name as the pages show it and the host its feed and articles
/// are on (`https://HOST.example/`).
#[derive(Debug, Clone, Copy)]
pub struct Source {
    pub name: &'static str,
    pub host: &'static str,
}

impl Source {
    pub const fn new(name: &'static str, host: &'static str) -> Source {
        Source { name, host }
    }

    /// Its feed's URL.
    pub fn feed(&self) -> String {
        format!("https://{}.example/feed", self.host)
    }

    /// The ID of the story its item `id` starts: that item's key.
    pub fn story(&self, id: &str) -> String {
        ItemKey::new(&self.feed(), id).hex()
    }
}

/// An item of `source` (category "IT", its link `https://HOST.example/a/ID`, no keywords,
/// summary or text); `story` is the source and id of the earlier item whose story it joins
/// (`None`: it starts its own, and records none, as an item before stories). A test sets the
/// other fields it shows.
pub fn item(id: &str, source: Source, title: &str, story: Option<(Source, &str)>) -> Item {
    Item {
        id: id.into(),
        feed: source.feed(),
        category: "IT".into(),
        site: source.name.into(),
        title: title.into(),
        link: format!("https://{}.example/a/{id}", source.host),
        // The digest's hour, set by `write_digest`.
        published: DateTime::UNIX_EPOCH.fixed_offset(),
        keywords: Vec::new(),
        summary: String::new(),
        text: String::new(),
        trend: None,
        story: story.map(|(s, i)| s.story(i)).unwrap_or_default(),
    }
}

/// Writes (or replaces) the digest of `hour` (RFC 3339, in the site's zone) with `items`, each
/// published at that hour; the last run wrote it 20 minutes later.
pub fn write_digest(site: &Site, hour: &str, mut items: Vec<Item>) {
    let h: DateTime<FixedOffset> = DateTime::parse_from_rfc3339(hour).unwrap();
    for i in &mut items {
        i.published = h;
    }
    Snapshot {
        hour: h,
        updated: h + chrono::Duration::minutes(20),
        items,
        body: String::new(),
    }
    .write(&site.path(snapshot_rel_path(&h)))
    .unwrap();
}
