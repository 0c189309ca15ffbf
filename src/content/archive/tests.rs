//! Unit tests of `content/archive.rs`: the indexes agree with content/, cached chunks number
//! names as a load without them does, a damaged chunk is rebuilt.
use super::*;
use crate::content::Item;

fn t(s: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(s).unwrap()
}

fn item(id: &str, cat: &str, kws: &[&str]) -> Item {
    Item {
        id: id.into(),
        feed: "https://example.com/feed".into(),
        category: cat.into(),
        site: "Example".into(),
        title: format!("title {id}"),
        link: format!("https://example.com/{id}"),
        published: t("2021-07-20T07:20:00+09:00"),
        keywords: kws.iter().map(|s| s.to_string()).collect(),
        summary: "s".into(),
        text: String::new(),
        trend: None,
        story: String::new(),
    }
}

fn write(root: &Path, hour: &str, items: Vec<Item>) {
    let h = t(hour);
    let s = Snapshot {
        hour: h,
        updated: h,
        items,
        body: String::new(),
    };
    s.write(&root.join(crate::content::snapshot_rel_path(&h)))
        .unwrap();
}

/// A site with one item ("a", IT) in the 08:00 digest of 2021-07-20.
fn one_item_site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "2021-07-20T08:00:00+09:00",
        vec![item("a", "IT", &[])],
    );
    dir
}

#[test]
fn indexes_and_cache_agree_with_content() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "2021-07-20T09:00:00+09:00",
        vec![item("b", "IT", &["Apple", "半導体"])],
    );
    write(
        root,
        "2021-07-20T08:00:00+09:00",
        vec![
            item("a", "IT", &["apple"]),
            item("c", "金融", &["日本銀行"]),
        ],
    );
    let a = Archive::load(root).unwrap();
    assert_eq!(a.refreshed_files, 2);
    assert_eq!(a.digests.len(), 2);
    assert!(a.digests[0].hour < a.digests[1].hour, "time order");
    assert_eq!(a.items.len(), 3);
    assert_eq!(a.items[0].title, "title a");
    // Keywords fold case; the first written form is shown.
    let apple = a.keywords.get("APPLE").unwrap();
    assert_eq!(a.keywords.names[apple as usize], "apple");
    assert_eq!(a.keywords.items[apple as usize], vec![0, 2]);
    let it = a.categories.get("IT").unwrap();
    assert_eq!(a.categories.items[it as usize], vec![0, 2]);

    // Second load: everything from the cache, same archive.
    let b = Archive::load(root).unwrap();
    assert_eq!(b.refreshed_files, 0);
    assert_eq!(b.items.len(), 3);
    assert_eq!(b.digests[1].hash, a.digests[1].hash);

    // A hand edit is seen (size changes), a removed file disappears.
    let p = root.join("content/2021/07/20/0900.md");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replace("title b", "title bee")).unwrap();
    std::fs::remove_file(root.join("content/2021/07/20/0800.md")).unwrap();
    let c = Archive::load(root).unwrap();
    assert_eq!(c.refreshed_files, 1);
    assert_eq!(c.items.len(), 1);
    assert_eq!(c.items[0].title, "title bee");
}

/// What a build sees of an archive: names in order, each taxonomy's items, each item's
/// names.
fn shape(a: &Archive) -> Vec<String> {
    let mut out = Vec::new();
    for n in [&a.categories, &a.sites, &a.keywords] {
        out.push(format!("{:?} {:?}", n.names, n.items));
    }
    for e in &a.items {
        out.push(format!(
            "{} {} {} {} {:?}",
            e.title, e.link, e.site, e.category, e.keywords
        ));
    }
    out
}

/// Chunks name sites, categories and keywords by their place in the chunk's table, in
/// whatever order files entered the cache; the archive must still intern them in the order
/// items first use them, as a load without any cache does.
#[test]
fn names_from_cached_chunks_are_numbered_as_without_a_cache() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "2021-07-20T09:00:00+09:00",
        vec![item("b", "金融", &["半導体", "Apple"])],
    );
    write(
        root,
        "2021-08-01T09:00:00+09:00",
        vec![item("d", "IT", &["apple", "日本銀行"])],
    );
    Archive::load(root).unwrap();
    // An older file of the same month enters the cached chunk after the newer one.
    write(
        root,
        "2021-07-20T08:00:00+09:00",
        vec![
            item("a", "IT", &["日本銀行", "半導体"]),
            item("c", "科学", &[]),
        ],
    );
    let cached = Archive::load(root).unwrap();
    assert_eq!(cached.refreshed_files, 1);
    let again = Archive::load(root).unwrap();
    assert_eq!(again.refreshed_files, 0);
    std::fs::remove_dir_all(crate::layout::archive_cache_dir(root)).unwrap();
    let fresh = Archive::load(root).unwrap();
    assert_eq!(fresh.refreshed_files, 3);
    assert_eq!(shape(&cached), shape(&fresh));
    assert_eq!(shape(&again), shape(&fresh));
    assert_eq!(fresh.keywords.names, ["日本銀行", "半導体", "Apple"]);
}

/// A chunk that does not verify (damaged) or whose rows name outside its table is parsed
/// again from content/, never trusted.
#[test]
fn a_damaged_or_inconsistent_chunk_is_rebuilt_from_content() {
    let dir = one_item_site();
    let root = dir.path();
    let want = shape(&Archive::load(root).unwrap());
    let chunk = crate::layout::archive_cache_dir(root).join("2021-07.bin");
    let mut bytes = std::fs::read(&chunk).unwrap();
    bytes[3] ^= 0x40;
    std::fs::write(&chunk, &bytes).unwrap();
    let a = Archive::load(root).unwrap();
    assert_eq!(a.refreshed_files, 1, "a damaged chunk is not used");
    assert_eq!(shape(&a), want);

    let mut c: Chunk = fsutil::from_sealed(&std::fs::read(&chunk).unwrap()).unwrap();
    c.files[0].items[0].keywords.push(c.names.len() as u32);
    std::fs::write(&chunk, fsutil::to_sealed(&c).unwrap()).unwrap();
    let a = Archive::load(root).unwrap();
    assert_eq!(
        a.refreshed_files, 1,
        "a chunk naming outside its table is not used"
    );
    assert_eq!(shape(&a), want);
    assert_eq!(
        Archive::load(root).unwrap().refreshed_files,
        0,
        "and is rewritten"
    );
}

#[test]
fn a_same_size_edit_with_a_new_time_is_caught_by_the_hash() {
    let dir = one_item_site();
    let root = dir.path();
    Archive::load(root).unwrap();
    let p = root.join("content/2021/07/20/0800.md");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replace("title a", "title z")).unwrap();
    let a = Archive::load(root).unwrap();
    assert_eq!(a.items[0].title, "title z");
}

#[test]
fn a_broken_file_is_named_with_its_line() {
    let dir = one_item_site();
    let root = dir.path();
    let p = root.join("content/2021/07/20/0900.md");
    std::fs::write(
        &p,
        "+++\nhour = 2021-07-20T09:00:00+09:00\nupdated = nope\n+++\n",
    )
    .unwrap();
    let e = format!("{:#}", Archive::load(root).unwrap_err());
    assert!(e.contains("0900.md:3"), "{e}");
}

/// Issue 24: each row carries its story; a story's members are listed across files and months,
/// oldest first, whether or not its first item recorded its own ID; a loaded chunk gives the
/// same stories as a parse.
#[test]
fn stories_gather_their_members_across_months_from_cache_and_parse_alike() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let first = item("a", "IT", &[]);
    let story = first.key().hex();
    let mut joined = item("b", "IT", &[]);
    joined.story = story.clone();
    let mut own = item("c", "IT", &[]);
    own.story = own.key().hex();
    write(
        root,
        "2021-07-31T23:00:00+09:00",
        vec![first, item("x", "IT", &[])],
    );
    write(root, "2021-08-01T01:00:00+09:00", vec![own, joined]);
    for pass in ["parsed", "cached"] {
        let a = Archive::load(root).unwrap();
        assert_eq!(a.stories.len(), 3, "{pass}: a+b, x, c");
        let s = a.items[0].story;
        assert_eq!(a.stories.id(s), story, "{pass}");
        let titles: Vec<&str> = a
            .stories
            .members(s)
            .iter()
            .map(|&i| a.items[i as usize].title.as_str())
            .collect();
        assert_eq!(titles, ["title a", "title b"], "{pass}");
        for i in [1, 2] {
            let s = a.items[i].story;
            assert_eq!(a.stories.members(s), [i as u32], "{pass}: alone");
        }
    }
}
