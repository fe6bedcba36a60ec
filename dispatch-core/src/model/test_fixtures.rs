//! Inputs the model's and services' unit tests share.

use crate::model::order_fields::{Catalog, NamedRef};
use crate::model::order_input::{EndpointFields, EndpointInput, OrderInput};

fn named(id: i64, name: &str) -> NamedRef {
    NamedRef {
        id,
        name: name.into(),
    }
}

/// A depot's reference data: capacity type 1 "Weight", skill 1 "Forklift", tag 1 "Fragile",
/// custom field 5 "Gate code".
pub fn catalog() -> Catalog {
    Catalog {
        capacity_types: vec![named(1, "Weight")],
        skills: vec![named(1, "Forklift")],
        tags: vec![named(1, "Fragile")],
        custom_fields: vec![named(5, "Gate code")],
    }
}

/// [`catalog`] with a second skill, 2 "Cold".
pub fn catalog_with_cold() -> Catalog {
    let mut c = catalog();
    c.skills.push(named(2, "Cold"));
    c
}

/// A delivery order numbered `number` to "1 High St", nothing else sent.
pub fn delivery(number: &str) -> OrderInput {
    OrderInput {
        order_number: Some(Some(number.into())),
        kind: Some(Some("delivery".into())),
        delivery: EndpointInput {
            fields: EndpointFields {
                address: Some(Some("1 High St".into())),
                ..EndpointFields::default()
            },
            ..EndpointInput::default()
        },
        ..OrderInput::default()
    }
}
