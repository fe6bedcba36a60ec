//! Order writes: `POST /orders`, `PUT /orders/{id}` and `POST /depots/{id}/orders`.

use std::borrow::Cow;

use serde_json::Value;
use utoipa::openapi::schema::Schema;
use utoipa::openapi::RefOr;
use utoipa::ToSchema;

use super::{
    constrained_body, requiring, CustomFieldBody, IdBody, NamedCapacityBody, TimeWindowBody,
};

/// The customer of an order write: exactly one of `id` and `account` identifies it.
#[derive(ToSchema)]
pub struct OrderCustomerBody {
    id: Option<i64>,
    account: Option<String>,
    name: Option<String>,
    email: Option<String>,
    phone: Option<String>,
    country_code: Option<String>,
    address: Option<String>,
    postcode: Option<String>,
    lat: Option<f64>,
    lng: Option<f64>,
}

/// A line item write. `product_code` is the key matching an order's existing line item; a new
/// line item needs product_name and product_quantity too. The read-only fields of a read may
/// be sent back and are ignored.
#[derive(ToSchema)]
pub struct LineItemBody {
    /// Read-only: ignored.
    #[schema(read_only)]
    id: Option<Value>,
    /// At most 20 characters.
    product_code: String,
    /// At most 75 characters.
    product_name: Option<String>,
    product_quantity: Option<i64>,
    product_unit_price: Option<f64>,
    product_value: Option<f64>,
    quantity_outstanding: Option<f64>,
    status: Option<String>,
    date: Option<String>,
    capacities: Option<Vec<NamedCapacityBody>>,
    custom_fields: Option<Vec<CustomFieldBody>>,
    /// Read-only: ignored.
    #[schema(read_only)]
    product_value_source: Option<Value>,
}

/// A time window of an order's combined `time_windows`: `type` says which end.
#[derive(ToSchema)]
pub struct TypedTimeWindowBody {
    /// `HH:mm`.
    from: String,
    /// `HH:mm`.
    to: String,
    /// `delivery` or `pickup`.
    #[schema(rename = "type")]
    side: String,
}

/// `{ reference }` shared by exactly two orders of one POST.
#[derive(ToSchema)]
pub struct OrderExchangeBody {
    reference: String,
}

/// `{ vehicle_id }` (null: no vehicle).
#[derive(ToSchema)]
pub struct VehicleAssignmentBody {
    vehicle_id: Option<i64>,
}

/// `{ email }`.
#[derive(ToSchema)]
pub struct EmailBody {
    email: String,
}

/// An order write of `POST /orders` and `PUT /orders/{id}` (PUT: any subset). `pickup_*`
/// fields mirror the `delivery_*` ones. No other properties are allowed; the read-only
/// fields of a read may be sent back and are ignored.
#[derive(ToSchema)]
pub struct OrderWriteBody {
    order_number: Option<String>,
    /// `delivery`, `pickup` or `shipment`.
    #[schema(rename = "type")]
    kind: Option<String>,
    /// `P1`, `P2` or `P3`.
    priority: Option<String>,
    customer: Option<OrderCustomerBody>,
    /// The customer's id, like `customer: { id }`.
    customer_id: Option<i64>,
    delivery_contact_name: Option<String>,
    delivery_contact_number: Option<String>,
    delivery_contact_email: Option<String>,
    delivery_address: Option<String>,
    delivery_country_code: Option<String>,
    delivery_postcode: Option<String>,
    delivery_lat: Option<f64>,
    delivery_lng: Option<f64>,
    delivery_duration: Option<f64>,
    delivery_notes: Option<String>,
    delivery_time_windows: Option<Vec<TimeWindowBody>>,
    delivery_date: Option<String>,
    delivery_available_days: Option<Vec<String>>,
    pickup_contact_name: Option<String>,
    pickup_contact_number: Option<String>,
    pickup_contact_email: Option<String>,
    pickup_address: Option<String>,
    pickup_country_code: Option<String>,
    pickup_postcode: Option<String>,
    pickup_lat: Option<f64>,
    pickup_lng: Option<f64>,
    pickup_duration: Option<f64>,
    pickup_notes: Option<String>,
    pickup_time_windows: Option<Vec<TimeWindowBody>>,
    pickup_available_days: Option<Vec<String>>,
    /// Replaces every time window of the order (both ends).
    time_windows: Option<Vec<TypedTimeWindowBody>>,
    order_exchange: Option<OrderExchangeBody>,
    parts: Option<f64>,
    vehicle_assignment: Option<VehicleAssignmentBody>,
    emails: Option<Vec<EmailBody>>,
    /// `{ id }` of a third party (null or no id: none).
    third_party: Option<IdBody>,
    /// Names that must already exist.
    tags: Option<Vec<String>>,
    skills: Option<Vec<String>>,
    capacities: Option<Vec<NamedCapacityBody>>,
    custom_fields: Option<Vec<CustomFieldBody>>,
    /// At most 10000000, 2 decimals; only without valued line items.
    order_value: Option<f64>,
    line_items: Option<Vec<LineItemBody>>,
    /// Read-only: ignored.
    #[schema(read_only)]
    id: Option<Value>,
    /// Read-only: ignored.
    #[schema(read_only)]
    status: Option<Value>,
    /// Read-only: ignored.
    #[schema(read_only)]
    currency: Option<Value>,
    /// Read-only: ignored.
    #[schema(read_only)]
    value_source: Option<Value>,
    /// Read-only: ignored.
    #[schema(read_only)]
    stops: Option<Value>,
    /// Read-only: ignored.
    #[schema(read_only)]
    attachments: Option<Value>,
    /// Read-only: ignored.
    #[schema(read_only)]
    created: Option<Value>,
    /// Read-only: ignored.
    #[schema(read_only)]
    updated: Option<Value>,
}

constrained_body!(
    /// An entry of `POST /orders`: order_number and type required.
    OrderCreateBody of OrderWriteBody,
    requiring(&["order_number", "type"]).build()
);

/// An entry of `POST /depots/{id}/orders`: the spec's restricted property list (no other
/// properties allowed, read-only fields included).
#[derive(ToSchema)]
pub struct DepotOrderBody {
    order_number: String,
    /// `delivery`, `pickup` or `shipment`.
    #[schema(rename = "type")]
    kind: String,
    customer: Option<OrderCustomerBody>,
    delivery_contact_name: Option<String>,
    delivery_contact_number: Option<String>,
    delivery_contact_email: Option<String>,
    delivery_address: Option<String>,
    delivery_postcode: Option<String>,
    delivery_lat: Option<f64>,
    delivery_lng: Option<f64>,
    delivery_notes: Option<String>,
    delivery_time_windows: Option<Vec<TimeWindowBody>>,
    delivery_date: Option<String>,
    delivery_available_days: Option<Vec<String>>,
    pickup_address: Option<String>,
    pickup_postcode: Option<String>,
    pickup_duration: Option<f64>,
    pickup_lat: Option<f64>,
    pickup_lng: Option<f64>,
    pickup_notes: Option<String>,
    pickup_time_windows: Option<Vec<TimeWindowBody>>,
    pickup_contact_name: Option<String>,
    pickup_contact_number: Option<String>,
    pickup_contact_email: Option<String>,
    pickup_available_days: Option<Vec<String>>,
    order_exchange: Option<OrderExchangeBody>,
    parts: Option<f64>,
    line_items: Option<Vec<LineItemBody>>,
    skills: Option<Vec<String>>,
    custom_fields: Option<Vec<CustomFieldBody>>,
    capacities: Option<Vec<NamedCapacityBody>>,
}
