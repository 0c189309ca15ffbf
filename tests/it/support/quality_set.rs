//! Reading a quality set (`tests/quality/*.toml`) for the quality tests: one reader for the
//! development, tuning and held-out parts alike, which never quotes a file it fails on (a
//! parse error of a held-out part would print its lines: it says only which file does not
//! parse). What a test prints of a held-out part, aggregates only, is the test's.

use serde::de::DeserializeOwned;

/// The set at `path`, parsed as `T`.
pub fn read<T: DeserializeOwned>(path: &str) -> T {
    let text = std::fs::read_to_string(path).expect("the quality set is readable");
    toml::from_str(&text).unwrap_or_else(|_| panic!("{path} does not parse"))
}
