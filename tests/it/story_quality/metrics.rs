//! Scores of a clustering against gold stories: pairwise precision, recall and F1 by group of
//! pairs (all, same-language, Japanese, English, cross-language), B-cubed by language of the
//! item, and for the development part the worst false merges and splits.

use std::collections::BTreeMap;

use matome::content::Item;

/// Which pairs (or, for B-cubed, which items) a figure counts.
#[derive(Clone, Copy, PartialEq)]
pub enum Group {
    All,
    SameLanguage,
    Ja,
    En,
    Cross,
}

impl Group {
    pub fn name(self) -> &'static str {
        match self {
            Group::All => "all",
            Group::SameLanguage => "same-lang",
            Group::Ja => "ja",
            Group::En => "en",
            Group::Cross => "cross",
        }
    }

    fn has_pair(self, a: bool, b: bool) -> bool {
        match self {
            Group::All => true,
            Group::SameLanguage => a == b,
            Group::Ja => a && b,
            Group::En => !a && !b,
            Group::Cross => a != b,
        }
    }
}

/// Pair counts of one group.
#[derive(Default, Clone, Copy)]
pub struct Pairs {
    /// Pairs in one predicted story and one gold story.
    pub both: usize,
    pub predicted: usize,
    pub gold: usize,
}

impl Pairs {
    pub fn precision(&self) -> f64 {
        if self.predicted == 0 {
            1.0
        } else {
            self.both as f64 / self.predicted as f64
        }
    }

    pub fn recall(&self) -> f64 {
        self.both as f64 / self.gold.max(1) as f64
    }

    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

/// All figures of one clustering.
pub struct Figures {
    groups: Vec<(&'static str, Pairs)>,
    /// Per item: B-cubed precision and recall, and whether it is Japanese.
    items: Vec<(f64, f64, bool)>,
}

const GROUPS: [Group; 5] = [
    Group::All,
    Group::SameLanguage,
    Group::Ja,
    Group::En,
    Group::Cross,
];

impl Figures {
    pub fn of(gold: &[String], predicted: &[String], ja: &[bool]) -> Figures {
        let mut groups: Vec<(&'static str, Pairs)> = GROUPS
            .iter()
            .map(|g| (g.name(), Pairs::default()))
            .collect();
        let n = gold.len();
        let mut items = Vec::with_capacity(n);
        for i in 0..n {
            let (mut same_pred, mut same_gold, mut same_both) = (0usize, 0usize, 0usize);
            for j in 0..n {
                let g = gold[i] == gold[j];
                let p = predicted[i] == predicted[j];
                same_gold += usize::from(g);
                same_pred += usize::from(p);
                same_both += usize::from(g && p);
                if j <= i {
                    continue;
                }
                for (k, group) in GROUPS.iter().enumerate() {
                    if group.has_pair(ja[i], ja[j]) {
                        let c = &mut groups[k].1;
                        c.both += usize::from(g && p);
                        c.predicted += usize::from(p);
                        c.gold += usize::from(g);
                    }
                }
            }
            items.push((
                same_both as f64 / same_pred as f64,
                same_both as f64 / same_gold as f64,
                ja[i],
            ));
        }
        Figures { groups, items }
    }

    pub fn pairs(&self, g: Group) -> Pairs {
        self.groups
            .iter()
            .find(|(n, _)| *n == g.name())
            .map(|(_, p)| *p)
            .expect("every group is counted")
    }

    /// B-cubed precision, recall and F1 averaged over the items of the group's language
    /// (`All` and `SameLanguage`: every item; `Cross`: none).
    pub fn bcubed(&self, g: Group) -> Option<(f64, f64, f64)> {
        let keep = |ja: bool| match g {
            Group::All | Group::SameLanguage => true,
            Group::Ja => ja,
            Group::En => !ja,
            Group::Cross => false,
        };
        let chosen: Vec<_> = self.items.iter().filter(|i| keep(i.2)).collect();
        if chosen.is_empty() {
            return None;
        }
        let n = chosen.len() as f64;
        let p = chosen.iter().map(|i| i.0).sum::<f64>() / n;
        let r = chosen.iter().map(|i| i.1).sum::<f64>() / n;
        Some((
            p,
            r,
            if p + r == 0.0 {
                0.0
            } else {
                2.0 * p * r / (p + r)
            },
        ))
    }
}

/// Items of each label, in order.
fn members(labels: &[String]) -> BTreeMap<&str, Vec<usize>> {
    let mut m: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, l) in labels.iter().enumerate() {
        m.entry(l.as_str()).or_default().push(i);
    }
    m
}

/// Prints the `n` predicted stories that merge the most pairs of different gold stories, and
/// the `n` gold stories whose pairs the method splits the most (development part only).
pub fn print_errors(
    out: &mut String,
    items: &[Item],
    gold: &[String],
    predicted: &[String],
    n: usize,
) {
    use std::fmt::Write;
    let line = |i: usize| {
        format!(
            "    [{}] {} | {} | {}",
            gold[i],
            items[i].published.format("%m-%d %H:%M"),
            items[i].site,
            items[i].title
        )
    };
    let pairs = |m: &[usize], same: &dyn Fn(usize, usize) -> bool| {
        let mut k = 0;
        for (x, &a) in m.iter().enumerate() {
            k += m[x + 1..].iter().filter(|&&b| same(a, b)).count();
        }
        k
    };
    let mut merges: Vec<(usize, Vec<usize>)> = members(predicted)
        .into_values()
        .map(|m| (pairs(&m, &|a, b| gold[a] != gold[b]), m))
        .filter(|(k, _)| *k > 0)
        .collect();
    merges.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    writeln!(
        out,
        "worst false merges ({} stories merge events):",
        merges.len()
    )
    .unwrap();
    for (k, m) in merges.iter().take(n) {
        writeln!(out, "  {k} wrong pairs:").unwrap();
        m.iter()
            .for_each(|&i| writeln!(out, "{}", line(i)).unwrap());
    }
    let mut splits: Vec<(usize, Vec<usize>)> = members(gold)
        .into_values()
        .map(|m| (pairs(&m, &|a, b| predicted[a] != predicted[b]), m))
        .filter(|(k, _)| *k > 0)
        .collect();
    splits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    writeln!(out, "worst splits ({} gold stories split):", splits.len()).unwrap();
    for (k, m) in splits.iter().take(n) {
        writeln!(out, "  {k} missed pairs:").unwrap();
        let first = matome::stories::Facts::of(&items[m[0]], items[m[0]].published);
        for &i in m {
            let f = matome::stories::Facts::of(&items[i], items[i].published);
            let shared = f.title.iter().filter(|t| first.title.contains(t)).count();
            let veto = matome::stories::contradicts(&first, &f);
            writeln!(
                out,
                "{}  -> {} (vs first: {shared} shared{})",
                line(i),
                predicted[i],
                if veto { ", VETO" } else { "" }
            )
            .unwrap();
        }
    }
}
