//! `matome publish` and `matome alert` against real servers on 127.0.0.1: the recording
//! servers of [`crate::publish_services`] (Bluesky, Mastodon, Slack, Discord, a signed webhook,
//! X, Hatena Bookmark, each checking what it receives against the service's documented
//! contract) and a real SMTP server (Python's aiosmtpd) with STARTTLS and AUTH for alert mail.
//! What posts and alerts guarantee (inert text, limits, dropped and stale posts, exactly once)
//! is in `publish_guarantees.rs`; X and Hatena Bookmark in `publish_oauth.rs`.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Value, json};
use unicode_segmentation::UnicodeSegmentation;

use crate::publish_services::*;
use crate::support::{FeedSpec, Site, TestServer};

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[test]
fn each_new_digest_is_posted_once_per_target_across_runs_reruns_and_overlaps() {
    let (services, rec) = start();
    let site = publish_site(&rec, "");
    let env = envs(&rec);
    digest(&site, "2021-07-20T08:00:00+09:00");

    // First run: every target records the newest digest as its mark and posts nothing, so an
    // existing archive does not flood a new account.
    let out = publish(&site, &env, "2021-07-20T08:30:00+09:00", &[]);
    out.assert_success();
    assert_eq!(rec.count(), 0, "{}", out.combined());
    assert!(out.stdout.contains("new target"), "{}", out.stdout);
    let state: Value = serde_json::from_str(&site.read("publish-state.json")).unwrap();
    assert_eq!(
        state["targets"]["bluesky"]["since"],
        "2021-07-20T08:00:00+09:00"
    );

    // Run 2: one new digest, one post per target; a rerun posts nothing.
    digest(&site, "2021-07-20T09:00:00+09:00");
    let out = publish(&site, &env, "2021-07-20T09:30:00+09:00", &[]);
    out.assert_success();
    assert_eq!(counts(&services), [1; 5], "{}", out.combined());
    let before = rec.count();
    publish(&site, &env, "2021-07-20T09:40:00+09:00", &[]).assert_success();
    assert_eq!(rec.count(), before, "a rerun sends nothing");

    // Run 3: two new digests, posted in order; then two overlapping runs for one more.
    digest(&site, "2021-07-20T10:00:00+09:00");
    digest(&site, "2021-07-20T11:00:00+09:00");
    publish(&site, &env, "2021-07-20T11:30:00+09:00", &[]).assert_success();
    assert_eq!(counts(&services), [3; 5]);
    digest(&site, "2021-07-20T12:00:00+09:00");
    std::thread::scope(|s| {
        let a = s.spawn(|| publish(&site, &env, "2021-07-20T12:30:00+09:00", &[]));
        let b = s.spawn(|| publish(&site, &env, "2021-07-20T12:30:00+09:00", &[]));
        a.join().unwrap().assert_success();
        b.join().unwrap().assert_success();
    });
    assert_eq!(counts(&services), [4; 5], "overlapping runs post once");
    let before = rec.count();
    publish(&site, &env, "2021-07-20T12:40:00+09:00", &[]).assert_success();
    assert_eq!(rec.count(), before);

    // What was posted: each digest's URL under base_url, in order, with its 頻出ワード as tags.
    let hooks = services.accepted("webhook");
    let urls: Vec<&str> = hooks.iter().map(|h| h["url"].as_str().unwrap()).collect();
    assert_eq!(
        urls,
        [
            "https://curator.github.io/news/2021/07/20/0900/",
            "https://curator.github.io/news/2021/07/20/1000/",
            "https://curator.github.io/news/2021/07/20/1100/",
            "https://curator.github.io/news/2021/07/20/1200/",
        ]
    );
    let h = &hooks[0];
    assert_eq!(h["event"], "digest");
    assert_eq!(h["id"], "digest:2021-07-20T09:00:00+09:00");
    assert_eq!(h["heading"], "RSSフィード2021-07-20 09:00 分まとめ(3件)");
    assert_eq!(h["items"], 3);
    assert_eq!(h["keywords"][0], "生成AI", "the most frequent first");
    assert_eq!(h["hashtags"], json!(["生成AI", "社内文書", "大手損保"]));

    let records = services.records.lock().unwrap();
    let first = records.values().next().unwrap();
    let text = first["text"].as_str().unwrap();
    assert_eq!(
        text,
        "RSSフィード2021-07-20 09:00 分まとめ(3件)\nhttps://curator.github.io/news/2021/07/20/0900/\n#生成AI #社内文書 #大手損保"
    );
    let tags: Vec<&str> = first["facets"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["features"][0]["tag"].as_str())
        .collect();
    assert_eq!(tags, ["生成AI", "社内文書", "大手損保"]);
    assert_eq!(
        first["embed"]["external"]["uri"],
        "https://curator.github.io/news/2021/07/20/0900/"
    );
    assert_eq!(first["langs"], json!(["ja"]));
    let statuses = services.statuses.lock().unwrap();
    assert!(
        statuses
            .values()
            .all(|s| s["visibility"] == "public" && s["language"] == "ja")
    );
    let discord = services.accepted("discord");
    assert!(discord[0]["content"].as_str().unwrap().contains("#生成AI"));
    let slack = services.accepted("slack");
    assert!(
        slack[0]["text"]
            .as_str()
            .unwrap()
            .contains("/2021/07/20/0900/")
    );
}

#[test]
fn a_target_answering_500_is_retried_next_run_and_nothing_is_posted_twice() {
    let (services, rec) = start();
    let site = publish_site(&rec, "");
    let env = envs(&rec);
    digest(&site, "2021-07-20T08:00:00+09:00");
    publish(&site, &env, "2021-07-20T08:30:00+09:00", &[]).assert_success();
    digest(&site, "2021-07-20T09:00:00+09:00");

    // Mastodon stores the status but the answer is lost; Bluesky too (matome finds the record
    // by its key); Slack and the webhook fail outright.
    services.fail_next("mastodon", Fail::AfterStoring);
    services.fail_next("bluesky", Fail::AfterStoring);
    services.fail_next("slack", Fail::Error);
    services.fail_next("webhook", Fail::Error);
    let out = publish(&site, &env, "2021-07-20T09:30:00+09:00", &["--strict"]);
    assert_eq!(
        out.code,
        Some(1),
        "--strict: a failed target exits 1\n{}",
        out.combined()
    );
    assert!(
        out.stderr.contains(
            "error: publish mastodon: posting digest:2021-07-20T09:00:00+09:00: HTTP 500"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("error: publish slack:"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout
            .contains("bluesky: posted digest:2021-07-20T09:00:00+09:00"),
        "{}",
        out.stdout
    );
    let state: Value = serde_json::from_str(&site.read("publish-state.json")).unwrap();
    assert_eq!(state["targets"]["mastodon"]["consecutive_failures"], 1);
    assert!(
        state["targets"]["mastodon"]["last_error"]
            .as_str()
            .unwrap()
            .contains("HTTP 500")
    );
    assert_eq!(state["targets"]["bluesky"]["consecutive_failures"], 0);

    // The next run retries the failed targets only; without --strict failures exit 0.
    let out = publish(&site, &env, "2021-07-20T10:05:00+09:00", &[]);
    out.assert_success();
    assert_eq!(counts(&services), [1; 5], "{}", out.combined());
    let posts = rec.requests("/api/v1/statuses");
    assert_eq!(posts.len(), 2, "Mastodon was asked twice ...");
    assert_eq!(
        posts[0].header("idempotency-key"),
        posts[1].header("idempotency-key"),
        "... with the same Idempotency-Key, so it made one status"
    );
    assert_eq!(rec.requests("/xrpc/com.atproto.repo.createRecord").len(), 1);
    assert_eq!(rec.requests("/xrpc/com.atproto.repo.getRecord").len(), 1);
    let state: Value = serde_json::from_str(&site.read("publish-state.json")).unwrap();
    for t in ["bluesky", "mastodon", "slack", "discord", "webhook"] {
        assert_eq!(state["targets"][t]["consecutive_failures"], 0, "{t}");
        assert_eq!(
            state["targets"][t]["last_post"], "digest:2021-07-20T09:00:00+09:00",
            "{t}"
        );
    }
    // A target failing again and again backs off (it is not hammered every run).
    services.fail_next("webhook", Fail::Error);
    services.fail_next("webhook", Fail::Error);
    digest(&site, "2021-07-20T11:00:00+09:00");
    publish(&site, &env, "2021-07-20T11:05:00+09:00", &[]).assert_success();
    publish(&site, &env, "2021-07-20T11:10:00+09:00", &[]).assert_success();
    let out = publish(&site, &env, "2021-07-20T11:15:00+09:00", &[]);
    assert!(
        out.stdout.contains("webhook: deferred after 2 failure(s)"),
        "{}",
        out.stdout
    );
    assert_eq!(services.accepted("webhook").len(), 1);
    publish(&site, &env, "2021-07-20T14:00:00+09:00", &[]).assert_success();
    assert_eq!(counts(&services), [2; 5]);
}

#[test]
fn a_long_japanese_heading_and_many_hashtags_stay_within_each_limit() {
    let (services, rec) = start();
    *services.mastodon_limit.lock().unwrap() = 200; // read from /api/v2/instance
    let site = publish_site(&rec, "hashtags = 40\n");
    // The site's own template makes a very long heading (overriding the built-in one).
    site.write(
        "templates/publish/post.txt",
        "{% for i in range(end=90) %}{{ heading }}🎌{% endfor %}\n{{ url }}\n{% for tag in hashtags %}#{{ tag }} {% endfor %}\n",
    );
    let env = envs(&rec);
    digest(&site, "2021-07-20T08:00:00+09:00");
    publish(&site, &env, "2021-07-20T08:30:00+09:00", &[]).assert_success();
    let words: Vec<String> = (0..40)
        .map(|i| format!("気候変動対応オペレーション第{i}号"))
        .collect();
    let kws: Vec<&str> = words.iter().map(String::as_str).collect();
    write_digest(
        &site,
        "2021-07-20T09:00:00+09:00",
        &[("長い見出しの記事", &kws)],
    );
    let out = publish(&site, &env, "2021-07-20T09:30:00+09:00", &[]);
    out.assert_success();
    assert_eq!(counts(&services), [1; 5], "{}", out.combined());
    let url = "https://curator.github.io/news/2021/07/20/0900/";

    let records = services.records.lock().unwrap();
    let rec0 = records.values().next().unwrap();
    let text = rec0["text"].as_str().unwrap();
    assert!(text.graphemes(true).count() <= 300);
    assert!(
        text.contains(&format!("…🎌\n{url}")),
        "the heading is shortened, the link kept: {text}"
    );
    check_bluesky_record(rec0).unwrap();

    let statuses = services.statuses.lock().unwrap();
    let status = statuses.values().next().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(mastodon_len(&status) <= 200, "{status}");
    assert!(status.contains(url));

    let discord = services.accepted("discord");
    let content = discord[0]["content"].as_str().unwrap();
    assert!(content.encode_utf16().count() <= 2000);
    assert!(content.contains(url));
    let slack = services.accepted("slack");
    assert!(
        slack[0]["blocks"][0]["text"]["text"]
            .as_str()
            .unwrap()
            .chars()
            .count()
            <= 3000
    );
    // Where room allows, tags stay: Discord's 2000 characters hold the heading cut and a few.
    let hook = &services.accepted("webhook")[0];
    assert_eq!(
        hook["hashtags"].as_array().unwrap().len(),
        10,
        "the ten most frequent"
    );
    assert!(
        hook["text"]
            .as_str()
            .unwrap()
            .contains("#気候変動対応オペレーション第9号")
    );
}

#[test]
fn secrets_never_appear_in_output_or_files() {
    let (services, rec) = start();
    let site = publish_site(&rec, "");
    let mut env = envs(&rec);
    digest(&site, "2021-07-20T08:00:00+09:00");
    publish(&site, &env, "2021-07-20T08:30:00+09:00", &[]).assert_success();
    digest(&site, "2021-07-20T09:00:00+09:00");

    // Every service answers 500 with everything it received, secrets included; Discord's URL
    // points at a closed port, so the HTTP client's own error is about that URL.
    services.echo.store(true, Ordering::Relaxed);
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    env[3].1 = format!("http://127.0.0.1:{closed}{DISCORD_PATH}");
    let mut outputs = vec![publish(&site, &env, "2021-07-20T09:30:00+09:00", &[])];
    outputs.push(publish(&site, &env, "2021-07-20T09:35:00+09:00", &[]));
    assert!(
        outputs[0].stderr.contains("error: publish bluesky"),
        "{}",
        outputs[0].stderr
    );
    assert!(
        outputs[0].stderr.contains("error: publish discord"),
        "{}",
        outputs[0].stderr
    );
    services.echo.store(false, Ordering::Relaxed);
    env[3].1 = rec.url(DISCORD_PATH);
    outputs.push(publish(&site, &env, "2021-07-20T12:00:00+09:00", &[]));
    assert_eq!(counts(&services), [1; 5], "{}", outputs[2].combined());

    for out in &outputs {
        for s in SECRETS {
            assert!(
                !out.combined().contains(s),
                "{s} printed:\n{}",
                out.combined()
            );
        }
    }
    let mut files = 0;
    for e in walkdir::WalkDir::new(site.root()) {
        let e = e.unwrap();
        if e.file_type().is_file() {
            files += 1;
            let bytes = std::fs::read(e.path()).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            for s in SECRETS {
                assert!(!text.contains(s), "{s} written to {}", e.path().display());
            }
        }
    }
    assert!(files > 3);
    // The echoed secrets were there, and replaced.
    let err = &outputs[0].stderr;
    assert!(
        err.contains(r#"\"password\":\"[redacted]\""#)
            || err.contains(r#""password":"[redacted]""#),
        "{err}"
    );
    assert!(err.contains("auth Some(\"Bearer [redacted]\")"), "{err}");
}

#[test]
fn a_missing_credential_fails_that_target_only_and_names_the_variable() {
    let (services, rec) = start();
    let site = publish_site(&rec, "");
    let mut env = envs(&rec);
    env.retain(|(k, _)| k != "MATOME_MASTODON_TOKEN");
    digest(&site, "2021-07-20T08:00:00+09:00");
    publish(&site, &env, "2021-07-20T08:30:00+09:00", &[]).assert_success();
    digest(&site, "2021-07-20T09:00:00+09:00");
    let out = publish(&site, &env, "2021-07-20T09:30:00+09:00", &[]);
    out.assert_success();
    assert!(
        out.stderr.contains("MATOME_MASTODON_TOKEN is not set"),
        "{}",
        out.stderr
    );
    assert_eq!(counts(&services), [1, 0, 1, 1, 1]);
}

#[test]
fn the_days_trend_words_are_posted_once_after_the_day() {
    let (services, rec) = start();
    let site = publish_site(&rec, "");
    // A trends feed is configured: its items (with volumes) make the day's trends post.
    let mut cfg = site.read("matome.toml");
    cfg = cfg.replacen("[[publish]]", "[[feeds]]\nurl = \"https://trends.example/rss\"\ncategory = \"トレンド\"\nkind = \"trends\"\n\n[[publish]]", 1);
    site.write_config_raw(&cfg);
    let env = envs(&rec);
    digest(&site, "2021-07-20T22:00:00+09:00");
    publish(&site, &env, "2021-07-20T22:30:00+09:00", &[]).assert_success();
    let h = "2021-07-20T23:00:00+09:00";
    let mut text = format!("+++\nhour = {h}\nupdated = {h}\n");
    for (i, (w, v)) in [("大谷翔平", 200000), ("台風", 50000)].iter().enumerate() {
        text.push_str(&format!("\n[[items]]\nid = \"trend:{w}\"\nfeed = \"https://trends.example/rss\"\ncategory = \"トレンド\"\nsite = \"Google トレンド\"\ntitle = \"{w}\"\nlink = \"https://trends.example/{i}\"\npublished = {h}\n\n[items.trend]\nvolume = {v}\n"));
    }
    text.push_str("+++\n");
    site.write("content/2021/07/20/2300.md", text);
    publish(&site, &env, "2021-07-20T23:30:00+09:00", &[]).assert_success();
    assert_eq!(
        services.accepted("webhook").len(),
        1,
        "the day is not over: no trends post yet"
    );
    digest(&site, "2021-07-21T00:00:00+09:00");
    publish(&site, &env, "2021-07-21T00:30:00+09:00", &[]).assert_success();
    publish(&site, &env, "2021-07-21T00:40:00+09:00", &[]).assert_success();
    let hooks = services.accepted("webhook");
    let ids: Vec<&str> = hooks.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "digest:2021-07-20T23:00:00+09:00",
            "trends:2021-07-20",
            "digest:2021-07-21T00:00:00+09:00"
        ]
    );
    assert_eq!(
        hooks[1]["trend_words"],
        json!([{"word": "大谷翔平", "volume": 200000}, {"word": "台風", "volume": 50000}])
    );
    assert_eq!(
        hooks[1]["url"],
        "https://curator.github.io/news/2021/07/20/"
    );
    let records = services.records.lock().unwrap();
    let trends = records
        .values()
        .find(|r| r["text"].as_str().unwrap().contains("トレンドワード"))
        .unwrap();
    assert!(
        trends["text"]
            .as_str()
            .unwrap()
            .contains("1. 大谷翔平 (200000+)"),
        "{}",
        trends["text"]
    );
}

// ---------------------------------------------------------------------------------------------
// Alerts: a real SMTP server with STARTTLS and AUTH
// ---------------------------------------------------------------------------------------------

const SMTP_SERVER: &str = r#"
import email, email.policy, json, ssl, sys, time
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
import logging, warnings
warnings.simplefilter("ignore")  # aiosmtpd 1.4 warns about its own use of login_data
logging.getLogger("mail.log").setLevel(logging.ERROR)
port, cert, key, out, user, password = sys.argv[1:7]
class Handler:
    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with open(out, "a") as f:
            f.write(json.dumps({"from": envelope.mail_from, "to": envelope.rcpt_tos,
                "subject": str(msg["subject"]), "data": msg.get_body().get_content(),
                "tls": session.ssl is not None, "authenticated": session.authenticated}) + "\n")
        return "250 OK"
def authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login == user.encode() \
        and auth_data.password == password.encode()
    return AuthResult(success=ok)
ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
ctx.load_cert_chain(cert, key)
c = Controller(Handler(), hostname="127.0.0.1", port=int(port), tls_context=ctx,
    require_starttls=True, authenticator=authenticator, auth_require_tls=True)
c.start()
print("READY", flush=True)
while True:
    time.sleep(1)
"#;

pub(crate) struct Smtp {
    child: std::process::Child,
    pub(crate) port: u16,
    mails: std::path::PathBuf,
    pub(crate) ca: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Smtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run_ok(cmd: &mut std::process::Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// aiosmtpd on 127.0.0.1 with STARTTLS required, its certificate issued by a CA made here.
pub(crate) fn smtp_server() -> Smtp {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    let openssl = || std::process::Command::new("openssl");
    run_ok(
        openssl()
            .args([
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=matome test CA",
            ])
            .arg("-keyout")
            .arg(p("ca.key"))
            .arg("-out")
            .arg(p("ca.pem")),
    );
    run_ok(
        openssl()
            .args([
                "req",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-subj",
                "/CN=127.0.0.1",
            ])
            .arg("-keyout")
            .arg(p("key.pem"))
            .arg("-out")
            .arg(p("leaf.csr")),
    );
    std::fs::write(
        p("ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    run_ok(
        openssl()
            .args(["x509", "-req", "-days", "2", "-CAcreateserial"])
            .arg("-in")
            .arg(p("leaf.csr"))
            .arg("-CA")
            .arg(p("ca.pem"))
            .arg("-CAkey")
            .arg(p("ca.key"))
            .arg("-extfile")
            .arg(p("ext"))
            .arg("-out")
            .arg(p("cert.pem")),
    );
    std::fs::write(p("smtp.py"), SMTP_SERVER).unwrap();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // Debian's python3-aiosmtpd lives under the system interpreter.
    let python = if std::path::Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    };
    let mut child = std::process::Command::new(python)
        .arg(p("smtp.py"))
        .arg(port.to_string())
        .arg(p("cert.pem"))
        .arg(p("key.pem"))
        .arg(p("mails.jsonl"))
        .args(["alerts@example.jp", "smtp-pass-S3CRET6"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .expect("python3 with aiosmtpd (scripts/setup installs python3-aiosmtpd)");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "READY", "aiosmtpd did not start");
    Smtp {
        child,
        port,
        mails: p("mails.jsonl"),
        ca: p("ca.pem"),
        _dir: dir,
    }
}

pub(crate) fn mails(smtp: &Smtp) -> Vec<Value> {
    std::fs::read_to_string(&smtp.mails)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn an_alert_is_sent_once_for_a_feed_failing_a_day_and_once_on_recovery() {
    let smtp = smtp_server();
    let (services, rec) = start();
    let feeds = TestServer::new();
    feeds.route("/feed.xml", crate::support::Response::fixture("rss2.xml"));
    let mut site = Site::new();
    site.config.append = format!(
        "[alerts]\nwebhook_env = \"ALERT_HOOK\"\n\n[alerts.email]\nhost = \"127.0.0.1\"\nport = {}\nfrom = \"matome <bot@example.jp>\"\nto = [\"curator@example.jp\"]\nca_file = \"ca.pem\"\n",
        smtp.port
    );
    site.write_config(&[FeedSpec::new(&feeds.url("/feed.xml"), "IT")]);
    std::fs::copy(&smtp.ca, site.path("ca.pem")).unwrap();
    let hook = rec.url("/alert");
    let env = [
        ("ALERT_HOOK", hook.as_str()),
        ("MATOME_SMTP_USER", "alerts@example.jp"),
        ("MATOME_SMTP_PASSWORD", "smtp-pass-S3CRET6"),
    ];
    let run = |args: &[&str]| {
        let out = site.matome_with(args, &env, Duration::from_secs(60));
        assert_eq!(out.code, Some(0), "{}", out.combined());
        assert!(!out.combined().contains("smtp-pass-S3CRET6"));
        out
    };
    let fetch = |now: &str| {
        site.matome_with(&["fetch", "--now", now], &[], Duration::from_secs(60));
    };

    fetch("2021-07-20T08:10:00+09:00"); // works: the feed's last success
    feeds.route("/feed.xml", crate::support::Response::status(500));
    fetch("2021-07-20T09:10:00+09:00");
    run(&["alert", "--now", "2021-07-20T09:15:00+09:00"]);
    assert!(
        mails(&smtp).is_empty(),
        "failing for an hour is not yet a problem"
    );
    fetch("2021-07-21T09:10:00+09:00");
    let out = run(&["alert", "--now", "2021-07-21T09:15:00+09:00"]);
    assert!(
        out.stdout.contains("alert sent (email)"),
        "{}",
        out.combined()
    );
    let m = mails(&smtp);
    assert_eq!(m.len(), 1);
    assert_eq!(m[0]["tls"], true, "STARTTLS");
    assert_eq!(m[0]["authenticated"], true);
    assert_eq!(m[0]["to"], json!(["curator@example.jp"]));
    assert_eq!(m[0]["from"], "bot@example.jp");
    let data = m[0]["data"].as_str().unwrap();
    assert!(data.contains(&feeds.url("/feed.xml")), "{data}");
    assert!(
        data.contains("has failed since 2021-07-20T08:10:00+09:00"),
        "{data}"
    );

    // Still failing, hours later: no second alert.
    run(&["alert", "--now", "2021-07-21T10:15:00+09:00"]);
    fetch("2021-07-21T12:10:00+09:00");
    run(&["alert", "--now", "2021-07-21T12:15:00+09:00"]);
    assert_eq!(mails(&smtp).len(), 1);

    // It recovers: one recovery message, then silence.
    feeds.route("/feed.xml", crate::support::Response::fixture("rss2.xml"));
    fetch("2021-07-21T16:10:00+09:00");
    run(&["alert", "--now", "2021-07-21T16:15:00+09:00"]);
    run(&["alert", "--now", "2021-07-21T17:15:00+09:00"]);
    let m = mails(&smtp);
    assert_eq!(m.len(), 2);
    assert!(
        m[1]["data"].as_str().unwrap().contains("recovered"),
        "{}",
        m[1]["data"]
    );

    // A failed build step, reported by the workflow: at once, once, and its recovery.
    run(&[
        "alert",
        "--step",
        "build=failure",
        "--now",
        "2021-07-21T18:15:00+09:00",
    ]);
    run(&[
        "alert",
        "--step",
        "build=failure",
        "--now",
        "2021-07-21T19:15:00+09:00",
    ]);
    run(&[
        "alert",
        "--step",
        "build=success",
        "--now",
        "2021-07-21T20:15:00+09:00",
    ]);
    let m = mails(&smtp);
    assert_eq!(m.len(), 4);
    assert!(m[2]["data"].as_str().unwrap().contains("build step failed"));
    assert!(m[3]["data"].as_str().unwrap().contains("recovered"));

    // The webhook got the same four, each an event of its own.
    let events: Vec<(String, String)> = services
        .accepted("alert")
        .iter()
        .map(|v| {
            (
                v["event"].as_str().unwrap().into(),
                v["problem"].as_str().unwrap().into(),
            )
        })
        .collect();
    let feed_key = format!("feed:{}", feeds.url("/feed.xml"));
    assert_eq!(
        events,
        [
            ("problem".to_string(), feed_key.clone()),
            ("recovered".to_string(), feed_key),
            ("problem".to_string(), "step:build".to_string()),
            ("recovered".to_string(), "step:build".to_string()),
        ]
    );
    let state = site.read("publish-state.json");
    assert!(!state.contains("smtp-pass"), "{state}");
    assert!(
        state.contains("\"alerts\": {}"),
        "every problem closed: {state}"
    );
}

#[test]
fn init_writes_the_publish_job_commented_out_and_it_parses_once_uncommented() {
    use yaml_rust2::YamlLoader;
    for wf in [matome::init::WORKFLOW, matome::init::WORKFLOW_S3] {
        // As written it is all comments: the active workflow has no publish job.
        let docs = YamlLoader::load_from_str(wf).unwrap();
        assert!(docs[0]["jobs"]["publish"].is_badvalue());
        let uncommented = crate::workflow::with_publish_jobs(wf);
        let docs = YamlLoader::load_from_str(&uncommented).expect("the uncommented job parses");
        let job = &docs[0]["jobs"]["publish"];
        let needs: Vec<&str> = job["needs"]
            .as_vec()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        assert_eq!(needs, ["update", "commit", "deploy"], "after the deploy");
        assert_eq!(job["if"].as_str(), Some("always()"));
        let steps = job["steps"].as_vec().unwrap();
        let run = |needle: &str| {
            steps
                .iter()
                .position(|s| s["run"].as_str().is_some_and(|r| r.contains(needle)))
                .unwrap_or_else(|| panic!("no step runs {needle:?}"))
        };
        let (publish, alert) = (run("matome publish"), run("matome alert"));
        assert!(publish < alert);
        // What was posted is committed by a job of its own, the one that may push.
        let commit = &docs[0]["jobs"]["publish-commit"];
        assert_eq!(commit["needs"].as_str(), Some("publish"));
        assert_eq!(commit["permissions"]["contents"].as_str(), Some("write"));
        assert!(commit["steps"].as_vec().unwrap().iter().any(|s| {
            s["run"]
                .as_str()
                .is_some_and(|r| r.contains("git add publish-state.json"))
        }));
        if wf == matome::init::WORKFLOW {
            assert_eq!(
                steps[publish]["env"]["PAGE_URL"].as_str(),
                Some("${{ needs.deploy.outputs.page_url }}")
            );
            assert_eq!(
                docs[0]["jobs"]["deploy"]["outputs"]["page_url"].as_str(),
                Some("${{ steps.deployment.outputs.page_url }}")
            );
        }
        // Every secret a target or alert reads, by its default name, from the repository's
        // secrets.
        let env = |i: usize| {
            steps[i]["env"]
                .as_hash()
                .unwrap()
                .keys()
                .map(|k| k.as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        let mut names = env(publish);
        names.extend(env(alert));
        for v in [
            "MATOME_BLUESKY_APP_PASSWORD",
            "MATOME_MASTODON_TOKEN",
            "MATOME_SLACK_WEBHOOK_URL",
            "MATOME_DISCORD_WEBHOOK_URL",
            "MATOME_WEBHOOK_URL",
            "MATOME_WEBHOOK_SECRET",
            "MATOME_X_CONSUMER_KEY",
            "MATOME_X_CONSUMER_SECRET",
            "MATOME_X_ACCESS_TOKEN",
            "MATOME_X_ACCESS_TOKEN_SECRET",
            "MATOME_HATENA_CONSUMER_KEY",
            "MATOME_HATENA_CONSUMER_SECRET",
            "MATOME_HATENA_ACCESS_TOKEN",
            "MATOME_HATENA_ACCESS_TOKEN_SECRET",
            "MATOME_ALERT_WEBHOOK_URL",
            "MATOME_SMTP_USER",
            "MATOME_SMTP_PASSWORD",
        ] {
            assert!(names.iter().any(|n| n == v), "{v} missing");
            assert!(
                uncommented.contains(&format!("{v}: ${{{{ secrets.{v} }}}}")),
                "{v} from secrets"
            );
        }
    }
}

#[test]
fn a_publish_target_failing_a_day_is_alerted_once_and_once_on_recovery() {
    let (services, rec) = start();
    let mut site = Site::new();
    site.config.base_url = BASE.into();
    // The webhook wants a signature; without its secret every post is refused (401).
    // Posts stay due for two days here (the default skips them after one: see
    // publish_guarantees.rs).
    site.config.append = format!(
        "[[publish]]\nkind = \"webhook\"\nurl = \"{}\"\nmax_age_hours = 48\n\n[alerts]\nwebhook_env = \"ALERT_HOOK\"\n",
        rec.url("/hook")
    );
    site.write_config(&[]);
    let hook = rec.url("/alert");
    let mut env = vec![("ALERT_HOOK".to_string(), hook)];
    let alert = |env: &[(String, String)], now: &str| {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        site.matome_with(&["alert", "--now", now], &env, Duration::from_secs(60))
            .assert_success();
    };
    digest(&site, "2021-07-20T08:00:00+09:00");
    publish(&site, &env, "2021-07-20T08:30:00+09:00", &[]).assert_success();
    digest(&site, "2021-07-20T09:00:00+09:00");
    let out = publish(&site, &env, "2021-07-20T09:30:00+09:00", &[]);
    assert!(out.stderr.contains("HTTP 401"), "{}", out.stderr);
    alert(&env, "2021-07-20T10:00:00+09:00");
    assert!(
        services.accepted("alert").is_empty(),
        "an hour is not yet a problem"
    );
    publish(&site, &env, "2021-07-21T09:40:00+09:00", &[]);
    alert(&env, "2021-07-21T09:45:00+09:00");
    alert(&env, "2021-07-21T10:45:00+09:00");
    let alerts = services.accepted("alert");
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0]["problem"], "publish:webhook");
    assert!(
        alerts[0]["message"]
            .as_str()
            .unwrap()
            .contains("publishing to webhook has failed since 2021-07-20T09:30:00+09:00"),
        "{}",
        alerts[0]["message"]
    );
    env.push(("MATOME_WEBHOOK_SECRET".into(), HOOK_SECRET.into()));
    publish(&site, &env, "2021-07-21T12:00:00+09:00", &[]).assert_success();
    assert_eq!(services.accepted("webhook").len(), 1);
    alert(&env, "2021-07-21T12:05:00+09:00");
    alert(&env, "2021-07-21T13:05:00+09:00");
    let alerts = services.accepted("alert");
    assert_eq!(alerts.len(), 2);
    assert_eq!(alerts[1]["event"], "recovered");
}
