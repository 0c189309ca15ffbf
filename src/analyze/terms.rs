//! Candidate terms: the words and phrases of a text or an item that may become its 頻出ワード
//! (Japanese compounds, English words, names and recurring phrases, quoted names in titles),
//! and an item analysed once ([`ItemTerms`]) for keywords, summaries and document frequencies.
//! How candidates are weighed and ranked is [`super::rank`]'s.

use super::tokens::{has_upper, latin_word, possessive_at};
use super::*;

/// Whether a token is a currency sign alone ($, ¥, €, £: [`crate::text::currency_before`]).
fn currency_sign(surface: &str) -> bool {
    let mut chars = surface.chars();
    chars
        .next()
        .and_then(crate::text::currency_before)
        .is_some()
        && chars.next().is_none()
}

/// A word or phrase that may become a keyword.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Term {
    /// The matching form: lower case, English words stemmed.
    /// (Inline up to 24 bytes: most terms never touch the heap.)
    pub key: CompactString,
    /// The readable form, as written, when it differs from `key` (see [`Term::display`]).
    pub written: Option<String>,
    /// An English phrase of two words (counts only when it recurs).
    pub phrase: bool,
    /// A lone サ変接続 noun (停止, 改正, 上昇 …) or an English -ed/-ing word: an action more
    /// than a topic, so it ranks lower.
    pub weak: bool,
    /// An English name (capitalised mid-sentence, or an acronym): ranks higher.
    pub proper: bool,
    /// An English phrase that is a whole noun chunk of its sentence: no content word of the
    /// same chunk stands right before or after it ([`Analyzer::chunk_bounded`]).
    pub chunk: bool,
}

impl Analyzer {
    /// Keyword candidates of prepared text, in order, repeats included.
    pub fn terms(&self, prepared: &str) -> Vec<Term> {
        self.analyse_prepared(prepared).0
    }

    /// One tokenisation of prepared text giving its keyword candidates, and its content-word
    /// keys (nouns and Latin words, stemmed: what sentence similarity and search compare) passed
    /// to `content`.
    pub(super) fn scan(
        &self,
        prepared: &str,
        terms: &mut Vec<Term>,
        content: &mut dyn FnMut(&str),
    ) {
        let mut buf = String::new();
        for line in prepared.lines() {
            let toks = self.tokens(line);
            self.line_terms(&toks, None, terms);
            self.content_of(&toks, &mut buf, content);
        }
    }

    /// Candidates and hashed content-word keys ([`term_hash`], sorted) of prepared text.
    pub(crate) fn analyse_prepared(&self, prepared: &str) -> (Vec<Term>, Vec<u64>) {
        let mut terms = Vec::new();
        let mut content = Vec::new();
        self.scan(prepared, &mut terms, &mut |k| content.push(term_hash(k)));
        content.sort_unstable();
        (terms, content)
    }

    /// Analyses an item once: the title's candidates and, per sentence of the text, its
    /// candidates and content words. Keywords, the summary and document frequencies all read it.
    pub fn item_terms<'a>(&self, item: &'a Item) -> ItemTerms<'a> {
        let sents = sentences(&item.text);
        // The prepared sentences, one per line, go through the tokenizer in one call (the
        // line breaks are white space to it, so no word spans two sentences); each token is then
        // given back to its sentence by its offset.
        let mut joined = String::with_capacity(item.title.len() + item.text.len() + sents.len());
        let title = prepare(&item.title);
        joined.push_str(&rank::strip_labels(&title));
        let title_end = joined.len();
        joined.push('\n');
        let mut bounds = Vec::with_capacity(sents.len());
        let mut prepared = Vec::with_capacity(sents.len() + 1);
        prepared.push(title);
        for (n, s) in sents.iter().enumerate() {
            let start = joined.len();
            let s = prepare(s);
            // (a wire story's dateline is where and when, not what: "TOKYO, Feb 11 (…) -")
            joined.push_str(if n == 0 { rank::strip_dateline(&s) } else { &s });
            bounds.push((start, joined.len()));
            joined.push('\n');
            prepared.push(s);
        }
        let toks = self.tokens(&joined);
        let title_len = toks
            .iter()
            .position(|t| t.start >= title_end)
            .unwrap_or(toks.len());
        let mut title = Vec::new();
        let headline = super::headline::Headline::of(
            &toks[..title_len],
            &joined[..title_end],
            &joined[title_end..],
        );
        self.line_terms(&toks[..title_len], Some(&headline), &mut title);
        let verb = headline
            .verb
            .map(|j| self.stem(&latin_word(&toks, j).0.to_lowercase()));
        self.quoted_names(&joined[..title_end], &mut title);
        // A Japanese title's name in 「」, whole, and its occurrences in the text.
        let bracketed = bracketed_names(&joined[..title_end], &title);
        title.extend(bracketed.iter().cloned());
        let mut buf = String::new();
        // (each sentence's candidates and content words are gathered in buffers kept across
        // the sentences, then copied out at their size: no vector grows step by step)
        let (mut terms, mut content) = (Vec::new(), Vec::new());
        let mut rest = &toks[title_len..];
        let sentences = sents
            .into_iter()
            .zip(bounds)
            .map(|(s, (start, end))| {
                let first = rest
                    .iter()
                    .position(|t| t.start >= start)
                    .unwrap_or(rest.len());
                let len = rest[first..]
                    .iter()
                    .position(|t| t.start >= end)
                    .unwrap_or(rest.len() - first);
                let own = &rest[first..first + len];
                rest = &rest[first + len..];
                terms.clear();
                self.line_terms(own, None, &mut terms);
                if s.contains(['\'', '"', '“', '‘']) {
                    self.quoted_names(&joined[start..end], &mut terms);
                }
                for name in &bracketed {
                    let n = joined[start..end].matches(name.display()).count();
                    terms.extend(std::iter::repeat_n(name, n).cloned());
                }
                content.clear();
                self.content_of(own, &mut buf, &mut |k| content.push(term_hash(k)));
                content.sort_unstable();
                let mut own_terms = Vec::with_capacity(terms.len());
                own_terms.append(&mut terms);
                Sentence {
                    text: s,
                    terms: own_terms,
                    content: content.clone(),
                }
            })
            .collect();
        ItemTerms {
            title,
            sentences,
            prepared,
            verb,
            title_case: headline.title_case,
        }
    }

    /// Keyword candidates of one line of tokens; `headline` for a title (see [`Headline`]).
    pub(super) fn line_terms(
        &self,
        toks: &[Tok],
        headline: Option<&super::headline::Headline>,
        out: &mut Vec<Term>,
    ) {
        let title_case = headline.is_some_and(|h| h.title_case);
        let mut i = 0;
        if let Some((s, e)) = rank::hiragana_name(toks) {
            let name: String = toks[s..e].iter().map(|t| t.surface).collect();
            self.push_ja(&name, false, true, out);
            i = e;
        }
        while i < toks.len() {
            let joinable = |k: Kind| {
                matches!(
                    k,
                    Kind::Noun | Kind::Suffix | Kind::Number | Kind::Prefix | Kind::Latin
                )
            };
            if !joinable(toks[i].kind) {
                i += 1;
                continue;
            }
            let start = i;
            loop {
                while i < toks.len() && joinable(toks[i].kind) {
                    i += 1;
                }
                // A name written with a middle dot is one word (ジョン・スミス, コトノハ・ラボ).
                if rank::middle_dot_joins(toks, i) {
                    i += 1;
                    continue;
                }
                break;
            }
            let run = &toks[start..i];
            if run
                .iter()
                .all(|t| matches!(t.kind, Kind::Latin | Kind::Number))
                && run.iter().any(|t| t.kind == Kind::Latin)
            {
                // Latin words (possibly with digits: "Windows 10" is two runs, "5G" one), with
                // dotted parts (Next.js, Node.js).
                let (word, end) = latin_word(toks, start);
                i = end;
                // The tail of a number (7,300mAh, arXiv:2510.11872v1) is no word.
                if start >= 2
                    && matches!(toks[start - 1].surface, "." | ",")
                    && toks[start - 2].kind == Kind::Number
                {
                    continue;
                }
                // An amount after its currency sign ($40M, £4m, €2bn) is no word, nor the start
                // of a phrase ("8M Series"): a decimal one ($12.5M) is a number's tail above.
                if start >= 1
                    && currency_sign(toks[start - 1].surface)
                    && word.starts_with(|c: char| c.is_ascii_digit())
                {
                    continue;
                }
                // A unit after a number (7,300 mAh, 9 GW) is the amount's, no word.
                if start >= 2
                    && toks[start - 1].kind == Kind::Space
                    && toks[start - 2].kind == Kind::Number
                    && rank::unit(&word.to_ascii_lowercase())
                {
                    continue;
                }
                // A capital inside an English sentence marks a name (Rust, Chrome, India); so
                // does one in Japanese text (Rustで, Terraformの), where Latin words are names.
                // A title's subject before its verb is a name too ("Microsoft launches …"),
                // but no capital in a Title Case title tells anything.
                let prev = toks[..start].iter().rev().find(|t| t.kind != Kind::Space);
                let next = toks[i..].iter().find(|t| t.kind != Kind::Space);
                let mid_english_sentence = prev.is_some_and(|t| {
                    t.surface.is_ascii() && !matches!(t.surface, "." | "!" | "?" | ":")
                });
                let japanese = prev.is_some_and(|t| !t.surface.is_ascii())
                    || next.is_some_and(|t| !t.surface.is_ascii());
                let subject = headline.is_some_and(|h| start < h.subject_end);
                let verb = headline.is_some_and(|h| h.is_verb(start));
                // (so does a possessive: "Intel's Panther Lake", "Micron's HBM4 samples")
                let possessive =
                    word.starts_with(|c: char| c.is_ascii_uppercase()) && possessive_at(toks, i);
                let named =
                    !title_case && (mid_english_sentence || japanese || subject || possessive);
                self.english_word(&word, named, verb, out);
                // Phrases: the next one or two Latin words (or a version number after a
                // capitalised word: Windows 365, Python 3.13), each after a single space.
                let next_word = |from: usize| -> Option<(String, usize)> {
                    if from + 1 < toks.len()
                        && toks[from].kind == Kind::Space
                        && matches!(toks[from + 1].kind, Kind::Latin | Kind::Number)
                    {
                        Some(latin_word(toks, from + 1))
                    } else {
                        None
                    }
                };
                // (never across a headline's verb: "Bitcoin drops" is no phrase)
                let verb_at = |t: usize| headline.is_some_and(|h| h.is_verb(t));
                if let Some((second, j)) = next_word(i).filter(|_| !verb_at(i + 1)) {
                    let chunk = self.chunk_bounded(toks, start, j);
                    self.english_phrase(&[&word, &second], named, title_case, chunk, out);
                    if let Some((third, k)) = next_word(j).filter(|_| !verb_at(j + 1)) {
                        let chunk = self.chunk_bounded(toks, start, k);
                        self.english_phrase(
                            &[&word, &second, &third],
                            named,
                            title_case,
                            chunk,
                            out,
                        );
                        // (four words only as a whole noun chunk: "approximate nearest
                        // neighbor index", "known exploited vulnerabilities catalog")
                        if let Some((fourth, l)) = next_word(k).filter(|_| !verb_at(k + 1)) {
                            // (never a name and the verb or the people after it: "Central
                            // Bank lowered", "Bank policymakers")
                            let tail = fourth.ends_with("ed")
                                || fourth.ends_with("ing")
                                || (fourth.ends_with('s')
                                    && fourth.starts_with(|c: char| c.is_ascii_lowercase())
                                    && third.starts_with(|c: char| c.is_ascii_uppercase()));
                            if !tail && self.chunk_bounded(toks, start, l) {
                                self.english_phrase(
                                    &[&word, &second, &third, &fourth],
                                    named,
                                    title_case,
                                    true,
                                    out,
                                );
                            }
                        }
                    }
                }
                if !title_case {
                    self.english_name(&word, i, toks, named, out);
                }
                continue;
            }
            let before = out.len();
            self.japanese_compound(run, out);
            if out.len() == before + 1 && rank::bracketed(toks, start, i) {
                out[before].proper = true;
            }
        }
    }

    /// Whether the words of `toks[start..end]` are a whole noun chunk: the word before and the
    /// word after are no lower-case content words that would continue it (a stop word, a
    /// comparative, an -ed or -ly word, a capitalised word, a number or punctuation ends a
    /// chunk). A chunk after "to" is a verb's ("to generate random invoices"), and one ending
    /// in an -s word before a determiner ends in a verb ("CI fails when …", "growth keeps the").
    pub(super) fn chunk_bounded(&self, toks: &[Tok], start: usize, end: usize) -> bool {
        // (lower-cased only when it has a capital: most words borrow their surface)
        fn word_at<'t>(t: &Tok<'t>) -> Option<Cow<'t, str>> {
            (t.kind == Kind::Latin).then(|| {
                if t.surface.bytes().any(|b| b.is_ascii_uppercase()) {
                    Cow::Owned(t.surface.to_ascii_lowercase())
                } else {
                    Cow::Borrowed(t.surface)
                }
            })
        }
        let breaks = |t: &Tok| {
            word_at(t).is_none_or(|w| {
                t.surface.starts_with(|c: char| c.is_ascii_uppercase())
                    || self.is_stop_en(&w)
                    || super::headline::COMPARATIVES.contains(&&*w)
                    || (!w.contains('-') && (w.ends_with("ed") || w.ends_with("ly")))
            })
        };
        let prev = toks[..start].iter().rev().find(|t| t.kind != Kind::Space);
        let next = toks[end..].iter().find(|t| t.kind != Kind::Space);
        if prev.is_some_and(|t| !breaks(t) || t.surface == "to") || next.is_some_and(|t| !breaks(t))
        {
            return false;
        }
        let last_s = toks[..end]
            .iter()
            .rev()
            .find(|t| t.kind == Kind::Latin)
            .is_some_and(|t| t.surface.ends_with('s') && !t.surface.ends_with("ss"));
        let determiner = next.and_then(word_at).is_some_and(|w| {
            matches!(
                &*w,
                "the"
                    | "a"
                    | "an"
                    | "its"
                    | "their"
                    | "his"
                    | "her"
                    | "our"
                    | "this"
                    | "these"
                    | "those"
                    | "when"
                    | "if"
                    | "more"
                    | "up"
                    | "down"
                    | "out"
            )
        });
        !(last_s && determiner)
    }

    /// A quoted title of a work in a headline ('We Met in Virtual Reality' finds love …): one
    /// name, so its words are not tagged one by one.
    pub(super) fn quoted_names(&self, title: &str, out: &mut Vec<Term>) {
        for (open, close) in [('\'', '\''), ('"', '"'), ('“', '”'), ('‘', '’')] {
            let mut from = 0;
            while let Some(a) = title[from..].find(open).map(|x| x + from) {
                let start = a + open.len_utf8();
                let Some(b) = title[start..].find(close).map(|x| x + start) else {
                    break;
                };
                // A quote opens at a word's start ("'We"), not inside one ("world's").
                if title[..a]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric)
                {
                    from = start;
                    continue;
                }
                from = b + close.len_utf8();
                let inner = &title[start..b];
                let words: Vec<&str> = inner.split(' ').filter(|w| !w.is_empty()).collect();
                let capital = |w: &&str| w.starts_with(|c: char| c.is_ascii_uppercase());
                let content: Vec<&&str> = words
                    .iter()
                    .filter(|w| !self.is_stop_en(&w.to_lowercase()))
                    .collect();
                if words.len() < 2
                    || words.len() > 8
                    || !inner.is_ascii()
                    || !words
                        .iter()
                        .all(|w| w.chars().all(|c| c.is_ascii_alphanumeric()))
                    || !content.iter().all(|w| capital(w))
                    || content.len() < 2
                {
                    continue;
                }
                out.push(Term {
                    key: self.phrase_key(words.iter().map(|w| w.to_lowercase())),
                    written: Some(words.join(" ")),
                    phrase: true,
                    weak: false,
                    proper: true,
                    chunk: false,
                });
            }
        }
    }

    /// A capitalised name longer than a phrase, or with small words between its capitals
    /// (Reserve Bank of Australia, Food and Drug Administration, Apple Watch Series 11),
    /// starting at `first` (the tokens after it from `after`): one name, up to 7 words.
    fn english_name(
        &self,
        first: &str,
        after: usize,
        toks: &[Tok],
        mut named: bool,
        out: &mut Vec<Term>,
    ) {
        let capital = |w: &str| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
                && {
                    let lower = w.to_lowercase();
                    !self.is_stop_en(&lower) && !rank::calendar_or_amount(&lower)
                }
        };
        if !capital(first) {
            return;
        }
        let next_word = |from: usize| -> Option<(String, usize)> {
            (from + 1 < toks.len()
                && toks[from].kind == Kind::Space
                && matches!(toks[from + 1].kind, Kind::Latin | Kind::Number))
            .then(|| latin_word(toks, from + 1))
        };
        let mut words = vec![first.to_string()];
        let mut connectors = 0;
        let mut j = after;
        if rank::person_title(&first.to_lowercase()) {
            return;
        }
        while words.len() < 7 {
            let Some((w, e)) = next_word(j) else { break };
            // (a name ends before a person's title: "Bank of Japan Governor Kazuo Ueda")
            if rank::person_title(&w.to_lowercase()) {
                break;
            }
            if capital(&w) {
                words.push(w);
                j = e;
                continue;
            }
            // A small word stands in a name only between two capitalised words; "and" only
            // after one word and before two (Food and Drug Administration), not in a list
            // (Ivory Coast and Ghana, Apple and AMD).
            let Some((w2, e2)) = next_word(e) else { break };
            // (after "of" or "for", "and" joins the name's last part: Ministry of Internal
            // Affairs and Communications, Centers for Disease Control and Prevention; not a
            // second name with a connector of its own: Bank of England and Bank of Japan)
            let last_part = connectors > 0
                && next_word(e2).is_none_or(|(w3, e3)| {
                    !(rank::NAME_CONNECTORS.contains(&w3.as_str()) || w3 == "for")
                        && (!capital(&w3)
                            || next_word(e3).is_none_or(|(w4, _)| {
                                !(rank::NAME_CONNECTORS.contains(&w4.as_str()) || w4 == "for")
                            }))
                });
            let joins = (rank::NAME_CONNECTORS.contains(&w.as_str())
                || (w == "for" && named && words.len() == 1))
                && capital(&w2)
                && (w != "and"
                    || last_part
                    || (words.len() == 1 && next_word(e2).is_some_and(|(w3, _)| capital(&w3))));
            if !joins {
                break;
            }
            // (of, de … join a name even at a sentence's start: Bank of England cuts …)
            if w != "and" {
                named = true;
            }
            words.push(w);
            words.push(w2);
            connectors += 1;
            j = e2;
        }
        if !((connectors > 0 && (named || words.len() >= 4))
            || (connectors == 0 && words.len() >= 4))
        {
            return;
        }
        out.push(Term {
            key: self.phrase_key(words.iter().map(|w| w.to_lowercase())),
            written: Some(words.join(" ")),
            phrase: true,
            weak: false,
            proper: true,
            chunk: false,
        });
    }

    pub(super) fn english_word(
        &self,
        word: &str,
        mid_sentence: bool,
        verb: bool,
        out: &mut Vec<Term>,
    ) {
        let lower = word.to_lowercase();
        if lower.chars().count() < 2
            || self.is_stop_en(&lower)
            || lower.chars().all(|c| c.is_ascii_digit())
            || rank::calendar_or_amount(&lower)
            || rank::issue_label(word)
            || rank::measure(word)
        {
            return;
        }
        let mut chars = word.chars();
        let first_upper = chars.next().is_some_and(char::is_uppercase);
        // Acronyms and brands (AWS, PyPI) are names anywhere; Capitalised words mid-sentence.
        let inner_upper = chars.any(char::is_uppercase);
        let proper = (inner_upper && lower.len() >= 3)
            || (first_upper
                && mid_sentence
                && !rank::person_title(&lower)
                && !rank::demonym(&lower));
        // Lower-case -ed/-ing words are mostly verbs: like lone サ変 nouns, actions not topics.
        // (a capital that makes no name does not make one: "Misconfigured DNS change …")
        // So are -ly words: adverbs and adjectives ("likely", "finally").
        // A person's title (President, Governor) says who, not what (an acronym, CEO, may be
        // what a Japanese item is about).
        let title = rank::person_title(&lower) && !word.bytes().all(|b| b.is_ascii_uppercase());
        let weak = verb
            || title
            || rank::demonym(&lower)
            || (!proper
                && (lower.ends_with("ed") || lower.ends_with("ing") || lower.ends_with("ly")));
        out.push(Term {
            key: self.with_stem(&lower, |s| CompactString::from(s)),
            written: Some(word.to_string()),
            phrase: false,
            weak,
            proper,
            chunk: false,
        });
    }

    /// A phrase of two or three content words. `mid_sentence`: the first word does not start a
    /// sentence (so its capital means something).
    pub(super) fn english_phrase(
        &self,
        words: &[&str],
        mid_sentence: bool,
        title_case: bool,
        chunk: bool,
        out: &mut Vec<Term>,
    ) {
        let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
        let number = |w: &str| w.chars().all(|c| c.is_ascii_digit() || c == '.');
        // (a brand written with a small first letter and a capital after it is capitalised:
        // iOS 26.1, iPad Air, macOS 26)
        let capital = |w: &str| {
            let mut c = w.chars();
            c.next().is_some_and(|f| {
                f.is_uppercase() || (f.is_ascii_lowercase() && c.any(|x| x.is_ascii_uppercase()))
            })
        };
        // A version number ends a name (Windows 365, Python 3.13, Raspberry Pi 5).
        let last = lower.len() - 1;
        // (a version may be written with a "v": USB4 v2, Kubernetes v1.36.1)
        let version = |w: &str| {
            number(w)
                || (w.len() >= 2
                    && w.starts_with('v')
                    && number(&w[1..])
                    && w.as_bytes()[1].is_ascii_digit())
        };
        let versioned = version(&lower[last]) && capital(words[last - 1]);
        // So does a single capital letter after a capitalised word (ROG Ally X, Plan B).
        let letter = |i: usize| {
            i == last
                && words[i].len() == 1
                && capital(words[i])
                && capital(words[i - 1])
                && !self.is_stop_en(&lower[i])
        };
        // A model number inside a name, before a capitalised word or a model code (Pixel 10
        // Pro, Llama 4 Scout, Ryzen 9 9950X3D).
        let model_number = |i: usize| {
            i > 0
                && i < last
                && number(&lower[i])
                && capital(words[i - 1])
                && (capital(words[i + 1])
                    || (words[i + 1].starts_with(|c: char| c.is_ascii_digit())
                        && words[i + 1].bytes().any(|b| b.is_ascii_uppercase())))
        };
        // So is a single capital letter inside one (Galaxy Z Fold8, S Pen, E Ink).
        let inner_letter = |i: usize| {
            i < last
                && words[i].len() == 1
                && capital(words[i])
                && capital(words[i + 1])
                && (i > 0 || !self.is_stop_en(&lower[i]))
                && (i == 0 || capital(words[i - 1]))
        };
        let content = |i: usize, w: &str| {
            (i == last && (versioned || letter(i)))
                || model_number(i)
                || inner_letter(i)
                || (w.chars().count() >= 2
                    && !self.is_stop_en(w)
                    && !number(w)
                    && !rank::calendar_or_amount(w)
                    && !rank::issue_label(words[i])
                    && !rank::measure(words[i]))
        };
        // (a person's title before a capitalised word is no part of a name: "Governor Kazuo
        // Ueda" is Kazuo Ueda's)
        // (nor one after a name: "ECB President", "Bank of Japan Governor")
        if (0..last).any(|i| rank::person_title(&lower[i]) && capital(words[i + 1]))
            || (rank::person_title(&lower[last]) && capital(words[last - 1]))
        {
            return;
        }
        // (a capitalised -ing word starting a sentence is its verb: "Debugging memory leaks …",
        // "Migrating 4,000 services …")
        if !mid_sentence
            && lower[0].ends_with("ing")
            && !lower[0].contains('-')
            && capital(words[0])
            && !capital(words[1])
        {
            return;
        }
        // "New" starts names (New Zealand, New York) though it is a stop word.
        let new_name = |i: usize| i == 0 && words[0] == "New" && capital(words[1]);
        // A weekday after a capitalised word names a day (Black Friday, Cyber Monday, Patch
        // Tuesday), not a date.
        let day_name = |i: usize| {
            i == 1
                && last == 1
                && capital(words[1])
                && rank::weekday(&lower[1])
                && capital(words[0])
                && content(0, &lower[0])
        };
        if !lower
            .iter()
            .enumerate()
            .all(|(i, w)| content(i, w) || new_name(i) || day_name(i))
        {
            return;
        }
        // Capitalised words make a name (GitHub Copilot, Veridian Semiconductor, 5G SA), unless
        // the first capital is only a sentence's or every word of the title has one.
        let capital_or_digit = |w: &str| capital(w) || w.starts_with(|c: char| c.is_ascii_digit());
        let inner_capital = |w: &str| w.chars().skip(1).any(char::is_uppercase);
        // (outside Title Case, a second capital makes a name even where the first is the
        // sentence's: "Northwind Logistics reported …")
        let verb_form = |w: &str| w.ends_with("ed") || w.ends_with("ing");
        let name = words
            .iter()
            .enumerate()
            .all(|(i, w)| capital_or_digit(w) || (i == last && versioned))
            && (versioned
                || letter(last)
                || mid_sentence
                || inner_capital(words[0])
                || !(title_case || verb_form(&lower[0])));
        out.push(Term {
            key: self.phrase_key(&lower),
            written: Some(words.join(" ")),
            phrase: true,
            weak: false,
            proper: name,
            chunk,
        });
    }

    pub(super) fn japanese_compound(&self, run: &[Tok], out: &mut Vec<Term>) {
        // Two subjects joined by 向け: each is a word of its own.
        if let Some(at) = rank::split_at(run) {
            self.japanese_compound(&run[..at], out);
            self.japanese_compound(&run[at + 1..], out);
            return;
        }
        // Trim what cannot start or end a word (a lone suffix, a number and its counter, a
        // trailing prefix) and the trailing actions and labels (see rank::compound_bounds).
        let (s, e) = rank::compound_bounds(run);
        let run = &run[s..e];
        if !run
            .iter()
            .any(|t| matches!(t.kind, Kind::Noun | Kind::Latin))
        {
            return;
        }
        // Very long runs are lists of nouns, not one word.
        if run.len() > 8 {
            for t in run.iter().filter(|t| t.kind == Kind::Noun) {
                self.push_ja(t.surface, false, t.proper, out);
            }
            return;
        }
        if let [only] = run {
            if !only.stop {
                self.push_ja_word(only.surface, only.sahen, only.proper, out);
            }
        } else {
            let surface: String = run.iter().map(|t| t.surface).collect();
            let name = rank::japanese_name(run, &surface);
            self.push_ja(&surface, false, name, out);
        }
    }

    pub(super) fn push_ja(&self, surface: &str, weak: bool, proper: bool, out: &mut Vec<Term>) {
        if !self.stop_ja.contains(surface) {
            self.push_ja_word(surface, weak, proper, out);
        }
    }

    /// Adds a Japanese term already checked against the stop list.
    pub(super) fn push_ja_word(
        &self,
        surface: &str,
        weak: bool,
        proper: bool,
        out: &mut Vec<Term>,
    ) {
        if surface.chars().nth(1).is_none() {
            return;
        }
        // Most Japanese words have no case: the key is the word, no second copy needed.
        let (key, written) = if has_upper(surface) {
            (surface.to_lowercase().into(), Some(surface.to_string()))
        } else {
            (CompactString::from(surface), None)
        };
        out.push(Term {
            key,
            written,
            phrase: false,
            weak,
            proper,
            chunk: false,
        });
    }

    pub(super) fn content_of(&self, toks: &[Tok], buf: &mut String, emit: &mut dyn FnMut(&str)) {
        for t in toks {
            match t.kind {
                Kind::Noun if !t.stop => {
                    if has_upper(t.surface) {
                        buf.clear();
                        buf.extend(t.surface.chars().flat_map(char::to_lowercase));
                        emit(buf);
                    } else {
                        emit(t.surface);
                    }
                }
                Kind::Latin => {
                    // (a Latin word is ASCII: see classify_with)
                    buf.clear();
                    buf.push_str(t.surface);
                    buf.make_ascii_lowercase();
                    if buf.len() >= 2 && !self.is_stop_en(buf) {
                        self.with_stem(buf, |s| emit(s));
                    }
                }
                _ => {}
            }
        }
    }
}

/// The names a Japanese title writes in 「」 (衛星「みちびき」, 「書かない窓口」, 「MR-5000シリーズ」)
/// that are no candidate of the title already (`title`): each one term, a name, as written. A
/// quotation is no name: its inside is a name only when it is short (2–16 characters), holds no
/// punctuation that ends a clause (、。！？), no percentage or range, does not end in kana after
/// a kanji, katakana or Latin letter (続く, 点検した: a verb's or adjective's ending), holds no
/// case particle between words (を, は, が, に, で, と, も, へ, や) nor a kana ending of more
/// than one character inside it (書かない is let in only at the start), and is not all ASCII
/// (those are the English rules').
fn bracketed_names(title: &str, known: &[Term]) -> Vec<Term> {
    let mut out = Vec::new();
    if !title.chars().any(crate::text::is_japanese) {
        return out;
    }
    let hiragana = |c: char| ('\u{3041}'..='\u{309f}').contains(&c);
    let mut from = 0;
    while let Some(a) = title[from..].find('「').map(|x| x + from) {
        let start = a + '「'.len_utf8();
        let Some(b) = title[start..].find(['」', '「']).map(|x| x + start) else {
            break;
        };
        from = b;
        let inner = title[start..b].trim();
        let chars: Vec<char> = inner.chars().collect();
        let n = chars.iter().filter(|c| **c != ' ').count();
        if !(2..=16).contains(&n)
            || inner.is_ascii()
            || title[b..].starts_with('「')
            || chars
                .iter()
                .any(|c| "、。！？!?%％～〜,，:：「」『』".contains(*c))
            || chars.iter().all(|c| c.is_ascii_digit() || *c == '.')
        {
            continue;
        }
        let all_kana = chars.iter().all(|c| hiragana(*c));
        if !all_kana {
            // (kana runs: where each starts and how long it is)
            let mut runs = Vec::new();
            let mut i = 0;
            while i < chars.len() {
                if hiragana(chars[i]) {
                    let s = i;
                    while i < chars.len() && hiragana(chars[i]) {
                        i += 1;
                    }
                    runs.push((s, i - s));
                } else {
                    i += 1;
                }
            }
            let sentence = runs.iter().any(|&(s, len)| {
                s + len == chars.len()
                    || (s > 0 && (len > 1 || "をはがにでともへや".contains(chars[s])))
                    || (s == 0 && len > 4)
            });
            if sentence {
                continue;
            }
        }
        let key = inner.to_lowercase();
        if known.iter().any(|t| t.key == key.as_str())
            || out.iter().any(|t: &Term| t.key == key.as_str())
        {
            continue;
        }
        out.push(Term {
            written: (key != inner).then(|| inner.to_string()),
            key: key.into(),
            phrase: false,
            weak: false,
            proper: true,
            chunk: false,
        });
    }
    out
}

impl Term {
    /// The readable form, as written.
    pub fn display(&self) -> &str {
        self.written.as_deref().unwrap_or(&self.key)
    }
}

/// An item analysed once (see [`Analyzer::item_terms`]).
#[derive(Debug, Clone)]
pub struct ItemTerms<'a> {
    pub(super) title: Vec<Term>,
    pub(super) sentences: Vec<Sentence<'a>>,
    /// The title and then each sentence, prepared ([`prepare`]) but not stripped of labels or
    /// a dateline: where [`Analyzer::findable`] looks for a keyword, prepared only once.
    pub(super) prepared: Vec<Cow<'a, str>>,
    /// The stem of the title's verb ("falls" of "Dollar index falls to …"): no phrase of the
    /// item holds it.
    pub(super) verb: Option<String>,
    /// The title is in Title Case (its capitals say nothing).
    pub(super) title_case: bool,
}

/// One sentence of an item's text with its candidates and content words.
#[derive(Debug, Clone)]
pub struct Sentence<'a> {
    pub text: &'a str,
    pub terms: Vec<Term>,
    /// Content-word keys, hashed with [`term_hash`], sorted (repeats kept).
    pub content: Vec<u64>,
}

impl ItemTerms<'_> {
    /// The distinct candidate keys of title and text: what document frequencies count.
    pub fn keys(&self) -> FxHashSet<u64> {
        self.title
            .iter()
            .chain(self.sentences.iter().flat_map(|s| s.terms.iter()))
            .map(|t| term_hash(&t.key))
            .chain(self.prepared.first().and_then(|t| title_label_key(t)))
            .collect()
    }
}

/// What may be a title's series label: the words before its colon ("Under the Hood" of "Under
/// the Hood: why our consumers lagged"), at most five.
pub(super) fn title_label(title: &str) -> Option<&str> {
    let (prefix, _) = title.split_once(": ")?;
    let prefix = prefix.trim();
    (!prefix.is_empty() && prefix.split(' ').count() <= 5).then_some(prefix)
}

/// The key a title's series label ([`title_label`], in Latin letters) is counted by, in a
/// namespace of its own (no term key holds U+0001), so that a site's sketch knows how many of
/// its titles open with it whatever candidates its words make.
pub(super) fn title_label_key(title: &str) -> Option<u64> {
    title_label(title)
        .filter(|prefix| prefix.is_ascii())
        .map(|prefix| term_hash(&format!("\u{1}{}", prefix.to_ascii_lowercase())))
}
