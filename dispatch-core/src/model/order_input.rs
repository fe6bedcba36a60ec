//! What an order write carries: the input as sent ([`OrderInput`], JSON types checked by the
//! adapter) and the checked, typed changes ([`OrderChanges`]) the merges apply.

use crate::model::line_item::LineItemInput;
use crate::model::order::{Endpoint, OrderTimeWindow, OrderType, Priority};
use crate::model::order_fields::{CapacityInput, CustomFieldInput, Sent, TimeWindowInput};
use crate::model::order_value::Money;
use crate::time::{Date, Weekday};

/// The fields of one end (`delivery_*` or `pickup_*`) that validation checks but passes on as
/// sent: the same in [`EndpointInput`] and [`EndpointChanges`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EndpointFields {
    /// `*_contact_name`.
    pub contact_name: Sent<String>,
    /// `*_contact_number`.
    pub contact_number: Sent<String>,
    /// `*_contact_email`.
    pub contact_email: Sent<String>,
    /// `*_address`.
    pub address: Sent<String>,
    /// `*_country_code`.
    pub country_code: Sent<String>,
    /// `*_postcode`.
    pub postcode: Sent<String>,
    /// `*_lat`.
    pub lat: Sent<f64>,
    /// `*_lng`.
    pub lng: Sent<f64>,
    /// `*_duration` in minutes.
    pub duration: Sent<f64>,
    /// `*_notes`.
    pub notes: Sent<String>,
}

impl EndpointFields {
    /// Applies the fields to `end`: sent fields overwrite, omitted ones stay.
    pub fn apply_to(&self, end: &mut Endpoint) {
        fn set<T: Clone>(f: &mut Option<T>, c: &Sent<T>) {
            if let Some(v) = c {
                *f = v.clone();
            }
        }
        set(&mut end.contact_name, &self.contact_name);
        set(&mut end.contact_number, &self.contact_number);
        set(&mut end.contact_email, &self.contact_email);
        set(&mut end.address, &self.address);
        set(&mut end.country_code, &self.country_code);
        set(&mut end.postcode, &self.postcode);
        set(&mut end.lat, &self.lat);
        set(&mut end.lng, &self.lng);
        set(&mut end.duration, &self.duration);
        set(&mut end.notes, &self.notes);
    }

    /// True when the address or postcode was sent without any coordinate.
    pub fn relocated_without_coordinates(&self) -> bool {
        (self.address.is_some() || self.postcode.is_some())
            && self.lat.is_none()
            && self.lng.is_none()
    }
}

/// One end (`delivery_*` or `pickup_*`) as sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EndpointInput {
    /// The fields passed on as sent.
    pub fields: EndpointFields,
    /// `*_time_windows`.
    pub time_windows: Option<Vec<TimeWindowInput>>,
    /// `*_available_days`.
    pub available_days: Option<Vec<String>>,
}

/// The `customer` object of an order write.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrderCustomerInput {
    /// Identifies an existing customer.
    pub id: Option<i64>,
    /// Identifies a customer by account (with `id`: written to that customer when it differs).
    pub account: Option<String>,
    /// Name.
    pub name: Option<String>,
    /// E-mail.
    pub email: Option<String>,
    /// Phone.
    pub phone: Option<String>,
    /// Country code.
    pub country_code: Option<String>,
    /// Address.
    pub address: Option<String>,
    /// Postcode.
    pub postcode: Option<String>,
    /// Latitude.
    pub lat: Option<f64>,
    /// Longitude.
    pub lng: Option<f64>,
}

/// One order as sent, with JSON types already checked by the adapter. The `delivery_date`
/// exists only on the delivery end; `pickup.time_windows` etc. mirror the delivery fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrderInput {
    /// `order_number`.
    pub order_number: Sent<String>,
    /// `type`.
    pub kind: Sent<String>,
    /// `priority`.
    pub priority: Sent<String>,
    /// `customer`.
    pub customer: Option<OrderCustomerInput>,
    /// `customer_id` (PUT; the customer cannot change).
    pub customer_id: Sent<i64>,
    /// `delivery_*`.
    pub delivery: EndpointInput,
    /// `pickup_*`.
    pub pickup: EndpointInput,
    /// `delivery_date`.
    pub delivery_date: Sent<String>,
    /// Combined `time_windows` with `type`.
    pub time_windows: Option<Vec<TimeWindowInput>>,
    /// `order_exchange`: `Some(None)` when the object lacks its reference.
    pub order_exchange: Option<Option<String>>,
    /// `parts`.
    pub parts: Sent<f64>,
    /// `vehicle_assignment.vehicle_id` (`Some(None)` when the assignment is null).
    pub vehicle_id: Sent<i64>,
    /// `emails[].email`.
    pub emails: Option<Vec<String>>,
    /// `third_party.id`.
    pub third_party_id: Sent<i64>,
    /// `tags`.
    pub tags: Option<Vec<String>>,
    /// `skills`.
    pub skills: Option<Vec<String>>,
    /// `capacities`.
    pub capacities: Option<Vec<CapacityInput>>,
    /// `custom_fields`.
    pub custom_fields: Option<Vec<CustomFieldInput>>,
    /// `order_value`.
    pub order_value: Sent<f64>,
    /// `line_items`.
    pub line_items: Option<Vec<LineItemInput>>,
}

/// Checked changes to one end.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EndpointChanges {
    /// The fields passed on as sent.
    pub fields: EndpointFields,
    /// `*_available_days`.
    pub available_days: Option<Vec<Weekday>>,
}

impl EndpointChanges {
    /// Applies the changes to `end`: sent fields overwrite, omitted ones stay.
    pub fn apply_to(&self, end: &mut Endpoint) {
        self.fields.apply_to(end);
        if let Some(days) = &self.available_days {
            end.available_days = days.clone();
        }
    }
}

/// The checked content of one order write; `Sent` fields as in [`OrderInput`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrderChanges {
    /// `order_number`.
    pub order_number: Option<String>,
    /// `type`.
    pub kind: Option<OrderType>,
    /// `priority`.
    pub priority: Sent<Priority>,
    /// `customer`.
    pub customer: Option<OrderCustomerInput>,
    /// `customer_id`.
    pub customer_id: Sent<i64>,
    /// `delivery_*`.
    pub delivery: EndpointChanges,
    /// `pickup_*`.
    pub pickup: EndpointChanges,
    /// `delivery_date`.
    pub delivery_date: Sent<Date>,
    /// Every time window sent (delivery, pickup and combined); `Some` when any list was sent.
    pub time_windows: Option<Vec<OrderTimeWindow>>,
    /// `order_exchange.reference`.
    pub exchange_reference: Option<String>,
    /// `parts`.
    pub parts: Sent<f64>,
    /// `vehicle_assignment.vehicle_id`.
    pub vehicle_id: Sent<i64>,
    /// `emails`.
    pub emails: Option<Vec<String>>,
    /// `third_party.id`.
    pub third_party_id: Sent<i64>,
    /// `tags` as sent.
    pub tags: Option<Vec<String>>,
    /// `skills` as sent.
    pub skills: Option<Vec<String>>,
    /// `capacities` as sent.
    pub capacities: Option<Vec<CapacityInput>>,
    /// `custom_fields` as sent.
    pub custom_fields: Option<Vec<CustomFieldInput>>,
    /// `order_value`.
    pub order_value: Sent<Money>,
    /// `line_items` as sent (checked).
    pub line_items: Option<Vec<LineItemInput>>,
}

/// Which write an order comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderWrite {
    /// POST /orders: order_number and type are required.
    Create,
    /// PUT /orders/{id}: partial.
    Update,
}
