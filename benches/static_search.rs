//! The static search index on a synthetic archive (a bench target, `harness = false`; not a test):
//! how long writing every month's shard takes and how much memory, how big the index is, and
//! what a reader's browser transfers for a query, measured in headless Chromium on the real
//! search page. Run through `scripts/bench-static-search`, which generates the archive first.
//!
//!     cargo bench --bench static_search -- --archive DIR [--out DIR] [--query Q]...
//!
//! Transfers are counted as GitHub Pages would serve the files: gzip (level 6) for the types it
//! compresses (HTML, CSS, JavaScript, JSON), raw bytes for the rest (the `.bin` buckets).

#[path = "../tests/it/support/browser.rs"]
#[allow(dead_code)]
mod browser;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use matome::config::Language;
use matome::content::{Snapshot, snapshot_paths};
use matome::render::site::BaseUrl;
use matome::render::strings::Strings;
use matome::render::theme::Theme;
use matome::search::static_index::{MonthShard, StaticDoc, write_manifest, write_month};
use serde_json::{Value, json};

/// An item's fields, owned (a month's worth is loaded at a time).
struct Row {
    title: String,
    summary: String,
    link: String,
    site: String,
    category: String,
    published: i64,
    digest_url: String,
}

fn main() {
    let mut archive: Option<PathBuf> = None;
    let mut out = PathBuf::from("target/bench-static-search");
    let mut queries: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--archive" => archive = args.next().map(PathBuf::from),
            "--out" => out = args.next().map(PathBuf::from).expect("--out DIR"),
            "--query" => queries.push(args.next().expect("--query Q")),
            "--bench" => {}
            other => panic!("unknown argument {other}: use --archive DIR [--out DIR] [--query Q]"),
        }
    }
    let archive = archive.expect("--archive DIR (a site made by gen_archive)");
    if queries.is_empty() {
        queries = [
            "気候変動",
            "日本銀行",
            "半導体",
            "ransomware",
            "キーワード1999",
            "regulations",
        ]
        .map(String::from)
        .to_vec();
    }
    let public = out.join("public");
    let search = public.join("search");
    let _ = std::fs::remove_dir_all(&public);

    // 1. Every month's shard, a month of snapshots in memory at a time.
    let paths = snapshot_paths(&archive).expect("listing the archive");
    let mut by_month: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for p in paths {
        let rel: Vec<String> = p
            .strip_prefix(archive.join("content"))
            .unwrap()
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        by_month
            .entry(format!("{}-{}", rel[0], rel[1]))
            .or_default()
            .push(p);
    }
    let mut shards: Vec<MonthShard> = Vec::new();
    let mut categories = std::collections::BTreeSet::new();
    let (mut t_load, mut t_write) = (Duration::ZERO, Duration::ZERO);
    let mut last_month_rows = Vec::new();
    println!("| month | items | buckets | files | MB | write s |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    for (month, files) in &by_month {
        let t = Instant::now();
        let rows = load_month(files);
        t_load += t.elapsed();
        for r in &rows {
            categories.insert(r.category.clone());
        }
        let t = Instant::now();
        let shard = write_month(&search, month, &docs(&rows), chrono_tz::Asia::Tokyo)
            .expect("writing a month");
        let dt = t.elapsed();
        t_write += dt;
        println!(
            "| {month} | {} | {} | {} | {:.1} | {:.2} |",
            shard.docs,
            shard.buckets,
            shard.files.len(),
            shard.bytes as f64 / 1e6,
            dt.as_secs_f64()
        );
        shards.push(shard);
        last_month_rows = rows;
    }
    let cats: Vec<&str> = categories.iter().map(String::as_str).collect();
    write_manifest(&search, &shards, &cats).expect("writing the manifest");
    let peak = peak_rss_mib();
    let items: usize = shards.iter().map(|s| s.docs).sum();
    let files: usize = shards.iter().map(|s| s.files.len()).sum::<usize>() + 1;
    let bytes: u64 = shards.iter().map(|s| s.bytes).sum();
    let (mut bin, mut json_raw, mut json_gz) = (0u64, 0u64, 0u64);
    for s in &shards {
        for f in &s.files {
            let data = std::fs::read(search.join(f)).unwrap();
            if f.ends_with(".bin") {
                bin += data.len() as u64;
            } else {
                json_raw += data.len() as u64;
                json_gz += gzip_len(&data) as u64;
            }
        }
    }
    println!();
    println!(
        "index: {items} items in {} months: {files} files, {:.0} MB ({:.0} MB buckets, {:.0} MB doc chunks = {:.0} MB gzip)",
        shards.len(),
        bytes as f64 / 1e6,
        bin as f64 / 1e6,
        json_raw as f64 / 1e6,
        json_gz as f64 / 1e6
    );
    println!(
        "writing: {:.1} s for 12 months ({:.1} s reading the snapshots besides); peak RSS {peak:.0} MiB",
        t_write.as_secs_f64(),
        t_load.as_secs_f64()
    );

    // 2. One more hour: the latest month again with 45 more items; no other month is touched.
    let last = shards.last().unwrap().month.clone();
    let before = mtimes(&search, &last);
    let mut grown = last_month_rows;
    let extra: Vec<Row> = grown[grown.len() - 45..]
        .iter()
        .map(|r| Row {
            title: format!("{} 追加", r.title),
            published: r.published + 3600,
            ..clone_row(r)
        })
        .collect();
    grown.extend(extra);
    let t = Instant::now();
    let shard = write_month(&search, &last, &docs(&grown), chrono_tz::Asia::Tokyo).unwrap();
    let after = mtimes(&search, &last);
    let others_untouched = before == after;
    println!(
        "next hour: {last} rewritten in {:.2} s: {} of {} files written, other months untouched: {others_untouched}",
        t.elapsed().as_secs_f64(),
        shard.written,
        shard.files.len(),
    );
    // Put the month back as the archive has it (the queries below run on the archive).
    let n = shards.len() - 1;
    drop(grown);
    let rows = load_month(&by_month[&last]);
    shards[n] = write_month(&search, &last, &docs(&rows), chrono_tz::Asia::Tokyo).unwrap();
    write_manifest(&search, &shards, &cats).unwrap();

    // 3. The page, served under /repo/, in headless Chromium.
    write_page(&public);
    let port = serve(public.clone());
    if !browser::available() {
        println!("no Chromium: transfers not measured");
        return;
    }
    let base = format!("http://127.0.0.1:{port}/repo/");
    println!();
    println!(
        "Transfers (bytes as GitHub Pages serves them; `page` = search page HTML + CSS + JS + icon, `index` = manifest, buckets, chunks):"
    );
    println!();
    println!(
        "| query | first query: index KB (requests) | + page KB | results | ms | load more: KB (requests) | results | later query (warm page): KB (requests) |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for q in &queries {
        let mut b = browser::Browser::launch();
        let t = Instant::now();
        b.navigate(&format!("{base}search/?q={}", encode(q)));
        settle(&mut b);
        let ms = t.elapsed().as_millis();
        let first = transfers(&mut b, &public, &base, true);
        let n1 = hits(&mut b);
        b.eval("performance.clearResourceTimings()");
        let more = if b.eval("!document.getElementById('search-more').hidden") == json!(true) {
            b.eval("document.getElementById('search-more').click()");
            b.wait_for(
                &format!("document.querySelectorAll('.hit').length > {n1} || document.getElementById('search-results').dataset.state === 'done'"),
                Duration::from_secs(60),
            );
            settle(&mut b);
            Some(transfers(&mut b, &public, &base, false))
        } else {
            None
        };
        let n2 = hits(&mut b);
        // Another query in the same page: the manifest and the page are already there.
        b.eval("performance.clearResourceTimings()");
        let other = if q == "半導体" {
            "電気自動車"
        } else {
            "半導体"
        };
        b.eval(&format!(
            "document.getElementById('search-q').value = {}; document.querySelector('#search-form button[type=submit]').click()",
            Value::String(other.into())
        ));
        b.wait_for("location.search.includes('q=')", Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(50));
        settle(&mut b);
        let later = transfers(&mut b, &public, &base, false);
        println!(
            "| {q} | {:.1} ({}) | {:.1} | {n1} | {ms} | {} | {n2} | {:.1} ({}) [{other}] |",
            first.index as f64 / 1e3,
            first.index_requests,
            first.page as f64 / 1e3,
            more.map_or("–".into(), |m| format!(
                "{:.1} ({})",
                m.index as f64 / 1e3,
                m.index_requests
            )),
            later.index as f64 / 1e3,
            later.index_requests,
        );
    }
}

fn clone_row(r: &Row) -> Row {
    Row {
        title: r.title.clone(),
        summary: r.summary.clone(),
        link: r.link.clone(),
        site: r.site.clone(),
        category: r.category.clone(),
        published: r.published,
        digest_url: r.digest_url.clone(),
    }
}

fn load_month(files: &[PathBuf]) -> Vec<Row> {
    let mut rows = Vec::new();
    for p in files {
        let s = Snapshot::load(p).expect("a snapshot");
        let h = s.hour;
        let digest_url = h.format("%Y/%m/%d/%H%M/").to_string();
        for it in s.items {
            rows.push(Row {
                title: it.title,
                summary: it.summary,
                link: it.link,
                site: it.site,
                category: it.category,
                published: it.published.timestamp(),
                digest_url: digest_url.clone(),
            });
        }
    }
    rows
}

fn docs(rows: &[Row]) -> Vec<StaticDoc<'_>> {
    rows.iter()
        .map(|r| StaticDoc {
            title: &r.title,
            summary: &r.summary,
            link: Some(&r.link),
            site: &r.site,
            category: &r.category,
            published: r.published,
            digest_url: &r.digest_url,
            story: None,
        })
        .collect()
}

fn mtimes(search: &Path, except: &str) -> Vec<(PathBuf, std::time::SystemTime)> {
    let mut v: Vec<_> = walk(search)
        .into_iter()
        .filter(|p| !p.starts_with(search.join(except)) && !p.ends_with("manifest.json"))
        .map(|p| {
            let m = std::fs::metadata(&p).unwrap().modified().unwrap();
            (p, m)
        })
        .collect();
    v.sort();
    v
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn gzip_len(data: &[u8]) -> usize {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap().len()
}

fn write_page(public: &Path) {
    let empty = tempfile::tempdir().unwrap();
    let theme = Theme::load(
        empty.path(),
        "default",
        BaseUrl::new("https://example.github.io/repo/"),
        chrono_tz::Asia::Tokyo,
    )
    .unwrap();
    let view = json!({
        "site": {"title": "ベンチマーク", "base_url": "https://example.github.io/repo/",
                 "base_path": "/repo/", "language": "ja", "generator": "matome bench"},
        "t": Strings::of(Language::Ja),
        "page": {"title": "検索", "url": "search/", "kind": "search"},
        "timezone": "Asia/Tokyo",
    });
    let html = theme.render("search.html", &view).unwrap();
    std::fs::write(public.join("search/index.html"), html).unwrap();
    for (rel, bytes) in &theme.statics {
        std::fs::write(public.join(rel), bytes).unwrap();
    }
}

fn encode(q: &str) -> String {
    q.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn settle(b: &mut browser::Browser) {
    b.wait_for(
        "['more','done','error'].includes(document.getElementById('search-results').dataset.state)",
        Duration::from_secs(60),
    );
}

fn hits(b: &mut browser::Browser) -> usize {
    b.eval("document.querySelectorAll('.hit').length")
        .as_u64()
        .unwrap_or(0) as usize
}

struct Transfer {
    index: u64,
    index_requests: usize,
    page: u64,
}

/// What the page fetched since the last clear, sized as GitHub Pages would send it.
fn transfers(b: &mut browser::Browser, public: &Path, base: &str, with_page: bool) -> Transfer {
    let names =
        b.eval("[location.href, ...performance.getEntriesByType('resource').map(e => e.name)]");
    let mut t = Transfer {
        index: 0,
        index_requests: 0,
        page: 0,
    };
    for (i, name) in names.as_array().unwrap().iter().enumerate() {
        let url = name.as_str().unwrap();
        if i == 0 && !with_page {
            continue;
        }
        let Some(rel) = url.strip_prefix(base) else {
            continue;
        };
        let rel = rel.split(['?', '#']).next().unwrap();
        let path = if rel.ends_with('/') || rel.is_empty() {
            public.join(rel).join("index.html")
        } else {
            public.join(rel)
        };
        let Ok(data) = std::fs::read(&path) else {
            continue;
        };
        let size = if rel.ends_with(".bin") || rel.ends_with(".svg") {
            data.len()
        } else {
            gzip_len(&data)
        } as u64;
        if rel.starts_with("search/") && !rel.ends_with('/') && !rel.is_empty() {
            t.index += size;
            t.index_requests += 1;
        } else {
            t.page += size;
        }
    }
    t
}

/// A static file server for `public` under `/repo/` on a free loopback port (one thread per
/// connection, `Connection: close`).
fn serve(public: PathBuf) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let public = public.clone();
            std::thread::spawn(move || answer(conn, &public));
        }
    });
    port
}

fn answer(mut s: TcpStream, public: &Path) {
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let head = String::from_utf8_lossy(&buf);
    let target = head.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let rel = path.strip_prefix("/repo/").map(percent_decode);
    let file = rel.filter(|r| !r.split('/').any(|p| p == "..")).map(|r| {
        let p = public.join(&r);
        if p.is_dir() { p.join("index.html") } else { p }
    });
    let (status, body, ctype) = match file.and_then(|f| std::fs::read(&f).ok().map(|b| (f, b))) {
        Some((f, b)) => {
            let ct = match f.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("css") => "text/css",
                Some("js") => "text/javascript",
                Some("json") => "application/json",
                Some("svg") => "image/svg+xml",
                _ => "application/octet-stream",
            };
            ("200 OK", b, ct)
        }
        None => ("404 Not Found", b"not found".to_vec(), "text/plain"),
    };
    let _ = write!(
        s,
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = s.write_all(&body);
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}
