//! How text from outside the curator's hands is made inert for each service: the one place
//! every outbound message (`matome publish`'s posts, `matome alert`'s webhook and e-mail, any
//! later one) passes through before it leaves.
//!
//! **The rule.** Only text the curator wrote — the post templates and matome.toml — may make a
//! mention, a hashtag, a link or an embed. Text that came from a feed or a server (trend words,
//! 頻出ワード, item titles and summaries, an error a feed or service answered) is shown as text
//! on every service. Three kinds of text reach a message:
//!
//! - **markup**: a template's own literal text, sent as written (the curator's `<!here>` or
//!   `[site](https://…)` works);
//! - **data we vouch for** (the heading matome makes, the page URL under `base_url`, the site
//!   title, hashtags made of letters and digits from 頻出ワード where a template writes `#`):
//!   escaped for the service's syntax ([`escape`]) so it reads as written;
//! - **untrusted text**: first [`defang`]ed, so that no service's parser finds a mention,
//!   hashtag, cashtag, URL, domain, masked link, Hatena tag or `id:` in it, then escaped
//!   ([`inert`]).
//!
//! What each service parses, and so what defanging breaks (each as the service documents it):
//!
//! - **Slack** (mrkdwn, <https://api.slack.com/reference/surfaces/formatting>): "Slack uses `&`,
//!   `<`, and `>` as control characters for special parsing in text objects, so they must be
//!   converted to HTML entities": `<!channel>`, `<!here>`, `<@U…>` and `<url|text>` exist only
//!   through them; bare URLs and domains are linked by the client. Every message sets
//!   `unfurl_links` and `unfurl_media` to false ([`slack_body`]): no preview is made of
//!   anything.
//! - **Discord** (<https://discord.com/developers/docs/resources/message#allowed-mentions-object>):
//!   `allowed_mentions` "allows for more granular control over mentions"; with `parse: []` no
//!   `@everyone`, `@here`, role or user mention pings anyone ([`discord_body`]). Markdown
//!   (masked links `[text](url)`, headings, `<@id>`) is escaped with `\`; bare `http(s)://` URLs
//!   are linked and embedded, so they are broken. Alerts also set `flags: 4`
//!   (`SUPPRESS_EMBEDS`, execute-webhook).
//! - **Mastodon** (<https://docs.joinmastodon.org/user/posting/>): a status is plain text in
//!   which the server finds `@user@domain` mentions (which notify, and address a `direct`
//!   status), `#hashtags` and `http(s)` URLs (linked, the first one becomes the preview card) —
//!   with twitter-text's extractor. Visibility comes from matome.toml only.
//! - **Bluesky** (<https://docs.bsky.app/docs/advanced-guides/post-richtext>): "Bluesky does not
//!   use a markup language … it uses a concept of rich text facets which point at locations in
//!   the text" (`app.bsky.richtext.facet`: mention, link, tag, byte ranges of the UTF-8 text).
//!   Text without a facet is plain; matome builds facets only for the page URL and the hashtags
//!   it made ([`crate::publish::text::facets`]), never by scanning untrusted text.
//! - **X** (twitter-text, <https://github.com/twitter/twitter-text>): mentions after `@` or `＠`,
//!   hashtags after `#` or `＃`, cashtags after `$`, URLs with or without a scheme (`evil.com`
//!   is a link).
//! - **Hatena Bookmark** (<https://b.hatena.ne.jp/help/entry/tag>): words in `[…]` at the start
//!   of a comment become tags; `id:name` links a user; URLs are linked.
//! - **E-mail** and the generic webhook's `text`: mail clients link URLs and domains. The
//!   webhook's structured fields (`keywords`, `trend_words`) are data, as the feed gave them
//!   (without control characters), for the receiver to treat as such.
//!
//! Defanging keeps the text readable: a word joiner (U+2060, invisible) after `@`, `#`, `$` and
//! `:` of `://`, and before `[` and the `:` of `id:`; a one dot leader (U+2024, `․`) for a dot
//! between a letter or digit and a letter. Control and bidirectional-override characters are
//! dropped.

use serde_json::{Value, json};

use super::text::PostView;
use crate::config::publish::PublishKind;

/// An invisible character that joins what it sits between, so no parser sees a token start.
const WJ: char = '\u{2060}';
/// A dot that is not a full stop to any URL or domain parser.
const DOT: char = '\u{2024}';

/// How a service reads a message's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Medium {
    /// Slack's mrkdwn: `&`, `<`, `>` are control characters.
    SlackMrkdwn,
    /// Discord's markdown: `\` escapes.
    DiscordMarkdown,
    /// Plain text (Mastodon, Bluesky, X, Hatena, e-mail, the webhook's `text`).
    Plain,
}

impl From<PublishKind> for Medium {
    fn from(k: PublishKind) -> Medium {
        match k {
            PublishKind::Slack => Medium::SlackMrkdwn,
            PublishKind::Discord => Medium::DiscordMarkdown,
            PublishKind::Bluesky
            | PublishKind::Mastodon
            | PublishKind::Webhook
            | PublishKind::X
            | PublishKind::Hatena => Medium::Plain,
        }
    }
}

fn is_word(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Bidirectional controls and marks, which can make text read otherwise than it is.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Untrusted text with every token a service could parse broken (see the module doc), on one
/// line. Linear in the text.
pub fn defang(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + s.len() / 8 + 4);
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        if c.is_control() {
            if c.is_whitespace() {
                out.push(' ');
            }
            continue;
        }
        if is_bidi_control(c) {
            continue;
        }
        match c {
            '@' | '＠' | '#' | '＃' if is_word(next) => {
                out.push(c);
                out.push(WJ);
            }
            '$' | '＄' if next.is_some_and(char::is_alphabetic) => {
                out.push(c);
                out.push(WJ);
            }
            '.' | '．' if is_word(prev) && next.is_some_and(char::is_alphabetic) => out.push(DOT),
            ':' if next == Some('/') => {
                out.push(':');
                out.push(WJ);
            }
            ':' if is_word(next)
                && i >= 2
                && chars[i - 2..i]
                    .iter()
                    .collect::<String>()
                    .eq_ignore_ascii_case("id")
                && (i < 3 || !is_word(Some(chars[i - 3]))) =>
            {
                out.push(WJ);
                out.push(':');
            }
            '[' => {
                out.push(WJ);
                out.push('[');
            }
            _ => out.push(c),
        }
    }
    out
}

/// Text we vouch for, escaped so the service reads it as written.
pub fn escape(m: Medium, s: &str) -> String {
    match m {
        Medium::Plain => s.to_string(),
        Medium::SlackMrkdwn => s
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;"),
        Medium::DiscordMarkdown => {
            let mut out = String::with_capacity(s.len() + 8);
            for c in s.chars() {
                if matches!(
                    c,
                    '\\' | '*' | '_' | '~' | '`' | '|' | '>' | '<' | '[' | ']' | '#'
                ) {
                    out.push('\\');
                }
                out.push(c);
            }
            out
        }
    }
}

/// Untrusted text made inert for `m`: defanged, then escaped.
pub fn inert(m: Medium, s: &str) -> String {
    escape(m, &defang(s))
}

/// A post view for `m`: the data matome vouches for escaped, everything from feeds inert. The
/// templates then add only the curator's own markup.
pub fn view(m: Medium, v: &PostView) -> PostView {
    PostView {
        kind: v.kind,
        site_title: escape(m, &v.site_title),
        // A story's heading is its first item's title: a feed's text.
        heading: if v.kind == "story" {
            inert(m, &v.heading)
        } else {
            escape(m, &v.heading)
        },
        coverage: escape(m, &v.coverage),
        // The page's URL is the curator's (base_url); Discord would break a URL escaped.
        url: if m == Medium::DiscordMarkdown {
            v.url.clone()
        } else {
            escape(m, &v.url)
        },
        time: v.time.clone(),
        items: v.items,
        keywords: v.keywords.iter().map(|k| inert(m, k)).collect(),
        hashtags: v.hashtags.iter().map(|h| escape(m, h)).collect(),
        trend_words: v
            .trend_words
            .iter()
            .map(|w| super::text::TrendWord {
                word: inert(m, &w.word),
                volume: w.volume,
            })
            .collect(),
    }
}

/// A Slack message (incoming webhook): the text, also as one mrkdwn section, never unfurled.
pub fn slack_body(text: &str) -> Value {
    json!({
        "text": text,
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": text}}],
        "unfurl_links": false,
        "unfurl_media": false,
    })
}

/// A Discord message (execute webhook): no mention parsed; `suppress_embeds` sets
/// `SUPPRESS_EMBEDS` (1 << 2).
pub fn discord_body(text: &str, suppress_embeds: bool) -> Value {
    let mut v = json!({"content": text, "allowed_mentions": {"parse": []}});
    if suppress_embeds {
        v["flags"] = json!(4);
    }
    v
}

/// A message of matome's own words and quoted untrusted text (an alert: "feed URL has failed
/// …: <the feed's error>").
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Message {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Ours(String),
    Quoted(String),
}

impl Message {
    pub fn ours(mut self, s: impl Into<String>) -> Message {
        self.parts.push(Part::Ours(s.into()));
        self
    }

    pub fn quoted(mut self, s: impl Into<String>) -> Message {
        self.parts.push(Part::Quoted(s.into()));
        self
    }

    /// The message for `m`: our words escaped, quotes inert.
    pub fn render(&self, m: Medium) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Ours(s) => escape(m, s),
                Part::Quoted(s) => inert(m, s),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "<!channel> @everyone <https://evil.example/fix|Click here> [fix](https://evil.example/d) @victim@mastodon.example #BreakingScam $SCAM evil.com id:victim";

    #[test]
    fn defanged_text_holds_no_token_any_parser_finds() {
        let d = defang(HOSTILE);
        let x = twitter_text::extractor::Extractor::new();
        assert!(x.extract_urls(&d).is_empty(), "{d}");
        assert!(x.extract_hashtags(&d).is_empty(), "{d}");
        assert!(x.extract_cashtags(&d).is_empty(), "{d}");
        assert!(x.extract_mentioned_screennames(&d).is_empty(), "{d}");
        assert!(x.extract_federated_mentions(&d).is_empty(), "{d}");
        for bad in ["://", "evil.", "@e", "#B", "id:"] {
            assert!(!d.contains(bad), "{bad} in {d}");
        }
        // It reads the same: only invisible joiners and a look-alike dot were added.
        let visible: String = d
            .chars()
            .filter(|&c| c != WJ)
            .map(|c| if c == DOT { '.' } else { c })
            .collect();
        assert_eq!(visible, HOSTILE);
    }

    #[test]
    fn slack_and_discord_escape_their_syntax() {
        let s = inert(Medium::SlackMrkdwn, HOSTILE);
        assert!(!s.contains('<') && !s.contains('>'), "{s}");
        assert!(s.starts_with("&lt;!channel&gt;"), "{s}");
        let d = inert(Medium::DiscordMarkdown, HOSTILE);
        assert!(
            d.contains("\\<!channel\\>") && d.contains("\\[") && d.contains("\\]"),
            "{d}"
        );
        assert_eq!(escape(Medium::Plain, "a&b"), "a&b");
        assert_eq!(escape(Medium::SlackMrkdwn, "a&b"), "a&amp;b");
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for s in [
            "RSSフィード2021-07-20 08:00 分まとめ(42件)",
            "円相場 1.5% 上昇",
            "C# と F#",
            "大谷翔平",
        ] {
            assert_eq!(defang(s), s);
        }
        assert_eq!(defang("a\u{202E}b\nc\u{7}"), "ab c");
    }

    #[test]
    fn a_message_quotes_untrusted_parts_only() {
        let m = Message::default()
            .ours("feed https://example.jp/feed.xml has failed: ")
            .quoted("<!channel> https://evil.example/x");
        let s = m.render(Medium::SlackMrkdwn);
        assert!(s.contains("https://example.jp/feed.xml"), "{s}");
        assert!(
            s.contains("&lt;!channel&gt;") && !s.contains("https://evil"),
            "{s}"
        );
    }
}
