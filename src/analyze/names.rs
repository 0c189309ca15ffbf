//! The form a chosen keyword is shown in, read off the item's own text, and the names its
//! bylines give (never keywords):
//! - an English name's short form ("Tarnel") is shown as the full name the text introduces it by
//!   ("Tarnel Airlines … Tarnel said": news writing names a company in full at its first
//!   mention in the text, then shortens it; a headline may use the short form from the start);
//!   (トヨタ自動車 … トヨタ, the same in Japanese);
//! - a Japanese name that lindera cut after its first kana (しおかぜ電鉄 as し + おかぜ電鉄,
//!   とかち牛乳連合 as とかち + 牛乳連合) is shown whole when every occurrence has the same kana
//!   before it and one of them starts a clause (after a label's bracket, a line break, 、 or 。);
//! - a name with an ampersand is one name ("Hollins & Pratt", "Crumb & Co.");
//! - "By Iris Halvorsen, Runway Review" or "Reporting by Hal Morrow" names who wrote the item.

/// A company's legal form after its name ("Kroger Co.", "Voltlane ApS"): the name without it
/// is the one a reader tags.
const LEGAL_FORMS: &[&str] = &[
    "AB", "AG", "ASA", "ApS", "Co", "Corp", "GmbH", "Inc", "LLC", "LP", "Ltd", "NV", "Oyj", "PLC",
    "Plc", "SA", "SE", "SpA",
];

/// Hiragana that are particles standing alone (が, の, は …): kana of this kind before a
/// name are no part of it.
const PARTICLES: &[&str] = &["が", "の", "は", "を", "に", "と", "で", "も", "へ", "や"];

/// Words that may stand inside a byline's name between its capitalised words (Anouk de Vries).
const NAME_PARTICLES: &[&str] = &[
    "de", "van", "von", "der", "den", "da", "del", "la", "le", "bin",
];

/// The byte offsets where `word` stands in `line` as a whole word (no letter, digit, hyphen or
/// apostrophe touching it on either side).
fn word_at<'l>(line: &'l str, word: &'l str) -> impl Iterator<Item = usize> + 'l {
    let touching =
        |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '\'');
    line.match_indices(word)
        .map(|(at, _)| at)
        .filter(move |&at| {
            !touching(line[..at].chars().next_back())
                && !touching(line[at + word.len()..].chars().next())
        })
}

/// A word of Latin letters with a capital first ("Tarnel", "HCM"; not "H200" or "V8", a
/// product's or an engine's own name).
fn capitalised(w: &str) -> bool {
    w.starts_with(|c: char| c.is_ascii_uppercase()) && w.bytes().all(|b| b.is_ascii_alphabetic())
}

/// The full name an English short name stands for: a proper phrase of the item that starts with
/// `display` and its capitalised words (`names`, the item's proper phrases' displays), when the
/// text's first mention of `display` is that phrase. `body` is the item's sentences.
pub(super) fn full_name<'t>(
    display: &str,
    names: impl IntoIterator<Item = &'t str>,
    body: &[impl AsRef<str>],
) -> Option<&'t str> {
    if !capitalised(display) {
        return None;
    }
    let (before, first) = body.iter().find_map(|line| {
        let line = line.as_ref();
        word_at(line, display)
            .next()
            .map(|at| (&line[..at], &line[at..]))
    })?;
    names.into_iter().find(|name| {
        // (a person's surname, first met with the given name: "Andrew Bailey … Bailey said")
        let given = name
            .strip_suffix(display)
            .and_then(|head| head.strip_suffix(' '))
            .filter(|head| {
                capitalised(head)
                    && !super::rank::person_title(&head.to_ascii_lowercase())
                    && before.ends_with(&name[..name.len() - display.len()])
                    && !before[..before.len() - (name.len() - display.len())]
                        .ends_with(|c: char| c.is_alphanumeric())
            });
        if given.is_some() {
            return true;
        }
        name.len() > display.len() + 1
            && name.starts_with(display)
            && name.as_bytes()[display.len()] == b' '
            && name[display.len() + 1..].split(' ').count() <= 3
            && name[display.len() + 1..]
                .split(' ')
                .all(|w| capitalised(w) && !LEGAL_FORMS.contains(&w))
            && first.starts_with(name)
            && !first[name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '\'')
    })
}

/// [`full_name`] for a Japanese name: トヨタ first met as トヨタ自動車, 日経平均 as 日経平均株価
/// (`names`: the item's proper candidates' displays). The rest of the name is at most six
/// characters of kanji, katakana or Latin letters: never kana of a particle or a verb.
pub(super) fn full_name_ja<'t>(
    display: &str,
    names: impl IntoIterator<Item = &'t str>,
    body: &[impl AsRef<str>],
) -> Option<&'t str> {
    let finder = memchr::memmem::Finder::new(display.as_bytes());
    let first = body.iter().find_map(|line| {
        let line = line.as_ref();
        finder.find(line.as_bytes()).map(|at| &line[at..])
    })?;
    names.into_iter().find(|name| {
        name.len() > display.len()
            && name.starts_with(display)
            && first.starts_with(name)
            && name[display.len()..].chars().count() <= 6
            && name[display.len()..]
                .chars()
                .all(|c| !is_hiragana(c) && (crate::text::is_japanese(c) || c.is_alphanumeric()))
            // (a place's ward or a city's 市 narrows where, "鯖江市" of 鯖江; a katakana noun
            // after a term is the thing it names, ミラーレス一眼カメラ: the reader's tag is the
            // shorter)
            && !name[display.len()..].starts_with(['市', '区', '町', '村', '県', '府', '郡', '南', '北', '東', '西'])
            && !name[display.len()..].chars().all(super::rank::is_katakana)
    })
}

/// A firm named by two names and an ampersand, "Hollins & Pratt" or "Crumb & Co.", for one of
/// its names (`display`, a capitalised word) as `lines` write it: the name is the whole.
pub(super) fn ampersand_name<'t>(display: &str, lines: &'t [impl AsRef<str>]) -> Option<&'t str> {
    if !capitalised(display) {
        return None;
    }
    let capital = |w: &str| w.len() > 1 && capitalised(w);
    for line in lines {
        let line = line.as_ref();
        for at in word_at(line, display) {
            let end = at + display.len();
            // (after it: "& Pratt", "& Co." with its dot)
            if let Some(rest) = line[end..].strip_prefix(" & ") {
                let word = rest
                    .split([' ', ',', ';', ':', '\'', '"'])
                    .next()
                    .unwrap_or("");
                let bare = word
                    .strip_suffix('.')
                    .filter(|w| *w == "Co")
                    .unwrap_or(word);
                if capital(bare) {
                    let len = if bare == "Co" && word.ends_with('.') {
                        3
                    } else {
                        bare.len()
                    };
                    return Some(&line[at..end + 3 + len]);
                }
            }
            // (before it: "Hollins &")
            if let Some(head) = line[..at].strip_suffix(" & ") {
                let word = head.rsplit(' ').next().unwrap_or("");
                if capital(word) {
                    return Some(&line[at - 3 - word.len()..end]);
                }
            }
        }
    }
    None
}

fn is_hiragana(c: char) -> bool {
    matches!(c, '\u{3041}'..='\u{309f}')
}

/// A character after which a Japanese clause starts: none (a line's start), white space, a
/// comma, a full stop, an opening bracket or a label's closing one (】《…》＞). Not ） or 」,
/// which a particle follows (「ソノラ」と…).
fn starts_clause(c: Option<char>) -> bool {
    // (not an ASCII space: one after a Latin word is followed by a particle, "FortiOS の…")
    c.is_none_or(|c| {
        c == '\u{3000}'
            || c == '\n'
            || matches!(
                c,
                '、' | '。'
                    | '！'
                    | '？'
                    | '「'
                    | '『'
                    | '（'
                    | '('
                    | '【'
                    | '】'
                    | '《'
                    | '》'
                    | '〈'
                    | '〉'
                    | '＜'
                    | '＞'
                    | '［'
                    | '］'
                    | '['
                    | ']'
                    | '・'
            )
    })
}

/// A Japanese name with the kana lindera left before it: `display` (ending in kanji or katakana)
/// with the hiragana that stands before every one of its occurrences in `lines` (at least two),
/// where one occurrence with no more hiragana before it starts a clause. The name is a slice of
/// that occurrence's line.
pub(super) fn kana_name<'t>(display: &str, lines: &'t [impl AsRef<str>]) -> Option<&'t str> {
    let last = display.chars().next_back()?;
    if display.is_ascii()
        || !(('\u{4e00}'..='\u{9fff}').contains(&last) || super::rank::is_katakana(last))
    {
        return None;
    }
    // (the hiragana before each occurrence, at most six characters and one more to tell a
    // longer run: `common`, the run all occurrences end with so far; `bounded`, the name at the
    // first occurrence whose run starts a clause)
    const MOST: usize = 6;
    let mut common: Option<&str> = None;
    let mut bounded: Option<&'t str> = None;
    let mut seen = 0;
    // (a Japanese text's every other byte may be the display's first: a searcher built once,
    // not a scan for that byte)
    let finder = memchr::memmem::Finder::new(display.as_bytes());
    for line in lines {
        let line = line.as_ref();
        for at in finder.find_iter(line.as_bytes()) {
            seen += 1;
            let run: usize = line[..at]
                .chars()
                .rev()
                .take_while(|&c| is_hiragana(c))
                .take(MOST + 1)
                .map(char::len_utf8)
                .sum();
            let before = &line[at - run..at];
            let shared = common.map_or(before, |c| common_suffix(c, before));
            // (once no kana are common to all, none can be added to the name)
            if shared.is_empty() {
                return None;
            }
            common = Some(shared);
            if bounded.is_none()
                && before.chars().count() <= MOST
                && starts_clause(line[..at - run].chars().next_back())
            {
                bounded = Some(&line[at - run..at + display.len()]);
            }
        }
    }
    let name = bounded?;
    let kana = &name[..name.len() - display.len()];
    // (every occurrence has the whole run the clause-starting one has)
    (seen >= 2 && common.is_some_and(|c| c.len() == kana.len()) && !PARTICLES.contains(&kana))
        .then_some(name)
}

/// The longest end `a` and `b` share, as a slice of `b`.
fn common_suffix<'b>(a: &str, b: &'b str) -> &'b str {
    let shared: usize = a
        .chars()
        .rev()
        .zip(b.chars().rev())
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x.len_utf8())
        .sum();
    &b[b.len() - shared..]
}

/// The names an item's bylines give: a sentence of `body` that opens with "By" and a name
/// ("By Iris Halvorsen, Runway Review"), or a name after "Reporting by", "Written by", "Words
/// by" or "Edited by" anywhere.
pub(super) fn bylines(body: &[impl AsRef<str>]) -> Vec<&str> {
    let mut names = Vec::new();
    for line in body {
        let line = line.as_ref().trim_start();
        // (most lines hold no byline: one look for "by " first)
        if !line.starts_with("By ") && super::find_short(line, "by ").is_none() {
            continue;
        }
        let mut starts: Vec<usize> = Vec::new();
        if let Some(rest) = line
            .strip_prefix("By ")
            .or_else(|| line.strip_prefix("by "))
        {
            starts.push(line.len() - rest.len());
        }
        for lead in ["Reporting by ", "Written by ", "Words by ", "Edited by "] {
            starts.extend(line.match_indices(lead).map(|(at, _)| at + lead.len()));
        }
        for start in starts {
            let rest = &line[start..];
            let mut end = 0;
            let mut words = 0;
            for w in rest.split(' ') {
                let bare = w.trim_end_matches([',', '.', '|', ';', ':']);
                let capital = bare.starts_with(|c: char| c.is_uppercase())
                    && bare
                        .chars()
                        .all(|c| c.is_alphabetic() || c == '-' || c == '.');
                if !(capital || (words > 0 && NAME_PARTICLES.contains(&bare))) || words == 4 {
                    break;
                }
                words += 1;
                end = start + (w.as_ptr() as usize - rest.as_ptr() as usize) + bare.len();
                if bare.len() < w.len() {
                    break;
                }
            }
            // (a name is two words at least, and does not end in a particle)
            let name = &line[start..end.max(start)];
            if words >= 2
                && name
                    .rsplit(' ')
                    .next()
                    .is_some_and(|w| !NAME_PARTICLES.contains(&w))
            {
                // (a short byline goes on with the writer's role or the outlet: "By Hana
                // Lindgren, Software Engineer")
                let tail = line[end..].strip_prefix(", ").map(|t| {
                    t.split(['·', '|', '—', '('])
                        .next()
                        .unwrap_or(t)
                        .trim_end()
                        .trim_end_matches('.')
                });
                match tail {
                    Some(t)
                        if start == 3
                            && line[..3].eq_ignore_ascii_case("by ")
                            && t.split(' ').count() <= 4 =>
                    {
                        names.push(&line[start..end + 2 + t.len()]);
                    }
                    _ => names.push(name),
                }
            }
        }
    }
    names
}

/// Whether `word` stands in `name` as a whole word.
pub(super) fn has_word(name: &str, word: &str) -> bool {
    word_at(name, word).next().is_some()
}

/// Whether `display` is a byline's name or a word of one.
pub(super) fn in_byline(display: &str, bylines: &[&str]) -> bool {
    bylines
        .iter()
        .any(|name| *name == display || word_at(name, display).next().is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_name_is_shown_as_the_full_name_of_its_first_mention() {
        let body = ["Tarnel Airlines will lease four jets.", "Tarnel said so."];
        assert_eq!(
            full_name("Tarnel", ["Pacific Routes", "Tarnel Airlines"], &body),
            Some("Tarnel Airlines")
        );
        // (first mentioned alone: the short form is the name the text uses)
        let body = ["Tarnel said so.", "Tarnel Airlines will lease four jets."];
        assert_eq!(full_name("Tarnel", ["Tarnel Airlines"], &body), None);
        // (a version or a number is no part of a company's name)
        let body = ["Nvidia H200 chips sold out.", "Nvidia said so."];
        assert_eq!(full_name("Nvidia", ["Nvidia H200"], &body), None);
        // (a surname first met with its given name; not a title before it)
        let body = [
            "Governor Andrew Bailey spoke.",
            "Bailey said rates would fall.",
        ];
        assert_eq!(
            full_name("Bailey", ["Governor Andrew", "Andrew Bailey"], &body),
            Some("Andrew Bailey")
        );
        let body = ["Governor Bailey spoke.", "Bailey said rates would fall."];
        assert_eq!(full_name("Bailey", ["Governor Bailey"], &body), None);
    }

    #[test]
    fn a_japanese_short_name_is_shown_as_the_full_name_of_its_first_mention() {
        let body = [
            "トヨタ自動車は3日、発表した。",
            "トヨタの北米生産は年130万台。",
        ];
        assert_eq!(
            full_name_ja("トヨタ", ["北米生産", "トヨタ自動車"], &body),
            Some("トヨタ自動車")
        );
        let body = [
            "トヨタは3日、発表した。",
            "トヨタ自動車の北米生産は年130万台。",
        ];
        assert_eq!(full_name_ja("トヨタ", ["トヨタ自動車"], &body), None);
        // (kana after the name are a particle's or a verb's)
        let body = ["トヨタのEVは売れた。"];
        assert_eq!(full_name_ja("トヨタ", ["トヨタのEV"], &body), None);
        // (nor is a city's 市 or a generic katakana noun)
        let body = ["鯖江市の眼鏡は売れた。"];
        assert_eq!(full_name_ja("鯖江", ["鯖江市"], &body), None);
        let body = ["ミラーレス一眼カメラを発売した。"];
        assert_eq!(
            full_name_ja("ミラーレス一眼", ["ミラーレス一眼カメラ"], &body),
            None
        );
    }

    #[test]
    fn a_name_with_an_ampersand_is_one_name() {
        let lines = ["Hollins & Pratt to close 38 stores", "Pratt said so."];
        assert_eq!(ampersand_name("Pratt", &lines), Some("Hollins & Pratt"));
        assert_eq!(ampersand_name("Hollins", &lines), Some("Hollins & Pratt"));
        let lines = ["Brightwell to buy Crumb & Co. for $3.2 billion"];
        assert_eq!(ampersand_name("Crumb", &lines), Some("Crumb & Co."));
        let lines = ["Sales rose in Texas & elsewhere."];
        assert_eq!(ampersand_name("Texas", &lines), None);
    }

    #[test]
    fn kana_before_every_occurrence_of_a_name_belong_to_it() {
        let lines = [
            "《鉄道》しおかぜ電鉄、全駅で対応",
            "しおかぜ電鉄は2日、発表した。",
        ];
        assert_eq!(kana_name("おかぜ電鉄", &lines), Some("しおかぜ電鉄"));
        // (a particle after a closing parenthesis is no part of the name)
        let lines = ["A銀行とあかね銀行が統合", "A銀行（岐阜市）とあかね銀行は"];
        assert_eq!(kana_name("あかね銀行", &lines), None);
        // (the kana differ: the part after them is the name)
        let lines = [
            "【速報】のぞみ電鉄が値上げ",
            "こだま電鉄は据え置き、のぞみ電鉄は上げる",
        ];
        assert_eq!(kana_name("電鉄", &lines), None);
        // (once is no evidence)
        assert_eq!(
            kana_name("おかぜ電鉄", &["《鉄道》しおかぜ電鉄、全駅で対応"]),
            None
        );
    }

    #[test]
    fn bylines_name_their_writers_and_nothing_else() {
        let body = [
            "By Iris Halvorsen, Runway Review",
            "By Hana Lind, Software Engineer · 6 min read",
            "The deal was led by Orla Airlines and Tarnel Group.",
            "Reporting by Anouk de Vries; editing by Hal Morrow.",
            "By Friday, shares had doubled.",
        ];
        assert_eq!(
            bylines(&body),
            vec![
                "Iris Halvorsen, Runway Review",
                "Hana Lind, Software Engineer",
                "Anouk de Vries"
            ]
        );
        assert!(in_byline("Runway Review", &bylines(&body)));
        assert!(in_byline("Halvorsen", &bylines(&body)));
        assert!(!in_byline("Orla Airlines", &bylines(&body)));
    }
}
