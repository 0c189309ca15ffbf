//! Story assignment benchmark (issue 24, item 4): the CPU time of deciding an hour's items
//! against a window of a few days at a year's volume, and of recomputing a year's stories.
//!
//! Items are made from the story quality set's development part (`tests/quality/stories.toml`:
//! real-shaped Japanese and English titles and leads): each generated story takes the first
//! half of one set title and a made-up name, each of its items (1–6, a new story every ~2.25
//! items) adds the second half of another set title and that title's description, so the
//! window's vocabulary and posting lists grow as a real archive's do, and joins happen. Items arrive at `MATOME_BENCH_PER_DAY` (1,000) a day.
//!
//! Timed:
//! - **hour**: a window filled with `MATOME_BENCH_DAYS` (4) days of items, then 24 hours of
//!   `MATOME_BENCH_PER_HOUR` (40) items each: [`Facts::of`] and [`StoryIndex::assign`] per
//!   item on this thread; CPU time (getrusage) and wall time per hour, min / median / max;
//! - **fetch**: the fetch's stories step at a year, with the window as derived state: a site
//!   in a temp folder holding `MATOME_BENCH_DAYS` (4) days of hourly snapshot files at
//!   `MATOME_BENCH_PER_DAY` a day and, before them, the rest of a year as files of one item
//!   (`MATOME_BENCH_YEAR_FILES`, 8,760 in all), its key view loaded as a fetch loads it; then
//!   24 hours of `MATOME_BENCH_PER_HOUR` new items, each hour [`Window::open`] (read, verify
//!   against the key view, restore), [`Window::decide`], the snapshot written, and
//!   [`Window::record`] + [`Window::save`]; CPU and wall per hour of the stories step (open,
//!   decide, save; the snapshot's writing is the fetch's own), min / median / max, the cold
//!   rebuild of the window from content/, and the window file's size;
//! - **year**: [`recompute`] over `MATOME_BENCH_ITEMS` (365,000) items on a rayon pool of
//!   `MATOME_BENCH_THREADS` (2) threads; wall and CPU time, and items per second.
//!
//! ```text
//! cargo bench --bench stories
//! MATOME_BENCH_ITEMS=36500 cargo bench --bench stories   # a tenth of a year
//! ```

#[path = "common/mod.rs"]
mod common;
use common::{Rng, env_usize, self_cpu};

use std::time::{Duration, Instant};

use chrono::{DateTime, FixedOffset};
use matome::content::Item;
use matome::content::{self, Snapshot};
use matome::stories::window::{Opened, Window};
use matome::stories::{Facts, Settings, StoryIndex, ToAssign, recompute};

#[derive(serde::Deserialize)]
struct Set {
    items: Vec<Template>,
}

#[derive(serde::Deserialize)]
struct Template {
    site: String,
    category: String,
    title: String,
    description: String,
}

/// A story's made-up name: Latin for even stories, katakana for odd ones.
fn name(story: usize) -> String {
    const KANA: &[char] = &['カ', 'ス', 'ミ', 'ハ', 'ル', 'ゼ', 'ト', 'ナ', 'リ', 'モ'];
    let digits: Vec<usize> = format!("{story:06}")
        .bytes()
        .map(|b| (b - b'0') as usize)
        .collect();
    if story.is_multiple_of(2) {
        digits
            .iter()
            .map(|d| (b'a' + *d as u8 * 2) as char)
            .collect::<String>()
            + "ex"
    } else {
        digits.iter().map(|d| KANA[*d]).collect()
    }
}

/// The first or second half of a title (split at a space, a comma or 、 nearest its middle).
fn half(title: &str, second: bool) -> &str {
    let mid = title.len() / 2;
    let cut = title
        .char_indices()
        .filter(|(_, c)| matches!(c, ' ' | '、' | ',' | '　'))
        .map(|(i, _)| i)
        .min_by_key(|i| i.abs_diff(mid))
        .unwrap_or_else(|| {
            title
                .char_indices()
                .map(|(i, _)| i)
                .find(|i| *i >= mid)
                .unwrap_or(0)
        });
    if second { &title[cut..] } else { &title[..cut] }
}

/// `n` items from the templates, `per_day` a day from `start`: each story takes the first half
/// of one template's title, each of its items the second half of another's and the story's
/// name, so stories share words as real ones do without every template's copy joining.
fn generate(templates: &[Template], n: usize, per_day: usize, seed: u64) -> Vec<Item> {
    let start = DateTime::parse_from_rfc3339("2026-01-01T00:00:00+09:00").unwrap();
    let mut rng = Rng(seed);
    let (mut story, mut left, mut head) = (0usize, 0usize, 0usize);
    (0..n)
        .map(|i| {
            if left == 0 {
                story += 1;
                left = rng.range(1, 6).min(if rng.below(2) == 0 { 1 } else { 6 });
                head = rng.below(templates.len());
            }
            left -= 1;
            let t = &templates[rng.below(templates.len())];
            let published: DateTime<FixedOffset> =
                start + chrono::Duration::seconds((i * 86_400 / per_day) as i64);
            let title = format!(
                "{} {} {}",
                half(&templates[head].title, false),
                name(story),
                half(&t.title, true)
            );
            Item {
                id: format!("item-{i}"),
                feed: format!("https://feeds.example/{}", rng.below(218)),
                category: t.category.clone(),
                site: format!("{} {}", t.site, rng.below(218)),
                title,
                link: format!("https://news.example/{i}"),
                published,
                keywords: vec![],
                summary: String::new(),
                text: matome::text::html_to_text(&t.description),
                trend: None,
                story: String::new(),
            }
        })
        .collect()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn hour(templates: &[Template]) {
    let per_day = env_usize("MATOME_BENCH_PER_DAY", 1000);
    let days = env_usize("MATOME_BENCH_DAYS", 4);
    let per_hour = env_usize("MATOME_BENCH_PER_HOUR", 40);
    let hours = 24;
    let window = per_day * days;
    let items = generate(templates, window + per_hour * hours, per_day, 7);
    let mut index = StoryIndex::new(Settings::default());
    for (n, i) in items[..window].iter().enumerate() {
        index.assign(&n.to_string(), Facts::of(i, i.published));
    }
    let (mut cpu, mut wall, mut joined) = (Vec::new(), Vec::new(), 0);
    for h in 0..hours {
        let (c0, w0) = (self_cpu(), Instant::now());
        let from = window + h * per_hour;
        for (n, i) in items.iter().enumerate().skip(from).take(per_hour) {
            joined += usize::from(
                index
                    .assign(&n.to_string(), Facts::of(i, i.published))
                    .joined,
            );
        }
        cpu.push(ms(self_cpu() - c0));
        wall.push(ms(w0.elapsed()));
    }
    cpu.sort_by(f64::total_cmp);
    wall.sort_by(f64::total_cmp);
    println!(
        "hour: {per_hour} items against a window of {} items ({} stories; {days} days at {per_day}/day), {hours} hours",
        index.len(),
        index.stories()
    );
    println!(
        "  CPU per hour  min {:.1} ms  median {:.1} ms  max {:.1} ms",
        cpu[0],
        cpu[hours / 2],
        cpu[hours - 1]
    );
    println!(
        "  wall per hour min {:.1} ms  median {:.1} ms  max {:.1} ms  ({joined} of {} joined a story)",
        wall[0],
        wall[hours / 2],
        wall[hours - 1],
        per_hour * hours
    );
}

/// Min, median and max of `v` (sorted here), in ms.
fn spread(v: &mut [f64]) -> String {
    v.sort_by(f64::total_cmp);
    format!(
        "min {:.1} ms  median {:.1} ms  max {:.1} ms",
        v[0],
        v[v.len() / 2],
        v[v.len() - 1]
    )
}

/// Writes `items` as the snapshot of `hour` under `root`, and tells the key view; the file's
/// name under the root.
fn write_hour(
    root: &std::path::Path,
    hour: DateTime<FixedOffset>,
    items: Vec<Item>,
    keys: &mut content::ArchiveKeys,
) -> String {
    let name = format!("content/{}.md", hour.format("%Y/%m/%d/%H%M"));
    let snapshot = Snapshot {
        hour,
        updated: hour + chrono::Duration::minutes(10),
        items,
        body: String::new(),
    };
    let path = root.join(&name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = snapshot.to_text();
    std::fs::write(&path, &text).unwrap();
    keys.remember(root, &path, &text, &snapshot);
    name
}

fn fetch_path(templates: &[Template]) {
    let per_day = env_usize("MATOME_BENCH_PER_DAY", 1000);
    let days = env_usize("MATOME_BENCH_DAYS", 4);
    let per_hour = env_usize("MATOME_BENCH_PER_HOUR", 40);
    let year_files = env_usize("MATOME_BENCH_YEAR_FILES", 8760);
    let hours = 24;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("matome.toml"),
        "title = \"t\"\nbase_url = \"https://example.com/\"\n",
    )
    .unwrap();
    let recent = days * 24;
    let window_items = generate(templates, per_day * days + per_hour * hours, per_day, 13);
    let start = window_items[0].published;
    let old = year_files.saturating_sub(recent);
    let mut keys = content::ArchiveKeys::default();
    // the rest of the year: a file of one item an hour, before the window's days
    for h in 0..old {
        let hour = start - chrono::Duration::hours((old - h) as i64);
        let mut item = generate(templates, 1, per_day, h as u64).remove(0);
        item.id = format!("old-{h}");
        item.published = hour;
        write_hour(root, hour, vec![item], &mut keys);
    }
    // the window's days, their stories decided as fetches would have
    let settings = Settings::default();
    let mut window = Window::open(root, &keys, settings.clone());
    let mut next = 0;
    for h in 0..recent {
        let hour = start + chrono::Duration::hours(h as i64);
        let mut items: Vec<Item> = window_items[next..]
            .iter()
            .take_while(|i| i.published < hour + chrono::Duration::hours(1))
            .cloned()
            .collect();
        next += items.len();
        window.decide(&mut items, hour);
        let name = write_hour(root, hour, items, &mut keys);
        window.record(&keys, &name);
    }
    window.save(root);
    // the key view as an hourly fetch loads it (a year of files, each recognised by its stamp)
    let (c0, w0) = (self_cpu(), Instant::now());
    let mut keys = content::load_keys(root).unwrap();
    let (keys_cpu, keys_wall) = (self_cpu() - c0, w0.elapsed());
    let (c0, w0) = (self_cpu(), Instant::now());
    let cold = Window::rebuilt(root, &keys, settings.clone());
    let (cold_cpu, cold_wall) = (self_cpu() - c0, w0.elapsed());
    let cold_len = cold.len();
    drop(cold);
    let (mut open, mut decide, mut save, mut cpu, mut wall) =
        (vec![], vec![], vec![], vec![], vec![]);
    let mut loaded = 0;
    for h in 0..hours {
        let hour = start + chrono::Duration::hours((recent + h) as i64);
        let mut items: Vec<Item> = window_items[next..]
            .iter()
            .take(per_hour)
            .cloned()
            .collect();
        next += items.len();
        let (c0, w0) = (self_cpu(), Instant::now());
        let mut window = Window::open(root, &keys, settings.clone());
        let c1 = self_cpu();
        loaded += usize::from(window.opened == Opened::Loaded);
        window.decide(&mut items, hour);
        let c2 = self_cpu();
        let w2 = w0.elapsed();
        let name = write_hour(root, hour, items, &mut keys);
        let (c3, w3) = (self_cpu(), Instant::now());
        window.record(&keys, &name);
        window.save(root);
        let c4 = self_cpu();
        open.push(ms(c1 - c0));
        decide.push(ms(c2 - c1));
        save.push(ms(c4 - c3));
        cpu.push(ms((c2 - c0) + (c4 - c3)));
        wall.push(ms(w2 + w3.elapsed()));
    }
    let size = std::fs::metadata(matome::layout::stories_window(root))
        .map(|m| m.len())
        .unwrap_or(0);
    println!(
        "fetch: {per_hour} items an hour, the window as derived state, at {} snapshot files ({days} days at {per_day}/day and a file an hour before them), {hours} hours; window {cold_len} items, {:.1} MB saved; {loaded} of {hours} hours loaded it",
        keys.file_count(),
        size as f64 / 1e6
    );
    println!(
        "  CPU per hour (open + decide + save)  {}",
        spread(&mut cpu)
    );
    println!(
        "  wall per hour                        {}",
        spread(&mut wall)
    );
    println!(
        "  CPU open (read, verify, restore)     {}",
        spread(&mut open)
    );
    println!(
        "  CPU decide                           {}",
        spread(&mut decide)
    );
    println!(
        "  CPU record + save                    {}",
        spread(&mut save)
    );
    println!(
        "  the fetch's key view at this size: CPU {:.1} ms, wall {:.1} ms; the window's cold rebuild from content/: CPU {:.0} ms, wall {:.0} ms",
        ms(keys_cpu),
        ms(keys_wall),
        ms(cold_cpu),
        ms(cold_wall)
    );
}

fn year(templates: &[Template]) {
    let n = env_usize("MATOME_BENCH_ITEMS", 365_000);
    let threads = env_usize("MATOME_BENCH_THREADS", 2);
    let per_day = env_usize("MATOME_BENCH_PER_DAY", 1000);
    let items = generate(templates, n, per_day, 11);
    let keys: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let batch: Vec<ToAssign> = items
        .iter()
        .zip(&keys)
        .map(|(item, key)| ToAssign {
            key,
            item,
            archived: item.published,
        })
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let (c0, w0) = (self_cpu(), Instant::now());
    let stories = pool.install(|| recompute(&batch, &Settings::default()));
    let (cpu, wall) = (self_cpu() - c0, w0.elapsed());
    let mut distinct: Vec<&String> = stories.iter().collect();
    distinct.sort();
    distinct.dedup();
    println!(
        "year: {n} items recomputed on {threads} threads: wall {:.1} s, CPU {:.1} s, {:.0} items/s; {} stories",
        wall.as_secs_f64(),
        cpu.as_secs_f64(),
        n as f64 / wall.as_secs_f64(),
        distinct.len()
    );
}

fn main() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/quality/stories.toml");
    let text = std::fs::read_to_string(path).expect("the development set is readable");
    let set: Set = toml::from_str(&text).expect("the development set parses");
    matome::analyze::Analyzer::get();
    hour(&set.items);
    if std::env::var_os("MATOME_BENCH_NO_FETCH").is_none() {
        fetch_path(&set.items);
    }
    if std::env::var_os("MATOME_BENCH_NO_YEAR").is_none() {
        year(&set.items);
    }
}
