//! Text analysis of archived items: 頻出ワード (keywords) and summaries.
//!
//! Owns the one analyser that 頻出ワード, the summaries' sentence similarity and the tantivy
//! index ([`Analyzer::search_tokens`]) share, so that a word shown on a page is a word search
//! finds. (The static search of the search page has its own tokeniser, CJK bigrams and English
//! stems, in `search::static_index` and `search.js`.) Japanese goes through lindera with IPADIC
//! (compiled from Debian's mecab-ipadic by build.rs and embedded); Latin-script words are
//! case-folded, filtered by a stop list and stemmed for matching. Knows nothing about HTTP or
//! files beyond the document-frequency cache in [`df`]; rewriting snapshot files with fresh
//! analyses is the `matome analyze` command's ([`crate::reanalyze`]).

pub mod df;
mod rank;
pub mod summary;

use std::borrow::Cow;
use std::sync::OnceLock;

use compact_str::CompactString;
use lindera::mode::Mode;
use lindera::segmenter::Segmenter;
use rustc_hash::{FxHashMap, FxHashSet};
use unicode_normalization::UnicodeNormalization;

pub use df::DocFreq;
pub use summary::sentences;

use crate::config::AnalyzeSettings;
use crate::content::Item;

/// Bumped whenever what the analyser produces changes: cached document frequencies are rebuilt.
pub const ANALYZER_VERSION: u32 = 2;

mod ipadic {
    // Reads $LINDERA_WORKDIR/lindera-ipadic/* (written by build.rs) with include_bytes!.
    lindera_dictionary::embedded_dictionary!("/lindera-ipadic", EmbeddedIPADICLoader);
}

const STOP_JA: &str = include_str!("../../data/stopwords-ja.txt");
const STOP_EN: &str = include_str!("../../data/stopwords-en.txt");

/// How a token takes part in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// 名詞 一般, 固有名詞, サ変接続, 形容動詞語幹: heads of compounds.
    Noun,
    /// 名詞 接尾 (化, 率, 局 …): only inside a compound.
    Suffix,
    /// 名詞 数.
    Number,
    /// 接頭詞 名詞接続 (新, 各 …): only at the start of a compound.
    Prefix,
    /// A word of Latin letters (and digits).
    Latin,
    /// White space between words.
    Space,
    /// Anything else: particles, verbs, symbols, 非自立 and 代名詞 nouns.
    Break,
}

/// A token, borrowing its surface from the analysed line.
#[derive(Debug, Clone)]
struct Tok<'a> {
    surface: &'a str,
    /// Byte offset of the surface in the line.
    start: usize,
    kind: Kind,
    /// 名詞 サ変接続.
    sahen: bool,
    /// On the Japanese stop list.
    stop: bool,
    /// 名詞 固有名詞 (組織, 人名, 地域, 一般).
    proper: bool,
}

/// A word or phrase that may become a keyword.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Term {
    /// The matching form: lower case, English words stemmed.
    /// (Inline up to 24 bytes: most terms never touch the heap.)
    pub key: CompactString,
    /// The readable form, as written, when it differs from `key` (see [`Term::display`]).
    pub written: Option<String>,
    /// An English phrase of two words (counts only when it recurs).
    pub phrase: bool,
    /// A lone サ変接続 noun (停止, 改正, 上昇 …) or an English -ed/-ing word: an action more
    /// than a topic, so it ranks lower.
    pub weak: bool,
    /// An English name (capitalised mid-sentence, or an acronym): ranks higher.
    pub proper: bool,
}

/// The shared analyser. Create it once with [`Analyzer::get`]; it is cheap to share across
/// threads (the dictionary is embedded and loaded without copying).
pub struct Analyzer {
    segmenter: Segmenter,
    stop_ja: FxHashSet<&'static str>,
    stop_en: FxHashSet<&'static str>,
    stemmer: rust_stemmers::Stemmer,
}

fn word_list(text: &'static str) -> FxHashSet<&'static str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// Text ready for analysis: NFKC (full-width Latin and digits to ASCII, half-width katakana to
/// full-width), URLs removed, white space folded.
pub fn prepare(text: &str) -> Cow<'_, str> {
    let mut s = nfkc(text);
    if s.contains("http") {
        let mut out = String::with_capacity(s.len());
        for (i, word) in s.split(' ').enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&strip_urls(word));
        }
        s = Cow::Owned(out);
    }
    if crate::text::is_folded(&s) {
        s
    } else {
        Cow::Owned(crate::text::fold_whitespace(&s))
    }
}

/// NFKC, with a fast path for what Japanese news text is made of: ASCII, kana, kanji and CJK
/// punctuation are already NFKC; full-width ASCII and the ideographic space map one to one.
/// Anything else (half-width kana, compatibility symbols …) goes through the full algorithm.
fn nfkc(text: &str) -> Cow<'_, str> {
    use unicode_normalization::{IsNormalized, is_nfkc_quick};
    let stable = |c: char| {
        c.is_ascii()
            || matches!(c,
                '\u{3001}'..='\u{3003}' | '\u{3005}'..='\u{3007}' | '\u{300c}'..='\u{3011}'
                | '\u{3041}'..='\u{3096}' | '\u{30a1}'..='\u{30fa}' | '\u{30fc}'..='\u{30fe}'
                | '\u{4e00}'..='\u{9fff}')
    };
    let mapped = |c: char| match c {
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0),
        '\u{3000}' => Some(' '),
        _ => None,
    };
    if text.chars().all(stable) {
        return Cow::Borrowed(text);
    }
    if text.chars().all(|c| stable(c) || mapped(c).is_some()) {
        return Cow::Owned(text.chars().map(|c| mapped(c).unwrap_or(c)).collect());
    }
    if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.nfkc().collect())
}

fn strip_urls(word: &str) -> Cow<'_, str> {
    let Some(pos) = word.find("http://").or_else(|| word.find("https://")) else {
        return Cow::Borrowed(word);
    };
    // A URL runs to the next character that cannot be in one (e.g. Japanese text after it).
    let rest = &word[pos..];
    let end = rest
        .find(|c: char| !(c.is_ascii_graphic()) || c == '"' || c == '<' || c == '>')
        .unwrap_or(rest.len());
    let mut s = String::with_capacity(word.len());
    s.push_str(&word[..pos]);
    s.push(' ');
    s.push_str(&strip_urls(&rest[end..]));
    Cow::Owned(s)
}

impl Analyzer {
    /// The process-wide analyser.
    pub fn get() -> &'static Analyzer {
        static ANALYZER: OnceLock<Analyzer> = OnceLock::new();
        ANALYZER.get_or_init(|| {
            let dictionary = ipadic::load().expect("the embedded IPADIC dictionary loads");
            Analyzer {
                segmenter: Segmenter::new(Mode::Normal, dictionary, None),
                stop_ja: word_list(STOP_JA),
                stop_en: word_list(STOP_EN),
                stemmer: rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English),
            }
        })
    }

    /// A fingerprint of what decides the analyser's output (version and stop lists). Saved in
    /// the caches (`df.tsv`, the search index), so it is a fixed hash ([`crate::fsutil::fnv1a`]),
    /// the same under every Rust release.
    pub fn fingerprint(&self) -> String {
        format!(
            "v{ANALYZER_VERSION}-{:016x}",
            fingerprint_hash(STOP_JA, STOP_EN)
        )
    }

    fn tokens<'a>(&self, text: &'a str) -> Vec<Tok<'a>> {
        self.tokens_in(text, false)
    }

    /// Tokens in lindera's normal mode, or in decompose mode (long kanji words split into
    /// their parts: 日本銀行 → 日本 + 銀行), which search uses so a part finds the whole.
    fn tokens_in<'a>(&self, text: &'a str, decompose: bool) -> Vec<Tok<'a>> {
        thread_local! {
            static WORKER: std::cell::RefCell<Option<lindera::worker::SegmentWorker>> =
                const { std::cell::RefCell::new(None) };
            static DECOMPOSER: std::cell::RefCell<Option<lindera::worker::SegmentWorker>> =
                const { std::cell::RefCell::new(None) };
        }
        let slot = if decompose { &DECOMPOSER } else { &WORKER };
        slot.with(|w| {
            let mut w = w.borrow_mut();
            let worker = w.get_or_insert_with(|| {
                let mut worker = self.segmenter.new_worker();
                if decompose {
                    worker.set_mode(lindera::mode::Mode::Decompose(
                        lindera::mode::Penalty::default(),
                    ));
                }
                worker
            });
            let Ok(tokens) = worker.segment(text) else {
                return Vec::new();
            };
            let mut out = Vec::with_capacity(tokens.len() * 2);
            let mut end = 0;
            for mut t in tokens {
                // lindera drops white space: a gap between tokens is a word boundary.
                if t.byte_start > end {
                    out.push(Tok {
                        surface: " ",
                        start: end,
                        kind: Kind::Space,
                        sahen: false,
                        stop: false,
                        proper: false,
                    });
                }
                let start = t.byte_start;
                end = t.byte_end;
                let surface = &text[start..end];
                let (pos_kind, sahen, stop, proper) = self.pos_kind(&mut t);
                let kind = classify_with(surface, pos_kind);
                // Hyphenated Latin words stay one word: zero-day, right-to-repair.
                let n = out.len();
                if kind == Kind::Latin
                    && n >= 2
                    && out[n - 1].surface == "-"
                    && out[n - 2].kind == Kind::Latin
                {
                    out.pop();
                    let prev = out.last_mut().expect("checked");
                    prev.surface = &text[prev.start..end];
                    continue;
                }
                out.push(Tok {
                    surface,
                    start,
                    kind,
                    sahen,
                    stop,
                    proper,
                });
            }
            out
        })
    }

    /// The part-of-speech kind of a token, whether it is サ変接続, whether it is a stop word and
    /// whether it is a 固有名詞, cached per word id (a system word's surface is fixed).
    fn pos_kind(&self, t: &mut lindera::token::Token) -> (Kind, bool, bool, bool) {
        use std::sync::atomic::{AtomicU8, Ordering};
        static CACHE: OnceLock<Box<[AtomicU8]>> = OnceLock::new();
        let compute = |t: &mut lindera::token::Token| {
            let stop = self.stop_ja.contains(t.surface.as_ref());
            let details = t.details();
            let pos = details.first().copied().unwrap_or("");
            let sub1 = details.get(1).copied().unwrap_or("");
            let kind = match (pos, sub1) {
                ("名詞", "一般" | "固有名詞" | "サ変接続" | "形容動詞語幹") => {
                    Kind::Noun
                }
                ("名詞", "接尾") => Kind::Suffix,
                ("名詞", "数") => Kind::Number,
                ("接頭詞", "名詞接続") => Kind::Prefix,
                _ => Kind::Break,
            };
            (kind, sub1 == "サ変接続", stop, sub1 == "固有名詞")
        };
        if !t.word_id.is_system() || t.word_id.is_unknown() {
            return compute(t);
        }
        let cache = CACHE.get_or_init(|| {
            (0..self.segmenter.dictionary.prefix_dictionary.word_count())
                .map(|_| AtomicU8::new(0))
                .collect()
        });
        let Some(slot) = cache.get(t.word_id.id() as usize) else {
            return compute(t);
        };
        // Bits: kind index + 1 (low 3), 0x08 固有名詞, 0x40 stop word, 0x80 サ変接続; 0 means
        // not seen yet.
        let v = slot.load(Ordering::Relaxed);
        if v != 0 {
            return (
                KINDS[(v & 0x07) as usize - 1],
                v & 0x80 != 0,
                v & 0x40 != 0,
                v & 0x08 != 0,
            );
        }
        let (kind, sahen, stop, proper) = compute(t);
        let idx = KINDS.iter().position(|k| *k == kind).expect("listed") as u8 + 1;
        let bits = idx
            | if sahen { 0x80 } else { 0 }
            | if stop { 0x40 } else { 0 }
            | if proper { 0x08 } else { 0 };
        slot.store(bits, Ordering::Relaxed);
        (kind, sahen, stop, proper)
    }

    /// Stems a lower-case English word for matching.
    pub fn stem(&self, lower: &str) -> String {
        thread_local! {
            static STEMS: std::cell::RefCell<FxHashMap<String, String>> =
                std::cell::RefCell::new(FxHashMap::default());
        }
        STEMS.with(|c| {
            let mut c = c.borrow_mut();
            if let Some(s) = c.get(lower) {
                return s.clone();
            }
            let s = self.stemmer.stem(lower).into_owned();
            if c.len() > 100_000 {
                c.clear();
            }
            c.insert(lower.to_string(), s.clone());
            s
        })
    }

    fn is_stop_en(&self, lower: &str) -> bool {
        self.stop_en.contains(lower)
    }

    /// Keyword candidates of prepared text, in order, repeats included.
    pub fn terms(&self, prepared: &str) -> Vec<Term> {
        self.analyse_prepared(prepared).0
    }

    /// One tokenisation of prepared text giving its keyword candidates, and its content-word
    /// keys (nouns and Latin words, stemmed: what sentence similarity and search compare) passed
    /// to `content`.
    fn scan(&self, prepared: &str, terms: &mut Vec<Term>, content: &mut dyn FnMut(&str)) {
        let mut buf = String::new();
        for line in prepared.lines() {
            let toks = self.tokens(line);
            self.line_terms(&toks, None, terms);
            self.content_of(&toks, &mut buf, content);
        }
    }

    /// Candidates and hashed content-word keys ([`term_hash`], sorted) of prepared text.
    pub(crate) fn analyse_prepared(&self, prepared: &str) -> (Vec<Term>, Vec<u64>) {
        let mut terms = Vec::new();
        let mut content = Vec::new();
        self.scan(prepared, &mut terms, &mut |k| content.push(term_hash(k)));
        content.sort_unstable();
        (terms, content)
    }

    /// Analyses an item once: the title's candidates and, per sentence of the text, its
    /// candidates and content words. Keywords, the summary and document frequencies all read it.
    pub fn item_terms<'a>(&self, item: &'a Item) -> ItemTerms<'a> {
        let sents = sentences(&item.text);
        // The prepared sentences, one per line, go through the tokenizer in one call (the
        // line breaks are white space to it, so no word spans two sentences); each token is then
        // given back to its sentence by its offset.
        let mut joined = String::with_capacity(item.title.len() + item.text.len() + sents.len());
        let title = prepare(&item.title);
        joined.push_str(&rank::strip_labels(&title));
        let title_end = joined.len();
        joined.push('\n');
        let mut bounds = Vec::with_capacity(sents.len());
        for s in &sents {
            let start = joined.len();
            joined.push_str(&prepare(s));
            bounds.push((start, joined.len()));
            joined.push('\n');
        }
        let toks = self.tokens(&joined);
        let title_len = toks
            .iter()
            .position(|t| t.start >= title_end)
            .unwrap_or(toks.len());
        let mut title = Vec::new();
        let headline = rank::Headline::of(&toks[..title_len], &joined[..title_end]);
        self.line_terms(&toks[..title_len], Some(&headline), &mut title);
        self.quoted_names(&joined[..title_end], &mut title);
        let mut buf = String::new();
        let mut rest = &toks[title_len..];
        let sentences = sents
            .into_iter()
            .zip(bounds)
            .map(|(s, (start, end))| {
                let first = rest
                    .iter()
                    .position(|t| t.start >= start)
                    .unwrap_or(rest.len());
                let len = rest[first..]
                    .iter()
                    .position(|t| t.start >= end)
                    .unwrap_or(rest.len() - first);
                let own = &rest[first..first + len];
                rest = &rest[first + len..];
                let mut terms = Vec::new();
                self.line_terms(own, None, &mut terms);
                if s.contains(['\'', '"', '“', '‘']) {
                    self.quoted_names(&joined[start..end], &mut terms);
                }
                let mut content = Vec::new();
                self.content_of(own, &mut buf, &mut |k| content.push(term_hash(k)));
                content.sort_unstable();
                Sentence {
                    text: s,
                    terms,
                    content,
                }
            })
            .collect();
        ItemTerms { title, sentences }
    }

    /// Keyword candidates of one line of tokens; `headline` for a title (see [`Headline`]).
    fn line_terms(&self, toks: &[Tok], headline: Option<&rank::Headline>, out: &mut Vec<Term>) {
        let title_case = headline.is_some_and(|h| h.title_case);
        let mut i = 0;
        while i < toks.len() {
            let joinable = |k: Kind| {
                matches!(
                    k,
                    Kind::Noun | Kind::Suffix | Kind::Number | Kind::Prefix | Kind::Latin
                )
            };
            if !joinable(toks[i].kind) {
                i += 1;
                continue;
            }
            let start = i;
            while i < toks.len() && joinable(toks[i].kind) {
                i += 1;
            }
            let run = &toks[start..i];
            if run
                .iter()
                .all(|t| matches!(t.kind, Kind::Latin | Kind::Number))
                && run.iter().any(|t| t.kind == Kind::Latin)
            {
                // Latin words (possibly with digits: "Windows 10" is two runs, "5G" one), with
                // dotted parts (Next.js, Node.js).
                let (word, end) = latin_word(toks, start);
                i = end;
                // A capital inside an English sentence marks a name (Rust, Chrome, India); so
                // does one in Japanese text (Rustで, Terraformの), where Latin words are names.
                // A title's subject before its verb is a name too ("Microsoft launches …"),
                // but no capital in a Title Case title tells anything.
                let prev = toks[..start].iter().rev().find(|t| t.kind != Kind::Space);
                let next = toks[i..].iter().find(|t| t.kind != Kind::Space);
                let mid_english_sentence = prev.is_some_and(|t| {
                    t.surface.is_ascii() && !matches!(t.surface, "." | "!" | "?" | ":")
                });
                let japanese = prev.is_some_and(|t| !t.surface.is_ascii())
                    || next.is_some_and(|t| !t.surface.is_ascii());
                let subject = headline.is_some_and(|h| start < h.subject_end);
                let verb = headline.is_some_and(|h| h.verb == Some(start));
                let named = !title_case && (mid_english_sentence || japanese || subject);
                self.english_word(&word, named, verb, out);
                // Phrases: the next one or two Latin words (or a version number after a
                // capitalised word: Windows 365, Python 3.13), each after a single space.
                let next_word = |from: usize| -> Option<(String, usize)> {
                    if from + 1 < toks.len()
                        && toks[from].kind == Kind::Space
                        && matches!(toks[from + 1].kind, Kind::Latin | Kind::Number)
                    {
                        Some(latin_word(toks, from + 1))
                    } else {
                        None
                    }
                };
                if let Some((second, j)) = next_word(i) {
                    self.english_phrase(&[&word, &second], named, title_case, out);
                    if let Some((third, _)) = next_word(j) {
                        self.english_phrase(&[&word, &second, &third], named, title_case, out);
                    }
                }
                continue;
            }
            self.japanese_compound(run, out);
        }
    }

    /// A quoted title of a work in a headline ('We Met in Virtual Reality' finds love …): one
    /// name, so its words are not tagged one by one.
    fn quoted_names(&self, title: &str, out: &mut Vec<Term>) {
        for (open, close) in [('\'', '\''), ('"', '"'), ('“', '”'), ('‘', '’')] {
            let mut from = 0;
            while let Some(a) = title[from..].find(open).map(|x| x + from) {
                let start = a + open.len_utf8();
                let Some(b) = title[start..].find(close).map(|x| x + start) else {
                    break;
                };
                // A quote opens at a word's start ("'We"), not inside one ("world's").
                if title[..a]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric)
                {
                    from = start;
                    continue;
                }
                from = b + close.len_utf8();
                let inner = &title[start..b];
                let words: Vec<&str> = inner.split(' ').filter(|w| !w.is_empty()).collect();
                let capital = |w: &&str| w.starts_with(|c: char| c.is_ascii_uppercase());
                let content: Vec<&&str> = words
                    .iter()
                    .filter(|w| !self.is_stop_en(&w.to_lowercase()))
                    .collect();
                if words.len() < 2
                    || words.len() > 8
                    || !inner.is_ascii()
                    || !words
                        .iter()
                        .all(|w| w.chars().all(|c| c.is_ascii_alphanumeric()))
                    || !content.iter().all(|w| capital(w))
                    || content.len() < 2
                {
                    continue;
                }
                let key: Vec<String> = words.iter().map(|w| self.stem(&w.to_lowercase())).collect();
                out.push(Term {
                    key: key.join(" ").into(),
                    written: Some(words.join(" ")),
                    phrase: true,
                    weak: false,
                    proper: true,
                });
            }
        }
    }

    fn english_word(&self, word: &str, mid_sentence: bool, verb: bool, out: &mut Vec<Term>) {
        let lower = word.to_lowercase();
        if lower.chars().count() < 2
            || self.is_stop_en(&lower)
            || lower.chars().all(|c| c.is_ascii_digit())
        {
            return;
        }
        let mut chars = word.chars();
        let first_upper = chars.next().is_some_and(char::is_uppercase);
        // Acronyms and brands (AWS, PyPI) are names anywhere; Capitalised words mid-sentence.
        let inner_upper = chars.any(char::is_uppercase);
        let proper = (inner_upper && lower.len() >= 3) || (first_upper && mid_sentence);
        // Lower-case -ed/-ing words are mostly verbs: like lone サ変 nouns, actions not topics.
        // (a capital that makes no name does not make one: "Misconfigured DNS change …")
        let weak = verb || (!proper && (lower.ends_with("ed") || lower.ends_with("ing")));
        out.push(Term {
            key: self.stem(&lower).into(),
            written: Some(word.to_string()),
            phrase: false,
            weak,
            proper,
        });
    }

    /// A phrase of two or three content words. `mid_sentence`: the first word does not start a
    /// sentence (so its capital means something).
    fn english_phrase(
        &self,
        words: &[&str],
        mid_sentence: bool,
        title_case: bool,
        out: &mut Vec<Term>,
    ) {
        let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
        let number = |w: &str| w.chars().all(|c| c.is_ascii_digit() || c == '.');
        let capital = |w: &str| w.chars().next().is_some_and(char::is_uppercase);
        // A version number ends a name (Windows 365, Python 3.13, Raspberry Pi 5).
        let last = lower.len() - 1;
        let versioned = number(&lower[last]) && capital(words[last - 1]);
        let content = |i: usize, w: &str| {
            (i == last && versioned)
                || (w.chars().count() >= 2 && !self.is_stop_en(w) && !number(w))
        };
        if !lower.iter().enumerate().all(|(i, w)| content(i, w)) {
            return;
        }
        // Capitalised words make a name (GitHub Copilot, Veridian Semiconductor, 5G SA), unless
        // the first capital is only a sentence's or every word of the title has one.
        let capital_or_digit = |w: &str| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        };
        let inner_capital = |w: &str| w.chars().skip(1).any(char::is_uppercase);
        let name = words.iter().all(|w| capital_or_digit(w))
            && (versioned
                || mid_sentence
                || inner_capital(words[0])
                || (words.len() > 2 && !title_case));
        let key: Vec<String> = lower.iter().map(|w| self.stem(w)).collect();
        let written: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        out.push(Term {
            key: key.join(" ").into(),
            written: Some(written.join(" ")),
            phrase: true,
            weak: false,
            proper: name,
        });
    }

    fn japanese_compound(&self, run: &[Tok], out: &mut Vec<Term>) {
        // Two subjects joined by 向け: each is a word of its own.
        if let Some(at) = rank::split_at(run) {
            self.japanese_compound(&run[..at], out);
            self.japanese_compound(&run[at + 1..], out);
            return;
        }
        // Trim what cannot start or end a word (a lone suffix, a number and its counter, a
        // trailing prefix) and the trailing actions and labels (see rank::compound_bounds).
        let (s, e) = rank::compound_bounds(run);
        let run = &run[s..e];
        if !run
            .iter()
            .any(|t| matches!(t.kind, Kind::Noun | Kind::Latin))
        {
            return;
        }
        // Very long runs are lists of nouns, not one word.
        if run.len() > 8 {
            for t in run.iter().filter(|t| t.kind == Kind::Noun) {
                self.push_ja(t.surface, false, t.proper, out);
            }
            return;
        }
        if let [only] = run {
            if !only.stop {
                self.push_ja_word(only.surface, only.sahen, only.proper, out);
            }
        } else {
            let surface: String = run.iter().map(|t| t.surface).collect();
            let name = rank::japanese_name(run, &surface);
            self.push_ja(&surface, false, name, out);
        }
    }

    fn push_ja(&self, surface: &str, weak: bool, proper: bool, out: &mut Vec<Term>) {
        if !self.stop_ja.contains(surface) {
            self.push_ja_word(surface, weak, proper, out);
        }
    }

    /// Adds a Japanese term already checked against the stop list.
    fn push_ja_word(&self, surface: &str, weak: bool, proper: bool, out: &mut Vec<Term>) {
        if surface.chars().nth(1).is_none() {
            return;
        }
        // Most Japanese words have no case: the key is the word, no second copy needed.
        let (key, written) = if has_upper(surface) {
            (surface.to_lowercase().into(), Some(surface.to_string()))
        } else {
            (CompactString::from(surface), None)
        };
        out.push(Term {
            key,
            written,
            phrase: false,
            weak,
            proper,
        });
    }

    fn content_of(&self, toks: &[Tok], buf: &mut String, emit: &mut dyn FnMut(&str)) {
        for t in toks {
            match t.kind {
                Kind::Noun if !t.stop => {
                    if has_upper(t.surface) {
                        buf.clear();
                        buf.extend(t.surface.chars().flat_map(char::to_lowercase));
                        emit(buf);
                    } else {
                        emit(t.surface);
                    }
                }
                Kind::Latin => {
                    let lower = t.surface.to_lowercase();
                    if lower.len() >= 2 && !self.is_stop_en(&lower) {
                        emit(&self.stem(&lower));
                    }
                }
                _ => {}
            }
        }
    }

    /// Tokens for the full-text index (and for queries against it): every noun part, number
    /// and (stemmed, lower-cased) Latin word of prepared text, each with its position in the
    /// whole token sequence — particles, verbs, symbols and English stop words are skipped but still
    /// count, so a phrase matches only words that really stand together. Compounds are not
    /// tokens of their own, and long dictionary words are decomposed (lindera's decompose mode):
    /// 日本銀行 is 日本 + 銀行 at adjacent positions, which a phrase query finds, and 銀行 alone
    /// finds too. Byte offsets are into `prepared`.
    pub fn search_tokens(&self, prepared: &str) -> Vec<SearchToken> {
        let toks = self.tokens_in(prepared, true);
        let mut out = Vec::with_capacity(toks.len());
        for (position, t) in toks.iter().enumerate() {
            let text = match t.kind {
                // Every noun, even those 頻出ワード leaves out (日本, 会社): a reader may search them.
                Kind::Noun | Kind::Suffix | Kind::Prefix | Kind::Number => {
                    if has_upper(t.surface) {
                        t.surface.to_lowercase()
                    } else {
                        t.surface.to_string()
                    }
                }
                Kind::Latin => {
                    let lower = t.surface.to_lowercase();
                    if self.is_stop_en(&lower) {
                        continue;
                    }
                    self.stem(&lower)
                }
                _ => continue,
            };
            out.push(SearchToken {
                text,
                position,
                start: t.start,
                end: t.start + t.surface.len(),
            });
        }
        out
    }

    /// The term keys that must never be an item's keyword: its category and site name, whole and
    /// as analysed. Cached per thread: a feed's items all share them.
    fn excluded_for(&self, category: &str, site: &str) -> Excluded {
        thread_local! {
            static CACHE: std::cell::RefCell<FxHashMap<(String, String), Excluded>> =
                std::cell::RefCell::new(FxHashMap::default());
        }
        let key = (category.to_string(), site.to_string());
        if let Some(hit) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
            return hit;
        }
        let mut excluded = FxHashSet::default();
        for name in [category, site] {
            let p = prepare(name);
            excluded.insert(p.to_lowercase());
            excluded.extend(self.terms(&p).into_iter().map(|t| t.key.into_string()));
        }
        let excluded = std::rc::Rc::new(excluded);
        CACHE.with(|c| {
            let mut c = c.borrow_mut();
            if c.len() > 10_000 {
                c.clear();
            }
            c.insert(key, excluded.clone());
        });
        excluded
    }

    /// The item's 頻出ワード: up to `n` terms from title and text ranked by TF-IDF against
    /// `df`, never the item's category or site name.
    pub fn keywords(&self, item: &Item, df: &DocFreq, n: usize) -> Vec<String> {
        self.keywords_of(&self.item_terms(item), item, df, n)
    }

    /// [`Analyzer::keywords`] from an item already analysed.
    pub fn keywords_of(
        &self,
        analysed: &ItemTerms,
        item: &Item,
        df: &DocFreq,
        n: usize,
    ) -> Vec<String> {
        let title = &analysed.title;
        let text = analysed.sentences.iter().flat_map(|s| s.terms.iter());
        let excluded = self.excluded_for(&item.category, &item.site);
        struct Cand<'t> {
            tf: f64,
            count: usize,
            first: usize,
            phrase: bool,
            weak: bool,
            proper: bool,
            /// Written all in lower case somewhere (so a capital elsewhere was a sentence's).
            lower: bool,
            in_title: bool,
            displays: FxHashMap<&'t str, usize>,
        }
        let mut cands: FxHashMap<&str, Cand> = FxHashMap::default();
        for (pos, (t, in_title)) in title
            .iter()
            .map(|t| (t, true))
            .chain(text.map(|t| (t, false)))
            .enumerate()
        {
            if excluded.contains(t.key.as_str()) {
                continue;
            }
            let c = cands.entry(t.key.as_str()).or_insert(Cand {
                tf: 0.0,
                count: 0,
                first: pos,
                phrase: t.phrase,
                weak: t.weak,
                proper: false,
                lower: false,
                in_title: false,
                displays: FxHashMap::default(),
            });
            c.in_title |= in_title;
            c.proper |= t.proper;
            c.lower |= !t.phrase
                && t.written
                    .as_deref()
                    .is_some_and(|w| w.is_ascii() && !w.bytes().any(|b| b.is_ascii_uppercase()));
            c.tf += if in_title { 2.0 } else { 1.0 };
            c.count += 1;
            *c.displays.entry(t.display()).or_default() += 1;
        }
        // A phrase that only ever occurs inside a longer one ("small modular" in "small modular
        // reactors") is that longer phrase's fragment.
        let fragments: Vec<&str> = cands
            .iter()
            .filter(|(k, c)| {
                c.phrase
                    && cands.iter().any(|(l, d)| {
                        // (the longer one a phrase that is kept: a name, or recurring)
                        d.phrase
                            && (d.proper || d.count >= 2)
                            && l.len() > k.len()
                            && l.contains(*k)
                            && d.count >= c.count
                    })
            })
            .map(|(k, _)| *k)
            .collect();
        for k in fragments {
            cands.remove(k);
        }
        let mut scored: Vec<(f64, usize, &str, &str)> = cands
            .into_iter()
            // A two-word phrase must recur to be a phrase rather than two neighbours, unless it
            // is a name or a title's lower-case noun phrase ("chip factory").
            .filter(|(_, c)| {
                !c.phrase
                    || c.proper
                    || c.count >= 2
                    || (c.in_title && c.displays.keys().any(|d| rank::title_noun_phrase(d)))
            })
            .map(|(key, c)| {
                let display = c
                    .displays
                    .iter()
                    .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
                    .map(|(d, _)| *d)
                    .unwrap_or_default();
                let english = key.is_ascii();
                // An English word seen in lower case is a common word, even where a sentence or
                // a headline's subject gave it a capital.
                let proper = c.proper && !(english && c.lower);
                let weight = rank::weight(proper, c.weak, c.phrase, english);
                let score = c.tf * df.idf(key) * weight;
                (score, c.first, key, display)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(b.2)));
        let mut chosen: Vec<(&str, &str)> = Vec::new();
        for (_, _, key, display) in scored {
            if chosen.len() >= n {
                break;
            }
            // One word per idea: skip a term inside (or around) one already chosen.
            let overlaps = chosen.iter().any(|(k, _)| {
                k.contains(key)
                    || key.contains(k)
                    || k.split(' ').any(|w| key.split(' ').any(|v| v == w))
            });
            if !overlaps {
                chosen.push((key, display));
            }
        }
        chosen.into_iter().map(|(_, d)| d.to_string()).collect()
    }

    /// The item's summary: LexRank over the text's sentences, at most `max_sentences` within
    /// `budget` characters, in their original order; else the keywords, else the title.
    pub fn summary(
        &self,
        item: &Item,
        keywords: &[String],
        df: &DocFreq,
        budget: usize,
        max_sentences: usize,
    ) -> String {
        self.summary_of(
            &self.item_terms(item),
            item,
            keywords,
            df,
            budget,
            max_sentences,
        )
    }

    /// [`Analyzer::summary`] from an item already analysed.
    pub fn summary_of(
        &self,
        analysed: &ItemTerms,
        item: &Item,
        keywords: &[String],
        df: &DocFreq,
        budget: usize,
        max_sentences: usize,
    ) -> String {
        let s = summary::lexrank(&analysed.sentences, df, budget, max_sentences);
        if !s.is_empty() {
            return s;
        }
        if !keywords.is_empty() {
            return crate::text::truncate_chars(&keywords.join("、"), budget);
        }
        crate::text::truncate_chars(&item.title, budget)
    }
}

/// Term keys excluded from a feed's keywords (its category and site name).
type Excluded = std::rc::Rc<FxHashSet<String>>;

impl Term {
    /// The readable form, as written.
    pub fn display(&self) -> &str {
        self.written.as_deref().unwrap_or(&self.key)
    }
}

/// An item analysed once (see [`Analyzer::item_terms`]).
#[derive(Debug, Clone)]
pub struct ItemTerms<'a> {
    title: Vec<Term>,
    sentences: Vec<Sentence<'a>>,
}

/// One sentence of an item's text with its candidates and content words.
#[derive(Debug, Clone)]
pub struct Sentence<'a> {
    pub text: &'a str,
    pub terms: Vec<Term>,
    /// Content-word keys, hashed with [`term_hash`], sorted (repeats kept).
    pub content: Vec<u64>,
}

impl ItemTerms<'_> {
    /// The distinct candidate keys of title and text: what document frequencies count.
    pub fn keys(&self) -> FxHashSet<u64> {
        self.title
            .iter()
            .chain(self.sentences.iter().flat_map(|s| s.terms.iter()))
            .map(|t| term_hash(&t.key))
            .collect()
    }
}

/// The Latin word starting at token `start` (letters and digits, with dotted parts: Next.js,
/// Node.js, 3.13) and the index of the token after it.
fn latin_word(toks: &[Tok], start: usize) -> (String, usize) {
    let mut word = String::new();
    let mut j = start;
    loop {
        while j < toks.len() && matches!(toks[j].kind, Kind::Latin | Kind::Number) {
            word.push_str(toks[j].surface);
            j += 1;
        }
        if !word.is_empty()
            && j + 1 < toks.len()
            && toks[j].surface == "."
            && matches!(toks[j + 1].kind, Kind::Latin | Kind::Number)
        {
            word.push('.');
            j += 1;
            continue;
        }
        return (word, j);
    }
}

/// Whether `s` has an upper-case letter; kana and kanji (caseless) are skipped without a table
/// look-up.
fn has_upper(s: &str) -> bool {
    s.chars().any(|c| {
        if c.is_ascii() {
            c.is_ascii_uppercase()
        } else if ('\u{3040}'..'\u{ff00}').contains(&c) {
            false
        } else {
            c.is_uppercase()
        }
    })
}

/// The hash behind [`Analyzer::fingerprint`]: FNV-1a over the version and each stop list, each
/// list preceded by its length so that moving a word from one list to the other changes it.
fn fingerprint_hash(stop_ja: &str, stop_en: &str) -> u64 {
    let mut bytes = Vec::with_capacity(stop_ja.len() + stop_en.len() + 20);
    bytes.extend_from_slice(&ANALYZER_VERSION.to_le_bytes());
    for list in [stop_ja, stop_en] {
        bytes.extend_from_slice(&(list.len() as u64).to_le_bytes());
        bytes.extend_from_slice(list.as_bytes());
    }
    crate::fsutil::fnv1a(&bytes)
}

/// A term key's 64-bit FNV-1a hash: how document frequencies and sentence vectors store keys.
/// Fixed here (not a library's hasher) because cached frequencies outlive the process.
pub fn term_hash(key: &str) -> u64 {
    crate::fsutil::fnv1a(key.as_bytes())
}

const KINDS: [Kind; 5] = [
    Kind::Noun,
    Kind::Suffix,
    Kind::Number,
    Kind::Prefix,
    Kind::Break,
];

/// A token's kind: its shape first (space, Latin word, number, punctuation), else the kind its
/// part of speech gives.
fn classify_with(surface: &str, pos_kind: Kind) -> Kind {
    // Fast path: a token starting with kana or kanji is what its part of speech says.
    if surface
        .chars()
        .next()
        .is_some_and(|c| matches!(c, '\u{3041}'..='\u{30ff}' | '\u{3400}'..='\u{9fff}'))
    {
        return pos_kind;
    }
    if surface.chars().all(char::is_whitespace) {
        return Kind::Space;
    }
    if surface
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-')
        && surface.chars().any(|c| c.is_ascii_alphabetic())
    {
        return Kind::Latin;
    }
    if surface.chars().all(|c| c.is_ascii_digit()) {
        return Kind::Number;
    }
    if !surface.chars().any(char::is_alphanumeric) {
        return Kind::Break;
    }
    pos_kind
}

/// One token of [`Analyzer::search_tokens`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchToken {
    pub text: String,
    /// Index in the token sequence (gaps where skipped words stand).
    pub position: usize,
    /// Byte range in the prepared text.
    pub start: usize,
    pub end: usize,
}

/// Fills in the keywords and summary of `items` against `df` (which must already count them).
pub fn annotate(items: &mut [Item], df: &DocFreq, settings: &AnalyzeSettings) {
    use rayon::prelude::*;
    let results: Vec<(Vec<String>, String)> = items
        .par_iter()
        .map(|item| annotation(&Analyzer::get().item_terms(item), item, df, settings))
        .collect();
    for (item, (keywords, summary)) in items.iter_mut().zip(results) {
        item.keywords = keywords;
        item.summary = summary;
    }
}

/// Items analysed at once by [`annotate_new`]: bounds the memory of a huge first run (each
/// analysed item holds ~10 KB of terms) without touching the hourly case.
const ANNOTATE_CHUNK: usize = 4096;

/// Counts new `items` into `df`, then fills in their keywords and summaries: each item is
/// analysed once for both. A run of more than [`ANNOTATE_CHUNK`] items (a first import) is
/// done a chunk at a time, each ranked against the archive and the chunks so far.
pub fn annotate_new(items: &mut [Item], df: &mut DocFreq, settings: &AnalyzeSettings) {
    use rayon::prelude::*;
    let a = Analyzer::get();
    for chunk in items.chunks_mut(ANNOTATE_CHUNK) {
        let analysed: Vec<ItemTerms> = chunk.par_iter().map(|i| a.item_terms(i)).collect();
        for t in &analysed {
            df.add_keys(t.keys());
        }
        let df = &*df;
        let results: Vec<(Vec<String>, String)> = analysed
            .par_iter()
            .zip(chunk.par_iter())
            .map(|(t, item)| annotation(t, item, df, settings))
            .collect();
        drop(analysed);
        for (item, (keywords, summary)) in chunk.iter_mut().zip(results) {
            item.keywords = keywords;
            item.summary = summary;
        }
    }
}

fn annotation(
    t: &ItemTerms,
    item: &Item,
    df: &DocFreq,
    settings: &AnalyzeSettings,
) -> (Vec<String>, String) {
    let a = Analyzer::get();
    let keywords = a.keywords_of(t, item, df, settings.keywords);
    let summary = a.summary_of(
        t,
        item,
        &keywords,
        df,
        settings.summary_chars,
        settings.summary_sentences,
    );
    (keywords, summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_is_the_same_under_every_rust_release() {
        // The value is FNV-1a over (version 2, the lists with their lengths), computed outside
        // Rust: a standard-library hasher would change it with a toolchain upgrade and rebuild
        // every cached df.tsv and search index.
        assert_eq!(
            ANALYZER_VERSION, 2,
            "bump this test's value with the version"
        );
        assert_eq!(fingerprint_hash("これ\n", "the\n"), 0xa928_854e_ca40_4299);
        // Moving a word between the lists changes it.
        assert_ne!(
            fingerprint_hash("これ\nthe\n", ""),
            fingerprint_hash("これ\n", "the\n")
        );
        let f = Analyzer::get().fingerprint();
        assert_eq!(f, format!("v2-{:016x}", fingerprint_hash(STOP_JA, STOP_EN)));
        assert_eq!(f, Analyzer::get().fingerprint());
    }

    fn item(category: &str, site: &str, title: &str, text: &str) -> Item {
        Item {
            id: "x".into(),
            feed: "http://example.com/feed".into(),
            category: category.into(),
            site: site.into(),
            title: title.into(),
            link: String::new(),
            published: chrono::DateTime::parse_from_rfc3339("2021-07-20T08:00:00+09:00").unwrap(),
            keywords: vec![],
            summary: String::new(),
            text: text.into(),
            trend: None,
        }
    }

    fn displays(text: &str) -> Vec<String> {
        Analyzer::get()
            .terms(&prepare(text))
            .into_iter()
            .map(|t| t.display().to_string())
            .collect()
    }

    #[test]
    fn compounds_are_joined() {
        let t =
            displays("日本銀行は気候変動対応を支援するための資金供給オペレーションを実施した。");
        assert!(t.contains(&"日本銀行".to_string()), "{t:?}");
        // 対応 is an action after a word that stands alone (issue 15): trimmed.
        assert!(t.contains(&"気候変動".to_string()), "{t:?}");
        assert!(t.contains(&"資金供給オペレーション".to_string()), "{t:?}");
    }

    #[test]
    fn trailing_actions_go_only_when_the_head_stands_alone() {
        let t = displays(
            "輸出規制と、サプライチェーン攻撃。資金供給オペレーションと氷床融解、金利ゼロ。\
             ゼロトラストの実証実験。4～6月期の国内総生産。生成AI向け計算基盤。",
        );
        for whole in [
            "輸出規制",
            "サプライチェーン攻撃",
            "資金供給オペレーション",
            "氷床融解",
            "ゼロトラスト",
            "実証実験",
            "国内総生産",
            "生成AI",
            "計算基盤",
        ] {
            assert!(t.contains(&whole.to_string()), "{whole} not in {t:?}");
        }
        for bad in ["金利ゼロ", "月期", "生成AI向け計算基盤", "トラスト"] {
            assert!(!t.contains(&bad.to_string()), "{bad} in {t:?}");
        }
    }

    #[test]
    fn particles_auxiliaries_numbers_and_pronouns_are_never_terms() {
        let t = displays("これは2兆円の貸付であり、それを彼が3回も確認したのです。");
        for bad in [
            "は",
            "の",
            "であり",
            "です",
            "これ",
            "それ",
            "彼",
            "2兆円",
            "3回",
            "確認",
        ] {
            assert!(!t.contains(&bad.to_string()), "{bad} in {t:?}");
        }
        assert!(t.contains(&"貸付".to_string()), "{t:?}");
    }

    #[test]
    fn single_characters_and_lone_suffixes_are_dropped() {
        let t = displays("米国と中国、円の動き");
        assert!(t.iter().all(|w| w.chars().count() >= 2), "{t:?}");
        assert!(t.contains(&"米国".to_string()), "{t:?}");
    }

    #[test]
    fn mixed_japanese_and_english() {
        let t = displays("AWSが東京リージョンで生成AIサービスを開始。GitHub Copilotにも対応");
        assert!(t.contains(&"AWS".to_string()), "{t:?}");
        assert!(t.contains(&"東京リージョン".to_string()), "{t:?}");
        assert!(t.iter().any(|w| w.starts_with("生成AI")), "{t:?}");
        assert!(t.contains(&"GitHub Copilot".to_string()), "{t:?}");
    }

    #[test]
    fn english_is_case_folded_stemmed_and_stop_words_removed() {
        let a = Analyzer::get();
        let terms = a.terms(&prepare(
            "The Ransomware gangs were targeting hospitals, and ransomware hits",
        ));
        let keys: Vec<&str> = terms.iter().map(|t| t.key.as_str()).collect();
        assert!(!keys.contains(&"the") && !keys.contains(&"and") && !keys.contains(&"were"));
        let ransom: Vec<&Term> = terms.iter().filter(|t| t.key == "ransomwar").collect();
        assert_eq!(ransom.len(), 2, "{terms:?}");
        assert_eq!(ransom[0].display(), "Ransomware");
        assert_eq!(ransom[1].display(), "ransomware");
        assert!(keys.contains(&"hospit"), "{keys:?}");
    }

    #[test]
    fn english_names_outrank_verbs() {
        let a = Analyzer::get();
        let it = item(
            "海外TECH",
            "Byteline",
            "Browser maker rewrites its font parser in Rust",
            "The browser maker rewrote the parser in Rust after memory bugs were reported. \
             Engineers said GitHub Copilot helped, and GitHub Copilot wrote the tests.",
        );
        let kw = a.keywords(&it, &DocFreq::default(), 5);
        assert_eq!(kw[0], "Rust", "{kw:?}");
        assert!(
            kw.contains(&"Browser maker".to_string()),
            "a recurring phrase: {kw:?}"
        );
        assert!(kw.contains(&"GitHub Copilot".to_string()), "a name: {kw:?}");
        assert!(
            !kw.contains(&"GitHub".to_string()),
            "inside the name: {kw:?}"
        );
        assert!(
            !kw.iter().any(|k| k == "reported"),
            "-ed verbs rank low: {kw:?}"
        );
    }

    #[test]
    fn the_nfkc_fast_path_agrees_with_nfkc() {
        for s in [
            "日本銀行、気候変動対応オペを実施（２兆円）　「速報」【更新】ヴァ・ー〃々",
            "ＡＷＳの新機能！？ ＃タグ ～ 〜",
            "ﾊﾝｶｸｶﾅ ① ㈱ Ⅲ ㍻ ゛゜ ゟ ヿ",
            "plain ASCII only",
        ] {
            let want: String = s.nfkc().collect();
            assert_eq!(nfkc(s), want, "{s}");
        }
    }

    #[test]
    fn recurring_three_word_phrases_and_sentence_initial_capitals() {
        let a = Analyzer::get();
        let it = item(
            "海外TECH",
            "Byteline",
            "Misconfigured DNS change takes down small modular reactors",
            "Engineers said small modular reactors rely on DNS. The small modular reactors were fine.",
        );
        let kw = a.keywords(&it, &DocFreq::default(), 3);
        assert!(kw.contains(&"small modular reactors".to_string()), "{kw:?}");
        assert!(
            !kw.contains(&"Misconfigured DNS".to_string()),
            "a sentence's first capital does not make a name: {kw:?}"
        );
    }

    #[test]
    fn full_width_text_and_urls_are_normalised_away() {
        assert_eq!(
            prepare("ＡＷＳの新機能　https://example.com/a?b=1 を参照"),
            "AWSの新機能 を参照"
        );
        assert_eq!(prepare("ﾊﾝｶｸｶﾅ"), "ハンカクカナ");
    }

    #[test]
    fn keywords_never_repeat_category_or_site() {
        let a = Analyzer::get();
        let it = item(
            "金融",
            "日本銀行",
            "日本銀行、金融政策を維持",
            "日本銀行は金融政策決定会合で現状維持を決めた。長期金利の変動幅は据え置いた。",
        );
        let kw = a.keywords(&it, &DocFreq::default(), 3);
        assert!(!kw.contains(&"日本銀行".to_string()), "{kw:?}");
        assert!(!kw.contains(&"金融".to_string()), "{kw:?}");
        assert!(kw.contains(&"長期金利".to_string()), "{kw:?}");
        assert!(kw.len() <= 3);
    }

    #[test]
    fn empty_and_html_only_descriptions() {
        let a = Analyzer::get();
        let mut it = item("IT", "Example", "量子コンピューターの実証実験", "");
        let kw = a.keywords(&it, &DocFreq::default(), 3);
        assert!(kw.contains(&"量子コンピューター".to_string()), "{kw:?}");
        assert_eq!(
            a.summary(&it, &kw, &DocFreq::default(), 100, 3),
            kw.join("、")
        );
        it.text = crate::text::html_to_text("<p><img src=x><script>x()</script></p>");
        assert_eq!(it.text, "");
        let none = item("IT", "Example", "", "");
        assert_eq!(
            a.keywords(&none, &DocFreq::default(), 3),
            Vec::<String>::new()
        );
        assert_eq!(a.summary(&none, &[], &DocFreq::default(), 100, 3), "");
    }
}
