//! The story quality set (issue 24), in parts labelled the same way (each item with a gold
//! `story`: items with one label report one event), each labelled before the method it
//! measures had seen it:
//! - four **tuning parts**, which the method may be tuned on (their figures, worst false merges
//!   and splits are printed; each has floors just under what the method reaches):
//!   `tests/quality/stories.toml`, the development part (362 items, 76 multi-item stories);
//!   `stories-heldout.toml` (217 items), `stories-heldout2.toml` (285) and
//!   `stories-heldout3.toml` (473), each held out until the round after its look, then tuned on;
//! - `tests/quality/stories-heldout4.toml`, the **held-out part** (387 items of another year,
//!   labelled blind to the method before its fifth round), never looked at while tuning: only
//!   its aggregate figures are printed (pairwise precision, recall and F1 and B-cubed per
//!   language), never an item, a title or an error, and its floors were set after the fifth
//!   round's single look.
//!
//! Each part is assigned as fetch would archive it: items in order of publication, 頻出ワード
//! from the part's own document frequencies, one [`StoryIndex`] window. Beside the method, the
//! two baselines of the issue on the same items: exact normalised title match, and title word
//! Jaccard as NewsBlur does it (significant words; character bigrams for Japanese; ≥ 0.5, 14 days).

use matome::analyze::{DocFreq, annotate};
use matome::config::AnalyzeSettings;
use matome::content::Item;
use matome::stories::{Facts, Settings, StoryIndex};

mod baselines;
mod metrics;

use metrics::{Figures, Group};

#[derive(serde::Deserialize)]
struct Set {
    items: Vec<Gold>,
}

#[derive(serde::Deserialize)]
struct Gold {
    feed: String,
    site: String,
    category: String,
    lang: String,
    published: toml::value::Datetime,
    title: String,
    link: String,
    description: String,
    story: String,
}

#[derive(Clone, Copy, PartialEq)]
enum Part {
    Dev,
    HeldOut,
    HeldOut2,
    HeldOut3,
    HeldOut4,
}

impl Part {
    fn path(self) -> &'static str {
        match self {
            Part::Dev => concat!(env!("CARGO_MANIFEST_DIR"), "/tests/quality/stories.toml"),
            Part::HeldOut => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/stories-heldout.toml"
            ),
            Part::HeldOut2 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/stories-heldout2.toml"
            ),
            Part::HeldOut3 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/stories-heldout3.toml"
            ),
            Part::HeldOut4 => concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/quality/stories-heldout4.toml"
            ),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Part::Dev => "development part (stories.toml)",
            Part::HeldOut => "tuning part 2 (stories-heldout.toml)",
            Part::HeldOut2 => "tuning part 3 (stories-heldout2.toml)",
            Part::HeldOut3 => "tuning part 4 (stories-heldout3.toml)",
            Part::HeldOut4 => "held-out part (stories-heldout4.toml)",
        }
    }

    fn gold(self) -> Vec<Gold> {
        crate::support::quality_set::read::<Set>(self.path()).items
    }
}

/// A set item as fetch would archive it.
fn to_item(g: &Gold) -> Item {
    Item {
        id: g.link.clone(),
        feed: g.feed.clone(),
        category: g.category.clone(),
        site: g.site.clone(),
        title: matome::text::one_line(&g.title),
        link: g.link.clone(),
        published: chrono::DateTime::parse_from_rfc3339(&g.published.to_string())
            .expect("published is RFC 3339"),
        keywords: vec![],
        summary: String::new(),
        text: matome::text::html_to_text(&g.description),
        trend: None,
        story: String::new(),
    }
}

/// One part, loaded and annotated, in order of publication.
struct Loaded {
    items: Vec<Item>,
    gold: Vec<String>,
    ja: Vec<bool>,
}

fn load(part: Part) -> Loaded {
    let mut gold = part.gold();
    gold.sort_by_key(|g| to_item(g).published);
    let mut items: Vec<Item> = gold.iter().map(to_item).collect();
    let refs: Vec<&Item> = items.iter().collect();
    let df = DocFreq::from_items(&refs);
    annotate(&mut items, &df, &AnalyzeSettings::default());
    Loaded {
        ja: gold.iter().map(|g| g.lang == "ja").collect(),
        gold: gold.into_iter().map(|g| g.story).collect(),
        items,
    }
}

/// The settings measured: the defaults, or for tuning on the development part the knobs set
/// in `MATOME_STORY_SETTINGS` (`threshold=0.3,decay=0.2`).
fn settings() -> Settings {
    let mut s = Settings::default();
    let var = std::env::var("MATOME_STORY_SETTINGS").unwrap_or_default();
    for kv in var.split(',').filter(|kv| !kv.is_empty()) {
        let (k, v) = kv.split_once('=').expect("key=value");
        let v: f64 = v.parse().expect("a number");
        match k {
            "window_hours" => s.window_hours = v as i64,
            "threshold" => s.threshold = v,
            "same_site_threshold" => s.same_site_threshold = v,
            "rare_shared" => s.rare_shared = v,
            "cross_rare" => s.cross_rare = v,
            "fresh_hours" => s.fresh_hours = v,
            "decay" => s.decay = v,
            "coverage" => s.coverage = v,
            "compound_rarity" => s.compound_rarity = v,
            _ => panic!("no setting {k}"),
        }
    }
    s
}

/// The method's stories of the part's items (each item's key is its position).
fn method(items: &[Item]) -> Vec<String> {
    let mut index = StoryIndex::new(settings());
    items
        .iter()
        .enumerate()
        .map(|(n, item)| {
            let facts = Facts::of(item, item.published);
            index.assign(&n.to_string(), facts).story
        })
        .collect()
}

/// The figures of the method and both baselines on a part.
fn evaluate(l: &Loaded) -> Vec<(&'static str, Vec<String>, Figures)> {
    let runs = [
        ("method", method(&l.items)),
        ("exact title", baselines::exact_title(&l.items)),
        ("title Jaccard", baselines::title_jaccard(&l.items)),
    ];
    runs.into_iter()
        .map(|(name, predicted)| {
            let f = Figures::of(&l.gold, &predicted, &l.ja);
            (name, predicted, f)
        })
        .collect()
}

/// The figures of a part as a table, written into `out` (a test's report is printed at once,
/// so parts measured in parallel do not interleave).
fn print_figures(out: &mut String, part: Part, runs: &[(&'static str, Vec<String>, Figures)]) {
    use std::fmt::Write;
    writeln!(out, "story quality, {}:", part.name()).unwrap();
    writeln!(
        out,
        "  {:<14} {:<10} {:>6} {:>6} {:>6} {:>6}   {:>6} {:>6} {:>6}",
        "", "pairs", "P", "R", "F1", "gold", "B3 P", "B3 R", "B3 F1"
    )
    .unwrap();
    for (name, _, f) in runs {
        for g in [
            Group::All,
            Group::SameLanguage,
            Group::Ja,
            Group::En,
            Group::Cross,
        ] {
            let p = f.pairs(g);
            let b = f.bcubed(g);
            let (bp, br, bf) = b.map_or((f64::NAN, f64::NAN, f64::NAN), |b| (b.0, b.1, b.2));
            writeln!(
                out,
                "  {:<14} {:<10} {:>6.3} {:>6.3} {:>6.3} {:>6}   {:>6.3} {:>6.3} {:>6.3}",
                name,
                g.name(),
                p.precision(),
                p.recall(),
                p.f1(),
                p.gold,
                bp,
                br,
                bf
            )
            .unwrap();
        }
    }
}

/// A tuning part measured: its figures beside the baselines' and its worst false merges and
/// splits, then its floors (`precision` over all pairs, `recall` over same-language pairs,
/// each just under what the method reaches) and the method's F1 above both baselines'.
fn tuning_part(part: Part, precision: f64, recall: f64) {
    let l = load(part);
    let runs = evaluate(&l);
    let mut out = String::new();
    print_figures(&mut out, part, &runs);
    let (_, predicted, f) = &runs[0];
    let shown = std::env::var("MATOME_STORY_ERRORS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(12);
    metrics::print_errors(&mut out, &l.items, &l.gold, predicted, shown);
    eprint!("{out}");
    let all = f.pairs(Group::All);
    let same = f.pairs(Group::SameLanguage);
    assert!(
        all.precision() >= precision,
        "{}: precision over all pairs fell to {:.3}",
        part.name(),
        all.precision()
    );
    assert!(
        same.recall() >= recall,
        "{}: recall over same-language pairs fell to {:.3}",
        part.name(),
        same.recall()
    );
    for (name, _, b) in &runs[1..] {
        assert!(
            all.f1() > b.pairs(Group::All).f1(),
            "{}: the method's F1 {:.3} is not above {name}'s",
            part.name(),
            all.f1()
        );
    }
}

// Each tuning part's floors are just under what the method reaches on it after the fifth round
// (names, kinds of event, amounts, magnitudes, markets); before it, with the method of the
// fourth round, the parts reached 1.000/0.807, 0.941/0.800, 0.941/0.757 and 0.831/0.585
// (precision over all pairs / recall over same-language pairs). METHOD 4 (one compound's
// pieces are one shared thing for the rarity criterion) moved part 2 from 0.942 to 0.956 and
// no other figure; with the keywords of ANALYZER_VERSION 7, part 4 reads 0.944/0.643, with
// version 8's 0.953/0.650 (parts 1-3 unchanged).

#[test]
fn story_quality_development_part() {
    // 1.000 and 0.807
    tuning_part(Part::Dev, 0.98, 0.80);
}

#[test]
fn story_quality_tuning_part_2() {
    // 0.956 and 0.817
    tuning_part(Part::HeldOut, 0.94, 0.80);
}

#[test]
fn story_quality_tuning_part_3() {
    // 0.972 and 0.767
    tuning_part(Part::HeldOut2, 0.96, 0.75);
}

#[test]
fn story_quality_tuning_part_4() {
    // 0.944 and 0.643
    tuning_part(Part::HeldOut3, 0.94, 0.64);
}

/// The held-out part's figures, aggregates only (never an item, a title or an error), with
/// the default settings: the pairs over all languages and over the same language.
fn held_out(part: Part) -> (metrics::Pairs, metrics::Pairs) {
    assert!(
        std::env::var_os("MATOME_STORY_SETTINGS").is_none(),
        "a held-out part is measured with the default settings only"
    );
    let l = load(part);
    let runs = evaluate(&l);
    let mut out = String::new();
    print_figures(&mut out, part, &runs);
    eprint!("{out}");
    let f = &runs[0].2;
    (f.pairs(Group::All), f.pairs(Group::SameLanguage))
}

#[test]
fn story_quality_held_out_part() {
    let (all, same) = held_out(Part::HeldOut4);
    // the goal's floors: at its one look, after the fifth round of tuning (on the four tuning
    // parts only), the method reached 0.906 over all pairs and 0.804 over same-language pairs
    // (Japanese 0.925 / 0.860, English 0.836 / 0.667; across languages 0.919 / 0.325), title
    // Jaccard 0.706 / 0.150 and exact title 1.000 / 0.054
    assert!(
        all.precision() >= HELD_OUT_PRECISION,
        "held-out precision over all pairs fell to {:.3}",
        all.precision()
    );
    assert!(
        same.recall() >= HELD_OUT_RECALL,
        "held-out recall over same-language pairs fell to {:.3}",
        same.recall()
    );
}

const HELD_OUT_PRECISION: f64 = 0.90;
const HELD_OUT_RECALL: f64 = 0.80;
