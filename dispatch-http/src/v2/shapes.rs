//! Small typed response shapes shared by several resources, and [`Num`], the number rendering
//! of the wire format. Each derives `ToSchema`, so the OpenAPI document shows what is sent.

use serde::{Serialize, Serializer};
use serde_json::Value;
use utoipa::ToSchema;

use super::wire::num;

/// A number as the wire shows it: an integer when it has no fraction (see [`num`]).
#[derive(Debug, Clone, Copy, PartialEq, ToSchema)]
pub struct Num(pub f64);

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        num(self.0).serialize(s)
    }
}

/// `{ id }`.
#[derive(Debug, Serialize, ToSchema)]
pub struct IdRef {
    /// The id.
    pub id: i64,
}

/// `{ id, name }`.
#[derive(Debug, Serialize, ToSchema)]
pub struct NamedRef {
    /// The id.
    pub id: i64,
    /// The name.
    pub name: String,
}

/// A typed shape as a JSON value (for the replies idempotent endpoints record).
pub fn to_json(shape: impl Serialize) -> Value {
    serde_json::to_value(shape).expect("a response shape serialises")
}

/// A per-item entry of a bulk response's `errors`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ItemError {
    /// For example GEOCODING_FAILED.
    pub name: &'static str,
    /// For people.
    pub description: String,
    /// The item concerned (`id`, `account` or `order_number`, ...).
    #[schema(value_type = Object)]
    pub details: Value,
}

/// A capacity amount as read: `{id, type, capacity}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CapacityEntry {
    /// The capacity type's id.
    pub id: i64,
    /// Its display name.
    #[serde(rename = "type")]
    #[schema(required = true)]
    pub type_name: Option<String>,
    /// The amount.
    pub capacity: Num,
}

/// A custom-field value as read: `{id, name, value}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CustomFieldEntry {
    /// The custom field's id.
    pub id: i64,
    /// Its name.
    #[schema(required = true)]
    pub name: Option<String>,
    /// The value.
    pub value: String,
}
