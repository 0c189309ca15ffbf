//! The content part of `matome check`: every snapshot file parses, is named for the hour it
//! declares, archives no item another file already has, and each item's `story` names a story
//! the archive has: 32 lower-case hex digits, the key of an item archived before it (or at the
//! same time) that is its story's first item.
//!
//! A year is 8,760 files; parsing them all each hour would cost more than the rest of the check.
//! So the check reads what it needs of each file (the hour it declares, each item's key) from
//! the derived layer's keys view, the same one a fetch reads ([`content::keys`]): a file is
//! parsed again only when it is new or its bytes changed, and a file that does not parse is
//! parsed (and reported) every time until it is fixed. `--all` parses every file from content/.
//! Duplicates are found by key and confirmed on the two files' parsed items before they are
//! reported, so a key collision is never reported as a duplicate. Stories are checked from the
//! view too (it keeps the story of each item that joins another's); a file with a story problem
//! is read again only to name the line. Problems come out in path order whether the view was
//! used or not.

use std::path::Path;

use rustc_hash::FxHashMap;
use serde::Deserialize;

use crate::config::Config;
use crate::content::keys::StoryRef;
use crate::content::{self, ItemKey, Snapshot};

/// What the content check found.
#[derive(Debug, Default)]
pub struct ContentReport {
    pub problems: Vec<String>,
    pub files: usize,
    pub items: usize,
    /// Files not taken from the keys view this time (loaded from their record or parsed).
    pub refreshed: usize,
}

/// Checks every snapshot file of the site at `root`; `all` parses every one.
pub fn check(root: &Path, config: Option<&Config>, all: bool) -> ContentReport {
    let mut r = ContentReport::default();
    let keys = match content::keys::load_keys_with(root, all) {
        Ok(k) => k,
        Err(e) => {
            r.problems.push(format!("{e:#}"));
            return r;
        }
    };
    r.refreshed = keys.refreshed_files;
    r.files = keys.files.len() + keys.broken.len();
    // Every file in path order: its entry, or why it does not load.
    let mut files: Vec<(&str, Result<&content::keys::FileKeys, &str>)> = keys
        .files
        .iter()
        .map(|(rel, e)| (rel.as_str(), Ok(e)))
        .collect();
    let broken: Vec<(String, &str)> = keys
        .broken
        .iter()
        .map(|b| (content::rel_name(root, &b.path), b.error.as_str()))
        .collect();
    files.extend(broken.iter().map(|(rel, e)| (rel.as_str(), Err(*e))));
    files.sort_by(|a, b| a.0.cmp(b.0));

    // key → (file, item) of its first occurrence, in path order.
    let mut seen: FxHashMap<ItemKey, (usize, usize)> = FxHashMap::default();
    let mut loaded: FxHashMap<usize, Option<Snapshot>> = FxHashMap::default();
    // Each problem with the file it is in, put in path order at the end.
    let mut problems: Vec<(usize, String)> = Vec::new();
    for (f, (rel, entry)) in files.iter().enumerate() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                problems.push((f, e.to_string()));
                continue;
            }
        };
        let hour = entry.hour();
        let local = match config {
            Some(c) => hour.with_timezone(&c.timezone).fixed_offset(),
            None => hour,
        };
        let expected = content::snapshot_rel_path(&local);
        if !Path::new(rel).ends_with(&expected) {
            problems.push((
                f,
                format!(
                    "{rel}: its hour is {} but the file for that hour is {}",
                    content::rfc3339(&hour),
                    expected.display()
                ),
            ));
        }
        for (i, &k) in entry.keys.iter().enumerate() {
            r.items += 1;
            let Some(&(first_f, first_i)) = seen.get(&k) else {
                seen.insert(k, (f, i));
                continue;
            };
            // Confirmed on the parsed items: a key collision is not a duplicate.
            for g in [f, first_f] {
                loaded
                    .entry(g)
                    .or_insert_with(|| Snapshot::load(&root.join(files[g].0)).ok());
            }
            let item = |g: usize, n: usize| loaded[&g].as_ref().and_then(|s| s.items.get(n));
            if let (Some(a), Some(b)) = (item(f, i), item(first_f, first_i))
                && (&a.feed, &a.id) == (&b.feed, &b.id)
            {
                problems.push((
                    f,
                    format!(
                        "{rel}: item {:?} of feed {} is also in {}; an item is archived once",
                        a.id, a.feed, files[first_f].0
                    ),
                ));
            }
        }
    }
    let entries: Vec<Option<&content::keys::FileKeys>> = files
        .iter()
        .map(|(_, e)| e.as_ref().ok().copied())
        .collect();
    let names: Vec<&str> = files.iter().map(|(rel, _)| *rel).collect();
    problems.extend(story_problems(root, &names, &entries, &seen));
    problems.sort_by_key(|(f, _)| *f);
    r.problems = problems.into_iter().map(|(_, p)| p).collect();
    r
}

/// What is wrong with an item's `story`.
enum StoryProblem {
    Malformed,
    NotArchived,
    /// Its first item is archived after it (in the file of this number).
    After(usize),
    /// Its first item is in another story (in the file of this number).
    Elsewhere(usize),
}

/// The story problems of `entries` (each file's view entry, in path order; `None`: a broken
/// file), `seen` giving each key's first (file, item): each with its file, named by its line.
/// Linear in the items that join a story, plus one read of each file with a problem.
fn story_problems(
    root: &Path,
    names: &[&str],
    entries: &[Option<&content::keys::FileKeys>],
    seen: &FxHashMap<ItemKey, (usize, usize)>,
) -> Vec<(usize, String)> {
    // Whether item `n` of file `f` starts its own story (or has none recorded).
    let own = |f: usize, n: usize| {
        entries[f].is_none_or(|e| {
            e.stories
                .binary_search_by_key(&(n as u32), |(m, _)| *m)
                .is_err()
        })
    };
    let mut found: Vec<(usize, usize, StoryProblem)> = Vec::new();
    for (f, e) in entries.iter().enumerate() {
        for &(n, story) in e.map(|e| e.stories.as_slice()).unwrap_or_default() {
            let n = n as usize;
            let problem = match story {
                StoryRef::Malformed => StoryProblem::Malformed,
                StoryRef::First(first) => match seen.get(&first) {
                    None => StoryProblem::NotArchived,
                    Some(&at) if at > (f, n) => StoryProblem::After(at.0),
                    Some(&(g, m)) if !own(g, m) => StoryProblem::Elsewhere(g),
                    Some(_) => continue,
                },
            };
            found.push((f, n, problem));
        }
    }
    let mut out = Vec::with_capacity(found.len());
    let mut lines: (usize, Vec<Option<(usize, String)>>) = (usize::MAX, Vec::new());
    for (f, n, problem) in found {
        if lines.0 != f {
            let text = std::fs::read_to_string(root.join(names[f])).unwrap_or_default();
            lines = (f, story_lines(&text));
        }
        let (place, value) = match lines.1.get(n).cloned().flatten() {
            Some((line, value)) => (format!("{}:{line}", names[f]), value),
            None => (format!("{} (item {})", names[f], n + 1), String::new()),
        };
        let value: String = value.chars().take(40).collect();
        let what = match problem {
            StoryProblem::Malformed => format!(
                "story {value:?} is not a story ID (32 lower-case hex digits: the key of the \
                 story's first item; or no `story` line, the item alone)"
            ),
            StoryProblem::NotArchived => format!(
                "story {value:?} names as its first no item the archive has{}",
                if entries.iter().any(Option::is_none) {
                    " (or one in a file that does not parse)"
                } else {
                    ""
                }
            ),
            StoryProblem::After(g) => format!(
                "story {value:?} names as its first an item archived after this one (in {}); a \
                 story's first item comes first",
                names[g]
            ),
            StoryProblem::Elsewhere(g) => format!(
                "story {value:?} names as its first an item of another story (in {})",
                names[g]
            ),
        };
        out.push((f, format!("{place}: {what}")));
    }
    out
}

/// The line and value of each item's `story` in a snapshot file's text (by item; `None` for an
/// item without one). A parse of the front matter (counted by [`content::derived::parses`]),
/// made only for a file with a story problem to name.
fn story_lines(text: &str) -> Vec<Option<(usize, String)>> {
    #[derive(Deserialize)]
    struct Front {
        #[serde(default)]
        items: Vec<Story>,
    }
    #[derive(Deserialize)]
    struct Story {
        #[serde(default)]
        story: Option<toml::Spanned<String>>,
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Ok((start, end, _)) = content::front_matter(text) else {
        return Vec::new();
    };
    content::derived::count_parse();
    let Ok(front) = toml::from_str::<Front>(&text[start..end]) else {
        return Vec::new();
    };
    front
        .items
        .into_iter()
        .map(|i| {
            i.story.map(|s| {
                let line = crate::text::line_of(text, start + s.span().start);
                (line, s.into_inner())
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "+++\nhour = 2021-07-20T08:00:00+09:00\nupdated = 2021-07-20T08:10:00+09:00\n\n[[items]]\nid = \"a\"\nfeed = \"https://f.example/rss\"\ncategory = \"IT\"\nsite = \"S\"\ntitle = \"T\"\nlink = \"https://f.example/a\"\npublished = 2021-07-20T07:00:00+09:00\nkeywords = []\nsummary = \"\"\n+++\n";

    fn site() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("content/2021/07/20/0800.md");
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, FILE).unwrap();
        dir
    }

    #[test]
    fn unchanged_files_are_not_parsed_again_and_problems_stay_reported() {
        let dir = site();
        let root = dir.path();
        let first = check(root, None, false);
        assert_eq!((first.files, first.items, first.refreshed), (1, 1, 1));
        assert!(first.problems.is_empty(), "{:?}", first.problems);
        // The same item in a file for another hour: both problems, in path order.
        let other = root.join("content/2021/07/21/0900.md");
        std::fs::create_dir_all(other.parent().unwrap()).unwrap();
        std::fs::write(&other, FILE).unwrap();
        let second = check(root, None, false);
        assert_eq!(second.refreshed, 1, "only the new file");
        assert_eq!(second.problems.len(), 2, "{:?}", second.problems);
        assert!(second.problems[0].contains("its hour is"));
        assert!(second.problems[1].contains("is also in content/2021/07/20/0800.md"));
        let third = check(root, None, false);
        assert_eq!(third.refreshed, 0);
        assert_eq!(third.problems, second.problems);
        // A new time with the same bytes is read, not parsed; --all parses everything.
        let t = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&other)
            .unwrap()
            .set_modified(t)
            .unwrap();
        assert_eq!(check(root, None, false).refreshed, 0);
        assert_eq!(check(root, None, true).refreshed, 2);
        // A broken view is rebuilt.
        std::fs::write(crate::layout::keys_cache(root), b"junk").unwrap();
        let rebuilt = check(root, None, false);
        assert_eq!(rebuilt.refreshed, 2);
        assert_eq!(rebuilt.problems, second.problems);
    }

    #[test]
    fn a_file_that_breaks_is_parsed_again_and_named_with_its_line() {
        let dir = site();
        let root = dir.path();
        check(root, None, false);
        let p = root.join("content/2021/07/20/0800.md");
        std::fs::write(&p, "+++\nhour = 1\n+++\n").unwrap();
        let r = check(root, None, false);
        assert_eq!(r.refreshed, 1);
        assert_eq!(r.problems.len(), 1);
        assert!(r.problems[0].contains("0800.md:2"), "{:?}", r.problems);
        assert_eq!(check(root, None, false).problems, r.problems);
    }
}
