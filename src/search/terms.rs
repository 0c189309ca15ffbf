//! What a search matches: how text and queries become terms, for all three search paths —
//! `matome search` and `serve`'s API (the tantivy index, [`super::index`]) and the static page
//! (the static index, [`super::static_index`], read by `themes/default/static/search.js`, which
//! mirrors this file and is checked against it by the browser tests).
//!
//! Text is [`normalize`]d (NFKC, then lower case) and cut into terms, each at a position:
//!
//! - a run of letters and digits that are not CJK is a **word**, at one position, indexed by its
//!   Snowball English (Porter2) stem: `regulations` finds `Regulators`;
//! - a run of CJK characters (kanji, kana, hangul) takes one position per character: character
//!   `k` of the run gives the **unigram** of that character and the **bigram** of it and the
//!   next, both at the run's start + `k`. So 新幹線 is 新, 新幹, 幹, 幹線, 線 at 0, 0, 1, 1, 2.
//!
//! A query is clauses ([`parse_query`]): words separated by white space are AND-ed, a
//! `"quoted phrase"` is one clause, `-clause` excludes. A clause's terms ([`clause_terms`]) are
//! its words and, of each CJK run, the bigrams (the unigram when the run is one character), at
//! their positions; an item matches a clause when the title or the summary has all of them at
//! those positions relative to one another. For CJK text that is exactly "contains it as
//! written": 幹線 finds 新幹線, 気候変動 never matches 気候 and 変動 apart, and 円 finds 円安.
//! Words match whole, by stem, in order. A clause with nothing to look for — only English stop
//! words ([`stop_words`]: `the`, `of`), or a lone kana (`の`, `は`) — is dropped, and a query
//! with no clause left to look for matches nothing. A lone kanji (円, 株, 税, 米) is searchable.
//!
//! What is searched: the title and the summary, the text a result shows (not the keywords,
//! which come from them, nor the feed's full text, which the static index could not hold).

use std::sync::LazyLock;

use rustc_hash::{FxHashMap, FxHashSet};
use unicode_normalization::UnicodeNormalization;

use crate::text::is_cjk;

/// The kind of a term (what the static index keeps: every word and bigram, unigrams of kanji).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermKind {
    /// A stemmed word.
    Word,
    /// One CJK character.
    Unigram,
    /// Two CJK characters.
    Bigram,
}

/// One term of a text: its text, position, kind and byte range in the normalised text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    pub text: String,
    pub position: u32,
    pub kind: TermKind,
    pub start: usize,
    pub end: usize,
}

/// Text as it is indexed and matched: NFKC (full-width Latin to ASCII, half-width kana to
/// full-width), then lower case. The page applies `normalize('NFKC').toLowerCase()`.
pub fn normalize(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    text.nfkc().collect::<String>().to_lowercase()
}

/// Characters of words: letters and digits that are not CJK (`\p{Alphabetic}` or `\p{N}` in the
/// page). Everything else but CJK separates terms.
pub fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk(c)
}

/// Kanji (and 々〆〇): a lone one is a query of its own; a lone kana is not.
pub fn is_han(c: char) -> bool {
    matches!(c,
        '\u{3005}'..='\u{3007}'
        | '\u{3400}'..='\u{4dbf}'
        | '\u{4e00}'..='\u{9fff}'
        | '\u{f900}'..='\u{faff}'
        | '\u{20000}'..='\u{3ffff}')
}

/// The English stop words of search: function words only (the analyser's longer list, made
/// for keywords, has `new`, `news` and `year`, which readers search for). A clause of only these
/// has nothing to look for. The static index's manifest carries them for the page.
pub fn stop_words() -> &'static [String] {
    static LIST: LazyLock<Vec<String>> = LazyLock::new(|| {
        "a an and are as at be but by for from had has have he her his i if in into is it its \
         of on or our she so than that the their them then there these they this those to was \
         we were what which who will with you your"
            .split_whitespace()
            .map(str::to_string)
            .collect()
    });
    &LIST
}

/// Whether a (lower-case, unstemmed) word is an English stop word.
pub fn is_stop_word(word: &str) -> bool {
    static SET: LazyLock<FxHashSet<&'static str>> =
        LazyLock::new(|| stop_words().iter().map(String::as_str).collect());
    SET.contains(word)
}

/// The Snowball English stem of a lower-case word (cached per thread: words recur).
pub fn stem(word: &str) -> String {
    thread_local! {
        static STEMS: std::cell::RefCell<(rust_stemmers::Stemmer, FxHashMap<String, String>)> =
            std::cell::RefCell::new((
                rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English),
                FxHashMap::default(),
            ));
    }
    STEMS.with(|c| {
        let (stemmer, cache) = &mut *c.borrow_mut();
        if let Some(s) = cache.get(word) {
            return s.clone();
        }
        let s = stemmer.stem(word).into_owned();
        if cache.len() > 200_000 {
            cache.clear();
        }
        cache.insert(word.to_string(), s.clone());
        s
    })
}

/// Calls `f` with every term of normalised text, in order: words (stemmed), and per CJK
/// character its unigram then (but for a run's last) its bigram. Returns the next position.
pub fn for_each_term(text: &str, f: &mut impl FnMut(Term)) -> u32 {
    scan(text, true, f)
}

/// One pass over normalised text; `all_grams`: a document's terms (every unigram), else a
/// clause's (bigrams, and the unigram of a one-character run).
fn scan(text: &str, all_grams: bool, f: &mut impl FnMut(Term)) -> u32 {
    let mut pos = 0u32;
    let mut word: Option<usize> = None;
    // The current CJK run: (byte offset, char) of its previous character, and its length.
    let mut prev: Option<(usize, char)> = None;
    let mut run = 0usize;
    let emit_word = |s: usize, e: usize, pos: &mut u32, f: &mut dyn FnMut(Term)| {
        f(Term {
            text: stem(&text[s..e]),
            position: *pos,
            kind: TermKind::Word,
            start: s,
            end: e,
        });
        *pos += 1;
    };
    let unigram = |at: usize, c: char, pos: u32| Term {
        text: c.to_string(),
        position: pos,
        kind: TermKind::Unigram,
        start: at,
        end: at + c.len_utf8(),
    };
    for (i, c) in text.char_indices() {
        if is_cjk(c) {
            if let Some(s) = word.take() {
                emit_word(s, i, &mut pos, f);
            }
            if let Some((at, p)) = prev {
                if all_grams {
                    f(unigram(at, p, pos));
                }
                f(Term {
                    text: format!("{p}{c}"),
                    position: pos,
                    kind: TermKind::Bigram,
                    start: at,
                    end: i + c.len_utf8(),
                });
                pos += 1;
            }
            prev = Some((i, c));
            run += 1;
            continue;
        }
        if let Some((at, p)) = prev.take() {
            if all_grams || run == 1 {
                f(unigram(at, p, pos));
            }
            pos += 1;
            run = 0;
        }
        if is_word_char(c) {
            word.get_or_insert(i);
        } else if let Some(s) = word.take() {
            emit_word(s, i, &mut pos, f);
        }
    }
    if let Some((at, p)) = prev {
        if all_grams || run == 1 {
            f(unigram(at, p, pos));
        }
        pos += 1;
    }
    if let Some(s) = word {
        emit_word(s, text.len(), &mut pos, f);
    }
    pos
}

/// The terms of one clause (its text normalised), positions from 0; empty when it has nothing
/// to look for (only stop words or a lone kana).
pub fn clause_terms(clause: &str) -> Vec<Term> {
    let text = normalize(clause);
    let mut out = Vec::new();
    scan(&text, false, &mut |t| out.push(t));
    let searchable = out.iter().any(|t| match t.kind {
        TermKind::Word => !is_stop_word(&text[t.start..t.end]),
        TermKind::Bigram => true,
        TermKind::Unigram => text[t.start..t.end].chars().all(is_han),
    });
    if !searchable {
        out.clear();
    }
    out
}

/// Whether the static index keeps a term: words, bigrams and kanji unigrams (a lone kana is
/// never a clause of its own, so its list would never be read; the page checks it in the text).
pub fn is_indexed(t: &Term) -> bool {
    t.kind != TermKind::Unigram || t.text.chars().all(is_han)
}

/// One clause of a query: words that must stand together (one word, or a quoted phrase).
#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    pub text: String,
    pub exclude: bool,
}

/// Splits a query into clauses: `"quoted phrases"`, `-excluded` words or phrases, other words.
/// (The page's `parseQuery` does the same.)
pub fn parse_query(q: &str) -> Vec<Clause> {
    let mut out = Vec::new();
    let mut rest = q.trim();
    while !rest.is_empty() {
        // `-`, and the minus signs a Japanese keyboard types (－, −), exclude.
        let (exclude, body) = match rest.strip_prefix(['-', '\u{ff0d}', '\u{2212}']) {
            Some(r) if !r.is_empty() && !r.starts_with(char::is_whitespace) => (true, r),
            _ => (false, rest),
        };
        let (text, after) = if let Some(r) = body.strip_prefix(['"', '\u{201c}', '\u{ff02}']) {
            match r.find(['"', '\u{201d}', '\u{ff02}']) {
                Some(end) => {
                    let close = r[end..].chars().next().map_or(1, char::len_utf8);
                    (&r[..end], &r[end + close..])
                }
                None => (r, ""),
            }
        } else {
            let end = body.find(char::is_whitespace).unwrap_or(body.len());
            (&body[..end], &body[end..])
        };
        if !text.trim().is_empty() {
            out.push(Clause {
                text: text.trim().to_string(),
                exclude,
            });
        }
        rest = after.trim_start();
    }
    out
}

/// Whether normalised `text` has the clause's terms at their relative positions (the reference
/// the indexes are tested against).
pub fn matches_clause(text: &str, terms: &[Term]) -> bool {
    let Some(first) = terms.first() else {
        return false;
    };
    let mut at: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    let mut doc = Vec::new();
    for_each_term(text, &mut |t| doc.push(t));
    for t in &doc {
        at.entry(t.text.as_str()).or_default().push(t.position);
    }
    let Some(starts) = at.get(first.text.as_str()) else {
        return false;
    };
    starts.iter().any(|&p| {
        terms.iter().all(|t| {
            at.get(t.text.as_str())
                .is_some_and(|ps| ps.contains(&(p + t.position - first.position)))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        for_each_term(&normalize(text), &mut |t| out.push((t.text, t.position)));
        out
    }

    fn m(text: &str, clause: &str) -> bool {
        matches_clause(&normalize(text), &clause_terms(clause))
    }

    #[test]
    fn cjk_runs_give_unigrams_and_bigrams_at_character_positions() {
        let s = |v: &[(&str, u32)]| {
            v.iter()
                .map(|(a, b)| (a.to_string(), *b))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            doc("新幹線 Trains"),
            s(&[
                ("新", 0),
                ("新幹", 0),
                ("幹", 1),
                ("幹線", 1),
                ("線", 2),
                ("train", 3)
            ])
        );
        assert_eq!(doc("米Apple"), s(&[("米", 0), ("appl", 1)]));
    }

    #[test]
    fn partial_words_and_lone_kanji_are_found_as_written() {
        assert!(m("東海道新幹線が運休", "幹線"));
        assert!(m("東海道新幹線が運休", "新幹線"));
        assert!(m("円安が進む", "円"));
        assert!(m("米Apple、決算", "米apple"));
        assert!(!m("気候が変わり株価変動", "気候変動"));
        assert!(m("ＡＢＣ銀行", "abc銀行"));
        assert!(m("Regulators act", "regulations"));
        assert!(!m("Deregulation", "regulations"));
        assert!(m("new regulation covers", "\"new regulation\""));
        assert!(!m("regulation new", "new regulation"));
    }

    #[test]
    fn stop_words_and_lone_kana_have_nothing_to_look_for() {
        for q in ["の", "は", "the", "of", "、", "!!"] {
            assert!(clause_terms(q).is_empty(), "{q}");
        }
        for q in ["株", "税", "です", "the cloud", "a円"] {
            assert!(!clause_terms(q).is_empty(), "{q}");
        }
    }

    #[test]
    fn clauses_split_quotes_and_exclusions() {
        let c = parse_query("日本銀行 -円安 \"public cloud\" －株 “全角 引用”");
        let got: Vec<(&str, bool)> = c.iter().map(|c| (c.text.as_str(), c.exclude)).collect();
        assert_eq!(
            got,
            [
                ("日本銀行", false),
                ("円安", true),
                ("public cloud", false),
                ("株", true),
                ("全角 引用", false)
            ]
        );
    }
}
