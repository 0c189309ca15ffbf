//! A day's words as a word cloud: an inline SVG laid out at build time.
//!
//! Owns the layout (font size per word, a deterministic spiral placement with collision checks)
//! and the markup. It does not choose the words, weigh them or build their URLs: the caller
//! passes [`CloudWord`]s with links already under the site's base path.
//!
//! No script and no web fonts, so the layout cannot measure text: each word's box is estimated
//! per character ([`text_em`]: full-width 1 em, Latin letters 0.35–1 em, emoji 1.25 em), on the
//! wide side of common system fonts, and boxes keep [`PADDING`] between them. Sizes go with the
//! square root of the weight between `min_font` and `max_font`. Words are placed heaviest first
//! (ties by text) on an Archimedean spiral from the centre, stretched to the canvas's aspect;
//! a word that finds no free spot inside the canvas is left out. Same input, same bytes.
//!
//! The markup carries no `style` attribute (the site's CSP forbids them) and no font family.
//! The theme styles it by class; the root has `fill="currentColor"` so it reads in either theme
//! without CSS. For example:
//!
//! ```css
//! .cloud { width: 100%; height: auto; display: block; }
//! .cloud text { font-weight: normal; letter-spacing: normal; }  /* never font-size: the layout sets it */
//! .cloud .w5, .cloud .w4 { fill: var(--accent); }
//! .cloud .w1 { fill: var(--muted); }
//! .cloud a:hover text, .cloud a:focus text { text-decoration: underline; }
//! ```

use std::fmt::Write as _;

use crate::text::xml_escape as esc;

/// The least gap, in viewBox units, between two words' boxes.
pub const PADDING: f64 = 2.0;
/// A word's box height per em: room for ascenders, descenders and CJK glyphs whichever way a
/// font centres them on `dominant-baseline="central"`.
const LINE_EM: f64 = 1.2;
/// The spiral: its turns are this far apart…
const SPIRAL_TURN: f64 = 5.0;
/// …and successive candidate points about this far along it.
const SPIRAL_STEP: f64 = 3.0;
/// When one of this many heaviest words finds no spot, the layout is tried again with the
/// largest font this much smaller, at most [`RETRIES`] times.
const HEAVY: usize = 10;
const SHRINK: f64 = 0.85;
const RETRIES: usize = 4;
/// Colour steps: classes `w1` (lightest) to `w5` (heaviest).
pub const STEPS: u8 = 5;

/// One word to draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CloudWord<'a> {
    /// The word as shown. Control characters are dropped; the rest is escaped.
    pub text: &'a str,
    /// Its weight (a count, a score): larger draws larger. Words with a weight that is not a
    /// positive number are left out.
    pub weight: f64,
    /// Where it links, a URL already under the site's base path (`/repo/keywords/日本銀行/`);
    /// `None` draws it unlinked. A URL with a scheme other than http(s) is not linked.
    pub href: Option<&'a str>,
}

/// The canvas and the scale.
#[derive(Debug, Clone, PartialEq)]
pub struct CloudOptions {
    /// The viewBox width; the page scales the SVG as a whole.
    pub width: f64,
    /// The viewBox height.
    pub height: f64,
    /// The lightest word's font size, in viewBox units.
    pub min_font: f64,
    /// The heaviest word's font size.
    pub max_font: f64,
    /// At most this many words, the heaviest, are considered.
    pub max_words: usize,
    /// The cloud's accessible name (`aria-label` and `<title>`).
    pub label: String,
}

impl Default for CloudOptions {
    /// 640 × 360 with fonts from 18 to 56: on a 360 px wide phone the smallest word is still
    /// about 10 px.
    fn default() -> Self {
        CloudOptions {
            width: 640.0,
            height: 360.0,
            min_font: 18.0,
            max_font: 56.0,
            max_words: 50,
            label: "word cloud".to_string(),
        }
    }
}

/// A word the layout placed: its box is centred on (`x`, `y`), `w` × `h`, in viewBox units.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    /// The word's index in the input slice.
    pub index: usize,
    /// The centre of its box (where the text is anchored: middle, central).
    pub x: f64,
    pub y: f64,
    pub font_size: f64,
    pub w: f64,
    pub h: f64,
    /// Its colour step, 1 (lightest) to [`STEPS`] (heaviest): the class `w{step}`.
    pub step: u8,
}

impl Placed {
    /// Whether the two boxes come closer than `pad` to each other.
    pub fn collides(&self, other: &Placed, pad: f64) -> bool {
        (self.x - other.x).abs() < (self.w + other.w) / 2.0 + pad
            && (self.y - other.y).abs() < (self.h + other.h) / 2.0 + pad
    }

    /// Whether the box lies inside a `width` × `height` canvas.
    pub fn inside(&self, width: f64, height: f64) -> bool {
        self.x - self.w / 2.0 >= 0.0
            && self.x + self.w / 2.0 <= width
            && self.y - self.h / 2.0 >= 0.0
            && self.y + self.h / 2.0 <= height
    }
}

/// The cloud as an inline `<svg class="cloud">`, or an empty string when no word can be drawn
/// (no words, or none with a positive weight and visible text, or a degenerate canvas): the
/// caller then leaves the cloud's box out.
///
/// Each word is `<text class="w{n}" …>`, inside `<a href>` when linked, in placement order
/// (heaviest first, which is also the tab order). A cloud with links is `role="group"` rather
/// than `role="img"`, because an image's children are hidden from screen readers and its links
/// would be lost; both carry the label.
pub fn word_cloud_svg(words: &[CloudWord], opts: &CloudOptions) -> String {
    let placed = layout(words, opts);
    if placed.is_empty() {
        return String::new();
    }
    let label = esc(&opts.label);
    let linked = placed
        .iter()
        .any(|p| safe_href(words[p.index].href).is_some());
    let role = if linked { "group" } else { "img" };
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg class="cloud" viewBox="0 0 {:.1} {:.1}" role="{role}" aria-label="{label}" fill="currentColor" xmlns="http://www.w3.org/2000/svg"><title>{label}</title>"#,
        opts.width, opts.height,
    );
    for p in &placed {
        let word = &words[p.index];
        let text = format!(
            r#"<text x="{:.1}" y="{:.1}" font-size="{:.1}" class="w{}" text-anchor="middle" dominant-baseline="central">{}</text>"#,
            p.x,
            p.y,
            p.font_size,
            p.step,
            esc(&clean(word.text)),
        );
        match safe_href(word.href) {
            Some(href) => {
                let _ = write!(svg, r#"<a href="{}">{text}</a>"#, esc(href));
            }
            None => svg.push_str(&text),
        }
    }
    svg.push_str("</svg>");
    svg
}

/// The layout alone: the words that fit, heaviest first, with their boxes. Words are
/// considered in order of weight (then text, then index), at most `max_words` of them; a word
/// wider than the canvas at its size is shrunk to fit, down to `min_font`, else left out. When
/// one of the ten heaviest finds no spot, the whole cloud is laid out again with `max_font`
/// 15 % smaller (at most four times, never below `min_font`).
pub fn layout(words: &[CloudWord], opts: &CloudOptions) -> Vec<Placed> {
    let (width, height) = (opts.width, opts.height);
    if !(width.is_finite() && height.is_finite() && width > 0.0 && height > 0.0) {
        return Vec::new();
    }
    let min_font = if opts.min_font.is_finite() && opts.min_font > 0.0 {
        opts.min_font
    } else {
        CloudOptions::default().min_font
    };
    let max_font = if opts.max_font.is_finite() {
        opts.max_font.max(min_font)
    } else {
        min_font
    };

    // The candidates: a positive weight and something to show.
    let mut order: Vec<(usize, String)> = words
        .iter()
        .enumerate()
        .filter(|(_, w)| w.weight.is_finite() && w.weight > 0.0)
        .map(|(i, w)| (i, clean(w.text)))
        .filter(|(_, t)| text_em(t) > 0.0)
        .collect();
    order.sort_by(|(a, at), (b, bt)| {
        words[*b]
            .weight
            .total_cmp(&words[*a].weight)
            .then_with(|| at.cmp(bt))
            .then(a.cmp(b))
    });
    order.truncate(opts.max_words);
    let Some(((heaviest, _), (lightest, _))) = order.first().zip(order.last()) else {
        return Vec::new();
    };
    let (hi, lo) = (
        words[*heaviest].weight.sqrt(),
        words[*lightest].weight.sqrt(),
    );

    // A flat distribution makes many big words: when one of the heaviest finds no spot, the
    // whole cloud is tried again smaller.
    let mut top_font = max_font;
    for _ in 0..RETRIES {
        let (placed, missed) = place(
            words,
            &order,
            (lo, hi),
            (min_font, top_font),
            (width, height),
        );
        if !missed || top_font <= min_font {
            return placed;
        }
        top_font = round1((top_font * SHRINK).max(min_font));
    }
    place(
        words,
        &order,
        (lo, hi),
        (min_font, top_font),
        (width, height),
    )
    .0
}

/// One layout pass at the given font range; also whether one of the [`HEAVY`] heaviest words
/// found no spot.
fn place(
    words: &[CloudWord],
    order: &[(usize, String)],
    (lo, hi): (f64, f64),
    (min_font, max_font): (f64, f64),
    (width, height): (f64, f64),
) -> (Vec<Placed>, bool) {
    let (cx, cy) = (width / 2.0, height / 2.0);
    let aspect = width / height;
    // The spiral has covered the whole canvas once its ellipse holds the corners.
    let r_max = ((cx / aspect).powi(2) + cy.powi(2)).sqrt() + SPIRAL_TURN;
    let b = SPIRAL_TURN / std::f64::consts::TAU;

    let mut placed: Vec<Placed> = Vec::new();
    // Boxes that found no spot: any box at least as large fails too.
    let mut failed: Vec<(f64, f64)> = Vec::new();
    let mut missed = false;
    for (rank, (index, text)) in order.iter().enumerate() {
        let t = if hi > lo {
            (words[*index].weight.sqrt() - lo) / (hi - lo)
        } else {
            0.5
        };
        let step = 1 + ((t * STEPS as f64) as u8).min(STEPS - 1);
        let em = text_em(text);
        let mut font_size = round1(min_font + (max_font - min_font) * t);
        if em * font_size > width {
            // Too wide at its size: shrunk to fit, or left out (no smaller cloud would help).
            font_size = (width / em * 10.0).floor() / 10.0;
            if font_size < min_font {
                continue;
            }
        }
        let (w, h) = (em * font_size, LINE_EM * font_size);
        if h > height || failed.iter().any(|&(fw, fh)| fw <= w && fh <= h) {
            missed |= rank < HEAVY;
            continue;
        }
        let mut candidate = Placed {
            index: *index,
            x: 0.0,
            y: 0.0,
            font_size,
            w,
            h,
            step,
        };
        let mut last_hit = 0;
        let mut theta = 0.0_f64;
        let mut found = false;
        loop {
            let r = b * theta;
            if r > r_max {
                break;
            }
            candidate.x = round1(cx + r * theta.cos() * aspect);
            candidate.y = round1(cy + r * theta.sin());
            theta += (SPIRAL_STEP / r.max(SPIRAL_STEP)).min(0.5);
            if !candidate.inside(width, height) {
                continue;
            }
            // The box that blocked the last point most likely blocks this one.
            if placed
                .get(last_hit)
                .is_some_and(|p| p.collides(&candidate, PADDING))
            {
                continue;
            }
            match placed.iter().position(|p| p.collides(&candidate, PADDING)) {
                Some(i) => last_hit = i,
                None => {
                    found = true;
                    break;
                }
            }
        }
        if found {
            placed.push(candidate);
        } else {
            missed |= rank < HEAVY;
            failed.push((w, h));
        }
    }
    (placed, missed)
}

/// A conservative estimate of `text`'s width in em, for a proportional system font at normal
/// weight: full-width (CJK, kana, Hangul, full-width forms) 1 em; emoji 1.25 em; Latin by
/// letter shape, from 0.35 em (`i`, `l`, `.`) to 1 em (`m`, `W`); other scripts 0.8 em;
/// combining marks and format characters nothing.
pub fn text_em(text: &str) -> f64 {
    text.chars().map(char_em).sum()
}

fn char_em(c: char) -> f64 {
    let u = c as u32;
    match c {
        ' ' => 0.35,
        'i' | 'j' | 'l' | 'I' | '!' | '|' | '.' | ',' | ':' | ';' | '\'' | '`' => 0.35,
        'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '{' | '}' | '"' | '-' | '/' | '\\' => 0.5,
        'm' | 'w' | 'M' | 'W' | '@' | '%' => 1.0,
        'A'..='Z' | '&' | '#' => 0.8,
        _ if c.is_ascii() => 0.65,
        _ => match u {
            // Combining marks, zero-width and bidi controls, variation selectors, BOM.
            0x0300..=0x036F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x20D0..=0x20FF
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xE0100..=0xE01EF => 0.0,
            // Half-width katakana and Hangul.
            0xFF61..=0xFFDC => 0.6,
            // Emoji and pictographs: often drawn wider than an em.
            0x1F000..=0x1FAFF | 0x2600..=0x27BF => 1.25,
            // Hangul Jamo, CJK punctuation, kana, CJK ideographs, Yi, Hangul syllables,
            // compatibility ideographs, vertical and small forms, full-width forms, planes 2–3.
            0x1100..=0x115F
            | 0x2E80..=0x303E
            | 0x3040..=0xA4CF
            | 0xAC00..=0xD7A3
            | 0xF900..=0xFAFF
            | 0xFE10..=0xFE19
            | 0xFE30..=0xFE6F
            | 0xFF00..=0xFF60
            | 0xFFE0..=0xFFE6
            | 0x20000..=0x3FFFD => 1.0,
            _ => 0.8,
        },
    }
}

/// The text without control characters (not allowed in XML, or meaningless in one line),
/// trimmed.
fn clean(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .to_string()
}

/// The href if it is safe to link: a path, a relative URL, or http(s). Never `javascript:`,
/// `data:` and the like.
fn safe_href(href: Option<&str>) -> Option<&str> {
    let href = href?.trim();
    if href.is_empty() || href.chars().any(char::is_control) {
        return None;
    }
    match href.find([':', '/', '?', '#']) {
        Some(i) if href.as_bytes()[i] == b':' => crate::text::http_url(href).map(|_| href),
        _ => Some(href),
    }
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

#[cfg(test)]
mod tests {
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

    fn words_of<'a>(
        texts: &'a [String],
        hrefs: &'a [String],
        weights: &[f64],
    ) -> Vec<CloudWord<'a>> {
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
}
