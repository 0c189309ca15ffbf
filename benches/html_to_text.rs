//! HTML-to-text benchmark: hostile 8 MiB descriptions (issue 11, finding 2).
//!
//! Times `matome::text::html_to_text` on descriptions of 8 MiB made of one unit repeated
//! (`<a`, `<div`, `<a "`, `<script></script>`, `<!`) and on 8 MiB of ordinary article HTML, and
//! `matome::fetch::parse::parse_feed` on an 8 MiB RSS feed whose one description is a CDATA
//! `<a` × 4 Mi. "Before" is the scanner this crate used until issue 11, kept as
//! `matome::text::reference` (the one copy, also the unit tests' reference); it is quadratic, so
//! it runs on 100 KB and 200 KB only (8 MiB would take hours).
//!
//! ```text
//! cargo bench --bench html_to_text              # 5 runs each; prints min / median / max
//! cargo bench --bench html_to_text -- --runs 9
//! ```

use std::time::{Duration, Instant};

use matome::text::{html_to_text, reference};

const MIB: usize = 1024 * 1024;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(5usize);

    let ordinary = "<p>日本銀行は<a href=\"https://example.com/x?a=1&amp;b=2\" title='政策'>金融政策決定会合</a>で、\
                    短期金利を据え置いた。<br/>Bank of Japan &hellip; <b>kept</b> rates.</p>\n\
                    <div class=\"img\"><img src=\"x.png\" alt=\"a>b\"></div><script>track()</script>\n";
    let units: [(&str, &str); 6] = [
        ("`<a` (unclosed tags)", "<a"),
        ("`<div` (unclosed tags)", "<div"),
        ("`<a \"` (unclosed quotes)", "<a \""),
        ("`<script></script>` pairs", "<script></script>"),
        ("`<!` (unclosed doctypes)", "<!"),
        ("ordinary article HTML", ordinary),
    ];
    println!("html_to_text, 8 MiB each, {runs} runs (min / median / max):");
    for (name, unit) in units {
        let html = sized(unit, 8 * MIB);
        let t = time(runs, || html_to_text(&html).len());
        println!("  {name:32} {}", t);
    }

    let mut feed = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><rss version=\"2.0\"><channel><title>t</title>\
         <link>http://example.com/</link><item><title>hostile</title><link>http://example.com/1</link>\
         <guid>1</guid><description><![CDATA[",
    );
    feed.push_str(&sized("<a", 8 * MIB - 400));
    feed.push_str("]]></description></item></channel></rss>");
    let t = time(runs, || {
        matome::fetch::parse::parse_feed(&feed, "http://example.com/feed")
            .expect("parses")
            .entries
            .len()
    });
    println!("parse_feed, 8 MiB RSS, one CDATA `<a` description: {t}");

    println!("before (the quadratic scanner), 1 run each:");
    for (name, unit) in &units[..4] {
        for kb in [100, 200] {
            let html = sized(unit, kb * 1000);
            let t = time(1, || reference::html_to_text(&html).len());
            println!("  {name:32} {kb} KB: {t}");
        }
    }
}

/// `unit` repeated to `len` bytes (whole units only).
fn sized(unit: &str, len: usize) -> String {
    unit.repeat(len / unit.len())
}

/// Runs `f` `runs` times; "min / median / max" in seconds.
fn time(runs: usize, mut f: impl FnMut() -> usize) -> String {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed()
        })
        .collect();
    times.sort();
    format!(
        "{:.3} / {:.3} / {:.3} s",
        times[0].as_secs_f64(),
        times[runs / 2].as_secs_f64(),
        times[runs - 1].as_secs_f64()
    )
}
