//! The order concept: a stored order with typed values, its enums (type, priority, time
//! window type) and the rule of what each order type needs. Writes are checked in
//! [`super::order_validate`] and merged in [`super::order_merge`].

use crate::model::line_item::LineItem;
use crate::model::order_fields::{CapacityAmount, CustomFieldValue};
use crate::model::order_value::{order_value, Money, MoneyError, ValueSource};
use crate::status::Status;
use crate::time::{Date, TimeOfDay, Timestamp, Weekday};

/// Most orders one POST /orders carries.
pub const MAX_ORDERS_PER_REQUEST: usize = 100;

/// Longest order_number, in characters. The interface sets no limit; the number is the key of
/// a unique index, and an index entry has a size limit (PostgreSQL refuses entries of about
/// 2.7 kB), so a limit that every store can hold is part of the rules, not a storage failure.
pub const MAX_ORDER_NUMBER_CHARS: usize = 255;

/// An order's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OrderType {
    /// Taken to the delivery location.
    Delivery,
    /// Collected at the pickup location.
    Pickup,
    /// Collected at the pickup location and taken to the delivery location.
    Shipment,
}

impl OrderType {
    /// Every type's wire spelling.
    pub const NAMES: [&'static str; 3] = ["delivery", "pickup", "shipment"];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            OrderType::Delivery => "delivery",
            OrderType::Pickup => "pickup",
            OrderType::Shipment => "shipment",
        }
    }

    /// Parses the wire spelling, ignoring case.
    pub fn parse(s: &str) -> Option<OrderType> {
        match s.to_ascii_lowercase().as_str() {
            "delivery" => Some(OrderType::Delivery),
            "pickup" => Some(OrderType::Pickup),
            "shipment" => Some(OrderType::Shipment),
            _ => None,
        }
    }

    /// Whether this type needs delivery location data.
    pub fn needs_delivery(self) -> bool {
        matches!(self, OrderType::Delivery | OrderType::Shipment)
    }

    /// Whether this type needs pickup location data.
    pub fn needs_pickup(self) -> bool {
        matches!(self, OrderType::Pickup | OrderType::Shipment)
    }
}

/// An order's priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Priority {
    /// Highest.
    P1,
    /// Middle.
    P2,
    /// Lowest.
    P3,
}

impl Priority {
    /// Every priority's wire spelling.
    pub const NAMES: [&'static str; 3] = ["P1", "P2", "P3"];

    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::P1 => "P1",
            Priority::P2 => "P2",
            Priority::P3 => "P3",
        }
    }

    /// Parses the wire spelling, ignoring case.
    pub fn parse(s: &str) -> Option<Priority> {
        match s.to_ascii_uppercase().as_str() {
            "P1" => Some(Priority::P1),
            "P2" => Some(Priority::P2),
            "P3" => Some(Priority::P3),
            _ => None,
        }
    }
}

/// Which end of an order a time window (or a location) belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The pickup end.
    Pickup,
    /// The delivery end.
    Delivery,
}

impl Side {
    /// Every side's wire spelling.
    pub const NAMES: [&'static str; 2] = ["pickup", "delivery"];

    /// The wire spelling (`type` of an order time window).
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Pickup => "pickup",
            Side::Delivery => "delivery",
        }
    }

    /// Parses the wire spelling, ignoring case.
    pub fn parse(s: &str) -> Option<Side> {
        match s.to_ascii_lowercase().as_str() {
            "pickup" => Some(Side::Pickup),
            "delivery" => Some(Side::Delivery),
            _ => None,
        }
    }
}

/// A time window of an order, typed by the end it applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderTimeWindow {
    /// Pickup or delivery.
    pub side: Side,
    /// Start.
    pub from: TimeOfDay,
    /// End.
    pub to: TimeOfDay,
}

/// Contact and location data of one end of an order (the `delivery_*` or `pickup_*` fields).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Endpoint {
    /// `*_contact_name`.
    pub contact_name: Option<String>,
    /// `*_contact_number`.
    pub contact_number: Option<String>,
    /// `*_contact_email`.
    pub contact_email: Option<String>,
    /// `*_address`.
    pub address: Option<String>,
    /// `*_country_code`.
    pub country_code: Option<String>,
    /// `*_postcode`.
    pub postcode: Option<String>,
    /// `*_lat`.
    pub lat: Option<f64>,
    /// `*_lng`.
    pub lng: Option<f64>,
    /// `*_duration` in minutes.
    pub duration: Option<f64>,
    /// `*_notes`.
    pub notes: Option<String>,
    /// `*_available_days`.
    pub available_days: Vec<Weekday>,
}

impl Endpoint {
    /// True when the end can be located: an address, a postcode, or both coordinates.
    pub fn has_location(&self) -> bool {
        self.address.is_some()
            || self.postcode.is_some()
            || (self.lat.is_some() && self.lng.is_some())
    }

    /// True when the end has something to geocode but no coordinates.
    pub fn needs_geocoding(&self) -> bool {
        (self.address.is_some() || self.postcode.is_some())
            && (self.lat.is_none() || self.lng.is_none())
    }
}

/// A stored order.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    /// The service's id (0 until stored).
    pub id: i64,
    /// The depot's business number, the create-or-update key.
    pub order_number: String,
    /// Type.
    pub kind: OrderType,
    /// Status (derived from the line items when it has any).
    pub status: Status,
    /// Priority.
    pub priority: Option<Priority>,
    /// The customer, if any.
    pub customer_id: Option<i64>,
    /// The delivery end.
    pub delivery: Endpoint,
    /// The pickup end.
    pub pickup: Endpoint,
    /// `delivery_date`: the date the order is due.
    pub delivery_date: Option<Date>,
    /// Time windows of both ends.
    pub time_windows: Vec<OrderTimeWindow>,
    /// The `order_exchange.reference` linking it to its partner.
    pub exchange_reference: Option<String>,
    /// `parts`.
    pub parts: Option<f64>,
    /// `vehicle_assignment.vehicle_id`.
    pub vehicle_id: Option<i64>,
    /// `emails`.
    pub emails: Vec<String>,
    /// `third_party.id`.
    pub third_party_id: Option<i64>,
    /// Tag names.
    pub tags: Vec<String>,
    /// Skill names.
    pub skills: Vec<String>,
    /// Capacities.
    pub capacities: Vec<CapacityAmount>,
    /// Custom-field values.
    pub custom_fields: Vec<CustomFieldValue>,
    /// A client-set `order_value` (only kept while no line item is valued).
    pub manual_value: Option<Money>,
    /// Line items.
    pub line_items: Vec<LineItem>,
    /// When it was created.
    pub created: Timestamp,
    /// When it was last written.
    pub updated: Timestamp,
}

impl Order {
    /// The order's value and its source (`order_value`, `value_source`).
    pub fn value(&self) -> Result<Option<(Money, ValueSource)>, MoneyError> {
        let items: Vec<Option<Money>> = self
            .line_items
            .iter()
            .map(|i| i.value().map(|v| v.0))
            .collect();
        order_value(self.manual_value, &items)
    }

    /// True when at least one line item carries a value.
    pub fn has_valued_line_items(&self) -> bool {
        self.line_items.iter().any(|i| i.value().is_some())
    }

    /// The end (pickup or delivery) of this order.
    pub fn endpoint(&self, side: Side) -> &Endpoint {
        match side {
            Side::Pickup => &self.pickup,
            Side::Delivery => &self.delivery,
        }
    }

    /// The ends this order's type needs but lacks location data for.
    pub fn missing_locations(&self) -> Vec<Side> {
        missing_locations(self.kind, &self.delivery, &self.pickup)
    }
}

/// The ends `kind` needs but that have no location data (an address, a postcode or both
/// coordinates): a shipment needs both ends, a delivery its delivery end, a pickup its
/// pickup end.
pub fn missing_locations(kind: OrderType, delivery: &Endpoint, pickup: &Endpoint) -> Vec<Side> {
    let mut out = Vec::new();
    if kind.needs_pickup() && !pickup.has_location() {
        out.push(Side::Pickup);
    }
    if kind.needs_delivery() && !delivery.has_location() {
        out.push(Side::Delivery);
    }
    out
}
