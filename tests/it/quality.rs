//! The 頻出ワード quality set (tests/quality/keywords.toml): 66 realistic items, each with the
//! keywords a careful reader picked. Guards precision@3 and recall@3 against regressions.

use matome::analyze::{Analyzer, DocFreq};
use matome::content::Item;

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
}

/// An archived item as fetch would make it from a quality-set entry.
fn to_item(g: Gold) -> Item {
    Item {
        id: g.title.clone(),
        feed: "http://127.0.0.1/feed".into(),
        category: g.category,
        site: g.site,
        title: matome::text::one_line(&g.title),
        link: String::new(),
        published: chrono::DateTime::parse_from_rfc3339("2021-07-20T08:00:00+09:00").unwrap(),
        keywords: vec![],
        summary: String::new(),
        text: matome::text::html_to_text(&g.description),
        trend: None,
    }
}

struct Score {
    hits: usize,
    predicted: usize,
    gold: usize,
}

fn evaluate() -> Vec<(String, Score)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/quality/keywords.toml");
    let set: Set = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let items: Vec<(Item, Vec<String>)> = set
        .items
        .into_iter()
        .map(|g| {
            let keywords = g.keywords.clone();
            (to_item(g), keywords)
        })
        .collect();
    let refs: Vec<&Item> = items.iter().map(|(i, _)| i).collect();
    let df = DocFreq::from_items(&refs);
    let a = Analyzer::get();
    let mut groups: Vec<(String, Score)> = Vec::new();
    for (item, gold) in &items {
        let predicted = a.keywords(item, &df, 3);
        let group = if item.title.is_ascii() {
            "English tech"
        } else if ["金融", "経済", "マーケット"].contains(&item.category.as_str()) {
            "Japanese finance"
        } else {
            "Japanese tech"
        };
        let lower = |v: &[String]| v.iter().map(|s| s.to_lowercase()).collect::<Vec<_>>();
        let (p, g) = (lower(&predicted), lower(gold));
        let hits = p.iter().filter(|k| g.contains(k)).count();
        if std::env::var_os("MATOME_QUALITY_VERBOSE").is_some() {
            println!(
                "{hits}/{} {:?} gold {:?} — {}",
                p.len(),
                predicted,
                gold,
                item.title
            );
        }
        for name in [group, "all"] {
            let idx = match groups.iter().position(|(n, _)| n == name) {
                Some(i) => i,
                None => {
                    groups.push((
                        name.to_string(),
                        Score {
                            hits: 0,
                            predicted: 0,
                            gold: 0,
                        },
                    ));
                    groups.len() - 1
                }
            };
            let s = &mut groups[idx].1;
            s.hits += hits;
            s.predicted += p.len();
            s.gold += g.len();
        }
    }
    groups
}

#[test]
fn keyword_precision_and_recall_at_3_do_not_regress() {
    let groups = evaluate();
    for (name, s) in &groups {
        println!(
            "{name}: precision@3 {:.2}, recall@3 {:.2} ({} hits, {} predicted, {} gold)",
            s.hits as f64 / s.predicted.max(1) as f64,
            s.hits as f64 / s.gold.max(1) as f64,
            s.hits,
            s.predicted,
            s.gold
        );
    }
    let all = &groups.iter().find(|(n, _)| n == "all").unwrap().1;
    let precision = all.hits as f64 / all.predicted as f64;
    let recall = all.hits as f64 / all.gold as f64;
    // The level reached when the set was written (see the issue note); a drop fails the build.
    assert!(
        precision >= PRECISION_FLOOR,
        "precision@3 fell to {precision:.3}"
    );
    assert!(recall >= RECALL_FLOOR, "recall@3 fell to {recall:.3}");
}

const PRECISION_FLOOR: f64 = 0.54;
const RECALL_FLOOR: f64 = 0.44;

/// One analyser, three users: every keyword shown for an item, analysed as a search query,
/// gives index terms that the item's own text has — so clicking a 頻出ワード finds its item.
#[test]
fn every_keyword_is_found_by_the_search_analyser() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/quality/keywords.toml");
    let set: Set = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let a = Analyzer::get();
    let items: Vec<Item> = set.items.into_iter().map(to_item).collect();
    let refs: Vec<&Item> = items.iter().collect();
    let df = DocFreq::from_items(&refs);
    let mut checked = 0;
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
    for item in &items {
        let title = a.search_tokens(&matome::analyze::prepare(&item.title));
        let text = a.search_tokens(&matome::analyze::prepare(&item.text));
        for k in a.keywords(item, &df, 3) {
            let query = a.search_tokens(&matome::analyze::prepare(&k));
            assert!(!query.is_empty(), "{k:?} analyses to nothing");
            assert!(
                found(&title, &query) || found(&text, &query),
                "keyword {k:?} → {query:?} is not a phrase of {:?}",
                item.title
            );
            checked += 1;
        }
    }
    assert!(checked > 150, "{checked}");
}
