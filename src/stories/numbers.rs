//! The numbers of a headline, by what they measure: versions, amounts of money, percentages and
//! counts (with their counter: 人, 件, 号機, 回 …), in Japanese and English writing. Two reports of
//! one event agree on them; two events that share every name (a version's release and the next
//! version's beta, a rate decision and a survey of it, two days' market closes) do not, and that
//! disagreement vetoes a join ([`conflict`]). Owns only reading numbers out of normalised
//! (NFKC, lower-case) text; how they weigh in a similarity is [`super::score`]'s.

use crate::hash::fnv1a;
use crate::text::currency_before;

/// What a number measures. Numbers of different kinds never contradict each other.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Kind {
    /// A version or a model number: `1.86`, `v2.3`, `iOS 19`, `M4`, `GPT-5`.
    Version,
    /// An amount in a currency (the currency's hash).
    Money(u64),
    /// A percentage, a 割 or basis points (in hundredths of a percent).
    Percent,
    /// A count with its counter word's hash (9号機, 30回, 1000万回線, 12 people).
    Count(u64),
    /// A date or a time of day (月, 日, 時, 年): never a veto (reports give different ones).
    Date,
    /// An identifier: `JVN#58204417`, `#1234`.
    Id,
    /// A game's score, either side first: `2対1`, `1-2`.
    Score,
    /// An earthquake's magnitude (`M5.3`, `M 5.2`, `magnitude 5.3`, `マグニチュード5.3`): shared,
    /// it is evidence; never a veto (agencies estimate it differently, and revise it).
    Magnitude,
    /// A bare number.
    Plain,
}

/// One number of a text: its kind and its value (for versions a hash of the canonical form,
/// for the rest the value times 1,000, rounded).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Number {
    pub kind: Kind,
    pub value: u64,
}

impl Number {
    /// Kinds whose disagreement vetoes a join.
    pub fn decisive(self) -> bool {
        matches!(
            self.kind,
            Kind::Version
                | Kind::Money(_)
                | Kind::Percent
                | Kind::Count(_)
                | Kind::Id
                | Kind::Score
        )
    }

    /// A number specific enough that sharing it is evidence (not a small bare number or a
    /// date).
    pub fn telling(self) -> bool {
        match self.kind {
            Kind::Date => false,
            Kind::Plain => self.value >= 100_000 && !(1_990_000..=2_100_000).contains(&self.value),
            _ => true,
        }
    }

    /// A hash of kind and value, as a term of the similarity.
    pub fn term(self) -> u64 {
        let kind = match self.kind {
            Kind::Version => 1,
            Kind::Money(c) => 2 ^ c.rotate_left(7),
            Kind::Percent => 3,
            Kind::Count(c) => 4 ^ c.rotate_left(11),
            Kind::Date => 5,
            Kind::Plain => 6,
            Kind::Id => 7,
            Kind::Score => 8,
            Kind::Magnitude => 9,
        };
        fnv1a(&[kind.to_le_bytes(), self.value.to_le_bytes()].concat())
    }
}

/// Whether two texts' numbers contradict: one states a decisive number that the other has
/// numbers of its kind and size to agree with, and none of the first's numbers of that kind
/// agrees with them. Amounts of money and counts measure different things when they are ten
/// times apart or more (a share's price against a deal's value, 3 zero-days against 118
/// flaws), and a round figure
/// agrees with what rounds to it (`800円高` and `812円高`, `5割増` and `52%`).
pub fn conflict(a: &[Number], b: &[Number]) -> bool {
    one_way(a, b) || one_way(b, a)
}

fn one_way(a: &[Number], b: &[Number]) -> bool {
    a.iter().filter(|n| n.decisive()).any(|n| {
        let theirs: Vec<&Number> = b
            .iter()
            .filter(|m| m.kind == n.kind && comparable(n, m))
            .collect();
        !theirs.is_empty()
            && !a
                .iter()
                .filter(|m| m.kind == n.kind)
                .any(|m| theirs.iter().any(|t| agree(m, t)))
    })
}

/// An amount: money, a percentage, a count (values comparable by size).
fn quantity(kind: Kind) -> bool {
    matches!(kind, Kind::Money(_) | Kind::Percent | Kind::Count(_))
}

/// Whether two numbers of one kind may be one measure: amounts of money or counts less than
/// ten times apart, any two of another kind (a percentage is a title's one figure: 8割 of
/// economists against a rate of 1% is a survey against a decision).
fn comparable(a: &Number, b: &Number) -> bool {
    if !matches!(a.kind, Kind::Money(_) | Kind::Count(_)) {
        return true;
    }
    let (lo, hi) = (a.value.min(b.value), a.value.max(b.value));
    hi < lo.saturating_mul(10)
}

/// Whether two numbers of one kind state one value: equal, or (amounts) one a round figure
/// the other rounds to at its last digit, within a tenth of it.
pub fn agree(a: &Number, b: &Number) -> bool {
    if a == b {
        return true;
    }
    if !quantity(a.kind) || a.kind != b.kind || a.value == 0 || b.value == 0 {
        return false;
    }
    let (round, other) = if decimal_zeros(a.value) >= decimal_zeros(b.value) {
        (a.value, b.value)
    } else {
        (b.value, a.value)
    };
    // (saturating: a hostile title's amount may be any u64)
    let unit = 10u64.saturating_pow(decimal_zeros(round));
    let rounded = other.saturating_add(unit / 2) / unit * unit;
    rounded == round && round.abs_diff(other).saturating_mul(10) <= round
}

/// Trailing zeros of a number in decimal.
fn decimal_zeros(mut v: u64) -> u32 {
    let mut n = 0;
    while v != 0 && v.is_multiple_of(10) {
        v /= 10;
        n += 1;
    }
    n
}

const CURRENCY_AFTER: &[(&str, &str)] = &[
    ("円", "jpy"),
    ("ドル", "usd"),
    ("ユーロ", "eur"),
    ("ポンド", "gbp"),
    ("元", "cny"),
    ("ウォン", "krw"),
    ("yen", "jpy"),
    ("dollars", "usd"),
    ("euros", "eur"),
];
const MULTIPLIERS_JA: &[(char, f64)] = &[('兆', 1e12), ('億', 1e8), ('万', 1e4), ('千', 1e3)];
const MULTIPLIERS_EN: &[(&str, f64)] = &[
    ("trillion", 1e12),
    ("billion", 1e9),
    ("million", 1e6),
    ("bn", 1e9),
    ("tn", 1e12),
];
/// Multipliers read only after a currency sign (`$5m`, `$300k`).
const MULTIPLIERS_MONEY: &[(&str, f64)] = &[("m", 1e6), ("k", 1e3)];
const DATE_AFTER: &[&str] = &["年", "月", "日", "時", "分", "秒", "年度", "期"];
/// Counter words after a number (longest first where one begins another).
const COUNTERS: &[&str] = &[
    "号機",
    "回線",
    "か国",
    "カ国",
    "ヵ国",
    "人",
    "件",
    "社",
    "台",
    "回",
    "号",
    "行",
    "機",
    "校",
    "戸",
    "棟",
    "店",
    "基",
    "便",
    "本",
    "位",
    "勝",
    "敗",
    "点",
    "票",
    "議席",
    "倍",
    "度",
    "people",
    "deaths",
    "dead",
    "jobs",
    "users",
    "employees",
    "layoffs",
    "points",
    "seats",
];

/// The numbers of `text` (already NFKC-normalised and lower-cased), in order.
pub fn numbers(text: &str) -> Vec<Number> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let (raw, end) = digits(&chars, i);
        i = end;
        // glued to letters after (5g, 4k, 3d): a name, not a number
        let money = start > 0 && currency_before(chars[start - 1]).is_some();
        let unit = word_at(&chars, end, MULTIPLIERS_EN.iter().map(|m| m.0))
            || word_at(&chars, end, ["bp", "percent"].into_iter())
            || (money && word_at(&chars, end, MULTIPLIERS_MONEY.iter().map(|m| m.0)));
        if chars.get(end).is_some_and(|c| c.is_ascii_alphabetic()) && !unit {
            while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                i += 1;
            }
            continue;
        }
        let (number, next) = classify(&chars, start, end, &raw);
        i = next.max(i);
        out.extend(number);
    }
    out
}

/// The digits from `i` with their separators (`1,000`, `1.86.0`), and where they end.
fn digits(chars: &[char], mut i: usize) -> (String, usize) {
    let mut raw = String::new();
    while i < chars.len() {
        let c = chars[i];
        let next_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_ascii_digit() || ((c == '.' || c == ',') && next_digit && !raw.is_empty()) {
            raw.push(c);
            i += 1;
        } else {
            break;
        }
    }
    (raw, i)
}

/// Whether `words` has one that starts at `at` and ends at a non-letter.
fn word_at<'a>(chars: &[char], at: usize, mut words: impl Iterator<Item = &'a str>) -> bool {
    words.any(|w| {
        let n = w.chars().count();
        chars.len() >= at + n
            && chars[at..at + n].iter().copied().eq(w.chars())
            && !chars.get(at + n).is_some_and(|c| c.is_ascii_alphabetic())
    })
}

/// The text after `at` (skipping one space), for suffix tests.
fn after(chars: &[char], at: usize) -> (String, usize) {
    let skip = usize::from(chars.get(at) == Some(&' '));
    let s: String = chars[(at + skip).min(chars.len())..]
        .iter()
        .take(10)
        .collect();
    (s, at + skip)
}

/// The number at `chars[start..end]` (`raw`), by its neighbours; and where reading goes on.
fn classify(chars: &[char], start: usize, end: usize, raw: &str) -> (Option<Number>, usize) {
    let before = start.checked_sub(1).map(|p| chars[p]);
    let letter_before = before.is_some_and(|c| c.is_ascii_alphabetic());
    let hyphen_name = before == Some('-')
        && start >= 2
        && chars[start - 2].is_ascii_alphabetic()
        && raw.len() <= 3;
    let dots = raw.matches('.').count();
    let word_before = before == Some(' ') && start >= 2 && chars[start - 2].is_ascii_alphabetic();
    if dots == 1 && magnitude_before(chars, start) {
        let value: f64 = raw.parse().unwrap_or(0.0);
        let number = Number {
            kind: Kind::Magnitude,
            value: (value * 1000.0).round() as u64,
        };
        return (Some(number), end);
    }
    if letter_before || hyphen_name || dots >= 2 {
        return (Some(version(raw)), end);
    }
    let value: f64 = raw.replace(',', "").parse().unwrap_or(0.0);
    if let Some(score) = score(chars, start, end, raw) {
        return score;
    }
    // a seismic intensity: 震度5強, 震度6弱, 震度4
    if start >= 2 && chars[start - 2..start] == ['震', '度'] && dots == 0 {
        let (half, next) = match chars.get(end) {
            Some('強') => (700, end + 1),
            Some('弱') => (300, end + 1),
            _ => (0, end),
        };
        let number = Number {
            kind: Kind::Count(fnv1a("震度".as_bytes())),
            value: (value as u64) * 1000 + half,
        };
        return (Some(number), next);
    }
    let currency = before.and_then(currency_before);
    let mut at = end;
    // Japanese chains: 5万3120円, 1兆2000億円, 6億4000万ユーロ, 15万ドル (each part times its
    // own multiplier)
    let (mut total, mut part) = (0.0, value);
    while let Some(&(_, m)) = chars
        .get(at)
        .and_then(|c| MULTIPLIERS_JA.iter().find(|(k, _)| k == c))
    {
        at += 1;
        total += part * m;
        part = 0.0;
        let (more, e) = digits(chars, at);
        if !more.is_empty() {
            part = more.replace(',', "").parse::<f64>().unwrap_or(0.0);
            at = e;
        }
    }
    let mut value = total + part;
    let (rest, rest_at) = after(chars, at);
    let money_words = MULTIPLIERS_MONEY.iter().filter(|_| currency.is_some());
    for (word, m) in MULTIPLIERS_EN.iter().chain(money_words) {
        if rest.starts_with(word) && word_at(chars, rest_at, [*word].into_iter()) {
            value *= m;
            at = rest_at + word.chars().count();
            break;
        }
    }
    let (rest, rest_at) = after(chars, at);
    let scaled = (value * 1000.0).round() as u64;
    let make = |kind| {
        Some(Number {
            kind,
            value: scaled,
        })
    };
    if let Some(cur) = currency {
        return (make(Kind::Money(fnv1a(cur.as_bytes()))), at);
    }
    if let Some((word, cur)) = CURRENCY_AFTER.iter().find(|(w, _)| rest.starts_with(w)) {
        return (
            make(Kind::Money(fnv1a(cur.as_bytes()))),
            rest_at + word.chars().count(),
        );
    }
    if rest.starts_with('%') || rest.starts_with("パーセント") || rest.starts_with("percent") {
        return (make(Kind::Percent), rest_at + 1);
    }
    if rest.starts_with('割') {
        let value = (value * 10_000.0).round() as u64;
        return (
            Some(Number {
                kind: Kind::Percent,
                value,
            }),
            rest_at + 1,
        );
    }
    if rest.starts_with("bp") || rest.starts_with("basis point") {
        let value = (value * 10.0).round() as u64;
        return (
            Some(Number {
                kind: Kind::Percent,
                value,
            }),
            rest_at + 2,
        );
    }
    if DATE_AFTER.iter().any(|d| rest.starts_with(d)) {
        return (make(Kind::Date), rest_at + 1);
    }
    if let Some(counter) = COUNTERS.iter().find(|c| rest.starts_with(*c)) {
        let kind = Kind::Count(fnv1a(counter.as_bytes()));
        return (make(kind), rest_at + counter.chars().count());
    }
    // a number after a name: Java 26, iOS 26.4, Windows 11 (not a year: WWDC 2026)
    if dots <= 1 && word_before && value < 1000.0 {
        return (Some(version(raw)), end);
    }
    if before == Some('#') && raw.len() >= 4 {
        return (
            Some(Number {
                kind: Kind::Id,
                value: fnv1a(raw.as_bytes()),
            }),
            end,
        );
    }
    (make(Kind::Plain), at)
}

/// Whether a magnitude's sign is right before `start`: `m` (`m5.3`, `m 5.2`) as a word of its
/// own, `magnitude `, `マグニチュード`.
fn magnitude_before(chars: &[char], start: usize) -> bool {
    let before: String = chars[start.saturating_sub(10)..start].iter().collect();
    if before.ends_with("magnitude ") || before.ends_with("マグニチュード") {
        return true;
    }
    let m = before
        .strip_suffix("m ")
        .or_else(|| before.strip_suffix('m'));
    m.is_some_and(|rest| {
        !rest
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

/// A game's score at `chars[start..end]` (`raw`): two numbers of at most two digits joined by
/// `対` or `-` (not inside a date: `2026-03-17`, `1-3月期`), lower one last; and where
/// reading goes on.
fn score(chars: &[char], start: usize, end: usize, raw: &str) -> Option<(Option<Number>, usize)> {
    let joiner = *chars.get(end)?;
    if raw.len() > 2 || !raw.bytes().all(|b| b.is_ascii_digit()) || !matches!(joiner, '対' | '-') {
        return None;
    }
    let before = start.checked_sub(1).map(|p| chars[p]);
    if before.is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '/')) {
        return None;
    }
    let (other, next) = digits(chars, end + 1);
    let after = chars.get(next).copied();
    if other.is_empty()
        || other.len() > 2
        || !other.bytes().all(|b| b.is_ascii_digit())
        || after.is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '/'))
        || after.is_some_and(|c| DATE_AFTER.iter().any(|d| d.starts_with(c)))
    {
        return None;
    }
    let (a, b): (u64, u64) = (raw.parse().ok()?, other.parse().ok()?);
    let number = Number {
        kind: Kind::Score,
        value: a.max(b) * 1000 + a.min(b),
    };
    Some((Some(number), next))
}

/// A version number in its canonical form: trailing `.0` parts dropped (`6.0` is `6`).
fn version(raw: &str) -> Number {
    let mut parts: Vec<&str> = raw.split(['.', ',']).collect();
    while parts.len() > 1 && parts.last().is_some_and(|p| p.bytes().all(|b| b == b'0')) {
        parts.pop();
    }
    let canonical: Vec<String> = parts
        .iter()
        .map(|p| p.trim_start_matches('0').to_string())
        .map(|p| if p.is_empty() { "0".into() } else { p })
        .collect();
    Number {
        kind: Kind::Version,
        value: fnv1a(canonical.join(".").as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Kind> {
        numbers(text).into_iter().map(|n| n.kind).collect()
    }

    fn clash(a: &str, b: &str) -> bool {
        conflict(&numbers(a), &numbers(b))
    }

    #[test]
    fn versions_agree_whatever_their_trailing_zeros() {
        assert!(!clash("rust 1.86.0 is out", "rust 1.86 リリース"));
        assert!(!clash("typescript 6.0 released", "typescript 6 正式版"));
        assert!(clash("rust 1.86.0 is out", "rust 1.87.0 beta"));
        assert!(clash("apple m4 chip", "apple m5 chip"));
        assert_eq!(kinds("gpt-5 launches"), vec![Kind::Version]);
    }

    #[test]
    fn japanese_amounts_are_read_with_their_multipliers() {
        let n = numbers("ビットコインが初の15万ドル突破");
        let e = numbers("bitcoin tops $150,000 for first time");
        assert_eq!(n, e);
        let close = numbers("日経平均、反落 終値は412円安の5万3120円");
        assert_eq!(close.len(), 2);
        assert_eq!(close[1].value, 53_120_000);
        assert!(clash(
            "終値は412円安の5万3120円",
            "終値は230円高の5万3350円"
        ));
        assert_eq!(numbers("$1.2 billion deal")[0].value, 1_200_000_000_000);
        // a chain of parts, each times its own multiplier
        assert_eq!(
            numbers("6億4000万ユーロの制裁金"),
            numbers("制裁金6.4億ユーロ")
        );
        assert_eq!(numbers("€640 million fine"), numbers("制裁金6.4億ユーロ"));
        assert_eq!(numbers("1兆2000億円")[0].value, 1_200_000_000_000_000);
    }

    #[test]
    fn percentages_and_counts_are_their_own_kinds() {
        assert_eq!(
            numbers("8割が予想")[0],
            Number {
                kind: Kind::Percent,
                value: 80_000
            }
        );
        assert!(clash("エコノミストの8割が予想", "政策金利を1%に引き上げ"));
        assert!(!clash("raises rate to 1%", "政策金利を1％に"));
        assert!(clash("h3ロケット9号機", "h3ロケット8号機"));
        assert!(!clash("第30回 議事次第", "3月16日に開催"));
        // seismic intensities, with their 強 and 弱
        assert_eq!(numbers("茨城で震度5強"), numbers("茨城県で震度5強の地震"));
        assert!(clash("震度5強の地震", "震度6弱の地震"));
        assert!(clash("震度5強の地震", "震度5弱の地震"));
    }

    #[test]
    fn identifiers_and_numbered_names_disagree() {
        assert!(clash(
            "jvn#58204417: ルーターの脆弱性",
            "jvn#61937055: ルーターの脆弱性"
        ));
        assert!(clash("typescript 6.0正式リリース", "java 26正式リリース"));
        assert!(!clash("wwdc 2026 is june 8th", "wwdc26を6月8日に開催"));
    }

    #[test]
    fn a_game_is_its_score_either_side_first() {
        assert_eq!(kinds("scotland 1-2 japan: late winner"), vec![Kind::Score]);
        assert!(!clash(
            "scotland 1-2 japan",
            "日本代表 スコットランドに2対1で逆転勝ち"
        ));
        assert!(clash("wales 0-0 japan", "スコットランドに2対1で逆転勝ち"));
        // dates and ranges are not scores
        assert!(!kinds("2026-03-17 の障害").contains(&Kind::Score));
        assert!(!kinds("1-3月期のgdp").contains(&Kind::Score));
    }

    #[test]
    fn amounts_ten_times_apart_measure_different_things() {
        // a price per share and a deal's value, three zero-days and 118 flaws
        assert!(!clash("1株2400円でtob", "約680億円で買収へ"));
        assert!(!clash("ゼロデイ3件に対処", "脆弱性118件を修正"));
        // amounts of one size still disagree
        assert!(clash("終値は412円安", "終値は187円安"));
        assert!(clash("脆弱性71件を修正", "脆弱性118件を修正"));
    }

    #[test]
    fn a_round_figure_agrees_with_what_rounds_to_it() {
        assert!(!clash("800円高", "812円高"));
        assert!(!clash("純利益5割増", "52%増益"));
        assert!(!clash("3兆円余", "3.2兆円"));
        // not what rounds to another figure, nor two figures of one precision
        assert!(clash("800円高", "860円高"));
        assert!(clash("2.8%上昇", "2.9%上昇"));
        assert!(clash("震度5弱の地震", "震度6弱の地震"));
        // amounts at the edge of the type neither overflow nor agree
        let huge = Number {
            kind: Kind::Money(1),
            value: u64::MAX,
        };
        let round = Number {
            kind: Kind::Money(1),
            value: 10_000_000_000_000_000_000,
        };
        assert!(!agree(&huge, &round));
    }

    #[test]
    fn a_magnitude_is_evidence_never_a_veto() {
        assert_eq!(kinds("茨城県南部でm5.3の地震"), vec![Kind::Magnitude]);
        assert_eq!(
            numbers("m 5.3 - 9 km ssw of tsuchiura")[0],
            numbers("m5.3 quake")[0]
        );
        assert_eq!(
            numbers("magnitude 5.3 quake"),
            numbers("マグニチュード5.3の地震")
        );
        assert!(numbers("m5.3 quake")[0].telling());
        assert!(!clash("m 5.2 - 9 km ssw of tsuchiura", "m5.3の地震"));
        // a chip's model number is still a version
        assert!(clash("apple m4 chip", "apple m5 chip"));
    }

    #[test]
    fn dates_and_names_glued_to_numbers_never_veto() {
        assert_eq!(kinds("3月18日発売"), vec![Kind::Date, Kind::Date]);
        assert!(kinds("5g and 4k streaming").is_empty());
        assert!(!clash("3月18日", "3月19日"));
    }

    #[test]
    fn hostile_text_is_read_in_linear_time() {
        let long = "9,".repeat(50_000) + &"1.".repeat(50_000) + &"万".repeat(10_000);
        let t = std::time::Instant::now();
        let _ = numbers(&long);
        assert!(t.elapsed().as_secs() < 2);
    }
}
