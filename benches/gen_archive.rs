//! A synthetic archive generator (a bench target, `harness = false`; not a test).
//!
//! Writes hourly digests of 45 items for N days into a site folder, as `matome fetch` would have:
//! ~20 categories, ~300 sites, Zipf-distributed keywords, mixed Japanese and English titles and
//! texts. The build and search benchmarks of later issues run on it; today it measures how an
//! hourly `matome fetch` behaves on a year of archive.
//!
//!     cargo bench --bench gen_archive -- --days 365 --out /tmp/site
//!     cargo bench --bench gen_archive -- --days 365 --stories 0.15 --out /tmp/site
//!
//! `--stories F` (default 0: every item alone) records stories as fetch would (`story = "ID"`,
//! the first item's key): a fraction F of the items join the story of an item of the last 24
//! hours picked at random — so a story grows as it is covered (a widely covered story is more
//! likely to be picked again), the way a big release gathers sources while a minor one stays
//! with one or two.
//!
//! Deterministic: the same arguments give byte-identical files.

use std::path::PathBuf;

use chrono::{DateTime, Duration, FixedOffset, TimeZone};
use matome::content::{Item, Snapshot, digest_hour, snapshot_rel_path};

#[path = "common/mod.rs"]
mod common;
use common::Rng;

const CATEGORIES: &[&str] = &[
    "IT",
    "AWS",
    "Program",
    "金融",
    "海外TECH",
    "ニュース",
    "ビジネス",
    "科学",
    "GCP",
    "Azure",
    "北海道",
    "セキュリティ",
    "スマホ",
    "ゲーム",
    "経済",
    "政治",
    "国際",
    "スポーツ",
    "エンタメ",
    "ライフ",
];

const JA_STEMS: &[&str] = &[
    "日本銀行",
    "気候変動",
    "半導体",
    "生成AI",
    "クラウド",
    "脆弱性",
    "ランサムウェア",
    "電気自動車",
    "決算",
    "営業利益",
    "東京証券取引所",
    "デジタル庁",
    "マイナンバーカード",
    "長期金利",
    "円安",
    "日経平均株価",
    "量子コンピューター",
    "データセンター",
    "サプライチェーン",
    "個人情報",
    "再生可能エネルギー",
    "自動運転",
    "スマートフォン",
    "通信障害",
    "新NISA",
    "賃上げ",
    "物価上昇",
    "訪日外国人",
    "暗号資産",
    "金融政策",
    "大規模言語モデル",
    "オープンソース",
    "不正アクセス",
    "サイバー攻撃",
    "宇宙開発",
];

const EN_WORDS: &[&str] = &[
    "Kubernetes",
    "Rust",
    "ransomware",
    "chipmaker",
    "antitrust",
    "smartphone",
    "open source",
    "data center",
    "AI accelerator",
    "cloud outage",
    "supply chain",
    "zero-day",
    "WebAssembly",
    "quantum computing",
    "electric vehicle",
    "passkeys",
    "browser",
    "Linux",
    "database",
    "GPU",
];

fn main() {
    let mut days = 1usize;
    let mut per_hour = 45usize;
    let mut out: Option<PathBuf> = None;
    let mut stories = 0.0f64;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--days" => days = args.next().and_then(|v| v.parse().ok()).expect("--days N"),
            "--items" => per_hour = args.next().and_then(|v| v.parse().ok()).expect("--items N"),
            "--out" => out = args.next().map(PathBuf::from),
            "--stories" => {
                stories = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .filter(|f| (0.0..1.0).contains(f))
                    .expect("--stories F (0 <= F < 1)")
            }
            "--bench" => {}
            other => panic!("unknown argument {other}: use --days N --items N --out DIR"),
        }
    }
    let out = out.unwrap_or_else(|| PathBuf::from(format!("target/bench-archive/{days}d")));
    generate(&out, days, per_hour, stories);
}

fn generate(root: &std::path::Path, days: usize, per_hour: usize, stories: f64) {
    let tz = chrono_tz::Asia::Tokyo;
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // ~300 sites: each with its category and feed URL.
    let sites: Vec<(String, &str, String)> = (0..300)
        .map(|i| {
            let category = CATEGORIES[i % CATEGORIES.len()];
            let name = if i % 3 == 0 {
                format!("Tech Site {i}")
            } else {
                format!("ニュースサイト{i}")
            };
            (
                name,
                category,
                format!("https://feeds{i}.example.com/rss.xml"),
            )
        })
        .collect();
    // Keywords: Japanese stems combined into compounds, plus English words: a Zipf vocabulary.
    let mut vocabulary: Vec<String> = Vec::new();
    for a in JA_STEMS {
        vocabulary.push(a.to_string());
    }
    for a in JA_STEMS {
        for b in ["対策", "市場", "規制", "投資", "事業", "技術"] {
            vocabulary.push(format!("{a}{b}"));
        }
    }
    vocabulary.extend(EN_WORDS.iter().map(|w| w.to_string()));
    for i in 0..2000 {
        vocabulary.push(format!("キーワード{i}"));
    }
    let harmonic: f64 = (1..=vocabulary.len()).map(|r| 1.0 / r as f64).sum();

    let start: DateTime<FixedOffset> = tz
        .with_ymd_and_hms(2021, 1, 1, 0, 0, 0)
        .unwrap()
        .fixed_offset();
    let mut files = 0usize;
    let mut items_total = 0usize;
    let mut bytes = 0u64;
    // The story of each item of the last 24 hours (a ring), for `--stories`.
    let mut recent: Vec<String> = Vec::with_capacity(24 * per_hour);
    let mut joined = 0usize;
    // A second generator, so the archive without stories stays byte-identical to before.
    let mut story_rng = Rng(0x2545_f491_4f6c_dd1d);
    for h in 0..days * 24 {
        let now = start + Duration::hours(h as i64) + Duration::minutes(17);
        let hour = digest_hour(now.to_utc(), tz);
        let mut items = Vec::with_capacity(per_hour);
        for n in 0..per_hour {
            let (site, category, feed) = &sites[rng.below(sites.len())];
            let kw: Vec<String> = (0..3)
                .map(|_| vocabulary[rng.zipf(vocabulary.len(), harmonic)].clone())
                .collect();
            let english = rng.below(4) == 0;
            let (title, text) = if english {
                (
                    format!("{} and {} shape the week in {}", kw[0], kw[1], kw[2]),
                    format!(
                        "Analysts said {} would matter more than {} this quarter. The {} story continues, with more reports expected. Item {h}-{n}.",
                        kw[0], kw[1], kw[2]
                    ),
                )
            } else {
                (
                    format!("{}、{}で新たな動き　{}にも影響", kw[0], kw[1], kw[2]),
                    format!(
                        "{}をめぐり、{}の動きが広がっている。関係者によると{}への影響も避けられない見通しだ。今後の対応が注目される。記事{h}-{n}。",
                        kw[0], kw[1], kw[2]
                    ),
                )
            };
            let summary: String = text.chars().take(120).collect();
            let id = format!(
                "https://{}/articles/{h}/{n}",
                feed.trim_start_matches("https://")
            );
            let own = matome::content::ItemKey::new(feed, &id).hex();
            let story = if stories > 0.0
                && !recent.is_empty()
                && (story_rng.below(1_000_000) as f64) < stories * 1e6
            {
                joined += 1;
                recent[story_rng.below(recent.len())].clone()
            } else {
                String::new()
            };
            if stories > 0.0 {
                let s = if story.is_empty() { own } else { story.clone() };
                if recent.len() < 24 * per_hour {
                    recent.push(s);
                } else {
                    recent[(items_total + n) % (24 * per_hour)] = s;
                }
            }
            items.push(Item {
                id,
                feed: feed.clone(),
                category: category.to_string(),
                site: site.clone(),
                title,
                link: format!("https://example.com/{h}/{n}"),
                published: now - Duration::minutes(rng.below(60) as i64),
                keywords: kw,
                summary,
                text,
                trend: None,
                story,
            });
        }
        let snapshot = Snapshot {
            hour,
            updated: now,
            items,
            body: String::new(),
        };
        let path = root.join(snapshot_rel_path(&hour));
        let text = snapshot.to_text();
        bytes += text.len() as u64;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        files += 1;
        items_total += per_hour;
    }
    let config = "title = \"ベンチマーク\"\nbase_url = \"https://example.github.io/bench/\"\nlanguage = \"ja\"\ntimezone = \"Asia/Tokyo\"\n";
    std::fs::write(root.join("matome.toml"), config).unwrap();
    println!(
        "{}: {files} digests, {items_total} items ({joined} joined another's story), {:.1} MB of snapshots",
        root.display(),
        bytes as f64 / 1e6
    );
}
