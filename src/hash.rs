//! The one hash matome saves to disk: 64-bit FNV-1a, fixed across Rust releases and platforms
//! (unlike `std`'s `DefaultHasher`), for content hashes, fingerprints and the names of
//! per-output records (sealed cache files carry a CRC-32 instead: [`crate::fsutil::seal`]).
//! Not for anything an attacker could exploit by choosing collisions: every cache it guards is
//! also verified or rebuilt.

/// 64-bit FNV-1a of `bytes`: a fixed, dependency-free hash for caches that outlive the process.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
