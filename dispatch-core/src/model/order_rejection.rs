//! The business rules an order write can break beyond single fields, as typed rejections.
//! Each renders as the validation issue the HTTP edge sends (400 INVALID_INPUT) through
//! [`OrderRejection::issue`].

use crate::error::ValidationIssue;
use crate::model::order::{OrderType, Side};
use crate::model::order_fields::{custom, key_path};

/// A broken order rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrderRejection {
    /// PUT: the new order_number belongs to another order of the depot.
    #[error("order_number `{0}` belongs to another order")]
    OrderNumberTaken(String),
    /// The order's type needs location data (address, postcode or both coordinates) for an
    /// end that has none. `type_changed` puts the blame on `type` rather than the address.
    #[error("a {} order needs {} data", kind.as_str(), side.as_str())]
    MissingLocation {
        /// The order's type.
        kind: OrderType,
        /// The end lacking data.
        side: Side,
        /// Whether a type change caused it.
        type_changed: bool,
    },
    /// PUT: the customer of an order cannot be changed.
    #[error("the customer of an order cannot be changed")]
    CustomerImmutable {
        /// The customer id sent.
        sent: Option<i64>,
    },
    /// PUT: `order_exchange` only renames an existing pair; pairs are made by POST /orders.
    #[error("order_exchange can only rename the reference of an existing pair")]
    NotInExchange(String),
    /// `order_value` was sent for an order with valued line items.
    #[error("order_value can only be set on an order with no valued line items")]
    ValueWithValuedLineItems,
    /// The line items' values sum to more than 10000000.
    #[error("the order's value must be at most 10000000")]
    ValueTooLarge,
}

impl OrderRejection {
    /// The validation issue, with its path relative to the order.
    pub fn issue(&self) -> ValidationIssue {
        let message = self.to_string();
        match self {
            OrderRejection::OrderNumberTaken(n) => custom(
                key_path(&["order_number"]),
                "an order_number not used by another order",
                n,
                message,
            ),
            OrderRejection::MissingLocation { kind, side, type_changed } => {
                let s = side.as_str();
                let needs = match kind {
                    OrderType::Shipment => "both pickup and delivery data",
                    OrderType::Delivery => "delivery data",
                    OrderType::Pickup => "pickup data",
                };
                let field = if *type_changed { "type".to_owned() } else { format!("{s}_address") };
                custom(
                    vec![field.as_str().into()],
                    &format!("{s}_address, {s}_postcode, or both {s}_lat and {s}_lng"),
                    "undefined",
                    format!(
                        "a {} order needs {needs} (an address, a postcode, or both coordinates)",
                        kind.as_str()
                    ),
                )
            }
            OrderRejection::CustomerImmutable { sent } => custom(
                key_path(&["customer_id"]),
                "the order's current customer",
                &sent.map_or_else(|| "null".to_owned(), |i| i.to_string()),
                message,
            ),
            OrderRejection::NotInExchange(reference) => custom(
                key_path(&["order_exchange"]),
                "an order already in an exchange pair",
                reference,
                "order_exchange can only rename the reference of an existing pair; pairs are created by POST /orders",
            ),
            OrderRejection::ValueWithValuedLineItems => custom(
                key_path(&["order_value"]),
                "an order without valued line items",
                "order with valued line items",
                message,
            ),
            OrderRejection::ValueTooLarge => custom(
                key_path(&["line_items"]),
                "line item values summing to at most 10000000",
                "a larger sum",
                "the order's value (the sum of its line items) must be at most 10000000",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::render_path;

    #[test]
    fn a_type_change_blames_the_type_and_a_missing_address_the_address() {
        let missing = |type_changed| OrderRejection::MissingLocation {
            kind: OrderType::Shipment,
            side: Side::Pickup,
            type_changed,
        };
        assert_eq!(render_path(&missing(true).issue().path), "type");
        assert_eq!(render_path(&missing(false).issue().path), "pickup_address");
    }
}
