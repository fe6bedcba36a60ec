//! Reference data: capacity types, custom fields, tags, skills, third parties and custom order
//! statuses.

use crate::time::Timestamp;

/// Longest name of a reference-data entry created through the service or a seed file (a skill,
/// tag, capacity type, custom field, zone, third party, ...), in characters: names are keys of
/// unique indexes, whose entries have a size limit (PostgreSQL's is about 2.7 kB).
pub const MAX_REFERENCE_NAME_CHARS: usize = 255;

/// A kind of load a vehicle carries and an order needs (weight, volume, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityType {
    /// Identifier.
    pub id: i64,
    /// Display name (the `type` field), unique within the depot.
    pub name: String,
    /// Default amount, as a string (the spec's `default`).
    pub default: String,
    /// Creation instant.
    pub created: Timestamp,
    /// Last change.
    pub updated: Timestamp,
}

/// One amount of a capacity type, as held by a vehicle, customer or order.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityAmount {
    /// The capacity type's id.
    pub id: i64,
    /// The capacity type's display name (filled on reads).
    pub type_name: String,
    /// The amount.
    pub capacity: f64,
}

/// A named free-text field attached to customers and orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomField {
    /// Identifier.
    pub id: i64,
    /// Name, unique within the depot.
    pub name: String,
    /// Creation instant.
    pub created: Timestamp,
    /// Last change.
    pub updated: Timestamp,
}

/// A label for customers and orders; names are unique within a depot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    /// Identifier.
    pub id: i64,
    /// Name.
    pub name: String,
}

/// A capability a vehicle offers and an order may need; names are case-sensitive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Identifier.
    pub id: i64,
    /// Name.
    pub name: String,
}

/// An organisation-wide carrier or partner orders can be handed to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThirdParty {
    /// Identifier.
    pub id: i64,
    /// Name, unique within the organisation.
    pub name: String,
}
