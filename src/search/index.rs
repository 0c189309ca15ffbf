//! The full-text index (tantivy) under `.matome/search/`, and queries against it.
//!
//! Owns the schema and its tokenizers — [`TermsTokenizer`], the terms of [`super::terms`] that
//! decide what matches (the same as the static page's), and [`MatomeTokenizer`], the shared
//! analyser's words (the tokens 頻出ワード come from), which only rank — and keeping the index in
//! step with content/ (only snapshot files that are new or changed are indexed again; a missing
//! index, one of another schema or analyser, or one that does not verify (segment checksums,
//! segment readers: a truncated or corrupted file) is rebuilt from content/). The query
//! language is [`super::terms`]'s.
//!
//! Each document holds its item's story (issue 24), so a query answers one hit per story
//! (`index/stories.rs`).
//!
//! Two concerns, two files: this one keeps the index (schema, tokenizer, state, verification,
//! incremental updates); `index/query.rs` reads it (the query language, filters, paging,
//! snippets, [`SiteSearcher`]), re-exported here so callers name one module.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use chrono::{DateTime, FixedOffset};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tantivy::schema::{
    FAST, Field, IndexRecordOption, NumericOptions, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions,
};
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use tantivy::{Index, IndexWriter, TantivyDocument, Term};

use super::terms::normalize;
use crate::analyze::{Analyzer, prepare};
use crate::config::Config;
use crate::content::archive::Archive;
use crate::fsutil;

mod query;
mod stories;

pub use super::terms::{Clause, parse_query};
pub use query::{Hit, MAX_LIMIT, MAX_OFFSET, SearchOptions, SiteSearcher, parse_date, parse_until};
pub use stories::{MAX_OTHERS, Member};

/// Bump when the schema, what is indexed or how it is tokenised changes: the index is then
/// rebuilt from content/.
const SCHEMA_VERSION: u32 = 5;
/// lindera's words ([`MatomeTokenizer`]): ranking only.
const TOKENIZER: &str = "matome";
/// The terms of [`super::terms`] ([`TermsTokenizer`]): what a query matches.
const TERMS: &str = "matome-terms";
/// The index writer's memory budget (tantivy splits it across its threads).
const WRITER_HEAP: usize = 96 * 1024 * 1024;
/// Snapshot files parsed and indexed at a time, so memory stays bounded on a full rebuild.
const BATCH_FILES: usize = 256;
/// Segments above this many documents are never merged again ([`merge_policy`]).
const MERGE_MAX_DOCS: usize = 20_000;
/// Segments below this many documents count as this size when grouped into levels.
const MERGE_MIN_LAYER: u32 = 100;

/// How the writer merges segments. Every update commits one segment (an hour: ~45 documents);
/// tantivy's default policy groups every segment under 10,000 documents into one level and
/// merges up to 10 million, so at a year each hourly commit started a merge of the nine
/// segments of a full rebuild (~370,000 documents), which the writer's drop then abandoned:
/// a CPU second per hour thrown away, the small segments never merged. Here the small
/// segments merge eight at a time in levels (45 → 360 → 2,900 → 23,000 documents; each
/// document rewritten a few times in its life), a segment above [`MERGE_MAX_DOCS`] (a full
/// rebuild's, or a third-level merge's) is left alone, and [`update_files`] waits for the
/// merges, so they are kept.
fn merge_policy() -> tantivy::merge_policy::LogMergePolicy {
    let mut p = tantivy::merge_policy::LogMergePolicy::default();
    p.set_max_docs_before_merge(MERGE_MAX_DOCS);
    p.set_min_layer_size(MERGE_MIN_LAYER);
    p
}

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

/// The tokenizer of what a query matches: normalised text (see [`super::terms`]) → its
/// words, unigrams and bigrams at their positions.
#[derive(Clone, Default)]
pub struct TermsTokenizer;

impl Tokenizer for TermsTokenizer {
    type TokenStream<'a> = MatomeTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> MatomeTokenStream {
        let mut tokens = Vec::new();
        super::terms::for_each_term(text, &mut |t| {
            tokens.push(Token {
                offset_from: t.start,
                offset_to: t.end,
                position: t.position as usize,
                text: t.text,
                position_length: 1,
            })
        });
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
    /// The title, [`normalize`]d, in [`TERMS`]: matched, stored for snippets (their offsets
    /// are into it).
    title: Field,
    /// The title as written, for display.
    shown_title: Field,
    /// The summary, normalised, in [`TERMS`]: matched, stored for snippets.
    text: Field,
    /// Title and summary in lindera's words: ranks whole-word matches above parts of words.
    words: Field,
    keywords: Field,
    summary: Field,
    site: Field,
    category: Field,
    published: Field,
    url: Field,
    link: Field,
    file: Field,
    /// The item's story ID ([`crate::content::Item::story_id`]): a story's members are found by
    /// it.
    story: Field,
    /// Fast u64s of the story ID, the item's key and its site ([`stories::key64`]): one hit per
    /// story, ties broken by the item, distinct sites counted.
    story_key: Field,
    item_key: Field,
    site_key: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let with = |tokenizer: &str| {
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(tokenizer)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
    };
    let fields = Fields {
        title: b.add_text_field("title", with(TERMS) | STORED),
        shown_title: b.add_text_field("shown_title", STORED),
        text: b.add_text_field("text", with(TERMS) | STORED),
        words: b.add_text_field("words", with(TOKENIZER)),
        keywords: b.add_text_field("keywords", STORED),
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
        story: b.add_text_field("story", STRING | STORED),
        story_key: b.add_u64_field(stories::STORY_KEY, FAST),
        item_key: b.add_u64_field(stories::ITEM_KEY, FAST),
        site_key: b.add_u64_field(stories::SITE_KEY, FAST),
    };
    (b.build(), fields)
}

/// Registers the index's tokenizers.
fn register(index: &Index) {
    index.tokenizers().register(TOKENIZER, MatomeTokenizer);
    index.tokenizers().register(TERMS, TermsTokenizer);
}

/// The index document of one item of a snapshot file (`rel`, its site-relative path; `url`, the
/// item's place on its digest page). What is matched is [`super::terms`]'s: the title and the
/// summary.
fn document(f: &Fields, item: &crate::content::Item, url: String, rel: &str) -> TantivyDocument {
    let mut doc = TantivyDocument::default();
    doc.add_text(f.title, normalize(&item.title));
    doc.add_text(f.shown_title, &item.title);
    doc.add_text(f.text, normalize(&item.summary));
    let mut words = String::with_capacity(item.title.len() + item.summary.len() + 1);
    words.push_str(&item.title);
    words.push('\n');
    words.push_str(&item.summary);
    doc.add_text(f.words, prepare(&words));
    for k in &item.keywords {
        doc.add_text(f.keywords, k);
    }
    doc.add_text(f.summary, &item.summary);
    doc.add_text(f.site, &item.site);
    doc.add_text(f.category, &item.category);
    doc.add_i64(f.published, item.published.timestamp());
    doc.add_text(f.url, url);
    doc.add_text(f.link, &item.link);
    doc.add_text(f.file, rel);
    let story = item.story_id();
    doc.add_u64(f.story_key, stories::key64(&story));
    doc.add_text(f.story, story);
    doc.add_u64(f.item_key, stories::key64(&item.key().hex()));
    doc.add_u64(f.site_key, stories::key64(&item.site));
    doc
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
        register(&index);
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
    register(&index);
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
    // Site-relative path → (content hash, digest, hour) of every snapshot.
    type Files = BTreeMap<String, (u64, usize, DateTime<FixedOffset>)>;
    let current: Files = archive
        .digests
        .iter()
        .enumerate()
        .map(|(i, d)| (crate::content::rel_name(root, &d.path), (d.hash, i, d.hour)))
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
    writer.set_merge_policy(Box::new(merge_policy()));
    for rel in &removed {
        writer.delete_term(Term::from_field_text(f.file, rel));
        state.files.remove(rel);
    }
    let tz = config.timezone;
    for batch in added.chunks(BATCH_FILES) {
        let docs: Vec<Result<Vec<TantivyDocument>>> = batch
            .par_iter()
            .map(|(rel, (_, d, hour))| {
                // The documents' source: the file's record in the derived layer.
                let s = archive.snapshot(*d)?;
                let digest = crate::content::digest_path(hour, tz);
                Ok(s.items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| document(&f, item, format!("{digest}#item-{}", i + 1), rel))
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
    // The merges the commit started (small segments only, [`merge_policy`]): a dropped
    // writer abandons them.
    writer
        .wait_merging_threads()
        .context("merging the search index's segments")?;
    Ok((report, index))
}

#[cfg(test)]
mod tests;
