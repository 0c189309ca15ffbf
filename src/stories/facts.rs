//! An item's facts as story assignment compares them: its language, site, time, normalised
//! link and title, the words of its title and lead (lindera nouns and compounds, Latin words
//! stemmed, its 頻出ワード), and the numbers and release stage its title states. Computed once per
//! item from the analyser's public API ([`Analyzer::search_tokens`], [`Analyzer::terms`]);
//! owns nothing but that reading. Hashes only: a window of thousands of items stays small.

use chrono::{DateTime, FixedOffset};

use super::numbers::{self, Number};
use crate::analyze::{Analyzer, prepare, sentences, term_hash};
use crate::content::Item;
use crate::text::is_japanese;

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
    /// For each of [`Facts::title`]'s terms, the run of the title it stands in: the pieces the
    /// analyser cut one Japanese compound into (中小 + 企業 + 向け) share a run, every other
    /// term has its own. Two titles sharing one compound share one thing, not three.
    pub title_runs: Vec<u32>,
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
        let mut title: Vec<(u64, u32)> = Vec::new();
        let mut latin = Vec::new();
        let runs = title_words(a, stripped);
        let mut next_run = runs.last().map_or(0, |w| w.1 + 1);
        for (w, run) in runs {
            let h = hash(&w);
            // one letter is not a name (the G of a group's name, a grade)
            if w.len() > 1 && w.bytes().all(|b| b.is_ascii_alphanumeric()) {
                latin.push(h);
            }
            title.push((h, run));
        }
        let mut own_run = |h: u64| {
            next_run += 1;
            (h, next_run)
        };
        let numbers = numbers::numbers(&lower);
        title.extend(
            numbers
                .iter()
                .filter(|n| n.telling())
                .map(|n| own_run(n.term())),
        );
        // an organisation's one term in place of the alias the title wrote
        let alias_words = ALIAS_WORDS.get_or_init(|| {
            super::names::aliases()
                .map(|alias| (alias, words(a, alias).iter().map(|w| hash(w)).collect()))
                .collect()
        });
        let names = super::names::find(&lower, |alias| {
            alias_words.get(alias).cloned().unwrap_or_default()
        });
        title.retain(|(h, _)| !names.aliases.contains(h));
        title.extend(names.terms.iter().map(|&h| own_run(h)));
        latin.extend(&names.terms);
        latin.extend(&names.parents);
        title.sort_unstable();
        title.dedup_by_key(|t| t.0);
        let (title, title_runs): (Vec<u64>, Vec<u32>) = title.into_iter().unzip();
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
            lang: if item.title.chars().any(is_japanese) {
                Lang::Ja
            } else {
                Lang::En
            },
            site: crate::hash::fnv1a(item.site.as_bytes()),
            time: item.published.min(at).timestamp(),
            link: super::link::normalise(&item.link).map(|l| crate::hash::fnv1a(l.as_bytes())),
            title_key: title_key(&prepared),
            title,
            title_runs,
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

/// Words a Japanese title writes right after a number as part of an amount — currencies and
/// the large units — and the suffix 向け: 3300円 and 1兆円 are amounts (read as numbers),
/// 中小企業向け is 中小企業. As words of their own they would be shared by any two titles with
/// amounts in yen.
const ATTACHED: &[&str] = &["円", "ドル", "兆", "億", "万", "向け"];

/// Counters and suffixes that end what they are written after: 3日ぶり反発 is a count and a
/// move, not one compound.
const BREAKS: &[&str] = &[
    "日", "年", "月", "週", "時間", "分", "件", "人", "社", "倍", "割", "回", "期", "ぶり", "連続",
];

/// The title's words ([`words`]) with the run each stands in: Japanese words written
/// together (no space, symbol or particle between them: one compound as the analyser cut it)
/// share a run; a Latin word, a word after a gap, a counter ([`BREAKS`]) and the word after
/// one start a run. A currency or suffix ([`ATTACHED`]) written right after another token is
/// no word of its own.
fn title_words(a: &Analyzer, prepared: &str) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    let mut run = 0;
    // where the last word ended, and whether a run may go on after it
    let mut prev: Option<(usize, bool)> = None;
    for w in word_spans(a, prepared) {
        if w.attached && ATTACHED.contains(&w.text.as_str()) {
            continue;
        }
        let ja = w.text.chars().all(is_japanese);
        let breaks = BREAKS.contains(&w.text.as_str());
        let joined = !breaks && prev.is_some_and(|(end, open)| end == w.start && open && ja);
        if !joined && prev.is_some() {
            run += 1;
        }
        prev = Some((w.end, ja && !breaks));
        out.push((w.text, run));
    }
    out
}

/// The words of prepared text worth comparing ([`useful`]), a run of katakana words written
/// together taken as one (the analyser splits an unknown name: ハルカゼ is ハル + カゼ, and one
/// name must count once).
fn words(a: &Analyzer, prepared: &str) -> Vec<String> {
    word_spans(a, prepared)
        .into_iter()
        .map(|w| w.text)
        .collect()
}

/// A word of [`words`] and where it stands.
struct Span {
    text: String,
    /// Its byte range in the prepared text.
    start: usize,
    end: usize,
    /// Written right after the token before it, skipped or not (a counter after its number).
    attached: bool,
}

/// [`words`] with their places.
fn word_spans(a: &Analyzer, prepared: &str) -> Vec<Span> {
    let katakana = |s: &str| s.chars().all(|c| matches!(c, '\u{30a0}'..='\u{30ff}'));
    let mut out: Vec<Span> = Vec::new();
    let mut run_end = None;
    let mut token_end = None;
    for t in a.search_tokens(prepared) {
        let attached = token_end == Some(t.start);
        token_end = Some(t.end);
        if run_end == Some(t.start) && katakana(&t.text) {
            if let Some(last) = out.last_mut() {
                last.text.push_str(&t.text);
                last.end = t.end;
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
        out.push(Span {
            text: t.text,
            start: t.start,
            end: t.end,
            attached,
        });
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
    fn the_pieces_of_one_compound_share_a_run_and_counters_end_one() {
        let a = Analyzer::get();
        let w = title_words(
            a,
            &prepare("大手銀行、中小企業向け脱炭素融資に専用枠　総額1兆円"),
        );
        let run = |word: &str| w.iter().find(|x| x.0 == word).map(|x| x.1);
        assert_eq!(run("中小"), run("企業"), "{w:?}");
        assert_ne!(
            run("企業"),
            run("脱"),
            "向け ends what it is written after: {w:?}"
        );
        assert_eq!(run("脱"), run("融資"), "{w:?}");
        assert_ne!(run("融資"), run("専用"), "a particle between: {w:?}");
        assert!(
            run("向け").is_none() && run("円").is_none() && run("兆").is_none(),
            "{w:?}"
        );
        let w = title_words(a, &prepare("日経平均、3日ぶり反発　米CPI控え"));
        let run = |word: &str| w.iter().find(|x| x.0 == word).map(|x| x.1);
        assert_ne!(run("日"), run("ぶり"), "{w:?}");
        assert_ne!(run("ぶり"), run("反発"), "{w:?}");
        assert_ne!(run("米"), run("cpi"), "a Latin word is its own run: {w:?}");
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
