//! Helpers shared by the bench targets (included with `#[path]`; not a target of its own).
#![allow(dead_code)]

/// A `usize` from the environment, or `default`; a value that is not a number is a mistake worth
/// stopping for.
pub fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

/// A `timeval` (from getrusage or wait4) as a `Duration`.
pub fn tv(t: libc::timeval) -> std::time::Duration {
    std::time::Duration::from_secs(t.tv_sec as u64)
        + std::time::Duration::from_micros(t.tv_usec as u64)
}

/// User plus system CPU time this process has used so far (getrusage).
pub fn self_cpu() -> std::time::Duration {
    // SAFETY: getrusage only writes the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// xorshift64*: small, deterministic, so every run generates the same data.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in lo..=hi.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// A Zipf(1)-distributed index in 0..n (rank r with probability ∝ 1/(r+1)); `harmonic` is
    /// the sum of 1/r for r in 1..=n.
    pub fn zipf(&mut self, n: usize, harmonic: f64) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64 * harmonic;
        let mut acc = 0.0;
        for r in 0..n {
            acc += 1.0 / (r + 1) as f64;
            if acc >= u {
                return r;
            }
        }
        n - 1
    }
}
