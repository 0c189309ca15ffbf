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
