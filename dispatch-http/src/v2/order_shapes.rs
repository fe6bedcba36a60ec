//! The typed read shapes of orders (built by `order_render`).

use serde::Serialize;
use utoipa::ToSchema;

use super::plan_shapes::{EmailEntry, StopWire, VehicleAssignment};
use super::shapes::{CapacityEntry, CustomFieldEntry, IdRef, ItemError, Num};

/// A time window of one end of an order.
#[derive(Serialize, ToSchema)]
pub struct TimeWindowWire {
    /// `HH:mm`.
    pub from: String,
    /// `HH:mm`.
    pub to: String,
}

/// A time window with the end it belongs to (`time_windows`).
#[derive(Serialize, ToSchema)]
pub struct TypedTimeWindow {
    /// `HH:mm`.
    pub from: String,
    /// `HH:mm`.
    pub to: String,
    /// `delivery` or `pickup`.
    #[serde(rename = "type")]
    pub side: &'static str,
}

/// `{ reference }` of an exchange pair.
#[derive(Serialize, ToSchema)]
pub struct ExchangeWire {
    /// The reference the pair shares.
    pub reference: String,
}

/// A line item as read.
#[derive(Serialize, ToSchema)]
pub struct LineItemWire {
    pub id: i64,
    pub product_code: String,
    pub product_name: String,
    pub product_quantity: i64,
    #[schema(required = true)]
    pub product_unit_price: Option<Num>,
    #[schema(required = true)]
    pub product_value: Option<Num>,
    /// `DERIVED` or `MANUAL`.
    #[schema(required = true)]
    pub product_value_source: Option<&'static str>,
    #[schema(required = true)]
    pub quantity_outstanding: Option<Num>,
    pub status: String,
    #[schema(required = true)]
    pub date: Option<String>,
    pub capacities: Vec<CapacityEntry>,
    pub custom_fields: Vec<CustomFieldEntry>,
}

/// `{ id, name }` of an attachment on the order read.
#[derive(Serialize, ToSchema)]
pub struct AttachmentRef {
    pub id: i64,
    pub name: String,
}

/// A full order (GET and PUT /orders/{id}).
#[derive(Serialize, ToSchema)]
pub struct OrderWire {
    pub id: i64,
    pub order_number: String,
    /// `delivery`, `pickup` or `shipment`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub status: String,
    /// `P1`, `P2` or `P3`.
    #[schema(required = true)]
    pub priority: Option<&'static str>,
    #[schema(required = true)]
    pub customer_id: Option<i64>,
    #[schema(required = true)]
    pub delivery_contact_name: Option<String>,
    #[schema(required = true)]
    pub delivery_contact_number: Option<String>,
    #[schema(required = true)]
    pub delivery_contact_email: Option<String>,
    #[schema(required = true)]
    pub delivery_address: Option<String>,
    #[schema(required = true)]
    pub delivery_country_code: Option<String>,
    #[schema(required = true)]
    pub delivery_postcode: Option<String>,
    #[schema(required = true)]
    pub delivery_lat: Option<Num>,
    #[schema(required = true)]
    pub delivery_lng: Option<Num>,
    /// Minutes.
    #[schema(required = true)]
    pub delivery_duration: Option<Num>,
    #[schema(required = true)]
    pub delivery_notes: Option<String>,
    pub delivery_time_windows: Vec<TimeWindowWire>,
    pub delivery_available_days: Vec<&'static str>,
    #[schema(required = true)]
    pub delivery_date: Option<String>,
    #[schema(required = true)]
    pub pickup_contact_name: Option<String>,
    #[schema(required = true)]
    pub pickup_contact_number: Option<String>,
    #[schema(required = true)]
    pub pickup_contact_email: Option<String>,
    #[schema(required = true)]
    pub pickup_address: Option<String>,
    #[schema(required = true)]
    pub pickup_country_code: Option<String>,
    #[schema(required = true)]
    pub pickup_postcode: Option<String>,
    #[schema(required = true)]
    pub pickup_lat: Option<Num>,
    #[schema(required = true)]
    pub pickup_lng: Option<Num>,
    #[schema(required = true)]
    pub pickup_duration: Option<Num>,
    #[schema(required = true)]
    pub pickup_notes: Option<String>,
    pub pickup_time_windows: Vec<TimeWindowWire>,
    pub pickup_available_days: Vec<&'static str>,
    pub time_windows: Vec<TypedTimeWindow>,
    #[schema(required = true)]
    pub order_exchange: Option<ExchangeWire>,
    #[schema(required = true)]
    pub parts: Option<Num>,
    #[schema(required = true)]
    pub vehicle_assignment: Option<VehicleAssignment>,
    pub emails: Vec<EmailEntry>,
    #[schema(required = true)]
    pub third_party: Option<IdRef>,
    pub tags: Vec<String>,
    pub skills: Vec<String>,
    pub capacities: Vec<CapacityEntry>,
    pub custom_fields: Vec<CustomFieldEntry>,
    #[schema(required = true)]
    pub order_value: Option<Num>,
    #[schema(required = true)]
    pub currency: Option<&'static str>,
    #[schema(required = true)]
    pub value_source: Option<&'static str>,
    pub line_items: Vec<LineItemWire>,
    /// The stops serving the order.
    pub stops: Vec<StopWire>,
    pub attachments: Vec<AttachmentRef>,
    pub created: String,
    pub updated: String,
}

/// `{ id, account }` of an order's customer.
#[derive(Serialize, ToSchema)]
pub struct CustomerRef {
    pub id: i64,
    pub account: String,
}

/// An order in `GET /orders`.
#[derive(Serialize, ToSchema)]
pub struct OrderSummaryWire {
    pub id: i64,
    pub order_number: String,
    pub status: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub stops: Vec<StopWire>,
    pub line_items: Vec<IdRef>,
    #[schema(required = true)]
    pub customer: Option<CustomerRef>,
    pub created: String,
    pub updated: String,
}

/// An attachment as the upload answers it.
#[derive(Serialize, ToSchema)]
pub struct AttachmentWire {
    pub id: i64,
    /// The order id, as a string.
    pub order_id: String,
    pub depot_id: i64,
    pub name: String,
    pub mime: String,
    pub ext: String,
    /// Bytes.
    pub size: u64,
    pub is_compressed: bool,
    pub modified: String,
    pub created: String,
}

/// `{ order }`.
#[derive(Serialize, ToSchema)]
pub struct OneOrder {
    pub order: OrderWire,
}

/// `{ order, errors }`.
#[derive(Serialize, ToSchema)]
pub struct UpdatedOrder {
    pub order: OrderWire,
    /// GEOCODING_FAILED when a changed address could not be geocoded.
    pub errors: Vec<ItemError>,
}

/// `{ orders }`.
#[derive(Serialize, ToSchema)]
pub struct Orders {
    pub orders: Vec<OrderSummaryWire>,
}

/// `{ id, order_number }` of a written order (the id as a string, as the spec says).
#[derive(Serialize, ToSchema)]
pub struct WrittenOrderRef {
    pub id: String,
    pub order_number: String,
}

/// `{ orders, errors }`: every order sent, in request order.
#[derive(Serialize, ToSchema)]
pub struct WrittenOrders {
    pub orders: Vec<WrittenOrderRef>,
    /// GEOCODING_FAILED per order saved without coordinates.
    pub errors: Vec<ItemError>,
}
