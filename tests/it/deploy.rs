//! `matome deploy` against a real S3-compatible server: `s3s-fs` (installed by scripts/setup into
//! target/tools/), started on 127.0.0.1 by each test with its own folder and credentials. What
//! matome sent is counted from the server's own request log (`op: PutObject`, `op: DeleteObject`)
//! and read back through the S3 API (object_store, as a client).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use md5::{Digest, Md5};
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as ObjectPath;
use object_store::{Attribute, ObjectStore, ObjectStoreExt};
use yaml_rust2::YamlLoader;

use crate::support::{RunOutput, Site, demo_site};

const ACCESS_KEY: &str = "matome-test-key";
const SECRET_KEY: &str = "matome-test-secret-9f2c";
const BUCKET: &str = "news";
const PREFIX: &str = "site";
const BASE_URL: &str = "http://127.0.0.1:9/archive/";

/// The s3s-fs binary scripts/setup installs.
fn s3s_fs() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/bin/s3s-fs");
    assert!(
        p.is_file(),
        "{} is missing: run scripts/setup (it installs s3s-fs 0.14.1 for these tests)",
        p.display()
    );
    p
}

/// A running s3s-fs with one bucket, killed on drop.
struct S3Server {
    child: Child,
    data: tempfile::TempDir,
    log: PathBuf,
    port: u16,
}

impl S3Server {
    fn start() -> S3Server {
        let data = tempfile::Builder::new()
            .prefix("matome-s3-")
            .tempdir()
            .unwrap();
        std::fs::create_dir_all(data.path().join("store").join(BUCKET)).unwrap();
        S3Server::start_in(data, 0)
    }

    /// Starts s3s-fs over `data` (a restart keeps the objects); port 0: any free port. Each start
    /// logs to a new file, so counts are per start.
    fn start_in(data: tempfile::TempDir, port: u16) -> S3Server {
        let starts = std::fs::read_dir(data.path()).unwrap().count();
        let log = data.path().join(format!("server-{starts}.log"));
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new(s3s_fs())
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
            .arg(data.path().join("store"))
            .env("RUST_LOG", "s3s=debug,s3s_fs=info")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .expect("start s3s-fs");
        // Owned at once, so a panic below still kills it.
        let mut server = S3Server {
            child,
            data,
            log,
            port,
        };
        let started = Instant::now();
        const READY: &str = "server is running at http://127.0.0.1:";
        loop {
            let text = server.log();
            if let Some(at) = text.find(READY) {
                let digits: String = text[at + READY.len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                server.port = digits.parse().unwrap();
                return server;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "s3s-fs did not start:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the server, keeping its folder and port for [`S3Server::start_in`].
    fn stop(mut self) -> (tempfile::TempDir, u16) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let data = std::mem::replace(&mut self.data, tempfile::tempdir().unwrap());
        (data, self.port)
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The server's request log so far.
    fn log(&self) -> String {
        let mut s = String::new();
        std::fs::File::open(&self.log)
            .unwrap()
            .read_to_string(&mut s)
            .unwrap();
        s
    }

    /// Requests of S3 operation `op` the server has received so far.
    fn count(&self, op: &str) -> usize {
        self.log()
            .matches(&format!("resolved route, op: {op},"))
            .count()
    }

    /// The folder where the bucket's objects are files.
    fn bucket_dir(&self) -> PathBuf {
        self.data.path().join("store").join(BUCKET)
    }

    fn client(&self) -> AmazonS3 {
        let _ = rustls::crypto::ring::default_provider().install_default();
        AmazonS3Builder::new()
            .with_endpoint(self.endpoint())
            .with_allow_http(true)
            .with_region("us-east-1")
            .with_bucket_name(BUCKET)
            .with_access_key_id(ACCESS_KEY)
            .with_secret_access_key(SECRET_KEY)
            .build()
            .unwrap()
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Every object under the prefix: relative key → (size, md5 of the bytes as read back).
fn objects(server: &S3Server) -> BTreeMap<String, Vec<u8>> {
    let store = server.client();
    rt().block_on(async {
        use futures_util::TryStreamExt;
        let prefix = ObjectPath::from(PREFIX);
        let metas: Vec<_> = store.list(Some(&prefix)).try_collect().await.unwrap();
        let mut out = BTreeMap::new();
        for m in metas {
            let bytes = store.get(&m.location).await.unwrap().bytes().await.unwrap();
            let rel = m.location.as_ref()[PREFIX.len() + 1..].to_string();
            out.insert(rel, bytes.to_vec());
        }
        out
    })
}

/// An object's Content-Type and Cache-Control as the server returns them.
fn headers(server: &S3Server, rel: &str) -> (String, String) {
    let store = server.client();
    rt().block_on(async {
        let r = store
            .get(&ObjectPath::from(format!("{PREFIX}/{rel}")))
            .await
            .unwrap_or_else(|e| panic!("GET {rel}: {e}"));
        let a = &r.attributes;
        let get = |k: &Attribute| a.get(k).map(|v| v.to_string()).unwrap_or_default();
        (get(&Attribute::ContentType), get(&Attribute::CacheControl))
    })
}

/// The demo archive built into public/, with `[deploy]` pointing at `server`.
fn built_site(server: &S3Server) -> Site {
    built_site_at(&server.endpoint(), "concurrency = 4\nretries = 1\n")
}

/// The demo archive built into public/, with `[deploy]` at bucket `news`, prefix `site`, of the
/// S3-compatible server at `endpoint`, and `settings` (more `[deploy]` keys).
pub(crate) fn built_site_at(endpoint: &str, settings: &str) -> Site {
    let mut site = demo_site(BASE_URL);
    site.config.append = format!(
        // Every keyword gets a page (the default leaves keywords seen once unlinked): more
        // link targets to resolve through the bucket.
        "[build]\nkeyword_min_items = 1\nkeyword_min_sites = 1\n[deploy]\nurl = \"s3://{BUCKET}/{PREFIX}/\"\nendpoint = \"{endpoint}\"\nregion = \"us-east-1\"\n{settings}"
    );
    site.write_config(&[]);
    site.matome(&["build"]).assert_success();
    site
}

pub(crate) fn deploy(site: &Site, args: &[&str]) -> RunOutput {
    deploy_with(site, args, ACCESS_KEY, SECRET_KEY)
}

fn deploy_with(site: &Site, args: &[&str], key: &str, secret: &str) -> RunOutput {
    let mut all = vec!["deploy"];
    all.extend_from_slice(args);
    site.matome_with(
        &all,
        &[
            ("AWS_ACCESS_KEY_ID", key),
            ("AWS_SECRET_ACCESS_KEY", secret),
            ("AWS_REGION", "us-east-1"),
        ],
        Duration::from_secs(120),
    )
}

/// The output folder: relative path → bytes.
pub(crate) fn public(site: &Site) -> BTreeMap<String, Vec<u8>> {
    let root = site.path("public");
    walkdir::WalkDir::new(&root)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(&root)
                .unwrap()
                .to_str()
                .unwrap()
                .to_string();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// The bucket holds exactly the output folder (plus the deploy manifest), byte for byte.
fn assert_bucket_mirrors(server: &S3Server, site: &Site) {
    let mut remote = objects(server);
    assert!(
        remote.remove(matome::deploy::DEPLOY_MANIFEST).is_some(),
        "the deploy manifest is in the bucket"
    );
    let local = public(site);
    let only_remote: Vec<_> = remote.keys().filter(|k| !local.contains_key(*k)).collect();
    let only_local: Vec<_> = local.keys().filter(|k| !remote.contains_key(*k)).collect();
    assert!(
        only_remote.is_empty() && only_local.is_empty(),
        "only in the bucket: {only_remote:?}; only in public/: {only_local:?}"
    );
    for (k, v) in &local {
        assert!(
            remote[k] == *v,
            "{k}: the object's bytes differ from public/{k}"
        );
    }
}

/// A new hourly snapshot: one new item at 2021-07-22 08:00 JST.
const NEW_HOUR: &str = r#"+++
hour = 2021-07-22T08:00:00+09:00
updated = 2021-07-22T08:10:00+09:00

[[items]]
id = "https://example.jp/itnews/articles/2107/22/news099.html"
feed = "http://127.0.0.1:8765/itnews.xml"
category = "IT"
site = "ITニュース総合"
title = "国産クラウド、東京リージョンに第2データセンター"
link = "https://example.jp/itnews/articles/2107/22/news099.html"
published = 2021-07-22T07:45:00+09:00
keywords = ["国産クラウド", "データセンター"]
summary = "国産クラウド事業者が東京リージョンに第2データセンターを開設した。"
text = "国産クラウド事業者が東京リージョンに第2データセンターを開設した。"
+++
"#;

#[test]
fn first_deploy_uploads_everything_with_the_right_types_and_an_hour_later_only_what_changed() {
    let server = S3Server::start();
    let site = built_site(&server);
    let files = public(&site).len();

    let out = deploy(&site, &[]);
    out.assert_success();
    assert_eq!(
        server.count("PutObject"),
        files + 1,
        "every file and the manifest, once:\n{}",
        out.stdout
    );
    assert_eq!(server.count("DeleteObjects"), 0);
    assert_bucket_mirrors(&server, &site);

    let short = "public, max-age=300";
    let immutable = "public, max-age=31536000, immutable";
    let shard = public(&site)
        .into_keys()
        .find(|k| k.starts_with("search/2021-07/") && k.ends_with(".bin"))
        .expect("a search shard");
    for (rel, ct, cc) in [
        ("index.html", "text/html; charset=utf-8", short),
        (
            "2021/07/20/0800/index.html",
            "text/html; charset=utf-8",
            short,
        ),
        ("atom.xml", "application/atom+xml; charset=utf-8", short),
        ("sitemap.xml", "application/xml; charset=utf-8", short),
        ("style.css", "text/css; charset=utf-8", short),
        ("search.js", "text/javascript; charset=utf-8", short),
        ("favicon.svg", "image/svg+xml", short),
        ("search/manifest.json", "application/json", short),
        (shard.as_str(), "application/octet-stream", immutable),
        ("search/2021-07/c0.json", "application/json", immutable),
    ] {
        assert_eq!(
            headers(&server, rel),
            (ct.to_string(), cc.to_string()),
            "{rel}"
        );
    }

    // Nothing changed: nothing is sent.
    deploy(&site, &[]).assert_success();
    assert_eq!(
        server.count("PutObject"),
        files + 1,
        "an unchanged site uploads nothing"
    );

    // One new hour: exactly the files the build changed, then the manifest.
    let before = public(&site);
    site.write("content/2021/07/22/0800.md", NEW_HOUR);
    site.matome(&["build"]).assert_success();
    let after = public(&site);
    let changed = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(v))
        .count();
    assert!(
        changed > 0 && changed < files / 2,
        "{changed} of {files} files changed"
    );
    let puts = server.count("PutObject");
    let out = deploy(&site, &[]);
    out.assert_success();
    assert_eq!(
        server.count("PutObject") - puts,
        changed + 1,
        "only the hour's {changed} changed files and the manifest:\n{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(&format!("{changed} uploaded")),
        "{}",
        out.stdout
    );
    assert_bucket_mirrors(&server, &site);

    // An hour removed from content/: its pages are deleted from the bucket, last.
    std::fs::remove_file(site.path("content/2021/07/20/0800.md")).unwrap();
    site.matome(&["build"]).assert_success();
    let gone = after
        .keys()
        .filter(|k| !public(&site).contains_key(*k))
        .count();
    assert!(gone > 0, "the build removed pages");
    let out = deploy(&site, &[]);
    out.assert_success();
    assert_eq!(
        server.count("DeleteObjects"),
        1,
        "the {gone} deletions go in one batch request:\n{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(&format!("{gone} deleted")),
        "{}",
        out.stdout
    );
    assert_bucket_mirrors(&server, &site);
    assert!(!objects(&server).contains_key("2021/07/20/0800/index.html"));
}

#[test]
fn a_bucket_that_already_holds_the_site_gets_no_uploads() {
    let server = S3Server::start();
    let site = built_site(&server);
    let files = public(&site).len();
    deploy(&site, &[]).assert_success();
    // Without the manifest (a site copied by other means, or a manifest lost), the objects
    // compare by content.
    std::fs::remove_file(
        server
            .bucket_dir()
            .join(PREFIX)
            .join(matome::deploy::DEPLOY_MANIFEST),
    )
    .unwrap();
    let out = deploy(&site, &[]);
    out.assert_success();
    assert_eq!(
        server.count("PutObject"),
        files + 2,
        "only the manifest again:\n{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(&format!("{files} unchanged")),
        "{}",
        out.stdout
    );
    assert_bucket_mirrors(&server, &site);
}

#[test]
fn dry_run_lists_what_would_change_and_changes_nothing() {
    let server = S3Server::start();
    let site = built_site(&server);
    let out = deploy(&site, &["--dry-run"]);
    out.assert_success();
    assert!(
        out.stdout.contains("upload  index.html  (new,"),
        "{}",
        out.stdout
    );
    assert_eq!(server.count("PutObject") + server.count("DeleteObjects"), 0);
    assert!(objects(&server).is_empty());
    deploy(&site, &[]).assert_success();
    std::fs::write(server.bucket_dir().join(PREFIX).join("stale.html"), "old").unwrap();
    let out = deploy(&site, &["--dry-run"]);
    out.assert_success();
    assert!(out.stdout.contains("delete  stale.html"), "{}", out.stdout);
    assert!(objects(&server).contains_key("stale.html"));
}

#[test]
fn a_deploy_stopped_by_a_failing_object_finishes_on_the_next_run_and_never_links_ahead() {
    let server = S3Server::start();
    let site = built_site(&server);
    let files = public(&site).len();
    // A folder where the object favicon.svg must go: the server cannot write it.
    let blocker = server.bucket_dir().join(PREFIX).join("favicon.svg");
    std::fs::create_dir_all(blocker.join("x")).unwrap();
    let out = deploy(&site, &[]);
    out.assert_failure();
    let err = out.stderr;
    assert!(
        err.contains(&format!("s3://{BUCKET}/{PREFIX}/favicon.svg")),
        "the error names the object: {err}"
    );
    assert!(err.contains("run it again"), "{err}");
    // It stopped after the assets: no page links to the missing object.
    let uploaded = objects(&server);
    assert!(
        uploaded.contains_key("style.css"),
        "the other assets went up"
    );
    assert!(
        uploaded.keys().all(|k| !k.ends_with(".html")),
        "no page was uploaded: {:?}",
        uploaded
            .keys()
            .filter(|k| k.ends_with(".html"))
            .collect::<Vec<_>>()
    );
    assert!(!uploaded.contains_key(matome::deploy::DEPLOY_MANIFEST));

    // The cause fixed, the next run uploads only what is missing.
    std::fs::remove_dir_all(&blocker).unwrap();
    let puts = server.count("PutObject");
    let out = deploy(&site, &[]);
    out.assert_success();
    assert_eq!(
        server.count("PutObject") - puts,
        files - uploaded.len() + 1,
        "the objects the first run left, and the manifest:\n{}",
        out.stdout
    );
    assert_bucket_mirrors(&server, &site);
}

#[test]
fn a_deploy_cut_off_mid_way_by_the_server_dying_finishes_when_it_is_back() {
    let server = S3Server::start();
    let site = built_site(&server);
    let files = public(&site).len();
    // One object at a time, so the server can be killed mid-way.
    let toml = std::fs::read_to_string(site.path("matome.toml")).unwrap();
    site.write(
        "matome.toml",
        toml.replace("concurrency = 4", "concurrency = 1"),
    );
    let run = Command::new(env!("CARGO_BIN_EXE_matome"))
        .arg("--root")
        .arg(site.root())
        .arg("deploy")
        .env("CI", "true")
        .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
        .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while server.count("PutObject") < 20 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no uploads:\n{}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let (data, port) = server.stop();
    let out = run.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the deploy noticed: {err}");
    assert!(
        err.contains(&format!("s3://{BUCKET}/{PREFIX}/")),
        "the error names the object: {err}"
    );
    assert!(err.contains("run it again"), "{err}");

    let server = S3Server::start_in(data, port);
    let left = objects(&server);
    assert!(
        left.len() < files,
        "the first run was cut off ({} of {files})",
        left.len()
    );
    let out = deploy(&site, &[]);
    out.assert_success();
    assert!(
        server.count("PutObject") <= files - left.len() + 1 + 1,
        "the second run uploads what the first left (and at most the one object cut off):\n{}",
        out.stdout
    );
    assert_bucket_mirrors(&server, &site);
}

#[test]
fn wrong_credentials_and_a_missing_bucket_are_clear_errors() {
    let server = S3Server::start();
    let site = built_site(&server);
    let out = deploy_with(&site, &[], ACCESS_KEY, "not-the-secret");
    out.assert_failure();
    assert!(
        out.stderr.contains("refused the credentials"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("AWS_SECRET_ACCESS_KEY"),
        "{}",
        out.stderr
    );
    assert!(
        !out.combined().contains("not-the-secret"),
        "the secret is never printed"
    );
    let out = deploy_with(&site, &[], "nobody", SECRET_KEY);
    out.assert_failure();
    assert!(
        out.stderr.contains("refused the credentials"),
        "{}",
        out.stderr
    );
    assert!(!out.combined().contains(SECRET_KEY));

    let out = site.matome_with(&["deploy"], &[], Duration::from_secs(30));
    out.assert_failure();
    assert!(out.stderr.contains("no credentials"), "{}", out.stderr);

    let toml = std::fs::read_to_string(site.path("matome.toml")).unwrap();
    site.write(
        "matome.toml",
        toml.replace(&format!("s3://{BUCKET}/"), "s3://no-such-bucket/"),
    );
    let out = deploy(&site, &[]);
    out.assert_failure();
    assert!(
        out.stderr
            .contains("bucket `no-such-bucket` does not exist"),
        "{}",
        out.stderr
    );
    assert_eq!(server.count("PutObject"), 0);
}

/// Every `href` and `src` of a page, decoded (the site always double-quotes).
fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in [" href=\"", " src=\""] {
        let mut rest = html;
        while let Some(at) = rest.find(attr) {
            rest = &rest[at + attr.len()..];
            let end = rest.find('"').unwrap();
            out.push(rest[..end].replace("&amp;", "&"));
            rest = &rest[end..];
        }
    }
    out
}

#[test]
fn every_internal_link_of_the_deployed_site_resolves_through_the_bucket() {
    let server = S3Server::start();
    let site = built_site(&server);
    deploy(&site, &[]).assert_success();
    let bucket = objects(&server);
    let base = url::Url::parse(BASE_URL).unwrap();
    let mut checked = BTreeSet::new();
    let mut uri_paths = BTreeSet::new();
    let mut missing = Vec::new();
    for (rel, bytes) in bucket.iter().filter(|(k, _)| k.ends_with(".html")) {
        let page = base.join(rel).unwrap();
        for link in links(&String::from_utf8_lossy(bytes)) {
            let Ok(target) = page.join(&link) else {
                continue;
            };
            if target.origin() != base.origin() || !target.path().starts_with(base.path()) {
                continue;
            }
            let path = &target.path()[base.path().len()..];
            uri_paths.insert(format!("/{path}"));
            let path = percent_encoding::percent_decode_str(path)
                .decode_utf8()
                .unwrap()
                .into_owned();
            // Pretty URLs: a folder's object is its index.html (S3 website hosting's index
            // document, the CloudFront function of the README).
            let key = if path.is_empty() || path.ends_with('/') {
                format!("{path}index.html")
            } else {
                path
            };
            if !bucket.contains_key(&key) {
                missing.push(format!("{rel} → {link} ({key})"));
            }
            checked.insert(key);
        }
    }
    assert!(missing.is_empty(), "links to no object: {missing:#?}");
    assert!(checked.len() > 50, "only {} link targets", checked.len());

    // The README's CloudFront Function maps the same URLs to the same objects (run by node, as
    // CloudFront's JavaScript runtime would; the viewer's URI arrives percent-encoded).
    let uris: Vec<String> = std::iter::once("/".to_string())
        .chain(uri_paths.iter().cloned())
        .chain(["/2021/07/20/0800".to_string(), "/style.css".to_string()])
        .collect();
    let rewritten = cloudfront_function(&uris);
    assert_eq!(rewritten.len(), uris.len());
    for (uri, out) in uris.iter().zip(&rewritten) {
        if uri == "/2021/07/20/0800" {
            assert_eq!(
                out, "301 /2021/07/20/0800/",
                "a folder without its slash is redirected"
            );
            continue;
        }
        let key = percent_encoding::percent_decode_str(out.trim_start_matches('/'))
            .decode_utf8()
            .unwrap()
            .into_owned();
        assert!(bucket.contains_key(&key), "{uri} → {out}: no such object");
    }
}

/// Runs docs/deploy/cloudfront-index.js on each viewer URI: the rewritten URI, or
/// `301 LOCATION` for a redirect.
fn cloudfront_function(uris: &[String]) -> Vec<String> {
    let function = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/deploy/cloudfront-index.js");
    let script = r#"
const src = require('fs').readFileSync(process.argv[1], 'utf8');
const handler = new Function(src + '; return handler;')();
const out = require('fs').readFileSync(0, 'utf8').split('\n').filter(Boolean).map((uri) => {
  const r = handler({ request: { method: 'GET', uri, headers: {}, querystring: {} } });
  return r.statusCode ? r.statusCode + ' ' + r.headers.location.value : r.uri;
});
process.stdout.write(out.join('\n') + '\n');
"#;
    let mut child = Command::new("node")
        .args(["-e", script])
        .arg(&function)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run node (scripts/setup installs nodejs)");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(uris.join("\n").as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn init_deploy_s3_writes_a_workflow_that_fetches_commits_builds_and_deploys() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_matome"))
        .args(["init", "--deploy", "s3"])
        .arg(dir.path())
        .env("CI", "true")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(dir.path().join(".github/workflows/matome.yml")).unwrap();
    assert_eq!(text, matome::init::WORKFLOW_S3);
    let config = matome::config::Config::load(dir.path()).unwrap();
    assert!(config.deploy.is_some(), "matome.toml has a [deploy] table");

    let wf = &YamlLoader::load_from_str(&text).expect("workflow YAML parses")[0];
    assert_eq!(wf["on"]["schedule"][0]["cron"].as_str(), Some("17 * * * *"));
    assert_eq!(
        wf["concurrency"]["cancel-in-progress"].as_bool(),
        Some(false)
    );
    let steps = |job: &str| wf["jobs"][job]["steps"].as_vec().expect("steps");
    let run_index = |job: &str, needle: &str| {
        steps(job)
            .iter()
            .position(|s| s["run"].as_str().is_some_and(|r| r.contains(needle)))
            .unwrap_or_else(|| panic!("no step of {job} runs {needle:?}"))
    };
    let (fetch, build) = (
        run_index("update", "matome fetch"),
        run_index("update", "matome build"),
    );
    assert!(fetch < build);
    run_index("commit", "git commit");
    let deploy = run_index("deploy", "matome deploy");
    let needs = wf["jobs"]["deploy"]["needs"].as_vec().unwrap();
    assert_eq!(needs.len(), 2, "after the update and the commit: {needs:?}");
    crate::init_check::assert_caches(steps("update"));
    let env = &steps("deploy")[deploy]["env"];
    for secret in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] {
        assert_eq!(
            env[secret].as_str(),
            Some(format!("${{{{ secrets.{secret} }}}}").as_str()),
            "{secret} comes from the repository's secrets"
        );
    }
    // No GitHub Pages steps in this variant.
    assert!(!text.contains("deploy-pages") && !text.contains("upload-pages-artifact"));
}

#[test]
fn s3s_fs_reports_the_md5_of_an_object_as_its_etag() {
    // Guards the premise of comparing by ETag: s3s-fs (like S3) reports the MD5 of a PUT object.
    let server = S3Server::start();
    let store = server.client();
    let body = b"hello, bucket".to_vec();
    let e_tag = rt().block_on(async {
        store
            .put(&ObjectPath::from("x/probe.txt"), body.clone().into())
            .await
            .unwrap()
            .e_tag
            .unwrap()
    });
    let md5: String = Md5::digest(&body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(e_tag.trim_matches('"'), md5);
}
