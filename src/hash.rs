//! The hashes matome saves to disk, fixed across Rust releases and platforms (unlike `std`'s
//! `DefaultHasher`): 64-bit FNV-1a of bytes ([`fnv1a`]: content hashes, the names of per-output
//! records) and the one fingerprint builder ([`Fp`]) every output file's fingerprint, the
//! build's global one and each static search month's are made with; and [`hex`], the one hex
//! encoding of bytes (an item key as a story ID, digests in deploy manifests and requests). Two other hashes are on
//! disk and are not this module's: item keys are a truncated SHA-256
//! ([`crate::content::ItemKey`]) and sealed cache files carry a CRC-32 ([`crate::fsutil::seal`]).
//! Not for anything an attacker could exploit by choosing collisions: every cache it guards is
//! also verified or rebuilt.

/// `bytes` as lower-case hex digits, two a byte: item keys as story IDs, digests in deploy
/// manifests and requests.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// 64-bit FNV-1a of `bytes`: a fixed, dependency-free hash for caches that outlive the process.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// A fingerprint under construction: an order-sensitive mix of 64-bit words (splitmix64's
/// finaliser), strings entering as their [`fnv1a`]. The one builder of fingerprints: pages'
/// ([`crate::render::page`]), the build's global inputs and the static search's months.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fp(pub(crate) u64);

impl Fp {
    /// A builder seeded with `tag` (what the fingerprint is of).
    pub(crate) fn new(tag: &str) -> Fp {
        let mut f = Fp(0x243f_6a88_85a3_08d3);
        f.str(tag);
        f
    }
    pub(crate) fn u64(&mut self, v: u64) -> &mut Fp {
        let mut z = (self.0 ^ v).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        self.0 = z ^ (z >> 31);
        self
    }
    pub(crate) fn str(&mut self, s: &str) -> &mut Fp {
        self.u64(fnv1a(s.as_bytes()))
    }
    /// Bytes of any length, as their [`fnv1a`].
    pub(crate) fn bytes(&mut self, b: &[u8]) -> &mut Fp {
        self.u64(fnv1a(b))
    }
    pub(crate) fn opt(&mut self, v: Option<usize>) -> &mut Fp {
        self.u64(v.map_or(u64::MAX, |v| v as u64))
    }
}
