//! The CLI search index on an archive (a bench target, `harness = false`; not a test).
//!
//!     cargo bench --bench gen_archive -- --days 365 --out /tmp/y1
//!     cargo bench --bench search -- --root /tmp/y1
//!
//! Measures: bringing the index up to date (a full build when `.matome/search/` is missing),
//! the index's size, query latency p50/p99 over a set of Japanese and English queries (each run
//! `MATOME_BENCH_REPS` times, relevance and date order), and the incremental update after one
//! more hourly snapshot (which is then removed again, and the index brought back).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use matome::config::Config;
use matome::content::Snapshot;
use matome::content::archive::Archive;
use matome::search::index::{SearchOptions, SiteSearcher, index_dir, update};

#[path = "common/mod.rs"]
mod common;

const QUERIES: &[&str] = &[
    "日本銀行",
    "気候変動",
    "半導体",
    "銀行",
    "電気自動車 市場",
    "日本銀行 -円安",
    "ransomware",
    "\"data center\"",
    "antitrust chipmaker",
    "Kubernetes",
];

fn dir_size(p: &Path) -> (u64, usize) {
    walkdir::WalkDir::new(p)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .fold((0, 0), |(b, n), e| {
            (b + e.metadata().map(|m| m.len()).unwrap_or(0), n + 1)
        })
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let mut root: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--root" => root = args.next().map(PathBuf::from),
            "--bench" => {}
            other => panic!("unknown argument {other}: use --root SITE"),
        }
    }
    let root = root.expect("--root SITE (an archive from the gen_archive bench)");
    let reps = common::env_usize("MATOME_BENCH_REPS", 30);
    let config = Config::load(&root).unwrap();

    let t = Instant::now();
    let archive = Archive::load(&root).unwrap();
    let loaded = t.elapsed();
    let t = Instant::now();
    let r = update(&root, &config, &archive).unwrap();
    println!(
        "archive: {} items ({loaded:.2?} to load); index update: {} items added{} in {:.2?}",
        archive.items.len(),
        r.items_added,
        if r.rebuilt { " (rebuilt)" } else { "" },
        t.elapsed()
    );
    let (bytes, files) = dir_size(&index_dir(&root));
    println!(
        "index: {:.1} MB in {files} files ({:.0} bytes/item)",
        bytes as f64 / 1e6,
        bytes as f64 / archive.items.len().max(1) as f64
    );

    let searcher = SiteSearcher::open(&root, &config, &config.base_url).unwrap();
    let mut all = Vec::new();
    println!("| query | hits (limit 20) | p50 | p99 |");
    println!("|---|---|---|---|");
    for q in QUERIES {
        let mut times = Vec::with_capacity(reps * 2);
        let mut hits = 0;
        for by_date in [false, true] {
            let opts = SearchOptions {
                query: q.to_string(),
                limit: 20,
                offset: 0,
                category: None,
                site: None,
                since: None,
                until: None,
                by_date,
            };
            for _ in 0..reps {
                let t = Instant::now();
                hits = searcher.search(&opts).unwrap().len();
                times.push(t.elapsed());
            }
        }
        times.sort();
        println!(
            "| {q} | {hits} | {:.2?} | {:.2?} |",
            pct(&times, 0.5),
            pct(&times, 0.99)
        );
        all.extend(times);
    }
    all.sort();
    println!(
        "all queries: p50 {:.2?}, p99 {:.2?} ({} searches)",
        pct(&all, 0.5),
        pct(&all, 0.99),
        all.len()
    );

    // One more hour: the latest snapshot, an hour later, with new ids.
    let last = archive.digests.last().expect("a non-empty archive");
    let mut s = Snapshot::load(&last.path).unwrap();
    s.hour += chrono::Duration::hours(1);
    s.updated += chrono::Duration::hours(1);
    for i in &mut s.items {
        i.id = format!("{}-next", i.id);
    }
    let path = root.join(matome::content::snapshot_rel_path(&s.hour));
    s.write(&path).unwrap();
    let archive = Archive::load(&root).unwrap();
    let t = Instant::now();
    let r = update(&root, &config, &archive).unwrap();
    println!(
        "next hour: {} items added in {:.2?}",
        r.items_added,
        t.elapsed()
    );
    std::fs::remove_file(&path).unwrap();
    let archive = Archive::load(&root).unwrap();
    update(&root, &config, &archive).unwrap();
}
