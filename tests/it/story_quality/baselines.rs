//! The two baselines of issue 24, run on the same items as the method: exact normalised title
//! match, and title word Jaccard as NewsBlur's title matching does it (significant-word
//! overlap: lower case, punctuation and English stop words dropped; character bigrams for
//! Japanese runs), single-link within 14 days at Jaccard ≥ 0.5.

use std::collections::{BTreeSet, HashMap};

use matome::analyze::prepare;
use matome::content::Item;

/// Jaccard a pair of titles needs.
const JACCARD: f64 = 0.5;
const DAYS: i64 = 14;

const STOP: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "in", "on", "at", "to", "for", "of", "with", "by",
    "from", "is", "are", "was", "were", "be", "been", "as", "its", "it", "this", "that", "after",
    "over", "into", "new", "says", "amid", "vs",
];

/// The title in lower case, letters and digits only (NFKC first).
fn normalised(title: &str) -> String {
    prepare(title)
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Items with one normalised title share a story (the first item's).
pub fn exact_title(items: &[Item]) -> Vec<String> {
    let mut first: HashMap<String, usize> = HashMap::new();
    items
        .iter()
        .enumerate()
        .map(|(i, it)| first.entry(normalised(&it.title)).or_insert(i).to_string())
        .collect()
}

fn cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}')
}

/// The title's significant words: Latin words and digits as words, Japanese runs as bigrams.
fn words(title: &str) -> BTreeSet<String> {
    let text = prepare(title).to_lowercase();
    let mut out = BTreeSet::new();
    let mut run: Vec<char> = Vec::new();
    let mut word = String::new();
    let flush_run = |run: &mut Vec<char>, out: &mut BTreeSet<String>| {
        if run.len() == 1 {
            out.insert(run[0].to_string());
        }
        for w in run.windows(2) {
            out.insert(w.iter().collect());
        }
        run.clear();
    };
    let flush_word = |word: &mut String, out: &mut BTreeSet<String>| {
        if !word.is_empty() && !STOP.contains(&word.as_str()) {
            out.insert(std::mem::take(word));
        }
        word.clear();
    };
    for c in text.chars() {
        if cjk(c) {
            flush_word(&mut word, &mut out);
            run.push(c);
        } else if c.is_alphanumeric() {
            flush_run(&mut run, &mut out);
            word.push(c);
        } else {
            flush_run(&mut run, &mut out);
            flush_word(&mut word, &mut out);
        }
    }
    flush_run(&mut run, &mut out);
    flush_word(&mut word, &mut out);
    out
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// Single-link clusters of titles with Jaccard ≥ [`JACCARD`] within [`DAYS`].
pub fn title_jaccard(items: &[Item]) -> Vec<String> {
    let sets: Vec<BTreeSet<String>> = items.iter().map(|i| words(&i.title)).collect();
    let mut parent: Vec<usize> = (0..items.len()).collect();
    for i in 0..items.len() {
        for j in 0..i {
            let dt = (items[i].published - items[j].published).num_days().abs();
            if dt > DAYS || sets[i].is_empty() || sets[j].is_empty() {
                continue;
            }
            let inter = sets[i].intersection(&sets[j]).count() as f64;
            let union = sets[i].union(&sets[j]).count() as f64;
            if inter / union >= JACCARD {
                let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    (0..items.len())
        .map(|i| find(&mut parent, i).to_string())
        .collect()
}
