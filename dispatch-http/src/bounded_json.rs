//! Reading a JSON body into a [`Value`] with memory bounded by what the spec allows, not by the
//! body size: at most [`MAX_JSON_VALUES`] values, a top-level array is refused as soon as
//! its element number [`MAX_BATCH_ITEMS`]` + 1` is seen (every batch of the spec carries at
//! most 100 items), and one item (a top-level array's element, or the whole body when it is
//! not an array) holds at most [`MAX_ITEM_TEXT_BYTES`] of strings and keys. A `Value` costs
//! about a hundred bytes per node, so without these bounds a 32 MiB body of `[{},{},...]` took
//! gigabytes before any rule looked at it; and the rows written for one item are copied a few
//! times on their way into SQLite, so one item the size of the body would cost several bodies.

use dispatch_core::model::customer::MAX_CUSTOMERS_PER_REQUEST;
use dispatch_core::model::order::MAX_ORDERS_PER_REQUEST;
use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Most values (objects, arrays, strings, numbers, booleans, nulls) in one body.
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

/// Reads a whole body of at most `limit` bytes into one buffer, filled in place as chunks
/// arrive (sized by `Content-Length` when sent): collecting the chunks first and joining them
/// afterwards held the body twice. A body that arrives whole in one chunk (as the idempotency
/// layer hands on the body it has read) is returned as it is, not copied.
pub async fn read_body(
    headers: &axum::http::HeaderMap,
    mut body: axum::body::Body,
    limit: usize,
) -> Result<axum::body::Bytes, ReadBodyError> {
    use http_body_util::BodyExt;

    let declared = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(ReadBodyError::TooLarge);
    }
    let mut buffer = Vec::with_capacity(declared.unwrap_or(0));
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(ReadBodyError::Unreadable)?;
        if let Ok(data) = frame.into_data() {
            if buffer.len() + data.len() > limit {
                return Err(ReadBodyError::TooLarge);
            }
            if buffer.is_empty() && declared == Some(data.len()) {
                return Ok(data);
            }
            buffer.extend_from_slice(&data);
        }
    }
    Ok(buffer.into())
}

/// Why a body could not be read.
#[derive(Debug)]
pub enum ReadBodyError {
    /// Longer than the limit.
    TooLarge,
    /// The connection failed while reading it.
    Unreadable(axum::Error),
}

/// Why a body was not read.
#[derive(Debug)]
pub enum BoundedJsonError {
    /// More than [`MAX_JSON_VALUES`] values.
    TooManyValues,
    /// A top-level array of more than [`MAX_BATCH_ITEMS`] elements.
    TooManyItems,
    /// An item with more than [`MAX_ITEM_TEXT_BYTES`] of text: the position of the item in
    /// the top-level array, `None` when the body is not an array.
    ItemTooLarge(Option<usize>),
    /// Not JSON (or trailing characters).
    Malformed(serde_json::Error),
}

/// Parses `bytes` as one JSON document within the bounds.
pub fn parse(bytes: &[u8]) -> Result<Value, BoundedJsonError> {
    parse_with_item_text(bytes, MAX_ITEM_TEXT_BYTES)
}

/// [`parse`] with another bound on the text of one item: the bodies that carry images as
/// base64 strings (questionnaire submissions) allow text up to their body limit, since their
/// strings are the images; the bounds on values and batch items stay.
pub fn parse_with_item_text(bytes: &[u8], item_text: usize) -> Result<Value, BoundedJsonError> {
    let budget = Budget {
        left: Cell::new(MAX_JSON_VALUES),
        item_text,
        text_left: Cell::new(item_text),
        exceeded: Cell::new(None),
    };
    let mut de = serde_json::Deserializer::from_slice(bytes);
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
                parse(text.as_bytes()).unwrap(),
                serde_json::from_str::<Value>(text).unwrap()
            );
        }
    }

    #[test]
    fn a_top_level_array_stops_at_its_101st_element_and_nested_arrays_do_not() {
        let batch = |n: usize| format!("[{}]", vec!["{}"; n].join(","));
        assert!(parse(batch(100).as_bytes()).is_ok());
        assert!(matches!(
            parse(batch(101).as_bytes()),
            Err(BoundedJsonError::TooManyItems)
        ));
        let nested = format!("{{\"orders\": {}}}", batch(5000));
        assert!(parse(nested.as_bytes()).is_ok());
    }

    #[test]
    fn more_values_than_the_budget_are_refused() {
        let many = format!("{{\"a\": [{}]}}", vec!["1"; MAX_JSON_VALUES].join(","));
        assert!(matches!(
            parse(many.as_bytes()),
            Err(BoundedJsonError::TooManyValues)
        ));
    }

    #[test]
    fn an_item_over_the_text_bound_is_refused_with_its_position() {
        // Just under half the bound: two fit in one item with their keys, three do not.
        let long = "é".repeat(MAX_ITEM_TEXT_BYTES / 4 - 8);
        let at_bound = format!(r#"[{{"a": "x"}}, {{"n": "{long}", "m": "{long}"}}]"#);
        assert!(parse(at_bound.as_bytes()).is_ok());
        let over = format!(r#"[{{"a": "x"}}, {{"n": "{long}", "m": "{long}", "o": "{long}"}}]"#);
        assert!(matches!(
            parse(over.as_bytes()),
            Err(BoundedJsonError::ItemTooLarge(Some(1)))
        ));
        let each_at_bound = format!(r#"[{{"n": "{long}{long}"}}, {{"n": "{long}{long}"}}]"#);
        assert!(
            parse(each_at_bound.as_bytes()).is_ok(),
            "the bound is per item"
        );
        let object = format!(r#"{{"n": "{long}{long}", "m": "{long}"}}"#);
        assert!(matches!(
            parse(object.as_bytes()),
            Err(BoundedJsonError::ItemTooLarge(None))
        ));
        let long_key = format!(r#"{{"{long}{long}{long}": 1}}"#);
        assert!(matches!(
            parse(long_key.as_bytes()),
            Err(BoundedJsonError::ItemTooLarge(None))
        ));
    }

    #[test]
    fn a_wider_item_text_bound_admits_long_strings_and_keeps_the_other_bounds() {
        let photo = format!(
            r#"{{"images": ["{}"]}}"#,
            "A".repeat(3 * MAX_ITEM_TEXT_BYTES)
        );
        assert!(matches!(
            parse(photo.as_bytes()),
            Err(BoundedJsonError::ItemTooLarge(None))
        ));
        assert!(parse_with_item_text(photo.as_bytes(), 4 * MAX_ITEM_TEXT_BYTES).is_ok());
        assert!(matches!(
            parse_with_item_text(photo.as_bytes(), 2 * MAX_ITEM_TEXT_BYTES),
            Err(BoundedJsonError::ItemTooLarge(None))
        ));
        let many = format!("{{\"a\": [{}]}}", vec!["1"; MAX_JSON_VALUES].join(","));
        assert!(matches!(
            parse_with_item_text(many.as_bytes(), usize::MAX),
            Err(BoundedJsonError::TooManyValues)
        ));
    }

    #[test]
    fn malformed_documents_and_trailing_characters_are_malformed() {
        for text in ["", "{", "[1,]", "{} x", "nul"] {
            assert!(
                matches!(parse(text.as_bytes()), Err(BoundedJsonError::Malformed(_))),
                "{text}"
            );
        }
    }
}
