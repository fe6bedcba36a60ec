//! Reading a JSON body into a [`Value`] with memory bounded by what the spec allows, not by the
//! body size: at most [`MAX_JSON_VALUES`] values and keys, a top-level array is refused as soon as
//! its element number [`MAX_BATCH_ITEMS`]` + 1` is seen (every batch of the spec carries at
//! most 100 items), and one item (a top-level array's element, or the whole body when it is
//! not an array) holds at most [`MAX_ITEM_TEXT_BYTES`] of strings and keys. A `Value` costs
//! about a hundred bytes per node, so without these bounds a 32 MiB body of `[{},{},...]` took
//! gigabytes before any rule looked at it; and the rows written for one item are copied a few
//! times on their way into SQLite, so one item the size of the body would cost several bodies.
//! The body itself is read in segments ([`BodyBytes`]) that parsing frees as it goes, so a
//! request never holds its whole body beside its whole parsed form.

use dispatch_core::model::customer::MAX_CUSTOMERS_PER_REQUEST;
use dispatch_core::model::order::MAX_ORDERS_PER_REQUEST;
use std::cell::Cell;
use std::fmt;
use std::io::BufReader;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

mod body;

pub use body::{read_body, BodyBytes, ReadBodyError};

/// Most values (objects, arrays, strings, numbers, booleans, nulls) and object keys in one body:
/// each is a node of the parsed tree (a key of an ordered map costs as much as a value).
pub const MAX_JSON_VALUES: usize = 100_000;
/// Most elements of a top-level array (a batch).
pub const MAX_BATCH_ITEMS: usize = if MAX_ORDERS_PER_REQUEST > MAX_CUSTOMERS_PER_REQUEST {
    MAX_ORDERS_PER_REQUEST
} else {
    MAX_CUSTOMERS_PER_REQUEST
};
/// Most bytes of strings and object keys in one item (UTF-8, as parsed). The largest item the
/// spec's field limits allow is a customer with 40000-character notes of 4-byte characters,
/// about 162 KB; orders have fewer stated limits, and 1 MiB leaves them room.
pub const MAX_ITEM_TEXT_BYTES: usize = 1024 * 1024;

/// The buffer between the body's segments and the parser (`serde_json` reads a byte at a
/// time, which is fast on a `BufReader`).
const READ_BUFFER: usize = 64 * 1024;

/// Why a body was not read.
#[derive(Debug)]
pub enum BoundedJsonError {
    /// More than [`MAX_JSON_VALUES`] values and keys.
    TooManyValues,
    /// A top-level array of more than [`MAX_BATCH_ITEMS`] elements.
    TooManyItems,
    /// An item with more than [`MAX_ITEM_TEXT_BYTES`] of text: the position of the item in
    /// the top-level array, `None` when the body is not an array.
    ItemTooLarge(Option<usize>),
    /// Not JSON (or trailing characters).
    Malformed(serde_json::Error),
}

/// Parses `body` as one JSON document within the bounds, freeing its segments as it reads them.
pub fn parse(body: BodyBytes) -> Result<Value, BoundedJsonError> {
    parse_observed(body, MAX_ITEM_TEXT_BYTES, &mut |_| {})
}

/// [`parse`] of a body that may be absent: `None` when it is empty or only whitespace. Every
/// byte of `body` is handed to `observe` once, in order, whatever the outcome (each segment as
/// parsing leaves it, the rest when parsing stops), so a caller can hash what was sent without
/// keeping it.
pub fn parse_optional(
    body: BodyBytes,
    observe: &mut dyn FnMut(&[u8]),
) -> Result<Option<Value>, BoundedJsonError> {
    parse_optional_within(body, MAX_ITEM_TEXT_BYTES, observe)
}

/// [`parse_optional`] with another bound on the text of one item: the bodies that carry
/// images as base64 strings (questionnaire submissions) allow text up to their body limit,
/// since their strings are the images; the bounds on values and batch items stay.
pub fn parse_optional_within(
    body: BodyBytes,
    item_text: usize,
    observe: &mut dyn FnMut(&[u8]),
) -> Result<Option<Value>, BoundedJsonError> {
    if body.is_blank() {
        body.observe_all(observe);
        return Ok(None);
    }
    parse_observed(body, item_text, observe).map(Some)
}

fn parse_observed(
    body: BodyBytes,
    item_text: usize,
    observe: &mut dyn FnMut(&[u8]),
) -> Result<Value, BoundedJsonError> {
    let budget = Budget {
        left: Cell::new(MAX_JSON_VALUES),
        item_text,
        text_left: Cell::new(item_text),
        exceeded: Cell::new(None),
    };
    let reader = BufReader::with_capacity(READ_BUFFER, body.drain(observe));
    let mut de = serde_json::Deserializer::from_reader(reader);
    let parsed = Node {
        budget: &budget,
        top: true,
    }
    .deserialize(&mut de)
    .and_then(|value| de.end().map(|()| value));
    parsed.map_err(|e| match budget.exceeded.get() {
        Some(limit) => limit.into(),
        None => BoundedJsonError::Malformed(e),
    })
}

#[derive(Clone, Copy)]
enum Limit {
    Values,
    Items,
    ItemText(Option<usize>),
}

struct Budget {
    left: Cell<usize>,
    /// The bound on the text of one item.
    item_text: usize,
    /// Text bytes the current item may still hold.
    text_left: Cell<usize>,
    exceeded: Cell<Option<Limit>>,
}

impl From<Limit> for BoundedJsonError {
    fn from(limit: Limit) -> Self {
        match limit {
            Limit::Values => BoundedJsonError::TooManyValues,
            Limit::Items => BoundedJsonError::TooManyItems,
            Limit::ItemText(index) => BoundedJsonError::ItemTooLarge(index),
        }
    }
}

impl Budget {
    fn fail<E: de::Error>(&self, limit: Limit) -> E {
        self.exceeded.set(Some(limit));
        E::custom("a JSON limit was exceeded")
    }

    fn take<E: de::Error>(&self) -> Result<(), E> {
        match self.left.get() {
            0 => Err(self.fail(Limit::Values)),
            n => {
                self.left.set(n - 1);
                Ok(())
            }
        }
    }

    /// Charges `bytes` of text to the current item.
    fn take_text<E: de::Error>(&self, bytes: usize) -> Result<(), E> {
        match self.text_left.get().checked_sub(bytes) {
            Some(left) => {
                self.text_left.set(left);
                Ok(())
            }
            None => Err(self.fail(Limit::ItemText(None))),
        }
    }
}

/// One value to read; `top` for the document itself.
struct Node<'b> {
    budget: &'b Budget,
    top: bool,
}

impl<'b> Node<'b> {
    fn child(&self) -> Node<'b> {
        Node {
            budget: self.budget,
            top: false,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        self.budget.take()?;
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.budget.take()?;
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.budget.take()?;
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.budget.take()?;
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.budget.take()?;
        self.budget.take_text(v.len())?;
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.budget.take()?;
        self.budget.take_text(v.len())?;
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.budget.take()?;
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.budget.take()?;
        let mut items = Vec::new();
        loop {
            if self.top && items.len() == MAX_BATCH_ITEMS {
                // Skipped without allocating: only whether there is one more matters.
                return match seq.next_element::<IgnoredAny>()? {
                    Some(_) => Err(self.budget.fail(Limit::Items)),
                    None => Ok(Value::Array(items)),
                };
            }
            if self.top {
                self.budget.text_left.set(self.budget.item_text);
            }
            match seq.next_element_seed(self.child()) {
                Ok(Some(item)) => items.push(item),
                Ok(None) => return Ok(Value::Array(items)),
                Err(e) => {
                    if let (true, Some(Limit::ItemText(None))) =
                        (self.top, self.budget.exceeded.get())
                    {
                        self.budget
                            .exceeded
                            .set(Some(Limit::ItemText(Some(items.len()))));
                    }
                    return Err(e);
                }
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.budget.take()?;
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            self.budget.take()?;
            self.budget.take_text(key.len())?;
            let value = map.next_value_seed(self.child())?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_within_the_bounds_read_as_serde_json_reads_them() {
        for text in [
            r#"{"a": [1, -2, 3.5, "x", null, true, {"b": {}}], "c": "\u00e9"}"#,
            "[]",
            "0",
            r#""s""#,
        ] {
            assert_eq!(
                parse(text.as_bytes().into()).unwrap(),
                serde_json::from_str::<Value>(text).unwrap()
            );
        }
    }

    #[test]
    fn a_top_level_array_stops_at_its_101st_element_and_nested_arrays_do_not() {
        let batch = |n: usize| format!("[{}]", vec!["{}"; n].join(","));
        assert!(parse(batch(100).as_bytes().into()).is_ok());
        assert!(matches!(
            parse(batch(101).as_bytes().into()),
            Err(BoundedJsonError::TooManyItems)
        ));
        let nested = format!("{{\"orders\": {}}}", batch(5000));
        assert!(parse(nested.as_bytes().into()).is_ok());
    }

    #[test]
    fn more_values_and_keys_than_the_budget_are_refused() {
        let many = format!("{{\"a\": [{}]}}", vec!["1"; MAX_JSON_VALUES].join(","));
        assert!(matches!(
            parse(many.as_bytes().into()),
            Err(BoundedJsonError::TooManyValues)
        ));
        // An object, its half as many keys and their values fill the budget.
        let keys = |n: usize| {
            let entries: Vec<String> = (0..n).map(|i| format!("\"k{i}\":0")).collect();
            format!("{{{}}}", entries.join(","))
        };
        assert!(parse(keys(MAX_JSON_VALUES / 2 - 1).as_bytes().into()).is_ok());
        assert!(matches!(
            parse(keys(MAX_JSON_VALUES / 2).as_bytes().into()),
            Err(BoundedJsonError::TooManyValues)
        ));
    }

    #[test]
    fn an_item_over_the_text_bound_is_refused_with_its_position() {
        // Just under half the bound: two fit in one item with their keys, three do not.
        let long = "é".repeat(MAX_ITEM_TEXT_BYTES / 4 - 8);
        let at_bound = format!(r#"[{{"a": "x"}}, {{"n": "{long}", "m": "{long}"}}]"#);
        assert!(parse(at_bound.as_bytes().into()).is_ok());
        let over = format!(r#"[{{"a": "x"}}, {{"n": "{long}", "m": "{long}", "o": "{long}"}}]"#);
        assert!(matches!(
            parse(over.as_bytes().into()),
            Err(BoundedJsonError::ItemTooLarge(Some(1)))
        ));
        let each_at_bound = format!(r#"[{{"n": "{long}{long}"}}, {{"n": "{long}{long}"}}]"#);
        assert!(
            parse(each_at_bound.as_bytes().into()).is_ok(),
            "the bound is per item"
        );
        let object = format!(r#"{{"n": "{long}{long}", "m": "{long}"}}"#);
        assert!(matches!(
            parse(object.as_bytes().into()),
            Err(BoundedJsonError::ItemTooLarge(None))
        ));
        let long_key = format!(r#"{{"{long}{long}{long}": 1}}"#);
        assert!(matches!(
            parse(long_key.as_bytes().into()),
            Err(BoundedJsonError::ItemTooLarge(None))
        ));
    }

    #[test]
    fn a_wider_item_text_bound_admits_long_strings_and_keeps_the_other_bounds() {
        let photo = format!(
            r#"{{"images": ["{}"]}}"#,
            "A".repeat(3 * MAX_ITEM_TEXT_BYTES)
        );
        let within = |text: &str, bound: usize| {
            parse_optional_within(text.as_bytes().into(), bound, &mut |_| {})
        };
        assert!(matches!(
            parse(photo.as_bytes().into()),
            Err(BoundedJsonError::ItemTooLarge(None))
        ));
        assert!(within(&photo, 4 * MAX_ITEM_TEXT_BYTES).is_ok());
        assert!(matches!(
            within(&photo, 2 * MAX_ITEM_TEXT_BYTES),
            Err(BoundedJsonError::ItemTooLarge(None))
        ));
        let many = format!("{{\"a\": [{}]}}", vec!["1"; MAX_JSON_VALUES].join(","));
        assert!(matches!(
            within(&many, usize::MAX),
            Err(BoundedJsonError::TooManyValues)
        ));
    }

    #[test]
    fn a_body_of_many_segments_parses_as_one_and_each_byte_is_observed_once_in_order() {
        let doc = serde_json::json!([{"n": "é".repeat(400_000)}, {"n": "x".repeat(900_000)}]);
        let text = serde_json::to_vec(&doc).unwrap();
        let mut seen = Vec::new();
        let parsed = parse_optional(text.as_slice().into(), &mut |s| seen.extend_from_slice(s));
        assert_eq!(parsed.unwrap(), Some(doc));
        assert_eq!(seen, text);
        for text in [&b"  \n "[..], b"[1, 2,", b"{} x"] {
            let mut seen = Vec::new();
            let parsed = parse_optional(text.into(), &mut |s| seen.extend_from_slice(s));
            assert!(matches!(
                parsed,
                Ok(None) | Err(BoundedJsonError::Malformed(_))
            ));
            assert_eq!(seen, text);
        }
    }

    #[test]
    fn malformed_documents_and_trailing_characters_are_malformed() {
        for text in ["", "{", "[1,]", "{} x", "nul"] {
            assert!(
                matches!(
                    parse(text.as_bytes().into()),
                    Err(BoundedJsonError::Malformed(_))
                ),
                "{text}"
            );
        }
    }
}
