//! The body of `POST /orders` deserialised straight into the core's [`OrderInput`]s, without a
//! JSON value in between: parsing a batch into values and reading the orders back out of
//! them cost a fifth of ingest's CPU, most of it allocations.
//!
//! This is the quick way for bodies whose every property is a documented one of the type the
//! property-by-property reader (`order_wire::read_order`) takes; anything else (an unknown or
//! read-only property, a wrong type, a duplicate key, an array where an object belongs) makes
//! the typed form refuse the body, and the handler reads it again as a value, which reports
//! every issue at its path as it always did. So the typed form accepts a subset of what the
//! reader accepts without an issue, and reads it into the same inputs; the tests below hold
//! the two side by side.

use std::fmt;
use std::marker::PhantomData;

use dispatch_core::model::line_item::LineItemInput;
use dispatch_core::model::order_fields::{CapacityInput, CustomFieldInput, Sent, TimeWindowInput};
use dispatch_core::model::order_input::{
    EndpointFields, EndpointInput, OrderCustomerInput, OrderInput,
};
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use axum::extract::{FromRequest, Request};

use crate::bounded_json::MAX_BATCH_ITEMS;
use crate::error::ApiError;
use crate::extract::{typed_json, TypedOrValue};

/// The body of `POST /orders`: the orders, or the JSON value for `order_wire::read_order`.
pub struct PostOrdersBody(pub TypedOrValue<Vec<OrderInput>>);

impl<S: Send + Sync> FromRequest<S> for PostOrdersBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, Self::Rejection> {
        typed_json(req, typed_batch).await.map(PostOrdersBody)
    }
}

/// The orders of a `POST /orders` body, when it deserialises as one; `None` sends the body to
/// the reader of values.
pub fn typed_batch(body: &[u8]) -> Option<Vec<OrderInput>> {
    let Batch(orders) = serde_json::from_slice(body).ok()?;
    Some(orders.into_iter().map(|Obj(o)| o.into_input()).collect())
}

/// A top-level array of at most [`MAX_BATCH_ITEMS`] orders (a longer one is refused as soon
/// as its next element starts, so a body of many small items allocates nothing for them).
struct Batch(Vec<Obj<WireOrder>>);

impl<'de> Deserialize<'de> for Batch {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Items;
        impl<'de> Visitor<'de> for Items {
            type Value = Batch;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of orders")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Batch, A::Error> {
                let mut orders = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(100));
                while let Some(order) = seq.next_element()? {
                    if orders.len() == MAX_BATCH_ITEMS {
                        return Err(de::Error::custom("too many items"));
                    }
                    orders.push(order);
                }
                Ok(Batch(orders))
            }
        }
        d.deserialize_seq(Items)
    }
}

/// A JSON object read into `T`: a derived struct alone also takes an array of its fields in
/// order, which the reader refuses.
struct Obj<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Object<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Object<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        d.deserialize_map(Object(PhantomData))
    }
}

/// A property as the core's write types take it (`Reader` with `order_json::sent`): absent
/// `None` (the field's default), null `Some(None)`.
fn sent<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Sent<T>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// An array property (`order_json::list`): absent `None`, null or `[]` an empty list.
fn list<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Vec<T>>, D::Error> {
    Option::<Vec<T>>::deserialize(d).map(|v| Some(v.unwrap_or_default()))
}

/// An array of objects, each read into `T`.
fn objects<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Vec<T>>, D::Error> {
    list::<D, Obj<T>>(d).map(|v| v.map(|v| v.into_iter().map(|Obj(t)| t).collect()))
}

/// `{ id }` objects that may be null (`order_wire::nested_id`): absent `None`, null or no id
/// `Some(None)`.
fn nested<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<Obj<T>>>, D::Error> {
    Option::<Obj<T>>::deserialize(d).map(Some)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireOrder {
    #[serde(default, deserialize_with = "sent")]
    order_number: Sent<String>,
    #[serde(default, rename = "type", deserialize_with = "sent")]
    kind: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    priority: Sent<String>,
    #[serde(default)]
    customer: Option<Obj<WireCustomer>>,
    #[serde(default, deserialize_with = "sent")]
    customer_id: Sent<i64>,
    #[serde(default, deserialize_with = "sent")]
    delivery_contact_name: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    delivery_contact_number: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    delivery_contact_email: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    delivery_address: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    delivery_country_code: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    delivery_postcode: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    delivery_lat: Sent<f64>,
    #[serde(default, deserialize_with = "sent")]
    delivery_lng: Sent<f64>,
    #[serde(default, deserialize_with = "sent")]
    delivery_duration: Sent<f64>,
    #[serde(default, deserialize_with = "sent")]
    delivery_notes: Sent<String>,
    #[serde(default, deserialize_with = "objects")]
    delivery_time_windows: Option<Vec<WireWindow>>,
    #[serde(default, deserialize_with = "list")]
    delivery_available_days: Option<Vec<String>>,
    #[serde(default, deserialize_with = "sent")]
    delivery_date: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    pickup_contact_name: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    pickup_contact_number: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    pickup_contact_email: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    pickup_address: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    pickup_country_code: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    pickup_postcode: Sent<String>,
    #[serde(default, deserialize_with = "sent")]
    pickup_lat: Sent<f64>,
    #[serde(default, deserialize_with = "sent")]
    pickup_lng: Sent<f64>,
    #[serde(default, deserialize_with = "sent")]
    pickup_duration: Sent<f64>,
    #[serde(default, deserialize_with = "sent")]
    pickup_notes: Sent<String>,
    #[serde(default, deserialize_with = "objects")]
    pickup_time_windows: Option<Vec<WireWindow>>,
    #[serde(default, deserialize_with = "list")]
    pickup_available_days: Option<Vec<String>>,
    #[serde(default, deserialize_with = "objects")]
    time_windows: Option<Vec<WireTypedWindow>>,
    #[serde(default)]
    order_exchange: Option<Obj<WireExchange>>,
    #[serde(default, deserialize_with = "sent")]
    parts: Sent<f64>,
    #[serde(default, deserialize_with = "nested")]
    vehicle_assignment: Option<Option<Obj<WireVehicleAssignment>>>,
    #[serde(default, deserialize_with = "objects")]
    emails: Option<Vec<WireEmail>>,
    #[serde(default, deserialize_with = "nested")]
    third_party: Option<Option<Obj<WireId>>>,
    #[serde(default, deserialize_with = "list")]
    tags: Option<Vec<String>>,
    #[serde(default, deserialize_with = "list")]
    skills: Option<Vec<String>>,
    #[serde(default, deserialize_with = "objects")]
    capacities: Option<Vec<WireCapacity>>,
    #[serde(default, deserialize_with = "objects")]
    custom_fields: Option<Vec<WireCustomField>>,
    #[serde(default, deserialize_with = "sent")]
    order_value: Sent<f64>,
    #[serde(default, deserialize_with = "objects")]
    line_items: Option<Vec<WireLineItem>>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireCustomer {
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

/// A time window of one end (`type` is not one of its properties).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireWindow {
    from: Option<String>,
    to: Option<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireTypedWindow {
    from: Option<String>,
    to: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireExchange {
    reference: Option<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireVehicleAssignment {
    vehicle_id: Option<i64>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireId {
    id: Option<i64>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireEmail {
    email: Option<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireCapacity {
    id: Option<i64>,
    #[serde(rename = "type")]
    kind: Option<String>,
    capacity: Option<f64>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireCustomField {
    id: Option<i64>,
    name: Option<String>,
    value: Option<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WireLineItem {
    product_code: Option<String>,
    product_name: Option<String>,
    product_quantity: Option<f64>,
    #[serde(default, deserialize_with = "sent")]
    product_unit_price: Sent<f64>,
    #[serde(default, deserialize_with = "sent")]
    product_value: Sent<f64>,
    #[serde(default, deserialize_with = "sent")]
    quantity_outstanding: Sent<f64>,
    status: Option<String>,
    #[serde(default, deserialize_with = "sent")]
    date: Sent<String>,
    #[serde(default, deserialize_with = "objects")]
    capacities: Option<Vec<WireCapacity>>,
    #[serde(default, deserialize_with = "objects")]
    custom_fields: Option<Vec<WireCustomField>>,
}

fn windows(w: Option<Vec<WireWindow>>) -> Option<Vec<TimeWindowInput>> {
    w.map(|w| {
        w.into_iter()
            .map(|w| TimeWindowInput {
                from: w.from,
                to: w.to,
                kind: None,
            })
            .collect()
    })
}

fn capacities(c: Option<Vec<WireCapacity>>) -> Option<Vec<CapacityInput>> {
    c.map(|c| {
        c.into_iter()
            .map(|c| CapacityInput {
                id: c.id,
                kind: c.kind,
                capacity: c.capacity,
            })
            .collect()
    })
}

fn custom_fields(f: Option<Vec<WireCustomField>>) -> Option<Vec<CustomFieldInput>> {
    f.map(|f| {
        f.into_iter()
            .map(|f| CustomFieldInput {
                id: f.id,
                name: f.name,
                value: f.value,
            })
            .collect()
    })
}

impl WireOrder {
    fn into_input(self) -> OrderInput {
        let customer = self.customer.map(|Obj(c)| OrderCustomerInput {
            id: c.id,
            account: c.account,
            name: c.name,
            email: c.email,
            phone: c.phone,
            country_code: c.country_code,
            address: c.address,
            postcode: c.postcode,
            lat: c.lat,
            lng: c.lng,
        });
        // A customer id sent on its own identifies the customer like `customer: {id}`, as
        // `order_wire::read_order` has it for a POST.
        let customer = match (customer, self.customer_id) {
            (None, Some(Some(id))) => Some(OrderCustomerInput {
                id: Some(id),
                ..OrderCustomerInput::default()
            }),
            (customer, _) => customer,
        };
        OrderInput {
            order_number: self.order_number,
            kind: self.kind,
            priority: self.priority,
            customer,
            customer_id: self.customer_id,
            delivery: EndpointInput {
                fields: EndpointFields {
                    contact_name: self.delivery_contact_name,
                    contact_number: self.delivery_contact_number,
                    contact_email: self.delivery_contact_email,
                    address: self.delivery_address,
                    country_code: self.delivery_country_code,
                    postcode: self.delivery_postcode,
                    lat: self.delivery_lat,
                    lng: self.delivery_lng,
                    duration: self.delivery_duration,
                    notes: self.delivery_notes,
                },
                time_windows: windows(self.delivery_time_windows),
                available_days: self.delivery_available_days,
            },
            pickup: EndpointInput {
                fields: EndpointFields {
                    contact_name: self.pickup_contact_name,
                    contact_number: self.pickup_contact_number,
                    contact_email: self.pickup_contact_email,
                    address: self.pickup_address,
                    country_code: self.pickup_country_code,
                    postcode: self.pickup_postcode,
                    lat: self.pickup_lat,
                    lng: self.pickup_lng,
                    duration: self.pickup_duration,
                    notes: self.pickup_notes,
                },
                time_windows: windows(self.pickup_time_windows),
                available_days: self.pickup_available_days,
            },
            delivery_date: self.delivery_date,
            time_windows: self.time_windows.map(|w| {
                w.into_iter()
                    .map(|w| TimeWindowInput {
                        from: w.from,
                        to: w.to,
                        kind: w.kind,
                    })
                    .collect()
            }),
            order_exchange: self.order_exchange.map(|Obj(e)| e.reference),
            parts: self.parts,
            vehicle_id: self
                .vehicle_assignment
                .map(|a| a.and_then(|Obj(a)| a.vehicle_id)),
            emails: self
                .emails
                .map(|e| e.into_iter().map(|e| e.email.unwrap_or_default()).collect()),
            third_party_id: self.third_party.map(|t| t.and_then(|Obj(t)| t.id)),
            tags: self.tags,
            skills: self.skills,
            capacities: capacities(self.capacities),
            custom_fields: custom_fields(self.custom_fields),
            order_value: self.order_value,
            line_items: self.line_items.map(|items| {
                items
                    .into_iter()
                    .map(|li| LineItemInput {
                        product_code: li.product_code,
                        product_name: li.product_name,
                        product_quantity: li.product_quantity,
                        product_unit_price: li.product_unit_price,
                        product_value: li.product_value,
                        quantity_outstanding: li.quantity_outstanding,
                        status: li.status,
                        date: li.date,
                        capacities: capacities(li.capacities),
                        custom_fields: custom_fields(li.custom_fields),
                    })
                    .collect()
            }),
        }
    }
}

#[cfg(test)]
mod tests;
