//! What one item weighs: the bytes it adds to content/ and to the built site, for the daily
//! byte budget (`fetch.max_bytes_per_feed_day`, see `fetch/daily.rs`).
//!
//! An item's weight is the larger of the two: its block in the snapshot file, and what the
//! default theme's pages hold of it (its digest row, its category and site list rows, its entry
//! in the static search index). Each field counts at its most escaped (`"` is `&quot;` on a
//! page) times the pages that show it, so a day's weight bounds what the day adds to each; what
//! every page holds once whatever the items (Atom feeds' windows, a day's page) is not counted.
//! The figures are upper bounds measured on real builds (BENCHMARKS.md, issue 21 finding 7);
//! `tests/it/flood.rs` checks a month of the heaviest items against them.

use crate::content::Item;

/// Bytes a page holds for an item whatever its text: the row and list markup, its anchors and
/// links to the category, site and digest, its search entry's frame.
const PAGE_ITEM: u64 = 560;
/// Pages that show the title (digest row, category and site lists, search entry), the link
/// (the row's href and text, the search entry), the summary and keywords (row, search entry),
/// and the site and category names (row text and slugs, search entry).
const TITLE_COPIES: u64 = 4;
const LINK_COPIES: u64 = 3;
const SUMMARY_COPIES: u64 = 2;
const NAME_COPIES: u64 = 4;
/// What the static search index's terms add per byte of title and summary (a CJK character's
/// bigram, an English word's stem, each with its postings): measured up to 1.4, counted 1.5
/// (`SEARCH_PER_2_BYTES` for two bytes).
const SEARCH_PER_2_BYTES: u64 = 3;
/// What each kanji of the title and summary adds on top of that: the static index keeps a
/// kanji's unigram beside its bigram (a lone kanji is a query), a second posting per character.
const SEARCH_PER_KANJI: u64 = 8;
/// The keys, quotes and date of an item's block in a snapshot file.
const CONTENT_ITEM: u64 = 160;
/// The keys and quotes of one news link of a trend.
const CONTENT_NEWS: u64 = 40;

/// An item's bytes in content/ and in the built site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weight {
    pub content: u64,
    pub pages: u64,
}

impl Weight {
    /// What the item is charged: the larger of the two, so a day's budget bounds each.
    pub fn bytes(self) -> u64 {
        self.content.max(self.pages)
    }
}

/// What `item` weighs as it stands (before the analysis gives it keywords and a summary, and
/// after: the run weighs it at both times).
pub fn weigh(item: &Item) -> Weight {
    let keywords: u64 = item.keywords.iter().map(|k| escaped_len(k) + 4).sum();
    let (mut trend_content, mut trend_pages) = (0, 0);
    if let Some(t) = &item.trend {
        trend_content = escaped_len(&t.picture) + 40;
        for n in &t.news {
            let shown = escaped_len(&n.title) + escaped_len(&n.url) + escaped_len(&n.source);
            trend_content += shown + CONTENT_NEWS;
            trend_pages += 2 * shown + CONTENT_NEWS;
        }
    }
    let content = CONTENT_ITEM
        + [
            &item.id,
            &item.feed,
            &item.category,
            &item.site,
            &item.title,
            &item.link,
            &item.summary,
            &item.text,
        ]
        .iter()
        .map(|s| escaped_len(s))
        .sum::<u64>()
        + keywords
        + trend_content;
    let searched = (item.title.len() + item.summary.len()) as u64;
    let kanji = [&item.title, &item.summary]
        .iter()
        .flat_map(|s| s.chars())
        .filter(|&c| crate::search::terms::is_han(c))
        .count() as u64;
    let pages = PAGE_ITEM
        + TITLE_COPIES * escaped_len(&item.title)
        + LINK_COPIES * escaped_len(&item.link)
        + SUMMARY_COPIES * (escaped_len(&item.summary) + keywords)
        + NAME_COPIES * (escaped_len(&item.site) + escaped_len(&item.category))
        + SEARCH_PER_2_BYTES * searched / 2
        + SEARCH_PER_KANJI * kanji
        + trend_pages;
    Weight { content, pages }
}

/// The bytes of `s` where it is escaped the most: HTML and XML (`&amp;`, `&lt;`, `&quot;`,
/// `&apos;`), JSON and TOML (`\\`, `\n`, `\u0001`). Linear in `s`.
pub fn escaped_len(s: &str) -> u64 {
    s.chars()
        .map(|c| match c {
            '&' => 5,
            '<' | '>' => 4,
            '"' | '\'' => 6,
            '\\' => 2,
            c if c.is_control() => 6,
            c => c.len_utf8() as u64,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(title: &str, link: &str, text: &str) -> Item {
        Item {
            id: link.into(),
            feed: "https://feed.example/rss".into(),
            category: "IT".into(),
            site: "Example".into(),
            title: title.into(),
            link: link.into(),
            published: chrono::DateTime::parse_from_rfc3339("2021-08-01T00:05:00+09:00").unwrap(),
            keywords: Vec::new(),
            summary: String::new(),
            text: text.into(),
            trend: None,
            story: String::new(),
        }
    }

    #[test]
    fn escaping_counts_the_longest_form() {
        assert_eq!(escaped_len("abc"), 3);
        assert_eq!(escaped_len("日本"), 6);
        assert_eq!(escaped_len("&<>\"'"), 5 + 4 + 4 + 6 + 6);
        assert_eq!(escaped_len("\\\n\u{1}"), 2 + 6 + 6);
        assert_eq!(escaped_len(""), 0);
    }

    #[test]
    fn every_shown_field_adds_its_copies_and_the_text_only_content() {
        let base = weigh(&item("t", "https://a.example/1", ""));
        let title = weigh(&item(
            &format!("t{}", "x".repeat(100)),
            "https://a.example/1",
            "",
        ));
        assert_eq!(title.pages - base.pages, 100 * TITLE_COPIES + 150);
        assert_eq!(title.content - base.content, 100);
        let quoted = weigh(&item(
            &format!("t{}", "'".repeat(100)),
            "https://a.example/1",
            "",
        ));
        assert_eq!(quoted.pages - base.pages, 100 * 6 * TITLE_COPIES + 150);
        let link = weigh(&item(
            "t",
            &format!("https://a.example/1{}", "/".repeat(100)),
            "",
        ));
        assert_eq!(link.pages - base.pages, 100 * LINK_COPIES);
        assert_eq!(link.content - base.content, 200, "the link is the id too");
        let text = weigh(&item("t", "https://a.example/1", &"本".repeat(1000)));
        assert_eq!(text.pages, base.pages, "the text is not on pages");
        assert_eq!(text.content - base.content, 3000);
        assert_eq!(text.bytes(), text.content);
        assert_eq!(base.bytes(), base.pages);
    }

    #[test]
    fn a_kanji_weighs_its_unigram_in_the_search_index_and_a_kana_does_not() {
        let base = weigh(&item("t", "https://a.example/1", ""));
        let kanji = weigh(&item("t本本本", "https://a.example/1", ""));
        let kana = weigh(&item("tほほほ", "https://a.example/1", ""));
        assert_eq!(kana.pages - base.pages, 9 * TITLE_COPIES + 14);
        assert_eq!(kanji.pages - kana.pages, 3 * SEARCH_PER_KANJI);
    }

    #[test]
    fn the_analysis_adds_weight_and_so_does_a_trend() {
        let mut it = item("tt", "https://a.example/1", "本文です。");
        let before = weigh(&it);
        it.summary = "本文です。".into();
        it.keywords = vec!["本文".into()];
        let after = weigh(&it);
        // 本 and 文 are kanji: each a unigram in the static index too.
        assert_eq!(
            after.pages - before.pages,
            SUMMARY_COPIES * (15 + 10) + 22 + 2 * SEARCH_PER_KANJI
        );
        assert_eq!(after.content - before.content, 15 + 10);
        it.trend = Some(crate::content::Trend {
            volume: Some(1),
            picture: String::new(),
            news: vec![crate::content::NewsLink {
                title: "n".into(),
                url: "https://n.example/".into(),
                source: String::new(),
            }],
        });
        let trend = weigh(&it);
        assert_eq!(trend.content - after.content, 40 + 19 + CONTENT_NEWS);
        assert_eq!(trend.pages - after.pages, 2 * 19 + CONTENT_NEWS);
    }
}
