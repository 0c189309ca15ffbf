//! Unit tests of link resolution and the link record.

use super::*;

#[test]
fn relative_root_relative_and_absolute_links_resolve_alike() {
    let base = url::Url::parse("https://u.github.io/repo/").unwrap();
    let page = base.join("2021/07/20/0800/index.html").unwrap();
    let r = |l: &str| resolve(&base, &page, l);
    let kw = Resolved::Target("keywords/日本銀行/".into());
    assert_eq!(r("/repo/keywords/日本銀行/"), kw);
    assert_eq!(
        r("/repo/keywords/%E6%97%A5%E6%9C%AC%E9%8A%80%E8%A1%8C/"),
        kw
    );
    assert_eq!(r("../../../../keywords/日本銀行/"), kw);
    assert_eq!(r("https://u.github.io/repo/keywords/日本銀行/"), kw);
    assert_eq!(
        r("../../../../style.css"),
        Resolved::Target("style.css".into())
    );
    assert_eq!(
        r("/repo/style.css?v=1#x"),
        Resolved::Target("style.css".into())
    );
    assert_eq!(r("./"), Resolved::Target("2021/07/20/0800/".into()));
    assert_eq!(r("https://example.com/elsewhere"), Resolved::Elsewhere);
    assert_eq!(r("#item-3"), Resolved::Elsewhere);
    assert_eq!(r("mailto:a@b.c"), Resolved::Elsewhere);
    assert!(matches!(r("/style.css"), Resolved::Problem(p) if p.contains("base path")));
    assert!(matches!(r("/repo/%2e%2e/etc/passwd"), Resolved::Problem(_)));
    let out = Path::new("/o");
    assert_eq!(target_file(out, ""), Path::new("/o/index.html"));
    assert_eq!(target_file(out, "c/IT/"), Path::new("/o/c/IT/index.html"));
    assert_eq!(target_file(out, "style.css"), Path::new("/o/style.css"));
}

#[test]
fn attribute_values_are_decoded() {
    let v = attribute_values(r#"<a href="/a?b=1&amp;c=2">x</a><img alt="" src="/i.svg">"#);
    assert_eq!(v, vec!["/a?b=1&c=2", "/i.svg"]);
}

#[test]
fn the_record_round_trips_and_a_damaged_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.links");
    let mut record = Record {
        format: FORMAT,
        version: "v".into(),
        output: "/o".into(),
        base_url: "https://u.github.io/repo/".into(),
        ..Record::default()
    };
    let mut t = Targets::default();
    let ids: Vec<u32> = ["a/", "b/", "c.css"]
        .iter()
        .map(|s| record.intern(&mut t, s.to_string()))
        .collect();
    record.pages.insert(
        "index.html".into(),
        PageLinks {
            fp: 0,
            links: 5,
            targets: ids.clone(),
            problems: vec!["p".into()],
        },
    );
    record.pages.insert(
        "a/index.html".into(),
        PageLinks {
            fp: 0,
            links: 1,
            targets: vec![ids[2]],
            problems: vec![],
        },
    );
    save(&path, &record).unwrap();
    let back = load(&path).unwrap();
    assert_eq!(back.targets, record.targets);
    assert_eq!(back.pages["index.html"].targets, ids);
    assert_eq!(back.pages["a/index.html"].targets, vec![ids[2]]);
    assert_eq!(back.pages["index.html"].problems, ["p"]);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[5] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    assert!(load(&path).unwrap_err().contains("does not verify"));
    std::fs::remove_file(&path).unwrap();
    assert!(load(&path).unwrap_err().contains("no link record"));
}

#[test]
fn compacting_drops_unlinked_targets_and_keeps_lists_sorted() {
    let mut record = Record::default();
    let mut t = Targets::default();
    for s in ["a", "b", "c", "d"] {
        record.intern(&mut t, s.into());
    }
    record.pages.insert(
        "p".into(),
        PageLinks {
            fp: 0,
            links: 2,
            targets: vec![1, 3],
            problems: vec![],
        },
    );
    let r = compact(record);
    assert_eq!(r.targets, ["b", "d"]);
    assert_eq!(r.pages["p"].targets, [0, 1]);
}
