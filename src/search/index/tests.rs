//! Unit tests of `search/index.rs` (kept beside it so the file itself reads as the code).
use super::*;

#[test]
fn queries_split_into_words_phrases_and_exclusions() {
    let c = parse_query(r#"日本銀行  "public cloud" -円安 －"rate hike" AI -"#);
    let got: Vec<(&str, bool)> = c.iter().map(|c| (c.text.as_str(), c.exclude)).collect();
    assert_eq!(
        got,
        vec![
            ("日本銀行", false),
            ("public cloud", false),
            ("円安", true),
            ("rate hike", true),
            ("AI", false),
            ("-", false),
        ]
    );
    assert_eq!(parse_query("\"unclosed phrase").len(), 1);
    assert!(parse_query("   ").is_empty());
}

#[test]
fn the_tokenizer_gives_parts_at_adjacent_positions_and_stems() {
    let mut t = MatomeTokenizer;
    let text = prepare("日本銀行の会合で Regulators regulated it");
    let mut s = t.token_stream(&text);
    let mut toks = Vec::new();
    while s.advance() {
        toks.push((s.token().text.clone(), s.token().position));
    }
    let texts: Vec<&str> = toks.iter().map(|(t, _)| t.as_str()).collect();
    assert!(texts.starts_with(&["日本", "銀行"]), "{toks:?}");
    assert_eq!(toks[1].1, toks[0].1 + 1, "adjacent");
    assert!(texts.contains(&"regul"), "stemmed: {toks:?}");
    assert!(!texts.contains(&"の"), "particles are not tokens");
}

#[test]
fn dates_are_read_in_the_site_zone() {
    let tz = chrono_tz::Asia::Tokyo;
    assert_eq!(
        parse_date("2021-07-20", tz).unwrap(),
        DateTime::parse_from_rfc3339("2021-07-19T15:00:00Z")
            .unwrap()
            .timestamp()
    );
    assert!(parse_date("July 20", tz).is_err());
}

fn utc(s: &str) -> i64 {
    DateTime::parse_from_rfc3339(s).unwrap().timestamp()
}

#[test]
fn until_a_day_ends_at_the_next_local_midnight_on_dst_change_days() {
    let ny = chrono_tz::America::New_York;
    // 2024-03-10 is 23 hours long in New York (clocks spring forward), 2024-11-03 is 25.
    assert_eq!(
        parse_until("2024-03-10", ny).unwrap(),
        utc("2024-03-11T04:00:00Z")
    );
    assert_eq!(
        parse_until("2024-11-03", ny).unwrap(),
        utc("2024-11-04T05:00:00Z")
    );
    let berlin = chrono_tz::Europe::Berlin;
    assert_eq!(
        parse_until("2024-03-31", berlin).unwrap(),
        utc("2024-03-31T22:00:00Z")
    );
    // An ordinary day, and a time taken as it is.
    assert_eq!(
        parse_until("2021-07-20", chrono_tz::Asia::Tokyo).unwrap(),
        utc("2021-07-20T15:00:00Z")
    );
    assert_eq!(
        parse_until("2021-07-20T12:00:00+09:00", ny).unwrap(),
        utc("2021-07-20T03:00:00Z")
    );
    assert!(parse_until("July 20", ny).is_err());
}

/// The segment counts a merge policy would merge together, largest first.
fn merges(sizes: &[u32]) -> Vec<Vec<u32>> {
    use tantivy::merge_policy::MergePolicy;
    let (schema, _) = schema();
    let index = tantivy::Index::create_in_ram(schema);
    let metas: Vec<tantivy::index::SegmentMeta> = sizes
        .iter()
        .map(|&n| index.new_segment_meta(tantivy::index::SegmentId::generate_random(), n))
        .collect();
    let size = |id| metas.iter().find(|m| m.id() == id).unwrap().max_doc();
    let mut out: Vec<Vec<u32>> = merge_policy()
        .compute_merge_candidates(&metas)
        .into_iter()
        .map(|c| {
            let mut v: Vec<u32> = c.0.into_iter().map(size).collect();
            v.sort_unstable_by(|a, b| b.cmp(a));
            v
        })
        .collect();
    out.sort();
    out
}

#[test]
fn an_hourly_commit_never_merges_a_full_rebuilds_segments() {
    // A year rebuilt (nine segments of 28,000–45,000 documents), a third-level segment and
    // seven hours: nothing to merge (tantivy's default merged the nine, every hour).
    let mut year = vec![
        45_240, 44_765, 44_489, 44_417, 44_305, 44_300, 43_978, 43_889, 28_561,
    ];
    year.push(23_040);
    year.extend([45, 44, 44, 42, 40, 40, 39]);
    assert!(merges(&year).is_empty(), "{:?}", merges(&year));
    // The eighth hour merges the hours, and only them.
    year.push(37);
    assert_eq!(merges(&year), [vec![45, 44, 44, 42, 40, 40, 39, 37]]);
    // Eight merged hours merge in turn, apart from the hours after them.
    let mut levels = vec![360, 350, 362, 340, 355, 371, 349, 366, 45, 44];
    levels.extend([45_240; 9]);
    assert_eq!(
        merges(&levels),
        [vec![371, 366, 362, 360, 355, 350, 349, 340]]
    );
}
