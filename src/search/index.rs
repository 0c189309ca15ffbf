//! The full-text index (tantivy) under `.matome/search/`, and queries against it.
//!
//! Owns the schema, the tokenizer adapter over the shared analyser ([`MatomeTokenizer`]: the
//! same tokens 頻出ワード come from), keeping the index in step with content/ (only snapshot
//! files that are new or changed are indexed again; a missing index, one of another schema or
//! analyser, or one that does not verify (segment checksums, segment readers: a truncated or
//! corrupted file) is rebuilt from content/), and the query language of `matome search`: words are
//! AND-ed, `"quoted phrases"` match words standing together, `-word` excludes. A query of only
//! particles or stop words has no terms and matches nothing.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use chrono::{DateTime, FixedOffset, TimeZone};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, PhraseQuery, Query, RangeQuery, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions, Value,
};
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use tantivy::{Index, IndexWriter, Order, TantivyDocument, Term};

use crate::analyze::{Analyzer, prepare};
use crate::config::Config;
use crate::content::Snapshot;
use crate::content::archive::Archive;
use crate::fsutil;

/// Bump when the schema, what is indexed or how it is tokenised changes: the index is then
/// rebuilt from content/.
const SCHEMA_VERSION: u32 = 3;
const TOKENIZER: &str = "matome";
/// The index writer's memory budget (tantivy splits it across its threads).
const WRITER_HEAP: usize = 96 * 1024 * 1024;
/// Snapshot files parsed and indexed at a time, so memory stays bounded on a full rebuild.
const BATCH_FILES: usize = 256;

/// At most this many hits are skipped ([`SearchOptions::offset`]): tantivy collects
/// `offset + limit` hits in memory, so both are bounded (an unbounded offset from a URL once
/// aborted `matome serve` on an allocation of petabytes).
pub const MAX_OFFSET: usize = 10_000;
/// At most this many hits are returned at once ([`SearchOptions::limit`]).
pub const MAX_LIMIT: usize = 10_000;

/// The index folder of the site at `root`.
pub fn index_dir(root: &Path) -> PathBuf {
    crate::layout::search_index_dir(root)
}

/// The tokenizer adapter: text (already [`prepare`]d) → the analyser's search tokens.
#[derive(Clone, Default)]
pub struct MatomeTokenizer;

/// The tokens of one text.
pub struct MatomeTokenStream {
    tokens: Vec<Token>,
    next: usize,
}

impl Tokenizer for MatomeTokenizer {
    type TokenStream<'a> = MatomeTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> MatomeTokenStream {
        let tokens = Analyzer::get()
            .search_tokens(text)
            .into_iter()
            .map(|t| Token {
                offset_from: t.start,
                offset_to: t.end,
                position: t.position,
                text: t.text,
                position_length: 1,
            })
            .collect();
        MatomeTokenStream { tokens, next: 0 }
    }
}

impl TokenStream for MatomeTokenStream {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }

    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

#[derive(Clone, Copy)]
struct Fields {
    /// Analysed and stored as analysed (snippets' offsets are into it).
    title: Field,
    /// The title as written, for display.
    shown_title: Field,
    text: Field,
    keywords: Field,
    summary: Field,
    site: Field,
    category: Field,
    published: Field,
    url: Field,
    link: Field,
    file: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let analysed = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        title: b.add_text_field("title", analysed.clone() | STORED),
        shown_title: b.add_text_field("shown_title", STORED),
        text: b.add_text_field("text", analysed.clone() | STORED),
        keywords: b.add_text_field("keywords", analysed | STORED),
        summary: b.add_text_field("summary", STORED),
        site: b.add_text_field("site", STRING | STORED),
        category: b.add_text_field("category", STRING | STORED),
        published: b.add_i64_field(
            "published",
            NumericOptions::default()
                .set_indexed()
                .set_fast()
                .set_stored(),
        ),
        url: b.add_text_field("url", STORED),
        link: b.add_text_field("link", STORED),
        file: b.add_text_field("file", STRING),
    };
    (b.build(), fields)
}

/// What the index holds: each snapshot file's content hash, and what made it.
#[derive(Debug, Default, Serialize, Deserialize)]
struct IndexState {
    schema: u32,
    analyser: String,
    /// Site-relative path → content hash of the snapshot file as indexed.
    files: BTreeMap<String, u64>,
}

fn state_path(root: &Path) -> PathBuf {
    crate::layout::search_files(root)
}

/// What an index update did.
#[derive(Debug, Default, Clone)]
pub struct IndexReport {
    /// The index was (re)built from scratch.
    pub rebuilt: bool,
    pub files_added: usize,
    pub files_removed: usize,
    pub items_added: usize,
}

/// Whether the index opens and reads: every segment file it lists exists and (with
/// `checksums`) matches the checksum in its footer, which reads every file once (linear in
/// the index size).
fn verify(index: &Index, checksums: bool) -> Result<()> {
    if checksums {
        let damaged = index.validate_checksum()?;
        if !damaged.is_empty() {
            let mut names: Vec<String> = damaged.iter().map(|p| p.display().to_string()).collect();
            names.sort();
            anyhow::bail!("checksum mismatch in {}", names.join(", "));
        }
    }
    let reader = index.reader()?;
    let searcher = reader.searcher();
    for segment in searcher.segment_readers() {
        // Opening the stores and term dictionaries reads their headers and footers.
        segment.get_store_reader(0)?;
        for (field, entry) in index.schema().fields() {
            if entry.is_indexed() {
                segment.inverted_index(field)?;
            }
        }
    }
    Ok(())
}

/// Opens the index, or starts a new one (removing the old and its files.json) when it is
/// missing, of another schema or analyser, or does not verify (a damaged index is reported
/// on stderr, once, and rebuilt from content/ by [`update`]).
fn open_or_create(root: &Path, checksums: bool) -> Result<(Index, IndexState, bool)> {
    let dir = crate::layout::tantivy_dir(root);
    let analyser = Analyzer::get().fingerprint();
    let state: Option<IndexState> = std::fs::read(state_path(root))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .filter(|s: &IndexState| s.schema == SCHEMA_VERSION && s.analyser == analyser);
    let (schema, _) = schema();
    if let Some(state) = state
        && let Ok(index) = Index::open_in_dir(&dir)
        && index.schema() == schema
    {
        index.tokenizers().register(TOKENIZER, MatomeTokenizer);
        match verify(&index, checksums) {
            Ok(()) => return Ok((index, state, false)),
            Err(e) => eprintln!(
                "the search index in {} is damaged ({e:#}); rebuilding it from content/",
                dir.display()
            ),
        }
    }
    // Missing, foreign, stale or damaged: start again from content/.
    wipe(root)?;
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let index = Index::create_in_dir(&dir, schema)
        .with_context(|| format!("creating the search index in {}", dir.display()))?;
    index.tokenizers().register(TOKENIZER, MatomeTokenizer);
    Ok((
        index,
        IndexState {
            schema: SCHEMA_VERSION,
            analyser,
            files: BTreeMap::new(),
        },
        true,
    ))
}

/// Removes the index and its state. The state goes first, so an interrupted rebuild is never
/// taken for a complete index.
fn wipe(root: &Path) -> Result<()> {
    match std::fs::remove_file(state_path(root)) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(e).with_context(|| format!("removing {}", state_path(root).display()));
        }
    }
    let _ = std::fs::remove_dir_all(crate::layout::tantivy_dir(root));
    Ok(())
}

/// Items the index holds (deleted ones not counted).
fn held_items(index: &Index) -> Result<u64> {
    let reader: tantivy::IndexReader = index
        .reader_builder()
        .reload_policy(tantivy::ReloadPolicy::Manual)
        .try_into()?;
    Ok(reader.searcher().num_docs())
}

/// Brings the index of the site at `root` in step with its archive: the items of snapshot
/// files that are new or changed since it was last updated are (re)indexed, those of files
/// gone are removed. Then the index must hold exactly the archive's items: if it does not (its
/// files.json out of step with it), it is rebuilt from content/, saying so. The caller holds
/// the site lock.
pub fn update(root: &Path, config: &Config, archive: &Archive) -> Result<IndexReport> {
    let (report, index) = update_files(root, config, archive)?;
    let held = held_items(&index)?;
    let expected = archive.items.len() as u64;
    if held == expected {
        return Ok(report);
    }
    eprintln!(
        "the search index in {} holds {held} items where the archive has {expected}; rebuilding it from content/",
        index_dir(root).display()
    );
    drop(index);
    wipe(root)?;
    Ok(update_files(root, config, archive)?.0)
}

fn update_files(root: &Path, config: &Config, archive: &Archive) -> Result<(IndexReport, Index)> {
    let (index, mut state, rebuilt) = open_or_create(root, true)?;
    let (_, f) = schema();
    // Site-relative path → (content hash, file, hour) of every snapshot.
    type Files = BTreeMap<String, (u64, PathBuf, DateTime<FixedOffset>)>;
    let current: Files = archive
        .digests
        .iter()
        .map(|d| {
            (
                crate::content::rel_name(root, &d.path),
                (d.hash, d.path.clone(), d.hour),
            )
        })
        .collect();
    let removed: Vec<String> = state
        .files
        .iter()
        .filter(|(rel, hash)| current.get(*rel).is_none_or(|(h, _, _)| h != *hash))
        .map(|(rel, _)| rel.clone())
        .collect();
    let added: Vec<_> = current
        .iter()
        .filter(|(rel, (h, _, _))| state.files.get(*rel) != Some(h))
        .collect();
    let mut report = IndexReport {
        rebuilt,
        files_added: added.len(),
        files_removed: removed.len(),
        items_added: 0,
    };
    if removed.is_empty() && added.is_empty() {
        return Ok((report, index));
    }
    let mut writer: IndexWriter = index
        .writer(WRITER_HEAP)
        .context("opening the search index for writing (is another matome running?)")?;
    for rel in &removed {
        writer.delete_term(Term::from_field_text(f.file, rel));
        state.files.remove(rel);
    }
    let tz = config.timezone;
    for batch in added.chunks(BATCH_FILES) {
        let docs: Vec<Result<Vec<TantivyDocument>>> = batch
            .par_iter()
            .map(|(rel, (_, path, hour))| {
                let s = Snapshot::load(path)?;
                let digest = crate::content::digest_path(hour, tz);
                Ok(s.items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        let mut doc = TantivyDocument::default();
                        doc.add_text(f.title, prepare(&item.title));
                        doc.add_text(f.shown_title, &item.title);
                        let mut body =
                            String::with_capacity(item.summary.len() + item.text.len() + 1);
                        body.push_str(&item.summary);
                        if !item.text.is_empty() && !item.summary.contains(item.text.as_str()) {
                            body.push('\n');
                            body.push_str(&item.text);
                        }
                        doc.add_text(f.text, prepare(&body));
                        for k in &item.keywords {
                            doc.add_text(f.keywords, prepare(k));
                        }
                        doc.add_text(f.summary, &item.summary);
                        doc.add_text(f.site, &item.site);
                        doc.add_text(f.category, &item.category);
                        doc.add_i64(f.published, item.published.timestamp());
                        doc.add_text(f.url, format!("{digest}#item-{}", i + 1));
                        doc.add_text(f.link, &item.link);
                        doc.add_text(f.file, rel);
                        doc
                    })
                    .collect())
            })
            .collect();
        for (d, (rel, (hash, _, _))) in docs.into_iter().zip(batch) {
            let d = d?;
            report.items_added += d.len();
            for doc in d {
                writer.add_document(doc)?;
            }
            state.files.insert((*rel).clone(), *hash);
        }
    }
    writer.commit().context("committing the search index")?;
    let bytes = serde_json::to_vec(&state)?;
    fsutil::write_atomic(&state_path(root), &bytes)?;
    drop(writer);
    Ok((report, index))
}

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
}

/// One clause of a query: words that must stand together (one word, or a quoted phrase).
#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    pub text: String,
    pub exclude: bool,
}

/// Splits a query into clauses: `"quoted phrases"`, `-excluded` words or phrases, other words.
pub fn parse_query(q: &str) -> Vec<Clause> {
    let mut out = Vec::new();
    let mut rest = q.trim();
    while !rest.is_empty() {
        // `-`, and the minus signs a Japanese keyboard types (－, −), exclude.
        let (exclude, body) = match rest.strip_prefix(['-', '\u{ff0d}', '\u{2212}']) {
            Some(r) if !r.is_empty() && !r.starts_with(char::is_whitespace) => (true, r),
            _ => (false, rest),
        };
        let (text, after) = if let Some(r) = body.strip_prefix('"') {
            match r.find('"') {
                Some(end) => (&r[..end], &r[end + 1..]),
                None => (r, ""),
            }
        } else {
            let end = body.find(char::is_whitespace).unwrap_or(body.len());
            (&body[..end], &body[end..])
        };
        if !text.trim().is_empty() {
            out.push(Clause {
                text: text.trim().to_string(),
                exclude,
            });
        }
        rest = after.trim_start();
    }
    out
}

/// The tantivy query for a clause over the analysed fields (title weighs double), or `None` if
/// the clause has no searchable words (particles, stop words, punctuation).
fn clause_query(f: &Fields, text: &str) -> Option<Box<dyn Query>> {
    let tokens = Analyzer::get().search_tokens(&prepare(text));
    if tokens.is_empty() {
        return None;
    }
    let first = tokens[0].position;
    let mut per_field: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for (field, boost) in [(f.title, 2.0), (f.text, 1.0), (f.keywords, 1.5)] {
        let q: Box<dyn Query> = if tokens.len() == 1 {
            Box::new(TermQuery::new(
                Term::from_field_text(field, &tokens[0].text),
                IndexRecordOption::WithFreqsAndPositions,
            ))
        } else {
            Box::new(PhraseQuery::new_with_offset(
                tokens
                    .iter()
                    .map(|t| (t.position - first, Term::from_field_text(field, &t.text)))
                    .collect(),
            ))
        };
        per_field.push((Occur::Should, Box::new(BoostQuery::new(q, boost))));
    }
    Some(Box::new(BooleanQuery::new(per_field)))
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

    /// The hits of a query, best (or newest) first.
    pub fn search(&self, opts: &SearchOptions) -> Result<Vec<Hit>> {
        let f = self.fields;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut positive = 0;
        for c in parse_query(&opts.query) {
            if let Some(q) = clause_query(&f, &c.text) {
                if c.exclude {
                    clauses.push((Occur::MustNot, q));
                } else {
                    positive += 1;
                    clauses.push((Occur::Must, q));
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
        let limit = opts.limit.max(1);
        let addresses: Vec<(f32, tantivy::DocAddress)> = if opts.by_date {
            searcher
                .search(
                    &query,
                    &TopDocs::with_limit(limit)
                        .and_offset(opts.offset)
                        .order_by_fast_field::<i64>("published", Order::Desc),
                )?
                .into_iter()
                .map(|(_, a)| (0.0, a))
                .collect()
        } else {
            searcher.search(
                &query,
                &TopDocs::with_limit(limit)
                    .and_offset(opts.offset)
                    .order_by_score(),
            )?
        };
        let mut snippets = tantivy::snippet::SnippetGenerator::create(&searcher, &query, f.text)?;
        snippets.set_max_num_chars(160);
        let mut title_snippets =
            tantivy::snippet::SnippetGenerator::create(&searcher, &query, f.title)?;
        title_snippets.set_max_num_chars(400);
        let tz = self.timezone;
        let base_url = &self.base_url;
        let mut hits = Vec::with_capacity(addresses.len());
        for (score, addr) in addresses {
            let doc: TantivyDocument = searcher.doc(addr)?;
            let text = |field: Field| -> String {
                doc.get_first(field)
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_string()
            };
            let published = doc
                .get_first(f.published)
                .and_then(|v| v.as_i64())
                .and_then(|s| tz.timestamp_opt(s, 0).single())
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                .unwrap_or_default();
            let mut snippet = marked(&snippets.snippet_from_doc(&doc));
            if snippet.is_empty() {
                snippet = marked(&title_snippets.snippet_from_doc(&doc));
            }
            hits.push(Hit {
                title: text(f.shown_title),
                link: text(f.link),
                site: text(f.site),
                category: text(f.category),
                published,
                keywords: doc
                    .get_all(f.keywords)
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect(),
                summary: text(f.summary),
                url: format!("{base_url}{}", text(f.url)),
                score,
                snippet,
            });
        }
        Ok(hits)
    }
}

/// A snippet's fragment with its highlighted ranges between `\u{2}` and `\u{3}`.
fn marked(s: &tantivy::snippet::Snippet) -> String {
    let fragment = s.fragment();
    let mut out = String::with_capacity(fragment.len() + 8);
    let mut at = 0;
    for r in s.highlighted() {
        if r.start < at || r.end > fragment.len() {
            continue;
        }
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

#[cfg(test)]
mod tests;
