//! Regression tests for the classes of misses issue 25 lists, each on its own example (written
//! for these tests, not taken from either part of the quality set), named for what it guards.

use super::site_keywords;

/// Every title of a columnist's feed starts with the column's name: it is the site's label,
/// learnt from the site's other items, never a keyword (issue 25: a series name outranked the
/// topic).
#[test]
fn a_sites_series_name_in_every_title_is_not_a_keyword() {
    let kw = site_keywords(
        "海外TECH",
        "Weekend Wiring",
        &[
            (
                "Priya Natarajan's Home Lab Diary: Why I replaced my NAS with mini PCs",
                "Three mini PCs running Proxmox now do what the NAS did, with room to spare.",
            ),
            (
                "Priya Natarajan's Home Lab Diary: Tailscale for the whole family",
                "A mesh VPN turned out to be the easiest way to reach the printer from anywhere.",
            ),
            (
                "Priya Natarajan's Home Lab Diary: Backups I have actually restored",
                "Restic to object storage, tested every month with a real restore drill.",
            ),
            (
                "Priya Natarajan's Home Lab Diary: A quiet rack for a small flat",
                "Fan curves, a fanless switch and a UPS that does not beep at night.",
            ),
        ],
    );
    for k in kw.iter().flatten() {
        for label in ["priya", "natarajan", "home lab diary", "diary", "lab diary"] {
            assert!(
                !k.to_lowercase().contains(label),
                "the series name became a keyword: {kw:?}"
            );
        }
    }
    assert!(kw[1].contains(&"Tailscale".to_string()), "{kw:?}");
    assert!(kw[0].contains(&"NAS".to_string()), "{kw:?}");
    assert!(
        kw.iter().all(|k| k.len() >= 2),
        "the topics fill the places: {kw:?}"
    );
}

/// A link aggregator's description is the same line every time (the link, the comments link,
/// points, the number of comments): learnt as the feed's label, never a keyword.
#[test]
fn a_link_aggregators_points_and_comments_line_is_not_a_keyword() {
    let line = |n: u32| {
        format!(
            "<p>Article URL: <a href=\"https://example.org/{n}\">https://example.org/{n}</a></p>\
             <p>Comments URL: <a href=\"https://forum.example/item?id={n}\">https://forum.example/item?id={n}</a></p>\
             <p>Points: {}</p><p># Comments: {}</p>",
            n * 3,
            n + 7
        )
    };
    let texts: Vec<String> = (1..=4).map(line).collect();
    let kw = site_keywords(
        "海外TECH",
        "Link Pile: Front Page",
        &[
            ("Writing a tiny garbage collector in Zig", &texts[0]),
            (
                "Show LP: A spreadsheet engine in 3,000 lines of C",
                &texts[1],
            ),
            ("The hidden cost of feature flags", &texts[2]),
            ("SQLite as an application file format", &texts[3]),
        ],
    );
    for k in kw.iter().flatten() {
        for label in ["url", "comments", "points", "article"] {
            assert!(
                !k.to_lowercase().split(' ').any(|w| w == label),
                "the aggregator's line became a keyword: {kw:?}"
            );
        }
    }
    assert!(kw[0].contains(&"Zig".to_string()), "{kw:?}");
    assert!(kw[3].contains(&"SQLite".to_string()), "{kw:?}");
}
