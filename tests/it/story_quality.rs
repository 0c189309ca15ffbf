//! The story quality set (issue 24), in two parts labelled the same way (each item with a gold
//! `story`: items with one label report one event), labelled before any story code existed:
//! - `tests/quality/stories.toml`, the **development part** (362 items, 76 multi-item stories):
//!   the method may be tuned on it, and its worst false merges and splits are printed;
//! - `tests/quality/stories-heldout.toml`, the **held-out part** (217 items), never looked at
//!   while tuning: only its aggregate figures are printed (pairwise precision, recall and F1 and
//!   B-cubed per language), never an item, a title or an error, and the floors of the goal are
//!   set on it;
//! - `tests/quality/stories-heldout2.toml`, the **second held-out part** (285 items), labelled
//!   blind to the method before its third round of tuning, after the first held-out part had
//!   had its three looks: shown the same way (aggregates only), with floors of its own set
//!   after the third round's single look.
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
        }
    }

    fn name(self) -> &'static str {
        match self {
            Part::Dev => "development part",
            Part::HeldOut => "held-out part",
            Part::HeldOut2 => "second held-out part",
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

fn print_figures(part: Part, runs: &[(&'static str, Vec<String>, Figures)]) {
    eprintln!("story quality, {}:", part.name());
    eprintln!(
        "  {:<14} {:<10} {:>6} {:>6} {:>6} {:>6}   {:>6} {:>6} {:>6}",
        "", "pairs", "P", "R", "F1", "gold", "B3 P", "B3 R", "B3 F1"
    );
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
            eprintln!(
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
            );
        }
    }
}

#[test]
fn story_quality_development_part() {
    let l = load(Part::Dev);
    let runs = evaluate(&l);
    print_figures(Part::Dev, &runs);
    let (_, predicted, f) = &runs[0];
    metrics::print_errors(&l.items, &l.gold, predicted, 12);
    let all = f.pairs(Group::All);
    let same = f.pairs(Group::SameLanguage);
    // floors just under what the method reaches on this part: 1.000 and 0.807 after the third
    // round of tuning (kinds of event, names, scores and intensities; 0.920 and 0.771 before
    // it, with the analyser of issue 25's second round)
    assert!(
        all.precision() >= 0.97,
        "precision over all pairs fell to {:.3}",
        all.precision()
    );
    assert!(
        same.recall() >= 0.80,
        "recall over same-language pairs fell to {:.3}",
        same.recall()
    );
    // the method beats both baselines on F1 over all pairs
    for (name, _, b) in &runs[1..] {
        assert!(
            all.f1() > b.pairs(Group::All).f1(),
            "the method's F1 {:.3} is not above {name}'s",
            all.f1()
        );
    }
}

/// A held-out part's figures, aggregates only (never an item or an error), with the default
/// settings: the pairs over all languages and over the same language.
fn held_out(part: Part) -> (metrics::Pairs, metrics::Pairs) {
    assert!(
        std::env::var_os("MATOME_STORY_SETTINGS").is_none(),
        "a held-out part is measured with the default settings only"
    );
    let l = load(part);
    let runs = evaluate(&l);
    print_figures(part, &runs);
    let f = &runs[0].2;
    (f.pairs(Group::All), f.pairs(Group::SameLanguage))
}

#[test]
fn story_quality_held_out_part() {
    let (all, same) = held_out(Part::HeldOut);
    // floors just under what the method reached on this part (0.907 and 0.800 with the first
    // round's analyser of issue 25, 0.882 and 0.800 with the second's; 0.941 and 0.800 after
    // the method's third round, tuned on the development part only)
    assert!(
        all.precision() >= 0.88,
        "held-out precision over all pairs fell to {:.3}",
        all.precision()
    );
    assert!(
        same.recall() >= 0.78,
        "held-out recall over same-language pairs fell to {:.3}",
        same.recall()
    );
}

#[test]
fn story_quality_second_held_out_part() {
    let (all, same) = held_out(Part::HeldOut2);
    // floors just under what the method reached at its one look, after the third round of
    // tuning: 0.941 over all pairs (the goal, 0.90, met) and 0.757 over same-language pairs
    // (the goal, 0.80, not met)
    assert!(
        all.precision() >= HELD_OUT2_PRECISION,
        "second held-out precision over all pairs fell to {:.3}",
        all.precision()
    );
    assert!(
        same.recall() >= HELD_OUT2_RECALL,
        "second held-out recall over same-language pairs fell to {:.3}",
        same.recall()
    );
}

const HELD_OUT2_PRECISION: f64 = 0.93;
const HELD_OUT2_RECALL: f64 = 0.75;
