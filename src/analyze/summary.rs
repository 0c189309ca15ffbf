//! Extractive summaries: sentence splitting and LexRank.

use super::{DocFreq, Sentence};
use crate::text;

/// LexRank: sentences are nodes, edges are the IDF-weighted cosine similarity of their content
/// words (above a threshold), and the stationary distribution of a damped random walk ranks
/// them. The best-ranked sentences that fit `budget` characters (at most `max_sentences`) are
/// returned in their original order. A text that fits whole is returned whole.
pub fn lexrank(analysed: &[Sentence], df: &DocFreq, budget: usize, max_sentences: usize) -> String {
    let sents: Vec<&str> = analysed.iter().map(|s| s.text).collect();
    if sents.is_empty() || budget == 0 || max_sentences == 0 {
        return String::new();
    }
    if sents.len() <= max_sentences {
        let whole = join(&sents);
        if whole.chars().count() <= budget {
            return whole;
        }
    }
    // Sentence vectors as (key, weight) sorted by key: dot products are merge joins, and every
    // sum runs in one order, so the ranks do not depend on a HashMap's random seed.
    let vectors: Vec<Vec<(u64, f64)>> = analysed
        .iter()
        .map(|s| {
            debug_assert!(s.content.is_sorted());
            let mut v: Vec<(u64, f64)> = Vec::with_capacity(s.content.len());
            // (a repeated key's idf is added once per occurrence, as before, but looked up once)
            let mut idf = 0.0;
            for &k in &s.content {
                match v.last_mut() {
                    Some((last, w)) if *last == k => *w += idf,
                    _ => {
                        idf = df.idf_of(k);
                        v.push((k, idf));
                    }
                }
            }
            v
        })
        .collect();
    let n = sents.len();
    let norm: Vec<f64> = vectors
        .iter()
        .map(|v| v.iter().map(|(_, x)| x * x).sum::<f64>().sqrt())
        .collect();
    // Similarity is symmetric: each pair is compared once; only edges above the threshold are
    // kept, so the walk below costs O(edges) per round.
    let mut edges: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for i in 0..n {
        for j in i + 1..n {
            if norm[i] == 0.0 || norm[j] == 0.0 {
                continue;
            }
            let (a, b) = (&vectors[i], &vectors[j]);
            // (the steps are taken without a branch on which key is smaller, which no
            // predictor guesses; only the rare shared key branches)
            let (mut x, mut y, mut dot) = (0, 0, 0.0);
            while x < a.len() && y < b.len() {
                let (ka, kb) = (a[x].0, b[y].0);
                if ka == kb {
                    dot += a[x].1 * b[y].1;
                }
                x += usize::from(ka <= kb);
                y += usize::from(kb <= ka);
            }
            let sim = dot / (norm[i] * norm[j]);
            if sim > 0.1 {
                edges[i].push((j, sim));
                edges[j].push((i, sim));
            }
        }
    }
    for row in &mut edges {
        // Every row in index order, so sums run in one order whatever the insertion order.
        row.sort_by_key(|&(j, _)| j);
        let out: f64 = row.iter().map(|&(_, w)| w).sum();
        for e in row.iter_mut() {
            e.1 /= out;
        }
    }
    // News puts the point first: the walk restarts at a sentence with probability falling with
    // its position (1, 1/2, 1/3 …), so a lead sentence that is also central wins (biased LexRank).
    let lead: Vec<f64> = (0..n).map(|i| 1.0 / (i + 1) as f64).collect();
    let total: f64 = lead.iter().sum();
    let restart: Vec<f64> = lead.iter().map(|w| w / total).collect();
    let rank = stationary(&edges, 0.85, &restart);
    // Ties go to the earlier sentence (news leads put the point first).
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| rank[y].total_cmp(&rank[x]).then(x.cmp(&y)));
    let lens: Vec<usize> = sents.iter().map(|s| s.chars().count()).collect();
    // The length `join` gives the sentences `picked` (in order), without building it.
    let joined_len = |picked: &[usize]| -> usize {
        let seps = picked
            .windows(2)
            .filter(|w| !sents[w[0]].ends_with(['。', '！', '？']))
            .count();
        picked.iter().map(|&k| lens[k]).sum::<usize>() + seps
    };
    let mut picked: Vec<usize> = Vec::new();
    for i in order {
        if picked.len() >= max_sentences {
            break;
        }
        let mut trial = picked.clone();
        trial.push(i);
        trial.sort_unstable();
        if joined_len(&trial) <= budget {
            picked = trial;
        }
    }
    if picked.is_empty() {
        let best = (0..n)
            .max_by(|&x, &y| rank[x].total_cmp(&rank[y]).then(y.cmp(&x)))
            .unwrap_or(0);
        return text::truncate_chars(sents[best], budget);
    }
    join(&picked.iter().map(|&k| sents[k]).collect::<Vec<_>>())
}

/// The stationary distribution of the damped random walk over `edges` (rows normalised to 1; an
/// empty row jumps anywhere) that restarts according to `restart` (summing to 1), solved exactly:
/// r = (1-d)·restart + d·Pᵀr is the linear system (I - d·Pᵀ) r = (1-d)·restart, which Gaussian
/// elimination settles in O(n³) for the few sentences of a feed item — cheaper than iterating to
/// convergence, and the same every run.
fn stationary(edges: &[Vec<(usize, f64)>], damping: f64, restart: &[f64]) -> Vec<f64> {
    let n = edges.len();
    let uniform = 1.0 / n as f64;
    // a[j][i] = -d·P[i][j], plus the identity; the last column is the right-hand side. (One
    // flat matrix, row by row: no allocation per row or per pivot.)
    let w = n + 1;
    let mut a = vec![0.0f64; n * w];
    for (j, row) in a.chunks_exact_mut(w).enumerate() {
        row[j] = 1.0;
        row[n] = (1.0 - damping) * restart[j];
    }
    for (i, row) in edges.iter().enumerate() {
        if row.is_empty() {
            for aj in a.chunks_exact_mut(w) {
                aj[i] -= damping * uniform;
            }
        } else {
            for &(j, weight) in row {
                a[j * w + i] -= damping * weight;
            }
        }
    }
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&x, &y| a[x * w + col].abs().total_cmp(&a[y * w + col].abs()))
            .expect("non-empty range");
        if pivot != col {
            let (upper, lower) = a.split_at_mut(pivot * w);
            upper[col * w..(col + 1) * w].swap_with_slice(&mut lower[..w]);
        }
        let (before, rest) = a.split_at_mut(col * w);
        let (pivot_row, after) = rest.split_at_mut(w);
        let p = pivot_row[col];
        for x in &mut pivot_row[col..] {
            *x /= p;
        }
        for row in before.chunks_exact_mut(w).chain(after.chunks_exact_mut(w)) {
            if row[col] != 0.0 {
                let f = row[col];
                for (x, &y) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *x -= f * y;
                }
            }
        }
    }
    a.chunks_exact(w).map(|row| row[n]).collect()
}

/// Joins sentences: Japanese ones directly, others with a space.
fn join(sents: &[&str]) -> String {
    let mut out = String::new();
    for s in sents {
        if !out.is_empty() && !out.ends_with(['。', '！', '？']) {
            out.push(' ');
        }
        out.push_str(s);
    }
    out
}

/// Splits plain text into sentences: Japanese on 。！？ (and their ASCII forms followed by a
/// space), and on line breaks. The delimiters stay with their sentence.
pub fn sentences(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            '。' | '！' | '？' => Some(i + c.len_utf8()),
            // ASCII marks end a sentence only before white space (not in `select!` or a URL),
            // and a full stop not after an abbreviation or an initial (Mr., U.S., J. Smith).
            '.' | '!' | '?' => match chars.peek() {
                Some((_, n)) if n.is_whitespace() => {
                    let next_word = s[i + 1..].trim_start().chars().next();
                    let continues =
                        next_word.is_some_and(|n| n.is_lowercase() || n.is_ascii_digit());
                    (!(c == '.' && (continues || is_abbreviation(&s[start..i])))).then_some(i + 1)
                }
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

/// Abbreviations whose full stop does not end a sentence (lower case, without the stop).
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "inc", "ltd", "co", "corp", "vs",
    "etc", "e.g", "i.e", "u.s", "u.k", "u.n", "e.u", "no", "fig", "approx", "est", "dept", "gov",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

/// Whether the text before a full stop ends with an abbreviation or a single-letter initial.
fn is_abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(' || c == '"')
        .next()
        .unwrap_or("");
    let lower = word.to_ascii_lowercase();
    ABBREVIATIONS.contains(&lower.as_str())
        || (word.chars().count() == 1 && word.chars().all(|c| c.is_ascii_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::super::{Analyzer, prepare, term_hash};
    use super::*;

    /// [`lexrank`] over a text analysed sentence by sentence.
    fn lexrank_summary(
        a: &Analyzer,
        body: &str,
        df: &DocFreq,
        budget: usize,
        max_sentences: usize,
    ) -> String {
        let analysed: Vec<Sentence> = sentences(body)
            .into_iter()
            .map(|s| Sentence {
                text: s,
                terms: Vec::new(),
                content: a.analyse_prepared(&prepare(s)).1,
            })
            .collect();
        super::lexrank(&analysed, df, budget, max_sentences)
    }

    #[test]
    fn english_abbreviations_and_initials_do_not_end_sentences() {
        assert_eq!(
            sentences(
                "Mr. Smith met Dr. J. Doe at Acme Inc. in the U.S. last week. Prices rose e.g. in Jan. and fell. It ended."
            ),
            vec![
                "Mr. Smith met Dr. J. Doe at Acme Inc. in the U.S. last week.",
                "Prices rose e.g. in Jan. and fell.",
                "It ended."
            ]
        );
    }

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

    fn lexrank(text: &str, budget: usize, n: usize) -> String {
        lexrank_summary(Analyzer::get(), text, &DocFreq::default(), budget, n)
    }

    #[test]
    fn stationary_distribution_matches_power_iteration() {
        // A small graph with a dangling node.
        let edges = vec![
            vec![(1, 0.5), (2, 0.5)],
            vec![(0, 1.0)],
            vec![(0, 0.25), (1, 0.75)],
            vec![],
        ];
        let n = edges.len();
        let exact = stationary(&edges, 0.85, &vec![1.0 / n as f64; n]);
        let mut rank = vec![1.0 / n as f64; n];
        for _ in 0..500 {
            let dangling: f64 = (0..n)
                .filter(|&i| edges[i].is_empty())
                .map(|i| rank[i])
                .sum();
            let mut next = vec![0.15 / n as f64 + 0.85 * dangling / n as f64; n];
            for (i, row) in edges.iter().enumerate() {
                for &(j, w) in row {
                    next[j] += 0.85 * rank[i] * w;
                }
            }
            rank = next;
        }
        for (a, b) in exact.iter().zip(&rank) {
            assert!((a - b).abs() < 1e-12, "{exact:?} vs {rank:?}");
        }
        assert!((exact.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_lead_sentence_wins_among_equals() {
        // Three sentences on one subject, too long to keep all: the first is kept.
        let text = "日本銀行は政策金利を据え置いた。\
            日本銀行は政策金利の据え置きを決めた。\
            日本銀行の政策金利は据え置かれた。";
        let s = lexrank(text, 20, 1);
        assert_eq!(s, "日本銀行は政策金利を据え置いた。");
    }

    #[test]
    fn a_short_text_is_its_own_summary() {
        assert_eq!(
            lexrank("一文目です。二文目です。", 100, 3),
            "一文目です。二文目です。"
        );
        assert_eq!(lexrank("", 100, 3), "");
    }

    #[test]
    fn lexrank_picks_central_sentences_in_original_order_within_budget() {
        let text = "日本銀行は金融政策決定会合で政策金利の据え置きを決めた。\
            会場の周辺では朝から雨が降っていた。\
            日本銀行の総裁は会見で、政策金利を当面据え置く考えを示した。\
            市場では日本銀行が政策金利を年内に引き上げるとの見方も残る。\
            昼食には近くの店でそばを食べた。";
        let s = lexrank(text, 120, 3);
        assert!(s.chars().count() <= 120, "{s}");
        assert!(
            !s.contains("雨") && !s.contains("そば"),
            "off-topic sentences left out: {s}"
        );
        let sentences_kept = sentences(&s);
        assert!(sentences_kept.len() >= 2, "{s}");
        let positions: Vec<usize> = sentences_kept
            .iter()
            .map(|x| text.find(x).unwrap())
            .collect();
        assert!(
            positions.windows(2).all(|w| w[0] < w[1]),
            "original order: {s}"
        );
    }

    /// Regression: LexRank summed over HashMap order, so near-tied sentences swapped between
    /// runs and `matome analyze --all` rewrote files for nothing.
    #[test]
    fn lexrank_is_deterministic_on_near_ties() {
        let words = [
            "検索",
            "文字列",
            "位置",
            "先頭",
            "引数",
            "戻り値",
            "一致",
            "結果",
            "関数",
            "配列",
            "正規表現",
            "範囲",
            "要素",
            "末尾",
            "長さ",
            "型",
            "変数",
            "条件",
        ];
        // Uneven document frequencies make the weights irrational, so the order of the sums
        // shows in the last bits.
        let mut df = DocFreq::default();
        for (i, w) in words.iter().enumerate() {
            for _ in 0..(i * 7 % 11 + 1) {
                df.add_keys([term_hash(w)]);
            }
        }
        let a = Analyzer::get();
        let all = words.join("と");
        let text = format!(
            "{all}を使う。-1 は{all}を示す。0 は{all}を示す。引数の{}を確かめる。",
            words[..5].join("と")
        );
        let summarise = || lexrank_summary(a, &text, &df, 200, 2);
        let first = summarise();
        for _ in 0..200 {
            assert_eq!(summarise(), first);
        }
    }

    #[test]
    fn summaries_never_exceed_the_budget() {
        let text = "Prices rose 1.5 percent. The central bank held rates. Analysts expect a hike in September. Markets were calm.";
        for budget in 0..120 {
            assert!(
                lexrank(text, budget, 3).chars().count() <= budget,
                "{budget}"
            );
        }
        assert!(lexrank(&"長".repeat(500), 50, 3).chars().count() <= 50);
    }
}
