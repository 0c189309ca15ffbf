//! Turning a feed's bytes into UTF-8, whatever charset it claims.
//!
//! Order of evidence: a byte-order mark; then valid UTF-8 (which wins over a lying declaration);
//! then the charset of the HTTP header and of the XML declaration, each tried strictly. A body
//! that none of them decodes without errors is refused: mojibake never reaches a snapshot. The
//! XML declaration of the result is rewritten to say UTF-8, so the parser does not decode again.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};

/// Why a body could not be decoded.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DecodeError {
    #[error("the body is not valid {tried} (tried: {tried}); declared charsets: {declared}")]
    Undecodable { tried: String, declared: String },
    #[error("unknown charset `{0}`")]
    UnknownCharset(String),
}

/// Maps a charset label to an encoding, including labels common in Japan that the WHATWG list
/// lacks (cp932, ms932 variants, x-euc-jp).
pub fn encoding_for_label(label: &str) -> Option<&'static Encoding> {
    let l = label.trim().trim_matches(['"', '\'']).to_ascii_lowercase();
    let alias = match l.as_str() {
        "cp932" | "ms932" | "windows-932" | "x-ms-cp932" | "shift-jis" | "sjis-open"
        | "sjis-win" => "shift_jis",
        "eucjp" | "euc_jp" | "x-euc" | "eucjp-win" | "eucjp-ms" | "cp51932" => "euc-jp",
        "iso2022jp" | "iso-2022-jp-2" => "iso-2022-jp",
        "utf8" => "utf-8",
        other => other,
    };
    Encoding::for_label(alias.as_bytes())
}

/// The charset parameter of a Content-Type header value.
pub fn charset_from_content_type(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(['"', '\'']).to_string())
    })
}

/// The `encoding` of an XML declaration at the start of `bytes` (ASCII-compatible bodies only).
pub fn xml_declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(512)];
    let head = String::from_utf8_lossy(head);
    let head = head.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    let decl = head.strip_prefix("<?xml")?;
    let decl = &decl[..decl.find("?>")?];
    let pos = decl.find("encoding")?;
    let rest = decl[pos + "encoding".len()..]
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let rest = &rest[1..];
    Some(rest[..rest.find(quote)?].to_string())
}

/// Decodes a feed body to UTF-8. `header_charset` is the Content-Type's charset, if any.
pub fn decode(bytes: &[u8], header_charset: Option<&str>) -> Result<String, DecodeError> {
    // 1. A BOM is the strongest evidence there is.
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        return strict(enc, &bytes[bom_len..])
            .map(|s| fix_declaration(&s))
            .ok_or_else(|| DecodeError::Undecodable {
                tried: enc.name().to_string(),
                declared: format!("byte-order mark ({})", enc.name()),
            });
    }
    // 2. UTF-16 without a BOM (declared, or visible from NUL bytes around '<').
    if bytes.len() >= 4 {
        let utf16 = match (bytes[0], bytes[1], bytes[2], bytes[3]) {
            (0, b'<', 0, _) => Some(UTF_16BE),
            (b'<', 0, _, 0) => Some(UTF_16LE),
            _ => None,
        };
        if let Some(enc) = utf16
            && let Some(s) = strict(enc, bytes)
        {
            return Ok(fix_declaration(&s));
        }
    }
    let xml = xml_declared_encoding(bytes);
    let labels: Vec<String> = [header_charset.map(str::to_string), xml]
        .into_iter()
        .flatten()
        .collect();
    // 3. ISO-2022-JP is 7-bit, so it is also valid UTF-8: its escape sequences give it away.
    if bytes.contains(&0x1b)
        && labels
            .iter()
            .any(|l| encoding_for_label(l) == Some(encoding_rs::ISO_2022_JP))
        && let Some(s) = strict(encoding_rs::ISO_2022_JP, bytes)
    {
        return Ok(fix_declaration(&s));
    }
    // 4. Valid UTF-8 wins over whatever is declared.
    if let Ok(s) = std::str::from_utf8(bytes) {
        return Ok(fix_declaration(s));
    }
    // 5. The declarations, header first (RFC 7303), each strictly.
    let mut declared = Vec::new();
    let mut tried: Vec<&'static Encoding> = Vec::new();
    for label in labels {
        declared.push(label.clone());
        let Some(enc) = encoding_for_label(&label) else {
            continue;
        };
        // UTF-16 labels on an ASCII-compatible body are a lie; the body decides.
        let enc = if enc == UTF_16LE || enc == UTF_16BE {
            UTF_8
        } else {
            enc
        };
        if tried.contains(&enc) {
            continue;
        }
        tried.push(enc);
        if let Some(s) = strict(enc, bytes) {
            return Ok(fix_declaration(&s));
        }
    }
    if tried.is_empty()
        && let Some(bad) = declared.first()
        && declared.iter().all(|d| encoding_for_label(d).is_none())
    {
        return Err(DecodeError::UnknownCharset(bad.clone()));
    }
    let mut names: Vec<&str> = tried.iter().map(|e| e.name()).collect();
    if !names.contains(&"UTF-8") {
        names.insert(0, "UTF-8");
    }
    Err(DecodeError::Undecodable {
        tried: names.join(", "),
        declared: if declared.is_empty() {
            "none".to_string()
        } else {
            declared.join(", ")
        },
    })
}

/// Decodes without replacement characters, or not at all.
fn strict(enc: &'static Encoding, bytes: &[u8]) -> Option<String> {
    enc.decode_without_bom_handling_and_without_replacement(bytes)
        .map(|c| c.into_owned())
}

/// Rewrites the XML declaration's encoding to UTF-8 (the text now is UTF-8).
fn fix_declaration(s: &str) -> String {
    let trimmed = s.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    let Some(rest) = trimmed.strip_prefix("<?xml") else {
        return trimmed.to_string();
    };
    let Some(end) = rest.find("?>") else {
        return trimmed.to_string();
    };
    let after = &rest[end + 2..];
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>{after}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const RSS_JA: &str = "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><rss><channel><title>日本銀行のお知らせ</title></channel></rss>";

    fn encode(enc: &'static Encoding, s: &str) -> Vec<u8> {
        let (b, _, unmappable) = enc.encode(s);
        assert!(!unmappable);
        b.into_owned()
    }

    #[test]
    fn shift_jis_declared_in_xml() {
        let bytes = encode(encoding_rs::SHIFT_JIS, RSS_JA);
        let s = decode(&bytes, None).unwrap();
        assert!(s.contains("日本銀行のお知らせ"));
        assert!(s.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    }

    #[test]
    fn euc_jp_declared_only_in_header() {
        let src = RSS_JA.replace(" encoding=\"Shift_JIS\"", "");
        let bytes = encode(encoding_rs::EUC_JP, &src);
        assert!(
            decode(&bytes, None).is_err(),
            "undeclared EUC-JP is not guessed"
        );
        let s = decode(&bytes, Some("EUC-JP")).unwrap();
        assert!(s.contains("日本銀行のお知らせ"));
    }

    #[test]
    fn cp932_label_and_its_extra_characters() {
        let src = RSS_JA
            .replace("Shift_JIS", "CP932")
            .replace("日本銀行", "①㈱～");
        let bytes = encode(encoding_rs::SHIFT_JIS, &src);
        let s = decode(&bytes, None).unwrap();
        assert!(s.contains("①㈱～のお知らせ"), "{s}");
    }

    #[test]
    fn valid_utf8_wins_over_a_lying_declaration() {
        let s = decode(RSS_JA.as_bytes(), Some("Shift_JIS")).unwrap();
        assert!(s.contains("日本銀行のお知らせ"));
    }

    #[test]
    fn header_lies_but_xml_declaration_is_right() {
        let bytes = encode(encoding_rs::SHIFT_JIS, RSS_JA);
        let s = decode(&bytes, Some("utf-8")).unwrap();
        assert!(s.contains("日本銀行のお知らせ"));
    }

    #[test]
    fn utf16_with_bom_and_declared_utf16() {
        let src = RSS_JA.replace("Shift_JIS", "UTF-16");
        let mut be = vec![0xfe, 0xff];
        for u in src.encode_utf16() {
            be.extend_from_slice(&u.to_be_bytes());
        }
        let s = decode(&be, None).unwrap();
        assert!(s.contains("日本銀行のお知らせ"));
        assert!(s.contains("encoding=\"UTF-8\""));
    }

    #[test]
    fn iso_2022_jp() {
        let src = RSS_JA.replace("Shift_JIS", "ISO-2022-JP");
        let bytes = encode(encoding_rs::ISO_2022_JP, &src);
        assert!(decode(&bytes, None).unwrap().contains("日本銀行のお知らせ"));
    }

    #[test]
    fn garbage_is_refused_not_mangled() {
        let bytes: Vec<u8> = (0..200u32).map(|i| (i * 37 % 256) as u8 | 0x80).collect();
        let e = decode(&bytes, Some("EUC-JP")).unwrap_err();
        assert!(matches!(e, DecodeError::Undecodable { .. }), "{e}");
        assert!(e.to_string().contains("EUC-JP"));
    }

    #[test]
    fn unknown_charset_is_named() {
        let bytes = b"<?xml version=\"1.0\" encoding=\"x-klingon\"?><rss>\xff</rss>";
        let e = decode(bytes, None).unwrap_err();
        assert_eq!(e, DecodeError::UnknownCharset("x-klingon".into()));
    }
}
