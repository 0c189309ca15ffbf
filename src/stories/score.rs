//! When two items report the same event: the similarity of their title and lead words
//! (idf-weighted cosine, title words counting double the lead's), the names and numbers two
//! languages share, and the vetoes that keep apart events sharing every name — numbers of one
//! kind that disagree (versions, amounts, percentages, counts) and a pre-release against a
//! release. Pure functions over [`Facts`]; the window's bookkeeping is [`super::index`]'s.

use super::Settings;
use super::facts::Facts;
use super::{events, names, numbers};

/// The weight of a lead word against a title word.
pub const LEAD_WEIGHT: f64 = 0.5;

/// What a window item shares with a new item, as the index accumulated it.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub slot: u64,
    /// Sum over shared terms of the product of their weights.
    pub dot: f64,
    /// Idf-weighted cosine of the two items.
    pub cosine: f64,
    /// Terms both titles have, and the sum of their idf relative to a term of one item
    /// (1.0 each for terms no other item of the window has).
    pub title_shared: u32,
    /// The things both titles have: [`Candidate::title_shared`] with the pieces of one
    /// compound counted once ([`shared_runs`]).
    pub title_runs: u32,
    pub title_idf: f64,
    /// Hours between the two items.
    pub hours: f64,
    /// Same normalised title.
    pub same_title: bool,
}

impl Candidate {
    pub fn new(slot: u64) -> Candidate {
        Candidate {
            slot,
            dot: 0.0,
            cosine: 0.0,
            title_shared: 0,
            title_runs: 0,
            title_idf: 0.0,
            hours: 0.0,
            same_title: false,
        }
    }
}

/// Where an item has a term.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// In its lead only.
    Lead = 0,
    /// A word of its title.
    Title = 1,
    /// A compound, name or 頻出ワード of its title.
    Extra = 2,
}

impl Role {
    pub fn weight(self) -> f64 {
        match self {
            Role::Lead => LEAD_WEIGHT,
            Role::Title | Role::Extra => 1.0,
        }
    }

    pub fn from_tag(tag: u64) -> Role {
        match tag & 3 {
            1 => Role::Title,
            2 => Role::Extra,
            _ => Role::Lead,
        }
    }
}

/// Each term of `facts` with its weight (title terms at their idf, lead terms at
/// [`LEAD_WEIGHT`] of it) and its role.
pub fn weights(facts: &Facts, idf: impl Fn(u64) -> f64) -> Vec<(u64, f64, Role)> {
    let title = facts.title.iter().map(|&t| (t, Role::Title));
    let extra = facts.extra.iter().map(|&t| (t, Role::Extra));
    let lead = facts.lead.iter().map(|&t| (t, Role::Lead));
    title
        .chain(extra)
        .chain(lead)
        .map(|(t, r)| (t, idf(t) * r.weight(), r))
        .collect()
}

/// The Euclidean norm of weighted terms.
pub fn norm(weights: &[(u64, f64, Role)]) -> f64 {
    weights.iter().map(|w| w.1 * w.1).sum::<f64>().sqrt()
}

/// The norm of `facts`' weighted terms under `idf` ([`norm`] of [`weights`], without making
/// them).
pub fn norm_of(facts: &Facts, idf: impl Fn(u64) -> f64) -> f64 {
    let squares = |terms: &[u64], w: f64| terms.iter().map(|&t| (idf(t) * w).powi(2)).sum::<f64>();
    (squares(&facts.title, 1.0) + squares(&facts.extra, 1.0) + squares(&facts.lead, LEAD_WEIGHT))
        .sqrt()
}

/// How many things two titles share: their shared title terms, the pieces of one run in both
/// ([`Facts::title_runs`]) counting one less than they are (中小 + 企業 of 中小企業 one thing,
/// 好 + 決算 + 銘柄 two).
pub fn shared_runs(a: &Facts, b: &Facts) -> u32 {
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.title.len() && j < b.title.len() {
        match a.title[i].cmp(&b.title[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                pairs.push((a.title_runs[i], b.title_runs[j]));
                i += 1;
                j += 1;
            }
        }
    }
    pairs.sort_unstable();
    let mut things = 0;
    for run in pairs.chunk_by(|x, y| x == y) {
        things += (run.len() as u32 - 1).max(1);
    }
    things
}

/// Whether the two items cannot be one event whatever else they share: their titles' numbers
/// of some kind disagree, one announces a pre-release and the other does not, two Japanese
/// titles name different things ([`other_names`]), their kinds of event exclude each other
/// ([`events::exclusive`]), two market reports are of different markets, or they name
/// different central banks.
pub fn contradicts(a: &Facts, b: &Facts) -> bool {
    a.prerelease != b.prerelease
        || other_names(a, b)
        || events::exclusive(a.events, b.events)
        || (a.events & b.events & events::MARKET != 0
            && events::other_markets(a.markets, b.markets))
        || names::other_central_banks(a.central_banks, b.central_banks)
        || numbers::conflict(&a.numbers, &b.numbers)
}

/// Whether two Japanese titles each name something in Latin script or an organisation, and
/// share none of them: `Adobe` against `Chrome`, `Cloud Run` against `AWS`. A Japanese
/// headline writes its subject's name as the name is written (a product, a company, a
/// standard), so two reports of one event name it alike, and two that share only the
/// vocabulary of their kind of news (脆弱性を修正, 東京リージョンで利用可能に) report two events.
fn other_names(a: &Facts, b: &Facts) -> bool {
    use super::facts::Lang;
    a.lang == Lang::Ja
        && b.lang == Lang::Ja
        && !a.latin.is_empty()
        && !b.latin.is_empty()
        && !a.latin.iter().any(|n| b.latin.binary_search(n).is_ok())
}

/// Whether two titles state one amount (of money, a percentage or a count), a round figure
/// agreeing with what rounds to it ([`numbers::agree`]).
fn shared_amount(a: &[numbers::Number], b: &[numbers::Number]) -> bool {
    use numbers::Kind;
    a.iter().any(|n| {
        matches!(n.kind, Kind::Money(_) | Kind::Percent | Kind::Count(_))
            && b.iter().any(|m| numbers::agree(n, m))
    })
}

/// How strongly `new` joins the window item `old` (with what they share in `c`); `None` when
/// the evidence is not enough.
pub fn join_score(new: &Facts, old: &Facts, c: &Candidate, s: &Settings) -> Option<f64> {
    let same_site = new.site == old.site;
    if c.same_title && !same_site {
        return Some(1.0 + c.cosine);
    }
    if c.title_shared < 2 {
        return None;
    }
    // later reports of one event need more in common: a day apart, a follow-up must be clear
    let late = (c.hours - s.fresh_hours).max(0.0) / 24.0;
    // each trading day's move is its own story
    if late > 0.0 && new.events & old.events & events::MARKET != 0 {
        return None;
    }
    if new.lang == old.lang {
        if same_site {
            return (c.cosine >= s.same_site_threshold + s.decay * late).then_some(c.cosine);
        }
        let words = c.cosine >= s.threshold + s.decay * late;
        // rare words alone join only two things shared, not the pieces of one compound
        let names = c.title_runs >= 2 && c.title_idf >= s.rare_shared * (1.0 + late);
        // two reports of one market's move of the day agree on its amount (terse headlines
        // that share little else: 187円安 and 終値は187円安)
        let market = new.events & old.events & events::MARKET != 0
            && late == 0.0
            && shared_amount(&new.numbers, &old.numbers);
        (words || names || market).then_some(c.cosine)
    } else {
        // across languages only names and numbers are shared words: ask for rare ones
        (c.title_idf >= s.cross_rare * (1.0 + late)).then_some(c.cosine)
    }
}
