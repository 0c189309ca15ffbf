//! Listing the bucket for `matome deploy`: S3's ListObjectsV2, signed with `object_store`'s
//! SigV4 signer and sent through the deploy's own HTTP client (so throttling is handled as for
//! every request, [`super::throttle`]), parsed here key by key.
//!
//! Why not `object_store`'s `list`: it turns every key into an `object_store::path::Path`,
//! and one key that is valid in S3 but not as such a path (`news/backup//index.html`,
//! `a/../b`, a folder marker `dir/`) fails the whole listing, so every deploy failed until
//! someone removed the object by other means. Here such a key is *foreign*: a key matome never
//! writes, left alone (never compared, uploaded over or deleted) and reported.
//!
//! The listing asks for `encoding-type=url` (so a key with control characters cannot break
//! the XML) and decodes keys only when the answer says it encoded them. Pages are bounded
//! ([`MAX_PAGE_BYTES`]); a continuation token seen twice is an error, not a loop.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use futures_util::StreamExt;
use object_store::aws::{AmazonS3, AwsAuthorizer};
use object_store::client::{HttpClient, HttpRequest, HttpRequestBody};
use object_store::path::Path as ObjectPath;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use super::RemoteObject;
use crate::config::DeploySettings;

/// The most bytes one listing page may have (S3 sends at most 1000 keys of at most 1 KiB).
pub const MAX_PAGE_BYTES: usize = 16 << 20;
/// Foreign keys named in the deploy's message; the rest are counted.
pub const FOREIGN_SHOWN: usize = 20;

/// RFC 3986's unreserved characters stay; everything else is percent-encoded (SigV4's rule).
const QUERY: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// What the bucket holds under the prefix.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Listing {
    /// Objects with keys matome writes, by key relative to the prefix.
    pub objects: BTreeMap<String, RemoteObject>,
    /// Full keys matome never writes, left alone.
    pub foreign: Vec<String>,
}

/// One page of a ListObjectsV2 answer.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Page {
    /// (key, size, ETag), keys decoded.
    pub objects: Vec<(String, u64, Option<String>)>,
    pub next: Option<String>,
}

/// Where ListObjectsV2 goes: the bucket's URL as `object_store` forms it (path style under
/// `endpoint`, or the endpoint itself with virtual-hosted requests; Amazon S3's regional
/// endpoint without one).
pub fn bucket_url(
    endpoint: Option<&str>,
    virtual_hosted: bool,
    bucket: &str,
    region: &str,
) -> String {
    match (endpoint, virtual_hosted) {
        (Some(e), true) => e.to_string(),
        (Some(e), false) => format!("{}/{bucket}", e.trim_end_matches('/')),
        (None, true) => format!("https://{bucket}.s3.{region}.amazonaws.com"),
        (None, false) => format!("https://s3.{region}.amazonaws.com/{bucket}"),
    }
}

/// True for a key matome could have written: one `object_store` addresses as itself (no
/// empty segment, no `.` or `..`, no control character, no leading or trailing `/`).
pub fn is_matome_key(full: &str) -> bool {
    !full.is_empty() && ObjectPath::parse(full).is_ok_and(|p| p.as_ref() == full)
}

/// S3's `encoding-type=url` decoding: `+` is a space, then percent-escapes.
fn url_decode(s: &str) -> Result<String> {
    let plus = s.replace('+', " ");
    percent_encoding::percent_decode_str(&plus)
        .decode_utf8()
        .map(|c| c.into_owned())
        .with_context(|| format!("the listing holds a key that is not UTF-8: {s:?}"))
}

/// Parses one ListBucketResult (elements by local name: S3 and its imitators differ in
/// namespaces).
pub fn parse_page(xml: &str) -> Result<Page> {
    let doc = roxmltree::Document::parse(xml).context("the listing is not XML")?;
    let root = doc.root_element();
    if root.tag_name().name() != "ListBucketResult" {
        bail!(
            "the listing is a <{}>, not a ListBucketResult",
            root.tag_name().name()
        );
    }
    let child = |n: roxmltree::Node<'_, '_>, name: &str| -> Option<String> {
        n.children()
            .find(|c| c.is_element() && c.tag_name().name() == name)
            .map(|c| c.text().unwrap_or("").to_string())
    };
    let encoded = child(root, "EncodingType").is_some_and(|e| e.eq_ignore_ascii_case("url"));
    let mut page = Page::default();
    for c in root
        .children()
        .filter(|c| c.is_element() && c.tag_name().name() == "Contents")
    {
        let key = child(c, "Key").context("a listed object has no <Key>")?;
        let key = if encoded { url_decode(&key)? } else { key };
        let size = child(c, "Size")
            .and_then(|s| s.trim().parse::<u64>().ok())
            .with_context(|| format!("listed object {key:?} has no size"))?;
        let e_tag = child(c, "ETag").filter(|e| !e.is_empty());
        page.objects.push((key, size, e_tag));
    }
    let truncated = child(root, "IsTruncated").is_some_and(|t| t.trim() == "true");
    page.next = child(root, "NextContinuationToken").filter(|t| !t.is_empty());
    if truncated && page.next.is_none() {
        bail!("the listing is truncated but gives no continuation token");
    }
    if !truncated {
        page.next = None;
    }
    Ok(page)
}

/// Sorts one page into `into`: matome's keys under the prefix by relative key, the rest
/// foreign.
pub fn sort_page(page: Page, prefix: &str, into: &mut Listing) {
    for (key, size, e_tag) in page.objects {
        let rel = if prefix.is_empty() {
            Some(key.as_str())
        } else {
            key.strip_prefix(prefix).and_then(|r| r.strip_prefix('/'))
        };
        match rel {
            Some(rel) if !rel.is_empty() && is_matome_key(&key) => {
                into.objects
                    .insert(rel.to_string(), RemoteObject { size, e_tag });
            }
            _ => into.foreign.push(key),
        }
    }
}

/// Lists the bucket: see the module docs.
pub struct Lister {
    pub client: HttpClient,
    pub store: Arc<AmazonS3>,
    /// From [`bucket_url`].
    pub url: String,
    pub region: String,
}

impl Lister {
    pub async fn list(&self, settings: &DeploySettings) -> Result<Listing> {
        let mut listing = Listing::default();
        let mut tokens = BTreeSet::new();
        let mut token: Option<String> = None;
        loop {
            let xml = self.page(settings, token.as_deref()).await?;
            let page = parse_page(&xml).with_context(|| format!("listing {}", settings.url))?;
            let next = page.next.clone();
            sort_page(page, &settings.prefix, &mut listing);
            match next {
                None => break,
                Some(t) if !tokens.insert(t.clone()) => {
                    bail!(
                        "listing {}: the bucket sent the same continuation token twice",
                        settings.url
                    )
                }
                Some(t) => token = Some(t),
            }
        }
        listing.foreign.sort();
        Ok(listing)
    }

    /// One page's XML, retrying server errors and dropped connections (`[deploy] retries`);
    /// throttling is the client's ([`super::throttle`]).
    async fn page(&self, settings: &DeploySettings, token: Option<&str>) -> Result<String> {
        let mut query = vec![("encoding-type", "url"), ("list-type", "2")];
        let prefix = format!("{}/", settings.prefix);
        if !settings.prefix.is_empty() {
            query.push(("prefix", &prefix));
        }
        if let Some(t) = token {
            query.push(("continuation-token", t));
        }
        let query: Vec<String> = query
            .iter()
            .map(|(k, v)| format!("{k}={}", utf8_percent_encode(v, QUERY)))
            .collect();
        let uri = format!("{}?{}", self.url, query.join("&"));
        let mut tries = 0;
        loop {
            match self.get(&uri, settings).await {
                Ok(Answer::Page(xml)) => return Ok(xml),
                Ok(Answer::Refused(e)) => return Err(e),
                Ok(Answer::Retry(why)) | Err(why) if tries < settings.retries => {
                    tries += 1;
                    let wait = Duration::from_millis(200) * 2u32.pow(tries.min(6) as u32);
                    note_retry(&why, tries, settings.retries);
                    tokio::time::sleep(wait).await;
                }
                Ok(Answer::Retry(why)) | Err(why) => {
                    return Err(
                        why.context(format!("listing {} (after {tries} retries)", settings.url))
                    );
                }
            }
        }
    }

    async fn get(&self, uri: &str, settings: &DeploySettings) -> Result<Answer> {
        let credential = self
            .store
            .credentials()
            .get_credential()
            .await
            .map_err(|e| super::explain(e, settings))?;
        let mut req: HttpRequest = http::Request::builder()
            .method(http::Method::GET)
            .uri(uri)
            .body(HttpRequestBody::empty())
            .with_context(|| format!("the listing URL {uri}"))?;
        AwsAuthorizer::new(&credential, "s3", &self.region)
            .try_authorize(&mut req, None)
            .context("signing the listing request")?;
        let response = self
            .client
            .execute(req)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let status = response.status().as_u16();
        let mut body = Vec::new();
        let mut stream = response.into_body().bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| anyhow::anyhow!("reading the listing: {e}"))?;
            if body.len() + chunk.len() > MAX_PAGE_BYTES {
                bail!(
                    "a listing page of {} is over {MAX_PAGE_BYTES} bytes",
                    settings.url
                );
            }
            body.extend_from_slice(&chunk);
        }
        let text = String::from_utf8_lossy(&body).into_owned();
        Ok(match status {
            200..=299 => Answer::Page(text),
            500..=599 => Answer::Retry(anyhow::anyhow!("HTTP {status}: {}", excerpt(&text))),
            _ => Answer::Refused(refusal(status, &text, settings)),
        })
    }
}

enum Answer {
    Page(String),
    Retry(anyhow::Error),
    Refused(anyhow::Error),
}

fn note_retry(why: &anyhow::Error, tries: usize, of: usize) {
    eprintln!("note: listing the bucket: {why:#} (retry {tries} of {of})");
}

fn excerpt(body: &str) -> String {
    crate::text::one_line(body).chars().take(300).collect()
}

/// The error of a listing the bucket refused, in the words of [`super::explain`].
fn refusal(status: u16, body: &str, settings: &DeploySettings) -> anyhow::Error {
    let endpoint = settings.endpoint.as_deref().unwrap_or("Amazon S3");
    let said = excerpt(body);
    if status == 401
        || status == 403
        || [
            "InvalidAccessKeyId",
            "SignatureDoesNotMatch",
            "AccessDenied",
        ]
        .iter()
        .any(|c| body.contains(c))
    {
        anyhow::anyhow!(
            "{endpoint} refused the credentials: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY \
             (and that they may list, put and delete objects in bucket `{}`): HTTP {status}: {said}",
            settings.bucket
        )
    } else if status == 404 || body.contains("NoSuchBucket") {
        anyhow::anyhow!(
            "bucket `{}` does not exist at {endpoint}: create it, or fix `url`, `endpoint` or `region` in matome.toml's [deploy]: HTTP {status}: {said}",
            settings.bucket
        )
    } else {
        anyhow::anyhow!("listing {}: HTTP {status}: {said}", settings.url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_matome_never_writes_are_told_apart() {
        for k in [
            "site/index.html",
            "site/2021/07/20/0800/index.html",
            "a b/%41.html",
        ] {
            assert!(is_matome_key(k), "{k}");
        }
        for k in [
            "news/backup//index.html",
            "site/a/../b.html",
            "site/./x",
            "site/dir/",
            "/site/x",
            "site/ctl\u{1}key",
            "",
        ] {
            assert!(!is_matome_key(k), "{k:?}");
        }
    }

    #[test]
    fn a_page_is_read_key_by_key_and_url_encoded_keys_are_decoded() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>news</Name><Prefix>site/</Prefix><KeyCount>3</KeyCount><MaxKeys>1000</MaxKeys>
  <EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>
  <NextContinuationToken>tok+1</NextContinuationToken>
  <Contents><Key>site/index.html</Key><Size>12</Size><ETag>"abc"</ETag></Contents>
  <Contents><Key>site/backup//a+b%2Bc.html</Key><Size>3</Size></Contents>
  <Contents><Key>site/%E6%97%A5%E6%9C%AC/x%01y</Key><Size>0</Size><ETag></ETag></Contents>
</ListBucketResult>"#;
        let page = parse_page(xml).unwrap();
        assert_eq!(page.next.as_deref(), Some("tok+1"));
        assert_eq!(
            page.objects,
            [
                ("site/index.html".into(), 12, Some("\"abc\"".into())),
                ("site/backup//a b+c.html".into(), 3, None),
                ("site/日本/x\u{1}y".into(), 0, None),
            ]
        );
        let mut listing = Listing::default();
        sort_page(page, "site", &mut listing);
        assert_eq!(listing.objects.keys().collect::<Vec<_>>(), ["index.html"]);
        assert_eq!(
            listing.foreign,
            ["site/backup//a b+c.html", "site/日本/x\u{1}y"]
        );
        // Not encoded: keys as written.
        let plain = "<ListBucketResult><IsTruncated>false</IsTruncated>\
            <Contents><Key>a+b%20.html</Key><Size>1</Size></Contents></ListBucketResult>";
        let page = parse_page(plain).unwrap();
        assert_eq!(page.objects[0].0, "a+b%20.html");
        assert_eq!(page.next, None);
    }

    #[test]
    fn a_broken_listing_is_an_error_not_an_empty_bucket() {
        assert!(parse_page("<Error><Code>AccessDenied</Code></Error>").is_err());
        assert!(parse_page("not xml").is_err());
        assert!(
            parse_page("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>")
                .is_err()
        );
        assert!(
            parse_page("<ListBucketResult><Contents><Key>a</Key></Contents></ListBucketResult>")
                .is_err()
        );
    }

    #[test]
    fn the_bucket_url_is_object_stores() {
        assert_eq!(
            bucket_url(Some("http://127.0.0.1:9000/"), false, "news", "us-east-1"),
            "http://127.0.0.1:9000/news"
        );
        assert_eq!(
            bucket_url(Some("https://news.example"), true, "news", "x"),
            "https://news.example"
        );
        assert_eq!(
            bucket_url(None, false, "news", "ap-northeast-1"),
            "https://s3.ap-northeast-1.amazonaws.com/news"
        );
        assert_eq!(
            bucket_url(None, true, "news", "ap-northeast-1"),
            "https://news.s3.ap-northeast-1.amazonaws.com"
        );
    }
}
