//! Analysis benchmark (issue 3): throughput of matome's text analysis on one thread, side by
//! side with MeCab's tokenising of the same Japanese text in the same run.
//!
//! The corpus is real Japanese prose: Debian's Japanese man pages and FAQ, built by
//! `scripts/bench-analyze-corpus` into `target/bench-corpus/ja.txt` (or the file named by
//! `MATOME_BENCH_CORPUS`). It is cut into news-item-sized documents: a title (the first line of a
//! chunk, at most 40 characters) and a text (the following lines, 400–800 characters), with a
//! category and site name as real items have.
//!
//! Timed, each the best of `MATOME_BENCH_REPEAT` (3) passes over every item:
//!
//! - **DocFreq**: `DocFreq::from_items` over all items, on a one-thread rayon pool (the
//!   once-per-archive cost; the hourly fetch only adds its new items);
//! - **prepare**: `prepare(title)` + `prepare(text)` (NFKC, URLs, white space);
//! - **tokenise**: `Analyzer::terms(&prepare(..))` of title and text;
//! - **item_terms**: `Analyzer::item_terms(item)`: the one analysis of an item (title, then the
//!   text sentence by sentence: prepare, tokenise, candidates and content words);
//! - **keywords_of**: `Analyzer::keywords_of(analysed, item, df, 3)`;
//! - **summary_of**: `Analyzer::summary_of(analysed, item, keywords, df, 200, 3)` (LexRank);
//! - **whole analysis**: item_terms + keywords_of + summary_of, as `annotate` does per item (but
//!   on this thread, not through rayon);
//! - **mecab -Owakati**: the same items, one per line (title, a space, the text with its line
//!   breaks as spaces), piped from a file to `mecab -Owakati` with stdout to /dev/null;
//!   **mecab** (default output, with every token's features, as lindera gives them) beside it;
//! - **lindera alone** (the same IPADIC, `Segmenter::new(Mode::Normal, ..)` as matome's): on the
//!   MeCab input lines (raw text, one segment call per item, the fair comparison with
//!   `mecab -Owakati`); then on the prepared lines matome segments (one call per line of title
//!   and text), with a fresh lattice per call (`Segmenter::segment`, what matome calls), with a
//!   reused one (`SegmentWorker`), and with every token's `details()` and surface copied as
//!   `Analyzer::tokens` does.
//!
//! Throughput is MB/s (10^6 bytes) of item text: the UTF-8 bytes of titles and texts.
//!
//! ```text
//! scripts/bench-analyze-corpus     # once; needs manpages-ja, debian-faq-ja (and groff)
//! cargo bench --bench analyze      # needs mecab and mecab-ipadic-utf8 for the MeCab rows
//! ```
//!
//! Knobs (environment): `MATOME_BENCH_CORPUS` (the corpus file), `MATOME_BENCH_REPEAT` (3),
//! `MATOME_BENCH_MECAB` (the mecab command, `mecab`), `MATOME_BENCH_PHASES=0` (time only the
//! whole analysis and MeCab), `MATOME_BENCH_LOOP=N` (repeat only the whole analysis N times, for
//! a profiler: `perf record --call-graph dwarf target/release/deps/analyze-* --bench`),
//! `MATOME_BENCH_DUMP=file` (write every item's keywords and summary there, one line each).

#[path = "common/mod.rs"]
mod common;
use common::{Rng, env_usize};
use std::hint::black_box;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lindera::mode::Mode;
use lindera::segmenter::Segmenter;
use matome::analyze::{Analyzer, DocFreq, prepare, sentences};
use matome::content::Item;

// The allocator the `matome` binary uses (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The same IPADIC matome embeds (build.rs exports LINDERA_WORKDIR to every target of the
/// package), loaded here again so lindera can be timed on its own, below matome's analyser.
mod ipadic {
    lindera_dictionary::embedded_dictionary!("/lindera-ipadic", EmbeddedIPADICLoader);
}

const KEYWORDS: usize = 3;
const SUMMARY_CHARS: usize = 200;
const SUMMARY_SENTENCES: usize = 3;

fn take_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Cuts the corpus into items: a title line (at most 40 characters), then lines up to a text of
/// 400–800 characters (a line that would overshoot is cut), as feed items look.
fn items_from(corpus: &str) -> Vec<Item> {
    const CATEGORIES: [&str; 4] = ["IT", "テクノロジー", "国内", "ドキュメント"];
    const SITES: [&str; 4] = [
        "Debian マニュアル",
        "JM Project",
        "Debian FAQ",
        "オープンソースニュース",
    ];
    let published = chrono::DateTime::parse_from_rfc3339("2021-07-20T08:00:00+09:00").unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut lines = corpus.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut items = Vec::new();
    while let Some(first) = lines.next() {
        let title = take_chars(first, 40).trim_end().to_string();
        let target = rng.range(400, 800);
        let mut text = String::new();
        let mut chars = 0;
        while chars < target {
            let Some(line) = lines.next() else { break };
            let n = line.chars().count();
            if !text.is_empty() {
                text.push('\n');
                chars += 1;
            }
            let take = take_chars(line, target.saturating_sub(chars).max(1));
            text.push_str(take);
            chars += n.min(take.chars().count());
        }
        if text.is_empty() {
            break;
        }
        let i = items.len();
        items.push(Item {
            id: format!("item-{i}"),
            feed: format!("https://example.com/feed/{}", i % 50),
            category: CATEGORIES[i % CATEGORIES.len()].to_string(),
            site: SITES[(i / 7) % SITES.len()].to_string(),
            title,
            link: format!("https://example.com/item/{i}"),
            published,
            keywords: Vec::new(),
            summary: String::new(),
            text,
            trend: None,
            story: String::new(),
        });
    }
    items
}

fn best_of<T>(repeat: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..repeat {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed());
        last = Some(r);
    }
    (best, last.expect("repeat >= 1"))
}

/// CPU time this thread has used (user + system): what the analysis costs whatever else the
/// machine runs, unlike wall time on a shared machine.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// CPU time (user + system) of this process's children that have ended and been waited for.
fn children_cpu() -> Duration {
    // SAFETY: getrusage fills one rusage through a valid pointer.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    assert_eq!(rc, 0, "getrusage(RUSAGE_CHILDREN)");
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Like [`best_of`], also the least CPU time of a pass on this thread.
fn best_of_cpu<T>(repeat: usize, mut f: impl FnMut() -> T) -> (Duration, Duration, T) {
    let mut cpu = Duration::MAX;
    let (wall, r) = best_of(repeat, || {
        let c = thread_cpu();
        let r = f();
        cpu = cpu.min(thread_cpu() - c);
        r
    });
    (wall, cpu, r)
}

fn mbps(bytes: u64, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64()
}

struct Row {
    what: String,
    time: Duration,
    note: String,
}

/// Runs `mecab args` with stdin from `input` and stdout to /dev/null; the best wall time and
/// the least CPU time (the child's user + system) of `repeat` runs, or why it could not run.
fn time_mecab(
    mecab: &str,
    args: &[&str],
    input: &std::path::Path,
    repeat: usize,
) -> Result<(Duration, Duration), String> {
    let mut best = Duration::MAX;
    let mut best_cpu = Duration::MAX;
    for _ in 0..repeat {
        let stdin = std::fs::File::open(input).map_err(|e| format!("{}: {e}", input.display()))?;
        let c = children_cpu();
        let t = Instant::now();
        let out = Command::new(mecab)
            .args(args)
            .stdin(stdin)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("{mecab}: {e}"))?;
        let d = t.elapsed();
        best_cpu = best_cpu.min(children_cpu() - c);
        if !out.status.success() || !out.stderr.is_empty() {
            return Err(format!(
                "{mecab} {args:?}: {}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        best = best.min(d);
    }
    Ok((best, best_cpu))
}

/// lindera on its own, below matome's analyser: where tokenising time goes.
fn lindera_rows(items: &[Item], lines: &str, repeat: usize, rows: &mut Vec<Row>) {
    let seg = Segmenter::new(
        Mode::Normal,
        ipadic::load().expect("the embedded IPADIC loads"),
        None,
    );
    let (d, n) = best_of(repeat, || {
        let mut n = 0;
        for line in lines.lines() {
            n += seg.segment(std::borrow::Cow::Borrowed(line)).unwrap().len();
        }
        n
    });
    rows.push(Row {
        what: "lindera: segment raw item lines".into(),
        time: d,
        note: format!("{} tokens; like mecab -Owakati", n),
    });
    // What matome segments: the prepared title and text, line by line.
    let prepared: Vec<String> = items
        .iter()
        .flat_map(|i| {
            [
                prepare(&i.title).into_owned(),
                prepare(&i.text).into_owned(),
            ]
        })
        .collect();
    let calls = prepared.iter().map(|p| p.lines().count()).sum::<usize>();
    let (d, _) = best_of(repeat, || {
        let mut n = 0;
        for p in &prepared {
            for line in p.lines() {
                n += seg.segment(std::borrow::Cow::Borrowed(line)).unwrap().len();
            }
        }
        n
    });
    rows.push(Row {
        what: "lindera: segment (fresh lattice)".into(),
        time: d,
        note: format!("{calls} calls; prepared lines; prepare untimed"),
    });
    let mut worker = seg.new_worker();
    let (d, _) = best_of(repeat, || {
        let mut n = 0;
        for p in &prepared {
            for line in p.lines() {
                n += worker.segment(line).unwrap().len();
            }
        }
        n
    });
    rows.push(Row {
        what: "lindera: SegmentWorker (reused)".into(),
        time: d,
        note: "prepared lines".into(),
    });
    let (d, _) = best_of(repeat, || {
        let mut n = 0;
        for p in &prepared {
            for line in p.lines() {
                for mut t in seg.segment(std::borrow::Cow::Borrowed(line)).unwrap() {
                    let surface = t.surface.to_string();
                    let details = t.details();
                    n += surface.len() + details.len();
                    black_box((surface, details));
                }
            }
        }
        n
    });
    rows.push(Row {
        what: "lindera: segment + details()".into(),
        time: d,
        note: "+ surface String, as Analyzer::tokens".into(),
    });
}

fn main() {
    let repeat = env_usize("MATOME_BENCH_REPEAT", 3).max(1);
    let phases = env_usize("MATOME_BENCH_PHASES", 1) != 0;
    let mecab = std::env::var("MATOME_BENCH_MECAB").unwrap_or_else(|_| "mecab".into());
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus_path = std::env::var_os("MATOME_BENCH_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/bench-corpus/ja.txt"));
    let corpus = match std::fs::read_to_string(&corpus_path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "error: cannot read the benchmark corpus {}: {e}\n\
                 build it with scripts/bench-analyze-corpus (needs the Debian packages \
                 manpages-ja and debian-faq-ja), or point MATOME_BENCH_CORPUS at a UTF-8 \
                 Japanese text file",
                corpus_path.display()
            );
            std::process::exit(2);
        }
    };

    let items = items_from(&corpus);
    let bytes: u64 = items
        .iter()
        .map(|i| (i.title.len() + i.text.len()) as u64)
        .sum();
    let chars: u64 = items
        .iter()
        .map(|i| (i.title.chars().count() + i.text.chars().count()) as u64)
        .sum();
    let sents: usize = items.iter().map(|i| sentences(&i.text).len()).sum();
    eprintln!(
        "corpus {} ({:.1} MB): {} items, {:.2} MB of item text ({} characters, {:.0} bytes per \
         item), {:.1} sentences per text",
        corpus_path.display(),
        corpus.len() as f64 / 1e6,
        items.len(),
        bytes as f64 / 1e6,
        chars,
        bytes as f64 / items.len() as f64,
        sents as f64 / items.len() as f64,
    );

    // The items for MeCab: one per line, the same text.
    let dir = root.join("target/bench-corpus");
    std::fs::create_dir_all(&dir).expect("create target/bench-corpus");
    let mecab_input = dir.join("items.txt");
    let mut lines = String::with_capacity(bytes as usize + 2 * items.len());
    for i in &items {
        lines.push_str(&i.title);
        lines.push(' ');
        lines.push_str(&i.text.replace('\n', " "));
        lines.push('\n');
    }
    std::fs::write(&mecab_input, &lines).expect("write items.txt");

    // Loading the analyser (the embedded dictionary) is not part of the throughput.
    let t = Instant::now();
    let a = Analyzer::get();
    let load = t.elapsed();

    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let refs: Vec<&Item> = items.iter().collect();
    let df_once = || one.install(|| DocFreq::from_items(&refs));

    // One item's whole analysis, as `annotate` does it (on this thread, not through rayon):
    // analysed once, then 頻出ワード and the summary from that.
    let analyse = |it: &Item, df: &DocFreq| {
        let t = a.item_terms(it);
        let kw = a.keywords_of(&t, it, df, KEYWORDS);
        let s = a.summary_of(&t, it, &kw, df, SUMMARY_CHARS, SUMMARY_SENTENCES);
        (kw, s)
    };

    if let Some(n) = std::env::var("MATOME_BENCH_LOOP")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        let df = df_once();
        let t = Instant::now();
        for _ in 0..n {
            for it in &items {
                black_box(analyse(it, &df));
            }
        }
        let d = t.elapsed();
        eprintln!(
            "{n} × whole analysis: {:.2} s, {:.2} MB/s",
            d.as_secs_f64(),
            mbps(bytes * n as u64, d)
        );
        return;
    }

    let (df_time, df) = best_of(repeat, df_once);
    assert_eq!(df.docs, items.len() as u64);
    let mut rows = vec![Row {
        what: "DocFreq::from_items (1 thread)".into(),
        time: df_time,
        note: format!("{} terms; once per archive", df.df.len()),
    }];
    if phases {
        let (d, _) = best_of(repeat, || {
            for it in &items {
                black_box(prepare(&it.title));
                black_box(prepare(&it.text));
            }
        });
        rows.push(Row {
            what: "prepare (NFKC, URLs, spaces)".into(),
            time: d,
            note: "title + text".into(),
        });
        let (d, n) = best_of(repeat, || {
            let mut n = 0;
            for it in &items {
                n += black_box(a.terms(&prepare(&it.title))).len();
                n += black_box(a.terms(&prepare(&it.text))).len();
            }
            n
        });
        rows.push(Row {
            what: "tokenise: terms(prepare(..))".into(),
            time: d,
            note: format!(
                "title + text, by line; {:.1} terms per item",
                n as f64 / items.len() as f64
            ),
        });
        let (d, analysed) = best_of(repeat, || {
            items.iter().map(|it| a.item_terms(it)).collect::<Vec<_>>()
        });
        rows.push(Row {
            what: "item_terms".into(),
            time: d,
            note: "prepare + tokenise by sentence".into(),
        });
        let (d, kws) = best_of(repeat, || {
            analysed
                .iter()
                .zip(&items)
                .map(|(t, it)| a.keywords_of(t, it, &df, KEYWORDS))
                .collect::<Vec<_>>()
        });
        rows.push(Row {
            what: "keywords_of".into(),
            time: d,
            note: format!("{KEYWORDS} per item (+ category, site)"),
        });
        let (d, _) = best_of(repeat, || {
            for ((t, it), kw) in analysed.iter().zip(&items).zip(&kws) {
                black_box(a.summary_of(t, it, kw, &df, SUMMARY_CHARS, SUMMARY_SENTENCES));
            }
        });
        rows.push(Row {
            what: "summary_of (LexRank)".into(),
            time: d,
            note: format!("{SUMMARY_CHARS} chars, {SUMMARY_SENTENCES} sentences"),
        });
    }
    let (whole, whole_cpu, (sample, digest)) = best_of_cpu(repeat, || {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let mut first = None;
        for it in &items {
            let r = analyse(it, &df);
            r.hash(&mut h);
            if first.is_none() {
                first = Some(r.clone());
            }
            black_box(r);
        }
        (first, h.finish())
    });
    if let Some(path) = std::env::var_os("MATOME_BENCH_DUMP") {
        let mut out = String::new();
        for it in &items {
            let (kw, s) = analyse(it, &df);
            out.push_str(&format!("{}\t{}\t{}\n", it.id, kw.join("|"), s));
        }
        std::fs::write(&path, out).expect("write MATOME_BENCH_DUMP");
    }
    rows.push(Row {
        what: "whole analysis".into(),
        time: whole,
        note: "item_terms + keywords_of + summary_of".into(),
    });

    if phases {
        lindera_rows(&items, &lines, repeat, &mut rows);
    }

    let mut mecab_wakati: Option<(Duration, Duration)> = None;
    for (what, args) in [
        ("mecab -Owakati", &["-Owakati"][..]),
        ("mecab (default output, features)", &[][..]),
    ] {
        match time_mecab(&mecab, args, &mecab_input, repeat) {
            Ok((d, cpu)) => {
                if mecab_wakati.is_none() {
                    mecab_wakati = Some((d, cpu));
                }
                rows.push(Row {
                    what: what.into(),
                    time: d,
                    note: "subprocess, file → /dev/null".into(),
                })
            }
            Err(e) => eprintln!("skipping {what}: {e}"),
        }
    }
    // MeCab's start-up (dictionary mmap), included in its rows above.
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "").expect("write empty.txt");
    let startup = time_mecab(&mecab, &["-Owakati"], &empty, repeat)
        .ok()
        .map(|(d, _)| d);

    if let Some((kw, s)) = &sample {
        eprintln!(
            "first item: {:?}\n  keywords {kw:?}\n  summary {s:?}\n\
             digest of every item's keywords and summary: {digest:016x}",
            items[0].title
        );
    }
    println!();
    println!(
        "analysis benchmark: {} items, {:.2} MB of item text, best of {repeat}; analyser load {:.1} ms",
        items.len(),
        bytes as f64 / 1e6,
        load.as_secs_f64() * 1e3
    );
    println!();
    println!(
        "| {:<36} | {:>8} | {:>8} | {:>9} | note",
        "step (one thread)", "time s", "MB/s", "µs/item"
    );
    println!(
        "|{:-<38}|{:->10}|{:->10}|{:->11}|{:-<10}",
        "", "", "", "", ""
    );
    for r in &rows {
        println!(
            "| {:<36} | {:>8.3} | {:>8.2} | {:>9.1} | {}",
            r.what,
            r.time.as_secs_f64(),
            mbps(bytes, r.time),
            r.time.as_secs_f64() * 1e6 / items.len() as f64,
            r.note
        );
    }
    println!();
    if let Some(s) = startup {
        println!(
            "mecab start-up (empty input): {:.1} ms, included above",
            s.as_secs_f64() * 1e3
        );
    }
    if let Some((m, m_cpu)) = mecab_wakati {
        let verdict = |ratio: f64| {
            if ratio >= 1.0 {
                "goal met: at least as fast as MeCab's tokenising"
            } else {
                "goal NOT met: slower than MeCab's tokenising alone"
            }
        };
        let ratio = m.as_secs_f64() / whole.as_secs_f64();
        println!(
            "whole analysis vs mecab -Owakati, wall: {:.2}× MeCab's speed ({})",
            ratio,
            verdict(ratio)
        );
        // CPU seconds hold on a shared machine, where wall time swings with the others' load.
        let ratio = m_cpu.as_secs_f64() / whole_cpu.as_secs_f64();
        println!(
            "whole analysis vs mecab -Owakati, CPU: {:.3} s vs {:.3} s, {:.2}× MeCab's speed ({})",
            whole_cpu.as_secs_f64(),
            m_cpu.as_secs_f64(),
            ratio,
            verdict(ratio)
        );
    }
}
