//! The small inline SVG bar chart of a keyword's items per month.
//!
//! Drawn at build time (no script), styled by the theme's CSS classes so it follows light and
//! dark mode, with a text alternative for screen readers and a tooltip per bar.

use std::fmt::Write as _;

use super::site::{Site, months_between};
use crate::text::xml_escape as esc;

/// At most this many months are drawn (the most recent).
const MAX_MONTHS: usize = 36;

/// The chart of `items` (archive item indexes, oldest first) per month, from the archive's
/// first month (so a reader sees when the word began to be seen; never a month before the
/// archive began) to the last month they appear in, at most [`MAX_MONTHS`]. It depends on those
/// items and the archive's first month only ([`first_month`]), so a keyword's page changes only
/// when the keyword does (not every month for every keyword).
pub fn monthly_svg(site: &Site, items: &[u32], title: &str) -> String {
    let month_of = |i: u32| site.digest_month(site.archive.items[i as usize].digest as usize);
    let (Some(&first), Some(&last)) = (items.first(), items.last()) else {
        return String::new();
    };
    let first = first_month(site).map_or(month_of(first), |m| m.min(month_of(first)));
    let mut months = months_between(first, month_of(last));
    if months.len() > MAX_MONTHS {
        months.drain(..months.len() - MAX_MONTHS);
    }
    let mut counts = vec![0usize; months.len()];
    for &i in items {
        let m = site.digest_month(site.archive.items[i as usize].digest as usize);
        if let Ok(pos) = months.binary_search(&m) {
            counts[pos] += 1;
        }
    }
    let max = counts.iter().copied().max().unwrap_or(0).max(1);
    // A fixed canvas the page scales as a whole, so labels keep their shape.
    let (width, h, pad) = (600.0_f64, 80.0_f64, 16.0_f64);
    // Bars keep the width of a six-month chart's when the archive is younger than that (a
    // month's bar does not fill the canvas), from the left, as the axis runs.
    let w = width / months.len().max(6) as f64;
    let end = w * months.len() as f64;
    let fmt = site.strings.month_format;
    let total: usize = counts.iter().sum();
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg class="chart" viewBox="0 0 {width} {}" role="img" aria-label="{}: {} – {}, {total}" xmlns="http://www.w3.org/2000/svg"><title>{}</title>"#,
        h + pad,
        esc(title),
        esc(&months[0].format(fmt).to_string()),
        esc(&months[months.len() - 1].format(fmt).to_string()),
        esc(title),
    );
    for (i, (m, &c)) in months.iter().zip(&counts).enumerate() {
        let bh = if c == 0 {
            0.0
        } else {
            (c as f64 / max as f64 * h).max(1.5)
        };
        let _ = write!(
            svg,
            r#"<rect class="bar" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"><title>{}: {c}</title></rect>"#,
            i as f64 * w + w * 0.1,
            h - bh,
            w * 0.8,
            bh,
            esc(&m.format(fmt).to_string()),
        );
    }
    let _ = write!(
        svg,
        r#"<line class="axis" x1="0" y1="{h}" x2="{width}" y2="{h}"/><text class="label" x="0" y="{}">{}</text>"#,
        h + pad - 2.0,
        esc(&months[0].format("%Y-%m").to_string()),
    );
    if months.len() > 1 {
        let _ = write!(
            svg,
            r#"<text class="label" x="{end:.1}" y="{}" text-anchor="end">{}</text>"#,
            h + pad - 2.0,
            esc(&months[months.len() - 1].format("%Y-%m").to_string()),
        );
    }
    svg.push_str("</svg>");
    svg
}

/// The archive's first month (what every keyword's chart starts from).
pub fn first_month(site: &Site) -> Option<chrono::NaiveDate> {
    site.months.first().map(|m| m.first)
}
