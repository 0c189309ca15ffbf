//! Unit tests of `serve.rs` and `serve/live.rs` (kept beside them so the files read as the code).
use super::live::is_input;
use super::*;

fn shared(out: &Path) -> Shared {
    Shared {
        root: out.to_path_buf(),
        output: out.to_path_buf(),
        local: "127.0.0.1:1".parse().unwrap(),
        paths: RwLock::new(Paths {
            base_path: "/repo/".into(),
            local_url: "http://127.0.0.1:1/repo/".into(),
            moved_from: None,
        }),
        hosts: allowed_hosts("127.0.0.1:8000".parse().unwrap()),
        timezone: chrono_tz::UTC,
        error: RwLock::new(None),
        searcher: RwLock::new(None),
        signals: broadcast::channel(1).0,
    }
}

#[test]
fn requests_resolve_inside_the_output_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("public");
    std::fs::create_dir_all(out.join("keywords/日本銀行")).unwrap();
    std::fs::write(out.join("keywords/日本銀行/index.html"), "k").unwrap();
    std::fs::write(out.join("index.html"), "home").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "no").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("secret.txt"), out.join("link.txt")).unwrap();
    let s = shared(&out);
    assert!(resolve(&s, "/repo/").is_some());
    assert!(resolve(&s, "/repo/keywords/%E6%97%A5%E6%9C%AC%E9%8A%80%E8%A1%8C/").is_some());
    assert!(resolve(&s, "/repo/keywords/日本銀行/").is_some());
    for bad in [
        "/repo/../secret.txt",
        "/repo/%2e%2e/secret.txt",
        "/repo/keywords/../../secret.txt",
        "/repo//etc/passwd",
        "/repo/link.txt",
        "/secret.txt",
        "/repo/keywords/",
    ] {
        assert_eq!(resolve(&s, bad), None, "{bad}");
    }
}

#[test]
fn only_the_bound_address_is_a_host() {
    let local: SocketAddr = "127.0.0.1:8000".parse().unwrap();
    let h = allowed_hosts(local);
    for ok in [
        "127.0.0.1:8000",
        "localhost:8000",
        "LOCALHOST:8000",
        "[::1]:8000",
    ] {
        assert!(h.allows(ok), "{ok}");
    }
    for bad in [
        "",
        "127.0.0.1",
        "localhost",
        "127.0.0.1:80",
        "127.0.0.1:08000x",
        "evil.example:8000",
        "localhost.evil.example:8000",
        "192.168.1.2:8000",
        "[::1]",
        "[::1:8000",
        "[::1]x:8000",
        "::1:8000",
    ] {
        assert!(!h.allows(bad), "{bad}");
    }
    // Port 80: browsers leave the port out.
    let h = allowed_hosts("127.0.0.1:80".parse().unwrap());
    assert!(h.allows("localhost") && h.allows("127.0.0.1:80"));
    // Bound to a LAN address: that address too; bound to every interface: any address.
    let h = allowed_hosts("192.168.1.2:8000".parse().unwrap());
    assert!(h.allows("192.168.1.2:8000") && !h.allows("192.168.1.3:8000"));
    let h = allowed_hosts("0.0.0.0:8000".parse().unwrap());
    assert!(h.allows("192.168.1.3:8000") && h.allows("[fe80::1]:8000"));
    assert!(!h.allows("evil.example:8000"));
}

#[test]
fn only_inputs_trigger_rebuilds() {
    let root = Path::new("/site");
    for yes in [
        "matome.toml",
        "content/2021/07/20/0800.md",
        "templates/digest.html",
        "themes/default/static/style.css",
        "static/logo.png",
    ] {
        assert!(is_input(root, &root.join(yes)), "{yes}");
    }
    for no in [
        "public/index.html",
        ".matome/archive/2021-07.bin",
        ".matome.lock",
        "content/2021/07/20/.0800.md.tmp",
        "templates/digest.html~",
        "fetch-state.json",
        "/elsewhere/x",
    ] {
        assert!(!is_input(root, &root.join(no)), "{no}");
    }
}
