//! Rising words (急上昇ワード): which keywords jump in the current period against their recent
//! baseline, and a sparkline to show a word's series.
//!
//! Owns the score only. Counting keywords per hour or day, choosing the periods and showing the
//! result are the caller's: it passes each word's counts per period (oldest first, the current
//! period last) and the number of all keywords counted in each period.
//!
//! # The score
//!
//! A z-score of the current count against what the baseline predicts, with a floor on the
//! deviation so that neither rare nor frequent words rise on noise:
//!
//! - The baseline is the `window` periods before the current one (periods with no volume at
//!   all, e.g. hours nothing was fetched, are skipped). Its rate is pooled:
//!   `p = Σ count / Σ total`, so volume changes cancel out.
//! - The expected count now is `e = p × T`, with `T` the current period's total.
//! - The variance is the largest of three floors:
//!   - counting noise with some overdispersion, `e + φ·e²` (negative-binomial style, `φ` =
//!     [`OVERDISPERSION`]: real rates wobble by about 20 % from period to period, so a very
//!     frequent word needs a jump of that order, not just many more occurrences);
//!   - the baseline's own spread, the sample variance of the periods' rates scaled to `T`
//!     (a word that was already high on some days does not rise when it is high again);
//!   - 1, so a word never seen before scores about its count (`0,0,0,0 → 3` scores ≈ 3, not ∞).
//! - `score = (count − e) / √variance`.
//!
//! A word rises when its count is at least `min_count` and its score at least `min_score`.
//! With the defaults (a 7-period window, 3 and 2.5) a brand-new word needs 3 occurrences; a
//! word seen about 5 times a period needs 12; one seen 1000 times needs about 1500.

use std::fmt::Write as _;

/// `φ`: the rate's relative spread between periods beyond counting noise, squared (20 %).
pub const OVERDISPERSION: f64 = 0.04;

/// What counts as rising.
#[derive(Debug, Clone, PartialEq)]
pub struct BurstSettings {
    /// How many periods before the current one form the baseline (the site's `[trends]`
    /// `day_window` and `hour_window`: 7 days and 48 hours by default).
    pub window: usize,
    /// The least count in the current period.
    pub min_count: u32,
    /// The least score (see the module documentation).
    pub min_score: f64,
    /// At most this many words are returned.
    pub top: usize,
}

impl Default for BurstSettings {
    /// Daily: the previous 7 days, at least 3 occurrences today and a score of 2.5, the top 20.
    fn default() -> Self {
        BurstSettings {
            window: 7,
            min_count: 3,
            min_score: 2.5,
            top: 20,
        }
    }
}

/// One word's burst score for the current period (the last element).
///
/// `series[i]` is the word's count in period `i`, oldest first; `totals[p]` is the number of
/// all keywords counted in period `p`. The two are aligned at their ends (the current period
/// last); only their common length is used.
///
/// `None` when the word cannot rise: its current count is below `min_count`, the current period
/// has no volume, or the baseline has no period with volume. Otherwise the score, which may be
/// below `min_score` (or negative: falling).
pub fn burst_score(series: &[u32], totals: &[u32], s: &BurstSettings) -> Option<f64> {
    let n = series.len().min(totals.len());
    let (series, totals) = (&series[series.len() - n..], &totals[totals.len() - n..]);
    let (&count, &total) = series.last().zip(totals.last())?;
    if count < s.min_count || total == 0 {
        return None;
    }
    let start = (n - 1).saturating_sub(s.window);
    let baseline = || {
        series[start..n - 1]
            .iter()
            .zip(&totals[start..n - 1])
            .filter(|&(_, &t)| t > 0)
            .map(|(&c, &t)| (f64::from(c), f64::from(t)))
    };
    let (periods, sum_c, sum_t) = baseline().fold((0usize, 0.0, 0.0), |(k, c, t), (ci, ti)| {
        (k + 1, c + ci, t + ti)
    });
    if periods == 0 {
        return None;
    }
    let t_now = f64::from(total);
    let expected = sum_c / sum_t * t_now;
    let spread = if periods > 1 {
        let mean = baseline().map(|(c, t)| c / t).sum::<f64>() / periods as f64;
        let var =
            baseline().map(|(c, t)| (c / t - mean).powi(2)).sum::<f64>() / (periods - 1) as f64;
        var * t_now * t_now
    } else {
        0.0
    };
    let variance = (expected + OVERDISPERSION * expected * expected)
        .max(spread)
        .max(1.0);
    Some((f64::from(count) - expected) / variance.sqrt())
}

/// The rising words among `words` (each a key and its series, as for [`burst_score`]), best
/// first (ties by key), at most `top`.
pub fn rising<'a, K: Ord + Copy>(
    words: impl IntoIterator<Item = (K, &'a [u32])>,
    totals: &[u32],
    s: &BurstSettings,
) -> Vec<(K, f64)> {
    let mut found: Vec<(K, f64)> = words
        .into_iter()
        .filter_map(|(k, series)| {
            let score = burst_score(series, totals, s)?;
            (score.is_finite() && score >= s.min_score).then_some((k, score))
        })
        .collect();
    found.sort_by(|(ka, a), (kb, b)| b.total_cmp(a).then(ka.cmp(kb)));
    found.truncate(s.top);
    found
}

/// A small inline SVG line of `values` (oldest first), scaled to the largest, with a dot on the
/// last value: `<svg class="spark">` holding `<path class="line">` and `<circle class="last">`.
/// The line is a path of relative steps between points rounded to a tenth (so it draws exactly
/// the polyline of those points), and a run of equal values is one horizontal step: a mostly
/// flat series of 48 hours costs a few dozen bytes, not 48 coordinate pairs (a year of digests
/// and days carries thousands of these). Presentation attributes (`stroke="currentColor"`,
/// `fill`) make it readable without CSS; the theme may restyle the classes. Inline in HTML, so
/// without an `xmlns`. An empty string when there are no values.
pub fn sparkline_svg(values: &[u32], label: &str) -> String {
    const W: f64 = 96.0;
    const H: f64 = 24.0;
    const PAD: f64 = 2.5;
    if values.is_empty() {
        return String::new();
    }
    let max = f64::from(values.iter().copied().max().unwrap_or(0).max(1));
    // Coordinates in tenths, so the relative steps add up to the rounded points exactly.
    let tenths = |v: f64| (v * 10.0).round() as i64;
    let x = |i: usize| {
        tenths(if values.len() == 1 {
            W / 2.0
        } else {
            PAD + (W - 2.0 * PAD) * i as f64 / (values.len() - 1) as f64
        })
    };
    let y = |v: u32| tenths(H - PAD - (H - 2.0 * PAD) * f64::from(v) / max);
    let label = crate::text::xml_escape(label);
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg class="spark" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" aria-label="{label}"><title>{label}</title><path class="line" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" d="M{} {}"#,
        Tenths(x(0)),
        Tenths(y(values[0])),
    );
    let mut flat = 0i64;
    let mut last_cmd = 'M';
    for i in 1..values.len() {
        let (dx, dy) = (x(i) - x(i - 1), y(values[i]) - y(values[i - 1]));
        if dy == 0 {
            flat += dx;
            continue;
        }
        if flat > 0 {
            let _ = write!(svg, "h{}", Tenths(flat));
            flat = 0;
            last_cmd = 'h';
        }
        // Repeated `l` steps share one letter; a step's numbers are split by a space or a
        // minus sign.
        if last_cmd != 'l' {
            svg.push('l');
        } else if dx >= 0 {
            svg.push(' ');
        }
        let _ = write!(svg, "{}", Tenths(dx));
        if dy >= 0 {
            svg.push(' ');
        }
        let _ = write!(svg, "{}", Tenths(dy));
        last_cmd = 'l';
    }
    if flat > 0 {
        let _ = write!(svg, "h{}", Tenths(flat));
    }
    let last = values.len() - 1;
    let _ = write!(
        svg,
        r#""/><circle class="last" cx="{}" cy="{}" r="2" fill="currentColor"/></svg>"#,
        Tenths(x(last)),
        Tenths(y(values[last])),
    );
    svg
}

/// A length in tenths as SVG writes it: `21.5`, `-6.3`, `12` (no `.0`).
struct Tenths(i64);

impl std::fmt::Display for Tenths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let (whole, tenth) = (self.0.abs() / 10, self.0.abs() % 10);
        if tenth == 0 {
            write!(f, "{sign}{whole}")
        } else {
            write!(f, "{sign}{whole}.{tenth}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: [u32; 8] = [1000; 8];

    fn score(series: &[u32]) -> Option<f64> {
        burst_score(series, &DAY, &BurstSettings::default())
    }

    fn rises(series: &[u32], totals: &[u32]) -> bool {
        !rising([(0, series)], totals, &BurstSettings::default()).is_empty()
    }

    #[test]
    fn a_spike_rises() {
        let spike = [2, 3, 1, 2, 2, 3, 2, 30];
        assert!(score(&spike).unwrap() > 10.0, "{:?}", score(&spike));
        assert!(rises(&spike, &DAY));
        // A frequent word that triples rises too.
        assert!(rises(&[100, 95, 110, 105, 98, 102, 100, 300], &DAY));
    }

    #[test]
    fn a_steady_word_does_not_rise_however_frequent() {
        for level in [3, 10, 100, 900] {
            assert!(!rises(&[level; 8], &DAY), "steady at {level}");
            assert!(score(&[level; 8]).unwrap().abs() < 1e-9);
        }
        // Slightly up on a frequent word: many more occurrences, not a burst.
        let totals = [100_000; 8];
        assert!(!rises(
            &[5000, 5010, 4990, 5005, 4995, 5000, 5002, 5600],
            &totals
        ));
    }

    #[test]
    fn a_frequent_word_with_noise_does_not_rise() {
        assert!(!rises(&[100, 130, 80, 120, 90, 110, 95, 135], &DAY));
        assert!(!rises(&[5, 2, 8, 4, 6, 3, 7, 9], &DAY));
    }

    #[test]
    fn a_word_already_high_last_week_does_not_rise_when_high_again() {
        assert!(!rises(&[2, 2, 40, 45, 38, 2, 2, 40], &DAY));
        // But a word that was high once, then back to low, rises on a bigger jump.
        assert!(rises(&[2, 2, 40, 2, 2, 2, 2, 200], &DAY));
    }

    #[test]
    fn a_brand_new_word_with_enough_count_rises_with_a_finite_score() {
        let s = score(&[0, 0, 0, 0, 0, 0, 0, 3]).unwrap();
        assert!(s.is_finite() && s > 2.9 && s <= 3.0, "{s}");
        assert!(rises(&[0, 0, 0, 0, 0, 0, 0, 3], &DAY));
        assert!(rises(&[0, 0, 0, 0, 0, 0, 0, 12], &DAY));
        // Below min_count: no score at all.
        assert_eq!(score(&[0, 0, 0, 0, 0, 0, 0, 2]), None);
    }

    #[test]
    fn volume_changes_do_not_make_everything_rise() {
        let doubled = [1000, 1000, 1000, 1000, 1000, 1000, 1000, 2000];
        assert!(!rises(&[10, 10, 10, 10, 10, 10, 10, 20], &doubled));
        assert!(!rises(&[300, 310, 290, 300, 305, 295, 300, 600], &doubled));
        assert!(rises(&[10, 10, 10, 10, 10, 10, 10, 60], &doubled));
        // Halved volume: a word holding its count has in fact doubled its share.
        let halved = [1000, 1000, 1000, 1000, 1000, 1000, 1000, 500];
        assert!(!rises(&[10, 10, 10, 10, 10, 10, 10, 5], &halved));
    }

    #[test]
    fn only_the_window_is_the_baseline() {
        // High long ago, outside a 7-period window: rises now.
        let totals = [1000; 12];
        assert!(rises(&[50, 50, 50, 50, 2, 2, 2, 2, 2, 2, 2, 50], &totals));
        let s = BurstSettings {
            window: 11,
            ..BurstSettings::default()
        };
        assert!(
            rising(
                [(0, &[50, 50, 50, 50, 2, 2, 2, 2, 2, 2, 2, 50][..])],
                &totals,
                &s
            )
            .is_empty()
        );
    }

    #[test]
    fn no_score_without_volume_or_baseline() {
        let s = BurstSettings::default();
        assert_eq!(burst_score(&[], &[], &s), None);
        assert_eq!(burst_score(&[5], &[100], &s), None, "no baseline");
        assert_eq!(
            burst_score(&[0, 0, 5], &[0, 0, 100], &s),
            None,
            "baseline without volume"
        );
        assert_eq!(
            burst_score(&[1, 5], &[100, 0], &s),
            None,
            "current without volume"
        );
        // Periods without volume are skipped, not read as zeros.
        assert_eq!(
            burst_score(&[10, 0, 10], &[100, 0, 100], &s),
            burst_score(&[10, 10], &[100, 100], &s)
        );
        // Aligned at the end: a longer totals slice is fine.
        assert_eq!(
            burst_score(&[1, 9], &[7, 7, 100, 100], &s),
            burst_score(&[1, 9], &[100, 100], &s)
        );
    }

    /// The sparkline's label is a keyword, which a hand-edited content file can give a control
    /// character: the inline SVG must stay well-formed XML (the one escape, text::xml_escape).
    #[test]
    fn a_sparkline_label_with_control_characters_stays_well_formed() {
        let svg = sparkline_svg(&[1, 2, 3], "a\u{1}<b>&\u{7f}");
        assert!(!svg.contains(['\u{1}', '\u{7f}']), "{svg:?}");
        assert!(svg.contains("a&lt;b&gt;&amp;"), "{svg}");
        let mut reader = quick_xml::Reader::from_str(&svg);
        loop {
            match reader.read_event() {
                Ok(quick_xml::events::Event::Eof) => break,
                Ok(_) => {}
                Err(e) => panic!("{e}: {svg}"),
            }
        }
    }

    #[test]
    fn ranking_is_by_score_then_key_and_capped_at_top() {
        let totals = [1000; 8];
        let a: [u32; 8] = [1, 1, 1, 1, 1, 1, 1, 20];
        let b: [u32; 8] = [1, 1, 1, 1, 1, 1, 1, 40];
        let steady: [u32; 8] = [30; 8];
        let words = [
            ("c", &a[..]),
            ("b", &b[..]),
            ("a", &a[..]),
            ("s", &steady[..]),
        ];
        let got = rising(words, &totals, &BurstSettings::default());
        let keys: Vec<_> = got.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["b", "a", "c"]);
        assert!(got[0].1 > got[1].1 && got[1].1 == got[2].1);
        let top2 = BurstSettings {
            top: 2,
            ..BurstSettings::default()
        };
        let keys: Vec<_> = rising(words, &totals, &top2)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, ["b", "a"]);
    }

    #[test]
    fn hourly_settings_find_an_hour_burst() {
        let s = BurstSettings {
            window: 24 * 7,
            min_count: 5,
            ..BurstSettings::default()
        };
        let mut totals = vec![200u32; 24 * 7 + 1];
        let mut series: Vec<u32> = (0..24 * 7 + 1).map(|h| (h % 3) as u32).collect();
        *series.last_mut().unwrap() = 25;
        *totals.last_mut().unwrap() = 220;
        let got = rising([(7u32, &series[..])], &totals, &s);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, 7);
    }

    /// The absolute points a sparkline's path draws through, read by an SVG path parser
    /// (relative `h` and `l` steps made absolute), rounded to a tenth.
    fn path_points(d: &str) -> Vec<(f64, f64)> {
        use svgtypes::{SimplePathSegment, SimplifyingPathParser};
        SimplifyingPathParser::from(d)
            .map(|seg| match seg.expect("a valid path") {
                SimplePathSegment::MoveTo { x, y } | SimplePathSegment::LineTo { x, y } => {
                    ((x * 10.0).round() / 10.0, (y * 10.0).round() / 10.0)
                }
                other => panic!("a sparkline draws straight steps only: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn sparkline_is_valid_xml_and_draws_through_each_value() {
        let svg = sparkline_svg(&[0, 3, 1, 9, 4], "日本銀行 <7日>");
        let doc = roxmltree::Document::parse(&svg).expect("valid XML");
        let root = doc.root_element();
        assert_eq!(root.attribute("class"), Some("spark"));
        assert_eq!(root.attribute("aria-label"), Some("日本銀行 <7日>"));
        let line = doc.descendants().find(|n| n.has_tag_name("path")).unwrap();
        let d = line.attribute("d").unwrap();
        assert_eq!(d, "M2.5 21.5l22.8-6.3 22.7 4.2 22.8-16.9 22.7 10.6");
        assert_eq!(
            path_points(d),
            [
                (2.5, 21.5),
                (25.3, 15.2),
                (48.0, 19.4),
                (70.8, 2.5),
                (93.5, 13.1)
            ]
        );
        let dot = doc
            .descendants()
            .find(|n| n.has_tag_name("circle"))
            .unwrap();
        assert_eq!(
            (dot.attribute("cx"), dot.attribute("cy")),
            (Some("93.5"), Some("13.1"))
        );
        assert!(!svg.contains("style"));
        assert_eq!(sparkline_svg(&[], "x"), "");
        // One value, or all zeros: still drawn, on the baseline.
        assert!(roxmltree::Document::parse(&sparkline_svg(&[5], "x")).is_ok());
        assert!(sparkline_svg(&[0, 0], "x").contains(r#"d="M2.5 21.5h91""#));
    }

    /// A run of equal values is one horizontal step, and the path still ends on the last value
    /// after many steps (the steps are exact in tenths: no drift).
    #[test]
    fn a_flat_run_is_one_step_and_long_series_do_not_drift() {
        let mut hours = vec![0u32; 48];
        hours[23] = 1;
        hours[47] = 2;
        let d = |svg: &str| {
            let doc = roxmltree::Document::parse(svg).unwrap();
            let path = doc.descendants().find(|n| n.has_tag_name("path")).unwrap();
            path.attribute("d").unwrap().to_string()
        };
        let flat = d(&sparkline_svg(&hours, "x"));
        assert_eq!(flat.matches('h').count(), 2, "{flat}");
        let points = path_points(&flat);
        assert_eq!(points.first(), Some(&(2.5, 21.5)));
        assert_eq!(points.last(), Some(&(93.5, 2.5)));
        let zigzag: Vec<u32> = (0..200).map(|i| (i * 7919 % 13) as u32).collect();
        let points = path_points(&d(&sparkline_svg(&zigzag, "x")));
        assert_eq!(points.len(), 200);
        for (i, (p, &v)) in points.iter().zip(&zigzag).enumerate() {
            let x = 2.5 + 91.0 * i as f64 / 199.0;
            let y = 21.5 - 19.0 * f64::from(v) / 12.0;
            assert!(
                (p.0 - x).abs() <= 0.051 && (p.1 - y).abs() <= 0.051,
                "{i}: {p:?}"
            );
        }
    }
}
