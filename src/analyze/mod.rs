//! Text analysis of archived items: 頻出ワード (keywords) and summaries.
//!
//! Owns the one analyser that 頻出ワード, the summaries' sentence similarity and the tantivy
//! index ([`Analyzer::search_tokens`]) share, so that a word shown on a page is a word search
//! finds. (The static search of the search page has its own tokeniser, CJK bigrams and English
//! stems, in `search::static_index` and `search.js`.) Japanese goes through lindera with IPADIC
//! (compiled from Debian's mecab-ipadic by build.rs and embedded); Latin-script words are
//! case-folded, filtered by a stop list and stemmed for matching. Knows nothing about HTTP or
//! files beyond the document-frequency cache in [`df`]; rewriting snapshot files with fresh
//! analyses is the `matome analyze` command's ([`crate::analyze_archive`]).

mod candidates;
pub mod df;
mod headline;
mod names;
mod rank;
pub mod ranker;
pub mod sites;
pub mod summary;
mod terms;
mod tokens;

use std::borrow::Cow;
use std::sync::OnceLock;

use compact_str::CompactString;
use lindera::mode::Mode;
use lindera::segmenter::Segmenter;
use lindera_dictionary::dictionary::character_definition::CategoryId;
use rustc_hash::{FxHashMap, FxHashSet};
use unicode_normalization::UnicodeNormalization;

use candidates::Cand;
pub use df::DocFreq;
pub use summary::sentences;
pub use terms::{ItemTerms, Sentence, Term};
use tokens::{Kind, Tok};
pub use tokens::{SearchToken, prepare};

use crate::config::AnalyzeSettings;
use crate::content::Item;

/// Bumped whenever what the analyser produces changes: cached document frequencies are rebuilt.
pub const ANALYZER_VERSION: u32 = 14;

mod ipadic {
    // Reads $LINDERA_WORKDIR/lindera-ipadic/* (written by build.rs) with include_bytes!.
    lindera_dictionary::embedded_dictionary!("/lindera-ipadic", EmbeddedIPADICLoader);
}

const STOP_JA: &str = include_str!("../../data/stopwords-ja.txt");
const STOP_EN: &str = include_str!("../../data/stopwords-en.txt");

/// The shared analyser. Create it once with [`Analyzer::get`]; it is cheap to share across
/// threads (the dictionary is embedded and loaded without copying).
pub struct Analyzer {
    segmenter: Segmenter,
    /// The dictionary's SPACE category, with its membership for U+0000..U+00FF: the white
    /// space lindera drops from its tokens (see `Analyzer::segment`).
    space: Option<(CategoryId, [bool; 256])>,
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

impl Analyzer {
    /// The process-wide analyser.
    pub fn get() -> &'static Analyzer {
        static ANALYZER: OnceLock<Analyzer> = OnceLock::new();
        ANALYZER.get_or_init(|| {
            let dictionary = ipadic::load().expect("the embedded IPADIC dictionary loads");
            // (what `Segmenter::new` derives for its white-space filter)
            let chars = &dictionary.character_definition;
            let space = chars.category_id_by_name("SPACE").map(|id| {
                let mut ascii = [false; 256];
                for (c, is) in ascii.iter_mut().enumerate() {
                    if let Some(c) = char::from_u32(c as u32) {
                        *is = chars.lookup_categories(c).contains(&id);
                    }
                }
                (id, ascii)
            });
            Analyzer {
                space,
                segmenter: Segmenter::new(Mode::Normal, dictionary, None),
                stop_ja: word_list(STOP_JA),
                stop_en: word_list(STOP_EN),
                stemmer: rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English),
            }
        })
    }

    /// A fingerprint of what decides the analyser's output (version, stop lists and the keyword
    /// ranker's model, so that a retrained model rebuilds them even without a bump). Saved in
    /// the caches (`df.tsv`, the search index), so it is a fixed hash ([`crate::hash::fnv1a`]),
    /// the same under every Rust release.
    pub fn fingerprint(&self) -> String {
        format!(
            "v{ANALYZER_VERSION}-{:016x}",
            fingerprint_hash(STOP_JA, STOP_EN, ranker::MODEL)
        )
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

    /// An item's keyword candidates in the hand-set order ([`hand_order`]), each with what
    /// decided its score: what [`Analyzer::keywords_of`] re-ranks and chooses from. Only the
    /// first [`ranker::RERANKED`] + 1 are in order; the rest follow them, in no order.
    fn ranked<'t>(
        &self,
        analysed: &'t ItemTerms,
        item: &Item,
        df: &DocFreq,
    ) -> Vec<ranker::Ranked<'t>> {
        let title = &analysed.title;
        let text = analysed.sentences.iter().flat_map(|s| s.terms.iter());
        let excluded = self.excluded_for(&item.category, &item.site);
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
            let c = cands.entry(t.key.as_str()).or_insert_with(|| {
                let hash = term_hash(&t.key);
                Cand {
                    tf: 0.0,
                    count: 0,
                    first: pos,
                    phrase: t.phrase,
                    weak: t.weak,
                    proper: false,
                    lower: false,
                    in_title: false,
                    shared: false,
                    chunk: false,
                    displays: candidates::Displays::default(),
                    hash,
                    global: 0,
                }
            });
            c.chunk |= t.chunk;
            c.in_title |= in_title;
            c.proper |= t.proper;
            c.lower |= !t.phrase
                && t.written
                    .as_deref()
                    .is_some_and(|w| w.is_ascii() && !w.bytes().any(|b| b.is_ascii_uppercase()));
            c.tf += if in_title { 2.0 } else { 1.0 };
            c.count += 1;
            c.displays.add(t.display());
        }
        // (looked up in a loop of their own: the archive's table is large, and independent
        // look-ups overlap their cache misses where the gathering above would wait on each)
        for c in cands.values_mut() {
            c.global = df.count(c.hash);
        }
        candidates::drop_site_labels(
            &mut cands,
            df,
            &item.site,
            &item.title,
            &analysed.prepared[0],
            |w| self.stem(w),
        );
        // (the English title rules read an English headline, not a Japanese title's Latin
        // words)
        let english_title = !item.title.chars().any(crate::text::is_japanese);
        candidates::mark_names_and_terms(
            &mut cands,
            analysed.title_case,
            &item.title,
            english_title,
        );
        candidates::drop_fragments(&mut cands, df);
        candidates::fold_acronyms(&mut cands);
        let question_verb = headline::question_verb(&item.title).filter(|_| english_title);
        let mut scored: Vec<ranker::Ranked> = cands
            .into_iter()
            // A two-word phrase must recur to be a phrase rather than two neighbours, unless it
            // is a name, a title's lower-case noun phrase ("chip factory") or a whole noun chunk
            // of the text ("kept its deposit rate at 2.0%").
            .filter_map(|(key, c)| {
                // (the headline's verb is in no phrase: "index falls", "stabilizes LazyCell")
                let verb = analysed
                    .verb
                    .as_deref()
                    .is_some_and(|v| key.split(' ').any(|w| w == v));
                if c.phrase && verb {
                    return None;
                }
                // (nor a question's: "How does your team handle on-call …")
                if c.phrase
                    && c.in_title
                    && question_verb
                        .is_some_and(|v| c.displays.keys().any(|d| d.split(' ').any(|w| w == v)))
                {
                    return None;
                }
                let recurs = !c.phrase
                    || c.proper
                    || c.shared
                    || c.count >= 2
                    || (c.in_title
                        && c.displays.keys().any(|d| {
                            (headline::title_noun_phrase(d)
                                && !(english_title && headline::continues_in_title(&item.title, d)))
                                || (english_title && headline::ing_noun_phrase(&item.title, d))
                        }));
                // (a noun chunk the text says once, "deposit rate", is what the item is about
                // more often than a lone common word of it)
                let once_chunk =
                    !recurs && c.chunk && c.displays.keys().any(|d| headline::text_noun_phrase(d));
                if !recurs && !once_chunk {
                    return None;
                }
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
                let mut weight = rank::weight(key, proper, c.weak, c.phrase);
                if once_chunk {
                    weight *= rank::TEXT_NOUN_CHUNK_WEIGHT;
                }
                let idf = df.idf_of_count(c.global);
                Some(ranker::Ranked {
                    key,
                    display,
                    facts: ranker::Facts {
                        score: c.tf * idf * weight,
                        tf: c.tf,
                        count: c.count,
                        first: c.first,
                        idf,
                        weight,
                        in_title: c.in_title,
                        proper,
                        phrase: c.phrase,
                        weak: c.weak,
                        chunk: c.chunk,
                        lower: c.lower,
                        once_chunk,
                    },
                })
            })
            .collect();
        // Only the first RERANKED are read in order (by the model, and the choice rarely goes
        // past them): the rest are put in order by `keywords_of` when it needs them.
        let head = ranker::RERANKED.min(scored.len());
        if scored.len() > head {
            scored.select_nth_unstable_by(head, hand_order);
        }
        scored[..head].sort_unstable_by(hand_order);
        scored
    }

    /// The features the keyword ranker reads for an item's strongest candidates (the display
    /// of each and its features, in the hand-set order): what `scripts/train-keyword-ranker`
    /// trains on, computed by the code that ranks.
    pub fn keyword_features(
        &self,
        analysed: &ItemTerms,
        item: &Item,
        df: &DocFreq,
    ) -> Vec<(String, [f64; ranker::FEATURES])> {
        let ranked = self.ranked(analysed, item, df);
        let features = ranker::features_of(&ranked, &analysed.prepared[0]);
        ranked
            .iter()
            .zip(features)
            .map(|(r, f)| (r.display.to_string(), f))
            .collect()
    }

    /// [`Analyzer::keywords`] from an item already analysed.
    pub fn keywords_of(
        &self,
        analysed: &ItemTerms,
        item: &Item,
        df: &DocFreq,
        n: usize,
    ) -> Vec<String> {
        let mut scored = self.ranked(analysed, item, df);
        let top = scored.first().map_or(0.0, |s| s.facts.score);
        // (a Japanese item's: on English items the model found nothing the hand-set order
        // misses, see src/analyze/ranker.rs; an English headline with a curly apostrophe or a
        // dash is no Japanese one)
        if item.title.chars().any(crate::text::is_japanese) {
            ranker::rerank(&mut scored, &analysed.prepared[0]);
        }
        let mut chosen: Vec<(&str, &str)> = Vec::new();
        let body = &analysed.prepared[1..];
        // (the names the bylines give, found when an English candidate is first met)
        let mut bylines: Option<Vec<&str>> = None;
        // (the chosen names shown in full, not as their candidates were written)
        let mut in_full: Vec<&str> = Vec::new();
        for i in 0..scored.len() {
            if chosen.len() >= n {
                break;
            }
            // (`ranked` left those after the first RERANKED + 1 out of order)
            if i == ranker::RERANKED + 1 {
                scored[i..].sort_unstable_by(hand_order);
            }
            let r = &scored[i];
            let key = r.key;
            // A third keyword far weaker than the first is a guess: better none.
            if chosen.len() >= 2 && r.facts.score < top * rank::THIRD_KEYWORD_SHARE {
                continue;
            }
            // One word per idea: skip a term inside (or around) one already chosen, or a word
            // of it alone; two phrases may share a word (Bank of England, Bank Rate).
            // Two phrases that chain ("strict concurrency" and "concurrency checking") are
            // the two ends of one longer phrase: it stands for both when it is itself kept.
            if chosen.iter().any(|(k, _)| chains(k, key)) {
                continue;
            }
            let overlaps = chosen.iter().any(|(k, _)| {
                k.contains(key)
                    || key.contains(k)
                    || ((!k.contains(' ') || !key.contains(' '))
                        && k.split(' ')
                            .any(|w| !self.is_stop_en(w) && key.split(' ').any(|v| v == w)))
            });
            if overlaps {
                continue;
            }
            let mut display = r.display;
            // (who wrote the item is not what it is about)
            if display.is_ascii() {
                let by = bylines.get_or_insert_with(|| names::bylines(body));
                if !by.is_empty() && names::in_byline(display, by) {
                    continue;
                }
            }
            // A name is shown as the text writes it in full: "Tarnel Airlines" for a "Tarnel"
            // first met as the airline, しおかぜ電鉄 for the おかぜ電鉄 lindera cut it to.
            if r.facts.proper && display.is_ascii() {
                let names = scored
                    .iter()
                    .filter(|p| p.facts.proper && p.facts.phrase)
                    .map(|p| p.display);
                if let Some(full) = names::full_name(display, names, body) {
                    display = full;
                } else if let Some(whole) = names::ampersand_name(display, &analysed.prepared) {
                    display = whole;
                }
            } else if !display.is_ascii() {
                let whole = (r.facts.count >= 2)
                    .then(|| names::kana_name(display, &analysed.prepared))
                    .flatten();
                if let Some(whole) = whole {
                    display = whole;
                } else if r.facts.proper {
                    let names = scored
                        .iter()
                        .filter(|p| p.facts.proper && !p.display.is_ascii())
                        .map(|p| p.display);
                    let lines = if body.is_empty() {
                        &analysed.prepared[..1]
                    } else {
                        body
                    };
                    if let Some(full) = names::full_name_ja(display, names, lines) {
                        display = full;
                    }
                }
            }
            // (nor a word of a name shown in full, "Pratt" beside "Hollins & Pratt", nor that
            // name again)
            let shown = (!r.display.contains(' ')
                && in_full.iter().any(|d| names::has_word(d, r.display)))
                || chosen.iter().any(|(_, d)| *d == display);
            if !shown && (display.is_ascii() || self.findable(display, analysed)) {
                if display != r.display {
                    in_full.push(display);
                }
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

/// The first byte offset of `needle` in `haystack`, as `str::find` gives it, for the short
/// texts and needles the analyser searches once each: `str::find` and `memmem::find` build a
/// searcher per call, which costs more than a scan for the needle's first byte.
fn find_short(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    let Some(&first) = n.first() else {
        return Some(0);
    };
    let mut from = 0;
    while let Some(i) = memchr::memchr(first, &h[from..]) {
        let at = from + i;
        if h[at..].starts_with(n) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The hand-set order of keyword candidates: score, then first occurrence, then key. (No two
/// keys are equal, so the order is total: an unstable sort gives the same.)
fn hand_order(a: &ranker::Ranked, b: &ranker::Ranked) -> std::cmp::Ordering {
    b.facts
        .score
        .total_cmp(&a.facts.score)
        .then(a.facts.first.cmp(&b.facts.first))
        .then(a.key.cmp(b.key))
}

/// Term keys excluded from a feed's keywords (its category and site name).
type Excluded = std::rc::Rc<FxHashSet<String>>;

/// Whether two English phrases chain: the second starts with the first's last words ("strict
/// concurrency" and "concurrency checking", the ends of "strict concurrency checking").
fn chains(a: &str, b: &str) -> bool {
    if !a.is_ascii() || !b.is_ascii() || !a.contains(' ') || !b.contains(' ') {
        return false;
    }
    let (aw, bw): (Vec<&str>, Vec<&str>) = (a.split(' ').collect(), b.split(' ').collect());
    (1..aw.len().min(bw.len())).any(|k| aw[aw.len() - k..] == bw[..k])
}

/// The hash behind [`Analyzer::fingerprint`]: FNV-1a over the version, each stop list and the
/// ranker's model, each preceded by its length so that moving a word from one list to the other
/// changes it.
fn fingerprint_hash(stop_ja: &str, stop_en: &str, model: &str) -> u64 {
    let mut bytes = Vec::with_capacity(stop_ja.len() + stop_en.len() + model.len() + 28);
    bytes.extend_from_slice(&ANALYZER_VERSION.to_le_bytes());
    for list in [stop_ja, stop_en, model] {
        bytes.extend_from_slice(&(list.len() as u64).to_le_bytes());
        bytes.extend_from_slice(list.as_bytes());
    }
    crate::hash::fnv1a(&bytes)
}

/// A term key's 64-bit FNV-1a hash: how document frequencies and sentence vectors store keys.
/// Fixed here (not a library's hasher) because cached frequencies outlive the process.
pub fn term_hash(key: &str) -> u64 {
    crate::hash::fnv1a(key.as_bytes())
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
        for (t, item) in analysed.iter().zip(chunk.iter()) {
            df.add_item(&item.site, &t.keys());
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
    fn find_short_finds_what_str_find_does() {
        for (h, n) in [
            ("日本銀行と日本", "日本"),
            ("日本銀行と日本", "銀行と"),
            ("abcabd", "abd"),
            ("abc", ""),
            ("", "a"),
            ("ab", "abc"),
            ("https://x http", "http"),
            ("日本", "本"),
        ] {
            assert_eq!(find_short(h, n), h.find(n), "{h} {n}");
        }
    }

    #[test]
    fn fingerprint_is_the_same_under_every_rust_release() {
        // The value is FNV-1a over (version 14, the lists and a model with their lengths), computed outside
        // Rust: a standard-library hasher would change it with a toolchain upgrade and rebuild
        // every cached df.tsv and search index.
        assert_eq!(
            ANALYZER_VERSION, 14,
            "bump this test's value with the version"
        );
        assert_eq!(
            fingerprint_hash("これ\n", "the\n", "{}"),
            0x9319_f0a3_d4cd_65b3
        );
        // Moving a word between the lists changes it.
        assert_ne!(
            fingerprint_hash("これ\nthe\n", "", "{}"),
            fingerprint_hash("これ\n", "the\n", "{}")
        );
        // So does a retrained model.
        assert_ne!(
            fingerprint_hash("これ\n", "the\n", "{}"),
            fingerprint_hash("これ\n", "the\n", "{ }")
        );
        let f = Analyzer::get().fingerprint();
        assert_eq!(
            f,
            format!(
                "v14-{:016x}",
                fingerprint_hash(STOP_JA, STOP_EN, ranker::MODEL)
            )
        );
        assert_eq!(f, Analyzer::get().fingerprint());
    }

    /// Text of every kind a feed sends (scripts, labels, dots and hyphens, amounts, symbols, at
    /// a line's start or end) is analysed without a panic, into at most three keywords.
    #[test]
    fn arbitrary_text_of_every_script_is_analysed_without_a_panic() {
        let pieces = [
            "・",
            "･",
            "‐",
            "-",
            "「",
            "」",
            "【",
            "】",
            ": ",
            ":",
            " ",
            "\n",
            ".",
            ",",
            "、",
            "。",
            "1",
            "12",
            "3.5",
            "万",
            "円",
            "$",
            "%",
            "二",
            "段階",
            "認証",
            "大阪",
            "関西",
            "万博",
            "セブン",
            "イレブン",
            "ジャパン",
            "の",
            "が",
            "は",
            "Show",
            "HN",
            "CVSS",
            "9.8",
            "Rust",
            "async",
            "the",
            "API",
            "consumer",
            "price",
            "index",
            "CPI",
            "'s",
            "\"",
            "(",
            ")",
            "#",
            "No.",
            "ｱ",
            "Ａ",
            "é",
            "😀",
            "\u{200b}",
        ];
        let mut rng = crate::test_rng::XorShift(0x0a11_7e57_5eed_0001);
        let items: Vec<Item> = (0..400)
            .map(|i| {
                let site = if i % 3 == 0 { "Orange Links" } else { "site" };
                let title = rng.text(&pieces, 30);
                item("cat", site, &title, &rng.text(&pieces, 80))
            })
            .collect();
        let refs: Vec<&Item> = items.iter().collect();
        let df = DocFreq::from_items(&refs);
        let a = Analyzer::get();
        for it in &items {
            let kw = a.keywords(it, &df, 3);
            assert!(kw.len() <= 3 && kw.iter().all(|k| !k.is_empty()), "{kw:?}");
            a.summary(it, &kw, &df, 200, 3);
        }
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
            story: String::new(),
        }
    }

    /// The `n` 頻出ワード of an item without document frequencies.
    fn keywords(category: &str, site: &str, title: &str, text: &str, n: usize) -> Vec<String> {
        Analyzer::get().keywords(&item(category, site, title, text), &DocFreq::default(), n)
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
        let kw = keywords(
            "海外TECH",
            "Byteline",
            "Browser maker rewrites its font parser in Rust",
            "The browser maker rewrote the parser in Rust after memory bugs were reported. \
             Engineers said GitHub Copilot helped, and GitHub Copilot wrote the tests.",
            5,
        );
        assert_eq!(kw[0], "Rust", "{kw:?}");
        // (a recurring phrase, but "maker" is a company's role: the phrase is no keyword)
        assert!(kw.contains(&"font parser".to_string()), "{kw:?}");
        assert!(!kw.iter().any(|k| k.ends_with("maker")), "{kw:?}");
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
    fn recurring_three_word_phrases_and_sentence_initial_capitals() {
        let kw = keywords(
            "海外TECH",
            "Byteline",
            "Misconfigured DNS change takes down small modular reactors",
            "Engineers said small modular reactors rely on DNS. The small modular reactors were fine.",
            3,
        );
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
        let kw = keywords(
            "金融",
            "日本銀行",
            "日本銀行、金融政策を維持",
            "日本銀行は金融政策決定会合で現状維持を決めた。長期金利の変動幅は据え置いた。",
            3,
        );
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
