//! Every story of the loaded archive with its members (issue 24): which items report the same
//! event, across sites, hours and months, as the snapshots record it (`story = "ID"`).
//!
//! Kept as one compressed table, not a list per story: each item names its story by number
//! ([`super::ListedItem::story`]) and story `s`'s members are one slice of a single array, so a year
//! (365,000 items, nearly as many stories: most items are alone) costs two numbers per item plus
//! a 16-byte ID per story, built in one linear pass.

use rustc_hash::FxHashMap;

use super::ListedItem;

/// A story ID as the archive keeps it: the 16 bytes of the first item's key.
pub type StoryKey = [u8; 16];

/// The 16 bytes of a story ID as a snapshot writes it (32 lower-case hex digits, the key of the
/// story's first item, [`crate::content::ItemKey::hex`]). An ID of any other shape (written by
/// hand) is named by a hash of it, so items that share it still share a story.
pub fn story_key(id: &str) -> StoryKey {
    crate::content::ItemKey::from_hex(id)
        .unwrap_or_else(|| crate::content::ItemKey::new("story", id))
        .0
}

/// The archive's stories.
#[derive(Debug, Default)]
pub struct Stories {
    /// Each story's key, by story number.
    keys: Vec<StoryKey>,
    /// Story `s`'s members are `members[start[s]..start[s + 1]]`, oldest first (archive order).
    start: Vec<u32>,
    members: Vec<u32>,
}

impl Stories {
    /// The number of stories (an item alone is one).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Story `s`'s items, oldest first (indexes into [`super::Archive::items`]).
    pub fn members(&self, s: u32) -> &[u32] {
        let s = s as usize;
        &self.members[self.start[s] as usize..self.start[s + 1] as usize]
    }

    /// Story `s`'s ID as snapshots write it (32 hex digits).
    pub fn id(&self, s: u32) -> String {
        crate::hash::hex(&self.keys[s as usize])
    }
}

/// Numbers stories as items arrive (in archive order), then lays out their members.
#[derive(Default)]
pub(super) struct StoryNumbers {
    index: FxHashMap<StoryKey, u32>,
    keys: Vec<StoryKey>,
}

impl StoryNumbers {
    /// The number of the story with key `key` (a new number the first time it is seen).
    pub(super) fn number(&mut self, key: StoryKey) -> u32 {
        let next = self.keys.len() as u32;
        *self.index.entry(key).or_insert_with(|| {
            self.keys.push(key);
            next
        })
    }

    /// The members of every story of `items` (each naming its story's number): a counting
    /// sort, linear in the items.
    pub(super) fn finish(self, items: &[ListedItem]) -> Stories {
        let n = self.keys.len();
        let mut start = vec![0u32; n + 1];
        for e in items {
            start[e.story as usize + 1] += 1;
        }
        for s in 0..n {
            start[s + 1] += start[s];
        }
        let mut fill = start.clone();
        let mut members = vec![0u32; items.len()];
        for (i, e) in items.iter().enumerate() {
            let slot = &mut fill[e.story as usize];
            members[*slot as usize] = i as u32;
            *slot += 1;
        }
        Stories {
            keys: self.keys,
            start,
            members,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_id_is_its_key_and_any_other_text_a_stable_hash() {
        let key = crate::content::ItemKey::new("https://a.example/feed", "1");
        assert_eq!(story_key(&key.hex()), key.0, "the hex of a key reads back");
        assert_eq!(story_key("hand written"), story_key("hand written"));
        assert_ne!(story_key("hand written"), story_key("other"));
        // Upper-case or short hex is not a key's form: hashed, not misread.
        assert_ne!(story_key(&key.hex().to_uppercase()), key.0);
        assert_ne!(story_key(&key.hex()[..30]), key.0);
    }
}
