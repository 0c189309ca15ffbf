//! A deterministic generator for the randomized unit tests (test builds only).

/// xorshift64: the same sequence on every run, so a failure reproduces.
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// One of `pieces`, uniformly.
    pub fn pick<'a>(&mut self, pieces: &[&'a str]) -> &'a str {
        pieces[(self.next() % pieces.len() as u64) as usize]
    }

    /// Up to `max - 1` pieces joined.
    pub fn text(&mut self, pieces: &[&str], max: u64) -> String {
        let n = self.next() % max;
        (0..n).map(|_| self.pick(pieces)).collect()
    }
}
