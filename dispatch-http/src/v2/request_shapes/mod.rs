//! The request bodies as the document describes them. The handlers read bodies property by
//! property (`wire::Reader`, so a type error is reported at its path and absent, null and a
//! value stay apart), not by deserialising these types (`POST /orders` first tries a typed form
//! of its own, `v2::order_batch`, which takes only bodies the reader accepts without an issue);
//! what keeps the two together:
//! - where an endpoint refuses unknown properties, the accepted names are read from these
//!   schemas ([`refuse_undocumented`]), so nothing undocumented can be accepted there, and the
//!   schema is documented closed (`additionalProperties: false`, [`CLOSED`]);
//! - `tests/api/request_bodies.rs` walks every documented body on the real router: each
//!   documented property must be read with its documented type, required ones reported when
//!   left out, and unknown ones refused exactly where the schema is closed.
//!
//! Every name ends in `Body`. Properties marked read-only are fields of a read a client may
//! send back unchanged: accepted and ignored.
#![allow(dead_code)]

mod closed;
mod orders;
mod other;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use serde_json::{Map, Value};
use utoipa::openapi::schema::{AllOfBuilder, Object, Schema};
use utoipa::openapi::{Ref, RefOr};
use utoipa::ToSchema;

pub(crate) use closed::{close_bodies, close_objects};
pub use orders::*;
pub use other::*;

/// The bodies whose endpoints refuse properties they do not document (400 INVALID_INPUT,
/// `unrecognized_keys` at the property's path).
pub const CLOSED: &[&str] = &[
    "CustomerCreateBody",
    "CustomerUpdateBody",
    // A misspelt `active` or `shift_end` must not answer 200 having changed nothing.
    "VehicleBody",
    "VehicleCreateBody",
    "OrderWriteBody",
    "DepotOrderBody",
    "OptimiseOrdersBody",
    "OptimiseIdsBody",
    "IdRefBody",
    "OrderRefBody",
    "RouteLockBody",
    "CredentialBody",
    // Nested settings and the booking bodies: a misspelt `settings.autodispatch` or booking
    // `vehicle` must not answer 200 having done something else than asked.
    "OptimiseSettingsBody",
    "IdItemBody",
    "EditSettingsBody",
    "RouteEditBody",
    "AvailabilityBody",
    "AvailableDatesBody",
    "AvailableSlotsBody",
    "BookingOrderBody",
    "BookingCapacityBody",
    "BookingVehicleBody",
    "ZoneLookupBody",
    "LocationBody",
    "OrderStatusBody",
    // A misspelt `lat` must not answer 200 with the depot still unplannable.
    "DepotBody",
    // A misspelt `send_time_utc` must not send at once.
    "ScheduleBody",
    // The entries and objects inside those bodies: a misspelt `form` in a time window or
    // `unit` in a capacity must not be dropped in silence.
    "OrderCreateBody",
    "OrderCustomerBody",
    "LineItemBody",
    "TypedTimeWindowBody",
    "OrderExchangeBody",
    "VehicleAssignmentBody",
    "EmailBody",
    "CapacityBody",
    "NamedCapacityBody",
    "CustomFieldBody",
    "TimeWindowBody",
    "IdBody",
    "CustomerFieldsBody",
    "CustomerTimeWindowBody",
    // The driver API refuses every property it does not document (`driver::bodies`).
    "ReportedBody",
    "PositionsBody",
    "PositionBody",
    "CompleteStopBody",
    "LineItemOutcomeBody",
    "FailStopBody",
    "NotesBody",
    "PhoneCallBody",
    "SubmissionBody",
    "AnswerBody",
];

/// The schemas of the request body `T` as the served document has them: `T`'s own and every
/// schema it names, closed by the document's rules ([`close_objects`], [`close_bodies`]).
/// Read from the body types themselves (the document is built from the same schemas), made
/// once per body type and kept for the process's life.
fn body_schemas<T: ToSchema>() -> &'static Value {
    static KNOWN: Mutex<BTreeMap<String, &'static Value>> = Mutex::new(BTreeMap::new());
    let name = T::name();
    let mut known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(schemas) = known.get(name.as_ref()) {
        return schemas;
    }
    let mut named = vec![(name.to_string(), T::schema())];
    T::schemas(&mut named);
    let mut schemas: Map<String, Value> = named
        .into_iter()
        .map(|(name, schema)| {
            let schema = serde_json::to_value(schema).expect("a schema serialises");
            (name, schema)
        })
        .collect();
    close_bodies(&mut schemas);
    let mut schemas = Value::Object(schemas);
    close_objects(&mut schemas);
    let schemas: &'static Value = Box::leak(Box::new(schemas));
    known.insert(name.into_owned(), schemas);
    schemas
}

/// The documented property names of the request body schema `T` (with those of every `allOf`
/// part).
pub fn documented_properties<T: ToSchema>() -> Vec<&'static str> {
    let schemas = body_schemas::<T>();
    let mut out = Vec::new();
    let mut pending = vec![&schemas[T::name().as_ref()]];
    while let Some(schema) = pending.pop() {
        if let Some(name) = schema["$ref"].as_str() {
            pending.push(&schemas[name.trim_start_matches("#/components/schemas/")]);
        }
        if let Some(parts) = schema["allOf"].as_array() {
            pending.extend(parts);
        }
        if let Some(properties) = schema["properties"].as_object() {
            out.extend(properties.keys().map(String::as_str));
        }
    }
    assert!(!out.is_empty(), "{} documents no property", T::name());
    out
}

/// Reports, at its path under `prefix`, every property of `obj` the schema `T` does not
/// document, and below it every property of a nested object (an entry of `time_windows`,
/// `capacities`, `line_items`, a `customer`, ...) its documented schema does not name: the
/// served document says every object with properties is closed, so the service refuses what
/// the document refuses, at any depth. An issue already reported at the same path (a handler
/// that also checks a nested body itself) is not repeated.
pub fn refuse_undocumented<T: ToSchema>(
    obj: &Map<String, Value>,
    prefix: &[PathSegment],
    errors: &mut ValidationErrors,
) {
    debug_assert!(
        CLOSED.contains(&T::name().as_ref()),
        "{} refuses unknown properties: list it in CLOSED",
        T::name()
    );
    let schemas = body_schemas::<T>();
    let parts = schema_parts(schemas, &schemas[T::name().as_ref()]);
    debug_assert!(
        parts.iter().any(|p| p["properties"].is_object()),
        "{} documents no property",
        T::name()
    );
    refuse_in_object(schemas, &parts, obj, &At::Root(prefix), errors);
}

/// `schema` and every schema its `$ref`, `allOf`, `oneOf` and `anyOf` lead to.
fn schema_parts<'a>(schemas: &'a Value, schema: &'a Value) -> Vec<&'a Value> {
    let mut out = Vec::new();
    let mut pending = vec![schema];
    while let Some(schema) = pending.pop() {
        if let Some(name) = schema["$ref"].as_str() {
            pending.push(&schemas[name.trim_start_matches("#/components/schemas/")]);
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            if let Some(parts) = schema[key].as_array() {
                pending.extend(parts);
            }
        }
        out.push(schema);
    }
    out
}

/// Where a value sits in the body: a chain of frames on the walk's own stack, turned into a
/// path only when an issue is reported there (a valid body of 100 orders has thousands of
/// properties and no issue: no path of theirs is ever built).
#[derive(Clone, Copy)]
enum At<'a> {
    /// The object the walk started at, under the caller's prefix.
    Root(&'a [PathSegment]),
    /// A property of the object at the first.
    Key(&'a At<'a>, &'a str),
    /// An entry of the array at the first.
    Index(&'a At<'a>, usize),
}

impl At<'_> {
    fn path(&self) -> Vec<PathSegment> {
        match *self {
            At::Root(prefix) => prefix.to_vec(),
            At::Key(parent, key) => {
                let mut path = parent.path();
                path.push(key.into());
                path
            }
            At::Index(parent, i) => {
                let mut path = parent.path();
                path.push(i.into());
                path
            }
        }
    }
}

fn refuse_in_object(
    schemas: &Value,
    parts: &[&Value],
    obj: &Map<String, Value>,
    at: &At<'_>,
    errors: &mut ValidationErrors,
) {
    // Checked where the document closes the object (`additionalProperties: false`, or
    // `unevaluatedProperties: false` over `allOf` parts); free-form values stay open.
    let closed = parts.iter().any(|p| {
        p.get("additionalProperties") == Some(&Value::Bool(false))
            || p.get("unevaluatedProperties") == Some(&Value::Bool(false))
    });
    let properties: Vec<&Map<String, Value>> = parts
        .iter()
        .filter_map(|p| p["properties"].as_object())
        .collect();
    if !closed || properties.is_empty() {
        return;
    }
    for (key, value) in obj {
        let here = At::Key(at, key);
        // Only objects and arrays hold properties of their own to check; a scalar needs its
        // name to be documented, nothing more.
        if !matches!(value, Value::Object(_) | Value::Array(_)) {
            if !properties.iter().any(|m| m.contains_key(key)) {
                refuse_key(&here, key, errors);
            }
            continue;
        }
        // A property may be described by several parts (a body that adds requirements to
        // another's property): its value is checked against all of them.
        let described: Vec<&Value> = properties.iter().filter_map(|m| m.get(key)).collect();
        match described.is_empty() {
            false => refuse_in_value(schemas, &described, value, &here, errors),
            true => refuse_key(&here, key, errors),
        }
    }
}

/// Reports the undocumented property `key` at `at`, unless an issue of the kind is there already.
fn refuse_key(at: &At<'_>, key: &str, errors: &mut ValidationErrors) {
    let at = at.path();
    let known = errors
        .0
        .iter()
        .any(|i| i.code == IssueCode::UnrecognizedKeys && i.path == at);
    if !known {
        errors.push(ValidationIssue::new(
            IssueCode::UnrecognizedKeys,
            at,
            "a known property",
            key,
            format!("unrecognised property `{key}`"),
        ));
    }
}

fn refuse_in_value(
    schemas: &Value,
    described: &[&Value],
    value: &Value,
    at: &At<'_>,
    errors: &mut ValidationErrors,
) {
    if !matches!(value, Value::Object(_) | Value::Array(_)) {
        return;
    }
    let parts: Vec<&Value> = described
        .iter()
        .flat_map(|schema| schema_parts(schemas, schema))
        .collect();
    match value {
        Value::Object(obj) => refuse_in_object(schemas, &parts, obj, at, errors),
        Value::Array(items) => {
            let item: Vec<&Value> = parts.iter().filter_map(|p| p.get("items")).collect();
            if item.is_empty() {
                return;
            }
            for (i, value) in items.iter().enumerate() {
                refuse_in_value(schemas, &item, value, &At::Index(at, i), errors);
            }
        }
        _ => {}
    }
}

/// The schema `T` with more constraints (`allOf`): the required properties of one endpoint's
/// use of a body other endpoints share.
pub(crate) fn constrained<T: ToSchema>(extra: Object) -> RefOr<Schema> {
    AllOfBuilder::new()
        .item(Ref::from_schema_name(T::name()))
        .item(extra)
        .into()
}

/// A body that is another body with more constraints (see [`constrained`]).
macro_rules! constrained_body {
    ($(#[$doc:meta])* $name:ident of $base:ty, $extra:expr) => {
        $(#[$doc])*
        pub struct $name;

        impl utoipa::PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                $crate::v2::request_shapes::constrained::<$base>($extra)
            }
        }

        impl ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }

            fn schemas(out: &mut Vec<(String, RefOr<Schema>)>) {
                out.push((
                    <$base as ToSchema>::name().into_owned(),
                    <$base as utoipa::PartialSchema>::schema(),
                ));
                <$base as ToSchema>::schemas(out);
            }
        }
    };
}
pub(crate) use constrained_body;

/// An object requiring `names`.
fn requiring(names: &[&str]) -> utoipa::openapi::schema::ObjectBuilder {
    names
        .iter()
        .fold(utoipa::openapi::schema::ObjectBuilder::new(), |o, n| {
            o.required(*n)
        })
}

/// An object whose array property `key` has items requiring `names`.
fn items_requiring(
    object: utoipa::openapi::schema::ObjectBuilder,
    key: &str,
    names: &[&str],
) -> utoipa::openapi::schema::ObjectBuilder {
    object.property(
        key,
        utoipa::openapi::schema::ArrayBuilder::new().items(requiring(names)),
    )
}

/// `{ id, capacity }` of a vehicle or booking capacity (the capacity type's id).
#[derive(ToSchema)]
pub struct CapacityBody {
    /// The capacity type; entries with an id unknown in the depot are dropped.
    id: Option<i64>,
    capacity: f64,
}

/// `{ id | type, capacity }` of an order, line item or customer capacity.
#[derive(ToSchema)]
pub struct NamedCapacityBody {
    /// The capacity type's id.
    id: Option<i64>,
    /// The capacity type's name (instead of `id`).
    #[schema(rename = "type")]
    kind: Option<String>,
    capacity: f64,
}

/// `{ id?, name?, value }` of a custom-field write.
#[derive(ToSchema)]
pub struct CustomFieldBody {
    id: Option<i64>,
    name: Option<String>,
    value: String,
}

/// A time window, `HH:mm` to `HH:mm`.
#[derive(ToSchema)]
pub struct TimeWindowBody {
    from: String,
    to: String,
}

/// `{ id }`.
#[derive(ToSchema)]
pub struct IdBody {
    id: Option<i64>,
}

/// A vehicle write (PUT and PATCH: any subset; POST: [`VehicleCreateBody`]); no other
/// properties allowed (the read-only `id`, `shift`, `created` and `updated` of a read are
/// accepted and ignored).
#[derive(ToSchema)]
pub struct VehicleBody {
    /// At most 30 characters.
    name: Option<String>,
    active: Option<bool>,
    /// `shift`, `full_day` or `always`.
    availability: Option<String>,
    shift_start: Option<String>,
    shift_end: Option<String>,
    /// `depot`, `other` or `app-location`.
    start_location: Option<String>,
    start_address: Option<String>,
    start_lat: Option<f64>,
    start_lng: Option<f64>,
    /// `depot`, `other` or `none`.
    end_location: Option<String>,
    end_address: Option<String>,
    end_lat: Option<f64>,
    end_lng: Option<f64>,
    #[schema(rename = "break")]
    has_break: Option<bool>,
    break_start: Option<String>,
    break_end: Option<String>,
    /// Minutes.
    break_duration: Option<f64>,
    /// Names; unknown ones are created.
    skills: Option<Vec<String>>,
    capacities: Option<Vec<CapacityBody>>,
    /// Read-only: ignored.
    #[schema(read_only)]
    id: Option<Value>,
    /// Read-only: ignored.
    #[schema(read_only)]
    shift: Option<Value>,
    /// Read-only: ignored.
    #[schema(read_only)]
    created: Option<Value>,
    /// Read-only: ignored.
    #[schema(read_only)]
    updated: Option<Value>,
}

constrained_body!(
    /// `POST /vehicles`: a vehicle write with name, availability and both locations.
    VehicleCreateBody of VehicleBody,
    requiring(&["name", "availability", "start_location", "end_location"]).build()
);

/// A time window of a customer (`to` may be left out on creation).
#[derive(ToSchema)]
pub struct CustomerTimeWindowBody {
    /// `HH:mm`.
    from: String,
    /// `HH:mm`.
    to: Option<String>,
}

/// The fields of a customer write (`POST /customers` entries, `PUT /customers/{id}`).
#[derive(ToSchema)]
pub struct CustomerFieldsBody {
    name: Option<String>,
    /// The create-or-update key (required on POST).
    account: Option<String>,
    address: Option<String>,
    postcode: Option<String>,
    phone: Option<String>,
    email: Option<String>,
    lat: Option<f64>,
    lng: Option<f64>,
    /// Minutes, 1 to 9999.
    duration: Option<f64>,
    notes: Option<String>,
    capacities: Option<Vec<NamedCapacityBody>>,
    skills: Option<Vec<String>>,
    tags: Option<Vec<String>>,
    time_windows: Option<Vec<CustomerTimeWindowBody>>,
    custom_fields: Option<Vec<CustomFieldBody>>,
}

constrained_body!(
    /// An entry of `POST /customers`: the customer fields with the account (no other
    /// properties allowed).
    CustomerCreateBody of CustomerFieldsBody,
    requiring(&["account"]).build()
);

constrained_body!(
    /// `PUT /customers/{id}`: any of the customer fields, time windows with both ends (no
    /// other properties allowed; the read-only `id`, `created` and `updated` of a read are
    /// accepted and ignored).
    CustomerUpdateBody of CustomerFieldsBody,
    items_requiring(
        ["id", "created", "updated"]
            .into_iter()
            .fold(utoipa::openapi::schema::ObjectBuilder::new(), |o, name| {
                o.property(name, read_only())
            }),
        "time_windows",
        &["from", "to"]
    )
    .build()
);

/// A read-only property of any type: sent back from a read, ignored.
fn read_only() -> utoipa::openapi::schema::ObjectBuilder {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::SchemaType::AnyValue)
        .read_only(Some(true))
        .description(Some("Read-only: ignored."))
}
