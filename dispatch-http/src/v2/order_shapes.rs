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
    /// The line item id.
    pub id: i64,
    /// The product code (at most 20 characters; unique within the order).
    pub product_code: String,
    /// The product name.
    pub product_name: String,
    /// How many.
    pub product_quantity: i64,
    /// Price of one unit, if known.
    #[schema(required = true)]
    pub product_unit_price: Option<Num>,
    /// Value of the line: given, or quantity times unit price.
    #[schema(required = true)]
    pub product_value: Option<Num>,
    /// `DERIVED` or `MANUAL`.
    #[schema(required = true)]
    pub product_value_source: Option<&'static str>,
    /// Quantity not yet delivered, if known.
    #[schema(required = true)]
    pub quantity_outstanding: Option<Num>,
    /// The line item status (default or custom).
    pub status: String,
    /// The date of its last outcome, if any.
    #[schema(required = true)]
    pub date: Option<String>,
    /// Its load per capacity type.
    pub capacities: Vec<CapacityEntry>,
    /// Custom field values.
    pub custom_fields: Vec<CustomFieldEntry>,
}

/// `{ id, name }` of an attachment on the order read.
#[derive(Serialize, ToSchema)]
pub struct AttachmentRef {
    /// The attachment id.
    pub id: i64,
    /// Its file name as stored.
    pub name: String,
}

/// A full order (GET and PUT /orders/{id}).
#[derive(Serialize, ToSchema)]
pub struct OrderWire {
    /// The order id.
    pub id: i64,
    /// The business number, unique in the depot.
    pub order_number: String,
    /// `delivery`, `pickup` or `shipment`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The order status, derived from its line items when they disagree (`PARTIALLY_*`).
    pub status: String,
    /// `P1`, `P2` or `P3`.
    #[schema(required = true)]
    pub priority: Option<&'static str>,
    /// The customer, if linked.
    #[schema(required = true)]
    pub customer_id: Option<i64>,
    /// Who receives the delivery.
    #[schema(required = true)]
    pub delivery_contact_name: Option<String>,
    /// Their phone number.
    #[schema(required = true)]
    pub delivery_contact_number: Option<String>,
    /// Their e-mail address.
    #[schema(required = true)]
    pub delivery_contact_email: Option<String>,
    /// Where to deliver.
    #[schema(required = true)]
    pub delivery_address: Option<String>,
    /// Country of the delivery address.
    #[schema(required = true)]
    pub delivery_country_code: Option<String>,
    /// Postcode of the delivery address.
    #[schema(required = true)]
    pub delivery_postcode: Option<String>,
    /// Latitude of the delivery.
    #[schema(required = true)]
    pub delivery_lat: Option<Num>,
    /// Longitude of the delivery.
    #[schema(required = true)]
    pub delivery_lng: Option<Num>,
    /// Minutes.
    #[schema(required = true)]
    pub delivery_duration: Option<Num>,
    /// Notes for the driver at delivery.
    #[schema(required = true)]
    pub delivery_notes: Option<String>,
    /// When the delivery may take place.
    pub delivery_time_windows: Vec<TimeWindowWire>,
    /// Weekdays the delivery may take place.
    pub delivery_available_days: Vec<&'static str>,
    /// The day the order is due.
    #[schema(required = true)]
    pub delivery_date: Option<String>,
    /// Who hands the goods over at pickup.
    #[schema(required = true)]
    pub pickup_contact_name: Option<String>,
    /// Their phone number.
    #[schema(required = true)]
    pub pickup_contact_number: Option<String>,
    /// Their e-mail address.
    #[schema(required = true)]
    pub pickup_contact_email: Option<String>,
    /// Where to pick up.
    #[schema(required = true)]
    pub pickup_address: Option<String>,
    /// Country of the pickup address.
    #[schema(required = true)]
    pub pickup_country_code: Option<String>,
    /// Postcode of the pickup address.
    #[schema(required = true)]
    pub pickup_postcode: Option<String>,
    /// Latitude of the pickup.
    #[schema(required = true)]
    pub pickup_lat: Option<Num>,
    /// Longitude of the pickup.
    #[schema(required = true)]
    pub pickup_lng: Option<Num>,
    /// Minutes of service at pickup.
    #[schema(required = true)]
    pub pickup_duration: Option<Num>,
    /// Notes for the driver at pickup.
    #[schema(required = true)]
    pub pickup_notes: Option<String>,
    /// When the pickup may take place.
    pub pickup_time_windows: Vec<TimeWindowWire>,
    /// Weekdays the pickup may take place.
    pub pickup_available_days: Vec<&'static str>,
    /// Every time window of the order with its `type` (delivery or pickup).
    pub time_windows: Vec<TypedTimeWindow>,
    /// The exchange pair the order belongs to, if any.
    #[schema(required = true)]
    pub order_exchange: Option<ExchangeWire>,
    /// Number of parts (parcels) of the order.
    #[schema(required = true)]
    pub parts: Option<Num>,
    /// The vehicle the order is assigned to, if any.
    #[schema(required = true)]
    pub vehicle_assignment: Option<VehicleAssignment>,
    /// E-mail addresses for notifications.
    pub emails: Vec<EmailEntry>,
    /// The third party (carrier) the order is handed to, if any.
    #[schema(required = true)]
    pub third_party: Option<IdRef>,
    /// Tags.
    pub tags: Vec<String>,
    /// Skills a vehicle needs to serve the order.
    pub skills: Vec<String>,
    /// Its load per capacity type.
    pub capacities: Vec<CapacityEntry>,
    /// Custom field values.
    pub custom_fields: Vec<CustomFieldEntry>,
    /// The value of the order: given, or the sum of its line items.
    #[schema(required = true)]
    pub order_value: Option<Num>,
    /// Currency of the values, if known.
    #[schema(required = true)]
    pub currency: Option<&'static str>,
    /// `DERIVED` (from the line items) or `MANUAL`.
    #[schema(required = true)]
    pub value_source: Option<&'static str>,
    /// The line items.
    pub line_items: Vec<LineItemWire>,
    /// The stops serving the order.
    pub stops: Vec<StopWire>,
    /// Attached files.
    pub attachments: Vec<AttachmentRef>,
    /// When it was created (ISO 8601, UTC).
    pub created: String,
    /// When it last changed (ISO 8601, UTC).
    pub updated: String,
}

/// `{ id, account }` of an order's customer.
#[derive(Serialize, ToSchema)]
pub struct CustomerRef {
    /// The customer id.
    pub id: i64,
    /// The customer account.
    pub account: String,
}

/// An order in `GET /orders`.
#[derive(Serialize, ToSchema)]
pub struct OrderSummaryWire {
    /// The order id.
    pub id: i64,
    /// The business number, unique in the depot.
    pub order_number: String,
    /// The order status.
    pub status: String,
    /// `delivery`, `pickup` or `shipment`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The stops serving the order.
    pub stops: Vec<StopWire>,
    /// Its line items, by id.
    pub line_items: Vec<IdRef>,
    /// Its customer, if linked.
    #[schema(required = true)]
    pub customer: Option<CustomerRef>,
    /// When it was created (ISO 8601, UTC).
    pub created: String,
    /// When it last changed (ISO 8601, UTC).
    pub updated: String,
}

/// An attachment as the upload answers it.
#[derive(Serialize, ToSchema)]
pub struct AttachmentWire {
    /// The attachment id.
    pub id: i64,
    /// The order id, as a string.
    pub order_id: String,
    /// The depot.
    pub depot_id: i64,
    /// File name as stored (made safe).
    pub name: String,
    /// Content type, from the content.
    pub mime: String,
    /// File extension.
    pub ext: String,
    /// Bytes.
    pub size: u64,
    /// Whether the service stored it compressed.
    pub is_compressed: bool,
    /// When it last changed (ISO 8601, UTC).
    pub modified: String,
    /// When it was uploaded (ISO 8601, UTC).
    pub created: String,
}

/// `{ order }`.
#[derive(Serialize, ToSchema)]
pub struct OneOrder {
    /// The order.
    pub order: OrderWire,
}

/// `{ order, errors }`.
#[derive(Serialize, ToSchema)]
pub struct UpdatedOrder {
    /// The order as saved.
    pub order: OrderWire,
    /// GEOCODING_FAILED when a changed address could not be geocoded.
    pub errors: Vec<ItemError>,
}

/// `{ orders }`.
#[derive(Serialize, ToSchema)]
pub struct Orders {
    /// One page of orders, most recently updated first.
    pub orders: Vec<OrderSummaryWire>,
}

/// `{ id, order_number }` of a written order (the id as a string, as the spec says).
#[derive(Serialize, ToSchema)]
pub struct WrittenOrderRef {
    /// The order id, as a string.
    pub id: String,
    /// The business number.
    pub order_number: String,
}

/// `{ orders, errors }`: every order sent, in request order.
#[derive(Serialize, ToSchema)]
pub struct WrittenOrders {
    /// The orders written, in request order.
    pub orders: Vec<WrittenOrderRef>,
    /// GEOCODING_FAILED per order saved without coordinates.
    pub errors: Vec<ItemError>,
}
