//! The taxonomy pages: the list of categories, sites and keywords, and one paginated page per
//! term (a keyword's first page also has its monthly chart and related keywords).

use anyhow::Result;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Serialize;

use super::{CountLink, Ctx, ItemView, Link, PagerView, describe, entry_view, html, layout};
use crate::render::chart;
use crate::render::page::{Fp, Fps, Kind, Page, Pager, html_path};
use crate::render::site::{Site, Tax};

/// Keywords on the keyword list page (the rest are reached from the digests).
pub const KEYWORD_LIST: usize = 500;

/// Per taxonomy: every term's pages, then the list.
pub(crate) fn pages(site: &Site, fps: &Fps) -> Vec<Page> {
    let mut pages = Vec::new();
    for tax in Tax::ALL {
        let names = site.names(tax);
        let mut list_fp = Fp::new(tax.dir());
        for id in 0..names.len() {
            if site.has_term_page(tax, id as u32) {
                list_fp
                    .str(&names.names[id])
                    .u64(names.items[id].len() as u64);
            }
        }
        let term_pages: Vec<Vec<Page>> = (0..names.len() as u32)
            .into_par_iter()
            .filter(|&id| site.has_term_page(tax, id))
            .map(|id| {
                let pager = Pager::term(site, tax, id);
                let items = &names.items[id as usize];
                let mut out = Vec::with_capacity(pager.numbered() + 1);
                // Numbered pages first: the first page of a keyword folds them in (its chart
                // and related words depend on every item with the keyword, on dropped pages
                // too: `[build] keyword_max_pages`).
                let mut all = Fp::new("all");
                for page in (1..=pager.numbered()).chain(std::iter::once(0)) {
                    let mut fp = Fp::new(tax.name());
                    fp.str(&names.names[id as usize])
                        .u64(page as u64)
                        .opt(pager.older(page))
                        .opt(pager.newer(page))
                        .u64(u64::from(pager.dropped_before(page)));
                    for &i in &items[pager.range(page)] {
                        fp.u64(fps.item[i as usize]);
                    }
                    if page == 0 && tax == Tax::Keyword {
                        // Its chart starts at the archive's first month.
                        let first = chart::first_month(site).map(|m| m.to_string());
                        fp.u64(all.0).str(first.as_deref().unwrap_or("-"));
                    }
                    all.u64(fp.0);
                    if page != 0 && page < pager.first_kept() {
                        continue;
                    }
                    out.push(Page {
                        path: html_path(&site.term_url(tax, id, page)),
                        kind: Kind::Term { tax, id, page },
                        fp: fp.0,
                    });
                }
                out
            })
            .collect();
        pages.extend(term_pages.into_iter().flatten());
        pages.push(Page {
            path: format!("{}/index.html", tax.dir()),
            kind: Kind::Terms(tax),
            fp: list_fp.0,
        });
    }
    pages
}

/// `terms.html`: the terms of a taxonomy that have pages, the most items first.
#[derive(Serialize)]
pub struct TermsView {
    /// `category`, `site` or `keyword`.
    pub taxonomy: &'static str,
    /// How many terms have pages (the keyword list shows the first 500).
    pub total: usize,
    pub terms: Vec<CountLink>,
}

pub(crate) fn list(ctx: &Ctx, tax: Tax) -> Result<Vec<u8>> {
    let site = ctx.site;
    let s = site.strings;
    let names = site.names(tax);
    let mut terms: Vec<CountLink> = (0..names.len() as u32)
        .filter(|&id| site.has_term_page(tax, id))
        .map(|id| CountLink {
            name: names.names[id as usize].clone(),
            url: site.term_url(tax, id, 0),
            count: names.items[id as usize].len(),
        })
        .collect();
    terms.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    let total = terms.len();
    if tax == Tax::Keyword {
        terms.truncate(KEYWORD_LIST);
    }
    let title = match tax {
        Tax::Category => s.categories,
        Tax::Site => s.sites,
        Tax::Keyword => s.keywords,
    };
    let v = TermsView {
        taxonomy: tax.name(),
        total,
        terms,
    };
    let description = describe(
        site,
        &format!("{title} ({total})"),
        v.terms.iter().map(|t| t.name.as_str()),
    );
    let mut l = layout(site, title.into(), format!("{}/", tax.dir()), "terms", &v);
    l.page.description = description;
    html(ctx.theme, "terms.html", &l)
}

/// `term.html`: a page of one category's, site's or keyword's items, newest first.
#[derive(Serialize)]
pub struct TermView {
    /// `category`, `site` or `keyword`.
    pub taxonomy: &'static str,
    /// The taxonomy's name in the site's language.
    pub taxonomy_label: &'static str,
    /// The taxonomy's list page.
    pub taxonomy_url: String,
    pub name: String,
    /// Items with the term (all pages), on its first page only: a numbered page is not
    /// rendered again when the list grows, so a count there went stale (and differed from a cold
    /// rebuild's).
    pub count: Option<usize>,
    pub items: Vec<ItemView>,
    pub pager: PagerView,
    /// A keyword's first page: its items per month as inline SVG.
    pub chart_svg: Option<String>,
    /// A keyword's first page: the keywords seen most often in the same items.
    pub related: Vec<Link>,
    /// A category's Atom feed (site-relative).
    pub atom: Option<String>,
    /// On the oldest page of a keyword whose older pages are not kept (`[build]
    /// keyword_max_pages`): the search page for the keyword, where its older items are found.
    pub older_search: Option<String>,
}

pub(crate) fn term(ctx: &Ctx, tax: Tax, id: u32, p: usize) -> Result<Vec<u8>> {
    let site = ctx.site;
    let s = site.strings;
    let names = site.names(tax);
    let all = &names.items[id as usize];
    let pager = Pager::term(site, tax, id);
    let items: Vec<ItemView> = all[pager.range(p)]
        .iter()
        .rev()
        .map(|&i| entry_view(site, &site.archive.items[i as usize], None))
        .collect();
    let (chart, related) = if tax == Tax::Keyword && p == 0 {
        (
            Some(chart::monthly_svg(site, all, s.frequency)),
            related_keywords(site, id),
        )
    } else {
        (None, Vec::new())
    };
    let name = names.names[id as usize].clone();
    let v = TermView {
        taxonomy: tax.name(),
        taxonomy_label: match tax {
            Tax::Category => s.category,
            Tax::Site => s.site,
            Tax::Keyword => s.keyword,
        },
        taxonomy_url: format!("{}/", tax.dir()),
        name: name.clone(),
        // Only the first page (rendered again as the list grows) says how many: a numbered page
        // keeps its bytes as long as its own items do.
        count: (p == 0).then_some(all.len()),
        items,
        pager: PagerView {
            older: pager.older(p).map(|q| site.term_url(tax, id, q)),
            newer: pager.newer(p).map(|q| site.term_url(tax, id, q)),
        },
        chart_svg: chart,
        related,
        atom: (tax == Tax::Category).then(|| format!("{}atom.xml", site.term_url(tax, id, 0))),
        older_search: pager.dropped_before(p).then(|| super::search_url(&name)),
    };
    // A keyword's related words say what it is about; a category's or site's latest titles.
    let lead = match v.count {
        Some(n) => format!("{}: {} {n}{}", v.taxonomy_label, v.name, s.items),
        None => format!("{}: {}", v.taxonomy_label, v.name),
    };
    let description = if v.related.is_empty() {
        describe(site, &lead, v.items.iter().map(|i| i.title.as_str()))
    } else {
        describe(site, &lead, v.related.iter().map(|k| k.name.as_str()))
    };
    let title = if p == 0 {
        name
    } else {
        format!("{name} ({p})")
    };
    let mut l = layout(site, title, site.term_url(tax, id, p), "term", &v);
    l.page.description = description;
    html(ctx.theme, "term.html", &l)
}

/// The keywords seen most often in the same items as keyword `id`.
fn related_keywords(site: &Site, id: u32) -> Vec<Link> {
    let a = site.archive;
    let mut counts: FxHashMap<u32, usize> = FxHashMap::default();
    for &i in &a.keywords.items[id as usize] {
        for &k in &a.items[i as usize].keywords {
            if k != id && site.has_page[k as usize] {
                *counts.entry(k).or_default() += 1;
            }
        }
    }
    let mut top: Vec<(u32, usize)> = counts.into_iter().collect();
    top.sort_by(|x, y| {
        y.1.cmp(&x.1)
            .then_with(|| a.keywords.names[x.0 as usize].cmp(&a.keywords.names[y.0 as usize]))
    });
    top.into_iter()
        .take(12)
        .map(|(k, _)| site.term_link(Tax::Keyword, k))
        .collect()
}
