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

use crate::text::{is_generic_link_text, xml_escape as esc};

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
    /// What the linked words are (`頻出ワード`): a linked word whose text says nothing as a
    /// link's text ([`crate::text::is_generic_link_text`]: "Go", "More") gets
    /// `<title>{link_label}: {word}</title>` in its link, so the link says what it is. Empty:
    /// never.
    pub link_label: String,
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
            link_label: String::new(),
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
            Some(href) if !opts.link_label.is_empty() && is_generic_link_text(word.text) => {
                let _ = write!(
                    svg,
                    r#"<a href="{}"><title>{}: {}</title>{text}</a>"#,
                    esc(href),
                    esc(&opts.link_label),
                    esc(&clean(word.text)),
                );
            }
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
    let mut spiral = Spiral::new(width, height);
    for _ in 0..RETRIES {
        let (placed, missed) = place(
            words,
            &order,
            (lo, hi),
            (min_font, top_font),
            (width, height),
            &mut spiral,
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
        &mut spiral,
    )
    .0
}

/// The spiral's candidate points, from the centre outwards, each computed once and kept: every
/// word of every pass walks the same points (they were computed again, a sine and a cosine
/// each, for every word: about a third of a cold build's word-cloud time).
struct Spiral {
    centre: (f64, f64),
    aspect: f64,
    /// The distance between turns per radian.
    b: f64,
    /// The spiral has covered the whole canvas once its ellipse holds the corners.
    r_max: f64,
    /// The angle of the next point.
    theta: f64,
    points: Vec<(f64, f64)>,
}

impl Spiral {
    fn new(width: f64, height: f64) -> Spiral {
        let (cx, cy) = (width / 2.0, height / 2.0);
        let aspect = width / height;
        Spiral {
            centre: (cx, cy),
            aspect,
            b: SPIRAL_TURN / std::f64::consts::TAU,
            r_max: ((cx / aspect).powi(2) + cy.powi(2)).sqrt() + SPIRAL_TURN,
            theta: 0.0,
            points: Vec::new(),
        }
    }

    /// Point `i` (rounded to a tenth), or `None` past the end of the spiral.
    fn point(&mut self, i: usize) -> Option<(f64, f64)> {
        while self.points.len() <= i {
            let r = self.b * self.theta;
            if r > self.r_max {
                return None;
            }
            let (cx, cy) = self.centre;
            self.points.push((
                round1(cx + r * self.theta.cos() * self.aspect),
                round1(cy + r * self.theta.sin()),
            ));
            self.theta += (SPIRAL_STEP / r.max(SPIRAL_STEP)).min(0.5);
        }
        Some(self.points[i])
    }
}

/// One layout pass at the given font range; also whether one of the [`HEAVY`] heaviest words
/// found no spot.
fn place(
    words: &[CloudWord],
    order: &[(usize, String)],
    (lo, hi): (f64, f64),
    (min_font, max_font): (f64, f64),
    (width, height): (f64, f64),
    spiral: &mut Spiral,
) -> (Vec<Placed>, bool) {
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
        let mut found = false;
        for n in 0.. {
            let Some((x, y)) = spiral.point(n) else {
                break;
            };
            (candidate.x, candidate.y) = (x, y);
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
mod tests;
