//! Numeric settings of matome.toml as written, checked against their declaration
//! ([`super::settings`]): any TOML number is read, then its range and wholeness are checked with
//! the file, line and key (`FILE:LINE: fetch.timeout must be …`), so a huge or fractional value
//! is a clear error, not a panic or a bare type error; an absent one is the declared default.

use std::time::Duration;

use anyhow::{Result, bail};
use serde::Deserialize;
use toml::Spanned;

use super::settings::{Kind, Setting};

/// A whole-number setting as written (any TOML number: the range and wholeness are checked
/// after, with the line and key, so `concurrency = 9223372036854775807` or `top = 1e9` is a
/// clear error, not a panic or a bare type error).
pub(super) type Int = Option<Spanned<Number>>;

#[derive(Debug, Deserialize, Clone, Copy)]
#[serde(untagged)]
pub(super) enum Number {
    Int(i64),
    Real(f64),
}
/// A number of seconds, or any other real-valued setting, as written.
pub(super) type Real = Option<Spanned<f64>>;

/// Checks numeric settings against their declaration; errors are `FILE:LINE: section.key …`.
pub(super) struct Ranges<'a> {
    pub(super) at: &'a dyn Fn(std::ops::Range<usize>) -> String,
}

/// The default of a whole-number setting, as a `T`.
pub(super) fn default_whole<T: TryFrom<i64>>(s: &Setting) -> Result<T> {
    T::try_from(s.default as i64)
        .map_err(|_| anyhow::anyhow!("{}: the default {} is out of range", s.key, s.default))
}

/// A whole number written at `at` (`FILE:LINE`), checked against its declaration: the one check
/// and the one wording of its errors, whichever table the key is in.
pub(super) fn whole<T: TryFrom<i64>>(v: Number, s: &Setting, at: &str) -> Result<T> {
    let (key, lo, hi) = (s.key, s.min, s.max);
    let n = match v {
        Number::Int(n) => n,
        Number::Real(x) => bail!("{at}: {key} must be a whole number from {lo} to {hi}, not {x}"),
    };
    if (n as f64) < lo || (n as f64) > hi {
        bail!("{at}: {key} must be at least {lo} and at most {hi}, not {n}");
    }
    T::try_from(n).map_err(|_| anyhow::anyhow!("{at}: {key}: {n} is out of range"))
}

impl Ranges<'_> {
    /// A whole number in its range, or the default when absent.
    pub(super) fn int<T: TryFrom<i64>>(&self, v: Int, s: &Setting) -> Result<T> {
        match v {
            None => default_whole(s),
            Some(v) => whole(*v.get_ref(), s, &(self.at)(v.span())),
        }
    }

    /// A real number in its range, or the default when absent.
    pub(super) fn real(&self, v: Real, s: &Setting) -> Result<f64> {
        let (key, lo, hi) = (s.key, s.min, s.max);
        let Some(v) = v else { return Ok(s.default) };
        let x = *v.get_ref();
        let positive = s.kind == Kind::PositiveSeconds;
        if !x.is_finite() || x < lo || x > hi || (positive && x <= 0.0) {
            let least = if positive {
                "more than 0".to_string()
            } else {
                format!("at least {lo}")
            };
            let unit = if s.is_seconds() { " seconds" } else { "" };
            bail!(
                "{}: {key} must be {least} and at most {hi}{unit}, not {x}",
                (self.at)(v.span())
            );
        }
        Ok(x)
    }

    /// A number of seconds in its range, or the default when absent.
    pub(super) fn secs(&self, v: Real, s: &Setting) -> Result<Duration> {
        self.real(v, s).map(Duration::from_secs_f64)
    }
}
