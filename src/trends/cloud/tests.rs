//! Unit tests of `trends/cloud.rs` (kept beside it so the file itself reads as the code).
use super::*;
use crate::test_rng::XorShift;

fn word<'a>(text: &'a str, weight: f64, href: Option<&'a str>) -> CloudWord<'a> {
    CloudWord { text, weight, href }
}

/// Many words of mixed scripts and lengths, some linked.
fn mixed(n: usize, seed: u64) -> (Vec<String>, Vec<String>, Vec<f64>) {
    let pieces = [
        "日本",
        "銀行",
        "東京",
        "選挙",
        "ドル",
        "円安",
        "AI",
        "Open",
        "model",
        "WWM",
        "ill",
        "서울",
        "株価",
        "地震",
        "😀",
        "é",
        "ｶﾀｶﾅ",
        "Ｆｕｌｌ",
        "i",
        "の",
        "データ",
    ];
    let mut rng = XorShift(seed);
    let mut texts = Vec::new();
    let mut hrefs = Vec::new();
    let mut weights = Vec::new();
    for i in 0..n {
        let mut t = rng.text(&pieces, 4);
        if t.is_empty() {
            t = format!("w{i}");
        }
        hrefs.push(format!("/repo/keywords/{t}/"));
        texts.push(t);
        weights.push(1.0 + (rng.next() % 100) as f64);
    }
    (texts, hrefs, weights)
}

fn words_of<'a>(texts: &'a [String], hrefs: &'a [String], weights: &[f64]) -> Vec<CloudWord<'a>> {
    texts
        .iter()
        .zip(hrefs)
        .zip(weights)
        .enumerate()
        .map(|(i, ((t, h), &w))| word(t, w, (i % 3 != 0).then_some(h.as_str())))
        .collect()
}

fn assert_valid_layout(placed: &[Placed], opts: &CloudOptions) {
    for (i, a) in placed.iter().enumerate() {
        assert!(
            a.inside(opts.width, opts.height),
            "{a:?} outside the canvas"
        );
        for b in &placed[i + 1..] {
            assert!(!a.collides(b, PADDING), "{a:?} overlaps {b:?}");
        }
    }
}

#[test]
fn cloud_is_valid_xml_with_a_text_per_placed_word() {
    let words = [
        word("日本銀行", 30.0, Some("/repo/keywords/日本銀行/")),
        word("円安", 12.0, Some("/repo/keywords/円安/")),
        word("OpenAI", 8.0, None),
    ];
    let opts = CloudOptions {
        label: "6月1日のワード".into(),
        ..CloudOptions::default()
    };
    let svg = word_cloud_svg(&words, &opts);
    let doc = roxmltree::Document::parse(&svg).expect("valid XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("class"), Some("cloud"));
    assert_eq!(root.attribute("viewBox"), Some("0 0 640.0 360.0"));
    assert_eq!(root.attribute("aria-label"), Some("6月1日のワード"));
    assert_eq!(root.attribute("role"), Some("group"));
    let title = root.children().find(|n| n.has_tag_name("title")).unwrap();
    assert_eq!(title.text(), Some("6月1日のワード"));
    let texts: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .collect();
    assert_eq!(texts.len(), 3);
    assert_eq!(texts[0].text(), Some("日本銀行"));
    assert_eq!(texts[0].attribute("class"), Some("w5"));
    assert_eq!(texts[0].attribute("font-size"), Some("56.0"));
    assert!(!svg.contains("style"), "no inline styles: {svg}");
    assert!(!svg.contains("font-family"));
}

#[test]
fn unlinked_cloud_is_an_image() {
    let svg = word_cloud_svg(&[word("単語", 1.0, None)], &CloudOptions::default());
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert_eq!(doc.root_element().attribute("role"), Some("img"));
}

#[test]
fn placed_boxes_never_overlap_and_stay_inside() {
    for (seed, opts) in [
        (1, CloudOptions::default()),
        (
            2,
            CloudOptions {
                max_words: 200,
                ..CloudOptions::default()
            },
        ),
        (
            3,
            CloudOptions {
                width: 320.0,
                height: 480.0,
                min_font: 12.0,
                max_font: 40.0,
                max_words: 120,
                label: String::new(),
                link_label: String::new(),
            },
        ),
    ] {
        let (texts, hrefs, weights) = mixed(200, seed);
        let words = words_of(&texts, &hrefs, &weights);
        let placed = layout(&words, &opts);
        assert!(
            placed.len() >= 20,
            "seed {seed}: only {} placed",
            placed.len()
        );
        assert!(placed.len() <= opts.max_words);
        assert_valid_layout(&placed, &opts);
        for p in &placed {
            assert!(p.font_size >= opts.min_font && p.font_size <= opts.max_font);
            assert!((1..=STEPS).contains(&p.step));
        }
    }
}

#[test]
fn same_input_gives_the_same_bytes_whatever_its_order() {
    let (texts, hrefs, weights) = mixed(80, 7);
    let words = words_of(&texts, &hrefs, &weights);
    let opts = CloudOptions::default();
    let a = word_cloud_svg(&words, &opts);
    assert_eq!(a, word_cloud_svg(&words, &opts));
    // Distinct words in another order: the same cloud (indexes aside, which the SVG lacks).
    let mut seen = std::collections::HashSet::new();
    let distinct: Vec<_> = words
        .iter()
        .copied()
        .filter(|w| seen.insert(w.text))
        .collect();
    let mut reversed = distinct.clone();
    reversed.reverse();
    assert_eq!(
        word_cloud_svg(&distinct, &opts),
        word_cloud_svg(&reversed, &opts)
    );
}

#[test]
fn hostile_text_and_hrefs_are_escaped() {
    let words = [
        word(
            "<script>alert(1)</script>",
            9.0,
            Some("/k/\"><script>x</script>/"),
        ),
        word("a&b \"q\" 'x'", 8.0, Some("/k/a&b/")),
        word("nul\u{0}\u{1b}[31mbell\u{7}", 7.0, None),
        word("]]><!--", 6.0, Some("javascript:alert(1)")),
        word("data", 5.0, Some(" DATA:text/html,<b>")),
    ];
    let opts = CloudOptions {
        label: "</title><script>".into(),
        ..CloudOptions::default()
    };
    let svg = word_cloud_svg(&words, &opts);
    assert!(!svg.contains("<script"), "{svg}");
    assert!(!svg.contains("javascript:"), "{svg}");
    assert!(!svg.to_ascii_lowercase().contains("data:"), "{svg}");
    let doc = roxmltree::Document::parse(&svg).expect("valid XML");
    let shown: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap().to_string())
        .collect();
    assert_eq!(
        shown,
        [
            "<script>alert(1)</script>",
            "a&b \"q\" 'x'",
            "nul[31mbell",
            "]]><!--",
            "data"
        ]
    );
    let hrefs: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("a"))
        .map(|n| n.attribute("href").unwrap())
        .collect();
    assert_eq!(hrefs, ["/k/\"><script>x</script>/", "/k/a&b/"]);
    assert_eq!(
        doc.root_element().attribute("aria-label"),
        Some("</title><script>")
    );
}

#[test]
fn linked_words_are_links_and_the_others_are_not() {
    let words = [
        word("日本銀行", 5.0, Some("/repo/keywords/日本銀行/")),
        word("金利", 4.0, None),
        word("Apple", 3.0, Some("https://example.com/k/apple")),
        word("為替", 2.0, Some("../為替/")),
    ];
    let svg = word_cloud_svg(&words, &CloudOptions::default());
    let doc = roxmltree::Document::parse(&svg).unwrap();
    for n in doc.descendants().filter(|n| n.has_tag_name("text")) {
        let text = n.text().unwrap();
        let w = words.iter().find(|w| w.text == text).unwrap();
        let parent = n.parent_element().unwrap();
        match w.href {
            Some(href) => {
                assert!(parent.has_tag_name("a"), "{text} is not a link");
                assert_eq!(parent.attribute("href"), Some(href));
            }
            None => assert!(parent.has_tag_name("svg"), "{text} is a link"),
        }
    }
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("a")).count(), 3);
}

#[test]
fn when_not_all_fit_the_heaviest_are_kept() {
    // 300 long words of the same shape: only the weight decides, and at full size only a
    // few would fit.
    let texts: Vec<String> = (0..300).map(|i| format!("経済ニュース{i:03}")).collect();
    let words: Vec<_> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| word(t, (300 - i) as f64, None))
        .collect();
    let opts = CloudOptions {
        max_words: 300,
        ..CloudOptions::default()
    };
    let placed = layout(&words, &opts);
    assert!(placed.len() < 300, "all fit: make the test harder");
    assert_valid_layout(&placed, &opts);
    let mut kept: Vec<_> = placed.iter().map(|p| p.index).collect();
    kept.sort();
    // The ten heaviest are all placed (the cloud was made smaller for them); lighter words
    // may still squeeze into gaps after the first one left out.
    let first_gap = kept
        .iter()
        .enumerate()
        .find(|(i, k)| *i != **k)
        .map_or(kept.len(), |(i, _)| i);
    assert!(first_gap >= HEAVY, "only the {first_gap} heaviest kept");
    assert!(placed[0].font_size < opts.max_font, "not made smaller");
    // max_words: exactly the heaviest few.
    let few = layout(
        &words,
        &CloudOptions {
            max_words: 5,
            ..CloudOptions::default()
        },
    );
    assert_eq!(
        few.iter().map(|p| p.index).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
}

#[test]
fn empty_or_weightless_input_gives_an_empty_string() {
    let opts = CloudOptions::default();
    assert_eq!(word_cloud_svg(&[], &opts), "");
    let bad = [
        word("zero", 0.0, None),
        word("neg", -3.0, None),
        word("nan", f64::NAN, None),
        word("inf", f64::INFINITY, None),
        word("  \u{200b}\n", 5.0, None),
    ];
    assert_eq!(word_cloud_svg(&bad, &opts), "");
    let flat = CloudOptions {
        height: 0.0,
        ..CloudOptions::default()
    };
    assert_eq!(word_cloud_svg(&[word("語", 1.0, None)], &flat), "");
}

#[test]
fn sizes_grow_with_weight_between_the_bounds() {
    let words = [
        word("a", 100.0, None),
        word("b", 25.0, None),
        word("c", 1.0, None),
    ];
    let opts = CloudOptions::default();
    let placed = layout(&words, &opts);
    let size = |i: usize| placed.iter().find(|p| p.index == i).unwrap().font_size;
    assert_eq!(size(0), opts.max_font);
    assert_eq!(size(2), opts.min_font);
    // sqrt: 25 is (5-1)/(10-1) of the way.
    assert_eq!(size(1), round1(18.0 + 38.0 * 4.0 / 9.0));
    assert_eq!(placed[0].index, 0);
    assert_eq!(
        (placed[0].x, placed[0].y),
        (320.0, 180.0),
        "the heaviest at the centre"
    );
}

#[test]
fn a_word_too_wide_shrinks_or_is_left_out() {
    let long = "Supercalifragilisticexpialidocious";
    let huge = "長".repeat(100);
    let words = [
        word(long, 10.0, None),
        word(&huge, 9.0, None),
        word("短", 1.0, None),
    ];
    let opts = CloudOptions::default();
    let placed = layout(&words, &opts);
    assert_eq!(placed.iter().map(|p| p.index).collect::<Vec<_>>(), [0, 2]);
    assert!(placed[0].font_size < opts.max_font && placed[0].w <= opts.width);
    assert_valid_layout(&placed, &opts);
}

#[test]
fn width_estimates_are_by_script() {
    assert_eq!(text_em("日本銀行"), 4.0);
    assert_eq!(text_em("ＡＢ"), 2.0);
    assert!(text_em("ill") < text_em("mmm"));
    assert!(text_em("e\u{301}") == text_em("e"));
    assert!(text_em("😀") > 1.0);
    assert_eq!(text_em("\u{200b}"), 0.0);
}

/// Issue 13 (the cold build's cost): the spiral's points are computed once per cloud and
/// shared by every word; they must be exactly the points each word used to compute for
/// itself (the same bytes for every cloud), to the same end.
#[test]
fn the_shared_spiral_is_the_spiral_each_word_walked() {
    for (width, height) in [(640.0_f64, 360.0_f64), (300.0, 300.0), (97.3, 411.9)] {
        let (cx, cy) = (width / 2.0, height / 2.0);
        let aspect = width / height;
        let r_max = ((cx / aspect).powi(2) + cy.powi(2)).sqrt() + SPIRAL_TURN;
        let b = SPIRAL_TURN / std::f64::consts::TAU;
        // As `place` walked it for each word.
        let mut direct = Vec::new();
        let mut theta = 0.0_f64;
        loop {
            let r = b * theta;
            if r > r_max {
                break;
            }
            direct.push((
                round1(cx + r * theta.cos() * aspect),
                round1(cy + r * theta.sin()),
            ));
            theta += (SPIRAL_STEP / r.max(SPIRAL_STEP)).min(0.5);
        }
        let mut spiral = Spiral::new(width, height);
        // Out of order too: a later word asks for points an earlier one already computed.
        assert_eq!(spiral.point(10), Some(direct[10]));
        let shared: Vec<(f64, f64)> = (0..).map_while(|i| spiral.point(i)).collect();
        assert_eq!(shared, direct, "{width}×{height}");
        assert_eq!(spiral.point(direct.len()), None);
        assert_eq!(
            spiral.points.len(),
            direct.len(),
            "each point computed once"
        );
    }
}

/// Issue 22: a linked word that says nothing as a link's text ("Go") carries what it is in its
/// link (`<title>`, which is also its text content), and only such a word.
#[test]
fn a_generic_linked_word_says_what_it_is() {
    let words = [
        CloudWord {
            text: "Go",
            weight: 3.0,
            href: Some("/k/go/"),
        },
        CloudWord {
            text: "Rust",
            weight: 2.0,
            href: Some("/k/rust/"),
        },
    ];
    let opts = CloudOptions {
        link_label: "Keyword".into(),
        ..CloudOptions::default()
    };
    let svg = word_cloud_svg(&words, &opts);
    assert!(
        svg.contains(r#"<a href="/k/go/"><title>Keyword: Go</title><text"#),
        "{svg}"
    );
    assert!(svg.contains(r#"<a href="/k/rust/"><text"#), "{svg}");
    let plain = word_cloud_svg(&words, &CloudOptions::default());
    assert!(!plain.contains("Keyword"), "{plain}");
}
