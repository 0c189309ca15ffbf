//! The candidates of one item's 頻出ワード as they are gathered (counts, where they stand,
//! how they are written), the rules that drop a site's labels and fragments (a word or phrase
//! that is only a part of a longer kept phrase or name). Scoring and choosing are
//! [`super::Analyzer::keywords_of`]'s.

use rustc_hash::FxHashMap;

use super::DocFreq;

/// One candidate key of an item.
pub(super) struct Cand<'t> {
    pub(super) tf: f64,
    pub(super) count: usize,
    pub(super) first: usize,
    pub(super) phrase: bool,
    pub(super) weak: bool,
    pub(super) proper: bool,
    /// Written all in lower case somewhere (so a capital elsewhere was a sentence's).
    pub(super) lower: bool,
    pub(super) in_title: bool,
    /// A lower-case phrase other items of the archive also hold (a term, not two neighbours).
    pub(super) shared: bool,
    /// Somewhere a whole noun chunk of its sentence (see [`super::Term::chunk`]).
    pub(super) chunk: bool,
    pub(super) displays: Displays<'t>,
    /// The key's [`super::term_hash`], computed once: the archive's and the site's counts are
    /// looked up with it.
    pub(super) hash: u64,
    /// In how many of the archive's items the key occurs ([`DocFreq::count`]), looked up once
    /// for the site's labels, the shared terms and the score.
    pub(super) global: u32,
}

/// How a candidate is written, with each form's count. Most candidates have one form: it is
/// held inline, and only a second one allocates (a short vector searched in order, not a hash
/// table per candidate). Nothing reads its order (each use asks whether any or all forms match,
/// or takes the most frequent with a tie broken by the form itself).
#[derive(Default)]
pub(super) struct Displays<'t> {
    first: Option<(&'t str, usize)>,
    more: Vec<(&'t str, usize)>,
}

impl<'t> Displays<'t> {
    /// Counts one occurrence written as `display`.
    pub(super) fn add(&mut self, display: &'t str) {
        match &mut self.first {
            None => self.first = Some((display, 1)),
            Some((d, n)) if *d == display => *n += 1,
            Some(_) => match self.more.iter_mut().find(|(d, _)| *d == display) {
                Some((_, n)) => *n += 1,
                None => self.more.push((display, 1)),
            },
        }
    }

    /// The forms.
    pub(super) fn keys(&self) -> impl Iterator<Item = &&'t str> {
        self.iter().map(|(d, _)| d)
    }

    /// The forms with their counts.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&&'t str, &usize)> {
        self.first.iter().chain(&self.more).map(|(d, n)| (d, n))
    }

    /// How many forms.
    pub(super) fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.more.len()
    }

    /// Whether `display` is one of the forms.
    pub(super) fn contains_key(&self, display: &str) -> bool {
        self.keys().any(|d| *d == display)
    }
}

impl Cand<'_> {
    /// A phrase is kept when it is a name, recurs, or is a title's noun phrase.
    pub(super) fn kept(&self) -> bool {
        self.phrase
            && (self.proper
                || self.count >= 2
                || (self.in_title
                    && self
                        .displays
                        .keys()
                        .any(|w| super::headline::title_noun_phrase(w))))
    }
}

/// Generic nouns of a company's role, as stems (startup, maker, firm, giant, company and their
/// plurals): a title's "Quantum startup", "Electric vehicle maker" is the subject's
/// description, not a keyword; the words before it say what it is about.
const ROLE_NOUNS: &[&str] = &["startup", "maker", "firm", "giant", "compani"];

/// Currency codes written before an amount ("EUR 410 million", "GBP 4.5 million"), lower case
/// as keys are: the ISO 4217 codes of the most traded currencies.
const CURRENCY_CODES: &[&str] = &[
    "usd", "eur", "gbp", "jpy", "chf", "cny", "aud", "cad", "hkd", "sgd", "inr", "krw", "sek",
    "nok", "dkk", "brl", "mxn", "zar", "nzd", "pln",
];

/// Whether a key holds a currency code before a number, or ends in one: an amount ("pay EUR
/// 410", "Chatterbox GBP 4.5"), no name with its version, as an amount after its sign is none.
fn amount_after_code(key: &str) -> bool {
    // (the code alone, or ending a phrase, is the amount's too: "EUR", "Chatterbox GBP")
    if key
        .rsplit(' ')
        .next()
        .is_some_and(|w| CURRENCY_CODES.contains(&w))
    {
        return true;
    }
    let mut words = key.split(' ').peekable();
    while let Some(w) = words.next() {
        if CURRENCY_CODES.contains(&w)
            && words
                .peek()
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        {
            return true;
        }
    }
    false
}

/// What the whole item says about its candidates, before fragments are dropped:
/// - an English word written only with a capital, at least twice, is a name, though each time
///   it starts a sentence ("Cloudflare open sources …" and "Cloudflare has released …"; a
///   Title Case title's capital is no evidence);
/// - a lower-case phrase that other items of the archive also hold is a term, not two
///   neighbours ("memory safety", "hedge funds"), so it may be shown though the item says it
///   once (it does not make its words fragments);
/// - a role noun ([`ROLE_NOUNS`]), or a phrase ending in one, is no candidate, nor is a phrase
///   with an amount after a currency code ("EUR 410").
///
/// `english_title`: the item's title is English (the rules for acronyms and amounts read an
/// English headline, not a Japanese title's Latin words).
pub(super) fn mark_names_and_terms(
    cands: &mut FxHashMap<&str, Cand>,
    title_case: bool,
    title: &str,
    english_title: bool,
) {
    cands.retain(|k, _| {
        !(k.is_ascii()
            && (k
                .rsplit(' ')
                .next()
                .is_some_and(|w| ROLE_NOUNS.contains(&w))
                || (english_title && amount_after_code(k))))
    });
    // (the acronyms [`fold_acronyms`] will fold into the name they abbreviate: a phrase of one
    // is not the name, "LTS release" beside "long-term support")
    let folded: Vec<&str> = cands
        .iter()
        .filter(|_| english_title)
        .filter(|(k, c)| !c.phrase && (2..=6).contains(&k.len()) && k.is_ascii())
        .filter_map(|(_, c)| {
            let d = *c.displays.keys().next()?;
            (c.displays.len() == 1 && d.len() >= 2 && d.bytes().all(|b| b.is_ascii_uppercase()))
                .then_some(d)
        })
        .filter(|letters| {
            cands.iter().any(|(k, c)| {
                c.phrase
                    && (c.proper || letters.len() >= 3)
                    && k.is_ascii()
                    && c.displays.keys().any(|d| abbreviates(letters, d))
            })
        })
        .collect();
    for (k, c) in cands.iter_mut() {
        if !k.is_ascii() {
            continue;
        }
        if !c.phrase
            && !c.lower
            && c.count >= 2 + usize::from(title_case && c.in_title)
            && c.displays.keys().all(|d| {
                d.starts_with(|ch: char| ch.is_ascii_uppercase())
                    && !super::rank::person_title(&d.to_ascii_lowercase())
                    && !super::rank::demonym(&d.to_ascii_lowercase())
            })
        {
            c.proper = true;
        }
        // (an acronym before lower-case nouns in the title names one thing: GIN indexes, ETF
        // outflows, NVMe driver, A16 process)
        if c.phrase
            && !c.proper
            && c.in_title
            && (c.count >= 2
                || (english_title
                    && c.chunk
                    && c.displays.keys().any(|d| {
                        acronym_phrase(d)
                            && !verb_after_acronym(d, title)
                            && !folded.iter().any(|a| d.split(' ').next() == Some(*a))
                    })))
            && c.displays.keys().any(|d| acronym_phrase(d))
        {
            c.proper = true;
        }
        if c.phrase
            && !c.proper
            && c.global >= SHARED_TERM_ITEMS
            && c.displays.keys().any(|d| {
                d.split(' ')
                    .all(|w| w.len() >= 3 && w.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'))
            })
        {
            c.shared = true;
        }
    }
}

/// Removes what `site` repeats from its item's candidates: its labels (what it writes in most of
/// its items, learnt from the archive), a label with a number after it ("CVSS 9.8", "Issue
/// 212"), and a series label before the title's colon that the site has run before ("Show HN:
/// A terminal UI …", "Chart of the Week: …") or whose last word it has ("Ask HN:"), with the
/// words of a two-word one; one its titles have opened with before (counted by
/// [`super::terms::title_label_key`], whatever candidates its words make) goes with every part
/// of it ("Under the Hood" and its "Hood"). `prepared_title` is the title as the analyser
/// prepared it; `stem` is the analyser's stemmer (an English word's key).
pub(super) fn drop_site_labels(
    cands: &mut FxHashMap<&str, Cand>,
    df: &DocFreq,
    site: &str,
    title: &str,
    prepared_title: &str,
    stem: impl Fn(&str) -> String,
) {
    let number = |w: &str| w.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    // (the site's sketch is looked up once, and each candidate's hash and count were taken when
    // it was gathered; an archive without the site has no labels of it)
    let sketch = df.site(site);
    if let Some(sketch) = sketch {
        cands.retain(|k, c| {
            !sketch.is_label(c.hash, c.global, df.docs)
                && !k.split_once(' ').is_some_and(|(head, rest)| {
                    rest.split(' ').all(number) && df.is_site_label(site, head)
                })
        });
    }
    let Some(prefix) = super::terms::title_label(title) else {
        return;
    };
    let short = prefix.split(' ').count() <= 2;
    let last = prefix.rsplit(' ').next().unwrap_or(prefix);
    let label = cands.iter().any(|(_, c)| {
        c.displays.contains_key(prefix)
            && sketch.is_some_and(|s| s.is_title_label(c.hash, c.global, df.docs))
    }) || (short
        && last.is_ascii()
        && df.is_site_title_label(site, &stem(&last.to_ascii_lowercase())));
    if label {
        cands.retain(|_, c| {
            !c.displays
                .keys()
                .any(|d| *d == prefix || (short && prefix.split(' ').any(|w| w == *d)))
        });
    }
    // A label the site's titles open with, whatever candidates its words make ("Under the
    // Hood", "SRE Tech Minute"): no part of it is a keyword.
    let learnt = sketch.is_some_and(|s| {
        super::terms::title_label_key(prepared_title)
            .is_some_and(|h| s.is_title_label(h, df.count(h), df.docs))
    });
    if learnt {
        cands.retain(|_, c| !c.displays.keys().any(|d| within_words(d, prefix)));
    }
}

/// Whether `short` stands in `long` as whole words (at its start or after a space, and at its
/// end or before one), `long` itself included.
fn within_words(short: &str, long: &str) -> bool {
    long.match_indices(short).any(|(at, _)| {
        (at == 0 || long.as_bytes()[at - 1] == b' ')
            && long
                .as_bytes()
                .get(at + short.len())
                .is_none_or(|b| *b == b' ')
    })
}

/// A lower-case phrase in at least this many items of the archive (this one included) is a
/// term: see [`mark_names_and_terms`].
const SHARED_TERM_ITEMS: u32 = 2;

/// Removes the fragments of kept phrases from `cands`.
pub(super) fn drop_fragments(cands: &mut FxHashMap<&str, Cand>, df: &DocFreq) {
    // A phrase that only ever occurs inside a longer one ("small modular" in "small modular
    // reactors") is that longer phrase's fragment.
    // So is a word or phrase inside a longer name that holds it at least as often, or a
    // name's tail ("Compose 1.9" of "Jetpack Compose 1.9"): a fragment of a kept phrase.
    let inside = |short: &str, long: &str| long.len() > short.len() && within_words(short, long);
    // (only kept phrases hold fragments: they are found once, not once per candidate)
    let kept: Vec<(&str, &Cand)> = cands
        .iter()
        .filter(|(_, d)| d.kept())
        .map(|(l, d)| (*l, d))
        .collect();
    // (with none, nothing is a fragment: a versioned head's phrase is a kept name too)
    if kept.is_empty() {
        return;
    }
    let fragments: Vec<&str> = cands
        .iter()
        .filter(|(k, c)| {
            // (a common English word inside a kept phrase is that phrase's: "garbage" of
            // "garbage collection")
            let common = !c.phrase && (!c.proper || c.lower) && k.is_ascii();
            kept.iter().any(|&(l, d)| {
                if !inside(k, l) {
                    return false;
                }
                common
                    || ((d.proper || (d.count >= 2 && c.phrase))
                        && (d.count >= c.count
                            || (c.phrase && c.proper && d.proper && l.ends_with(*k) && {
                                // (a tail, when the name's first word never stands alone)
                                let head = l.split(' ').next().unwrap_or(l);
                                cands.get(head).is_none_or(|h| h.count <= d.count)
                            })))
            })
        })
        .map(|(k, _)| *k)
        .chain(absorbed_words(cands, &kept, df, inside))
        .chain(versioned_heads(cands))
        .collect();
    for k in fragments {
        cands.remove(k);
    }
}

/// Single words every occurrence of which stands inside a name or a recurring term ("Swiss"
/// of "Swiss franc" and "Swiss National Bank", "Heat" of "heat pumps"): the phrases say it, the
/// word alone is a fragment. A term's other words must be rare in the archive: a name before a
/// common noun ("Kubernetes release", "Chrome update") is the name's phrase, not a term.
fn absorbed_words<'a>(
    cands: &FxHashMap<&'a str, Cand>,
    kept: &[(&str, &Cand)],
    df: &DocFreq,
    inside: impl Fn(&str, &str) -> bool,
) -> Vec<&'a str> {
    let rare = |w: &str| {
        let n = df.df.get(&super::term_hash(w)).copied().unwrap_or(0);
        f64::from(n) <= (df.docs as f64 * RARE_SHARE).max(2.0)
    };
    cands
        .iter()
        // (a word with digits, inner capitals or in capitals is a name of its own: Zephyr-7,
        // LazyCell, GPU; the key is lower case, so its displays tell)
        // (a two-letter acronym too: "ES" of "ES modules", where it stands only inside it)
        .filter(|(k, c)| {
            !c.phrase
                && k.bytes().all(|b| b.is_ascii_lowercase())
                && c.displays.keys().all(|d| {
                    d.bytes().skip(1).all(|b| b.is_ascii_lowercase())
                        || (d.len() == 2 && d.bytes().all(|b| b.is_ascii_uppercase()))
                })
        })
        .filter(|(k, c)| {
            let held: usize = kept
                .iter()
                .filter(|(l, d)| {
                    inside(k, l)
                        && (d.proper || (d.count >= 2 && l.split(' ').all(|w| w == **k || rare(w))))
                })
                .map(|(_, d)| d.count)
                .sum();
            held >= c.count
        })
        .map(|(k, _)| *k)
        .collect()
}

/// Names the title writes with their model number ("Raspberry Pi 5 goes on sale", "OnePlus 15
/// launches …"): the bare name is the numbered one's fragment, however often the text repeats
/// it. (A dotted release, "Collector 1.0", is the tail rule's in [`drop_fragments`].)
fn versioned_heads<'a>(cands: &FxHashMap<&'a str, Cand>) -> Vec<&'a str> {
    let version = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
    cands
        .iter()
        .filter(|(_, d)| d.phrase && d.proper && d.in_title)
        .filter_map(|(l, _)| {
            let (head, last) = l.rsplit_once(' ')?;
            version(last).then_some(head)
        })
        .filter_map(|head| cands.get_key_value(head).map(|(k, _)| *k))
        .collect()
}

/// A word in at most this share of the archive's items (or in two) is rare: see
/// [`absorbed_words`].
const RARE_SHARE: f64 = 0.01;

/// Folds an English acronym into the name it abbreviates when the item writes both (ECB and
/// European Central Bank, BOJ and Bank of Japan, LTS and Long-Term Support): one idea, one
/// candidate, shown as the name (what readers tag) with the acronym's counts. The acronym's
/// letters are the initials of the name's words (with or without its small words, a hyphen's
/// parts counted).
pub(super) fn fold_acronyms(cands: &mut FxHashMap<&str, Cand>) {
    let acronyms: Vec<(&str, String)> = cands
        .iter()
        .filter(|(k, c)| !c.phrase && (2..=6).contains(&k.len()) && k.is_ascii())
        .filter_map(|(k, c)| {
            let d = c.displays.keys().next()?;
            (c.displays.len() == 1 && d.len() >= 2 && d.bytes().all(|b| b.is_ascii_uppercase()))
                .then(|| (*k, d.to_string()))
        })
        .collect();
    for (acronym, letters) in acronyms {
        // (or a lower-case term it abbreviates, for three letters or more: CPI and consumer
        // price index, LTS and long-term support)
        let Some(name) = cands
            .iter()
            .filter(|(k, c)| c.phrase && (c.proper || letters.len() >= 3) && k.is_ascii())
            .find(|(_, c)| c.displays.keys().any(|d| abbreviates(&letters, d)))
            .map(|(k, _)| *k)
        else {
            continue;
        };
        let Some(a) = cands.remove(acronym) else {
            continue;
        };
        let n = cands.get_mut(name).expect("found");
        n.tf += a.tf;
        n.count += a.count;
        n.in_title |= a.in_title;
        n.proper |= a.proper;
        n.first = n.first.min(a.first);
    }
}

/// Whether `letters` (an acronym) are the initials of `name`'s words, all of them or only the
/// capitalised ones (Bank of Japan: BOJ or BJ), a hyphenated word giving one letter a part.
/// (No allocation, and it stops at the first letter that differs: it runs for every acronym
/// and name of an item.)
fn abbreviates(letters: &str, name: &str) -> bool {
    let l = letters.as_bytes();
    let initials_are_letters = |all: bool| {
        let (mut i, mut words) = (0, 0);
        for w in name.split([' ', '-']).filter(|w| !w.is_empty()) {
            words += 1;
            let c = w.as_bytes()[0];
            if !all && c.is_ascii_lowercase() {
                continue;
            }
            if l.get(i) != Some(&c.to_ascii_uppercase()) {
                return false;
            }
            i += 1;
        }
        words >= 2 && i == l.len()
    };
    initials_are_letters(true) || initials_are_letters(false)
}

/// Whether a phrase is an acronym (two or more capitals, digits allowed: GIN, A16, NVMe) before
/// a lower-case noun of a title ([`super::headline::title_noun_phrase`]).
fn acronym_phrase(d: &str) -> bool {
    let Some((first, rest)) = d.split_once(' ') else {
        return false;
    };
    first.len() >= 2
        && !rest.contains(' ')
        && first.bytes().filter(u8::is_ascii_lowercase).count() <= 1
        && first.bytes().filter(u8::is_ascii_uppercase).count() >= 2
        && first.bytes().all(|b| b.is_ascii_alphanumeric())
        && first.starts_with(|c: char| c.is_ascii_uppercase())
        && super::headline::title_noun_phrase(d)
}

/// Whether an acronym phrase's last word, in -s, is the title's verb: the title goes on after
/// it ("SNB signals no return …", "TSA screens 3.1 million"), where a plural noun after an
/// acronym ends its clause ("… not LSM trees", "… lack of EUV tools").
fn verb_after_acronym(d: &str, title: &str) -> bool {
    let last = d.rsplit(' ').next().unwrap_or(d);
    if !last.ends_with('s') || last.ends_with("ss") {
        return false;
    }
    title.match_indices(d).any(|(at, _)| {
        let rest = &title[at + d.len()..];
        rest.strip_prefix(' ')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphanumeric()))
    })
}
