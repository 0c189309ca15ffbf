//! What kind of event a headline reports, where two kinds cannot be one event however many
//! names they share: a market's move (an index's close, the yen, yields) against the news it
//! moved on; a company's results against its product launch; a plan's postponement against
//! its outcome. The kinds are read from a few words of each language in the lower-cased
//! title; a title with words of both kinds of a pair is either, and contradicts neither.
//! Owns only that reading and which kinds exclude each other; the veto is [`super::score`]'s.

/// A market's move: an index's close, the yen's or the bond market's move, a stock's year
/// high. Each trading day's move is a story of its own, and not that of the news behind it.
pub const MARKET: u8 = 1;
/// A company's results or forecast.
pub const RESULTS: u8 = 2;
/// A product's launch or going on sale.
pub const LAUNCH: u8 = 4;
/// A plan put off or called off.
pub const POSTPONED: u8 = 8;
/// A plan's outcome: it succeeded or failed.
pub const OUTCOME: u8 = 16;
/// A service's outage or fault: not the news of the service's launch or availability.
pub const INCIDENT: u8 = 32;
/// A leak or rumour of what is still to come: not the announcement itself.
pub const RUMOUR: u8 = 64;

/// Words of each kind, matched in the lower-cased, NFKC-normalised title: Japanese anywhere,
/// Latin ones as whole words (inflected where listed with `*`; only as the title's first words,
/// its subject, where listed with `^`: "stocks rally" in a clause after the news is not a
/// market report).
const WORDS: &[(u8, &[&str])] = &[
    (
        MARKET,
        &[
            "日経平均",
            "topix",
            "株式市場",
            "東京株式",
            "大引け",
            "前引け",
            "終値",
            "株式見通し",
            "nyダウ",
            "ダウ平均",
            "ny株",
            "米株式",
            "ドル高",
            "ドル安",
            "ナスダック",
            "円相場",
            "ドル円",
            "対ドル",
            "円が上昇",
            "円が下落",
            "円が急伸",
            "円が急落",
            "日本株",
            "米国株",
            "米株",
            "株高",
            "株安",
            "続伸",
            "続落",
            "反落",
            "為替相場",
            "長期金利",
            "国債利回り",
            "年初来高値",
            "年初来安値",
            "ストップ高",
            "ストップ安",
            "^wall st",
            "^wall street",
            "^nasdaq",
            "^s&p 500",
            "^dow",
            "^nikkei",
            "^european shares",
            "^asian shares",
            "^global markets",
            "^stocks",
            "^treasury yields",
            "^bond yields",
            "^yen jump*",
            "^yen fall*",
            "^yen rise*",
            "^yen slide*",
            "^yen weaken*",
            "^yen strengthen*",
        ],
    ),
    (
        RESULTS,
        &[
            "決算",
            "増益",
            "減益",
            "増収",
            "減収",
            "純利益",
            "営業利益",
            "経常利益",
            "最終利益",
            "最高益",
            "増配",
            "減配",
            "業績",
            "上方修正",
            "下方修正",
            "earnings",
            "profit*",
            "revenue*",
            "quarterly results",
        ],
    ),
    (
        LAUNCH,
        &[
            "発売",
            "販売開始",
            "予約開始",
            "提供開始",
            "利用可能に",
            "一般提供",
            "launch*",
            "unveil*",
            "on sale",
            "now available",
            "generally available",
        ],
    ),
    (
        POSTPONED,
        &[
            "延期",
            "中止",
            "見送",
            "時刻",
            "postpone*",
            "scrub*",
            "called off",
            "schedule*",
        ],
    ),
    (
        OUTCOME,
        &[
            "成功",
            "失敗",
            "結果",
            "success",
            "successful",
            "successfully",
            "succeed*",
            "fail*",
        ],
    ),
    (
        INCIDENT,
        &[
            "障害",
            "つながりにくい",
            "接続できない",
            "outage*",
            "disruption*",
            "down for",
        ],
    ),
    (
        RUMOUR,
        &[
            "リーク",
            "噂",
            "うわさ",
            "leak*",
            "rumor*",
            "rumour*",
            "reportedly",
        ],
    ),
];

/// Which market a market's move is of: Tokyo's shares, New York's, Europe's or Asia's, the
/// currencies, the bonds. Two moves of different markets the same day are two stories (the
/// close in Tokyo, the yen, Wall Street overnight), however alike their reasons; a title with
/// words of two markets is either.
const MARKETS: &[&[&str]] = &[
    &[
        "日経平均",
        "topix",
        "東京株式",
        "東証",
        "日本株",
        "^nikkei",
        "^japan's nikkei",
        "^tokyo stocks",
    ],
    &[
        "nyダウ",
        "ダウ平均",
        "ny株",
        "米株式",
        "米国株",
        "米株",
        "ナスダック",
        "^wall st",
        "^wall street",
        "^nasdaq",
        "^s&p 500",
        "^dow",
        "^us stocks",
    ],
    &["^european shares", "^european stocks", "欧州株"],
    &["^asian shares", "^asian stocks", "アジア株"],
    &[
        "円相場",
        "ドル円",
        "対ドル",
        "円が上昇",
        "円が下落",
        "円が急伸",
        "円が急落",
        "円高",
        "円安",
        "ドル高",
        "ドル安",
        "^yen",
        "^dollar",
    ],
    &[
        "長期金利",
        "国債利回り",
        "国債先物",
        "^treasury yields",
        "^treasuries",
        "^bond yields",
    ],
];

/// The markets `lower` (a lower-cased, normalised title) names ([`MARKETS`]), one bit each.
pub fn markets(lower: &str) -> u8 {
    let mut out = 0;
    for (n, words) in MARKETS.iter().enumerate() {
        if words.iter().any(|w| has_word(lower, w)) {
            out |= 1 << n;
        }
    }
    out
}

/// Whether two market reports are of different markets (each names one, none in common).
pub fn other_markets(a: u8, b: u8) -> bool {
    a != 0 && b != 0 && a & b == 0
}

/// The kinds of event `lower` (a lower-cased, normalised title) reports, as a set of bits.
pub fn kinds(lower: &str) -> u8 {
    // 障害者 (disabled people) is no fault of a service
    let lower = &lower.replace("障害者", "");
    let mut out = 0;
    for (kind, words) in WORDS {
        if words.iter().any(|w| has_word(lower, w)) {
            out |= kind;
        }
    }
    out
}

/// Whether `text` has `word`: anywhere for a Japanese word, as a whole word for a Latin one
/// (with `*`: its stem followed by nothing or `s`, `d`, `ed`, `es`, `ing`; with `^`: at the
/// start).
fn has_word(text: &str, word: &str) -> bool {
    let (word, first) = match word.strip_prefix('^') {
        Some(w) => (w, true),
        None => (word, false),
    };
    let (stem, inflects) = match word.strip_suffix('*') {
        Some(s) => (s, true),
        None => (word, false),
    };
    if !stem.is_ascii() {
        return text.contains(stem);
    }
    text.match_indices(stem).any(|(i, _)| {
        if first && i > 0 {
            return false;
        }
        let before = text[..i].chars().next_back();
        let rest = &text[i + stem.len()..];
        let end = if inflects {
            ["ing", "es", "ed", "s", "d", ""]
                .iter()
                .find(|e| rest.starts_with(*e))
                .map_or(0, |e| e.len())
        } else {
            0
        };
        let after = rest[end..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric())
            && !after.is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

/// Whether two titles' kinds say they are different events: a market's move against what is
/// not one, a leak against what is not one, or one of a pair of exclusive kinds against the
/// other (neither having both).
pub fn exclusive(a: u8, b: u8) -> bool {
    if (a ^ b) & (MARKET | RUMOUR) != 0 {
        return true;
    }
    [(RESULTS, LAUNCH), (POSTPONED, OUTCOME), (INCIDENT, LAUNCH)]
        .iter()
        .any(|&(x, y)| {
            one_not_other(a, x, y) && one_not_other(b, y, x)
                || one_not_other(a, y, x) && one_not_other(b, x, y)
        })
}

/// `kinds` has `x` and not `y`.
fn one_not_other(kinds: u8, x: u8, y: u8) -> bool {
    kinds & x != 0 && kinds & y == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(title: &str) -> u8 {
        kinds(&crate::analyze::prepare(title).to_lowercase())
    }

    #[test]
    fn a_market_move_is_not_the_news_it_moved_on() {
        assert_eq!(k("日経平均、反落　終値は412円安の5万3120円"), MARKET);
        assert_eq!(k("Wall St ends higher after Fed holds rates"), MARKET);
        assert_eq!(k("Yen Jumps as BOJ Hikes to 1%"), MARKET);
        assert_eq!(k("円が上昇、対ドルで148円台－日銀の利上げで"), MARKET);
        assert_eq!(k("日本株は続伸、日銀の利上げ通過で銀行株高い"), MARKET);
        assert_eq!(
            k("Fed holds rates steady, still sees two cuts this year"),
            0
        );
        assert!(exclusive(
            k("NYダウ反発、318ドル高　FRBの利下げ見通し維持で"),
            k("米FRB、政策金利を据え置き")
        ));
        // the yen as a unit is not its move, nor is a rally the news is set against
        assert_eq!(
            k("Japan household financial assets hit record 2,315 trillion yen as stocks rally"),
            0
        );
    }

    #[test]
    fn results_and_launches_and_postponements_and_outcomes_exclude_each_other() {
        let launch = k("ハルカゼ住宅、平屋住宅「ひらりZERO」を4月1日に発売");
        let results = k("ハルカゼ住宅の前期、純利益18%増　今期は12円増配");
        assert_eq!((launch, results), (LAUNCH, RESULTS));
        assert!(exclusive(launch, results));
        assert!(exclusive(
            k("H3ロケット9号機、天候不良で打ち上げを18日に延期"),
            k("H3ロケット9号機 打ち上げ成功")
        ));
        // a title with both kinds contradicts neither
        assert!(!exclusive(
            k("Strong iPhone launch lifts Apple's quarterly revenue"),
            launch
        ));
        assert!(!exclusive(launch, k("ハルカゼ住宅、蓄電池標準の平屋住宅")));
    }

    #[test]
    fn an_outage_a_leak_and_a_notice_are_kinds_of_their_own() {
        assert!(exclusive(
            k("AWS東京リージョンで障害　EC2に接続できず"),
            k("AWS 東京リージョンで EC2 Z9 インスタンスが利用可能に")
        ));
        assert!(exclusive(
            k("Galaxy Z Fold 9 leaks in full ahead of Unpacked"),
            k("Samsung unveils Galaxy Z Fold 9")
        ));
        assert!(exclusive(
            k("H3ロケット11号機の打上げ時刻について"),
            k("H3ロケット11号機 打ち上げ成功")
        ));
        // 障害者 is no outage
        assert_eq!(k("障害者雇用の新制度を発表"), 0);
        // a fix of a fault is not an outage
        assert!(!exclusive(
            k("iOS 30.1 now available with CarPlay bug fix"),
            k("「iOS 30.1」配信開始　CarPlayの不具合を修正")
        ));
    }

    #[test]
    fn two_markets_are_two_moves() {
        let m = |t: &str| markets(&crate::analyze::prepare(t).to_lowercase());
        assert!(other_markets(
            m("米国株式市場＝下落、CPI上振れで"),
            m("円が対ドルで下落、CPI上振れで")
        ));
        assert!(!other_markets(
            m("NYダウ続落、CPI上振れで"),
            m("米国株式市場＝下落、CPI上振れで")
        ));
        // a title of two markets is either
        assert!(!other_markets(
            m("日経平均が続伸、円安も追い風"),
            m("円相場、1カ月ぶり円安水準")
        ));
        assert!(!other_markets(
            m("日経平均が続伸"),
            m("FRB、政策金利を据え置き")
        ));
    }

    #[test]
    fn latin_words_match_whole_and_inflected() {
        assert!(has_word("spacex postponed the flight", "postpone*"));
        assert!(!has_word("a profitless week", "profit*"));
        assert!(has_word("launches today", "launch*"));
        assert!(!has_word("prelaunch", "launch*"));
    }
}
