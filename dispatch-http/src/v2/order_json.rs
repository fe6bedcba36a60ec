//! Wire helpers shared by the customer and order resources: reading the small write objects
//! (time windows, capacity entries, custom-field values) and rendering the read shapes of
//! capacities and custom fields.

use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use dispatch_core::model::order_fields::{
    CapacityAmount, CapacityInput, Catalog, CustomFieldInput, CustomFieldValue, Sent,
    TimeWindowInput,
};
use dispatch_core::patch::Patch;

use super::shapes::{CapacityEntry, CustomFieldEntry, Num};
use super::wire::Reader;

/// A property as the core's write types take it: `None` absent, `Some(None)` null.
pub fn sent<T>(p: Patch<T>) -> Sent<T> {
    match p {
        Patch::Absent => None,
        Patch::Null => Some(None),
        Patch::Value(v) => Some(Some(v)),
    }
}

/// An array property: absent keeps the stored set, null or `[]` clears it.
pub fn list<T>(p: Patch<Vec<T>>) -> Option<Vec<T>> {
    match p {
        Patch::Absent => None,
        Patch::Null => Some(Vec::new()),
        Patch::Value(v) => Some(v),
    }
}

/// A property that may be omitted but not null (the value or nothing).
pub fn value<T>(p: Patch<T>) -> Option<T> {
    match p {
        Patch::Value(v) => Some(v),
        _ => None,
    }
}

/// Reads time-window entries: `from`, `to`, and `type` only where it is documented (`typed`:
/// an order's combined `time_windows`; elsewhere the list says which end, and `type` is an
/// unknown property like any other).
pub fn time_windows(r: &mut Reader<'_>, key: &str, typed: bool) -> Option<Vec<TimeWindowInput>> {
    list(r.objects(key, |w| TimeWindowInput {
        from: value(w.string("from")),
        to: value(w.string("to")),
        kind: if typed { value(w.string("type")) } else { None },
    }))
}

/// Reads capacity entries (`id` or `type`, and `capacity`).
pub fn capacities(r: &mut Reader<'_>, key: &str) -> Option<Vec<CapacityInput>> {
    list(r.objects(key, |c| CapacityInput {
        id: value(c.integer("id")),
        kind: value(c.string("type")),
        capacity: value(c.number("capacity")),
    }))
}

/// Reads custom-field values (`id` and/or `name`, and `value`).
pub fn custom_fields(r: &mut Reader<'_>, key: &str) -> Option<Vec<CustomFieldInput>> {
    list(r.objects(key, |f| CustomFieldInput {
        id: value(f.integer("id")),
        name: value(f.string("name")),
        value: value(f.string("value")),
    }))
}

/// Capacities as read: `{id, type, capacity}`.
pub fn render_capacities(items: &[CapacityAmount], catalog: &Catalog) -> Vec<CapacityEntry> {
    items
        .iter()
        .map(|c| CapacityEntry {
            id: c.capacity_type_id,
            type_name: catalog
                .capacity_types
                .iter()
                .find(|t| t.id == c.capacity_type_id)
                .map(|t| t.name.clone()),
            capacity: Num(c.amount),
        })
        .collect()
}

/// Custom-field values as read: `{id, name, value}`.
pub fn render_custom_fields(
    items: &[CustomFieldValue],
    catalog: &Catalog,
) -> Vec<CustomFieldEntry> {
    items
        .iter()
        .map(|f| CustomFieldEntry {
            id: f.field_id,
            name: field_name(catalog, f.field_id).map(str::to_owned),
            value: f.value.clone(),
        })
        .collect()
}

/// The name of a custom field of the depot.
pub fn field_name(catalog: &Catalog, id: i64) -> Option<&str> {
    catalog
        .custom_fields
        .iter()
        .find(|f| f.id == id)
        .map(|f| f.name.as_str())
}

/// A validation failure of the request body as a whole (not an object, not an array ...).
pub fn body_issue(expected: &str, received: &str, message: &str) -> ValidationErrors {
    ValidationErrors(vec![ValidationIssue::new(
        IssueCode::InvalidType,
        Vec::new(),
        expected,
        received,
        message,
    )])
}
