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
//! ```text
//! scripts/bench-yield                         # the whole comparison
//! ls *.xml | cargo bench --bench yield        # counts only
//! ```

use std::collections::HashSet;
use std::io::{BufRead, Write};

use matome::fetch::decode::{self, DecodeError};
use matome::fetch::parse;

fn main() {
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
        let mut obj = serde_json::json!({"file": path, "status": status, "entries": entries});
        if let Some(e) = error {
            obj["error"] = e.into();
        }
        writeln!(out, "{obj}").expect("stdout");
    }
    out.flush().expect("stdout");
}

fn count(path: &str, charset: Option<&str>) -> (&'static str, usize, Option<String>) {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return ("read-error", 0, Some(e.to_string())),
    };
    let text = match decode::decode(&bytes, charset) {
        Ok(t) => t,
        Err(e @ DecodeError::Undecodable { .. }) if e.to_string().ends_with("none") => {
            return ("undeclared-charset", 0, Some(e.to_string()));
        }
        Err(e) => return ("decode-error", 0, Some(e.to_string())),
    };
    let url = "http://example.com/feed.xml";
    match parse::parse_feed(&text, url) {
        Ok(feed) => {
            let ids: HashSet<String> = feed.entries.iter().map(parse::stable_id).collect();
            ("ok", ids.len(), None)
        }
        Err(e) => ("parse-error", 0, Some(e)),
    }
}
