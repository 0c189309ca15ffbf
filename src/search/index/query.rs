//! Queries against the full-text index for `matome search` and `serve`'s API: the clauses of
//! [`crate::search::terms`] (what matches, the same as on the static page) as tantivy queries,
//! ranked (when asked) by BM25 with lindera's whole words boosted, or newest first (the
//! default); one hit per story ([`super::stories`]); filters (category, site, dates in the site's
//! zone), bounded paging, snippets, and [`SiteSearcher`]. Keeping the index in step with content/ is [`super`]'s.

use std::ops::Bound;
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use chrono::{DateTime, TimeZone};
use serde::Serialize;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, PhraseQuery, Query, RangeQuery, TermQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{TantivyDocument, Term};

use super::stories::{Member, StoryCollector, members, text};
use super::{Fields, open_or_create, schema};
use crate::analyze::{Analyzer, prepare};
use crate::config::Config;
use crate::search::terms;

/// At most this many hits are skipped ([`SearchOptions::offset`]): bounded, as the limit is (an
/// unbounded offset from a URL once aborted `matome serve` on an allocation of petabytes; the
/// hits are now one per story of the matches, collected in memory linear in them).
pub const MAX_OFFSET: usize = 10_000;
/// At most this many hits are returned at once ([`SearchOptions::limit`]).
pub const MAX_LIMIT: usize = 10_000;

/// `matome search`'s options.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    pub query: String,
    pub limit: usize,
    /// Hits to skip (the page's "load more").
    pub offset: usize,
    pub category: Option<String>,
    pub site: Option<String>,
    /// Unix seconds, inclusive.
    pub since: Option<i64>,
    /// Unix seconds, exclusive.
    pub until: Option<i64>,
    /// Newest first (the default of the CLI, the API and the page); `false`: by relevance.
    pub by_date: bool,
}

/// One search result.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    pub title: String,
    pub link: String,
    pub site: String,
    pub category: String,
    /// RFC 3339 in the site's zone.
    pub published: String,
    pub keywords: Vec<String>,
    pub summary: String,
    /// The digest page that holds it (absolute, with the item's anchor).
    pub url: String,
    pub score: f32,
    /// A passage of the text with the matched words between the markers `\u{2}` and `\u{3}`.
    #[serde(skip)]
    pub snippet: String,
    /// The item's story ID (issue 24): the hit stands for the story's matching members.
    pub story: String,
    /// The story's items and distinct sites in the whole archive (not only among the matches).
    pub story_items: usize,
    pub story_sites: usize,
    /// The story's other items, oldest first (at most [`super::MAX_OTHERS`]).
    pub others: Vec<Member>,
}

impl Hit {
    /// The "+N" a hit shows beside itself: the story's other distinct sites, or (a story of one
    /// site) its other items; 0 for an item alone.
    pub fn more_sources(&self) -> usize {
        if self.story_sites > 1 {
            self.story_sites - 1
        } else {
            self.story_items.saturating_sub(1)
        }
    }
}

/// The tantivy query that decides whether an item matches a clause: its terms
/// ([`terms::clause_terms`]) at their relative positions in the title or the summary; `None`
/// if it has nothing to look for (stop words, a lone kana, punctuation).
fn clause_query(f: &Fields, text: &str) -> Option<Box<dyn Query>> {
    let terms = terms::clause_terms(text);
    let first = terms.first()?.position;
    let mut per_field: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for (field, boost) in [(f.title, 2.0), (f.text, 1.0)] {
        let q: Box<dyn Query> = if terms.len() == 1 {
            Box::new(TermQuery::new(
                Term::from_field_text(field, &terms[0].text),
                IndexRecordOption::WithFreqsAndPositions,
            ))
        } else {
            Box::new(PhraseQuery::new_with_offset(
                terms
                    .iter()
                    .map(|t| {
                        (
                            (t.position - first) as usize,
                            Term::from_field_text(field, &t.text),
                        )
                    })
                    .collect(),
            ))
        };
        per_field.push((Occur::Should, Box::new(BoostQuery::new(q, boost))));
    }
    Some(Box::new(BooleanQuery::new(per_field)))
}

/// A clause in lindera's words (decompose mode, as the words field is indexed), for ranking
/// only: an item with 幹線 as a word ranks above one with it inside 新幹線.
fn words_query(f: &Fields, text: &str) -> Option<Box<dyn Query>> {
    let tokens = Analyzer::get().search_tokens(&prepare(text));
    let first = tokens.first()?.position;
    let q: Box<dyn Query> = if tokens.len() == 1 {
        Box::new(TermQuery::new(
            Term::from_field_text(f.words, &tokens[0].text),
            IndexRecordOption::WithFreqsAndPositions,
        ))
    } else {
        Box::new(PhraseQuery::new_with_offset(
            tokens
                .iter()
                .map(|t| (t.position - first, Term::from_field_text(f.words, &t.text)))
                .collect(),
        ))
    };
    Some(Box::new(BoostQuery::new(q, 1.5)))
}

/// An open index, ready for queries (the CLI opens one per run; `serve` keeps one).
pub struct SiteSearcher {
    reader: tantivy::IndexReader,
    fields: Fields,
    timezone: chrono_tz::Tz,
    base_url: String,
}

impl SiteSearcher {
    /// Opens the index of the site at `root` (bring it up to date first with [`update`]).
    pub fn open(root: &Path, config: &Config, base_url: &str) -> Result<SiteSearcher> {
        let (index, _, _) = open_or_create(root, false)?;
        let reader = index.reader().context("reading the search index")?;
        Ok(SiteSearcher {
            reader,
            fields: schema().1,
            timezone: config.timezone,
            base_url: base_url.to_string(),
        })
    }

    /// RFC 3339 in the site's zone of unix seconds ("" if none).
    fn time(&self, secs: Option<i64>) -> String {
        secs.and_then(|s| self.timezone.timestamp_opt(s, 0).single())
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            .unwrap_or_default()
    }

    /// The hits of a query, one per story (its best-ranked member among the matches), newest
    /// (or best) first; `offset` and `limit` count stories.
    pub fn search(&self, opts: &SearchOptions) -> Result<Vec<Hit>> {
        let f = self.fields;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        // (an excluded clause is looked up on its own and its documents are left out as the
        // matches are collected: tantivy 0.27's exclusion seeks a phrase's scorer backwards
        // once the phrase has no more documents in a segment, which its debug assertion
        // refuses)
        let mut excluded: Vec<Box<dyn Query>> = Vec::new();
        let mut positive = 0;
        for c in terms::parse_query(&opts.query) {
            if let Some(q) = clause_query(&f, &c.text) {
                if c.exclude {
                    excluded.push(q);
                } else {
                    positive += 1;
                    clauses.push((Occur::Must, q));
                    if !opts.by_date
                        && let Some(w) = words_query(&f, &c.text)
                    {
                        clauses.push((Occur::Should, w));
                    }
                }
            }
        }
        // Nothing to look for (only particles or stop words): nothing matches.
        if positive == 0 {
            return Ok(Vec::new());
        }
        if let Some(c) = &opts.category {
            clauses.push((
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_text(f.category, c),
                    IndexRecordOption::Basic,
                )),
            ));
        }
        if let Some(s) = &opts.site {
            clauses.push((
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_text(f.site, s),
                    IndexRecordOption::Basic,
                )),
            ));
        }
        if opts.since.is_some() || opts.until.is_some() {
            let lower = opts.since.map_or(Bound::Unbounded, |s| {
                Bound::Included(Term::from_field_i64(f.published, s))
            });
            let upper = opts.until.map_or(Bound::Unbounded, |u| {
                Bound::Excluded(Term::from_field_i64(f.published, u))
            });
            clauses.push((Occur::Must, Box::new(RangeQuery::new(lower, upper))));
        }
        if opts.offset > MAX_OFFSET {
            anyhow::bail!(
                "offset {} is too large: at most {MAX_OFFSET} hits can be skipped",
                opts.offset
            );
        }
        if opts.limit > MAX_LIMIT {
            anyhow::bail!(
                "limit {} is too large: at most {MAX_LIMIT} hits at once",
                opts.limit
            );
        }
        let query = BooleanQuery::new(clauses);
        let searcher = self.reader.searcher();
        let mut left_out = rustc_hash::FxHashSet::default();
        for q in &excluded {
            left_out.extend(searcher.search(q.as_ref(), &tantivy::collector::DocSetCollector)?);
        }
        // One per story, best first; the page is a slice of stories.
        let stories = searcher.search(
            &query,
            &StoryCollector {
                by_score: !opts.by_date,
                excluded: std::sync::Arc::new(left_out),
            },
        )?;
        let page = stories.iter().skip(opts.offset).take(opts.limit.max(1));
        let mut snippets = tantivy::snippet::SnippetGenerator::create(&searcher, &query, f.text)?;
        snippets.set_max_num_chars(160);
        let mut title_snippets =
            tantivy::snippet::SnippetGenerator::create(&searcher, &query, f.title)?;
        title_snippets.set_max_num_chars(400);
        let mut hits = Vec::with_capacity(opts.limit.min(stories.len()));
        for best in page {
            let doc: TantivyDocument = searcher.doc(best.address)?;
            let mut snippet = marked(&snippets.snippet_from_doc(&doc));
            if snippet.is_empty() {
                snippet = marked(&title_snippets.snippet_from_doc(&doc));
            }
            let story = text(&doc, f.story);
            let size = members(&searcher, &f, &story, best.address)?;
            hits.push(Hit {
                title: text(&doc, f.shown_title),
                link: text(&doc, f.link),
                site: text(&doc, f.site),
                category: text(&doc, f.category),
                published: self.time(doc.get_first(f.published).and_then(|v| v.as_i64())),
                keywords: doc
                    .get_all(f.keywords)
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect(),
                summary: text(&doc, f.summary),
                url: format!("{}{}", self.base_url, text(&doc, f.url)),
                score: best.score(),
                snippet,
                story,
                story_items: size.items,
                story_sites: size.sites,
                others: size
                    .others
                    .iter()
                    .map(|(published, d)| Member {
                        site: text(d, f.site),
                        title: text(d, f.shown_title),
                        link: text(d, f.link),
                        url: format!("{}{}", self.base_url, text(d, f.url)),
                        published: self.time(Some(*published)),
                    })
                    .collect(),
            });
        }
        Ok(hits)
    }
}

/// A snippet's fragment with its highlighted ranges between `\u{2}` and `\u{3}` (ranges that
/// overlap or touch, as a clause's bigrams do, are one).
fn marked(s: &tantivy::snippet::Snippet) -> String {
    let fragment = s.fragment();
    let mut ranges: Vec<std::ops::Range<usize>> = s
        .highlighted()
        .iter()
        .filter(|r| r.start <= r.end && r.end <= fragment.len())
        .cloned()
        .collect();
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut merged: Vec<std::ops::Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    let mut out = String::with_capacity(fragment.len() + 8);
    let mut at = 0;
    for r in merged {
        out.push_str(&fragment[at..r.start]);
        out.push('\u{2}');
        out.push_str(&fragment[r.clone()]);
        out.push('\u{3}');
        at = r.end;
    }
    out.push_str(&fragment[at..]);
    out
}

/// The end of a `--until` date: a day (`YYYY-MM-DD`) includes itself (up to the next day's
/// midnight in the site's zone, so a day with a daylight-saving change is 23 or 25 hours); an
/// RFC 3339 time is taken as it is.
pub fn parse_until(s: &str, tz: chrono_tz::Tz) -> Result<i64> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.timestamp());
    }
    let next = parse_day(s)?
        .succ_opt()
        .ok_or_else(|| anyhow!("{s:?} is the last day a date can hold; give an earlier one"))?;
    local_midnight(next, tz, s)
}

/// Parses a `--since`/`--until` date: `YYYY-MM-DD` (midnight in the site's zone) or RFC 3339.
pub fn parse_date(s: &str, tz: chrono_tz::Tz) -> Result<i64> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Ok(t.timestamp());
    }
    local_midnight(parse_day(s)?, tz, s)
}

/// A `YYYY-MM-DD` day; the error quotes `s`.
fn parse_day(s: &str) -> Result<chrono::NaiveDate> {
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map_err(|_| anyhow!("{s:?} is not a date like 2021-07-20 (or an RFC 3339 time)"))
}

/// The start of day `d` in zone `tz` (the error quotes `s`, the date as given).
fn local_midnight(d: chrono::NaiveDate, tz: chrono_tz::Tz, s: &str) -> Result<i64> {
    let t = tz
        .from_local_datetime(&d.and_hms_opt(0, 0, 0).expect("midnight"))
        .earliest()
        .ok_or_else(|| anyhow!("{s:?} has no midnight in the site's time zone"))?;
    Ok(t.timestamp())
}
