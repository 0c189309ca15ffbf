//! Search: the full-text index for `matome search` and `serve` ([`index`]).

pub mod index;
