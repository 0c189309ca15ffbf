//! The learned re-ranking of an item's strongest keyword candidates.
//!
//! The hand-set score (title-weighted TF-IDF times the kind's weight, in `keywords_of`) orders
//! the candidates; for an item with a Japanese (non-ASCII) title the first [`RERANKED`] of them
//! are then ordered by a small gradient-boosted tree ensemble that reads, beside that score,
//! what the score does not: where the candidate stands in the title and what is written either
//! side of it (a title's 「X、Y」 or 「XがYを」), how it is spread between title and text, its
//! rank among the item's candidates and its written form. An English item's first
//! [`RERANKED_EN`] are ordered by a second model that also reads the headline's words around
//! the candidate ([`english_features`]: the subject before the verb, "to" or "says" after it, a
//! determiner or preposition before it), how it is written and whether the text's first
//! sentence has it. Each model is trained on its language's items of the quality set's tuning
//! parts only (`tests/quality`, never the held-out part) by `scripts/train-keyword-ranker`,
//! which writes [`MODEL`] and [`MODEL_EN`]; the quality test writes the features they are
//! trained on, so training and use compute them with this one function. (Two models, not one
//! with a language feature: one model for both was weaker for Japanese in the eighth round,
//! and the languages share few of the title features.)
//!
//! The model file is data: a baseline and, per tree, its nodes as `[feature, threshold, left,
//! right, value]` (a leaf has feature −1 and its value; an inner node sends a feature value ≤
//! the threshold left). Evaluating it is a few comparisons per tree, so it is done here rather
//! than with an inference crate (those bring a runtime for formats and models far larger than
//! two of 60 trees of eight leaves).

use std::sync::LazyLock;

/// How many of the hand-ranked candidates the model re-orders (the rest keep their order
/// after them: a gold tag below the twelfth is rare, and the features are computed only here).
pub(super) const RERANKED: usize = 12;

/// The number of features per candidate ([`features_of`]): the first [`JA_FEATURES`] for
/// every item, then [`EN_FEATURES`] read from an English title's words.
pub const FEATURES: usize = JA_FEATURES + EN_FEATURES;

/// The features the Japanese model reads.
pub(super) const JA_FEATURES: usize = 28;

/// The English title's features ([`english_features`]; zero for a Japanese item).
pub(super) const EN_FEATURES: usize = 16;

/// How many of an English item's hand-ranked candidates its model re-orders: fewer than a
/// Japanese item's (leave-one-part-out, re-ordering the first four to eight gained more gold
/// tags than re-ordering all twelve).
pub(super) const RERANKED_EN: usize = 6;

/// The trained model for Japanese items, embedded (its bytes are part of the analyser's
/// fingerprint).
pub(super) const MODEL: &str = include_str!("keyword_ranker.json");

/// The trained model for English items (all [`FEATURES`]), embedded likewise.
pub(super) const MODEL_EN: &str = include_str!("keyword_ranker_en.json");

/// What the hand-set ranking knows of one candidate.
#[derive(Clone, Copy)]
pub(super) struct Facts {
    /// The hand-set score.
    pub score: f64,
    /// Occurrences, the title's counted twice (`Cand::tf`).
    pub tf: f64,
    /// Occurrences.
    pub count: usize,
    /// Token position of the first occurrence (the title's tokens first).
    pub first: usize,
    pub idf: f64,
    /// The kind's weight in the score.
    pub weight: f64,
    pub in_title: bool,
    pub proper: bool,
    pub phrase: bool,
    pub weak: bool,
    pub chunk: bool,
    pub lower: bool,
    /// A noun chunk the text says once, let in as one.
    pub once_chunk: bool,
}

/// One candidate as the re-ranking sees it.
#[derive(Clone, Copy)]
pub(super) struct Ranked<'a> {
    pub key: &'a str,
    pub display: &'a str,
    pub facts: Facts,
}

/// What the item says beside its candidates: whether it is an English item (an ASCII title),
/// its prepared title and first sentence, the stem of the headline's verb and whether the title
/// is in Title Case.
#[derive(Clone, Copy)]
pub(super) struct Context<'a> {
    pub english: bool,
    pub title: &'a str,
    pub first_sentence: &'a str,
    pub verb: Option<&'a str>,
    pub title_case: bool,
}

/// The features of the first [`RERANKED`] of `ranked` (in the hand-set order, best first), read
/// against the item's prepared title and first sentence.
pub(super) fn features_of(ranked: &[Ranked], ctx: &Context) -> Vec<[f64; FEATURES]> {
    let title = ctx.title;
    let n = ranked.len().min(RERANKED);
    let top = ranked.first().map_or(0.0, |r| r.facts.score);
    let max_idf = ranked.iter().map(|r| r.facts.idf).fold(0.0_f64, f64::max);
    let in_title = ranked.iter().filter(|r| r.facts.in_title).count();
    let lower_title = title.to_lowercase();
    let title_chars = lower_title.chars().count().max(1);
    // (an English item's title words and first sentence, read once)
    let en_words = ctx.english.then(|| TitleWords::of(title, ctx.verb));
    let first_sentence = if en_words.is_some() {
        ctx.first_sentence.to_ascii_lowercase()
    } else {
        String::new()
    };
    ranked[..n]
        .iter()
        .enumerate()
        .map(|(rank, r)| {
            let f = &r.facts;
            let english = r.key.is_ascii();
            let title_n = f.tf - f.count as f64;
            let text_n = 2.0 * f.count as f64 - f.tf;
            let chars = r.display.chars().count();
            let display = r.display.to_lowercase();
            let (at, before, after) = match lower_title.find(&display) {
                Some(i) => {
                    let end = i + display.len();
                    (
                        lower_title[..i].chars().count() as f64 / title_chars as f64,
                        lower_title[..i].chars().next_back(),
                        lower_title[end..].chars().next(),
                    )
                }
                None => (-1.0, None, None),
            };
            let bit = |b: bool| if b { 1.0 } else { 0.0 };
            let mut x = [0.0; FEATURES];
            x[..JA_FEATURES].copy_from_slice(&[
                (f.score.max(1e-9) / top.max(1e-9)).ln(),
                rank.min(10) as f64,
                bit(f.in_title),
                title_n,
                text_n.ln_1p(),
                (f.first as f64).ln_1p(),
                bit(f.proper),
                bit(f.phrase),
                bit(f.weak),
                bit(f.chunk),
                bit(f.lower),
                bit(f.once_chunk),
                bit(english),
                if max_idf > 0.0 { f.idf / max_idf } else { 1.0 },
                f.idf - max_idf,
                f.weight.max(1e-9).ln(),
                if english {
                    r.key.split(' ').count() as f64
                } else {
                    1.0
                },
                chars.min(30) as f64,
                bit(chars > 0
                    && r.display
                        .chars()
                        .all(|c| ('\u{30a0}'..='\u{30ff}').contains(&c))),
                bit(r.display.chars().any(|c| c.is_ascii_digit())),
                bit(english && r.display.starts_with(|c: char| c.is_ascii_uppercase())),
                bit(english
                    && r.display.bytes().any(|b| b.is_ascii_lowercase())
                    && !r.display.bytes().any(|b| b.is_ascii_uppercase())),
                at,
                neighbour_class(before) as f64,
                neighbour_class(after) as f64,
                bit(at == 0.0),
                ranked.len() as f64,
                in_title as f64,
            ]);
            if let Some(words) = &en_words {
                x[JA_FEATURES..].copy_from_slice(&english_features(
                    r,
                    &ranked[..n],
                    words,
                    &first_sentence,
                    ctx,
                ));
            }
            x
        })
        .collect()
}

/// An English title's words, lower-cased, each with the punctuation written after it and
/// whether it was capitalised; and the index of the headline's verb (the analyser's, else the
/// first word that reads as one).
struct TitleWords {
    words: Vec<TitleWord>,
    verb: Option<usize>,
}

struct TitleWord {
    lower: String,
    capital: bool,
    /// Punctuation right after the word (`:` of "Markets Minute:", `,`), or none.
    punct_after: bool,
    /// The word ends in a possessive 's.
    possessive: bool,
}

impl TitleWords {
    fn of(title: &str, verb: Option<&str>) -> TitleWords {
        let words: Vec<TitleWord> = title
            .split_whitespace()
            .filter_map(|raw| {
                let trimmed = raw.trim_matches(|c: char| !c.is_ascii_alphanumeric());
                if trimmed.is_empty() {
                    return None;
                }
                let after = &raw[raw.find(trimmed).unwrap_or(0) + trimmed.len()..];
                let lower = trimmed.to_ascii_lowercase();
                let stem = lower
                    .strip_suffix("'s")
                    .or_else(|| lower.strip_suffix("\u{2019}s"));
                let possessive = stem.is_some();
                Some(TitleWord {
                    capital: trimmed.starts_with(|c: char| c.is_ascii_uppercase()),
                    punct_after: after.contains([':', ',', ';', '?', '!', '|']),
                    possessive,
                    lower: stem.map_or_else(|| lower.clone(), str::to_string),
                })
            })
            .collect();
        let by_stem = verb.and_then(|v| {
            words
                .iter()
                .position(|w| !w.capital && w.lower.starts_with(v) && w.lower.len() <= v.len() + 3)
        });
        let verb = by_stem.or_else(|| {
            words
                .iter()
                .enumerate()
                .skip(1)
                .find(|(_, w)| !w.capital && matches!(word_class(&w.lower), 3 | 5 | 6))
                .map(|(i, _)| i)
        });
        TitleWords { words, verb }
    }

    /// Where the candidate's words start and end (exclusive) among the title's words.
    fn find(&self, cand: &[&str]) -> Option<(usize, usize)> {
        if cand.is_empty() || cand.len() > self.words.len() {
            return None;
        }
        (0..=self.words.len() - cand.len())
            .find(|&i| {
                cand.iter()
                    .zip(&self.words[i..])
                    .all(|(c, w)| w.lower == *c)
            })
            .map(|i| (i, i + cand.len()))
    }
}

/// A word of an English title, by what it is to the words beside it: 1 a determiner or
/// possessive pronoun, 2 a preposition, 3 "to", 4 a conjunction, 5 an auxiliary or a
/// reporting verb, 6 a lower-case verb's form (-s, -ed, -ing), 7 another lower-case word,
/// 8 a number. (Closed classes of headline English; case is the caller's.)
fn word_class(w: &str) -> u8 {
    const DETERMINERS: &[&str] = &[
        "the", "a", "an", "this", "that", "these", "those", "its", "their", "his", "her", "our",
        "your", "my", "new", "some", "more", "no", "all",
    ];
    const PREPOSITIONS: &[&str] = &[
        "of", "in", "on", "for", "at", "with", "from", "by", "over", "after", "amid", "into",
        "about", "against", "under", "than", "via", "without", "before", "between", "across",
        "through", "per", "vs", "behind", "despite", "toward", "towards", "near", "around", "like",
    ];
    const CONJUNCTIONS: &[&str] = &[
        "and", "or", "but", "nor", "as", "while", "when", "if", "so", "because", "until",
    ];
    const AUXILIARIES: &[&str] = &[
        "is", "are", "was", "were", "be", "been", "will", "would", "can", "could", "may", "might",
        "should", "must", "has", "have", "had", "does", "do", "did", "says", "said", "gets", "get",
        "won't", "can't", "isn't", "aren't",
    ];
    if DETERMINERS.contains(&w) {
        1
    } else if PREPOSITIONS.contains(&w) {
        2
    } else if w == "to" {
        3
    } else if CONJUNCTIONS.contains(&w) {
        4
    } else if AUXILIARIES.contains(&w) {
        5
    } else if w.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
        8
    } else if w.len() >= 4
        && ((w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us"))
            || w.ends_with("ed")
            || w.ends_with("ing"))
    {
        6
    } else {
        7
    }
}

/// The class of a title word next to a candidate: 0 none (the title's start or end), 9
/// punctuation between them, 10 a possessive ('s after the candidate), 11 a capitalised word,
/// else [`word_class`].
fn english_neighbour(w: Option<&TitleWord>, punct: bool, possessive: bool) -> f64 {
    match w {
        _ if possessive => 10.0,
        _ if punct => 9.0,
        None => 0.0,
        Some(w) if w.capital && word_class(&w.lower) >= 6 => 11.0,
        Some(w) => word_class(&w.lower) as f64,
    }
}

/// What an English title's words say about one of its candidates (see [`EN_FEATURES`]): the
/// words either side of it, where it stands against the headline's verb, how it is written,
/// whether the text's first sentence has it and how it nests with the other candidates. In
/// order: the class of the word before it and after it ([`english_neighbour`]; −1 where the
/// title does not have it), whether a verb, "to" or an auxiliary follows, whether a determiner
/// or preposition comes before, its side of the verb (−1 before, 1 after, 2 around it, 0 no
/// verb, −3 not in the title), its first word's index in the title, the title's word count,
/// the verb's index, all capitals, the share of capitalised words, a Title Case title, in the
/// first sentence, inside another of the strongest candidates, holding one, and whether any
/// or its last word reads as a verb's form.
fn english_features(
    r: &Ranked,
    top: &[Ranked],
    t: &TitleWords,
    first_sentence: &str,
    ctx: &Context,
) -> [f64; EN_FEATURES] {
    let bit = |b: bool| if b { 1.0 } else { 0.0 };
    let display = r.display.to_ascii_lowercase();
    let cand: Vec<&str> = display
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let found = t.find(&cand);
    let (before, after, side, index) = match found {
        Some((i, j)) => {
            let last = &t.words[j - 1];
            let before = english_neighbour(
                i.checked_sub(1).map(|k| &t.words[k]),
                i > 0 && t.words[i - 1].punct_after,
                false,
            );
            let after = english_neighbour(t.words.get(j), last.punct_after, last.possessive);
            let side = match t.verb {
                Some(v) if j <= v => -1.0,
                Some(v) if i > v => 1.0,
                Some(_) => 2.0,
                None => 0.0,
            };
            (before, after, side, i.min(15) as f64)
        }
        None => (-1.0, -1.0, -3.0, -1.0),
    };
    let letters: Vec<char> = r
        .display
        .chars()
        .filter(|c| c.is_ascii_alphabetic())
        .collect();
    let all_caps = letters.len() >= 2 && letters.iter().all(|c| c.is_ascii_uppercase());
    let capitals = r
        .display
        .split(' ')
        .filter(|w| w.starts_with(|c: char| c.is_ascii_uppercase()))
        .count();
    let words = cand.len().max(1);
    let padded = format!(" {display} ");
    let inside_another = top.iter().any(|o| {
        o.key != r.key && format!(" {} ", o.display.to_ascii_lowercase()).contains(&padded)
    });
    let holds_another = top.iter().any(|o| {
        o.key != r.key && padded.contains(&format!(" {} ", o.display.to_ascii_lowercase()))
    });
    let in_first = !first_sentence.is_empty() && contains_words(first_sentence, &display);
    let before_verb_words = t.verb.map_or(-1.0, |v| v as f64);
    [
        before,
        after,
        bit(matches!(after as u8, 3 | 5 | 6) && after > 0.0),
        bit(matches!(before as u8, 1 | 2) && before > 0.0),
        side,
        index,
        t.words.len().min(30) as f64,
        before_verb_words,
        bit(all_caps),
        capitals as f64 / words as f64,
        bit(ctx.title_case),
        bit(in_first),
        bit(inside_another),
        bit(holds_another),
        bit(cand.iter().any(|w| word_class(w) == 6)),
        bit(cand.last().is_some_and(|w| word_class(w) == 6)),
    ]
}

/// Whether `text` (lower case) has `words` with no letter or digit either side.
fn contains_words(text: &str, words: &str) -> bool {
    text.match_indices(words).any(|(at, m)| {
        let b = text.as_bytes();
        (at == 0 || !b[at - 1].is_ascii_alphanumeric())
            && b.get(at + m.len())
                .is_none_or(|c| !c.is_ascii_alphanumeric())
    })
}

/// What stands next to a candidate in the title: nothing (its start or end), a particle (each
/// its own class), a comma, a space, a quotation mark or bracket, a colon or bar, or anything
/// else.
fn neighbour_class(c: Option<char>) -> u8 {
    const PARTICLES: &str = "のにをがはでとへもや";
    match c {
        None => 0,
        Some(c) => match PARTICLES.chars().position(|p| p == c) {
            Some(i) => 1 + i as u8,
            None => match c {
                '、' | ',' | '，' => 12,
                ' ' | '\u{3000}' => 13,
                '「' | '」' | '『' | '』' | '“' | '”' | '"' | '\'' => 14,
                ':' | '：' | '|' | '｜' => 15,
                _ => 16,
            },
        },
    }
}

/// A tree's node as the model file writes it: feature (−1 for a leaf), threshold, left child,
/// right child, leaf value.
type Node = (i32, f64, u32, u32, f64);

/// A tree ensemble: a baseline plus one leaf value per tree.
#[derive(serde::Deserialize)]
pub(super) struct Model {
    features: usize,
    baseline: f64,
    trees: Vec<Vec<Node>>,
}

impl Model {
    /// Parses a model file, checking that every node's children and features exist (a bad file
    /// is a build-time error: the embedded model is checked by a test).
    pub(super) fn parse(text: &str) -> Result<Model, String> {
        let m: Model = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if m.features > FEATURES {
            return Err(format!("{} features, more than {FEATURES}", m.features));
        }
        for (t, tree) in m.trees.iter().enumerate() {
            if tree.is_empty() {
                return Err(format!("tree {t} is empty"));
            }
            for (i, &(feature, _, left, right, _)) in tree.iter().enumerate() {
                let inner = feature >= 0;
                if inner
                    && (feature as usize >= m.features
                        || left as usize <= i
                        || right as usize <= i
                        || left as usize >= tree.len()
                        || right as usize >= tree.len())
                {
                    return Err(format!("tree {t} node {i} points outside the tree"));
                }
            }
        }
        Ok(m)
    }

    /// The raw score (log-odds that the candidate is a tag a reader picks).
    pub(super) fn score(&self, x: &[f64; FEATURES]) -> f64 {
        let mut sum = self.baseline;
        for tree in &self.trees {
            let mut i = 0;
            loop {
                let (feature, threshold, left, right, value) = tree[i];
                if feature < 0 {
                    sum += value;
                    break;
                }
                // (children follow their parent, so this ends)
                i = if x[feature as usize] <= threshold {
                    left as usize
                } else {
                    right as usize
                };
            }
        }
        sum
    }
}

/// The embedded model for an English item's candidates or a Japanese item's.
pub(super) fn model(english: bool) -> &'static Model {
    static MODEL_PARSED: LazyLock<Model> =
        LazyLock::new(|| Model::parse(MODEL).expect("the embedded keyword ranker parses"));
    static MODEL_EN_PARSED: LazyLock<Model> = LazyLock::new(|| {
        Model::parse(MODEL_EN).expect("the embedded English keyword ranker parses")
    });
    if english {
        &MODEL_EN_PARSED
    } else {
        &MODEL_PARSED
    }
}

/// Re-orders the first [`RERANKED`] of `ranked` (hand-set order, best first) by the Japanese
/// model, or of an English item (an ASCII title) the first [`RERANKED_EN`] by the English one;
/// a tie kept in the hand-set order.
pub(super) fn rerank(ranked: &mut [Ranked], ctx: &Context) {
    let m = model(ctx.english);
    let n = if ctx.english { RERANKED_EN } else { RERANKED };
    let scores: Vec<f64> = features_of(ranked, ctx)
        .iter()
        .take(n)
        .map(|x| m.score(x))
        .collect();
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let head: Vec<Ranked> = order.iter().map(|&i| ranked[i]).collect();
    ranked[..head.len()].copy_from_slice(&head);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_models_parse_and_read_every_feature_they_name() {
        for english in [false, true] {
            let m = model(english);
            assert!(m.trees.len() >= 10, "{} trees", m.trees.len());
            assert!(m.baseline.is_finite());
        }
        assert_eq!(model(false).features, JA_FEATURES);
        assert_eq!(model(true).features, FEATURES);
    }

    /// A model file that points outside its tree, or names a feature that does not exist, is
    /// refused rather than read out of bounds.
    #[test]
    fn a_model_that_points_outside_its_tree_is_refused() {
        let ok = format!(
            r#"{{"features":{FEATURES},"baseline":0.5,"trees":[[[2,0.5,1,2,0],[-1,0,0,0,-1.0],[-1,0,0,0,2.0]]]}}"#
        );
        let m = Model::parse(&ok).expect("parses");
        let mut x = [0.0; FEATURES];
        assert_eq!(m.score(&x), -0.5);
        x[2] = 1.0;
        assert_eq!(m.score(&x), 2.5);
        for bad in [
            format!(
                r#"{{"features":{FEATURES},"baseline":0,"trees":[[[2,0.5,1,7,0],[-1,0,0,0,1]]]}}"#
            ),
            format!(
                r#"{{"features":{FEATURES},"baseline":0,"trees":[[[99,0.5,1,1,0],[-1,0,0,0,1]]]}}"#
            ),
            format!(r#"{{"features":{FEATURES},"baseline":0,"trees":[[[1,0.5,0,0,0]]]}}"#),
            format!(r#"{{"features":{FEATURES},"baseline":0,"trees":[[]]}}"#),
            format!(r#"{{"features":{},"baseline":0,"trees":[]}}"#, FEATURES + 1),
            r#"{"features":3,"baseline":0,"trees":[[[5,0.5,1,2,0],[-1,0,0,0,1],[-1,0,0,0,1]]]}"#
                .to_string(),
        ] {
            assert!(Model::parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_english_headlines_subject_stands_before_its_verb() {
        let t = TitleWords::of("Acme's new chip launches to rivals: what it means", None);
        let words: Vec<&str> = t.words.iter().map(|w| w.lower.as_str()).collect();
        assert_eq!(
            words,
            [
                "acme", "new", "chip", "launches", "to", "rivals", "what", "it", "means"
            ]
        );
        assert!(t.words[0].possessive && t.words[0].capital);
        assert!(t.words[5].punct_after);
        assert_eq!(t.verb, Some(3));
        assert_eq!(t.find(&["new", "chip"]), Some((1, 3)));
        assert_eq!(t.find(&["chip", "to"]), None);
        // (the analyser's verb, by its stem, is taken before the first word that reads as one)
        assert_eq!(
            TitleWords::of("Chip stocks slide as rates rise", Some("slide")).verb,
            Some(2)
        );
        assert_eq!(word_class("the"), 1);
        assert_eq!(word_class("amid"), 2);
        assert_eq!(word_class("to"), 3);
        assert_eq!(word_class("says"), 5);
        assert_eq!(word_class("launches"), 6);
        assert_eq!(word_class("status"), 7);
        assert_eq!(word_class("2026"), 8);
    }

    #[test]
    fn a_title_neighbour_is_classed_by_what_it_is() {
        assert_eq!(neighbour_class(None), 0);
        assert_eq!(neighbour_class(Some('の')), 1);
        assert_eq!(neighbour_class(Some('が')), 4);
        assert_eq!(neighbour_class(Some('、')), 12);
        assert_eq!(neighbour_class(Some('「')), 14);
        assert_eq!(neighbour_class(Some('x')), 16);
    }
}
