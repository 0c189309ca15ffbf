//! What an English headline's shape says about its words: Title Case (its capitals mark
//! nothing), the lower-case noun phrases a title may hold once ("chip factory", "Swiss franc"),
//! and the headline's subject and verb ("Dollar index falls …"). The rules about words and
//! weights are [`super::rank`]'s.

use super::rank::NAME_CONNECTORS;
use super::{Kind, Tok};

/// Whether an English title is written in title case ("Omicron Crests, but Shots Are Still
/// Keeping Americans Out of Hospitals"): then its capitals say nothing about names.
pub fn title_case(title: &str) -> bool {
    // Japanese titles have no case (their Latin words are names: Next.jsのApp Router).
    if title.chars().any(|c| c >= '\u{3000}') {
        return false;
    }
    let words: Vec<&str> = title
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '\'' || c == '-'))
        .filter(|w| w.len() >= 4 && w.starts_with(|c: char| c.is_ascii_alphabetic()))
        .collect();
    let capital = words
        .iter()
        .filter(|w| w.starts_with(|c: char| c.is_ascii_uppercase()))
        .count();
    // (a lower-case content word, a verb or a noun, is what Title Case never writes: "…
    // Agency fines Tallgrass Data Brokers …" is a sentence with names)
    let content = words.iter().any(|w| {
        w.starts_with(|c: char| c.is_ascii_lowercase())
            && !super::Analyzer::get().is_stop_en(w)
            && !w.contains('-')
    });
    words.len() >= 3 && capital * 4 >= words.len() * 3 && !content
}

/// Whether a phrase seen once, in a title, reads as a noun phrase: lower-case words of letters
/// (hyphens allowed), the first not a verb's form (-s, -ed, -ing) unless hyphenated ("chip
/// factory", "cloud outage", "free-threaded build", not "opens antitrust" or "launches
/// Windows"); or a name or acronym before such words, the last not an -ed, -ing or -ly word
/// ("Swiss franc", "ETF outflows", "MERGE statement"; the headline's verb never joins a phrase).
pub(super) fn title_noun_phrase(phrase: &str) -> bool {
    let mut words = phrase.split(' ');
    let first = words.next().unwrap_or("");
    let plain = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
    let rest: Vec<&str> = words.collect();
    if !rest.iter().all(|w| plain(w)) {
        return false;
    }
    // (an irregular verb, an adverb or a number word is no noun's: "minutes show split",
    // "Signals come", "keep on-call"; nor a comparative a first word: "better notebook",
    // "faster compilation"; an adjective only a first: "small teams", not "retire old")
    if rest
        .iter()
        .any(|w| NO_NOUN.contains(w) || PLAIN_ADJECTIVES.contains(w))
        || COMPARATIVES.contains(&first.to_ascii_lowercase().as_str())
        || NO_NOUN.contains(&first)
    {
        return false;
    }
    if plain(first) {
        // (a hyphenated first word is an adjective: free-threaded, hours-long)
        return first.contains('-')
            || !(first.ends_with('s') || first.ends_with("ed") || first.ends_with("ing"));
    }
    let last = rest.last().copied().unwrap_or("");
    first.starts_with(|c: char| c.is_ascii_uppercase())
        && first
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !last.is_empty()
        && !(last.ends_with("ed") || last.ends_with("ing") || last.ends_with("ly"))
}

/// The verb of a title's question with "do" ("How do you handle …", "How does your team
/// handle …", "Why did the index drop …"): the word after its subject, a pronoun or a
/// determiner and one noun. A phrase holding it is no noun phrase ("team handle on-call").
pub(super) fn question_verb(title: &str) -> Option<&str> {
    // (no allocation: it runs for every title, most of which ask nothing)
    let mut words = title
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '\''))
        .filter(|w| !w.is_empty());
    words.find(|w| {
        ["do", "does", "did"]
            .iter()
            .any(|d| w.eq_ignore_ascii_case(d))
    })?;
    let subject = words.next()?.to_ascii_lowercase();
    let skip = match subject.as_str() {
        "i" | "you" | "we" | "they" | "he" | "she" | "it" => 0,
        "the" | "a" | "an" | "your" | "our" | "my" | "their" | "his" | "her" | "its" => 1,
        _ => return None,
    };
    words
        .nth(skip)
        .filter(|w| w.bytes().all(|b| b.is_ascii_lowercase()))
}

/// Whether a title's lower-case phrase whose first word is in -ing reads as a noun phrase
/// ("the easing cycle", "says easing cycle is over", "a streaming service"): after a determiner
/// or a verb in -s the -ing word modifies the noun after it, where elsewhere it is a verb's
/// ("citing burnout", "without breaking clients"). The rest as [`title_noun_phrase`]'s.
pub(super) fn ing_noun_phrase(title: &str, phrase: &str) -> bool {
    let mut words = phrase.split(' ');
    let first = words.next().unwrap_or("");
    let plain = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
    let rest: Vec<&str> = words.collect();
    if !(first.ends_with("ing")
        && first.len() >= 6
        && plain(first)
        && !rest.is_empty()
        && rest.iter().all(|w| plain(w) && !NO_NOUN.contains(w)))
    {
        return false;
    }
    let Some(at) = title.find(phrase) else {
        return false;
    };
    if at > 0 && title.as_bytes()[at - 1] != b' ' {
        return false;
    }
    let prev = title[..at].trim_end().rsplit(' ').next().unwrap_or("");
    let determiner = matches!(
        prev,
        "the" | "a" | "an" | "its" | "their" | "our" | "your" | "his" | "her" | "this" | "that"
    );
    let verb_s = s_form(prev) && prev.bytes().all(|b| b.is_ascii_lowercase());
    (determiner || verb_s) && !continues_in_title(title, phrase)
}

/// Whether the title goes on after `phrase` with a lower-case word that continues its noun
/// phrase ("hours-long cloud" of "… hours-long cloud outage", "yen carry" of "the yen carry
/// trade is back"): then the phrase is cut short, no noun phrase of its own. A stop word, a
/// comparative, an -ed or -ly word, a capitalised word, a number or punctuation ends one (as
/// for a noun chunk of the text), and so does a word that may be the headline's verb: one in
/// -s ("bank lending turns up"), a verb's base form after a plural ("Small caps lead") or an
/// irregular form ("written in Zig"). Nor does a phrase ending in a plural go on into a word the
/// title goes on after (the word after a plural subject is its verb: "as car factories sit
/// idle"; "sticky services inflation" ends its title), nor into a word before an article (a
/// verb with its object: "a cable rival strike a deal").
pub(super) fn continues_in_title(title: &str, phrase: &str) -> bool {
    let Some(at) = title.find(phrase) else {
        return false;
    };
    let Some(rest) = title[at + phrase.len()..].strip_prefix(' ') else {
        return false;
    };
    let mut words = rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'));
    let next = words.next().unwrap_or("");
    // A word before an article is the headline's verb ("a cable rival strike a deal").
    let before_article =
        rest[next.len()..].starts_with(' ') && matches!(words.next(), Some("a" | "an" | "the"));
    let last = phrase.rsplit(' ').next().unwrap_or("");
    // (unless that word ends the title: "warns on sticky services inflation")
    let plural_head = s_form(last)
        && rest[next.len()..]
            .trim_start()
            .contains(|c: char| c.is_ascii_alphanumeric());
    !before_article
        && !plural_head
        && next.len() >= 2
        && next
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b == b'-' || b.is_ascii_digit())
        && next.starts_with(|c: char| c.is_ascii_lowercase())
        && !super::Analyzer::get().is_stop_en(next)
        && !COMPARATIVES.contains(&next)
        && !NO_NOUN.contains(&next)
        && !PLURAL_SUBJECT_VERBS.contains(&next)
        && (next.contains('-')
            || !(next.ends_with("ed") || next.ends_with("ly") || next.ends_with('s')))
}

/// Whether an English word of four letters or more ends in a single s: a plural noun or a
/// verb's -s form ("signals", "turns"; not "press", nor "its").
fn s_form(word: &str) -> bool {
    word.len() >= 4 && word.ends_with('s') && !word.ends_with("ss")
}

/// Whether a phrase the text says once reads as a noun phrase a reader would tag ("deposit
/// rate", "food prices", "rate limiting", "GIN indexes"): two or three words of lower-case
/// letters, digits and hyphens (the first may be an acronym), no word an -ed or -ly form
/// (unless hyphenated: "ad-supported tier"), the first no -s or -ing form (a verb: "keeps
/// slowing", "using Redis") and no comparative ("higher food prices").
pub(super) fn text_noun_phrase(phrase: &str) -> bool {
    let words: Vec<&str> = phrase.split(' ').collect();
    let plain = |w: &str| {
        w.len() >= 3
            && w.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && w.starts_with(|c: char| c.is_ascii_lowercase())
    };
    let acronym = |w: &str| w.len() >= 2 && w.bytes().all(|b| b.is_ascii_uppercase());
    let modifier = |w: &str| w.contains('-') || !(w.ends_with("ed") || w.ends_with("ly"));
    let (first, rest) = match words.as_slice() {
        [first, rest @ ..] if (1..=2).contains(&rest.len()) => (*first, rest),
        _ => return false,
    };
    let first_ok = acronym(first)
        || (plain(first)
            && modifier(first)
            && (first.contains('-') || !(first.ends_with('s') || first.ends_with("ing")))
            && !COMPARATIVES.contains(&first));
    first_ok
        && rest.iter().all(|w| plain(w) && modifier(w))
        && !words
            .iter()
            .any(|w| NO_NOUN.contains(w) || PLAIN_ADJECTIVES.contains(w))
}

/// Closed classes of English that are no part of a noun phrase a reader tags: irregular verb
/// forms ("data show", "bill fell", "took effect"), adverbs that follow a noun ("stay wide",
/// "good enough"), number words and ordinals ("five hours", "third straight").
const NO_NOUN: &[&str] = &[
    "went",
    "took",
    "taken",
    "broke",
    "broken",
    "built",
    "wrote",
    "written",
    "fell",
    "fallen",
    "struck",
    "made",
    "gave",
    "given",
    "got",
    "gotten",
    "ran",
    "run",
    "runs",
    "cut",
    "cuts",
    "put",
    "puts",
    "set",
    "sets",
    "left",
    "kept",
    "keep",
    "keeps",
    "held",
    "told",
    "sold",
    "found",
    "brought",
    "thought",
    "began",
    "begun",
    "grew",
    "grown",
    "show",
    "shows",
    "shown",
    "say",
    "says",
    "seen",
    "saw",
    "came",
    "come",
    "comes",
    "become",
    "became",
    "knew",
    "known",
    "rose",
    "risen",
    "won",
    "lost",
    "paid",
    "spent",
    "stood",
    "led",
    "met",
    "bought",
    "caught",
    "taught",
    "chose",
    "chosen",
    "spoke",
    "spoken",
    "fled",
    "flew",
    "stole",
    "stolen",
    "wore",
    "gives",
    "give",
    "get",
    "gets",
    "go",
    "goes",
    "make",
    "makes",
    "take",
    "takes",
    "stay",
    "stays",
    "fail",
    "fails",
    "work",
    "works",
    "read",
    "reads",
    "ship",
    "ships",
    "need",
    "needs",
    "enough",
    "away",
    "straight",
    "forever",
    "outside",
    "underneath",
    "ago",
    "yet",
    "again",
    "together",
    "instead",
    "ahead",
    "anyone",
    "everyone",
    "someone",
    "something",
    "nothing",
    "everything",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "last",
    "next",
];

/// Adjectives of size, age or number that are no part of a noun phrase the text says once
/// ("many users", "new version"), though a title's noun phrase may start with one ("small
/// teams").
const PLAIN_ADJECTIVES: &[&str] = &[
    "many",
    "much",
    "several",
    "major",
    "large",
    "small",
    "big",
    "new",
    "old",
    "good",
    "bad",
    "real",
    "whole",
    "own",
    "same",
    "different",
    "various",
];

/// Verbs in their base form (and auxiliaries) that follow a plural subject in a headline
/// ("Chip stocks slide", "Small caps lead", "Feature flags are …"): after one, a word in -s is
/// the subject's noun, not the verb. (A closed class of headline English.)
const PLURAL_SUBJECT_VERBS: &[&str] = &[
    "are", "were", "will", "would", "can", "could", "may", "might", "must", "should", "have",
    "had", "do", "did", "don't", "aren't", "won't", "can't", "get", "hit", "top", "beat", "miss",
    "lead", "lag", "rise", "fall", "slide", "slip", "drop", "jump", "soar", "surge", "climb",
    "gain", "rally", "sink", "slump", "tumble", "plunge", "rebound", "outsell", "face", "need",
    "keep", "remain", "stay", "struggle", "lose", "win", "join", "cut", "raise", "hold", "reach",
    "break", "boost", "trail", "fail", "leak", "grow", "shrink", "ease", "edge", "dip", "spike",
];

/// Comparatives that start a phrase without belonging to it ("higher food prices").
pub(super) const COMPARATIVES: &[&str] = &[
    "higher", "lower", "bigger", "smaller", "larger", "faster", "slower", "stronger", "weaker",
    "greater", "better", "worse", "cheaper", "newer", "older", "longer", "shorter", "wider",
];

/// What a title's shape says about its English words.
#[derive(Debug, Default)]
pub(super) struct Headline {
    /// Written in Title Case: capitals mark nothing.
    pub title_case: bool,
    /// Tokens before this index are the headline's subject, before its verb ("Microsoft" in
    /// "Microsoft launches Windows 365"): names, though the first word's capital is a sentence's.
    pub subject_end: usize,
    /// The token index of that verb (an action, ranked low).
    pub verb: Option<usize>,
    /// The verb of a clause after "as" ("… as Treasury auction disappoints"): the last word of
    /// the words after it.
    pub clause_verb: Option<usize>,
}

impl Headline {
    /// Whether the token at `at` is one of the headline's verbs.
    pub fn is_verb(&self, at: usize) -> bool {
        self.verb == Some(at) || self.clause_verb == Some(at)
    }
}

/// The verb of a title's clause after "as" (… as ETF outflows mount, … as coalition collapses,
/// … as budget 5G models sell in India): the last of two to four words after it, before the
/// title's end or a small word; lower-case letters only.
fn clause_verb(toks: &[Tok], is_small: impl Fn(&str) -> bool) -> Option<usize> {
    let at = toks
        .iter()
        .position(|t| t.kind == Kind::Latin && t.surface == "as")?;
    let mut words = Vec::new();
    let mut j = at + 1;
    while j + 1 < toks.len() && toks[j].kind == Kind::Space {
        let k = j + 1;
        if !matches!(toks[k].kind, Kind::Latin | Kind::Number) {
            break;
        }
        let (w, end) = super::tokens::latin_word(toks, k);
        if is_small(&w.to_lowercase()) {
            break;
        }
        words.push((k, w));
        j = end;
        if words.len() > 4 {
            return None;
        }
    }
    // (the clause ends at the title's end or a small word, not inside a word: "as U.S.")
    if toks.get(j).is_some_and(|t| t.kind != Kind::Space) {
        return None;
    }
    let (k, last) = words.last()?;
    (words.len() >= 2 && last.len() >= 3 && last.bytes().all(|b| b.is_ascii_lowercase()))
        .then_some(*k)
}

impl Headline {
    /// Reads the title's tokens (`text` is the title they come from, `body` the item's text).
    pub fn of(toks: &[Tok], text: &str, body: &str) -> Headline {
        let mut h = Headline {
            title_case: title_case(text),
            ..Headline::default()
        };
        if !h.title_case {
            h.clause_verb = clause_verb(toks, |w| super::Analyzer::get().is_stop_en(w));
        }
        if h.title_case {
            return h;
        }
        // Capitalised words from the start (with of, and … between them), at most two
        // lower-case nouns after them ("Dollar index", "Quantum startup"), then a lower-case
        // word in -s that is not a possessive (centers'), not the last word and not a plural
        // the text also writes after the word before it ("heat pumps" of "Heat pumps outsell
        // gas boilers"): the verb.
        // (after a label and a colon, the headline starts: "Markets Minute: Bitcoin drops …")
        let mut from = 0;
        if let Some(c) = toks.iter().take(12).position(|t| t.surface == ":")
            && toks.get(c + 1).is_some_and(|t| t.kind == Kind::Space)
        {
            from = c + 1;
        }
        let mut j = match toks[from..].iter().position(|t| t.kind != Kind::Space) {
            Some(j) if toks[from + j].kind == Kind::Latin => from + j,
            _ => return h,
        };
        let (mut capitals, mut nouns) = (0, 0);
        let mut prev = String::new();
        loop {
            let (word, mut end) = super::tokens::latin_word(toks, j);
            let capital = word.starts_with(|c: char| c.is_ascii_uppercase() || c.is_ascii_digit());
            // (a possessive belongs to the subject: "Ostrander Bank's third-quarter profit
            // beats …", "Chile's copper output falls …")
            if capital && nouns == 0 && super::tokens::possessive_at(toks, end) {
                end += 2;
            }
            if capital && nouns == 0 {
                capitals += 1;
            } else if capital || capitals == 0 {
                return h;
            } else if !NAME_CONNECTORS.contains(&word.as_str()) || nouns > 0 {
                let verb = s_form(&word)
                    && word.bytes().all(|b| b.is_ascii_lowercase())
                    && end + 1 < toks.len()
                    && (toks[end].kind == Kind::Space || toks[end].surface == ",");
                let next = super::tokens::latin_word(toks, end + 1).0;
                // (a plural before a verb's base form is the subject: "Chip stocks slide",
                // "Feature flags are …", "Time zones will …")
                if verb && toks[end].kind == Kind::Space && PLURAL_SUBJECT_VERBS.contains(&&*next) {
                    h.subject_end = 0;
                    h.verb = Some(end + 1);
                    return h;
                }
                if verb && !written_together(body, &prev, &word, &next) {
                    // (after lower-case nouns the first capital is the sentence's, no name)
                    h.subject_end = if nouns == 0 { j } else { 0 };
                    h.verb = Some(j);
                    return h;
                }
                nouns += 1;
                if nouns > 2 || word.ends_with("ed") || word.ends_with("ing") {
                    return h;
                }
            }
            prev = word;
            if end + 1 < toks.len()
                && toks[end].kind == Kind::Space
                && matches!(toks[end + 1].kind, Kind::Latin | Kind::Number)
            {
                j = end + 1;
            } else {
                return h;
            }
        }
    }
}

/// Whether `body` has the words `a b` side by side (in any case) and not before `next` as
/// in the title: a title's "Heat pumps" is a noun phrase when the text writes "heat pumps" in
/// a sentence of its own ("Installations of heat pumps overtook …"), not when it repeats the
/// headline ("Rust 1.80 stabilizes LazyCell").
fn written_together(body: &str, a: &str, b: &str, next: &str) -> bool {
    if a.is_empty() || body.len() < a.len() + b.len() + 1 {
        return false;
    }
    let lower = body.to_ascii_lowercase();
    let pair = format!("{} {}", a.to_ascii_lowercase(), b);
    let next = format!(" {}", next.to_ascii_lowercase());
    lower.match_indices(&pair).any(|(at, _)| {
        let after = &lower[at + pair.len()..];
        (at == 0 || !lower.as_bytes()[at - 1].is_ascii_alphanumeric())
            && after
                .bytes()
                .next()
                .is_none_or(|c| !c.is_ascii_alphanumeric())
            && !after.starts_with(&next)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lower_case_noun_phrases_of_a_title_count_once() {
        for yes in [
            "chip factory",
            "cloud outage",
            "free-threaded build",
            "Swiss franc",
            "ETF outflows",
        ] {
            assert!(title_noun_phrase(yes), "{yes}");
        }
        for no in [
            "opens antitrust",
            "launches Windows",
            "cloud PC",
            "targeted wallets",
            "Misconfigured DNS",
            "Bitcoin slipped",
        ] {
            assert!(!title_noun_phrase(no), "{no}");
        }
    }

    #[test]
    fn title_case_is_told_from_sentence_case() {
        assert!(title_case(
            "Omicron Crests, but Shots Are Still Keeping Americans Out of Hospitals"
        ));
        assert!(!title_case(
            "Microsoft launches Windows 365, a cloud PC for businesses"
        ));
        assert!(!title_case("Rust 1.80"));
        assert!(!title_case("Next.jsのApp RouterでServer Actionsを使う"));
    }
}
