//! Fetch benchmark: many feeds over many hosts, served from loopback.
//!
//! 1,000 distinct RSS 2.0 feeds of 50 items each (Japanese and English titles, 200–600
//! character HTML descriptions, GUIDs, pubDates), each with an ETag and answered conditionally.
//! The real release binary runs three times against a fresh site:
//!
//! 1. first run: every feed is new, every item is archived (`--now 2021-07-20T08:28:58+09:00`);
//! 2. all-304 run: every feed answers 304 Not Modified (`--now 2021-07-20T09:28:58+09:00`);
//! 3. 10%-changed run: one feed in ten has 5 new items (and drops its 5 oldest, as a feed keeping
//!    its newest 50 does), the rest answer 304: the normal hourly case
//!    (`--now 2021-07-20T10:28:58+09:00`).
//!
//! For each run: wall time, CPU time and peak RSS of the `matome` process alone (`wait4`), the
//! feeds' outcome counts from its summary, and the snapshot file it wrote (size, items).
//!
//! Hosts: the default `[fetch]` settings are used (concurrency 16, per_host 2). Per-host limits
//! are keyed by host *and port*, so the feeds are spread round-robin over 50 test servers on 50
//! ports of 127.0.0.1 (20 feeds per "host"), as if they came from 50 sites; with one port the
//! run would be capped at 2 requests at a time. The server is the integration tests' std-only
//! HTTP/1.1 server (`tests/it/support/server.rs`): a thread per connection, `Connection: close`,
//! no TLS, no gzip unless asked for. Those differences from real sites are deliberate: the
//! benchmark measures matome, not the network.
//!
//! ```text
//! cargo bench --bench fetch                                  # 1,000 feeds × 50 items
//! MATOME_BENCH_FEEDS=100 MATOME_BENCH_ITEMS=20 cargo bench --bench fetch
//! cargo bench --bench fetch -- --feeds 100 --items 20        # the same
//! ```
//!
//! Other knobs (environment): `MATOME_BENCH_HOSTS` (50), `MATOME_BENCH_CHANGED_PCT` (10),
//! `MATOME_BENCH_NEW_ITEMS` (5), `MATOME_BENCH_GZIP=1` (serve gzip-compressed bodies),
//! `MATOME_BENCH_FRESH_CHECKOUT=1` (before the third run, remove everything from the site but
//! matome.toml, fetch-state.json and content/, as a scheduled CI job on a fresh clone sees it),
//! `MATOME_BENCH_KEEP=1` (keep the site folder and print its path), `MATOME_BENCH_WRAP="perf
//! record -g -o /tmp/fetch-%RUN%.data --"` (run matome under a profiler; `%RUN%` becomes 1, 2, 3;
//! the figures then include the wrapper).

#![allow(dead_code)]

#[path = "../tests/it/support/server.rs"]
mod server;

#[path = "common/mod.rs"]
mod common;
use common::{env_usize, self_cpu, tv};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use server::{Response, TestServer};

/// `server.rs` serves fixtures through `super::fixture`; the benchmark serves generated feeds.
fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/feeds")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("read fixture {}: {e}", p.display()))
}

// ---------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct Params {
    feeds: usize,
    items: usize,
    hosts: usize,
    changed_pct: usize,
    new_items: usize,
    gzip: bool,
    keep: bool,
    fresh_checkout: bool,
    wrap: Option<String>,
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

impl Params {
    fn from_env_and_args() -> Params {
        let mut p = Params {
            feeds: env_usize("MATOME_BENCH_FEEDS", 1000),
            items: env_usize("MATOME_BENCH_ITEMS", 50),
            hosts: env_usize("MATOME_BENCH_HOSTS", 50),
            changed_pct: env_usize("MATOME_BENCH_CHANGED_PCT", 10),
            new_items: env_usize("MATOME_BENCH_NEW_ITEMS", 5),
            gzip: env_flag("MATOME_BENCH_GZIP"),
            keep: env_flag("MATOME_BENCH_KEEP"),
            fresh_checkout: env_flag("MATOME_BENCH_FRESH_CHECKOUT"),
            wrap: std::env::var("MATOME_BENCH_WRAP")
                .ok()
                .filter(|s| !s.trim().is_empty()),
        };
        // `cargo bench` passes `--bench`; anything after `--` comes here too.
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            let mut num = |what: &str| -> usize {
                let v = args
                    .next()
                    .unwrap_or_else(|| panic!("{what} needs a number"));
                v.parse()
                    .unwrap_or_else(|_| panic!("{what} {v:?} is not a number"))
            };
            match a.as_str() {
                "--feeds" => p.feeds = num("--feeds"),
                "--items" => p.items = num("--items"),
                "--hosts" => p.hosts = num("--hosts"),
                _ => {} // --bench and libtest-style filters: ignored
            }
        }
        assert!(p.feeds >= 1 && p.items >= 1 && p.hosts >= 1, "{p:?}");
        p.hosts = p.hosts.min(p.feeds);
        p.new_items = p.new_items.min(p.items);
        p
    }

    /// Feeds that change before the third run: one in k, `changed_pct`% of them, spread over
    /// the hosts (feed f is on host f % hosts; shifting by the round f / hosts keeps a plain
    /// "every k-th feed" from landing on k-aligned hosts only, where per_host would serialise
    /// them).
    fn is_changed(&self, feed: usize) -> bool {
        if self.changed_pct == 0 {
            return false;
        }
        let every = (100 / self.changed_pct.min(100)).max(1);
        (feed + feed / self.hosts).is_multiple_of(every)
    }

    fn changed_count(&self) -> usize {
        (0..self.feeds).filter(|&f| self.is_changed(f)).count()
    }
}

// ---------------------------------------------------------------------------
// Feed generation (deterministic)
// ---------------------------------------------------------------------------

/// SplitMix64: small, fast, reproducible.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

#[rustfmt::skip]
const JA_NOUNS: &[&str] = &[
    "政府", "日本銀行", "東京都", "大阪府", "厚生労働省", "経済産業省", "新型コロナウイルス",
    "ワクチン接種", "半導体", "人工知能", "生成AI", "自動運転", "電気自動車", "株価", "円相場",
    "長期金利", "東京五輪", "代表選手", "気候変動", "再生可能エネルギー", "スマートフォン",
    "決算", "売上高", "営業利益", "研究チーム", "東京大学", "大手企業", "消費者", "物流業界",
    "訪日観光客", "地震", "台風", "大雨", "警報", "新製品", "サービス", "セキュリティ",
    "個人情報", "クラウド", "データセンター", "通信障害", "鉄道各社", "航空会社", "賃上げ",
    "物価", "住宅ローン", "選挙", "首相", "国会", "条例", "裁判所", "宇宙開発", "ロケット",
    "脱炭素", "蓄電池", "水素", "農業", "漁業", "少子化", "高齢者", "教育現場", "オンライン授業",
];
#[rustfmt::skip]
const JA_VERBS: &[&str] = &[
    "発表した", "明らかにした", "開始した", "検討している", "見直す方針だ", "上昇した",
    "下落した", "公開した", "導入する", "強化する", "延期した", "発売する", "調査した",
    "懸念を示した", "合意した", "中止を決めた", "過去最高となった", "前年を上回った",
    "注目を集めている", "拡大している",
];
#[rustfmt::skip]
const JA_LINKS: &[&str] = &[
    "について", "をめぐり", "に関して", "に向けて", "を受けて", "の影響で",
];

#[rustfmt::skip]
const EN_NOUNS: &[&str] = &[
    "the central bank", "regulators", "the government", "researchers", "a startup",
    "the chipmaker", "investors", "the city council", "lawmakers", "the company", "analysts",
    "the court", "engineers", "the open-source project", "the browser", "the smartphone maker",
    "the airline", "the union", "scientists", "the space agency", "the cloud provider",
    "the retailer", "the automaker", "consumers", "the Olympic committee", "the team",
    "the election board", "the ministry", "hackers", "the data center", "the semiconductor plant",
];
#[rustfmt::skip]
const EN_VERBS: &[&str] = &[
    "announced", "delayed", "launched", "raised", "cut", "reviewed", "approved", "rejected",
    "warned about", "released", "acquired", "expanded", "suspended", "investigated", "defended",
    "criticised", "reported", "confirmed", "tested", "shipped",
];
#[rustfmt::skip]
const EN_OBJECTS: &[&str] = &[
    "interest rates", "a new policy", "its quarterly results", "a security update", "the merger",
    "new safety rules", "a battery breakthrough", "the budget", "prices", "a data breach",
    "the rollout", "an AI model", "emissions targets", "the launch window", "the ticket system",
    "a recall", "export controls", "the stadium plan", "wages", "the vaccine programme",
];
#[rustfmt::skip]
const EN_TAILS: &[&str] = &[
    "on Tuesday", "amid rising costs", "after months of talks", "despite criticism",
    "ahead of the summer", "for the first time since 2019", "in a surprise move",
    "according to people familiar with the matter", "as demand surged", "citing supply shortages",
];

fn ja_sentence(r: &mut Rng) -> String {
    let mut s = String::new();
    match r.below(4) {
        0 => {
            let _ = write!(
                s,
                "{}は{}{}{}を{}。",
                r.pick(JA_NOUNS),
                r.pick(JA_NOUNS),
                r.pick(JA_LINKS),
                r.pick(JA_NOUNS),
                r.pick(JA_VERBS)
            );
        }
        1 => {
            let _ = write!(
                s,
                "{}の{}は前年比{}.{}%増の{}億円で、{}。",
                r.pick(JA_NOUNS),
                r.pick(JA_NOUNS),
                r.range(1, 40),
                r.below(10),
                r.range(10, 9999),
                r.pick(JA_VERBS)
            );
        }
        2 => {
            let _ = write!(
                s,
                "関係者によると、{}{}{}が{}という。",
                r.pick(JA_NOUNS),
                r.pick(JA_LINKS),
                r.pick(JA_NOUNS),
                r.pick(JA_VERBS)
            );
        }
        _ => {
            let _ = write!(
                s,
                "{}月{}日、{}と{}が{}。",
                r.range(1, 12),
                r.range(1, 28),
                r.pick(JA_NOUNS),
                r.pick(JA_NOUNS),
                r.pick(JA_VERBS)
            );
        }
    }
    s
}

fn en_sentence(r: &mut Rng) -> String {
    let subject = r.pick(EN_NOUNS);
    let mut s = String::new();
    let mut chars = subject.chars();
    if let Some(c) = chars.next() {
        s.extend(c.to_uppercase());
        s.push_str(chars.as_str());
    }
    let _ = write!(
        s,
        " {} {} {}.",
        r.pick(EN_VERBS),
        r.pick(EN_OBJECTS),
        r.pick(EN_TAILS)
    );
    if r.below(3) == 0 {
        let _ = write!(
            s,
            " Shares rose {}.{}% to ${}.",
            r.range(1, 9),
            r.below(10),
            r.range(10, 900)
        );
    }
    s
}

fn title(r: &mut Rng, ja: bool) -> String {
    if ja {
        let prefix = ["", "", "【速報】", "【解説】", "［更新］"][r.below(5)];
        format!(
            "{prefix}{}、{}{}{}を{}",
            r.pick(JA_NOUNS),
            r.pick(JA_NOUNS),
            r.pick(JA_LINKS),
            r.pick(JA_NOUNS),
            r.pick(JA_VERBS)
        )
    } else {
        let s = en_sentence(r);
        let s = s.split('.').next().unwrap_or(&s).to_string();
        if r.below(4) == 0 {
            format!("{s} & what it means")
        } else {
            s
        }
    }
}

/// An HTML description with `target` characters of text (give or take a sentence).
fn description(r: &mut Rng, ja: bool, target: usize, link: &str) -> String {
    let mut html = String::from("<p>");
    let mut chars = 0;
    let mut in_para = 0;
    while chars < target {
        let s = if ja { ja_sentence(r) } else { en_sentence(r) };
        chars += s.chars().count() + usize::from(!ja);
        html.push_str(&s);
        if !ja {
            html.push(' ');
        }
        in_para += 1;
        if in_para >= 3 && chars < target {
            html.push_str("</p>\n<p>");
            in_para = 0;
        }
    }
    html.push_str("</p>");
    if r.below(3) == 0 {
        let _ = write!(
            html,
            "<p><img src=\"{link}/thumb.jpg\" alt=\"\" width=\"320\"></p>"
        );
    }
    let more = if ja { "続きを読む" } else { "Read more" };
    let _ = write!(html, "<p><a href=\"{link}\">{more}</a></p>");
    html
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// RFC 2822 date of a Unix time in JST.
fn rfc2822_jst(unix: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let t = unix + 9 * 3600;
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    // Civil from days (Howard Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{}, {:02} {} {} {:02}:{:02}:{:02} +0900",
        DAYS[days.rem_euclid(7) as usize],
        d,
        MONTHS[(m - 1) as usize],
        y,
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// 2021-07-19T08:00:00+09:00: the oldest generated item.
const T0: i64 = 1_626_649_200;

/// One feed's XML: items `first..first + count`, newest first.
fn feed_xml(p: &Params, feed: usize, first: usize) -> String {
    let ja = feed.is_multiple_of(2);
    let host = format!("news{}.example.com", feed % p.hosts);
    let mut r = Rng::new(feed as u64 * 1_000_003);
    let channel_title = if ja {
        format!("{}ニュース {}", r.pick(JA_NOUNS), feed)
    } else {
        format!(
            "{} Daily {}",
            ["Tech", "World", "Business", "Science"][feed % 4],
            feed
        )
    };
    let newest = first + p.items - 1;
    let mut out = String::with_capacity(p.items * 1600 + 1024);
    let _ = write!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <rss version=\"2.0\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\n\
         <channel>\n\
         <title>{}</title>\n\
         <link>https://{host}/</link>\n\
         <description>{}</description>\n\
         <language>{}</language>\n\
         <lastBuildDate>{}</lastBuildDate>\n",
        xml_escape(&channel_title),
        if ja {
            "最新ニュースをお届けします"
        } else {
            "The latest news"
        },
        if ja { "ja" } else { "en" },
        rfc2822_jst(T0 + newest as i64 * 1200 + feed as i64 % 600),
    );
    for seq in (first..=newest).rev() {
        // Every item's text depends only on (feed, seq), so an item reads the same in every
        // version of its feed.
        let mut r = Rng::new(((feed as u64) << 32) | seq as u64);
        let link = format!("https://{host}/articles/{feed:04}/{seq:06}");
        let t = title(&mut r, ja);
        let len = r.range(200, 600);
        let desc = description(&mut r, ja, len, &link);
        let _ = write!(
            out,
            "<item>\n\
             <title>{}</title>\n\
             <link>{link}</link>\n\
             <guid isPermaLink=\"true\">{link}</guid>\n\
             <pubDate>{}</pubDate>\n\
             <dc:creator>{}</dc:creator>\n\
             <category>{}</category>\n\
             <description><![CDATA[{desc}]]></description>\n\
             </item>\n",
            xml_escape(&t),
            rfc2822_jst(T0 + seq as i64 * 1200 + feed as i64 % 600),
            if ja { "編集部" } else { "Staff writer" },
            if ja { "国内" } else { "World" },
        );
    }
    out.push_str("</channel>\n</rss>\n");
    out
}

fn feed_path(feed: usize) -> String {
    format!("/feeds/{feed}.xml")
}

/// The response for one version of a feed: ETag and Last-Modified, answered conditionally.
fn feed_response(p: &Params, feed: usize, version: usize, body: String) -> Response {
    let lm = rfc2822_jst(T0 + 86_400 + version as i64 * 3600).replace("+0900", "GMT");
    let r = Response::rss(body)
        .content_type("application/rss+xml; charset=UTF-8")
        .etag(&format!("\"f{feed}-v{version}\""))
        .last_modified(&lm);
    let r = if p.gzip { r.gzipped() } else { r };
    r.conditional()
}

// ---------------------------------------------------------------------------
// Running matome
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Default)]
struct RunStats {
    label: &'static str,
    wall: Duration,
    cpu: Duration,
    max_rss_kib: u64,
    /// CPU the benchmark process (the test servers) used meanwhile.
    server_cpu: Duration,
    ok: usize,
    not_modified: usize,
    failed: usize,
    new_items: usize,
    /// The snapshot this run wrote, if any.
    snapshot: Option<PathBuf>,
    snapshot_bytes: u64,
    snapshot_items: usize,
    state_bytes: u64,
    served_bytes: u64,
}

/// Runs `matome --root SITE fetch --now NOW`; wall time, CPU and peak RSS of that process alone.
fn run_matome(
    p: &Params,
    site: &Path,
    run: usize,
    label: &'static str,
    now: &str,
) -> (RunStats, String, String) {
    let bin = env!("CARGO_BIN_EXE_matome");
    let site_s = site.to_str().expect("utf-8 temp path");
    let mut argv: Vec<String> = Vec::new();
    if let Some(w) = &p.wrap {
        argv.extend(
            w.replace("%RUN%", &run.to_string())
                .split_whitespace()
                .map(str::to_string),
        );
    }
    argv.extend(
        [bin, "--root", site_s, "fetch", "--now", now]
            .iter()
            .map(|s| s.to_string()),
    );
    let out_path = site.join(format!(".bench-run{run}.stdout"));
    let err_path = site.join(format!(".bench-run{run}.stderr"));
    let cpu_before = self_cpu();
    let started = Instant::now();
    let child = Command::new(&argv[0])
        .args(&argv[1..])
        .env("CI", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("running {}: {e}", argv[0]));
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: plain wait4 on our own child; `child` is never waited on afterwards.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    let wall = started.elapsed();
    let server_cpu = self_cpu().saturating_sub(cpu_before);
    assert_eq!(rc, pid, "wait4: {}", std::io::Error::last_os_error());
    drop(child);
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{label}: matome failed (status {status})\nstdout:\n{stdout}\nstderr:\n{}",
        stderr.chars().take(4000).collect::<String>()
    );
    let mut s = RunStats {
        label,
        wall,
        cpu: tv(ru.ru_utime) + tv(ru.ru_stime),
        max_rss_kib: ru.ru_maxrss as u64,
        server_cpu,
        ..Default::default()
    };
    parse_summary(&stdout, &mut s);
    s.state_bytes = std::fs::metadata(site.join("fetch-state.json"))
        .map(|m| m.len())
        .unwrap_or(0);
    if let Some(rel) = &s.snapshot {
        let text = std::fs::read_to_string(site.join(rel)).expect("the snapshot written");
        s.snapshot_bytes = text.len() as u64;
        s.snapshot_items = text.matches("\n[[items]]\n").count();
    }
    (s, stdout, stderr)
}

/// "1000 feeds: 1000 ok, 0 not modified, 0 failed, 0 deferred\n50000 new items written to P"
fn parse_summary(stdout: &str, s: &mut RunStats) {
    let num_before = |line: &str, what: &str| -> usize {
        let i = line
            .find(what)
            .unwrap_or_else(|| panic!("no `{what}` in {line:?}"));
        line[..i]
            .trim_end()
            .rsplit([' ', ','])
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no count before `{what}` in {line:?}"))
    };
    let line = stdout
        .lines()
        .find(|l| l.contains(" feeds: "))
        .unwrap_or_else(|| panic!("no summary in matome's output:\n{stdout}"));
    s.ok = num_before(line, " ok");
    s.not_modified = num_before(line, " not modified");
    s.failed = num_before(line, " failed");
    if let Some(l) = stdout
        .lines()
        .find(|l| l.contains(" new items written to "))
    {
        s.new_items = num_before(l, " new items");
        s.snapshot = l
            .split(" new items written to ")
            .nth(1)
            .map(|p| PathBuf::from(p.trim()));
    }
}

// ---------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn table(runs: &[RunStats]) -> String {
    let head = [
        "run",
        "wall",
        "CPU (user+sys)",
        "peak RSS",
        "200 / 304 / failed",
        "new items",
        "snapshot",
        "items in file",
        "served",
        "server CPU",
    ];
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                r.label.to_string(),
                secs(r.wall),
                secs(r.cpu),
                mib(r.max_rss_kib * 1024),
                format!("{} / {} / {}", r.ok, r.not_modified, r.failed),
                r.new_items.to_string(),
                if r.snapshot.is_some() {
                    mib(r.snapshot_bytes)
                } else {
                    "none".into()
                },
                r.snapshot_items.to_string(),
                mib(r.served_bytes),
                secs(r.server_cpu),
            ]
        })
        .collect();
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", head.join(" | "));
    let _ = writeln!(
        out,
        "|{}|",
        head.iter().map(|_| "---").collect::<Vec<_>>().join("|")
    );
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out
}

fn main() {
    let p = Params::from_env_and_args();
    let changed = p.changed_count();
    let changed_hosts = (0..p.feeds)
        .filter(|&f| p.is_changed(f))
        .map(|f| f % p.hosts)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    eprintln!(
        "fetch benchmark: {} feeds × {} items over {} hosts (127.0.0.1, one port each); \
         {} feeds ({}%, on {} hosts) get {} new items before the third run{}",
        p.feeds,
        p.items,
        p.hosts,
        changed,
        p.changed_pct,
        changed_hosts,
        p.new_items,
        if p.gzip { "; gzip bodies" } else { "" }
    );

    // Generate every feed version up front, so generation is not timed.
    let t = Instant::now();
    let v1: Vec<String> = (0..p.feeds).map(|f| feed_xml(&p, f, 0)).collect();
    let v2: Vec<Option<String>> = (0..p.feeds)
        .map(|f| p.is_changed(f).then(|| feed_xml(&p, f, p.new_items)))
        .collect();
    let v1_bytes: u64 = v1.iter().map(|s| s.len() as u64).sum();
    let v2_bytes: u64 = v2.iter().flatten().map(|s| s.len() as u64).sum();
    eprintln!(
        "generated {} of feeds ({:.0} KiB per feed on average) in {:.2} s",
        mib(v1_bytes),
        v1_bytes as f64 / p.feeds as f64 / 1024.0,
        t.elapsed().as_secs_f64()
    );

    let servers: Vec<TestServer> = (0..p.hosts).map(|_| TestServer::new()).collect();
    let url = |f: usize| servers[f % p.hosts].url(&feed_path(f));
    for (f, body) in v1.into_iter().enumerate() {
        servers[f % p.hosts].route(&feed_path(f), feed_response(&p, f, 1, body));
    }

    // The test servers' accept loops poll (non-blocking accept, 2 ms sleeps): measure what they
    // cost while idle, since they share the machine with matome.
    let cpu = self_cpu();
    std::thread::sleep(Duration::from_secs(1));
    let idle_server_cpu = self_cpu().saturating_sub(cpu);

    let dir = tempfile::Builder::new()
        .prefix("matome-bench-fetch.")
        .tempdir()
        .expect("temp dir");
    let site = dir.path();
    let mut config = String::from(
        "title = \"ベンチマーク\"\n\
         base_url = \"https://example.github.io/bench/\"\n\
         language = \"ja\"\n\
         timezone = \"Asia/Tokyo\"\n",
    );
    let categories = ["国内", "国際", "経済", "IT", "科学", "スポーツ"];
    for f in 0..p.feeds {
        let _ = write!(
            config,
            "\n[[feeds]]\nurl = \"{}\"\ncategory = \"{}\"\n",
            url(f),
            categories[f % categories.len()]
        );
        if f % 3 == 0 {
            let _ = writeln!(config, "site = \"サイト {f}\"");
        }
    }
    std::fs::write(site.join("matome.toml"), config).expect("writing matome.toml");

    let requests =
        |servers: &[TestServer]| -> usize { servers.iter().map(|s| s.all_requests().len()).sum() };

    let mut runs = Vec::new();
    // 1. First run: everything is new.
    let (mut r1, _, err1) = run_matome(&p, site, 1, "first run", "2021-07-20T08:28:58+09:00");
    r1.served_bytes = if p.gzip { 0 } else { v1_bytes };
    check(&r1, p.feeds, 0, p.feeds * p.items, &err1);
    assert_eq!(r1.snapshot_items, p.feeds * p.items);
    assert_eq!(requests(&servers), p.feeds);
    runs.push(r1);

    // 2. All 304.
    let (r2, _, err2) = run_matome(&p, site, 2, "all-304 run", "2021-07-20T09:28:58+09:00");
    check(&r2, 0, p.feeds, 0, &err2);
    assert_eq!(requests(&servers), 2 * p.feeds);
    let conditional = servers
        .iter()
        .flat_map(|s| s.all_requests())
        .filter(|r| r.has_header("if-none-match"))
        .count();
    assert_eq!(conditional, p.feeds, "every second request is conditional");
    runs.push(r2);

    // 3. The hourly case: some feeds changed.
    for (f, body) in v2.into_iter().enumerate() {
        if let Some(body) = body {
            servers[f % p.hosts].route(&feed_path(f), feed_response(&p, f, 2, body));
        }
    }
    if p.fresh_checkout {
        // As in a scheduled CI job on a fresh clone: only what is committed is there.
        for entry in std::fs::read_dir(site).expect("listing the site") {
            let path = entry.expect("listing the site").path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if matches!(&*name, "matome.toml" | "fetch-state.json" | "content")
                || name.starts_with(".bench-run")
            {
                continue;
            }
            if path.is_dir() {
                std::fs::remove_dir_all(&path).expect("removing a local cache");
            } else {
                std::fs::remove_file(&path).expect("removing a local file");
            }
        }
    }
    let label = if p.fresh_checkout {
        "10%-changed run, fresh checkout"
    } else {
        "10%-changed run"
    };
    let (mut r3, _, err3) = run_matome(&p, site, 3, label, "2021-07-20T10:28:58+09:00");
    r3.served_bytes = if p.gzip { 0 } else { v2_bytes };
    check(
        &r3,
        changed,
        p.feeds - changed,
        changed * p.new_items,
        &err3,
    );
    assert_eq!(r3.snapshot_items, changed * p.new_items);
    runs.push(r3);

    if p.changed_pct != 10 {
        runs[2].label = "changed run";
    }
    println!();
    println!(
        "fetch: {} feeds × {} items, {} hosts, concurrency 16 / per_host 2 (defaults); \
         archive after run 1: {}; fetch-state.json: {}",
        p.feeds,
        p.items,
        p.hosts,
        mib(runs[0].snapshot_bytes),
        mib(runs[2].state_bytes)
    );
    println!();
    print!("{}", table(&runs));
    println!();
    println!(
        "wall/CPU/peak RSS: the matome process alone (wait4); served: feed bytes sent with 200; \
         server CPU: the benchmark's own test servers during the run \
         (idle: {:.2} CPU-seconds per second).",
        idle_server_cpu.as_secs_f64()
    );

    if p.keep {
        let kept = dir.keep();
        eprintln!("site kept at {}", kept.display());
    }
}

fn check(r: &RunStats, ok: usize, not_modified: usize, new_items: usize, stderr: &str) {
    assert!(
        r.ok == ok && r.not_modified == not_modified && r.failed == 0 && r.new_items == new_items,
        "{}: expected {ok} ok, {not_modified} not modified, 0 failed, {new_items} new items; got \
         {r:?}\nstderr:\n{}",
        r.label,
        stderr.chars().take(4000).collect::<String>()
    );
}
