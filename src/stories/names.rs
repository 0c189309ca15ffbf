//! Names one organisation goes by in headlines of both languages: `Bank of Japan`, `BOJ`,
//! `日銀` and `日本銀行` are one central bank, `Google` and `グーグル` one company, `KDDI` and its
//! brand `au` one carrier; and the few things news names by an abbreviation in one report and
//! in full in another (`CPI` and `消費者物価`, `TOB` and `公開買い付け`, `W杯` and `World Cup`).
//! A title that uses any of them has the name's one term in place of the alias, so two reports
//! share it whichever they wrote (across languages too), and two titles that each name a
//! different central bank and not the other's report different decisions. A small table, not a
//! transliteration: the names the digests' feeds write most, where a katakana rendering and
//! the Latin name have nothing else in common. Owns only reading the names out of a
//! lower-cased, NFKC-normalised title.

use crate::hash::fnv1a;

/// One organisation: its term, whether it is a central bank, and how titles write it.
struct Name {
    term: &'static str,
    central_bank: bool,
    aliases: &'static [&'static str],
    /// The organisation it is part of, named too (AWS is Amazon's).
    parent: Option<&'static str>,
}

const NAMES: &[Name] = &[
    Name {
        term: "boj",
        central_bank: true,
        aliases: &["boj", "bank of japan", "日銀", "日本銀行"],
        parent: None,
    },
    Name {
        term: "fed",
        central_bank: true,
        aliases: &[
            "fed",
            "federal reserve",
            "fomc",
            "frb",
            "米金融当局",
            "米連邦準備制度理事会",
            "米連邦公開市場委員会",
        ],
        parent: None,
    },
    Name {
        term: "ecb",
        central_bank: true,
        aliases: &["ecb", "european central bank", "欧州中央銀行", "欧州中銀"],
        parent: None,
    },
    Name {
        term: "boe",
        central_bank: true,
        aliases: &[
            "boe",
            "bank of england",
            "英中銀",
            "英中央銀行",
            "イングランド銀行",
        ],
        parent: None,
    },
    Name {
        term: "pboc",
        central_bank: true,
        aliases: &["pboc", "people's bank of china", "中国人民銀行"],
        parent: None,
    },
    Name {
        term: "rba",
        central_bank: true,
        aliases: &["rba", "reserve bank of australia", "豪中銀", "豪準備銀行"],
        parent: None,
    },
    company("google", &["google", "グーグル"]),
    company("apple", &["apple", "アップル"]),
    company("microsoft", &["microsoft", "マイクロソフト", "ms"]),
    Name {
        term: "aws",
        central_bank: false,
        aliases: &[
            "aws",
            "amazon web services",
            "amazon cloud",
            "アマゾン ウェブ サービス",
            "アマゾン・ウェブ・サービス",
        ],
        parent: Some("amazon"),
    },
    company("amazon", &["amazon", "アマゾン"]),
    company("meta", &["meta", "メタ"]),
    company("nvidia", &["nvidia", "エヌビディア"]),
    company("openai", &["openai", "オープンai"]),
    company("cloudflare", &["cloudflare", "クラウドフレア"]),
    company("samsung", &["samsung", "サムスン"]),
    company("tesla", &["tesla", "テスラ"]),
    company("intel", &["intel", "インテル"]),
    company("sony", &["sony", "ソニー"]),
    company("toyota", &["toyota", "トヨタ"]),
    company(
        "softbank",
        &[
            "softbank group",
            "softbank",
            "sbg",
            "ソフトバンクグループ",
            "ソフトバンクg",
            "ソフトバンク",
        ],
    ),
    company("whatsapp", &["whatsapp", "ワッツアップ"]),
    company("netflix", &["netflix", "ネットフリックス"]),
    company("tsmc", &["tsmc", "台湾積体電路製造"]),
    // a carrier and its brand
    company("kddi", &["kddi", "au"]),
    company("docomo", &["ntt docomo", "docomo", "nttドコモ", "ドコモ"]),
    company("imf", &["imf", "国際通貨基金"]),
    // what news names by an abbreviation in one report and in full in another
    company(
        "cpi",
        &[
            "cpi",
            "consumer price index",
            "consumer prices",
            "消費者物価指数",
            "消費者物価",
        ],
    ),
    company("gdp", &["gdp", "gross domestic product", "国内総生産"]),
    company(
        "tender offer",
        &[
            "tob",
            "tender offer",
            "株式公開買い付け",
            "株式公開買付",
            "公開買い付け",
        ],
    ),
    company(
        "ipo",
        &["ipo", "initial public offering", "新規株式公開", "新規上場"],
    ),
    company("world cup", &["world cup", "ワールドカップ", "w杯"]),
    company(
        "mlb",
        &["mlb", "major league baseball", "大リーグ", "メジャーリーグ"],
    ),
    company(
        "all-star",
        &["all-star", "all star", "オールスター", "球宴"],
    ),
    company("white paper", &["white paper", "白書"]),
    company(
        "patch tuesday",
        &["patch tuesday", "月例パッチ", "月例セキュリティ更新"],
    ),
];

const fn company(term: &'static str, aliases: &'static [&'static str]) -> Name {
    Name {
        term,
        central_bank: false,
        aliases,
        parent: None,
    }
}

/// The names of one title.
#[derive(Debug, Default, PartialEq)]
pub struct Found {
    /// The organisations' terms (to add to the title's).
    pub terms: Vec<u64>,
    /// Hashes of the aliases as written (to take out of the title's words: the term stands
    /// for them).
    pub aliases: Vec<u64>,
    /// The organisations they are part of (not terms of the title: one word is not two
    /// shared, but a name the title gives).
    pub parents: Vec<u64>,
    /// The central banks named, one bit each.
    pub central_banks: u8,
}

/// The names of `lower` (a lower-cased, NFKC-normalised title); `words` gives an alias's word
/// hashes as the title's words are hashed.
pub fn find(lower: &str, words: impl Fn(&'static str) -> Vec<u64>) -> Found {
    let mut found = Found::default();
    let mut bank = 0;
    // a name found is blanked out, so a shorter one inside it (amazon in amazon web services)
    // is not found again
    let mut text = lower.to_string();
    for name in NAMES {
        let mut named = false;
        for alias in name.aliases {
            if has_name(&text, alias) {
                named = true;
                found.aliases.extend(words(alias));
                text = text.replace(alias, &" ".repeat(alias.len()));
            }
        }
        if named {
            found.terms.push(term(name.term));
            found.parents.extend(name.parent.map(term));
            if name.central_bank {
                found.central_banks |= 1 << bank;
            }
        }
        if name.central_bank {
            bank += 1;
        }
    }
    found
}

/// Every alias of the table.
pub fn aliases() -> impl Iterator<Item = &'static str> {
    NAMES.iter().flat_map(|n| n.aliases.iter().copied())
}

/// The term of an organisation (not any word's hash: `#` never starts a token).
fn term(name: &str) -> u64 {
    fnv1a(format!("#name:{name}").as_bytes())
}

/// Whether two titles name central banks and none in common: different decisions.
pub fn other_central_banks(a: u8, b: u8) -> bool {
    a != 0 && b != 0 && a & b == 0
}

/// Whether `text` has `alias` as a whole name: not inside a longer Latin word (`fed` in
/// `fedex`), nor a katakana alias inside a longer katakana word (`メタ` in `メタバース`).
fn has_name(text: &str, alias: &str) -> bool {
    let latin = |c: char| c.is_ascii_alphanumeric();
    let kana = |c: char| matches!(c, '\u{30a0}'..='\u{30ff}');
    let first = alias.chars().next().unwrap_or(' ');
    let last = alias.chars().next_back().unwrap_or(' ');
    text.match_indices(alias).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + alias.len()..].chars().next();
        let joins = |c: Option<char>, edge: char| {
            c.is_some_and(|c| (latin(edge) && latin(c)) || (kana(edge) && kana(c)))
        };
        !joins(before, first) && !joins(after, last)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(title: &str) -> Vec<u64> {
        let lower = crate::analyze::prepare(title).to_lowercase();
        find(&lower, |a| vec![fnv1a(a.as_bytes())]).terms
    }

    #[test]
    fn one_organisation_whichever_name_a_title_uses() {
        assert_eq!(
            terms("Bank of Japan raises rates to 1%"),
            terms("BOJ lifts key rate to 1%")
        );
        assert_eq!(
            terms("BOJ lifts key rate"),
            terms("日銀、政策金利1%に引き上げ")
        );
        assert_eq!(
            terms("グーグル、「Gemini 3.5 Flash」を公開"),
            terms("Google launches Gemini")
        );
        assert!(terms("FedEx cuts annual profit forecast").is_empty());
        assert!(terms("メタバースの新サービス").is_empty());
        assert_eq!(terms("ＥＵ、メタに制裁金"), terms("EU hits Meta with fine"));
        assert_eq!(
            terms("Amazon cloud outage disrupts websites"),
            terms("An AWS outage is knocking apps offline")
        );
    }

    #[test]
    fn abbreviations_and_brands_are_the_names_in_full() {
        assert_eq!(
            terms("米CPI、6月は2.8%上昇"),
            terms("米消費者物価6月2.8%上昇")
        );
        assert_eq!(
            terms("W杯日本代表を発表"),
            terms("Japan names World Cup squad")
        );
        assert_eq!(terms("auで通信障害"), terms("KDDI 通信障害"));
        assert_eq!(terms("MS、脆弱性を修正"), terms("Microsoft fixes flaws"));
        assert_ne!(terms("ドコモで通信障害"), terms("auで通信障害"));
        // a name inside a longer word is not it
        assert!(terms("Austin's new gadget").is_empty());
        assert!(terms("msrc の更新").is_empty());
    }

    #[test]
    fn a_part_is_named_with_its_parent_but_not_as_a_second_term() {
        let found = find("aws 東京リージョンで障害", |a| {
            vec![fnv1a(a.as_bytes())]
        });
        assert_eq!(found.terms, vec![term("aws")]);
        assert_eq!(found.parents, vec![term("amazon")]);
    }

    #[test]
    fn two_central_banks_are_two_decisions() {
        let bank =
            |t: &str| find(&crate::analyze::prepare(t).to_lowercase(), |_| vec![]).central_banks;
        assert!(other_central_banks(
            bank("日銀、政策金利1%に"),
            bank("米FRB、政策金利を据え置き")
        ));
        assert!(!other_central_banks(
            bank("日銀が利上げ"),
            bank("BOJ hikes to 1%")
        ));
        // a title naming both contradicts neither
        assert!(!other_central_banks(
            bank("FRB据え置き、日銀は利上げ"),
            bank("日銀が利上げ")
        ));
        assert!(!other_central_banks(
            bank("日銀が利上げ"),
            bank("政策金利を1%に")
        ));
    }
}
