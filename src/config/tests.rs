//! Unit tests of `config.rs` (kept beside it so the file itself reads as the code).
use super::deploy::parse_bucket_url;
use super::*;

const MINIMAL: &str = r#"
title = "テックニュースまとめ"
base_url = "https://user.github.io/repo/"
language = "ja"
timezone = "Asia/Tokyo"

[[feeds]]
url = "https://rss.itmedia.co.jp/rss/2.0/itmedia_all.xml"
category = "IT"
site = "ITmedia 総合記事一覧"

[[feeds]]
url = "https://example.com/feed"
category = "海外TECH"
"#;

#[test]
fn parses_the_design_example() {
    let c = Config::parse(MINIMAL, "matome.toml").unwrap();
    assert_eq!(c.title, "テックニュースまとめ");
    assert_eq!(c.timezone, chrono_tz::Asia::Tokyo);
    assert_eq!(c.language, Language::Ja);
    assert_eq!(c.feeds.len(), 2);
    assert_eq!(c.feeds[0].site.as_deref(), Some("ITmedia 総合記事一覧"));
    assert_eq!(c.feeds[1].site, None);
    assert_eq!(c.fetch, FetchSettings::default());
    assert_eq!(c.theme, "default");
}

#[test]
fn unknown_key_names_key_and_line() {
    let text = MINIMAL.replace("category = \"IT\"", "category = \"IT\"\ncolour = \"red\"");
    let err = Config::parse(&text, "matome.toml").unwrap_err().to_string();
    assert!(err.contains("colour"), "{err}");
    assert!(err.starts_with("matome.toml:10:"), "{err}");
}

#[test]
fn unknown_top_level_key_is_an_error() {
    let text = format!("titel = \"x\"\n{MINIMAL}");
    let err = Config::parse(&text, "matome.toml").unwrap_err().to_string();
    assert!(err.contains("titel"), "{err}");
    assert!(err.starts_with("matome.toml:1:"), "{err}");
}

#[test]
fn bad_timezone_names_line() {
    let text = MINIMAL.replace("Asia/Tokyo", "Tokyo/Japan");
    let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
    assert!(err.starts_with("m.toml:5:"), "{err}");
    assert!(err.contains("timezone"), "{err}");
}

#[test]
fn feed_url_must_be_http() {
    let text = MINIMAL.replace("https://example.com/feed", "ftp://example.com/feed");
    let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
    assert!(err.starts_with("m.toml:13:"), "{err}");
    assert!(err.contains("ftp"), "{err}");
}

#[test]
fn duplicate_feed_is_an_error() {
    let text = MINIMAL.replace(
        "https://example.com/feed",
        "https://rss.itmedia.co.jp/rss/2.0/itmedia_all.xml",
    );
    let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
    assert!(err.contains("listed twice"), "{err}");
}

#[test]
fn fetch_settings_override_defaults() {
    let text = format!("{MINIMAL}\n[fetch]\nconcurrency = 4\ntimeout = 2.5\n")
        .replace("[[feeds]]", "[[feeds]]");
    // [fetch] after [[feeds]] arrays is still a top-level table in TOML.
    let c = Config::parse(&text, "m.toml").unwrap();
    assert_eq!(c.fetch.concurrency, 4);
    assert_eq!(c.fetch.timeout, Duration::from_millis(2500));
    assert_eq!(c.fetch.per_host, 2);
}

/// `timeout = 1e300`, `concurrency = 9223372036854775807` and
/// `backoff_base = backoff_max = 1e15` panicked (Duration, Semaphore, date overflow);
/// `timeout = 0` failed every feed. Each is refused with the file, line and key.
#[test]
fn numeric_settings_out_of_range_are_refused_with_file_line_and_key() {
    let cases = [
        ("[fetch]\ntimeout = 1e300\n", "fetch.timeout"),
        (
            "[fetch]\ntimeout = 0\n",
            "fetch.timeout must be more than 0",
        ),
        ("[fetch]\nconnect_timeout = 0\n", "fetch.connect_timeout"),
        ("[fetch]\ntimeout = nan\n", "fetch.timeout"),
        ("[fetch]\ntimeout = -1\n", "fetch.timeout"),
        (
            "[fetch]\nconcurrency = 9223372036854775807\n",
            "fetch.concurrency",
        ),
        ("[fetch]\nper_host = -3\n", "fetch.per_host"),
        (
            "[fetch]\nbackoff_base = 1e15\nbackoff_max = 1e15\n",
            "fetch.backoff_base",
        ),
        (
            "[fetch]\nbackoff_base = 7200\nbackoff_max = 3600\n",
            "must not be more than",
        ),
        (
            "[fetch]\nmax_body_bytes = 9223372036854775807\n",
            "fetch.max_body_bytes",
        ),
        ("[fetch]\nmax_redirects = 1000\n", "fetch.max_redirects"),
        (
            "[fetch]\nretry_after_max_wait = 1e20\n",
            "fetch.retry_after_max_wait",
        ),
        (
            "[fetch]\nmax_items_per_feed = 0\n",
            "fetch.max_items_per_feed",
        ),
        ("[fetch]\nmax_text_chars = -1\n", "fetch.max_text_chars"),
        (
            "[fetch]\nmax_items_per_feed_day = 0\n",
            "fetch.max_items_per_feed_day",
        ),
        (
            "[fetch]\nmax_bytes_per_feed_day = 999\n",
            "fetch.max_bytes_per_feed_day",
        ),
        (
            "[fetch]\nmax_bytes_per_feed_day = 1e13\n",
            "fetch.max_bytes_per_feed_day",
        ),
        (
            "[build]\nkeyword_min_sites = 0\n",
            "build.keyword_min_sites",
        ),
        ("[analyze]\nkeywords = 100000000\n", "analyze.keywords"),
        (
            "[build]\nitems_per_page = 9223372036854775807\n",
            "build.items_per_page",
        ),
        ("[trends]\nmin_count = -1\n", "trends.min_count"),
        ("[trends]\nmin_score = inf\n", "trends.min_score"),
        ("[trends]\ncloud_words = 1e9\n", "cloud_words"),
    ];
    for (table, key) in cases {
        let text = format!("{MINIMAL}\n{table}");
        let line = MINIMAL.lines().count() + 3;
        let err = Config::parse(&text, "matome.toml")
            .map(|c| format!("accepted: {:?}", c.fetch))
            .unwrap_or_else(|e| e.to_string());
        assert!(err.starts_with("matome.toml:"), "{table}: {err}");
        assert!(err.contains(key), "{table}: {err}");
        assert!(
            err.starts_with(&format!("matome.toml:{line}:"))
                || err.starts_with(&format!("matome.toml:{}:", line + 1)),
            "{table}: {err}"
        );
    }
    // The ends of each range are accepted.
    let text = format!(
        "{MINIMAL}\n[fetch]\nconcurrency = 1024\ntimeout = 0.5\nbackoff_base = 604800\nbackoff_max = 2592000\nmax_redirects = 0\n"
    );
    let c = Config::parse(&text, "matome.toml").unwrap();
    assert_eq!(c.fetch.concurrency, 1024);
    assert_eq!(c.fetch.max_redirects, 0);
    // What bounds one feed (issue 21): its daily items and the sites a keyword page needs.
    let c = Config::parse(MINIMAL, "matome.toml").unwrap();
    assert_eq!(c.fetch.max_items_per_feed_day, 200);
    assert_eq!(c.fetch.max_bytes_per_feed_day, 330_000);
    let text = format!("{MINIMAL}\n[fetch]\nmax_bytes_per_feed_day = 1000000000000\n");
    let c = Config::parse(&text, "matome.toml").unwrap();
    assert_eq!(c.fetch.max_bytes_per_feed_day, 1_000_000_000_000);
    assert_eq!(c.build.keyword_min_sites, 2);
}

#[test]
fn deploy_throttle_wait_has_a_default_and_a_range() {
    let deploy = |extra: &str| {
        Config::parse(
            &format!("{MINIMAL}\n[deploy]\nurl = \"s3://b/p\"\n{extra}"),
            "matome.toml",
        )
    };
    let d = deploy("").unwrap().deploy.unwrap();
    assert_eq!(d.throttle_wait, std::time::Duration::from_secs(300));
    let d = deploy("throttle_wait = 0\n").unwrap().deploy.unwrap();
    assert_eq!(d.throttle_wait, std::time::Duration::ZERO);
    let err = deploy("throttle_wait = 3601\n").unwrap_err().to_string();
    assert!(
        err.contains("deploy.throttle_wait must be at least 0 and at most 3600"),
        "{err}"
    );
    assert!(deploy("throttle_wait = 1.5\n").is_err(), "whole seconds");
}

#[test]
fn deploy_table_is_parsed_with_defaults() {
    let text = format!(
        "{MINIMAL}\n[deploy]\nurl = \"s3://news-site/archive/\"\nendpoint = \"http://127.0.0.1:9000/\"\n"
    );
    let c = Config::parse(&text, "m.toml").unwrap();
    let d = c.deploy.unwrap();
    assert_eq!(
        (d.bucket.as_str(), d.prefix.as_str()),
        ("news-site", "archive")
    );
    assert_eq!(d.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
    assert_eq!(d.concurrency, super::settings::DEPLOY_CONCURRENCY.usize());
    assert_eq!(d.cache_control, DeploySettings::DEFAULT_CACHE_CONTROL);
    assert!(Config::parse(MINIMAL, "m.toml").unwrap().deploy.is_none());
}

#[test]
fn deploy_errors_name_key_and_line() {
    let text = format!("{MINIMAL}\n[deploy]\nurl = \"https://bucket\"\n");
    let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
    assert!(
        err.starts_with("m.toml:17:") && err.contains("deploy.url"),
        "{err}"
    );
    let text = format!("{MINIMAL}\n[deploy]\nurl = \"s3://b\"\nbucket = \"b\"\n");
    let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
    assert!(
        err.starts_with("m.toml:18:") && err.contains("bucket"),
        "{err}"
    );
    let text = format!("{MINIMAL}\n[deploy]\nurl = \"s3://b\"\nconcurrency = 0\n");
    let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
    assert!(err.contains("deploy.concurrency"), "{err}");
    let text = format!("{MINIMAL}\n[deploy]\nurl = \"s3://b\"\nretries = 1000000000000\n");
    let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
    assert!(
        err.starts_with("m.toml:18:") && err.contains("deploy.retries"),
        "{err}"
    );
    assert!(parse_bucket_url("s3://Bad_Bucket").is_err());
    assert!(parse_bucket_url("s3://b/a/../c").is_err());
    assert_eq!(parse_bucket_url("s3://b"), Ok(("b".into(), String::new())));
}

#[test]
fn zero_concurrency_is_refused() {
    let text = format!("{MINIMAL}\n[fetch]\nconcurrency = 0\n");
    let err = Config::parse(&text, "m.toml").unwrap_err().to_string();
    assert!(err.contains("fetch.concurrency"), "{err}");
}

#[test]
fn run_timeout_has_a_range() {
    let parse = |v: &str| {
        Config::parse(
            &format!("{MINIMAL}\n[fetch]\nrun_timeout = {v}\n"),
            "m.toml",
        )
    };
    assert_eq!(
        parse("90").unwrap().fetch.run_timeout,
        Duration::from_secs(90)
    );
    assert_eq!(
        parse("2.5").unwrap().fetch.run_timeout,
        Duration::from_millis(2500)
    );
    for bad in ["0", "0.5", "-1", "1e300", "nan", "inf", "86401"] {
        let err = parse(bad).unwrap_err().to_string();
        assert!(err.starts_with("m.toml:17:"), "{bad}: {err}");
        assert!(
            err.contains("fetch.run_timeout") && err.contains("at least 1 and at most 86400"),
            "{bad}: {err}"
        );
    }
}
