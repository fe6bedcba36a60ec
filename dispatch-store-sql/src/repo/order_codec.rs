//! JSON encoding of the small value sets stored inside customer, order and line-item rows.

use std::borrow::Cow;

use dispatch_core::model::customer::CustomerTimeWindow;
use dispatch_core::model::order::{Endpoint, OrderTimeWindow, Side};
use dispatch_core::model::order_fields::{CapacityAmount, CustomFieldValue};
use dispatch_core::ports::store::StoreError;
use dispatch_core::time::{TimeOfDay, Weekday};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

fn corrupt(what: &str) -> StoreError {
    StoreError::Backend(format!("corrupt stored {what}"))
}

fn parse(text: &str, what: &str) -> Result<Vec<Value>, StoreError> {
    // Most stored lists are empty, as the encoders below write them.
    if text == "[]" {
        return Ok(Vec::new());
    }
    match serde_json::from_str(text) {
        Ok(Value::Array(items)) => Ok(items),
        _ => Err(corrupt(what)),
    }
}

fn time(v: &Value) -> Option<TimeOfDay> {
    v.as_u64().and_then(|m| TimeOfDay::from_minutes(m as u32))
}

fn capacity(v: &Value) -> Option<CapacityAmount> {
    Some(CapacityAmount {
        capacity_type_id: v.get("id")?.as_i64()?,
        amount: v.get("capacity")?.as_f64()?,
    })
}

fn custom_field(v: &Value) -> Option<CustomFieldValue> {
    Some(CustomFieldValue {
        field_id: v.get("id")?.as_i64()?,
        value: v.get("value")?.as_str()?.to_owned(),
    })
}

fn order_window(v: &Value) -> Option<OrderTimeWindow> {
    Some(OrderTimeWindow {
        side: Side::parse(v.get("type")?.as_str()?)?,
        from: time(v.get("from")?)?,
        to: time(v.get("to")?)?,
    })
}

/// Encodes with serde straight from borrowed fields: no `Value` tree, one string.
fn text(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("plain data always encodes")
}

#[derive(Serialize)]
struct CapacityText {
    id: i64,
    capacity: f64,
}

/// Capacities as `[{"id", "capacity"}]`.
pub fn capacities(items: &[CapacityAmount]) -> String {
    if items.is_empty() {
        return "[]".to_owned();
    }
    let items: Vec<CapacityText> = items
        .iter()
        .map(|c| CapacityText {
            id: c.capacity_type_id,
            capacity: c.amount,
        })
        .collect();
    text(&items)
}

/// Reads [`capacities`].
pub fn read_capacities(text: &str) -> Result<Vec<CapacityAmount>, StoreError> {
    parse(text, "capacities")?
        .iter()
        .map(|v| capacity(v).ok_or_else(|| corrupt("capacities")))
        .collect()
}

/// Names (skills, tags, e-mails) as a JSON array of strings.
pub fn names(items: &[String]) -> String {
    if items.is_empty() {
        return "[]".to_owned();
    }
    text(&items)
}

/// Reads [`names`].
pub fn read_names(text: &str) -> Result<Vec<String>, StoreError> {
    parse(text, "names")?
        .iter()
        .map(|v| {
            v.as_str()
                .map(str::to_owned)
                .ok_or_else(|| corrupt("names"))
        })
        .collect()
}

#[derive(Serialize)]
struct CustomFieldText<'a> {
    id: i64,
    value: &'a str,
}

/// Custom-field values as `[{"id", "value"}]`.
pub fn custom_fields(items: &[CustomFieldValue]) -> String {
    if items.is_empty() {
        return "[]".to_owned();
    }
    let items: Vec<CustomFieldText<'_>> = items
        .iter()
        .map(|c| CustomFieldText {
            id: c.field_id,
            value: &c.value,
        })
        .collect();
    text(&items)
}

/// Reads [`custom_fields`].
pub fn read_custom_fields(text: &str) -> Result<Vec<CustomFieldValue>, StoreError> {
    parse(text, "custom fields")?
        .iter()
        .map(|v| custom_field(v).ok_or_else(|| corrupt("custom fields")))
        .collect()
}

/// Customer time windows as `[{"from": minutes, "to": minutes|null}]`.
pub fn customer_windows(items: &[CustomerTimeWindow]) -> String {
    Value::from(
        items
            .iter()
            .map(|w| json!({"from": w.from.minutes(), "to": w.to.map(TimeOfDay::minutes)}))
            .collect::<Vec<_>>(),
    )
    .to_string()
}

/// Reads [`customer_windows`].
pub fn read_customer_windows(text: &str) -> Result<Vec<CustomerTimeWindow>, StoreError> {
    parse(text, "time windows")?
        .iter()
        .map(|v| {
            let from = v
                .get("from")
                .and_then(time)
                .ok_or_else(|| corrupt("time windows"))?;
            Ok(CustomerTimeWindow {
                from,
                to: v.get("to").and_then(time),
            })
        })
        .collect()
}

#[derive(Serialize)]
struct OrderWindowText {
    #[serde(rename = "type")]
    side: &'static str,
    from: u32,
    to: u32,
}

/// Order time windows as `[{"type", "from", "to"}]` (minutes).
pub fn order_windows(items: &[OrderTimeWindow]) -> String {
    if items.is_empty() {
        return "[]".to_owned();
    }
    let items: Vec<OrderWindowText> = items
        .iter()
        .map(|w| OrderWindowText {
            side: w.side.as_str(),
            from: w.from.minutes(),
            to: w.to.minutes(),
        })
        .collect();
    text(&items)
}

/// Reads [`order_windows`].
pub fn read_order_windows(text: &str) -> Result<Vec<OrderTimeWindow>, StoreError> {
    parse(text, "time windows")?
        .iter()
        .map(|v| order_window(v).ok_or_else(|| corrupt("time windows")))
        .collect()
}

/// One order end as a JSON object: `contact_name`, `contact_number`, `contact_email`,
/// `address`, `country_code`, `postcode`, `lat`, `lng`, `duration`, `notes` (each a value or
/// null) and `available_days` (day names). The keys are written as fixed text and serde_json
/// writes only the values (its escaping and number format): the text a derived struct of these
/// fields serialises to, without the work per key and the list of day names that cost, twice
/// per order written.
pub fn endpoint(e: &Endpoint) -> String {
    fn put(out: &mut Vec<u8>, key: &str, value: &impl Serialize) {
        out.push(if out.is_empty() { b'{' } else { b',' });
        out.push(b'"');
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\":");
        serde_json::to_writer(&mut *out, value).expect("plain data always encodes");
    }
    let mut out = Vec::with_capacity(256);
    put(&mut out, "contact_name", &e.contact_name);
    put(&mut out, "contact_number", &e.contact_number);
    put(&mut out, "contact_email", &e.contact_email);
    put(&mut out, "address", &e.address);
    put(&mut out, "country_code", &e.country_code);
    put(&mut out, "postcode", &e.postcode);
    put(&mut out, "lat", &e.lat);
    put(&mut out, "lng", &e.lng);
    put(&mut out, "duration", &e.duration);
    put(&mut out, "notes", &e.notes);
    out.extend_from_slice(b",\"available_days\":[");
    for (i, day) in e.available_days.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        // Day names are upper-case ASCII letters: nothing to escape.
        out.push(b'"');
        out.extend_from_slice(day.as_str().as_bytes());
        out.push(b'"');
    }
    out.extend_from_slice(b"]}");
    String::from_utf8(out).expect("JSON text is UTF-8")
}

/// An [`endpoint`]'s text as read back: strings borrowed from the stored text where it holds no
/// escapes.
#[derive(Deserialize)]
struct EndpointRead<'a> {
    #[serde(borrow)]
    contact_name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    contact_number: Option<Cow<'a, str>>,
    #[serde(borrow)]
    contact_email: Option<Cow<'a, str>>,
    #[serde(borrow)]
    address: Option<Cow<'a, str>>,
    #[serde(borrow)]
    country_code: Option<Cow<'a, str>>,
    #[serde(borrow)]
    postcode: Option<Cow<'a, str>>,
    lat: Option<f64>,
    lng: Option<f64>,
    duration: Option<f64>,
    #[serde(borrow)]
    notes: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    available_days: Vec<Cow<'a, str>>,
}

/// Reads [`endpoint`]: straight into its fields (no JSON value tree, whose maps are the
/// allocations of a stored order's read), or, for text of another shape than the encoder
/// writes, property by property as far as each property is of the expected type.
pub fn read_endpoint(text: &str) -> Result<Endpoint, StoreError> {
    let Ok(e) = serde_json::from_str::<EndpointRead<'_>>(text) else {
        return read_endpoint_values(text);
    };
    let s = |v: Option<Cow<'_, str>>| v.map(Cow::into_owned);
    Ok(Endpoint {
        contact_name: s(e.contact_name),
        contact_number: s(e.contact_number),
        contact_email: s(e.contact_email),
        address: s(e.address),
        country_code: s(e.country_code),
        postcode: s(e.postcode),
        lat: e.lat,
        lng: e.lng,
        duration: e.duration,
        notes: s(e.notes),
        available_days: e
            .available_days
            .iter()
            .filter_map(|d| Weekday::parse(d))
            .collect(),
    })
}

/// [`read_endpoint`] through a JSON value, tolerant of any property's type.
fn read_endpoint_values(text: &str) -> Result<Endpoint, StoreError> {
    let v: Map<String, Value> = serde_json::from_str(text).map_err(|_| corrupt("order end"))?;
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let n = |k: &str| v.get(k).and_then(Value::as_f64);
    let days = v
        .get("available_days")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|d| d.as_str().and_then(Weekday::parse))
                .collect()
        })
        .unwrap_or_default();
    Ok(Endpoint {
        contact_name: s("contact_name"),
        contact_number: s("contact_number"),
        contact_email: s("contact_email"),
        address: s("address"),
        country_code: s("country_code"),
        postcode: s("postcode"),
        lat: n("lat"),
        lng: n("lng"),
        duration: n("duration"),
        notes: s("notes"),
        available_days: days,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_order_end_reads_back_as_written_escapes_and_days_included() {
        let end = Endpoint {
            contact_name: Some("Ann \"A\" O'Neil\n".into()),
            address: Some("1 High St".into()),
            lat: Some(51.5),
            lng: Some(-0.125),
            duration: Some(5.0),
            available_days: vec![Weekday::Monday, Weekday::Friday],
            ..Endpoint::default()
        };
        assert_eq!(read_endpoint(&endpoint(&end)).unwrap(), end);
        assert_eq!(
            read_endpoint(&endpoint(&Endpoint::default())).unwrap(),
            Endpoint::default()
        );
    }

    /// The order end as a derived struct serialises it: what [`endpoint`] writes by hand.
    #[derive(Serialize)]
    struct Derived<'a> {
        contact_name: Option<&'a str>,
        contact_number: Option<&'a str>,
        contact_email: Option<&'a str>,
        address: Option<&'a str>,
        country_code: Option<&'a str>,
        postcode: Option<&'a str>,
        lat: Option<f64>,
        lng: Option<f64>,
        duration: Option<f64>,
        notes: Option<&'a str>,
        available_days: Vec<&'static str>,
    }

    #[test]
    fn an_order_end_is_written_as_its_derived_struct_would_be() {
        let full = Endpoint {
            contact_name: Some("Ann \"A\" O'Neil\n\u{1}".into()),
            contact_number: Some("+44 20 7946 0000".into()),
            contact_email: Some("ann@example.com".into()),
            address: Some("1 High St, Zürich \\ 東京".into()),
            country_code: Some("GB".into()),
            postcode: Some("AB1 2CD".into()),
            lat: Some(51.5),
            lng: Some(-0.125),
            duration: Some(5.0),
            notes: Some("ring twice\t</script>".into()),
            available_days: vec![Weekday::Monday, Weekday::Friday, Weekday::Sunday],
        };
        let odd_numbers = Endpoint {
            lat: Some(1e21),
            lng: Some(-0.0),
            duration: Some(f64::NAN),
            ..Endpoint::default()
        };
        for end in [full, Endpoint::default(), odd_numbers] {
            let derived = serde_json::to_string(&Derived {
                contact_name: end.contact_name.as_deref(),
                contact_number: end.contact_number.as_deref(),
                contact_email: end.contact_email.as_deref(),
                address: end.address.as_deref(),
                country_code: end.country_code.as_deref(),
                postcode: end.postcode.as_deref(),
                lat: end.lat,
                lng: end.lng,
                duration: end.duration,
                notes: end.notes.as_deref(),
                available_days: end.available_days.iter().map(|d| d.as_str()).collect(),
            })
            .unwrap();
            assert_eq!(endpoint(&end), derived);
        }
    }

    #[test]
    fn an_order_end_of_another_shape_is_read_property_by_property() {
        let text = r#"{"address": "1 High St", "lat": "51.5", "postcode": 7,
                       "available_days": ["MONDAY", 3, "NODAY"], "extra": true}"#;
        let end = read_endpoint(text).unwrap();
        assert_eq!(end.address.as_deref(), Some("1 High St"));
        assert_eq!((end.lat, end.postcode), (None, None));
        assert_eq!(end.available_days, vec![Weekday::Monday]);
        assert!(read_endpoint("[]").is_err());
    }

    #[test]
    fn empty_lists_read_as_empty_and_others_in_full() {
        assert_eq!(read_names("[]").unwrap(), Vec::<String>::new());
        assert_eq!(read_names(r#"["a","b"]"#).unwrap(), ["a", "b"]);
        assert!(read_names("{}").is_err());
    }
}
