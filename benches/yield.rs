//! Feed-parser yield: how many items matome would archive from each feed file.
//!
//! Not a timing benchmark: `scripts/bench-yield` runs it over public feed-parser test suites and
//! compares its counts with feedparser's. It reads one file a line on stdin (`PATH`, or
//! `PATH<TAB>CHARSET` when the file stands for an HTTP response with a Content-Type charset),
//! decodes each file as a fetch run does (`fetch::decode`), parses it (`fetch::parse::parse_feed`)
//! and counts the distinct item ids a run would archive. It prints one JSON object a line:
//!
//! ```text
//! {"file":"…","status":"ok","entries":3}
//! {"file":"…","status":"undeclared-charset","entries":0,"error":"…"}   // refused: never guessed
//! {"file":"…","status":"decode-error"|"parse-error"|"read-error","entries":0,"error":"…"}
//! ```
//!
//! With `MATOME_YIELD_ITEMS=1` each line also has `items`: id, title, link, published and the
//! start of the text of each distinct item.
//!
//! ```text
//! scripts/bench-yield                         # the whole comparison
//! ls *.xml | cargo bench --bench yield        # counts only
//! ```

use std::collections::HashSet;
use std::io::{BufRead, Write};

use matome::fetch::decode::{self, DecodeError};
use matome::fetch::parse;

fn main() {
    let detail = std::env::var_os("MATOME_YIELD_ITEMS").is_some();
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let (path, charset) = match line.split_once('\t') {
            Some((p, c)) => (p, Some(c).filter(|c| !c.is_empty())),
            None => (line.as_str(), None),
        };
        let (status, entries, error) = count(path, charset);
        let mut obj = serde_json::json!({"file": path, "status": status, "entries": entries.len()});
        if let Some(e) = error {
            obj["error"] = e.into();
        }
        if detail {
            obj["items"] = entries.into();
        }
        writeln!(out, "{obj}").expect("stdout");
    }
    out.flush().expect("stdout");
}

/// The file's status, its distinct items (id, title, link, published, start of the text) and
/// the error.
fn count(
    path: &str,
    charset: Option<&str>,
) -> (&'static str, Vec<serde_json::Value>, Option<String>) {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return ("read-error", Vec::new(), Some(e.to_string())),
    };
    let text = match decode::decode(&bytes, charset) {
        Ok(t) => t,
        Err(e @ DecodeError::Undecodable { .. }) if e.to_string().ends_with("none") => {
            return ("undeclared-charset", Vec::new(), Some(e.to_string()));
        }
        Err(e) => return ("decode-error", Vec::new(), Some(e.to_string())),
    };
    let url = "http://example.com/feed.xml";
    match parse::parse_feed(&text, url) {
        Ok(feed) => {
            let mut ids = HashSet::new();
            let items = feed
                .entries
                .iter()
                .filter(|e| ids.insert(parse::stable_id(e)))
                .map(|e| {
                    serde_json::json!({
                        "id": parse::stable_id(e),
                        "title": e.title,
                        "link": e.link,
                        "published": e.published.map(|p| p.to_rfc3339()),
                        "text": e.text.chars().take(80).collect::<String>(),
                    })
                })
                .collect();
            ("ok", items, None)
        }
        Err(e) => ("parse-error", Vec::new(), Some(e)),
    }
}
