//! OAuth 1.0a (RFC 5849) request signing for X and Hatena Bookmark: HMAC-SHA1 over the
//! signature base string (the method, the base URI and the sorted, percent-encoded request and
//! `oauth_*` parameters), keyed by the consumer secret and the token secret.
//!
//! The signing itself is the `oauth1-request` crate's (tesaguri's, a maintained RFC 5849
//! client used by Twitter libraries; no HTTP client of its own, so it signs reqwest 0.13
//! requests without a second HTTP stack, which `reqwest-oauth1` would bring for reqwest 0.12).
//! One caveat: its `ParameterList` sorts parameters as raw text, while RFC 5849 §3.4.1.3.2
//! sorts them by their percent-encoding — which differs as soon as a value mixes ASCII and
//! other scripts (Hatena's Japanese tags: `%E6…` sorts before `AI`). So the parameters are
//! sorted here, by encoding, and handed over as they are (`AssertSorted`); parameter names must
//! then be unreserved characters, as every name matome sends is. Checked in the tests below
//! against RFC 5849 §1.2's example, X's documented signature and a hand-made base string.

use std::num::NonZeroU64;

use anyhow::Result;
use oauth1_request as oauth;

use super::{Redactor, required};
use crate::config::publish::OAuthService;

/// The four credentials of an OAuth 1.0a user context.
#[derive(Clone)]
pub struct Keys {
    pub consumer_key: String,
    pub consumer_secret: String,
    pub token: String,
    pub token_secret: String,
}

impl Keys {
    /// Reads the four variables `o` names (`service` names the service in errors).
    pub fn from_env(o: &OAuthService, service: &str) -> Result<Keys> {
        Ok(Keys {
            consumer_key: required(
                &o.consumer_key_env,
                &format!("the {service} consumer (API) key"),
            )?,
            consumer_secret: required(
                &o.consumer_secret_env,
                &format!("the {service} consumer (API) secret"),
            )?,
            token: required(&o.access_token_env, &format!("the {service} access token"))?,
            token_secret: required(
                &o.access_token_secret_env,
                &format!("the {service} access token secret"),
            )?,
        })
    }

    /// Every one of them is a secret (the consumer key and the token too: they name the app
    /// and the account).
    pub fn redact_into(&self, r: &mut Redactor) {
        for s in [
            &self.consumer_key,
            &self.consumer_secret,
            &self.token,
            &self.token_secret,
        ] {
            r.add(s);
        }
    }
}

/// RFC 5849 §3.6 percent-encoding: everything but ALPHA, DIGIT, `-`, `.`, `_`, `~`.
pub fn percent_encode(s: &str) -> String {
    const SET: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(s, SET).to_string()
}

/// The `Authorization: OAuth …` header for `method` to `uri` (no query part) with the request
/// parameters `params` (form or query parameters; a JSON body is not signed). `nonce` and
/// `timestamp` are fixed only by tests; otherwise fresh ones are made.
pub fn authorization(
    keys: &Keys,
    method: &str,
    uri: &str,
    params: &[(&str, &str)],
    fixed: Option<(&str, u64)>,
    version: bool,
) -> String {
    debug_assert!(params.iter().all(|(k, _)| percent_encode(k) == *k));
    let mut sorted: Vec<(&str, &str, String)> = params
        .iter()
        .map(|(k, v)| (*k, *v, percent_encode(v)))
        .collect();
    sorted.sort_by(|a, b| (a.0, &a.2).cmp(&(b.0, &b.2)));
    let list = oauth::request::AssertSorted::new(sorted.iter().map(|(k, v, _)| (*k, *v)));
    let client = oauth::Credentials::new(keys.consumer_key.as_str(), keys.consumer_secret.as_str());
    let token = oauth::Credentials::new(keys.token.as_str(), keys.token_secret.as_str());
    let mut b = oauth::Builder::<_, _>::new(client, oauth::HmacSha1::new());
    b.token(token).version(version);
    if let Some((nonce, ts)) = fixed {
        b.nonce(nonce).timestamp(NonZeroU64::new(ts));
    }
    b.authorize(method, uri, &list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use hmac::{Hmac, Mac};

    fn signature_of(header: &str) -> String {
        let v = header
            .split("oauth_signature=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap();
        percent_encoding::percent_decode_str(v)
            .decode_utf8()
            .unwrap()
            .into_owned()
    }

    fn hmac_sha1_b64(key: &str, text: &str) -> String {
        let mut mac = Hmac::<sha1::Sha1>::new_from_slice(key.as_bytes()).unwrap();
        mac.update(text.as_bytes());
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    }

    #[test]
    fn rfc_5849_section_1_2_example() {
        // The photo request of RFC 5849 §1.2 (HMAC-SHA1, no oauth_version in that example).
        let keys = Keys {
            consumer_key: "dpf43f3p2l4k3l03".into(),
            consumer_secret: "kd94hf93k423kf44".into(),
            token: "nnch734d00sl2jdk".into(),
            token_secret: "pfkkdhi9sl3r4s00".into(),
        };
        let h = authorization(
            &keys,
            "GET",
            "http://photos.example.net/photos",
            &[("file", "vacation.jpg"), ("size", "original")],
            Some(("chapoH", 137131202)),
            false,
        );
        assert_eq!(signature_of(&h), "MdpQcU8iPSUjWoN/UDMsK2sui9I=", "{h}");
    }

    #[test]
    fn parameters_sort_by_their_encoding_as_rfc_5849_3_4_1_3_2_says() {
        // Repeated `tags` mixing Japanese and ASCII: encoded, `%E6%97%A5…` comes before `AI`
        // (raw text would put it after). The signature must be HMAC-SHA1 over this base
        // string, spelt out by hand.
        let keys = Keys {
            consumer_key: "ck".into(),
            consumer_secret: "cs".into(),
            token: "tk".into(),
            token_secret: "ts".into(),
        };
        let h = authorization(
            &keys,
            "POST",
            "http://127.0.0.1:8080/rest/1/my/bookmark",
            &[
                ("url", "https://example.jp/a?b=1&c=2"),
                ("tags", "AI"),
                ("tags", "日本"),
                ("comment", "a + b"),
            ],
            Some(("n0nce", 1626735600)),
            false,
        );
        let base = "POST&http%3A%2F%2F127.0.0.1%3A8080%2Frest%2F1%2Fmy%2Fbookmark&\
                    comment%3Da%2520%252B%2520b%26oauth_consumer_key%3Dck%26oauth_nonce%3Dn0nce\
                    %26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1626735600\
                    %26oauth_token%3Dtk%26tags%3D%25E6%2597%25A5%25E6%259C%25AC%26tags%3DAI\
                    %26url%3Dhttps%253A%252F%252Fexample.jp%252Fa%253Fb%253D1%2526c%253D2";
        assert_eq!(signature_of(&h), hmac_sha1_b64("cs&ts", base), "{h}");
    }

    #[test]
    fn x_documented_signature_example() {
        // X's "Creating a signature" page: POST statuses/update with include_entities and
        // status, oauth_version 1.0.
        let keys = Keys {
            consumer_key: "xvz1evFS4wEEPTGEFPHBog".into(),
            consumer_secret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw".into(),
            token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb".into(),
            token_secret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE".into(),
        };
        let h = authorization(
            &keys,
            "POST",
            "https://api.twitter.com/1.1/statuses/update.json",
            &[
                ("include_entities", "true"),
                (
                    "status",
                    "Hello Ladies + Gentlemen, a signed OAuth request!",
                ),
            ],
            Some(("kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", 1318622958)),
            true,
        );
        assert_eq!(signature_of(&h), "hCtSmYh+iHYCEqBWrE7C7hYmtUk=", "{h}");
        assert!(
            h.starts_with("OAuth ") && h.contains("oauth_version=\"1.0\""),
            "{h}"
        );
    }

    #[test]
    fn percent_encoding_is_rfc_5849s() {
        assert_eq!(
            percent_encode("Ladies + Gentlemen"),
            "Ladies%20%2B%20Gentlemen"
        );
        assert_eq!(percent_encode("a-._~b!*'()"), "a-._~b%21%2A%27%28%29");
        assert_eq!(percent_encode("日"), "%E6%97%A5");
    }
}
