//! An item's facts as story assignment compares them: its language, site, time, normalised
//! link and title, the words of its title and lead (lindera nouns and compounds, Latin words
//! stemmed, its 頻出ワード), and the numbers and release stage its title states. Computed once per
//! item from the analyser's public API ([`Analyzer::search_tokens`], [`Analyzer::terms`]);
//! owns nothing but that reading. Hashes only: a window of thousands of items stays small.

use chrono::{DateTime, FixedOffset};

use super::numbers::{self, Number};
use crate::analyze::{Analyzer, prepare, sentences, term_hash};
use crate::content::Item;

/// The language of an item's title.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Lang {
    /// Any kana or kanji in the title.
    Ja,
    /// Everything else.
    En,
}

/// Characters of the description read (its lead): enough for a wire story's first sentence
/// or two, and a bound on the work per item.
const LEAD_CHARS: usize = 320;

/// What story assignment knows of one item (serialisable: a derived-state cache may keep it).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Facts {
    pub lang: Lang,
    /// Hash of the site name.
    pub site: u64,
    /// Unix seconds: when the item counts as reported.
    pub time: i64,
    /// Hash of the normalised link ([`super::link::normalise`]), if it has one.
    pub link: Option<u64>,
    /// Hash of the title's letters and digits, lower-cased, outlet labels left out.
    pub title_key: u64,
    /// Term hashes of the title's words and telling numbers, sorted, unique.
    pub title: Vec<u64>,
    /// Term hashes of the title's compounds and names and the item's 頻出ワード that are not
    /// among its words, sorted, unique: they weigh like title words in the similarity but are
    /// not counted again as shared words (a compound repeats its parts).
    pub extra: Vec<u64>,
    /// Term hashes of the lead that the title lacks, sorted, unique.
    pub lead: Vec<u64>,
    /// The title's names: its Latin-script words and the organisations it names
    /// ([`super::names`]), sorted, unique. In a Japanese title the Latin words are names of
    /// companies, products and standards (`Chrome`, `EC2`, `Node.js`).
    pub latin: Vec<u64>,
    /// The numbers the title states (what a join must not contradict).
    pub numbers: Vec<Number>,
    /// The title announces a pre-release (beta, RC, preview, ベータ版 …).
    pub prerelease: bool,
    /// The kinds of event the title reports ([`super::events`]), as bits.
    pub events: u8,
    /// The central banks the title names ([`super::names`]), one bit each.
    pub central_banks: u8,
    /// The markets a market's move is of ([`super::events::markets`]), one bit each.
    pub markets: u8,
}

/// The word hashes of each alias of [`super::names`], as a title's words are hashed (made once).
static ALIAS_WORDS: std::sync::OnceLock<rustc_hash::FxHashMap<&'static str, Vec<u64>>> =
    std::sync::OnceLock::new();

/// Words of a pre-release (compared on the lower-cased title).
const PRERELEASE: &[&str] = &[
    "beta",
    "rc",
    "release candidate",
    "preview",
    "alpha",
    "nightly",
    "canary",
    "dev channel",
    "ベータ",
    "プレビュー",
    "候補版",
    "開発版",
    "先行版",
];

impl Facts {
    /// The facts of `item`, taken to be reported at `at` or at its published time if earlier
    /// (a feed's future dates never move the window).
    pub fn of(item: &Item, at: DateTime<FixedOffset>) -> Facts {
        let a = Analyzer::get();
        let prepared = prepare(&item.title);
        let stripped = strip_outlet_labels(&prepared);
        let lower = stripped.to_lowercase();
        let mut title = Vec::new();
        let mut latin = Vec::new();
        for w in words(a, stripped) {
            let h = hash(&w);
            // one letter is not a name (the G of a group's name, a grade)
            if w.len() > 1 && w.bytes().all(|b| b.is_ascii_alphanumeric()) {
                latin.push(h);
            }
            title.push(h);
        }
        let numbers = numbers::numbers(&lower);
        title.extend(numbers.iter().filter(|n| n.telling()).map(|n| n.term()));
        // an organisation's one term in place of the alias the title wrote
        let alias_words = ALIAS_WORDS.get_or_init(|| {
            super::names::aliases()
                .map(|alias| (alias, words(a, alias).iter().map(|w| hash(w)).collect()))
                .collect()
        });
        let names = super::names::find(&lower, |alias| {
            alias_words.get(alias).cloned().unwrap_or_default()
        });
        title.retain(|h| !names.aliases.contains(h));
        title.extend(&names.terms);
        latin.extend(&names.terms);
        latin.extend(&names.parents);
        sort_unique(&mut title);
        let mut extra: Vec<u64> = a.terms(stripped).iter().map(|t| hash(&t.key)).collect();
        for k in &item.keywords {
            let k = prepare(k).to_lowercase();
            extra.push(hash(&k));
        }
        sort_unique(&mut extra);
        extra.retain(|h| title.binary_search(h).is_err() && !names.aliases.contains(h));
        sort_unique(&mut latin);
        let lead = lead_terms(a, &item.text, &title, &extra);
        let prerelease = prerelease(&lower);
        Facts {
            lang: if item.title.chars().any(japanese) {
                Lang::Ja
            } else {
                Lang::En
            },
            site: crate::hash::fnv1a(item.site.as_bytes()),
            time: item.published.min(at).timestamp(),
            link: super::link::normalise(&item.link).map(|l| crate::hash::fnv1a(l.as_bytes())),
            title_key: title_key(&prepared),
            title,
            extra,
            lead,
            latin,
            numbers,
            prerelease,
            events: super::events::kinds(&lower),
            markets: super::events::markets(&lower),
            central_banks: names.central_banks,
        }
    }
}

/// Whether a lower-cased title announces a pre-release: a Latin word of [`PRERELEASE`] as a
/// whole word or its plural (`rc` not in `src`; `public betas`, not the verb `previews`), a Japanese one anywhere
/// (`7.0ベータ版`).
fn prerelease(lower: &str) -> bool {
    PRERELEASE.iter().any(|w| {
        lower.match_indices(w).any(|(i, _)| {
            if !w.is_ascii() {
                return true;
            }
            let before = lower[..i].chars().next_back();
            // a plural counts (public betas), not a verb's -s (apple previews features)
            let rest = &lower[i + w.len()..];
            let plural = matches!(*w, "beta" | "alpha" | "rc");
            let rest = rest.strip_prefix('s').filter(|_| plural).unwrap_or(rest);
            let after = rest.chars().next();
            !before.is_some_and(|c| c.is_ascii_alphanumeric())
                && !after.is_some_and(|c| c.is_ascii_alphabetic())
        })
    })
}

/// Term hashes of the first sentences of `text` (at most [`LEAD_CHARS`]) not in the title's.
fn lead_terms(a: &Analyzer, text: &str, title: &[u64], extra: &[u64]) -> Vec<u64> {
    let mut lead = String::new();
    let mut chars = 0;
    for s in sentences(text) {
        if chars >= LEAD_CHARS {
            break;
        }
        lead.extend(s.chars().take(LEAD_CHARS - chars));
        chars += s.chars().count().min(LEAD_CHARS - chars);
        lead.push(' ');
    }
    let prepared = prepare(&lead);
    let mut out: Vec<u64> = words(a, &prepared).iter().map(|w| hash(w)).collect();
    let lower = prepared.to_lowercase();
    out.extend(
        numbers::numbers(&lower)
            .iter()
            .filter(|n| n.telling())
            .map(|n| n.term()),
    );
    sort_unique(&mut out);
    out.retain(|h| title.binary_search(h).is_err() && extra.binary_search(h).is_err());
    out
}

/// The words of prepared text worth comparing ([`useful`]), a run of katakana words written
/// together taken as one (the analyser splits an unknown name: ハルカゼ is ハル + カゼ, and one
/// name must count once).
fn words(a: &Analyzer, prepared: &str) -> Vec<String> {
    let katakana = |s: &str| s.chars().all(|c| matches!(c, '\u{30a0}'..='\u{30ff}'));
    let mut out: Vec<String> = Vec::new();
    let mut run_end = None;
    for t in a.search_tokens(prepared) {
        if run_end == Some(t.start) && katakana(&t.text) {
            if let Some(last) = out.last_mut() {
                last.push_str(&t.text);
            }
            run_end = Some(t.end);
            continue;
        }
        run_end = None;
        if !useful(&t.text) {
            continue;
        }
        if katakana(&t.text) {
            run_end = Some(t.end);
        }
        out.push(t.text);
    }
    out
}

/// A term's hash, katakana's long-vowel mark left out (アベイラビリティーゾーン and
/// アベイラビリティゾーン are one word).
fn hash(term: &str) -> u64 {
    if term.contains('ー') {
        term_hash(&term.replace('ー', ""))
    } else {
        term_hash(term)
    }
}

fn sort_unique(v: &mut Vec<u64>) {
    v.sort_unstable();
    v.dedup();
}

/// Kana or a CJK ideograph.
pub fn japanese(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}')
}

/// A token worth comparing: not a bare number (numbers are read by kind), not a lone kana.
fn useful(text: &str) -> bool {
    let mut chars = text.chars();
    let (Some(first), rest) = (chars.next(), chars.next()) else {
        return false;
    };
    if text
        .bytes()
        .all(|b| b.is_ascii_digit() || b == b'.' || b == b',')
    {
        return false;
    }
    rest.is_some() || !matches!(first, '\u{3040}'..='\u{30ff}') && first.is_alphanumeric()
}

/// The title without an outlet's labels: a leading `[ITmedia News]` or `【速報】`, a trailing
/// `（ITmedia NEWS）` or `(ロイター)` as aggregators append (short brackets only).
pub fn strip_outlet_labels(title: &str) -> &str {
    let mut t = title.trim();
    for (open, close) in [('[', ']'), ('【', '】')] {
        if t.starts_with(open)
            && let Some(end) = t.find(close)
            && t[..end].chars().count() <= 24
            && end + close.len_utf8() < t.len()
        {
            t = t[end + close.len_utf8()..].trim_start();
        }
    }
    for (open, close) in [('(', ')'), ('（', '）')] {
        if t.ends_with(close)
            && let Some(start) = t.rfind(open)
            && t[start..].chars().count() <= 24
            && start > 0
        {
            t = t[..start].trim_end();
        }
    }
    t
}

/// The hash of a title's letters and digits, lower-cased, without outlet labels: copies of
/// one headline share it.
pub fn title_key(prepared: &str) -> u64 {
    let t: String = strip_outlet_labels(prepared)
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    crate::hash::fnv1a(t.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outlet_labels_are_not_the_headline() {
        assert_eq!(
            strip_outlet_labels("食品卸の丸越フーズにランサムウェア攻撃（ITmedia NEWS）"),
            "食品卸の丸越フーズにランサムウェア攻撃"
        );
        assert_eq!(strip_outlet_labels("【速報】日銀が利上げ"), "日銀が利上げ");
        assert_eq!(strip_outlet_labels("[ITmedia News] 新型PC"), "新型PC");
        // a title that is only a bracket keeps it
        assert_eq!(strip_outlet_labels("（お知らせ）"), "（お知らせ）");
        assert_eq!(
            title_key(&prepare("Rust 1.86.0 is out!")),
            title_key(&prepare("rust 1.86.0 is out"))
        );
    }

    #[test]
    fn a_japanese_prerelease_word_needs_no_word_boundary() {
        assert!(prerelease("typescript 7.0ベータ版が登場"));
        assert!(prerelease("announcing typescript 7.0 beta"));
        assert!(!prerelease("rust 1.94.1 released"));
        assert!(prerelease(
            "releasing windows 11 build 26300.7145 to the dev channel"
        ));
        assert!(!prerelease("a new src layout"));
        assert!(prerelease("apple releases first public betas of ios 27"));
        assert!(!prerelease("alphabet shares rise"));
        assert!(!prerelease("apple previews new accessibility features"));
    }

    #[test]
    fn a_katakana_name_split_by_the_analyser_is_one_word() {
        let a = Analyzer::get();
        let w = words(a, &prepare("ハルカゼ住宅、平屋住宅を発売"));
        assert!(w.contains(&"ハルカゼ".to_string()), "{w:?}");
        assert!(!w.contains(&"カゼ".to_string()), "{w:?}");
    }

    #[test]
    fn tokens_worth_comparing() {
        assert!(useful("日銀"));
        assert!(useful("銀"));
        assert!(useful("rust"));
        assert!(!useful("の"));
        assert!(!useful("2026"));
        assert!(!useful(""));
    }
}
