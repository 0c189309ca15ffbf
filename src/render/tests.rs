//! Unit tests of `render/mod.rs`: paths read from caches stay inside the output folder, sealed cache files verify.
use super::*;

/// Issue 11, finding 5: a crafted build record named `../outside` and `/tmp/x`, and the
/// build deleted them; paths read from caches stay inside the output folder.
#[test]
fn paths_from_caches_are_confined_to_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    std::fs::create_dir_all(out.join("a")).unwrap();
    std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
    let out = out.canonicalize().unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("elsewhere"), out.join("link")).unwrap();
    assert_eq!(
        confined(&out, "a/index.html"),
        Some(out.join("a/index.html"))
    );
    assert_eq!(confined(&out, "index.html"), Some(out.join("index.html")));
    for bad in [
        "",
        "../outside",
        "a/../../outside",
        "/tmp/x",
        "./a",
        "a/\0",
        "..\\outside",
        "link/victim.txt",
        "missing/dir/file",
    ] {
        assert_eq!(confined(&out, bad), None, "{bad:?}");
    }
}

/// Issue 13: a month whose index has long posting lists in files of their own
/// (`b01f-0.bin`) was never "whole" to the next build, so every build re-indexed every
/// month of the archive (16 s of a year's next-hour build).
#[test]
fn a_month_with_posting_list_files_is_whole_to_the_next_build() {
    let dir = tempfile::tempdir().unwrap();
    // A word in 9,000 items: its posting list (a bitmap of 1,125 bytes at best) is a file.
    let titles: Vec<String> = (0..9000).map(|i| format!("量子計算の記事 {i}")).collect();
    let docs: Vec<StaticDoc> = titles
        .iter()
        .map(|t| StaticDoc {
            title: t,
            summary: "量子計算の話題",
            link: Some("https://example.com/a"),
            site: "サイト",
            category: "科学",
            published: 1_626_739_200,
            digest_url: "2021/07/20/0800/",
        })
        .collect();
    let shard =
        static_index::write_month(dir.path(), "2021-07", &docs, chrono_tz::Asia::Tokyo).unwrap();
    assert!(
        shard
            .files
            .iter()
            .any(|f| f.strip_prefix("2021-07/b").is_some_and(|r| r.contains('-'))),
        "the month has a posting list file: {:?}",
        shard.files.iter().take(5).collect::<Vec<_>>()
    );
    assert!(shard_is_whole(dir.path(), "2021-07", &shard));
    // A record naming a file that is not there, or one outside the month, is not whole.
    let mut gone = shard.clone();
    gone.files.push("2021-07/b000-99.bin".into());
    assert!(!shard_is_whole(dir.path(), "2021-07", &gone));
    let mut outside = shard.clone();
    outside.files[0] = "2021-07/../../x".into();
    assert!(!shard_is_whole(dir.path(), "2021-07", &outside));
}
