//! The derived layer (`content::derived`, issue 23): a cold build parses each snapshot once, and
//! every record and view of the layer that is damaged (cut short, of another version, with a bad
//! seal, stale against its file) is rebuilt from content/ for every consumer — the build's
//! pages and static search, the tantivy index (`matome search`), `matome check` and the fetch's
//! keys — with the output of a build from nothing. An old `.matome/` (before the layer) is
//! replaced cleanly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use matome::fsutil;

use crate::support::Site;

fn demo() -> Site {
    crate::support::demo_site("https://user.github.io/repo/")
}

/// `matome build` with the phase timings on; returns the snapshot parses it reports.
fn build_counting_parses(site: &Site) -> usize {
    let out = site.matome_with(
        &["build"],
        &[("MATOME_TIMINGS", "1")],
        Duration::from_secs(600),
    );
    out.assert_success();
    let text = out.combined();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("snapshot parses: "))
        .unwrap_or_else(|| panic!("no parse count in {text}"));
    line.trim().parse().unwrap()
}

/// Every file of the built site, by path.
fn public(site: &Site) -> BTreeMap<PathBuf, Vec<u8>> {
    site.files_under("public")
        .into_iter()
        .map(|p| {
            let bytes = site.read_bytes(&p);
            (p, bytes)
        })
        .collect()
}

/// What each consumer of the layer gives: the site's files, `matome search --json` for a
/// keyword of the archive, `matome check`'s success and the fetch's keys.
#[derive(Debug)]
struct Seen {
    public: BTreeMap<PathBuf, Vec<u8>>,
    search: String,
    check_ok: bool,
    keys: Vec<matome::content::ItemKey>,
    items: u64,
}

/// Fails naming what differs (the files by path, not their bytes).
#[track_caller]
fn assert_same(got: &Seen, want: &Seen, what: &str) {
    let differ: Vec<&PathBuf> = want
        .public
        .keys()
        .chain(got.public.keys())
        .filter(|p| got.public.get(*p) != want.public.get(*p))
        .collect();
    assert!(differ.is_empty(), "{what}: files differ: {differ:?}");
    assert_eq!(got.search, want.search, "{what}: search");
    assert_eq!(got.check_ok, want.check_ok, "{what}: check");
    assert_eq!(
        (&got.keys, got.items),
        (&want.keys, want.items),
        "{what}: keys"
    );
}

fn seen(site: &Site, query: &str) -> Seen {
    site.matome(&["build"]).assert_success();
    let search = site.matome(&["search", "--json", query]);
    search.assert_success();
    let check = site.matome(&["check"]);
    let keys = matome::content::load_keys(site.root()).unwrap();
    let mut list: Vec<_> = keys.keys.into_iter().collect();
    list.sort();
    // Each hit without its score: an index updated in place (a file's documents deleted and
    // added again) scores by statistics that count the deleted ones until segments merge.
    let hits: Vec<String> = search
        .stdout
        .lines()
        .map(|l| {
            let mut hit: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(l).unwrap();
            hit.remove("score");
            serde_json::to_string(&hit).unwrap()
        })
        .collect();
    Seen {
        public: public(site),
        search: hits.join("\n"),
        check_ok: check.success(),
        keys: list,
        items: keys.items,
    }
}

/// A keyword of the demo archive, to search for.
fn a_keyword(site: &Site) -> String {
    for rel in site.content_files() {
        let s = matome::content::Snapshot::parse(&site.read(&rel), "x").unwrap();
        if let Some(k) = s.items.iter().flat_map(|i| &i.keywords).next() {
            return k.clone();
        }
    }
    panic!("the demo has keywords");
}

/// Every file of the derived layer: the records, keys.bin and the archive chunks.
fn layer_files(site: &Site) -> Vec<PathBuf> {
    let mut files = site.files_under(".matome/derived");
    files.extend(site.files_under(".matome/archive"));
    files.push(PathBuf::from(".matome/keys.bin"));
    assert!(files.len() > 3, "{files:?}");
    files
}

#[derive(Debug, Clone, Copy)]
enum Damage {
    Truncated,
    BadSeal,
    WrongVersion,
}

fn damage(path: &Path, how: Damage) {
    let bytes = std::fs::read(path).unwrap();
    let damaged = match how {
        Damage::Truncated => bytes[..bytes.len() / 2].to_vec(),
        Damage::BadSeal => {
            let mut b = bytes.clone();
            let at = b.len() / 2;
            b[at] ^= 0x55;
            b
        }
        // Sealed again, so only the version tells it apart (postcard: a leading varint).
        Damage::WrongVersion => {
            let mut body = fsutil::unseal(&bytes).expect("a sealed file").to_vec();
            body[0] = body[0].wrapping_add(1);
            fsutil::seal(body)
        }
    };
    std::fs::write(path, damaged).unwrap();
}

#[test]
fn a_cold_build_parses_each_snapshot_once_and_the_next_none() {
    let site = demo();
    let files = site.content_files().len();
    assert!(files >= 4);
    assert_eq!(build_counting_parses(&site), files, "one parse per file");
    assert_eq!(build_counting_parses(&site), 0, "nothing changed");
    // A fresh clone with `.matome/` restored: new times, the same bytes. Nothing is parsed.
    let t = std::time::SystemTime::now() - Duration::from_secs(7200);
    for rel in site.content_files() {
        std::fs::File::options()
            .write(true)
            .open(site.path(&rel))
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
    assert_eq!(build_counting_parses(&site), 0, "a fresh clone");
}

#[test]
fn every_damaged_record_and_view_is_rebuilt_from_content_for_every_consumer() {
    let reference = demo();
    let query = a_keyword(&reference);
    let want = seen(&reference, &query);
    assert!(want.search.lines().count() > 0, "{query} is found");
    assert!(want.check_ok);
    for how in [Damage::Truncated, Damage::BadSeal, Damage::WrongVersion] {
        let site = demo();
        site.matome(&["build"]).assert_success();
        site.matome(&["check"]).assert_success();
        for f in layer_files(&site) {
            damage(&site.path(&f), how);
        }
        // Everything made from the layer is made again: every page, the static search, the
        // tantivy index.
        for dir in ["public", ".matome/build", ".matome/search"] {
            std::fs::remove_dir_all(site.path(dir)).unwrap();
        }
        assert_same(&seen(&site, &query), &want, &format!("{how:?}"));
        // Rebuilt: the next build takes everything from the layer again.
        assert_eq!(build_counting_parses(&site), 0, "{how:?}");
    }
}

/// A stale record (its file edited since: same size, another time, other bytes) is not believed
/// by any consumer: all of them show the edit, as a build from nothing does.
#[test]
fn a_record_stale_against_its_file_is_rebuilt_for_every_consumer() {
    let edit = |site: &Site| {
        let rel = site.content_files().remove(0);
        let text = site.read(&rel);
        let title = text
            .lines()
            .find_map(|l| l.strip_prefix("title = \""))
            .expect("a title")
            .trim_end_matches('"')
            .to_string();
        let first = title.chars().next().unwrap();
        let other = if first == 'X' { 'Y' } else { 'X' };
        let new_title: String = std::iter::repeat_n(other, first.len_utf8())
            .chain(title.chars().skip(1))
            .collect();
        assert_eq!(new_title.len(), title.len());
        site.write(&rel, text.replacen(&title, &new_title, 1));
        new_title
    };
    let reference = demo();
    let title = edit(&reference);
    let query = a_keyword(&reference);
    let want = seen(&reference, &query);

    let site = demo();
    site.matome(&["build"]).assert_success();
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(edit(&site), title);
    assert_same(&seen(&site, &query), &want, "stale");
    assert!(
        want.public
            .values()
            .any(|b| String::from_utf8_lossy(b).contains(&title)),
        "the edit is shown"
    );
}

/// What `.matome/` held before the layer (issue 23): keys.bin of version 4, the check's own
/// content record and the static search's documents cache. A build and a check replace them:
/// the output is that of a build from nothing, and the files of the old layout are gone.
#[test]
fn an_old_matome_folder_is_replaced_cleanly() {
    let reference = demo();
    let query = a_keyword(&reference);
    let want = seen(&reference, &query);
    let site = demo();
    site.matome(&["build"]).assert_success();
    // The old caches, as the previous version wrote them (sealed, version 4 first).
    let old_keys = fsutil::seal(vec![4, 0]);
    site.write(".matome/keys.bin", &old_keys);
    site.write(".matome/check/content.bin", fsutil::seal(vec![2, 5, b'0']));
    site.write(".matome/search-docs/2021-07.bin", fsutil::seal(vec![0]));
    for f in site.files_under(".matome/archive") {
        site.write(&f, fsutil::seal(vec![2, 0, 0]));
    }
    assert_same(&seen(&site, &query), &want, "upgrade");
    assert!(
        !site.exists(".matome/search-docs"),
        "the documents cache is gone"
    );
    assert!(
        !site.exists(".matome/check/content.bin"),
        "check reads keys.bin"
    );
    assert_ne!(site.read_bytes(".matome/keys.bin"), old_keys);
}
