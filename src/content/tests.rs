//! Unit tests of `content/mod.rs` (kept beside it so the file itself reads as the code).
use super::*;

fn t(s: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(s).unwrap()
}

fn item(id: &str) -> Item {
    Item {
        id: id.into(),
        feed: "https://example.com/feed".into(),
        category: "IT".into(),
        site: "Example \"Site\"".into(),
        title: "日本銀行、気候変動対応オペを実施\\".into(),
        link: "https://example.com/a?b=1&c=2".into(),
        published: t("2021-07-20T07:20:00+09:00"),
        keywords: vec!["日本銀行".into(), "気候変動".into()],
        summary: "一行目\n二行目".into(),
        text: "tab\there".into(),
        trend: None,
        story: String::new(),
    }
}

fn snapshot() -> Snapshot {
    Snapshot {
        hour: t("2021-07-20T08:00:00+09:00"),
        updated: t("2021-07-20T08:28:58+09:00"),
        items: vec![item("a"), item("b")],
        body: "A note from the curator.\n\n+++\n".into(),
    }
}

#[test]
fn trend_items_round_trip() {
    let mut it = item("trend:大谷翔平:2021-07-20");
    it.trend = Some(Trend {
        volume: Some(200_000),
        picture: "https://example.com/p?a=1&b=\"2\"".into(),
        news: vec![
            NewsLink {
                title: "大谷翔平、34号 \"速報\"\n".into(),
                url: "https://example.com/n1".into(),
                source: "スポニチ".into(),
            },
            NewsLink {
                title: "x".into(),
                url: "https://example.com/n2".into(),
                source: String::new(),
            },
        ],
    });
    let mut plain = item("b");
    plain.trend = Some(Trend::default());
    let s = Snapshot {
        hour: t("2021-07-20T08:00:00+09:00"),
        updated: t("2021-07-20T08:28:58+09:00"),
        items: vec![it, plain, item("c")],
        body: String::new(),
    };
    let text = s.to_text();
    assert_eq!(Snapshot::parse(&text, "x").unwrap(), s, "{text}");
}

#[test]
fn round_trips() {
    let s = snapshot();
    let text = s.to_text();
    assert_eq!(Snapshot::parse(&text, "x.md").unwrap(), s);
}

/// Any text a feed can put in a field survives writing and reading, and never breaks the
/// file's shape (no raw `+++` line, one block per item).
#[test]
fn hostile_field_text_round_trips() {
    const PIECES: &[&str] = &[
        "+++",
        "\n+++\n",
        "\"",
        "\\",
        "'''",
        "\"\"\"",
        "[[items]]",
        "\n",
        "\r\n",
        "\t",
        "\u{0}",
        "\u{7}",
        "\u{1b}[31m",
        "\u{7f}",
        "\u{85}",
        "\u{2028}",
        "\u{feff}",
        "日本銀行",
        "🫠",
        "#",
        "=",
        "key = \"x\"",
        "\\u0041",
        "]",
        "{",
        " ",
        "",
    ];
    let mut rng = crate::test_rng::XorShift(0x1234_5678_9abc_def1);
    for _ in 0..500 {
        let mut field = || rng.text(PIECES, 6);
        let mut s = snapshot();
        let it = &mut s.items[0];
        it.id = field();
        it.title = field();
        it.site = field();
        it.link = field();
        it.summary = field();
        it.text = field();
        it.keywords = vec![field(), field()];
        s.body = field();
        let text = s.to_text();
        let back = Snapshot::parse(&text, "x.md").unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back, s, "{text}");
        let fences = text.lines().filter(|l| l.trim_end() == "+++").count();
        let body_fences = s.body.lines().filter(|l| l.trim_end() == "+++").count();
        assert_eq!(fences, 2 + body_fences, "{text}");
        let front_matter = &text[..text.len() - s.body.len()];
        assert_eq!(front_matter.matches("\n[[items]]\n").count(), 2, "{text}");
    }
}

#[test]
fn format_is_one_block_per_item_in_key_order() {
    let text = snapshot().to_text();
    let keys: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "[[items]]")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split(" = ").next().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "feed",
            "category",
            "site",
            "title",
            "link",
            "published",
            "keywords",
            "summary",
            "text"
        ]
    );
    assert!(text.starts_with("+++\nhour = 2021-07-20T08:00:00+09:00\n"));
    assert_eq!(text.matches("[[items]]").count(), 2);
}

#[test]
fn missing_closing_fence_is_explained() {
    let text = "+++\nhour = 2021-07-20T08:00:00+09:00\n";
    let e = Snapshot::parse(text, "c.md").unwrap_err();
    assert!(e.to_string().contains("closing `+++`"), "{e}");
}

#[test]
fn bad_value_names_the_file_line() {
    let mut text = snapshot().to_text();
    text = text.replacen(
        "published = 2021-07-20T07:20:00+09:00",
        "published = yesterday",
        1,
    );
    let e = Snapshot::parse(&text, "c.md").unwrap_err();
    let line = text.lines().position(|l| l.contains("yesterday")).unwrap() + 1;
    assert_eq!(e.line, line, "{e}");
    assert!(e.to_string().starts_with(&format!("c.md:{line}:")));
}

#[test]
fn quoted_dates_and_bom_are_accepted() {
    let text =
        "\u{feff}+++\nhour = \"2021-07-20T08:00:00+09:00\"\nupdated = 2021-07-20T08:10:00Z\n+++\n";
    let s = Snapshot::parse(text, "c.md").unwrap();
    assert!(s.items.is_empty());
    assert_eq!(s.updated, t("2021-07-20T08:10:00+00:00"));
}

#[test]
fn local_dates_without_offset_are_refused() {
    let text = "+++\nhour = 2021-07-20T08:00:00\nupdated = 2021-07-20T08:10:00Z\n+++\n";
    let e = Snapshot::parse(text, "c.md").unwrap_err();
    assert_eq!(e.line, 2, "{e}");
}

/// Historic offsets have seconds (Tokyo's local mean time is +09:18:59), which RFC 3339
/// cannot write: `%:z` dropped them and the time moved by 59 s; years before 1 were written
/// as `-0001`, which no TOML reader accepts. Every date written must read back as the same
/// instant.
#[test]
fn dates_toml_cannot_hold_are_written_as_the_same_instant_or_clamped() {
    let lmt = FixedOffset::east_opt(9 * 3600 + 18 * 60 + 59).unwrap();
    let t1899 = chrono::NaiveDate::from_ymd_opt(1899, 12, 31)
        .unwrap()
        .and_hms_opt(23, 59, 59)
        .unwrap()
        .and_local_timezone(lmt)
        .unwrap();
    assert_eq!(rfc3339(&t1899), "1899-12-31T14:41:00+00:00");
    let year0 = chrono::NaiveDate::from_ymd_opt(0, 1, 1)
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_local_timezone(FixedOffset::east_opt(23 * 3600 + 59 * 60).unwrap())
        .unwrap();
    assert_eq!(rfc3339(&year0), "0001-01-01T00:00:00+00:00");
    let far = chrono::NaiveDate::from_ymd_opt(12000, 1, 1)
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc()
        .fixed_offset();
    assert_eq!(rfc3339(&far), "9999-12-31T23:59:59+00:00");
    let mut s = snapshot();
    s.items[0].published = t1899;
    let back = Snapshot::parse(&s.to_text(), "x.md").unwrap();
    assert_eq!(back.items[0].published, t1899, "the same instant");
    s.items[0].published = year0;
    let text = s.to_text();
    Snapshot::parse(&text, "x.md").unwrap_or_else(|e| panic!("{e}\n{text}"));
}

#[test]
fn recovered_keys_pair_feed_and_id_per_block() {
    let mut text = snapshot().to_text();
    text = text.replacen("title = ", "title = [oops ", 1);
    assert!(Snapshot::parse(&text, "x.md").is_err());
    let keys = recover_keys(&text);
    assert_eq!(
        keys,
        vec![
            ItemKey::new("https://example.com/feed", "a"),
            ItemKey::new("https://example.com/feed", "b")
        ]
    );
}

#[test]
fn digest_hour_floors_in_site_zone() {
    let now = t("2021-07-19T23:28:58Z").with_timezone(&chrono::Utc);
    let h = digest_hour(now, chrono_tz::Asia::Tokyo);
    assert_eq!(rfc3339(&h), "2021-07-20T08:00:00+09:00");
    assert_eq!(
        snapshot_rel_path(&h),
        PathBuf::from("content/2021/07/20/0800.md")
    );
}

/// TOML 1.0: integers are 64-bit signed, and a value that does not fit must be refused. matome
/// wrote `volume = 18446744073709551615` for `99999999999999999999+` and read it back.
#[test]
fn a_volume_past_tomls_integer_range_is_refused_when_read_and_clamped_when_written() {
    let mut s = snapshot();
    s.items[0].trend = Some(Trend {
        volume: Some(u64::MAX),
        ..Trend::default()
    });
    let text = s.to_text();
    assert!(text.contains(&format!("volume = {}, ", i64::MAX)), "{text}");
    let back = Snapshot::parse(&text, "x.md").unwrap();
    assert_eq!(
        back.items[0].trend.as_ref().unwrap().volume,
        Some(MAX_VOLUME)
    );
    // A strict reader agrees.
    let fm = text.split("+++\n").nth(1).unwrap();
    assert!(toml::from_str::<toml::Table>(fm).is_ok());

    for bad in ["18446744073709551615", "9223372036854775808", "-1"] {
        let broken = text.replace(
            &format!("volume = {}", i64::MAX),
            &format!("volume = {bad}"),
        );
        let line = broken.lines().position(|l| l.contains("volume =")).unwrap() + 1;
        let e = Snapshot::parse(&broken, "content/x.md").unwrap_err();
        assert_eq!(e.line, line, "{bad}: {e}");
        assert!(
            e.message.contains("volume") || e.message.contains("integer"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn a_story_round_trips_and_an_item_without_one_is_its_own_story() {
    let mut s = snapshot();
    let own = s.items[0].key().hex();
    assert_eq!(own.len(), 32);
    assert!(
        own.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    assert_eq!(s.items[0].story_id(), own, "no story recorded: its own");
    s.items[1].story = own.clone();
    let text = s.to_text();
    assert!(text.contains(&format!("story = \"{own}\"")), "{text}");
    assert_eq!(
        text.matches("story = ").count(),
        1,
        "an item without a story writes no line: {text}"
    );
    let back = Snapshot::parse(&text, "x.md").unwrap();
    assert_eq!(back, s);
    assert_eq!(back.items[1].story_id(), own);
}

#[test]
fn a_story_id_reads_back_as_the_key_it_was_written_from_and_nothing_else_does() {
    let key = ItemKey::new("https://f.example/rss", "a");
    assert_eq!(ItemKey::from_hex(&key.hex()), Some(key));
    let upper = key.hex().to_uppercase();
    let short = &key.hex()[..31];
    let long = format!("{}0", key.hex());
    let wide = format!("{}あ", &key.hex()[..29]);
    for bad in [
        upper.as_str(),
        short,
        &long,
        &wide,
        "",
        "g".repeat(32).as_str(),
    ] {
        assert_eq!(ItemKey::from_hex(bad), None, "{bad:?}");
    }
}
