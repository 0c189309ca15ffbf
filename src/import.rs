//! `matome feeds import FILE`: adding feeds to matome.toml from OPML or CSV.
//!
//! Owns reading feed lists (OPML with nested outlines, where the parent outline names the
//! category; CSV with the header `sitename,FeedURL,Category`) and appending the feeds that are
//! not there yet to the config as `[[feeds]]` blocks, leaving the rest of the file as written.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::config::{self, Config, FeedConfig, Language};
use crate::content::toml_string;
use crate::fsutil;

/// The category given to OPML feeds that sit in no folder.
fn default_category(lang: Language) -> &'static str {
    match lang {
        Language::Ja => "未分類",
        Language::En => "Uncategorized",
    }
}

/// What an import did.
#[derive(Debug, Default, PartialEq)]
pub struct ImportReport {
    pub read: usize,
    pub added: usize,
    /// Feeds already in the config, or listed twice in the file.
    pub duplicates: usize,
}

/// Parses a feed list; the format is told by its content (OPML is XML, anything else CSV).
/// `fallback_category` is used for OPML feeds outside any folder.
pub fn parse_feed_list(text: &str, name: &str, fallback_category: &str) -> Result<Vec<FeedConfig>> {
    let body = text.trim_start_matches('\u{feff}');
    if body.trim_start().starts_with('<') {
        parse_opml(body, name, fallback_category)
    } else {
        parse_csv(body, name)
    }
}

/// CSV with the header `sitename,FeedURL,Category` (any case, any column order).
pub fn parse_csv(text: &str, name: &str) -> Result<Vec<FeedConfig>> {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .with_context(|| format!("{name}:1: reading the CSV header"))?
        .clone();
    let col = |want: &str| {
        headers
            .iter()
            .position(|h| h.trim_start_matches('\u{feff}').eq_ignore_ascii_case(want))
    };
    let (Some(site_col), Some(url_col), Some(cat_col)) =
        (col("sitename"), col("FeedURL"), col("Category"))
    else {
        bail!(
            "{name}:1: the CSV header must be `sitename,FeedURL,Category`, found `{}`",
            headers.iter().collect::<Vec<_>>().join(",")
        );
    };
    let mut feeds = Vec::new();
    let mut errors = Vec::new();
    for record in reader.records() {
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map(|p| p.line()).unwrap_or(0);
                errors.push(format!("{name}:{line}: {e}"));
                continue;
            }
        };
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        let url = record.get(url_col).unwrap_or("").to_string();
        let category = record.get(cat_col).unwrap_or("").to_string();
        let site = record.get(site_col).unwrap_or("").to_string();
        if url.is_empty() && category.is_empty() && site.is_empty() {
            continue;
        }
        match validate(url, category, site) {
            Ok(f) => feeds.push(f),
            Err(why) => errors.push(format!("{name}:{line}: {why}")),
        }
    }
    if !errors.is_empty() {
        bail!(
            "{} bad row(s), nothing imported:\n  {}",
            errors.len(),
            errors.join("\n  ")
        );
    }
    Ok(feeds)
}

fn validate(url: String, category: String, site: String) -> Result<FeedConfig, String> {
    config::check_feed_url(&url)?;
    if category.is_empty() {
        return Err(format!("the feed {url} has no category"));
    }
    Ok(FeedConfig {
        url,
        category,
        site: Some(site).filter(|s| !s.is_empty()),
        kind: crate::config::FeedKind::News,
    })
}

/// OPML: every outline with an `xmlUrl` is a feed; its category is the text of the nearest
/// enclosing outline (a folder), else its own `category` attribute, else `fallback_category`.
pub fn parse_opml(text: &str, name: &str, fallback_category: &str) -> Result<Vec<FeedConfig>> {
    let doc = roxmltree::Document::parse(text)
        .map_err(|e| anyhow::anyhow!("{name}:{}: not valid OPML/XML: {e}", e.pos().row))?;
    let mut feeds = Vec::new();
    let mut errors = Vec::new();
    for node in doc.descendants().filter(|n| n.has_tag_name("outline")) {
        let Some(url) = node.attribute("xmlUrl") else {
            continue;
        };
        let label = |n: roxmltree::Node| {
            n.attribute("text")
                .or(n.attribute("title"))
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        let folder = node
            .ancestors()
            .skip(1)
            .filter(|a| a.has_tag_name("outline") && a.attribute("xmlUrl").is_none())
            .find_map(label);
        let category = folder
            .or_else(|| {
                node.attribute("category")
                    .and_then(|c| c.split([',', '/']).find(|s| !s.trim().is_empty()))
                    .map(|s| s.trim().to_string())
            })
            .unwrap_or_else(|| fallback_category.to_string());
        let site = label(node).unwrap_or_default();
        match validate(url.trim().to_string(), category, site) {
            Ok(f) => feeds.push(f),
            Err(why) => {
                let line = doc.text_pos_at(node.range().start).row;
                errors.push(format!("{name}:{line}: {why}"));
            }
        }
    }
    if !errors.is_empty() {
        bail!(
            "{} bad outline(s), nothing imported:\n  {}",
            errors.len(),
            errors.join("\n  ")
        );
    }
    Ok(feeds)
}

/// Appends the feeds of `file` that are not configured yet to `<root>/matome.toml`.
pub fn import(root: &Path, file: &Path) -> Result<ImportReport> {
    let config_path = config::config_path(root);
    let config_text = std::fs::read_to_string(&config_path).with_context(|| {
        format!(
            "reading {} (feeds are imported into an existing site's config)",
            config_path.display()
        )
    })?;
    let config_name = config_path.display().to_string();
    let current = Config::parse(&config_text, &config_name)?;
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
    let list = String::from_utf8(bytes)
        .with_context(|| format!("{} is not UTF-8 text", file.display()))?;
    let feeds = parse_feed_list(
        &list,
        &file.display().to_string(),
        default_category(current.language),
    )?;

    let mut known: HashSet<String> = current.feeds.iter().map(|f| f.url.clone()).collect();
    let mut report = ImportReport {
        read: feeds.len(),
        ..Default::default()
    };
    let mut appended = String::new();
    for f in feeds {
        if !known.insert(f.url.clone()) {
            report.duplicates += 1;
            continue;
        }
        appended.push_str("\n[[feeds]]\n");
        for (key, value) in [
            ("url", Some(&f.url)),
            ("category", Some(&f.category)),
            ("site", f.site.as_ref()),
        ] {
            if let Some(v) = value {
                appended.push_str(key);
                appended.push_str(" = ");
                toml_string(&mut appended, v);
                appended.push('\n');
            }
        }
        report.added += 1;
    }
    if report.added == 0 {
        return Ok(report);
    }
    let mut new_text = config_text;
    if !new_text.ends_with('\n') {
        new_text.push('\n');
    }
    new_text.push_str(&appended);
    // Never write a config that does not load.
    Config::parse(&new_text, &config_name).context("the config after the import would not load")?;
    fsutil::write_atomic(&config_path, new_text.as_bytes())?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_with_bom_quotes_and_commas() {
        let csv = "\u{feff}sitename,FeedURL,Category\n\"Ars Technica, Inc.\",https://feeds.arstechnica.com/arstechnica/index,海外TECH\nITmedia,https://rss.itmedia.co.jp/rss/2.0/itmedia_all.xml,IT\n";
        let feeds = parse_feed_list(csv, "f.csv", "未分類").unwrap();
        assert_eq!(feeds.len(), 2);
        assert_eq!(feeds[0].site.as_deref(), Some("Ars Technica, Inc."));
        assert_eq!(feeds[0].category, "海外TECH");
    }

    #[test]
    fn csv_bad_header_and_bad_rows() {
        let e = parse_csv("name,url\nx,y\n", "f.csv")
            .unwrap_err()
            .to_string();
        assert!(e.contains("sitename,FeedURL,Category"), "{e}");
        let e = parse_csv(
            "sitename,FeedURL,Category\na,https://a.example/feed,IT\nb,javascript:alert(1),IT\n",
            "f.csv",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("f.csv:3:"), "{e}");
    }

    #[test]
    fn opml_nested_outlines_give_categories() {
        let opml = r#"<?xml version="1.0"?><opml version="2.0"><head><title>x</title></head><body>
<outline text="金融">
  <outline text="日本銀行" type="rss" xmlUrl="https://www.boj.or.jp/rss/whatsnew.xml"/>
</outline>
<outline text="Loose" xmlUrl="https://example.com/loose.xml"/>
<outline text="Tagged" xmlUrl="https://example.com/t.xml" category="/科学"/>
</body></opml>"#;
        let feeds = parse_feed_list(opml, "f.opml", "未分類").unwrap();
        assert_eq!(feeds.len(), 3);
        assert_eq!(feeds[0].category, "金融");
        assert_eq!(feeds[0].site.as_deref(), Some("日本銀行"));
        assert_eq!(feeds[1].category, "未分類");
        assert_eq!(feeds[2].category, "科学");
    }

    #[test]
    fn broken_opml_names_the_line() {
        let e = parse_feed_list("<opml>\n<body>\n<outline", "f.opml", "x")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("f.opml:"), "{e}");
    }
}
