//! The learned re-ranking of a Japanese item's strongest keyword candidates.
//!
//! The hand-set score (title-weighted TF-IDF times the kind's weight, in `keywords_of`) orders
//! the candidates; for an item with a Japanese (non-ASCII) title the first [`RERANKED`] of them
//! are then ordered by a small gradient-boosted tree ensemble that reads, beside that score,
//! what the score does not: where the candidate stands in the title and what is written either
//! side of it (a title's 「X、Y」 or 「XがYを」), how it is spread between title and text, its
//! rank among the item's candidates and its written form. The model is trained on the Japanese
//! items of the quality set's tuning parts only (`tests/quality`, never the held-out part) by
//! `scripts/train-keyword-ranker`, which writes [`MODEL`]; the quality test writes the features
//! it is trained on, so training and use compute them with this one function. English items
//! keep the hand-set order: trained and cross-validated the same way, a model on these
//! features gained nothing there (7 more right tags of 1,727 over seven tuning parts); one
//! that also read the headline's words around the candidate (the word before and after it and
//! its side of the headline's verb) gained 28 gold tags of 1,935 shown over eight, but showed
//! "rewrite" for "memory safety" and "Zephyr-7 probe" for "Zephyr-7" in the regression tests
//! (`tests/it/quality/misses.rs`), so it was not adopted.
//!
//! The model file is data: a baseline and, per tree, its nodes as `[feature, threshold, left,
//! right, value]` (a leaf has feature −1 and its value; an inner node sends a feature value ≤
//! the threshold left). Evaluating it is a few comparisons per tree, so it is done here rather
//! than with an inference crate (those bring a runtime for formats and models far larger than
//! 60 trees of eight leaves).

use std::sync::LazyLock;

/// How many of the hand-ranked candidates the model re-orders (the rest keep their order
/// after them: a gold tag below the twelfth is rare, and the features are computed only here).
pub(super) const RERANKED: usize = 12;

/// The number of features per candidate ([`features_of`]).
pub const FEATURES: usize = 28;

/// The trained model, embedded (its bytes are part of the analyser's fingerprint).
pub(super) const MODEL: &str = include_str!("keyword_ranker.json");

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

/// The features of the first [`RERANKED`] of `ranked` (in the hand-set order, best first), read
/// against the item's prepared `title`.
pub(super) fn features_of(ranked: &[Ranked], title: &str) -> Vec<[f64; FEATURES]> {
    let n = ranked.len().min(RERANKED);
    let top = ranked.first().map_or(0.0, |r| r.facts.score);
    let max_idf = ranked.iter().map(|r| r.facts.idf).fold(0.0_f64, f64::max);
    let in_title = ranked.iter().filter(|r| r.facts.in_title).count();
    let lower_title = lower(title);
    let title_chars = lower_title.chars().count().max(1);
    ranked[..n]
        .iter()
        .enumerate()
        .map(|(rank, r)| {
            let f = &r.facts;
            let english = r.key.is_ascii();
            let title_n = f.tf - f.count as f64;
            let text_n = 2.0 * f.count as f64 - f.tf;
            let chars = r.display.chars().count();
            let display = lower(r.display);
            let (at, before, after) = match super::find_short(&lower_title, &display) {
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
            [
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
            ]
        })
        .collect()
}

/// `s` in lower case, borrowed when no character of it has case (ASCII without capitals,
/// kana, kanji and CJK punctuation: most Japanese titles and candidates).
fn lower(s: &str) -> std::borrow::Cow<'_, str> {
    let caseless = |c: char| {
        (c.is_ascii() && !c.is_ascii_uppercase())
            || matches!(c, '\u{3000}'..='\u{30ff}' | '\u{4e00}'..='\u{9fff}')
    };
    if s.chars().all(caseless) {
        std::borrow::Cow::Borrowed(s)
    } else {
        std::borrow::Cow::Owned(s.to_lowercase())
    }
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
        if m.features != FEATURES {
            return Err(format!("{} features, not {FEATURES}", m.features));
        }
        for (t, tree) in m.trees.iter().enumerate() {
            if tree.is_empty() {
                return Err(format!("tree {t} is empty"));
            }
            for (i, &(feature, _, left, right, _)) in tree.iter().enumerate() {
                let inner = feature >= 0;
                if inner
                    && (feature as usize >= FEATURES
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

/// The embedded model.
pub(super) fn model() -> &'static Model {
    static MODEL_PARSED: LazyLock<Model> =
        LazyLock::new(|| Model::parse(MODEL).expect("the embedded keyword ranker parses"));
    &MODEL_PARSED
}

/// Re-orders the first [`RERANKED`] of `ranked` (hand-set order, best first) by the model,
/// a tie kept in the hand-set order.
pub(super) fn rerank(ranked: &mut [Ranked], title: &str) {
    let m = model();
    let scores: Vec<f64> = features_of(ranked, title)
        .iter()
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
    fn the_embedded_model_parses_and_reads_every_feature_it_names() {
        let m = model();
        assert!(m.trees.len() >= 10, "{} trees", m.trees.len());
        assert!(m.baseline.is_finite());
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
            r#"{"features":3,"baseline":0,"trees":[]}"#.to_string(),
        ] {
            assert!(Model::parse(&bad).is_err(), "{bad}");
        }
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
