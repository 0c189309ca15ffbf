//! The recording servers `matome publish` and `matome alert` talk to in the tests: one HTTP
//! server on 127.0.0.1 that records every request (method, path, headers, body) and answers
//! like Bluesky (session, createRecord/getRecord), Mastodon (instance, statuses with
//! Idempotency-Key, the account's statuses), Slack and Discord webhooks, a signed JSON webhook,
//! X (`POST /2/tweets`) and Hatena Bookmark (`POST /rest/1/my/bookmark`), each checking what it
//! receives against the service's documented contract (400/401/422 on a violation, as the
//! services do): lengths as each service counts them, OAuth 1.0a signatures recomputed from the
//! request as RFC 5849 says. A service can be told to fail, to refuse, to rate-limit, or to hold
//! a request (it acts on it, then answers only when released: a run killed meanwhile never
//! sees the answer).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use unicode_segmentation::UnicodeSegmentation;

use crate::support::{RunOutput, Site};

// ---------------------------------------------------------------------------------------------
// A recording HTTP server
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
pub struct Req {
    pub method: String,
    pub path: String,
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Req {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// An answer: status, body and extra headers.
pub struct Reply(u16, String, Vec<(String, String)>);

impl From<(u16, String)> for Reply {
    fn from((s, b): (u16, String)) -> Reply {
        Reply(s, b, Vec::new())
    }
}

type Handler = dyn Fn(&Req) -> Reply + Send + Sync;

pub struct Recorder {
    port: u16,
    reqs: Arc<Mutex<Vec<Req>>>,
    stop: Arc<AtomicBool>,
}

impl Recorder {
    fn start(handler: Arc<Handler>) -> Recorder {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let reqs = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, s) = (reqs.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (r, h) = (r.clone(), handler.clone());
                std::thread::spawn(move || serve(conn, &r, &*h));
            }
        });
        Recorder { port, reqs, stop }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Requests whose path starts with `prefix`, in order.
    pub fn requests(&self, prefix: &str) -> Vec<Req> {
        self.reqs
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.path.starts_with(prefix))
            .cloned()
            .collect()
    }

    pub fn count(&self) -> usize {
        self.reqs.lock().unwrap().len()
    }

    /// Waits until a request under `prefix` has arrived (at most 20 s).
    pub fn wait_for(&self, prefix: &str) -> bool {
        for _ in 0..2000 {
            if !self.requests(prefix).is_empty() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(conn: TcpStream, reqs: &Mutex<Vec<Req>>, handler: &Handler) {
    conn.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("").to_string();
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p.to_string(), q.to_string()),
        None => (target.clone(), String::new()),
    };
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    let _ = reader.read_exact(&mut body);
    let req = Req {
        method,
        path,
        query,
        headers,
        body,
    };
    reqs.lock().unwrap().push(req.clone());
    let Reply(status, body, extra) = handler(&req);
    let ctype = if body.starts_with('{') || body.starts_with('[') {
        "application/json"
    } else {
        "text/plain"
    };
    let extra: String = extra.iter().map(|(k, v)| format!("{k}: {v}\r\n")).collect();
    let mut conn = conn;
    let _ = write!(
        conn,
        "HTTP/1.1 {status} X\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
        body.len()
    );
}

// ---------------------------------------------------------------------------------------------
// OAuth 1.0a, as the services check it (RFC 5849 §3.4.1–3.4.2), written here independently
// ---------------------------------------------------------------------------------------------

pub fn pct(s: &str) -> String {
    const SET: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(s, SET).to_string()
}

fn unpct(s: &str) -> String {
    percent_encoding::percent_decode_str(&s.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

/// `a=b&c=d` decoded into pairs.
pub fn form_pairs(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (unpct(k), unpct(v))
        })
        .collect()
}

/// The signature base string of RFC 5849 §3.4.1: the method, the base string URI, and every
/// parameter (query, form body, `oauth_*` but the signature) encoded, sorted by encoded name
/// then value, joined.
pub fn base_string(method: &str, uri: &str, params: &[(String, String)]) -> String {
    let mut enc: Vec<(String, String)> = params.iter().map(|(k, v)| (pct(k), pct(v))).collect();
    enc.sort();
    let joined: Vec<String> = enc.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "{}&{}&{}",
        method.to_uppercase(),
        pct(uri),
        pct(&joined.join("&"))
    )
}

pub fn hmac_sha1(key: &str, text: &str) -> String {
    let mut mac = Hmac::<sha1::Sha1>::new_from_slice(key.as_bytes()).unwrap();
    mac.update(text.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

/// The four credentials a service knows an app and account by.
#[derive(Clone, Copy)]
pub struct OAuthAccount {
    pub consumer_key: &'static str,
    pub consumer_secret: &'static str,
    pub token: &'static str,
    pub token_secret: &'static str,
}

/// Verifies a request's `Authorization: OAuth …` as the service does: the right consumer and
/// token, HMAC-SHA1, a fresh timestamp, a nonce never seen, and the signature recomputed from
/// the request itself (its query and, for a form body, its form parameters).
fn verify_oauth(
    r: &Req,
    account: &OAuthAccount,
    seen: &Mutex<HashSet<String>>,
) -> Result<(), String> {
    let h = r.header("authorization").ok_or("no Authorization")?;
    let h = h.strip_prefix("OAuth ").ok_or("not OAuth")?;
    let mut oauth: BTreeMap<String, String> = BTreeMap::new();
    for part in h.split(',') {
        let (k, v) = part.trim().split_once('=').ok_or("bad header")?;
        oauth.insert(k.to_string(), unpct(v.trim_matches('"')));
    }
    let get = |k: &str| oauth.get(k).cloned().unwrap_or_default();
    if get("oauth_consumer_key") != account.consumer_key || get("oauth_token") != account.token {
        return Err("unknown consumer or token".into());
    }
    if get("oauth_signature_method") != "HMAC-SHA1" {
        return Err("signature method".into());
    }
    let ts: i64 = get("oauth_timestamp").parse().map_err(|_| "timestamp")?;
    if (ts - chrono::Utc::now().timestamp()).abs() > 600 {
        return Err("stale timestamp".into());
    }
    if !seen.lock().unwrap().insert(get("oauth_nonce")) {
        return Err("nonce used before".into());
    }
    let mut params: Vec<(String, String)> = oauth
        .iter()
        .filter(|(k, _)| *k != "oauth_signature" && *k != "realm")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    params.extend(form_pairs(&r.query));
    if r.header("content-type")
        .is_some_and(|c| c.starts_with("application/x-www-form-urlencoded"))
    {
        params.extend(form_pairs(&String::from_utf8_lossy(&r.body)));
    }
    let uri = format!("http://{}{}", r.header("host").unwrap_or(""), r.path);
    let base = base_string(&r.method, &uri, &params);
    let key = format!(
        "{}&{}",
        pct(account.consumer_secret),
        pct(account.token_secret)
    );
    if hmac_sha1(&key, &base) != get("oauth_signature") {
        return Err(format!("signature does not verify over {base}"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// How each service counts
// ---------------------------------------------------------------------------------------------

/// Mastodon's count: graphemes, every URL 23.
pub fn mastodon_len(text: &str) -> usize {
    text.split_inclusive(char::is_whitespace)
        .map(|w| {
            let t = w.trim_end();
            if t.starts_with("http://") || t.starts_with("https://") {
                23 + w[t.len()..].graphemes(true).count()
            } else {
                w.graphemes(true).count()
            }
        })
        .sum()
}

/// X's count as its documentation gives it (twitter-text config v3), written here: every URL
/// X would link (twitter-text's extractor finds them) 23; an emoji grapheme 2; otherwise per
/// code point 1 in 0–4351, 8192–8205, 8208–8223, 8242–8247, else 2.
pub fn x_weighted_len(text: &str) -> usize {
    use unicode_normalization::UnicodeNormalization;
    let mut t: String = text.nfc().collect();
    let mut urls = 0;
    for u in twitter_text::extractor::Extractor::new().extract_urls(&t.clone()) {
        if let Some(at) = t.find(u.as_str()) {
            t.replace_range(at..at + u.len(), " ");
            urls += 1;
        }
    }
    let light = |c: char| {
        let c = c as u32;
        c <= 4351
            || (8192..=8205).contains(&c)
            || (8208..=8223).contains(&c)
            || (8242..=8247).contains(&c)
    };
    let emoji = |g: &str| g.chars().any(|c| (0x1F000..=0x1FAFF).contains(&(c as u32)));
    let mut n = urls * 23;
    for g in t.graphemes(true) {
        n += if emoji(g) {
            2
        } else {
            g.chars().map(|c| if light(c) { 1 } else { 2 }).sum()
        };
    }
    // The spaces left for the URLs were counted: take them back.
    n - urls
}

/// The app.bsky.feed.post lexicon, and facets whose UTF-8 byte ranges cover exactly their
/// `#tag` or link in the text.
pub fn check_bluesky_record(rec: &Value) -> Result<(), String> {
    if rec["$type"] != "app.bsky.feed.post" {
        return Err("$type".into());
    }
    let text = rec["text"].as_str().ok_or("text")?;
    if text.graphemes(true).count() > 300 || text.len() > 3000 {
        return Err(format!(
            "text too long: {} graphemes, {} bytes",
            text.graphemes(true).count(),
            text.len()
        ));
    }
    chrono::DateTime::parse_from_rfc3339(rec["createdAt"].as_str().ok_or("createdAt")?)
        .map_err(|e| format!("createdAt: {e}"))?;
    if !rec["langs"]
        .as_array()
        .is_some_and(|l| !l.is_empty() && l.iter().all(Value::is_string))
    {
        return Err("langs".into());
    }
    for f in rec["facets"].as_array().ok_or("facets")? {
        let (s, e) = (
            f["index"]["byteStart"].as_u64().ok_or("byteStart")? as usize,
            f["index"]["byteEnd"].as_u64().ok_or("byteEnd")? as usize,
        );
        if s >= e || e > text.len() || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
            return Err(format!("facet range {s}..{e} is not within the UTF-8 text"));
        }
        let feature = &f["features"][0];
        let covered = &text[s..e];
        match feature["$type"].as_str() {
            Some("app.bsky.richtext.facet#tag") => {
                if covered != format!("#{}", feature["tag"].as_str().unwrap_or("")) {
                    return Err(format!("tag facet covers {covered:?}"));
                }
            }
            Some("app.bsky.richtext.facet#link") => {
                if covered != feature["uri"].as_str().unwrap_or("") {
                    return Err(format!("link facet covers {covered:?}"));
                }
            }
            other => return Err(format!("facet type {other:?}")),
        }
    }
    let ext = &rec["embed"]["external"];
    if rec["embed"]["$type"] != "app.bsky.embed.external"
        || !ext["uri"].is_string()
        || !ext["title"].is_string()
        || !ext["description"].is_string()
    {
        return Err("embed".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The services, per their documented contracts
// ---------------------------------------------------------------------------------------------

pub const BSKY_PASSWORD: &str = "bsky-app-pass-S3CRET1";
pub const MASTODON_TOKEN: &str = "mastodon-token-S3CRET2";
pub const SLACK_PATH: &str = "/services/T0000/B0000/SLACKS3CRET3";
pub const DISCORD_PATH: &str = "/api/webhooks/1234/DISCORDS3CRET4";
pub const HOOK_SECRET: &str = "hook-signing-S3CRET5";
pub const X_ACCOUNT: OAuthAccount = OAuthAccount {
    consumer_key: "xCONSUMERkeyS3CRET7",
    consumer_secret: "xCONSUMERsecret+/S3CRET8",
    token: "1234-xTOKENS3CRET9",
    token_secret: "xTOKENsecretS3CRET10",
};
pub const HATENA_ACCOUNT: OAuthAccount = OAuthAccount {
    consumer_key: "hatenaCKS3CRET11",
    consumer_secret: "hatenaCS=S3CRET12",
    token: "hatenaATS3CRET13",
    token_secret: "hatenaATSS3CRET14",
};
pub const SECRETS: [&str; 13] = [
    BSKY_PASSWORD,
    MASTODON_TOKEN,
    "SLACKS3CRET3",
    "DISCORDS3CRET4",
    HOOK_SECRET,
    "S3CRET7",
    "S3CRET8",
    "S3CRET9",
    "S3CRET10",
    "S3CRET11",
    "S3CRET12",
    "S3CRET13",
    "S3CRET14",
];

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Fail {
    /// Answer 500 without doing anything.
    Error,
    /// Do it, then answer 500 (the answer is lost).
    AfterStoring,
    /// Refuse the post for good (400/422, as the service says a post is invalid).
    Refuse,
    /// 429 with the service's rate-limit headers.
    RateLimit,
}

#[derive(Default)]
pub struct Services {
    /// Service name (`bluesky`, `mastodon`, `slack`, `discord`, `webhook`, `x`, `hatena`) →
    /// failures to come.
    fail: Mutex<HashMap<&'static str, Vec<Fail>>>,
    /// Answer every request with 500 and everything it received (a service that echoes).
    pub echo: AtomicBool,
    pub mastodon_limit: Mutex<usize>,
    /// Services that act on a post but hold their answer until `release`.
    hold: Mutex<HashSet<&'static str>>,
    released: AtomicBool,
    /// Bluesky records by rkey; Mastodon statuses by Idempotency-Key.
    pub records: Mutex<BTreeMap<String, Value>>,
    pub statuses: Mutex<BTreeMap<String, Value>>,
    /// X posts in order; Hatena bookmarks by URL (a bookmark again updates it).
    pub tweets: Mutex<Vec<Value>>,
    pub bookmarks: Mutex<BTreeMap<String, Value>>,
    nonces: Mutex<HashSet<String>>,
    /// Accepted Slack, Discord, webhook and alert bodies.
    accepted: Mutex<Vec<(&'static str, Value)>>,
}

fn err(status: u16, error: &str, message: &str) -> (u16, String) {
    (
        status,
        json!({"error": error, "message": message}).to_string(),
    )
}

impl Services {
    fn new() -> Arc<Services> {
        let s = Services::default();
        *s.mastodon_limit.lock().unwrap() = 500;
        Arc::new(s)
    }

    pub fn fail_next(&self, service: &'static str, how: Fail) {
        self.fail
            .lock()
            .unwrap()
            .entry(service)
            .or_default()
            .push(how);
    }

    fn failure(&self, service: &'static str) -> Option<Fail> {
        let mut f = self.fail.lock().unwrap();
        let v = f.get_mut(service)?;
        (!v.is_empty()).then(|| v.remove(0))
    }

    /// `service` holds its answers (after acting) until [`Services::release`].
    pub fn hold(&self, service: &'static str) {
        self.hold.lock().unwrap().insert(service);
    }

    pub fn release(&self) {
        self.released.store(true, Ordering::Relaxed);
        self.hold.lock().unwrap().clear();
    }

    fn held(&self, service: &'static str) {
        if !self.hold.lock().unwrap().contains(service) {
            return;
        }
        for _ in 0..2000 {
            if self.released.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn handle(&self, r: &Req) -> Reply {
        if self.echo.load(Ordering::Relaxed) {
            return (
                500,
                format!(
                    "internal error: body {} auth {:?} path {}",
                    String::from_utf8_lossy(&r.body),
                    r.header("authorization"),
                    r.path,
                ),
            )
                .into();
        }
        match (r.method.as_str(), r.path.as_str()) {
            (_, p) if p.starts_with("/xrpc/") => self.bluesky(r).into(),
            (_, p) if p.starts_with("/api/v") => self.mastodon(r).into(),
            ("POST", SLACK_PATH) => self.slack(r).into(),
            ("POST", DISCORD_PATH) => self.discord(r).into(),
            ("POST", "/hook") => self.webhook(r).into(),
            ("POST", "/2/tweets") => self.x(r),
            ("POST", "/rest/1/my/bookmark") => self.hatena(r).into(),
            ("POST", "/alert") => {
                self.accepted.lock().unwrap().push(("alert", r.json()));
                (200, "{}".to_string()).into()
            }
            _ => (404, "not found".to_string()).into(),
        }
    }

    fn bluesky(&self, r: &Req) -> (u16, String) {
        let body = r.json();
        match (r.method.as_str(), r.path.as_str()) {
            ("POST", "/xrpc/com.atproto.server.createSession") => {
                if body["identifier"] != "matome.test" || body["password"] != BSKY_PASSWORD {
                    return err(
                        401,
                        "AuthenticationRequired",
                        "Invalid identifier or password",
                    );
                }
                (200, json!({"accessJwt": "jwt-1", "refreshJwt": "r", "did": "did:plc:matometest", "handle": "matome.test"}).to_string())
            }
            ("POST", "/xrpc/com.atproto.repo.createRecord") => {
                if r.header("authorization") != Some("Bearer jwt-1") {
                    return err(401, "AuthenticationRequired", "no session");
                }
                if body["repo"] != "did:plc:matometest"
                    || body["collection"] != "app.bsky.feed.post"
                {
                    return err(400, "InvalidRequest", "repo or collection");
                }
                if let Err(e) = check_bluesky_record(&body["record"]) {
                    return err(400, "InvalidRequest", &e);
                }
                let rkey = body["rkey"].as_str().unwrap_or("").to_string();
                if rkey.len() != 13 {
                    return err(400, "InvalidRequest", "rkey must be a TID");
                }
                let fail = self.failure("bluesky");
                if fail == Some(Fail::Error) {
                    return (500, "{\"error\":\"InternalServerError\"}".into());
                }
                if fail == Some(Fail::Refuse) {
                    return err(400, "InvalidRequest", "Invalid app.bsky.feed.post record");
                }
                {
                    let mut recs = self.records.lock().unwrap();
                    if recs.contains_key(&rkey) {
                        return err(400, "InvalidRequest", "Record already exists");
                    }
                    recs.insert(rkey.clone(), body["record"].clone());
                }
                self.held("bluesky");
                if fail == Some(Fail::AfterStoring) {
                    return (500, "{\"error\":\"InternalServerError\"}".into());
                }
                let uri = format!("at://did:plc:matometest/app.bsky.feed.post/{rkey}");
                (200, json!({"uri": uri, "cid": "bafy"}).to_string())
            }
            ("GET", "/xrpc/com.atproto.repo.getRecord") => {
                let rkey = r
                    .query
                    .split('&')
                    .find_map(|kv| kv.strip_prefix("rkey="))
                    .unwrap_or("");
                match self.records.lock().unwrap().get(rkey) {
                    Some(v) => (200, json!({"uri": rkey, "value": v}).to_string()),
                    None => err(400, "RecordNotFound", "Could not locate record"),
                }
            }
            _ => (404, "not found".into()),
        }
    }

    fn mastodon(&self, r: &Req) -> (u16, String) {
        let authorized = r.header("authorization") == Some(&format!("Bearer {MASTODON_TOKEN}"));
        match (r.method.as_str(), r.path.as_str()) {
            ("GET", "/api/v2/instance") => (
                200,
                json!({"domain": "127.0.0.1", "configuration": {"statuses": {
                    "max_characters": *self.mastodon_limit.lock().unwrap(),
                    "characters_reserved_per_url": 23}}})
                .to_string(),
            ),
            ("GET", "/api/v1/accounts/verify_credentials") if authorized => {
                (200, json!({"id": "1", "username": "matome"}).to_string())
            }
            ("GET", "/api/v1/accounts/1/statuses") if authorized => {
                let st = self.statuses.lock().unwrap();
                let mut list: Vec<&Value> = st.values().collect();
                list.sort_by_key(|s| std::cmp::Reverse(s["id"].as_str().unwrap_or("").to_string()));
                (
                    200,
                    Value::Array(list.into_iter().cloned().collect()).to_string(),
                )
            }
            ("POST", "/api/v1/statuses") => self.mastodon_post(r, authorized),
            _ => (404, "not found".into()),
        }
    }

    fn mastodon_post(&self, r: &Req, authorized: bool) -> (u16, String) {
        let body = r.json();
        if !authorized {
            return (401, "{\"error\":\"The access token is invalid\"}".into());
        }
        let Some(key) = r.header("idempotency-key").map(str::to_string) else {
            return (422, "{\"error\":\"no Idempotency-Key\"}".into());
        };
        let status = body["status"].as_str().unwrap_or("").to_string();
        let limit = *self.mastodon_limit.lock().unwrap();
        if mastodon_len(&status) > limit {
            return (422, json!({"error": format!("Validation failed: Text character limit of {limit} exceeded")}).to_string());
        }
        let fail = self.failure("mastodon");
        if fail == Some(Fail::Error) {
            return (500, "{\"error\":\"oops\"}".into());
        }
        if fail == Some(Fail::Refuse) {
            return (
                422,
                "{\"error\":\"Validation failed: Text can't be blank\"}".into(),
            );
        }
        let v = {
            let mut st = self.statuses.lock().unwrap();
            let n = st.len();
            // Same key: the same status again, not a new one (Mastodon's idempotency). Its
            // content is HTML, the URL a link, as Mastodon renders it.
            let html = format!(
                "<p>{}</p>",
                status.replace('&', "&amp;").replace('<', "&lt;")
            );
            st.entry(key)
                .or_insert_with(|| json!({"id": format!("{}", 100 + n), "url": format!("http://127.0.0.1/@m/{}", 100 + n), "content": html, "text": status, "visibility": body["visibility"], "language": body["language"]}))
                .clone()
        };
        self.held("mastodon");
        if fail == Some(Fail::AfterStoring) {
            return (500, "{\"error\":\"oops\"}".into());
        }
        (200, v.to_string())
    }

    fn slack(&self, r: &Req) -> (u16, String) {
        let body = r.json();
        let text = body["text"].as_str().unwrap_or("");
        let block = &body["blocks"][0];
        if text.is_empty() || block["type"] != "section" || block["text"]["type"] != "mrkdwn" {
            return (400, "invalid_payload".into());
        }
        if block["text"]["text"].as_str().unwrap_or("").chars().count() > 3000 {
            return (400, "invalid_blocks".into());
        }
        match self.failure("slack") {
            Some(Fail::Refuse) => return (400, "invalid_blocks".into()),
            Some(_) => return (500, "internal_error".into()),
            None => {}
        }
        self.accepted.lock().unwrap().push(("slack", body));
        self.held("slack");
        (200, "ok".into())
    }

    fn discord(&self, r: &Req) -> (u16, String) {
        let body = r.json();
        let content = body["content"].as_str().unwrap_or("");
        if content.is_empty() || content.encode_utf16().count() > 2000 {
            return (
                400,
                json!({"code": 50035, "errors": {"content": "Must be 2000 or fewer in length."}})
                    .to_string(),
            );
        }
        if body["allowed_mentions"]["parse"] != json!([]) {
            return (400, "{\"message\":\"allowed_mentions\"}".into());
        }
        if self.failure("discord").is_some() {
            return (500, "{\"message\":\"500\"}".into());
        }
        self.accepted.lock().unwrap().push(("discord", body));
        self.held("discord");
        (204, String::new())
    }

    fn webhook(&self, r: &Req) -> (u16, String) {
        let body = r.json();
        let ts = r.header("x-matome-timestamp").unwrap_or("");
        let mut mac = Hmac::<Sha256>::new_from_slice(HOOK_SECRET.as_bytes()).unwrap();
        mac.update(format!("{ts}.").as_bytes());
        mac.update(&r.body);
        let hex: String = mac
            .finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if r.header("x-matome-signature-256") != Some(&format!("sha256={hex}")) {
            return (401, "bad signature".into());
        }
        if r.header("x-matome-delivery") != body["id"].as_str() {
            return (400, "delivery id".into());
        }
        if self.failure("webhook").is_some() {
            return (500, "busy".into());
        }
        self.accepted.lock().unwrap().push(("webhook", body));
        self.held("webhook");
        (200, "{}".into())
    }

    /// X API v2 `POST /2/tweets`: OAuth 1.0a user context, `{"text"}` of at most 280 weighted
    /// characters, 201 with `data.id`; 429 with `x-rate-limit-reset`; 403 for the same text
    /// twice.
    fn x(&self, r: &Req) -> Reply {
        if let Err(e) = verify_oauth(r, &X_ACCOUNT, &self.nonces) {
            return (
                401,
                json!({"title": "Unauthorized", "detail": e, "status": 401}).to_string(),
            )
                .into();
        }
        let body = r.json();
        let Some(text) = body["text"].as_str() else {
            return (
                400,
                json!({"title": "Invalid Request", "detail": "text"}).to_string(),
            )
                .into();
        };
        if body.as_object().is_some_and(|o| o.len() != 1) {
            return (
                400,
                json!({"title": "Invalid Request", "detail": "unknown field"}).to_string(),
            )
                .into();
        }
        if x_weighted_len(text) > 280 {
            return (
                400,
                json!({"title": "Invalid Request", "detail": "Your Tweet text is too long."})
                    .to_string(),
            )
                .into();
        }
        match self.failure("x") {
            Some(Fail::RateLimit) => {
                let reset = chrono::Utc::now().timestamp() + 900;
                return Reply(
                    429,
                    json!({"title": "Too Many Requests", "detail": "Too Many Requests", "status": 429}).to_string(),
                    vec![
                        ("x-rate-limit-limit".into(), "17".into()),
                        ("x-rate-limit-remaining".into(), "0".into()),
                        ("x-rate-limit-reset".into(), reset.to_string()),
                    ],
                );
            }
            Some(Fail::Refuse) => {
                return (400, json!({"title": "Invalid Request", "detail": "One or more parameters to your request was invalid.", "status": 400}).to_string()).into();
            }
            Some(_) => return (503, "{\"title\":\"Service Unavailable\"}".to_string()).into(),
            None => {}
        }
        let id = {
            let mut tweets = self.tweets.lock().unwrap();
            if tweets.iter().any(|t| t["text"] == text) {
                return (403, json!({"detail": "You are not allowed to create a Tweet with duplicate content.", "status": 403}).to_string()).into();
            }
            let id = format!("{}", 1_500_000_000_000_000_000u64 + tweets.len() as u64);
            tweets.push(json!({"id": id, "text": text}));
            id
        };
        self.held("x");
        (
            201,
            json!({"data": {"id": id, "text": text, "edit_history_tweet_ids": [id]}}).to_string(),
        )
            .into()
    }

    /// Hatena Bookmark `POST /rest/1/my/bookmark`: OAuth 1.0a over the form parameters; `url`
    /// (http(s)), a `comment` of at most 100 characters, at most 10 `tags`; the same URL again
    /// updates its bookmark.
    fn hatena(&self, r: &Req) -> (u16, String) {
        if let Err(e) = verify_oauth(r, &HATENA_ACCOUNT, &self.nonces) {
            return (401, format!("OAuth: {e}"));
        }
        if !r
            .header("content-type")
            .is_some_and(|c| c.starts_with("application/x-www-form-urlencoded"))
        {
            return (400, "form parameters expected".into());
        }
        let form = form_pairs(&String::from_utf8_lossy(&r.body));
        let one = |k: &str| form.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        let Some(url) =
            one("url").filter(|u| u.starts_with("http://") || u.starts_with("https://"))
        else {
            return (400, "url".into());
        };
        let comment = one("comment").unwrap_or_default();
        if comment.chars().count() > 100 {
            return (400, "comment too long".into());
        }
        let tags: Vec<String> = form
            .iter()
            .filter(|(n, _)| n == "tags")
            .map(|(_, v)| v.clone())
            .collect();
        if tags.len() > 10 {
            return (400, "too many tags".into());
        }
        match self.failure("hatena") {
            Some(Fail::Refuse) => return (400, "Bad Request".into()),
            Some(_) => return (500, "Internal Server Error".into()),
            None => {}
        }
        let v = json!({"comment": comment, "tags": tags, "permalink": format!("https://b.hatena.ne.jp/matome/{}", url.len()), "private": false});
        self.bookmarks.lock().unwrap().insert(url, v.clone());
        self.held("hatena");
        (200, v.to_string())
    }

    pub fn accepted(&self, service: &str) -> Vec<Value> {
        self.accepted
            .lock()
            .unwrap()
            .iter()
            .filter(|(s, _)| *s == service)
            .map(|(_, v)| v.clone())
            .collect()
    }
}

pub fn start() -> (Arc<Services>, Recorder) {
    let services = Services::new();
    let s = services.clone();
    let rec = Recorder::start(Arc::new(move |r: &Req| s.handle(r)));
    (services, rec)
}

// ---------------------------------------------------------------------------------------------
// Sites and digests
// ---------------------------------------------------------------------------------------------

pub const BASE: &str = "https://curator.github.io/news/";

/// The `[[publish]]` tables of every service, pointed at the recorder, each with `extra`.
pub fn targets_toml(rec: &Recorder, kinds: &[&str], extra: &str) -> String {
    let svc = rec.url("");
    kinds
        .iter()
        .map(|k| {
            let own = match *k {
                "bluesky" => format!("handle = \"matome.test\"\nservice = \"{svc}\"\n"),
                "mastodon" => format!("instance = \"{svc}\"\n"),
                "webhook" => format!("url = \"{}\"\n", rec.url("/hook")),
                "x" | "hatena" => format!("api = \"{svc}\"\n"),
                _ => String::new(),
            };
            format!("[[publish]]\nkind = \"{k}\"\n{own}{extra}\n")
        })
        .collect()
}

pub const ALL: [&str; 7] = [
    "bluesky", "mastodon", "slack", "discord", "webhook", "x", "hatena",
];
/// The five services of issue 16's tests (X and Hatena came later).
pub const FIVE: [&str; 5] = ["bluesky", "mastodon", "slack", "discord", "webhook"];

pub fn publish_site_with(rec: &Recorder, kinds: &[&str], extra: &str) -> Site {
    let mut site = Site::new();
    site.config.base_url = BASE.into();
    site.config.append = targets_toml(rec, kinds, extra);
    site.write_config(&[]);
    site
}

pub fn publish_site(rec: &Recorder, extra: &str) -> Site {
    publish_site_with(rec, &FIVE, extra)
}

pub fn envs(rec: &Recorder) -> Vec<(String, String)> {
    let mut v = vec![
        ("MATOME_BLUESKY_APP_PASSWORD".into(), BSKY_PASSWORD.into()),
        ("MATOME_MASTODON_TOKEN".into(), MASTODON_TOKEN.into()),
        ("MATOME_SLACK_WEBHOOK_URL".into(), rec.url(SLACK_PATH)),
        ("MATOME_DISCORD_WEBHOOK_URL".into(), rec.url(DISCORD_PATH)),
        ("MATOME_WEBHOOK_SECRET".into(), HOOK_SECRET.into()),
    ];
    for (name, a) in [("X", X_ACCOUNT), ("HATENA", HATENA_ACCOUNT)] {
        v.push((format!("MATOME_{name}_CONSUMER_KEY"), a.consumer_key.into()));
        v.push((
            format!("MATOME_{name}_CONSUMER_SECRET"),
            a.consumer_secret.into(),
        ));
        v.push((format!("MATOME_{name}_ACCESS_TOKEN"), a.token.into()));
        v.push((
            format!("MATOME_{name}_ACCESS_TOKEN_SECRET"),
            a.token_secret.into(),
        ));
    }
    v
}

pub fn publish(site: &Site, env: &[(String, String)], now: &str, extra: &[&str]) -> RunOutput {
    let mut args = vec!["publish", "--now", now];
    args.extend_from_slice(extra);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    site.matome_with(&args, &env, Duration::from_secs(60))
}

/// Writes the digest of `hour` (RFC 3339, site zone) with items of these titles and keywords.
pub fn write_digest(site: &Site, hour: &str, items: &[(&str, &[&str])]) {
    let h = chrono::DateTime::parse_from_rfc3339(hour).unwrap();
    let rel = format!("content/{}.md", h.format("%Y/%m/%d/%H%M"));
    let mut text = format!("+++\nhour = {hour}\nupdated = {hour}\n");
    for (i, (title, keywords)) in items.iter().enumerate() {
        let kw: Vec<String> = keywords.iter().map(|k| format!("{k:?}")).collect();
        text.push_str(&format!(
            "\n[[items]]\nid = \"{hour}-{i}\"\nfeed = \"https://example.jp/feed.xml\"\ncategory = \"IT\"\nsite = \"例サイト\"\ntitle = {title:?}\nlink = \"https://example.jp/{i}\"\npublished = {hour}\nkeywords = [{}]\nsummary = {:?}\ntext = \"\"\n",
            kw.join(", "),
            format!("{title}の要約")
        ));
    }
    text.push_str("+++\n");
    site.write(rel, text);
}

pub fn digest(site: &Site, hour: &str) {
    write_digest(
        site,
        hour,
        &[
            (
                "生成AIで社内文書を検索、大手損保が全社導入",
                &["生成AI", "社内文書", "大手損保"],
            ),
            (
                "日銀、気候変動対応オペを拡充",
                &["日本銀行", "生成AI", "気候変動対応オペ"],
            ),
            ("Google Cloud adds regions", &["Google Cloud", "C++"]),
        ],
    );
}

/// Writes a trends digest of `hour` with these trend words (and volumes).
pub fn write_trends(site: &Site, hour: &str, words: &[(&str, u64)]) {
    let h = chrono::DateTime::parse_from_rfc3339(hour).unwrap();
    let rel = format!("content/{}.md", h.format("%Y/%m/%d/%H%M"));
    let mut text = format!("+++\nhour = {hour}\nupdated = {hour}\n");
    for (i, (w, v)) in words.iter().enumerate() {
        text.push_str(&format!("\n[[items]]\nid = \"trend:{i}\"\nfeed = \"https://trends.example/rss\"\ncategory = \"トレンド\"\nsite = \"Google トレンド\"\ntitle = {}\nlink = \"https://trends.example/{i}\"\npublished = {hour}\n\n[items.trend]\nvolume = {v}\n", crate::support::site::toml_str(w)));
    }
    text.push_str("+++\n");
    site.write(rel, text);
}

/// Adds the trends feed to a site's config.
pub fn with_trends_feed(site: &Site) {
    let cfg = site.read("matome.toml").replacen(
        "[[publish]]",
        "[[feeds]]\nurl = \"https://trends.example/rss\"\ncategory = \"トレンド\"\nkind = \"trends\"\n\n[[publish]]",
        1,
    );
    site.write_config_raw(&cfg);
}

/// What each service has: posts per target (Bluesky, Mastodon, Slack, Discord, webhook).
pub fn counts(s: &Services) -> [usize; 5] {
    [
        s.records.lock().unwrap().len(),
        s.statuses.lock().unwrap().len(),
        s.accepted("slack").len(),
        s.accepted("discord").len(),
        s.accepted("webhook").len(),
    ]
}

#[test]
fn the_recording_servers_oauth_check_builds_rfc_5849s_base_string() {
    // RFC 5849 §3.4.1.1's example request, parameters decoded as §3.4.1.3.1 collects them.
    let params: Vec<(String, String)> = [
        ("b5", "=%3D"),
        ("a3", "a"),
        ("c@", ""),
        ("a2", "r b"),
        ("oauth_consumer_key", "9djdj82h48djs9d2"),
        ("oauth_token", "kkk9d7dh3k39sjv7"),
        ("oauth_signature_method", "HMAC-SHA1"),
        ("oauth_timestamp", "137131201"),
        ("oauth_nonce", "7d8f3e4a"),
        ("c2", ""),
        ("a3", "2 q"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(
        base_string("POST", "http://example.com/request", &params),
        "POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7"
    );
    assert_eq!(
        form_pairs("b5=%3D%253D&a3=a&c%40=&a2=r%20b&c2&a3=2+q")
            .iter()
            .filter(|(k, _)| k == "a3")
            .count(),
        2
    );
    // X's documented example: its signature, from its base string and signing key.
    assert_eq!(
        hmac_sha1(
            "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw&LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
            "POST&https%3A%2F%2Fapi.twitter.com%2F1.1%2Fstatuses%2Fupdate.json&include_entities%3Dtrue%26oauth_consumer_key%3Dxvz1evFS4wEEPTGEFPHBog%26oauth_nonce%3DkYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1318622958%26oauth_token%3D370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb%26oauth_version%3D1.0%26status%3DHello%2520Ladies%2520%252B%2520Gentlemen%252C%2520a%2520signed%2520OAuth%2520request%2521"
        ),
        "hCtSmYh+iHYCEqBWrE7C7hYmtUk="
    );
    assert_eq!(
        x_weighted_len("日本語 abc https://example.jp/very/long/path"),
        6 + 1 + 3 + 1 + 23
    );
}
