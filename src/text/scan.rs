//! The scanner behind [`super::html_to_text`]: searches that only move forward and remember
//! their answers, so hostile markup costs linear time; and, in test builds, a counter of the
//! bytes it examines.

#[cfg(test)]
use super::html_to_text;

/// Forward-only searches over one HTML fragment, so that [`html_to_text`] stays linear.
///
/// The naive scanner looked for the `>` of every `<name` afresh: `<a` repeated 100,000 times
/// with no `>` anywhere scanned to the end 100,000 times. Here every search remembers what it
/// found (or that nothing is there) and later searches, which never start further back, reuse
/// it. The one search that is not a plain "next byte" (the end of a tag, where `>` inside a
/// quoted attribute value does not count) is answered from a table built in one backward pass
/// over the quote characters the first time a tag meets a quote.
pub(super) struct Scanner<'a> {
    b: &'a [u8],
    /// The last search for `<` and for `>`, see [`find_cached`].
    next_lt: Option<(usize, usize)>,
    next_gt: Option<(usize, usize)>,
    /// Same for the sequences `-->`, `]]>` and `</`.
    next_seq: [Option<(usize, usize)>; 3],
    /// Positions of `"` and `'`, ascending, and for each, where a tag scan that meets it
    /// outside quotes ends (`u32::MAX`: never). Built on first need.
    quotes: Option<(Vec<u32>, Vec<u32>)>,
    /// Index into `quotes` of the first quote at or after the last tag scan's start.
    quote_cursor: usize,
}

/// The sequences [`Scanner::find_seq`] knows.
const SEQS: [&[u8]; 3] = [b"-->", b"]]>", b"</"];

impl<'a> Scanner<'a> {
    pub(super) fn new(b: &'a [u8]) -> Scanner<'a> {
        Scanner {
            b,
            next_lt: None,
            next_gt: None,
            next_seq: [None; 3],
            quotes: None,
            quote_cursor: 0,
        }
    }

    /// The first `byte` (`<` or `>`) at or after `from`.
    pub(super) fn find_byte(&mut self, byte: u8, from: usize) -> Option<usize> {
        let b = self.b;
        let cache = if byte == b'<' {
            &mut self.next_lt
        } else {
            &mut self.next_gt
        };
        find_cached(cache, from, b.len(), |start| {
            memchr::memchr(byte, &b[start..]).map(|p| start + p)
        })
    }

    /// The first occurrence of one of [`SEQS`] at or after `from`.
    pub(super) fn find_seq(&mut self, seq: &[u8], from: usize) -> Option<usize> {
        let k = SEQS
            .iter()
            .position(|s| *s == seq)
            .expect("a known sequence");
        let b = self.b;
        find_cached(&mut self.next_seq[k], from, b.len(), |start| {
            memchr::memmem::find(&b[start..], seq).map(|p| start + p)
        })
    }

    /// The position of the first `</name` (ASCII case-insensitive) at or after `from`.
    pub(super) fn find_close_tag(&mut self, name: &str, from: usize) -> Option<usize> {
        let mut at = from;
        loop {
            let p = self.find_seq(b"</", at)?;
            let after = p + 2;
            let candidate = self.b.get(after..after + name.len())?;
            work(name.len());
            if candidate.eq_ignore_ascii_case(name.as_bytes()) {
                return Some(p);
            }
            at = after;
        }
    }

    /// Recognises `<name ...>` or `</name>` (or `<!...>`, `<?...>`) at `i`; returns the name,
    /// whether it is a closing tag, and the position just after its `>`.
    pub(super) fn tag_at<'h>(&mut self, html: &'h str, i: usize) -> Option<(&'h str, bool, usize)> {
        let b = html.as_bytes();
        if matches!(b.get(i + 1), Some(b'!' | b'?')) {
            // <!DOCTYPE ...> or <?xml ...?>
            let end = self.find_byte(b'>', i)?;
            return Some(("!", false, end + 1));
        }
        let closing = b.get(i + 1) == Some(&b'/');
        let start = i + 1 + usize::from(closing);
        let mut j = start;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'-' || b[j] == b':') {
            j += 1;
        }
        work(j - start + 1);
        if j == start || !b[start].is_ascii_alphabetic() {
            return None;
        }
        let end = self.tag_end(j)?;
        Some((&html[start..j], closing, end + 1))
    }

    /// The `>` ending a tag whose attributes start at `p` (a `>` inside quotes does not count).
    /// Successive calls must not go back.
    pub(super) fn tag_end(&mut self, p: usize) -> Option<usize> {
        // No `>` at all after `p`: no tag can end (and none after it either).
        let gt = self.find_byte(b'>', p)?;
        // No quote before the `>`: the common case, and no table needed.
        let first_quote = match &self.quotes {
            None => {
                let seg = &self.b[p..gt];
                work(seg.len() + 1);
                if memchr::memchr2(b'"', b'\'', seg).is_none() {
                    return Some(gt);
                }
                self.build_quotes();
                self.first_quote_from(p)
            }
            Some(_) => self.first_quote_from(p),
        };
        let (quotes, ends) = self.quotes.as_ref().expect("built above");
        match first_quote {
            Some(q) if (quotes[q] as usize) < gt => {
                (ends[q] != u32::MAX).then_some(ends[q] as usize)
            }
            _ => Some(gt),
        }
    }

    /// Index of the first quote at or after `p` (the cursor only moves forward).
    pub(super) fn first_quote_from(&mut self, p: usize) -> Option<usize> {
        let (quotes, _) = self.quotes.as_ref().expect("built");
        while self.quote_cursor < quotes.len() && (quotes[self.quote_cursor] as usize) < p {
            self.quote_cursor += 1;
            work(1);
        }
        (self.quote_cursor < quotes.len()).then_some(self.quote_cursor)
    }

    /// The quote table: for each quote met outside quotes inside a tag, where that tag ends.
    /// From a quote at `x`, the value runs to the next quote of the same kind at `y`; after it,
    /// the tag ends at the next `>` unless another quote comes first, whose answer is already
    /// known (the pass runs backwards). Each stretch between two quotes is searched once.
    pub(super) fn build_quotes(&mut self) {
        let b = self.b;
        let quotes: Vec<u32> = memchr::memchr2_iter(b'"', b'\'', b)
            .map(|p| u32::try_from(p).unwrap_or(u32::MAX))
            .collect();
        work(b.len() + 1);
        let mut ends = vec![u32::MAX; quotes.len()];
        // Index of the next `"` and `'` after the current one.
        let mut next_of = [usize::MAX; 2];
        for k in (0..quotes.len()).rev() {
            let kind = usize::from(b[quotes[k] as usize] == b'\'');
            let close = next_of[kind];
            next_of[kind] = k;
            if close == usize::MAX {
                continue; // the value never closes: no end
            }
            let after = quotes[close] as usize + 1;
            let next_quote = close + 1;
            let limit = quotes.get(next_quote).map_or(b.len(), |&q| q as usize);
            let seg = &b[after.min(limit)..limit];
            work(seg.len() + 1);
            ends[k] = match memchr::memchr(b'>', seg) {
                Some(g) => u32::try_from(after + g).unwrap_or(u32::MAX),
                None if next_quote < quotes.len() => ends[next_quote],
                None => u32::MAX,
            };
        }
        self.quotes = Some((quotes, ends));
    }
}

/// A search that remembers its last answer: `cache` is `(from, found)`, the first match at or
/// after `from` being at `found` (`len`: none), so it also answers every later `from` up to
/// `found`. Searches that only move forward thus examine each byte once in all.
fn find_cached(
    cache: &mut Option<(usize, usize)>,
    from: usize,
    len: usize,
    search: impl FnOnce(usize) -> Option<usize>,
) -> Option<usize> {
    let found = match *cache {
        Some((f, found)) if f <= from && from <= found => found,
        _ => {
            let start = from.min(len);
            let found = search(start).unwrap_or(len);
            work(found - start + 1);
            *cache = Some((from, found));
            found
        }
    };
    (found < len).then_some(found)
}

/// Counts the bytes the scanner examines (test builds only), so tests can assert on work, not
/// on wall time.
#[cfg(test)]
fn work(n: usize) {
    WORK.with(|w| w.set(w.get() + n as u64));
}

#[cfg(not(test))]
#[inline(always)]
fn work(_n: usize) {}

#[cfg(test)]
thread_local! {
    static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Starts counting the work of this thread's [`html_to_text`] calls afresh (test builds only).
#[cfg(test)]
pub(crate) fn reset_work() {
    WORK.with(|w| w.set(0));
}

/// The work of this thread's [`html_to_text`] calls since [`reset_work`], in bytes examined.
#[cfg(test)]
pub(crate) fn work_done() -> u64 {
    WORK.with(|w| w.get())
}

/// The work [`html_to_text`] does on `html`, in bytes examined (test builds only).
#[cfg(test)]
pub(crate) fn html_to_text_work(html: &str) -> (String, u64) {
    reset_work();
    let text = html_to_text(html);
    (text, work_done())
}
