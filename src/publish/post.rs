//! What there is to post: the archive's digest files in time order, which posts are due after a
//! target's cursor (every digest, and each finished day's trend words after its last digest),
//! and building each post once per run (shared by the targets).
//!
//! A post's view holds the data as matome made it (headings, the page URL) and as the feeds gave
//! it (trend words, 頻出ワード, item titles); each service's sender makes the feed's part inert
//! ([`super::inert`]) before its template renders it.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::Result;
use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, TimeZone};

use super::text::{self, PostView, TrendWord};
use crate::config::{Config, Language};
use crate::content::{Item, Snapshot};

/// One post, the same for every target except for its hashtag count and length.
#[derive(Debug, Clone)]
pub struct Post {
    /// `digest:2021-07-20T08:00:00+09:00` or `trends:2021-07-20`.
    pub id: String,
    /// Its place in time: a digest's hour, or a trends day's last second.
    pub order: DateTime<FixedOffset>,
    pub template: &'static str,
    pub view: PostView,
    /// The link card's description (Bluesky): the first item titles.
    pub description: String,
    /// A digest's news items, its top ones first (by how frequent their 頻出ワード are in it):
    /// what Hatena Bookmark bookmarks. Empty for a trends post.
    pub items: Vec<PostItem>,
}

/// An item of a digest, as a bookmark needs it.
#[derive(Debug, Clone)]
pub struct PostItem {
    pub title: String,
    pub link: String,
    pub site: String,
    pub category: String,
    pub summary: String,
    pub keywords: Vec<String>,
}

/// A snapshot file, with the hour its path names.
#[derive(Debug, Clone)]
pub struct DigestFile {
    pub hour: DateTime<FixedOffset>,
    pub path: PathBuf,
}

impl DigestFile {
    /// Its snapshot, through the derived layer ([`crate::content::derived::load`]): its record,
    /// else parsed (and recorded), as the build reads it.
    pub fn load(&self, root: &Path) -> Result<Snapshot> {
        crate::content::derived::load(root, &self.path)
            .map(|(_, s)| s)
            .map_err(|b| anyhow::anyhow!("{}", b.error))
    }
}

/// The archive's digest files by their paths (`content/YYYY/MM/DD/HHMM.md`, site zone), oldest
/// first. Files named otherwise are left to `matome check`.
pub fn digest_files(root: &Path, tz: chrono_tz::Tz) -> Result<Vec<DigestFile>> {
    let mut out = Vec::new();
    for path in crate::content::snapshot_paths(root)? {
        let rel = crate::content::rel_name(root, &path);
        let parts: Vec<&str> = rel.split('/').collect();
        let [_, y, m, d, hm] = parts[..] else {
            continue;
        };
        let stamp = format!("{y}-{m}-{d} {}", hm.trim_end_matches(".md"));
        let Ok(local) = chrono::NaiveDateTime::parse_from_str(&stamp, "%Y-%m-%d %H%M") else {
            continue;
        };
        let Some(hour) = tz.from_local_datetime(&local).earliest() else {
            continue;
        };
        out.push(DigestFile {
            hour: hour.fixed_offset(),
            path,
        });
    }
    out.sort_by_key(|f| f.hour);
    Ok(out)
}

/// What one target should post next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Planned {
    /// The trends post of the day (an index of its last digest file).
    Trends(usize),
    /// A digest (its index in the file list).
    Digest(usize),
    /// A story that reached the threshold (its index in the run's [`super::stories::due`]).
    Story(usize),
}

/// The day a digest belongs to, in the site's zone.
fn day_of(hour: &DateTime<FixedOffset>, tz: chrono_tz::Tz) -> NaiveDate {
    hour.with_timezone(&tz).date_naive()
}

/// The last second of `day` in the site's zone: a trends day's place among the digests.
fn end_of_day(day: NaiveDate, tz: chrono_tz::Tz) -> DateTime<FixedOffset> {
    let next = day
        .succ_opt()
        .unwrap_or(day)
        .and_hms_opt(0, 0, 0)
        .expect("midnight");
    let start = tz
        .from_local_datetime(&next)
        .earliest()
        .unwrap_or_else(|| tz.from_utc_datetime(&next));
    (start - chrono::Duration::seconds(1)).fixed_offset()
}

/// The posts after `cursor`, oldest first, at most `max`: every digest, and (with `trends`)
/// each completed day's trends post, which comes after the day's last digest. `None` for `max`:
/// every one.
pub fn plan(
    files: &[DigestFile],
    cursor: Option<DateTime<FixedOffset>>,
    trends: bool,
    tz: chrono_tz::Tz,
    max: Option<usize>,
) -> Vec<(DateTime<FixedOffset>, Planned)> {
    let max = max.unwrap_or(usize::MAX);
    let after = |t: DateTime<FixedOffset>| cursor.is_none_or(|c| t > c);
    // Start just before the first file after the cursor (its previous day may close there).
    let first = files.partition_point(|f| !after(f.hour)).saturating_sub(1);
    let mut out = Vec::new();
    for i in first..files.len() {
        if trends && i > 0 {
            let prev = day_of(&files[i - 1].hour, tz);
            if day_of(&files[i].hour, tz) > prev {
                let t = end_of_day(prev, tz);
                if after(t) {
                    out.push((t, Planned::Trends(i - 1)));
                }
            }
        }
        if after(files[i].hour) {
            out.push((files[i].hour, Planned::Digest(i)));
        }
        if out.len() >= max {
            break;
        }
    }
    out.truncate(max);
    out
}

/// Builds the posts the run needs (each once, shared by the targets).
pub struct Maker<'a> {
    /// The site's root (its snapshots are read through the derived layer).
    pub root: &'a Path,
    pub config: &'a Config,
    pub base_url: &'a str,
    pub files: &'a [DigestFile],
    pub trend_feeds: Vec<&'a str>,
    pub made: BTreeMap<Planned, Option<Post>>,
    /// The stories due for `what = "stories"` targets (empty when there is none).
    pub stories: Vec<super::stories::DueStory>,
}

/// The most frequent 頻出ワード of `items` (most items first, then first seen), at most 10.
fn top_keywords<'b>(
    items: impl Iterator<Item = &'b Item>,
) -> (Vec<String>, HashMap<String, usize>) {
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for it in items {
        for k in &it.keywords {
            let i = *index.entry(k.to_lowercase()).or_insert_with(|| {
                counts.push((k.clone(), 0));
                counts.len() - 1
            });
            counts[i].1 += 1;
        }
    }
    let freq: HashMap<String, usize> = counts.iter().map(|(k, n)| (k.to_lowercase(), *n)).collect();
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    (counts.into_iter().take(10).map(|(w, _)| w).collect(), freq)
}

impl Maker<'_> {
    pub fn get(&mut self, p: Planned) -> Result<Option<Post>> {
        if let Some(post) = self.made.get(&p) {
            return Ok(post.clone());
        }
        let post = match p {
            Planned::Digest(i) => self.digest(i)?,
            Planned::Trends(i) => self.trends(i)?,
            Planned::Story(i) => Some(super::stories::post(self.config, &self.stories[i])),
        };
        self.made.insert(p, post.clone());
        Ok(post)
    }

    fn is_trend(&self, item: &Item) -> bool {
        item.trend.is_some() || self.trend_feeds.contains(&item.feed.as_str())
    }

    fn trend_words<'b>(&self, items: impl Iterator<Item = &'b Item>) -> Vec<TrendWord> {
        let mut words: Vec<TrendWord> = Vec::new();
        for it in items.filter(|it| self.is_trend(it)) {
            let volume = it.trend.as_ref().and_then(|t| t.volume);
            match words.iter_mut().find(|w| w.word == it.title) {
                Some(w) => w.volume = w.volume.max(volume),
                None => words.push(TrendWord {
                    word: it.title.clone(),
                    volume,
                }),
            }
        }
        words.sort_by_key(|w| std::cmp::Reverse(w.volume));
        words.truncate(10);
        words
    }

    fn digest(&self, i: usize) -> Result<Option<Post>> {
        let snap = self.files[i].load(self.root)?;
        let tz = self.config.timezone;
        if snap.items.is_empty() {
            return Ok(None);
        }
        let news: Vec<&Item> = snap.items.iter().filter(|it| !self.is_trend(it)).collect();
        let (keywords, freq) = top_keywords(news.iter().copied());
        // The top items: those whose 頻出ワード the digest has most of (stable: feed order).
        let mut ranked: Vec<(usize, &Item)> = news
            .iter()
            .map(|it| {
                let score = it
                    .keywords
                    .iter()
                    .map(|k| freq.get(&k.to_lowercase()).copied().unwrap_or(0))
                    .sum();
                (score, *it)
            })
            .collect();
        ranked.sort_by_key(|(s, _)| std::cmp::Reverse(*s));
        let strings = crate::render::strings::Strings::of(self.config.language);
        let heading = strings.digest_heading(
            &snap
                .hour
                .with_timezone(&tz)
                .format("%Y-%m-%d %H:%M")
                .to_string(),
            snap.items.len(),
        );
        let titles: Vec<&str> = snap
            .items
            .iter()
            .take(3)
            .map(|it| it.title.as_str())
            .collect();
        Ok(Some(Post {
            id: format!("digest:{}", crate::content::rfc3339(&snap.hour)),
            order: self.files[i].hour,
            template: "publish/post.txt",
            view: PostView {
                kind: "digest",
                site_title: self.config.title.clone(),
                heading,
                coverage: String::new(),
                url: format!(
                    "{}{}",
                    self.base_url,
                    crate::content::digest_path(&snap.hour, tz)
                ),
                time: crate::content::rfc3339(&snap.hour),
                items: snap.items.len(),
                hashtags: text::hashtags(keywords.iter().map(String::as_str), 10),
                keywords,
                trend_words: self.trend_words(snap.items.iter()),
            },
            description: cut_chars(&titles.join(" / "), 300),
            items: ranked
                .into_iter()
                .map(|(_, it)| PostItem {
                    title: it.title.clone(),
                    link: it.link.clone(),
                    site: it.site.clone(),
                    category: it.category.clone(),
                    summary: it.summary.clone(),
                    keywords: it.keywords.clone(),
                })
                .collect(),
        }))
    }

    fn trends(&self, last: usize) -> Result<Option<Post>> {
        let tz = self.config.timezone;
        let day = day_of(&self.files[last].hour, tz);
        let mut items = Vec::new();
        for f in self.files[..=last].iter().rev() {
            if day_of(&f.hour, tz) != day {
                break;
            }
            items.extend(f.load(self.root)?.items);
        }
        let words = self.trend_words(items.iter());
        if words.is_empty() {
            return Ok(None);
        }
        // Tags come from the day's 頻出ワード (matome's analysis), never from trend words:
        // those are a feed's text, shown as text.
        let (day_keywords, _) = top_keywords(items.iter().filter(|it| !self.is_trend(it)));
        let date = day.format("%Y-%m-%d").to_string();
        let heading = match self.config.language {
            Language::Ja => format!("{date} のトレンドワード"),
            Language::En => format!("Trend words of {date}"),
        };
        let list: Vec<&str> = words.iter().map(|w| w.word.as_str()).collect();
        let description = cut_chars(&list.join(" / "), 300);
        Ok(Some(Post {
            id: format!("trends:{date}"),
            order: end_of_day(day, tz),
            template: "publish/trends.txt",
            view: PostView {
                kind: "trends",
                site_title: self.config.title.clone(),
                heading,
                coverage: String::new(),
                url: format!(
                    "{}{:04}/{:02}/{:02}/",
                    self.base_url,
                    day.year(),
                    day.month(),
                    day.day()
                ),
                time: crate::content::rfc3339(&end_of_day(day, tz)),
                items: words.len(),
                keywords: words.iter().map(|w| w.word.clone()).collect(),
                hashtags: text::hashtags(day_keywords.iter().map(String::as_str), 10),
                trend_words: words,
            },
            description,
            items: Vec::new(),
        }))
    }
}

fn cut_chars(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut out: String = s.chars().take(n - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(hours: &[&str]) -> Vec<DigestFile> {
        hours
            .iter()
            .map(|h| DigestFile {
                hour: DateTime::parse_from_rfc3339(h).unwrap(),
                path: PathBuf::new(),
            })
            .collect()
    }

    #[test]
    fn plan_posts_after_the_cursor_and_closes_days_with_their_trends() {
        let tz = chrono_tz::Asia::Tokyo;
        let f = files(&[
            "2021-07-20T22:00:00+09:00",
            "2021-07-20T23:00:00+09:00",
            "2021-07-21T00:00:00+09:00",
            "2021-07-21T01:00:00+09:00",
        ]);
        let c = Some(f[1].hour);
        let p = plan(&f, c, true, tz, Some(10));
        assert_eq!(
            p.iter().map(|(_, p)| *p).collect::<Vec<_>>(),
            [Planned::Trends(1), Planned::Digest(2), Planned::Digest(3)]
        );
        assert_eq!(
            p[0].0,
            DateTime::parse_from_rfc3339("2021-07-20T23:59:59+09:00").unwrap()
        );
        // Without trends, after the last: nothing; a cap limits a backlog.
        assert!(plan(&f, Some(f[3].hour), true, tz, Some(10)).is_empty());
        assert_eq!(plan(&f, None, false, tz, Some(2)).len(), 2);
        assert_eq!(plan(&f, None, false, tz, None).len(), 4);
        // Once the trends post is through, it is not planned again.
        let p = plan(&f, Some(p[0].0), true, tz, Some(10));
        assert_eq!(
            p.iter().map(|(_, p)| *p).collect::<Vec<_>>(),
            [Planned::Digest(2), Planned::Digest(3)]
        );
    }
}
