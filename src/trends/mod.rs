//! Trends: what the archive's words do over time, computed at build time from counts the caller
//! supplies. [`burst`] scores rising words (急上昇ワード) against their recent baseline and draws
//! sparklines; [`cloud`] lays out a day's words as an inline SVG word cloud. Both are pure
//! (counts and words in, scores and markup out): counting keywords per period, choosing the
//! pages and linking them is the renderer's job.

pub mod burst;
pub mod cloud;
