//! Normalisation and tokenising: text prepared for analysis (NFKC, URLs removed, white space
//! folded), lindera's tokens classified into the kinds words are made of, English stems and stop
//! words, and the tokens of the full-text index ([`Analyzer::search_tokens`]). Which tokens make
//! a keyword candidate is [`super::terms`]'s.

use super::*;
use lindera::mode::Mode;
use lindera_dictionary::viterbi::{Lattice, LatticeOptions, WordId};

/// How a token takes part in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// 名詞 一般, 固有名詞, サ変接続, 形容動詞語幹: heads of compounds.
    Noun,
    /// 名詞 接尾 (化, 率, 局 …): only inside a compound.
    Suffix,
    /// 名詞 数.
    Number,
    /// 接頭詞 名詞接続 (新, 各 …): only at the start of a compound.
    Prefix,
    /// A word of Latin letters (and digits).
    Latin,
    /// White space between words.
    Space,
    /// Anything else: particles, verbs, symbols, 非自立 and 代名詞 nouns.
    Break,
}

/// A token, borrowing its surface from the analysed line.
#[derive(Debug, Clone)]
pub(super) struct Tok<'a> {
    pub(super) surface: &'a str,
    /// Byte offset of the surface in the line.
    pub(super) start: usize,
    pub(super) kind: Kind,
    /// 名詞 サ変接続.
    pub(super) sahen: bool,
    /// On the Japanese stop list.
    pub(super) stop: bool,
    /// 名詞 固有名詞 (組織, 人名, 地域, 一般).
    pub(super) proper: bool,
}

/// Text ready for analysis: NFKC (full-width Latin and digits to ASCII, half-width katakana to
/// full-width), URLs removed, white space folded.
pub fn prepare(text: &str) -> Cow<'_, str> {
    let mut s = nfkc(text);
    // (every sentence is prepared: see find_short)
    if find_short(&s, "http").is_some() {
        let mut out = String::with_capacity(s.len());
        for (i, word) in s.split(' ').enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&strip_urls(word));
        }
        s = Cow::Owned(out);
    }
    if crate::text::is_folded(&s) {
        s
    } else {
        Cow::Owned(crate::text::fold_whitespace(&s))
    }
}

/// NFKC, with a fast path for what Japanese news text is made of: ASCII, kana, kanji and CJK
/// punctuation are already NFKC; full-width ASCII and the ideographic space map one to one.
/// Anything else (half-width kana, compatibility symbols …) goes through the full algorithm.
pub(super) fn nfkc(text: &str) -> Cow<'_, str> {
    use unicode_normalization::{IsNormalized, is_nfkc_quick};
    let stable = |c: char| {
        c.is_ascii()
            || matches!(c,
                '\u{3001}'..='\u{3003}' | '\u{3005}'..='\u{3007}' | '\u{300c}'..='\u{3011}'
                | '\u{3041}'..='\u{3096}' | '\u{30a1}'..='\u{30fa}' | '\u{30fc}'..='\u{30fe}'
                | '\u{4e00}'..='\u{9fff}')
    };
    let mapped = |c: char| match c {
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0),
        '\u{3000}' => Some(' '),
        _ => None,
    };
    if text.chars().all(stable) {
        return Cow::Borrowed(text);
    }
    if text.chars().all(|c| stable(c) || mapped(c).is_some()) {
        return Cow::Owned(text.chars().map(|c| mapped(c).unwrap_or(c)).collect());
    }
    if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.nfkc().collect())
}

pub(super) fn strip_urls(word: &str) -> Cow<'_, str> {
    let Some(pos) = word.find("http://").or_else(|| word.find("https://")) else {
        return Cow::Borrowed(word);
    };
    // A URL runs to the next character that cannot be in one (e.g. Japanese text after it).
    let rest = &word[pos..];
    let end = rest
        .find(|c: char| !(c.is_ascii_graphic()) || c == '"' || c == '<' || c == '>')
        .unwrap_or(rest.len());
    let mut s = String::with_capacity(word.len());
    s.push_str(&word[..pos]);
    s.push(' ');
    s.push_str(&strip_urls(&rest[end..]));
    Cow::Owned(s)
}

impl Analyzer {
    pub(super) fn tokens<'a>(&self, text: &'a str) -> Vec<Tok<'a>> {
        self.tokens_in(text, false)
    }

    /// Tokens in lindera's normal mode, or in decompose mode (long kanji words split into
    /// their parts: 日本銀行 → 日本 + 銀行), which search uses so a part finds the whole.
    pub(super) fn tokens_in<'a>(&self, text: &'a str, decompose: bool) -> Vec<Tok<'a>> {
        thread_local! {
            static NORMAL: std::cell::RefCell<Segmenting> = std::cell::RefCell::default();
            static DECOMPOSE: std::cell::RefCell<Segmenting> = std::cell::RefCell::default();
        }
        let slot = if decompose { &DECOMPOSE } else { &NORMAL };
        slot.with(|seg| {
            let seg = &mut *seg.borrow_mut();
            let mode = if decompose {
                Mode::Decompose(lindera::mode::Penalty::default())
            } else {
                Mode::Normal
            };
            self.segment(text, &mode, seg);
            // (every token's part of speech first, in a loop of its own: the per-word table is
            // large, and independent look-ups overlap their cache misses)
            seg.parts.clear();
            seg.parts.extend(
                seg.words
                    .iter()
                    .map(|&(start, end, word)| self.pos_kind(word, &text[start..end])),
            );
            let tokens = seg.words.iter().zip(&seg.parts);
            let mut out = Vec::with_capacity(seg.words.len() * 2);
            let mut end = 0;
            for (&(start, token_end, _), &(pos_kind, sahen, stop, proper)) in tokens {
                // lindera drops white space: a gap between tokens is a word boundary.
                if start > end {
                    out.push(Tok {
                        surface: " ",
                        start: end,
                        kind: Kind::Space,
                        sahen: false,
                        stop: false,
                        proper: false,
                    });
                }
                end = token_end;
                let surface = &text[start..end];
                let kind = classify_with(surface, pos_kind);
                // Hyphenated Latin words stay one word: zero-day, right-to-repair. So, for
                // keywords (the search index keeps its parts), do a name with a digit and the
                // word after its hyphen (S3-compatible) and identifiers joined by underscores
                // (sched_ext, pg_dump, io_uring). (A bare number's hyphen is a measure's:
                // 18-core, 20-minute.)
                let n = out.len();
                let touching = |a: &Tok, b_start: usize| a.start + a.surface.len() == b_start;
                let joined = n >= 2
                    && touching(&out[n - 1], start)
                    && touching(&out[n - 2], out[n - 1].start)
                    && match (out[n - 1].surface, out[n - 2].kind, kind) {
                        ("-", Kind::Latin, Kind::Latin) => true,
                        ("-", Kind::Number, Kind::Latin) => {
                            !decompose
                                && n >= 3
                                && out[n - 3].kind == Kind::Latin
                                && touching(&out[n - 3], out[n - 2].start)
                        }
                        ("_", Kind::Latin | Kind::Number, Kind::Latin | Kind::Number) => !decompose,
                        _ => false,
                    };
                if joined {
                    out.pop();
                    let prev = out.last_mut().expect("checked");
                    prev.surface = &text[prev.start..end];
                    prev.kind = Kind::Latin;
                    continue;
                }
                out.push(Tok {
                    surface,
                    start,
                    kind,
                    sahen,
                    stop,
                    proper,
                });
            }
            out
        })
    }

    /// lindera's best path over `text` in `mode`, into `seg.words`: what
    /// `Segmenter::segment_with_buffers` gives (the text cut after each line break, tab, 。 and
    /// 、 and each stretch segmented on its own; tokens of white space dropped), without a
    /// `Token` built for each word, on a lattice kept per thread.
    fn segment(&self, text: &str, mode: &Mode, seg: &mut Segmenting) {
        let d = &self.segmenter.dictionary;
        // (lindera's defaults, as `Segmenter::new` sets them for IPADIC: unbounded grouping of
        // unknown words, the length ladder on, no left-space penalty)
        let options = LatticeOptions::new(mode);
        seg.words.clear();
        let mut start = 0;
        while start < text.len() {
            let end = stretch_end(text, start);
            let stretch = &text[start..end];
            seg.lattice.set_text_with_options(
                &d.prefix_dictionary,
                &None,
                &d.character_definition,
                &d.unknown_dictionary,
                &d.connection_cost_matrix,
                stretch,
                &options,
            );
            seg.lattice.tokens_offset_into(&mut seg.offsets);
            for (i, &(from, word)) in seg.offsets.iter().enumerate() {
                let to = seg.offsets.get(i + 1).map_or(stretch.len(), |next| next.0);
                if !self.is_space(&stretch[from..to]) {
                    seg.words.push((start + from, start + to, word));
                }
            }
            start = end;
        }
    }

    /// Whether lindera drops a token as white space: all its characters are of the
    /// dictionary's SPACE category.
    fn is_space(&self, surface: &str) -> bool {
        let Some((space, ascii)) = &self.space else {
            return false;
        };
        surface.chars().all(|c| {
            if (c as u32) < 256 {
                ascii[c as usize]
            } else {
                self.segmenter
                    .dictionary
                    .character_definition
                    .lookup_categories(c)
                    .contains(space)
            }
        })
    }

    /// The part-of-speech kind of a token, whether it is サ変接続, whether it is a stop word and
    /// whether it is a 固有名詞, cached per word id: a system word's surface is fixed, and an
    /// unknown word's part of speech is its unknown-dictionary entry's (only its stop-list test
    /// is per surface). The parts of speech are read from the dictionary's bytes, not through
    /// `Token::details`, which allocates the token's whole field list.
    pub(super) fn pos_kind(&self, word: WordId, surface: &str) -> (Kind, bool, bool, bool) {
        use std::sync::atomic::{AtomicU8, Ordering};
        static CACHE: OnceLock<Box<[AtomicU8]>> = OnceLock::new();
        static UNKNOWN: OnceLock<Box<[AtomicU8]>> = OnceLock::new();
        let dictionary = &self.segmenter.dictionary;
        let id = word.id() as usize;
        let pos_of = |mut details: lindera_dictionary::dictionary::DetailFields| {
            let pos = details.next().unwrap_or("");
            let sub1 = details.next().unwrap_or("");
            let kind = match (pos, sub1) {
                ("名詞", "一般" | "固有名詞" | "サ変接続" | "形容動詞語幹") => {
                    Kind::Noun
                }
                ("名詞", "接尾") => Kind::Suffix,
                ("名詞", "数") => Kind::Number,
                ("接頭詞", "名詞接続") => Kind::Prefix,
                _ => Kind::Break,
            };
            (kind, sub1 == "サ変接続", sub1 == "固有名詞")
        };
        // (the list holds no ASCII word: a Latin word, most unknown words, is not looked up)
        let stop = || !surface.is_ascii() && self.stop_ja.contains(surface);
        // Bits: kind index + 1 (low 3), 0x08 固有名詞, 0x40 stop word, 0x80 サ変接続; 0 means
        // not seen yet.
        let encode = |kind: Kind, sahen: bool, stop: bool, proper: bool| {
            let idx = KINDS.iter().position(|k| *k == kind).expect("listed") as u8 + 1;
            idx | if sahen { 0x80 } else { 0 }
                | if stop { 0x40 } else { 0 }
                | if proper { 0x08 } else { 0 }
        };
        let decode = |v: u8| {
            (
                KINDS[(v & 0x07) as usize - 1],
                v & 0x80 != 0,
                v & 0x40 != 0,
                v & 0x08 != 0,
            )
        };
        let unknown = word.is_unknown();
        let details = || {
            if unknown {
                dictionary.unknown_word_details_iter(id)
            } else {
                dictionary.word_details_iter(id)
            }
        };
        let cache = if unknown {
            UNKNOWN.get_or_init(|| {
                (0..dictionary.unknown_dictionary.costs.len())
                    .map(|_| AtomicU8::new(0))
                    .collect()
            })
        } else if word.is_system() {
            CACHE.get_or_init(|| {
                (0..dictionary.prefix_dictionary.word_count())
                    .map(|_| AtomicU8::new(0))
                    .collect()
            })
        } else {
            // (no user dictionary is loaded; its words would have no fixed entry here)
            let (kind, sahen, proper) = pos_of(lindera_dictionary::dictionary::DetailFields::unk());
            return (kind, sahen, stop(), proper);
        };
        let Some(slot) = cache.get(id) else {
            let (kind, sahen, proper) = pos_of(details());
            return (kind, sahen, stop(), proper);
        };
        let v = slot.load(Ordering::Relaxed);
        if v != 0 {
            let (kind, sahen, cached_stop, proper) = decode(v);
            let stop = if unknown { stop() } else { cached_stop };
            return (kind, sahen, stop, proper);
        }
        let (kind, sahen, proper) = pos_of(details());
        let stop = stop();
        // (an unknown word's stop bit is never stored: it is its surface's)
        slot.store(
            encode(kind, sahen, stop && !unknown, proper),
            Ordering::Relaxed,
        );
        (kind, sahen, stop, proper)
    }

    /// Stems a lower-case English word for matching.
    pub fn stem(&self, lower: &str) -> String {
        self.with_stem(lower, str::to_string)
    }

    /// `f` of the stem of a lower-case English word, lent from the per-thread cache (most
    /// words recur: no copy of it is made). `f` must not stem.
    pub(super) fn with_stem<R>(&self, lower: &str, f: impl FnOnce(&str) -> R) -> R {
        thread_local! {
            static STEMS: std::cell::RefCell<FxHashMap<String, String>> =
                std::cell::RefCell::new(FxHashMap::default());
        }
        STEMS.with(|c| {
            let mut c = c.borrow_mut();
            if let Some(s) = c.get(lower) {
                return f(s);
            }
            let s = self.stemmer.stem(lower).into_owned();
            if c.len() > 100_000 {
                c.clear();
            }
            let r = f(&s);
            c.insert(lower.to_string(), s);
            r
        })
    }

    /// The key of an English phrase: its lower-case words' stems, joined by spaces.
    pub(super) fn phrase_key(
        &self,
        lower: impl IntoIterator<Item = impl AsRef<str>>,
    ) -> CompactString {
        let mut key = CompactString::default();
        for (i, w) in lower.into_iter().enumerate() {
            if i > 0 {
                key.push(' ');
            }
            self.with_stem(w.as_ref(), |s| key.push_str(s));
        }
        key
    }

    pub(super) fn is_stop_en(&self, lower: &str) -> bool {
        self.stop_en.contains(lower)
    }

    /// Whether search finds a Japanese keyword where the item has it: lindera may cut a word
    /// differently alone than in its sentence (オーバーツーリズム alone is オー + バーツーリズム),
    /// and a keyword must be a phrase of the index's tokens. Only the keyword and the stretch of
    /// the line around it are analysed again, in search's decompose mode.
    pub(super) fn findable(&self, keyword: &str, analysed: &ItemTerms) -> bool {
        // (a keyword's own tokens are the same in every item, and most keywords recur across
        // items: kept per thread, so only the line's stretch is segmented again)
        thread_local! {
            static QUERIES: std::cell::RefCell<FxHashMap<String, std::rc::Rc<[SearchToken]>>> =
                std::cell::RefCell::new(FxHashMap::default());
        }
        let query = match QUERIES.with(|q| q.borrow().get(keyword).cloned()) {
            Some(hit) => hit,
            None => {
                let query: std::rc::Rc<[SearchToken]> = self.search_tokens(keyword).into();
                QUERIES.with(|q| {
                    let mut q = q.borrow_mut();
                    if q.len() > 10_000 {
                        q.clear();
                    }
                    q.insert(keyword.to_string(), query.clone());
                });
                query
            }
        };
        if query.is_empty() {
            return false;
        }
        // (the title, then the sentences, as item_terms prepared them)
        for line in &analysed.prepared {
            let Some(at) = find_short(line, keyword) else {
                continue;
            };
            // (ten characters either side hold the context lindera's choice depends on)
            let from = line[..at].char_indices().rev().nth(9).map_or(0, |(i, _)| i);
            let end = at + keyword.len();
            let to = line[end..]
                .char_indices()
                .nth(10)
                .map_or(line.len(), |(i, _)| end + i);
            let window = &line[from..to];
            // lindera cuts its input after each 、, 。, tab and line break and segments each
            // stretch on its own, so the stretch that holds the keyword has the same tokens
            // alone as in the window: a match there is a match in the window. (Only when it
            // misses, a match across stretches is looked for in the whole window.)
            let (a, b) = (at - from, end - from);
            if !keyword.contains(is_lindera_cut) {
                let start = window[..a].rfind(is_lindera_cut).map_or(0, |i| {
                    i + window[i..].chars().next().map_or(1, char::len_utf8)
                });
                let stop = window[b..].find(is_lindera_cut).map_or(window.len(), |i| {
                    b + i + window[b + i..].chars().next().map_or(1, char::len_utf8)
                });
                if (start, stop) != (0, window.len())
                    && phrase_in(&self.search_words(&window[start..stop]), &query)
                {
                    return true;
                }
            }
            return phrase_in(&self.search_words(window), &query);
        }
        true
    }

    /// Tokens for the full-text index (and for queries against it): every noun part, number
    /// and (stemmed, lower-cased) Latin word of prepared text, each with its position in the
    /// whole token sequence — particles, verbs, symbols and English stop words are skipped but still
    /// count, so a phrase matches only words that really stand together. Compounds are not
    /// tokens of their own, and long dictionary words are decomposed (lindera's decompose mode):
    /// 日本銀行 is 日本 + 銀行 at adjacent positions, which a phrase query finds, and 銀行 alone
    /// finds too. Byte offsets are into `prepared`.
    pub fn search_tokens(&self, prepared: &str) -> Vec<SearchToken> {
        self.search_words(prepared)
            .into_iter()
            .map(|w| SearchToken {
                text: w.text.into_owned(),
                position: w.position,
                start: w.start,
                end: w.end,
            })
            .collect()
    }

    /// [`Analyzer::search_tokens`] with each text borrowed from `prepared` where it is the
    /// surface: what [`Analyzer::findable`] compares, without a copy of each word.
    fn search_words<'t>(&self, prepared: &'t str) -> Vec<SearchWord<'t>> {
        let toks = self.tokens_in(prepared, true);
        let mut out = Vec::with_capacity(toks.len());
        for (position, t) in toks.iter().enumerate() {
            let text = match t.kind {
                // Every noun, even those 頻出ワード leaves out (日本, 会社): a reader may search them.
                Kind::Noun | Kind::Suffix | Kind::Prefix | Kind::Number => {
                    if has_upper(t.surface) {
                        Cow::Owned(t.surface.to_lowercase())
                    } else {
                        Cow::Borrowed(t.surface)
                    }
                }
                Kind::Latin => {
                    let lower = t.surface.to_lowercase();
                    if self.is_stop_en(&lower) {
                        continue;
                    }
                    Cow::Owned(self.stem(&lower))
                }
                _ => continue,
            };
            out.push(SearchWord {
                text,
                position,
                start: t.start,
                end: t.start + t.surface.len(),
            });
        }
        out
    }
}

/// Whether lindera ends a stretch of its input after `c` (it segments each stretch on its own).
fn is_lindera_cut(c: char) -> bool {
    matches!(c, '\n' | '\t' | '。' | '、')
}

/// Where lindera's stretch starting at byte `start` ends (`find_sentence_end` in its
/// segmenter): after the first line break, tab, 。 or 、, or at the first character boundary
/// [`MAX_STRETCH_BYTES`] on, or at the text's end.
fn stretch_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut limit = (start + MAX_STRETCH_BYTES).min(bytes.len());
    while !text.is_char_boundary(limit) {
        limit += 1;
    }
    let mut from = start;
    // (。 is E3 80 82 and 、 E3 80 81: their middle byte is rare in Japanese text, unlike the
    // lead byte every kana shares)
    while let Some(i) = memchr::memchr3(b'\n', b'\t', 0x80, &bytes[from..limit]) {
        let at = from + i;
        if bytes[at] != 0x80 {
            return at + 1;
        }
        if at > start && bytes[at - 1] == 0xe3 && matches!(bytes.get(at + 1), Some(0x81 | 0x82)) {
            return at + 2;
        }
        from = at + 1;
    }
    limit
}

/// lindera's cap on a stretch without a cut (its segmenter's `MAX_SENTENCE_BYTES`).
const MAX_STRETCH_BYTES: usize = 32 * 1024;

/// A thread's lindera lattice and buffers for one mode (see [`Analyzer::segment`]).
#[derive(Default)]
pub(super) struct Segmenting {
    lattice: Lattice,
    offsets: Vec<(usize, WordId)>,
    /// Each word's byte range in the text and its id.
    words: Vec<(usize, usize, WordId)>,
    parts: Vec<(Kind, bool, bool, bool)>,
}

/// Whether the tokens at `at` are a possessive's apostrophe and "s" (Intel's, Bank’s).
pub(super) fn possessive_at(toks: &[Tok], at: usize) -> bool {
    toks.get(at)
        .is_some_and(|t| matches!(t.surface, "'" | "\u{2019}"))
        && toks.get(at + 1).is_some_and(|t| t.surface == "s")
}

/// The Latin word starting at token `start` (letters and digits, with dotted parts: Next.js,
/// Node.js, 3.13; a number after a hyphen: Chandrayaan-4, GPT-5, us-east-1; plus signs: C++,
/// OPEC+, N+1; a slash between names: JPCERT/CC) and the index of the token after it.
pub(super) fn latin_word(toks: &[Tok], start: usize) -> (String, usize) {
    let mut word = String::new();
    let mut j = start;
    loop {
        while j < toks.len() && matches!(toks[j].kind, Kind::Latin | Kind::Number) {
            word.push_str(toks[j].surface);
            j += 1;
        }
        let Some(joiner) = toks.get(j).filter(|_| !word.is_empty()) else {
            return (word, j);
        };
        let next = toks.get(j + 1).map(|t| t.kind);
        match joiner.surface {
            "." if matches!(next, Some(Kind::Latin | Kind::Number)) => {}
            "-" if next == Some(Kind::Number) => {}
            // (names joined by a slash, one side with a capital: JPCERT/CC, TCP/IP, CI/CD)
            "/" if next == Some(Kind::Latin)
                && (has_upper(&word) || toks.get(j + 1).is_some_and(|t| has_upper(t.surface))) => {}
            "+" | "++" => {
                word.push_str(joiner.surface);
                j += 1;
                if next == Some(Kind::Number) {
                    continue;
                }
                return (word, j);
            }
            _ => return (word, j),
        }
        word.push_str(joiner.surface);
        j += 1;
    }
}

/// Whether `s` has an upper-case letter; kana and kanji (caseless) are skipped without a table
/// look-up.
pub(super) fn has_upper(s: &str) -> bool {
    s.chars().any(|c| {
        if c.is_ascii() {
            c.is_ascii_uppercase()
        } else if ('\u{3040}'..'\u{ff00}').contains(&c) {
            false
        } else {
            c.is_uppercase()
        }
    })
}

pub(super) const KINDS: [Kind; 5] = [
    Kind::Noun,
    Kind::Suffix,
    Kind::Number,
    Kind::Prefix,
    Kind::Break,
];

/// A token's kind: its shape first (space, Latin word, number, punctuation), else the kind its
/// part of speech gives.
pub(super) fn classify_with(surface: &str, pos_kind: Kind) -> Kind {
    // Fast path: a token starting with kana or kanji is what its part of speech says.
    if surface
        .chars()
        .next()
        .is_some_and(|c| matches!(c, '\u{3041}'..='\u{30ff}' | '\u{3400}'..='\u{9fff}'))
    {
        return pos_kind;
    }
    if surface.chars().all(char::is_whitespace) {
        return Kind::Space;
    }
    if surface
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-')
        && surface.chars().any(|c| c.is_ascii_alphabetic())
    {
        return Kind::Latin;
    }
    if surface.chars().all(|c| c.is_ascii_digit()) {
        return Kind::Number;
    }
    if !surface.chars().any(char::is_alphanumeric) {
        return Kind::Break;
    }
    pos_kind
}

/// Whether the tokens of `query` stand in `doc` as a phrase: the same texts at the same
/// relative positions (what a phrase query of the index matches).
pub(super) fn phrase_in(doc: &[SearchWord], query: &[SearchToken]) -> bool {
    let Some(first) = query.first() else {
        return false;
    };
    doc.iter().enumerate().any(|(i, d)| {
        d.text == first.text
            && query[1..].iter().all(|t| {
                let want = d.position + (t.position - first.position);
                doc[i..]
                    .iter()
                    .any(|x| x.position == want && x.text == t.text)
            })
    })
}

/// A token of [`Analyzer::search_tokens`], its text borrowed where it is the surface.
pub(super) struct SearchWord<'t> {
    text: Cow<'t, str>,
    position: usize,
    start: usize,
    end: usize,
}

/// One token of [`Analyzer::search_tokens`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchToken {
    pub text: String,
    /// Index in the token sequence (gaps where skipped words stand).
    pub position: usize,
    /// Byte range in the prepared text.
    pub start: usize,
    pub end: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `pos_kind` looks no ASCII word up in the Japanese stop list.
    #[test]
    fn the_japanese_stop_list_holds_no_ascii_word() {
        let a = Analyzer::get();
        assert!(!a.stop_ja.is_empty());
        assert!(a.stop_ja.iter().all(|w| !w.is_ascii()));
    }

    /// `Analyzer::segment` gives lindera's own tokens (`SegmentWorker::segment`), in both
    /// modes: cuts, white space, unknown words, a stretch longer than lindera's cap.
    #[test]
    fn segmenting_on_the_lattice_agrees_with_lindera() {
        let a = Analyzer::get();
        // (`segment` sets no left-space penalty: the dictionary ships none)
        assert!(a.segmenter.dictionary.metadata.space_penalty.is_none());
        let long = "日本銀行は気候変動対応オペを実施した".repeat(2000);
        let texts = [
            "日本銀行、気候変動対応オペを実施。\n2兆円　規模\tの AWS re:Invent 2025",
            "  leading and trailing spaces  ",
            "ｱｲｳ ﾊﾝｶｸ ① ㈱ x\u{3000}y 、、。。\n\n\t",
            "オーバーツーリズム対策の実証実験を開始、東京リージョンで生成AIサービス",
            "",
            &long,
        ];
        for decompose in [false, true] {
            let mode = if decompose {
                Mode::Decompose(lindera::mode::Penalty::default())
            } else {
                Mode::Normal
            };
            let mut worker = a.segmenter.new_worker();
            worker.set_mode(mode.clone());
            let mut seg = Segmenting::default();
            for text in texts {
                let want: Vec<(usize, usize, WordId)> = worker
                    .segment(text)
                    .unwrap()
                    .iter()
                    .map(|t| (t.byte_start, t.byte_end, t.word_id))
                    .collect();
                a.segment(text, &mode, &mut seg);
                let head: String = text.chars().take(20).collect();
                assert_eq!(seg.words, want, "{decompose} {head}");
            }
        }
    }

    #[test]
    fn the_nfkc_fast_path_agrees_with_nfkc() {
        for s in [
            "日本銀行、気候変動対応オペを実施（２兆円）　「速報」【更新】ヴァ・ー〃々",
            "ＡＷＳの新機能！？ ＃タグ ～ 〜",
            "ﾊﾝｶｸｶﾅ ① ㈱ Ⅲ ㍻ ゛゜ ゟ ヿ",
            "plain ASCII only",
        ] {
            let want: String = s.nfkc().collect();
            assert_eq!(nfkc(s), want, "{s}");
        }
    }
}
