//! Text analysis of archived items: the summary (and, with the tokenizer, 頻出ワード).
//!
//! Works on the plain text [`crate::text`] produced; knows nothing about HTTP or files.

use crate::text;

/// Splits plain text into sentences: Japanese on 。！？ (and their ASCII forms followed by a
/// space), and on line breaks. The delimiters stay with their sentence.
pub fn sentences(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            '。' | '！' | '？' => Some(i + c.len_utf8()),
            // ASCII marks end a sentence only before white space (not in `select!` or a URL).
            '.' | '!' | '?' => match chars.peek() {
                Some((_, n)) if n.is_whitespace() => Some(i + 1),
                None => Some(i + 1),
                _ => None,
            },
            '\n' => Some(i),
            _ => None,
        };
        if let Some(end) = end {
            let sentence = s[start..end].trim();
            if !sentence.is_empty() {
                out.push(sentence);
            }
            start = if c == '\n' { i + 1 } else { end };
        }
    }
    let tail = s[start..].trim();
    if !tail.is_empty() {
        out.push(tail);
    }
    out
}

/// A lead summary: the first sentences of `text` that fit in `budget` characters, joined; the
/// first sentence cut to the budget when even it does not fit.
pub fn lead_summary(text: &str, budget: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for s in sentences(text) {
        let n = s.chars().count();
        if used == 0 && n > budget {
            return text::truncate_chars(s, budget);
        }
        // Japanese sentences follow each other directly; others get a space.
        let sep = usize::from(used > 0 && !out.ends_with(['。', '！', '？']));
        if used + sep + n > budget {
            break;
        }
        if sep == 1 {
            out.push(' ');
        }
        out.push_str(s);
        used += sep + n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_japanese_and_english() {
        assert_eq!(
            sentences("日銀は発表した。市場は反応！Prices rose 1.5 percent. Why?\n次の行"),
            vec![
                "日銀は発表した。",
                "市場は反応！",
                "Prices rose 1.5 percent.",
                "Why?",
                "次の行"
            ]
        );
    }

    #[test]
    fn ascii_marks_inside_words_do_not_split() {
        assert_eq!(
            sentences("tokio::select!を使う。https://example.com/docs?lang=ja を参照"),
            vec![
                "tokio::select!を使う。",
                "https://example.com/docs?lang=ja を参照"
            ]
        );
    }

    #[test]
    fn lead_summary_respects_budget() {
        let t = "一文目です。二文目です。三文目はとても長い文章になっています。";
        assert_eq!(lead_summary(t, 12), "一文目です。二文目です。");
        assert_eq!(lead_summary("One. Two. Three.", 9), "One. Two.");
        assert_eq!(lead_summary(t, 5).chars().count(), 5);
        assert_eq!(lead_summary("", 10), "");
        for budget in 0..40 {
            assert!(lead_summary(t, budget).chars().count() <= budget);
        }
    }
}
