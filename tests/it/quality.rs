//! The 頻出ワード quality set, in parts labelled the same way (each item with the tags a reader
//! picked, gold, and other tags a reader would accept, written before matome ran on it):
//! - the **tuning parts**, on which rules may be tuned and whose worst misses are printed:
//!   - `tests/quality/keywords.toml` (211 items, 109 English), tuned on from the start;
//!   - `tests/quality/keywords-heldout.toml` (158 items, 81 English from 25 sites), held out
//!     through issue 25's first three rounds (labelled before its rules, looked at three times,
//!     aggregates only), a tuning part from the fourth round on;
//!   - `tests/quality/keywords-heldout2.toml` (130 items, 65 English from 12 sites, 65 Japanese
//!     from 10), held out through the third round (looked at twice), a tuning part from the
//!     fourth round on;
//!   - `tests/quality/keywords-heldout3.toml` (163 items, 90 English), labelled blind during the
//!     fourth round and held out through it (looked at once, aggregates only), a tuning part
//!     from the fifth round on;
//!   - `tests/quality/keywords-heldout4.toml` (163 items, 92 English), labelled blind during the
//!     fifth round and held out through it (looked at once, aggregates only), a tuning part from
//!     the sixth round on;
//!   - `tests/quality/keywords-heldout5.toml` (130 items, 70 English), labelled blind before the
//!     sixth round and held out through it (looked at twice, aggregates only), a tuning part from
//!     the seventh round on;
//!   - `tests/quality/keywords-heldout6.toml` (130 items, 70 English), labelled blind before the
//!     seventh round and held out through it (looked at twice, aggregates only), a tuning part
//!     from the eighth round on;
//!   - `tests/quality/keywords-heldout7.toml` (130 items, 70 English), labelled blind before the
//!     eighth round and held out through it (looked at twice, aggregates only), a tuning part
//!     from the ninth round on;
//!   - `tests/quality/keywords-heldout8.toml` (130 items, 70 English), labelled blind before the
//!     ninth round and held out through it (looked at four times, aggregates only), a tuning
//!     part from the tenth round on;
//!   - `tests/quality/keywords-heldout9.toml` (130 items, 70 English), labelled blind before the
//!     tenth round and held out through it (looked at twice, aggregates only), a tuning part
//!     from the eleventh round on;
//!   - `tests/quality/keywords-heldout10.toml` (130 items, 70 English), labelled blind before
//!     the eleventh round and held out through it (looked at twice, aggregates only), a tuning
//!     part from the twelfth round on;
//! - `tests/quality/keywords-heldout11.toml`, the **held-out part** (130 items, 70 English from
//!   14 outlets, 60 Japanese from 12 sites), labelled blind before the twelfth round's changes
//!   by four labellers who had not run matome on it, never opened while tuning and never used to
//!   train the keyword ranker: only its aggregate figures are printed (precision@3 and recall@3,
//!   overall and per language), never an item, a title or a miss, and the floors of the goal are
//!   set on it.
//!
//! The tuning parts are also what the keyword ranker (`src/analyze/ranker.rs`) is trained on:
//! `keyword_ranker_features_of_the_tuning_parts` writes their features for
//! `scripts/train-keyword-ranker`. Their figures are therefore in-sample for the ranker; the
//! held-out part's are not.
//!
//! Precision@3 is the share of shown keywords that are gold or acceptable; recall@3 the share of
//! the gold tags a top 3 can show (at most 3 an item, "capped recall": a reader who tagged four
//! words cannot have all four among three keywords) that are shown. The share of all gold tags
//! (the measure before issue 25's second round) is printed beside it.
//!
//! Each part is ranked against its own document frequencies (global and per site, as an archive
//! of those items would give them). Also checks that every keyword shown is found by the search
//! analyser in its item, over all parts, and holds the regression tests of the misses the issues
//! quote (here and in `quality/misses.rs`).

use matome::analyze::{Analyzer, DocFreq};
use matome::content::Item;

mod misses;

#[derive(serde::Deserialize)]
struct Set {
    items: Vec<Gold>,
}

#[derive(serde::Deserialize)]
struct Gold {
    category: String,
    site: String,
    title: String,
    description: String,
    keywords: Vec<String>,
    /// Tags that are also right (they count for precision, not for recall).
    #[serde(default)]
    acceptable: Vec<String>,
}

/// One part of the set.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    Tuning,
    /// The first held-out part, a tuning part from issue 25's fourth round on.
    Tuning2,
    /// The second held-out part, a tuning part from issue 25's fourth round on.
    Tuning3,
    /// The third held-out part, a tuning part from issue 25's fifth round on.
    Tuning4,
    /// The fourth held-out part, a tuning part from issue 25's sixth round on.
    Tuning5,
    /// The fifth held-out part, a tuning part from issue 25's seventh round on.
    Tuning6,
    /// The sixth held-out part, a tuning part from issue 25's eighth round on.
    Tuning7,
    /// The seventh held-out part, a tuning part from issue 25's ninth round on.
    Tuning8,
    /// The eighth held-out part, a tuning part from issue 25's tenth round on.
    Tuning9,
    /// The ninth held-out part, a tuning part from issue 25's eleventh round on.
    Tuning10,
    /// The tenth held-out part, a tuning part from issue 25's twelfth round on.
    Tuning11,
    /// The held-out part (only its aggregates are ever printed).
    HeldOut11,
}

/// The tuning parts, in the order they were labelled.
const TUNING_PARTS: [Part; 11] = [
    Part::Tuning,
    Part::Tuning2,
    Part::Tuning3,
    Part::Tuning4,
    Part::Tuning5,
    Part::Tuning6,
    Part::Tuning7,
    Part::Tuning8,
    Part::Tuning9,
    Part::Tuning10,
    Part::Tuning11,
];

impl Part {
    fn path(self) -> &'static str {
        match self {
            Part::Tuning => concat!(env!("CARGO_MANIFEST_DIR"), "/tests/quality/keywords.toml"),
            Part::Tuning2 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/keywords-heldout.toml"
            ),
            Part::Tuning3 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/keywords-heldout2.toml"
            ),
            Part::Tuning4 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/keywords-heldout3.toml"
            ),
            Part::Tuning5 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/keywords-heldout4.toml"
            ),
            Part::Tuning6 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/keywords-heldout5.toml"
            ),
            Part::Tuning7 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/keywords-heldout6.toml"
            ),
            Part::Tuning8 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/keywords-heldout7.toml"
            ),
            Part::Tuning9 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/keywords-heldout8.toml"
            ),
            Part::Tuning10 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/keywords-heldout9.toml"
            ),
            Part::Tuning11 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/keywords-heldout10.toml"
            ),
            Part::HeldOut11 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/keywords-heldout11.toml"
            ),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Part::Tuning => "tuning part 1",
            Part::Tuning2 => "tuning part 2 (held out to round 3)",
            Part::Tuning3 => "tuning part 3 (held out to round 3)",
            Part::Tuning4 => "tuning part 4 (held out in round 4)",
            Part::Tuning5 => "tuning part 5 (held out in round 5)",
            Part::Tuning6 => "tuning part 6 (held out in round 6)",
            Part::Tuning7 => "tuning part 7 (held out in round 7)",
            Part::Tuning8 => "tuning part 8 (held out in round 8)",
            Part::Tuning9 => "tuning part 9 (held out in round 9)",
            Part::Tuning10 => "tuning part 10 (held out in round 10)",
            Part::Tuning11 => "tuning part 11 (held out in round 11)",
            Part::HeldOut11 => "held-out part 11",
        }
    }

    /// Whether the part may be tuned on (its misses are printed).
    fn tuning(self) -> bool {
        TUNING_PARTS.contains(&self)
    }

    fn gold(self) -> Vec<Gold> {
        crate::support::quality_set::read::<Set>(self.path()).items
    }
}

/// An archived item as fetch would make it from a quality-set entry (its feed named for its
/// site, so each site of the set is one feed of the archive).
fn to_item(g: &Gold) -> Item {
    Item {
        id: g.title.clone(),
        feed: format!(
            "http://127.0.0.1/{}",
            matome::hash::fnv1a(g.site.as_bytes())
        ),
        category: g.category.clone(),
        site: g.site.clone(),
        title: matome::text::one_line(&g.title),
        link: String::new(),
        published: chrono::DateTime::parse_from_rfc3339("2021-07-20T08:00:00+09:00").unwrap(),
        keywords: vec![],
        summary: String::new(),
        text: matome::text::html_to_text(&g.description),
        trend: None,
        story: String::new(),
    }
}

#[derive(Default)]
struct Score {
    /// Predicted tags in gold or acceptable.
    hits: usize,
    /// Predicted tags in gold.
    gold_hits: usize,
    predicted: usize,
    gold: usize,
    /// Gold tags a top 3 can hold: at most 3 an item (recall's denominator).
    gold_cap: usize,
}

impl Score {
    fn precision(&self) -> f64 {
        self.hits as f64 / self.predicted.max(1) as f64
    }

    /// Recall@3: gold tags shown / the gold tags three keywords can show (min(3, gold) an
    /// item: a reader's fourth tag is no miss of a top 3; BEIR's "capped recall").
    fn recall(&self) -> f64 {
        self.gold_hits as f64 / self.gold_cap.max(1) as f64
    }

    /// Gold tags shown / all gold tags (the measure before issue 25's second round; printed
    /// beside recall@3 so the two can be compared).
    fn recall_of_all_gold(&self) -> f64 {
        self.gold_hits as f64 / self.gold.max(1) as f64
    }
}

/// An item whose top 3 missed: hits, predicted, gold, title (kept for the tuning part only).
type Miss = (usize, Vec<String>, Vec<String>, String);

/// The language of a set item, told as the analyser tells it: a title with kana or kanji is
/// Japanese (check_set.py keeps every English title ASCII and every Japanese one not).
fn language(item: &Item) -> &'static str {
    if item.title.chars().any(matome::text::is_japanese) {
        "Japanese"
    } else {
        "English"
    }
}

/// A part's scores by group ("all", "Japanese", "English"), and for the tuning part its misses.
fn evaluate(part: Part) -> (Vec<(&'static str, Score)>, Vec<Miss>) {
    let gold = part.gold();
    let items: Vec<Item> = gold.iter().map(to_item).collect();
    let refs: Vec<&Item> = items.iter().collect();
    let df = DocFreq::from_items(&refs);
    let a = Analyzer::get();
    let mut groups: Vec<(&'static str, Score)> = ["all", "Japanese", "English"]
        .into_iter()
        .map(|n| (n, Score::default()))
        .collect();
    let mut misses: Vec<Miss> = Vec::new();
    let verbose = part.tuning() && std::env::var_os("MATOME_QUALITY_VERBOSE").is_some();
    for (item, g) in items.iter().zip(&gold) {
        let predicted = a.keywords(item, &df, 3);
        let lower = |v: &[String]| v.iter().map(|s| s.to_lowercase()).collect::<Vec<_>>();
        let (p, gl, ok) = (lower(&predicted), lower(&g.keywords), lower(&g.acceptable));
        // Precision: a predicted tag in gold or acceptable; recall: gold tags predicted.
        let hits = p
            .iter()
            .filter(|k| gl.contains(k) || ok.contains(k))
            .count();
        let gold_hits = p.iter().filter(|k| gl.contains(k)).count();
        if part.tuning() {
            if hits < p.len().min(3) || p.is_empty() {
                misses.push((
                    hits,
                    predicted.clone(),
                    g.keywords.clone(),
                    item.title.clone(),
                ));
            }
            if verbose {
                println!(
                    "{hits}/{} {:?} gold {:?} acceptable {:?} — {}",
                    p.len(),
                    predicted,
                    g.keywords,
                    g.acceptable,
                    item.title
                );
            }
        }
        for (name, s) in groups.iter_mut() {
            if *name == "all" || *name == language(item) {
                s.hits += hits;
                s.gold_hits += gold_hits;
                s.predicted += p.len();
                s.gold += gl.len();
                s.gold_cap += gl.len().min(3);
            }
        }
    }
    misses.sort_by_key(|m| m.0);
    (groups, misses)
}

/// Prints a part's aggregate figures (all a held-out part ever shows).
fn print_scores(part: Part, groups: &[(&str, Score)]) {
    for (name, s) in groups {
        println!(
            "{} {name}: precision@3 {:.3}, recall@3 {:.3} ({} right of {} shown, {} of {} gold \
             a top 3 can show; of all {} gold {:.3})",
            part.name(),
            s.precision(),
            s.recall(),
            s.hits,
            s.predicted,
            s.gold_hits,
            s.gold_cap,
            s.gold,
            s.recall_of_all_gold()
        );
    }
}

fn score<'g>(groups: &'g [(&str, Score)], name: &str) -> &'g Score {
    &groups.iter().find(|(n, _)| *n == name).expect("a group").1
}

/// The held-out part's floors. Part 11 read twice, aggregates only: before the twelfth round's
/// changes (version 13) precision@3 0.656 (Japanese 0.709, English 0.610), recall@3 0.492
/// (Japanese 0.551, English 0.442), under issue 25's goal on every figure and under what the
/// part before it read at the same version (0.715 / 0.567); and at the round's end (version
/// 14: names shown as the text writes them in full, bylines, learnt title labels) 0.689
/// (Japanese 0.721, English 0.662), recall@3 0.526 (Japanese 0.562, English 0.495). (Part 10,
/// the held-out part of the eleventh round, read 0.715 / 0.567 before it and at its end; part
/// 9, of the tenth, 0.740 / 0.560 and 0.748 / 0.570.) Issue 25's goal is precision@3 ≥ 0.68,
/// each language ≥ 0.62, recall@3 ≥ 0.60: the precision floors are the goal, met; the recall
/// floor just under what was reached (the goal is not met: raise it to 0.60 once it is).
const HELD_OUT_PRECISION_FLOOR: f64 = 0.68;
const HELD_OUT_LANGUAGE_PRECISION_FLOOR: f64 = 0.62;
const HELD_OUT_RECALL_FLOOR: f64 = 0.52;

/// The tuning parts' floors, near the level each reached when last tuned (a drop fails):
/// precision@3, each language's precision@3, recall@3 (capped). At issue 25's fifth round:
/// - part 1: 0.775 (Japanese 0.804, English 0.748), recall@3 0.679;
/// - part 2: 0.781 (Japanese 0.820, English 0.744), recall@3 0.628;
/// - part 3: 0.797 (Japanese 0.840, English 0.754), recall@3 0.635;
/// - part 4 (held out in round 4): 0.797 (Japanese 0.854, English 0.751), recall@3 0.631.
///
/// At the sixth round:
/// - part 5 (held out in round 5): 0.769 (Japanese 0.803, English 0.743), recall@3 0.590;
///   the five parts together 0.786 (Japanese 0.828, English 0.748), recall@3 0.639;
/// - part 6 (held out in round 6): 0.746 (Japanese 0.783, English 0.713), recall@3 0.553.
///
/// At the seventh round (version 9), the floors raised under these:
/// - part 1: 0.784 (Japanese 0.814, English 0.756), recall@3 0.688;
/// - part 2: 0.798 (Japanese 0.838, English 0.760), recall@3 0.649;
/// - part 3: 0.825 (Japanese 0.851, English 0.800), recall@3 0.648;
/// - part 4: 0.805 (Japanese 0.867, English 0.755), recall@3 0.634;
/// - part 5: 0.789 (Japanese 0.826, English 0.761), recall@3 0.602;
/// - part 6: 0.779 (Japanese 0.806, English 0.756), recall@3 0.579;
///   the six parts together 0.796 (Japanese 0.833, English 0.763), recall@3 0.637.
///
/// At the eighth round (version 10: Japanese items re-ranked by the keyword ranker, trained on
/// these parts, so their Japanese figures are in-sample; English unchanged), the floors raised
/// under these:
/// - part 1: 0.810 (Japanese 0.866, English 0.756), recall@3 0.713;
/// - part 2: 0.823 (Japanese 0.890, English 0.760), recall@3 0.673;
/// - part 3: 0.843 (Japanese 0.887, English 0.800), recall@3 0.677;
/// - part 4: 0.828 (Japanese 0.917, English 0.755), recall@3 0.656;
/// - part 5: 0.818 (Japanese 0.892, English 0.761), recall@3 0.633;
/// - part 6: 0.815 (Japanese 0.883, English 0.756), recall@3 0.618;
/// - part 7 (held out in round 7): 0.805 (Japanese 0.933, English 0.695), recall@3 0.578;
///   the seven parts together 0.820 (Japanese 0.893, English 0.755), recall@3 0.655.
///
/// At the ninth round (version 11: the keyword ranker retrained on the eight parts, so their
/// Japanese figures are in-sample; English unchanged), the floors raised under these:
/// - part 1: 0.810 (Japanese 0.866, English 0.756), recall@3 0.712;
/// - part 2: 0.821 (Japanese 0.886, English 0.760), recall@3 0.675;
/// - part 3: 0.846 (Japanese 0.892, English 0.800), recall@3 0.675;
/// - part 4: 0.823 (Japanese 0.908, English 0.755), recall@3 0.656;
/// - part 5: 0.810 (Japanese 0.873, English 0.761), recall@3 0.631;
/// - part 6: 0.802 (Japanese 0.856, English 0.756), recall@3 0.610;
/// - part 7: 0.794 (Japanese 0.911, English 0.695), recall@3 0.570;
/// - part 8 (held out in round 8): 0.818 (Japanese 0.856, English 0.786), recall@3 0.587;
///   the eight parts together 0.815 (Japanese 0.880, English 0.758), recall@3 0.645.
/// - part 9 (held out in round 9; version 11): 0.764 (Japanese 0.834, English 0.705), recall@3
///   0.567.
///
/// At the tenth round (version 12: English candidate rules; Japanese unchanged), the floors
/// raised under these:
/// - part 1: 0.817 (Japanese 0.866, English 0.772), recall@3 0.716;
/// - part 2: 0.823 (Japanese 0.886, English 0.763), recall@3 0.675;
/// - part 3: 0.851 (Japanese 0.892, English 0.810), recall@3 0.680;
/// - part 4: 0.828 (Japanese 0.908, English 0.762), recall@3 0.660;
/// - part 5: 0.814 (Japanese 0.873, English 0.768), recall@3 0.635;
/// - part 6: 0.803 (Japanese 0.856, English 0.757), recall@3 0.613;
/// - part 7: 0.805 (Japanese 0.911, English 0.714), recall@3 0.578;
/// - part 8: 0.821 (Japanese 0.856, English 0.790), recall@3 0.587;
/// - part 9: 0.766 (Japanese 0.834, English 0.710), recall@3 0.573;
///   the nine parts together 0.815 (Japanese 0.876, English 0.761), recall@3 0.642.
///
/// With the tenth round's Japanese rule (also version 12: a title's name in 「」 one candidate;
/// the ranker not retrained, so part 9 is still out of sample for it): Japanese over the nine
/// parts 0.879, recall@3 0.720 (in-sample for parts 1–8; leave-one-part-out 0.868, 0.696), part
/// 9's Japanese 0.834, recall@3 0.663; with both rounds' rules the nine parts together 0.816
/// (Japanese 0.879, English 0.761), recall@3 0.644.
///
/// At the eleventh round's start (version 12), part 10 (held out in round 10): 0.748 (Japanese
/// 0.788, English 0.714), recall@3 0.570; its floors set under these. The ten parts together
/// 0.810 (Japanese 0.871, English 0.757), recall@3 0.637.
///
/// At the eleventh round (version 13: Japanese compound rules; the ranker not retrained), the
/// floors raised under these: part 2 recall@3 0.684, part 4 0.665, part 5 0.824 and 0.645, part
/// 9 0.774, part 10 0.751 and 0.576; Japanese over the ten parts 0.876, recall@3 0.716.
///
/// At the twelfth round's start (version 13), part 11 (held out in round 11): 0.715 (Japanese
/// 0.772, English 0.667), recall@3 0.567; its floors set under these. The eleven parts
/// together 0.805 (Japanese 0.868, English 0.750), recall@3 0.635.
///
/// At the twelfth round's end (version 14), part 11 (whose misses the round's classes were
/// read from): 0.764 (Japanese 0.794, English 0.738), recall@3 0.602, its floors raised under
/// these; the eleven parts together 0.814 (Japanese 0.872, English 0.763), recall@3 0.643, and
/// the first ten (read only for what the rules changed there) 0.813 → 0.818 (Japanese 0.879,
/// English 0.765), recall@3 0.640 → 0.647. No part fell.
fn floors(part: Part) -> (f64, f64, f64) {
    match part {
        Part::Tuning => (0.81, 0.77, 0.71),
        Part::Tuning2 => (0.82, 0.76, 0.68),
        Part::Tuning3 => (0.84, 0.80, 0.67),
        Part::Tuning4 => (0.82, 0.76, 0.66),
        Part::Tuning5 => (0.82, 0.76, 0.64),
        Part::Tuning6 => (0.80, 0.75, 0.61),
        Part::Tuning7 => (0.80, 0.71, 0.57),
        Part::Tuning8 => (0.82, 0.78, 0.58),
        Part::Tuning9 => (0.77, 0.70, 0.57),
        Part::Tuning10 => (0.75, 0.69, 0.57),
        Part::Tuning11 => (0.76, 0.73, 0.60),
        Part::HeldOut11 => (
            HELD_OUT_PRECISION_FLOOR,
            HELD_OUT_LANGUAGE_PRECISION_FLOOR,
            HELD_OUT_RECALL_FLOOR,
        ),
    }
}

/// The floors one part's figures fall below, as messages.
fn below_floors(part: Part, groups: &[(&str, Score)]) -> Vec<String> {
    let (p_floor, lang_floor, r_floor) = floors(part);
    let mut failed = Vec::new();
    let all = score(groups, "all");
    if all.precision() < p_floor {
        failed.push(format!(
            "{} precision@3 {:.3}",
            part.name(),
            all.precision()
        ));
    }
    if all.recall() < r_floor {
        failed.push(format!("{} recall@3 {:.3}", part.name(), all.recall()));
    }
    for language in ["Japanese", "English"] {
        let p = score(groups, language).precision();
        if p < lang_floor {
            failed.push(format!("{} {language} precision@3 {p:.3}", part.name()));
        }
    }
    failed
}

/// A tuning part, with its worst misses printed (run alone while tuning: `cargo test --test it
/// quality::keyword_precision_and_recall_at_3_on_tuning_part`; `MATOME_QUALITY_VERBOSE=1` prints
/// every item).
fn tuning_part(part: Part) {
    let (groups, misses) = evaluate(part);
    println!(
        "{}, worst misses (right tags / shown, shown, gold):",
        part.name()
    );
    for (hits, predicted, gold, title) in misses.iter().take(40) {
        println!(
            "  {hits}/{} {predicted:?} gold {gold:?} — {title}",
            predicted.len()
        );
    }
    print_scores(part, &groups);
    let failed = below_floors(part, &groups);
    assert!(failed.is_empty(), "below the floors: {}", failed.join(", "));
}

#[test]
fn keyword_precision_and_recall_at_3_on_tuning_part_1() {
    tuning_part(Part::Tuning);
}

#[test]
fn keyword_precision_and_recall_at_3_on_tuning_part_2() {
    tuning_part(Part::Tuning2);
}

#[test]
fn keyword_precision_and_recall_at_3_on_tuning_part_3() {
    tuning_part(Part::Tuning3);
}

#[test]
fn keyword_precision_and_recall_at_3_on_tuning_part_4() {
    tuning_part(Part::Tuning4);
}

#[test]
fn keyword_precision_and_recall_at_3_on_tuning_part_5() {
    tuning_part(Part::Tuning5);
}

#[test]
fn keyword_precision_and_recall_at_3_on_tuning_part_6() {
    tuning_part(Part::Tuning6);
}

#[test]
fn keyword_precision_and_recall_at_3_on_tuning_part_7() {
    tuning_part(Part::Tuning7);
}

#[test]
fn keyword_precision_and_recall_at_3_on_tuning_part_8() {
    tuning_part(Part::Tuning8);
}

#[test]
fn keyword_precision_and_recall_at_3_on_tuning_part_9() {
    tuning_part(Part::Tuning9);
}

#[test]
fn keyword_precision_and_recall_at_3_on_tuning_part_10() {
    tuning_part(Part::Tuning10);
}

#[test]
fn keyword_precision_and_recall_at_3_on_tuning_part_11() {
    tuning_part(Part::Tuning11);
}

/// The eleven tuning parts together (1,605 items; each part ranked against its own frequencies).
#[test]
fn keyword_precision_and_recall_at_3_on_all_tuning_parts() {
    let mut total: Vec<(&'static str, Score)> = ["all", "Japanese", "English"]
        .into_iter()
        .map(|n| (n, Score::default()))
        .collect();
    for part in TUNING_PARTS {
        let (groups, _) = evaluate(part);
        for ((_, t), (_, s)) in total.iter_mut().zip(&groups) {
            t.hits += s.hits;
            t.gold_hits += s.gold_hits;
            t.predicted += s.predicted;
            t.gold += s.gold;
            t.gold_cap += s.gold_cap;
        }
    }
    for (name, s) in &total {
        println!(
            "all tuning parts {name}: precision@3 {:.3}, recall@3 {:.3} ({} right of {} shown, \
             {} of {} gold a top 3 can show)",
            s.precision(),
            s.recall(),
            s.hits,
            s.predicted,
            s.gold_hits,
            s.gold_cap
        );
    }
    assert!(score(&total, "all").predicted > 1000);
}

/// The held-out part: only its aggregate figures are printed, and the floors hold.
#[test]
fn keyword_precision_and_recall_at_3_on_the_held_out_part() {
    let (held_out, none) = evaluate(Part::HeldOut11);
    assert!(none.is_empty());
    print_scores(Part::HeldOut11, &held_out);
    let failed = below_floors(Part::HeldOut11, &held_out);
    assert!(failed.is_empty(), "below the floors: {}", failed.join(", "));
}

/// The features the keyword ranker (`src/analyze/ranker.rs`) reads, for every item of the
/// tuning parts: finite, for at most twelve candidates an item, and holding most of the gold
/// tags a top 3 can show (what re-ranking can reach). With `MATOME_RANKER_FEATURES=path` they
/// are also written there, one JSON line a candidate, for `scripts/train-keyword-ranker` — the
/// tuning parts only, never the held-out part.
#[test]
fn keyword_ranker_features_of_the_tuning_parts() {
    use std::io::Write;
    let a = Analyzer::get();
    let mut out = std::env::var_os("MATOME_RANKER_FEATURES")
        .map(|p| std::io::BufWriter::new(std::fs::File::create(p).expect("the features file")));
    let (mut reachable, mut cap) = (0, 0);
    for part in TUNING_PARTS {
        let gold = part.gold();
        let items: Vec<Item> = gold.iter().map(to_item).collect();
        let refs: Vec<&Item> = items.iter().collect();
        let df = DocFreq::from_items(&refs);
        for (n, (item, g)) in items.iter().zip(&gold).enumerate() {
            let features = a.keyword_features(&a.item_terms(item), item, &df);
            assert!(features.len() <= 12, "{} candidates", features.len());
            let lower = |v: &[String]| v.iter().map(|s| s.to_lowercase()).collect::<Vec<_>>();
            let (gl, ok) = (lower(&g.keywords), lower(&g.acceptable));
            let shown: Vec<String> = features.iter().map(|(d, _)| d.to_lowercase()).collect();
            reachable += gl.iter().filter(|t| shown.contains(t)).count().min(3);
            cap += gl.len().min(3);
            for ((display, x), d) in features.iter().zip(&shown) {
                assert!(x.iter().all(|v| v.is_finite()), "{display}: {x:?}");
                if let Some(out) = out.as_mut() {
                    let row = serde_json::json!({
                        "part": part.name(), "item": n, "english": language(item) == "English",
                        "display": display, "gold": gl.contains(d), "acceptable": ok.contains(d),
                        "x": x.to_vec(),
                    });
                    writeln!(out, "{row}").expect("written");
                }
            }
        }
    }
    let share = reachable as f64 / cap as f64;
    println!("gold tags among the re-ranked candidates: {reachable} of {cap} ({share:.3})");
    assert!(share > 0.75, "{share:.3}");
}

/// One analyser, three users: every keyword shown for an item, analysed as a search query,
/// gives index terms that the item's own text has — so clicking a 頻出ワード finds its item.
/// Over all parts (their texts carry URLs, currency amounts, `OPEC+`, `N+1` …); a miss in a
/// held-out part is counted, never quoted.
#[test]
fn every_keyword_is_found_by_the_search_analyser() {
    let a = Analyzer::get();
    // The search index's tokens (what `matome search` and the tantivy tokenizer use); a keyword
    // is found when its tokens stand in the item at the same relative positions (a phrase).
    let found = |doc: &[matome::analyze::SearchToken], q: &[matome::analyze::SearchToken]| {
        doc.iter().enumerate().any(|(i, d)| {
            d.text == q[0].text
                && q[1..].iter().all(|t| {
                    let want = d.position + (t.position - q[0].position);
                    doc[i..]
                        .iter()
                        .any(|x| x.position == want && x.text == t.text)
                })
        })
    };
    for part in TUNING_PARTS.into_iter().chain([Part::HeldOut11]) {
        let items: Vec<Item> = part.gold().iter().map(to_item).collect();
        let refs: Vec<&Item> = items.iter().collect();
        let df = DocFreq::from_items(&refs);
        let (mut checked, mut lost) = (0, Vec::new());
        for item in &items {
            let title = a.search_tokens(&matome::analyze::prepare(&item.title));
            let text = a.search_tokens(&matome::analyze::prepare(&item.text));
            for k in a.keywords(item, &df, 3) {
                let query = a.search_tokens(&matome::analyze::prepare(&k));
                checked += 1;
                if query.is_empty() || !(found(&title, &query) || found(&text, &query)) {
                    lost.push(format!("{k:?} → {query:?} in {:?}", item.title));
                }
            }
        }
        assert!(checked > 150, "{} {checked}", part.name());
        if part.tuning() {
            assert!(lost.is_empty(), "not found: {}", lost.join("; "));
        } else {
            assert!(
                lost.is_empty(),
                "{} keywords of the held-out part are not found by search",
                lost.len()
            );
        }
    }
}

/// The 頻出ワード of one item, ranked against the tuning part's document frequencies with the
/// item counted in (as fetch ranks a new item against the archive).
fn keywords_of(category: &str, site: &str, title: &str, description: &str) -> Vec<String> {
    site_keywords(category, site, &[(title, description)])
        .pop()
        .expect("one item")
}

/// The 頻出ワード of several items of one new site (title, description), ranked against the
/// tuning part's document frequencies with these items counted in, as an archive that holds
/// them would rank them.
fn site_keywords(category: &str, site: &str, items: &[(&str, &str)]) -> Vec<Vec<String>> {
    let mut all: Vec<Item> = Part::Tuning.gold().iter().map(to_item).collect();
    let first = all.len();
    all.extend(items.iter().map(|(title, description)| {
        to_item(&Gold {
            category: category.into(),
            site: site.into(),
            title: (*title).into(),
            description: (*description).into(),
            keywords: vec![],
            acceptable: vec![],
        })
    }));
    let refs: Vec<&Item> = all.iter().collect();
    let df = DocFreq::from_items(&refs);
    all[first..]
        .iter()
        .map(|i| Analyzer::get().keywords(i, &df, 3))
        .collect()
}

// Regression tests for the misses issue 15 quotes, each named for what it guards.

#[test]
fn trailing_actions_are_trimmed_from_japanese_compounds() {
    let kw = keywords_of(
        "金融",
        "ニュース",
        "米利上げ開始秒読み、新興国から資金流出",
        "米利上げ開始秒読みとの見方から、投資家は新興国の株式や債券を売っている。",
    );
    assert!(kw.contains(&"米利上げ".to_string()), "{kw:?}");
    assert!(
        !kw.iter()
            .any(|k| k.contains("開始") || k.contains("秒読み")),
        "{kw:?}"
    );
    let kw = keywords_of(
        "マーケット",
        "ニュース",
        "円高ドル安反応で輸出株安",
        "円高ドル安反応で自動車株が売られた。",
    );
    assert!(kw.contains(&"円高ドル安".to_string()), "{kw:?}");
    assert!(!kw.iter().any(|k| k.contains("反応")), "{kw:?}");
}

#[test]
fn digital_yuan_is_tagged_without_its_action_beside_the_central_bank() {
    let kw = keywords_of(
        "金融",
        "ニュース",
        "中国人民銀行、デジタル人民元発行を拡大",
        "中国人民銀行はデジタル人民元発行の対象地域を広げる。",
    );
    assert!(kw.contains(&"デジタル人民元".to_string()), "{kw:?}");
    assert!(kw.contains(&"中国人民銀行".to_string()), "{kw:?}");
    assert!(!kw.iter().any(|k| k.contains("発行")), "{kw:?}");
}

#[test]
fn vague_nouns_and_series_labels_are_not_tagged() {
    let kw = keywords_of(
        "経済",
        "ニュース",
        "若者が車を買わないワケ、前半は所得の問題",
        "前半では可処分所得を、後半ではカーシェアリングを取り上げる。",
    );
    for bad in ["ワケ", "前半", "後半"] {
        assert!(!kw.contains(&bad.to_string()), "{bad} in {kw:?}");
    }
    let kw = keywords_of(
        "IT",
        "ニュース",
        "【まとめ】［連載］ゼロトラスト入門(後編)",
        "ゼロトラストの認証基盤を解説する。",
    );
    assert!(kw.contains(&"ゼロトラスト".to_string()), "{kw:?}");
    for bad in ["まとめ", "連載", "後編", "トラスト入門"] {
        assert!(!kw.contains(&bad.to_string()), "{bad} in {kw:?}");
    }
}

#[test]
fn english_names_outrank_common_words_in_a_pytorch_post() {
    let kw = keywords_of(
        "海外TECH",
        "Cloud Blog",
        "Scaling PyTorch training with XLA on Cloud TPU VMs",
        "This post shows how to scale learning with your data: a model learns from data, the \
         data feeds the model, and learning speeds up when the data pipeline keeps the model \
         busy. More data, a bigger model, faster learning. Learning rate, data sharding and \
         model checkpoints are covered; the model and its data stay on the TPU.",
    );
    assert!(kw.contains(&"PyTorch".to_string()), "{kw:?}");
    let common = ["learning", "data", "model", "models"];
    assert!(
        kw.iter().filter(|k| common.contains(&k.as_str())).count() == 0,
        "{kw:?}"
    );
}

#[test]
fn a_quoted_title_is_one_name_not_its_fragments() {
    let kw = keywords_of(
        "海外TECH",
        "Tech Review",
        "'We Met in Virtual Reality' finds love in the metaverse",
        "",
    );
    assert!(
        kw.contains(&"We Met in Virtual Reality".to_string()),
        "{kw:?}"
    );
    for bad in ["Met", "Virtual Reality", "Virtual", "Reality"] {
        assert!(!kw.contains(&bad.to_string()), "{bad} in {kw:?}");
    }
}

#[test]
fn title_case_capitals_do_not_make_names() {
    let kw = keywords_of(
        "海外TECH",
        "Health Desk",
        "Omicron Crests, but Shots Are Still Keeping Americans Out of Hospitals",
        "Cases from the Omicron variant have peaked, and vaccinated people were less likely \
         to be hospitalized.",
    );
    assert_eq!(kw.first().map(String::as_str), Some("Omicron"), "{kw:?}");
    for bad in ["Omicron Crests", "Keeping Americans"] {
        assert!(!kw.contains(&bad.to_string()), "{bad} in {kw:?}");
    }
}

#[test]
fn versioned_product_names_stay_whole() {
    let kw = keywords_of(
        "海外TECH",
        "Byteline",
        "Microsoft launches Windows 365, a cloud PC for businesses",
        "",
    );
    assert!(kw.contains(&"Windows 365".to_string()), "{kw:?}");
    assert!(kw.contains(&"Microsoft".to_string()), "{kw:?}");
    assert!(!kw.contains(&"Windows".to_string()), "{kw:?}");
    let kw = keywords_of(
        "Program",
        "Qiita",
        "Next.jsのApp RouterでServer Actionsを使う",
        "",
    );
    for want in ["Next.js", "App Router", "Server Actions"] {
        assert!(kw.contains(&want.to_string()), "{want} not in {kw:?}");
    }
}
