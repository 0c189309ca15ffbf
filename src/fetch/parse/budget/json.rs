//! The parse budget of a JSON Feed: the same document with its top-level `items` cut to the entry
//! budget and every other array to [`JSON_ARRAY`] elements, written by one streaming serde_json
//! pass (what is cut is skipped with `IgnoredAny`, never held). Everything else is copied as it
//! was read (strings re-escaped, numbers as serde_json reads them), so feed-rs reads the kept
//! items exactly as before. feed-rs copies a feed's authors into every item without its own and
//! compares each author with every other one, so 300 k feed authors took minutes of CPU: capped,
//! they cost nothing. Nesting is serde_json's own limit (128), an error.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{Bounded, Budget, JSON_ARRAY, OverBudget};

pub(super) fn bound<'a>(text: &'a str, budget: &Budget) -> Result<Bounded<'a>, OverBudget> {
    let mut out = Vec::with_capacity(text.len().min(1 << 20));
    let mut stats = Stats::default();
    let mut de = serde_json::Deserializer::from_str(text);
    Value {
        out: &mut out,
        stats: &mut stats,
        cap: JSON_ARRAY,
        top: true,
        budget,
    }
    .deserialize(&mut de)
    .and_then(|_| de.end())
    .map_err(|e| OverBudget::Json(e.to_string()))?;
    let text = String::from_utf8(out).expect("serde_json writes UTF-8");
    Ok(Bounded {
        text: Cow::Owned(text),
        entries: stats.entries,
        nodes: 0,
        work: stats.work,
    })
}

#[derive(Default)]
struct Stats {
    entries: usize,
    work: usize,
}

/// One JSON value, copied to `out`; an array keeps its first `cap` elements.
struct Value<'o> {
    out: &'o mut Vec<u8>,
    stats: &'o mut Stats,
    cap: usize,
    /// The document itself (its `items` are the entries).
    top: bool,
    budget: &'o Budget,
}

/// What a value's copy returns: the elements it kept, for an array.
type Kept = usize;

impl<'de> DeserializeSeed<'de> for Value<'_> {
    type Value = Kept;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Kept, D::Error> {
        d.deserialize_any(self)
    }
}

fn write<E: serde::de::Error>(out: &mut Vec<u8>, v: &impl serde::Serialize) -> Result<Kept, E> {
    serde_json::to_writer(out, v).map_err(E::custom)?;
    Ok(0)
}

impl<'de> Visitor<'de> for Value<'_> {
    type Value = Kept;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Kept, E> {
        write(self.out, &v)
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Kept, E> {
        write(self.out, &v)
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Kept, E> {
        write(self.out, &v)
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Kept, E> {
        write(self.out, &v)
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Kept, E> {
        write(self.out, &v)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Kept, E> {
        self.out.extend_from_slice(b"null");
        Ok(0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kept, A::Error> {
        self.out.push(b'[');
        let mut kept = 0;
        while kept < self.cap {
            let mark = self.out.len();
            if kept > 0 {
                self.out.push(b',');
            }
            self.stats.work += 1;
            let element = Value {
                out: &mut *self.out,
                stats: &mut *self.stats,
                cap: JSON_ARRAY,
                top: false,
                budget: self.budget,
            };
            if seq.next_element_seed(element)?.is_none() {
                self.out.truncate(mark);
                break;
            }
            kept += 1;
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {
            self.stats.work += 1;
        }
        self.out.push(b']');
        Ok(kept)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kept, A::Error> {
        self.out.push(b'{');
        let mut first = true;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            self.stats.work += 1;
            if !first {
                self.out.push(b',');
            }
            first = false;
            write(self.out, &key)?;
            self.out.push(b':');
            let items = self.top && key == "items";
            let kept = map.next_value_seed(Value {
                out: &mut *self.out,
                stats: &mut *self.stats,
                cap: if items {
                    self.budget.entries
                } else {
                    JSON_ARRAY
                },
                top: false,
                budget: self.budget,
            })?;
            if items {
                self.stats.entries = kept;
            }
        }
        self.out.push(b'}');
        Ok(0)
    }
}
